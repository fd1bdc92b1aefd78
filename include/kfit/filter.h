/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --filter and --errors EXPR: an expression over a call's arguments, its
 * return value, pid, tid, cpu and comm, compiled by the loader
 * (src/lib/targets/filter.c) into a small stack program that the BPF side
 * runs at each return, before anything is recorded. The interpreter is
 * here, shared: the unit tests run the very code the BPF side runs.
 */
#ifndef KFIT_FILTER_H
#define KFIT_FILTER_H

#include <linux/types.h>
#include "kfit/args.h"

#define KFIT_FILTER_MAX		32	/* instructions */
#define KFIT_FILTER_STACK	8	/* values on the stack at once: a power of 2 */

enum kfit_fop {
	KFIT_F_END,		/* (unused instructions) */
	KFIT_F_IMM,		/* push imm */
	KFIT_F_ARG,		/* push the argument operand arg (kfit_fvals.arg) */
	KFIT_F_RET,
	KFIT_F_PID,
	KFIT_F_TID,
	KFIT_F_CPU,
	KFIT_F_COMM,		/* push whether comm is the filter's literal */
	KFIT_F_EQ,		/* binary: pop b, pop a, push a OP b (signed) */
	KFIT_F_NE,
	KFIT_F_LT,
	KFIT_F_LE,
	KFIT_F_GT,
	KFIT_F_GE,
	KFIT_F_BAND,
	KFIT_F_BOR,
	KFIT_F_LAND,
	KFIT_F_LOR,
	KFIT_F_NOT,		/* unary: pop a, push !a */
	KFIT_F_NEG,		/* unary: pop a, push -a */
};

struct kfit_finsn {
	__u8 op;		/* enum kfit_fop */
	__u8 arg;		/* KFIT_F_ARG: the operand */
	__u8 pad[6];
	__s64 imm;
};

/* What a program reads of a call */
struct kfit_fvals {
	__s64 arg[KFIT_ARGS_MAX];	/* by operand */
	__u32 have;			/* bit k: arg[k] was read */
	__u32 comm_eq;			/* comm is the literal */
	__s64 ret;
	__u32 pid, tid, cpu;
	__u32 pad;
};

#define KFIT_FILTER_ERR		(-1)	/* a malformed program */
#define KFIT_FILTER_NOVAL	(-2)	/* an argument it reads was not read */

static inline __s64 kfit_fop2(__u8 op, __s64 a, __s64 b)
{
	switch (op) {
	case KFIT_F_EQ: return a == b;
	case KFIT_F_NE: return a != b;
	case KFIT_F_LT: return a < b;
	case KFIT_F_LE: return a <= b;
	case KFIT_F_GT: return a > b;
	case KFIT_F_GE: return a >= b;
	case KFIT_F_BAND: return a & b;
	case KFIT_F_BOR: return a | b;
	case KFIT_F_LAND: return a && b;
	case KFIT_F_LOR: return a || b;
	}
	return 0;
}

/* An operand's value into *x: 1 pushed, 0 not an operand, or a KFIT_FILTER_* */
static inline int kfit_foperand(const struct kfit_finsn *in, const struct kfit_fvals *v, __s64 *x)
{
	__u32 k = in->arg & (KFIT_ARGS_MAX - 1);

	switch (in->op) {
	case KFIT_F_IMM: *x = in->imm; return 1;
	case KFIT_F_RET: *x = v->ret; return 1;
	case KFIT_F_PID: *x = v->pid; return 1;
	case KFIT_F_TID: *x = v->tid; return 1;
	case KFIT_F_CPU: *x = v->cpu; return 1;
	case KFIT_F_COMM: *x = v->comm_eq; return 1;
	case KFIT_F_ARG:
		if (!(v->have & (1U << k)))
			return KFIT_FILTER_NOVAL;
		*x = v->arg[k];
		return 1;
	}
	return 0;
}

/* A running program: its stack */
struct kfit_fstate {
	__s64 st[KFIT_FILTER_STACK];
	__u32 sp;
	__s32 err;
};

/*
 * One instruction: 0, or a KFIT_FILTER_* error (also left in s->err).
 * The BPF side runs it from bpf_loop, one verified step for all.
 */
static inline int kfit_filter_step(struct kfit_fstate *s, const struct kfit_finsn *in,
				   const struct kfit_fvals *v)
{
	const __u32 m = KFIT_FILTER_STACK - 1;
	__s64 x = 0;
	int r = kfit_foperand(in, v, &x);

	if (r < 0)
		return s->err = r;
	if (r) {
		if (s->sp >= KFIT_FILTER_STACK)
			return s->err = KFIT_FILTER_ERR;
		s->st[s->sp & m] = x;
		s->sp++;
		return 0;
	}
	if (in->op == KFIT_F_NOT || in->op == KFIT_F_NEG) {
		if (s->sp < 1 || s->sp > KFIT_FILTER_STACK)
			return s->err = KFIT_FILTER_ERR;
		x = s->st[(s->sp - 1) & m];
		s->st[(s->sp - 1) & m] = in->op == KFIT_F_NOT ? !x : -x;
		return 0;
	}
	if (s->sp < 2 || s->sp > KFIT_FILTER_STACK || in->op < KFIT_F_EQ || in->op > KFIT_F_LOR)
		return s->err = KFIT_FILTER_ERR;
	x = kfit_fop2(in->op, s->st[(s->sp - 2) & m], s->st[(s->sp - 1) & m]);
	s->sp--;
	s->st[(s->sp - 1) & m] = x;
	return 0;
}

/* What the program said: 1 the call passes, 0 not, or a KFIT_FILTER_* */
static inline int kfit_filter_result(const struct kfit_fstate *s)
{
	if (s->err)
		return s->err;
	return s->sp == 1 ? s->st[0] != 0 : KFIT_FILTER_ERR;
}

/* Run the n instructions of p over v (user space: the tests, the loader) */
static inline int kfit_filter_run(const struct kfit_finsn *p, __u32 n,
				  const struct kfit_fvals *v)
{
	struct kfit_fstate s = { .sp = 0 };
	__u32 i;

	for (i = 0; i < n && i < KFIT_FILTER_MAX; i++)
		if (kfit_filter_step(&s, &p[i], v))
			break;
	return kfit_filter_result(&s);
}

#endif
