// SPDX-License-Identifier: GPL-2.0
/* kd -c text and JSON renderers of call trees (treeprint.h) */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "duration.h"
#include "output.h"
#include "treeprint.h"
#include "ustop.h"

struct tp {
	FILE *f;
	struct kfit_json *j;
	const struct kfit_ctree *t;
	const struct kfit_treeprint_opts *o;
	const struct kfit_cthread *th;
	__u64 origin;
	__u32 max_depth;	/* JSON: deeper nodes show no children */
	__u64 hid_samples, hid_lines;	/* sampled: left out by the limits */
	__u64 deeper;		/* sampled: samples below -D */
	__u64 all;		/* sampled: the samples of every process */
	int hid_procs;		/* sampled processes left out whole by the limits */
	__u64 hid_proc_samples;	/* and their samples */
};

typedef bool (*tp_enter)(struct tp *p, const struct kfit_cnode *n);
typedef void (*tp_leave)(struct tp *p, const struct kfit_cnode *n);

/*
 * Depth-first without recursion (trees from a file can be deep): enter
 * before the children, leave after them; enter says whether to go in.
 * top and what is under it.
 */
static void walk_node(struct tp *p, const struct kfit_cnode *top, tp_enter enter,
		      tp_leave leave)
{
	const struct kfit_cnode *n = top;

	for (;;) {
		if (enter(p, n) && n->child) {
			n = n->child;
			continue;
		}
		leave(p, n);
		while (n != top && !n->next) {
			n = n->parent;
			leave(p, n);
		}
		if (n == top)
			return;
		n = n->next;
	}
}

/* root's children shown, each with what is under it */
static void walk(struct tp *p, const struct kfit_cnode *root, tp_enter enter,
		 tp_leave leave)
{
	const struct kfit_cnode *n;

	for (n = root->child; n; n = n->next)
		if (kfit_treeprint_kept(n, p->o->errors))
			walk_node(p, n, enter, leave);
}

/* --errors: whether an exact thread has a tree to show */
static bool thread_kept(const struct tp *p, const struct kfit_cthread *th)
{
	const struct kfit_cnode *n;

	if (!p->o->errors || kfit_treeprint_sampled(th))
		return true;
	for (n = th->root.child; n; n = n->next)
		if (kfit_cnode_has_failure(n))
			return true;
	return false;
}

void kfit_treeprint_trees(const struct kfit_ctree *t, __u64 *kept, __u64 *left_out)
{
	const struct kfit_cthread *th;
	const struct kfit_cnode *n;
	int i;

	*kept = *left_out = 0;
	for (i = 0; i < kfit_ctree_nthreads(t); i++) {
		th = kfit_ctree_thread(t, i);
		for (n = th->root.child; n; n = n->next) {
			if (!kfit_cnode_is_tree(n))
				continue;
			if (kfit_cnode_has_failure(n))
				++*kept;
			else
				++*left_out;
		}
	}
}

static const struct kfit_treeprint_opts no_opts;

static void tp_init(struct tp *p, const struct kfit_ctree *t, const struct kfit_treeprint_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->t = t;
	p->o = o ? o : &no_opts;
	p->origin = p->o->abs_time ? 0 :
		    p->o->origin ? p->o->origin : kfit_ctree_get_stats(t)->first_ts;
}

/* ---- shared helpers --------------------------------------------------- */

const char *kfit_treeprint_irq_label(const struct kfit_ctree *t, const struct kfit_cnode *n,
			      char *buf, size_t len)
{
	return kfit_ctree_irq_label(n, kfit_ctree_name(t, n), buf, len);
}

const char *kfit_treeprint_incomplete_reason(__u8 flags)
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

bool kfit_treeprint_sampled(const struct kfit_cthread *th)
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

/*
 * A line made in a buffer by hand, written whole: the tree prints a line
 * a call, millions of them, and printf's work was most of their time.
 * What does not fit is written as it comes: any length prints whole.
 */
