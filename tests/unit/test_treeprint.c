// SPDX-License-Identifier: GPL-2.0
/*
 * The call-tree renderers: the exact kd -c text of known trees, and JSON
 * that parses (checked with jq when it is installed, else by structure).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "calltree.h"
#include "output.h"
#include "treeprint.h"
#include "testlib.h"

static const char *const funcs[] = {
	"vfs_read", "rw_verify_area", "net_rx_action", "do_sys", "f",
};
enum { VFS_READ, RW_VERIFY, NET_RX_ACTION, DO_SYS, F, NFUNCS };
static const char *const events[] = { "sched:sched_wakeup" };

#define T0 1000000000ULL
#define PID 1234

/* ---- building trees --------------------------------------------------- */

static struct kfit_ctree *new_tree(bool no_interlace)
{
	struct kfit_ctree_opts o = {
		.funcs = funcs, .nfuncs = NFUNCS, .events = events, .nevents = 1,
		.no_interlace = no_interlace,
	};
	struct kfit_ctree *t = kfit_ctree_new(&o);

	assert_non_null(t);
	return t;
}

static void add(struct kfit_ctree *t, const void *r, size_t size)
{
	assert_int_equal(kfit_ctree_add(t, r, size), 0);
}

static struct kfit_rec hdr(__u8 type, size_t size, __u8 ctx, __u16 cpu, __u32 tid,
			   __u64 ts)
{
	return (struct kfit_rec){
		.type = type, .ctx = ctx, .size = size, .cpu = cpu,
		.pid = PID, .tid = tid, .ts = T0 + ts,
	};
}

static struct kfit_rec_call mk_call(__u8 ctx, __u16 cpu, __u32 tid, __u64 ts, __u64 dur,
				    __u32 id, __u16 depth)
{
	struct kfit_rec_call r = {
		.h = hdr(KFIT_REC_CALL, sizeof(r), ctx, cpu, tid, ts),
		.dur = dur, .id = id, .depth = depth,
	};

	return r;
}

static void call(struct kfit_ctree *t, __u32 tid, __u64 ts, __u64 dur, __u32 id,
		 __u16 depth, __u8 flags)
{
	struct kfit_rec_call r = mk_call(KFIT_CTX_TASK, 1, tid, ts, dur, id, depth);

	r.h.flags = flags;
	add(t, &r, sizeof(r));
}

static void task_rec(struct kfit_ctree *t, __u8 type, __u32 tid, __u64 ts,
		     __u32 child, const char *comm)
{
	struct kfit_rec_task r = {
		.h = hdr(type, sizeof(r), KFIT_CTX_TASK, 1, tid, ts),
		.child_pid = child, .child_tid = child,
	};

	if (comm)
		memcpy(r.comm, comm, strlen(comm));
	add(t, &r, sizeof(r));
}

/*
 * cat (1235): vfs_read, 20.1 ms asleep in it, with rw_verify_area, a
 * NET_RX softirq running net_rx_action, a wakeup event and the switch;
 * then f, still open when the capture ended; a fork, an exec, an exit.
 * Thread 1236: do_sys with a call whose caller's record was lost, and a
 * frame inherited at fork whose task exited.
 */
static struct kfit_ctree *sample_tree(bool no_interlace)
{
	struct kfit_ctree *t = new_tree(no_interlace);
	struct kfit_rec_call r;
	struct kfit_rec_irq q = {
		.h = hdr(KFIT_REC_IRQ, sizeof(q), KFIT_CTX_SOFTIRQ, 1, 1235, 140000),
		.dur = 2100, .vec = 3, .ncalls = 1,
	};
	struct kfit_rec_event e = {
		.h = hdr(KFIT_REC_EVENT, sizeof(e), KFIT_CTX_TASK, 1, 1235, 145000),
	};
	struct kfit_rec_switch s = {
		.h = hdr(KFIT_REC_SWITCH, sizeof(s), KFIT_CTX_TASK, 1, 1235, 150000),
		.dur = 20100000, .state = 1, .depth = 1,
	};

	assert_int_equal(kfit_ctree_task(t, PID, 1235, "cat"), 0);
	assert_int_equal(kfit_ctree_task(t, PID, 1236, "cat-worker"), 0);
	call(t, 1235, 130000, 9135, RW_VERIFY, 1, 0);
	r = mk_call(KFIT_CTX_SOFTIRQ, 1, 1235, 140500, 1000, NET_RX_ACTION, 0);
	add(t, &r, sizeof(r));
	add(t, &q, sizeof(q));
	add(t, &e, sizeof(e));
	add(t, &s, sizeof(s));
	r = mk_call(KFIT_CTX_TASK, 1, 1235, 123000, 20272345, VFS_READ, 0);
	r.off_blocked = 20100000;
	r.dropped = 3;
	add(t, &r, sizeof(r));
	call(t, 1235, 30000000, 12300000, F, 0, KFIT_RF_INCOMPLETE | KFIT_RF_END);
	task_rec(t, KFIT_REC_FORK, 1235, 42400000, 1240, NULL);
	task_rec(t, KFIT_REC_EXEC, 1235, 42500000, 0, "sh");
	task_rec(t, KFIT_REC_EXIT, 1235, 43000000, 0, NULL);
	call(t, 1236, 1100000, 1000, F, 2, 0);
	call(t, 1236, 1000000, 500000, DO_SYS, 0, 0);
	call(t, 1236, 2000000, 3000, F, 0,
	     KFIT_RF_INCOMPLETE | KFIT_RF_EXITED | KFIT_RF_FORKED);
	kfit_ctree_finish(t);
	return t;
}

