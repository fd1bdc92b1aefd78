// SPDX-License-Identifier: GPL-2.0
/*
 * pmcfloor: loads one of pmcstat --per-task's floors (pmcfloor.bpf.c) on
 * sched_switch until SIGINT or SIGTERM, with software counters open on
 * every CPU as pmcstat opens them: context-switches and cpu-clock
 * (--per-task's bench events), or only one of them.
 *
 *   pmcfloor empty|read|count [cs|cpu-clock]
 *
 * Prints "pmcfloor: MODE attached" on stderr once attached, and at the end
 * "pmcfloor: MODE: read errors N". Everything is detached when the process
 * ends, however it ends (the links and counters die with their descriptors).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "pmcfloor.skel.h"

static __u64 events[] = { PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_CPU_CLOCK };
static __u32 nev = 2;

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/* Opens every event on every online CPU into the counters array */
static int open_counters(struct pmcfloor_bpf *skel, int ncpus)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
						    PERF_FORMAT_TOTAL_TIME_RUNNING };
	int mfd = bpf_map__fd(skel->maps.counters);
	__u32 ev, cpu, key;
	int fd;

	for (ev = 0; ev < nev; ev++) {
		a.config = events[ev];
		for (cpu = 0; cpu < (__u32)ncpus; cpu++) {
			fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
			if (fd < 0) {
				if (errno == ENODEV || errno == EINVAL)
					continue;	/* an offline CPU */
				return -errno;
			}
			key = ev * ncpus + cpu;
			if (bpf_map_update_elem(mfd, &key, &fd, BPF_ANY))
				return -errno;
			/* the array holds the event: the fd may go */
			close(fd);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = { "empty", "read", "count" };
	struct sigaction sa = { .sa_handler = on_signal };
	struct bpf_program *progs[3];
	struct pmcfloor_bpf *skel;
	int mode, ncpus, i, err;

	for (mode = 0; (argc == 2 || argc == 3) && mode < 3; mode++)
		if (!strcmp(argv[1], modes[mode]))
			break;
	if (argc == 3 && !strcmp(argv[2], "cs")) {
		nev = 1;
	} else if (argc == 3 && !strcmp(argv[2], "cpu-clock")) {
		events[0] = PERF_COUNT_SW_CPU_CLOCK;
		nev = 1;
	} else if (argc == 3) {
		mode = 3;
	}
	if (argc < 2 || argc > 3 || mode == 3) {
		fprintf(stderr, "usage: pmcfloor empty|read|count [cs|cpu-clock]\n");
		return 2;
	}
	ncpus = libbpf_num_possible_cpus();
	if (ncpus < 0) {
		fprintf(stderr, "pmcfloor: possible CPUs: %s\n", strerror(-ncpus));
		return 1;
	}
	libbpf_set_print(silent);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	skel = pmcfloor_bpf__open();
	if (!skel) {
		fprintf(stderr, "pmcfloor: opening the BPF object: %s\n", strerror(errno));
		return 1;
	}
	progs[0] = skel->progs.floor_empty;
	progs[1] = skel->progs.floor_read;
	progs[2] = skel->progs.floor_count;
	for (i = 0; i < 3; i++)
		bpf_program__set_autoload(progs[i], i == mode);
	skel->rodata->nr_events = nev;
	skel->rodata->nr_cpus = ncpus;
	bpf_map__set_max_entries(skel->maps.counters, nev * ncpus);
	err = pmcfloor_bpf__load(skel);
	if (!err)
		err = open_counters(skel, ncpus);
	if (!err)
		err = pmcfloor_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "pmcfloor: loading, opening or attaching: %s\n", strerror(-err));
		pmcfloor_bpf__destroy(skel);
		return 1;
	}
	fprintf(stderr, "pmcfloor: %s attached\n", modes[mode]);
	while (!stop)
		pause();
	printf("pmcfloor: %s: read errors %llu\n", modes[mode],
	       (unsigned long long)skel->bss->read_errors);
	pmcfloor_bpf__destroy(skel);
	return 0;
}
