// SPDX-License-Identifier: GPL-2.0
/*
 * Renderers of finished call trees: folded stacks and the SVG flame graph
 * (both over one merged "flame" tree built here); Chrome trace-event JSON
 * (straight from the call trees, in time order) is export_perfetto.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "duration.h"
#include "export_int.h"
#include "fstats.h"
#include "output.h"
#include "strset.h"
#include "treeprint.h"

const char *export_node_name(const struct kfit_export_src *s, const struct kfit_cnode *n)
{
	const char *name;

	if (n->kind == KFIT_CN_CALL && (n->flags & KFIT_RF_LOST))
		return "[lost]";
	name = s->name(s->ctx, n);
	return name && *name ? name : "[unknown]";
}

/* An interrupt: "softirq NET_RX", "hardirq 24", "nmi" */
const char *export_irq_label(const struct kfit_export_src *s, const struct kfit_cnode *n,
			     char *buf, size_t size)
{
	return kfit_ctree_irq_label(n, export_node_name(s, n), buf, size);
}

static const char *ctree_name(void *ctx, const struct kfit_cnode *n)
{
	return kfit_ctree_name(ctx, n);
}

/* The decoder marks a FRAME's symbol as the kernel's in its id */
static bool frame_kernel(void *ctx, const struct kfit_cnode *n)
{
	(void)ctx;
	return n->kind == KFIT_CN_FRAME && n->id;
}

int kfit_export_src_ctree(struct kfit_export_src *s, const struct kfit_ctree *t, bool sampled)
{
	const struct kfit_cthread **th;
	int i, n = kfit_ctree_nthreads(t);

	memset(s, 0, sizeof(*s));
	th = calloc(n + 1, sizeof(*th));
	if (!th)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		th[i] = kfit_ctree_thread(t, i);
	s->threads = th;
	s->nthreads = n;
	s->sampled = sampled;
	s->name = ctree_name;
	s->kernel = sampled ? frame_kernel : NULL;
	s->ctx = (void *)t;
	s->tree = t;
	s->stats = kfit_ctree_get_stats(t);
	s->t0 = s->stats->first_ts;
	return 0;
}

void kfit_export_src_release(struct kfit_export_src *s)
{
	free((void *)s->threads);
	s->threads = NULL;
	s->nthreads = 0;
}

/* Time a node spans in its parent's frame (calls, interrupts, off CPU) */
static bool timed(const struct kfit_cnode *n)
{
	return n->kind == KFIT_CN_CALL || n->kind == KFIT_CN_IRQ ||
	       n->kind == KFIT_CN_SWITCH;
}

/* Duration minus the timed children's: what is drawn as the node's own */
static __u64 self_time(const struct kfit_cnode *n)
{
	const struct kfit_cnode *c;
	__u64 sub = 0;

	for (c = n->child; c; c = c->next)
		if (timed(c))
			sub += c->dur;
	return n->dur > sub ? n->dur - sub : 0;
}

