// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <cmocka.h>
#include "opts.h"
#include "testlib.h"

#define ARGS(...) ((const char *[]){ __VA_ARGS__, NULL })
#define TRY "Try 'softirqlat --help' for more information.\n"
#define KEY_STACK 0x100

struct tool_ctx {
	unsigned long step;
	bool stack;
	int calls;
};

static struct tool_ctx ctx;

static int tool_parse(int key, const char *arg, void *p)
{
	struct tool_ctx *tc = p;

	tc->calls++;
	switch (key) {
	case 'L':
		if (kfit_opts_parse_uint(arg, ULONG_MAX, &tc->step)) {
			fprintf(stderr, "softirqlat: bad step '%s'\n", arg);
			return -1;
		}
		return 0;
	case KEY_STACK:
		tc->stack = true;
		return 0;
	}
	return -1;
}

static const struct kfit_opt tool_opts[] = {
	{ "linear", 'L', "STEP", "linear histogram in steps of STEP ns" },
	{ "stack", KEY_STACK, NULL, "show stacks" },
	{ NULL },
};

/* Everything but -T/--timestamp, so that one is "unrecognized" */
static const struct kfit_tool tool = {
	.name = "softirqlat",
	.summary = "Soft IRQ latency.",
	.synopsis = "[OPTIONS]",
	.examples = "softirqlat -d 5s",
	.common = KFIT_OPT_PID | KFIT_OPT_TID | KFIT_OPT_COMM | KFIT_OPT_CPU |
		  KFIT_OPT_DURATION | KFIT_OPT_INTERVAL | KFIT_OPT_JSON |
		  KFIT_OPT_MINMAX,
	.opts = tool_opts,
	.parse = tool_parse,
	.ctx = &ctx,
};

static char *argv_buf[64];
static char err_buf[4096];

/* kfit_opts_parse_args on "softirqlat ARGS...", with stderr kept in err_buf */
static int run(const struct kfit_tool *t, struct kfit_common *c,
	       const char *const *args)
{
	int argc = 0, saved, ret;
	FILE *tmp = tmpfile();
	size_t n;

	assert_non_null(tmp);
	argv_buf[argc++] = (char *)t->name;
	for (; *args; args++)
		argv_buf[argc++] = (char *)*args;
	argv_buf[argc] = NULL;
	memset(&ctx, 0, sizeof(ctx));
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(tmp), 2);
	ret = kfit_opts_parse_args(t, c, argc, argv_buf);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(err_buf, 1, sizeof(err_buf) - 1, tmp);
	err_buf[n] = '\0';
	fclose(tmp);
	return ret;
}

/* A usage error or bad value: -1 and exactly want on stderr */
static void run_err(const char *name, const char *const *args,
		    const char *want)
{
	struct kfit_common c;

	t_int_eq(name, run(&tool, &c, args), -1);
	t_str_eq(name, err_buf, want);
}

struct err_case {
	const char *name;
	const char *args[6];	/* NULL-terminated */
	const char *want;	/* stderr */
};

static void run_errs(const struct err_case *e, size_t n)
{
	for (; n--; e++)
		run_err(e->name, e->args, e->want);
}

static void test_defaults(void **state)
{
	static const char *none[] = { NULL };
	struct kfit_common c, zero;

	(void)state;
	memset(&c, 0xff, sizeof(c));
	memset(&zero, 0, sizeof(zero));
	assert_int_equal(run(&tool, &c, none), 1);
	assert_memory_equal(&c, &zero, sizeof(c));
	assert_string_equal(err_buf, "");
}

static void test_common_values(void **state)
{
	char pid[16];
	struct kfit_common c;
	int i;

	(void)state;
	snprintf(pid, sizeof(pid), "%d", getpid());
	i = run(&tool, &c, ARGS("-p", pid, "-t", pid, "--comm", "bash", "-C",
				"0", "-d", "5", "-i", "500ms", "--count", "3",
				"-j", "-v", "-vv", "--min", "10us", "--max",
				"1.5ms", "--verbose"));
	assert_string_equal(err_buf, "");
	assert_int_equal(i, 23);
	assert_int_equal(c.pid, getpid());
	assert_int_equal(c.tid, getpid());
	assert_string_equal(c.comm, "bash");
	assert_true(c.cpus.set);
	assert_true(kfit_cpu_selected(&c.cpus, 0));
	assert_false(kfit_cpu_selected(&c.cpus, 1));
	assert_true(c.duration_ns == 5000000000ULL);
	assert_int_equal(c.interval_ns, 500000000);
	assert_int_equal(c.count, 3);
	assert_true(c.json);
	assert_false(c.timestamp);
	assert_int_equal(c.verbose, 4);
	assert_true(c.has_min && c.has_max);
	assert_int_equal(c.min_ns, 10000);
	assert_int_equal(c.max_ns, 1500000);
	assert_int_equal(ctx.calls, 0);
}

