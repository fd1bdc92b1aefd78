// SPDX-License-Identifier: GPL-2.0
/*
 * Arguments of traced calls: 'func(a, b->c)' resolved into what the BPF
 * side reads (kfit/args.h), and the values it read, shown by type.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "args.h"
#include "argpath.h"
#include "btf.h"
#include "debuginfo.h"
#include "diag.h"
#include "tpformat.h"
#include "kfit/ret.h"

#define PARAM_REGS	KFIT_PARAM_REGS
#define TP_WORDS	7	/* the words of a system call's record after its header */

struct resolved {
	struct kfit_arg_spec spec;
	bool is_str;
	bool is_bool;
	unsigned int enum_id;
	__u64 enum_die;
};

/* ':type' after the item: read the value so */
static void apply_as(const struct kfit_argexpr *e, struct resolved *r)
{
	unsigned char kind;
	bool str;

	if (!e->as || kfit_argtype_kind(e->as, &kind, &str))
		return;
	r->spec.kind = kind;
	r->is_str = str;
	r->is_bool = !strcmp(e->as, "bool");
	r->enum_id = 0;
	r->enum_die = 0;
}

/* A path BTF or DWARF resolved, into what the BPF side reads */
static int from_path(const struct kfit_targets_func *fn, const struct kfit_argexpr *e,
		     const struct kfit_argpath *a, bool user, struct resolved *r,
		     char *err, size_t errlen)
{
	int i;

	if (a->index >= PARAM_REGS) {
		snprintf(err, errlen, "'%s' is parameter %d of %s: only the first %d are read",
			 e->seg[0], a->index + 1, fn->name, PARAM_REGS);
		return -EINVAL;
	}
	r->spec.src = KFIT_ARG_REG;
	r->spec.index = a->index;
	r->spec.kind = a->kind;
	r->spec.nhops = a->nhops;
	for (i = 0; i < a->nhops; i++)
		r->spec.off[i] = a->off[i];
	r->spec.flags = (user ? KFIT_ARGF_USER : 0) | (a->inline_str ? KFIT_ARGF_INLINE : 0);
	r->is_str = a->is_str;
	r->is_bool = a->is_bool;
	r->enum_id = a->enum_id;
	r->enum_die = a->enum_die;
	return 0;
}

static int from_btf(const struct kfit_targets_func *fn, const struct kfit_argexpr *e,
		    struct resolved *r, char *err, size_t errlen)
{
	struct kfit_argpath a;
	int rc;

	rc = kfit_btf_arg(kfit_btf_vmlinux(), fn->name, (const char *const *)e->seg,
			  e->arrow, e->nseg, &a, err, errlen);
	return rc ? rc : from_path(fn, e, &a, a.user, r, err, errlen);
}

static int from_tracepoint(const struct kfit_targets_func *fn, const struct kfit_argexpr *e,
			   struct resolved *r, char *err, size_t errlen)
{
	struct kfit_tpfield *f;
	char tp[256], *text, names[512] = "";
	size_t at = 0;
	int n, i, rc = -ENOENT;

	snprintf(tp, sizeof(tp), "syscalls/sys_enter_%s", fn->path);
	n = kfit_tpformat_read(tp, &f, &text);
	if (n < 0) {
		snprintf(err, errlen, "cannot read the format of %s: %s", tp, strerror(-n));
		return n;
	}
	for (i = 0; i < n; i++) {
		if (!strcmp(f[i].name, "__syscall_nr"))
			continue;
		if (at < sizeof(names))
			at += snprintf(names + at, sizeof(names) - at, "%s%s", at ? ", " : "",
				       f[i].name);
		if (strcmp(f[i].name, e->seg[0]) || f[i].size != 8 || f[i].is_array ||
		    f[i].offset % 8 || f[i].offset < 8 || f[i].offset >= 8 + 8 * TP_WORDS)
			continue;
		r->spec.src = KFIT_ARG_TP;
		r->spec.index = f[i].offset / 8 - 1;
		r->spec.flags = KFIT_ARGF_USER;
		r->spec.kind = kfit_tpformat_kind(&f[i]);
		r->is_str = strstr(f[i].type, "char *") && !strstr(f[i].type, "*const *");
		rc = 0;
	}
	if (rc)
		snprintf(err, errlen, "%s has no parameter '%s'; its parameters: %s",
			 fn->name, e->seg[0], names);
	else if (e->nseg > 1) {
		snprintf(err, errlen, "'%s': a system call's parameters have no fields to "
			 "follow (trace the kernel function that takes it)", e->text);
		rc = -EINVAL;
	}
	free(f);
	free(text);
	return rc;
}

