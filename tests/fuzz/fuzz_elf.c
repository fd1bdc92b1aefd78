// SPDX-License-Identifier: GPL-2.0
/*
 * ELF files (elfsyms.h), what the symbolizer reads of every binary and
 * library a process maps: kfit_elf_load_mem of the input, then every
 * symbol looked up by address and by name, every segment's offsets
 * turned into addresses, the build-id printed; and its DWARF's noreturn
 * functions and the parameters of its functions (debuginfo.h, through
 * libdw), those its symbols name and a few the seeds hold, and paths of
 * fields through their pointers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <libelf.h>
#include "argpath.h"
#include "debuginfo.h"
#include "elfsyms.h"
#include "fuzzlib.h"
#include "kfit/ret.h"

/* What a kfit_uparam must be, whatever the DWARF */
static void check_params(struct kfit_dwarf *d, const char *func)
{
	struct kfit_uparam *p;
	unsigned char ret;
	int n, i;

	n = kfit_dwarf_params(d, func, &p, &ret);
	if (n < 0 && p)
		abort();
	for (i = 0; i < n; i++)
		if (!p[i].type || (p[i].kind & KFIT_RET_VOID) ||
		    (p[i].is_str && !(p[i].kind & KFIT_RET_PTR)))
			abort();
	kfit_uparams_free(p, n);
}

/* What a path of fields must give, whatever the DWARF: hops it can make */
static void check_path(struct kfit_dwarf *d, const char *func, const char *const *seg,
		       const bool *arrow, int nseg)
{
	struct kfit_argpath a;
	char err[256];

	err[0] = '\0';
	if (kfit_dwarf_arg(d, func, seg, arrow, nseg, &a, err, sizeof(err))) {
		if (!err[0] || strlen(err) >= sizeof(err))
			abort();
		return;
	}
	if (a.nhops < 0 || a.nhops > KFIT_ARG_HOPS || !a.kind || (a.kind & KFIT_RET_VOID) ||
	    (a.is_str && !(a.kind & KFIT_RET_PTR)) || (a.inline_str && !a.nhops))
		abort();
}

/* up_enum(struct up_pair *p, struct up_pair v)'s fields, and paths that go wrong */
static void check_paths(struct kfit_dwarf *d, const char *func)
{
	static const char *const p_a[] = { "p", "a" }, *const v_b[] = { "v", "b" };
	static const char *const deep[] = { "p", "a", "b", "c", "d", "e" };
	static const bool arrow[] = { false, true, true, true, true, true };
	static const bool dot[] = { false, false };

	check_path(d, func, p_a, arrow, 2);
	check_path(d, func, v_b, dot, 2);
	check_path(d, func, deep, arrow, 6);
	check_path(d, func, p_a, arrow, 1);
}

static void dwarf_of(Elf *elf, const struct kfit_elf *e)
{
	static const char *const names[] = { "main", "st_global", "up_void", "up_enum" };
	struct kfit_dwarf *d;
	size_t i;
	__u64 *addrs;
	size_t n;

	if (!kfit_debuginfo_noreturn(elf, &addrs, &n)) {
		for (i = 1; i < n; i++)
			if (addrs[i - 1] >= addrs[i])
				abort();
		free(addrs);
	}
	if (kfit_dwarf_open_elf(elf, &d))
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		check_params(d, names[i]);
		check_paths(d, names[i]);
	}
	for (i = 0; e && i < (size_t)e->nsyms && i < 64; i++)
		check_params(d, e->syms[i].name);
	kfit_dwarf_close(d);
}

/* The DWARF of a copy of the input (libelf may write to its image) */
static void dwarf_copy(const uint8_t *data, size_t size, const struct kfit_elf *e)
{
	void *copy;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		abort();
	copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	elf = elf_memory(copy, size);
	if (elf)
		dwarf_of(elf, e);
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

	/* libelf may write to its image (a malloc'd copy the size of the input) */
	copy = malloc(size ? size : 1);
	if (!copy)
		abort();
	memcpy(copy, data, size);
	if (kfit_elf_load_mem(copy, size, "fuzz", &e, err, sizeof(err))) {
		dwarf_copy(data, size, NULL);
		free(copy);
		return 0;
	}
	dwarf_copy(data, size, e);
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
