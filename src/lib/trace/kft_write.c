// SPDX-License-Identifier: GPL-2.0
/*
 * The trace file's writer. One thread (the ring buffers' drain) copies
 * records into the current chunk buffer; full chunks go through a
 * bounded queue to a worker thread that encodes, compresses and writes
 * them (streaming), or keeps the last of them in memory (flight mode).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "kfit/rec.h"
#include "fileio.h"
#include "kft.h"
#include "kft_codec.h"

/* A queued chunk (buf: raw records) or metadata block (buf: its payload) */
struct item {
	void *buf;
	size_t len;
	__u16 type;
	struct kft_chunk ch;
	__u64 bound;		/* what it may take in the file, at most */
};

/* A chunk written (streaming) or kept (flight: blk its whole block) */
struct done {
	struct kft_index_ent ent;
	void *blk;
	size_t blen;
};

/* Metadata blocks kept for the dumps of flight mode */
struct meta {
	void *blk;
	size_t blen;
};

struct kft_writer {
	/* The caller's side: the hot path */
	char *cur;		/* the chunk being filled */
	size_t used, limit;	/* limit: where the slow path takes over */
	struct kft_chunk ch;
	size_t chunk_bytes, cap;	/* cap: of a chunk buffer */
	int capped;
	int err;		/* the worker's first error (atomic) */
	__u64 records, raw_bytes, refused, seq;
	bool started, has_layout;

	struct kft_wopts o;
	char *path;
	struct kfit_out file;	/* the temporary renamed to path at the end
				   (flight: at each dump; a new one after) */
	struct kft_header hdr;

	pthread_t thread;
	bool thread_ok;
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* the queue or the pool changed */
	struct item *q;
	int qhead, qlen, qmax;
	bool busy, stop, discard;
	void **pool;		/* free chunk buffers */
	int npool, nbufs, maxbufs;
	__u64 off;		/* streaming: the file's end */
	__u64 pending;		/* bound of what is queued or in the worker */

	/* The worker's */
	z_stream z;
	bool z_ok;
	char *out;		/* a block being built */
	size_t outlen;
	__u32 *offs;
	size_t noffs;

	struct done *done;	/* streaming: every chunk; flight: those kept */
	size_t ndone, adone, dhead;
	__u64 kept_bytes;	/* flight */
	struct meta *meta;
	size_t nmeta;
	__u64 chunks, chunks_dropped, comp_bytes, ns_compress, file_bytes;
	__u64 cap_dropped, cap_dropped_bytes;	/* records the cap took back at close */
	char *names;		/* the NAMES block's text, for the tail */
	size_t names_len;
};

static __u64 now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!n)
			return -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

