// SPDX-License-Identifier: GPL-2.0
/* callgraph's output, live or from a trace file (cgview.h) */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cgview.h"
#include "cgview_int.h"
#include "diag.h"
#include "spool.h"
#include "duration.h"
#include "export.h"
#include "opts.h"
#include "output.h"
#include "treeprint.h"

/*
 * The views streamed: --summary's figures, --folded's and --svg's flame
 * (made at the first node: its names are the tree's), and the first
 * error adding to them
 */
struct kfit_cgview_sum {
	bool summary;
	struct kfit_fstats st;
	struct kfit_spool *text;	/* the tree: each thread's lines (-j: calls) */
	bool json;
	const __u64 *origin;		/* their ENTRY's time 0 */
	bool want_flame;
	struct kfit_export_flame *flame;
	struct kfit_export_trace *trace;	/* --perfetto's, times from origin */
	const struct kfit_cgview_func *funcs;	/* the kinds: colours, cat */
	int nfuncs;
	const struct kfit_ctree *t;		/* the flame's names */
	bool errors;				/* only the trees with a failure */
	__u64 kept, left_out;			/* and those shown, left out */
	int err;
};

/* print_json's depth of a thread's "calls": { "threads": [ { "calls": [ */
#define CALLS_DEPTH	4

static const char *dur(__u64 ns, char *buf)
{
	return kfit_duration_fmt(ns, buf, 32);
}

static __u64 elapsed(const struct kfit_cgview *v)
{
	return v->end_ns > v->start_ns ? v->end_ns - v->start_ns : 0;
}

/*
 * "1 function (uprobe) and 2 system calls (tracepoints)": system calls
 * ("sys:NAME") are tracepoints whatever the functions' mechanism
 */
static void print_traced(const struct kfit_cgview *v)
{
	int i, n = 0, nsys = 0;

	for (i = 0; i < v->nfuncs; i++) {
		if (v->funcs[i].dropped)
			continue;
		if (!strncmp(v->funcs[i].name, "sys:", 4))
			nsys++;
		else
			n++;
	}
	if (n || !nsys)
		printf("%d function%s (%s)", n, n == 1 ? "" : "s", v->mechanism);
	if (n && nsys)
		printf(v->ntracepoints ? ", " : " and ");
	if (nsys)
		printf("%d system call%s (tracepoint%s)", nsys, nsys == 1 ? "" : "s",
		       nsys == 1 ? "" : "s");
}

/*
 * Why a sampled run can give no sample: the event counts time on a CPU,
 * and a process that sleeps or waits spends none there
 */
static void no_samples(FILE *f, const struct kfit_cgview *v)
{
	char d[32];

	fprintf(f, "Nothing was sampled: %s samples a task only while it runs on a CPU,\n"
		"and the tasks watched did not run in these %s (asleep or waiting?).\n"
		"Exact mode shows the time off CPU, in the calls that wait: e.g.\n"
		"  callgraph sys:clock_nanosleep -- sleep 1   (its OFF-CPU column)\n",
		v->sample_event ? v->sample_event : "the sampling event", dur(elapsed(v), d));
}

/* --errors: the trees with a failure, streamed or from the tree t */
static void trees_of(const struct kfit_cgview_opts *o, const struct kfit_ctree *t,
		     __u64 *kept, __u64 *left_out)
{
	if (o->sum && o->sum->text)
		kfit_cgview_sum_trees(o->sum, kept, left_out);
	else
		kfit_treeprint_trees(t, kept, left_out);
}

static void print_errors(const struct kfit_cgview_opts *o, const struct kfit_ctree *t)
{
	__u64 kept, out;

	trees_of(o, t, &kept, &out);
	printf("%llu tree%s with a failure shown, %llu tree%s without a failure left out "
	       "(--errors)\n", (unsigned long long)kept, kept == 1 ? "" : "s",
	       (unsigned long long)out, out == 1 ? "" : "s");
}

