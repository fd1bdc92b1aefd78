// SPDX-License-Identifier: GPL-2.0
/*
 * callgraph: call trees, KFI's kd -c. Exact mode: every call of the
 * traced functions, with the interrupts, context switches and chosen
 * tracepoints around them; sampled mode: perf-event stack samples.
 * BPF side: bpf/callgraph.bpf.c, records: include/kfit/rec.h, trees:
 * src/lib/tree/calltree.c.
 *
 * This file: the options, the run and its ends. The BPF side, its rings
 * and the record stream into the decoder are capture.c; the views,
 * display.c (kd's, src/lib/tree/cgview.c); -o's file is recording.c; the
 * state they share, state.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kfit/callgraph.h"
#include "callgraph.skel.h"
#include "attach.h"
#include "calltree.h"
#include "caps.h"
#include "cgview.h"
#include "child.h"
#include "diag.h"
#include "events.h"
#include "fileio.h"
#include "kft.h"
#include "kftmeta.h"
#include "ksyms.h"
#include "opts.h"
#include "output.h"
#include "run.h"
#include "sampler.h"
#include "syms.h"
#include "args.h"
#include "target.h"
#include "tasks.h"
#include "tpglob.h"
#include "failexpr.h"
#include "filter.h"
#include "unwind.h"
#include "state.h"

#define DEFAULT_HZ	KFIT_SAMPLER_DEFAULT_HZ
#define MAX_HZ		100000
#define DEFAULT_BUFFER	(8ULL << 20)
#define MAX_BUFFER	(1ULL << 31)
#define MAX_EVENTS	1024
#define RECORD_BUFFER	(64ULL << 20)	/* -o: room for ~0.3 s of dd's writes */
#define MAX_FILE	(1ULL << 50)
#define MIN_CHUNK	4096
#define MAX_CHUNK	(1ULL << 30)
#define MAX_RINGS	256
#define DEFAULT_USTACK	8192	/* perf's --call-graph dwarf default */
#define MIN_USTACK	64

enum {
	OPT_MODULE = 256, OPT_ROOT, OPT_TREE, OPT_SIZE, OPT_FLIGHT, OPT_STOP_AT,
	OPT_CHUNK, OPT_RINGS, OPT_CALL_GRAPH, OPT_NO_INLINE, OPT_LINES,
};

/* The views' options are cgview's group (cgview.h), as kd's */

static const struct kfit_opt cg_opts[] = {
	{ "module", OPT_MODULE, "NAME", "every function of kernel module NAME" },
	{ "root", OPT_ROOT, "FUNC", "keep only what happens inside FUNC, per thread" },
	{ "depth", 'D', "N", "calls (sampled: frames) down to depth N" },
	{ "event", 'e', "CAT:NAME",
	  "show tracepoint CAT:NAME where it hit (globs; repeatable)" },
	{ "sample", 'S', NULL,
	  "sampled mode, -S [HZ]: stacks sampled HZ times a second (default 99)" },
	{ "call-graph", OPT_CALL_GRAPH, "MODE",
	  "sampled: how user stacks are walked: dwarf[,SIZE] (the default, SIZE "
	  "8192: the top SIZE bytes of each stack copied and unwound from the "
	  "files' .eh_frame) or fp (frame pointers, in the kernel)" },
	{ "no-inline", OPT_NO_INLINE, NULL,
	  "sampled: no frames of inlined functions (shown where DWARF is installed)" },
	{ "lines", OPT_LINES, NULL, "sampled: each user frame's source line (file.c:123), where "
	  "DWARF is installed" },
	{ "buffer", 'b', "SIZE", "size of each ring buffer (default 8M; with -o 64M "
	  "shared by the rings, 8M at least; rounded up to a power of 2 pages)" },
	{ "rings", OPT_RINGS, "N", "ring buffers, each of -b SIZE, a task's records in one "
	  "(default 1 below 16 CPUs, else CPUs / 8)" },
	{ "record", 'o', "FILE", "record into FILE (a kfit trace, read by kd) instead of "
	  "printing the trees" },
	{ "tree", OPT_TREE, NULL, "with -o: print the call tree too" },
	{ "size", OPT_SIZE, "SIZE", "with -o: end the recording when FILE reaches SIZE (k/M/G)" },
	{ "flight", OPT_FLIGHT, "SIZE",
	  "with -o: keep the last SIZE (compressed) in memory, write FILE on SIGUSR1, "
	  "--stop-at, the end of the first --root call, and at exit" },
	{ "stop-at", OPT_STOP_AT, "FUNC", "end when FUNC (traced, or added) first returns" },
	{ "chunk", OPT_CHUNK, "SIZE", "with -o: raw record bytes per chunk (default 1M)" },
	{ NULL },
};

