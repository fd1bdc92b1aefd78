// SPDX-License-Identifier: GPL-2.0
/*
 * softirqlat: softirq queue delay and handler time per vector.
 * BPF side: bpf/softirqlat.bpf.c. Map layout: include/kfit/softirqlat.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kfit/softirqlat.h"
#include "softirqlat.skel.h"
#include "child.h"
#include "diag.h"
#include "duration.h"
#include "hist.h"
#include "maps.h"
#include "opts.h"
#include "output.h"
#include "probe.h"
#include "run.h"
#include "serve.h"

/* The names /proc/softirqs uses, lower-cased */
static const char *const vec_names[SIRQ_VECS] = {
	"hi", "timer", "net_tx", "net_rx", "block",
	"irq_poll", "tasklet", "sched", "hrtimer", "rcu",
};

static const char *const kind_names[SIRQ_KINDS] = { "queue", "handler" };

enum { OPT_LINEAR = 256, OPT_PER_CPU, OPT_NO_QUEUE };

static const struct kfit_opt softirqlat_opts[] = {
	{ "hist", 'H', NULL, "print a histogram per vector (log2 buckets)" },
	{ "linear", OPT_LINEAR, "STEP", "linear histogram buckets of STEP (implies -H)" },
	{ "per-cpu", OPT_PER_CPU, NULL, "report each CPU separately" },
	{ "no-queue", OPT_NO_QUEUE, NULL,
	  "handler time only: leave softirq_raise alone (one program and clock read less per softirq)" },
	{ NULL },
};

/* One CPU's (or the total's) histograms */
struct sirq_set {
	struct kfit_hist h[SIRQ_VECS][SIRQ_KINDS];
	struct kfit_linhist l[SIRQ_VECS][SIRQ_KINDS];
};

struct env {
	struct kfit_common c;
	bool hist;
	bool per_cpu;
	bool no_queue;
	__u64 lin_step;
	int ncpus;
	struct softirqlat_bpf *skel;
	struct sirq_set *sets;	/* [0] total, [1 + cpu] with --per-cpu */
	struct kfit_percpu hists, lins, state;	/* per-CPU map values read */
	const char *mode;	/* "tp_btf" or "raw_tracepoint" */
	struct kfit_serve *srv;	/* --serve */
};

static int parse_opt(int key, const char *arg, void *ctx)
{
	struct env *e = ctx;
	int r = kfit_hist_parse_opt("softirqlat", key, OPT_LINEAR, arg, &e->hist,
				    &e->lin_step);

	if (r <= 0)
		return r;
	switch (key) {
	case OPT_PER_CPU:
		e->per_cpu = true;
		return 0;
	case OPT_NO_QUEUE:
		e->no_queue = true;
		return 0;
	}
	return -1;
}

static struct env env;

static const struct kfit_tool tool = {
	.name = "softirqlat",
	.summary = "Softirq latency per vector: the queue delay from raise to "
		   "entry, and the\nhandler time from entry to exit, as tables "
		   "with percentiles or as histograms.",
	.synopsis = "[OPTIONS]",
	.examples = "softirqlat -d 5s            # table for 5 seconds\n"
		    "softirqlat -H               # log2 histograms, Ctrl-C to end\n"
		    "softirqlat -H --linear 10us # linear buckets of 10 us\n"
		    "softirqlat -i 1s --count 5  # five 1-second reports\n"
		    "softirqlat --per-cpu -C 0   # CPU 0 only\n"
		    "softirqlat -j -d 10s        # JSON\n"
		    "softirqlat --serve 9435     # Prometheus metrics on :9435/metrics\n",
	.common = KFIT_OPT_CPU | KFIT_OPT_DURATION | KFIT_OPT_INTERVAL |
		  KFIT_OPT_JSON | KFIT_OPT_TIMESTAMP | KFIT_OPT_SERVE | KFIT_OPT_RAW_TP,
	.opts = softirqlat_opts,
	.parse = parse_opt,
	.ctx = &env,
};

