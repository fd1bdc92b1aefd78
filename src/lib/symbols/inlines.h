/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_INLINES_H
#define KFIT_INLINES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "elfsyms.h"

/*
 * What DWARF says of a code address beyond its symbol: the functions
 * inlined there (perf report's "list_sort_impl (inlined)") and, asked,
 * each frame's source line, from the file's separate debug file
 * (Debian's -dbgsym and -dbg packages, found by build-id) or its own
 * .debug_info. Each file's DWARF is opened once, at its first address.
 */

struct kfit_inlines;

struct kfit_inlines *kfit_inlines_new(void);
void kfit_inlines_free(struct kfit_inlines *c);

/*
 * The frames at link-time address addr of e, outermost first, joined by
 * KFIT_FRAME_SEP (frames.h) into buf: phys (the symbol's name) and each
 * function inlined there, "NAME (inlined)"; with lines, each frame's
 * " (FILE:LINE)" added (the file's base name). ret: a return address
 * (the call before it is looked up). 1 when written, 0 when DWARF adds
 * nothing (none, no inlining and no lines asked) or buf is too small.
 */
int kfit_inlines_frames(struct kfit_inlines *c, const struct kfit_elf *e, __u64 addr,
			bool ret, const char *phys, bool lines, char *buf, size_t len);

#endif
