// SPDX-License-Identifier: GPL-2.0
/*
 * A record stream into the decoder (src/lib/tree/stream.c): names tracked
 * from every record, the window and the tasks chosen decoded, losses
 * always.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "calltree.h"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chosen),
		cmocka_unit_test(test_names_and_losses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