static void test_long_forms(void **state)
{
	struct kfit_common c;

	(void)state;
	assert_int_equal(run(&tool, &c, ARGS("--duration=2", "--interval",
					      "1.5", "--json", "--dur", "3s",
					      "--cpu=0")), 8);
	assert_string_equal(err_buf, "");
	assert_true(c.duration_ns == 3000000000ULL);
	assert_true(c.interval_ns == 1500000000ULL);
	assert_true(c.json);
	assert_true(c.cpus.set);
}

/* --attach's user-function choices, --uprobe-limit, --force, --no-uprobe-filter */
static void test_uprobe_opts(void **state)
{
	static const struct kfit_tool ftool = {
		.name = "funcdur",
		.synopsis = "TARGET...",
		.common = KFIT_OPT_ATTACH,
	};
	struct kfit_common c;

	(void)state;
	assert_int_equal(run(&ftool, &c, ARGS("x")), 1);
	assert_int_equal(c.uattach, KFIT_UM_AUTO);
	assert_int_equal(c.uprobe_limit, 0);
	assert_false(c.force);
	assert_false(c.no_ufilter);
	assert_int_equal(run(&ftool, &c, ARGS("--no-uprobe-filter", "x")), 2);
	assert_true(c.no_ufilter);
	/* kernel and user choices side by side */
	assert_int_equal(run(&ftool, &c, ARGS("--attach", "uprobe-single", "--attach",
					       "kprobe-multi", "--force", "x")), 6);
	assert_int_equal(c.uattach, KFIT_UM_SINGLE);
	assert_int_equal(c.attach, KFIT_AM_KPROBE_MULTI);
	assert_true(c.force);
	assert_int_equal(run(&ftool, &c, ARGS("--attach=uprobe-multi",
					       "--uprobe-limit", "5000", "x")), 4);
	assert_int_equal(c.uattach, KFIT_UM_MULTI);
	assert_int_equal(c.attach, KFIT_AM_AUTO);
	assert_int_equal(c.uprobe_limit, 5000);
	assert_int_equal(run(&ftool, &c, ARGS("--uprobe-limit", "0")), -1);
	assert_string_equal(err_buf, "funcdur: invalid number '0' for --uprobe-limit: "
			    "1 to 1000000\n");
	assert_int_equal(run(&ftool, &c, ARGS("--attach", "uprobe")), -1);
	assert_non_null(strstr(err_buf, "uprobe-single or uprobe-multi"));
	/* not flags of tools without user functions */
	assert_int_equal(run(&tool, &c, ARGS("--force")), -1);
	assert_int_equal(run(&tool, &c, ARGS("--no-uprobe-filter")), -1);
}

static void test_tool_opts(void **state)
{
	struct kfit_common c;

	(void)state;
	assert_int_equal(run(&tool, &c, ARGS("-jL", "100", "--stack")), 4);
	assert_int_equal(ctx.step, 100);
	assert_true(ctx.stack);
	assert_true(c.json);
	assert_int_equal(ctx.calls, 2);

	assert_int_equal(run(&tool, &c, ARGS("--linear=250")), 2);
	assert_int_equal(ctx.step, 250);
	assert_false(ctx.stack);

	/* The tool's own complaint, nothing added */
	run_err("bad step", ARGS("-L", "x"), "softirqlat: bad step 'x'\n");
}

/* Operands are moved after the options; the index of the first comes back */
static void test_operands(void **state)
{
	struct kfit_common c;
	int i;

	(void)state;
	i = run(&tool, &c, ARGS("vfs_read", "-d", "1", "vfs_write", "-j"));
	assert_int_equal(i, 4);
	assert_string_equal(argv_buf[4], "vfs_read");
	assert_string_equal(argv_buf[5], "vfs_write");
	assert_true(c.json);

	i = run(&tool, &c, ARGS("-j", "--", "-d"));
	assert_int_equal(i, 3);
	assert_string_equal(argv_buf[3], "-d");
	assert_int_equal(c.duration_ns, 0);
}

/* A tool that runs a command: its options end at the command's name */
static void test_command_operands(void **state)
{
	struct kfit_tool cmd_tool = tool;
	struct kfit_common c;
	int i;

	(void)state;
	cmd_tool.command = true;
	i = run(&cmd_tool, &c, ARGS("-j", "ls", "-d", "1", "-l"));
	assert_int_equal(i, 2);
	assert_string_equal(argv_buf[2], "ls");
	assert_string_equal(argv_buf[3], "-d");
	assert_true(c.json);
	assert_int_equal(c.duration_ns, 0);

	i = run(&cmd_tool, &c, ARGS("-d", "2", "--", "sh", "-j"));
	assert_int_equal(i, 4);
	assert_string_equal(argv_buf[4], "sh");
	assert_false(c.json);
	assert_int_equal(c.duration_ns, 2000000000ULL);

	/* without it, getopt still takes options after an operand */
	i = run(&tool, &c, ARGS("ls", "-j"));
	assert_int_equal(i, 2);
	assert_true(c.json);
}

