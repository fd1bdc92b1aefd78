// SPDX-License-Identifier: GPL-2.0
/*
 * bpwrite: a variable written and read, and a function called, a known
 * number of times: the breakpoint tests of pmcstat (mem:ADDR:w, :rw, :x).
 *
 *   bpwrite -a        print the addresses and exit, touching nothing
 *   bpwrite W [R]     write the variable W times, read it R times (default
 *                     0) and call the function W times
 *
 * It prints "var 0xADDR" and "func 0xADDR" first, on stderr (stdout is
 * left to the counting tool's report). It is built without PIE
 * (see the Makefile), so the addresses are the same in every run and a
 * counter can be set on them before it starts. Nothing else reads or
 * writes the variable: mem:VAR:w counts W, mem:VAR:rw W + R, mem:FUNC:x W.
 * At the end it prints "done W R". Bad arguments: exit 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile int bp_var = 1;	/* in .data: no one writes it at start */
volatile int bp_calls;

__attribute__((noinline)) void bp_func(void)
{
	bp_calls++;
}

static int count(const char *s, long *out)
{
	char *end;

	*out = strtol(s, &end, 10);
	return *s && !*end && *out >= 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	long w, r = 0, i;
	int sum = 0;

	if (argc < 2 || argc > 3 || (strcmp(argv[1], "-a") && count(argv[1], &w)) ||
	    (argc == 3 && count(argv[2], &r))) {
		fprintf(stderr, "usage: bpwrite -a | bpwrite WRITES [READS]\n");
		return 2;
	}
	fprintf(stderr, "var %p\nfunc %p\n", (void *)&bp_var, (void *)bp_func);
	if (!strcmp(argv[1], "-a"))
		return 0;
	for (i = 0; i < w; i++)
		bp_var = i;		/* one store */
	for (i = 0; i < r; i++)
		sum += bp_var;		/* one load */
	for (i = 0; i < w; i++)
		bp_func();
	fprintf(stderr, "done %ld %ld\n", w, r);
	return sum == -1;	/* sum used: the loads stay */
}
