/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_LIVE_ARGS_H
#define KFIT_LIVE_ARGS_H

#include "argexpr.h"
#include "argfmt.h"
#include "output.h"
#include "kfit/args.h"
#include "target.h"

/*
 * The arguments l asks for, resolved for function i of t: from BTF for
 * kernel functions, the tracepoint's format for system calls, the types
 * given (or DWARF) for user functions. A parameter the function lacks
 * leaves its slot unused (kfit_args_check decides). 0, or -EINVAL after
 * saying why, or -ENOMEM.
 */
int kfit_args_resolve_one(struct kfit_targets *t, int i, const struct kfit_arglist *l,
			  const char *spec);

/*
 * After resolving the n functions idx names (those of one target): an
 * argument none of them has is an error naming the first one's
 * parameters (-EINVAL); one some lack is a note.
 */
int kfit_args_check(const struct kfit_targets *t, const int *idx, int n,
		    const struct kfit_arglist *l, const char *spec);

/* Forget fn's arguments */
void kfit_args_clear(struct kfit_targets_func *fn);

/* Whether any traced function captures arguments */
bool kfit_args_any(const struct kfit_targets *t);

/* The slot of fn's argument labelled label, or -1 */
int kfit_args_slot(const struct kfit_targets_func *fn, const char *label);

/* One value of fn's argument i as its type reads: "4096", "0x7ffd5c1e2a40", "true" */
const char *kfit_args_value_str(const struct kfit_targets_func *fn, int i, __u64 v,
				char *buf, size_t len);

/*
 * A call's arguments, "count=4096 name=\"/etc/passwd\"" (strings escaped,
 * "?" for a value that could not be read), into buf. Returns buf.
 */
const char *kfit_args_text(const struct kfit_targets_func *fn, const struct kfit_argvals *a,
			   char *buf, size_t len);

/* The same as a JSON object under key: numbers, strings, null when unread */
void kfit_args_json(struct kfit_json *j, const char *key, const struct kfit_targets_func *fn,
		    const struct kfit_argvals *a);

/* What fn's calls capture, for the BPF side's fargs map (no filter operands) */
void kfit_args_fargs(const struct kfit_targets_func *fn, struct kfit_fargs *fa);

#endif
