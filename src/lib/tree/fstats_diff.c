// SPDX-License-Identifier: GPL-2.0
/*
 * Two runs' kd summaries compared (fstats.h): per function, each column
 * before and after and how it changed, what got slower first; the
 * functions called in one run only apart.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "duration.h"
#include "fstats.h"
#include "output.h"
#include "strset.h"

/* A function of either run: its index in each, -1 where it was not called */
struct drow {
	const char *name;
	int a, b;
	double delta;		/* the sort column's after - before */
	bool shown;		/* of both runs, past the threshold and within -n */
};

/* The rows as the table and the JSON show them */
struct dsel {
	struct drow *r;
	int n, hidden, only;
};

static const enum kfit_ffield by_sort[] = {
	[KFIT_FSORT_TIME] = KFIT_FF_TIME, [KFIT_FSORT_LOCAL] = KFIT_FF_LOCAL,
	[KFIT_FSORT_COUNT] = KFIT_FF_COUNT, [KFIT_FSORT_AVG] = KFIT_FF_AVG,
	[KFIT_FSORT_MAX] = KFIT_FF_MAX,
};

#define DIFF_FIELDS (1U << KFIT_FF_COUNT | 1U << KFIT_FF_TIME | 1U << KFIT_FF_LOCAL | \
		     1U << KFIT_FF_P50 | 1U << KFIT_FF_P99)

static bool called(const struct kfit_fstats *s, int i)
{
	return i >= 0 && !s->f[i].hidden && s->f[i].h.count;
}

static __u64 value(const struct kfit_fstats *s, int i, enum kfit_ffield k)
{
	return called(s, i) ? kfit_fstats_value(&s->f[i], k) : 0;
}

/* The percent change of a's figure to b's; NAN where a's is 0 */
static double change(__u64 a, __u64 b)
{
	return a ? ((double)b - (double)a) * 100.0 / a : NAN;
}

/* Every function called in a or b, matched by name; NULL: no memory */
static struct drow *rows_of(const struct kfit_fstats *a, const struct kfit_fstats *b,
			    enum kfit_ffield key, int *n)
{
	struct drow *r = calloc(a->n + b->n + 1, sizeof(*r));
	struct kfit_strset set = { 0 };
	int i, k;

	*n = 0;
	if (!r)
		return NULL;
	for (i = 0; i < a->n; i++) {
		if (!called(a, i) || !a->f[i].name || kfit_strset_add(&set, a->f[i].name, *n) <= 0)
			continue;
		r[(*n)++] = (struct drow){ .name = a->f[i].name, .a = i, .b = -1 };
	}
	for (i = 0; i < b->n; i++) {
		if (!called(b, i) || !b->f[i].name)
			continue;
		k = kfit_strset_get(&set, b->f[i].name);
		if (k >= 0) {
			r[k].b = i;
			continue;
		}
		if (kfit_strset_add(&set, b->f[i].name, *n) < 0) {
			free(r);
			r = NULL;
			break;
		}
		r[(*n)++] = (struct drow){ .name = b->f[i].name, .a = -1, .b = i };
	}
	kfit_strset_free(&set);
	for (i = 0; r && i < *n; i++)
		r[i].delta = (double)value(b, r[i].b, key) - (double)value(a, r[i].a, key);
	return r;
}

/* What got slower first, what got faster last; ties by name */
static int cmp_rows(const void *x, const void *y)
{
	const struct drow *p = x, *q = y;

	if (p->delta != q->delta)
		return p->delta < q->delta ? 1 : -1;
	return strcmp(p->name, q->name);
}

static bool both(const struct drow *r)
{
	return r->a >= 0 && r->b >= 0;
}

/* Changed by at least min percent of its before figure (which may be 0) */
bool kfit_fstats_diff_changed(__u64 a, __u64 b, double min)
{
	double c = change(a, b);

	return min <= 0 || isnan(c) || fabs(c) >= min;
}

static const char *fig(bool count, __u64 v, char *buf, size_t len)
{
	if (count)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		kfit_duration_fmt(v, buf, len);
	return buf;
}

const char *kfit_fstats_diff_pct(__u64 a, __u64 b, char *buf, size_t len)
{
	double p = change(a, b);

	if (isnan(p))
		return NULL;
	snprintf(buf, len, "%+.1f%%", p);
	return buf;
}

void kfit_fstats_diff_cell(struct kfit_table *t, bool count, __u64 a, __u64 b)
{
	char x[32], y[32], c[24];
	const char *p = kfit_fstats_diff_pct(a, b, c, sizeof(c));

	kfit_table_cell(t, "%s -> %s%s%s", fig(count, a, x, sizeof(x)),
			fig(count, b, y, sizeof(y)), p ? " " : "", p ? p : "");
}

static unsigned int fields_of(const struct kfit_fdiff_opts *o)
{
	return (o->fields ? o->fields : DIFF_FIELDS) & ~(1U << KFIT_FF_MAXSUB);
}

