/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_ELFSYMS_H
#define KFIT_ELFSYMS_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <sys/types.h>
#include <linux/types.h>

/*
 * The function symbols of an ELF file, by name and by address: .symtab
 * and .dynsym, and where the file has no .symtab (stripped) those of its
 * separate debug file when one is installed:
 *   <debug_root>/.build-id/xx/yyyy.debug		(NT_GNU_BUILD_ID)
 *   <dir>/NAME, <dir>/.debug/NAME, <debug_root><dir>/NAME	(.gnu_debuglink)
 * A debug file counts only if it is the file's: the same build-id, else
 * (no build-id) the CRC32 .gnu_debuglink gives.
 *
 * Symbols sit at link-time addresses. Code at a file offset (what
 * /proc/PID/maps gives: addr - start + pgoff) is at the address of the
 * PT_LOAD segment holding that offset, PIE or not:
 * kfit_elf_off_to_addr().
 */

#define KFIT_ELF_BUILD_ID_MAX	64

/* What a symbol's section says about it */
#define KFIT_ELF_SYM_NOEXEC		0x1	/* in no executable section */
#define KFIT_ELF_SYM_INITFINI	0x2	/* in .init or .fini */
#define KFIT_ELF_SYM_PLT		0x4	/* in a PLT section: a stub */
#define KFIT_ELF_SYM_NORETURN	0x8	/* DWARF: never returns (opts' noreturn) */

struct kfit_elfsym {
	__u64 addr;		/* st_value */
	__u64 size;		/* 0: unknown; it reaches the next symbol */
	const char *name;	/* "malloc@@GLIBC_2.2.5" is "malloc" */
	bool ifunc;		/* STT_GNU_IFUNC: addr is its resolver's */
	unsigned int flags;	/* KFIT_SYM_* */
};

struct kfit_elfseg {		/* a PT_LOAD segment */
	__u64 vaddr, memsz;
	__u64 offset, filesz;
	bool exec;
};

struct kfit_elf {
	char *path;		/* as given */
	char *debug_path;	/* the debug file the symbols came from, or NULL */
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	bool pie;		/* ET_DYN: loaded at a base; ET_EXEC: at its own addresses */
	__u64 entry;		/* e_entry: where the program starts (0: none) */
	bool program;		/* ET_EXEC or a PT_INTERP: entry is run (a library's is not) */
	__u8 build_id[KFIT_ELF_BUILD_ID_MAX];
	unsigned int build_id_len;	/* 0: none */
	struct kfit_elfseg *segs;
	int nsegs;
	/*
	 * Defined STT_FUNC and STT_GNU_IFUNC symbols, by address; the names
	 * of one address (malloc, __libc_malloc) plainest first: fewest
	 * leading '_', then shortest. An (address, name) pair is there once.
	 */
	struct kfit_elfsym *syms;
	int nsyms;
	int *by_name;		/* private: indexes into syms, by name then address */
	char *strs;		/* private: the names */
};

struct kfit_elf_opts {
	bool debug;		/* also a separate debug file (not what libbpf's
				   uprobes see: they read the file itself) */
	const char *debug_root;	/* NULL: /usr/lib/debug */
	/*
	 * KFIT_ELF_SYM_NORETURN from DWARF's DW_AT_noreturn: the file's
	 * DWARF, else its debug file's (found as for debug)
	 */
	bool noreturn;
};

/* The section of elf called name, or NULL */
Elf_Scn *kfit_elf_section(Elf *elf, const char *name);

/*
 * Read path (o may be NULL: no debug file). Returns 0, or a negative
 * errno with err filled: the open's error ("cannot open 'x': ..."),
 * -ENOEXEC ("'x' is not an ELF file"), -ENOMEM. A file without function
 * symbols is no error (nsyms 0).
 */
int kfit_elf_load(const char *path, const struct kfit_elf_opts *o,
		  struct kfit_elf **out, char *err, size_t errlen);
/* The same from an image in memory (the vDSO), named name; no debug file */
int kfit_elf_load_mem(const void *image, size_t size, const char *name,
		      struct kfit_elf **out, char *err, size_t errlen);
void kfit_elf_free(struct kfit_elf *e);

/*
 * The function holding addr: the nearest symbol at or below it, if its
 * size covers addr (size 0: up to the next symbol, in the same segment).
 * Of aliases, the plainest. NULL when none does.
 */
