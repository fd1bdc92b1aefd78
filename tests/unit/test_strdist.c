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
#include "testlib.h"

/* The distance of a to b, counted up to bound */
static const struct {
	const char *a, *b;
	int bound, want;
} dists[] = {
	{ "", "", 10, 0 },
	{ "abc", "abc", 10, 0 },
	{ "", "abc", 10, 3 },
	{ "abc", "", 10, 3 },
	{ "kitten", "sitting", 10, 3 },
	{ "sitting", "kitten", 10, 3 },
	/* A swap of two neighbours costs one, not two */
	{ "ab", "ba", 10, 1 },
	{ "do_frok", "do_fork", 10, 1 },
	{ "vfs_raed", "vfs_read", 10, 1 },
	/* Optimal string alignment: a swapped pair is not edited again */
	{ "ca", "abc", 10, 3 },
	{ "malloc", "mallopt", 10, 2 },
	/* Over the bound: bound + 1, whatever the real distance */
	{ "abcdef", "uvwxyz", 2, 3 },
	{ "a", "abcdefgh", 3, 4 },
	{ "kitten", "sitting", 2, 3 },
	/* At the bound: exact */
	{ "kitten", "sitting", 3, 3 },
	{ "abc", "abd", 0, 1 },
	{ "abc", "abc", 0, 0 },
};

static void test_distances(void **state)
{
	char name[64];
	size_t i;

	(void)state;
	for (i = 0; i < T_N(dists); i++) {
		snprintf(name, sizeof(name), "'%s' to '%s' within %d", dists[i].a,
			 dists[i].b, dists[i].bound);
		t_int_eq(name, kfit_strdist(dists[i].a, dists[i].b, dists[i].bound),
			 dists[i].want);
	}
}

static const char *const libc_like[] = {
	"malloc", "calloc", "realloc", "free", "mallopt", "zzz", "abd", "abc",
};

static void test_closest(void **state)
{
	/* Up to max names of the first n of libc_like close to name, in len bytes */
	static const struct {
		const char *what, *name;
		int n, max;
		size_t len;
		int ret;
		const char *want;
	} cases[] = {
		/* malloc (1), then calloc and mallopt (2): same length first */
		{ "3 of mallok", "mallok", T_N(libc_like), 3, 128, 3,
		  "malloc, calloc, mallopt" },
		{ "1 of mallok", "mallok", T_N(libc_like), 1, 128, 1, "malloc" },
		/* Equal distance and length: by name */
		{ "abx", "abx", T_N(libc_like), 2, 128, 2, "abc, abd" },
		/* Nothing close enough */
		{ "nothing close", "qqqqqqqqqq", T_N(libc_like), 5, 128, 0, "" },
		{ "no names", "mallok", 0, 5, 128, 0, "" },
		/* A short buffer is cut, and still a string */
		{ "short buffer", "mallok", T_N(libc_like), 3, 8, 3, "malloc," },
	};
	char buf[128];
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		strcpy(buf, "x");
		t_int_eq(cases[i].what, kfit_strdist_closest(cases[i].name, libc_like, cases[i].n,
						     cases[i].max, buf, cases[i].len),
			 cases[i].ret);
		t_str_eq(cases[i].what, buf, cases[i].want);
	}
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
	assert_true(kfit_strdist_closest("tcp_sendmsg_lockde", (const char *const *)names, n,
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
		cmocka_unit_test(test_closest),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
