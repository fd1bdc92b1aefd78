// SPDX-License-Identifier: GPL-2.0
/*
 * The trace file: written by kft_writer_*, read back by kft_open*, byte
 * for byte; its metadata; the -s cap and flight mode; and files cut,
 * corrupted or foreign, which must be refused or read in part, never
 * crash (run under make unit-asan too).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "testlib.h"
#include "kfit/rec.h"
#include "kfit/ret.h"
#include "kft.h"
#include "kft_codec.h"
#include "kftmeta.h"
#include "../helpers/tpformats.h"

static __u64 rng;

/* Each test on the same records whatever ran before */
static int reseed(void **state)
{
	(void)state;
	rng = 88172645463325252ULL;
	return 0;
}

static __u64 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Records written, back to back, to compare with what is read */
struct recs {
	char *buf;
	size_t len, cap, n;
	__u64 ts;
};

static void *recs_add(struct recs *r, size_t size)
{
	void *p;

	if (r->len + size > r->cap) {
		r->cap = r->cap ? 2 * r->cap : 65536;
		r->buf = realloc(r->buf, r->cap);
		assert_non_null(r->buf);
	}
	p = r->buf + r->len;
	memset(p, 0, size);
	r->len += size;
	r->n++;
	return p;
}

/* A random record of a random type: every type, varying sizes */
static struct kfit_rec *gen(struct recs *r)
{
	int type = rnd() % (KFIT_REC_NTYPES - 1) + 1;
	size_t size;
	struct kfit_rec *h;
	int i, n;

	switch (type) {
	case KFIT_REC_CALL: size = sizeof(struct kfit_rec_call); break;
	case KFIT_REC_SWITCH: size = sizeof(struct kfit_rec_switch); break;
	case KFIT_REC_IRQ: size = sizeof(struct kfit_rec_irq); break;
	case KFIT_REC_EVENT: size = sizeof(struct kfit_rec_event); break;
	case KFIT_REC_SAMPLE:
		n = rnd() % 12;
		size = offsetof(struct kfit_rec_sample, ip) + 8 * n;
		break;
	case KFIT_REC_LOST: size = sizeof(struct kfit_rec_lost); break;
	default: size = sizeof(struct kfit_rec_task); break;
	}
	h = recs_add(r, size);
	r->ts += rnd() % 2000;
	*h = (struct kfit_rec){
		.type = type, .ctx = rnd() % KFIT_NCTX, .flags = rnd() & 0x7f,
		.size = size, .cpu = rnd() % 4, .pid = 100 + rnd() % 3,
		.tid = 100 + rnd() % 5, .ts = r->ts,
	};
	if (type == KFIT_REC_CALL) {
		struct kfit_rec_call *c = (void *)h;

		c->dur = rnd() % 100000;
		c->off_blocked = rnd() % 100;
		c->id = rnd() % 8;
		c->depth = rnd() % 10;
	} else if (type == KFIT_REC_EVENT) {
		struct kfit_rec_event *e = (void *)h;

		e->id = rnd() % 2;
		e->len = rnd() % (KFIT_EVENT_DATA + 1);
		for (i = 0; i < (int)e->len; i++)
			e->data[i] = rnd();
	} else if (type == KFIT_REC_SAMPLE) {
		struct kfit_rec_sample *s = (void *)h;

		n = (size - offsetof(struct kfit_rec_sample, ip)) / 8;
		s->nkernel = n / 2;
		s->nuser = n - n / 2;
		for (i = 0; i < n; i++)
			s->ip[i] = rnd();
	} else if (type == KFIT_REC_LOST) {
		((struct kfit_rec_lost *)h)->count = rnd() % 50;
	} else if (type >= KFIT_REC_FORK && type <= KFIT_REC_EXIT) {
		struct kfit_rec_task *t = (void *)h;

		t->child_pid = rnd() % 1000;
		snprintf(t->comm, sizeof(t->comm), "task%u", (unsigned)(rnd() % 100));
	} else {
		/* switch, irq: dur then two u32 */
		((__u64 *)h)[3] = rnd() % 5000;
		((__u64 *)h)[4] = rnd();
	}
	return h;
}

/* n random records into w (and r): kft_writer_rec's returns must be 0 */
static void feed(struct kft_writer *w, struct recs *r, int n)
{
	while (n--) {
		struct kfit_rec *h = gen(r);

		assert_int_equal(kft_writer_rec(w, h, h->size), 0);
	}
}

/* All the records of f's chunks, back to back */
static void read_all(struct kft_file *f, struct recs *out)
{
	int i;

	for (i = 0; i < kft_nchunks(f); i++) {
		void *buf;
		size_t len;

		assert_int_equal(kft_read_chunk(f, i, &buf, &len), 0);
		memcpy(recs_add(out, len), buf, len);
		out->n += kft_chunk_at(f, i)->nrecs - 1;
		free(buf);
	}
}

static void *slurp(const char *path, size_t *len)
{
	struct stat st;
	void *buf;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc(st.st_size ? st.st_size : 1);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, st.st_size), st.st_size);
	close(fd);
	*len = st.st_size;
	return buf;
}

static __u64 file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_size;
}

static const char stats_text[] = "end_ns=123\nrecords=5\nlost.cpu1=7\n";

/* A streamed file of n random records in chunks of chunk bytes */
static void make_file(const char *path, __u32 chunk, int n, struct recs *r)
{
	struct kft_wopts o = { .chunk_bytes = chunk };
	struct kft_writer *w = kft_writer_new(path, &o);

	assert_non_null(w);
	assert_int_equal(kft_writer_layout(w), 0);
	assert_int_equal(kft_writer_block(w, KFT_B_META, "a=1\n", 4), 0);
	feed(w, r, n);
	assert_int_equal(kft_writer_close(w, NULL, 0, stats_text, strlen(stats_text)), 0);
}

static void test_roundtrip(void **state)
{
	const char *path = t_tmp("rt.kft");
	struct recs in = { 0 }, out = { 0 };
	__u64 nrecs = 0, lost = 0, lostin = 0, first = UINT64_MAX, last = 0;
	struct kft_file *f, *m;
	size_t pos, len;
	char err[256];
	void *mem;
	int i;

	(void)state;
	make_file(path, 4096, 5000, &in);
	f = kft_open(path, err, sizeof(err));
	assert_non_null(f);
	assert_true(kft_complete(f));
	assert_int_equal(kft_missing(f), 0);
	assert_int_equal(kft_size(f), file_size(path));
	assert_true(kft_nchunks(f) > 20);
	read_all(f, &out);
	assert_int_equal(out.len, in.len);
	assert_memory_equal(out.buf, in.buf, in.len);
	for (i = 0; i < kft_nchunks(f); i++) {
		assert_int_equal(kft_chunk_at(f, i)->seq, i);
		nrecs += kft_chunk_at(f, i)->nrecs;
		lost += kft_chunk_at(f, i)->lost;
		if (kft_chunk_at(f, i)->first_ts < first)
			first = kft_chunk_at(f, i)->first_ts;
		if (kft_chunk_at(f, i)->last_ts > last)
			last = kft_chunk_at(f, i)->last_ts;
	}
	assert_int_equal(nrecs, 5000);
	/* The chunks' bookkeeping: lost counts, time range with calls' ends */
	for (pos = 0; pos < in.len;) {
		const struct kfit_rec *h = (const void *)(in.buf + pos);

		if (h->type == KFIT_REC_LOST)
			lostin += ((const struct kfit_rec_lost *)h)->count;
		pos += h->size;
	}
	assert_int_equal(lost, lostin);
	assert_int_equal(first, ((const struct kfit_rec *)in.buf)->ts);
	assert_true(last >= in.ts);
	assert_string_equal(kft_stat(f, "lost.cpu1"), "7");
	assert_int_equal(kft_stat_u64(f, "end_ns", 0), 123);
	assert_string_equal(kft_meta(f, "a"), "1");
	assert_null(kft_chunk_at(f, -1));
	assert_null(kft_chunk_at(f, kft_nchunks(f)));

	/* The same from memory */
	mem = slurp(path, &len);
	m = kft_open_mem(mem, len, err, sizeof(err));
	assert_non_null(m);
	assert_int_equal(kft_nchunks(m), kft_nchunks(f));
	free(out.buf);
	memset(&out, 0, sizeof(out));
	read_all(m, &out);
	assert_memory_equal(out.buf, in.buf, in.len);
	kft_close(m);
	kft_close(f);
	free(mem);
	free(in.buf);
	free(out.buf);
}

