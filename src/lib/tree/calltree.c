// SPDX-License-Identifier: GPL-2.0
/*
 * The decoder of callgraph's record stream into trees (calltree.h).
 *
 * Each stack (a task, or an interrupt context on a CPU) keeps a vector of
 * pending nodes: calls decoded but not yet adopted. A call record at
 * depth d takes from the end of it the nodes deeper than d that lie in
 * its interval: those at d + 1 are its children, runs of deeper ones lost
 * their caller's record and go under a KFIT_RF_LOST stand-in. Each node
 * enters and leaves the vector once, so decoding is linear.
 *
 * Interrupts, context switches, events and task records are placed at
 * finish: per destination thread they are sorted by time and woven into
 * its tree in one walk (a cursor that only moves forward), so placing
 * them is O(n log n) too, whatever their number.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kfit/ret.h"
#include "calltree.h"
#include "retval.h"
#include "frames.h"
#include "strset.h"
#include "ustop.h"

/* A node with the task its stack belongs to (interrupts: the one struck) */
struct pend {
	struct kfit_cnode *n;
	__u32 pid, tid;
	__u64 seq;		/* arrival order, for stable sorts */
};

struct pvec {
	struct pend *v;
	size_t n, cap;
};

enum tclass { TC_TASK, TC_IRQ, TC_PROC };

struct thr {
	struct kfit_cthread t;	/* first: kfit_cthread pointers convert back */
	enum tclass cls;
	struct pvec pending;	/* calls not adopted yet */
	struct pvec roots;	/* calls no record can adopt any more */
	struct pvec marks;	/* IRQ nodes go to roots; the rest here */
	struct pvec weave;	/* finish: what is placed into the tree by time */
	struct pvec held;	/* streaming, woven: interrupts struck it before its first call */
	bool emitted;		/* streaming, woven: a node of it went to on_root */
	__u64 exec_ts;		/* its last exec decoded, 0: none */
};

#define CHUNK_NODES 4096
#define COLLAPSE_NODES 65536	/* streaming: collapse past this many nodes */
#define HELD_MAX 4096		/* streaming, woven: interrupts held for a task */

struct chunk {
	struct chunk *next;
	size_t used;
	struct kfit_cnode n[CHUNK_NODES];
};

struct slot {
	__u64 key;
	struct thr *t;
};

/* Sampled mode: the child of parent named name (interned: pointers compare) */
struct fslot {
	const struct kfit_cnode *parent;
	const char *name;
	struct kfit_cnode *n;
};

struct kfit_ctree {
	struct kfit_ctree_opts o;
	struct kfit_ctree_stats st;
	struct thr **th;
	int nth, thcap;
	struct slot *map;	/* thread key -> thread, open addressing */
	size_t mapcap;
	struct thr **list;	/* after finish: the threads shown, in order */
	int nlist;
	struct chunk *chunks;
	struct kfit_strset names;	/* interned strings -> index in str */
	char **str;
	size_t strcap, nstr;
	struct fslot *fmap;
	size_t fmapcap, nfmap;
	__u64 seq;
	bool finished;
	__u64 last_key;			/* the stack of the last record: a run of */
	struct thr *last;		/* records is mostly one stack's */
	struct kfit_cnode *spare;	/* streaming: nodes freed, for reuse */
	__u64 live;			/* nodes in use */
	__u64 collapse_at;		/* streaming: collapse past this many */
	struct kfit_cnode scratch;	/* streaming: the marker not kept */
	int stream_err;			/* on_root's first error */
	struct thr *emitting;		/* streaming: the thread of the node given */
	struct thr **irq;		/* the interrupt stacks among th */
	int nirq, irqcap;
	/*
	 * No interrupt stack holds a pending node: promote_struck has none
	 * to look at (it found none since the last one came), where reading
	 * every interrupt stack at each top-level call was a tenth of --folded
	 */
	bool irq_idle;
};

static int woven_root(struct kfit_ctree *t, struct thr *h, const struct pend *e);
static int woven_item(struct kfit_ctree *t, struct thr *h, const struct pend *e);
static bool woven_quiet(const struct kfit_ctree *t, const struct thr *h);
static int woven_top(struct kfit_ctree *t, struct thr *h, const struct kfit_rec_call *r);

/* ---- small containers ------------------------------------------------ */

static int pvec_push(struct pvec *p, struct kfit_cnode *n, __u32 pid, __u32 tid,
		     __u64 seq)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		struct pend *v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = (struct pend){ .n = n, .pid = pid, .tid = tid, .seq = seq };
	return 0;
}

static void pvec_free(struct pvec *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}

/*
 * A node with every field 0 but its kind, set one by one: a memset of it
 * (rep stos) was a tenth of kd's time
 */
static void node_init(struct kfit_cnode *n, __u8 kind)
{
	n->parent = n->child = n->last = n->next = NULL;
	n->kind = kind;
	n->ctx = n->flags = n->cflags = n->ret_kind = 0;
	n->cpu = 0;
	n->ret = 0;
	n->args = NULL;
	n->id = n->depth = n->dropped = n->ncalls = n->child_tid = 0;
	n->start = n->dur = n->local = n->off_blocked = n->off_preempt = 0;
	n->samples = n->self = 0;
	n->name = NULL;
}

/* A node, its fields the caller's to set */
static struct kfit_cnode *node_alloc(struct kfit_ctree *t)
{
	struct chunk *c = t->chunks;
	struct kfit_cnode *n = t->spare;

	t->live++;
	if (n) {
		t->spare = n->next;
		return n;
	}
	if (!c || c->used == CHUNK_NODES) {
		c = malloc(sizeof(*c));
		if (!c)
			return NULL;
		c->next = t->chunks;
		c->used = 0;
		t->chunks = c;
	}
	return &c->n[c->used++];
}

static struct kfit_cnode *node_new(struct kfit_ctree *t, __u8 kind)
{
	struct kfit_cnode *n = node_alloc(t);

	if (n)
		node_init(n, kind);
	return n;
}

