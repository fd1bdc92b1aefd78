// SPDX-License-Identifier: GPL-2.0
/*
 * callgraph's output from a capture's description (cgview): the header's
 * forms (functions, tracepoints only, sampled; --root, the skipped list
 * cut at five but with -v), its notes, the JSON's members (attach object
 * or none), the summary with -f, what -v says, the sampled records'
 * user stacks trimmed of words that are no addresses, and sampled
 * --perfetto's timeline.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "calltree.h"
#include "cgview.h"
#include "diag.h"
#include "stream.h"
#include "tasks.h"
#include "treeprint.h"
#include "testlib.h"

static const char *const names[] = { "outer", "inner", "idle", "gone" };

static const struct kfit_cgview_func funcs[] = {
	{ .name = "outer" }, { .name = "inner", .kernel = true },
	{ .name = "idle", .kernel = true }, { .name = "gone", .kernel = true, .dropped = true },
};

static const struct kfit_cgview_skip skipped[] = {
	{ "s1", "r1" }, { "s2", "r2" }, { "s3", "r3" }, { "s4", "r4" }, { "s5", "r5" },
	{ "s6", "r6" },
};

static void call(struct kfit_ctree *t, __u64 ts, __u64 dur, __u32 id, __u16 depth)
{
	struct kfit_rec_call r = {
		.h = { .type = KFIT_REC_CALL, .size = sizeof(r), .pid = 7, .tid = 7, .ts = ts },
		.dur = dur, .id = id, .depth = depth,
	};

	assert_int_equal(kfit_cgview_add(t, false, &r, sizeof(r)), 0);
}

/* outer [1000, 1500) calls inner [1100, 1300), twice */
static struct kfit_ctree *tree(void)
{
	struct kfit_ctree *t = kfit_ctree_new(&(struct kfit_ctree_opts){
		.funcs = names, .nfuncs = 4,
	});

	assert_non_null(t);
	assert_int_equal(kfit_ctree_task(t, 7, 7, "prog"), 0);
	call(t, 1100, 200, 1, 1);
	call(t, 1000, 500, 0, 0);
	call(t, 2100, 200, 1, 1);
	call(t, 2000, 500, 0, 0);
	kfit_ctree_finish(t);
	return t;
}

static struct kfit_cgview view(void)
{
	return (struct kfit_cgview){
		.mechanism = "uprobe", .funcs = funcs, .nfuncs = 4, .ntracepoints = 1,
		.start_ns = 1000, .end_ns = 2001000, .max_depth = 32,
		.skipped = skipped, .nskipped = 6,
	};
}

/* forward: the helper below */
static char *render(const struct kfit_cgview *v, const struct kfit_cgview_opts *o,
		    const struct kfit_ctree *t, int *err);

static void rec(struct kfit_ctree *t, const void *r, size_t size)
{
	assert_int_equal(kfit_cgview_add(t, false, r, size), 0);
}

/*
 * Two tasks, one renamed by exec; calls, a switch, an event, an
 * interrupt: each task's records in its order, as one ring gives them
 */
static void stream_into(struct kfit_ctree *t)
{
	struct kfit_rec_call c = { .h = { .type = KFIT_REC_CALL, .size = sizeof(c), .pid = 7 } };
	struct kfit_rec_call ic;
	struct kfit_rec_switch w = { .h = { .type = KFIT_REC_SWITCH, .size = sizeof(w), .pid = 7,
					   .tid = 7, .ts = 1150 }, .dur = 20, .state = 1 };
	struct kfit_rec_event e = { .h = { .type = KFIT_REC_EVENT, .size = sizeof(e), .pid = 7,
					  .tid = 8, .ts = 3050 } };
	struct kfit_rec_irq q = { .h = { .type = KFIT_REC_IRQ, .size = sizeof(q), .pid = 7,
					.tid = 7, .ts = 2150, .ctx = KFIT_CTX_SOFTIRQ, .cpu = 1 },
				  .dur = 30, .vec = 3, .ncalls = 1 };
	struct kfit_rec_task x = { .h = { .type = KFIT_REC_EXEC, .size = sizeof(x), .pid = 7,
					 .tid = 8, .ts = 3500 }, .comm = "renamed" };
	int i;

	assert_int_equal(kfit_ctree_task(t, 7, 7, "prog"), 0);
	assert_int_equal(kfit_ctree_task(t, 7, 8, "prog"), 0);
	rec(t, &w, sizeof(w));
	for (i = 0; i < 3; i++) {
		c.h.tid = 7;
		c.h.ts = 1100 + 1000 * i, c.dur = 200, c.id = 1, c.depth = 1;
		if (i == 1) {
			ic = c;
			ic.h.ctx = KFIT_CTX_SOFTIRQ;
			ic.h.cpu = 1;
			ic.h.ts = 2155, ic.dur = 10, ic.id = 2, ic.depth = 0;
			rec(t, &ic, sizeof(ic));
			rec(t, &q, sizeof(q));
		}
		rec(t, &c, sizeof(c));
		c.h.ts = 1000 + 1000 * i, c.dur = 500, c.id = 0, c.depth = 0;
		rec(t, &c, sizeof(c));
		c.h.tid = 8;
		c.h.ts = 3000 + 1000 * i, c.dur = 100, c.id = 1, c.depth = 0;
		if (!i)
			rec(t, &e, sizeof(e));
		rec(t, &c, sizeof(c));
		/* a task's records come in its order (one ring buffer) */
		if (!i)
			rec(t, &x, sizeof(x));
	}
}

/* What f, the file at path, holds, malloc'd; f closed, the file removed */
static char *file_text(FILE *f, const char *path)
{
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	unlink(path);
	return buf;
}

