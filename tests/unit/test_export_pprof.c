// SPDX-License-Identifier: GPL-2.0
/*
 * kfit_export_pprof over trees built by hand, read back by a decoder of
 * its own (gunzip with zlib, then protobuf's wire format by
 * proto/profile.proto's field numbers, nothing shared with the encoder):
 * every id resolved, the string table's first entry "", each sample
 * printed as "THREAD: ROOT;...;LEAF VALUES" and compared whole with what
 * the tree must give, the mappings, functions, header and comments too.
 * The streamed flame's profile is the same bytes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <cmocka.h>
#include "export.h"
#include "testlib.h"

/* ---- a decoder of our own ---- */

#define MAXV	4
#define MAXN	64

struct dsample {
	__u64 loc[MAXN];
	int nloc;
	__s64 val[MAXV];
	int nval;
	__s64 label_key, label_str;
	int nlabel;
};

struct dprof {
	char *strs[256];
	int nstrs;
	__s64 types[MAXV][2];
	int ntypes;
	struct dsample s[MAXN];
	int ns;
	struct { __u64 id, start, limit; __s64 file, build_id; bool has_functions; } map[MAXN];
	int nmap;
	/* func: the outermost line's; lines: every line's, innermost first */
	struct { __u64 id, map, addr, func, lines[8]; int nlines; } loc[MAXN];
	int nloc;
	struct { __u64 id; __s64 name, sys, file; } fn[MAXN];
	int nfn;
	__s64 time, duration, period, period_type[2], default_type;
	__s64 comment[8];
	int ncomment;
};

struct rd {
	const __u8 *p, *end;
};

static __u64 varint(struct rd *r)
{
	__u64 v = 0;
	int shift = 0;

	for (;;) {
		assert_true(r->p < r->end);
		assert_true(shift < 64);
		v |= (__u64)(*r->p & 0x7f) << shift;
		if (!(*r->p++ & 0x80))
			return v;
		shift += 7;
	}
}

/* The next field: its number, and a varint's value or a length-delimited's bytes */
static int field(struct rd *r, __u64 *v, struct rd *sub)
{
	__u64 key = varint(r), len;

	switch (key & 7) {
	case 0:
		*v = varint(r);
		break;
	case 2:
		len = varint(r);
		assert_true(len <= (__u64)(r->end - r->p));
		sub->p = r->p;
		sub->end = r->p + len;
		r->p += len;
		break;
	default:
		fail_msg("wire type %llu: the encoder writes varints and bytes only",
			 (unsigned long long)(key & 7));
	}
	return key >> 3;
}

/* A packed repeated varint field's values into v (n of them) */
static int packed(struct rd *r, __u64 *v, int max)
{
	int n = 0;

	while (r->p < r->end) {
		assert_true(n < max);
		v[n++] = varint(r);
	}
	return n;
}

static void d_value_type(struct rd *r, __s64 *vt)
{
	struct rd sub;
	__u64 v = 0;
	int f;

	vt[0] = vt[1] = 0;
	while (r->p < r->end) {
		f = field(r, &v, &sub);
		assert_true(f == 1 || f == 2);
		vt[f - 1] = v;
	}
}

static void d_sample(struct rd *r, struct dsample *s)
{
	struct rd sub, lab;
	__u64 v = 0, tmp[MAXV];
	int f, i;

	memset(s, 0, sizeof(*s));
	while (r->p < r->end) {
		switch (field(r, &v, &sub)) {
		case 1:
			s->nloc = packed(&sub, s->loc, MAXN);
			break;
		case 2:
			s->nval = packed(&sub, tmp, MAXV);
			for (i = 0; i < s->nval; i++)
				s->val[i] = tmp[i];
			break;
		case 3:
			s->nlabel++;
			while (sub.p < sub.end) {
				f = field(&sub, &v, &lab);
				if (f == 1)
					s->label_key = v;
				else if (f == 2)
					s->label_str = v;
				else
					fail_msg("label field %d: a string label has key and str", f);
			}
			break;
		default:
			fail_msg("unknown Sample field");
		}
	}
}

