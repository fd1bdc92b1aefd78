// SPDX-License-Identifier: GPL-2.0
/*
 * pmcstat: perf counters counted per CPU, per task and per command, in
 * the manner of perf stat. Counting itself needs no BPF: the kernel counts
 * and we read(). --per-task adds bpf/pmcstat.bpf.c, which reads the same
 * counters at every context switch and charges each task its deltas.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kfit/pmcstat.h"
#include "pmcstat.skel.h"
#include "child.h"
#include "diag.h"
#include "maps.h"
#include "opts.h"
#include "output.h"
#include "perfev.h"
#include "pmu.h"
#include "probe.h"
#include "run.h"

enum {
	OPT_AGGR = 256, OPT_PER_TASK,
};

/* Up to this many events, a column each; more (a glob): a row each */
#define COLUMNS_MAX 8

static const struct kfit_opt pmcstat_opts[] = {
	{ "event", 'e', "LIST", "events to count (perf syntax; -l lists them)" },
	{ "all-cpus", 'a', NULL, "count on every CPU (the default without -p, -t or COMMAND)" },
	{ "aggr", OPT_AGGR, NULL, "totals only, no row per CPU" },
	{ "per-task", OPT_PER_TASK, NULL, "charge counts to tasks at every context switch (BPF)" },
	{ "top", 'n', "N", "with --per-task: show the top N tasks (default 10)" },
	{ "field-separator", 'x', "SEP", "CSV output with SEP between fields" },
	{ "interval-ms", 'I', "MS", "perf's -I: like -i, in milliseconds" },
	{ "list", 'l', NULL, "list the events and PMUs of this machine" },
	{ NULL },
};

/* A task's counts, as read from the BPF map */
struct task_row {
	struct pmc_task_key key;
	struct pmc_task t;
};

struct env {
	struct kfit_common c;
	struct kfit_event_list evl;
	bool all_cpus, aggr, per_task, list;
	const char *sep;		/* -x: CSV */
	unsigned long top;
	unsigned long interval_ms;	/* -I */
	const char *bad_event;		/* -e parse error already printed */
	char **cmd;			/* -- COMMAND */

	int ncpus;			/* possible CPUs */
	bool *cpu_on;			/* counted CPUs */
	pid_t *threads;			/* -1 alone: system wide */
	int nthreads;
	bool inherit;
	struct kfit_perf_set ctrs;	/* ctrs.err[ev]: 0 if opened somewhere */
	struct pmc_reading *cur, *prev;	/* [ev * ncpus + cpu], cumulative */

	struct kfit_child child;	/* -- COMMAND */

	struct pmcstat_bpf *skel;
	const char *mode;		/* "tp_btf" or "raw_tracepoint" */
	struct task_row *tasks, *ptasks;
	int ntasks, nptasks;

	__u64 start_ns, last_ns;
	__u64 read_errors;
	int not_switched;		/* CPUs flush_cpus() could not reach */
	struct kfit_pmu_env pmu;
};

static struct env env = { .top = 10 };

