/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bootsum's reports share (bootrep.c): the text, JSON and SVG
 * renderers (bootrep_text.c, bootrep_json.c, bootrep_svg.c) use these.
 */
#ifndef KFIT_BOOTREP_INT_H
#define KFIT_BOOTREP_INT_H

#include <stdbool.h>
#include <stdio.h>
#include "bootrep.h"
#include "duration.h"
#include "output.h"

extern const struct kfit_bootrep_opts bootrep_default_opts;

/* The waits of each process, by end: order[first[i] .. first[i + 1]) */
struct bootrep_waitidx {
	__u32 *order;
	__u32 *first;
};

unsigned int bootrep_top(const struct kfit_bootrep_opts *o);
__u64 bootrep_kt(const struct kfit_bootrep_user *u, __u64 boot_ns);
bool bootrep_proc_alive(const struct bs_proc *p);
__u64 bootrep_proc_end(const struct kfit_bootrep_user *u, const struct bs_proc *p);
char *bootrep_fix3(char *buf, size_t len, __u64 v, __u64 unit);
unsigned long long bootrep_kib(__u64 bytes);
char *bootrep_ret_str(char *buf, size_t len, int ret);
char *bootrep_exit_str(char *buf, size_t len, const struct bs_proc *p);
char *bootrep_call_name(char *buf, size_t len, const struct kfit_bootlog_initcall *c);
const char *bootrep_src_desc(const struct kfit_bootlog *k);
int bootrep_waitidx_build(struct bootrep_waitidx *wi, const struct kfit_bootrep_user *u);
void bootrep_waitidx_free(struct bootrep_waitidx *wi);
void bootrep_lost_text(FILE *f, const struct kfit_bootlog *k,
		      const struct kfit_bootrep_user *u);
void bootrep_kernel_version(char *buf, size_t len, const struct kfit_bootlog *k);

__u32 *bootrep_slow_calls(const struct kfit_bootlog *k, __u64 min_ns, size_t *n);
__u64 bootrep_user_last(const struct kfit_bootrep_user *u);
__u64 bootrep_proc_dur(const struct kfit_bootrep_user *u, const struct bs_proc *p);

#endif
