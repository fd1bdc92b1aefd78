// SPDX-License-Identifier: GPL-2.0
/* Calls by their path (fpaths.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calltree.h"
#include "duration.h"
#include "export.h"
#include "fpaths.h"
#include "fstats.h"
#include "output.h"
#include "strset.h"

#define PATH_MAX_BYTES 4096

/* n's frame name: a call's function, "[lost]", an interrupt's label */
static const char *frame(const struct kfit_ctree *t, const struct kfit_cnode *n,
			 char *buf, size_t len)
{
	if (n->kind == KFIT_CN_IRQ)
		return kfit_ctree_irq_label(n, kfit_ctree_name(t, n), buf, len);
	if (n->kind == KFIT_CN_CALL && (n->flags & KFIT_RF_LOST))
		return "[lost]";
	return kfit_ctree_name(t, n);
}

/* "a;b;c": the frames from root down to n, into buf (cut at len) */
static void path_of(const struct kfit_ctree *t, const struct kfit_cnode *root,
		    const struct kfit_cnode *n, char *buf, size_t len)
{
	const struct kfit_cnode *chain[256];
	char label[64];
	size_t used = 0;
	int d = 0;

	for (; n && d < 256; n = n == root ? NULL : n->parent)
		chain[d++] = n;
	buf[0] = '\0';
	while (d-- > 0 && used + 1 < len)
		used += snprintf(buf + used, len - used, "%s%s", used ? ";" : "",
				 frame(t, chain[d], label, sizeof(label)));
}

static struct kfit_fpath *get(struct kfit_fpaths *p, const char *path)
{
	struct kfit_strset *set = p->set;
	struct kfit_fpath *v;
	int i;

	if (!set && !(set = p->set = calloc(1, sizeof(*set))))
		return NULL;
	i = kfit_strset_get(set, path);
	if (i >= 0)
		return &p->v[i];
	if (p->n == p->cap) {
		int cap = p->cap ? 2 * p->cap : 64;

		v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		p->v = v;
		p->cap = cap;
	}
	v = &p->v[p->n];
	*v = (struct kfit_fpath){ .path = strdup(path) };
	if (!v->path || kfit_strset_add(set, v->path, p->n) < 0) {
		free(v->path);
		return NULL;
	}
	p->n++;
	return v;
}

int kfit_fpaths_add_tree(struct kfit_fpaths *p, const struct kfit_ctree *t,
			 const struct kfit_cnode *root)
{
	char buf[PATH_MAX_BYTES];
	const struct kfit_cnode *n;
	struct kfit_fpath *e;

	for (n = root; n; n = kfit_cnode_next(root, n)) {
		if (!kfit_cnode_counted(n))
			continue;
		path_of(t, root, n, buf, sizeof(buf));
		e = get(p, buf);
		if (!e)
			return -ENOMEM;
		e->count++;
		e->total_ns += n->dur;
		e->local_ns += n->local;
	}
	return 0;
}

void kfit_fpaths_free(struct kfit_fpaths *p)
{
	int i;

	for (i = 0; i < p->n; i++)
		free(p->v[i].path);
	free(p->v);
	if (p->set)
		kfit_strset_free(p->set);
	free(p->set);
	memset(p, 0, sizeof(*p));
}

/* A path of either run: its index in each, -1 where it did not run */
struct prow {
	const char *path;
	int a, b;
	double delta;		/* total ns, after - before */
	bool shown;		/* of both runs, past the threshold, in the first top */
};

/* The rows as the table and the JSON show them */
struct psel {
	struct prow *r;
	int n, hidden, only[2];
	unsigned long top;
};

static struct prow *rows_of(const struct kfit_fpaths *a, const struct kfit_fpaths *b, int *n)
{
	struct prow *r = calloc(a->n + b->n + 1, sizeof(*r));
	int i, k;

	*n = 0;
	if (!r)
		return NULL;
	for (i = 0; i < a->n; i++)
		r[(*n)++] = (struct prow){ .path = a->v[i].path, .a = i, .b = -1 };
	for (i = 0; i < b->n; i++) {
		k = a->set ? kfit_strset_get(a->set, b->v[i].path) : -1;
		if (k >= 0)
			r[k].b = i;
		else
			r[(*n)++] = (struct prow){ .path = b->v[i].path, .a = -1, .b = i };
	}
	for (i = 0; i < *n; i++)
		r[i].delta = (r[i].b >= 0 ? (double)b->v[r[i].b].total_ns : 0) -
			     (r[i].a >= 0 ? (double)a->v[r[i].a].total_ns : 0);
	return r;
}

static int cmp_rows(const void *x, const void *y)
{
	const struct prow *p = x, *q = y;

	if (p->delta != q->delta)
		return p->delta < q->delta ? 1 : -1;
	return strcmp(p->path, q->path);
}