static int walk_push(struct export_walker *w, const struct kfit_cnode *n)
{
	const struct kfit_cnode **p;

	if (w->sp == w->cap) {
		p = realloc(w->stk, (w->cap ? 2 * w->cap : 64) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		w->stk = p;
		w->cap = w->cap ? 2 * w->cap : 64;
	}
	w->stk[w->sp++] = n;
	return 0;
}

int export_walk(struct export_walker *w, const struct kfit_cnode *n, bool all)
{
	int r;

	w->sp = 0;
	while (n) {
		r = w->enter(w->c, n);
		if (r < 0)
			return r;
		if (r > 0 && n->child) {
			if (walk_push(w, n))
				return -ENOMEM;
			n = n->child;
			continue;
		}
		if (r > 0)
			w->leave(w->c, n);
		while (w->sp && !n->next) {
			n = w->stk[--w->sp];
			w->leave(w->c, n);
		}
		if (!w->sp && !all)
			break;
		n = n->next;
	}
	return 0;
}

/* ---- the flame tree: the call trees merged by stack (export_int.h) ---- */

/* A name known by its address: frames looked up again without hashing it */
struct fseen {
	const char *name;
	__u32 parent, idx;
	__u8 cls;
};

#define FSEEN	1024	/* direct-mapped */

static __u32 fkey(__u32 parent, __u8 cls, const char *name)
{
	return kfit_strset_hash(name) ^ (parent * 0x9e3779b1U) ^ (cls * 0x85ebca6bU);
}

static __u32 *fslot(struct flame *fl, __u32 parent, __u8 cls, const char *name)
{
	__u32 i = fkey(parent, cls, name) & fl->mask;
	struct fnode *v;

	for (;; i = (i + 1) & fl->mask) {
		if (!fl->slot[i])
			return &fl->slot[i];
		v = &fl->v[fl->slot[i]];
		if (v->parent == parent && v->cls == cls && !strcmp(v->name, name))
			return &fl->slot[i];
	}
}

static int fgrow(struct flame *fl)
{
	__u32 i, nslots = 2 * (fl->mask + 1);
	struct fnode *v;

	if (fl->n == fl->cap) {
		v = realloc(fl->v, 2 * fl->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		fl->v = v;
		fl->cap *= 2;
	}
	if (2 * fl->n < fl->mask)
		return 0;
	free(fl->slot);
	fl->slot = calloc(nslots, sizeof(*fl->slot));
	if (!fl->slot)
		return -ENOMEM;
	fl->mask = nslots - 1;
	for (i = 1; i < fl->n; i++)
		*fslot(fl, fl->v[i].parent, fl->v[i].cls, fl->v[i].name) = i;
	return 0;
}

static int flame_init(struct flame *fl, const struct kfit_export_src *s)
{
	fl->src = s;
	fl->cap = 256;
	fl->mask = 511;
	fl->v = calloc(fl->cap, sizeof(*fl->v));
	fl->slot = calloc(fl->mask + 1, sizeof(*fl->slot));
	fl->seen = calloc(FSEEN, sizeof(*fl->seen));
	if (!fl->v || !fl->slot || !fl->seen)
		return -ENOMEM;
	fl->v[0].name = "all";
	fl->v[0].cls = FC_ROOT;
	fl->n = 1;
	return 0;
}

void export_flame_free(struct flame *fl)
{
	__u32 i;

	for (i = 0; i < fl->n; i++)
		if (fl->v[i].owned)
			free((char *)fl->v[i].name);
	free(fl->v);
	free(fl->slot);
	free(fl->seen);
	free(fl->fstk);
}

/*
 * Where a name not copied (one that lives as long as the flame) may be
 * known by its address: a flame merges millions of calls of a few
 * functions, and hashing their names was a third of --folded's time
 */
static struct fseen *fseen(struct flame *fl, __u32 parent, __u8 cls, const char *name)
{
	__u64 x = (__u64)(uintptr_t)name ^ ((__u64)parent << 32 | cls);

	x *= 0x9e3779b97f4a7c15ULL;
	return &fl->seen[x >> 54];
}

/* The child of parent named name, added if new: its index, or 0 (ENOMEM) */
static __u32 flame_child(struct flame *fl, __u32 parent, const char *name,
			 __u8 cls, bool copy)
{
	struct fseen *seen = copy ? NULL : fseen(fl, parent, cls, name);
	struct fnode *v;
	__u32 *slot, i;

	if (seen && seen->name == name && seen->parent == parent && seen->cls == cls)
		return seen->idx;
	slot = fslot(fl, parent, cls, name);
	if (*slot) {
		if (seen)
			*seen = (struct fseen){ name, parent, *slot, cls };
		return *slot;
	}
	if (fgrow(fl))
		return 0;
	slot = fslot(fl, parent, cls, name);	/* the table may have moved */
	i = fl->n;
	v = &fl->v[i];
	memset(v, 0, sizeof(*v));
	v->name = copy ? strdup(name) : name;
	if (!v->name)
		return 0;
	v->owned = copy;
	v->cls = cls;
	v->parent = parent;
	v->depth = fl->v[parent].depth + 1;
	v->next = fl->v[parent].child;
	fl->v[parent].child = i;
	fl->n++;
	*slot = i;
	if (seen)
		*seen = (struct fseen){ name, parent, i, cls };
	return i;
}

static __u8 code_class(const struct kfit_export_src *s, const struct kfit_cnode *n)
{
	if (n->kind == KFIT_CN_CALL && (n->flags & KFIT_RF_LOST))
		return FC_LOST;
	if (!s->kernel)
		return FC_CODE;
	return s->kernel(s->ctx, n) ? FC_KERNEL : FC_USER;
}

/* The frame of n under parent, its self value added: 1, 0 (n draws none), -ENOMEM */
static int node_frame(struct flame *fl, __u32 parent, const struct kfit_cnode *n,
		      __u32 *idx)
{
	const struct kfit_export_src *s = fl->src;
	char buf[64], label[48];
	__u32 i;

	switch (n->kind) {
	case KFIT_CN_CALL:
	case KFIT_CN_FRAME:
		i = flame_child(fl, parent, export_node_name(s, n), code_class(s, n), false);
		break;
	case KFIT_CN_IRQ:
		snprintf(buf, sizeof(buf), "[irq] %s", export_irq_label(s, n, label, sizeof(label)));
		i = flame_child(fl, parent, buf, FC_IRQ, true);
		break;
	case KFIT_CN_SWITCH:
		i = flame_child(fl, parent, n->id ? "[off-cpu] blocked" :
				"[off-cpu] preempted", FC_OFF, false);
		break;
	default:
		return 0;
	}
	if (!i)
		return -ENOMEM;
	fl->v[i].self += n->kind == KFIT_CN_FRAME ? n->self : self_time(n);
	/* what kd --summary counts: COUNT and LOCAL, by stack */
	if (kfit_cnode_counted(n)) {
		fl->v[i].calls++;
		fl->v[i].local += n->local;
	}
	*idx = i;
	return 1;
}

static int flame_enter(void *c, const struct kfit_cnode *n)
{
	struct flame *fl = c;
	__u32 *p, i;
	int r;

	r = node_frame(fl, fl->fstk[fl->fsp - 1], n, &i);
	if (r <= 0)
		return r;
	if (fl->fsp == fl->fcap) {
		p = realloc(fl->fstk, 2 * fl->fcap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		fl->fstk = p;
		fl->fcap *= 2;
	}
	fl->fstk[fl->fsp++] = i;
	return 1;
}

static void flame_leave(void *c, const struct kfit_cnode *n)
{
	struct flame *fl = c;

	(void)n;
	fl->fsp--;
}

const char *export_thread_label(const struct kfit_cthread *t, char *buf, size_t size)
{
	if (t->ctx != KFIT_CTX_TASK)
		snprintf(buf, size, "[%s]", kfit_ctree_ctx_name(t->ctx));
	else if (t->comm[0])
		snprintf(buf, size, "%.*s", (int)sizeof(t->comm), t->comm);
	else
		snprintf(buf, size, "tid %u", t->tid);
	return buf;
}

static int flame_thread(struct flame *fl, struct export_walker *w, const struct kfit_cthread *t)
{
	char label[40];
	__u32 top;

	top = flame_child(fl, 0, export_thread_label(t, label, sizeof(label)), FC_THREAD, true);
	if (!top)
		return -ENOMEM;
	if (fl->src->sampled)
		fl->v[top].self += t->root.self;
	fl->fstk[0] = top;
	fl->fsp = 1;
	return export_walk(w, t->root.child, true);
}

static int name_cmp(const void *a, const void *b)
{
	const struct fnode *x = *(const struct fnode *const *)a;
	const struct fnode *y = *(const struct fnode *const *)b;
	int d = strcmp(x->name, y->name);

	return d ? d : (int)x->cls - (int)y->cls;
}

/* Children in name order (as flamegraph.pl draws them), totals, offsets */
static int flame_order(struct flame *fl)
{
	struct fnode **kids;
	__u32 i, c, k, nk;

	kids = malloc(fl->n * sizeof(*kids));
	if (!kids)
		return -ENOMEM;
	for (i = 0; i < fl->n; i++) {
		fl->v[i].total = fl->v[i].self;
		fl->v[i].btotal = fl->v[i].bself;
		fl->v[i].nsub = 1;
	}
	for (i = fl->n - 1; i > 0; i--) {	/* children come after parents */
		fl->v[fl->v[i].parent].total += fl->v[i].total;
		fl->v[fl->v[i].parent].btotal += fl->v[i].btotal;
		fl->v[fl->v[i].parent].nsub += fl->v[i].nsub;
	}
	for (i = 0; i < fl->n; i++) {
		for (nk = 0, c = fl->v[i].child; c; c = fl->v[c].next)
			kids[nk++] = &fl->v[c];
		qsort(kids, nk, sizeof(*kids), name_cmp);
		fl->v[i].child = nk ? kids[0] - fl->v : 0;
		for (k = 0; k < nk; k++) {
			kids[k]->next = k + 1 < nk ? kids[k + 1] - fl->v : 0;
			kids[k]->off = k ? kids[k - 1]->off + kids[k - 1]->total :
				       fl->v[i].off;
		}
	}
	free(kids);
	return 0;
}

int export_flame_build(struct flame *fl, const struct kfit_export_src *s)
{
	struct export_walker w = { .enter = flame_enter, .leave = flame_leave, .c = fl };
	int i, err;

	memset(fl, 0, sizeof(*fl));
	if (!s->name)
		return -EINVAL;
	err = flame_init(fl, s);
	fl->fcap = 64;
	fl->fstk = malloc(fl->fcap * sizeof(*fl->fstk));
	if (!err && !fl->fstk)
		err = -ENOMEM;
	for (i = 0; !err && i < s->nthreads; i++)
		err = flame_thread(fl, &w, s->threads[i]);
	free(w.stk);
	return err ? err : flame_order(fl);
}

/* The frame of path's last name, its callers made on the way: its index, or 0 (ENOMEM) */
static __u32 path_frame(struct flame *fl, char *path)
{
	char *name;
	__u32 i = 0;

	while ((name = strsep(&path, ";")))
		if (!(i = flame_child(fl, i, name, FC_CODE, true)))
			return 0;
	return i;
}

/* A differential graph's tree: the paths' frames, each run's own time on each */
static int flame_of_paths(struct flame *fl, const struct kfit_export_dpath *v, size_t n)
{
	char *path;
	size_t k;
	__u32 i;

	memset(fl, 0, sizeof(*fl));
	if (flame_init(fl, NULL))
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		path = strdup(v[k].path);	/* cut into names by path_frame */
		i = path ? path_frame(fl, path) : 0;
		free(path);
		if (!i)
			return -ENOMEM;
		fl->v[i].self += v[k].after;
		fl->v[i].bself += v[k].before;
	}
	return flame_order(fl);
}

/* Pre-order: the node after i (0 when done); skip: not into i's children */
static __u32 flame_next(const struct flame *fl, __u32 i, bool skip)
{
	if (!skip && fl->v[i].child)
		return fl->v[i].child;
	while (i && !fl->v[i].next)
		i = fl->v[i].parent;
	return i ? fl->v[i].next : 0;
}

/* ---- folded stacks ---- */

static void folded_name(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == ';')
			fputc(':', f);
		else if ((unsigned char)*s < 0x20 || *s == 0x7f)
			fputc('?', f);
		else
			fputc(*s, f);
	}
}

