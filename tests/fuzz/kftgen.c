// SPDX-License-Identifier: GPL-2.0
/*
 * kftgen OUTDIR: small trace files for fuzz_kft's corpus, written with
 * the library's writer (kft.h) as callgraph -o would: metadata of every
 * kind, a few chunks of records of every type (nested calls on two CPUs,
 * switches, an interrupt, tracepoint events, fork/exec/exit, samples, a
 * loss), the symbols of the samples and the totals. Files:
 *   calls.kft      complete, zlib chunks
 *   stored.kft     the same with its chunks stored (kftfix.h): the fuzzer
 *                  mutates records, not zlib streams
 *   truncated.kft  stored.kft cut at three quarters (no index, no footer)
 *   flight.kft     a flight recording (--flight), dumped at the end
 * kftgen --store IN OUT: IN with its chunks stored (a real recording's).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kfit/rec.h"
#include "kft.h"
#include "fileio.h"
#include "kftfix.h"

static const char meta[] =
	"kfit_version=0.1.0\ncmdline=callgraph -o t.kft -e syscalls:sys_enter_write vfs_read\n"
	"created=2026-01-01T00:00:00+0000\nuname.sysname=Linux\nuname.nodename=host\n"
	"uname.release=6.18.0\nuname.version=#1 SMP\nuname.machine=x86_64\nncpus=2\n"
	"page_size=4096\nclock=monotonic\nclock.realtime_offset_ns=1700000000000000000\n"
	"clock.boottime_offset_ns=12345\nstart_ns=1000000\nmode=exact\nmechanism=fentry\n"
	"pid=0\ncomm=\ncpus=\nskipped.0=bad_func\tnot in BTF\n";

static const char funcs[] =
	"0\tk\tvfs_read\tvmlinux\t-\t-\n"
	"1\tk\tnf_hook_slow\tnf_tables\t-\t-\n"
	"2\tu\tmalloc\t/usr/lib/x86_64-linux-gnu/libc.so.6\t93ac61ec5a8eb1396f9fbd350e3169a558528a40\t-\n"
	"3\tk\tksys_write\tvmlinux\t-\tdropped\n";

static const char events[] =
	"event 0 syscalls:sys_enter_write\n"
	"name: sys_enter_write\nID: 700\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * buf;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"fd: 0x%08lx, buf: 0x%08lx, count: 0x%08lx\", REC->fd, REC->buf, REC->count\n"
	"\n"
	"event 1 sched:sched_process_exec\n"
	"name: sched_process_exec\nID: 300\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d\", REC->comm, REC->pid\n\n";

static const char tasks[] =
	"100\t100\t1\tbash\n200\t200\t100\tdd\n200\t201\t100\tdd-worker\n";

static const char syms[] =
	"file\t/usr/lib/x86_64-linux-gnu/libc.so.6\t93ac61ec5a8eb1396f9fbd350e3169a558528a40\n"
	"200\t7f0000001000\tu\tmalloc\n200\t7f0000002000\tu\tfree\n"
	"0\tffffffff81001000\tk\tvfs_read\n0\tffffffff81002000\tk\tnf_hook_slow [nf_tables]\n";

static const char stats[] =
	"end_ns=9000000\nrecords=60\nrecords.call=30\nrecords.switch=6\nrecords.irq=2\n"
	"records.event=6\nrecords.fork=2\nrecords.exec=2\nrecords.exit=2\nrecords.sample=6\n"
	"records.lost=2\nlost=7\nlost.cpu0=4\nlost.cpu1=3\ncounter.deep=1\nchunks=4\n";

static void head(struct kfit_rec *h, int type, size_t size, int cpu, __u32 tid, __u64 ts)
{
	*h = (struct kfit_rec){
		.type = type, .size = size, .cpu = cpu, .pid = tid >= 200 ? 200 : 100,
		.tid = tid, .ts = ts,
	};
}

static int emit(struct kft_writer *w, const void *r)
{
	int e = kft_writer_rec(w, r, ((const struct kfit_rec *)r)->size);

	return e < 0 ? e : 0;
}

/* One round of every record type at time t, on cpu */
static int round_at(struct kft_writer *w, __u64 t, int cpu)
{
	struct kfit_rec_call c = { 0 };
	struct kfit_rec_switch s = { 0 };
	struct kfit_rec_irq q = { 0 };
	struct kfit_rec_event ev = { 0 };
	struct kfit_rec_task tk = { 0 };
	struct kfit_rec_sample sm = { 0 };
	struct kfit_rec_lost l = { 0 };
	int d, e = 0;

	/* vfs_read > nf_hook_slow > malloc: the inner calls return first */
	for (d = 2; d >= 0 && !e; d--) {
		head(&c.h, KFIT_REC_CALL, sizeof(c), cpu, 200, t + 100 * d);
		c.dur = 1000 - 200 * d;
		c.off_blocked = d ? 0 : 50;
		c.id = d;
		c.depth = d;
		e = emit(w, &c);
	}
	head(&s.h, KFIT_REC_SWITCH, sizeof(s), cpu, 201, t + 1100);
	s.dur = 300;
	s.state = 1;
	s.depth = 1;
	head(&q.h, KFIT_REC_IRQ, sizeof(q), cpu, 201, t + 1200);
	q.h.ctx = KFIT_CTX_SOFTIRQ;
	q.dur = 40;
	q.vec = 3;
	head(&ev.h, KFIT_REC_EVENT, sizeof(ev), cpu, 200, t + 1300);
	ev.id = 0;
	ev.len = 40;
	memset(ev.data, 0x11, ev.len);
	head(&sm.h, KFIT_REC_SAMPLE, offsetof(struct kfit_rec_sample, ip) + 4 * 8,
	     cpu, 200, t + 1400);
	sm.nkernel = 2;
	sm.nuser = 2;
	sm.ip[0] = 0xffffffff81001010ULL;
	sm.ip[1] = 0xffffffff81002020ULL;
	sm.ip[2] = 0x7f0000001000ULL;
	sm.ip[3] = 0x7f0000003000ULL;
	if (!e)
		e = emit(w, &s) ?: emit(w, &q) ?: emit(w, &ev) ?: emit(w, &sm);
	if (!e && cpu == 1) {
		head(&tk.h, KFIT_REC_FORK, sizeof(tk), cpu, 200, t + 1500);
		tk.child_pid = 300;
		tk.child_tid = 300;
		strcpy(tk.comm, "dd");
		e = emit(w, &tk);
		head(&tk.h, KFIT_REC_EXEC, sizeof(tk), cpu, 300, t + 1600);
		strcpy(tk.comm, "sh");
		e = e ?: emit(w, &tk);
		head(&tk.h, KFIT_REC_EXIT, sizeof(tk), cpu, 300, t + 1700);
		e = e ?: emit(w, &tk);
		head(&l.h, KFIT_REC_LOST, sizeof(l), cpu, 0, t + 1800);
		l.count = 3;
		e = e ?: emit(w, &l);
	}
	return e;
}