static void d_mapping(struct rd *r, struct dprof *d)
{
	struct rd sub;
	__u64 v = 0;

	assert_true(d->nmap < MAXN);
	memset(&d->map[d->nmap], 0, sizeof(d->map[0]));
	while (r->p < r->end) {
		switch (field(r, &v, &sub)) {
		case 1: d->map[d->nmap].id = v; break;
		case 2: d->map[d->nmap].start = v; break;
		case 3: d->map[d->nmap].limit = v; break;
		case 5: d->map[d->nmap].file = v; break;
		case 6: d->map[d->nmap].build_id = v; break;
		case 7: d->map[d->nmap].has_functions = v; break;
		default: fail_msg("unexpected Mapping field");
		}
	}
	d->nmap++;
}

static void d_location(struct rd *r, struct dprof *d)
{
	struct rd sub, ln;
	__u64 v = 0;
	int f;

	assert_true(d->nloc < MAXN);
	memset(&d->loc[d->nloc], 0, sizeof(d->loc[0]));
	while (r->p < r->end) {
		switch (field(r, &v, &sub)) {
		case 1: d->loc[d->nloc].id = v; break;
		case 2: d->loc[d->nloc].map = v; break;
		case 3: d->loc[d->nloc].addr = v; break;
		case 4:
			assert_true(d->loc[d->nloc].nlines < 8);
			while (sub.p < sub.end) {
				f = field(&sub, &v, &ln);
				assert_int_equal(f, 1);	/* no line numbers: function only */
				d->loc[d->nloc].func = v;
				d->loc[d->nloc].lines[d->loc[d->nloc].nlines] = v;
			}
			d->loc[d->nloc].nlines++;
			break;
		default: fail_msg("unexpected Location field");
		}
	}
	d->nloc++;
}

static void d_function(struct rd *r, struct dprof *d)
{
	struct rd sub;
	__u64 v = 0;

	assert_true(d->nfn < MAXN);
	memset(&d->fn[d->nfn], 0, sizeof(d->fn[0]));
	while (r->p < r->end) {
		switch (field(r, &v, &sub)) {
		case 1: d->fn[d->nfn].id = v; break;
		case 2: d->fn[d->nfn].name = v; break;
		case 3: d->fn[d->nfn].sys = v; break;
		case 4: d->fn[d->nfn].file = v; break;
		default: fail_msg("unexpected Function field");
		}
	}
	d->nfn++;
}

/* The Profile message's fields (proto/profile.proto) */
static void d_profile(struct rd *r, struct dprof *d)
{
	struct rd sub;
	__u64 v = 0;

	memset(d, 0, sizeof(*d));
	while (r->p < r->end) {
		switch (field(r, &v, &sub)) {
		case 1:
			assert_true(d->ntypes < MAXV);
			d_value_type(&sub, d->types[d->ntypes++]);
			break;
		case 2:
			assert_true(d->ns < MAXN);
			d_sample(&sub, &d->s[d->ns++]);
			break;
		case 3: d_mapping(&sub, d); break;
		case 4: d_location(&sub, d); break;
		case 5: d_function(&sub, d); break;
		case 6:
			assert_true(d->nstrs < 256);
			d->strs[d->nstrs++] = strndup((const char *)sub.p, sub.end - sub.p);
			break;
		case 9: d->time = v; break;
		case 10: d->duration = v; break;
		case 11: d_value_type(&sub, d->period_type); break;
		case 12: d->period = v; break;
		case 13:
			assert_true(d->ncomment < 8);
			d->comment[d->ncomment++] = v;
			break;
		case 14: d->default_type = v; break;
		default: fail_msg("unexpected Profile field");
		}
	}
}

