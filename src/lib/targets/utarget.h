/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_UTARGET_H
#define KFIT_UTARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include <linux/types.h>

/* A function matched but refused, and why */
struct kfit_utarget_skip {
	char *name;
	const char *reason;	/* a constant string */
};

/* Functions of a user binary or library, for uprobes */
struct kfit_utarget {
	char path[PATH_MAX];	/* resolved binary or library */
	char **names;		/* function symbols (STT_FUNC/STT_GNU_IFUNC, defined, size > 0), sorted, unique */
	__u64 *offs;		/* names[i]'s code at this file offset (uprobe's offset) */
	char **impls;		/* an IFUNC's implementation's name ("__strlen_avx2"), else NULL */
	int n;
	struct kfit_utarget_skip *skipped;	/* matched, but no return probe can go there */
	int nskipped;
};

/*
 * spec is "BINARY:FUNC" (split at the last ':'). BINARY is a path
 * (absolute, or relative with a '/'), a program found in $PATH, or a
 * library short name: "c" or "libc" is libc.so.6, "pthread" is
 * libpthread.so.0, "libssl" is libssl.so.3, from the ld.so cache (the
 * x86-64 entry whose soname starts with "libNAME.so", a versioned one
 * first). Names starting with "lib" or holding ".so" are looked up as
 * libraries first, others as programs first. With pid > 0 the library
 * mapped in that process is preferred (/proc/PID/maps), and a name
 * matching the process's executable is resolved through /proc/PID/exe.
 * FUNC is a name or an fnmatch glob; symbols come from .symtab and
 * .dynsym, "malloc@@GLIBC_2.2.5" counting as "malloc". Where a glob
 * matches several names of one address (malloc and __libc_malloc), only
 * the plainest is kept: two probes there would count each call twice.
 *
 * Functions with no normal return are refused: the program's entry point
 * (_start: entered with argc, not a return address, on top of the stack),
 * code entered by a jump or a return (__restore_rt, _dl_runtime_resolve*),
 * .init/.fini code, PLT stubs, symbols outside executable sections or of
 * size 0, and functions documented never to return (exit, abort, longjmp,
 * __cxa_throw, ...: kfit_utarget_no_retprobe). A glob puts them in skipped
 * with the reason; a name is an error.
 *
 * An IFUNC (strlen) is traced at the implementation the dynamic linker
 * picks: in process pid, from its relocated GOT slot; else as it resolves
 * in this process (the same file and CPU). offs[i] is then that code's;
 * where a glob's IFUNCs resolve to one implementation (memcpy, memmove),
 * one of them is kept, the others skipped.
 *
 * Returns 0 (n >= 1, or n == 0 with nskipped >= 1 for a glob), or a
 * negative errno with err filled: -ENOENT (no such binary or library, no
 * such function (with the closest names), a glob matching nothing),
 * -ENOEXEC (not ELF), -EINVAL (bad spec), -EPERM (a named function that
 * is refused, with the reason).
 */
int kfit_utarget_resolve(const char *spec, int pid, struct kfit_utarget *out,
			char *err, size_t errlen);
void kfit_utarget_free(struct kfit_utarget *u);

/*
 * Why no return probe may go on the function of these names (all the
 * names of one address), or NULL. Exposed for the tests.
 */
const char *kfit_utarget_no_retprobe(const char *const *names, int n);

/* Has a ':' and is not "sys:..." */
bool kfit_utarget_is_spec(const char *spec);

#endif
