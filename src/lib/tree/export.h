/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_EXPORT_H
#define KFIT_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "calltree.h"

/*
 * Renderers of finished call trees (calltree.h) into what other tools
 * read: folded stacks (flamegraph.pl, speedscope, inferno), an SVG flame
 * graph drawn here, Chrome trace-event JSON (ui.perfetto.dev,
 * chrome://tracing) and pprof profiles (go tool pprof, Pyroscope, Parca). They read the public tree model only, so a tree
 * built by hand renders as one from the decoder does.
 *
 * Exact mode: a frame's value is wall time in ns. A call's self time is
 * its duration minus the calls, interrupts and off-CPU spans drawn under
 * it, so the values of a thread add up to its outermost calls' durations.
 * Interrupts that struck a call are frames "[irq] softirq NET_RX" under
 * it (their calls above them); time off CPU inside a call is a frame
 * "[off-cpu] blocked" or "[off-cpu] preempted" under it, so a call's width
 * is its wall time and where it waited shows. Threads start with their
 * comm; the per-CPU interrupt threads (--no-interlace) with "[softirq]",
 * "[hardirq]" or "[nmi]". Events, fork, exec and exit take no time: they
 * are in the Perfetto JSON only.
 * Sampled mode: values are samples (self in folded stacks, inclusive in
 * the SVG's widths), threads are processes.
 */

/*
 * The name of a CALL, FRAME, EVENT or IRQ node (a softirq's vector:
 * "NET_RX"), as kfit_ctree_name gives it
 */
typedef const char *(*kfit_export_name_fn)(void *ctx, const struct kfit_cnode *n);
/* Whether a CALL or FRAME node is kernel code (colours, Perfetto's cat) */
typedef bool (*kfit_export_kernel_fn)(void *ctx, const struct kfit_cnode *n);

struct kfit_export_src {
	const struct kfit_cthread *const *threads;
	int nthreads;
	bool sampled;			/* FRAME trees, values in samples */
	kfit_export_name_fn name;		/* required */
	kfit_export_kernel_fn kernel;		/* NULL: no kernel/user split */
	void *ctx;			/* given to name and kernel */
	__u64 t0;			/* Perfetto: the ns shown as time 0 */
	const struct kfit_ctree_stats *stats;	/* NULL, or losses to show */
	const struct kfit_ctree *tree;	/* NULL, or the tree: how calls' arguments print */
};

/*
 * A source over a finished tree: its threads, kfit_ctree_name, its stats,
 * t0 its first timestamp; in sampled mode FRAMEs' kernel marks (exact
 * mode: set kernel to tell kernel calls from user ones). 0 or -ENOMEM;
 * kfit_export_src_release frees it (the tree stays the caller's).
 */
int kfit_export_src_ctree(struct kfit_export_src *s, const struct kfit_ctree *t, bool sampled);
void kfit_export_src_release(struct kfit_export_src *s);

/*
 * Folded stacks, one line per distinct stack with a self value:
 * "comm;f1;f2 VALUE", in a fixed order (children sorted by name). In
 * frame names ';' becomes ':' and control characters '?' (spaces stay:
 * readers take the value after the last space). 0, -ENOMEM or -EIO.
 */
int kfit_export_folded(const struct kfit_export_src *s, FILE *f);

struct kfit_export_svg_opts {
	const char *title;	/* NULL: "Flame Graph" */
	const char *subtitle;	/* NULL: none */
	int width;		/* px; 0: 1200 */
	double min_px;		/* narrower frames are left out, and counted; 0: 0.1 */
	bool no_script;		/* no zoom-on-click script */
};

/*
 * A standalone SVG 1.1 flame graph: one <g> per frame with a <title>
 * "name (VALUE, P%)", a <rect> as wide as its inclusive value and its name
 * cut to fit with "..". Colours come from the name: warm for code (orange
 * kernel, red user when src->kernel says which), purple interrupts, blue
 * off CPU, yellow threads, grey lost calls. 0, -ENOMEM or -EIO.
 */
int kfit_export_svg(const struct kfit_export_src *s, const struct kfit_export_svg_opts *o,
		    FILE *f);