/* What was traced, how, for how long, and what is missing */
static void print_header(const struct kfit_cgview *v, const struct kfit_cgview_opts *o,
			 const struct kfit_ctree *t)
{
	char d[32];
	int i, shown = 5;

	if (v->sampled) {
		kfit_treeprint_note(stdout, o->width, "Sampled stacks at %u Hz (%s) for %s", v->hz,
			     v->sample_event ? v->sample_event : "?", dur(elapsed(v), d));
	} else if (v->nfuncs) {
		printf("Traced ");
		print_traced(v);
		printf("%s%s for %s\n", v->ntracepoints ? " and tracepoints" : "",
		       v->root ? ", inside --root" : "", dur(elapsed(v), d));
	} else {
		printf("Traced %d tracepoint%s for %s\n", v->ntracepoints,
		       v->ntracepoints == 1 ? "" : "s", dur(elapsed(v), d));
	}
	if (v->sampled)
		kfit_treeprint_sample_counts(stdout, t);
	else
		kfit_treeprint_counts(stdout, t);
	if (o->errors)
		print_errors(o, t);
	if (v->sampled && !kfit_ctree_get_stats(t)->samples)
		no_samples(stdout, v);
	if (v->missed)
		printf("%llu probe run%s missed: the kernel skips a BPF program that "
		       "fires inside another\n", (unsigned long long)v->missed,
		       v->missed == 1 ? "" : "s");
	if (v->too_deep)
		printf("%llu call%s nested deeper than %d not kept\n",
		       (unsigned long long)v->too_deep, v->too_deep == 1 ? "" : "s",
		       v->max_depth);
	if (v->no_stack)
		printf("%llu call%s not kept: too many threads at once\n",
		       (unsigned long long)v->no_stack, v->no_stack == 1 ? "" : "s");
	kfit_argfmt_notes(stdout, v->no_args, v->str_faults);
	if (v->sampled || !v->nskipped)
		return;
	printf("Skipped %d function%s:\n", v->nskipped, v->nskipped == 1 ? "" : "s");
	for (i = 0; i < v->nskipped && (i < shown || o->verbose); i++)
		printf("  %s: %s\n", v->skipped[i].name, v->skipped[i].reason);
	if (i < v->nskipped)
		printf("  ... and %d more (-v lists them all)\n", v->nskipped - i);
}

static struct kfit_treeprint_opts tp_opts(const struct kfit_cgview *v,
					  const struct kfit_cgview_opts *o)
{
	return (struct kfit_treeprint_opts){ .origin = v->start_ns, .errors = o->errors };
}

/* Samples of --min's duration at v's rate, rounded up: 20ms at 99 Hz is 2 */
static __u64 min_samples(const struct kfit_cgview *v, __u64 min_ns)
{
	unsigned __int128 x = (unsigned __int128)min_ns * v->hz;

	return (__u64)((x + KFIT_SEC - 1) / KFIT_SEC);
}

/*
 * The sampled tree's limits: text has KFIT_CGVIEW_PERCENT_LIMIT unless told,
 * JSON only what it is told; "hidden in N lines" says under what
 */
static void sampled_limits(const struct kfit_cgview *v, const struct kfit_cgview_opts *o,
			   bool text, struct kfit_treeprint_opts *to, char *note, size_t len)
{
	char pct[32] = "", min[32] = "";

	to->min_pct = o->min_pct_set ? o->min_pct : text ? KFIT_CGVIEW_PERCENT_LIMIT : 0;
	to->min_samples = o->min_ns ? min_samples(v, o->min_ns) : 0;
	to->max_depth = o->max_depth;
	to->width = text ? o->width : 0;
	if (to->min_pct > 0)
		snprintf(pct, sizeof(pct), "%g%%", to->min_pct);
	if (to->min_samples)
		kfit_duration_fmt(o->min_ns, min, sizeof(min));
	if (*pct && *min)
		snprintf(note, len, "under %s or %s (--percent-limit, --min)", pct, min);
	else if (*min)
		snprintf(note, len, "under %s (--min)", min);
	else
		snprintf(note, len, "under %s (--percent-limit 0 shows all)", pct);
	to->hidden_note = note;
}