/* ---- capture ---------------------------------------------------------- */

static void cap_check(struct t_cap *c, const char *want)
{
	char *got = t_cap_close(c);

	assert_string_equal(got, want);
	free(got);
}

/* kfit_treeprint_text of t with o (the caller frees it) */
static char *text_of(const struct kfit_ctree *t, const struct kfit_treeprint_opts *o)
{
	struct t_cap c;

	kfit_treeprint_text(t_cap_open(&c), t, o);
	return t_cap_close(&c);
}

/* A rendering of a tree: with these options (NULL or not), exactly want */
struct text_case {
	const char *name;
	const struct kfit_treeprint_opts *o;
	const char *want;
};

static void check_texts(const struct kfit_ctree *t, const struct text_case *tc,
			size_t n)
{
	char *got;

	for (; n--; tc++) {
		got = text_of(t, tc->o);
		t_str_eq(tc->name, got, tc->want);
		free(got);
	}
}

/* ---- text ------------------------------------------------------------- */

#define COLS "     ENTRY   DURATION      LOCAL    OFF-CPU  CPU  FUNCTION\n"

static void test_text_interlaced(void **state)
{
	struct kfit_ctree *t = sample_tree(false);
	struct t_cap c;

	(void)state;
	kfit_treeprint_text(t_cap_open(&c), t, NULL);
	cap_check(&c,
		"== pid 1234 tid 1235 (sh) ==\n"
		COLS
		" 0.000000s     20.3ms     20.3ms     20.1ms    1  vfs_read [3 dropped]\n"
		" 0.000007s     9.14us     9.14us          -    1    rw_verify_area\n"
		" 0.000017s                                     1    ==> softirq NET_RX (cpu 1)\n"
		" 0.000017s     1.00us     1.00us          -    1      net_rx_action\n"
		" 0.000019s                                     1    <== softirq NET_RX 2.10us\n"
		" 0.000022s                                     1    * sched:sched_wakeup\n"
		" 0.000027s                                     1    -- off CPU 20.1ms (blocked)\n"
		" 0.029877s    >12.3ms     12.3ms          -    1  f [incomplete: end]\n"
		" 0.042277s                                     1  + fork: tid 1240\n"
		" 0.042377s                                     1  + exec: sh\n"
		" 0.042877s                                     1  + exit\n"
		"\n"
		"== pid 1234 tid 1236 (cat-worker) ==\n"
		COLS
		" 0.000877s      500us      499us          -    1  do_sys\n"
		" 0.000977s          ?          ?          -         [lost caller]\n"
		" 0.000977s     1.00us     1.00us          -    1      f\n"
		" 0.001877s    >3.00us     3.00us          -    1  f [incomplete: exited] [inherited]\n");
	kfit_ctree_free(t);
}

static void test_text_apart_origin_ns(void **state)
{
	struct kfit_ctree *t = sample_tree(true);
	struct kfit_treeprint_opts o = { .origin = T0, .ns = true };
	char *got;

	(void)state;
	got = text_of(t, &o);
	/* the interrupt in its own section, after the tasks */
	t_has_all(got,
		  "\n\n== softirq cpu 1 ==\n"
		    COLS
		    "    140000                                     1  ==> softirq NET_RX (cpu 1)\n"
		    "    140500       1000       1000          -    1    net_rx_action\n"
		    "    142100                                     1  <== softirq NET_RX 2100\n",
		  "    123000   20272345   20263210   20100000    1  vfs_read");
	/* and not in the task's */
	assert_true(strstr(got, "net_rx_action") > strstr(got, "== softirq cpu 1 =="));
	free(got);

	/* on the records' clock, and before the origin */
	o = (struct kfit_treeprint_opts){ .abs_time = true };
	got = text_of(t, &o);
	assert_non_null(strstr(got, "1.000123s     20.3ms     20.3ms"));
	free(got);
	o = (struct kfit_treeprint_opts){ .origin = T0 + 1000000 };
	got = text_of(t, &o);
	assert_non_null(strstr(got, "-0.000877s     20.3ms"));
	free(got);
	kfit_ctree_free(t);
}

static void test_counts(void **state)
{
	struct kfit_ctree *t = sample_tree(false);
	struct kfit_rec_lost l = {
		.h = { .type = KFIT_REC_LOST, .size = sizeof(l) }, .count = 9,
	};
	struct t_cap c;

	(void)state;
	kfit_treeprint_counts(t_cap_open(&c), t);
	cap_check(&c, "7 calls, 0 lost, 3 dropped (--min/-D), 2 incomplete, "
		      "1 orphaned (caller lost)\n");
	kfit_ctree_free(t);

	t = new_tree(false);
	add(t, &l, sizeof(l));
	kfit_ctree_add(t, &l, 8);
	kfit_ctree_finish(t);
	kfit_treeprint_counts(t_cap_open(&c), t);
	cap_check(&c, "0 calls, 9 lost, 0 dropped (--min/-D), 0 incomplete, 1 bad record\n");
	kfit_ctree_free(t);
}

