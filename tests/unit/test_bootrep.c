// SPDX-License-Identifier: GPL-2.0
/*
 * bootsum's reports (bootrep.c) over boots built by hand: the critical
 * chain on small process/wait sets, the text's rows and their order, the
 * JSON through jq, the SVG through xmllint and its bars' rows. The
 * sample (test_svg_sample) is a real 6.12 boot's initcalls
 * (tests/fixtures/bootrep/calls.txt) and a scripted user space;
 * KFIT_SVG_OUT=FILE keeps its SVG (KFIT_TEXT_OUT=1 prints its text),
 * KFIT_SVG_BIG_OUT=FILE the one of ~3000 initcalls and 4000 processes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "bootrep.h"
#include "duration.h"
#include "testlib.h"

#define MS	KFIT_MSEC

/* ---- user phases by hand ---- */

#define MAXP	8192
#define MAXW	16384

static struct bs_proc procs[MAXP];
static struct bs_wait waits[MAXW];
static struct bs_mod mods[8];
static struct kfit_bootrep_user U;

static void u_reset(void)
{
	memset(procs, 0, sizeof(procs));
	memset(waits, 0, sizeof(waits));
	memset(mods, 0, sizeof(mods));
	memset(&U, 0, sizeof(U));
	U.procs = procs;
	U.waits = waits;
	U.mods = mods;
	U.meta.magic = BS_MAGIC;
	U.meta.version = BS_VERSION;
	U.offset_known = true;
	U.found = "pinned at /sys/fs/bpf/kfit/bootsum";
}

/* A process: ARGS with '|' for the NULs between arguments; exit 0: alive */
static __u32 proc(__u32 parent, __u32 pid, __u64 fork_ns, __u64 exit_ns,
		  const char *args)
{
	struct bs_proc *p = &procs[U.nprocs];
	size_t i;

	assert_true(U.nprocs < MAXP);
	p->pid = pid;
	p->parent_idx = parent;
	p->ppid = parent < U.nprocs ? procs[parent].pid : 0;
	p->fork_ns = fork_ns;
	p->exec_ns = fork_ns + 100000;
	p->exit_ns = exit_ns;
	p->flags = BS_P_EXEC | (exit_ns ? BS_P_EXITED : 0);
	p->nexec = 1;
	p->nthreads = 1;
	snprintf(p->comm, sizeof(p->comm), "%.*s", (int)strcspn(args, " |"), args);
	p->args_len = strlen(args) + 1;
	for (i = 0; args[i]; i++)
		p->args[i] = args[i] == '|' ? 0 : args[i];
	if (p->fork_ns < exit_ns)
		p->oncpu_ns = (exit_ns - fork_ns) / 10;
	return U.nprocs++;
}

static void wait_on(__u32 idx, __u64 start, __u64 end, __u32 kind, __u32 waker)
{
	struct bs_wait *w = &waits[U.nwaits++];

	assert_true(U.nwaits <= MAXW);
	w->idx = idx;
	w->tid = procs[idx].pid;
	w->start_ns = start;
	w->end_ns = end;
	w->waker_kind = kind;
	w->waker_idx = kind == BS_W_PROC ? waker : BS_NONE;
	if (kind == BS_W_KTHREAD)
		snprintf(w->waker_comm, sizeof(w->waker_comm), "kworker/0:1");
	procs[idx].blocked_ns += end - start;
}

/* The chain into a fixed array; its length */
static struct kfit_bootrep_link links[64];

static size_t chain(__u32 target)
{
	memset(links, 0xaa, sizeof(links));
	return kfit_bootrep_chain(&U, target, links, 64);
}

static void link_is(size_t i, __u32 idx, int why, __u64 from, __u64 to)
{
	char name[32];

	snprintf(name, sizeof(name), "link %zu", i);
	t_int_eq(name, links[i].idx, idx);
	t_int_eq(name, links[i].why, why);
	t_int_eq(name, links[i].from_ns, from);
	t_int_eq(name, links[i].to_ns, to);
}

/* The chain to target is exactly these links, { idx, why, from, to }... */
struct want_link {
	__u32 idx;
	int why;
	__u64 from, to;
};

#define chain_is(target, ...) \
	chain_is_of(target, (const struct want_link []){ __VA_ARGS__ }, \
		    sizeof((const struct want_link []){ __VA_ARGS__ }) / \
		    sizeof(struct want_link))
static void chain_is_of(__u32 target, const struct want_link *w, size_t n)
{
	size_t i;

	assert_int_equal(chain(target), n);
	for (i = 0; i < n; i++)
		link_is(i, w[i].idx, w[i].why, w[i].from, w[i].to);
}

/* ---- the critical chain ---- */

/* sh forks sleep 1 and waits for it; sleep's wait ends by a timer */
static void test_chain_parent_child(void **state)
{
	__u32 init, sh, sl;

	(void)state;
	u_reset();
	init = proc(BS_NONE, 1, 1 * MS, 0, "/init");
	procs[init].flags |= BS_P_PREEXIST;
	sh = proc(init, 50, 5 * MS, 1012 * MS, "sh|-c|sleep 1");
	sl = proc(sh, 51, 10 * MS, 1010 * MS, "sleep|1");
	wait_on(init, 5 * MS + 10, 1012 * MS + 100, BS_W_PROC, sh);
	wait_on(sl, 11 * MS, 1009 * MS, BS_W_IRQ, 0);
	wait_on(sh, 10 * MS + 500, 1010 * MS + 200, BS_W_PROC, sl);
	U.now_ns = 2000 * MS;

	/* default target: the last to exit, not the living init */
	assert_int_equal(kfit_bootrep_last(&U), sh);
	chain_is(BS_NONE,
		 { sh, KFIT_BOOTREP_CHAIN_END, 1010 * MS + 200, 1012 * MS },
		 { sl, KFIT_BOOTREP_CHAIN_WAIT, 10 * MS, 1010 * MS + 200 },
		 { sh, KFIT_BOOTREP_CHAIN_START, 5 * MS, 10 * MS },
		 { init, KFIT_BOOTREP_CHAIN_START, 1 * MS, 5 * MS });
	assert_int_equal(links[1].wait_ns, 1000 * MS - 300);
	/* sleep was itself waiting on a timer, on the chain */
	assert_int_equal(links[1].self_n, 1);
	assert_int_equal(links[1].self_kind, BS_W_IRQ);
	assert_int_equal(links[1].self_ns, 998 * MS);
	assert_int_equal(links[0].self_n, 0);

	/* init lives on: its chain ends now and goes through sh */
	assert_int_equal(chain(init), 5);
	link_is(0, init, KFIT_BOOTREP_CHAIN_END, 1012 * MS + 100, 2000 * MS);
	link_is(1, sh, KFIT_BOOTREP_CHAIN_WAIT, 1010 * MS + 200, 1012 * MS + 100);
	link_is(3, sh, KFIT_BOOTREP_CHAIN_START, 5 * MS, 10 * MS);
}

