/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by bpf/callgraph.bpf.c and src/cmd/callgraph/: the stacks the
 * loader walks at the end (for the calls still open) and the counters.
 * What the programs write is include/kfit/rec.h.
 */
#ifndef KFIT_CALLGRAPH_H
#define KFIT_CALLGRAPH_H

#include "kfit/fcall.h"

#define CG_MAX_STACKS	32768	/* threads and interrupt stacks with open calls */

/* callgraph's half of a frame: fcall.h's fc_frame is the other */
struct cg_frame {
	__u64 blocked;		/* the stack's off-CPU times at entry */
	__u64 preempt;
	__u32 dropped;		/* callees left out (--min, --max, -D) */
	__u16 rdepth;		/* depth as recorded: 0 at --root's frame */
	__u16 args;		/* 1 + its arguments' place in the stack's slot, 0: none */
};

struct cg_stack {
	struct fc_stack s;
	struct cg_frame x[FC_MAX_DEPTH];
	__u64 blocked;		/* off CPU asleep, ns, summed (task stacks) */
	__u64 preempt;		/* off CPU runnable, ns, summed */
	__u64 off_ts;		/* when it left the CPU with open calls, 0: on CPU */
	__u32 off_state;	/* its state then: 0 preempted */
	__u32 off_depth;	/* recorded calls open then */
	__u32 pid, tid;		/* task stacks: the owner */
	__u32 root;		/* index + 1 of the open --root frame, 0: none */
	__u32 nargs;		/* places of its slot that open calls' arguments take */
};

/* ev_size's values: the raw record's size, and this bit for system calls' */
#define CG_EV_SYSCALL	(1U << 31)

/*
 * Records staged per CPU and context (the stage map, KFIT_NCTX values a
 * CPU): written into a ring as one sample when the buffer is full, at a
 * context switch, before a record of the same context written directly,
 * or once the oldest has waited CG_STAGE_AGE_NS; what is staged at the
 * end is read from the map. A sample of several records back to back is
 * a batch: the reader splits it by the records' sizes (kfit_rec_split).
 * Only -e events are staged: a stack's records may come late, never out
 * of their order in it (a task's are flushed before it runs elsewhere).
 */
#define CG_STAGE_BYTES	4096
#define CG_STAGE_AGE_NS	(50 * 1000 * 1000ULL)

struct cg_stage {
	__u32 len;		/* bytes staged in buf */
	__u32 nrecs;		/* records staged */
	__u32 busy;		/* a program is at it: one nested writes directly */
	__u32 pad;
	__u64 first_ts;		/* when the first staged record was staged */
	__u8 buf[CG_STAGE_BYTES];
};

/*
 * Sampled mode unwinding user stacks (--call-graph dwarf): a sample's
 * kernel frames, the user registers and the top of the user stack, which
 * the reader unwinds into a kfit_rec_sample (what is recorded and shown).
 * Never in a trace file. A record's size is a __u16: the copy's bound.
 */
#define CG_REC_USTACK	0x80		/* kfit_rec.type */
#define CG_USTACK_MAX	(60 * 1024)	/* bytes of user stack copied, at most */
#define CG_US_NOREGS	0x1		/* no user registers: a kernel thread */
#define CG_US_FAULT	0x2		/* the stack could not be read at all */

struct cg_ustack {
	struct kfit_rec h;
	__u16 nkernel;
	__u16 flags;		/* CG_US_* */
	__u32 len;		/* bytes of stack copied, from sp */
	__u64 ip, sp, bp;	/* user registers */
	/* nkernel kernel frames, then len bytes of the stack */
	__u64 data[KFIT_STACK_MAX + CG_USTACK_MAX / 8];
};

/* Per-CPU counters (the counters map) */
enum cg_counter {
	CG_LOST,		/* records the ring buffer had no room for */
	CG_DEEP,		/* calls nested beyond FC_MAX_DEPTH, not kept */
	CG_UNMATCHED,		/* returns whose entry was not seen */
	CG_NO_STACK,		/* calls not kept: the stacks map was full */
	CG_NO_ARGS,		/* calls whose arguments were not kept: more than
				   KFIT_ARG_DEPTH open with arguments, or their
				   slot taken by another stack */
	CG_STR_FAULT,		/* calls with a string argument that could not be read */
	CG_NCOUNTERS
};

#endif
