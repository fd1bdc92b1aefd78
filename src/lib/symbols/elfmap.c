// SPDX-License-Identifier: GPL-2.0
/* Values by ELF file (elfmap.h). */
#include <errno.h>
#include <stdlib.h>
#include "elfmap.h"

static struct kfit_elfmap_slot *slot(struct kfit_elfmap_slot *v, size_t mask,
				     const struct kfit_elf *e)
{
	size_t i = ((unsigned long)e >> 4) * 2654435761u & mask;

	while (v[i].e && v[i].e != e)
		i = (i + 1) & mask;
	return &v[i];
}

static int grow(struct kfit_elfmap *m)
{
	size_t mask = m->v ? 2 * m->mask + 1 : 31, i;
	struct kfit_elfmap_slot *v = calloc(mask + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; m->v && i <= m->mask; i++)
		if (m->v[i].e)
			*slot(v, mask, m->v[i].e) = m->v[i];
	free(m->v);
	m->v = v;
	m->mask = mask;
	return 0;
}

struct kfit_elfmap_slot *kfit_elfmap_get(struct kfit_elfmap *m, const struct kfit_elf *e,
					 bool *fresh)
{
	struct kfit_elfmap_slot *x;

	*fresh = false;
	if (m->v) {
		x = slot(m->v, m->mask, e);
		if (x->e)
			return x;
	}
	if ((!m->v || 2 * (m->n + 1) > m->mask + 1) && grow(m))
		return NULL;
	x = slot(m->v, m->mask, e);
	x->e = e;
	x->val = NULL;
	m->n++;
	*fresh = true;
	return x;
}

void kfit_elfmap_free(struct kfit_elfmap *m, void (*fn)(void *val))
{
	size_t i;

	for (i = 0; m->v && i <= m->mask; i++)
		if (m->v[i].e && fn)
			fn(m->v[i].val);
	free(m->v);
	m->v = NULL;
	m->mask = m->n = 0;
}