/* ---- sampled ---------------------------------------------------------- */

static const char *sym(void *ctx, __u32 pid, __u64 addr, bool kernel)
{
	static const char *const names[] = { "main", "work", "hot", "sys_read", "cold" };

	(void)ctx;
	(void)pid;
	(void)kernel;
	return addr < 5 ? names[addr] : NULL;
}

static void sample(struct kfit_ctree *t, __u32 pid, int nk, int nu, ...)
{
	struct kfit_rec_sample s = { 0 };
	size_t size = offsetof(struct kfit_rec_sample, ip) + 8 * (nk + nu);
	va_list ap;
	int i;

	s.h = (struct kfit_rec){ .type = KFIT_REC_SAMPLE, .size = size, .pid = pid,
				 .tid = pid, .ts = T0 };
	s.nkernel = nk;
	s.nuser = nu;
	va_start(ap, nu);
	for (i = 0; i < nk + nu; i++)
		s.ip[i] = va_arg(ap, __u64);
	va_end(ap);
	add(t, &s, size);
}

/* main: 10 samples; work 9 (self 1); hot 7 (self 7); sys_read 1 [k]; cold 1 */
static struct kfit_ctree *sampled_tree(void)
{
	struct kfit_ctree_opts o = { .sym = sym };
	struct kfit_ctree *t = kfit_ctree_new(&o);
	int i;

	assert_non_null(t);
	assert_int_equal(kfit_ctree_task(t, 77, 77, "busy"), 0);
	for (i = 0; i < 7; i++)
		sample(t, 77, 0, 3, 2ULL, 1ULL, 0ULL);
	sample(t, 77, 1, 2, 3ULL, 1ULL, 0ULL);
	sample(t, 77, 0, 2, 1ULL, 0ULL);
	sample(t, 77, 0, 2, 4ULL, 0ULL);
	kfit_ctree_finish(t);
	return t;
}

#define SAMPLED_HEAD \
	"== pid 77 (busy): 10 samples ==\n" \
	"  INCL%   SELF%  FUNCTION\n" \
	" 100.0%    0.0%  main\n"
#define SAMPLED_HOT \
	"  90.0%   10.0%    work\n" \
	"  70.0%   70.0%      hot\n"

/* sampled_tree with --min's percentage and sample count, -D's cut with
 * "[N deeper]", and what they hide said */
static const struct text_case sampled_cases[] = {
	{ "no limits", NULL, SAMPLED_HEAD SAMPLED_HOT
	  "  10.0%   10.0%      sys_read [k]\n"
	  "  10.0%   10.0%    cold\n" },
	{ "under 50%", &(struct kfit_treeprint_opts){ .min_pct = 50 },
	  SAMPLED_HEAD SAMPLED_HOT
	  "-- 2 samples hidden in 2 lines under the limits\n" },
	{ "under 2 samples",
	  &(struct kfit_treeprint_opts){ .min_samples = 2,
					 .hidden_note = "under 2 (--min)" },
	  SAMPLED_HEAD SAMPLED_HOT
	  "-- 2 samples hidden in 2 lines under 2 (--min)\n" },
	{ "-D 2", &(struct kfit_treeprint_opts){ .max_depth = 2 },
	  SAMPLED_HEAD
	  "  90.0%   10.0%    work [8 deeper]\n"
	  "  10.0%   10.0%    cold\n"
	  "-- 8 samples deeper than -D 2: in the [N deeper] of their frame\n" },
	/* both: a hidden frame's lines counted down to -D only */
	{ "-D 2 and under 95%",
	  &(struct kfit_treeprint_opts){ .max_depth = 2, .min_pct = 95,
					 .hidden_note = "under 95%" },
	  SAMPLED_HEAD
	  "-- 10 samples hidden in 2 lines under 95%\n" },
};

static void test_sampled_text(void **state)
{
	struct kfit_ctree *t = sampled_tree();
	struct t_cap c;

	(void)state;
	check_texts(t, sampled_cases, T_N(sampled_cases));
	kfit_treeprint_counts(t_cap_open(&c), t);
	cap_check(&c, "10 samples, 0 lost\n");
	kfit_ctree_free(t);
}

/* One sample: singular */
static void test_sampled_one(void **state)
{
	struct kfit_ctree *t = kfit_ctree_new(&(struct kfit_ctree_opts){ .sym = sym });
	struct kfit_treeprint_opts o = { .min_pct = 0.5 };
	struct t_cap c;

	(void)state;
	assert_non_null(t);
	sample(t, 5, 0, 1, 0ULL);
	kfit_ctree_finish(t);
	kfit_treeprint_text(t_cap_open(&c), t, &o);
	cap_check(&c,
		"== pid 5 (?): 1 sample ==\n"
		"  INCL%   SELF%  FUNCTION\n"
		" 100.0%  100.0%  main\n");
	kfit_treeprint_counts(t_cap_open(&c), t);
	cap_check(&c, "1 sample, 0 lost\n");
	kfit_ctree_free(t);
}

