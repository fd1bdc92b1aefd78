// SPDX-License-Identifier: GPL-2.0
/* The kd summary of function calls (fstats.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calltree.h"
#include "duration.h"
#include "fstats.h"
#include "hist.h"
#include "opts.h"
#include "output.h"

/* From trees: caller and callee ids -> the callee's time in that caller */
struct edge {
	__u64 key;		/* parent << 32 | child, +1: 0 is free */
	__u64 ns;
};

struct kfit_fedges {
	struct edge *e;
	size_t cap, n;
};

int kfit_fstats_init(struct kfit_fstats *s, int n)
{
	int i;

	s->f = calloc(n > 0 ? n : 1, sizeof(*s->f));
	s->n = s->f ? n : 0;
	s->incomplete = 0;
	s->edges = NULL;
	if (!s->f)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		s->f[i].max_sub = -1;
	return 0;
}

void kfit_fstats_free(struct kfit_fstats *s)
{
	if (s->edges)
		free(s->edges->e);
	free(s->edges);
	s->edges = NULL;
	free(s->f);
	s->f = NULL;
	s->n = 0;
}

void kfit_fstats_reset(struct kfit_fstat *f)
{
	memset(&f->h, 0, sizeof(f->h));
	memset(&f->l, 0, sizeof(f->l));
	f->local_ns = f->filtered = 0;
	f->max_sub = -1;
	f->max_sub_ns = 0;
}

void kfit_fstats_edge(struct kfit_fstats *s, int parent, int child, __u64 ns)
{
	if (parent < 0 || parent >= s->n || child < 0 || child >= s->n)
		return;
	/* ties: the lower id, whatever order the edges come in */
	if (ns > s->f[parent].max_sub_ns ||
	    (ns && ns == s->f[parent].max_sub_ns && child < s->f[parent].max_sub)) {
		s->f[parent].max_sub_ns = ns;
		s->f[parent].max_sub = child;
	}
}

int kfit_fstats_parse_top(const char *tool, const char *arg, unsigned long *top)
{
	if (!kfit_opts_parse_uint(arg, 1000000, top))
		return 0;
	fprintf(stderr, "%s: invalid number '%s' for --top\n", tool, arg);
	return -1;
}

int kfit_fstats_parse_sort(const char *tool, const char *arg, enum kfit_fsort *key)
{
	static const char *const keys[] = { "time", "local", "count", "avg", "max" };
	unsigned int i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!strcmp(arg, keys[i])) {
			*key = i;
			return 0;
		}
	}
	fprintf(stderr, "%s: invalid sort key '%s': use time, local, count, avg or max\n",
		tool, arg);
	return -1;
}

static const char *const field_names[KFIT_FF_N] = {
	"count", "time", "avg", "min", "max", "local", "p50", "p99", "maxsub",
};

int kfit_fstats_parse_fields(const char *tool, const char *arg, unsigned int *mask)
{
	const char *p = arg, *end;
	unsigned int m = 0;
	size_t len;
	int i;

	for (; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ',');
		len = end - p;
		for (i = 0; i < KFIT_FF_N; i++)
			if (strlen(field_names[i]) == len && !strncmp(p, field_names[i], len))
				break;
		if (i == KFIT_FF_N) {
			fprintf(stderr, "%s: invalid field '%.*s' in '%s': use count, time, "
				"avg, min, max, local, p50, p99 or maxsub, separated by commas\n",
				tool, (int)len, p, arg);
			return -1;
		}
		m |= 1U << i;
	}
	if (!m) {
		fprintf(stderr, "%s: no field in '%s'\n", tool, arg);
		return -1;
	}
	*mask = m;
	return 0;
}

/* ---- order ------------------------------------------------------------ */

