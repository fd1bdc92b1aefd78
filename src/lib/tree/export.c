// SPDX-License-Identifier: GPL-2.0
/*
 * Renderers of finished call trees: folded stacks and the SVG flame graph
 * (both over one merged "flame" tree built here), and Chrome trace-event
 * JSON (straight from the call trees, in time order).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "duration.h"
#include "export.h"
#include "output.h"
#include "strset.h"
#include "treeprint.h"

static const char *node_name(const struct kfit_xsrc *s, const struct kfit_cnode *n)
{
	const char *name;

	if (n->kind == KFIT_CN_CALL && (n->flags & KFIT_RF_LOST))
		return "[lost]";
	name = s->name(s->ctx, n);
	return name && *name ? name : "[unknown]";
}

/* An interrupt: "softirq NET_RX", "hardirq 24", "nmi" */
static const char *irq_label(const struct kfit_xsrc *s, const struct kfit_cnode *n,
			     char *buf, size_t size)
{
	return kfit_ctree_irq_label(n, node_name(s, n), buf, size);
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

int kfit_xsrc_ctree(struct kfit_xsrc *s, const struct kfit_ctree *t, bool sampled)
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
	s->stats = kfit_ctree_stats(t);
	s->t0 = s->stats->first_ts;
	return 0;
}

void kfit_xsrc_release(struct kfit_xsrc *s)
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

/*
 * Depth-first walk of n and its descendants (and with all, n's next
 * siblings and theirs) on a stack of our own: enter returns < 0 to stop,
 * 0 to skip the node's children, 1 to walk them, and then leave is called
 * once they are done.
 */
struct walker {
	const struct kfit_cnode **stk;
	size_t sp, cap;
	int (*enter)(void *c, const struct kfit_cnode *n);
	void (*leave)(void *c, const struct kfit_cnode *n);
	void *c;
};

static int walk_push(struct walker *w, const struct kfit_cnode *n)
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

static int walk(struct walker *w, const struct kfit_cnode *n, bool all)
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

/* ---- the flame tree: the call trees merged by stack ---- */

enum fclass { FC_ROOT, FC_THREAD, FC_CODE, FC_KERNEL, FC_USER, FC_IRQ, FC_OFF, FC_LOST };

struct fnode {
	const char *name;
	__u64 self, total;
	__u64 off;		/* value left of it in the graph */
	__u32 parent, child, next;	/* 0: none; node 0 is the root, "all" */
	__u32 depth, nsub;	/* nsub: nodes in its subtree, itself included */
	__u8 cls;
	bool owned;		/* name allocated here */
};

struct flame {
	struct fnode *v;
	__u32 n, cap;
	__u32 *slot;		/* (parent, class, name) -> index; 0: empty */
	__u32 mask;
	const struct kfit_xsrc *src;
	__u32 *fstk;		/* frames of the nodes open in the walk */
	size_t fsp, fcap;
};

