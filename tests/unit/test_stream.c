// SPDX-License-Identifier: GPL-2.0
/*
 * A record stream into the decoder (src/lib/tree/stream.c): names tracked
 * from every record, the window and the tasks chosen decoded, losses
 * always.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "calltree.h"
#include "cgview.h"
#include "fstats.h"
#include "stream.h"
#include "tasks.h"
#include "testlib.h"

static const char *funcs[] = { "f" };

static struct kfit_ctree *new_tree(void)
{
	struct kfit_ctree *t = kfit_ctree_new(&(struct kfit_ctree_opts){
		.funcs = funcs, .nfuncs = 1,
	});

	assert_non_null(t);
	return t;
}

static struct kfit_rec_call call(__u32 pid, __u32 tid, __u64 ts)
{
	return (struct kfit_rec_call){
		.h = {
			.type = KFIT_REC_CALL, .ctx = KFIT_CTX_TASK, .size = sizeof(struct kfit_rec_call),
			.pid = pid, .tid = tid, .ts = ts,
		},
		.dur = 5, .depth = 1,
	};
}

static void test_chosen(void **state)
{
	static const struct {
		const char *name;
		struct kfit_stream s;	/* tree and tasks set below */
		__u32 pid, tid;
		__u64 ts;
		int want;
	} cases[] = {
		{ "no choice", { 0 }, 10, 11, 100, 1 },
		{ "before the window", { .since = 200 }, 10, 11, 100, 0 },
		{ "at its start", { .since = 100 }, 10, 11, 100, 1 },
		{ "at its end: out", { .until = 100 }, 10, 11, 100, 0 },
		{ "another process", { .pid = 20 }, 10, 11, 100, 0 },
		{ "its process", { .pid = 10 }, 10, 11, 100, 1 },
		{ "another thread", { .tid = 12 }, 10, 11, 100, 0 },
		{ "its name", { .comm = "worker" }, 10, 11, 100, 1 },
		{ "another name", { .comm = "other" }, 10, 11, 100, 0 },
		{ "no name asked", { .comm = "" }, 10, 11, 100, 1 },
	};
	struct kfit_rec_call r;
	struct kfit_stream s;
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		s = cases[i].s;
		s.tasks = kfit_tasks_new(false);
		s.tree = new_tree();
		assert_non_null(s.tasks);
		assert_int_equal(kfit_tasks_set(s.tasks, 10, 11, "worker"), 0);
		r = call(cases[i].pid, cases[i].tid, cases[i].ts);
		t_int_eq(cases[i].name, kfit_stream_add(&s, &r, sizeof(r)), cases[i].want);
		kfit_ctree_finish(s.tree);
		t_int_eq(cases[i].name, kfit_ctree_get_stats(s.tree)->calls, cases[i].want);
		kfit_ctree_free(s.tree);
		kfit_tasks_free(s.tasks);
	}
}

/* Outside the window a task's exec still renames it; a loss is always decoded */
static void test_names_and_losses(void **state)
{
	struct kfit_stream s = { .since = 1000, .comm = "newprog" };
	struct kfit_rec_task ex = {
		.h = {
			.type = KFIT_REC_EXEC, .ctx = KFIT_CTX_TASK, .size = sizeof(ex),
			.pid = 30, .tid = 30, .ts = 500,
		},
		.comm = "newprog",
	};
	struct kfit_rec_lost lost = {
		.h = { .type = KFIT_REC_LOST, .size = sizeof(lost), .ts = 10 },
		.count = 3,
	};
	struct kfit_rec_call r = call(30, 30, 1500);

	(void)state;
	s.tasks = kfit_tasks_new(false);
	s.tree = new_tree();
	assert_int_equal(kfit_stream_add(&s, &ex, sizeof(ex)), 0);
	assert_string_equal(kfit_tasks_comm(s.tasks, 30), "newprog");
	assert_int_equal(kfit_stream_add(&s, &r, sizeof(r)), 1);
	assert_int_equal(kfit_stream_add(&s, &lost, sizeof(lost)), 1);
	kfit_ctree_finish(s.tree);
	assert_int_equal(kfit_ctree_get_stats(s.tree)->lost, 3);
	assert_string_equal(kfit_ctree_thread(s.tree, 0)->comm, "newprog");
	kfit_ctree_free(s.tree);
	kfit_tasks_free(s.tasks);
}

/* ---- a chunk at once (kfit_stream_add_buf) ------------------------------ */

#define GEN_MAX		4096
#define GEN_TASKS	3
#define GEN_FUNCS	4

static const char *gfuncs[GEN_FUNCS] = { "a", "b", "c", "d" };