__u64 kfit_fstats_key_value(const struct kfit_hist *h, __u64 local_ns, enum kfit_fsort key)
{
	switch (key) {
	case KFIT_FSORT_LOCAL:
		return local_ns;
	case KFIT_FSORT_COUNT:
		return h->count;
	case KFIT_FSORT_AVG:
		return h->count ? h->total / h->count : 0;
	case KFIT_FSORT_MAX:
		return h->max;
	default:
		return h->total;
	}
}

static __u64 sort_value(const struct kfit_fstat *f, enum kfit_fsort key)
{
	return kfit_fstats_key_value(&f->h, f->local_ns, key);
}

static int cmp_funcs(const void *a, const void *b, void *ctx)
{
	const struct kfit_fstats *s = ctx;
	const struct kfit_fstat *x = &s->f[*(const int *)a], *y = &s->f[*(const int *)b];
	__u64 vx = sort_value(x, s->sort), vy = sort_value(y, s->sort);

	if (vx != vy)
		return vx < vy ? 1 : -1;
	return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

int *kfit_fstats_sorted(const struct kfit_fstats *s, int *n)
{
	int *idx = malloc((s->n > 0 ? s->n : 1) * sizeof(int));
	int i, m;

	if (!idx)
		return NULL;
	for (m = 0, i = 0; i < s->n; i++)
		if (!s->f[i].hidden)
			idx[m++] = i;
	if (!s->keep_order)
		qsort_r(idx, m, sizeof(int), cmp_funcs, (void *)s);
	*n = s->top && s->top < (unsigned long)m ? (int)s->top : m;
	return idx;
}

/* ---- text ------------------------------------------------------------- */

static const char *dur(__u64 ns, char *buf)
{
	return kfit_duration_fmt(ns, buf, 32);
}

static const char *fname(const struct kfit_fstat *f)
{
	return f->name ? f->name : "?";
}

static unsigned int fields(const struct kfit_fstats *s)
{
	return s->fields ? s->fields : (1U << KFIT_FF_N) - 1;
}

static bool shown(const struct kfit_fstats *s, enum kfit_ffield k)
{
	return fields(s) & (1U << k);
}

/* A duration column's figure */
__u64 kfit_fstats_value(const struct kfit_fstat *f, enum kfit_ffield k)
{
	const struct kfit_hist *h = &f->h;

	switch (k) {
	case KFIT_FF_COUNT:
		return h->count;
	case KFIT_FF_MAXSUB:
		return f->max_sub_ns;
	case KFIT_FF_TIME:
		return h->total;
	case KFIT_FF_AVG:
		return h->count ? h->total / h->count : 0;
	case KFIT_FF_MIN:
		return h->min;
	case KFIT_FF_MAX:
		return h->max;
	case KFIT_FF_LOCAL:
		return f->local_ns;
	case KFIT_FF_P50:
		return kfit_hist_percentile(h, 0.50);
	default:
		return kfit_hist_percentile(h, 0.99);
	}
}

static void table_row(struct kfit_table *t, const struct kfit_fstats *s,
		      const struct kfit_fstat *f)
{
	char b[2][32];
	int k;

	kfit_table_row(t);
	kfit_table_cell(t, "%s", fname(f));
	if (s->by_title)
		kfit_table_cell(t, "%s", f->by ? f->by : "");
	for (k = 0; k < KFIT_FF_N; k++) {
		if (!shown(s, k))
			continue;
		if (k == KFIT_FF_COUNT)
			kfit_table_cell(t, "%llu", (unsigned long long)f->h.count);
		else if (k != KFIT_FF_MAXSUB)
			kfit_table_cell(t, "%s", dur(kfit_fstats_value(f, k), b[0]));
		else if (f->max_sub >= 0 && f->max_sub < s->n)
			kfit_table_cell(t, "%s (%s)", fname(&s->f[f->max_sub]),
					dur(f->max_sub_ns, b[1]));
		else
			kfit_table_cell(t, "-");
	}
}

void kfit_fstats_notes(FILE *f, const struct kfit_fstats *s, const struct kfit_fnotes *nt)
{
	static const struct kfit_fnotes none;
	char lo[32], hi[32];
	__u64 filtered = 0;
	int i;

	if (!nt)
		nt = &none;
	for (i = 0; i < s->n; i++)
		filtered += s->f[i].filtered;
	if (nt->has_min || nt->has_max)
		fprintf(f, "%llu call%s outside [%s, %s] left out\n",
			(unsigned long long)filtered, filtered == 1 ? "" : "s",
			nt->has_min ? kfit_duration_fmt(nt->min_ns, lo, sizeof(lo)) : "0",
			nt->has_max ? kfit_duration_fmt(nt->max_ns, hi, sizeof(hi)) : "inf");
	if (nt->too_deep)
		fprintf(f, "%llu call%s nested deeper than %d not measured\n",
			(unsigned long long)nt->too_deep, nt->too_deep == 1 ? "" : "s",
			nt->max_depth);
	if (nt->no_stack)
		fprintf(f, "%llu call%s not measured: too many threads at once\n",
			(unsigned long long)nt->no_stack, nt->no_stack == 1 ? "" : "s");
	if (nt->missed)
		fprintf(f, "%llu probe run%s missed: the kernel skips a BPF program that "
			"fires inside another\n", (unsigned long long)nt->missed,
			nt->missed == 1 ? "" : "s");
	if (s->incomplete)
		fprintf(f, "%llu call%s that never returned not counted\n",
			(unsigned long long)s->incomplete, s->incomplete == 1 ? "" : "s");
}

/* Whether a row's value is a string: the value column reads left to right */
static bool by_strings(const struct kfit_fstats *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->f[i].by_str)
			return true;
	return false;
}

