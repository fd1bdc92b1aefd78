// SPDX-License-Identifier: GPL-2.0
/* kd --info: what the file holds, as text or JSON */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "kfit/rec.h"
#include "calltree.h"
#include "kft.h"
#include "output.h"
#include "state.h"

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
	const struct kft_header *hd = kft_header_of(env.f);
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
		comp += kft_chunk_at(env.f, i)->size;
		raw += kft_chunk_at(env.f, i)->raw_size;
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
		kfit_json_u64(&j, kfit_ctree_rec_type_name(i), env.counts.types[i]);
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
	const struct kft_header *hd = kft_header_of(env.f);
	time_t created = hd->created_ns / 1000000000ULL;
	__u64 comp = 0, raw = 0;
	char when[64], d[32];
	struct tm tm;
	int i, err = 0, n = kft_nchunks(env.f);

	err = kd_read_range(0, n - 1, kd_count, NULL);
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
		comp += kft_chunk_at(env.f, i)->size;
		raw += kft_chunk_at(env.f, i)->raw_size;
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
		printf(" %s %llu%s", kfit_ctree_rec_type_name(i), (unsigned long long)env.counts.types[i],
		       i + 1 < KFIT_REC_NTYPES ? "," : "");
	printf("\n");
	printf("time:       %s (start_ns %llu to end_ns %llu)\n",
	       kd_dur(env.end_ns > env.start_ns ? env.end_ns - env.start_ns : 0, d),
	       (unsigned long long)env.start_ns, (unsigned long long)env.end_ns);
	info_wall();
	if (kft_header_of(env.f)->flags & KFT_F_FLIGHT && kft_nchunks(env.f))
		printf("kept:       from %s on (a flight recording: %llu older chunks dropped)\n",
		       kd_dur(kft_chunk_at(env.f, 0)->first_ts > env.start_ns ?
			   kft_chunk_at(env.f, 0)->first_ts - env.start_ns : 0, d),
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
