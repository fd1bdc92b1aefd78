/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A function's return value as its type has it: one byte per traced
 * function (the loader's, from BTF for kernel functions; the BPF side
 * reads the register through it). Shared by the BPF side and user space.
 */
#ifndef KFIT_RET_H
#define KFIT_RET_H

#include <linux/types.h>

#define KFIT_RET_SIZE	0x0f	/* bytes of the value: 1, 2, 4, 8; 0: the whole register */
#define KFIT_RET_SIGNED	0x10
#define KFIT_RET_PTR	0x20	/* a pointer: its failures are ERR_PTR values */
#define KFIT_RET_ERRNO	0x40	/* the kernel's convention: -4095 to -1 is -errno */
#define KFIT_RET_VOID	0x80	/* returns nothing */

#define KFIT_MAX_ERRNO	4095

/* The register's value as the type reads it: a 32-bit int's -2 is -2 */
static inline __s64 kfit_ret_value(__u64 reg, __u8 kind)
{
	int s = kind & KFIT_RET_SIGNED;

	if (kind & KFIT_RET_VOID)
		return 0;
	switch (kind & KFIT_RET_SIZE) {
	case 1:
		return s ? (__s64)(__s8)reg : (__s64)(__u8)reg;
	case 2:
		return s ? (__s64)(__s16)reg : (__s64)(__u16)reg;
	case 4:
		return s ? (__s64)(__s32)reg : (__s64)(__u32)reg;
	}
	return (__s64)reg;
}

/* Whether value v of a function of this kind says it failed */
static inline int kfit_ret_failed(__s64 v, __u8 kind)
{
	return (kind & KFIT_RET_ERRNO) && v < 0 && v >= -KFIT_MAX_ERRNO;
}

#endif