static const char comm_format[] =
	"name: task_rename\n"
	"ID: 99\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\n"
	"\tfield:pid_t pid;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char oldcomm[16];\toffset:12;\tsize:16;\tsigned:0;\n"
	"\n"
	"print fmt: \"pid=%d field:x\", REC->pid\n";

/* ARGS as callgraph writes it: function 0's four, function 2's one it lacks */
static struct kfit_argenum arg_enums[] = { { 0, "SEEK_SET" }, { -3, "NEG=3,x" } };
static const struct kfit_argfmt args0[] = {
	{ .label = "file->f_pos", .kind = 8 | KFIT_RET_SIGNED, .present = true },
	{ .label = "name", .kind = 8 | KFIT_RET_PTR, .str = 2, .present = true },
	{ .label = "on", .kind = 1, .is_bool = true, .present = true },
	{ .label = "whence", .kind = 4 | KFIT_RET_SIGNED, .present = true,
	  .enums = arg_enums, .nenums = 2 },
};
static const struct kfit_argfmt args2[] = { { .label = "x", .kind = 4 } };

static char *args_block(size_t *len)
{
	char *text = NULL;
	FILE *m = open_memstream(&text, len);

	assert_non_null(m);
	kfit_kftmeta_args(m, 0, args0, 4);
	kfit_kftmeta_args(m, 2, args2, 1);
	assert_int_equal(fclose(m), 0);
	return text;
}

/* What the file says of them is what was written (names made fields) */
static void check_args(struct kft_file *f)
{
	const struct kfit_argfmt *a;
	int n, i;

	a = kft_func_args(f, 0, &n);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++) {
		assert_string_equal(a[i].label, args0[i].label);
		assert_int_equal(a[i].kind, args0[i].kind);
		assert_int_equal(a[i].str, args0[i].str);
		assert_int_equal(a[i].is_bool, args0[i].is_bool);
		assert_true(a[i].present);
	}
	assert_int_equal(a[3].nenums, 2);
	assert_int_equal(a[3].enums[1].val, -3);
	assert_string_equal(a[3].enums[1].name, "NEG_3_x");
	assert_int_equal(a[0].nenums, 0);
	a = kft_func_args(f, 2, &n);
	assert_int_equal(n, 1);
	assert_false(a[0].present);
	assert_string_equal(a[0].label, "x");
}

