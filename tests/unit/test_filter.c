// SPDX-License-Identifier: GPL-2.0
/*
 * --filter expressions (src/lib/targets/filter.c) run by the interpreter
 * the BPF side runs (include/kfit/filter.h). The oracle is the C
 * compiler: each case is written once, as C, and its text is what the
 * parser reads; C's precedence, C's values.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "filter.h"
#include "testlib.h"

/* The cases test C's precedence on purpose: no parentheses suggested */
#pragma GCC diagnostic ignored "-Wparentheses"

static const char *const names[] = { "size", "flags", "a", "b" };

/* The variables the cases read, C's and the interpreter's */
struct call {
	long long size, flags, a, b, ret, pid, tid, cpu;
};

static const struct call calls[] = {
	{ 4096, 1, -3, 7, -2, 100, 101, 0 },
	{ 8192, 0x41, 0, 0, 3, 1, 1, 1 },
	{ 0, 0, 5, -5, -4095, 7, 9, 3 },
	{ 1LL << 40, 0xff, -1, 1, 0, 2, 3, 1 },
	{ 4097, 2, 2, 2, -12, 42, 42, 2 },
};

#define EXPRS(X) \
	X(size > 4096 && flags & 1) \
	X(size > 4096 && (flags & 1)) \
	X(ret == -ENOENT) \
	X(ret < 0 && ret >= -4095) \
	X(!(pid == 1 || cpu >= 2)) \
	X(flags & 0x40) \
	X(a < b || a == b) \
	X(-a > 2) \
	X(!!flags) \
	X(- -a == a) \
	X(flags | 2 == 2) \
	X((flags | 2) == 2) \
	X(a & b | flags) \
	X(a == 1 || b == 1 && flags == 0xff) \
	X((a == 1 || b == 1) && flags == 0xff) \
	X(size >= 1099511627776) \
	X(tid != pid) \
	X(ret == -EPERM || ret == -ENOMEM || ret == -EACCES) \
	X(0) \
	X(1) \
	X(((((((a))))))) \
	X(a <= b != b <= a) \
	X(cpu == 0 == (cpu != 1)) \
	X(flags & 2 == 2) \
	X(a <= b) \
	X(size <= 4096)

/* The C value of each case, over one call */
static long long c_value(int i, const struct call *c)
{
	long long size = c->size, flags = c->flags, a = c->a, b = c->b, ret = c->ret;
	long long pid = c->pid, tid = c->tid, cpu = c->cpu;
	long long v[] = {
#define C_CASE(e) !!(e),
		EXPRS(C_CASE)
	};

	return v[i];
}

static const char *const texts[] = {
#define TEXT(e) #e,
	EXPRS(TEXT)
};

/* The interpreter's value of text over a call: 1, 0 */
static int k_value(const char *text, const struct call *c)
{
	struct kfit_filter f;
	struct kfit_fvals v = {
		.ret = c->ret, .pid = c->pid, .tid = c->tid, .cpu = c->cpu,
	};
	long long args[] = { c->size, c->flags, c->a, c->b };
	char err[256];
	int k, j, r;

	r = kfit_filter_parse(text, names, 4, &f, err, sizeof(err));
	if (r)
		fail_msg("'%s': %s", text, err);
	for (k = 0; k < f.nnames; k++) {
		for (j = 0; j < 4 && strcmp(names[j], f.names[k]); j++)
			;
		v.arg[k] = args[j];
		v.have |= 1U << k;
	}
	r = kfit_filter_run(f.insn, f.n, &v);
	kfit_filter_free(&f);
	return r;
}

static void test_like_c(void **state)
{
	size_t i, c;
	char what[512];

	(void)state;
	for (i = 0; i < T_N(texts); i++) {
		for (c = 0; c < T_N(calls); c++) {
			snprintf(what, sizeof(what), "'%s' over call %zu", texts[i], c);
			t_int_eq(what, k_value(texts[i], &calls[c]), c_value(i, &calls[c]));
		}
	}
}

/* An argument the call did not read: no value, the call left out */
static void test_no_value(void **state)
{
	struct kfit_filter f;
	struct kfit_fvals v = { .ret = 0 };
	char err[256];

	(void)state;
	assert_int_equal(kfit_filter_parse("ret == 0 || size > 1", names, 4, &f, err,
					   sizeof(err)), 0);
	assert_int_equal(kfit_filter_run(f.insn, f.n, &v), KFIT_FILTER_NOVAL);
	kfit_filter_free(&f);
}

