// SPDX-License-Identifier: GPL-2.0
/* User functions in a process and its new processes only: see ufollow.h */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kfit/follow.h"
#include "diag.h"
#include "fileio.h"
#include "run.h"
#include "ufollow.h"
#include "uprobes.h"

#define POLL_MS		100
#define DEAD_MAX	4096	/* gone processes' fds kept open, at most */

/* Functions of one binary attached together, to attach again per process */
struct uset {
	int entry_fd, ret_fd;
	char *path;
	__u64 *offs, *cookies;
	__u32 n;
};

/* A followed process's links */
struct proc {
	int pid;
	int *fds;
	int nfds;
};

struct kfit_ufollow {
	int pid;
	bool multi;
	struct uset *sets;
	int nsets;
	struct proc *procs;
	int nprocs;
	struct ring_buffer *rb;
	pthread_t th, reaper;
	bool running;
	volatile bool stop;
	int *dead;		/* gone processes' fds, closed at the end */
	int ndead;
	int reap[2];		/* past DEAD_MAX, to the reaper thread */
	struct kfit_ufollow_stats st;
};

/* ---- a uprobe pair per function, where there is no uprobe_multi ---------- */

/* The perf "uprobe" PMU's type, read once */
static int uprobe_pmu(void)
{
	static int type = -1;
	FILE *f;

	if (type >= 0)
		return type;
	f = fopen("/sys/bus/event_source/devices/uprobe/type", "re");
	if (!f)
		return -errno;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	return type >= 0 ? type : -EINVAL;
}

