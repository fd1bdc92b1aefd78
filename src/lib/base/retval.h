/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_RETVAL_H
#define KFIT_RETVAL_H

#include <stddef.h>
#include <linux/types.h>

/*
 * Return value v of a function of kind (KFIT_RET_*, kfit/ret.h) as text:
 * a failure as its errno's name ("-ENOENT"), a pointer in hex, an
 * integer by its sign, void as "-". buf of len bytes (32 is enough).
 */
const char *kfit_ret_str(__s64 v, __u8 kind, char *buf, size_t len);
/* A return register read as kind has it (kfit_ret_value), as text; NULL for void */
const char *kfit_ret_reg_str(__u64 reg, __u8 kind, char *buf, size_t len);

#endif
