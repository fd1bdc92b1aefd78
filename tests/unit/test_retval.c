// SPDX-License-Identifier: GPL-2.0
/*
 * Return values (kfit/ret.h, src/lib/base/retval.c): the register read
 * as the type has it, failures by the kernel's convention, the text.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "kfit/ret.h"
#include "retval.h"
#include "testlib.h"

#define INT	(4 | KFIT_RET_SIGNED | KFIT_RET_ERRNO)
#define LONG	(8 | KFIT_RET_SIGNED | KFIT_RET_ERRNO)
#define PTR	(8 | KFIT_RET_PTR | KFIT_RET_SIGNED | KFIT_RET_ERRNO)

/* A 32-bit register write zero-extends: -2 as an int reads 0xfffffffe */
static void test_value(void **state)
{
	static const struct {
		const char *name;
		__u64 reg;
		__u8 kind;
		__s64 want;
	} cases[] = {
		{ "int -2, upper half zero", 0xfffffffeULL, INT, -2 },
		{ "int -2, upper half garbage", 0x12345678fffffffeULL, INT, -2 },
		{ "int 7", 7, INT, 7 },
		{ "unsigned int 0xfffffffe", 0xfffffffeULL, 4, 0xfffffffeLL },
		{ "long -2", (__u64)-2LL, LONG, -2 },
		{ "short -1", 0xffffULL, 2 | KFIT_RET_SIGNED, -1 },
		{ "bool, upper bits garbage", 0xab01ULL, 1, 1 },
		{ "u8 0xff", 0xffULL, 1, 255 },
		{ "void: nothing", 0x1234ULL, KFIT_RET_VOID, 0 },
		{ "unknown: the register", (__u64)-5LL, 0, -5 },
		{ "ERR_PTR(-ENOENT)", (__u64)-2LL, PTR, -2 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++)
		t_int_eq(cases[i].name, kfit_ret_value(cases[i].reg, cases[i].kind),
			 cases[i].want);
}

static void test_failed(void **state)
{
	(void)state;
	assert_true(kfit_ret_failed(-2, INT));
	assert_true(kfit_ret_failed(-4095, LONG));
	assert_false(kfit_ret_failed(-4096, LONG));
	assert_false(kfit_ret_failed(0, INT));
	assert_false(kfit_ret_failed(5, INT));
	assert_true(kfit_ret_failed(-12, PTR));
	assert_false(kfit_ret_failed((__s64)0xffff888000000000ULL, PTR));
	/* no convention: nothing fails */
	assert_false(kfit_ret_failed(-2, 4 | KFIT_RET_SIGNED));
	assert_false(kfit_ret_failed(-2, 0));
}

static void test_str(void **state)
{
	static const struct {
		__s64 v;
		__u8 kind;
		const char *want;
	} cases[] = {
		{ -ENOENT, LONG, "-ENOENT" },
		{ -EROFS, INT, "-EROFS" },
		{ 3, LONG, "3" },
		{ -ENOMEM, PTR, "-ENOMEM" },
		{ (__s64)0xffff888012345678ULL, PTR, "0xffff888012345678" },
		{ 0, PTR, "0x0" },
		{ -2, 4 | KFIT_RET_SIGNED, "-2" },
		{ (__s64)4294967295LL, 4, "4294967295" },
		{ -1, 8, "18446744073709551615" },
		{ -1, 0, "-1" },
		{ 0, KFIT_RET_VOID, "-" },
		/* in the range, but no errno of that number: the number */
		{ -4000, LONG, "-4000" },
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++)
		t_str_eq(cases[i].want, kfit_ret_str(cases[i].v, cases[i].kind, buf, sizeof(buf)),
			 cases[i].want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_value),
		cmocka_unit_test(test_failed),
		cmocka_unit_test(test_str),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
