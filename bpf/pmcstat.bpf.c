// SPDX-License-Identifier: GPL-2.0
/*
 * pmcstat --per-task: at every context switch, read this CPU's counters
 * and charge what they counted since the previous switch to the task
 * that is leaving. Counters are never reset here, so user space can read
 * the cumulative sums at any time without racing this program.
 *
 * The switch is the hot path: a task's slot in the tasks array is found
 * through its task storage (tp_btf; a hash by tid only under raw
 * tracepoints), its name is copied when the slot is taken and when the
 * task is renamed (exec, prctl), and counters that are never multiplexed
 * are read without their enabled and running times.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "follow.bpf.h"
#include "kfit/pmcstat.h"
#include "pmc.bpf.h"

/* Bit ev: event ev may be multiplexed, its times are read (the loader's) */
const volatile __u32 timed;

/* Slots 0 to nslots - 1 are taken; user space maps the array */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, PMC_TASKS);
	__type(key, __u32);
	__type(value, struct pmc_task);
} tasks SEC(".maps");

/* tp_btf: a task's slot + 1, kept with the task: no lookup by tid */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u32);
} task_slot SEC(".maps");

/* raw tracepoints (no task storage through an untyped pointer): by key */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PMC_TASKS);
	__type(key, struct pmc_task_key);
	__type(value, __u32);
} tid_slot SEC(".maps");

__u32 nslots;		/* slots taken (may pass PMC_TASKS: clamp) */
__u64 dropped;		/* switches not charged: no slot left (or no storage) */
__u64 read_errors;	/* counters that could not be read */

/* A new slot for task p (key tid, cpu): its index + 1, or 0 when full */
static __always_inline __u32 new_slot(struct task_struct *p, __u32 tid, __u32 cpu)
{
	struct pmc_task *t;
	__u32 idx;

	if (nslots >= PMC_TASKS)
		return 0;
	idx = __sync_fetch_and_add(&nslots, 1);
	t = bpf_map_lookup_elem(&tasks, &idx);
	if (!t)
		return 0;
	t->key.tid = tid;
	t->key.cpu = cpu;
	t->pid = BPF_CORE_READ(p, tgid);
	BPF_CORE_READ_STR_INTO(&t->comm, p, comm);
	/* an atomic: the fields above are written before user space sees it */
	__sync_fetch_and_add(&t->ready, 1);
	return idx + 1;
}

static __always_inline struct pmc_task *slot_at(__u32 s)
{
	__u32 idx = s - 1;

	return s ? bpf_map_lookup_elem(&tasks, &idx) : NULL;
}

/* Task p's slot, taken at its first switch (create); NULL if none */
static __always_inline struct pmc_task *slot_btf(struct task_struct *p,
						 __u32 cpu, bool create)
{
	__u32 *s, tid;

	s = bpf_task_storage_get(&task_slot, p, 0,
				 create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	if (!s)
		return NULL;
	if (!*s && create) {
		tid = p->pid;
		*s = new_slot(p, tid, tid ? 0 : cpu);
	}
	return slot_at(*s);
}

static __always_inline struct pmc_task *slot_raw(struct task_struct *p,
						 __u32 cpu, bool create)
{
	struct pmc_task_key key = {};
	__u32 *s, n;

	key.tid = BPF_CORE_READ(p, pid);
	key.cpu = key.tid ? 0 : cpu;
	s = bpf_map_lookup_elem(&tid_slot, &key);
	if (s || !create)
		return s ? slot_at(*s) : NULL;
	/* a task switches on one CPU at a time: no one else adds its key */
	n = new_slot(p, key.tid, key.cpu);
	if (!n || bpf_map_update_elem(&tid_slot, &key, &n, BPF_NOEXIST))
		return NULL;
	return slot_at(n);
}

static __always_inline int charge(struct task_struct *prev, bool btf)
{
	struct bpf_perf_event_value v = {};
	struct pmc_reading *last;
	struct pmc_task *t = NULL;
	struct pmc_cpu *st;
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();
	__u64 c;
	int i, err;

	st = bpf_map_lookup_elem(&state, &zero);
	if (!st)
		return 0;
	/* -p, COMMAND: only their tasks are charged; the counters still move on */
	if (!follow || kfit_followed(BPF_CORE_READ(prev, tgid))) {
		t = btf ? slot_btf(prev, cpu, true) : slot_raw(prev, cpu, true);
		if (!t)
			__sync_fetch_and_add(&dropped, 1);
	}
	for (i = 0; i < PMC_MAX_EVENTS; i++) {
		if (i >= nr_events)
			break;
		if (timed & (1U << i)) {
			err = bpf_perf_event_read_value(&counters, i * nr_cpus + cpu,
							&v, sizeof(v));
		} else {
			/* no times: cheaper; a count or -errno */
			c = bpf_perf_event_read(&counters, i * nr_cpus + cpu);
			err = c >= (__u64)-4095 ? (int)c : 0;
			v.counter = c;
			v.enabled = 0;
			v.running = 0;
		}
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
	return charge(prev, true);
}

SEC("raw_tp/sched_switch")
int BPF_PROG(switch_raw, bool preempt, struct task_struct *prev)
{
	return charge(prev, false);
}

/* The new name (exec, prctl, /proc/PID/comm), before it is written */
SEC("tp_btf/task_rename")
int BPF_PROG(rename_btf, struct task_struct *p, const char *comm)
{
	struct pmc_task *t = slot_btf(p, 0, false);

	if (t)
		bpf_probe_read_kernel_str(&t->comm, sizeof(t->comm), comm);
	return 0;
}

SEC("raw_tp/task_rename")
int BPF_PROG(rename_raw, struct task_struct *p, const char *comm)
{
	struct pmc_task *t = slot_raw(p, 0, false);

	if (t)
		bpf_probe_read_kernel_str(&t->comm, sizeof(t->comm), comm);
	return 0;
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
	charge(p, true);
	kfit_follow_exit(p);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(exit_raw, struct task_struct *p)
{
	charge(p, false);
	kfit_follow_exit(p);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
