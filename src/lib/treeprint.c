// SPDX-License-Identifier: GPL-2.0
/* kd -c text and JSON renderers of call trees (treeprint.h) */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "duration.h"
#include "output.h"
#include "treeprint.h"

struct tp {
	FILE *f;
	struct kfit_json *j;
	const struct kfit_ctree *t;
	const struct kfit_tp_opts *o;
	const struct kfit_cthread *th;
	__u64 origin;
	__u32 max_depth;	/* JSON: deeper nodes show no children */
};

typedef bool (*tp_enter)(struct tp *p, const struct kfit_cnode *n);
typedef void (*tp_leave)(struct tp *p, const struct kfit_cnode *n);

/*
 * Depth-first without recursion (trees from a file can be deep): enter
 * before the children, leave after them; enter says whether to go in.
 */
static void walk(struct tp *p, const struct kfit_cnode *root, tp_enter enter,
		 tp_leave leave)
{
	const struct kfit_cnode *n = root->child;

	while (n) {
		if (enter(p, n) && n->child) {
			n = n->child;
			continue;
		}
		leave(p, n);
		while (!n->next) {
			n = n->parent;
			if (n == root)
				return;
			leave(p, n);
		}
		n = n->next;
	}
}

static const struct kfit_tp_opts no_opts;

static void tp_init(struct tp *p, const struct kfit_ctree *t, const struct kfit_tp_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->t = t;
	p->o = o ? o : &no_opts;
	p->origin = p->o->abs_time ? 0 :
		    p->o->origin ? p->o->origin : kfit_ctree_stats(t)->first_ts;
}

/* ---- shared helpers --------------------------------------------------- */

const char *kfit_tp_irq_label(const struct kfit_ctree *t, const struct kfit_cnode *n,
			      char *buf, size_t len)
{
	return kfit_ctree_irq_label(n, kfit_ctree_name(t, n), buf, len);
}

const char *kfit_tp_incomplete_reason(__u8 flags)
{
	if (!(flags & KFIT_RF_INCOMPLETE))
		return "";
	if (flags & KFIT_RF_EXITED)
		return "exited";
	if (flags & KFIT_RF_EXEC)
		return "exec";
	if (flags & KFIT_RF_JUMPED)
		return "longjmp";
	if (flags & KFIT_RF_END)
		return "end";
	return "unknown";
}

bool kfit_tp_sampled(const struct kfit_cthread *th)
{
	return th->samples || (th->root.child && th->root.child->kind == KFIT_CN_FRAME);
}

static __u64 off_cpu(const struct kfit_cnode *n)
{
	return n->off_blocked + n->off_preempt;
}

static __s64 rel_time(const struct tp *p, __u64 ts)
{
	return (__s64)(ts - p->origin);
}

/* ---- text, exact mode ------------------------------------------------- */

static const char *fmt_entry(const struct tp *p, __u64 ts, char *buf, size_t len)
{
	__s64 v = rel_time(p, ts);
	__u64 a = v < 0 ? -(__u64)v : (__u64)v;

	if (p->o->ns)
		snprintf(buf, len, "%lld", (long long)v);
	else
		snprintf(buf, len, "%s%llu.%06llus", v < 0 ? "-" : "",
			 a / KFIT_SEC, a % KFIT_SEC / KFIT_USEC);
	return buf;
}

static const char *fmt_dur(const struct tp *p, __u64 ns, char *buf, size_t len)
{
	if (p->o->ns)
		snprintf(buf, len, "%llu", (unsigned long long)ns);
	else
		kfit_fmt_duration(ns, buf, len);
	return buf;
}

static void __attribute__((format(printf, 8, 9)))
line(struct tp *p, __u64 ts, const char *dur, const char *local, const char *off,
     int cpu, __u32 depth, const char *fmt, ...)
{
	char entry[32], c[16] = "";
	va_list ap;

	if (cpu >= 0)
		snprintf(c, sizeof(c), "%d", cpu);
	fprintf(p->f, "%10s %10s %10s %10s %4s  %*s", fmt_entry(p, ts, entry, sizeof(entry)),
		dur, local, off, c, (int)(2 * depth), "");
	va_start(ap, fmt);
	vfprintf(p->f, fmt, ap);
	va_end(ap);
	fputc('\n', p->f);
}

