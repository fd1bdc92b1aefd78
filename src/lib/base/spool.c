// SPDX-License-Identifier: GPL-2.0
/* Text per key, written key after key at the end: see spool.h */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "spool.h"

/* A run of a key's text in the file */
struct seg {
	off_t off;
	size_t len;
};

struct skey {
	const void *key;
	char *buf;		/* the text not in the file yet */
	size_t len;
	struct seg *segs;
	size_t nsegs, capsegs;
	void *data;		/* the caller's */
};

struct kfit_spool {
	size_t buf;
	struct skey *v;		/* open addressing by key */
	size_t mask, n;
	FILE *f;		/* made at the first buffer full */
	off_t end;
	bool unflushed;		/* written since the last read */
	FILE *mem;		/* kfit_spool_begin's text, made here first */
	char *mbuf;
	size_t msize;
};

struct kfit_spool *kfit_spool_new(size_t buf)
{
	struct kfit_spool *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->buf = buf ? buf : 16384;
	s->mask = 63;
	s->v = calloc(s->mask + 1, sizeof(*s->v));
	if (!s->v) {
		free(s);
		return NULL;
	}
	return s;
}

static size_t hash(const void *key)
{
	uint64_t h = (uintptr_t)key * 0x9e3779b97f4a7c15ULL;

	return h ^ (h >> 29);
}

static struct skey *slot(struct skey *v, size_t mask, const void *key)
{
	size_t i;

	for (i = hash(key) & mask; v[i].key && v[i].key != key; i = (i + 1) & mask)
		;
	return &v[i];
}

static int grow(struct kfit_spool *s)
{
	size_t mask = 2 * s->mask + 1, i;
	struct skey *v = calloc(mask + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i <= s->mask; i++)
		if (s->v[i].key)
			*slot(v, mask, s->v[i].key) = s->v[i];
	free(s->v);
	s->v = v;
	s->mask = mask;
	return 0;
}

static struct skey *key_of(struct kfit_spool *s, const void *key)
{
	struct skey *k;

	if (2 * (s->n + 1) > s->mask + 1 && grow(s))
		return NULL;
	k = slot(s->v, s->mask, key);
	if (!k->key) {
		k->key = key;
		k->buf = malloc(s->buf);
		if (!k->buf) {
			k->key = NULL;
			return NULL;
		}
		s->n++;
	}
	return k;
}

/* k's buffer to the end of the file, a run of k's */
static int spill(struct kfit_spool *s, struct skey *k)
{
	struct seg *v;

	if (!k->len)
		return 0;
	if (!s->f && !(s->f = tmpfile()))
		return -errno;
	if (k->nsegs == k->capsegs) {
		v = realloc(k->segs, (k->capsegs ? 2 * k->capsegs : 8) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		k->segs = v;
		k->capsegs = k->capsegs ? 2 * k->capsegs : 8;
	}
	if (fseeko(s->f, s->end, SEEK_SET) || fwrite(k->buf, 1, k->len, s->f) != k->len)
		return errno ? -errno : -EIO;
	/* a run right after the key's last one makes it longer */
	if (k->nsegs && k->segs[k->nsegs - 1].off + (off_t)k->segs[k->nsegs - 1].len == s->end)
		k->segs[k->nsegs - 1].len += k->len;
	else
		k->segs[k->nsegs++] = (struct seg){ s->end, k->len };
	s->end += k->len;
	k->len = 0;
	s->unflushed = true;
	return 0;
}

int kfit_spool_add(struct kfit_spool *s, const void *key, const char *text, size_t len)
{
	struct skey *k = key_of(s, key);
	size_t n;
	int err;

	if (!k || (!k->buf && !(k->buf = malloc(s->buf))))
		return -ENOMEM;
	while (len) {
		if (k->len == s->buf && (err = spill(s, k)))
			return err;
		n = s->buf - k->len < len ? s->buf - k->len : len;
		memcpy(k->buf + k->len, text, n);
		k->len += n;
		text += n;
		len -= n;
	}
	return 0;
}

int kfit_spool_has(const struct kfit_spool *s, const void *key)
{
	const struct skey *k = slot(s->v, s->mask, key);

	return k->key && (k->len || k->nsegs);
}

int kfit_spool_write(struct kfit_spool *s, const void *key, FILE *out)
{
	struct kfit_spool_pos pos = { 0 };
	char buf[65536];
	ssize_t n;

	while ((n = kfit_spool_read(s, key, &pos, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, n, out) != (size_t)n)
			return -EIO;
	return n;
}

FILE *kfit_spool_begin(struct kfit_spool *s)
{
	if (!s->mem) {
		s->mem = open_memstream(&s->mbuf, &s->msize);
		if (!s->mem)
			return NULL;
		/* this thread's alone: stdio's lock per call was most of -j's time */
		__fsetlocking(s->mem, FSETLOCKING_BYCALLER);
	}
	rewind(s->mem);
	return s->mem;
}

int kfit_spool_end(struct kfit_spool *s, const void *key)
{
	long len = s->mem ? ftell(s->mem) : -1;

	if (len < 0 || fflush(s->mem))
		return -ENOMEM;
	return kfit_spool_add(s, key, s->mbuf, len);
}

int kfit_spool_close(struct kfit_spool *s, const void *key)
{
	struct skey *k = slot(s->v, s->mask, key);
	int err;

	if (!k->key)
		return 0;
	err = spill(s, k);
	if (err)
		return err;
	free(k->buf);
	k->buf = NULL;
	return 0;
}

void **kfit_spool_data(struct kfit_spool *s, const void *key)
{
	struct skey *k = key_of(s, key);

	return k ? &k->data : NULL;
}

/* Up to len bytes of a run in the file, from in bytes into it */
static ssize_t read_seg(struct kfit_spool *s, const struct seg *seg, __u64 in, void *buf,
			size_t len)
{
	ssize_t n;

	if (s->unflushed && fflush(s->f))
		return -errno;
	s->unflushed = false;
	if (len > seg->len - in)
		len = seg->len - in;
	n = pread(fileno(s->f), buf, len, seg->off + in);
	if (n < 0)
		return -errno;
	return n ? n : -EIO;	/* the file is shorter than what was written */
}

ssize_t kfit_spool_read(struct kfit_spool *s, const void *key, struct kfit_spool_pos *pos,
			void *buf, size_t len)
{
	struct skey *k = slot(s->v, s->mask, key);
	ssize_t n;

	if (!k->key || !len)
		return 0;
	if (pos->seg < k->nsegs) {
		n = read_seg(s, &k->segs[pos->seg], pos->in, buf, len);
		if (n < 0)
			return n;
		pos->in += n;
		if (pos->in == k->segs[pos->seg].len) {
			pos->seg++;
			pos->in = 0;
		}
		return n;
	}
	/* past the runs in the file: the buffer */
	if (pos->in >= k->len)
		return 0;
	n = len < k->len - pos->in ? len : k->len - pos->in;
	memcpy(buf, k->buf + pos->in, n);
	pos->in += n;
	return n;
}

void kfit_spool_free(struct kfit_spool *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i <= s->mask; i++) {
		free(s->v[i].buf);
		free(s->v[i].segs);
	}
	free(s->v);
	if (s->f)
		fclose(s->f);
	if (s->mem)
		fclose(s->mem);
	free(s->mbuf);
	free(s);
}