static void json_attach(struct kfit_json *j, const struct kfit_cgview_attach *a)
{
	kfit_json_begin_object(j, "attach");
	kfit_json_str(j, "mechanism", a->mechanism);
	kfit_json_u64(j, "functions", a->functions);
	kfit_json_u64(j, "skipped", a->skipped);
	kfit_json_u64(j, "attach_ns", a->attach_ns);
	kfit_json_i64(j, "fds", a->fds);
	kfit_json_end_object(j);
}

/* --errors: "trees_failed" shown, "trees_left_out" */
static void json_errors(struct kfit_json *j, const struct kfit_cgview_opts *o,
			const struct kfit_ctree *t)
{
	__u64 kept, out;

	trees_of(o, t, &kept, &out);
	kfit_json_u64(j, "trees_failed", kept);
	kfit_json_u64(j, "trees_left_out", out);
}

/* -j streamed: each thread's calls from the spool, as they were made */
static int json_spooled(struct kfit_json *j, const struct kfit_cgview_opts *o,
			const struct kfit_ctree *t)
{
	const struct kfit_cthread *th;
	int i, err = o->sum->err;

	kfit_json_begin_array(j, "threads");
	for (i = 0; !err && i < kfit_ctree_nthreads(t); i++) {
		th = kfit_ctree_thread(t, i);
		if (o->errors && !kfit_spool_has(o->sum->text, th))
			continue;
		kfit_treeprint_json_thread_head(j, th);
		if (j->depth != CALLS_DEPTH)
			return -EINVAL;
		err = kfit_spool_write(o->sum->text, th, j->f);
		j->has_item[j->depth] = kfit_spool_has(o->sum->text, th);
		kfit_json_end_array(j);
		kfit_json_end_object(j);
	}
	kfit_json_end_array(j);
	return err;
}

static int print_json(const struct kfit_cgview *v, const struct kfit_cgview_opts *co,
		      const struct kfit_ctree *t)
{
	struct kfit_treeprint_opts o = tp_opts(v, co);
	struct kfit_json j;
	char note[96];
	int i, err = 0;

	if (v->sampled)
		sampled_limits(v, co, false, &o, note, sizeof(note));
	kfit_json_init(&j, stdout, false);
	kfit_json_begin_object(&j, NULL);
	kfit_json_str(&j, "mode", v->sampled ? "sampled" : "exact");
	kfit_json_str(&j, "mechanism", v->mechanism);
	kfit_json_u64(&j, "elapsed_ns", elapsed(v));
	kfit_treeprint_json_counts(&j, t);
	if (co->errors)
		json_errors(&j, co, t);
	kfit_json_u64(&j, "missed", v->missed);
	kfit_json_u64(&j, "too_deep", v->too_deep);
	kfit_json_u64(&j, "no_stack", v->no_stack);
	if (v->args) {
		kfit_json_u64(&j, "no_args", v->no_args);
		kfit_json_u64(&j, "str_faults", v->str_faults);
	}
	kfit_json_begin_array(&j, "skipped");
	for (i = 0; !v->sampled && i < v->nskipped; i++) {
		kfit_json_begin_object(&j, NULL);
		kfit_json_str(&j, "name", v->skipped[i].name);
		kfit_json_str(&j, "reason", v->skipped[i].reason);
		kfit_json_end_object(&j);
	}
	kfit_json_end_array(&j);
	if (v->attach)
		json_attach(&j, v->attach);
	if (v->sampled) {
		kfit_json_u64(&j, "hz", v->hz);
		kfit_json_str(&j, "event", v->sample_event ? v->sample_event : "?");
	}
	if (!v->sampled && co->sum && co->sum->text)
		err = json_spooled(&j, co, t);
	else
		kfit_treeprint_json_threads(&j, t, &o);
	kfit_json_end_object(&j);
	kfit_json_finish(&j);
	return err;
}

