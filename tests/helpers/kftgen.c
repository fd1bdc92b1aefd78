// SPDX-License-Identifier: GPL-2.0
/*
 * kftgen: writes a trace file of known synthetic records with the
 * library's writer (src/lib/trace/kft.h), so that kd is tested without BPF.
 *
 *   kftgen [-s] [-n N | --many N [--irqs] | --flat N] [-c BYTES] [--cut BYTES] [--corrupt I] [--corrupt-meta] OUT
 *
 * Exact mode (the default). Start T0 = 1 s; iteration k (0..N-1) at
 * B = T0 + 1 ms + k * 10 ms:
 *   gen (pid 100, tid 100, CPU 0):
 *     main_loop [B, +500us)
 *       work [B+10us, +300us)
 *         leaf [B+20us, +100us)
 *         leaf [B+200us, +50us)
 *       vfs_write [B+400us, +50us) (kernel)
 *         event syscalls:sys_enter_write at B+410us: fd=1, buf=0x7f0000001000+k, count=k+1
 *   gen-worker (pid 100, tid 101, CPU 1):
 *     work [B+100us, +200us)
 *       leaf [B+150us, +20us)
 *     event sched:sched_wakeup at B+120us: comm=gen pid=100 prio=120 target_cpu=k%2
 * k == 1: gen off CPU (blocked, state 1) at B+260us for 30us, inside leaf... work.
 * k == 2: a softirq NET_RX on CPU 0 at B+300us for 5us, striking gen.
 * T0+300ms: gen forks tid 102 (pid 100), which runs work [T0+301ms, +40us)
 *   and exits at T0+302ms.
 * shell (pid 300, tid 300, CPU 1): work [T0+400ms, +10us), exec "newprog"
 *   at T0+500ms, work [T0+600ms, +20us).
 * T0+700ms: the end; CPU 1 lost 7 records (a LOST record, STATS).
 * Functions: main_loop, work, leaf (user), vfs_write, never_called
 * (kernel), not_attached (kernel, dropped); skipped_fn skipped.
 * Return values (every call returns; FUNCS' RET says how each reads):
 * main_loop is void (its register 42 shown nowhere); work returns k
 * (the whole register: gen-worker's and gen's in iteration k, the fork's
 * child 0, shell 1 before its exec and -1 after); leaf a pointer,
 * 0x7f0000002000 + k; vfs_write (-errno on failure) k + 1, but -EINTR
 * in iteration 1, and 2 in the softirq (--irqs); --flat's 1.
 *
 * -s: sampled mode instead: N samples of gen at T0 + 1ms + k * 10ms, leaf
 * first: even k kernel k_leaf under user u_leaf under u_main, odd k user
 * u_leaf, u_main only; k == 3 one unknown user address (0x4ff000).
 *
 * --many N: N iterations (1 to 50,000,000) 600us apart, without the
 * fork, the shell and the extras of k == 1 and k == 2: a long recording
 * of 9 records an iteration for kd's memory and speed (chunks of 1 MiB
 * unless -c); it ends 1 ms after the last iteration. Its NAMES block is
 * empty, as callgraph writes it when no task took a new name: a window
 * needs no chunk before it. --irqs: each
 * iteration also a softirq NET_RX on CPU 0 at B+300us for 5us striking
 * gen (inside work), vfs_write [B+301us, +2us) in it: 11 records an
 * iteration, an interrupt track as long as the recording.
 *
 * --flat N: instead, N depth-0 calls of vfs_write by gen (1 to 500,000,000),
 * about 450ns apart and 250ns long with a deterministic jitter: the shape
 * of callgraph's recording of dd's one-byte writes (kd's speed, kd.sh).
 *
 * -c: raw bytes per chunk (default 1024: many chunks). --cut BYTES: the
 * file loses its last BYTES. --corrupt I: a byte of chunk I's payload
 * flipped. --corrupt-meta: a byte of the META block flipped.
 * --dup-chunk I: chunk I's block written twice in a row (the index then
 * no longer matches: the file is read by walking its blocks).
 * --sparse-meta BYTES: instead of a recording, the header, a META block
 * that claims BYTES (its header sound, its payload not), 4 KiB of data
 * and a hole up to where the block would end (a sparse file).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kfit/rec.h"
#include "kft.h"
#include "kft_codec.h"
#include "tpformats.h"

#define T0	1000000000ULL
#define US	1000ULL
#define MS	1000000ULL
#define END	(T0 + 700 * MS)
#define LEAF_RET	0x7f0000002000ULL

enum { F_MAIN, F_WORK, F_LEAF, F_VFS_WRITE, F_NEVER, F_DROPPED };

static struct kft_writer *w;
static long nrecs;
static bool many;		/* --many or --flat */
static bool irqs;		/* --irqs */
static bool flat;		/* --flat */
static __u64 step = 10 * MS;	/* between iterations */
static __u64 end_ns = END;

