// SPDX-License-Identifier: GPL-2.0
/*
 * The tasks of a record stream by tid, and their naming in the decoder
 * (tasks.h): callgraph's and kd's, once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "calltree.h"
#include "fileio.h"
#include "tasks.h"

struct task {
	__u32 tid, pid;
	bool named;		/* given to the decoder */
	bool unreadable;	/* /proc had no name for it */
	char comm[16];		/* "": not known */
	__u64 exec_ts;		/* its last exec read, 0: none */
};

struct kfit_tasks {
	struct kfit_tasks_head head;	/* first: tasks.h reads it */
	struct task *v;		/* open addressing, tid 0 an empty slot */
	unsigned int mask, n;
	bool proc;
};

struct kfit_tasks *kfit_tasks_new(bool proc)
{
	struct kfit_tasks *ts = calloc(1, sizeof(*ts));

	if (ts)
		ts->proc = proc;
	return ts;
}

void kfit_tasks_free(struct kfit_tasks *ts)
{
	if (!ts)
		return;
	free(ts->v);
	free(ts);
}

static struct task *find(const struct kfit_tasks *ts, __u32 tid)
{
	unsigned int i;

	if (!tid || !ts->v)
		return NULL;
	for (i = (tid * 2654435761u) & ts->mask; ts->v[i].tid; i = (i + 1) & ts->mask)
		if (ts->v[i].tid == tid)
			return &ts->v[i];
	return NULL;
}

static struct task *slot(struct kfit_tasks *ts, __u32 tid)
{
	unsigned int i;

	for (i = (tid * 2654435761u) & ts->mask; ts->v[i].tid; i = (i + 1) & ts->mask)
		if (ts->v[i].tid == tid)
			return &ts->v[i];
	ts->v[i].tid = tid;
	ts->n++;
	return &ts->v[i];
}

/* Task tid, made if new (half the slots at most are taken); NULL: no memory */
static struct task *get(struct kfit_tasks *ts, __u32 tid)
{
	struct kfit_tasks big = { .head = ts->head, .proc = ts->proc };
	unsigned int i;

	if (ts->v && 2 * (ts->n + 1) <= ts->mask + 1)
		return slot(ts, tid);
	big.mask = ts->v ? 2 * ts->mask + 1 : 1023;
	big.v = calloc(big.mask + 1, sizeof(*big.v));
	if (!big.v)
		return NULL;
	for (i = 0; ts->v && i <= ts->mask; i++)
		if (ts->v[i].tid)
			*slot(&big, ts->v[i].tid) = ts->v[i];
	free(ts->v);
	*ts = big;
	return slot(ts, tid);
}

int kfit_tasks_set(struct kfit_tasks *ts, __u32 pid, __u32 tid, const char *comm)
{
	struct task *t;

	if (!tid)
		return 0;
	t = get(ts, tid);
	if (!t)
		return -ENOMEM;
	t->pid = pid;
	snprintf(t->comm, sizeof(t->comm), "%.*s", (int)sizeof(t->comm) - 1, comm);
	return 0;
}

/* Task tid with a name, NULL: none yet (not seen, or /proc had none) */
static struct task *known(const struct kfit_tasks *ts, __u32 tid)
{
	struct task *t = find(ts, tid);

	return t && t->comm[0] ? t : NULL;
}

const char *kfit_tasks_comm(const struct kfit_tasks *ts, __u32 tid)
{
	const struct task *t = known(ts, tid);

	return t ? t->comm : "<...>";
}

/* A record's comm is its writer's: at a fork the parent's, the child's name too */
static int track_fork(struct kfit_tasks *ts, const struct kfit_rec_task *r)
{
	const struct task *k = find(ts, r->child_tid);
	int err = 0;

	if (!known(ts, r->h.tid))
		err = kfit_tasks_set(ts, r->h.pid, r->h.tid, r->comm);
	/* its exec, read first (another ring), is later: that name stands */
	if (err || !r->child_tid || (k && k->exec_ts > r->h.ts))
		return err;
	return kfit_tasks_set(ts, r->child_pid, r->child_tid, r->comm);
}

int kfit_tasks_track(struct kfit_tasks *ts, const struct kfit_rec *h, size_t size)
{
	const struct kfit_rec_task *r = (const void *)h;
	struct task *k;

	if (!kfit_tasks_rec(h) || size < sizeof(*r) || h->ctx != KFIT_CTX_TASK)
		return 0;
	if (h->type == KFIT_REC_FORK)
		return track_fork(ts, r);
	if (h->type == KFIT_REC_EXEC) {
		if (kfit_tasks_set(ts, h->pid, h->tid, r->comm))
			return -ENOMEM;
		k = find(ts, h->tid);
		if (k && h->ts > k->exec_ts)
			k->exec_ts = h->ts;
		return 0;
	}
	return known(ts, h->tid) ? 0 : kfit_tasks_set(ts, h->pid, h->tid, r->comm);
}

int kfit_tasks_name(struct kfit_tasks *ts, struct kfit_ctree *t, __u32 pid, __u32 tid,
		    const char *comm)
{
	char name[16];
	struct task *k;

	/* comm may be the task's own name: copied before it is written */
	snprintf(name, sizeof(name), "%.*s", (int)sizeof(name) - 1, comm);
	if (kfit_tasks_set(ts, pid, tid, name))
		return -ENOMEM;
	k = find(ts, tid);
	if (!k)
		return 0;	/* tid 0: no task */
	k->named = true;
	return kfit_ctree_task(t, pid, tid, k->comm);
}

/* Live, a task no record named yet: /proc's name while it lives */
static int from_proc(struct kfit_tasks *ts, struct kfit_ctree *t, __u32 pid, __u32 tid)
{
	char comm[32];
	struct task *k;

	if (!kfit_read_linef(comm, sizeof(comm), "/proc/%u/task/%u/comm", pid, tid))
		return kfit_tasks_name(ts, t, pid, tid, comm);
	/* gone already: its exit record will name it */
	k = get(ts, tid);
	if (!k)
		return -ENOMEM;
	k->pid = pid;
	k->unreadable = true;
	return 0;
}

int kfit_tasks_give(struct kfit_tasks *ts, struct kfit_ctree *t,
		    const struct kfit_rec *h, size_t size)
{
	const struct kfit_rec_task *r = (const void *)h;
	const struct task *k;
	int err;

	if (h->type == KFIT_REC_FORK && size >= sizeof(*r) && r->child_tid &&
	    (k = find(ts, r->child_tid)) && !k->named && k->comm[0]) {
		err = kfit_tasks_name(ts, t, r->child_pid, r->child_tid, k->comm);
		if (err)
			return err;
	}
	if (kfit_tasks_given(ts, h))
		return 0;
	k = find(ts, h->tid);
	if (k && k->named) {
		ts->head.last_named = h->tid;
		return 0;
	}
	if (k && k->comm[0])
		return kfit_tasks_name(ts, t, h->pid, h->tid, k->comm);
	if (!ts->proc || (k && k->unreadable))
		return 0;	/* never named: the decoder shows what it has */
	return from_proc(ts, t, h->pid, h->tid);
}
