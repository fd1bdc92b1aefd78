// SPDX-License-Identifier: GPL-2.0
/*
 * Parameters and return types from DWARF (debuginfo_params.c) over
 * tests/helpers/uparams.c built here with -g at -O0 and -O2, in two CUs;
 * its stripped copies (-ENODATA, or its DWARF through .gnu_debuglink).
 * The oracles: C's types as uparams.c declares them, gdb's ptype of each
 * function (its parameters' types), nm for which up_twice is the lowest.
 *
 * Fields through pointers (kfit_dwarf_arg): btf_sample.h's structures in
 * DWARF (tests/unit/btf_sample.bpf.c built here by the host's compiler,
 * with a CU that only declares them), the paths of arg_cases.h against
 * offsetof(), as test_btf runs them on BTF.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "arg_cases.h"
#include "debuginfo.h"
#include "kfit/ret.h"
#include "testlib.h"

#define PTR	(8 | KFIT_RET_PTR)

struct want_param {
	const char *name, *type;
	unsigned char kind;
	bool is_str;
};

struct want_func {
	const char *func;
	unsigned char ret;
	int n;
	struct want_param p[4];
};

/* A parameter (STR: a string) */
#define A(n, t, k)	{ n, t, k, false }
#define STR(n, t)	{ n, t, PTR, true }

/* What uparams.c declares, as C reads it */
static const struct want_func funcs[] = {
	{ "up_int", 4 | S, 3, { A("a", "int", 4 | S), A("b", "unsigned char", 1),
				A("c", "_Bool", 1) } },
	{ "up_uchar", 1, 2, { A("c", "enum up_color", 4), A("s", "enum up_sign", 4 | S) } },
	{ "up_bool", 1, 4, { A("n", "size_t", 8), STR("s", "const char *"),
			     STR("t", "char *"), A("bytes", "unsigned char *", PTR) } },
	{ "up_enum", 4, 2, { A("p", "struct up_pair *", PTR), A("v", "struct up_pair", 0) } },
	{ "up_size", 8, 1, { STR("fmt", "const char *") } },
	{ "up_str", PTR, 0, { A(NULL, NULL, 0) } },
	{ "up_void", KFIT_RET_VOID, 3, { A("p", "volatile int *const", PTR),
					 A("cb", "int (*)(void *, long)", PTR),
					 STR("s", "up_cstr") } },
	{ "up_float", 0, 1, { A("f", "float", 0) } },
	{ "up_static", 4 | S, 1, { A("x", "int", 4 | S) } },
	{ "up_inl", 4 | S, 1, { A("k", "int", 4 | S) } },
	{ "up_status", 4 | S, 1, { A("i", "int", 4 | S) } },
	{ "up_cu2", 2 | S, 2, { A("s", "short", 2 | S), A("u", "unsigned long long", 8) } },
	{ "main", 4 | S, 2, { A("argc", "int", 4 | S), A("argv", "char **", PTR) } },
};

#define NFUNCS	(sizeof(funcs) / sizeof(funcs[0]))

/*
 * A CU that declares btf_sample.h's leaf without its fields (another CU
 * has them), and a structure no CU defines
 */
static const char opaque_c[] =
	"struct kfit_arg_leaf;\n"
	"struct kfit_nowhere;\n"
	"long kfit_opaque_fn(struct kfit_arg_leaf *leaf, struct kfit_nowhere *nw)\n"
	"{\n\treturn (long)leaf + (long)nw;\n}\n";

static int setup(void **state)
{
	const char *src = KFIT_TOP "/tests/helpers/uparams.c";
	FILE *f;

	if (t_tmpdir_setup(state))
		return -1;
	f = fopen(t_tmp("opaque.c"), "w");
	if (!f || fputs(opaque_c, f) < 0 || fclose(f))
		return -1;
	return t_sh("cd %s && for o in O0 O2; do "
		    "cc -$o -g -c -DUP_CU2 %s -o cu2.o && cc -$o -g %s cu2.o -o up_$o || exit 1; "
		    "done && cp up_O2 up_strip && strip up_strip && "
		    "objcopy --only-keep-debug up_O2 up_O2.debug && "
		    "objcopy --strip-all --add-gnu-debuglink=up_O2.debug up_O2 up_linked && "
		    "cc -O1 -g -shared -fPIC %s opaque.c -o sample.so",
		    t_tmpdir, src, src, KFIT_TOP "/tests/unit/btf_sample.bpf.c");
}

