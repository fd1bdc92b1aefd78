// SPDX-License-Identifier: GPL-2.0
/*
 * Calls by their path (src/lib/tree/fpaths.c) from a streaming decoder,
 * and two runs compared (kd --diff): per path and per function
 * (fstats_diff.c), and as a differential flame graph (export.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "calltree.h"
#include "export.h"
#include "fpaths.h"
#include "fstats.h"
#include "testlib.h"

static const char *const funcs[] = { "main", "work", "leaf", "irqfn" };
enum { MAIN, WORK, LEAF, IRQFN };

struct sums {
	struct kfit_fpaths p;
	struct kfit_fstats s;
};

static int summed(void *ctx, const struct kfit_ctree *t, const struct kfit_cnode *root)
{
	struct sums *x = ctx;

	return kfit_fstats_add_tree(&x->s, root) ?: kfit_fpaths_add_tree(&x->p, t, root);
}

static void call(struct kfit_ctree *t, __u8 ctx, __u32 id, __u16 depth, __u64 ts, __u64 dur)
{
	struct kfit_rec_call r = {
		.h = { .type = KFIT_REC_CALL, .ctx = ctx, .size = sizeof(r), .pid = 1,
		       .tid = 1, .ts = ts },
		.dur = dur, .id = id, .depth = depth,
	};

	assert_int_equal(kfit_ctree_add(t, &r, sizeof(r)), 0);
}

/*
 * k times: main [0, 100){ work [10, 50){ leaf [20, 30) } }, then a leaf at
 * depth 2 whose caller at depth 1 was lost, then a softirq NET_RX with
 * irqfn in it. scale: every duration times it.
 */
static void run(struct sums *x, int k, __u64 scale)
{
	struct kfit_ctree *t;
	__u64 b;
	int i;

	memset(x, 0, sizeof(*x));
	assert_int_equal(kfit_fstats_init(&x->s, 4), 0);
	for (i = 0; i < 4; i++)
		x->s.f[i].name = funcs[i];
	t = kfit_ctree_new(&(struct kfit_ctree_opts){
		.funcs = funcs, .nfuncs = 4, .on_root = summed, .root_ctx = x,
	});
	assert_non_null(t);
	for (i = 0, b = 0; i < k; i++, b += 1000) {
		call(t, KFIT_CTX_TASK, LEAF, 2, b + 20, 10 * scale);
		call(t, KFIT_CTX_TASK, WORK, 1, b + 10, 40 * scale);
		call(t, KFIT_CTX_TASK, MAIN, 0, b, 100 * scale);
	}
	call(t, KFIT_CTX_TASK, LEAF, 2, b + 500, 5);
	call(t, KFIT_CTX_TASK, MAIN, 0, b + 400, 200);
	call(t, KFIT_CTX_SOFTIRQ, IRQFN, 0, b + 700, 3);
	{
		struct kfit_rec_irq q = {
			.h = { .type = KFIT_REC_IRQ, .ctx = KFIT_CTX_SOFTIRQ, .size = sizeof(q),
			       .pid = 1, .tid = 1, .ts = b + 690 },
			.dur = 20, .vec = 3, .ncalls = 1,
		};

		assert_int_equal(kfit_ctree_add(t, &q, sizeof(q)), 0);
	}
	kfit_ctree_finish(t);
	kfit_fstats_end_trees(&x->s);
	kfit_ctree_free(t);
}

static const struct kfit_fpath *path(const struct kfit_fpaths *p, const char *s)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].path, s))
			return &p->v[i];
	return NULL;
}

static void free_sums(struct sums *x)
{
	kfit_fpaths_free(&x->p);
	kfit_fstats_free(&x->s);
}

static void test_paths(void **state)
{
	static const struct {
		const char *path;
		__u64 count, total, local;
	} want[] = {
		/* the last main's callee is a [lost] stand-in spanning its leaf */
		{ "main", 4, 3 * 100 + 200, 3 * 60 + 200 - 5 },
		{ "main;work", 3, 3 * 40, 3 * 30 },
		{ "main;work;leaf", 3, 3 * 10, 3 * 10 },
		{ "main;[lost];leaf", 1, 5, 5 },
		{ "softirq NET_RX;irqfn", 1, 3, 3 },
	};
	const struct kfit_fpath *e;
	struct sums x;
	size_t i;

	(void)state;
	run(&x, 3, 1);
	t_int_eq("paths", x.p.n, T_N(want));
	for (i = 0; i < T_N(want); i++) {
		e = path(&x.p, want[i].path);
		t_true(want[i].path, e != NULL);
		if (!e)
			continue;
		t_int_eq(want[i].path, e->count, want[i].count);
		t_int_eq(want[i].path, e->total_ns, want[i].total);
		t_int_eq(want[i].path, e->local_ns, want[i].local);
	}
	free_sums(&x);
}

