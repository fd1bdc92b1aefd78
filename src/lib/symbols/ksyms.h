/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_KSYMS_H
#define KFIT_KSYMS_H

#include <stdbool.h>
#include <linux/types.h>

struct kfit_ksym {
	__u64 addr;
	char type;		/* kallsyms type letter */
	const char *name;
	const char *module;	/* NULL for vmlinux */
};

struct kfit_ksyms;

/*
 * Load a kallsyms-format file; NULL means /proc/kallsyms. NULL on error
 * (errno set). Symbols point into the object: they live until it is freed.
 */
struct kfit_ksyms *kfit_ksyms_load(const char *path);
void kfit_ksyms_free(struct kfit_ksyms *ks);
int kfit_ksyms_count(const struct kfit_ksyms *ks);
/* The i-th symbol in the file's order, 0 <= i < count (else NULL) */
const struct kfit_ksym *kfit_ksyms_at(const struct kfit_ksyms *ks, int i);
/*
 * Whether s is a function's code: a text symbol (t, T, w, W), and not
 * the ftrace or CFI padding before one (__pfx_*, __cfi_*)
 */
bool kfit_ksym_is_func(const struct kfit_ksym *s);
/*
 * Lookups. The first builds the indexes they need, and fails (NULL,
 * errno ENOMEM) if it cannot.
 */
/* The symbol containing addr (the nearest at or below it), or NULL */
const struct kfit_ksym *kfit_ksyms_by_addr(struct kfit_ksyms *ks, __u64 addr);
/* The first symbol of that name, or NULL */
const struct kfit_ksym *kfit_ksyms_by_name(struct kfit_ksyms *ks, const char *name);

#endif