static void check_func(const char *path, const struct want_func *w)
{
	struct kfit_uparam *p;
	unsigned char ret = 0xee;
	int n = kfit_dwarf_func_params(path, w->func, &p, &ret), i;

	t_int_eq(w->func, n, w->n);
	t_int_eq(w->func, ret, w->ret);
	for (i = 0; i < n; i++) {
		t_str_eq(w->func, p[i].name, w->p[i].name);
		t_str_eq(w->func, p[i].type, w->p[i].type);
		t_int_eq(w->func, p[i].kind, w->p[i].kind);
		t_int_eq(w->func, p[i].is_str, w->p[i].is_str);
	}
	kfit_uparams_free(p, n);
}

static void check_all(const char *file)
{
	size_t i;

	for (i = 0; i < NFUNCS; i++)
		check_func(t_tmp(file), &funcs[i]);
}

static void test_O0(void **state)
{
	(void)state;
	check_all("up_O0");
}

/* Inlined copies and an out-of-line one of up_inl; abstract origins */
static void test_O2(void **state)
{
	(void)state;
	check_all("up_O2");
}

/* No .debug_info: the DWARF of the debug file .gnu_debuglink names */
static void test_debuglink(void **state)
{
	(void)state;
	check_all("up_linked");
}

static void test_no_dwarf(void **state)
{
	struct kfit_uparam *p = (void *)1;
	unsigned char ret = 0xee;

	(void)state;
	assert_int_equal(kfit_dwarf_func_params(t_tmp("up_strip"), "up_int", &p, &ret),
			 -ENODATA);
	assert_null(p);
	assert_int_equal(ret, 0xee);
	assert_int_equal(kfit_dwarf_func_params(t_tmp("nonexistent"), "up_int", &p, NULL),
			 -ENOENT);
}

static void test_unknown(void **state)
{
	struct kfit_uparam *p = (void *)1;

	(void)state;
	assert_int_equal(kfit_dwarf_func_params(t_tmp("up_O2"), "up_nonexistent", &p, NULL),
			 -ENOENT);
	assert_null(p);
	/* a type's name is no function's */
	assert_int_equal(kfit_dwarf_func_params(t_tmp("up_O0"), "up_pair", &p, NULL),
			 -ENOENT);
}

/* The lowest address of a local symbol name, as nm lists it */
static unsigned long long nm_lowest(const char *file, const char *name)
{
	unsigned long long lo = ULLONG_MAX, a;
	char cmd[PATH_MAX + 64], line[512], sym[256], t;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "nm %s", file);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &t, sym) == 3 && !strcmp(sym, name) &&
		    a < lo)
			lo = a;
	pclose(f);
	return lo;
}

/*
 * up_twice is static in both CUs (first in one, second in the other):
 * the definition at the lowest address, as kfit_elf_by_name picks it
 */
static void test_two_cus(void **state)
{
	const char *files[] = { "up_O0", "up_O2" };
	unsigned long long lo, cu2;
	struct kfit_uparam *p;
	char cmd[PATH_MAX + 64];
	size_t i;
	int n;

	(void)state;
	for (i = 0; i < 2; i++) {
		lo = nm_lowest(t_tmp(files[i]), "up_twice");
		cu2 = nm_lowest(t_tmp(files[i]), "up_cu2");
		assert_true(lo != ULLONG_MAX && cu2 != ULLONG_MAX);
		snprintf(cmd, sizeof(cmd), "nm %s | grep -c ' t up_twice$' | grep -qx 2",
			 t_tmp(files[i]));
		assert_int_equal(t_sh("%s", cmd), 0);
		n = kfit_dwarf_func_params(t_tmp(files[i]), "up_twice", &p, NULL);
		assert_int_equal(n, 1);
		/* the second CU's code comes after the first's */
		t_str_eq(files[i], p[0].name, lo < cu2 ? "first" : "second");
		kfit_uparams_free(p, n);
	}
}