static int add_events(const char *spec)
{
	char err[256];

	if (kfit_events_parse(&env.evl, spec, &env.pmu, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "pmcstat: %s\n", err);
	return -1;
}

static int parse_opt(int key, const char *arg, void *ctx)
{
	(void)ctx;
	switch (key) {
	case 'e':
		return add_events(arg);
	case 'a':
		env.all_cpus = true;
		return 0;
	case OPT_AGGR:
		env.aggr = true;
		return 0;
	case OPT_PER_TASK:
		env.per_task = true;
		return 0;
	case 'n':
		if (kfit_parse_uint(arg, 1000000, &env.top) == 0)
			return 0;
		fprintf(stderr, "pmcstat: -n: '%s' is not a positive number\n", arg);
		return -1;
	case 'x':
		if (*arg && !strpbrk(arg, "\n\"")) {
			env.sep = arg;
			return 0;
		}
		fprintf(stderr, "pmcstat: -x: the separator must be a non-empty string without newlines or quotes\n");
		return -1;
	case 'I':
		/* set now: --count is checked against the interval while parsing */
		if (env.c.interval_ns) {
			fprintf(stderr, "pmcstat: -i and -I both given\n");
			return -1;
		}
		if (kfit_parse_uint(arg, 86400000, &env.interval_ms) == 0) {
			env.c.interval_ns = env.interval_ms * 1000000ULL;
			return 0;
		}
		fprintf(stderr, "pmcstat: -I: '%s' is not a number of milliseconds\n", arg);
		return -1;
	case 'l':
		env.list = true;
		return 0;
	}
	return -1;
}

static const struct kfit_tool tool = {
	.name = "pmcstat",
	.summary = "Count perf events per CPU, per task or for a command, like perf stat.",
	.synopsis = "[OPTIONS] [-- COMMAND [ARGS...]]",
	.examples = "pmcstat -d 5                    # default events on every CPU for 5 s\n"
		    "pmcstat -e r13c,cycles -a       # raw and named hardware events\n"
		    "pmcstat -e msr/tsc/ -i 1s       # a PMU's event, every second\n"
		    "pmcstat -e '{cycles,instructions}:u' -- make\n"
		    "pmcstat -e sched:sched_switch -p 1234\n"
		    "pmcstat --per-task -e cs,cpu-clock -n 5 -d 10\n"
		    "pmcstat -x, -e page-faults -- ./prog   # CSV\n",
	.common = KFIT_OPT_PID | KFIT_OPT_TID | KFIT_OPT_COMM | KFIT_OPT_CPU |
		  KFIT_OPT_DURATION | KFIT_OPT_INTERVAL | KFIT_OPT_JSON |
		  KFIT_OPT_TIMESTAMP,
	.opts = pmcstat_opts,
	.parse = parse_opt,
	.ctx = &env,
	.command = true,
};

/* ---- targets ------------------------------------------------------------ */

/* -a and -C with a COMMAND: the machine (those CPUs) while it runs */
static bool system_wide(void)
{
	return env.per_task || env.all_cpus || env.c.cpus.set ||
	       (!env.c.pid && !env.c.tid && !env.cmd);
}

/*
 * --per-task of -p PID or of a COMMAND (without -a or -C): only that
 * process's tasks, and those of every process it creates from now.
 */
static bool following(void)
{
	if (!env.per_task)
		return false;
	return env.c.pid || (env.cmd && !env.all_cpus && !env.c.cpus.set);
}

static bool per_cpu_rows(void)
{
	return system_wide() && !env.aggr;
}

static const char *target_name(void)
{
	static char buf[32];

	if (env.cmd && !system_wide())
		return "command";
	if (system_wide())
		return "system wide";
	if (env.c.tid)
		snprintf(buf, sizeof(buf), "tid %d", env.c.tid);
	else
		snprintf(buf, sizeof(buf), "pid %d", env.c.pid);
	return buf;
}

static int read_online(bool *on)
{
	char buf[4096];
	struct kfit_cpuset set;
	ssize_t n;
	int fd, cpu;

	fd = open("/sys/devices/system/cpu/online", O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	if (kfit_parse_cpulist(buf, env.ncpus, &set))
		return -EINVAL;
	for (cpu = 0; cpu < env.ncpus; cpu++)
		on[cpu] = kfit_cpu_selected(&set, cpu);
	return 0;
}

static int choose_cpus(void)
{
	bool *online;
	int cpu, n = 0;

	env.ncpus = libbpf_num_possible_cpus();
	if (env.ncpus <= 0) {
		kfit_err("cannot tell the number of CPUs");
		return -1;
	}
	env.cpu_on = calloc(env.ncpus, sizeof(bool));
	online = calloc(env.ncpus, sizeof(bool));
	if (!env.cpu_on || !online || read_online(online)) {
		free(online);
		kfit_err("cannot read /sys/devices/system/cpu/online");
		return -1;
	}
	for (cpu = 0; cpu < env.ncpus; cpu++) {
		if (!env.c.cpus.set || !kfit_cpu_selected(&env.c.cpus, cpu)) {
			env.cpu_on[cpu] = online[cpu] && !env.c.cpus.set;
		} else if (!online[cpu]) {
			kfit_err("-C: CPU %d is offline", cpu);
			free(online);
			return -1;
		} else {
			env.cpu_on[cpu] = true;
		}
		n += env.cpu_on[cpu];
	}
	free(online);
	if (!n) {
		kfit_err("-C: no such CPU here (CPUs 0-%d)", env.ncpus - 1);
		return -1;
	}
	/*
	 * Tasks are counted on whichever CPU they run (cpu -1): per-CPU
	 * counters of a task would look multiplexed whenever it ran
	 * elsewhere. Their counts go to slot 0.
	 */
	if (!system_wide()) {
		memset(env.cpu_on, 0, env.ncpus * sizeof(bool));
		env.cpu_on[0] = true;
	}
	return 0;
}

/* -p PID: its threads now; threads it makes later are counted by inherit */
static int list_threads(pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir) {
		kfit_err("no process %d", pid);
		return -1;
	}
	while ((d = readdir(dir))) {
		pid_t *t;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		t = realloc(env.threads, (n + 1) * sizeof(*t));
		if (!t) {
			closedir(dir);
			return -1;
		}
		env.threads = t;
		env.threads[n++] = atoi(d->d_name);
	}
	closedir(dir);
	env.nthreads = n;
	return n ? 0 : -1;
}

static int one_thread(pid_t tid)
{
	env.threads = malloc(sizeof(*env.threads));
	if (!env.threads)
		return -1;
	env.threads[0] = tid;
	env.nthreads = 1;
	return 0;
}

static int choose_threads(void)
{
	char path[64];

	if (system_wide())
		return one_thread(-1);
	if (env.cmd) {
		env.inherit = true;
		return one_thread(env.child.proc.pid);
	}
	env.inherit = true;
	if (env.c.pid)
		return list_threads(env.c.pid);
	snprintf(path, sizeof(path), "/proc/%d", env.c.tid);
	if (access(path, F_OK)) {
		kfit_err("no thread %d", env.c.tid);
		return -1;
	}
	return one_thread(env.c.tid);
}

/*
 * How an event is shown: its label (the name= term, else as written),
 * inside its group's name when the group has one: "group1{cycles}".
 */
static const char *shown_name(const struct kfit_event *e)
{
	static char buf[KFIT_EVENT_NAME_LEN + 40];

	if (!e->group[0])
		return e->label;
	snprintf(buf, sizeof(buf), "%s{%s}", e->group, e->label);
	return buf;
}

/* For messages: the label, and what was written when name= renamed it */
static const char *said_name(const struct kfit_event *e)
{
	static char buf[2 * KFIT_EVENT_NAME_LEN + 48];

	/* its own copy: shown_name()'s buffer is reused for a leader's name */
	if (!strcmp(e->label, e->name))
		snprintf(buf, sizeof(buf), "%s", shown_name(e));
	else
		snprintf(buf, sizeof(buf), "%s (%s)", shown_name(e), e->name);
	return buf;
}

/* ---- counters ------------------------------------------------------------- */

/* A tracepoint glob opens hundreds of counters: one fd each per CPU */
static void check_nofile(void)
{
	long need = (long)env.evl.n * env.nthreads;
	struct rlimit rl;
	int cpu;

	if (system_wide()) {
		for (need = 0, cpu = 0; cpu < env.ncpus; cpu++)
			need += env.cpu_on[cpu];
		need *= env.evl.n;
	}
	kfit_raise_nofile();
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return;
	if ((rlim_t)need + 64 > rl.rlim_cur)
		kfit_warn("%d events need %ld file descriptors, about RLIMIT_NOFILE (%llu) or more: the last ones will be refused",
			  env.evl.n, need, (unsigned long long)rl.rlim_cur);
}

/* Opens what it can; an event that opens nowhere keeps its first error */
static int open_counters(void)
{
	struct kfit_perf_where w = {
		.tids = env.threads,
		.ntids = env.nthreads,
		/* a task is counted wherever it runs, into slot 0 */
		.cpus = system_wide() ? env.cpu_on : NULL,
		.ncpus = env.ncpus,
		.inherit = env.inherit,
		.enable_on_exec = env.cmd && !system_wide(),
	};

	check_nofile();
	return kfit_perf_set_open(&env.ctrs, &env.evl, &w);
}

/* Why event ev opened nowhere */
static const char *event_why(int ev, char *buf, size_t len)
{
	const struct kfit_event *e = &env.evl.ev[ev];
	int err = env.ctrs.err[ev];
	struct rlimit rl;

	/* a member fails with its leader: say so, not the leader's reason */
	if (e->leader != ev && env.ctrs.err[e->leader]) {
		snprintf(buf, len, "not counted: its group's leader %s was refused",
			 shown_name(&env.evl.ev[e->leader]));
		return buf;
	}
	if (err == -EMFILE && !getrlimit(RLIMIT_NOFILE, &rl)) {
		snprintf(buf, len, "no file descriptor left (RLIMIT_NOFILE %llu)",
			 (unsigned long long)rl.rlim_cur);
		return buf;
	}
	return kfit_event_why(e, err, &env.pmu, buf, len);
}

static int report_unsupported(void)
{
	char why[256];
	int ev, n = 0;

	for (ev = 0; ev < env.evl.n; ev++) {
		if (!env.ctrs.err[ev]) {
			n++;
			continue;
		}
		kfit_err("%s: %s", said_name(&env.evl.ev[ev]),
			 event_why(ev, why, sizeof(why)));
	}
	if (!n)
		kfit_err("no event could be counted");
	return n ? 0 : -1;
}

/* Sum every counter's reading into cur[ev * ncpus + cpu] (a task's: cpu 0) */
static void read_counters(void)
{
	const struct kfit_perf_counter *k;
	struct kfit_perf_count r;
	struct pmc_reading *c;
	int i;

	memset(env.cur, 0, (size_t)env.evl.n * env.ncpus * sizeof(*env.cur));
	for (i = 0; i < env.ctrs.n; i++) {
		k = &env.ctrs.c[i];
		if (kfit_perf_read(k->fd, &r)) {
			env.read_errors++;
			continue;
		}
		c = &env.cur[k->ev * env.ncpus + (k->cpu < 0 ? 0 : k->cpu)];
		c->counter += r.value;
		c->enabled += r.enabled;
		c->running += r.running;
	}
}

/* ---- --per-task: BPF ------------------------------------------------------- */

/* The process followed: -p PID, or the command (held before its exec) */
static int seed_followed(struct pmcstat_bpf *s)
{
	__u32 pid = env.cmd ? env.child.proc.pid : env.c.pid;
	__u8 one = 1;

	return bpf_map_update_elem(bpf_map__fd(s->maps.tracked), &pid, &one,
				   BPF_ANY) ? -errno : 0;
}

static int load_bpf(void *ctx, bool btf)
{
	struct pmcstat_bpf *s;
	struct bpf_program *p;
	__u32 key;
	int i, err, fd;

	(void)ctx;
	s = pmcstat_bpf__open();
	if (!s)
		return -errno;
	bpf_object__for_each_program(p, s->obj)
		bpf_program__set_autoload(p, kfit_tp_wanted(p, btf));
	s->rodata->nr_events = env.evl.n;
	s->rodata->nr_cpus = env.ncpus;
	s->rodata->follow = following();
	if (!following())	/* preallocated: no room taken for nothing */
		bpf_map__set_max_entries(s->maps.tracked, 1);
	bpf_map__set_max_entries(s->maps.counters, env.evl.n * env.ncpus);
	/* the fork and exit programs only grow and prune tracked */
	bpf_program__set_autoload(btf ? s->progs.fork_btf : s->progs.fork_raw,
				  following());
	bpf_program__set_autoload(btf ? s->progs.exit_btf : s->progs.exit_raw,
				  following());
	err = pmcstat_bpf__load(s);
	if (!err && following())
		err = seed_followed(s);
	fd = bpf_map__fd(s->maps.counters);
	for (i = 0; !err && i < env.ctrs.n; i++) {
		key = env.ctrs.c[i].ev * env.ncpus + env.ctrs.c[i].cpu;
		if (bpf_map_update_elem(fd, &key, &env.ctrs.c[i].fd, BPF_ANY))
			err = -errno;
	}
	if (!err)
		err = pmcstat_bpf__attach(s);
	if (err) {
		pmcstat_bpf__destroy(s);
		return err;
	}
	env.skel = s;
	return 0;
}

static int start_bpf(void)
{
	if (kfit_check_privileges())
		return -1;
	return kfit_tp_start(load_bpf, NULL, "sched_switch", &env.mode) ? -1 : 0;
}

static int cmp_key(const void *a, const void *b)
{
	const struct pmc_task_key *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static struct kfit_entries task_ents;	/* the tasks map, as last read */

static int read_tasks(void)
{
	int fd = bpf_map__fd(env.skel->maps.tasks);
	struct task_row *rows;
	int i, n, err;

	err = kfit_hash_read(fd, NULL, NULL, 0, &task_ents);
	if (err) {
		kfit_err("cannot read the tasks map: %s", kfit_reason(err));
		return err;
	}
	n = task_ents.n;
	rows = malloc((n + 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		memcpy(&rows[i].key, kfit_entry_key(&task_ents, i), sizeof(rows[i].key));
		memcpy(&rows[i].t, kfit_entry_value(&task_ents, i), sizeof(rows[i].t));
	}
	if (n)	/* rows is NULL when the map is empty */
		qsort(rows, n, sizeof(*rows), cmp_key);
	free(env.ptasks);
	env.ptasks = env.tasks;
	env.nptasks = env.ntasks;
	env.tasks = rows;
	env.ntasks = n;
	return 0;
}

/*
 * Make every counted CPU switch once, after the counters were stopped:
 * each CPU's last stretch is then charged to the task that ran it.
 */
static void flush_cpus(void)
{
	cpu_set_t old, one;
	int cpu;

	if (sched_getaffinity(0, sizeof(old), &old))
		return;
	for (cpu = 0; cpu < env.ncpus && cpu < CPU_SETSIZE; cpu++) {
		if (!env.cpu_on[cpu])
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one)) {
			kfit_warn("cannot run on CPU %d (%s): its counts since its last switch are charged to no task",
				  cpu, strerror(errno));
			env.not_switched++;
			continue;
		}
		usleep(1000);
	}
	sched_setaffinity(0, sizeof(old), &old);
}

/* ---- figures -------------------------------------------------------------- */

struct figure {
	__u64 raw, enabled, running;
	double value;		/* scaled for multiplexing */
	int status;		/* 0 counted, 1 not counted, 2 not supported */
};

static const char *const status_name[] = { "counted", "not counted", "not supported" };
static const char *const status_text[] = { "", "<not counted>", "<not supported>" };

static struct figure figure_of(const struct pmc_reading *r, int ev)
{
	struct figure f = { .raw = r->counter, .enabled = r->enabled,
			    .running = r->running };

	if (env.ctrs.err[ev])
		f.status = 2;
	else if (!r->running)
		f.status = 1;
	else
		f.value = r->running < r->enabled ?
			  (double)r->counter * r->enabled / r->running : r->counter;
	return f;
}

static struct pmc_reading delta(int ev, int cpu)
{
	const struct pmc_reading *c = &env.cur[ev * env.ncpus + cpu];
	const struct pmc_reading *p = &env.prev[ev * env.ncpus + cpu];

	return (struct pmc_reading){ c->counter - p->counter,
				     c->enabled - p->enabled,
				     c->running - p->running };
}

/* cpu -1: the total over the counted CPUs (sums of scaled values) */
static struct figure figure_at(int ev, int cpu)
{
	struct figure f, one;
	struct pmc_reading d;
	int i;

	if (cpu >= 0) {
		d = delta(ev, cpu);
		return figure_of(&d, ev);
	}
	memset(&f, 0, sizeof(f));
	f.status = env.ctrs.err[ev] ? 2 : 1;
	for (i = 0; i < env.ncpus; i++) {
		if (!env.cpu_on[i])
			continue;
		one = figure_at(ev, i);
		f.raw += one.raw;
		f.enabled += one.enabled;
		f.running += one.running;
		f.value += one.value;
		if (one.status == 0)
			f.status = 0;
	}
	return f;
}

static bool is_clock(const struct kfit_event *e)
{
	return !strcmp(e->unit, "ns");
}

/* Derived ratios, shown where both sides are counted */
struct ratio {
	const char *name;
	__u32 type;
	__u64 num, den;
	double mult;
};

#define CACHE(id, op, res) ((id) | (op) << 8 | (res) << 16)
#define L1D_R(res) CACHE(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, res)
#define LLC_R(res) CACHE(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, res)
#define DTLB_R(res) CACHE(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ, res)

static const struct ratio ratios[] = {
	{ "IPC", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	  PERF_COUNT_HW_CPU_CYCLES, 1 },
	{ "cache-miss%", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
	  PERF_COUNT_HW_CACHE_REFERENCES, 100 },
	{ "branch-miss%", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 100 },
	{ "L1d-miss%", PERF_TYPE_HW_CACHE, L1D_R(PERF_COUNT_HW_CACHE_RESULT_MISS),
	  L1D_R(PERF_COUNT_HW_CACHE_RESULT_ACCESS), 100 },
	{ "LLC-miss%", PERF_TYPE_HW_CACHE, LLC_R(PERF_COUNT_HW_CACHE_RESULT_MISS),
	  LLC_R(PERF_COUNT_HW_CACHE_RESULT_ACCESS), 100 },
	{ "dTLB-miss%", PERF_TYPE_HW_CACHE, DTLB_R(PERF_COUNT_HW_CACHE_RESULT_MISS),
	  DTLB_R(PERF_COUNT_HW_CACHE_RESULT_ACCESS), 100 },
};

#define NRATIOS (int)(sizeof(ratios) / sizeof(ratios[0]))

static int find_event(__u32 type, __u64 config)
{
	int ev;

	for (ev = 0; ev < env.evl.n; ev++)
		if (env.evl.ev[ev].attr.type == type &&
		    env.evl.ev[ev].attr.config == config && !env.ctrs.err[ev])
			return ev;
	return -1;
}

/* "CPUs utilized": task-clock, or cpu-clock when counting tasks */
static int clock_event(void)
{
	int ev = find_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);

	if (ev < 0 && !system_wide())
		ev = find_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	return ev;
}

