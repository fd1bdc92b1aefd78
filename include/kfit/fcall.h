/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call stacks of the function tools (funcdur, callgraph): one per thread,
 * and one per CPU and interrupt context (bpf/fcall.bpf.h keeps them).
 * Shared by the BPF side and the loaders.
 */
#ifndef KFIT_FCALL_H
#define KFIT_FCALL_H

#include <linux/types.h>
#include "kfit/rec.h"	/* enum kfit_ctx: where code ran */

#define FC_MAX_DEPTH	32	/* traced calls nested in one stack */

/*
 * The stack key of a task is its tid; interrupts do not migrate, so
 * theirs is (context, CPU); so is that of the idle tasks, which all
 * have tid 0 (FC_KEY_IDLE as their context).
 */
#define FC_KEY_IDLE	0xff
#define FC_KEY_TID(k)	((__u32)(k))

static inline __u64 fc_cpu_key(__u32 ctx, __u32 cpu)
{
	return ((__u64)ctx << 32) | cpu;
}

static inline int fc_key_ctx(__u64 key)
{
	__u32 hi = key >> 32;

	return hi == FC_KEY_IDLE ? KFIT_CTX_TASK : (int)hi;
}

/* fc_frame.flags (callgraph's; funcdur leaves them 0) */
#define FC_F_USER	0x01	/* a user function (uprobe): sp is set */
#define FC_F_REC	0x02	/* within --root and -D: written if it passes --min/--max */
#define FC_F_FORKED	0x04	/* inherited from the parent at fork */

struct fc_frame {
	__u32 id;		/* the function: its cookie */
	__u32 flags;		/* FC_F_* */
	__u64 ts;		/* entry time */
	union {
		__u64 child_ns;	/* funcdur: time spent in traced callees */
		__u64 sp;	/* callgraph: user stack pointer at entry */
	};
};

struct fc_stack {
	__u32 depth;		/* open frames in f[] */
	__u32 overflow;		/* open calls beyond FC_MAX_DEPTH, not kept */
	__u32 slot;		/* funcdur: where its calls' arguments go (calltime.h) */
	__u32 pad;
	struct fc_frame f[FC_MAX_DEPTH];
};

#endif
