// SPDX-License-Identifier: GPL-2.0
/*
 * Trace files (kft.h), what kd reads from any machine: kft_open_mem of
 * the input, then every accessor, every chunk read (kft_read_chunk) and
 * its records walked, the symbols of its samples looked up (kft_sym),
 * time windows through the index. Twice: the input as it is (the CRCs
 * must refuse most mutations), then with its CRCs made good again
 * (kftfix.h), so that what follows the checks is fuzzed too. Then, as
 * kd does, the records decoded into a call tree (cgview.h) and rendered
 * (to stdout: run.sh closes it) as a tree, a table, folded stacks or JSON;
 * with the folded stacks, a pprof profile of the tree too (export.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kfit/rec.h"
#include "calltree.h"
#include "cgview.h"
#include "export.h"
#include "kft.h"
#include "kftfix.h"
#include "fuzzlib.h"

static volatile size_t sink;

/* A string the reader gives: there, and terminated (ASan checks the walk) */
static void str(const char *s)
{
	if (!s)
		abort();
	sink += strlen(s);
}

static void check_kv(const struct kft_kv *kv)
{
	if (!kv)
		abort();
	str(kv->key);
	str(kv->val);
}

static void tables(struct kft_file *f)
{
	const struct kft_header *h = kft_header_of(f);
	int i, j;

	if (!h)
		abort();
	kft_size(f);
	if (kft_complete(f) && kft_missing(f))
		abort();
	for (i = 0; i < kft_nmeta(f); i++) {
		check_kv(kft_meta_at(f, i));
		if (!kft_meta(f, kft_meta_at(f, i)->key))
			abort();
	}
	for (i = 0; i < kft_nstats(f); i++) {
		check_kv(kft_stat_at(f, i));
		if (!kft_stat(f, kft_stat_at(f, i)->key))
			abort();
	}
	kft_meta_u64(f, "ncpus", 0);
	kft_meta_u64(f, "start_ns", 0);
	kft_stat_u64(f, "lost", 0);
	kft_meta(f, "no such key");
	for (i = 0; i < kft_nfuncs(f); i++) {
		const struct kft_func *fn = kft_func_at(f, i);

		if (!fn)
			abort();
		str(fn->name);
		str(fn->object);
		str(fn->build_id);
	}
	for (i = 0; i < kft_nevents(f); i++) {
		const struct kft_event *ev = kft_event_at(f, i);

		if (!ev || ev->nfields < 0)
			abort();
		str(ev->name);
		str(ev->format);
		for (j = 0; j < ev->nfields; j++) {
			str(ev->fields[j].name);
			str(ev->fields[j].type);
		}
	}
	for (i = 0; i < kft_ntasks(f); i++) {
		const struct kft_task *t = kft_task_at(f, i);

		if (!t || !memchr(t->comm, '\0', sizeof(t->comm)))
			abort();
	}
}

/* A sample's addresses named as kd would: each a string */
static void sample(struct kft_file *f, const struct kfit_rec_sample *s)
{
	int i, n = s->nkernel + s->nuser;

	if ((size_t)n * 8 > s->h.size - offsetof(struct kfit_rec_sample, ip))
		return;	/* the reader's to refuse; kd checks before it names */
	for (i = 0; i < n; i++)
		if (!kft_sym(f, s->h.pid, s->ip[i], i < s->nkernel))
			abort();
}

/* Records back to back, each within the buffer, as kft_read_chunk promises */
static void records(struct kft_file *f, struct kfit_ctree *t, bool sampled,
		    const uint8_t *buf, size_t len)
{
	const struct kfit_rec *r;
	size_t off = 0;

	while (off < len) {
		if (len - off < sizeof(*r))
			abort();
		r = (const void *)(buf + off);
		if (r->size < sizeof(*r) || r->size > len - off)
			abort();
		if (r->type == KFIT_REC_SAMPLE && r->size >= offsetof(struct kfit_rec_sample, ip))
			sample(f, (const void *)r);
		if (kfit_cgview_add(t, sampled, r, r->size))
			abort();	/* -ENOMEM only */
		off += r->size;
	}
}

static void chunks(struct kft_file *f, struct kfit_ctree *t, bool sampled)
{
	const struct kft_chunkinfo *ci;
	int i, first, last;
	size_t len;
	void *buf;

	for (i = 0; i < kft_nchunks(f); i++) {
		ci = kft_chunk_at(f, i);
		if (!ci)
			abort();
		buf = NULL;
		len = 0;
		if (!kft_read_chunk(f, i, &buf, &len))
			records(f, t, sampled, buf, len);
		free(buf);
		kft_chunks_between(f, ci->first_ts, ci->last_ts, &first, &last);
	}
	kft_chunks_between(f, 0, 0, &first, &last);
	kft_chunks_between(f, UINT64_MAX / 2, 0, &first, &last);
	/* Addresses no sample had: the "[unknown] 0x..." strings */
	kft_sym(f, 1, 0x1000, false);
	kft_sym(f, 0, 0xffffffff81000000ULL, true);
}

/* The function and event tables as kd gives them to the tree */
struct names {
	const char **funcs, **events;
	struct kfit_cgview_func *cgv;
	int nfuncs, nevents;
};

