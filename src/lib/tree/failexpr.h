/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_FAILEXPR_H
#define KFIT_FAILEXPR_H

#include <stdbool.h>
#include <stddef.h>
#include "argfmt.h"
#include "calltree.h"

/*
 * --errors EXPR for callgraph and kd: what failing is, over a call's
 * arguments (by the names the targets gave them), ret, pid, tid, cpu and
 * comm, as funcdur's --errors EXPR says it in BPF ('ret == 0' for a user
 * function that returns 0 on failure). Run on each call of a finished
 * tree (kfit_ctree_opts.failed), by filter.h's interpreter.
 */
struct kfit_failexpr;

/*
 * expr compiled for the functions of fargs (nfuncs of them: how their
 * arguments print, their labels): 0, or -EINVAL or -ENOMEM, said
 * (kfit_err: "--errors 'EXPR': at column N: ...", the known names)
 */
int kfit_failexpr_new(const char *expr, const struct kfit_fargfmt *fargs, int nfuncs,
		      struct kfit_failexpr **out);
void kfit_failexpr_free(struct kfit_failexpr *x);

/* The tree's test: set opts->failed and failed_ctx to x's */
void kfit_failexpr_use(struct kfit_failexpr *x, struct kfit_ctree_opts *opts);

/* Calls it could not decide: an argument it reads not kept */
__u64 kfit_failexpr_noval(const struct kfit_failexpr *x);

#endif
