/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_TPGLOB_H
#define KFIT_TPGLOB_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Tracepoints named CATEGORY:NAME, either part an fnmatch glob
 * ("sched:sched_wake*", "irq:*"), from <tracefs>/events.
 */
struct kfit_tpglob_tp {
	char *name;		/* "category:name" */
	unsigned int size;	/* bytes of its raw record (from its format) */
	bool dynamic;		/* __data_loc fields: its data runs past size */
};

struct kfit_tpglob {
	struct kfit_tpglob_tp *tp;	/* in the order added, each once */
	int n;
};

/*
 * Add the tracepoints spec names, sorted within it (tracefs NULL: the
 * mounted one). Returns 0, or a negative errno with the reason in err:
 * -EINVAL (no ':' or an empty part), -ENOENT (nothing matches, with the
 * closest name when there is one), -EACCES (tracefs closed to us), or
 * -ENOMEM.
 */
int kfit_tpglob_add(struct kfit_tpglob *t, const char *tracefs, const char *spec,
		 char *err, size_t errlen);
void kfit_tpglob_free(struct kfit_tpglob *t);

#endif