#define UNRECOGNIZED(opt) "softirqlat: unrecognized option '" opt "'\n" TRY
#define NO_ARG(opt) "softirqlat: option '" opt "' doesn't allow an argument\n" TRY
#define NEEDS_ARG(opt) "softirqlat: option " opt " requires an argument\n" TRY

static void test_unknown_options(void **state)
{
	static const struct err_case cases[] = {
		{ "short", { "-x" }, UNRECOGNIZED("-x") },
		{ "in a cluster", { "-jx" }, UNRECOGNIZED("-x") },
		{ "long", { "--bogus" }, UNRECOGNIZED("--bogus") },
		{ "long with =", { "--bogus=3" }, UNRECOGNIZED("--bogus") },
		/* Reserved for everyone, accepted by this tool or not */
		{ "reserved -T", { "-T" }, UNRECOGNIZED("-T") },
		{ "reserved --timestamp", { "--timestamp" },
		  UNRECOGNIZED("--timestamp") },
		{ "common flag =", { "--json=1" }, NO_ARG("--json") },
		{ "tool flag =", { "--stack=1" }, NO_ARG("--stack") },
		{ "ambiguous", { "--co", "1" },
		  "softirqlat: option '--co' is ambiguous\n" TRY },
	};

	(void)state;
	run_errs(cases, T_N(cases));
}

static void test_missing_argument(void **state)
{
	static const struct err_case cases[] = {
		{ "-d", { "-d" }, NEEDS_ARG("-d/--duration") },
		{ "--duration", { "-j", "--duration" }, NEEDS_ARG("-d/--duration") },
		{ "--comm", { "--comm" }, NEEDS_ARG("--comm") },
		{ "tool's -L", { "-L" }, NEEDS_ARG("-L/--linear") },
	};

	(void)state;
	run_errs(cases, T_N(cases));
}

/* getopt's state from a failed parse must not leak into the next */
static void test_reparse(void **state)
{
	struct kfit_common c;

	(void)state;
	run_err("-xj", ARGS("-xj"), UNRECOGNIZED("-x"));
	assert_int_equal(run(&tool, &c, ARGS("-d", "2")), 3);
	assert_false(c.json);
	assert_true(c.duration_ns == 2000000000ULL);
}

#define USE_UNIT "use a number of seconds, or one with a unit: ns, us, ms, s, m\n"
#define NEED_UNIT "use a number with a unit: ns, us, ms, s, m\n"
#define BAD_DUR(arg, opt, why) \
	"softirqlat: invalid duration '" arg "' for " opt ": " why

static void test_bad_durations(void **state)
{
	static const struct err_case cases[] = {
		{ "junk unit", { "-d", "5x" }, BAD_DUR("5x", "--duration", USE_UNIT) },
		{ "negative", { "-i", "-1" }, BAD_DUR("-1", "--interval", USE_UNIT) },
		{ "zero interval", { "-i", "0" },
		  BAD_DUR("0", "--interval", "must be more than 0\n") },
		{ "too large", { "-d", "99999999999" },
		  BAD_DUR("99999999999", "--duration", "too large\n") },
		/* --min and --max have no default unit */
		{ "--min no unit", { "--min", "5" }, BAD_DUR("5", "--min", NEED_UNIT) },
		{ "--max empty", { "--max", "" }, BAD_DUR("", "--max", NEED_UNIT) },
		{ "min over max", { "--min", "2ms", "--max", "1ms" },
		  "softirqlat: --min 2.00ms is more than --max 1.00ms\n" },
	};

	(void)state;
	run_errs(cases, T_N(cases));
}

static void test_min_max(void **state)
{
	struct kfit_common c;

	(void)state;
	assert_int_equal(run(&tool, &c, ARGS("--min", "1ms", "--max", "1ms")), 5);
	assert_int_equal(c.min_ns, 1000000);
	assert_int_equal(c.max_ns, 1000000);
	assert_int_equal(run(&tool, &c, ARGS("--max", "0ns")), 3);
	assert_false(c.has_min);
	assert_true(c.has_max);
	assert_int_equal(c.max_ns, 0);
}

static void test_count(void **state)
{
	struct kfit_common c;

	static const struct err_case cases[] = {
		{ "no interval", { "--count", "3" },
		  "softirqlat: --count needs -i/--interval\n" TRY },
		{ "zero", { "-i", "1", "--count", "0" },
		  "softirqlat: invalid count '0' for --count: use a positive number\n" },
		{ "junk", { "-i", "1", "--count", "3x" },
		  "softirqlat: invalid count '3x' for --count: use a positive number\n" },
	};

	(void)state;
	run_errs(cases, T_N(cases));
	/* Order does not matter */
	assert_int_equal(run(&tool, &c, ARGS("--count", "2", "-i", "1")), 5);
	assert_int_equal(c.count, 2);
}

static pthread_mutex_t thread_lock = PTHREAD_MUTEX_INITIALIZER;
static int thread_tid;

