/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_KSYMS_H
#define KFIT_KSYMS_H

#include <linux/types.h>

struct kfit_ksym {
	__u64 addr;
	char type;		/* kallsyms type letter */
	const char *name;
	const char *module;	/* NULL for vmlinux */
};

struct kfit_ksyms;

/* Load a kallsyms-format file; NULL means /proc/kallsyms. NULL on error (errno set). */
struct kfit_ksyms *kfit_ksyms_load(const char *path);
void kfit_ksyms_free(struct kfit_ksyms *ks);
int kfit_ksyms_count(const struct kfit_ksyms *ks);
/* The symbol containing addr (the nearest at or below it), or NULL */
const struct kfit_ksym *kfit_ksyms_by_addr(const struct kfit_ksyms *ks, __u64 addr);
/* The first symbol of that name, or NULL */
const struct kfit_ksym *kfit_ksyms_by_name(const struct kfit_ksyms *ks, const char *name);

#endif
