// SPDX-License-Identifier: GPL-2.0
/* argexpr: a target's argument list, split off and parsed */
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
#include "argexpr.h"
#include "kfit/args.h"
#include "kfit/ret.h"

/* ---- kfit_argexpr_split ------------------------------------------------- */

struct split {
	int rc;
	char base[64];
	char list[256];		/* "(none)" when there is no list */
	char err[256];
};

static struct split split(const char *spec)
{
	struct split s = { .err = "" };
	const char *list = spec;
	size_t len = 12345;

	s.rc = kfit_argexpr_split(spec, s.base, sizeof(s.base), &list, &len,
				  s.err, sizeof(s.err));
	if (s.rc)
		return s;
	if (!list) {
		assert_int_equal(len, 0);
		snprintf(s.list, sizeof(s.list), "(none)");
		return s;
	}
	/* the list lies inside spec, its ')' right after it */
	assert_true(list > spec && list + len < spec + strlen(spec));
	assert_int_equal(list[-1], '(');
	assert_int_equal(list[len], ')');
	snprintf(s.list, sizeof(s.list), "%.*s", (int)len, list);
	return s;
}

static void test_split_ok(void **state)
{
	static const struct {
		const char *spec, *base, *list;
	} cases[] = {
		{ "vfs_read", "vfs_read", "(none)" },
		{ "vfs_read(count)", "vfs_read", "count" },
		{ "vfs_open(path->dentry->d_name.name)", "vfs_open",
		  "path->dentry->d_name.name" },
		{ "sys:openat(filename, flags)", "sys:openat", "filename, flags" },
		{ "c:malloc(u64 size)", "c:malloc", "u64 size" },
		{ "/usr/bin/x:f*( a , b:str )", "/usr/bin/x:f*", " a , b:str " },
		/* an empty list is split; the parser refuses it */
		{ "f()", "f", "" },
		{ "", "", "(none)" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		struct split s = split(cases[i].spec);

		t_int_eq(cases[i].spec, s.rc, 0);
		t_str_eq(cases[i].spec, s.base, cases[i].base);
		t_str_eq(cases[i].spec, s.list, cases[i].list);
	}
}

static void test_split_refused(void **state)
{
	static const struct {
		const char *spec, *says;
	} cases[] = {
		{ "f(a)x", "one '(...)' at the end" },		/* text after ')' */
		{ "f(a) ", "one '(...)' at the end" },
		{ "f(a", "one '(...)' at the end" },		/* '(' without ')' */
		{ "f(", "one '(...)' at the end" },
		{ "f(a(b))", "one '(...)' at the end" },	/* nested */
		{ "f(a)(b)", "one '(...)' at the end" },
		{ "f((a))", "one '(...)' at the end" },
		{ "f(a))", "one '(...)' at the end" },
		{ "f)", "a ')' without its '('" },
		{ "f(a)b)", "one '(...)' at the end" },
		{ "(a)", "no function before '('" },		/* empty base */
		{ "()", "no function before '('" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		struct split s = split(cases[i].spec);
		char quoted[64];

		t_int_eq(cases[i].spec, s.rc, -EINVAL);
		t_true(cases[i].spec, t_has(s.err, cases[i].says));
		/* the message names what was written */
		snprintf(quoted, sizeof(quoted), "'%s'", cases[i].spec);
		t_true(cases[i].spec, t_starts(s.err, quoted));
	}
}

/* A base that does not fit is refused, never cut short */
static void test_split_long_base(void **state)
{
	char spec[200], base[16], err[256];
	const char *list;
	size_t len;

	(void)state;
	memset(spec, 'a', 100);
	snprintf(spec + 100, sizeof(spec) - 100, "(x)");
	assert_int_equal(kfit_argexpr_split(spec, base, sizeof(base), &list, &len,
					    err, sizeof(err)), -EINVAL);
	assert_true(t_has(err, "too long"));
	spec[100] = '\0';
	assert_int_equal(kfit_argexpr_split(spec, base, sizeof(base), &list, &len,
					    err, sizeof(err)), -EINVAL);
	assert_true(t_has(err, "too long"));
	/* the longest that fits */
	spec[15] = '\0';
	assert_int_equal(kfit_argexpr_split(spec, base, sizeof(base), &list, &len,
					    err, sizeof(err)), 0);
	assert_string_equal(base, spec);
	assert_null(list);
}

/* ---- kfit_arglist_parse ------------------------------------------------- */

static int parse(const char *list, struct kfit_arglist *l, char *err, size_t errlen)
{
	err[0] = '\0';
	return kfit_arglist_parse(list, strlen(list), l, err, errlen);
}

/* e's path as "seg0->seg1.seg2" */
static const char *path_of(const struct kfit_argexpr *e)
{
	static char buf[512];
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < e->nseg; i++)
		at += snprintf(buf + at, sizeof(buf) - at, "%s%s",
			       i ? (e->arrow[i] ? "->" : ".") : "", e->seg[i]);
	return buf;
}

static void test_parse_one(void **state)
{
	struct kfit_arglist l;
	char err[256];

	(void)state;
	assert_int_equal(parse("count", &l, err, sizeof(err)), 0);
	assert_int_equal(l.n, 1);
	assert_false(l.typed);
	assert_string_equal(l.v[0].text, "count");
	assert_null(l.v[0].type);
	assert_null(l.v[0].as);
	assert_int_equal(l.v[0].nseg, 1);
	assert_string_equal(l.v[0].seg[0], "count");
	kfit_arglist_free(&l);
	assert_int_equal(l.n, 0);
	assert_null(l.v);
}

static void test_parse_several(void **state)
{
	static const struct {
		const char *list;
		int n;
		const char *paths[KFIT_ARGS_MAX];
		const char *texts[KFIT_ARGS_MAX];
		const char *as[KFIT_ARGS_MAX];
	} cases[] = {
		{ "filename, flags", 2, { "filename", "flags" },
		  { "filename", "flags" }, { NULL } },
		/* blanks around items and around commas go */
		{ " \ta ,b\t,  c ", 3, { "a", "b", "c" }, { "a", "b", "c" }, { NULL } },
		{ "path->dentry->d_name.name", 1, { "path->dentry->d_name.name" },
		  { "path->dentry->d_name.name" }, { NULL } },
		{ "file->f_path.dentry, pos", 2, { "file->f_path.dentry", "pos" },
		  { "file->f_path.dentry", "pos" }, { NULL } },
		{ "s.a.b.c", 1, { "s.a.b.c" }, { "s.a.b.c" }, { NULL } },
		{ "buf:str, count:s32", 2, { "buf", "count" },
		  { "buf:str", "count:s32" }, { "str", "s32" } },
		{ "p->name:string,x:u8,y:bool,z:ptr", 4,
		  { "p->name", "x", "y", "z" },
		  { "p->name:string", "x:u8", "y:bool", "z:ptr" },
		  { "string", "u8", "bool", "ptr" } },
		{ "_a1, B_2->c3", 2, { "_a1", "B_2->c3" }, { "_a1", "B_2->c3" }, { NULL } },
	};
	struct kfit_arglist l;
	char err[256];
	size_t i;
	int j;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		const char *name = cases[i].list;

		t_int_eq(name, parse(name, &l, err, sizeof(err)), 0);
		t_int_eq(name, l.n, cases[i].n);
		t_int_eq(name, l.typed, 0);
		for (j = 0; j < l.n; j++) {
			t_str_eq(name, path_of(&l.v[j]), cases[i].paths[j]);
			t_str_eq(name, l.v[j].text, cases[i].texts[j]);
			t_str_eq(name, l.v[j].as, cases[i].as[j]);
			t_str_eq(name, l.v[j].type, NULL);
		}
		kfit_arglist_free(&l);
	}
}

