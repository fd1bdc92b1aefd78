// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <cmocka.h>
#include "btf.h"
#include "kfit/ret.h"

/* btf_sample.bpf.o is built next to this test binary */
static int setup(void **state)
{
	char exe[PATH_MAX], obj[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct btf *btf;

	if (n < 0)
		return -1;
	exe[n] = '\0';
	snprintf(obj, sizeof(obj), "%s/btf_sample.bpf.o", dirname(exe));
	btf = btf__parse_elf(obj, NULL);
	if (!btf) {
		fprintf(stderr, "cannot read BTF from %s: %s\n", obj,
			strerror(errno));
		return -1;
	}
	*state = btf;
	return 0;
}

static int teardown(void **state)
{
	btf__free(*state);
	return 0;
}

static void test_func_nargs(void **state)
{
	const struct btf *btf = *state;

	assert_int_equal(kfit_btf_func_nargs(btf, "kfit_sample_zero"), 0);
	assert_int_equal(kfit_btf_func_nargs(btf, "kfit_sample_two"), 2);
	assert_int_equal(kfit_btf_func_nargs(btf, "kfit_sample_three"), 3);
	assert_int_equal(kfit_btf_func_nargs(btf, "kfit_sample_four"), -ENOENT);
	/* A struct is not a function */
	assert_int_equal(kfit_btf_func_nargs(btf, "kfit_sample"), -ENOENT);
	assert_int_equal(kfit_btf_func_nargs(btf, NULL), -EINVAL);
	assert_int_equal(kfit_btf_func_nargs(NULL, "kfit_sample_two"), -EINVAL);
}

/* Return kinds: an int's -errno, a pointer's ERR_PTR, the rest by size and sign */
static void test_func_ret(void **state)
{
	static const struct {
		const char *name;
		int want;
	} cases[] = {
		{ "kfit_sample_zero", 4 | KFIT_RET_SIGNED | KFIT_RET_ERRNO },
		{ "kfit_sample_ret_long", 8 | KFIT_RET_SIGNED | KFIT_RET_ERRNO },
		{ "kfit_sample_ret_uint", 4 },
		{ "kfit_sample_ret_ptr", 8 | KFIT_RET_PTR | KFIT_RET_SIGNED | KFIT_RET_ERRNO },
		{ "kfit_sample_ret_bool", 1 },
		{ "kfit_sample_ret_short", 2 | KFIT_RET_SIGNED },
		{ "kfit_sample_ret_enum", 4 | KFIT_RET_SIGNED },
		{ "kfit_sample_ret_void", KFIT_RET_VOID },
		{ "kfit_sample_none", -ENOENT },
		{ "kfit_sample", -ENOENT },
	};
	const struct btf *btf = *state;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got = kfit_btf_func_ret(btf, cases[i].name);

		if (got != cases[i].want)
			fail_msg("%s: %d, want %d", cases[i].name, got, cases[i].want);
	}
	assert_int_equal(kfit_btf_func_ret(NULL, "kfit_sample_zero"), -EINVAL);
}

static void test_has_func(void **state)
{
	const struct btf *btf = *state;

	assert_true(kfit_btf_has_func(btf, "kfit_sample_zero"));
	assert_true(kfit_btf_has_func(btf, "kfit_sample_three"));
	assert_false(kfit_btf_has_func(btf, "kfit_sample_thre"));
	assert_false(kfit_btf_has_func(btf, "int"));
	assert_false(kfit_btf_has_func(NULL, "kfit_sample_zero"));
}

static void test_has_field(void **state)
{
	const struct btf *btf = *state;

	assert_true(kfit_btf_has_field(btf, "kfit_sample", "a"));
	assert_true(kfit_btf_has_field(btf, "kfit_sample", "b"));
	/* In an anonymous union, and a struct inside that union */
	assert_true(kfit_btf_has_field(btf, "kfit_sample", "c"));
	assert_true(kfit_btf_has_field(btf, "kfit_sample", "d"));
	assert_true(kfit_btf_has_field(btf, "kfit_sample", "f"));
	assert_true(kfit_btf_has_field(btf, "kfit_sample", "g"));
	assert_false(kfit_btf_has_field(btf, "kfit_sample", "h"));
	assert_false(kfit_btf_has_field(btf, "kfit_sample", ""));
	assert_false(kfit_btf_has_field(btf, "kfit_sample", "x"));
	assert_false(kfit_btf_has_field(btf, "kfit_nothing", "a"));
	assert_false(kfit_btf_has_field(btf, "kfit_sample_two", "x"));
	assert_false(kfit_btf_has_field(NULL, "kfit_sample", "a"));
}

static void test_module_count(void **state)
{
	struct dirent *e;
	int n = 0;
	DIR *d;

	(void)state;
	d = opendir("/sys/kernel/btf");
	if (!d) {
		assert_true(kfit_btf_module_count() < 0);
		return;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    strcmp(e->d_name, "vmlinux"))
			n++;
	closedir(d);
	assert_int_equal(kfit_btf_module_count(), n);
}

/* Only where the running kernel has BTF */
static void test_vmlinux(void **state)
{
	struct btf *btf;

	(void)state;
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		skip();
	btf = kfit_btf_vmlinux();
	assert_non_null(btf);
	assert_ptr_equal(kfit_btf_vmlinux(), btf);
	assert_int_equal(kfit_btf_func_nargs(btf, "vfs_read"), 4);
	assert_true(kfit_btf_has_field(btf, "task_struct", "pid"));
	assert_false(kfit_btf_has_func(btf, "kfit_no_such_function"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_func_nargs),
		cmocka_unit_test(test_has_func),
		cmocka_unit_test(test_func_ret),
		cmocka_unit_test(test_has_field),
		cmocka_unit_test(test_module_count),
		cmocka_unit_test(test_vmlinux),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
