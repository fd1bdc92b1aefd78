// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "duration.h"

static __u64 parse_ok(const char *s, __u64 def_unit)
{
	__u64 ns = 12345;
	int err = kfit_duration_parse(s, def_unit, &ns);

	if (err)
		fail_msg("'%s' failed: %d", s ? s : "(null)", err);
	return ns;
}

static void parse_err(const char *s, __u64 def_unit, int want)
{
	__u64 ns = 12345;
	int err = kfit_duration_parse(s, def_unit, &ns);

	if (err != want)
		fail_msg("'%s': got %d, want %d", s ? s : "(null)", err, want);
	/* A failed parse leaves the output alone */
	assert_int_equal(ns, 12345);
}

static void test_units(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("750ns", 0), 750);
	assert_int_equal(parse_ok("500us", 0), 500000);
	assert_int_equal(parse_ok("3ms", 0), 3000000);
	assert_int_equal(parse_ok("2s", 0), 2000000000ULL);
	assert_int_equal(parse_ok("1m", 0), 60000000000ULL);
	assert_int_equal(parse_ok("0ns", 0), 0);
	assert_int_equal(parse_ok("0s", 0), 0);
	assert_int_equal(parse_ok("007ms", 0), 7000000);
}

static void test_decimals_exact(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("1.5ms", 0), 1500000);
	assert_int_equal(parse_ok("0.1us", 0), 100);
	assert_int_equal(parse_ok("0.3s", 0), 300000000);
	assert_int_equal(parse_ok("2.25m", 0), 135000000000ULL);
	assert_int_equal(parse_ok("1.000000001s", 0), 1000000001);
	assert_int_equal(parse_ok("0.999999999s", 0), 999999999);
	/* Trailing zeros beyond the nanosecond are harmless */
	assert_int_equal(parse_ok("1.50000000000000000000000000ms", 0), 1500000);
	assert_int_equal(parse_ok("5.0ns", 0), 5);
	/* Float parsing would get this one wrong: 4.35 * 100 = 434.99... */
	assert_int_equal(parse_ok("4.35us", 0), 4350);
	assert_int_equal(parse_ok("0.07s", 0), 70000000);
}

static void test_bare_number(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("5", KFIT_SEC), 5000000000ULL);
	assert_int_equal(parse_ok("1.5", KFIT_SEC), 1500000000ULL);
	assert_int_equal(parse_ok("250", KFIT_USEC), 250000);
	assert_int_equal(parse_ok("7", KFIT_NSEC), 7);
	/* An explicit unit wins over the default */
	assert_int_equal(parse_ok("5ms", KFIT_SEC), 5000000);
	parse_err("5", 0, -EINVAL);
	parse_err("1.5", 0, -EINVAL);
	/* zero needs no unit; "0.0" and "01" still do */
	assert_int_equal(parse_ok("0", 0), 0);
	assert_int_equal(parse_ok("000", 0), 0);
	parse_err("0.0", 0, -EINVAL);
	parse_err("01", 0, -EINVAL);
}

static void test_syntax_errors(void **state)
{
	(void)state;
	parse_err("", KFIT_SEC, -EINVAL);
	parse_err(NULL, KFIT_SEC, -EINVAL);
	parse_err("ms", KFIT_SEC, -EINVAL);
	parse_err("5x", KFIT_SEC, -EINVAL);
	parse_err("5msx", KFIT_SEC, -EINVAL);
	parse_err("5 ms", KFIT_SEC, -EINVAL);
	parse_err(" 5ms", KFIT_SEC, -EINVAL);
	parse_err("5ms ", KFIT_SEC, -EINVAL);
	parse_err("x5ms", KFIT_SEC, -EINVAL);
	parse_err("5MS", KFIT_SEC, -EINVAL);
	parse_err("5h", KFIT_SEC, -EINVAL);
	parse_err("5µs", KFIT_SEC, -EINVAL);
	parse_err("1.", KFIT_SEC, -EINVAL);
	parse_err(".5s", KFIT_SEC, -EINVAL);
	parse_err("1..5s", KFIT_SEC, -EINVAL);
	parse_err("1.5.2s", KFIT_SEC, -EINVAL);
	parse_err("1e3ns", KFIT_SEC, -EINVAL);
	parse_err("0x10ms", KFIT_SEC, -EINVAL);
	parse_err("1,5ms", KFIT_SEC, -EINVAL);
}

static void test_negative_and_sign(void **state)
{
	(void)state;
	parse_err("-1s", KFIT_SEC, -EINVAL);
	parse_err("-0s", KFIT_SEC, -EINVAL);
	parse_err("-5", KFIT_SEC, -EINVAL);
	parse_err("+5s", KFIT_SEC, -EINVAL);
}

