// SPDX-License-Identifier: GPL-2.0
/*
 * pmcstat --serve: the counters as Prometheus counters. Raw counts with
 * the times enabled and running beside them, not scaled ones: a scaled
 * estimate can go down between scrapes, which a counter must not; the
 * scaling is a query (docs/pmcstat.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "pmcstat.skel.h"
#include "promtext.h"
#include "maps.h"
#include "serve.h"
#include "state.h"

/* --per-task: at most this many comms of their own (-n), the rest in one */
#define OTHER_COMM "[other]"

static char (*comms)[KFIT_COMM_LEN];	/* the comms given a series, first come */
static unsigned long ncomms;

static void ev_labels(struct kfit_prom_labels *l, int ev, int cpu)
{
	char c[16];

	kfit_prom_labels_init(l);
	kfit_prom_label(l, "event", pmcstat_shown_name(&env.evl.ev[ev]));
	if (cpu < 0)
		return;
	snprintf(c, sizeof(c), "%d", cpu);
	kfit_prom_label(l, "cpu", c);
}

/*
 * One family: field 0 the count, 1 the time enabled, 2 running. The
 * figures are the display's, since the start: --serve takes no -i, so
 * nothing is subtracted from them
 */
static void family(struct kfit_prom *p, int field)
{
	bool per_cpu = env.per_cpu && pmcstat_system_wide();
	struct kfit_prom_labels l;
	struct figure r;
	int ev, cpu;

	for (ev = 0; ev < env.evl.n; ev++) {
		if (env.ctrs.err[ev])
			continue;
		for (cpu = per_cpu ? 0 : -1; cpu < (per_cpu ? env.ncpus : 0); cpu++) {
			if (cpu >= 0 && !env.cpu_on[cpu])
				continue;
			ev_labels(&l, ev, cpu);
			r = pmcstat_figure_at(ev, cpu);
			if (field == 0)
				kfit_prom_u64(p, &l, r.raw);
			else
				kfit_prom_ns(p, &l, field == 1 ? r.enabled : r.running);
		}
	}
}

/* The series a task's counts go to: its comm's, while there is room; else ncomms */
static unsigned long comm_series(const char *comm)
{
	unsigned long i;

	for (i = 0; i < ncomms; i++)
		if (!strncmp(comms[i], comm, KFIT_COMM_LEN))
			return i;
	if (ncomms >= env.top)
		return env.top;
	snprintf(comms[ncomms], KFIT_COMM_LEN, "%s", comm);
	return ncomms++;
}

static void task_sample(struct kfit_prom *p, int ev, const char *comm, __u64 v)
{
	struct kfit_prom_labels l;

	ev_labels(&l, ev, -1);
	kfit_prom_label(&l, "comm", comm);
	kfit_prom_u64(p, &l, v);
}

/*
 * --per-task: by comm, as a task was named when first charged (its row
 * keeps that name, so a comm's counts only grow). One pass over the
 * tasks: sum[c * nev + ev], the row after the comms' being [other]'s
 */
static int tasks(struct kfit_prom *p)
{
	int nev = env.evl.n < PMC_MAX_EVENTS ? env.evl.n : PMC_MAX_EVENTS;
	unsigned long c, n;
	__u64 *sum, folded = 0;
	int ev, i;

	if (!comms && !(comms = calloc(env.top, sizeof(*comms))))
		return -ENOMEM;
	if (pmcstat_read_tasks())
		return -EIO;
	n = ncomms + env.ntasks + 1;	/* comms after this pass, at most, and [other] */
	if (n > env.top + 1)
		n = env.top + 1;
	sum = calloc(n * nev, sizeof(*sum));
	if (!sum)
		return -ENOMEM;
	for (i = 0; i < env.ntasks; i++) {
		c = comm_series(env.tasks[i].comm);
		folded += c == env.top;
		c = c == env.top ? n - 1 : c;
		for (ev = 0; ev < nev; ev++)
			sum[c * nev + ev] += env.tasks[i].sum[ev].counter;
	}
	kfit_prom_family(p, "kfit_pmc_task_count", KFIT_PROM_COUNTER, NULL,
			 "Events charged to the tasks of a comm at their context switches "
			 "(--per-task; past -n comms, comm=\"" OTHER_COMM "\").");
	for (ev = 0; ev < nev; ev++) {
		for (c = 0; c < ncomms; c++)
			task_sample(p, ev, comms[c], sum[c * nev + ev]);
		if (folded)
			task_sample(p, ev, OTHER_COMM, sum[(n - 1) * nev + ev]);
	}
	free(sum);
	kfit_prom_family(p, "kfit_pmc_tasks_folded", KFIT_PROM_GAUGE, NULL,
			 "Tasks whose counts went to comm=\"" OTHER_COMM "\": past -n comms.");
	kfit_prom_u64(p, NULL, folded);
	return 0;
}

int pmcstat_metrics(void *ctx, struct kfit_prom *p)
{
	int err;

	(void)ctx;
	pmcstat_read_counters();
	kfit_prom_family(p, "kfit_pmc_count", KFIT_PROM_COUNTER, NULL,
			 "Events counted, unscaled (multiplexed counters: times enabled/running).");
	family(p, 0);
	kfit_prom_family(p, "kfit_pmc_enabled_seconds", KFIT_PROM_COUNTER, "seconds",
			 "Time the counter was enabled.");
	family(p, 1);
	kfit_prom_family(p, "kfit_pmc_running_seconds", KFIT_PROM_COUNTER, "seconds",
			 "Time the counter was on the PMU (less than enabled: multiplexed).");
	family(p, 2);
	if (env.per_task && (err = tasks(p)))
		return err;
	kfit_serve_health(p, env.skel ? env.skel->bss->dropped : 0,
			  env.skel ? kfit_obj_missed(env.skel->obj) : 0);
	return 0;
}

void pmcstat_metrics_free(void)
{
	free(comms);
	comms = NULL;
	ncomms = 0;
}
