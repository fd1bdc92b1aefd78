// SPDX-License-Identifier: GPL-2.0
/*
 * recbatch.h: a ring sample of callgraph's records back to back (a CPU's
 * staged batch) comes back as the same records, byte for byte and in
 * order; a single record comes back whole; sizes no record can have hand
 * the rest over as one piece, never loop, never read past the sample.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "kfit/callgraph.h"
#include "kfit/rec.h"
#include "recbatch.h"
#include "testlib.h"

#define MAXP 4096

/* What the split handed: each piece's offset and size */
struct got {
	const char *base;
	size_t off[MAXP], size[MAXP];
	int n;
	int stop_at;		/* return 1 at this piece, -1: never */
};

static int collect(void *ctx, const void *rec, size_t size)
{
	struct got *g = ctx;

	assert_true(g->n < MAXP);
	g->off[g->n] = (const char *)rec - g->base;
	g->size[g->n] = size;
	return g->n++ == g->stop_at ? 7 : 0;
}

/* Record header of type t and size bytes at p */
static void put(void *p, __u8 type, __u16 size, __u64 ts)
{
	struct kfit_rec h = { .type = type, .size = size, .pid = 1, .tid = 2, .ts = ts };

	memset(p, 0xa5, size);
	memcpy(p, &h, sizeof(h));
}

/* The records callgraph stages, of each size it writes, back to back */
static void test_batch(void **state)
{
	static const __u16 sizes[] = {
		sizeof(struct kfit_rec_event) - KFIT_EVENT_DATA + 8,
		sizeof(struct kfit_rec_event) - KFIT_EVENT_DATA + 40,
		sizeof(struct kfit_rec_event),
		sizeof(struct kfit_rec_call),
		sizeof(struct kfit_rec_call) + KFIT_REC_ARGS_SIZE(2),
		sizeof(struct kfit_rec_task),
		sizeof(struct kfit_rec_switch),
		sizeof(struct kfit_rec_irq),
	};
	_Alignas(8) char buf[CG_STAGE_BYTES];
	struct got g = { .base = buf, .stop_at = -1 };
	size_t off = 0, n;
	unsigned int i;

	(void)state;
	for (i = 0; off + sizes[i % T_N(sizes)] <= sizeof(buf); i++) {
		put(buf + off, KFIT_REC_EVENT, sizes[i % T_N(sizes)], i);
		off += sizes[i % T_N(sizes)];
	}
	assert_int_equal(kfit_rec_split(buf, off, collect, &g, &n), 0);
	assert_int_equal(g.n, i);
	assert_int_equal(n, i);
	for (off = 0, i = 0; i < (unsigned int)g.n; i++) {
		t_int_eq("piece", g.off[i], off);
		t_int_eq("piece", g.size[i], sizes[i % T_N(sizes)]);
		t_int_eq("its ts", ((struct kfit_rec *)(buf + off))->ts, i);
		off += g.size[i];
	}
}

/* Random sizes (multiples of 8 from a header up): every record back */
static void test_random(void **state)
{
	_Alignas(8) char buf[1 << 16];
	static struct got g;
	__u16 sizes[MAXP];
	size_t off = 0;
	int i, n = 0;

	(void)state;
	srand(22);
	memset(&g, 0, sizeof(g));
	g.base = buf;
	g.stop_at = -1;
	while (n < MAXP) {
		__u16 s = sizeof(struct kfit_rec) + 8 * (rand() % 40);

		if (off + s > sizeof(buf))
			break;
		put(buf + off, 1 + rand() % (KFIT_REC_NTYPES - 1), s, n);
		sizes[n++] = s;
		off += s;
	}
	assert_int_equal(kfit_rec_split(buf, off, collect, &g, NULL), 0);
	assert_int_equal(g.n, n);
	for (off = 0, i = 0; i < n; i++) {
		assert_int_equal(g.off[i], off);
		assert_int_equal(g.size[i], sizes[i]);
		off += sizes[i];
	}
}

/* Sizes no record of a batch has: the rest as one piece, for the decoder to count */
static void test_bad(void **state)
{
	static const struct {
		const char *name;
		size_t len;		/* the sample */
		__u16 size0, size1;	/* the sizes its first two headers say */
		int pieces;
		size_t last;		/* the last piece's size */
	} cases[] = {
		{ "one record", 64, 64, 0, 1, 64 },
		{ "one record cut short", 48, 64, 0, 1, 48 },
		{ "one record, size not its sample's", 40, 36, 0, 1, 40 },
		{ "shorter than a header", 16, 64, 0, 1, 16 },
		{ "two records", 96, 64, 32, 2, 32 },
		{ "the second past the end", 96, 64, 40, 2, 32 },
		{ "the second of size 0", 96, 64, 0, 2, 32 },
		{ "the first of size 0", 96, 0, 32, 1, 96 },
		{ "the first below a header", 96, 16, 32, 1, 96 },
		{ "the first no multiple of 8", 96, 36, 32, 1, 96 },
		{ "a header's worth left", 88, 64, 24, 2, 24 },
		{ "less than a header left", 80, 64, 32, 2, 16 },
	};
	_Alignas(8) char buf[128];
	struct got g;
	size_t i, n;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		memset(buf, 0, sizeof(buf));
		memset(&g, 0, sizeof(g));
		g.base = buf;
		g.stop_at = -1;
		((struct kfit_rec *)buf)->size = cases[i].size0;
		if (cases[i].size0 >= sizeof(struct kfit_rec) && cases[i].size0 % 8 == 0 &&
		    cases[i].size0 + 8U <= sizeof(buf))
			((struct kfit_rec *)(buf + cases[i].size0))->size = cases[i].size1;
		t_int_eq(cases[i].name, kfit_rec_split(buf, cases[i].len, collect, &g, &n), 0);
		t_int_eq(cases[i].name, g.n, cases[i].pieces);
		t_int_eq(cases[i].name, n, cases[i].pieces);
		t_int_eq(cases[i].name, g.size[g.n - 1], cases[i].last);
		t_int_eq(cases[i].name, g.off[g.n - 1] + g.size[g.n - 1], cases[i].len);
	}
}

/* The callback's nonzero return stops the split and is returned */
static void test_stop(void **state)
{
	_Alignas(8) char buf[5 * 32];
	struct got g = { .base = buf, .stop_at = 2 };
	size_t n;
	int i;

	(void)state;
	for (i = 0; i < 5; i++)
		put(buf + 32 * i, KFIT_REC_EVENT, 32, i);
	assert_int_equal(kfit_rec_split(buf, sizeof(buf), collect, &g, &n), 7);
	assert_int_equal(g.n, 3);
	assert_int_equal(n, 3);
	assert_int_equal(kfit_rec_split(buf, 0, collect, &g, &n), 0);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
