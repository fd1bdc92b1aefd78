// SPDX-License-Identifier: GPL-2.0
/*
 * callgraph: call trees, KFI's kd -c. Exact mode: every call of the
 * traced functions, with the interrupts, context switches and chosen
 * tracepoints around them; sampled mode: perf-event stack samples.
 * BPF side: bpf/callgraph.bpf.c, records: include/kfit/rec.h, trees:
 * src/lib/tree/calltree.c.
 */
#include <ctype.h>
#include <stddef.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kfit/callgraph.h"
#include "callgraph.skel.h"
#include "attach.h"
#include "calltree.h"
#include "caps.h"
#include "cgview.h"
#include "child.h"
#include "diag.h"
#include "duration.h"
#include "events.h"
#include "explain.h"
#include "export.h"
#include "fileio.h"
#include "fstats.h"
#include "kft.h"
#include "kftmeta.h"
#include "ksyms.h"
#include "maps.h"
#include "opts.h"
#include "output.h"
#include "record.h"
#include "run.h"
#include "sampler.h"
#include "syms.h"
#include "target.h"
#include "tpglob.h"
#include "treeprint.h"
#include "state.h"

#define DEFAULT_HZ	KFIT_SAMPLE_HZ
#define MAX_HZ		100000
#define DEFAULT_BUFFER	(8ULL << 20)
#define MAX_BUFFER	(1ULL << 31)
#define MAX_EVENTS	1024
#define RECORD_BUFFER	(64ULL << 20)	/* -o: room for ~0.3 s of dd's writes */
#define MAX_FILE	(1ULL << 50)
#define MIN_CHUNK	4096
#define MAX_CHUNK	(1ULL << 30)
#define MAX_RINGS	256

enum {
	OPT_MODULE = 256, OPT_ROOT, OPT_SUMMARY, OPT_FOLDED, OPT_SVG, OPT_PERFETTO,
	OPT_NO_INTERLACE, OPT_TREE, OPT_SIZE, OPT_FLIGHT, OPT_STOP_AT, OPT_CHUNK,
	OPT_RINGS, OPT_PCT, OPT_WIDTH, OPT_ADDRESSES,
};

static const struct kfit_opt cg_opts[] = {
	{ "module", OPT_MODULE, "NAME", "every function of kernel module NAME" },
	{ "root", OPT_ROOT, "FUNC", "keep only what happens inside FUNC, per thread" },
	{ "depth", 'D', "N", "calls (sampled: frames) down to depth N" },
	{ "event", 'e', "CAT:NAME",
	  "show tracepoint CAT:NAME where it hit (globs; repeatable)" },
	{ "sample", 'S', NULL,
	  "sampled mode, -S [HZ]: stacks sampled HZ times a second (default 99)" },
	{ "percent-limit", OPT_PCT, "PCT",
	  "sampled: hide frames under PCT% of samples (0.5)" },
	{ "width", OPT_WIDTH, "N", "sampled: cut lines to N columns (0: never)" },
	{ "addresses", OPT_ADDRESSES, NULL,
	  "sampled: unnamed frames as FILE+0xOFF each" },
	{ "summary", OPT_SUMMARY, NULL,
	  "per function: COUNT TOTAL AVG LOCAL MAX MAX-SUB (kd's table)" },
	{ "sort", 's', "KEY", "with --summary: time (default), local, count, avg or max" },
	{ "top", 'n', "N", "with --summary: the top N functions" },
	{ "folded", OPT_FOLDED, NULL,
	  "folded stacks on stdout (self ns; samples in sampled mode)" },
	{ "svg", OPT_SVG, "FILE", "a flame graph into FILE (SVG)" },
	{ "perfetto", OPT_PERFETTO, "FILE",
	  "Chrome trace-event JSON into FILE (ui.perfetto.dev)" },
	{ "no-interlace", OPT_NO_INTERLACE, NULL,
	  "interrupts listed apart, not inside the task they struck" },
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
	.hz = DEFAULT_HZ, .buffer = DEFAULT_BUFFER, .root_idx = -1, .trigger_idx = -1,
};

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
		if (kfit_parse_uint(arg, 65535, &env.depth)) {
			fprintf(stderr, "callgraph: invalid depth '%s': a number from 1\n", arg);
			return -1;
		}
		return 0;
	case 'e':
		return add_event_spec(arg);
	case OPT_PCT:
		env.pct_set = true;
		return kfit_cgview_parse_pct("callgraph", arg, &env.pct);
	case OPT_WIDTH:
		env.width_set = true;
		return kfit_cgview_parse_width("callgraph", arg, &env.width);
	case OPT_ADDRESSES:
		env.addresses = true;
		return 0;
	case 'S':
		env.sample = true;
		return 0;
	case OPT_SUMMARY:
		env.summary = true;
		return 0;
	case 's':
		return kfit_fstats_parse_sort("callgraph", arg, &env.sort);
	case 'n':
		return kfit_fstats_parse_top("callgraph", arg, &env.top);
	case OPT_FOLDED:
		env.folded = true;
		return 0;
	case OPT_SVG:
		env.svg = arg;
		return 0;
	case OPT_PERFETTO:
		env.perfetto = arg;
		return 0;
	case OPT_NO_INTERLACE:
		env.no_interlace = true;
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
		if (kfit_parse_uint(arg, MAX_RINGS, &env.nrings) || !env.nrings) {
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
		   "calls),\nBINARY:FUNC or LIB:FUNC (user functions, GLOB allowed).\n"
		   "-p PID and a COMMAND are followed into the threads and "
		   "children they create.",
	.synopsis = "[OPTIONS] [TARGET...] [-- COMMAND [ARGS]]",
	.examples = "callgraph 'vfs_*' -p 1234          # vfs calls of a process, as trees\n"
		    "callgraph 'vfs_*' 'ext4_*' -- cat /etc/passwd  # one command\n"
		    "callgraph --root vfs_read 'vfs_*' 'rw_*' -D 3  # inside vfs_read only\n"
		    "callgraph ./prog:'*' -e sched:sched_switch -- ./prog\n"
		    "callgraph --module e1000 -d 5s --summary  # a module's functions\n"
		    "callgraph 'tcp_*' --min 10us --folded > tcp.folded\n"
		    "callgraph -p 1234 -S 999 --svg prof.svg  # sampled, a flame graph\n"
		    "callgraph 'vfs_*' -d 1s --perfetto trace.json -j\n"
		    "callgraph -o w.kft -e syscalls:sys_enter_write -- dd ...  # record; kd w.kft\n"
		    "callgraph -o f.kft --flight 16M 'vfs_*' -p 1234  # the last 16M on kill -USR1\n",
	.common = KFIT_OPT_PID | KFIT_OPT_TID | KFIT_OPT_COMM | KFIT_OPT_CPU |
		  KFIT_OPT_DURATION | KFIT_OPT_JSON | KFIT_OPT_MINMAX | KFIT_OPT_ATTACH,
	.opts = cg_opts,
	.parse = parse_opt,
	.ctx = &env,
};