/* Returns false when the ratio does not apply or a side was not counted */
static bool ratio_value(int r, int cpu, __u64 elapsed, double *out)
{
	struct figure n, d;
	int num, den;

	if (r == NRATIOS) {
		num = clock_event();
		if (num < 0 || !elapsed)
			return false;
		n = figure_at(num, cpu);
		*out = n.value / elapsed;
		return n.status == 0;
	}
	num = find_event(ratios[r].type, ratios[r].num);
	den = find_event(ratios[r].type, ratios[r].den);
	if (num < 0 || den < 0)
		return false;
	n = figure_at(num, cpu);
	d = figure_at(den, cpu);
	if (n.status || d.status || d.value == 0)
		return false;
	*out = ratios[r].mult * n.value / d.value;
	return true;
}

static bool ratio_shown(int r)
{
	if (r == NRATIOS)
		return clock_event() >= 0;
	return find_event(ratios[r].type, ratios[r].num) >= 0 &&
	       find_event(ratios[r].type, ratios[r].den) >= 0;
}

static const char *ratio_name(int r)
{
	return r == NRATIOS ? "CPUs utilized" : ratios[r].name;
}

/* ---- text ----------------------------------------------------------------- */

static void cpus_text(char *buf, size_t len)
{
	int cpu, lo = -1, n = 0;
	size_t off = 0;

	buf[0] = 0;
	for (cpu = 0; cpu <= env.ncpus; cpu++) {
		bool on = cpu < env.ncpus && env.cpu_on[cpu];

		if (on && lo < 0)
			lo = cpu;
		if (on || lo < 0)
			continue;
		off += snprintf(buf + off, off < len ? len - off : 0, "%s%d",
				n++ ? "," : "", lo);
		if (cpu - 1 > lo)
			off += snprintf(buf + off, off < len ? len - off : 0,
					"-%d", cpu - 1);
		lo = -1;
	}
}

