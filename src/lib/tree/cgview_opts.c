// SPDX-License-Identifier: GPL-2.0
/*
 * The views' options, callgraph's and kd's alike (cgview.h): one table,
 * one parser, one check of how they combine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cgview.h"
#include "cgview_int.h"
#include "output.h"

/* Keys of their own: a tool's long-only options start at 256 */
enum {
	OPT_SUMMARY = 0x800, OPT_FOLDED, OPT_SVG, OPT_PERFETTO, OPT_NO_INTERLACE,
	OPT_PCT, OPT_WIDTH, OPT_ADDRESSES, OPT_ERRORS, OPT_PPROF,
};

const struct kfit_opt kfit_cgview_options[] = {
	{ "summary", OPT_SUMMARY, NULL,
	  "per function: COUNT TOTAL AVG MIN MAX LOCAL P50 P99 MAX-SUB" },
	{ "sort", 's', "KEY", "with --summary: time (default), local, count, avg or max" },
	{ "top", 'n', "N", "with --summary: the top N functions" },
	{ "fields", 'f', "LIST",
	  "with --summary: the columns, of count,time,avg,min,max,local,p50,p99,maxsub" },
	{ "folded", OPT_FOLDED, NULL,
	  "folded stacks on stdout (self ns; samples in sampled mode)" },
	{ "svg", OPT_SVG, "FILE", "a flame graph into FILE (SVG)" },
	{ "perfetto", OPT_PERFETTO, "FILE",
	  "Chrome trace-event JSON into FILE (ui.perfetto.dev)" },
	{ "pprof", OPT_PPROF, "FILE",
	  "a pprof profile into FILE (gzip'd protobuf: go tool pprof, Pyroscope, Parca)" },
	{ "errors", OPT_ERRORS, NULL,
	  "only the call trees where a call failed (-errno, ERR_PTR; --errors EXPR: where "
	  "EXPR holds, 'ret == 0'), its path marked !" },
	{ "no-interlace", OPT_NO_INTERLACE, NULL,
	  "interrupts listed apart, not inside the task they struck" },
	{ "percent-limit", OPT_PCT, "PCT",
	  "sampled: hide frames under PCT% of samples (0.5)" },
	{ "width", OPT_WIDTH, "N", "sampled: cut lines to N columns (0: never)" },
	{ "addresses", OPT_ADDRESSES, NULL,
	  "sampled: unnamed frames as FILE+0xOFF each" },
	{ 0 },
};

int kfit_cgview_parse_opt(const char *tool, int key, const char *arg, void *args)
{
	struct kfit_cgview_args *a = args;

	switch (key) {
	case OPT_SUMMARY:
		a->summary = true;
		return 0;
	case 's':
		return kfit_fstats_parse_sort(tool, arg, &a->sort);
	case 'n':
		return kfit_fstats_parse_top(tool, arg, &a->top);
	case 'f':
		return kfit_fstats_parse_fields(tool, arg, &a->fields);
	case OPT_FOLDED:
		a->folded = true;
		return 0;
	case OPT_SVG:
		a->svg = arg;
		return 0;
	case OPT_PERFETTO:
		a->perfetto = arg;
		return 0;
	case OPT_PPROF:
		a->pprof = arg;
		return 0;
	case OPT_ERRORS:
		a->errors = true;
		return 0;
	case OPT_NO_INTERLACE:
		a->no_interlace = true;
		return 0;
	case OPT_PCT:
		a->pct_set = true;
		return kfit_cgview_parse_pct(tool, arg, &a->pct);
	case OPT_WIDTH:
		a->width_set = true;
		return kfit_cgview_parse_width(tool, arg, &a->width);
	case OPT_ADDRESSES:
		a->addresses = true;
		return 0;
	}
	return -1;
}

const char *kfit_cgview_args_error(const struct kfit_cgview_args *a, bool json)
{
	if (a->summary + a->folded + json > 1)
		return "--summary, --folded and -j exclude each other";
	if ((a->sort || a->top || a->fields) && !a->summary)
		return "-s, -n and -f go with --summary";
	/* they sum every call as it ends, before its tree is known to fail */
	if (a->errors && (a->summary || a->folded || a->svg || a->perfetto || a->pprof))
		return "--errors goes with the tree and -j, not --summary, --folded, "
		       "--svg, --perfetto or --pprof";
	return NULL;
}

bool kfit_cgview_args_sampled(const struct kfit_cgview_args *a)
{
	return a->pct_set || a->width_set || a->addresses;
}

