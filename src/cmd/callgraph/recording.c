// SPDX-License-Identifier: GPL-2.0
/*
 * callgraph's recording (-o): the file's blocks around the records
 * (META, FUNCS, EVENTS, TASKS, NAMES, SYMS, STATS), begun before the
 * first record and closed after the last, and --flight's dumps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kfit/callgraph.h"
#include "attach.h"
#include "calltree.h"
#include "diag.h"
#include "events.h"
#include "fileio.h"
#include "kft.h"
#include "kftmeta.h"
#include "opts.h"
#include "record.h"
#include "run.h"
#include "sampler.h"
#include "target.h"
#include "tpglob.h"
#include "state.h"

/* ---- recording: the file's blocks ------------------------------------- */

static const char *const counter_names[CG_NCOUNTERS] = {
	[CG_LOST] = "lost", [CG_DEEP] = "deep", [CG_UNMATCHED] = "unmatched",
	[CG_NO_STACK] = "no_stack", [CG_NO_ARGS] = "no_args", [CG_STR_FAULT] = "str_faults",
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
		kfit_kftmeta_u64(f, "attach.functions", n);
		kfit_kftmeta_u64(f, "attach.skipped", env.tg.nskipped);
		kfit_kftmeta_u64(f, "attach.ns", ns);
		fprintf(f, "attach.fds=%lld\n", (long long)fds);
	}
	for (i = 0; !env.sampled && i < env.tg.nskipped; i++)
		fprintf(f, "skipped.%d=%s\t%s\n", i, env.tg.skipped[i].name,
			env.tg.skipped[i].reason);
}

/* META: the machine, then how callgraph recorded (what cgview needs to render) */
static int fill_meta(FILE *f, void *ctx)
{
	int err = kfit_kftmeta_machine(f, env.argc, env.argv);

	(void)ctx;
	if (err)
		return err;
	kfit_kftmeta_u64(f, "start_ns", env.start_ns);
	kfit_kftmeta_kv(f, "mode", env.sampled ? "sampled" : "exact");
	kfit_kftmeta_kv(f, "mechanism", cg_mechanism());
	kfit_kftmeta_kv(f, "tp_mode", env.tp_mode);
	if (env.sampled) {
		kfit_kftmeta_u64(f, "hz", kfit_sampler_hz(env.sampler));
		kfit_kftmeta_kv(f, "sample_event", kfit_sampler_event(env.sampler));
	}
	if (env.root)
		kfit_kftmeta_kv(f, "root", env.root);
	/* sampled: -D and --min are the tree's, the recording keeps every frame */
	if (env.depth && !env.sampled)
		kfit_kftmeta_u64(f, "depth", env.depth);
	if (env.c.has_min && !env.sampled)
		kfit_kftmeta_u64(f, "min_ns", env.c.min_ns);
	if (env.c.has_max)
		kfit_kftmeta_u64(f, "max_ns", env.c.max_ns);
	if (env.c.pid)
		kfit_kftmeta_u64(f, "pid", env.c.pid);
	if (env.c.tid)
		kfit_kftmeta_u64(f, "tid", env.c.tid);
	if (env.c.comm[0])
		kfit_kftmeta_kv(f, "comm", env.c.comm);
	meta_cpus(f);
	kfit_kftmeta_u64(f, "interlace", !env.view.no_interlace);
	meta_attach(f);
	kfit_kftmeta_u64(f, "buffer", env.buffer);
	kfit_kftmeta_u64(f, "rings", env.nrings);
	if (env.flight)
		kfit_kftmeta_u64(f, "flight", env.flight);
	return ferror(f) ? -ENOMEM : 0;
}

static int fill_funcs(FILE *f, void *ctx)
{
	(void)ctx;
	return kfit_record_funcs(f, &env.tg);
}

/* ARGS: how each function's arguments print, for kd */
static int fill_args(FILE *f, void *ctx)
{
	int i;

	(void)ctx;
	for (i = 0; i < env.tg.n; i++)
		kfit_kftmeta_args(f, i, env.tg.funcs[i].fmt, env.tg.funcs[i].nargs);
	return ferror(f) ? -ENOMEM : 0;
}

static int fill_events(FILE *f, void *ctx)
{
	(void)ctx;
	return kfit_kftmeta_events(f, &env.tps, NULL);
}