static void folded_path(FILE *f, const struct flame *fl, __u32 i)
{
	if (fl->v[i].parent) {
		folded_path(f, fl, fl->v[i].parent);
		fputc(';', f);
	}
	folded_name(f, fl->v[i].name);
}

int export_finish_file(FILE *f)
{
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}

/* Each frame with a self value: its stack and the value */
static int folded_write(const struct flame *fl, FILE *f)
{
	__u32 i;

	for (i = fl->v ? fl->v[0].child : 0; i; i = flame_next(fl, i, false))
		if (fl->v[i].self) {
			folded_path(f, fl, i);
			fprintf(f, " %llu\n", (unsigned long long)fl->v[i].self);
		}
	return export_finish_file(f);
}

int kfit_export_folded(const struct kfit_export_src *s, FILE *f)
{
	struct flame fl;
	int err;

	err = export_flame_build(&fl, s);
	if (!err)
		err = folded_write(&fl, f);
	export_flame_free(&fl);
	return err;
}

/* ---- a flame built as call trees come ---- */

/* A thread's frame while streaming: named by the thread, renamed at the end */
struct fthread {
	__u32 frame;
	const struct kfit_cthread *th;
};

struct kfit_export_flame {
	struct flame fl;
	struct kfit_export_src src;
	struct export_walker w;
	struct fthread *th;
	size_t nth, cap;
	const struct kfit_cthread *last;	/* the last thread added, and its frame */
	__u32 last_frame;
	bool ended;
};

