// SPDX-License-Identifier: GPL-2.0
/*
 * kd's reading of the file, which its outputs share: times on its clock,
 * the tasks as its records name them, its description, its chunks and
 * the window of them --since and --until take.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kfit/rec.h"
#include "cgview.h"
#include "diag.h"
#include "duration.h"
#include "kft.h"
#include "stream.h"
#include "tasks.h"
#include "state.h"

/* The state all of kd's parts share (state.h) */
struct env env;

/* ---- times ------------------------------------------------------------ */

static int parse_wall(const char *s, __u64 *out)
{
	__u64 off = kft_meta_u64(env.f, "clock.realtime_offset_ns", 0);
	unsigned int h, m, sec;
	time_t day;
	struct tm tm;
	__u64 frac = 0, scale = 100000000;
	const char *p;
	int n = 0;

	if (sscanf(s, "%2u:%2u:%2u%n", &h, &m, &sec, &n) != 3 || h > 23 || m > 59 ||
	    sec > 60)
		return -EINVAL;
	p = s + n;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
			frac += (*p - '0') * scale;
	}
	if (*p)
		return -EINVAL;
	if (!off)
		return -ENOENT;
	day = (env.start_ns + off) / 1000000000ULL;
	if (!localtime_r(&day, &tm))
		return -EINVAL;
	tm.tm_hour = h;
	tm.tm_min = m;
	tm.tm_sec = sec;
	tm.tm_isdst = -1;
	day = mktime(&tm);
	if (day == (time_t)-1 || (__u64)day * 1000000000ULL + frac < off)
		return -ERANGE;
	*out = (__u64)day * 1000000000ULL + frac - off;
	return 0;
}

/* T of --since/--until into ns on the file's clock; 0, or -1 after saying why */
int kd_parse_time(const char *opt, const char *s, __u64 *out)
{
	__u64 ns;
	char *end;
	int err;

	if (*s == '@') {
		errno = 0;
		ns = strtoull(s + 1, &end, 10);
		if (errno || end == s + 1 || *end || s[1] == '-')
			goto bad;
		*out = ns;
		return 0;
	}
	if (strchr(s, ':')) {
		err = parse_wall(s, out);
		if (err == -ENOENT) {
			kfit_err("%s has no realtime clock offset: give %s as a time from "
				 "the start or @NS", env.path, opt);
			return -1;
		}
		if (err)
			goto bad;
		return 0;
	}
	if (kfit_duration_parse(s, KFIT_SEC, &ns))
		goto bad;
	*out = env.start_ns + ns;
	return 0;
bad:
	fprintf(stderr, "kd: invalid time '%s' for %s: a time from the start "
		"(1.5s, 200ms), @NS, or HH:MM:SS[.frac]\n", s, opt);
	return -1;
}

/*
 * "SEC.USEC" from the start (negative before it), cut to the microsecond
 * as trace-cmd and perf print: the line of a time T covers [T, T + 1us),
 * as --since/--until T take it
 */
const char *kd_rel_time(__u64 ts, char *buf, size_t len)
{
	bool neg = ts < env.start_ns;
	__u64 d = neg ? env.start_ns - ts : ts - env.start_ns;

	snprintf(buf, len, "%s%llu.%06llu", neg ? "-" : "", d / 1000000000ULL,
		 d % 1000000000ULL / 1000);
	return buf;
}

/*
 * The wall-clock time of ts (the file's clock) in local time, as --since
 * HH:MM:SS takes it: "2026-11-25 10:42:05.001000" (iso: "2026-11-25T10:42:05.001000+0100");
 * NULL when the file has no realtime offset
 */
