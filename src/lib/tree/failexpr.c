// SPDX-License-Identifier: GPL-2.0
/*
 * --errors EXPR over the calls of a tree (failexpr.h): the expression is
 * parsed once against every argument name the functions have, and each
 * function's operands mapped to its own slots; a call's node then gives
 * the values, the interpreter BPF runs for funcdur says whether it failed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "failexpr.h"
#include "filter.h"

struct kfit_failexpr {
	struct kfit_filter f;
	const struct kfit_fargfmt *fargs;
	int nfuncs;
	__u8 (*slot)[KFIT_ARGS_MAX];	/* per function: operand k's slot, or KFIT_NO_SLOT */
	__u64 noval;
};

/* The functions' labels, each once: the names an expression may read */
static int label_set(const struct kfit_fargfmt *fargs, int nfuncs, const char ***out, int *n)
{
	const char **v = NULL, **nv;
	int i, k, j;

	*n = 0;
	for (i = 0; fargs && i < nfuncs; i++) {
		for (k = 0; k < fargs[i].n; k++) {
			const char *l = fargs[i].a[k].label;

			for (j = 0; j < *n && strcmp(v[j], l); j++)
				;
			if (j < *n || !fargs[i].a[k].present)
				continue;
			nv = realloc(v, (*n + 1) * sizeof(*v));
			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
			v[(*n)++] = l;
		}
	}
	*out = v;
	return 0;
}

/* Operand k of the expression is slot of function i, or none */
static void map_slots(struct kfit_failexpr *x)
{
	const struct kfit_fargfmt *fa;
	int i, k, s;

	for (i = 0; i < x->nfuncs; i++) {
		fa = x->fargs ? &x->fargs[i] : NULL;
		for (k = 0; k < KFIT_ARGS_MAX; k++) {
			x->slot[i][k] = KFIT_NO_SLOT;
			for (s = 0; fa && k < x->f.nnames && s < fa->n; s++)
				if (fa->a[s].present && !strcmp(fa->a[s].label, x->f.names[k]))
					x->slot[i][k] = s;
		}
	}
}

int kfit_failexpr_new(const char *expr, const struct kfit_fargfmt *fargs, int nfuncs,
		      struct kfit_failexpr **out)
{
	struct kfit_failexpr *x = calloc(1, sizeof(*x));
	const char **names = NULL;
	char err[512];
	int n, rc;

	if (!x) {
		kfit_err("%s", kfit_reason(-ENOMEM));
		return -ENOMEM;
	}
	x->slot = calloc(nfuncs + 1, sizeof(*x->slot));
	rc = x->slot ? label_set(fargs, nfuncs, &names, &n) : -ENOMEM;
	if (!rc)
		rc = kfit_filter_parse(expr, names, n, &x->f, err, sizeof(err));
	free(names);
	if (rc == -EINVAL)
		kfit_err("--errors '%s': %s", expr, err);
	else if (rc)
		kfit_err("%s", kfit_reason(rc));
	if (rc) {
		free(x->slot);
		free(x);
		return rc;
	}
	x->fargs = fargs;
	x->nfuncs = nfuncs;
	map_slots(x);
	*out = x;
	return 0;
}

void kfit_failexpr_free(struct kfit_failexpr *x)
{
	if (!x)
		return;
	kfit_filter_free(&x->f);
	free(x->slot);
	free(x);
}

/* The values the program reads of call n of th */
static void values(const struct kfit_failexpr *x, const struct kfit_cthread *th,
		   const struct kfit_cnode *n, struct kfit_fvals *v)
{
	const __u8 *slot = n->id < (__u32)x->nfuncs ? x->slot[n->id] : NULL;
	int k;

	memset(v, 0, sizeof(*v));
	v->ret = n->ret;
	v->pid = th->pid;
	v->tid = th->tid;
	v->cpu = n->cpu;
	v->comm_eq = x->f.has_comm && !strncmp(th->comm, x->f.comm, sizeof(th->comm));
	for (k = 0; slot && n->args && k < x->f.nnames; k++) {
		if (slot[k] == KFIT_NO_SLOT || !(n->args->ok & (1U << slot[k])))
			continue;
		v->arg[k] = n->args->v[slot[k]];
		v->have |= 1U << k;
	}
}

static bool failed(void *ctx, const struct kfit_cthread *th, const struct kfit_cnode *n)
{
	struct kfit_failexpr *x = ctx;
	struct kfit_fvals v;
	int r;

	/* a return value it reads: a call that returned none (void) has not failed */
	if (x->f.uses_ret && !kfit_cnode_has_ret(n))
		return false;
	values(x, th, n, &v);
	r = kfit_filter_run(x->f.insn, x->f.n, &v);
	if (r == KFIT_FILTER_NOVAL)
		x->noval++;
	return r == 1;
}

void kfit_failexpr_use(struct kfit_failexpr *x, struct kfit_ctree_opts *opts)
{
	opts->failed = failed;
	opts->failed_ctx = x;
}

__u64 kfit_failexpr_noval(const struct kfit_failexpr *x)
{
	return x ? x->noval : 0;
}
