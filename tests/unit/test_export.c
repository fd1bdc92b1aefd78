// SPDX-License-Identifier: GPL-2.0
/*
 * The renderers of export.c over trees built by hand from calltree.h's
 * public structs: folded stacks compared line by line, SVG checked by
 * xmllint and by its frames, Perfetto JSON by tests/helpers/perfetto_check
 * and by the events expected. KFIT_SVG_OUT=FILE also keeps the sample
 * flame graph of test_svg_sample (tests/live/test_svg_render.sh uses it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "export.h"
#include "testlib.h"

/* ---- trees by hand ---- */

#define POOL 4096

static struct kfit_cnode nodes[POOL];
static struct t_pool pool = { nodes, 0, POOL };

static const char *const funcs[] = {
	"vfs_read", "rw_verify_area", "security_file_permission",
	"net_rx_action", "run_timer_softirq",	/* 0-4: kernel */
	"weird;name x", "loop", "op<int>&'\"",	/* 5-: user */
};

#define NFUNCS (sizeof(funcs) / sizeof(funcs[0]))

static const char *const events[] = { "sched:sched_wakeup" };

/* The names of hand-built nodes, as callgraph's (testlib's decoder) */
static int names_setup(void **state)
{
	(void)state;
	return t_names_setup(funcs, NFUNCS, events, 1);
}

static int names_teardown(void **state)
{
	(void)state;
	t_names_teardown();
	return 0;
}

/* Functions 0-4 are the kernel's; a FRAME's id says it (as the decoder sets it) */
static bool kernel(void *ctx, const struct kfit_cnode *n)
{
	(void)ctx;
	return n->kind == KFIT_CN_FRAME ? n->id : n->id < 5;
}

static struct kfit_cnode *add(struct kfit_cnode *parent, __u8 kind, __u32 id,
			      __u64 start, __u64 dur)
{
	return t_node(&pool, parent, kind, id, start, dur, 0);
}

static struct kfit_cnode *call(struct kfit_cnode *parent, __u32 id, __u64 start, __u64 dur)
{
	return add(parent, KFIT_CN_CALL, id, start, dur);
}

/*
 * reader (100/100): vfs_read [1000, 11000) with rw_verify_area and its
 * security_file_permission, 3 us blocked, a NET_RX softirq of cpu 1 with
 * net_rx_action, a wakeup event; vfs_read again; exit.
 * worker (100/101): "weird;name x", an incomplete loop, "op<int>&'\"".
 * softirq cpu 0 (--no-interlace style): TIMER with run_timer_softirq.
 */
struct fixture {
	struct kfit_cthread th[3];
	const struct kfit_cthread *ptr[3];
	struct kfit_export_src src;
};

static void build_exact(struct fixture *fx)
{
	struct kfit_cnode *r, *c, *irq;
	int i;

	pool.used = 0;
	t_thread_init(&fx->th[0], 100, 100, "reader");
	t_thread_init(&fx->th[1], 100, 101, "worker");
	t_thread_init(&fx->th[2], 0, 0, "");
	fx->th[2].ctx = KFIT_CTX_SOFTIRQ;
	fx->th[2].root.ctx = KFIT_CTX_SOFTIRQ;

	r = &fx->th[0].root;
	c = call(r, 0, 1000, 10000);
	c->local = 4000;
	call(call(c, 1, 1100, 2000), 2, 1200, 500);
	add(c, KFIT_CN_SWITCH, 1, 4000, 3000);
	irq = add(c, KFIT_CN_IRQ, 3, 8000, 1000);
	irq->ctx = KFIT_CTX_SOFTIRQ;
	irq->cpu = 1;
	irq->ncalls = 1;
	call(irq, 3, 8100, 800);
	add(c, KFIT_CN_EVENT, 0, 9500, 0);
	call(r, 0, 20000, 1000);
	add(r, KFIT_CN_EXIT, 0, 30000, 0);

	r = &fx->th[1].root;
	call(r, 5, 5000, 700);
	c = call(r, 6, 6000, 4000);
	c->flags = KFIT_RF_INCOMPLETE | KFIT_RF_END;
	call(r, 7, 11000, 300);

	r = &fx->th[2].root;
	irq = add(r, KFIT_CN_IRQ, 1, 2000, 300);
	call(irq, 4, 2050, 200);

	for (i = 0; i < 3; i++)
		fx->ptr[i] = &fx->th[i];
	memset(&fx->src, 0, sizeof(fx->src));
	fx->src.threads = fx->ptr;
	fx->src.nthreads = 3;
	fx->src.name = t_names;
	fx->src.kernel = kernel;
}

/* busy (pid 200): main -> compute -> asm_sysvec_apic_timer_interrupt */
static void build_sampled(struct fixture *fx)
{
	struct kfit_cnode *m, *c, *k;

	pool.used = 0;
	t_thread_init(&fx->th[0], 200, 200, "busy");
	fx->th[0].samples = 10;
	m = add(&fx->th[0].root, KFIT_CN_FRAME, 0, 0, 0);
	m->name = "main";
	m->samples = 10;
	m->self = 1;
	c = add(m, KFIT_CN_FRAME, 0, 0, 0);
	c->name = "compute";
	c->samples = 9;
	c->self = 7;
	k = add(c, KFIT_CN_FRAME, 1, 0, 0);
	k->name = "asm_sysvec_apic_timer_interrupt";
	k->samples = 2;
	k->self = 2;
	fx->ptr[0] = &fx->th[0];
	memset(&fx->src, 0, sizeof(fx->src));
	fx->src.threads = fx->ptr;
	fx->src.nthreads = 1;
	fx->src.sampled = true;
	fx->src.name = t_names;
	fx->src.kernel = kernel;
}

/* ---- folded ---- */

/* kfit_export_folded of src: 0, and exactly want */
static void check_folded(const struct kfit_export_src *src, const char *want)
{
	struct t_cap o;
	char *got;

	t_cap_open(&o);
	assert_int_equal(kfit_export_folded(src, o.f), 0);
	got = t_cap_close(&o);
	assert_string_equal(got, want);
	free(got);
}