/* arrow[i] says how seg[i] is reached; arrow[0] is the parameter's, false */
static void test_parse_arrows(void **state)
{
	struct kfit_arglist l;
	char err[256];

	(void)state;
	assert_int_equal(parse("a->b.c->d", &l, err, sizeof(err)), 0);
	assert_int_equal(l.v[0].nseg, 4);
	assert_false(l.v[0].arrow[0]);
	assert_true(l.v[0].arrow[1]);
	assert_false(l.v[0].arrow[2]);
	assert_true(l.v[0].arrow[3]);
	assert_string_equal(l.v[0].seg[3], "d");
	kfit_arglist_free(&l);
}

static void test_parse_typed(void **state)
{
	struct kfit_arglist l;
	char err[256];

	(void)state;
	assert_int_equal(parse("u64 size, str name", &l, err, sizeof(err)), 0);
	assert_int_equal(l.n, 2);
	assert_true(l.typed);
	assert_string_equal(l.v[0].type, "u64");
	assert_string_equal(l.v[0].seg[0], "size");
	assert_string_equal(l.v[0].text, "u64 size");
	assert_string_equal(l.v[1].type, "str");
	assert_string_equal(l.v[1].seg[0], "name");
	kfit_arglist_free(&l);

	/* blanks and tabs between the type and the name; a cast after it */
	assert_int_equal(parse("s32\t  fd,ptr p:str", &l, err, sizeof(err)), 0);
	assert_true(l.typed);
	assert_string_equal(l.v[0].type, "s32");
	assert_string_equal(l.v[0].seg[0], "fd");
	assert_string_equal(l.v[1].type, "ptr");
	assert_string_equal(l.v[1].as, "str");
	kfit_arglist_free(&l);
}

