// SPDX-License-Identifier: GPL-2.0
/*
 * String hash set: kallsyms names, available_filter_functions and BTF
 * function names, ~100k each, looked up by name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "strset.h"

__u32 kfit_strset_hash(const char *s)
{
	__u32 h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The slot holding key, or the empty slot where it would go */
static unsigned int find(const struct kfit_strset *s, const char *key)
{
	unsigned int i = kfit_strset_hash(key) & s->mask;

	while (s->keys[i] && strcmp(s->keys[i], key))
		i = (i + 1) & s->mask;
	return i;
}

/* At least twice as many slots as strings: probes stay short */
static int resize(struct kfit_strset *s, unsigned int want)
{
	struct kfit_strset t = { .n = s->n };
	unsigned int size = 16, i, j;

	while (size < 2 * want)
		size *= 2;
	t.keys = calloc(size, sizeof(*t.keys));
	t.vals = malloc(size * sizeof(*t.vals));
	if (!t.keys || !t.vals) {
		free(t.keys);
		free(t.vals);
		return -ENOMEM;
	}
	t.mask = size - 1;
	for (i = 0; s->keys && i <= s->mask; i++) {
		if (!s->keys[i])
			continue;
		j = find(&t, s->keys[i]);
		t.keys[j] = s->keys[i];
		t.vals[j] = s->vals[i];
	}
	kfit_strset_free(s);
	*s = t;
	return 0;
}

int kfit_strset_init(struct kfit_strset *s, unsigned int n)
{
	memset(s, 0, sizeof(*s));
	return resize(s, n);
}

void kfit_strset_free(struct kfit_strset *s)
{
	free(s->keys);
	free(s->vals);
	memset(s, 0, sizeof(*s));
}

int kfit_strset_add(struct kfit_strset *s, const char *key, int val)
{
	unsigned int i;

	if ((!s->keys || 2 * (s->n + 1) > s->mask + 1) && resize(s, s->n + 1))
		return -ENOMEM;
	i = find(s, key);
	if (s->keys[i])
		return 0;
	s->keys[i] = key;
	s->vals[i] = val;
	s->n++;
	return 1;
}

int kfit_strset_get(const struct kfit_strset *s, const char *key)
{
	unsigned int i;

	if (!s->keys)
		return -1;
	i = find(s, key);
	return s->keys[i] ? s->vals[i] : -1;
}
