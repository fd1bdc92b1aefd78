/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_RECBATCH_H
#define KFIT_RECBATCH_H

#include <stddef.h>

/*
 * A ring buffer sample of callgraph's is one record, or a batch: the
 * records a CPU staged, whole and back to back (include/kfit/callgraph.h's
 * cg_stage). Each carries its size (include/kfit/rec.h), which splits
 * them. fn gets each record; a size that cannot be a record's (short of a
 * header, no multiple of 8, past the end) gets the rest as one piece, for
 * the decoder to count as it counts any record cut short. fn's nonzero
 * return stops the split and is returned, else 0; *nrecs (may be NULL)
 * counts the pieces handed.
 */
typedef int (*kfit_rec_fn)(void *ctx, const void *rec, size_t size);

int kfit_rec_split(const void *buf, size_t len, kfit_rec_fn fn, void *ctx, size_t *nrecs);

#endif
