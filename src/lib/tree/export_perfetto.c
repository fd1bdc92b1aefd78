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
#include "spool.h"
#include "treeprint.h"

/* ---- Chrome trace-event JSON ---- */

/* An open slice, clamped, and where its last child ended */
struct span {
	__u64 lo, hi, prev;
};

struct trace {
	struct kfit_json j;
	const struct kfit_export_src *s;
	__u32 pid, tid;			/* the track being written */
	struct span *sp;
	size_t nsp, spcap;
	const struct kfit_cnode *top;	/* the node an interrupt track's walk starts at */
	const struct kfit_cthread *cur;	/* the thread it was found in */
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
	char ret[32], args[640];

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
	if (kfit_cnode_ret_str(n, ret, sizeof(ret)))
		kfit_json_str(&x->j, "ret", ret);
	if (x->s->tree && kfit_ctree_args_str(x->s->tree, n, args, sizeof(args)))
		kfit_json_str(&x->j, "args", args);
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

/* ---- the trace made as call trees come ---- */

/*
 * A task's track is drawn as each of its top-level nodes comes, into the
 * spool under the thread, and written thread after thread at the end:
 * only its last top-level slice's end is kept, to clamp the next one.
 * The interrupt tracks cannot be drawn so: each is in time order across
 * every thread, each slice clamped after the one before it on its track.
 * Their subtrees are kept (struct knode) in runs, one thread's for one
 * track in the order the walk of the whole tree finds them (class 0: a
 * per-CPU thread's outermost calls, which that walk takes first; 1:
 * interrupts at any depth) and in time order: one that starts before the
 * last begins the next run. The end merges each track's runs by time,
 * ties in the whole walk's order: by thread, class, run.
 */

/* A subtree kept for its track: nnodes struct knode after it, bytes in all */
struct khead {
	__u64 start;
	__u32 nnodes, bytes;
};

/* A node of a kept subtree, its name's bytes after it */
struct knode {
	struct kfit_cnode n;	/* links and name cleared */
	__u32 level;		/* under the subtree's top */
	__u32 namelen;		/* with its NUL; 0: no name */
};

struct tthread;

/* One thread's subtrees for one track and class, in time order */
struct irun {
	const struct kfit_cthread *th;
	struct tthread *tt;
	__u16 cpu;
	__u8 ctx, cls;
	__u32 no;			/* of the thread's runs of this track and class */
	__u64 last;			/* the start of its last subtree */
	struct kfit_spool_pos pos;	/* the merge's: its next subtree */
	struct khead head;
};

/* A thread's: its track's last top-level end, its runs taking subtrees */
struct tthread {
	__u64 prev;
	int index;			/* in the threads written; -1: not written */
	struct irun **runs;
	size_t nruns, runcap;
};

struct kfit_export_trace {
	struct trace x;
	struct export_walker draw, find, keep;
	struct kfit_spool *sp;		/* tasks' text by thread, subtrees by run */
	struct tthread **tt;
	size_t ntt, ttcap;
	struct irun **runs;
	size_t nruns, runcap;
	const struct kfit_cthread *th;	/* the thread whose node is searched */
	struct tthread *cur;
	char *kbuf;			/* the subtree kept or read back */
	size_t klen, kcap;
	const struct kfit_cnode *ktop;
	__u32 level, knodes;
	struct kfit_cnode *nodes;	/* a subtree read back */
	struct kfit_cnode **up;		/* its open parents */
	size_t nodecap;
};

/* traceEvents' items: {"traceEvents":[ */
#define EVENTS_DEPTH	2

/* v, an array of n pointers of room for cap, with room for one more; NULL: none */
static void *room(void *v, size_t n, size_t *cap)
{
	size_t c = *cap ? 2 * *cap : 8;

	if (n < *cap)
		return v;
	v = realloc(v, c * sizeof(void *));
	if (v)
		*cap = c;
	return v;
}

static int kbuf_put(struct kfit_export_trace *tr, const void *p, size_t len)
{
	size_t cap = tr->kcap ? tr->kcap : 4096;
	char *b;

	if (!len)
		return 0;
	while (cap < tr->klen + len)
		cap *= 2;
	if (cap != tr->kcap) {
		b = realloc(tr->kbuf, cap);
		if (!b)
			return -ENOMEM;
		tr->kbuf = b;
		tr->kcap = cap;
	}
	memcpy(tr->kbuf + tr->klen, p, len);
	tr->klen += len;
	return 0;
}

/* The nodes of the subtree a track draws: not the interrupts inside, on tracks of their own */
static int keep_enter(void *c, const struct kfit_cnode *n)
{
	struct kfit_export_trace *tr = c;
	struct knode k = { .n = *n, .level = tr->level };

	if (n != tr->ktop && n->kind == KFIT_CN_IRQ)
		return 0;
	k.n.parent = k.n.child = k.n.last = k.n.next = NULL;
	k.n.name = NULL;
	k.namelen = n->name ? strlen(n->name) + 1 : 0;
	if (kbuf_put(tr, &k, sizeof(k)) || kbuf_put(tr, n->name, k.namelen))
		return -ENOMEM;
	tr->level++;
	tr->knodes++;
	return 1;
}

static void keep_leave(void *c, const struct kfit_cnode *n)
{
	struct kfit_export_trace *tr = c;

	(void)n;
	tr->level--;
}

/* The thread's run of a track and class that takes a subtree starting at start */
static struct irun *run_of(struct kfit_export_trace *tr, __u16 cpu, __u8 ctx, __u8 cls,
			   __u64 start)
{
	struct tthread *tt = tr->cur;
	struct irun *r, **slot = NULL;
	void *p;
	size_t i;

	for (i = 0; i < tt->nruns && !slot; i++)
		if (tt->runs[i]->cpu == cpu && tt->runs[i]->ctx == ctx && tt->runs[i]->cls == cls)
			slot = &tt->runs[i];
	if (slot && start >= (*slot)->last) {
		(*slot)->last = start;
		return *slot;
	}
	/* a run ended (rare: a thread's interrupts out of time order): to the file */
	if (slot && kfit_spool_close(tr->sp, *slot))
		return NULL;
	p = room(tr->runs, tr->nruns, &tr->runcap);
	if (!p)
		return NULL;
	tr->runs = p;
	if (!slot) {
		p = room(tt->runs, tt->nruns, &tt->runcap);
		if (!p)
			return NULL;
		tt->runs = p;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	*r = (struct irun){ .th = tr->th, .tt = tt, .cpu = cpu, .ctx = ctx, .cls = cls,
			    .no = slot ? (*slot)->no + 1 : 0, .last = start };
	tr->runs[tr->nruns++] = r;
	if (!slot)
		slot = &tt->runs[tt->nruns++];
	*slot = r;
	return r;
}

/* n's subtree kept for the track of cpu and ctx */
static int keep(struct kfit_export_trace *tr, const struct kfit_cnode *n, __u16 cpu,
		__u8 ctx, __u8 cls)
{
	struct khead h = { .start = n->start };
	struct irun *r;
	int err;

	tr->klen = 0;
	tr->ktop = n;
	tr->level = 0;
	tr->knodes = 0;
	err = kbuf_put(tr, &h, sizeof(h)) ?: export_walk(&tr->keep, n, false);
	if (err)
		return err;
	h.nnodes = tr->knodes;
	h.bytes = tr->klen - sizeof(h);
	memcpy(tr->kbuf, &h, sizeof(h));
	r = run_of(tr, cpu, ctx, cls, n->start);
	return r ? kfit_spool_add(tr->sp, r, tr->kbuf, tr->klen) : -ENOMEM;
}

/* Every interrupt, at any depth, kept for its CPU and context's track */
static int find_enter(void *c, const struct kfit_cnode *n)
{
	struct kfit_export_trace *tr = c;

	if (n->kind == KFIT_CN_IRQ) {
		int err = keep(tr, n, n->cpu, n->ctx, 1);

		if (err)
			return err;
	}
	return 1;
}

static void find_leave(void *c, const struct kfit_cnode *n)
{
	(void)c;
	(void)n;
}

static struct tthread *tthread_of(struct kfit_export_trace *tr, const struct kfit_cthread *th,
				  __u64 t0)
{
	void **d = kfit_spool_data(tr->sp, th);
	struct tthread *tt;
	void *p;

	if (!d)
		return NULL;
	if (*d)
		return *d;
	p = room(tr->tt, tr->ntt, &tr->ttcap);
	if (!p)
		return NULL;
	tr->tt = p;
	tt = calloc(1, sizeof(*tt));
	if (!tt)
		return NULL;
	tt->prev = t0;		/* nothing before t0 */
	tt->index = -1;
	tr->tt[tr->ntt++] = tt;
	*d = tt;
	return tt;
}

/* A task's top-level node drawn on its track, after its others */
static int draw_task(struct kfit_export_trace *tr, const struct kfit_cthread *th,
		     const struct kfit_cnode *n)
{
	FILE *f = kfit_spool_begin(tr->sp);
	struct trace *x = &tr->x;
	int err;

	if (!f)
		return -ENOMEM;
	kfit_json_init(&x->j, f, false);
	/* the names come first: every event follows an item */
	x->j.depth = EVENTS_DEPTH;
	x->j.has_item[EVENTS_DEPTH] = true;
	x->pid = th->pid;
	x->tid = th->tid;
	x->top = NULL;
	if (span_track(x))
		return -ENOMEM;
	x->sp[0].prev = tr->cur->prev;
	err = export_walk(&tr->draw, n, false);
	tr->cur->prev = x->sp[0].prev;
	return err ? err : kfit_spool_end(tr->sp, th);
}

int kfit_export_trace_add(struct kfit_export_trace *tr, const struct kfit_export_src *s,
			  const struct kfit_cthread *th, const struct kfit_cnode *n)
{
	int err = 0;

	tr->cur = tthread_of(tr, th, s->t0);
	if (!tr->cur)
		return -ENOMEM;
	tr->th = th;
	tr->x.s = s;
	if (th->ctx == KFIT_CTX_TASK)
		err = draw_task(tr, th, n);
	else if (n->kind != KFIT_CN_IRQ)
		err = keep(tr, n, th->cpu, th->ctx, 0);
	return err ? err : export_walk(&tr->find, n, false);
}

struct kfit_export_trace *kfit_export_trace_new(void)
{
	struct kfit_export_trace *tr = calloc(1, sizeof(*tr));

	if (!tr)
		return NULL;
	tr->sp = kfit_spool_new(0);
	if (!tr->sp) {
		free(tr);
		return NULL;
	}
	tr->draw = (struct export_walker){ .enter = trace_enter, .leave = trace_leave,
					   .c = &tr->x };
	tr->find = (struct export_walker){ .enter = find_enter, .leave = find_leave, .c = tr };
	tr->keep = (struct export_walker){ .enter = keep_enter, .leave = keep_leave, .c = tr };
	return tr;
}

void kfit_export_trace_free(struct kfit_export_trace *tr)
{
	size_t i;

	if (!tr)
		return;
	for (i = 0; i < tr->ntt; i++) {
		free(tr->tt[i]->runs);
		free(tr->tt[i]);
	}
	for (i = 0; i < tr->nruns; i++)
		free(tr->runs[i]);
	free(tr->tt);
	free(tr->runs);
	kfit_spool_free(tr->sp);
	free(tr->kbuf);
	free(tr->nodes);
	free(tr->up);
	free(tr->x.sp);
	free(tr->draw.stk);
	free(tr->find.stk);
	free(tr->keep.stk);
	free(tr);
}

/* ---- the end: names, the tasks' tracks, the interrupts' merged ---- */

/* Exactly len bytes of r's from where it is: 1, 0 at its end, or -errno */
static int run_take(struct kfit_export_trace *tr, struct irun *r, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = kfit_spool_read(tr->sp, r, &r->pos, (char *)buf + got, len - got);
		if (n < 0)
			return n;
		if (!n)
			return got ? -EIO : 0;
		got += n;
	}
	return 1;
}

/* r's next subtree read back into tr->nodes: its top */
static int run_subtree(struct kfit_export_trace *tr, struct irun *r, struct kfit_cnode **top)
{
	size_t i, off = 0, n = r->head.nnodes;
	struct kfit_cnode *v;
	__u32 level = 0;
	struct knode k;
	void *p;
	int err;

	if (!n)
		return -EIO;
	if (tr->kcap < r->head.bytes) {
		p = realloc(tr->kbuf, r->head.bytes);
		if (!p)
			return -ENOMEM;
		tr->kbuf = p;
		tr->kcap = r->head.bytes;
	}
	if (n > tr->nodecap) {
		p = realloc(tr->nodes, n * sizeof(*tr->nodes));
		if (!p)
			return -ENOMEM;
		tr->nodes = p;
		p = realloc(tr->up, n * sizeof(*tr->up));
		if (!p)
			return -ENOMEM;
		tr->up = p;
		tr->nodecap = n;
	}
	err = run_take(tr, r, tr->kbuf, r->head.bytes);
	if (err <= 0)
		return err ? err : -EIO;
	for (i = 0; i < n; i++) {
		if (off + sizeof(k) > r->head.bytes)
			return -EIO;
		memcpy(&k, tr->kbuf + off, sizeof(k));
		off += sizeof(k);
		/* one top, each node under one before it, names ended */
		if (k.level > (i ? level + 1 : 0) || (i && !k.level) ||
		    k.namelen > r->head.bytes - off ||
		    (k.namelen && tr->kbuf[off + k.namelen - 1]))
			return -EIO;
		level = k.level;
		v = &tr->nodes[i];
		*v = k.n;
		v->name = k.namelen ? tr->kbuf + off : NULL;
		off += k.namelen;
		tr->up[level] = v;
		if (!level)
			continue;
		v->parent = tr->up[level - 1];
		if (v->parent->last)
			v->parent->last->next = v;
		else
			v->parent->child = v;
		v->parent->last = v;
	}
	*top = tr->nodes;
	return 0;
}

/* r's next subtree's head: 1, 0 at its end, or -errno */
static int run_next(struct kfit_export_trace *tr, struct irun *r)
{
	return run_take(tr, r, &r->head, sizeof(r->head));
}

/* Runs by track, then in the whole walk's order: thread, class, run */
static int run_cmp(const void *a, const void *b)
{
	const struct irun *x = *(struct irun *const *)a, *y = *(struct irun *const *)b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	if (x->tt->index != y->tt->index)
		return x->tt->index < y->tt->index ? -1 : 1;
	if (x->cls != y->cls)
		return x->cls < y->cls ? -1 : 1;
	return x->no < y->no ? -1 : x->no > y->no;
}

/* The merge's heap of runs: the earliest next subtree first, ties in run order */
static bool heap_less(struct irun *const *v, size_t a, size_t b)
{
	if (v[a]->head.start != v[b]->head.start)
		return v[a]->head.start < v[b]->head.start;
	return a < b;
}

static void heap_down(struct irun *const *v, size_t *h, size_t n, size_t i)
{
	size_t c, t;

	for (c = 2 * i + 1; c < n; i = c, c = 2 * i + 1) {
		if (c + 1 < n && heap_less(v, h[c + 1], h[c]))
			c++;
		if (!heap_less(v, h[c], h[i]))
			return;
		t = h[i];
		h[i] = h[c];
		h[c] = t;
	}
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

/* One track: the runs v[0..n) of its CPU and context, merged by time */
static int draw_track(struct kfit_export_trace *tr, struct irun *const *v, size_t n)
{
	struct trace *x = &tr->x;
	struct kfit_cnode *top;
	size_t *h, nh = 0, i;
	struct irun *r;
	char name[40];
	int err = 0, more;

	h = malloc(n * sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		more = run_next(tr, v[i]);
		if (more < 0)
			err = more;
		else if (more)
			h[nh++] = i;
	}
	for (i = nh / 2; i-- > 0;)
		heap_down(v, h, nh, i);
	x->tid = KFIT_EXPORT_IRQ_PID + 1 + v[0]->cpu * KFIT_NCTX + v[0]->ctx;
	snprintf(name, sizeof(name), "%s cpu %u", kfit_ctree_ctx_name(v[0]->ctx), v[0]->cpu);
	ev_meta(x, "thread_name", x->pid, x->tid, name);
	if (!err)
		err = span_track(x);
	while (!err && nh) {
		r = v[h[0]];
		err = run_subtree(tr, r, &top);
		if (err)
			break;
		x->top = top;
		x->cur = r->th;
		err = export_walk(&tr->draw, top, false);
		more = err ? 0 : run_next(tr, r);
		if (more < 0)
			err = more;
		else if (!more)
			h[0] = h[--nh];
		heap_down(v, h, nh, 0);
	}
	free(h);
	return err;
}

/* One track per CPU and context, its interrupts in time order */
static int trace_irqs(struct kfit_export_trace *tr)
{
	struct irun **v = tr->runs;
	size_t i, k;
	int err = 0;

	if (!tr->nruns)
		return 0;
	qsort(v, tr->nruns, sizeof(*v), run_cmp);
	ev_meta(&tr->x, "process_name", KFIT_EXPORT_IRQ_PID, KFIT_EXPORT_IRQ_PID, "interrupts");
	tr->x.pid = KFIT_EXPORT_IRQ_PID;
	for (i = 0; i < tr->nruns && !err; i = k) {
		for (k = i + 1; k < tr->nruns && v[k]->cpu == v[i]->cpu && v[k]->ctx == v[i]->ctx;
		     k++)
			;
		err = draw_track(tr, v + i, k - i);
	}
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

/* th's place in the threads written: the order of its runs */
static int index_thread(struct kfit_export_trace *tr, const struct kfit_cthread *th, int i)
{
	void **d = kfit_spool_data(tr->sp, th);

	if (!d)
		return -ENOMEM;
	if (*d)
		((struct tthread *)*d)->index = i;
	return 0;
}

int kfit_export_trace_write(struct kfit_export_trace *tr, const struct kfit_export_src *s,
			    FILE *f)
{
	const struct kfit_cthread **th;
	struct trace *x = &tr->x;
	int i, n = 0, err = 0;

	th = malloc((s->nthreads + 1) * sizeof(*th));
	if (!th)
		return -ENOMEM;
	for (i = 0; i < s->nthreads && !err; i++) {
		if (s->threads[i]->ctx == KFIT_CTX_TASK)
			th[n++] = s->threads[i];
		err = index_thread(tr, s->threads[i], i);
	}
	qsort(th, n, sizeof(*th), thread_cmp);
	x->s = s;
	kfit_json_init(&x->j, f, false);
	kfit_json_begin_object(&x->j, NULL);
	kfit_json_begin_array(&x->j, "traceEvents");
	if (!err)
		trace_names(x, th, n);
	/* each task's track as it was drawn */
	for (i = 0; i < n && !err; i++)
		err = kfit_spool_write(tr->sp, th[i], f);
	if (!err)
		err = trace_irqs(tr);
	kfit_json_end_array(&x->j);
	kfit_json_str(&x->j, "displayTimeUnit", "ns");
	trace_stats(x);
	kfit_json_end_object(&x->j);
	kfit_json_finish(&x->j);
	free(th);
	return err ? err : export_finish_file(f);
}

/* A finished tree: its threads' top-level nodes as a stream gives them */
int kfit_export_perfetto(const struct kfit_export_src *s, FILE *f)
{
	struct kfit_export_trace *tr;
	const struct kfit_cnode *n;
	int i, err = 0;

	if (s->sampled)
		return -EOPNOTSUPP;
	if (!s->name)
		return -EINVAL;
	tr = kfit_export_trace_new();
	if (!tr)
		return -ENOMEM;
	for (i = 0; i < s->nthreads && !err; i++)
		for (n = s->threads[i]->root.child; n && !err; n = n->next)
			err = kfit_export_trace_add(tr, s, s->threads[i], n);
	if (!err)
		err = kfit_export_trace_write(tr, s, f);
	kfit_export_trace_free(tr);
	return err;
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