/* sh runs "producer | consumer": the consumer waits on the producer's writes */
static void test_chain_pipeline(void **state)
{
	__u32 sh, a, b, other;

	(void)state;
	u_reset();
	sh = proc(BS_NONE, 100, 0, 520 * MS, "sh");
	a = proc(sh, 101, 5 * MS, 500 * MS, "producer");
	b = proc(sh, 102, 6 * MS, 510 * MS, "consumer");
	other = proc(sh, 103, 7 * MS, 300 * MS, "unrelated");
	wait_on(a, 20 * MS, 490 * MS, BS_W_IRQ, 0);
	wait_on(b, 7 * MS, 100 * MS, BS_W_PROC, a);
	wait_on(b, 101 * MS, 499 * MS, BS_W_PROC, a);
	/* ended at once by its own thread: not a wait on anything outside */
	wait_on(b, 499 * MS + 10, 505 * MS, BS_W_PROC, b);
	wait_on(sh, 8 * MS, 300 * MS + 50, BS_W_PROC, other);
	wait_on(sh, 301 * MS, 510 * MS + 100, BS_W_PROC, b);
	/* a first run of a new thread is no wait */
	wait_on(sh, 515 * MS, 516 * MS, BS_W_NEW, 0);

	chain_is(BS_NONE,
		 { sh, KFIT_BOOTREP_CHAIN_END, 510 * MS + 100, 520 * MS },
		 { b, KFIT_BOOTREP_CHAIN_WAIT, 499 * MS, 510 * MS + 100 },
		 { a, KFIT_BOOTREP_CHAIN_WAIT, 5 * MS, 499 * MS },
		 { sh, KFIT_BOOTREP_CHAIN_START, 0, 5 * MS });
	assert_int_equal(links[1].self_n, 0);
	assert_int_equal(links[2].wait_ns, 398 * MS);
	assert_int_equal(links[2].self_kind, BS_W_IRQ);
	/* an explicit target, by its pid */
	chain_is(kfit_bootrep_proc_of_pid(&U, 103),
		 { other, KFIT_BOOTREP_CHAIN_END, 7 * MS, 300 * MS },
		 { sh, KFIT_BOOTREP_CHAIN_START, 0, 7 * MS });
}

/* Kernel threads and interrupts: the process waited on them itself */
static void test_chain_timer_waits(void **state)
{
	__u32 sh, dd;

	(void)state;
	u_reset();
	sh = proc(BS_NONE, 10, 0, 400 * MS, "sh");
	dd = proc(sh, 11, 10 * MS, 390 * MS, "dd|if=/dev/vda|bs=1M");
	wait_on(dd, 20 * MS, 50 * MS, BS_W_IRQ, 0);
	wait_on(dd, 60 * MS, 260 * MS, BS_W_KTHREAD, 0);
	wait_on(dd, 270 * MS, 300 * MS, BS_W_IRQ, 0);
	wait_on(sh, 30 * MS, 395 * MS, BS_W_PROC, dd);
	/* another thread's wait from before the link: only its part inside counts */
	wait_on(sh, 390 * MS, 398 * MS, BS_W_IRQ, 0);
	procs[dd].rd_bytes = 8 << 20;

	chain_is(BS_NONE,
		 { sh, KFIT_BOOTREP_CHAIN_END, 395 * MS, 400 * MS },
		 { dd, KFIT_BOOTREP_CHAIN_WAIT, 10 * MS, 395 * MS },
		 { sh, KFIT_BOOTREP_CHAIN_START, 0, 10 * MS });
	assert_int_equal(links[0].self_n, 1);
	assert_int_equal(links[0].self_ns, 3 * MS);
	assert_int_equal(links[1].self_n, 3);
	assert_int_equal(links[1].self_ns, 260 * MS);
	assert_int_equal(links[1].self_kind, BS_W_KTHREAD);
	assert_string_equal(links[1].self_comm, "kworker/0:1");
	assert_int_equal(links[2].self_n, 0);
}

/* Corrupt data: wakers that woke each other at once, parents in a cycle */
static void test_chain_cycles(void **state)
{
	__u32 a, b;
	size_t n, i;

	(void)state;
	u_reset();
	a = proc(1, 20, 5 * MS, 100 * MS, "a");
	b = proc(0, 21, 5 * MS, 95 * MS, "b");
	wait_on(a, 10 * MS, 90 * MS, BS_W_PROC, b);
	wait_on(b, 10 * MS, 90 * MS, BS_W_PROC, a);
	wait_on(b, 20 * MS, 60 * MS, BS_W_PROC, a);
	wait_on(a, 30 * MS, 60 * MS, BS_W_PROC, b);
	n = chain(a);
	assert_true(n > 0 && n < 10);
	for (i = 1; i < n; i++)
		assert_true(links[i].to_ns < links[i - 1].to_ns);
	/* a waits on b until 90; b on a until 60; a on b? no: not before 60 */
	link_is(0, a, KFIT_BOOTREP_CHAIN_END, 90 * MS, 100 * MS);
	link_is(1, b, KFIT_BOOTREP_CHAIN_WAIT, 60 * MS, 90 * MS);
	link_is(2, a, KFIT_BOOTREP_CHAIN_WAIT, 5 * MS, 60 * MS);

	/* a process that is its own parent */
	u_reset();
	a = proc(0, 30, 5 * MS, 10 * MS, "self");
	assert_int_equal(chain(a), 1);
}

