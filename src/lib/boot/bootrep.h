/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_BOOTREP_H
#define KFIT_BOOTREP_H
/*
 * bootsum's reports: the kernel phase (struct kfit_bootlog) and the
 * user-space phase (struct kfit_bootrep_user, read from bootsum's maps) on one
 * time axis, as text, JSON and an SVG timeline like the kernel's bootgraph.
 * No libbpf here: the user phase arrives as plain arrays.
 */
#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "kfit/bootrec.h"
#include "bootlog.h"

struct kfit_bootrep_user {
	struct bs_meta meta;
	struct bs_proc *procs;	/* meta.nprocs (at most max_procs) */
	size_t nprocs;
	struct bs_wait *waits;
	size_t nwaits;
	struct bs_mod *mods;
	size_t nmods;
	/*
	 * kernel clock (printk/trace) = boot clock + offset, from the
	 * bootsum marker in dmesg; offset_known false: taken as 0, and said
	 */
	__s64 offset_ns;
	bool offset_known;
	__u64 now_ns;		/* boot clock when the report was made: ends of the living */
	const char *found;	/* how the state was found: "pinned at PATH", "by map id N" */
};

/* One link of the critical chain, from the end back to the first process */
struct kfit_bootrep_link {
	__u32 idx;		/* bs_proc index */
	__u64 from_ns, to_ns;	/* the part of its life on the chain (boot clock) */
	/*
	 * how it got onto the chain: START forked the previous link's
	 * process, WAIT woke it; END (added): the target, the first link
	 */
	enum { KFIT_BOOTREP_CHAIN_START, KFIT_BOOTREP_CHAIN_WAIT, KFIT_BOOTREP_CHAIN_END } why;
	__u64 wait_ns;		/* KFIT_BOOTREP_CHAIN_WAIT: how long the next one waited on it */
	/*
	 * Added: its own waits inside from..to that no recorded process
	 * ended (timers and I/O completions: BS_W_IRQ; kernel threads; a
	 * waker not recorded: BS_W_PROC), time summed and clipped to the span
	 */
	__u64 self_ns;
	__u32 self_n;
	__u32 self_kind;	/* enum bs_waker of the longest of them */
	char self_comm[BS_COMM];	/* BS_W_KTHREAD: that kernel thread */
};

/*
 * The critical chain ending at process TARGET (a bs_proc index; BS_NONE:
 * the process that exited last, or when none has, the last one started).
 * Walks back: at the end of TARGET, the last wait it had before it ended,
 * woken by process W -> W, up to the wake; no such wait -> its parent,
 * up to its fork. Returns the number of links written to OUT (at most
 * MAX), target first; 0 when TARGET is not a process or out of memory.
 * The definition in full is in bootrep.c.
 */
size_t kfit_bootrep_chain(const struct kfit_bootrep_user *u, __u32 target,
		       struct kfit_bootrep_link *out, size_t max);
/* Added: the chain's default target (see above), BS_NONE without processes */
__u32 kfit_bootrep_last(const struct kfit_bootrep_user *u);
/* Added: the index of the last process recorded with tgid PID (pids are reused), or BS_NONE */
__u32 kfit_bootrep_proc_of_pid(const struct kfit_bootrep_user *u, __u32 pid);

struct kfit_json;

struct kfit_bootrep_opts {
	__u64 min_ns;		/* --min: shorter initcalls/processes are not listed */
	unsigned int top;	/* -n: slowest initcalls and processes, default 20 */
	__u32 chain_target;	/* --chain: bs_proc index, BS_NONE: the last to end */
	const char *note;	/* kfit_bootlog_pick's note, or NULL */
	bool timeline_all;	/* -v: every process in the timeline, even under --min,
				   and every link of the critical chain (else runs of
				   3 or more under max(--min, 1 ms) are summed in one line) */
	/* JSON: more members of the top object after "user" (bootsum --funcs) */
	void (*json_more)(struct kfit_json *j, void *ctx);
	void *more_ctx;
};

/* Either phase may be NULL (not recorded); says so and how to record it */
void kfit_bootrep_text(FILE *f, const struct kfit_bootlog *k,
		       const struct kfit_bootrep_user *u, const struct kfit_bootrep_opts *o);
void kfit_bootrep_json(FILE *f, const struct kfit_bootlog *k,
		       const struct kfit_bootrep_user *u, const struct kfit_bootrep_opts *o);
/* Returns 0, or -errno from writing */
int kfit_bootrep_svg(FILE *f, const struct kfit_bootlog *k,
		     const struct kfit_bootrep_user *u, const struct kfit_bootrep_opts *o);
/* "dd if=/dev/vda bs=1M" from args (NULs to spaces), else "[comm]" */
const char *kfit_bootrep_cmdline(const struct bs_proc *p, char *buf, size_t len);
#endif
