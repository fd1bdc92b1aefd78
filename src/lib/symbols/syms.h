/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_SYMS_H
#define KFIT_SYMS_H

#include <stdbool.h>
#include <linux/types.h>
#include "elfsyms.h"

/*
 * Names of code addresses, kernel and user, for sampled stacks.
 *
 * Kernel addresses through kallsyms: "vfs_read", or "nf_hook_slow
 * [nf_tables]" for a module's function. User addresses through the
 * process's /proc/PID/maps (read at its first address, and again when an
 * address falls outside every mapping known, as after a dlopen; once the
 * process is gone, or a zombie, the maps last read stay: its last samples
 * are read after its exit) and the ELF symbols of the mapped file
 * (elfsyms.h: .symtab, .dynsym, or the separate debug file where
 * installed), each file read once; the vDSO's from this process's own
 * copy (the kernel's image is the same for all).
 *
 * An address is never dropped: one no symbol holds shows as
 * "FILE+0xOFF", FILE the mapping's base name ("libc.so.6", "[vdso]",
 * "[anon]") and OFF the link-time address when the ELF file could be
 * read (what addr2line -e FILE and objdump take), else the offset in the
 * file; an address in no mapping, or a kernel address kallsyms cannot
 * name, shows as "[unknown] 0xADDR".
 *
 * The return addresses of a stack point after their call: the caller
 * gives them as they are (a call that ends a function names the next).
 * One thread at a time: the symbolizer and its caches are not locked.
 * JIT code (perf-PID.map files) and C++ demangling are not handled.
 */

/* Where the facts come from: NULL fields mean the live system */
struct kfit_syms_src {
	const char *proc;	/* /proc: PID/maps, PID/root, PID/map_files */
	const char *kallsyms;	/* <proc>/kallsyms */
	const char *debug_root;	/* /usr/lib/debug */
};

struct kfit_syms;

/* NULL with errno ENOMEM, or ENAMETOOLONG (a path of src); src may be NULL */
struct kfit_syms *kfit_syms_new(const struct kfit_syms_src *src);
void kfit_syms_free(struct kfit_syms *s);

/*
 * The name of addr in process pid (kernel: a kernel address), a
 * kfit_ctree_sym_fn (calltree.h) whose ctx is the kfit_syms. The string is the
 * symbolizer's: the same pointer for the same name, valid until
 * kfit_syms_free. NULL only when out of memory.
 */
const char *kfit_syms_name(void *ctx, __u32 pid, __u64 addr, bool kernel);

/*
 * Read pid's maps now, while the process lives (its addresses are named
 * later): 0, or -errno (-ENOENT: no such process)
 */
int kfit_syms_pid(struct kfit_syms *s, __u32 pid);
/*
 * User frames' names with what DWARF adds, where it is installed (the
 * file's own, or its debug file's): the functions inlined at the address
 * ("phys" KFIT_FRAME_SEP "callee (inlined)", frames.h), and with lines
 * each frame's " (file.c:123)". Off by default. Addresses are taken as
 * return addresses: the call before one is looked up.
 */
void kfit_syms_set_dwarf(struct kfit_syms *s, bool inlines, bool lines);

/* Forget pid's maps: after it called exec, or exited (pids are reused) */
void kfit_syms_forget(struct kfit_syms *s, __u32 pid);

/*
 * Where user address addr of pid is: 0 with *elf the mapped ELF file and
 * *vaddr its link-time address; -ENOENT in no mapping, -ENOEXEC in a
 * mapping of no ELF file that could be read (anonymous: JIT code)
 */
int kfit_syms_locate(struct kfit_syms *s, __u32 pid, __u64 addr,
		     const struct kfit_elf **elf, __u64 *vaddr);
/* This process's vDSO image (every process maps the same), or NULL */
const void *kfit_syms_vdso_image(struct kfit_syms *s, size_t *size);

/* The ELF file mapped at addr in pid (for its build-id), or NULL */
const struct kfit_elf *kfit_syms_file_of(struct kfit_syms *s, __u32 pid, __u64 addr);
/* The ELF files read so far, in the order they were read */
int kfit_syms_nfiles(const struct kfit_syms *s);
const struct kfit_elf *kfit_syms_file(const struct kfit_syms *s, int i);

/*
 * Why kernel addresses go unnamed, or NULL when kallsyms serves: "cannot
 * read /proc/kallsyms: ..." or "/proc/kallsyms shows no addresses
 * (kernel.kptr_restrict)". It reads kallsyms if not done yet.
 */
const char *kfit_syms_kernel_note(struct kfit_syms *s);

#endif
