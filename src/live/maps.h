/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_MAPS_H
#define KFIT_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/*
 * Reading BPF maps from user space: per-CPU values, hash maps read (and
 * emptied) without racing their BPF writers, and the epoch flip that
 * lets double-buffered maps be read and cleared while BPF runs.
 */

/* One CPU's slot in a per-CPU value: the kernel rounds each to 8 bytes */
static inline size_t kfit_percpu_stride(size_t value_size)
{
	return (value_size + 7) & ~(size_t)7;
}

/* A per-CPU map's value on every possible CPU, as the kernel lays it out */
struct kfit_percpu {
	int ncpus;
	size_t size;		/* one CPU's value */
	size_t stride;		/* kfit_percpu_stride(size) */
	void *buf;		/* ncpus * stride bytes: the last value read */
};

/*
 * For values of size bytes per CPU, on ncpus CPUs (0: the possible
 * CPUs, as the kernel sizes per-CPU maps). 0 or -errno.
 */
int kfit_percpu_init(struct kfit_percpu *p, size_t size, int ncpus);
void kfit_percpu_free(struct kfit_percpu *p);

/* CPU cpu's value in the last read */
static inline void *kfit_percpu_at(const struct kfit_percpu *p, int cpu)
{
	return (char *)p->buf + (size_t)cpu * p->stride;
}

/* The sum over CPUs of the __u64 at offset off of each CPU's value */
__u64 kfit_percpu_sum(const struct kfit_percpu *p, size_t off);

/* key's value on every CPU of per-CPU map fd into p->buf: 0 or -errno */
int kfit_percpu_read(struct kfit_percpu *p, int fd, const void *key);
/* Zero key's value on every CPU: 0 or -errno */
int kfit_percpu_clear(struct kfit_percpu *p, int fd, const void *key);
/* Read, then zero: 0 or -errno */
int kfit_percpu_take(struct kfit_percpu *p, int fd, const void *key);

/* Entries of a hash map, as kfit_hash_read() leaves them */
struct kfit_entries {
	void *keys;
	void *values;
	size_t key_size;
	size_t value_size;	/* per-CPU maps: every CPU's, stride apart */
	int n;
	int cap;		/* room for, in keys and values */
};

static inline void *kfit_entry_key(const struct kfit_entries *e, int i)
{
	return (char *)e->keys + (size_t)i * e->key_size;
}

static inline void *kfit_entry_value(const struct kfit_entries *e, int i)
{
	return (char *)e->values + (size_t)i * e->value_size;
}

void kfit_entries_free(struct kfit_entries *e);

enum {
	KFIT_HASH_DELETE = 1 << 0,	/* delete the entries read */
	KFIT_HASH_WALK = 1 << 1,	/* walk the keys even where batches work */
};

/*
 * The entries of hash map fd whose keys want(key, ctx) accepts (want
 * NULL: every one) into e, whose buffers are reused (zero it before the
 * first call). With KFIT_HASH_DELETE they are deleted once read.
 *
 * Keys are collected first and only then looked up and deleted, so the
 * walk is linear: a walk that deletes as it goes must restart after each
 * delete. Where the kernel has batch operations (5.6+) a few system
 * calls do it all: lookup_and_delete_batch when every entry goes,
 * lookup_batch otherwise. Entries BPF deletes meanwhile are left out;
 * entries it adds meanwhile may be. 0 or -errno.
 */
int kfit_hash_read(int fd, bool (*want)(const void *key, void *ctx), void *ctx,
		   unsigned int flags, struct kfit_entries *e);

/*
 * Double-buffered aggregation without racing BPF writers: BPF indexes its
 * maps with (epoch & 1). kfit_epoch_flip() moves writers to the other half
 * and waits (an RCU grace period: BPF tracing programs run inside RCU
 * read-side sections) until no program can still write the old half.
 * Returns the old half's index, which may then be read and cleared.
 */
int kfit_epoch_flip(volatile __u32 *epoch);
/*
 * The half a report reads: with cumulative (--serve: Prometheus' counters
 * count from the start) the half being written, never flipped nor to be
 * cleared; else kfit_epoch_flip()'s
 */
int kfit_epoch_half(volatile __u32 *epoch, bool cumulative);

/* Runs of obj's loaded programs the kernel skipped (recursion_misses), summed */
struct bpf_object;
__u64 kfit_obj_missed(const struct bpf_object *obj);

#endif