static int record(const char *path, const struct kft_wopts *o)
{
	struct kft_writer *w = kft_writer_new(path, o);
	__u64 t;
	int e;

	if (!w)
		return -errno;
	e = kft_writer_block(w, KFT_B_META, meta, strlen(meta));
	e = e ?: kft_writer_layout(w);
	e = e ?: kft_writer_block(w, KFT_B_FUNCS, funcs, strlen(funcs));
	e = e ?: kft_writer_block(w, KFT_B_EVENTS, events, strlen(events));
	e = e ?: kft_writer_block(w, KFT_B_TASKS, tasks, strlen(tasks));
	for (t = 1000000; !e && t < 1000000 + 12 * 2000; t += 2000)
		e = round_at(w, t, (t / 2000) % 2);
	if (e) {
		kft_writer_abort(w);
		return e;
	}
	return kft_writer_close(w, syms, strlen(syms), stats, strlen(stats));
}

static int save(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(buf, 1, len, f) != len) {
		if (f)
			fclose(f);
		return -1;
	}
	return fclose(f);
}

/* in with its chunks stored, into out: 0 or -1 */
static int store(const char *in, const char *out)
{
	uint8_t *buf, *st;
	size_t len, n;
	int e;

	buf = (uint8_t *)kfit_read_all(in, &len);
	if (!buf)
		return -1;
	st = fz_kft_rewrite(buf, len, true, &n);
	e = save(out, st, n);
	free(st);
	free(buf);
	return e;
}

int main(int argc, char **argv)
{
	struct kft_wopts o = { .chunk_bytes = 1024 };
	struct kft_wopts fl = { .chunk_bytes = 1024, .flight_bytes = 700 };
	char path[4096];
	uint8_t *in, *st;
	size_t len, n;

	if (argc == 4 && !strcmp(argv[1], "--store")) {
		if (!store(argv[2], argv[3]))
			return 0;
		fprintf(stderr, "kftgen: cannot store %s into %s: %s\n", argv[2],
			argv[3], strerror(errno));
		return 1;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: kftgen OUTDIR | kftgen --store IN OUT\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/calls.kft", argv[1]);
	if (record(path, &o))
		goto fail;
	in = (uint8_t *)kfit_read_all(path, &len);
	if (!in)
		goto fail;
	st = fz_kft_rewrite(in, len, true, &n);
	snprintf(path, sizeof(path), "%s/stored.kft", argv[1]);
	if (save(path, st, n))
		goto fail;
	/* Cut short: what follows is missing, as when the recorder was killed */
	snprintf(path, sizeof(path), "%s/truncated.kft", argv[1]);
	if (save(path, st, n * 3 / 4))
		goto fail;
	free(st);
	free(in);
	snprintf(path, sizeof(path), "%s/flight.kft", argv[1]);
	if (record(path, &fl))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "kftgen: cannot write %s: %s\n", path, strerror(errno));
	return 1;
}