static __u64 hash64(__u64 x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static const char *intern_key(struct kfit_ctree *t, const char *key)
{
	char *copy, **v;
	int i = kfit_strset_get(&t->names, key);

	if (i >= 0)
		return t->str[i];
	if (t->nstr == t->strcap) {
		size_t cap = t->strcap ? 2 * t->strcap : 64;

		v = realloc(t->str, cap * sizeof(*v));
		if (!v)
			return NULL;
		t->str = v;
		t->strcap = cap;
	}
	copy = strdup(key);
	if (!copy || kfit_strset_add(&t->names, copy, t->nstr) < 0) {
		free(copy);
		return NULL;
	}
	t->str[t->nstr++] = copy;
	return copy;
}

/* The tree's copy of s (max bytes at most), shared by equal strings */
static const char *intern(struct kfit_ctree *t, const char *s, size_t max)
{
	size_t len = strnlen(s, max);
	const char *r;
	char buf[256], *tmp;

	if (len < sizeof(buf)) {
		memcpy(buf, s, len);
		buf[len] = '\0';
		return intern_key(t, buf);
	}
	/* long names (C++ symbols) are rare */
	tmp = strndup(s, len);
	r = tmp ? intern_key(t, tmp) : NULL;
	free(tmp);
	return r;
}

/* ---- threads ---------------------------------------------------------- */

static __u64 thr_key(enum tclass cls, __u8 ctx, __u16 cpu, __u32 id)
{
	return (__u64)cls << 56 | (__u64)ctx << 48 | (__u64)cpu << 32 | id;
}

static int map_grow(struct kfit_ctree *t)
{
	size_t cap = t->mapcap ? 2 * t->mapcap : 64, i, j;
	struct slot *m = calloc(cap, sizeof(*m));

	if (!m)
		return -ENOMEM;
	for (i = 0; i < t->mapcap; i++) {
		if (!t->map[i].t)
			continue;
		for (j = hash64(t->map[i].key) & (cap - 1); m[j].t; j = (j + 1) & (cap - 1))
			;
		m[j] = t->map[i];
	}
	free(t->map);
	t->map = m;
	t->mapcap = cap;
	return 0;
}

static struct thr *thr_find(const struct kfit_ctree *t, __u64 key)
{
	size_t i;

	if (!t->mapcap)
		return NULL;
	for (i = hash64(key) & (t->mapcap - 1); t->map[i].t; i = (i + 1) & (t->mapcap - 1))
		if (t->map[i].key == key)
			return t->map[i].t;
	return NULL;
}

/* The interrupt stacks, apart: few, and looked at for each call that ends */
static int irq_list_add(struct kfit_ctree *t, struct thr *h)
{
	struct thr **v;

	if (t->nirq == t->irqcap) {
		v = realloc(t->irq, (t->irqcap ? 2 * t->irqcap : 8) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->irq = v;
		t->irqcap = t->irqcap ? 2 * t->irqcap : 8;
	}
	t->irq[t->nirq++] = h;
	return 0;
}

static struct thr *thr_get(struct kfit_ctree *t, __u64 key)
{
	struct thr *h;
	size_t i;

	if (t->last && t->last_key == key)
		return t->last;
	h = thr_find(t, key);
	if (h) {
		t->last = h;
		t->last_key = key;
		return h;
	}
	if (2 * (size_t)(t->nth + 1) > t->mapcap && map_grow(t))
		return NULL;
	if (t->nth == t->thcap) {
		int cap = t->thcap ? 2 * t->thcap : 16;
		struct thr **v = realloc(t->th, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->th = v;
		t->thcap = cap;
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->cls = key >> 56;
	h->t.ctx = key >> 48 & 0xff;
	h->t.cpu = key >> 32 & 0xffff;
	h->t.root.kind = KFIT_CN_ROOT;
	h->t.root.ctx = h->t.ctx;
	h->t.root.cpu = h->t.cpu;
	h->t.priv = h;
	for (i = hash64(key) & (t->mapcap - 1); t->map[i].t; i = (i + 1) & (t->mapcap - 1))
		;
	t->map[i] = (struct slot){ .key = key, .t = h };
	t->th[t->nth++] = h;
	if (h->cls == TC_IRQ && irq_list_add(t, h)) {
		t->nth--;
		t->map[i].t = NULL;
		free(h);
		return NULL;
	}
	return h;
}

static struct thr *task_get(struct kfit_ctree *t, __u32 pid, __u32 tid)
{
	struct thr *h = thr_get(t, thr_key(TC_TASK, KFIT_CTX_TASK, 0, tid));

	if (h) {
		h->t.pid = pid;
		h->t.tid = tid;
	}
	return h;
}

static void set_comm(struct kfit_cthread *th, const char *comm)
{
	size_t n = strnlen(comm, sizeof(th->comm) - 1);

	memcpy(th->comm, comm, n);
	th->comm[n] = '\0';
}

/* The stack a record of this header belongs to */
static inline struct thr *stack_of(struct kfit_ctree *t, const struct kfit_rec *h)
{
	if (h->ctx == KFIT_CTX_TASK)
		return task_get(t, h->pid, h->tid);
	return thr_get(t, thr_key(TC_IRQ, h->ctx, h->cpu, 0));
}

/* ---- public: creation ------------------------------------------------- */

struct kfit_ctree *kfit_ctree_new(const struct kfit_ctree_opts *o)
{
	struct kfit_ctree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (o)
		t->o = *o;
	t->collapse_at = t->o.collapse_nodes ? t->o.collapse_nodes : COLLAPSE_NODES;
	t->irq_idle = true;
	if (!t->o.funcs)
		t->o.nfuncs = 0;
	if (!t->o.events)
		t->o.nevents = 0;
	return t;
}

__u64 kfit_ctree_nodes(const struct kfit_ctree *t)
{
	return t->live;
}

const struct kfit_cthread *kfit_ctree_emitting(const struct kfit_ctree *t)
{
	return t->emitting ? &t->emitting->t : NULL;
}

int kfit_ctree_task(struct kfit_ctree *t, __u32 pid, __u32 tid, const char *comm)
{
	struct thr *h = task_get(t, pid, tid);

	if (!h)
		return -ENOMEM;
	set_comm(&h->t, comm ? comm : "");
	return 0;
}

/* ---- exact mode: calls ------------------------------------------------ */

static __u64 node_end(const struct kfit_cnode *n)
{
	return n->start + n->dur;
}

static bool inside(const struct kfit_cnode *in, const struct kfit_cnode *out)
{
	return in->start >= out->start && node_end(in) <= node_end(out);
}

/* The time a node takes from its caller's local time: a SUMS node's calls' */
static __u64 busy(const struct kfit_cnode *n)
{
	return n->kind == KFIT_CN_SUMS ? n->local : n->dur;
}

static void link_child(struct kfit_cnode *parent, struct kfit_cnode *n)
{
	n->parent = parent;
	n->next = NULL;
	if (parent->last)
		parent->last->next = n;
	else
		parent->child = n;
	parent->last = n;
}

/* A stand-in for the lost caller(s) of v[0..cnt) (depth d), under parent */
static int adopt_lost(struct kfit_ctree *t, struct kfit_cnode *parent, __u32 d,
		      const struct pend *v, size_t cnt)
{
	struct kfit_cnode *lost = node_new(t, KFIT_CN_CALL);
	__u64 end = 0, inner = 0;
	size_t i;

	if (!lost)
		return -ENOMEM;
	lost->flags = KFIT_RF_LOST;
	lost->ctx = v[0].n->ctx;
	lost->cpu = v[0].n->cpu;
	lost->depth = d;
	lost->start = v[0].n->start;
	for (i = 0; i < cnt; i++) {
		if (node_end(v[i].n) > end)
			end = node_end(v[i].n);
		inner += busy(v[i].n);
		link_child(lost, v[i].n);
	}
	lost->dur = end > lost->start ? end - lost->start : 0;
	lost->local = lost->dur > inner ? lost->dur - inner : 0;
	t->st.orphans += cnt;
	link_child(parent, lost);
	return 0;
}

/*
 * p->v[lo..p->n) lie inside parent (record depth d, -1 for an interrupt)
 * and are deeper: those at d + 1 are children, runs of deeper ones lost
 * theirs. (Indexes, not p->v + lo: p->v is NULL while nothing is pending.)
 */
static int adopt_run(struct kfit_ctree *t, struct kfit_cnode *parent, long d,
		     const struct pvec *p, size_t lo)
{
	const struct pend *v = p->v;
	size_t i = lo, j, cnt = p->n;
	__u64 inner = 0;

	while (i < cnt) {
		if (v[i].n->depth == d + 1) {
			inner += busy(v[i].n);
			link_child(parent, v[i++].n);
			continue;
		}
		for (j = i; j < cnt && v[j].n->depth != d + 1; j++)
			;
		if (adopt_lost(t, parent, d + 1, v + i, j - i))
			return -ENOMEM;
		inner += parent->last->dur;
		i = j;
	}
	parent->local = parent->dur > inner ? parent->dur - inner : 0;
	return 0;
}

/* Inline: most calls adopt nothing, their local time all of their time */
static inline int adopt(struct kfit_ctree *t, struct kfit_cnode *parent, long d,
			const struct pvec *p, size_t lo)
{
	if (lo < p->n)
		return adopt_run(t, parent, d, p, lo);
	parent->local = parent->dur;
	return 0;
}

/* Pending nodes of h that n adopts: from the end, deeper and inside */
static inline size_t adoptable(const struct thr *h, const struct kfit_cnode *n, long d)
{
	size_t lo = h->pending.n;

	while (lo > 0) {
		const struct kfit_cnode *p = h->pending.v[lo - 1].n;

		if ((long)p->depth <= d || !inside(p, n))
			break;
		lo--;
	}
	return lo;
}

/* Streaming: n's subtree to the spare nodes */
static void put_tree(struct kfit_ctree *t, struct kfit_cnode *n)
{
	struct kfit_cnode *c, *next;

	for (c = n->child; c; c = next) {
		next = c->next;
		put_tree(t, c);
	}
	free((void *)n->args);	/* a held node's own copy */
	n->args = NULL;
	n->next = t->spare;
	t->spare = n;
	t->live--;
}

/* Streaming: a subtree done, to on_root, then freed */
static int emit(struct kfit_ctree *t, struct kfit_cnode *n)
{
	int err = t->o.on_root(t->o.root_ctx, t, n);

	put_tree(t, n);
	if (err && !t->stream_err)
		t->stream_err = err;
	return err;
}

/* pending[0..lo) can never be adopted: they are roots (a call of some depth: an orphan) */
static int to_roots(struct kfit_ctree *t, struct thr *h, size_t lo)
{
	struct kfit_cnode *n;
	size_t i;

	if (!lo)
		return 0;
	for (i = 0; i < lo; i++) {
		n = h->pending.v[i].n;
		if (n->kind == KFIT_CN_CALL && n->depth)
			t->st.orphans++;
		if (n->kind == KFIT_CN_SUMS && n->depth)
			t->st.orphans += n->ncalls;
		if (t->o.on_root && t->o.woven) {
			if (woven_root(t, h, &h->pending.v[i]))
				return t->stream_err ?: -ENOMEM;
			continue;
		}
		if (t->o.on_root) {
			if (emit(t, n))
				return t->stream_err;
			continue;
		}
		if (pvec_push(&h->roots, n, h->pending.v[i].pid, h->pending.v[i].tid,
			      h->pending.v[i].seq))
			return -ENOMEM;
	}
	memmove(h->pending.v, h->pending.v + lo, (h->pending.n - lo) * sizeof(struct pend));
	h->pending.n -= lo;
	return 0;
}

/* ---- streaming: collapse --------------------------------------------- */

/* n's callees, each with its subtree, to on_root and freed: n keeps its figures */
static int give_callees(struct kfit_ctree *t, struct kfit_cnode *n)
{
	struct kfit_cnode *c, *next;
	int err;

	for (c = n->child; c; c = next) {
		next = c->next;
		c->next = NULL;
		n->child = next;
		err = emit(t, c);
		if (err)
			return err;
	}
	n->last = NULL;
	return 0;
}

/* s's part for function id: found or added */
static struct kfit_cnode *sums_part(struct kfit_ctree *t, struct kfit_cnode *s, __u32 id)
{
	struct kfit_cnode *p;

	for (p = s->child; p; p = p->next)
		if (p->id == id)
			return p;
	p = node_new(t, KFIT_CN_SUMPART);
	if (!p)
		return NULL;
	p->id = id;
	p->ctx = s->ctx;
	p->cpu = s->cpu;
	p->depth = s->depth;
	link_child(s, p);
	return p;
}

/* Call n, callees given already, summed into s: n goes to on_root and is freed */
static int sums_add(struct kfit_ctree *t, struct kfit_cnode *s, struct kfit_cnode *n)
{
	struct kfit_cnode *p = sums_part(t, s, n->id);
	__u64 end = node_end(n) > node_end(s) ? node_end(n) : node_end(s);

	if (!p)
		return -ENOMEM;
	p->ncalls++;
	p->dur += n->dur;
	s->ncalls++;
	s->local += n->dur;
	if (n->start < s->start)
		s->start = n->start;
	s->dur = end - s->start;
	return emit(t, n);
}

/* A SUMS node for the run that begins with call n */
static struct kfit_cnode *sums_new(struct kfit_ctree *t, const struct kfit_cnode *n)
{
	struct kfit_cnode *s = node_new(t, KFIT_CN_SUMS);

	if (!s)
		return NULL;
	s->ctx = n->ctx;
	s->cpu = n->cpu;
	s->depth = n->depth;
	s->start = n->start;
	return s;
}

/* A call that a SUMS node may hold: counted, its callees given already */
static bool summable(const struct kfit_cnode *n)
{
	return kfit_cnode_counted(n) && !n->child;
}

/*
 * h's pending subtrees: their callees to on_root; then each run of
 * summable calls at one depth (siblings: their caller is the call open
 * above them) into one SUMS node
 */
static int collapse_stack(struct kfit_ctree *t, struct thr *h)
{
	struct pend *v = h->pending.v;
	size_t i, k = 0;
	int err;

	for (i = 0; i < h->pending.n; i++) {
		struct kfit_cnode *n = v[i].n, *prev = k ? v[k - 1].n : NULL;

		if (n->kind == KFIT_CN_CALL && n->child && (err = give_callees(t, n)))
			return err;
		if (prev && summable(n) && prev->depth == n->depth &&
		    (prev->kind == KFIT_CN_SUMS || summable(prev))) {
			if (prev->kind != KFIT_CN_SUMS) {
				struct kfit_cnode *s = sums_new(t, prev);

				if (!s || sums_add(t, s, prev))
					return t->stream_err ?: -ENOMEM;
				v[k - 1].n = s;
			}
			if (sums_add(t, v[k - 1].n, n))
				return t->stream_err ?: -ENOMEM;
			continue;
		}
		v[k++] = v[i];
	}
	h->pending.n = k;
	return 0;
}

/* Too many nodes held: every stack collapsed; the next time at twice what is left */
static int collapse(struct kfit_ctree *t)
{
	int i, err;

	for (i = 0; i < t->nth; i++) {
		err = collapse_stack(t, t->th[i]);
		if (err)
			return err;
	}
	t->collapse_at = 2 * t->live;
	if (t->collapse_at < (t->o.collapse_nodes ? t->o.collapse_nodes : COLLAPSE_NODES))
		t->collapse_at = t->o.collapse_nodes ? t->o.collapse_nodes : COLLAPSE_NODES;
	t->irq_idle = true;
	return 0;
}

/* A call's node, from its record; its return value read as its function's kind says */
static inline void call_node(const struct kfit_ctree *t, struct kfit_cnode *n,
			     const struct kfit_rec_call *r)
{
	__u64 reg;

	node_init(n, KFIT_CN_CALL);
	if (kfit_rec_call_ret(r, &reg)) {
		n->cflags = KFIT_CF_RET;
		n->ret_kind = t->o.ret_kinds ? t->o.ret_kinds[r->id] : 0;
		n->ret = kfit_ret_value(reg, n->ret_kind);
	}
	/* the record's own: a node that is held copies them (keep_args) */
	n->args = kfit_rec_call_args(r);
	if (n->args)
		n->cflags |= KFIT_CF_ARGS;
	n->ctx = r->h.ctx;
	n->flags = r->h.flags & ~(KFIT_RF_LOST | KFIT_CN_WOVEN);
	n->cpu = r->h.cpu;
	n->id = r->id;
	n->depth = r->depth;
	n->dropped = r->dropped;
	n->start = r->h.ts;
	n->dur = r->dur;
	n->off_blocked = r->off_blocked;
	n->off_preempt = r->off_preempt;
}

/* A held node's arguments: a copy of its own (records do not outlive the call) */
static int keep_args(struct kfit_cnode *n)
{
	size_t len = KFIT_REC_ARGS_SIZE(n->args->nstr);
	void *a = malloc(len);

	if (!a) {
		n->args = NULL;
		return -ENOMEM;
	}
	memcpy(a, n->args, len);
	n->args = a;
	return 0;
}

/* A call placed on its stack h, counted */
static void count_call(struct kfit_ctree *t, struct thr *h, const struct kfit_rec_call *r)
{
	h->t.ncalls++;
	if (r->h.ctx == KFIT_CTX_TASK)
		h->t.pid = r->h.pid;
	t->st.calls++;
	t->st.dropped += r->dropped;
	if (r->h.flags & KFIT_RF_INCOMPLETE)
		t->st.incomplete++;
}

/* A call whose tree is itself, to on_leaf */
static inline int leaf(struct kfit_ctree *t, struct thr *h, const struct kfit_rec_call *r)
{
	int err = t->o.on_leaf(t->o.leaf_ctx, t, &h->t, r);

	if (err && !t->stream_err)
		t->stream_err = err;
	return err;
}

/*
 * Streaming, not woven: a task's depth-0 call can be adopted by nothing,
 * so it goes to on_root at once, after the pending nodes before it that
 * it does not adopt (as to_roots gives them): its node lives on the stack
 * and is never held, most records of a long recording being such calls
 */
static int add_top(struct kfit_ctree *t, struct thr *h, const struct kfit_rec_call *r)
{
	struct kfit_cnode n, *c, *next;
	size_t lo;
	int err;

	/* nothing to adopt: no node needed */
	if (!h->pending.n && t->o.on_leaf) {
		count_call(t, h, r);
		t->seq++;
		return leaf(t, h, r);
	}
	call_node(t, &n, r);
	lo = adoptable(h, &n, 0);
	if (lo == h->pending.n && t->o.on_leaf) {
		count_call(t, h, r);
		t->seq++;
		if ((err = to_roots(t, h, lo)))
			return err;
		return leaf(t, h, r);
	}
	if (adopt(t, &n, 0, &h->pending, lo))
		return -ENOMEM;
	h->pending.n = lo;
	count_call(t, h, r);
	t->seq++;
	if (lo && (err = to_roots(t, h, lo)))
		return err;
	err = t->o.on_root(t->o.root_ctx, t, &n);
	for (c = n.child; c; c = next) {
		next = c->next;
		put_tree(t, c);
	}
	if (err && !t->stream_err)
		t->stream_err = err;
	return err;
}

static int add_call(struct kfit_ctree *t, const struct kfit_rec_call *r)
{
	struct thr *h = stack_of(t, &r->h);
	struct kfit_cnode *n;
	size_t lo;

	if (!h)
		return -ENOMEM;
	if (!r->depth && r->h.ctx == KFIT_CTX_TASK && t->o.on_root && !t->o.woven)
		return add_top(t, h, r);
	if (!r->depth && r->h.ctx == KFIT_CTX_TASK && t->o.on_root && woven_quiet(t, h))
		return woven_top(t, h, r);
	n = node_alloc(t);
	if (!n)
		return -ENOMEM;
	call_node(t, n, r);
	if (n->args && keep_args(n))
		return -ENOMEM;
	lo = adoptable(h, n, r->depth);
	if (adopt(t, n, r->depth, &h->pending, lo))
		return -ENOMEM;
	h->pending.n = lo;
	if (pvec_push(&h->pending, n, r->h.pid, r->h.tid, t->seq++))
		return -ENOMEM;
	if (h->cls == TC_IRQ)
		t->irq_idle = false;
	count_call(t, h, r);
	/* On a task stack nothing before a depth-0 call can be adopted */
	if (!r->depth && r->h.ctx == KFIT_CTX_TASK)
		return to_roots(t, h, h->pending.n);
	if (t->o.on_root && t->o.collapse && t->live > t->collapse_at)
		return collapse(t);
	return 0;
}

/* An interrupt adopts the calls of its stack it contains (all depths) */
static int add_irq(struct kfit_ctree *t, const struct kfit_rec_irq *r)
{
	struct thr *h = stack_of(t, &r->h);
	struct kfit_cnode *n = node_new(t, KFIT_CN_IRQ);
	size_t lo;

	if (!h || !n)
		return -ENOMEM;
	n->ctx = r->h.ctx;
	n->cpu = r->h.cpu;
	n->id = r->vec;
	n->ncalls = r->ncalls;
	n->start = r->h.ts;
	n->dur = r->dur;
	lo = adoptable(h, n, -1);
	if (adopt(t, n, -1, &h->pending, lo))
		return -ENOMEM;
	h->pending.n = lo;
	/* Interrupts of one stack do not overlap: what is left is done */
	if (to_roots(t, h, h->pending.n))
		return t->stream_err ?: -ENOMEM;
	if (t->o.on_root && t->o.woven)
		return woven_root(t, h, &(struct pend){ n, r->h.pid, r->h.tid, t->seq++ });
	if (t->o.on_root)
		return emit(t, n);
	return pvec_push(&h->roots, n, r->h.pid, r->h.tid, t->seq++);
}

/* ---- exact mode: markers ---------------------------------------------- */

static struct kfit_cnode *mark(struct kfit_ctree *t, struct thr *h,
			       const struct kfit_rec *r, __u8 kind)
{
	struct kfit_cnode *n;

	if (!h)
		return NULL;
	/* streaming: placed in no tree, so kept nowhere */
	if (t->o.on_root && !t->o.woven) {
		node_init(&t->scratch, kind);
		return &t->scratch;
	}
	n = node_new(t, kind);
	if (!n)
		return NULL;
	n->ctx = r->ctx;
	n->flags = r->flags & ~(KFIT_RF_LOST | KFIT_CN_WOVEN);
	n->cpu = r->cpu;
	n->start = r->ts;
	/* the fields are the caller's to fill: a pointer to it goes on */
	if (t->o.on_root) {
		if (woven_item(t, h, &(struct pend){ n, r->pid, r->tid, t->seq++ }))
			return NULL;
		return n;
	}
	if (pvec_push(&h->marks, n, r->pid, r->tid, t->seq++))
		return NULL;
	return n;
}

static int add_switch(struct kfit_ctree *t, const struct kfit_rec_switch *r)
{
	struct kfit_cnode *n = mark(t, stack_of(t, &r->h), &r->h, KFIT_CN_SWITCH);

	if (!n)
		return -ENOMEM;
	n->dur = r->dur;
	n->id = r->state;
	if (r->state)
		n->off_blocked = r->dur;
	else
		n->off_preempt = r->dur;
	return 0;
}

static int add_event(struct kfit_ctree *t, const struct kfit_rec_event *r)
{
	struct kfit_cnode *n = mark(t, stack_of(t, &r->h), &r->h, KFIT_CN_EVENT);

	if (!n)
		return -ENOMEM;
	n->id = r->id;
	return 0;
}

static int add_task(struct kfit_ctree *t, const struct kfit_rec_task *r)
{
	struct thr *h = stack_of(t, &r->h), *c;
	struct kfit_cnode *n;

	n = mark(t, h, &r->h, r->h.type == KFIT_REC_FORK ? KFIT_CN_FORK :
		 r->h.type == KFIT_REC_EXEC ? KFIT_CN_EXEC : KFIT_CN_EXIT);
	if (!n)
		return -ENOMEM;
	if (r->h.type == KFIT_REC_EXEC) {
		n->name = intern(t, r->comm, sizeof(r->comm) - 1);
		if (!n->name)
			return -ENOMEM;
		set_comm(&h->t, n->name);
		if (r->h.ts > h->exec_ts)
			h->exec_ts = r->h.ts;
	} else if (r->h.type == KFIT_REC_FORK) {
		n->child_tid = r->child_tid;
		/*
		 * The child runs its parent's program until it calls exec,
		 * whose record may come first: the child's records may travel
		 * in another ring buffer than its parent's.
		 */
		c = task_get(t, r->child_pid, r->child_tid);
		if (!c)
			return -ENOMEM;
		if (c->exec_ts < r->h.ts)
			memcpy(c->t.comm, h->t.comm, sizeof(c->t.comm));
	}
	return 0;
}

/* ---- sampled mode ----------------------------------------------------- */

static int fmap_grow(struct kfit_ctree *t)
{
	size_t cap = t->fmapcap ? 2 * t->fmapcap : 1024, i, j;
	struct fslot *m = calloc(cap, sizeof(*m));

	if (!m)
		return -ENOMEM;
	for (i = 0; i < t->fmapcap; i++) {
		struct fslot *s = &t->fmap[i];

		if (!s->n)
			continue;
		j = hash64((__u64)(uintptr_t)s->parent ^ hash64((uintptr_t)s->name));
		for (j &= cap - 1; m[j].n; j = (j + 1) & (cap - 1))
			;
		m[j] = *s;
	}
	free(t->fmap);
	t->fmap = m;
	t->fmapcap = cap;
	return 0;
}

static struct kfit_cnode *frame_child(struct kfit_ctree *t, struct kfit_cnode *parent,
				      const char *name, bool kernel)
{
	struct kfit_cnode *n;
	size_t i;

	if (2 * (t->nfmap + 1) > t->fmapcap && fmap_grow(t))
		return NULL;
	i = hash64((__u64)(uintptr_t)parent ^ hash64((uintptr_t)name));
	for (i &= t->fmapcap - 1; t->fmap[i].n; i = (i + 1) & (t->fmapcap - 1))
		if (t->fmap[i].parent == parent && t->fmap[i].name == name &&
		    t->fmap[i].n->id == kernel)
			return t->fmap[i].n;
	n = node_new(t, KFIT_CN_FRAME);
	if (!n)
		return NULL;
	n->name = name;
	n->id = kernel;
	n->ctx = parent->ctx;
	link_child(parent, n);
	t->fmap[i] = (struct fslot){ .parent = parent, .name = name, .n = n };
	t->nfmap++;
	return n;
}

/* "FILE+0xOFF" (syms.h's unnamed address): the length of FILE, else 0 */
static size_t file_offset_name(const char *s)
{
	const char *plus = strrchr(s, '+');
	const char *h;

	if (!plus || plus == s || strncmp(plus, "+0x", 3) || !plus[3] ||
	    memchr(s, ' ', plus - s))
		return 0;
	for (h = plus + 3; *h; h++)
		if (!isxdigit((unsigned char)*h))
			return 0;
	return plus - s;
}

const char *kfit_ctree_frame_group(const char *name, char *buf, size_t len)
{
	size_t n;

	if (!strcmp(name, "[unknown]") || !strncmp(name, "[unknown] ", 10))
		return "[unknown]";
	n = file_offset_name(name);
	if (!n)
		return NULL;
	snprintf(buf, len, "%.*s [unknown]", (int)n, name);
	return buf;
}

/* The frame's name, interned; *grouped when it stands for a file's unnamed code */
static const char *frame_name(struct kfit_ctree *t, __u32 pid, __u64 addr, bool kernel,
			      bool *grouped)
{
	const char *s = t->o.sym ? t->o.sym(t->o.sym_ctx, pid, addr, kernel) : NULL;
	const char *g;
	char hex[24], buf[320];

	*grouped = false;
	if (!s) {
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)addr);
		s = hex;
	}
	g = t->o.group_unknown ? kfit_ctree_frame_group(s, buf, sizeof(buf)) : NULL;
	if (g) {
		*grouped = true;
		s = g;
	}
	return intern(t, s, 4095);
}

/* The frame above the outermost of a stack cut short: "[cut: stack copy too small]" */
static const char *cut_name(struct kfit_ctree *t, unsigned int why)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "[cut: %s]", kfit_ustop_name(why));
	return intern(t, buf, 4095);
}