/* A uprobe (ret: return probe; config bit 0) at path:off in pid */
static int perf_uprobe(const char *path, __u64 off, int pid, bool ret)
{
	struct perf_event_attr a;
	int type = uprobe_pmu();
	long fd;

	if (type < 0)
		return type;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = ret;
	a.uprobe_path = (__u64)(unsigned long)path;
	a.probe_offset = off;
	fd = syscall(__NR_perf_event_open, &a, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

/* The probe's link, then the probe: closed in that order */
static int uprobe_link(struct proc *p, int prog_fd, const char *path, __u64 off,
		       __u64 cookie, bool ret)
{
	LIBBPF_OPTS(bpf_link_create_opts, o, .perf_event.bpf_cookie = cookie);
	int pfd = perf_uprobe(path, off, p->pid, ret), lfd;

	if (pfd < 0)
		return pfd;
	lfd = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, &o);
	if (lfd < 0) {
		lfd = -errno;
		close(pfd);
		return lfd;
	}
	return kfit_fd_push(&p->fds, &p->nfds, lfd) ? -ENOMEM :
	       kfit_fd_push(&p->fds, &p->nfds, pfd);
}

/* ---- links per process --------------------------------------- */

int kfit_ufollow_set(struct kfit_ufollow *u, int entry_fd, int ret_fd,
		     const char *path, const __u64 *offs, const __u64 *cookies,
		     __u32 n)
{
	struct uset *s = realloc(u->sets, (u->nsets + 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	u->sets = s;
	s = &u->sets[u->nsets];
	s->entry_fd = entry_fd;
	s->ret_fd = ret_fd;
	s->n = n;
	s->path = strdup(path);
	s->offs = malloc(n * sizeof(*offs));
	s->cookies = malloc(n * sizeof(*cookies));
	if (!s->path || !s->offs || !s->cookies) {
		free(s->path);
		free(s->offs);
		free(s->cookies);
		return -ENOMEM;
	}
	memcpy(s->offs, offs, n * sizeof(*offs));
	memcpy(s->cookies, cookies, n * sizeof(*cookies));
	u->nsets++;
	return 0;
}

/* A set's links in p: one pair for all of it, or a pair per function */
static int set_links(struct kfit_ufollow *u, const struct uset *s, struct proc *p)
{
	__u32 i;
	int fd, err = 0;

	/*
	 * Returns first: the process runs meanwhile, and each takes a grace
	 * period; an entry without its return would look like a call that
	 * never ends, a return without its entry is dropped
	 */
	if (u->multi) {
		fd = kfit_uprobes_multi_link(s->ret_fd, s->path, s->offs, s->cookies, s->n,
				      p->pid, true);
		err = fd < 0 ? fd : kfit_fd_push(&p->fds, &p->nfds, fd);
		if (err)
			return err;
		fd = kfit_uprobes_multi_link(s->entry_fd, s->path, s->offs, s->cookies, s->n,
				      p->pid, false);
		return fd < 0 ? fd : kfit_fd_push(&p->fds, &p->nfds, fd);
	}
	for (i = 0; i < s->n && !err; i++) {
		err = uprobe_link(p, s->ret_fd, s->path, s->offs[i], s->cookies[i], true);
		if (!err)
			err = uprobe_link(p, s->entry_fd, s->path, s->offs[i], s->cookies[i],
					  false);
	}
	return err;
}

/* pid's uprobes, as its parent's, made ns after its fork */
static void new_proc(struct kfit_ufollow *u, int pid, __u64 fork_ns)
{
	struct proc *p = realloc(u->procs, (u->nprocs + 1) * sizeof(*p));
	__u64 late;
	int i, err = 0;

	u->st.procs++;
	if (!p) {
		u->st.failed++;
		return;
	}
	u->procs = p;
	p = &u->procs[u->nprocs++];
	*p = (struct proc){ .pid = pid };
	for (i = 0; i < u->nsets && !err; i++)
		err = set_links(u, &u->sets[i], p);
	if (err == -ESRCH) {	/* it ended first: not traced at all */
		u->st.gone++;
		return;
	}
	if (err) {
		kfit_debug("uprobes of process %d: %s", pid, kfit_reason(err));
		u->st.failed++;
		return;
	}
	/* bpf_ktime_get_ns() is CLOCK_MONOTONIC, as kfit_now_ns() */
	late = kfit_now_ns() - fork_ns;
	if (late > u->st.max_late_ns)
		u->st.max_late_ns = late;
}

/*
 * A gone process's uprobes are closed at the end, with the others: each
 * close waits for an RCU grace period, and meanwhile a new process's
 * uprobes would wait (0.1 s each, long after it began). Past DEAD_MAX
 * they are closed by the reaper thread all the same.
 */
static void gone_proc(struct kfit_ufollow *u, int pid)
{
	struct proc *p;
	int i, k;

	for (i = 0; i < u->nprocs && u->procs[i].pid != pid; i++)
		;
	if (i == u->nprocs)
		return;
	p = &u->procs[i];
	for (k = 0; k < p->nfds; k++)
		kfit_fd_push(&u->dead, &u->ndead, p->fds[k]);	/* closed if no room */
	free(p->fds);
	*p = u->procs[--u->nprocs];
	if (u->ndead < DEAD_MAX)
		return;
	for (k = 0; k < u->ndead; k++)
		if (write(u->reap[1], &u->dead[k], sizeof(int)) != sizeof(int))
			close(u->dead[k]);
	u->ndead = 0;
}

static int on_event(void *ctx, void *data, size_t len)
{
	const struct kfit_follow_ev *e = data;
	struct kfit_ufollow *u = ctx;

	if (len < sizeof(*e) || (int)e->tgid == u->pid)
		return 0;
	if (e->what == KFIT_FOLLOW_FORK)
		new_proc(u, e->tgid, e->ns);
	else if (e->what == KFIT_FOLLOW_EXIT)
		gone_proc(u, e->tgid);
	return 0;
}

static void *watch(void *arg)
{
	struct kfit_ufollow *u = arg;

	while (!u->stop)
		if (ring_buffer__poll(u->rb, POLL_MS) < 0 && errno != EINTR)
			break;
	ring_buffer__consume(u->rb);
	return NULL;
}

static void *reap(void *arg)
{
	struct kfit_ufollow *u = arg;
	int fd;

	while (read(u->reap[0], &fd, sizeof(fd)) == sizeof(fd))
		close(fd);
	return NULL;
}

/* The threads, born with every signal blocked: the main thread takes them */
static int start_threads(struct kfit_ufollow *u)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&u->reaper, NULL, reap, u);
	if (!err) {
		err = pthread_create(&u->th, NULL, watch, u);
		if (err) {
			close(u->reap[1]);	/* the reaper ends */
			u->reap[1] = -1;
			pthread_join(u->reaper, NULL);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -err;
}

int kfit_ufollow_start(struct kfit_ufollow *u, int rb_fd)
{
	int err;

	if (!u->nsets)
		return 0;
	u->rb = ring_buffer__new(rb_fd, on_event, u, NULL);
	if (!u->rb)
		return -errno;
	if (pipe2(u->reap, O_CLOEXEC))
		return -errno;
	err = start_threads(u);
	if (err) {
		close(u->reap[0]);
		if (u->reap[1] >= 0)
			close(u->reap[1]);
		u->reap[0] = u->reap[1] = -1;
		return err;
	}
	u->running = true;
	return 0;
}

int kfit_ufollow_stop(struct kfit_ufollow *u, int **fds, int *n)
{
	int i, k, err = 0;

	if (!u || !u->running)
		return 0;
	u->stop = true;
	pthread_join(u->th, NULL);
	close(u->reap[1]);
	pthread_join(u->reaper, NULL);
	close(u->reap[0]);
	u->running = false;
	for (i = 0; i < u->ndead; i++)
		if (kfit_fd_push(fds, n, u->dead[i]))
			err = -ENOMEM;
	u->ndead = 0;
	for (i = 0; i < u->nprocs; i++) {
		for (k = 0; k < u->procs[i].nfds; k++)
			if (kfit_fd_push(fds, n, u->procs[i].fds[k]))
				err = -ENOMEM;
		free(u->procs[i].fds);
	}
	u->nprocs = 0;
	return err;
}

void kfit_ufollow_get_stats(const struct kfit_ufollow *u, struct kfit_ufollow_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (u)
		*st = u->st;
}

struct kfit_ufollow *kfit_ufollow_new(int pid, bool multi)
{
	struct kfit_ufollow *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->pid = pid;
	u->multi = multi;
	u->reap[0] = u->reap[1] = -1;
	return u;
}

void kfit_ufollow_free(struct kfit_ufollow *u)
{
	int i, *fds = NULL, n = 0;

	if (!u)
		return;
	kfit_ufollow_stop(u, &fds, &n);
	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	for (i = 0; i < u->nsets; i++) {
		free(u->sets[i].path);
		free(u->sets[i].offs);
		free(u->sets[i].cookies);
	}
	ring_buffer__free(u->rb);
	free(u->sets);
	free(u->procs);
	free(u->dead);
	free(u);
}
