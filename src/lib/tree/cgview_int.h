/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_CGVIEW_INT_H
#define KFIT_CGVIEW_INT_H

/* What cgview.c, cgview_opts.c and cgview_timeline.c share */
#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "calltree.h"

struct kfit_cgview_func;
/* The views a struct kfit_cgview_sum makes as the tree streams */
struct kfit_cgview_sum_want {
	bool summary;		/* --summary's figures */
	bool flame;		/* --folded's and --svg's flame */
	bool text, json;	/* the tree's lines (json: -j's calls), spooled */
	bool perfetto;		/* --perfetto's trace */
	bool errors;		/* text and json: only the trees with a failure */
};
/* funcs: the kinds (the flame's colours, the trace's cat); origin: time 0 of text and trace */
struct kfit_cgview_sum *kfit_cgview_sum_new(const struct kfit_cgview_sum_want *w, int nfuncs,
					    const struct kfit_cgview_func *funcs,
					    const __u64 *origin);
void kfit_cgview_sum_free(struct kfit_cgview_sum *s);
/* A kfit_ctree_root_fn: the subtree's calls into the summary, its stacks into the flame */
int kfit_cgview_sum_root(void *sum, const struct kfit_ctree *t, const struct kfit_cnode *root);
/* A kfit_ctree_leaf_fn: the flame alone, a call with no callee into it */
int kfit_cgview_flame_leaf(void *sum, const struct kfit_ctree *t, const struct kfit_cthread *th,
			   const struct kfit_rec_call *r);
/* --errors streamed: the trees with a failure kept, those without left out */
void kfit_cgview_sum_trees(const struct kfit_cgview_sum *s, __u64 *kept, __u64 *left_out);
/* The summary's figures, that kfit_fstats_add_leaf sums into */
struct kfit_fstats *kfit_cgview_sum_stats(struct kfit_cgview_sum *s);

struct kfit_cgview_timeline;
/* The samples on a timeline, from t0, each a period of 1/hz (0: 1 ms) */
int kfit_cgview_timeline_write(const struct kfit_cgview_timeline *tl, __u64 t0,
			       unsigned int hz, FILE *f);
void kfit_cgview_timeline_free(struct kfit_cgview_timeline *tl);

#endif
