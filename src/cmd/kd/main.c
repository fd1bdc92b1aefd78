// SPDX-License-Identifier: GPL-2.0
/*
 * kd: KFI's offline analyser. Reads a trace file (include/kfit/kft.h)
 * that callgraph -o wrote, here or on another machine, and renders what
 * callgraph renders live, through the same code (src/lib/tree/cgview.c); or
 * lists its records one per line (--events), or describes it (--info).
 * Core library only: no libbpf, no root, no kernel access.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kfit/rec.h"
#include "calltree.h"
#include "cgview.h"
#include "child.h"
#include "diag.h"
#include "fileio.h"
#include "fstats.h"
#include "kft.h"
#include "opts.h"
#include "output.h"
#include "state.h"

enum {
	OPT_SUMMARY = 256, OPT_EVENTS, OPT_FOLDED, OPT_SVG, OPT_PERFETTO, OPT_SINCE,
	OPT_UNTIL, OPT_NO_INTERLACE, OPT_INFO, OPT_PCT, OPT_WIDTH, OPT_ADDRESSES,
};

static const struct kfit_opt kd_opts[] = {
	{ "summary", OPT_SUMMARY, NULL,
	  "per function: COUNT TOTAL AVG MIN MAX LOCAL P50 P99 MAX-SUB" },
	{ "sort", 's', "KEY", "with --summary: time (default), local, count, avg or max" },
	{ "top", 'n', "N", "with --summary: the top N functions" },
	{ "fields", 'f', "LIST",
	  "with --summary: the columns, of count,time,avg,min,max,local,p50,p99,maxsub" },
	{ "events", OPT_EVENTS, NULL,
	  "one line per record in time order: TIME CPU COMM-TID TYPE DETAILS" },
	{ "folded", OPT_FOLDED, NULL,
	  "folded stacks on stdout (self ns; samples in sampled mode)" },
	{ "svg", OPT_SVG, "FILE", "a flame graph into FILE (SVG)" },
	{ "perfetto", OPT_PERFETTO, "FILE",
	  "Chrome trace-event JSON into FILE (ui.perfetto.dev)" },
	{ "since", OPT_SINCE, "T",
	  "records from T: a time from the start (1.5s), @NS (the file's clock) "
	  "or HH:MM:SS[.frac] (wall time)" },
	{ "until", OPT_UNTIL, "T", "records before T (as --since)" },
	{ "no-interlace", OPT_NO_INTERLACE, NULL,
	  "interrupts listed apart, not inside the task they struck" },
	{ "info", OPT_INFO, NULL,
	  "the file: header, machine, what was recorded, chunks, losses" },
	{ "percent-limit", OPT_PCT, "PCT",
	  "sampled: hide frames under PCT% of samples (0.5)" },
	{ "depth", 'D', "N", "sampled: frames down to depth N (1: the outermost)" },
	{ "width", OPT_WIDTH, "N", "sampled: cut lines to N columns (0: never)" },
	{ "addresses", OPT_ADDRESSES, NULL,
	  "sampled: unnamed frames as FILE+0xOFF each" },
	{ NULL },
};

/* ---- command line ------------------------------------------------------ */

/* The sampled tree's options, as callgraph's */
static int parse_sampled_opt(int key, const char *arg)
{
	switch (key) {
	case OPT_PCT:
		env.pct_set = true;
		return kfit_cgview_parse_pct("kd", arg, &env.pct);
	case 'D':
		return kfit_cgview_parse_depth("kd", arg, &env.depth);
	case OPT_WIDTH:
		env.width_set = true;
		return kfit_cgview_parse_width("kd", arg, &env.width);
	case OPT_ADDRESSES:
		env.addresses = true;
		return 0;
	}
	return -1;
}

static bool sampled_opts(void)
{
	return env.pct_set || env.depth || env.c.has_min || env.width_set || env.addresses;
}

