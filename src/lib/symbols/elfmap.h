/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_ELFMAP_H
#define KFIT_ELFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include "elfsyms.h"

/*
 * What a module keeps per ELF file it has met (an unwind table, an open
 * DWARF), by the file's kfit_elf: the symbolizer's cache keeps one per
 * file, so its address is the key.
 */
struct kfit_elfmap {
	struct kfit_elfmap_slot *v;	/* open addressing on the file */
	size_t mask, n;
};

struct kfit_elfmap_slot {
	const struct kfit_elf *e;
	void *val;
};

/*
 * e's slot, made if new (*fresh then, its val NULL): NULL only when out
 * of memory. A slot moves when a later one is made.
 */
struct kfit_elfmap_slot *kfit_elfmap_get(struct kfit_elfmap *m, const struct kfit_elf *e,
					 bool *fresh);
/* Each value given to fn, then the map emptied */
void kfit_elfmap_free(struct kfit_elfmap *m, void (*fn)(void *val));

#endif
