/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kd's state, and what its parts share: main.c parses the options and
 * dispatches; read.c reads the file (its times, tasks, description and
 * chunks) for the outputs, tree.c (the call trees and callgraph's views
 * of them), events.c (--events) and info.c (--info).
 */
#ifndef KFIT_KD_STATE_H
#define KFIT_KD_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "kfit/rec.h"
#include "calltree.h"
#include "cgview.h"
#include "fileio.h"
#include "fstats.h"
#include "kft.h"
#include "opts.h"
#include "stream.h"
#include "tasks.h"

/* A record kept for --events until no later chunk can hold an earlier one */
struct pend {
	__u64 ts, seq;
	struct kfit_rec *r;
};

struct env {
	struct kfit_common c;
	struct kfit_cgview_args view;	/* the views' options (cgview.h) */
	bool events, info, diff;
	double min_change;	/* --diff's --min-change, percent */
	const char *after;	/* --diff's second FILE */
	const char *since_arg, *until_arg;
	const char *path;
	__u32 depth;		/* the sampled tree's -D */

	struct kft_file *f;
	bool sampled;
	__u64 start_ns, end_ns;		/* the recording's */
	__u64 since, until;		/* the window on the file's clock; until 0: none */
	const char **fnames, **enames;
	__u8 *ret_kinds;	/* FUNCS' RET: how each function's return value reads */
	struct kfit_fargfmt *fargs;	/* ARGS: how each function's arguments print */
	const char *errors_expr;	/* --errors EXPR: what failing is */
	struct kfit_failexpr *failexpr;	/* and compiled for the tree */
	struct kfit_cgview_func *funcs;
	struct kfit_cgview_skip *skipped;
	int nfuncs, nevents, nskipped;
	struct kfit_ctree *tree;
	struct kfit_tasks *tasks;	/* their names as the records go */
	struct kfit_stream stream;	/* the records of the window into the tree */
	struct kfit_cgview_counts counts;
	int chunks_read, chunks_bad;
	struct pend *pend;
	size_t npend, cappend;
	__u64 seq;
	bool said;			/* an error already said (an output's) */
};

extern struct env env;

typedef int (*kd_rec_fn)(const struct kfit_rec *h, size_t size);
/* A chunk's records at once (whole, aligned): the tree's, in one loop */
typedef int (*kd_buf_fn)(const void *buf, size_t len);

/* read.c: times on the file's clock */
int kd_parse_time(const char *opt, const char *s, __u64 *out);
const char *kd_rel_time(__u64 ts, char *buf, size_t len);
const char *kd_wall_time(__u64 ts, bool iso, char *buf, size_t len);
const char *kd_dur(__u64 ns, char *buf);

/* read.c: the tasks, named as the records go (tasks.h) */
const char *kd_comm_of(__u32 tid);
int kd_track(const struct kfit_rec *h, size_t size);
bool kd_chosen(__u32 pid, __u32 tid);

/* read.c: the file's description */
int kd_load_funcs(void);
int kd_load_skipped(void);
__u64 kd_first_ts(void);
__u64 kd_last_ts(void);
void kd_load_times(void);
const char *kd_mechanism(void);

/* read.c: the chunks */
int kd_read_chunk(int i, kd_rec_fn fn);
int kd_read_range(int first, int last, kd_rec_fn fn, int (*after)(int i));
int kd_count(const struct kfit_rec *h, size_t size);
/* kd_count's counting, inline for the tree's every record */
static inline void kd_counted(const struct kfit_rec *h, size_t size)
{
	env.counts.records++;
	env.counts.bytes += size;
	if (h->type < KFIT_REC_NTYPES)
		env.counts.types[h->type]++;
}
int kd_window(int *first, int *last);
/* The window's chunks, each to bfn if given, else record by record to fn */
int kd_read_window(kd_rec_fn fn, kd_buf_fn bfn);
int kd_load_tasks(void);

/* tree.c: the call trees and their views */
int kd_render_tree(void);

/* events.c: --events */
int kd_print_events(void);

/* diff.c: --diff BEFORE AFTER; an exit status */
int kd_print_diff(const char *before, const char *after);

/* info.c: --info */
int kd_print_info(void);

#endif