static int set_hz(const char *s)
{
	if (kfit_parse_uint(s, MAX_HZ, &env.hz)) {
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
	return !env.out || env.tree_too || env.summary || env.folded || env.c.json ||
	       env.svg || env.perfetto;
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
	int stdout_forms;

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
	if (cg_exact_wanted() && (env.pct_set || env.width_set || env.addresses))
		return usage_error("--percent-limit, --width and --addresses go with "
				   "sampled mode (no TARGET)");
	/* sampled: they shape the tree printed, the recording keeps every frame */
	if (!cg_exact_wanted() && !rendering() &&
	    (env.depth || env.c.has_min || env.pct_set || env.width_set || env.addresses))
		return usage_error("-D, --min, --percent-limit, --width and --addresses shape "
				   "the sampled tree printed: with -o add --tree, or give them "
				   "to kd");
	if ((env.root || env.summary) && !env.ntargets && !env.module)
		return usage_error("--root and --summary need a TARGET (exact mode)");
	if (env.perfetto && !cg_exact_wanted())
		return usage_error("--perfetto needs a TARGET or -e: sampled stacks have no timeline");
	stdout_forms = env.summary + env.folded + env.c.json;
	if (stdout_forms > 1)
		return usage_error("--summary, --folded and -j exclude each other");
	if ((env.sort || env.top) && !env.summary)
		return usage_error("-s and -n go with --summary");
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
		err = kfit_tps_add(&env.tps, NULL, env.event_specs[i], msg, sizeof(msg));
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

static int resolve_targets(void)
{
	int i, err = 0;

	env.tg.need_btf = env.c.attach == KFIT_AM_AUTO || env.c.attach == KFIT_AM_FENTRY;
	env.tg.no_deny = env.c.no_deny;
	env.tg.pid = env.c.pid;
	for (i = 0; i < env.ntargets && !err; i++)
		err = kfit_targets_add(&env.tg, env.targets[i]);
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
	if ((env.ntargets || env.module || env.stop_at) && !env.tg.n) {
		kfit_err("nothing to trace: every function was skipped");
		list_skipped();
		return -ENOENT;
	}
	return 0;
}

/* ---- loading and attaching ------------------------------------------- */

static void configure(struct callgraph_bpf *s)
{
	struct callgraph_bpf__rodata *r = s->rodata;

	r->self_tgid = getpid();
	r->filter_tid = env.c.tid;
	r->filter_comm = env.c.comm[0] != '\0';
	memcpy((char *)r->comm, env.c.comm, sizeof(env.c.comm));
	r->filter_cpu = env.c.cpus.set;
	r->follow = env.c.pid != 0;
	if (!r->follow)		/* preallocated: no room taken for nothing */
		bpf_map__set_max_entries(s->maps.tracked, 1);
	r->all_task_records = r->follow || env.sampled;
	r->root_id = env.root_idx + 1;
	r->max_depth = env.depth;
	r->min_ns = env.c.has_min ? env.c.min_ns : 0;
	r->max_ns = env.c.has_max ? env.c.max_ns : 0;
	r->wake_bytes = env.buffer / 4;
	r->nrings = env.nrings;
	bpf_map__set_max_entries(s->maps.rb, env.buffer);
	/* one ring: the programs never look at rings */
	bpf_map__set_max_entries(s->maps.rings, env.nrings);
	bpf_map__set_autocreate(s->maps.rings, env.nrings > 1);
	bpf_map__set_max_entries(s->maps.ev_size, env.tps.n ? env.tps.n : 1);
}

/*
 * The tracepoint programs of a flavour (tp_btf, or raw for kernels that
 * refuse it): fork, exec and exit always (they grow and prune tracked),
 * context switches and interrupts in exact mode. Returns how many.
 */
static int tp_progs(struct callgraph_bpf *s, bool btf, bool exact,
		    struct bpf_program **out)
{
	struct bpf_program *all[][2] = {
		{ s->progs.fork_btf, s->progs.fork_raw },
		{ s->progs.exec_btf, s->progs.exec_raw },
		{ s->progs.exit_btf, s->progs.exit_raw },
		{ s->progs.switch_btf, s->progs.switch_raw },
		{ s->progs.irq_entry_btf, s->progs.irq_entry_raw },
		{ s->progs.irq_exit_btf, s->progs.irq_exit_raw },
		{ s->progs.softirq_entry_btf, s->progs.softirq_entry_raw },
		{ s->progs.softirq_exit_btf, s->progs.softirq_exit_raw },
	};
	int i, n = exact ? 8 : 3;

	for (i = 0; i < n; i++)
		out[i] = all[i][btf ? 0 : 1];
	return n;
}

static int keep_link(struct bpf_link *l)
{
	struct bpf_link **v;

	if (!l)
		return -errno;
	v = realloc(env.links, (env.nlinks + 1) * sizeof(*v));
	if (!v) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	env.links = v;
	env.links[env.nlinks++] = l;
	return 0;
}

/*
 * The rings beyond rb (nrings > 1), each of -b SIZE, into rings: before
 * any program runs, so that no record is written to none.
 */
static int make_rings(void)
{
	__u32 i, n = env.nrings;
	int fd, outer = bpf_map__fd(env.skel->maps.rings);

	env.ring_fds = calloc(n, sizeof(*env.ring_fds));
	if (!env.ring_fds)
		return -ENOMEM;
	env.ring_fds[0] = bpf_map__fd(env.skel->maps.rb);
	for (i = 1; i < n; i++)
		env.ring_fds[i] = -1;
	for (i = 0; i < n; i++) {
		fd = i ? bpf_map_create(BPF_MAP_TYPE_RINGBUF, "cg_rb", 0, 0,
					env.buffer, NULL) : env.ring_fds[0];
		if (fd < 0)
			return -errno;
		env.ring_fds[i] = fd;
		if (n > 1 && bpf_map_update_elem(outer, &i, &fd, BPF_ANY))
			return -errno;
	}
	kfit_debug("%u ring buffer%s of %llu bytes", n, n > 1 ? "s" : "",
		   (unsigned long long)env.buffer);
	return 0;
}

static void free_rings(void)
{
	__u32 i;

	for (i = 1; env.ring_fds && i < env.nrings; i++)
		if (env.ring_fds[i] >= 0)
			close(env.ring_fds[i]);
	free(env.ring_fds);
	env.ring_fds = NULL;
}

/* Everything but the functions' links (the attacher's): nothing stays attached */
static void unload(void)
{
	while (env.nlinks)
		bpf_link__destroy(env.links[--env.nlinks]);
	kfit_sampler_free(env.sampler);
	env.sampler = NULL;
	kfit_events_free(env.ev);
	env.ev = NULL;
	free_rings();
	kfit_attacher_free(env.att);
	env.att = NULL;
	callgraph_bpf__destroy(env.skel);
	env.skel = NULL;
}

static int seed_maps(void)
{
	struct callgraph_bpf *s = env.skel;
	__u32 pid = env.c.pid, cpu, i;
	__u8 one = 1;

	if (pid && bpf_map_update_elem(bpf_map__fd(s->maps.tracked), &pid, &one, BPF_ANY))
		return -errno;
	for (cpu = 0; env.c.cpus.set && cpu < KFIT_MAX_CPUS; cpu++)
		if (kfit_cpu_selected(&env.c.cpus, cpu) &&
		    bpf_map_update_elem(bpf_map__fd(s->maps.cpus), &cpu, &one, BPF_ANY))
			return -errno;
	for (i = 0; i < (__u32)env.tps.n; i++) {
		/* the first bytes of __data_loc strings too */
		__u32 v = env.tps.tp[i].dynamic ? KFIT_EVENT_DATA : env.tps.tp[i].size;

		if (!strncmp(env.tps.tp[i].name, "syscalls:", 9))
			v |= CG_EV_SYSCALL;
		if (bpf_map_update_elem(bpf_map__fd(s->maps.ev_size), &i, &v, BPF_ANY))
			return -errno;
	}
	return 0;
}

static int on_record(void *ctx, const void *data, size_t size);

static int open_events(void)
{
	struct kfit_events_opts o = {
		.rb_fds = env.ring_fds,
		.nrings = env.nrings,
		.lost_fd = bpf_map__fd(env.skel->maps.counters),
		.lost_key = CG_LOST,
		.fn = on_record,
	};

	env.ev = kfit_events_new(&o);
	return env.ev ? 0 : -errno;
}

static int attach_tps(bool btf, bool exact)
{
	struct bpf_program *p[8];
	int i, n, err = 0;

	n = tp_progs(env.skel, btf, exact, p);
	for (i = 0; i < n && !err; i++)
		err = keep_link(bpf_program__attach(p[i]));
	return err;
}

/*
 * The program of an event: the one that loads its size class straight
 * from the context when its record's size is a multiple of 8 (the kernel
 * lets it read no further), else (or when strings follow the record's
 * fields) the one that copies with bpf_probe_read_kernel.
 */
static struct bpf_program *event_prog(struct callgraph_bpf *s, unsigned int size,
				      bool dynamic)
{
	struct bpf_program *direct[] = {
		s->progs.cg_event8, s->progs.cg_event16, s->progs.cg_event24,
		s->progs.cg_event32, s->progs.cg_event40, s->progs.cg_event48,
		s->progs.cg_event56, s->progs.cg_event64,
	};

	if (!size || size % 8 || dynamic)
		return s->progs.cg_event;
	if (size > KFIT_EVENT_DATA)
		size = KFIT_EVENT_DATA;
	return direct[size / 8 - 1];
}

/* -e: each tracepoint with its index as cookie */
static int attach_events(void)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, o);
	char cat[256];
	const char *name;
	int i, err;

	for (i = 0; i < env.tps.n; i++) {
		/* a signal in a long start-up (sys:*): undone and said at once */
		if (kfit_exiting)
			return -EINTR;
		name = strchr(env.tps.tp[i].name, ':') + 1;
		snprintf(cat, sizeof(cat), "%.*s", (int)(name - 1 - env.tps.tp[i].name),
			 env.tps.tp[i].name);
		o.bpf_cookie = i;
		err = keep_link(bpf_program__attach_tracepoint_opts(
				event_prog(env.skel, env.tps.tp[i].size,
					   env.tps.tp[i].dynamic), cat, name, &o));
		if (err) {
			kfit_explain_attach("tracepoint", env.tps.tp[i].name, err);
			return err;
		}
	}
	return 0;
}

