/* SPDX-License-Identifier: GPL-2.0 */
/* pmcstat: types shared by bpf/pmcstat.bpf.c and src/cmd/pmcstat/ */
#ifndef KFIT_PMCSTAT_H
#define KFIT_PMCSTAT_H

#define PMC_MAX_EVENTS 16	/* events --per-task counts (its BPF maps) */
#define PMC_TASKS 16384		/* slots of the tasks array */

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

/*
 * A task's slot in the tasks array, taken at its first switch. Cumulative,
 * never reset: user space takes differences. A slot is read once ready is
 * set (its key, pid and comm are written before). A tid that comes back
 * after its task exited may get a slot of its own: user space adds up the
 * slots of a key.
 */
struct pmc_task {
	struct pmc_task_key key;
	__u32 pid;
	__u32 ready;
	char comm[16];
	struct pmc_reading sum[PMC_MAX_EVENTS];
};

#endif