static int open_and_attach(void *ctx, bool btf)
{
	struct softirqlat_bpf *s;
	struct bpf_program *p;
	int err;

	(void)ctx;
	s = softirqlat_bpf__open();
	if (!s)
		return -errno;
	bpf_object__for_each_program(p, s->obj) {
		bool raise = strncmp(bpf_program__name(p), "raise", 5) == 0;

		bpf_program__set_autoload(p, kfit_run_tp_wanted(p, btf) &&
					  !(raise && env.no_queue));
	}
	s->rodata->lin_step = env.lin_step;
	if (!env.lin_step)
		bpf_map__set_max_entries(s->maps.linhists, 1);
	err = softirqlat_bpf__load(s);
	if (!err)
		err = softirqlat_bpf__attach(s);
	if (err) {
		softirqlat_bpf__destroy(s);
		return err;
	}
	env.skel = s;
	return 0;
}

static int start(void)
{
	return kfit_run_tp_start(open_and_attach, NULL, "softirq_raise/entry/exit",
				 env.c.raw_tp, &env.mode);
}

/* Read one key of a per-CPU map into the totals (and per CPU), then clear it */
static int collect(struct kfit_percpu *p, int fd, __u32 key, bool lin)
{
	int cpu, v, k, err;

	err = kfit_percpu_read(p, fd, &key);
	if (err)
		return err;
	v = (key % SIRQ_KEYS) / SIRQ_KINDS;
	k = key % SIRQ_KINDS;
	for (cpu = 0; cpu < env.ncpus; cpu++) {
		void *val = kfit_percpu_at(p, cpu);
		struct sirq_set *tot = &env.sets[0];
		struct sirq_set *one = env.per_cpu ? &env.sets[1 + cpu] : NULL;

		if (!kfit_cpu_selected(&env.c.cpus, cpu))
			continue;
		if (lin) {
			kfit_linhist_merge(&tot->l[v][k], val);
			if (one)
				kfit_linhist_merge(&one->l[v][k], val);
		} else {
			kfit_hist_merge(&tot->h[v][k], val);
			if (one)
				kfit_hist_merge(&one->h[v][k], val);
		}
	}
	/* --serve reads what the maps hold from the start: Prometheus' counters */
	return env.srv ? 0 : kfit_percpu_clear(p, fd, &key);
}

static int collect_half(int half)
{
	int hfd = bpf_map__fd(env.skel->maps.hists);
	int lfd = bpf_map__fd(env.skel->maps.linhists);
	int nsets = env.per_cpu ? env.ncpus + 1 : 1;
	__u32 v, k;
	int err = 0;

	memset(env.sets, 0, nsets * sizeof(*env.sets));
	for (v = 0; v < SIRQ_VECS && !err; v++) {
		for (k = 0; k < SIRQ_KINDS && !err; k++) {
			__u32 key = sirq_key(half, v, k);

			err = collect(&env.hists, hfd, key, false);
			if (!err && env.lin_step)
				err = collect(&env.lins, lfd, key, true);
		}
	}
	if (err)
		kfit_err("cannot read the histograms: %s", kfit_reason(err));
	return err;
}

static void fmt_row(struct kfit_table *t, const struct kfit_hist *h)
{
	char a[32], b[32], c[32], d[32], e[32];

	kfit_table_cell(t, "%llu", (unsigned long long)h->count);
	kfit_table_cell(t, "%s", kfit_duration_fmt(h->total, a, sizeof(a)));
	kfit_table_cell(t, "%s", kfit_duration_fmt(h->count ? h->total / h->count : 0,
						     b, sizeof(b)));
	kfit_table_cell(t, "%s", kfit_duration_fmt(kfit_hist_percentile(h, 0.50),
						     c, sizeof(c)));
	kfit_table_cell(t, "%s", kfit_duration_fmt(kfit_hist_percentile(h, 0.99),
						     d, sizeof(d)));
	kfit_table_cell(t, "%s", kfit_duration_fmt(h->max, e, sizeof(e)));
}