static void autoload_tps(bool btf, bool exact)
{
	struct bpf_program *p[8];
	int i, n;

	n = tp_progs(env.skel, btf, exact, p);
	for (i = 0; i < n; i++)
		bpf_program__set_autoload(p[i], true);
}

/* Both modes, once the programs are chosen: load, fill the maps, attach the tracepoints */
static int load_rest(bool btf, bool exact)
{
	int err = callgraph_bpf__load(env.skel);

	if (!err)
		err = make_rings();
	if (!err)
		err = seed_maps();
	if (!err)
		err = open_events();
	if (!err)
		err = attach_tps(btf, exact);
	return err;
}

/*
 * Open and load for exact mode: the attacher chooses the functions'
 * programs (*refused: no mechanism works here for them).
 */
static int load_exact(bool btf, bool *refused)
{
	struct callgraph_bpf *s;
	struct bpf_program *p;
	int i, err;

	s = env.skel = callgraph_bpf__open();
	if (!s)
		return -errno;
	configure(s);
	bpf_object__for_each_program(p, s->obj)
		bpf_program__set_autoload(p, false);
	if (env.att) {
		err = kfit_attacher_prepare(env.att, &(struct kfit_attach_progs){
			.obj = s->obj,
			.fentry = s->progs.cg_fentry, .fexit = s->progs.cg_fexit,
			.kprobe = s->progs.cg_kprobe, .kretprobe = s->progs.cg_kretprobe,
			.kmulti = s->progs.cg_kmulti, .kmulti_ret = s->progs.cg_kmulti_ret,
			.uprobe = s->progs.cg_uprobe, .uretprobe = s->progs.cg_uretprobe,
			.sys_enter = s->progs.cg_sys_enter, .sys_exit = s->progs.cg_sys_exit,
			.follow_rb = s->maps.follow_rb,
			.follow_notify = &s->bss->follow_notify,
			.follow_lost = &s->bss->follow_lost,
		});
		*refused = err != 0;
		if (err)
			return err;
	}
	autoload_tps(btf, true);
	for (i = 0; i < env.tps.n; i++)
		bpf_program__set_autoload(event_prog(s, env.tps.tp[i].size,
						     env.tps.tp[i].dynamic), true);
	return load_rest(btf, true);
}

