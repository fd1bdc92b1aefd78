// SPDX-License-Identifier: GPL-2.0
/*
 * Arguments of traced calls shown by type: integers, booleans, enums by
 * name, pointers in hex, strings quoted. Core code: funcdur and callgraph
 * print live with it, kd from a trace file's ARGS block.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "argfmt.h"
#include "kfit/ret.h"

static const char *enum_name(const struct kfit_argfmt *f, __u64 v)
{
	__s64 x = kfit_ret_value(v, f->kind);
	int i;

	for (i = 0; i < f->nenums; i++)
		if (f->enums[i].val == x)
			return f->enums[i].name;
	return NULL;
}

const char *kfit_argfmt_value(const struct kfit_argfmt *f, __u64 v, char *buf, size_t len)
{
	__s64 x = kfit_ret_value(v, f->kind);
	const char *name;

	if (f->is_bool)
		snprintf(buf, len, "%s", x ? "true" : "false");
	else if (f->kind & KFIT_RET_PTR)
		snprintf(buf, len, "0x%llx", (unsigned long long)v);
	else if ((name = enum_name(f, v)))
		snprintf(buf, len, "%s", name);
	else if (f->kind & KFIT_RET_SIGNED)
		snprintf(buf, len, "%lld", (long long)x);
	else
		snprintf(buf, len, "%llu", (unsigned long long)x);
	return buf;
}

/* s (at most KFIT_ARG_STRLEN bytes) quoted, C escapes for what is not printable */
static size_t quote(char *buf, size_t len, const char *s)
{
	size_t at = 0;
	int i;

	at += snprintf(buf + at, len - at, "\"");
	for (i = 0; i < KFIT_ARG_STRLEN && s[i] && at < len; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			at += snprintf(buf + at, len - at, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			at += snprintf(buf + at, len - at, "\\x%02x", c);
		else
			at += snprintf(buf + at, len - at, "%c", c);
	}
	if (at < len)
		at += snprintf(buf + at, len - at, "\"");
	return at;
}

const char *kfit_argfmt_quote(const char *s, char *buf, size_t len)
{
	buf[0] = '\0';
	quote(buf, len, s);
	return buf;
}

/* Whether value i was read, and its string (if one) is there */
static bool arg_ok(const struct kfit_argfmt *f, const struct kfit_argview *a, int i)
{
	return (a->ok & (1U << i)) && (!f->str || f->str <= a->nstr);
}

static const char *str_of(const struct kfit_argfmt *f, const struct kfit_argview *a)
{
	return a->s + (size_t)(f->str - 1) * KFIT_ARG_STRLEN;
}

const char *kfit_argfmt_text(const struct kfit_argfmt *f, int n, const struct kfit_argview *a,
			     char *buf, size_t len)
{
	char v[64];
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && i < KFIT_ARGS_MAX && at < len; i++) {
		if (!f[i].present)
			continue;
		at += snprintf(buf + at, len - at, "%s%s=", at ? " " : "", f[i].label);
		if (at >= len)
			break;
		if (!arg_ok(&f[i], a, i))
			at += snprintf(buf + at, len - at, "?");
		else if (f[i].str)
			at += quote(buf + at, len - at, str_of(&f[i], a));
		else
			at += snprintf(buf + at, len - at, "%s",
				       kfit_argfmt_value(&f[i], a->v[i], v, sizeof(v)));
	}
	return buf;
}

void kfit_argfmt_json(struct kfit_json *j, const char *key, const struct kfit_argfmt *f,
		      int n, const struct kfit_argview *a)
{
	char s[KFIT_ARG_STRLEN + 1], v[64];
	const struct kfit_argfmt *x;
	int i;

	kfit_json_begin_object(j, key);
	for (i = 0; i < n && i < KFIT_ARGS_MAX; i++) {
		x = &f[i];
		if (!x->present)
			continue;
		if (!arg_ok(x, a, i)) {
			kfit_json_null(j, x->label);
		} else if (x->str) {
			memcpy(s, str_of(x, a), KFIT_ARG_STRLEN);
			s[KFIT_ARG_STRLEN] = '\0';
			kfit_json_str(j, x->label, s);
		} else if (x->is_bool) {
			kfit_json_bool(j, x->label, a->v[i] & 0xff);
		} else if ((x->kind & KFIT_RET_PTR) || enum_name(x, a->v[i])) {
			kfit_json_str(j, x->label, kfit_argfmt_value(x, a->v[i], v, sizeof(v)));
		} else if (x->kind & KFIT_RET_SIGNED) {
			kfit_json_i64(j, x->label, kfit_ret_value(a->v[i], x->kind));
		} else {
			kfit_json_u64(j, x->label, kfit_ret_value(a->v[i], x->kind));
		}
	}
	kfit_json_end_object(j);
}

int kfit_argfmt_add_enum(struct kfit_argfmt *f, __s64 v, const char *name)
{
	struct kfit_argenum *e = realloc(f->enums, (f->nenums + 1) * sizeof(*e));

	if (!e)
		return -ENOMEM;
	f->enums = e;
	e[f->nenums].val = v;
	e[f->nenums].name = strdup(name);
	if (!e[f->nenums].name)
		return -ENOMEM;
	f->nenums++;
	return 0;
}

void kfit_argfmt_free(struct kfit_argfmt *f, int n)
{
	int i, k;

	for (i = 0; i < n; i++) {
		free(f[i].label);
		for (k = 0; k < f[i].nenums; k++)
			free(f[i].enums[k].name);
		free(f[i].enums);
	}
}

void kfit_argfmt_notes(FILE *f, __u64 no_args, __u64 str_faults)
{
	if (no_args)
		fprintf(f, "%llu call%s without arguments: more than %d open with arguments "
			"in one thread, or more than %d threads in traced calls\n",
			(unsigned long long)no_args, no_args == 1 ? "" : "s", KFIT_ARG_DEPTH,
			KFIT_ARG_SLOTS);
	if (str_faults)
		fprintf(f, "%llu call%s with a string not in memory at entry or exit, shown "
			"as ?\n", (unsigned long long)str_faults, str_faults == 1 ? "" : "s");
}

struct kfit_argview kfit_argview_of(const struct kfit_argvals *a)
{
	return (struct kfit_argview){
		.ok = a->ok, .nstr = KFIT_ARG_STRS, .v = a->v, .s = a->s[0],
	};
}

struct kfit_argview kfit_argview_of_rec(const struct kfit_rec_args *a)
{
	return (struct kfit_argview){
		.ok = a->ok, .nstr = a->nstr, .v = a->v, .s = a->s[0],
	};
}
