// SPDX-License-Identifier: GPL-2.0
/*
 * leasehold: makes another process's open() of a file wait, so that a test
 * can hold a tool inside its start-up (e.g. funcdur reading a BINARY of a
 * BINARY:FUNC target) for as long as it likes, without timing.
 *
 *   leasehold FILE
 *
 * It takes a write lease on FILE (which nobody else may have open: root,
 * or FILE's owner), prints "held" (flushed), and when another process
 * opens FILE (that open then waits for the lease to go, up to
 * /proc/sys/fs/lease-break-time seconds) prints "opened". It keeps the
 * lease until it is killed, and gives up after 60 s (exit 1 if nobody
 * opened FILE, 0 if someone did). Cannot take the lease: a message,
 * exit 1. Bad arguments: exit 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WAIT_SECONDS 60

static void die(const char *what)
{
	fprintf(stderr, "leasehold: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Wait for sig (blocked) until the deadline; 0 if it came */
static int wait_sig(const sigset_t *set, time_t deadline)
{
	struct timespec ts = { 0 };
	time_t now;

	for (;;) {
		now = time(NULL);
		if (now >= deadline)
			return -1;
		ts.tv_sec = deadline - now;
		if (sigtimedwait(set, NULL, &ts) >= 0)
			return 0;
		if (errno != EINTR && errno != EAGAIN)
			die("sigtimedwait");
	}
}

int main(int argc, char **argv)
{
	time_t deadline = time(NULL) + WAIT_SECONDS;
	sigset_t set;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: leasehold FILE\n");
		return 2;
	}
	/* the lease break is signalled by SIGIO: taken here, never by default */
	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		die("sigprocmask");
	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		die(argv[1]);
	if (fcntl(fd, F_SETLEASE, F_WRLCK))
		die("F_SETLEASE F_WRLCK");
	printf("held\n");
	fflush(stdout);
	if (wait_sig(&set, deadline)) {
		fprintf(stderr, "leasehold: nobody opened %s in %d s\n", argv[1],
			WAIT_SECONDS);
		return 1;
	}
	printf("opened\n");
	fflush(stdout);
	/* keep the lease: the opener waits until we are killed */
	while (time(NULL) < deadline)
		sleep(1);
	return 0;
}