/* Returns 0, 1 when exact tracing is refused here (sampled mode then), or -errno */
static int start_exact(void)
{
	/* Uprobes in -p's process or COMMAND's and the processes they create */
	struct kfit_attach_opts ao = {
		.mech = env.c.attach,
		.umech = env.c.uattach,
		.pid = env.c.pid,
		.follow = env.c.pid != 0,
		.unfiltered = env.c.no_ufilter,
		.verbose = env.c.verbose,
		.progress = isatty(STDERR_FILENO),
		.uprobe_limit = env.c.uprobe_limit,
		.force = env.c.force,
	};
	bool refused = false;
	int err;

	if (env.tg.n && !(env.att = kfit_attacher_new(&env.tg, &ao)))
		return -ENOMEM;
	env.tp_mode = "tp_btf";
	err = load_exact(true, &refused);
	if (err && !refused && err != -ENOMEM) {
		kfit_debug("tp_btf failed (%s); trying raw tracepoints", kfit_reason(err));
		unload();
		if (env.tg.n && !(env.att = kfit_attacher_new(&env.tg, &ao)))
			return -ENOMEM;
		env.tp_mode = "raw_tracepoint";
		err = load_exact(false, &refused);
	}
	if (refused)
		return 1;
	if (err) {
		kfit_err("cannot load the BPF programs: %s", kfit_reason(err));
		return err;
	}
	err = attach_events();
	if (err || !env.att)
		return err;
	err = kfit_attacher_attach(env.att);
	/* interrupted, out of memory, refused on a shared binary: no fallback */
	if (err == -EINTR || err == -ENOMEM || err == -EBUSY)
		return err;
	return err ? 1 : 0;
}

/* ---- sampled mode ------------------------------------------------------ */

static int load_sampled(bool btf)
{
	struct callgraph_bpf *s;
	struct bpf_program *p;

	s = env.skel = callgraph_bpf__open();
	if (!s)
		return -errno;
	configure(s);
	bpf_object__for_each_program(p, s->obj)
		bpf_program__set_autoload(p, false);
	autoload_tps(btf, false);
	bpf_program__set_autoload(s->progs.cg_sample, true);
	return load_rest(btf, false);
}

static int start_sampled(void)
{
	int err;

	env.sampled = true;
	env.tp_mode = "tp_btf";
	err = load_sampled(true);
	if (err && err != -ENOMEM) {
		kfit_debug("tp_btf failed (%s); trying raw tracepoints", kfit_reason(err));
		unload();
		env.tp_mode = "raw_tracepoint";
		err = load_sampled(false);
	}
	if (err) {
		kfit_err("cannot load the BPF programs: %s", kfit_reason(err));
		return err;
	}
	return kfit_sampler_open(env.skel->progs.cg_sample, &(struct kfit_sampler_opts){
		.hz = env.hz,
		.cpus = &env.c.cpus,
	}, &env.sampler);
}

static int start(void)
{
	int err;

	if (!cg_exact_wanted())
		return start_sampled();
	err = start_exact();
	if (err <= 0)
		return err;
	unload();
	kfit_warn("exact tracing is refused here (above): sampling stacks instead "
		  "(-S %lu)", env.hz);
	return start_sampled();
}

/* ---- task names -------------------------------------------------------- */

/* The tids named so far: open addressing, 0 an empty slot */
struct tidset {
	__u32 *v;
	unsigned int mask;
	unsigned int n;
};

static struct tidset named, unreadable;	/* unreadable: /proc had no comm */

static bool tid_has(const struct tidset *s, __u32 tid)
{
	unsigned int i;

	for (i = (tid * 2654435761u) & s->mask; s->v && s->v[i]; i = (i + 1) & s->mask)
		if (s->v[i] == tid)
			return true;
	return false;
}

/* 1 added, 0 there already */
static int tid_put(struct tidset *s, __u32 tid)
{
	unsigned int i;

	for (i = (tid * 2654435761u) & s->mask; s->v[i]; i = (i + 1) & s->mask)
		if (s->v[i] == tid)
			return 0;
	s->v[i] = tid;
	s->n++;
	return 1;
}

/* 1 added, 0 there already, -ENOMEM */
static int tid_add(struct tidset *s, __u32 tid)
{
	struct tidset big;
	unsigned int i;

	if (s->v && 2 * (s->n + 1) <= s->mask + 1)
		return tid_put(s, tid);
	big.mask = s->v ? 2 * s->mask + 1 : 1023;
	big.n = 0;
	big.v = calloc(big.mask + 1, sizeof(*big.v));
	if (!big.v)
		return -ENOMEM;
	for (i = 0; s->v && i <= s->mask; i++)
		if (s->v[i])
			tid_put(&big, s->v[i]);
	free(s->v);
	*s = big;
	return tid_put(s, tid);
}

static int name(__u32 pid, __u32 tid, const char *comm)
{
	int r = tid_add(&named, tid);

	return r < 0 ? r : kfit_ctree_task(env.tree, pid, tid, comm);
}

/*
 * Tasks are named before their first record: from /proc while they
 * live, else from their fork (as their parent) or exit record; exec
 * records rename them in the decoder.
 */
static int name_task(const struct kfit_rec *h, const void *data, size_t size)
{
	const struct kfit_rec_task *t = data;
	bool task_rec = h->type >= KFIT_REC_FORK && h->type <= KFIT_REC_EXIT &&
			size >= sizeof(*t);
	char comm[KFIT_COMM_LEN + 16];
	int err;

	if (task_rec && h->type == KFIT_REC_FORK && t->child_tid &&
	    !tid_has(&named, t->child_tid)) {
		err = name(t->child_pid, t->child_tid, t->comm);
		if (err)
			return err;
	}
	if (h->ctx != KFIT_CTX_TASK || !h->tid || tid_has(&named, h->tid))
		return 0;
	if (task_rec)
		return name(h->pid, h->tid, t->comm);
	if (tid_has(&unreadable, h->tid))
		return 0;
	if (!kfit_read_linef(comm, sizeof(comm), "/proc/%u/task/%u/comm", h->pid, h->tid))
		return name(h->pid, h->tid, comm);
	/* gone already: its exit record will name it */
	err = tid_add(&unreadable, h->tid);
	return err < 0 ? err : 0;
}

/* ---- records ------------------------------------------------------------ */

/* Every record goes to the decoder: what is shown is what it makes of them */
static int decode(const void *data, size_t size)
{
	const struct kfit_rec *h = data;
	int err;

	if (size < sizeof(*h))
		return kfit_ctree_add(env.tree, data, size);
	err = name_task(h, data, size);
	if (err)
		return err;
	/* a new program: its addresses mean something else now */
	if (h->type == KFIT_REC_EXEC && env.syms)
		kfit_syms_forget(env.syms, h->pid);
	return kfit_cgview_add(env.tree, env.sampled, data, size);
}

/* ---- recording (-o) ---------------------------------------------------- */

static const char *mechanism(void);