struct kfit_export_flame *kfit_export_flame_new(const struct kfit_export_src *s)
{
	struct kfit_export_flame *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->src = *s;
	f->src.threads = NULL;
	f->src.nthreads = 0;
	f->w = (struct export_walker){ .enter = flame_enter, .leave = flame_leave, .c = &f->fl };
	f->fl.fcap = 64;
	f->fl.fstk = malloc(f->fl.fcap * sizeof(*f->fl.fstk));
	if (!f->fl.fstk || flame_init(&f->fl, &f->src)) {
		kfit_export_flame_free(f);
		return NULL;
	}
	return f;
}

void kfit_export_flame_free(struct kfit_export_flame *f)
{
	if (!f)
		return;
	export_flame_free(&f->fl);
	free(f->th);
	free(f->w.stk);
	free(f);
}

/* th's frame under the root: one per thread, keyed by its address */
static __u32 thread_frame(struct kfit_export_flame *f, const struct kfit_cthread *th)
{
	__u32 i, before = f->fl.n;
	struct fthread *v;
	char key[32];

	if (th == f->last)
		return f->last_frame;
	snprintf(key, sizeof(key), "%p", (const void *)th);
	i = flame_child(&f->fl, 0, key, FC_THREAD, true);
	if (!i)
		return 0;
	if (f->fl.n > before) {		/* new */
		if (f->nth == f->cap) {
			v = realloc(f->th, (f->cap ? 2 * f->cap : 16) * sizeof(*v));
			if (!v)
				return 0;
			f->th = v;
			f->cap = f->cap ? 2 * f->cap : 16;
		}
		f->th[f->nth++] = (struct fthread){ i, th };
	}
	f->last = th;
	f->last_frame = i;
	return i;
}

int kfit_export_flame_add(struct kfit_export_flame *f, const struct kfit_cthread *th,
			  const struct kfit_cnode *n, void *ctx)
{
	__u32 top;

	if (f->ended || !th)
		return -EINVAL;
	f->src.ctx = ctx;
	top = thread_frame(f, th);
	if (!top)
		return -ENOMEM;
	/* most trees are one call: its frame, with no walk */
	if (!n->child) {
		__u32 i;

		return node_frame(&f->fl, top, n, &i) < 0 ? -ENOMEM : 0;
	}
	f->fl.fstk[0] = top;
	f->fl.fsp = 1;
	return export_walk(&f->w, n, false);
}