/*
 * The frames one address's name stands for (frames.h): the function, the
 * ones inlined there under it; the innermost is returned, uncounted
 */
static struct kfit_cnode *inlined_frames(struct kfit_ctree *t, struct kfit_cnode *n,
					 const char *name, bool kernel)
{
	const char *p = name, *rest;
	char buf[512];
	size_t len;

	for (;;) {
		rest = kfit_frame_split(p, &len);
		snprintf(buf, sizeof(buf), "%.*s", (int)len, p);
		name = intern(t, buf, 4095);
		n = name ? frame_child(t, n, name, kernel) : NULL;
		if (!n || !rest)
			return n;
		n->samples++;
		p = rest;
	}
}

static int add_sample(struct kfit_ctree *t, const struct kfit_rec_sample *r)
{
	struct thr *h = thr_get(t, thr_key(TC_PROC, KFIT_CTX_TASK, 0, r->h.pid));
	struct kfit_cnode *n;
	int i, nk = r->nkernel, nu = r->nuser;
	bool grouped;

	if (!h)
		return -ENOMEM;
	h->t.pid = h->t.tid = r->h.pid;
	n = &h->t.root;
	n->samples++;
	if (r->ustop && r->ustop <= KFIT_NUSTOPS)
		t->st.ustops[r->ustop - 1]++;
	/* a user stack unwound but cut short: its frames under what cut it */
	if (r->ustop > 1 + KFIT_USTOP_END && r->ustop != 1 + KFIT_USTOP_NOREGS) {
		n = frame_child(t, n, cut_name(t, r->ustop - 1), false);
		if (!n)
			return -ENOMEM;
		n->samples++;
	}
	/* outermost first: user frames, then kernel ones (both leaf first) */
	for (i = nk + nu - 1; i >= 0; i--) {
		bool kernel = i < nk;
		const char *name = frame_name(t, r->h.pid, r->ip[i], kernel, &grouped);

		if (!name)
			return -ENOMEM;
		/* a run of unnamed frames in one file is one frame: its calls are unknown */
		if (grouped && n->kind == KFIT_CN_FRAME && n->name == name && n->id == kernel)
			continue;
		n = strchr(name, KFIT_FRAME_SEP) ? inlined_frames(t, n, name, kernel) :
		    frame_child(t, n, name, kernel);
		if (!n)
			return -ENOMEM;
		n->samples++;
	}
	n->self++;
	h->t.samples++;
	t->st.samples++;
	return 0;
}

