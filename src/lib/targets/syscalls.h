/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_SYSCALLS_H
#define KFIT_SYSCALLS_H

#include <stddef.h>

/*
 * x86_64 system calls, from a table generated at build time from the
 * system's <asm/unistd_64.h> (build/gen/syscall_table.h).
 */
int kfit_syscall_nr(const char *name);		/* the number, or -ENOENT */
const char *kfit_syscall_name(int nr);		/* or NULL */

/*
 * The tracepoints of system call name: "syscalls/sys_enter_NAME" and
 * "syscalls/sys_exit_NAME". Some entry points have tracepoints of another
 * name (stat is newstat, sendfile is sendfile64, ...): those are filled in.
 * Returns 0, or a negative errno with the reason in err: -ENOENT (no such
 * system call (with the closest names), no such tracepoint on this
 * kernel, no tracefs), -EACCES (tracefs unreadable), -EINVAL (no name),
 * -ENAMETOOLONG (a buffer too small).
 */
int kfit_syscall_tracepoints(const char *name, char *enter, size_t enter_len,
			     char *exit, size_t exit_len, char *err, size_t errlen);

/* A system call a glob matched */
struct kfit_syscall_match {
	char *name;		/* as the table names it ("stat") */
	char *tp;		/* its tracepoints': syscalls/sys_enter_TP ("newstat") */
};

struct kfit_syscall_matches {
	struct kfit_syscall_match *v;	/* those with tracepoints here, by name */
	int n;
	char **untraced;		/* known calls without tracepoints here */
	int nuntraced;
};

/*
 * The system calls matching glob (fnmatch, over the names of the table and
 * of the syscalls/sys_enter_* tracepoints: newer calls than the table's
 * are there). Returns 0 (n + nuntraced >= 1), or a negative errno with
 * err filled: -ENOENT (nothing matches, no tracefs), -EACCES, -ENOMEM.
 */
int kfit_syscall_glob(const char *glob, struct kfit_syscall_matches *out,
		      char *err, size_t errlen);
void kfit_syscall_matches_free(struct kfit_syscall_matches *g);

#endif
