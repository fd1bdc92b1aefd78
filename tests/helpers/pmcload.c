// SPDX-License-Identifier: GPL-2.0
/*
 * pmcload: workloads whose event counts are known, for the pmcstat tests
 * and benchmark.
 *
 *   pmcload [-w] [-q] MODE [ARGS]
 *
 *   pages N          write one byte to each of N fresh anonymous pages (no
 *                    transparent huge pages): N page faults, all from user
 *                    mode, besides the few of starting and ending
 *   threads A B      the main thread touches A fresh pages and a second
 *                    thread B (created before -w waits): -p sees A + B
 *                    faults, -t MAIN A, -t WORKER B
 *   spin MS          burn MS ms of CPU time (the process's CPU clock, so
 *                    preemption does not shorten it): task-clock is MS ms
 *                    plus starting and ending
 *   getppid N        the getppid system call N times (syscall(2), never
 *                    cached): syscalls:sys_enter_getppid counts N
 *   forks N          N x (fork(), the child _exits at once, waitpid()):
 *                    sched:sched_process_fork counts N
 *   pingpong N [CPU] two threads pass a byte back and forth over two pipes
 *                    N times; with CPU both run on that CPU only: then
 *                    each pass is two context switches, one per side
 *
 * It prints "pid PID" first (flushed) and, for threads and pingpong,
 * "worker TID" (the second thread). With -w it then waits for SIGUSR1
 * before the work (so a counter can be attached to it first), giving up
 * after 60 s (exit 1). -q: nothing on stdout (for a counting tool whose
 * own report goes there). At the end it prints:
 *   pages, threads: "touched N"      spin: "cpu_ns N"
 *   getppid, forks: "done N"
 *   pingpong: "tid TID switches S" for each of the two threads (its
 *   voluntary + involuntary context switches, from getrusage(RUSAGE_THREAD)
 *   at the end of its loop), then "passes N wall_ns NS"
 * Bad arguments: exit 2; a failed system call: exit 1.
 */
#include <errno.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WAIT_SECONDS 60

static void die(const char *what)
{
	fprintf(stderr, "pmcload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: pmcload [-w] [-q] pages N | threads A B | spin MS | "
		"getppid N | forks N | pingpong N [CPU]\n");
	exit(2);
}

static long arg_num(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0)
		usage();
	return v;
}

static unsigned long long clock_ns(clockid_t c)
{
	struct timespec ts;

	if (clock_gettime(c, &ts))
		die("clock_gettime");
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* SIGUSR1 is blocked from the start (threads inherit the mask) */
static void block_usr1(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, set, NULL))
		die("sigprocmask");
}

static void wait_usr1(const sigset_t *set)
{
	struct timespec ts = { .tv_sec = WAIT_SECONDS };

	while (sigtimedwait(set, NULL, &ts) < 0) {
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			fprintf(stderr, "pmcload: no SIGUSR1 in %d s\n", WAIT_SECONDS);
			exit(1);
		}
		die("sigtimedwait");
	}
}

