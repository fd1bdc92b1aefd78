/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_UWTABLE_H
#define KFIT_UWTABLE_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "kfit/uwrow.h"

/*
 * An ELF file's call-frame information (.eh_frame, else .debug_frame),
 * turned once into a sorted table of x86_64 rules: for each range of
 * link-time addresses, where the caller's stack pointer (the CFA), return
 * address and rbp are. Compilers emit few shapes of rule, and the table
 * keeps those (perf and the OpenTelemetry profiler unwind from the same
 * few); a rule of any other shape is KFIT_UW_OTHER, where unwinding
 * stops and says why.
 */

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
