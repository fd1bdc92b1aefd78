// SPDX-License-Identifier: GPL-2.0
/*
 * strcalls [-w] N: call libc's strlen, memset and memcpy (IFUNCs) N times
 * each, through pointers the compiler cannot see through: the calls reach
 * the implementations the dynamic linker chose, never an inlined builtin.
 * -w: print "pid PID" and wait for SIGUSR1 first (held.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "held.h"

static size_t (*volatile p_strlen)(const char *) = strlen;
static void *(*volatile p_memset)(void *, int, size_t) = memset;
static void *(*volatile p_memcpy)(void *, const void *, size_t) = memcpy;

int main(int argc, char **argv)
{
	char a[64] = "strcalls", b[64];
	size_t acc = 0;
	long n, i;
	int arg = 1;

	if (argc > 1 && !strcmp(argv[1], "-w"))
		arg++;
	if (argc != arg + 1 || (n = atol(argv[arg])) < 0) {
		fprintf(stderr, "usage: strcalls [-w] N\n");
		return 2;
	}
	if (arg == 2)
		held_wait_usr1("strcalls", 60);
	for (i = 0; i < n; i++) {
		acc += p_strlen(a);
		p_memset(b, (int)i, sizeof(b));
		p_memcpy(a + 9, b, 8);
		a[9 + (i & 7)] = '\0';
	}
	return acc ? 0 : 1;
}