/* Wakers and parents not recorded: the chain stays in the process or ends */
static void test_chain_dropped(void **state)
{
	__u32 sh, x, late;

	(void)state;
	u_reset();
	sh = proc(BS_NONE, 40, 10 * MS, 300 * MS, "sh");
	procs[sh].ppid = 39;
	x = proc(sh, 41, 20 * MS, 100 * MS, "x");
	late = proc(sh, 42, 250 * MS, 260 * MS, "late");
	wait_on(sh, 200 * MS, 290 * MS, BS_W_PROC, BS_NONE);
	wait_on(sh, 150 * MS, 190 * MS, BS_W_PROC, 4000);	/* dropped */
	/* woken "by" a process forked after the wake: not it */
	wait_on(sh, 110 * MS, 140 * MS, BS_W_PROC, late);
	wait_on(sh, 30 * MS, 100 * MS, BS_W_PROC, x);

	chain_is(sh,
		 { sh, KFIT_BOOTREP_CHAIN_END, 100 * MS, 300 * MS },
		 { x, KFIT_BOOTREP_CHAIN_WAIT, 20 * MS, 100 * MS },
		 { sh, KFIT_BOOTREP_CHAIN_START, 10 * MS, 20 * MS });
	assert_int_equal(links[0].self_n, 3);
	assert_int_equal(links[0].self_kind, BS_W_PROC);
	assert_int_equal(links[0].self_ns, 160 * MS);
	/* no such process, no processes, no room */
	assert_int_equal(chain(7), 0);
	assert_int_equal(kfit_bootrep_chain(&U, sh, links, 1), 1);
	assert_int_equal(kfit_bootrep_chain(&U, sh, links, 0), 0);
	assert_int_equal(kfit_bootrep_chain(NULL, BS_NONE, links, 4), 0);
	U.nprocs = 0;
	assert_int_equal(chain(BS_NONE), 0);
	assert_int_equal(kfit_bootrep_last(&U), BS_NONE);
}

/* A pid reused: indices tell the two apart; the living end now */
static void test_chain_alive_reuse(void **state)
{
	__u32 init, first, second, d;

	(void)state;
	u_reset();
	init = proc(BS_NONE, 1, 1 * MS, 0, "/sbin/init");
	first = proc(init, 77, 10 * MS, 20 * MS, "first");
	second = proc(init, 77, 30 * MS, 40 * MS, "second");
	d = proc(init, 80, 50 * MS, 0, "daemon");
	U.now_ns = 900 * MS;
	wait_on(init, 12 * MS, 20 * MS + 1, BS_W_PROC, first);
	wait_on(d, 60 * MS, 800 * MS, BS_W_PROC, second);	/* impossible, but kept apart */

	assert_int_equal(kfit_bootrep_proc_of_pid(&U, 77), second);
	assert_int_equal(kfit_bootrep_proc_of_pid(&U, 5), BS_NONE);
	assert_int_equal(kfit_bootrep_last(&U), second);
	chain_is(d,
		 { d, KFIT_BOOTREP_CHAIN_END, 800 * MS, 900 * MS },
		 { second, KFIT_BOOTREP_CHAIN_WAIT, 30 * MS, 800 * MS },
		 { init, KFIT_BOOTREP_CHAIN_START, 20 * MS + 1, 30 * MS },
		 { first, KFIT_BOOTREP_CHAIN_WAIT, 10 * MS, 20 * MS + 1 },
		 { init, KFIT_BOOTREP_CHAIN_START, 1 * MS, 10 * MS });
	/* nothing exited: the last one started */
	procs[first].flags &= ~BS_P_EXITED;
	procs[first].exit_ns = 0;
	procs[second].flags &= ~BS_P_EXITED;
	procs[second].exit_ns = 0;
	assert_int_equal(kfit_bootrep_last(&U), d);
}

static void test_cmdline(void **state)
{
	char b[BS_ARGS + 8];
	struct bs_proc p;

	(void)state;
	memset(&p, 0, sizeof(p));
	snprintf(p.comm, sizeof(p.comm), "kworker");
	assert_string_equal(kfit_bootrep_cmdline(&p, b, sizeof(b)), "[kworker]");
	memcpy(p.args, "dd\0if=/dev/vda\0bs=1M\0", 21);
	p.args_len = 21;
	assert_string_equal(kfit_bootrep_cmdline(&p, b, sizeof(b)), "dd if=/dev/vda bs=1M");
	p.args[2] = '\n';
	p.flags = BS_P_ARGS_CUT;
	assert_string_equal(kfit_bootrep_cmdline(&p, b, sizeof(b)), "dd?if=/dev/vda bs=1M...");
	assert_string_equal(kfit_bootrep_cmdline(&p, b, 6), "dd?if");
	p.args_len = 9999;	/* beyond the array: cut to it */
	memset(p.args, 'x', BS_ARGS);
	assert_int_equal(strlen(kfit_bootrep_cmdline(&p, b, sizeof(b))), BS_ARGS + 3);
}

/* ---- kernel phases by hand ---- */

static struct kfit_bootlog_initcall calls[4096];
static struct kfit_bootlog_initlevel levels[32];
static struct kfit_bootlog K;

static void k_reset(void)
{
	memset(calls, 0, sizeof(calls));
	memset(levels, 0, sizeof(levels));
	memset(&K, 0, sizeof(K));
	K.src = KFIT_BOOTLOG_DMESG;
	K.calls = calls;
	K.levels = levels;
	K.complete = true;
	snprintf(K.uname, sizeof(K.uname), "Linux version 6.12.117+deb12-amd64 "
		 "(debian-kernel@lists.debian.org) #1 SMP");
	snprintf(K.init_path, sizeof(K.init_path), "/init");
}

static void call(const char *level, const char *fn, const char *mod, __u64 start,
		 __u64 dur, int ret, bool finished)
{
	struct kfit_bootlog_initcall *c = &calls[K.ncalls++];

	assert_true(K.ncalls <= 4096);
	snprintf(c->fn, sizeof(c->fn), "%s", fn);
	snprintf(c->module, sizeof(c->module), "%s", mod);
	snprintf(c->level, sizeof(c->level), "%s", level);
	c->start_ns = start;
	c->dur_ns = finished ? dur : 0;
	c->end_ns = finished ? start + dur : 0;
	c->ret = ret;
	c->pid = 1;
	c->finished = finished;
	if (start + dur > K.last_ns)
		K.last_ns = start + dur;
}

/* Levels from the calls, in order of appearance (bootlog.c does it for real) */
static void sum_levels(void)
{
	size_t i, l;

	K.nlevels = 0;
	for (i = 0; i < K.ncalls; i++) {
		const struct kfit_bootlog_initcall *c = &calls[i];

		if (!c->level[0])
			continue;
		for (l = 0; l < K.nlevels && strcmp(levels[l].name, c->level); l++)
			;
		if (l == K.nlevels) {
			snprintf(levels[l].name, sizeof(levels[l].name), "%s", c->level);
			levels[l].start_ns = c->start_ns;
			K.nlevels++;
		}
		levels[l].n++;
		levels[l].sum_ns += c->dur_ns;
		if (c->start_ns + c->dur_ns > levels[l].end_ns)
			levels[l].end_ns = c->start_ns + c->dur_ns;
	}
}

