// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "hist.h"
#include "kfit/calltime.h"
#include "output.h"
#include "testlib.h"

#define STARS40 "****************************************"
#define BLANK40 "                                        "

static __u64 rng_state = 0x9e3779b97f4a7c15ULL;

/* xorshift64*: deterministic, so a failure reproduces */
static __u64 rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* Log-uniform over [0, 2^bits): every magnitude gets its share */
static __u64 rnd_log(int bits)
{
	int b = rnd() % (bits + 1);

	return b ? rnd() >> (64 - b) : 0;
}

static struct kfit_hist *new_hist(void)
{
	struct kfit_hist *h = calloc(1, sizeof(*h));

	assert_non_null(h);
	return h;
}

static char *capture_log2(const struct kfit_hist *h, const char *label)
{
	struct t_cap c;

	kfit_hist_print_log2(t_cap_open(&c), h, label);
	return t_cap_close(&c);
}

static void test_index_values(void **state)
{
	(void)state;
	assert_int_equal(kfit_hist_index(0), 0);
	assert_int_equal(kfit_hist_index(1), 1);
	assert_int_equal(kfit_hist_index(15), 15);
	assert_int_equal(kfit_hist_index(16), 16);
	assert_int_equal(kfit_hist_index(17), 17);
	assert_int_equal(kfit_hist_index(31), 31);
	assert_int_equal(kfit_hist_index(32), 32);
	assert_int_equal(kfit_hist_index(33), 32);
	assert_int_equal(kfit_hist_index(34), 33);
	assert_int_equal(kfit_hist_index(1ULL << 63), 960);
	assert_int_equal(kfit_hist_index(UINT64_MAX), KFIT_HIST_SLOTS - 1);
	assert_int_equal(KFIT_HIST_SLOTS, 976);
}

/* Every slot: its lower bound maps to it, and so does the value just below the next */
static void test_index_lower_roundtrip(void **state)
{
	__u32 i;

	(void)state;
	for (i = 0; i < KFIT_HIST_SLOTS; i++) {
		__u64 lo = kfit_hist_lower(i);

		assert_int_equal(kfit_hist_index(lo), i);
		if (lo)
			assert_int_equal(kfit_hist_index(lo - 1), i - 1);
		if (i + 1 < KFIT_HIST_SLOTS) {
			__u64 next = kfit_hist_lower(i + 1);

			assert_true(next > lo);
			assert_int_equal(kfit_hist_index(next - 1), i);
		}
	}
	assert_int_equal(kfit_hist_lower(KFIT_HIST_SLOTS - 1), 31ULL << 59);
}

/* A slot is at most 1/16 of its lower bound wide: the 3% promise */
static void test_slot_width(void **state)
{
	__u32 i;

	(void)state;
	for (i = KFIT_HIST_SUB; i + 1 < KFIT_HIST_SLOTS; i++) {
		__u64 w = kfit_hist_lower(i + 1) - kfit_hist_lower(i);

		assert_true(w * 16 <= kfit_hist_lower(i));
	}
}

static void test_index_monotonic(void **state)
{
	__u64 v, w;
	int k, n;

	(void)state;
	for (k = 1; k < 64; k++) {
		v = 1ULL << k;
		assert_true(kfit_hist_index(v - 1) < kfit_hist_index(v));
		assert_true(kfit_hist_index(v) <= kfit_hist_index(v + 1));
	}
	for (n = 0; n < 200000; n++) {
		v = rnd_log(64);
		w = rnd_log(64);
		if (v > w) {
			__u64 t = v;

			v = w;
			w = t;
		}
		assert_true(kfit_hist_index(v) <= kfit_hist_index(w));
		assert_true(kfit_hist_lower(kfit_hist_index(v)) <= v);
	}
}

static void test_record(void **state)
{
	struct kfit_hist *h = new_hist();

	(void)state;
	kfit_hist_record(h, 100);
	kfit_hist_record(h, 5);
	kfit_hist_record(h, 0);
	kfit_hist_record(h, 7000);
	assert_int_equal(h->count, 4);
	assert_int_equal(h->total, 7105);
	assert_int_equal(h->min, 0);
	assert_int_equal(h->max, 7000);
	assert_int_equal(h->slot[0], 1);
	assert_int_equal(h->slot[5], 1);
	assert_int_equal(h->slot[kfit_hist_index(100)], 1);
	assert_int_equal(h->slot[kfit_hist_index(7000)], 1);
	free(h);
}

