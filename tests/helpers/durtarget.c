// SPDX-License-Identifier: GPL-2.0
/*
 * durtarget: functions that take known times, traced by the funcdur tests
 * through uprobes.
 *
 *   durtarget [-w] SCENARIO [N]
 *
 * Every traced function is global, noinline and named dt_*; times are
 * busy-waits against CLOCK_MONOTONIC (no system call: clock_gettime is in
 * the vDSO), so they hold whatever the tracing costs per call.
 *
 *   dt_spin(ns)     busy-waits ns           dt_sleep(ns)  nanosleep(ns)
 *   dt_inner()      dt_spin(200 us)
 *   dt_outer()      dt_spin(100 us), dt_inner() twice, mid_untraced() once,
 *                   which calls dt_inner() once: about 700 us, 100 us of it
 *                   its own, 600 us in dt_inner (3 calls)
 *   dt_recurse(d)   dt_spin(50 us), then dt_recurse(d - 1) while d > 1:
 *                   dt_recurse(4) is 4 calls of 200, 150, 100 and 50 us,
 *                   each with 50 us of its own
 *   dt_deep(d)      dt_deep(d - 1) while d > 1, then dt_spin(50 us): the
 *                   returns are 50 us apart, dt_deep(d) takes d x 50 us
 *   dt_short()      dt_spin(10 us)          dt_long()     dt_spin(2 ms; or
 *                                           $DURTARGET_LONG_US us: kd --diff's
 *                                           tests make it slower)
 *   dt_ret(x)       returns 2 * x
 *   dt_start_marker(), dt_stop_marker()     next to nothing (markers)
 *
 * Scenarios (N defaults to 10):
 *   spin        N x dt_short(), then N x dt_long()
 *   nest        N x dt_outer()
 *   recurse     N x dt_recurse(4)
 *   deep        N x dt_deep(40): deeper than funcdur's stacks (32)
 *   sleep       N x dt_sleep(1 ms)
 *   threads     4 threads, each N x dt_inner()
 *   ret         dt_ret(i) for i = 0 .. N-1
 *   start-stop  N x dt_short(), dt_start_marker(), N x dt_short(),
 *               dt_stop_marker(), N x dt_short()
 *   fork        N x (fork(), the child _exits at once, waitpid())
 *   idle        nothing (a process to filter on that calls nothing)
 *
 * -w: print "pid PID" on stdout (flushed), then wait for SIGUSR1 before
 * running, so a test can attach with -p PID first. It gives up after 60 s
 * (exit 1). The wait makes no system call that sys:read, sys:nanosleep or
 * sys:clock_nanosleep would see (rt_sigtimedwait).
 *
 * At the end it prints one line, "durtarget: SCENARIO N: WHAT", and exits
 * 0. Bad arguments: exit 2; a failed system call: exit 1.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "held.h"

#define THREADS 4
#define WAIT_SECONDS 60

#ifdef __clang__
#define TRACED __attribute__((noinline, used))
#else
#define TRACED __attribute__((noinline, noclone, used))
#endif
/* keeps a function a function of its own, and a call a call (not a jump) */
#define BARRIER() asm volatile("" ::: "memory")

static const char *scenario;
static long n = 10;

static void die(const char *what)
{
	fprintf(stderr, "durtarget: %s: %s\n", what, strerror(errno));
	exit(1);
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		die("clock_gettime");
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- the traced functions ------------------------------------------------ */

TRACED void dt_spin(unsigned long long ns)
{
	unsigned long long end = now_ns() + ns;

	BARRIER();
	while (now_ns() < end)
		BARRIER();
}

TRACED void dt_sleep(unsigned long long ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ULL, .tv_nsec = ns % 1000000000ULL };

	BARRIER();
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	BARRIER();
}

TRACED void dt_inner(void)
{
	BARRIER();
	dt_spin(200000);
	BARRIER();
}

/* Deliberately not dt_*: a function the tests do not trace */
TRACED void mid_untraced(void)
{
	BARRIER();
	dt_inner();
	BARRIER();
}

TRACED void dt_outer(void)
{
	BARRIER();
	dt_spin(100000);
	dt_inner();
	dt_inner();
	mid_untraced();
	BARRIER();
}

TRACED void dt_recurse(int depth)
{
	BARRIER();
	dt_spin(50000);
	if (depth > 1)
		dt_recurse(depth - 1);
	BARRIER();
}

TRACED void dt_deep(int depth)
{
	BARRIER();
	if (depth > 1)
		dt_deep(depth - 1);
	dt_spin(50000);
	BARRIER();
}

TRACED void dt_short(void)
{
	BARRIER();
	dt_spin(10000);
	BARRIER();
}

static long long_ns = 2000000;

