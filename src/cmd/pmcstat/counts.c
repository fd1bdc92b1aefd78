// SPDX-License-Identifier: GPL-2.0
/*
 * pmcstat's counters: opened and read (the kernel counts), and with
 * --per-task charged to the tasks that ran by bpf/pmcstat.bpf.c; the
 * figures they make, scaled for multiplexing, and the ratios between them.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "pmcstat.skel.h"
#include "caps.h"
#include "diag.h"
#include "perf.h"
#include "pmu.h"
#include "run.h"
#include "state.h"

/*
 * How an event is shown: its label (the name= term, else as written),
 * inside its group's name when the group has one: "group1{cycles}".
 */
const char *pmcstat_shown_name(const struct kfit_pmu_event *e)
{
	static char buf[KFIT_PMU_EVENT_NAME_LEN + 40];

	if (!e->group[0])
		return e->label;
	snprintf(buf, sizeof(buf), "%s{%s}", e->group, e->label);
	return buf;
}

/* For messages: the label, and what was written when name= renamed it */
static const char *said_name(const struct kfit_pmu_event *e)
{
	static char buf[2 * KFIT_PMU_EVENT_NAME_LEN + 48];

	/* its own copy: pmcstat_shown_name()'s buffer is reused for a leader's name */
	if (!strcmp(e->label, e->name))
		snprintf(buf, sizeof(buf), "%s", pmcstat_shown_name(e));
	else
		snprintf(buf, sizeof(buf), "%s (%s)", pmcstat_shown_name(e), e->name);
	return buf;
}

/* ---- counters ------------------------------------------------------------- */

