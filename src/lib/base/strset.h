/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_STRSET_H
#define KFIT_STRSET_H

#include <stdbool.h>
#include <linux/types.h>

/*
 * A hash set of strings, each with a value >= 0: open addressing on
 * FNV-1a hashes, grown as it fills. The strings stay the caller's and
 * must outlive the set. A zeroed struct is an empty set.
 */
struct kfit_strset {
	const char **keys;	/* NULL: an empty slot */
	int *vals;
	unsigned int mask;	/* slots - 1 */
	unsigned int n;
};

/* FNV-1a of a NUL-terminated string */
__u32 kfit_strset_hash(const char *s);

/* Room for n strings without growing: 0 or -ENOMEM */
int kfit_strset_init(struct kfit_strset *s, unsigned int n);
void kfit_strset_free(struct kfit_strset *s);

/*
 * Adds key with val unless key is there already, whose value then stays:
 * 1 added, 0 already there, -ENOMEM.
 */
int kfit_strset_add(struct kfit_strset *s, const char *key, int val);

/* The value of key, or -1 when it is not in the set */
int kfit_strset_get(const struct kfit_strset *s, const char *key);

static inline bool kfit_strset_has(const struct kfit_strset *s, const char *key)
{
	return kfit_strset_get(s, key) >= 0;
}

#endif
