/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_UTARGET_H
#define KFIT_UTARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* Functions of a user binary or library, for uprobes */
struct kfit_ufuncs {
	char path[PATH_MAX];	/* resolved binary or library */
	char **names;		/* function symbols (STT_FUNC/STT_GNU_IFUNC, defined, size > 0), sorted, unique */
	int n;
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
 * Returns 0 (n >= 1), or a negative errno with err filled: -ENOENT (no
 * such binary or library, no such function (with the closest names), a
 * glob matching nothing), -ENOEXEC (not ELF), -EINVAL (bad spec).
 */
int kfit_ufuncs_resolve(const char *spec, int pid, struct kfit_ufuncs *out,
			char *err, size_t errlen);
void kfit_ufuncs_free(struct kfit_ufuncs *u);

/* Has a ':' and is not "sys:..." */
bool kfit_is_user_target(const char *spec);

#endif
