/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_FILTER_PARSE_H
#define KFIT_FILTER_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include "kfit/filter.h"

/*
 * A --filter expression, C's operators and precedence over integers:
 *   size > 4096 && flags & 1      ret == -ENOENT      comm == "bash"
 *   !(pid == 1 || cpu >= 2)       how->flags & 0x40
 * Operands: numbers (decimal, 0x hex, negative), errno names (ENOENT:
 * its number, so -ENOENT for a failure), ret, pid, tid, cpu, comm (only
 * compared, == or !=, with a "string"), and the arguments named in the
 * targets, by the name written there. Comparisons are signed, 64-bit.
 */
struct kfit_filter {
	struct kfit_finsn insn[KFIT_FILTER_MAX];
	int n;
	char *names[KFIT_ARGS_MAX];	/* the arguments it reads: operand k */
	int nnames;
	char comm[16];			/* comm's literal */
	bool has_comm;
	bool uses_ret;
	bool has_op;			/* an operator, not a lone name */
};

/*
 * Parse expr; names (nnames of them, NULL: any name) are the arguments
 * the targets capture. 0, or -EINVAL with "at column N: why" in err (the
 * known names listed for an unknown one), or -ENOMEM.
 */
int kfit_filter_parse(const char *expr, const char *const *names, int nnames,
		      struct kfit_filter *f, char *err, size_t errlen);
void kfit_filter_free(struct kfit_filter *f);

/*
 * Whether s reads as an expression (an operator, or comm), not a target
 * or a file: the word after --errors is its EXPR when it does
 */
bool kfit_filter_is_expr(const char *s);

#endif
