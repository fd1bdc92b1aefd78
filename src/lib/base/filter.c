// SPDX-License-Identifier: GPL-2.0
/* --filter expressions into the stack programs of kfit/filter.h */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "filter.h"

#define MAX_ERRNO	4095

struct parser {
	const char *s, *p;		/* the expression, where we are */
	const char *const *names;
	int nnames;
	struct kfit_filter *f;
	char *err;
	size_t errlen;
	int depth;
};

static int fail(struct parser *ps, const char *fmt, const char *what)
{
	char msg[256];

	snprintf(msg, sizeof(msg), fmt, what);
	snprintf(ps->err, ps->errlen, "at column %d: %s", (int)(ps->p - ps->s) + 1, msg);
	return -EINVAL;
}

static void blanks(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

/* Whether the operator tok is next (then taken) */
static bool take(struct parser *ps, const char *tok)
{
	size_t n = strlen(tok);

	blanks(ps);
	if (strncmp(ps->p, tok, n))
		return false;
	/* '&' is not the start of '&&', '<' not of '<=', '!' not of '!=' */
	if (n == 1 && ps->p[1] && strchr("&|=<>", ps->p[1]) &&
	    (ps->p[1] == tok[0] || ps->p[1] == '='))
		return false;
	ps->p += n;
	return true;
}

static int emit(struct parser *ps, __u8 op, __u8 arg, __s64 imm)
{
	struct kfit_finsn *in;

	if (ps->f->n == KFIT_FILTER_MAX)
		return fail(ps, "too long: at most %s operations", "32");
	in = &ps->f->insn[ps->f->n++];
	memset(in, 0, sizeof(*in));
	in->op = op;
	in->arg = arg;
	in->imm = imm;
	if (op >= KFIT_F_EQ)
		ps->f->has_op = true;
	return 0;
}

static int expr(struct parser *ps);

/* An errno's number by its name, or 0 */
static int errno_of(const char *name)
{
	const char *e;
	int i;

	for (i = 1; i <= MAX_ERRNO; i++) {
		e = strerrorname_np(i);
		if (e && !strcmp(e, name))
			return i;
	}
	return 0;
}

static int number(struct parser *ps)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(ps->p, &end, 0);
	if (errno || isalnum((unsigned char)*end) || *end == '_')
		return fail(ps, "%s", "a bad number");
	ps->p = end;
	return emit(ps, KFIT_F_IMM, 0, (__s64)v);
}

/* An argument's name as the targets wrote it: a path of '->' and '.' */
static size_t name_len(const char *p)
{
	size_t n = 0;

	for (;;) {
		while (isalnum((unsigned char)p[n]) || p[n] == '_')
			n++;
		if (p[n] == '-' && p[n + 1] == '>' && (isalpha((unsigned char)p[n + 2]) || p[n + 2] == '_'))
			n += 2;
		else if (p[n] == '.' && (isalpha((unsigned char)p[n + 1]) || p[n + 1] == '_'))
			n++;
		else
			return n;
	}
}

static int known_names(struct parser *ps, const char *name)
{
	char list[512] = "";
	size_t at = 0;
	int i;

	for (i = 0; i < ps->nnames && at < sizeof(list); i++)
		at += snprintf(list + at, sizeof(list) - at, "%s, ", ps->names[i]);
	snprintf(ps->err, ps->errlen, "at column %d: unknown name '%s' (%sret, pid, tid, "
		 "cpu, comm, numbers, errno names)", (int)(ps->p - ps->s) + 1, name,
		 list);
	return -EINVAL;
}

static int argument(struct parser *ps, const char *name)
{
	struct kfit_filter *f = ps->f;
	int i;

	for (i = 0; ps->names && i < ps->nnames; i++)
		if (!strcmp(ps->names[i], name))
			break;
	if (ps->names && i == ps->nnames)
		return -ENOENT;
	for (i = 0; i < f->nnames; i++)
		if (!strcmp(f->names[i], name))
			return emit(ps, KFIT_F_ARG, i, 0);
	if (f->nnames == KFIT_ARGS_MAX)
		return fail(ps, "at most %s arguments", "4");
	f->names[f->nnames] = strdup(name);
	if (!f->names[f->nnames])
		return -ENOMEM;
	return emit(ps, KFIT_F_ARG, f->nnames++, 0);
}

/* comm == "x" or comm != "x" */
static int comm(struct parser *ps)
{
	bool ne;
	const char *q;

	if (ps->f->has_comm)
		return fail(ps, "%s", "comm is compared once");
	if (take(ps, "=="))
		ne = false;
	else if (take(ps, "!="))
		ne = true;
	else
		return fail(ps, "%s", "comm is compared with == or != and a \"string\"");
	blanks(ps);
	if (*ps->p != '"' || !(q = strchr(ps->p + 1, '"')))
		return fail(ps, "%s", "a \"string\" was expected");
	if (q - ps->p - 1 >= (long)sizeof(ps->f->comm))
		return fail(ps, "%s", "a comm is at most 15 characters");
	memcpy(ps->f->comm, ps->p + 1, q - ps->p - 1);
	ps->f->comm[q - ps->p - 1] = '\0';
	ps->f->has_comm = true;
	ps->p = q + 1;
	return emit(ps, KFIT_F_COMM, 0, 0) ? -EINVAL :
	       (ne ? emit(ps, KFIT_F_NOT, 0, 0) : 0);
}