static void d_free(struct dprof *d)
{
	int i;

	for (i = 0; i < d->nstrs; i++)
		free(d->strs[i]);
}

static const char *str(const struct dprof *d, __s64 i)
{
	assert_true(i >= 0 && i < d->nstrs);
	return d->strs[i];
}

static int find_loc(const struct dprof *d, __u64 id)
{
	int i;

	for (i = 0; i < d->nloc; i++)
		if (d->loc[i].id == id)
			return i;
	fail_msg("no location %llu", (unsigned long long)id);
	return -1;
}

static int find_fn(const struct dprof *d, __u64 id)
{
	int i;

	for (i = 0; i < d->nfn; i++)
		if (d->fn[i].id == id)
			return i;
	fail_msg("no function %llu", (unsigned long long)id);
	return -1;
}

static int find_map(const struct dprof *d, __u64 id)
{
	int i;

	for (i = 0; i < d->nmap; i++)
		if (d->map[i].id == id)
			return i;
	fail_msg("no mapping %llu", (unsigned long long)id);
	return -1;
}

/* Ids nonzero and unique; each reference resolves */
static void check_ids(const struct dprof *d)
{
	int i, k;

	assert_true(d->nstrs > 0);
	assert_string_equal(d->strs[0], "");
	for (i = 0; i < d->nloc; i++) {
		assert_true(d->loc[i].id);
		assert_true(d->loc[i].nlines >= 1);
		for (k = 0; k < d->loc[i].nlines; k++)
			find_fn(d, d->loc[i].lines[k]);
		if (d->loc[i].map)
			find_map(d, d->loc[i].map);
		for (k = 0; k < i; k++)
			assert_true(d->loc[k].id != d->loc[i].id);
	}
	for (i = 0; i < d->nfn; i++)
		for (k = 0; k < i; k++)
			assert_true(d->fn[k].id && d->fn[k].id != d->fn[i].id);
	for (i = 0; i < d->nmap; i++) {
		assert_true(d->map[i].id && d->map[i].has_functions);
		for (k = 0; k < i; k++)
			assert_true(d->map[k].id != d->map[i].id);
	}
	for (i = 0; i < d->ns; i++) {
		assert_int_equal(d->s[i].nval, d->ntypes);
		for (k = 0; k < d->s[i].nloc; k++)
			find_loc(d, d->s[i].loc[k]);
	}
}

/* gunzip what was written, then decode it */
static void decode(const char *buf, size_t len, struct dprof *d)
{
	static __u8 out[1 << 20];
	z_stream z;
	struct rd r;

	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 16 + 15), Z_OK);
	z.next_in = (Bytef *)buf;
	z.avail_in = len;
	z.next_out = out;
	z.avail_out = sizeof(out);
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	assert_int_equal(z.avail_in, 0);
	r.p = out;
	r.end = out + z.total_out;
	inflateEnd(&z);
	d_profile(&r, d);
	check_ids(d);
}

/* "THREAD: ROOT;...;LEAF V1 V2 V3" per sample, in the profile's order */
static char *samples_text(const struct dprof *d)
{
	struct t_cap c;
	int i, j, k, l;

	t_cap_open(&c);
	for (i = 0; i < d->ns; i++) {
		const struct dsample *s = &d->s[i];

		assert_int_equal(s->nlabel, 1);
		fprintf(c.f, "%s=%s:", str(d, s->label_key), str(d, s->label_str));
		/* a location of inlined calls: its lines, outermost first */
		for (k = s->nloc - 1; k >= 0; k--) {
			l = find_loc(d, s->loc[k]);
			for (j = d->loc[l].nlines - 1; j >= 0; j--)
				fprintf(c.f, "%s%s", k == s->nloc - 1 && j == d->loc[l].nlines - 1 ?
					" " : ";",
					str(d, d->fn[find_fn(d, d->loc[l].lines[j])].name));
		}
		for (k = 0; k < s->nval; k++)
			fprintf(c.f, " %lld", (long long)s->val[k]);
		fputc('\n', c.f);
	}
	return t_cap_close(&c);
}

