/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_FRAMES_H
#define KFIT_FRAMES_H

#include <string.h>

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

/* The first frame of name, in *len bytes: the frames after it, or NULL at the last */
static inline const char *kfit_frame_split(const char *name, size_t *len)
{
	const char *sep = strchr(name, KFIT_FRAME_SEP);

	*len = sep ? (size_t)(sep - name) : strlen(name);
	return sep ? sep + 1 : NULL;
}

#endif