/* The state every part shares (state.h) */
struct env env = {
	.hz = DEFAULT_HZ, .ustack_bytes = DEFAULT_USTACK, .buffer = DEFAULT_BUFFER,
	.root_idx = -1, .trigger_idx = -1,
};

static const struct kfit_opt_group view_group = KFIT_CGVIEW_GROUP(&env.view);

/* ---- command line ------------------------------------------------------ */

/* "8M", "64k", "1G" or bytes, 1 to max: 0, or -1 */
static int parse_size(const char *s, __u64 max, __u64 *out)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	if (*end && strchr("kK", *end))
		shift = 10;
	else if (*end && strchr("mM", *end))
		shift = 20;
	else if (*end && strchr("gG", *end))
		shift = 30;
	else if (*end)
		return -1;
	if (shift && end[1] && strcmp(end + 1, "B") && strcmp(end + 1, "iB"))
		return -1;
	if (!v || v > (max >> shift))
		return -1;
	*out = (__u64)v << shift;
	return 0;
}

/*
 * A ring's reserve takes its spinlock, and contention grows with the
 * CPUs writing: one producer 10.9 M records/s, 2 share 4.9, 16 share 2.6
 * (Nakryiko's ringbuf benchmark). One ring below 16 CPUs, where the
 * drain is cheapest; else one per 8 CPUs, as wprof shards.
 */
static unsigned long auto_rings(void)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (ncpus < 16)
		return 1;
	return ncpus / 8 < MAX_RINGS ? ncpus / 8 : MAX_RINGS;
}

/* Up to a power of 2, at least a page (the ring buffer's rule) */
static __u64 ring_size(__u64 want)
{
	__u64 page = sysconf(_SC_PAGESIZE), n = page;

	while (n < want)
		n <<= 1;
	return n;
}

static int add_event_spec(const char *arg)
{
	char **v = realloc(env.event_specs, (env.nevent_specs + 1) * sizeof(*v));

	if (!v)
		return -1;
	env.event_specs = v;
	v[env.nevent_specs++] = (char *)arg;
	return 0;
}

static int bad_size(const char *opt, const char *arg)
{
	fprintf(stderr, "callgraph: invalid size '%s' for %s: e.g. 64k, 8M, 1G\n", arg, opt);
	return -1;
}

/* The recording's options (-o and what goes with it) */
static int parse_record_opt(int key, const char *arg)
{
	switch (key) {
	case 'o':
		env.out = arg;
		return 0;
	case OPT_TREE:
		env.tree_too = true;
		return 0;
	case OPT_SIZE:
		return parse_size(arg, MAX_FILE, &env.size_cap) ? bad_size("--size", arg) : 0;
	case OPT_FLIGHT:
		return parse_size(arg, MAX_FILE, &env.flight) ? bad_size("--flight", arg) : 0;
	case OPT_STOP_AT:
		env.stop_at = arg;
		return 0;
	case OPT_CHUNK:
		if (parse_size(arg, MAX_CHUNK, &env.chunk) || env.chunk < MIN_CHUNK) {
			fprintf(stderr, "callgraph: invalid chunk size '%s': 4k to 1G\n", arg);
			return -1;
		}
		return 0;
	}
	return -1;
}

