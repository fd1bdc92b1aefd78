// SPDX-License-Identifier: GPL-2.0
/* User-space side of the log-linear histograms: merging, percentiles, printing. */
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include "duration.h"
#include "hist.h"
#include "output.h"

typedef unsigned __int128 u128;

#define BAR_WIDTH 40

void kfit_hist_record(struct kfit_hist *h, __u64 v)
{
	kfit_hist_put(h, v);
}

void kfit_hist_merge(struct kfit_hist *dst, const struct kfit_hist *src)
{
	int i;

	if (!src->count)
		return;
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (!dst->count || src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->total += src->total;
	for (i = 0; i < KFIT_HIST_SLOTS; i++)
		dst->slot[i] += src->slot[i];
}

void kfit_linhist_merge(struct kfit_linhist *dst, const struct kfit_linhist *src)
{
	int i;

	for (i = 0; i <= KFIT_LIN_SLOTS; i++)
		dst->slot[i] += src->slot[i];
}

/* Slots below 16 hold one value; above, 1/16 of their power of two */
static __u64 slot_width(__u32 idx)
{
	if (idx < KFIT_HIST_SUB)
		return 1;
	return 1ULL << (idx / KFIT_HIST_SUB - 1);
}

__u64 kfit_hist_percentile(const struct kfit_hist *h, double q)
{
	__u64 rank, seen = 0, v;
	double r;
	__u32 i;

	if (!h->count)
		return 0;
	if (!(q > 0))	/* also NaN */
		q = 0;
	if (q > 1)
		q = 1;
	r = q * (double)h->count;
	rank = r >= (double)h->count ? h->count : (__u64)r;
	if ((double)rank < r)
		rank++;		/* ceil, without libm */
	if (rank < 1)
		rank = 1;
	for (i = 0; i < KFIT_HIST_SLOTS; i++) {
		seen += h->slot[i];
		if (seen >= rank)
			break;
	}
	/* Slots and count read from live BPF maps may disagree by a few */
	if (i == KFIT_HIST_SLOTS)
		return h->max;
	v = kfit_hist_lower(i) + (slot_width(i) - 1) / 2;
	if (v < h->min)
		return h->min;
	if (v > h->max)
		return h->max;
	return v;
}

/*
 * No slot straddles a power of two, so each slot lands in exactly one
 * log2 bucket: the one of its lower bound.
 */
void kfit_hist_log2(const struct kfit_hist *h, __u64 out[KFIT_HIST_LOG2_SLOTS])
{
	__u64 lower;
	__u32 i;

	memset(out, 0, KFIT_HIST_LOG2_SLOTS * sizeof(out[0]));
	out[0] = h->slot[0];
	for (i = 1; i < KFIT_HIST_SLOTS; i++) {
		lower = kfit_hist_lower(i);
		out[kfit_msb64(lower) + 1] += h->slot[i];
	}
}

static void print_bar(FILE *f, __u64 val, __u64 max)
{
	int n = max ? (u128)val * BAR_WIDTH / max : 0;

	fprintf(f, "|%.*s%*s|\n", n, "****************************************",
		BAR_WIDTH - n, "");
}

/* Bucket k >= 1 holds [2^(k-1), 2^k): bucket 1 is "1 -> 1" */
static __u64 log2_low(int k)
{
	return k ? 1ULL << (k - 1) : 0;
}

/* 2^k - 1, without overflowing at k = 64 */
static __u64 log2_high(int k)
{
	return k ? (1ULL << (k - 1)) - 1 + (1ULL << (k - 1)) : 0;
}

void kfit_hist_print_log2(FILE *f, const struct kfit_hist *h, const char *label)
{
	__u64 b[KFIT_HIST_LOG2_SLOTS], max = 0;
	int first = -1, last = -1, k, w;

	kfit_hist_log2(h, b);
	for (k = 0; k < KFIT_HIST_LOG2_SLOTS; k++) {
		if (!b[k])
			continue;
		if (first < 0)
			first = k;
		last = k;
		if (b[k] > max)
			max = b[k];
	}
	if (first < 0)
		return;
	/* bcc's layout: wider columns once values reach 2^33 (~8.6 s) */
	w = last <= 33 ? 10 : 20;
	fprintf(f, "%*s%-*s : count    distribution\n", w - 5, "", w + 9,
		label ? label : "nsecs");
	for (k = first; k <= last; k++) {
		fprintf(f, "%*llu -> %-*llu : %-8llu ", w, log2_low(k), w,
			log2_high(k), b[k]);
		print_bar(f, b[k], max);
	}
}

/* i * step, saturated: the last bound of a huge step must not wrap */
static __u64 lin_bound(int i, __u64 step)
{
	u128 v = (u128)i * step;

	return v > UINT64_MAX ? UINT64_MAX : (__u64)v;
}

static int digits(__u64 v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

void kfit_hist_print_linear(FILE *f, const struct kfit_linhist *h, __u64 step,
			    const char *label)
{
	__u64 max = 0;
	int last = -1, i, w;

	for (i = 0; i <= KFIT_LIN_SLOTS; i++) {
		if (!h->slot[i])
			continue;
		last = i;
		if (h->slot[i] > max)
			max = h->slot[i];
	}
	if (last < 0 || !step)
		return;
	w = digits(lin_bound(last < KFIT_LIN_SLOTS ? last + 1 : last, step));
	/* "  >= " lower "  < " upper */
	fprintf(f, "  %-*s : count    distribution\n", 2 * w + 7,
		label ? label : "nsecs");
	for (i = 0; i <= last; i++) {
		if (i < KFIT_LIN_SLOTS)
			fprintf(f, "  >= %-*llu  < %-*llu : %-8llu ", w,
				lin_bound(i, step), w, lin_bound(i + 1, step),
				h->slot[i]);
		else
			fprintf(f, "  >= %-*llu  %*s : %-8llu ", w,
				lin_bound(i, step), w + 2, "", h->slot[i]);
		print_bar(f, h->slot[i], max);
	}
}

static void json_bucket(struct kfit_json *j, __u64 lower, __u64 count)
{
	kfit_json_begin_object(j, NULL);
	kfit_json_u64(j, "lower_ns", lower);
	kfit_json_u64(j, "count", count);
	kfit_json_end_object(j);
}

void kfit_hist_json(struct kfit_json *j, const struct kfit_hist *h,
		    const struct kfit_linhist *l, __u64 lin_step)
{
	__u64 b[KFIT_HIST_LOG2_SLOTS];
	int i;

	kfit_json_begin_array(j, "hist");
	if (lin_step) {
		for (i = 0; i <= KFIT_LIN_SLOTS; i++)
			if (l->slot[i])
				json_bucket(j, i * lin_step, l->slot[i]);
	} else {
		kfit_hist_log2(h, b);
		for (i = 0; i < KFIT_HIST_LOG2_SLOTS; i++)
			if (b[i])
				json_bucket(j, i ? 1ULL << (i - 1) : 0, b[i]);
	}
	kfit_json_end_array(j);
}

int kfit_hist_parse_linear(const char *tool, const char *arg, __u64 *step)
{
	if (kfit_duration_parse(arg, 0, step) || !*step) {
		fprintf(stderr, "%s: invalid step '%s' for --linear: use a "
			"duration with a unit, e.g. 10us\n", tool, arg);
		return -1;
	}
	return 0;
}

int kfit_hist_parse_opt(const char *tool, int key, int linear_key, const char *arg,
			bool *hist, __u64 *step)
{
	if (key != 'H' && key != linear_key)
		return 1;
	if (key == linear_key && kfit_hist_parse_linear(tool, arg, step))
		return -1;
	*hist = true;
	return 0;
}

int kfit_log2_bucket_range(__s64 b, __s64 *lo, __s64 *hi)
{
	__u64 k;

	if (b > 64 || b < -64)
		b = b > 0 ? 64 : -64;
	if (!b) {
		*lo = *hi = 0;
		return 0;
	}
	k = b > 0 ? b : -b;
	if (b > 0) {
		*lo = (__s64)(1ULL << (k - 1));
		*hi = k == 64 ? -1 : (__s64)((1ULL << k) - 1);
		return 1;
	}
	/* negated as unsigned: -2^63 has no positive counterpart */
	*lo = k == 64 ? INT64_MIN : (__s64)(0 - ((1ULL << k) - 1));
	*hi = (__s64)(0 - (1ULL << (k - 1)));
	return 0;
}

const char *kfit_log2_bucket_str(__s64 b, char *buf, size_t len)
{
	__s64 lo, hi;

	if (kfit_log2_bucket_range(b, &lo, &hi))
		snprintf(buf, len, "%llu -> %llu", (unsigned long long)lo,
			 (unsigned long long)hi);
	else if (lo == hi)
		snprintf(buf, len, "%lld", (long long)lo);
	else
		snprintf(buf, len, "%lld -> %lld", (long long)lo, (long long)hi);
	return buf;
}
