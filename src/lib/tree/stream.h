/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_STREAM_H
#define KFIT_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/*
 * A record stream into the decoder, as uftrace's live mode replays what
 * it records: callgraph's records from its rings, kd's from a file, each
 * through here, then the same renderers (cgview.h). The tasks are named
 * (tasks.h) from every record; those of the window and the tasks chosen
 * go on to the decoder.
 */

struct kfit_ctree;
struct kfit_tasks;

struct kfit_stream {
	struct kfit_ctree *tree;	/* the decoder */
	struct kfit_tasks *tasks;	/* the names, tracked from every record */
	bool sampled;			/* sampled stacks, else exact calls */
	__u64 since, until;		/* the window; until 0: none */
	__u32 pid, tid;			/* the tasks chosen, 0: any */
	const char *comm;		/* NULL or "": any */
};

/* Whether task tid of process pid is chosen (its name known by now) */
bool kfit_stream_chosen(const struct kfit_stream *s, __u32 pid, __u32 tid);
/*
 * Record rec of size bytes: its names tracked, then, inside the window
 * and of a task chosen (or a loss: always), to the decoder. 1 decoded,
 * 0 left out, or -ENOMEM.
 */
int kfit_stream_add(const struct kfit_stream *s, const void *rec, size_t size);
/*
 * Each record of buf (len bytes of whole records, 8-byte aligned, as a
 * chunk holds them) as kfit_stream_add, in one loop; those decoded
 * counted in c (may be NULL). 0, -EBADMSG when a record's size runs
 * past len, or -ENOMEM.
 */
struct kfit_cgview_counts;
int kfit_stream_add_buf(const struct kfit_stream *s, const void *buf, size_t len,
			struct kfit_cgview_counts *c);

#endif
