// SPDX-License-Identifier: GPL-2.0
/*
 * A path of fields through pointers, 'file->f_path.dentry', as hops of
 * kfit/args.h: the walk BTF and DWARF share (argpath.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "argpath.h"

#define MAX_OFF		0xffff	/* a hop's offset is 16 bits (kfit_arg_spec.off) */
#define NAMES_LEN	400	/* the members named in a message */

void kfit_argpath_list(char *buf, size_t len, const char *name)
{
	size_t at = strlen(buf), need = strlen(name) + (at ? 2 : 0);

	if (at >= 3 && !strcmp(buf + at - 3, "..."))
		return;
	/* room for ", ..." after it, should the next not fit */
	if (at + need + 5 < len) {
		snprintf(buf + at, len - at, "%s%s", at ? ", " : "", name);
		return;
	}
	if (at + 5 < len)
		snprintf(buf + at, len - at, "%s...", at ? ", " : "");
}

static const char *sep(bool arrow)
{
	return arrow ? "->" : ".";
}

/* One '->' or '.' step from the current type: the member's offset in bytes */
static int step(const struct kfit_argpath_ops *ops, void *ctx, const char *field,
		bool arrow, __u64 *off, char *err, size_t errlen)
{
	char name[160] = "", names[NAMES_LEN] = "";
	bool bitfield = false;
	__u64 bits = 0;
	int c;

	if (arrow && !ops->deref(ctx)) {
		snprintf(err, errlen, "'->%s' follows no pointer to a structure", field);
		return -EINVAL;
	}
	c = ops->composite(ctx, name, sizeof(name));
	if (c < 0) {
		snprintf(err, errlen, "'%s%s': %s is only declared in %s, its fields unknown",
			 sep(arrow), field, name, ops->source);
		return -EINVAL;
	}
	if (!c) {
		snprintf(err, errlen, "'%s%s' is not in a structure", sep(arrow), field);
		return -EINVAL;
	}
	if (ops->member(ctx, field, &bits, &bitfield)) {
		ops->members(ctx, names, sizeof(names));
		snprintf(err, errlen, "%s has no field '%s'; its fields: %s", name, field,
			 names[0] ? names : "none");
		return -EINVAL;
	}
	if (bitfield || bits % 8) {
		snprintf(err, errlen, "'%s' is a bit field of %s: only whole bytes are read",
			 field, name);
		return -EINVAL;
	}
	*off = bits / 8;
	return 0;
}

/* The next hop reads at off: 0, or -1 when there are too many */
static int push(struct kfit_argpath *p, __u64 off)
{
	if (p->nhops == KFIT_ARG_HOPS)
		return -1;
	p->off[p->nhops++] = off;
	return 0;
}

int kfit_argpath_walk(const struct kfit_argpath_ops *ops, void *ctx,
		      const char *const *seg, const bool *arrow, int nseg,
		      struct kfit_argpath *p, char *err, size_t errlen)
{
	__u64 off = 0, pending = 0;
	bool in_mem = false;
	int i;

	p->nhops = 0;
	for (i = 1; i < nseg; i++) {
		/* a pointer in memory: read it first */
		if (arrow[i] && in_mem && push(p, pending))
			goto deep;
		if (!arrow[i] && !in_mem) {
			snprintf(err, errlen, "'.%s': the parameter is not a structure in "
				 "memory: reach fields with '->'", seg[i]);
			return -EINVAL;
		}
		if (step(ops, ctx, seg[i], arrow[i], &off, err, errlen))
			return -EINVAL;
		pending = arrow[i] ? off : pending + off;
		in_mem = true;
		if (pending > MAX_OFF) {
			snprintf(err, errlen, "'%s' is too far into its structure (%llu bytes)",
				 seg[i], (unsigned long long)pending);
			return -EINVAL;
		}
	}
	if (ops->value(ctx, p)) {
		snprintf(err, errlen, "'%s' is not a number, pointer or string: name a "
			 "field of it", seg[nseg - 1]);
		return -EINVAL;
	}
	if (in_mem && push(p, pending))
		goto deep;
	if (p->inline_str && !in_mem) {
		snprintf(err, errlen, "'%s': an array parameter", seg[0]);
		return -EINVAL;
	}
	return 0;
deep:
	snprintf(err, errlen, "at most %d reads through pointers", KFIT_ARG_HOPS);
	return -EINVAL;
}
