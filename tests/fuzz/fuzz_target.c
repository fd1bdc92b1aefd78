// SPDX-License-Identifier: GPL-2.0
/*
 * Function targets, the parts that need no kernel (utarget.h,
 * syscalls.h): which kind a spec is, "sys:NAME" against the system call
 * table, and for "BINARY:FUNC" the function glob resolved in a fixture
 * binary made for it (build/fuzz/symtarget, beside the harness): BINARY is
 * not looked up, so no file of this system is read for it. Each spec's
 * argument list too (argexpr.h): split off, parsed, checked for what the
 * parser promises.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "argexpr.h"
#include "kfit/args.h"
#include "filter.h"
#include "syscalls.h"
#include "utarget.h"
#include "fuzzlib.h"

static char fixture[PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(fixture, sizeof(fixture), "%s/symtarget", fz_selfdir());
	return 0;
}

static void user(const char *spec)
{
	const char *colon = strrchr(spec, ':');
	struct kfit_utarget u;
	char err[1024], *in;
	size_t len;
	int i, r;

	len = strlen(fixture) + strlen(colon) + 1;
	in = malloc(len);
	if (!in)
		abort();
	snprintf(in, len, "%s%s", fixture, colon);
	err[0] = '\0';
	r = kfit_utarget_resolve(in, 0, &u, err, sizeof(err));
	if (r) {
		if (r > 0 || !err[0] || u.n)
			abort();
	} else {
		/* A glob may match only refused functions (_start): skipped */
		if (u.n + u.nskipped < 1)
			abort();
		for (i = 1; i < u.n; i++)
			if (strcmp(u.names[i - 1], u.names[i]) >= 0)
				abort();	/* sorted, unique */
		for (i = 0; i < u.n; i++)
			if (!u.offs[i])
				abort();	/* the code's file offset */
		for (i = 0; i < u.nskipped; i++)
			if (!u.skipped[i].name || !u.skipped[i].reason)
				abort();
	}
	kfit_utarget_free(&u);
	free(in);
}

/* One item as parsed: what kfit_arglist_parse promises of it */
static void check_expr(const struct kfit_argexpr *e, bool typed)
{
	unsigned char kind;
	bool str;
	int i;

	if (!e->text || !e->text[0] || e->nseg < 1 || !e->seg || !e->arrow)
		abort();
	if (e->arrow[0] || (typed != (e->type != NULL)))
		abort();
	if (e->type && (kfit_argtype_kind(e->type, &kind, &str) || e->nseg != 1))
		abort();
	if (e->as && kfit_argtype_kind(e->as, &kind, &str))
		abort();
	for (i = 0; i < e->nseg; i++)
		if (!e->seg[i][0] || !strstr(e->text, e->seg[i]))
			abort();	/* a name, from the text */
}

/* The spec's argument list, if any: split off and parsed */
static void args(const char *spec)
{
	struct kfit_arglist l;
	char base[64], err[512];
	const char *list;
	size_t len;
	int i, r;

	err[0] = '\0';
	r = kfit_argexpr_split(spec, base, sizeof(base), &list, &len, err, sizeof(err));
	if (r) {
		if (r != -EINVAL || !err[0])
			abort();
		return;
	}
	if (strlen(base) >= sizeof(base) || strncmp(spec, base, strlen(base)))
		abort();
	if (!list) {
		if (strcmp(base, spec))
			abort();
		return;
	}
	if (list[-1] != '(' || list[len] != ')' || list + len + 1 != spec + strlen(spec))
		abort();
	err[0] = '\0';
	r = kfit_arglist_parse(list, len, &l, err, sizeof(err));
	if (r) {
		if ((r != -EINVAL && r != -ENOMEM) || !err[0] || l.n || l.v)
			abort();
		return;
	}
	if (l.n < 1 || l.n > KFIT_ARGS_MAX)
		abort();
	for (i = 0; i < l.n; i++)
		check_expr(&l.v[i], l.typed);
	kfit_arglist_free(&l);
}

/*
 * The spec as a --filter expression: a program within the interpreter's
 * bounds, which runs to 1, 0 or a KFIT_FILTER_* on any values
 */
static void filter(const char *spec)
{
	static const char *const names[] = { "size", "flags", "how->flags", "a" };
	struct kfit_fvals v = { .arg = { -1, 0, 4096, 1LL << 62 }, .have = 0xb,
				.ret = -2, .pid = 1, .tid = 2, .cpu = 3, .comm_eq = 1 };
	struct kfit_filter f;
	char err[512];
	int r = kfit_filter_parse(spec, names, 4, &f, err, sizeof(err));

	if (r) {
		if ((r != -EINVAL && r != -ENOMEM) || !err[0])
			abort();
		return;
	}
	if (f.n < 1 || f.n > KFIT_FILTER_MAX || f.nnames > KFIT_ARGS_MAX)
		abort();
	r = kfit_filter_run(f.insn, f.n, &v);
	/* names[1] is unread: only its reads may give NOVAL; ERR never */
	if (r != 0 && r != 1 && r != KFIT_FILTER_NOVAL)
		abort();
	kfit_filter_free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *name;
	char *spec;
	int nr;

	/* Longer specs only slow the closest-name search down (strdist.h) */
	if (size > 1024)
		return 0;
	spec = fz_str(data, size);
	args(spec);
	filter(spec);
	if (!strncmp(spec, "sys:", 4)) {
		if (kfit_utarget_is_spec(spec))
			abort();
		nr = kfit_syscall_nr(spec + 4);
		if (nr >= 0) {
			name = kfit_syscall_name(nr);
			if (!name || kfit_syscall_nr(name) != nr)
				abort();
		}
	} else if (kfit_utarget_is_spec(spec)) {
		user(spec);
	} else if (strchr(spec, ':')) {
		abort();
	}
	if (size >= 4) {
		memcpy(&nr, data, 4);
		kfit_syscall_name(nr);
	}
	free(spec);
	return 0;
}