static void test_metadata(void **state)
{
	const char *path = t_tmp("meta.kft");
	const char meta[] = "kfit_version=0.1\ncmdline=callgraph -o x a=b\nncpus=2\n"
			    "a line without an equal sign\nclock.realtime_offset_ns=1700000000000000000\n";
	/* RET, the return kind, or none (a file of records version 1) */
	const char funcs[] = "1\tu\tmain\t/bin/x\t-\t-\t80\n"
			     "0\tk\tvfs_read\tvmlinux\t-\t-\t58\n"
			     "2\tk\text4_read\text4\tabcdef\tdropped\n";
	const char tasks[] = "10\t10\t1\tbash\n10\t11\t1\tworker\twith tab\n";
	const char syms[] = "file\t/bin/x\tabcdef\n"
			    "10\t401000\tu\tmain\n"
			    "11\t0x401000\tu\tother_main\n"
			    "0\tffffffff81000000\tk\tstartup_64\n"
			    "10\t401000\tu\tduplicate\n";
	char events[4096], err[256];
	const struct kft_event *ev;
	const struct kft_func *fn;
	struct kft_writer *w;
	char *args;
	size_t args_len;
	int n;
	struct kft_file *f;
	const char *s;
	struct recs r = { 0 };

	(void)state;
	snprintf(events, sizeof(events), "event 1 sched:task_rename\n%s\nevent 0 syscalls:sys_enter_write\n%s\n",
		 comm_format, write_format);
	w = kft_writer_new(path, NULL);
	assert_non_null(w);
	assert_int_equal(kft_writer_block(w, KFT_B_META, meta, strlen(meta)), 0);
	assert_int_equal(kft_writer_layout(w), 0);
	assert_int_equal(kft_writer_block(w, KFT_B_FUNCS, funcs, strlen(funcs)), 0);
	assert_int_equal(kft_writer_block(w, KFT_B_EVENTS, events, strlen(events)), 0);
	assert_int_equal(kft_writer_block(w, KFT_B_TASKS, tasks, strlen(tasks)), 0);
	args = args_block(&args_len);
	assert_int_equal(kft_writer_block(w, KFT_B_ARGS, args, args_len), 0);
	free(args);
	assert_int_equal(kft_writer_block(w, KFT_B_CHUNK, "x", 1), -EINVAL);
	feed(w, &r, 10);
	assert_int_equal(kft_writer_close(w, syms, strlen(syms), stats_text, strlen(stats_text)), 0);

	f = kft_open(path, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(kft_nmeta(f), 4);
	assert_string_equal(kft_meta_at(f, 1)->key, "cmdline");
	assert_string_equal(kft_meta(f, "cmdline"), "callgraph -o x a=b");
	assert_int_equal(kft_meta_u64(f, "ncpus", 0), 2);
	assert_int_equal(kft_meta_u64(f, "clock.realtime_offset_ns", 0), 1700000000000000000ULL);
	assert_int_equal(kft_meta_u64(f, "kfit_version", 9), 9);	/* not a number */
	assert_int_equal(kft_meta_u64(f, "nope", 5), 5);
	assert_null(kft_meta(f, "nope"));
	assert_null(kft_meta_at(f, 4));
	assert_int_equal(kft_nstats(f), 3);

	assert_int_equal(kft_nfuncs(f), 3);
	fn = kft_func_at(f, 0);
	assert_string_equal(fn->name, "vfs_read");
	assert_true(fn->kernel);
	assert_string_equal(fn->build_id, "");
	assert_int_equal(fn->ret, 8 | KFIT_RET_SIGNED | KFIT_RET_ERRNO);
	fn = kft_func_at(f, 1);
	assert_string_equal(fn->object, "/bin/x");
	assert_false(fn->kernel);
	assert_false(fn->dropped);
	assert_int_equal(fn->ret, KFIT_RET_VOID);
	fn = kft_func_at(f, 2);
	assert_true(fn->dropped);
	assert_int_equal(fn->ret, 0);
	assert_string_equal(fn->build_id, "abcdef");
	assert_string_equal(fn->object, "ext4");
	assert_null(kft_func_at(f, 3));

	assert_int_equal(kft_nevents(f), 2);
	ev = kft_event_at(f, 0);
	assert_string_equal(ev->name, "syscalls:sys_enter_write");
	assert_string_equal(ev->format, write_format);
	assert_int_equal(ev->nfields, 4);
	assert_string_equal(ev->fields[0].name, "__syscall_nr");
	assert_string_equal(ev->fields[0].type, "int");
	assert_true(ev->fields[0].is_signed);
	assert_string_equal(ev->fields[1].name, "fd");
	assert_string_equal(ev->fields[1].type, "unsigned int");
	assert_int_equal(ev->fields[1].offset, 16);
	assert_int_equal(ev->fields[1].size, 8);
	assert_false(ev->fields[1].is_signed);
	assert_string_equal(ev->fields[2].name, "buf");
	assert_string_equal(ev->fields[2].type, "const char *");
	assert_string_equal(ev->fields[3].name, "count");
	assert_int_equal(ev->fields[3].offset, 32);
	ev = kft_event_at(f, 1);
	assert_string_equal(ev->name, "sched:task_rename");
	assert_string_equal(ev->format, comm_format);
	assert_int_equal(ev->nfields, 2);
	assert_string_equal(ev->fields[1].name, "oldcomm");
	assert_true(ev->fields[1].is_array);
	assert_int_equal(ev->fields[1].size, 16);
	assert_false(ev->fields[0].is_array);

	check_args(f);
	assert_null(kft_func_args(f, 1, &n));
	assert_int_equal(n, 0);
	assert_null(kft_func_args(f, 7, &n));

	assert_int_equal(kft_ntasks(f), 2);
	assert_int_equal(kft_task_at(f, 1)->tid, 11);
	assert_int_equal(kft_task_at(f, 1)->ppid, 1);
	assert_string_equal(kft_task_at(f, 0)->comm, "bash");
	assert_string_equal(kft_task_at(f, 1)->comm, "worker\twith tab");
	assert_null(kft_task_at(f, 2));

	assert_string_equal(kft_sym(f, 10, 0x401000, false), "main");
	assert_string_equal(kft_sym(f, 11, 0x401000, false), "other_main");
	/* kernel addresses whatever the pid */
	assert_string_equal(kft_sym(f, 1234, 0xffffffff81000000ULL, true), "startup_64");
	assert_string_equal(kft_sym(f, 10, 0x401001, false), "[unknown] 0x401001");
	s = kft_sym(f, 10, 0x401001, false);
	assert_ptr_equal(s, kft_sym(f, 10, 0x401001, false));
	assert_string_equal(kft_sym(f, 10, 0x401000, true), "[unknown] 0x401000");
	kft_close(f);
	free(r.buf);
}

/* Blocks given after records: found between chunks, with and without index */
static void test_late_block(void **state)
{
	const char *path = t_tmp("late.kft");
	const char syms[] = "7\tabc\tu\tlate_sym\n";
	struct kft_wopts o = { .chunk_bytes = 1024 };
	struct kft_writer *w = kft_writer_new(path, &o);
	struct recs in = { 0 }, out = { 0 };
	struct kft_file *f;
	char err[256];
	int pass;

	(void)state;
	assert_non_null(w);
	feed(w, &in, 100);
	assert_int_equal(kft_writer_block(w, KFT_B_SYMS, syms, strlen(syms)), 0);
	assert_int_equal(kft_writer_block(w, KFT_B_META, "late=1\n", 7), 0);
	feed(w, &in, 100);
	assert_int_equal(kft_writer_close(w, NULL, 0, NULL, 0), 0);
	for (pass = 0; pass < 2; pass++) {
		f = kft_open(path, err, sizeof(err));
		assert_non_null(f);
		assert_int_equal(kft_complete(f), !pass);
		assert_string_equal(kft_sym(f, 7, 0xabc, false), "late_sym");
		assert_string_equal(kft_meta(f, "late"), "1");
		read_all(f, &out);
		assert_int_equal(out.len, in.len);
		assert_memory_equal(out.buf, in.buf, in.len);
		kft_close(f);
		free(out.buf);
		memset(&out, 0, sizeof(out));
		/* Without its footer: walked */
		assert_int_equal(truncate(path, file_size(path) - 1), 0);
	}
	free(in.buf);
}

/* Metadata the reader must refuse, each with its message */
static void test_bad_metadata(void **state)
{
	static const struct {
		enum kft_block_type type;
		const char *text, *msg;
	} cases[] = {
		{ KFT_B_FUNCS, "0\tk\tf\tvmlinux\t-\t-\n2\tk\tg\tvmlinux\t-\t-\n", "ids of its FUNCS" },
		{ KFT_B_FUNCS, "0\tk\tf\tvmlinux\t-\t-\n0\tk\tg\tvmlinux\t-\t-\n", "ids of its FUNCS" },
		{ KFT_B_FUNCS, "0\tk\tf\tvmlinux\t-\n", "FUNCS" },
		{ KFT_B_FUNCS, "0\tx\tf\tvmlinux\t-\t-\n", "FUNCS" },
		{ KFT_B_FUNCS, "99999999\tk\tf\tvmlinux\t-\t-\n", "FUNCS" },
		{ KFT_B_FUNCS, "-1\tk\tf\tvmlinux\t-\t-\n", "FUNCS" },
		{ KFT_B_FUNCS, "0\tk\tf\tvmlinux\t-\t-\tzz\n", "FUNCS" },
		{ KFT_B_FUNCS, "0\tk\tf\tvmlinux\t-\t-\t100\n", "FUNCS" },
		{ KFT_B_EVENTS, "event 1 a:b\nformat:\n", "ids of its EVENTS" },
		{ KFT_B_EVENTS, "hello\n", "EVENTS" },
		{ KFT_B_EVENTS, "event 0 a:b\n\tfield:int x;\toffset:zz;\tsize:4;\n", "field" },
		{ KFT_B_EVENTS, "event 0 a:b\n\tfield:int;\toffset:0;\tsize:4;\n", "field" },
		{ KFT_B_TASKS, "1\t2\tbash\n", "TASKS" },
		{ KFT_B_ARGS, "0\t0\tx\t4\t0\n", "ARGS" },
		{ KFT_B_ARGS, "0\t4\tx\t4\t0\t-\n", "ARGS" },
		{ KFT_B_ARGS, "0\t0\tx\t100\t0\t-\n", "ARGS" },
		{ KFT_B_ARGS, "0\t0\tx\t4\t3\t-\n", "ARGS" },
		{ KFT_B_ARGS, "0\t0\tx\t4\t0\t-\n0\t0\ty\t4\t0\t-\n", "ARGS" },
		{ KFT_B_ARGS, "0\t1\tx\t4\t0\t-\n", "skips argument 0" },
		{ KFT_B_ARGS, "0\t0\tx\t4\t0\t-\t1=A,B\n", "ARGS" },
		{ KFT_B_ARGS, "0\t0\tx\t4\t0\t-\tz=A\n", "ARGS" },
		{ KFT_B_ARGS, "0\t0\t\t4\t0\t-\n", "ARGS" },
		{ KFT_B_SYMS, "1\tzz\tu\tf\n", "SYMS" },
		{ KFT_B_LAYOUT, "0 rec 32\n  type 0 1\n", "layout" },
		{ KFT_B_LAYOUT, "garbage\n", "layout" },
	};
	const char *path = t_tmp("badmeta.kft");
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kft_writer *w = kft_writer_new(path, NULL);
		struct recs r = { 0 };
		bool syms = cases[i].type == KFT_B_SYMS;

		assert_non_null(w);
		if (cases[i].type != KFT_B_LAYOUT)
			assert_int_equal(kft_writer_layout(w), 0);
		if (!syms)
			assert_int_equal(kft_writer_block(w, cases[i].type, cases[i].text,
							  strlen(cases[i].text)), 0);
		feed(w, &r, 3);
		assert_int_equal(kft_writer_close(w, syms ? cases[i].text : NULL,
						  syms ? strlen(cases[i].text) : 0, "", 0), 0);
		err[0] = '\0';
		assert_null(kft_open(path, err, sizeof(err)));
		if (!strstr(err, cases[i].msg))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err, cases[i].msg);
		free(r.buf);
	}
}

