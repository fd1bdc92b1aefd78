// SPDX-License-Identifier: GPL-2.0
/*
 * spool.h: each key's text comes back whole and in order, written or
 * read in pieces, however the keys' texts were interleaved and whatever
 * the buffer's size (spills to the file, runs merged, texts larger than
 * a buffer).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "spool.h"

#define NKEYS 37

static char *written(struct kfit_spool *s, const void *key)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(kfit_spool_write(s, key, f), 0);
	fclose(f);
	return buf;
}

/* n lines of random length to random keys (key 0's the first 100), each also to w[key] */
static void add_lines(struct kfit_spool *s, int *keys, FILE **w, size_t n)
{
	char line[64];
	size_t i;

	for (i = 0; i < n; i++) {
		int k = i < 100 ? 0 : rand() % NKEYS;
		int len = snprintf(line, sizeof(line), "%zu: key %d %.*s\n", i, k, rand() % 40,
				   "0123456789012345678901234567890123456789");

		assert_int_equal(kfit_spool_add(s, &keys[k], line, len), 0);
		fputs(line, w[k]);
	}
}

static void test_interleaved(void **state)
{
	static const size_t bufs[] = { 1, 7, 100, 0 };
	int keys[NKEYS];
	size_t b, i;
	char *got;

	(void)state;
	for (b = 0; b < sizeof(bufs) / sizeof(bufs[0]); b++) {
		struct kfit_spool *s = kfit_spool_new(bufs[b]);
		char *want[NKEYS] = { 0 };
		size_t wlen[NKEYS] = { 0 };
		FILE *w[NKEYS];

		assert_non_null(s);
		for (i = 0; i < NKEYS; i++)
			w[i] = open_memstream(&want[i], &wlen[i]);
		srand(b + 1);
		add_lines(s, keys, w, 20000);
		/* a text larger than a buffer at once */
		assert_int_equal(kfit_spool_add(s, &keys[1], "x", 1), 0);
		fputs("x", w[1]);
		for (i = 0; i < NKEYS; i++) {
			fclose(w[i]);
			got = written(s, &keys[i]);
			assert_string_equal(got, want[i]);
			assert_true(kfit_spool_has(s, &keys[i]));
			free(got);
			/* and again: writing reads, it takes nothing away */
			got = written(s, &keys[i]);
			assert_string_equal(got, want[i]);
			free(got);
			free(want[i]);
		}
		kfit_spool_free(s);
	}
}

static void test_unknown_key(void **state)
{
	struct kfit_spool *s = kfit_spool_new(0);
	int a, b;
	char *got;

	(void)state;
	assert_non_null(s);
	assert_false(kfit_spool_has(s, &a));
	assert_int_equal(kfit_spool_add(s, &a, "abc", 3), 0);
	got = written(s, &b);
	assert_string_equal(got, "");
	free(got);
	got = written(s, &a);
	assert_string_equal(got, "abc");
	free(got);
	kfit_spool_free(s);
	kfit_spool_free(NULL);
}

/*
 * Each key's text read back in pieces of any size, the keys in turn as a
 * merge reads them, is what was added; each key's data pointer stays
 * with it as the table grows
 */
static void test_read(void **state)
{
	static const size_t bufs[] = { 1, 7, 100, 0 };
	struct kfit_spool_pos pos[NKEYS];
	size_t b, i, wlen[NKEYS], at[NKEYS];
	char piece[50];
	int keys[NKEYS], done;
	char *want[NKEYS];
	ssize_t n;

	(void)state;
	for (b = 0; b < sizeof(bufs) / sizeof(bufs[0]); b++) {
		struct kfit_spool *s = kfit_spool_new(bufs[b]);
		FILE *w[NKEYS];

		assert_non_null(s);
		for (i = 0; i < NKEYS; i++) {
			w[i] = open_memstream(&want[i], &wlen[i]);
			*kfit_spool_data(s, &keys[i]) = &w[i];
		}
		srand(b + 7);
		add_lines(s, keys, w, 5000);
		memset(pos, 0, sizeof(pos));
		memset(at, 0, sizeof(at));
		for (i = 0; i < NKEYS; i++) {
			fclose(w[i]);
			assert_ptr_equal(*kfit_spool_data(s, &keys[i]), &w[i]);
		}
		do {
			for (done = 0, i = 0; i < NKEYS; i++) {
				n = kfit_spool_read(s, &keys[i], &pos[i], piece, 1 + rand() % 49);
				assert_true(n >= 0);
				assert_true(at[i] + n <= wlen[i]);
				assert_memory_equal(piece, want[i] + at[i], n);
				at[i] += n;
				done += !n;
			}
		} while (done < NKEYS);
		for (i = 0; i < NKEYS; i++) {
			assert_int_equal(at[i], wlen[i]);
			free(want[i]);
		}
		kfit_spool_free(s);
	}
}

/*
 * Text printed into the spool's stream goes after the key's, the stream
 * emptied each time; a key closed keeps its text
 */
static void test_begin_end(void **state)
{
	struct kfit_spool *s = kfit_spool_new(4);
	int a, b;
	char *got;
	FILE *f;

	(void)state;
	assert_non_null(s);
	assert_int_equal(kfit_spool_add(s, &a, "x", 1), 0);
	f = kfit_spool_begin(s);
	assert_non_null(f);
	fprintf(f, "%s %d;", "longer than a buffer", 1);
	assert_int_equal(kfit_spool_end(s, &a), 0);
	f = kfit_spool_begin(s);
	fputs("b", f);
	assert_int_equal(kfit_spool_end(s, &b), 0);
	assert_ptr_equal(kfit_spool_begin(s), f);
	assert_int_equal(kfit_spool_end(s, &a), 0);	/* nothing printed: nothing added */
	got = written(s, &a);
	assert_string_equal(got, "xlonger than a buffer 1;");
	free(got);
	/* closed: all in the file, its buffer freed; more text takes one again */
	assert_int_equal(kfit_spool_close(s, &a), 0);
	got = written(s, &a);
	assert_string_equal(got, "xlonger than a buffer 1;");
	free(got);
	assert_int_equal(kfit_spool_add(s, &a, "!", 1), 0);
	got = written(s, &a);
	assert_string_equal(got, "xlonger than a buffer 1;!");
	free(got);
	got = written(s, &b);
	assert_string_equal(got, "b");
	free(got);
	kfit_spool_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_begin_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
