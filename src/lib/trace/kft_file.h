/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_KFT_FILE_H
#define KFIT_KFT_FILE_H

/*
 * The reader's open file (struct kft_file, opaque in kft.h) and what its
 * parts share: private to the reader, kft_read.c, and kft_text.c, which
 * parses its description blocks
 */

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "kft.h"

struct sym {
	__u64 addr;
	__u32 pid;
	bool kernel;
	__u32 order;		/* in the file: the first of duplicates wins */
	const char *name;
};

struct unknown {
	__u64 addr;
	__u32 pid;
	bool kernel;
	char *name;
};

/* One function's arguments (ARGS): labels and enum names in the texts */
struct kft_fargs {
	int n;
	struct kfit_argfmt a[KFIT_ARGS_MAX];
};

struct kvs {
	struct kft_kv *kv;
	int n, alloc;
};

struct kft_file {
	int fd;			/* -1: mem */
	const unsigned char *mem;
	__u64 size;
	struct kft_header hdr;
	bool complete;
	__u64 missing;

	char **texts;		/* what the strings point into */
	size_t ntexts;
	struct kvs meta, stats;
	struct kft_func *funcs;
	int nfuncs;
	struct kft_fargs *fargs;	/* ARGS, by function id; labels in texts */
	int nfargs;
	struct kft_event *events;
	int nevents;
	struct kft_task *tasks;
	int ntasks;
	struct kft_name *names;
	int nnames;
	struct sym *syms;
	size_t nsyms, asyms;
	struct unknown *unk;	/* names of addresses not in SYMS, a hash */
	size_t nunk, unkmask;
	bool has_layout;
	bool has_names;		/* a NAMES block, even an empty one */

	struct kft_chunkinfo *chunks;
	int nchunks, achunks;
	int duplicates;		/* chunks found twice: the later copies left out */
	__u64 stats_at;		/* where the STATS block was (0: none) */

	char *err;
	size_t errlen;
};

/* Why the file is refused, into its err (kft_open's): -EBADMSG */
static inline int kft_file_fail(struct kft_file *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline int kft_file_fail(struct kft_file *f, const char *fmt, ...)
{
	va_list ap;

	if (f->err && f->errlen) {
		va_start(ap, fmt);
		vsnprintf(f->err, f->errlen, fmt, ap);
		va_end(ap);
	}
	return -EBADMSG;
}

/*
 * kft_text.c: a description block's text (p to end, NUL-terminated, the
 * file's own) parsed in place into f's tables: 0, or -EBADMSG with why
 * in f's err (out of memory too).
 */
int kft_text_parse_kv(struct kft_file *f, struct kvs *t, char *p, char *end);
int kft_text_parse_funcs(struct kft_file *f, char *p, char *end);
int kft_text_parse_events(struct kft_file *f, char *p, char *end);
int kft_text_parse_tasks(struct kft_file *f, char *p, char *end);
int kft_text_parse_names(struct kft_file *f, char *p, char *end);
int kft_text_parse_syms(struct kft_file *f, char *p, char *end);
int kft_text_parse_args(struct kft_file *f, char *p, char *end);
/* A whole unsigned number in base (no sign, no spaces): 0 or -1 */
int kft_text_parse_u64(const char *s, int base, __u64 *v);
/* SYMS entries in their sorted order (kft_sym looks them up by it) */
int kft_text_sym_cmp(const void *a, const void *b);

#endif
