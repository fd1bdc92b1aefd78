// SPDX-License-Identifier: GPL-2.0
/* bootsum's SVG timeline report (bootrep.h); what the reports share: bootrep_int.h */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bootrep_int.h"

/* ---- SVG ---- */

#define SVG_W		1600
#define SVG_X0		10
#define SVG_X1		(SVG_W - 10)
#define SVG_ROWH	14
#define SVG_BARH	12
#define SVG_CHARW	6.5	/* 11 px Verdana's average advance */
#define SVG_LABEL	48	/* longest label, characters */
#define SVG_HEADH	22	/* a section's heading */

/* Greedy first fit of [x, xe) px intervals into rows */
struct packer {
	double *end;
	size_t n, cap;
};

/* The row given to [x, xe), or -1 (out of memory) */
static long pack(struct packer *pk, double x, double xe)
{
	double *v;
	size_t r;

	for (r = 0; r < pk->n; r++)
		if (pk->end[r] <= x) {
			pk->end[r] = xe;
			return r;
		}
	if (pk->n == pk->cap) {
		v = realloc(pk->end, (pk->cap * 2 + 16) * sizeof(*v));
		if (!v)
			return -1;
		pk->end = v;
		pk->cap = pk->cap * 2 + 16;
	}
	pk->end[pk->n] = xe;
	return pk->n++;
}

/* One bar: where, its row, where its label goes */
struct sbar {
	double x, w;
	__u32 row;
	__u8 label;		/* 0 none, 1 inside, 2 right of the bar, 3 left of it */
};

struct svg {
	FILE *f;
	const struct kfit_bootlog *k;
	const struct kfit_bootrep_user *u;
	const struct kfit_bootrep_opts *o;
	__u64 t_end;		/* kernel clock at the right edge */
	double scale;		/* px per ns */
	struct sbar *calls, *procs, *mods;
	__u32 *order;		/* processes in parent order */
	size_t norder;
	size_t krows, prows, mrows;
	struct kfit_bootrep_link *chain;
	size_t nchain;
	struct bootrep_waitidx wi;
	bool have_wi;
	int y_kernel, y_user, y_mods, y_foot, height;
};

static double sx(const struct svg *g, __u64 t)
{
	return SVG_X0 + t * g->scale;
}

static double label_px(const char *s)
{
	size_t n = kfit_utf8_chars(s);

	return (n < SVG_LABEL ? n : SVG_LABEL) * SVG_CHARW + 6;
}

/* Places bar B over [t0, t1] with LABEL; NOTABLE ones get theirs outside */
static int place(struct packer *pk, const struct svg *g, struct sbar *b,
		 __u64 t0, __u64 t1, const char *label, bool notable)
{
	double lw = label_px(label), xe;
	long r;

	b->x = sx(g, t0);
	b->w = t1 > t0 ? (t1 - t0) * g->scale : 0;
	double x0 = b->x;

	b->label = b->w >= lw ? 1 : notable ? 2 : 0;
	/* at the right edge a label goes to the left of its bar */
	if (b->label == 2 && b->x + b->w + lw + 2 > SVG_X1)
		b->label = 3;
	xe = b->x + b->w + (b->label == 2 ? lw + 2 : 0);
	if (b->label == 3)
		x0 = b->x - lw - 2;
	r = pack(pk, x0, xe > b->x ? xe : b->x + 1e-9);
	if (r < 0)
		return -ENOMEM;
	b->row = r;
	return 0;
}

static __u64 call_end(const struct svg *g, const struct kfit_bootlog_initcall *c)
{
	if (c->finished)
		return c->end_ns ? c->end_ns : c->start_ns + c->dur_ns;
	return g->t_end;
}

static int layout_calls(struct svg *g)
{
	const struct kfit_bootlog *k = g->k;
	struct packer pk = { 0 };
	bool *notable;
	size_t i, n;
	__u32 *v;
	char name[128];
	int err = 0;

	if (!k || !k->ncalls)
		return 0;
	g->calls = calloc(k->ncalls, sizeof(*g->calls));
	notable = calloc(k->ncalls, sizeof(*notable));
	v = bootrep_slow_calls(k, g->o->min_ns, &n);
	if (!g->calls || !notable || !v) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n && i < bootrep_top(g->o); i++)
		notable[v[i]] = true;
	for (i = 0; i < k->ncalls && !err; i++) {
		const struct kfit_bootlog_initcall *c = &k->calls[i];

		err = place(&pk, g, &g->calls[i], c->start_ns, call_end(g, c),
			    bootrep_call_name(name, sizeof(name), c),
			    notable[i] || !c->finished);
	}
	g->krows = pk.n;