/* A process under the limit of all the samples is hidden whole */
static void test_sampled_processes(void **state)
{
	const struct text_case cases[] = {
		{ "under 5%",
		  &(struct kfit_treeprint_opts){ .min_pct = 5, .hidden_note = "under 5%" },
		  "== pid 10 (?): 99 samples ==\n"
		  "  INCL%   SELF%  FUNCTION\n"
		  " 100.0%  100.0%  hot\n"
		  "\n"
		  "-- 1 process hidden: 1 sample under 5%\n" },
		{ "no limit",
		  &(struct kfit_treeprint_opts){ .min_pct = 0, .hidden_note = "under 5%" },
		  "== pid 10 (?): 99 samples ==\n"
		  "  INCL%   SELF%  FUNCTION\n"
		  " 100.0%  100.0%  hot\n"
		  "\n"
		  "== pid 11 (?): 1 sample ==\n"
		  "  INCL%   SELF%  FUNCTION\n"
		  " 100.0%  100.0%  cold\n" },
	};
	struct kfit_ctree *t = kfit_ctree_new(&(struct kfit_ctree_opts){ .sym = sym });
	int i;

	(void)state;
	assert_non_null(t);
	for (i = 0; i < 99; i++)
		sample(t, 10, 0, 1, 2ULL);
	sample(t, 11, 0, 1, 4ULL);
	kfit_ctree_finish(t);
	check_texts(t, cases, T_N(cases));
	kfit_ctree_free(t);
}

/* The limit is of all the samples: 5% of a process, 1% of all, is hidden */
static void test_sampled_limit_of_all(void **state)
{
	struct kfit_ctree *t = kfit_ctree_new(&(struct kfit_ctree_opts){ .sym = sym });
	struct kfit_treeprint_opts o = { .min_pct = 2, .hidden_note = "under 2%" };
	char *out;
	int i;

	(void)state;
	assert_non_null(t);
	for (i = 0; i < 19; i++)
		sample(t, 20, 0, 2, 2ULL, 0ULL);
	sample(t, 20, 0, 2, 4ULL, 0ULL);
	for (i = 0; i < 80; i++)
		sample(t, 21, 0, 1, 1ULL);
	kfit_ctree_finish(t);
	out = text_of(t, &o);
	assert_true(t_starts(out,
		"== pid 20 (?): 20 samples ==\n"
		"  INCL%   SELF%  FUNCTION\n"
		" 100.0%    0.0%  main\n"
		"  95.0%   95.0%    hot\n"
		"-- 1 sample hidden in 1 line under 2%\n"));
	free(out);
	kfit_ctree_free(t);
}

/* Names for the width test: a long one, and "fN" for the others */
static const char *long_sym(void *ctx, __u32 pid, __u64 addr, bool kernel)
{
	static char buf[32];

	(void)ctx;
	(void)pid;
	(void)kernel;
	if (addr == 100)
		return "a_function_name_much_longer_than_the_room_left_for_it";
	snprintf(buf, sizeof(buf), "f%llu", (unsigned long long)addr);
	return buf;
}

/* Lines cut to the width: names with "...", deep frames with their depth */
static void test_sampled_width(void **state)
{
	struct kfit_ctree *t = kfit_ctree_new(&(struct kfit_ctree_opts){ .sym = long_sym });
	struct kfit_treeprint_opts o = { .width = 40 };
	struct kfit_rec_sample s = { 0 };
	char *out;
	int i;

	(void)state;
	assert_non_null(t);
	/* f0 > f1 > ... > f14 > the long name, one sample, one [k] frame */
	s.h = (struct kfit_rec){ .type = KFIT_REC_SAMPLE, .pid = 3, .tid = 3, .ts = T0 };
	s.nkernel = 1;
	s.nuser = 16;
	s.ip[0] = 100;
	for (i = 1; i <= 15; i++)
		s.ip[i] = 16 - i;
	s.ip[16] = 0;
	s.h.size = offsetof(struct kfit_rec_sample, ip) + 17 * sizeof(__u64);
	add(t, &s, s.h.size);
	kfit_ctree_finish(t);
	out = text_of(t, &o);
	assert_true(t_longest_line(out) <= 40);
	/* depth 1: indent 2; depth 2 would take 17 + 4 + 20 > 40 columns */
	t_has_all(out,
		  " 100.0%    0.0%  f0\n",
		  " 100.0%    0.0%    f1\n",
		  " 100.0%    0.0%    (2) f2\n",
		  " 100.0%    0.0%    (15) f15\n");
	/* the name cut, its kernel mark kept: 40 - 17 - 2 - 5 = 16 columns */
	assert_non_null(strstr(out, " 100.0%  100.0%    (16) a_functio... [k]\n"));
	free(out);
	/* not cut without a width */
	o.width = 0;
	out = text_of(t, &o);
	assert_non_null(strstr(out, "                                  "
			       "a_function_name_much_longer_than_the_room_left_for_it [k]\n"));
	free(out);
	/* below 40 columns: 40 */
	o.width = 10;
	out = text_of(t, &o);
	assert_int_equal(t_longest_line(out), 40);
	free(out);
	kfit_ctree_free(t);
}

