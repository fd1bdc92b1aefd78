// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols from /proc/kallsyms. The file (~120k lines) is read in
 * one go and parsed in place; symbols are sorted by address for lookups
 * by address and hashed by name for lookups by name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fileio.h"
#include "ksyms.h"

struct sym {
	struct kfit_ksym ks;	/* first: callers get &sym->ks */
	__u32 seq;		/* line number, to keep file order among equals */
};

struct kfit_ksyms {
	char *buf;		/* the file; names point into it */
	struct sym *syms;	/* by address, then file order */
	int n;
	__u32 *hash;		/* index + 1 into syms; 0: empty */
	__u32 hmask;
};

/*
 * One line, "ffffffff81000000 T _stext" or "ffffffffc0a01000 t foo\t[mod]",
 * NUL-terminated. Returns 0, or -1 for a line that is not a symbol.
 */
static int parse_line(char *line, struct kfit_ksym *ks)
{
	char *end, *mod;

	ks->addr = strtoull(line, &end, 16);
	if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ' || !end[3])
		return -1;
	ks->type = end[1];
	ks->name = end + 3;
	ks->module = NULL;
	mod = strchr(end + 3, '\t');
	if (!mod)
		return 0;
	*mod++ = '\0';
	if (*mod == '[') {
		ks->module = mod + 1;
		mod[strcspn(mod, "]")] = '\0';
	}
	return 0;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->ks.addr != y->ks.addr)
		return x->ks.addr < y->ks.addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int parse_all(struct kfit_ksyms *ks)
{
	char *p = ks->buf, *nl;
	int lines = 1;
	__u32 seq = 0;

	for (nl = p; (nl = strchr(nl, '\n')); nl++)
		lines++;
	ks->syms = calloc(lines, sizeof(*ks->syms));
	if (!ks->syms)
		return -ENOMEM;
	for (; *p; p = nl) {
		nl = p + strcspn(p, "\n");
		if (*nl)
			*nl++ = '\0';
		if (parse_line(p, &ks->syms[ks->n].ks))
			continue;
		ks->syms[ks->n++].seq = seq++;
	}
	qsort(ks->syms, ks->n, sizeof(*ks->syms), cmp_addr);
	return 0;
}

/* FNV-1a */
static __u32 hash_name(const char *s)
{
	__u32 h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The hash slot holding name, or the empty slot where it would go */
static __u32 *hash_slot(const struct kfit_ksyms *ks, const char *name)
{
	__u32 i = hash_name(name) & ks->hmask;

	while (ks->hash[i] && strcmp(ks->syms[ks->hash[i] - 1].ks.name, name))
		i = (i + 1) & ks->hmask;
	return &ks->hash[i];
}

/* Names repeat (static functions); the hash keeps the first in the file */
static int build_hash(struct kfit_ksyms *ks)
{
	__u32 size = 16, *slot;
	int i;

	while (size < 2 * (__u32)ks->n)
		size *= 2;
	ks->hash = calloc(size, sizeof(*ks->hash));
	if (!ks->hash)
		return -ENOMEM;
	ks->hmask = size - 1;
	for (i = 0; i < ks->n; i++) {
		slot = hash_slot(ks, ks->syms[i].ks.name);
		if (!*slot || ks->syms[*slot - 1].seq > ks->syms[i].seq)
			*slot = i + 1;
	}
	return 0;
}

struct kfit_ksyms *kfit_ksyms_load(const char *path)
{
	struct kfit_ksyms *ks;
	int err;

	ks = calloc(1, sizeof(*ks));
	if (!ks)
		return NULL;
	ks->buf = kfit_read_all(path ? path : "/proc/kallsyms", NULL);
	if (!ks->buf) {
		err = errno ? -errno : -ENOMEM;
		goto fail;
	}
	err = parse_all(ks);
	if (!err)
		err = build_hash(ks);
	if (!err)
		return ks;
fail:
	kfit_ksyms_free(ks);
	errno = -err;
	return NULL;
}

void kfit_ksyms_free(struct kfit_ksyms *ks)
{
	if (!ks)
		return;
	free(ks->hash);
	free(ks->syms);
	free(ks->buf);
	free(ks);
}

int kfit_ksyms_count(const struct kfit_ksyms *ks)
{
	return ks->n;
}

/* Index of the first symbol with an address above addr */
static int upper_bound(const struct kfit_ksyms *ks, __u64 addr)
{
	int lo = 0, hi = ks->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ks->syms[mid].ks.addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the first symbol at addr or above */
static int lower_bound(const struct kfit_ksyms *ks, __u64 addr)
{
	int lo = 0, hi = ks->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ks->syms[mid].ks.addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Of aliases at one address, the first in the file */
const struct kfit_ksym *kfit_ksyms_by_addr(const struct kfit_ksyms *ks, __u64 addr)
{
	int i = upper_bound(ks, addr);

	if (!i)
		return NULL;
	return &ks->syms[lower_bound(ks, ks->syms[i - 1].ks.addr)].ks;
}

const struct kfit_ksym *kfit_ksyms_by_name(const struct kfit_ksyms *ks, const char *name)
{
	__u32 *slot = hash_slot(ks, name);

	return *slot ? &ks->syms[*slot - 1].ks : NULL;
}