/* A sample's addresses, named now while its process lives: the SYMS block */
static int sample_syms(const struct kfit_rec_sample *r, size_t size)
{
	int i, n = r->nkernel + r->nuser, err = 0;

	if (!kfit_rec_whole(r, size))
		return 0;
	for (i = 0; i < n && !err; i++) {
		if (i >= r->nkernel && kfit_cgview_no_user_address(r->ip[i]))
			continue;
		err = kfit_symset_add(env.symset, r->h.pid, r->ip[i], i < r->nkernel);
	}
	return err;
}

#define MAX_NAMES_BYTES	(64U << 20)

/*
 * A name a task took (a child's at fork, a program's at exec), for the
 * NAMES block: kd names the tasks of a window from it. Rare records: a
 * line each, up to a bound, past which they are counted.
 */
static void add_name(const struct kfit_rec_task *t)
{
	bool fork = t->h.type == KFIT_REC_FORK;
	char comm[sizeof(t->comm) + 1];

	if (!env.names || ftell(env.names) > MAX_NAMES_BYTES) {
		env.names_dropped++;
		return;
	}
	snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(t->comm), t->comm);
	kfit_meta_name(env.names, t->h.ts, fork ? t->child_pid : t->h.pid,
		       fork ? t->child_tid : t->h.tid, comm);
}

/* The NAMES block so far, for a dump or the end */
static void give_names(void)
{
	if (!env.names || fflush(env.names) ||
	    kft_writer_names(env.w, env.names_buf, env.names_len))
		kfit_warn("the names of tasks over time are not in %s: out of memory",
			  env.out);
}

/*
 * Into the file as it came (the writer copies it): nothing decoded. A
 * full file (--size) ends the run; samples' addresses are named.
 */
static int record(const void *data, size_t size)
{
	const struct kfit_rec *h = data;
	int r;

	if (env.capped)
		return 0;
	r = kft_writer_rec(env.w, data, size);
	if (r == 1) {
		env.capped = true;
		kfit_exiting = 1;
		return 0;
	}
	if (r < 0) {
		kfit_out_err(env.out, r);
		env.write_failed = true;
		return r;
	}
	if ((h->type == KFIT_REC_FORK || h->type == KFIT_REC_EXEC) &&
	    size >= sizeof(struct kfit_rec_task))
		add_name(data);
	if (!env.sampled || size < sizeof(*h))
		return 0;
	if (h->type == KFIT_REC_EXEC)
		kfit_syms_forget(env.syms, h->pid);
	if (h->type == KFIT_REC_SAMPLE && env.symset)
		return sample_syms(data, size);
	return 0;
}

/* --stop-at's function (or --flight's --root) returned: the run ends */
static void check_trigger(const void *data, size_t size)
{
	const struct kfit_rec_call *c = data;

	if (size < sizeof(*c) || c->id != (__u32)env.trigger_idx ||
	    (c->h.flags & KFIT_RF_END))
		return;
	env.triggered = true;
	kfit_exiting = 1;
}

static int on_record(void *ctx, const void *data, size_t size)
{
	const struct kfit_rec *h = data;
	int err;

	(void)ctx;
	if (size >= sizeof(*h) && h->type < KFIT_REC_NTYPES) {
		env.cap.types[h->type]++;
		if (h->cpu < KFIT_MAX_CPUS)
			env.cap.cpu_recs[h->cpu]++;
		if (h->type == KFIT_REC_CALL && env.trigger_idx >= 0 && !env.triggered)
			check_trigger(data, size);
	}
	if (env.w) {
		err = record(data, size);
		if (err || !env.render)
			return err;
	}
	return decode(data, size);
}

/* What the BPF side writes for a call, for one still open at the end */
static int end_call(__u64 key, const struct cg_stack *st, int i,
		    __u64 blocked, __u64 preempt, __u32 dropped)
{
	const struct fc_frame *f = &st->s.f[i];
	const struct cg_frame *x = &st->x[i];
	int ctx = fc_key_ctx(key);
	struct kfit_rec_call r = {
		.h = {
			.type = KFIT_REC_CALL,
			.ctx = ctx,
			.flags = KFIT_RF_INCOMPLETE | KFIT_RF_END |
				 (f->flags & FC_F_FORKED ? KFIT_RF_FORKED : 0),
			.size = sizeof(r),
			/* a task's CPU is not known: interrupt stacks are per CPU */
			.cpu = (key >> 32) ? (__u32)key : 0,
			.pid = st->pid,
			.tid = st->tid,
			.ts = f->ts,
		},
		.dur = env.end_ns > f->ts ? env.end_ns - f->ts : 0,
		.off_blocked = blocked - x->blocked,
		.off_preempt = preempt - x->preempt,
		.id = f->id,
		.depth = x->rdepth,
		.dropped = x->dropped + dropped,
	};

	env.cap.end_calls++;
	return on_record(NULL, &r, sizeof(r));
}

/*
 * The calls still open on a stack, innermost first (the order returns
 * come in), each as incomplete (KFIT_RF_END), as the BPF side would
 * write it: those it leaves out counted by their callers.
 */
static int end_stack(__u64 key, const struct cg_stack *st)
{
	__u32 dropped[FC_MAX_DEPTH] = { 0 };
	__u64 blocked = st->blocked, preempt = st->preempt;
	int i, err, d = st->s.depth < FC_MAX_DEPTH ? st->s.depth : FC_MAX_DEPTH;

	/* off CPU when the capture ended: that time counts too */
	if (st->off_ts && st->off_ts < env.end_ns) {
		if (st->off_state)
			blocked += env.end_ns - st->off_ts;
		else
			preempt += env.end_ns - st->off_ts;
	}
	for (i = d - 1; i >= 0; i--) {
		if (st->s.f[i].flags & FC_F_REC) {
			err = end_call(key, st, i, blocked, preempt, dropped[i]);
			if (err)
				return err;
			continue;
		}
		if (i)
			dropped[i - 1] += dropped[i] + st->x[i].dropped + 1;
	}
	return 0;
}

static int end_stacks(void)
{
	struct kfit_entries e = { 0 };
	int i, err;

	err = kfit_hash_read(bpf_map__fd(env.skel->maps.stacks), NULL, NULL, 0, &e);
	for (i = 0; !err && i < e.n; i++)
		err = end_stack(*(__u64 *)kfit_entry_key(&e, i), kfit_entry_value(&e, i));
	kfit_entries_free(&e);
	return err;
}

/* The records the BPF side had no room for, per CPU, as LOST records */
static int lost_records(void)
{
	struct kfit_rec_lost r = { .h = { .type = KFIT_REC_LOST, .size = sizeof(r) } };
	int cpu, n, err;

	env.cap.lost = calloc(KFIT_MAX_CPUS, sizeof(__u64));
	if (!env.cap.lost)
		return -ENOMEM;
	n = kfit_events_lost(env.ev, env.cap.lost, KFIT_MAX_CPUS);
	if (n < 0)
		return n;
	env.cap.ncpus = n;
	for (cpu = 0; cpu < n && cpu < KFIT_MAX_CPUS; cpu++) {
		if (!env.cap.lost[cpu])
			continue;
		r.h.cpu = cpu;
		r.h.ts = env.end_ns;
		r.count = env.cap.lost[cpu];
		err = on_record(NULL, &r, sizeof(r));
		if (err)
			return err;
	}
	return 0;
}