/* A tree that streams to view a (-j: o's), as kd and callgraph make it */
static struct kfit_ctree *stream_tree(struct kfit_cgview_args *a,
				      const struct kfit_cgview_opts *o,
				      struct kfit_ctree_opts *to, const __u64 *origin,
				      const char *name)
{
	struct kfit_ctree *t;

	assert_int_equal(kfit_cgview_stream(a, &(struct kfit_cgview_stream_in){
		.nfuncs = 4, .funcs = funcs, .json = o->json, .origin = origin,
		.one_ring = true }, to), 0);
	t_true(name, to->on_root != NULL);
	t = kfit_ctree_new(to);
	assert_non_null(t);
	return t;
}

/*
 * Every view that streams (the tree, -j, --folded, --summary, --perfetto)
 * prints what the whole tree prints, byte for byte; --perfetto's file
 * too, interrupts interlaced or not
 */
static void test_streamed_same(void **state)
{
	static const __u64 origin = 1000;
	static const char path[] = "/tmp/test_cgview_streamed.json";
	struct kfit_cgview v = view();
	char *jx = NULL, *jy = NULL;
	int k, err;

	(void)state;
	v.ntracepoints = 0;
	for (k = 0; k < 7; k++) {
		const char *pf = k >= 5 ? path : NULL;
		struct kfit_cgview_args a = { .summary = k == 3, .folded = k == 2, .perfetto = pf };
		struct kfit_cgview_opts o = { .json = k == 1, .summary = k == 3, .folded = k == 2,
					      .perfetto = pf };
		struct kfit_ctree_opts to = { .funcs = names, .nfuncs = 4,
					      .no_interlace = k == 4 || k == 6 };
		struct kfit_ctree *whole, *streamed;
		char *x, *y, name[16];

		snprintf(name, sizeof(name), "view %d", k);
		whole = kfit_ctree_new(&to);
		assert_non_null(whole);
		stream_into(whole);
		kfit_ctree_finish(whole);
		streamed = stream_tree(&a, &o, &to, &origin, name);
		stream_into(streamed);
		kfit_ctree_finish(streamed);
		x = render(&v, &o, whole, &err);
		assert_int_equal(err, 0);
		if (pf)
			jx = file_text(fopen(pf, "r"), pf);
		o.sum = a.sum;
		y = render(&v, &o, streamed, &err);
		assert_int_equal(err, 0);
		t_true(name, strlen(x) > 40);
		t_str_eq(name, y, x);
		if (pf) {
			jy = file_text(fopen(pf, "r"), pf);
			t_true(name, t_has(jx, "\"name\":\"softirq cpu 1\""));
			t_true(name, t_has(jx, "\"name\":\"off-cpu (blocked)\""));
			t_true(name, t_has(jx, "\"args\":{\"name\":\"renamed\"}"));
			t_str_eq(name, jy, jx);
		}
		free(x);
		free(y);
		free(jx);
		free(jy);
		jx = jy = NULL;
		kfit_cgview_close(&a);
		kfit_ctree_free(whole);
		kfit_ctree_free(streamed);
	}
}

/* t_recgen's records into t, through a stream: record by record, or at once */
static void gen_into(struct kfit_ctree *t, const char *buf, size_t len, bool whole)
{
	struct kfit_stream s = { .tree = t, .tasks = kfit_tasks_new(false) };
	const struct kfit_rec *h;
	size_t off;

	assert_non_null(s.tasks);
	if (whole)
		assert_int_equal(kfit_stream_add_buf(&s, buf, len, NULL), 0);
	for (off = 0; !whole && off < len; off += h->size) {
		h = (const void *)(buf + off);
		assert_true(kfit_stream_add(&s, h, h->size) >= 0);
	}
	kfit_tasks_free(s.tasks);
	kfit_ctree_finish(t);
}

/*
 * Random recordings (nested and flat calls, interrupts, switches,
 * losses, execs), each view streamed from a chunk at once prints what
 * the whole tree prints from the records one by one: the calls given
 * whole as they come (a quiet task's, or summed from their records)
 * are those the decoder would have given
 */
static void test_streamed_random(void **state)
{
	static const __u64 origin = 100;
	static const char path[] = "/tmp/test_cgview_random.json";
	char *buf = aligned_alloc(8, T_RECGEN_BYTES), *x, *y, *jx, *jy, name[32];
	struct kfit_cgview v = view();
	unsigned int seed;
	size_t len;
	int k, err;

	(void)state;
	assert_non_null(buf);
	v.ntracepoints = 0;
	v.start_ns = origin;
	for (seed = 1; seed <= 12; seed++) {
		len = t_recgen(seed, buf);
		for (k = 0; k < 6; k++) {
			const char *pf = k == 5 ? path : NULL;
			struct kfit_cgview_args a = { .summary = k == 3, .folded = k == 2,
						      .perfetto = pf };
			struct kfit_cgview_opts o = { .json = k == 1, .summary = k == 3,
						      .folded = k == 2, .perfetto = pf };
			struct kfit_ctree_opts to = { .funcs = names, .nfuncs = 4,
						      .no_interlace = k == 4 };
			struct kfit_ctree *whole, *streamed;

			snprintf(name, sizeof(name), "seed %u view %d", seed, k);
			whole = kfit_ctree_new(&to);
			assert_non_null(whole);
			gen_into(whole, buf, len, false);
			streamed = stream_tree(&a, &o, &to, &origin, name);
			gen_into(streamed, buf, len, true);
			x = render(&v, &o, whole, &err);
			assert_int_equal(err, 0);
			jx = pf ? file_text(fopen(pf, "r"), pf) : NULL;
			o.sum = a.sum;
			y = render(&v, &o, streamed, &err);
			assert_int_equal(err, 0);
			jy = pf ? file_text(fopen(pf, "r"), pf) : NULL;
			t_true(name, strlen(x) > 200);
			t_str_eq(name, y, x);
			if (pf)
				t_str_eq(name, jy, jx);
			free(x);
			free(y);
			free(jx);
			free(jy);
			kfit_cgview_close(&a);
			kfit_ctree_free(whole);
			kfit_ctree_free(streamed);
		}
	}
	free(buf);
}