static void test_sub_nanosecond(void **state)
{
	(void)state;
	parse_err("0.5ns", 0, -EINVAL);
	parse_err("1.0001us", 0, -EINVAL);
	parse_err("1.0000000001s", 0, -EINVAL);
	parse_err("0.00000000000000000000001s", 0, -EINVAL);
}

static void test_range(void **state)
{
	(void)state;
	/* UINT64_MAX ns = 18446744073709551615 */
	assert_true(parse_ok("18446744073709551615ns", 0) == UINT64_MAX);
	assert_true(parse_ok("18446744073.709551615s", 0) == UINT64_MAX);
	parse_err("18446744073709551616ns", 0, -ERANGE);
	parse_err("18446744073.709551616s", 0, -ERANGE);
	parse_err("18446744074s", 0, -ERANGE);
	parse_err("307445735m", 0, -ERANGE);
	parse_err("99999999999999999999999999999ns", 0, -ERANGE);
	parse_err("99999999999", KFIT_SEC, -ERANGE);
	/* Leading zeros do not overflow */
	assert_int_equal(parse_ok("000000000000000000000000001ns", 0), 1);
}

static void fmt_is(__u64 ns, const char *want)
{
	char buf[32];

	assert_string_equal(kfit_duration_fmt(ns, buf, sizeof(buf)), want);
}

static void test_fmt(void **state)
{
	(void)state;
	fmt_is(0, "0ns");
	fmt_is(1, "1ns");
	fmt_is(750, "750ns");
	fmt_is(999, "999ns");
	fmt_is(1000, "1.00us");
	fmt_is(1500, "1.50us");
	fmt_is(1234, "1.23us");
	fmt_is(1235, "1.24us");
	fmt_is(12345, "12.3us");
	fmt_is(123456, "123us");
	fmt_is(12345678, "12.3ms");
	fmt_is(2000000000ULL, "2.00s");
	fmt_is(59999999999ULL, "60.0s");
	fmt_is(1234000000000ULL, "1234s");
	fmt_is(UINT64_MAX, "18446744074s");
}

/* Rounding that carries into a fourth digit moves the decimal point or the unit */
static void test_fmt_carry(void **state)
{
	(void)state;
	fmt_is(9995, "10.0us");
	fmt_is(9994, "9.99us");
	fmt_is(99950, "100us");
	fmt_is(999499, "999us");
	fmt_is(999500, "1.00ms");
	fmt_is(999999, "1.00ms");
	fmt_is(999999999ULL, "1.00s");
	fmt_is(999500000000ULL, "1000s");
}

static void test_fmt_small_buffer(void **state)
{
	char buf[4];

	(void)state;
	assert_string_equal(kfit_duration_fmt(12345678, buf, sizeof(buf)), "12.");
}

static void test_thousands(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(kfit_duration_fmt_thousands(0, buf, sizeof(buf)), "0");
	assert_string_equal(kfit_duration_fmt_thousands(999, buf, sizeof(buf)), "999");
	assert_string_equal(kfit_duration_fmt_thousands(1473, buf, sizeof(buf)), "1,473");
	assert_string_equal(kfit_duration_fmt_thousands(100000, buf, sizeof(buf)), "100,000");
	assert_string_equal(kfit_duration_fmt_thousands(1234567, buf, sizeof(buf)), "1,234,567");
	assert_string_equal(kfit_duration_fmt_thousands(18446744073709551615ULL, buf, sizeof(buf)),
			    "18,446,744,073,709,551,615");
}

/* kfit_u64_str and its padded form against printf's %llu and %0*llu */
static void test_u64_str(void **state)
{
	static const unsigned long long v[] = { 0, 7, 10, 999999, 1000000,
						 18446744073709551615ULL };
	static const size_t w[] = { 1, 2, 6, 20 };
	char got[24], want[24];
	size_t i, k, n;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		n = kfit_u64_str(v[i], got);
		snprintf(want, sizeof(want), "%llu", v[i]);
		assert_string_equal(got, want);
		assert_int_equal(n, strlen(want));
		for (k = 0; k < sizeof(w) / sizeof(w[0]); k++) {
			n = kfit_u64_str_pad(v[i], w[k], got);
			snprintf(want, sizeof(want), "%0*llu", (int)w[k], v[i]);
			assert_string_equal(got, want);
			assert_int_equal(n, strlen(want));
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_decimals_exact),
		cmocka_unit_test(test_bare_number),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_negative_and_sign),
		cmocka_unit_test(test_sub_nanosecond),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_fmt),
		cmocka_unit_test(test_fmt_carry),
		cmocka_unit_test(test_fmt_small_buffer),
		cmocka_unit_test(test_u64_str),
		cmocka_unit_test(test_thousands),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
