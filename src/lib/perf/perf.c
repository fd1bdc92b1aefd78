// SPDX-License-Identifier: GPL-2.0
/* perf events: the one perf_event_open wrapper, and counter sets. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "diag.h"
#include "perf.h"

int kfit_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd)
{
	int fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
			 PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int kfit_perf_read(int fd, struct kfit_perf_count *c)
{
	ssize_t n = read(fd, c, sizeof(*c));

	if (n == sizeof(*c))
		return 0;
	return n < 0 ? -errno : -EIO;
}

/* The fd of event leader's counter among those opened since from */
static int leader_fd(const struct kfit_perf_set *s, int from, int leader)
{
	int i;

	for (i = from; i < s->n; i++)
		if (s->c[i].ev == leader)
			return s->c[i].fd;
	return -1;
}

/*
 * As perf does: when perf_event_paranoid forbids counting the kernel, an
 * event without modifiers falls back to user space only (and says so).
 */
static bool user_only(struct kfit_pmu_event *e)
{
	struct perf_event_attr *a = &e->attr;

	if (a->exclude_user || a->exclude_kernel || a->exclude_hv)
		return false;
	a->exclude_kernel = a->exclude_hv = 1;
	kfit_warn("%s: counting user space only (perf_event_paranoid forbids the kernel without CAP_PERFMON)",
		  e->label);
	/* the label too, unless name= chose it */
	if (!strcmp(e->label, e->name) && strlen(e->label) + 2 < sizeof(e->label))
		strcat(e->label, ":u");
	if (strlen(e->name) + 2 < sizeof(e->name))
		strcat(e->name, ":u");
	return true;
}

static int open_event(struct kfit_perf_set *s, struct kfit_pmu_event_list *l,
		      const struct kfit_perf_where *w, int ev, pid_t tid,
		      int cpu, int from)
{
	struct kfit_pmu_event *e = &l->ev[ev];
	struct perf_event_attr a = e->attr;
	bool leader = e->leader == ev;
	int group = -1, fd;

	a.size = sizeof(a);
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.disabled = leader;
	a.inherit = w->inherit;
	a.enable_on_exec = leader && w->enable_on_exec;
	if (!leader) {
		group = leader_fd(s, from, e->leader);
		if (group < 0)
			return s->err[e->leader] ? s->err[e->leader] : -EINVAL;
	}
	fd = kfit_perf_open(&a, tid, cpu, group);
	/*
	 * perf's default exclude_guest is refused by PMUs that cannot tell
	 * guest from host (msr, breakpoints on some kernels): perf retries
	 * without it, and so do we
	 */
	if (fd == -EINVAL && a.exclude_guest && !e->gh) {
		a.exclude_guest = 0;
		fd = kfit_perf_open(&a, tid, cpu, group);
		if (fd >= 0)
			e->attr.exclude_guest = 0;
	}
	if ((fd == -EACCES || fd == -EPERM) && user_only(e)) {
		a.exclude_kernel = a.exclude_hv = 1;
		fd = kfit_perf_open(&a, tid, cpu, group);
	}
	if (fd < 0)
		return fd;
	s->c[s->n++] = (struct kfit_perf_counter){
		.fd = fd, .ev = ev, .cpu = cpu, .leader = leader,
	};
	return 0;
}

/* Every event on one task and CPU; ok[ev] once it opened somewhere */
static void open_events(struct kfit_perf_set *s, struct kfit_pmu_event_list *l,
			const struct kfit_perf_where *w, pid_t tid, int cpu,
			bool *ok)
{
	int ev, err, from = s->n;

	for (ev = 0; ev < l->n; ev++) {
		err = open_event(s, l, w, ev, tid, cpu, from);
		if (!err)
			ok[ev] = true;
		/* a thread that has just exited, while others remain */
		else if (err != -ESRCH || w->ntids == 1)
			s->err[ev] = s->err[ev] ?: err;
	}
}

int kfit_perf_set_open(struct kfit_perf_set *s, struct kfit_pmu_event_list *l,
		       const struct kfit_perf_where *w)
{
	int t, cpu, ev, ncpus = w->cpus ? w->ncpus : 1;
	bool *ok;

	memset(s, 0, sizeof(*s));
	s->c = calloc((size_t)w->ntids * ncpus * l->n, sizeof(*s->c));
	s->err = calloc(l->n, sizeof(int));
	ok = calloc(l->n, sizeof(bool));
	if (!s->c || !s->err || !ok) {
		free(ok);
		kfit_perf_set_close(s);
		return -ENOMEM;
	}
	for (t = 0; t < w->ntids; t++) {
		if (!w->cpus) {
			open_events(s, l, w, w->tids[t], -1, ok);
			continue;
		}
		for (cpu = 0; cpu < w->ncpus; cpu++)
			if (w->cpus[cpu])
				open_events(s, l, w, w->tids[t], cpu, ok);
	}
	for (ev = 0; ev < l->n; ev++)
		if (ok[ev])
			s->err[ev] = 0;
		else if (!s->err[ev])
			s->err[ev] = -ESRCH;
	free(ok);
	return 0;
}

void kfit_perf_ioctl_leaders(const struct kfit_perf_set *s, unsigned long req)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->c[i].leader)
			ioctl(s->c[i].fd, req, 0);
}

void kfit_perf_set_close(struct kfit_perf_set *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		close(s->c[i].fd);
	free(s->c);
	free(s->err);
	memset(s, 0, sizeof(*s));
}