static void test_folded_exact(void **state)
{
	struct fixture fx;

	(void)state;
	build_exact(&fx);
	check_folded(&fx.src,
		"[softirq];[irq] softirq TIMER 100\n"
		"[softirq];[irq] softirq TIMER;run_timer_softirq 200\n"
		"reader;vfs_read 5000\n"
		"reader;vfs_read;[irq] softirq NET_RX 200\n"
		"reader;vfs_read;[irq] softirq NET_RX;net_rx_action 800\n"
		"reader;vfs_read;[off-cpu] blocked 3000\n"
		"reader;vfs_read;rw_verify_area 1500\n"
		"reader;vfs_read;rw_verify_area;security_file_permission 500\n"
		"worker;loop 4000\n"
		"worker;op<int>&'\" 300\n"
		"worker;weird:name x 700\n");
}

static void test_folded_sampled(void **state)
{
	struct fixture fx;

	(void)state;
	build_sampled(&fx);
	check_folded(&fx.src,
		"busy;main 1\n"
		"busy;main;compute 7\n"
		"busy;main;compute;asm_sysvec_apic_timer_interrupt 2\n");
}

/* Threads of the same comm merge; control characters and ';' in names */
static void test_folded_merge_sanitize(void **state)
{
	struct kfit_cthread a, b;
	const struct kfit_cthread *ptr[2] = { &a, &b };
	struct kfit_export_src src = { .threads = ptr, .nthreads = 2, .name = t_names };
	struct kfit_cnode *f1, *f2;

	(void)state;
	pool.used = 0;
	t_thread_init(&a, 1, 1, "sh;x\ty");
	t_thread_init(&b, 2, 2, "sh;x\ty");
	src.sampled = true;
	f1 = add(&a.root, KFIT_CN_FRAME, 0, 0, 0);
	f1->name = "f\nn";
	f1->self = 3;
	f2 = add(&b.root, KFIT_CN_FRAME, 0, 0, 0);
	f2->name = "f\nn";
	f2->self = 4;
	f2 = add(&b.root, KFIT_CN_FRAME, 0, 0, 0);
	f2->name = "";
	f2->self = 1;
	check_folded(&src, "sh:x?y;[unknown] 1\nsh:x?y;f?n 7\n");
}

/* ---- a random tree, well nested: what must hold whatever its shape ---- */

static __u64 rnd_state;

static __u32 rnd(__u32 n)
{
	rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (rnd_state >> 33) % n;
}

static const char *const sample_names[] = {
	"do_syscall_64", "ksys_read", "vfs_read", "ext4_file_read_iter",
	"filemap_read", "copy_page_to_iter", "ksys_write", "vfs_write",
	"pipe_write", "__wake_up_sync_key", "schedule", "__schedule",
	"tcp_sendmsg", "tcp_write_xmit", "ip_output", "dev_queue_xmit",
	"main", "parse_config", "hash_lookup", "compress_block",
};

#define NSAMPLE (sizeof(sample_names) / sizeof(sample_names[0]))

static const char *sample_name(void *ctx, const struct kfit_cnode *n)
{
	(void)ctx;
	return n->kind == KFIT_CN_EVENT ? "sched:sched_wakeup" : sample_names[n->id % NSAMPLE];
}

static bool sample_kernel(void *ctx, const struct kfit_cnode *n)
{
	(void)ctx;
	return n->id % NSAMPLE < 16;
}

/*
 * Up to 4 children of parent in [start, end), each in its own slot of the
 * interval: calls mostly, some off CPU, interrupts and events
 */
static void gen(struct kfit_cnode *parent, __u64 start, __u64 end, int depth,
		int budget)
{
	__u64 slot, t, len;
	struct kfit_cnode *n;
	__u32 i, nkids, k;

	nkids = depth < 9 ? rnd(depth < 2 ? 3 : 5) + (depth < 2) : 0;
	slot = nkids ? (end - start) / nkids : 0;
	for (i = 0; i < nkids && slot > 8 && pool.used < budget; i++) {
		t = start + i * slot + rnd(slot / 4);
		len = slot / 3 + rnd(slot / 2);
		k = rnd(12);
		if (k == 0 && parent->kind == KFIT_CN_CALL) {
			add(parent, KFIT_CN_SWITCH, rnd(2), t, len);
		} else if (k == 1 && parent->kind == KFIT_CN_CALL) {
			n = add(parent, KFIT_CN_IRQ, rnd(10), t, len);
			n->ctx = KFIT_CTX_SOFTIRQ;
			n->cpu = rnd(2);
			gen(n, t, t + len, depth + 1, budget);
		} else if (k == 2) {
			add(parent, KFIT_CN_EVENT, 0, t, 0);
		} else {
			n = call(parent, (depth * 2 + rnd(3)) % NSAMPLE, t, len);
			n->cpu = rnd(2);
			gen(n, t, t + len, depth + 1, budget);
		}
	}
}

static void build_random(struct kfit_cthread *th, const struct kfit_cthread **ptr,
			 int nth, struct kfit_export_src *src, __u64 seed)
{
	int i;

	pool.used = 0;
	rnd_state = seed;
	for (i = 0; i < nth; i++) {
		t_thread_init(&th[i], 300 + i / 2, 300 + i, i % 2 ? "worker" : "server");
		gen(&th[i].root, 1000000, 1000000 + 50000000, 0, (i + 1) * (POOL / nth));
		ptr[i] = &th[i];
	}
	memset(src, 0, sizeof(*src));
	src->threads = ptr;
	src->nthreads = nth;
	src->name = sample_name;
	src->kernel = sample_kernel;
	src->t0 = 1000000;
}

/* The folded values of a thread add up to its outermost spans' durations */
static void test_folded_sums(void **state)
{
	struct kfit_cthread th[4];
	const struct kfit_cthread *ptr[4];
	struct kfit_export_src src;
	const struct kfit_cnode *n;
	__u64 want = 0, got = 0;
	char *text, *line;
	struct t_cap o;
	int i;

	(void)state;
	build_random(th, ptr, 4, &src, 42);
	assert_true(pool.used > 200);
	for (i = 0; i < 4; i++)
		for (n = th[i].root.child; n; n = n->next)
			if (n->kind == KFIT_CN_CALL)
				want += n->dur;
	t_cap_open(&o);
	assert_int_equal(kfit_export_folded(&src, o.f), 0);
	text = t_cap_close(&o);
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		got += strtoull(strrchr(line, ' ') + 1, NULL, 10);
	assert_int_equal(got, want);
	free(text);
}

/* ---- SVG ---- */

static int run(const char *fmt, const char *path)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), fmt, path);
	return system(cmd);
}

