// SPDX-License-Identifier: GPL-2.0
/*
 * The recording benchmark's floors (tools/bench/record.sh), on
 * syscalls:sys_enter_write; the loader (floor.c) loads one of them:
 *   empty:   a program that does nothing: the tracepoint's own cost
 *   ringbuf: a 16-byte record per event into a ring buffer, wake-ups
 *            batched as callgraph batches them (the reader polls every
 *            100 ms, or is woken once a quarter of the ring is queued)
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

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

char LICENSE[] SEC("license") = "GPL";