union grec {
	struct kfit_rec h;
	struct kfit_rec_call call;
	struct kfit_rec_irq irq;
	struct kfit_rec_task task;
	struct kfit_rec_lost lost;
};

struct gen {
	union grec *v;
	size_t n;
	__u64 now;
	__u64 open[GEN_TASKS][8];	/* each task's open calls' entries */
	__u32 fn[GEN_TASKS][8];
	int depth[GEN_TASKS];
};

static void gen_put(struct gen *g, const union grec *r)
{
	if (g->n < GEN_MAX)
		g->v[g->n++] = *r;
}

static struct kfit_rec head(int type, int ctx, __u32 pid, __u64 ts, size_t size)
{
	return (struct kfit_rec){ .type = type, .ctx = ctx, .size = size, .cpu = pid % 2,
				  .pid = pid, .tid = pid, .ts = ts };
}

/* Task k's innermost open call returns: its record (or a loss of it) */
static void gen_return(struct gen *g, int k, unsigned int r)
{
	__u32 pid = 10 + k;
	int d = --g->depth[k];
	union grec c = { .call = {
		.h = head(KFIT_REC_CALL, KFIT_CTX_TASK, pid, g->open[k][d], sizeof(c.call)),
		.dur = g->now - g->open[k][d], .id = g->fn[k][d], .depth = d,
	} };

	if (r % 97 == 0) {
		c.lost = (struct kfit_rec_lost){
			.h = head(KFIT_REC_LOST, KFIT_CTX_TASK, 0, g->now, sizeof(c.lost)),
			.count = 1 };
	} else if (r % 89 == 0) {
		c.call.h.flags = KFIT_RF_INCOMPLETE;
	}
	gen_put(g, &c);
}

/* An interrupt on task k's CPU, with a call in it */
static void gen_irq(struct gen *g, int k)
{
	union grec c = { .call = {
		.h = head(KFIT_REC_CALL, KFIT_CTX_SOFTIRQ, 10 + k, g->now + 1, sizeof(c.call)),
		.dur = 2, .id = 3,
	} };
	union grec i = { .irq = {
		.h = head(KFIT_REC_IRQ, KFIT_CTX_SOFTIRQ, 10 + k, g->now, sizeof(i.irq)),
		.dur = 4, .ncalls = 1,
	} };

	gen_put(g, &c);
	gen_put(g, &i);
	g->now += 5;
}

/* Tasks' calls, nested and flat, runs of one task, interrupts, losses, execs */
static void gen_run(struct gen *g, unsigned int seed)
{
	unsigned int r;
	int k = 0;

	srandom(seed);
	while (g->n < GEN_MAX - 8) {
		r = random();
		g->now += 1 + r % 7;
		if (r % 5 == 0)
			k = (r >> 8) % GEN_TASKS;
		if (r % 211 == 0) {
			union grec e = { .task = {
				.h = head(KFIT_REC_EXEC, KFIT_CTX_TASK, 10 + k, g->now, sizeof(e.task)),
			} };

			strcpy(e.task.comm, r % 2 ? "one" : "two");
			gen_put(g, &e);
		} else if (r % 53 == 0) {
			gen_irq(g, k);
		} else if (g->depth[k] && (r >> 4) % 3 == 0) {
			gen_return(g, k, r);
		} else if (g->depth[k] < 8 && (r >> 4) % 3 == 1 && (r >> 12) % 4 == 0) {
			g->open[k][g->depth[k]] = g->now;
			g->fn[k][g->depth[k]++] = (r >> 16) % GEN_FUNCS;
		} else if (!g->depth[k] || (r >> 4) % 3 == 2) {
			/* a call with no callee, at whatever depth the task is */
			g->open[k][g->depth[k]] = g->now;
			g->fn[k][g->depth[k]++] = (r >> 16) % GEN_FUNCS;
			g->now += 1 + (r >> 20) % 300;
			gen_return(g, k, r >> 3);
		}
	}
}

struct summed {
	struct kfit_ctree *t;
	struct kfit_fstats st;
	struct kfit_cgview_counts c;
};

static int sum_root(void *ctx, const struct kfit_ctree *t, const struct kfit_cnode *root)
{
	(void)t;
	return kfit_fstats_add_tree(ctx, root);
}

