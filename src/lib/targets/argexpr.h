/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_ARGEXPR_H
#define KFIT_ARGEXPR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The arguments a target asks for, as written: 'tcp_sendmsg(size)',
 * 'vfs_open(path->dentry->d_name.name)', 'sys:openat(filename, flags)',
 * 'c:malloc(u64 size)' (a type given: the list is then the function's
 * parameters in order, perf probe's way for code without DWARF), and
 * ':str' or ':u32'... after an item to read it so.
 */
struct kfit_argexpr {
	char *text;		/* the item as the user wrote it, its label */
	char *type;		/* the type word given before it, or NULL */
	char *as;		/* what follows ':' ("str", "s32"), or NULL */
	char **seg;		/* seg[0]: the parameter; then fields */
	bool *arrow;		/* arrow[i]: seg[i] is reached by '->', else '.' */
	int nseg;
};

struct kfit_arglist {
	struct kfit_argexpr *v;
	int n;
	bool typed;		/* the items give types: positional parameters */
};

/*
 * Split spec at its argument list: "vfs_read(count)" gives "vfs_read" in
 * base and "count" in *list (NULL when spec has none; "f()" gives an
 * empty one, which kfit_arglist_parse refuses). 0, or -EINVAL with the
 * reason in err (an unclosed list, text after it, no base, a base that
 * does not fit in baselen: never cut short).
 */
int kfit_argexpr_split(const char *spec, char *base, size_t baselen,
		       const char **list, size_t *listlen, char *err, size_t errlen);

/*
 * Parse a list of len bytes ("count, file->f_pos"). 0, or -EINVAL with the
 * reason in err, or -ENOMEM. Types are checked by kfit_argtype_kind.
 */
int kfit_arglist_parse(const char *list, size_t len, struct kfit_arglist *out,
		       char *err, size_t errlen);
void kfit_arglist_free(struct kfit_arglist *l);

/*
 * A type word's KFIT_RET_* kind (u8..u64, s8..s64, int, long, size_t,
 * bool, ptr) and whether it is a string (str, string): 0, or -EINVAL
 * for a word that is none of them.
 */
int kfit_argtype_kind(const char *word, unsigned char *kind, bool *is_str);

/* The type words, for messages: "u8 u16 ... str" */
const char *kfit_argtype_words(void);

#endif
