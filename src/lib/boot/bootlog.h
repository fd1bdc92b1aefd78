/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_BOOTLOG_H
#define KFIT_BOOTLOG_H
/*
 * The kernel phase of a boot, from what the kernel recorded itself:
 * dmesg with initcall_debug ("calling  fn+0x0/0x40 @ 1", "initcall fn+0x0/0x40
 * returned 0 after 12 usecs", printk timestamps) in any of the forms users
 * save it in (dmesg, /dev/kmsg records, journalctl -k -o short-monotonic),
 * or the tracefs buffer of a boot with
 * trace_event=initcall:*,module:module_load (initcall_level, initcall_start,
 * initcall_finish, module_load lines of /sys/kernel/tracing/trace).
 * No libbpf here: kd-style offline use on another machine.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

enum kfit_bootlog_src {
	KFIT_BOOTLOG_NONE = 0,
	KFIT_BOOTLOG_DMESG,	/* printk lines, with or without initcall_debug */
	KFIT_BOOTLOG_TRACE,	/* tracefs text with initcall events */
};

struct kfit_bootlog_initcall {
	char fn[64];		/* "con_init"; "0xffffffffc03a4000" without a symbol */
	char module[56];	/* "[dummy]" in dmesg, or the preceding module_load in a trace; "" built in */
	char level[16];		/* "early", "console", "core_sync", "device", ..., "module"; "" unknown */
	__u64 addr;		/* where only an address was printed, else 0 */
	__u64 start_ns;		/* kernel clock (printk/trace "local" clock) */
	__u64 end_ns;		/* 0 if it never finished in the record */
	__u64 dur_ns;		/* "after N usecs" where printed, else end - start */
	int ret;
	int pid;		/* "@ N" / the trace line's pid; 0 before the first task */
	bool finished;
};

struct kfit_bootlog_initlevel {
	char name[16];
	__u64 start_ns, end_ns;	/* first start to last end */
	__u64 sum_ns;		/* initcalls' durations summed */
	unsigned int n;
};

struct kfit_bootlog {
	enum kfit_bootlog_src src;
	struct kfit_bootlog_initcall *calls;	/* in start order */
	size_t ncalls;
	struct kfit_bootlog_initlevel *levels;	/* in boot order */
	size_t nlevels;
	char uname[160];	/* "Linux version ..." line, when present */
	char cmdline[512];	/* "Command line: ..." line, when present */
	char init_path[64];	/* "Run /init as init process" */
	__u64 init_ns;		/* when the first user process was started; 0 unknown */
	__u64 first_ns, last_ns;	/* the record's first and last timestamps */
	/* `bootsum --early` writes a marker to /dev/kmsg: "bootsum: boot clock N ns" */
	bool has_marker;
	__u64 marker_ns;	/* its printk timestamp */
	__u64 marker_boot_ns;	/* N */
	/* what is missing, for the reader to be told */
	bool complete;		/* from the first level to the last, nothing lost */
	char why[256];		/* why not complete, or which part is */
	unsigned long garbled;	/* lines that looked like ours but did not parse */
	unsigned long unmatched;	/* finish without start, or start without finish */
	__u64 entries_written, entries_in_buffer;	/* trace header, 0 if none */
	bool log_start_lost;	/* dmesg without its "Linux version" beginning */
	/* Additions (bootlog branch) */
	unsigned long not_initcalls;	/* initcall_debug "calling" lines that are no
					 * initcall: PCI fixups ("pci 0000:00:1f.0:
					 * calling  quirk_ich7_lpc+0x0/0x70 @ 1"),
					 * async entries ("calling  12_fn @ 45") */
	unsigned long nevents;	/* trace: event lines read */
	__u64 lost_events;	/* trace: "CPU:N [LOST M EVENTS]" summed */
	__u64 lost_msgs;	/* /dev/kmsg records missing by sequence number */
	char first_level[16];	/* trace: the first initcall_level line's level */
	unsigned int boots;	/* "Linux version" lines: more than 1, the last boot is kept */
	/* trace: the first initcall event's function, and whether it was a finish */
	char first_event_fn[64];
	bool first_event_finish;
	/*
	 * dmesg: when the kernel said "Unstable clock detected, switching
	 * default tracing clock to "global"" (late_trace_init): switching
	 * empties the trace buffer, so a trace of that boot starts there. 0: not said.
	 */
	__u64 trace_clock_switch_ns;
};

void kfit_bootlog_init(struct kfit_bootlog *bl);
void kfit_bootlog_free(struct kfit_bootlog *bl);
/*
 * Parses TEXT (LEN bytes, need not end in NUL), detecting the form.
 * Returns 0, or -EINVAL when it is neither dmesg nor trace text (err says
 * why, e.g. "line 1: not dmesg or tracefs text"), -ENOMEM. Lines that are neither
 * initcall nor marker lines are skipped; garbled ones counted.
 * What bl held before is freed first. Module initcalls: module is the
 * module's name without brackets ("dummy"), level "module".
 */
int kfit_bootlog_parse(struct kfit_bootlog *bl, const char *text, size_t len,
		       char *err, size_t errlen);
/*
 * Names the levels of built-in initcalls from kallsyms' __initcall symbols
 * ("__initcall__kmod_core__391_2229_init_hw_perf_eventsearly": level
 * "early" of init_hw_perf_events; older "__initcall_fn6"), where the
 * record did not (dmesg has no level lines). Returns how many were named.
 * A trace's levels are coarse ("fs" holds fs, fs_sync and rootfs): where
 * kallsyms says a finer one of the same level, that one is taken (counted).
 * Then levels[], complete and why are made again (kfit_bootlog_sum_levels).
 */
size_t kfit_bootlog_levels_from_kallsyms(struct kfit_bootlog *bl, const char *text, size_t len);
/* Recomputes levels[] from calls[] (after levels were named), and complete/why */
void kfit_bootlog_sum_levels(struct kfit_bootlog *bl);
/*
 * Of two records of the same boot (either may be NULL or empty), the one
 * to report: the complete one; both complete: the trace. *note says why,
 * e.g. "the trace buffer starts at level late_sync (14 events): the
 * earlier initcalls ran before it; dmesg (initcall_debug) has all 676".
 */
const struct kfit_bootlog *kfit_bootlog_pick(const struct kfit_bootlog *dmesg,
					     const struct kfit_bootlog *trace,
					     char *note, size_t notelen);
/*
 * What only one record of a boot has, given to the other of the same
 * boot: a trace has no "Run /init" line, uname or command line; dmesg
 * has them; a trace prints a module's init function as an address, dmesg
 * by name. Fills only what DST lacks.
 */
void kfit_bootlog_fill(struct kfit_bootlog *dst, const struct kfit_bootlog *src);
/*
 * Names the initcalls printed as address ADDR with FN (bootsum --early saw
 * the module's init symbol before the module freed it). Returns how many.
 */
size_t kfit_bootlog_name_addr(struct kfit_bootlog *bl, __u64 addr, const char *fn);
/* "dmesg", "trace" */
const char *kfit_bootlog_src_name(enum kfit_bootlog_src s);
#endif