/*
 * This build's LAYOUT with its call section as version 1 wrote it (64
 * bytes, "pad" where cflags is, no ret; tests/fixtures/kft hold such
 * files), changed by a sed-like (from, to): 0 when read as ours
 */
static int v1_layout(const char *from, const char *to)
{
	static const char v1[] =
		"1 call 64\n  h 0 24\n  dur 24 8\n  off_blocked 32 8\n  off_preempt 40 8\n"
		"  id 48 4\n  depth 52 2\n  pad 54 2\n  dropped 56 4\n  pad2 60 4\n";
	const char *mine = kft_layout_text(NULL), *a = strstr(mine, "1 call "),
		   *b = strstr(mine, "2 switch ");
	char text[8192], sec[512], why[256], *p;

	assert_non_null(a);
	assert_non_null(b);
	snprintf(sec, sizeof(sec), "%s", v1);
	if (from) {
		p = strstr(sec, from);
		assert_non_null(p);
		memmove(p + strlen(to), p + strlen(from), strlen(p + strlen(from)) + 1);
		memcpy(p, to, strlen(to));
	}
	snprintf(text, sizeof(text), "%.*s%s%s", (int)(a - mine), mine, sec, b);
	return kft_layout_check(text, strlen(text), why, sizeof(why));
}

/* A record type of an older version is ours, with fewer fields; no other */
static void test_layout_versions(void **state)
{
	char why[256];
	size_t len;
	const char *mine = kft_layout_text(&len);

	(void)state;
	assert_int_equal(kft_layout_check(mine, len, why, sizeof(why)), 0);
	assert_int_equal(v1_layout(NULL, NULL), 0);
	/* a field renamed that was no pad, moved, resized: another layout */
	assert_int_equal(v1_layout("  depth 52", "  level 52"), -EBADMSG);
	assert_int_equal(v1_layout("  dropped 56 4", "  dropped 56 8"), -EBADMSG);
	assert_int_equal(v1_layout("  id 48 4", "  id 44 4"), -EBADMSG);
	/* a record larger than ours, with a field we do not know */
	assert_int_equal(v1_layout("1 call 64", "1 call 80"), -EBADMSG);
	assert_int_equal(v1_layout("  pad2 60 4\n", "  pad2 60 4\n  ret 64 8\n  args 72 8\n"),
			 -EBADMSG);
	/* another type's name */
	assert_int_equal(v1_layout("1 call", "1 sample"), -EBADMSG);
	/* a field past the record's size */
	assert_int_equal(v1_layout("  pad2 60 4\n", "  pad2 60 4\n  ret 64 8\n"), -EBADMSG);
	/* version 2's, cflags where the pad was and ret: ours exactly */
	assert_int_equal(v1_layout("1 call 64", "1 call 72"), -EBADMSG);
	assert_int_equal(v1_layout("  pad 54 2\n", "  cflags 54 2\n"), 0);
}

static struct kfit_rec_event event_at(__u64 ts)
{
	return (struct kfit_rec_event){
		.h = { .type = KFIT_REC_EVENT, .size = sizeof(struct kfit_rec_event), .ts = ts },
		.len = 8,
	};
}

