/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by kfit's BPF programs. Include after vmlinux.h. */
#ifndef KFIT_BPF_H
#define KFIT_BPF_H

/*
 * vmlinux.h has the kernel's types: the shared headers' <linux/types.h>
 * (for user space) would clash with it.
 */
#ifndef _LINUX_TYPES_H
#define _LINUX_TYPES_H
#endif

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "kfit/hist.h"

/*
 * Aggregation maps have two halves; programs write half (kfit_epoch & 1)
 * while user space reads and clears the other (see kfit_epoch_flip()).
 */
volatile __u32 kfit_epoch;

/*
 * Set by user space once every probe is attached (kfit_attacher_activate):
 * until then programs record nothing, so no call is seen half-attached.
 */
volatile bool kfit_ready;

static __always_inline __u32 kfit_half(void)
{
	return kfit_epoch & 1;
}

/* Add n to the counter at key of a PERCPU_ARRAY map of __u64 (losses, misses) */
static __always_inline void kfit_count_n(void *map, __u32 key, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(map, &key);

	if (v)
		*v += n;
}

static __always_inline void kfit_count(void *map, __u32 key)
{
	kfit_count_n(map, key, 1);
}

/* Record v in the per-CPU histogram at key of a PERCPU_ARRAY map */
static __always_inline void kfit_hist_add(void *map, __u32 key, __u64 v)
{
	struct kfit_hist *h = bpf_map_lookup_elem(map, &key);

	if (h)
		kfit_hist_put(h, v);
}

static __always_inline void kfit_linhist_add(void *map, __u32 key, __u64 v,
					     __u64 step)
{
	struct kfit_linhist *h;
	__u32 i;

	if (!step)
		return;
	h = bpf_map_lookup_elem(map, &key);
	if (!h)
		return;
	i = kfit_lin_index(v, step);
	if (i <= KFIT_LIN_SLOTS)
		h->slot[i]++;
}

/* x86 keeps preempt_count per CPU: __preempt_count, or inside pcpu_hot (6.2-6.14) */
struct pcpu_hot___kfit {
	int preempt_count;
} __attribute__((preserve_access_index));

/* Whether the current task's name is lit (a NUL-ended name of up to 16 bytes) */
static __always_inline bool kfit_comm_is(const volatile char *lit)
{
	char c[16];
	int i;

	bpf_get_current_comm(c, sizeof(c));
	for (i = 0; i < 16; i++) {
		if (c[i] != lit[i])
			return false;
		if (!c[i])
			return true;
	}
	return true;
}

extern const int __preempt_count __ksym __weak;
extern const struct pcpu_hot___kfit pcpu_hot __ksym __weak;

#define KFIT_NMI_MASK		0x00f00000
#define KFIT_HARDIRQ_MASK	0x000f0000
#define KFIT_SOFTIRQ_OFFSET	0x00000100	/* serving a softirq, not just BH off */

/* The current CPU's preempt_count: which interrupt context, if any */
static __always_inline int kfit_preempt_count(void)
{
	if (&__preempt_count)
		return *(int *)bpf_this_cpu_ptr(&__preempt_count);
	if (&pcpu_hot)
		return BPF_CORE_READ((struct pcpu_hot___kfit *)
				     bpf_this_cpu_ptr(&pcpu_hot), preempt_count);
	return 0;
}

#endif