/* "NAME SYSTEM_NAME MAPPING_FILE BUILD_ID" per function, by name ("-": none) */
static char *functions_text(const struct dprof *d)
{
	struct t_cap c;
	int i, k, m;

	t_cap_open(&c);
	for (i = 0; i < d->nloc; i++) {
		k = find_fn(d, d->loc[i].func);
		m = d->loc[i].map ? find_map(d, d->loc[i].map) : -1;
		assert_int_equal(d->loc[i].addr, 0);
		assert_int_equal(d->fn[k].file, 0);
		fprintf(c.f, "%s %s %s %s\n", str(d, d->fn[k].name), str(d, d->fn[k].sys),
			m < 0 ? "-" : str(d, d->map[m].file),
			m < 0 || !*str(d, d->map[m].build_id) ? "-" : str(d, d->map[m].build_id));
	}
	return t_cap_close(&c);
}

/* ---- trees by hand ---- */

#define POOL 256

static struct kfit_cnode nodes[POOL];
static struct t_pool pool = { nodes, 0, POOL };

static const char *const funcs[] = {
	"vfs_read", "rw_verify_area", "e1000_intr",	/* 0-2: kernel */
	"main", "loop", "helper",			/* 3-5: user */
};

/* What the caller knows of them: helper's object is not known */
static const struct kfit_export_pprof_obj objs[] = {
	{ .name = "vfs_read", .kernel = true, .object = "vmlinux" },
	{ .name = "rw_verify_area", .kernel = true, .object = "vmlinux" },
	{ .name = "e1000_intr", .kernel = true, .object = "e1000" },
	{ .name = "main", .object = "/usr/bin/app", .build_id = "abcd01" },
	{ .name = "loop", .object = "/usr/lib/libx.so.1", .build_id = "" },
	{ .name = "helper" },
};

static int setup(void **state)
{
	(void)state;
	return t_names_setup(funcs, T_N(funcs), NULL, 0);
}

static int teardown(void **state)
{
	(void)state;
	t_names_teardown();
	return 0;
}

static bool kernel(void *ctx, const struct kfit_cnode *n)
{
	(void)ctx;
	return n->kind == KFIT_CN_FRAME ? n->id : n->id < 3;
}

static struct kfit_cnode *add(struct kfit_cnode *parent, __u8 kind, __u32 id,
			      __u64 start, __u64 dur, __u64 local)
{
	return t_node(&pool, parent, kind, id, start, dur, local);
}

struct fixture {
	struct kfit_cthread th[2];
	const struct kfit_cthread *ptr[2];
	struct kfit_export_src src;
};

/*
 * reader (100/100): main [1000, 11000) over vfs_read (3 us, its
 * rw_verify_area 1 us), 2 us blocked and a NET_RX softirq of 1 us with
 * e1000_intr's 800 ns in it: LOCAL 7 us, interrupt and sleep included;
 * main again for 1 us.
 * worker (100/101): loop 700 ns; helper that never returned (4 us); a
 * lost stand-in (300 ns); loop inside loop (500 ns, 200 ns of it inner).
 */
