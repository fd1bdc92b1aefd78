// SPDX-License-Identifier: GPL-2.0
/*
 * cgshape: call trees of known shape, for the callgraph tests (uprobes on
 * cg_* by name) and for uftrace (the same source built with -pg, as
 * cgshape-pg), which the tests use as an oracle.
 *
 *   cgshape [-w] SCENARIO [N [RATE]]
 *
 * Every cg_* function is global, noinline and has a side effect of its
 * own, so that each call in the source is a call in the binary, in the
 * order written. Trees per scenario ("*": a frame that never returns);
 * N repeats the tree (default 1):
 *
 *   nest      cg_a[cg_b[cg_c], cg_d, cg_c]                      5 calls
 *   recurse   cg_rec(4)[cg_rec(3)[cg_rec(2)[cg_rec(1)]]], then
 *             cg_fib(5): 15 calls, in the order of the recursion  19 calls
 *   deep      cg_rec(12)[cg_rec(11)[... cg_rec(1)]]: 12 nested calls
 *   threads   4 threads started together (a barrier), thread k
 *             running N x cg_thread_k, which calls cg_leaf k + 1
 *             times; the main thread calls no cg_* function
 *   fork      parent: cg_forker[cg_wait] (waitpid: blocked); the child,
 *             forked inside cg_forker, runs cg_child[cg_leaf x 3],
 *             returns from the cg_forker it inherited and exits; N forks
 *   signal    cg_sig_victim raises SIGUSR2: its handler runs inside it:
 *             cg_sig_victim[cg_handler[cg_leaf]]
 *   exit      cg_leaf, then cg_exit_outer*[cg_exit_mid*[cg_leaf,
 *             cg_exit_inner*]]: cg_exit_inner calls exit(0) (N is 1)
 *   longjmp   cg_jmp_outer[cg_jmp_mid*[cg_jmp_inner*], cg_after_jump[
 *             cg_leaf]]: cg_jmp_inner longjmps back into cg_jmp_outer,
 *             which then calls cg_after_jump
 *   sleep     cg_sleep_outer[cg_leaf, cg_nap]: cg_nap sleeps 20 ms
 *             (nanosleep), cg_leaf is short (for --min)
 *   io        cg_io: N x (read 4 KiB from /dev/zero, write them to
 *             /dev/null): N read and N write system calls (for kernel
 *             trees: vfs_read[rw_verify_area, read_zero], ...)
 *   loop      N x cg_leaf as fast as it can; prints the wall time per
 *             call (the benchmarks)
 *   rate      N x cg_leaf at RATE calls per second (a busy-wait paces
 *             them in 1 ms slots); prints the rate reached
 *
 * -w: print "pid PID" on stdout (flushed), then wait for SIGUSR1 (at most
 * 60 s) before running, so that a tracer can attach with -p PID first.
 *
 * At the end it prints "cgshape: SCENARIO N: WHAT" and exits 0 (exit too,
 * from cg_exit_inner; a forked child prints nothing). Bad arguments: exit
 * 2; a failed system call: exit 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
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
#define NAP_NS 20000000L	/* cg_nap */

#ifdef __clang__
#define CG __attribute__((noinline, used))
#else
/* noipa: no clone, no identical-code folding, no pure/const deduction */
#define CG __attribute__((noipa, used))
#endif

/* One counter per function: every cg_* has a side effect of its own */
enum { C_A, C_B, C_C, C_D, C_LEAF, C_REC, C_FIB, C_THREAD, C_FORKER, C_WAIT,
	C_CHILD, C_VICTIM, C_HANDLER, C_EXIT, C_JMP, C_AFTER, C_SLEEP, C_NAP,
	C_IO, C_MAX };
static volatile unsigned long hits[C_MAX];

static const char *scenario;
static long n = 1, rate;

static void die(const char *what)
{
	fprintf(stderr, "cgshape: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* ---- the traced functions ------------------------------------------------ */

CG void cg_leaf(void)
{
	hits[C_LEAF]++;
}

CG void cg_c(void)
{
	hits[C_C]++;
}

CG void cg_b(void)
{
	hits[C_B]++;
	cg_c();
}

CG void cg_d(void)
{
	hits[C_D]++;
}

CG void cg_a(void)
{
	hits[C_A]++;
	cg_b();
	cg_d();
	cg_c();
}

CG int cg_rec(int depth)
{
	hits[C_REC]++;
	if (depth > 1)
		return cg_rec(depth - 1) + 1;
	return 1;
}

CG int cg_fib(int k)
{
	hits[C_FIB]++;
	if (k < 2)
		return k;
	return cg_fib(k - 1) + cg_fib(k - 2);
}

/* thread k calls cg_leaf k + 1 times */
CG void cg_thread_0(void)
{
	hits[C_THREAD]++;
	cg_leaf();
}

CG void cg_thread_1(void)
{
	hits[C_THREAD]++;
	cg_leaf();
	cg_leaf();
}

CG void cg_thread_2(void)
{
	hits[C_THREAD]++;
	cg_leaf();
	cg_leaf();
	cg_leaf();
}

CG void cg_thread_3(void)
{
	hits[C_THREAD]++;
	cg_leaf();
	cg_leaf();
	cg_leaf();
	cg_leaf();
}

CG void cg_child(void)
{
	hits[C_CHILD]++;
	cg_leaf();
	cg_leaf();
	cg_leaf();
}

CG void cg_wait(pid_t pid)
{
	int status;

	hits[C_WAIT]++;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "cgshape: the child ended with status 0x%x\n", status);
		exit(1);
	}
}