static void set_err(struct kft_writer *w, int err)
{
	int zero = 0;

	__atomic_compare_exchange_n(&w->err, &zero, err, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
}

static int get_err(struct kft_writer *w)
{
	return __atomic_load_n(&w->err, __ATOMIC_RELAXED);
}

/* A whole block (header and payload) at b, which text makes unaligned: its length */
static size_t put_block(char *b, __u16 type, const void *data, size_t len)
{
	struct kft_block h;

	if (len && data != b + sizeof(h))
		memcpy(b + sizeof(h), data, len);
	kft_block_fill(&h, type, 0, len, len, kft_crc(b + sizeof(h), len));
	memcpy(b, &h, sizeof(h));
	return sizeof(h) + len;
}

/* The same in a malloc'd buffer */
static void *make_block(__u16 type, const void *data, size_t len, size_t *blen)
{
	char *b = malloc(sizeof(struct kft_block) + len);

	if (b)
		*blen = put_block(b, type, data, len);
	return b;
}

/* ---- the worker ---------------------------------------------------------- */

static int done_push(struct kft_writer *w, const struct done *d)
{
	if (w->dhead + w->ndone == w->adone) {
		size_t n = w->adone ? 2 * w->adone : 16;
		struct done *t;

		/* Flight mode drops from the front: slide back before growing */
		if (w->dhead) {
			memmove(w->done, w->done + w->dhead, w->ndone * sizeof(*d));
			w->dhead = 0;
		}
		if (w->ndone == w->adone) {
			t = realloc(w->done, n * sizeof(*t));
			if (!t)
				return -ENOMEM;
			w->done = t;
			w->adone = n;
		}
	}
	w->done[w->dhead + w->ndone++] = *d;
	return 0;
}

/* Encode and compress a chunk into w->out: its block's length, or -errno */
static long compress_chunk(struct kft_writer *w, struct item *it)
{
	size_t n = 0, pos = 0, hl = sizeof(struct kft_block) + sizeof(struct kft_chunk);
	struct kft_block *b = (struct kft_block *)w->out;
	__u64 t0 = now_ns(CLOCK_MONOTONIC);
	int rc;

	while (pos < it->len) {
		const struct kfit_rec *h = (const void *)((char *)it->buf + pos);

		w->offs[n++] = pos;
		pos += h->size;
	}
	kft_encode(it->buf, w->offs, n);
	if (deflateReset(&w->z) != Z_OK)
		return -EIO;
	w->z.next_in = it->buf;
	w->z.avail_in = it->len;
	w->z.next_out = (Bytef *)w->out + hl;
	w->z.avail_out = w->outlen - hl;
	rc = deflate(&w->z, Z_FINISH);
	if (rc != Z_STREAM_END)
		return -EIO;
	memcpy(w->out + sizeof(*b), &it->ch, sizeof(it->ch));
	n = sizeof(it->ch) + w->z.total_out;
	kft_block_fill(b, KFT_B_CHUNK, KFT_BF_ZLIB, n, sizeof(it->ch) + it->len,
		       kft_crc(w->out + sizeof(*b), n));
	pthread_mutex_lock(&w->lock);
	w->ns_compress += now_ns(CLOCK_MONOTONIC) - t0;
	w->comp_bytes += n;
	w->chunks++;
	pthread_mutex_unlock(&w->lock);
	return sizeof(*b) + n;
}

/* Flight mode: keep the block, forget the oldest beyond flight_bytes */
static int keep_chunk(struct kft_writer *w, struct done *d)
{
	d->blk = malloc(d->blen);
	if (!d->blk)
		return -ENOMEM;
	memcpy(d->blk, w->out, d->blen);
	if (done_push(w, d)) {
		free(d->blk);
		return -ENOMEM;
	}
	w->kept_bytes += d->blen;
	while (w->ndone > 1 && w->kept_bytes > w->o.flight_bytes) {
		struct done *old = &w->done[w->dhead++];

		w->ndone--;
		w->kept_bytes -= old->blen;
		free(old->blk);
		pthread_mutex_lock(&w->lock);
		w->chunks_dropped++;
		pthread_mutex_unlock(&w->lock);
	}
	return 0;
}

/* One item, outside the lock: what it added to the file, or -errno */
static long process(struct kft_writer *w, struct item *it)
{
	struct done d = { 0 };
	long len;
	int err;

	if (it->type != KFT_B_CHUNK)	/* a metadata block (streaming) */
		return write_full(w->file.fd, it->buf, it->len) ?: (long)it->len;
	len = compress_chunk(w, it);
	if (len < 0)
		return len;
	d.ent = (struct kft_index_ent){
		.offset = w->off, .seq = it->ch.seq, .first_ts = it->ch.first_ts,
		.last_ts = it->ch.last_ts, .nrecs = it->ch.nrecs, .lost = it->ch.lost,
	};
	d.blen = len;
	if (w->o.flight_bytes)
		return keep_chunk(w, &d) ?: 0;
	err = write_full(w->file.fd, w->out, len);
	if (!err)
		err = done_push(w, &d);
	return err ?: len;
}

static void *worker(void *arg)
{
	struct kft_writer *w = arg;
	struct item it;
	sigset_t all;
	bool skip;
	long n;

	/* the tool's signals go to its main thread, whose poll they cut short */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->qlen && !w->stop)
			pthread_cond_wait(&w->cond, &w->lock);
		if (!w->qlen)
			break;
		it = w->q[w->qhead];
		w->qhead = (w->qhead + 1) % w->qmax;
		w->qlen--;
		w->busy = true;
		skip = w->discard;
		pthread_cond_broadcast(&w->cond);
		pthread_mutex_unlock(&w->lock);

		n = 0;
		if (!get_err(w) && !skip) {
			n = process(w, &it);
			if (n < 0)
				set_err(w, (int)n);
		}
		if (it.type != KFT_B_CHUNK)
			free(it.buf);

		pthread_mutex_lock(&w->lock);
		if (n > 0)
			w->off += n;
		w->pending -= it.bound;
		if (it.type == KFT_B_CHUNK)
			w->pool[w->npool++] = it.buf;
		w->busy = false;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* ---- the caller's side --------------------------------------------------- */

/* Queue an item; waits while the queue is full (back-pressure) */
static void enqueue(struct kft_writer *w, const struct item *it)
{
	pthread_mutex_lock(&w->lock);
	while (w->qlen == w->qmax)
		pthread_cond_wait(&w->cond, &w->lock);
	w->q[(w->qhead + w->qlen++) % w->qmax] = *it;
	w->pending += it->bound;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/* Wait until the worker has done everything queued */
static void drain(struct kft_writer *w)
{
	pthread_mutex_lock(&w->lock);
	while (w->qlen || w->busy)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

/* A free chunk buffer: one of the pool, a new one, or the next returned */
static char *get_buf(struct kft_writer *w)
{
	char *b = NULL;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		if (w->npool) {
			b = w->pool[--w->npool];
			break;
		}
		if (w->nbufs < w->maxbufs) {
			b = malloc(w->cap);
			if (b)
				w->nbufs++;
			break;
		}
		pthread_cond_wait(&w->cond, &w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	return b;
}

static __u64 chunk_bound(size_t raw)
{
	return sizeof(struct kft_block) + sizeof(struct kft_chunk) + compressBound(raw);
}

/* The chunk being filled goes to the worker */
static void submit(struct kft_writer *w)
{
	struct item it = {
		.buf = w->cur, .len = w->used, .type = KFT_B_CHUNK, .ch = w->ch,
		.bound = chunk_bound(w->used),
	};

	it.ch.seq = w->seq++;
	enqueue(w, &it);
	w->cur = NULL;
	w->used = 0;
	w->limit = 0;		/* the next record begins a chunk: slow path */
}

/*
 * -s: what the file's end needs beyond its chunks (SYMS and STATS are
 * given at close: a share of the cap is kept for them), with n chunks.
 */
static __u64 tail_reserve(const struct kft_writer *w, __u64 n)
{
	__u64 texts = w->o.max_bytes / 32;

	if (texts < 4096)
		texts = 4096;
	if (texts > (1U << 20))
		texts = 1U << 20;
	return 3 * sizeof(struct kft_block) + texts +
	       n * sizeof(struct kft_index_ent) + sizeof(struct kft_footer);
}

/* The raw bytes the next chunk may hold under the cap (streaming) */
static size_t cap_limit(struct kft_writer *w)
{
	__u64 used, room, r;

	if (!w->o.max_bytes || w->o.flight_bytes)
		return w->cap;
	pthread_mutex_lock(&w->lock);
	used = w->off + w->pending + tail_reserve(w, w->seq + 1);
	pthread_mutex_unlock(&w->lock);
	if (used + chunk_bound(0) >= w->o.max_bytes)
		return 0;
	room = w->o.max_bytes - used;
	/* compressBound(r) is r plus about r/4000 and 13: invert it, then check */
	r = room - chunk_bound(0) < room ? (room - chunk_bound(0)) * 4096 / 4098 : 0;
	while (r && chunk_bound(r) > room)
		r--;
	return r < w->cap ? r : w->cap;
}

static int write_layout(struct kft_writer *w);

/* Whether len more bytes keep the file under the cap with its end's share */
static bool fits(struct kft_writer *w, size_t len)
{
	__u64 used;

	pthread_mutex_lock(&w->lock);
	used = w->off + w->pending + tail_reserve(w, w->seq + 1);
	pthread_mutex_unlock(&w->lock);
	return used + chunk_bound(w->used) + len <= w->o.max_bytes;
}

/* A record that does not fit below w->limit: 0, 1 (capped), -errno */
static int rec_slow(struct kft_writer *w, size_t size)
{
	if (w->used)		/* only the cap makes a chunk end early */
		submit(w);
	if (!w->started) {
		int err = 0;

		w->started = true;
		if (!w->has_layout)
			err = write_layout(w);
		/* streaming: a recording killed from now on is at path, cut short */
		if (!err && !w->o.flight_bytes)
			err = kfit_out_publish(&w->file);
		if (err)
			return err;
	}
	if (!w->cur) {
		w->cur = get_buf(w);
		if (!w->cur)
			return -ENOMEM;
		w->ch = (struct kft_chunk){ .first_ts = UINT64_MAX };
	}
	w->limit = cap_limit(w);
	if (size > w->limit) {
		/* What is queued was counted at its worst: learn its real size */
		drain(w);
		w->limit = cap_limit(w);
	}
	if (size > w->limit) {
		w->capped = 1;
		w->refused++;
		return 1;
	}
	return 0;
}

int kft_writer_rec(struct kft_writer *w, const void *rec, size_t size)
{
	const struct kfit_rec *h = rec;
	__u64 end;
	int err;

	if (w->capped) {
		w->refused++;
		return 1;
	}
	err = get_err(w);
	if (err)
		return err;
	if (size < sizeof(*h) || size % 8 || h->size != size)
		return -EINVAL;
	if (w->used + size > w->limit) {
		err = rec_slow(w, size);
		if (err)
			return err;
	}
	memcpy(w->cur + w->used, rec, size);
	w->used += size;
	w->records++;
	w->raw_bytes += size;
	w->ch.nrecs++;
	end = h->ts;
	if (h->type == KFIT_REC_CALL && size >= KFIT_REC_CALL_V1_SIZE)
		end += ((const struct kfit_rec_call *)rec)->dur;
	else if (h->type == KFIT_REC_LOST && size >= sizeof(struct kfit_rec_lost))
		w->ch.lost += ((const struct kfit_rec_lost *)rec)->count;
	if (h->ts < w->ch.first_ts)
		w->ch.first_ts = h->ts;
	if (end > w->ch.last_ts)
		w->ch.last_ts = end;
	if (w->used >= w->chunk_bytes)
		submit(w);
	return 0;
}

int kft_writer_block(struct kft_writer *w, enum kft_block_type type,
		     const void *data, size_t len)
{
	struct item it = { .type = type };
	struct meta *m;
	size_t blen;
	void *blk;

	if (type < KFT_B_META || type >= KFT_B_NTYPES || type == KFT_B_CHUNK ||
	    type == KFT_B_STATS || type == KFT_B_INDEX || len > UINT32_MAX - 64 ||
	    (len && !data))
		return -EINVAL;
	if (get_err(w))
		return get_err(w);
	blk = make_block(type, data, len, &blen);
	if (!blk)
		return -ENOMEM;
	if (type == KFT_B_LAYOUT)
		w->has_layout = true;
	if (w->o.flight_bytes) {
		m = realloc(w->meta, (w->nmeta + 1) * sizeof(*m));
		if (!m) {
			free(blk);
			return -ENOMEM;
		}
		w->meta = m;
		m[w->nmeta++] = (struct meta){ blk, blen };
		return 0;
	}
	/* -s: a block while recording fits with the share kept for the end */
	if (w->o.max_bytes && w->started && !fits(w, blen)) {
		free(blk);
		return -EFBIG;
	}
	/* After the records given before it, in the file too */
	if (w->used)
		submit(w);
	it.buf = blk;
	it.len = blen;
	it.bound = blen;
	enqueue(w, &it);
	return 0;
}

static int write_layout(struct kft_writer *w)
{
	size_t len;
	const char *text = kft_layout_text(&len);

	return kft_writer_block(w, KFT_B_LAYOUT, text, len);
}

int kft_writer_layout(struct kft_writer *w)
{
	return write_layout(w);
}

static void writer_free(struct kft_writer *w)
{
	size_t i;

	if (w->z_ok)
		deflateEnd(&w->z);
	for (i = 0; i < w->ndone; i++)
		free(w->done[w->dhead + i].blk);
	free(w->done);
	for (i = 0; i < w->nmeta; i++)
		free(w->meta[i].blk);
	free(w->meta);
	free(w->names);
	while (w->npool)
		free(w->pool[--w->npool]);
	free(w->cur);
	free(w->pool);
	free(w->q);
	free(w->out);
	free(w->offs);
	free(w->path);
	kfit_out_abort(&w->file);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

/* Stop the worker once it has done what is queued (discard: drop it) */
static void stop_worker(struct kft_writer *w, bool discard)
{
	if (!w->thread_ok)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	w->discard = discard;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	w->thread_ok = false;
}

struct kft_writer *kft_writer_new(const char *path, const struct kft_wopts *o)
{
	struct kft_writer *w = calloc(1, sizeof(*w));
	int err = -ENOMEM;

	if (!w)
		return NULL;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	if (o)
		w->o = *o;
	if (!w->o.chunk_bytes)
		w->o.chunk_bytes = KFT_CHUNK_DEFAULT;
	if (!w->o.level)
		w->o.level = 1;
	if (!w->o.queue)
		w->o.queue = 4;
	if (w->o.chunk_bytes > KFT_CHUNK_MAX || w->o.level < 1 || w->o.level > 9 ||
	    w->o.queue < 1 || w->o.queue > 1024) {
		err = -EINVAL;
		goto fail;
	}
	w->chunk_bytes = w->o.chunk_bytes;
	w->cap = w->chunk_bytes + 65536;	/* a chunk ends past chunk_bytes */
	w->qmax = w->o.queue;
	w->maxbufs = w->qmax + 2;	/* the queue's, the worker's, the caller's */
	w->q = calloc(w->qmax, sizeof(*w->q));
	w->pool = calloc(w->maxbufs, sizeof(*w->pool));
	w->outlen = chunk_bound(w->cap);
	w->out = malloc(w->outlen);
	w->offs = malloc((w->cap / sizeof(struct kfit_rec) + 1) * sizeof(*w->offs));
	w->path = strdup(path);
	if (!w->q || !w->pool || !w->out || !w->offs || !w->path)
		goto fail;
	if (deflateInit(&w->z, w->o.level) != Z_OK)
		goto fail;
	w->z_ok = true;

	w->hdr = (struct kft_header){
		.version = KFT_VERSION, .endian = KFT_ENDIAN,
		.header_size = sizeof(struct kft_header),
		.block_size = sizeof(struct kft_block),
		.created_ns = now_ns(CLOCK_REALTIME),
		.rec_version = KFIT_REC_VERSION,
		.flags = w->o.flight_bytes ? KFT_F_FLIGHT : 0,
	};
	memcpy(w->hdr.magic, KFT_MAGIC, sizeof(w->hdr.magic));
	/* a bad path fails now, before anything is traced; flight: kept for the first dump */
	err = kfit_out_open(&w->file, path);
	if (err)
		goto fail;
	if (!w->o.flight_bytes) {
		err = write_full(w->file.fd, &w->hdr, sizeof(w->hdr));
		if (err)
			goto fail;
		w->off = sizeof(w->hdr);
		w->file_bytes = w->off;
	}
	err = -pthread_create(&w->thread, NULL, worker, w);
	if (err)
		goto fail;
	w->thread_ok = true;
	return w;
fail:
	writer_free(w);
	errno = -err;
	return NULL;
}

static size_t tail_len(const struct kft_writer *w, size_t n, const char *syms,
		       size_t syms_len, size_t stats_len)
{
	return (syms ? sizeof(struct kft_block) + syms_len : 0) +
	       (w->names ? sizeof(struct kft_block) + w->names_len : 0) +
	       2 * sizeof(struct kft_block) + stats_len +
	       n * sizeof(struct kft_index_ent) + sizeof(struct kft_footer);
}

/* SYMS (may be NULL), NAMES (if given), STATS, INDEX and footer at base, in one buffer */
static char *make_tail(const struct kft_writer *w, __u64 base, const struct done *d,
		       size_t n, const char *syms, size_t syms_len,
		       const char *stats, size_t stats_len, size_t *len)
{
	size_t ilen = n * sizeof(struct kft_index_ent), pos = 0, i;
	char *buf = malloc(tail_len(w, n, syms, syms_len, stats_len));
	struct kft_footer ft;
	__u64 stats_off;

	if (!buf)
		return NULL;
	if (syms)
		pos += put_block(buf, KFT_B_SYMS, syms, syms_len);
	if (w->names)
		pos += put_block(buf + pos, KFT_B_NAMES, w->names, w->names_len);
	stats_off = base + pos;
	pos += put_block(buf + pos, KFT_B_STATS, stats, stats_len);
	for (i = 0; i < n; i++)
		memcpy(buf + pos + sizeof(struct kft_block) + i * sizeof(d->ent),
		       &d[i].ent, sizeof(d->ent));
	put_block(buf + pos, KFT_B_INDEX, buf + pos + sizeof(struct kft_block), ilen);
	kft_footer_fill(&ft, base + pos, stats_off, n);
	pos += sizeof(struct kft_block) + ilen;
	memcpy(buf + pos, &ft, sizeof(ft));
	*len = pos + sizeof(ft);
	return buf;
}

/* Flight mode: the whole file into a temporary, renamed over path */
static int dump(struct kft_writer *w, const char *syms, size_t syms_len,
		const char *stats, size_t stats_len)
{
	size_t i, first = 0, n, len;
	__u64 size = sizeof(w->hdr), off;
	struct done *d;
	char *tail;
	int fd, err = 0;

	if (w->used)
		submit(w);
	drain(w);
	if (get_err(w))
		return get_err(w);
	d = w->done + w->dhead;	/* the worker is idle: the list holds still */
	for (i = 0; i < w->nmeta; i++)
		size += w->meta[i].blen;
	for (i = 0; i < w->ndone; i++)
		size += d[i].blen;
	/* A cap as well: the oldest chunks kept do not go in */
	while (w->o.max_bytes && first < w->ndone &&
	       size + tail_len(w, w->ndone - first, syms, syms_len, stats_len) > w->o.max_bytes)
		size -= d[first++].blen;
	n = w->ndone - first;
	off = sizeof(w->hdr);
	for (i = 0; i < w->nmeta; i++)
		off += w->meta[i].blen;
	for (i = first; i < w->ndone; i++) {
		d[i].ent.offset = off;
		off += d[i].blen;
	}
	tail = make_tail(w, size, d + first, n, syms, syms_len, stats, stats_len, &len);
	if (!tail)
		return -ENOMEM;
	/* the temporary of the start, or a new one after a dump renamed it */
	if (!kfit_out_active(&w->file))
		err = kfit_out_open(&w->file, w->path);
	if (err) {
		free(tail);
		return err;
	}
	fd = w->file.fd;
	err = write_full(fd, &w->hdr, sizeof(w->hdr));
	for (i = 0; !err && i < w->nmeta; i++)
		err = write_full(fd, w->meta[i].blk, w->meta[i].blen);
	for (i = first; !err && i < w->ndone; i++)
		err = write_full(fd, d[i].blk, d[i].blen);
	if (!err)
		err = write_full(fd, tail, len);
	free(tail);
	if (!err)
		err = kfit_out_commit(&w->file);
	if (err) {
		kfit_out_abort(&w->file);
		return err;
	}
	pthread_mutex_lock(&w->lock);
	w->file_bytes = size + len;
	pthread_mutex_unlock(&w->lock);
	return 0;
}

int kft_writer_names(struct kft_writer *w, const char *text, size_t len)
{
	char *c;

	if (len > UINT32_MAX - 64)
		return -E2BIG;
	c = malloc(len + 1);
	if (!c)
		return -ENOMEM;
	memcpy(c, text, len);
	free(w->names);
	w->names = c;
	w->names_len = len;
	return 0;
}

int kft_writer_dump(struct kft_writer *w, const char *stats, size_t len)
{
	if (!w->o.flight_bytes)
		return -EINVAL;
	return dump(w, NULL, 0, stats, len);
}

/*
 * Streaming's end: the worker has stopped. Under a cap the tail must fit:
 * what was kept for it is an estimate, so the last chunks may go.
 */
static int finish(struct kft_writer *w, const char *syms, size_t syms_len,
		  const char *stats, size_t stats_len)
{
	struct done *d = w->done + w->dhead;
	size_t n = w->ndone, len;
	__u64 end = w->off;
	char *tail;
	int err;

	while (w->o.max_bytes && n &&
	       end + tail_len(w, n, syms, syms_len, stats_len) > w->o.max_bytes) {
		n--;
		end = d[n].ent.offset;
		w->cap_dropped += d[n].ent.nrecs;
	}
	if (end != w->off && ftruncate(w->file.fd, end))
		return -errno;
	if (lseek(w->file.fd, end, SEEK_SET) < 0)
		return -errno;
	tail = make_tail(w, end, d, n, syms, syms_len, stats, stats_len, &len);
	if (!tail)
		return -ENOMEM;
	err = write_full(w->file.fd, tail, len);
	free(tail);
	if (!err)
		err = kfit_out_commit(&w->file);
	if (!err)
		w->file_bytes = end + len;
	return err;
}

/*
 * A recording that ends badly: the chunks streamed so far go to path
 * (read up to the last complete one); with no record, or in flight mode,
 * the temporary goes and whatever was at path stays
 */
static void keep_partial(struct kft_writer *w)
{
	if (w->o.flight_bytes || !w->started || !kfit_out_active(&w->file))
		return;
	kfit_out_commit(&w->file);
}

int kft_writer_close(struct kft_writer *w, const char *syms, size_t syms_len,
		     const char *stats, size_t stats_len)
{
	int err = get_err(w);

	if (!stats)
		stats_len = 0;
	if (!syms)
		syms_len = 0;
	if (!err && !w->started && !w->has_layout)
		err = write_layout(w);
	if (!err && w->o.flight_bytes) {
		err = dump(w, syms, syms_len, stats, stats_len);
	} else if (!err) {
		if (w->used)
			submit(w);
		stop_worker(w, false);
		err = get_err(w);
		if (!err)
			err = finish(w, syms, syms_len, stats, stats_len);
	}
	stop_worker(w, true);
	if (err)
		keep_partial(w);
	writer_free(w);
	return err;
}

void kft_writer_abort(struct kft_writer *w)
{
	if (!w)
		return;
	stop_worker(w, true);
	keep_partial(w);
	writer_free(w);
}

void kft_writer_stats(struct kft_writer *w, struct kft_wstats *s)
{
	pthread_mutex_lock(&w->lock);
	*s = (struct kft_wstats){
		.records = w->records - w->cap_dropped,
		.raw_bytes = w->raw_bytes,
		.refused = w->refused + w->cap_dropped,
		.chunks = w->chunks,
		.chunks_dropped = w->chunks_dropped,
		.file_bytes = w->o.flight_bytes ? w->file_bytes : w->off,
		.comp_bytes = w->comp_bytes,
		.ns_compress = w->ns_compress,
	};
	pthread_mutex_unlock(&w->lock);
}
