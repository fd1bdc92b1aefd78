/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_ARGPATH_H
#define KFIT_ARGPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "kfit/args.h"

/*
 * A path of fields from a parameter, 'req->hdr.len', turned into what the
 * BPF side reads (kfit/args.h): a read through a pointer at each '->'
 * after the first, the offsets of '.' summed into the hop they are in,
 * the last hop reading the value. The walk and its messages are the same
 * whatever describes the types: BTF for kernel functions (src/live/btf.c),
 * DWARF for user functions (debuginfo_params.c), each behind these calls
 * on a current type the walker never sees.
 */

/* Where a path ends and how its value reads */
struct kfit_argpath {
	int index;		/* the parameter */
	unsigned char kind;	/* KFIT_RET_* of the value */
	bool is_str;		/* a char pointer (or char array in memory) */
	bool inline_str;	/* ... a char array: the string is at the address */
	bool is_bool;
	bool user;		/* BTF: the pointer is __user */
	unsigned int enum_id;	/* BTF: an enum's type id, its values' names */
	__u64 enum_die;		/* DWARF: an enum's DIE offset (kfit_dwarf_enum), 0: none */
	int nhops;
	unsigned short off[KFIT_ARG_HOPS];
};

/* What a type system answers about the current type, held in its ctx */
struct kfit_argpath_ops {
	const char *source;	/* "BTF", "DWARF": for messages */
	/* '->': the current type is a pointer, go to what it points to; false if not */
	bool (*deref)(void *ctx);
	/*
	 * Whether the current type, through typedefs and qualifiers, is a
	 * structure or union: 1; 0 not; -1 only declared, its fields unknown.
	 * Its name for messages ("struct file") into name.
	 */
	int (*composite)(void *ctx, char *name, size_t len);
	/*
	 * Its member field, those of anonymous members too: the current type
	 * becomes the member's; *bits its offset, *bitfield whether it is one.
	 * -ENOENT when there is none.
	 */
	int (*member)(void *ctx, const char *field, __u64 *bits, bool *bitfield);
	/* The names its members have (those of anonymous members), ", "-joined */
	void (*members)(void *ctx, char *buf, size_t len);
	/*
	 * How a value of the current type reads, into p: kind, is_str,
	 * inline_str, is_bool (and what the source adds). -EINVAL when it is
	 * no number, pointer or string.
	 */
	int (*value)(void *ctx, struct kfit_argpath *p);
};

/*
 * Walk seg[1..nseg) (reached by '->' where arrow[i], else '.') from the
 * current type ops' ctx holds: seg[0]'s, the parameter's. p->index is the
 * caller's. 0, or -EINVAL with the reason in err.
 */
int kfit_argpath_walk(const struct kfit_argpath_ops *ops, void *ctx,
		      const char *const *seg, const bool *arrow, int nseg,
		      struct kfit_argpath *p, char *err, size_t errlen);

/* name appended to the ", "-list in buf (len bytes), "..." when full */
void kfit_argpath_list(char *buf, size_t len, const char *name);

#endif
