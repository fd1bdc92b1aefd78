/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_EVENTS_H
#define KFIT_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/*
 * BPF ring buffers of records, read from user space: a callback per
 * record (the rings drained one after the other: records keep their
 * order within a ring only), the records and bytes read counted, and
 * the records the BPF side had no room for, from the per-CPU counter it
 * keeps of them (a BPF_MAP_TYPE_PERCPU_ARRAY of __u64, at lost_key). A
 * reserve that fails leaves no trace in a ring: that counter is the only
 * account.
 */
typedef int (*kfit_events_record_fn)(void *ctx, const void *data, size_t size);

struct kfit_events_opts {
	const int *rb_fds;	/* the BPF_MAP_TYPE_RINGBUFs */
	int nrings;
	int lost_fd;		/* the per-CPU counters, -1: none */
	__u32 lost_key;
	kfit_events_record_fn fn;	/* a nonzero return stops the read and is returned */
	void *ctx;
	bool batched;		/* a sample may hold several records: split (recbatch.h) */
};

struct kfit_events_stats {
	__u64 records;
	__u64 bytes;
	__u64 lost;		/* summed over CPUs when last read */
};

struct kfit_events;

/* NULL with errno set */
struct kfit_events *kfit_events_new(const struct kfit_events_opts *o);
/*
 * Wait up to timeout_ms for a wake-up, then read whatever is queued
 * (records submitted without a wake-up too). Returns the records read,
 * the callback's nonzero return, or -errno (a signal is no error: 0).
 */
int kfit_events_poll(struct kfit_events *e, int timeout_ms);
/* Read everything queued, without waiting: records read, or as poll */
int kfit_events_drain(struct kfit_events *e);
/*
 * len bytes of records read elsewhere (what the BPF side still staged at
 * the end) to the callback as a sample from a ring, counted the same:
 * 0 or the callback's nonzero return
 */
int kfit_events_feed(struct kfit_events *e, const void *data, size_t len);
/*
 * Read the lost counter: the count of CPU cpu, for cpu < ncpus (the
 * return value), into lost[cpu] (lost may be NULL), and the sum into the
 * stats. Returns ncpus, or -errno.
 */
int kfit_events_lost(struct kfit_events *e, __u64 *lost, int room);
void kfit_events_get_stats(const struct kfit_events *e, struct kfit_events_stats *s);
void kfit_events_free(struct kfit_events *e);

#endif