/* "type = void (volatile int * const, int (*)(void *, long), up_cstr)" */
static int gdb_args(char *line, char **args, int max)
{
	char *s = strchr(line, '('), *start;
	int depth = 0, n = 0;

	/* the parameter list: after the return type, the first top-level '(' */
	if (!s || strncmp(line, "type = ", 7))
		return -1;
	start = ++s;
	for (; *s && n < max; s++) {
		if (*s == '(')
			depth++;
		else if (*s == ')' && depth)
			depth--;
		else if ((*s == ',' || *s == ')') && !depth) {
			bool end = *s == ')';

			*s = '\0';
			if (strcmp(start, "void") && strcmp(start, "..."))
				args[n++] = start;
			if (end)
				break;
			start = s + 2;
		}
	}
	return n;
}

/* Without blanks: gdb writes "int * const", C people "int *const" */
static void squeeze(const char *s, char *out, size_t len)
{
	size_t k = 0;

	for (; *s && k + 1 < len; s++)
		if (*s != ' ')
			out[k++] = *s;
	out[k] = '\0';
}

/* gdb's ptype of each function: the same parameter types, in order */
static void test_gdb(void **state)
{
	char cmd[8192], line[1024], *args[8], a[256], b[256];
	size_t at, i;
	struct kfit_uparam *p;
	FILE *f;
	int n, k, checked = 0;

	(void)state;
	if (system("command -v gdb >/dev/null 2>&1"))
		skip();
	at = snprintf(cmd, sizeof(cmd), "gdb -nx -batch");
	for (i = 0; i < NFUNCS; i++)
		at += snprintf(cmd + at, sizeof(cmd) - at, " -ex 'ptype %s'", funcs[i].func);
	snprintf(cmd + at, sizeof(cmd) - at, " %s 2>/dev/null", t_tmp("up_O0"));
	f = popen(cmd, "r");
	assert_non_null(f);
	for (i = 0; i < NFUNCS && fgets(line, sizeof(line), f); i++) {
		line[strcspn(line, "\n")] = '\0';
		n = gdb_args(line, args, 8);
		k = kfit_dwarf_func_params(t_tmp("up_O0"), funcs[i].func, &p, NULL);
		t_int_eq(funcs[i].func, k, n);
		for (n = 0; n < k; n++) {
			squeeze(args[n], a, sizeof(a));
			squeeze(p[n].type, b, sizeof(b));
			t_str_eq(funcs[i].func, b, a);
		}
		kfit_uparams_free(p, k);
		checked++;
	}
	pclose(f);
	assert_int_equal(checked, NFUNCS);
}

/* ---- kfit_dwarf_arg: paths on btf_sample.h's structures ---------------- */

static int arg(struct kfit_dwarf *d, const char *func, const char *path,
	       struct kfit_argpath *a, char *err, size_t errlen)
{
	char buf[256], *seg[16];
	bool arrow[16];
	int n = arg_split(path, buf, sizeof(buf), seg, arrow, 16);

	err[0] = '\0';
	memset(a, 0xa5, sizeof(*a));
	return kfit_dwarf_arg(d, func, (const char *const *)seg, arrow, n, a, err, errlen);
}

static struct kfit_dwarf *sample(void)
{
	struct kfit_dwarf *d;

	assert_int_equal(kfit_dwarf_open(t_tmp("sample.so"), &d), 0);
	return d;
}

/* Each path's parameter, hops and kind, the hops' offsets the compiler's */
static void test_arg_paths(void **state)
{
	struct kfit_dwarf *d = sample();
	struct kfit_argpath a;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < T_N(arg_cases); i++) {
		const char *name = arg_cases[i].path;

		t_int_eq(name, arg(d, "kfit_arg_fn", name, &a, err, sizeof(err)), 0);
		t_str_eq(name, err, "");
		/* no __user in DWARF: a user function's pointers are all user memory */
		arg_check(&arg_cases[i], &a, false);
		t_int_eq(name, a.enum_die != 0, !strcmp(name, "c") || !strcmp(name, "o->color") ||
			 !strcmp(name, "o->tint"));
	}
	kfit_dwarf_close(d);
}

struct enum_seen {
	int n;
	__s64 val[4];
	char name[4][32];
};

static int seen(void *ctx, __s64 val, const char *name)
{
	struct enum_seen *s = ctx;

	if (s->n == 4)
		return -E2BIG;
	s->val[s->n] = val;
	snprintf(s->name[s->n++], sizeof(s->name[0]), "%s", name);
	return 0;
}

