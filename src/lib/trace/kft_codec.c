// SPDX-License-Identifier: GPL-2.0
/*
 * What the trace file's writer (kft_write.c) and reader (kft_read.c)
 * share: block and footer CRCs, the chunk encoding, the LAYOUT text.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "kfit/rec.h"
#include "kft_codec.h"

__u32 kft_crc(const void *buf, size_t len)
{
	uLong crc = crc32(0, NULL, 0);
	const Bytef *p = buf;

	/* crc32() takes a uInt length */
	while (len) {
		uInt n = len > (1U << 30) ? (1U << 30) : (uInt)len;

		crc = crc32(crc, p, n);
		p += n;
		len -= n;
	}
	return (__u32)crc;
}

void kft_block_fill(struct kft_block *b, __u16 type, __u16 flags, __u32 size,
		    __u32 raw_size, __u32 crc)
{
	b->magic = KFT_BLOCK_MAGIC;
	b->type = type;
	b->flags = flags;
	b->size = size;
	b->raw_size = raw_size;
	b->crc = crc;
	b->hcrc = kft_crc(b, offsetof(struct kft_block, hcrc));
}

int kft_block_check(const struct kft_block *b)
{
	if (b->magic != KFT_BLOCK_MAGIC)
		return -EBADMSG;
	if (b->hcrc != kft_crc(b, offsetof(struct kft_block, hcrc)))
		return -EBADMSG;
	return 0;
}

void kft_footer_fill(struct kft_footer *ft, __u64 index_off, __u64 stats_off,
		     __u32 nchunks)
{
	memset(ft, 0, sizeof(*ft));
	memcpy(ft->magic, KFT_FOOTER_MAGIC, sizeof(ft->magic));
	ft->index_off = index_off;
	ft->stats_off = stats_off;
	ft->nchunks = nchunks;
	ft->crc = kft_crc(ft, offsetof(struct kft_footer, crc));
}

int kft_footer_check(const struct kft_footer *ft)
{
	if (memcmp(ft->magic, KFT_FOOTER_MAGIC, sizeof(ft->magic)))
		return -EBADMSG;
	if (ft->crc != kft_crc(ft, offsetof(struct kft_footer, crc)))
		return -EBADMSG;
	return 0;
}

/* The words of a record after its first (type...cpu): 1 is pid/tid, 2 ts */
static void xor_words(__u64 *cur, const __u64 *prev, size_t words)
{
	size_t i;

	cur[1] ^= prev[1];
	for (i = 3; i < words; i++)
		cur[i] ^= prev[i];
}

/*
 * Backwards, so that each record is encoded against its predecessor's
 * values as they were. Offsets are multiples of 8 into an aligned buffer.
 */
void kft_encode(void *buf, const __u32 *off, size_t n)
{
	size_t i;

	for (i = n; i-- > 0;) {
		struct kfit_rec *h = (struct kfit_rec *)((char *)buf + off[i]);
		const struct kfit_rec *p;

		if (!i)
			continue;	/* its ts from 0: as it is */
		p = (const struct kfit_rec *)((char *)buf + off[i - 1]);
		if (p->type == h->type && p->size == h->size)
			xor_words((__u64 *)h, (const __u64 *)p, h->size / 8);
		h->ts -= p->ts;
	}
}

long kft_decode(void *buf, size_t len)
{
	const struct kfit_rec *p = NULL;
	size_t pos = 0;
	long n = 0;

	while (pos < len) {
		struct kfit_rec *h = (struct kfit_rec *)((char *)buf + pos);

		if (len - pos < sizeof(*h))
			return -EBADMSG;
		if (h->size < sizeof(*h) || h->size % 8 || h->size > len - pos)
			return -EBADMSG;
		if (p) {
			h->ts += p->ts;
			if (p->type == h->type && p->size == h->size)
				xor_words((__u64 *)h, (const __u64 *)p, h->size / 8);
		}
		p = h;
		pos += h->size;
		n++;
	}
	return n;
}

/* ---- LAYOUT -------------------------------------------------------------- */

struct lfield {
	const char *name;
	size_t off, size;
};

#define LF(s, m) { #m, offsetof(struct s, m), sizeof(((struct s *)0)->m) }