static void call_line(struct tp *p, const struct kfit_cnode *n)
{
	char dur[40], d[32], local[32], off[32], marks[96] = "";
	size_t m = 0;

	if (n->flags & KFIT_RF_LOST) {
		line(p, n->start, "?", "?", "-", -1, n->depth, "[lost caller]");
		return;
	}
	fmt_dur(p, n->dur, d, sizeof(d));
	snprintf(dur, sizeof(dur), "%s%s", n->flags & KFIT_RF_INCOMPLETE ? ">" : "", d);
	if (n->flags & KFIT_RF_INCOMPLETE)
		m += snprintf(marks + m, sizeof(marks) - m, " [incomplete: %s]",
			      kfit_tp_incomplete_reason(n->flags));
	if (n->flags & KFIT_RF_FORKED)
		m += snprintf(marks + m, sizeof(marks) - m, " [inherited]");
	if (n->dropped)
		snprintf(marks + m, sizeof(marks) - m, " [%u dropped]", n->dropped);
	line(p, n->start, dur, fmt_dur(p, n->local, local, sizeof(local)),
	     off_cpu(n) ? fmt_dur(p, off_cpu(n), off, sizeof(off)) : "-",
	     n->cpu, n->depth, "%s%s", kfit_ctree_name(p->t, n), marks);
}

static bool text_enter(struct tp *p, const struct kfit_cnode *n)
{
	char label[64], d[32];

	switch (n->kind) {
	case KFIT_CN_CALL:
		call_line(p, n);
		break;
	case KFIT_CN_IRQ:
		line(p, n->start, "", "", "", n->cpu, n->depth, "==> %s (cpu %u)",
		     kfit_tp_irq_label(p->t, n, label, sizeof(label)), n->cpu);
		break;
	case KFIT_CN_SWITCH:
		line(p, n->start, "", "", "", n->cpu, n->depth, "-- off CPU %s (%s)",
		     fmt_dur(p, n->dur, d, sizeof(d)), kfit_ctree_name(p->t, n));
		break;
	case KFIT_CN_EVENT:
		line(p, n->start, "", "", "", n->cpu, n->depth, "* %s",
		     kfit_ctree_name(p->t, n));
		break;
	case KFIT_CN_FORK:
		line(p, n->start, "", "", "", n->cpu, n->depth, "+ fork: tid %u", n->child_tid);
		break;
	case KFIT_CN_EXEC:
		line(p, n->start, "", "", "", n->cpu, n->depth, "+ exec: %s",
		     kfit_ctree_name(p->t, n));
		break;
	case KFIT_CN_EXIT:
		line(p, n->start, "", "", "", n->cpu, n->depth, "+ exit");
		break;
	}
	return true;
}

static void text_leave(struct tp *p, const struct kfit_cnode *n)
{
	char label[64], d[32];

	if (n->kind != KFIT_CN_IRQ)
		return;
	line(p, n->start + n->dur, "", "", "", n->cpu, n->depth, "<== %s %s",
	     kfit_tp_irq_label(p->t, n, label, sizeof(label)),
	     fmt_dur(p, n->dur, d, sizeof(d)));
}

/* ---- text, sampled mode ----------------------------------------------- */

static double pct(__u64 part, __u64 whole)
{
	return whole ? 100.0 * part / whole : 0;
}

static bool frame_enter(struct tp *p, const struct kfit_cnode *n)
{
	__u64 total = p->th->root.samples;

	if (pct(n->samples, total) < p->o->min_pct)
		return false;
	fprintf(p->f, "%6.1f%% %6.1f%%  %*s%s%s\n", pct(n->samples, total),
		pct(n->self, total), (int)(2 * n->depth), "", n->name ? n->name : "?",
		n->id ? " [k]" : "");
	return true;
}

static void frame_leave(struct tp *p, const struct kfit_cnode *n)
{
	(void)p;
	(void)n;
}

static void text_thread(struct tp *p, const struct kfit_cthread *th)
{
	const char *comm = th->comm[0] ? th->comm : "?";

	p->th = th;
	if (kfit_tp_sampled(th)) {
		fprintf(p->f, "== pid %u (%s): %llu samples ==\n", th->pid, comm,
			(unsigned long long)th->samples);
		fprintf(p->f, "%7s %7s  %s\n", "INCL%", "SELF%", "FUNCTION");
		walk(p, &th->root, frame_enter, frame_leave);
		return;
	}
	if (th->ctx != KFIT_CTX_TASK)
		fprintf(p->f, "== %s cpu %u ==\n", kfit_ctree_ctx_name(th->ctx), th->cpu);
	else
		fprintf(p->f, "== pid %u tid %u (%s) ==\n", th->pid, th->tid, comm);
	fprintf(p->f, "%10s %10s %10s %10s %4s  %s\n", "ENTRY", "DURATION", "LOCAL",
		"OFF-CPU", "CPU", "FUNCTION");
	walk(p, &th->root, text_enter, text_leave);
}

