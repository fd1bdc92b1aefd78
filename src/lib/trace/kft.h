/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_KFT_LIB_H
#define KFIT_KFT_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "kfit/kft.h"
#include "tpformat.h"
#include "argfmt.h"

/*
 * Trace files (include/kfit/kft.h): the writer callgraph -o streams into,
 * and the reader kd uses. Core code: no libbpf, no kernel access.
 *
 * META keys callgraph writes (kd reads those it knows, --info lists all):
 *   kfit_version, cmdline, created (ISO 8601 local time), uname.sysname,
 *   uname.nodename, uname.release, uname.version, uname.machine,
 *   kernel.build_id (vmlinux's, hex, when /sys/kernel/notes has it), ncpus,
 *   page_size, clock ("monotonic": every ts), clock.realtime_offset_ns and
 *   clock.boottime_offset_ns (add to a ts: CLOCK_REALTIME, CLOCK_BOOTTIME),
 *   start_ns, mode ("exact" or "sampled"), mechanism, tp_mode, hz,
 *   sample_event, root, depth, min_ns, max_ns, pid, tid, comm, cpus,
 *   interlace, attach.functions, attach.skipped, attach.ns, attach.fds,
 *   skipped.N ("NAME\tREASON"), buffer, flight.
 * STATS keys: end_ns, records, bytes, records.TYPE (call, switch, irq,
 *   event, fork, exec, exit, sample, lost), records.cpuN (records written
 *   on CPU N), end_calls, lost, lost.cpuN,
 *   counter.NAME (the BPF side's: deep, no_stack, unmatched...), missed,
 *   chunks, chunks_dropped (flight), size_capped (1: -s ended it).
 */

/* ---- writer -------------------------------------------------------------- */

struct kft_wopts {
	__u32 chunk_bytes;	/* raw record bytes per chunk; 0: 1 MiB; at most 64 MiB */
	int level;		/* zlib level; 0: 1 (fast) */
	__u64 max_bytes;	/* -s: the file stops growing here; 0: no cap. A
				   share (1/32, 4 KiB..1 MiB) is kept for SYMS and
				   STATS; larger ones push the last chunks out at close */
	__u64 flight_bytes;	/* --flight: keep the last this many compressed
				   bytes of chunks in memory, write at dump; 0: stream */
	int queue;		/* chunks queued for the compressing thread; 0: 4 */
};

struct kft_wstats {
	__u64 records, raw_bytes;	/* accepted by kft_writer_rec */
	__u64 refused;			/* records refused once the cap was reached */
	__u64 chunks;			/* compressed */
	__u64 chunks_dropped;		/* flight: the oldest, forgotten */
	__u64 file_bytes;		/* written so far (flight: by the last dump) */
	__u64 comp_bytes;		/* compressed chunk payloads */
	__u64 ns_compress;		/* the thread's time in zlib */
};

struct kft_writer;

/*
 * Begin path: a temporary in its directory (kfit_out_open: mode 0600, no
 * symlink followed, nothing but a regular file replaced), renamed to path
 * when the first record comes (flight: at each dump), so that a recording
 * killed after is at path as far as it got; whatever was at path stays
 * until then (a start-up that fails leaves it). The records
 * are handed, one ring buffer's drain at a time, by one thread; a worker
 * thread compresses full chunks and writes them. NULL with errno.
 */
struct kft_writer *kft_writer_new(const char *path, const struct kft_wopts *o);
/*
 * A metadata block (META, LAYOUT, FUNCS, EVENTS, TASKS, SYMS), before the
 * first record for all but SYMS (written as names come, and at close:
 * the reader takes every SYMS block). Streaming, it goes after the
 * records given before it; flight mode keeps them to write at each dump.
 * 0 or -errno: -EFBIG when -s leaves no room for it while recording.
 */
int kft_writer_block(struct kft_writer *w, enum kft_block_type type,
		     const void *data, size_t len);