static const struct lfield f_rec[] = {
	LF(kfit_rec, type), LF(kfit_rec, ctx), LF(kfit_rec, flags),
	LF(kfit_rec, pad), LF(kfit_rec, size), LF(kfit_rec, cpu),
	LF(kfit_rec, pid), LF(kfit_rec, tid), LF(kfit_rec, ts),
};
static const struct lfield f_call[] = {
	LF(kfit_rec_call, h), LF(kfit_rec_call, dur),
	LF(kfit_rec_call, off_blocked), LF(kfit_rec_call, off_preempt),
	LF(kfit_rec_call, id), LF(kfit_rec_call, depth), LF(kfit_rec_call, cflags),
	LF(kfit_rec_call, dropped), LF(kfit_rec_call, pad2), LF(kfit_rec_call, ret),
};
static const struct lfield f_switch[] = {
	LF(kfit_rec_switch, h), LF(kfit_rec_switch, dur),
	LF(kfit_rec_switch, state), LF(kfit_rec_switch, depth),
};
static const struct lfield f_irq[] = {
	LF(kfit_rec_irq, h), LF(kfit_rec_irq, dur), LF(kfit_rec_irq, vec),
	LF(kfit_rec_irq, ncalls),
};
static const struct lfield f_event[] = {
	LF(kfit_rec_event, h), LF(kfit_rec_event, id), LF(kfit_rec_event, len),
	LF(kfit_rec_event, data),
};
static const struct lfield f_task[] = {
	LF(kfit_rec_task, h), LF(kfit_rec_task, child_pid),
	LF(kfit_rec_task, child_tid), LF(kfit_rec_task, comm),
};
static const struct lfield f_sample[] = {
	LF(kfit_rec_sample, h), LF(kfit_rec_sample, nkernel),
	LF(kfit_rec_sample, nuser), LF(kfit_rec_sample, ustop),
	LF(kfit_rec_sample, ip),
};
static const struct lfield f_args[] = {
	LF(kfit_rec_args, ok), LF(kfit_rec_args, nstr), LF(kfit_rec_args, pad),
	LF(kfit_rec_args, v), LF(kfit_rec_args, s),
};
static const struct lfield f_lost[] = {
	LF(kfit_rec_lost, h), LF(kfit_rec_lost, count),
};

/* The section of kfit_rec_args, which no record type's number names */
#define KFIT_LAYOUT_ARGS	64

#define LT(t, n, s, f) { t, n, sizeof(struct s), f, sizeof(f) / sizeof(f[0]) }

/* Type 0: the header every record starts with */
static const struct ltype {
	int type;
	const char *name;
	size_t size;
	const struct lfield *f;
	size_t nf;
} ltypes[] = {
	LT(0, "rec", kfit_rec, f_rec),
	LT(KFIT_REC_CALL, "call", kfit_rec_call, f_call),
	LT(KFIT_REC_SWITCH, "switch", kfit_rec_switch, f_switch),
	LT(KFIT_REC_IRQ, "irq", kfit_rec_irq, f_irq),
	LT(KFIT_REC_EVENT, "event", kfit_rec_event, f_event),
	LT(KFIT_REC_FORK, "fork", kfit_rec_task, f_task),
	LT(KFIT_REC_EXEC, "exec", kfit_rec_task, f_task),
	LT(KFIT_REC_EXIT, "exit", kfit_rec_task, f_task),
	LT(KFIT_REC_SAMPLE, "sample", kfit_rec_sample, f_sample),
	LT(KFIT_REC_LOST, "lost", kfit_rec_lost, f_lost),
	/* not a record: what a call with KFIT_CF_ARGS has after its ret */
	LT(KFIT_LAYOUT_ARGS, "args", kfit_rec_args, f_args),
};
#define NLTYPES (sizeof(ltypes) / sizeof(ltypes[0]))

static const char *ltype_name(long type)
{
	size_t i;

	for (i = 0; i < NLTYPES; i++)
		if (ltypes[i].type == type)
			return ltypes[i].name;
	return "?";
}

static char layout[4096];
static size_t layout_len;
static pthread_once_t layout_once = PTHREAD_ONCE_INIT;

static void layout_build(void)
{
	size_t i, j, n = 0;

	for (i = 0; i < NLTYPES; i++) {
		const struct ltype *t = &ltypes[i];

		n += snprintf(layout + n, sizeof(layout) - n, "%d %s %zu\n",
			      t->type, t->name, t->size);
		for (j = 0; j < t->nf; j++)
			n += snprintf(layout + n, sizeof(layout) - n, "  %s %zu %zu\n",
				      t->f[j].name, t->f[j].off, t->f[j].size);
	}
	layout_len = n;
}

