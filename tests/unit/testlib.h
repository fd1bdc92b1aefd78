/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_TESTLIB_H
#define KFIT_TESTLIB_H

#include <stddef.h>

/* What fn wrote on stderr, NUL-terminated in buf (cut at len - 1) */
const char *t_stderr_of(void (*fn)(void), char *buf, size_t len);

/* Remove a test's temporary tree; 0 or -1 */
int t_rm_rf(const char *dir);

#endif