static int name(struct parser *ps)
{
	const char *start = ps->p;
	size_t n = name_len(ps->p);
	char id[256];
	int e, r;

	if (n >= sizeof(id))
		return fail(ps, "%s", "a name too long");
	memcpy(id, ps->p, n);
	id[n] = '\0';
	ps->p += n;
	if (!strcmp(id, "ret")) {
		ps->f->uses_ret = true;
		return emit(ps, KFIT_F_RET, 0, 0);
	}
	if (!strcmp(id, "pid"))
		return emit(ps, KFIT_F_PID, 0, 0);
	if (!strcmp(id, "tid"))
		return emit(ps, KFIT_F_TID, 0, 0);
	if (!strcmp(id, "cpu"))
		return emit(ps, KFIT_F_CPU, 0, 0);
	if (!strcmp(id, "comm"))
		return comm(ps);
	e = id[0] == 'E' ? errno_of(id) : 0;
	if (e)
		return emit(ps, KFIT_F_IMM, 0, e);
	r = argument(ps, id);
	if (r == -ENOENT) {
		ps->p = start;	/* the column of the name, not of what follows */
		return known_names(ps, id);
	}
	return r;
}

static int primary(struct parser *ps)
{
	int r;

	blanks(ps);
	if (take(ps, "(")) {
		if (++ps->depth > KFIT_FILTER_MAX)
			return fail(ps, "%s", "too deeply nested");
		r = expr(ps);
		ps->depth--;
		if (r)
			return r;
		return take(ps, ")") ? 0 : fail(ps, "%s", "a ')' was expected");
	}
	if (isdigit((unsigned char)*ps->p))
		return number(ps);
	if (isalpha((unsigned char)*ps->p) || *ps->p == '_')
		return name(ps);
	return fail(ps, "%s", *ps->p ? "a number, a name or '(' was expected" :
		    "the expression ends too early");
}

static int unary(struct parser *ps)
{
	int r;

	if (take(ps, "!") || take(ps, "-")) {
		__u8 op = ps->p[-1] == '!' ? KFIT_F_NOT : KFIT_F_NEG;

		if (++ps->depth > KFIT_FILTER_MAX)
			return fail(ps, "%s", "too deeply nested");
		r = unary(ps);
		ps->depth--;
		return r ? r : emit(ps, op, 0, 0);
	}
	return primary(ps);
}

/* One level of binary operators: the next level's operands joined by toks */
struct level {
	const char *tok[4];
	__u8 op[4];
};

static const struct level levels[] = {
	{ { "||" }, { KFIT_F_LOR } },
	{ { "&&" }, { KFIT_F_LAND } },
	{ { "|" }, { KFIT_F_BOR } },
	{ { "&" }, { KFIT_F_BAND } },
	{ { "==", "!=" }, { KFIT_F_EQ, KFIT_F_NE } },
	{ { "<=", ">=", "<", ">" }, { KFIT_F_LE, KFIT_F_GE, KFIT_F_LT, KFIT_F_GT } },
};

#define NLEVELS	((int)(sizeof(levels) / sizeof(levels[0])))

static int binary(struct parser *ps, int lv)
{
	int r = lv + 1 < NLEVELS ? binary(ps, lv + 1) : unary(ps), i;

	while (!r) {
		for (i = 0; i < 4 && levels[lv].tok[i]; i++)
			if (take(ps, levels[lv].tok[i]))
				break;
		if (i == 4 || !levels[lv].tok[i])
			return 0;
		r = lv + 1 < NLEVELS ? binary(ps, lv + 1) : unary(ps);
		if (!r)
			r = emit(ps, levels[lv].op[i], 0, 0);
	}
	return r;
}

static int expr(struct parser *ps)
{
	return binary(ps, 0);
}

/* The stack never deeper than the interpreter's */
static int check_depth(struct parser *ps)
{
	int i, sp = 0, max = 0;

	for (i = 0; i < ps->f->n; i++) {
		__u8 op = ps->f->insn[i].op;

		if (op < KFIT_F_EQ)
			sp++;
		else if (op <= KFIT_F_LOR)
			sp--;
		max = sp > max ? sp : max;
	}
	if (max > KFIT_FILTER_STACK) {
		snprintf(ps->err, ps->errlen, "too deeply nested: at most %d values pending",
			 KFIT_FILTER_STACK);
		return -EINVAL;
	}
	return 0;
}

int kfit_filter_parse(const char *s, const char *const *names, int nnames,
		      struct kfit_filter *f, char *err, size_t errlen)
{
	struct parser ps = {
		.s = s, .p = s, .names = names, .nnames = nnames, .f = f,
		.err = err, .errlen = errlen,
	};
	int r;

	memset(f, 0, sizeof(*f));
	r = expr(&ps);
	blanks(&ps);
	if (!r && *ps.p)
		r = fail(&ps, "'%s' was not expected", ps.p);
	if (!r)
		r = check_depth(&ps);
	if (r)
		kfit_filter_free(f);
	return r;
}

void kfit_filter_free(struct kfit_filter *f)
{
	int i;

	for (i = 0; i < f->nnames; i++)
		free(f->names[i]);
	memset(f, 0, sizeof(*f));
}

bool kfit_filter_is_expr(const char *s)
{
	struct kfit_filter f;
	char err[256];
	bool yes;

	if (kfit_filter_parse(s, NULL, 0, &f, err, sizeof(err)))
		return false;
	yes = f.has_op || f.has_comm;
	kfit_filter_free(&f);
	return yes;
}
