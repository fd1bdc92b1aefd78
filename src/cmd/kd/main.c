// SPDX-License-Identifier: GPL-2.0
/*
 * kd: KFI's offline analyser. Reads a trace file (include/kfit/kft.h)
 * that callgraph -o wrote, here or on another machine, and renders what
 * callgraph renders live, through the same code (src/lib/tree/cgview.c); or
 * lists its records one per line (--events), or describes it (--info).
 * Core library only: no libbpf, no root, no kernel access.
 *
 * Here the options, their checks and the dispatch: to tree.c (the call
 * trees), events.c (--events) or info.c (--info), which read the file
 * through read.c; state.h holds what they share.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calltree.h"
#include "cgview.h"
#include "child.h"
#include "diag.h"
#include "fileio.h"
#include "kft.h"
#include "opts.h"
#include "failexpr.h"
#include "filter.h"
#include "state.h"

enum { OPT_EVENTS = 256, OPT_SINCE, OPT_UNTIL, OPT_INFO, OPT_DIFF, OPT_MIN_CHANGE };

/* The views' options are cgview's group (cgview.h), as callgraph's */
static const struct kfit_opt kd_opts[] = {
	{ "events", OPT_EVENTS, NULL,
	  "one line per record in time order: TIME CPU COMM-TID TYPE DETAILS" },
	{ "since", OPT_SINCE, "T",
	  "records from T: a time from the start (1.5s), @NS (the file's clock) "
	  "or HH:MM:SS[.frac] (wall time)" },
	{ "until", OPT_UNTIL, "T", "records before T (as --since)" },
	{ "info", OPT_INFO, NULL,
	  "the file: header, machine, what was recorded, chunks, losses" },
	{ "depth", 'D', "N", "sampled: frames down to depth N (1: the outermost)" },
	{ "diff", OPT_DIFF, NULL,
	  "kd --diff BEFORE AFTER: per function and call path, what got slower "
	  "(-s, -n, -f; -j; --folded: differential folded stacks; --svg FILE: "
	  "a differential flame graph)" },
	{ "min-change", OPT_MIN_CHANGE, "PCT",
	  "with --diff: leave out what changed less than PCT% (default 0)" },
	{ NULL },
};

static const struct kfit_opt_group view_group = KFIT_CGVIEW_GROUP(&env.view);

/* ---- command line ------------------------------------------------------ */

static bool sampled_opts(void)
{
	return kfit_cgview_args_sampled(&env.view) || env.depth || env.c.has_min;
}

/* --min-change PCT: 0 to 1000000, "20" or "20%" */
static int parse_change(const char *arg)
{
	if (!kfit_opts_parse_percent(arg, 1e6, &env.min_change))
		return 0;
	fprintf(stderr, "kd: invalid change '%s' for --min-change: a percent, e.g. 20\n", arg);
	return -1;
}

static int parse_opt(int key, const char *arg, void *ctx)
{
	(void)ctx;
	switch (key) {
	case OPT_EVENTS:
		env.events = true;
		return 0;
	case OPT_SINCE:
		env.since_arg = arg;
		return 0;
	case OPT_UNTIL:
		env.until_arg = arg;
		return 0;
	case OPT_INFO:
		env.info = true;
		return 0;
	case 'D':
		return kfit_cgview_parse_depth("kd", arg, &env.depth);
	case OPT_DIFF:
		env.diff = true;
		return 0;
	case OPT_MIN_CHANGE:
		return parse_change(arg);
	}
	return -1;
}

static const struct kfit_tool tool = {
	.name = "kd",
	.summary = "KFI's kd: analyse a trace file that callgraph -o recorded, here or "
		   "on another\nmachine (no root, no BPF): the call trees as callgraph "
		   "prints them live, the\nsummary, the records one per line, flame "
		   "graphs, Perfetto traces, pprof\nprofiles, or what the file holds.",
	.synopsis = "[OPTIONS] FILE",
	.examples = "kd trace.kft                        # the call trees\n"
		    "kd trace.kft --errors                # only the trees where a call failed\n"
		    "kd trace.kft --summary -s local -n 10 -f count,time,local\n"
		    "kd trace.kft --events --since 1.5s --until 2s\n"
		    "kd trace.kft --comm nginx --folded > nginx.folded\n"
		    "kd trace.kft -p 1234 --svg calls.svg --perfetto calls.json\n"
		    "kd trace.kft --pprof prof.pb.gz  # then: go tool pprof -top prof.pb.gz\n"
		    "kd trace.kft --since 10:42:05 --until 10:42:06.5 -j\n"
		    "kd trace.kft --info                 # machine, contents, losses\n",
	.common = KFIT_OPT_PID | KFIT_OPT_TID | KFIT_OPT_COMM | KFIT_OPT_JSON |
		  KFIT_OPT_MIN,
	.opts = kd_opts,
	.parse = parse_opt,
	.ctx = &env,
	.recorded_ids = true,
	.group = &view_group,
};