/* As KFI's kd: only the functions that ran, then how many did not */
static void print_summary_table(struct kfit_fstats *st, const struct kfit_fnotes *nt)
{
	int i, idle = 0;

	for (i = 0; i < st->n; i++) {
		if (st->f[i].hidden || st->f[i].h.count)
			continue;
		st->f[i].hidden = true;
		idle++;
	}
	kfit_fstats_table(stdout, st, nt);
	if (idle)
		printf("%d traced function%s not called\n", idle, idle == 1 ? "" : "s");
}


struct kfit_cgview_sum *kfit_cgview_sum_new(const struct kfit_cgview_sum_want *w, int nfuncs,
					    const struct kfit_cgview_func *funcs,
					    const __u64 *origin)
{
	struct kfit_cgview_sum *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->origin = origin;
	s->json = w->json;
	s->errors = w->errors;
	s->want_flame = w->flame;
	s->funcs = funcs;
	s->nfuncs = nfuncs;
	if ((w->text && !(s->text = kfit_spool_new(0))) ||
	    (w->perfetto && !(s->trace = kfit_export_trace_new())) ||
	    (w->summary && kfit_fstats_init(&s->st, nfuncs))) {
		kfit_cgview_sum_free(s);
		return NULL;
	}
	s->summary = w->summary;
	return s;
}

void kfit_cgview_sum_free(struct kfit_cgview_sum *s)
{
	if (!s)
		return;
	if (s->summary)
		kfit_fstats_free(&s->st);
	kfit_export_flame_free(s->flame);
	kfit_export_trace_free(s->trace);
	kfit_spool_free(s->text);
	free(s);
}

/* A call of a thread in its "calls" array, after its others */
static void json_root(struct kfit_cgview_sum *s, const struct kfit_ctree *t,
		      const struct kfit_cnode *root, const struct kfit_treeprint_opts *o,
		      FILE *f)
{
	struct kfit_json j;

	kfit_json_init(&j, f, false);
	j.depth = CALLS_DEPTH;
	j.has_item[CALLS_DEPTH] = kfit_spool_has(s->text, kfit_ctree_emitting(t));
	kfit_treeprint_json_node(&j, t, kfit_ctree_emitting(t), root, o);
}

/* The lines of a thread's top-level node (-j: its object), after the thread's others */
static int text_root(struct kfit_cgview_sum *s, const struct kfit_ctree *t,
		     const struct kfit_cnode *root)
{
	struct kfit_treeprint_opts o = { .origin = *s->origin, .errors = s->errors };
	FILE *f;

	if (!kfit_treeprint_kept(root, s->errors)) {
		s->left_out += kfit_cnode_is_tree(root);
		return 0;
	}
	s->kept += s->errors && kfit_cnode_is_tree(root);
	f = kfit_spool_begin(s->text);

	if (!f)
		return -ENOMEM;
	if (s->json)
		json_root(s, t, root, &o, f);
	else
		kfit_treeprint_text_node(f, t, root, &o);
	return kfit_spool_end(s->text, kfit_ctree_emitting(t));
}

static const char *sum_name(void *ctx, const struct kfit_cnode *n)
{
	const struct kfit_cgview_sum *s = ctx;

	return kfit_ctree_name(s->t, n);
}

static bool func_kernel(const struct kfit_cgview_sum *s, __u32 id)
{
	return id < (__u32)s->nfuncs && s->funcs[id].kernel;
}

static bool sum_kernel(void *ctx, const struct kfit_cnode *n)
{
	return n->kind == KFIT_CN_CALL && func_kernel(ctx, n->id);
}

static struct kfit_export_flame *flame_of(struct kfit_cgview_sum *s, const struct kfit_ctree *t)
{
	struct kfit_export_src src = { .name = sum_name, .kernel = sum_kernel };

	s->t = t;
	if (!s->flame)
		s->flame = kfit_export_flame_new(&src);
	return s->flame;
}

static int flame_root(struct kfit_cgview_sum *s, const struct kfit_ctree *t,
		      const struct kfit_cnode *root)
{
	if (!flame_of(s, t))
		return -ENOMEM;
	return kfit_export_flame_add(s->flame, kfit_ctree_emitting(t), root, s);
}

