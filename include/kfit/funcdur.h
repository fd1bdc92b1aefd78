/* SPDX-License-Identifier: GPL-2.0 */
/* Types shared by bpf/funcdur.bpf.c and src/funcdur.c */
#ifndef KFIT_FUNCDUR_H
#define KFIT_FUNCDUR_H

#include "kfit/hist.h"

#define FD_MAX_DEPTH	32	/* traced calls nested in one context */
#define FD_MAX_FUNCS	8192

/* Execution contexts: calls in interrupts are kept apart from the task */
enum fd_ctx {
	FD_TASK,
	FD_SOFTIRQ,
	FD_HARDIRQ,
	FD_NMI,
};

struct fd_frame {
	__u32 id;
	__u32 pad;
	__u64 ts;		/* entry time */
	__u64 child_ns;		/* time spent in traced callees */
};

struct fd_stack {
	__u32 depth;
	__u32 pad;
	struct fd_frame f[FD_MAX_DEPTH];
};

/* Per function, per CPU, per half of the double buffer */
struct fd_stat {
	__u64 local_ns;		/* total minus traced callees, summed */
	__u64 filtered;		/* calls left out by --min/--max */
	struct kfit_hist h;
};

/* Time a traced function spent in one traced callee */
struct fd_edge {
	__u32 half;
	__u32 parent;
	__u32 child;
};

struct fd_event {
	__u64 ts;
	__u64 dur;
	__s64 ret;
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__u32 id;
	__u32 ctx;
	char comm[16];
};

/* Counters of what could not be measured, per CPU */
enum fd_counter {
	FD_LOST_EVENTS,		/* ring buffer full */
	FD_DEEP,		/* nesting beyond FD_MAX_DEPTH */
	FD_UNMATCHED,		/* exits without a traced entry */
	FD_NO_STACK,		/* stack map full */
	FD_NCOUNTERS
};

/* Stats key: the map holds two entries per traced function */
static inline __u32 fd_key(__u32 half, __u32 id)
{
	return id * 2 + half;
}

#endif
