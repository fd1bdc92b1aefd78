// SPDX-License-Identifier: GPL-2.0
/* argfmt: a call's arguments shown by type, as text and as JSON */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "testlib.h"
#include "argfmt.h"
#include "kfit/ret.h"

static struct kfit_argenum whence[] = { { 0, "SEEK_SET" }, { 2, "SEEK_END" }, { -1, "BAD" } };

/* count, name (a string), on, whence, and one the function lacks */
static const struct kfit_argfmt fmt[] = {
	{ .label = "count", .kind = 8, .present = true },
	{ .label = "name", .kind = 8 | KFIT_RET_PTR, .str = 2, .present = true },
	{ .label = "on", .kind = 1, .is_bool = true, .present = true },
	{ .label = "whence", .kind = 4 | KFIT_RET_SIGNED, .present = true,
	  .enums = whence, .nenums = 3 },
	{ .label = "nope", .kind = 4 },
};

static const char *value(const struct kfit_argfmt *f, __u64 v)
{
	static char buf[64];

	return kfit_argfmt_value(f, v, buf, sizeof(buf));
}

static void test_values(void **state)
{
	const struct kfit_argfmt s32 = { .label = "x", .kind = 4 | KFIT_RET_SIGNED };
	const struct kfit_argfmt u16 = { .label = "x", .kind = 2 };
	const struct kfit_argfmt ptr = { .label = "x", .kind = 8 | KFIT_RET_PTR };

	(void)state;
	/* the upper bits a register holds beyond the type are not the value's */
	assert_string_equal(value(&s32, 0xdeadbeeffffffffeULL), "-2");
	assert_string_equal(value(&u16, 0x12345ffffULL), "65535");
	assert_string_equal(value(&ptr, 0xffff888012345678ULL), "0xffff888012345678");
	assert_string_equal(value(&fmt[2], 0x100), "false");
	assert_string_equal(value(&fmt[2], 0x101), "true");
	assert_string_equal(value(&fmt[3], 2), "SEEK_END");
	assert_string_equal(value(&fmt[3], 0xffffffffULL), "BAD");
	assert_string_equal(value(&fmt[3], 7), "7");
	assert_string_equal(value(&fmt[0], ~0ULL), "18446744073709551615");
}

static void test_text(void **state)
{
	__u64 v[KFIT_ARGS_MAX] = { 4096, 0x7ffd0000, 1, 0 };
	char s[KFIT_ARG_STRS][KFIT_ARG_STRLEN] = { "", "a \"b\"\\\n\x01" };
	struct kfit_argview a = { .ok = 0xf, .nstr = 2, .v = v, .s = s[0] };
	char buf[256];

	(void)state;
	assert_string_equal(kfit_argfmt_text(fmt, 5, &a, buf, sizeof(buf)),
			    "count=4096 name=\"a \\\"b\\\"\\\\\\x0a\\x01\" on=true whence=SEEK_SET");
	/* not read: "?"; a string its record does not carry: "?" too */
	a.ok = 0xd;
	a.nstr = 1;
	assert_string_equal(kfit_argfmt_text(fmt, 4, &a, buf, sizeof(buf)),
			    "count=4096 name=? on=true whence=SEEK_SET");
	/* cut short, still a string */
	assert_string_equal(kfit_argfmt_text(fmt, 4, &a, buf, 12), "count=4096 ");
}

static void test_json(void **state)
{
	__u64 v[KFIT_ARGS_MAX] = { 7, 0, 0, 2 };
	char s[KFIT_ARG_STRS][KFIT_ARG_STRLEN] = { "", "x" };
	struct kfit_argview a = { .ok = 0xb, .nstr = 2, .v = v, .s = s[0] };
	struct kfit_json j;
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	(void)state;
	assert_non_null(m);
	kfit_json_init(&j, m, false);
	kfit_argfmt_json(&j, NULL, fmt, 5, &a);
	fclose(m);
	assert_string_equal(out, "{\"count\":7,\"name\":\"x\",\"on\":null,\"whence\":\"SEEK_END\"}");
	free(out);
}

static void test_notes(void **state)
{
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	(void)state;
	assert_non_null(m);
	kfit_argfmt_notes(m, 0, 0);
	kfit_argfmt_notes(m, 1, 3);
	fclose(m);
	assert_string_equal(out, "1 call without arguments: more than 8 open with arguments "
			    "in one thread, or more than 8192 threads in traced calls\n"
			    "3 calls with a string not in memory at entry or exit, shown as ?\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_notes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