/*
 * --errors' oracle, in jq over the full -j (.full) and the --errors one
 * (.err): the trees (calls, interrupts) with a call that returned
 * -4095..-1 anywhere in them, the others left out, and so the threads
 * left empty; "failed" on each call that failed or has a callee on its
 * own stack that did, on an interrupt with a call in it that did; the
 * counts of the trees kept and left out
 */
static const char errors_oracle[] =
	"def bad: (.ret // 0) as $r | $r >= -4095 and $r <= -1;\n"
	"def tree: has(\"name\") or has(\"irq\");\n"
	"def anyfail: [.. | objects | select(has(\"name\")) | bad] | any;\n"
	"def fp: if has(\"irq\") then ([.children[]? | fp] | any)\n"
	"  elif has(\"name\") then (bad or ([.children[]? | select(has(\"irq\") | not) | fp] | any))\n"
	"  else false end;\n"
	"def annot: (if tree and fp then .failed = true else . end)\n"
	"  | if has(\"children\") then .children |= map(annot) else . end;\n"
	"([.full.threads[].calls[] | select(tree and anyfail)] | length) as $kept\n"
	"| ([.full.threads[].calls[] | select(tree)] | length) as $all\n"
	"| (.full.threads | map(.calls |= map(select(tree and anyfail) | annot))\n"
	"   | map(select(.calls | length > 0))) == .err.threads\n"
	"  and .err.trees_failed == $kept and .err.trees_left_out == $all - $kept\n"
	"  and $kept > 0 and $all > $kept\n";

static bool errors_hold(const char *full, const char *err)
{
	char doc[64], prog[64], cmd[256];
	size_t n = strlen(full) + strlen(err) + 32;
	char *both = malloc(n);
	int rc;

	assert_non_null(both);
	snprintf(both, n, "{\"full\": %s, \"err\": %s}", full, err);
	t_to_file(both, doc, sizeof(doc), "errors", ".json");
	t_to_file(errors_oracle, prog, sizeof(prog), "errors", ".jq");
	snprintf(cmd, sizeof(cmd), "jq -e -f %s %s >/dev/null", prog, doc);
	rc = system(cmd);
	unlink(doc);
	unlink(prog);
	free(both);
	return rc == 0;
}

/*
 * --errors on random recordings (failures in nested calls and in
 * interrupts, interlaced or not): its -j is the full -j restricted to the
 * trees with a failure (errors_oracle), and the streamed views print what
 * the whole tree prints
 */
static void test_errors_random(void **state)
{
	static const __u64 origin = 100;
	char *buf = aligned_alloc(8, T_RECGEN_BYTES), *full, *x, *y, name[48];
	struct kfit_cgview v = view();
	bool jq = t_have("jq");
	unsigned int seed;
	size_t len;
	int k, err;

	(void)state;
	assert_non_null(buf);
	v.ntracepoints = 0;
	v.start_ns = origin;
	for (seed = 1; seed <= 8; seed++) {
		len = t_recgen(seed, buf);
		for (k = 0; k < 4; k++) {
			struct kfit_cgview_args a = { .errors = true };
			struct kfit_cgview_opts o = { .json = k < 2, .errors = true };
			struct kfit_ctree_opts to = { .funcs = names, .nfuncs = 4,
						      .ret_kinds = t_recgen_kinds,
						      .no_interlace = k % 2 };
			struct kfit_ctree *whole, *streamed;

			snprintf(name, sizeof(name), "seed %u %s%s", seed, o.json ? "-j" : "text",
				 to.no_interlace ? " apart" : "");
			whole = kfit_ctree_new(&to);
			assert_non_null(whole);
			gen_into(whole, buf, len, false);
			streamed = stream_tree(&a, &o, &to, &origin, name);
			gen_into(streamed, buf, len, true);
			x = render(&v, &o, whole, &err);
			assert_int_equal(err, 0);
			o.sum = a.sum;
			y = render(&v, &o, streamed, &err);
			assert_int_equal(err, 0);
			t_str_eq(name, y, x);
			if (!o.json)
				t_true(name, strstr(x, " !") && strstr(x, "left out (--errors)"));
			if (o.json && jq && seed <= 4) {
				o = (struct kfit_cgview_opts){ .json = true };
				full = render(&v, &o, whole, &err);
				t_true(name, errors_hold(full, x));
				free(full);
			}
			free(x);
			free(y);
			kfit_cgview_close(&a);
			kfit_ctree_free(whole);
			kfit_ctree_free(streamed);
		}
	}
	free(buf);
}

/* What render wrote on stdout, malloc'd, and its result in *err */
static char *render(const struct kfit_cgview *v, const struct kfit_cgview_opts *o,
		    const struct kfit_ctree *t, int *err)
{
	char path[] = "/tmp/test_cgview.XXXXXX";
	int fd = mkstemp(path), saved = dup(STDOUT_FILENO);

	assert_true(fd >= 0 && saved >= 0);
	fflush(stdout);
	assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	*err = kfit_cgview_render(v, o, t);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	return file_text(fdopen(fd, "r"), path);
}

