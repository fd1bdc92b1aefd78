// SPDX-License-Identifier: GPL-2.0
/*
 * ELF files (elfsyms.h), what the symbolizer reads of every binary and
 * library a process maps: kfit_elf_load_mem of the input, then every
 * symbol looked up by address and by name, every segment's offsets
 * turned into addresses, the build-id printed; and its DWARF's noreturn
 * functions (debuginfo.h, through libdw).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <libelf.h>
#include "debuginfo.h"
#include "elfsyms.h"
#include "fuzzlib.h"

static void noreturn_of(const uint8_t *data, size_t size)
{
	__u64 *addrs;
	void *copy;
	size_t n, i;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		abort();
	copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	elf = elf_memory(copy, size);
	if (elf && !kfit_debuginfo_noreturn(elf, &addrs, &n)) {
		for (i = 1; i < n; i++)
			if (addrs[i - 1] >= addrs[i])
				abort();
		free(addrs);
	}
	elf_end(elf);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512], id[2 * KFIT_ELF_BUILD_ID_MAX + 1];
	const struct kfit_elfsym *s;
	struct kfit_elf *e;
	void *copy;
	__u64 addr;
	int i;

	noreturn_of(data, size);
	/* libelf may write to its image (a malloc'd copy the size of the input) */
	copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	if (kfit_elf_load_mem(copy, size, "fuzz", &e, err, sizeof(err))) {
		free(copy);
		return 0;
	}
	for (i = 0; i < e->nsyms; i++) {
		s = &e->syms[i];
		kfit_elf_by_addr(e, s->addr);
		kfit_elf_by_addr(e, s->addr + (s->size ? s->size - 1 : 1));
		if (!kfit_elf_by_name(e, s->name))
			abort();
		if (!kfit_elf_name_at(e, i))
			abort();
	}
	if (kfit_elf_name_at(e, e->nsyms) || kfit_elf_name_at(e, -1))
		abort();
	for (i = 0; i < e->nsegs; i++) {
		kfit_elf_off_to_addr(e, e->segs[i].offset, &addr);
		kfit_elf_off_to_addr(e, e->segs[i].offset + e->segs[i].filesz, &addr);
	}
	kfit_elf_build_id_hex(e, id, sizeof(id));
	if (strlen(id) != 2 * e->build_id_len)
		abort();
	kfit_elf_free(e);
	free(copy);
	return 0;
}
