/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record stream of callgraph: what bpf/callgraph.bpf.c writes into its
 * ring buffer, what src/lib/tree/calltree.c decodes into trees, and (issue 9)
 * the payload of a trace file's chunks. Records are 8-byte aligned and
 * carry their own size, so a reader skips types it does not know.
 *
 * A call is one record, written when it returns (or is found abandoned),
 * with its entry time and its depth on its stack: the decoder rebuilds the
 * tree in post-order from returns alone, which halves the traffic of
 * entry/exit pairs and lets --min drop short calls in the kernel.
 *
 * Version 2 added a call's return value (ret, KFIT_CF_RET): a call record
 * of version 1 ends before it (KFIT_REC_CALL_V1_SIZE) and has none. A call
 * may then carry its arguments (KFIT_CF_ARGS: a kfit_rec_args after ret),
 * which readers that do not know them skip, as the record's size allows.
 */
#ifndef KFIT_REC_H
#define KFIT_REC_H

#include <linux/types.h>
#include "kfit/args.h"

#define KFIT_REC_VERSION	2

enum kfit_rec_type {
	KFIT_REC_CALL = 1,	/* struct kfit_rec_call */
	KFIT_REC_SWITCH,	/* struct kfit_rec_switch */
	KFIT_REC_IRQ,		/* struct kfit_rec_irq */
	KFIT_REC_EVENT,		/* struct kfit_rec_event */
	KFIT_REC_FORK,		/* struct kfit_rec_task */
	KFIT_REC_EXEC,		/* struct kfit_rec_task */
	KFIT_REC_EXIT,		/* struct kfit_rec_task */
	KFIT_REC_SAMPLE,	/* struct kfit_rec_sample */
	KFIT_REC_LOST,		/* struct kfit_rec_lost: written by user space */
	KFIT_REC_NTYPES
};

/* Where code ran: a task, or an interrupt on a CPU (stacks of their own) */
enum kfit_ctx {
	KFIT_CTX_TASK,
	KFIT_CTX_SOFTIRQ,
	KFIT_CTX_HARDIRQ,
	KFIT_CTX_NMI,
	KFIT_NCTX
};

/* kfit_rec.flags */
#define KFIT_RF_INCOMPLETE	0x01	/* a call that never returned: dur ends where it was given up */
#define KFIT_RF_EXITED		0x02	/* ... because its task exited */
#define KFIT_RF_EXEC		0x04	/* ... because its task called exec (user frames) */
#define KFIT_RF_JUMPED		0x08	/* ... a later call was made from below it (longjmp) */
#define KFIT_RF_END		0x10	/* ... still open when the capture ended */
#define KFIT_RF_FORKED		0x20	/* a frame the task inherited from its parent at fork */
#define KFIT_RF_LOST		0x40	/* decoder: stands for calls whose records were lost */

struct kfit_rec {
	__u8 type;		/* enum kfit_rec_type */
	__u8 ctx;		/* enum kfit_ctx */
	__u8 flags;		/* KFIT_RF_* */
	__u8 pad;
	__u16 size;		/* of the whole record, bytes, a multiple of 8 */
	__u16 cpu;
	__u32 pid;		/* process (tgid); in an interrupt, the interrupted one */
	__u32 tid;		/* thread; in an interrupt, the interrupted one */
	__u64 ts;		/* CLOCK_MONOTONIC ns (bpf_ktime_get_ns); a call: its entry */
};

/* kfit_rec_call.cflags */
#define KFIT_CF_RET	0x01	/* ret holds the return value */
#define KFIT_CF_ARGS	0x02	/* a struct kfit_rec_args follows ret */

struct kfit_rec_call {
	struct kfit_rec h;	/* h.cpu: where it returned */
	__u64 dur;		/* entry to return (or to when it was given up) */
	__u64 off_blocked;	/* off CPU inside the call, asleep */
	__u64 off_preempt;	/* off CPU inside the call, runnable (preempted) */
	__u32 id;		/* the function: an index into the function table */
	__u16 depth;		/* 0: the outermost recorded call of its stack */
	__u16 cflags;		/* KFIT_CF_*; version 1's pad, always 0 */
	__u32 dropped;		/* calls under it left out (--min, -D), time kept in local */
	__u32 pad2;
	/* version 1's records end here */
	__u64 ret;		/* the return register as it was: the function's kind */
				/* (kfit/ret.h, the function table's) reads it */
	/* KFIT_CF_ARGS: struct kfit_rec_args, within h.size */
};

#define KFIT_REC_CALL_V1_SIZE	__builtin_offsetof(struct kfit_rec_call, ret)