static char *diff_of(const struct sums *a, const struct sums *b,
		     const struct kfit_fdiff_opts *o, bool paths)
{
	struct t_cap c;
	FILE *f = t_cap_open(&c);

	assert_int_equal(paths ? kfit_fpaths_diff_table(f, &a->p, &b->p, o) :
				 kfit_fstats_diff_table(f, &a->s, &b->s, o), 0);
	return t_cap_close(&c);
}

/* The same calls twice as long: every path and function +100%, by how much they grew */
static void test_diff(void **state)
{
	struct kfit_fdiff_opts o = { .before = "before", .after = "after" };
	struct sums a, b;
	char *out;

	(void)state;
	run(&a, 3, 1);
	run(&b, 3, 2);
	out = diff_of(&a, &b, &o, false);
	/* main: 500 -> 800 (+300), work +120, leaf +30, irqfn unchanged */
	t_true(out, t_starts(out, "FUNCTION"));
	t_true(out, strstr(out, "main") < strstr(out, "work") &&
		    strstr(out, "work") < strstr(out, "leaf") &&
		    strstr(out, "leaf") < strstr(out, "irqfn"));
	t_has_all(out, "4 -> 4 +0.0%", "500ns -> 800ns +60.0%", "120ns -> 240ns +100.0%",
		  "3ns -> 3ns +0.0%");
	free(out);
	o.min_change = 50;
	o.fields = 1U << KFIT_FF_TIME;
	out = diff_of(&a, &b, &o, false);
	/* main +60%, work +100%, leaf +85.7% (its lost-caller call kept 5ns) */
	t_true(out, !strstr(out, "irqfn"));
	t_has_all(out, "main ", "work ", "35ns -> 65ns +85.7%",
		  "1 function changed less than 50% or past -n: not shown");
	free(out);
	o = (struct kfit_fdiff_opts){ .before = "before", .after = "after", .top = 1 };
	out = diff_of(&a, &b, &o, true);
	t_has_all(out, "CALL PATH", "main ", "4 paths changed less than 0% or past the first 1");
	free(out);
	free_sums(&a);
	free_sums(&b);
}

/* A function or path of one run only: counted apart, not compared */
static void test_one_run(void **state)
{
	struct kfit_fdiff_opts o = { .before = "before", .after = "after" };
	struct sums a, b;
	char *out;

	(void)state;
	run(&a, 3, 1);
	run(&b, 3, 1);
	b.s.f[IRQFN].h.count = 0;
	out = diff_of(&b, &a, &o, false);
	t_has_all(out, "only in after: irqfn (1 call, 3ns)");
	free(out);
	kfit_fpaths_free(&b.p);
	out = diff_of(&a, &b, &o, true);
	t_has_all(out, "5 paths in before only, 0 in after only");
	free(out);
	free_sums(&a);
	free_sums(&b);
}

/*
 * The paths as a differential flame graph, widths from after: main's
 * own time +48% (a part of its calls scaled), work and its leaf doubled,
 * the interrupt's and the lost caller's leaf the same: white
 */
static void test_diff_svg(void **state)
{
	struct sums a, b;
	struct t_cap c;
	char *svg;
	FILE *f;

	(void)state;
	run(&a, 3, 1);
	run(&b, 3, 2);
	f = t_cap_open(&c);
	assert_int_equal(kfit_fpaths_diff_svg(f, &a.p, &b.p, NULL), 0);
	svg = t_cap_close(&c);
	/* all, main, work, leaf, [lost], its leaf, softirq NET_RX, irqfn */
	t_int_eq("frames", t_count(svg, "<g class=\"f\">"), 8);
	t_has_all(svg,
		  "<title>main: before 500ns, after 800ns, +60.0%; local: before 375ns, "
		  "after 555ns, +48.0%</title><rect x=\"10.0\" y=\"80\" width=\"1175.6\" "
		  "height=\"15\" fill=\"rgb(255,187,187)\"",
		  "<title>leaf: before 30ns, after 60ns, +100.0%; local: before 30ns, "
		  "after 60ns, +100.0%</title><rect x=\"17.3\" y=\"48\" width=\"88.2\" "
		  "height=\"15\" fill=\"rgb(255,150,150)\"",
		  "<title>[lost]: before 5ns, after 5ns, +0.0%</title>",
		  "<title>irqfn: before 3ns, after 3ns, +0.0%; local: before 3ns, "
		  "after 3ns, +0.0%</title><rect x=\"1185.6\" y=\"64\" width=\"4.4\" "
		  "height=\"15\" fill=\"rgb(255,255,255)\"");
	free(svg);
	free_sums(&a);
	free_sums(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_one_run),
		cmocka_unit_test(test_diff_svg),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
