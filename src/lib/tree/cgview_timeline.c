// SPDX-License-Identifier: GPL-2.0
/*
 * Sampled --perfetto's timeline (cgview.h), callgraph's live and kd's
 * from a file: a sampled tree merges stacks and drops their times, so
 * each sample is kept as it is decoded, its frames named then (live, its
 * process may be gone by the end), and written by kfit_cgview_render.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cgview.h"
#include "cgview_int.h"
#include "export.h"
#include "frames.h"
#include "strset.h"
#include "tasks.h"

struct kfit_cgview_timeline {
	kfit_ctree_sym_fn sym;
	void *sym_ctx;
	const struct kfit_tasks *tasks;
	struct kfit_export_sample *v;
	size_t n, cap;
	struct kfit_strset parts;	/* the frames of names that stand for several */
	char **owned;
	int nowned, ocap;
};

int kfit_cgview_timeline(struct kfit_cgview_args *a, kfit_ctree_sym_fn sym, void *sym_ctx,
			 const struct kfit_tasks *tasks)
{
	struct kfit_cgview_timeline *tl;

	if (!a->perfetto || a->timeline)
		return 0;
	tl = malloc(sizeof(*tl));
	if (!tl)
		return -ENOMEM;
	*tl = (struct kfit_cgview_timeline){ .sym = sym, .sym_ctx = sym_ctx, .tasks = tasks };
	if (kfit_strset_init(&tl->parts, 64)) {
		free(tl);
		return -ENOMEM;
	}
	a->timeline = tl;
	return 0;
}

static int timeline_grow(struct kfit_cgview_timeline *tl)
{
	size_t cap = tl->cap ? 2 * tl->cap : 1024;
	struct kfit_export_sample *v;

	if (tl->n < tl->cap)
		return 0;
	v = realloc(tl->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	tl->v = v;
	tl->cap = cap;
	return 0;
}

/* One frame of a name that stands for several (frames.h), kept: NULL out of memory */
static const char *part(struct kfit_cgview_timeline *tl, const char *p, size_t len)
{
	char **v, *copy = strndup(p, len);
	int i;

	if (!copy)
		return NULL;
	i = kfit_strset_get(&tl->parts, copy);
	if (i >= 0) {
		free(copy);
		return tl->owned[i];
	}
	if (tl->nowned == tl->ocap) {
		tl->ocap = tl->ocap ? 2 * tl->ocap : 64;
		v = realloc(tl->owned, tl->ocap * sizeof(*v));
		if (!v) {
			free(copy);
			return NULL;
		}
		tl->owned = v;
	}
	if (kfit_strset_add(&tl->parts, copy, tl->nowned) < 0) {
		free(copy);
		return NULL;
	}
	tl->owned[tl->nowned] = copy;
	return tl->owned[tl->nowned++];
}

/* name's frames into fr from k on: the new k, or -1 out of memory */
static int put_frames(struct kfit_cgview_timeline *tl, const char **fr, int k, const char *name)
{
	const char *rest;
	size_t len;

	if (!strchr(name, KFIT_FRAME_SEP)) {
		fr[k] = name;
		return k + 1;
	}
	for (; name; name = rest) {
		rest = kfit_frame_split(name, &len);
		fr[k] = part(tl, name, len);
		if (!fr[k++])
			return -1;
	}
	return k;
}

/* How many frames name stands for */
static int nframes(const char *name)
{
	size_t len;
	int n = 1;

	while ((name = kfit_frame_split(name, &len)))
		n++;
	return n;
}

/* Its frames, outermost first, as the tree's: a walk's trailing non-addresses left out */
static int timeline_sample(struct kfit_cgview_timeline *tl, const struct kfit_rec_sample *r,
			   size_t size)
{
	int nk = r->nkernel, nu = r->nuser, i, k = 0, total = 0;
	struct kfit_export_sample *x;
	const char **fr, **names;

	if (nk > KFIT_STACK_MAX || nu > KFIT_STACK_MAX ||
	    size < offsetof(struct kfit_rec_sample, ip) + (nk + nu) * sizeof(__u64))
		return 0;
	while (nu && kfit_cgview_no_user_address(r->ip[nk + nu - 1]))
		nu--;
	if (timeline_grow(tl))
		return -ENOMEM;
	names = malloc((nk + nu + 1) * sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (i = nk + nu - 1; i >= 0; i--) {
		names[k] = tl->sym(tl->sym_ctx, r->h.pid, r->ip[i], i < nk);
		if (!names[k]) {
			free(names);
			return -ENOMEM;
		}
		total += nframes(names[k++]);
	}
	fr = total == k ? names : malloc((total + 1) * sizeof(*fr));
	for (i = 0, k = 0; fr && fr != names && i < nk + nu && k >= 0; i++)
		k = put_frames(tl, fr, k, names[i]);
	if (fr != names)
		free(names);
	if (!fr || k < 0) {
		free(fr);
		return -ENOMEM;
	}
	k = total;
	x = &tl->v[tl->n++];
	*x = (struct kfit_export_sample){
		.ts = r->h.ts, .pid = r->h.pid, .tid = r->h.tid, .cpu = r->h.cpu,
		.nframes = k, .frames = fr,
	};
	snprintf(x->comm, sizeof(x->comm), "%s", kfit_tasks_comm(tl->tasks, r->h.tid));
	return 0;
}

int kfit_cgview_timeline_add(struct kfit_cgview_timeline *tl, const void *rec, size_t size)
{
	const struct kfit_rec *h = rec;

	if (!tl || size < offsetof(struct kfit_rec_sample, ip) || h->type != KFIT_REC_SAMPLE)
		return 0;
	return timeline_sample(tl, rec, size);
}

int kfit_cgview_timeline_write(const struct kfit_cgview_timeline *tl, __u64 t0,
			       unsigned int hz, FILE *f)
{
	return kfit_export_perfetto_samples(tl ? tl->v : NULL, tl ? tl->n : 0, t0,
					    hz ? 1000000000ULL / hz : 0, f);
}

void kfit_cgview_timeline_free(struct kfit_cgview_timeline *tl)
{
	size_t i;

	if (!tl)
		return;
	for (i = 0; i < tl->n; i++)
		free((void *)tl->v[i].frames);
	free(tl->v);
	for (i = 0; i < (size_t)tl->nowned; i++)
		free(tl->owned[i]);
	free(tl->owned);
	kfit_strset_free(&tl->parts);
	free(tl);
}
