/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kfit trace file ("KFT"): what `callgraph -o FILE` writes and `kd`
 * reads, on this machine or another. Self-describing: a header, then
 * blocks, each with a small header of its own (type, flags, sizes, CRCs).
 *
 *   struct kft_header                          offset 0
 *   META, LAYOUT, FUNCS, EVENTS, TASKS blocks  what was recorded, where
 *   CHUNK blocks                               the records, zlib, in order
 *   SYMS block                                 names of sampled addresses
 *   NAMES block                                tasks' names over time
 *   STATS block                                totals and per-CPU losses
 *   INDEX block                                one kft_index_ent per chunk
 *   struct kft_footer                          the last 32 bytes
 *
 * A reader finds the index through the footer and seeks to the chunks of
 * a time window without inflating the others. A file without a footer
 * (the recorder was killed, the disk filled) is read by walking the
 * blocks from the start up to the last complete one.
 *
 * Integers are in the writer's byte order, which kft_header.endian tells
 * (KFT_ENDIAN as written): a reader refuses the other order. Text blocks
 * are UTF-8 lines ending in '\n', fields separated by '\t'.
 *
 * Text block formats:
 *   META   "key=value" lines: what was recorded and on which machine (see
 *          src/lib/trace/kft.h for the keys callgraph writes).
 *   LAYOUT "TYPE NAME SIZE" lines, one per record type of rec.h, then
 *          "  FIELD OFFSET SIZE" lines for its fields: a reader checks that
 *          the layout it was built with is the file's.
 *   FUNCS  "ID\tKIND\tNAME\tOBJECT\tBUILD_ID\tFLAGS\tRET" lines: the
 *          function table call records index (ids 0..N-1, each once, any
 *          order). KIND "k" kernel (OBJECT: "vmlinux" or
 *          the module), "u" user (OBJECT: the binary's path); BUILD_ID hex
 *          or "-"; FLAGS "-" or "dropped" (listed but not attached); RET
 *          how its return value reads, KFIT_RET_* (kfit/ret.h) in hex, "0"
 *          the whole register (records of version 1 had no RET field).
 *   ARGS   "FUNC\tSLOT\tLABEL\tKIND\tSTR\tFLAGS[\tENUMS]" lines: how the
 *          arguments call records carry (rec.h's kfit_rec_args) print, a
 *          line per argument slot 0..n-1 of a function: LABEL as the
 *          target wrote it, KIND KFIT_RET_* in hex, STR its string slot +
 *          1 (0: a number), FLAGS "-" or "bool" or "absent" (the function
 *          has no such parameter), ENUMS "-" or "VAL=NAME,..." (written by
 *          kfit_kftmeta_args; a file without it has calls without them).
 *   EVENTS per tracepoint: "event ID CAT:NAME" (ids 0..N-1) then its
 *          tracefs format file's lines as they are, up to the next "event "
 *          line (a format has empty lines of its own: they do not end it;
 *          empty lines at its end are not part of it).
 *   TASKS  "PID\tTID\tPPID\tCOMM" lines: the tasks alive at the start
 *          (COMM is the rest of the line).
 *   SYMS   "file\tPATH\tBUILD_ID" lines (the ELF files sampled addresses
 *          fell in), then "PID\tADDR\tK\tNAME" lines (ADDR hex, K "k" or
 *          "u"; PID 0 for kernel addresses): every sampled address's name.
 *   META and STATS lines without '=' are skipped; the other blocks'
 *   malformed lines make the file refused. A file with chunks must have
 *   a LAYOUT block (the writer adds it when not given).
 *   NAMES  "TS\tPID\tTID\tCOMM" lines, in time order: each name a task
 *          took while recording (a child's at fork, a program's at exec),
 *          so that a reader names the tasks at a window's start without
 *          inflating the chunks before it. Written with STATS.
 *   STATS  "key=value" lines: end_ns, records, per type "records.call=N"...,
 *          "lost=N", "lost.cpuN=N", the BPF side's counters.
 */
#ifndef KFIT_KFT_H
#define KFIT_KFT_H

#include <linux/types.h>

#define KFT_MAGIC		"KFITRACE"	/* 8 bytes, no NUL */
#define KFT_VERSION		1
#define KFT_ENDIAN		0x01020304U
#define KFT_BLOCK_MAGIC		0x4254464bU	/* "KFTB" little-endian */
#define KFT_FOOTER_MAGIC	"KFITEND"	/* 8 bytes with its NUL */

#define KFT_F_FLIGHT		0x1	/* a flight recording: the last SIZE only */

struct kft_header {
	char magic[8];
	__u32 version;
	__u32 endian;
	__u32 header_size;	/* sizeof(struct kft_header) */
	__u32 block_size;	/* sizeof(struct kft_block) */
	__u64 created_ns;	/* CLOCK_REALTIME when the file was begun */
	__u32 rec_version;	/* KFIT_REC_VERSION of the records */
	__u32 flags;		/* KFT_F_* */
	__u64 reserved[3];
};				/* 64 bytes */

enum kft_block_type {
	KFT_B_META = 1,
	KFT_B_LAYOUT,
	KFT_B_FUNCS,
	KFT_B_EVENTS,
	KFT_B_TASKS,
	KFT_B_SYMS,
	KFT_B_CHUNK,
	KFT_B_STATS,
	KFT_B_INDEX,
	KFT_B_NAMES,
	KFT_B_ARGS,
	KFT_B_NTYPES
};

#define KFT_BF_ZLIB		0x1	/* the payload (a chunk's records) is zlib */

struct kft_block {
	__u32 magic;		/* KFT_BLOCK_MAGIC */
	__u16 type;		/* enum kft_block_type; unknown types are skipped */
	__u16 flags;		/* KFT_BF_* */
	__u32 size;		/* payload bytes stored after this header */
	__u32 raw_size;		/* payload bytes once inflated */
	__u32 crc;		/* crc32 (zlib's) of the stored payload */
	__u32 hcrc;		/* crc32 of the 20 bytes before it */
};				/* 24 bytes */

/*
 * A CHUNK's payload: this, stored as it is, then its records (zlib when
 * KFT_BF_ZLIB), back to back as in the ring buffer (rec.h), each one
 * encoded against the record before it in the chunk so that what repeats
 * becomes zeros (cheap for zlib at level 1, and a few bytes per record):
 *   - its first 8 bytes (type, ctx, flags, size, cpu) as they are;
 *   - h.ts (bytes 16-23) as the difference, mod 2^64, from the previous
 *     record's h.ts (the first record's from 0);
 *   - every other 8-byte word XORed with the same word of the previous
 *     record when that one has the same type and size, else as it is.
 * size and raw_size of the block count this struct too.
 */
struct kft_chunk {
	__u64 seq;		/* 0, 1, 2... in recording order (flight: the oldest dropped) */
	__u64 first_ts;		/* the smallest h.ts of its records */
	__u64 last_ts;		/* the largest h.ts + dur (calls) of its records */
	__u64 nrecs;
	__u64 lost;		/* records the kernel could not write, seen while it filled */
};				/* 40 bytes */

/* The INDEX block's payload: one per chunk, in file order */
struct kft_index_ent {
	__u64 offset;		/* of the chunk's struct kft_block */
	__u64 seq;
	__u64 first_ts, last_ts;
	__u64 nrecs;
	__u64 lost;
};				/* 48 bytes */

struct kft_footer {
	char magic[8];		/* KFT_FOOTER_MAGIC */
	__u64 index_off;	/* of the INDEX block's struct kft_block */
	__u64 stats_off;	/* of the STATS block's */
	__u32 nchunks;
	__u32 crc;		/* crc32 of the 28 bytes before it */
};				/* 32 bytes */

#endif
