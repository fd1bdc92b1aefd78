/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_UPROBES_H
#define KFIT_UPROBES_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

/*
 * The uprobe side of the mass attacher (attach.c): uprobe_multi links
 * made with the bpf() syscall (libbpf 1.1 has no API for them), the file
 * offsets of functions, and the processes that run a binary.
 */

/* BPF_TRACE_UPROBE_MULTI (6.6+), past what 6.1's UAPI header knows */
#define KFIT_UPROBES_TRACE_MULTI	48

/*
 * Whether this kernel has uprobe_multi links that filter by process
 * (6.6 to 6.9 filtered by thread: not good enough). 0, or a negative
 * errno with why filled. Tried once per process.
 */
int kfit_uprobes_multi_check(char *why, size_t len);

/*
 * One uprobe_multi link of prog_fd (loaded with expected_attach_type
 * KFIT_UPROBES_TRACE_MULTI) on path at offs[0..n), with cookies; pid > 0:
 * only in that process; ret: return probes. The link's fd, or -errno.
 */
int kfit_uprobes_multi_link(int prog_fd, const char *path, const __u64 *offs,
		     const __u64 *cookies, __u32 n, int pid, bool ret);

/* Processes that map a file, but ours */
struct kfit_uprobes_users {
	int n;			/* how many */
	int pid[4];		/* the first few */
	char comm[4][16];
};

/*
 * The processes mapping path now, but this one, pid (0: none) and, with
 * descendants, pid's descendants. 0, or -errno (path unreadable).
 */
int kfit_uprobes_binary_users(const char *path, int pid, bool descendants,
		      struct kfit_uprobes_users *u);

#endif
