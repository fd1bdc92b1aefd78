/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_CALLTREE_H
#define KFIT_CALLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "kfit/rec.h"
#include "kfit/ret.h"
#include "argfmt.h"

/*
 * The one decoder of callgraph's record stream (include/kfit/rec.h) into
 * trees. callgraph feeds it from its ring buffer, kd (issue 9) from a
 * file: what both show comes from here, so it cannot differ.
 *
 * Exact mode: calls arrive in post-order per stack (a call's record is
 * written at its return, after those of its callees), each with its
 * depth. A record at depth d adopts the pending records at depth d + 1
 * that lie inside its interval. Pending records left without a parent
 * (their caller's record was lost, or it never returned) stay roots, or
 * are wrapped in a node flagged KFIT_RF_LOST: the tree stays consistent
 * whatever was lost. Records of different stacks may come in any order
 * (callgraph's ring buffers are sharded by stack): all but the calls are
 * placed by time, and a fork names its child unless the child's exec,
 * later, came first.
 *
 * Calls in interrupts sit on stacks per CPU and context; kfit_ctree_finish
 * interlaces each interrupt into the tree of the task it struck, under
 * the innermost call open at that time (unless interlace is off: then
 * they stay in their own per-CPU "threads"). Context switches and
 * tracepoint events are placed the same way, in their task's tree.
 *
 * Sampled mode: each sample's stack (user frames outermost first, then
 * kernel ones) is merged into one tree per process, nodes keyed by
 * symbol name, with inclusive and self sample counts; siblings come
 * most samples first (then by name).
 */

enum kfit_cnode_kind {
	KFIT_CN_ROOT,		/* a thread's or process's root: no record */
	KFIT_CN_CALL,		/* a traced call (or a LOST stand-in: flags) */
	KFIT_CN_IRQ,		/* an interrupt: its calls are its children */
	KFIT_CN_SWITCH,		/* the task was off CPU */
	KFIT_CN_EVENT,		/* a tracepoint hit */
	KFIT_CN_FORK,		/* the task created child_tid */
	KFIT_CN_EXEC,		/* the task became comm */
	KFIT_CN_EXIT,		/* the task ended */
	KFIT_CN_FRAME,		/* sampled mode: a symbol on sampled stacks */
	/*
	 * Streaming with collapse: a run of finished sibling calls whose
	 * caller has not returned yet, already given to on_root: ncalls of
	 * them, start to start + dur, local their durations summed; its
	 * children are SUMPARTs
	 */
	KFIT_CN_SUMS,
	KFIT_CN_SUMPART,	/* of a SUMS: the calls of function id, ncalls, dur summed */
};

/*
 * A node's flag of the decoder's own (record flags are KFIT_RF_*): placed
 * by time at finish under a call that did not adopt it (a root of an
 * interrupt stack woven in), so no callee of that call's record
 */
#define KFIT_CN_WOVEN	0x80
/*
 * A node's cflags bit of the decoder's own, set as a tree is finished
 * (callgraph --errors): a call that failed (kfit_cnode_failed), or one of
 * whose callees on its own stack did; an interrupt's node when a call in
 * it did. An interrupt's failure stops at its node: the task's calls it
 * struck did not fail for it.
 */
#define KFIT_CN_FAILPATH	0x80
/* A top-level node with a failure inside that is not on its path: an interrupt's */
#define KFIT_CN_FAILIN		0x40

