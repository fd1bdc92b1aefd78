// SPDX-License-Identifier: GPL-2.0
/*
 * The tasks of a record stream (src/lib/tree/tasks.c): names that follow
 * fork, exec and exit in reading order, and each task named once in the
 * decoder before its first record.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "calltree.h"
#include "tasks.h"
#include "testlib.h"

/* One record of a case: a task record, or a call (type KFIT_REC_CALL) */
struct rec {
	__u8 type;
	__u32 pid, tid;
	__u64 ts;
	__u32 cpid, ctid;
	const char *comm;
};

static struct kfit_rec_task task_rec(const struct rec *c)
{
	struct kfit_rec_task r = {
		.h = {
			.type = c->type, .ctx = KFIT_CTX_TASK, .size = sizeof(r),
			.pid = c->pid, .tid = c->tid, .ts = c->ts,
		},
		.child_pid = c->cpid, .child_tid = c->ctid,
	};

	/* not NUL-terminated when it fills the field, as the BPF side writes it */
	if (c->comm)
		memcpy(r.comm, c->comm, strnlen(c->comm, sizeof(r.comm)));
	return r;
}

static const struct {
	const char *name;
	struct rec recs[4];
	int nrecs;
	__u32 tid;
	const char *want;
} track_cases[] = {
	{ "a fork names the child as its parent", {
		{ KFIT_REC_FORK, 10, 10, 100, 10, 11, "sh" } }, 1, 11, "sh" },
	{ "and the parent, unknown until then", {
		{ KFIT_REC_FORK, 10, 10, 100, 10, 11, "sh" } }, 1, 10, "sh" },
	{ "an exec renames", {
		{ KFIT_REC_FORK, 10, 10, 100, 20, 20, "sh" },
		{ KFIT_REC_EXEC, 20, 20, 110, 0, 0, "ls" } }, 2, 20, "ls" },
	{ "a later exec read first (another ring) stands", {
		{ KFIT_REC_EXEC, 20, 20, 110, 0, 0, "ls" },
		{ KFIT_REC_FORK, 10, 10, 100, 20, 20, "sh" } }, 2, 20, "ls" },
	{ "an earlier exec read first does not", {
		{ KFIT_REC_EXEC, 20, 20, 90, 0, 0, "old" },
		{ KFIT_REC_FORK, 10, 10, 100, 20, 20, "sh" } }, 2, 20, "sh" },
	{ "an exit names a task not known", {
		{ KFIT_REC_EXIT, 30, 31, 100, 0, 0, "worker" } }, 1, 31, "worker" },
	{ "an exit renames none", {
		{ KFIT_REC_EXEC, 30, 30, 100, 0, 0, "new" },
		{ KFIT_REC_EXIT, 30, 30, 120, 0, 0, "other" } }, 2, 30, "new" },
	{ "sixteen characters cut to fifteen", {
		{ KFIT_REC_EXEC, 40, 40, 100, 0, 0, "a-sixteen-char-name" } }, 1, 40,
		"a-sixteen-char-" },
	{ "never seen", {
		{ KFIT_REC_EXEC, 40, 40, 100, 0, 0, "x" } }, 1, 41, "<...>" },
};

static void test_track(void **state)
{
	struct kfit_rec_task r;
	struct kfit_tasks *ts;
	unsigned int i;
	int j;

	(void)state;
	for (i = 0; i < T_N(track_cases); i++) {
		ts = kfit_tasks_new(false);
		assert_non_null(ts);
		for (j = 0; j < track_cases[i].nrecs; j++) {
			r = task_rec(&track_cases[i].recs[j]);
			t_int_eq(track_cases[i].name,
				 kfit_tasks_track(ts, &r.h, sizeof(r)), 0);
		}
		t_str_eq(track_cases[i].name, kfit_tasks_comm(ts, track_cases[i].tid),
			 track_cases[i].want);
		kfit_tasks_free(ts);
	}
}

/* Short records, interrupts' and other records: no name follows */
static void test_track_ignores(void **state)
{
	struct rec c = { KFIT_REC_EXEC, 50, 50, 100, 0, 0, "x" };
	struct kfit_rec_task r = task_rec(&c);
	struct kfit_tasks *ts = kfit_tasks_new(false);

	(void)state;
	assert_int_equal(kfit_tasks_track(ts, &r.h, sizeof(r) - 1), 0);
	r.h.ctx = KFIT_CTX_SOFTIRQ;
	assert_int_equal(kfit_tasks_track(ts, &r.h, sizeof(r)), 0);
	r.h.ctx = KFIT_CTX_TASK;
	r.h.type = KFIT_REC_CALL;
	assert_int_equal(kfit_tasks_track(ts, &r.h, sizeof(r)), 0);
	assert_string_equal(kfit_tasks_comm(ts, 50), "<...>");
	kfit_tasks_free(ts);
}

