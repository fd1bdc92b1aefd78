/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_FSTATS_H
#define KFIT_FSTATS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "kfit/hist.h"

/*
 * KFI's kd summary of function calls: per function COUNT TOTAL AVG MIN
 * MAX LOCAL P50 P99 MAX-SUB, sorted and cut to the top N, as a table,
 * histograms or JSON. funcdur fills it from its BPF maps, callgraph and
 * kd from a finished call tree: one look for all of them.
 */

enum kfit_fsort { KFIT_FSORT_TIME, KFIT_FSORT_LOCAL, KFIT_FSORT_COUNT,
		  KFIT_FSORT_AVG, KFIT_FSORT_MAX };

/* The table's columns after FUNCTION (always shown), KFI's -f */
enum kfit_ffield {
	KFIT_FF_COUNT, KFIT_FF_TIME, KFIT_FF_AVG, KFIT_FF_MIN, KFIT_FF_MAX,
	KFIT_FF_LOCAL, KFIT_FF_P50, KFIT_FF_P99, KFIT_FF_MAXSUB, KFIT_FF_N
};

/* One function's figures */
struct kfit_fstat {
	const char *name;	/* the caller's */
	bool hidden;		/* not traced after all: left out of every report */
	struct kfit_hist h;	/* durations */
	struct kfit_linhist l;	/* with lin_step */
	__u64 local_ns;		/* durations minus the traced callees' */
	__u64 filtered;		/* calls left out by --min/--max */
	int max_sub;		/* the traced callee with the most time, -1: none */
	__u64 max_sub_ns;
	const char *by;		/* with by_title: the value its calls share, as shown */
	__s64 by_value;
	__s8 by_range;		/* a bucket of values, by_value to by_hi: 1 unsigned, -1 signed */
	__s64 by_hi;
	const char *by_str;	/* ... a string's text (by_value its hash), NULL for a number */
};

struct kfit_fstats {
	struct kfit_fstat *f;
	int n;
	enum kfit_fsort sort;
	unsigned long top;	/* show the first top functions; 0: all */
	__u64 lin_step;		/* histograms and JSON: linear buckets; 0: log2 */
	__u64 incomplete;	/* from a tree: calls that never returned, not counted */
	unsigned int fields;	/* the table's columns, 1 << KFIT_FF_*; 0: all */
	struct kfit_fedges *edges;	/* from trees: callee time by caller, till the end */
	/*
	 * Rows of a function's calls grouped by a value (--by ret): the
	 * column's title ("RET") and JSON member ("ret"); rows come in the
	 * order given (keep_order), the caller's
	 */
	const char *by_title, *by_key;
	bool keep_order;
};

/* What the notes under the table say; zero fields say nothing */
struct kfit_fnotes {
	bool has_min, has_max;	/* "N calls outside [MIN, MAX] left out" */
	__u64 min_ns, max_ns;
	__u64 too_deep;		/* "N calls nested deeper than MAX_DEPTH not measured" */
	int max_depth;
	__u64 no_stack;		/* "N calls not measured: too many threads at once" */
	__u64 missed;		/* "N probe runs missed: ..." */
};

/* n functions, no figures, no names (sort, top and lin_step stay); 0 or -ENOMEM */
int kfit_fstats_init(struct kfit_fstats *s, int n);
void kfit_fstats_free(struct kfit_fstats *s);
/* A function's figures back to none (each report of an interval) */
void kfit_fstats_reset(struct kfit_fstat *f);
/* Calls of child inside parent took ns in all: max-sub if the most */
void kfit_fstats_edge(struct kfit_fstats *s, int parent, int child, __u64 ns);
/* -s KEY: time, local, count, avg or max; -1 after a message naming tool */
int kfit_fstats_parse_sort(const char *tool, const char *arg, enum kfit_fsort *key);
/* -n N: the top N functions (up to a million); -1 after a message naming tool */
int kfit_fstats_parse_top(const char *tool, const char *arg, unsigned long *top);
/*
 * -f LIST: a comma list of count, time, avg, min, max, local, p50, p99,
 * maxsub (the table's columns, in the table's order whatever the list's)
 * into *mask; -1 after a message naming tool
 */
int kfit_fstats_parse_fields(const char *tool, const char *arg, unsigned int *mask);
/* A column's figure: a count, or ns (max-sub: the callee's time) */
__u64 kfit_fstats_value(const struct kfit_fstat *f, enum kfit_ffield k);
/* The figure that sort key orders by, of a histogram and its local time */
__u64 kfit_fstats_key_value(const struct kfit_hist *h, __u64 local_ns, enum kfit_fsort key);
/* Indexes of the shown functions in report order, *n of them; NULL: no memory */
int *kfit_fstats_sorted(const struct kfit_fstats *s, int *n);