static __u32 fkey(__u32 parent, __u8 cls, const char *name)
{
	return kfit_strhash(name) ^ (parent * 0x9e3779b1U) ^ (cls * 0x85ebca6bU);
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

static int flame_init(struct flame *fl, const struct kfit_xsrc *s)
{
	fl->src = s;
	fl->cap = 256;
	fl->mask = 511;
	fl->v = calloc(fl->cap, sizeof(*fl->v));
	fl->slot = calloc(fl->mask + 1, sizeof(*fl->slot));
	if (!fl->v || !fl->slot)
		return -ENOMEM;
	fl->v[0].name = "all";
	fl->v[0].cls = FC_ROOT;
	fl->n = 1;
	return 0;
}

static void flame_free(struct flame *fl)
{
	__u32 i;

	for (i = 0; i < fl->n; i++)
		if (fl->v[i].owned)
			free((char *)fl->v[i].name);
	free(fl->v);
	free(fl->slot);
	free(fl->fstk);
}

/* The child of parent named name, added if new: its index, or 0 (ENOMEM) */
static __u32 flame_child(struct flame *fl, __u32 parent, const char *name,
			 __u8 cls, bool copy)
{
	struct fnode *v;
	__u32 *slot, i;

	slot = fslot(fl, parent, cls, name);
	if (*slot)
		return *slot;
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
	return i;
}

static __u8 code_class(const struct kfit_xsrc *s, const struct kfit_cnode *n)
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
	const struct kfit_xsrc *s = fl->src;
	char buf[64], label[48];
	__u32 i;

	switch (n->kind) {
	case KFIT_CN_CALL:
	case KFIT_CN_FRAME:
		i = flame_child(fl, parent, node_name(s, n), code_class(s, n), false);
		break;
	case KFIT_CN_IRQ:
		snprintf(buf, sizeof(buf), "[irq] %s", irq_label(s, n, label, sizeof(label)));
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

static const char *thread_label(const struct kfit_cthread *t, char *buf, size_t size)
{
	if (t->ctx != KFIT_CTX_TASK)
		snprintf(buf, size, "[%s]", kfit_ctree_ctx_name(t->ctx));
	else if (t->comm[0])
		snprintf(buf, size, "%.*s", (int)sizeof(t->comm), t->comm);
	else
		snprintf(buf, size, "tid %u", t->tid);
	return buf;
}

static int flame_thread(struct flame *fl, struct walker *w, const struct kfit_cthread *t)
{
	char label[40];
	__u32 top;

	top = flame_child(fl, 0, thread_label(t, label, sizeof(label)), FC_THREAD, true);
	if (!top)
		return -ENOMEM;
	if (fl->src->sampled)
		fl->v[top].self += t->root.self;
	fl->fstk[0] = top;
	fl->fsp = 1;
	return walk(w, t->root.child, true);
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
		fl->v[i].nsub = 1;
	}
	for (i = fl->n - 1; i > 0; i--) {	/* children come after parents */
		fl->v[fl->v[i].parent].total += fl->v[i].total;
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

static int flame_build(struct flame *fl, const struct kfit_xsrc *s)
{
	struct walker w = { .enter = flame_enter, .leave = flame_leave, .c = fl };
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

static int finish_file(FILE *f)
{
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}

int kfit_export_folded(const struct kfit_xsrc *s, FILE *f)
{
	struct flame fl;
	__u32 i;
	int err;

	err = flame_build(&fl, s);
	for (i = fl.v ? fl.v[0].child : 0; !err && i; i = flame_next(&fl, i, false))
		if (fl.v[i].self) {
			folded_path(f, &fl, i);
			fprintf(f, " %llu\n", (unsigned long long)fl.v[i].self);
		}
	flame_free(&fl);
	return err ? err : finish_file(f);
}

/* ---- the SVG flame graph ---- */

#define SVG_FONT	12
#define SVG_CHARW	(0.59 * SVG_FONT)	/* Verdana's average advance */
#define SVG_FRAMEH	16
#define SVG_XPAD	10
#define SVG_TOP		(SVG_FONT * 4)		/* title and subtitle */
#define SVG_BOTTOM	(SVG_FONT * 2 + 10)	/* details line */

struct svg {
	FILE *f;
	const struct flame *fl;
	const struct kfit_svg_opts *o;
	int width, height;
	double min_px, scale;	/* px per unit of value */
	__u32 maxdepth, omitted;
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

static void frame_color(const struct fnode *v, int rgb[3])
{
	__u32 h = kfit_strhash(v->name);
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
		kfit_fmt_duration(v, buf, size);
}

static void svg_frame(const struct svg *g, const struct fnode *v)
{
	double x = SVG_XPAD + v->off * g->scale, w = v->total * g->scale;
	int y = g->height - SVG_BOTTOM - (v->depth + 1) * SVG_FRAMEH;
	__u64 all = g->fl->v[0].total;
	size_t fit = w > 6 ? (w - 6) / SVG_CHARW : 0, len;
	char val[32];
	int rgb[3];

	svg_value(g, v->total, val, sizeof(val));
	frame_color(v, rgb);
	fputs("<g class=\"f\"><title>", g->f);
	kfit_xml_text(g->f, v->name, 0);
	fprintf(g->f, " (%s, %.2f%%)</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
		"height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>"
		"<text x=\"%.1f\" y=\"%.1f\">", val, all ? 100.0 * v->total / all : 0.0,
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

	g->omitted = 0;
	do {
		narrow = fl->v[i].total * g->scale < g->min_px;
		if (narrow)
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
"			n: gs[i].querySelector('title').textContent.replace(/ \\([^(]*\\)$/, '') });\n"
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
	const struct kfit_svg_opts *o = g->o;

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
		fprintf(g->f, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
			svg_script);
	fprintf(g->f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
		"fill=\"url(#background)\"/>\n<text id=\"title\" x=\"%d\" y=\"24\">",
		g->width, g->height, g->width / 2);
	kfit_xml_text(g->f, o->title ? o->title : "Flame Graph", 0);
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
	const struct kfit_ctree_stats *st = g->fl->src->stats;
	char note[160] = "";
	int len = 0;

	if (!g->fl->v[0].total)
		len += snprintf(note, sizeof(note), "nothing to draw");
	if (g->omitted)
		len += snprintf(note + len, sizeof(note) - len, "%u frame%s narrower "
				"than %g px not drawn", g->omitted,
				g->omitted == 1 ? "" : "s", g->min_px);
	if (st && (st->lost || st->bad))
		len += snprintf(note + len, sizeof(note) - len, "%slost %llu record%s, "
				"%llu malformed", len ? "; " : "",
				(unsigned long long)st->lost, st->lost == 1 ? "" : "s",
				(unsigned long long)st->bad);
	fprintf(g->f, "<text x=\"%d\" y=\"%d\" style=\"text-anchor:end\">%s</text>\n",
		g->width - SVG_XPAD, g->height - SVG_FONT - 5, note);
	fprintf(g->f, "<text x=\"%d\" y=\"%d\" style=\"text-anchor:end;fill:rgb(80,80,80)\">"
		"%s</text>\n", g->width - SVG_XPAD, g->height - 3,
		g->fl->src->kernel ? "orange: kernel, red: user, purple: interrupt, "
		"blue: off CPU, yellow: thread" : "purple: interrupt, blue: off CPU, "
		"yellow: thread");
}

int kfit_export_svg(const struct kfit_xsrc *s, const struct kfit_svg_opts *o,
		    FILE *f)
{
	struct kfit_svg_opts none = { 0 };
	struct svg g = { .f = f, .o = o ? o : &none };
	struct flame fl;
	int err;

	err = flame_build(&fl, s);
	if (err) {
		flame_free(&fl);
		return err;
	}
	g.fl = &fl;
	g.width = g.o->width > 2 * SVG_XPAD + 10 ? g.o->width : 1200;
	g.min_px = g.o->min_px > 0 ? g.o->min_px : 0.1;
	g.scale = fl.v[0].total ? (double)(g.width - 2 * SVG_XPAD) / fl.v[0].total : 0;
	if (fl.v[0].total)
		svg_frames(&g, false);
	g.height = SVG_TOP + (g.maxdepth + 1) * SVG_FRAMEH + SVG_BOTTOM;
	svg_head(&g);
	fputs("<g id=\"frames\">\n", f);
	if (fl.v[0].total)
		svg_frames(&g, true);
	fputs("</g>\n", f);
	svg_foot(&g);
	fputs("</svg>\n", f);
	flame_free(&fl);
	return finish_file(f);
}

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
	const struct kfit_xsrc *s;
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
	const struct kfit_xsrc *s = x->s;
	const char *cat = "call";

	if (s->kernel && !(n->flags & KFIT_RF_LOST))
		cat = s->kernel(s->ctx, n) ? "kernel" : "user";
	if (ev_slice(x, n, node_name(s, n), cat) < 0)
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

	if (ev_slice(x, n, irq_label(x->s, n, label, sizeof(label)), "irq") < 0)
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
		ev_instant(x, n, node_name(x->s, n), "tracepoint");
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
	struct walker w = { .enter = collect_enter, .leave = collect_leave, .c = x };
	const struct kfit_cnode *n;
	int err = 0;

	x->cur = t;
	for (n = t->root.child; n && t->ctx != KFIT_CTX_TASK && !err; n = n->next)
		if (n->kind != KFIT_CN_IRQ)
			err = irq_add(x, n);
	if (!err)
		err = walk(&w, t->root.child, true);
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
			thread_label(main, comm, sizeof(comm)));
	}
	for (i = 0; i < n; i++)
		ev_meta(x, "thread_name", th[i]->pid, th[i]->tid,
			thread_label(th[i], comm, sizeof(comm)));
}

static int trace_tasks(struct trace *x, const struct kfit_cthread **th, int n)
{
	struct walker w = { .enter = trace_enter, .leave = trace_leave, .c = x };
	int i, err = 0;

	x->top = NULL;
	for (i = 0; i < n && !err; i++) {
		x->pid = th[i]->pid;
		x->tid = th[i]->tid;
		err = span_track(x);
		if (!err)
			err = walk(&w, th[i]->root.child, true);
	}
	free(w.stk);
	return err;
}

/* One track per CPU and context, its interrupts in time order */
static int trace_irqs(struct trace *x)
{
	struct walker w = { .enter = trace_enter, .leave = trace_leave, .c = x };
	struct irqref *r, *first = NULL;
	char name[40];
	size_t i;
	int err = 0;

	if (!x->nirqs)
		return 0;
	qsort(x->irqs, x->nirqs, sizeof(*x->irqs), irq_cmp);
	ev_meta(x, "process_name", KFIT_XIRQ_PID, KFIT_XIRQ_PID, "interrupts");
	x->pid = KFIT_XIRQ_PID;
	for (i = 0; i < x->nirqs && !err; i++) {
		r = &x->irqs[i];
		if (!first || r->cpu != first->cpu || r->ctx != first->ctx) {
			first = r;
			x->tid = KFIT_XIRQ_PID + 1 + r->cpu * KFIT_NCTX + r->ctx;
			snprintf(name, sizeof(name), "%s cpu %u", kfit_ctree_ctx_name(r->ctx),
				 r->cpu);
			ev_meta(x, "thread_name", x->pid, x->tid, name);
			err = span_track(x);
		}
		x->top = r->n;
		x->cur = r->t;
		if (!err)
			err = walk(&w, r->n, false);
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

int kfit_export_perfetto(const struct kfit_xsrc *s, FILE *f)
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
	return err ? err : finish_file(f);
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
	const struct kfit_xsample *x = *(const struct kfit_xsample *const *)a;
	const struct kfit_xsample *y = *(const struct kfit_xsample *const *)b;

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
static int tl_sample(struct stimeline *tl, const struct kfit_xsample *prev,
		     const struct kfit_xsample *s, __u64 period)
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
		     const struct kfit_xsample *const *s, size_t n, __u64 t0, __u64 period)
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

int kfit_export_perfetto_samples(const struct kfit_xsample *v, size_t n, __u64 t0,
				 __u64 period_ns, FILE *f)
{
	const struct kfit_xsample **s = malloc((n + 1) * sizeof(*s));
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
		const struct kfit_xsample *main = s[i];

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
	return err ? err : finish_file(f);
}
