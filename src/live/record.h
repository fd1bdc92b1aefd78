/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_RECORD_H
#define KFIT_RECORD_H

#include <stdio.h>
#include <linux/types.h>
#include "kft.h"
#include "target.h"

/*
 * What a tool recording into a trace file (callgraph -o) needs beyond
 * the writer (src/lib/trace/kft.h) and the metadata text (src/lib/trace/kftmeta.h).
 */

/* A text block: fill(f, ctx) writes it into a memory stream; 0 or -errno */
typedef int (*kfit_record_fill)(FILE *f, void *ctx);
/* The text fill writes, malloc'd (*len bytes), or NULL (its error, or no memory) */
char *kfit_record_text(kfit_record_fill fill, void *ctx, size_t *len);
int kfit_record_block(struct kft_writer *w, enum kft_block_type type,
		   kfit_record_fill fill, void *ctx);

/*
 * FUNCS: the function table of tg, its ids the indexes: kernel functions
 * with their module ("vmlinux" for the kernel's own; system calls too),
 * user ones with their binary and its build-id.
 */
int kfit_record_funcs(FILE *f, const struct kfit_targets *tg);

/* A function's object as FUNCS has it, and its build-id ("": none); malloc'd */
struct kfit_record_obj {
	char *object, *build_id;
};
/*
 * The objects of tg's functions, v[i] function i's (tg->n of them, zeroed
 * first): what FUNCS records, for callgraph's --pprof live. 0 or -ENOMEM;
 * kfit_record_objects_free(v, tg->n) either way.
 */
int kfit_record_objects(const struct kfit_targets *tg, struct kfit_record_obj *v);
void kfit_record_objects_free(struct kfit_record_obj *v, int n);

/* STATS' "lost=N" and "lost.cpuN=N" (CPUs that lost some) */
void kfit_record_lost(FILE *f, const __u64 *lost, int ncpus);

/*
 * The closing line on stderr: "recorded N records (B bytes raw) into
 * FILE: S bytes, C chunks, L lost", S and C read back from the file.
 */
void kfit_record_summary(const char *path, __u64 records, __u64 raw_bytes, __u64 lost);

#endif
