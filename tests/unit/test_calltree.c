// SPDX-License-Identifier: GPL-2.0
/*
 * The call-tree decoder on synthetic record streams: the trees are
 * checked through a compact shape string, "A(B(C) D)": a call and its
 * children; [lost] a stand-in; <NAME> an interrupt; ~state a switch;
 * *event; +fork:TID, +exec:COMM, +exit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "calltree.h"
#include "export.h"
#include "fstats.h"
#include "testlib.h"

static const char *const funcs[] = { "A", "B", "C", "D", "E", "f", "N", "H" };
enum { A, B, C, D, E, F, N, H, NFUNCS };
static const char *const events[] = { "sched:sched_wakeup", "irq:softirq_raise" };

#define PID 100

static struct kfit_ctree *new_tree(bool no_interlace)
{
	struct kfit_ctree_opts o = {
		.funcs = funcs, .nfuncs = NFUNCS,
		.events = events, .nevents = 2,
		.no_interlace = no_interlace,
	};
	struct kfit_ctree *t = kfit_ctree_new(&o);

	assert_non_null(t);
	return t;
}

static struct kfit_rec hdr(__u8 type, size_t size, __u8 ctx, __u16 cpu,
			   __u32 pid, __u32 tid, __u64 ts)
{
	return (struct kfit_rec){
		.type = type, .ctx = ctx, .size = size, .cpu = cpu,
		.pid = pid, .tid = tid, .ts = ts,
	};
}

static struct kfit_rec_call mk_call(__u8 ctx, __u16 cpu, __u32 tid, __u64 ts,
				    __u64 dur, __u32 id, __u16 depth)
{
	struct kfit_rec_call r = {
		.h = hdr(KFIT_REC_CALL, sizeof(r), ctx, cpu, PID, tid, ts),
		.dur = dur, .id = id, .depth = depth,
	};

	return r;
}

/* A task call of thread tid, pid PID */
static void call(struct kfit_ctree *t, __u32 tid, __u64 ts, __u64 dur, __u32 id,
		 __u16 depth)
{
	struct kfit_rec_call r = mk_call(KFIT_CTX_TASK, 0, tid, ts, dur, id, depth);

	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
}

static void call_flags(struct kfit_ctree *t, __u32 tid, __u64 ts, __u64 dur,
		       __u32 id, __u16 depth, __u8 flags)
{
	struct kfit_rec_call r = mk_call(KFIT_CTX_TASK, 0, tid, ts, dur, id, depth);

	r.h.flags = flags;
	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
}

/* A task call: call()'s arguments */
struct crec {
	__u32 tid;
	__u64 ts, dur;
	__u32 id;
	__u16 depth;
};

/* A tree of these task calls, finished */
static struct kfit_ctree *tree_of(const struct crec *c, size_t n)
{
	struct kfit_ctree *t = new_tree(false);

	for (; n--; c++)
		call(t, c->tid, c->ts, c->dur, c->id, c->depth);
	kfit_ctree_finish(t);
	return t;
}

/* A call in interrupt context ctx on cpu, striking task tid */
static void icall(struct kfit_ctree *t, __u8 ctx, __u16 cpu, __u32 tid, __u64 ts,
		  __u64 dur, __u32 id, __u16 depth)
{
	struct kfit_rec_call r = mk_call(ctx, cpu, tid, ts, dur, id, depth);

	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
}

static void irq(struct kfit_ctree *t, __u8 ctx, __u16 cpu, __u32 tid, __u64 ts,
		__u64 dur, __u32 vec, __u32 ncalls)
{
	struct kfit_rec_irq r = {
		.h = hdr(KFIT_REC_IRQ, sizeof(r), ctx, cpu, PID, tid, ts),
		.dur = dur, .vec = vec, .ncalls = ncalls,
	};

	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
}

static void sw(struct kfit_ctree *t, __u32 tid, __u64 ts, __u64 dur, __u32 state)
{
	struct kfit_rec_switch r = {
		.h = hdr(KFIT_REC_SWITCH, sizeof(r), KFIT_CTX_TASK, 0, PID, tid, ts),
		.dur = dur, .state = state,
	};

	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
}

static void event(struct kfit_ctree *t, __u8 ctx, __u16 cpu, __u32 tid, __u64 ts,
		  __u32 id)
{
	struct kfit_rec_event r = {
		.h = hdr(KFIT_REC_EVENT, sizeof(r), ctx, cpu, PID, tid, ts),
		.id = id, .len = 4,
	};

	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
}

static void task_rec(struct kfit_ctree *t, __u8 type, __u32 pid, __u32 tid,
		     __u64 ts, __u32 cpid, __u32 ctid, const char *comm)
{
	struct kfit_rec_task r = {
		.h = hdr(type, sizeof(r), KFIT_CTX_TASK, 0, pid, tid, ts),
		.child_pid = cpid, .child_tid = ctid,
	};

	/* not NUL-terminated when it fills the field */
	if (comm)
		memcpy(r.comm, comm, strnlen(comm, sizeof(r.comm)));
	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
}

static void lost(struct kfit_ctree *t, __u64 count)
{
	struct kfit_rec_lost r = {
		.h = hdr(KFIT_REC_LOST, sizeof(r), 0, 0, 0, 0, 0),
		.count = count,
	};

	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
}

/* ---- shapes ----------------------------------------------------------- */

static void shape_node(const struct kfit_ctree *t, const struct kfit_cnode *n,
		       FILE *f)
{
	const struct kfit_cnode *c;

	switch (n->kind) {
	case KFIT_CN_IRQ:
		fprintf(f, "<%s>", kfit_ctree_name(t, n));
		break;
	case KFIT_CN_SWITCH:
		fprintf(f, "~%s", kfit_ctree_name(t, n));
		break;
	case KFIT_CN_EVENT:
		fprintf(f, "*%s", kfit_ctree_name(t, n));
		break;
	case KFIT_CN_FORK:
		fprintf(f, "+fork:%u", n->child_tid);
		break;
	case KFIT_CN_EXEC:
		fprintf(f, "+exec:%s", n->name);
		break;
	case KFIT_CN_EXIT:
		fputs("+exit", f);
		break;
	case KFIT_CN_FRAME:
		fprintf(f, "%s:%llu/%llu", n->name, (unsigned long long)n->samples,
			(unsigned long long)n->self);
		break;
	default:
		fputs(kfit_ctree_name(t, n), f);
	}
	if (!n->child)
		return;
	fputc('(', f);
	for (c = n->child; c; c = c->next)
		shape_node(t, c, f), fputs(c->next ? " " : "", f);
	fputc(')', f);
}

static char *shape(const struct kfit_ctree *t, const struct kfit_cthread *th)
{
	const struct kfit_cnode *c;
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	for (c = th->root.child; c; c = c->next)
		shape_node(t, c, f), fputs(c->next ? " " : "", f);
	fclose(f);
	return buf;
}

static void check_shape(const struct kfit_ctree *t, int i, const char *want)
{
	const struct kfit_cthread *th = kfit_ctree_thread(t, i);
	char *got;

	assert_non_null(th);
	got = shape(t, th);
	assert_string_equal(got, want);
	free(got);
}

/* Exactly these threads, in order, of these shapes (SHAPES: a list) */
#define SHAPES(...) ((const char *const []){ __VA_ARGS__, NULL })
static void check_shapes(const struct kfit_ctree *t, const char *const *want)
{
	int i, n = 0;

	while (want[n])
		n++;
	assert_int_equal(kfit_ctree_nthreads(t), n);
	for (i = 0; i < n; i++)
		check_shape(t, i, want[i]);
}

/* Links consistent, rendered depths right, no cycle: n nodes at most */
static size_t check_links(const struct kfit_cthread *th, size_t max)
{
	const struct kfit_cnode *root = &th->root, *n, *c, *last;
	size_t count = 0;

	for (n = kfit_cnode_next(root, NULL); n; n = kfit_cnode_next(root, n)) {
		assert_true(++count <= max);
		assert_int_equal(n->depth, n->parent == root ? 0 : n->parent->depth + 1);
		for (last = NULL, c = n->child; c; last = c, c = c->next)
			assert_ptr_equal(c->parent, n);
		assert_ptr_equal(n->last, last);
	}
	for (last = NULL, c = root->child; c; last = c, c = c->next)
		assert_ptr_equal(c->parent, root);
	assert_ptr_equal(root->last, last);
	return count;
}

static void check_all_links(const struct kfit_ctree *t, size_t max)
{
	int i;

	for (i = 0; i < kfit_ctree_nthreads(t); i++)
		check_links(kfit_ctree_thread(t, i), max);
}

/* The first node of a thread's tree named name, depth-first */
static const struct kfit_cnode *find(const struct kfit_ctree *t, int thread,
				     const char *name)
{
	const struct kfit_cthread *th = kfit_ctree_thread(t, thread);
	const struct kfit_cnode *n;

	for (n = kfit_cnode_next(&th->root, NULL); n; n = kfit_cnode_next(&th->root, n))
		if (!strcmp(kfit_ctree_name(t, n), name))
			return n;
	fail_msg("no node %s", name);
	return NULL;
}

/* ---- nesting ---------------------------------------------------------- */

