// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <cmocka.h>
#include "testlib.h"
#include "pmu.h"

#define REAL_SYSFS "/sys/bus/event_source/devices"

static char dir[64];
static char sysfs[PATH_MAX], tracefs[PATH_MAX];
static struct kfit_pmu_env env;		/* the fake sysfs (with a cpu PMU) and tracefs */

/* A machine in miniature (tests/helpers/pmufiles.h) */
#include "../helpers/pmufiles.h"

/* Writes dir/rel, making its directories */
static int put(const char *rel, const char *text)
{
	char path[PATH_MAX], *c;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (c = path + strlen(dir) + 1; (c = strchr(c, '/')); c++) {
		*c = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			return -1;
		*c = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int setup(void **state)
{
	size_t i;

	(void)state;
	strcpy(dir, "/tmp/kfit-pmu-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	for (i = 0; i < sizeof(pmu_files) / sizeof(pmu_files[0]); i++)
		if (put(pmu_files[i][0], pmu_files[i][1]))
			return -1;
	snprintf(sysfs, sizeof(sysfs), "%s/sys", dir);
	snprintf(tracefs, sizeof(tracefs), "%s/trace", dir);
	env.sysfs = sysfs;
	env.tracefs = tracefs;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return t_rm_rf(dir);
}

static struct kfit_pmu_env env_of(const char *sub)
{
	static char paths[4][PATH_MAX];
	static int next;
	char *p = paths[next++ % 4];
	struct kfit_pmu_env e = { p, tracefs };

	snprintf(p, PATH_MAX, "%s/%s", dir, sub);
	return e;
}

/* Appends spec to l, which must work */
static void parse_into(struct kfit_pmu_event_list *l, const char *spec)
{
	char err[512] = "";

	if (kfit_pmu_parse(l, spec, &env, err, sizeof(err)))
		fail_msg("'%s' failed: %s", spec, err);
}

/* The one event spec gives */
static struct kfit_pmu_event parse1(const char *spec)
{
	struct kfit_pmu_event_list l = { 0 };
	struct kfit_pmu_event e;

	parse_into(&l, spec);
	if (l.n != 1)
		fail_msg("'%s' gave %d events", spec, l.n);
	e = l.ev[0];
	kfit_pmu_event_list_free(&l);
	return e;
}

/*
 * spec fails with an error containing want (equal to it when exact),
 * leaving a list of two events exactly as it was.
 */
static void parse_err_env(const char *spec, const char *want, bool exact,
			  const struct kfit_pmu_env *e)
{
	struct kfit_pmu_event_list l = { 0 };
	struct kfit_pmu_event before[3];
	char err[512] = "";

	parse_into(&l, "cycles,{cs,task-clock}:u");
	memcpy(before, l.ev, sizeof(before));
	if (!kfit_pmu_parse(&l, spec, e, err, sizeof(err)))
		fail_msg("'%s' parsed, want an error", spec);
	print_message("%-28s -> %s\n", spec, err);
	if (exact ? strcmp(err, want) : !strstr(err, want))
		fail_msg("'%s': error '%s', want '%s'", spec, err, want);
	assert_null(strchr(err, '\n'));
	assert_int_equal(l.n, 3);
	assert_memory_equal(l.ev, before, sizeof(before));
	kfit_pmu_event_list_free(&l);
}

static void parse_err(const char *spec, const char *want)
{
	parse_err_env(spec, want, false, &env);
}

static void parse_err_exact(const char *spec, const char *want)
{
	parse_err_env(spec, want, true, &env);
}

static void assert_excl(const struct kfit_pmu_event *e, int u, int k, int h)
{
	if (e->attr.exclude_user != u || e->attr.exclude_kernel != k ||
	    e->attr.exclude_hv != h)
		fail_msg("'%s': exclude user %d kernel %d hv %d, want %d %d %d",
			 e->name, e->attr.exclude_user, e->attr.exclude_kernel,
			 e->attr.exclude_hv, u, k, h);
}

/* What every event has, whatever its kind */
static void assert_common(const struct kfit_pmu_event *e, const char *name, __u32 type,
			  const char *pmu)
{
	assert_string_equal(e->name, name);
	assert_int_equal(e->attr.type, type);
	assert_int_equal(e->attr.size, sizeof(struct perf_event_attr));
	assert_string_equal(e->pmu, pmu);
	assert_int_equal(e->attr.disabled, 0);
	assert_int_equal(e->attr.inherit, 0);
	assert_int_equal(e->attr.sample_period, 0);
	assert_int_equal(e->attr.read_format, 0);
}

static void test_hardware(void **state)
{
	static const struct {
		const char *name;
		__u64 config;
	} hw[] = {
		{ "cycles", 0 }, { "cpu-cycles", 0 }, { "instructions", 1 },
		{ "cache-references", 2 }, { "cache-misses", 3 },
		{ "branch-instructions", 4 }, { "branches", 4 },
		{ "branch-misses", 5 }, { "bus-cycles", 6 },
		{ "stalled-cycles-frontend", 7 }, { "idle-cycles-frontend", 7 },
		{ "stalled-cycles-backend", 8 }, { "idle-cycles-backend", 8 },
		{ "ref-cycles", 9 },
	};
	struct kfit_pmu_event e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(hw) / sizeof(hw[0]); i++) {
		e = parse1(hw[i].name);
		assert_common(&e, hw[i].name, PERF_TYPE_HARDWARE, "cpu");
		assert_int_equal(e.attr.config, hw[i].config);
		assert_int_equal(e.attr.config1, 0);
		assert_excl(&e, 0, 0, 0);
		assert_int_equal(e.leader, 0);
		assert_false(e.grouped);
		assert_string_equal(e.unit, "");
		assert_true(e.scale == 1.0);
	}
}

static void test_cache(void **state)
{
	/* config = cache | op << 8 | result << 16, written out */
	static const struct {
		const char *name;
		__u64 config;
	} c[] = {
		{ "L1-dcache-loads", 0x00000 }, { "L1-dcache-load-misses", 0x10000 },
		{ "L1-dcache-stores", 0x00100 }, { "L1-dcache-store-misses", 0x10100 },
		{ "L1-dcache-prefetches", 0x00200 }, { "L1-dcache-prefetch-misses", 0x10200 },
		{ "L1-icache-loads", 0x00001 }, { "L1-icache-load-misses", 0x10001 },
		{ "LLC-loads", 0x00002 }, { "LLC-load-misses", 0x10002 },
		{ "LLC-stores", 0x00102 }, { "LLC-store-misses", 0x10102 },
		{ "LLC-prefetches", 0x00202 }, { "LLC-prefetch-misses", 0x10202 },
		{ "dTLB-loads", 0x00003 }, { "dTLB-load-misses", 0x10003 },
		{ "dTLB-stores", 0x00103 }, { "dTLB-store-misses", 0x10103 },
		{ "iTLB-loads", 0x00004 }, { "iTLB-load-misses", 0x10004 },
		{ "branch-loads", 0x00005 }, { "branch-load-misses", 0x10005 },
		{ "node-loads", 0x00006 }, { "node-load-misses", 0x10006 },
		{ "node-stores", 0x00106 }, { "node-prefetch-misses", 0x10206 },
	};
	struct kfit_pmu_event e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		e = parse1(c[i].name);
		assert_common(&e, c[i].name, PERF_TYPE_HW_CACHE, "cpu");
		if (e.attr.config != c[i].config)
			fail_msg("%s: config %#llx, want %#llx", c[i].name,
				 (unsigned long long)e.attr.config,
				 (unsigned long long)c[i].config);
	}
	/* perf's other spellings (its fixture compares them all) */
	e = parse1("L1-dcache");
	assert_int_equal(e.attr.config, 0);
	e = parse1("LLC-misses");
	assert_int_equal(e.attr.config, 0x10002);
	e = parse1("L2-loads");
	assert_int_equal(e.attr.config, 0x2);
	parse_err("L1-icache-stores", "'L1-icache-stores': that cache has no such operation");
	parse_err("LLC-loads-misses-refs", "unknown event 'LLC-loads-misses-refs'");
	parse_err("LLC-bogus", "unknown event 'LLC-bogus'");
}

static void test_software(void **state)
{
	static const struct {
		const char *name;
		__u64 config;
		const char *unit;
	} sw[] = {
		{ "cpu-clock", 0, "ns" }, { "task-clock", 1, "ns" },
		{ "page-faults", 2, "" }, { "faults", 2, "" },
		{ "context-switches", 3, "" }, { "cs", 3, "" },
		{ "cpu-migrations", 4, "" }, { "migrations", 4, "" },
		{ "minor-faults", 5, "" }, { "major-faults", 6, "" },
		{ "alignment-faults", 7, "" }, { "emulation-faults", 8, "" },
		{ "dummy", 9, "" },
	};
	struct kfit_pmu_event e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sw) / sizeof(sw[0]); i++) {
		e = parse1(sw[i].name);
		assert_common(&e, sw[i].name, PERF_TYPE_SOFTWARE, "software");
		assert_int_equal(e.attr.config, sw[i].config);
		assert_string_equal(e.unit, sw[i].unit);
		assert_true(e.scale == 1.0);
	}
}