struct lbuf {
	FILE *f;
	size_t n;
	char s[256];
};

static void lb_flush(struct lbuf *b)
{
	fwrite(b->s, 1, b->n, b->f);
	b->n = 0;
}

static void lb_put(struct lbuf *b, const char *s, size_t len)
{
	size_t k;

	while (len) {
		if (b->n == sizeof(b->s))
			lb_flush(b);
		k = sizeof(b->s) - b->n < len ? sizeof(b->s) - b->n : len;
		memcpy(b->s + b->n, s, k);
		b->n += k;
		s += k;
		len -= k;
	}
}

static void lb_str(struct lbuf *b, const char *s)
{
	lb_put(b, s, strlen(s));
}

/* n spaces */
static void lb_spaces(struct lbuf *b, size_t n)
{
	static const char sp[] = "                                ";

	for (; n > sizeof(sp) - 1; n -= sizeof(sp) - 1)
		lb_put(b, sp, sizeof(sp) - 1);
	lb_put(b, sp, n);
}

/* s right-aligned in width columns: printf's "%*s" */
static void lb_right(struct lbuf *b, const char *s, size_t width)
{
	size_t len = strlen(s);

	if (len < width)
		lb_spaces(b, width - len);
	lb_put(b, s, len);
}

/* "SEC.USEC" from the origin, "-" before it; --ns: signed ns */
static const char *fmt_entry(const struct tp *p, __u64 ts, char *buf, size_t len)
{
	__s64 v = rel_time(p, ts);
	__u64 a = v < 0 ? -(__u64)v : (__u64)v;
	size_t n = 0;

	if (len < 32)
		return "";
	if (v < 0)
		buf[n++] = '-';
	n += kfit_u64_str(p->o->ns ? a : a / KFIT_SEC, buf + n);
	if (p->o->ns)
		return buf;
	buf[n++] = '.';
	n += kfit_u64_str_pad(a % KFIT_SEC / KFIT_USEC, 6, buf + n);
	buf[n++] = 's';
	buf[n] = '\0';
	return buf;
}

static const char *fmt_dur(const struct tp *p, __u64 ns, char *buf, size_t len)
{
	if (p->o->ns && len > 20)
		kfit_u64_str(ns, buf);
	else
		kfit_duration_fmt(ns, buf, len);
	return buf;
}

/* --errors: '!' in the column before the names, for n on a failing path */
static char mark_of(const struct tp *p, const struct kfit_cnode *n)
{
	return p->o->errors && kfit_cnode_failpath(n) ? '!' : ' ';
}

/* A line's columns, its mark and its indent: "%10s %10s %10s %10s %4s %c %*s" */
static void line_head(struct tp *p, struct lbuf *b, __u64 ts, const char *dur,
		      const char *local, const char *off, int cpu, __u32 depth, char mark)
{
	char entry[32], c[24] = "";

	if (cpu >= 0)
		kfit_u64_str(cpu, c);
	b->f = p->f;
	b->n = 0;
	lb_right(b, fmt_entry(p, ts, entry, sizeof(entry)), 10);
	lb_put(b, " ", 1);
	lb_right(b, dur, 10);
	lb_put(b, " ", 1);
	lb_right(b, local, 10);
	lb_put(b, " ", 1);
	lb_right(b, off, 10);
	lb_put(b, " ", 1);
	lb_right(b, c, 4);
	lb_put(b, " ", 1);
	lb_put(b, &mark, 1);
	lb_spaces(b, 2 * (size_t)depth);
}


static void __attribute__((format(printf, 9, 10)))
line(struct tp *p, __u64 ts, const char *dur, const char *local, const char *off,
     int cpu, __u32 depth, char mark, const char *fmt, ...)
{
	struct lbuf b;
	va_list ap;

	line_head(p, &b, ts, dur, local, off, cpu, depth, mark);
	lb_flush(&b);
	va_start(ap, fmt);
	vfprintf(p->f, fmt, ap);
	va_end(ap);
	fputc('\n', p->f);
}