void kfit_fstats_table(FILE *f, const struct kfit_fstats *s, const struct kfit_fnotes *nt)
{
	static const char *const names[KFIT_FF_N] = {
		"COUNT", "TOTAL", "AVG", "MIN", "MAX", "LOCAL", "P50", "P99", "MAX-SUB",
	};
	const char *hdr[KFIT_FF_N + 2] = { "FUNCTION" };
	char align[KFIT_FF_N + 3] = "l";
	struct kfit_table *t;
	int *idx, n, i, k, cols = 1;

	if (s->by_title) {
		hdr[cols] = s->by_title;
		align[cols++] = by_strings(s) ? 'l' : 'r';
	}

	for (k = 0; k < KFIT_FF_N; k++) {
		if (!shown(s, k))
			continue;
		hdr[cols] = names[k];
		align[cols++] = k == KFIT_FF_MAXSUB ? 'l' : 'r';
	}
	t = kfit_table_new(cols, hdr, align);
	idx = kfit_fstats_sorted(s, &n);
	if (!t || !idx)
		goto out;
	for (i = 0; i < n; i++)
		table_row(t, s, &s->f[idx[i]]);
	kfit_table_print(t, f);
	kfit_fstats_notes(f, s, nt);
out:
	kfit_table_free(t);
	free(idx);
}

void kfit_fstats_hists(FILE *f, const struct kfit_fstats *s, const struct kfit_fnotes *nt)
{
	int *idx, n, i;

	idx = kfit_fstats_sorted(s, &n);
	if (!idx)
		return;
	for (i = 0; i < n; i++) {
		const struct kfit_fstat *x = &s->f[idx[i]];

		if (!x->h.count)
			continue;
		fprintf(f, "\nfunction = %s", fname(x));
		if (s->by_title)
			fprintf(f, ", %s = %s", s->by_key, x->by ? x->by : "");
		fputc('\n', f);
		if (s->lin_step)
			kfit_hist_print_linear(f, &x->l, s->lin_step, "nsecs");
		else
			kfit_hist_print_log2(f, &x->h, "nsecs");
	}
	kfit_fstats_notes(f, s, nt);
	free(idx);
}

/* ---- JSON ------------------------------------------------------------- */