/* ---- JSON ------------------------------------------------------------- */

static char *json_doc(const struct kfit_ctree *t, const struct kfit_treeprint_opts *o,
		      bool pretty)
{
	struct t_cap c;
	struct kfit_json j;

	kfit_json_init(&j, t_cap_open(&c), pretty);
	kfit_json_begin_object(&j, NULL);
	kfit_treeprint_json_counts(&j, t);
	kfit_treeprint_json_threads(&j, t, o);
	kfit_json_end_object(&j);
	kfit_json_finish(&j);
	assert_int_equal(j.depth, 0);
	fclose(c.f);
	return c.buf;
}

/* The first thread's calls, exactly, compact */
static void test_json_exact(void **state)
{
	struct kfit_ctree *t = new_tree(false);
	char *doc;

	(void)state;
	call(t, 7, 10, 5, RW_VERIFY, 1, 0);
	call(t, 7, 0, 100, VFS_READ, 0, KFIT_RF_INCOMPLETE | KFIT_RF_JUMPED);
	kfit_ctree_finish(t);
	doc = json_doc(t, NULL, false);
	assert_string_equal(doc,
		"{\"calls\":2,\"lost\":0,\"dropped\":0,\"incomplete\":1,\"orphans\":0,"
		"\"bad\":0,\"samples\":0,\"threads\":[{\"pid\":1234,\"tid\":7,"
		"\"comm\":\"\",\"context\":\"task\",\"cpu\":null,\"calls\":["
		"{\"name\":\"vfs_read\",\"tid\":7,\"cpu\":1,\"context\":\"task\","
		"\"start_ns\":0,\"duration_ns\":100,\"local_ns\":95,\"offcpu_ns\":0,"
		"\"offcpu_blocked_ns\":0,\"offcpu_preempt_ns\":0,\"complete\":false,"
		"\"incomplete_reason\":\"longjmp\",\"dropped\":0,\"children\":["
		"{\"name\":\"rw_verify_area\",\"tid\":7,\"cpu\":1,\"context\":\"task\","
		"\"start_ns\":10,\"duration_ns\":5,\"local_ns\":5,\"offcpu_ns\":0,"
		"\"offcpu_blocked_ns\":0,\"offcpu_preempt_ns\":0,\"complete\":true,"
		"\"dropped\":0,\"children\":[]}]}]}]}\n");
	free(doc);
	kfit_ctree_free(t);
}

/*
 * Return values (issue 20): each read as its function's kind says, from
 * the register the record holds; none for a void function, a call given
 * up, or a record of version 1 (64 bytes, no ret field).
 */
static const __u8 ret_kinds[NFUNCS] = {
	[VFS_READ] = 8 | KFIT_RET_SIGNED | KFIT_RET_ERRNO,
	[RW_VERIFY] = 4 | KFIT_RET_SIGNED | KFIT_RET_ERRNO,
	[NET_RX_ACTION] = 0,
	[DO_SYS] = 8 | KFIT_RET_PTR | KFIT_RET_SIGNED | KFIT_RET_ERRNO,
	[F] = KFIT_RET_VOID,
};

static void ret_call(struct kfit_ctree *t, __u64 ts, __u32 id, __u16 depth, __u64 reg,
		     __u8 flags, size_t size)
{
	struct kfit_rec_call r = mk_call(KFIT_CTX_TASK, 1, 7, ts, 10, id, depth);

	r.h.flags = flags;
	r.h.size = size;
	r.cflags = KFIT_CF_RET;
	r.ret = reg;
	add(t, &r, size);
}

static struct kfit_ctree *ret_tree(void)
{
	struct kfit_ctree_opts o = {
		.funcs = funcs, .nfuncs = NFUNCS, .ret_kinds = ret_kinds,
	};
	struct kfit_ctree *t = kfit_ctree_new(&o);

	assert_non_null(t);
	/* an int's -2 with 0s above it, as a 32-bit mov leaves rax */
	ret_call(t, 0, RW_VERIFY, 1, 0xfffffffeULL, 0, sizeof(struct kfit_rec_call));
	ret_call(t, 0, VFS_READ, 0, 16, 0, sizeof(struct kfit_rec_call));
	ret_call(t, 100, DO_SYS, 0, 0xffff888012345678ULL, 0, sizeof(struct kfit_rec_call));
	ret_call(t, 200, DO_SYS, 0, (__u64)-12, 0, sizeof(struct kfit_rec_call));
	ret_call(t, 300, F, 0, 42, 0, sizeof(struct kfit_rec_call));
	ret_call(t, 400, NET_RX_ACTION, 0, (__u64)-1, 0, sizeof(struct kfit_rec_call));
	/* a version-1 record: its 64 bytes have no ret, whatever cflags says */
	ret_call(t, 500, VFS_READ, 0, 5, 0, KFIT_REC_CALL_V1_SIZE);
	ret_call(t, 600, VFS_READ, 0, 5, KFIT_RF_INCOMPLETE | KFIT_RF_END,
		 sizeof(struct kfit_rec_call));
	kfit_ctree_finish(t);
	return t;
}