/* Many tasks: the table grows, every name stays */
static void test_many(void **state)
{
	struct kfit_tasks *ts = kfit_tasks_new(false);
	char comm[16];
	__u32 tid;

	(void)state;
	for (tid = 1; tid <= 5000; tid++) {
		snprintf(comm, sizeof(comm), "t%u", tid);
		assert_int_equal(kfit_tasks_set(ts, tid, tid, comm), 0);
	}
	for (tid = 1; tid <= 5000; tid++) {
		snprintf(comm, sizeof(comm), "t%u", tid);
		assert_string_equal(kfit_tasks_comm(ts, tid), comm);
	}
	assert_string_equal(kfit_tasks_comm(ts, 0), "<...>");
	kfit_tasks_free(ts);
}

static struct kfit_ctree *new_tree(void)
{
	static const char *funcs[] = { "f" };
	struct kfit_ctree *t = kfit_ctree_new(&(struct kfit_ctree_opts){
		.funcs = funcs, .nfuncs = 1,
	});

	assert_non_null(t);
	return t;
}

/* A call of tid at ts, through give then the decoder */
static void call(struct kfit_tasks *ts, struct kfit_ctree *t, __u32 pid, __u32 tid,
		 __u64 at)
{
	struct kfit_rec_call r = {
		.h = {
			.type = KFIT_REC_CALL, .ctx = KFIT_CTX_TASK, .size = sizeof(r),
			.pid = pid, .tid = tid, .ts = at,
		},
		.dur = 5, .depth = 1,
	};

	assert_int_equal(kfit_tasks_give(ts, t, &r.h, sizeof(r)), 0);
	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
}

static void task(struct kfit_tasks *ts, struct kfit_ctree *t, const struct rec *c)
{
	struct kfit_rec_task r = task_rec(c);

	assert_int_equal(kfit_tasks_track(ts, &r.h, sizeof(r)), 0);
	assert_int_equal(kfit_tasks_give(ts, t, &r.h, sizeof(r)), 0);
	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
}

static const char *comm_of(const struct kfit_ctree *t, __u32 tid)
{
	const struct kfit_cthread *th;
	int i;

	for (i = 0; (th = kfit_ctree_thread(t, i)); i++)
		if (th->tid == tid)
			return th->comm;
	return NULL;
}

/*
 * The decoder gets each task's name before its first record: a task
 * named at the start, a fork's child, one known by its exit only after
 * its calls (offline: left unnamed), and live one found in /proc
 * (this process).
 */
static void test_give(void **state)
{
	struct kfit_tasks *ts = kfit_tasks_new(false);
	struct kfit_ctree *t = new_tree();

	(void)state;
	assert_int_equal(kfit_tasks_name(ts, t, 10, 10, "start"), 0);
	call(ts, t, 10, 10, 100);
	task(ts, t, &(struct rec){ KFIT_REC_FORK, 10, 10, 110, 10, 11, "start" });
	call(ts, t, 10, 11, 120);
	call(ts, t, 20, 20, 130);
	task(ts, t, &(struct rec){ KFIT_REC_EXIT, 20, 20, 140, 0, 0, "late" });
	kfit_ctree_finish(t);
	assert_string_equal(comm_of(t, 10), "start");
	assert_string_equal(comm_of(t, 11), "start");
	assert_non_null(comm_of(t, 20));
	/* named by its exit record afterwards, as the decoder itself does */
	assert_string_equal(comm_of(t, 20), "late");
	kfit_ctree_free(t);
	kfit_tasks_free(ts);
}

static void test_give_proc(void **state)
{
	struct kfit_tasks *ts = kfit_tasks_new(true);
	struct kfit_ctree *t = new_tree();
	char want[32];
	FILE *f;

	(void)state;
	f = fopen("/proc/self/comm", "r");
	assert_non_null(f);
	assert_non_null(fgets(want, sizeof(want), f));
	fclose(f);
	want[strcspn(want, "\n")] = '\0';
	call(ts, t, getpid(), getpid(), 100);
	/* a pid that cannot be: unreadable, left for its records to name */
	call(ts, t, 0x7ffffff0, 0x7ffffff0, 110);
	kfit_ctree_finish(t);
	assert_string_equal(comm_of(t, getpid()), want);
	assert_string_equal(kfit_tasks_comm(ts, getpid()), want);
	assert_string_equal(kfit_tasks_comm(ts, 0x7ffffff0), "<...>");
	kfit_ctree_free(t);
	kfit_tasks_free(ts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_track),
		cmocka_unit_test(test_track_ignores),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_give),
		cmocka_unit_test(test_give_proc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