static void test_merge(void **state)
{
	struct kfit_hist *a = new_hist(), *b = new_hist(), *e = new_hist();

	(void)state;
	kfit_hist_record(a, 500);
	kfit_hist_record(a, 600);
	kfit_hist_record(b, 50);
	kfit_hist_record(b, 5000);
	kfit_hist_record(b, 600);
	kfit_hist_merge(a, b);
	assert_int_equal(a->count, 5);
	assert_int_equal(a->total, 6750);
	assert_int_equal(a->min, 50);
	assert_int_equal(a->max, 5000);
	assert_int_equal(a->slot[kfit_hist_index(600)], 2);
	/* An empty source changes nothing, min 0 included */
	kfit_hist_merge(a, e);
	assert_int_equal(a->min, 50);
	assert_int_equal(a->count, 5);
	/* Into an empty destination: its min of 0 is no value */
	kfit_hist_merge(e, b);
	assert_int_equal(e->min, 50);
	assert_int_equal(e->max, 5000);
	assert_int_equal(e->count, 3);
	free(a);
	free(b);
	free(e);
}

static void test_linhist_merge(void **state)
{
	struct kfit_linhist a = { { 0 } }, b = { { 0 } };

	(void)state;
	a.slot[0] = 1;
	a.slot[KFIT_LIN_SLOTS] = 2;
	b.slot[0] = 3;
	b.slot[50] = 4;
	b.slot[KFIT_LIN_SLOTS] = 5;
	kfit_linhist_merge(&a, &b);
	assert_int_equal(a.slot[0], 4);
	assert_int_equal(a.slot[50], 4);
	assert_int_equal(a.slot[KFIT_LIN_SLOTS], 7);
}

static void test_percentile_small(void **state)
{
	struct kfit_hist *h = new_hist();
	int v;

	(void)state;
	assert_int_equal(kfit_hist_percentile(h, 0.5), 0);
	for (v = 1; v <= 10; v++)
		kfit_hist_record(h, v);
	/* Below 16 every value has its slot: exact nearest rank */
	assert_int_equal(kfit_hist_percentile(h, 0), 1);
	assert_int_equal(kfit_hist_percentile(h, 0.1), 1);
	assert_int_equal(kfit_hist_percentile(h, 0.11), 2);
	assert_int_equal(kfit_hist_percentile(h, 0.5), 5);
	assert_int_equal(kfit_hist_percentile(h, 0.9), 9);
	assert_int_equal(kfit_hist_percentile(h, 0.99), 10);
	assert_int_equal(kfit_hist_percentile(h, 1), 10);
	assert_int_equal(kfit_hist_percentile(h, 2), 10);
	assert_int_equal(kfit_hist_percentile(h, -1), 1);
	free(h);
}

