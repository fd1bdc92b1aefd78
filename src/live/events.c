// SPDX-License-Identifier: GPL-2.0
/* BPF ring buffers of records: libbpf's reader, with the counts kept. */
#include <errno.h>
#include <stdlib.h>
#include <bpf/libbpf.h>
#include "events.h"
#include "maps.h"
#include "recbatch.h"

struct kfit_events {
	struct kfit_events_opts o;
	struct ring_buffer *rb;
	struct kfit_percpu lost;
	struct kfit_events_stats st;
};

static int one_record(void *ctx, const void *data, size_t size)
{
	struct kfit_events *e = ctx;

	e->st.records++;
	e->st.bytes += size;
	return e->o.fn(e->o.ctx, data, size);
}

/* A sample: one record, or (batched) the records it holds */
static int on_record(void *ctx, void *data, size_t size)
{
	struct kfit_events *e = ctx;

	if (!e->o.batched)
		return one_record(e, data, size);
	return kfit_rec_split(data, size, one_record, e, NULL);
}

int kfit_events_feed(struct kfit_events *e, const void *data, size_t len)
{
	return on_record(e, (void *)data, len);
}

struct kfit_events *kfit_events_new(const struct kfit_events_opts *o)
{
	struct kfit_events *e;
	int i, err;

	if (o->nrings < 1) {
		errno = EINVAL;
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->o = *o;
	if (o->lost_fd >= 0) {
		err = kfit_percpu_init(&e->lost, sizeof(__u64), 0);
		if (err) {
			free(e);
			errno = -err;
			return NULL;
		}
	}
	e->rb = ring_buffer__new(o->rb_fds[0], on_record, e, NULL);
	for (i = 1; e->rb && i < o->nrings; i++) {
		err = ring_buffer__add(e->rb, o->rb_fds[i], on_record, e);
		if (err) {
			ring_buffer__free(e->rb);
			e->rb = NULL;
			errno = -err;
		}
	}
	if (!e->rb) {
		err = errno;
		kfit_percpu_free(&e->lost);
		free(e);
		errno = err;
		return NULL;
	}
	return e;
}

/*
 * Producers that submit with BPF_RB_NO_WAKEUP wake no one until they
 * force it: epoll then reports nothing, and ring_buffer__poll reads
 * nothing. So the wait is only a wait, and what is queued is read after.
 */
int kfit_events_poll(struct kfit_events *e, int timeout_ms)
{
	int n = ring_buffer__poll(e->rb, timeout_ms), m;

	if (n < 0 && n != -EINTR)
		return n;
	m = ring_buffer__consume(e->rb);
	if (m < 0)
		return m == -EINTR ? 0 : m;
	return (n > 0 ? n : 0) + m;
}

int kfit_events_drain(struct kfit_events *e)
{
	int n = ring_buffer__consume(e->rb);

	return n == -EINTR ? 0 : n;
}

int kfit_events_lost(struct kfit_events *e, __u64 *lost, int room)
{
	int cpu, err;

	if (e->o.lost_fd < 0)
		return 0;
	err = kfit_percpu_read(&e->lost, e->o.lost_fd, &e->o.lost_key);
	if (err)
		return err;
	e->st.lost = kfit_percpu_sum(&e->lost, 0);
	for (cpu = 0; lost && cpu < e->lost.ncpus && cpu < room; cpu++)
		lost[cpu] = *(__u64 *)kfit_percpu_at(&e->lost, cpu);
	return e->lost.ncpus;
}

void kfit_events_get_stats(const struct kfit_events *e, struct kfit_events_stats *s)
{
	*s = e->st;
}

void kfit_events_free(struct kfit_events *e)
{
	if (!e)
		return;
	ring_buffer__free(e->rb);
	kfit_percpu_free(&e->lost);
	free(e);
}
