// SPDX-License-Identifier: GPL-2.0
/*
 * The kd summary: sorting, top N, the table and its notes, the JSON, and
 * the figures of a call tree (counts, local time, max-sub; interrupts,
 * lost stand-ins and calls that never returned left out).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "calltree.h"
#include "fstats.h"
#include "hist.h"
#include "output.h"
#include "testlib.h"

static const char *const funcs[] = { "A", "B", "C", "D", "f", "N" };
enum { A, B, C, D, F, N, NFUNCS };

static char *capture_of(void (*fn)(FILE *f, void *ctx), void *ctx)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f, ctx);
	fclose(f);
	return buf;
}

/* ---- a tree ----------------------------------------------------------- */

static void call(struct kfit_ctree *t, __u8 ctx, __u64 ts, __u64 dur, __u32 id,
		 __u16 depth, __u8 flags)
{
	struct kfit_rec_call r = {
		.h = { .type = KFIT_REC_CALL, .ctx = ctx, .flags = flags,
		       .size = sizeof(r), .pid = 1, .tid = 1, .ts = ts },
		.dur = dur, .id = id, .depth = depth,
	};

	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
}

/*
 * A [0, 1000) calls B twice (each calling C) and D; a softirq running N
 * and an interrupt call of N with no IRQ record strike it. f recurses
 * three deep. D calls C through a caller whose record was lost. B never
 * returns once.
 */
static struct kfit_ctree *tree(bool no_interlace)
{
	struct kfit_ctree_opts o = {
		.funcs = funcs, .nfuncs = NFUNCS, .no_interlace = no_interlace,
	};
	struct kfit_ctree *t = kfit_ctree_new(&o);
	struct kfit_rec_irq q = {
		.h = { .type = KFIT_REC_IRQ, .ctx = KFIT_CTX_SOFTIRQ, .size = sizeof(q),
		       .pid = 1, .tid = 1, .ts = 900 },
		.dur = 50, .vec = 3, .ncalls = 1,
	};

	assert_non_null(t);
	call(t, 0, 150, 50, C, 2, 0);
	call(t, 0, 100, 200, B, 1, 0);
	call(t, 0, 450, 100, C, 2, 0);
	call(t, 0, 400, 300, B, 1, 0);
	call(t, 0, 800, 100, D, 1, 0);
	call(t, KFIT_CTX_SOFTIRQ, 910, 20, N, 0, 0);
	assert_int_equal(kfit_ctree_add(t, &q, sizeof(q)), 0);
	call(t, KFIT_CTX_HARDIRQ, 955, 10, N, 0, 0);
	call(t, 0, 0, 1000, A, 0, 0);
	call(t, 0, 2020, 60, F, 2, 0);
	call(t, 0, 2010, 80, F, 1, 0);
	call(t, 0, 2000, 100, F, 0, 0);
	call(t, 0, 3050, 10, C, 2, 0);
	call(t, 0, 3000, 100, D, 0, 0);
	call(t, 0, 4000, 50, B, 0, KFIT_RF_INCOMPLETE | KFIT_RF_END);
	kfit_ctree_finish(t);
	return t;
}

static void from_tree(struct kfit_fstats *s, bool no_interlace)
{
	struct kfit_ctree *t = tree(no_interlace);
	int i;

	assert_int_equal(kfit_fstats_init(s, NFUNCS), 0);
	for (i = 0; i < NFUNCS; i++)
		s->f[i].name = funcs[i];
	assert_int_equal(kfit_fstats_from_tree(s, t), 0);
	kfit_ctree_free(t);
}

static void check_fig(const struct kfit_fstat *f, __u64 count, __u64 total,
		      __u64 local, __u64 min, __u64 max, int max_sub, __u64 max_sub_ns)
{
	assert_int_equal(f->h.count, count);
	assert_int_equal(f->h.total, total);
	assert_int_equal(f->local_ns, local);
	assert_int_equal(f->h.min, min);
	assert_int_equal(f->h.max, max);
	assert_int_equal(f->max_sub, max_sub);
	assert_int_equal(f->max_sub_ns, max_sub_ns);
}

