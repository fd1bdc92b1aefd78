// SPDX-License-Identifier: GPL-2.0
/* The TARGET grammar over ktarget (kernel), utarget (user) and syscalls. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "btf.h"
#include "debuginfo.h"
#include "deny.h"
#include "diag.h"
#include "ktarget.h"
#include "syscalls.h"
#include "target.h"
#include "utarget.h"
#include "kfit/ret.h"

/* A user function's return kind from its binary's DWARF: 0 without it */
static unsigned char user_ret(struct kfit_dwarf **d, const char **path,
			      const struct kfit_targets_func *fn)
{
	struct kfit_uparam *p;
	unsigned char k = 0;
	int n;

	if (!*path || strcmp(*path, fn->path)) {	/* a binary's functions come together */
		kfit_dwarf_close(*d);
		*d = NULL;
		*path = fn->path;
		if (kfit_dwarf_open(fn->path, d))
			*d = NULL;
	}
	if (!*d)
		return 0;
	n = kfit_dwarf_params(*d, fn->name, &p, &k);
	kfit_uparams_free(p, n);
	return n < 0 ? 0 : k;
}

void kfit_targets_ret_kinds(struct kfit_targets *t)
{
	struct kfit_targets_func *fn;
	struct kfit_dwarf *d = NULL;
	const char *path = NULL;
	int i, k;

	for (i = 0; i < t->n; i++) {
		fn = &t->funcs[i];
		if (fn->kind == KFIT_TARGETS_SYS) {
			fn->ret = 8 | KFIT_RET_SIGNED | KFIT_RET_ERRNO;
			continue;
		}
		if (fn->kind == KFIT_TARGETS_USER) {
			fn->ret = user_ret(&d, &path, fn);
			continue;
		}
		k = kfit_btf_func_ret(kfit_btf_vmlinux(), fn->name);
		fn->ret = k > 0 ? k : 0;
	}
	kfit_dwarf_close(d);
}

int kfit_targets_find(const struct kfit_targets *t, const char *name)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->funcs[i].name, name))
			return i;
	return -1;
}

int kfit_targets_first(const struct kfit_targets *t, enum kfit_targets_kind kind)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (t->funcs[i].kind == kind)
			return i;
	return -1;
}

static void count_kind(struct kfit_targets *t, enum kfit_targets_kind kind)
{
	if (kind == KFIT_TARGETS_KERNEL)
		t->nkernel++;
	else if (kind == KFIT_TARGETS_USER)
		t->nuser++;
	else
		t->nsys++;
}