static int comm_value(const char *text, bool eq)
{
	struct kfit_filter f;
	struct kfit_fvals v = { .comm_eq = eq };
	char err[256];
	int r;

	assert_int_equal(kfit_filter_parse(text, names, 4, &f, err, sizeof(err)), 0);
	assert_string_equal(f.comm, "bash");
	r = kfit_filter_run(f.insn, f.n, &v);
	kfit_filter_free(&f);
	return r;
}

static void test_comm(void **state)
{
	(void)state;
	assert_int_equal(comm_value("comm == \"bash\"", true), 1);
	assert_int_equal(comm_value("comm == \"bash\"", false), 0);
	assert_int_equal(comm_value("comm != \"bash\"", true), 0);
	assert_int_equal(comm_value("comm != \"bash\" && 1", false), 1);
}

/* Bad expressions: -EINVAL, the column and the reason in the message */
static void test_errors(void **state)
{
	static const struct {
		const char *expr, *want;
	} cases[] = {
		{ "", "column 1: the expression ends too early" },
		{ "size >", "column 7: the expression ends too early" },
		{ "sizee > 1", "column 1: unknown name 'sizee' (size, flags, a, b, ret" },
		{ "size > 1)", "')' was not expected" },
		{ "(size > 1", "a ')' was expected" },
		{ "size >> 1", "column 6: '>> 1' was not expected" },
		{ "size > > 1", "column 8: a number, a name or '(' was expected" },
		{ "size = 1", "'= 1' was not expected" },
		{ "12abc", "a bad number" },
		{ "99999999999999999999", "a bad number" },
		{ "comm > \"x\"", "comm is compared with == or !=" },
		{ "comm == bash", "a \"string\" was expected" },
		{ "comm == \"a-very-long-command\"", "at most 15 characters" },
		{ "comm == \"a\" && comm == \"b\"", "comm is compared once" },
		{ "1 || 2 || 3 || 4 || 5 || 6 || 7 || 8 || 9 || 10 || 11 || 12 || 13 || 14 || 15 || 16 || 17", "too long" },
		{ "1 + 2", "'+ 2' was not expected" },
	};
	struct kfit_filter f;
	char err[512], what[600];
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		snprintf(what, sizeof(what), "'%s'", cases[i].expr);
		err[0] = '\0';
		t_int_eq(what, kfit_filter_parse(cases[i].expr, names, 4, &f, err,
						 sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].want))
			fail_msg("%s: '%s' does not say '%s'", what, err, cases[i].want);
	}
}

/* Deep nesting: refused, never past the interpreter's stack */
static void test_depth(void **state)
{
	struct kfit_filter f;
	char err[256], deep[512];
	int i, at = 0;

	(void)state;
	for (i = 0; i < 9; i++)
		at += snprintf(deep + at, sizeof(deep) - at, "(1 == ");
	at += snprintf(deep + at, sizeof(deep) - at, "1");
	for (i = 0; i < 9; i++)
		at += snprintf(deep + at, sizeof(deep) - at, ")");
	assert_int_equal(kfit_filter_parse(deep, names, 4, &f, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "too deeply nested"));
}

/* NULL names: any name is an argument (the loader's first look) */
static void test_any_name(void **state)
{
	struct kfit_filter f;
	char err[256];

	(void)state;
	assert_int_equal(kfit_filter_parse("x->y.z > 1 && w", NULL, 0, &f, err, sizeof(err)), 0);
	assert_int_equal(f.nnames, 2);
	assert_string_equal(f.names[0], "x->y.z");
	assert_string_equal(f.names[1], "w");
	assert_true(f.has_op);
	kfit_filter_free(&f);
	assert_int_equal(kfit_filter_parse("do_fork", NULL, 0, &f, err, sizeof(err)), 0);
	assert_false(f.has_op);
	kfit_filter_free(&f);
	assert_int_equal(kfit_filter_parse("sys:openat", NULL, 0, &f, err, sizeof(err)), -EINVAL);
	assert_int_equal(kfit_filter_parse("vfs_*", NULL, 0, &f, err, sizeof(err)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_like_c),
		cmocka_unit_test(test_no_value),
		cmocka_unit_test(test_comm),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_any_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
