/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_DEBUGINFO_H
#define KFIT_DEBUGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <libelf.h>
#include <linux/types.h>

/*
 * What DWARF knows that the symbol tables do not (libdw). Today: which
 * functions never return (DW_AT_noreturn, on the definition or on the
 * declaration it completes), so that no return probe goes on them.
 */

/* Whether elf holds DWARF (.debug_info, compressed or not) */
bool kfit_debuginfo_present(Elf *elf);

/*
 * The entry addresses (DW_AT_low_pc, link-time, as st_value) of the
 * functions elf's DWARF says never return, sorted and unique, into
 * *addrs (malloc'd, NULL when none) and *n. DWARF that libdw cannot read
 * gives none, not an error: 0, or -ENOMEM.
 */
int kfit_debuginfo_noreturn(Elf *elf, __u64 **addrs, size_t *n);

#endif
