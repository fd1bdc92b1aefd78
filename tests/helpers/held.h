/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test programs' -w: print "pid PID", then wait for SIGUSR1 (at most
 * seconds) before running, so that a tracer can attach first. Exit 1 when
 * it does not come. And the command line of those that run scenarios.
 */
#ifndef KFIT_TEST_HELD_H
#define KFIT_TEST_HELD_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void held_wait_usr1(const char *prog, int seconds)
{
	struct timespec limit = { .tv_sec = seconds };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	/* blocked before the pid is printed: a SIGUSR1 sent at once stays pending */
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		goto fail;
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	while (sigtimedwait(&set, NULL, &limit) < 0) {
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			fprintf(stderr, "%s: no SIGUSR1 within %d s\n", prog, seconds);
			exit(1);
		}
		goto fail;
	}
	return;
fail:
	fprintf(stderr, "%s: waiting for SIGUSR1: %s\n", prog, strerror(errno));
	exit(1);
}

/*
 * "[-w] SCENARIO [ARG]...", at most maxargs ARGs, or -h: SCENARIO, one of
 * names (NULL-terminated), its ARGs at argv[optind + 1] on, and *wait for
 * -w. Otherwise exits after usage: 0 for -h, 2 for a bad command line.
 */
static inline const char *held_args(int argc, char **argv, const char *prog,
				    void (*usage)(FILE *f), const char *const *names,
				    int maxargs, int *wait)
{
	int opt, i;

	*wait = 0;
	while ((opt = getopt(argc, argv, "+wh")) != -1) {
		switch (opt) {
		case 'w':
			*wait = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind >= argc || argc - optind > 1 + maxargs) {
		usage(stderr);
		exit(2);
	}
	for (i = 0; names[i]; i++)
		if (!strcmp(argv[optind], names[i]))
			return names[i];
	fprintf(stderr, "%s: unknown scenario '%s'\n", prog, argv[optind]);
	usage(stderr);
	exit(2);
}

#endif
