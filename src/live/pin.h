/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_PIN_H
#define KFIT_PIN_H
/*
 * BPF objects that outlive the process that loaded them (bootsum --early):
 * links and maps pinned in bpffs, and found again later by path or, where
 * the bpffs they were pinned in is no longer reachable (the root was
 * switched and /sys remounted), by map id and name like bpftool.
 */
#include <stdbool.h>
#include <linux/types.h>

struct bpf_link;
struct bpf_map;
struct bpf_prog_info;

#define KFIT_PIN_ROOT	"/sys/fs/bpf/kfit"

/*
 * Mounts what is missing for loading and pinning as the first process:
 * proc on /proc, sysfs on /sys, bpffs on /sys/fs/bpf. Returns 0 or -errno.
 */
int kfit_pin_mount(void);
/* mkdir -p DIR (under a bpffs); 0, or -errno (-EEXIST never) */
int kfit_pin_mkdir(const char *dir);
/* DIR/NAME; 0 or -errno */
int kfit_pin_link(struct bpf_link *l, const char *dir, const char *name);
/* DIR/<map name>; 0 or -errno */
int kfit_pin_map(struct bpf_map *m, const char *dir);
/* fd of the map pinned at DIR/NAME, or -errno */
int kfit_pin_open(const char *dir, const char *name);
/*
 * fd of the map named NAME that CHECK (may be NULL) accepts, the newest
 * (highest id) if several; -ENOENT if none. *id gets its id if id != NULL.
 */
int kfit_pin_find_map(const char *name, bool (*check)(int fd, void *ctx), void *ctx,
		  __u32 *id);
/* fd of map ID, or -errno */
int kfit_pin_map_by_id(__u32 id);
/*
 * Program ID's info, up to N of its map ids into IDS: how many ids (at
 * most N), or -errno
 */
int kfit_pin_prog_maps(__u32 id, struct bpf_prog_info *info, __u32 *ids, __u32 n);
/* Unlinks every pin in DIR, then DIR; 0, or -errno of the first failure */
int kfit_pin_remove(const char *dir);
#endif
