/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_KTARGET_H
#define KFIT_KTARGET_H

#include <stdbool.h>
#include <stddef.h>
#include "fileio.h"	/* kfit_tracefs(), which says where <tracefs> is */

struct btf;

/*
 * Kernel functions to trace, from a name or an fnmatch glob ("vfs_*").
 * Candidates are the text symbols of vmlinux and modules in kallsyms,
 * compiler clones (foo.isra.0, foo.cold, ...) aside: a glob or a name
 * matches foo, never foo.isra.0, unless it has a '.' itself.
 */
struct kfit_ktarget_skip {
	char *name;
	char *reason;		/* e.g. "not in available_filter_functions (...)" */
};

struct kfit_ktarget {
	char **names;			/* to trace, sorted, unique */
	int n;
	struct kfit_ktarget_skip *skipped;	/* matched but untraceable, sorted by name */
	int nskipped;
	char note[256];			/* e.g. "do_fork is kernel_clone on this kernel (5.10+)"; "" if none */
};

/* Where the facts come from; NULL paths mean the live system */
struct kfit_ktarget_src {
	const char *kallsyms;		/* default /proc/kallsyms */
	const char *filter_functions;	/* default <tracefs>/available_filter_functions */
	const struct btf *btf;		/* default kfit_btf_vmlinux() and module BTF; */
					/* one given is not kept after the call */
	bool need_btf;			/* fentry needs BTF; kprobes don't */
};

/*
 * Resolve pattern (src may be NULL: the live system, no BTF needed).
 * A function is traceable when available_filter_functions lists it and,
 * with need_btf, when BTF has a FUNC of that name; the others go to
 * skipped with the reason. When the live available_filter_functions
 * cannot be read (no tracefs, or a kernel that refuses it), nothing is
 * left out for it and note says so.
 *
 * Returns 0 (n is 0 when every match is untraceable: skipped says
 * why), or a negative errno with err filled: -ENOENT for an
 * unknown name ("unknown kernel function 'do_frok'; closest: do_fork,
 * ...") or a glob matching nothing; -EOPNOTSUPP when need_btf and the
 * kernel has no BTF; -EINVAL for an empty pattern; -errno when a source
 * file cannot be read. Files are read once and kept for the life of the
 * process (read again if their size, mtime or inode change).
 */
int kfit_ktarget_resolve(const struct kfit_ktarget_src *src, const char *pattern,
			struct kfit_ktarget *out, char *err, size_t errlen);
void kfit_ktarget_free(struct kfit_ktarget *f);

/*
 * The aliases tried, in order, when an exact name is not in kallsyms,
 * one per line ("do_fork       kernel_clone (5.10+), else _do_fork
 * (4.2 to 5.9)"), for help texts and the README.
 */
const char *kfit_ktarget_alias_doc(void);

#endif