static void small_kernel(void)
{
	k_reset();
	call("early", "init_hw_perf_events", "", 100 * MS, 3 * MS, 0, true);
	call("core", "slow_core", "", 200 * MS, 50 * MS, 0, true);
	call("device", "virtio_blk_init", "", 300 * MS, 20 * MS, 0, true);
	call("device", "no_hw_init", "", 330 * MS, 1 * MS, -19, true);
	call("device", "odd_ret", "", 340 * MS, 500000, 5, true);
	call("late", "hangs_init", "", 400 * MS, 0, 0, false);
	call("module", "dummy_init_module", "[dummy]", 2500 * MS, 7 * MS, 0, true);
	sum_levels();
	K.init_ns = 1500 * MS;
	K.first_ns = 0;
}

/* ---- capture ---- */

static char *text_of(const struct kfit_bootlog *k, const struct kfit_bootrep_user *u,
		     const struct kfit_bootrep_opts *o)
{
	struct t_cap c;

	kfit_bootrep_text(t_cap_open(&c), k, u, o);
	return t_cap_close(&c);
}

/* Where WHAT is in S after FROM (which must hold it) */
static const char *after(const char *s, const char *from, const char *what)
{
	const char *p = strstr(from ? from : s, what);

	if (!p) {
		fprintf(stderr, "in:\n%s\n", s);
		fail_msg("\"%s\" not found", what);
	}
	return p;
}

/* The strings of the list in S in this order from FROM: where the last is */
#define in_order(s, from, ...) in_order_of(s, from, T_STRS(__VA_ARGS__))
static const char *in_order_of(const char *s, const char *from,
			       const char *const *what)
{
	for (; *what; what++)
		from = after(s, from, *what);
	return from;
}

/* Each string of the list somewhere in S */
#define in_text(s, ...) in_text_of(s, T_STRS(__VA_ARGS__))
static void in_text_of(const char *s, const char *const *what)
{
	for (; *what; what++)
		after(s, NULL, *what);
}

/* The line of S holding WHAT */
static char *line_of(const char *s, const char *what, char *buf, size_t len)
{
	const char *p = after(s, NULL, what), *b = p, *e = strchrnul(p, '\n');

	while (b > s && b[-1] != '\n')
		b--;
	snprintf(buf, len, "%.*s", (int)(e - b), b);
	return buf;
}

static void test_text_kernel(void **state)
{
	struct kfit_bootrep_opts o = { .chain_target = BS_NONE, .note = "the trace "
				       "buffer starts late; dmesg has all 7" };
	const char *p, *slow;
	char *t, l[256];

	(void)state;
	small_kernel();
	t = text_of(&K, NULL, &o);
	in_text(t,
		"Boot of 6.12.117+deb12-amd64: kernel 1.500 s to /init, "
		  "user space not recorded\n",
		"Kernel phase (dmesg with initcall_debug):\n  sources: the trace "
		  "buffer starts late; dmesg has all 7\n",
		"  kernel start to /init: 1.500 s; 7 initcalls, 0.082 s in them; "
		  "2 failed; 1 unfinished\n");
	/* levels in boot order, with units */
	p = in_order(t, NULL,
		     "  LEVEL   START s  END s  INITCALLS  TIME ms\n",
		     "  early     0.100  0.103          1    3.000\n",
		     "  core      0.200  0.250          1   50.000\n",
		     "  device    0.300  0.341          3   21.500\n",
		     "  module    2.500  2.507          1    7.000\n");
	/* the slowest, slowest first: finished ones only */
	slow = after(t, NULL, "  Slowest initcalls (6 of 6 finished):\n");
	p = in_order(t, slow,
		     "    START s  TIME ms  LEVEL          RET  FUNCTION\n",
		     "slow_core\n",
		     "virtio_blk_init\n",
		     "dummy_init_module [dummy]\n",
		     "init_hw_perf_events\n",
		     "no_hw_init\n",
		     "odd_ret\n");
	line_of(slow, "no_hw_init", l, sizeof(l));
	assert_string_equal(l, "      0.330    1.000  device  -19 ENODEV  no_hw_init");
	after(t, NULL, "  late      0.400  0.400          1    0.000\n");
	/* failed and unfinished, whatever their time */
	p = in_order(t, NULL,
		     "  Failed initcalls (RET != 0; negative: -errno):\n",
		     "no_hw_init\n",
		     "      0.340    0.500  device           5  odd_ret\n",
		     "  Unfinished initcalls (started, no return in the record):\n",
		     "      0.400        -  late     -  hangs_init\n");
	after(t, p, "User space: not recorded. Boot with bootsum as the first process");
	after(t, NULL, "Lost: none\n");
	free(t);

	/* --min 5ms and -n 2: the two slowest of those at least 5 ms */
	o.min_ns = 5 * MS;
	o.top = 2;
	t = text_of(&K, NULL, &o);
	slow = after(t, NULL, "  Slowest initcalls (2 of 6 finished; 3 shorter than "
		     "5.00ms not listed):\n");
	p = in_order(t, slow,
		     "slow_core\n",
		     "virtio_blk_init\n");
	assert_null(strstr(slow, "dummy_init_module [dummy]\n"));
	/* failed ones stay listed under --min */
	after(t, slow, "no_hw_init\n");
	free(t);
}

/* A small scripted boot: init, sh, its children, a module, drops */
static void small_user(void)
{
	__u32 init, sh, sl, dd, fl;

	u_reset();
	U.offset_ns = 2 * MS;
	U.meta.early_ns = 1000 * MS;
	U.meta.exec_ns = 1001 * MS;
	snprintf(U.meta.init_path, sizeof(U.meta.init_path), "/init");
	init = proc(BS_NONE, 1, 1000 * MS, 0, "/init");
	procs[init].flags |= BS_P_PREEXIST;
	sh = proc(init, 60, 1010 * MS, 2100 * MS, "sh|-c|sleep 1; dd");
	sl = proc(sh, 61, 1020 * MS, 2030 * MS, "sleep|1");
	dd = proc(sh, 62, 2035 * MS, 2095 * MS, "dd|if=/dev/vda|of=/dev/null");
	fl = proc(init, 63, 1005 * MS, 1008 * MS, "false");
	procs[fl].exit_code = 1 << 8;
	procs[dd].rd_bytes = 4 << 20;
	procs[dd].rd_ios = 4;
	wait_on(sl, 1021 * MS, 2029 * MS, BS_W_IRQ, 0);
	wait_on(sh, 1021 * MS, 2030 * MS + 50, BS_W_PROC, sl);
	wait_on(dd, 2040 * MS, 2090 * MS, BS_W_IRQ, 0);
	wait_on(sh, 2036 * MS, 2095 * MS + 10, BS_W_PROC, dd);
	wait_on(init, 1011 * MS, 2100 * MS + 20, BS_W_PROC, sh);
	snprintf(mods[0].name, sizeof(mods[0].name), "dummy");
	snprintf(mods[0].init_sym, sizeof(mods[0].init_sym), "dummy_init_module");
	mods[0].load_ns = 1500 * MS;
	mods[0].init_start_ns = 1501 * MS;
	mods[0].init_end_ns = 1507 * MS;
	mods[0].pid = 60;
	mods[0].loader_idx = sh;
	U.nmods = 1;
	U.now_ns = 3000 * MS;
}

