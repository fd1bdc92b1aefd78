/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_STRDIST_H
#define KFIT_STRDIST_H

#include <stddef.h>

/*
 * Edit distance between a and b: insertions, deletions, substitutions and
 * swaps of two adjacent characters cost 1 ("optimal string alignment",
 * Damerau-Levenshtein restricted to non-overlapping swaps). Stops early
 * and returns max + 1 once the distance is known to be over max.
 */
int kfit_strdist(const char *a, const char *b, int max);

/*
 * "do_fork, do_forky, ..." in buf: the up to nbest (at most 8) of names
 * closest to word, best first (then by length difference, then by name).
 * Names farther than 2 + strlen(word) / 4 are not worth suggesting and are
 * left out. Returns how many were written (buf is "" when none).
 */
int kfit_strdist_closest(const char *word, const char *const *names, int n, int nbest,
		 char *buf, size_t len);

#endif
