/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_PERF_H
#define KFIT_PERF_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include "pmu.h"

/* perf_event_open(2), close-on-exec: an fd, or -errno (errno is set too) */
int kfit_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd);

/* A counter read with PERF_FORMAT_TOTAL_TIME_ENABLED | _RUNNING */
struct kfit_perf_count {
	__u64 value;
	__u64 enabled;		/* ns it was enabled */
	__u64 running;		/* ns it was on the PMU: less when multiplexed */
};

/* 0 or -errno */
int kfit_perf_read(int fd, struct kfit_perf_count *c);

/*
 * The events of a list opened for tasks x CPUs, each group whole: a
 * member opens in its leader's group, on the same task and CPU. Leaders
 * start disabled: enable them with kfit_perf_ioctl_leaders(), or let a
 * COMMAND's exec do it (enable_on_exec).
 */
struct kfit_perf_where {
	const pid_t *tids;	/* the tasks; { -1 }: every task (needs cpus) */
	int ntids;
	const bool *cpus;	/* [ncpus]: a counter on each CPU set; NULL:
				   one per task, counting wherever it runs */
	int ncpus;
	bool inherit;		/* also the threads and children made later */
	bool enable_on_exec;
};

struct kfit_perf_counter {
	int fd;
	int ev;			/* its event's index in the list */
	int cpu;		/* -1: its task's, wherever it runs */
	bool leader;
};

struct kfit_perf_set {
	struct kfit_perf_counter *c;
	int n;
	int *err;		/* [events]: 0 if it opened for some task and
				   CPU, else the first error (-errno) */
};

/*
 * Opens what it can. As perf does, an event without modifiers that the
 * kernel refuses (perf_event_paranoid without CAP_PERFMON) falls back to
 * user space only, with a warning, and its name gets ":u". A task that
 * ends meanwhile (ESRCH) is no error while others remain. Returns 0, or
 * -ENOMEM; set->err says what opened.
 */
int kfit_perf_set_open(struct kfit_perf_set *set, struct kfit_pmu_event_list *l,
		       const struct kfit_perf_where *w);
/* ioctl(req) on every group leader, e.g. PERF_EVENT_IOC_ENABLE */
void kfit_perf_ioctl_leaders(const struct kfit_perf_set *set, unsigned long req);
/* Close every counter and free the set */
void kfit_perf_set_close(struct kfit_perf_set *set);

#endif
