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

#define GEN_MAX		T_RECGEN_MAX
#define GEN_FUNCS	T_RECGEN_FUNCS

static const char *gfuncs[GEN_FUNCS] = { "a", "b", "c", "d" };

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

/* The summary of the records of buf through s (window, tasks): each record, or the whole buffer */
static void summed_of(struct summed *m, const char *buf, size_t len,
		      const struct kfit_stream *how, bool whole)
{
	struct kfit_stream s = *how;
	const struct kfit_rec *h;
	size_t off;
	int r;

	memset(m, 0, sizeof(*m));
	assert_int_equal(kfit_fstats_init(&m->st, GEN_FUNCS), 0);
	m->t = kfit_ctree_new(&(struct kfit_ctree_opts){
		.funcs = gfuncs, .nfuncs = GEN_FUNCS, .on_root = sum_root, .root_ctx = &m->st,
		.collapse = true, .collapse_nodes = 64,
		.on_leaf = whole ? kfit_fstats_add_leaf : NULL, .leaf_ctx = &m->st,
	});
	s.tasks = kfit_tasks_new(false);
	assert_non_null(m->t);
	assert_non_null(s.tasks);
	s.tree = m->t;
	if (whole) {
		assert_int_equal(kfit_stream_add_buf(&s, buf, len, &m->c), 0);
	} else {
		for (off = 0; off < len; off += h->size) {
			h = (const void *)(buf + off);
			r = kfit_stream_add(&s, h, h->size);
			assert_true(r >= 0);
			if (!r)
				continue;
			m->c.records++;
			m->c.bytes += h->size;
			m->c.types[h->type]++;
		}
	}
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
	char *buf = aligned_alloc(8, T_RECGEN_BYTES);
	struct summed a, b;
	unsigned int seed;
	size_t k, len;
	int i;

	(void)state;
	assert_non_null(buf);
	for (seed = 1; seed <= 40; seed++) {
		len = t_recgen(seed, buf);
		for (k = 0; k < T_N(hows); k++) {
			summed_of(&a, buf, len, &hows[k], false);
			summed_of(&b, buf, len, &hows[k], true);
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
	free(buf);
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