static void test_ret_text(void **state)
{
	struct kfit_treeprint_opts o = { .origin = T0, .ns = true };
	struct kfit_ctree *t = ret_tree();
	char *got = text_of(t, &o);

	(void)state;
	assert_int_equal(kfit_ctree_get_stats(t)->bad, 0);
	t_str_eq("return values", got,
		 "== pid 1234 tid 7 (?) ==\n"
		 "     ENTRY   DURATION      LOCAL    OFF-CPU  CPU  FUNCTION\n"
		 "         0         10          0          -    1  vfs_read => 16\n"
		 "         0         10         10          -    1    rw_verify_area => -ENOENT\n"
		 "       100         10         10          -    1  do_sys => 0xffff888012345678\n"
		 "       200         10         10          -    1  do_sys => -ENOMEM\n"
		 "       300         10         10          -    1  f\n"
		 "       400         10         10          -    1  net_rx_action => -1\n"
		 "       500         10         10          -    1  vfs_read\n"
		 "       600        >10         10          -    1  vfs_read [incomplete: end]\n");
	free(got);
	kfit_ctree_free(t);
}

static void test_ret_json(void **state)
{
	struct kfit_ctree *t = ret_tree();
	char *doc = json_doc(t, NULL, false);

	(void)state;
	if (!t_have("jq")) {
		free(doc);
		kfit_ctree_free(t);
		skip();
	}
	t_jq_all(doc,
		 ".threads[0].calls | map(.ret) == [16, -131391334099336, -12, null, -1, null, null]",
		 ".threads[0].calls | map(.ret_str) == [\"16\", \"0xffff888012345678\", "
		   "\"-ENOMEM\", null, \"-1\", null, null]",
		 ".threads[0].calls[0].children[0] | .ret == -2 and .ret_str == \"-ENOENT\"");
	free(doc);
	kfit_ctree_free(t);
}

/*
 * --errors: a failure under a call, one of an interrupt interlaced in a
 * call that did not fail, a tree without failure, a failed call whose
 * callee did not fail
 */
static struct kfit_ctree *errors_tree(void)
{
	struct kfit_ctree_opts o = {
		.funcs = funcs, .nfuncs = NFUNCS, .ret_kinds = ret_kinds,
	};
	struct kfit_ctree *t = kfit_ctree_new(&o);
	struct kfit_rec_call r = mk_call(KFIT_CTX_SOFTIRQ, 1, 7, 203, 2, RW_VERIFY, 0);
	struct kfit_rec_irq q = {
		.h = hdr(KFIT_REC_IRQ, sizeof(q), KFIT_CTX_SOFTIRQ, 1, 7, 202),
		.dur = 5, .vec = 3, .ncalls = 1,
	};

	assert_non_null(t);
	ret_call(t, 0, RW_VERIFY, 1, (__u64)-2, 0, sizeof(r));
	ret_call(t, 0, VFS_READ, 0, 16, 0, sizeof(r));
	r.cflags = KFIT_CF_RET;
	r.ret = (__u64)-5;
	add(t, &r, sizeof(r));
	add(t, &q, sizeof(q));
	ret_call(t, 200, VFS_READ, 0, 0, 0, sizeof(r));
	ret_call(t, 400, DO_SYS, 0, 3, 0, sizeof(r));
	ret_call(t, 600, RW_VERIFY, 1, 0, 0, sizeof(r));
	ret_call(t, 600, VFS_READ, 0, (__u64)-30, 0, sizeof(r));
	kfit_ctree_finish(t);
	return t;
}

static void test_errors_text(void **state)
{
	struct kfit_treeprint_opts o = { .origin = T0, .ns = true, .errors = true };
	struct kfit_ctree *t = errors_tree();
	char *got = text_of(t, &o);
	__u64 kept, out;

	(void)state;
	t_str_eq("--errors", got,
		 "== pid 1234 tid 7 (?) ==\n"
		 COLS
		 "         0         10          0          -    1 !vfs_read => 16\n"
		 "         0         10         10          -    1 !  rw_verify_area => -ENOENT\n"
		 "       200         10         10          -    1  vfs_read => 0\n"
		 "       202                                     1 !  ==> softirq NET_RX (cpu 1)\n"
		 "       203          2          2          -    1 !    rw_verify_area => -EIO\n"
		 "       207                                     1 !  <== softirq NET_RX 5\n"
		 "       600         10          0          -    1 !vfs_read => -EROFS\n"
		 "       600         10         10          -    1    rw_verify_area => 0\n");
	free(got);
	kfit_treeprint_trees(t, &kept, &out);
	assert_int_equal(kept, 3);
	assert_int_equal(out, 1);
	o.errors = false;
	got = text_of(t, &o);
	t_true("no marks without --errors", !strchr(got, '!') && strstr(got, "do_sys => 0x3"));
	free(got);
	kfit_ctree_free(t);
}

