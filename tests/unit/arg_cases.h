/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Paths of fields on btf_sample.h's structures, and what each reads: the
 * cases test_btf runs on BTF (btf_sample.bpf.c built by clang) and
 * test_debuginfo on DWARF (the same file built by the host's compiler),
 * both against the offsets the compiler gives with offsetof(). Both
 * walks are argpath.h's; what differs is a type system's answers.
 */
#ifndef KFIT_ARG_CASES_H
#define KFIT_ARG_CASES_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "argpath.h"
#include "btf_sample.h"
#include "testlib.h"
#include "kfit/ret.h"

#define S	KFIT_RET_SIGNED
#define P	KFIT_RET_PTR

#define OUT(f)		offsetof(struct kfit_arg_outer, f)
#define INNER(f)	offsetof(struct kfit_arg_inner, f)
#define LEAF(f)		offsetof(struct kfit_arg_leaf, f)

/* A path of kfit_arg_fn's: its parameter, hops and kind (user: BTF's __user) */
struct arg_case {
	const char *path;
	int index, kind, nhops;
	unsigned int off[4];
	bool is_str, inline_str, user, is_bool;
};

static const struct arg_case arg_cases[] = {
	/* parameters themselves */
	{ "o", 0, 8 | P, 0, { 0 }, false, false, false, false },
	{ "s", 1, 8 | P, 0, { 0 }, true, false, false, false },
	{ "c", 2, 4, 0, { 0 }, false, false, false, false },
	{ "b", 3, 1, 0, { 0 }, false, false, false, true },
	{ "leaf", 4, 8 | P, 0, { 0 }, false, false, false, false },
	/* '->' from a pointer parameter, then '.' into a nested struct */
	{ "o->in.x", 0, 4 | S, 1, { OUT(in) + INNER(x) }, false, false, false, false },
	{ "o->in.y", 0, 2 | S, 1, { OUT(in) + INNER(y) }, false, false, false, false },
	/* members of an anonymous union, and of a struct in it */
	{ "o->u_long", 0, 8 | S, 1, { OUT(u_long) }, false, false, false, false },
	{ "o->u_a", 0, 4 | S, 1, { OUT(u_a) }, false, false, false, false },
	{ "o->u_b", 0, 4 | S, 1, { OUT(u_b) }, false, false, false, false },
	{ "o->color", 0, 4, 1, { OUT(color) }, false, false, false, false },
	{ "o->on", 0, 1, 1, { OUT(on) }, false, false, false, true },
	/* a pointer read, then a second '->' through it */
	{ "o->in.leaf", 0, 8 | P, 1, { OUT(in) + INNER(leaf) }, false, false, false,
	  false },
	{ "o->in.leaf->count", 0, 4, 2, { OUT(in) + INNER(leaf), LEAF(count) },
	  false, false, false, false },
	{ "o->in.leaf->label", 0, 8 | P, 2, { OUT(in) + INNER(leaf), LEAF(label) },
	  true, false, false, false },
	/* a char array: its address, the last hop reading nothing */
	{ "o->name", 0, 8 | P, 1, { OUT(name) }, true, true, false, false },
	{ "o->in.leaf->tag", 0, 8 | P, 2, { OUT(in) + INNER(leaf), LEAF(tag) },
	  true, true, false, false },
	{ "leaf->tag", 4, 8 | P, 1, { LEAF(tag) }, true, true, false, false },
	/* __user */
	{ "o->ubuf", 0, 8 | P, 1, { OUT(ubuf) }, true, false, true, false },
	{ "o->pcpu", 0, 8 | P, 1, { OUT(pcpu) }, true, false, false, false },
	{ "o->tint", 0, 4, 1, { OUT(tint) }, false, false, false, false },
	/* four hops: the most */
	{ "leaf->next->next->next->pad", 4, 8 | S, 4,
	  { LEAF(next), LEAF(next), LEAF(next), LEAF(pad) }, false, false, false,
	  false },
	{ "o->in.leaf->next->label", 0, 8 | P, 3,
	  { OUT(in) + INNER(leaf), LEAF(next), LEAF(label) }, true, false, false,
	  false },
};

/* A path of kfit_arg_fn's refused, and what the reason says */
struct arg_refusal {
	const char *path;
	int rc;
	const char *says;
};

static const struct arg_refusal arg_refusals[] = {
	{ "nosuch", -ENOENT, "kfit_arg_fn has no parameter 'nosuch'" },
	/* the fields it has named, its anonymous members' in their place */
	{ "o->nosuch", -EINVAL,
	  "struct kfit_arg_outer has no field 'nosuch'; its fields: c, in, u_long, "
	  "u_a, u_b, flag, level, color, on, tint, ubuf, pcpu, name" },
	{ "o->in.nosuch", -EINVAL,
	  "struct kfit_arg_inner has no field 'nosuch'" },
	{ "o->in.leaf->nosuch", -EINVAL,
	  "struct kfit_arg_leaf has no field 'nosuch'; its fields: pad, next, label, "
	  "tag, count" },
	/* a bit field has no byte of its own to read */
	{ "o->flag", -EINVAL, "'flag' is a bit field" },
	{ "o->level", -EINVAL, "'level' is a bit field" },
	/* '.' on a pointer parameter; '->' on a structure */
	{ "o.c", -EINVAL, "reach fields with '->'" },
	{ "o->in->x", -EINVAL, "'->x' follows no pointer" },
	{ "o->in.leaf.pad", -EINVAL, "'.pad' is not in a structure" },
	{ "s->x", -EINVAL, "'->x' is not in a structure" },
	{ "c->x", -EINVAL, "follows no pointer" },
	/* a structure is no value */
	{ "o->in", -EINVAL, "'in' is not a number, pointer or string" },
	/* five hops */
	{ "leaf->next->next->next->next->pad", -EINVAL,
	  "at most 4 reads through pointers" },
	{ "leaf->next->next->next->next->next->pad", -EINVAL,
	  "at most 4 reads through pointers" },
	{ "o->in.leaf->next->next->next->label", -EINVAL,
	  "at most 4 reads" },
};

/* path ("o->in.leaf->label") split at '->' and '.', in buf: the segments' count */
static inline int arg_split(const char *path, char *buf, size_t len, char **seg, bool *arrow,
		    int max)
{
	char *p = buf;
	int n = 0;

	snprintf(buf, len, "%s", path);
	memset(arrow, 0, max * sizeof(*arrow));
	seg[n++] = p;
	while ((p = strpbrk(p, "-.")) && n < max) {
	arrow[n] = *p == '-';
	*p = '\0';
	p += arrow[n] ? 2 : 1;
	seg[n++] = p;
	}
	return n;
}

/* a, what path c resolved to, against c (user: whether __user is known) */
static inline void arg_check(const struct arg_case *c, const struct kfit_argpath *a, bool user)
{
	int j;

	t_int_eq(c->path, a->index, c->index);
	t_int_eq(c->path, a->kind, c->kind);
	t_int_eq(c->path, a->nhops, c->nhops);
	for (j = 0; j < a->nhops && j < 4; j++)
		t_int_eq(c->path, a->off[j], c->off[j]);
	t_int_eq(c->path, a->is_str, c->is_str);
	t_int_eq(c->path, a->inline_str, c->inline_str);
	t_int_eq(c->path, a->user, user && c->user);
	t_int_eq(c->path, a->is_bool, c->is_bool);
}

#endif