static void test_nesting(void **state)
{
	/* post-order: C, B, D, then A */
	static const struct crec calls[] = {
		{ PID, 120, 10, C, 2 }, { PID, 110, 30, B, 1 },
		{ PID, 150, 40, D, 1 }, { PID, 100, 100, A, 0 },
	};
	struct kfit_ctree *t = tree_of(calls, T_N(calls));
	const struct kfit_ctree_stats *s;
	const struct kfit_cthread *th;
	const struct kfit_cnode *a, *b;

	(void)state;
	check_shapes(t, SHAPES("A(B(C) D)"));
	th = kfit_ctree_thread(t, 0);
	assert_int_equal(th->pid, PID);
	assert_int_equal(th->tid, PID);
	assert_int_equal(th->ctx, KFIT_CTX_TASK);
	assert_int_equal(th->ncalls, 4);
	a = th->root.child;
	b = a->child;
	assert_int_equal(a->local, 100 - 30 - 40);
	assert_int_equal(b->local, 20);
	assert_int_equal(b->child->local, 10);
	assert_int_equal(a->depth, 0);
	assert_int_equal(b->depth, 1);
	assert_int_equal(b->child->depth, 2);
	assert_int_equal(b->next->depth, 1);
	assert_int_equal(a->start, 100);
	assert_int_equal(a->dur, 100);
	s = kfit_ctree_get_stats(t);
	assert_int_equal(s->records, 4);
	assert_int_equal(s->calls, 4);
	assert_int_equal(s->bad, 0);
	assert_int_equal(s->orphans, 0);
	assert_int_equal(s->first_ts, 100);
	assert_int_equal(s->last_ts, 200);
	check_all_links(t, 10);
	kfit_ctree_free(t);
}

static void test_recursion(void **state)
{
	static const struct crec calls[] = {
		{ PID, 20, 60, F, 2 }, { PID, 10, 80, F, 1 }, { PID, 0, 100, F, 0 },
		/* a second recursion, two calls at the deepest level */
		{ PID, 202, 2, F, 2 }, { PID, 205, 2, F, 2 },
		{ PID, 201, 8, F, 1 }, { PID, 200, 10, F, 0 },
	};
	struct kfit_ctree *t = tree_of(calls, T_N(calls));

	(void)state;
	check_shape(t, 0, "f(f(f)) f(f(f f))");
	assert_int_equal(kfit_ctree_thread(t, 0)->root.child->next->child->local, 4);
	kfit_ctree_free(t);
}

/* Threads in order of pid then tid, siblings in time order */
static void test_siblings_threads(void **state)
{
	struct kfit_ctree *t = new_tree(false);
	struct kfit_rec_call r = mk_call(KFIT_CTX_TASK, 3, 201, 5, 5, E, 0);

	(void)state;
	r.h.pid = 200;
	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
	call(t, 101, 1, 1, D, 0);
	call(t, PID, 0, 10, A, 0);
	call(t, PID, 10, 10, B, 0);
	call(t, PID, 20, 10, C, 0);
	kfit_ctree_finish(t);
	check_shapes(t, SHAPES("A B C", "D", "E"));
	assert_int_equal(kfit_ctree_thread(t, 1)->tid, 101);
	assert_int_equal(kfit_ctree_thread(t, 2)->pid, 200);
	assert_int_equal(kfit_ctree_thread(t, 2)->root.child->cpu, 3);
	assert_null(kfit_ctree_thread(t, 3));
	assert_null(kfit_ctree_thread(t, -1));
	kfit_ctree_free(t);
}

/* ---- losses ----------------------------------------------------------- */

static void test_lost_middle(void **state)
{
	struct kfit_ctree *t = new_tree(false);
	const struct kfit_cnode *a, *l;

	(void)state;
	/* B (depth 1) was lost: C at depth 2 shows the gap */
	call(t, PID, 120, 10, C, 2);
	lost(t, 3);
	call(t, PID, 100, 100, A, 0);
	kfit_ctree_finish(t);
	check_shape(t, 0, "A([lost](C))");
	a = kfit_ctree_thread(t, 0)->root.child;
	l = a->child;
	assert_true(l->flags & KFIT_RF_LOST);
	assert_int_equal(l->kind, KFIT_CN_CALL);
	assert_int_equal(l->start, 120);
	assert_int_equal(l->dur, 10);
	assert_int_equal(l->depth, 1);
	assert_int_equal(l->child->depth, 2);
	assert_int_equal(a->local, 90);
	assert_int_equal(kfit_ctree_get_stats(t)->lost, 3);
	assert_int_equal(kfit_ctree_get_stats(t)->orphans, 1);
	assert_int_equal(kfit_ctree_get_stats(t)->records, 3);
	kfit_ctree_free(t);
}

/* A gap of two levels between direct children: one stand-in for the run */
static void test_depth_gap(void **state)
{
	static const struct crec calls[] = {
		{ PID, 110, 10, B, 1 }, { PID, 130, 10, E, 3 }, { PID, 150, 10, E, 3 },
		{ PID, 170, 10, D, 1 }, { PID, 100, 100, A, 0 },
	};
	struct kfit_ctree *t = tree_of(calls, T_N(calls));
	const struct kfit_cnode *l;

	(void)state;
	check_shape(t, 0, "A(B [lost](E E) D)");
	l = kfit_ctree_thread(t, 0)->root.child->child->next;
	assert_int_equal(l->start, 130);
	assert_int_equal(l->dur, 30);
	assert_int_equal(l->local, 10);
	assert_int_equal(kfit_ctree_get_stats(t)->orphans, 2);
	check_all_links(t, 10);
	kfit_ctree_free(t);
}

/* Calls whose caller never came stay roots, in time order */
static void test_orphan_roots(void **state)
{
	static const struct crec calls[] = {
		{ PID, 300, 10, C, 2 },		/* outside A: not adopted */
		{ PID, 100, 100, A, 0 },
		{ PID, 400, 10, B, 1 },		/* its caller never returned */
	};
	struct kfit_ctree *t = tree_of(calls, T_N(calls));

	(void)state;
	check_shape(t, 0, "A C B");
	assert_int_equal(kfit_ctree_get_stats(t)->orphans, 2);
	kfit_ctree_free(t);
}

/* ---- incomplete frames ------------------------------------------------ */

static void test_incomplete(void **state)
{
	struct kfit_ctree *t = new_tree(false);
	__u8 end = KFIT_RF_INCOMPLETE | KFIT_RF_END;
	const struct kfit_cnode *a, *c;

	(void)state;
	/* a longjmp out of B, then C called from A */
	call_flags(t, PID, 10, 40, B, 1, KFIT_RF_INCOMPLETE | KFIT_RF_JUMPED);
	call(t, PID, 60, 10, C, 1);
	/* the capture ended with A and D open */
	call_flags(t, PID, 80, 20, D, 1, end);
	call_flags(t, PID, 0, 100, A, 0, end);
	/* a frame inherited at fork, exited */
	call_flags(t, 101, 0, 50, E, 0,
		   KFIT_RF_INCOMPLETE | KFIT_RF_EXITED | KFIT_RF_FORKED);
	kfit_ctree_finish(t);
	check_shape(t, 0, "A(B C D)");
	check_shape(t, 1, "E");
	a = kfit_ctree_thread(t, 0)->root.child;
	assert_int_equal(a->flags, end);
	assert_int_equal(a->child->flags, KFIT_RF_INCOMPLETE | KFIT_RF_JUMPED);
	c = a->child->next;
	assert_int_equal(c->flags, 0);
	assert_int_equal(kfit_ctree_thread(t, 1)->root.child->flags,
			 KFIT_RF_INCOMPLETE | KFIT_RF_EXITED | KFIT_RF_FORKED);
	assert_int_equal(kfit_ctree_get_stats(t)->incomplete, 4);
	assert_int_equal(kfit_ctree_get_stats(t)->orphans, 0);
	kfit_ctree_free(t);
}

/* Dropped calls (--min, -D) are summed; a record cannot claim LOST */
static void test_dropped(void **state)
{
	struct kfit_ctree *t = new_tree(false);
	struct kfit_rec_call r = mk_call(KFIT_CTX_TASK, 0, PID, 0, 10, A, 0);

	(void)state;
	r.dropped = 7;
	r.h.flags = KFIT_RF_LOST;
	r.off_blocked = 3;
	r.off_preempt = 2;
	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
	r.h.ts = 20;
	r.dropped = 5;
	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
	kfit_ctree_finish(t);
	check_shape(t, 0, "A A");
	assert_int_equal(kfit_ctree_get_stats(t)->dropped, 12);
	assert_int_equal(kfit_ctree_thread(t, 0)->root.child->dropped, 7);
	assert_int_equal(kfit_ctree_thread(t, 0)->root.child->flags, 0);
	assert_int_equal(kfit_ctree_thread(t, 0)->root.child->off_blocked, 3);
	assert_int_equal(kfit_ctree_thread(t, 0)->root.child->off_preempt, 2);
	kfit_ctree_free(t);
}

/* ---- interrupts ------------------------------------------------------- */

/*
 * Task 100: A [100, 300) with B [110, 140). On CPU 1 a NET_RX softirq
 * [150, 170) runs N [151, 160), itself struck by hardirq 24 [155, 158)
 * running H. On CPU 0 a hardirq runs H [120, 121) with no IRQ record.
 * A TIMER softirq on CPU 1 strikes task 999, which has no calls.
 */
static void irq_stream(struct kfit_ctree *t)
{
	call(t, PID, 110, 30, B, 1);
	icall(t, KFIT_CTX_HARDIRQ, 0, PID, 120, 1, H, 0);
	icall(t, KFIT_CTX_HARDIRQ, 1, PID, 156, 1, H, 0);
	irq(t, KFIT_CTX_HARDIRQ, 1, PID, 155, 3, 24, 1);
	event(t, KFIT_CTX_SOFTIRQ, 1, PID, 152, 1);
	icall(t, KFIT_CTX_SOFTIRQ, 1, PID, 151, 9, N, 0);
	irq(t, KFIT_CTX_SOFTIRQ, 1, PID, 150, 20, 3, 1);
	call(t, PID, 100, 200, A, 0);
	icall(t, KFIT_CTX_SOFTIRQ, 1, 999, 401, 1, N, 0);
	irq(t, KFIT_CTX_SOFTIRQ, 1, 999, 400, 5, 1, 1);
}

