// SPDX-License-Identifier: GPL-2.0
/* tpglob: CATEGORY:NAME globs over a fixture tracefs */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "testlib.h"
#include "tpglob.h"

static char dir[] = "/tmp/kfit-tpglob-XXXXXX";

/* A tracepoint with a format whose last field ends at end */
static void add(const char *cat, const char *name, int end)
{
	assert_int_equal(t_sh("mkdir -p %s/events/%s/%s && printf '"
			      "name: %s\\nformat:\\n\\tfield:unsigned short common_type;"
			      "\\toffset:0;\\tsize:2;\\tsigned:0;\\n\\tfield:int x;"
			      "\\toffset:%d;\\tsize:4;\\tsigned:1;\\n' > %s/events/%s/%s/format",
			      dir, cat, name, name, end - 4, dir, cat, name), 0);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	add("sched", "sched_switch", 64);
	add("sched", "sched_wakeup", 36);
	add("sched", "sched_wakeup_new", 36);
	add("irq", "softirq_entry", 12);
	add("irq", "irq_handler_entry", 16);
	/* files beside the categories are no tracepoints */
	return t_sh("touch %s/events/enable %s/events/sched/enable", dir, dir);
}

static int teardown(void **state)
{
	(void)state;
	return t_rm_rf(dir);
}

static void test_exact_and_sizes(void **state)
{
	struct kfit_tpglob t = { 0 };
	char err[256];

	(void)state;
	assert_int_equal(kfit_tpglob_add(&t, dir, "sched:sched_switch", err, sizeof(err)), 0);
	assert_int_equal(t.n, 1);
	assert_string_equal(t.tp[0].name, "sched:sched_switch");
	assert_int_equal(t.tp[0].size, 64);
	kfit_tpglob_free(&t);
}

static void test_globs_sorted_once(void **state)
{
	struct kfit_tpglob t = { 0 };
	char err[256];

	(void)state;
	assert_int_equal(kfit_tpglob_add(&t, dir, "sched:sched_wake*", err, sizeof(err)), 0);
	assert_int_equal(t.n, 2);
	assert_string_equal(t.tp[0].name, "sched:sched_wakeup");
	assert_string_equal(t.tp[1].name, "sched:sched_wakeup_new");
	assert_int_equal(t.tp[1].size, 36);
	/* added again: each once, in the order first added */
	assert_int_equal(kfit_tpglob_add(&t, dir, "*:*", err, sizeof(err)), 0);
	assert_int_equal(t.n, 5);
	assert_string_equal(t.tp[2].name, "irq:irq_handler_entry");
	assert_string_equal(t.tp[3].name, "irq:softirq_entry");
	assert_string_equal(t.tp[4].name, "sched:sched_switch");
	kfit_tpglob_free(&t);
	assert_int_equal(t.n, 0);
}

static void test_errors(void **state)
{
	struct kfit_tpglob t = { 0 };
	char err[256];

	(void)state;
	assert_int_equal(kfit_tpglob_add(&t, dir, "sched", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "CATEGORY:NAME"));
	assert_int_equal(kfit_tpglob_add(&t, dir, ":x", err, sizeof(err)), -EINVAL);
	assert_int_equal(kfit_tpglob_add(&t, dir, "sched:", err, sizeof(err)), -EINVAL);
	assert_int_equal(kfit_tpglob_add(&t, dir, "sched:sched_swtich", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no tracepoint matches 'sched:sched_swtich'"));
	assert_non_null(strstr(err, "closest: sched_switch"));
	assert_int_equal(kfit_tpglob_add(&t, dir, "shced:*", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "closest: sched"));
	assert_int_equal(kfit_tpglob_add(&t, dir, "net:*", err, sizeof(err)), -ENOENT);
	assert_int_equal(t.n, 0);
	assert_int_equal(kfit_tpglob_add(&t, "/nonexistent", "sched:*", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot look up tracepoint"));
	kfit_tpglob_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_and_sizes),
		cmocka_unit_test(test_globs_sorted_once),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
