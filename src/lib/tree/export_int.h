/* SPDX-License-Identifier: GPL-2.0 */
/* What export.c shares with export_perfetto.c and export_pprof.c */
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

/*
 * The flame (export.c): the call trees merged by stack, a node per
 * (parent, class, name), for the folded stacks, the SVG and pprof
 */
enum fclass { FC_ROOT, FC_THREAD, FC_CODE, FC_KERNEL, FC_USER, FC_IRQ, FC_OFF, FC_LOST };

struct fnode {
	const char *name;
	__u64 self, total;
	__u64 bself, btotal;	/* a differential graph's: the before run's */
	__u64 calls, local;	/* exact mode: calls counted here, and their LOCAL (pprof) */
	__u64 off;		/* value left of it in the graph */
	__u32 parent, child, next;	/* 0: none; node 0 is the root, "all" */
	__u32 depth, nsub;	/* nsub: nodes in its subtree, itself included */
	__u8 cls;
	bool owned;		/* name allocated here */
};

struct fseen;

struct flame {
	struct fnode *v;
	__u32 n, cap;
	__u32 *slot;		/* (parent, class, name) -> index; 0: empty */
	__u32 mask;
	struct fseen *seen;	/* (parent, class, name's address) -> index */
	const struct kfit_export_src *src;
	__u32 *fstk;		/* frames of the nodes open in the walk */
	size_t fsp, fcap;
};

/* The flame of s's threads, ordered: 0 or -errno; export_flame_free frees it either way */
int export_flame_build(struct flame *fl, const struct kfit_export_src *s);
void export_flame_free(struct flame *fl);
/* A streamed flame's, once ended (kfit_export_flame_end); NULL before */
const struct flame *export_flame_of(const struct kfit_export_flame *f);

#endif
