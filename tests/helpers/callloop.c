// SPDX-License-Identifier: GPL-2.0
/*
 * callloop: call an empty function N times and print the wall time per
 * call, for measuring what a uprobe-based tracer adds to each call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) int cl_empty(int x)
{
	asm volatile("" : "+r"(x));
	return x;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, i;
	double t0, t1;
	int acc = 0;

	if (n <= 0) {
		fprintf(stderr, "usage: callloop [N]\n");
		return 2;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		acc += cl_empty((int)i);
	t1 = now_ns();
	printf("calls %ld ns_per_call %.1f (%d)\n", n, (t1 - t0) / n, acc & 1);
	return 0;
}
