/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_FRAMES_H
#define KFIT_FRAMES_H

/*
 * A code address's name that stands for several frames: the function
 * that holds it, then the functions inlined there, outermost first
 * ("list_sort_impl.lto_priv.0" KFIT_FRAME_SEP "merge_collapse (inlined)"),
 * as the symbolizer names it (syms.h), a recording keeps it (its SYMS
 * block), and the decoder splits it into frames (calltree.h). No symbol
 * name holds the separator.
 */
#define KFIT_FRAME_SEP	'\x1e'
#define KFIT_FRAME_SEP_STR "\x1e"

#endif