static int fill_syms(FILE *f, void *ctx)
{
	(void)ctx;
	return kfit_kftmeta_symset_text(env.symset, f);
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
		cg_read_counters();
	}
	kfit_kftmeta_u64(f, "end_ns", env.end_ns ? env.end_ns : kfit_now_ns());
	kfit_kftmeta_u64(f, "records", ws.records);
	kfit_kftmeta_u64(f, "bytes", ws.raw_bytes);
	for (i = 1; i < KFIT_REC_NTYPES; i++)
		fprintf(f, "records.%s=%llu\n", kfit_ctree_rec_type_name(i),
			(unsigned long long)env.cap.types[i]);
	kfit_kftmeta_u64(f, "end_calls", env.cap.end_calls);
	for (i = 0; i < KFIT_MAX_CPUS; i++)
		if (env.cap.cpu_recs[i])
			fprintf(f, "records.cpu%d=%llu\n", i,
				(unsigned long long)env.cap.cpu_recs[i]);
	kfit_record_lost(f, lost, ncpus > KFIT_MAX_CPUS ? KFIT_MAX_CPUS : ncpus);
	for (i = 0; i < CG_NCOUNTERS; i++)
		fprintf(f, "counter.%s=%llu\n", counter_names[i],
			(unsigned long long)env.cap.counters[i]);
	kfit_kftmeta_u64(f, "missed", env.att ? kfit_attacher_missed(env.att) : 0);
	kfit_kftmeta_u64(f, "names_dropped", env.names_dropped);
	/* the chunks themselves are counted by the index */
	if (env.flight)
		kfit_kftmeta_u64(f, "chunks_dropped", ws.chunks_dropped);
	if (env.capped)
		kfit_kftmeta_u64(f, "size_capped", 1);
	return ferror(f) ? -ENOMEM : 0;
}

/* The NAMES block so far, for a dump or the end */
static void give_names(void)
{
	if (!env.names || fflush(env.names) ||
	    kft_writer_names(env.w, env.names_buf, env.names_len))
		kfit_warn("the names of tasks over time are not in %s: out of memory",
			  env.out);
}

#define SYMS_EVERY_NS	1000000000ULL

/*
 * The sampled addresses named since the last SYMS block, into the file
 * now (at most once a second): a recording killed later, or a flight
 * dump, keeps the names of what it holds
 */
void cg_write_syms(void)
{
	__u64 now = kfit_now_ns();
	size_t len = 0;
	char *syms;
	int err;

	if (!env.w || !env.symset || env.syms_late ||
	    !kfit_kftmeta_symset_unwritten(env.symset) || now - env.syms_at < SYMS_EVERY_NS)
		return;
	env.syms_at = now;
	syms = kfit_record_text(fill_syms, NULL, &len);
	err = syms ? kft_writer_block(env.w, KFT_B_SYMS, syms, len) : -ENOMEM;
	free(syms);
	if (err == -EFBIG)
		env.syms_late = true;	/* the cap's share for the end takes them */
	else if (err)
		kfit_warn("cannot name the sampled addresses in %s yet: %s", env.out,
			  kfit_out_reason(err));
}

/* SIGUSR1: a flight recording is written now, and goes on */
void cg_flight_dump(void)
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
int cg_begin_recording(void)
{
	struct kft_writer *w = env.w;
	int i, n = 0, err;

	for (i = 0; i < env.tg.n; i++)
		n += !env.tg.funcs[i].dropped;
	if (!env.sampled && !n && !env.tps.n) {
		kfit_err("nothing to record: no function is attached and no -e event chosen");
		return -ENOENT;
	}
	if (env.sampled && !(env.symset = kfit_kftmeta_symset_new(env.syms)))
		return -ENOMEM;
	env.names = open_memstream(&env.names_buf, &env.names_len);
	if (!env.names)
		return -ENOMEM;
	err = kfit_record_block(w, KFT_B_META, fill_meta, NULL);
	if (!err)
		err = kft_writer_layout(w);
	if (!err && env.tg.n)
		err = kfit_record_block(w, KFT_B_FUNCS, fill_funcs, NULL);
	if (!err && env.has_args)
		err = kfit_record_block(w, KFT_B_ARGS, fill_args, NULL);
	if (!err && env.tps.n)
		err = kfit_record_block(w, KFT_B_EVENTS, fill_events, NULL);
	if (!err)
		err = kft_writer_block(w, KFT_B_TASKS, env.tasks_block ? env.tasks_block : "",
				       env.tasks_block_len);
	if (err)
		kfit_out_err(env.out, err);
	return err;
}

/* The end: the records' counts, the sampled names, the index; one line said */
int cg_end_recording(void)
{
	char *syms = NULL, *stats;
	size_t slen = 0, len = 0;
	struct kft_wstats ws;
	__u64 lost = 0;
	int i, err;

	for (i = 0; env.cap.lost && i < env.cap.ncpus && i < KFIT_MAX_CPUS; i++)
		lost += env.cap.lost[i];
	if (env.symset && kfit_kftmeta_symset_unwritten(env.symset) &&
	    !(syms = kfit_record_text(fill_syms, NULL, &slen)))
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

/* -o FILE: checked and begun before anything is attached */
int cg_open_recording(void)
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

/* ---- the tasks alive at the start (TASKS) ------------------------------ */

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
		kfit_kftmeta_task(f, pid, tid, ppid, comm);
	return cg_name(pid, tid, comm);
}

static int fill_tasks(FILE *f, void *ctx)
{
	int err = kfit_kftmeta_proc_tasks(NULL, env.c.pid, one_task, f);

	(void)ctx;
	/* no /proc: the tasks are named by their records */
	return err == -ENOMEM ? err : 0;
}

/* The names of the tasks there now: those that exec later say theirs then */
int cg_name_tasks(void)
{
	if (!env.out)
		return fill_tasks(NULL, NULL);
	env.tasks_block = kfit_record_text(fill_tasks, NULL, &env.tasks_block_len);
	return env.tasks_block ? 0 : -ENOMEM;
}
