// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "strdist.h"

static void test_distances(void **state)
{
	(void)state;
	assert_int_equal(kfit_strdist("", "", 10), 0);
	assert_int_equal(kfit_strdist("abc", "abc", 10), 0);
	assert_int_equal(kfit_strdist("", "abc", 10), 3);
	assert_int_equal(kfit_strdist("abc", "", 10), 3);
	assert_int_equal(kfit_strdist("kitten", "sitting", 10), 3);
	assert_int_equal(kfit_strdist("sitting", "kitten", 10), 3);
	/* A swap of two neighbours costs one, not two */
	assert_int_equal(kfit_strdist("ab", "ba", 10), 1);
	assert_int_equal(kfit_strdist("do_frok", "do_fork", 10), 1);
	assert_int_equal(kfit_strdist("vfs_raed", "vfs_read", 10), 1);
	/* Optimal string alignment: a swapped pair is not edited again */
	assert_int_equal(kfit_strdist("ca", "abc", 10), 3);
	assert_int_equal(kfit_strdist("malloc", "mallopt", 10), 2);
}

static void test_bound(void **state)
{
	(void)state;
	/* Over the bound: bound + 1, whatever the real distance */
	assert_int_equal(kfit_strdist("abcdef", "uvwxyz", 2), 3);
	assert_int_equal(kfit_strdist("a", "abcdefgh", 3), 4);
	assert_int_equal(kfit_strdist("kitten", "sitting", 2), 3);
	/* At the bound: exact */
	assert_int_equal(kfit_strdist("kitten", "sitting", 3), 3);
	assert_int_equal(kfit_strdist("abc", "abd", 0), 1);
	assert_int_equal(kfit_strdist("abc", "abc", 0), 0);
}

static const char *const libc_like[] = {
	"malloc", "calloc", "realloc", "free", "mallopt", "zzz", "abd", "abc",
};

#define N_LIBC ((int)(sizeof(libc_like) / sizeof(libc_like[0])))

static void test_closest(void **state)
{
	char buf[128];

	(void)state;
	/* malloc (1), then calloc and mallopt (2): same length first */
	assert_int_equal(kfit_closest("mallok", libc_like, N_LIBC, 3, buf, sizeof(buf)), 3);
	assert_string_equal(buf, "malloc, calloc, mallopt");
	assert_int_equal(kfit_closest("mallok", libc_like, N_LIBC, 1, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "malloc");
	/* Equal distance and length: by name */
	assert_int_equal(kfit_closest("abx", libc_like, N_LIBC, 2, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "abc, abd");
	/* Nothing close enough */
	strcpy(buf, "x");
	assert_int_equal(kfit_closest("qqqqqqqqqq", libc_like, N_LIBC, 5, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(kfit_closest("mallok", libc_like, 0, 5, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	/* A short buffer is cut, and still a string */
	assert_int_equal(kfit_closest("mallok", libc_like, N_LIBC, 3, buf, 8), 3);
	assert_string_equal(buf, "malloc,");
}

/* 100k names, as many as kallsyms has functions: well under a second */
static void test_many(void **state)
{
	struct timespec t0, t1;
	char **names, buf[256];
	int i, n = 100000;
	double ms;

	(void)state;
	names = calloc(n, sizeof(*names));
	assert_non_null(names);
	srand(1);
	for (i = 0; i < n; i++) {
		assert_true(asprintf(&names[i], "fn_%x_%s_%d", rand() & 0xfff,
				     i % 2 ? "handle" : "do_work", i) > 0);
	}
	free(names[4242]);
	names[4242] = strdup("tcp_sendmsg_locked");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_true(kfit_closest("tcp_sendmsg_lockde", (const char *const *)names, n,
				 5, buf, sizeof(buf)) >= 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_string_equal(strtok(buf, ","), "tcp_sendmsg_locked");
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	print_message("closest of 100k names: %.1f ms\n", ms);
	assert_true(ms < 1000);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distances),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_closest),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