static void build_exact(struct fixture *fx)
{
	struct kfit_cnode *r, *m, *irq, *l;

	pool.used = 0;
	t_thread_init(&fx->th[0], 100, 100, "reader");
	t_thread_init(&fx->th[1], 100, 101, "worker");
	r = &fx->th[0].root;
	m = add(r, KFIT_CN_CALL, 3, 1000, 10000, 7000);
	add(add(m, KFIT_CN_CALL, 0, 1100, 3000, 2000), KFIT_CN_CALL, 1, 1200, 1000, 1000);
	add(m, KFIT_CN_SWITCH, 1, 5000, 2000, 0);
	irq = add(m, KFIT_CN_IRQ, 3, 8000, 1000, 0);
	irq->ctx = KFIT_CTX_SOFTIRQ;
	irq->ncalls = 1;
	add(irq, KFIT_CN_CALL, 2, 8100, 800, 800);
	add(r, KFIT_CN_CALL, 3, 20000, 1000, 1000);

	r = &fx->th[1].root;
	add(r, KFIT_CN_CALL, 4, 5000, 700, 700);
	add(r, KFIT_CN_CALL, 5, 6000, 4000, 4000)->flags = KFIT_RF_INCOMPLETE | KFIT_RF_END;
	add(r, KFIT_CN_CALL, 4, 11000, 300, 300)->flags = KFIT_RF_LOST;
	l = add(r, KFIT_CN_CALL, 4, 12000, 500, 300);
	add(l, KFIT_CN_CALL, 4, 12100, 200, 200);

	fx->ptr[0] = &fx->th[0];
	fx->ptr[1] = &fx->th[1];
	memset(&fx->src, 0, sizeof(fx->src));
	fx->src.threads = fx->ptr;
	fx->src.nthreads = 2;
	fx->src.name = t_names;
	fx->src.kernel = kernel;
}

static const char *const comments[] = {
	"kfit 0.1.0", "callgraph -o f.kft 'vfs_*' main", "Linux box 6.1.0 x86_64", NULL,
};

static const struct kfit_export_pprof_opts exact_opts = {
	.time_ns = 1700000000123456789ULL,
	.duration_ns = 250000000,
	.comments = comments,
	.kernel_build_id = "24a3598fd700114d0a1b1a4871badcee75d0acac",
	.objs = objs,
	.nobjs = T_N(objs),
};

/* kfit_export_pprof of src into memory: 0, its bytes in *buf (freed by the caller) */
static char *write_pprof(const struct kfit_export_src *src,
			 const struct kfit_export_pprof_opts *o, size_t *len)
{
	struct t_cap c;

	t_cap_open(&c);
	assert_int_equal(kfit_export_pprof(src, o, c.f), 0);
	fflush(c.f);
	*len = c.len;
	return t_cap_close(&c);
}