/* Refusals: -EINVAL, what the message says, nothing left allocated */
static void test_parse_refused(void **state)
{
	static const struct {
		const char *list;
		const char *says[3];
	} cases[] = {
		{ "u64 size, name", { "give every argument a type or none" } },
		{ "name, u64 size", { "give every argument a type or none" } },
		{ "foo size", { "unknown type 'foo'", "'foo size'",
				"(types: u8 u16 u32 u64 s8 s16 s32 s64 int long size_t bool ptr str)" } },
		{ "size:float", { "unknown type ':float'", "'size:float'", "(types: u8 " } },
		{ "size:", { "unknown type ':'", "(types: " } },
		{ "a, b, c, d, e", { "at most 4 arguments" } },
		{ "a,,b", { "an empty argument" } },
		{ "a,", { "an empty argument" } },
		{ ",a", { "an empty argument" } },
		{ "", { "an empty argument" } },
		{ "  ", { "an empty argument" } },
		{ "a$b", { "'a$b'", "'->', '.' or ':' was expected at '$b'" } },
		{ "a-b", { "'->', '.' or ':' was expected at '-b'" } },
		{ "1a", { "'1a'", "a name was expected at '1a'" } },
		{ "a->", { "a name was expected at 'the end'" } },
		{ "a.", { "a name was expected at 'the end'" } },
		{ "a..b", { "a name was expected at '.b'" } },
		{ "a->->b", { "a name was expected at '->b'" } },
		{ ":str", { "a name was expected" } },
		{ "a[0]", { "was expected at '[0]'" } },
		{ "*a", { "a name was expected at '*a'" } },
		{ "a:str:s32", { "was expected at ':str'" } },
		{ "u64 a->b", { "'u64 a->b'", "given a type has no fields" } },
		{ "u64 a b", { "was expected at ' b'" } },
		/* a C type of two words: the first is not one of ours */
		{ "unsigned int x", { "unknown type 'unsigned'", "(types: u8 " } },
	};
	struct kfit_arglist l;
	char err[256];
	size_t i, j;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		const char *name = cases[i].list;

		memset(&l, 0xa5, sizeof(l));
		t_int_eq(name, parse(name, &l, err, sizeof(err)), -EINVAL);
		for (j = 0; j < T_N(cases[i].says) && cases[i].says[j]; j++)
			if (!t_has(err, cases[i].says[j]))
				fail_msg("%s: '%s' does not say '%s'", name, err,
					 cases[i].says[j]);
		/* emptied: a free after a refusal is harmless */
		t_int_eq(name, l.n, 0);
		t_true(name, l.v == NULL);
		kfit_arglist_free(&l);
	}
}

/* KFIT_ARGS_MAX items are fine */
static void test_parse_max(void **state)
{
	struct kfit_arglist l;
	char err[256];

	(void)state;
	assert_int_equal(KFIT_ARGS_MAX, 4);
	assert_int_equal(parse("a, b, c, d", &l, err, sizeof(err)), 0);
	assert_int_equal(l.n, KFIT_ARGS_MAX);
	assert_string_equal(l.v[3].seg[0], "d");
	kfit_arglist_free(&l);
}