/* --call-graph fp | dwarf[,SIZE] */
static int parse_call_graph(const char *arg)
{
	__u64 size = DEFAULT_USTACK;

	if (!strcmp(arg, "fp")) {
		env.ustack_bytes = 0;
		return 0;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ',') ||
	    (arg[5] && (parse_size(arg + 6, CG_USTACK_MAX, &size) || size < MIN_USTACK))) {
		fprintf(stderr, "callgraph: invalid --call-graph '%s': fp, dwarf or "
			"dwarf,SIZE (%d to %d bytes, e.g. 16k)\n", arg, MIN_USTACK, CG_USTACK_MAX);
		return -1;
	}
	env.ustack_bytes = (size + 7) & ~7ULL;
	return 0;
}

static int parse_opt(int key, const char *arg, void *ctx)
{
	(void)ctx;
	switch (key) {
	case OPT_MODULE:
		env.module = arg;
		return 0;
	case OPT_ROOT:
		env.root = arg;
		return 0;
	case 'D':
		return kfit_cgview_parse_depth("callgraph", arg, &env.depth);
	case 'e':
		return add_event_spec(arg);
	case 'S':
		env.sample = true;
		return 0;
	case OPT_CALL_GRAPH:
		return parse_call_graph(arg);
	case OPT_NO_INLINE:
		env.no_inline = true;
		return 0;
	case OPT_LINES:
		env.lines = true;
		return 0;
	case 'b':
		if (parse_size(arg, MAX_BUFFER, &env.buffer)) {
			fprintf(stderr, "callgraph: invalid buffer size '%s': e.g. 64k, "
				"8M, 1G (at most 2G)\n", arg);
			return -1;
		}
		env.buffer_set = true;
		return 0;
	case OPT_RINGS:
		if (kfit_opts_parse_uint(arg, MAX_RINGS, &env.nrings) || !env.nrings) {
			fprintf(stderr, "callgraph: invalid number of rings '%s': 1 to %d\n",
				arg, MAX_RINGS);
			return -1;
		}
		return 0;
	}
	return parse_record_opt(key, arg);
}

static const struct kfit_tool tool = {
	.name = "callgraph",
	.summary = "Call trees, KFI's kd -c: every call of kernel, system-call or user "
		   "functions,\nnested, with the interrupts, context switches and "
		   "tracepoints around them; or,\nwithout a TARGET (or where the "
		   "kernel refuses), stacks sampled by perf events.\n"
		   "TARGET: FUNC or GLOB (kernel), sys:NAME or sys:GLOB (system "
		   "calls),\nBINARY:FUNC or LIB:FUNC (user functions, GLOB allowed), "
		   "each with (ARG, ...)\nto show arguments: 'vfs_read(count)'.\n"
		   "-p PID and a COMMAND are followed into the threads and "
		   "children they create.",
	.synopsis = "[OPTIONS] [TARGET...] [-- COMMAND [ARGS]]",
	.examples = "callgraph 'vfs_*' -p 1234          # vfs calls of a process, as trees\n"
		    "callgraph 'vfs_*' 'ext4_*' -- cat /etc/passwd  # one command\n"
		    "callgraph --root vfs_read 'vfs_*' 'rw_*' -D 3  # inside vfs_read only\n"
		    "callgraph --errors 'vfs_*' 'do_*' -- touch /ro/x  # where EROFS came from\n"
		    "callgraph 'do_sys_openat2(filename)' 'vfs_*' -- cat f  # with arguments\n"
		    "callgraph ./prog:'*' -e sched:sched_switch -- ./prog\n"
		    "callgraph --module e1000 -d 5s --summary  # a module's functions\n"
		    "callgraph 'tcp_*' --min 10us --folded > tcp.folded\n"
		    "callgraph -p 1234 -S 999 --svg prof.svg  # sampled, a flame graph\n"
		    "callgraph -S 999 --perfetto prof.json -- ./prog  # samples on a timeline\n"
		    "callgraph -S 99 -d 30 --pprof cpu.pb.gz  # for go tool pprof, Pyroscope\n"
		    "callgraph 'vfs_*' -d 1s --perfetto trace.json -j\n"
		    "callgraph -o w.kft -e syscalls:sys_enter_write -- dd ...  # record; kd w.kft\n"
		    "callgraph -o f.kft --flight 16M 'vfs_*' -p 1234  # the last 16M on kill -USR1\n",
	.common = KFIT_OPT_PID | KFIT_OPT_TID | KFIT_OPT_COMM | KFIT_OPT_CPU |
		  KFIT_OPT_DURATION | KFIT_OPT_JSON | KFIT_OPT_MINMAX | KFIT_OPT_ATTACH,
	.opts = cg_opts,
	.parse = parse_opt,
	.ctx = &env,
	.group = &view_group,
};