void kfit_tp_text(FILE *f, const struct kfit_ctree *t, const struct kfit_tp_opts *o)
{
	struct tp p;
	int i;

	tp_init(&p, t, o);
	p.f = f;
	for (i = 0; i < kfit_ctree_nthreads(t); i++) {
		if (i)
			fputc('\n', f);
		text_thread(&p, kfit_ctree_thread(t, i));
	}
}

void kfit_tp_counts(FILE *f, const struct kfit_ctree *t)
{
	const struct kfit_ctree_stats *s = kfit_ctree_stats(t);

	if (s->samples && !s->calls)
		fprintf(f, "%llu samples, %llu lost", (unsigned long long)s->samples,
			(unsigned long long)s->lost);
	else
		fprintf(f, "%llu calls, %llu lost, %llu dropped (--min/-D), %llu incomplete",
			(unsigned long long)s->calls, (unsigned long long)s->lost,
			(unsigned long long)s->dropped, (unsigned long long)s->incomplete);
	if (s->orphans)
		fprintf(f, ", %llu orphaned (caller lost)", (unsigned long long)s->orphans);
	if (s->bad)
		fprintf(f, ", %llu bad records", (unsigned long long)s->bad);
	if (s->samples && s->calls)
		fprintf(f, "; %llu samples", (unsigned long long)s->samples);
	fputc('\n', f);
}

/* ---- JSON ------------------------------------------------------------- */

void kfit_tp_json_counts(struct kfit_json *j, const struct kfit_ctree *t)
{
	const struct kfit_ctree_stats *s = kfit_ctree_stats(t);

	kfit_json_u64(j, "calls", s->calls);
	kfit_json_u64(j, "lost", s->lost);
	kfit_json_u64(j, "dropped", s->dropped);
	kfit_json_u64(j, "incomplete", s->incomplete);
	kfit_json_u64(j, "orphans", s->orphans);
	kfit_json_u64(j, "bad", s->bad);
	kfit_json_u64(j, "samples", s->samples);
}

/* The nodes under n: what a too deep node leaves out */
static __u64 descendants(const struct kfit_cnode *n)
{
	const struct kfit_cnode *c;
	__u64 count = 0;

	for (c = kfit_cnode_next(n, NULL); c; c = kfit_cnode_next(n, c))
		count++;
	return count;
}

static void json_call(struct tp *p, const struct kfit_cnode *n)
{
	struct kfit_json *j = p->j;

	kfit_json_str(j, "name", kfit_ctree_name(p->t, n));
	kfit_json_u64(j, "tid", p->th->tid);
	kfit_json_u64(j, "cpu", n->cpu);
	kfit_json_str(j, "context", kfit_ctree_ctx_name(n->ctx));
	kfit_json_i64(j, "start_ns", rel_time(p, n->start));
	kfit_json_u64(j, "duration_ns", n->dur);
	kfit_json_u64(j, "local_ns", n->local);
	kfit_json_u64(j, "offcpu_ns", off_cpu(n));
	kfit_json_u64(j, "offcpu_blocked_ns", n->off_blocked);
	kfit_json_u64(j, "offcpu_preempt_ns", n->off_preempt);
	kfit_json_bool(j, "complete", !(n->flags & KFIT_RF_INCOMPLETE));
	if (n->flags & KFIT_RF_INCOMPLETE)
		kfit_json_str(j, "incomplete_reason", kfit_tp_incomplete_reason(n->flags));
	if (n->flags & KFIT_RF_FORKED)
		kfit_json_bool(j, "inherited", true);
	if (n->flags & KFIT_RF_LOST)
		kfit_json_bool(j, "lost", true);
	kfit_json_u64(j, "dropped", n->dropped);
}

