// SPDX-License-Identifier: GPL-2.0
/*
 * A record stream into the decoder (stream.h): callgraph's live, kd's
 * from a file, one path.
 */
#include <string.h>
#include "kfit/rec.h"
#include "calltree.h"
#include "cgview.h"
#include "stream.h"
#include "tasks.h"

/* Inline in the record's path */
static inline bool chosen(const struct kfit_stream *s, __u32 pid, __u32 tid)
{
	if (s->pid && pid != s->pid)
		return false;
	if (s->tid && tid != s->tid)
		return false;
	return !s->comm || !*s->comm || !strcmp(kfit_tasks_comm(s->tasks, tid), s->comm);
}

bool kfit_stream_chosen(const struct kfit_stream *s, __u32 pid, __u32 tid)
{
	return chosen(s, pid, tid);
}

/* Losses are always shown; the rest inside the window, of the tasks chosen */
static bool wanted(const struct kfit_stream *s, const struct kfit_rec *h)
{
	if (h->type == KFIT_REC_LOST)
		return true;
	if (h->ts < s->since || (s->until && h->ts >= s->until))
		return false;
	return chosen(s, h->pid, h->tid);
}

/* The tasks' calls only for records that can change them: most cannot */
int kfit_stream_add(const struct kfit_stream *s, const void *rec, size_t size)
{
	const struct kfit_rec *h = rec;
	int err;

	/* a record cut short: the decoder counts it */
	if (size < sizeof(*h))
		return kfit_ctree_add(s->tree, rec, size) ?: 1;
	if (kfit_tasks_rec(h) && (err = kfit_tasks_track(s->tasks, h, size)))
		return err;
	if (!wanted(s, h))
		return 0;
	if ((h->type == KFIT_REC_FORK || !kfit_tasks_given(s->tasks, h)) &&
	    (err = kfit_tasks_give(s->tasks, s->tree, h, size)))
		return err;
	err = kfit_cgview_add(s->tree, s->sampled, rec, size);
	return err ?: 1;
}