static int set_hz(const char *s)
{
	if (kfit_opts_parse_uint(s, MAX_HZ, &env.hz)) {
		fprintf(stderr, "callgraph: invalid sampling rate '%s' for -S: 1 to %d Hz\n",
			s, MAX_HZ);
		return -1;
	}
	return 0;
}

/*
 * -S takes an optional rate, which getopt cannot say: the word right
 * after -S (or in -S99, --sample=99) is taken out of argv here. -S takes
 * no TARGET, so a word there that is no number is a bad rate (-S abc).
 */
static int take_rate(int *argc, char **argv)
{
	const char *rate;
	int i;

	for (i = 1; i < *argc && strcmp(argv[i], "--"); i++) {
		rate = NULL;
		if (!strncmp(argv[i], "--sample=", 9))
			rate = argv[i] + 9;
		else if (!strncmp(argv[i], "-S", 2) && argv[i][2])
			rate = argv[i] + 2;
		if (rate) {
			if (set_hz(rate))
				return -1;
			argv[i] = "-S";
			continue;
		}
		if ((strcmp(argv[i], "-S") && strcmp(argv[i], "--sample")) ||
		    i + 1 >= *argc || argv[i + 1][0] == '-')
			continue;
		if (set_hz(argv[i + 1]))
			return -1;
		/* the rest moves down, the NULL after the last too */
		memmove(&argv[i + 1], &argv[i + 2], (*argc - i - 1) * sizeof(*argv));
		(*argc)--;
	}
	return 0;
}

/* Trees printed: always without -o, with -o when an output form is asked too */
static bool rendering(void)
{
	const struct kfit_cgview_args *v = &env.view;

	return !env.out || env.tree_too || v->summary || v->folded || env.c.json ||
	       v->svg || v->perfetto || v->pprof;
}


static int usage_error(const char *msg)
{
	fprintf(stderr, "callgraph: %s\nTry 'callgraph --help' for more information.\n", msg);
	return -1;
}

static int check_record_args(void)
{
	if (!env.out && (env.tree_too || env.size_cap || env.flight || env.chunk))
		return usage_error("--tree, --size, --flight and --chunk go with -o FILE");
	if (env.size_cap && env.flight)
		return usage_error("--size and --flight exclude each other");
	return 0;
}

static int check_args(int first, int argc, char **argv, bool dashdash)
{
	const struct kfit_cgview_args *v = &env.view;
	const char *bad = kfit_cgview_args_error(v, env.c.json);

	/* --errors EXPR: the word after it, when it reads as one */
	if (v->errors && first < argc && kfit_filter_is_expr(argv[first]))
		env.errors_expr = argv[first++];
	env.targets = argv + first;
	env.ntargets = argc - first;
	if (dashdash && !env.cmd)
		return usage_error("no COMMAND after --");
	if (env.cmd && (env.c.pid || env.c.tid))
		return usage_error("-p/-t and a COMMAND exclude each other");
	if (env.sample && cg_exact_wanted())
		return usage_error("-S samples stacks: it takes no TARGET, --module or -e");
	if (!cg_exact_wanted() && (env.root || env.c.has_max))
		return usage_error("--root and --max need a TARGET (exact mode): a sampled "
				   "frame is no call, with no duration to cap");
	if (cg_exact_wanted() && kfit_cgview_args_sampled(v))
		return usage_error("--percent-limit, --width and --addresses go with "
				   "sampled mode (no TARGET)");
	/* sampled: they shape the tree printed, the recording keeps every frame */
	if (!cg_exact_wanted() && !rendering() &&
	    (env.depth || env.c.has_min || kfit_cgview_args_sampled(v)))
		return usage_error("-D, --min, --percent-limit, --width and --addresses shape "
				   "the sampled tree printed: with -o add --tree, or give them "
				   "to kd");
	if (v->errors && !cg_exact_wanted())
		return usage_error("--errors needs a TARGET (exact mode): sampled frames "
				   "return no value");
	/* the recording keeps every call: --errors shapes what is printed */
	if (v->errors && !rendering())
		return usage_error("--errors shapes the tree printed: with -o add --tree, "
				   "or give it to kd");
	if ((env.root || v->summary) && !env.ntargets && !env.module)
		return usage_error("--root and --summary need a TARGET (exact mode)");
	if (bad)
		return usage_error(bad);
	return check_record_args();
}