static void test_header_functions(void **state)
{
	struct kfit_ctree *t = tree();
	struct kfit_cgview v = view();
	char *out;
	int err;

	(void)state;
	v.root = true;
	v.missed = 3;
	v.too_deep = 4;
	v.no_stack = 5;
	out = render(&v, &(struct kfit_cgview_opts){ .summary = true }, t, &err);
	assert_int_equal(err, 0);
	assert_true(t_starts(out,
		"Traced 3 functions (uprobe) and tracepoints, inside --root for 2.00ms\n"
		"4 calls, 0 lost, 0 dropped (--min/-D), 0 incomplete\n"
		"3 probe runs missed: the kernel skips a BPF program that fires inside another\n"
		"4 calls nested deeper than 32 not kept\n"
		"5 calls not kept: too many threads at once\n"
		"Skipped 6 functions:\n"
		"  s1: r1\n  s2: r2\n  s3: r3\n  s4: r4\n  s5: r5\n"
		"  ... and 1 more (-v lists them all)\n"
		"FUNCTION  COUNT   TOTAL    AVG"));
	/* the table (fstats' own tests check it), the notes, the idle function */
	assert_non_null(strstr(out, "\nouter         2  1.00us  500ns  500ns  500ns  600ns"
				    "  500ns  500ns  inner (400ns)\n"));
	assert_null(strstr(out, "\ngone "));
	assert_non_null(strstr(out, "\n4 calls nested deeper than 32 not measured\n"
				    "5 calls not measured: too many threads at once\n"
				    "3 probe runs missed: the kernel skips a BPF program that "
				    "fires inside another\n1 traced function not called\n"));
	free(out);
	/* -v: every skipped function; -f: the columns */
	out = render(&v, &(struct kfit_cgview_opts){
		.summary = true, .verbose = true,
		.fields = 1U << KFIT_FF_COUNT | 1U << KFIT_FF_LOCAL }, t, &err);
	assert_non_null(strstr(out, "  s5: r5\n  s6: r6\nFUNCTION  COUNT  LOCAL\n"
				    "outer         2  600ns\n"));
	free(out);
	kfit_ctree_free(t);
}

static void test_header_forms(void **state)
{
	struct kfit_ctree *t = tree();
	struct kfit_cgview v = view();
	char *out;
	int err;

	(void)state;
	v.nfuncs = 0;
	v.nskipped = 1;
	v.ntracepoints = 1;
	out = render(&v, &(struct kfit_cgview_opts){ 0 }, t, &err);
	assert_true(t_starts(out, "Traced 1 tracepoint for 2.00ms\n"));
	free(out);
	/* System calls are tracepoints, whatever the functions' mechanism */
	{
		static const struct kfit_cgview_func mix[] = {
			{ .name = "malloc" }, { .name = "sys:read" }, { .name = "sys:write" },
			{ .name = "sys:close", .dropped = true },
		};

		v = view();
		v.funcs = mix;
		v.nfuncs = 4;
		v.ntracepoints = 0;
		out = render(&v, &(struct kfit_cgview_opts){ 0 }, t, &err);
		assert_true(t_starts(out, "Traced 1 function (uprobe) and 2 system calls "
				   "(tracepoints) for 2.00ms\n"));
		free(out);
		v.ntracepoints = 2;
		v.funcs = mix + 1;
		v.nfuncs = 1;
		out = render(&v, &(struct kfit_cgview_opts){ 0 }, t, &err);
		assert_true(t_starts(out, "Traced 1 system call (tracepoint) and tracepoints "
				   "for 2.00ms\n"));
		free(out);
		v.funcs = mix;
		v.nfuncs = 3;
		out = render(&v, &(struct kfit_cgview_opts){ 0 }, t, &err);
		assert_true(t_starts(out, "Traced 1 function (uprobe), 2 system calls "
				   "(tracepoints) and tracepoints for 2.00ms\n"));
		free(out);
	}
	v = view();
	v.nfuncs = 0;
	v.nskipped = 1;
	v.ntracepoints = 1;
	out = render(&v, &(struct kfit_cgview_opts){ 0 }, t, &err);
	/* the tree follows, times from start_ns */
	assert_non_null(strstr(out, "\n== pid 7 tid 7 (prog) ==\n"));
	assert_non_null(strstr(out, "\n 0.000000s      500ns"));
	free(out);
	v = view();
	v.sampled = true;
	v.hz = 99;
	v.sample_event = "cpu-clock";
	out = render(&v, &(struct kfit_cgview_opts){ 0 }, t, &err);
	/* no skipped list in sampled mode */
	assert_true(t_starts(out, "Sampled stacks at 99 Hz (cpu-clock) for 2.00ms\n"));
	assert_null(strstr(out, "Skipped"));
	free(out);
	/* folded alone: no header */
	v = view();
	out = render(&v, &(struct kfit_cgview_opts){ .folded = true }, t, &err);
	assert_string_equal(out, "prog;outer 600\nprog;outer;inner 400\n");
	free(out);
	kfit_ctree_free(t);
}

static void test_json(void **state)
{
	struct kfit_ctree *t = tree();
	struct kfit_cgview v = view();
	struct kfit_cgview_attach at = {
		.mechanism = "uprobe", .functions = 3, .skipped = 6, .attach_ns = 77, .fds = -2,
	};
	char *out;
	int err;

	(void)state;
	v.nskipped = 1;
	out = render(&v, &(struct kfit_cgview_opts){ .json = true }, t, &err);
	assert_true(t_starts(out, "{\"mode\":\"exact\",\"mechanism\":\"uprobe\","
				"\"elapsed_ns\":2000000,\"calls\":4,"));
	assert_non_null(strstr(out, "\"missed\":0,\"too_deep\":0,\"no_stack\":0,"
				    "\"skipped\":[{\"name\":\"s1\",\"reason\":\"r1\"}],"
				    "\"threads\":["));
	free(out);
	v.attach = &at;
	out = render(&v, &(struct kfit_cgview_opts){ .json = true }, t, &err);
	assert_non_null(strstr(out, "}],\"attach\":{\"mechanism\":\"uprobe\",\"functions\":3,"
				    "\"skipped\":6,\"attach_ns\":77,\"fds\":-2},\"threads\":["));
	free(out);
	v.attach = NULL;
	v.sampled = true;
	v.hz = 49;
	v.sample_event = "task-clock";
	out = render(&v, &(struct kfit_cgview_opts){ .json = true }, t, &err);
	assert_non_null(strstr(out, "\"skipped\":[],\"hz\":49,\"event\":\"task-clock\","
				    "\"threads\":["));
	free(out);
	kfit_ctree_free(t);
}