static void test_percentile_midpoint_clamp(void **state)
{
	struct kfit_hist *h = new_hist();
	int i;

	(void)state;
	/* Slot [1024, 1088): midpoint 1024 + 63 / 2 = 1055 */
	for (i = 0; i < 10; i++)
		kfit_hist_record(h, 1030);
	kfit_hist_record(h, 1);
	kfit_hist_record(h, 1000000);
	assert_int_equal(kfit_hist_percentile(h, 0.5), 1055);
	free(h);

	/* One value: the midpoint is clamped to it */
	h = new_hist();
	kfit_hist_record(h, 1000);
	assert_int_equal(kfit_hist_percentile(h, 0.5), 1000);
	assert_int_equal(kfit_hist_percentile(h, 0.99), 1000);
	free(h);

	h = new_hist();
	kfit_hist_record(h, 1087);
	kfit_hist_record(h, 1088);
	assert_int_equal(kfit_hist_percentile(h, 0.5), 1087);
	/* The last slot, [31 << 59, 2^64): its midpoint, below max */
	kfit_hist_record(h, UINT64_MAX);
	assert_true(kfit_hist_percentile(h, 1) ==
		    (31ULL << 59) + ((1ULL << 59) - 1) / 2);
	free(h);
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static void check_accuracy(int n, int bits)
{
	static const double qs[] = { 0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9,
				     0.99, 0.999, 0.9999, 1 };
	struct kfit_hist *h = new_hist();
	__u64 *v = malloc(n * sizeof(*v));
	__u64 exact, est, rank;
	double err;
	size_t i;

	assert_non_null(v);
	for (i = 0; i < (size_t)n; i++) {
		v[i] = rnd_log(bits);
		kfit_hist_record(h, v[i]);
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		rank = (__u64)(qs[i] * n);
		if ((double)rank < qs[i] * n)
			rank++;
		if (!rank)
			rank = 1;
		exact = v[rank - 1];
		est = kfit_hist_percentile(h, qs[i]);
		err = exact ? ((double)est - exact) / exact : (double)est;
		if (err > 0.032 || err < -0.032)
			fail_msg("q %g: exact %llu, estimate %llu (%.2f%%)",
				 qs[i], exact, est, 100 * err);
	}
	free(v);
	free(h);
}

static void test_percentile_accuracy(void **state)
{
	(void)state;
	check_accuracy(100000, 64);
	check_accuracy(100000, 40);
	check_accuracy(100000, 24);
	check_accuracy(1000, 20);
	check_accuracy(7, 30);
}

/* Derived log2 buckets equal the ones counted directly */
static void test_log2_exact(void **state)
{
	struct kfit_hist *h = new_hist();
	__u64 want[KFIT_HIST_LOG2_SLOTS] = { 0 }, got[KFIT_HIST_LOG2_SLOTS];
	__u64 v;
	int i;

	(void)state;
	for (i = 0; i < 100000; i++) {
		v = rnd_log(64);
		if (i < 64) /* both edges of every bucket */
			v = i & 1 ? (1ULL << (i / 2)) - 1 : 1ULL << (i / 2 + 32);
		kfit_hist_record(h, v);
		want[v ? 64 - __builtin_clzll(v) : 0]++;
	}
	kfit_hist_record(h, UINT64_MAX);
	want[64]++;
	kfit_hist_log2(h, got);
	for (i = 0; i < KFIT_HIST_LOG2_SLOTS; i++)
		if (got[i] != want[i])
			fail_msg("bucket %d: %llu, want %llu", i, got[i], want[i]);

	memset(h, 0, sizeof(*h));
	kfit_hist_record(h, 1);
	kfit_hist_record(h, 2);
	kfit_hist_record(h, 3);
	kfit_hist_log2(h, got);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 1);
	assert_int_equal(got[2], 2);
	free(h);
}

static void test_print_log2(void **state)
{
	struct kfit_hist *h = new_hist();
	char *out;
	int i;

	(void)state;
	for (i = 0; i < 3; i++)
		kfit_hist_record(h, 256 + 100 * i);
	for (i = 0; i < 30; i++)
		kfit_hist_record(h, 512 + i);
	out = capture_log2(h, "nsecs");
	assert_string_equal(out,
		"     nsecs               : count    distribution\n"
		"       256 -> 511        : 3        |****                                    |\n"
		"       512 -> 1023       : 30       |" STARS40 "|\n");
	free(out);

	/* Empty buckets in between are shown; the label is the caller's */
	kfit_hist_record(h, 4000);
	kfit_hist_record(h, 0);
	out = capture_log2(h, "usecs");
	assert_string_equal(out,
		"     usecs               : count    distribution\n"
		"         0 -> 0          : 1        |*                                       |\n"
		"         1 -> 1          : 0        |" BLANK40 "|\n"
		"         2 -> 3          : 0        |" BLANK40 "|\n"
		"         4 -> 7          : 0        |" BLANK40 "|\n"
		"         8 -> 15         : 0        |" BLANK40 "|\n"
		"        16 -> 31         : 0        |" BLANK40 "|\n"
		"        32 -> 63         : 0        |" BLANK40 "|\n"
		"        64 -> 127        : 0        |" BLANK40 "|\n"
		"       128 -> 255        : 0        |" BLANK40 "|\n"
		"       256 -> 511        : 3        |****                                    |\n"
		"       512 -> 1023       : 30       |" STARS40 "|\n"
		"      1024 -> 2047       : 0        |" BLANK40 "|\n"
		"      2048 -> 4095       : 1        |*                                       |\n");
	free(out);
	free(h);
}

