/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_DURATION_H
#define KFIT_DURATION_H

#include <stddef.h>
#include <linux/types.h>

#define KFIT_NSEC	1ULL
#define KFIT_USEC	1000ULL
#define KFIT_MSEC	1000000ULL
#define KFIT_SEC	1000000000ULL

/*
 * Parse "750ns", "500us", "1.5ms", "2s", "1m" (minutes) into nanoseconds.
 * A bare number takes def_unit; with def_unit 0 a unit is required.
 * Returns 0, or -EINVAL (bad syntax, unknown unit, negative) / -ERANGE.
 */
int kfit_duration_parse(const char *s, __u64 def_unit, __u64 *ns);

/* v in decimal into buf (21 bytes at least), NUL-terminated: its length */
size_t kfit_u64_str(__u64 v, char *buf);
/* The same, zero-padded to width digits (at most 20): "%0*llu" */
size_t kfit_u64_str_pad(__u64 v, size_t width, char *buf);

/* "750ns", "1.50us", "12.3ms", "2.00s": three significant digits. */
char *kfit_duration_fmt(__u64 ns, char *buf, size_t len);

/* "1,473": a count with thousands separated by commas */
char *kfit_duration_fmt_thousands(__u64 n, char *buf, size_t len);

#endif