/* The DWARF of the last binary asked about: a glob's functions share it */
static struct kfit_dwarf *dwarf_of(const char *path, int *err)
{
	static struct kfit_dwarf *d;
	static char *last;
	static int last_err;

	if (last && !strcmp(last, path)) {
		*err = last_err;
		return d;
	}
	kfit_dwarf_close(d);
	d = NULL;
	free(last);
	last = strdup(path);
	last_err = kfit_dwarf_open(path, &d);
	*err = last_err;
	return d;
}

/* A user function's parameter by name, fields through pointers, from its DWARF */
static int from_dwarf(const struct kfit_targets_func *fn, const struct kfit_argexpr *e,
		      struct resolved *r, char *err, size_t errlen)
{
	struct kfit_argpath a;
	struct kfit_dwarf *d;
	int rc;

	d = dwarf_of(fn->path, &rc);
	rc = d ? kfit_dwarf_arg(d, fn->name, (const char *const *)e->seg, e->arrow, e->nseg,
				&a, err, errlen) : -ENODATA;
	if (rc == -ENODATA) {
		snprintf(err, errlen, "%s: no DWARF for its parameters in %s or a debug file; "
			 "give them in order with types: '%s(u64 size)' (types: %s)",
			 fn->name, fn->path, fn->name, kfit_argtype_words());
		return -EINVAL;
	}
	/* user memory, all of it */
	return rc ? rc : from_path(fn, e, &a, true, r, err, errlen);
}

static int from_types(const struct kfit_targets_func *fn, const struct kfit_argexpr *e,
		      int pos, struct resolved *r, char *err, size_t errlen)
{
	if (!e->type)
		return from_dwarf(fn, e, r, err, errlen);
	if (pos >= PARAM_REGS) {
		snprintf(err, errlen, "only the first %d parameters are read", PARAM_REGS);
		return -EINVAL;
	}
	kfit_argtype_kind(e->type, &r->spec.kind, &r->is_str);
	r->is_bool = !strcmp(e->type, "bool");
	r->spec.src = KFIT_ARG_REG;
	r->spec.index = pos;
	r->spec.flags = KFIT_ARGF_USER;
	return 0;
}

static int resolve_one(const struct kfit_targets_func *fn, const struct kfit_argexpr *e,
		       int pos, struct resolved *r, char *err, size_t errlen)
{
	int rc;

	memset(r, 0, sizeof(*r));
	if (fn->kind == KFIT_TARGETS_KERNEL)
		rc = from_btf(fn, e, r, err, errlen);
	else if (fn->kind == KFIT_TARGETS_SYS)
		rc = from_tracepoint(fn, e, r, err, errlen);
	else
		rc = from_types(fn, e, pos, r, err, errlen);
	if (!rc)
		apply_as(e, r);
	return rc;
}

/* The item's label: its text without ':type', and without the type word */
static char *label_of(const struct kfit_argexpr *e)
{
	const char *s = e->type ? e->text + strlen(e->type) : e->text;
	const char *colon = strrchr(s, ':');

	s += strspn(s, " \t");
	return strndup(s, colon ? (size_t)(colon - s) : strlen(s));
}