static void test_exact(void **state)
{
	struct fixture fx;
	struct dprof d;
	char *buf, *got;
	size_t len;

	(void)state;
	build_exact(&fx);
	buf = write_pprof(&fx.src, &exact_opts, &len);
	/* gzip's magic, as pprof sniffs it */
	assert_true(len > 2 && (__u8)buf[0] == 0x1f && (__u8)buf[1] == 0x8b);
	decode(buf, len, &d);
	free(buf);

	assert_int_equal(d.ntypes, 3);
	assert_string_equal(str(&d, d.types[0][0]), "calls");
	assert_string_equal(str(&d, d.types[0][1]), "count");
	assert_string_equal(str(&d, d.types[1][0]), "wall");
	assert_string_equal(str(&d, d.types[1][1]), "nanoseconds");
	assert_string_equal(str(&d, d.types[2][0]), "local");
	assert_string_equal(str(&d, d.types[2][1]), "nanoseconds");
	assert_string_equal(str(&d, d.default_type), "wall");
	assert_int_equal(d.time, 1700000000123456789LL);
	assert_int_equal(d.duration, 250000000);
	assert_int_equal(d.period, 0);
	assert_int_equal(d.period_type[0], 0);
	assert_int_equal(d.ncomment, 3);
	assert_string_equal(str(&d, d.comment[0]), "kfit 0.1.0");
	assert_string_equal(str(&d, d.comment[1]), "callgraph -o f.kft 'vfs_*' main");
	assert_string_equal(str(&d, d.comment[2]), "Linux box 6.1.0 x86_64");

	/*
	 * Calls, wall (self: the folded value) and LOCAL per stack, in the
	 * folded stacks' order; interrupts and the sleep frames of their
	 * own with their wall time, counted in main's LOCAL; helper and
	 * [lost] with wall time, no call; loop in loop its own stack
	 */
	got = samples_text(&d);
	assert_string_equal(got,
		"thread=reader: main 2 5000 8000\n"
		"thread=reader: main;[irq] softirq NET_RX 0 200 0\n"
		"thread=reader: main;[irq] softirq NET_RX;e1000_intr 1 800 800\n"
		"thread=reader: main;[off-cpu] blocked 0 2000 0\n"
		"thread=reader: main;vfs_read 1 2000 2000\n"
		"thread=reader: main;vfs_read;rw_verify_area 1 1000 1000\n"
		"thread=worker: [lost] 0 300 0\n"
		"thread=worker: helper 0 4000 0\n"
		"thread=worker: loop 2 1000 1000\n"
		"thread=worker: loop;loop 1 200 200\n");
	free(got);

	/* a location per function; kernel code in the kernel's or its module's mapping */
	got = functions_text(&d);
	assert_string_equal(got,
		"main main /usr/bin/app abcd01\n"
		"[irq] softirq NET_RX [irq] softirq NET_RX - -\n"
		"e1000_intr e1000_intr [e1000] -\n"
		"[off-cpu] blocked [off-cpu] blocked - -\n"
		"vfs_read vfs_read [kernel.kallsyms] 24a3598fd700114d0a1b1a4871badcee75d0acac\n"
		"rw_verify_area rw_verify_area [kernel.kallsyms] "
		"24a3598fd700114d0a1b1a4871badcee75d0acac\n"
		"[lost] [lost] - -\n"
		"helper helper - -\n"
		"loop loop /usr/lib/libx.so.1 -\n");
	free(got);
	assert_int_equal(d.nmap, 4);
	d_free(&d);
}

/* The flame made as the trees stream gives the same profile, byte for byte */
static void test_streamed_same(void **state)
{
	struct kfit_export_flame *fl;
	const struct kfit_cnode *n;
	struct fixture fx;
	struct t_cap c;
	char *whole, *streamed;
	size_t len, slen;

	(void)state;
	build_exact(&fx);
	whole = write_pprof(&fx.src, &exact_opts, &len);
	fl = kfit_export_flame_new(&fx.src);
	assert_non_null(fl);
	/* the threads' top-level nodes interleaved, as a stream gives them */
	for (n = fx.th[1].root.child; n; n = n->next)
		assert_int_equal(kfit_export_flame_add(fl, &fx.th[1], n, NULL), 0);
	for (n = fx.th[0].root.child; n; n = n->next)
		assert_int_equal(kfit_export_flame_add(fl, &fx.th[0], n, NULL), 0);
	assert_int_equal(kfit_export_flame_end(fl, NULL), 0);
	t_cap_open(&c);
	assert_int_equal(kfit_export_flame_pprof(fl, &exact_opts, c.f), 0);
	fflush(c.f);
	slen = c.len;
	streamed = t_cap_close(&c);
	kfit_export_flame_free(fl);
	assert_int_equal(slen, len);
	assert_memory_equal(streamed, whole, len);
	free(whole);
	free(streamed);
}

/*
 * A leaf given as its record (kfit_export_flame_call): a call counted
 * once with its time as LOCAL, an incomplete one with its time only
 */