/* ---- what to trace ---------------------------------------------------- */

/* Every function of a loaded module, from kallsyms */
static int add_module(const char *mod)
{
	struct kfit_ksyms *ks = kfit_ksyms_load(NULL);
	const struct kfit_ksym *s;
	int i, n = 0, err = 0;

	if (!ks) {
		kfit_err("cannot read /proc/kallsyms: %s", strerror(errno));
		return -errno;
	}
	for (i = 0; i < kfit_ksyms_count(ks) && !err; i++) {
		s = kfit_ksyms_at(ks, i);
		if (!s->module || strcmp(s->module, mod) || !kfit_ksym_is_func(s) ||
		    strchr(s->name, '.'))
			continue;
		err = kfit_targets_add(&env.tg, s->name);
		n++;
	}
	kfit_ksyms_free(ks);
	if (!err && !n) {
		kfit_err("no module '%s' is loaded (see /proc/modules), or it has "
			 "no functions", mod);
		return -EINVAL;
	}
	return err;
}

static int resolve_events(void)
{
	char msg[512];
	int i, err;

	for (i = 0; i < env.nevent_specs; i++) {
		err = kfit_tpglob_add(&env.tps, NULL, env.event_specs[i], msg, sizeof(msg));
		if (err) {
			kfit_err("%s", msg);
			return err == -ENOENT ? -EINVAL : err;
		}
	}
	if (env.tps.n > MAX_EVENTS) {
		kfit_err("too many tracepoints (%d): at most %d", env.tps.n, MAX_EVENTS);
		return -EINVAL;
	}
	return 0;
}

static void list_skipped(void)
{
	int i;

	for (i = 0; i < env.tg.nskipped; i++)
		fprintf(stderr, "  %s: %s\n", env.tg.skipped[i].name,
			env.tg.skipped[i].reason);
}

/* The functions' names, return kinds and arguments, for the tree; --errors EXPR on them */
static int function_tables(void)
{
	int i;

	env.fnames = calloc(env.tg.n + 1, sizeof(*env.fnames));
	env.ret_kinds = calloc(env.tg.n + 1, sizeof(*env.ret_kinds));
	env.fargs = calloc(env.tg.n + 1, sizeof(*env.fargs));
	if (!env.fnames || !env.ret_kinds || !env.fargs)
		return -ENOMEM;
	for (i = 0; i < env.tg.n; i++) {
		env.fnames[i] = env.tg.funcs[i].name;
		env.ret_kinds[i] = env.tg.funcs[i].ret;
		env.fargs[i] = (struct kfit_fargfmt){
			.a = env.tg.funcs[i].fmt, .n = env.tg.funcs[i].nargs,
		};
	}
	if (!env.errors_expr)
		return 0;
	return kfit_failexpr_new(env.errors_expr, env.fargs, env.tg.n, &env.failexpr);
}

static int resolve_targets(void)
{
	int i, err = 0;

	env.tg.need_btf = env.c.attach == KFIT_AM_AUTO || env.c.attach == KFIT_AM_FENTRY;
	env.tg.no_deny = env.c.no_deny;
	env.tg.pid = env.c.pid;
	for (i = 0; i < env.ntargets && !err; i++)
		err = kfit_targets_add(&env.tg, env.targets[i]);
	if (!err)
		env.has_args = kfit_args_any(&env.tg);
	if (!err && env.module)
		err = add_module(env.module);
	if (!err && env.root) {
		env.root_idx = kfit_targets_one(&env.tg, env.root);
		err = env.root_idx < 0 ? env.root_idx : 0;
	}
	if (!err && env.stop_at) {
		env.trigger_idx = kfit_targets_one(&env.tg, env.stop_at);
		err = env.trigger_idx < 0 ? env.trigger_idx : 0;
	} else if (!err && env.flight && env.root) {
		env.trigger_idx = env.root_idx;
	}
	if (!err)
		err = resolve_events();
	if (err)
		return err;
	kfit_targets_ret_kinds(&env.tg);
	if ((env.ntargets || env.module || env.stop_at) && !env.tg.n) {
		kfit_err("nothing to trace: every function was skipped");
		list_skipped();
		return -ENOENT;
	}
	return function_tables();
}