int kfit_export_flame_call(struct kfit_export_flame *f, const struct kfit_cthread *th,
			   const char *name, bool kernel, __u64 ns, bool counted, void *ctx)
{
	__u8 cls = !f->src.kernel ? FC_CODE : kernel ? FC_KERNEL : FC_USER;
	__u32 top, i;

	if (f->ended || !th)
		return -EINVAL;
	f->src.ctx = ctx;
	top = thread_frame(f, th);
	i = top ? flame_child(&f->fl, top, name && *name ? name : "[unknown]", cls, false) : 0;
	if (!i)
		return -ENOMEM;
	f->fl.v[i].self += ns;
	/* no callee: its LOCAL is its time */
	if (counted) {
		f->fl.v[i].calls++;
		f->fl.v[i].local += ns;
	}
	return 0;
}

/* Frame i of from (and what is under it) into to under parent */
static int flame_copy(struct flame *to, __u32 parent, const struct flame *from, __u32 i)
{
	const struct fnode *v = &from->v[i];
	__u32 k = flame_child(to, parent, v->name, v->cls, v->owned);
	__u32 c;
	int err = 0;

	if (!k)
		return -ENOMEM;
	to->v[k].self += v->self;
	to->v[k].calls += v->calls;
	to->v[k].local += v->local;
	for (c = v->child; !err && c; c = from->v[c].next)
		err = flame_copy(to, k, from, c);
	return err;
}

int kfit_export_flame_end(struct kfit_export_flame *f, const struct kfit_ctree_stats *stats)
{
	struct flame to = { 0 };
	char label[40];
	size_t k;
	__u32 top, c;
	int err;

	if (f->ended)
		return 0;
	f->ended = true;
	f->src.stats = stats;
	/* the threads under the names they ended with, one frame per name */
	err = flame_init(&to, &f->src);
	for (k = 0; !err && k < f->nth; k++) {
		top = flame_child(&to, 0, export_thread_label(f->th[k].th, label, sizeof(label)),
				  FC_THREAD, true);
		if (!top)
			err = -ENOMEM;
		for (c = top ? f->fl.v[f->th[k].frame].child : 0; !err && c; c = f->fl.v[c].next)
			err = flame_copy(&to, top, &f->fl, c);
	}
	to.fstk = f->fl.fstk;
	to.fcap = f->fl.fcap;
	f->fl.fstk = NULL;
	export_flame_free(&f->fl);
	f->fl = to;
	return err ? err : flame_order(&f->fl);
}

const struct flame *export_flame_of(const struct kfit_export_flame *f)
{
	return f->ended ? &f->fl : NULL;
}

int kfit_export_flame_folded(struct kfit_export_flame *f, FILE *out)
{
	return f->ended ? folded_write(&f->fl, out) : -EINVAL;
}

/* ---- the SVG flame graph ---- */

#define SVG_FONT	12
#define SVG_CHARW	(0.59 * SVG_FONT)	/* Verdana's average advance */
#define SVG_FRAMEH	16
#define SVG_XPAD	10
#define SVG_TOP		(SVG_FONT * 4)		/* title and subtitle */
#define SVG_BOTTOM	(SVG_FONT * 2 + 10)	/* details line */

struct svg;

/* What tells a differential graph from a plain one: its frames' colours and titles */
struct svg_style {
	const char *title;	/* the default title */
	const char *name_end;	/* the script's regex of what follows the name in a title */
	void (*fill)(const struct fnode *v, int rgb[3]);
	/* the title after the name */
	void (*info)(const struct svg *g, const struct fnode *v);
	const char *(*legend)(const struct svg *g);
};

struct svg {
	FILE *f;
	const struct flame *fl;
	const struct svg_style *st;
	const struct kfit_export_svg_opts *o;
	int width, height;
	double min_px, scale;	/* px per unit of value */
	__u32 maxdepth, omitted;
	__u32 gone;		/* differential: frames of the before run only */
};

/*
 * Colours: per class a base and a span per channel, scaled by one of three
 * values taken from the name's hash, so a name keeps its colour.
 */
static const struct {
	__u8 base[3], span[3], var[3];
} palettes[] = {
	[FC_ROOT]   = { { 175, 175, 50 }, { 55, 55, 20 }, { 0, 0, 1 } },	/* yellow */
	[FC_THREAD] = { { 175, 175, 50 }, { 55, 55, 20 }, { 0, 0, 1 } },
	[FC_CODE]   = { { 205, 0, 0 }, { 50, 230, 55 }, { 2, 0, 1 } },	/* hot */
	[FC_KERNEL] = { { 190, 90, 0 }, { 65, 65, 40 }, { 0, 0, 1 } },	/* orange */
	[FC_USER]   = { { 200, 50, 50 }, { 55, 80, 80 }, { 0, 1, 1 } },	/* red */
	[FC_IRQ]    = { { 150, 90, 200 }, { 50, 50, 55 }, { 0, 0, 1 } },	/* purple */
	[FC_OFF]    = { { 80, 80, 190 }, { 60, 60, 55 }, { 0, 0, 0 } },	/* blue */
	[FC_LOST]   = { { 170, 170, 170 }, { 40, 40, 40 }, { 0, 0, 0 } },	/* grey */
};

