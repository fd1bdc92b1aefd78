/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processes a tool follows: -p PID or its COMMAND, seeded into
 * tracked by the loader, and every process they create from then on,
 * added at fork (as perf -p and strace -f follow them). A process leaves
 * when its last thread exits, since its pid may come back.
 *
 * A tool includes this after vmlinux.h, sets follow in its rodata, and
 * calls kfit_follow_fork() and kfit_follow_exit() from its
 * sched_process_fork and sched_process_exit programs.
 */
#ifndef KFIT_FOLLOW_BPF_H
#define KFIT_FOLLOW_BPF_H

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#define KFIT_FOLLOW_MAX	8192	/* processes followed at once */

const volatile bool follow;	/* only the processes in tracked */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KFIT_FOLLOW_MAX);
	__type(key, __u32);
	__type(value, __u8);
} tracked SEC(".maps");

/* Whether process tgid is followed (everyone when nothing is) */
static __always_inline bool kfit_followed(__u32 tgid)
{
	return !follow || bpf_map_lookup_elem(&tracked, &tgid);
}

/* A new process of a followed one is followed (threads share its tgid) */
static __always_inline void kfit_follow_fork(struct task_struct *parent,
					     struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (follow && ctgid != ptgid && bpf_map_lookup_elem(&tracked, &ptgid))
		bpf_map_update_elem(&tracked, &ctgid, &one, BPF_ANY);
}

/* The last thread of a followed process exits: its pid may come back */
static __always_inline void kfit_follow_exit(struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);

	if (follow && !BPF_CORE_READ(p, signal, live.counter))
		bpf_map_delete_elem(&tracked, &tgid);
}

#endif
