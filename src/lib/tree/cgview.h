/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_CGVIEW_H
#define KFIT_CGVIEW_H

#include <stdbool.h>
#include <linux/types.h>
#include "kfit/rec.h"
#include "calltree.h"
#include "fileio.h"
#include "fstats.h"
#include "opts.h"

/*
 * What callgraph shows of a finished call tree (calltree.h): the header
 * (what was traced, how, for how long, what is missing), then the tree,
 * the summary, JSON, folded stacks, an SVG flame graph, Perfetto JSON or
 * a pprof profile.
 * A sampled run without samples says why (cpu-clock sees time on a CPU
 * only) and what shows time off CPU.
 * callgraph fills the capture from its live state, kd from a trace
 * file's metadata: the same code prints both, byte for byte.
 */

struct kfit_cgview_sum;
struct kfit_cgview_timeline;
struct kfit_tasks;

/* An entry of the function table the call records' ids index */
struct kfit_cgview_func {
	const char *name;
	bool kernel;		/* kernel code (the exports' colours) */
	bool dropped;		/* listed but not traced: left out of the summary */
	const char *object;	/* "vmlinux", a module, a binary's path; NULL: unknown */
	const char *build_id;	/* a user object's, hex; NULL or "": unknown */
};

/* A function left out before tracing, and why */
struct kfit_cgview_skip {
	const char *name, *reason;
};

/* How the functions were attached: the JSON's "attach" object */
struct kfit_cgview_attach {
	const char *mechanism;
	__u64 functions, skipped, attach_ns;
	__s64 fds;		/* fds opened by attaching */
};

/* -v's line of what was read (kfit_info) */
struct kfit_cgview_counts {
	__u64 records, bytes;
	__u64 types[KFIT_REC_NTYPES];	/* records of each type */
	__u64 end_calls;	/* calls still open at the end (in types[CALL]) */
	__u64 lost;		/* records lost */
	__u64 unmatched;	/* returns without their entry */
};

struct kfit_cgview {
	bool sampled;		/* sampled stacks, else exact calls */
	const char *mechanism;	/* "perf_event", "tracepoint", the attacher's */
	unsigned int hz;	/* sampled */
	const char *sample_event;	/* sampled: "cpu-clock"... */
	const struct kfit_cgview_func *funcs;
	int nfuncs;
	int ntracepoints;	/* -e */
	bool root;		/* --root: only what runs inside it */
	__u64 start_ns, end_ns;
	__u64 missed;		/* probe runs the kernel skipped */
	__u64 too_deep;		/* calls nested deeper than max_depth */
	__u64 no_stack;		/* calls not kept: too many threads */
	bool args;		/* some function's calls keep arguments: no_args, str_faults in -j */
	__u64 no_args;		/* calls whose arguments were not kept */
	__u64 str_faults;	/* calls with a string argument not read */
	int max_depth;
	const struct kfit_cgview_skip *skipped;
	int nskipped;
	const struct kfit_cgview_attach *attach;	/* NULL: no functions attached */
	const struct kfit_cgview_counts *counts;	/* NULL: no -v line */
	/* --pprof's comments and times: who recorded what, where, when (NULL, 0: unknown) */
	const char *version;		/* kfit's */
	const char *cmdline;		/* the recording's command line */
	const char *machine;		/* "Linux HOST RELEASE MACHINE" */
	__u64 realtime_offset_ns;	/* CLOCK_REALTIME - the records' clock */
	const char *kernel_build_id;	/* vmlinux's, hex */
};

/* Sampled text leaves out frames under this % of their process, unless told */
#define KFIT_CGVIEW_PERCENT_LIMIT	0.5

struct kfit_cgview_opts {
	bool summary;		/* the kd table */
	enum kfit_fsort sort;
	unsigned long top;
	unsigned int fields;	/* the table's columns (fstats.h); 0: all */
	bool folded;		/* folded stacks on stdout */
	bool json;
	const char *svg, *perfetto, *pprof;	/* files to write, or NULL */
	/* their temporaries, opened at the start (kfit_out_open) so that a bad
	   path fails before anything is traced; NULL: opened here */
	struct kfit_out *svg_out, *perfetto_out, *pprof_out;
	bool verbose;		/* every skipped function, the counts line */
	bool tree;		/* the tree too, with any other output */
	/*
	 * --errors: the tree and -j show only the trees with a failed call,
	 * the paths to it marked (treeprint.h); the header says how many
	 * were left out
	 */
	bool errors;
	/*
	 * Sampled mode's limits (treeprint.h): frames under min_pct of their
	 * process (text: KFIT_CGVIEW_PERCENT_LIMIT unless min_pct_set), or
	 * sampled for less than min_ns (samples / hz: --min), left out; the
	 * frames below depth max_depth (-D) cut; text lines fitted to width
	 * columns (0: not cut). The text and JSON trees have them, the
	 * folded stacks and the SVG keep every frame.
	 */
	double min_pct;
	bool min_pct_set;
	__u64 min_ns;
	__u32 max_depth;
	unsigned int width;
	/* --summary's figures, filled as a streaming tree let its calls go
	   (kfit_cgview_stream); NULL: from the tree */
	struct kfit_cgview_sum *sum;
	/* sampled --perfetto: the samples kept (kfit_cgview_timeline), the
	   tree having no times; NULL: none */
	const struct kfit_cgview_timeline *timeline;
};

/*
 * Render t (kfit_ctree_finish'ed) as o asks, to stdout and the files.
 * 0 or -errno, said with kfit_err (a file's error names the file).
 */
int kfit_cgview_render(const struct kfit_cgview *v, const struct kfit_cgview_opts *o,
		       const struct kfit_ctree *t);

