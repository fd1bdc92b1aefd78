/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_TPFORMAT_H
#define KFIT_TPFORMAT_H

#include <stdbool.h>
#include <linux/types.h>

/* A field of a tracepoint's raw record, from its format file */
struct kfit_tpfield {
	const char *name;	/* "fd" */
	const char *type;	/* "unsigned int" */
	__u32 offset, size;
	bool is_signed;
	bool is_array;		/* "char comm[16]": printed as a string */
};

/*
 * One "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" line, leading
 * blanks skipped (in place: name and type point into l): 1 a field, 0 a
 * common_ one, -1 malformed.
 */
int kfit_tpformat_field(char *l, struct kfit_tpfield *fl);

/*
 * The fields (common_ ones left out) of tracepoint CATEGORY/NAME's format
 * in the mounted tracefs: *fields malloc'd, their strings in *text (free
 * both). Returns their number, or -errno (-ENOENT: no such tracepoint).
 */
int kfit_tpformat_read(const char *tp, struct kfit_tpfield **fields, char **text);

/*
 * How field f's value reads (KFIT_RET_*: size, sign, pointer): by its C
 * type where the field is wider than it (a system call's int is an
 * 8-byte field, unsigned in the format), else by its size and sign.
 */
unsigned char kfit_tpformat_kind(const struct kfit_tpfield *f);

#endif