static void test_chunks_between(void **state)
{
	/* 10 chunks of 10 events: chunk c holds ts 1000c .. 1000c + 900 */
	struct kft_wopts o = { .chunk_bytes = 10 * sizeof(struct kfit_rec_event) };
	const char *path = t_tmp("between.kft");
	struct kft_writer *w = kft_writer_new(path, &o);
	struct kfit_rec_call call = {
		.h = { .type = KFIT_REC_CALL, .size = sizeof(call), .ts = 10500 },
		.dur = 5000,
	};
	struct kfit_rec_event e;
	struct kft_file *f;
	int i, a, b;
	char err[256];

	(void)state;
	assert_non_null(w);
	for (i = 0; i < 100; i++) {
		e = event_at(1000 * (i / 10) + 100 * (i % 10));
		assert_int_equal(kft_writer_rec(w, &e, sizeof(e)), 0);
	}
	/* An 11th chunk: a call from 10500 to 15500 */
	assert_int_equal(kft_writer_rec(w, &call, sizeof(call)), 0);
	assert_int_equal(kft_writer_close(w, NULL, 0, NULL, 0), 0);
	f = kft_open(path, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(kft_nchunks(f), 11);
	assert_int_equal(kft_chunk_at(f, 3)->first_ts, 3000);
	assert_int_equal(kft_chunk_at(f, 3)->last_ts, 3900);
	assert_int_equal(kft_chunk_at(f, 10)->last_ts, 15500);

	assert_int_equal(kft_chunks_between(f, 0, 0, &a, &b), 0);
	assert_int_equal(a, 0);
	assert_int_equal(b, 10);
	assert_int_equal(kft_chunks_between(f, 2500, 4000, &a, &b), 0);
	assert_int_equal(a, 2);
	assert_int_equal(b, 3);
	assert_int_equal(kft_chunks_between(f, 3900, 4001, &a, &b), 0);
	assert_int_equal(a, 3);
	assert_int_equal(b, 4);
	assert_int_equal(kft_chunks_between(f, 3950, 3990, &a, &b), -ENOENT);
	assert_int_equal(kft_chunks_between(f, 12000, 0, &a, &b), 0);
	assert_int_equal(a, 10);
	assert_int_equal(b, 10);
	assert_int_equal(kft_chunks_between(f, 20000, 0, &a, &b), -ENOENT);
	kft_close(f);
}

static void test_cap(void **state)
{
	const char *path = t_tmp("cap.kft");
	struct kft_wopts o = { .chunk_bytes = 4096, .max_bytes = 100000 };
	struct kft_writer *w = kft_writer_new(path, &o);
	struct recs in = { 0 }, out = { 0 };
	struct kft_wstats st;
	struct kft_file *f;
	char err[256];
	struct kfit_rec *h = NULL;
	int rc = 0, i;

	(void)state;
	assert_non_null(w);
	while (!rc) {
		h = gen(&in);
		rc = kft_writer_rec(w, h, h->size);
		assert_true(rc == 0 || rc == 1);
		assert_true(in.n < 100000);
	}
	/* The refused record is not in the file */
	in.len -= h->size;
	in.n--;
	for (i = 0; i < 9; i++) {
		struct recs junk = { 0 };
		struct kfit_rec *h = gen(&junk);

		assert_int_equal(kft_writer_rec(w, h, h->size), 1);
		free(junk.buf);
	}
	kft_writer_stats(w, &st);
	assert_int_equal(st.refused, 10);
	assert_int_equal(st.records, in.n);
	assert_int_equal(kft_writer_close(w, NULL, 0, "size_capped=1\n", 14), 0);
	assert_true(file_size(path) <= o.max_bytes);
	/* and not far below it */
	assert_true(file_size(path) > o.max_bytes / 2);
	f = kft_open(path, err, sizeof(err));
	assert_non_null(f);
	assert_true(kft_complete(f));
	read_all(f, &out);
	assert_int_equal(out.len, in.len);
	assert_memory_equal(out.buf, in.buf, in.len);
	kft_close(f);
	free(in.buf);
	free(out.buf);
}

/* A cap with a large SYMS at close: the last chunks give way, the cap holds */
static void test_cap_tail(void **state)
{
	const char *path = t_tmp("captail.kft");
	struct kft_wopts o = { .chunk_bytes = 2048, .max_bytes = 60000 };
	struct kft_writer *w = kft_writer_new(path, &o);
	struct recs in = { 0 }, out = { 0 };
	char *syms = malloc(20000), err[256];
	struct kft_file *f;
	struct kfit_rec *h = NULL;
	size_t n = 0;
	int rc = 0;

	(void)state;
	assert_non_null(w);
	while (n + 40 < 20000)
		n += snprintf(syms + n, 20000 - n, "1\t%zx\tu\tfunction_%zu\n", n, n);
	while (!rc) {
		h = gen(&in);
		rc = kft_writer_rec(w, h, h->size);
	}
	in.len -= h->size;
	in.n--;
	assert_int_equal(kft_writer_close(w, syms, n, stats_text, strlen(stats_text)), 0);
	assert_true(file_size(path) <= o.max_bytes);
	f = kft_open(path, err, sizeof(err));
	assert_non_null(f);
	assert_true(kft_complete(f));
	assert_string_equal(kft_sym(f, 1, 0, false), "function_0");
	read_all(f, &out);
	/* A prefix of what was given */
	assert_true(out.len < in.len);
	assert_memory_equal(out.buf, in.buf, out.len);
	kft_close(f);
	free(syms);
	free(in.buf);
	free(out.buf);
}

/*
 * The records of the file at path: they must be the last of in (len
 * bytes); its first chunk's seq dropped (UINT64_MAX: not checked).
 */
static struct kft_file *check_flight(const char *path, const char *in, size_t len,
				     __u64 dropped)
{
	struct recs out = { 0 };
	struct kft_file *f;
	char err[256];
	int i;

	f = kft_open(path, err, sizeof(err));
	assert_non_null(f);
	assert_true(kft_complete(f));
	assert_true(kft_header_of(f)->flags & KFT_F_FLIGHT);
	assert_string_equal(kft_meta(f, "flight"), "1");
	if (dropped != UINT64_MAX)
		assert_int_equal(kft_chunk_at(f, 0)->seq, dropped);
	for (i = 1; i < kft_nchunks(f); i++)
		assert_int_equal(kft_chunk_at(f, i)->seq, kft_chunk_at(f, i - 1)->seq + 1);
	read_all(f, &out);
	assert_true(out.len > 0 && out.len < len);
	assert_memory_equal(out.buf, in + len - out.len, out.len);
	free(out.buf);
	return f;
}

static void test_flight(void **state)
{
	const char *path = t_tmp("flight.kft");
	struct kft_wopts o = { .chunk_bytes = 1024, .flight_bytes = 6000 };
	struct kft_writer *w = kft_writer_new(path, &o);
	struct recs in = { 0 }, out = { 0 };
	struct kft_file *old, *f;
	struct kft_wstats st;
	char tmp[PATH_MAX];
	__u64 first_seq;
	size_t len1;

	(void)state;
	assert_non_null(w);
	assert_int_equal(kft_writer_block(w, KFT_B_META, "flight=1\n", 9), 0);
	feed(w, &in, 1000);
	/* Nothing on disk before a dump */
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(kft_writer_dump(w, "x=1\n", 4), 0);
	kft_writer_stats(w, &st);
	assert_true(st.chunks_dropped > 0);
	assert_true(st.file_bytes < 6000 + 2048);
	assert_int_equal(st.file_bytes, file_size(path));
	old = check_flight(path, in.buf, in.len, st.chunks_dropped);
	len1 = in.len;
	assert_string_equal(kft_stat(old, "x"), "1");
	first_seq = kft_chunk_at(old, 0)->seq;

	/* A second dump replaces the file: one opened before still reads the old */
	feed(w, &in, 500);
	assert_int_equal(kft_writer_dump(w, "x=2\n", 4), 0);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_int_equal(access(tmp, F_OK), -1);
	kft_writer_stats(w, &st);
	f = check_flight(path, in.buf, in.len, st.chunks_dropped);
	assert_true(kft_chunk_at(f, 0)->seq > first_seq);
	assert_string_equal(kft_stat(f, "x"), "2");
	read_all(old, &out);
	assert_memory_equal(out.buf, in.buf + len1 - out.len, out.len);
	kft_close(f);
	kft_close(old);

	/* Close: the last dump */
	feed(w, &in, 300);
	assert_int_equal(kft_writer_close(w, NULL, 0, "x=3\n", 4), 0);
	f = check_flight(path, in.buf, in.len, UINT64_MAX);
	assert_string_equal(kft_stat(f, "x"), "3");
	kft_close(f);
	free(in.buf);
	free(out.buf);
}

static void test_flight_streaming_dump(void **state)
{
	struct kft_writer *w = kft_writer_new(t_tmp("nodump.kft"), NULL);

	(void)state;
	assert_non_null(w);
	assert_int_equal(kft_writer_dump(w, "", 0), -EINVAL);
	assert_int_equal(kft_writer_rec(w, "12345678", 8), -EINVAL);
	kft_writer_abort(w);
	errno = 0;
	assert_null(kft_writer_new(t_tmp("no/such/dir.kft"), NULL));
	assert_int_equal(errno, ENOENT);
	assert_null(kft_writer_new(t_tmp("x.kft"), &(struct kft_wopts){ .level = 12 }));
	assert_int_equal(errno, EINVAL);
}

/* Every cut of a small file: refused, or a prefix of its chunks */
static void test_truncated(void **state)
{
	const char *path = t_tmp("cut.kft");
	struct recs in = { 0 };
	size_t len, cut, opened = 0;
	char err[256], *buf;

	(void)state;
	make_file(path, 512, 60, &in);
	buf = slurp(path, &len);
	for (cut = 0; cut < len; cut++) {
		struct kft_file *f;
		struct recs out = { 0 };
		char *copy = malloc(cut ? cut : 1);

		memcpy(copy, buf, cut);
		err[0] = '\0';
		f = kft_open_mem(copy, cut, err, sizeof(err));
		if (!f) {
			assert_true(err[0]);
			free(copy);
			continue;
		}
		opened++;
		assert_false(kft_complete(f));
		assert_true(kft_missing(f) <= cut);
		read_all(f, &out);
		assert_true(out.len <= in.len);
		if (out.len)
			assert_memory_equal(out.buf, in.buf, out.len);
		/* Cut after the last chunk: all of them are there */
		if (cut > len - 200)
			assert_int_equal(out.len, in.len);
		kft_close(f);
		free(out.buf);
		free(copy);
	}
	assert_true(opened > len / 2);

	/* A file on disk cut in its last chunk */
	assert_int_equal(truncate(path, len - 400), 0);
	{
		struct kft_file *f = kft_open(path, err, sizeof(err));

		assert_non_null(f);
		assert_false(kft_complete(f));
		assert_true(kft_missing(f) > 0);
		assert_true(kft_nchunks(f) > 0);
		kft_close(f);
	}
	free(buf);
	free(in.buf);
}

/* Walk the records of a chunk read: sizes sound, to the end */
static void walk(const char *buf, size_t len)
{
	size_t pos = 0;

	while (pos < len) {
		const struct kfit_rec *h = (const void *)(buf + pos);

		assert_true(len - pos >= sizeof(*h));
		assert_true(h->size >= sizeof(*h) && h->size % 8 == 0);
		assert_true(h->size <= len - pos);
		pos += h->size;
	}
}

/* Every accessor of an open file, and every chunk: how many chunks failed */
static int hammer(struct kft_file *f)
{
	int i, bad = 0, a, b;

	for (i = 0; i < kft_nmeta(f); i++)
		assert_non_null(kft_meta_at(f, i)->val);
	for (i = 0; i < kft_nstats(f); i++)
		assert_non_null(kft_stat_at(f, i)->key);
	for (i = 0; i < kft_nfuncs(f); i++)
		assert_non_null(kft_func_at(f, i)->name);
	for (i = 0; i < kft_nevents(f); i++)
		assert_true(kft_event_at(f, i)->nfields >= 0);
	for (i = 0; i < kft_ntasks(f); i++)
		assert_true(strlen(kft_task_at(f, i)->comm) < 16);
	kft_sym(f, 1, 2, false);
	kft_chunks_between(f, 100, 200, &a, &b);
	for (i = 0; i < kft_nchunks(f); i++) {
		void *buf;
		size_t len;
		int rc = kft_read_chunk(f, i, &buf, &len);

		if (rc) {
			assert_int_equal(rc, -EBADMSG);
			bad++;
			continue;
		}
		walk(buf, len);
		free(buf);
	}
	return bad;
}

static void test_corrupt(void **state)
{
	const char *path = t_tmp("flip.kft");
	const char funcs[] = "0\tk\tf\tvmlinux\t-\t-\n";
	const char syms[] = "1\t10\tu\tmain\n";
	struct kft_wopts o = { .chunk_bytes = 512 };
	struct kft_writer *w = kft_writer_new(path, &o);
	size_t len, i, refused = 0, badchunk = 0, incomplete = 0;
	struct recs in = { 0 };
	char err[256], *buf, events[2048];

	(void)state;
	assert_non_null(w);
	assert_int_equal(kft_writer_layout(w), 0);
	assert_int_equal(kft_writer_block(w, KFT_B_FUNCS, funcs, strlen(funcs)), 0);
	snprintf(events, sizeof(events), "event 0 syscalls:sys_enter_write\n%s", write_format);
	assert_int_equal(kft_writer_block(w, KFT_B_EVENTS, events, strlen(events)), 0);
	feed(w, &in, 40);
	assert_int_equal(kft_writer_close(w, syms, strlen(syms), stats_text, strlen(stats_text)), 0);
	buf = slurp(path, &len);
	for (i = 0; i < len; i++) {
		char *copy = malloc(len);
		struct kft_file *f;

		memcpy(copy, buf, len);
		copy[i] ^= 0xff;
		f = kft_open_mem(copy, len, err, sizeof(err));
		if (!f) {
			refused++;
		} else {
			int bad = hammer(f);

			badchunk += bad > 0;
			incomplete += !kft_complete(f);
			/* All but the file header's free fields is checked */
			if (i >= sizeof(struct kft_header))
				assert_true(bad || !kft_complete(f));
			kft_close(f);
		}
		free(copy);
	}
	print_message("kft: %zu flips: %zu refused, %zu read incomplete, %zu with a bad chunk\n",
		      len, refused, incomplete, badchunk);
	assert_true(refused > 0 && badchunk > 0 && incomplete > 0);
	free(buf);
	free(in.buf);
}

/*
 * kft_chunks: chunks inflated ahead by 1 to 4 threads come out in order,
 * the same bytes as one by one (into buffers used again, the chunks' own); a range, an empty one; a corrupt chunk's
 * error with its index, the others read; closed early, nothing waits
 */
static void test_chunks_ahead(void **state)
{
	const char *path = t_tmp("ahead.kft");
	struct recs in = { 0 }, seq = { 0 };
	struct kft_chunks *c;
	struct kft_file *f;
	char err[256], *buf, *copy;
	int th, i, want, cerr, bad;
	size_t len, got, blen;
	void *b;

	(void)state;
	make_file(path, 1024, 3000, &in);
	f = kft_open(path, err, sizeof(err));
	assert_non_null(f);
	assert_true(kft_nchunks(f) > 20);
	read_all(f, &seq);
	for (th = 1; th <= 4; th++) {
		c = kft_chunks_open(f, 0, kft_nchunks(f) - 1, th);
		assert_non_null(c);
		for (want = 0, got = 0; kft_chunks_next(c, &i, &b, &blen, &cerr) > 0; want++) {
			assert_int_equal(i, want);
			assert_int_equal(cerr, 0);
			assert_true(got + blen <= seq.len);
			assert_memory_equal(b, seq.buf + got, blen);
			got += blen;
		}
		assert_int_equal(want, kft_nchunks(f));
		assert_int_equal(got, seq.len);
		kft_chunks_close(c);
	}
	/* a range; none; closed with chunks inflated and unread */
	c = kft_chunks_open(f, 5, 7, 0);
	for (want = 5; kft_chunks_next(c, &i, &b, &blen, &cerr) > 0; want++)
		assert_int_equal(i, want);
	assert_int_equal(want, 8);
	kft_chunks_close(c);
	c = kft_chunks_open(f, 3, 2, 0);
	assert_non_null(c);
	assert_int_equal(kft_chunks_next(c, &i, &b, &blen, &cerr), 0);
	kft_chunks_close(c);
	c = kft_chunks_open(f, 0, kft_nchunks(f) - 1, 3);
	assert_int_equal(kft_chunks_next(c, &i, &b, &blen, &cerr), 1);
	kft_chunks_close(c);
	/* chunk 4's payload flipped: its error, the rest as before */
	buf = slurp(path, &len);
	copy = malloc(len);
	memcpy(copy, buf, len);
	copy[kft_chunk_at(f, 4)->offset + sizeof(struct kft_block) + 40] ^= 0x55;
	kft_close(f);
	f = kft_open_mem(copy, len, err, sizeof(err));
	assert_non_null(f);
	c = kft_chunks_open(f, 0, kft_nchunks(f) - 1, 2);
	for (bad = 0; kft_chunks_next(c, &i, &b, &blen, &cerr) > 0; )
		if (cerr) {
			assert_int_equal(i, 4);
			assert_int_equal(cerr, -EBADMSG);
			bad++;
		}
	assert_int_equal(bad, 1);
	kft_chunks_close(c);
	kft_close(f);
	free(copy);
	free(buf);
	free(in.buf);
	free(seq.buf);
}

static void test_foreign(void **state)
{
	static const struct {
		const char *data;
		size_t len;
		const char *msg;
	} cases[] = {
		{ "", 0, "not a kfit trace file" },
		{ "KFITRACE", 8, "truncated" },
		{ "KFITRAC", 7, "not a kfit trace file" },
		{ "This is text, not a trace file: it is long enough to hold a header "
		  "and a footer, and more, to be read.", 102, "not a kfit trace file" },
	};
	struct kft_header h = {
		.magic = KFT_MAGIC, .version = KFT_VERSION, .endian = KFT_ENDIAN,
		.header_size = sizeof(h), .block_size = sizeof(struct kft_block),
		.rec_version = KFIT_REC_VERSION,
	};
	char err[256], *elf;
	struct kft_file *f;
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_null(kft_open_mem(cases[i].data, cases[i].len, err, sizeof(err)));
		assert_non_null(strstr(err, cases[i].msg));
	}
	elf = slurp("/proc/self/exe", &len);
	assert_null(kft_open_mem(elf, len, err, sizeof(err)));
	assert_string_equal(err, "not a kfit trace file");
	free(elf);
	assert_null(kft_open("/proc/self/exe", err, sizeof(err)));
	assert_string_equal(err, "not a kfit trace file");
	assert_null(kft_open(t_tmpdir, err, sizeof(err)));
	assert_string_equal(err, "it is a directory");
	assert_null(kft_open(t_tmp("missing"), err, sizeof(err)));
	assert_non_null(strstr(err, "No such file"));

	/* A header alone: an empty recording, cut before anything */
	f = kft_open_mem(&h, sizeof(h), err, sizeof(err));
	assert_non_null(f);
	assert_false(kft_complete(f));
	assert_int_equal(kft_nchunks(f), 0);
	kft_close(f);
	h.version = 2;
	assert_null(kft_open_mem(&h, sizeof(h), err, sizeof(err)));
	assert_string_equal(err, "written by kfit trace format version 2; this kd reads 1");
	h.version = KFT_VERSION;
	h.endian = 0x04030201;
	assert_null(kft_open_mem(&h, sizeof(h), err, sizeof(err)));
	assert_non_null(strstr(err, "written on a big-endian machine"));
	h.endian = KFT_ENDIAN;
	h.header_size = 72;
	assert_null(kft_open_mem(&h, sizeof(h), err, sizeof(err)));
	assert_non_null(strstr(err, "header size"));
}