struct kfit_cnode {
	struct kfit_cnode *parent, *child, *last, *next;	/* children in time order */
	__u8 kind;		/* enum kfit_cnode_kind */
	__u8 ctx;		/* enum kfit_ctx */
	__u8 flags;		/* KFIT_RF_* */
	__u8 cflags;		/* CALL: KFIT_CF_RET when it has a return value */
	__u16 cpu;
	__u8 ret_kind;		/* CALL: its function's KFIT_RET_* (kfit/ret.h) */
	__u32 id;		/* CALL: function id; EVENT: event id; IRQ: vector; SWITCH: state;
				   FRAME: 1 a kernel frame, 0 a user one */
	__u32 depth;		/* nesting in the rendered tree, 0 under the root */
	__u32 dropped;		/* CALL: callees left out (--min, -D) */
	__u32 ncalls;		/* IRQ: traced calls inside */
	__u32 child_tid;	/* FORK */
	__u64 start;		/* ns, the stream's clock */
	__u64 dur;
	__u64 local;		/* CALL: dur minus the recorded callees on its stack */
	__u64 off_blocked, off_preempt;
	__s64 ret;		/* CALL with KFIT_CF_RET: the value, as ret_kind reads it */
	const struct kfit_rec_args *args;	/* CALL with KFIT_CF_ARGS: its arguments */
	__u64 samples, self;	/* FRAME: samples through it, samples in it */
	const char *name;	/* FRAME: symbol; EXEC: new comm (owned by the tree) */
};

/* One task (tid), or one interrupt stack (ctx, cpu), or in sampled mode one process */
struct kfit_cthread {
	__u32 pid, tid;
	__u8 ctx;		/* KFIT_CTX_TASK, or the interrupt context */
	__u16 cpu;		/* interrupt stacks only */
	char comm[16];		/* last known name */
	struct kfit_cnode root;
	__u64 ncalls;		/* call records decoded into this tree */
	__u64 samples;		/* sampled mode */
	void *priv;		/* decoder state while decoding */
};

struct kfit_ctree_stats {
	__u64 records;		/* decoded */
	__u64 calls;
	__u64 lost;		/* records the kernel could not write (LOST records) */
	__u64 bad;		/* malformed or unknown records skipped */
	__u64 dropped;		/* calls left out by --min/-D, summed */
	__u64 incomplete;	/* calls that never returned */
	__u64 orphans;		/* calls whose caller's record is missing */
	__u64 samples;
	__u64 ustops[KFIT_NUSTOPS];	/* samples whose user stack was unwound: why each ends */
	__u64 first_ts, last_ts;
};

/* Names of user and kernel addresses of samples; NULL: hex */
typedef const char *(*kfit_ctree_sym_fn)(void *ctx, __u32 pid, __u64 addr, bool kernel);

struct kfit_ctree;

/*
 * Streaming: a call subtree (or an interrupt's) that no later record can
 * change, given as the decoder lets it go, then freed. 0 or -errno.
 */
typedef int (*kfit_ctree_root_fn)(void *ctx, const struct kfit_ctree *t,
				  const struct kfit_cnode *root);
/*
 * Streaming: a top-level call with no callee, as its record, with the
 * thread whose tree it is (on_leaf). 0 or -errno.
 */
struct kfit_cthread;
typedef int (*kfit_ctree_leaf_fn)(void *ctx, const struct kfit_ctree *t,
				  const struct kfit_cthread *th, const struct kfit_rec_call *r);

/* Whether call n of thread th failed (--errors EXPR), instead of its return value's kind */
typedef bool (*kfit_ctree_failed_fn)(void *ctx, const struct kfit_cthread *th,
				     const struct kfit_cnode *n);