static void test_from_tree(void **state)
{
	struct kfit_fstats s = { 0 };
	int pass;

	(void)state;
	/* interlaced or not, the same figures */
	for (pass = 0; pass < 2; pass++) {
		from_tree(&s, pass);
		check_fig(&s.f[A], 1, 1000, 400, 1000, 1000, B, 500);
		check_fig(&s.f[B], 2, 500, 350, 200, 300, C, 150);
		check_fig(&s.f[C], 3, 160, 160, 10, 100, -1, 0);
		check_fig(&s.f[D], 2, 200, 190, 100, 100, -1, 0);
		check_fig(&s.f[F], 3, 240, 100, 60, 100, F, 140);
		check_fig(&s.f[N], 2, 30, 30, 10, 20, -1, 0);
		assert_int_equal(s.incomplete, 1);
		kfit_fstats_free(&s);
	}
}

static void table_fn(FILE *f, void *ctx)
{
	kfit_fstats_table(f, ctx, NULL);
}

static void test_tree_table(void **state)
{
	struct kfit_fstats s = { .sort = KFIT_FSORT_TIME };
	char *got;

	(void)state;
	from_tree(&s, false);
	got = capture_of(table_fn, &s);
	assert_string_equal(got,
		"FUNCTION  COUNT   TOTAL     AVG     MIN     MAX  LOCAL     P50     P99  MAX-SUB\n"
		"A             1  1.00us  1.00us  1.00us  1.00us  400ns  1.00us  1.00us  B (500ns)\n"
		"B             2   500ns   250ns   200ns   300ns  350ns   203ns   295ns  C (150ns)\n"
		"f             3   240ns    80ns    60ns   100ns  100ns    81ns   100ns  f (140ns)\n"
		"D             2   200ns   100ns   100ns   100ns  190ns   100ns   100ns  -\n"
		"C             3   160ns    53ns    10ns   100ns  160ns    50ns   100ns  -\n"
		"N             2    30ns    15ns    10ns    20ns   30ns    10ns    20ns  -\n"
		"1 call that never returned not counted\n");
	free(got);
	kfit_fstats_free(&s);
}

/* ---- sorting and cutting ---------------------------------------------- */

/* Four functions: x (2 calls of 10 and 30), y (1 of 100), z (4 of 5), w hidden */
static void four(struct kfit_fstats *s)
{
	static const char *const names[] = { "x", "y", "z", "w" };
	int i;

	assert_int_equal(kfit_fstats_init(s, 4), 0);
	for (i = 0; i < 4; i++)
		s->f[i].name = names[i];
	kfit_hist_record(&s->f[0].h, 10);
	kfit_hist_record(&s->f[0].h, 30);
	s->f[0].local_ns = 5;
	kfit_hist_record(&s->f[1].h, 100);
	s->f[1].local_ns = 1;
	for (i = 0; i < 4; i++)
		kfit_hist_record(&s->f[2].h, 5);
	s->f[2].local_ns = 20;
	kfit_hist_record(&s->f[3].h, 1000);
	s->f[3].hidden = true;
}

static void check_order(struct kfit_fstats *s, enum kfit_fsort key,
			unsigned long top, const char *want)
{
	char got[16] = "";
	int *idx, n, i;

	s->sort = key;
	s->top = top;
	idx = kfit_fstats_sorted(s, &n);
	assert_non_null(idx);
	for (i = 0; i < n; i++)
		strcat(got, s->f[idx[i]].name);
	assert_string_equal(got, want);
	free(idx);
}

static void test_sort_top(void **state)
{
	struct kfit_fstats s = { 0 };

	(void)state;
	four(&s);
	check_order(&s, KFIT_FSORT_TIME, 0, "yxz");
	check_order(&s, KFIT_FSORT_LOCAL, 0, "zxy");
	check_order(&s, KFIT_FSORT_COUNT, 0, "zxy");
	check_order(&s, KFIT_FSORT_AVG, 0, "yxz");
	check_order(&s, KFIT_FSORT_MAX, 0, "yxz");
	check_order(&s, KFIT_FSORT_TIME, 2, "yx");
	check_order(&s, KFIT_FSORT_TIME, 9, "yxz");
	/* equal values: by name */
	s.f[1].local_ns = 5;
	check_order(&s, KFIT_FSORT_LOCAL, 0, "zxy");
	s.f[2].local_ns = 5;
	check_order(&s, KFIT_FSORT_LOCAL, 0, "xyz");
	/* init keeps the settings, reset clears a function's figures */
	kfit_fstats_free(&s);
	s.top = 9;
	four(&s);
	assert_int_equal(s.sort, KFIT_FSORT_LOCAL);
	assert_int_equal(s.top, 9);
	s.f[0].max_sub = 1;
	s.f[0].filtered = 3;
	kfit_fstats_reset(&s.f[0]);
	assert_int_equal(s.f[0].h.count, 0);
	assert_int_equal(s.f[0].local_ns, 0);
	assert_int_equal(s.f[0].filtered, 0);
	assert_int_equal(s.f[0].max_sub, -1);
	assert_string_equal(s.f[0].name, "x");
	kfit_fstats_free(&s);
}

