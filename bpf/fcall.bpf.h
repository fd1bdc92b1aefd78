/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call-stack mechanics of the function tools (funcdur, callgraph):
 * the execution context, the stack keys, the filters of whose calls are
 * traced, and frames pushed at entry and found again at exit. What a tool
 * does with a frame that returns is its own. Include after vmlinux.h.
 *
 * Calls nest on a stack per thread, and per CPU for interrupt contexts
 * (an interrupt's calls are not the task's it struck), so nested,
 * recursive, sleeping and migrating calls are all matched right.
 */
#ifndef KFIT_FCALL_BPF_H
#define KFIT_FCALL_BPF_H

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "kfit.bpf.h"
#include "follow.bpf.h"
#include "kfit/fcall.h"

/* Whose calls: set by the loader before load */
const volatile __u32 self_tgid;		/* the tool itself: never traced */
const volatile __u32 filter_tgid;
const volatile __u32 filter_tid;
const volatile bool filter_comm;
const volatile char comm[16];
const volatile __u64 filter_cgroup;	/* cgroup id, 0: any */
const volatile bool filter_cpu;		/* cpus[] says which */
const volatile bool noints;
const volatile bool onlyints;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} cpus SEC(".maps");

/*
 * Only kernel functions run in interrupts. User functions and system
 * calls pass kernel = false, which also keeps the per-CPU symbols out of
 * their programs: kernels without KALLSYMS_ALL cannot resolve them.
 */
static __always_inline enum kfit_ctx fc_context(bool kernel)
{
	int pc;

	if (!kernel)
		return KFIT_CTX_TASK;
	pc = kfit_preempt_count();
	if (pc & KFIT_NMI_MASK)
		return KFIT_CTX_NMI;
	if (pc & KFIT_HARDIRQ_MASK)
		return KFIT_CTX_HARDIRQ;
	if (pc & KFIT_SOFTIRQ_OFFSET)
		return KFIT_CTX_SOFTIRQ;
	return KFIT_CTX_TASK;
}

/* See fcall.h: a task's tid; (context, CPU) for interrupts and idle tasks */
static __always_inline __u64 fc_stack_key(enum kfit_ctx ctx, __u64 pid_tgid)
{
	__u32 tid = pid_tgid;

	if (ctx == KFIT_CTX_TASK && tid)
		return tid;
	return fc_cpu_key(ctx == KFIT_CTX_TASK ? FC_KEY_IDLE : ctx,
			  bpf_get_smp_processor_id());
}

static __always_inline bool fc_comm_matches(void)
{
	return kfit_comm_is(comm);
}

/* Any filter on tasks (rodata: the verifier drops what is off) */
static __always_inline bool fc_task_filters(void)
{
	return filter_tgid || filter_tid || filter_comm || filter_cgroup ||
	       follow;
}

/* Whether the current task (in an interrupt: the one struck) is chosen */
static __always_inline bool fc_task_wanted(__u64 pid_tgid)
{
	if ((pid_tgid >> 32) == self_tgid)
		return false;
	if (filter_tgid && (pid_tgid >> 32) != filter_tgid)
		return false;
	if (!kfit_followed(pid_tgid >> 32))
		return false;
	if (filter_tid && (__u32)pid_tgid != filter_tid)
		return false;
	if (filter_comm && !fc_comm_matches())
		return false;
	if (filter_cgroup && bpf_get_current_cgroup_id() != filter_cgroup)
		return false;
	return true;
}

static __always_inline bool fc_cpu_wanted(void)
{
	__u32 cpu;
	__u8 *ok;

	if (!filter_cpu)
		return true;
	cpu = bpf_get_smp_processor_id();
	ok = bpf_map_lookup_elem(&cpus, &cpu);
	return ok && *ok;
}

/* The filters that hold for a whole thread or context, checked at entry */
static __always_inline bool fc_wanted(enum kfit_ctx ctx, __u64 pid_tgid)
{
	if (noints && ctx != KFIT_CTX_TASK)
		return false;
	if (onlyints && ctx == KFIT_CTX_TASK)
		return false;
	/*
	 * In an interrupt, current is whoever was interrupted: the work is
	 * not that task's, so task filters leave interrupts out.
	 */
	if (ctx != KFIT_CTX_TASK && fc_task_filters())
		return false;
	if (ctx == KFIT_CTX_TASK && !fc_task_wanted(pid_tgid))
		return false;
	return fc_cpu_wanted();
}

/* Bounds-checked frame access the verifier can follow */
static __always_inline struct fc_frame *fc_frame_at(struct fc_stack *st, __u32 i)
{
	asm volatile("" : "+r"(i));
	if (i >= FC_MAX_DEPTH)
		return NULL;
	return &st->f[i];
}

/*
 * A new innermost frame for the caller to fill (its ts last, so that the
 * tool's own work is not timed), or NULL when FC_MAX_DEPTH are open: the
 * call is then counted in overflow, so that its exit is known as its own
 * and pops no outer frame of a recursion.
 */
static __always_inline struct fc_frame *fc_push(struct fc_stack *st)
{
	__u32 d = st->depth;
	struct fc_frame *f = fc_frame_at(st, d);

	if (!f) {
		st->overflow++;
		return NULL;
	}
	st->depth = d + 1;
	return f;
}

/* The current context's stack in stacks (the tool's map of them), or NULL */
static __always_inline void *fc_stack_of(void *stacks, enum kfit_ctx ctx, __u64 pid_tgid)
{
	__u64 key = fc_stack_key(ctx, pid_tgid);

	return bpf_map_lookup_elem(stacks, &key);
}

#define FC_NONE	(~0U)	/* no open frame of that id: an exit without its entry */
#define FC_DEEP	(~1U)	/* the exit of a call beyond FC_MAX_DEPTH: not kept */

/*
 * The frame an exit of id returns from: the innermost open one with this
 * id (frames above it lost their exits: longjmp, exceptions, probes
 * attached late), with its index in *idx; or NULL, *idx saying why
 * (FC_NONE, FC_DEEP). The caller pops it (depth = *idx).
 */
static __always_inline struct fc_frame *fc_find(struct fc_stack *st, __u32 id,
						__u32 *idx)
{
	struct fc_frame *f;
	__u32 d = st->depth, i;

	if (st->overflow) {
		st->overflow--;
		*idx = FC_DEEP;
		return NULL;
	}
	*idx = FC_NONE;
	for (i = 0; i < FC_MAX_DEPTH; i++) {
		if (i >= d)
			return NULL;
		f = fc_frame_at(st, d - 1 - i);
		if (!f)
			return NULL;
		if (f->id == id) {
			*idx = d - 1 - i;
			return f;
		}
	}
	return NULL;
}

#endif
