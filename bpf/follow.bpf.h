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
 *
 * With follow_notify set (the attacher sets it when user functions go
 * through uprobe_multi links, made per process), each new and each gone
 * process is said on follow_rb, so that user space makes or closes its
 * links; an event the ring had no room for is counted in follow_lost.
 */
#ifndef KFIT_FOLLOW_BPF_H
#define KFIT_FOLLOW_BPF_H

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "kfit/follow.h"

#define KFIT_FOLLOW_MAX	8192	/* processes followed at once */

const volatile bool follow;	/* only the processes in tracked */
bool follow_notify;		/* set by the attacher after load */
__u64 follow_lost;		/* events follow_rb had no room for */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 10);
} follow_rb SEC(".maps");

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

static __always_inline void kfit_follow_say(__u32 tgid, __u32 what)
{
	struct kfit_follow_ev *e;

	if (!follow_notify)
		return;
	e = bpf_ringbuf_reserve(&follow_rb, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&follow_lost, 1);
		return;
	}
	e->ns = bpf_ktime_get_ns();
	e->tgid = tgid;
	e->what = what;
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
}

/* A new process of a followed one is followed (threads share its tgid) */
static __always_inline void kfit_follow_fork(struct task_struct *parent,
					     struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (!follow || ctgid == ptgid || !bpf_map_lookup_elem(&tracked, &ptgid))
		return;
	bpf_map_update_elem(&tracked, &ctgid, &one, BPF_ANY);
	kfit_follow_say(ctgid, KFIT_FOLLOW_FORK);
}

/* The last thread of a followed process exits: its pid may come back */
static __always_inline void kfit_follow_exit(struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);

	if (follow && !BPF_CORE_READ(p, signal, live.counter) &&
	    !bpf_map_delete_elem(&tracked, &tgid))
		kfit_follow_say(tgid, KFIT_FOLLOW_EXIT);
}

#endif