static void test_streamed_leaf(void **state)
{
	struct kfit_export_flame *fl;
	struct fixture fx;
	struct t_cap c;
	struct dprof d;
	char *buf, *got;
	size_t len;

	(void)state;
	build_exact(&fx);
	fl = kfit_export_flame_new(&fx.src);
	assert_non_null(fl);
	assert_int_equal(kfit_export_flame_call(fl, &fx.th[1], "loop", false, 700, true, NULL), 0);
	assert_int_equal(kfit_export_flame_call(fl, &fx.th[1], "loop", false, 50, false, NULL), 0);
	assert_int_equal(kfit_export_flame_call(fl, &fx.th[1], "vfs_read", true, 30, true, NULL), 0);
	assert_int_equal(kfit_export_flame_end(fl, NULL), 0);
	t_cap_open(&c);
	assert_int_equal(kfit_export_flame_pprof(fl, &exact_opts, c.f), 0);
	fflush(c.f);
	len = c.len;
	buf = t_cap_close(&c);
	kfit_export_flame_free(fl);
	decode(buf, len, &d);
	free(buf);
	got = samples_text(&d);
	assert_string_equal(got,
		"thread=worker: loop 1 750 700\n"
		"thread=worker: vfs_read 1 30 30\n");
	free(got);
	d_free(&d);
}

/*
 * busy (pid 200), sampled at 99 Hz: 1 sample with no frame, main ->
 * compute -> a timer interrupt, a module's frame; no object known for
 * user frames (a sampled tree merges by name)
 */
/* A sampled frame under parent, named, with self samples */
static struct kfit_cnode *frame(struct kfit_cnode *parent, bool kernel_code, const char *name,
				__u64 self)
{
	struct kfit_cnode *n = add(parent, KFIT_CN_FRAME, kernel_code, 0, 0, 0);

	n->name = name;
	n->self = self;
	return n;
}

/* Thread t's sampled profile, written and decoded into d */
static void sampled_profile(struct kfit_cthread *t, const struct kfit_export_pprof_opts *o,
			    struct dprof *d)
{
	const struct kfit_cthread *ptr = t;
	struct kfit_export_src src = { .threads = &ptr, .nthreads = 1, .sampled = true,
				       .name = t_names, .kernel = kernel };
	size_t len;
	char *buf = write_pprof(&src, o, &len);

	decode(buf, len, d);
	free(buf);
}

static void test_sampled(void **state)
{
	struct kfit_export_pprof_opts o = { .period_ns = 10101010, .duration_ns = 1000000000 };
	struct kfit_cnode *m, *c;
	struct kfit_cthread t;
	struct dprof d;
	char *got;

	(void)state;
	pool.used = 0;
	t_thread_init(&t, 200, 200, "busy");
	t.root.self = 1;
	m = frame(&t.root, false, "main", 1);
	c = frame(m, false, "compute", 7);
	frame(c, true, "asm_sysvec_apic_timer_interrupt", 2);
	frame(c, true, "nf_hook_slow [nf_tables]", 3);
	sampled_profile(&t, &o, &d);

	assert_int_equal(d.ntypes, 2);
	assert_string_equal(str(&d, d.types[0][0]), "samples");
	assert_string_equal(str(&d, d.types[0][1]), "count");
	assert_string_equal(str(&d, d.types[1][0]), "cpu");
	assert_string_equal(str(&d, d.types[1][1]), "nanoseconds");
	assert_string_equal(str(&d, d.default_type), "cpu");
	assert_string_equal(str(&d, d.period_type[0]), "cpu");
	assert_string_equal(str(&d, d.period_type[1]), "nanoseconds");
	assert_int_equal(d.period, 10101010);
	assert_int_equal(d.time, 0);
	assert_int_equal(d.ncomment, 0);
	got = samples_text(&d);
	assert_string_equal(got,
		"thread=busy: 1 10101010\n"
		"thread=busy: main 1 10101010\n"
		"thread=busy: main;compute 7 70707070\n"
		"thread=busy: main;compute;asm_sysvec_apic_timer_interrupt 2 20202020\n"
		"thread=busy: main;compute;nf_hook_slow [nf_tables] 3 30303030\n");
	free(got);
	got = functions_text(&d);
	assert_string_equal(got,
		"main main - -\n"
		"compute compute - -\n"
		"asm_sysvec_apic_timer_interrupt asm_sysvec_apic_timer_interrupt "
		"[kernel.kallsyms] -\n"
		"nf_hook_slow [nf_tables] nf_hook_slow [nf_tables] -\n");
	free(got);
	d_free(&d);
}

