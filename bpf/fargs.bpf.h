/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arguments of traced calls (include/kfit/args.h), shared by the
 * function tools (funcdur, callgraph): the loader's specs per function,
 * read at entry into a slot per stack and frame, and strings that faulted
 * at entry read again at exit. What a tool counts, and when, is its own:
 * these return what happened. Include after vmlinux.h.
 */
#ifndef KFIT_FARGS_BPF_H
#define KFIT_FARGS_BPF_H

#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kfit/args.h"
#include "kfit/ret.h"

/* What each function's calls capture: the loader's, indexed by id */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* the loader's: one per function */
	__type(key, __u32);
	__type(value, struct kfit_fargs);
} fargs SEC(".maps");

/*
 * The arguments of each stack's open calls, at its slot (an array: no
 * hashing on the hot path); max_entries: the loader's, KFIT_ARG_SLOTS
 * with arguments
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kfit_argstack);
} argslots SEC(".maps");

/* The next slot of each CPU's: slots go to stacks in turn */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} slot_seq SEC(".maps");

const volatile __u32 nr_cpus = 1;	/* possible CPUs: slots interleave by CPU */

/*
 * How a program reads parameters: its context's kind. FA_SYS1 to
 * FA_SYS6: a system call's record of at least that many arguments, read
 * with direct loads (FA_SYS1 + n - 1: the first n), by a program the
 * loader attaches only to such calls.
 */
enum fa_how {
	FA_FENTRY,
	FA_REGS,
	FA_TP,		/* any tracepoint's record: one read of its words */
	FA_SYS1,
	FA_SYS6 = FA_SYS1 + KFIT_SYS_ARGS - 1,
};

/*
 * i within mask (a power of 2 minus 1), as the verifier sees it: the
 * barrier keeps the compiler from dropping the mask after a check it
 * made on another copy of i
 */
static __always_inline __u32 bounded(__u32 i, __u32 mask)
{
	asm volatile("" : "+r"(i));
	return i & mask;
}

#define FA_WORDS	8	/* the words a spec's index picks from */
#define FA_TP_WORDS	(KFIT_SYS_ARGS + 1)	/* a system call's record after its header */

/*
 * Words 1 to n of a system call's record (its first n arguments, at
 * bytes 16 on), each a direct load at a constant offset (a helper call
 * would cost more than the rest of the capture), the others 0
 */
static __always_inline void fa_sys_words(const __u64 *rec, __u32 n, __u64 *w)
{
	__u32 i;

	w[0] = 0;
#pragma unroll
	for (i = 1; i < FA_WORDS; i++)
		w[i] = i <= n && i < FA_TP_WORDS ? rec[i + 1] : 0;
}

/*
 * The FA_WORDS words the specs pick from, read once per call, each
 * written once: the parameters (in registers: direct loads of the
 * context), or a tracepoint record's 8-byte words after its common
 * header (a system call's arguments: 1-6); 0 where there is none
 */
static __always_inline void fa_fetch_words(void *ctx, enum fa_how how, __u64 *w)
{
	struct pt_regs *r = ctx;
	__u32 i;

	if (how >= FA_SYS1) {
		fa_sys_words(ctx, how - FA_SYS1 + 1, w);
		return;
	}
	if (how == FA_TP) {
		/*
		 * Not direct loads: perf refuses to attach a program that loads
		 * past the record's end, and this one's may be short
		 */
		if (bpf_probe_read_kernel(w, FA_TP_WORDS * 8, ctx + 8))
			__builtin_memset(w, 0, FA_WORDS * 8);
		w[FA_WORDS - 1] = 0;
		return;
	}
	if (how == FA_FENTRY) {
		for (i = 0; i < FA_WORDS; i++)
			if (i >= KFIT_PARAM_REGS || bpf_get_func_arg(ctx, i, &w[i]))
				w[i] = 0;
		return;
	}
	w[0] = PT_REGS_PARM1(r);
	w[1] = PT_REGS_PARM2(r);
	w[2] = PT_REGS_PARM3(r);
	w[3] = PT_REGS_PARM4(r);
	w[4] = PT_REGS_PARM5(r);
	for (i = KFIT_PARAM_REGS; i < FA_WORDS; i++)
		w[i] = 0;
}

/*
 * The word a spec of index i starts from: fentry's parameter i, read
 * alone (a few instructions each: only those the specs name), else
 * word i of what fa_fetch_words read
 */
static __always_inline __u64 fa_word(void *ctx, enum fa_how how, const __u64 *w, __u32 i)
{
	__u64 v;

	if (how != FA_FENTRY)
		return w[bounded(i, FA_WORDS - 1)];
	return bpf_get_func_arg(ctx, i, &v) ? 0 : v;
}

/* size bytes (1 to 8) at addr, from the memory the spec says first */
static __always_inline int fa_read_mem(__u64 *v, __u32 size, __u64 addr, bool user)
{
	*v = 0;
	size &= 0xf;
	if (size == 0 || size > 8)
		size = 8;
	if (user)
		return bpf_probe_read_user(v, size, (void *)addr) &&
		       bpf_probe_read_kernel(v, size, (void *)addr) ? -1 : 0;
	return bpf_probe_read_kernel(v, size, (void *)addr) &&
	       bpf_probe_read_user(v, size, (void *)addr) ? -1 : 0;
}

