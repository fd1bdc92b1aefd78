// SPDX-License-Identifier: GPL-2.0
/*
 * kallsyms files (ksyms.h): the input as a file in /tmp, loaded, every
 * symbol visited, looked up by address (at, before and after it) and by
 * name; the answers must agree with the file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ksyms.h"
#include "fuzzlib.h"

static const char *dir;
static char path[300];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	dir = fz_tmpdir("ksyms");
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct kfit_ksym *s, *r;
	struct kfit_ksyms *ks;
	int i, n;

	fz_put(dir, "kallsyms", data, size);
	ks = kfit_ksyms_load(path);
	if (!ks)
		abort();	/* any file loads, perhaps with no symbol */
	n = kfit_ksyms_count(ks);
	if (n < 0 || kfit_ksyms_at(ks, n) || kfit_ksyms_at(ks, -1))
		abort();
	for (i = 0; i < n; i++) {
		s = kfit_ksyms_at(ks, i);
		kfit_ksym_is_func(s);
		r = kfit_ksyms_by_addr(ks, s->addr);
		if (!r || r->addr != s->addr)
			abort();
		/* The nearest at or below: s's address or the one after */
		if (s->addr != ~0ULL) {
			r = kfit_ksyms_by_addr(ks, s->addr + 1);
			if (!r || r->addr < s->addr || r->addr > s->addr + 1)
				abort();
		}
		if (s->addr)
			kfit_ksyms_by_addr(ks, s->addr - 1);
		r = kfit_ksyms_by_name(ks, s->name);
		if (!r || strcmp(r->name, s->name) || r > s)
			abort();
	}
	kfit_ksyms_free(ks);
	return 0;
}