static void test_print_log2_empty(void **state)
{
	struct kfit_hist *h = new_hist();
	char *out;

	(void)state;
	out = capture_log2(h, "nsecs");
	assert_string_equal(out, "");
	free(out);
	free(h);
}

/* Counts beyond 32 bits are printed whole; huge values widen the columns */
static void test_print_log2_big(void **state)
{
	struct kfit_hist *h = new_hist();
	char *out;

	(void)state;
	h->slot[kfit_hist_index(1ULL << 63)] = 5000000000ULL;
	h->slot[kfit_hist_index(UINT64_MAX)] = 1;
	h->count = 5000000001ULL;
	h->min = 1ULL << 63;
	h->max = UINT64_MAX;
	out = capture_log2(h, "nsecs");
	assert_string_equal(out,
		"               nsecs                         : count    distribution\n"
		" 9223372036854775808 -> 18446744073709551615 : 5000000001 |" STARS40 "|\n");
	free(out);

	memset(h, 0, sizeof(*h));
	h->slot[kfit_hist_index(10)] = 4000000000ULL;
	h->slot[kfit_hist_index(1000)] = 8000000000ULL;
	out = capture_log2(h, "nsecs");
	assert_non_null(strstr(out,
		"         8 -> 15         : 4000000000 |********************                    |\n"));
	assert_non_null(strstr(out,
		"       512 -> 1023       : 8000000000 |" STARS40 "|\n"));
	free(out);
	free(h);
}

static char *capture_linear(const struct kfit_linhist *h, __u64 step)
{
	struct t_cap c;

	kfit_hist_print_linear(t_cap_open(&c), h, step, "nsecs");
	return t_cap_close(&c);
}

static void test_print_linear(void **state)
{
	struct kfit_linhist h = { { 0 } };
	char *out;

	(void)state;
	out = capture_linear(&h, 1000);
	assert_string_equal(out, "");
	free(out);

	h.slot[0] = 2;
	h.slot[2] = 4;
	out = capture_linear(&h, 1000);
	assert_string_equal(out,
		"  nsecs           : count    distribution\n"
		"  >= 0     < 1000 : 2        |********************                    |\n"
		"  >= 1000  < 2000 : 0        |" BLANK40 "|\n"
		"  >= 2000  < 3000 : 4        |" STARS40 "|\n");
	free(out);
}

static void test_print_linear_overflow(void **state)
{
	struct kfit_linhist h = { { 0 } };
	char *out, *last;
	int lines = 0;

	(void)state;
	h.slot[0] = 1;
	h.slot[KFIT_LIN_SLOTS] = 2;
	out = capture_linear(&h, 10);
	for (last = out; *last; last++)
		lines += *last == '\n';
	assert_int_equal(lines, 1 + KFIT_LIN_SLOTS + 1);
	assert_non_null(strstr(out,
		"  >= 0     < 10   : 1        |********************                    |\n"));
	assert_non_null(strstr(out,
		"  >= 990   < 1000 : 0        |" BLANK40 "|\n"));
	last = strstr(out, "  >= 1000");
	assert_non_null(last);
	assert_string_equal(last,
		"  >= 1000         : 2        |" STARS40 "|\n");
	free(out);
}

static char *hist_json(const struct kfit_hist *h, const struct kfit_linhist *l,
		       __u64 step)
{
	struct kfit_json j;
	struct t_cap c;

	kfit_json_init(&j, t_cap_open(&c), false);
	kfit_json_begin_object(&j, NULL);
	kfit_hist_json(&j, h, l, step);
	kfit_json_end_object(&j);
	return t_cap_close(&c);
}

static void test_hist_json(void **state)
{
	static struct kfit_hist h;
	static struct kfit_linhist l;
	char *s;

	(void)state;
	kfit_hist_record(&h, 0);
	kfit_hist_record(&h, 5);
	kfit_hist_record(&h, 7);
	kfit_hist_record(&h, 1000);
	s = hist_json(&h, &l, 0);
	assert_string_equal(s, "{\"hist\":[{\"lower_ns\":0,\"count\":1},"
			    "{\"lower_ns\":4,\"count\":2},"
			    "{\"lower_ns\":512,\"count\":1}]}");
	free(s);
	l.slot[0] = 3;
	l.slot[KFIT_LIN_SLOTS] = 2;
	s = hist_json(&h, &l, 10);
	assert_string_equal(s, "{\"hist\":[{\"lower_ns\":0,\"count\":3},"
			    "{\"lower_ns\":1000,\"count\":2}]}");
	free(s);
}

