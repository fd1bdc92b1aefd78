/* SPDX-License-Identifier: GPL-2.0 */
/* pmcstat: types shared by bpf/pmcstat.bpf.c and src/cmd/pmcstat/ */
#ifndef KFIT_PMCSTAT_H
#define KFIT_PMCSTAT_H

#define PMC_MAX_EVENTS 16	/* events --per-task counts (its BPF maps) */
#define PMC_TASKS 16384		/* default size of the tasks map */

/* What bpf_perf_event_read_value() gives: struct bpf_perf_event_value */
struct pmc_reading {
	__u64 counter;
	__u64 enabled;
	__u64 running;
};

/* Per CPU: each counter as last read, at the previous context switch */
struct pmc_cpu {
	struct pmc_reading last[PMC_MAX_EVENTS];
};

/* The idle tasks are all tid 0: they are told apart by CPU */
struct pmc_task_key {
	__u32 tid;
	__u32 cpu;	/* 0 unless tid is 0 */
};

/* Cumulative, never reset: user space takes differences */
struct pmc_task {
	__u32 pid;
	__u32 pad;
	char comm[16];
	struct pmc_reading sum[PMC_MAX_EVENTS];
};

#endif
