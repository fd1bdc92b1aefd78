// SPDX-License-Identifier: GPL-2.0
/* Questions to BTF: does the kernel have this function, this field? */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "argpath.h"
#include "btf.h"
#include "kfit/args.h"
#include "kfit/ret.h"

/* Anonymous structs inside anonymous unions inside...: bounded anyway */
#define MAX_NESTING 8

struct btf *kfit_btf_vmlinux(void)
{
	static struct btf *vmlinux;

	/* Kept for the life of the process; a failure is tried again */
	if (!vmlinux)
		vmlinux = btf__load_vmlinux_btf();
	return vmlinux;
}

/* Function name's prototype in *proto: 0, or -errno */
static int func_proto(const struct btf *btf, const char *name, const struct btf_type **proto)
{
	const struct btf_type *t;
	int id;

	if (!btf || !name)
		return -EINVAL;
	id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	if (id < 0)
		return id;
	t = btf__type_by_id(btf, id);
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	if (!t || !btf_is_func_proto(t))
		return -EINVAL;
	*proto = t;
	return 0;
}

int kfit_btf_func_nargs(const struct btf *btf, const char *name)
{
	const struct btf_type *t;
	const struct btf_param *p;
	int n, err = func_proto(btf, name, &t);

	if (err)
		return err;
	n = btf_vlen(t);
	/* A variadic function ends with an unnamed void parameter */
	p = btf_params(t);
	if (n && !p[n - 1].type && !p[n - 1].name_off)
		n--;
	return n;
}

bool kfit_btf_has_func(const struct btf *btf, const char *name)
{
	return kfit_btf_func_nargs(btf, name) >= 0;
}

/* Through const, volatile and typedefs to the type itself */
static const struct btf_type *skip_mods(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	return t;
}

/*
 * Member field of composite t (anonymous members searched too): its
 * offset in bits, and whether it is a bit field
 */
static const struct btf_member *find_member(const struct btf *btf, const struct btf_type *t,
					    const char *field, __u32 *bits, bool *bitfield,
					    int depth)
{
	const struct btf_member *m = btf_members(t), *in;
	const struct btf_type *mt;
	const char *name;
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++) {
		name = btf__name_by_offset(btf, m->name_off);
		if (name && *name) {
			if (strcmp(name, field))
				continue;
			*bits = btf_member_bit_offset(t, i);
			*bitfield = btf_member_bitfield_size(t, i) != 0;
			return m;
		}
		mt = skip_mods(btf, m->type);
		if (depth >= MAX_NESTING || !mt || !btf_is_composite(mt))
			continue;
		in = find_member(btf, mt, field, bits, bitfield, depth + 1);
		if (in) {
			*bits += btf_member_bit_offset(t, i);
			return in;
		}
	}
	return NULL;
}

bool kfit_btf_has_field(const struct btf *btf, const char *sname, const char *field)
{
	const struct btf_type *t;
	bool bitfield;
	__u32 bits;
	int id;

	if (!btf || !sname || !field)
		return false;
	id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	if (id < 0)
		id = btf__find_by_name_kind(btf, sname, BTF_KIND_UNION);
	if (id < 0)
		return false;
	t = btf__type_by_id(btf, id);
	return t && find_member(btf, t, field, &bits, &bitfield, 0);
}

int kfit_btf_module_count(void)
{
	struct dirent *e;
	int n = 0;
	DIR *d;

	d = opendir("/sys/kernel/btf");
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "vmlinux"))
			continue;
		n++;
	}
	closedir(d);
	return n;
}

/* The kind of a return type: an integer's size and sign, a pointer, void */
static int ret_kind(const struct btf *btf, __u32 id)
{
	const struct btf_type *t;

	if (!id)
		return KFIT_RET_VOID;
	t = skip_mods(btf, id);
	if (!t)
		return -EINVAL;
	if (btf_is_ptr(t))
		return 8 | KFIT_RET_PTR | KFIT_RET_SIGNED | KFIT_RET_ERRNO;
	if (btf_is_enum(t) || btf_is_enum64(t))
		return (t->size & KFIT_RET_SIZE) | KFIT_RET_SIGNED;
	if (!btf_is_int(t) || t->size > 8)
		return 0;
	if (btf_int_encoding(t) & BTF_INT_BOOL)
		return t->size;
	if (!(btf_int_encoding(t) & BTF_INT_SIGNED))
		return t->size;
	/* a kernel function's int or long: -errno when it fails */
	return t->size | KFIT_RET_SIGNED | (t->size >= 4 ? KFIT_RET_ERRNO : 0);
}

int kfit_btf_func_ret(const struct btf *btf, const char *name)
{
	const struct btf_type *t;
	int err = func_proto(btf, name, &t);

	return err ? err : ret_kind(btf, t->type);
}


/* Whether id is a pointer whose chain of modifiers has the "user" type tag */
static bool user_ptr(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = skip_mods(btf, id);
	const char *name;

	if (!t || !btf_is_ptr(t))
		return false;
	for (t = btf__type_by_id(btf, t->type); t && (btf_is_mod(t) || btf_is_typedef(t));
	     t = btf__type_by_id(btf, t->type)) {
		name = btf_is_type_tag(t) ? btf__name_by_offset(btf, t->name_off) : NULL;
		if (name && !strcmp(name, "user"))
			return true;
	}
	return false;
}

/* A char, whatever its sign: what a string is made of */
static bool is_char(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = skip_mods(btf, id);

	return t && btf_is_int(t) && t->size == 1 && !(btf_int_encoding(t) & BTF_INT_BOOL);
}