/* A tracepoint glob opens hundreds of counters: one fd each per CPU */
static void check_nofile(void)
{
	long need = (long)env.evl.n * env.nthreads;
	struct rlimit rl;
	int cpu;

	if (pmcstat_system_wide()) {
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
int pmcstat_open_counters(void)
{
	struct kfit_perf_where w = {
		.tids = env.threads,
		.ntids = env.nthreads,
		/* a task is counted wherever it runs, into slot 0 */
		.cpus = pmcstat_system_wide() ? env.cpu_on : NULL,
		.ncpus = env.ncpus,
		.inherit = env.inherit,
		.enable_on_exec = env.cmd && !pmcstat_system_wide(),
	};

	check_nofile();
	return kfit_perf_set_open(&env.ctrs, &env.evl, &w);
}

/* Why event ev opened nowhere */
const char *pmcstat_event_why(int ev, char *buf, size_t len)
{
	const struct kfit_pmu_event *e = &env.evl.ev[ev];
	int err = env.ctrs.err[ev];
	struct rlimit rl;

	/* a member fails with its leader: say so, not the leader's reason */
	if (e->leader != ev && env.ctrs.err[e->leader]) {
		snprintf(buf, len, "not counted: its group's leader %s was refused",
			 pmcstat_shown_name(&env.evl.ev[e->leader]));
		return buf;
	}
	if (err == -EMFILE && !getrlimit(RLIMIT_NOFILE, &rl)) {
		snprintf(buf, len, "no file descriptor left (RLIMIT_NOFILE %llu)",
			 (unsigned long long)rl.rlim_cur);
		return buf;
	}
	return kfit_pmu_event_why(e, err, &env.pmu, buf, len);
}

int pmcstat_report_unsupported(void)
{
	char why[256];
	int ev, n = 0;

	for (ev = 0; ev < env.evl.n; ev++) {
		if (!env.ctrs.err[ev]) {
			n++;
			continue;
		}
		kfit_err("%s: %s", said_name(&env.evl.ev[ev]),
			 pmcstat_event_why(ev, why, sizeof(why)));
	}
	if (!n)
		kfit_err("no event could be counted");
	return n ? 0 : -1;
}

/* Sum every counter's reading into cur[ev * ncpus + cpu] (a task's: cpu 0) */
void pmcstat_read_counters(void)
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

/* The tasks array's mapping: every slot, in whole pages */
static size_t slots_len(void)
{
	return (PMC_TASKS * sizeof(struct pmc_task) + 4095) & ~(size_t)4095;
}

/* Detaches and frees what load_bpf() made, the mapping too */
static void destroy_bpf(struct pmcstat_bpf *s)
{
	if (env.slots)
		munmap(env.slots, slots_len());
	env.slots = NULL;
	pmcstat_bpf__destroy(s);
}

void pmcstat_stop_bpf(void)
{
	destroy_bpf(env.skel);
	env.skel = NULL;
}

/* The process followed: -p PID, or the command (held before its exec) */
static int seed_followed(struct pmcstat_bpf *s)
{
	__u32 pid = env.cmd ? env.child.proc.pid : env.c.pid;
	__u8 one = 1;

	return bpf_map_update_elem(bpf_map__fd(s->maps.tracked), &pid, &one,
				   BPF_ANY) ? -errno : 0;
}

/*
 * Whether event ev may be multiplexed, so that its enabled and running
 * times matter: unless its whole group is software events or tracepoints
 * (a group with a hardware event is scheduled with the hardware).
 */
static bool event_timed(int ev)
{
	const struct kfit_pmu_event *e;
	int i;

	for (i = 0; i < env.evl.n; i++) {
		e = &env.evl.ev[i];
		if (e->leader == env.evl.ev[ev].leader &&
		    e->attr.type != PERF_TYPE_SOFTWARE &&
		    e->attr.type != PERF_TYPE_TRACEPOINT)
			return true;
	}
	return false;
}

/* The tasks array, mapped read-only: read without a system call */
static struct pmc_task *map_slots(struct pmcstat_bpf *s)
{
	void *p = mmap(NULL, slots_len(), PROT_READ, MAP_SHARED,
		       bpf_map__fd(s->maps.tasks), 0);

	return p == MAP_FAILED ? NULL : p;
}

static int load_bpf(void *ctx, bool btf)
{
	struct pmcstat_bpf *s;
	struct bpf_program *p;
	__u32 key, timed = 0;
	int i, err, fd;

	(void)ctx;
	s = pmcstat_bpf__open();
	if (!s)
		return -errno;
	bpf_object__for_each_program(p, s->obj)
		bpf_program__set_autoload(p, kfit_run_tp_wanted(p, btf));
	for (i = 0; i < env.evl.n; i++)
		if (event_timed(i))
			timed |= 1U << i;
	s->rodata->nr_events = env.evl.n;
	s->rodata->nr_cpus = env.ncpus;
	s->rodata->timed = env.timed = timed;
	s->rodata->follow = following();
	if (!following())	/* preallocated: no room taken for nothing */
		bpf_map__set_max_entries(s->maps.tracked, 1);
	bpf_map__set_max_entries(s->maps.counters, env.evl.n * env.ncpus);
	/* tp_btf finds slots in task storage, raw tracepoints by tid */
	if (btf)
		bpf_map__set_max_entries(s->maps.tid_slot, 1);
	else
		bpf_map__set_autocreate(s->maps.task_slot, false);
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
	if (!err && !(env.slots = map_slots(s)))
		err = -errno;
	if (!err)
		err = pmcstat_bpf__attach(s);
	if (err) {
		destroy_bpf(s);
		return err;
	}
	env.skel = s;
	return 0;
}

int pmcstat_start_bpf(void)
{
	if (kfit_caps_check())
		return -1;
	return kfit_run_tp_start(load_bpf, NULL, "sched_switch", env.c.raw_tp, &env.mode) ? -1 : 0;
}

int pmcstat_cmp_key(const void *a, const void *b)
{
	const struct pmc_task_key *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* By key, then by slot (the slot's order is in ready, in the copies) */
static int cmp_slot(const void *a, const void *b)
{
	const struct pmc_task *x = a, *y = b;
	int c = pmcstat_cmp_key(a, b);

	if (c)
		return c;
	return x->ready < y->ready ? -1 : x->ready > y->ready;
}

/* Slot b's counts added to a's; its pid and name, the later, kept */
static void merge_slot(struct pmc_task *a, const struct pmc_task *b)
{
	int ev;

	for (ev = 0; ev < PMC_MAX_EVENTS; ev++) {
		a->sum[ev].counter += b->sum[ev].counter;
		a->sum[ev].enabled += b->sum[ev].enabled;
		a->sum[ev].running += b->sum[ev].running;
	}
	a->pid = b->pid;
	memcpy(a->comm, b->comm, sizeof(a->comm));
}

/* The ready slots, by key; a tid that came back has its slots added up */
int pmcstat_read_tasks(void)
{
	__u32 taken = env.skel->bss->nslots;
	struct pmc_task *rows;
	int i, n = 0;

	if (taken > PMC_TASKS)
		taken = PMC_TASKS;
	rows = malloc((taken + 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < (int)taken; i++) {
		if (!__atomic_load_n(&env.slots[i].ready, __ATOMIC_ACQUIRE))
			continue;
		rows[n] = env.slots[i];
		rows[n++].ready = i + 1;
	}
	qsort(rows, n, sizeof(*rows), cmp_slot);
	for (i = 0, taken = 0; i < n; i++) {
		if (taken && !pmcstat_cmp_key(&rows[taken - 1], &rows[i]))
			merge_slot(&rows[taken - 1], &rows[i]);
		else
			rows[taken++] = rows[i];
	}
	free(env.ptasks);
	env.ptasks = env.tasks;
	env.nptasks = env.ntasks;
	env.tasks = rows;
	env.ntasks = taken;
	return 0;
}

/*
 * Make every counted CPU switch once, after the counters were stopped:
 * each CPU's last stretch is then charged to the task that ran it.
 */
void pmcstat_flush_cpus(void)
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

__u64 pmcstat_bss_dropped(void)
{
	return env.skel ? env.skel->bss->dropped : 0;
}

__u64 pmcstat_bss_read_errors(void)
{
	return env.skel ? env.skel->bss->read_errors : 0;
}

/* ---- figures -------------------------------------------------------------- */

struct figure pmcstat_figure_of(const struct pmc_reading *r, int ev)
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

/*
 * A task's share of event ev: an event never multiplexed was read
 * without its times (the count is the value); a task that ran no counted
 * time (e.g. only after the stop) counted 0.
 */
struct figure pmcstat_task_figure(const struct pmc_reading *r, int ev)
{
	struct figure f = pmcstat_figure_of(r, ev);

	if (f.status != 1)
		return f;
	f.status = 0;
	if (!(env.timed & (1U << ev)))
		f.value = r->counter;
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
struct figure pmcstat_figure_at(int ev, int cpu)
{
	struct figure f, one;
	struct pmc_reading d;
	int i;

	if (cpu >= 0) {
		d = delta(ev, cpu);
		return pmcstat_figure_of(&d, ev);
	}
	memset(&f, 0, sizeof(f));
	f.status = env.ctrs.err[ev] ? 2 : 1;
	for (i = 0; i < env.ncpus; i++) {
		if (!env.cpu_on[i])
			continue;
		one = pmcstat_figure_at(ev, i);
		f.raw += one.raw;
		f.enabled += one.enabled;
		f.running += one.running;
		f.value += one.value;
		if (one.status == 0)
			f.status = 0;
	}
	return f;
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

_Static_assert(sizeof(ratios) / sizeof(ratios[0]) == NRATIOS,
	       "NRATIOS (state.h) is the number of ratios[]");

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

	if (ev < 0 && !pmcstat_system_wide())
		ev = find_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	return ev;
}

/* Returns false when the ratio does not apply or a side was not counted */
bool pmcstat_ratio_value(int r, int cpu, __u64 elapsed, double *out)
{
	struct figure n, d;
	int num, den;

	if (r == NRATIOS) {
		num = clock_event();
		if (num < 0 || !elapsed)
			return false;
		n = pmcstat_figure_at(num, cpu);
		*out = n.value / elapsed;
		return n.status == 0;
	}
	num = find_event(ratios[r].type, ratios[r].num);
	den = find_event(ratios[r].type, ratios[r].den);
	if (num < 0 || den < 0)
		return false;
	n = pmcstat_figure_at(num, cpu);
	d = pmcstat_figure_at(den, cpu);
	if (n.status || d.status || d.value == 0)
		return false;
	*out = ratios[r].mult * n.value / d.value;
	return true;
}

bool pmcstat_ratio_shown(int r)
{
	if (r == NRATIOS)
		return clock_event() >= 0;
	return find_event(ratios[r].type, ratios[r].num) >= 0 &&
	       find_event(ratios[r].type, ratios[r].den) >= 0;
}

const char *pmcstat_ratio_name(int r)
{
	return r == NRATIOS ? "CPUs utilized" : ratios[r].name;
}