out:
	free(pk.end);
	free(notable);
	free(v);
	return err;
}

/* Processes in parent order: each after its parent, siblings by index */
static int proc_order(struct svg *g)
{
	const struct kfit_bootrep_user *u = g->u;
	__u32 *child, *next, *stack, i, sp = 0, c;
	int err = 0;

	g->order = calloc(u->nprocs, sizeof(*g->order));
	child = malloc(u->nprocs * sizeof(*child));
	next = malloc(u->nprocs * sizeof(*next));
	stack = malloc(u->nprocs * sizeof(*stack));
	if (!g->order || !child || !next || !stack) {
		err = -ENOMEM;
		goto out;
	}
	memset(child, 0xff, u->nprocs * sizeof(*child));
	/* children listed last to first, so pushing them pops the first first */
	for (i = 0; i < u->nprocs; i++) {
		__u32 p = u->procs[i].parent_idx;

		next[i] = BS_NONE;
		if (p < i) {
			next[i] = child[p];
			child[p] = i;
		}
	}
	for (i = 0; i < u->nprocs; i++) {
		if (u->procs[i].parent_idx < i)
			continue;
		stack[sp++] = i;
		while (sp) {
			c = stack[--sp];
			g->order[g->norder++] = c;
			for (c = child[c]; c != BS_NONE; c = next[c])
				stack[sp++] = c;
		}
	}
out:
	free(child);
	free(next);
	free(stack);
	return err;
}

static __u64 proc_svg_end(const struct svg *g, const struct bs_proc *p)
{
	__u64 e = bootrep_kt(g->u, bootrep_proc_end(g->u, p));

	return bootrep_proc_alive(p) || e > g->t_end ? g->t_end : e;
}

static int layout_procs(struct svg *g)
{
	const struct kfit_bootrep_user *u = g->u;
	struct packer pk = { 0 };
	char cmd[BS_ARGS + 8];
	double min_w = 2 / g->scale;
	size_t i;
	int err;

	if (!u || !u->nprocs)
		return 0;
	g->procs = calloc(u->nprocs, sizeof(*g->procs));
	if (!g->procs || proc_order(g))
		return -ENOMEM;
	err = 0;
	for (i = 0; i < g->norder && !err; i++) {
		const struct bs_proc *p = &u->procs[g->order[i]];
		__u64 t0 = bootrep_kt(u, p->fork_ns), t1 = proc_svg_end(g, p);

		err = place(&pk, g, &g->procs[g->order[i]], t0, t1,
			    kfit_bootrep_cmdline(p, cmd, sizeof(cmd)),
			    t1 - t0 >= min_w || bootrep_proc_alive(p));
	}
	g->prows = pk.n;
	free(pk.end);
	return err;
}

static int layout_mods(struct svg *g)
{
	const struct kfit_bootrep_user *u = g->u;
	struct packer pk = { 0 };
	char name[BS_MODNAME + 1];
	size_t i;
	int err = 0;

	if (!u || !u->nmods)
		return 0;
	g->mods = calloc(u->nmods, sizeof(*g->mods));
	if (!g->mods)
		return -ENOMEM;
	for (i = 0; i < u->nmods && !err; i++) {
		const struct bs_mod *m = &u->mods[i];
		__u64 end = m->init_end_ns > m->load_ns ? m->init_end_ns : m->load_ns;

		snprintf(name, sizeof(name), "%.*s", BS_MODNAME, m->name);
		err = place(&pk, g, &g->mods[i], bootrep_kt(u, m->load_ns), bootrep_kt(u, end), name, true);
	}
	g->mrows = pk.n;
	free(pk.end);
	return err;
}

