/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A row of an unwind table (src/lib/symbols/uwtable.h): the x86_64 rule
 * of a range of addresses, as user space unwinds with it (unwind.c) and
 * as BPF would (tools/bench/uwkern.bpf.c, the in-kernel design measured).
 */
#ifndef KFIT_UWROW_H
#define KFIT_UWROW_H

#include <linux/types.h>

/* How the CFA (the stack pointer before the call) is found */
enum kfit_uw_cfa {
	KFIT_UW_NONE,		/* no call-frame information covers these addresses */
	KFIT_UW_SP,		/* rsp + cfa_off */
	KFIT_UW_BP,		/* rbp + cfa_off */
	KFIT_UW_DEREF_SP,	/* *(rsp + cfa_off): a signal frame's saved rsp */
	KFIT_UW_DEREF_BP,	/* *(rbp + cfa_off): a function that realigns its stack */
	KFIT_UW_PLT,		/* rsp + cfa_off, + 8 when (rip & 15) >= arg: a PLT entry */
	KFIT_UW_END,		/* the outermost frame (_start, a thread's start) */
	KFIT_UW_OTHER,		/* a rule of another shape */
};

/* Where the caller's rbp is (kfit_uw_row.bp) */
enum kfit_uw_reg {
	KFIT_UW_SAME,		/* unchanged */
	KFIT_UW_AT_CFA,		/* saved at CFA + off */
	KFIT_UW_AT_SP,		/* saved at rsp + off (signal frames) */
	KFIT_UW_AT_BP,		/* saved at rbp + off */
	KFIT_UW_UNDEF,		/* lost */
};

struct kfit_uw_row {
	__u32 pc;		/* link-time address - the table's base: from here on */
	__u8 cfa;		/* enum kfit_uw_cfa */
	__u8 bp;		/* enum kfit_uw_reg */
	__u8 ra;		/* enum kfit_uw_reg: KFIT_UW_AT_CFA, or AT_SP (signal frames) */
	__u8 signal;		/* a signal frame: its caller's address is exact */
	__s16 cfa_off;
	__s16 bp_off;
	__s16 ra_off;
	__s16 arg;		/* KFIT_UW_PLT's threshold */
};

#endif