static void read_counters(void)
{
	struct kfit_percpu p;
	__u32 k;
	int fd = bpf_map__fd(env.skel->maps.counters);

	if (kfit_percpu_init(&p, sizeof(__u64), 0))
		return;
	for (k = 0; k < CG_NCOUNTERS; k++)
		env.cap.counters[k] = kfit_percpu_read(&p, fd, &k) ? 0 :
				      kfit_percpu_sum(&p, 0);
	kfit_percpu_free(&p);
}

/*
 * The end: programs stop recording, and once none can still be running
 * (the grace period of kfit_epoch_flip) the ring is drained, and the
 * calls left open and the losses are added to the stream.
 */
static int stop_capture(void)
{
	int err;

	env.skel->bss->kfit_ready = false;
	env.end_ns = kfit_now_ns();
	if (env.sampler)
		kfit_sampler_disable(env.sampler);
	/* only its wait: no program runs any more once it returns */
	kfit_epoch_flip(&env.skel->bss->kfit_epoch);
	err = kfit_events_drain(env.ev);
	if (err < 0) {
		if (!env.write_failed)
			kfit_err("reading the records failed: %s", kfit_reason(err));
		return err;
	}
	read_counters();
	err = env.sampled ? 0 : end_stacks();
	if (!err)
		err = lost_records();
	if (err)
		kfit_err("cannot read the open calls: %s", kfit_reason(err));
	return err;
}

static void flight_dump(void);

static int poll_records(void *ctx, int timeout_ms)
{
	int n;

	(void)ctx;
	if (kfit_usr1)
		flight_dump();
	n = kfit_events_poll(env.ev, timeout_ms);
	if (n < 0) {
		if (!env.write_failed)
			kfit_err("reading the records failed: %s", kfit_reason(n));
		return n;
	}
	return 0;
}

/* ---- recording: the file's blocks ------------------------------------- */

static const char *const counter_names[CG_NCOUNTERS] = {
	[CG_LOST] = "lost", [CG_DEEP] = "deep", [CG_UNMATCHED] = "unmatched",
	[CG_NO_STACK] = "no_stack",
};

static void meta_cpus(FILE *f)
{
	bool first = true;
	int cpu;

	if (!env.c.cpus.set)
		return;
	fputs("cpus=", f);
	for (cpu = 0; cpu < KFIT_MAX_CPUS; cpu++) {
		if (!kfit_cpu_selected(&env.c.cpus, cpu))
			continue;
		fprintf(f, "%s%d", first ? "" : ",", cpu);
		first = false;
	}
	fputc('\n', f);
}

static void meta_attach(FILE *f)
{
	__u64 n, ns;
	__s64 fds;
	int i;

	if (env.att) {
		kfit_attacher_facts(env.att, &n, &ns, &fds);
		kfit_meta_u64(f, "attach.functions", n);
		kfit_meta_u64(f, "attach.skipped", env.tg.nskipped);
		kfit_meta_u64(f, "attach.ns", ns);
		fprintf(f, "attach.fds=%lld\n", (long long)fds);
	}
	for (i = 0; !env.sampled && i < env.tg.nskipped; i++)
		fprintf(f, "skipped.%d=%s\t%s\n", i, env.tg.skipped[i].name,
			env.tg.skipped[i].reason);
}

/* META: the machine, then how callgraph recorded (what cgview needs to render) */
static int fill_meta(FILE *f, void *ctx)
{
	int err = kfit_meta_machine(f, env.argc, env.argv);

	(void)ctx;
	if (err)
		return err;
	kfit_meta_u64(f, "start_ns", env.start_ns);
	kfit_meta_kv(f, "mode", env.sampled ? "sampled" : "exact");
	kfit_meta_kv(f, "mechanism", mechanism());
	kfit_meta_kv(f, "tp_mode", env.tp_mode);
	if (env.sampled) {
		kfit_meta_u64(f, "hz", kfit_sampler_hz(env.sampler));
		kfit_meta_kv(f, "sample_event", kfit_sampler_event(env.sampler));
	}
	if (env.root)
		kfit_meta_kv(f, "root", env.root);
	/* sampled: -D and --min are the tree's, the recording keeps every frame */
	if (env.depth && !env.sampled)
		kfit_meta_u64(f, "depth", env.depth);
	if (env.c.has_min && !env.sampled)
		kfit_meta_u64(f, "min_ns", env.c.min_ns);
	if (env.c.has_max)
		kfit_meta_u64(f, "max_ns", env.c.max_ns);
	if (env.c.pid)
		kfit_meta_u64(f, "pid", env.c.pid);
	if (env.c.tid)
		kfit_meta_u64(f, "tid", env.c.tid);
	if (env.c.comm[0])
		kfit_meta_kv(f, "comm", env.c.comm);
	meta_cpus(f);
	kfit_meta_u64(f, "interlace", !env.no_interlace);
	meta_attach(f);
	kfit_meta_u64(f, "buffer", env.buffer);
	kfit_meta_u64(f, "rings", env.nrings);
	if (env.flight)
		kfit_meta_u64(f, "flight", env.flight);
	return ferror(f) ? -ENOMEM : 0;
}

static int fill_funcs(FILE *f, void *ctx)
{
	(void)ctx;
	return kfit_record_funcs(f, &env.tg);
}

static int fill_events(FILE *f, void *ctx)
{
	(void)ctx;
	return kfit_meta_events(f, &env.tps, NULL);
}

static int fill_syms(FILE *f, void *ctx)
{
	(void)ctx;
	return kfit_symset_text(env.symset, f);
}