/* The right edge: the last thing recorded in either phase */
static __u64 svg_end(const struct kfit_bootlog *k, const struct kfit_bootrep_user *u)
{
	__u64 end = 0;
	size_t i;

	if (k) {
		end = k->last_ns > k->init_ns ? k->last_ns : k->init_ns;
		for (i = 0; i < k->ncalls; i++)
			if (k->calls[i].finished && k->calls[i].start_ns + k->calls[i].dur_ns > end)
				end = k->calls[i].start_ns + k->calls[i].dur_ns;
	}
	if (u && bootrep_kt(u, bootrep_user_last(u)) > end)
		end = bootrep_kt(u, bootrep_user_last(u));
	return end ? end : KFIT_SEC;
}

static int svg_layout(struct svg *g)
{
	int y;

	g->t_end = svg_end(g->k, g->u);
	g->scale = (double)(SVG_X1 - SVG_X0) / g->t_end;
	if (layout_calls(g) || layout_procs(g) || layout_mods(g))
		return -ENOMEM;
	if (g->u && g->u->nprocs) {
		g->chain = calloc(g->u->nprocs + g->u->nwaits + 1, sizeof(*g->chain));
		if (!g->chain || bootrep_waitidx_build(&g->wi, g->u))
			return -ENOMEM;
		g->have_wi = true;
		g->nchain = kfit_bootrep_chain(g->u, g->o->chain_target, g->chain,
					    g->u->nprocs + g->u->nwaits + 1);
	}
	y = 80;
	g->y_kernel = y;
	y += SVG_HEADH + 16 + (g->krows ? g->krows : 1) * SVG_ROWH + 8;
	g->y_user = y;
	y += SVG_HEADH + (g->prows ? g->prows : 1) * SVG_ROWH + 8;
	g->y_mods = y;
	y += SVG_HEADH + (g->mrows ? g->mrows : 1) * SVG_ROWH + 8;
	g->y_foot = y;
	g->height = y + 44;
	return 0;
}

static void svg_free(struct svg *g)
{
	free(g->calls);
	free(g->procs);
	free(g->mods);
	free(g->order);
	free(g->chain);
	if (g->have_wi)
		bootrep_waitidx_free(&g->wi);
}

static const char svg_style[] =
"<style type=\"text/css\">\n"
"text { font-family: Verdana, sans-serif; font-size: 11px; fill: #000; }\n"
"text.t { font-size: 16px; font-weight: bold; }\n"
"text.s { fill: #444; }\n"
"text.h { font-size: 13px; font-weight: bold; }\n"
"text.ax { fill: #555; text-anchor: middle; }\n"
"text.lv { fill: #336; text-anchor: middle; font-size: 10px; }\n"
"line.g { stroke: #ccc; stroke-width: 0.5; }\n"
"line.mk { stroke: #c00; stroke-width: 1; stroke-dasharray: 4 3; }\n"
"line.cl { stroke: #d00; stroke-width: 0.8; stroke-opacity: 0.6; }\n"
"rect.b0 { fill: #e6ecf7; } rect.b1 { fill: #f4f0e2; }\n"
"rect.i { fill: #e39b3a; } rect.if { fill: #d03a3a; } rect.iu { fill: #b05cc0; }\n"
"rect.p { fill: #6d9fd6; } rect.pf { fill: #d66d6d; } rect.pa { fill: #7fbf6a; }\n"
"rect.w { fill: #fff; fill-opacity: 0.55; }\n"
"rect.c { fill: none; stroke: #d00; stroke-width: 1.2; }\n"
"rect.m { fill: #9a6cc4; }\n"
"rect:hover { stroke: #000; stroke-width: 0.7; }\n"
"</style>\n";

static void svg_text(const struct svg *g, double x, int y, const char *cls,
		     const char *s, size_t max)
{
	fprintf(g->f, "<text x=\"%.1f\" y=\"%d\"%s%s%s>", x, y, cls ? " class=\"" : "",
		cls ? cls : "", cls ? "\"" : "");
	kfit_xml_text(g->f, s, max);
	if (max && kfit_utf8_chars(s) > max)
		fputs("..", g->f);
	fputs("</text>\n", g->f);
}