int kfit_cgview_flame_leaf(void *sum, const struct kfit_ctree *t, const struct kfit_cthread *th,
			   const struct kfit_rec_call *r)
{
	struct kfit_cgview_sum *s = sum;
	int err = flame_of(s, t) ? 0 : -ENOMEM;

	if (!err)
		err = kfit_export_flame_call(s->flame, th, kfit_ctree_func_name(t, r->id),
					     func_kernel(s, r->id), r->dur,
					     !(r->h.flags & (KFIT_RF_LOST | KFIT_RF_INCOMPLETE)), s);
	if (err && !s->err)
		s->err = err;
	return err;
}

/* --perfetto: a task's events drawn, the interrupts kept for their tracks */
static int trace_root(struct kfit_cgview_sum *s, const struct kfit_ctree *t,
		      const struct kfit_cnode *root)
{
	struct kfit_export_src src = { .name = sum_name, .kernel = sum_kernel, .ctx = s,
				       .t0 = *s->origin };

	s->t = t;
	return kfit_export_trace_add(s->trace, &src, kfit_ctree_emitting(t), root);
}

void kfit_cgview_sum_trees(const struct kfit_cgview_sum *s, __u64 *kept, __u64 *left_out)
{
	*kept = s->kept;
	*left_out = s->left_out;
}

struct kfit_fstats *kfit_cgview_sum_stats(struct kfit_cgview_sum *s)
{
	return &s->st;
}

int kfit_cgview_sum_root(void *sum, const struct kfit_ctree *t, const struct kfit_cnode *root)
{
	struct kfit_cgview_sum *s = sum;
	int err = 0;

	if (s->summary)
		err = kfit_fstats_add_tree(&s->st, root);
	if (!err && s->want_flame)
		err = flame_root(s, t, root);
	if (!err && s->text)
		err = text_root(s, t, root);
	if (!err && s->trace)
		err = trace_root(s, t, root);
	if (err && !s->err)
		s->err = err;
	return err;
}

/* The summary's figures: streamed into o->sum, or from the tree t */
static int summary_of(const struct kfit_cgview *v, const struct kfit_cgview_opts *o,
		      const struct kfit_ctree *t, struct kfit_fstats *st)
{
	int err;

	if (o->sum && o->sum->summary) {
		kfit_fstats_end_trees(&o->sum->st);
		*st = o->sum->st;
		return o->sum->err;
	}
	err = kfit_fstats_init(st, v->nfuncs);
	return err ? err : kfit_fstats_from_tree(st, t);
}

static int print_summary(const struct kfit_cgview *v, const struct kfit_cgview_opts *o,
			 const struct kfit_ctree *t)
{
	struct kfit_fnotes nt = {
		.too_deep = v->too_deep,
		.max_depth = v->max_depth,
		.no_stack = v->no_stack,
		.missed = v->missed,
	};
	struct kfit_fstats st = { 0 };
	int i, err;

	err = summary_of(v, o, t, &st);
	if (err || st.n != v->nfuncs) {
		if (!o->sum || !o->sum->summary)
			kfit_fstats_free(&st);
		return err ? err : -EINVAL;
	}
	st.sort = o->sort;
	st.top = o->top;
	st.fields = o->fields;
	for (i = 0; i < v->nfuncs; i++) {
		st.f[i].name = v->funcs[i].name;
		st.f[i].hidden = v->funcs[i].dropped;
	}
	print_summary_table(&st, &nt);
	/* the streamed figures are the caller's (kfit_cgview_close) */
	if (!o->sum || !o->sum->summary)
		kfit_fstats_free(&st);
	return 0;
}

/* The exports' callbacks share one ctx: the tree's names, the view's kinds */
struct xctx {
	const struct kfit_cgview *v;
	kfit_export_name_fn name;
	void *name_ctx;
};

static const char *export_name(void *ctx, const struct kfit_cnode *n)
{
	const struct xctx *x = ctx;

	return x->name(x->name_ctx, n);
}

