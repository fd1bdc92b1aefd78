/* SPDX-License-Identifier: GPL-2.0 */
/*
 * callgraph's private state, which its parts share: main.c (options, the
 * run), capture.c (the BPF side, its rings, the decoder), display.c (the
 * views) and recording.c (-o's file).
 */
#ifndef KFIT_CG_STATE_H
#define KFIT_CG_STATE_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "kfit/callgraph.h"
#include "cgview.h"
#include "child.h"
#include "fileio.h"
#include "fstats.h"
#include "opts.h"
#include "stream.h"
#include "target.h"
#include "tpglob.h"

struct bpf_link;
struct callgraph_bpf;
struct kfit_attacher;
struct kfit_ctree;
struct kfit_events;
struct kfit_sampler;
struct kfit_kftmeta_symset;
struct kfit_syms;
struct kfit_unwind;
struct kfit_tasks;
struct kft_writer;

/* Records of each type, and what the BPF side counted */
struct capture {
	__u64 types[KFIT_REC_NTYPES];
	__u64 end_calls;	/* still open at the end: written by us */
	__u64 counters[CG_NCOUNTERS];
	__u64 *lost;		/* per CPU */
	int ncpus;
	__u64 cpu_recs[KFIT_MAX_CPUS];	/* records written on each CPU */
};

/* The options, what is traced and how, the capture and -o's file: one run's */
struct env {
	struct kfit_common c;
	const char *module, *root;
	__u32 depth;		/* -D: exact mode's calls, sampled mode's frames */
	char **event_specs;
	int nevent_specs;
	bool sample;
	unsigned long hz;
	__u32 ustack_bytes;	/* --call-graph dwarf,SIZE: user stack copied a sample; 0: fp */
	bool no_inline;		/* --no-inline: user frames without DWARF's inlined ones */
	bool lines;		/* --lines: user frames with their source lines */
	struct kfit_cgview_args view;	/* the views' options (cgview.h) */
	__u64 buffer;
	bool buffer_set;
	unsigned long nrings;	/* --rings, 0: by the CPUs */
	int *ring_fds;		/* [0]: rb's; the others made and closed here */
	const char *out;	/* -o */
	bool tree_too;		/* --tree */
	__u64 size_cap, flight, chunk;
	const char *stop_at;
	int argc;		/* the command line, for META */
	char **argv;
	char **targets;
	int ntargets;
	char **cmd;		/* -- COMMAND: traced as -p, from its exec */
	struct kfit_child child;

	struct kfit_targets tg;
	const char **fnames;	/* tg's names: the decoder's function table */
	__u8 *ret_kinds;	/* and how their return values read (KFIT_RET_*) */
	struct kfit_fargfmt *fargs;	/* and how their arguments print */
	bool has_args;		/* some function's calls capture arguments */
	const char *errors_expr;	/* --errors EXPR: what failing is */
	struct kfit_failexpr *failexpr;	/* and compiled for the tree */
	int nfuncs;
	struct kfit_cgview_func *view_funcs;	/* the functions as cgview has them */
	const char **enames;	/* tps' names: its event table */
	struct kfit_ctree *tree;
	struct kfit_tasks *tasks;	/* their names, given to tree */
	struct kfit_stream stream;	/* the records into tree, named */
	struct kfit_syms *syms;
	struct kfit_unwind *unwind;	/* --call-graph dwarf: user stacks unwound with syms' maps */
	int root_idx;		/* --root's function, -1: none */
	struct kfit_tpglob tps;	/* -e */
	struct callgraph_bpf *skel;
	struct kfit_attacher *att;
	struct bpf_link **links;	/* tracepoints */
	int nlinks;
	struct kfit_sampler *sampler;
	struct kfit_events *ev;
	const char *tp_mode;	/* "tp_btf" or "raw_tracepoint" */
	bool sampled;		/* the mode running */
	__u64 start_ns, end_ns;
	struct capture cap;

	/* -o */
	struct kft_writer *w;
	struct kfit_kftmeta_symset *symset;	/* sampled mode: the addresses seen */
	__u64 syms_at;			/* when the last SYMS block went */
	bool syms_late;			/* -s left no room: the rest at the end */
	int trigger_idx;		/* --stop-at's, or --flight's --root: -1 none */
	bool triggered, capped, usr1_noted;
	bool write_failed;		/* -o's writer failed: said once, by record() */
	FILE *names;		/* the NAMES block: tasks' names over time */
	char *names_buf;
	size_t names_len;
	__u64 names_dropped;
	bool render;			/* rendering(), once the options are known */
	char *tasks_block;		/* the TASKS block, read before the start */
	size_t tasks_block_len;
};

extern struct env env;

/* Exact mode: a TARGET, --module, -e or --stop-at; else sampled */
static inline bool cg_exact_wanted(void)
{
	return env.ntargets || env.module || env.nevent_specs || env.stop_at;
}

/* capture.c: the BPF side, its rings, the decoder */
int cg_start(void);
void cg_unload(void);
int cg_stop_capture(void);
void cg_read_counters(void);
const char *cg_mechanism(void);
int cg_name(__u32 pid, __u32 tid, const char *comm);

/* display.c: the views */
struct kfit_cgview_func;
void cg_view_funcs(struct kfit_cgview_func *funcs);
int cg_timeline(void);
int cg_render(void);

/* recording.c: -o's file */
int cg_open_recording(void);
int cg_name_tasks(void);
int cg_begin_recording(void);
int cg_end_recording(void);
void cg_flight_dump(void);
void cg_write_syms(void);

#endif