static void svg_head(const struct svg *g)
{
	char line[512], ver[64], b[32];
	int len;

	fprintf(g->f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n%s"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
		SVG_W, g->height, SVG_W, g->height, svg_style, SVG_W, g->height);
	bootrep_kernel_version(ver, sizeof(ver), g->k);
	len = snprintf(line, sizeof(line), "Boot%s%s", ver[0] ? " of " : "", ver);
	if (g->k && g->k->init_ns)
		len += snprintf(line + len, sizeof(line) - len, ": kernel %s s to %s",
				bootrep_fix3(b, sizeof(b), g->k->init_ns, KFIT_SEC),
				g->k->init_path[0] ? g->k->init_path : "the first process");
	if (g->u)
		snprintf(line + len, sizeof(line) - len, "%s user space %s s recorded",
			 g->k && g->k->init_ns ? "," : ":", bootrep_fix3(b, sizeof(b),
			 bootrep_user_last(g->u) - g->u->meta.early_ns, KFIT_SEC));
	svg_text(g, SVG_X0, 22, "t", line, 0);
	len = snprintf(line, sizeof(line), "kernel phase: %s", g->k ? bootrep_src_desc(g->k) :
		       "not recorded");
	if (g->k && g->o->note)
		len += snprintf(line + len, sizeof(line) - len, " (%s)", g->o->note);
	if (g->k && !g->k->complete)
		len += snprintf(line + len, sizeof(line) - len, "; incomplete: %s", g->k->why);
	if (!g->u)
		snprintf(line + len, sizeof(line) - len, "; user space not recorded");
	else if (!g->u->offset_known)
		snprintf(line + len, sizeof(line) - len, "; (user times on the boot clock; "
			 "kernel offset unknown)");
	svg_text(g, SVG_X0, 40, "s", line, 0);
}

/* A tick every 1, 2 or 5 times a power of ten, at least 70 px apart */
static void svg_axis(const struct svg *g)
{
	static const unsigned int mult[] = { 1, 2, 5 };
	__u64 base = KFIT_MSEC, step = 0, t;
	int i, dec;
	char b[32];

	while (!step) {
		for (i = 0; i < 3 && !step; i++)
			if (base * mult[i] * g->scale >= 70)
				step = base * mult[i];
		base *= 10;
	}
	/* decimals the step needs: 1 s -> 0, 0.5 s -> 1, 0.02 s -> 2 */
	dec = step >= KFIT_SEC ? 0 : step >= 100 * KFIT_MSEC ? 1 : step >= 10 * KFIT_MSEC ? 2 : 3;
	for (t = 0; t <= g->t_end; t += step) {
		double x = sx(g, t);

		fprintf(g->f, "<line class=\"g\" x1=\"%.1f\" y1=\"56\" x2=\"%.1f\" y2=\"%d\"/>\n",
			x, x, g->y_foot);
		bootrep_fix3(b, sizeof(b), t, KFIT_SEC);
		b[strlen(b) - (dec ? 3 - dec : 4)] = 0;
		fprintf(g->f, "<text class=\"ax\" x=\"%.1f\" y=\"66\">%s s</text>\n", x, b);
	}
}

static void svg_mark(const struct svg *g, __u64 t, const char *what)
{
	double x = sx(g, t);
	char b[32];

	fprintf(g->f, "<line class=\"mk\" x1=\"%.1f\" y1=\"70\" x2=\"%.1f\" y2=\"%d\"/>\n"
		"<text x=\"%.1f\" y=\"%d\" style=\"fill:#c00\">", x, x, g->y_foot, x + 3,
		g->y_foot - 4);
	kfit_xml_text(g->f, what, 0);
	fprintf(g->f, " %s s</text>\n", bootrep_fix3(b, sizeof(b), t, KFIT_SEC));
}

/* A bar's label, inside it or to its right (room reserved by place) */
static void svg_label(const struct svg *g, const struct sbar *b, int y0,
		      const char *label)
{
	int y = y0 + b->row * SVG_ROWH;
	double lx = b->label == 1 ? b->x + 3 : b->x + b->w + 2;
	size_t fit = b->label == 1 ? (b->w - 6) / SVG_CHARW : SVG_LABEL;

	if (!b->label)
		return;
	if (b->label == 3) {
		fprintf(g->f, "<text x=\"%.1f\" y=\"%d\" style=\"text-anchor:end\">",
			b->x - 2, y + SVG_BARH - 2);
		kfit_xml_text(g->f, label, SVG_LABEL);
		fputs(kfit_utf8_chars(label) > SVG_LABEL ? "..</text>\n" : "</text>\n", g->f);
		return;
	}
	svg_text(g, lx, y + SVG_BARH - 2, NULL, label, fit < SVG_LABEL ? fit : SVG_LABEL);
}