struct kfit_ctree_opts {
	const char *const *funcs;	/* function table: id -> name */
	__u32 nfuncs;
	const __u8 *ret_kinds;	/* id -> KFIT_RET_* (how a return reads), NULL: the whole register */
	const struct kfit_fargfmt *fargs;	/* id -> how its arguments print, NULL: none do */
	kfit_ctree_failed_fn failed;	/* NULL: kfit_cnode_failed */
	void *failed_ctx;
	const char *const *events;	/* event table: id -> "category:name" */
	__u32 nevents;
	bool no_interlace;	/* interrupts stay apart, in per-CPU threads */
	kfit_ctree_sym_fn sym;	/* sampled mode */
	void *sym_ctx;
	bool group_unknown;	/* sampled: unnamed frames grouped by file (kfit_ctree_frame_group) */
	/*
	 * Streaming (exact mode): each finished subtree to on_root, then
	 * freed; switches and events are not kept. The tree keeps only what
	 * is open, and has no thread to show once finished: for views that
	 * aggregate (the summary), in memory that does not grow with the
	 * records.
	 */
	kfit_ctree_root_fn on_root;
	void *root_ctx;
	/*
	 * With on_root: a task's depth-0 call that adopts no callee, when
	 * nothing else can come into its tree (woven: a task with nothing
	 * pending, held or to place), goes to on_leaf (leaf_ctx) as its
	 * record, with no node made for it: a flat recording's every call,
	 * for a view that sums (the summary, the flame)
	 */
	kfit_ctree_leaf_fn on_leaf;
	void *leaf_ctx;
	/*
	 * With on_root: when the tree holds more than collapse_nodes nodes
	 * (0: 65536), the finished subtrees still waiting for their caller
	 * (under a program's main that has not returned) go to on_root
	 * before it (each callee's subtree, then the callee itself without
	 * its caller), and each run of them at one depth becomes a SUMS
	 * node: what its caller's local time and callee edges need. For an
	 * on_root that sums (fstats), so that memory stays with what is
	 * open. A record lost between siblings of a long-open call may then
	 * leave that call's local time and max-sub off.
	 */
	bool collapse;
	__u32 collapse_nodes;
	/*
	 * With on_root: interrupts, switches and events are kept and
	 * placed as at finish, and on_root gets each thread's top-level
	 * nodes (its calls and what lies between them) in time order,
	 * woven, as soon as no later record can change them; the node's
	 * parent is its thread's root (kfit_ctree_emitting). Exact when
	 * each task's records come in order with what struck it, as one
	 * ring buffer gives them (callgraph below 16 CPUs); interrupts of
	 * a task with no call yet wait for one, up to 4096 a task.
	 */
	bool woven;
};

struct kfit_ctree *kfit_ctree_new(const struct kfit_ctree_opts *o);
/* The nodes it holds now (streaming: what is open) */
__u64 kfit_ctree_nodes(const struct kfit_ctree *t);
/* Streaming: the thread of the node on_root is given */
const struct kfit_cthread *kfit_ctree_emitting(const struct kfit_ctree *t);
/* Name a task before its records arrive (a /proc snapshot); 0 or -ENOMEM */
int kfit_ctree_task(struct kfit_ctree *t, __u32 pid, __u32 tid, const char *comm);
/*
 * Decode one record of size bytes. Malformed records (size too small or
 * not matching the type, unknown function id) are counted in stats.bad
 * and skipped: returns 0, or -ENOMEM.
 */
int kfit_ctree_add(struct kfit_ctree *t, const void *rec, size_t size);
/*
 * With on_leaf: the calls at the start of buf (len bytes of records)
 * that go to on_leaf, each as kfit_ctree_add would decode it: one
 * task's depth-0 calls in a row, with nothing pending on its stack (nor
 * held or to place, woven), that start in [since, until) (until 0: no
 * end). The number taken (*bytes: their size; 0 when the first is not
 * such a call), or -errno. kfit_ctree_takes_leaves: whether it ever
 * takes any (on_leaf).
 */
bool kfit_ctree_takes_leaves(const struct kfit_ctree *t);
long kfit_ctree_add_leaves(struct kfit_ctree *t, const void *buf, size_t len,
			   __u64 since, __u64 until, size_t *bytes);
/*
 * Whether rec (size bytes, unaligned) is a whole record of a known type:
 * its size a multiple of 8 within size, all of its type's fields, a
 * sample's frames. What kfit_ctree_add checks first.
 */
bool kfit_ctree_check_rec(const void *rec, size_t size);
/* Decode a buffer of records back to back; stops at a truncated one */
int kfit_ctree_add_all(struct kfit_ctree *t, const void *buf, size_t size);
/* No more records: adopt what can be, interlace, sort threads by pid, tid */
void kfit_ctree_finish(struct kfit_ctree *t);
void kfit_ctree_free(struct kfit_ctree *t);