/* Sorted, what got slower first, each row's shown set: 0 or -ENOMEM */
static int select_rows(const struct kfit_fpaths *a, const struct kfit_fpaths *b,
		       const struct kfit_fdiff_opts *o, struct psel *d)
{
	unsigned long shown = 0;
	int i;

	memset(d, 0, sizeof(*d));
	d->top = o->top ? o->top : 20;
	d->r = rows_of(a, b, &d->n);
	if (!d->r)
		return -ENOMEM;
	qsort(d->r, d->n, sizeof(*d->r), cmp_rows);
	for (i = 0; i < d->n; i++) {
		struct prow *r = &d->r[i];

		if (r->a < 0 || r->b < 0) {
			d->only[r->a < 0]++;
			continue;
		}
		if (!kfit_fstats_diff_changed(a->v[r->a].total_ns, b->v[r->b].total_ns,
					      o->min_change) || shown >= d->top) {
			d->hidden++;
			continue;
		}
		r->shown = true;
		shown++;
	}
	return 0;
}

int kfit_fpaths_diff_table(FILE *f, const struct kfit_fpaths *a, const struct kfit_fpaths *b,
			   const struct kfit_fdiff_opts *o)
{
	static const char *const hdr[] = { "CALL PATH", "TOTAL", "LOCAL", "COUNT" };
	struct kfit_table *t;
	struct prow *r;
	struct psel d;
	int i;

	if (select_rows(a, b, o, &d))
		return -ENOMEM;
	r = d.r;
	t = kfit_table_new(4, hdr, "lrrr");
	if (!t) {
		free(r);
		return -ENOMEM;
	}
	for (i = 0; i < d.n; i++) {
		const struct kfit_fpath *x, *y;

		if (!r[i].shown)
			continue;
		x = &a->v[r[i].a];
		y = &b->v[r[i].b];
		kfit_table_row(t);
		kfit_table_cell(t, "%s", r[i].path);
		kfit_fstats_diff_cell(t, false, x->total_ns, y->total_ns);
		kfit_fstats_diff_cell(t, false, x->local_ns, y->local_ns);
		kfit_fstats_diff_cell(t, true, x->count, y->count);
	}
	kfit_table_print(t, f);
	kfit_table_free(t);
	if (d.hidden)
		fprintf(f, "%d path%s changed less than %g%% or past the first %lu: not shown\n",
			d.hidden, d.hidden == 1 ? "" : "s", o->min_change, d.top);
	if (d.only[0] || d.only[1])
		fprintf(f, "%d path%s in %s only, %d in %s only\n", d.only[0],
			d.only[0] == 1 ? "" : "s", o->before, d.only[1], o->after);
	free(r);
	return 0;
}

static void json_side(struct kfit_json *j, const char *key, const struct kfit_fpaths *p, int i)
{
	if (i < 0) {
		kfit_json_null(j, key);
		return;
	}
	kfit_json_begin_object(j, key);
	kfit_json_u64(j, "count", p->v[i].count);
	kfit_json_u64(j, "total_ns", p->v[i].total_ns);
	kfit_json_u64(j, "local_ns", p->v[i].local_ns);
	kfit_json_end_object(j);
}

int kfit_fpaths_diff_json(struct kfit_json *j, const struct kfit_fpaths *a,
			  const struct kfit_fpaths *b, const struct kfit_fdiff_opts *o)
{
	struct psel d;
	int i;

	if (select_rows(a, b, o, &d))
		return -ENOMEM;
	kfit_json_begin_array(j, "paths");
	for (i = 0; i < d.n; i++) {
		const struct prow *r = &d.r[i];

		if (!r->shown)
			continue;
		kfit_json_begin_object(j, NULL);
		kfit_json_str(j, "path", r->path);
		json_side(j, o->before, a, r->a);
		json_side(j, o->after, b, r->b);
		kfit_fstats_diff_json_change(j, "change_pct", a->v[r->a].total_ns,
					     b->v[r->b].total_ns);
		kfit_json_end_object(j);
	}
	kfit_json_end_array(j);
	kfit_json_u64(j, "paths_not_shown", d.hidden);
	kfit_json_u64(j, "paths_only_before", d.only[0]);
	kfit_json_u64(j, "paths_only_after", d.only[1]);
	free(d.r);
	return 0;
}

int kfit_fpaths_diff_folded(FILE *f, const struct kfit_fpaths *a, const struct kfit_fpaths *b)
{
	struct prow *r;
	int n, i;

	r = rows_of(a, b, &n);
	if (!r)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		fprintf(f, "%s %llu %llu\n", r[i].path,
			(unsigned long long)(r[i].a >= 0 ? a->v[r[i].a].local_ns : 0),
			(unsigned long long)(r[i].b >= 0 ? b->v[r[i].b].local_ns : 0));
	free(r);
	return 0;
}

int kfit_fpaths_diff_svg(FILE *f, const struct kfit_fpaths *a, const struct kfit_fpaths *b,
			 const struct kfit_export_svg_opts *o)
{
	struct kfit_export_dpath *v;
	struct prow *r;
	int n, i, err;

	r = rows_of(a, b, &n);
	v = calloc(n + 1, sizeof(*v));
	if (!r || !v) {
		free(r);
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		v[i] = (struct kfit_export_dpath){
			.path = r[i].path,
			.before = r[i].a >= 0 ? a->v[r[i].a].local_ns : 0,
			.after = r[i].b >= 0 ? b->v[r[i].b].local_ns : 0,
		};
	err = kfit_export_diff_svg(v, n, o, f);
	free(v);
	free(r);
	return err;
}