static bool args_view(const struct kfit_ctree *t, const struct kfit_cnode *n,
		      struct kfit_argview *v, const struct kfit_fargfmt **f)
{
	if (n->kind != KFIT_CN_CALL || !n->args || !t->o.fargs || n->id >= t->o.nfuncs)
		return false;
	*f = &t->o.fargs[n->id];
	if (!(*f)->n)
		return false;
	*v = kfit_argview_of_rec(n->args);
	return true;
}

const char *kfit_ctree_args_str(const struct kfit_ctree *t, const struct kfit_cnode *n,
				char *buf, size_t len)
{
	const struct kfit_fargfmt *f;
	struct kfit_argview v;

	if (!args_view(t, n, &v, &f))
		return NULL;
	return kfit_argfmt_text(f->a, f->n, &v, buf, len);
}

void kfit_ctree_args_json(const struct kfit_ctree *t, const struct kfit_cnode *n,
			  struct kfit_json *j, const char *key)
{
	const struct kfit_fargfmt *f;
	struct kfit_argview v;

	if (args_view(t, n, &v, &f))
		kfit_argfmt_json(j, key, f->a, f->n, &v);
}

const char *kfit_cnode_ret_str(const struct kfit_cnode *n, char *buf, size_t len)
{
	if (!kfit_cnode_has_ret(n))
		return NULL;
	return kfit_ret_str(n->ret, n->ret_kind, buf, len);
}

