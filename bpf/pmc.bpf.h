/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmcstat --per-task's counters and per-CPU state, shared by its program
 * (pmcstat.bpf.c) and its floors (tools/bench/pmcfloor.bpf.c), so that the
 * floors read the counters exactly as the tool does. Include after
 * vmlinux.h and kfit/pmcstat.h.
 */
#ifndef KFIT_PMC_BPF_H
#define KFIT_PMC_BPF_H

const volatile __u32 nr_events;
const volatile __u32 nr_cpus;

/* Slot ev * nr_cpus + cpu: event ev's counter on cpu (sized by the loader) */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pmc_cpu);
} state SEC(".maps");

#endif