static void test_raw(void **state)
{
	struct kfit_pmu_event e;

	(void)state;
	e = parse1("r13c");
	assert_common(&e, "r13c", PERF_TYPE_RAW, "cpu");
	assert_int_equal(e.attr.config, 0x13c);
	e = parse1("r0");
	assert_int_equal(e.attr.config, 0);
	e = parse1("rC0");
	assert_int_equal(e.attr.type, PERF_TYPE_RAW);
	assert_int_equal(e.attr.config, 0xc0);
	e = parse1("rffffffffffffffff");
	assert_true(e.attr.config == UINT64_MAX);
	e = parse1("r13c:u");
	assert_int_equal(e.attr.config, 0x13c);
	assert_excl(&e, 0, 1, 1);
	parse_err_exact("rXYZ", "unknown event 'rXYZ' (pmcstat --list shows them)");
	parse_err("r0x13c", "unknown event 'r0x13c'");
	parse_err("r1ffffffffffffffff", "unknown event 'r1ffffffffffffffff'");
	parse_err("r", "unknown event 'r'");
	parse_err("r13c ", "unknown event 'r13c '");
}

static void test_pmu_terms(void **state)
{
	struct kfit_pmu_event e;

	(void)state;
	e = parse1("cpu/event=0x3c,umask=0x01/");
	assert_common(&e, "cpu/event=0x3c,umask=0x01/", 4, "cpu");
	assert_int_equal(e.attr.config, 0x13c);
	assert_int_equal(e.attr.config1, 0);
	assert_excl(&e, 0, 0, 0);
	/* Decimal values, a flag without a value, a field high in config */
	e = parse1("cpu/event=60,umask=1,edge,cmask=255/");
	assert_int_equal(e.attr.config, 0x3c | 0x100 | 1 << 18 | 0xffULL << 24);
	e = parse1("cpu/edge=1/");
	assert_int_equal(e.attr.config, 1 << 18);
	e = parse1("cpu/edge=0/");
	assert_int_equal(e.attr.config, 0);
	e = parse1("cpu/top/");
	assert_true(e.attr.config == 1ULL << 63);
	e = parse1("cpu/ldlat=0xffff/");
	assert_int_equal(e.attr.config, 0);
	assert_int_equal(e.attr.config1, 0xffff);
	/* Several ranges: low bits first */
	e = parse1("cpu/split=0xab/");
	assert_int_equal(e.attr.config2, 0xa0b);
	e = parse1("cpu/split=0xff/");
	assert_int_equal(e.attr.config2, 0xf0f);
	/* Generic terms set the whole word */
	e = parse1("cpu/config=0x123456789,config1=7,config2=0xffffffffffffffff/");
	assert_true(e.attr.config == 0x123456789ULL);
	assert_int_equal(e.attr.config1, 7);
	assert_true(e.attr.config2 == UINT64_MAX);
	e = parse1("msr/config=5/");
	assert_int_equal(e.attr.type, 9);
	assert_int_equal(e.attr.config, 5);
	/* Later terms win, and a field clears its bits */
	e = parse1("cpu/event=1,event=2/");
	assert_int_equal(e.attr.config, 2);
	e = parse1("cpu/config=0xffff,event=0/");
	assert_int_equal(e.attr.config, 0xff00);
	/* The widest field takes any value */
	e = parse1("msr/event=0xffffffffffffffff/");
	assert_true(e.attr.config == UINT64_MAX);
	/* name= */
	e = parse1("cpu/event=0x3c,name=my-cycles/");
	assert_string_equal(e.name, "cpu/event=0x3c,name=my-cycles/");
	assert_string_equal(e.label, "my-cycles");
	assert_int_equal(e.attr.config, 0x3c);
	e = parse1("cpu/name=early,event=1/:u");
	assert_string_equal(e.label, "early");
	assert_excl(&e, 0, 1, 1);
	/* Modifiers after the slash, with or without ':' (perf takes both) */
	e = parse1("cpu/event=1/:k");
	assert_string_equal(e.name, "cpu/event=1/:k");
	assert_excl(&e, 1, 0, 1);
	e = parse1("cpu/event=1/uk");
	assert_string_equal(e.name, "cpu/event=1/uk");
	assert_int_equal(e.attr.config, 1);
	assert_excl(&e, 0, 0, 1);
}

static void test_pmu_aliases(void **state)
{
	struct kfit_pmu_event e;

	(void)state;
	e = parse1("msr/tsc/");
	assert_common(&e, "msr/tsc/", 9, "msr");
	assert_int_equal(e.attr.config, 0);
	assert_string_equal(e.unit, "");
	assert_true(e.scale == 1.0);
	e = parse1("msr/tsc/:u");
	assert_string_equal(e.name, "msr/tsc/:u");
	assert_excl(&e, 0, 1, 1);
	/* Several terms, one in config1 */
	e = parse1("cpu/mem-loads/");
	assert_common(&e, "cpu/mem-loads/", 4, "cpu");
	assert_int_equal(e.attr.config, 0x1cd);
	assert_int_equal(e.attr.config1, 3);
	/* A term after the alias overrides it */
	e = parse1("cpu/mem-loads,ldlat=30/");
	assert_int_equal(e.attr.config, 0x1cd);
	assert_int_equal(e.attr.config1, 30);
	e = parse1("cpu/mem-loads,umask=2,edge/");
	assert_int_equal(e.attr.config, 0x402cd);
	/* Unit and scale */
	e = parse1("power/energy-pkg/");
	assert_common(&e, "power/energy-pkg/", 10, "power");
	assert_int_equal(e.attr.config, 2);
	assert_string_equal(e.unit, "Joules");
	assert_true(e.scale > 2.3283064365e-10 && e.scale < 2.3283064366e-10);
	e = parse1("cpu/x/");
	assert_int_equal(e.attr.config, 0x3c);
	assert_string_equal(e.unit, "MiB");
	assert_true(e.scale == 0.5);
}

