// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "ksyms.h"

static char dir[64];
static char path[128];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/kfit-ksyms-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(dir);
}

static void write_file(const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Out of address order, aliases, a name twice, modules, a bad line */
static const char sample[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 t do_one\n"
	"ffffffff81000800 T startup_64\n"
	"ffffffff81002000 T vfs_read\n"
	"ffffffff81005000 t dup_a\n"
	"ffffffffc0a01000 t foo\t[mymod]\n"
	"ffffffffc0a00000 t init_once\t[mymod]\n"
	"ffffffff81003000 t init_once\n"
	"ffffffff81006000 t dup_a\t[m2]\n"
	"this is not a symbol\n"
	"\n"
	"ffffffff81004000 D data_sym";

static struct kfit_ksyms *load_sample(void)
{
	struct kfit_ksyms *ks;

	write_file(sample);
	ks = kfit_ksyms_load(path);
	assert_non_null(ks);
	return ks;
}

static void test_parse_and_count(void **state)
{
	const struct kfit_ksym *s;
	struct kfit_ksyms *ks;

	(void)state;
	ks = load_sample();
	assert_int_equal(kfit_ksyms_count(ks), 11);
	s = kfit_ksyms_by_name(ks, "foo");
	assert_non_null(s);
	assert_true(s->addr == 0xffffffffc0a01000ULL);
	assert_int_equal(s->type, 't');
	assert_string_equal(s->module, "mymod");
	s = kfit_ksyms_by_name(ks, "vfs_read");
	assert_non_null(s);
	assert_null(s->module);
	assert_int_equal(s->type, 'T');
	/* The last line has no newline */
	s = kfit_ksyms_by_name(ks, "data_sym");
	assert_non_null(s);
	assert_int_equal(s->type, 'D');
	assert_true(s->addr == 0xffffffff81004000ULL);
	kfit_ksyms_free(ks);
}

static void test_by_addr(void **state)
{
	struct kfit_ksyms *ks;

	(void)state;
	ks = load_sample();
	assert_null(kfit_ksyms_by_addr(ks, 0));
	assert_null(kfit_ksyms_by_addr(ks, 0xffffffff80ffffffULL));
	/* Aliases: the first in the file */
	assert_string_equal(kfit_ksyms_by_addr(ks, 0xffffffff81000000ULL)->name, "_stext");
	assert_string_equal(kfit_ksyms_by_addr(ks, 0xffffffff810007ffULL)->name, "_stext");
	assert_string_equal(kfit_ksyms_by_addr(ks, 0xffffffff81000800ULL)->name, "startup_64");
	assert_string_equal(kfit_ksyms_by_addr(ks, 0xffffffff81000fffULL)->name, "startup_64");
	assert_string_equal(kfit_ksyms_by_addr(ks, 0xffffffff81001000ULL)->name, "do_one");
	assert_string_equal(kfit_ksyms_by_addr(ks, 0xffffffff81003abcULL)->name, "init_once");
	assert_string_equal(kfit_ksyms_by_addr(ks, 0xffffffffc0a00fffULL)->module, "mymod");
	assert_string_equal(kfit_ksyms_by_addr(ks, UINT64_MAX)->name, "foo");
	kfit_ksyms_free(ks);
}

static void test_by_name(void **state)
{
	const struct kfit_ksym *s;
	struct kfit_ksyms *ks;

	(void)state;
	ks = load_sample();
	/* Twice in the file: the first one, though its address is higher */
	s = kfit_ksyms_by_name(ks, "init_once");
	assert_non_null(s);
	assert_true(s->addr == 0xffffffffc0a00000ULL);
	assert_string_equal(s->module, "mymod");
	s = kfit_ksyms_by_name(ks, "dup_a");
	assert_non_null(s);
	assert_true(s->addr == 0xffffffff81005000ULL);
	assert_null(s->module);
	assert_true(kfit_ksyms_by_name(ks, "_text")->addr == 0xffffffff81000000ULL);
	assert_null(kfit_ksyms_by_name(ks, "missing"));
	assert_null(kfit_ksyms_by_name(ks, "vfs_rea"));
	assert_null(kfit_ksyms_by_name(ks, "mymod"));
	assert_null(kfit_ksyms_by_name(ks, ""));
	kfit_ksyms_free(ks);
}

static void test_empty_and_missing(void **state)
{
	struct kfit_ksyms *ks;

	(void)state;
	write_file("");
	ks = kfit_ksyms_load(path);
	assert_non_null(ks);
	assert_int_equal(kfit_ksyms_count(ks), 0);
	assert_null(kfit_ksyms_by_addr(ks, 12345));
	assert_null(kfit_ksyms_by_name(ks, "x"));
	kfit_ksyms_free(ks);

	errno = 0;
	assert_null(kfit_ksyms_load("/nonexistent/kallsyms"));
	assert_int_equal(errno, ENOENT);
	kfit_ksyms_free(NULL);
}

/* Non-root readers see every address as 0 */
static void test_zero_addresses(void **state)
{
	struct kfit_ksyms *ks;

	(void)state;
	write_file("0000000000000000 T a\n0000000000000000 T b\n"
		   "0000000000000000 t c\t[m]\n");
	ks = kfit_ksyms_load(path);
	assert_non_null(ks);
	assert_int_equal(kfit_ksyms_count(ks), 3);
	assert_string_equal(kfit_ksyms_by_addr(ks, 0)->name, "a");
	assert_string_equal(kfit_ksyms_by_name(ks, "c")->module, "m");
	kfit_ksyms_free(ks);
}

/* kallsyms size: every symbol found both ways, and quickly */
static void test_large(void **state)
{
	enum { N = 150000 };
	struct kfit_ksyms *ks;
	const struct kfit_ksym *s;
	char name[32];
	struct timespec t0, t1;
	FILE *f;
	int i, k;

	(void)state;
	f = fopen(path, "w");
	assert_non_null(f);
	/* Written in a scrambled order: 7919 is prime, so i * 7919 % N visits all */
	for (i = 0; i < N; i++) {
		k = (int)((long)i * 7919 % N);
		fprintf(f, "%016llx %c sym_%d%s\n", 0xffffffff81000000ULL + 16ULL * k,
			k % 3 ? 't' : 'T', k, k % 10 ? "" : "\t[mod]");
	}
	assert_int_equal(fclose(f), 0);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ks = kfit_ksyms_load(path);
	assert_non_null(ks);
	assert_int_equal(kfit_ksyms_count(ks), N);
	for (k = 0; k < N; k++) {
		snprintf(name, sizeof(name), "sym_%d", k);
		s = kfit_ksyms_by_name(ks, name);
		if (!s || s->addr != 0xffffffff81000000ULL + 16ULL * k)
			fail_msg("by_name %s", name);
		s = kfit_ksyms_by_addr(ks, 0xffffffff81000000ULL + 16ULL * k + 15);
		if (!s || strcmp(s->name, name))
			fail_msg("by_addr %s", name);
		assert_true((k % 10 == 0) == (s->module != NULL));
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* Linear lookups would take minutes; this takes tens of ms */
	assert_true(t1.tv_sec - t0.tv_sec < 5);
	kfit_ksyms_free(ks);
}

static void test_proc_kallsyms(void **state)
{
	struct kfit_ksyms *ks;

	(void)state;
	ks = kfit_ksyms_load(NULL);
	if (!ks)
		skip();
	assert_true(kfit_ksyms_count(ks) > 1000);
	assert_non_null(kfit_ksyms_by_name(ks, "schedule"));
	kfit_ksyms_free(ks);
}

/* Iteration keeps the file's order, bad lines left out */
static void test_file_order(void **state)
{
	static const char *const order[] = {
		"_stext", "_text", "do_one", "startup_64", "vfs_read", "dup_a", "foo",
		"init_once", "init_once", "dup_a", "data_sym",
	};
	const struct kfit_ksym *s;
	struct kfit_ksyms *ks;
	int i;

	(void)state;
	ks = load_sample();
	for (i = 0; i < 11; i++) {
		s = kfit_ksyms_at(ks, i);
		assert_non_null(s);
		assert_string_equal(s->name, order[i]);
	}
	assert_null(kfit_ksyms_at(ks, 11));
	assert_null(kfit_ksyms_at(ks, -1));
	/* The first of a repeated name is the one found by name */
	assert_ptr_equal(kfit_ksyms_by_name(ks, "init_once"), kfit_ksyms_at(ks, 7));
	assert_string_equal(kfit_ksyms_at(ks, 9)->module, "m2");
	kfit_ksyms_free(ks);
}

static void test_is_func(void **state)
{
	static const struct {
		char type;
		const char *name;
		bool func;
	} cases[] = {
		{ 'T', "vfs_read", true }, { 't', "do_one", true },
		{ 'W', "weak_fn", true }, { 'w', "weak_local", true },
		{ 'D', "data", false }, { 'd', "local_data", false },
		{ 'r', "rodata", false }, { 'b', "bss", false }, { 'A', "abs", false },
		{ 'T', "__pfx_vfs_read", false }, { 't', "__cfi_vfs_read", false },
		{ 'T', "__pfxvfs", true }, { 'T', "vfs_read.cold", true },
	};
	struct kfit_ksym s = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s.type = cases[i].type;
		s.name = cases[i].name;
		if (kfit_ksym_is_func(&s) != cases[i].func)
			fail_msg("%c %s", s.type, s.name);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_and_count),
		cmocka_unit_test(test_by_addr),
		cmocka_unit_test(test_by_name),
		cmocka_unit_test(test_empty_and_missing),
		cmocka_unit_test(test_zero_addresses),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_proc_kallsyms),
		cmocka_unit_test(test_file_order),
		cmocka_unit_test(test_is_func),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