static void plain_fill(const struct fnode *v, int rgb[3])
{
	__u32 h = kfit_strset_hash(v->name);
	double x[3] = { (h & 0xff) / 255.0, ((h >> 8) & 0xff) / 255.0,
			((h >> 16) & 0xff) / 255.0 };
	int c;

	for (c = 0; c < 3; c++)
		rgb[c] = palettes[v->cls].base[c] +
			 (int)(palettes[v->cls].span[c] * x[palettes[v->cls].var[c]]);
}

static void svg_value(const struct svg *g, __u64 v, char *buf, size_t size)
{
	if (g->fl->src->sampled)
		snprintf(buf, size, "%llu sample%s", (unsigned long long)v, v == 1 ? "" : "s");
	else
		kfit_duration_fmt(v, buf, size);
}

/* " (VALUE, P%)" */
static void plain_info(const struct svg *g, const struct fnode *v)
{
	__u64 all = g->fl->v[0].total;
	char val[32];

	svg_value(g, v->total, val, sizeof(val));
	fprintf(g->f, " (%s, %.2f%%)", val, all ? 100.0 * v->total / all : 0.0);
}

static const char *plain_legend(const struct svg *g)
{
	return g->fl->src->kernel ? "orange: kernel, red: user, purple: interrupt, "
	       "blue: off CPU, yellow: thread" : "purple: interrupt, blue: off CPU, "
	       "yellow: thread";
}

static const struct svg_style plain_style = {
	.title = "Flame Graph",
	.name_end = "/ \\([^(]*\\)$/",
	.fill = plain_fill,
	.info = plain_info,
	.legend = plain_legend,
};

/*
 * As flamegraph.pl's differential graphs: red where the frame's own time
 * grew, blue where it shrank, white where it stayed; paler the smaller
 * the change against the larger of the two, so that doubling and halving
 * are as deep, a frame new in the after run deepest
 */
static void diff_fill(const struct fnode *v, int rgb[3])
{
	__u64 hi = v->self > v->bself ? v->self : v->bself;
	double t = hi ? ((double)v->self - (double)v->bself) / hi : 0;
	int pale = 255 - (int)(210 * (t < 0 ? -t : t) + 0.5);

	rgb[0] = t < 0 ? pale : 255;
	rgb[1] = pale;
	rgb[2] = t > 0 ? pale : 255;
}

/* "before X, after Y, +N%" ("new" from 0) after lead */
static void diff_figures(FILE *f, const char *lead, __u64 a, __u64 b)
{
	char x[32], y[32], c[24];
	const char *pct = kfit_fstats_diff_pct(a, b, c, sizeof(c));

	fprintf(f, "%sbefore %s, after %s, %s", lead, kfit_duration_fmt(a, x, sizeof(x)),
		kfit_duration_fmt(b, y, sizeof(y)), pct ? pct : "new");
}

/* The width's figures, then the own time's that the colour tells */
static void diff_info(const struct svg *g, const struct fnode *v)
{
	diff_figures(g->f, ": ", v->btotal, v->total);
	if (v->bself || v->self)
		diff_figures(g->f, "; local: ", v->bself, v->self);
}

static const char *diff_legend(const struct svg *g)
{
	(void)g;
	return "widths: after; red: own time grew, blue: shrank (deeper: more), white: same";
}

static const struct svg_style diff_style = {
	.title = "Differential Flame Graph",
	.name_end = "/: before .*$/",
	.fill = diff_fill,
	.info = diff_info,
	.legend = diff_legend,
};

static void svg_frame(const struct svg *g, const struct fnode *v)
{
	double x = SVG_XPAD + v->off * g->scale, w = v->total * g->scale;
	int y = g->height - SVG_BOTTOM - (v->depth + 1) * SVG_FRAMEH;
	size_t fit = w > 6 ? (w - 6) / SVG_CHARW : 0, len;
	int rgb[3];

	g->st->fill(v, rgb);
	fputs("<g class=\"f\"><title>", g->f);
	kfit_xml_text(g->f, v->name, 0);
	g->st->info(g, v);
	fprintf(g->f, "</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
		"height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>"
		"<text x=\"%.1f\" y=\"%.1f\">",
		x, y, w, SVG_FRAMEH - 1, rgb[0], rgb[1], rgb[2], x + 3,
		y + SVG_FRAMEH / 2.0 + SVG_FONT / 3.0);
	len = kfit_utf8_chars(v->name);
	if (fit >= 3 && len <= fit) {
		kfit_xml_text(g->f, v->name, 0);
	} else if (fit >= 3) {
		kfit_xml_text(g->f, v->name, fit - 2);
		fputs("..", g->f);
	}
	fputs("</text></g>\n", g->f);
}

