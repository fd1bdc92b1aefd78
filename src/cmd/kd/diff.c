// SPDX-License-Identifier: GPL-2.0
/*
 * kd --diff BEFORE AFTER: two exact recordings summed as they stream
 * (each finished call tree into the kd table and the call paths, then
 * freed), then compared: per function and per call path, what got slower
 * first (src/lib/tree/fstats_diff.c, fpaths.c); -j: the same as JSON;
 * --folded: differential folded stacks; --svg: a differential flame graph
 * besides.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calltree.h"
#include "diag.h"
#include "duration.h"
#include "export.h"
#include "fileio.h"
#include "fpaths.h"
#include "fstats.h"
#include "kft.h"
#include "output.h"
#include "stream.h"
#include "tasks.h"
#include "state.h"

/* One run: its file, its sums, its decoder while it is read */
struct side {
	const char *path;
	struct kft_file *f;
	const char **fnames;
	int nfuncs;
	struct kfit_fstats st;
	struct kfit_fpaths paths;
	struct kfit_stream stream;
	int err;		/* the first error summing a tree */
	__u64 span_ns;
};

static struct side *reading;

static int summed(void *ctx, const struct kfit_ctree *t, const struct kfit_cnode *root)
{
	struct side *s = ctx;
	int err = kfit_fstats_add_tree(&s->st, root);

	if (!err)
		err = kfit_fpaths_add_tree(&s->paths, t, root);
	if (err && !s->err)
		s->err = err;
	return err;
}

static int to_stream(const struct kfit_rec *h, size_t size)
{
	int r = kfit_stream_add(&reading->stream, h, size);

	return r < 0 ? r : 0;
}

/* The file's function table, named in the sums (matched by name across runs) */
static int load_funcs(struct side *s)
{
	int i;

	s->nfuncs = kft_nfuncs(s->f);
	s->fnames = calloc(s->nfuncs + 1, sizeof(*s->fnames));
	if (!s->fnames || kfit_fstats_init(&s->st, s->nfuncs))
		return -ENOMEM;
	for (i = 0; i < s->nfuncs; i++) {
		const struct kft_func *fn = kft_func_at(s->f, i);

		s->fnames[i] = fn ? fn->name : "?";
		s->st.f[i].name = s->fnames[i];
		s->st.f[i].hidden = fn && fn->dropped;
	}
	return 0;
}

static int open_side(struct side *s)
{
	char msg[512] = "";
	const char *mode;

	s->f = kft_open(s->path, msg, sizeof(msg));
	if (!s->f) {
		kfit_err("%s: %s", s->path, msg[0] ? msg : strerror(errno));
		return -1;
	}
	mode = kft_meta(s->f, "mode");
	if (mode && !strcmp(mode, "sampled")) {
		kfit_err("%s is a sampled recording: --diff compares calls, which exact "
			 "ones hold (callgraph -o with a TARGET)", s->path);
		return -1;
	}
	if (!kft_complete(s->f))
		kfit_warn("%s is truncated: compared up to its last complete chunk", s->path);
	return 0;
}

/* Every record of s into its sums, through a streaming decoder */
static int read_side(struct side *s)
{
	struct kfit_ctree *t;
	int err;

	err = load_funcs(s);
	if (err)
		return err;
	t = kfit_ctree_new(&(struct kfit_ctree_opts){
		.funcs = s->fnames, .nfuncs = s->nfuncs, .on_root = summed, .root_ctx = s,
	});
	s->stream = (struct kfit_stream){
		.tree = t, .tasks = kfit_tasks_new(false),
		.pid = env.c.pid, .tid = env.c.tid, .comm = env.c.comm,
	};
	if (!t || !s->stream.tasks) {
		err = -ENOMEM;
		goto out;
	}
	reading = s;
	env.f = s->f;
	env.path = s->path;
	err = kd_read_range(0, kft_nchunks(s->f) - 1, to_stream, NULL);
	kfit_ctree_finish(t);
	kfit_fstats_end_trees(&s->st);
	s->span_ns = kd_last_ts() - kd_first_ts();
	if (!err)
		err = s->err;
out:
	env.f = NULL;
	kfit_ctree_free(t);
	kfit_tasks_free(s->stream.tasks);
	return err;
}

