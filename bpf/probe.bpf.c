// SPDX-License-Identifier: GPL-2.0
/*
 * The library's probe set: one tiny program per tracing mechanism.
 * src/live/probe.c loads and attaches one at a time, triggers it from its
 * own process, and reads hits[].
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kfit/probe.h"

const volatile __u32 target_tgid;

__u64 hits[KFIT_PROBE_NR];

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rb SEC(".maps");

static __always_inline int hit(int i)
{
	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	__sync_fetch_and_add(&hits[i], 1);
	return 0;
}

SEC("fentry/vfs_read")
int BPF_PROG(on_fentry)
{
	return hit(KFIT_PROBE_FENTRY);
}

SEC("fexit/vfs_read")
int BPF_PROG(on_fexit)
{
	return hit(KFIT_PROBE_FEXIT);
}

SEC("kprobe/vfs_read")
int BPF_KPROBE(on_kprobe)
{
	return hit(KFIT_PROBE_KPROBE);
}

SEC("kretprobe/vfs_read")
int BPF_KRETPROBE(on_kretprobe)
{
	return hit(KFIT_PROBE_KRETPROBE);
}

SEC("kprobe.multi/vfs_read")
int BPF_KPROBE(on_kprobe_multi)
{
	return hit(KFIT_PROBE_KPROBE_MULTI);
}

SEC("tracepoint/raw_syscalls/sys_enter")
int on_tracepoint(void *ctx)
{
	return hit(KFIT_PROBE_TRACEPOINT);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(on_tp_btf, struct pt_regs *regs, long id)
{
	return hit(KFIT_PROBE_TP_BTF);
}

SEC("raw_tp/sys_enter")
int on_raw_tp(struct bpf_raw_tracepoint_args *ctx)
{
	return hit(KFIT_PROBE_RAW_TP);
}

SEC("uprobe")
int BPF_KPROBE(on_uprobe)
{
	return hit(KFIT_PROBE_UPROBE);
}

SEC("uretprobe")
int BPF_KRETPROBE(on_uretprobe)
{
	return hit(KFIT_PROBE_URETPROBE);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(on_ringbuf, struct pt_regs *regs, long id)
{
	__u64 *e;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	if (!e)
		return 0;
	*e = id;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("perf_event")
int on_perf_sw(struct bpf_perf_event_data *ctx)
{
	return hit(KFIT_PROBE_PERF_SW);
}

char LICENSE[] SEC("license") = "GPL";
