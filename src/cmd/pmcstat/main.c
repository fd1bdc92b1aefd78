// SPDX-License-Identifier: GPL-2.0
/*
 * pmcstat: perf counters counted per CPU, per task and per command, in
 * the manner of perf stat. Counting itself needs no BPF: the kernel counts
 * and we read(). --per-task adds bpf/pmcstat.bpf.c, which reads the same
 * counters at every context switch and charges each task its deltas.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>
#include "pmcstat.skel.h"
#include "child.h"
#include "diag.h"
#include "opts.h"
#include "perf.h"
#include "pmu.h"
#include "run.h"
#include "serve.h"
#include "state.h"

enum {
	OPT_AGGR = 256, OPT_PER_TASK, OPT_PER_CPU,
};

static const struct kfit_opt pmcstat_opts[] = {
	{ "event", 'e', "LIST", "events to count (perf syntax; -l lists them)" },
	{ "all-cpus", 'a', NULL, "count on every CPU (the default without -p, -t or COMMAND)" },
	{ "aggr", OPT_AGGR, NULL, "totals only, no row per CPU" },
	{ "per-cpu", OPT_PER_CPU, NULL,
	  "a row per CPU (the text report's default), and with --serve a series per CPU" },
	{ "per-task", OPT_PER_TASK, NULL, "charge counts to tasks at every context switch (BPF)" },
	{ "top", 'n', "N", "with --per-task: show the top N tasks (default 10)" },
	{ "field-separator", 'x', "SEP", "CSV output with SEP between fields" },
	{ "interval-ms", 'I', "MS", "perf's -I: like -i, in milliseconds" },
	{ "list", 'l', NULL, "list the events and PMUs of this machine" },
	{ NULL },
};

/* The state the parts share (state.h) */
struct env env = { .top = 10 };

static int add_events(const char *spec)
{
	char err[256];

	if (kfit_pmu_parse(&env.evl, spec, &env.pmu, err, sizeof(err)) == 0)
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
	case OPT_PER_CPU:
		env.per_cpu = true;
		return 0;
	case 'n':
		if (kfit_opts_parse_uint(arg, 1000000, &env.top) == 0)
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
		if (kfit_opts_parse_uint(arg, 86400000, &env.interval_ms) == 0) {
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
		    "pmcstat -x, -e page-faults -- ./prog   # CSV\n"
		    "pmcstat --serve 9435 -e cs,page-faults  # Prometheus metrics, :9435/metrics\n",
	.common = KFIT_OPT_PID | KFIT_OPT_TID | KFIT_OPT_COMM | KFIT_OPT_CPU |
		  KFIT_OPT_DURATION | KFIT_OPT_INTERVAL | KFIT_OPT_JSON |
		  KFIT_OPT_TIMESTAMP | KFIT_OPT_SERVE | KFIT_OPT_RAW_TP,
	.opts = pmcstat_opts,
	.parse = parse_opt,
	.ctx = &env,
	.command = true,
};

/* ---- targets ------------------------------------------------------------ */

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
	if (kfit_opts_parse_cpulist(buf, env.ncpus, &set))
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
	if (!pmcstat_system_wide()) {
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

	if (pmcstat_system_wide())
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

/* ---- main ----------------------------------------------------------------- */

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
			pmcstat_flush_cpus();
	}
	now = kfit_now_ns();
	pmcstat_read_counters();
	if (env.per_task && pmcstat_read_tasks())
		return -ENOMEM;
	elapsed = now - env.last_ns;
	if (env.c.timestamp && !env.sep && !env.c.json)
		kfit_print_time(stdout);
	if (env.c.json)
		pmcstat_print_json(now, elapsed);
	else if (env.sep)
		pmcstat_print_csv(now);
	else
		pmcstat_print_text(now, elapsed);
	fflush(stdout);
	if (env.c.interval_ns) {
		memcpy(env.prev, env.cur, sz);
		env.last_ns = now;
	}
	return 0;
}

static int default_events(void)
{
	const char *clock = pmcstat_system_wide() ? "cpu-clock" : "task-clock";
	char spec[128];

	snprintf(spec, sizeof(spec), "%s,context-switches,cpu-migrations,page-faults%s",
		 clock, kfit_pmu_has_cpu(env.pmu.sysfs) ? ",cycles,instructions" : "");
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
	if (env.c.raw_tp && !env.per_task) {
		fprintf(stderr, "pmcstat: --raw-tp needs --per-task (a plain count runs no BPF)\n");
		return -1;
	}
	if (env.per_cpu && env.aggr) {
		fprintf(stderr, "pmcstat: --per-cpu and --aggr exclude each other\n");
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

	pmcstat_cpus_text(cpus, sizeof(cpus));
	if (env.cmd && !pmcstat_system_wide())
		snprintf(what, sizeof(what), "%d event%s of '%s'",
			 env.evl.n, env.evl.n > 1 ? "s" : "", env.cmd[0]);
	else if (!pmcstat_system_wide())
		snprintf(what, sizeof(what), "%d event%s of %s",
			 env.evl.n, env.evl.n > 1 ? "s" : "", pmcstat_target_name());
	else
		snprintf(what, sizeof(what), "%d event%s, %s%s, CPUs %s",
			 env.evl.n, env.evl.n > 1 ? "s" : "", pmcstat_target_name(),
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
	if (pmcstat_open_counters()) {
		kfit_err("out of memory");
		return -1;
	}
	if (pmcstat_report_unsupported())
		return -1;
	/* from here a signal ends the run with its report: BPF, the command */
	kfit_arm_cleanup();
	if (env.per_task && pmcstat_start_bpf())
		return -1;
	return 0;
}

static int run(void)
{
	int err;

	/* as perf stat: wall time from just before the command is let go */
	env.start_ns = env.last_ns = kfit_now_ns();
	if (!env.cmd || pmcstat_system_wide())
		kfit_perf_ioctl_leaders(&env.ctrs, PERF_EVENT_IOC_ENABLE);
	/* a command's counters start at its exec (enable_on_exec) */
	if (env.cmd && kfit_child_start(&env.child))
		return -1;
	describe();
	err = kfit_run(&env.c, &(struct kfit_loop){
		.report = report,
		.child = env.cmd ? &env.child : NULL,
		.serve = env.srv,
		.metrics = pmcstat_metrics,
	});
	kfit_child_note(&env.child);
	return err ? -1 : 0;
}

static void cleanup(void)
{
	kfit_child_stop(&env.child);
	pmcstat_stop_bpf();
	kfit_perf_set_close(&env.ctrs);
	free(env.cur);
	free(env.prev);
	free(env.cpu_on);
	free(env.threads);
	free(env.tasks);
	free(env.ptasks);
	kfit_pmu_event_list_free(&env.evl);
	kfit_serve_free(env.srv);
	pmcstat_metrics_free();
}

int main(int argc, char **argv)
{
	int first, err;

	first = kfit_opts_parse_args(&tool, &env.c, argc, argv);
	if (first < 0 || check_args(first, argc, argv)) {
		kfit_pmu_event_list_free(&env.evl);
		return 2;
	}
	kfit_setup("pmcstat", &env.c);
	if (kfit_child_io_setup(env.c.output, env.cmd) ||
	    (!env.list && kfit_serve_listen(&env.srv, &env.c, "pmcstat"))) {
		kfit_pmu_event_list_free(&env.evl);
		return 1;
	}
	/* after the output is set up: -l --output FILE lists into FILE */
	if (env.list) {
		kfit_pmu_list(stdout, &env.pmu);
		kfit_pmu_event_list_free(&env.evl);
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
