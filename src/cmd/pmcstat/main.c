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
#include "output.h"
#include "perfev.h"
#include "pmu.h"
#include "run.h"
#include "state.h"

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

/* The state the parts share (state.h) */
struct env env = { .top = 10 };

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

static const char *const status_name[] = { "counted", "not counted", "not supported" };
static const char *const status_text[] = { "", "<not counted>", "<not supported>" };

static bool is_clock(const struct kfit_event *e)
{
	return !strcmp(e->unit, "ns");
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
		return asprintf(&s, "%s (ms)", pmcstat_shown_name(e)) < 0 ? NULL : s;
	if (*e->unit)
		return asprintf(&s, "%s (%s)", pmcstat_shown_name(e), e->unit) < 0 ? NULL : s;
	return strdup(pmcstat_shown_name(e));
}

/*
 * What the counts table shows: each event, then each ratio that applies
 * (item >= evl.n: ratio item - evl.n), for a CPU or the total (cpu -1).
 */
static int nitems(void)
{
	int r, n = env.evl.n;

	for (r = 0; r <= NRATIOS; r++)
		n += pmcstat_ratio_shown(r);
	return n;
}

/* The ratio of item i, i >= evl.n */
static int item_ratio(int i)
{
	int r;

	i -= env.evl.n;
	for (r = 0; r <= NRATIOS; r++)
		if (pmcstat_ratio_shown(r) && i-- == 0)
			break;
	return r;
}

static char *item_name(int i)
{
	if (i < env.evl.n)
		return column_name(&env.evl.ev[i]);
	return strdup(pmcstat_ratio_name(item_ratio(i)));
}

static void item_text(char *buf, size_t len, int i, int cpu, __u64 elapsed)
{
	struct figure f;
	double v;

	if (i < env.evl.n) {
		f = pmcstat_figure_at(i, cpu);
		value_text(buf, len, &env.evl.ev[i], &f);
	} else if (pmcstat_ratio_value(item_ratio(i), cpu, elapsed, &v)) {
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
			    sizeof(*env.ptasks), pmcstat_cmp_key);
	for (ev = 0; p && ev < env.evl.n; ev++) {
		d.t.sum[ev].counter -= p->t.sum[ev].counter;
		d.t.sum[ev].enabled -= p->t.sum[ev].enabled;
		d.t.sum[ev].running -= p->t.sum[ev].running;
	}
	return d;
}

static struct figure task_figure(const struct task_row *share, int ev)
{
	struct figure f = pmcstat_figure_of(&share->t.sum[ev], ev);

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
	return pmcstat_cmp_key(a, b);
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
		       (unsigned long long)pmcstat_bss_dropped(),
		       (unsigned long long)pmcstat_bss_read_errors());
	}
	if (env.read_errors)
		printf("%llu counter reads failed\n", (unsigned long long)env.read_errors);
	printf("\n");
}

static void json_count(struct kfit_json *j, int ev, int cpu)
{
	const struct kfit_event *e = &env.evl.ev[ev];
	struct figure f = pmcstat_figure_at(ev, cpu);

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
	kfit_json_u64(j, "tasks_dropped", pmcstat_bss_dropped());
	kfit_json_u64(j, "cpus_not_switched", env.not_switched);
	kfit_json_u64(j, "read_errors", pmcstat_bss_read_errors() + env.read_errors);
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
		if (!pmcstat_ratio_value(r, -1, elapsed, &v))
			continue;
		kfit_json_begin_object(&j, NULL);
		kfit_json_str(&j, "name", pmcstat_ratio_name(r));
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
		kfit_json_str(&j, "reason", pmcstat_event_why(ev, why, sizeof(why)));
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
	struct figure f = pmcstat_figure_at(ev, cpu);
	const char *s = env.sep;

	if (env.c.interval_ns)
		printf("%.6f%s", (now - env.start_ns) / 1e9, s);
	if (cpu >= 0)
		printf("%d%s", cpu, s);
	else
		printf("total%s", s);
	printf("%s%s", pmcstat_shown_name(e), s);
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
