// SPDX-License-Identifier: GPL-2.0
/*
 * softirqload: make softirqs for the softirqlat tests.
 *
 *   softirqload [-d SECONDS] [-n] [-t]
 *
 * -n  network: UDP datagrams over 127.0.0.1 to our own socket. The
 *     loopback device hands each one to the backlog and raises NET_RX
 *     (NET_TX only runs when a queue is throttled: rare on loopback).
 * -t  timers: per CPU, threads sleeping in recv() with a 1 ms SO_RCVTIMEO
 *     (schedule_timeout: a timer_list, expired by the TIMER softirq),
 *     and in nanosleep() and poll() with short timeouts (hrtimers).
 * Both by default. Runs -d seconds (default 5), prints one line with the
 * packets received and the wakeups, and exits 0. Bad arguments: exit 2.
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#define MAX_THREADS 256
#define TIMER_THREADS 3	/* per CPU */

static atomic_bool stop;
static atomic_ulong packets, sent, wakeups;
static int rx_fd = -1, tx_fd = -1;
static struct sockaddr_in rx_addr;

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: softirqload [-d SECONDS] [-n] [-t]\n"
		"Make softirqs: -n loopback UDP traffic (NET_RX), -t short\n"
		"timer_list and hrtimer sleeps (TIMER); both by default.\n"
		"  -d SECONDS  run time, default 5\n");
}

static void die(const char *what)
{
	fprintf(stderr, "softirqload: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void set_rcvtimeo(int fd, long usec)
{
	struct timeval tv = { .tv_sec = usec / 1000000, .tv_usec = usec % 1000000 };

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0)
		die("setsockopt(SO_RCVTIMEO)");
}

static int udp_socket(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die("socket");
	return fd;
}

static void net_setup(void)
{
	socklen_t len = sizeof(rx_addr);

	rx_fd = udp_socket();
	tx_fd = udp_socket();
	memset(&rx_addr, 0, sizeof(rx_addr));
	rx_addr.sin_family = AF_INET;
	rx_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(rx_fd, (struct sockaddr *)&rx_addr, sizeof(rx_addr)) < 0)
		die("bind 127.0.0.1");
	if (getsockname(rx_fd, (struct sockaddr *)&rx_addr, &len) < 0)
		die("getsockname");
	if (connect(tx_fd, (struct sockaddr *)&rx_addr, sizeof(rx_addr)) < 0)
		die("connect 127.0.0.1");
	/* wake up now and then to see the stop flag */
	set_rcvtimeo(rx_fd, 100000);
}

static void *net_tx(void *arg)
{
	char buf[64] = "softirqload";

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (send(tx_fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf)) {
			atomic_fetch_add_explicit(&sent, 1, memory_order_relaxed);
		} else if (errno != ENOBUFS && errno != EAGAIN &&
			   errno != ECONNREFUSED && errno != EINTR) {
			die("send");
		}
	}
	return NULL;
}

static void *net_rx(void *arg)
{
	char buf[256];

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (recv(rx_fd, buf, sizeof(buf), 0) >= 0)
			atomic_fetch_add_explicit(&packets, 1, memory_order_relaxed);
		else if (errno != EAGAIN && errno != EINTR)
			die("recv");
	}
	return NULL;
}

/* Pin to the CPU given (when it can) and sleep in short, timed waits */
static void *timers(void *arg)
{
	long cpu = (long)arg;
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 50000 };
	cpu_set_t set;
	char buf[16];
	unsigned long i;
	int fd;

	if (cpu < CPU_SETSIZE) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}

	/* an unbound socket nobody sends to: recv() only ever times out */
	fd = udp_socket();
	set_rcvtimeo(fd, 1000);
	for (i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++) {
		if (recv(fd, buf, sizeof(buf), 0) < 0 &&
		    errno != EAGAIN && errno != EINTR)
			die("recv (timer)");
		atomic_fetch_add_explicit(&wakeups, 1, memory_order_relaxed);
		if (i % 4 == 0) {
			nanosleep(&ts, NULL);
			poll(NULL, 0, 1);
			atomic_fetch_add_explicit(&wakeups, 2, memory_order_relaxed);
		}
	}
	close(fd);
	return NULL;
}

static int parse_seconds(const char *s, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > 86400)
		return -1;
	*out = v;
	return 0;
}

static void start(pthread_t *t, int *n, void *(*fn)(void *), void *arg)
{
	int err;

	if (*n >= MAX_THREADS)
		return;
	err = pthread_create(&t[*n], NULL, fn, arg);
	if (err) {
		errno = err;
		die("pthread_create");
	}
	(*n)++;
}

int main(int argc, char **argv)
{
	bool net = false, tmr = false;
	pthread_t threads[MAX_THREADS];
	struct timespec t0, t1, dur;
	long seconds = 5, ncpu, cpu;
	int opt, n = 0, i;

	opterr = 0;
	while ((opt = getopt(argc, argv, ":d:nth")) != -1) {
		switch (opt) {
		case 'd':
			if (parse_seconds(optarg, &seconds)) {
				fprintf(stderr, "softirqload: -d: '%s' is not a number of seconds (1-86400)\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			net = true;
			break;
		case 't':
			tmr = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "softirqload: -%c needs an argument\n", optopt);
			usage(stderr);
			return 2;
		default:
			fprintf(stderr, "softirqload: unknown option -%c\n", optopt);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "softirqload: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!net && !tmr)
		net = tmr = true;

	if (net) {
		net_setup();
		start(threads, &n, net_rx, NULL);
		start(threads, &n, net_tx, NULL);
	}
	if (tmr) {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		if (ncpu < 1)
			ncpu = 1;
		/* a few per CPU, so that one always has a timer pending */
		for (cpu = 0; cpu < ncpu * TIMER_THREADS; cpu++)
			start(threads, &n, timers, (void *)(cpu % ncpu));
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	dur.tv_sec = seconds;
	dur.tv_nsec = 0;
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &dur, &dur) == EINTR)
		;
	atomic_store(&stop, true);
	for (i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	printf("softirqload: %.2f s, packets %lu (sent %lu), wakeups %lu\n",
	       (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       atomic_load(&packets), atomic_load(&sent), atomic_load(&wakeups));
	return 0;
}