static void value_text(char *buf, size_t len, const struct kfit_event *e,
		       const struct figure *f)
{
	char pct[16] = "";

	if (f->status) {
		snprintf(buf, len, "%s", status_text[f->status]);
		return;
	}
	if (f->running < f->enabled)
		snprintf(pct, sizeof(pct), " (%.0f%%)", 100.0 * f->running / f->enabled);
	if (is_clock(e))
		snprintf(buf, len, "%.2f%s", f->value / 1e6, pct);
	else if (e->scale != 1.0)
		snprintf(buf, len, "%.4g%s", f->value * e->scale, pct);
	else
		snprintf(buf, len, "%.0f%s", f->value, pct);
}

static void value_cell(struct kfit_table *t, const struct kfit_event *e,
		       const struct figure *f)
{
	char buf[64];

	value_text(buf, sizeof(buf), e, f);
	kfit_table_cell(t, "%s", buf);
}

static char *column_name(const struct kfit_event *e)
{
	char *s;

	if (is_clock(e))
		return asprintf(&s, "%s (ms)", shown_name(e)) < 0 ? NULL : s;
	if (*e->unit)
		return asprintf(&s, "%s (%s)", shown_name(e), e->unit) < 0 ? NULL : s;
	return strdup(shown_name(e));
}