/*
 * The folded stacks and the SVG of a tree that streams (calltree's woven
 * mode): each top-level node merged into the flame as it comes, then
 * freed by the decoder, so that memory grows with the distinct stacks,
 * not the calls. s: the names (its ctx given with each node) and the
 * kernel test; its threads are not read. Threads are named at the end
 * (kfit_export_flame_end), as they ended: the output is the finished
 * tree's, byte for byte.
 */
struct kfit_export_flame;
struct kfit_export_flame *kfit_export_flame_new(const struct kfit_export_src *s);
/* n (a top-level node of thread th) into the flame; ctx: s's names' now. 0 or -errno */
int kfit_export_flame_add(struct kfit_export_flame *f, const struct kfit_cthread *th,
			  const struct kfit_cnode *n, void *ctx);
/*
 * A call of thread th with no callee, as kfit_export_flame_add would add
 * its node: name (not copied: it outlives the flame), a kernel function's
 * or not, ns its time, counted a call that returned (kfit_cnode_counted)
 */
int kfit_export_flame_call(struct kfit_export_flame *f, const struct kfit_cthread *th,
			   const char *name, bool kernel, __u64 ns, bool counted, void *ctx);
/* After the last add: threads named, frames ordered; stats: the losses shown */
int kfit_export_flame_end(struct kfit_export_flame *f, const struct kfit_ctree_stats *stats);
/* kfit_export_folded's and kfit_export_svg's output, after kfit_export_flame_end */
int kfit_export_flame_folded(struct kfit_export_flame *f, FILE *out);
int kfit_export_flame_svg(struct kfit_export_flame *f, const struct kfit_export_svg_opts *o,
			  FILE *out);
void kfit_export_flame_free(struct kfit_export_flame *f);

/* What a function's code is: its object, for pprof's mappings */
struct kfit_export_pprof_obj {
	const char *name;	/* as the tree names it */
	bool kernel;
	const char *object;	/* "vmlinux", a module, a user binary's path; NULL: unknown */
	const char *build_id;	/* the object's, hex; NULL or "": unknown (the kernel's: below) */
};

struct kfit_export_pprof_opts {
	__u64 period_ns;		/* sampled: CPU time a sample stands for (1 s / Hz) */
	__u64 time_ns;			/* the start, ns since the epoch; 0: unknown */
	__u64 duration_ns;
	const char *const *comments;	/* NULL-terminated: kfit's version, the command... */
	const char *kernel_build_id;	/* vmlinux's, hex; NULL: unknown */
	const struct kfit_export_pprof_obj *objs;	/* the traced functions', by name */
	int nobjs;
};

/*
 * A pprof profile (profile.proto of github.com/google/pprof), gzip'd:
 * the flame's stacks as samples, leaf first, as the folded stacks have
 * them (interrupts "[irq] ...", time off CPU "[off-cpu] ..." frames of
 * their own), each with a label "thread", the thread's name the folded
 * stacks start with. Exact mode: values calls/count (the calls that
 * returned, kd --summary's COUNT), wall/nanoseconds (self time: the
 * folded value, so that pprof's cum is the calls' total) and
 * local/nanoseconds (their LOCAL: the time not in traced callees,
 * interrupts and time off CPU included); default wall. Sampled:
 * samples/count and cpu/nanoseconds (samples x period_ns); period_type
 * cpu/nanoseconds. Functions by name, one location each (no address),
 * mapped to the kernel ("[kernel.kallsyms]", "[MODULE]") or to the user
 * object objs names, with their build-ids. 0, -ENOMEM or -EIO.
 */
int kfit_export_pprof(const struct kfit_export_src *s, const struct kfit_export_pprof_opts *o,
		      FILE *f);
/* The same of a streamed flame, after kfit_export_flame_end */
int kfit_export_flame_pprof(struct kfit_export_flame *f, const struct kfit_export_pprof_opts *o,
			    FILE *out);