static struct kfit_cgview_counts counts = {
	.records = 9, .bytes = 900, .types = { [KFIT_REC_CALL] = 5, [KFIT_REC_EVENT] = 2,
						[KFIT_REC_FORK] = 1, [KFIT_REC_SAMPLE] = 1 },
	.end_calls = 1, .lost = 3, .unmatched = 4,
};

static const struct kfit_ctree *verbose_tree;

static void verbose_render(void)
{
	struct kfit_cgview v = view();

	v.counts = &counts;
	freopen("/dev/null", "w", stdout);
	kfit_cgview_render(&v, &(struct kfit_cgview_opts){ .folded = true, .verbose = true },
			   verbose_tree);
}

static void test_verbose_counts(void **state)
{
	char buf[1024];
	struct kfit_ctree *t = tree();
	int saved = dup(STDOUT_FILENO);

	(void)state;
	verbose_tree = t;
	kfit_diag_setup("cg", 1);
	t_stderr_of(verbose_render, buf, sizeof(buf));
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	assert_non_null(strstr(buf, "9 records read (900 bytes): 4 calls returned, 1 still "
				    "open at the end; 0 context switches, 0 interrupts, 2 "
				    "tracepoint hits, 1 fork, 0 execs, 0 exits, 1 sample; "));
	assert_non_null(strstr(buf, "3 records lost, 4 returns without their entry"));
	kfit_ctree_free(t);
}

/* A sample whose outermost user word is no address: left out */
static void test_sample_trim(void **state)
{
	struct kfit_ctree *t = kfit_ctree_new(&(struct kfit_ctree_opts){ 0 });
	struct kfit_rec_sample s = {
		.h = { .type = KFIT_REC_SAMPLE, .pid = 7, .tid = 7, .ts = 5 },
		.nkernel = 1, .nuser = 3,
		.ip = { 0xffffffff81000000ULL, 0x401000, 0x402000, 0x1234 },
	};
	const struct kfit_cnode *n;
	int depth = 0;

	(void)state;
	assert_non_null(t);
	s.h.size = offsetof(struct kfit_rec_sample, ip) + 4 * sizeof(__u64);
	assert_int_equal(kfit_cgview_add(t, true, &s, s.h.size), 0);
	/* sampled mode: fork records are no frames */
	struct kfit_rec_task fk = {
		.h = { .type = KFIT_REC_FORK, .size = sizeof(fk), .pid = 7, .tid = 7, .ts = 6 },
		.child_pid = 8, .child_tid = 8,
	};
	assert_int_equal(kfit_cgview_add(t, true, &fk, sizeof(fk)), 0);
	kfit_ctree_finish(t);
	assert_int_equal(kfit_ctree_nthreads(t), 1);
	for (n = kfit_ctree_thread(t, 0)->root.child; n; n = n->child)
		depth++;
	/* 0x402000, 0x401000, the kernel frame: 0x1234 left out */
	assert_int_equal(depth, 3);
	assert_int_equal(kfit_ctree_get_stats(t)->samples, 1);
	kfit_ctree_free(t);
}

/* Unnamed frames' groups: one per file, "[unknown]" for no file */
static void test_frame_group(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(kfit_ctree_frame_group("libc.so.6+0x1234", buf, sizeof(buf)),
			    "libc.so.6 [unknown]");
	assert_string_equal(kfit_ctree_frame_group("[vdso]+0xa0", buf, sizeof(buf)),
			    "[vdso] [unknown]");
	assert_string_equal(kfit_ctree_frame_group("[unknown] 0x5573548c0670", buf, sizeof(buf)),
			    "[unknown]");
	assert_string_equal(kfit_ctree_frame_group("[unknown]", buf, sizeof(buf)), "[unknown]");
	assert_null(kfit_ctree_frame_group("malloc", buf, sizeof(buf)));
	assert_null(kfit_ctree_frame_group("nf_hook_slow [nf_tables]", buf, sizeof(buf)));
	assert_null(kfit_ctree_frame_group("a+b", buf, sizeof(buf)));
	assert_null(kfit_ctree_frame_group("x+0x", buf, sizeof(buf)));
	assert_null(kfit_ctree_frame_group("x+0x12g", buf, sizeof(buf)));
	assert_null(kfit_ctree_frame_group("+0x12", buf, sizeof(buf)));
	assert_null(kfit_ctree_frame_group("a b+0x12", buf, sizeof(buf)));
}

/* Names as syms.h gives them: 0x401xxx in bash, 0x7f7xxx in libc, 0x555xxx in no file */
static const char *file_sym(void *ctx, __u32 pid, __u64 addr, bool kernel)
{
	static char buf[64];

	(void)ctx;
	(void)pid;
	if (addr == 0x401500)
		return "main";
	if (addr == 0x7f7500)
		return "malloc";
	if (kernel || (addr >> 12) == 0x555)
		snprintf(buf, sizeof(buf), "[unknown] 0x%llx", (unsigned long long)addr);
	else
		snprintf(buf, sizeof(buf), "%s+0x%llx",
			 addr >> 12 == 0x401 ? "bash" : "libc.so.6",
			 (unsigned long long)(addr & 0xfff));
	return buf;
}

