// SPDX-License-Identifier: GPL-2.0
/*
 * BPF maps from user space: per-CPU values laid out as the kernel does,
 * hash maps read keys first, and the epoch flip. Every tool reads its
 * maps through here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/membarrier.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fileio.h"
#include "maps.h"

#define ENOTSUPP_KERNEL	524	/* the kernel's internal ENOTSUPP leaks to us */
#define FIRST_ROOM	64	/* entries, before a hash read grows */

int kfit_percpu_init(struct kfit_percpu *p, size_t size, int ncpus)
{
	memset(p, 0, sizeof(*p));
	if (!ncpus)
		ncpus = kfit_ncpus_possible(NULL);
	if (ncpus < 0)
		return ncpus;
	if (!ncpus || !size)
		return -EINVAL;
	p->buf = calloc(ncpus, kfit_percpu_stride(size));
	if (!p->buf)
		return -ENOMEM;
	p->ncpus = ncpus;
	p->size = size;
	p->stride = kfit_percpu_stride(size);
	return 0;
}

void kfit_percpu_free(struct kfit_percpu *p)
{
	free(p->buf);
	memset(p, 0, sizeof(*p));
}

__u64 kfit_percpu_sum(const struct kfit_percpu *p, size_t off)
{
	__u64 sum = 0, v;
	int cpu;

	for (cpu = 0; cpu < p->ncpus; cpu++) {
		memcpy(&v, (char *)kfit_percpu_at(p, cpu) + off, sizeof(v));
		sum += v;
	}
	return sum;
}

int kfit_percpu_read(struct kfit_percpu *p, int fd, const void *key)
{
	return bpf_map_lookup_elem(fd, key, p->buf) ? -errno : 0;
}

int kfit_percpu_clear(struct kfit_percpu *p, int fd, const void *key)
{
	memset(p->buf, 0, p->ncpus * p->stride);
	return bpf_map_update_elem(fd, key, p->buf, BPF_ANY) ? -errno : 0;
}

void kfit_entries_free(struct kfit_entries *e)
{
	free(e->keys);
	free(e->values);
	memset(e, 0, sizeof(*e));
}

/* Sizes from the map itself; the buffers are kept if they still fit */
static int entries_for(int fd, struct kfit_entries *e, __u32 *max_entries)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	size_t vsize;
	int ncpus;

	memset(&info, 0, len);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	vsize = info.value_size;
	if (info.type == BPF_MAP_TYPE_PERCPU_HASH ||
	    info.type == BPF_MAP_TYPE_LRU_PERCPU_HASH) {
		ncpus = kfit_ncpus_possible(NULL);
		if (ncpus < 0)
			return ncpus;
		vsize = ncpus * kfit_percpu_stride(info.value_size);
	}
	if (e->key_size != info.key_size || e->value_size != vsize) {
		kfit_entries_free(e);
		e->key_size = info.key_size;
		e->value_size = vsize;
	}
	e->n = 0;
	*max_entries = info.max_entries;
	return 0;
}

/* Room for n entries */
static int reserve(struct kfit_entries *e, int n)
{
	int cap = e->cap ? e->cap : FIRST_ROOM;
	void *p;

	if (n <= e->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	p = realloc(e->keys, cap * e->key_size);
	if (!p)
		return -ENOMEM;
	e->keys = p;
	p = realloc(e->values, cap * e->value_size);
	if (!p)
		return -ENOMEM;
	e->values = p;
	e->cap = cap;
	return 0;
}

static bool no_batches(int err)
{
	return err == -EINVAL || err == -EOPNOTSUPP || err == -ENOTSUPP_KERNEL;
}

/*
 * Every entry, a bucket chunk per call (deleted too with del). -EOPNOTSUPP
 * when the kernel has no batch operations for this map.
 */
static int read_batch(int fd, bool del, struct kfit_entries *e)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u64 in = 0, out = 0;	/* a hash's batch token is its bucket: a __u32 */
	bool first = true;
	__u32 count;
	int err;

	for (;;) {
		err = reserve(e, e->n + 1);
		if (err)
			return err;
		count = e->cap - e->n;
		if (del)
			err = bpf_map_lookup_and_delete_batch(fd, first ? NULL : &in, &out,
							      kfit_entry_key(e, e->n),
							      kfit_entry_value(e, e->n),
							      &count, &opts);
		else
			err = bpf_map_lookup_batch(fd, first ? NULL : &in, &out,
						   kfit_entry_key(e, e->n),
						   kfit_entry_value(e, e->n), &count, &opts);
		if (err && err != -ENOENT && err != -ENOSPC)
			return first && no_batches(err) ? -EOPNOTSUPP : err;
		e->n += count;
		if (err == -ENOENT)
			return 0;
		/* The next bucket holds more than there is room for: grow, retry */
		if (err == -ENOSPC) {
			err = reserve(e, 2 * e->cap);
			if (err)
				return err;
			continue;
		}
		in = out;
		first = false;
	}
}