/* The table (the columns of s->fields), then the notes */
void kfit_fstats_table(FILE *f, const struct kfit_fstats *s, const struct kfit_fnotes *nt);
/* A histogram per called function, then the notes */
void kfit_fstats_hists(FILE *f, const struct kfit_fstats *s, const struct kfit_fnotes *nt);
void kfit_fstats_notes(FILE *f, const struct kfit_fstats *s, const struct kfit_fnotes *nt);

/* Two runs compared (fstats_diff.c, kd --diff) */
struct kfit_fdiff_opts {
	enum kfit_fsort sort;	/* by the change of this column, slower first */
	unsigned long top;	/* the first top functions; 0: all */
	unsigned int fields;	/* 1 << KFIT_FF_*; 0: count, time, local, p50, p99 */
	double min_change;	/* percent: functions that changed less not shown */
	const char *before, *after;	/* the runs' names */
};

/*
 * A function of both runs a (before) and b (after), matched by name, per
 * row: each column "BEFORE -> AFTER +N%", sorted by the change of o->sort's
 * column, what got slower first; then those called in one run only.
 * 0 or -ENOMEM.
 */
int kfit_fstats_diff_table(FILE *f, const struct kfit_fstats *a, const struct kfit_fstats *b,
			   const struct kfit_fdiff_opts *o);
/*
 * What the diff tables share (the call paths' too): a figure before and
 * after as "A -> B +N%" (count: a number, else a duration; no percent
 * from 0), and whether it changed by min percent at least (from 0: yes)
 */
struct kfit_table;
void kfit_fstats_diff_cell(struct kfit_table *t, bool count, __u64 a, __u64 b);
bool kfit_fstats_diff_changed(__u64 a, __u64 b, double min);
/* The cell's percent, "+N.N%", into buf; NULL from 0 */
const char *kfit_fstats_diff_pct(__u64 a, __u64 b, char *buf, size_t len);

struct kfit_json;

/*
 * The same rows as the table, into the caller's open object:
 * "functions": [{"name", BEFORE: {"count","total_ns","avg_ns","min_ns",
 * "max_ns","local_ns","p50_ns","p99_ns"} or null, AFTER: the same,
 * "change_pct" (of o->sort's column; null from 0) or "only_in": BEFORE or
 * AFTER}], "functions_not_shown". BEFORE, AFTER: o's run names.
 * 0 or -ENOMEM.
 */
int kfit_fstats_diff_json(struct kfit_json *j, const struct kfit_fstats *a,
			  const struct kfit_fstats *b, const struct kfit_fdiff_opts *o);
/* key: b's percent change from a, a number, or null from 0 */
void kfit_fstats_diff_json_change(struct kfit_json *j, const char *key, __u64 a, __u64 b);

/*
 * "functions": [{"name","count","total_ns","avg_ns","min_ns","max_ns",
 * "local_ns","p50_ns","p99_ns","filtered","max_sub":{"name","total_ns"}
 * or null,"hist":[...]}] into the caller's open object
 */
void kfit_fstats_json(struct kfit_json *j, const struct kfit_fstats *s);

struct kfit_ctree;

/*
 * The figures of a finished call tree (calltree.h), s set up with its
 * function table (same ids, same size): each call counted once, recursive
 * ones too; local time as the tree has it; max-sub over the direct callees
 * on the same stack. Interrupts, LOST stand-ins and markers are no calls;
 * calls that never returned are not counted (s->incomplete says how many).
 * 0 or -ENOMEM.
 */
int kfit_fstats_from_tree(struct kfit_fstats *s, const struct kfit_ctree *t);

/*
 * The same a subtree at a time, as a streaming decoder lets them go
 * (kfit_ctree_opts.on_root): root and every call under it, in any order
 * of subtrees; kfit_fstats_end_trees once they are all in (max-sub is
 * of the whole run's sums). 0 or -ENOMEM.
 */
struct kfit_cnode;
struct kfit_ctree;
struct kfit_cthread;
struct kfit_rec_call;
int kfit_fstats_add_tree(struct kfit_fstats *s, const struct kfit_cnode *root);
/*
 * A top-level call that has no callee, from its record: as its subtree
 * would (stats: a struct kfit_fstats; a kfit_ctree_leaf_fn)
 */
int kfit_fstats_add_leaf(void *stats, const struct kfit_ctree *t, const struct kfit_cthread *th,
			 const struct kfit_rec_call *r);
void kfit_fstats_end_trees(struct kfit_fstats *s);

#endif