/* A sample, user frames given outermost first (as they show), then kernel ones */
static void stack(struct kfit_ctree *t, int nk, int nu, ...)
{
	struct kfit_rec_sample s = { 0 };
	va_list ap;
	int i;

	s.h = (struct kfit_rec){ .type = KFIT_REC_SAMPLE, .pid = 9, .tid = 9, .ts = 5 };
	s.nkernel = nk;
	s.nuser = nu;
	s.h.size = offsetof(struct kfit_rec_sample, ip) + (nk + nu) * sizeof(__u64);
	va_start(ap, nu);
	for (i = nu - 1; i >= 0; i--)
		s.ip[nk + i] = va_arg(ap, __u64);
	for (i = nk - 1; i >= 0; i--)
		s.ip[i] = va_arg(ap, __u64);
	va_end(ap);
	assert_int_equal(kfit_cgview_add(t, true, &s, s.h.size), 0);
}

static struct kfit_ctree *file_tree(bool group)
{
	struct kfit_ctree *t = kfit_ctree_new(&(struct kfit_ctree_opts){
		.sym = file_sym, .group_unknown = group,
	});

	assert_non_null(t);
	assert_int_equal(kfit_ctree_task(t, 9, 9, "bash"), 0);
	/* main > bash+0x10 > bash+0x20 > bash+0x30 > malloc, twice, other offsets */
	stack(t, 0, 5, 0x401500ULL, 0x401010ULL, 0x401020ULL, 0x401030ULL, 0x7f7500ULL);
	stack(t, 0, 5, 0x401500ULL, 0x401040ULL, 0x401050ULL, 0x401060ULL, 0x7f7500ULL);
	/* no file, no file, libc, then the kernel's unknown: not merged with the user's */
	stack(t, 2, 3, 0x555001ULL, 0x555002ULL, 0x7f7010ULL, 0xffffffff81000001ULL,
	      0xffffffff81000002ULL);
	kfit_ctree_finish(t);
	return t;
}

static char *tree_text(const struct kfit_ctree *t)
{
	struct t_cap c;

	kfit_treeprint_text(t_cap_open(&c), t, NULL);
	return t_cap_close(&c);
}

/* Unnamed frames grouped by file, a run of them one frame; or kept apart */
static void test_grouped_tree(void **state)
{
	struct kfit_ctree *t = file_tree(true);
	char *out = tree_text(t);

	(void)state;
	assert_string_equal(out,
		"== pid 9 (bash): 3 samples ==\n"
		"  INCL%   SELF%  FUNCTION\n"
		"  66.7%    0.0%  main\n"
		"  66.7%    0.0%    bash [unknown]\n"
		"  66.7%   66.7%      malloc\n"
		"  33.3%    0.0%  [unknown]\n"
		"  33.3%    0.0%    libc.so.6 [unknown]\n"
		"  33.3%   33.3%      [unknown] [k]\n");
	free(out);
	kfit_ctree_free(t);

	t = file_tree(false);
	out = tree_text(t);
	assert_non_null(strstr(out, "  33.3%    0.0%    bash+0x10\n"
				    "  33.3%    0.0%      bash+0x20\n"));
	assert_non_null(strstr(out, "[unknown] 0x555001\n"));
	assert_non_null(strstr(out, "[unknown] 0xffffffff81000002 [k]\n"));
	free(out);
	kfit_ctree_free(t);
}

static struct kfit_cgview sampled_view(void)
{
	return (struct kfit_cgview){
		.sampled = true, .mechanism = "perf_event", .hz = 100,
		.sample_event = "cpu-clock", .start_ns = 0, .end_ns = 1000000000,
	};
}

/* 1000 samples: main 999 (hot 990, warm 9), cold 1 */
static struct kfit_ctree *spread_tree(void)
{
	struct kfit_ctree *t = kfit_ctree_new(&(struct kfit_ctree_opts){ .sym = file_sym });
	int i;

	assert_non_null(t);
	assert_int_equal(kfit_ctree_task(t, 9, 9, "prog"), 0);
	for (i = 0; i < 990; i++)
		stack(t, 0, 2, 0x401500ULL, 0x7f7500ULL);
	for (i = 0; i < 9; i++)
		stack(t, 0, 2, 0x401500ULL, 0x401010ULL);
	stack(t, 0, 1, 0x7f7010ULL);
	kfit_ctree_finish(t);
	return t;
}

/* Text hides under 0.5% unless told; JSON only when told; --min in samples */
static void test_sampled_render(void **state)
{
	struct kfit_ctree *t = spread_tree();
	struct kfit_cgview v = sampled_view();
	struct kfit_cgview_opts o = { 0 };
	char *out;
	int err;

	(void)state;
	out = render(&v, &o, t, &err);
	assert_int_equal(err, 0);
	assert_true(t_starts(out, "Sampled stacks at 100 Hz (cpu-clock) for 1.00s\n"
			    "1000 samples, 0 lost\n\n"));
	assert_non_null(strstr(out, "   0.9%    0.9%    bash+0x10\n"));
	assert_null(strstr(out, "libc.so.6"));
	assert_non_null(strstr(out, "-- 1 sample hidden in 1 line under 0.5% "
				    "(--percent-limit 0 shows all)\n"));
	free(out);
	o.min_pct_set = true;
	out = render(&v, &o, t, &err);
	assert_non_null(strstr(out, "   0.1%    0.1%  libc.so.6+0x10\n"));
	assert_null(strstr(out, "hidden"));
	free(out);
	/* 100 ms at 100 Hz: 10 samples */
	o = (struct kfit_cgview_opts){ .min_pct_set = true, .min_ns = 100000000 };
	out = render(&v, &o, t, &err);
	assert_null(strstr(out, "bash+0x10"));
	assert_non_null(strstr(out, "-- 10 samples hidden in 2 lines under 100ms (--min)\n"));
	free(out);
	o = (struct kfit_cgview_opts){ .min_ns = 90000000 };
	out = render(&v, &o, t, &err);
	assert_non_null(strstr(out, "   0.9%    0.9%    bash+0x10\n"));
	assert_non_null(strstr(out, "-- 1 sample hidden in 1 line under 0.5% or 90.0ms "
				    "(--percent-limit, --min)\n"));
	free(out);
	o = (struct kfit_cgview_opts){ .json = true };
	out = render(&v, &o, t, &err);
	assert_null(strstr(out, "hidden"));
	assert_non_null(strstr(out, "\"samples\":1,"));
	free(out);
	kfit_ctree_free(t);
}

