/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_CGVIEW_INT_H
#define KFIT_CGVIEW_INT_H

/* What cgview.c and cgview_opts.c share: the streamed summary */
#include "calltree.h"

struct kfit_cgview_sum *kfit_cgview_sum_new(int nfuncs);
void kfit_cgview_sum_free(struct kfit_cgview_sum *s);
/* A kfit_ctree_root_fn: the subtree's calls into the summary */
int kfit_cgview_sum_root(void *sum, const struct kfit_ctree *t, const struct kfit_cnode *root);

#endif