/* An enum's values by name, the same behind its typedef */
static void test_arg_enum(void **state)
{
	static const char *const paths[] = { "c", "o->color", "o->tint" };
	struct kfit_dwarf *d = sample();
	struct enum_seen s;
	struct kfit_argpath a;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < T_N(paths); i++) {
		assert_int_equal(arg(d, "kfit_arg_fn", paths[i], &a, err, sizeof(err)), 0);
		memset(&s, 0, sizeof(s));
		assert_int_equal(kfit_dwarf_enum(d, a.enum_die, a.kind, seen, &s), 0);
		assert_int_equal(s.n, 2);
		assert_string_equal(s.name[0], "KFIT_ARG_RED");
		assert_int_equal(s.val[0], KFIT_ARG_RED);
		assert_string_equal(s.name[1], "KFIT_ARG_BLUE");
		assert_int_equal(s.val[1], KFIT_ARG_BLUE);
	}
	assert_int_equal(arg(d, "kfit_arg_fn", "o", &a, err, sizeof(err)), 0);
	assert_int_equal(kfit_dwarf_enum(d, 1, a.kind, seen, &s), -ENOENT);
	kfit_dwarf_close(d);
}

static void test_arg_refused(void **state)
{
	static const struct {
		const char *func, *path;
		int rc;
		const char *says;
	} cases[] = {
		{ "kfit_arg_fn", "nosuch", -ENOENT, "its parameters: o, s, c, b, leaf" },
		{ "kfit_arg_nosuch", "x", -ENODATA, "kfit_arg_nosuch is not in the DWARF" },
		/* a structure is not a function */
		{ "kfit_arg_outer", "c", -ENODATA, "not in the DWARF" },
		{ "kfit_arg_big_fn", "big->b.z", -EINVAL, "too far" },
		{ "kfit_opaque_fn", "nw->x", -EINVAL,
		  "'->x': struct kfit_nowhere is only declared in DWARF, its fields unknown" },
	};
	struct kfit_dwarf *d = sample();
	struct kfit_argpath a;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < T_N(arg_refusals); i++) {
		const char *name = arg_refusals[i].path;

		t_int_eq(name, arg(d, "kfit_arg_fn", name, &a, err, sizeof(err)),
			 arg_refusals[i].rc);
		if (!t_has(err, arg_refusals[i].says))
			fail_msg("%s: '%s' does not say '%s'", name, err, arg_refusals[i].says);
	}
	for (i = 0; i < T_N(cases); i++) {
		const char *name = cases[i].path;

		t_int_eq(name, arg(d, cases[i].func, name, &a, err, sizeof(err)), cases[i].rc);
		if (!t_has(err, cases[i].says))
			fail_msg("%s: '%s' does not say '%s'", name, err, cases[i].says);
	}
	kfit_dwarf_close(d);
}

/* A structure only declared where the function is: its definition elsewhere */
static void test_arg_declared(void **state)
{
	struct kfit_dwarf *d = sample();
	struct kfit_argpath a;
	char err[256];

	(void)state;
	assert_int_equal(arg(d, "kfit_opaque_fn", "leaf->count", &a, err, sizeof(err)), 0);
	assert_int_equal(a.index, 0);
	assert_int_equal(a.nhops, 1);
	assert_int_equal(a.off[0], LEAF(count));
	assert_int_equal(a.kind, 4);
	assert_int_equal(arg(d, "kfit_opaque_fn", "leaf->next->tag", &a, err, sizeof(err)), 0);
	assert_int_equal(a.nhops, 2);
	assert_int_equal(a.off[0], LEAF(next));
	assert_int_equal(a.off[1], LEAF(tag));
	assert_true(a.inline_str);
	kfit_dwarf_close(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_O0),
		cmocka_unit_test(test_O2),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_no_dwarf),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_two_cus),
		cmocka_unit_test(test_gdb),
		cmocka_unit_test(test_arg_paths),
		cmocka_unit_test(test_arg_refused),
		cmocka_unit_test(test_arg_declared),
		cmocka_unit_test(test_arg_enum),
	};

	return cmocka_run_group_tests(tests, setup, t_tmpdir_teardown);
}
