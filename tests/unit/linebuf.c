// SPDX-License-Identifier: GPL-2.0
/*
 * Linked into every unit test: stdout line-buffered even into a file, so
 * that cmocka's stdout and stderr stay in order and a test that crashes
 * keeps what it printed. (stdbuf would do it by LD_PRELOAD, which the
 * sanitizer runtime refuses to follow.)
 */
#include <stdio.h>

__attribute__((constructor)) static void linebuf(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}
