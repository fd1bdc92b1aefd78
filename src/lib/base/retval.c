// SPDX-License-Identifier: GPL-2.0
/* Return values as text (retval.h) */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "kfit/ret.h"
#include "retval.h"

const char *kfit_ret_str(__s64 v, __u8 kind, char *buf, size_t len)
{
	const char *e;

	if (kind & KFIT_RET_VOID)
		snprintf(buf, len, "-");
	else if (kfit_ret_failed(v, kind) && (e = strerrorname_np(-v)))
		snprintf(buf, len, "-%s", e);
	else if (kind & KFIT_RET_PTR)
		snprintf(buf, len, "0x%llx", (unsigned long long)v);
	else if ((kind & KFIT_RET_SIZE) && !(kind & KFIT_RET_SIGNED))
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%lld", (long long)v);
	return buf;
}

const char *kfit_ret_reg_str(__u64 reg, __u8 kind, char *buf, size_t len)
{
	if (kind & KFIT_RET_VOID)
		return NULL;
	return kfit_ret_str(kfit_ret_value(reg, kind), kind, buf, len);
}