/* The LAYOUT block of this build's rec.h (kft_writer_block of it; written
   before the first record or at close when not asked for) */
int kft_writer_layout(struct kft_writer *w);
/*
 * One record (rec.h, size its h.size). 0; 1 once the -s cap is reached
 * (this record and all after are refused, counted; end the recording);
 * -errno when the writing thread failed (disk full: -ENOSPC).
 */
int kft_writer_rec(struct kft_writer *w, const void *rec, size_t size);
/*
 * Flight mode: write the file now (metadata, the chunks kept, stats, the
 * index), replacing the previous dump atomically; recording goes on.
 * stats: the STATS block's text. 0 or -errno. Streaming: -EINVAL.
 */
int kft_writer_dump(struct kft_writer *w, const char *stats, size_t len);
/*
 * The end: the last chunk, the SYMS block (syms may be NULL), STATS, the
 * index and footer (flight: one last dump). Frees w whatever happens:
 * take kft_writer_stats before. 0 or -errno; on an error (a full disk:
 * -ENOSPC) the chunks written so far are left at path as kft_writer_abort
 * leaves them.
 */
int kft_writer_close(struct kft_writer *w, const char *syms, size_t syms_len,
		     const char *stats, size_t stats_len);
/*
 * The NAMES block's text (kft.h), written with STATS at each dump and at
 * close; each call replaces the last (copied). 0 or -errno.
 */
int kft_writer_names(struct kft_writer *w, const char *text, size_t len);
/*
 * Free without finishing the file (an error path): when records were
 * given, what is written goes to path (a file without its end, read up to
 * its last complete chunk); else nothing is written and path stays as it
 * was (a failed start must not remove a file that was there).
 */
void kft_writer_abort(struct kft_writer *w);
void kft_writer_stats(struct kft_writer *w, struct kft_wstats *s);

/* ---- reader -------------------------------------------------------------- */

struct kft_kv {
	const char *key, *val;
};

struct kft_func {
	__u32 id;
	bool kernel;
	bool dropped;
	__u8 ret;		/* how its return value reads: KFIT_RET_* (kfit/ret.h); */
				/* 0, the whole register, in files before it */
	const char *name, *object, *build_id;	/* build_id: "" when none */
};


struct kft_event {
	__u32 id;
	const char *name;	/* "syscalls:sys_enter_write" */
	const char *format;	/* the tracefs format text */
	const struct kfit_tpfield *fields;	/* common_* fields excluded */
	int nfields;
};

struct kft_task {
	__u32 pid, tid, ppid;
	char comm[16];
};

/* A name a task took while recording (NAMES block) */
struct kft_name {
	__u64 ts;
	__u32 pid, tid;
	char comm[16];
};

struct kft_chunkinfo {
	__u64 offset, seq, first_ts, last_ts, nrecs, lost;
	__u32 size, raw_size;
};

struct kft_file;

/*
 * Open path, or len bytes at buf (the fuzzer; buf must outlive the file).
 * NULL when it is no trace file, another version or byte order, or its
 * metadata is corrupt: err (errlen bytes) says which, for the user
 * (without the path: prefix it).
 * A file without a valid footer is read up to its last complete chunk:
 * kft_complete() is false and kft_missing() tells what follows it.
 */
struct kft_file *kft_open(const char *path, char *err, size_t errlen);
struct kft_file *kft_open_mem(const void *buf, size_t len, char *err, size_t errlen);
void kft_close(struct kft_file *f);

const struct kft_header *kft_header_of(const struct kft_file *f);
__u64 kft_size(const struct kft_file *f);
bool kft_complete(const struct kft_file *f);
/* Bytes after the last complete chunk that could not be read (0: none) */
__u64 kft_missing(const struct kft_file *f);