static bool vec_active(const struct sirq_set *s, int v)
{
	return s->h[v][SIRQ_QUEUE].count || s->h[v][SIRQ_HANDLER].count;
}

static void add_rows(struct kfit_table *t, const struct sirq_set *s, int cpu)
{
	int v, k;

	for (v = 0; v < SIRQ_VECS; v++) {
		if (!vec_active(s, v))
			continue;
		for (k = env.no_queue ? SIRQ_HANDLER : 0; k < SIRQ_KINDS; k++) {
			kfit_table_row(t);
			if (cpu >= 0)
				kfit_table_cell(t, "%d", cpu);
			kfit_table_cell(t, "%s", vec_names[v]);
			kfit_table_cell(t, "%s", kind_names[k]);
			fmt_row(t, &s->h[v][k]);
		}
	}
}

static void print_table(void)
{
	static const char *const hdr[] = {
		"CPU", "VECTOR", "LATENCY", "COUNT", "TOTAL", "AVG", "P50", "P99", "MAX",
	};
	int skip = env.per_cpu ? 0 : 1;
	struct kfit_table *t;
	int cpu;

	t = kfit_table_new(9 - skip, hdr + skip, env.per_cpu ? "rllrrrrrr" : "llrrrrrr");
	if (!t)
		return;
	if (!env.per_cpu)
		add_rows(t, &env.sets[0], -1);
	for (cpu = 0; env.per_cpu && cpu < env.ncpus; cpu++)
		if (kfit_cpu_selected(&env.c.cpus, cpu))
			add_rows(t, &env.sets[1 + cpu], cpu);
	kfit_table_print(t, stdout);
	kfit_table_free(t);
}

static void print_hists_of(const struct sirq_set *s, int cpu)
{
	char title[96];
	int v, k;

	for (v = 0; v < SIRQ_VECS; v++) {
		for (k = 0; k < SIRQ_KINDS; k++) {
			if (!s->h[v][k].count)
				continue;
			if (cpu >= 0)
				printf("\nsoftirq = %s, %s, cpu %d\n", vec_names[v],
				       k == SIRQ_QUEUE ? "queue delay" : "handler time", cpu);
			else
				printf("\nsoftirq = %s, %s\n", vec_names[v],
				       k == SIRQ_QUEUE ? "queue delay" : "handler time");
			snprintf(title, sizeof(title), "nsecs");
			if (env.lin_step)
				kfit_hist_print_linear(stdout, &s->l[v][k], env.lin_step, title);
			else
				kfit_hist_print_log2(stdout, &s->h[v][k], title);
		}
	}
}

static void print_hists(void)
{
	int cpu;

	if (!env.per_cpu) {
		print_hists_of(&env.sets[0], -1);
		return;
	}
	for (cpu = 0; cpu < env.ncpus; cpu++)
		if (kfit_cpu_selected(&env.c.cpus, cpu))
			print_hists_of(&env.sets[1 + cpu], cpu);
}

static void json_latency(struct kfit_json *j, const char *key,
			 const struct kfit_hist *h, const struct kfit_linhist *l)
{
	kfit_json_begin_object(j, key);
	kfit_json_u64(j, "count", h->count);
	kfit_json_u64(j, "total_ns", h->total);
	kfit_json_u64(j, "avg_ns", h->count ? h->total / h->count : 0);
	kfit_json_u64(j, "p50_ns", kfit_hist_percentile(h, 0.50));
	kfit_json_u64(j, "p99_ns", kfit_hist_percentile(h, 0.99));
	kfit_json_u64(j, "max_ns", h->max);
	kfit_hist_json(j, h, l, env.lin_step);
	kfit_json_end_object(j);
}

