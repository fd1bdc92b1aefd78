// SPDX-License-Identifier: GPL-2.0
/*
 * The calltime engine's shared code (include/kfit/calltime.h): the hash
 * by which --by groups a string's calls, the one the BPF side runs.
 * The oracle: FNV-1a's published 64-bit test vectors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "kfit/calltime.h"
#include "testlib.h"

/* A slot as the BPF side leaves it: the string, its NUL, then old bytes */
static __u64 hash_of(const char *s)
{
	char slot[KFIT_ARG_STRLEN];

	memset(slot, 'x', sizeof(slot));
	memcpy(slot, s, strlen(s) + 1);
	return ct_str_hash(slot);
}

static void test_fnv1a_vectors(void **state)
{
	static const struct {
		const char *s;
		__u64 want;
	} cases[] = {
		{ "", 0xcbf29ce484222325ULL },
		{ "a", 0xaf63dc4c8601ec8cULL },
		{ "b", 0xaf63df4c8601f1a5ULL },
		{ "foobar", 0x85944171f73967e8ULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++)
		t_int_eq(cases[i].s, hash_of(cases[i].s), cases[i].want);
}

/* The bytes after the NUL are none of the string's; past 64 bytes none are read */
static void test_bounds(void **state)
{
	char full[KFIT_ARG_STRLEN + 8], copy[KFIT_ARG_STRLEN];

	(void)state;
	assert_int_equal(hash_of("eth0"), hash_of("eth0"));
	assert_true(hash_of("eth0") != hash_of("eth1"));
	memset(full, 'a', sizeof(full));
	memcpy(copy, full, sizeof(copy));
	full[KFIT_ARG_STRLEN] = 'b';
	assert_int_equal(ct_str_hash(full), ct_str_hash(copy));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fnv1a_vectors),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