/*
 * One record into t as callgraph decodes it: sampled trees are per
 * process, without a timeline, so of fork, exec and exit only exec's new
 * name counts; a sampled user stack walked by frame pointers can end on
 * words that are no addresses (a caller built without them): they are
 * left out. 0 or -ENOMEM.
 */
int kfit_cgview_add(struct kfit_ctree *t, bool sampled, const void *rec, size_t size);
/* Whether a word of a sampled user stack can be no code address */
bool kfit_cgview_no_user_address(__u64 ip);

/*
 * The views' options, one group for callgraph and kd (cgview_opts.c):
 * kfit_cgview_group's options parsed into its ctx, a struct
 * kfit_cgview_args, then checked and turned into the renderer's options.
 */
struct kfit_cgview_args {
	bool summary, folded, no_interlace;
	bool errors;		/* only the trees where a call failed */
	enum kfit_fsort sort;	/* --summary's -s, -n, -f */
	unsigned long top;
	unsigned int fields;
	const char *svg, *perfetto, *pprof;
	double pct;		/* the sampled tree's --percent-limit, --width, --addresses */
	bool pct_set, width_set, addresses;
	unsigned int width;
	/* --svg's, --perfetto's and --pprof's files, made at the start (kfit_cgview_open) */
	struct kfit_out svg_out, perfetto_out, pprof_out;
	struct kfit_cgview_sum *sum;	/* kfit_cgview_stream's */
	struct kfit_cgview_timeline *timeline;	/* kfit_cgview_timeline's */
};

/* "Display options", parsed into args: the tool's kfit_tool.group */
#define KFIT_CGVIEW_GROUP(args) { .title = "Display options", \
	.opts = kfit_cgview_options, .parse = kfit_cgview_parse_opt, .ctx = (args) }
extern const struct kfit_opt kfit_cgview_options[];
int kfit_cgview_parse_opt(const char *tool, int key, const char *arg, void *args);

/* What is wrong with a's combination (json: -j given too), or NULL */
const char *kfit_cgview_args_error(const struct kfit_cgview_args *a, bool json);
/* Whether an option of the sampled tree alone is given */
bool kfit_cgview_args_sampled(const struct kfit_cgview_args *a);
/*
 * --svg's, --perfetto's and --pprof's files made now, so that a bad path
 * fails before anything is traced or read: 0, or -errno said (kfit_out_err).
 * kfit_cgview_abort: those not committed removed, what was there kept.
 */
int kfit_cgview_open(struct kfit_cgview_args *a);
/* The files not committed removed (what was there kept), the summary freed */
void kfit_cgview_close(struct kfit_cgview_args *a);
/* What kfit_cgview_stream needs to know of the run */
struct kfit_cgview_stream_in {
	int nfuncs;			/* the function table's size */
	const struct kfit_cgview_func *funcs;	/* their kinds: colours, cat */
	bool tree, json;		/* the tree, -j: every call shown */
	bool sampled;			/* stacks merged already: nothing to stream */
	const __u64 *origin;		/* the tree's time 0, read as it streams */
	bool one_ring;			/* each task's records in order with what struck it */
};
/*
 * Views that stream (every one of exact mode: --summary, --folded,
 * --svg, --pprof, the tree, -j, --perfetto): the tree is made streaming (to's
 * on_root), each finished call tree summed, merged into the flame, its
 * lines spooled per thread (kfit_spool) or drawn into the trace
 * (kfit_export_trace) as it lets it go, so that memory does not grow
 * with the records. All but --summary from one ring buffer only
 * (calltree's woven mode). 0 (nothing to stream, or streaming) or
 * -ENOMEM.
 */
int kfit_cgview_stream(struct kfit_cgview_args *a, const struct kfit_cgview_stream_in *in,
		       struct kfit_ctree_opts *to);
/*
 * Sampled --perfetto's timeline (cgview_timeline.c): a sampled tree
 * merges stacks and keeps no times, so with --perfetto each sample
 * decoded is kept by kfit_cgview_timeline_add, with its thread's name
 * in tasks then and its frames named by sym (required) as it comes:
 * callgraph's symbolizer while the process lives, kd's file. Every
 * sample is kept until kfit_cgview_close (memory grows with them).
 * Without --perfetto nothing is made. 0 or -ENOMEM.
 */
int kfit_cgview_timeline(struct kfit_cgview_args *a, kfit_ctree_sym_fn sym, void *sym_ctx,
			 const struct kfit_tasks *tasks);
/* A record decoded into the tree: kept if a sample (tl NULL: none). 0 or -ENOMEM */
int kfit_cgview_timeline_add(struct kfit_cgview_timeline *tl, const void *rec, size_t size);
/*
 * The renderer's options that a's and the shared flags c give (-j, -v,
 * --min), with max_depth (-D): the width the terminal's unless set
 */
struct kfit_cgview_opts kfit_cgview_opts_of(struct kfit_cgview_args *a,
					    const struct kfit_common *c, __u32 max_depth);

/*
 * The sampled tree's options, each saying what is wrong on stderr (as
 * TOOL: ...) and returning -1: --percent-limit PCT (0 to 100, "0.5" or
 * "0.5%"), --width N (0: lines not cut, or 40 to 10000), -D N (1 to
 * 65535). 0 when taken.
 */
#define KFIT_CGVIEW_MIN_WIDTH	40
#define KFIT_CGVIEW_MAX_WIDTH	10000
int kfit_cgview_parse_pct(const char *tool, const char *arg, double *out);
int kfit_cgview_parse_width(const char *tool, const char *arg, unsigned int *out);
int kfit_cgview_parse_depth(const char *tool, const char *arg, __u32 *out);

#endif