static int add_arg(struct kfit_targets_func *fn, const struct kfit_argexpr *e,
		   const struct resolved *r, int *nstr)
{
	struct kfit_targets_arg *a = realloc(fn->args, (fn->nargs + 1) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	fn->args = a;
	a = &a[fn->nargs];
	memset(a, 0, sizeof(*a));
	a->label = label_of(e);
	if (!a->label)
		return -ENOMEM;
	a->spec = r->spec;
	a->is_bool = r->is_bool;
	a->enum_id = r->enum_id;
	a->enum_die = r->enum_die;
	if (r->is_str && r->spec.src)
		a->spec.str = ++*nstr;
	fn->nargs++;
	return 0;
}

/* A function named again ('f(a)' after 'f'): its list is the last one's */
void kfit_args_clear(struct kfit_targets_func *fn)
{
	int i;

	for (i = 0; i < fn->nargs; i++)
		free(fn->args[i].label);
	free(fn->args);
	fn->args = NULL;
	if (fn->fmt)
		kfit_argfmt_free(fn->fmt, fn->nargs);
	free(fn->fmt);
	fn->fmt = NULL;
	fn->nargs = 0;
}

/* The names of BTF enum id's values, into f's table */
static int enum_names(struct kfit_argfmt *f, unsigned int id)
{
	const struct btf *btf = kfit_btf_vmlinux();
	const struct btf_type *t = btf ? btf__type_by_id(btf, id) : NULL;
	bool sgn = t && btf_kflag(t);
	__s64 v;
	int i, err = 0;

	if (t && btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);

		for (i = 0; i < btf_vlen(t) && !err; i++) {
			v = sgn ? (__s64)e[i].val : (__s64)(__u32)e[i].val;
			err = kfit_argfmt_add_enum(f, v, btf__name_by_offset(btf, e[i].name_off));
		}
	} else if (t && btf_is_enum64(t)) {
		const struct btf_enum64 *e = btf_enum64(t);

		for (i = 0; i < btf_vlen(t) && !err; i++)
			err = kfit_argfmt_add_enum(f, (__s64)btf_enum64_value(e + i),
						   btf__name_by_offset(btf, e[i].name_off));
	}
	return err;
}

static int add_enum(void *ctx, __s64 val, const char *name)
{
	return kfit_argfmt_add_enum(ctx, val, name);
}

/* The names of a user enum's values (DWARF DIE off of fn's binary), into f's table */
static int dwarf_enum_names(struct kfit_argfmt *f, const struct kfit_targets_func *fn,
			    __u64 off)
{
	struct kfit_dwarf *d;
	int err;

	d = dwarf_of(fn->path, &err);
	err = d ? kfit_dwarf_enum(d, off, f->kind, add_enum, f) : 0;
	/* no names: the values show as numbers */
	return err == -ENOENT ? 0 : err;
}

/* How fn's arguments print (fn->fmt), from what they resolved to */
static int make_formats(struct kfit_targets_func *fn)
{
	struct kfit_argfmt *f;
	int i, err;

	if (!fn->nargs)
		return 0;
	f = calloc(fn->nargs, sizeof(*f));
	if (!f)
		return -ENOMEM;
	fn->fmt = f;
	for (i = 0; i < fn->nargs; i++) {
		f[i].label = strdup(fn->args[i].label);
		if (!f[i].label)
			return -ENOMEM;
		f[i].kind = fn->args[i].spec.kind;
		f[i].str = fn->args[i].spec.str;
		f[i].is_bool = fn->args[i].is_bool;
		f[i].present = fn->args[i].spec.src != KFIT_ARG_NONE;
		if (fn->args[i].enum_id)
			err = enum_names(&f[i], fn->args[i].enum_id);
		else if (fn->args[i].enum_die)
			err = dwarf_enum_names(&f[i], fn, fn->args[i].enum_die);
		else
			err = 0;
		if (err)
			return err;
	}
	return 0;
}

