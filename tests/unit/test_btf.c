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
#include "argpath.h"
#include "btf.h"
#include "arg_cases.h"
#include "testlib.h"
#include "kfit/args.h"
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

/* ---- kfit_btf_arg: paths on btf_sample.h's structures ------------------- */

/* path ("o->in.leaf->label") split at '->' and '.' for kfit_btf_arg */
static int arg(const struct btf *btf, const char *func, const char *path,
	       struct kfit_argpath *a, char *err, size_t errlen)
{
	char buf[256], *seg[16];
	bool arrow[16];
	int n = arg_split(path, buf, sizeof(buf), seg, arrow, 16);

	err[0] = '\0';
	memset(a, 0xa5, sizeof(*a));
	return kfit_btf_arg(btf, func, (const char *const *)seg, arrow, n, a, err, errlen);
}

/* Each path's parameter, hops and kind, the hops' offsets the compiler's */
static void test_arg_paths(void **state)
{
	const struct btf *btf = *state;
	struct kfit_argpath a;
	char err[256];
	size_t i;

	for (i = 0; i < T_N(arg_cases); i++) {
		const char *name = arg_cases[i].path;

		t_int_eq(name, arg(btf, "kfit_arg_fn", name, &a, err, sizeof(err)), 0);
		t_str_eq(name, err, "");
		arg_check(&arg_cases[i], &a, true);
		t_int_eq(name, a.enum_id != 0, !strcmp(name, "c") || !strcmp(name, "o->color") ||
			 !strcmp(name, "o->tint"));
	}
}

/* An enum's id: the type whose values name the numbers */
static void test_arg_enum(void **state)
{
	const struct btf *btf = *state;
	const struct btf_type *t;
	struct kfit_argpath a;
	char err[256];
	int id = btf__find_by_name_kind(btf, "kfit_arg_color", BTF_KIND_ENUM);

	assert_true(id > 0);
	assert_int_equal(arg(btf, "kfit_arg_fn", "c", &a, err, sizeof(err)), 0);
	assert_int_equal(a.enum_id, id);
	assert_int_equal(arg(btf, "kfit_arg_fn", "o->color", &a, err, sizeof(err)), 0);
	assert_int_equal(a.enum_id, id);
	/* the enum itself, not its typedef */
	assert_int_equal(arg(btf, "kfit_arg_fn", "o->tint", &a, err, sizeof(err)), 0);
	assert_int_equal(a.enum_id, id);
	t = btf__type_by_id(btf, a.enum_id);
	assert_int_equal(btf_vlen(t), 2);
	assert_string_equal(btf__name_by_offset(btf, btf_enum(t)[1].name_off), "KFIT_ARG_BLUE");
	assert_int_equal(btf_enum(t)[1].val, KFIT_ARG_BLUE);
}

static void test_arg_refused(void **state)
{
	static const struct {
		const char *func, *path;
		int rc;
		const char *says;
	} cases[] = {
		{ "kfit_arg_nosuch", "x", -ENOENT, "kfit_arg_nosuch has no type information" },
		/* a structure is not a function */
		{ "kfit_arg_outer", "c", -ENOENT, "no type information" },
		/* an offset a hop cannot hold (a __u16) */
		{ "kfit_arg_big_fn", "big->b.z", -EINVAL, "too far" },
	};
	const struct btf *btf = *state;
	struct kfit_argpath a;
	char err[256];
	size_t i;

	for (i = 0; i < T_N(arg_refusals); i++) {
		const char *name = arg_refusals[i].path;

		t_int_eq(name, arg(btf, "kfit_arg_fn", name, &a, err, sizeof(err)),
			 arg_refusals[i].rc);
		if (!t_has(err, arg_refusals[i].says))
			fail_msg("%s: '%s' does not say '%s'", name, err, arg_refusals[i].says);
	}
	for (i = 0; i < T_N(cases); i++) {
		const char *name = cases[i].path;

		t_int_eq(name, arg(btf, cases[i].func, name, &a, err, sizeof(err)), cases[i].rc);
		if (!t_has(err, cases[i].says))
			fail_msg("%s: '%s' does not say '%s'", name, err, cases[i].says);
	}
}

/* Offsets up to 0xffff are kept whole */
static void test_arg_far(void **state)
{
	const struct btf *btf = *state;
	struct kfit_argpath a;
	char err[256];

	assert_int_equal(arg(btf, "kfit_arg_big_fn", "big->b.pad2", &a, err, sizeof(err)), 0);
	assert_int_equal(a.off[0], offsetof(struct kfit_arg_big, b.pad2));
	assert_true(offsetof(struct kfit_arg_big, near) > 0xffff);
	assert_int_equal(arg(btf, "kfit_arg_big_fn", "big->near", &a, err, sizeof(err)),
			 -EINVAL);
	assert_true(t_has(err, "too far"));
}

static void test_func_params(void **state)
{
	const struct btf *btf = *state;
	char buf[128];

	assert_int_equal(kfit_btf_func_param(btf, "kfit_arg_fn", "o"), 0);
	assert_int_equal(kfit_btf_func_param(btf, "kfit_arg_fn", "leaf"), 4);
	assert_int_equal(kfit_btf_func_param(btf, "kfit_arg_fn", "lea"), -ENOENT);
	assert_int_equal(kfit_btf_func_param(btf, "kfit_arg_nosuch", "o"), -ENOENT);
	assert_int_equal(kfit_btf_func_params(btf, "kfit_arg_fn", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "o, s, c, b, leaf");
	assert_int_equal(kfit_btf_func_params(btf, "kfit_sample_zero", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	/* cut short, NUL-ended */
	assert_int_equal(kfit_btf_func_params(btf, "kfit_arg_fn", buf, 6), 0);
	assert_string_equal(buf, "o, s,");
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
		cmocka_unit_test(test_arg_paths),
		cmocka_unit_test(test_arg_enum),
		cmocka_unit_test(test_arg_refused),
		cmocka_unit_test(test_arg_far),
		cmocka_unit_test(test_func_params),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