/* After finish: the threads, in order */
int kfit_ctree_nthreads(const struct kfit_ctree *t);
const struct kfit_cthread *kfit_ctree_thread(const struct kfit_ctree *t, int i);
const struct kfit_ctree_stats *kfit_ctree_get_stats(const struct kfit_ctree *t);
/* The name of a CALL or FRAME node ("?" past the table), an EVENT's event */
/* Function id's name in the table, "?" when it has none */
const char *kfit_ctree_func_name(const struct kfit_ctree *t, __u32 id);
const char *kfit_ctree_name(const struct kfit_ctree *t, const struct kfit_cnode *n);
const char *kfit_ctree_ctx_name(__u8 ctx);
/* A record type's name: "call", "switch", ... "lost"; "?" for no type */
const char *kfit_ctree_rec_type_name(__u8 type);
/* An interrupt node's label: "softirq NET_RX" (vec_name), "hardirq 24", "nmi" */
const char *kfit_ctree_irq_label(const struct kfit_cnode *n, const char *vec_name,
				 char *buf, size_t len);
/*
 * Sampled mode's group of an unnamed frame: "[unknown] 0xADDR" (in no
 * mapping) becomes "[unknown]", "FILE+0xOFF" (no symbol in FILE)
 * "FILE [unknown]" (in buf); NULL for a symbol's name. With
 * group_unknown, frames are named so, and a run of them in one file
 * (callers unknown too) is one frame: a binary without symbols gives one
 * node per file, not one per address.
 */
const char *kfit_ctree_frame_group(const char *name, char *buf, size_t len);
/*
 * A call's return value as text, in buf ("-ENOENT", "3", "0xffff8880..."),
 * or NULL: none (void, incomplete, a record of version 1)
 */
const char *kfit_cnode_ret_str(const struct kfit_cnode *n, char *buf, size_t len);
/*
 * A call's arguments as text, "count=4096 name=\"a\"", in buf, or NULL:
 * none recorded (or the tree has no table saying how they print)
 */
const char *kfit_ctree_args_str(const struct kfit_ctree *t, const struct kfit_cnode *n,
				char *buf, size_t len);
/* The same as a JSON object under key; nothing when none */
void kfit_ctree_args_json(const struct kfit_ctree *t, const struct kfit_cnode *n,
			  struct kfit_json *j, const char *key);
/* Whether a call shows a return value (kfit_cnode_ret_str) */
static inline bool kfit_cnode_has_ret(const struct kfit_cnode *n)
{
	return n->kind == KFIT_CN_CALL && (n->cflags & KFIT_CF_RET) &&
	       !(n->ret_kind & KFIT_RET_VOID);
}

/* A call that failed: a value of its kind's failures (kfit_ret_failed) */
static inline bool kfit_cnode_failed(const struct kfit_cnode *n)
{
	return kfit_cnode_has_ret(n) && !(n->flags & KFIT_RF_INCOMPLETE) &&
	       kfit_ret_failed(n->ret, n->ret_kind);
}

/* On the path from its tree's root to a failed call (KFIT_CN_FAILPATH) */
static inline bool kfit_cnode_failpath(const struct kfit_cnode *n)
{
	return n->cflags & KFIT_CN_FAILPATH;
}

/* A top-level node with a failed call anywhere in it: its own, or an interrupt's */
static inline bool kfit_cnode_has_failure(const struct kfit_cnode *n)
{
	return n->cflags & (KFIT_CN_FAILPATH | KFIT_CN_FAILIN);
}

/* A top-level node that is a tree of its own: a call, or an interrupt */
static inline bool kfit_cnode_is_tree(const struct kfit_cnode *n)
{
	return n->kind == KFIT_CN_CALL || n->kind == KFIT_CN_IRQ;
}

/* A call that returned, with a record of its own: what the summaries count */
static inline bool kfit_cnode_counted(const struct kfit_cnode *n)
{
	return n->kind == KFIT_CN_CALL && !(n->flags & (KFIT_RF_LOST | KFIT_RF_INCOMPLETE));
}

/*
 * Depth-first, parents before children: the next node after n (NULL: the
 * first) under root, or NULL. Inline: the summary walks every call with it.
 */
static inline const struct kfit_cnode *kfit_cnode_next(const struct kfit_cnode *root,
						       const struct kfit_cnode *n)
{
	if (!n || n == root)
		return root->child;
	if (n->child)
		return n->child;
	while (n != root && !n->next)
		n = n->parent;
	return n == root ? NULL : n->next;
}

#endif
