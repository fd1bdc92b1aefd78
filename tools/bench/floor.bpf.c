// SPDX-License-Identifier: GPL-2.0
/*
 * The recording benchmark's floors (tools/bench/record.sh), on
 * syscalls:sys_enter_write; the loader (floor.c) loads one of them:
 *   empty:   a program that does nothing: the tracepoint's own cost
 *   ringbuf: a 16-byte record per event into a ring buffer, wake-ups
 *            batched as callgraph batches them (the reader polls every
 *            100 ms, or is woken once a quarter of the ring is queued)
 * and softirqlat's floor (tools/bench/softirqlat.sh), on the softirq
 * tracepoints:
 *   softirq: three tp_btf programs (raise, entry, exit), each one clock
 *            read and one store in a per-CPU array: the least that can
 *            time both the queue delay and the handler
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

const volatile __u64 wake_bytes;	/* set by the loader */
__u64 lost;				/* reservations refused: the ring was full */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);	/* sized by the loader */
} rb SEC(".maps");

struct floor_rec {
	__u64 ts;
	__u64 pid_tgid;
};

SEC("tp/syscalls/sys_enter_write")
int floor_empty(void *ctx)
{
	return 0;
}

SEC("tp/syscalls/sys_enter_write")
int floor_ringbuf(void *ctx)
{
	struct floor_rec *r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	__u64 queued;

	if (!r) {
		__sync_fetch_and_add(&lost, 1);
		return 0;
	}
	r->ts = bpf_ktime_get_ns();
	r->pid_tgid = bpf_get_current_pid_tgid();
	queued = bpf_ringbuf_query(&rb, BPF_RB_AVAIL_DATA);
	bpf_ringbuf_submit(r, queued > wake_bytes ? BPF_RB_FORCE_WAKEUP :
			   BPF_RB_NO_WAKEUP);
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u64[NR_SOFTIRQS]);
} sirq SEC(".maps");

static __always_inline int sirq_stamp(__u32 kind, unsigned int vec)
{
	__u64 *t = bpf_map_lookup_elem(&sirq, &kind);

	if (t && vec < NR_SOFTIRQS)
		t[vec] = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/softirq_raise")
int BPF_PROG(floor_sirq_raise, unsigned int vec)
{
	return sirq_stamp(0, vec);
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(floor_sirq_entry, unsigned int vec)
{
	return sirq_stamp(1, vec);
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(floor_sirq_exit, unsigned int vec)
{
	return sirq_stamp(2, vec);
}

char LICENSE[] SEC("license") = "GPL";
