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
#include "btf_sample.h"
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

#define S	KFIT_RET_SIGNED
#define P	KFIT_RET_PTR

/* path ("o->in.leaf->label") split at '->' and '.' for kfit_btf_arg */
static int arg(const struct btf *btf, const char *func, const char *path,
	       struct kfit_argpath *a, char *err, size_t errlen)
{
	char buf[256], *seg[16], *p = buf;
	bool arrow[16] = { false };
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", path);
	seg[n++] = p;
	while ((p = strpbrk(p, "-."))) {
		assert_true(n < 16);
		arrow[n] = *p == '-';
		*p = '\0';
		p += arrow[n] ? 2 : 1;
		seg[n++] = p;
	}
	err[0] = '\0';
	memset(a, 0xa5, sizeof(*a));
	return kfit_btf_arg(btf, func, (const char *const *)seg, arrow, n, a, err, errlen);
}

#define OUT(f)		offsetof(struct kfit_arg_outer, f)
#define INNER(f)	offsetof(struct kfit_arg_inner, f)
#define LEAF(f)		offsetof(struct kfit_arg_leaf, f)

/* Each path's parameter, hops and kind, the hops' offsets the compiler's */
static void test_arg_paths(void **state)
{
	static const struct {
		const char *path;
		int index, kind, nhops;
		unsigned int off[4];
		bool is_str, inline_str, user, is_bool;
	} cases[] = {
		/* parameters themselves */
		{ "o", 0, 8 | P, 0, { 0 }, false, false, false, false },
		{ "s", 1, 8 | P, 0, { 0 }, true, false, false, false },
		{ "c", 2, 4, 0, { 0 }, false, false, false, false },
		{ "b", 3, 1, 0, { 0 }, false, false, false, true },
		{ "leaf", 4, 8 | P, 0, { 0 }, false, false, false, false },
		/* '->' from a pointer parameter, then '.' into a nested struct */
		{ "o->in.x", 0, 4 | S, 1, { OUT(in) + INNER(x) }, false, false, false, false },
		{ "o->in.y", 0, 2 | S, 1, { OUT(in) + INNER(y) }, false, false, false, false },
		/* members of an anonymous union, and of a struct in it */
		{ "o->u_long", 0, 8 | S, 1, { OUT(u_long) }, false, false, false, false },
		{ "o->u_a", 0, 4 | S, 1, { OUT(u_a) }, false, false, false, false },
		{ "o->u_b", 0, 4 | S, 1, { OUT(u_b) }, false, false, false, false },
		{ "o->color", 0, 4, 1, { OUT(color) }, false, false, false, false },
		{ "o->on", 0, 1, 1, { OUT(on) }, false, false, false, true },
		/* a pointer read, then a second '->' through it */
		{ "o->in.leaf", 0, 8 | P, 1, { OUT(in) + INNER(leaf) }, false, false, false,
		  false },
		{ "o->in.leaf->count", 0, 4, 2, { OUT(in) + INNER(leaf), LEAF(count) },
		  false, false, false, false },
		{ "o->in.leaf->label", 0, 8 | P, 2, { OUT(in) + INNER(leaf), LEAF(label) },
		  true, false, false, false },
		/* a char array: its address, the last hop reading nothing */
		{ "o->name", 0, 8 | P, 1, { OUT(name) }, true, true, false, false },
		{ "o->in.leaf->tag", 0, 8 | P, 2, { OUT(in) + INNER(leaf), LEAF(tag) },
		  true, true, false, false },
		{ "leaf->tag", 4, 8 | P, 1, { LEAF(tag) }, true, true, false, false },
		/* __user */
		{ "o->ubuf", 0, 8 | P, 1, { OUT(ubuf) }, true, false, true, false },
		{ "o->pcpu", 0, 8 | P, 1, { OUT(pcpu) }, true, false, false, false },
		{ "o->tint", 0, 4, 1, { OUT(tint) }, false, false, false, false },
		/* four hops: the most */
		{ "leaf->next->next->next->pad", 4, 8 | S, 4,
		  { LEAF(next), LEAF(next), LEAF(next), LEAF(pad) }, false, false, false,
		  false },
		{ "o->in.leaf->next->label", 0, 8 | P, 3,
		  { OUT(in) + INNER(leaf), LEAF(next), LEAF(label) }, true, false, false,
		  false },
	};
	const struct btf *btf = *state;
	struct kfit_argpath a;
	char err[256];
	size_t i;
	int j;

	for (i = 0; i < T_N(cases); i++) {
		const char *name = cases[i].path;

		t_int_eq(name, arg(btf, "kfit_arg_fn", name, &a, err, sizeof(err)), 0);
		t_str_eq(name, err, "");
		t_int_eq(name, a.index, cases[i].index);
		t_int_eq(name, a.kind, cases[i].kind);
		t_int_eq(name, a.nhops, cases[i].nhops);
		for (j = 0; j < a.nhops && j < 4; j++)
			t_int_eq(name, a.off[j], cases[i].off[j]);
		t_int_eq(name, a.is_str, cases[i].is_str);
		t_int_eq(name, a.inline_str, cases[i].inline_str);
		t_int_eq(name, a.user, cases[i].user);
		t_int_eq(name, a.is_bool, cases[i].is_bool);
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
		{ "kfit_arg_fn", "nosuch", -ENOENT, "kfit_arg_fn has no parameter 'nosuch'" },
		/* the fields it has named, its anonymous members' in their place */
		{ "kfit_arg_fn", "o->nosuch", -EINVAL,
		  "struct kfit_arg_outer has no field 'nosuch'; its fields: c, in, u_long, "
		  "u_a, u_b, flag, level, color, on, tint, ubuf, pcpu, name" },
		{ "kfit_arg_fn", "o->in.nosuch", -EINVAL,
		  "struct kfit_arg_inner has no field 'nosuch'" },
		{ "kfit_arg_fn", "o->in.leaf->nosuch", -EINVAL,
		  "struct kfit_arg_leaf has no field 'nosuch'; its fields: pad, next, label, "
		  "tag, count" },
		/* a bit field has no byte of its own to read */
		{ "kfit_arg_fn", "o->flag", -EINVAL, "'flag' is a bit field" },
		{ "kfit_arg_fn", "o->level", -EINVAL, "'level' is a bit field" },
		/* '.' on a pointer parameter; '->' on a structure */
		{ "kfit_arg_fn", "o.c", -EINVAL, "reach fields with '->'" },
		{ "kfit_arg_fn", "o->in->x", -EINVAL, "'->x' follows no pointer" },
		{ "kfit_arg_fn", "o->in.leaf.pad", -EINVAL, "'.pad' is not in a structure" },
		{ "kfit_arg_fn", "s->x", -EINVAL, "'->x' is not in a structure" },
		{ "kfit_arg_fn", "c->x", -EINVAL, "follows no pointer" },
		/* a structure is no value */
		{ "kfit_arg_fn", "o->in", -EINVAL, "'in' is not a number, pointer or string" },
		/* five hops */
		{ "kfit_arg_fn", "leaf->next->next->next->next->pad", -EINVAL,
		  "at most 4 reads through pointers" },
		{ "kfit_arg_fn", "leaf->next->next->next->next->next->pad", -EINVAL,
		  "at most 4 reads through pointers" },
		{ "kfit_arg_fn", "o->in.leaf->next->next->next->label", -EINVAL,
		  "at most 4 reads" },
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