int kfit_cgview_open(struct kfit_cgview_args *a)
{
	int err = 0;

	if (a->svg && (err = kfit_out_open(&a->svg_out, a->svg)))
		kfit_out_err(a->svg, err);
	if (!err && a->perfetto && (err = kfit_out_open(&a->perfetto_out, a->perfetto)))
		kfit_out_err(a->perfetto, err);
	if (!err && a->pprof && (err = kfit_out_open(&a->pprof_out, a->pprof)))
		kfit_out_err(a->pprof, err);
	return err;
}

void kfit_cgview_close(struct kfit_cgview_args *a)
{
	kfit_out_abort(&a->svg_out);
	kfit_out_abort(&a->perfetto_out);
	kfit_out_abort(&a->pprof_out);
	kfit_cgview_sum_free(a->sum);
	a->sum = NULL;
	kfit_cgview_timeline_free(a->timeline);
	a->timeline = NULL;
}

int kfit_cgview_stream(struct kfit_cgview_args *a, const struct kfit_cgview_stream_in *in,
		       struct kfit_ctree_opts *to)
{
	/* pprof's samples are the flame's stacks */
	bool flame = a->folded || a->svg || a->pprof;
	bool tree = in->tree || (!a->summary && !flame && !in->json && !a->perfetto);
	bool text = (tree && !a->summary) || in->json;
	bool woven = flame || text || a->perfetto;

	/* the flame, the tree, -j and the trace need each task's records in order */
	if (in->sampled || (woven && !in->one_ring) ||
	    ((text || a->perfetto) && !in->origin))
		return 0;
	a->sum = kfit_cgview_sum_new(&(struct kfit_cgview_sum_want){
		.summary = a->summary, .flame = flame, .text = text, .json = in->json,
		.perfetto = a->perfetto, .errors = a->errors }, in->nfuncs, in->funcs, in->origin);
	if (!a->sum)
		return -ENOMEM;
	to->on_root = kfit_cgview_sum_root;
	to->root_ctx = a->sum;
	/* all but the summary show what struck the calls, whole; it sums them */
	to->woven = woven;
	to->collapse = !to->woven;
	/* a view that sums alone takes a call with no callee as its record */
	if (a->summary && !woven) {
		to->on_leaf = kfit_fstats_add_leaf;
		to->leaf_ctx = kfit_cgview_sum_stats(a->sum);
	} else if (flame && !text && !a->perfetto) {
		to->on_leaf = kfit_cgview_flame_leaf;
		to->leaf_ctx = a->sum;
	}
	return 0;
}

struct kfit_cgview_opts kfit_cgview_opts_of(struct kfit_cgview_args *a,
					    const struct kfit_common *c, __u32 max_depth)
{
	return (struct kfit_cgview_opts){
		.summary = a->summary,
		.sort = a->sort,
		.top = a->top,
		.fields = a->fields,
		.folded = a->folded,
		.errors = a->errors,
		.json = c->json,
		.svg = a->svg,
		.perfetto = a->perfetto,
		.pprof = a->pprof,
		.svg_out = &a->svg_out,
		.perfetto_out = &a->perfetto_out,
		.pprof_out = &a->pprof_out,
		.verbose = c->verbose,
		.min_pct = a->pct,
		.min_pct_set = a->pct_set,
		.min_ns = c->has_min ? c->min_ns : 0,
		.max_depth = max_depth,
		.width = a->width_set ? a->width : kfit_term_width(stdout),
		.sum = a->sum,
		.timeline = a->timeline,
	};
}

int kfit_cgview_parse_pct(const char *tool, const char *arg, double *out)
{
	if (!kfit_opts_parse_percent(arg, 100, out))
		return 0;
	fprintf(stderr, "%s: invalid percent limit '%s': 0 to 100, e.g. 0.5\n", tool, arg);
	return -1;
}

int kfit_cgview_parse_width(const char *tool, const char *arg, unsigned int *out)
{
	unsigned long v = 0;

	if (strcmp(arg, "0") && (kfit_opts_parse_uint(arg, KFIT_CGVIEW_MAX_WIDTH, &v) ||
				 v < KFIT_CGVIEW_MIN_WIDTH)) {
		fprintf(stderr, "%s: invalid width '%s': 0 (lines not cut) or %d to %d\n",
			tool, arg, KFIT_CGVIEW_MIN_WIDTH, KFIT_CGVIEW_MAX_WIDTH);
		return -1;
	}
	*out = v;
	return 0;
}

int kfit_cgview_parse_depth(const char *tool, const char *arg, __u32 *out)
{
	unsigned long v;

	if (kfit_opts_parse_uint(arg, 65535, &v) || !v) {
		fprintf(stderr, "%s: invalid depth '%s': a number from 1\n", tool, arg);
		return -1;
	}
	*out = v;
	return 0;
}