static void names_of(struct kft_file *f, struct names *n)
{
	int i;

	n->nfuncs = kft_nfuncs(f);
	n->nevents = kft_nevents(f);
	n->funcs = calloc(n->nfuncs + 1, sizeof(*n->funcs));
	n->cgv = calloc(n->nfuncs + 1, sizeof(*n->cgv));
	n->events = calloc(n->nevents + 1, sizeof(*n->events));
	if (!n->funcs || !n->cgv || !n->events)
		abort();
	for (i = 0; i < n->nfuncs; i++) {
		const struct kft_func *fn = kft_func_at(f, i);

		n->funcs[i] = fn->name;
		n->cgv[i] = (struct kfit_cgview_func){
			.name = fn->name, .kernel = fn->kernel, .dropped = fn->dropped,
			.object = fn->object, .build_id = fn->build_id,
		};
	}
	for (i = 0; i < n->nevents; i++)
		n->events[i] = kft_event_at(f, i)->name;
}

static void names_free(struct names *n)
{
	free(n->funcs);
	free(n->cgv);
	free(n->events);
}

/* kd --pprof: the tree's profile, its objects the function table's, into memory */
static void pprof(struct kft_file *f, const struct names *n, const struct kfit_ctree *t,
		  bool sampled)
{
	struct kfit_export_pprof_obj *objs = calloc(n->nfuncs + 1, sizeof(*objs));
	struct kfit_export_pprof_opts o = {
		.period_ns = 1000000,
		.kernel_build_id = kft_meta(f, "kernel.build_id"),
		.objs = objs,
		.nobjs = n->nfuncs,
	};
	struct kfit_export_src src;
	size_t len = 0;
	char *buf = NULL;
	FILE *out;
	int i;

	if (!objs || kfit_export_src_ctree(&src, t, sampled))
		abort();
	for (i = 0; i < n->nfuncs; i++)
		objs[i] = (struct kfit_export_pprof_obj){
			.name = n->cgv[i].name, .kernel = n->cgv[i].kernel,
			.object = n->cgv[i].object, .build_id = n->cgv[i].build_id,
		};
	out = open_memstream(&buf, &len);
	if (!out)
		abort();
	if (kfit_export_pprof(&src, &o, out))
		abort();	/* into memory: nothing fails but memory */
	fclose(out);
	free(buf);
	free(objs);
	kfit_export_src_release(&src);
}

/* What kd renders, one way per input (its last byte picks) */
static void render(struct kft_file *f, const struct names *n, struct kfit_ctree *t,
		   bool sampled, unsigned int how)
{
	struct kfit_cgview_counts counts = { 0 };
	struct kfit_cgview v = {
		.sampled = sampled,
		.mechanism = "fuzz",
		.hz = kft_meta_u64(f, "hz", 0),
		.sample_event = kft_meta(f, "sample_event"),
		.funcs = n->cgv,
		.nfuncs = n->nfuncs,
		.ntracepoints = n->nevents,
		.start_ns = kft_meta_u64(f, "start_ns", 0),
		.end_ns = kft_stat_u64(f, "end_ns", 0),
		.max_depth = 64,
		.counts = &counts,
	};
	struct kfit_cgview_opts o = {
		.summary = how == 1,
		.folded = how == 2,
		.json = how == 3,
		.verbose = true,
	};

	kfit_cgview_render(&v, &o, t);
	if (o.folded)
		pprof(f, n, t, sampled);
}

static void read_all(const uint8_t *data, size_t size)
{
	struct kft_file *f;
	struct kfit_ctree *t;
	struct names n;
	const char *mode;
	char err[512];
	bool sampled;
	int i;

	err[0] = '\0';
	f = kft_open_mem(data, size, err, sizeof(err));
	if (!f) {
		if (!err[0])
			abort();	/* refused, with a reason */
		return;
	}
	tables(f);
	names_of(f, &n);
	mode = kft_meta(f, "mode");
	sampled = mode && !strcmp(mode, "sampled");
	t = kfit_ctree_new(&(struct kfit_ctree_opts){
		.funcs = n.funcs, .nfuncs = n.nfuncs,
		.events = n.events, .nevents = n.nevents,
		.sym = kft_sym, .sym_ctx = f,
	});
	if (!t)
		abort();
	for (i = 0; i < kft_ntasks(f); i++) {
		const struct kft_task *tk = kft_task_at(f, i);

		kfit_ctree_task(t, tk->pid, tk->tid, tk->comm);
	}
	chunks(f, t, sampled);
	kfit_ctree_finish(t);
	render(f, &n, t, sampled, size ? data[size - 1] % 4 : 0);
	kfit_ctree_free(t);
	names_free(&n);
	kft_close(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy, *fixed;
	size_t n;

	/* A copy its size exactly: ASan sees a read past the end */
	copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	read_all(copy, size);
	free(copy);
	fixed = fz_kft_rewrite(data, size, false, &n);
	if (fixed && (n != size || memcmp(fixed, data, size)))
		read_all(fixed, n);
	free(fixed);
	return 0;
}