/* Returns 0 in the child, after cg_child; the child's pid in the parent */
CG pid_t cg_forker(void)
{
	pid_t pid;

	hits[C_FORKER]++;
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		cg_child();
		return 0;
	}
	cg_wait(pid);
	return pid;
}

CG void cg_handler(int sig)
{
	(void)sig;
	hits[C_HANDLER]++;
	cg_leaf();
}

CG void cg_sig_victim(void)
{
	hits[C_VICTIM]++;
	if (raise(SIGUSR2))
		die("raise");
	hits[C_VICTIM]++;
}

CG void cg_exit_inner(void)
{
	hits[C_EXIT]++;
	printf("cgshape: exit 1: cg_leaf, then exit(0) from cg_exit_inner, 2 frames deeper\n");
	exit(fflush(stdout) ? 1 : 0);
}

CG void cg_exit_mid(void)
{
	hits[C_EXIT]++;
	cg_leaf();
	cg_exit_inner();
	hits[C_EXIT]++;
}

CG void cg_exit_outer(void)
{
	hits[C_EXIT]++;
	cg_exit_mid();
	hits[C_EXIT]++;
}

static jmp_buf jump;

CG void cg_jmp_inner(void)
{
	hits[C_JMP]++;
	longjmp(jump, 1);
}

CG void cg_jmp_mid(void)
{
	hits[C_JMP]++;
	cg_jmp_inner();
	hits[C_JMP]++;
}

CG void cg_after_jump(void)
{
	hits[C_AFTER]++;
	cg_leaf();
}

CG void cg_jmp_outer(void)
{
	hits[C_JMP]++;
	if (!setjmp(jump))
		cg_jmp_mid();
	cg_after_jump();
}

CG void cg_nap(void)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = NAP_NS };

	hits[C_NAP]++;
	while (nanosleep(&ts, &ts))
		if (errno != EINTR)
			die("nanosleep");
}

CG void cg_sleep_outer(void)
{
	hits[C_SLEEP]++;
	cg_leaf();
	cg_nap();
}

CG void cg_io(int in, int out, long count)
{
	static char buf[4096];
	long i;

	hits[C_IO]++;
	for (i = 0; i < count; i++) {
		if (read(in, buf, sizeof(buf)) != sizeof(buf))
			die("read /dev/zero");
		if (write(out, buf, sizeof(buf)) != sizeof(buf))
			die("write /dev/null");
	}
}

/* ---- scenarios ---------------------------------------------------------- */

static unsigned long long now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		die("clock_gettime");
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static pthread_barrier_t start_line;
static void (*const thread_fn[THREADS])(void) = {
	cg_thread_0, cg_thread_1, cg_thread_2, cg_thread_3,
};

static void *thread_main(void *arg)
{
	void (*fn)(void) = *(void (*const *)(void))arg;
	long i;

	pthread_barrier_wait(&start_line);
	for (i = 0; i < n; i++)
		fn();
	return NULL;
}

static void run_threads(void)
{
	pthread_t t[THREADS];
	int i, err;

	err = pthread_barrier_init(&start_line, NULL, THREADS);
	for (i = 0; i < THREADS && !err; i++)
		err = pthread_create(&t[i], NULL, thread_main, (void *)&thread_fn[i]);
	if (err) {
		errno = err;
		die("pthread_create");
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("cgshape: threads %ld: thread k runs %ld x cg_thread_k[cg_leaf x (k + 1)]\n", n, n);
}

static void run_fork(void)
{
	long i;

	for (i = 0; i < n; i++) {
		/* nothing buffered for the child to print twice */
		fflush(stdout);
		if (cg_forker() == 0)
			exit(0);
	}
	printf("cgshape: fork %ld: %ld x cg_forker[cg_wait], children cg_child[cg_leaf x 3]\n",
	       n, n);
}

static void run_signal(void)
{
	struct sigaction sa = { .sa_handler = cg_handler };
	long i;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR2, &sa, NULL))
		die("sigaction");
	for (i = 0; i < n; i++)
		cg_sig_victim();
	printf("cgshape: signal %ld: %ld x cg_sig_victim[cg_handler[cg_leaf]]\n", n, n);
}

static void run_io(void)
{
	int in = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	int out = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (in < 0 || out < 0)
		die("open /dev/zero, /dev/null");
	cg_io(in, out, n);
	close(in);
	close(out);
	printf("cgshape: io %ld: %ld x (read /dev/zero, write /dev/null), 4 KiB each\n", n, n);
}