static void test_interrupts_interlaced(void **state)
{
	struct kfit_ctree *t = new_tree(false);
	const struct kfit_cthread *th;
	const struct kfit_cnode *n;

	(void)state;
	irq_stream(t);
	kfit_ctree_finish(t);
	check_shapes(t, SHAPES("A(B(H) <NET_RX>(N(*irq:softirq_raise <hardirq>(H))))",
			       "<TIMER>(N)"));
	th = kfit_ctree_thread(t, 1);
	assert_int_equal(th->ctx, KFIT_CTX_SOFTIRQ);
	assert_int_equal(th->cpu, 1);
	/* the interrupt's time is not taken from the call's local time */
	n = kfit_ctree_thread(t, 0)->root.child;
	assert_int_equal(n->local, 170);
	n = find(t, 0, "NET_RX");
	assert_int_equal(n->kind, KFIT_CN_IRQ);
	assert_int_equal(n->ctx, KFIT_CTX_SOFTIRQ);
	assert_int_equal(n->id, 3);
	assert_int_equal(n->ncalls, 1);
	assert_int_equal(n->cpu, 1);
	assert_int_equal(n->depth, 1);
	assert_int_equal(n->child->depth, 2);
	assert_int_equal(n->child->ctx, KFIT_CTX_SOFTIRQ);
	n = find(t, 0, "hardirq");
	assert_int_equal(n->depth, 3);
	assert_int_equal(n->child->depth, 4);
	assert_int_equal(kfit_ctree_get_stats(t)->calls, 6);
	check_all_links(t, 20);
	kfit_ctree_free(t);
}

static void test_interrupts_apart(void **state)
{
	struct kfit_ctree *t = new_tree(true);

	(void)state;
	irq_stream(t);
	kfit_ctree_finish(t);
	check_shapes(t, SHAPES("A(B)", "<NET_RX>(N(*irq:softirq_raise)) <TIMER>(N)",
			       "H", "<hardirq>(H)"));
	assert_int_equal(kfit_ctree_thread(t, 1)->ctx, KFIT_CTX_SOFTIRQ);
	assert_int_equal(kfit_ctree_thread(t, 2)->ctx, KFIT_CTX_HARDIRQ);
	assert_int_equal(kfit_ctree_thread(t, 2)->cpu, 0);
	assert_int_equal(kfit_ctree_thread(t, 3)->cpu, 1);
	check_all_links(t, 20);
	kfit_ctree_free(t);
}

/* Interrupt calls with depths: the IRQ record adopts depth 0 */
static void test_interrupt_nesting(void **state)
{
	struct kfit_ctree *t = new_tree(true);

	(void)state;
	icall(t, KFIT_CTX_SOFTIRQ, 0, 0, 12, 2, C, 1);
	icall(t, KFIT_CTX_SOFTIRQ, 0, 0, 11, 5, N, 0);
	icall(t, KFIT_CTX_SOFTIRQ, 0, 0, 17, 1, D, 1);	/* its caller lost */
	irq(t, KFIT_CTX_SOFTIRQ, 0, 0, 10, 10, 7, 3);
	icall(t, KFIT_CTX_NMI, 2, 0, 30, 1, E, 0);
	kfit_ctree_finish(t);
	check_shape(t, 0, "<SCHED>(N(C) [lost](D))");
	check_shape(t, 1, "E");
	assert_int_equal(kfit_ctree_thread(t, 1)->ctx, KFIT_CTX_NMI);
	assert_int_equal(kfit_ctree_get_stats(t)->orphans, 1);
	kfit_ctree_free(t);
}

/* ---- switches, events, tasks ----------------------------------------- */

static void test_switches_events(void **state)
{
	struct kfit_ctree *t = new_tree(false);
	const struct kfit_cnode *n;

	(void)state;
	event(t, KFIT_CTX_TASK, 0, PID, 50, 0);
	sw(t, PID, 120, 10, 1);
	call(t, PID, 110, 30, B, 1);
	event(t, KFIT_CTX_TASK, 0, PID, 145, 0);
	sw(t, PID, 200, 30, 0);
	call(t, PID, 100, 200, A, 0);
	/* a switch at the instant a call starts is inside it */
	sw(t, PID, 400, 5, 2);
	call(t, PID, 400, 10, C, 0);
	kfit_ctree_finish(t);
	check_shape(t, 0, "*sched:sched_wakeup A(B(~blocked) *sched:sched_wakeup "
			  "~preempted) C(~blocked)");
	n = find(t, 0, "blocked");
	assert_int_equal(n->kind, KFIT_CN_SWITCH);
	assert_int_equal(n->off_blocked, 10);
	assert_int_equal(n->off_preempt, 0);
	assert_int_equal(n->id, 1);
	assert_int_equal(n->depth, 2);
	n = find(t, 0, "preempted");
	assert_int_equal(n->off_preempt, 30);
	assert_int_equal(n->dur, 30);
	assert_int_equal(kfit_ctree_get_stats(t)->first_ts, 50);
	check_all_links(t, 20);
	kfit_ctree_free(t);
}

static void test_fork_exec_names(void **state)
{
	struct kfit_ctree *t = new_tree(false);

	(void)state;
	assert_int_equal(kfit_ctree_task(t, PID, PID, "parent"), 0);
	assert_int_equal(kfit_ctree_task(t, 7, 7, "idle-named"), 0);
	task_rec(t, KFIT_REC_FORK, PID, PID, 150, 300, 300, NULL);
	task_rec(t, KFIT_REC_FORK, PID, PID, 160, PID, 101, NULL);
	call(t, PID, 100, 100, A, 0);
	call(t, 101, 170, 5, D, 0);
	/* the child, a process of its own */
	{
		struct kfit_rec_call r = mk_call(KFIT_CTX_TASK, 0, 300, 160, 10, B, 0);

		r.h.pid = 300;
		assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
		task_rec(t, KFIT_REC_EXEC, 300, 300, 180, 0, 0, "a-sixteen-char-name");
		r.h.ts = 190;
		r.id = C;
		r.dur = 5;
		assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
		task_rec(t, KFIT_REC_EXIT, 300, 300, 199, 0, 0, NULL);
	}
	kfit_ctree_finish(t);
	/* the named task without records is not listed */
	check_shapes(t, SHAPES("A(+fork:300 +fork:101)", "D",
			       "B +exec:a-sixteen-char- C +exit"));
	assert_string_equal(kfit_ctree_thread(t, 0)->comm, "parent");
	assert_string_equal(kfit_ctree_thread(t, 1)->comm, "parent");
	assert_int_equal(kfit_ctree_thread(t, 1)->pid, PID);
	assert_string_equal(kfit_ctree_thread(t, 2)->comm, "a-sixteen-char-");
	assert_int_equal(kfit_ctree_thread(t, 2)->pid, 300);
	kfit_ctree_free(t);
}

/*
 * One fork, the records of its parent and of its children in either
 * order (sharded ring buffers: a task's records go to its own ring, and
 * the rings are drained one after the other). The parent PID forks 300
 * (a process, which inherits A and execs) and thread 101 (which does not).
 */
static void parent_recs(struct kfit_ctree *t)
{
	task_rec(t, KFIT_REC_FORK, PID, PID, 150, 300, 300, "parent");
	task_rec(t, KFIT_REC_FORK, PID, PID, 160, PID, 101, "parent");
	call(t, PID, 100, 100, A, 0);
}

static void child_recs(struct kfit_ctree *t)
{
	struct kfit_rec_call r = mk_call(KFIT_CTX_TASK, 0, 300, 100, 70, A, 0);

	call(t, 101, 170, 5, D, 0);
	/* 300's A: the frame it inherited, entered by its parent at 100 */
	r.h.pid = 300;
	r.h.flags = KFIT_RF_FORKED;
	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
	task_rec(t, KFIT_REC_EXEC, 300, 300, 180, 0, 0, "child");
	r.h.flags = 0;
	r.h.ts = 190;
	r.id = C;
	r.dur = 5;
	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
	task_rec(t, KFIT_REC_EXIT, 300, 300, 199, 0, 0, "child");
}

static void test_fork_any_order(void **state)
{
	struct kfit_ctree *t;
	int parent_first;

	(void)state;
	for (parent_first = 0; parent_first < 2; parent_first++) {
		t = new_tree(false);
		assert_int_equal(kfit_ctree_task(t, PID, PID, "parent"), 0);
		if (parent_first) {
			parent_recs(t);
			child_recs(t);
		} else {
			child_recs(t);
			parent_recs(t);
		}
		kfit_ctree_finish(t);
		check_shapes(t, SHAPES("A(+fork:300 +fork:101)", "D",
				       "A +exec:child C +exit"));
		assert_string_equal(kfit_ctree_thread(t, 1)->comm, "parent");
		assert_string_equal(kfit_ctree_thread(t, 2)->comm, "child");
		assert_int_equal(kfit_ctree_thread(t, 2)->pid, 300);
		assert_true(find(t, 2, "A")->flags & KFIT_RF_FORKED);
		assert_int_equal(kfit_ctree_get_stats(t)->orphans, 0);
		check_all_links(t, 10);
		kfit_ctree_free(t);
	}
}

/* ---- malformed input -------------------------------------------------- */

/* r, size bytes of it, is taken (0) and counted bad */
static void add_bad(const char *name, struct kfit_ctree *t, const void *r,
		    size_t size)
{
	__u64 bad = kfit_ctree_get_stats(t)->bad;

	t_int_eq(name, kfit_ctree_add(t, r, size), 0);
	t_int_eq(name, kfit_ctree_get_stats(t)->bad, bad + 1);
}

#define CALL_SIZE sizeof(struct kfit_rec_call)