/* Returns the function's index, or a negative errno */
/* What the spec being added named: its arguments go to these */
static int note_added(struct kfit_targets *t, int i)
{
	int *a = realloc(t->added, (t->nadded + 1) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	t->added = a;
	a[t->nadded++] = i;
	return i;
}

static int add_func(struct kfit_targets *t, const char *name,
		    enum kfit_targets_kind kind, const char *path)
{
	struct kfit_targets_func *f;
	int i = kfit_targets_find(t, name);

	if (i >= 0)
		return note_added(t, i);
	if (t->max && t->n >= t->max) {
		kfit_err("too many functions: at most %d", t->max);
		return -E2BIG;
	}
	f = realloc(t->funcs, (t->n + 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	t->funcs = f;
	f = &t->funcs[t->n];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->kind = kind;
	f->path = path ? strdup(path) : NULL;
	if (!f->name || (path && !f->path)) {
		free(f->name);
		free(f->path);
		return -ENOMEM;
	}
	count_kind(t, kind);
	return note_added(t, t->n++);
}

int kfit_targets_skip(struct kfit_targets *t, const char *name, const char *reason)
{
	struct kfit_targets_skipped *s;

	s = realloc(t->skipped, (t->nskipped + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	t->skipped = s;
	s = &t->skipped[t->nskipped];
	s->name = strdup(name);
	s->reason = strdup(reason);
	if (!s->name || !s->reason) {
		free(s->name);
		free(s->reason);
		return -ENOMEM;
	}
	t->nskipped++;
	return 0;
}

#define R_NO_SYS_TP	"no tracepoint for this system call on this kernel"

/* "sys:read*": every system call matching, with its tracepoints' name */
static int add_sys_glob(struct kfit_targets *t, const char *spec)
{
	struct kfit_syscall_matches g;
	char msg[512], name[128];
	int i, err;

	err = kfit_syscall_glob(spec + 4, &g, msg, sizeof(msg));
	if (err) {
		kfit_err("cannot trace '%s': %s", spec, msg);
		return err == -ENOENT ? -EINVAL : err;
	}
	for (i = 0; i < g.nuntraced && err >= 0; i++) {
		snprintf(name, sizeof(name), "sys:%s", g.untraced[i]);
		err = kfit_targets_skip(t, name, R_NO_SYS_TP);
	}
	for (i = 0; i < g.n && err >= 0; i++) {
		snprintf(name, sizeof(name), "sys:%s", g.v[i].name);
		err = add_func(t, name, KFIT_TARGETS_SYS, g.v[i].tp);
	}
	kfit_syscall_matches_free(&g);
	return err < 0 ? err : 0;
}

static int add_sys(struct kfit_targets *t, const char *spec)
{
	char enter[128], exit[128], msg[512];
	int err;

	if (strpbrk(spec + 4, "*?["))
		return add_sys_glob(t, spec);
	/* The tracepoints decide: the kernel may know newer calls than our table */
	err = kfit_syscall_tracepoints(spec + 4, enter, sizeof(enter), exit,
				       sizeof(exit), msg, sizeof(msg));
	if (err) {
		kfit_err("cannot trace '%s': %s", spec, msg);
		/* A known call without tracepoints is this kernel's limit */
		return kfit_syscall_nr(spec + 4) < 0 ? -EINVAL : -EOPNOTSUPP;
	}
	/* "syscalls/sys_enter_newstat": stat's tracepoints are newstat's */
	err = add_func(t, spec, KFIT_TARGETS_SYS, enter + strlen("syscalls/sys_enter_"));
	return err < 0 ? err : 0;
}

/* IFUNCs are traced at their implementation: say which */
static void ifunc_note(const struct kfit_utarget *u)
{
	int i, n = 0, first = -1;

	for (i = 0; i < u->n; i++)
		if (u->impls[i]) {
			n++;
			first = first < 0 ? i : first;
		}
	if (n == 1)
		kfit_info("note: %s is an IFUNC: tracing the implementation the dynamic "
			  "linker chose, %s", u->names[first], u->impls[first]);
	else if (n > 1)
		kfit_info("note: %d IFUNCs traced at the implementations the dynamic "
			  "linker chose (%s: %s, ...)", n, u->names[first], u->impls[first]);
}

static int add_user(struct kfit_targets *t, const char *spec)
{
	struct kfit_utarget u = {};
	char msg[PATH_MAX + 512];
	int i, err;

	err = kfit_utarget_resolve(spec, t->pid, &u, msg, sizeof(msg));
	if (err) {
		kfit_err("%s", msg);
		return -EINVAL;
	}
	ifunc_note(&u);
	for (i = 0; i < u.nskipped && err >= 0; i++)
		err = kfit_targets_skip(t, u.skipped[i].name, u.skipped[i].reason);
	for (i = 0; i < u.n && err >= 0; i++) {
		err = add_func(t, u.names[i], KFIT_TARGETS_USER, u.path);
		if (err >= 0)
			t->funcs[err].offset = u.offs[i];
	}
	kfit_utarget_free(&u);
	return err < 0 ? err : 0;
}

static int add_kfunc(struct kfit_targets *t, const char *name)
{
	char why[256];
	const char *deny = t->no_deny ? NULL : kfit_deny_reason(name);

	if (deny) {
		snprintf(why, sizeof(why), "denied by default (%s); --no-deny traces it",
			 deny);
		return kfit_targets_skip(t, name, why);
	}
	return add_func(t, name, KFIT_TARGETS_KERNEL, NULL);
}

static int add_kernel(struct kfit_targets *t, const char *spec)
{
	struct kfit_ktarget_src src = { .need_btf = t->need_btf };
	struct kfit_ktarget k = {};
	char msg[1024];
	int i, err;

	err = kfit_ktarget_resolve(&src, spec, &k, msg, sizeof(msg));
	if (err) {
		kfit_err("%s", msg);
		return -EINVAL;
	}
	if (k.note[0] && strcmp(k.note, t->note)) {
		kfit_info("note: %s", k.note);
		snprintf(t->note, sizeof(t->note), "%s", k.note);	/* once */
	}
	for (i = 0; i < k.nskipped && err >= 0; i++)
		err = kfit_targets_skip(t, k.skipped[i].name, k.skipped[i].reason);
	for (i = 0; i < k.n && err >= 0; i++)
		err = add_kfunc(t, k.names[i]);
	kfit_ktarget_free(&k);
	return err < 0 ? err : 0;
}

static int add_base(struct kfit_targets *t, const char *spec)
{
	if (!strncmp(spec, "sys:", 4))
		return add_sys(t, spec);
	if (kfit_utarget_is_spec(spec))
		return add_user(t, spec);
	return add_kernel(t, spec);
}

/* 'func(a, b)': the functions base names, then their arguments */
int kfit_targets_add(struct kfit_targets *t, const char *spec)
{
	struct kfit_arglist l;
	char base[1024], err[512];
	const char *list;
	size_t len;
	int i, rc;

	if (kfit_argexpr_split(spec, base, sizeof(base), &list, &len, err, sizeof(err))) {
		kfit_err("%s", err);
		return -EINVAL;
	}
	if (list && kfit_arglist_parse(list, len, &l, err, sizeof(err))) {
		kfit_err("'%s': %s", spec, err);
		return -EINVAL;
	}
	t->nadded = 0;
	rc = add_base(t, base);
	if (!rc && list && !t->nadded) {
		kfit_err("'%s': no function to take arguments from", spec);
		rc = -EINVAL;
	}
	for (i = 0; !rc && list && i < t->nadded; i++)
		rc = kfit_args_resolve_one(t, t->added[i], &l, spec);
	if (!rc && list)
		rc = kfit_args_check(t, t->added, t->nadded, &l, spec);
	if (list)
		kfit_arglist_free(&l);
	return rc;
}

int kfit_targets_one(struct kfit_targets *t, const char *spec)
{
	const char *colon = strrchr(spec, ':');
	const char *name = colon && strncmp(spec, "sys:", 4) ? colon + 1 : spec;
	int i, n = t->n, err;

	i = kfit_targets_find(t, name);
	if (i >= 0)
		return i;
	err = kfit_targets_add(t, spec);
	if (err)
		return err;
	if (t->n != n + 1) {
		kfit_err("trigger '%s' must name exactly one function", spec);
		return -EINVAL;
	}
	return n;
}

/* "2 kernel functions (fentry)"; the kind said only when there are others */
static int describe_one(char *buf, size_t len, int n, const char *kind,
			const char *what, const char *mech)
{
	bool many = n != 1;

	if (!strcmp(what, "system call"))
		return snprintf(buf, len, "%d system call%s (tracepoint%s)", n,
				many ? "s" : "", many ? "s" : "");
	return snprintf(buf, len, "%d %s%s%s (%s)", n, kind, what, many ? "s" : "", mech);
}

const char *kfit_targets_describe(const struct kfit_targets *t, const char *kmech,
				  char *buf, size_t len)
{
	int n[3] = { 0 }, kinds = 0, said = 0, i;
	const char *what[3] = { "function", "function", "system call" };
	const char *kind[3] = { "kernel ", "user ", "" };
	const char *mech[3] = { kmech, "uprobe", "tracepoint" };
	size_t at = 0;

	for (i = 0; i < t->n; i++)
		n[t->funcs[i].kind] += !t->funcs[i].dropped;
	for (i = 0; i < 3; i++)
		kinds += n[i] > 0;
	buf[0] = '\0';
	if (!kinds)
		describe_one(buf, len, 0, "", "function", kmech);
	for (i = 0; i < 3 && at < len; i++) {
		if (!n[i])
			continue;
		said++;
		if (said > 1)
			at += snprintf(buf + at, len - at, said == kinds ? " and " : ", ");
		if (at < len)
			at += describe_one(buf + at, len - at, n[i],
					   i < 2 && n[0] && n[1] ? kind[i] : "", what[i], mech[i]);
	}
	return buf;
}

void kfit_targets_free(struct kfit_targets *t)
{
	int i;

	for (i = 0; i < t->n; i++) {
		free(t->funcs[i].name);
		free(t->funcs[i].path);
		kfit_args_clear(&t->funcs[i]);
	}
	for (i = 0; i < t->nskipped; i++) {
		free(t->skipped[i].name);
		free(t->skipped[i].reason);
	}
	free(t->funcs);
	free(t->skipped);
	free(t->added);
	t->added = NULL;
	t->funcs = NULL;
	t->skipped = NULL;
	t->n = t->nskipped = t->nkernel = t->nuser = t->nsys = 0;
}