static void *thread_fn(void *arg)
{
	(void)arg;
	thread_tid = gettid();
	pthread_mutex_lock(&thread_lock);
	pthread_mutex_unlock(&thread_lock);
	return NULL;
}

static void test_pid_tid(void **state)
{
	static const struct err_case cases[] = {
		{ "no such PID", { "-p", "2147483647" },
		  "softirqlat: no process with PID 2147483647\n" },
		{ "no such TID", { "-t", "2147483647" },
		  "softirqlat: no thread with TID 2147483647\n" },
		{ "PID not a number", { "-p", "abc" },
		  "softirqlat: invalid PID 'abc' for --pid: use a positive number\n" },
		{ "PID 0", { "-p", "0" },
		  "softirqlat: invalid PID '0' for --pid: use a positive number\n" },
		{ "TID past int", { "-t", "2147483648" },
		  "softirqlat: invalid TID '2147483648' for --tid: use a positive number\n" },
	};
	char want[256], tid[16];
	struct kfit_common c;
	pthread_t th;

	(void)state;
	run_errs(cases, T_N(cases));

	/* A thread that is not its process's leader is a TID, not a PID */
	pthread_mutex_lock(&thread_lock);
	assert_int_equal(pthread_create(&th, NULL, thread_fn, NULL), 0);
	while (!__atomic_load_n(&thread_tid, __ATOMIC_SEQ_CST))
		usleep(1000);
	snprintf(tid, sizeof(tid), "%d", thread_tid);
	snprintf(want, sizeof(want),
		 "softirqlat: PID %d is a thread of process %d: use -t %d or -p %d\n",
		 thread_tid, getpid(), thread_tid, getpid());
	run_err("PID of a thread", ARGS("-p", tid), want);
	assert_int_equal(run(&tool, &c, ARGS("-t", tid)), 3);
	assert_int_equal(c.tid, thread_tid);
	pthread_mutex_unlock(&thread_lock);
	pthread_join(th, NULL);
}

static void test_comm(void **state)
{
	struct kfit_common c;

	(void)state;
	assert_int_equal(run(&tool, &c, ARGS("--comm", "123456789012345")), 3);
	assert_string_equal(c.comm, "123456789012345");
	run_err("16 characters", ARGS("--comm", "1234567890123456"),
		"softirqlat: invalid name '1234567890123456' for --comm: use 1 to 15 characters, as the kernel keeps them\n");
	run_err("empty", ARGS("--comm", ""),
		"softirqlat: invalid name '' for --comm: use 1 to 15 characters, as the kernel keeps them\n");
}

static void test_cpu_option(void **state)
{
	int ncpus = libbpf_num_possible_cpus();
	char arg[16], want[256];
	struct kfit_common c;

	(void)state;
	assert_true(ncpus > 0);
	snprintf(arg, sizeof(arg), "%d", ncpus);
	snprintf(want, sizeof(want),
		 "softirqlat: invalid CPU list '%d' for --cpu: this machine has CPUs 0-%d\n",
		 ncpus, ncpus - 1);
	run_err("past the last CPU", ARGS("-C", arg), want);
	run_err("backward range", ARGS("-C", "1-0"),
		"softirqlat: invalid CPU list '1-0' for --cpu: use numbers and ranges, e.g. 0-3,6\n");
	snprintf(arg, sizeof(arg), "0-%d", ncpus - 1);
	assert_int_equal(run(&tool, &c, ARGS("-C", arg)), 3);
	assert_true(kfit_cpu_selected(&c.cpus, ncpus - 1));
	assert_false(kfit_cpu_selected(&c.cpus, ncpus));
}

static void test_cpulist(void **state)
{
	static const char *const bad[] = {
		"", ",", "0,", ",0", "0,,1", "3-1", "a", " 0", "0 ", "1-",
		"-1", "0-", "1--2", "0x1", "+1", "1,2-", "0;1",
	};
	struct kfit_cpuset s;
	size_t i;
	int cpu;

	(void)state;
	assert_int_equal(kfit_opts_parse_cpulist("0-3,6", 8, &s), 0);
	assert_true(s.set);
	for (cpu = 0; cpu < 10; cpu++)
		assert_int_equal(kfit_cpu_selected(&s, cpu),
				 cpu <= 3 || cpu == 6);
	assert_false(kfit_cpu_selected(&s, -1));
	assert_false(kfit_cpu_selected(&s, KFIT_MAX_CPUS));

	assert_int_equal(kfit_opts_parse_cpulist("7,7,5-5", 8, &s), 0);
	assert_true(kfit_cpu_selected(&s, 7) && kfit_cpu_selected(&s, 5));
	assert_false(kfit_cpu_selected(&s, 6));

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (kfit_opts_parse_cpulist(bad[i], 8, &s) != -EINVAL)
			fail_msg("'%s' should be -EINVAL", bad[i]);
		assert_false(s.set);
	}
	assert_int_equal(kfit_opts_parse_cpulist(NULL, 8, &s), -EINVAL);
	assert_int_equal(kfit_opts_parse_cpulist("8", 8, &s), -ERANGE);
	assert_false(s.set);
	assert_int_equal(kfit_opts_parse_cpulist("0,2-8", 8, &s), -ERANGE);
	assert_false(s.set);
	assert_false(kfit_cpu_selected(&s, 0) && s.set);
	assert_int_equal(kfit_opts_parse_cpulist("99999999999999999999", 8, &s), -ERANGE);
	/* The set holds KFIT_MAX_CPUS, whatever the machine claims */
	assert_int_equal(kfit_opts_parse_cpulist("1023", 4096, &s), 0);
	assert_int_equal(kfit_opts_parse_cpulist("1024", 4096, &s), -ERANGE);

	/* Not set: every CPU */
	memset(&s, 0, sizeof(s));
	assert_true(kfit_cpu_selected(&s, 0));
	assert_true(kfit_cpu_selected(&s, 1000));
}