/* Touch n fresh pages: one fault each */
static void touch_pages(long n)
{
	long page = sysconf(_SC_PAGESIZE), i;
	volatile char *p;

	if (n == 0)
		return;
	p = mmap(NULL, (size_t)n * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap");
	/* one fault per 4 KiB page, not one per 2 MiB */
	madvise((void *)p, (size_t)n * page, MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * page] = 1;
	munmap((void *)p, (size_t)n * page);
}

/* ---- threads ------------------------------------------------------------ */

static int go_pipe[2];
static pid_t tids[2];
static pthread_barrier_t start_barrier;
static long worker_pages;

static void *pages_worker(void *arg)
{
	char c;

	(void)arg;
	tids[1] = gettid_();
	pthread_barrier_wait(&start_barrier);
	if (read(go_pipe[0], &c, 1) != 1)
		die("read");
	touch_pages(worker_pages);
	return NULL;
}

/* ---- pingpong ------------------------------------------------------------ */

static int ping[2], pong[2];
static long passes;
static long switches[2];

static long my_switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		die("getrusage");
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

static void *pong_worker(void *arg)
{
	char c = 0;
	long i;

	(void)arg;
	tids[1] = gettid_();
	pthread_barrier_wait(&start_barrier);
	for (i = 0; i < passes; i++) {
		if (read(ping[0], &c, 1) != 1)
			die("read");
		if (write(pong[1], &c, 1) != 1)
			die("write");
	}
	switches[1] = my_switches();
	return NULL;
}

int main(int argc, char **argv)
{
	int wait_signal = 0;
	const char *mode;
	sigset_t usr1;
	pthread_t th;
	long a, i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (; argc > 1 && argv[1][0] == '-'; argv++, argc--) {
		if (!strcmp(argv[1], "-w"))
			wait_signal = 1;
		else if (!strcmp(argv[1], "-q")) {
			if (!freopen("/dev/null", "w", stdout))
				die("/dev/null");
		} else
			usage();
	}
	if (argc < 3)
		usage();
	mode = argv[1];
	a = arg_num(argv[2]);
	block_usr1(&usr1);
	printf("pid %d\n", (int)getpid());

	if (!strcmp(mode, "pages") && argc == 3) {
		if (wait_signal)
			wait_usr1(&usr1);
		touch_pages(a);
		printf("touched %ld\n", a);
	} else if (!strcmp(mode, "threads") && argc == 4) {
		worker_pages = arg_num(argv[3]);
		if (pipe(go_pipe))
			die("pipe");
		if (pthread_barrier_init(&start_barrier, NULL, 2))
			die("pthread_barrier_init");
		if (pthread_create(&th, NULL, pages_worker, NULL))
			die("pthread_create");
		pthread_barrier_wait(&start_barrier);
		printf("worker %d\n", (int)tids[1]);
		if (wait_signal)
			wait_usr1(&usr1);
		if (write(go_pipe[1], "g", 1) != 1)
			die("write");
		touch_pages(a);
		pthread_join(th, NULL);
		printf("touched %ld\n", a + worker_pages);
	} else if (!strcmp(mode, "spin") && argc == 3) {
		unsigned long long t0, t;

		if (wait_signal)
			wait_usr1(&usr1);
		t0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		do
			t = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		while (t - t0 < (unsigned long long)a * 1000000ULL);
		printf("cpu_ns %llu\n", t - t0);
	} else if (!strcmp(mode, "getppid") && argc == 3) {
		if (wait_signal)
			wait_usr1(&usr1);
		for (i = 0; i < a; i++)
			syscall(SYS_getppid);
		printf("done %ld\n", a);
	} else if (!strcmp(mode, "forks") && argc == 3) {
		if (wait_signal)
			wait_usr1(&usr1);
		for (i = 0; i < a; i++) {
			pid_t p = fork();

			if (p < 0)
				die("fork");
			if (p == 0)
				_exit(0);
			if (waitpid(p, NULL, 0) != p)
				die("waitpid");
		}
		printf("done %ld\n", a);
	} else if (!strcmp(mode, "pingpong") && (argc == 3 || argc == 4)) {
		unsigned long long t0, t1;
		char c = 0;

		passes = a;
		if (argc == 4) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET((int)arg_num(argv[3]), &set);
			/* before the worker exists: it inherits the affinity */
			if (sched_setaffinity(0, sizeof(set), &set))
				die("sched_setaffinity");
		}
		if (pipe(ping) || pipe(pong))
			die("pipe");
		if (pthread_barrier_init(&start_barrier, NULL, 2))
			die("pthread_barrier_init");
		tids[0] = gettid_();
		if (pthread_create(&th, NULL, pong_worker, NULL))
			die("pthread_create");
		pthread_barrier_wait(&start_barrier);
		printf("worker %d\n", (int)tids[1]);
		if (wait_signal)
			wait_usr1(&usr1);
		t0 = clock_ns(CLOCK_MONOTONIC);
		for (i = 0; i < passes; i++) {
			if (write(ping[1], &c, 1) != 1)
				die("write");
			if (read(pong[0], &c, 1) != 1)
				die("read");
		}
		t1 = clock_ns(CLOCK_MONOTONIC);
		switches[0] = my_switches();
		pthread_join(th, NULL);
		printf("tid %d switches %ld\n", (int)tids[0], switches[0]);
		printf("tid %d switches %ld\n", (int)tids[1], switches[1]);
		printf("passes %ld wall_ns %llu\n", passes, t1 - t0);
	} else {
		usage();
	}
	return 0;
}