/* A bar, up to its <title>'s text (the caller writes it and closes) */
static void svg_rect(const struct svg *g, const struct sbar *b, int y0, const char *cls)
{
	fprintf(g->f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.2f\" height=\"%d\" class=\"%s\">"
		"<title>", b->x, y0 + (int)b->row * SVG_ROWH, b->w > 0.4 ? b->w : 0.4,
		SVG_BARH, cls);
}

/* The bands first, then their names over them */
static void svg_levels(const struct svg *g, int y0, int y1)
{
	const struct kfit_bootlog *k = g->k;
	double free_x = 0, lw, x, w;
	char b[3][32];
	size_t i;

	for (i = 0; i < k->nlevels; i++) {
		const struct kfit_bootlog_initlevel *l = &k->levels[i];

		if (l->end_ns < l->start_ns)
			continue;
		w = (l->end_ns - l->start_ns) * g->scale;
		fprintf(g->f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
			"class=\"b%zu\"><title>level ", sx(g, l->start_ns), y0,
			w > 0.4 ? w : 0.4, y1 - y0, i % 2);
		kfit_xml_text(g->f, l->name, 0);
		fprintf(g->f, ": %s to %s s, %u initcalls, %s ms in them</title></rect>\n",
			bootrep_fix3(b[0], 32, l->start_ns, KFIT_SEC), bootrep_fix3(b[1], 32, l->end_ns, KFIT_SEC),
			l->n, bootrep_fix3(b[2], 32, l->sum_ns, KFIT_MSEC));
	}
	/* names centred in their band, else from its start when that is free */
	for (i = 0; i < k->nlevels; i++) {
		const struct kfit_bootlog_initlevel *l = &k->levels[i];

		if (l->end_ns < l->start_ns)
			continue;
		x = sx(g, l->start_ns);
		w = (l->end_ns - l->start_ns) * g->scale;
		lw = label_px(l->name);
		if (w >= lw && x + w / 2 - lw / 2 >= free_x) {
			svg_text(g, x + w / 2, y0 + 11, "lv", l->name, 0);
			free_x = x + w / 2 + lw / 2;
		} else if (x >= free_x) {
			fprintf(g->f, "<text x=\"%.1f\" y=\"%d\" class=\"lv\" "
				"style=\"text-anchor:start\">", x + 1, y0 + 11);
			kfit_xml_text(g->f, l->name, 0);
			fputs("</text>\n", g->f);
			free_x = x + 1 + lw;
		}
	}
}

static void svg_kernel(const struct svg *g)
{
	const struct kfit_bootlog *k = g->k;
	int y0 = g->y_kernel + SVG_HEADH, rows = y0 + 16;
	char name[128], b[3][32], head[160];
	size_t i;

	if (!k) {
		svg_text(g, SVG_X0, g->y_kernel + 14, "h", "Kernel phase: not recorded", 0);
		return;
	}
	snprintf(head, sizeof(head), "Kernel: %zu initcalls%s", k->ncalls, k->nlevels ?
		 ", levels shaded" : "");
	svg_text(g, SVG_X0, g->y_kernel + 14, "h", head, 0);
	if (!k->ncalls)
		svg_text(g, SVG_X0, rows + 10, "s", "no initcalls in the record "
			 "(boot with initcall_debug or trace_event=initcall:*)", 0);
	svg_levels(g, y0, g->y_user - 4);
	for (i = 0; i < k->ncalls; i++) {
		const struct kfit_bootlog_initcall *c = &k->calls[i];
		const char *cls = !c->finished ? "iu" : c->ret ? "if" : "i";

		bootrep_call_name(name, sizeof(name), c);
		svg_rect(g, &g->calls[i], rows, cls);
		kfit_xml_text(g->f, name, 0);
		if (c->level[0])
			fprintf(g->f, " (%s)", c->level);
		if (c->finished)
			fprintf(g->f, ": %s ms from %s s, ret %s</title></rect>\n",
				bootrep_fix3(b[0], 32, c->dur_ns, KFIT_MSEC),
				bootrep_fix3(b[1], 32, c->start_ns, KFIT_SEC),
				bootrep_ret_str(b[2], 32, c->ret));
		else
			fprintf(g->f, ": from %s s, no return in the record</title></rect>\n",
				bootrep_fix3(b[1], 32, c->start_ns, KFIT_SEC));
		svg_label(g, &g->calls[i], rows, name);
	}
}