/* Walks the frames wide enough: draws them, or (no draw) sizes the graph */
static void svg_frames(struct svg *g, bool draw)
{
	const struct flame *fl = g->fl;
	__u32 i = 0;
	bool narrow;

	g->omitted = g->gone = 0;
	do {
		narrow = fl->v[i].total * g->scale < g->min_px;
		if (narrow && !fl->v[i].total && fl->v[i].btotal)
			g->gone += fl->v[i].nsub;	/* and its subtree, all before's */
		else if (narrow)
			g->omitted += fl->v[i].nsub;
		else if (draw)
			svg_frame(g, &fl->v[i]);
		else if (fl->v[i].depth > g->maxdepth)
			g->maxdepth = fl->v[i].depth;
		i = flame_next(fl, i, narrow);
	} while (i);
}

/*
 * Click a frame to zoom on it (its ancestors stretched, others hidden),
 * "Reset Zoom" or Escape to undo; hovering shows the title at the bottom.
 */
static const char svg_script[] =
"var W, orig = [], details, unzoom;\n"
"function init(evt) {\n"
"	var svg = document.documentElement, gs = document.querySelectorAll('g.f');\n"
"	W = +svg.getAttribute('width');\n"
"	details = document.getElementById('details');\n"
"	unzoom = document.getElementById('unzoom');\n"
"	for (var i = 0; i < gs.length; i++) {\n"
"		var r = gs[i].querySelector('rect');\n"
"		orig.push({ g: gs[i], r: r, t: gs[i].querySelector('text'),\n"
"			x: +r.getAttribute('x'), w: +r.getAttribute('width'),\n"
"			y: +r.getAttribute('y'),\n"
"			n: gs[i].querySelector('title').textContent.replace(NAME_END, '') });\n"
"		gs[i].onclick = zoom.bind(null, orig[i]);\n"
"		gs[i].onmouseover = show.bind(null, gs[i]);\n"
"		gs[i].onmouseout = show.bind(null, null);\n"
"	}\n"
"	unzoom.onclick = reset;\n"
"	document.onkeydown = function (e) { if (e.key === 'Escape') reset(); };\n"
"}\n"
"function show(g) {\n"
"	details.textContent = g ? g.querySelector('title').textContent : ' ';\n"
"}\n"
"function place(o, x, w) {\n"
"	var fit = Math.floor((w - 6) / " "7.08" "), n = o.n;\n"
"	o.r.setAttribute('x', x.toFixed(1));\n"
"	o.r.setAttribute('width', w.toFixed(1));\n"
"	o.t.setAttribute('x', (x + 3).toFixed(1));\n"
"	o.t.textContent = fit < 3 ? '' : n.length <= fit ? n : n.slice(0, fit - 2) + '..';\n"
"	o.g.style.display = '';\n"
"}\n"
"function zoom(z) {\n"
"	var k = (W - 20) / z.w;\n"
"	for (var i = 0; i < orig.length; i++) {\n"
"		var o = orig[i], e = 1e-3;\n"
"		if (o.y > z.y && o.x <= z.x + e && o.x + o.w >= z.x + z.w - e)\n"
"			place(o, 10, W - 20);\n"
"		else if (o.y <= z.y && o.x >= z.x - e && o.x + o.w <= z.x + z.w + e)\n"
"			place(o, 10 + (o.x - z.x) * k, o.w * k);\n"
"		else\n"
"			o.g.style.display = 'none';\n"
"	}\n"
"	unzoom.style.display = '';\n"
"}\n"
"function reset() {\n"
"	for (var i = 0; i < orig.length; i++)\n"
"		place(orig[i], orig[i].x, orig[i].w);\n"
"	unzoom.style.display = 'none';\n"
"}\n";