/* STATS: the counts so far (a dump), or at the end */
static int fill_stats(FILE *f, void *ctx)
{
	__u64 *lost = env.cap.lost, now[KFIT_MAX_CPUS];
	int i, ncpus = env.cap.ncpus;
	struct kft_wstats ws;

	(void)ctx;
	kft_writer_stats(env.w, &ws);
	if (!lost) {
		ncpus = kfit_events_lost(env.ev, now, KFIT_MAX_CPUS);
		lost = ncpus > 0 ? now : NULL;
		read_counters();
	}
	kfit_meta_u64(f, "end_ns", env.end_ns ? env.end_ns : kfit_now_ns());
	kfit_meta_u64(f, "records", ws.records);
	kfit_meta_u64(f, "bytes", ws.raw_bytes);
	for (i = 1; i < KFIT_REC_NTYPES; i++)
		fprintf(f, "records.%s=%llu\n", kfit_rec_type_name(i),
			(unsigned long long)env.cap.types[i]);
	kfit_meta_u64(f, "end_calls", env.cap.end_calls);
	for (i = 0; i < KFIT_MAX_CPUS; i++)
		if (env.cap.cpu_recs[i])
			fprintf(f, "records.cpu%d=%llu\n", i,
				(unsigned long long)env.cap.cpu_recs[i]);
	kfit_record_lost(f, lost, ncpus > KFIT_MAX_CPUS ? KFIT_MAX_CPUS : ncpus);
	for (i = 0; i < CG_NCOUNTERS; i++)
		fprintf(f, "counter.%s=%llu\n", counter_names[i],
			(unsigned long long)env.cap.counters[i]);
	kfit_meta_u64(f, "missed", env.att ? kfit_attacher_missed(env.att) : 0);
	kfit_meta_u64(f, "names_dropped", env.names_dropped);
	/* the chunks themselves are counted by the index */
	if (env.flight)
		kfit_meta_u64(f, "chunks_dropped", ws.chunks_dropped);
	if (env.capped)
		kfit_meta_u64(f, "size_capped", 1);
	return ferror(f) ? -ENOMEM : 0;
}

/* SIGUSR1: a flight recording is written now, and goes on */
static void flight_dump(void)
{
	size_t len = 0;
	char *stats;
	int err;

	kfit_usr1 = 0;
	if (!env.w || !env.flight) {
		if (!env.usr1_noted)
			kfit_info("SIGUSR1 ignored: only a --flight recording is written on it");
		env.usr1_noted = true;
		return;
	}
	give_names();
	stats = kfit_record_text(fill_stats, NULL, &len);
	err = stats ? kft_writer_dump(env.w, stats, len) : -ENOMEM;
	free(stats);
	if (err)
		kfit_warn("cannot write %s: %s", env.out, kfit_out_reason(err));
	else
		kfit_info("flight recording written to %s", env.out);
}

/* Before any record: what the file needs to be read alone */
static int begin_recording(void)
{
	struct kft_writer *w = env.w;
	int i, n = 0, err;

	for (i = 0; i < env.tg.n; i++)
		n += !env.tg.funcs[i].dropped;
	if (!env.sampled && !n && !env.tps.n) {
		kfit_err("nothing to record: no function is attached and no -e event chosen");
		return -ENOENT;
	}
	if (env.sampled && !(env.symset = kfit_symset_new(env.syms)))
		return -ENOMEM;
	env.names = open_memstream(&env.names_buf, &env.names_len);
	if (!env.names)
		return -ENOMEM;
	err = kfit_record_block(w, KFT_B_META, fill_meta, NULL);
	if (!err)
		err = kft_writer_layout(w);
	if (!err && env.tg.n)
		err = kfit_record_block(w, KFT_B_FUNCS, fill_funcs, NULL);
	if (!err && env.tps.n)
		err = kfit_record_block(w, KFT_B_EVENTS, fill_events, NULL);
	if (!err)
		err = kft_writer_block(w, KFT_B_TASKS, env.tasks ? env.tasks : "",
				       env.tasks_len);
	if (err)
		kfit_out_err(env.out, err);
	return err;
}

/* The end: the records' counts, the sampled names, the index; one line said */
static int end_recording(void)
{
	char *syms = NULL, *stats;
	size_t slen = 0, len = 0;
	struct kft_wstats ws;
	__u64 lost = 0;
	int i, err;

	for (i = 0; env.cap.lost && i < env.cap.ncpus && i < KFIT_MAX_CPUS; i++)
		lost += env.cap.lost[i];
	if (env.symset && !(syms = kfit_record_text(fill_syms, NULL, &slen)))
		kfit_warn("cannot name the sampled addresses: out of memory");
	give_names();
	stats = kfit_record_text(fill_stats, NULL, &len);
	kft_writer_stats(env.w, &ws);
	err = stats ? kft_writer_close(env.w, syms, slen, stats, len) : -ENOMEM;
	env.w = NULL;
	free(syms);
	free(stats);
	if (err) {
		kfit_out_err(env.out, err);
		return err;
	}
	if (env.capped)
		kfit_info("size cap reached");
	if (env.triggered)
		kfit_info("%s returned: the recording ends", env.tg.funcs[env.trigger_idx].name);
	kfit_record_summary(env.out, ws.records, ws.raw_bytes, lost);
	return 0;
}

/* --svg and --perfetto's files: made now, so that a bad path fails before tracing */
static int open_exports(void)
{
	int err = 0;

	if (env.svg && (err = kfit_out_open(&env.svg_out, env.svg)))
		kfit_out_err(env.svg, err);
	if (!err && env.perfetto && (err = kfit_out_open(&env.perfetto_out, env.perfetto)))
		kfit_out_err(env.perfetto, err);
	return err;
}

/* -o FILE: checked and begun before anything is attached */
static int open_recording(void)
{
	struct kft_wopts o = {
		.chunk_bytes = env.chunk,
		.max_bytes = env.size_cap,
		.flight_bytes = env.flight,
	};

	env.w = kft_writer_new(env.out, &o);
	if (!env.w) {
		kfit_out_err(env.out, -errno);
		return -1;
	}
	return 0;
}

/* ---- output ------------------------------------------------------------ */

static const char *mechanism(void)
{
	if (env.sampled)
		return "perf_event";
	return env.att ? kfit_attacher_mech(env.att) : "tracepoint";
}

/* The live state as cgview (src/lib/tree/cgview.h) shows it */
static struct kfit_cgview view(struct kfit_cgv_func *funcs, struct kfit_cgv_skip *skipped,
			       struct kfit_cgv_attach *at, struct kfit_cgv_counts *counts)
{
	struct kfit_events_stats s;
	int i;