/* Inlined frames: one location, a line a function (innermost first) */
static void test_sampled_inlined(void **state)
{
	struct kfit_export_pprof_opts o = { .period_ns = 1000000, .duration_ns = 1000000000 };
	struct kfit_cnode *m, *c, *h;
	struct kfit_cthread t;
	struct dprof d;
	char *got;
	int i, three = 0;

	(void)state;
	pool.used = 0;
	t_thread_init(&t, 200, 200, "busy");
	m = frame(&t.root, false, "main", 0);
	c = frame(m, false, "compute", 1);
	h = frame(c, false, "helper (inlined)", 2);
	frame(h, false, "leaf (inlined)", 4);
	sampled_profile(&t, &o, &d);
	got = samples_text(&d);
	assert_string_equal(got,
		"thread=busy: main;compute 1 1000000\n"
		"thread=busy: main;compute;helper 2 2000000\n"
		"thread=busy: main;compute;helper;leaf 4 4000000\n");
	free(got);
	for (i = 0; i < d.nloc; i++)
		if (d.loc[i].nlines == 3) {
			three++;
			assert_string_equal(str(&d, d.fn[find_fn(&d, d.loc[i].lines[0])].name), "leaf");
			assert_string_equal(str(&d, d.fn[find_fn(&d, d.loc[i].lines[2])].name),
					    "compute");
		}
	assert_int_equal(three, 1);
	d_free(&d);
}

/* A kernel and a user function of one name are two functions */
static void test_same_name(void **state)
{
	struct kfit_cnode *a, *b;
	struct kfit_cthread t;
	const struct kfit_cthread *ptr = &t;
	struct kfit_export_src src = { .threads = &ptr, .nthreads = 1, .sampled = true,
				       .name = t_names, .kernel = kernel };
	struct kfit_export_pprof_opts o = { .period_ns = 1000 };
	struct dprof d;
	char *buf, *got;
	size_t len;

	(void)state;
	pool.used = 0;
	t_thread_init(&t, 1, 1, "x");
	a = add(&t.root, KFIT_CN_FRAME, 0, 0, 0, 0);
	a->name = "poll";
	a->self = 1;
	b = add(a, KFIT_CN_FRAME, 1, 0, 0, 0);
	b->name = "poll";
	b->self = 2;
	buf = write_pprof(&src, &o, &len);
	decode(buf, len, &d);
	free(buf);
	got = samples_text(&d);
	assert_string_equal(got, "thread=x: poll 1 1000\nthread=x: poll;poll 2 2000\n");
	free(got);
	assert_int_equal(d.nloc, 2);
	assert_int_equal(d.nfn, 2);
	assert_true(d.s[1].loc[0] != d.s[1].loc[1]);
	d_free(&d);
}

/* Nothing traced: a valid profile without samples */
static void test_empty(void **state)
{
	struct kfit_export_src src = { .name = t_names };
	struct dprof d;
	char *buf;
	size_t len;

	(void)state;
	buf = write_pprof(&src, &exact_opts, &len);
	decode(buf, len, &d);
	free(buf);
	assert_int_equal(d.ns, 0);
	assert_int_equal(d.ntypes, 3);
	d_free(&d);
}

static void test_write_error(void **state)
{
	FILE *f = fopen("/dev/full", "w");
	struct fixture fx;

	(void)state;
	if (!f)
		skip();
	build_exact(&fx);
	assert_int_equal(kfit_export_pprof(&fx.src, &exact_opts, f), -EIO);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_streamed_same),
		cmocka_unit_test(test_streamed_leaf),
		cmocka_unit_test(test_sampled),
		cmocka_unit_test(test_sampled_inlined),
		cmocka_unit_test(test_same_name),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
