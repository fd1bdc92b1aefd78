/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_TREEPRINT_H
#define KFIT_TREEPRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "calltree.h"

/*
 * The renderers of finished call trees (calltree.h): KFI's kd -c text and
 * JSON, for callgraph live and kd from a file alike. The tool prints its
 * own header (what was traced, the mechanism, skipped functions); the
 * per-thread sections, the calls' columns and the counts line are here.
 *
 * Exact mode, per thread:
 *   == pid 1234 tid 1235 (comm) ==
 *        ENTRY   DURATION      LOCAL    OFF-CPU  CPU  FUNCTION
 *    0.000123s     12.3us     3.21us          -    1  vfs_read
 *    0.000130s     9.14us     9.14us          -    1    rw_verify_area
 * then interrupts between "==> softirq NET_RX (cpu 1)" and "<== softirq
 * NET_RX 2.10us" lines, "-- off CPU 20.1ms (blocked)" lines, "* EVENT"
 * lines, "+ fork: tid N", "+ exec: COMM", "+ exit" lines, and marks after
 * a call's name: "[incomplete: exited|exec|longjmp|end]" (its DURATION
 * then reads ">12.3ms"), "[inherited]" (a frame of the parent, at fork),
 * "[N dropped]" (callees left out by --min or -D), and last "=> VALUE"
 * (what it returned: "=> -ENOENT", "=> 3", "=> 0xffff88800a1b2c00"; no
 * mark for a void function or a call that never returned). A "[lost caller]"
 * line stands for calls whose records were lost.
 *
 * Sampled mode, per process: "INCL% SELF% FUNCTION", frames indented.
 * The limits leave out a frame (and its callees) with fewer samples than
 * min_pct of all the samples (as perf report's --percent-limit; INCL% and
 * SELF% are of the process's), or than min_samples, and so a whole
 * process with fewer; a frame at depth max_depth
 * has its callees cut: "[N deeper]" after its name, N their samples. What
 * is left out is said after the tree: "-- 412 samples hidden in 58 lines
 * HIDDEN_NOTE", "-- N samples deeper than -D 6: ...", and "-- 3 processes
 * hidden: ...". With a width, every line of a sampled tree fits it: a
 * name too long is cut with "...", a frame too deep to indent is shown
 * at the deepest indent with its depth, "(37) name".
 */

struct kfit_json;

struct kfit_treeprint_opts {
	__u64 origin;		/* ENTRY and start_ns count from here; 0: the first record */
	bool abs_time;		/* ENTRY and start_ns on the records' clock instead */
	bool ns;		/* text: times and durations in plain ns */
	double min_pct;		/* sampled: leave out frames under this % of all the samples */
	__u64 min_samples;	/* sampled: leave out frames with fewer samples */
	__u32 max_depth;	/* sampled: frames shown down to this depth (1: the outermost), 0: all */
	unsigned int width;	/* sampled text: columns a line may take (40 at least), 0: any */
	const char *hidden_note;	/* after "hidden in N lines": "under 0.5% (...)" */
	/*
	 * Exact mode, --errors: only the trees (top-level calls and
	 * interrupts, kfit_cnode_is_tree) with a failed call in them (an
	 * interrupt's interlaced: the tree it struck is shown for it), and
	 * the threads that have one; "!" before the name of each call on a
	 * failing path (KFIT_CN_FAILPATH; -j: "failed": true)
	 */
	bool errors;
};

/* Whether top-level node n is shown: with errors, a tree with a failure */
static inline bool kfit_treeprint_kept(const struct kfit_cnode *n, bool errors)
{
	return !errors || kfit_cnode_has_failure(n);
}
/* With errors: the trees of t's exact threads left out, and those kept */
void kfit_treeprint_trees(const struct kfit_ctree *t, __u64 *kept, __u64 *left_out);

/* Every thread's section, a blank line between them */
void kfit_treeprint_text(FILE *f, const struct kfit_ctree *t, const struct kfit_treeprint_opts *o);
/*
 * The parts of an exact thread's section, for a tree that streams: its
 * two header lines, and the lines of one top-level node and what is
 * under it (o's origin set: the first record's time is not known yet)
 */