static void test_edges(void **state)
{
	struct kfit_fstats s = { 0 };

	(void)state;
	four(&s);
	kfit_fstats_edge(&s, 0, 2, 50);
	kfit_fstats_edge(&s, 0, 1, 40);
	assert_int_equal(s.f[0].max_sub, 2);
	kfit_fstats_edge(&s, 0, 1, 60);
	assert_int_equal(s.f[0].max_sub, 1);
	assert_int_equal(s.f[0].max_sub_ns, 60);
	/* a tie goes to the lower id, in whatever order */
	kfit_fstats_edge(&s, 0, 0, 60);
	assert_int_equal(s.f[0].max_sub, 0);
	kfit_fstats_edge(&s, 0, 3, 60);
	assert_int_equal(s.f[0].max_sub, 0);
	/* ids out of the table */
	kfit_fstats_edge(&s, 4, 0, 100);
	kfit_fstats_edge(&s, 0, 4, 100);
	kfit_fstats_edge(&s, -1, 0, 100);
	assert_int_equal(s.f[0].max_sub_ns, 60);
	kfit_fstats_free(&s);
}

static enum kfit_fsort parsed;

static void bad_key(void)
{
	assert_int_equal(kfit_fstats_parse_sort("tool", "speed", &parsed), -1);
}

static void test_parse_sort(void **state)
{
	static const char *const keys[] = { "time", "local", "count", "avg", "max" };
	char err[256];
	int i;

	(void)state;
	for (i = 0; i < 5; i++) {
		assert_int_equal(kfit_fstats_parse_sort("tool", keys[i], &parsed), 0);
		assert_int_equal(parsed, i);
	}
	assert_string_equal(t_stderr_of(bad_key, err, sizeof(err)),
			    "tool: invalid sort key 'speed': use time, local, count, avg or max\n");
}

/* ---- output ----------------------------------------------------------- */

static struct kfit_fnotes notes;

static void table_notes_fn(FILE *f, void *ctx)
{
	kfit_fstats_table(f, ctx, &notes);
}

static void test_table_notes(void **state)
{
	struct kfit_fstats s = { 0 };
	char *got;

	(void)state;
	four(&s);
	s.top = 1;
	s.f[0].max_sub = 1;
	s.f[0].max_sub_ns = 7000;
	s.f[0].filtered = 2;
	s.f[2].filtered = 1;
	notes = (struct kfit_fnotes){
		.has_min = true, .min_ns = 1500, .too_deep = 4, .max_depth = 32,
		.no_stack = 5, .missed = 6,
	};
	s.sort = KFIT_FSORT_COUNT;
	got = capture_of(table_notes_fn, &s);
	assert_string_equal(got,
		"FUNCTION  COUNT  TOTAL  AVG  MIN  MAX  LOCAL  P50  P99  MAX-SUB\n"
		"z             4   20ns  5ns  5ns  5ns   20ns  5ns  5ns  -\n"
		"3 calls outside [1.50us, inf] left out\n"
		"4 calls nested deeper than 32 not measured\n"
		"5 calls not measured: too many threads at once\n"
		"6 probe runs missed: the kernel skips a BPF program that fires inside another\n");
	free(got);
	s.sort = KFIT_FSORT_TIME;
	notes = (struct kfit_fnotes){ .has_max = true, .max_ns = 2000000 };
	got = capture_of(table_notes_fn, &s);
	assert_non_null(strstr(got, "\ny             1  100ns"));
	assert_non_null(strstr(got, "\n3 calls outside [0, 2.00ms] left out\n"));
	free(got);
	s.top = 0;
	/* all but the hidden one, and no notes */
	got = capture_of(table_fn, &s);
	assert_string_equal(got,
		"FUNCTION  COUNT  TOTAL    AVG    MIN    MAX  LOCAL    P50    P99  MAX-SUB\n"
		"y             1  100ns  100ns  100ns  100ns    1ns  100ns  100ns  -\n"
		"x             2   40ns   20ns   10ns   30ns    5ns   10ns   30ns  y (7.00us)\n"
		"z             4   20ns    5ns    5ns    5ns   20ns    5ns    5ns  -\n");
	free(got);
	kfit_fstats_free(&s);
}

