/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_CALLTIME_LIVE_H
#define KFIT_CALLTIME_LIVE_H

#include <stdbool.h>
#include "kfit/calltime.h"
#include "attach.h"
#include "fstats.h"
#include "maps.h"

/*
 * The calltime engine (bpf/calltime.bpf.c) from user space, for every loader
 * of it (funcdur, bootsum --funcs): its programs for the attacher, and its
 * maps read into a kfit_fstats. The maps go by file descriptor, so that
 * maps found again by id (a recording that outlived its loader) read the
 * same way as a skeleton's.
 */
struct calltime_bpf;

/* The skeleton's programs, for kfit_attacher_prepare() */
struct kfit_attach_progs kfit_calltime_progs(const struct calltime_bpf *s);

struct kfit_calltime {
	int stats, linhists, edges, counters;	/* map fds; linhists -1: none */
	int by;					/* --by ret's, -1: none */
	int by_strs;				/* --by a string's strings, -1: none */
	struct kfit_percpu pstats, plins, pcounts;	/* values read */
	struct kfit_entries pedges, pby;
};

/*
 * --by: the calls of function id whose value (return, argument) was val;
 * a string's (val its hash), the first seen of it in str
 */
struct kfit_calltime_by {
	__u32 id;
	__s64 val;
	struct kfit_hist h;
	__u64 local_ns;
	bool has_str;
	char str[KFIT_ARG_STRLEN + 1];
};

/* fds of the maps of s (the caller's: not closed here), buffers; 0 or -errno */
int kfit_calltime_init(struct kfit_calltime *m, const struct calltime_bpf *s);
/* The same from fds the caller opened (by id or pin); 0 or -errno */
int kfit_calltime_init_fds(struct kfit_calltime *m, int stats, int linhists, int edges,
			 int counters);
void kfit_calltime_free(struct kfit_calltime *m);

enum {
	KFIT_CALLTIME_CLEAR = 1 << 0,	/* zero what was read: the next report starts afresh */
};

/*
 * Half half's figures (ct_key) of every function of fs, max-sub included,
 * into fs: reset first, f->hidden left as the caller set it. Linear
 * histograms where fs->lin_step. With KFIT_CALLTIME_CLEAR the maps are emptied
 * as read: only for a half that nothing writes (kfit_epoch_flip). 0 or -errno.
 */
int kfit_calltime_read(struct kfit_calltime *m, int half, struct kfit_fstats *fs,
		     unsigned int flags);
/*
 * --by: the values of a half, each function's, into *rows (*n of them,
 * the buffer reused; free() it), a string's text with it; with
 * KFIT_CALLTIME_CLEAR deleted. 0 or -errno.
 */
int kfit_calltime_read_by(struct kfit_calltime *m, int half, struct kfit_calltime_by **rows,
			  int *n, unsigned int flags);
/* The counters (enum ct_counter) summed over CPUs; 0 where unreadable */
void kfit_calltime_counters(struct kfit_calltime *m, __u64 out[CT_NCOUNTERS]);

#endif
