// SPDX-License-Identifier: GPL-2.0
/*
 * Linked into every unit test. stdout is made line-buffered even into a
 * file, so that cmocka's stdout and stderr stay in order and a test that
 * crashes keeps what it printed (stdbuf would do it by LD_PRELOAD, which
 * the sanitizer runtime refuses to follow).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>
#include "testlib.h"

__attribute__((constructor)) static void linebuf(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

const char *t_stderr_of(void (*fn)(void), char *buf, size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;

	assert_non_null(tmp);
	assert_true(saved >= 0);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, len - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
	return buf;
}

int t_rm_rf(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}
