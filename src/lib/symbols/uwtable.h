/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_UWTABLE_H
#define KFIT_UWTABLE_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/*
 * An ELF file's call-frame information (.eh_frame, else .debug_frame),
 * turned once into a sorted table of x86_64 rules: for each range of
 * link-time addresses, where the caller's stack pointer (the CFA), return
 * address and rbp are. Compilers emit few shapes of rule, and the table
 * keeps those (perf and the OpenTelemetry profiler unwind from the same
 * few); a rule of any other shape is KFIT_UW_OTHER, where unwinding
 * stops and says why.
 */

/* How the CFA (the stack pointer before the call) is found */
enum kfit_uw_cfa {
	KFIT_UW_NONE,		/* no call-frame information covers these addresses */
	KFIT_UW_SP,		/* rsp + cfa_off */
	KFIT_UW_BP,		/* rbp + cfa_off */
	KFIT_UW_DEREF_SP,	/* *(rsp + cfa_off): a signal frame's saved rsp */
	KFIT_UW_DEREF_BP,	/* *(rbp + cfa_off): a function that realigns its stack */
	KFIT_UW_PLT,		/* rsp + cfa_off, + 8 when (rip & 15) >= arg: a PLT stub */
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

struct kfit_uwtable {
	__u64 base;		/* link-time address of pc 0 */
	struct kfit_uw_row *rows;	/* by pc; each holds up to the next */
	size_t n;
	const char *section;	/* ".eh_frame", ".debug_frame", or NULL: none */
	size_t nfdes;		/* functions described */
	size_t nother;		/* rows of KFIT_UW_OTHER */
};

/*
 * The table of elf: 0, or -errno (-ENOMEM, -ENODATA: no call-frame
 * information at all, a table with no rows being no use). debug, may be
 * NULL: the separate debug file, whose .debug_frame serves when elf has
 * no .eh_frame.
 */
int kfit_uwtable_build(Elf *elf, Elf *debug, struct kfit_uwtable **out);
void kfit_uwtable_free(struct kfit_uwtable *t);

/* The row covering link-time address addr, or NULL (KFIT_UW_NONE rows are NULL too) */
const struct kfit_uw_row *kfit_uwtable_find(const struct kfit_uwtable *t, __u64 addr);

/* Bytes the table holds, for the summary's memory line */
size_t kfit_uwtable_bytes(const struct kfit_uwtable *t);

#endif