/* -f: the columns chosen, in the table's order, FUNCTION always */
static void test_fields(void **state)
{
	struct kfit_fstats s = { 0 };
	unsigned int m = 0;
	char *got;

	(void)state;
	four(&s);
	s.f[0].max_sub = 1;
	s.f[0].max_sub_ns = 7000;
	assert_int_equal(kfit_fstats_parse_fields("t", "maxsub,count,local", &m), 0);
	assert_int_equal(m, 1U << KFIT_FF_COUNT | 1U << KFIT_FF_LOCAL | 1U << KFIT_FF_MAXSUB);
	s.fields = m;
	got = capture_of(table_fn, &s);
	assert_string_equal(got,
		"FUNCTION  COUNT  LOCAL  MAX-SUB\n"
		"y             1    1ns  -\n"
		"x             2    5ns  y (7.00us)\n"
		"z             4   20ns  -\n");
	free(got);
	assert_int_equal(kfit_fstats_parse_fields("t", "time,avg,max,p99", &s.fields), 0);
	got = capture_of(table_fn, &s);
	assert_string_equal(got,
		"FUNCTION  TOTAL    AVG    MAX    P99\n"
		"y         100ns  100ns  100ns  100ns\n"
		"x          40ns   20ns   30ns   30ns\n"
		"z          20ns    5ns    5ns    5ns\n");
	free(got);
	assert_int_equal(kfit_fstats_parse_fields("t", "min,p50", &s.fields), 0);
	assert_int_equal(s.fields, 1U << KFIT_FF_MIN | 1U << KFIT_FF_P50);
	/* every column is the default */
	assert_int_equal(kfit_fstats_parse_fields("t",
		"count,time,avg,min,max,local,p50,p99,maxsub", &m), 0);
	assert_int_equal(m, (1U << KFIT_FF_N) - 1);
	/* refused, the mask unchanged */
	m = 5;
	assert_int_equal(kfit_fstats_parse_fields("t", "count,bogus", &m), -1);
	assert_int_equal(kfit_fstats_parse_fields("t", "", &m), -1);
	assert_int_equal(kfit_fstats_parse_fields("t", ",", &m), -1);
	assert_int_equal(kfit_fstats_parse_fields("t", "Count", &m), -1);
	assert_int_equal(kfit_fstats_parse_fields("t", "counts", &m), -1);
	assert_int_equal(m, 5);
	kfit_fstats_free(&s);
}

static void hists_fn(FILE *f, void *ctx)
{
	kfit_fstats_hists(f, ctx, NULL);
}

static void test_hists(void **state)
{
	struct kfit_fstats s = { 0 };
	char *got;

	(void)state;
	four(&s);
	s.f[1].h.count = 0;	/* y: no calls, no histogram */
	got = capture_of(hists_fn, &s);
	assert_non_null(strstr(got, "\nfunction = x\n"));
	assert_non_null(strstr(got, "\nfunction = z\n"));
	assert_null(strstr(got, "function = y"));
	assert_null(strstr(got, "function = w"));
	assert_true(strstr(got, "function = x") < strstr(got, "function = z"));
	free(got);
	/* linear buckets */
	s.lin_step = 10;
	s.f[0].l.slot[1] = 1;
	s.f[0].l.slot[3] = 1;
	got = capture_of(hists_fn, &s);
	assert_non_null(strstr(got, "function = x"));
	free(got);
	kfit_fstats_free(&s);
}

/* s as -j prints it, in a document of its own (malloc'd) */
static char *json_of(const struct kfit_fstats *s)
{
	struct kfit_json j;
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	kfit_json_init(&j, f, false);
	kfit_json_begin_object(&j, NULL);
	kfit_fstats_json(&j, s);
	kfit_json_end_object(&j);
	kfit_json_finish(&j);
	fclose(f);
	return buf;
}

