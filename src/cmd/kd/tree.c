// SPDX-License-Identifier: GPL-2.0
/*
 * kd's call trees: the records of the window given to the decoder, then
 * drawn by callgraph's views (src/lib/tree/cgview.c): the trees, the
 * summary, folded stacks, flame graphs, Perfetto.
 */
#include <errno.h>
#include <string.h>
#include "kfit/fcall.h"
#include "kfit/rec.h"
#include "calltree.h"
#include "cgview.h"
#include "kft.h"
#include "stream.h"
#include "tasks.h"
#include "failexpr.h"
#include "state.h"

/* Whether the file's calls keep arguments (an ARGS block) */
static bool has_args(void)
{
	int i;

	for (i = 0; i < env.nfuncs; i++)
		if (env.fargs[i].n)
			return true;
	return false;
}

/* "Linux HOST RELEASE MACHINE" of META's uname, as callgraph says it live */
static const char *machine(char *buf, size_t len)
{
	const char *sys = kft_meta(env.f, "uname.sysname");

	if (!sys)
		return NULL;
	snprintf(buf, len, "%s %s %s %s", sys, kft_meta(env.f, "uname.nodename") ?: "?",
		 kft_meta(env.f, "uname.release") ?: "?", kft_meta(env.f, "uname.machine") ?: "?");
	return buf;
}

static struct kfit_cgview view(struct kfit_cgview_attach *at, char *mach, size_t len)
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
		.args = has_args(),
		.no_args = kft_stat_u64(env.f, "counter.no_args", 0),
		.str_faults = kft_stat_u64(env.f, "counter.str_faults", 0),
		.max_depth = FC_MAX_DEPTH,
		.skipped = env.skipped,
		.nskipped = env.nskipped,
		.attach = attached ? at : NULL,
		.counts = &env.counts,
		.version = kft_meta(env.f, "kfit_version"),
		.cmdline = kft_meta(env.f, "cmdline"),
		.machine = machine(mach, len),
		.realtime_offset_ns = kft_meta_u64(env.f, "clock.realtime_offset_ns", 0),
		.kernel_build_id = kft_meta(env.f, "kernel.build_id"),
	};
}

static int to_tree(const struct kfit_rec *h, size_t size)
{
	int r = kfit_stream_add(&env.stream, h, size);

	if (r <= 0)
		return r;
	kd_counted(h, size);
	/* sampled --perfetto's only */
	return env.view.timeline ? kfit_cgview_timeline_add(env.view.timeline, h, size) : 0;
}

static int to_tree_buf(const void *buf, size_t len)
{
	return kfit_stream_add_buf(&env.stream, buf, len, &env.counts);
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
	char mach[256];
	struct kfit_cgview_opts o;
	struct kfit_cgview v;
	int err;

	/* recorded with --no-interlace: shown so, as callgraph showed it */
	if (!kft_meta_u64(env.f, "interlace", 1))
		env.view.no_interlace = true;
	to = (struct kfit_ctree_opts){
		.funcs = env.fnames,
		.nfuncs = env.nfuncs,
		.ret_kinds = env.ret_kinds,
		.fargs = env.fargs,
		.events = env.enames,
		.nevents = env.nevents,
		.no_interlace = env.view.no_interlace,
		.sym = kft_sym,
		.sym_ctx = env.f,
		.group_unknown = !env.view.addresses,
	};
	if (env.failexpr)
		kfit_failexpr_use(env.failexpr, &to);
	/* --summary, --folded, --svg, --pprof: the calls summed as they end, none kept */
	if (kfit_cgview_stream(&env.view, &(struct kfit_cgview_stream_in){
		.nfuncs = env.nfuncs, .funcs = env.funcs, .json = env.c.json,
		.sampled = env.sampled, .origin = &env.start_ns, .one_ring = kft_meta_u64(env.f, "rings", 1) <= 1,
	}, &to))
		return -ENOMEM;
	env.tree = kfit_ctree_new(&to);
	if (!env.tree)
		return -ENOMEM;
	env.stream.tree = env.tree;
	/* sampled --perfetto: the samples' frames named from the file */
	if (env.sampled && kfit_cgview_timeline(&env.view, kft_sym, env.f, env.tasks))
		return -ENOMEM;
	err = name_start_tasks();
	if (!err)
		err = kd_read_window(to_tree, env.view.timeline ? NULL : to_tree_buf);
	if (err)
		return err;
	if (!env.chunks_read && env.chunks_bad)
		return -EBADMSG;
	kfit_ctree_finish(env.tree);
	v = view(&at, mach, sizeof(mach));
	o = kfit_cgview_opts_of(&env.view, &env.c, env.depth);
	err = kfit_cgview_render(&v, &o, env.tree);
	/* the renderer said its error: not the input's */
	if (err)
		env.said = true;
	return err;
}