/* An item of 255 bytes is taken; of 256 and more, refused */
static void test_parse_long_item(void **state)
{
	struct kfit_arglist l;
	char list[1100], err[256];

	(void)state;
	memset(list, 'x', 255);
	list[255] = '\0';
	assert_int_equal(parse(list, &l, err, sizeof(err)), 0);
	assert_int_equal(strlen(l.v[0].seg[0]), 255);
	kfit_arglist_free(&l);

	/* blanks around it do not count */
	memset(list, ' ', 2);
	memset(list + 2, 'y', 255);
	snprintf(list + 257, sizeof(list) - 257, " \t");
	assert_int_equal(parse(list, &l, err, sizeof(err)), 0);
	kfit_arglist_free(&l);

	memset(list, 'x', 256);
	list[256] = '\0';
	assert_int_equal(parse(list, &l, err, sizeof(err)), -EINVAL);
	assert_true(t_has(err, "an argument of more than 255 bytes"));
	assert_null(l.v);

	memset(list, 'x', 1000);
	snprintf(list + 1000, sizeof(list) - 1000, ", b");
	assert_int_equal(parse(list, &l, err, sizeof(err)), -EINVAL);
	assert_true(t_has(err, "more than 255 bytes"));
}

/* The list's length is len, not its NUL: what split gives, inside the spec */
static void test_parse_len(void **state)
{
	const char *spec = "f(a, b->c)", *list;
	struct kfit_arglist l;
	char base[16], err[256];
	size_t len;

	(void)state;
	assert_int_equal(kfit_argexpr_split(spec, base, sizeof(base), &list, &len,
					    err, sizeof(err)), 0);
	assert_int_equal(kfit_arglist_parse(list, len, &l, err, sizeof(err)), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[1].text, "b->c");
	assert_string_equal(l.v[1].seg[1], "c");
	kfit_arglist_free(&l);
}

/* A small error buffer: cut, NUL-ended */
static void test_parse_small_err(void **state)
{
	struct kfit_arglist l;
	char err[8];

	(void)state;
	memset(err, 'z', sizeof(err));
	assert_int_equal(kfit_arglist_parse("foo x", 5, &l, err, sizeof(err)), -EINVAL);
	assert_int_equal(strlen(err), sizeof(err) - 1);
}

/* ---- kfit_argtype_kind -------------------------------------------------- */

static void test_type_kind(void **state)
{
	static const struct {
		const char *word;
		int kind;
		bool str;
	} cases[] = {
		{ "u8", 1, false }, { "u16", 2, false }, { "u32", 4, false }, { "u64", 8, false },
		{ "s8", 1 | KFIT_RET_SIGNED, false }, { "s16", 2 | KFIT_RET_SIGNED, false },
		{ "s32", 4 | KFIT_RET_SIGNED, false }, { "s64", 8 | KFIT_RET_SIGNED, false },
		{ "int", 4 | KFIT_RET_SIGNED, false }, { "long", 8 | KFIT_RET_SIGNED, false },
		{ "size_t", 8, false }, { "bool", 1, false }, { "ptr", 8 | KFIT_RET_PTR, false },
		{ "str", 8 | KFIT_RET_PTR, true }, { "string", 8 | KFIT_RET_PTR, true },
	};
	static const char *const bad[] = { "", "U8", "u128", "char", "str ", "unsigned",
					   "s", "uint", "void" };
	unsigned char kind;
	bool str;
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		kind = 0xee;
		str = !cases[i].str;
		t_int_eq(cases[i].word, kfit_argtype_kind(cases[i].word, &kind, &str), 0);
		t_int_eq(cases[i].word, kind, cases[i].kind);
		t_int_eq(cases[i].word, str, cases[i].str);
		/* every word is listed in the messages */
		t_true(cases[i].word, strcmp(cases[i].word, "string") == 0 ||
		       t_has(kfit_argtype_words(), cases[i].word));
	}
	for (i = 0; i < T_N(bad); i++)
		t_int_eq(bad[i], kfit_argtype_kind(bad[i], &kind, &str), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_ok),
		cmocka_unit_test(test_split_refused),
		cmocka_unit_test(test_split_long_base),
		cmocka_unit_test(test_parse_one),
		cmocka_unit_test(test_parse_several),
		cmocka_unit_test(test_parse_arrows),
		cmocka_unit_test(test_parse_typed),
		cmocka_unit_test(test_parse_refused),
		cmocka_unit_test(test_parse_max),
		cmocka_unit_test(test_parse_long_item),
		cmocka_unit_test(test_parse_len),
		cmocka_unit_test(test_parse_small_err),
		cmocka_unit_test(test_type_kind),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
