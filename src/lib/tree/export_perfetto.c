// SPDX-License-Identifier: GPL-2.0
/*
 * Chrome trace-event JSON (export.h), for ui.perfetto.dev: call trees as
 * slices on their threads' tracks, interrupts on tracks of their own, and
 * sampled stacks on a timeline
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "duration.h"
#include "export_int.h"
#include "output.h"
#include "treeprint.h"

/* ---- Chrome trace-event JSON ---- */

/* An open slice, clamped, and where its last child ended */
struct span {
	__u64 lo, hi, prev;
};

/* A subtree drawn on an interrupt track, and the thread it was found in */
struct irqref {
	const struct kfit_cnode *n;
	const struct kfit_cthread *t;
	__u16 cpu;
	__u8 ctx;
	size_t seq;
};

struct trace {
	struct kfit_json j;
	const struct kfit_export_src *s;
	__u32 pid, tid;			/* the track being written */
	struct span *sp;
	size_t nsp, spcap;
	const struct kfit_cnode *top;	/* the interrupt a track's walk starts at */
	const struct kfit_cthread *cur;	/* the thread being searched for interrupts */
	struct irqref *irqs;
	size_t nirqs, irqcap;
};

/* Room for one more open slice */
static int span_reserve(struct trace *x)
{
	struct span *p;

	if (x->nsp < x->spcap)
		return 0;
	p = realloc(x->sp, (x->spcap ? 2 * x->spcap : 64) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	x->sp = p;
	x->spcap = x->spcap ? 2 * x->spcap : 64;
	return 0;
}

/* A track starts: nothing before t0 */
static int span_track(struct trace *x)
{
	x->nsp = 0;
	if (span_reserve(x))
		return -ENOMEM;
	x->sp[x->nsp++] = (struct span){ x->s->t0, ~0ULL, x->s->t0 };
	return 0;
}

/* n's interval inside its parent's and after its previous sibling's */
static void span_clamp(struct trace *x, const struct kfit_cnode *n, __u64 *s, __u64 *e)
{
	struct span *p = &x->sp[x->nsp - 1];
	__u64 lo = p->prev > p->lo ? p->prev : p->lo;

	*s = n->start > lo ? n->start : lo;
	*s = *s < p->hi ? *s : p->hi;
	*e = n->start + n->dur >= n->start ? n->start + n->dur : ~0ULL;
	*e = *e < p->hi ? *e : p->hi;
	*e = *e > *s ? *e : *s;
	p->prev = *e;
}

static void ev_head(struct trace *x, const char *ph, const char *name,
		    const char *cat, __u64 ts)
{
	kfit_json_begin_object(&x->j, NULL);
	kfit_json_str(&x->j, "ph", ph);
	kfit_json_str(&x->j, "name", name);
	if (cat)
		kfit_json_str(&x->j, "cat", cat);
	kfit_json_udec(&x->j, "ts", ts - x->s->t0, 3);
	kfit_json_u64(&x->j, "pid", x->pid);
	kfit_json_u64(&x->j, "tid", x->tid);
}

/* A complete event for n, opened as the span its children nest in */
static int ev_slice(struct trace *x, const struct kfit_cnode *n, const char *name,
		    const char *cat)
{
	__u64 s, e;

	if (span_reserve(x))
		return -ENOMEM;
	span_clamp(x, n, &s, &e);
	x->sp[x->nsp++] = (struct span){ s, e, s };
	ev_head(x, "X", name, cat, s);
	kfit_json_udec(&x->j, "dur", e - s, 3);
	kfit_json_begin_object(&x->j, "args");
	kfit_json_u64(&x->j, "cpu", n->cpu);
	return 1;
}

static void ev_instant(struct trace *x, const struct kfit_cnode *n, const char *name,
		       const char *cat)
{
	struct span *p = &x->sp[x->nsp - 1];
	__u64 t = n->start > p->prev ? n->start : p->prev;

	t = t > p->lo ? t : p->lo;
	t = t < p->hi ? t : p->hi;
	p->prev = t;
	ev_head(x, "i", name, cat, t);
	kfit_json_str(&x->j, "s", "t");
	kfit_json_begin_object(&x->j, "args");
	kfit_json_u64(&x->j, "cpu", n->cpu);
}

static void ev_end(struct trace *x)
{
	kfit_json_end_object(&x->j);	/* args */
	kfit_json_end_object(&x->j);
}

static int ev_call(struct trace *x, const struct kfit_cnode *n)
{
	const struct kfit_export_src *s = x->s;
	const char *cat = "call";

	if (s->kernel && !(n->flags & KFIT_RF_LOST))
		cat = s->kernel(s->ctx, n) ? "kernel" : "user";
	if (ev_slice(x, n, export_node_name(s, n), cat) < 0)
		return -ENOMEM;
	kfit_json_u64(&x->j, "local_ns", n->local);
	if (n->off_blocked)
		kfit_json_u64(&x->j, "off_blocked_ns", n->off_blocked);
	if (n->off_preempt)
		kfit_json_u64(&x->j, "off_preempt_ns", n->off_preempt);
	if (n->dropped)
		kfit_json_u64(&x->j, "dropped", n->dropped);
	if (n->flags & KFIT_RF_INCOMPLETE)
		kfit_json_str(&x->j, "incomplete", kfit_treeprint_incomplete_reason(n->flags));
	if (n->flags & KFIT_RF_FORKED)
		kfit_json_bool(&x->j, "forked", true);
	if (n->flags & KFIT_RF_LOST)
		kfit_json_bool(&x->j, "lost", true);
	ev_end(x);
	return 1;
}

static int ev_irq(struct trace *x, const struct kfit_cnode *n)
{
	char label[48];

	if (ev_slice(x, n, export_irq_label(x->s, n, label, sizeof(label)), "irq") < 0)
		return -ENOMEM;
	kfit_json_u64(&x->j, "calls", n->ncalls);
	if (x->cur && x->cur->ctx == KFIT_CTX_TASK) {
		kfit_json_u64(&x->j, "struck_pid", x->cur->pid);
		kfit_json_u64(&x->j, "struck_tid", x->cur->tid);
	}
	ev_end(x);
	return 1;
}

static int trace_enter(void *c, const struct kfit_cnode *n)
{
	struct trace *x = c;

	switch (n->kind) {
	case KFIT_CN_CALL:
		return ev_call(x, n);
	case KFIT_CN_IRQ:
		return n == x->top ? ev_irq(x, n) : 0;	/* else on its own track */
	case KFIT_CN_SWITCH:
		if (ev_slice(x, n, n->id ? "off-cpu (blocked)" : "off-cpu (preempted)",
			     "sched") < 0)
			return -ENOMEM;
		kfit_json_u64(&x->j, "state", n->id);
		ev_end(x);
		return 1;
	case KFIT_CN_EVENT:
		ev_instant(x, n, export_node_name(x->s, n), "tracepoint");
		break;
	case KFIT_CN_FORK:
		ev_instant(x, n, "fork", "task");
		kfit_json_u64(&x->j, "child_tid", n->child_tid);
		break;
	case KFIT_CN_EXEC:
		ev_instant(x, n, "exec", "task");
		kfit_json_str(&x->j, "comm", n->name ? n->name : "");
		break;
	case KFIT_CN_EXIT:
		ev_instant(x, n, "exit", "task");
		break;
	default:
		return 0;
	}
	ev_end(x);
	return 0;
}

static void trace_leave(void *c, const struct kfit_cnode *n)
{
	struct trace *x = c;

	(void)n;
	x->nsp--;
}

static int irq_add(struct trace *x, const struct kfit_cnode *n)
{
	const struct kfit_cthread *t = x->cur;
	struct irqref *p;
	bool own = n->kind == KFIT_CN_IRQ;

	if (x->nirqs == x->irqcap) {
		p = realloc(x->irqs, (x->irqcap ? 2 * x->irqcap : 64) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		x->irqs = p;
		x->irqcap = x->irqcap ? 2 * x->irqcap : 64;
	}
	x->irqs[x->nirqs] = (struct irqref){ n, t, own ? n->cpu : t->cpu,
					     own ? n->ctx : t->ctx, x->nirqs };
	x->nirqs++;
	return 0;
}

/* Every interrupt, at any depth, goes to its CPU and context's track */
static int collect_enter(void *c, const struct kfit_cnode *n)
{
	struct trace *x = c;

	if (n->kind == KFIT_CN_IRQ && irq_add(x, n))
		return -ENOMEM;
	return 1;
}

static void collect_leave(void *c, const struct kfit_cnode *n)
{
	(void)c;
	(void)n;
}

/* ... and so do the outermost calls of the per-CPU interrupt threads */
static int collect(struct trace *x, const struct kfit_cthread *t)
{
	struct export_walker w = { .enter = collect_enter, .leave = collect_leave, .c = x };
	const struct kfit_cnode *n;
	int err = 0;

	x->cur = t;
	for (n = t->root.child; n && t->ctx != KFIT_CTX_TASK && !err; n = n->next)
		if (n->kind != KFIT_CN_IRQ)
			err = irq_add(x, n);
	if (!err)
		err = export_walk(&w, t->root.child, true);
	free(w.stk);
	return err;
}

static int irq_cmp(const void *a, const void *b)
{
	const struct irqref *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	if (x->n->start != y->n->start)
		return x->n->start < y->n->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int thread_cmp(const void *a, const void *b)
{
	const struct kfit_cthread *x = *(const struct kfit_cthread *const *)a;
	const struct kfit_cthread *y = *(const struct kfit_cthread *const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void ev_meta(struct trace *x, const char *what, __u32 pid, __u32 tid,
		    const char *name)
{
	kfit_json_begin_object(&x->j, NULL);
	kfit_json_str(&x->j, "ph", "M");
	kfit_json_str(&x->j, "name", what);
	kfit_json_u64(&x->j, "pid", pid);
	kfit_json_u64(&x->j, "tid", tid);
	kfit_json_begin_object(&x->j, "args");
	kfit_json_str(&x->j, "name", name);
	kfit_json_end_object(&x->j);
	kfit_json_end_object(&x->j);
}

/* A process is named after its main thread, else its first one */
static void trace_names(struct trace *x, const struct kfit_cthread **th, int n)
{
	const struct kfit_cthread *main;
	char comm[24];
	int i, k;

	for (i = 0; i < n; i = k) {
		main = th[i];
		for (k = i; k < n && th[k]->pid == th[i]->pid; k++)
			if (th[k]->tid == th[k]->pid)
				main = th[k];
		ev_meta(x, "process_name", main->pid, main->pid,
			export_thread_label(main, comm, sizeof(comm)));
	}
	for (i = 0; i < n; i++)
		ev_meta(x, "thread_name", th[i]->pid, th[i]->tid,
			export_thread_label(th[i], comm, sizeof(comm)));
}

static int trace_tasks(struct trace *x, const struct kfit_cthread **th, int n)
{
	struct export_walker w = { .enter = trace_enter, .leave = trace_leave, .c = x };
	int i, err = 0;

	x->top = NULL;
	for (i = 0; i < n && !err; i++) {
		x->pid = th[i]->pid;
		x->tid = th[i]->tid;
		err = span_track(x);
		if (!err)
			err = export_walk(&w, th[i]->root.child, true);
	}
	free(w.stk);
	return err;
}

/* One track per CPU and context, its interrupts in time order */
static int trace_irqs(struct trace *x)
{
	struct export_walker w = { .enter = trace_enter, .leave = trace_leave, .c = x };
	struct irqref *r, *first = NULL;
	char name[40];
	size_t i;
	int err = 0;

	if (!x->nirqs)
		return 0;
	qsort(x->irqs, x->nirqs, sizeof(*x->irqs), irq_cmp);
	ev_meta(x, "process_name", KFIT_EXPORT_IRQ_PID, KFIT_EXPORT_IRQ_PID, "interrupts");
	x->pid = KFIT_EXPORT_IRQ_PID;
	for (i = 0; i < x->nirqs && !err; i++) {
		r = &x->irqs[i];
		if (!first || r->cpu != first->cpu || r->ctx != first->ctx) {
			first = r;
			x->tid = KFIT_EXPORT_IRQ_PID + 1 + r->cpu * KFIT_NCTX + r->ctx;
			snprintf(name, sizeof(name), "%s cpu %u", kfit_ctree_ctx_name(r->ctx),
				 r->cpu);
			ev_meta(x, "thread_name", x->pid, x->tid, name);
			err = span_track(x);
		}
		x->top = r->n;
		x->cur = r->t;
		if (!err)
			err = export_walk(&w, r->n, false);
	}
	free(w.stk);
	return err;
}

static void trace_stats(struct trace *x)
{
	const struct kfit_ctree_stats *st = x->s->stats;

	if (!st)
		return;
	kfit_json_begin_object(&x->j, "otherData");
	kfit_json_u64(&x->j, "calls", st->calls);
	kfit_json_u64(&x->j, "lost", st->lost);
	kfit_json_u64(&x->j, "malformed", st->bad);
	kfit_json_u64(&x->j, "dropped", st->dropped);
	kfit_json_u64(&x->j, "incomplete", st->incomplete);
	kfit_json_u64(&x->j, "orphans", st->orphans);
	kfit_json_end_object(&x->j);
}

int kfit_export_perfetto(const struct kfit_export_src *s, FILE *f)
{
	const struct kfit_cthread **th;
	struct trace x = { .s = s };
	int i, n = 0, err = 0;

	if (s->sampled)
		return -EOPNOTSUPP;
	if (!s->name)
		return -EINVAL;
	th = malloc((s->nthreads + 1) * sizeof(*th));
	if (!th)
		return -ENOMEM;
	for (i = 0; i < s->nthreads && !err; i++) {
		if (s->threads[i]->ctx == KFIT_CTX_TASK)
			th[n++] = s->threads[i];
		err = collect(&x, s->threads[i]);
	}
	qsort(th, n, sizeof(*th), thread_cmp);
	kfit_json_init(&x.j, f, false);
	kfit_json_begin_object(&x.j, NULL);
	kfit_json_begin_array(&x.j, "traceEvents");
	if (!err) {
		trace_names(&x, th, n);
		err = trace_tasks(&x, th, n);
	}
	if (!err)
		err = trace_irqs(&x);
	kfit_json_end_array(&x.j);
	kfit_json_str(&x.j, "displayTimeUnit", "ns");
	trace_stats(&x);
	kfit_json_end_object(&x.j);
	kfit_json_finish(&x.j);
	free(th);
	free(x.sp);
	free(x.irqs);
	return err ? err : export_finish_file(f);
}

/* ---- sampled stacks on a timeline ---------------------------------------- */

struct sslice {
	__u64 start, end;
	int depth;
	const char *name;
};

struct stimeline {
	const char **open;	/* the frames open now, outermost first */
	__u64 *since;
	int nopen, capopen;
	struct sslice *v;	/* the slices of the thread, closed */
	size_t n, cap;
};

static int sample_cmp(const void *a, const void *b)
{
	const struct kfit_export_sample *x = *(const struct kfit_export_sample *const *)a;
	const struct kfit_export_sample *y = *(const struct kfit_export_sample *const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Parents first: by start, then depth */
static int sslice_cmp(const void *a, const void *b)
{
	const struct sslice *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->depth - y->depth;
}

/* Close the open frames from depth keep on, at end */
static int tl_close(struct stimeline *tl, int keep, __u64 end)
{
	while (tl->nopen > keep) {
		int d = --tl->nopen;

		if (tl->n == tl->cap) {
			size_t cap = tl->cap ? 2 * tl->cap : 256;
			struct sslice *v = realloc(tl->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			tl->v = v;
			tl->cap = cap;
		}
		tl->v[tl->n++] = (struct sslice){ tl->since[d], end, d, tl->open[d] };
	}
	return 0;
}

static int tl_open(struct stimeline *tl, const char *name, __u64 ts)
{
	if (tl->nopen == tl->capopen) {
		int cap = tl->capopen ? 2 * tl->capopen : 64;
		const char **o = realloc(tl->open, cap * sizeof(*o));
		__u64 *s;

		if (!o)
			return -ENOMEM;
		tl->open = o;
		s = realloc(tl->since, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		tl->since = s;
		tl->capopen = cap;
	}
	tl->open[tl->nopen] = name;
	tl->since[tl->nopen++] = ts;
	return 0;
}

/* One sample after prev (NULL: the thread's first) */
static int tl_sample(struct stimeline *tl, const struct kfit_export_sample *prev,
		     const struct kfit_export_sample *s, __u64 period)
{
	int i, common = 0;

	/* a gap of more than a period and a half: the thread was not seen */
	if (prev && s->ts > prev->ts + period + period / 2 &&
	    tl_close(tl, 0, prev->ts + period))
		return -ENOMEM;
	while (common < tl->nopen && common < s->nframes &&
	       !strcmp(tl->open[common], s->frames[common]))
		common++;
	if (tl_close(tl, common, s->ts))
		return -ENOMEM;
	for (i = common; i < s->nframes; i++)
		if (tl_open(tl, s->frames[i], s->ts))
			return -ENOMEM;
	return 0;
}

static void sample_meta(struct kfit_json *j, const char *what, __u32 pid, __u32 tid,
			const char *comm)
{
	char name[24];

	if (comm[0])
		snprintf(name, sizeof(name), "%.16s", comm);
	else
		snprintf(name, sizeof(name), "tid %u", tid);
	kfit_json_begin_object(j, NULL);
	kfit_json_str(j, "ph", "M");
	kfit_json_str(j, "name", what);
	kfit_json_u64(j, "pid", pid);
	kfit_json_u64(j, "tid", tid);
	kfit_json_begin_object(j, "args");
	kfit_json_str(j, "name", name);
	kfit_json_end_object(j);
	kfit_json_end_object(j);
}

/* The samples of one thread, s[0..n), as slices */
static int tl_thread(struct kfit_json *j, struct stimeline *tl,
		     const struct kfit_export_sample *const *s, size_t n, __u64 t0, __u64 period)
{
	size_t i;

	tl->n = 0;
	tl->nopen = 0;
	for (i = 0; i < n; i++)
		if (tl_sample(tl, i ? s[i - 1] : NULL, s[i], period))
			return -ENOMEM;
	if (tl_close(tl, 0, s[n - 1]->ts + period))
		return -ENOMEM;
	if (tl->n > 1)
		qsort(tl->v, tl->n, sizeof(*tl->v), sslice_cmp);
	sample_meta(j, "thread_name", s[0]->pid, s[0]->tid, s[n - 1]->comm);
	for (i = 0; i < tl->n; i++) {
		const struct sslice *l = &tl->v[i];

		kfit_json_begin_object(j, NULL);
		kfit_json_str(j, "ph", "X");
		kfit_json_str(j, "name", l->name);
		kfit_json_str(j, "cat", "sample");
		kfit_json_udec(j, "ts", l->start - t0, 3);
		kfit_json_udec(j, "dur", l->end - l->start, 3);
		kfit_json_u64(j, "pid", s[0]->pid);
		kfit_json_u64(j, "tid", s[0]->tid);
		kfit_json_end_object(j);
	}
	return 0;
}

int kfit_export_perfetto_samples(const struct kfit_export_sample *v, size_t n, __u64 t0,
				 __u64 period_ns, FILE *f)
{
	const struct kfit_export_sample **s = malloc((n + 1) * sizeof(*s));
	struct stimeline tl = { 0 };
	struct kfit_json j;
	size_t i, k, m;
	int err = 0;

	if (!s)
		return -ENOMEM;
	if (!period_ns)
		period_ns = 1000000;
	for (i = 0; i < n; i++) {
		s[i] = &v[i];
		if (v[i].ts < t0)
			t0 = v[i].ts;
	}
	if (n)
		qsort(s, n, sizeof(*s), sample_cmp);
	kfit_json_init(&j, f, false);
	kfit_json_begin_object(&j, NULL);
	kfit_json_begin_array(&j, "traceEvents");
	/* a process named after its main thread, else its first */
	for (i = 0; i < n; i = k) {
		const struct kfit_export_sample *main = s[i];

		for (k = i; k < n && s[k]->pid == s[i]->pid; k++)
			if (s[k]->tid == s[k]->pid)
				main = s[k];
		sample_meta(&j, "process_name", main->pid, main->pid, main->comm);
	}
	for (i = 0; i < n && !err; i = m) {
		for (m = i; m < n && s[m]->pid == s[i]->pid && s[m]->tid == s[i]->tid; m++)
			;
		err = tl_thread(&j, &tl, s + i, m - i, t0, period_ns);
	}
	kfit_json_end_array(&j);
	kfit_json_str(&j, "displayTimeUnit", "ns");
	kfit_json_begin_object(&j, "otherData");
	kfit_json_u64(&j, "samples", n);
	kfit_json_u64(&j, "period_ns", period_ns);
	kfit_json_end_object(&j);
	kfit_json_end_object(&j);
	kfit_json_finish(&j);
	free(s);
	free(tl.open);
	free(tl.since);
	free(tl.v);
	return err ? err : export_finish_file(f);
}