/* A call path of two runs, for kfit_export_diff_svg */
struct kfit_export_dpath {
	const char *path;	/* "f1;f2;f3", the outermost first */
	__u64 before, after;	/* its own (local) time in each run, ns */
};

/*
 * A differential flame graph, as flamegraph.pl draws difffolded.pl's
 * stacks: the paths' frames under "all", each as wide as its time in the
 * after run (one of the before run only is not drawn, and counted),
 * coloured by the change of its own time: red where it grew, blue where it
 * shrank, deeper the larger the change against the larger of the two
 * (doubling and halving half-way, new in the after run deepest), white
 * where it stayed. Titles "name: before X, after Y, +N%" (its width's
 * time; "new" from 0), then "; local: before A, after B, +M%" (its own).
 * The document, script and opts of kfit_export_svg. 0, -ENOMEM or -EIO.
 */
int kfit_export_diff_svg(const struct kfit_export_dpath *v, size_t n,
			 const struct kfit_export_svg_opts *o, FILE *f);

/*
 * Chrome trace-event JSON, {"traceEvents":[...],"displayTimeUnit":"ns"}:
 * process_name and thread_name metadata, each call a complete event "X"
 * (ts and dur in us with ns digits, parents before children, each clamped
 * into its parent and after its previous sibling, so every track nests
 * strictly), off CPU as nested "off-cpu (blocked|preempted)" slices,
 * tracepoint events, fork, exec and exit as instants "i". Interrupts go
 * to tracks of their own, a thread per CPU and context of a pseudo
 * process "interrupts" (pid KFIT_EXPORT_IRQ_PID). Exact mode only: sampled
 * trees have no timeline (-EOPNOTSUPP). 0, -ENOMEM or -EIO.
 */
#define KFIT_EXPORT_IRQ_PID	(1U << 22)	/* above PID_MAX_LIMIT: no task has it */
int kfit_export_perfetto(const struct kfit_export_src *s, FILE *f);

/*
 * The same JSON from a tree that streams (calltree's woven mode), in
 * memory that grows with the threads and the tracks, not the calls: each
 * top-level node added as it comes (then freed by the decoder), a task's
 * events drawn at once and spooled (kfit_spool) under its thread, the
 * interrupts' subtrees spooled per thread and track in time order, then
 * merged by time into their tracks at the end. kfit_export_perfetto is
 * this over a finished tree's nodes: the output is the same, byte for
 * byte.
 */
struct kfit_export_trace;
struct kfit_export_trace *kfit_export_trace_new(void);
/*
 * n, a top-level node of thread th, in its thread's time order: s names
 * it (its ctx now) and gives t0; s's threads are not read. 0 or -errno.
 */
int kfit_export_trace_add(struct kfit_export_trace *tr, const struct kfit_export_src *s,
			  const struct kfit_cthread *th, const struct kfit_cnode *n);
/*
 * After the last add: the JSON to f, s's threads (the finished tree's,
 * as they ended: their names) listed and their tracks in its order,
 * s's stats. 0, -ENOMEM or -EIO.
 */
int kfit_export_trace_write(struct kfit_export_trace *tr, const struct kfit_export_src *s,
			    FILE *f);
void kfit_export_trace_free(struct kfit_export_trace *tr);

/* A sampled stack at its time, for the timeline of kfit_export_perfetto_samples */
struct kfit_export_sample {
	__u64 ts;
	__u32 pid, tid, cpu;
	char comm[16];			/* the thread's name then */
	int nframes;
	const char *const *frames;	/* outermost first */
};

/*
 * The samples of a sampled run on a timeline (cgview's, callgraph's live
 * and kd's), in the same JSON as kfit_export_perfetto: one track per
 * thread, its stacks as nested "X" slices (cat "sample"). A sample stands
 * for period_ns from its time, cut at the thread's next sample; a frame
 * that consecutive samples share is one slice across them, so a function
 * on CPU for 10 samples is one slice 10 periods long. Samples given in any
 * order. 0, -ENOMEM or -EIO.
 */
int kfit_export_perfetto_samples(const struct kfit_export_sample *v, size_t n, __u64 t0,
				 __u64 period_ns, FILE *f);

#endif