static void test_text_user(void **state)
{
	struct kfit_bootrep_opts o = { .chain_target = BS_NONE };
	const char *p, *tl, *slow;
	char *t, l[256];

	(void)state;
	small_user();
	t = text_of(NULL, &U, &o);
	in_text(t,
		"Boot: kernel phase not recorded, user space 1.100 s recorded\n",
		"Kernel phase: not recorded. Boot with initcall_debug",
		"User space (bootsum --early from 1.002 s; found pinned at "
		  "/sys/fs/bpf/kfit/bootsum):\n  init: /init, exec'd at 1.003 s\n"
		  "  5 processes (0 dropped), 5 waits (0 dropped), 1 module (0 dropped)\n");
	assert_null(strstr(t, "kernel offset unknown"));
	/* the timeline in start order, kernel-clock seconds */
	tl = after(t, NULL, "  Timeline (5 of 5 processes; TIME +: still running):\n");
	p = in_order(t, tl,
		     "    START s    TIME ms  PID  PPID  EXIT   CPU ms  RUNQ ms  BLOCK ms  "
		       "IO KiB r/w  COMMAND\n",
		     "/init\n",
		     "false\n",
		     "sh -c sleep 1; dd\n",
		     "sleep 1\n",
		     "dd if=/dev/vda of=/dev/null\n");
	line_of(tl, "/init", l, sizeof(l));
	assert_string_equal(l, "      1.002  2000.000+    1     0     -    0.000    0.000  "
			    "1089.000         0/0  /init");
	line_of(tl, "false", l, sizeof(l));
	assert_string_equal(l, "      1.007      3.000   63     1     1    0.300    0.000     "
			    "0.000         0/0  false");
	line_of(tl, "dd if", l, sizeof(l));
	assert_non_null(strstr(l, "  4096/0  dd if"));
	/* the slowest: living init first */
	slow = after(t, NULL, "  Slowest processes (5 of 5):\n");
	p = in_order(t, slow,
		     "/init\n",
		     "sh -c sleep 1; dd\n",
		     "sleep 1\n",
		     "dd if=/dev/vda of=/dev/null\n",
		     "false\n");
	/* the chain: sh exited last; dd woke it; sh forked dd after sleep woke it */
	p = in_order(t, NULL,
		     "  Critical chain (ending at PID 60 \"sh -c sleep 1; dd\", the "
		       "last to exit, at 2.102 s;",
		     "    END s   SPAN ms  PROCESS\n",
		     "    2.102     5.000  sh -c sleep 1; dd (60)\n",
		     "    2.097    60.000  └ dd if=/dev/vda of=/dev/null (62): woke the one "
		       "above, which had waited 59.0ms for it; 50.0ms of it blocked on timers "
		       "or I/O (woken by interrupts)\n",
		     "    2.037     5.000  └ sh -c sleep 1; dd (60): forked the one above\n",
		     "    2.032  1010.000  └ sleep 1 (61): woke the one above, which had "
		       "waited 1.01s for it; 1.01s of it blocked on timers or I/O (woken by "
		       "interrupts)\n",
		     "    1.022    10.000  └ sh -c sleep 1; dd (60): forked the one above\n",
		     "    1.012    10.000  └ /init (1): forked the one above\n",
		     "    (PID 1 was there when recording began)\n",
		     "  Modules:\n    LOAD s  INIT ms  RET  MODULE  INIT FUNCTION      "
		       "LOADED BY\n     1.502    6.000    0  dummy   dummy_init_module  "
		       "sh -c sleep 1; dd (60)\n");
	after(t, p, "Lost: none\n");
	free(t);

	/* --min: short ones out of the timeline unless -v; drops shown; offset unknown */
	o.min_ns = 50 * MS;
	U.meta.drop_procs = 3;
	U.meta.unknown_tgid = 12;
	U.offset_known = false;
	U.offset_ns = 0;
	t = text_of(NULL, &U, &o);
	after(t, NULL, "  (user times on the boot clock; kernel offset unknown)\n");
	tl = after(t, NULL, "  Timeline (4 of 5 processes; 1 shorter than 50.0ms not "
		   "listed, -v lists them; TIME +: still running):\n");
	slow = after(t, tl, "  Slowest processes (4 of 5; 1 shorter than 50.0ms not listed):\n");
	assert_null(strstr(tl, "false\n"));
	in_text(t,
		"5 processes (3 dropped)",
		"Lost: 3 processes (bs_procs full: --max-procs), 12 events of "
		  "processes started before recording\n");
	free(t);
	o.timeline_all = true;
	t = text_of(NULL, &U, &o);
	tl = after(t, NULL, "  Timeline (5 of 5 processes; TIME +: still running):\n");
	after(t, tl, "false\n");
	free(t);
	/* --chain: a given process */
	o.chain_target = 2;
	t = text_of(NULL, &U, &o);
	after(t, NULL, "  Critical chain (ending at PID 61 \"sleep 1\", exited at 2.030 s;");
	free(t);
}

static unsigned int seed = 12345;

static unsigned int rnd(unsigned int n)
{
	seed = seed * 1103515245 + 12345;
	return (seed >> 8) % n;
}

/* Many processes: a script's short children in batches, some in parallel */
static void many_procs(__u32 parent, size_t n, __u64 t0)
{
	__u64 t = t0;
	size_t i;
	char args[64];

	for (i = 0; i < n; i++) {
		__u64 dur = (1 + rnd(40)) * MS / 10 + (rnd(50) ? 0 : rnd(400) * MS);
		__u32 idx;

		snprintf(args, sizeof(args), "helper-%zu|--arg=%u", i, rnd(1000));
		idx = proc(parent, 1000 + i, t, t + dur, args);
		wait_on(idx, t + dur / 4, t + dur / 2, rnd(2) ? BS_W_IRQ : BS_W_KTHREAD, 0);
		wait_on(parent, t + 1000, t + dur + 500, BS_W_PROC, idx);
		t += rnd(4) ? dur + 200000 : dur / 3;
	}
}

