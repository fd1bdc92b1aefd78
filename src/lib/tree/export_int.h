/* SPDX-License-Identifier: GPL-2.0 */
/* What export.c shares with export_perfetto.c */
#ifndef KFIT_EXPORT_INT_H
#define KFIT_EXPORT_INT_H

#include <stdbool.h>
#include <stdio.h>
#include "export.h"

/*
 * Depth-first walk of n and its descendants (and with all, n's next
 * siblings and theirs) on a stack of our own: enter returns < 0 to stop,
 * 0 to skip the node's children, 1 to walk them, and then leave is called
 * once they are done.
 */
struct export_walker {
	const struct kfit_cnode **stk;
	size_t sp, cap;
	int (*enter)(void *c, const struct kfit_cnode *n);
	void (*leave)(void *c, const struct kfit_cnode *n);
	void *c;
};

const char *export_node_name(const struct kfit_export_src *s, const struct kfit_cnode *n);
const char *export_irq_label(const struct kfit_export_src *s, const struct kfit_cnode *n,
			     char *buf, size_t size);
int export_walk(struct export_walker *w, const struct kfit_cnode *n, bool all);
const char *export_thread_label(const struct kfit_cthread *t, char *buf, size_t size);
int export_finish_file(FILE *f);

#endif
