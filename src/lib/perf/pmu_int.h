/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the perf event grammar share, from the bottom up:
 * pmu_names.c (the tables, the names sysfs gives, suggestions),
 * pmu_sysfs.c (the events sysfs and tracefs describe), pmu.c (the
 * grammar) and, beside it, pmu_list.c (--list, why an event is refused).
 */
#ifndef KFIT_PMU_INT_H
#define KFIT_PMU_INT_H

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/perf_event.h>
#include "pmu.h"

#define SYSFS_PMUS	"/sys/bus/event_source/devices"
#define MAX_RANGES	8	/* bit ranges of one format field */
#define LINE_LEN	512	/* longest sysfs line read (an alias's terms) */

struct named {
	const char *name;
	__u32 type;
	__u64 config;
};

/* Spellings of one part of a cache event's name (pmu_names.c) */
#define MAX_SPELLINGS	5

/* The tables' rows: pmu_names.c checks them against the tables */
#define NR_NAMED	28	/* pmu_names_named */
#define NR_CACHES	7	/* pmu_names_caches */
#define NR_CACHE_OPS	3	/* pmu_names_cache_ops */
#define NR_CACHE_RESULTS 2	/* pmu_names_cache_results */
#define NR_OPS		6	/* the suffixes --list shows on each cache */
#define NR_ALL		(NR_NAMED + NR_CACHES * NR_OPS)

extern const struct named pmu_names_named[];
extern const char *const pmu_names_caches[][MAX_SPELLINGS];
extern const char *const pmu_names_cache_ops[][MAX_SPELLINGS];
extern const char *const pmu_names_cache_results[][MAX_SPELLINGS];
extern const unsigned char pmu_names_cache_has_op[];

/* Every name the tables know, for suggestions */
struct all_names {
	const char *v[NR_ALL];
	char cache[NR_CACHES * NR_OPS][32];
};

/* Where a format field's value goes: bit ranges of config, config1 or config2 */
struct field {
	__u64 *dst;
	int nr;
	int lo[MAX_RANGES];
	int hi[MAX_RANGES];
	int bits;
};

/* Entries of a directory, sorted */
struct names {
	struct dirent **d;
	int n;
};

/*
 * One kfit_pmu_parse(). fail() and parse_u64() are here, inline, so
 * that pmu.c and pmu_sysfs.c, below it, can both use them.
 */
struct parse {
	struct kfit_pmu_event_list *l;	/* its n is put back if the parse fails */
	const char *sysfs;
	const char *tracefs;		/* NULL: the usual places */
	char *err;
	size_t errlen;
};

static inline int __attribute__((format(printf, 2, 3)))
fail(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Decimal, or hex after 0x; nothing else (no sign, no space, no octal) */
static inline int parse_u64(const char *s, __u64 *v)
{
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
	}
	if (!(base == 16 ? isxdigit((unsigned char)*s) : isdigit((unsigned char)*s)))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno || *end ? -1 : 0;
}

/* pmu_names.c */
size_t __attribute__((format(printf, 4, 5)))
pmu_names_append(char *buf, size_t len, size_t off, const char *fmt, ...);
int pmu_names_no_dots(const struct dirent *d);
bool pmu_names_is_alias(const char *name);
int pmu_names_alias_filter(const struct dirent *d);
int __attribute__((format(printf, 3, 4)))
pmu_names_read(struct names *nm, int (*filter)(const struct dirent *), const char *fmt, ...);
void pmu_names_free(struct names *nm);
void pmu_names_join(const struct names *nm, int max, const char *suffix,
		    char *buf, size_t len);
int pmu_names_closest(const char *word, const struct names *a,
		      const struct names *b, char *buf, size_t len);
void pmu_names_all(struct all_names *a);

/* pmu_sysfs.c */
void pmu_sysfs_pmu_of_type(struct parse *p, struct kfit_pmu_event *e);
int pmu_sysfs_format_parse(const char *s, struct perf_event_attr *a, struct field *f);
int pmu_sysfs_set_name(struct parse *p, struct kfit_pmu_event *e, const char *v,
		       const char *what);
int pmu_sysfs_parse_pmu_event(struct parse *p, struct kfit_pmu_event *e, const char *s);
int pmu_sysfs_parse_tracepoint(struct parse *p, struct kfit_pmu_event *e, const char *s);

#endif
