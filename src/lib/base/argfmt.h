/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_ARGFMT_H
#define KFIT_ARGFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "output.h"
#include "kfit/args.h"
#include "kfit/rec.h"

/*
 * How a traced function's arguments print, without the kernel: what the
 * live tools resolve from BTF, DWARF or a tracepoint's format, and what a
 * trace file's ARGS block keeps, so that kd prints them as callgraph did.
 */
struct kfit_argenum {
	__s64 val;
	char *name;
};

struct kfit_argfmt {
	char *label;		/* as written, without its ':type': "file->f_pos" */
	__u8 kind;		/* KFIT_RET_*: size, sign, pointer */
	__u8 str;		/* a string: its slot + 1; 0: a number */
	bool is_bool;
	bool present;		/* false: the function has no such parameter */
	struct kfit_argenum *enums;	/* values by name (a kernel enum's) */
	int nenums;
};

/* One function's arguments: n of a */
struct kfit_fargfmt {
	const struct kfit_argfmt *a;
	int n;
};

/* A call's values: kfit_argvals (funcdur) or a call record's kfit_rec_args */
struct kfit_argview {
	__u8 ok;		/* bit i: v[i] was read */
	__u8 nstr;		/* strings in s */
	const __u64 *v;		/* KFIT_ARGS_MAX */
	const char *s;		/* nstr of KFIT_ARG_STRLEN bytes each */
};

/* One value of f's as its type reads: "4096", "0x7ffd5c1e2a40", "true", "READ" */
const char *kfit_argfmt_value(const struct kfit_argfmt *f, __u64 v, char *buf, size_t len);

/*
 * String s (at most KFIT_ARG_STRLEN bytes) as the arguments show it: quoted,
 * C escapes for what is not printable, into buf (4 * KFIT_ARG_STRLEN + 3
 * bytes hold any). Returns buf.
 */
const char *kfit_argfmt_quote(const char *s, char *buf, size_t len);

/*
 * A call's n arguments, "count=4096 name=\"/etc/passwd\"" (strings quoted
 * with C escapes, "?" for a value not read), into buf. Returns buf.
 */
const char *kfit_argfmt_text(const struct kfit_argfmt *f, int n, const struct kfit_argview *a,
			     char *buf, size_t len);

/* The same as a JSON object under key: numbers, strings, null when unread */
void kfit_argfmt_json(struct kfit_json *j, const char *key, const struct kfit_argfmt *f,
		      int n, const struct kfit_argview *a);

/* Add a name for value v to f's enum table: 0 or -ENOMEM */
int kfit_argfmt_add_enum(struct kfit_argfmt *f, __s64 v, const char *name);

/* Free what f's n entries own (not f) */
void kfit_argfmt_free(struct kfit_argfmt *f, int n);

/*
 * The lines under a tool's output for calls whose arguments were not kept
 * (no_args) or had a string not in memory (str_faults); nothing for 0
 */
void kfit_argfmt_notes(FILE *f, __u64 no_args, __u64 str_faults);

/* A view of funcdur's values */
struct kfit_argview kfit_argview_of(const struct kfit_argvals *a);
/* A view of a call record's (callgraph's, a recording's) */
struct kfit_argview kfit_argview_of_rec(const struct kfit_rec_args *a);

#endif
