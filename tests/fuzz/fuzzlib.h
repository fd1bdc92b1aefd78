/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_FUZZLIB_H
#define KFIT_FUZZLIB_H

/*
 * What the libFuzzer harnesses (tests/fuzz/fuzz_*.c) share: fixture trees
 * under /tmp, removed at exit, and inputs as C strings.
 */
#include <stddef.h>
#include <stdint.h>

/* A fresh directory /tmp/kfit-fuzz-NAME-XXXXXX, removed at exit; aborts on failure */
const char *fz_tmpdir(const char *name);

/*
 * Write len bytes at dir/rel, making its directories; data NULL removes
 * the file instead. Aborts on failure (a fixture that cannot be made).
 */
void fz_put(const char *dir, const char *rel, const void *data, size_t len);

/*
 * The input as a string of exactly its size (malloc'd: ASan sees a read
 * past its NUL). The caller frees.
 */
char *fz_str(const uint8_t *data, size_t size);

/*
 * The next '\n'-terminated part of [*p, end) as a malloc'd string, *p moved
 * past it; NULL when nothing is left.
 */
char *fz_line(const uint8_t **p, const uint8_t *end);

/* The directory of this executable (where make put its fixtures) */
const char *fz_selfdir(void);

#endif