/* ---- output ------------------------------------------------------------ */

/* The run loop's poll: sampled names, a flight dump asked for (SIGUSR1), the rings */
static int poll_records(void *ctx, int timeout_ms)
{
	int n;

	(void)ctx;
	cg_write_syms();
	if (kfit_usr1)
		cg_flight_dump();
	n = kfit_events_poll(env.ev, timeout_ms);
	if (n < 0) {
		if (!env.write_failed)
			kfit_err("reading the records failed: %s", kfit_reason(n));
		return n;
	}
	return 0;
}

static int report(void *ctx, bool last)
{
	int err, rerr = 0;

	(void)ctx;
	if (!last)
		return 0;
	err = cg_stop_capture();
	/* whatever was read goes into the file: it ends complete */
	if (env.w)
		rerr = cg_end_recording();
	if (err || rerr)
		return err ? err : rerr;
	return env.render ? cg_render() : 0;
}

/* ---- main --------------------------------------------------------------- */

static void announce(void)
{
	char what[96];

	if (env.c.verbose)
		kfit_info("tracepoints through %s", env.tp_mode);
	if (env.att) {
		kfit_attacher_announce(env.att);
		return;
	}
	if (env.sampled)
		snprintf(what, sizeof(what), "stacks at %u Hz (%s)",
			 kfit_sampler_hz(env.sampler), kfit_sampler_event(env.sampler));
	else
		snprintf(what, sizeof(what), "%d tracepoint%s", env.tps.n,
			 env.tps.n == 1 ? "" : "s");
	kfit_tracing(what);
}

/* The decoder, with the tables of functions and tracepoints its ids index */
static int new_tree(void)
{
	struct kfit_ctree_opts to;
	int i;

	env.nfuncs = env.tg.n;
	env.enames = calloc(env.tps.n + 1, sizeof(*env.enames));
	if (!env.enames || (!env.fnames && function_tables()))
		return -ENOMEM;
	for (i = 0; i < env.tps.n; i++)
		env.enames[i] = env.tps.tp[i].name;
	env.syms = kfit_syms_new(NULL);
	if (env.syms)
		kfit_syms_set_dwarf(env.syms, !env.no_inline, env.lines);
	env.unwind = env.syms ? kfit_unwind_new(env.syms) : NULL;
	env.tasks = kfit_tasks_new(true);
	if (!env.tasks)
		return -ENOMEM;
	to = (struct kfit_ctree_opts){
		.funcs = env.fnames,
		.nfuncs = env.nfuncs,
		.ret_kinds = env.ret_kinds,
		.fargs = env.fargs,
		.events = env.enames,
		.nevents = env.tps.n,
		.no_interlace = env.view.no_interlace,
		.sym = env.syms ? kfit_syms_name : NULL,
		.sym_ctx = env.syms,
		.group_unknown = !env.view.addresses,
	};
	if (env.failexpr)
		kfit_failexpr_use(env.failexpr, &to);
	/* --summary, --folded, --svg, --pprof: the calls summed as they end, none kept */
	env.view_funcs = calloc(env.nfuncs + 1, sizeof(*env.view_funcs));
	if (!env.view_funcs)
		return -ENOMEM;
	cg_view_funcs(env.view_funcs);
	if (kfit_cgview_stream(&env.view, &(struct kfit_cgview_stream_in){
		.nfuncs = env.nfuncs, .funcs = env.view_funcs, .json = env.c.json,
		.tree = env.tree_too, .one_ring = env.nrings <= 1, .origin = &env.start_ns,
		.sampled = !cg_exact_wanted(),
	}, &to))
		return -ENOMEM;
	env.tree = kfit_ctree_new(&to);
	return env.tree ? 0 : -ENOMEM;
}

