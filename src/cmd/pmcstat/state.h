/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmcstat's state, and what its parts share. From the top: main.c
 * (options, checks, the run), display.c (text, CSV, JSON) and counts.c
 * (the counters, --per-task's BPF, the figures and ratios); each calls
 * only the parts under it.
 */
#ifndef KFIT_PMCSTAT_STATE_H
#define KFIT_PMCSTAT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/types.h>
#include "kfit/pmcstat.h"
#include "child.h"
#include "opts.h"
#include "perf.h"
#include "pmu.h"

/* --per-task's skeleton (pmcstat.skel.h, which counts.c and main.c include) */
struct pmcstat_bpf;

struct env {
	struct kfit_common c;
	struct kfit_pmu_event_list evl;
	bool all_cpus, aggr, per_task, per_cpu, list;
	const char *sep;		/* -x: CSV */
	unsigned long top;
	unsigned long interval_ms;	/* -I */
	const char *bad_event;		/* -e parse error already printed */
	char **cmd;			/* -- COMMAND */

	int ncpus;			/* possible CPUs */
	bool *cpu_on;			/* counted CPUs */
	pid_t *threads;			/* -1 alone: system wide */
	int nthreads;
	bool inherit;
	struct kfit_perf_set ctrs;	/* ctrs.err[ev]: 0 if opened somewhere */
	struct pmc_reading *cur, *prev;	/* [ev * ncpus + cpu], cumulative */

	struct kfit_child child;	/* -- COMMAND */

	struct pmcstat_bpf *skel;
	const char *mode;		/* "tp_btf" or "raw_tracepoint" */
	__u32 timed;			/* bit ev: its times read (may multiplex) */
	struct pmc_task *slots;		/* the tasks array, mapped */
	struct pmc_task *tasks, *ptasks;	/* by key, each key once */
	int ntasks, nptasks;

	__u64 start_ns, last_ns;
	__u64 read_errors;
	int not_switched;		/* CPUs pmcstat_flush_cpus() could not reach */
	struct kfit_pmu_env pmu;
	struct kfit_serve *srv;		/* --serve */
};

extern struct env env;

/* -a and -C with a COMMAND: the machine (those CPUs) while it runs */
static inline bool pmcstat_system_wide(void)
{
	return env.per_task || env.all_cpus || env.c.cpus.set ||
	       (!env.c.pid && !env.c.tid && !env.cmd);
}

struct figure {
	__u64 raw, enabled, running;
	double value;		/* scaled for multiplexing */
	int status;		/* 0 counted, 1 not counted, 2 not supported */
};

/* The ratios of counts.c's ratios[]; ratio NRATIOS is "CPUs utilized" */
#define NRATIOS 6

/* counts.c */
const char *pmcstat_shown_name(const struct kfit_pmu_event *e);
int pmcstat_open_counters(void);
const char *pmcstat_event_why(int ev, char *buf, size_t len);
int pmcstat_report_unsupported(void);
void pmcstat_read_counters(void);
int pmcstat_start_bpf(void);
int pmcstat_cmp_key(const void *a, const void *b);
int pmcstat_read_tasks(void);
void pmcstat_flush_cpus(void);
void pmcstat_stop_bpf(void);
__u64 pmcstat_bss_dropped(void);
__u64 pmcstat_bss_read_errors(void);
struct figure pmcstat_figure_of(const struct pmc_reading *r, int ev);
struct figure pmcstat_task_figure(const struct pmc_reading *r, int ev);
struct figure pmcstat_figure_at(int ev, int cpu);
bool pmcstat_ratio_value(int r, int cpu, __u64 elapsed, double *out);
bool pmcstat_ratio_shown(int r);
const char *pmcstat_ratio_name(int r);

/* display.c */
const char *pmcstat_target_name(void);
void pmcstat_cpus_text(char *buf, size_t len);
void pmcstat_print_text(__u64 now, __u64 elapsed);
void pmcstat_print_json(__u64 now, __u64 elapsed);
void pmcstat_print_csv(__u64 now);

/* metrics.c: --serve's scrape (kfit_loop.metrics), and its memory freed */
struct kfit_prom;
int pmcstat_metrics(void *ctx, struct kfit_prom *p);
void pmcstat_metrics_free(void);

#endif