/*
 * What the counts table shows: each event, then each ratio that applies
 * (item >= evl.n: ratio item - evl.n), for a CPU or the total (cpu -1).
 */
static int nitems(void)
{
	int r, n = env.evl.n;

	for (r = 0; r <= NRATIOS; r++)
		n += ratio_shown(r);
	return n;
}

/* The ratio of item i, i >= evl.n */
static int item_ratio(int i)
{
	int r;

	i -= env.evl.n;
	for (r = 0; r <= NRATIOS; r++)
		if (ratio_shown(r) && i-- == 0)
			break;
	return r;
}

static char *item_name(int i)
{
	if (i < env.evl.n)
		return column_name(&env.evl.ev[i]);
	return strdup(ratio_name(item_ratio(i)));
}

static void item_text(char *buf, size_t len, int i, int cpu, __u64 elapsed)
{
	struct figure f;
	double v;

	if (i < env.evl.n) {
		f = figure_at(i, cpu);
		value_text(buf, len, &env.evl.ev[i], &f);
	} else if (ratio_value(item_ratio(i), cpu, elapsed, &v)) {
		snprintf(buf, len, "%.2f", v);
	} else {
		snprintf(buf, len, "-");
	}
}

static void cpu_label(char *buf, size_t len, int cpu)
{
	if (cpu < 0)
		snprintf(buf, len, "total");
	else
		snprintf(buf, len, "%d", cpu);
}

/* The rows of the counts table: the counted CPUs when shown, then -1 (total) */
static int row_cpus(int *cpus)
{
	int cpu, n = 0;

	for (cpu = 0; cpu < env.ncpus && per_cpu_rows(); cpu++)
		if (env.cpu_on[cpu])
			cpus[n++] = cpu;
	cpus[n++] = -1;
	return n;
}

/* A table of ncols columns: first, then names[0..ncols-2], right aligned */
static struct kfit_table *new_table(int ncols, const char *first, char **names)
{
	const char **h = calloc(ncols, sizeof(*h));
	char *align = calloc(ncols + 1, 1);
	struct kfit_table *t = NULL;
	int i;

	if (h && align) {
		h[0] = first;
		align[0] = 'l';
		for (i = 1; i < ncols; i++) {
			h[i] = names[i - 1] ? names[i - 1] : "?";
			align[i] = 'r';
		}
		t = kfit_table_new(ncols, h, align);
	}
	free(h);
	free(align);
	return t;
}

/* One column per event and ratio, one row per CPU */
static struct kfit_table *counts_by_column(int n, const int *cpus, int ncpus,
					   __u64 elapsed)
{
	struct kfit_table *t;
	char **names, buf[64];
	int i, c;

	names = calloc(n, sizeof(*names));
	if (!names)
		return NULL;
	for (i = 0; i < n; i++)
		names[i] = item_name(i);
	t = new_table(n + 1, "CPU", names);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	for (c = 0; t && c < ncpus; c++) {
		kfit_table_row(t);
		cpu_label(buf, sizeof(buf), cpus[c]);
		kfit_table_cell(t, "%s", buf);
		for (i = 0; i < n; i++) {
			item_text(buf, sizeof(buf), i, cpus[c], elapsed);
			kfit_table_cell(t, "%s", buf);
		}
	}
	return t;
}

/* Many events (a tracepoint glob): one row per event and ratio, as perf */
static struct kfit_table *counts_by_row(int n, const int *cpus, int ncpus,
					__u64 elapsed)
{
	struct kfit_table *t;
	char **names, buf[64];
	int i, c;

	names = calloc(ncpus, sizeof(*names));
	if (!names)
		return NULL;
	for (c = 0; c < ncpus; c++)
		if (cpus[c] < 0)
			names[c] = strdup("total");
		else if (asprintf(&names[c], "CPU %d", cpus[c]) < 0)
			names[c] = NULL;
	t = new_table(ncpus + 1, "EVENT", names);
	for (c = 0; c < ncpus; c++)
		free(names[c]);
	free(names);
	for (i = 0; t && i < n; i++) {
		char *name = item_name(i);

		kfit_table_row(t);
		kfit_table_cell(t, "%s", name ? name : "?");
		free(name);
		for (c = 0; c < ncpus; c++) {
			item_text(buf, sizeof(buf), i, cpus[c], elapsed);
			kfit_table_cell(t, "%s", buf);
		}
	}
	return t;
}

static int print_counts_table(__u64 elapsed)
{
	int *cpus = malloc((env.ncpus + 1) * sizeof(*cpus));
	struct kfit_table *t;
	int n;

	if (!cpus)
		return -ENOMEM;
	n = row_cpus(cpus);
	if (env.evl.n <= COLUMNS_MAX)
		t = counts_by_column(nitems(), cpus, n, elapsed);
	else
		t = counts_by_row(nitems(), cpus, n, elapsed);
	free(cpus);
	if (!t)
		return -ENOMEM;
	kfit_table_print(t, stdout);
	kfit_table_free(t);
	return 0;
}

