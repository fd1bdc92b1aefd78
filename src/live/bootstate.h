/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_BOOTSTATE_H
#define KFIT_BOOTSTATE_H
/*
 * bootsum's recorded state in the kernel (bpf/bootrec.bpf.c): started by
 * `bootsum --early` before the real init, found again by a later bootsum
 * (pinned, else by map id through bs_meta), read into plain arrays for
 * the report (src/lib/boot/bootrep.h), and stopped. And the kernel's own
 * record of the boot as text for src/lib/boot/bootlog.c: tracefs, dmesg,
 * kallsyms.
 */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "kfit/bootrec.h"
#include "bootrep.h"
#include "pin.h"

#define KFIT_BOOTSTATE_DIR	KFIT_PIN_ROOT "/bootsum"

/*
 * --early pins in a stage, a directory of its own under KFIT_PIN_ROOT
 * (DIR is len bytes), and renames it to KFIT_BOOTSTATE_DIR once whole: a kill
 * meanwhile leaves pins only there, where kfit_bootstate_leftovers finds them.
 * 0 or -errno. kfit_bootstate_unstage removes a stage and what is pinned in it.
 */
int kfit_bootstate_stage(char *dir, size_t len);
void kfit_bootstate_unstage(const char *dir);
/*
 * Removes the stages of bootsums no longer running, and a KFIT_BOOTSTATE_DIR
 * without a whole bs_meta (each said with kfit_info): how many, or -errno
 */
int kfit_bootstate_leftovers(void);

struct kfit_bootstate_early_opts {
	__u32 max_procs, max_waits;	/* 0: the defaults */
	__u64 wait_min_ns;		/* 0: the default, 1 ms */
	const char *init_path;		/* what will be exec'd, for bs_meta */
	__u32 funcs_id;			/* bs_meta.funcs_id: bootfuncs.h's table, 0: none */
	const char *stage;		/* kfit_bootstate_stage's directory */
	/* set by a signal handler: stop loading, undo everything (NULL: none) */
	volatile sig_atomic_t *cancel;
};

/*
 * Loads and attaches bootsum's programs, records this process as the
 * first (BS_P_PREEXIST), pins links and maps in KFIT_BOOTSTATE_DIR, fills
 * bs_meta (magic last) and writes the marker "bootsum: boot clock N ns"
 * to /dev/kmsg. Returns 0, or -errno with nothing left attached nor pinned
 * but the stage (kfit_bootstate_unstage) and err saying why (-ECANCELED: *cancel was set).
 */
int kfit_bootstate_early(const struct kfit_bootstate_early_opts *o, char *err, size_t errlen);
/* bs_meta.exec_ns = now: called just before exec'ing the real init */
void kfit_bootstate_exec_mark(void);

/* A recorded state found in the kernel */
struct kfit_bootstate {
	int meta_fd, procs_fd, waits_fd, mods_fd;
	__u32 meta_id;
	bool pinned;		/* in KFIT_BOOTSTATE_DIR, else found by map id */
	struct bs_meta meta;	/* as read by kfit_bootstate_find */
	char found[64];		/* "pinned at DIR", "by map id N" */
};

/* Fills st; 0, -ENOENT (nothing recorded), or -errno (EPERM: not root) */
int kfit_bootstate_find(struct kfit_bootstate *st);
void kfit_bootstate_close(struct kfit_bootstate *st);

/* Reads the recorded arrays into u (freed by kfit_bootstate_free_user); 0 or -errno */
int kfit_bootstate_read(struct kfit_bootstate *st, struct kfit_bootrep_user *u);
void kfit_bootstate_free_user(struct kfit_bootrep_user *u);

/* What kfit_bootstate_stop did */
struct kfit_bootstate_stopped {
	bool unpinned;		/* pins removed: everything freed */
	bool freed;		/* and the kernel has freed bs_meta already */
	bool flagged;		/* bs_meta.stopped set: the programs return at once */
	int links, detached;	/* bootsum's links found by id, and detached */
	int detach_err;		/* -errno of the first detach that failed, 0 */
	__u64 map_bytes;	/* what the maps hold, where they stay until reboot */
};

/*
 * Pins reachable: removes them, closes st and waits (up to 3 s) until the
 * kernel has freed the maps. Found by id only: sets bs_meta.stopped and tries to detach
 * the links by id. 0 or -errno.
 */
int kfit_bootstate_stop(struct kfit_bootstate *st, struct kfit_bootstate_stopped *out);

/*
 * The kernel's record of this boot, NUL-terminated text for
 * kfit_bootlog_parse (NULL with errno when unreadable; the caller frees):
 * tracefs `trace` (mounted when missing), the printk buffer (klogctl,
 * else /dev/kmsg records) as `dmesg` prints it, and /proc/kallsyms.
 */
char *kfit_bootstate_trace_text(size_t *len);
char *kfit_bootstate_dmesg_text(size_t *len);
char *kfit_bootstate_kallsyms_text(size_t *len);

/* Writes "bootsum: MSG" to /dev/kmsg (the first process's only log); 0 or -errno */
int kfit_bootstate_kmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#endif
