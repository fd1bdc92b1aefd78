// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "testlib.h"
#include "diag.h"

/* What fn wrote on stderr */
static const char *stderr_of(void (*fn)(void))
{
	static char buf[4096];

	return t_stderr_of(fn, buf, sizeof(buf));
}

static void say_all(void)
{
	kfit_err("e %d", 1);
	kfit_warn("w %s", "x");
	kfit_info("i");
	kfit_debug("d %d", 2);
}

static void test_messages_by_verbosity(void **state)
{
	(void)state;
	assert_string_equal(kfit_prog, "kfit");
	kfit_diag_setup("tool", 0);
	assert_int_equal(kfit_verbosity(), 0);
	assert_string_equal(stderr_of(say_all), "tool: e 1\ntool: warning: w x\ntool: i\n");
	kfit_diag_setup("other", 1);
	assert_int_equal(kfit_verbosity(), 1);
	assert_string_equal(stderr_of(say_all),
			    "other: e 1\nother: warning: w x\nother: i\nother: d 2\n");
	kfit_diag_setup("kfit", 0);
}

static void test_reasons(void **state)
{
	(void)state;
	assert_string_equal(kfit_reason(-EPERM), "operation not permitted (EPERM)");
	/* The kernel's ENOTSUPP (524) reads as EOPNOTSUPP */
	assert_string_equal(kfit_reason(-524), kfit_reason(-EOPNOTSUPP));
	assert_non_null(strstr(kfit_reason(-EACCES), "verifier"));
	/* Others: strerror's words */
	assert_string_equal(kfit_reason(-EMFILE), strerror(EMFILE));
	assert_non_null(strstr(kfit_fentry_reason(-EPERM), "refused ftrace-based attachment"));
	assert_non_null(strstr(kfit_fentry_reason(-ESRCH), "BTF"));
	assert_null(kfit_fentry_reason(-EINVAL));
	assert_null(kfit_fentry_reason(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_messages_by_verbosity),
		cmocka_unit_test(test_reasons),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