static void call_line(struct tp *p, const struct kfit_cnode *n)
{
	char dur[40], local[32], off[32], marks[96] = "", ret[32], args[640];
	struct lbuf b;
	size_t m = 0;

	if (n->flags & KFIT_RF_LOST) {
		line(p, n->start, "?", "?", "-", -1, n->depth, mark_of(p, n), "[lost caller]");
		return;
	}
	dur[0] = '>';
	fmt_dur(p, n->dur, dur + 1, sizeof(dur) - 1);
	if (n->flags & KFIT_RF_INCOMPLETE)
		m += snprintf(marks + m, sizeof(marks) - m, " [incomplete: %s]",
			      kfit_treeprint_incomplete_reason(n->flags));
	if (n->flags & KFIT_RF_FORKED)
		m += snprintf(marks + m, sizeof(marks) - m, " [inherited]");
	if (n->dropped)
		m += snprintf(marks + m, sizeof(marks) - m, " [%u dropped]", n->dropped);
	if (kfit_cnode_ret_str(n, ret, sizeof(ret)))
		snprintf(marks + m, sizeof(marks) - m, " => %s", ret);
	line_head(p, &b, n->start, n->flags & KFIT_RF_INCOMPLETE ? dur : dur + 1,
		  fmt_dur(p, n->local, local, sizeof(local)),
		  off_cpu(n) ? fmt_dur(p, off_cpu(n), off, sizeof(off)) : "-", n->cpu, n->depth,
		  mark_of(p, n));
	lb_str(&b, kfit_ctree_name(p->t, n));
	if (kfit_ctree_args_str(p->t, n, args, sizeof(args))) {
		lb_str(&b, "(");
		lb_str(&b, args);
		lb_str(&b, ")");
	}
	lb_str(&b, marks);
	lb_put(&b, "\n", 1);
	lb_flush(&b);
}

static bool text_enter(struct tp *p, const struct kfit_cnode *n)
{
	char label[64], d[32];

	switch (n->kind) {
	case KFIT_CN_CALL:
		call_line(p, n);
		break;
	case KFIT_CN_IRQ:
		line(p, n->start, "", "", "", n->cpu, n->depth, mark_of(p, n), "==> %s (cpu %u)",
		     kfit_treeprint_irq_label(p->t, n, label, sizeof(label)), n->cpu);
		break;
	case KFIT_CN_SWITCH:
		line(p, n->start, "", "", "", n->cpu, n->depth, ' ', "-- off CPU %s (%s)",
		     fmt_dur(p, n->dur, d, sizeof(d)), kfit_ctree_name(p->t, n));
		break;
	case KFIT_CN_EVENT:
		line(p, n->start, "", "", "", n->cpu, n->depth, ' ', "* %s",
		     kfit_ctree_name(p->t, n));
		break;
	case KFIT_CN_FORK:
		line(p, n->start, "", "", "", n->cpu, n->depth, ' ', "+ fork: tid %u", n->child_tid);
		break;
	case KFIT_CN_EXEC:
		line(p, n->start, "", "", "", n->cpu, n->depth, ' ', "+ exec: %s",
		     kfit_ctree_name(p->t, n));
		break;
	case KFIT_CN_EXIT:
		line(p, n->start, "", "", "", n->cpu, n->depth, ' ', "+ exit");
		break;
	}
	return true;
}

static void text_leave(struct tp *p, const struct kfit_cnode *n)
{
	char label[64], d[32];

	if (n->kind != KFIT_CN_IRQ)
		return;
	line(p, n->start + n->dur, "", "", "", n->cpu, n->depth, mark_of(p, n), "<== %s %s",
	     kfit_treeprint_irq_label(p->t, n, label, sizeof(label)),
	     fmt_dur(p, n->dur, d, sizeof(d)));
}

/* ---- text, sampled mode ----------------------------------------------- */