static void svg_head(const struct svg *g)
{
	const struct kfit_export_svg_opts *o = g->o;

	fprintf(g->f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
		"\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\"%s "
		"xmlns=\"http://www.w3.org/2000/svg\" "
		"xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
		"<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
		"<stop stop-color=\"#eeeeee\" offset=\"5%%\"/>"
		"<stop stop-color=\"#eeeeb0\" offset=\"95%%\"/></linearGradient></defs>\n"
		"<style type=\"text/css\">\n"
		"text { font-family: Verdana, sans-serif; font-size: %dpx; fill: rgb(0,0,0); }\n"
		"#title { text-anchor: middle; font-size: 17px; }\n"
		"#subtitle { text-anchor: middle; fill: rgb(80,80,80); }\n"
		"#unzoom { cursor: pointer; }\n"
		"g.f:hover rect { stroke: black; stroke-width: 0.5; cursor: pointer; }\n"
		"</style>\n", g->width, g->height, g->width, g->height,
		o->no_script ? "" : " onload=\"init(evt)\"", SVG_FONT);
	if (!o->no_script)
		fprintf(g->f, "<script type=\"text/ecmascript\"><![CDATA[\n"
			"var NAME_END = %s;\n%s]]></script>\n", g->st->name_end, svg_script);
	fprintf(g->f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"url(#background)\"/>\n<text id=\"title\" x=\"%d\" y=\"24\">",
		g->width, g->height, g->width / 2);
	kfit_xml_text(g->f, o->title ? o->title : g->st->title, 0);
	fputs("</text>\n", g->f);
	if (o->subtitle) {
		fprintf(g->f, "<text id=\"subtitle\" x=\"%d\" y=\"%d\">", g->width / 2,
			24 + SVG_FONT + 6);
		kfit_xml_text(g->f, o->subtitle, 0);
		fputs("</text>\n", g->f);
	}
	fprintf(g->f, "<text id=\"unzoom\" x=\"%d\" y=\"24\" style=\"display:none\">"
		"Reset Zoom</text>\n<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n",
		SVG_XPAD, SVG_XPAD, g->height - SVG_FONT - 5);
}

/* What is not drawn: narrow frames, lost records; and what the colours mean */
static void svg_foot(const struct svg *g)
{
	const struct kfit_ctree_stats *st = g->fl->src ? g->fl->src->stats : NULL;
	char note[224] = "";
	int len = 0;

	if (!g->fl->v[0].total)
		len += snprintf(note, sizeof(note), "nothing to draw");
	if (g->omitted)
		len += snprintf(note + len, sizeof(note) - len, "%u frame%s narrower "
				"than %g px not drawn", g->omitted,
				g->omitted == 1 ? "" : "s", g->min_px);
	if (g->gone)
		len += snprintf(note + len, sizeof(note) - len, "%s%u frame%s of before "
				"only not drawn", len ? "; " : "", g->gone,
				g->gone == 1 ? "" : "s");
	if (st && (st->lost || st->bad))
		len += snprintf(note + len, sizeof(note) - len, "%slost %llu record%s, "
				"%llu malformed", len ? "; " : "",
				(unsigned long long)st->lost, st->lost == 1 ? "" : "s",
				(unsigned long long)st->bad);
	fprintf(g->f, "<text x=\"%d\" y=\"%d\" style=\"text-anchor:end\">%s</text>\n",
		g->width - SVG_XPAD, g->height - SVG_FONT - 5, note);
	fprintf(g->f, "<text x=\"%d\" y=\"%d\" style=\"text-anchor:end;fill:rgb(80,80,80)\">"
		"%s</text>\n", g->width - SVG_XPAD, g->height - 3, g->st->legend(g));
}

/* The document of a built tree, in its style: what both graphs share */
static int svg_write(const struct flame *fl, const struct svg_style *st,
		     const struct kfit_export_svg_opts *o, FILE *f)
{
	struct kfit_export_svg_opts none = { 0 };
	struct svg g = { .f = f, .fl = fl, .st = st, .o = o ? o : &none };

	g.width = g.o->width > 2 * SVG_XPAD + 10 ? g.o->width : 1200;
	g.min_px = g.o->min_px > 0 ? g.o->min_px : 0.1;
	g.scale = fl->v[0].total ? (double)(g.width - 2 * SVG_XPAD) / fl->v[0].total : 0;
	if (fl->v[0].total)
		svg_frames(&g, false);
	g.height = SVG_TOP + (g.maxdepth + 1) * SVG_FRAMEH + SVG_BOTTOM;
	svg_head(&g);
	fputs("<g id=\"frames\">\n", f);
	if (fl->v[0].total)
		svg_frames(&g, true);
	fputs("</g>\n", f);
	svg_foot(&g);
	fputs("</svg>\n", f);
	return export_finish_file(f);
}

int kfit_export_svg(const struct kfit_export_src *s, const struct kfit_export_svg_opts *o,
		    FILE *f)
{
	struct flame fl;
	int err;

	err = export_flame_build(&fl, s);
	if (!err)
		err = svg_write(&fl, &plain_style, o, f);
	export_flame_free(&fl);
	return err;
}

int kfit_export_flame_svg(struct kfit_export_flame *f, const struct kfit_export_svg_opts *o,
			  FILE *out)
{
	return f->ended ? svg_write(&f->fl, &plain_style, o, out) : -EINVAL;
}

int kfit_export_diff_svg(const struct kfit_export_dpath *v, size_t n,
			 const struct kfit_export_svg_opts *o, FILE *f)
{
	struct flame fl;
	int err;

	err = flame_of_paths(&fl, v, n);
	if (!err)
		err = svg_write(&fl, &diff_style, o, f);
	export_flame_free(&fl);
	return err;
}