/* Call records (task, cpu 0, pid and tid PID, dur 10) that are bad */
static const struct {
	const char *name;
	size_t given;		/* bytes handed to kfit_ctree_add */
	__u16 size;
	__u8 type, ctx;
	__u32 id;
	__u64 ts;
} bad_calls[] = {
	{ "shorter than a header", 8, CALL_SIZE, KFIT_REC_CALL, KFIT_CTX_TASK, A, 0 },
	{ "not a multiple of 8", CALL_SIZE, 60, KFIT_REC_CALL, KFIT_CTX_TASK, A, 0 },
	{ "shorter than its type", CALL_SIZE, 24, KFIT_REC_CALL, KFIT_CTX_TASK, A, 0 },
	{ "longer than given", CALL_SIZE, CALL_SIZE + 8, KFIT_REC_CALL,
	  KFIT_CTX_TASK, A, 0 },
	{ "unknown type", CALL_SIZE, CALL_SIZE, 99, KFIT_CTX_TASK, A, 0 },
	{ "type 0", CALL_SIZE, CALL_SIZE, 0, KFIT_CTX_TASK, A, 0 },
	{ "past the function table", CALL_SIZE, CALL_SIZE, KFIT_REC_CALL,
	  KFIT_CTX_TASK, NFUNCS, 0 },
	{ "unknown context", CALL_SIZE, CALL_SIZE, KFIT_REC_CALL, KFIT_NCTX, A, 0 },
	{ "ends past the clock", CALL_SIZE, CALL_SIZE, KFIT_REC_CALL,
	  KFIT_CTX_TASK, A, ~0ULL - 5 },
};

static void test_malformed(void **state)
{
	struct kfit_ctree *t = new_tree(false);
	struct kfit_rec_call r = mk_call(KFIT_CTX_TASK, 0, PID, 0, 10, A, 0);
	struct kfit_rec_irq q = {
		.h = hdr(KFIT_REC_IRQ, sizeof(q), KFIT_CTX_TASK, 0, PID, PID, 0),
	};
	struct kfit_rec_event e = {
		.h = hdr(KFIT_REC_EVENT, sizeof(e), KFIT_CTX_TASK, 0, PID, PID, 0),
	};
	struct kfit_rec_sample s = {
		.h = hdr(KFIT_REC_SAMPLE, 40, KFIT_CTX_TASK, 0, PID, PID, 0),
		.nkernel = 1, .nuser = 1,
	};
	struct kfit_rec_switch w = {
		.h = hdr(KFIT_REC_SWITCH, sizeof(w), KFIT_CTX_SOFTIRQ, 0, PID, PID, 0),
	};
	struct kfit_rec_call c;
	size_t i;

	(void)state;
	for (i = 0; i < T_N(bad_calls); i++) {
		c = mk_call(bad_calls[i].ctx, 0, PID, bad_calls[i].ts, 10,
			    bad_calls[i].id, 0);
		c.h.size = bad_calls[i].size;
		c.h.type = bad_calls[i].type;
		add_bad(bad_calls[i].name, t, &c, bad_calls[i].given);
	}
	add_bad("an interrupt in a task", t, &q, sizeof(q));
	add_bad("a switch in an interrupt", t, &w, sizeof(w));
	e.id = 2;
	add_bad("past the event table", t, &e, sizeof(e));
	e.id = 0, e.len = KFIT_EVENT_DATA + 1;
	add_bad("event data too long", t, &e, sizeof(e));
	e.len = 16, e.h.size = offsetof(struct kfit_rec_event, data) + 8;
	add_bad("event data past its size", t, &e, sizeof(e));
	e.h.size = offsetof(struct kfit_rec_event, data) - 8;
	add_bad("shorter than the event header", t, &e, sizeof(e));
	add_bad("two frames in one's room", t, &s, sizeof(s));
	s.h.size = 48, s.nkernel = KFIT_STACK_MAX + 1, s.nuser = 0;
	add_bad("more frames than KFIT_STACK_MAX", t, &s, sizeof(s));
	assert_int_equal(kfit_ctree_get_stats(t)->records, 0);
	/* a good record still decodes */
	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
	/* an event as short as its data, as the BPF side writes them */
	e.len = 16, e.h.size = offsetof(struct kfit_rec_event, data) + 16;
	assert_int_equal(kfit_ctree_add(t, &e, e.h.size), 0);
	kfit_ctree_finish(t);
	check_shape(t, 0, "A(*sched:sched_wakeup)");
	assert_int_equal(kfit_ctree_get_stats(t)->bad, 17);
	assert_int_equal(kfit_ctree_get_stats(t)->records, 2);
	/* finished: no more records */
	assert_int_not_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
	kfit_ctree_free(t);
}

/* A buffer: unknown types skipped, a truncated tail stops the decoding */
static void test_add_all(void **state)
{
	struct kfit_ctree *t = new_tree(false);
	struct kfit_rec_call r[5];
	char buf[sizeof(r) + 3];

	(void)state;
	r[0] = mk_call(KFIT_CTX_TASK, 0, PID, 1, 2, B, 1);
	r[1] = mk_call(KFIT_CTX_TASK, 0, PID, 0, 10, A, 0);
	r[2] = mk_call(KFIT_CTX_TASK, 0, PID, 20, 10, C, 0);
	r[2].h.type = 42;
	r[3] = mk_call(KFIT_CTX_TASK, 0, PID, 30, 10, D, 0);
	r[4] = mk_call(KFIT_CTX_TASK, 0, PID, 40, 10, E, 0);
	/* one byte off alignment: a file buffer need not be aligned */
	memcpy(buf + 1, r, sizeof(r));
	assert_int_equal(kfit_ctree_add_all(t, buf + 1, sizeof(r) - 8), 0);
	kfit_ctree_finish(t);
	check_shape(t, 0, "A(B) D");
	assert_int_equal(kfit_ctree_get_stats(t)->bad, 2);
	assert_int_equal(kfit_ctree_get_stats(t)->records, 3);
	kfit_ctree_free(t);

	/* a size of 0 gives no way on: the rest is one bad record */
	t = new_tree(false);
	r[1].h.size = 0;
	assert_int_equal(kfit_ctree_add_all(t, r, sizeof(r)), 0);
	assert_int_equal(kfit_ctree_get_stats(t)->records, 1);
	assert_int_equal(kfit_ctree_get_stats(t)->bad, 1);
	/* a tail shorter than a header */
	assert_int_equal(kfit_ctree_add_all(t, &r[3], 12), 0);
	assert_int_equal(kfit_ctree_get_stats(t)->bad, 2);
	assert_int_equal(kfit_ctree_add_all(t, NULL, 0), 0);
	kfit_ctree_finish(t);
	kfit_ctree_finish(t);		/* twice: no harm */
	check_shape(t, 0, "B");
	kfit_ctree_free(t);
	kfit_ctree_free(NULL);
}

/* No function table: every call is past it */
static void test_no_tables(void **state)
{
	struct kfit_ctree *t = kfit_ctree_new(NULL);
	struct kfit_rec_call r = mk_call(KFIT_CTX_TASK, 0, PID, 0, 10, 0, 0);

	(void)state;
	assert_non_null(t);
	add_bad("no function table", t, &r, sizeof(r));
	kfit_ctree_finish(t);
	assert_int_equal(kfit_ctree_nthreads(t), 0);
	kfit_ctree_free(t);
}

/* ---- robustness ------------------------------------------------------- */

static __u64 rnd_state = 0x9e3779b97f4a7c15ULL;

static __u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Records of any type with plausible headers and random fields */
static size_t random_record(char *buf, size_t room)
{
	static const size_t sizes[] = {
		0, sizeof(struct kfit_rec_call), sizeof(struct kfit_rec_switch),
		sizeof(struct kfit_rec_irq), sizeof(struct kfit_rec_event),
		sizeof(struct kfit_rec_task), sizeof(struct kfit_rec_task),
		sizeof(struct kfit_rec_task), sizeof(struct kfit_rec_sample),
		sizeof(struct kfit_rec_lost),
	};
	struct kfit_rec h;
	size_t size, i;
	__u8 type = 1 + rnd() % 9;

	size = sizes[type];
	if (type == KFIT_REC_SAMPLE)
		size = 32 + 8 * (rnd() % 20);
	if (size > room)
		return 0;
	for (i = 0; i < size; i += 8) {
		__u64 v = rnd();

		/* small values, so that intervals nest and ids fit */
		if (rnd() % 2)
			v %= 64;
		memcpy(buf + i, &v, 8);
	}
	h = hdr(type, size, rnd() % 2 ? 0 : rnd() % 5, rnd() % 3, PID,
		PID + rnd() % 3, rnd() % 200);
	if (rnd() % 50 == 0)
		h.size = rnd() % 2 ? rnd() : 8 * (rnd() % 140);
	memcpy(buf, &h, sizeof(h));
	if (type == KFIT_REC_CALL) {
		struct kfit_rec_call c;

		memcpy(&c, buf, sizeof(c));
		c.dur = rnd() % 100;
		c.depth = rnd() % 6;
		c.id = rnd() % (NFUNCS + 1);
		memcpy(buf, &c, sizeof(c));
	}
	return size;
}

static const char *rnd_sym(void *ctx, __u32 pid, __u64 addr, bool kernel)
{
	(void)ctx;
	(void)pid;
	(void)kernel;
	return addr % 3 ? NULL : addr % 2 ? "odd" : "even";
}