/* ---- records ---------------------------------------------------------- */

static const size_t rec_size[KFIT_REC_NTYPES] = {
	[KFIT_REC_CALL] = KFIT_REC_CALL_V1_SIZE,	/* version 1 had no ret */
	[KFIT_REC_SWITCH] = sizeof(struct kfit_rec_switch),
	[KFIT_REC_IRQ] = sizeof(struct kfit_rec_irq),
	/* events keep the data their tracepoint has: len bytes, up to 64 */
	[KFIT_REC_EVENT] = offsetof(struct kfit_rec_event, data),
	[KFIT_REC_FORK] = sizeof(struct kfit_rec_task),
	[KFIT_REC_EXEC] = sizeof(struct kfit_rec_task),
	[KFIT_REC_EXIT] = sizeof(struct kfit_rec_task),
	[KFIT_REC_SAMPLE] = offsetof(struct kfit_rec_sample, ip),
	[KFIT_REC_LOST] = sizeof(struct kfit_rec_lost),
};

union any_rec {
	struct kfit_rec h;
	struct kfit_rec_call call;
	struct kfit_rec_switch sw;
	struct kfit_rec_irq irq;
	struct kfit_rec_event ev;
	struct kfit_rec_task task;
	struct kfit_rec_sample sample;
	struct kfit_rec_lost lost;
};

/* What the type's fields allow; the size is checked already */
static bool valid(const struct kfit_ctree *t, const union any_rec *r)
{
	__u8 ctx = r->h.ctx;

	if (ctx >= KFIT_NCTX)
		return false;
	switch (r->h.type) {
	case KFIT_REC_CALL:
		return r->call.id < t->o.nfuncs && r->call.dur <= ~0ULL - r->h.ts;
	case KFIT_REC_IRQ:
		return ctx != KFIT_CTX_TASK && r->irq.dur <= ~0ULL - r->h.ts;
	case KFIT_REC_SWITCH:
		return ctx == KFIT_CTX_TASK && r->sw.dur <= ~0ULL - r->h.ts;
	case KFIT_REC_EVENT:
		return r->ev.id < t->o.nevents && r->ev.len <= KFIT_EVENT_DATA &&
		       r->h.size >= offsetof(struct kfit_rec_event, data) + r->ev.len;
	case KFIT_REC_FORK:
	case KFIT_REC_EXEC:
	case KFIT_REC_EXIT:
		return ctx == KFIT_CTX_TASK;
	case KFIT_REC_SAMPLE:
		return r->sample.nkernel <= KFIT_STACK_MAX &&
		       r->sample.nuser <= KFIT_STACK_MAX &&
		       r->h.size >= offsetof(struct kfit_rec_sample, ip) +
				    (r->sample.nkernel + r->sample.nuser) * sizeof(__u64);
	}
	return true;
}

static void note_time(struct kfit_ctree *t, __u64 start, __u64 end)
{
	if (!t->st.first_ts || start < t->st.first_ts)
		t->st.first_ts = start;
	if (end > t->st.last_ts)
		t->st.last_ts = end;
}

static int dispatch(struct kfit_ctree *t, const union any_rec *r)
{
	switch (r->h.type) {
	case KFIT_REC_CALL:
		note_time(t, r->h.ts, r->h.ts + r->call.dur);
		return add_call(t, &r->call);
	case KFIT_REC_IRQ:
		note_time(t, r->h.ts, r->h.ts + r->irq.dur);
		return add_irq(t, &r->irq);
	case KFIT_REC_SWITCH:
		note_time(t, r->h.ts, r->h.ts + r->sw.dur);
		return add_switch(t, &r->sw);
	case KFIT_REC_EVENT:
		note_time(t, r->h.ts, r->h.ts);
		return add_event(t, &r->ev);
	case KFIT_REC_FORK:
	case KFIT_REC_EXEC:
	case KFIT_REC_EXIT:
		note_time(t, r->h.ts, r->h.ts);
		return add_task(t, &r->task);
	case KFIT_REC_SAMPLE:
		note_time(t, r->h.ts, r->h.ts);
		return add_sample(t, &r->sample);
	case KFIT_REC_LOST:
		t->st.lost += r->lost.count;
		return 0;
	}
	return 0;
}

/* A field of an unaligned record: loads, where a whole copy stalled kd (store forwarding) */
#define REC_FIELD(rec, type, m, out) \
	memcpy(&(out), (const char *)(rec) + offsetof(struct type, m), sizeof(out))

bool kfit_ctree_check_rec(const void *rec, size_t size)
{
	__u16 hsize, nk, nu;
	__u8 type;

	if (size < sizeof(struct kfit_rec))
		return false;
	REC_FIELD(rec, kfit_rec, size, hsize);
	REC_FIELD(rec, kfit_rec, type, type);
	if (hsize < sizeof(struct kfit_rec) || hsize % 8 || hsize > size ||
	    !type || type >= KFIT_REC_NTYPES || hsize < rec_size[type])
		return false;
	if (type != KFIT_REC_SAMPLE)
		return true;
	REC_FIELD(rec, kfit_rec_sample, nkernel, nk);
	REC_FIELD(rec, kfit_rec_sample, nuser, nu);
	return nk <= KFIT_STACK_MAX && nu <= KFIT_STACK_MAX &&
	       hsize >= offsetof(struct kfit_rec_sample, ip) + (nk + nu) * sizeof(__u64);
}

/* A call in place, whole and of sane fields: most records; the rest as before */
static inline bool plain_call(const struct kfit_ctree *t, const union any_rec *p, size_t size)
{
	const struct kfit_rec_call *r;

	/* not even its address taken where it is not aligned */
	if (size < KFIT_REC_CALL_V1_SIZE || (uintptr_t)p % _Alignof(union any_rec))
		return false;
	r = &p->call;
	return r->h.type == KFIT_REC_CALL && r->h.size >= KFIT_REC_CALL_V1_SIZE &&
	       r->h.size <= size &&
	       !(r->h.size % 8) && r->h.ctx < KFIT_NCTX && r->id < t->o.nfuncs &&
	       r->dur <= ~0ULL - r->h.ts;
}