static void test_tracepoints(void **state)
{
	struct kfit_pmu_event e;

	(void)state;
	e = parse1("sched:sched_switch");
	assert_common(&e, "sched:sched_switch", PERF_TYPE_TRACEPOINT, "tracepoint");
	assert_int_equal(e.attr.config, 316);
	assert_excl(&e, 0, 0, 0);
	e = parse1("sched:sched_wakeup:k");
	assert_string_equal(e.name, "sched:sched_wakeup:k");
	assert_int_equal(e.attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(e.attr.config, 317);
	assert_excl(&e, 1, 0, 1);
}

static void test_modifiers(void **state)
{
	static const struct {
		const char *spec;
		int u, k, h;
	} m[] = {
		{ "cycles:u", 0, 1, 1 }, { "cycles:k", 1, 0, 1 },
		{ "cycles:h", 1, 1, 0 }, { "cycles:uk", 0, 0, 1 },
		{ "cycles:ku", 0, 0, 1 }, { "cycles:uh", 0, 1, 0 },
		{ "cycles:ukh", 0, 0, 0 }, { "cycles:hu", 0, 1, 0 },
		{ "cs:k", 1, 0, 1 }, { "LLC-loads:u", 0, 1, 1 },
		{ "msr/tsc/:kh", 1, 0, 0 }, { "sched:sched_switch:u", 0, 1, 1 },
	};
	struct kfit_pmu_event e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		e = parse1(m[i].spec);
		assert_string_equal(e.name, m[i].spec);
		assert_excl(&e, m[i].u, m[i].k, m[i].h);
	}
	e = parse1("cycles:u");
	assert_int_equal(e.attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(e.attr.config, 0);
}

static void test_lists(void **state)
{
	struct kfit_pmu_event_list l = { 0 };

	(void)state;
	parse_into(&l, "cycles,instructions:u,cs");
	assert_int_equal(l.n, 3);
	assert_string_equal(l.ev[0].name, "cycles");
	assert_string_equal(l.ev[1].name, "instructions:u");
	assert_int_equal(l.ev[1].attr.config, 1);
	assert_int_equal(l.ev[1].attr.exclude_kernel, 1);
	assert_string_equal(l.ev[2].name, "cs");
	assert_int_equal(l.ev[2].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(l.ev[0].leader, 0);
	assert_int_equal(l.ev[1].leader, 1);
	assert_int_equal(l.ev[2].leader, 2);
	assert_false(l.ev[0].grouped || l.ev[1].grouped || l.ev[2].grouped);
	/* Commas inside pmu/.../ are the PMU's; a later call appends */
	parse_into(&l, "cpu/event=0x3c,umask=1/,msr/tsc/,sched:sched_switch");
	assert_int_equal(l.n, 6);
	assert_string_equal(l.ev[3].name, "cpu/event=0x3c,umask=1/");
	assert_int_equal(l.ev[3].attr.config, 0x13c);
	assert_string_equal(l.ev[4].name, "msr/tsc/");
	assert_string_equal(l.ev[5].name, "sched:sched_switch");
	assert_int_equal(l.ev[5].leader, 5);
	assert_false(l.ev[5].grouped);
	kfit_pmu_event_list_free(&l);
}

static void test_groups(void **state)
{
	struct kfit_pmu_event_list l = { 0 };

	(void)state;
	parse_into(&l, "{cycles,instructions}");
	assert_int_equal(l.n, 2);
	assert_true(l.ev[0].grouped && l.ev[1].grouped);
	assert_int_equal(l.ev[0].leader, 0);
	assert_int_equal(l.ev[1].leader, 0);
	assert_string_equal(l.ev[1].name, "instructions");
	assert_excl(&l.ev[1], 0, 0, 0);

	/* Groups among single events, commas of a PMU inside a group */
	l.n = 0;
	parse_into(&l, "cs,{cycles,cpu/event=1,umask=2/,msr/tsc/},task-clock");
	assert_int_equal(l.n, 5);
	assert_false(l.ev[0].grouped);
	assert_int_equal(l.ev[0].leader, 0);
	assert_true(l.ev[1].grouped && l.ev[2].grouped && l.ev[3].grouped);
	assert_int_equal(l.ev[1].leader, 1);
	assert_int_equal(l.ev[2].leader, 1);
	assert_int_equal(l.ev[3].leader, 1);
	assert_int_equal(l.ev[2].attr.config, 0x201);
	assert_string_equal(l.ev[2].name, "cpu/event=1,umask=2/");
	assert_false(l.ev[4].grouped);
	assert_int_equal(l.ev[4].leader, 4);

	/* A group's modifier applies to every member and shows in its name */
	parse_into(&l, "{cycles,sched:sched_switch,msr/tsc/}:u");
	assert_int_equal(l.n, 8);
	assert_string_equal(l.ev[5].name, "cycles:u");
	assert_string_equal(l.ev[6].name, "sched:sched_switch:u");
	assert_string_equal(l.ev[7].name, "msr/tsc/:u");
	assert_int_equal(l.ev[6].attr.config, 316);
	assert_excl(&l.ev[5], 0, 1, 1);
	assert_excl(&l.ev[6], 0, 1, 1);
	assert_excl(&l.ev[7], 0, 1, 1);
	assert_int_equal(l.ev[5].leader, 5);
	assert_int_equal(l.ev[7].leader, 5);

	/*
	 * The group's modifier adds to a member's own (perf: a member that
	 * excludes levels already has only the ones named let in)
	 */
	parse_into(&l, "{cycles:k,instructions}:uh");
	assert_string_equal(l.ev[8].name, "cycles:k:uh");
	assert_excl(&l.ev[8], 0, 0, 0);
	assert_excl(&l.ev[9], 0, 1, 0);
	/* A member's own modifier, no group modifier */
	parse_into(&l, "{cycles:k,instructions}");
	assert_excl(&l.ev[10], 1, 0, 1);
	assert_excl(&l.ev[11], 0, 0, 0);
	assert_int_equal(l.ev[11].leader, 10);
	/* A group of one */
	parse_into(&l, "{cs}");
	assert_int_equal(l.n, 13);
	assert_true(l.ev[12].grouped);
	assert_int_equal(l.ev[12].leader, 12);
	kfit_pmu_event_list_free(&l);
}

static void test_syntax_errors(void **state)
{
	struct kfit_pmu_event_list l = { 0 };
	char err[64] = "x";

	(void)state;
	parse_err("", "no event given");
	parse_err("cycles,,cs", "empty event in 'cycles,,cs'");
	parse_err("zzz,,cs", "empty event");
	parse_err(",cycles", "empty event");
	parse_err("cycles,", "empty event");
	parse_err(",", "empty event");
	parse_err("{}", "empty group in '{}'");
	parse_err("{}:u", "empty group");
	parse_err("{cycles,}", "empty event in group '{cycles,}'");
	parse_err("{zzz,,cs}", "empty event in group");
	parse_err("{,cycles}", "empty event in group");
	parse_err("{cycles,instructions", "unclosed '{' in '{cycles,instructions'");
	parse_err("cs,{cycles", "unclosed '{'");
	parse_err("{cycles,{cs}}", "nested groups are not supported");
	parse_err("{{cycles}}", "nested groups");
	parse_err("{cycles}x", "unexpected 'x' after the group in '{cycles}x'");
	parse_err("{cycles}{cs}", "after the group");
	parse_err("cycles}", "unexpected '}' in 'cycles}'");
	parse_err("1x{cs}", "bad group name '1x'");
	parse_err("cycles{cs", "unclosed '{'");
	parse_err("cpu/event=1", "missing closing '/' in 'cpu/event=1'");
	parse_err("cpu/event=1:u", "missing closing '/' in 'cpu/event=1'");
	parse_err("cpu/event=1,umask=1", "missing closing '/'");
	parse_err("{cpu/event=1,cs}", "missing closing '/'");
	parse_err("/tsc/", "missing PMU name in '/tsc/'");
	parse_err("msr/tsc/x", "unexpected 'x' after the closing '/' in 'msr/tsc/x'");
	parse_err("msr/tsc/,x/", "missing closing '/'");
	parse_err("msr/a/b/", "too many '/' in 'msr/a/b/'");
	parse_err(":u", "missing event name in ':u'");
	parse_err("cycles:", "missing modifier after ':' in 'cycles:'");
	parse_err("cpu/event=1,,umask=1/", "empty term in 'cpu/event=1,,umask=1/'");
	parse_err("cpu/,event=1/", "empty term");
	parse_err("cpu/=5/", "empty term");
	parse_err("sched:", "bad tracepoint 'sched:'");
	parse_err("sched:sw*", "no tracepoint matches 'sched:sw*'");
	/* No list or no room for the message: still an error, never a crash */
	assert_int_equal(kfit_pmu_parse(NULL, "cycles", &env, err, sizeof(err)), -1);
	assert_int_equal(kfit_pmu_parse(&l, NULL, &env, err, sizeof(err)), -1);
	assert_int_equal(kfit_pmu_parse(&l, "cyles", &env, NULL, 0), -1);
	assert_int_equal(kfit_pmu_parse(&l, "cyles", &env, err, 1), -1);
	assert_string_equal(err, "");
	assert_int_equal(kfit_pmu_parse(&l, "cyles", &env, err, 8), -1);
	assert_string_equal(err, "unknown");
	assert_int_equal(l.n, 0);
	kfit_pmu_event_list_free(&l);
}

static void test_unknown(void **state)
{
	(void)state;
	parse_err_exact("cyles", "unknown event 'cyles' (did you mean 'cycles'?)");
	parse_err_exact("instrucitons",
			"unknown event 'instrucitons' (did you mean 'instructions'?)");
	parse_err_exact("LLC-load-mises",
			"unknown event 'LLC-load-mises' (did you mean 'LLC-load-misses'?)");
	parse_err_exact("task-clck", "unknown event 'task-clck' (did you mean 'task-clock'?)");
	parse_err_exact("xyzzy-plugh", "unknown event 'xyzzy-plugh' (pmcstat --list shows them)");
	/* A typo before modifiers is still found */
	parse_err("cyles:u", "unknown event 'cyles' (did you mean 'cycles'?)");
	/* Only the bad one is reported, and nothing is added */
	parse_err("cycles,instructions,bogus-event", "unknown event 'bogus-event'");
	parse_err("{cycles,bogus-event}:u", "unknown event 'bogus-event'");
}

static void test_bad_modifiers(void **state)
{
	(void)state;
	parse_err_exact("cycles:z",
			"unknown modifier 'z' in 'cycles:z' (u, k, h, G, H, I, p, P, S, D, e)");
	parse_err_exact("cycles:uz",
			"unknown modifier 'z' in 'cycles:uz' (u, k, h, G, H, I, p, P, S, D, e)");
	parse_err_exact("cycles:uu", "modifier 'u' given twice in 'cycles:uu'");
	parse_err_exact("cycles:pppp", "at most 3 p (ppp) in 'cycles:pppp'");
	parse_err_exact("cycles:W", "modifier 'W' (weak group) is not supported in 'cycles:W'");
	parse_err("{cycles,cs}:b", "modifier 'b' (BPF counter) is not supported");
	parse_err("cycles:ukhGHIpppPSDeukh", "too many modifiers");
	parse_err("r13c:x", "unknown modifier 'x' in 'r13c:x'");
	parse_err("msr/tsc/:z", "unknown modifier 'z' in 'msr/tsc/:z'");
	parse_err("msr/tsc/:", "missing modifier");
	parse_err("sched:sched_switch:z", "unknown modifier 'z' in 'sched:sched_switch:z'");
	parse_err("{cycles,cs}:x", "unknown modifier 'x' in '{cycles,cs}:x'");
	parse_err("{cycles,cs}:", "missing modifier");
	parse_err("{cycles:q,cs}", "unknown modifier 'q' in 'cycles:q'");
}

static void test_pmu_errors(void **state)
{
	char want[PATH_MAX + 128];

	(void)state;
	parse_err_exact("foo/x/",
			"no PMU 'foo' (PMUs here: cpu, msr, power, software, tracepoint)");
	parse_err("../type/", "no PMU '..'");
	parse_err("msr_and_a_name_far_too_long_for_pmu/x/", "no PMU");
	parse_err_exact("msr/umask=1/",
			"PMU 'msr' has no format field or event 'umask' (fields: event; events: tsc)");
	parse_err_exact("msr/tsx/",
			"PMU 'msr' has no format field or event 'tsx' (did you mean 'tsc'?)");
	parse_err_exact("cpu/unmask=1/",
			"PMU 'cpu' has no format field or event 'unmask' (did you mean 'umask'?)");
	/* An alias of another PMU; the .unit and .scale files are not aliases */
	parse_err("cpu/tsc/", "PMU 'cpu' has no format field or event 'tsc'");
	parse_err("cpu/x.scale/", "no format field or event 'x.scale'");
	parse_err("cpu/../", "no format field or event '..'");
	parse_err_exact("cpu/umask=0x1ff/", "value 0x1ff does not fit field 'umask' (8 bits)");
	parse_err_exact("cpu/umask=256/", "value 256 does not fit field 'umask' (8 bits)");
	parse_err("cpu/edge=2/", "value 2 does not fit field 'edge' (1 bit)");
	parse_err("cpu/ldlat=0x10000/", "(16 bits)");
	parse_err("cpu/split=0x100/", "(8 bits)");
	parse_err("cpu/event=0xg/", "bad value '0xg' for 'event' in 'cpu/event=0xg/'");
	parse_err("cpu/event=/", "bad value '' for 'event'");
	parse_err("cpu/event=-1/", "bad value '-1'");
	parse_err("cpu/event=+1/", "bad value '+1'");
	parse_err("cpu/event= 1/", "bad value ' 1'");
	parse_err("cpu/event=0x/", "bad value '0x'");
	parse_err("cpu/event=12ab/", "bad value '12ab'");
	parse_err("cpu/config=99999999999999999999/", "bad value '99999999999999999999'");
	parse_err("cpu/config=0x10000000000000000/", "bad value");
	parse_err("cpu/name=/", "empty name= in 'cpu/name=/'");
	parse_err("cpu/name/", "empty name=");
	parse_err("cpu/mem-loads=1/", "'mem-loads' is an event of PMU 'cpu': it takes no value");
	snprintf(want, sizeof(want), "bad format 'nonsense' in %s/cpu/format/bad", sysfs);
	parse_err_exact("cpu/bad=1/", want);
	snprintf(want, sizeof(want), "bad value 'zz' for 'event' in '%s/cpu/events/broken'",
		 sysfs);
	parse_err("cpu/broken/", want);
	/* Aliases are made of format fields, not of other aliases */
	snprintf(want, sizeof(want), "PMU 'cpu' has no format field 'mem-loads' (in %s/cpu/events/nested)",
		 sysfs);
	parse_err_exact("cpu/nested/", want);
	snprintf(want, sizeof(want), "bad scale 'lots' in %s/cpu/events/badscale.scale", sysfs);
	parse_err_exact("cpu/badscale/", want);
	/* A sysfs with no PMU at all */
	parse_err_env("msr/tsc/", "no PMU 'msr' (none in /nonexistent/kfit)", true,
		      &(struct kfit_pmu_env){ "/nonexistent/kfit", tracefs });
}

static void test_tracepoint_errors(void **state)
{
	struct kfit_pmu_env e = { sysfs, NULL };
	char want[PATH_MAX + 256], path[PATH_MAX];

	(void)state;
	snprintf(want, sizeof(want),
		 "no tracepoint 'sched:sched_swich' in %s/events (did you mean 'sched:sched_switch'?)",
		 tracefs);
	parse_err_exact("sched:sched_swich", want);
	snprintf(want, sizeof(want), "no tracepoint 'sched:nothing_like_this' in %s/events",
		 tracefs);
	parse_err_exact("sched:nothing_like_this", want);
	snprintf(want, sizeof(want), "no tracepoint 'foo:bar' in %s/events (no category 'foo')",
		 tracefs);
	parse_err_exact("foo:bar", want);
	/* there, but no tracepoint: not "did you mean 'ftrace:bprint'?" */
	snprintf(want, sizeof(want), "'ftrace:bprint' cannot be counted: an event of the tracer "
		 "itself, not a tracepoint (no id in %s/events/ftrace/bprint; perf stat says "
		 "<not supported>)", tracefs);
	parse_err_exact("ftrace:bprint", want);
	parse_err("sched:bad_id", "bad id 'abc'");
	parse_err("..:x", "bad tracepoint '..:x'");
	parse_err("sched:..", "bad tracepoint 'sched:..'");
	parse_err(":sched_switch", "bad tracepoint ':sched_switch'");
	/* tracefs given but not there */
	snprintf(path, sizeof(path), "%s/notrace", dir);
	e.tracefs = path;
	snprintf(want, sizeof(want), "cannot look up tracepoint 'sched:sched_switch': no tracefs at %s",
		 path);
	parse_err_env("sched:sched_switch", want, false, &e);
	/* Not a tracepoint problem: no tracefs needed for the rest */
	e.tracefs = "/nonexistent/kfit";
	parse_err_env("cyles", "did you mean 'cycles'", false, &e);
}

static void test_too_many(void **state)
{
	struct kfit_pmu_event_list l = { 0 };
	size_t len = KFIT_PMU_MAX_EVENTS * 3 + 8, off = 0;
	char err[128] = "", *spec = malloc(len);
	struct kfit_pmu_event last;
	int i;

	(void)state;
	assert_non_null(spec);
	/* 4096 in one argument fit */
	for (i = 0; i < KFIT_PMU_MAX_EVENTS; i++)
		off += snprintf(spec + off, len - off, "%scs", i ? "," : "");
	parse_into(&l, spec);
	assert_int_equal(l.n, KFIT_PMU_MAX_EVENTS);
	assert_int_equal(l.ev[KFIT_PMU_MAX_EVENTS - 1].leader, KFIT_PMU_MAX_EVENTS - 1);
	last = l.ev[KFIT_PMU_MAX_EVENTS - 1];
	assert_int_equal(kfit_pmu_parse(&l, "cycles", &env, err, sizeof(err)), -1);
	assert_string_equal(err, "too many events: 4097 (at most 4096)");
	assert_int_equal(l.n, KFIT_PMU_MAX_EVENTS);
	assert_memory_equal(&l.ev[KFIT_PMU_MAX_EVENTS - 1], &last, sizeof(last));

	/* 4097 in one argument: none added */
	l.n = 0;
	snprintf(spec + off, len - off, ",cs");
	assert_int_equal(kfit_pmu_parse(&l, spec, &env, err, sizeof(err)), -1);
	assert_string_equal(err, "too many events: 4097 (at most 4096)");
	assert_int_equal(l.n, 0);

	/* A group that does not fit is not added in part */
	spec[off - 3] = '\0';
	parse_into(&l, spec);
	assert_int_equal(l.n, KFIT_PMU_MAX_EVENTS - 1);
	assert_int_equal(kfit_pmu_parse(&l, "{cycles,instructions}", &env, err,
					   sizeof(err)), -1);
	assert_string_equal(err, "too many events: 4097 (at most 4096)");
	assert_int_equal(l.n, KFIT_PMU_MAX_EVENTS - 1);
	free(spec);
	kfit_pmu_event_list_free(&l);
}

static void test_long_input(void **state)
{
	struct kfit_pmu_event_list l = { 0 };
	char spec[4096], err[64];
	struct kfit_pmu_event e;
	size_t off;

	(void)state;
	/* A name longer than the name field is cut, the event is whole */
	off = snprintf(spec, sizeof(spec), "cpu/event=0x3c");
	while (off < 300)
		off += snprintf(spec + off, sizeof(spec) - off, ",umask=1");
	snprintf(spec + off, sizeof(spec) - off, "/");
	e = parse1(spec);
	assert_int_equal(strlen(e.name), KFIT_PMU_EVENT_NAME_LEN - 1);
	assert_memory_equal(e.name, spec, KFIT_PMU_EVENT_NAME_LEN - 1);
	assert_int_equal(e.attr.config, 0x13c);
	/* Long garbage: an error cut to the buffer */
	memset(spec, 'a', sizeof(spec) - 1);
	spec[sizeof(spec) - 1] = '\0';
	assert_int_equal(kfit_pmu_parse(&l, spec, &env, err, sizeof(err)), -1);
	assert_int_equal(strlen(err), sizeof(err) - 1);
	assert_int_equal(l.n, 0);
	spec[100] = '/';
	spec[3000] = '/';
	assert_int_equal(kfit_pmu_parse(&l, spec, &env, err, sizeof(err)), -1);
	assert_int_equal(l.n, 0);
	/* A name= that does not fit */
	off = snprintf(spec, sizeof(spec), "cpu/name=");
	memset(spec + off, 'n', 200);
	snprintf(spec + off + 200, sizeof(spec) - off - 200, "/");
	parse_err(spec, "too long (at most 127 characters)");
	kfit_pmu_event_list_free(&l);
}

static struct kfit_pmu_event ev_of(const char *spec)
{
	return parse1(spec);
}

static void why_is(const char *spec, int err, const struct kfit_pmu_env *e,
		   const char *want, bool exact)
{
	struct kfit_pmu_event ev = ev_of(spec);
	char buf[512] = "";
	const char *r = kfit_pmu_event_why(&ev, err, e, buf, sizeof(buf));

	assert_ptr_equal(r, buf);
	print_message("%s, %d -> %s\n", spec, err, buf);
	if (exact ? strcmp(buf, want) : !strstr(buf, want))
		fail_msg("%s, errno %d: '%s', want '%s'", spec, err, buf, want);
}

static void test_why(void **state)
{
	struct kfit_pmu_env nocpu = env_of("sys-nocpu"), sw = env_of("sys-sw");
	struct kfit_pmu_env hybrid = env_of("sys-hybrid");
	static const char no_pmu[] =
		"this machine exposes no hardware PMU (usual in VMs); software events and msr/, power/ counters work";
	char paranoid[32] = "", small[8], buf[256];
	struct kfit_pmu_event ev;
	FILE *f;

	(void)state;
	/* Hardware, cache and raw events where there is no CPU PMU */
	why_is("cycles", ENOENT, &nocpu, no_pmu, true);
	why_is("cycles", -ENOENT, &nocpu, no_pmu, true);
	why_is("cycles:u", EOPNOTSUPP, &nocpu, no_pmu, true);
	why_is("LLC-loads", ENODEV, &nocpu, no_pmu, true);
	why_is("r13c", ENOENT, &nocpu, no_pmu, true);
	why_is("cpu/event=1/", ENOENT, &nocpu, no_pmu, true);
	why_is("cycles", ENOENT, &sw,
	       "this machine exposes no hardware PMU (usual in VMs); only software events work", true);
	/* With a CPU PMU */
	why_is("cycles", ENOENT, &env, "the CPU's PMU does not know this event", true);
	why_is("r13c", -ENOENT, &env, "the CPU's PMU does not know this event", true);
	why_is("cycles", ENOENT, &hybrid, "the CPU's PMU does not know this event", true);
	/* Other PMUs are not the CPU's */
	why_is("msr/tsc/", ENOENT, &nocpu, "the msr PMU does not know this event", true);
	why_is("cycles", EINVAL, &nocpu,
	       "the kernel rejected its attributes (modifier or PMU term not supported?)", true);
	why_is("cs", EINVAL, &env,
	       "the kernel rejected its attributes (modifier or PMU term not supported?)", true);
	why_is("msr/tsc/:u", EINVAL, &nocpu,
	       "the msr PMU cannot count by privilege level: drop the :u/:k/:h modifier", true);
	why_is("msr/tsc/", EINVAL, &nocpu,
	       "the kernel rejected its attributes (modifier or PMU term not supported?)", true);
	why_is("cycles", EBUSY, &env,
	       "the counter is in use by someone else (e.g. the NMI watchdog: sysctl kernel.nmi_watchdog=0)",
	       true);
	why_is("cs", EMFILE, &env, "too many open files (raise ulimit -n)", true);
	why_is("cs", ENOMEM, &env, strerror(ENOMEM), true);
	why_is("cs", -E2BIG, &env, strerror(E2BIG), true);
	why_is("cycles", EOPNOTSUPP, &env, "does not support", false);
	why_is("msr/tsc/", ENODEV, &env, "the msr PMU cannot count on this CPU", true);
	why_is("cycles", EACCES, &env, "/proc/sys/kernel/perf_event_paranoid", false);
	why_is("cycles", EPERM, &env, "CAP_PERFMON", false);
	why_is("sched:sched_switch", -EACCES, &nocpu, "CAP_PERFMON", false);
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		char want[64];

		assert_non_null(fgets(paranoid, sizeof(paranoid), f));
		fclose(f);
		paranoid[strcspn(paranoid, "\n")] = '\0';
		snprintf(want, sizeof(want), "perf_event_paranoid is %s)", paranoid);
		why_is("cycles", EACCES, &env, want, false);
		/* The same words for any perf_event_open (tracecheck's perf_hw) */
		assert_non_null(strstr(kfit_pmu_perf_denied(buf, sizeof(buf)), want));
		assert_non_null(strstr(buf, "needs root or CAP_PERFMON"));
	}
	/* A small buffer is cut, never overrun */
	ev = ev_of("cycles");
	memset(small, 'x', sizeof(small));
	kfit_pmu_event_why(&ev, ENOENT, &nocpu, small, 4);
	assert_string_equal(small, "thi");
	assert_int_equal(small[4], 'x');
}

static char *list_of(const struct kfit_pmu_env *e)
{
	struct t_cap c;

	kfit_pmu_list(t_cap_open(&c), e);
	return t_cap_close(&c);
}

static void assert_has(const char *text, const char *want)
{
	if (!text || !strstr(text, want))
		fail_msg("'%s' not in the list:\n%s", want, text ? text : "(none)");
}

static void test_list(void **state)
{
	struct kfit_pmu_env none = { "/nonexistent/kfit", "/nonexistent/kfit" };
	char *text = list_of(&env), want[PATH_MAX + 128];
	const char *hw, *cache, *sw, *pmu;

	(void)state;
	hw = strstr(text, "  cycles\n");
	cache = strstr(text, "  L1-dcache-load-misses\n");
	sw = strstr(text, "  task-clock\n");
	pmu = strstr(text, "PMU msr (type 9)");
	assert_true(hw && cache && sw && pmu);
	assert_true(hw < cache && cache < sw && sw < pmu);
	assert_has(text, "  ref-cycles\n");
	assert_has(text, "  node-prefetch-misses\n");
	assert_has(text, "  cs\n");
	assert_has(text, "  dummy\n");
	assert_has(text, "PMU cpu (type 4): cpu/");
	assert_has(text, "cmask=N,");
	assert_has(text, ",edge,");
	assert_has(text, "  msr/tsc/\n");
	assert_has(text, "  cpu/mem-loads/\n");
	assert_has(text, "  cpu/x/ (MiB)\n");
	assert_has(text, "  power/energy-pkg/ (Joules)\n");
	assert_null(strstr(text, "x.scale"));
	assert_null(strstr(text, "energy-pkg.unit"));
	snprintf(want, sizeof(want), "category:name, e.g. sched:sched_switch; see %s/available_events",
		 tracefs);
	assert_has(text, want);
	/* Every line ends, none is empty */
	assert_int_equal(text[strlen(text) - 1], '\n');
	assert_null(strstr(text, "\n\n"));
	free(text);

	/* Nothing in sysfs or tracefs: the named events still, and why not the rest */
	text = list_of(&none);
	assert_has(text, "  cycles\n");
	assert_null(strstr(text, "PMU "));
	assert_has(text, "tracefs is not mounted");
	free(text);
}

/* Against this machine's own sysfs and tracefs */
static void test_real_sys(void **state)
{
	char type[32] = "", id[32] = "", buf[512];
	struct kfit_pmu_event_list l = { 0 };
	struct kfit_pmu_event e;
	FILE *f;

	(void)state;
	if (access(REAL_SYSFS "/msr", F_OK))
		skip();
	f = fopen(REAL_SYSFS "/msr/type", "r");
	assert_non_null(f);
	assert_non_null(fgets(type, sizeof(type), f));
	fclose(f);
	assert_int_equal(kfit_pmu_parse(&l, "msr/tsc/,msr/tsc/:u", NULL, buf, sizeof(buf)), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.ev[0].attr.type, strtoul(type, NULL, 10));
	assert_int_equal(l.ev[0].attr.config, 0);
	assert_string_equal(l.ev[0].pmu, "msr");
	assert_int_equal(l.ev[1].attr.exclude_kernel, 1);
	/* And the real tracefs, when this process may read it */
	f = fopen("/sys/kernel/tracing/events/sched/sched_switch/id", "r");
	if (f) {
		assert_non_null(fgets(id, sizeof(id), f));
		fclose(f);
		assert_int_equal(kfit_pmu_parse(&l, "sched:sched_switch", NULL, buf,
						   sizeof(buf)), 0);
		assert_int_equal(l.ev[2].attr.config, strtoul(id, NULL, 10));
	}
	/* Without a CPU PMU, the reason names what does work here */
	if (access(REAL_SYSFS "/cpu", F_OK) && access(REAL_SYSFS "/cpu_core", F_OK)) {
		e = l.ev[0];
		strcpy(e.pmu, "cpu");
		kfit_pmu_event_why(&e, ENOENT, NULL, buf, sizeof(buf));
		print_message("real: %s\n", buf);
		assert_has(buf, "no hardware PMU");
		assert_has(buf, "msr/");
	}
	kfit_pmu_event_list_free(&l);
}

/* The kernel takes what the parser makes */
static void test_real_open(void **state)
{
	struct kfit_pmu_event_list l = { 0 };
	unsigned long long v = 0;
	char buf[512];
	volatile int i;
	int fd, err;

	(void)state;
	assert_int_equal(kfit_pmu_parse(&l, "task-clock,cycles", NULL, buf, sizeof(buf)), 0);
	fd = syscall(SYS_perf_event_open, &l.ev[0].attr, 0, -1, -1, 0);
	if (fd < 0 && (errno == EACCES || errno == EPERM))
		skip();
	assert_true(fd >= 0);
	for (i = 0; i < 1000000; i++)
		;
	assert_int_equal(read(fd, &v, sizeof(v)), sizeof(v));
	close(fd);
	assert_true(v > 0);
	/* cycles: counted, or refused for a reason the machine explains */
	fd = syscall(SYS_perf_event_open, &l.ev[1].attr, 0, -1, -1, 0);
	if (fd >= 0) {
		close(fd);
		return;
	}
	err = errno;
	kfit_pmu_event_why(&l.ev[1], err, NULL, buf, sizeof(buf));
	print_message("real: cycles: %s\n", buf);
	if (access(REAL_SYSFS "/cpu", F_OK) && access(REAL_SYSFS "/cpu_core", F_OK) &&
	    err == ENOENT)
		assert_has(buf, "no hardware PMU");
	kfit_pmu_event_list_free(&l);
}

/* perf's other forms, on the fixture machine */
static void test_perf_forms(void **state)
{
	struct kfit_pmu_event_list l = { 0 };
	char err[256], *spec;
	struct kfit_pmu_event e;
	int i;

	(void)state;
	/* Named groups, a glob inside one, a group's modifiers */
	parse_into(&l, "g1{cycles,instructions}:u,g2{cs,sched:sched_w*},cs");
	assert_int_equal(l.n, 5);
	assert_string_equal(l.ev[0].group, "g1");
	assert_string_equal(l.ev[1].group, "g1");
	assert_string_equal(l.ev[1].name, "instructions:u");
	assert_int_equal(l.ev[1].leader, 0);
	assert_excl(&l.ev[1], 0, 1, 1);
	assert_string_equal(l.ev[3].group, "g2");
	assert_string_equal(l.ev[3].name, "sched:sched_wakeup");
	assert_int_equal(l.ev[3].attr.config, 317);
	assert_int_equal(l.ev[3].leader, 2);
	assert_string_equal(l.ev[4].group, "");
	assert_false(l.ev[4].grouped);
	/* The label: name=, else the event as written */
	l.n = 0;
	parse_into(&l, "instructions/name=insn/,cs:u,1:1/name=tc/k");
	assert_string_equal(l.ev[0].name, "instructions/name=insn/");
	assert_string_equal(l.ev[0].label, "insn");
	assert_string_equal(l.ev[1].label, "cs:u");
	assert_string_equal(l.ev[2].label, "tc");
	assert_string_equal(l.ev[2].pmu, "software");
	assert_string_equal(l.ev[2].unit, "ns");
	assert_excl(&l.ev[2], 1, 0, 1);
	kfit_pmu_event_list_free(&l);
	/* Globs: one event per match, sorted, named after it */
	parse_into(&l, "sched:sched_*:k");
	assert_int_equal(l.n, 2);
	assert_string_equal(l.ev[0].name, "sched:sched_switch:k");
	assert_string_equal(l.ev[1].name, "sched:sched_wakeup:k");
	assert_excl(&l.ev[1], 1, 0, 1);
	assert_int_equal(l.ev[1].leader, 1);
	kfit_pmu_event_list_free(&l);
	/* A breakpoint */
	e = parse1("mem:0x1000/8:w");
	assert_int_equal(e.attr.type, PERF_TYPE_BREAKPOINT);
	assert_true(e.attr.bp_addr == 0x1000 && e.attr.bp_len == 8 && e.attr.bp_type == 2);
	assert_string_equal(e.pmu, "breakpoint");
	e = parse1("mem:0:x");
	assert_true(e.attr.bp_len == sizeof(long) && e.attr.bp_type == 4);
	/* A type no PMU of sysfs has */
	e = parse1("77:5");
	assert_string_equal(e.pmu, "type 77");
	e = parse1("9:1");
	assert_string_equal(e.pmu, "msr");

	parse_err("mem:", "bad address in 'mem:'");
	parse_err("mem:zz", "bad address 'zz' in 'mem:zz'");
	parse_err("mem:0/", "bad length in 'mem:0/'");
	parse_err("mem:0:rr", "'r' given twice in 'mem:0:rr'");
	parse_err("mem:0:w:z", "bad breakpoint 'mem:0:w:z'");
	parse_err("mem:0:w:uu", "modifier 'u' given twice");
	parse_err("mem:0/8:x:u:k", "bad breakpoint");
	parse_err("cs/foo=1/", "unknown term 'foo' in 'cs/foo=1/' (config, config1, config2, name, period, metric-id)");
	parse_err("cs/config=zz/", "bad value 'zz' for 'config'");
	parse_err("cs/name=/", "empty name=");
	parse_err("cs/config=1,,name=x/", "empty term in 'cs/config=1,,name=x/'");
	parse_err("cs/config=1", "missing closing '/'");
	parse_err("sched:nomatch*", "no tracepoint matches 'sched:nomatch*'");
	parse_err("thisgroupnameislongerthanthirtytwo{cs}", "group name 'thisgroupnameislongerthanthirtytwo' too long");

	/* A glob past the limit adds nothing */
	spec = malloc(KFIT_PMU_MAX_EVENTS * 3);
	assert_non_null(spec);
	for (i = 0; i < KFIT_PMU_MAX_EVENTS - 1; i++)
		memcpy(spec + 3 * i, "cs,", 3);
	spec[3 * i - 1] = '\0';
	parse_into(&l, spec);
	assert_int_equal(kfit_pmu_parse(&l, "sched:sched_*", &env, err, sizeof(err)), -1);
	assert_string_equal(err, "too many events: 4097 (at most 4096): 'sched:sched_*' matches 2 tracepoints");
	assert_int_equal(l.n, KFIT_PMU_MAX_EVENTS - 1);
	free(spec);
	kfit_pmu_event_list_free(&l);
}

/*
 * perf as the oracle: tests/fixtures/perf-attrs.txt holds, for each event
 * string, the perf_event_attr that `perf stat -vv` printed on this host
 * (tests/helpers/perfattrs.sh writes it). Each string must parse to the
 * same fields, or fail where perf's parser refused it.
 */
#define PERF_ATTRS KFIT_TOP "/tests/fixtures/perf-attrs.txt"
#define MAX_ORACLE 2048

/* The fields a parse decides, by perf's names for them */
struct oracle {
	__u64 type, config, config1, config2, bp_type, period;
	__u64 eu, ek, eh, eI, eH, eG, pinned, excl, precise;
};

static const struct {
	const char *name;
	size_t off;
} oracle_fields[] = {
	{ "type", offsetof(struct oracle, type) },
	{ "config", offsetof(struct oracle, config) },
	{ "{bp_addr,config1}", offsetof(struct oracle, config1) },
	{ "{bp_len,config2}", offsetof(struct oracle, config2) },
	{ "bp_type", offsetof(struct oracle, bp_type) },
	{ "{sample_period,sample_freq}", offsetof(struct oracle, period) },
	{ "exclude_user", offsetof(struct oracle, eu) },
	{ "exclude_kernel", offsetof(struct oracle, ek) },
	{ "exclude_hv", offsetof(struct oracle, eh) },
	{ "exclude_idle", offsetof(struct oracle, eI) },
	{ "exclude_host", offsetof(struct oracle, eH) },
	{ "exclude_guest", offsetof(struct oracle, eG) },
	{ "pinned", offsetof(struct oracle, pinned) },
	{ "exclusive", offsetof(struct oracle, excl) },
	{ "precise_ip", offsetof(struct oracle, precise) },
};

#define NR_ORACLE_FIELDS (sizeof(oracle_fields) / sizeof(oracle_fields[0]))

/* "attr type=5 bp_type=3 ..." (fields perf left out are 0) */
static void oracle_read(char *line, struct oracle *o)
{
	char *tok, *eq;
	size_t i;

	memset(o, 0, sizeof(*o));
	for (tok = strtok(line + 5, " \n"); tok; tok = strtok(NULL, " \n")) {
		eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq = '\0';
		for (i = 0; i < NR_ORACLE_FIELDS; i++)
			if (!strcmp(tok, oracle_fields[i].name))
				*(__u64 *)((char *)o + oracle_fields[i].off) =
					strtoull(eq + 1, NULL, 0);
	}
}

static void oracle_of(const struct perf_event_attr *a, struct oracle *o)
{
	*o = (struct oracle){
		.type = a->type, .config = a->config, .config1 = a->config1,
		.config2 = a->config2, .bp_type = a->bp_type,
		.period = a->sample_period,
		.eu = a->exclude_user, .ek = a->exclude_kernel,
		.eh = a->exclude_hv, .eI = a->exclude_idle,
		.eH = a->exclude_host, .eG = a->exclude_guest,
		.pinned = a->pinned, .excl = a->exclusive,
		.precise = a->precise_ip,
	};
}

static int by_config(const void *a, const void *b)
{
	const struct oracle *x = a, *y = b;

	return x->config < y->config ? -1 : x->config > y->config;
}

struct oracle_case {
	char spec[256];
	bool rejected;
	struct oracle *want;	/* [MAX_ORACLE] */
	int n;
	char labels[8][KFIT_PMU_EVENT_NAME_LEN];
	int nlabels;
};

/* One string against what perf made of it; how many fields were compared */
static int oracle_check(struct oracle_case *c, bool tracefs_ok)
{
	struct kfit_pmu_event_list l = { 0 };
	struct oracle *got;
	char err[512];
	int i, r, fields = 0;
	size_t f;

	if (!tracefs_ok && strchr(c->spec, ':') && !strstr(c->spec, "mem:") &&
	    strspn(c->spec, "0123456789") == 0) {
		print_message("skipped (tracepoint ids of another kernel): %s\n", c->spec);
		return 0;
	}
	r = kfit_pmu_parse(&l, c->spec, NULL, err, sizeof(err));
	if (c->rejected) {
		if (!r)
			fail_msg("'%s': perf refuses it, we parsed %d events", c->spec, l.n);
		kfit_pmu_event_list_free(&l);
		return 1;
	}
	if (r)
		fail_msg("'%s': perf takes it, we say: %s", c->spec, err);
	if (l.n < c->n)
		fail_msg("'%s': %d events, perf made %d", c->spec, l.n, c->n);
	got = calloc(l.n, sizeof(*got));
	assert_non_null(got);
	for (i = 0; i < l.n; i++)
		oracle_of(&l.ev[i].attr, &got[i]);
	/* perf opens a glob's tracepoints in directory order, we sort them */
	if (strpbrk(c->spec, "*?")) {
		if (l.n != c->n)
			fail_msg("'%s': %d events, perf made %d", c->spec, l.n, c->n);
		qsort(got, l.n, sizeof(*got), by_config);
		qsort(c->want, c->n, sizeof(*got), by_config);
	}
	for (i = 0; i < c->n; i++)
		for (f = 0; f < NR_ORACLE_FIELDS; f++, fields++) {
			__u64 w = *(__u64 *)((char *)&c->want[i] + oracle_fields[f].off);
			__u64 g = *(__u64 *)((char *)&got[i] + oracle_fields[f].off);

			if (w != g)
				fail_msg("'%s' event %d: %s %#llx, perf %#llx", c->spec, i,
					 oracle_fields[f].name, (unsigned long long)g,
					 (unsigned long long)w);
		}
	/* name= is the column perf shows */
	for (i = 0; strstr(c->spec, "name=") && i < c->nlabels && i < l.n; i++)
		assert_string_equal(l.ev[i].label, c->labels[i]);
	free(got);
	kfit_pmu_event_list_free(&l);
	return fields;
}

static void test_perf_oracle(void **state)
{
	struct oracle_case c = { .want = calloc(MAX_ORACLE, sizeof(struct oracle)) };
	char line[8192], kernel[128] = "", want_kernel[128] = "";
	int strings = 0, fields = 0;
	bool have = false, tracefs_ok;
	FILE *f = fopen(PERF_ATTRS, "r");
	struct utsname u;

	(void)state;
	assert_non_null(f);
	assert_non_null(c.want);
	if (!uname(&u))
		snprintf(kernel, sizeof(kernel), "%s", u.release);
	/* tracepoint ids are this kernel's: compared only on it, as root */
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "# perf ", 7) && strstr(line, ", kernel "))
			sscanf(strstr(line, ", kernel ") + 9, "%127s", want_kernel);
		if (line[0] != '=' && !have)
			continue;
		if (!strncmp(line, "== ", 3)) {
			tracefs_ok = !strcmp(kernel, want_kernel) &&
				     !access("/sys/kernel/tracing/events", R_OK);
			if (have) {
				fields += oracle_check(&c, tracefs_ok);
				strings++;
			}
			memset(c.spec, 0, sizeof(c.spec));
			snprintf(c.spec, sizeof(c.spec), "%.*s", (int)strcspn(line + 3, "\n"),
				 line + 3);
			c.rejected = false;
			c.n = c.nlabels = 0;
			have = true;
		} else if (!strncmp(line, "rejected", 8)) {
			c.rejected = true;
		} else if (!strncmp(line, "attr ", 5) && c.n < MAX_ORACLE) {
			oracle_read(line, &c.want[c.n++]);
		} else if (!strncmp(line, "label ", 6) && c.nlabels < 8) {
			snprintf(c.labels[c.nlabels++], KFIT_PMU_EVENT_NAME_LEN, "%.*s",
				 (int)strcspn(line + 6, "\n"), line + 6);
		}
	}
	tracefs_ok = !strcmp(kernel, want_kernel) && !access("/sys/kernel/tracing/events", R_OK);
	if (have) {
		fields += oracle_check(&c, tracefs_ok);
		strings++;
	}
	fclose(f);
	free(c.want);
	print_message("%d strings, %d fields as perf made them\n", strings, fields);
	assert_true(strings >= 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hardware),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_software),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_pmu_terms),
		cmocka_unit_test(test_pmu_aliases),
		cmocka_unit_test(test_tracepoints),
		cmocka_unit_test(test_modifiers),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_bad_modifiers),
		cmocka_unit_test(test_pmu_errors),
		cmocka_unit_test(test_tracepoint_errors),
		cmocka_unit_test(test_too_many),
		cmocka_unit_test(test_long_input),
		cmocka_unit_test(test_why),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_real_sys),
		cmocka_unit_test(test_real_open),
		cmocka_unit_test(test_perf_forms),
		cmocka_unit_test(test_perf_oracle),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