/* ---- tasks ---------------------------------------------------------------- */

/* A task's row with this report's share of its counts (everything when not -i) */
static struct task_row task_share(const struct task_row *row)
{
	const struct task_row *p = NULL;
	struct task_row d = *row;
	int ev;

	if (env.c.interval_ns && env.nptasks)
		p = bsearch(&row->key, env.ptasks, env.nptasks,
			    sizeof(*env.ptasks), cmp_key);
	for (ev = 0; p && ev < env.evl.n; ev++) {
		d.t.sum[ev].counter -= p->t.sum[ev].counter;
		d.t.sum[ev].enabled -= p->t.sum[ev].enabled;
		d.t.sum[ev].running -= p->t.sum[ev].running;
	}
	return d;
}

static struct figure task_figure(const struct task_row *share, int ev)
{
	struct figure f = figure_of(&share->t.sum[ev], ev);

	/* a task that ran no counted time (e.g. only after the stop) counted 0 */
	if (f.status == 1)
		f.status = 0;
	return f;
}

/* -p's and the command's tasks are the only ones charged (following()) */
static bool task_listed(const struct task_row *row)
{
	if (env.c.tid && (int)row->key.tid != env.c.tid)
		return false;
	if (env.c.comm[0] && strncmp(row->t.comm, env.c.comm, sizeof(row->t.comm)))
		return false;
	return true;
}

static void task_comm(const struct task_row *row, char *buf, size_t len)
{
	if (row->key.tid == 0)
		snprintf(buf, len, "swapper/%u", row->key.cpu);
	else
		snprintf(buf, len, "%.16s", row->t.comm);
}

static int by_first_event(const void *a, const void *b)
{
	const struct task_row *x = a, *y = b;
	double vx = task_figure(x, 0).value, vy = task_figure(y, 0).value;

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return cmp_key(a, b);
}

/* The listed tasks' shares of this report, busiest first (by the first event) */
static struct task_row *sorted_tasks(int *n)
{
	struct task_row *v = malloc((env.ntasks + 1) * sizeof(*v));
	int i;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < env.ntasks; i++)
		if (task_listed(&env.tasks[i]))
			v[(*n)++] = task_share(&env.tasks[i]);
	qsort(v, *n, sizeof(*v), by_first_event);
	return v;
}

static int print_tasks_table(void)
{
	const char *h[3 + PMC_MAX_EVENTS];
	char align[4 + PMC_MAX_EVENTS], comm[32];
	struct kfit_table *t;
	struct task_row *v;
	struct figure f;
	int i, ev, n;

	v = sorted_tasks(&n);
	if (!v)
		return -ENOMEM;
	h[0] = "TID";
	h[1] = "PID";
	h[2] = "COMM";
	memcpy(align, "rrl", 3);
	for (ev = 0; ev < env.evl.n; ev++) {
		h[3 + ev] = column_name(&env.evl.ev[ev]);
		align[3 + ev] = 'r';
	}
	align[3 + env.evl.n] = 0;
	t = kfit_table_new(3 + env.evl.n, h, align);
	for (ev = 0; ev < env.evl.n; ev++)
		free((char *)h[3 + ev]);
	if (!t) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < n && i < (int)env.top; i++) {
		kfit_table_row(t);
		kfit_table_cell(t, "%u", v[i].key.tid);
		kfit_table_cell(t, "%u", v[i].t.pid);
		task_comm(&v[i], comm, sizeof(comm));
		kfit_table_cell(t, "%s", comm);
		for (ev = 0; ev < env.evl.n; ev++) {
			f = task_figure(&v[i], ev);
			value_cell(t, &env.evl.ev[ev], &f);
		}
	}
	printf("\nTop %d of %d tasks:\n", n < (int)env.top ? n : (int)env.top, n);
	kfit_table_print(t, stdout);
	kfit_table_free(t);
	free(v);
	return 0;
}

static __u64 bss_dropped(void)
{
	return env.skel ? env.skel->bss->dropped : 0;
}

static __u64 bss_read_errors(void)
{
	return env.skel ? env.skel->bss->read_errors : 0;
}

/* ---- reports -------------------------------------------------------------- */

static void print_text(__u64 now, __u64 elapsed)
{
	char cpus[256];

	cpus_text(cpus, sizeof(cpus));
	if (env.c.interval_ns)
		printf("%.3f s: ", (now - env.start_ns) / 1e9);
	if (system_wide())
		printf("Counts for %s, CPUs %s", target_name(), cpus);
	else if (env.cmd)
		printf("Counts for '%s'", env.cmd[0]);
	else
		printf("Counts for %s", target_name());
	printf(", over %.3f s:\n", elapsed / 1e9);
	print_counts_table(elapsed);
	if (env.per_task) {
		print_tasks_table();
		printf("%llu switches not charged (tasks map full), %llu counter reads failed\n",
		       (unsigned long long)bss_dropped(),
		       (unsigned long long)bss_read_errors());
	}
	if (env.read_errors)
		printf("%llu counter reads failed\n", (unsigned long long)env.read_errors);
	printf("\n");
}

static void json_count(struct kfit_json *j, int ev, int cpu)
{
	const struct kfit_event *e = &env.evl.ev[ev];
	struct figure f = figure_at(ev, cpu);

	kfit_json_begin_object(j, NULL);
	kfit_json_str(j, "event", e->label);
	kfit_json_str(j, "group", e->group);
	if (cpu >= 0)
		kfit_json_u64(j, "cpu", cpu);
	if (f.status)
		kfit_json_null(j, "value");
	else
		kfit_json_u64(j, "value", (__u64)(f.value + 0.5));
	kfit_json_u64(j, "raw", f.raw);
	kfit_json_u64(j, "enabled_ns", f.enabled);
	kfit_json_u64(j, "running_ns", f.running);
	kfit_json_str(j, "unit", e->unit);
	if (e->scale != 1.0 && !f.status)
		kfit_json_double(j, "scaled_value", f.value * e->scale);
	kfit_json_str(j, "status", status_name[f.status]);
	kfit_json_end_object(j);
}