static void cleanup(void)
{
	kfit_child_stop(&env.child);
	cg_unload();
	kfit_ctree_free(env.tree);
	kfit_unwind_free(env.unwind);
	kfit_syms_free(env.syms);
	free(env.fnames);
	free(env.ret_kinds);
	free(env.fargs);
	kfit_failexpr_free(env.failexpr);
	free(env.enames);
	free(env.view_funcs);
	kfit_tasks_free(env.tasks);
	kfit_targets_free(&env.tg);
	kfit_tpglob_free(&env.tps);
	free(env.links);
	free(env.event_specs);
	free(env.cap.lost);
	if (env.names)
		fclose(env.names);
	free(env.names_buf);
	/* nothing recorded yet: no file left, and what was there stays */
	kft_writer_abort(env.w);
	kfit_cgview_close(&env.view);
	kfit_kftmeta_symset_free(env.symset);
	free(env.tasks_block);
}

static int run(void)
{
	int err;

	err = new_tree();
	if (err) {
		kfit_err("%s", kfit_reason(err));
		return 1;
	}
	err = cg_start();
	/* the mode is known now: what the decoder makes of the records */
	env.stream = (struct kfit_stream){
		.tree = env.tree, .tasks = env.tasks, .sampled = env.sampled,
	};
	if (!err)
		err = cg_timeline();
	if (!err)
		err = cg_name_tasks();
	/* a signal while attaching: detached again, nothing traced */
	if (kfit_exiting)
		return kfit_interrupted();
	if (err)
		return 1;
	kfit_attacher_activate(env.att, &env.skel->bss->kfit_ready);
	env.start_ns = kfit_now_ns();
	err = env.sampler ? kfit_sampler_enable(env.sampler) : 0;
	if (err) {
		kfit_err("cannot start sampling: %s", kfit_reason(err));
		return 1;
	}
	if (env.w && cg_begin_recording())
		return 1;
	announce();
	if (env.cmd && kfit_child_start(&env.child))
		return 1;
	err = kfit_run(&env.c, &(struct kfit_loop){
		.report = report,
		.poll = poll_records,
		.child = env.cmd ? &env.child : NULL,
	});
	kfit_child_note(&env.child);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	int first, nargs, err;

	if (take_rate(&argc, argv))
		return 2;
	nargs = kfit_child_split_command(argc, argv, &env.cmd);
	first = kfit_opts_parse_args(&tool, &env.c, nargs, argv);
	if (first < 0 || check_args(first, nargs, argv, nargs < argc))
		return 2;
	kfit_setup("callgraph", &env.c);
	if (kfit_child_io_setup(env.c.output, env.cmd))
		return 1;
	/* one sent early waits for tracing: a flight recording is written then */
	if (env.out)
		kfit_catch_usr1();
	env.argc = argc;
	env.argv = argv;
	env.render = rendering();
	if (!env.nrings)
		env.nrings = auto_rings();
	/* -o's default is a total, shared by the rings: at least 8M each */
	if (env.out && !env.buffer_set)
		env.buffer = RECORD_BUFFER / env.nrings > DEFAULT_BUFFER ?
			     RECORD_BUFFER / env.nrings : DEFAULT_BUFFER;
	env.buffer = ring_size(env.buffer);
	if (cg_exact_wanted()) {
		err = resolve_targets();
		if (err) {
			cleanup();
			return err == -EINVAL || err == -ENOENT ? 2 : 1;
		}
	}
	/* held before exec: its pid is followed from its exec */
	if (env.cmd) {
		if (kfit_child_fork(&env.child, env.cmd))
			return 1;
		env.c.pid = env.child.proc.pid;
	}
	if (kfit_caps_check() || (env.out && cg_open_recording()) || kfit_cgview_open(&env.view)) {
		cleanup();
		return 1;
	}
	kfit_arm_cleanup();
	err = run();	/* an exit status: 130 for a SIGINT in start-up */
	cleanup();
	return kfit_child_exit(&env.child, err);
}