/* Well-formed XML, by xmllint (make deps installs libxml2-utils) */
static void check_xml(const char *svg)
{
	char path[64];

	t_to_file(svg, path, sizeof(path), "export", ".svg");
	if (run("command -v xmllint >/dev/null", "")) {
		unlink(path);
		fail_msg("xmllint not found: make deps installs libxml2-utils");
	}
	if (run("xmllint --noout '%s'", path)) {
		fprintf(stderr, "the SVG is kept in %s\n", path);
		fail_msg("xmllint refuses the SVG");
	}
	unlink(path);
}

/* The fill of the frame titled name */
static void frame_rgb(const char *svg, const char *name, int rgb[3])
{
	char title[96];
	const char *p;

	snprintf(title, sizeof(title), "<title>%s (", name);
	p = strstr(svg, title);
	assert_non_null(p);
	p = strstr(p, "fill=\"rgb(");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "fill=\"rgb(%d,%d,%d)", &rgb[0], &rgb[1], &rgb[2]), 3);
}

/* Kernel orange, user red, interrupts purple, off CPU blue, threads yellow */
static void check_palette(const char *svg, const char *kernel, const char *user)
{
	int c[3];

	frame_rgb(svg, kernel, c);
	assert_true(c[0] >= 190 && c[1] >= 90 && c[1] <= 155 && c[2] < 40);
	if (user) {
		frame_rgb(svg, user, c);
		assert_true(c[0] >= 200 && c[1] >= 50 && c[1] <= 130 && c[1] == c[2]);
	}
}

static char *svg_of(const struct kfit_export_src *src, const struct kfit_export_svg_opts *opts)
{
	struct t_cap o;

	t_cap_open(&o);
	assert_int_equal(kfit_export_svg(src, opts, o.f), 0);
	return t_cap_close(&o);
}

static void test_svg_exact(void **state)
{
	struct kfit_export_svg_opts opts = { .title = "callgraph <vfs_*>",
				      .subtitle = "exact: wall time & calls" };
	struct fixture fx;
	char *svg;
	int c[3];

	(void)state;
	build_exact(&fx);
	svg = svg_of(&fx.src, &opts);
	check_xml(svg);
	assert_true(strstr(svg, "<svg version=\"1.1\" width=\"1200\"") != NULL);
	/* all, 3 threads, 11 frames above them: none narrower than 0.1 px */
	assert_int_equal(t_count(svg, "<g class=\"f\">"), 15);
	assert_int_equal(t_count(svg, "<rect x="), 16);	/* and the background */
	/* 16.3 us in all: vfs_read 11 us */
	t_has_all(svg,
		  "<title>all (16.3us, 100.00%)</title>",
		  "<title>vfs_read (11.0us, 67.48%)</title>",
		  "<title>[off-cpu] blocked (3.00us, 18.40%)</title>",
		  "<title>[irq] softirq NET_RX (1.00us, 6.13%)</title>",
		  ">callgraph &lt;vfs_*&gt;</text>",
		  ">exact: wall time &amp; calls</text>",
		  "<title>op&lt;int&gt;&amp;&apos;&quot; (300ns, 1.84%)");
	/* 500 ns of 16.3 us in 1180 px: 36.2 px, 4 characters of Verdana 12 */
	t_has_all(svg,
		  ">se..</text>",
		  ">vfs_read</text>",
		  "<script type=\"text/ecmascript\">",
		  "orange: kernel, red: user");
	check_palette(svg, "vfs_read", "loop");
	frame_rgb(svg, "[irq] softirq NET_RX", c);
	assert_true(c[2] >= 200 && c[0] >= 150 && c[0] < 200 && c[1] < 140);
	frame_rgb(svg, "[off-cpu] blocked", c);
	assert_true(c[2] >= 190 && c[0] == c[1] && c[0] < 140);
	frame_rgb(svg, "reader", c);
	assert_true(c[0] == c[1] && c[0] >= 175 && c[2] <= 70);
	free(svg);
}

/* Frames under min_px are left out with their subtrees, and counted */
static void test_svg_narrow(void **state)
{
	struct kfit_export_svg_opts opts = { .min_px = 100, .no_script = true };
	struct fixture fx;
	char *svg;

	(void)state;
	build_exact(&fx);
	svg = svg_of(&fx.src, &opts);
	check_xml(svg);
	/*
	 * 100 px is 1381 ns: security_file_permission, the NET_RX softirq and
	 * its call, op<int>, weird;name and the softirq thread with its two
	 * frames go; all, reader, worker, vfs_read, rw_verify_area, the off-CPU
	 * frame and loop stay
	 */
	assert_int_equal(t_count(svg, "<g class=\"f\">"), 7);
	assert_non_null(strstr(svg, ">8 frames narrower than 100 px not drawn"));
	assert_null(strstr(svg, "<script"));
	assert_null(strstr(svg, "onload="));
	free(svg);
}

static void test_svg_sampled(void **state)
{
	struct kfit_ctree_stats st = { .lost = 12 };
	struct fixture fx;
	char *svg;

	(void)state;
	build_sampled(&fx);
	fx.src.stats = &st;
	svg = svg_of(&fx.src, NULL);
	check_xml(svg);
	assert_int_equal(t_count(svg, "<g class=\"f\">"), 5);
	t_has_all(svg,
		  "<title>all (10 samples, 100.00%)</title>",
		  "<title>compute (9 samples, 90.00%)</title>",
		  "<title>asm_sysvec_apic_timer_interrupt (2 samples, 20.00%)</title>",
		  ">Flame Graph</text>",
		  "lost 12 records, 0 malformed");
	free(svg);
}

/* Nothing recorded: still a document, saying so */
static void test_svg_empty(void **state)
{
	struct kfit_cthread t;
	const struct kfit_cthread *ptr = &t;
	struct kfit_export_src src = { .threads = &ptr, .nthreads = 1, .name = t_names };
	char *svg;

	(void)state;
	t_thread_init(&t, 1, 1, "idle");
	svg = svg_of(&src, NULL);
	check_xml(svg);
	assert_int_equal(t_count(svg, "<g class=\"f\">"), 0);
	assert_non_null(strstr(svg, "nothing to draw"));
	free(svg);
	src.nthreads = 0;
	svg = svg_of(&src, NULL);
	check_xml(svg);
	free(svg);
}