static void json_tasks(struct kfit_json *j)
{
	struct task_row *v;
	struct figure f;
	char comm[32];
	int i, ev, n;

	v = sorted_tasks(&n);
	kfit_json_begin_array(j, "tasks");
	for (i = 0; v && i < n; i++) {
		kfit_json_begin_object(j, NULL);
		kfit_json_u64(j, "tid", v[i].key.tid);
		kfit_json_u64(j, "pid", v[i].t.pid);
		task_comm(&v[i], comm, sizeof(comm));
		kfit_json_str(j, "comm", comm);
		if (v[i].key.tid == 0)
			kfit_json_u64(j, "cpu", v[i].key.cpu);
		kfit_json_begin_array(j, "counts");
		for (ev = 0; ev < env.evl.n; ev++) {
			f = task_figure(&v[i], ev);
			kfit_json_begin_object(j, NULL);
			kfit_json_str(j, "event", env.evl.ev[ev].label);
			kfit_json_str(j, "group", env.evl.ev[ev].group);
			if (f.status)
				kfit_json_null(j, "value");
			else
				kfit_json_u64(j, "value", (__u64)(f.value + 0.5));
			kfit_json_u64(j, "raw", f.raw);
			kfit_json_end_object(j);
		}
		kfit_json_end_array(j);
		kfit_json_end_object(j);
	}
	kfit_json_end_array(j);
	kfit_json_u64(j, "tasks_dropped", bss_dropped());
	kfit_json_u64(j, "cpus_not_switched", env.not_switched);
	kfit_json_u64(j, "read_errors", bss_read_errors() + env.read_errors);
	free(v);
}

static void print_json(__u64 now, __u64 elapsed)
{
	struct kfit_json j;
	char why[256];
	double v;
	int ev, cpu, r;

	kfit_json_init(&j, stdout, false);
	kfit_json_begin_object(&j, NULL);
	kfit_json_str(&j, "target", target_name());
	kfit_json_u64(&j, "elapsed_ns", elapsed);
	if (env.c.interval_ns)
		kfit_json_u64(&j, "time_ns", now - env.start_ns);
	kfit_json_begin_array(&j, "counts");
	for (cpu = 0; cpu < env.ncpus && per_cpu_rows(); cpu++)
		for (ev = 0; env.cpu_on[cpu] && ev < env.evl.n; ev++)
			json_count(&j, ev, cpu);
	for (ev = 0; ev < env.evl.n; ev++)
		json_count(&j, ev, -1);
	kfit_json_end_array(&j);
	kfit_json_begin_array(&j, "ratios");
	for (r = 0; r <= NRATIOS; r++) {
		if (!ratio_value(r, -1, elapsed, &v))
			continue;
		kfit_json_begin_object(&j, NULL);
		kfit_json_str(&j, "name", ratio_name(r));
		kfit_json_double(&j, "value", v);
		kfit_json_end_object(&j);
	}
	kfit_json_end_array(&j);
	kfit_json_begin_array(&j, "unsupported");
	for (ev = 0; ev < env.evl.n; ev++) {
		if (!env.ctrs.err[ev])
			continue;
		kfit_json_begin_object(&j, NULL);
		kfit_json_str(&j, "event", env.evl.ev[ev].label);
		kfit_json_str(&j, "group", env.evl.ev[ev].group);
		kfit_json_str(&j, "written", env.evl.ev[ev].name);
		kfit_json_str(&j, "reason", event_why(ev, why, sizeof(why)));
		kfit_json_end_object(&j);
	}
	kfit_json_end_array(&j);
	if (env.cmd && env.child.done && !env.child.stopped) {
		kfit_json_i64(&j, "exit_status", env.child.status);
		if (env.child.signal)
			kfit_json_str(&j, "signal", sigabbrev_np(env.child.signal));
	}
	if (env.per_task) {
		kfit_json_str(&j, "mode", env.mode);
		json_tasks(&j);
	} else {
		kfit_json_u64(&j, "read_errors", env.read_errors);
	}
	kfit_json_end_object(&j);
	kfit_json_finish(&j);
}

static void csv_row(int ev, int cpu, __u64 now)
{
	const struct kfit_event *e = &env.evl.ev[ev];
	struct figure f = figure_at(ev, cpu);
	const char *s = env.sep;

	if (env.c.interval_ns)
		printf("%.6f%s", (now - env.start_ns) / 1e9, s);
	if (cpu >= 0)
		printf("%d%s", cpu, s);
	else
		printf("total%s", s);
	printf("%s%s", shown_name(e), s);
	if (f.status)
		printf("%s%s", status_text[f.status], s);
	else
		printf("%llu%s", (unsigned long long)(f.value + 0.5), s);
	printf("%s%s%llu%s%llu%s%.2f\n", e->unit, s,
	       (unsigned long long)f.enabled, s, (unsigned long long)f.running,
	       s, f.enabled ? 100.0 * f.running / f.enabled : 0.0);
}

static void print_csv(__u64 now)
{
	static bool header;
	const char *s = env.sep;
	int ev, cpu;

	if (!header) {
		printf("%s%scpu%sevent%svalue%sunit%senabled_ns%srunning_ns%srunning_pct\n",
		       env.c.interval_ns ? "time" : "", env.c.interval_ns ? s : "",
		       s, s, s, s, s, s);
		header = true;
	}
	for (cpu = 0; cpu < env.ncpus && per_cpu_rows(); cpu++)
		for (ev = 0; env.cpu_on[cpu] && ev < env.evl.n; ev++)
			csv_row(ev, cpu, now);
	for (ev = 0; ev < env.evl.n; ev++)
		csv_row(ev, -1, now);
}