static void test_parse_uint(void **state)
{
	/* v is 42 before each; an error leaves it */
	static const struct {
		const char *arg;
		unsigned long max;
		int ret;
		unsigned long v;
	} cases[] = {
		{ "1", 10, 0, 1 },
		{ "007", 10, 0, 7 },
		{ "10", 10, 0, 10 },
		{ "11", 10, -ERANGE, 42 },
		{ "18446744073709551615", ULONG_MAX, 0, ULONG_MAX },
		{ "18446744073709551616", ULONG_MAX, -ERANGE, 42 },
		{ "99999999999999999999999", ULONG_MAX, -ERANGE, 42 },
	};
	static const char *const bad[] = {
		"", "0", "00", "-1", "+1", " 1", "1 ", "0x10", "1.0", "1e3", "a",
	};
	unsigned long v;
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		v = 42;
		t_int_eq(cases[i].arg, kfit_opts_parse_uint(cases[i].arg, cases[i].max, &v),
			 cases[i].ret);
		t_true(cases[i].arg, v == cases[i].v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (kfit_opts_parse_uint(bad[i], ULONG_MAX, &v) != -EINVAL)
			fail_msg("'%s' should be -EINVAL", bad[i]);
	assert_int_equal(kfit_opts_parse_uint(NULL, 10, &v), -EINVAL);
}

static void test_opts_check(void **state)
{
	/* A tool of these options and common 0 */
	static const struct {
		const char *name;
		struct kfit_opt opts[5];	/* ends at name NULL */
		int ret;
	} cases[] = {
		{ "letters, long-only keys", { { "linear", 'L', "N", "" },
			{ "all", 'a', NULL, "" }, { "x", 256, NULL, "" },
			{ "y", 0xfff, NULL, "" } }, 0 },
		/* Every reserved letter, with common 0: reserved anyway */
		{ "reserved p", { { "print", 'p', NULL, "" } }, -1 },
		{ "reserved T", { { "x", 'T', NULL, "" } }, -1 },
		{ "reserved V", { { "x", 'V', NULL, "" } }, -1 },
		{ "reserved v", { { "x", 'v', NULL, "" } }, -1 },
		/* Duplicate keys and names */
		{ "same key", { { "a", 'a', NULL, "" }, { "b", 'a', NULL, "" } }, -1 },
		{ "same name", { { "a", 'a', NULL, "" }, { "a", 'b', NULL, "" } }, -1 },
		/* Common long names, including ones this tool does not accept */
		{ "common json", { { "json", 'J', NULL, "" } }, -1 },
		{ "common count", { { "count", 300, "N", "" } }, -1 },
		{ "common timestamp", { { "timestamp", 'z', NULL, "" } }, -1 },
		/* Keys getopt cannot use, and the common long-only range */
		{ "key ?", { { "x", '?', NULL, "" } }, -1 },
		{ "key :", { { "x", ':', NULL, "" } }, -1 },
		{ "key 0", { { "x", 0, NULL, "" } }, -1 },
		{ "key 0x1000", { { "x", 0x1000, NULL, "" } }, -1 },
		{ "empty name", { { "", 'x', NULL, "" } }, -1 },
	};
	struct kfit_tool t = { .name = "t" };
	size_t i;

	(void)state;
	assert_int_equal(kfit_opts_check(&tool), 0);
	assert_int_equal(kfit_opts_check(&t), 0);	/* opts NULL */
	for (i = 0; i < T_N(cases); i++) {
		t.opts = cases[i].opts;
		t_int_eq(cases[i].name, kfit_opts_check(&t), cases[i].ret);
	}
}

/* Fork, run fn in the child with stdout in out; the wait status */
static int in_child(void (*fn)(void), char *out, size_t len)
{
	FILE *tmp = tmpfile();
	int status;
	size_t n;
	pid_t pid;

	assert_non_null(tmp);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct rlimit no_core = { 0, 0 };

		setrlimit(RLIMIT_CORE, &no_core);
		signal(SIGABRT, SIG_DFL);
		dup2(fileno(tmp), 1);
		dup2(fileno(tmp), 2);
		fn();
		_exit(99);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	rewind(tmp);
	n = fread(out, 1, len - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	return status;
}

static void child_help(void)
{
	struct kfit_common c;

	run(&tool, &c, ARGS("-d", "1", "--help"));
}

static void child_version(void)
{
	struct kfit_common c;

	run(&tool, &c, ARGS("-V"));
}

/* A tool clashing with the reserved letters is a bug: abort */
static void child_bad_tool(void)
{
	static const struct kfit_opt opts[] = { { "pages", 'p', NULL, "" }, { NULL } };
	struct kfit_tool t = tool;
	struct kfit_common c;

	t.opts = opts;
	run(&t, &c, ARGS("-j"));
}

static void test_help_version_exit(void **state)
{
	char out[8192];
	int st;

	(void)state;
	st = in_child(child_help, out, sizeof(out));
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_non_null(strstr(out, "Usage: softirqlat [OPTIONS]\nSoft IRQ latency.\n"));

	st = in_child(child_version, out, sizeof(out));
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_string_equal(out, "softirqlat (kfit) 0.1.0\n");

	st = in_child(child_bad_tool, out, sizeof(out));
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
}

/* kfit_opts_usage's text for t (the caller frees it) */
static char *usage_of(const struct kfit_tool *t)
{
	struct t_cap cap;

	kfit_opts_usage(t, t_cap_open(&cap));
	return t_cap_close(&cap);
}

static void test_usage_exact(void **state)
{
	static const struct kfit_opt opts[] = {
		{ "linear", 'L', "STEP", "linear histogram" },
		{ "stack", 300, NULL, "show stacks" },
		{ NULL },
	};
	struct kfit_tool t = {
		.name = "small",
		.summary = "A small tool.",
		.examples = "small -d 1\nsmall -j\n",
		.common = KFIT_OPT_DURATION | KFIT_OPT_JSON,
		.opts = opts,
	};
	char *buf;

	(void)state;
	buf = usage_of(&t);
	assert_string_equal(buf,
		"Usage: small [OPTIONS]\n"
		"A small tool.\n"
		"\n"
		"Options:\n"
		"  -L, --linear STEP   linear histogram\n"
		"      --stack         show stacks\n"
		"  -d, --duration DUR  stop after DUR, e.g. 10s (default unit: s)\n"
		"  -j, --json          print JSON\n"
		"      --output FILE   write the report into FILE\n"
		"  -v, --verbose       more messages; twice: libbpf's debug\n"
		"  -h, --help          show this help and exit\n"
		"  -V, --version       show the version and exit\n"
		"\n"
		"Examples:\n"
		"  small -d 1\n"
		"  small -j\n");
	free(buf);
}

/* Long help, summary and examples wrap at 80 columns, under their column */
static void test_usage_wraps(void **state)
{
	static const struct kfit_opt opts[] = {
		{ "buffer", 'b', "SIZE", "size of each ring buffer (default 8M; with -o 64M "
		  "shared by the rings, 8M at least; rounded up to a power of 2 pages)" },
		{ NULL },
	};
	struct kfit_tool t = {
		.name = "wide",
		.summary = "A summary line that goes on and on past the eightieth column "
			   "of a terminal.\n  wide --a-long-option [--another-one N] "
			   "[--and-a-third DUR] -- INIT",
		.examples = "wide -b 1M          # an aligned comment, its spaces kept\n"
			    "wide -b 64M --and-a-third 1s -- /sbin/init  # a comment too long",
		.opts = opts,
	};
	char *buf;

	(void)state;
	buf = usage_of(&t);
	assert_non_null(strstr(buf,
		"A summary line that goes on and on past the eightieth column of a terminal.\n"
		"  wide --a-long-option [--another-one N] [--and-a-third DUR] -- INIT\n"));
	assert_non_null(strstr(buf,
		"  -b, --buffer SIZE  size of each ring buffer (default 8M; with -o 64M shared by\n"
		"                     the rings, 8M at least; rounded up to a power of 2 pages)\n"));
	assert_non_null(strstr(buf,
		"  wide -b 1M          # an aligned comment, its spaces kept\n"
		"  wide -b 64M --and-a-third 1s -- /sbin/init  # a comment too long\n"));
	free(buf);
}

static void test_usage_wraps_long(void **state)
{
	static const struct kfit_opt opts[] = { { NULL } };
	struct kfit_tool t = {
		.name = "w",
		.summary = "one two three four five six seven eight nine ten eleven twelve "
			   "thirteen fourteen fifteen",
		.examples = "w --first-option-of-many --second-option-of-many "
			    "--third-option-of-many  # why not",
		.opts = opts,
	};
	char *buf, *line, *save = NULL;

	(void)state;
	buf = usage_of(&t);
	/* 80 columns fit, 81 do not */
	assert_non_null(strstr(buf, "one two three four five six seven eight nine ten eleven "
				    "twelve thirteen fourteen\nfifteen\n"));
	assert_non_null(strstr(buf, "  w --first-option-of-many --second-option-of-many "
				    "--third-option-of-many\n      # why not\n"));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		assert_true(strlen(line) <= 80);
	free(buf);
}

static void test_usage_lists_accepted(void **state)
{
	char *buf;

	(void)state;
	buf = usage_of(&tool);
	assert_non_null(strstr(buf, "  -p, --pid PID "));
	assert_non_null(strstr(buf, "      --comm NAME "));
	assert_non_null(strstr(buf, "      --count N "));
	assert_non_null(strstr(buf, "      --max DUR "));
	assert_null(strstr(buf, "--timestamp"));
	/* The tool's own options first */
	assert_true(strstr(buf, "--linear") < strstr(buf, "--pid"));
	assert_non_null(strstr(buf, "\nExamples:\n  softirqlat -d 5s\n"));
	free(buf);
}

/* A shared group of options: parsed by its own parser into its own ctx */
struct group_ctx {
	bool wide;
	const char *tool, *depth;
};

static struct group_ctx gctx;

static int group_parse(const char *tool, int key, const char *arg, void *ctx)
{
	struct group_ctx *g = ctx;

	g->tool = tool;
	if (key == 'w') {
		g->wide = true;
		return 0;
	}
	if (key == 0x800 && strcmp(arg, "bad")) {
		g->depth = arg;
		return 0;
	}
	fprintf(stderr, "%s: bad depth\n", tool);
	return -1;
}

static const struct kfit_opt group_opts[] = {
	{ "wide", 'w', NULL, "wide lines" },
	{ "deep", 0x800, "N", "down to N" },
	{ NULL },
};

static const struct kfit_opt_group group = {
	.title = "Display options", .opts = group_opts, .parse = group_parse,
	.ctx = &gctx,
};

static void test_group(void **state)
{
	static const char *args[] = { "-w", "--deep", "3", "-L", "5", "x", NULL };
	static const char *bad[] = { "--deep", "bad", NULL };
	static const char *const clash[] = { "stack", "linear" };
	struct kfit_tool t = tool;
	struct kfit_opt mine[] = { { "stack", KEY_STACK, NULL, "" }, { NULL } };
	struct kfit_common c;
	char *buf;
	size_t i;

	(void)state;
	t.group = &group;
	assert_int_equal(kfit_opts_check(&t), 0);
	memset(&gctx, 0, sizeof(gctx));
	assert_int_equal(run(&t, &c, args), 6);	/* "x", after the name and 5 words */
	assert_true(gctx.wide);
	assert_string_equal(gctx.depth, "3");
	assert_string_equal(gctx.tool, "softirqlat");
	assert_int_equal(ctx.step, 5);		/* the tool's own still its */
	assert_int_equal(run(&t, &c, bad), -1);
	assert_string_equal(err_buf, "softirqlat: bad depth\n");
	/* listed under their heading, after the shared flags */
	buf = usage_of(&t);
	assert_non_null(strstr(buf, "\nDisplay options:\n  -w, --wide "));
	assert_non_null(strstr(buf, "      --deep N "));
	assert_true(strstr(buf, "--help") < strstr(buf, "--wide"));
	free(buf);
	/* a tool's option that takes a group's letter or name is a bug */
	for (i = 0; i < T_N(clash); i++) {
		mine[0].name = clash[i];
		mine[0].key = i ? 'w' : KEY_STACK;
		t.opts = mine;
		t_int_eq(clash[i], kfit_opts_check(&t), i ? -1 : 0);
	}
	mine[0].name = "wide";
	t_int_eq("the group's name", kfit_opts_check(&t), -1);
}

/* --serve's [ADDR:]PORT */
static void test_parse_listen(void **state)
{
	static const struct {
		const char *in, *host;	/* host NULL: refused */
		unsigned int port;
	} cases[] = {
		{ "9435", "", 9435 },
		{ ":9435", "", 9435 },
		{ "127.0.0.1:9435", "127.0.0.1", 9435 },
		{ "[::1]:9435", "::1", 9435 },
		{ "[fe80::1%lo]:80", "fe80::1%lo", 80 },
		{ "localhost:1", "localhost", 1 },
		{ "0.0.0.0:65535", "0.0.0.0", 65535 },
		{ "0", NULL, 0 },
		{ "65536", NULL, 0 },
		{ "99999999999999999999", NULL, 0 },
		{ "-1", NULL, 0 },
		{ "+80", NULL, 0 },
		{ "0x50", NULL, 0 },
		{ " 80", NULL, 0 },
		{ "80 ", NULL, 0 },
		/* a v6 address only in brackets: which colon ends it? */
		{ "::1:80", NULL, 0 },
		{ "::1", NULL, 0 },
		{ "[::1]", NULL, 0 },
		{ "[::1:80", NULL, 0 },
		{ "::1]:80", NULL, 0 },
		{ "", NULL, 0 },
		{ ":", NULL, 0 },
		{ "x:", NULL, 0 },
		{ "x", NULL, 0 },
		{ "a b:80", NULL, 0 },
		{ "a/b:80", NULL, 0 },
	};
	char host[64], small[4];
	unsigned int port;
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		port = 12345;
		strcpy(host, "untouched");
		if (!cases[i].host) {
			t_int_eq(cases[i].in, kfit_opts_parse_listen(cases[i].in, host,
								     sizeof(host), &port), -1);
			t_int_eq(cases[i].in, port, 12345);
			continue;
		}
		t_int_eq(cases[i].in, kfit_opts_parse_listen(cases[i].in, host, sizeof(host),
							     &port), 0);
		t_str_eq(cases[i].in, host, cases[i].host);
		t_int_eq(cases[i].in, port, cases[i].port);
	}
	/* an address longer than the buffer is refused, not cut */
	assert_int_equal(kfit_opts_parse_listen("abc:80", small, sizeof(small), &port), 0);
	assert_string_equal(small, "abc");
	assert_int_equal(kfit_opts_parse_listen("abcd:80", small, sizeof(small), &port), -1);
}

/* --serve as a tool takes it: the address parsed, a bad one and -i refused */
static void test_serve_option(void **state)
{
	struct kfit_tool stool = tool;
	struct kfit_common c;

	(void)state;
	stool.common |= KFIT_OPT_SERVE;
	assert_int_equal(run(&stool, &c, ARGS("--serve", "127.0.0.1:9435", "-j")), 4);
	assert_string_equal(err_buf, "");
	assert_string_equal(c.serve, "127.0.0.1:9435");
	assert_string_equal(c.serve_host, "127.0.0.1");
	assert_int_equal(c.serve_port, 9435);
	assert_int_equal(run(&stool, &c, ARGS("--serve=9435")), 2);
	assert_string_equal(c.serve_host, "");
	assert_int_equal(c.serve_port, 9435);
	assert_int_equal(run(&stool, &c, ARGS("--serve", "::1:80")), -1);
	assert_string_equal(err_buf, "softirqlat: invalid address '::1:80' for --serve: "
			    "[ADDR:]PORT, PORT 1 to 65535 (9435, 127.0.0.1:9435, [::1]:9435)\n");
	assert_int_equal(run(&stool, &c, ARGS("--serve", "0")), -1);
	assert_non_null(strstr(err_buf, "invalid address '0' for --serve"));
	/* Prometheus makes the intervals: -i is a usage error with it */
	assert_int_equal(run(&stool, &c, ARGS("--serve", "9435", "-i", "1s")), -1);
	assert_non_null(strstr(err_buf, "drop -i"));
	/* not an option of a tool that does not serve */
	assert_int_equal(run(&tool, &c, ARGS("--serve", "9435")), -1);
	assert_string_equal(err_buf, UNRECOGNIZED("--serve"));
}

/* Percents: a number, a '%' after it at most, 0 to max */
static void test_percent(void **state)
{
	static const struct {
		const char *s;
		double max;
		int ret;
		double v;
	} cases[] = {
		{ "0", 100, 0, 0 }, { "0.5", 100, 0, 0.5 }, { "20%", 100, 0, 20 },
		{ "100", 100, 0, 100 }, { "100.5", 100, -1, 0 }, { "-1", 100, -1, 0 },
		{ "nan", 100, -1, 0 }, { "", 100, -1, 0 }, { "%", 100, -1, 0 },
		{ "5%%", 100, -1, 0 }, { "1e3", 1e6, 0, 1000 }, { "ten", 1e6, -1, 0 },
	};
	double v;
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		v = -7;
		t_int_eq(cases[i].s, kfit_opts_parse_percent(cases[i].s, cases[i].max, &v),
			 cases[i].ret);
		t_true(cases[i].s, v == (cases[i].ret ? -7 : cases[i].v));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_common_values),
		cmocka_unit_test(test_long_forms),
		cmocka_unit_test(test_tool_opts),
		cmocka_unit_test(test_uprobe_opts),
		cmocka_unit_test(test_operands),
		cmocka_unit_test(test_command_operands),
		cmocka_unit_test(test_unknown_options),
		cmocka_unit_test(test_missing_argument),
		cmocka_unit_test(test_reparse),
		cmocka_unit_test(test_bad_durations),
		cmocka_unit_test(test_min_max),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_pid_tid),
		cmocka_unit_test(test_comm),
		cmocka_unit_test(test_cpu_option),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_parse_uint),
		cmocka_unit_test(test_opts_check),
		cmocka_unit_test(test_help_version_exit),
		cmocka_unit_test(test_usage_exact),
		cmocka_unit_test(test_usage_wraps),
		cmocka_unit_test(test_usage_wraps_long),
		cmocka_unit_test(test_usage_lists_accepted),
		cmocka_unit_test(test_group),
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_parse_listen),
		cmocka_unit_test(test_serve_option),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
