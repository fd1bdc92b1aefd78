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
#include <bpf/libbpf.h>
#include <cmocka.h>
#include "testlib.h"
#include "diag.h"
#include "explain.h"

static void test_mech_names(void **state)
{
	enum kfit_mech m;

	(void)state;
	for (m = 0; m < KFIT_M_NR; m++)
		assert_int_equal(kfit_probe_mech_by_name(kfit_probe_mech_name(m)), m);
	assert_int_equal(kfit_probe_mech_by_name("fentry"), KFIT_M_FENTRY);
	assert_int_equal(kfit_probe_mech_by_name("raw_tracepoint"), KFIT_M_RAW_TP);
	assert_int_equal(kfit_probe_mech_by_name("kprobes"), KFIT_M_NR);
	assert_int_equal(kfit_probe_mech_by_name(""), KFIT_M_NR);
	assert_int_equal(kfit_probe_mech_by_name(NULL), KFIT_M_NR);
}

static enum kfit_mech mech;
static const char *kind;
static int error;

static void by_mech(void)
{
	kfit_explain(mech, "some_target", error);
}

static void by_kind(void)
{
	kfit_explain_attach(kind, "some_target", error);
}

static void assert_prefix(const char *s, const char *prefix)
{
	if (strncmp(s, prefix, strlen(prefix)))
		fail_msg("'%s' does not start with '%s'", s, prefix);
}

/*
 * What works here comes from the probes; the shape does not: what
 * failed, why, and the pointer to tracecheck. A name gives the same
 * words as its mechanism.
 */
static void test_explain(void **state)
{
	char a[2048], b[2048];

	(void)state;
	/* The probes run in the first explanation: keep libbpf's words out of it */
	libbpf_set_print(NULL);
	kfit_diag_setup("t", 0);
	mech = KFIT_M_TRACEPOINT;
	kind = "tracepoint";
	error = -EINVAL;
	t_stderr_of(by_mech, a, sizeof(a));
	assert_prefix(a, "t: cannot attach tracepoint to some_target: the kernel "
		      "rejected the request as invalid (EINVAL). ");
	assert_non_null(strstr(a, "; run tracecheck for details.\n"));
	assert_string_equal(t_stderr_of(by_kind, b, sizeof(b)), a);
	/* fentry: the fentry-specific reason, and where kprobes stand */
	mech = KFIT_M_FENTRY;
	kind = "fentry";
	error = -ESRCH;
	t_stderr_of(by_mech, a, sizeof(a));
	assert_prefix(a, "t: cannot attach fentry to some_target: the function is "
		      "not in the kernel's BTF");
	assert_true(strstr(a, "; kprobe works here. ") || strstr(a, "; kprobe: "));
	assert_string_equal(t_stderr_of(by_kind, b, sizeof(b)), a);
	/* A kind that is no mechanism: named as given, the errno's words */
	kind = "widget";
	error = -E2BIG;
	assert_prefix(t_stderr_of(by_kind, b, sizeof(b)),
		      "t: cannot attach widget to some_target: too big for this kernel (E2BIG). ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mech_names),
		cmocka_unit_test(test_explain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
