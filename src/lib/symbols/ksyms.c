// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols from /proc/kallsyms, the library's one reader of it.
 * The file (~120k lines) is read in one go and parsed in place. Symbols
 * keep the file's order for iteration; the first lookup builds an index
 * by address and a hash by name (~30 ms that iterating does not need).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fileio.h"
#include "ksyms.h"
#include "strset.h"

struct kfit_ksyms {
	char *buf;			/* the file; names point into it */
	struct kfit_ksym *syms;		/* in file order */
	int n;
	int *by_addr;			/* indexes into syms, by address, then file order */
	struct kfit_strset names;	/* name -> index of its first symbol */
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

static int cmp_addr(const void *a, const void *b, void *arg)
{
	const struct kfit_ksym *syms = arg;
	int x = *(const int *)a, y = *(const int *)b;

	if (syms[x].addr != syms[y].addr)
		return syms[x].addr < syms[y].addr ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int parse_all(struct kfit_ksyms *ks)
{
	char *p = ks->buf, *nl;
	int lines = 1;

	for (nl = p; (nl = strchr(nl, '\n')); nl++)
		lines++;
	ks->syms = calloc(lines, sizeof(*ks->syms));
	if (!ks->syms)
		return -ENOMEM;
	for (; *p; p = nl) {
		nl = p + strcspn(p, "\n");
		if (*nl)
			*nl++ = '\0';
		if (!parse_line(p, &ks->syms[ks->n]))
			ks->n++;
	}
	return 0;
}

/* Names repeat (static functions); the first in the file is kept */
static int index_all(struct kfit_ksyms *ks)
{
	int i, err;

	if (ks->by_addr)
		return 0;
	err = kfit_strset_init(&ks->names, ks->n);
	for (i = 0; !err && i < ks->n; i++)
		err = kfit_strset_add(&ks->names, ks->syms[i].name, i) < 0 ? -ENOMEM : 0;
	ks->by_addr = err ? NULL : malloc(sizeof(*ks->by_addr) * (ks->n + 1));
	if (!ks->by_addr) {
		kfit_strset_free(&ks->names);
		errno = ENOMEM;
		return -ENOMEM;
	}
	for (i = 0; i < ks->n; i++)
		ks->by_addr[i] = i;
	qsort_r(ks->by_addr, ks->n, sizeof(*ks->by_addr), cmp_addr, ks->syms);
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
	kfit_strset_free(&ks->names);
	free(ks->by_addr);
	free(ks->syms);
	free(ks->buf);
	free(ks);
}

int kfit_ksyms_count(const struct kfit_ksyms *ks)
{
	return ks->n;
}

const struct kfit_ksym *kfit_ksyms_at(const struct kfit_ksyms *ks, int i)
{
	return i >= 0 && i < ks->n ? &ks->syms[i] : NULL;
}

bool kfit_ksym_is_func(const struct kfit_ksym *s)
{
	if (!strchr("tTwW", s->type))
		return false;
	return strncmp(s->name, "__pfx_", 6) && strncmp(s->name, "__cfi_", 6);
}

static __u64 addr_at(const struct kfit_ksyms *ks, int i)
{
	return ks->syms[ks->by_addr[i]].addr;
}

/* Position in by_addr of the first symbol above addr (above: true) or at it or above */
static int bound(const struct kfit_ksyms *ks, __u64 addr, bool above)
{
	int lo = 0, hi = ks->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (addr_at(ks, mid) < addr || (above && addr_at(ks, mid) == addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Of aliases at one address, the first in the file */
const struct kfit_ksym *kfit_ksyms_by_addr(struct kfit_ksyms *ks, __u64 addr)
{
	int i;

	if (index_all(ks))
		return NULL;
	i = bound(ks, addr, true);
	if (!i)
		return NULL;
	return &ks->syms[ks->by_addr[bound(ks, addr_at(ks, i - 1), false)]];
}

const struct kfit_ksym *kfit_ksyms_by_name(struct kfit_ksyms *ks, const char *name)
{
	int i;

	if (index_all(ks))
		return NULL;
	i = kfit_strset_get(&ks->names, name);
	return i < 0 ? NULL : &ks->syms[i];
}