static void test_random_records(void **state)
{
	static char buf[1 << 16];
	int round;

	(void)state;
	for (round = 0; round < 300; round++) {
		struct kfit_ctree_opts o = {
			.funcs = funcs, .nfuncs = NFUNCS, .events = events,
			.nevents = 2, .no_interlace = round % 2, .sym = rnd_sym,
		};
		struct kfit_ctree *t = kfit_ctree_new(&o);
		static size_t off[1 << 13];
		size_t len = 0, n, nrec = 0;
		int i;

		assert_non_null(t);
		while ((n = random_record(buf + len, sizeof(buf) - len))) {
			off[nrec++] = len;
			len += n;
		}
		off[nrec] = len;
		/* random bit flips */
		for (i = 0; i < round % 50; i++)
			buf[rnd() % len] ^= 1 << (rnd() % 8);
		/* a buffer stops at a bad size; records one by one go on */
		if (round % 3)
			for (n = 0; n < nrec; n++)
				assert_int_equal(kfit_ctree_add(t, buf + off[n],
								off[n + 1] - off[n]), 0);
		else
			assert_int_equal(kfit_ctree_add_all(t, buf, len), 0);
		kfit_ctree_finish(t);
		check_all_links(t, len);
		for (i = 0; i < kfit_ctree_nthreads(t); i++) {
			const struct kfit_cthread *th = kfit_ctree_thread(t, i);
			const struct kfit_cnode *c;

			for (c = kfit_cnode_next(&th->root, NULL); c;
			     c = kfit_cnode_next(&th->root, c))
				assert_non_null(kfit_ctree_name(t, c));
		}
		kfit_ctree_free(t);
	}
}

/* The summary of a stream of len bytes at buf, from the tree or streamed */
static int summed(void *ctx, const struct kfit_ctree *t, const struct kfit_cnode *root)
{
	(void)t;
	return kfit_fstats_add_tree(ctx, root);
}

/* collapse: streamed, collapsed past that many nodes (0: not) */
static struct kfit_ctree_stats summary_opts(const char *buf, size_t len, bool stream,
					    bool no_interlace, __u32 collapse,
					    struct kfit_fstats *s)
{
	struct kfit_ctree_opts o = {
		.funcs = funcs, .nfuncs = NFUNCS, .events = events,
		.nevents = 2, .no_interlace = no_interlace, .sym = rnd_sym,
		.on_root = stream ? summed : NULL, .root_ctx = s,
		.collapse = collapse > 0, .collapse_nodes = collapse,
	};
	struct kfit_ctree_stats st;
	struct kfit_ctree *t;

	assert_int_equal(kfit_fstats_init(s, NFUNCS), 0);
	t = kfit_ctree_new(&o);
	assert_non_null(t);
	assert_int_equal(kfit_ctree_add_all(t, buf, len), 0);
	kfit_ctree_finish(t);
	if (stream) {
		kfit_fstats_end_trees(s);
		assert_int_equal(kfit_ctree_nthreads(t) > 0 &&
				 kfit_ctree_thread(t, 0)->root.child &&
				 kfit_ctree_thread(t, 0)->root.child->kind == KFIT_CN_CALL, 0);
	} else {
		assert_int_equal(kfit_fstats_from_tree(s, t), 0);
	}
	st = *kfit_ctree_get_stats(t);
	kfit_ctree_free(t);
	return st;
}

static struct kfit_ctree_stats summary_of(const char *buf, size_t len, bool stream,
					  bool no_interlace, struct kfit_fstats *s)
{
	return summary_opts(buf, len, stream, no_interlace, 0, s);
}

/* Every function's figures of y are x's */
static void same_figures(const char *name, const struct kfit_fstats *x,
			 const struct kfit_fstats *y)
{
	int i;

	t_int_eq(name, y->incomplete, x->incomplete);
	for (i = 0; i < NFUNCS; i++) {
		t_true(name, !memcmp(&x->f[i].h, &y->f[i].h, sizeof(x->f[i].h)));
		t_int_eq(name, y->f[i].local_ns, x->f[i].local_ns);
		t_int_eq(name, y->f[i].max_sub, x->f[i].max_sub);
		t_int_eq(name, y->f[i].max_sub_ns, x->f[i].max_sub_ns);
	}
}

/*
 * Streaming (on_root: each finished subtree summed, then freed) gives
 * the summary the whole tree gives, on random streams: orphans, lost
 * callers, interrupts, calls that never returned, malformed records
 */
static void test_streaming_same_summary(void **state)
{
	static char buf[1 << 16];
	struct kfit_ctree_stats a, b;
	struct kfit_fstats x, y;
	int round, i;

	(void)state;
	for (round = 0; round < 300; round++) {
		size_t len = 0, n;
		char name[32];

		while ((n = random_record(buf + len, sizeof(buf) - len)))
			len += n;
		for (i = 0; i < round % 20; i++)
			buf[rnd() % len] ^= 1 << (rnd() % 8);
		a = summary_of(buf, len, false, round % 2, &x);
		b = summary_of(buf, len, true, round % 2, &y);
		snprintf(name, sizeof(name), "round %d", round);
		t_true(name, !memcmp(&a, &b, sizeof(a)));
		same_figures(name, &x, &y);
		kfit_fstats_free(&x);
		kfit_fstats_free(&y);
	}
}

/*
 * Stacks as a tracer writes them: NTASKS tasks, each inside a main (id 0)
 * open the whole stream, calls and returns at random down to depth 5,
 * each call's record at its return; now and then an interrupt on a
 * task's CPU with calls of its own, written before the interrupt's
 * record. What is open at the end returns then. len into *len.
 */
#define NTASKS 3

struct gstack {
	__u64 start[6];
	__u32 id[6];
	int depth;
};

static size_t put_rec(char *buf, size_t len, size_t room, const void *r, size_t size)
{
	if (len + size > room)
		return len;
	memcpy(buf + len, r, size);
	return len + size;
}

static size_t gen_ret(char *buf, size_t len, size_t room, struct gstack *g, int task,
		      __u64 now)
{
	struct kfit_rec_call c;
	int d = --g->depth;

	c = mk_call(KFIT_CTX_TASK, task % 2, PID + task, g->start[d], now - g->start[d],
		    g->id[d], d);
	return put_rec(buf, len, room, &c, sizeof(c));
}

static size_t gen_irq(char *buf, size_t len, size_t room, int task, __u64 *now)
{
	struct kfit_rec_irq q = {
		.h = hdr(KFIT_REC_IRQ, sizeof(q), KFIT_CTX_SOFTIRQ, task % 2, PID,
			 PID + task, *now),
		.vec = 3,
	};
	struct kfit_rec_call c;
	int i, n = 1 + rnd() % 3;

	for (i = 0; i < n; i++) {
		c = mk_call(KFIT_CTX_SOFTIRQ, task % 2, PID + task, *now + 1, 5 + rnd() % 20,
			    1 + rnd() % (NFUNCS - 1), 0);
		len = put_rec(buf, len, room, &c, sizeof(c));
		*now += c.dur + 2;
		q.ncalls++;
	}
	q.dur = *now - q.h.ts;
	*now += 1;
	return put_rec(buf, len, room, &q, sizeof(q));
}

/* A switch or a tracepoint hit of task k at now, while it runs its calls */
static size_t gen_mark(char *buf, size_t len, size_t room, int task, __u64 *now)
{
	struct kfit_rec_switch w = {
		.h = hdr(KFIT_REC_SWITCH, sizeof(w), KFIT_CTX_TASK, task % 2, PID,
			 PID + task, *now),
		.dur = 1 + rnd() % 30, .state = rnd() % 2,
	};
	struct kfit_rec_event e = {
		.h = hdr(KFIT_REC_EVENT, sizeof(e), KFIT_CTX_TASK, task % 2, PID,
			 PID + task, *now),
		.id = rnd() % 2,
	};

	if (rnd() % 2)
		return put_rec(buf, len, room, &e, sizeof(e));
	*now += w.dur;
	return put_rec(buf, len, room, &w, sizeof(w));
}

/*
 * A call in a hardirq with no interrupt record (the local timer's: no
 * irq_handler tracepoint), striking task (or one that never calls: idle)
 */
static size_t gen_bare_irq(char *buf, size_t len, size_t room, int task, __u64 *now)
{
	struct kfit_rec_call c = mk_call(KFIT_CTX_HARDIRQ, task % 2, PID + task, *now + 1,
					 3 + rnd() % 10, 1 + rnd() % (NFUNCS - 1), 0);

	*now += c.dur + 3;
	return put_rec(buf, len, room, &c, sizeof(c));
}

static size_t stack_stream(char *buf, size_t room)
{
	struct gstack g[NTASKS] = { 0 };
	__u64 now = 1000;
	size_t len = 0;
	int step, k;

	for (k = 0; k < NTASKS; k++) {
		g[k].start[0] = now++;
		g[k].depth = 1;
	}
	for (step = 0; step < 4000 && len + 512 < room; step++) {
		k = rnd() % NTASKS;
		now += 1 + rnd() % 50;
		if (rnd() % 40 == 0)
			len = gen_irq(buf, len, room, rnd() % 8 ? k : 10 + 2 * (int)(rnd() % 3), &now);
		else if (rnd() % 40 == 0)
			len = gen_bare_irq(buf, len, room, rnd() % 8 ? k : 11, &now);
		else if (rnd() % 30 == 0)
			len = gen_mark(buf, len, room, k, &now);
		else if (g[k].depth < 6 && (g[k].depth == 1 || rnd() % 2)) {
			g[k].start[g[k].depth] = now;
			g[k].id[g[k].depth++] = 1 + rnd() % (NFUNCS - 1);
		} else if (g[k].depth > 1) {
			len = gen_ret(buf, len, room, &g[k], k, now);
		}
	}
	for (k = 0; k < NTASKS; k++)
		while (g[k].depth)
			len = gen_ret(buf, len, room, &g[k], k, now += 3);
	return len;
}

/*
 * Collapsed (the callees of main given to on_root before main returns,
 * runs of them summed), the summary is the whole tree's, with every node
 * of main's callees let go on the way
 */
