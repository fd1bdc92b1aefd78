// SPDX-License-Identifier: GPL-2.0
/*
 * deepstack: stacks of known frames in a program built as Debian builds
 * (-O2, no frame pointers: the Makefile says so), for callgraph's user
 * stack unwinding. Each scenario ends in spin(), a busy loop:
 *
 *   deepstack SCENARIO [SECONDS]
 *
 *   chain    main -> c00 -> c01 -> ... -> c41 -> spin       (44 frames from main)
 *   lib      main -> l_a -> dl_enter -> dl_one -> dl_two (libdeeplib.so)
 *            -> l_back (a callback, in the program) -> spin
 *   signal   main -> s_a -> s_b -> s_loop (busy); SIGPROF every 10 ms of
 *            its CPU time runs on_prof -> h_a -> spin for 2 ms, on the
 *            interrupted stack
 *   recurse  main -> rec x 41 -> spin   (rec(0) jumps to spin, a tail call:
 *            40 frames of rec are on the stack, as gdb shows)
 *   inline   main -> i_outer -> i_mid -> i_inner -> spin, i_mid and
 *            i_inner inlined into i_outer (DWARF names them)
 *
 * It computes for SECONDS of CPU time (default 3; 0: until killed),
 * making no system call meanwhile but the timer's, then exits 0.
 * Usage errors exit 2.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/time.h>

#define NOIPA	__attribute__((noipa))

typedef unsigned long (*dl_back_fn)(unsigned long);
unsigned long dl_enter(unsigned long x, dl_back_fn back);

static double seconds = 3;
static volatile sig_atomic_t in_handler;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int over(void)
{
	return seconds > 0 && cpu_now() >= seconds;
}

/* Arithmetic the compiler cannot fold, for about d seconds of CPU */
NOIPA unsigned long spin(unsigned long x, double d)
{
	double end = cpu_now() + d;
	long i;

	do {
		for (i = 0; i < 100000; i++) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			asm volatile("" : "+r"(x));
		}
	} while (cpu_now() < end && !(d > 1 && over()));
	return x;
}

/* ---- chain --------------------------------------------------------------- */

/* A link: calls the next, then uses its result, so the call is no tail call */
#define LINK(name, next)						\
	NOIPA unsigned long name(unsigned long x)			\
	{								\
		unsigned long r = next(x + 1);				\
		asm volatile("" : "+r"(r));				\
		return r ^ x;						\
	}

NOIPA unsigned long c41(unsigned long x)
{
	unsigned long r = spin(x, seconds > 0 ? seconds : 1e9);

	asm volatile("" : "+r"(r));
	return r ^ x;
}

LINK(c40, c41) LINK(c39, c40) LINK(c38, c39) LINK(c37, c38) LINK(c36, c37)
LINK(c35, c36) LINK(c34, c35) LINK(c33, c34) LINK(c32, c33) LINK(c31, c32)
LINK(c30, c31) LINK(c29, c30) LINK(c28, c29) LINK(c27, c28) LINK(c26, c27)
LINK(c25, c26) LINK(c24, c25) LINK(c23, c24) LINK(c22, c23) LINK(c21, c22)
LINK(c20, c21) LINK(c19, c20) LINK(c18, c19) LINK(c17, c18) LINK(c16, c17)
LINK(c15, c16) LINK(c14, c15) LINK(c13, c14) LINK(c12, c13) LINK(c11, c12)
LINK(c10, c11) LINK(c09, c10) LINK(c08, c09) LINK(c07, c08) LINK(c06, c07)
LINK(c05, c06) LINK(c04, c05) LINK(c03, c04) LINK(c02, c03) LINK(c01, c02)
LINK(c00, c01)

/* ---- lib ------------------------------------------------------------------ */

NOIPA unsigned long l_back(unsigned long x)
{
	unsigned long r = spin(x, seconds > 0 ? seconds : 1e9);

	asm volatile("" : "+r"(r));
	return r ^ x;
}

NOIPA unsigned long l_a(unsigned long x)
{
	unsigned long r = dl_enter(x, l_back);

	asm volatile("" : "+r"(r));
	return r ^ x;
}

/* ---- signal --------------------------------------------------------------- */

NOIPA unsigned long h_a(unsigned long x)
{
	unsigned long r = spin(x, 0.002);

	asm volatile("" : "+r"(r));
	return r ^ x;
}

NOIPA void on_prof(int sig)
{
	in_handler = 1;
	h_a(sig);
	in_handler = 0;
}

NOIPA unsigned long s_loop(unsigned long x)
{
	while (!over()) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		asm volatile("" : "+r"(x));
	}
	return x;
}

LINK(s_b, s_loop)
LINK(s_a, s_b)

static int start_timer(void)
{
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGPROF, &sa, NULL) || setitimer(ITIMER_PROF, &it, NULL)) {
		perror("deepstack: SIGPROF timer");
		return -1;
	}
	return 0;
}

/* ---- recurse -------------------------------------------------------------- */

NOIPA unsigned long rec(int n, unsigned long x)
{
	unsigned long r;

	if (!n)
		return spin(x, seconds > 0 ? seconds : 1e9);
	r = rec(n - 1, x + n);
	asm volatile("" : "+r"(r));
	return r ^ n;
}

/* ---- inline --------------------------------------------------------------- */

static inline __attribute__((always_inline)) unsigned long i_inner(unsigned long x)
{
	unsigned long r = spin(x, seconds > 0 ? seconds : 1e9);	/* i_inner's call */

	asm volatile("" : "+r"(r));
	return r ^ x;
}

static inline __attribute__((always_inline)) unsigned long i_mid(unsigned long x)
{
	unsigned long r = i_inner(x + 1);	/* i_mid's call */

	asm volatile("" : "+r"(r));
	return r ^ x;
}

NOIPA unsigned long i_outer(unsigned long x)
{
	unsigned long r = i_mid(x + 1);	/* i_outer's call */

	asm volatile("" : "+r"(r));
	return r ^ x;
}

static int usage(void)
{
	fprintf(stderr, "usage: deepstack chain|lib|signal|recurse|inline [SECONDS]\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long r;
	char *end;

	if (argc < 2 || argc > 3)
		return usage();
	if (argc == 3) {
		seconds = strtod(argv[2], &end);
		if (*end || seconds < 0)
			return usage();
	}
	if (!strcmp(argv[1], "chain"))
		r = c00(1);
	else if (!strcmp(argv[1], "lib"))
		r = l_a(1);
	else if (!strcmp(argv[1], "signal"))
		r = start_timer() ? 0 : s_a(1);
	else if (!strcmp(argv[1], "recurse"))
		r = rec(40, 1);
	else if (!strcmp(argv[1], "inline"))
		r = i_outer(1);
	else
		return usage();
	/* the result used, so that nothing is folded away */
	return r == 42 && in_handler ? 3 : 0;
}