static int resolve_func(struct kfit_targets_func *fn, const struct kfit_arglist *l,
			const char *spec)
{
	struct resolved r;
	char err[512];
	int i, rc, nstr = 0;

	kfit_args_clear(fn);
	for (i = 0; i < l->n; i++) {
		rc = resolve_one(fn, &l->v[i], i, &r, err, sizeof(err));
		if (rc == -ENOENT) {
			memset(&r, 0, sizeof(r));	/* kfit_args_check says */
		} else if (rc) {
			kfit_err("'%s': %s", spec, err);
			return -EINVAL;
		}
		if (r.is_str && nstr == KFIT_ARG_STRS) {
			kfit_err("'%s': at most %d strings per function", spec, KFIT_ARG_STRS);
			return -EINVAL;
		}
		rc = add_arg(fn, &l->v[i], &r, &nstr);
		if (rc)
			return rc;
	}
	return make_formats(fn);
}

/* No function of the target has parameter i: say what the first one has */
static void no_such_param(const struct kfit_targets *t, int first,
			  const struct kfit_argexpr *e, const char *spec)
{
	const struct kfit_targets_func *fn = &t->funcs[first];
	struct resolved r;
	char err[512], names[512];

	if (fn->kind == KFIT_TARGETS_KERNEL &&
	    !kfit_btf_func_params(kfit_btf_vmlinux(), fn->name, names, sizeof(names))) {
		kfit_err("'%s': %s has no parameter '%s'; its parameters: %s", spec,
			 fn->name, e->seg[0], names[0] ? names : "none");
		return;
	}
	resolve_one(fn, e, 0, &r, err, sizeof(err));
	kfit_err("'%s': %s", spec, err);
}

int kfit_args_resolve_one(struct kfit_targets *t, int i, const struct kfit_arglist *l,
			  const char *spec)
{
	return resolve_func(&t->funcs[i], l, spec);
}

int kfit_args_check(const struct kfit_targets *t, const int *idx, int n,
		    const struct kfit_arglist *l, const char *spec)
{
	int i, k, missing;

	for (i = 0; i < l->n; i++) {
		missing = 0;
		for (k = 0; k < n; k++)
			missing += !t->funcs[idx[k]].args[i].spec.src;
		if (missing == n) {
			no_such_param(t, idx[0], &l->v[i], spec);
			return -EINVAL;
		}
		if (missing)
			kfit_info("note: %d of the %d functions of '%s' have no parameter "
				  "'%s': their calls show none", missing, n, spec,
				  l->v[i].seg[0]);
	}
	return 0;
}

bool kfit_args_any(const struct kfit_targets *t)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (t->funcs[i].nargs)
			return true;
	return false;
}

int kfit_args_slot(const struct kfit_targets_func *fn, const char *label)
{
	int i;

	for (i = 0; i < fn->nargs; i++)
		if (fn->args[i].spec.src && !strcmp(fn->args[i].label, label))
			return i;
	return -1;
}

const char *kfit_args_value_str(const struct kfit_targets_func *fn, int i, __u64 v,
				char *buf, size_t len)
{
	return kfit_argfmt_value(&fn->fmt[i], v, buf, len);
}

const char *kfit_args_text(const struct kfit_targets_func *fn, const struct kfit_argvals *a,
			   char *buf, size_t len)
{
	struct kfit_argview v = kfit_argview_of(a);

	return kfit_argfmt_text(fn->fmt, fn->nargs, &v, buf, len);
}

void kfit_args_json(struct kfit_json *j, const char *key, const struct kfit_targets_func *fn,
		    const struct kfit_argvals *a)
{
	struct kfit_argview v = kfit_argview_of(a);

	kfit_argfmt_json(j, key, fn->fmt, fn->nargs, &v);
}

void kfit_args_fargs(const struct kfit_targets_func *fn, struct kfit_fargs *fa)
{
	int k;

	memset(fa, 0, sizeof(*fa));
	memset(fa->fslot, KFIT_NO_SLOT, sizeof(fa->fslot));
	memset(fa->eslot, KFIT_NO_SLOT, sizeof(fa->eslot));
	for (k = 0; k < fn->nargs && k < KFIT_ARGS_MAX; k++) {
		fa->a[k] = fn->args[k].spec;
		if (fa->a[k].src)
			fa->on = 1;
		if (fa->a[k].str > fa->nstr)
			fa->nstr = fa->a[k].str;
	}
}