/* How a value of type id reads, into a: -EINVAL when it is no number, pointer, string */
static int value_kind(const struct btf *btf, __u32 id, struct kfit_argpath *a)
{
	const struct btf_type *t = skip_mods(btf, id);

	if (!t)
		return -EINVAL;
	if (btf_is_ptr(t)) {
		a->kind = 8 | KFIT_RET_PTR;
		a->is_str = is_char(btf, t->type);
		a->user = user_ptr(btf, id);
		return 0;
	}
	if (btf_is_array(t) && is_char(btf, btf_array(t)->type)) {
		a->kind = 8 | KFIT_RET_PTR;
		a->is_str = a->inline_str = true;
		return 0;
	}
	if (btf_is_any_enum(t) && t->size <= 8) {
		a->kind = t->size | (btf_kflag(t) ? KFIT_RET_SIGNED : 0);
		a->enum_id = btf__resolve_type((struct btf *)btf, id);
		return 0;
	}
	if (!btf_is_int(t) || t->size > 8)
		return -EINVAL;
	a->is_bool = btf_int_encoding(t) & BTF_INT_BOOL;
	a->kind = t->size | (btf_int_encoding(t) & BTF_INT_SIGNED ? KFIT_RET_SIGNED : 0);
	return 0;
}

int kfit_btf_func_param(const struct btf *btf, const char *func, const char *name)
{
	const struct btf_type *t;
	const struct btf_param *p;
	const char *pn;
	int i, err = func_proto(btf, func, &t);

	if (err)
		return err;
	p = btf_params(t);
	for (i = 0; i < btf_vlen(t); i++) {
		pn = btf__name_by_offset(btf, p[i].name_off);
		if (pn && !strcmp(pn, name))
			return i;
	}
	return -ENOENT;
}

int kfit_btf_func_params(const struct btf *btf, const char *func, char *buf, size_t len)
{
	const struct btf_type *t;
	const struct btf_param *p;
	const char *pn;
	size_t at = 0;
	int i, err = func_proto(btf, func, &t);

	if (err)
		return err;
	buf[0] = '\0';
	p = btf_params(t);
	for (i = 0; i < btf_vlen(t) && at < len; i++) {
		pn = btf__name_by_offset(btf, p[i].name_off);
		if (pn && *pn)
			at += snprintf(buf + at, len - at, "%s%s", at ? ", " : "", pn);
	}
	return 0;
}

/* ---- a path of fields (argpath.h's walk over BTF) ----------------------- */

/* Where the walk is: the current type */
struct walk {
	const struct btf *btf;
	__u32 type;
};

static bool w_deref(void *ctx)
{
	struct walk *w = ctx;
	const struct btf_type *t = skip_mods(w->btf, w->type);

	if (!t || !btf_is_ptr(t))
		return false;
	w->type = t->type;
	return true;
}

/* "struct file", "union (anonymous)": for messages */
static int w_composite(void *ctx, char *buf, size_t len)
{
	struct walk *w = ctx;
	const struct btf_type *t = skip_mods(w->btf, w->type);
	const char *name;
	bool is_union;

	if (!t || (!btf_is_composite(t) && !btf_is_fwd(t)))
		return 0;
	name = btf__name_by_offset(w->btf, t->name_off);
	is_union = btf_is_union(t) || (btf_is_fwd(t) && btf_kflag(t));
	snprintf(buf, len, "%s %s", is_union ? "union" : "struct",
		 name && *name ? name : "(anonymous)");
	return btf_is_fwd(t) ? -1 : 1;
}

static int w_member(void *ctx, const char *field, __u64 *bits, bool *bitfield)
{
	struct walk *w = ctx;
	const struct btf_member *m;
	__u32 b = 0;

	m = find_member(w->btf, skip_mods(w->btf, w->type), field, &b, bitfield, 0);
	if (!m)
		return -ENOENT;
	*bits = b;
	w->type = m->type;
	return 0;
}

/* The names of t's members, those of its anonymous members in their place */
static void list_members(const struct btf *btf, const struct btf_type *t, char *buf,
			 size_t len, int depth)
{
	const struct btf_member *m = btf_members(t);
	const struct btf_type *mt;
	const char *name;
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++) {
		name = btf__name_by_offset(btf, m->name_off);
		if (name && *name) {
			kfit_argpath_list(buf, len, name);
			continue;
		}
		mt = skip_mods(btf, m->type);
		if (depth < MAX_NESTING && mt && btf_is_composite(mt))
			list_members(btf, mt, buf, len, depth + 1);
	}
}

static void w_members(void *ctx, char *buf, size_t len)
{
	struct walk *w = ctx;

	list_members(w->btf, skip_mods(w->btf, w->type), buf, len, 0);
}

static int w_value(void *ctx, struct kfit_argpath *p)
{
	struct walk *w = ctx;

	return value_kind(w->btf, w->type, p);
}

static const struct kfit_argpath_ops btf_ops = {
	.source = "BTF",
	.deref = w_deref,
	.composite = w_composite,
	.member = w_member,
	.members = w_members,
	.value = w_value,
};

int kfit_btf_arg(const struct btf *btf, const char *func, const char *const *seg,
		 const bool *arrow, int nseg, struct kfit_argpath *a, char *err, size_t errlen)
{
	const struct btf_type *proto;
	struct walk w = { .btf = btf };
	int rc = func_proto(btf, func, &proto);

	memset(a, 0, sizeof(*a));
	if (rc) {
		snprintf(err, errlen, "%s has no type information in BTF", func);
		return rc;
	}
	a->index = kfit_btf_func_param(btf, func, seg[0]);
	if (a->index < 0) {
		snprintf(err, errlen, "%s has no parameter '%s'", func, seg[0]);
		return -ENOENT;
	}
	w.type = btf_params(proto)[a->index].type;
	return kfit_argpath_walk(&btf_ops, &w, seg, arrow, nseg, a, err, errlen);
}