const char *kd_wall_time(__u64 ts, bool iso, char *buf, size_t len)
{
	__u64 off = kft_meta_u64(env.f, "clock.realtime_offset_ns", 0), ns;
	char day[32], zone[8];
	struct tm tm;
	time_t sec;

	if (!off)
		return NULL;
	ns = ts + off;
	sec = ns / 1000000000ULL;
	if (!localtime_r(&sec, &tm) ||
	    !strftime(day, sizeof(day), iso ? "%Y-%m-%dT%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &tm) ||
	    !strftime(zone, sizeof(zone), "%z", &tm))
		return NULL;
	snprintf(buf, len, "%.31s.%06llu%.7s", day, ns % 1000000000ULL / 1000, iso ? zone : "");
	return buf;
}

const char *kd_dur(__u64 ns, char *buf)
{
	return kfit_duration_fmt(ns, buf, 32);
}

/* ---- tasks ------------------------------------------------------------- */

const char *kd_comm_of(__u32 tid)
{
	return kfit_tasks_comm(env.tasks, tid);
}

int kd_track(const struct kfit_rec *h, size_t size)
{
	return kfit_tasks_track(env.tasks, h, size);
}

bool kd_chosen(__u32 pid, __u32 tid)
{
	return kfit_stream_chosen(&env.stream, pid, tid);
}

/* ---- the file's description --------------------------------------------- */

int kd_load_funcs(void)
{
	int i, n = kft_nfuncs(env.f);

	env.fnames = calloc(n + 1, sizeof(*env.fnames));
	env.funcs = calloc(n + 1, sizeof(*env.funcs));
	env.ret_kinds = calloc(n + 1, sizeof(*env.ret_kinds));
	env.fargs = calloc(n + 1, sizeof(*env.fargs));
	if (!env.fnames || !env.funcs || !env.ret_kinds || !env.fargs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct kft_func *fn = kft_func_at(env.f, i);

		env.fnames[i] = fn ? fn->name : "?";
		env.ret_kinds[i] = fn ? fn->ret : 0;
		env.fargs[i].a = kft_func_args(env.f, i, &env.fargs[i].n);
		env.funcs[i] = (struct kfit_cgview_func){
			.name = env.fnames[i], .kernel = fn && fn->kernel,
			.dropped = fn && fn->dropped,
			.object = fn ? fn->object : NULL,
			.build_id = fn ? fn->build_id : NULL,
		};
	}
	env.nfuncs = n;
	n = kft_nevents(env.f);
	env.enames = calloc(n + 1, sizeof(*env.enames));
	if (!env.enames)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		env.enames[i] = kft_event_at(env.f, i) ? kft_event_at(env.f, i)->name : "?";
	env.nevents = n;
	return 0;
}

/* META's skipped.N lines: "NAME\tREASON" */
int kd_load_skipped(void)
{
	int i, n = 0, nm = kft_nmeta(env.f);

	env.skipped = calloc(nm + 1, sizeof(*env.skipped));
	if (!env.skipped)
		return -ENOMEM;
	for (i = 0; i < nm; i++) {
		const struct kft_kv *kv = kft_meta_at(env.f, i);
		const char *tab;

		if (strncmp(kv->key, "skipped.", 8) || !(tab = strchr(kv->val, '\t')))
			continue;
		env.skipped[n].name = strndup(kv->val, tab - kv->val);
		if (!env.skipped[n].name)
			return -ENOMEM;
		env.skipped[n++].reason = tab + 1;
	}
	env.nskipped = n;
	return 0;
}

__u64 kd_first_ts(void)
{
	__u64 t = 0;
	int i;

	for (i = 0; i < kft_nchunks(env.f); i++)
		if (!t || kft_chunk_at(env.f, i)->first_ts < t)
			t = kft_chunk_at(env.f, i)->first_ts;
	return t;
}

__u64 kd_last_ts(void)
{
	__u64 t = 0;
	int i;

	for (i = 0; i < kft_nchunks(env.f); i++)
		if (kft_chunk_at(env.f, i)->last_ts > t)
			t = kft_chunk_at(env.f, i)->last_ts;
	return t;
}

void kd_load_times(void)
{
	const char *mode = kft_meta(env.f, "mode");

	env.sampled = mode && !strcmp(mode, "sampled");
	env.start_ns = kft_meta_u64(env.f, "start_ns", 0);
	if (!env.start_ns)
		env.start_ns = kd_first_ts();
	env.end_ns = kft_stat_u64(env.f, "end_ns", 0);
	if (!env.end_ns)
		env.end_ns = kd_last_ts();
}

const char *kd_mechanism(void)
{
	const char *m = kft_meta(env.f, "mechanism");

	if (m && *m)
		return m;
	if (env.sampled)
		return "perf_event";
	return env.nfuncs ? "?" : "tracepoint";
}

/* ---- reading ------------------------------------------------------------ */

/*
 * Chunk i's records (buf, len; err: why it could not be read) to fn, in
 * file order. A corrupt chunk is said, counted and skipped: 0; -ENOMEM
 * or fn's error otherwise.
 */
static int chunk_records(int i, void *buf, size_t len, int err, kd_rec_fn fn,
			 kd_buf_fn bfn)
{
	const struct kft_chunkinfo *ci = kft_chunk_at(env.f, i);
	size_t off;

	if (err == -ENOMEM)
		return err;
	if (err) {
		kfit_warn("%s: chunk %d (at byte %llu, %llu records) is unreadable: %s; "
			  "skipped", env.path, i, (unsigned long long)ci->offset,
			  (unsigned long long)ci->nrecs,
			  err == -EBADMSG ? "corrupt" : strerror(-err));
		env.chunks_bad++;
		return 0;
	}
	env.chunks_read++;
	if (bfn)
		return bfn(buf, len);
	for (off = 0; !err && len - off >= sizeof(struct kfit_rec); ) {
		const struct kfit_rec *h = (const void *)((char *)buf + off);

		if (h->size < sizeof(*h) || h->size > len - off)
			break;	/* the reader checked: cannot happen */
		err = fn(h, h->size);
		off += h->size;
	}
	return err;
}

int kd_read_chunk(int i, kd_rec_fn fn)
{
	void *buf = NULL;
	size_t len = 0;
	int err = kft_read_chunk(env.f, i, &buf, &len);

	err = chunk_records(i, buf, len, err, fn, NULL);
	free(buf);
	return err;
}

/*
 * Chunks first..last, inflated ahead on the other CPUs while their
 * records go to fn in order (chunks are independent); after(i), if
 * given, once chunk i is done.
 */
static int read_range(int first, int last, kd_rec_fn fn, kd_buf_fn bfn, int (*after)(int i))
{
	struct kft_chunks *c;
	void *buf;
	size_t len;
	int i, cerr, err = 0;

	if (first > last)
		return 0;
	c = kft_chunks_open(env.f, first, last, 0);
	if (!c)
		return -errno;
	while (!err && kft_chunks_next(c, &i, &buf, &len, &cerr) > 0) {
		err = chunk_records(i, buf, len, cerr, fn, bfn);
		if (!err && after)
			err = after(i);
	}
	kft_chunks_close(c);
	return err;
}

int kd_read_range(int first, int last, kd_rec_fn fn, int (*after)(int i))
{
	return read_range(first, last, fn, NULL, after);
}

int kd_count(const struct kfit_rec *h, size_t size)
{
	kd_counted(h, size);
	return 0;
}

/*
 * The tasks' names at the window's start (or at the first chunk a flight
 * recording kept: the execs before fell with the chunks it dropped):
 * from the NAMES block, written at the end of the recording and at each
 * flight dump; a file cut short has none, and the task records of the
 * chunks before the window are read instead, all of them: a window of a
 * long file without NAMES costs the time of reading up to it.
 */
static int names_before(int first)
{
	__u64 until = env.since;
	int i, err = 0;

	/* a complete file's NAMES block tells every name taken, even empty */
	if (!kft_nnames(env.f) && !(kft_complete(env.f) && kft_has_names(env.f)))
		return kd_read_range(0, first - 1, kd_track, NULL);
	if (first < kft_nchunks(env.f) && kft_chunk_at(env.f, first)->first_ts > until)
		until = kft_chunk_at(env.f, first)->first_ts;
	for (i = 0; i < kft_nnames(env.f) && !err; i++) {
		const struct kft_name *n = kft_name_at(env.f, i);

		if (n->ts >= until)
			break;
		err = kfit_tasks_set(env.tasks, n->pid, n->tid, n->comm);
	}
	return err;
}

static bool flight(void)
{
	return kft_header_of(env.f)->flags & KFT_F_FLIGHT;
}

/* The chunks of the window, [*first, *last]; -ENOENT: none */
int kd_window(int *first, int *last)
{
	int err;

	if (!kft_nchunks(env.f))
		return -ENOENT;
	err = kft_chunks_between(env.f, env.since, env.until, first, last);
	if (err)
		return err;
	if (*first > 0 || env.since || flight())
		err = names_before(*first);
	return err;
}

/* Chunks after last may hold LOST records: losses are always counted */
int kd_read_window(kd_rec_fn fn, kd_buf_fn bfn)
{
	int first, last, i, n = kft_nchunks(env.f), err;

	err = kd_window(&first, &last);
	if (err == -ENOENT)
		first = n, last = n - 1, err = 0;
	err = read_range(first, last, fn, bfn, NULL);
	for (i = last + 1; i < n && !err && env.until; i++)
		if (kft_chunk_at(env.f, i)->lost)
			err = kd_read_chunk(i, fn);
	return err;
}

/* The tasks alive at the start (TASKS): kd reads no /proc, its machine's are not those */
int kd_load_tasks(void)
{
	int i, err = 0;

	env.tasks = kfit_tasks_new(false);
	if (!env.tasks)
		return -ENOMEM;
	/* the tree's, once made (tree.c); --events' choice of tasks */
	env.stream = (struct kfit_stream){
		.tasks = env.tasks, .sampled = env.sampled,
		.since = env.since, .until = env.until,
		.pid = env.c.pid, .tid = env.c.tid, .comm = env.c.comm,
	};
	for (i = 0; i < kft_ntasks(env.f) && !err; i++) {
		const struct kft_task *t = kft_task_at(env.f, i);

		err = kfit_tasks_set(env.tasks, t->pid, t->tid, t->comm);
	}
	return err;
}