static int parse_opt(int key, const char *arg, void *ctx)
{
	(void)ctx;
	switch (key) {
	case OPT_SUMMARY:
		env.summary = true;
		return 0;
	case 's':
		return kfit_fstats_parse_sort("kd", arg, &env.sort);
	case 'n':
		return kfit_fstats_parse_top("kd", arg, &env.top);
	case 'f':
		return kfit_fstats_parse_fields("kd", arg, &env.fields);
	case OPT_EVENTS:
		env.events = true;
		return 0;
	case OPT_FOLDED:
		env.folded = true;
		return 0;
	case OPT_SVG:
		env.svg = arg;
		return 0;
	case OPT_PERFETTO:
		env.perfetto = arg;
		return 0;
	case OPT_SINCE:
		env.since_arg = arg;
		return 0;
	case OPT_UNTIL:
		env.until_arg = arg;
		return 0;
	case OPT_NO_INTERLACE:
		env.no_interlace = true;
		return 0;
	case OPT_INFO:
		env.info = true;
		return 0;
	}
	return parse_sampled_opt(key, arg);
}

static const struct kfit_tool tool = {
	.name = "kd",
	.summary = "KFI's kd: analyse a trace file that callgraph -o recorded, here or "
		   "on another\nmachine (no root, no BPF): the call trees as callgraph "
		   "prints them live, the\nsummary, the records one per line, flame "
		   "graphs, Perfetto traces, or what the\nfile holds.",
	.synopsis = "[OPTIONS] FILE",
	.examples = "kd trace.kft                        # the call trees\n"
		    "kd trace.kft --summary -s local -n 10 -f count,time,local\n"
		    "kd trace.kft --events --since 1.5s --until 2s\n"
		    "kd trace.kft --comm nginx --folded > nginx.folded\n"
		    "kd trace.kft -p 1234 --svg calls.svg --perfetto calls.json\n"
		    "kd trace.kft --since 10:42:05 --until 10:42:06.5 -j\n"
		    "kd trace.kft --info                 # machine, contents, losses\n",
	.common = KFIT_OPT_PID | KFIT_OPT_TID | KFIT_OPT_COMM | KFIT_OPT_JSON |
		  KFIT_OPT_MIN,
	.opts = kd_opts,
	.parse = parse_opt,
	.ctx = &env,
	.recorded_ids = true,
};

static int usage_error(const char *msg)
{
	fprintf(stderr, "kd: %s\nTry 'kd --help' for more information.\n", msg);
	return -1;
}

static int check_args(int first, int argc, char **argv)
{
	int forms = env.summary + env.folded + env.c.json;

	if (first >= argc)
		return usage_error("no FILE: kd FILE");
	if (argc - first > 1)
		return usage_error("one FILE only");
	env.path = argv[first];
	if (forms > 1)
		return usage_error("--summary, --folded and -j exclude each other");
	if ((env.sort || env.top || env.fields) && !env.summary)
		return usage_error("-s, -n and -f go with --summary");
	if (env.events + env.info > 1)
		return usage_error("--events and --info exclude each other");
	if (env.events && (forms || env.svg || env.perfetto))
		return usage_error("--events excludes the tree's outputs "
				   "(--summary, --folded, -j, --svg, --perfetto)");
	if (env.info && (env.summary || env.folded || env.svg || env.perfetto))
		return usage_error("--info excludes the tree's outputs "
				   "(--summary, --folded, --svg, --perfetto); -j goes with it");
	if ((env.events || env.info) && sampled_opts())
		return usage_error("--events and --info exclude the sampled tree's options "
				   "(--percent-limit, -D, --min, --width, --addresses)");
	if (env.info && (env.since_arg || env.until_arg || env.c.pid || env.c.tid ||
			 env.c.comm[0]))
		return usage_error("--info describes the whole file: no window, no tasks");
	return 0;
}

/* ---- --info ---------------------------------------------------------------- */

static const char *meta(const char *key)
{
	const char *v = kft_meta(env.f, key);

	return v && *v ? v : "?";
}

static void info_functions(void)
{
	int i, dropped = 0, kernel = 0;

	for (i = 0; i < env.nfuncs; i++) {
		dropped += env.funcs[i].dropped;
		kernel += env.funcs[i].kernel;
	}
	printf("functions:  %d (%d kernel, %d user", env.nfuncs, kernel, env.nfuncs - kernel);
	if (dropped)
		printf(", %d not attached", dropped);
	printf(")");
	for (i = 0; i < env.nfuncs && i < 5; i++)
		printf("%s%s", i ? ", " : ": ", env.fnames[i]);
	if (i < env.nfuncs)
		printf(", ...");
	printf("\n");
	printf("events:     %d", env.nevents);
	for (i = 0; i < env.nevents && i < 5; i++)
		printf("%s%s", i ? ", " : ": ", env.enames[i]);
	if (i < env.nevents)
		printf(", ...");
	printf("\n");
}