/* A script's short commands one after another: summed up in the chain unless -v */
static void test_text_chain_runs(void **state)
{
	struct kfit_bootrep_opts o = { .chain_target = BS_NONE, .min_ns = 10 * MS };
	char *t, want[160];
	const char *p;
	size_t n, i;
	__u32 sh;

	(void)state;
	u_reset();
	sh = proc(BS_NONE, 70, 0, 0, "sh");
	for (i = 0; i < 30; i++) {
		__u32 c = proc(sh, 100 + i, (1 + 3 * i) * MS, (3 + 3 * i) * MS, "true");

		wait_on(sh, (1 + 3 * i) * MS + 10000, (3 + 3 * i) * MS + 10000, BS_W_PROC, c);
	}
	procs[sh].exit_ns = 2000 * MS;
	procs[sh].flags |= BS_P_EXITED;
	wait_on(sh, 1500 * MS, 1990 * MS, BS_W_IRQ, 0);
	n = kfit_bootrep_chain(&U, BS_NONE, links, 64);
	assert_int_equal(n, 61);
	for (i = 1; i < n; i++)
		assert_true(links[i].to_ns - links[i].from_ns < 10 * MS);
	t = text_of(NULL, &U, &o);
	/* the target, then all the short ones in one line */
	p = after(t, NULL, "    END s   SPAN ms  PROCESS\n    2.000  1909.990  sh (70); 490ms "
		  "of it blocked on timers or I/O (woken by interrupts)\n");
	snprintf(want, sizeof(want), "  └ ... %zu links under 10.0ms each (-v lists them)\n"
		 "  Modules", n - 1);
	after(t, p, want);
	free(t);
	/* -v: each of them; where the chain stops */
	o.timeline_all = true;
	procs[sh].ppid = 5;
	t = text_of(NULL, &U, &o);
	p = after(t, NULL, "  END s");
	for (i = 1; i < n; i++)
		p = after(t, p + 1, "  └ ");
	assert_null(strstr(p + 1, "  └ "));
	after(t, p, "  └ sh (70): forked the one above\n    (its parent, PID 5, was not "
	      "recorded)\n");
	free(t);
}

/* Nothing recorded, nothing in the records: messages, no crash */
static void test_text_empty(void **state)
{
	struct kfit_bootlog k;
	char *t;

	(void)state;
	t = text_of(NULL, NULL, NULL);
	in_text(t,
		"Boot: kernel phase not recorded, user space not recorded\n",
		"Kernel phase: not recorded.",
		"User space: not recorded.");
	assert_null(strstr(t, "Lost"));
	free(t);

	memset(&k, 0, sizeof(k));
	k.src = KFIT_BOOTLOG_DMESG;
	u_reset();
	t = text_of(&k, &U, NULL);
	in_text(t,
		"Boot: kernel phase without its end, user space 0.000 s recorded\n",
		"Kernel phase (dmesg): no initcalls in the record: boot with "
		  "initcall_debug",
		"  0 processes (0 dropped), 0 waits (0 dropped), 0 modules (0 dropped)\n"
		  "  no processes recorded\n  Modules: none loaded\nLost: none\n");
	free(t);
	/* without initcalls, dmesg still tells when the first process ran */
	k.init_ns = 448740000;
	strcpy(k.init_path, "/sbin/init");
	t = text_of(&k, NULL, NULL);
	after(t, NULL, "Kernel phase (dmesg): kernel start to /sbin/init: 0.449 s; no "
	      "initcalls in the record");
	free(t);
	k.init_ns = 0;
	k.init_path[0] = 0;
	/* a dmesg read without --kallsyms: the levels are unknown, and said */
	{
		struct kfit_bootlog_initcall c = { .fn = "foo_init", .start_ns = 1000,
					   .end_ns = 3000, .dur_ns = 2000, .finished = true };

		k.calls = &c;
		k.ncalls = 1;
		t = text_of(&k, NULL, NULL);
		after(t, NULL, "  levels: 1 initcall not named in the record (dmesg has no "
		      "level lines; --kallsyms FILE");
		free(t);
		k.calls = NULL;
		k.ncalls = 0;
	}
	/* garbled and lost kernel records are said */
	k.garbled = 2;
	k.entries_written = 100;
	k.entries_in_buffer = 60;
	k.log_start_lost = true;
	t = text_of(&k, NULL, NULL);
	after(t, NULL, "Lost: 2 garbled kernel log lines, 40 trace entries overwritten "
	      "(trace_buf_size= larger), the kernel log's beginning (log_buf_len= larger)\n");
	free(t);
}

/* ---- JSON ---- */

static char *json_of(const struct kfit_bootlog *k, const struct kfit_bootrep_user *u,
		     const struct kfit_bootrep_opts *o)
{
	struct t_cap c;

	kfit_bootrep_json(t_cap_open(&c), k, u, o);
	return t_cap_close(&c);
}

static void test_json(void **state)
{
	struct kfit_bootrep_opts o = { .chain_target = BS_NONE, .min_ns = 1000 * MS,
				       .top = 1, .note = "a \"note\"\n" };
	char *j;

	(void)state;
	if (!t_have("jq"))
		fail_msg("jq not found: make deps installs it");
	small_kernel();
	small_user();
	snprintf(procs[4].args, sizeof(procs[4].args), "we<i>rd\"\\");
	procs[4].args[3] = '\t';
	procs[4].args_len = strlen(procs[4].args) + 1;
	j = json_of(&K, &U, &o);
	/* one object, on one line */
	assert_non_null(strchr(j, '\n'));
	assert_int_equal(strchr(j, '\n') - j + 1, strlen(j));
	assert_true(t_jq(j, ".kernel.source == \"dmesg\" and .kernel.complete and "
		       ".kernel.note == \"a \\\"note\\\"\\n\" and .kernel.init_ns == 1500000000"));
	/* all of them, whatever --min and -n */
	t_jq_all(j,
		 ".kernel.initcalls | length == 7",
		 ".kernel.initcalls[3] == {fn: \"no_hw_init\", module: \"\", "
		   "level: \"device\", start_ns: 330000000, finished: true, end_ns: "
		   "331000000, dur_ns: 1000000, ret: -19, errno: \"ENODEV\", pid: 1}",
		 ".kernel.initcalls[5] | .finished == false and (has(\"ret\") | not)",
		 "[.kernel.failed[].fn] == [\"no_hw_init\", \"odd_ret\"]",
		 "[.kernel.levels[].name] == [\"early\", \"core\", \"device\", "
		   "\"late\", \"module\"] and .kernel.levels[2].sum_ns == 21500000",
		 ".user.processes | length == 5",
		 ".user.processes[2] | .pid == 61 and .parent_idx == 1 and "
		   ".argv == [\"sleep\", \"1\"] and .waits == 1 and .fork_ns == 1020000000 "
		   "and .exit_ns == 2030000000 and .alive == false",
		 ".user.processes[0] | .alive and .preexisting and .parent_idx == null",
		 ".user.processes[4].cmdline == \"we<?>rd\\\"\\\\\"",
		 "[.user.chain[] | [.pid, .why]] == [[60, \"end\"], [62, \"woke\"], "
		   "[60, \"forked\"], [61, \"woke\"], [60, \"forked\"], [1, \"forked\"]]",
		 ".user.chain[1] | .self_waker == \"irq\" and .self_wait_ns == "
		   "50000000 and .wait_ns == 59000010",
		 ".user | .offset_ns == 2000000 and .offset_known and .chain_target == 1 "
		   "and .modules[0].name == \"dummy\" and .modules[0].loader_idx == 1 "
		   "and .dropped.procs == 0 and .init_path == \"/init\"");
	free(j);

	/* phases not recorded are null; no processes: an empty chain */
	j = json_of(NULL, NULL, NULL);
	assert_true(t_jq(j, ". == {kernel: null, user: null}"));
	free(j);
	u_reset();
	j = json_of(NULL, &U, NULL);
	assert_true(t_jq(j, ".user.processes == [] and .user.chain == [] and "
		       ".user.chain_target == null"));
	free(j);
}