const struct kfit_elfsym *kfit_elf_by_addr(const struct kfit_elf *e, __u64 addr);
/* The symbol of that name (of several, the lowest address), or NULL */
const struct kfit_elfsym *kfit_elf_by_name(const struct kfit_elf *e, const char *name);
/* Names in order: the i-th by name, 0 <= i < nsyms (else NULL) */
const struct kfit_elfsym *kfit_elf_name_at(const struct kfit_elf *e, int i);
/* The link-time address of file offset off: 0, or -ENOENT (in no PT_LOAD) */
int kfit_elf_off_to_addr(const struct kfit_elf *e, __u64 off, __u64 *addr);
/* The file offset of link-time address addr (a uprobe's): 0, or -ENOENT */
int kfit_elf_addr_to_off(const struct kfit_elf *e, __u64 addr, __u64 *off);
/*
 * The GOT slot (link-time address) the dynamic linker fills with what
 * the IFUNC resolver at address resolver returns: the R_X86_64_IRELATIVE
 * relocation of path whose addend is the resolver. 0, or -ENOENT (none:
 * nothing in the file itself calls it), or the open's error.
 */
int kfit_elf_irelative(const char *path, __u64 resolver, __u64 *slot,
		       char *err, size_t errlen);
/*
 * e's separate debug file, found as kfit_elf_opts' debug finds it under
 * root (NULL: /usr/lib/debug); elf is e's file (its .gnu_debuglink).
 * Opened, its descriptor in *fd; NULL if none is installed.
 */
Elf *kfit_elf_debug_open(Elf *elf, const struct kfit_elf *e, const char *root, int *fd);
/* The build-id in lower-case hex into buf ("" if none); returns buf */
const char *kfit_elf_build_id_hex(const struct kfit_elf *e, char *buf, size_t len);
/*
 * The GNU build-id of a block of ELF notes in memory, laid out as
 * /sys/kernel/notes has them (4-byte aligned, this machine's byte
 * order), in lower-case hex into buf; NULL when it has none (or buf is
 * too small)
 */
const char *kfit_elf_notes_build_id(const void *notes, size_t len, char *buf, size_t buflen);
/* The running kernel's, from path's notes (NULL: /sys/kernel/notes): as above */
const char *kfit_kernel_build_id(const char *path, char *buf, size_t len);

/*
 * Files read once: kfit_elfcache_get() of a path whose device, inode
 * and mtime have not changed returns the object it read before. A file
 * that changed is read again; the old object stays valid (others may
 * still point at it) until the cache is freed. Failures are kept too.
 */
struct kfit_elfcache;

struct kfit_elfcache *kfit_elfcache_new(const struct kfit_elf_opts *o);
void kfit_elfcache_free(struct kfit_elfcache *c);
/* The file's symbols, or NULL with err filled (as kfit_elf_load) */
const struct kfit_elf *kfit_elfcache_get(struct kfit_elfcache *c, const char *path,
					 char *err, size_t errlen);
/* The files read, in the order they were (failures left out) */
int kfit_elfcache_count(const struct kfit_elfcache *c);
const struct kfit_elf *kfit_elfcache_at(const struct kfit_elfcache *c, int i);

/*
 * Files mapped by processes. One line of /proc/PID/maps:
 * "7f12-7f34 r-xp 00028000 fd:01 1234    /usr/lib/x86_64-linux-gnu/libc.so.6"
 */
struct kfit_elf_mapline {
	__u64 start, end, pgoff;
	char perms[5];		/* "r-xp" */
	dev_t dev;
	unsigned long ino;
	char *path;		/* into the line (its '\n' cut), "" for anonymous */
};

/* 0, or -EINVAL for a line that is not one */
int kfit_elf_parse_mapline(char *line, struct kfit_elf_mapline *m);

/*
 * Where this process can open a file that process pid maps at path
 * (device dev, inode ino): path itself if it is that file here, else
 * through the process's root, <proc>/PID/root<path> (containers). proc
 * NULL: /proc. 0, or -ENAMETOOLONG.
 */
int kfit_elf_proc_path(const char *proc, int pid, const char *path, dev_t dev,
		   ino_t ino, char *out, size_t len);

#endif
