// SPDX-License-Identifier: GPL-2.0
/*
 * bootsum --funcs' module against the kernel: a recording of a system
 * call (tracepoints, which this host has) that outlives nothing but its
 * pins, read back pinned and by map id, turned off, removed; and the
 * failures a report must explain. Needs root; skipped otherwise (not
 * under CI=true). The kernel-function side runs in the VM
 * (tests/vm/test_bootsum_funcs.sh).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <cmocka.h>
#include "bootfuncs.h"
#include "diag.h"
#include "output.h"
#include "pin.h"
#include "probe.h"
#include "testlib.h"

/* Nobody else calls it: every call counted is ours */
#define SYSCALL		"sys:sched_get_priority_max"
#define CALLS		37

static char dir[64];

static void need_root(void)
{
	const char *ci = getenv("CI");

	if (geteuid() == 0 && kfit_probe_works(KFIT_M_TRACEPOINT))
		return;
	if (ci && !strcmp(ci, "true"))
		fail_msg("needs root and tracepoints");
	skip();
}

static void calls(int n)
{
	while (n--)
		syscall(SYS_sched_get_priority_max, 0);
}

/* The JSON "functions" object of b */
static char *json_of(const struct kfit_bootfuncs *b)
{
	struct kfit_json j;
	struct t_cap c;

	kfit_json_init(&j, t_cap_open(&c), false);
	kfit_json_begin_object(&j, NULL);
	kfit_bootfuncs_json(&j, b);
	kfit_json_end_object(&j);
	kfit_json_finish(&j);
	return t_cap_close(&c);
}

static char *text_of(const struct kfit_bootfuncs *b)
{
	struct t_cap c;

	kfit_bootfuncs_text(t_cap_open(&c), b);
	return t_cap_close(&c);
}

static void assert_has(const char *s, const char *what)
{
	if (!strstr(s, what))
		fail_msg("'%s' not in: %s", what, s);
}

static void assert_count(const struct kfit_bootfuncs *b, int n)
{
	char want[32], *js = json_of(b);

	snprintf(want, sizeof(want), "\"count\":%d,", n);
	assert_has(js, want);
	free(js);
}

static __u32 start(const char *glob, __u64 min_ns, int want_err)
{
	struct kfit_bootfuncs_opts o = { .glob = glob, .min_ns = min_ns };
	char why[200];
	__u32 id = 0;
	int r;

	r = kfit_bootfuncs_start(dir, &o, &id, why, sizeof(why));
	if (want_err && !r)
		fail_msg("%s: started, expected a failure", glob);
	if (!want_err && r)
		fail_msg("%s: %s", glob, why);
	assert_true(id != 0);
	return id;
}

static void test_record_read_remove(void **state)
{
	struct kfit_bootfuncs *b;
	char path[128], *s;
	__u64 kib;
	__u32 id;

	(void)state;
	need_root();
	id = start(SYSCALL, 0, 0);
	snprintf(path, sizeof(path), "%s/funcs/link_0", dir);
	assert_int_equal(access(path, F_OK), 0);
	calls(CALLS);
	/* pinned */
	assert_int_equal(kfit_bootfuncs_open(dir, 0, 0, &b), 0);
	assert_count(b, CALLS);
	s = json_of(b);
	assert_has(s, "\"recorded\":true");
	assert_has(s, "\"mechanism\":\"tracepoint\"");
	assert_has(s, "\"found\":\"pinned at ");
	free(s);
	s = text_of(b);
	assert_has(s, "Functions (--funcs " SYSCALL " --min 0ns, 1 traced by tracepoint");
	assert_has(s, SYSCALL);
	free(s);
	kfit_bootfuncs_free(b);
	/* a report leaves the figures as they are */
	calls(3);
	assert_int_equal(kfit_bootfuncs_open(dir, 0, 0, &b), 0);
	assert_count(b, CALLS + 3);
	kfit_bootfuncs_free(b);
	/* by map id, the pins out of reach (another dir) */
	assert_int_equal(kfit_bootfuncs_open("/nonexistent", id, 0, &b), 0);
	s = json_of(b);
	assert_has(s, "\"found\":\"by map id ");
	free(s);
	assert_count(b, CALLS + 3);
	kfit_bootfuncs_free(b);
	/* turned off: no call counted any more */
	assert_int_equal(kfit_bootfuncs_disable(id, &kib), 0);
	assert_true(kib > 0);
	calls(5);
	assert_int_equal(kfit_bootfuncs_open(dir, 0, 0, &b), 0);
	assert_count(b, CALLS + 3);
	kfit_bootfuncs_free(b);
	/* removed: everything goes */
	assert_int_equal(kfit_bootfuncs_remove(dir), 1);
	assert_int_equal(kfit_bootfuncs_remove(dir), 0);
	assert_int_equal(kfit_bootfuncs_open(dir, id, 0, &b), -ENOENT);
	assert_true(kfit_pin_map_by_id(id) < 0);
}

/* --min: shorter calls are counted as filtered only */
static void test_min(void **state)
{
	struct kfit_bootfuncs *b;
	char *s;

	(void)state;
	need_root();
	start(SYSCALL, 3600ULL * 1000000000ULL, 0);
	calls(CALLS);
	assert_int_equal(kfit_bootfuncs_open(dir, 0, 0, &b), 0);
	s = json_of(b);
	assert_has(s, "\"min_ns\":3600000000000");
	assert_has(s, "\"filtered\":37");
	free(s);
	s = text_of(b);
	assert_has(s, "37 calls outside [3600s, inf] left out");
	free(s);
	kfit_bootfuncs_free(b);
	assert_int_equal(kfit_bootfuncs_remove(dir), 1);
}

/* Nothing recorded: the report says why, from the table alone */
static void test_unknown_function(void **state)
{
	struct kfit_bootfuncs *b;
	char *s;
	__u32 id;

	(void)state;
	need_root();
	id = start("no_such_function_kfit", 0, 1);
	assert_int_equal(kfit_bootfuncs_open("/nonexistent", id, 0, &b), 0);
	s = text_of(b);
	assert_has(s, "Functions (--funcs no_such_function_kfit): not recorded: ");
	free(s);
	s = json_of(b);
	assert_has(s, "\"recorded\":false");
	assert_has(s, "\"why\":\"");
	free(s);
	kfit_bootfuncs_free(b);
	assert_int_equal(kfit_bootfuncs_remove(dir), 1);
}

/* Where neither fentry nor kprobes work (this host): said, nothing attached */
static void test_kernel_function_refused(void **state)
{
	struct kfit_bootfuncs *b;
	char *s;

	(void)state;
	need_root();
	if (kfit_probe_works(KFIT_M_FENTRY) || kfit_probe_works(KFIT_M_KPROBE))
		skip();
	start("vfs_read", 0, 1);
	assert_int_equal(kfit_bootfuncs_open(dir, 0, 0, &b), 0);
	s = text_of(b);
	assert_has(s, "not recorded: fentry: ");
	assert_has(s, "; kprobe: ");
	free(s);
	kfit_bootfuncs_free(b);
	assert_int_equal(kfit_bootfuncs_remove(dir), 1);
}

static int setup(void **state)
{
	kfit_diag_setup("test_bootfuncs", 0);
	t_kernel_fs_setup(state);
	snprintf(dir, sizeof(dir), "%s/test-bootfuncs-%d", KFIT_PIN_ROOT, (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	kfit_bootfuncs_remove(dir);
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_read_remove),
		cmocka_unit_test(test_min),
		cmocka_unit_test(test_unknown_function),
		cmocka_unit_test(test_kernel_function_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