/* Whether a call is a kernel function's, for the exports' colours */
static bool call_kernel(void *ctx, const struct kfit_cnode *n)
{
	const struct xctx *x = ctx;

	return n->kind == KFIT_CN_CALL && n->id < (__u32)x->v->nfuncs &&
	       x->v->funcs[n->id].kernel;
}

/* --folded's and --svg's flame made as the tree streamed (exact mode only) */
static bool streamed_flame(const struct kfit_cgview *v, const struct kfit_cgview_opts *o)
{
	return !v->sampled && o->sum && o->sum->want_flame;
}

/* The files the views write */
enum export_kind { EX_SVG, EX_PERFETTO, EX_PPROF };

/* "kfit 0.1.0", the command line, the machine: the profile's comments */
static void pprof_comments(const struct kfit_cgview *v, char *version, size_t len,
			   const char **c)
{
	int n = 0;

	if (v->version) {
		snprintf(version, len, "kfit %s", v->version);
		c[n++] = version;
	}
	if (v->cmdline && *v->cmdline)
		c[n++] = v->cmdline;
	if (v->machine && *v->machine)
		c[n++] = v->machine;
	c[n] = NULL;
}

/* The profile of the flame (streamed) or of the tree, its objects the function table's */
static int pprof_write(const struct kfit_cgview *v, const struct kfit_cgview_opts *o,
		       const struct kfit_export_src *src, FILE *f)
{
	struct kfit_export_pprof_obj *objs = calloc(v->nfuncs + 1, sizeof(*objs));
	struct kfit_export_pprof_opts po = {
		.period_ns = v->sampled && v->hz ? KFIT_SEC / v->hz : 0,
		.time_ns = v->realtime_offset_ns ? v->start_ns + v->realtime_offset_ns : 0,
		.duration_ns = elapsed(v),
		.kernel_build_id = v->kernel_build_id,
		.objs = objs,
		.nobjs = v->nfuncs,
	};
	const char *comments[4];
	char version[64];
	int i, err;

	if (!objs)
		return -ENOMEM;
	for (i = 0; i < v->nfuncs; i++)
		objs[i] = (struct kfit_export_pprof_obj){
			.name = v->funcs[i].name, .kernel = v->funcs[i].kernel,
			.object = v->funcs[i].object, .build_id = v->funcs[i].build_id,
		};
	pprof_comments(v, version, sizeof(version), comments);
	po.comments = comments;
	if (streamed_flame(v, o))
		err = kfit_export_flame_pprof(o->sum->flame, &po, f);
	else
		err = kfit_export_pprof(src, &po, f);
	free(objs);
	return err;
}

/*
 * The SVG (streamed: the flame's), the pprof profile (the same), or the
 * Perfetto JSON: the tree's (streamed: drawn as it came), or sampled,
 * the samples' timeline
 */
static int export_write(const struct kfit_cgview *v, const struct kfit_cgview_opts *o,
			const struct kfit_export_src *src, enum export_kind kind, FILE *f)
{
	struct kfit_export_svg_opts so = { .title = "callgraph" };

	if (kind == EX_PPROF)
		return pprof_write(v, o, src, f);
	if (kind == EX_SVG && streamed_flame(v, o))
		return kfit_export_flame_svg(o->sum->flame, &so, f);
	if (kind == EX_SVG)
		return kfit_export_svg(src, &so, f);
	if (v->sampled)
		return kfit_cgview_timeline_write(o->timeline, v->start_ns, v->hz, f);
	if (o->sum && o->sum->trace)
		return o->sum->err ?: kfit_export_trace_write(o->sum->trace, src, f);
	return kfit_export_perfetto(src, f);
}

static int export_file(const struct kfit_cgview *v, const struct kfit_cgview_opts *o,
		       const struct kfit_export_src *src, enum export_kind kind)
{
	const char *path = kind == EX_SVG ? o->svg : kind == EX_PERFETTO ? o->perfetto : o->pprof;
	struct kfit_out *out = kind == EX_SVG ? o->svg_out :
			       kind == EX_PERFETTO ? o->perfetto_out : o->pprof_out;
	struct kfit_out mine;
	FILE *f;
	int err;

	if (!out) {
		out = &mine;
		err = kfit_out_open(out, path);
		if (err) {
			kfit_out_err(path, err);
			return err;
		}
	}
	f = kfit_out_file(out);
	err = f ? export_write(v, o, src, kind, f) : -errno;
	err = kfit_out_finish(out, err);
	if (err)
		kfit_out_err(path, err);
	return err;
}

