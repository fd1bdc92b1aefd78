// SPDX-License-Identifier: GPL-2.0
/*
 * pmcstat --per-task: at every context switch, read this CPU's counters
 * and charge what they counted since the previous switch to the task
 * that is leaving. Counters are never reset here, so user space can read
 * the cumulative sums at any time without racing this program.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "follow.bpf.h"
#include "kfit/pmcstat.h"

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

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PMC_TASKS);
	__type(key, struct pmc_task_key);
	__type(value, struct pmc_task);
} tasks SEC(".maps");

__u64 dropped;		/* switches not charged: the tasks map was full */
__u64 read_errors;	/* counters that could not be read */

static struct pmc_task zero_task;

static struct pmc_task *task_of(struct task_struct *p, __u32 cpu)
{
	struct pmc_task_key key = {};
	struct pmc_task *t;

	key.tid = BPF_CORE_READ(p, pid);
	key.cpu = key.tid ? 0 : cpu;
	t = bpf_map_lookup_elem(&tasks, &key);
	if (t)
		return t;
	if (bpf_map_update_elem(&tasks, &key, &zero_task, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&tasks, &key)) {
		__sync_fetch_and_add(&dropped, 1);
		return NULL;
	}
	t = bpf_map_lookup_elem(&tasks, &key);
	if (!t)
		return NULL;
	t->pid = BPF_CORE_READ(p, tgid);
	BPF_CORE_READ_STR_INTO(&t->comm, p, comm);
	return t;
}

static int charge(struct task_struct *prev)
{
	struct bpf_perf_event_value v;
	struct pmc_reading *last;
	struct pmc_task *t;
	struct pmc_cpu *st;
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();
	int i, err;

	st = bpf_map_lookup_elem(&state, &zero);
	if (!st)
		return 0;
	/* -p, COMMAND: only their tasks are charged; the counters still move on */
	t = kfit_followed(BPF_CORE_READ(prev, tgid)) ? task_of(prev, cpu) : NULL;
	/* its name now: a COMMAND's first switches were before its exec */
	if (t)
		BPF_CORE_READ_STR_INTO(&t->comm, prev, comm);
	for (i = 0; i < PMC_MAX_EVENTS; i++) {
		if (i >= nr_events)
			break;
		err = bpf_perf_event_read_value(&counters, i * nr_cpus + cpu,
						&v, sizeof(v));
		/* -ENOENT: no counter on this CPU (not chosen with -C) */
		if (err) {
			if (err != -2)
				__sync_fetch_and_add(&read_errors, 1);
			continue;
		}
		last = &st->last[i];
		/* one task leaves one CPU at a time: plain adds are safe */
		if (t) {
			t->sum[i].counter += v.counter - last->counter;
			t->sum[i].enabled += v.enabled - last->enabled;
			t->sum[i].running += v.running - last->running;
		}
		last->counter = v.counter;
		last->enabled = v.enabled;
		last->running = v.running;
	}
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(switch_btf, bool preempt, struct task_struct *prev)
{
	return charge(prev);
}

SEC("raw_tp/sched_switch")
int BPF_PROG(switch_raw, bool preempt, struct task_struct *prev)
{
	return charge(prev);
}

/* -p, COMMAND: their new processes are followed too (follow.bpf.h) */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(fork_btf, struct task_struct *parent, struct task_struct *child)
{
	kfit_follow_fork(parent, child);
	return 0;
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(fork_raw, struct task_struct *parent, struct task_struct *child)
{
	kfit_follow_fork(parent, child);
	return 0;
}

/*
 * A task that exits is charged now, while it is still followed: its last
 * switch comes after it has left tracked (a short one may have no other).
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(exit_btf, struct task_struct *p)
{
	charge(p);
	kfit_follow_exit(p);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(exit_raw, struct task_struct *p)
{
	charge(p);
	kfit_follow_exit(p);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