/* Invalid UTF-8 and control characters in names still give valid XML */
static void test_svg_bytes(void **state)
{
	struct kfit_cthread t;
	const struct kfit_cthread *ptr = &t;
	struct kfit_export_src src = { .threads = &ptr, .nthreads = 1, .name = t_names,
				 .sampled = true };
	struct kfit_cnode *f;
	char *svg;

	(void)state;
	pool.used = 0;
	t_thread_init(&t, 1, 1, "caf\xc3\xa9\x01");
	f = add(&t.root, KFIT_CN_FRAME, 0, 0, 0);
	f->name = "bad\xff\xfe]]>--\x7f";
	f->self = 1;
	svg = svg_of(&src, NULL);
	check_xml(svg);
	t_has_all(svg,
		  "caf\xc3\xa9?",
		  "bad\xef\xbf\xbd\xef\xbf\xbd]]&gt;--?");
	free(svg);
}

/* A bigger graph; KFIT_SVG_OUT=FILE keeps it (the headless render test) */
static void test_svg_sample(void **state)
{
	struct kfit_export_svg_opts opts = { .title = "callgraph: a synthetic tree",
				      .subtitle = "exact mode, 6 threads, wall time" };
	struct kfit_cthread th[6];
	const struct kfit_cthread *ptr[6];
	const char *keep = getenv("KFIT_SVG_OUT");
	struct kfit_export_src src;
	char *svg;
	FILE *f;

	(void)state;
	build_random(th, ptr, 6, &src, 7);
	svg = svg_of(&src, &opts);
	check_xml(svg);
	assert_true(t_count(svg, "<g class=\"f\">") > 100);
	if (keep) {
		f = fopen(keep, "w");
		assert_non_null(f);
		fputs(svg, f);
		assert_int_equal(fclose(f), 0);
	}
	free(svg);
}

/* ---- the differential flame graph ---- */

static char *diff_svg_of(const struct kfit_export_dpath *v, size_t n)
{
	struct t_cap o;

	t_cap_open(&o);
	assert_int_equal(kfit_export_diff_svg(v, n, NULL, o.f), 0);
	return t_cap_close(&o);
}

/* The fill of the frame whose title starts with title */
static void diff_rgb(const char *svg, const char *title, int rgb[3])
{
	const char *p = strstr(svg, title);

	assert_non_null(p);
	p = strstr(p, "fill=\"rgb(");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "fill=\"rgb(%d,%d,%d)", &rgb[0], &rgb[1], &rgb[2]), 3);
}

static void rgb_eq(const int got[3], int r, int g, int b)
{
	assert_int_equal(got[0], r);
	assert_int_equal(got[1], g);
	assert_int_equal(got[2], b);
}

/*
 * Widths from after, colours from the change of each frame's own time,
 * the frames of before only left out and counted; a name escaped
 */
static void test_diff_svg(void **state)
{
	static const struct kfit_export_dpath v[] = {
		{ "main;work;leaf", 100, 200 },		/* doubled: half-way red */
		{ "main;work", 300, 300 },		/* the same: white */
		{ "main", 400, 100 },			/* a quarter: 3/4 blue */
		{ "main;op<int>", 0, 50 },		/* new: deepest red */
		{ "main;gone;deep", 70, 0 },		/* before only */
		{ "main;gone", 30, 0 },
	};
	char *svg;
	int c[3];

	(void)state;
	svg = diff_svg_of(v, T_N(v));
	check_xml(svg);
	/* all, main, work, leaf, op<int>: gone and deep not drawn */
	assert_int_equal(t_count(svg, "<g class=\"f\">"), 5);
	t_has_all(svg,
		  ">Differential Flame Graph</text>",
		  "<title>all: before 900ns, after 650ns, -27.8%</title>",
		  "<title>main: before 900ns, after 650ns, -27.8%; "
		  "local: before 400ns, after 100ns, -75.0%</title>",
		  "<title>work: before 400ns, after 500ns, +25.0%; "
		  "local: before 300ns, after 300ns, +0.0%</title>",
		  "<title>leaf: before 100ns, after 200ns, +100.0%; "
		  "local: before 100ns, after 200ns, +100.0%</title>",
		  "<title>op&lt;int&gt;: before 0ns, after 50ns, new; "
		  "local: before 0ns, after 50ns, new</title>",
		  ">2 frames of before only not drawn</text>",
		  "var NAME_END = /: before .*$/;",
		  "red: own time grew, blue: shrank");
	/* 650 ns in 1180 px: main spans it all, leaf 200 ns of it */
	t_has_all(svg, "<rect x=\"10.0\" y=\"80\" width=\"1180.0\"",
		  "width=\"363.1\" height=\"15\" fill=\"rgb(255,150,150)\"");
	diff_rgb(svg, "<title>all:", c);
	rgb_eq(c, 255, 255, 255);
	diff_rgb(svg, "<title>main:", c);
	rgb_eq(c, 97, 97, 255);
	diff_rgb(svg, "<title>work:", c);
	rgb_eq(c, 255, 255, 255);
	diff_rgb(svg, "<title>leaf:", c);
	rgb_eq(c, 255, 150, 150);
	diff_rgb(svg, "<title>op&lt;int&gt;:", c);
	rgb_eq(c, 255, 45, 45);
	free(svg);
}

/* Nothing in the after run: a document that says so */
static void test_diff_svg_empty(void **state)
{
	static const struct kfit_export_dpath v[] = { { "main", 10, 0 } };
	char *svg;

	(void)state;
	svg = diff_svg_of(v, T_N(v));
	check_xml(svg);
	assert_int_equal(t_count(svg, "<g class=\"f\">"), 0);
	assert_non_null(strstr(svg, ">nothing to draw</text>"));
	free(svg);
	svg = diff_svg_of(NULL, 0);
	check_xml(svg);
	free(svg);
}

/* ---- Perfetto ---- */

/* perfetto_check passes on json; ok: 0 to expect it, 1 to expect a refusal */
static void check_trace(const char *json, int want)
{
	char path[64];
	int rc;

	t_to_file(json, path, sizeof(path), "export", ".json");
	rc = run(KFIT_TOP "/tests/helpers/perfetto_check -q '%s'", path);
	if (rc != -1 && WIFEXITED(rc))
		rc = WEXITSTATUS(rc);
	if (rc != want)
		fprintf(stderr, "perfetto_check exited %d on %s (kept)\n", rc, path);
	else
		unlink(path);
	assert_int_equal(rc, want);
}

