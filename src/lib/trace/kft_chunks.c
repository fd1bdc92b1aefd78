// SPDX-License-Identifier: GPL-2.0
/*
 * A trace file's chunks read in order while threads inflate those after
 * (kft.h): chunks are independent, so decoding one overlaps inflating the
 * next ones on the other cores, in memory of a few chunks.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include "kft.h"

enum { S_EMPTY, S_BUSY, S_READY };

struct slot {
	int state, idx, err;
	void *buf;
	size_t len;
};

struct kft_chunks {
	struct kft_file *f;
	int claim, out, last;	/* the next to inflate, to hand out; the last */
	struct slot *q;		/* chunk i in q[i % nq] */
	int nq, nth;
	pthread_t *th;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	bool stop;
};

/* Inflates the next chunk whose slot is free, until there is none */
static void *worker(void *arg)
{
	struct kft_chunks *c = arg;
	struct slot *s;
	void *buf;
	size_t len;
	int i, err;

	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (!c->stop && (c->claim > c->last || c->q[c->claim % c->nq].state != S_EMPTY))
			pthread_cond_wait(&c->work, &c->mu);
		if (c->stop)
			break;
		i = c->claim++;
		s = &c->q[i % c->nq];
		s->state = S_BUSY;
		pthread_mutex_unlock(&c->mu);
		err = kft_read_chunk(c->f, i, &buf, &len);
		pthread_mutex_lock(&c->mu);
		*s = (struct slot){ .state = S_READY, .idx = i, .err = err, .buf = buf, .len = len };
		pthread_cond_broadcast(&c->done);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/* Workers: one per CPU but the reader's, at least one, no more than the chunks */
static int workers(int threads, int nchunks)
{
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (threads <= 0)
		threads = ncpus > 1 ? ncpus : 1;
	return threads < nchunks ? threads : nchunks;
}

struct kft_chunks *kft_chunks_open(struct kft_file *f, int first, int last, int threads)
{
	struct kft_chunks *c = calloc(1, sizeof(*c));
	int i;

	if (!c)
		return NULL;
	c->f = f;
	c->claim = c->out = first;
	c->last = last;
	c->nth = last >= first ? workers(threads, last - first + 1) : 0;
	c->nq = 2 * c->nth + 1;
	c->q = calloc(c->nq, sizeof(*c->q));
	c->th = calloc(c->nth + 1, sizeof(*c->th));
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->work, NULL);
	pthread_cond_init(&c->done, NULL);
	if (!c->q || !c->th)
		goto fail;
	for (i = 0; i < c->nth; i++) {
		if (pthread_create(&c->th[i], NULL, worker, c)) {
			c->nth = i;
			goto fail;
		}
	}
	return c;
fail:
	kft_chunks_close(c);
	errno = ENOMEM;
	return NULL;
}

int kft_chunks_next(struct kft_chunks *c, int *i, void **buf, size_t *len, int *err)
{
	struct slot *s;

	pthread_mutex_lock(&c->mu);
	if (c->out > c->last) {
		pthread_mutex_unlock(&c->mu);
		return 0;
	}
	s = &c->q[c->out % c->nq];
	while (s->state != S_READY || s->idx != c->out)
		pthread_cond_wait(&c->done, &c->mu);
	*i = s->idx;
	*buf = s->buf;
	*len = s->len;
	*err = s->err;
	*s = (struct slot){ .state = S_EMPTY };
	c->out++;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->mu);
	return 1;
}

void kft_chunks_close(struct kft_chunks *c)
{
	int i;

	if (!c)
		return;
	pthread_mutex_lock(&c->mu);
	c->stop = true;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->mu);
	for (i = 0; i < c->nth; i++)
		pthread_join(c->th[i], NULL);
	for (i = 0; c->q && i < c->nq; i++)
		free(c->q[i].buf);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->work);
	pthread_cond_destroy(&c->done);
	free(c->q);
	free(c->th);
	free(c);
}