static void json_by_value(struct kfit_json *j, const char *key, __s64 v, bool is_unsigned)
{
	if (is_unsigned)
		kfit_json_u64(j, key, v);
	else
		kfit_json_i64(j, key, v);
}

/* A bucket's upper end: "KEY_max" */
static void json_by_max(struct kfit_json *j, const char *key, const struct kfit_fstat *f)
{
	char k[96];

	snprintf(k, sizeof(k), "%s_max", key);
	json_by_value(j, k, f->by_hi, f->by_range > 0);
}

static void json_func(struct kfit_json *j, const struct kfit_fstats *s,
		      const struct kfit_fstat *f)
{
	const struct kfit_hist *h = &f->h;

	kfit_json_begin_object(j, NULL);
	kfit_json_str(j, "name", fname(f));
	if (s->by_title && f->by_str)
		kfit_json_str(j, s->by_key, f->by_str);
	else if (s->by_title)
		json_by_value(j, s->by_key, f->by_value, f->by_range > 0);
	if (s->by_title && f->by_range)
		json_by_max(j, s->by_key, f);
	if (s->by_title)
		kfit_json_str(j, "as_shown", f->by ? f->by : "");
	kfit_json_u64(j, "count", h->count);
	kfit_json_u64(j, "total_ns", h->total);
	kfit_json_u64(j, "avg_ns", h->count ? h->total / h->count : 0);
	kfit_json_u64(j, "min_ns", h->min);
	kfit_json_u64(j, "max_ns", h->max);
	kfit_json_u64(j, "local_ns", f->local_ns);
	kfit_json_u64(j, "p50_ns", kfit_hist_percentile(h, 0.50));
	kfit_json_u64(j, "p99_ns", kfit_hist_percentile(h, 0.99));
	kfit_json_u64(j, "filtered", f->filtered);
	if (f->max_sub >= 0 && f->max_sub < s->n) {
		kfit_json_begin_object(j, "max_sub");
		kfit_json_str(j, "name", fname(&s->f[f->max_sub]));
		kfit_json_u64(j, "total_ns", f->max_sub_ns);
		kfit_json_end_object(j);
	} else {
		kfit_json_null(j, "max_sub");
	}
	kfit_hist_json(j, &f->h, &f->l, s->lin_step);
	kfit_json_end_object(j);
}

void kfit_fstats_json(struct kfit_json *j, const struct kfit_fstats *s)
{
	int *idx, n, i;

	idx = kfit_fstats_sorted(s, &n);
	kfit_json_begin_array(j, "functions");
	for (i = 0; idx && i < n; i++)
		json_func(j, s, &s->f[idx[i]]);
	kfit_json_end_array(j);
	free(idx);
}

/* ---- from a call tree ------------------------------------------------- */

static __u64 mix(__u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	return x ^ (x >> 33);
}

static int edges_grow(struct kfit_fedges *m)
{
	size_t cap = m->cap ? 2 * m->cap : 256, i, k;
	struct edge *e = calloc(cap, sizeof(*e));

	if (!e)
		return -ENOMEM;
	for (i = 0; i < m->cap; i++) {
		if (!m->e[i].key)
			continue;
		for (k = mix(m->e[i].key) & (cap - 1); e[k].key; k = (k + 1) & (cap - 1))
			;
		e[k] = m->e[i];
	}
	free(m->e);
	m->e = e;
	m->cap = cap;
	return 0;
}

static int edges_add(struct kfit_fedges *m, __u32 parent, __u32 child, __u64 ns)
{
	__u64 key = ((__u64)parent << 32 | child) + 1;
	size_t k;

	if (2 * (m->n + 1) > m->cap && edges_grow(m))
		return -ENOMEM;
	for (k = mix(key) & (m->cap - 1); m->e[k].key; k = (k + 1) & (m->cap - 1)) {
		if (m->e[k].key == key) {
			m->e[k].ns += ns;
			return 0;
		}
	}
	m->e[k] = (struct edge){ .key = key, .ns = ns };
	m->n++;
	return 0;
}