static char *trace_of(const struct kfit_export_src *src)
{
	struct t_cap o;

	t_cap_open(&o);
	assert_int_equal(kfit_export_perfetto(src, o.f), 0);
	return t_cap_close(&o);
}

#define EV(ph, name, cat, ts, pid, tid) \
	"{\"ph\":\"" ph "\",\"name\":\"" name "\",\"cat\":\"" cat "\",\"ts\":" ts \
	",\"pid\":" #pid ",\"tid\":" #tid

static void test_perfetto_exact(void **state)
{
	struct kfit_ctree_stats st = { .calls = 9, .lost = 2 };
	struct fixture fx;
	char *js;

	(void)state;
	build_exact(&fx);
	fx.src.stats = &st;
	js = trace_of(&fx.src);
	check_trace(js, 0);
	assert_true(!strncmp(js, "{\"traceEvents\":[", 16));
	t_has_all(js,
		  "],\"displayTimeUnit\":\"ns\",\"otherData\":{\"calls\":9,"
		    "\"lost\":2,",
		  "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":100,"
		    "\"tid\":100,\"args\":{\"name\":\"reader\"}}",
		  "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":100,"
		    "\"tid\":101,\"args\":{\"name\":\"worker\"}}",
		  "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":4194304,"
		    "\"tid\":4194304,\"args\":{\"name\":\"interrupts\"}}");
	/* the reader's track, in order */
	assert_non_null(strstr(js,
		EV("X", "vfs_read", "kernel", "1.000", 100, 100) ",\"dur\":10.000,"
			"\"args\":{\"cpu\":0,\"local_ns\":4000}},"
		EV("X", "rw_verify_area", "kernel", "1.100", 100, 100) ",\"dur\":2.000,"
			"\"args\":{\"cpu\":0,\"local_ns\":0}},"
		EV("X", "security_file_permission", "kernel", "1.200", 100, 100)
			",\"dur\":0.500,\"args\":{\"cpu\":0,\"local_ns\":0}},"
		EV("X", "off-cpu (blocked)", "sched", "4.000", 100, 100) ",\"dur\":3.000,"
			"\"args\":{\"cpu\":0,\"state\":1}},"
		EV("i", "sched:sched_wakeup", "tracepoint", "9.500", 100, 100)
			",\"s\":\"t\",\"args\":{\"cpu\":0}},"
		EV("X", "vfs_read", "kernel", "20.000", 100, 100) ",\"dur\":1.000,"
			"\"args\":{\"cpu\":0,\"local_ns\":0}},"
		EV("i", "exit", "task", "30.000", 100, 100) ",\"s\":\"t\",\"args\":{\"cpu\":0}},"));
	/* the worker's: names as they are, the incomplete call marked */
	assert_non_null(strstr(js,
		EV("X", "weird;name x", "user", "5.000", 100, 101) ",\"dur\":0.700,"));
	assert_non_null(strstr(js,
		EV("X", "loop", "user", "6.000", 100, 101) ",\"dur\":4.000,"
			"\"args\":{\"cpu\":0,\"local_ns\":0,\"incomplete\":\"end\"}}"));
	assert_non_null(strstr(js, "\"name\":\"op<int>&'\\\"\""));
	/* interrupts: their own tracks, per CPU and context */
	t_has_all(js,
		  "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":4194304,"
		    "\"tid\":4194306,\"args\":{\"name\":\"softirq cpu 0\"}},"
		    EV("X", "softirq TIMER", "irq", "2.000", 4194304, 4194306) ",\"dur\":0.300,"
		    "\"args\":{\"cpu\":0,\"calls\":0}},"
		    EV("X", "run_timer_softirq", "kernel", "2.050", 4194304, 4194306)
		    ",\"dur\":0.200,",
		  "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":4194304,"
		    "\"tid\":4194310,\"args\":{\"name\":\"softirq cpu 1\"}},"
		    EV("X", "softirq NET_RX", "irq", "8.000", 4194304, 4194310) ",\"dur\":1.000,"
		    "\"args\":{\"cpu\":1,\"calls\":1,\"struck_pid\":100,\"struck_tid\":100}},"
		    EV("X", "net_rx_action", "kernel", "8.100", 4194304, 4194310)
		    ",\"dur\":0.800,");
	assert_int_equal(t_count(js, "\"ph\":\"X\""), 12);
	assert_int_equal(t_count(js, "\"ph\":\"i\""), 2);
	assert_int_equal(t_count(js, "\"ph\":\"M\""), 6);
	free(js);
}

/*
 * Children that stick out of their parent, overlap their previous sibling
 * or come before t0 are clamped: the track still nests strictly.
 */
static void test_perfetto_clamp(void **state)
{
	struct kfit_cthread t;
	const struct kfit_cthread *ptr = &t;
	struct kfit_export_src src = { .threads = &ptr, .nthreads = 1, .name = t_names,
				 .t0 = 50 };
	struct kfit_cnode *p;
	char *js;

	(void)state;
	pool.used = 0;
	t_thread_init(&t, 7, 7, "t");
	call(&t.root, 0, 20, 40);		/* before t0: [50, 60) */
	p = call(&t.root, 0, 100, 100);		/* [100, 200) */
	call(p, 1, 90, 50);			/* [100, 140) */
	add(p, KFIT_CN_EVENT, 0, 120, 0);	/* at 140, after its sibling */
	call(p, 2, 130, 100);			/* [140, 200) */
	call(&t.root, 3, 150, 10);		/* [200, 200): no time left */
	js = trace_of(&src);
	check_trace(js, 0);
	t_has_all(js,
		  "\"name\":\"vfs_read\",\"cat\":\"call\",\"ts\":0.000,"
		    "\"pid\":7,\"tid\":7,\"dur\":0.010,",
		  "\"name\":\"vfs_read\",\"cat\":\"call\",\"ts\":0.050,"
		    "\"pid\":7,\"tid\":7,\"dur\":0.100,",
		  "\"name\":\"rw_verify_area\",\"cat\":\"call\",\"ts\":0.050,"
		    "\"pid\":7,\"tid\":7,\"dur\":0.040,",
		  "\"name\":\"sched:sched_wakeup\",\"cat\":\"tracepoint\","
		    "\"ts\":0.090,",
		  "\"name\":\"security_file_permission\",\"cat\":\"call\","
		    "\"ts\":0.090,\"pid\":7,\"tid\":7,\"dur\":0.060,",
		  "\"name\":\"net_rx_action\",\"cat\":\"call\",\"ts\":0.150,"
		    "\"pid\":7,\"tid\":7,\"dur\":0.000,");
	free(js);
}