static void test_errors_json(void **state)
{
	struct kfit_treeprint_opts o = { .origin = T0, .errors = true };
	struct kfit_ctree *t = errors_tree();
	char *doc = json_doc(t, &o, false);

	(void)state;
	if (!t_have("jq")) {
		free(doc);
		kfit_ctree_free(t);
		skip();
	}
	t_jq_all(doc,
		 ".threads[0].calls | map(.ret_str) == [\"16\", \"0\", \"-EROFS\"]",
		 "[.threads[0].calls[] | .failed] == [true, null, true]",
		 ".threads[0].calls[0].children[0].failed == true",
		 ".threads[0].calls[1].children[0] | .failed == true and "
		   ".children[0].failed == true and .children[0].ret_str == \"-EIO\"",
		 ".threads[0].calls[2].children[0] | has(\"failed\") | not");
	free(doc);
	kfit_ctree_free(t);
}

static void test_json_structure(void **state)
{
	struct kfit_ctree *t = sample_tree(false);
	char *doc = json_doc(t, NULL, true);

	(void)state;
	if (!t_have("jq")) {
		free(doc);
		kfit_ctree_free(t);
		skip();
	}
	t_jq_all(doc,
		 ".",
		 ".calls == 7 and .dropped == 3 and .incomplete == 2 "
		   "and .orphans == 1 and (.threads | length) == 2",
		 ".threads[0] | .tid == 1235 and .comm == \"sh\" "
		   "and .context == \"task\"",
		 ".threads[0].calls | map(.name // .fork // .exec // "
		   "(.exit | tostring)) == [\"vfs_read\",\"f\",1240,\"sh\",\"true\"]",
		 ".threads[0].calls[0] | .offcpu_blocked_ns == 20100000 and "
		   ".local_ns == 20263210 and .complete and (.children | length) == 4",
		 ".threads[0].calls[0].children[1] | .irq == \"softirq NET_RX\" "
		   "and .vector == 3 and .duration_ns == 2100 and .start_ns == 17000 "
		   "and .children[0].name == \"net_rx_action\" and "
		   ".children[0].context == \"softirq\" and .children[0].tid == 1235",
		 ".threads[0].calls[0].children[2].event == \"sched:sched_wakeup\"",
		 ".threads[0].calls[0].children[3] | .switch == \"blocked\" "
		   "and .state == 1 and .duration_ns == 20100000",
		 ".threads[0].calls[1] | .complete == false and "
		   ".incomplete_reason == \"end\"",
		 ".threads[1].calls[0].children[0] | .lost and "
		   ".children[0].name == \"f\"",
		 ".threads[1].calls[1] | .inherited and "
		   ".incomplete_reason == \"exited\"");
	/* no "incomplete_reason" on complete calls */
	assert_true(t_jq(doc, "[.. | objects | select(.complete == true) | "
			    "has(\"incomplete_reason\")] | any | not"));
	free(doc);
	kfit_ctree_free(t);

	t = sample_tree(true);
	doc = json_doc(t, NULL, false);
	assert_true(t_jq(doc, ".threads[2] | .context == \"softirq\" and .cpu == 1 and "
			    ".calls[0].irq == \"softirq NET_RX\""));
	free(doc);
	kfit_ctree_free(t);

	t = sampled_tree();
	doc = json_doc(t, NULL, false);
	t_jq_all(doc,
		 ".samples == 10 and .threads[0].pid == 77 and "
		   ".threads[0].comm == \"busy\" and .threads[0].samples == 10",
		 ".threads[0].children[0] | .name == \"main\" and "
		   ".samples == 10 and .self == 0 and .kernel == false and "
		   ".children[0].children[1] == {\"name\":\"sys_read\","
		   "\"kernel\":true,\"samples\":1,\"self\":1,\"children\":[]}");
	free(doc);
	kfit_ctree_free(t);
}

/* JSON with the limits: every sample accounted for, shown or not */
static void test_sampled_json_limits(void **state)
{
	struct kfit_ctree *t = sampled_tree();
	struct kfit_treeprint_opts o = { .max_depth = 2, .min_pct = 15 };
	char *doc;

	(void)state;
	if (!t_have("jq")) {
		kfit_ctree_free(t);
		skip();
	}
	doc = json_doc(t, &o, false);
	t_jq_all(doc,
		 ".threads[0] | .hidden_samples == 1 and .hidden_frames == 1 "
		   "and .deeper_samples == 8 and .self == 0",
		 ".threads[0].children[0].children == [{\"name\":\"work\","
		   "\"kernel\":false,\"samples\":9,\"self\":1,\"deeper\":8}]",
		 ".threads[0] | ([.. | objects | .self? // 0] | add) + "
		   ".hidden_samples + .deeper_samples == .samples",
		 ".hidden_processes == 0 and .hidden_process_samples == 0");
	free(doc);
	/* no limit: no such members */
	doc = json_doc(t, NULL, false);
	assert_true(t_jq(doc, "has(\"hidden_processes\") or "
			    "(.threads[0] | has(\"hidden_samples\")) | not"));
	free(doc);
	kfit_ctree_free(t);
}