static void test_parse_linear(void **state)
{
	__u64 step = 0;

	(void)state;
	assert_int_equal(kfit_hist_parse_linear("t", "10us", &step), 0);
	assert_int_equal(step, 10000);
	assert_int_equal(kfit_hist_parse_linear("t", "10", &step), -1);
	assert_int_equal(kfit_hist_parse_linear("t", "0us", &step), -1);
	assert_int_equal(kfit_hist_parse_linear("t", "5x", &step), -1);
}

/* -H, and --linear (key 300 here), which implies -H */
static void test_hist_parse_opt(void **state)
{
	bool hist = false;
	__u64 step = 0;

	(void)state;
	assert_int_equal(kfit_hist_parse_opt("t", 'x', 300, NULL, &hist, &step), 1);
	assert_false(hist);
	assert_int_equal(kfit_hist_parse_opt("t", 300, 300, "0us", &hist, &step), -1);
	assert_false(hist);
	assert_int_equal(kfit_hist_parse_opt("t", 300, 300, "2ms", &hist, &step), 0);
	assert_true(hist);
	assert_int_equal(step, 2000000);
	hist = false;
	assert_int_equal(kfit_hist_parse_opt("t", 'H', 300, NULL, &hist, &step), 0);
	assert_true(hist);
	assert_int_equal(step, 2000000);
}

/* --by log2(ARG): every value within its bucket's range, the ranges adjacent */
static void check_bucket(__s64 v, bool is_signed)
{
	__s64 b = ct_log2_bucket(v, is_signed), lo, hi;
	int u = kfit_log2_bucket_range(b, &lo, &hi);

	if (u) {
		assert_true((__u64)lo <= (__u64)v && (__u64)v <= (__u64)hi);
		assert_true(b >= 1 && b <= 64);
	} else {
		assert_true(lo <= v && v <= hi);
	}
}

static void test_log2_buckets(void **state)
{
	__u64 x = 88172645463325252ULL;
	char buf[64];
	int i, k;

	(void)state;
	for (k = 0; k < 64; k++) {
		__u64 p = 1ULL << k;

		check_bucket(p, false);
		check_bucket(p - 1, false);
		check_bucket(p + 1, false);
		check_bucket(p, true);
		check_bucket((__s64)(0 - p), true);
		check_bucket((__s64)(1 - p), true);
	}
	for (i = 0; i < 100000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		check_bucket(x >> (x & 63), false);
		check_bucket((__s64)x >> (x & 63), true);
	}
	check_bucket(INT64_MIN, true);
	check_bucket(-1, false);
	assert_string_equal(kfit_log2_bucket_str(ct_log2_bucket(48, false), buf, sizeof(buf)),
			    "32 -> 63");
	assert_string_equal(kfit_log2_bucket_str(0, buf, sizeof(buf)), "0");
	assert_string_equal(kfit_log2_bucket_str(ct_log2_bucket(-2, true), buf, sizeof(buf)),
			    "-3 -> -2");
	assert_string_equal(kfit_log2_bucket_str(ct_log2_bucket(-1, false), buf, sizeof(buf)),
			    "9223372036854775808 -> 18446744073709551615");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_values),
		cmocka_unit_test(test_index_lower_roundtrip),
		cmocka_unit_test(test_slot_width),
		cmocka_unit_test(test_index_monotonic),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_linhist_merge),
		cmocka_unit_test(test_percentile_small),
		cmocka_unit_test(test_percentile_midpoint_clamp),
		cmocka_unit_test(test_percentile_accuracy),
		cmocka_unit_test(test_log2_exact),
		cmocka_unit_test(test_print_log2),
		cmocka_unit_test(test_print_log2_empty),
		cmocka_unit_test(test_print_log2_big),
		cmocka_unit_test(test_print_linear),
		cmocka_unit_test(test_hist_json),
		cmocka_unit_test(test_parse_linear),
		cmocka_unit_test(test_hist_parse_opt),
		cmocka_unit_test(test_print_linear_overflow),
		cmocka_unit_test(test_log2_buckets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
