// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <cmocka.h>
#include "ktarget.h"
#include "syscalls.h"
#include "testlib.h"

static void test_numbers(void **state)
{
	(void)state;
	assert_int_equal(kfit_syscall_nr("read"), 0);
	assert_int_equal(kfit_syscall_nr("write"), 1);
	assert_int_equal(kfit_syscall_nr("close"), 3);
	assert_int_equal(kfit_syscall_nr("openat"), 257);
	assert_int_equal(kfit_syscall_nr("exit_group"), 231);
	/* The table agrees with the C library's view of the same header */
	assert_int_equal(kfit_syscall_nr("clone3"), SYS_clone3);
	assert_int_equal(kfit_syscall_nr("nosuch_call"), -ENOENT);
	assert_int_equal(kfit_syscall_nr(""), -ENOENT);
	assert_int_equal(kfit_syscall_nr(NULL), -ENOENT);
	/* Names, not prefixes */
	assert_int_equal(kfit_syscall_nr("rea"), -ENOENT);
	assert_int_equal(kfit_syscall_nr("sys_read"), -ENOENT);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(kfit_syscall_name(0), "read");
	assert_string_equal(kfit_syscall_name(1), "write");
	assert_string_equal(kfit_syscall_name(257), "openat");
	assert_null(kfit_syscall_name(-1));
	assert_null(kfit_syscall_name(100000));
	/* 335 to 423 are unused on x86_64 */
	assert_null(kfit_syscall_name(400));
}

static void test_round_trip(void **state)
{
	const char *name;
	int nr, n = 0;

	(void)state;
	for (nr = 0; nr < 1024; nr++) {
		name = kfit_syscall_name(nr);
		if (!name)
			continue;
		n++;
		if (kfit_syscall_nr(name) != nr)
			fail_msg("%s: %d, not %d", name, kfit_syscall_nr(name), nr);
	}
	/* Debian 12's header has 0..334 and 424..450 */
	assert_true(n >= 350);
}

/* The live tracefs: skipped when it cannot be read (not root) */
static const char *tracefs_or_skip(void)
{
	const char *t = kfit_tracefs();
	char path[256];

	if (!t)
		skip();
	snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_read", t);
	if (access(path, F_OK))
		skip();
	return t;
}

static void test_tracepoints(void **state)
{
	char enter[64], exit[64], err[256], path[256];
	const char *t;

	(void)state;
	t = tracefs_or_skip();
	assert_int_equal(kfit_syscall_tracepoints("read", enter, sizeof(enter),
						  exit, sizeof(exit), err, sizeof(err)), 0);
	assert_string_equal(enter, "syscalls/sys_enter_read");
	assert_string_equal(exit, "syscalls/sys_exit_read");
	/* stat's tracepoint is newstat's */
	snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_newstat", t);
	if (!access(path, F_OK)) {
		assert_int_equal(kfit_syscall_tracepoints("stat", enter, sizeof(enter),
							  exit, sizeof(exit), err,
							  sizeof(err)), 0);
		assert_string_equal(enter, "syscalls/sys_enter_newstat");
		assert_string_equal(exit, "syscalls/sys_exit_newstat");
	}
	/* Too small a buffer */
	assert_int_equal(kfit_syscall_tracepoints("read", enter, 8, exit, sizeof(exit),
						  err, sizeof(err)), -ENAMETOOLONG);
}

static void test_no_tracepoint(void **state)
{
	char enter[64], exit[64], err[256];

	(void)state;
	/* Unknown names say so, and what is close, with or without tracefs */
	assert_int_equal(kfit_syscall_tracepoints("raed", enter, sizeof(enter),
						  exit, sizeof(exit), err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "no system call 'raed'; closest: read"));
	assert_int_equal(kfit_syscall_tracepoints("kfit_nosuch_call_at_all", enter,
						  sizeof(enter), exit, sizeof(exit),
						  err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "no system call 'kfit_nosuch_call_at_all'");
	assert_int_equal(kfit_syscall_tracepoints("../../x", enter, sizeof(enter),
						  exit, sizeof(exit), err, sizeof(err)),
			 -ENOENT);
	assert_int_equal(kfit_syscall_tracepoints("", enter, sizeof(enter),
						  exit, sizeof(exit), err, sizeof(err)),
			 -EINVAL);
}

static int find_match(const struct kfit_syscall_matches *g, const char *name)
{
	int i;

	for (i = 0; i < g->n; i++)
		if (!strcmp(g->v[i].name, name))
			return i;
	return -1;
}

static void test_glob(void **state)
{
	struct kfit_syscall_matches g;
	char err[256];
	int i;

	(void)state;
	tracefs_or_skip();
	assert_int_equal(kfit_syscall_glob("read*", &g, err, sizeof(err)), 0);
	assert_true(find_match(&g, "read") >= 0);
	assert_true(find_match(&g, "readv") >= 0);
	assert_true(find_match(&g, "readlinkat") >= 0);
	assert_int_equal(find_match(&g, "pread64"), -1);
	for (i = 1; i < g.n; i++)
		assert_true(strcmp(g.v[i - 1].name, g.v[i].name) < 0);
	kfit_syscall_matches_free(&g);
	assert_int_equal(g.n, 0);
	assert_null(g.v);
	/* The table's names, with their tracepoints' */
	assert_int_equal(kfit_syscall_glob("*stat", &g, err, sizeof(err)), 0);
	i = find_match(&g, "stat");
	assert_true(i >= 0);
	assert_string_equal(g.v[i].tp, "newstat");
	assert_int_equal(find_match(&g, "newstat"), -1);
	i = find_match(&g, "fstat");
	assert_true(i >= 0);
	assert_string_equal(g.v[i].tp, "newfstat");
	kfit_syscall_matches_free(&g);
	/* Every one: the known calls without tracepoints are said */
	assert_int_equal(kfit_syscall_glob("*", &g, err, sizeof(err)), 0);
	assert_true(g.n > 300);
	for (i = 0; i < g.nuntraced; i++)
		assert_true(kfit_syscall_nr(g.untraced[i]) >= 0);
	kfit_syscall_matches_free(&g);
	assert_int_equal(kfit_syscall_glob("zz_nosuch*", &g, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "no system call matches 'zz_nosuch*'");
	assert_int_equal(kfit_syscall_glob("", &g, err, sizeof(err)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_tracepoints),
		cmocka_unit_test(test_no_tracepoint),
	};

	return cmocka_run_group_tests(tests, t_kernel_fs_setup, NULL);
}