static void json_marker(struct tp *p, const struct kfit_cnode *n)
{
	struct kfit_json *j = p->j;
	char label[64];

	switch (n->kind) {
	case KFIT_CN_IRQ:
		kfit_json_str(j, "irq", kfit_tp_irq_label(p->t, n, label, sizeof(label)));
		kfit_json_str(j, "context", kfit_ctree_ctx_name(n->ctx));
		kfit_json_u64(j, "vector", n->id);
		kfit_json_u64(j, "cpu", n->cpu);
		kfit_json_u64(j, "ncalls", n->ncalls);
		break;
	case KFIT_CN_SWITCH:
		kfit_json_str(j, "switch", kfit_ctree_name(p->t, n));
		kfit_json_u64(j, "state", n->id);
		kfit_json_u64(j, "cpu", n->cpu);
		break;
	case KFIT_CN_EVENT:
		kfit_json_str(j, "event", kfit_ctree_name(p->t, n));
		kfit_json_str(j, "context", kfit_ctree_ctx_name(n->ctx));
		kfit_json_u64(j, "cpu", n->cpu);
		break;
	case KFIT_CN_FORK:
		kfit_json_u64(j, "fork", n->child_tid);
		break;
	case KFIT_CN_EXEC:
		kfit_json_str(j, "exec", kfit_ctree_name(p->t, n));
		break;
	case KFIT_CN_EXIT:
		kfit_json_bool(j, "exit", true);
		break;
	}
	kfit_json_i64(j, "start_ns", rel_time(p, n->start));
	if (n->kind == KFIT_CN_IRQ || n->kind == KFIT_CN_SWITCH)
		kfit_json_u64(j, "duration_ns", n->dur);
}

static bool has_children(const struct kfit_cnode *n)
{
	return n->kind == KFIT_CN_CALL || n->kind == KFIT_CN_IRQ ||
	       n->kind == KFIT_CN_FRAME;
}

/* Children nest while the writer can: else their count is given */
static bool json_children(struct tp *p, const struct kfit_cnode *n)
{
	if (!has_children(n))
		return false;
	if (n->depth >= p->max_depth) {
		kfit_json_u64(p->j, "omitted", descendants(n));
		return false;
	}
	kfit_json_begin_array(p->j, "children");
	return true;
}

static bool json_enter(struct tp *p, const struct kfit_cnode *n)
{
	kfit_json_begin_object(p->j, NULL);
	if (n->kind == KFIT_CN_CALL)
		json_call(p, n);
	else
		json_marker(p, n);
	return json_children(p, n);
}

static void json_leave(struct tp *p, const struct kfit_cnode *n)
{
	if (has_children(n) && n->depth < p->max_depth)
		kfit_json_end_array(p->j);
	kfit_json_end_object(p->j);
}

static bool jframe_enter(struct tp *p, const struct kfit_cnode *n)
{
	struct kfit_json *j = p->j;

	kfit_json_begin_object(j, NULL);
	kfit_json_str(j, "name", n->name ? n->name : "?");
	kfit_json_bool(j, "kernel", n->id);
	kfit_json_u64(j, "samples", n->samples);
	kfit_json_u64(j, "self", n->self);
	return json_children(p, n);
}

/*
 * How deep calls nest in JSON: Debian 12's jq (1.6) parses 256 levels, an
 * object counting two, and a call is an object and its children's array.
 * With outer containers open around the calls' array (two levels each,
 * at most), calls at depths below the result have their children shown.
 */
#define JQ_LEVELS 256

static __u32 max_depth(int outer)
{
	int jq = (JQ_LEVELS - 2 - 2 * outer) / 3;
	int writer = (KFIT_JSON_DEPTH - 3 - outer) / 2;
	int d = jq < writer ? jq : writer;

	return d > 0 ? d : 0;
}

static void json_thread(struct tp *p, const struct kfit_cthread *th)
{
	struct kfit_json *j = p->j;
	bool sampled = kfit_tp_sampled(th);

	p->th = th;
	kfit_json_begin_object(j, NULL);
	kfit_json_u64(j, "pid", th->pid);
	if (!sampled)
		kfit_json_u64(j, "tid", th->tid);
	kfit_json_str(j, "comm", th->comm);
	if (sampled) {
		kfit_json_u64(j, "samples", th->samples);
	} else {
		kfit_json_str(j, "context", kfit_ctree_ctx_name(th->ctx));
		if (th->ctx != KFIT_CTX_TASK)
			kfit_json_u64(j, "cpu", th->cpu);
		else
			kfit_json_null(j, "cpu");
	}
	kfit_json_begin_array(j, sampled ? "children" : "calls");
	p->max_depth = max_depth(j->depth);
	walk(p, &th->root, sampled ? jframe_enter : json_enter, json_leave);
	kfit_json_end_array(j);
	kfit_json_end_object(j);
}

void kfit_tp_json_threads(struct kfit_json *j, const struct kfit_ctree *t,
			  const struct kfit_tp_opts *o)
{
	struct tp p;
	int i;

	tp_init(&p, t, o);
	p.j = j;
	kfit_json_begin_array(j, "threads");
	for (i = 0; i < kfit_ctree_nthreads(t); i++)
		json_thread(&p, kfit_ctree_thread(t, i));
	kfit_json_end_array(j);
}
