// SPDX-License-Identifier: GPL-2.0
/*
 * The TARGET grammar (target.c) and the deny list (deny.c), over the live
 * system's kallsyms, tracefs and libc: no BPF is loaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "deny.h"
#include "target.h"
#include "testlib.h"

static void test_deny_machinery(void **state)
{
	static const char *const denied[] = {
		"bpf_map_lookup_elem", "bpf_ringbuf_reserve", "__bpf_prog_enter",
		"htab_map_update_elem", "_raw_spin_lock_irqsave", "queued_spin_lock_slowpath",
		"rcu_read_unlock_strict", "__rcu_read_lock", "migrate_disable",
		"preempt_count_add", "trace_hardirqs_off", "ftrace_ops_list_func",
		"kprobe_ftrace_handler", "pre_handler_kretprobe", "rethook_trampoline_handler",
		"ktime_get_mono_fast_ns", "sched_clock", "exc_nmi", "default_do_nmi",
		"__asan_load8", "irq_enter_rcu",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
		const char *why = kfit_deny_reason(denied[i]);

		if (!why)
			fail_msg("%s is not denied", denied[i]);
		assert_true(strlen(why) > 10);
	}
}

static void test_deny_leaves_work_alone(void **state)
{
	static const char *const allowed[] = {
		"vfs_read", "tcp_sendmsg", "kernel_clone", "do_sys_openat2",
		"schedule", "ext4_file_write_iter", "ip_rcv", "spin_lock_test",
		"arcu_x", "mybpf_func", "",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (kfit_deny_reason(allowed[i]))
			fail_msg("%s is denied: %s", allowed[i],
				 kfit_deny_reason(allowed[i]));
	assert_null(kfit_deny_reason(NULL));
}

static void test_sys_target(void **state)
{
	struct kfit_targets t = {};

	(void)state;
	assert_int_equal(kfit_targets_add(&t, "sys:read"), 0);
	assert_int_equal(kfit_targets_add(&t, "sys:read"), 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.nsys, 1);
	assert_int_equal(t.funcs[0].kind, KFIT_TARGETS_SYS);
	assert_string_equal(t.funcs[0].name, "sys:read");
	assert_int_equal(kfit_targets_find(&t, "sys:read"), 0);
	assert_int_equal(kfit_targets_first(&t, KFIT_TARGETS_KERNEL), -1);
	assert_int_equal(kfit_targets_add(&t, "sys:no_such_call"), -EINVAL);
	assert_int_equal(t.n, 1);
	kfit_targets_free(&t);
	assert_int_equal(t.n, 0);
	assert_null(t.funcs);
}

static void test_max(void **state)
{
	struct kfit_targets t = { .max = 1 };

	(void)state;
	assert_int_equal(kfit_targets_add(&t, "sys:read"), 0);
	assert_int_equal(kfit_targets_add(&t, "sys:write"), -E2BIG);
	assert_int_equal(t.n, 1);
	kfit_targets_free(&t);
}

static void test_kernel_denied_then_allowed(void **state)
{
	struct kfit_targets t = {};

	(void)state;
	assert_int_equal(kfit_targets_add(&t, "_raw_spin_lock"), 0);
	assert_int_equal(t.n, 0);
	assert_int_equal(t.nskipped, 1);
	assert_string_equal(t.skipped[0].name, "_raw_spin_lock");
	assert_non_null(strstr(t.skipped[0].reason, "denied by default"));
	assert_non_null(strstr(t.skipped[0].reason, "--no-deny"));
	kfit_targets_free(&t);

	t.no_deny = true;
	assert_int_equal(kfit_targets_add(&t, "_raw_spin_lock"), 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.nkernel, 1);
	assert_int_equal(t.funcs[0].kind, KFIT_TARGETS_KERNEL);
	kfit_targets_free(&t);
}

static void test_kernel_and_trigger(void **state)
{
	struct kfit_targets t = {};
	int i;

	(void)state;
	assert_int_equal(kfit_targets_add(&t, "vfs_read"), 0);
	assert_int_equal(t.n, 1);
	/* A trigger already traced is that function */
	assert_int_equal(kfit_targets_one(&t, "vfs_read"), 0);
	/* A new one is added */
	i = kfit_targets_one(&t, "vfs_write");
	assert_int_equal(i, 1);
	assert_string_equal(t.funcs[i].name, "vfs_write");
	/* A trigger names one function, never a set */
	assert_int_equal(kfit_targets_one(&t, "vfs_*"), -EINVAL);
	assert_int_equal(kfit_targets_add(&t, "no_such_function_xyz"), -EINVAL);
	kfit_targets_free(&t);
}

static void test_user_target(void **state)
{
	struct kfit_targets t = {};

	(void)state;
	assert_int_equal(kfit_targets_add(&t, "c:malloc"), 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.nuser, 1);
	assert_int_equal(t.funcs[0].kind, KFIT_TARGETS_USER);
	assert_non_null(t.funcs[0].path);
	assert_non_null(strstr(t.funcs[0].path, "libc"));
	assert_int_equal(kfit_targets_one(&t, "c:malloc"), 0);
	assert_int_equal(kfit_targets_add(&t, "/bin/true:no_such_function"), -EINVAL);
	kfit_targets_free(&t);
}

