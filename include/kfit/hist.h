/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log-linear latency histogram shared by the BPF programs and user space.
 *
 * Values below 16 get a slot each; above, every power of two is split in
 * 16 equal sub-buckets, so a slot's width is at most 1/16 of its lower
 * bound and a percentile read from the slot midpoint is within ~3%.
 * The slots cover the whole u64 range: nothing is clamped into a last slot.
 * Log2 histograms are derived from these slots in user space.
 */
#ifndef KFIT_HIST_H
#define KFIT_HIST_H

#define KFIT_HIST_SUB_BITS	4
#define KFIT_HIST_SUB		(1 << KFIT_HIST_SUB_BITS)
#define KFIT_HIST_SLOTS		((64 - KFIT_HIST_SUB_BITS + 1) * KFIT_HIST_SUB)

/* Linear histograms (--linear STEP): this many steps, then one overflow slot */
#define KFIT_LIN_SLOTS		100

struct kfit_hist {
	__u64 count;
	__u64 total;
	__u64 min;		/* 0 when count is 0 */
	__u64 max;
	__u64 slot[KFIT_HIST_SLOTS];
};

struct kfit_linhist {
	__u64 slot[KFIT_LIN_SLOTS + 1];	/* the last one counts values >= 100 steps */
};

/*
 * Index of the most significant set bit; v must not be 0. No loops: BPF;
 * user space counts with one instruction (kd sums millions of calls)
 */
static inline __u32 kfit_msb64(__u64 v)
{
#ifndef __bpf__
	return v ? 63 - __builtin_clzll(v) : 0;
#else
	__u32 r = 0;

	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) r += 1;
	return r;
#endif
}

static inline __u32 kfit_hist_index(__u64 v)
{
	__u32 msb;

	if (v < KFIT_HIST_SUB)
		return v;
	msb = kfit_msb64(v);
	return (msb - KFIT_HIST_SUB_BITS + 1) * KFIT_HIST_SUB +
	       ((v >> (msb - KFIT_HIST_SUB_BITS)) & (KFIT_HIST_SUB - 1));
}

/* Smallest value that falls in slot idx */
static inline __u64 kfit_hist_lower(__u32 idx)
{
	__u32 shift;

	if (idx < KFIT_HIST_SUB)
		return idx;
	shift = idx / KFIT_HIST_SUB - 1;
	return (__u64)(KFIT_HIST_SUB + idx % KFIT_HIST_SUB) << shift;
}

/*
 * Add one value. Not atomic: for per-CPU maps, or user space. The index
 * check is for the verifier; kfit_hist_index never exceeds the slots.
 */
static inline void kfit_hist_put(struct kfit_hist *h, __u64 v)
{
	__u64 idx = kfit_hist_index(v);

	/*
	 * One register for the check and the access: clang may otherwise
	 * check one copy and index with another, which older verifiers
	 * (6.1) reject as unbounded.
	 */
	asm volatile("" : "+r"(idx));
	if (idx >= KFIT_HIST_SLOTS)
		return;
	h->slot[idx]++;
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->total += v;
}

/* Linear slot for v in steps of step (> 0); the last slot is the overflow */
static inline __u32 kfit_lin_index(__u64 v, __u64 step)
{
	__u64 i = v / step;

	return i < KFIT_LIN_SLOTS ? i : KFIT_LIN_SLOTS;
}

#endif /* KFIT_HIST_H */
