/* SPDX-License-Identifier: GPL-2.0 */
/* The calltime engine's types: bpf/calltime.bpf.c and its readers */
#ifndef KFIT_CALLTIME_H
#define KFIT_CALLTIME_H

#include "kfit/fcall.h"
#include "kfit/hist.h"
#include "kfit/args.h"
#include "kfit/filter.h"

#define CT_MAX_FUNCS	8192	/* a power of 2: ids are masked with it */
#define CT_BY_MAX	256	/* --by ret: values kept per half, all functions */

/* Per function, per CPU, per half of the double buffer */
struct ct_stat {
	__u64 local_ns;		/* total minus traced callees, summed */
	__u64 filtered;		/* calls left out by --min/--max */
	struct kfit_hist h;
};

/* Time a traced function spent in one traced callee */
struct ct_edge {
	__u32 half;
	__u32 parent;
	__u32 child;
};

struct ct_event {
	__u64 ts;
	__u64 dur;
	__s64 ret;
	__u32 pid;
	__u32 tid;
	__u32 cpu;
	__u32 id;
	__u32 ctx;		/* enum kfit_ctx */
	char comm[16];
};

/* An event with the call's arguments (when some function captures them) */
struct ct_event_args {
	struct ct_event e;
	struct kfit_argvals a;
};

/* The filter programs (the filters map): --filter, --errors EXPR */
enum ct_which_filter { CT_FILTER, CT_ERRORS, CT_NFILTERS };

struct ct_filter {
	__u32 n;		/* instructions, 0: none */
	__u32 has_comm;
	char comm[16];
	struct kfit_finsn insn[KFIT_FILTER_MAX];
};

/* --by: a function's calls with one value (return or argument), per half */
struct ct_by_key {
	__u32 half;
	__u32 id;
	__s64 val;
};

/*
 * --by log2(ARG): a value's power-of-2 bucket, signed: 0 for 0; k for
 * 2^(k-1) .. 2^k - 1 (an unsigned value, 1 to 64); -k for the negative
 * values -(2^k - 1) .. -2^(k-1)
 */
static inline __s64 ct_log2_bucket(__s64 v, int is_signed)
{
	__u64 u = v;

	if (!v)
		return 0;
	if (!is_signed || v > 0)
		return kfit_msb64(u) + 1;
	return -(__s64)(kfit_msb64(-u) + 1);
}

/* by_what[id]: what --by groups a function's calls by */
enum ct_by {
	CT_BY_NONE,
	CT_BY_RET,
	CT_BY_ARG0,		/* CT_BY_ARG0 + i: argument slot i */
	CT_BY_STR0 = CT_BY_ARG0 + KFIT_ARGS_MAX,	/* CT_BY_STR0 + i: argument slot
							   i, a string: by its hash */
	CT_BY_COMM = CT_BY_STR0 + KFIT_ARGS_MAX,	/* the task's comm: by its hash */
};

/*
 * --by a string: its calls are grouped by the string's 64-bit FNV-1a hash
 * (ct_by_key.val), and the first string seen of each row is kept in the
 * by_strs map, under the row's key, for the report to show. Two strings
 * of one hash would share a row, under the first one's text.
 */
struct ct_by_str {
	char s[KFIT_ARG_STRLEN];
};

#define CT_FNV_BASIS	0xcbf29ce484222325ULL
#define CT_FNV_PRIME	0x100000001b3ULL

/* FNV-1a of s up to its NUL, at most KFIT_ARG_STRLEN bytes (a bounded loop) */
static inline __u64 ct_str_hash(const char *s)
{
	__u64 h = CT_FNV_BASIS;
	__u32 i;

	for (i = 0; i < KFIT_ARG_STRLEN; i++) {
		if (!s[i])
			break;
		h ^= (unsigned char)s[i];
		h *= CT_FNV_PRIME;
	}
	return h;
}

/* Counters of what could not be measured, per CPU */
enum ct_counter {
	CT_LOST_EVENTS,		/* ring buffer full */
	CT_DEEP,		/* nesting beyond FC_MAX_DEPTH */
	CT_UNMATCHED,		/* exits without a traced entry */
	CT_NO_STACK,		/* stack map full */
	CT_BY_FULL,		/* --by ret: calls of values past CT_BY_MAX, not grouped */
	CT_NOT_FAILED,		/* --errors: calls that did not fail, left out */
	CT_NO_ARGS,		/* calls whose arguments were not kept: nested past
				   KFIT_ARG_DEPTH, or their slot taken by another stack */
	CT_NO_VALUE,		/* --by ARG: calls whose ARG could not be read */
	CT_STR_FAULT,		/* calls with a string that could not be read, entry or exit */
	CT_FILTERED,		/* --filter: calls it rejected */
	CT_FILTER_NOVAL,	/* --filter, --errors EXPR: calls without an argument it reads */
	CT_NCOUNTERS
};

/* Stats key: the map holds two entries per traced function */
static inline __u32 ct_key(__u32 half, __u32 id)
{
	return id * 2 + half;
}

#endif