void kfit_treeprint_text_head(FILE *f, const struct kfit_cthread *th);
void kfit_treeprint_text_node(FILE *f, const struct kfit_ctree *t, const struct kfit_cnode *n,
			      const struct kfit_treeprint_opts *o);
/*
 * The same for -j: an exact thread's object up to its open "calls"
 * array (closed by the caller: two ends), and one top-level node of th
 * as an object in it (j at that array's depth)
 */
void kfit_treeprint_json_thread_head(struct kfit_json *j, const struct kfit_cthread *th);
void kfit_treeprint_json_node(struct kfit_json *j, const struct kfit_ctree *t,
			      const struct kfit_cthread *th, const struct kfit_cnode *n,
			      const struct kfit_treeprint_opts *o);

/*
 * "12 calls, 0 lost, 3 dropped (--min/-D), 1 incomplete" and, when there
 * are any, ", N orphaned (caller lost)", ", N bad records", "; N samples"
 */
void kfit_treeprint_counts(FILE *f, const struct kfit_ctree *t);
/* A line of printf's fmt, cut with "..." to width columns (40 at least; 0: not cut) */
void kfit_treeprint_note(FILE *f, unsigned int width, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Sampled mode's: "12 samples, 0 lost" (and ", N bad records") */
void kfit_treeprint_sample_counts(FILE *f, const struct kfit_ctree *t);

/*
 * Members of the tool's open JSON object: "calls", "lost", "dropped",
 * "incomplete", "orphans", "bad", "samples"; then "threads": exact mode
 *   {"pid","tid","comm","context","cpu","calls":[CALL...]}
 *   CALL = {"name","tid","cpu","context","start_ns","duration_ns",
 *     "local_ns","offcpu_ns","offcpu_blocked_ns","offcpu_preempt_ns",
 *     "complete","incomplete_reason" (if not complete),"inherited",
 *     "lost" (a stand-in),"dropped","ret" and "ret_str" (a value
 *     returned: its number, and the text's),"children":[...]}
 *   children: CALL, {"irq","context","vector","cpu","start_ns",
 *     "duration_ns","ncalls","children"}, {"switch":"blocked"|"preempted",
 *     "state","cpu","start_ns","duration_ns"}, {"event","context","cpu",
 *     "start_ns"}, {"fork":TID,"start_ns"}, {"exec":COMM,"start_ns"},
 *     {"exit":true,"start_ns"}
 * or sampled mode {"pid","comm","samples","self" (samples without a
 * frame),"children":[{"name","kernel","samples","self","children"}]}
 * with the text's limits: a frame cut by max_depth has "deeper" (its
 * callees' samples) instead of "children"; with any limit, each process
 * has "hidden_samples", "hidden_frames" and "deeper_samples", and after
 * "threads" come "hidden_processes" and "hidden_process_samples": the
 * samples of a process are its frames' "self", its "self", its
 * "deeper_samples" and its "hidden_samples". Calls nest 80 deep (so that jq 1.6
 * reads them); deeper ones show "omitted": N (nodes left out) instead of
 * "children".
 */
void kfit_treeprint_json_counts(struct kfit_json *j, const struct kfit_ctree *t);
void kfit_treeprint_json_threads(struct kfit_json *j, const struct kfit_ctree *t,
			  const struct kfit_treeprint_opts *o);

/* "softirq NET_RX", "hardirq 24", "nmi" */
const char *kfit_treeprint_irq_label(const struct kfit_ctree *t, const struct kfit_cnode *n,
			      char *buf, size_t len);
/* Why a call is incomplete: "exited", "exec", "longjmp", "end", or "" */
const char *kfit_treeprint_incomplete_reason(__u8 flags);
/* A process's tree of sampled mode (its nodes are FRAMEs) */
bool kfit_treeprint_sampled(const struct kfit_cthread *th);

#endif