/* The checker refuses what is wrong (else the tests above prove nothing) */
static void test_perfetto_checker(void **state)
{
	static const char *const bad[] = {
		"{\"traceEvents\":[",				/* not JSON: 2 */
		"[]",						/* no traceEvents */
		"{\"traceEvents\":[1]}",			/* not an event */
		/* no metadata */
		"{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1}]}",
		/* overlap: b [1.5, 3.5) sticks out of a [1, 3) */
		"{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"p\"}},"
		"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"t\"}},"
		"{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1},"
		"{\"ph\":\"X\",\"name\":\"b\",\"ts\":1.5,\"dur\":2,\"pid\":1,\"tid\":1}]}",
		/* going back in time */
		"{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"p\"}},"
		"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"t\"}},"
		"{\"ph\":\"X\",\"name\":\"a\",\"ts\":5,\"dur\":1,\"pid\":1,\"tid\":1},"
		"{\"ph\":\"i\",\"name\":\"b\",\"ts\":4.999,\"pid\":1,\"tid\":1}]}",
		/* an X without dur */
		"{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"p\"}},"
		"{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"t\"}},"
		"{\"ph\":\"X\",\"name\":\"a\",\"ts\":5,\"pid\":1,\"tid\":1}]}",
	};
	unsigned i;

	(void)state;
	check_trace(bad[0], 2);
	for (i = 1; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_trace(bad[i], 1);
}

/*
 * Sampled stacks on a timeline: a frame shared by consecutive samples is
 * one slice; a gap of more than a period and a half ends every slice; two
 * threads of a process, given out of order, each on its track
 */
static void test_perfetto_samples(void **state)
{
	static const char *const a[] = { "main", "work", "leaf" };
	static const char *const b[] = { "main", "work" };
	static const char *const c[] = { "main", "other" };
	const __u64 p = 1000000;	/* 1 kHz */
	struct kfit_export_sample v[] = {
		{ .ts = 10 * p, .pid = 5, .tid = 5, .comm = "prog", .nframes = 3, .frames = a },
		{ .ts = 11 * p, .pid = 5, .tid = 5, .comm = "prog", .nframes = 2, .frames = b },
		{ .ts = 12 * p, .pid = 5, .tid = 5, .comm = "prog", .nframes = 2, .frames = c },
		/* 10 periods later: a new run of main */
		{ .ts = 22 * p, .pid = 5, .tid = 5, .comm = "prog", .nframes = 1, .frames = c },
		{ .ts = 11 * p, .pid = 5, .tid = 6, .comm = "worker", .nframes = 2, .frames = b },
	};
	struct t_cap o;
	char *json;

	(void)state;
	t_cap_open(&o);
	assert_int_equal(kfit_export_perfetto_samples(v, 5, 10 * p, p, o.f), 0);
	json = t_cap_close(&o);
	check_trace(json, 0);
	/* main [10, 13) ms, then [22, 23) ms; work [10, 12); leaf [10, 11); other [12, 13) */
	t_has_all(json,
		  "{\"ph\":\"X\",\"name\":\"main\",\"cat\":\"sample\",\"ts\":0.000,\"dur\":3000.000,\"pid\":5,\"tid\":5}",
		  "{\"ph\":\"X\",\"name\":\"main\",\"cat\":\"sample\",\"ts\":12000.000,\"dur\":1000.000,\"pid\":5,\"tid\":5}",
		  "{\"ph\":\"X\",\"name\":\"work\",\"cat\":\"sample\",\"ts\":0.000,\"dur\":2000.000,\"pid\":5,\"tid\":5}",
		  "{\"ph\":\"X\",\"name\":\"leaf\",\"cat\":\"sample\",\"ts\":0.000,\"dur\":1000.000,\"pid\":5,\"tid\":5}",
		  "{\"ph\":\"X\",\"name\":\"other\",\"cat\":\"sample\",\"ts\":2000.000,\"dur\":1000.000,\"pid\":5,\"tid\":5}",
		  "{\"ph\":\"X\",\"name\":\"work\",\"cat\":\"sample\",\"ts\":1000.000,\"dur\":1000.000,\"pid\":5,\"tid\":6}",
		  "\"name\":\"process_name\",\"pid\":5,\"tid\":5,\"args\":{\"name\":\"prog\"}",
		  "\"name\":\"thread_name\",\"pid\":5,\"tid\":6,\"args\":{\"name\":\"worker\"}");
	free(json);
	/* none: an empty trace, still valid */
	t_cap_open(&o);
	assert_int_equal(kfit_export_perfetto_samples(NULL, 0, 0, p, o.f), 0);
	json = t_cap_close(&o);
	check_trace(json, 0);
	free(json);
}

static void test_perfetto_random(void **state)
{
	struct kfit_cthread th[4];
	const struct kfit_cthread *ptr[4];
	struct kfit_export_src src;
	__u64 seed;
	char *js;

	(void)state;
	for (seed = 1; seed <= 3; seed++) {
		build_random(th, ptr, 4, &src, seed);
		js = trace_of(&src);
		check_trace(js, 0);
		assert_true(t_count(js, "\"ph\":\"X\"") > 100);
		free(js);
	}
}

/* A softirq of CPU 0 at start under parent, with a call of function id inside */
static struct kfit_cnode *softirq0(struct kfit_cnode *parent, __u64 start, __u32 id)
{
	struct kfit_cnode *irq = add(parent, KFIT_CN_IRQ, 1, start, 10);

	irq->ctx = KFIT_CTX_SOFTIRQ;
	irq->cpu = 0;
	call(irq, id, start + 1, 2);
	return irq;
}

/* "name@ts" of each slice of the interrupts' tracks, in the JSON's order */
static void irq_slices(const char *js, char *out, size_t len)
{
	static const char x[] = "{\"ph\":\"X\",\"name\":\"";
	const char *p = js, *end, *ts;
	size_t n = 0;

	out[0] = '\0';
	while ((p = strstr(p, x))) {
		p += sizeof(x) - 1;
		end = strchr(p, '}');
		ts = strstr(p, "\"ts\":");
		if (!end || !ts || !strstr(p, "\"pid\":4194304,") ||
		    strstr(p, "\"pid\":4194304,") > end)
			continue;
		n += snprintf(out + n, len - n, "%.*s@%.*s ", (int)strcspn(p, "\""), p,
			      (int)strcspn(ts + 5, ","), ts + 5);
		assert_true(n < len);
	}
}

/*
 * An interrupt track is in time order across the threads whatever order
 * they came in, each slice after the one before it: ties go by thread
 * (in the source's order), then a per-CPU thread's outermost calls before
 * its interrupts; a thread's interrupts out of time order are sorted
 */
static void test_perfetto_irq_order(void **state)
{
	struct kfit_cthread th[3];
	const struct kfit_cthread *ptr[3] = { &th[0], &th[1], &th[2] };
	struct kfit_export_src src = { .threads = ptr, .nthreads = 3, .name = t_names,
				       .kernel = kernel };
	struct kfit_cnode *x;
	char got[512], *js;

	(void)state;
	pool.used = 0;
	t_thread_init(&th[0], 100, 100, "a");
	t_thread_init(&th[1], 100, 101, "b");
	t_thread_init(&th[2], 0, 0, "");
	th[2].ctx = th[2].root.ctx = KFIT_CTX_SOFTIRQ;
	x = call(&th[0].root, 0, 100, 200);
	softirq0(x, 150, 1);
	softirq0(x, 120, 2);		/* before the one above */
	softirq0(&th[0].root, 300, 3);
	softirq0(&th[1].root, 150, 5);	/* at the same time as a's */
	softirq0(&th[2].root, 50, 6);
	softirq0(&th[2].root, 400, 0);
	call(&th[2].root, 4, 400, 5);	/* a call with no interrupt record */
	js = trace_of(&src);
	check_trace(js, 0);
	irq_slices(js, got, sizeof(got));
	assert_string_equal(got,
		"softirq TIMER@0.050 loop@0.051 "
		"softirq TIMER@0.120 security_file_permission@0.121 "
		"softirq TIMER@0.150 rw_verify_area@0.151 "
		"softirq TIMER@0.160 weird;name x@0.160 "	/* after a's: clamped */
		"softirq TIMER@0.300 net_rx_action@0.301 "
		"run_timer_softirq@0.400 "
		"softirq TIMER@0.405 vfs_read@0.405 ");
	assert_int_equal(t_count(js, "\"name\":\"softirq cpu 0\""), 1);
	free(js);
}

/* Sampled trees have no timeline; a source without names is refused */
static void test_perfetto_refused(void **state)
{
	struct fixture fx;
	struct t_cap o;
	char *got;

	(void)state;
	build_sampled(&fx);
	t_cap_open(&o);
	assert_int_equal(kfit_export_perfetto(&fx.src, o.f), -EOPNOTSUPP);
	fx.src.sampled = false;
	fx.src.name = NULL;
	assert_int_equal(kfit_export_perfetto(&fx.src, o.f), -EINVAL);
	assert_int_equal(kfit_export_folded(&fx.src, o.f), -EINVAL);
	assert_int_equal(kfit_export_svg(&fx.src, NULL, o.f), -EINVAL);
	got = t_cap_close(&o);
	assert_string_equal(got, "");
	free(got);
}

/* A write error is reported */
static void test_write_error(void **state)
{
	struct fixture fx;
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (!f)
		skip();
	build_exact(&fx);
	assert_int_equal(kfit_export_folded(&fx.src, f), -EIO);
	clearerr(f);
	assert_int_equal(kfit_export_svg(&fx.src, NULL, f), -EIO);
	clearerr(f);
	assert_int_equal(kfit_export_perfetto(&fx.src, f), -EIO);
	fclose(f);
}

/* Hard interrupts by number, NMIs by name; a LOST stand-in as [lost] */
static void test_folded_irq_kinds(void **state)
{
	struct kfit_cthread t;
	const struct kfit_cthread *ptr = &t;
	struct kfit_export_src src = { .threads = &ptr, .nthreads = 1, .name = t_names };
	struct kfit_cnode *c, *i;

	(void)state;
	pool.used = 0;
	t_thread_init(&t, 5, 5, "sh");
	c = call(&t.root, 0, 100, 1000);
	i = add(c, KFIT_CN_IRQ, 24, 200, 100);
	i->ctx = KFIT_CTX_HARDIRQ;
	i = add(i, KFIT_CN_IRQ, 0, 210, 10);
	i->ctx = KFIT_CTX_NMI;
	add(c, KFIT_CN_SWITCH, 0, 400, 300);
	c = call(&t.root, 1, 2000, 50);
	c->flags = KFIT_RF_LOST;
	check_folded(&src,
		"sh;[lost] 50\n"
		"sh;vfs_read 600\n"
		"sh;vfs_read;[irq] hardirq 24 90\n"
		"sh;vfs_read;[irq] hardirq 24;[irq] nmi 10\n"
		"sh;vfs_read;[off-cpu] preempted 300\n");
}

/* ---- through the decoder: records in, the same renderings out ---- */

static void rec_add(struct kfit_ctree *t, const void *r, size_t size)
{
	assert_int_equal(kfit_ctree_add(t, r, size), 0);
}

static struct kfit_rec rhdr(__u8 type, size_t size, __u8 ctx, __u16 cpu, __u64 ts)
{
	return (struct kfit_rec){ .type = type, .ctx = ctx, .size = size, .cpu = cpu,
				  .pid = 100, .tid = 100, .ts = ts };
}

static void rec_call(struct kfit_ctree *t, __u8 ctx, __u16 cpu, __u64 ts, __u64 dur,
		     __u32 id, __u16 depth)
{
	struct kfit_rec_call r = { .h = rhdr(KFIT_REC_CALL, sizeof(r), ctx, cpu, ts),
				   .dur = dur, .id = id, .depth = depth };

	rec_add(t, &r, sizeof(r));
}

/*
 * The reader of build_exact as callgraph's BPF side writes it: calls at
 * their return (post-order), the switch when the task runs again, the
 * softirq's call then the softirq at its end, the event
 */
static struct kfit_ctree *decode_reader(void)
{
	struct kfit_ctree_opts o = { .funcs = funcs, .nfuncs = NFUNCS,
				     .events = events, .nevents = 1 };
	struct kfit_ctree *t = kfit_ctree_new(&o);
	struct kfit_rec_switch sw = { .h = rhdr(KFIT_REC_SWITCH, sizeof(sw), 0, 0, 4000),
				      .dur = 3000, .state = 1, .depth = 1 };
	struct kfit_rec_irq irq = {
		.h = rhdr(KFIT_REC_IRQ, sizeof(irq), KFIT_CTX_SOFTIRQ, 1, 8000),
		.dur = 1000, .vec = 3, .ncalls = 1 };
	struct kfit_rec_event ev = { .h = rhdr(KFIT_REC_EVENT, sizeof(ev), 0, 0, 9500) };

	assert_non_null(t);
	assert_int_equal(kfit_ctree_task(t, 100, 100, "reader"), 0);
	rec_call(t, KFIT_CTX_TASK, 0, 1200, 500, 2, 2);
	rec_call(t, KFIT_CTX_TASK, 0, 1100, 2000, 1, 1);
	rec_add(t, &sw, sizeof(sw));
	rec_call(t, KFIT_CTX_SOFTIRQ, 1, 8100, 800, 3, 0);
	rec_add(t, &irq, sizeof(irq));
	rec_add(t, &ev, sizeof(ev));
	rec_call(t, KFIT_CTX_TASK, 0, 1000, 10000, 0, 0);
	rec_call(t, KFIT_CTX_TASK, 0, 20000, 1000, 0, 0);
	kfit_ctree_finish(t);
	return t;
}

static void test_records_exact(void **state)
{
	struct kfit_ctree *t = decode_reader();
	struct kfit_export_src src;
	char *got;

	(void)state;
	assert_int_equal(kfit_export_src_ctree(&src, t, false), 0);
	assert_int_equal(src.t0, 1000);
	check_folded(&src,
		"reader;vfs_read 5000\n"
		"reader;vfs_read;[irq] softirq NET_RX 200\n"
		"reader;vfs_read;[irq] softirq NET_RX;net_rx_action 800\n"
		"reader;vfs_read;[off-cpu] blocked 3000\n"
		"reader;vfs_read;rw_verify_area 1500\n"
		"reader;vfs_read;rw_verify_area;security_file_permission 500\n");
	got = trace_of(&src);
	check_trace(got, 0);
	t_has_all(got,
		  "\"name\":\"vfs_read\",\"cat\":\"call\",\"ts\":0.000,"
		    "\"pid\":100,\"tid\":100,\"dur\":10.000,",
		  "\"name\":\"softirq NET_RX\",\"cat\":\"irq\",\"ts\":7.000,"
		    "\"pid\":4194304,\"tid\":4194310,\"dur\":1.000,"
		    "\"args\":{\"cpu\":1,\"calls\":1,\"struck_pid\":100,"
		    "\"struck_tid\":100}}",
		  "\"name\":\"sched:sched_wakeup\",\"cat\":\"tracepoint\","
		    "\"ts\":8.500,");
	free(got);
	got = svg_of(&src, NULL);
	check_xml(got);
	assert_non_null(strstr(got, "<title>[off-cpu] blocked (3.00us, 27.27%)</title>"));
	free(got);
	kfit_export_src_release(&src);
	kfit_ctree_free(t);
}

static const char *rec_sym(void *ctx, __u32 pid, __u64 addr, bool kernel)
{
	(void)ctx;
	(void)pid;
	if (kernel)
		return "asm_sysvec_apic_timer_interrupt";
	return addr == 0x1000 ? "main" : addr == 0x2000 ? "compute" : NULL;
}

static void rec_sample(struct kfit_ctree *t, int nk, int nu, const __u64 *ip)
{
	struct kfit_rec_sample r = { 0 };
	size_t size = offsetof(struct kfit_rec_sample, ip) + 8 * (nk + nu);

	r.h = (struct kfit_rec){ .type = KFIT_REC_SAMPLE, .size = size, .pid = 200,
				 .tid = 200, .ts = 5000 };
	r.nkernel = nk;
	r.nuser = nu;
	memcpy(r.ip, ip, 8 * (nk + nu));
	rec_add(t, &r, size);
}

/* build_sampled's profile from samples: kernel frames told by the decoder */
static void test_records_sampled(void **state)
{
	const __u64 deep[] = { 0xffffffff81000000ULL, 0x2000, 0x1000 };
	struct kfit_ctree_opts o = { .sym = rec_sym };
	struct kfit_ctree *t = kfit_ctree_new(&o);
	struct kfit_export_src src;
	char *got;
	int i;

	(void)state;
	assert_non_null(t);
	assert_int_equal(kfit_ctree_task(t, 200, 200, "busy"), 0);
	for (i = 0; i < 2; i++)
		rec_sample(t, 1, 2, deep);
	for (i = 0; i < 7; i++)
		rec_sample(t, 0, 2, deep + 1);
	rec_sample(t, 0, 1, deep + 2);
	kfit_ctree_finish(t);
	assert_int_equal(kfit_export_src_ctree(&src, t, true), 0);
	check_folded(&src,
		"busy;main 1\n"
		"busy;main;compute 7\n"
		"busy;main;compute;asm_sysvec_apic_timer_interrupt 2\n");
	got = svg_of(&src, NULL);
	check_xml(got);
	assert_non_null(strstr(got, "<title>compute (9 samples, 90.00%)</title>"));
	check_palette(got, "asm_sysvec_apic_timer_interrupt", "compute");
	free(got);
	kfit_export_src_release(&src);
	kfit_ctree_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded_exact),
		cmocka_unit_test(test_folded_sampled),
		cmocka_unit_test(test_folded_merge_sanitize),
		cmocka_unit_test(test_folded_sums),
		cmocka_unit_test(test_svg_exact),
		cmocka_unit_test(test_svg_narrow),
		cmocka_unit_test(test_svg_sampled),
		cmocka_unit_test(test_svg_empty),
		cmocka_unit_test(test_svg_bytes),
		cmocka_unit_test(test_svg_sample),
		cmocka_unit_test(test_diff_svg),
		cmocka_unit_test(test_diff_svg_empty),
		cmocka_unit_test(test_perfetto_exact),
		cmocka_unit_test(test_perfetto_clamp),
		cmocka_unit_test(test_perfetto_checker),
		cmocka_unit_test(test_perfetto_samples),
		cmocka_unit_test(test_perfetto_random),
		cmocka_unit_test(test_perfetto_irq_order),
		cmocka_unit_test(test_perfetto_refused),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_folded_irq_kinds),
		cmocka_unit_test(test_records_exact),
		cmocka_unit_test(test_records_sampled),
	};

	return cmocka_run_group_tests(tests, names_setup, names_teardown);
}
