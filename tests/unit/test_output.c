// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "output.h"
#include "testlib.h"

/* Every kind of value, nested containers, empty ones */
static void write_sample(struct kfit_json *j)
{
	kfit_json_begin_object(j, NULL);
	kfit_json_str(j, "name", "irq");
	kfit_json_u64(j, "n", UINT64_MAX);
	kfit_json_i64(j, "neg", INT64_MIN);
	kfit_json_double(j, "d", 1.5);
	kfit_json_bool(j, "t", true);
	kfit_json_bool(j, "f", false);
	kfit_json_null(j, "z");
	kfit_json_begin_array(j, "arr");
	kfit_json_u64(j, NULL, 1);
	kfit_json_begin_object(j, NULL);
	kfit_json_end_object(j);
	kfit_json_begin_array(j, NULL);
	kfit_json_end_array(j);
	kfit_json_begin_object(j, NULL);
	kfit_json_u64(j, "k", 2);
	kfit_json_end_object(j);
	kfit_json_end_array(j);
	kfit_json_end_object(j);
	kfit_json_finish(j);
}

static void write_escapes(struct kfit_json *j)
{
	kfit_json_begin_object(j, NULL);
	kfit_json_str(j, "q\"k", "a\"b\\c/d");
	kfit_json_str(j, "ctl", "\n\t\r\x01\x1f\x7f");
	kfit_json_str(j, "utf8", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	kfit_json_str(j, "bad", "a\xff" "b\xc3");
	kfit_json_str(j, "overlong", "\xc0\xaf\xed\xa0\x80");
	kfit_json_str(j, "none", NULL);
	kfit_json_str(j, "empty", "");
	kfit_json_end_object(j);
	kfit_json_finish(j);
}

static void write_doubles(struct kfit_json *j)
{
	kfit_json_begin_array(j, NULL);
	kfit_json_double(j, NULL, NAN);
	kfit_json_double(j, NULL, INFINITY);
	kfit_json_double(j, NULL, -INFINITY);
	kfit_json_double(j, NULL, 0);
	kfit_json_double(j, NULL, 0.1);
	kfit_json_double(j, NULL, -2.5);
	kfit_json_double(j, NULL, 123456789.0);
	kfit_json_double(j, NULL, 1e-7);
	kfit_json_double(j, NULL, 99.99);
	kfit_json_end_array(j);
	kfit_json_finish(j);
}

/* Fixed-point decimals: every digit kept, leading zeros of the fraction too */
static void write_udecs(struct kfit_json *j)
{
	kfit_json_begin_object(j, NULL);
	kfit_json_udec(j, "us", 1234567, 3);
	kfit_json_udec(j, "lead", 1005, 3);
	kfit_json_udec(j, "small", 7, 3);
	kfit_json_udec(j, "zero", 0, 3);
	kfit_json_udec(j, "big", UINT64_MAX, 3);
	kfit_json_udec(j, "int", 42, 0);
	kfit_json_udec(j, "s", 1000000001, 9);
	kfit_json_end_object(j);
	kfit_json_finish(j);
}

/* With -i, each report is one top-level value on its own line */
static void write_top_level(struct kfit_json *j)
{
	kfit_json_begin_object(j, NULL);
	kfit_json_u64(j, "a", 1);
	kfit_json_end_object(j);
	kfit_json_finish(j);
	kfit_json_begin_object(j, NULL);
	kfit_json_u64(j, "a", 2);
	kfit_json_end_object(j);
	kfit_json_begin_array(j, NULL);
	kfit_json_end_array(j);
	kfit_json_finish(j);
	kfit_json_finish(j);
}

static void write_top_level_pretty(struct kfit_json *j)
{
	kfit_json_begin_object(j, NULL);
	kfit_json_end_object(j);
	kfit_json_u64(j, NULL, 7);
	kfit_json_finish(j);
}

static const struct json_case {
	const char *name;
	bool pretty;
	void (*write)(struct kfit_json *j);
	const char *want;
} json_cases[] = {
	{ "compact", false, write_sample,
	  "{\"name\":\"irq\",\"n\":18446744073709551615,"
	  "\"neg\":-9223372036854775808,\"d\":1.5,\"t\":true,"
	  "\"f\":false,\"z\":null,\"arr\":[1,{},[],{\"k\":2}]}\n" },
	{ "pretty", true, write_sample,
	  "{\n"
	  "  \"name\": \"irq\",\n"
	  "  \"n\": 18446744073709551615,\n"
	  "  \"neg\": -9223372036854775808,\n"
	  "  \"d\": 1.5,\n"
	  "  \"t\": true,\n"
	  "  \"f\": false,\n"
	  "  \"z\": null,\n"
	  "  \"arr\": [\n"
	  "    1,\n"
	  "    {},\n"
	  "    [],\n"
	  "    {\n"
	  "      \"k\": 2\n"
	  "    }\n"
	  "  ]\n"
	  "}\n" },
	{ "escapes", false, write_escapes,
	  "{\"q\\\"k\":\"a\\\"b\\\\c/d\","
	  "\"ctl\":\"\\u000a\\u0009\\u000d\\u0001\\u001f\x7f\","
	  "\"utf8\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\","
	  "\"bad\":\"a\\ufffdb\\ufffd\","
	  "\"overlong\":\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\","
	  "\"none\":null,\"empty\":\"\"}\n" },
	{ "doubles", false, write_doubles,
	  "[null,null,null,0,0.1,-2.5,1.23457e+08,1e-07,99.99]\n" },
	{ "udec", false, write_udecs,
	  "{\"us\":1234.567,\"lead\":1.005,\"small\":0.007,"
	  "\"zero\":0.000,\"big\":18446744073709551.615,\"int\":42,"
	  "\"s\":1.000000001}\n" },
	{ "top level", false, write_top_level,
	  "{\"a\":1}\n{\"a\":2}\n[]\n" },
	{ "top level pretty", true, write_top_level_pretty, "{}\n7\n" },
};

static void test_json(void **state)
{
	const struct json_case *jc;
	struct kfit_json j;
	struct t_cap cap;
	char *got;

	(void)state;
	for (jc = json_cases; jc < json_cases + T_N(json_cases); jc++) {
		kfit_json_init(&j, t_cap_open(&cap), jc->pretty);
		jc->write(&j);
		got = t_cap_close(&cap);
		t_str_eq(jc->name, got, jc->want);
		free(got);
	}
}

/* What kfit_table_print writes of t (the caller frees it) */
static char *print_of(struct kfit_table *t)
{
	struct t_cap cap;

	kfit_table_print(t, t_cap_open(&cap));
	return t_cap_close(&cap);
}

static void test_table(void **state)
{
	const char *headers[] = { "NAME", "COUNT", "AVG" };
	struct kfit_table *t;
	char *out;

	(void)state;
	t = kfit_table_new(3, headers, "lrr");
	assert_non_null(t);
	assert_int_equal(kfit_table_row(t), 0);
	assert_int_equal(kfit_table_cell(t, "%s", "ksoftirqd/0"), 0);
	assert_int_equal(kfit_table_cell(t, "%d", 5), 0);
	assert_int_equal(kfit_table_cell(t, "%s", "1.50us"), 0);
	assert_int_equal(kfit_table_row(t), 0);
	assert_int_equal(kfit_table_cell(t, "x"), 0);
	assert_int_equal(kfit_table_cell(t, "%llu", 12345ULL), 0);
	assert_int_equal(kfit_table_cell(t, "2ms"), 0);
	/* A fourth cell in a three-column table */
	assert_int_equal(kfit_table_cell(t, "extra"), -1);
	out = print_of(t);
	assert_string_equal(out, "NAME         COUNT     AVG\n"
				 "ksoftirqd/0      5  1.50us\n"
				 "x            12345     2ms\n");
	free(out);
	kfit_table_free(t);
}

/* Headers are copied; short rows and align strings; no trailing blanks */
static void test_table_edges(void **state)
{
	char h0[8] = "CPU", h1[8] = "TASK";
	const char *headers[] = { h0, h1 };
	struct kfit_table *t;
	char *out;

	(void)state;
	t = kfit_table_new(2, headers, "r");
	assert_non_null(t);
	strcpy(h0, "XXX");
	strcpy(h1, "YYY");
	/* No row started yet */
	assert_int_equal(kfit_table_cell(t, "0"), -1);
	assert_int_equal(kfit_table_row(t), 0);
	assert_int_equal(kfit_table_cell(t, "12"), 0);
	assert_int_equal(kfit_table_cell(t, "caf\xc3\xa9"), 0);
	assert_int_equal(kfit_table_row(t), 0);
	assert_int_equal(kfit_table_cell(t, "3"), 0);
	assert_int_equal(kfit_table_row(t), 0);
	assert_int_equal(kfit_table_cell(t, "1000"), 0);
	assert_int_equal(kfit_table_cell(t, "bash"), 0);
	out = print_of(t);
	assert_string_equal(out, " CPU  TASK\n"
				 "  12  caf\xc3\xa9\n"
				 "   3\n"
				 "1000  bash\n");
	free(out);
	kfit_table_free(t);
	kfit_table_free(NULL);
	assert_null(kfit_table_new(0, headers, "l"));
}

static void test_table_many_rows(void **state)
{
	const char *headers[] = { "N" };
	struct kfit_table *t;
	char *out, *p;
	int i, lines = 0;

	(void)state;
	t = kfit_table_new(1, headers, NULL);
	assert_non_null(t);
	for (i = 0; i < 1000; i++) {
		assert_int_equal(kfit_table_row(t), 0);
		assert_int_equal(kfit_table_cell(t, "%d", i), 0);
	}
	out = print_of(t);
	for (p = out; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 1001);
	assert_non_null(strstr(out, "N\n0\n1\n"));
	assert_non_null(strstr(out, "\n999\n"));
	free(out);
	kfit_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_edges),
		cmocka_unit_test(test_table_many_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