#define FRAME_PREFIX	17	/* "%6.1f%% %6.1f%%  ": INCL%, SELF% */
#define MIN_NAME	20	/* columns a name keeps however deep its frame */
#define MIN_WIDTH	40

static double pct(__u64 part, __u64 whole)
{
	return whole ? 100.0 * part / whole : 0;
}

static bool limited(const struct kfit_treeprint_opts *o)
{
	return o->min_pct > 0 || o->min_samples || o->max_depth;
}

/* A frame (or process) of s samples among total, under the limits */
static bool below_limit(const struct kfit_treeprint_opts *o, __u64 s, __u64 total)
{
	return pct(s, total) < o->min_pct || s < o->min_samples;
}

/* As perf report's percent limit: of all the samples, not of the process's */
static bool frame_hidden(const struct tp *p, const struct kfit_cnode *n)
{
	return below_limit(p->o, n->samples, p->all);
}

/* A shown frame whose callees are below -D: they count in its "deeper" */
static bool frame_cut(const struct tp *p, const struct kfit_cnode *n)
{
	return p->o->max_depth && n->depth + 1 >= p->o->max_depth && n->child;
}

/* The lines hiding n hides: n and its callees down to -D */
static __u64 hidden_lines(const struct tp *p, const struct kfit_cnode *n)
{
	const struct kfit_cnode *c;
	__u64 count = 1;

	for (c = kfit_cnode_next(n, NULL); c; c = kfit_cnode_next(n, c))
		count += !p->o->max_depth || c->depth < p->o->max_depth;
	return count;
}

static unsigned int text_width(const struct tp *p)
{
	unsigned int w = p->o->width;

	return w && w < MIN_WIDTH ? MIN_WIDTH : w;
}

/* s then marks in room columns: s cut with "..." first, the marks kept if they fit */
static void fit(FILE *f, const char *s, const char *marks, int room)
{
	int n = strlen(s), m = strlen(marks);

	if (room <= 0 || n + m <= room) {
		fprintf(f, "%s%s", s, marks);
		return;
	}
	if (m + 4 > room) {
		m = 0;
		marks = "";
	}
	if (room - m < 3) {
		fprintf(f, "%.*s", room, s);
		return;
	}
	fprintf(f, "%.*s...%s", room - m - 3, s, marks);
}

static void vnote(FILE *f, unsigned int width, const char *fmt, va_list ap)
{
	char buf[256];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (width && width < MIN_WIDTH)
		width = MIN_WIDTH;
	fit(f, buf, "", width);
	fputc('\n', f);
}

void kfit_treeprint_note(FILE *f, unsigned int width, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(f, width, fmt, ap);
	va_end(ap);
}

/* A line of the tool's own (a header, a footer), cut to the width */
static void __attribute__((format(printf, 2, 3))) text_note(struct tp *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(p->f, text_width(p), fmt, ap);
	va_end(ap);
}

/*
 * "INCL% SELF%  NAME MARKS", indented 2 columns a level; to fit a width,
 * a frame too deep to indent is shown at the deepest indent with its
 * depth, "(37) name", and a name too long is cut with "...".
 */
static void frame_line(struct tp *p, const struct kfit_cnode *n, const char *marks)
{
	__u64 total = p->th->root.samples;
	int w = text_width(p), indent = 2 * n->depth, room = 0;
	char tag[16] = "";

	fprintf(p->f, "%6.1f%% %6.1f%%  ", pct(n->samples, total), pct(n->self, total));
	if (w) {
		if (FRAME_PREFIX + indent + MIN_NAME > w) {
			indent = (w - FRAME_PREFIX - MIN_NAME) & ~1;
			snprintf(tag, sizeof(tag), "(%u) ", n->depth);
		}
		room = w - FRAME_PREFIX - indent - (int)strlen(tag);
	}
	fprintf(p->f, "%*s%s", indent, "", tag);
	fit(p->f, n->name ? n->name : "?", marks, room);
	fputc('\n', p->f);
}