static int usage_error(const char *msg)
{
	fprintf(stderr, "kd: %s\nTry 'kd --help' for more information.\n", msg);
	return -1;
}

/* --diff's operands and what goes with it */
static int check_diff(int first, int argc, char **argv)
{
	const struct kfit_cgview_args *v = &env.view;

	if (argc - first != 2)
		return usage_error("--diff compares two files: kd --diff BEFORE AFTER");
	env.path = argv[first];
	env.after = argv[first + 1];
	if (env.events || env.info || v->perfetto || v->pprof || v->errors ||
	    env.since_arg || env.until_arg || sampled_opts() || v->no_interlace)
		return usage_error("--diff prints its tables, as JSON with -j, or with "
				   "--folded differential folded stacks, and --svg FILE "
				   "draws a differential flame graph: -s, -n, -f, "
				   "--min-change, -p, -t and --comm go with it");
	if (env.c.json && v->folded)
		return usage_error("--diff: -j or --folded, not both");
	return 0;
}

static int check_args(int first, int argc, char **argv)
{
	const struct kfit_cgview_args *v = &env.view;
	const char *bad = kfit_cgview_args_error(v, env.c.json);
	int forms = v->summary + v->folded + env.c.json;

	if (env.diff)
		return check_diff(first, argc, argv);
	if (env.min_change)
		return usage_error("--min-change goes with --diff");
	/* --errors EXPR: the word after it, when it reads as one */
	if (v->errors && first < argc && kfit_filter_is_expr(argv[first]))
		env.errors_expr = argv[first++];
	if (first >= argc)
		return usage_error("no FILE: kd FILE");
	if (argc - first > 1)
		return usage_error("one FILE only");
	env.path = argv[first];
	if (bad)
		return usage_error(bad);
	if (env.events + env.info > 1)
		return usage_error("--events and --info exclude each other");
	if (env.events && (forms || v->svg || v->perfetto || v->pprof))
		return usage_error("--events excludes the tree's outputs "
				   "(--summary, --folded, -j, --svg, --perfetto, --pprof)");
	if ((env.events || env.info) && v->errors)
		return usage_error("--errors shapes the call trees: not with --events or --info");
	if (env.info && (v->summary || v->folded || v->svg || v->perfetto || v->pprof))
		return usage_error("--info excludes the tree's outputs "
				   "(--summary, --folded, --svg, --perfetto, --pprof); -j goes with it");
	if ((env.events || env.info) && sampled_opts())
		return usage_error("--events and --info exclude the sampled tree's options "
				   "(--percent-limit, -D, --min, --width, --addresses)");
	if (env.info && (env.since_arg || env.until_arg || env.c.pid || env.c.tid ||
			 env.c.comm[0]))
		return usage_error("--info describes the whole file: no window, no tasks");
	return 0;
}

/* ---- main --------------------------------------------------------------- */

/* A --since/--until window that holds no record of the file: said, 1 */
static int window_outside(void)
{
	__u64 first = kd_first_ts(), last = kd_last_ts();
	char a[32], b[32], wa[64], wb[64];

	if (!env.since_arg && !env.until_arg)
		return 0;
	if (!kft_nchunks(env.f)) {
		kfit_err("%s holds no records: no window of it can be shown", env.path);
		return 1;
	}
	if (env.since <= last && (!env.until || env.until > first))
		return 0;
	kfit_err("the window (%s%s%s%s%s) is outside the recording: its records run from "
		 "%ss to %ss after its start%s%s%s%s%s", env.since_arg ? "--since " : "",
		 env.since_arg ? env.since_arg : "", env.since_arg && env.until_arg ? " " : "",
		 env.until_arg ? "--until " : "", env.until_arg ? env.until_arg : "",
		 kd_rel_time(first, a, sizeof(a)), kd_rel_time(last, b, sizeof(b)),
		 kd_wall_time(first, false, wa, sizeof(wa)) ? ", " : "",
		 kd_wall_time(first, false, wa, sizeof(wa)) ? wa : "",
		 kd_wall_time(last, false, wb, sizeof(wb)) ? " to " : "",
		 kd_wall_time(last, false, wb, sizeof(wb)) ? wb : "",
		 kd_wall_time(last, false, wb, sizeof(wb)) ? " wall clock" : "");
	return 1;
}