static void test_collapse_same_summary(void **state)
{
	static char buf[1 << 18];
	struct kfit_ctree_stats a, b;
	struct kfit_fstats x, y;
	__u32 at[] = { 1, 7, 64, 1000 };
	int round;

	(void)state;
	for (round = 0; round < 120; round++) {
		size_t len = stack_stream(buf, sizeof(buf));
		char name[48];

		a = summary_opts(buf, len, false, round % 2, 0, &x);
		b = summary_opts(buf, len, true, round % 2, at[round % 4], &y);
		snprintf(name, sizeof(name), "round %d, at %u", round, at[round % 4]);
		t_int_eq(name, a.calls, b.calls);
		t_int_eq(name, a.orphans, b.orphans);
		same_figures(name, &x, &y);
		/* main's callees were many: some run was summed */
		t_true(name, x.f[0].h.count == NTASKS);
		kfit_fstats_free(&x);
		kfit_fstats_free(&y);
	}
}

/* Each node of n's subtree, one line each: depth, kind, id, times, flags */
static void dump_tree(FILE *f, const struct kfit_cnode *n)
{
	const struct kfit_cnode *c;

	fprintf(f, "%u %u %u %llu %llu %llu %x %u\n", n->depth, n->kind, n->id,
		(unsigned long long)n->start, (unsigned long long)n->dur,
		(unsigned long long)n->local, n->flags, n->ctx);
	for (c = n->child; c; c = c->next)
		dump_tree(f, c);
}

/* Per thread (tid, ctx, cpu) its top-level nodes' dumps, in emission order */
struct woven_out {
	char *text[16];
	size_t len[16];
	FILE *f[16];
	__u32 key[16];
	int n;
};

static FILE *woven_file(struct woven_out *w, const struct kfit_cthread *th)
{
	__u32 key = th->tid << 8 | th->ctx << 4 | th->cpu;
	int i;

	for (i = 0; i < w->n; i++)
		if (w->key[i] == key)
			return w->f[i];
	assert_true(w->n < 16);
	w->key[w->n] = key;
	w->f[w->n] = open_memstream(&w->text[w->n], &w->len[w->n]);
	return w->f[w->n++];
}

static int woven_got(void *ctx, const struct kfit_ctree *t, const struct kfit_cnode *n)
{
	const struct kfit_cthread *th = kfit_ctree_emitting(t);

	assert_non_null(th);
	assert_ptr_equal(n->parent, &th->root);
	dump_tree(woven_file(ctx, th), n);
	return 0;
}

/*
 * Woven streaming (each thread's top-level nodes given as soon as they
 * are final, interrupts, switches and events placed in them) gives each
 * thread the tree the whole decode gives it, interlaced or not
 */
static void test_woven_same_trees(void **state)
{
	static char buf[1 << 18];
	int round, i, k;

	(void)state;
	for (round = 0; round < 80; round++) {
		size_t len = stack_stream(buf, sizeof(buf));
		struct woven_out a = { 0 }, b = { 0 };
		struct kfit_ctree_opts o = {
			.funcs = funcs, .nfuncs = NFUNCS, .events = events, .nevents = 2,
			.no_interlace = round % 2,
		};
		struct kfit_ctree *t;
		char name[32];

		snprintf(name, sizeof(name), "round %d", round);
		t = kfit_ctree_new(&o);
		assert_non_null(t);
		assert_int_equal(kfit_ctree_add_all(t, buf, len), 0);
		kfit_ctree_finish(t);
		for (i = 0; i < kfit_ctree_nthreads(t); i++) {
			const struct kfit_cthread *th = kfit_ctree_thread(t, i);
			const struct kfit_cnode *c;

			for (c = th->root.child; c; c = c->next)
				dump_tree(woven_file(&a, th), c);
		}
		kfit_ctree_free(t);
		o.on_root = woven_got;
		o.root_ctx = &b;
		o.woven = true;
		t = kfit_ctree_new(&o);
		assert_non_null(t);
		assert_int_equal(kfit_ctree_add_all(t, buf, len), 0);
		kfit_ctree_finish(t);
		t_int_eq(name, kfit_ctree_nodes(t), 0);
		/* the threads listed: those that showed something, in the same order */
		t_int_eq(name, kfit_ctree_nthreads(t), a.n);
		for (i = 0; i < kfit_ctree_nthreads(t) && i < a.n; i++) {
			const struct kfit_cthread *th = kfit_ctree_thread(t, i);

			t_int_eq(name, th->tid << 8 | th->ctx << 4 | th->cpu, a.key[i]);
		}
		kfit_ctree_free(t);
		t_int_eq(name, b.n, a.n);
		for (i = 0; i < a.n; i++) {
			fclose(a.f[i]);
			for (k = 0; k < b.n && b.key[k] != a.key[i]; k++)
				;
			t_true(name, k < b.n);
			fclose(b.f[k]);
			b.f[k] = NULL;
			if (strcmp(a.text[i], b.text[k]))
				fail_msg("%s: thread %x differs:\n--- whole\n%.2000s\n--- woven\n%.2000s",
					 name, a.key[i], a.text[i], b.text[k]);
		}
		for (i = 0; i < a.n; i++)
			free(a.text[i]);
		for (k = 0; k < b.n; k++) {
			if (b.f[k])
				fclose(b.f[k]);
			free(b.text[k]);
		}
	}
}

static int flame_got(void *ctx, const struct kfit_ctree *t, const struct kfit_cnode *n)
{
	return kfit_export_flame_add(ctx, kfit_ctree_emitting(t), n, (void *)t);
}

static const char *tree_name(void *ctx, const struct kfit_cnode *n)
{
	return kfit_ctree_name(ctx, n);
}

/*
 * A stream decoded, finished: whole, or woven with each top-level node
 * to got (not NULL). Two threads of one name (one frame of the graph).
 */
static struct kfit_ctree *decoded(const char *buf, size_t len, bool no_interlace,
				  kfit_ctree_root_fn got, void *ctx)
{
	struct kfit_ctree_opts o = {
		.funcs = funcs, .nfuncs = NFUNCS, .events = events, .nevents = 2,
		.no_interlace = no_interlace, .woven = got != NULL,
		.on_root = got, .root_ctx = ctx,
	};
	struct kfit_ctree *t = kfit_ctree_new(&o);
	int k;

	assert_non_null(t);
	for (k = 0; k < NTASKS; k++)
		assert_int_equal(kfit_ctree_task(t, PID, PID + k, k ? "worker" : "main"), 0);
	assert_int_equal(kfit_ctree_add_all(t, buf, len), 0);
	kfit_ctree_finish(t);
	return t;
}

/* A stream's folded stacks and SVG, from the whole tree or streamed woven */
static void flames_of(const char *buf, size_t len, bool stream, bool no_interlace,
		      char **folded, char **svg)
{
	struct kfit_export_src src = { .name = tree_name };
	struct kfit_export_flame *fl = NULL;
	struct kfit_ctree *t;
	size_t n1, n2;
	FILE *f1, *f2;

	if (stream) {
		fl = kfit_export_flame_new(&src);
		assert_non_null(fl);
	}
	t = decoded(buf, len, no_interlace, stream ? flame_got : NULL, fl);
	f1 = open_memstream(folded, &n1);
	f2 = open_memstream(svg, &n2);
	if (stream) {
		assert_int_equal(kfit_export_flame_end(fl, kfit_ctree_get_stats(t)), 0);
		assert_int_equal(kfit_export_flame_folded(fl, f1), 0);
		assert_int_equal(kfit_export_flame_svg(fl, NULL, f2), 0);
		kfit_export_flame_free(fl);
	} else {
		assert_int_equal(kfit_export_src_ctree(&src, t, false), 0);
		assert_int_equal(kfit_export_folded(&src, f1), 0);
		assert_int_equal(kfit_export_svg(&src, NULL, f2), 0);
		kfit_export_src_release(&src);
	}
	fclose(f1);
	fclose(f2);
	kfit_ctree_free(t);
}

/* A flame merged as the woven stream comes is the whole tree's, byte for byte */
static void test_woven_same_flame(void **state)
{
	static char buf[1 << 18];
	char *fa, *fb, *sa, *sb, name[32];
	int round;

	(void)state;
	for (round = 0; round < 40; round++) {
		size_t len = stack_stream(buf, sizeof(buf));

		snprintf(name, sizeof(name), "round %d", round);
		flames_of(buf, len, false, round % 2, &fa, &sa);
		flames_of(buf, len, true, round % 2, &fb, &sb);
		t_true(name, strlen(fa) > 100);
		t_str_eq(name, fb, fa);
		t_str_eq(name, sb, sa);
		free(fa);
		free(fb);
		free(sa);
		free(sb);
	}
}

static int trace_got(void *ctx, const struct kfit_ctree *t, const struct kfit_cnode *n)
{
	struct kfit_export_src src = { .name = tree_name, .ctx = (void *)t, .t0 = 900 };

	return kfit_export_trace_add(ctx, &src, kfit_ctree_emitting(t), n);
}

/* A stream's Perfetto JSON, from the whole tree or drawn as the woven stream comes */
static char *trace_json(const char *buf, size_t len, bool stream, bool no_interlace)
{
	struct kfit_export_src src = { .name = tree_name };
	struct kfit_export_trace *tr = NULL;
	struct kfit_ctree *t;
	char *json;
	size_t n;
	FILE *f;

	if (stream) {
		tr = kfit_export_trace_new();
		assert_non_null(tr);
	}
	t = decoded(buf, len, no_interlace, stream ? trace_got : NULL, tr);
	f = open_memstream(&json, &n);
	assert_int_equal(kfit_export_src_ctree(&src, t, false), 0);
	src.t0 = 900;
	if (stream)
		assert_int_equal(kfit_export_trace_write(tr, &src, f), 0);
	else
		assert_int_equal(kfit_export_perfetto(&src, f), 0);
	kfit_export_src_release(&src);
	kfit_export_trace_free(tr);
	fclose(f);
	kfit_ctree_free(t);
	return json;
}