/* Its blocked intervals at least a pixel wide, merged where they touch */
static void svg_waits(const struct svg *g, __u32 idx, int y)
{
	const struct kfit_bootrep_user *u = g->u;
	double x0 = -1, x1 = -1, a, e;
	__u32 k;

	for (k = g->wi.first[idx]; k < g->wi.first[idx + 1]; k++) {
		const struct bs_wait *w = &u->waits[g->wi.order[k]];

		if (w->waker_kind == BS_W_NEW || w->end_ns <= w->start_ns)
			continue;
		a = sx(g, bootrep_kt(u, w->start_ns));
		e = sx(g, bootrep_kt(u, w->end_ns));
		if (e - a < 1)
			continue;
		if (x1 >= 0 && a <= x1 + 0.5) {
			if (e > x1)
				x1 = e;
			continue;
		}
		if (x1 >= 0)
			fprintf(g->f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				"class=\"w\"/>\n", x0, y + 3, x1 - x0, SVG_BARH - 6);
		x0 = a;
		x1 = e;
	}
	if (x1 >= 0)
		fprintf(g->f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
			"class=\"w\"/>\n", x0, y + 3, x1 - x0, SVG_BARH - 6);
}

static void svg_proc(const struct svg *g, __u32 i, int y0)
{
	const struct kfit_bootrep_user *u = g->u;
	const struct bs_proc *p = &u->procs[i];
	const char *cls = bootrep_proc_alive(p) ? "pa" : p->exit_code ? "pf" : "p";
	char cmd[BS_ARGS + 8], b[6][32];

	kfit_bootrep_cmdline(p, cmd, sizeof(cmd));
	svg_rect(g, &g->procs[i], y0, cls);
	kfit_xml_text(g->f, cmd, 0);
	fprintf(g->f, " (pid %u, ppid %u): %s s, %s ms%s, exit %s; cpu %s ms, runq %s ms, "
		"blocked %s ms; io %llu/%llu KiB r/w</title></rect>\n", p->pid, p->ppid,
		bootrep_fix3(b[0], 32, bootrep_kt(u, p->fork_ns), KFIT_SEC),
		bootrep_fix3(b[1], 32, bootrep_proc_dur(u, p), KFIT_MSEC), bootrep_proc_alive(p) ? " so far" : "",
		bootrep_exit_str(b[2], 32, p), bootrep_fix3(b[3], 32, p->oncpu_ns, KFIT_MSEC),
		bootrep_fix3(b[4], 32, p->runnable_ns, KFIT_MSEC),
		bootrep_fix3(b[5], 32, p->blocked_ns, KFIT_MSEC), bootrep_kib(p->rd_bytes), bootrep_kib(p->wr_bytes));
	svg_waits(g, i, y0 + g->procs[i].row * SVG_ROWH);
	svg_label(g, &g->procs[i], y0, cmd);
}

/*
 * The chain: each link's part outlined, a line to the process it came
 * from. Links under a pixel are not outlined and lines within a pixel of
 * the last are left out: a shell waiting on thousands of short children
 * would draw the same pixels thousands of times.
 */
static void svg_chain(const struct svg *g, int y0)
{
	const struct kfit_bootrep_user *u = g->u;
	double last = -10;
	size_t i;

	for (i = 0; i < g->nchain; i++) {
		const struct kfit_bootrep_link *l = &g->chain[i];
		double x = sx(g, bootrep_kt(u, l->from_ns)), e = sx(g, bootrep_kt(u, l->to_ns));
		int y = y0 + g->procs[l->idx].row * SVG_ROWH;

		if (e > SVG_X1)
			e = SVG_X1;
		if (e - x >= 1 || i == 0)
			fprintf(g->f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
				"class=\"c\"/>\n", x, y, e - x > 0.5 ? e - x : 0.5, SVG_BARH);
		if (i + 1 == g->nchain || (x > last - 1 && x < last + 1))
			continue;
		fprintf(g->f, "<line class=\"cl\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
			"y2=\"%d\"/>\n", x, y + SVG_BARH / 2, x, y0 +
			(int)g->procs[g->chain[i + 1].idx].row * SVG_ROWH + SVG_BARH / 2);
		last = x;
	}
}