static void die(const char *what, int err)
{
	fprintf(stderr, "kftgen: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

static void rec(const void *r, size_t size)
{
	int err = kft_writer_rec(w, r, size);

	if (err)
		die("kft_writer_rec", err < 0 ? err : ENOSPC);
	nrecs++;
}

static struct kfit_rec head(__u8 type, size_t size, __u32 pid, __u32 tid, __u16 cpu,
			    __u64 ts)
{
	return (struct kfit_rec){
		.type = type, .size = size, .pid = pid, .tid = tid, .cpu = cpu, .ts = ts,
	};
}

/* A call that returned ret (the register) */
static void call(__u32 pid, __u32 tid, __u16 cpu, __u32 id, __u16 depth, __u64 ts,
		 __u64 dur, __u64 blocked, __u64 ret)
{
	struct kfit_rec_call r = {
		.h = head(KFIT_REC_CALL, sizeof(r), pid, tid, cpu, ts),
		.dur = dur, .off_blocked = blocked, .id = id, .depth = depth,
		.cflags = KFIT_CF_RET, .ret = ret,
	};

	rec(&r, sizeof(r));
}

static void put64(__u8 *p, __u64 v)
{
	memcpy(p, &v, 8);
}

static void put32(__u8 *p, __u32 v)
{
	memcpy(p, &v, 4);
}

/* syscalls:sys_enter_write (id 0): its format's bytes at their offsets, 0-7 zero */
static void ev_write(__u64 ts, __u64 fd, __u64 buf, __u64 count)
{
	struct kfit_rec_event r = {
		.h = head(KFIT_REC_EVENT, sizeof(r), 100, 100, 0, ts), .id = 0, .len = 40,
	};

	put32(r.data + 8, 1);	/* __syscall_nr */
	put64(r.data + 16, fd);
	put64(r.data + 24, buf);
	put64(r.data + 32, count);
	rec(&r, sizeof(r));
}

/* sched:sched_wakeup (id 1): its first 8 bytes a kernel address, as BPF sees them */
static void ev_wakeup(__u64 ts, int cpu)
{
	struct kfit_rec_event r = {
		.h = head(KFIT_REC_EVENT, sizeof(r), 100, 101, 1, ts), .id = 1, .len = 36,
	};

	put64(r.data, 0xffff888012345678ULL);
	memcpy(r.data + 8, "gen", 4);
	put32(r.data + 24, 100);
	put32(r.data + 28, 120);
	put32(r.data + 32, cpu);
	rec(&r, sizeof(r));
}

static void task_rec(__u8 type, __u32 pid, __u32 tid, __u64 ts, __u32 cpid, __u32 ctid,
		     const char *comm)
{
	struct kfit_rec_task r = {
		.h = head(type, sizeof(r), pid, tid, 1, ts), .child_pid = cpid, .child_tid = ctid,
	};

	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	rec(&r, sizeof(r));
}

static void lost(void)
{
	struct kfit_rec_lost r = { .h = head(KFIT_REC_LOST, sizeof(r), 0, 0, 1, end_ns), .count = 7 };

	rec(&r, sizeof(r));
}

/* A NET_RX softirq on CPU 0 at ts for 5us striking gen; with a call: vfs_write in it */
static void softirq(__u64 ts, bool with_call)
{
	struct kfit_rec_irq q = {
		.h = head(KFIT_REC_IRQ, sizeof(q), 100, 100, 0, ts), .dur = 5 * US, .vec = 3,
	};
	struct kfit_rec_call c = {
		.h = head(KFIT_REC_CALL, sizeof(c), 100, 100, 0, ts + US),
		.dur = 2 * US, .id = F_VFS_WRITE, .cflags = KFIT_CF_RET, .ret = 2,
	};

	q.h.ctx = c.h.ctx = KFIT_CTX_SOFTIRQ;
	if (with_call) {
		rec(&c, sizeof(c));
		q.ncalls = 1;
	}
	rec(&q, sizeof(q));
}

static void exact_records(long n)
{
	long k;

	for (k = 0; k < n; k++) {
		__u64 b = T0 + MS + k * step;
		__u64 off = k == 1 && !many ? 30 * US : 0;

		/* gen-worker's first: it returns before gen's calls do */
		ev_wakeup(b + 120 * US, k % 2);
		call(100, 101, 1, F_LEAF, 1, b + 150 * US, 20 * US, 0, LEAF_RET + k);
		call(100, 101, 1, F_WORK, 0, b + 100 * US, 200 * US, 0, k);
		call(100, 100, 0, F_LEAF, 2, b + 20 * US, 100 * US, 0, LEAF_RET + k);
		call(100, 100, 0, F_LEAF, 2, b + 200 * US, 50 * US, 0, LEAF_RET + k);
		if (k == 1 && !many) {
			struct kfit_rec_switch s = {
				.h = head(KFIT_REC_SWITCH, sizeof(s), 100, 100, 0, b + 260 * US),
				.dur = 30 * US, .state = 1, .depth = 2,
			};

			rec(&s, sizeof(s));
		}
		if (k == 2 && !many)
			softirq(b + 300 * US, false);
		if (irqs)
			softirq(b + 300 * US, true);
		call(100, 100, 0, F_WORK, 1, b + 10 * US, 300 * US, off, k);
		ev_write(b + 410 * US, 1, 0x7f0000001000ULL + k, k + 1);
		call(100, 100, 0, F_VFS_WRITE, 1, b + 400 * US, 50 * US, 0,
		     k == 1 && !many ? (__u64)-4 : (__u64)k + 1);
		call(100, 100, 0, F_MAIN, 0, b, 500 * US, off, 42);
	}
	if (many) {
		lost();
		return;
	}
	task_rec(KFIT_REC_FORK, 100, 100, T0 + 300 * MS, 100, 102, "gen");
	call(100, 102, 1, F_WORK, 0, T0 + 301 * MS, 40 * US, 0, 0);
	task_rec(KFIT_REC_EXIT, 100, 102, T0 + 302 * MS, 0, 0, "gen");
	call(300, 300, 1, F_WORK, 0, T0 + 400 * MS, 10 * US, 0, 1);
	task_rec(KFIT_REC_EXEC, 300, 300, T0 + 500 * MS, 0, 0, "newprog");
	call(300, 300, 1, F_WORK, 0, T0 + 600 * MS, 20 * US, 0, (__u64)-1);
	lost();
}

/* dd's writes: one call each, at jittered times (a 64-bit LCG) */
static void flat_records(long n)
{
	__u64 ts = T0 + MS, x = 1;
	long k;

	for (k = 0; k < n; k++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		call(100, 100, 0, F_VFS_WRITE, 0, ts, 200 + (x >> 58), 0, 1);
		ts += 400 + (x >> 33 & 127);
	}
	end_ns = ts + MS;
	lost();
}

static void sampled_records(int n)
{
	int k;

	for (k = 0; k < n; k++) {
		struct kfit_rec_sample s = {
			.h = head(KFIT_REC_SAMPLE, 0, 100, 100, k % 2, T0 + MS + k * 10 * MS),
		};
		int i = 0;

		if (k % 2 == 0) {
			s.ip[i++] = 0xffffffff81000100ULL;
			s.nkernel = 1;
		}
		s.ip[i++] = k == 3 ? 0x4ff000 : 0x401100;
		s.ip[i++] = 0x401000;
		s.nuser = i - s.nkernel;
		s.h.size = offsetof(struct kfit_rec_sample, ip) + i * sizeof(__u64);
		rec(&s, s.h.size);
	}
	lost();
}

static const char wakeup_format[] =
	"name: sched_wakeup\n"
	"ID: 374\n"
	TP_COMMON_FIELDS
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, "
	"REC->pid, REC->prio, REC->target_cpu\n";

/* The names of the sampled addresses; 0x4ff000 has none */
static const char syms[] =
	"file\t/usr/bin/gen\tabcdef01\n"
	"100\t401000\tu\tu_main\n"
	"100\t401100\tu\tu_leaf\n"
	"0\tffffffff81000100\tk\tk_leaf\n";

static void block(enum kft_block_type type, const char *text)
{
	int err = kft_writer_block(w, type, text, strlen(text));

	if (err)
		die("kft_writer_block", err);
}

static void metadata(bool sampled)
{
	char meta[2048], events[4096];

	snprintf(meta, sizeof(meta),
		 "kfit_version=0.1.0\ncmdline=kftgen%s\ncreated=2026-01-02T03:04:05+0000\n"
		 "uname.sysname=Linux\nuname.nodename=genhost\nuname.release=6.1.0-gen\n"
		 "uname.version=#1 SMP\nuname.machine=x86_64\nncpus=2\npage_size=4096\n"
		 "clock=monotonic\nclock.realtime_offset_ns=1767322800000000000\n"
		 "clock.boottime_offset_ns=5000\nstart_ns=%llu\nmode=%s\nmechanism=%s\n"
		 "tp_mode=tp_btf\n%s",
		 sampled ? " -s" : "", T0, sampled ? "sampled" : "exact",
		 sampled ? "perf_event" : "uprobe",
		 sampled ? "hz=99\nsample_event=cpu-clock\n" :
			   "attach.functions=5\nattach.skipped=1\nattach.ns=12345\n"
			   "attach.fds=10\nskipped.0=skipped_fn\tnot in available_filter_functions\n");
	block(KFT_B_META, meta);
	if (kft_writer_layout(w))
		die("kft_writer_layout", EIO);
	if (!sampled) {
		block(KFT_B_FUNCS,
		      "0\tu\tmain_loop\t/usr/bin/gen\tabcdef01\t-\t80\n"
		      "1\tu\twork\t/usr/bin/gen\tabcdef01\t-\t0\n"
		      "2\tu\tleaf\t/usr/bin/gen\tabcdef01\t-\t28\n"
		      "3\tk\tvfs_write\tvmlinux\t-\t-\t58\n"
		      "4\tk\tnever_called\tvmlinux\t-\t-\t54\n"
		      "5\tk\tnot_attached\tvmlinux\t-\tdropped\t54\n");
		snprintf(events, sizeof(events), "event 0 syscalls:sys_enter_write\n%s\n"
			 "event 1 sched:sched_wakeup\n%s\n", write_format, wakeup_format);
		block(KFT_B_EVENTS, events);
	}
	block(KFT_B_TASKS, "100\t100\t1\tgen\n100\t101\t1\tgen-worker\n300\t300\t1\tshell\n");
}

static void flip(const char *path, long off)
{
	FILE *f = fopen(path, "r+b");
	int c;

	if (!f || fseek(f, off, SEEK_SET) || (c = fgetc(f)) == EOF ||
	    fseek(f, off, SEEK_SET) || fputc(c ^ 0x5a, f) == EOF || fclose(f))
		die(path, errno ? errno : EIO);
}

static void corrupt_chunk(const char *path, int i)
{
	char msg[256];
	struct kft_file *f = kft_open(path, msg, sizeof(msg));
	long off;

	if (!f) {
		fprintf(stderr, "kftgen: %s: %s\n", path, msg);
		exit(1);
	}
	if (i >= kft_nchunks(f)) {
		fprintf(stderr, "kftgen: no chunk %d (%d)\n", i, kft_nchunks(f));
		exit(1);
	}
	/* inside the stored records, after the block's and the chunk's headers */
	off = kft_chunk_at(f, i)->offset + sizeof(struct kft_block) + sizeof(struct kft_chunk) + 4;
	kft_close(f);
	flip(path, off);
}

/* Chunk i's block twice: the bytes after it move down by its length */
static void dup_chunk(const char *path, int i)
{
	char msg[256], *buf;
	struct kft_file *f = kft_open(path, msg, sizeof(msg));
	long off, len, size;
	FILE *fp;

	if (!f || i >= kft_nchunks(f)) {
		fprintf(stderr, "kftgen: %s: no chunk %d\n", path, i);
		exit(1);
	}
	off = kft_chunk_at(f, i)->offset;
	len = sizeof(struct kft_block) + kft_chunk_at(f, i)->size;
	size = kft_size(f);
	kft_close(f);
	buf = malloc(size);
	fp = fopen(path, "r+b");
	if (!buf || !fp || fread(buf, 1, size, fp) != (size_t)size ||
	    fseek(fp, off + len, SEEK_SET) || fwrite(buf + off, 1, size - off, fp) != (size_t)(size - off) ||
	    fclose(fp))
		die(path, errno ? errno : EIO);
	free(buf);
}

/* A META block claiming len bytes, 4 KiB of them written, a hole after */
static void sparse_meta(const char *path, unsigned long len)
{
	struct kft_header h = {
		.version = KFT_VERSION, .endian = KFT_ENDIAN,
		.header_size = sizeof(h), .block_size = sizeof(struct kft_block),
		.rec_version = KFIT_REC_VERSION,
	};
	static char data[4096];
	struct kft_block b;
	FILE *fp = fopen(path, "wb");

	memcpy(h.magic, KFT_MAGIC, sizeof(h.magic));
	memset(data, 'x', sizeof(data));
	kft_block_fill(&b, KFT_B_META, 0, len, len, 0x12345678);
	if (!fp || fwrite(&h, sizeof(h), 1, fp) != 1 || fwrite(&b, sizeof(b), 1, fp) != 1 ||
	    fwrite(data, sizeof(data), 1, fp) != 1 || fclose(fp) ||
	    truncate(path, sizeof(h) + sizeof(b) + len))
		die(path, errno ? errno : EIO);
}

int main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "cut", required_argument, NULL, 'C' },
		{ "corrupt", required_argument, NULL, 'X' },
		{ "corrupt-meta", no_argument, NULL, 'M' },
		{ "dup-chunk", required_argument, NULL, 'D' },
		{ "sparse-meta", required_argument, NULL, 'S' },
		{ "many", required_argument, NULL, 'm' },
		{ "irqs", no_argument, NULL, 'I' },
		{ "flat", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	struct kft_wopts o = { .chunk_bytes = 1024 };
	bool sampled = false, meta = false;
	long cut = 0, corrupt = -1, dup = -1;
	unsigned long sparse = 0;
	const char *path;
	char stats[512];
	long n = 20;
	int c, err;

	while ((c = getopt_long(argc, argv, "sn:c:", longs, NULL)) != -1) {
		switch (c) {
		case 's':
			sampled = true;
			break;
		case 'n':
			n = atoi(optarg);
			break;
		case 'c':
			o.chunk_bytes = atoi(optarg);
			break;
		case 'C':
			cut = atol(optarg);
			break;
		case 'X':
			corrupt = atol(optarg);
			break;
		case 'M':
			meta = true;
			break;
		case 'D':
			dup = atol(optarg);
			break;
		case 'S':
			sparse = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			many = true;
			n = atol(optarg);
			break;
		case 'I':
			irqs = true;
			break;
		case 'F':
			many = flat = true;
			n = atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: kftgen [-s] [-n N] [-c BYTES] [--cut BYTES] "
				"[--corrupt I] [--corrupt-meta] [--dup-chunk I] "
				"[--sparse-meta BYTES] [--many N [--irqs] | --flat N] OUT\n");
			return 2;
		}
	}
	if (irqs && (!many || flat)) {
		fprintf(stderr, "kftgen: --irqs goes with --many\n");
		return 2;
	}
	if (optind + 1 != argc || n < 1 || n > (flat ? 500000000 : many ? 50000000 : 29) ||
	    (many && sampled)) {
		fprintf(stderr, "kftgen: one OUT, and N from 1 to 29 (--many: to 50000000, "
			"--flat: to 500000000, not sampled)\n");
		return 2;
	}
	if (many) {
		step = 600 * US;
		end_ns = T0 + MS + n * step + MS;
		if (o.chunk_bytes == 1024)
			o.chunk_bytes = 1 << 20;
	}
	path = argv[optind];
	if (sparse) {
		if (sparse < 4096 || sparse > UINT32_MAX) {
			fprintf(stderr, "kftgen: --sparse-meta from 4096 to 4294967295\n");
			return 2;
		}
		sparse_meta(path, sparse);
		return 0;
	}
	w = kft_writer_new(path, &o);
	if (!w)
		die(path, errno);
	metadata(sampled);
	if (sampled)
		sampled_records(n);
	else if (flat)
		flat_records(n);
	else
		exact_records(n);
	if (many && kft_writer_names(w, "", 0))
		die("kft_writer_names", ENOMEM);
	snprintf(stats, sizeof(stats),
		 "end_ns=%llu\nrecords=%ld\nend_calls=0\nlost=7\nlost.cpu0=0\nlost.cpu1=7\n"
		 "counter.deep=0\ncounter.no_stack=0\ncounter.unmatched=0\nmissed=0\n",
		 end_ns, nrecs);
	err = kft_writer_close(w, sampled ? syms : NULL, sampled ? strlen(syms) : 0,
			       stats, strlen(stats));
	if (err)
		die("kft_writer_close", err);
	if (corrupt >= 0)
		corrupt_chunk(path, corrupt);
	if (dup >= 0)
		dup_chunk(path, dup);
	if (meta)
		flip(path, sizeof(struct kft_header) + sizeof(struct kft_block) + 2);
	if (cut) {
		FILE *f = fopen(path, "rb");
		long size;

		if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < cut)
			die(path, EINVAL);
		fclose(f);
		if (truncate(path, size - cut))
			die(path, errno);
	}
	return 0;
}