/* A symbolizer's names, the same pointer each time; each call counted in ctx */
static const char *named_sym(void *ctx, __u32 pid, __u64 addr, bool kernel)
{
	(void)pid;
	++*(int *)ctx;
	if (kernel)
		return "k_leaf";
	return addr == 0x401500 ? "main" : "work";
}

static const char *no_sym(void *ctx, __u32 pid, __u64 addr, bool kernel)
{
	(void)ctx;
	(void)pid;
	(void)addr;
	(void)kernel;
	return NULL;
}

/* main > work > k_leaf of pid 9 tid 10 at ts, a trailing word that is no address */
static struct kfit_rec_sample timed_sample(__u64 ts)
{
	return (struct kfit_rec_sample){
		.h = { .type = KFIT_REC_SAMPLE, .pid = 9, .tid = 10, .ts = ts,
		       .size = offsetof(struct kfit_rec_sample, ip) + 4 * sizeof(__u64) },
		.nkernel = 1, .nuser = 3,
		.ip = { 0xffffffff81000000ULL, 0x401600, 0x401500, 0x1234 },
	};
}

/*
 * Sampled --perfetto: each sample kept as it comes, its frames named
 * then, its thread's name then; written on a timeline by the renderer
 * (before: the caller's to write, callgraph refused it); nothing kept
 * without --perfetto
 */
static void test_timeline(void **state)
{
	struct kfit_ctree *t = kfit_ctree_new(&(struct kfit_ctree_opts){ 0 });
	struct kfit_tasks *ts = kfit_tasks_new(false);
	struct kfit_rec_sample s1 = timed_sample(1000000), s2 = timed_sample(11000000);
	struct kfit_rec_task fk = {
		.h = { .type = KFIT_REC_FORK, .size = sizeof(fk), .pid = 9, .tid = 10 },
		.child_pid = 11, .child_tid = 11,
	};
	struct kfit_cgview_args a = { 0 };
	struct kfit_cgview v = sampled_view();
	struct kfit_cgview_opts o;
	char path[] = "/tmp/kfit-timeline-XXXXXX", *json, *out;
	int calls = 0, err, fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(t && ts && fd >= 0);
	close(fd);
	assert_int_equal(kfit_cgview_timeline(&a, named_sym, &calls, ts), 0);
	assert_null(a.timeline);
	assert_int_equal(kfit_cgview_timeline_add(a.timeline, &s1, s1.h.size), 0);
	a.perfetto = path;
	assert_int_equal(kfit_cgview_open(&a), 0);
	assert_int_equal(kfit_cgview_timeline(&a, named_sym, &calls, ts), 0);
	assert_non_null(a.timeline);
	assert_int_equal(kfit_tasks_set(ts, 9, 10, "worker"), 0);
	assert_int_equal(kfit_cgview_timeline_add(a.timeline, &s1, s1.h.size), 0);
	assert_int_equal(kfit_cgview_timeline_add(a.timeline, &fk, sizeof(fk)), 0);
	assert_int_equal(kfit_cgview_timeline_add(a.timeline, &s2, s2.h.size), 0);
	/* named as they came, 0x1234 left out */
	assert_int_equal(calls, 6);
	assert_int_equal(kfit_tasks_set(ts, 9, 10, "renamed"), 0);
	kfit_ctree_finish(t);
	o = kfit_cgview_opts_of(&a, &(struct kfit_common){ 0 }, 0);
	out = render(&v, &o, t, &err);
	assert_int_equal(err, 0);
	free(out);
	f = fopen(path, "r");
	assert_non_null(f);
	json = calloc(1, 65536);
	assert_non_null(json);
	assert_true(fread(json, 1, 65535, f) > 0);
	fclose(f);
	/* 100 Hz: each sample 10 ms, the shared frames one slice across both */
	t_has_all(json, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":9,\"tid\":10,"
			"\"args\":{\"name\":\"worker\"}}",
		  "{\"ph\":\"X\",\"name\":\"main\",\"cat\":\"sample\",\"ts\":1000.000,"
		  "\"dur\":20000.000,\"pid\":9,\"tid\":10}",
		  "\"name\":\"k_leaf\",\"cat\":\"sample\"",
		  "\"otherData\":{\"samples\":2,\"period_ns\":10000000}");
	assert_false(t_has(json, "0x1234"));
	free(json);
	kfit_cgview_close(&a);
	assert_null(a.timeline);
	/* a frame the symbolizer cannot name: out of memory, nothing kept */
	a = (struct kfit_cgview_args){ .perfetto = path };
	assert_int_equal(kfit_cgview_timeline(&a, no_sym, NULL, ts), 0);
	assert_int_equal(kfit_cgview_timeline_add(a.timeline, &s1, s1.h.size), -ENOMEM);
	kfit_cgview_close(&a);
	unlink(path);
	kfit_tasks_free(ts);
	kfit_ctree_free(t);
}

