// SPDX-License-Identifier: GPL-2.0
/*
 * pmcstat --per-task's floors (tools/bench/pmcstat.sh), on sched_switch
 * (tp_btf, as --per-task attaches); the loader (pmcfloor.c) loads one:
 *   empty: a program that does nothing: the tracepoint's own cost
 *   read:  this CPU's counters read (bpf_perf_event_read_value) and kept
 *          per CPU, as --per-task reads them, charged to no task
 *   count: the same with bpf_perf_event_read (the count alone, no
 *          enabled and running times)
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kfit/pmcstat.h"
#include "pmc.bpf.h"

__u64 read_errors;

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_empty)
{
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_read)
{
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();
	struct bpf_perf_event_value v;
	struct pmc_cpu *st;
	int i;

	st = bpf_map_lookup_elem(&state, &zero);
	if (!st)
		return 0;
	for (i = 0; i < PMC_MAX_EVENTS && i < nr_events; i++) {
		if (bpf_perf_event_read_value(&counters, i * nr_cpus + cpu,
					      &v, sizeof(v))) {
			__sync_fetch_and_add(&read_errors, 1);
			continue;
		}
		st->last[i].counter = v.counter;
		st->last[i].enabled = v.enabled;
		st->last[i].running = v.running;
	}
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(floor_count)
{
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();
	struct pmc_cpu *st;
	__u64 c;
	int i;

	st = bpf_map_lookup_elem(&state, &zero);
	if (!st)
		return 0;
	for (i = 0; i < PMC_MAX_EVENTS && i < nr_events; i++) {
		c = bpf_perf_event_read(&counters, i * nr_cpus + cpu);
		/* errors come back as -errno */
		if ((__s64)c < 0 && (__s64)c >= -4095) {
			__sync_fetch_and_add(&read_errors, 1);
			continue;
		}
		st->last[i].counter = c;
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
