// SPDX-License-Identifier: GPL-2.0
/*
 * The words of the perf event grammar (pmu.c): the tables of the named
 * and cache events, the names sysfs gives (PMUs, format fields, event
 * aliases) and, from either, the closest to a mistyped one.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fileio.h"
#include "pmu_int.h"
#include "strdist.h"

const struct named pmu_names_named[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "cgroup-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
};

/*
 * perf's spellings of the cache events: CACHE[-OP][-RESULT], each part
 * one of these words (perf's tools/perf/util/evsel.c tables), matched
 * whole and case-sensitive as perf's lexer does. Rows in the order of
 * PERF_COUNT_HW_CACHE_*, _OP_* and _RESULT_*; the first word is the one
 * --list shows.
 */
const char *const pmu_names_caches[][MAX_SPELLINGS] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node" },
};

const char *const pmu_names_cache_ops[][MAX_SPELLINGS] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};

const char *const pmu_names_cache_results[][MAX_SPELLINGS] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss" },
};

/* The operations each cache has (perf refuses the others): a bit per op */
const unsigned char pmu_names_cache_has_op[] = { 7, 5, 7, 7, 1, 1, 7 };

/* What --list shows: each cache with these suffixes */
static const struct cache_op {
	const char *suffix;
	int op;
	int result;
} list_ops[] = {
	{ "loads", PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "load-misses", PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS },
	{ "stores", PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "store-misses", PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_MISS },
	{ "prefetches", PERF_COUNT_HW_CACHE_OP_PREFETCH, PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "prefetch-misses", PERF_COUNT_HW_CACHE_OP_PREFETCH, PERF_COUNT_HW_CACHE_RESULT_MISS },
};

#define ROWS(t)	(sizeof(t) / sizeof(t[0]))

/* The rows pmu_int.h gives the files that see these tables only through it */
_Static_assert(ROWS(pmu_names_named) == NR_NAMED, "NR_NAMED");
_Static_assert(ROWS(pmu_names_caches) == NR_CACHES, "NR_CACHES");
_Static_assert(ROWS(pmu_names_cache_has_op) == NR_CACHES, "NR_CACHES");
_Static_assert(ROWS(pmu_names_cache_ops) == NR_CACHE_OPS, "NR_CACHE_OPS");
_Static_assert(ROWS(pmu_names_cache_results) == NR_CACHE_RESULTS, "NR_CACHE_RESULTS");
_Static_assert(ROWS(list_ops) == NR_OPS, "NR_OPS");

/* snprintf at buf + off; returns the new offset, which may pass len */
size_t __attribute__((format(printf, 4, 5)))
pmu_names_append(char *buf, size_t len, size_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (off >= len)
		return off;
	va_start(ap, fmt);
	n = vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
	return n < 0 ? off : off + n;
}

int pmu_names_no_dots(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* events/ holds X, X.unit, X.scale and the like: only X is an event */
bool pmu_names_is_alias(const char *name)
{
	static const char *const meta[] = { ".unit", ".scale", ".snapshot", ".per-pkg" };
	const char *dot = strrchr(name, '.');
	size_t i;

	for (i = 0; dot && i < sizeof(meta) / sizeof(meta[0]); i++)
		if (!strcmp(dot, meta[i]))
			return false;
	return name[0] != '.';
}

int pmu_names_alias_filter(const struct dirent *d)
{
	return pmu_names_is_alias(d->d_name);
}

/* Returns how many, or -errno (nm is then empty) */
int __attribute__((format(printf, 3, 4)))
pmu_names_read(struct names *nm, int (*filter)(const struct dirent *), const char *fmt, ...)
{
	char dir[PATH_MAX];
	va_list ap;
	int r;

	nm->d = NULL;
	nm->n = 0;
	va_start(ap, fmt);
	r = kfit_vpathf(dir, sizeof(dir), fmt, ap);
	va_end(ap);
	if (r)
		return r;
	r = scandir(dir, &nm->d, filter, alphasort);
	if (r < 0) {
		nm->d = NULL;
		return -errno;
	}
	nm->n = r;
	return r;
}

void pmu_names_free(struct names *nm)
{
	int i;

	for (i = 0; i < nm->n; i++)
		free(nm->d[i]);
	free(nm->d);
	nm->d = NULL;
	nm->n = 0;
}

/* "a, b, c" (each followed by suffix) into buf, "..." after max of them */
void pmu_names_join(const struct names *nm, int max, const char *suffix,
		    char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < nm->n; i++) {
		if (i == max) {
			pmu_names_append(buf, len, off, ", ...");
			return;
		}
		off = pmu_names_append(buf, len, off, "%s%s%s", i ? ", " : "",
			     nm->d[i]->d_name, suffix);
	}
}

/* The closest of the names in a and b to word, into buf ("" if none) */
int pmu_names_closest(const char *word, const struct names *a,
		      const struct names *b, char *buf, size_t len)
{
	const char **v = calloc(a->n + b->n + 1, sizeof(*v));
	int i, n = 0, r;

	buf[0] = '\0';
	if (!v)
		return 0;
	for (i = 0; i < a->n; i++)
		v[n++] = a->d[i]->d_name;
	for (i = 0; i < b->n; i++)
		v[n++] = b->d[i]->d_name;
	r = kfit_strdist_closest(word, v, n, 1, buf, len);
	free(v);
	return r;
}

void pmu_names_all(struct all_names *a)
{
	int i, j, n = 0;

	for (i = 0; i < NR_NAMED; i++)
		a->v[n++] = pmu_names_named[i].name;
	for (i = 0; i < NR_CACHES; i++)
		for (j = 0; j < NR_OPS; j++) {
			snprintf(a->cache[i * NR_OPS + j], sizeof(a->cache[0]),
				 "%s-%s", pmu_names_caches[i][0], list_ops[j].suffix);
			a->v[n++] = a->cache[i * NR_OPS + j];
		}
}
