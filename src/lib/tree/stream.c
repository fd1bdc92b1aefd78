// SPDX-License-Identifier: GPL-2.0
/*
 * A record stream into the decoder (stream.h): callgraph's live, kd's
 * from a file, one path.
 */
#include <errno.h>
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
static inline int add(const struct kfit_stream *s, const void *rec, size_t size)
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
	/* a call goes to the decoder as it is, sampled or not (kfit_cgview_add) */
	if (h->type == KFIT_REC_CALL)
		err = kfit_ctree_add(s->tree, rec, size);
	else
		err = kfit_cgview_add(s->tree, s->sampled, rec, size);
	return err ?: 1;
}

int kfit_stream_add(const struct kfit_stream *s, const void *rec, size_t size)
{
	return add(s, rec, size);
}

int kfit_stream_add_buf(const struct kfit_stream *s, const void *buf, size_t len,
			struct kfit_cgview_counts *c)
{
	bool leaves = kfit_ctree_takes_leaves(s->tree);
	size_t off, size;
	int r;

	for (off = 0; len - off >= sizeof(struct kfit_rec); off += size) {
		const struct kfit_rec *h = (const void *)((const char *)buf + off);
		long n;

		/* a run of a chosen task's calls that sum as they are, at once */
		if (leaves && h->type == KFIT_REC_CALL && wanted(s, h) &&
		    kfit_tasks_given(s->tasks, h)) {
			n = kfit_ctree_add_leaves(s->tree, h, len - off, s->since, s->until, &size);
			if (n < 0)
				return n;
			if (n) {
				if (c) {
					c->records += n;
					c->bytes += size;
					c->types[KFIT_REC_CALL] += n;
				}
				continue;
			}
		}
		size = h->size;
		if (size < sizeof(*h) || size > len - off)
			return -EBADMSG;
		r = add(s, h, size);
		if (r < 0)
			return r;
		if (!r || !c)
			continue;
		c->records++;
		c->bytes += size;
		if (h->type < KFIT_REC_NTYPES)
			c->types[h->type]++;
	}
	return 0;
}