/*
 * The Perfetto JSON drawn as the woven stream comes (each task's track
 * spooled, the interrupts merged into their tracks at the end) is the
 * whole tree's, byte for byte: tasks struck by interrupts and bare
 * hardirq calls on both CPUs, switches, events, interlaced or not
 */
static void test_woven_same_perfetto(void **state)
{
	static char buf[1 << 18];
	char *a, *b, name[32];
	int round;

	(void)state;
	for (round = 0; round < 40; round++) {
		size_t len = stack_stream(buf, sizeof(buf));

		snprintf(name, sizeof(name), "round %d", round);
		a = trace_json(buf, len, false, round % 2);
		b = trace_json(buf, len, true, round % 2);
		/* interrupts of both CPUs on their tracks; apart, bare hardirq calls too */
		t_true(name, strstr(a, "\"name\":\"softirq cpu 0\"") != NULL);
		t_true(name, strstr(a, "\"name\":\"softirq cpu 1\"") != NULL);
		t_true(name, !(round % 2) || strstr(a, "\"name\":\"hardirq cpu 1\""));
		t_str_eq(name, b, a);
		free(a);
		free(b);
	}
}

/* Collapsing bounds the nodes held: main with a million leaf callees */
static void test_collapse_bounded(void **state)
{
	struct kfit_fstats s;
	struct kfit_ctree_opts o = {
		.funcs = funcs, .nfuncs = NFUNCS, .on_root = summed, .root_ctx = &s,
		.collapse = true, .collapse_nodes = 1000,
	};
	struct kfit_rec_call c;
	struct kfit_ctree *t;
	__u64 peak = 0;
	int i;

	(void)state;
	assert_int_equal(kfit_fstats_init(&s, NFUNCS), 0);
	t = kfit_ctree_new(&o);
	assert_non_null(t);
	for (i = 0; i < 1000000; i++) {
		c = mk_call(KFIT_CTX_TASK, 0, PID, 100 + 10 * (__u64)i, 5, 1 + i % 2, 1);
		assert_int_equal(kfit_ctree_add(t, &c, sizeof(c)), 0);
		if (kfit_ctree_nodes(t) > peak)
			peak = kfit_ctree_nodes(t);
	}
	c = mk_call(KFIT_CTX_TASK, 0, PID, 50, 10 * 1000000ULL + 100, 0, 0);
	assert_int_equal(kfit_ctree_add(t, &c, sizeof(c)), 0);
	kfit_ctree_finish(t);
	kfit_fstats_end_trees(&s);
	t_true("peak nodes", peak <= 2000);
	assert_int_equal(s.f[0].h.count, 1);
	assert_int_equal(s.f[1].h.count, 500000);
	assert_int_equal(s.f[2].h.count, 500000);
	/* main's local: its time less its callees' 5 ns each */
	assert_int_equal(s.f[0].local_ns, 10 * 1000000ULL + 100 - 5 * 1000000ULL);
	assert_int_equal(s.f[0].max_sub, 1);
	assert_int_equal(s.f[0].max_sub_ns, 5 * 500000ULL);
	assert_int_equal(kfit_ctree_nodes(t), 0);
	kfit_ctree_free(t);
	kfit_fstats_free(&s);
}

/* Every node given is whole: its links hold, its names resolve */
static int noise_got(void *ctx, const struct kfit_ctree *t, const struct kfit_cnode *n)
{
	const struct kfit_cnode *c;
	int *count = ctx;

	(*count)++;
	assert_non_null(kfit_ctree_name(t, n));
	for (c = kfit_cnode_next(n, NULL); c; c = kfit_cnode_next(n, c)) {
		assert_non_null(c->parent);
		assert_non_null(kfit_ctree_name(t, c));
	}
	return 0;
}

/*
 * Random records and bit flips through the streaming decoder, woven
 * (interrupts held, bare interrupt calls promoted) and collapsed (runs
 * summed): every node given whole, none left held at the end
 */
static void test_random_streaming(void **state)
{
	static char buf[1 << 16];
	int round, i;

	(void)state;
	for (round = 0; round < 300; round++) {
		int count = 0;
		struct kfit_ctree_opts o = {
			.funcs = funcs, .nfuncs = NFUNCS, .events = events, .nevents = 2,
			.no_interlace = round % 2, .sym = rnd_sym, .on_root = noise_got,
			.root_ctx = &count, .woven = round % 4 < 2, .collapse = round % 4 >= 2,
			.collapse_nodes = 1 + round % 50,
		};
		struct kfit_ctree *t = kfit_ctree_new(&o);
		size_t len = 0, n;

		assert_non_null(t);
		/* odd rounds: no sample, so that no sampled tree keeps nodes */
		while ((n = random_record(buf + len, sizeof(buf) - len)))
			if (!(round % 2) || ((struct kfit_rec *)(buf + len))->type != KFIT_REC_SAMPLE)
				len += n;
		for (i = 0; i < round % 50; i++)
			buf[rnd() % len] ^= 1 << (rnd() % 8);
		assert_int_equal(kfit_ctree_add_all(t, buf, len), 0);
		kfit_ctree_finish(t);
		t_true("some node given", count > 0 || !kfit_ctree_get_stats(t)->calls);
		/* sampled records make a tree of their own: those nodes stay */
		if (!kfit_ctree_get_stats(t)->samples)
			t_int_eq("nodes left", kfit_ctree_nodes(t), 0);
		kfit_ctree_free(t);
	}
}

/* Pure noise, record by record and as a buffer */
static void test_random_bytes(void **state)
{
	static __u64 buf[4096];
	int round, i;

	(void)state;
	for (round = 0; round < 200; round++) {
		struct kfit_ctree *t = new_tree(round % 2);
		size_t len = 8 * (1 + rnd() % 4096);

		for (i = 0; i < 4096; i++)
			buf[i] = rnd();
		/* sizes that hold: the noise then reaches the fields */
		for (i = 0; i < 4096; i += 16)
			((struct kfit_rec *)&buf[i])->size = 8 * (rnd() % 20);
		kfit_ctree_add_all(t, buf, len);
		for (i = 0; i + 24 <= 4096; i += 16)
			kfit_ctree_add(t, &buf[i], 8 * (rnd() % 24));
		kfit_ctree_finish(t);
		check_all_links(t, 1 << 20);
		kfit_ctree_free(t);
	}
}

/* ---- scale ------------------------------------------------------------ */

/*
 * A million records: 100,000 calls of A, each with three B (each with one
 * C) in it, then 75,000 interrupts and 75,000 switches woven into one
 * long call whose 75,000 children they fall between. Quadratic placing
 * would take hours here.
 */
static void test_large_stream(void **state)
{
	struct kfit_ctree *t = new_tree(false);
	const struct kfit_cthread *th;
	const struct kfit_cnode *n, *long_call;
	__u64 ts, i, k, count = 0;
	enum { ROOTS = 100000, MANY = 75000 };

	(void)state;
	for (i = 0; i < ROOTS; i++) {
		ts = i * 1000;
		for (k = 0; k < 3; k++) {
			call(t, PID, ts + 100 + 200 * k + 10, 50, C, 2);
			call(t, PID, ts + 100 + 200 * k, 100, B, 1);
		}
		call(t, PID, ts, 900, A, 0);
	}
	ts = ROOTS * 1000;
	for (i = 0; i < MANY; i++) {
		call(t, PID, ts + 100 * i + 10, 20, B, 1);
		icall(t, KFIT_CTX_SOFTIRQ, 0, PID, ts + 100 * i + 41, 5, N, 0);
		irq(t, KFIT_CTX_SOFTIRQ, 0, PID, ts + 100 * i + 40, 10, 3, 1);
		sw(t, PID, ts + 100 * i + 60, 10, 1);
	}
	call(t, PID, ts, 100 * MANY, D, 0);
	kfit_ctree_finish(t);
	assert_int_equal(kfit_ctree_get_stats(t)->records, ROOTS * 7 + MANY * 4 + 1);
	assert_int_equal(kfit_ctree_nthreads(t), 1);
	th = kfit_ctree_thread(t, 0);
	for (n = th->root.child; n; n = n->next)
		count++;
	assert_int_equal(count, ROOTS + 1);
	long_call = th->root.last;
	for (count = 0, n = long_call->child; n; n = n->next, count++)
		assert_int_equal(n->kind, count % 3 == 0 ? KFIT_CN_CALL :
				 count % 3 == 1 ? KFIT_CN_IRQ : KFIT_CN_SWITCH);
	assert_int_equal(count, 3 * MANY);
	assert_int_equal(check_links(th, 10 * ROOTS + 10 * MANY),
			 ROOTS * 7 + MANY * 4 + 1);
	kfit_ctree_free(t);
}

/* ---- sampled mode ----------------------------------------------------- */

#define KBASE 0xffffffff81000000ULL
#define UBASE 0x400000ULL

static const char *test_sym(void *ctx, __u32 pid, __u64 addr, bool kernel)
{
	static char buf[32];

	(*(int *)ctx)++;
	assert_int_equal(pid, 500);
	if (addr == 0xdead)
		return NULL;
	assert_int_equal(kernel, addr >= KBASE);
	/* a reused buffer: the tree must copy */
	snprintf(buf, sizeof(buf), "%c%llu", kernel ? 'k' : 'u',
		 (unsigned long long)(addr - (kernel ? KBASE : UBASE)));
	return buf;
}

