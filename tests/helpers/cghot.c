// SPDX-License-Identifier: GPL-2.0
/*
 * cghot: a busy process of known profile, for callgraph's sampled mode
 * ("the hot function on top, with its callers").
 *
 *   cghot [SECONDS]
 *
 * Prints "pid PID" (flushed), then computes for SECONDS of wall time
 * (default 3; 0: until killed), making no system call meanwhile (the
 * clock is read through the vDSO):
 *
 *   main -> middle -> hot_loop        9 units of work in 10
 *   main -> cold_path -> cold_loop    1 unit in 10
 *
 * so about 90% of its samples have hot_loop on top, under middle, under
 * main, and about 10% cold_loop under cold_path. Built with frame
 * pointers (the Makefile says so), which is how sampled user stacks are
 * walked. Exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define UNIT	200000	/* iterations of a unit of work: about 0.2 ms */

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A unit of arithmetic the compiler cannot fold away */
static inline unsigned long work(unsigned long x)
{
	long i;

	for (i = 0; i < UNIT; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		asm volatile("" : "+r"(x));
	}
	return x;
}

/*
 * The leaves keep x in a stack slot: gcc gives a function that never
 * touches its stack no frame, -fno-omit-frame-pointer or not, and a walk
 * by frame pointers would then skip its caller
 */
__attribute__((noinline)) unsigned long hot_loop(unsigned long x)
{
	volatile unsigned long keep = x;
	int i;

	for (i = 0; i < 9; i++)
		keep = work(keep);
	return keep;
}

__attribute__((noinline)) unsigned long middle(unsigned long x)
{
	x = hot_loop(x);
	/* Not a tail call: middle stays on the stack */
	asm volatile("" : "+r"(x));
	return x;
}

__attribute__((noinline)) unsigned long cold_loop(unsigned long x)
{
	volatile unsigned long keep = work(x);

	return keep;
}

__attribute__((noinline)) unsigned long cold_path(unsigned long x)
{
	x = cold_loop(x);
	asm volatile("" : "+r"(x));
	return x;
}

int main(int argc, char **argv)
{
	char *end;
	long secs = argc > 1 ? strtol(argv[1], &end, 10) : 3;
	unsigned long long stop;
	unsigned long x = 1;

	if (argc > 2 || (argc > 1 && (*end || secs < 0))) {
		fprintf(stderr, "usage: cghot [SECONDS]\n");
		return 2;
	}
	printf("pid %d\n", getpid());
	fflush(stdout);
	stop = now_ns() + secs * 1000000000ULL;
	while (!secs || now_ns() < stop) {
		x = middle(x);
		x = cold_path(x);
	}
	return x == 42;	/* almost never: keeps x alive */
}