/* The summary of g's records through s (window, tasks): each record, or the whole buffer */
static void summed_of(struct summed *m, const struct gen *g, const struct kfit_stream *how,
		      bool buf)
{
	char *packed = aligned_alloc(8, GEN_MAX * sizeof(*g->v));
	struct kfit_stream s = *how;
	const struct kfit_rec *h;
	size_t i, len, off;
	int r;

	assert_non_null(packed);
	memset(m, 0, sizeof(*m));
	assert_int_equal(kfit_fstats_init(&m->st, GEN_FUNCS), 0);
	m->t = kfit_ctree_new(&(struct kfit_ctree_opts){
		.funcs = gfuncs, .nfuncs = GEN_FUNCS, .on_root = sum_root, .root_ctx = &m->st,
		.collapse = true, .collapse_nodes = 64,
		.on_leaf = buf ? kfit_fstats_add_leaf : NULL, .leaf_ctx = &m->st,
	});
	s.tasks = kfit_tasks_new(false);
	assert_non_null(m->t);
	assert_non_null(s.tasks);
	s.tree = m->t;
	/* back to back, as a chunk holds them */
	for (i = 0, len = 0; i < g->n; len += g->v[i++].h.size)
		memcpy(packed + len, &g->v[i], g->v[i].h.size);
	if (buf) {
		assert_int_equal(kfit_stream_add_buf(&s, packed, len, &m->c), 0);
	} else {
		for (off = 0; off < len; off += h->size) {
			h = (const void *)(packed + off);
			r = kfit_stream_add(&s, h, h->size);
			assert_true(r >= 0);
			if (!r)
				continue;
			m->c.records++;
			m->c.bytes += h->size;
			m->c.types[h->type]++;
		}
	}
	free(packed);
	kfit_ctree_finish(m->t);
	kfit_fstats_end_trees(&m->st);
	kfit_tasks_free(s.tasks);
}

/*
 * A chunk at once, its runs of calls summed from their records with no
 * node made, sums as each record through the tree does: every figure of
 * every function, the decoder's counts and the records taken, whatever
 * the window and the tasks chosen
 */
static void test_buf_same(void **state)
{
	static const struct kfit_stream hows[] = {
		{ 0 }, { .since = 3000 }, { .since = 2000, .until = 9000 }, { .pid = 11 },
		{ .tid = 12, .since = 500 }, { .comm = "one" },
	};
	struct summed a, b;
	struct gen g = { 0 };
	unsigned int seed;
	size_t k;
	int i;

	(void)state;
	g.v = calloc(GEN_MAX, sizeof(*g.v));
	assert_non_null(g.v);
	for (seed = 1; seed <= 40; seed++) {
		memset(g.v, 0, GEN_MAX * sizeof(*g.v));
		g.n = 0;
		g.now = 100;
		memset(g.depth, 0, sizeof(g.depth));
		gen_run(&g, seed);
		for (k = 0; k < T_N(hows); k++) {
			summed_of(&a, &g, &hows[k], false);
			summed_of(&b, &g, &hows[k], true);
			t_true("some calls", seed > 1 || k || a.st.f[0].h.count > 100);
			assert_memory_equal(kfit_ctree_get_stats(a.t), kfit_ctree_get_stats(b.t),
					    sizeof(struct kfit_ctree_stats));
			assert_memory_equal(&a.c, &b.c, sizeof(a.c));
			assert_int_equal(a.st.incomplete, b.st.incomplete);
			for (i = 0; i < GEN_FUNCS; i++) {
				assert_memory_equal(&a.st.f[i].h, &b.st.f[i].h, sizeof(a.st.f[i].h));
				assert_int_equal(a.st.f[i].local_ns, b.st.f[i].local_ns);
				assert_int_equal(a.st.f[i].max_sub, b.st.f[i].max_sub);
				assert_int_equal(a.st.f[i].max_sub_ns, b.st.f[i].max_sub_ns);
			}
			kfit_ctree_free(a.t);
			kfit_ctree_free(b.t);
			kfit_fstats_free(&a.st);
			kfit_fstats_free(&b.st);
		}
	}
	free(g.v);
}

/* A record whose size runs past the buffer stops it: -EBADMSG, not a read past */
static void test_buf_cut(void **state)
{
	struct kfit_rec_call v[2] = { call(1, 1, 10), call(1, 1, 20) };
	struct kfit_stream s = { 0 };

	(void)state;
	s.tasks = kfit_tasks_new(false);
	s.tree = new_tree();
	v[1].h.size = 2 * sizeof(v[1]);
	assert_int_equal(kfit_stream_add_buf(&s, v, sizeof(v), NULL), -EBADMSG);
	kfit_ctree_finish(s.tree);
	assert_int_equal(kfit_ctree_get_stats(s.tree)->calls, 1);
	kfit_ctree_free(s.tree);
	kfit_tasks_free(s.tasks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chosen),
		cmocka_unit_test(test_names_and_losses),
		cmocka_unit_test(test_buf_same),
		cmocka_unit_test(test_buf_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
