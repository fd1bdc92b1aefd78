/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_FPATHS_H
#define KFIT_FPATHS_H

#include <stdio.h>
#include <linux/types.h>

/*
 * Calls by their path: the functions from the top-level call down to
 * them ("main_loop;work;leaf", an interrupt's as "softirq NET_RX;f"),
 * each with its calls, total and local time. Filled a subtree at a time
 * as a streaming decoder lets them go (kfit_ctree_opts.on_root): memory
 * grows with the distinct paths, not the calls. kd --diff compares two.
 */
struct kfit_fpath {
	char *path;
	__u64 count, total_ns, local_ns;
};

struct kfit_fpaths {
	struct kfit_fpath *v;
	int n, cap;
	void *set;	/* path -> index */
};

struct kfit_ctree;
struct kfit_cnode;

/* root's calls (itself and those under it) into p: 0 or -ENOMEM */
int kfit_fpaths_add_tree(struct kfit_fpaths *p, const struct kfit_ctree *t,
			 const struct kfit_cnode *root);
void kfit_fpaths_free(struct kfit_fpaths *p);

struct kfit_fdiff_opts;

/*
 * The paths of both runs a and b, by the change of their total time,
 * what got slower first: "PATH  TOTAL BEFORE -> AFTER +N%  COUNT ...", the
 * first o->top (0: 20), those that changed less than o->min_change
 * percent left out; the paths of one run only counted. 0 or -ENOMEM.
 */
int kfit_fpaths_diff_table(FILE *f, const struct kfit_fpaths *a, const struct kfit_fpaths *b,
			   const struct kfit_fdiff_opts *o);
struct kfit_json;
/*
 * The same paths as the table, into the caller's open object: "paths":
 * [{"path", BEFORE: {"count","total_ns","local_ns"}, AFTER: {...},
 * "change_pct" (total; null from 0)}], "paths_not_shown",
 * "paths_only_before", "paths_only_after". 0 or -ENOMEM.
 */
int kfit_fpaths_diff_json(struct kfit_json *j, const struct kfit_fpaths *a,
			  const struct kfit_fpaths *b, const struct kfit_fdiff_opts *o);
/* Differential folded stacks: "PATH BEFORE_NS AFTER_NS" (local time), flamegraph's difffolded */
int kfit_fpaths_diff_folded(FILE *f, const struct kfit_fpaths *a, const struct kfit_fpaths *b);
struct kfit_export_svg_opts;
/*
 * The same paths as a differential flame graph (kfit_export_diff_svg):
 * widths from b's time, colours from the change of each frame's local
 * time from a's. 0, -ENOMEM or -EIO.
 */
int kfit_fpaths_diff_svg(FILE *f, const struct kfit_fpaths *a, const struct kfit_fpaths *b,
			 const struct kfit_export_svg_opts *o);

#endif