static void json_set(struct kfit_json *j, const struct sirq_set *s, int cpu)
{
	int v;

	for (v = 0; v < SIRQ_VECS; v++) {
		kfit_json_begin_object(j, NULL);
		kfit_json_str(j, "vector", vec_names[v]);
		if (cpu >= 0)
			kfit_json_u64(j, "cpu", cpu);
		kfit_json_u64(j, "count", s->h[v][SIRQ_HANDLER].count);
		if (!env.no_queue)
			json_latency(j, "queue", &s->h[v][SIRQ_QUEUE],
				     &s->l[v][SIRQ_QUEUE]);
		json_latency(j, "handler", &s->h[v][SIRQ_HANDLER], &s->l[v][SIRQ_HANDLER]);
		kfit_json_end_object(j);
	}
}

static void print_json(__u64 ts_ns, __u64 misses)
{
	struct kfit_json j;
	int cpu;

	kfit_json_init(&j, stdout, env.c.interval_ns == 0);
	kfit_json_begin_object(&j, NULL);
	kfit_json_str(&j, "mode", env.mode);
	kfit_json_u64(&j, "elapsed_ns", ts_ns);
	kfit_json_u64(&j, "missed", misses);
	kfit_json_begin_array(&j, "vectors");
	if (!env.per_cpu)
		json_set(&j, &env.sets[0], -1);
	for (cpu = 0; env.per_cpu && cpu < env.ncpus; cpu++)
		if (kfit_cpu_selected(&env.c.cpus, cpu))
			json_set(&j, &env.sets[1 + cpu], cpu);
	kfit_json_end_array(&j);
	kfit_json_end_object(&j);
	kfit_json_finish(&j);
}

static __u64 started_ns, last_misses;

static bool handler_running(void)
{
	int fd = bpf_map__fd(env.skel->maps.state);
	struct sirq_state *st;
	__u32 zero = 0;
	int cpu, v;

	if (kfit_percpu_read(&env.state, fd, &zero))
		return false;
	for (cpu = 0; cpu < env.ncpus; cpu++) {
		st = kfit_percpu_at(&env.state, cpu);
		for (v = 0; v < SIRQ_VECS; v++)
			if (st->entered[v])
				return true;
	}
	return false;
}

/*
 * Before the final report: start no new runs, and let the handlers that
 * are running exit, so that every run whose entry was seen is counted.
 */
static void drain(void)
{
	struct bpf_link **links[] = {
		&env.skel->links.raise_btf, &env.skel->links.entry_btf,
		&env.skel->links.raise_raw, &env.skel->links.entry_raw,
	};
	unsigned int i;
	int tries;

	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		bpf_link__destroy(*links[i]);
		*links[i] = NULL;
	}
	for (tries = 0; tries < 100 && handler_running(); tries++)
		usleep(1000);
}

static void prom_vector(struct kfit_prom *p, int k, int cpu)
{
	const struct sirq_set *s = &env.sets[cpu < 0 ? 0 : 1 + cpu];
	struct kfit_prom_labels l;
	char c[16];
	int v;

	for (v = 0; v < SIRQ_VECS; v++) {
		kfit_prom_labels_init(&l);
		kfit_prom_label(&l, "vector", vec_names[v]);
		if (cpu >= 0) {
			snprintf(c, sizeof(c), "%d", cpu);
			kfit_prom_label(&l, "cpu", c);
		}
		kfit_prom_hist_ns(p, &l, &s->h[v][k]);
	}
}

static void prom_kind(struct kfit_prom *p, int k)
{
	int cpu;

	if (!env.per_cpu) {
		prom_vector(p, k, -1);
		return;
	}
	for (cpu = 0; cpu < env.ncpus; cpu++)
		if (kfit_cpu_selected(&env.c.cpus, cpu))
			prom_vector(p, k, cpu);
}

/*
 * A scrape: every vector, active or not, so that a series exists from
 * the first scrape on (increase() misses a series' first value)
 */