static void test_sys_glob(void **state)
{
	struct kfit_targets t = {};
	bool read = false, readv = false, write = false;
	int i;

	(void)state;
	assert_int_equal(kfit_targets_add(&t, "sys:read*"), 0);
	assert_true(t.n >= 4);
	assert_int_equal(t.nsys, t.n);
	for (i = 0; i < t.n; i++) {
		assert_int_equal(t.funcs[i].kind, KFIT_TARGETS_SYS);
		assert_int_equal(strncmp(t.funcs[i].name, "sys:read", 8), 0);
		read |= !strcmp(t.funcs[i].name, "sys:read");
		readv |= !strcmp(t.funcs[i].name, "sys:readv");
	}
	assert_true(read && readv);
	/* Each once, a glob or not */
	i = t.n;
	assert_int_equal(kfit_targets_add(&t, "sys:read"), 0);
	assert_int_equal(kfit_targets_add(&t, "sys:read?"), 0);
	assert_int_equal(t.n, i);
	kfit_targets_free(&t);

	/* Every call with tracepoints; the others skipped with the reason */
	assert_int_equal(kfit_targets_add(&t, "sys:*"), 0);
	assert_true(t.n > 300);
	for (i = 0; i < t.n; i++)
		write |= !strcmp(t.funcs[i].name, "sys:write");
	assert_true(write);
	for (i = 0; i < t.nskipped; i++)
		assert_non_null(strstr(t.skipped[i].reason, "no tracepoint"));
	kfit_targets_free(&t);

	assert_int_equal(kfit_targets_add(&t, "sys:zz_no_such*"), -EINVAL);
	assert_int_equal(t.n, 0);
	kfit_targets_free(&t);
}

/* stat's tracepoints are newstat's: the name as typed, the tracepoint found */
static void test_sys_tp_name(void **state)
{
	struct kfit_targets t = {};
	int i;

	(void)state;
	assert_int_equal(kfit_targets_add(&t, "sys:stat"), 0);
	assert_string_equal(t.funcs[0].name, "sys:stat");
	assert_string_equal(t.funcs[0].path, "newstat");
	assert_int_equal(kfit_targets_add(&t, "sys:*stat"), 0);
	i = kfit_targets_find(&t, "sys:fstat");
	assert_true(i > 0);
	assert_string_equal(t.funcs[i].path, "newfstat");
	assert_int_equal(kfit_targets_find(&t, "sys:newfstat"), -1);
	kfit_targets_free(&t);
}

static void test_describe(void **state)
{
	struct kfit_targets t = {};
	char buf[192];

	(void)state;
	assert_int_equal(kfit_targets_add(&t, "c:malloc"), 0);
	assert_string_equal(kfit_targets_describe(&t, "uprobe", buf, sizeof(buf)),
			    "1 function (uprobe)");
	assert_int_equal(kfit_targets_add(&t, "sys:read"), 0);
	assert_int_equal(kfit_targets_add(&t, "sys:write"), 0);
	assert_string_equal(kfit_targets_describe(&t, "uprobe", buf, sizeof(buf)),
			    "1 function (uprobe) and 2 system calls (tracepoints)");
	assert_int_equal(kfit_targets_add(&t, "vfs_read"), 0);
	assert_string_equal(kfit_targets_describe(&t, "fentry", buf, sizeof(buf)),
			    "1 kernel function (fentry), 1 user function (uprobe) and "
			    "2 system calls (tracepoints)");
	/* Dropped at attach: not traced */
	t.funcs[0].dropped = true;
	t.funcs[2].dropped = true;
	assert_string_equal(kfit_targets_describe(&t, "kprobe", buf, sizeof(buf)),
			    "1 function (kprobe) and 1 system call (tracepoint)");
	kfit_targets_free(&t);
	assert_int_equal(kfit_targets_add(&t, "sys:read"), 0);
	assert_string_equal(kfit_targets_describe(&t, "tracepoint", buf, sizeof(buf)),
			    "1 system call (tracepoint)");
	/* Too small a buffer: cut, never past it */
	assert_int_equal(strlen(kfit_targets_describe(&t, "x", buf, 8)), 7);
	kfit_targets_free(&t);
}

/* User functions with no normal return are skipped with the reason */
static void test_user_skipped(void **state)
{
	struct kfit_targets t = {};
	int i;

	(void)state;
	assert_int_equal(kfit_targets_add(&t, "c:*exit"), 0);
	assert_true(t.nskipped >= 2);
	for (i = 0; i < t.n; i++)
		assert_string_not_equal(t.funcs[i].name, "exit");
	assert_int_equal(kfit_targets_add(&t, "c:exit"), -EINVAL);
	/* Every user function has the offset of its code */
	for (i = 0; i < t.n; i++)
		assert_true(t.funcs[i].offset > 0);
	kfit_targets_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deny_machinery),
		cmocka_unit_test(test_deny_leaves_work_alone),
		cmocka_unit_test(test_sys_target),
		cmocka_unit_test(test_max),
		cmocka_unit_test(test_kernel_denied_then_allowed),
		cmocka_unit_test(test_kernel_and_trigger),
		cmocka_unit_test(test_user_target),
		cmocka_unit_test(test_sys_glob),
		cmocka_unit_test(test_sys_tp_name),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_user_skipped),
	};

	return cmocka_run_group_tests(tests, t_kernel_fs_setup, NULL);
}
