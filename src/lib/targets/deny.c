// SPDX-License-Identifier: GPL-2.0
/*
 * The default deny list of kernel functions. Each glob says why: a probe
 * on a function that BPF programs, the trampolines, kprobes or the ring
 * buffer call themselves either recurses (and the kernel drops the
 * inner run: recursion_misses), is refused at attach, or can deadlock
 * when its lock is held by the probed code.
 */
#include <fnmatch.h>
#include <stddef.h>
#include "deny.h"

struct deny {
	const char *glob;
	const char *why;
};

static const char R_BPF[] = "BPF internals: the probes run them";
static const char R_TRACE[] = "tracing internals: ftrace, kprobes, trampolines";
static const char R_RCU[] = "RCU internals: every probe enters RCU";
static const char R_PREEMPT[] = "preemption and migration control: every probe disables them";
static const char R_IRQ[] = "interrupt on/off and entry: probes run with them";
static const char R_LOCK[] = "lock internals: map updates take them, probing them can deadlock";
static const char R_TIME[] = "clocks the probes read for their timestamps";
static const char R_NMI[] = "NMI and exception entry: not safely traceable";
static const char R_SAN[] = "compiler instrumentation hooks";

static const struct deny denied[] = {
	{ "bpf_*", R_BPF },
	{ "__bpf_*", R_BPF },
	{ "*_bpf_prog_*", R_BPF },
	{ "htab_*", R_BPF },
	{ "__htab_*", R_BPF },
	{ "array_map_*", R_BPF },
	{ "percpu_array_*", R_BPF },
	{ "ringbuf_*", R_BPF },
	{ "__bpf_ringbuf_*", R_BPF },
	{ "pcpu_freelist_*", R_BPF },
	{ "__pcpu_freelist_*", R_BPF },
	{ "ftrace_*", R_TRACE },
	{ "__ftrace_*", R_TRACE },
	{ "*kprobe*", R_TRACE },
	{ "*kretprobe*", R_TRACE },
	{ "fprobe_*", R_TRACE },
	{ "__fprobe_*", R_TRACE },
	{ "rethook_*", R_TRACE },
	{ "arch_rethook_*", R_TRACE },
	{ "trace_call_bpf", R_TRACE },
	{ "perf_trace_buf_*", R_TRACE },
	{ "rcu_*", R_RCU },
	{ "__rcu_*", R_RCU },
	{ "srcu_*", R_RCU },
	{ "__srcu_*", R_RCU },
	{ "*preempt_count*", R_PREEMPT },
	{ "preempt_schedule*", R_PREEMPT },
	{ "migrate_disable", R_PREEMPT },
	{ "migrate_enable", R_PREEMPT },
	{ "trace_hardirqs_*", R_IRQ },
	{ "*local_irq_*", R_IRQ },
	{ "irq_enter*", R_IRQ },
	{ "irq_exit*", R_IRQ },
	{ "irqentry_*", R_IRQ },
	{ "_raw_spin_*", R_LOCK },
	{ "_raw_read_*", R_LOCK },
	{ "_raw_write_*", R_LOCK },
	{ "queued_spin_*", R_LOCK },
	{ "queued_read_*", R_LOCK },
	{ "queued_write_*", R_LOCK },
	{ "native_queued_spin_*", R_LOCK },
	{ "__pv_queued_spin_*", R_LOCK },
	{ "lock_acquire*", R_LOCK },
	{ "lock_release", R_LOCK },
	{ "lock_is_held*", R_LOCK },
	{ "lockdep_*", R_LOCK },
	{ "in_lock_functions", R_LOCK },
	{ "ktime_get_mono_fast_ns", R_TIME },
	{ "ktime_get_boot_fast_ns", R_TIME },
	{ "ktime_get_tai_fast_ns", R_TIME },
	{ "sched_clock*", R_TIME },
	{ "native_sched_clock*", R_TIME },
	{ "read_tsc", R_TIME },
	{ "read_hpet", R_TIME },
	{ "acpi_pm_read*", R_TIME },
	{ "kvm_clock_*", R_TIME },
	{ "kvm_sched_clock_read", R_TIME },
	{ "pvclock_*", R_TIME },
	{ "nmi_*", R_NMI },
	{ "*_nmi", R_NMI },
	{ "exc_*", R_NMI },
	{ "do_int3*", R_NMI },
	{ "poke_int3_handler", R_NMI },
	{ "__sanitizer_*", R_SAN },
	{ "__asan_*", R_SAN },
	{ "__ubsan_*", R_SAN },
	{ "__kasan_*", R_SAN },
	{ "__kcsan_*", R_SAN },
	{ "__tsan_*", R_SAN },
	{ "__stack_chk_fail", R_SAN },
};

#define NDENIED (sizeof(denied) / sizeof(denied[0]))

const char *kfit_deny_reason(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < NDENIED; i++)
		if (!fnmatch(denied[i].glob, name, 0))
			return denied[i].why;
	return NULL;
}