static int report(void *ctx, bool last)
{
	__u64 now, elapsed;
	size_t sz = (size_t)env.evl.n * env.ncpus * sizeof(*env.cur);
	(void)ctx;

	if (last) {
		kfit_child_stop(&env.child);
		/* stop counting first, so that tasks and totals see the same end */
		kfit_perf_ioctl_leaders(&env.ctrs, PERF_EVENT_IOC_DISABLE);
		if (env.per_task)
			flush_cpus();
	}
	now = kfit_now_ns();
	read_counters();
	if (env.per_task && read_tasks())
		return -ENOMEM;
	elapsed = now - env.last_ns;
	if (env.c.timestamp && !env.sep && !env.c.json)
		kfit_print_time(stdout);
	if (env.c.json)
		print_json(now, elapsed);
	else if (env.sep)
		print_csv(now);
	else
		print_text(now, elapsed);
	fflush(stdout);
	if (env.c.interval_ns) {
		memcpy(env.prev, env.cur, sz);
		env.last_ns = now;
	}
	return 0;
}

/* ---- main ----------------------------------------------------------------- */

static int default_events(void)
{
	const char *clock = system_wide() ? "cpu-clock" : "task-clock";
	char spec[128];

	snprintf(spec, sizeof(spec), "%s,context-switches,cpu-migrations,page-faults%s",
		 clock, kfit_has_cpu_pmu(env.pmu.sysfs) ? ",cycles,instructions" : "");
	return add_events(spec);
}

static int check_args(int first, int argc, char **argv)
{
	if (first < argc)
		env.cmd = &argv[first];
	if (env.interval_ms && env.c.interval_ns != env.interval_ms * 1000000ULL) {
		fprintf(stderr, "pmcstat: -i and -I both given\n");
		return -1;
	}
	if (env.c.cpus.set && (env.c.pid || env.c.tid) && !env.per_task) {
		fprintf(stderr, "pmcstat: -C counts CPUs; a task is counted wherever it runs\n");
		return -1;
	}
	if (env.cmd && (env.c.pid || env.c.tid)) {
		fprintf(stderr, "pmcstat: a COMMAND and -p/-t: choose one target\n");
		return -1;
	}
	if (env.all_cpus && (env.c.pid || env.c.tid) && !env.per_task) {
		fprintf(stderr, "pmcstat: -a counts every task; it does not go with -p or -t (use --per-task to list tasks)\n");
		return -1;
	}
	if (env.c.comm[0] && !env.per_task) {
		fprintf(stderr, "pmcstat: --comm needs --per-task\n");
		return -1;
	}
	if (env.sep && env.c.json) {
		fprintf(stderr, "pmcstat: -x and -j: choose one output\n");
		return -1;
	}
	if (!env.evl.n && default_events())
		return -1;
	if (env.per_task && env.evl.n > PMC_MAX_EVENTS) {
		fprintf(stderr, "pmcstat: --per-task counts at most %d events (%d given)\n",
			PMC_MAX_EVENTS, env.evl.n);
		return -1;
	}
	return 0;
}

static int alloc_readings(void)
{
	size_t n = (size_t)env.evl.n * env.ncpus;

	env.cur = calloc(n, sizeof(*env.cur));
	env.prev = calloc(n, sizeof(*env.prev));
	return env.cur && env.prev ? 0 : -1;
}

static void describe(void)
{
	char what[256], cpus[128];

	cpus_text(cpus, sizeof(cpus));
	if (env.cmd && !system_wide())
		snprintf(what, sizeof(what), "%d event%s of '%s'",
			 env.evl.n, env.evl.n > 1 ? "s" : "", env.cmd[0]);
	else if (!system_wide())
		snprintf(what, sizeof(what), "%d event%s of %s",
			 env.evl.n, env.evl.n > 1 ? "s" : "", target_name());
	else
		snprintf(what, sizeof(what), "%d event%s, %s%s, CPUs %s",
			 env.evl.n, env.evl.n > 1 ? "s" : "", target_name(),
			 env.per_task ? ", per task" : "", cpus);
	kfit_tracing(what);
}

static int setup(void)
{
	if (choose_cpus() || alloc_readings())
		return -1;
	if (env.cmd && kfit_child_fork(&env.child, env.cmd))
		return -1;
	if (choose_threads())
		return -1;
	if (open_counters()) {
		kfit_err("out of memory");
		return -1;
	}
	if (report_unsupported())
		return -1;
	/* from here a signal ends the run with its report: BPF, the command */
	kfit_arm_cleanup();
	if (env.per_task && start_bpf())
		return -1;
	return 0;
}

static int run(void)
{
	int err;

	/* as perf stat: wall time from just before the command is let go */
	env.start_ns = env.last_ns = kfit_now_ns();
	if (!env.cmd || system_wide())
		kfit_perf_ioctl_leaders(&env.ctrs, PERF_EVENT_IOC_ENABLE);
	/* a command's counters start at its exec (enable_on_exec) */
	if (env.cmd && kfit_child_start(&env.child))
		return -1;
	describe();
	err = kfit_run(&env.c, &(struct kfit_loop){
		.report = report,
		.child = env.cmd ? &env.child : NULL,
	});
	kfit_child_note(&env.child);
	return err ? -1 : 0;
}

static void cleanup(void)
{
	kfit_child_stop(&env.child);
	pmcstat_bpf__destroy(env.skel);
	kfit_perf_set_close(&env.ctrs);
	free(env.cur);
	free(env.prev);
	free(env.cpu_on);
	free(env.threads);
	free(env.tasks);
	free(env.ptasks);
	kfit_event_list_free(&env.evl);
}

int main(int argc, char **argv)
{
	int first, err;

	first = kfit_parse_args(&tool, &env.c, argc, argv);
	if (first < 0 || check_args(first, argc, argv)) {
		kfit_event_list_free(&env.evl);
		return 2;
	}
	kfit_setup("pmcstat", &env.c);
	if (kfit_io_setup(env.c.output, env.cmd)) {
		kfit_event_list_free(&env.evl);
		return 1;
	}
	/* after the output is set up: -l --output FILE lists into FILE */
	if (env.list) {
		kfit_events_list(stdout, &env.pmu);
		kfit_event_list_free(&env.evl);
		return 0;
	}
	err = setup();
	/* a signal while loading: nothing has run, nothing to report */
	if (!err && kfit_exiting) {
		cleanup();
		return kfit_interrupted();
	}
	if (!err)
		err = run();
	cleanup();
	return kfit_child_exit(&env.child, err);
}
