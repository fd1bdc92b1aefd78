// SPDX-License-Identifier: GPL-2.0
/*
 * softirqlat: softirq queue delay (raise to entry) and handler time
 * (entry to exit), per vector, in per-CPU histograms.
 *
 * All state is per CPU and per vector: a softirq runs on the CPU that
 * raised it, and keying by pid would mix the idle tasks (all pid 0).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kfit.bpf.h"
#include "kfit/softirqlat.h"

const volatile __u64 lin_step;	/* --linear STEP in ns, 0: off */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sirq_state);
} state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2 * SIRQ_KEYS);
	__type(key, __u32);
	__type(value, struct kfit_hist);
} hists SEC(".maps");

/* Resized to one entry by user space unless --linear is given */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2 * SIRQ_KEYS);
	__type(key, __u32);
	__type(value, struct kfit_linhist);
} linhists SEC(".maps");

static __always_inline struct sirq_state *cpu_state(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&state, &zero);
}

static __always_inline void record(__u32 vec, __u32 kind, __u64 delta)
{
	__u32 key = sirq_key(kfit_half(), vec, kind);

	kfit_hist_add(&hists, key, delta);
	if (lin_step)
		kfit_linhist_add(&linhists, key, delta, lin_step);
}

static __always_inline int on_raise(unsigned int vec)
{
	struct sirq_state *s = cpu_state();

	if (!s || vec >= SIRQ_VECS)
		return 0;
	/* Raised again before it ran: the first raise is what waited. */
	if (!s->raised[vec])
		s->raised[vec] = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int on_entry(unsigned int vec)
{
	struct sirq_state *s = cpu_state();
	__u64 now = bpf_ktime_get_ns(), raised;

	if (!s || vec >= SIRQ_VECS)
		return 0;
	s->entered[vec] = now;
	raised = s->raised[vec];
	s->raised[vec] = 0;
	/* Raised before tracing began: no queue delay to report. */
	if (raised && raised <= now)
		record(vec, SIRQ_QUEUE, now - raised);
	return 0;
}

static __always_inline int on_exit(unsigned int vec)
{
	struct sirq_state *s = cpu_state();
	__u64 now = bpf_ktime_get_ns(), entered;

	if (!s || vec >= SIRQ_VECS)
		return 0;
	entered = s->entered[vec];
	/* Entered before tracing began: not a whole run. */
	if (entered && entered <= now)
		record(vec, SIRQ_HANDLER, now - entered);
	/* Cleared last: user space waits for this before its final read. */
	s->entered[vec] = 0;
	return 0;
}

/*
 * The skeleton attaches in this order: exit, entry, then raise, so that
 * no entry is seen whose exit could still be missed, and no raise whose
 * entry could be.
 */
SEC("tp_btf/softirq_exit")
int BPF_PROG(exit_btf, unsigned int vec)
{
	return on_exit(vec);
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(entry_btf, unsigned int vec)
{
	return on_entry(vec);
}

SEC("tp_btf/softirq_raise")
int BPF_PROG(raise_btf, unsigned int vec)
{
	return on_raise(vec);
}

/* Raw tracepoints: the same arguments, for kernels without tp_btf */
SEC("raw_tp/softirq_exit")
int BPF_PROG(exit_raw, unsigned int vec)
{
	return on_exit(vec);
}

SEC("raw_tp/softirq_entry")
int BPF_PROG(entry_raw, unsigned int vec)
{
	return on_entry(vec);
}

SEC("raw_tp/softirq_raise")
int BPF_PROG(raise_raw, unsigned int vec)
{
	return on_raise(vec);
}

char LICENSE[] SEC("license") = "GPL";