static void info_losses(void)
{
	__u64 lost = kft_stat_u64(env.f, "lost", ULLONG_MAX);
	int i, n = 0;

	if (lost == ULLONG_MAX) {
		printf("lost:       %llu records (from the LOST records read: the file has no "
		       "totals)\n", (unsigned long long)env.counts.types[KFIT_REC_LOST]);
		return;
	}
	printf("lost:       %llu records", (unsigned long long)lost);
	for (i = 0; i < kft_nstats(env.f); i++) {
		const struct kft_kv *kv = kft_stat_at(env.f, i);

		if (strncmp(kv->key, "lost.cpu", 8))
			continue;
		printf("%s cpu %s: %s", n++ ? "," : ";", kv->key + 8, kv->val);
	}
	printf("\n");
	for (i = 0, n = 0; i < kft_nstats(env.f); i++) {
		const struct kft_kv *kv = kft_stat_at(env.f, i);

		if (strncmp(kv->key, "records.cpu", 11))
			continue;
		printf("%s cpu %s %s", n++ ? "," : "per CPU:   ", kv->key + 11, kv->val);
	}
	if (n)
		printf(" records\n");
}

/* The first and last records' wall-clock times: what --since HH:MM:SS takes */
static void info_wall(void)
{
	char a[64], b[64];

	if (!kft_nchunks(env.f)) {
		printf("wall clock: no records\n");
		return;
	}
	if (!kd_wall_time(kd_first_ts(), false, a, sizeof(a)) ||
	    !kd_wall_time(kd_last_ts(), false, b, sizeof(b))) {
		printf("wall clock: unknown (no clock.realtime_offset_ns)\n");
		return;
	}
	printf("wall clock: first record %s, last %s (local time, for --since, "
	       "--until)\n", a, b);
}

static void json_kv(struct kfit_json *j, const char *key, bool stats)
{
	int i, n = stats ? kft_nstats(env.f) : kft_nmeta(env.f);

	kfit_json_begin_object(j, key);
	for (i = 0; i < n; i++) {
		const struct kft_kv *kv = stats ? kft_stat_at(env.f, i) : kft_meta_at(env.f, i);

		kfit_json_str(j, kv->key, kv->val);
	}
	kfit_json_end_object(j);
}

/* A time on the file's clock: ns, from the start, and wall clock if known */
static void json_time(struct kfit_json *j, const char *key, __u64 ts)
{
	char buf[64];

	kfit_json_begin_object(j, key);
	kfit_json_u64(j, "ns", ts);
	kfit_json_i64(j, "from_start_ns", (__s64)(ts - env.start_ns));
	if (kd_wall_time(ts, true, buf, sizeof(buf)))
		kfit_json_str(j, "wall", buf);
	else
		kfit_json_null(j, "wall");
	kfit_json_end_object(j);
}