const char *kft_layout_text(size_t *len)
{
	pthread_once(&layout_once, layout_build);
	if (len)
		*len = layout_len;
	return layout;
}

/* The section of text (a type line and its field lines) at *pos; its type */
static long section(const char *text, size_t len, size_t *pos, size_t *slen)
{
	size_t start = *pos, p = start;
	long type = 0;
	int digits = 0;

	while (p < len && text[p] >= '0' && text[p] <= '9' && digits < 9) {
		type = type * 10 + (text[p++] - '0');
		digits++;
	}
	if (!digits || p >= len || text[p] != ' ')
		type = -1;
	/* To the next line that does not begin with a space */
	for (p = start; p < len; p++) {
		if (text[p] == '\n' && (p + 1 >= len || text[p + 1] != ' ')) {
			p++;
			break;
		}
	}
	*slen = p - start;
	*pos = p;
	return type;
}

/* A section parsed: "TYPE NAME SIZE", then "  FIELD OFFSET SIZE" lines */
#define LSEC_FIELDS	32

struct lsec {
	char name[32];
	size_t size;
	struct {
		char name[32];
		size_t off, size;
	} f[LSEC_FIELDS];
	int nf;
};

static int lsec_parse(const char *text, size_t len, struct lsec *s)
{
	char line[128];
	size_t p = 0, e;
	int n = 0;

	s->nf = 0;
	while (p < len) {
		for (e = p; e < len && text[e] != '\n'; e++)
			;
		if (e - p >= sizeof(line))
			return -1;
		memcpy(line, text + p, e - p);
		line[e - p] = '\0';
		p = e + 1;
		if (!n++) {
			if (sscanf(line, "%*d %31s %zu", s->name, &s->size) != 2)
				return -1;
			continue;
		}
		if (s->nf == LSEC_FIELDS ||
		    sscanf(line, " %31s %zu %zu", s->f[s->nf].name, &s->f[s->nf].off,
			   &s->f[s->nf].size) != 3)
			return -1;
		s->nf++;
	}
	return n ? 0 : -1;
}

/*
 * Whether a file's section is an older version of ours: its fields the
 * first of ours, at the same offsets and sizes, and named the same but
 * for a pad that has become a field (its writer left it 0), and ending
 * where the record does; its records then end earlier (a version-1
 * call's before ret), their own size says
 */
static bool older_section(const char *text, size_t len, const char *mine, size_t mylen)
{
	struct lsec a, b;
	int i;

	if (lsec_parse(text, len, &a) || lsec_parse(mine, mylen, &b))
		return false;
	if (strcmp(a.name, b.name) || a.size > b.size || !a.nf || a.nf > b.nf ||
	    a.f[a.nf - 1].off + a.f[a.nf - 1].size != a.size)
		return false;
	for (i = 0; i < a.nf; i++) {
		if (a.f[i].off != b.f[i].off || a.f[i].size != b.f[i].size ||
		    a.f[i].off + a.f[i].size > a.size)
			return false;
		if (strcmp(a.f[i].name, b.f[i].name) && strncmp(a.f[i].name, "pad", 3))
			return false;
	}
	return true;
}

int kft_layout_check(const char *text, size_t len, char *why, size_t whylen)
{
	size_t mylen, pos = 0, slen;
	const char *mine = kft_layout_text(&mylen);
	bool seen_rec = false;

	while (pos < len) {
		size_t start = pos, mpos = 0, mslen;
		long type = section(text, len, &pos, &slen), mtype;

		if (type < 0) {
			snprintf(why, whylen, "its record layout is not readable");
			return -EBADMSG;
		}
		/* Ours of the same type; a type this build does not know is skipped */
		do {
			size_t ms = mpos;

			mtype = section(mine, mylen, &mpos, &mslen);
			if (mtype == type) {
				if ((mslen != slen || memcmp(mine + ms, text + start, slen)) &&
				    !older_section(text + start, slen, mine + ms, mslen)) {
					snprintf(why, whylen,
						 "its layout of record type %s differs from this build's (recorded by another kfit version?)",
						 ltype_name(type));
					return -EBADMSG;
				}
				break;
			}
		} while (mpos < mylen);
		if (type == 0)
			seen_rec = true;
	}
	if (!seen_rec) {
		snprintf(why, whylen, "its record layout lacks the record header");
		return -EBADMSG;
	}
	return 0;
}
