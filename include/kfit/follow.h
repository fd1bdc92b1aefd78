/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_FOLLOW_H
#define KFIT_FOLLOW_H

/* What follow.bpf.h says on follow_rb about a followed process */
enum {
	KFIT_FOLLOW_FORK = 1,	/* tgid is new */
	KFIT_FOLLOW_EXIT = 2,	/* tgid's last thread exited */
};

struct kfit_follow_ev {
	__u64 ns;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u32 tgid;
	__u32 what;
};

#endif