static void info_json(void)
{
	const struct kft_header *hd = kft_header(env.f);
	__u64 comp = 0, raw = 0, lost = kft_stat_u64(env.f, "lost", ULLONG_MAX);
	int i, n = kft_nchunks(env.f), kernel = 0, dropped = 0;
	struct kfit_json j;

	kfit_json_init(&j, stdout, true);
	kfit_json_begin_object(&j, NULL);
	kfit_json_str(&j, "file", env.path);
	kfit_json_u64(&j, "bytes", kft_size(env.f));
	kfit_json_bool(&j, "complete", kft_complete(env.f));
	kfit_json_u64(&j, "missing_bytes", kft_complete(env.f) ? 0 : kft_missing(env.f));
	kfit_json_u64(&j, "version", hd->version);
	kfit_json_str(&j, "endian", *(const __u8 *)&hd->endian == 0x04 ? "little" : "big");
	kfit_json_u64(&j, "rec_version", hd->rec_version);
	kfit_json_bool(&j, "flight", hd->flags & KFT_F_FLIGHT);
	kfit_json_u64(&j, "created_ns", hd->created_ns);
	kfit_json_str(&j, "mode", env.sampled ? "sampled" : "exact");
	kfit_json_str(&j, "mechanism", kd_mechanism());
	for (i = 0; i < env.nfuncs; i++) {
		kernel += env.funcs[i].kernel;
		dropped += env.funcs[i].dropped;
	}
	kfit_json_begin_object(&j, "functions");
	kfit_json_u64(&j, "count", env.nfuncs);
	kfit_json_u64(&j, "kernel", kernel);
	kfit_json_u64(&j, "user", env.nfuncs - kernel);
	kfit_json_u64(&j, "not_attached", dropped);
	kfit_json_begin_array(&j, "names");
	for (i = 0; i < env.nfuncs; i++)
		kfit_json_str(&j, NULL, env.fnames[i]);
	kfit_json_end_array(&j);
	kfit_json_end_object(&j);
	kfit_json_begin_array(&j, "events");
	for (i = 0; i < env.nevents; i++)
		kfit_json_str(&j, NULL, env.enames[i]);
	kfit_json_end_array(&j);
	kfit_json_u64(&j, "tasks_at_start", kft_ntasks(env.f));
	for (i = 0; i < n; i++) {
		comp += kft_chunk(env.f, i)->size;
		raw += kft_chunk(env.f, i)->raw_size;
	}
	kfit_json_begin_object(&j, "chunks");
	kfit_json_u64(&j, "count", n);
	kfit_json_u64(&j, "compressed_bytes", comp);
	kfit_json_u64(&j, "raw_bytes", raw);
	kfit_json_u64(&j, "corrupt", env.chunks_bad);
	kfit_json_u64(&j, "duplicated", kft_duplicates(env.f));
	kfit_json_end_object(&j);
	kfit_json_begin_object(&j, "records");
	kfit_json_u64(&j, "total", env.counts.records);
	for (i = 1; i < KFIT_REC_NTYPES; i++)
		kfit_json_u64(&j, kfit_rec_type_name(i), env.counts.types[i]);
	kfit_json_end_object(&j);
	json_time(&j, "start", env.start_ns);
	json_time(&j, "end", env.end_ns);
	kfit_json_u64(&j, "duration_ns", env.end_ns > env.start_ns ? env.end_ns - env.start_ns : 0);
	if (n) {
		json_time(&j, "first_record", kd_first_ts());
		json_time(&j, "last_record", kd_last_ts());
	} else {
		kfit_json_null(&j, "first_record");
		kfit_json_null(&j, "last_record");
	}
	kfit_json_u64(&j, "lost", lost == ULLONG_MAX ? env.counts.types[KFIT_REC_LOST] : lost);
	json_kv(&j, "metadata", false);
	json_kv(&j, "stats", true);
	kfit_json_end_object(&j);
	kfit_json_finish(&j);
}