/* The options' parsers: --width 0 is "not cut", 40 the least */
static void test_parse_opts(void **state)
{
	unsigned int w = 7;
	double pct = -1;
	__u32 d = 0;

	(void)state;
	assert_int_equal(kfit_cgview_parse_width("t", "0", &w), 0);
	assert_int_equal(w, 0);
	assert_int_equal(kfit_cgview_parse_width("t", "40", &w), 0);
	assert_int_equal(w, 40);
	assert_int_equal(kfit_cgview_parse_width("t", "39", &w), -1);
	assert_int_equal(kfit_cgview_parse_width("t", "x", &w), -1);
	assert_int_equal(kfit_cgview_parse_pct("t", "0.5%", &pct), 0);
	assert_true(pct == 0.5);
	assert_int_equal(kfit_cgview_parse_pct("t", "0", &pct), 0);
	assert_true(pct == 0);
	assert_int_equal(kfit_cgview_parse_pct("t", "100.5", &pct), -1);
	assert_int_equal(kfit_cgview_parse_pct("t", "nan", &pct), -1);
	assert_int_equal(kfit_cgview_parse_pct("t", "", &pct), -1);
	assert_int_equal(kfit_cgview_parse_depth("t", "3", &d), 0);
	assert_int_equal(d, 3);
	assert_int_equal(kfit_cgview_parse_depth("t", "0", &d), -1);
}

/* The group's options into kfit_cgview_args, their combinations checked */
static void test_view_args(void **state)
{
	static const struct {
		const char *name;
		const char *opts[3];	/* long names, each without argument or "NAME=ARG" */
		bool json;
		const char *error;	/* NULL: none */
	} cases[] = {
		{ "the tree", { NULL }, false, NULL },
		{ "summary sorted", { "summary", "sort=local" }, false, NULL },
		{ "-n alone", { "top=3" }, false, "-s, -n and -f go with --summary" },
		{ "-f alone", { "fields=count" }, false, "-s, -n and -f go with --summary" },
		{ "summary and -j", { "summary" }, true,
		  "--summary, --folded and -j exclude each other" },
		{ "folded and summary", { "folded", "summary" }, false,
		  "--summary, --folded and -j exclude each other" },
		{ "svg with -j", { "svg=x.svg" }, true, NULL },
	};
	const struct kfit_opt *o;
	struct kfit_cgview_args a;
	struct kfit_cgview_opts r;
	char name[32];
	const char *eq;
	size_t i, j;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		memset(&a, 0, sizeof(a));
		for (j = 0; j < T_N(cases[i].opts) && cases[i].opts[j]; j++) {
			eq = strchr(cases[i].opts[j], '=');
			snprintf(name, sizeof(name), "%.*s",
				 (int)(eq ? eq - cases[i].opts[j] : 31), cases[i].opts[j]);
			for (o = kfit_cgview_options; o->name && strcmp(o->name, name); o++)
				;
			t_true(cases[i].name, o->name != NULL);
			t_int_eq(cases[i].name, kfit_cgview_parse_opt("t", o->key,
								     eq ? eq + 1 : NULL, &a), 0);
		}
		t_str_eq(cases[i].name, kfit_cgview_args_error(&a, cases[i].json),
			 cases[i].error);
	}
	/* and into the renderer's options, the width set or the terminal's */
	memset(&a, 0, sizeof(a));
	a.summary = true;
	a.top = 4;
	a.width_set = true;
	a.width = 50;
	a.pct_set = true;
	a.pct = 2;
	assert_true(kfit_cgview_args_sampled(&a));
	r = kfit_cgview_opts_of(&a, &(struct kfit_common){
		.json = true, .has_min = true, .min_ns = 7 }, 3);
	assert_true(r.summary);
	assert_true(r.json);
	assert_int_equal(r.min_ns, 7);
	assert_int_equal(r.max_depth, 3);
	assert_ptr_equal(r.svg_out, &a.svg_out);
	assert_int_equal(r.top, 4);
	assert_int_equal(r.width, 50);
	assert_true(r.min_pct_set && r.min_pct == 2);
	a.pct_set = a.width_set = false;
	assert_false(kfit_cgview_args_sampled(&a));
}

/* No sample: said why, in the text (and on stderr with -j) */
static void test_no_samples(void **state)
{
	struct kfit_ctree *t = kfit_ctree_new(&(struct kfit_ctree_opts){ .sym = file_sym });
	struct kfit_cgview v = sampled_view();
	struct kfit_cgview_opts o = { 0 };
	char *out;
	int err;

	(void)state;
	assert_non_null(t);
	kfit_ctree_finish(t);
	out = render(&v, &o, t, &err);
	assert_int_equal(err, 0);
	assert_true(t_starts(out, "Sampled stacks at 100 Hz (cpu-clock) for 1.00s\n"
			    "0 samples, 0 lost\n"
			    "Nothing was sampled: cpu-clock samples a task only while it "
			    "runs on a CPU,\nand the tasks watched did not run in these 1.00s"));
	assert_non_null(strstr(out, "callgraph sys:clock_nanosleep -- sleep 1"));
	assert_true(t_longest_line(out) <= 80);
	free(out);
	kfit_ctree_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_functions),
		cmocka_unit_test(test_header_forms),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_streamed_same),
		cmocka_unit_test(test_streamed_random),
		cmocka_unit_test(test_errors_random),
		cmocka_unit_test(test_verbose_counts),
		cmocka_unit_test(test_sample_trim),
		cmocka_unit_test(test_frame_group),
		cmocka_unit_test(test_grouped_tree),
		cmocka_unit_test(test_sampled_render),
		cmocka_unit_test(test_no_samples),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_parse_opts),
		cmocka_unit_test(test_view_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