/* A string: 0, or -1 when it could not be read (a page not there yet) */
static __always_inline int fa_read_str(char *dst, __u64 addr, bool user)
{
	if (user && bpf_probe_read_user_str(dst, KFIT_ARG_STRLEN, (void *)addr) >= 0)
		return 0;
	if (bpf_probe_read_kernel_str(dst, KFIT_ARG_STRLEN, (void *)addr) >= 0)
		return 0;
	if (!user && bpf_probe_read_user_str(dst, KFIT_ARG_STRLEN, (void *)addr) >= 0)
		return 0;
	dst[0] = '\0';
	return -1;
}

/* String i of the call, into its slot: its ok bit, or its retry bit */
static __always_inline void fa_call_str(struct kfit_argvals *av,
					const struct kfit_arg_spec *a, __u32 i)
{
	__u32 s = bounded(a->str - 1, KFIT_ARG_STRS - 1);

	if (!fa_read_str(av->s[s], av->v[i], a->flags & KFIT_ARGF_USER)) {
		av->ok |= 1 << i;
		av->retry &= ~(1 << i);
		return;
	}
	av->ok &= ~(1 << i);
	av->retry |= 1 << i;
}

/*
 * At exit, the strings that faulted at entry: a user page that was not
 * there then is, once the call has read it (a system call's file name).
 * True when one still could not be read.
 */
static __always_inline bool fa_retry_strs(struct kfit_argvals *av, __u32 id)
{
	const struct kfit_fargs *fa = bpf_map_lookup_elem(&fargs, &id);
	__u32 i;

	if (!fa)
		return false;
	for (i = 0; i < KFIT_ARGS_MAX; i++)
		if ((av->retry & (1 << i)) && fa->a[i].str)
			fa_call_str(av, &fa->a[i], i);
	return av->retry;
}

/* Hop h of the spec's path (the ones before the last read pointers) */
static __always_inline int fa_hop(__u64 *v, const struct kfit_arg_spec *a, __u32 h,
				  bool user)
{
	__u32 n = a->nhops;

	if (h >= n)
		return 0;
	if (h == n - 1 && (a->flags & KFIT_ARGF_INLINE)) {
		*v += a->off[h];
		return 0;
	}
	return fa_read_mem(v, h == n - 1 ? a->kind & KFIT_RET_SIZE : 8, *v + a->off[h], user);
}

_Static_assert(KFIT_ARG_HOPS == 4, "fa_read_arg makes KFIT_ARG_HOPS hops");

/* One value of the spec from its word v: 0 when read, -1 on a fault */
static __always_inline int fa_read_from(__u64 v, const struct kfit_arg_spec *a, __u64 *out)
{
	bool user = a->flags & KFIT_ARGF_USER;

	/* each hop at a constant index: older verifiers lose a loop's bound */
	if (fa_hop(&v, a, 0, user) || fa_hop(&v, a, 1, user) || fa_hop(&v, a, 2, user) ||
	    fa_hop(&v, a, 3, user))
		return -1;
	*out = a->str ? v : kfit_ret_value(v, a->kind);
	return 0;
}

/* One value of the spec, from the words fa_fetch_words read */
static __always_inline int fa_read_arg(const __u64 *w, const struct kfit_arg_spec *a,
				       __u64 *out)
{
	return fa_read_from(w[bounded(a->index, FA_WORDS - 1)], a, out);
}

/* A new stack's slot: each CPU's in turn, interleaved, no lock taken */
static __always_inline __u32 fa_new_slot(void)
{
	__u32 zero = 0, *seq = bpf_map_lookup_elem(&slot_seq, &zero);

	if (!seq)
		return 0;
	return (*seq)++ * nr_cpus + bpf_get_smp_processor_id();
}

/* The arguments' place d of the stack at slot, or NULL (d too deep) */
static __always_inline struct kfit_argvals *fa_frame(__u32 slot, __u32 d)
{
	struct kfit_argstack *as;

	if (d >= KFIT_ARG_DEPTH)
		return NULL;
	slot = bounded(slot, KFIT_ARG_SLOTS - 1);
	as = bpf_map_lookup_elem(&argslots, &slot);
	return as ? &as->f[bounded(d, KFIT_ARG_DEPTH - 1)] : NULL;
}

/* The current call's arguments, as fa (function id's specs) says, into av */
static __always_inline void fa_capture(void *ctx, enum fa_how how,
				       const struct kfit_fargs *fa, struct kfit_argvals *av)
{
	__u64 w[FA_WORDS];
	__u32 i;

	av->ok = 0;
	av->retry = 0;
	if (how != FA_FENTRY)
		fa_fetch_words(ctx, how, w);
	for (i = 0; i < KFIT_ARGS_MAX; i++) {
		const struct kfit_arg_spec *a = &fa->a[i];

		if (!a->src)
			continue;
		if (fa_read_from(fa_word(ctx, how, w, a->index), a, &av->v[i]))
			continue;
		av->ok |= 1 << i;
		if (a->str)
			fa_call_str(av, a, i);
	}
}

/*
 * The arguments of the call whose frame entered at ts, at place d of the
 * stack at slot, strings that faulted at entry read again if retry (not
 * for a call that never returned: its memory may be another program's by
 * now, after exec); NULL when d is too deep or another stack took the
 * slot since. *faulted: a string is still unread.
 */
static __always_inline struct kfit_argvals *fa_at_exit(__u32 slot, __u32 d, __u32 id,
						       __u64 ts, bool retry, bool *faulted)
{
	struct kfit_argvals *av = fa_frame(slot, d);

	*faulted = false;
	if (!av || av->stamp != ts)
		return NULL;
	if (av->retry)
		*faulted = !retry || fa_retry_strs(av, id);
	return av;
}

#endif
