/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mass attacher's insides, shared by its parts: attach.c (prepare,
 * the kernel functions through kprobes, user functions, system calls,
 * the attach itself, pinning), attach_fentry.c and attach_end.c (reports
 * and detaching).
 */
#ifndef KFIT_ATTACH_INT_H
#define KFIT_ATTACH_INT_H

#include <stdbool.h>
#include <bpf/btf.h>
#include "attach.h"

/*
 * fentry programs are bound to one function at load time. The skeleton's
 * copy is loaded for the function the fentry probe (tracecheck) attaches
 * to, so that it loads wherever fentry works, and is never attached:
 * each traced function gets a copy of its relocated instructions.
 */
#define FENTRY_TEMPLATE "vfs_read"
#define ENOTSUPP_KERNEL 524
#define SHOW_SKIPPED 5
#define DETACH_THREADS 16

struct modbtf {
	__u32 id;
	int fd;
	struct btf *btf;
};

/*
 * A copy of a program with subprograms passed as callbacks (bpf_loop)
 * loads only with BTF func_info: the template's, read once.
 */
struct finfo {
	bool read;
	int btf_fd;			/* -1: none needed (or none found) */
	struct bpf_func_info *rec;
	__u32 n;
};

struct kfit_attacher {
	struct kfit_targets *t;
	struct kfit_attach_opts o;
	struct kfit_attach_progs p;
	enum kfit_amech mech;		/* FENTRY, KPROBE_SINGLE or KPROBE_MULTI */
	bool many;			/* auto took kprobe_multi: fentry would attach too slowly */
	int attached;
	struct bpf_link **links;
	int nlinks;
	int *fds;			/* fentry copies and their links */
	int nfds;
	struct modbtf *mods;		/* module BTF, read when first needed */
	int nmods;
	bool mods_read;
	int fds_before, fds_after;
	__u64 attach_ns;
	__u64 started, last_progress;
	int done, total;
	int first_err;
	bool pinned;			/* kfit_attacher_pin: links let go */
	struct finfo finfo[2];		/* of the fentry and fexit templates */
	bool umulti;			/* user functions through uprobe_multi */
	int *ulinks;			/* uprobe_multi links */
	int nulinks;
	struct kfit_ufollow *uf;	/* o.follow: the new processes' uprobes */
	bool shown;			/* a progress line is on the terminal */
	volatile int undone;		/* detach: links and fds closed */
};

void attach_undo(struct kfit_attacher *a, int nfds, int nlinks);
bool attach_progress_due(struct kfit_attacher *a, bool last);
int attach_fentry(struct kfit_attacher *a, int i);

#endif
