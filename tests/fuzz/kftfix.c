// SPDX-License-Identifier: GPL-2.0
/* tests/fuzz: trace files with their CRCs made good again (kftfix.h) */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "kfit/kft.h"
#include "kftfix.h"

#define MAX_BLOCKS	4096

struct out {
	uint8_t *buf;
	size_t len, cap;
};

/* Where each block of the input went */
struct moved {
	uint64_t from[MAX_BLOCKS], to[MAX_BLOCKS];
	int n;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (!n)
		return;
	if (o->len + n > o->cap) {
		o->cap = (o->len + n) * 2;
		o->buf = realloc(o->buf, o->cap);
		if (!o->buf)
			abort();
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static uint32_t crc(const void *p, size_t n)
{
	return crc32(crc32(0, NULL, 0), p, n);
}

static uint64_t moved_to(const struct moved *m, uint64_t off)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (m->from[i] == off)
			return m->to[i];
	return off;
}

/* A zlib chunk's payload inflated: its kft_chunk, then the records; NULL if not */
static uint8_t *inflated(const uint8_t *p, const struct kft_block *b)
{
	size_t hd = sizeof(struct kft_chunk);
	uLongf n = b->raw_size - hd;
	uint8_t *raw;

	if (b->size < hd || b->raw_size < hd || b->raw_size > (64u << 20))
		return NULL;
	raw = malloc(b->raw_size ? b->raw_size : 1);
	if (!raw)
		abort();
	memcpy(raw, p, hd);
	if (uncompress(raw + hd, &n, p + hd, b->size - hd) != Z_OK ||
	    n != b->raw_size - hd) {
		free(raw);
		return NULL;
	}
	return raw;
}

static void block(struct out *o, struct kft_block b, const uint8_t *p, bool store)
{
	uint8_t *raw = NULL;

	if (store && b.type == KFT_B_CHUNK && b.flags & KFT_BF_ZLIB &&
	    (raw = inflated(p, &b))) {
		b.flags &= ~KFT_BF_ZLIB;
		b.size = b.raw_size;
		p = raw;
	}
	b.crc = crc(p, b.size);
	b.hcrc = crc(&b, offsetof(struct kft_block, hcrc));
	put(o, &b, sizeof(b));
	put(o, p, b.size);
	free(raw);
}

/* The offsets of the index entries and of the footer, where their blocks went */
static void remap(struct out *o, const struct moved *m, uint64_t index_at, size_t foot_at)
{
	struct kft_block b;
	struct kft_index_ent e;
	struct kft_footer ft;
	size_t i, p;

	if (index_at != (uint64_t)-1) {
		memcpy(&b, o->buf + index_at, sizeof(b));
		for (i = 0; i + 1 <= b.size / sizeof(e); i++) {
			p = index_at + sizeof(b) + i * sizeof(e);
			memcpy(&e, o->buf + p, sizeof(e));
			e.offset = moved_to(m, e.offset);
			memcpy(o->buf + p, &e, sizeof(e));
		}
		b.crc = crc(o->buf + index_at + sizeof(b), b.size);
		b.hcrc = crc(&b, offsetof(struct kft_block, hcrc));
		memcpy(o->buf + index_at, &b, sizeof(b));
	}
	if (foot_at == (size_t)-1)
		return;
	memcpy(&ft, o->buf + foot_at, sizeof(ft));
	ft.index_off = moved_to(m, ft.index_off);
	ft.stats_off = moved_to(m, ft.stats_off);
	ft.crc = crc(&ft, offsetof(struct kft_footer, crc));
	memcpy(o->buf + foot_at, &ft, sizeof(ft));
}

uint8_t *fz_kft_rewrite(const uint8_t *in, size_t len, bool store, size_t *outlen)
{
	static struct moved m;
	struct out o = { 0 };
	struct kft_header h;
	struct kft_block b;
	uint64_t index_at = (uint64_t)-1;
	size_t pos, foot_at = (size_t)-1;

	m.n = 0;
	if (len < sizeof(h)) {
		put(&o, in, len);
		*outlen = o.len;
		return o.buf;
	}
	memcpy(&h, in, sizeof(h));
	pos = h.header_size >= sizeof(h) && h.header_size <= len ? h.header_size : sizeof(h);
	put(&o, in, pos);
	while (len - pos >= sizeof(b)) {
		memcpy(&b, in + pos, sizeof(b));
		if (b.magic != KFT_BLOCK_MAGIC || b.size > len - pos - sizeof(b))
			break;
		if (m.n < MAX_BLOCKS) {
			m.from[m.n] = pos;
			m.to[m.n++] = o.len;
		}
		if (b.type == KFT_B_INDEX)
			index_at = o.len;
		block(&o, b, in + pos + sizeof(b), store);
		pos += sizeof(b) + b.size;
	}
	if (len - pos == sizeof(struct kft_footer) &&
	    !memcmp(in + pos, KFT_FOOTER_MAGIC, 8))
		foot_at = o.len;
	put(&o, in + pos, len - pos);
	remap(&o, &m, index_at, foot_at);
	*outlen = o.len;
	return o.buf;
}