/*
 * The keys first, then their values. A key BPF deletes meanwhile has no
 * value and is dropped. (get_next_key starts over when the key it stands
 * on is deleted: this walk deletes nothing.)
 */
static int read_walk(int fd, bool (*want)(const void *, void *), void *ctx,
		     struct kfit_entries *e)
{
	int err, i, n = 0, at = -1;	/* at: the slot of the walk's last key */

	for (;;) {
		err = reserve(e, e->n + 1);
		if (err)
			return err;
		/* The kernel reads the last key before it writes the next: one slot may hold both */
		err = bpf_map_get_next_key(fd, at < 0 ? NULL : kfit_entry_key(e, at),
					   kfit_entry_key(e, e->n));
		if (err)
			break;
		at = e->n;
		if (!want || want(kfit_entry_key(e, at), ctx))
			e->n++;
	}
	if (err != -ENOENT)
		return err;
	for (i = 0; i < e->n; i++) {
		if (bpf_map_lookup_elem(fd, kfit_entry_key(e, i), kfit_entry_value(e, n))) {
			if (errno == ENOENT)
				continue;
			return -errno;
		}
		if (i != n)
			memcpy(kfit_entry_key(e, n), kfit_entry_key(e, i), e->key_size);
		n++;
	}
	e->n = n;
	return 0;
}

/* Drop the entries want does not accept */
static void keep_wanted(struct kfit_entries *e, bool (*want)(const void *, void *),
			void *ctx)
{
	int i, n = 0;

	for (i = 0; i < e->n; i++) {
		if (!want(kfit_entry_key(e, i), ctx))
			continue;
		if (i != n) {
			memcpy(kfit_entry_key(e, n), kfit_entry_key(e, i), e->key_size);
			memcpy(kfit_entry_value(e, n), kfit_entry_value(e, i), e->value_size);
		}
		n++;
	}
	e->n = n;
}

static int delete_all(int fd, const struct kfit_entries *e)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (bpf_map_delete_elem(fd, kfit_entry_key(e, i)) && errno != ENOENT)
			return -errno;
	return 0;
}

int kfit_hash_read(int fd, bool (*want)(const void *key, void *ctx), void *ctx,
		   unsigned int flags, struct kfit_entries *e)
{
	bool del = flags & KFIT_HASH_DELETE, batch_del = del && !want;
	__u32 max_entries;
	int err;

	err = entries_for(fd, e, &max_entries);
	if (err)
		return err;
	err = -EOPNOTSUPP;
	if (!(flags & KFIT_HASH_WALK))
		err = read_batch(fd, batch_del, e);
	if (err == -EOPNOTSUPP) {
		e->n = 0;
		batch_del = false;
		err = read_walk(fd, want, ctx, e);
	} else if (!err && want) {
		keep_wanted(e, want, ctx);
	}
	if (!err && del && !batch_del)
		err = delete_all(fd, e);
	return err;
}

int kfit_epoch_flip(volatile __u32 *epoch)
{
	struct timespec wait = { 0, 20 * 1000000L };
	__u32 old = *epoch;

	*epoch = old + 1;
	__sync_synchronize();
	/*
	 * MEMBARRIER_CMD_GLOBAL waits for an RCU grace period; BPF tracing
	 * programs run in RCU read-side sections, so after it no program is
	 * still writing the old half. nohz_full kernels refuse it: there,
	 * wait long enough for any program to have finished, signals or not
	 * (the final report after Ctrl-C needs the wait most).
	 */
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) < 0)
		while (nanosleep(&wait, &wait) && errno == EINTR)
			;
	return old & 1;
}

__u64 kfit_obj_missed(const struct bpf_object *obj)
{
	struct bpf_prog_info info;
	struct bpf_program *p;
	__u64 n = 0;

	bpf_object__for_each_program(p, obj) {
		__u32 len = sizeof(info);

		memset(&info, 0, len);
		if (bpf_program__fd(p) >= 0 &&
		    !bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			n += info.recursion_misses;
	}
	return n;
}

int kfit_epoch_half(volatile __u32 *epoch, bool cumulative)
{
	return cumulative ? (int)(*epoch & 1) : kfit_epoch_flip(epoch);
}