int kfit_ctree_add(struct kfit_ctree *t, const void *rec, size_t size)
{
	const union any_rec *p = rec;
	union any_rec r;
	struct kfit_rec h;
	size_t n;

	if (t->finished)
		return -EINVAL;
	if (plain_call(t, p, size)) {
		t->st.records++;
		note_time(t, p->h.ts, p->h.ts + p->call.dur);
		return add_call(t, &p->call);
	}
	if (size < sizeof(h)) {
		t->st.bad++;
		return 0;
	}
	if (!kfit_ctree_check_rec(rec, size)) {
		t->st.bad++;
		return 0;
	}
	/*
	 * Copied where it is not aligned (a record anywhere in a buffer);
	 * rings and chunks hold them 8-byte aligned, read in place: a copy of
	 * a size known only here was a tenth of kd's time
	 */
	if ((uintptr_t)rec % _Alignof(union any_rec)) {
		memcpy(&h, rec, sizeof(h));
		/* all of the type's fields, or a sample's frames up to its size */
		n = h.size < sizeof(r) ? h.size : sizeof(r);
		memcpy(&r, rec, n);
		p = &r;
	}
	if (!valid(t, p)) {
		t->st.bad++;
		return 0;
	}
	t->st.records++;
	return dispatch(t, p);
}

/* The next call of the run kfit_ctree_add_leaves takes */
static inline bool leaf_of(const struct kfit_ctree *t, const union any_rec *p, size_t len,
			   const struct kfit_rec *first, __u64 since, __u64 until)
{
	return plain_call(t, p, len) && p->h.ctx == KFIT_CTX_TASK && !p->call.depth &&
	       p->h.tid == first->tid && p->h.pid == first->pid && p->h.ts >= since &&
	       (!until || p->h.ts < until);
}

bool kfit_ctree_takes_leaves(const struct kfit_ctree *t)
{
	return t->o.on_leaf && t->o.on_root;
}

long kfit_ctree_add_leaves(struct kfit_ctree *t, const void *buf, size_t len,
			   __u64 since, __u64 until, size_t *bytes)
{
	const union any_rec *p = buf;
	const struct kfit_rec *first = buf;
	size_t off = 0;
	struct thr *h;
	long n = 0;

	*bytes = 0;
	if (t->finished || !kfit_ctree_takes_leaves(t) || !leaf_of(t, p, len, first, since, until))
		return 0;
	h = task_get(t, first->pid, first->tid);
	if (!h)
		return -ENOMEM;
	/* its calls stay so: each adds nothing that is held */
	if (h->pending.n || (t->o.woven && !woven_quiet(t, h)))
		return 0;
	h->emitted = true;
	do {
		t->st.records++;
		note_time(t, p->h.ts, p->h.ts + p->call.dur);
		count_call(t, h, &p->call);
		t->seq++;
		if (leaf(t, h, &p->call))
			return t->stream_err;
		n++;
		off += p->h.size;
		p = (const void *)((const char *)buf + off);
	} while (len - off >= sizeof(struct kfit_rec) && leaf_of(t, p, len - off, first, since, until));
	*bytes = off;
	return n;
}

int kfit_ctree_add_all(struct kfit_ctree *t, const void *buf, size_t size)
{
	const char *p = buf;
	struct kfit_rec h;
	int err;

	while (size) {
		if (size < sizeof(h)) {
			t->st.bad++;
			return 0;
		}
		memcpy(&h, p, sizeof(h));
		/* without a size to skip by, the rest cannot be read */
		if (h.size < sizeof(h) || h.size % 8 || h.size > size) {
			t->st.bad++;
			return 0;
		}
		err = kfit_ctree_add(t, p, h.size);
		if (err)
			return err;
		p += h.size;
		size -= h.size;
	}
	return 0;
}

/* ---- finish: sorting -------------------------------------------------- */

typedef int (*node_cmp)(const struct kfit_cnode *a, const struct kfit_cnode *b);

static int by_start(const struct kfit_cnode *a, const struct kfit_cnode *b)
{
	return a->start < b->start ? -1 : a->start > b->start;
}

/* Sampled trees: the most samples first, then by name */
static int by_samples(const struct kfit_cnode *a, const struct kfit_cnode *b)
{
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return strcmp(a->name, b->name);
}

static struct kfit_cnode *merge(struct kfit_cnode *a, struct kfit_cnode *b, node_cmp cmp)
{
	struct kfit_cnode head = { 0 }, *tail = &head;

	while (a && b) {
		if (cmp(b, a) < 0) {
			tail->next = b;
			b = b->next;
		} else {
			tail->next = a;
			a = a->next;
		}
		tail = tail->next;
	}
	tail->next = a ? a : b;
	return head.next;
}

/* Stable bottom-up merge sort of a node's children */
static void sort_children(struct kfit_cnode *parent, node_cmp cmp)
{
	struct kfit_cnode *bins[64] = { NULL }, *n = parent->child, *c;
	int i;

	/* usually in order already: records come in time order per stack */
	for (c = n; c && c->next && cmp(c->next, c) >= 0; c = c->next)
		;
	if (!c || !c->next)
		return;
	while (n) {
		c = n;
		n = n->next;
		c->next = NULL;
		for (i = 0; i < 63 && bins[i]; i++) {
			c = merge(bins[i], c, cmp);
			bins[i] = NULL;
		}
		bins[i] = merge(bins[i], c, cmp);
	}
	for (c = NULL, i = 0; i < 64; i++)
		if (bins[i])
			c = merge(bins[i], c, cmp);
	parent->child = c;
	for (; c->next; c = c->next)
		;
	parent->last = c;
}