static void warn_truncated(void)
{
	char d[32];
	int n = kft_nchunks(env.f);
	__u64 end = kd_last_ts();

	if (kft_duplicates(env.f))
		kfit_warn("%s: %d chunk%s found twice (copied within the file): the copies "
			  "skipped", env.path, kft_duplicates(env.f),
			  kft_duplicates(env.f) == 1 ? "" : "s");
	if (kft_complete(env.f))
		return;
	kfit_warn("%s is truncated: read %d chunk%s up to %s; %llu bytes after it "
		  "unreadable", env.path, n, n == 1 ? "" : "s",
		  kd_dur(end > env.start_ns ? end - env.start_ns : 0, d),
		  (unsigned long long)kft_missing(env.f));
}

static void cleanup(void)
{
	int i;

	for (i = 0; i < (int)env.npend; i++)
		free(env.pend[i].r);
	free(env.pend);
	kfit_ctree_free(env.tree);
	for (i = 0; i < env.nskipped; i++)
		free((void *)env.skipped[i].name);
	free(env.skipped);
	free(env.fnames);
	free(env.ret_kinds);
	free(env.fargs);
	kfit_failexpr_free(env.failexpr);
	free(env.enames);
	free(env.funcs);
	kfit_tasks_free(env.tasks);
	kfit_cgview_close(&env.view);
	kft_close(env.f);
}

static int run(void)
{
	char msg[512] = "";
	int err;

	/* the outputs first: a bad path fails before a big file is read */
	if (kfit_cgview_open(&env.view))
		return 1;
	env.f = kft_open(env.path, msg, sizeof(msg));
	if (!env.f) {
		kfit_err("%s: %s", env.path, msg[0] ? msg : strerror(errno));
		return 1;
	}
	kd_load_times();
	if ((env.since_arg && kd_parse_time("--since", env.since_arg, &env.since)) ||
	    (env.until_arg && kd_parse_time("--until", env.until_arg, &env.until)))
		return 2;
	if (env.until && env.until <= env.since) {
		usage_error("--until must come after --since");
		return 2;
	}
	/* as callgraph refuses --summary without a TARGET */
	if (env.sampled && env.view.summary) {
		kfit_err("%s is a sampled recording: --summary tabulates calls, which "
			 "exact ones hold (callgraph -o with a TARGET); its stacks show "
			 "as a tree, --folded or --svg", env.path);
		return 2;
	}
	if (!env.sampled && sampled_opts()) {
		kfit_err("%s is an exact recording: --percent-limit, -D, --min, --width "
			 "and --addresses go with sampled ones (callgraph -o without a "
			 "TARGET); -D and --min of exact mode apply while recording", env.path);
		return 2;
	}
	/* cut before its description ends: nothing says what it holds */
	if (!kft_complete(env.f) && !kft_nmeta(env.f)) {
		kfit_err("%s: cut short after %llu bytes, before the description of "
			 "what was recorded: nothing to read", env.path,
			 (unsigned long long)kft_size(env.f));
		return 1;
	}
	warn_truncated();
	if (window_outside())
		return 1;
	err = kd_load_funcs();
	/* --errors EXPR compiled for the file's functions (said if it cannot be) */
	if (!err && env.errors_expr &&
	    kfit_failexpr_new(env.errors_expr, env.fargs, env.nfuncs, &env.failexpr))
		return 2;
	if (!err)
		err = kd_load_skipped();
	if (!err)
		err = kd_load_tasks();
	if (!err)
		err = env.info ? kd_print_info() :
		      env.events ? kd_print_events() : kd_render_tree();
	if (env.chunks_bad)
		kfit_warn("%s: %d corrupt chunk%s skipped, %d read", env.path, env.chunks_bad,
			  env.chunks_bad == 1 ? "" : "s", env.chunks_read);
	if (err == -EBADMSG) {
		kfit_err("%s: nothing could be read: every chunk is corrupt", env.path);
		return 1;
	}
	if (err && !env.said)
		kfit_err("%s: %s", env.path, strerror(-err));
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	int first, err;

	/*
	 * A chunk's records are a buffer of a MiB or more, one per chunk: from
	 * the heap and kept there, not mapped, faulted in and unmapped each
	 * time (a fifth of kd's system time, 5% of its run)
	 */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);

	first = kfit_opts_parse_args(&tool, &env.c, argc, argv);
	if (first < 0 || check_args(first, argc, argv))
		return 2;
	kfit_diag_setup("kd", env.c.verbose);
	if (kfit_child_io_setup(env.c.output, NULL))
		return 1;
	kfit_out_catch_signals();
	err = env.diff ? kd_print_diff(env.path, env.after) : run();
	fflush(stdout);
	cleanup();
	return err;
}