static void sample(struct kfit_ctree *t, __u32 pid, const __u64 *k, int nk,
		   const __u64 *u, int nu)
{
	struct kfit_rec_sample s = { 0 };
	size_t size = offsetof(struct kfit_rec_sample, ip) + 8 * (nk + nu);

	s.h = hdr(KFIT_REC_SAMPLE, size, KFIT_CTX_TASK, 1, pid, pid + 1, 1000);
	s.nkernel = nk;
	s.nuser = nu;
	if (nk)
		memcpy(s.ip, k, 8 * nk);
	if (nu)
		memcpy(s.ip + nk, u, 8 * nu);
	assert_int_equal(kfit_ctree_add(t, &s, size), 0);
}

static void test_sampled(void **state)
{
	/* leaf first: user u2 <- u1 <- u0 (main); kernel k1 <- k0 */
	const __u64 k[] = { KBASE + 1, KBASE };
	const __u64 u[] = { UBASE + 2, UBASE + 1, UBASE };
	const __u64 odd[] = { 0xdead, UBASE };
	int calls = 0, i;
	struct kfit_ctree_opts o = { .sym = test_sym, .sym_ctx = &calls };
	struct kfit_ctree *t = kfit_ctree_new(&o);
	const struct kfit_cthread *th;

	(void)state;
	assert_int_equal(kfit_ctree_task(t, 500, 500, "busy"), 0);
	for (i = 0; i < 3; i++)
		sample(t, 500, k, 2, u, 3);
	sample(t, 500, NULL, 0, u + 1, 2);
	sample(t, 500, NULL, 0, odd, 2);
	sample(t, 500, NULL, 0, NULL, 0);
	kfit_ctree_finish(t);
	check_shapes(t, SHAPES("u0:5/0(u1:4/1(u2:3/0(k0:3/0(k1:3/3))) 0xdead:1/1)"));
	th = kfit_ctree_thread(t, 0);
	assert_int_equal(th->samples, 6);
	assert_int_equal(th->root.samples, 6);
	assert_int_equal(th->root.self, 1);
	assert_int_equal(th->pid, 500);
	assert_string_equal(th->comm, "busy");
	assert_int_equal(find(t, 0, "k1")->id, 1);	/* kernel frame */
	assert_int_equal(find(t, 0, "u2")->id, 0);
	assert_int_equal(find(t, 0, "k1")->depth, 4);
	assert_int_equal(kfit_ctree_get_stats(t)->samples, 6);
	assert_int_equal(calls, 3 * 5 + 2 + 2);
	kfit_ctree_free(t);
}

/* Without a symbol function: hex; processes apart, sorted */
static void test_sampled_hex(void **state)
{
	const __u64 u[] = { 0x1234, 0x10 };
	struct kfit_ctree *t = kfit_ctree_new(NULL);

	(void)state;
	sample(t, 600, u, 1, u + 1, 1);
	sample(t, 500, NULL, 0, u + 1, 1);
	sample(t, 500, NULL, 0, u, 1);
	sample(t, 500, NULL, 0, u, 1);
	kfit_ctree_finish(t);
	check_shapes(t, SHAPES("0x1234:2/2 0x10:1/1", "0x10:1/0(0x1234:1/1)"));
	assert_string_equal(kfit_ctree_thread(t, 1)->comm, "");
	kfit_ctree_free(t);
}

static const char *long_sym(void *ctx, __u32 pid, __u64 addr, bool kernel)
{
	static char buf[5000];

	(void)ctx;
	(void)pid;
	(void)kernel;
	memset(buf, 'a' + addr, sizeof(buf) - 1);
	buf[addr == 1 ? 300 : sizeof(buf) - 1] = '\0';
	return buf;
}

/* Long names (C++ symbols) merge too; past 4095 bytes they are cut */
static void test_sampled_long_names(void **state)
{
	const __u64 u[] = { 1, 2 };
	struct kfit_ctree_opts o = { .sym = long_sym };
	struct kfit_ctree *t = kfit_ctree_new(&o);
	const struct kfit_cnode *n;

	(void)state;
	sample(t, 500, NULL, 0, u, 2);
	sample(t, 500, NULL, 0, u, 2);
	kfit_ctree_finish(t);
	n = kfit_ctree_thread(t, 0)->root.child;
	assert_int_equal(strlen(n->name), 4095);
	assert_int_equal(n->samples, 2);
	assert_null(n->next);
	assert_int_equal(strlen(n->child->name), 300);
	assert_int_equal(n->child->self, 2);
	assert_null(n->child->next);
	kfit_ctree_free(t);
}

/* u1: a function with two inlined into it (frames.h's joined name) */
static const char *inline_sym(void *ctx, __u32 pid, __u64 addr, bool kernel)
{
	(void)ctx;
	(void)pid;
	(void)kernel;
	return addr == UBASE + 1 ? "u1\x1e" "mid (inlined)\x1e" "leaf (inlined)" : "u0";
}

/* Inlined frames under their function; a stack cut short under why; counted */
static void test_sampled_inlined_and_cut(void **state)
{
	const __u64 u[] = { UBASE + 1, UBASE };
	struct kfit_ctree_opts o = { .sym = inline_sym };
	struct kfit_ctree *t = kfit_ctree_new(&o);
	struct kfit_rec_sample s = { 0 };
	size_t size = offsetof(struct kfit_rec_sample, ip) + 8;

	(void)state;
	sample(t, 500, NULL, 0, u, 2);
	s.h = hdr(KFIT_REC_SAMPLE, size, KFIT_CTX_TASK, 1, 500, 501, 1000);
	s.nuser = 1;
	s.ip[0] = UBASE + 1;
	s.ustop = 1 + KFIT_USTOP_COPY;
	assert_int_equal(kfit_ctree_add(t, &s, size), 0);
	/* whole, and a kernel thread's (no user stack: no frame for it) */
	s.ustop = 1 + KFIT_USTOP_END;
	s.ip[0] = UBASE;
	assert_int_equal(kfit_ctree_add(t, &s, size), 0);
	s.ustop = 1 + KFIT_USTOP_NOREGS;
	s.nuser = 0;
	s.h.size = offsetof(struct kfit_rec_sample, ip);
	assert_int_equal(kfit_ctree_add(t, &s, s.h.size), 0);
	kfit_ctree_finish(t);
	check_shapes(t, SHAPES("u0:2/1(u1:1/0(mid (inlined):1/0(leaf (inlined):1/1))) "
			       "[cut: stack copy too small]:1/0(u1:1/0(mid (inlined):1/0("
			       "leaf (inlined):1/1)))"));
	assert_int_equal(kfit_ctree_get_stats(t)->ustops[KFIT_USTOP_COPY], 1);
	assert_int_equal(kfit_ctree_get_stats(t)->ustops[KFIT_USTOP_END], 1);
	assert_int_equal(kfit_ctree_get_stats(t)->ustops[KFIT_USTOP_NOREGS], 1);
	kfit_ctree_free(t);
}

/* ---- names and walks -------------------------------------------------- */

static void test_names_walk(void **state)
{
	static const struct crec calls[] = {
		{ PID, 2, 1, C, 2 }, { PID, 1, 3, B, 1 },
		{ PID, 0, 10, A, 0 }, { PID, 20, 1, D, 0 },
	};
	static const struct {
		int ctx;
		const char *name;
	} ctxs[] = {
		{ KFIT_CTX_TASK, "task" }, { KFIT_CTX_SOFTIRQ, "softirq" },
		{ KFIT_CTX_HARDIRQ, "hardirq" }, { KFIT_CTX_NMI, "nmi" }, { 9, "?" },
	};
	struct kfit_ctree *t = tree_of(calls, T_N(calls));
	const struct kfit_cthread *th;
	const struct kfit_cnode *n;
	const char *want[] = { "A", "B", "C", "D" };
	size_t i = 0;

	(void)state;
	th = kfit_ctree_thread(t, 0);
	for (n = kfit_cnode_next(&th->root, NULL); n; n = kfit_cnode_next(&th->root, n))
		assert_string_equal(kfit_ctree_name(t, n), want[i++]);
	assert_int_equal(i, 4);
	assert_ptr_equal(kfit_cnode_next(&th->root, &th->root), th->root.child);
	/* a walk of a subtree stays in it */
	n = th->root.child;
	assert_ptr_equal(kfit_cnode_next(n, n->child->child), NULL);
	for (i = 0; i < T_N(ctxs); i++)
		t_str_eq(ctxs[i].name, kfit_ctree_ctx_name(ctxs[i].ctx), ctxs[i].name);
	kfit_ctree_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_recursion),
		cmocka_unit_test(test_siblings_threads),
		cmocka_unit_test(test_lost_middle),
		cmocka_unit_test(test_depth_gap),
		cmocka_unit_test(test_orphan_roots),
		cmocka_unit_test(test_incomplete),
		cmocka_unit_test(test_dropped),
		cmocka_unit_test(test_interrupts_interlaced),
		cmocka_unit_test(test_interrupts_apart),
		cmocka_unit_test(test_interrupt_nesting),
		cmocka_unit_test(test_switches_events),
		cmocka_unit_test(test_fork_exec_names),
		cmocka_unit_test(test_fork_any_order),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_add_all),
		cmocka_unit_test(test_no_tables),
		cmocka_unit_test(test_random_records),
		cmocka_unit_test(test_streaming_same_summary),
		cmocka_unit_test(test_collapse_same_summary),
		cmocka_unit_test(test_collapse_bounded),
		cmocka_unit_test(test_woven_same_trees),
		cmocka_unit_test(test_woven_same_flame),
		cmocka_unit_test(test_woven_same_perfetto),
		cmocka_unit_test(test_random_bytes),
		cmocka_unit_test(test_random_streaming),
		cmocka_unit_test(test_large_stream),
		cmocka_unit_test(test_sampled),
		cmocka_unit_test(test_sampled_hex),
		cmocka_unit_test(test_sampled_long_names),
		cmocka_unit_test(test_sampled_inlined_and_cut),
		cmocka_unit_test(test_names_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