static bool frame_enter(struct tp *p, const struct kfit_cnode *n)
{
	char marks[48] = "";
	bool cut;
	size_t m = 0;

	if (frame_hidden(p, n)) {
		p->hid_samples += n->samples;
		p->hid_lines += hidden_lines(p, n);
		return false;
	}
	cut = frame_cut(p, n);
	if (n->id)
		m += snprintf(marks + m, sizeof(marks) - m, " [k]");
	if (cut) {
		snprintf(marks + m, sizeof(marks) - m, " [%llu deeper]",
			 (unsigned long long)(n->samples - n->self));
		p->deeper += n->samples - n->self;
	}
	frame_line(p, n, marks);
	return !cut;
}

static void frame_leave(struct tp *p, const struct kfit_cnode *n)
{
	(void)p;
	(void)n;
}

static void sampled_counts_reset(struct tp *p)
{
	p->hid_samples = p->hid_lines = p->deeper = 0;
}

static const char *plural(__u64 n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* What the limits left out of a process's tree */
static void sampled_footer(struct tp *p)
{
	const char *why = p->o->hidden_note ? p->o->hidden_note : "under the limits";

	if (p->hid_lines)
		text_note(p, "-- %llu %s hidden in %llu %s %s",
			  (unsigned long long)p->hid_samples,
			  plural(p->hid_samples, "sample", "samples"),
			  (unsigned long long)p->hid_lines,
			  plural(p->hid_lines, "line", "lines"), why);
	if (p->deeper)
		text_note(p, "-- %llu %s deeper than -D %u: in the [N deeper] of their frame",
			  (unsigned long long)p->deeper, plural(p->deeper, "sample", "samples"),
			  p->o->max_depth);
}

static void sampled_text(struct tp *p, const struct kfit_cthread *th)
{
	const char *comm = th->comm[0] ? th->comm : "?";

	text_note(p, "== pid %u (%s): %llu %s ==", th->pid, comm,
		  (unsigned long long)th->samples, plural(th->samples, "sample", "samples"));
	fprintf(p->f, "%7s %7s  %s\n", "INCL%", "SELF%", "FUNCTION");
	sampled_counts_reset(p);
	walk(p, &th->root, frame_enter, frame_leave);
	sampled_footer(p);
}

/* All the samples of the sampled processes, the base of their percentages */
static __u64 all_samples(const struct kfit_ctree *t)
{
	__u64 sum = 0;
	int i;

	for (i = 0; i < kfit_ctree_nthreads(t); i++)
		if (kfit_treeprint_sampled(kfit_ctree_thread(t, i)))
			sum += kfit_ctree_thread(t, i)->samples;
	return sum;
}

/* A sampled process left out whole by the limits */
static bool process_hidden(const struct tp *p, const struct kfit_cthread *th, __u64 all)
{
	return kfit_treeprint_sampled(th) && below_limit(p->o, th->samples, all);
}

/*
 * The thread at *i, or the next one shown, with *i past it (NULL after
 * the last): the processes hidden on the way are counted into p
 */
static const struct kfit_cthread *next_shown(struct tp *p, int *i)
{
	const struct kfit_cthread *th;

	while (*i < kfit_ctree_nthreads(p->t)) {
		th = kfit_ctree_thread(p->t, (*i)++);
		if (!process_hidden(p, th, p->all))
			return th;
		p->hid_procs++;
		p->hid_proc_samples += th->samples;
	}
	return NULL;
}

static void text_thread(struct tp *p, const struct kfit_cthread *th)
{
	p->th = th;
	if (kfit_treeprint_sampled(th)) {
		sampled_text(p, th);
		return;
	}
	kfit_treeprint_text_head(p->f, th);
	walk(p, &th->root, text_enter, text_leave);
}

void kfit_treeprint_text_head(FILE *f, const struct kfit_cthread *th)
{
	const char *comm = th->comm[0] ? th->comm : "?";

	if (th->ctx != KFIT_CTX_TASK)
		fprintf(f, "== %s cpu %u ==\n", kfit_ctree_ctx_name(th->ctx), th->cpu);
	else
		fprintf(f, "== pid %u tid %u (%s) ==\n", th->pid, th->tid, comm);
	fprintf(f, "%10s %10s %10s %10s %4s  %s\n", "ENTRY", "DURATION", "LOCAL",
		"OFF-CPU", "CPU", "FUNCTION");
}

void kfit_treeprint_text_node(FILE *f, const struct kfit_ctree *t, const struct kfit_cnode *n,
			      const struct kfit_treeprint_opts *o)
{
	struct tp p;

	tp_init(&p, t, o);
	p.f = f;
	walk_node(&p, n, text_enter, text_leave);
}

void kfit_treeprint_text(FILE *f, const struct kfit_ctree *t, const struct kfit_treeprint_opts *o)
{
	const struct kfit_cthread *th;
	int i = 0, shown = 0;
	struct tp p;

	tp_init(&p, t, o);
	p.f = f;
	p.all = all_samples(t);
	while ((th = next_shown(&p, &i))) {
		if (!thread_kept(&p, th))
			continue;
		if (shown++)
			fputc('\n', f);
		text_thread(&p, th);
	}
	if (!p.hid_procs)
		return;
	if (shown)
		fputc('\n', f);
	text_note(&p, "-- %d %s hidden: %llu %s %s", p.hid_procs,
		  plural(p.hid_procs, "process", "processes"),
		  (unsigned long long)p.hid_proc_samples,
		  plural(p.hid_proc_samples, "sample", "samples"),
		  p.o->hidden_note ? p.o->hidden_note : "under the limits");
}

static void count(FILE *f, const char *sep, __u64 n, const char *one, const char *many)
{
	fprintf(f, "%s%llu %s", sep, (unsigned long long)n, plural(n, one, many));
}

/*
 * Unwound user stacks, on lines of their own (narrow terminals):
 * "user stacks: 380 whole, 8 cut short:", then "  stack copy too small 6"
 * a reason; kernel threads have none to count
 */
static void ustop_counts(FILE *f, const struct kfit_ctree_stats *s)
{
	__u64 cut = 0;
	int i;

	for (i = KFIT_USTOP_END + 1; i < KFIT_NUSTOPS; i++)
		cut += i == KFIT_USTOP_NOREGS ? 0 : s->ustops[i];
	if (!cut && !s->ustops[KFIT_USTOP_END])
		return;
	fprintf(f, "user stacks: %llu whole", (unsigned long long)s->ustops[KFIT_USTOP_END]);
	if (cut)
		fprintf(f, ", %llu cut short:", (unsigned long long)cut);
	fputc('\n', f);
	for (i = KFIT_USTOP_END + 1; i < KFIT_NUSTOPS; i++)
		if (i != KFIT_USTOP_NOREGS && s->ustops[i])
			fprintf(f, "  %s %llu\n", kfit_ustop_name(i),
				(unsigned long long)s->ustops[i]);
}

void kfit_treeprint_sample_counts(FILE *f, const struct kfit_ctree *t)
{
	const struct kfit_ctree_stats *s = kfit_ctree_get_stats(t);

	count(f, "", s->samples, "sample", "samples");
	fprintf(f, ", %llu lost", (unsigned long long)s->lost);
	if (s->bad)
		count(f, ", ", s->bad, "bad record", "bad records");
	fputc('\n', f);
	ustop_counts(f, s);
}

void kfit_treeprint_counts(FILE *f, const struct kfit_ctree *t)
{
	const struct kfit_ctree_stats *s = kfit_ctree_get_stats(t);

	if (s->samples && !s->calls) {
		kfit_treeprint_sample_counts(f, t);
		return;
	}
	count(f, "", s->calls, "call", "calls");
	fprintf(f, ", %llu lost, %llu dropped (--min/-D), %llu incomplete",
		(unsigned long long)s->lost, (unsigned long long)s->dropped,
		(unsigned long long)s->incomplete);
	if (s->orphans)
		fprintf(f, ", %llu orphaned (caller lost)", (unsigned long long)s->orphans);
	if (s->bad)
		count(f, ", ", s->bad, "bad record", "bad records");
	if (s->samples && s->calls)
		count(f, "; ", s->samples, "sample", "samples");
	fputc('\n', f);
}

/* ---- JSON ------------------------------------------------------------- */

/* "user_stacks": {"whole": 380, "copy": 6, ...}: the unwound samples, by how each ends */
static void json_ustops(struct kfit_json *j, const struct kfit_ctree_stats *s)
{
	__u64 n = 0;
	int i;

	for (i = 0; i < KFIT_NUSTOPS; i++)
		n += s->ustops[i];
	if (!n)
		return;
	kfit_json_begin_object(j, "user_stacks");
	for (i = 0; i < KFIT_NUSTOPS; i++)
		kfit_json_u64(j, kfit_ustop_key(i), s->ustops[i]);
	kfit_json_end_object(j);
}

void kfit_treeprint_json_counts(struct kfit_json *j, const struct kfit_ctree *t)
{
	const struct kfit_ctree_stats *s = kfit_ctree_get_stats(t);

	kfit_json_u64(j, "calls", s->calls);
	kfit_json_u64(j, "lost", s->lost);
	kfit_json_u64(j, "dropped", s->dropped);
	kfit_json_u64(j, "incomplete", s->incomplete);
	kfit_json_u64(j, "orphans", s->orphans);
	kfit_json_u64(j, "bad", s->bad);
	kfit_json_u64(j, "samples", s->samples);
	json_ustops(j, s);
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

/*
 * "ret": the value as the function's kind reads it (an unsigned one as
 * such; a pointer signed, exact in a double), "ret_str" as the text has it
 */
static void json_ret(struct kfit_json *j, const struct kfit_cnode *n)
{
	char s[32];

	if (!kfit_cnode_ret_str(n, s, sizeof(s)))
		return;
	if ((n->ret_kind & KFIT_RET_SIZE) && !(n->ret_kind & KFIT_RET_SIGNED))
		kfit_json_u64(j, "ret", (__u64)n->ret);
	else
		kfit_json_i64(j, "ret", n->ret);
	kfit_json_str(j, "ret_str", s);
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
		kfit_json_str(j, "incomplete_reason", kfit_treeprint_incomplete_reason(n->flags));
	if (n->flags & KFIT_RF_FORKED)
		kfit_json_bool(j, "inherited", true);
	if (n->flags & KFIT_RF_LOST)
		kfit_json_bool(j, "lost", true);
	kfit_json_u64(j, "dropped", n->dropped);
	json_ret(j, n);
	kfit_ctree_args_json(p->t, n, j, "args");
	if (p->o->errors && kfit_cnode_failpath(n))
		kfit_json_bool(j, "failed", true);
}

static void json_marker(struct tp *p, const struct kfit_cnode *n)
{
	struct kfit_json *j = p->j;
	char label[64];

	switch (n->kind) {
	case KFIT_CN_IRQ:
		kfit_json_str(j, "irq", kfit_treeprint_irq_label(p->t, n, label, sizeof(label)));
		kfit_json_str(j, "context", kfit_ctree_ctx_name(n->ctx));
		kfit_json_u64(j, "vector", n->id);
		kfit_json_u64(j, "cpu", n->cpu);
		kfit_json_u64(j, "ncalls", n->ncalls);
		if (p->o->errors && kfit_cnode_failpath(n))
			kfit_json_bool(j, "failed", true);
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

/* The limits as in text; a frame cut by -D has "deeper" for its callees */
static bool jframe_enter(struct tp *p, const struct kfit_cnode *n)
{
	struct kfit_json *j = p->j;

	if (frame_hidden(p, n)) {
		p->hid_samples += n->samples;
		p->hid_lines += hidden_lines(p, n);
		return false;
	}
	kfit_json_begin_object(j, NULL);
	kfit_json_str(j, "name", n->name ? n->name : "?");
	kfit_json_bool(j, "kernel", n->id);
	kfit_json_u64(j, "samples", n->samples);
	kfit_json_u64(j, "self", n->self);
	if (frame_cut(p, n)) {
		kfit_json_u64(j, "deeper", n->samples - n->self);
		p->deeper += n->samples - n->self;
		return false;
	}
	return json_children(p, n);
}

static void jframe_leave(struct tp *p, const struct kfit_cnode *n)
{
	if (frame_hidden(p, n))
		return;
	if (!frame_cut(p, n) && n->depth < p->max_depth)
		kfit_json_end_array(p->j);
	kfit_json_end_object(p->j);
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

/* A thread's object up to its open array of calls (sampled: of frames) */
static void json_thread_head(struct kfit_json *j, const struct kfit_cthread *th, bool sampled)
{
	kfit_json_begin_object(j, NULL);
	kfit_json_u64(j, "pid", th->pid);
	if (!sampled)
		kfit_json_u64(j, "tid", th->tid);
	kfit_json_str(j, "comm", th->comm);
	if (sampled) {
		kfit_json_u64(j, "samples", th->samples);
		kfit_json_u64(j, "self", th->root.self);
	} else {
		kfit_json_str(j, "context", kfit_ctree_ctx_name(th->ctx));
		if (th->ctx != KFIT_CTX_TASK)
			kfit_json_u64(j, "cpu", th->cpu);
		else
			kfit_json_null(j, "cpu");
	}
	kfit_json_begin_array(j, sampled ? "children" : "calls");
}

void kfit_treeprint_json_thread_head(struct kfit_json *j, const struct kfit_cthread *th)
{
	json_thread_head(j, th, false);
}

void kfit_treeprint_json_node(struct kfit_json *j, const struct kfit_ctree *t,
			      const struct kfit_cthread *th, const struct kfit_cnode *n,
			      const struct kfit_treeprint_opts *o)
{
	struct tp p;

	tp_init(&p, t, o);
	p.j = j;
	p.th = th;
	p.max_depth = max_depth(j->depth);
	walk_node(&p, n, json_enter, json_leave);
}

static void json_thread(struct tp *p, const struct kfit_cthread *th)
{
	struct kfit_json *j = p->j;
	bool sampled = kfit_treeprint_sampled(th);

	p->th = th;
	json_thread_head(j, th, sampled);
	p->max_depth = max_depth(j->depth);
	sampled_counts_reset(p);
	if (sampled)
		walk(p, &th->root, jframe_enter, jframe_leave);
	else
		walk(p, &th->root, json_enter, json_leave);
	kfit_json_end_array(j);
	if (sampled && limited(p->o)) {
		kfit_json_u64(j, "hidden_samples", p->hid_samples);
		kfit_json_u64(j, "hidden_frames", p->hid_lines);
		kfit_json_u64(j, "deeper_samples", p->deeper);
	}
	kfit_json_end_object(j);
}

void kfit_treeprint_json_threads(struct kfit_json *j, const struct kfit_ctree *t,
			  const struct kfit_treeprint_opts *o)
{
	const struct kfit_cthread *th;
	struct tp p;
	int i = 0;

	tp_init(&p, t, o);
	p.j = j;
	p.all = all_samples(t);
	kfit_json_begin_array(j, "threads");
	while ((th = next_shown(&p, &i)))
		if (thread_kept(&p, th))
			json_thread(&p, th);
	kfit_json_end_array(j);
	if (!p.all || !limited(p.o))
		return;
	kfit_json_u64(j, "hidden_processes", p.hid_procs);
	kfit_json_u64(j, "hidden_process_samples", p.hid_proc_samples);
}
