// SPDX-License-Identifier: GPL-2.0
/*
 * pmcstat's reports: a table (a column per event and ratio, or a row
 * per event past a few), CSV with -x, JSON with -j; --per-task's table
 * of the busiest tasks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output.h"
#include "state.h"

/* Up to this many events, a column each; more (a glob): a row each */
#define COLUMNS_MAX 8

/* ---- targets ------------------------------------------------------------ */

static bool per_cpu_rows(void)
{
	return pmcstat_system_wide() && !env.aggr;
}

const char *pmcstat_target_name(void)
{
	static char buf[32];

	if (env.cmd && !pmcstat_system_wide())
		return "command";
	if (pmcstat_system_wide())
		return "system wide";
	if (env.c.tid)
		snprintf(buf, sizeof(buf), "tid %d", env.c.tid);
	else
		snprintf(buf, sizeof(buf), "pid %d", env.c.pid);
	return buf;
}

/* ---- text ----------------------------------------------------------------- */

static const char *const status_name[] = { "counted", "not counted", "not supported" };
static const char *const status_text[] = { "", "<not counted>", "<not supported>" };

static bool is_clock(const struct kfit_pmu_event *e)
{
	return !strcmp(e->unit, "ns");
}

void pmcstat_cpus_text(char *buf, size_t len)
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

static void value_text(char *buf, size_t len, const struct kfit_pmu_event *e,
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

static void value_cell(struct kfit_table *t, const struct kfit_pmu_event *e,
		       const struct figure *f)
{
	char buf[64];

	value_text(buf, sizeof(buf), e, f);
	kfit_table_cell(t, "%s", buf);
}

static char *column_name(const struct kfit_pmu_event *e)
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
static struct pmc_task task_share(const struct pmc_task *row)
{
	const struct pmc_task *p = NULL;
	struct pmc_task d = *row;
	int ev;

	if (env.c.interval_ns && env.nptasks)
		p = bsearch(&row->key, env.ptasks, env.nptasks,
			    sizeof(*env.ptasks), pmcstat_cmp_key);
	for (ev = 0; p && ev < env.evl.n; ev++) {
		d.sum[ev].counter -= p->sum[ev].counter;
		d.sum[ev].enabled -= p->sum[ev].enabled;
		d.sum[ev].running -= p->sum[ev].running;
	}
	return d;
}

static struct figure task_figure(const struct pmc_task *share, int ev)
{
	return pmcstat_task_figure(&share->sum[ev], ev);
}

/* -p's and the command's tasks are the only ones charged (following()) */
static bool task_listed(const struct pmc_task *row)
{
	if (env.c.tid && (int)row->key.tid != env.c.tid)
		return false;
	if (env.c.comm[0] && strncmp(row->comm, env.c.comm, sizeof(row->comm)))
		return false;
	return true;
}

static void task_comm(const struct pmc_task *row, char *buf, size_t len)
{
	if (row->key.tid == 0)
		snprintf(buf, len, "swapper/%u", row->key.cpu);
	else
		snprintf(buf, len, "%.16s", row->comm);
}

static int by_first_event(const void *a, const void *b)
{
	const struct pmc_task *x = a, *y = b;
	double vx = task_figure(x, 0).value, vy = task_figure(y, 0).value;

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return pmcstat_cmp_key(a, b);
}

/* The listed tasks' shares of this report, busiest first (by the first event) */
static struct pmc_task *sorted_tasks(int *n)
{
	struct pmc_task *v = malloc((env.ntasks + 1) * sizeof(*v));
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
	struct pmc_task *v;
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
		kfit_table_cell(t, "%u", v[i].pid);
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

void pmcstat_print_text(__u64 now, __u64 elapsed)
{
	char cpus[256];

	pmcstat_cpus_text(cpus, sizeof(cpus));
	if (env.c.interval_ns)
		printf("%.3f s: ", (now - env.start_ns) / 1e9);
	if (pmcstat_system_wide())
		printf("Counts for %s, CPUs %s", pmcstat_target_name(), cpus);
	else if (env.cmd)
		printf("Counts for '%s'", env.cmd[0]);
	else
		printf("Counts for %s", pmcstat_target_name());
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
	const struct kfit_pmu_event *e = &env.evl.ev[ev];
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
	struct pmc_task *v;
	struct figure f;
	char comm[32];
	int i, ev, n;

	v = sorted_tasks(&n);
	kfit_json_begin_array(j, "tasks");
	for (i = 0; v && i < n; i++) {
		kfit_json_begin_object(j, NULL);
		kfit_json_u64(j, "tid", v[i].key.tid);
		kfit_json_u64(j, "pid", v[i].pid);
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

void pmcstat_print_json(__u64 now, __u64 elapsed)
{
	struct kfit_json j;
	char why[256];
	double v;
	int ev, cpu, r;

	kfit_json_init(&j, stdout, false);
	kfit_json_begin_object(&j, NULL);
	kfit_json_str(&j, "target", pmcstat_target_name());
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
	const struct kfit_pmu_event *e = &env.evl.ev[ev];
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

void pmcstat_print_csv(__u64 now)
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