/* META and STATS, in file order; NULL: no such key */
int kft_nmeta(const struct kft_file *f);
const struct kft_kv *kft_meta_at(const struct kft_file *f, int i);
const char *kft_meta(const struct kft_file *f, const char *key);
int kft_nstats(const struct kft_file *f);
const struct kft_kv *kft_stat_at(const struct kft_file *f, int i);
const char *kft_stat(const struct kft_file *f, const char *key);
/* A META or STATS value as a number; def when absent or not a number */
__u64 kft_meta_u64(const struct kft_file *f, const char *key, __u64 def);
__u64 kft_stat_u64(const struct kft_file *f, const char *key, __u64 def);

int kft_nfuncs(const struct kft_file *f);
const struct kft_func *kft_func_at(const struct kft_file *f, int i);	/* by id; NULL: none */
/*
 * Function i's arguments as its calls' records carry them (ARGS block),
 * *n of them; NULL, *n 0: none
 */
const struct kfit_argfmt *kft_func_args(const struct kft_file *f, int i, int *n);
int kft_nevents(const struct kft_file *f);
const struct kft_event *kft_event_at(const struct kft_file *f, int i);	/* by id */
int kft_ntasks(const struct kft_file *f);
const struct kft_task *kft_task_at(const struct kft_file *f, int i);

/*
 * NAMES, in time order (none in a truncated file: it is written at the
 * end); a NAMES block with no line says that no task took a new name
 */
bool kft_has_names(const struct kft_file *f);
int kft_nnames(const struct kft_file *f);
const struct kft_name *kft_name_at(const struct kft_file *f, int i);

/*
 * The name of a sampled address from the SYMS block: a kfit_ctree_sym_fn
 * (calltree.h) whose ctx is the kft_file. Not in the table: "[unknown]
 * 0xADDR" (a string of the file's, valid until kft_close).
 */
const char *kft_sym(void *ctx, __u32 pid, __u64 addr, bool kernel);

int kft_nchunks(const struct kft_file *f);
/*
 * Chunks found twice in the file (the same seq and span: blocks copied
 * within it): the later copies are left out of the chunks listed
 */
int kft_duplicates(const struct kft_file *f);
const struct kft_chunkinfo *kft_chunk_at(const struct kft_file *f, int i);
/*
 * Chunk i's records, inflated, their timestamps restored, into *buf
 * (malloc'd, the caller frees) of *len bytes. 0, -EBADMSG (corrupt:
 * CRC, zlib, sizes, a record that runs past the end), -EIO, -ENOMEM.
 */
int kft_read_chunk(struct kft_file *f, int i, void **buf, size_t *len);
/*
 * The same into buffers kept from call to call (cb zeroed at first; each
 * grown when too small; the caller frees them): the records in cb->out,
 * *len bytes of it. A fresh buffer each time faults its pages in, a tenth
 * of reading a file.
 */
struct kft_chunkbuf {
	void *in, *out;		/* the stored bytes; the records */
	size_t incap, outcap;
};
int kft_read_chunk_into(struct kft_file *f, int i, struct kft_chunkbuf *cb, size_t *len);
/*
 * Chunks first..last in order, inflated ahead by threads (0: one per CPU)
 * while the caller decodes: memory of about 2 x threads chunks. NULL
 * with errno. kft_chunks_next: 1 with chunk *i's records in *buf (the
 * chunks' own until the next call or kft_chunks_close: not to be freed)
 * and *err its kft_read_chunk error (0, or that chunk unreadable), or 0
 * after the last.
 */
struct kft_chunks;
struct kft_chunks *kft_chunks_open(struct kft_file *f, int first, int last, int threads);
int kft_chunks_next(struct kft_chunks *c, int *i, void **buf, size_t *len, int *err);
void kft_chunks_close(struct kft_chunks *c);

/*
 * The chunks that may hold records with since <= h.ts < until (ns on the
 * file's clock; until 0: no end): [*first, *last], or -ENOENT when none.
 */
int kft_chunks_between(const struct kft_file *f, __u64 since, __u64 until,
		       int *first, int *last);

#endif