/*
 * Calls a streaming decoder summed before their caller came (calltree.h,
 * collapse): counted then; what is left is their edge from the caller of
 * their SUMS node
 */
static int sums_edge(struct kfit_fstats *s, struct kfit_fedges *m, const struct kfit_cnode *n)
{
	const struct kfit_cnode *p = n->parent ? n->parent->parent : NULL;

	if (!p || !kfit_cnode_counted(p) || p->ctx != n->ctx || p->id >= (__u32)s->n ||
	    n->id >= (__u32)s->n || (n->parent->flags & KFIT_CN_WOVEN))
		return 0;
	return edges_add(m, p->id, n->id, n->dur);
}

static inline void put_call(struct kfit_fstats *s, struct kfit_fstat *f, __u64 dur,
			    __u64 local)
{
	kfit_hist_put(&f->h, dur);
	f->local_ns += local;
	if (s->lin_step)
		f->l.slot[kfit_lin_index(dur, s->lin_step)]++;
}

static int tree_call(struct kfit_fstats *s, struct kfit_fedges *m, const struct kfit_cnode *n)
{
	const struct kfit_cnode *p = n->parent;

	if (n->kind == KFIT_CN_SUMPART)
		return sums_edge(s, m, n);
	if (n->kind != KFIT_CN_CALL || (n->flags & KFIT_RF_LOST) || n->id >= (__u32)s->n)
		return 0;
	if (n->flags & KFIT_RF_INCOMPLETE) {
		s->incomplete++;
		return 0;
	}
	put_call(s, &s->f[n->id], n->dur, n->local);
	/* an interrupt's call under a task's is no callee of it, nor one placed by time */
	if (!p || !kfit_cnode_counted(p) || p->ctx != n->ctx || p->id >= (__u32)s->n ||
	    (n->flags & KFIT_CN_WOVEN))
		return 0;
	return edges_add(m, p->id, n->id, n->dur);
}

int kfit_fstats_add_leaf(void *stats, const struct kfit_ctree *t, const struct kfit_cthread *th,
			 const struct kfit_rec_call *r)
{
	struct kfit_fstats *s = stats;

	(void)t;
	(void)th;
	if (r->h.flags & KFIT_RF_INCOMPLETE)
		s->incomplete++;
	else if (r->id < (__u32)s->n)
		put_call(s, &s->f[r->id], r->dur, r->dur);
	return 0;
}

int kfit_fstats_add_tree(struct kfit_fstats *s, const struct kfit_cnode *root)
{
	const struct kfit_cnode *n;
	int err;

	if (!s->edges && !(s->edges = calloc(1, sizeof(*s->edges))))
		return -ENOMEM;
	err = tree_call(s, s->edges, root);
	for (n = kfit_cnode_next(root, NULL); n && !err; n = kfit_cnode_next(root, n))
		err = tree_call(s, s->edges, n);
	return err;
}

void kfit_fstats_end_trees(struct kfit_fstats *s)
{
	struct kfit_fedges *m = s->edges;
	size_t k;

	for (k = 0; m && k < m->cap; k++)
		if (m->e[k].key)
			kfit_fstats_edge(s, (m->e[k].key - 1) >> 32,
					 (__u32)(m->e[k].key - 1), m->e[k].ns);
	if (m)
		free(m->e);
	free(m);
	s->edges = NULL;
}

/* Each thread's tree as one subtree: its root is no call */
int kfit_fstats_from_tree(struct kfit_fstats *s, const struct kfit_ctree *t)
{
	int i, err = 0;

	for (i = 0; !err && i < kfit_ctree_nthreads(t); i++)
		err = kfit_fstats_add_tree(s, &kfit_ctree_thread(t, i)->root);
	kfit_fstats_end_trees(s);
	return err;
}