/* ---- SVG ---- */

static void check_xml(const char *svg)
{
	char path[64], cmd[128];

	if (!t_have("xmllint"))
		fail_msg("xmllint not found: make deps installs libxml2-utils");
	t_to_file(svg, path, sizeof(path), "bootrep", ".svg");
	snprintf(cmd, sizeof(cmd), "xmllint --noout '%s'", path);
	if (system(cmd)) {
		fprintf(stderr, "the SVG is kept in %s\n", path);
		fail_msg("xmllint refuses the SVG");
	}
	unlink(path);
}

static char *svg_of(const struct kfit_bootlog *k, const struct kfit_bootrep_user *u,
		    const struct kfit_bootrep_opts *o)
{
	struct t_cap c;

	assert_int_equal(kfit_bootrep_svg(t_cap_open(&c), k, u, o), 0);
	return t_cap_close(&c);
}

/*
 * No two bars of class CLS in one row overlap by more than the 0.4 px a
 * bar is drawn at least and the rounding of the coordinates. Returns the
 * number of bars.
 */
static int check_rows(const char *svg, const char *cls)
{
	struct bar {
		double x, w;
		int y;
	} *v = NULL;
	char pat[32];
	const char *p = svg;
	int n = 0, i, j;

	snprintf(pat, sizeof(pat), "class=\"%s\">", cls);
	while ((p = strstr(p, "<rect x=\""))) {
		const char *e = strchr(p, '>');
		struct bar b;

		if (e && !strncmp(e - strlen(pat) + 1, pat, strlen(pat)) &&
		    sscanf(p, "<rect x=\"%lf\" y=\"%d\" width=\"%lf\"", &b.x, &b.y, &b.w) == 3) {
			v = realloc(v, (n + 1) * sizeof(*v));
			assert_non_null(v);
			v[n++] = b;
		}
		p++;
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (v[i].y == v[j].y && v[i].x < v[j].x + v[j].w - 0.5 &&
			    v[j].x < v[i].x + v[i].w - 0.5)
				fail_msg("%s bars overlap: x %.1f w %.1f and x %.1f w %.1f at y %d",
					 cls, v[i].x, v[i].w, v[j].x, v[j].w, v[i].y);
	free(v);
	return n;
}

static void test_svg_small(void **state)
{
	struct kfit_bootrep_opts o = { .chain_target = BS_NONE, .note = "<note> & \"more\"" };
	char *s;

	(void)state;
	small_kernel();
	small_user();
	call("late", "x<y>&\"z\"", "[m&m]", 1400 * MS, 10 * MS, 0, true);
	snprintf(procs[4].args, sizeof(procs[4].args), "echo <&>\"'");
	procs[4].args_len = strlen(procs[4].args) + 1;
	s = svg_of(&K, &U, &o);
	check_xml(s);
	t_has_all(s,
		  "viewBox=\"0 0 1600 ",
		  "<title>x&lt;y&gt;&amp;&quot;z&quot; [m&amp;m] (late): "
		    "10.000 ms from 1.400 s, ret 0</title>",
		  "echo &lt;&amp;&gt;&quot;&apos;",
		  "(&lt;note&gt; &amp; &quot;more&quot;)");
	/* every initcall and process a bar with a title; failed, unfinished, alive */
	assert_int_equal(check_rows(s, "i") + check_rows(s, "if") + check_rows(s, "iu"), 8);
	assert_int_equal(check_rows(s, "if"), 2);
	assert_int_equal(check_rows(s, "iu"), 1);
	assert_int_equal(check_rows(s, "p") + check_rows(s, "pf") + check_rows(s, "pa"), 5);
	assert_int_equal(check_rows(s, "pa"), 1);
	assert_int_equal(check_rows(s, "m"), 1);
	/* levels shaded and named */
	assert_non_null(strstr(s, "<title>level core: 0.200 to 0.250 s, 1 initcalls, "
			       "50.000 ms in them</title>"));
	/* the chain outlined: one rect per link */
	assert_int_equal(t_count(s, "class=\"c\""), 6);
	assert_non_null(strstr(s, ">/init 1.500 s</text>"));
	assert_null(strstr(s, "kernel offset unknown"));
	free(s);

	/* phases missing, nothing in them */
	s = svg_of(NULL, NULL, NULL);
	check_xml(s);
	t_has_all(s,
		  "Kernel phase: not recorded",
		  "User space: not recorded");
	free(s);
	u_reset();
	U.offset_known = false;
	k_reset();
	s = svg_of(&K, &U, NULL);
	check_xml(s);
	t_has_all(s,
		  "no initcalls in the record",
		  "no processes recorded",
		  "(user times on the boot clock; kernel offset unknown)");
	free(s);
}

/* Writing to a full device: the error comes back */
static void test_svg_write_error(void **state)
{
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (!f)
		skip();
	small_kernel();
	small_user();
	assert_int_equal(kfit_bootrep_svg(f, &K, &U, NULL), -EIO);
	fclose(f);
}

/* The SVG into the file named by the environment variable ENV, if set */
static void keep(const char *svg, const char *env)
{
	const char *path = getenv(env);
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(svg, f);
	assert_int_equal(fclose(f), 0);
}

/* ~3000 initcalls, 4000 processes: a reasonable size, valid, rows sound */
static void test_svg_big(void **state)
{
	struct kfit_bootrep_opts o = { .chain_target = BS_NONE };
	__u64 t = 0;
	size_t i;
	char fn[32], *s;
	__u32 init;

	(void)state;
	k_reset();
	for (i = 0; i < 3000; i++) {
		__u64 dur = rnd(30) ? rnd(200) * KFIT_USEC : rnd(80) * MS;

		snprintf(fn, sizeof(fn), "init_%zu", i);
		call(i < 1000 ? "core" : i < 2500 ? "device" : "late", fn, "", t, dur,
		     rnd(20) ? 0 : -19, true);
		/* a few in parallel (async probing) */
		t += rnd(10) ? dur + 5000 : dur / 2;
	}
	sum_levels();
	K.init_ns = t + MS;
	u_reset();
	init = proc(BS_NONE, 1, t + MS, 0, "/init");
	many_procs(init, 3999, t + 2 * MS);
	U.now_ns = 100ULL * KFIT_SEC;
	s = svg_of(&K, &U, &o);
	check_xml(s);
	keep(s, "KFIT_SVG_BIG_OUT");
	assert_true(strlen(s) < 2600000);
	assert_int_equal(check_rows(s, "i") + check_rows(s, "if"), 3000);
	assert_int_equal(check_rows(s, "p") + check_rows(s, "pa"), 4000);
	free(s);
}

/* A real 6.12 boot's initcalls and a scripted user space; KFIT_SVG_OUT keeps it */
static void load_calls(void)
{
	char line[256], level[16], fn[64], mod[56];
	unsigned long long start, dur;
	int ret, fin, pid, n;
	FILE *f = fopen(KFIT_TOP "/tests/fixtures/bootrep/calls.txt", "r");

	assert_non_null(f);
	k_reset();
	K.src = KFIT_BOOTLOG_TRACE;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		mod[0] = 0;
		n = sscanf(line, "%llu %llu %d %d %d %15s %63s %55s", &start, &dur, &ret,
			   &fin, &pid, level, fn, mod);
		assert_true(n >= 7);
		call(strcmp(level, "-") ? level : "", fn, mod, start, dur, ret, fin);
		calls[K.ncalls - 1].pid = pid;
	}
	fclose(f);
	sum_levels();
	K.init_ns = 3448546000ULL;
}

