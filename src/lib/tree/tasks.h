/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_TASKS_H
#define KFIT_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "kfit/rec.h"

/*
 * The names of the tasks of a record stream, and their naming in the
 * decoder (calltree.h) before their first record: the one place that
 * does it, for callgraph live (from its rings) and kd (from a file).
 *
 * Names come from what the stream's reader knows at its start
 * (kfit_tasks_set: /proc live, the file's TASKS and NAMES blocks), then
 * follow the records in reading order (kfit_tasks_track): a fork gives
 * the child its parent's name, unless the child's exec, read before it
 * from another ring, is later; an exec renames. Live, a task still
 * unknown when it first writes is looked up in /proc.
 */

struct kfit_ctree;
struct kfit_tasks;

/*
 * The head of struct kfit_tasks, which every record's path reads inline:
 * the last task found named (a run of records is mostly one task's)
 */
struct kfit_tasks_head {
	__u32 last_named;
};

/* Whether record h names tasks (a fork, exec or exit): what kfit_tasks_track reads */
static inline bool kfit_tasks_rec(const struct kfit_rec *h)
{
	return h->type >= KFIT_REC_FORK && h->type <= KFIT_REC_EXIT;
}

/* Whether h's own task needs no naming by kfit_tasks_give: none, or named already */
static inline bool kfit_tasks_given(const struct kfit_tasks *ts, const struct kfit_rec *h)
{
	const struct kfit_tasks_head *head = (const void *)ts;

	return h->ctx != KFIT_CTX_TASK || !h->tid || h->tid == head->last_named;
}

/* proc: look unknown tasks up in /proc (a capture on this machine) */
struct kfit_tasks *kfit_tasks_new(bool proc);
void kfit_tasks_free(struct kfit_tasks *ts);

/* Task tid's name is comm (a process pid's). 0 or -ENOMEM */
int kfit_tasks_set(struct kfit_tasks *ts, __u32 pid, __u32 tid, const char *comm);
/* Names that follow a fork, exec or exit record (others: nothing). 0 or -ENOMEM */
int kfit_tasks_track(struct kfit_tasks *ts, const struct kfit_rec *h, size_t size);
/* Task tid's name, "<...>" when unknown */
const char *kfit_tasks_comm(const struct kfit_tasks *ts, __u32 tid);

/* Set, and given to the decoder t now. 0 or -ENOMEM */
int kfit_tasks_name(struct kfit_tasks *ts, struct kfit_ctree *t, __u32 pid, __u32 tid,
		    const char *comm);
/*
 * Before record h goes to the decoder t: a fork's child and the
 * record's task named there, once each, if their names are known (or
 * found in /proc). Give h to kfit_tasks_track first. 0 or -ENOMEM.
 */
int kfit_tasks_give(struct kfit_tasks *ts, struct kfit_ctree *t,
		    const struct kfit_rec *h, size_t size);

#endif