/* Streamed: the flame's threads named now that they ended (none came: an empty one) */
static int flame_end(const struct kfit_cgview_opts *o, const struct kfit_ctree *t)
{
	struct kfit_cgview_sum *s = o->sum;
	struct kfit_export_src none = { 0 };

	if (!s->flame && !(s->flame = kfit_export_flame_new(&none)))
		return -ENOMEM;
	return s->err ?: kfit_export_flame_end(s->flame, kfit_ctree_get_stats(t));
}

static int print_exports(const struct kfit_cgview *v, const struct kfit_cgview_opts *o,
			 const struct kfit_ctree *t, bool *said)
{
	struct kfit_export_src src;
	struct xctx x = { .v = v };
	int err;

	if (streamed_flame(v, o) && (err = flame_end(o, t)))
		return err;
	err = kfit_export_src_ctree(&src, t, v->sampled);
	if (err)
		return err;
	if (!v->sampled) {
		x.name = src.name;
		x.name_ctx = src.ctx;
		src.name = export_name;
		src.kernel = call_kernel;
		src.ctx = &x;
	}
	src.t0 = v->start_ns;
	if (o->folded && streamed_flame(v, o))
		err = kfit_export_flame_folded(o->sum->flame, stdout);
	else if (o->folded)
		err = kfit_export_folded(&src, stdout);
	if (!err && o->svg && (err = export_file(v, o, &src, EX_SVG)))
		*said = true;
	if (!err && o->perfetto && (err = export_file(v, o, &src, EX_PERFETTO)))
		*said = true;
	if (!err && o->pprof && (err = export_file(v, o, &src, EX_PPROF)))
		*said = true;
	kfit_export_src_release(&src);
	return err;
}

/* "N thing" or "N things", then sep, at the end of buf */
static void count_word(char *buf, size_t len, __u64 n, const char *one, const char *many,
		       const char *sep)
{
	size_t m = strlen(buf);

	if (m < len)
		snprintf(buf + m, len - m, "%llu %s%s", (unsigned long long)n,
			 n == 1 ? one : many, sep);
}

static void print_counts(const struct kfit_cgview_counts *c)
{
	const __u64 *t = c->types;
	char b[512] = "";

	count_word(b, sizeof(b), c->records, "record", "records", " read (");
	count_word(b, sizeof(b), c->bytes, "byte", "bytes", "): ");
	count_word(b, sizeof(b), t[KFIT_REC_CALL] - c->end_calls, "call", "calls",
		   " returned, ");
	count_word(b, sizeof(b), c->end_calls, "", "", "still open at the end; ");
	count_word(b, sizeof(b), t[KFIT_REC_SWITCH], "context switch", "context switches",
		   ", ");
	count_word(b, sizeof(b), t[KFIT_REC_IRQ], "interrupt", "interrupts", ", ");
	count_word(b, sizeof(b), t[KFIT_REC_EVENT], "tracepoint hit", "tracepoint hits",
		   ", ");
	count_word(b, sizeof(b), t[KFIT_REC_FORK], "fork", "forks", ", ");
	count_word(b, sizeof(b), t[KFIT_REC_EXEC], "exec", "execs", ", ");
	count_word(b, sizeof(b), t[KFIT_REC_EXIT], "exit", "exits", ", ");
	count_word(b, sizeof(b), t[KFIT_REC_SAMPLE], "sample", "samples", "; ");
	count_word(b, sizeof(b), c->lost, "record", "records", " lost, ");
	count_word(b, sizeof(b), c->unmatched, "return", "returns", " without their entry");
	kfit_info("%s", b);
}

