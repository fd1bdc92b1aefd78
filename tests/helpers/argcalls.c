// SPDX-License-Identifier: GPL-2.0
/*
 * argcalls: calls with known arguments, for funcdur's arguments and
 * return values against uftrace (this file built with -pg too: the
 * Makefile's argcalls-pg) and against what it prints itself.
 *
 *   int ac_sum(int a, long b)                a + b % 1000
 *   size_t ac_name(const char *s, unsigned char c)   strlen(s) + c
 *   bool ac_flag(bool on, short level)       on && level > 0
 *
 * "argcalls N" makes N rounds of the three calls, with values that run
 * through negatives, large longs and strings of several lengths, and
 * prints "argcalls: N rounds, sum S". Bad arguments: exit 2.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AC __attribute__((noinline, used))

static const char *const names[] = { "", "a", "eth0", "/etc/hostname", "a longer name" };

AC int ac_sum(int a, long b)
{
	asm volatile("" : "+r"(a));
	return a + (int)(b % 1000);
}

AC size_t ac_name(const char *s, unsigned char c)
{
	asm volatile("" : "+r"(c));
	return strlen(s) + c;
}

AC bool ac_flag(bool on, short level)
{
	asm volatile("" : "+r"(level));
	return on && level > 0;
}

int main(int argc, char **argv)
{
	long n, i, sum = 0;
	char *end;

	if (argc != 2 || (n = strtol(argv[1], &end, 10)) < 0 || *end) {
		fprintf(stderr, "usage: argcalls N\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		sum += ac_sum((int)i - 5, i * 1000000007L);
		sum += ac_name(names[i % 5], (unsigned char)(i * 37));
		sum += ac_flag(i % 2, (short)(i * 3 - 10));
	}
	printf("argcalls: %ld rounds, sum %ld\n", n, sum);
	return 0;
}
