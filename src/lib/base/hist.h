/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_UHIST_H
#define KFIT_UHIST_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "kfit/hist.h"

#define KFIT_HIST_LOG2_SLOTS 65	/* bucket 0 holds 0, bucket k holds [2^(k-1), 2^k) */

/* Record one value (user-space aggregation and tests). */
void kfit_hist_record(struct kfit_hist *h, __u64 v);
/* dst += src, keeping min and max right. */
void kfit_hist_merge(struct kfit_hist *dst, const struct kfit_hist *src);
void kfit_linhist_merge(struct kfit_linhist *dst, const struct kfit_linhist *src);
/*
 * Value at quantile q (0..1): the midpoint of the slot holding it,
 * clamped to [min, max]. 0 when the histogram is empty.
 */
__u64 kfit_hist_percentile(const struct kfit_hist *h, double q);
/* Exact log2 buckets derived from the log-linear slots. */
void kfit_hist_log2(const struct kfit_hist *h, __u64 out[KFIT_HIST_LOG2_SLOTS]);
/* bcc-style log2 histogram of nanosecond values, with bars. */
void kfit_hist_print_log2(FILE *f, const struct kfit_hist *h, const char *label);
/* Linear histogram in steps of step ns; the last row counts the overflow. */
void kfit_hist_print_linear(FILE *f, const struct kfit_linhist *h, __u64 step,
			    const char *label);

struct kfit_json;

/*
 * "hist": [{"lower_ns", "count"}] of the non-empty buckets: log2 buckets
 * of h, or with lin_step the linear buckets of l.
 */
void kfit_hist_json(struct kfit_json *j, const struct kfit_hist *h,
		    const struct kfit_linhist *l, __u64 lin_step);

/* --linear STEP for tool: a duration with a unit, > 0; -1 after a message */
int kfit_hist_parse_linear(const char *tool, const char *arg, __u64 *step);

/*
 * The histogram options of a tool's parse callback: -H, and --linear STEP
 * (key linear_key), which implies -H. 0 taken, -1 after a message, 1 when
 * key is neither.
 */
int kfit_hist_parse_opt(const char *tool, int key, int linear_key, const char *arg,
			bool *hist, __u64 *step);

/*
 * A value's power-of-2 bucket (calltime.h's ct_log2_bucket: 0; k for
 * 2^(k-1) .. 2^k - 1; -k for -(2^k - 1) .. -2^(k-1)) as its range, lo
 * and hi (a positive bucket's as unsigned numbers: 1 on return), and as
 * text, "32 -> 63"
 */
int kfit_log2_bucket_range(__s64 b, __s64 *lo, __s64 *hi);
const char *kfit_log2_bucket_str(__s64 b, char *buf, size_t len);

#endif