/* Sorted, what got slower first, each row's shown set: 0 or -ENOMEM */
static int select_rows(const struct kfit_fstats *a, const struct kfit_fstats *b,
		       const struct kfit_fdiff_opts *o, struct dsel *d)
{
	enum kfit_ffield key = by_sort[o->sort];
	unsigned long shown = 0;
	int i;

	memset(d, 0, sizeof(*d));
	d->r = rows_of(a, b, key, &d->n);
	if (!d->r)
		return -ENOMEM;
	qsort(d->r, d->n, sizeof(*d->r), cmp_rows);
	for (i = 0; i < d->n; i++) {
		struct drow *r = &d->r[i];

		if (!both(r)) {
			d->only++;
			continue;
		}
		if (!kfit_fstats_diff_changed(value(a, r->a, key), value(b, r->b, key),
					      o->min_change) || (o->top && shown >= o->top)) {
			d->hidden++;
			continue;
		}
		r->shown = true;
		shown++;
	}
	return 0;
}

int kfit_fstats_diff_table(FILE *f, const struct kfit_fstats *a, const struct kfit_fstats *b,
			   const struct kfit_fdiff_opts *o)
{
	static const char *const names[KFIT_FF_N] = {
		"COUNT", "TOTAL", "AVG", "MIN", "MAX", "LOCAL", "P50", "P99", "MAX-SUB",
	};
	const char *hdr[KFIT_FF_N + 1] = { "FUNCTION" };
	char align[KFIT_FF_N + 2] = "l";
	unsigned int fields = fields_of(o);
	int i, k, cols = 1, hidden, only, n;
	struct kfit_table *t;
	struct drow *r;
	struct dsel d;

	if (select_rows(a, b, o, &d))
		return -ENOMEM;
	r = d.r;
	n = d.n;
	hidden = d.hidden;
	only = d.only;
	for (k = 0; k < KFIT_FF_N; k++) {
		if (!(fields & 1U << k))
			continue;
		hdr[cols] = names[k];
		align[cols++] = 'r';
	}
	t = kfit_table_new(cols, hdr, align);
	if (!t) {
		free(r);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (!r[i].shown)
			continue;
		kfit_table_row(t);
		kfit_table_cell(t, "%s", r[i].name);
		for (k = 0; k < KFIT_FF_N; k++)
			if (fields & 1U << k)
				kfit_fstats_diff_cell(t, k == KFIT_FF_COUNT, value(a, r[i].a, k),
						      value(b, r[i].b, k));
	}
	kfit_table_print(t, f);
	kfit_table_free(t);
	if (hidden)
		fprintf(f, "%d function%s changed less than %g%% or past -n: not shown\n", hidden,
			hidden == 1 ? "" : "s", o->min_change);
	for (i = 0; i < n && only; i++) {
		char d[32];
		int side = r[i].a >= 0;
		const struct kfit_fstat *x = side ? &a->f[r[i].a] : &b->f[r[i].b];

		if (both(&r[i]))
			continue;
		kfit_duration_fmt(x->h.total, d, sizeof(d));
		fprintf(f, "only in %s: %s (%llu call%s, %s)\n", side ? o->before : o->after,
			r[i].name, (unsigned long long)x->h.count, x->h.count == 1 ? "" : "s", d);
	}
	free(r);
	return 0;
}

/* One run's figures of a function, or null where it was not called there */
static void json_side(struct kfit_json *j, const char *key, const struct kfit_fstats *s, int i)
{
	static const char *const keys[KFIT_FF_N] = {
		[KFIT_FF_COUNT] = "count", [KFIT_FF_TIME] = "total_ns", [KFIT_FF_AVG] = "avg_ns",
		[KFIT_FF_MIN] = "min_ns", [KFIT_FF_MAX] = "max_ns", [KFIT_FF_LOCAL] = "local_ns",
		[KFIT_FF_P50] = "p50_ns", [KFIT_FF_P99] = "p99_ns",
	};
	int k;

	if (!called(s, i)) {
		kfit_json_null(j, key);
		return;
	}
	kfit_json_begin_object(j, key);
	for (k = 0; k < KFIT_FF_N; k++)
		if (keys[k])
			kfit_json_u64(j, keys[k], kfit_fstats_value(&s->f[i], k));
	kfit_json_end_object(j);
}

/* A percent change, or null from 0 */
void kfit_fstats_diff_json_change(struct kfit_json *j, const char *key, __u64 a, __u64 b)
{
	double c = change(a, b);

	if (isnan(c))
		kfit_json_null(j, key);
	else
		kfit_json_double(j, key, c);
}

int kfit_fstats_diff_json(struct kfit_json *j, const struct kfit_fstats *a,
			  const struct kfit_fstats *b, const struct kfit_fdiff_opts *o)
{
	enum kfit_ffield key = by_sort[o->sort];
	struct dsel d;
	int i;

	if (select_rows(a, b, o, &d))
		return -ENOMEM;
	kfit_json_begin_array(j, "functions");
	for (i = 0; i < d.n; i++) {
		const struct drow *r = &d.r[i];

		if (both(r) && !r->shown)
			continue;
		kfit_json_begin_object(j, NULL);
		kfit_json_str(j, "name", r->name);
		json_side(j, o->before, a, r->a);
		json_side(j, o->after, b, r->b);
		if (both(r))
			kfit_fstats_diff_json_change(j, "change_pct", value(a, r->a, key),
						     value(b, r->b, key));
		else
			kfit_json_str(j, "only_in", r->a >= 0 ? o->before : o->after);
		kfit_json_end_object(j);
	}
	kfit_json_end_array(j);
	kfit_json_u64(j, "functions_not_shown", d.hidden);
	free(d.r);
	return 0;
}