/* Deeper than the JSON writer nests: the rest is counted, never a crash */
static void test_json_deep(void **state)
{
	struct kfit_ctree *t = new_tree(false);
	const int deep = 2000;
	char *doc, expr[200];
	int d;

	(void)state;
	for (d = deep - 1; d >= 0; d--)
		call(t, 9, d, 2 * (deep - d), F, d, 0);
	kfit_ctree_finish(t);
	doc = json_doc(t, NULL, false);
	if (t_have("jq")) {
		/* shown to a depth, then what is left */
		snprintf(expr, sizeof(expr), "[.. | objects | select(has(\"omitted\"))] | "
			 "length == 1 and .[0].omitted > 0 and .[0].omitted < %d", deep);
		t_jq_all(doc,
			 expr,
			 "[.. | objects | select(has(\"name\"))] | length > 80");
	}
	free(doc);
	/* the text has every level */
	{
		struct t_cap c;
		size_t lines = 0;
		char *p;

		kfit_treeprint_text(t_cap_open(&c), t, NULL);
		fclose(c.f);
		for (p = c.buf; *p; p++)
			lines += *p == '\n';
		assert_int_equal(lines, deep + 2);
		free(c.buf);
	}
	kfit_ctree_free(t);
}

/* ---- helpers ---------------------------------------------------------- */

static void test_labels(void **state)
{
	static const struct {
		__u8 ctx;
		__u32 id;
		const char *want;
	} irqs[] = {
		{ KFIT_CTX_SOFTIRQ, 9, "softirq RCU" },
		{ KFIT_CTX_SOFTIRQ, 10, "softirq ?" },
		{ KFIT_CTX_HARDIRQ, 24, "hardirq 24" },
		{ KFIT_CTX_NMI, 24, "nmi" },
	};
	static const struct {
		const char *name;
		__u8 flags;
		const char *want;
	} reasons[] = {
		{ "complete", 0, "" },
		{ "exited, not incomplete", KFIT_RF_EXITED, "" },
		{ "no reason", KFIT_RF_INCOMPLETE, "unknown" },
		{ "exec", KFIT_RF_INCOMPLETE | KFIT_RF_EXEC, "exec" },
		{ "longjmp", KFIT_RF_INCOMPLETE | KFIT_RF_JUMPED, "longjmp" },
	};
	struct kfit_ctree *t = new_tree(false);
	struct kfit_cnode n = { .kind = KFIT_CN_IRQ };
	char buf[64];
	size_t i;

	(void)state;
	for (i = 0; i < T_N(irqs); i++) {
		n.ctx = irqs[i].ctx;
		n.id = irqs[i].id;
		t_str_eq(irqs[i].want, kfit_treeprint_irq_label(t, &n, buf, sizeof(buf)),
			 irqs[i].want);
	}
	for (i = 0; i < T_N(reasons); i++)
		t_str_eq(reasons[i].name, kfit_treeprint_incomplete_reason(reasons[i].flags),
			 reasons[i].want);
	kfit_ctree_finish(t);
	kfit_ctree_free(t);
}

/* Noise decoded, then rendered: the text ends, the JSON parses */
static void test_random_render(void **state)
{
	static __u64 buf[2048];
	__u64 x = 88172645463325252ULL;
	bool check = t_have("jq");
	int round, i;

	(void)state;
	for (round = 0; round < 40; round++) {
		struct kfit_ctree *t = new_tree(round % 2);
		struct t_cap c;
		char *doc;

		for (i = 0; i < 2048; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			buf[i] = i % 8 == 0 ? (x & 0xffff000000000000ULL) |
					      (x % 9 + 1) | (x % 5 << 8) :
				 x % 3 ? x % 200 : x;
			if (i % 8 == 0)
				((struct kfit_rec *)&buf[i])->size = 64;
		}
		kfit_ctree_add_all(t, buf, sizeof(buf));
		kfit_ctree_finish(t);
		kfit_treeprint_text(t_cap_open(&c), t, NULL);
		fclose(c.f);
		free(c.buf);
		doc = json_doc(t, NULL, false);
		if (check && round < 8)
			assert_true(t_jq(doc, "(.threads | type) == \"array\""));
		free(doc);
		kfit_ctree_free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_interlaced),
		cmocka_unit_test(test_text_apart_origin_ns),
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_sampled_text),
		cmocka_unit_test(test_sampled_one),
		cmocka_unit_test(test_sampled_processes),
		cmocka_unit_test(test_sampled_limit_of_all),
		cmocka_unit_test(test_sampled_width),
		cmocka_unit_test(test_json_exact),
		cmocka_unit_test(test_ret_text),
		cmocka_unit_test(test_ret_json),
		cmocka_unit_test(test_errors_text),
		cmocka_unit_test(test_errors_json),
		cmocka_unit_test(test_json_structure),
		cmocka_unit_test(test_json_deep),
		cmocka_unit_test(test_sampled_json_limits),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_random_render),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