/* Whether call r (of h.size bytes) has a return value, in *reg: one given up has none */
static inline int kfit_rec_call_ret(const struct kfit_rec_call *r, __u64 *reg)
{
	if (r->h.size < sizeof(*r) || !(r->cflags & KFIT_CF_RET) ||
	    (r->h.flags & KFIT_RF_INCOMPLETE))
		return 0;
	*reg = r->ret;
	return 1;
}

/*
 * A call's arguments (kfit/args.h's values), after its record's ret: how
 * each prints is the function's (a trace file's ARGS block). Its strings
 * are the first nstr string slots; the record ends after them.
 */
struct kfit_rec_args {
	__u8 ok;		/* bit i: v[i] was read */
	__u8 nstr;		/* strings that follow v */
	__u8 pad[6];
	__u64 v[KFIT_ARGS_MAX];
	char s[KFIT_ARG_STRS][KFIT_ARG_STRLEN];
};

#define KFIT_REC_ARGS_SIZE(nstr) \
	(__builtin_offsetof(struct kfit_rec_args, s) + (nstr) * KFIT_ARG_STRLEN)

/* Call r's arguments, or NULL: none, or a record too short for them */
static inline const struct kfit_rec_args *kfit_rec_call_args(const struct kfit_rec_call *r)
{
	const struct kfit_rec_args *a = (const void *)(r + 1);

	if (!(r->cflags & KFIT_CF_ARGS) ||
	    r->h.size < sizeof(*r) + KFIT_REC_ARGS_SIZE(0) ||
	    a->nstr > KFIT_ARG_STRS || r->h.size < sizeof(*r) + KFIT_REC_ARGS_SIZE(a->nstr))
		return NULL;
	return a;
}

/*
 * A traced task was off CPU from ts for dur ns. Written when it runs
 * again, only while it has open recorded calls. state: 0 = preempted
 * (still runnable), else the task state it slept in (TASK_INTERRUPTIBLE 1,
 * TASK_UNINTERRUPTIBLE 2, ...).
 */
struct kfit_rec_switch {
	struct kfit_rec h;
	__u64 dur;
	__u32 state;
	__u32 depth;		/* open calls of the task when it left */
};

/*
 * An interrupt (h.ctx SOFTIRQ or HARDIRQ) that ran traced calls, or struck
 * a traced task inside a recorded call. vec: the softirq vector, or the
 * irq number. Written at its end; h.ts is its start.
 */
struct kfit_rec_irq {
	struct kfit_rec h;
	__u64 dur;
	__u32 vec;
	__u32 ncalls;		/* traced calls recorded inside it */
};

#define KFIT_EVENT_DATA	64	/* bytes of the raw tracepoint record kept */

/* A tracepoint chosen with -e hit; data: the start of its raw record */
struct kfit_rec_event {
	struct kfit_rec h;
	__u32 id;		/* an index into the event table */
	__u32 len;		/* bytes of data that are valid */
	__u8 data[KFIT_EVENT_DATA];
};

/*
 * FORK: h.pid/h.tid the parent, child_pid/child_tid the new task.
 * EXEC: h.pid/h.tid the task, comm its new name. EXIT: the task ended.
 */
struct kfit_rec_task {
	struct kfit_rec h;
	__u32 child_pid;
	__u32 child_tid;
	char comm[16];
};

#define KFIT_STACK_MAX	64	/* frames kept per stack of a sample */

/* Why an unwound user stack ends: kfit_rec_sample.ustop - 1 */
enum kfit_ustop {
	KFIT_USTOP_END,		/* reached the outermost frame (_start, a thread's start) */
	KFIT_USTOP_COPY,	/* needed the stack beyond what was copied */
	KFIT_USTOP_NOINFO,	/* code without call-frame information, and no frame pointer */
	KFIT_USTOP_NOMAP,	/* an address in no mapping */
	KFIT_USTOP_RULE,	/* an unwinding rule of a shape not handled */
	KFIT_USTOP_BAD,		/* the stack made no sense (a frame below the last) */
	KFIT_USTOP_DEPTH,	/* more frames than kept */
	KFIT_USTOP_NOREGS,	/* no user registers: a kernel thread */
	KFIT_USTOP_FAULT,	/* the stack could not be read at all */
	KFIT_NUSTOPS
};

/* A perf-event sample: nkernel kernel addresses (leaf first), then nuser user ones */
struct kfit_rec_sample {
	struct kfit_rec h;
	__u16 nkernel;
	__u16 nuser;
	__u32 ustop;		/* why the user stack ends: 0 not said (frame
				   pointers), else 1 + enum kfit_ustop (unwound) */
	__u64 ip[2 * KFIT_STACK_MAX];	/* only nkernel + nuser are written */
};

/* Records of CPU h.cpu that could not be written (the ring buffer was full) */
struct kfit_rec_lost {
	struct kfit_rec h;
	__u64 count;
};

#endif
