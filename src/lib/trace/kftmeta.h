/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_KFTMETA_H
#define KFIT_KFTMETA_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "syms.h"
#include "tpglob.h"
#include "argfmt.h"

/*
 * The text blocks of a trace file (include/kfit/kft.h) that describe the
 * machine and what was recorded, written into a stream (open_memstream)
 * for kft_writer_block. Core code: facts from /proc, sysfs and tracefs
 * files, no BPF. Each returns 0 or -errno.
 */

/* "key=value\n", value's line breaks and tabs made spaces */
void kfit_kftmeta_kv(FILE *f, const char *key, const char *val);
void kfit_kftmeta_u64(FILE *f, const char *key, __u64 val);

/*
 * META's machine keys (src/lib/trace/kft.h): kfit_version, cmdline (argv, the
 * words with blanks or quotes quoted as a shell takes them), created,
 * uname.*, kernel.build_id (from /sys/kernel/notes, when it has one),
 * ncpus, page_size, clock and its offsets to CLOCK_REALTIME and
 * CLOCK_BOOTTIME (start_ns is the tool's: when its recording began).
 */
int kfit_kftmeta_machine(FILE *f, int argc, char *const argv[]);
/* The command line as META's cmdline has it, the words a shell would split quoted */
void kfit_kftmeta_cmdline(FILE *f, int argc, char *const argv[]);
/* CLOCK_REALTIME - CLOCK_MONOTONIC now, as META's clock.realtime_offset_ns */
__u64 kfit_kftmeta_realtime_offset(void);

/*
 * The tasks in proc (NULL: /proc), those of process pid only when pid is
 * not 0: fn(pid, tid, ppid, comm, ctx) for each (its nonzero return stops
 * the walk and is returned). Tasks that end meanwhile are left out.
 */
typedef int (*kfit_kftmeta_task_fn)(__u32 pid, __u32 tid, __u32 ppid, const char *comm,
			    void *ctx);
int kfit_kftmeta_proc_tasks(const char *proc, int pid, kfit_kftmeta_task_fn fn, void *ctx);

/* A TASKS line: "PID\tTID\tPPID\tCOMM" */
void kfit_kftmeta_task(FILE *f, __u32 pid, __u32 tid, __u32 ppid, const char *comm);

/* A NAMES line: "TS\tPID\tTID\tCOMM" */
void kfit_kftmeta_name(FILE *f, __u64 ts, __u32 pid, __u32 tid, const char *comm);

/*
 * ARGS lines of function id's n arguments (how its calls' records carry
 * them): "FUNC\tSLOT\tLABEL\tKIND\tSTR\tFLAGS\tENUMS", KIND the
 * KFIT_RET_* in hex, STR the string slot + 1 (0: a number), FLAGS "-" or
 * words ("bool", "absent": the function has no such parameter), ENUMS
 * "-" or "VAL=NAME,..."
 */
void kfit_kftmeta_args(FILE *f, __u32 id, const struct kfit_argfmt *a, int n);

/*
 * EVENTS: per tracepoint, "event ID CAT:NAME", its format file from
 * tracefs (NULL: the mounted one) as it is, an empty line.
 */
int kfit_kftmeta_events(FILE *f, const struct kfit_tpglob *tps, const char *tracefs);

/*
 * The addresses of sampled stacks, named while their processes live:
 * each distinct (pid, address) once, through kfit_syms_name; written as
 * a SYMS block. One thread.
 */
struct kfit_kftmeta_symset;

struct kfit_kftmeta_symset *kfit_kftmeta_symset_new(struct kfit_syms *syms);
void kfit_kftmeta_symset_free(struct kfit_kftmeta_symset *s);
/* Name addr of pid (kernel: pid is not kept) if not done yet: 0 or -ENOMEM */
int kfit_kftmeta_symset_add(struct kfit_kftmeta_symset *s, __u32 pid, __u64 addr, bool kernel);
__u64 kfit_kftmeta_symset_count(const struct kfit_kftmeta_symset *s);
/* Those not in a text yet */
__u64 kfit_kftmeta_symset_unwritten(const struct kfit_kftmeta_symset *s);
/*
 * A SYMS block's text of what no earlier text held: "file\tPATH\tBUILD_ID"
 * of the ELF files read since, then "PID\tADDR\tK\tNAME". A recording
 * writes one as names come (kd reads every SYMS block), so that a file
 * cut short keeps the names of what it holds.
 */
int kfit_kftmeta_symset_text(struct kfit_kftmeta_symset *s, FILE *f);

#endif