/* The tree streamed: each thread's section, its lines from the spool */
static int print_spooled(const struct kfit_cgview_opts *o, const struct kfit_ctree *t)
{
	const struct kfit_cthread *th;
	int i, shown = 0, err = o->sum->err;

	putchar('\n');
	for (i = 0; !err && i < kfit_ctree_nthreads(t); i++) {
		th = kfit_ctree_thread(t, i);
		if (o->errors && !kfit_spool_has(o->sum->text, th))
			continue;
		if (shown++)
			putchar('\n');
		kfit_treeprint_text_head(stdout, th);
		err = kfit_spool_write(o->sum->text, th, stdout);
	}
	return err;
}

int kfit_cgview_render(const struct kfit_cgview *v, const struct kfit_cgview_opts *o,
		       const struct kfit_ctree *t)
{
	bool tree = o->tree || (!o->summary && !o->folded && !o->json &&
				!o->svg && !o->perfetto && !o->pprof);
	struct kfit_treeprint_opts to = tp_opts(v, o);
	bool said = false;
	char note[96];
	int err = 0;

	if (v->sampled && o->errors) {
		kfit_err("--errors needs calls' return values: sampled stacks have none");
		return -EINVAL;
	}
	if (v->sampled)
		sampled_limits(v, o, true, &to, note, sizeof(note));
	if (o->verbose && v->counts)
		print_counts(v->counts);
	if (v->sampled && (o->json || o->folded) && !kfit_ctree_get_stats(t)->samples)
		no_samples(stderr, v);
	if (o->json) {
		err = print_json(v, o, t);
	} else if (!o->folded) {
		print_header(v, o, t);
		if (o->summary && !v->sampled)
			err = print_summary(v, o, t);
		else if ((tree || o->summary) && !v->sampled && o->sum && o->sum->text)
			err = print_spooled(o, t);
		else if (tree || o->summary) {
			putchar('\n');
			kfit_treeprint_text(stdout, t, &to);
		}
	}
	if (!err && (o->folded || o->svg || o->perfetto || o->pprof))
		err = print_exports(v, o, t, &said);
	fflush(stdout);
	if (err && !said)
		kfit_err("%s", strerror(-err));
	return err;
}

/*
 * User addresses are below 2^47, and code is never mapped below 64 KiB
 * (mmap_min_addr's default)
 */
bool kfit_cgview_no_user_address(__u64 ip)
{
	return ip >> 47 || ip < 0x10000;
}

static int add_sample(struct kfit_ctree *t, const struct kfit_rec_sample *r, size_t size)
{
	struct kfit_rec_sample c;
	int n = r->nuser;

	if (size > sizeof(c) || r->nkernel > KFIT_STACK_MAX || n > KFIT_STACK_MAX ||
	    size < offsetof(struct kfit_rec_sample, ip) + (r->nkernel + n) * sizeof(__u64))
		return kfit_ctree_add(t, r, size);	/* the decoder judges it */
	while (n && kfit_cgview_no_user_address(r->ip[r->nkernel + n - 1]))
		n--;
	if (n == r->nuser)
		return kfit_ctree_add(t, r, size);
	memcpy(&c, r, size);
	c.nuser = n;
	return kfit_ctree_add(t, &c, size);
}

int kfit_cgview_add(struct kfit_ctree *t, bool sampled, const void *rec, size_t size)
{
	const struct kfit_rec *h = rec;

	if (size < sizeof(*h))
		return kfit_ctree_add(t, rec, size);
	if (sampled && h->type == KFIT_REC_EXEC && size >= sizeof(struct kfit_rec_task))
		return kfit_ctree_task(t, h->pid, h->tid,
				       ((const struct kfit_rec_task *)rec)->comm);
	if (sampled && h->type >= KFIT_REC_FORK && h->type <= KFIT_REC_EXIT)
		return 0;
	if (h->type == KFIT_REC_SAMPLE && size >= offsetof(struct kfit_rec_sample, ip))
		return add_sample(t, rec, size);
	return kfit_ctree_add(t, rec, size);
}
