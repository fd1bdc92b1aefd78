/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_UNWIND_H
#define KFIT_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "kfit/rec.h"
#include "syms.h"

/*
 * User stacks unwound from a copy of their top, as perf's --call-graph
 * dwarf does: the registers where the thread was stopped, the bytes from
 * its stack pointer up, and each mapped file's call-frame information
 * (uwtable.h, built at a file's first frame and kept). Code no table
 * covers (JIT code, a file without .eh_frame) is left through rbp, as a
 * frame-pointer walk would, while rbp points into the copy.
 *
 * Every stack ends for a reason (kfit_ustop), counted: only
 * KFIT_USTOP_END is a stack unwound whole.
 */

/* Why a stack ends: enum kfit_ustop (kfit/rec.h), named by kfit_ustop_name (ustop.h) */

struct kfit_ustack {
	__u32 pid;
	__u64 ip, sp, bp;	/* the user registers */
	const __u8 *stack;	/* a copy of [sp, sp + len) */
	size_t len;
};

struct kfit_unwind_stats {
	__u64 stacks;
	__u64 frames, fp_frames;	/* frames found; of them, through rbp */
	__u64 files, files_noinfo;	/* files with tables; without call-frame information */
	__u64 rows, table_bytes;	/* the tables' rows and memory */
};

struct kfit_unwind;

/* An unwinder using s for the processes' maps (s outlives it); NULL: ENOMEM */
struct kfit_unwind *kfit_unwind_new(struct kfit_syms *s);
void kfit_unwind_free(struct kfit_unwind *u);

/*
 * in's frames into ips, innermost first (ips[0] = in->ip), at most max:
 * their number, with *why set
 */
int kfit_unwind(struct kfit_unwind *u, const struct kfit_ustack *in, __u64 *ips, int max,
		enum kfit_ustop *why);

const struct kfit_unwind_stats *kfit_unwind_stats(const struct kfit_unwind *u);

#endif