static void svg_user(const struct svg *g)
{
	const struct kfit_bootrep_user *u = g->u;
	int y0 = g->y_user + SVG_HEADH;
	char head[200];
	size_t i;

	if (!u) {
		svg_text(g, SVG_X0, g->y_user + 14, "h", "User space: not recorded "
			 "(boot with bootsum --early as the first process)", 0);
		return;
	}
	snprintf(head, sizeof(head), "User space: %zu processes (parent order; red: the "
		 "critical chain; light: blocked; green: still running; red fill: "
		 "exit status not 0)", u->nprocs);
	svg_text(g, SVG_X0, g->y_user + 14, "h", head, 0);
	if (!u->nprocs)
		svg_text(g, SVG_X0, y0 + 10, "s", "no processes recorded", 0);
	for (i = 0; i < g->norder; i++)
		svg_proc(g, g->order[i], y0);
	svg_chain(g, y0);
}

static void svg_mods(const struct svg *g)
{
	const struct kfit_bootrep_user *u = g->u;
	int y0 = g->y_mods + SVG_HEADH;
	char name[BS_MODNAME + 1], sym[BS_SYM + 1], b[3][32];
	size_t i;

	svg_text(g, SVG_X0, g->y_mods + 14, "h", "Modules: load to the end of init", 0);
	if (!u || !u->nmods) {
		svg_text(g, SVG_X0, y0 + 10, "s", u ? "none loaded" : "not recorded", 0);
		return;
	}
	for (i = 0; i < u->nmods; i++) {
		const struct bs_mod *m = &u->mods[i];
		bool ran = m->init_start_ns && m->init_end_ns >= m->init_start_ns;

		snprintf(name, sizeof(name), "%.*s", BS_MODNAME, m->name);
		snprintf(sym, sizeof(sym), "%.*s", BS_SYM, m->init_sym);
		svg_rect(g, &g->mods[i], y0, "m");
		kfit_xml_text(g->f, name, 0);
		fputs(" (", g->f);
		kfit_xml_text(g->f, sym[0] ? sym : "?", 0);
		fprintf(g->f, "): loaded at %s s by pid %u", bootrep_fix3(b[0], 32, bootrep_kt(u, m->load_ns),
			KFIT_SEC), m->pid);
		if (ran)
			fprintf(g->f, ", init %s ms, ret %s", bootrep_fix3(b[1], 32, m->init_end_ns -
				m->init_start_ns, KFIT_MSEC), bootrep_ret_str(b[2], 32, m->ret));
		fputs("</title></rect>\n", g->f);
		svg_label(g, &g->mods[i], y0, name);
	}
}

static void svg_foot(const struct svg *g)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (m) {
		bootrep_lost_text(m, g->k, g->u);
		fclose(m);
	}
	if (buf && len && buf[len - 1] == '\n')
		buf[len - 1] = 0;
	if (buf && buf[0])
		svg_text(g, SVG_X0, g->y_foot + 16, "s", buf, 0);
	svg_text(g, SVG_X0, g->y_foot + 32, "s", "Hover a bar for its details. Times: "
		 "seconds on the kernel clock (printk/trace); bars: orange initcall, red "
		 "failed, purple unfinished; blue process, green running, purple module", 0);
	free(buf);
}

int kfit_bootrep_svg(FILE *f, const struct kfit_bootlog *k,
		     const struct kfit_bootrep_user *u, const struct kfit_bootrep_opts *o)
{
	struct svg g = { .f = f, .k = k, .u = u, .o = o ? o : &bootrep_default_opts };
	int err = svg_layout(&g);

	if (err) {
		svg_free(&g);
		return err;
	}
	svg_head(&g);
	svg_axis(&g);
	svg_kernel(&g);
	svg_user(&g);
	svg_mods(&g);
	if (k && k->init_ns)
		svg_mark(&g, k->init_ns, k->init_path[0] ? k->init_path : "/init");
	svg_foot(&g);
	fputs("</svg>\n", f);
	svg_free(&g);
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}