TRACED void dt_long(void)
{
	BARRIER();
	dt_spin(long_ns);
	BARRIER();
}

TRACED long dt_ret(long x)
{
	asm volatile("" : "+r"(x));
	return x * 2;
}

static volatile int markers;

TRACED void dt_start_marker(void)
{
	markers++;
}

TRACED void dt_stop_marker(void)
{
	markers--;
}

/* ---- scenarios ---------------------------------------------------------- */

static void *inner_thread(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < n; i++)
		dt_inner();
	return NULL;
}

static void run_threads(void)
{
	pthread_t t[THREADS];
	int i, err;

	for (i = 0; i < THREADS; i++) {
		err = pthread_create(&t[i], NULL, inner_thread, NULL);
		if (err) {
			errno = err;
			die("pthread_create");
		}
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("durtarget: threads %ld: %d threads x %ld dt_inner\n", n, THREADS, n);
}

static void run_fork(void)
{
	long i;
	pid_t pid;
	int status;

	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, &status, 0) < 0)
			die("waitpid");
	}
	printf("durtarget: fork %ld: %ld x fork+waitpid\n", n, n);
}

static void run(void)
{
	long i;

	if (!strcmp(scenario, "spin")) {
		for (i = 0; i < n; i++)
			dt_short();
		for (i = 0; i < n; i++)
			dt_long();
		printf("durtarget: spin %ld: %ld x dt_short (10us), %ld x dt_long (%ldus)\n",
		       n, n, n, long_ns / 1000);
	} else if (!strcmp(scenario, "nest")) {
		for (i = 0; i < n; i++)
			dt_outer();
		printf("durtarget: nest %ld: %ld x dt_outer, %ld x dt_inner\n", n, n, 3 * n);
	} else if (!strcmp(scenario, "recurse")) {
		for (i = 0; i < n; i++)
			dt_recurse(4);
		printf("durtarget: recurse %ld: %ld x dt_recurse(4), %ld calls\n", n, n, 4 * n);
	} else if (!strcmp(scenario, "deep")) {
		for (i = 0; i < n; i++)
			dt_deep(40);
		printf("durtarget: deep %ld: %ld x dt_deep(40), %ld calls\n", n, n, 40 * n);
	} else if (!strcmp(scenario, "sleep")) {
		for (i = 0; i < n; i++)
			dt_sleep(1000000);
		printf("durtarget: sleep %ld: %ld x dt_sleep (1ms)\n", n, n);
	} else if (!strcmp(scenario, "threads")) {
		run_threads();
	} else if (!strcmp(scenario, "ret")) {
		long sum = 0;

		for (i = 0; i < n; i++)
			sum += dt_ret(i);
		printf("durtarget: ret %ld: dt_ret(0 .. %ld), sum %ld\n", n, n - 1, sum);
	} else if (!strcmp(scenario, "start-stop")) {
		for (i = 0; i < n; i++)
			dt_short();
		dt_start_marker();
		for (i = 0; i < n; i++)
			dt_short();
		dt_stop_marker();
		for (i = 0; i < n; i++)
			dt_short();
		printf("durtarget: start-stop %ld: %ld x dt_short, start, %ld, stop, %ld\n",
		       n, n, n, n);
	} else if (!strcmp(scenario, "fork")) {
		run_fork();
	} else if (!strcmp(scenario, "idle")) {
		printf("durtarget: idle\n");
	}
}

static const char *const scenarios[] = {
	"spin", "nest", "recurse", "sleep", "threads", "ret", "start-stop", "fork", "idle",
	"deep", NULL,
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: durtarget [-w] SCENARIO [N]\n"
		"Calls functions of known durations for the funcdur tests.\n"
		"Scenarios: spin nest recurse sleep threads ret start-stop fork idle deep\n"
		"(N defaults to 10; see the top of tests/helpers/durtarget.c).\n"
		"  -w  print \"pid PID\", then wait for SIGUSR1 (at most %d s) before running\n",
		WAIT_SECONDS);
}

int main(int argc, char **argv)
{
	int wait;
	char *end;

	scenario = held_args(argc, argv, "durtarget", usage, scenarios, 1, &wait);
	if (getenv("DURTARGET_LONG_US"))
		long_ns = 1000 * strtol(getenv("DURTARGET_LONG_US"), NULL, 10);
	if (argc - optind == 2) {
		errno = 0;
		n = strtol(argv[optind + 1], &end, 10);
		if (errno || *end || end == argv[optind + 1] || n < 0 || n > 1000000) {
			fprintf(stderr, "durtarget: bad count '%s'\n", argv[optind + 1]);
			return 2;
		}
	}
	if (wait)
		held_wait_usr1("durtarget", WAIT_SECONDS);
	run();
	return fflush(stdout) ? 1 : 0;
}