static void free_side(struct side *s)
{
	kfit_fstats_free(&s->st);
	kfit_fpaths_free(&s->paths);
	free(s->fnames);
	kft_close(s->f);
}

static __u64 calls_of(const struct side *s)
{
	__u64 n = 0;
	int i;

	for (i = 0; i < s->st.n; i++)
		n += s->st.f[i].h.count;
	return n;
}

static void json_run(struct kfit_json *j, const char *key, const struct side *s)
{
	kfit_json_begin_object(j, key);
	kfit_json_str(j, "file", s->path);
	kfit_json_u64(j, "calls", calls_of(s));
	kfit_json_u64(j, "span_ns", s->span_ns);
	kfit_json_end_object(j);
}

/* -j: the runs, then the two tables' rows as objects */
static int print_json(const struct side *a, const struct side *b,
		      const struct kfit_fdiff_opts *o)
{
	struct kfit_json j;
	int err;

	kfit_json_init(&j, stdout, true);
	kfit_json_begin_object(&j, NULL);
	json_run(&j, "before", a);
	json_run(&j, "after", b);
	kfit_json_double(&j, "min_change_pct", o->min_change);
	err = kfit_fstats_diff_json(&j, &a->st, &b->st, o);
	if (!err)
		err = kfit_fpaths_diff_json(&j, &a->paths, &b->paths, o);
	kfit_json_end_object(&j);
	kfit_json_finish(&j);
	return err;
}

static void header(const struct side *a, const struct side *b)
{
	char x[32], y[32];

	printf("Before: %s, %llu calls in %s\nAfter:  %s, %llu calls in %s\n\n", a->path,
	       (unsigned long long)calls_of(a), kfit_duration_fmt(a->span_ns, x, sizeof(x)),
	       b->path, (unsigned long long)calls_of(b),
	       kfit_duration_fmt(b->span_ns, y, sizeof(y)));
}

/* --svg: the paths as a differential flame graph, into the file made at the start */
static int write_svg(const struct side *a, const struct side *b)
{
	struct kfit_export_svg_opts so = { .title = "kd --diff" };
	FILE *f = kfit_out_file(&env.view.svg_out);
	char sub[512];
	int err;

	snprintf(sub, sizeof(sub), "before: %s, after: %s", a->path, b->path);
	so.subtitle = sub;
	err = f ? kfit_fpaths_diff_svg(f, &a->paths, &b->paths, &so) : -errno;
	err = kfit_out_finish(&env.view.svg_out, err);
	if (err)
		kfit_out_err(env.view.svg, err);
	return err;
}

/* What stdout shows: the tables, -j's JSON or --folded's stacks */
static int print_diff(const struct side *a, const struct side *b,
		      const struct kfit_fdiff_opts *o)
{
	int err;

	if (env.view.folded)
		return kfit_fpaths_diff_folded(stdout, &a->paths, &b->paths);
	if (env.c.json)
		return print_json(a, b, o);
	header(a, b);
	err = kfit_fstats_diff_table(stdout, &a->st, &b->st, o);
	if (err)
		return err;
	putchar('\n');
	return kfit_fpaths_diff_table(stdout, &a->paths, &b->paths, o);
}

int kd_print_diff(const char *before, const char *after)
{
	struct side a = { .path = before }, b = { .path = after };
	struct kfit_fdiff_opts o = {
		.sort = env.view.sort, .top = env.view.top, .fields = env.view.fields,
		.min_change = env.min_change, .before = "before", .after = "after",
	};
	int err;

	/* the SVG's file first: a bad path fails before the runs are read */
	if (kfit_cgview_open(&env.view))
		return 1;
	if (open_side(&a) || open_side(&b)) {
		err = 1;
		goto out;
	}
	err = read_side(&a);
	if (!err)
		err = read_side(&b);
	if (!err)
		err = print_diff(&a, &b, &o);
	if (err) {
		kfit_err("%s", strerror(-err));
		err = 1;
		goto out;
	}
	fflush(stdout);
	err = env.view.svg && write_svg(&a, &b) ? 1 : 0;
out:
	free_side(&a);
	free_side(&b);
	return err;
}