static int metrics(void *ctx, struct kfit_prom *p)
{
	int err;

	(void)ctx;
	err = collect_half(kfit_epoch_half(&env.skel->bss->kfit_epoch, env.srv));
	if (err)
		return err;
	if (!env.no_queue) {
		kfit_prom_family(p, "kfit_softirq_queue_seconds", KFIT_PROM_HISTOGRAM,
				 "seconds", "Softirq queue delay: from raise to handler entry.");
		prom_kind(p, SIRQ_QUEUE);
	}
	kfit_prom_family(p, "kfit_softirq_handler_seconds", KFIT_PROM_HISTOGRAM, "seconds",
			 "Softirq handler time: from entry to exit, per vector.");
	prom_kind(p, SIRQ_HANDLER);
	kfit_serve_health(p, 0, kfit_obj_missed(env.skel->obj));
	return 0;
}

static int report(void *ctx, bool last)
{
	__u64 now = kfit_now_ns();
	__u64 misses;
	int half, err;

	(void)ctx;
	if (last)
		drain();
	half = kfit_epoch_half(&env.skel->bss->kfit_epoch, env.srv);
	misses = kfit_obj_missed(env.skel->obj);
	err = collect_half(half);
	if (err)
		return err;
	if (env.c.json) {
		print_json(now - started_ns, misses - last_misses);
	} else {
		if (env.c.timestamp)
			kfit_print_time(stdout);
		if (env.hist)
			print_hists();
		else
			print_table();
		if (misses - last_misses)
			printf("%llu events missed: a program was already running on "
			       "that CPU\n", (unsigned long long)(misses - last_misses));
		if (env.c.interval_ns && !last)
			printf("\n");
	}
	fflush(stdout);
	last_misses = misses;
	started_ns = now;
	return 0;
}

static int alloc_buffers(void)
{
	int nsets, err;

	err = kfit_percpu_init(&env.hists, sizeof(struct kfit_hist), 0);
	if (!err)
		err = kfit_percpu_init(&env.lins, sizeof(struct kfit_linhist), 0);
	if (!err)
		err = kfit_percpu_init(&env.state, sizeof(struct sirq_state), 0);
	if (err == -ENOMEM) {
		kfit_err("out of memory");
		return -1;
	}
	if (err) {
		kfit_err("cannot count the possible CPUs: %s", kfit_reason(err));
		return -1;
	}
	env.ncpus = env.hists.ncpus;
	nsets = env.per_cpu ? env.ncpus + 1 : 1;
	env.sets = calloc(nsets, sizeof(*env.sets));
	if (!env.sets) {
		kfit_err("out of memory");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int i, err;

	i = kfit_opts_parse_args(&tool, &env.c, argc, argv);
	if (i < 0)
		return 2;
	if (i < argc) {
		fprintf(stderr, "softirqlat: unexpected argument '%s'\n"
			"Try 'softirqlat --help' for more information.\n", argv[i]);
		return 2;
	}
	kfit_setup("softirqlat", &env.c);
	if (kfit_child_io_setup(env.c.output, NULL) || kfit_caps_check() || alloc_buffers() ||
	    kfit_serve_listen(&env.srv, &env.c, "softirqlat"))
		return 1;
	kfit_arm_cleanup();
	if (start()) {
		kfit_serve_free(env.srv);
		return 1;
	}
	if (kfit_exiting) {
		softirqlat_bpf__destroy(env.skel);
		kfit_serve_free(env.srv);
		return kfit_interrupted();
	}
	started_ns = kfit_now_ns();
	kfit_tracing("softirqs");
	err = kfit_run(&env.c, &(struct kfit_loop){
		.report = report,
		.serve = env.srv,
		.metrics = metrics,
	});
	kfit_serve_free(env.srv);
	softirqlat_bpf__destroy(env.skel);
	free(env.sets);
	kfit_percpu_free(&env.hists);
	kfit_percpu_free(&env.lins);
	kfit_percpu_free(&env.state);
	return err ? 1 : 0;
}
