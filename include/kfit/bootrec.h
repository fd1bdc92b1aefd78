/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bootsum's recorded state, shared by bpf/bootrec.bpf.c and user space.
 * `bootsum --early` loads the programs before the first process, pins
 * them and execs the real init; a later `bootsum` reads these maps (by
 * pinned path, else by map id found through bs_meta) and reports.
 * Every array is bounded; what did not fit is counted in bs_meta.
 * Times are CLOCK_BOOTTIME nanoseconds (bpf_ktime_get_boot_ns).
 */
#ifndef KFIT_BOOTREC_H
#define KFIT_BOOTREC_H

#include <linux/types.h>

#define BS_MAGIC	0x746f6f627469666bULL	/* "kfitboot" */
#define BS_VERSION	1
#define BS_COMM		16
#define BS_ARGS		128	/* command line, NUL-separated, cut */
#define BS_MODNAME	56	/* MODULE_NAME_LEN on 64-bit */
#define BS_SYM		64
#define BS_NONE		0xffffffffu	/* no index */

/* Default bounds (--max-procs, --max-waits; modules are few) */
#define BS_MAX_PROCS	4096
#define BS_MAX_WAITS	32768
#define BS_MAX_MODS	512

/* bs_proc.flags */
#define BS_P_EXEC	0x1	/* exec'd at least once */
#define BS_P_EXITED	0x2
#define BS_P_PREEXIST	0x4	/* existed when recording began (pid 1) */
#define BS_P_ARGS_CUT	0x8	/* command line longer than BS_ARGS */

/* One process (thread group), in the order they were first seen */
struct bs_proc {
	__u32 pid;		/* tgid */
	__u32 ppid;		/* parent's tgid at fork */
	__u32 parent_idx;	/* parent's bs_proc index, BS_NONE if unknown */
	__u32 flags;
	__u64 fork_ns;		/* BS_P_PREEXIST: when recording began */
	__u64 exec_ns;		/* last exec; 0 if none */
	__u64 exit_ns;		/* 0 while alive */
	__s32 exit_code;	/* task->exit_code: status << 8 | signal */
	__u32 nexec;
	__u32 nthreads;		/* threads created, the first included */
	__u32 args_len;		/* bytes used in args */
	__u64 oncpu_ns;		/* summed over its threads */
	__u64 runnable_ns;	/* runnable, waiting for a CPU */
	__u64 blocked_ns;	/* sleeping: I/O, waits, timers */
	__u64 io_ns;		/* its block requests, issue to completion, summed */
	__u64 rd_bytes, wr_bytes;
	__u32 rd_ios, wr_ios;
	char comm[BS_COMM];	/* after the last exec */
	char args[BS_ARGS];	/* argv of the last exec, NUL-separated */
};

/* Who ended a blocked interval (bs_wait.waker_kind) */
enum bs_waker {
	BS_W_PROC = 0,		/* a user process: waker_idx */
	BS_W_KTHREAD = 1,	/* a kernel thread: waker_comm */
	BS_W_IRQ = 2,		/* interrupt context: timer, I/O completion */
	BS_W_NEW = 3,		/* not a wait: first run of a new thread */
};

/* A blocked interval of a thread of a recorded process, >= wait_min_ns */
struct bs_wait {
	__u32 idx;		/* the waiting process's bs_proc index */
	__u32 tid;
	__u32 waker_idx;	/* BS_W_PROC: waker's bs_proc index */
	__u32 waker_tid;
	__u64 start_ns, end_ns;	/* blocked from, woken at */
	__u32 waker_kind;
	__u32 pad;
	char waker_comm[BS_COMM];
};

/* A module load; its init function ran in the loader's context */
struct bs_mod {
	char name[BS_MODNAME];
	char init_sym[BS_SYM];	/* "%ps" of mod->init while it still has symbols */
	__u64 init_addr;
	__u64 load_ns;		/* module_load */
	__u64 init_start_ns, init_end_ns;	/* initcall_start/finish; 0 if not seen */
	__s32 ret;		/* the init function's return */
	__u32 pid;		/* loader's tgid */
	__u32 loader_idx;	/* its bs_proc index, BS_NONE if not recorded */
	__u32 pad;
};

/* bs_meta map, one element: configuration, counters, discovery */
struct bs_meta {
	__u64 magic;		/* BS_MAGIC, written by user space after attach */
	__u32 version;		/* BS_VERSION */
	__u32 stopped;		/* set by `bootsum --stop` when it cannot unpin: programs return */
	__u64 early_ns;		/* boot clock when recording began */
	__u64 exec_ns;		/* boot clock just before the real init was exec'd */
	__u32 max_procs, max_waits, max_mods;
	__u32 early_pid;	/* bootsum --early's pid (1 as the first process) */
	/* map ids, so that a later bootsum finds the rest from bs_meta alone */
	__u32 procs_id, waits_id, mods_id, funcs_id;
	/* bumped by the programs (atomic adds) */
	__u32 nprocs, nwaits, nmods;	/* next free index; >= max: full */
	__u32 pad;
	__u64 drop_procs;	/* processes not recorded: bs_procs full */
	__u64 drop_waits;
	__u64 drop_mods;
	__u64 drop_io;		/* block requests not followed: in-flight map full */
	__u64 drop_tasks;	/* threads without task storage (ENOMEM) */
	__u64 unknown_tgid;	/* events of processes started before recording */
	char init_path[BS_ARGS];	/* the real init, as exec'd */
	__u64 io_unattributed;	/* block requests issued by no recorded process (kernel threads) */
	/*
	 * 1: preempt_count was not readable (a kernel without KALLSYMS_ALL):
	 * a wake from an interrupt is BS_W_IRQ only when it struck idle,
	 * else it is taken for the task it struck
	 */
	__u32 irq_guessed;
	__u32 pad2;
};

/*
 * bootsum --funcs GLOB: funcdur's programs (bpf/calltime.bpf.c), loaded by
 * bootsum --early, their maps read later as funcdur reads them. Map
 * bs_funcs (ARRAY of BS_FENT-byte values, bs_meta.funcs_id) says where the
 * rest is: entry 0 a bs_funcs_head, entries 1..nfuncs the functions in
 * cookie order. Written by user space only; also when nothing could be
 * recorded (err, why), so that a later report says why.
 */
#define BS_FMAGIC	0x736e7566746f6f62ULL	/* "bootfuns" */
#define BS_FENT		256
#define BS_F_DROPPED	0x1	/* refused at attach: not traced */
#define BS_F_CUT	0x2	/* name longer than bs_func.name */

struct bs_funcs_head {
	__u64 magic;		/* BS_FMAGIC, written last */
	__u32 nfuncs;		/* entries 1..nfuncs */
	__s32 err;		/* 0: recording; else -errno, why says why not */
	__u32 stats_id, edges_id, counters_id, bss_id;	/* funcdur's maps */
	__u32 attached, skipped;	/* functions traced, refused or left out */
	__u64 min_ns;		/* --min, in the programs' rodata */
	char mech[16];		/* fentry, kprobe_multi, kprobe, tracepoint */
	char glob[32];		/* --funcs as given, cut */
	char why[160];
};

struct bs_func {
	char name[BS_FENT - 8];	/* cut if longer (flags BS_F_CUT) */
	__u32 flags;		/* BS_F_* */
	__u32 pad;
};
#endif
