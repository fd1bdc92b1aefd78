// SPDX-License-Identifier: GPL-2.0
/* DWARF's functions that never return, through libdw: see debuginfo.h */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <gelf.h>
#include <elfutils/libdw.h>
#include "debuginfo.h"
#include "elfsyms.h"

/* A section with its bytes (a debug file keeps the others' headers, NOBITS) */
static bool has_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = kfit_elf_section(elf, name);
	GElf_Shdr sh;

	return scn && gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS;
}

bool kfit_debuginfo_present(Elf *elf)
{
	return has_section(elf, ".debug_info") || has_section(elf, ".zdebug_info");
}

struct addrs {
	__u64 *v;
	size_t n, cap;
	int err;
};

static int push(struct addrs *a, __u64 x)
{
	size_t cap;
	__u64 *v;

	if (a->n == a->cap) {
		cap = a->cap ? 2 * a->cap : 64;
		v = realloc(a->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return 0;
}

/* A defining DW_TAG_subprogram: noreturn here or on what it completes */
static int one_func(Dwarf_Die *die, void *arg)
{
	struct addrs *a = arg;
	Dwarf_Attribute at;
	Dwarf_Addr lo;
	bool flag = false;

	if (!dwarf_attr_integrate(die, DW_AT_noreturn, &at) || dwarf_formflag(&at, &flag) ||
	    !flag)
		return DWARF_CB_OK;
	if (dwarf_lowpc(die, &lo) && dwarf_entrypc(die, &lo))
		return DWARF_CB_OK;
	a->err = push(a, lo);
	return a->err ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static int cmp_u64(const void *x, const void *y)
{
	__u64 a = *(const __u64 *)x, b = *(const __u64 *)y;

	return a < b ? -1 : a > b;
}

static void sort_unique(struct addrs *a)
{
	size_t i, k = 0;

	if (!a->n)
		return;
	qsort(a->v, a->n, sizeof(*a->v), cmp_u64);
	for (i = 1; i < a->n; i++)
		if (a->v[i] != a->v[k])
			a->v[++k] = a->v[i];
	a->n = k + 1;
}

int kfit_debuginfo_noreturn(Elf *elf, __u64 **addrs, size_t *n)
{
	struct addrs a = { 0 };
	Dwarf_Off off = 0, next;
	Dwarf_Die cu;
	size_t hsize;
	Dwarf *dw;

	*addrs = NULL;
	*n = 0;
	if (!kfit_debuginfo_present(elf))
		return 0;
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw)
		return 0;
	while (!a.err && !dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		if (dwarf_offdie(dw, off + hsize, &cu))
			dwarf_getfuncs(&cu, one_func, &a, 0);
		off = next;
	}
	dwarf_end(dw);
	if (a.err) {
		free(a.v);
		return a.err;
	}
	sort_unique(&a);
	*addrs = a.v;
	*n = a.n;
	return 0;
}
