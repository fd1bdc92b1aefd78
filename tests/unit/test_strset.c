// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "strset.h"

/* The FNV-1a test vectors of its authors (32 bits) */
static void test_hash_vectors(void **state)
{
	(void)state;
	assert_int_equal(kfit_strset_hash(""), 0x811c9dc5);
	assert_int_equal(kfit_strset_hash("a"), 0xe40c292c);
	assert_int_equal(kfit_strset_hash("foobar"), 0xbf9cf968);
}

static void test_empty(void **state)
{
	struct kfit_strset s = { 0 };

	(void)state;
	assert_int_equal(kfit_strset_get(&s, "x"), -1);
	assert_false(kfit_strset_has(&s, ""));
	kfit_strset_free(&s);
	assert_int_equal(kfit_strset_init(&s, 0), 0);
	assert_false(kfit_strset_has(&s, "x"));
	assert_int_equal(s.n, 0);
	kfit_strset_free(&s);
	assert_null(s.keys);
}

static void test_first_value_stays(void **state)
{
	struct kfit_strset s = { 0 };
	char copy[] = "vfs_read";

	(void)state;
	assert_int_equal(kfit_strset_add(&s, "vfs_read", 7), 1);
	assert_int_equal(kfit_strset_add(&s, "vfs_write", 8), 1);
	assert_int_equal(kfit_strset_add(&s, "", 9), 1);
	/* Compared by contents, not by pointer */
	assert_int_equal(kfit_strset_add(&s, copy, 99), 0);
	assert_int_equal(kfit_strset_get(&s, copy), 7);
	assert_int_equal(kfit_strset_get(&s, "vfs_write"), 8);
	assert_int_equal(kfit_strset_get(&s, ""), 9);
	assert_int_equal(kfit_strset_get(&s, "vfs_rea"), -1);
	assert_int_equal(kfit_strset_get(&s, "vfs_read "), -1);
	assert_int_equal(s.n, 3);
	kfit_strset_free(&s);
}

/* Grown from nothing, or sized up front: every string found, no other */
static void test_many(void **state)
{
	enum { N = 100000 };
	struct kfit_strset s;
	char (*names)[16], other[16];
	int i, round;

	(void)state;
	names = malloc(N * sizeof(*names));
	assert_non_null(names);
	for (i = 0; i < N; i++)
		snprintf(names[i], sizeof(names[i]), "f_%d", i);
	for (round = 0; round < 2; round++) {
		memset(&s, 0, sizeof(s));
		if (round)
			assert_int_equal(kfit_strset_init(&s, N), 0);
		for (i = 0; i < N; i++)
			assert_int_equal(kfit_strset_add(&s, names[i], i), 1);
		/* At least twice as many slots as strings */
		assert_true(s.mask + 1 >= 2 * (unsigned int)N);
		assert_int_equal(s.n, N);
		for (i = 0; i < N; i++) {
			if (kfit_strset_get(&s, names[i]) != i)
				fail_msg("%s: %d", names[i], kfit_strset_get(&s, names[i]));
			snprintf(other, sizeof(other), "g_%d", i);
			if (kfit_strset_has(&s, other))
				fail_msg("%s found", other);
		}
		kfit_strset_free(&s);
	}
	free(names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_vectors),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_first_value_stays),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