static void run_loop(void)
{
	unsigned long long t0, t1;
	long i;

	t0 = now_ns();
	for (i = 0; i < n; i++)
		cg_leaf();
	t1 = now_ns();
	printf("cgshape: loop %ld: ns_per_call %.1f\n", n, (double)(t1 - t0) / (n ? n : 1));
}

/* RATE calls per second, in 1 ms slots of RATE / 1000 calls (at least 1) */
static void run_rate(void)
{
	unsigned long long t0, slot, t1;
	long per_slot = rate / 1000 > 0 ? rate / 1000 : 1, i = 0, j;

	slot = 1000000ULL * per_slot * 1000 / rate;
	t0 = now_ns();
	while (i < n) {
		for (j = 0; j < per_slot && i < n; j++, i++)
			cg_leaf();
		while (now_ns() < t0 + slot * (i / per_slot))
			;
	}
	t1 = now_ns();
	printf("cgshape: rate %ld %ld: %.0f calls/s over %.3f s\n", n, rate,
	       n * 1e9 / (double)(t1 - t0 ? t1 - t0 : 1), (t1 - t0) / 1e9);
}

static void run(void)
{
	long i;

	if (!strcmp(scenario, "nest")) {
		for (i = 0; i < n; i++)
			cg_a();
		printf("cgshape: nest %ld: %ld x cg_a[cg_b[cg_c], cg_d, cg_c]\n", n, n);
	} else if (!strcmp(scenario, "recurse")) {
		for (i = 0; i < n; i++) {
			cg_rec(4);
			cg_fib(5);
		}
		printf("cgshape: recurse %ld: %ld x (cg_rec(4): 4 calls, cg_fib(5): 15 calls)\n",
		       n, n);
	} else if (!strcmp(scenario, "deep")) {
		for (i = 0; i < n; i++)
			cg_rec(12);
		printf("cgshape: deep %ld: %ld x cg_rec(12): 12 nested calls\n", n, n);
	} else if (!strcmp(scenario, "threads")) {
		run_threads();
	} else if (!strcmp(scenario, "fork")) {
		run_fork();
	} else if (!strcmp(scenario, "signal")) {
		run_signal();
	} else if (!strcmp(scenario, "exit")) {
		cg_leaf();
		fflush(stdout);
		cg_exit_outer();
	} else if (!strcmp(scenario, "longjmp")) {
		for (i = 0; i < n; i++)
			cg_jmp_outer();
		printf("cgshape: longjmp %ld: %ld x cg_jmp_outer[cg_jmp_mid*[cg_jmp_inner*], "
		       "cg_after_jump[cg_leaf]]\n", n, n);
	} else if (!strcmp(scenario, "sleep")) {
		for (i = 0; i < n; i++)
			cg_sleep_outer();
		printf("cgshape: sleep %ld: %ld x cg_sleep_outer[cg_leaf, cg_nap (%ld ms)]\n",
		       n, n, NAP_NS / 1000000);
	} else if (!strcmp(scenario, "io")) {
		run_io();
	} else if (!strcmp(scenario, "loop")) {
		run_loop();
	} else if (!strcmp(scenario, "rate")) {
		run_rate();
	}
}

static const char *const scenarios[] = {
	"nest", "recurse", "deep", "threads", "fork", "signal", "exit", "longjmp", "sleep",
	"io", "loop", "rate", NULL,
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: cgshape [-w] SCENARIO [N [RATE]]\n"
		"Makes call trees of known shape for the callgraph tests.\n"
		"Scenarios: nest recurse threads fork signal exit longjmp sleep io loop rate\n"
		"(N repeats, default 1; RATE: calls per second of rate; see the top of\n"
		"tests/helpers/cgshape.c).\n"
		"  -w  print \"pid PID\", then wait for SIGUSR1 (at most %d s) before running\n",
		WAIT_SECONDS);
}

static int number(const char *s, long max, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (errno || *end || end == s || *v < 1 || *v > max) {
		fprintf(stderr, "cgshape: bad number '%s' (1 to %ld)\n", s, max);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int wait, nargs;

	scenario = held_args(argc, argv, "cgshape", usage, scenarios, 2, &wait);
	nargs = argc - optind;
	if (nargs >= 2 && number(argv[optind + 1], 100000000, &n))
		return 2;
	if (!strcmp(scenario, "rate") != (nargs == 3)) {
		fprintf(stderr, "cgshape: RATE goes with rate, and rate needs N and RATE\n");
		return 2;
	}
	if (nargs == 3 && number(argv[optind + 2], 1000000000, &rate))
		return 2;
	if (!strcmp(scenario, "exit") && n != 1) {
		fprintf(stderr, "cgshape: exit runs once\n");
		return 2;
	}
	if (wait)
		held_wait_usr1("cgshape", WAIT_SECONDS);
	run();
	return fflush(stdout) ? 1 : 0;
}