static int cmp_pend(const void *x, const void *y)
{
	const struct pend *a = x, *b = y;
	bool ma = a->n->kind != KFIT_CN_CALL && a->n->kind != KFIT_CN_IRQ;
	bool mb = b->n->kind != KFIT_CN_CALL && b->n->kind != KFIT_CN_IRQ;

	if (a->n->start != b->n->start)
		return a->n->start < b->n->start ? -1 : 1;
	/* at one instant, what can hold the others first */
	if (ma != mb)
		return ma ? 1 : -1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* ---- finish: weaving -------------------------------------------------- */

static bool container(const struct kfit_cnode *n)
{
	return n->kind == KFIT_CN_CALL || n->kind == KFIT_CN_IRQ;
}

/*
 * Place v[0..cnt) (sorted by start) into the tree under root, each under
 * the innermost container open at its start. cont is the container the
 * walk is in, cur the first of its children not yet passed and prev the
 * one before it, so that inserting costs nothing.
 */
static void weave(struct kfit_cnode *root, const struct pend *v, size_t cnt)
{
	struct kfit_cnode *cont = root, *cur = root->child, *prev = NULL, *n;
	size_t i;

	for (i = 0; i < cnt; i++) {
		__u64 ts = v[i].n->start;

		n = v[i].n;
		for (;;) {
			if (cont != root && ts >= node_end(cont)) {
				prev = cont;
				cur = cont->next;
				cont = cont->parent;
				continue;
			}
			if (cur && cur->start <= ts && !(container(cur) && ts < node_end(cur))) {
				prev = cur;
				cur = cur->next;
				continue;
			}
			if (cur && container(cur) && cur->start <= ts) {
				cont = cur;
				prev = NULL;
				cur = cur->child;
				continue;
			}
			break;
		}
		n->parent = cont;
		if (cont != root)
			n->flags |= KFIT_CN_WOVEN;
		n->next = cur;
		if (prev)
			prev->next = n;
		else
			cont->child = n;
		if (!cur)
			cont->last = n;
		if (container(n)) {
			cont = n;
			prev = NULL;
			cur = n->child;
		} else {
			prev = n;
		}
	}
}

/* ---- finish ----------------------------------------------------------- */

static bool irq_stack(const struct thr *h)
{
	return h->cls == TC_IRQ;
}

/* Where an interrupt's node goes: the task it struck, if it has a tree */
static struct thr *dest_of(struct kfit_ctree *t, struct thr *h, const struct pend *e)
{
	struct thr *task;

	if (!irq_stack(h) || t->o.no_interlace)
		return h;
	task = thr_find(t, thr_key(TC_TASK, KFIT_CTX_TASK, 0, e->tid));
	return task && task->t.ncalls ? task : h;
}

static int link_roots(struct kfit_ctree *t, struct thr *h)
{
	size_t i;

	if (to_roots(t, h, h->pending.n))
		return t->stream_err ?: -ENOMEM;
	for (i = 0; i < h->roots.n; i++)
		if (!irq_stack(h))
			link_child(&h->t.root, h->roots.v[i].n);
	if (!irq_stack(h))
		sort_children(&h->t.root, by_start);
	return 0;
}

static int distribute(struct kfit_ctree *t, struct thr *h)
{
	struct pvec *from[2] = { &h->marks, irq_stack(h) ? &h->roots : NULL };
	size_t i;
	int k;

	for (k = 0; k < 2; k++) {
		if (!from[k])
			continue;
		for (i = 0; i < from[k]->n; i++) {
			struct pend *e = &from[k]->v[i];

			if (pvec_push(&dest_of(t, h, e)->weave, e->n, e->pid, e->tid, e->seq))
				return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Failed call n and its callers up to its stack's bottom (an interrupt's
 * node, or the thread's root) marked; a caller marked already has its
 * own callers marked. An interrupt's stops at its node: the tree it was
 * interlaced into is marked as holding it, so that it is shown.
 */
static void mark_failed(struct kfit_cnode *n, const struct kfit_cnode *root)
{
	for (; n != root && !(n->cflags & KFIT_CN_FAILPATH); n = n->parent) {
		n->cflags |= KFIT_CN_FAILPATH;
		if (n->kind == KFIT_CN_IRQ)
			break;
	}
	if (n == root)
		return;
	while (n->parent != root)
		n = n->parent;
	if (!(n->cflags & KFIT_CN_FAILPATH))
		n->cflags |= KFIT_CN_FAILIN;
}

/* Whether call n of th failed: the tool's test (--errors EXPR), or its value's kind */
static bool failed(const struct kfit_ctree *t, const struct kfit_cthread *th,
		   const struct kfit_cnode *n)
{
	if (n->kind != KFIT_CN_CALL || (n->flags & KFIT_RF_INCOMPLETE))
		return false;
	return t->o.failed ? t->o.failed(t->o.failed_ctx, th, n) : kfit_cnode_failed(n);
}

/* Rendered depths, failing paths marked; sampled trees sorted by samples */
static void finish_tree(const struct kfit_ctree *t, struct kfit_cthread *th)
{
	struct kfit_cnode *root = &th->root, *n = root->child;

	root->samples = th->samples;
	if (n && n->kind == KFIT_CN_FRAME)
		sort_children(root, by_samples);
	for (n = root->child; n;) {
		n->depth = n->parent == root ? 0 : n->parent->depth + 1;
		if (failed(t, th, n))
			mark_failed(n, root);
		if (n->kind == KFIT_CN_FRAME)
			sort_children(n, by_samples);
		if (n->child) {
			n = n->child;
			continue;
		}
		while (n != root && !n->next)
			n = n->parent;
		n = n == root ? NULL : n->next;
	}
}

static int cmp_thr(const void *x, const void *y)
{
	const struct thr *a = *(struct thr *const *)x, *b = *(struct thr *const *)y;
	int ca = a->cls == TC_IRQ, cb = b->cls == TC_IRQ;

	if (ca != cb)
		return ca - cb;
	if (ca) {
		if (a->t.ctx != b->t.ctx)
			return a->t.ctx - b->t.ctx;
		return a->t.cpu - b->t.cpu;
	}
	if (a->t.pid != b->t.pid)
		return a->t.pid < b->t.pid ? -1 : 1;
	if (a->t.tid != b->t.tid)
		return a->t.tid < b->t.tid ? -1 : 1;
	return (int)a->cls - (int)b->cls;
}

/* A process of sampled mode takes the name of its main thread */
static void proc_comm(struct kfit_ctree *t, struct thr *h)
{
	struct thr *main = thr_find(t, thr_key(TC_TASK, KFIT_CTX_TASK, 0, h->t.pid));

	if (main)
		memcpy(h->t.comm, main->t.comm, sizeof(h->t.comm));
}

/* ---- streaming, woven -------------------------------------------------- */

/* The interrupt stack a node of one came from */
static struct thr *irq_home(struct kfit_ctree *t, const struct kfit_cnode *n)
{
	return thr_get(t, thr_key(TC_IRQ, n->ctx, n->cpu, 0));
}

static int route(struct kfit_ctree *t, struct thr *h, const struct pend *e);

/*
 * The calls of interrupt stacks that struck task h and ended by limit,
 * which h's record at limit came after: the task ran again, so the
 * interrupt ended and no record of it can adopt them any more (no
 * record comes for some: the local timer's). Into h's tree.
 */
static int promote_struck(struct kfit_ctree *t, struct thr *h, __u64 limit)
{
	bool idle = true;
	struct pvec *p;
	size_t i, k;
	int q;

	if (t->irq_idle || t->o.no_interlace)
		return 0;
	for (q = 0; q < t->nirq; q++) {
		p = &t->irq[q]->pending;
		for (i = k = 0; i < p->n; i++) {
			if (p->v[i].tid != h->t.tid || node_end(p->v[i].n) > limit) {
				p->v[k++] = p->v[i];
				continue;
			}
			if (p->v[i].n->kind == KFIT_CN_CALL && p->v[i].n->depth)
				t->st.orphans++;
			if (route(t, t->irq[q], &p->v[i]) < 0)
				return -ENOMEM;
		}
		p->n = k;
		idle = idle && !k;
	}
	t->irq_idle = idle;
	return 0;
}

/*
 * h's items that start before limit placed as finish places them, with
 * root (a top-level call of h, or NULL) among them; then the top-level
 * nodes to on_root, in order, and freed
 */
static int flush(struct kfit_ctree *t, struct thr *h, __u64 limit, struct kfit_cnode *root)
{
	struct pvec now = { 0 };
	struct kfit_cnode *n;
	size_t i, k = 0;
	int err = 0;

	if (!irq_stack(h) && (err = promote_struck(t, h, limit)))
		return err;
	if (root)
		link_child(&h->t.root, root);
	for (i = 0; i < h->weave.n; i++) {
		if (h->weave.v[i].n->start < limit) {
			if (pvec_push(&now, h->weave.v[i].n, h->weave.v[i].pid,
				      h->weave.v[i].tid, h->weave.v[i].seq))
				err = -ENOMEM;
		} else {
			h->weave.v[k++] = h->weave.v[i];
		}
	}
	h->weave.n = k;
	if (now.n > 1)
		qsort(now.v, now.n, sizeof(struct pend), cmp_pend);
	weave(&h->t.root, now.v, now.n);
	pvec_free(&now);
	finish_tree(t, &h->t);
	t->emitting = h;
	if (h->t.root.child)
		h->emitted = true;
	while ((n = h->t.root.child)) {
		h->t.root.child = n->next;
		n->next = NULL;
		if (!err)
			err = t->o.on_root(t->o.root_ctx, t, n);
		put_tree(t, n);
	}
	h->t.root.last = NULL;
	t->emitting = NULL;
	if (err && !t->stream_err)
		t->stream_err = err;
	return err;
}

/* h's interrupts that waited for its first call: its tree's now */
static int unhold(struct thr *h)
{
	size_t i;

	for (i = 0; i < h->held.n; i++)
		if (pvec_push(&h->weave, h->held.v[i].n, h->held.v[i].pid, h->held.v[i].tid,
			      h->held.v[i].seq))
			return -ENOMEM;
	h->held.n = 0;
	return 0;
}

/*
 * Held too long (or no call came): to the interrupt stacks they came
 * from, whose trees show them (nothing else waits there while interrupts
 * are interlaced: those stacks' own nodes all go to tasks); shown now
 * when held too long, else with the rest at the end, in time order
 */
static int release(struct kfit_ctree *t, struct thr *task, bool flush_now)
{
	struct thr *home;
	size_t i, n = task->held.n;
	int err = 0;

	for (i = 0; i < n; i++) {
		const struct pend *e = &task->held.v[i];

		home = irq_home(t, e->n);
		if (!home || pvec_push(&home->weave, e->n, e->pid, e->tid, e->seq))
			return -ENOMEM;
	}
	task->held.n = 0;
	for (i = 0; flush_now && !err && i < n; i++) {
		home = irq_home(t, task->held.v[i].n);
		if (home->weave.n)
			err = flush(t, home, UINT64_MAX, NULL);
	}
	return err;
}

/*
 * A node of interrupt stack h that finish would place by the task it
 * struck: into that task's tree if it has calls, held for it while it
 * has none (a call of it may hold it yet), into h's own without
 * interlacing. 1 when it went to h (the caller may flush), 0, -ENOMEM.
 */
static int route(struct kfit_ctree *t, struct thr *h, const struct pend *e)
{
	struct thr *task;

	if (t->o.no_interlace)
		return pvec_push(&h->weave, e->n, e->pid, e->tid, e->seq) ?: 1;
	task = thr_find(t, thr_key(TC_TASK, KFIT_CTX_TASK, 0, e->tid));
	if (task && task->t.ncalls)
		return pvec_push(&task->weave, e->n, e->pid, e->tid, e->seq);
	task = task_get(t, e->pid, e->tid);
	if (!task || pvec_push(&task->held, e->n, e->pid, e->tid, e->seq))
		return -ENOMEM;
	return task->held.n > HELD_MAX ? release(t, task, true) : 0;
}

/* A mark (switch, event, task record): placed with its stack's next flush */
static int woven_item(struct kfit_ctree *t, struct thr *h, const struct pend *e)
{
	if (!irq_stack(h))
		return pvec_push(&h->weave, e->n, e->pid, e->tid, e->seq);
	return route(t, h, e) < 0 ? -ENOMEM : 0;
}

/* A top-level node done: a task's call, or an interrupt stack's node */
static int woven_root(struct kfit_ctree *t, struct thr *h, const struct pend *e)
{
	int r;

	if (!irq_stack(h))
		return unhold(h) ?: flush(t, h, e->n->start + e->n->dur, e->n);
	r = route(t, h, e);
	if (r <= 0)
		return r;
	return flush(t, h, e->n->start + e->n->dur, NULL);
}

/*
 * Woven: task h has nothing pending, held or to weave, and no interrupt
 * stack holds a call that may have struck it: a top-level call of it is
 * a tree whole, to on_root as flush would give it (most records of a
 * long recording)
 */
static bool woven_quiet(const struct kfit_ctree *t, const struct thr *h)
{
	return t->o.woven && !h->pending.n && !h->held.n && !h->weave.n &&
	       (t->irq_idle || t->o.no_interlace);
}

/* A top-level call of a quiet task: its node on the stack, never held */
static int woven_top(struct kfit_ctree *t, struct thr *h, const struct kfit_rec_call *r)
{
	struct kfit_cnode n;
	int err;

	count_call(t, h, r);
	t->seq++;
	h->emitted = true;
	if (t->o.on_leaf)
		return leaf(t, h, r);
	call_node(t, &n, r);
	n.local = n.dur;
	link_child(&h->t.root, &n);
	finish_tree(t, &h->t);
	t->emitting = h;
	err = t->o.on_root(t->o.root_ctx, t, &n);
	h->t.root.child = h->t.root.last = NULL;
	t->emitting = NULL;
	if (err && !t->stream_err)
		t->stream_err = err;
	return err;
}

/* The end: every stack's top-level nodes, then what each thread still holds */
static int woven_finish(struct kfit_ctree *t)
{
	int i, err = 0;

	for (i = 0; !err && i < t->nth; i++)
		if (to_roots(t, t->th[i], t->th[i]->pending.n))
			err = t->stream_err ?: -ENOMEM;
	for (i = 0; !err && i < t->nth; i++)
		err = t->th[i]->t.ncalls ? unhold(t->th[i]) : release(t, t->th[i], false);
	for (i = 0; !err && i < t->nth; i++)
		if (t->th[i]->cls != TC_PROC)	/* a sampled process's tree stays */
			err = flush(t, t->th[i], UINT64_MAX, NULL);
	if (err)
		return err;
	/*
	 * the threads that showed something, in the order finish lists them;
	 * samples (a tool fell back to sampling) make trees kept whole
	 */
	t->list = calloc(t->nth ? t->nth : 1, sizeof(*t->list));
	if (!t->list)
		return -ENOMEM;
	for (i = 0; i < t->nth; i++) {
		struct thr *h = t->th[i];

		if (h->cls == TC_PROC && h->t.root.child) {
			finish_tree(t, &h->t);
			proc_comm(t, h);
		}
		if (h->emitted || (h->cls == TC_PROC && h->t.root.child))
			t->list[t->nlist++] = h;
	}
	if (t->nlist > 1)
		qsort(t->list, t->nlist, sizeof(*t->list), cmp_thr);
	return 0;
}

static int finish(struct kfit_ctree *t)
{
	int i;

	if (t->o.on_root && t->o.woven)
		return woven_finish(t);

	for (i = 0; i < t->nth; i++)
		if (link_roots(t, t->th[i]))
			return -ENOMEM;
	for (i = 0; i < t->nth; i++)
		if (distribute(t, t->th[i]))
			return -ENOMEM;
	t->list = calloc(t->nth ? t->nth : 1, sizeof(*t->list));
	if (!t->list)
		return -ENOMEM;
	for (i = 0; i < t->nth; i++) {
		struct thr *h = t->th[i];

		if (h->weave.n > 1)
			qsort(h->weave.v, h->weave.n, sizeof(struct pend), cmp_pend);
		weave(&h->t.root, h->weave.v, h->weave.n);
		finish_tree(t, &h->t);
		if (h->cls == TC_PROC)
			proc_comm(t, h);
		if (h->t.root.child)
			t->list[t->nlist++] = h;
	}
	if (t->nlist > 1)
		qsort(t->list, t->nlist, sizeof(*t->list), cmp_thr);
	return 0;
}

void kfit_ctree_finish(struct kfit_ctree *t)
{
	int i;

	if (t->finished)
		return;
	t->finished = true;
	/* out of memory: show no thread rather than half-linked ones */
	if (finish(t)) {
		t->nlist = 0;
		t->st.bad++;
	}
	for (i = 0; i < t->nth; i++) {
		pvec_free(&t->th[i]->pending);
		pvec_free(&t->th[i]->roots);
		pvec_free(&t->th[i]->marks);
		pvec_free(&t->th[i]->weave);
		pvec_free(&t->th[i]->held);
	}
	free(t->fmap);
	t->fmap = NULL;
	t->fmapcap = t->nfmap = 0;
}

void kfit_ctree_free(struct kfit_ctree *t)
{
	struct chunk *c, *next;
	size_t s;
	int i;

	if (!t)
		return;
	for (i = 0; i < t->nth; i++) {
		pvec_free(&t->th[i]->pending);
		pvec_free(&t->th[i]->roots);
		pvec_free(&t->th[i]->marks);
		pvec_free(&t->th[i]->weave);
		pvec_free(&t->th[i]->held);
		free(t->th[i]);
	}
	for (c = t->chunks; c; c = next) {
		next = c->next;
		for (s = 0; s < c->used; s++)
			free((void *)c->n[s].args);
		free(c);
	}
	for (s = 0; s < t->nstr; s++)
		free(t->str[s]);
	free(t->str);
	kfit_strset_free(&t->names);
	free(t->th);
	free(t->irq);
	free(t->map);
	free(t->list);
	free(t->fmap);
	free(t);
}

/* ---- queries ---------------------------------------------------------- */

int kfit_ctree_nthreads(const struct kfit_ctree *t)
{
	return t->nlist;
}

const struct kfit_cthread *kfit_ctree_thread(const struct kfit_ctree *t, int i)
{
	return i >= 0 && i < t->nlist ? &t->list[i]->t : NULL;
}

const struct kfit_ctree_stats *kfit_ctree_get_stats(const struct kfit_ctree *t)
{
	return &t->st;
}

/* The names /proc/softirqs gives the vectors */
static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
	"IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

static const char *irq_name(const struct kfit_cnode *n)
{
	if (n->ctx == KFIT_CTX_SOFTIRQ)
		return n->id < sizeof(softirq_names) / sizeof(softirq_names[0]) ?
		       softirq_names[n->id] : "?";
	return kfit_ctree_ctx_name(n->ctx);
}

const char *kfit_ctree_func_name(const struct kfit_ctree *t, __u32 id)
{
	return id < t->o.nfuncs && t->o.funcs[id] ? t->o.funcs[id] : "?";
}

const char *kfit_ctree_name(const struct kfit_ctree *t, const struct kfit_cnode *n)
{
	switch (n->kind) {
	case KFIT_CN_CALL:
		if (n->flags & KFIT_RF_LOST)
			return "[lost]";
		return kfit_ctree_func_name(t, n->id);
	case KFIT_CN_EVENT:
		return n->id < t->o.nevents && t->o.events[n->id] ? t->o.events[n->id] : "?";
	case KFIT_CN_FRAME:
	case KFIT_CN_EXEC:
		return n->name ? n->name : "?";
	case KFIT_CN_IRQ:
		return irq_name(n);
	case KFIT_CN_SWITCH:
		return n->id ? "blocked" : "preempted";
	case KFIT_CN_FORK:
		return "fork";
	case KFIT_CN_EXIT:
		return "exit";
	}
	return "";
}

const char *kfit_ctree_irq_label(const struct kfit_cnode *n, const char *vec_name,
				 char *buf, size_t len)
{
	if (n->ctx == KFIT_CTX_SOFTIRQ)
		snprintf(buf, len, "softirq %s", vec_name);
	else if (n->ctx == KFIT_CTX_HARDIRQ)
		snprintf(buf, len, "hardirq %u", n->id);
	else
		snprintf(buf, len, "%s", kfit_ctree_ctx_name(n->ctx));
	return buf;
}

const char *kfit_ctree_ctx_name(__u8 ctx)
{
	static const char *const names[KFIT_NCTX] = {
		"task", "softirq", "hardirq", "nmi",
	};

	return ctx < KFIT_NCTX ? names[ctx] : "?";
}

const char *kfit_ctree_rec_type_name(__u8 type)
{
	static const char *const names[KFIT_REC_NTYPES] = {
		[KFIT_REC_CALL] = "call", [KFIT_REC_SWITCH] = "switch",
		[KFIT_REC_IRQ] = "irq", [KFIT_REC_EVENT] = "event",
		[KFIT_REC_FORK] = "fork", [KFIT_REC_EXEC] = "exec",
		[KFIT_REC_EXIT] = "exit", [KFIT_REC_SAMPLE] = "sample",
		[KFIT_REC_LOST] = "lost",
	};

	return type < KFIT_REC_NTYPES && names[type] ? names[type] : "?";
}