static void sample_user(void)
{
	__u32 init, sh, udev, mp, sl, dd, rd, gr, wr, x;
	__u64 t = 3448 * MS;

	u_reset();
	U.meta.early_ns = t - 1 * MS;
	U.offset_ns = 1 * MS;
	init = proc(BS_NONE, 1, t - 2 * MS, 0, "/init");
	procs[init].flags |= BS_P_PREEXIST;
	sh = proc(init, 70, t + 5 * MS, 6020 * MS, "sh|/etc/boot.sh");
	wait_on(init, t + 6 * MS, 6020 * MS + 30, BS_W_PROC, sh);
	udev = proc(sh, 71, t + 10 * MS, 0, "udevd|--daemon");
	x = proc(sh, 72, t + 30 * MS, 3700 * MS, "udevadm|trigger|--action=add");
	wait_on(sh, t + 31 * MS, 3700 * MS + 20, BS_W_PROC, x);
	wait_on(x, t + 40 * MS, 3690 * MS, BS_W_PROC, udev);
	mp = proc(sh, 73, 3705 * MS, 3885 * MS, "modprobe|dummy");
	wait_on(mp, 3720 * MS, 3870 * MS, BS_W_IRQ, 0);
	wait_on(sh, 3706 * MS, 3885 * MS + 20, BS_W_PROC, mp);
	snprintf(mods[0].name, sizeof(mods[0].name), "dummy");
	snprintf(mods[0].init_sym, sizeof(mods[0].init_sym), "dummy_init_module");
	mods[0].load_ns = 3873 * MS;
	mods[0].init_start_ns = 3873900000ULL;
	mods[0].init_end_ns = 3880 * MS;
	mods[0].pid = 73;
	mods[0].loader_idx = mp;
	U.nmods = 1;
	many_procs(sh, 120, 3890 * MS);
	dd = proc(sh, 90, 4500 * MS, 4900 * MS, "dd|if=/dev/vda|of=/dev/null|bs=1M");
	procs[dd].rd_bytes = 64 << 20;
	wait_on(dd, 4510 * MS, 4890 * MS, BS_W_IRQ, 0);
	wait_on(sh, 4501 * MS, 4900 * MS + 20, BS_W_PROC, dd);
	rd = proc(sh, 91, 4910 * MS, 5000 * MS, "dmesg");
	gr = proc(sh, 92, 4911 * MS, 5005 * MS, "grep|-c|<&> initcall");
	wait_on(gr, 4915 * MS, 4999 * MS, BS_W_PROC, rd);
	wait_on(sh, 4912 * MS, 5005 * MS + 20, BS_W_PROC, gr);
	procs[gr].exit_code = 1 << 8;
	sl = proc(sh, 93, 5010 * MS, 6010 * MS, "sleep|1");
	wait_on(sl, 5011 * MS, 6009 * MS, BS_W_IRQ, 0);
	wait_on(sh, 5011 * MS, 6010 * MS + 20, BS_W_PROC, sl);
	wr = proc(sh, 94, 5020 * MS, 5400 * MS, "sh|-c|kill -9 $$");
	procs[wr].exit_code = 9;	/* SIGKILL */
	U.now_ns = 6100 * MS;
}

static void test_svg_sample(void **state)
{
	struct kfit_bootrep_opts o = { .chain_target = BS_NONE, .note = "the trace has "
				       "every initcall from level console on" };
	char *s;

	(void)state;
	load_calls();
	assert_int_equal(K.ncalls, 745);
	sample_user();
	s = svg_of(&K, &U, &o);
	check_xml(s);
	assert_int_equal(check_rows(s, "i") + check_rows(s, "if"), 745);
	keep(s, "KFIT_SVG_OUT");
	free(s);
	if (getenv("KFIT_TEXT_OUT")) {
		s = text_of(&K, &U, &o);
		fputs(s, stdout);
		free(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_parent_child),
		cmocka_unit_test(test_chain_pipeline),
		cmocka_unit_test(test_chain_timer_waits),
		cmocka_unit_test(test_chain_cycles),
		cmocka_unit_test(test_chain_dropped),
		cmocka_unit_test(test_chain_alive_reuse),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_text_kernel),
		cmocka_unit_test(test_text_user),
		cmocka_unit_test(test_text_chain_runs),
		cmocka_unit_test(test_text_empty),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_svg_small),
		cmocka_unit_test(test_svg_write_error),
		cmocka_unit_test(test_svg_big),
		cmocka_unit_test(test_svg_sample),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
