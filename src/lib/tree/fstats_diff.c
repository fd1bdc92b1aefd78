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

void kfit_fstats_diff_cell(struct kfit_table *t, bool count, __u64 a, __u64 b)
{
	char x[32], y[32], c[24] = "";
	double p = change(a, b);

	if (!isnan(p))
		snprintf(c, sizeof(c), " %+.1f%%", p);
	kfit_table_cell(t, "%s -> %s%s", fig(count, a, x, sizeof(x)),
			fig(count, b, y, sizeof(y)), c);
}

static unsigned int fields_of(const struct kfit_fdiff_opts *o)
{
	return (o->fields ? o->fields : DIFF_FIELDS) & ~(1U << KFIT_FF_MAXSUB);
}

int kfit_fstats_diff_table(FILE *f, const struct kfit_fstats *a, const struct kfit_fstats *b,
			   const struct kfit_fdiff_opts *o)
{
	static const char *const names[KFIT_FF_N] = {
		"COUNT", "TOTAL", "AVG", "MIN", "MAX", "LOCAL", "P50", "P99", "MAX-SUB",
	};
	enum kfit_ffield key = by_sort[o->sort];
	const char *hdr[KFIT_FF_N + 1] = { "FUNCTION" };
	char align[KFIT_FF_N + 2] = "l";
	unsigned int fields = fields_of(o);
	int n, i, k, cols = 1, shown = 0, hidden = 0, only = 0;
	struct kfit_table *t;
	struct drow *r;

	r = rows_of(a, b, key, &n);
	if (!r)
		return -ENOMEM;
	qsort(r, n, sizeof(*r), cmp_rows);
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
		if (!both(&r[i])) {
			only++;
			continue;
		}
		if (!kfit_fstats_diff_changed(value(a, r[i].a, key), value(b, r[i].b, key),
					      o->min_change) ||
		    (o->top && (unsigned long)shown >= o->top)) {
			hidden++;
			continue;
		}
		shown++;
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