/* The worker's write error reaches the caller (a file size limit: EFBIG) */
static void test_write_error(void **state)
{
	struct rlimit rl = { 16384, 16384 };
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct kft_wopts o = { .chunk_bytes = 1024 };
		struct kft_writer *w;
		struct recs in = { 0 };
		int rc = 0, n = 0;

		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		w = kft_writer_new(t_tmp("efbig.kft"), &o);
		if (!w)
			_exit(10);
		while (!rc && n++ < 100000) {
			struct kfit_rec *h = gen(&in);

			rc = kft_writer_rec(w, h, h->size);
		}
		if (rc != -EFBIG)
			_exit(11);
		if (kft_writer_close(w, NULL, 0, NULL, 0) != -EFBIG)
			_exit(12);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Abort: what was written stays, readable up to its last chunk */
static void test_abort(void **state)
{
	const char *path = t_tmp("abort.kft");
	struct kft_wopts o = { .chunk_bytes = 1024 };
	struct kft_writer *w = kft_writer_new(path, &o);
	struct recs in = { 0 }, out = { 0 };
	struct kft_file *f;
	char err[256];

	(void)state;
	assert_non_null(w);
	feed(w, &in, 300);
	kft_writer_abort(w);
	f = kft_open(path, err, sizeof(err));
	assert_non_null(f);
	assert_false(kft_complete(f));
	read_all(f, &out);
	assert_true(out.len > 0 && out.len <= in.len);
	assert_memory_equal(out.buf, in.buf, out.len);
	kft_close(f);
	free(in.buf);
	free(out.buf);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* n 96-byte event records identical but for their ts: the file's size */
static __u64 write_events(const char *path, int n, double *secs)
{
	struct kfit_rec_event e = {
		.h = { .type = KFIT_REC_EVENT, .size = sizeof(e), .cpu = 1,
		       .pid = 4321, .tid = 4321 },
		.id = 0, .len = 40,
	};
	struct kft_writer *w = kft_writer_new(path, NULL);
	__u64 ts = 1000000000;
	double t0 = now();
	int i;

	assert_non_null(w);
	memcpy(e.data, "\x01\x02\x00\x00\x34\x12\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00"
		       "\x01\x00\x00\x00\x00\x00\x00\x00\x00\x10\x40\x00\x00\x00\x00\x00"
		       "\x00\x10\x00\x00\x00\x00\x00\x00", 40);
	for (i = 0; i < n; i++) {
		/* dd's writes: about 250 ns apart, jittered */
		ts += 200 + rnd() % 100;
		e.h.ts = ts;
		assert_int_equal(kft_writer_rec(w, &e, sizeof(e)), 0);
	}
	assert_int_equal(kft_writer_close(w, NULL, 0, NULL, 0), 0);
	*secs = now() - t0;
	return file_size(path);
}

static void test_ratio(void **state)
{
	const char *path = t_tmp("ratio.kft");
	struct kft_file *f;
	double secs;
	__u64 size = write_events(path, 100000, &secs);
	char err[256];
	int i;
	__u64 n = 0;

	(void)state;
	print_message("kft: 100000 events: %llu bytes, %.2f bytes/record\n",
		      (unsigned long long)size, size / 1e5);
	assert_true(size < 8 * 100000);
	f = kft_open(path, err, sizeof(err));
	assert_non_null(f);
	for (i = 0; i < kft_nchunks(f); i++)
		n += kft_chunk_at(f, i)->nrecs;
	assert_int_equal(n, 100000);
	kft_close(f);

	/* The writer's throughput: printed, not asserted */
	size = write_events(path, 1000000, &secs);
	print_message("kft: 1000000 records, %.0f MB/s raw, %.2f bytes/record (%.3f s)\n",
		      96e6 / secs / 1e6, size / 1e6, secs);
	unlink(path);
}

/* ---- the file's creation: safe in a directory others write ------------- */

static void assert_text(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_true(fread(buf, 1, sizeof(buf) - 1, f) < sizeof(buf) - 1);
	fclose(f);
	assert_string_equal(buf, text);
}

/* The names in d: how many */
static int entries(const char *d)
{
	char cmd[256], line[256];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ls -A '%s'", d);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		n++;
	pclose(p);
	return n;
}

/* -o through a planted symlink: refused, its target untouched */
static void test_create_symlink(void **state)
{
	char link[256], target[256];
	const char *d;
	int flight;

	(void)state;
	d = t_tmp_mkdir("symlink", 0777);
	snprintf(target, sizeof(target), "%s/root-only", d);
	t_put(target, "keep me");
	assert_int_equal(chmod(target, 0600), 0);
	snprintf(link, sizeof(link), "%s/trace.kft", d);
	assert_int_equal(symlink(target, link), 0);
	for (flight = 0; flight < 2; flight++) {
		struct kft_wopts o = { .flight_bytes = flight ? 1 << 20 : 0 };

		errno = 0;
		assert_null(kft_writer_new(link, &o));
		assert_int_equal(errno, ELOOP);
		assert_text(target, "keep me");
		assert_int_equal(entries(d), 2);
	}
}

/* Mode 0600; nothing at the name until the close; the old file kept till then */
static void test_create_mode(void **state)
{
	struct kft_wopts o = { .chunk_bytes = 1024 };
	struct recs in = { 0 };
	struct kft_writer *w;
	struct kft_file *f;
	char path[256], err[256];
	struct stat st;
	const char *d;

	(void)state;
	d = t_tmp_mkdir("mode", 0777);
	snprintf(path, sizeof(path), "%s/t.kft", d);
	t_put(path, "old recording");
	assert_int_equal(chmod(path, 0644), 0);
	w = kft_writer_new(path, &o);
	assert_non_null(w);
	assert_int_equal(kft_writer_layout(w), 0);
	assert_text(path, "old recording");
	/* from the first record the recording is at path: a kill leaves it there */
	feed(w, &in, 300);
	f = kft_open(path, err, sizeof(err));
	assert_non_null(f);
	assert_false(kft_complete(f));
	kft_close(f);
	assert_int_equal(entries(d), 1);
	assert_int_equal(kft_writer_close(w, NULL, 0, NULL, 0), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(entries(d), 1);
	f = kft_open(path, err, sizeof(err));
	assert_non_null(f);
	assert_true(kft_complete(f));
	kft_close(f);
	free(in.buf);
}

/* A start that fails (Ctrl-C before the first record): the old file stays */
static void test_create_abort_keeps(void **state)
{
	struct kft_wopts o = { .flight_bytes = 1 << 20 };
	struct kft_writer *w;
	char path[256];
	const char *d;
	int flight;

	(void)state;
	d = t_tmp_mkdir("abort", 0777);
	snprintf(path, sizeof(path), "%s/t.kft", d);
	t_put(path, "earlier recording");
	for (flight = 0; flight < 2; flight++) {
		w = kft_writer_new(path, flight ? &o : NULL);
		assert_non_null(w);
		assert_int_equal(kft_writer_layout(w), 0);
		kft_writer_abort(w);
		assert_text(path, "earlier recording");
		assert_int_equal(entries(d), 1);
	}
}

/* Flight: no predictable FILE.tmp, before or after a dump; a FIFO refused */
static void test_create_flight_tmp(void **state)
{
	struct kft_wopts o = { .chunk_bytes = 1024, .flight_bytes = 1 << 20 };
	struct recs in = { 0 };
	struct kft_writer *w;
	char path[256], tmp[300], victim[256];
	struct stat st;
	const char *d;

	(void)state;
	d = t_tmp_mkdir("flight", 0777);
	snprintf(path, sizeof(path), "%s/f.kft", d);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	snprintf(victim, sizeof(victim), "%s/victim", d);
	/* the old name, planted as a link: never written through */
	assert_int_equal(symlink(victim, tmp), 0);
	w = kft_writer_new(path, &o);
	assert_non_null(w);
	feed(w, &in, 300);
	assert_int_equal(kft_writer_dump(w, "", 0), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	feed(w, &in, 300);
	assert_int_equal(kft_writer_dump(w, "", 0), 0);
	assert_int_equal(kft_writer_close(w, NULL, 0, NULL, 0), 0);
	assert_int_equal(entries(d), 2);
	assert_int_equal(lstat(tmp, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(access(victim, F_OK), -1);
	free(in.buf);

	unlink(path);
	assert_int_equal(mkfifo(path, 0600), 0);
	errno = 0;
	assert_null(kft_writer_new(path, &o));
	assert_int_equal(errno, EINVAL);
	assert_null(kft_writer_new(path, NULL));
	assert_int_equal(errno, EINVAL);
}

/* A chunk's block copied right after itself: read once, the copy counted */
static void test_duplicated_chunk(void **state)
{
	const char *path = t_tmp("dup.kft");
	struct recs in = { 0 }, out = { 0 }, once = { 0 };
	size_t len, off, blen;
	struct kft_file *f;
	char err[256];
	char *buf, *two;
	int n, fd;

	(void)state;
	make_file(path, 1024, 300, &in);
	f = kft_open(path, err, sizeof(err));
	assert_non_null(f);
	n = kft_nchunks(f);
	assert_true(n > 3);
	read_all(f, &once);
	off = kft_chunk_at(f, 2)->offset;
	blen = sizeof(struct kft_block) + kft_chunk_at(f, 2)->size;
	kft_close(f);
	buf = slurp(path, &len);
	two = malloc(len + blen);
	assert_non_null(two);
	memcpy(two, buf, off + blen);
	memcpy(two + off + blen, buf + off, len - off);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, two, len + blen), (ssize_t)(len + blen));
	close(fd);
	f = kft_open(path, err, sizeof(err));
	assert_non_null(f);
	assert_int_equal(kft_nchunks(f), n);
	assert_int_equal(kft_duplicates(f), 1);
	read_all(f, &out);
	assert_int_equal(out.len, once.len);
	assert_memory_equal(out.buf, once.buf, out.len);
	kft_close(f);
	free(buf);
	free(two);
	free(in.buf);
	free(out.buf);
	free(once.buf);
}

/*
 * A sparse file: 4 KiB written, a META block claiming 4 GiB of a hole.
 * Refused for the hole, before 4 GiB are allocated and read: under a
 * 256 MiB address-space limit the old reader said "out of memory".
 */
static void test_sparse_claim(void **state)
{
	const char *path = t_tmp("sparse.kft");
	struct kft_header h = {
		.version = KFT_VERSION, .endian = KFT_ENDIAN,
		.header_size = sizeof(h), .block_size = sizeof(struct kft_block),
		.rec_version = KFIT_REC_VERSION,
	};
	struct kft_block b;
	static char data[4096];
	__u32 claim = 0xfff00000;
	int status, fd;
	pid_t pid;

	(void)state;
	memcpy(h.magic, KFT_MAGIC, sizeof(h.magic));
	kft_block_fill(&b, KFT_B_META, 0, claim, claim, 0x12345678);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, &h, sizeof(h)), sizeof(h));
	assert_int_equal(write(fd, &b, sizeof(b)), sizeof(b));
	assert_int_equal(write(fd, data, sizeof(data)), sizeof(data));
	assert_int_equal(ftruncate(fd, sizeof(h) + sizeof(b) + claim), 0);
	close(fd);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct rlimit rl = { 256 << 20, 256 << 20 };
		char err[256];

		setrlimit(RLIMIT_AS, &rl);
		if (kft_open(path, err, sizeof(err)))
			_exit(10);
		_exit(strstr(err, "hole") ? 0 : 11);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_roundtrip, reseed),
		cmocka_unit_test_setup(test_metadata, reseed),
		cmocka_unit_test_setup(test_late_block, reseed),
		cmocka_unit_test_setup(test_bad_metadata, reseed),
		cmocka_unit_test(test_layout_versions),
		cmocka_unit_test_setup(test_chunks_between, reseed),
		cmocka_unit_test_setup(test_cap, reseed),
		cmocka_unit_test_setup(test_cap_tail, reseed),
		cmocka_unit_test_setup(test_flight, reseed),
		cmocka_unit_test_setup(test_flight_streaming_dump, reseed),
		cmocka_unit_test_setup(test_truncated, reseed),
		cmocka_unit_test_setup(test_corrupt, reseed),
		cmocka_unit_test_setup(test_chunks_ahead, reseed),
		cmocka_unit_test_setup(test_foreign, reseed),
		cmocka_unit_test_setup(test_write_error, reseed),
		cmocka_unit_test_setup(test_abort, reseed),
		cmocka_unit_test_setup(test_duplicated_chunk, reseed),
		cmocka_unit_test_setup(test_sparse_claim, reseed),
		cmocka_unit_test_setup(test_create_symlink, reseed),
		cmocka_unit_test_setup(test_create_mode, reseed),
		cmocka_unit_test_setup(test_create_abort_keeps, reseed),
		cmocka_unit_test_setup(test_create_flight_tmp, reseed),
		cmocka_unit_test_setup(test_ratio, reseed),
	};

	return cmocka_run_group_tests(tests, t_tmpdir_setup, t_tmpdir_teardown);
}