static void test_json(void **state)
{
	struct kfit_fstats s = { 0 };
	char *buf;

	(void)state;
	four(&s);
	s.top = 2;
	s.f[1].max_sub = 0;
	s.f[1].max_sub_ns = 40;
	buf = json_of(&s);
	/* the top two by time; the log2 buckets of their calls */
	assert_string_equal(buf,
		"{\"functions\":[{\"name\":\"y\",\"count\":1,\"total_ns\":100,"
		"\"avg_ns\":100,\"min_ns\":100,\"max_ns\":100,\"local_ns\":1,"
		"\"p50_ns\":100,\"p99_ns\":100,\"filtered\":0,\"max_sub\":"
		"{\"name\":\"x\",\"total_ns\":40},\"hist\":[{\"lower_ns\":64,"
		"\"count\":1}]},{\"name\":\"x\",\"count\":2,\"total_ns\":40,"
		"\"avg_ns\":20,\"min_ns\":10,\"max_ns\":30,\"local_ns\":5,"
		"\"p50_ns\":10,\"p99_ns\":30,\"filtered\":0,\"max_sub\":null,"
		"\"hist\":[{\"lower_ns\":8,\"count\":1},{\"lower_ns\":16,"
		"\"count\":1}]}]}\n");
	free(buf);
	kfit_fstats_free(&s);
}

/* --by: a column of the rows' values after FUNCTION, rows as given, in JSON too */
static void test_by(void **state)
{
	struct kfit_fstats s = { 0 };
	char *got, *buf;

	(void)state;
	four(&s);
	s.by_title = "RET";
	s.by_key = "ret";
	s.keep_order = true;
	s.f[0].by = "-ENOENT";
	s.f[0].by_value = -2;
	s.f[1].by = "3";
	s.f[1].by_value = 3;
	s.f[2].by = "0";
	assert_int_equal(kfit_fstats_parse_fields("t", "count,time", &s.fields), 0);
	got = capture_of(table_fn, &s);
	assert_string_equal(got,
		"FUNCTION      RET  COUNT  TOTAL\n"
		"x         -ENOENT      2   40ns\n"
		"y               3      1  100ns\n"
		"z               0      4   20ns\n");
	free(got);
	s.top = 1;
	buf = json_of(&s);
	assert_true(t_has(buf, "{\"functions\":[{\"name\":\"x\",\"ret\":-2,"
			  "\"as_shown\":\"-ENOENT\",\"count\":2,"));
	assert_false(t_has(buf, "\"name\":\"y\""));
	free(buf);
	kfit_fstats_free(&s);
}

/* --by a string: the column reads left to right; the JSON's value is the string */
static void test_by_string(void **state)
{
	struct kfit_fstats s = { 0 };
	char *got, *buf;

	(void)state;
	four(&s);
	s.by_title = "filename";
	s.by_key = "filename";
	s.keep_order = true;
	s.f[0].by = "\"/etc/hostname\"";
	s.f[0].by_str = "/etc/hostname";
	s.f[0].by_value = (__s64)0x9d2b5d3e47fa2c1fULL;
	s.f[1].by = "\"a\"";
	s.f[1].by_str = "a";
	s.f[2].by = "\"\"";
	s.f[2].by_str = "";
	assert_int_equal(kfit_fstats_parse_fields("t", "count", &s.fields), 0);
	got = capture_of(table_fn, &s);
	assert_string_equal(got,
		"FUNCTION  filename         COUNT\n"
		"x         \"/etc/hostname\"      2\n"
		"y         \"a\"                  1\n"
		"z         \"\"                   4\n");
	free(got);
	buf = json_of(&s);
	assert_true(t_has(buf, "{\"functions\":[{\"name\":\"x\",\"filename\":\"/etc/hostname\","
			  "\"as_shown\":\"\\\"/etc/hostname\\\"\",\"count\":2,"));
	assert_true(t_has(buf, "\"name\":\"z\",\"filename\":\"\",\"as_shown\":\"\\\"\\\"\","));
	free(buf);
	kfit_fstats_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_tree),
		cmocka_unit_test(test_tree_table),
		cmocka_unit_test(test_sort_top),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_parse_sort),
		cmocka_unit_test(test_table_notes),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_hists),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_by),
		cmocka_unit_test(test_by_string),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