int kd_print_info(void)
{
	const struct kft_header *hd = kft_header(env.f);
	time_t created = hd->created_ns / 1000000000ULL;
	__u64 comp = 0, raw = 0;
	char when[64], d[32];
	struct tm tm;
	int i, err = 0, n = kft_nchunks(env.f);

	for (i = 0; i < n && !err; i++)
		err = kd_read_chunk(i, kd_count);
	if (err)
		return err;
	if (env.c.json) {
		info_json();
		return 0;
	}
	if (!localtime_r(&created, &tm) || !strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm))
		snprintf(when, sizeof(when), "?");
	printf("file:       %s, %llu bytes, %s\n", env.path, (unsigned long long)kft_size(env.f),
	       kft_complete(env.f) ? "complete" : "truncated");
	printf("format:     kfit trace version %u, %s-endian, records version %u%s, "
	       "created %s\n", hd->version,
	       *(const __u8 *)&hd->endian == 0x04 ? "little" : "big", hd->rec_version,
	       hd->flags & KFT_F_FLIGHT ? ", a flight recording" : "", when);
	printf("machine:    %s %s %s %s (%s), %s CPUs, page size %s\n",
	       meta("uname.sysname"), meta("uname.nodename"), meta("uname.release"),
	       meta("uname.machine"), meta("uname.version"), meta("ncpus"), meta("page_size"));
	printf("clocks:     %s; realtime = ts + %s ns, boottime = ts + %s ns\n",
	       meta("clock"), meta("clock.realtime_offset_ns"), meta("clock.boottime_offset_ns"));
	printf("recorded:   by kfit %s: %s\n", meta("kfit_version"), meta("cmdline"));
	printf("mode:       %s, %s", env.sampled ? "sampled" : "exact", kd_mechanism());
	if (env.sampled)
		printf(", %s Hz (%s)", meta("hz"), meta("sample_event"));
	printf("\n");
	info_functions();
	printf("tasks:      %d at the start\n", kft_ntasks(env.f));
	for (i = 0; i < n; i++) {
		comp += kft_chunk(env.f, i)->size;
		raw += kft_chunk(env.f, i)->raw_size;
	}
	printf("chunks:     %d (%llu bytes compressed, %llu raw)", n,
	       (unsigned long long)comp, (unsigned long long)raw);
	if (env.chunks_bad)
		printf(", %d corrupt", env.chunks_bad);
	if (kft_duplicates(env.f))
		printf(", %d duplicated (skipped)", kft_duplicates(env.f));
	printf("\n");
	printf("records:    %llu:", (unsigned long long)env.counts.records);
	for (i = 1; i < KFIT_REC_NTYPES; i++)
		printf(" %s %llu%s", kfit_rec_type_name(i), (unsigned long long)env.counts.types[i],
		       i + 1 < KFIT_REC_NTYPES ? "," : "");
	printf("\n");
	printf("time:       %s (start_ns %llu to end_ns %llu)\n",
	       kd_dur(env.end_ns > env.start_ns ? env.end_ns - env.start_ns : 0, d),
	       (unsigned long long)env.start_ns, (unsigned long long)env.end_ns);
	info_wall();
	if (kft_header(env.f)->flags & KFT_F_FLIGHT && kft_nchunks(env.f))
		printf("kept:       from %s on (a flight recording: %llu older chunks dropped)\n",
		       kd_dur(kft_chunk(env.f, 0)->first_ts > env.start_ns ?
			   kft_chunk(env.f, 0)->first_ts - env.start_ns : 0, d),
		       (unsigned long long)kft_stat_u64(env.f, "chunks_dropped", 0));
	info_losses();
	if (!kft_complete(env.f))
		printf("missing:    %llu bytes after the last complete chunk\n",
		       (unsigned long long)kft_missing(env.f));
	printf("metadata:\n");
	for (i = 0; i < kft_nmeta(env.f); i++)
		printf("  %s=%s\n", kft_meta_at(env.f, i)->key, kft_meta_at(env.f, i)->val);
	printf("stats:\n");
	for (i = 0; i < kft_nstats(env.f); i++)
		printf("  %s=%s\n", kft_stat_at(env.f, i)->key, kft_stat_at(env.f, i)->val);
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
	free(env.enames);
	free(env.funcs);
	free(env.tasks.v);
	for (i = 0; i < (int)env.nsamples; i++)
		free((void *)env.samples[i].frames);
	free(env.samples);
	kfit_out_abort(&env.svg_out);
	kfit_out_abort(&env.perfetto_out);
	kft_close(env.f);
}

static int run(void)
{
	char msg[512] = "";
	int err;

	/* the outputs first: a bad path fails before a big file is read */
	if (env.svg && (err = kfit_out_open(&env.svg_out, env.svg))) {
		kfit_out_err(env.svg, err);
		return 1;
	}
	if (env.perfetto && (err = kfit_out_open(&env.perfetto_out, env.perfetto))) {
		kfit_out_err(env.perfetto, err);
		return 1;
	}
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

	first = kfit_parse_args(&tool, &env.c, argc, argv);
	if (first < 0 || check_args(first, argc, argv))
		return 2;
	kfit_diag_setup("kd", env.c.verbose);
	if (kfit_io_setup(env.c.output, NULL))
		return 1;
	kfit_out_catch_signals();
	err = run();
	fflush(stdout);
	cleanup();
	return err;
}
