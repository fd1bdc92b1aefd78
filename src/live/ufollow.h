/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_UFOLLOW_H
#define KFIT_UFOLLOW_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * User functions in a process and in every process it creates from now
 * on, never in any other: the kernel's process filter, not only the BPF
 * side's, keeps the breakpoints out of the other processes that map the
 * binary (they would stop at each call, their returns rewritten).
 *
 * The process's own uprobes carry its pid (the attacher's). The BPF side
 * says on follow_rb (follow.bpf.h) when a followed process forks or
 * exits; a thread here makes the new process's uprobes, for the same
 * functions (a uprobe_multi link per binary and direction, else a perf
 * uprobe pair per function), or closes the gone one's. A child's calls
 * before they are made are missed: making them takes an RCU grace period
 * or two (about 10 ms on 6.18), and a process that ends sooner is not
 * traced at all; both are counted (kfit_ufollow_stats).
 *
 * Not perf events with inherit: the uprobe PMU's copy at fork reads the
 * path from the forking process's memory (the fork fails), and tracefs
 * events with inherit stopped running the BPF program once the first
 * child exited (seen on 6.18).
 */
struct kfit_ufollow;

/* Following pid's new processes; multi: uprobe_multi links, else pairs */
struct kfit_ufollow *kfit_ufollow_new(int pid, bool multi);

/*
 * n functions of path (offsets and cookies), attached in pid's uprobes
 * by the caller: each new process gets uprobes of its own for them, to
 * entry_fd's and ret_fd's programs
 */
int kfit_ufollow_set(struct kfit_ufollow *u, int entry_fd, int ret_fd,
		     const char *path, const __u64 *offs, const __u64 *cookies,
		     __u32 n);

/* Watch rb_fd (follow_rb) from a thread, until kfit_ufollow_stop(). 0, or -errno */
int kfit_ufollow_start(struct kfit_ufollow *u, int rb_fd);

/*
 * Stops the thread; the links of the processes still alive go to *fds
 * (appended, *n counting) for the caller to close with its own.
 */
int kfit_ufollow_stop(struct kfit_ufollow *u, int **fds, int *n);

struct kfit_ufollow_stats {
	unsigned long procs;	/* new processes seen */
	unsigned long gone;	/* ended before their uprobes were made */
	unsigned long failed;	/* their uprobes could not be made */
	__u64 max_late_ns;	/* the latest a new process's uprobes were in */
};

void kfit_ufollow_get_stats(const struct kfit_ufollow *u, struct kfit_ufollow_stats *st);

/* Stops the thread if running and closes what is left */
void kfit_ufollow_free(struct kfit_ufollow *u);

#endif
