// SPDX-License-Identifier: GPL-2.0
/*
 * kd's call trees: the records of the window given to the decoder, then
 * drawn by callgraph's views (src/lib/tree/cgview.c): the trees, the
 * summary, folded stacks, flame graphs, Perfetto.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kfit/fcall.h"
#include "kfit/rec.h"
#include "calltree.h"
#include "cgview.h"
#include "export.h"
#include "fileio.h"
#include "kft.h"
#include "output.h"
#include "stream.h"
#include "tasks.h"
#include "state.h"

static struct kfit_cgview view(struct kfit_cgview_attach *at)
{
	const char *root = kft_meta(env.f, "root");
	bool attached = kft_meta(env.f, "attach.functions") != NULL;

	if (attached)
		*at = (struct kfit_cgview_attach){
			.mechanism = kd_mechanism(),
			.functions = kft_meta_u64(env.f, "attach.functions", 0),
			.skipped = kft_meta_u64(env.f, "attach.skipped", 0),
			.attach_ns = kft_meta_u64(env.f, "attach.ns", 0),
			.fds = (__s64)kft_meta_u64(env.f, "attach.fds", 0),
		};
	env.counts.end_calls = kft_stat_u64(env.f, "end_calls", 0);
	env.counts.lost = kft_stat_u64(env.f, "counter.lost", kft_stat_u64(env.f, "lost", 0));
	env.counts.unmatched = kft_stat_u64(env.f, "counter.unmatched", 0);
	return (struct kfit_cgview){
		.sampled = env.sampled,
		.mechanism = kd_mechanism(),
		.hz = kft_meta_u64(env.f, "hz", 0),
		.sample_event = kft_meta(env.f, "sample_event"),
		.funcs = env.funcs,
		.nfuncs = env.nfuncs,
		.ntracepoints = env.nevents,
		.root = root && *root && strcmp(root, "-"),
		.start_ns = env.start_ns,
		.end_ns = env.end_ns,
		.missed = kft_stat_u64(env.f, "missed", 0),
		.too_deep = kft_stat_u64(env.f, "counter.deep", 0),
		.no_stack = kft_stat_u64(env.f, "counter.no_stack", 0),
		.max_depth = FC_MAX_DEPTH,
		.skipped = env.skipped,
		.nskipped = env.nskipped,
		.attach = attached ? at : NULL,
		.counts = &env.counts,
	};
}

/* A sample's frames, outermost first, named from the file (--perfetto) */
static int keep_sample(const struct kfit_rec_sample *r, size_t size)
{
	int nk = r->nkernel, nu = r->nuser, i, k = 0;
	struct kfit_export_sample *x;
	const char **fr;

	if (nk > KFIT_STACK_MAX || nu > KFIT_STACK_MAX ||
	    size < offsetof(struct kfit_rec_sample, ip) + (nk + nu) * sizeof(__u64))
		return 0;
	while (nu && kfit_cgview_no_user_address(r->ip[nk + nu - 1]))
		nu--;
	if (env.nsamples == env.capsamples) {
		size_t cap = env.capsamples ? 2 * env.capsamples : 1024;

		x = realloc(env.samples, cap * sizeof(*x));
		if (!x)
			return -ENOMEM;
		env.samples = x;
		env.capsamples = cap;
	}
	fr = malloc((nk + nu + 1) * sizeof(*fr));
	if (!fr)
		return -ENOMEM;
	for (i = nk + nu - 1; i >= 0; i--)
		fr[k++] = kft_sym(env.f, r->h.pid, r->ip[i], i < nk);
	x = &env.samples[env.nsamples++];
	*x = (struct kfit_export_sample){
		.ts = r->h.ts, .pid = r->h.pid, .tid = r->h.tid, .cpu = r->h.cpu,
		.nframes = k, .frames = fr,
	};
	snprintf(x->comm, sizeof(x->comm), "%s", kd_comm_of(r->h.tid));
	return 0;
}

static int to_tree(const struct kfit_rec *h, size_t size)
{
	int r = kfit_stream_add(&env.stream, h, size);

	if (r <= 0)
		return r;
	kd_count(h, size);
	if (env.sampled && env.view.perfetto && h->type == KFIT_REC_SAMPLE)
		return keep_sample((const void *)h, size);
	return 0;
}

/* Sampled --perfetto: the samples on a timeline (the tree has none) */
static int write_samples(void)
{
	__u64 hz = kft_meta_u64(env.f, "hz", 0);
	FILE *f = kfit_out_file(&env.view.perfetto_out);
	int err;

	err = f ? kfit_export_perfetto_samples(env.samples, env.nsamples, env.start_ns,
					      hz ? 1000000000ULL / hz : 0, f) : -errno;
	if (err == -EIO && (errno == ENOSPC || errno == EDQUOT || errno == EFBIG))
		err = -errno;
	if (!err)
		err = kfit_out_commit(&env.view.perfetto_out);
	if (err) {
		kfit_out_err(env.view.perfetto, err);
		env.said = true;
	}
	return err;
}

/* TASKS' names given to the decoder first, as callgraph names /proc's */
static int name_start_tasks(void)
{
	int i, err = 0;

	for (i = 0; i < kft_ntasks(env.f) && !err; i++) {
		const struct kft_task *t = kft_task_at(env.f, i);

		if (t->tid && kd_chosen(t->pid, t->tid))
			err = kfit_tasks_name(env.tasks, env.tree, t->pid, t->tid, t->comm);
	}
	return err;
}

int kd_render_tree(void)
{
	struct kfit_cgview_attach at = { 0 };
	struct kfit_ctree_opts to;
	struct kfit_cgview_opts o;
	struct kfit_cgview v;
	int err;

	/* recorded with --no-interlace: shown so, as callgraph showed it */
	if (!kft_meta_u64(env.f, "interlace", 1))
		env.view.no_interlace = true;
	to = (struct kfit_ctree_opts){
		.funcs = env.fnames,
		.nfuncs = env.nfuncs,
		.events = env.enames,
		.nevents = env.nevents,
		.no_interlace = env.view.no_interlace,
		.sym = kft_sym,
		.sym_ctx = env.f,
		.group_unknown = !env.view.addresses,
	};
	/* --summary alone: the calls summed as they end, none kept */
	if (kfit_cgview_stream(&env.view, env.nfuncs, &to))
		return -ENOMEM;
	env.tree = kfit_ctree_new(&to);
	if (!env.tree)
		return -ENOMEM;
	env.stream.tree = env.tree;
	err = name_start_tasks();
	if (!err)
		err = kd_read_window(to_tree);
	if (err)
		return err;
	if (!env.chunks_read && env.chunks_bad)
		return -EBADMSG;
	kfit_ctree_finish(env.tree);
	v = view(&at);
	o = kfit_cgview_opts_of(&env.view, &env.c, env.depth);
	err = kfit_cgview_render(&v, &o, env.tree);
	/* the renderer said its error: not the input's */
	if (err) {
		env.said = true;
		return err;
	}
	return env.sampled && env.view.perfetto ? write_samples() : 0;
}