	for (i = 0; i < env.nfuncs; i++)
		funcs[i] = (struct kfit_cgv_func){
			.name = env.tg.funcs[i].name,
			.kernel = env.tg.funcs[i].kind == KFIT_T_KERNEL,
			.dropped = env.tg.funcs[i].dropped,
		};
	for (i = 0; i < env.tg.nskipped; i++)
		skipped[i] = (struct kfit_cgv_skip){
			.name = env.tg.skipped[i].name,
			.reason = env.tg.skipped[i].reason,
		};
	if (env.att) {
		at->mechanism = kfit_attacher_mech(env.att);
		kfit_attacher_facts(env.att, &at->functions, &at->attach_ns, &at->fds);
		at->skipped = env.tg.nskipped;
	}
	kfit_events_stats(env.ev, &s);
	counts->records = s.records;
	counts->bytes = s.bytes;
	memcpy(counts->types, env.cap.types, sizeof(counts->types));
	counts->end_calls = env.cap.end_calls;
	counts->lost = env.cap.counters[CG_LOST];
	counts->unmatched = env.cap.counters[CG_UNMATCHED];
	return (struct kfit_cgview){
		.sampled = env.sampled,
		.mechanism = mechanism(),
		.hz = env.sampled ? kfit_sampler_hz(env.sampler) : 0,
		.sample_event = env.sampled ? kfit_sampler_event(env.sampler) : NULL,
		.funcs = funcs,
		.nfuncs = env.nfuncs,
		.ntracepoints = env.tps.n,
		.root = env.root != NULL,
		.start_ns = env.start_ns,
		.end_ns = env.end_ns,
		.missed = env.att ? kfit_attacher_missed(env.att) : 0,
		.too_deep = env.cap.counters[CG_DEEP],
		.no_stack = env.cap.counters[CG_NO_STACK],
		.max_depth = FC_MAX_DEPTH,
		.skipped = skipped,
		.nskipped = env.tg.nskipped,
		.attach = env.att ? at : NULL,
		.counts = counts,
	};
}

static int render(void)
{
	struct kfit_cgv_func *funcs = calloc(env.nfuncs + 1, sizeof(*funcs));
	struct kfit_cgv_skip *skipped = calloc(env.tg.nskipped + 1, sizeof(*skipped));
	struct kfit_cgv_attach at = { 0 };
	struct kfit_cgv_counts counts = { 0 };
	struct kfit_cgview v;
	int err = -ENOMEM;

	kfit_ctree_finish(env.tree);
	if (funcs && skipped) {
		v = view(funcs, skipped, &at, &counts);
		err = kfit_cgview_render(&v, &(struct kfit_cgview_opts){
			.summary = env.summary,
			.sort = env.sort,
			.top = env.top,
			.folded = env.folded,
			.json = env.c.json,
			.svg = env.svg,
			.perfetto = env.perfetto,
			.svg_out = &env.svg_out,
			.perfetto_out = &env.perfetto_out,
			.verbose = env.c.verbose,
			.min_pct = env.pct,
			.min_pct_set = env.pct_set,
			.min_ns = env.c.has_min ? env.c.min_ns : 0,
			.max_depth = env.depth,
			.width = env.width_set ? env.width : kfit_term_width(stdout),
		}, env.tree);
	} else {
		kfit_err("%s", kfit_reason(err));
	}
	free(funcs);
	free(skipped);
	return err;
}
static int report(void *ctx, bool last)
{
	int err, rerr = 0;

	(void)ctx;
	if (!last)
		return 0;
	err = stop_capture();
	/* whatever was read goes into the file: it ends complete */
	if (env.w)
		rerr = end_recording();
	if (err || rerr)
		return err ? err : rerr;
	return env.render ? render() : 0;
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
	int i;

	env.nfuncs = env.tg.n;
	env.fnames = calloc(env.tg.n + 1, sizeof(*env.fnames));
	env.enames = calloc(env.tps.n + 1, sizeof(*env.enames));
	if (!env.fnames || !env.enames)
		return -ENOMEM;
	for (i = 0; i < env.tg.n; i++)
		env.fnames[i] = env.tg.funcs[i].name;
	for (i = 0; i < env.tps.n; i++)
		env.enames[i] = env.tps.tp[i].name;
	env.syms = kfit_syms_new(NULL);
	env.tree = kfit_ctree_new(&(struct kfit_ctree_opts){
		.funcs = env.fnames,
		.nfuncs = env.nfuncs,
		.events = env.enames,
		.nevents = env.tps.n,
		.no_interlace = env.no_interlace,
		.sym = env.syms ? kfit_syms_name : NULL,
		.sym_ctx = env.syms,
		.group_unknown = !env.addresses,
	});
	return env.tree ? 0 : -ENOMEM;
}

static bool task_chosen(int pid, int tid, const char *comm)
{
	if (env.c.pid && pid != env.c.pid)
		return false;
	if (env.c.tid && tid != env.c.tid)
		return false;
	return !env.c.comm[0] || !strcmp(comm, env.c.comm);
}

/* A task alive at the start: named, and listed in TASKS (f) when recording */
static int one_task(__u32 pid, __u32 tid, __u32 ppid, const char *comm, void *ctx)
{
	FILE *f = ctx;

	if (!task_chosen(pid, tid, comm))
		return 0;
	if (f)
		kfit_meta_task(f, pid, tid, ppid, comm);
	return name(pid, tid, comm);
}

static int fill_tasks(FILE *f, void *ctx)
{
	int err = kfit_proc_tasks(NULL, env.c.pid, one_task, f);

	(void)ctx;
	/* no /proc: the tasks are named by their records */
	return err == -ENOMEM ? err : 0;
}

/* The names of the tasks there now: those that exec later say theirs then */
static int name_tasks(void)
{
	if (!env.out)
		return fill_tasks(NULL, NULL);
	env.tasks = kfit_record_text(fill_tasks, NULL, &env.tasks_len);
	return env.tasks ? 0 : -ENOMEM;
}

static void cleanup(void)
{
	kfit_child_stop(&env.child);
	unload();
	kfit_ctree_free(env.tree);
	kfit_syms_free(env.syms);
	free(env.fnames);
	free(env.enames);
	free(named.v);
	free(unreadable.v);
	kfit_targets_free(&env.tg);
	kfit_tps_free(&env.tps);
	free(env.links);
	free(env.event_specs);
	free(env.cap.lost);
	if (env.names)
		fclose(env.names);
	free(env.names_buf);
	/* nothing recorded yet: no file left, and what was there stays */
	kft_writer_abort(env.w);
	kfit_out_abort(&env.svg_out);
	kfit_out_abort(&env.perfetto_out);
	kfit_symset_free(env.symset);
	free(env.tasks);
}

static int run(void)
{
	int err;

	err = new_tree();
	if (err) {
		kfit_err("%s", kfit_reason(err));
		return 1;
	}
	err = start();
	if (!err)
		err = name_tasks();
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
	if (env.w && begin_recording())
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
	nargs = kfit_split_command(argc, argv, &env.cmd);
	first = kfit_parse_args(&tool, &env.c, nargs, argv);
	if (first < 0 || check_args(first, nargs, argv, nargs < argc))
		return 2;
	kfit_setup("callgraph", &env.c);
	if (kfit_io_setup(env.c.output, env.cmd))
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
	if (kfit_check_privileges() || (env.out && open_recording()) || open_exports()) {
		cleanup();
		return 1;
	}
	kfit_arm_cleanup();
	err = run();	/* an exit status: 130 for a SIGINT in start-up */
	cleanup();
	return kfit_child_exit(&env.child, err);
}
