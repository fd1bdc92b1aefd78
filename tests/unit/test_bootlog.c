// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel-phase parser (bootlog.h) on the records of real boots
 * (tests/fixtures/boot, see its README), each count checked against one
 * the test makes itself from the same text, line by line; then synthetic
 * forms (journalctl, dmesg -x, /dev/kmsg, nesting, markers) and broken
 * input: every prefix, flipped bytes, absurd lines.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "bootlog.h"
#include "fileio.h"

#define FIX KFIT_TOP "/tests/fixtures/boot/"

static char *load(const char *name, size_t *len)
{
	char *t = kfit_read_all(name, len);

	if (!t)
		fail_msg("cannot read %s", name);
	return t;
}

static void parse_ok(struct kfit_bootlog *bl, const char *text, size_t len)
{
	char err[128];

	kfit_bootlog_init(bl);
	assert_int_equal(kfit_bootlog_parse(bl, text, len, err, sizeof(err)), 0);
}

static void parse_file(struct kfit_bootlog *bl, const char *name)
{
	size_t len;
	char *t = load(name, &len);

	parse_ok(bl, t, len);
	free(t);
}

static size_t name_levels(struct kfit_bootlog *bl, const char *kernel)
{
	char path[256];
	size_t len, n;
	char *t;

	snprintf(path, sizeof(path), FIX "%s-initcall-syms.txt", kernel);
	t = load(path, &len);
	n = kfit_bootlog_levels_from_kallsyms(bl, t, len);
	free(t);
	return n;
}

/* What the test counts itself in dmesg text, the way grep would */
struct oracle {
	size_t calling;		/* "] calling  " at a message's start */
	size_t fixups;		/* "): calling  " after a device's name */
	size_t returned;
	unsigned long long usecs;	/* "after N usecs" summed */
	size_t modules;		/* "calling  fn [mod] @" */
	unsigned long long init_us;	/* "Run /init as init process" */
	char lastmod[64];
	int lastmod_pid;
};

static void count_dmesg(const char *text, struct oracle *o)
{
	const char *line = text;

	memset(o, 0, sizeof(*o));
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		char buf[1024];
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		const char *m;
		unsigned long long a, b, us;
		char fn[128], mod[64];
		int pid;

		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, line, n);
		buf[n] = '\0';
		line = nl ? nl + 1 : NULL;
		m = strstr(buf, "] ");
		if (!m)
			continue;
		m += 2;
		if (!strncmp(m, "calling  ", 9)) {
			o->calling++;
			if (sscanf(m, "calling  %127s [%63[^]]] @ %d", fn, mod, &pid) == 3) {
				o->modules++;
				strcpy(o->lastmod, mod);
				o->lastmod_pid = pid;
			}
		} else if (strstr(m, ": calling  ")) {
			o->fixups++;
		} else if (!strncmp(m, "initcall ", 9) && strstr(m, " returned ")) {
			o->returned++;
			if (sscanf(strstr(m, " after "), " after %llu usecs", &us) == 1)
				o->usecs += us;
		} else if (!strcmp(m, "Run /init as init process") &&
			   sscanf(buf, "[ %llu.%llu]", &a, &b) == 2) {
			o->init_us = a * 1000000 + b;
		}
	}
}

static size_t count_str(const char *text, const char *s)
{
	size_t n = 0;

	for (text = strstr(text, s); text; text = strstr(text + 1, s))
		n++;
	return n;
}

static unsigned long long sum_dur(const struct kfit_bootlog *bl)
{
	unsigned long long s = 0;
	size_t i;

	for (i = 0; i < bl->ncalls; i++)
		s += bl->calls[i].dur_ns;
	return s;
}

static void check_dmesg(const char *name, bool with_module)
{
	struct kfit_bootlog bl;
	struct oracle o;
	size_t len, i;
	char *t = load(name, &len);
	const struct kfit_bootlog_initcall *last;

	count_dmesg(t, &o);
	parse_ok(&bl, t, len);
	assert_int_equal(bl.src, KFIT_BOOTLOG_DMESG);
	/* initcall_debug prints PCI fixups as "calling" too: not initcalls */
	assert_true(o.fixups > 0);
	assert_int_equal(bl.ncalls, o.calling);
	assert_int_equal(bl.not_initcalls, o.fixups);
	assert_int_equal(o.returned, o.calling);
	assert_true(sum_dur(&bl) == o.usecs * 1000);
	assert_int_equal(bl.unmatched, 0);
	assert_int_equal(bl.garbled, 0);
	for (i = 0; i < bl.ncalls; i++)
		assert_true(bl.calls[i].finished);
	assert_true(bl.complete);
	assert_false(bl.log_start_lost);
	assert_int_equal(strncmp(bl.uname, "Linux version 6.", 16), 0);
	assert_non_null(strstr(bl.cmdline, "initcall_debug"));
	assert_string_equal(bl.init_path, "/init");
	assert_true(bl.init_ns == o.init_us * 1000);
	assert_int_equal(bl.first_ns, 0);
	assert_false(bl.has_marker);
	last = &bl.calls[bl.ncalls - 1];
	if (with_module) {
		assert_int_equal(o.modules, 1);
		assert_string_equal(last->fn, "dummy_init_module");
		assert_string_equal(last->module, o.lastmod);
		assert_string_equal(last->level, "module");
		assert_int_equal(last->pid, o.lastmod_pid);
	} else {
		assert_int_equal(o.modules, 0);
		assert_string_equal(last->module, "");
	}
	kfit_bootlog_free(&bl);
	free(t);
}

static void test_dmesg_counts(void **state)
{
	(void)state;
	check_dmesg(FIX "6.1-dmesg-initcall_debug.txt", true);
	check_dmesg(FIX "6.12-dmesg-initcall_debug.txt", true);
	check_dmesg(FIX "6.1-default-dmesg.txt", false);
	check_dmesg(FIX "6.12-default-dmesg.txt", false);
}

/* /dev/kmsg and dmesg of one boot: the same initcalls, the same times */
static void check_kmsg(const char *kernel)
{
	struct kfit_bootlog d, k;
	char path[256];
	size_t i;

	snprintf(path, sizeof(path), FIX "%s-default-dmesg.txt", kernel);
	parse_file(&d, path);
	snprintf(path, sizeof(path), FIX "%s-default-kmsg.txt", kernel);
	parse_file(&k, path);
	assert_int_equal(k.src, KFIT_BOOTLOG_DMESG);
	assert_true(d.ncalls > 600);
	assert_int_equal(k.ncalls, d.ncalls);
	assert_int_equal(k.not_initcalls, d.not_initcalls);
	assert_int_equal(k.garbled, 0);
	assert_int_equal(k.lost_msgs, 0);
	assert_true(k.complete);
	for (i = 0; i < d.ncalls; i++) {
		assert_string_equal(k.calls[i].fn, d.calls[i].fn);
		assert_true(k.calls[i].start_ns == d.calls[i].start_ns);
		assert_true(k.calls[i].end_ns == d.calls[i].end_ns);
		assert_true(k.calls[i].dur_ns == d.calls[i].dur_ns);
		assert_int_equal(k.calls[i].ret, d.calls[i].ret);
		assert_int_equal(k.calls[i].pid, d.calls[i].pid);
	}
	assert_string_equal(k.uname, d.uname);
	assert_string_equal(k.cmdline, d.cmdline);
	assert_true(k.init_ns == d.init_ns && k.init_ns > 0);
	assert_true(k.last_ns == d.last_ns);
	kfit_bootlog_free(&d);
	kfit_bootlog_free(&k);
}

static void test_kmsg_same_boot(void **state)
{
	(void)state;
	check_kmsg("6.1");
	check_kmsg("6.12");
}

static void test_trace_612(void **state)
{
	struct kfit_bootlog bl;
	size_t len, i, finished = 0;
	char *t = load(FIX "6.12-trace.txt", &len);
	unsigned long long span = 0;
	const struct kfit_bootlog_initcall *last;

	(void)state;
	parse_ok(&bl, t, len);
	assert_int_equal(bl.src, KFIT_BOOTLOG_TRACE);
	assert_int_equal(bl.ncalls, count_str(t, "initcall_start: "));
	for (i = 0; i < bl.ncalls; i++) {
		finished += bl.calls[i].finished;
		span += bl.calls[i].end_ns - bl.calls[i].start_ns;
		/* The level lines name every built-in one */
		assert_true(bl.calls[i].level[0]);
		if (i)
			assert_true(bl.calls[i].start_ns >= bl.calls[i - 1].start_ns);
	}
	assert_int_equal(finished, count_str(t, "initcall_finish: "));
	assert_true(span == sum_dur(&bl));
	assert_int_equal(bl.unmatched, 0);
	assert_int_equal(bl.garbled, 0);
	assert_true(bl.entries_in_buffer == 1501 && bl.entries_written == 1501);
	assert_int_equal(bl.nevents, count_str(t, ": initcall_") + count_str(t, ": module_load: "));
	assert_string_equal(bl.first_level, "console");
	assert_true(bl.complete);
	assert_string_equal(bl.calls[0].fn, "con_init");
	assert_string_equal(bl.calls[0].level, "console");
	assert_int_equal(bl.calls[0].pid, 0);
	/* The module's initcall: an address, named by module_load before it */
	last = &bl.calls[bl.ncalls - 1];
	assert_string_equal(last->module, "dummy");
	assert_string_equal(last->level, "module");
	assert_string_equal(last->fn, "0xffffffffc0379010");
	assert_true(last->addr == 0xffffffffc0379010ULL);
	assert_int_equal(last->pid, 170);
	/* The trace's levels are coarse: kallsyms makes them finer */
	assert_string_equal(bl.levels[bl.nlevels - 2].name, "late");
	assert_true(name_levels(&bl, "6.12") > 0);
	assert_string_equal(bl.levels[bl.nlevels - 2].name, "late_sync");
	assert_true(bl.complete);
	kfit_bootlog_free(&bl);
	free(t);
}

/* 6.1: the buffer holds only what came after late_trace_init */
static void test_trace_61(void **state)
{
	struct kfit_bootlog bl;
	const struct kfit_bootlog_initcall *last;

	(void)state;
	parse_file(&bl, FIX "6.1-trace.txt");
	assert_int_equal(bl.src, KFIT_BOOTLOG_TRACE);
	assert_int_equal(bl.ncalls, 6);
	assert_int_equal(bl.unmatched, 1);	/* late_trace_init's end */
	assert_false(bl.complete);
	assert_string_equal(bl.first_event_fn, "late_trace_init");
	assert_true(bl.first_event_finish);
	assert_int_equal(name_levels(&bl, "6.1"), 5);
	assert_false(bl.complete);
	assert_non_null(strstr(bl.why, "starts at level late_sync (14 events)"));
	assert_non_null(strstr(bl.why, "trace_clock=global"));
	assert_string_equal(bl.levels[0].name, "late_sync");
	assert_int_equal(bl.levels[0].n, 5);
	last = &bl.calls[bl.ncalls - 1];
	assert_string_equal(last->module, "dummy");
	assert_string_equal(last->level, "module");
	assert_int_equal(last->pid, 124);
	assert_int_equal(last->ret, 0);
	/* balloon_wait_finish returned -19 */
	assert_string_equal(bl.calls[2].fn, "balloon_wait_finish");
	assert_int_equal(bl.calls[2].ret, -19);
	kfit_bootlog_free(&bl);
}

static const char *const level_order[] = {
	"console", "early", "pure", "pure_sync", "core", "core_sync", "postcore",
	"postcore_sync", "arch", "arch_sync", "subsys", "subsys_sync", "fs",
	"fs_sync", "rootfs", "device", "device_sync", "late", "late_sync", "module",
};

static int order_of(const char *level)
{
	size_t i;

	for (i = 0; i < sizeof(level_order) / sizeof(level_order[0]); i++)
		if (!strcmp(level_order[i], level))
			return i;
	return -1;
}

static const char *level_of(const struct kfit_bootlog *bl, const char *fn)
{
	size_t i;

	for (i = 0; i < bl->ncalls; i++)
		if (!strcmp(bl->calls[i].fn, fn))
			return bl->calls[i].level;
	return NULL;
}

/* dmesg has no level lines: kallsyms names every built-in initcall */
static void check_levels(const char *kernel)
{
	struct kfit_bootlog bl;
	char path[256];
	size_t i, builtin = 0, sum = 0;
	int prev = 0;

	snprintf(path, sizeof(path), FIX "%s-dmesg-initcall_debug.txt", kernel);
	parse_file(&bl, path);
	for (i = 0; i < bl.ncalls; i++)
		builtin += !bl.calls[i].module[0];
	assert_int_equal(bl.nlevels, 1);	/* "module" alone */
	assert_int_equal(name_levels(&bl, kernel), builtin);
	for (i = 0; i < bl.ncalls; i++) {
		int o = order_of(bl.calls[i].level);

		/* Built-in ones run level by level, in the kernel's order */
		assert_true(o >= prev);
		prev = o;
	}
	assert_string_equal(level_of(&bl, "con_init"), "console");
	assert_string_equal(level_of(&bl, "init_hw_perf_events"), "early");
	assert_string_equal(level_of(&bl, "populate_rootfs"), "rootfs");
	assert_string_equal(level_of(&bl, "late_trace_init"), "late_sync");
	assert_string_equal(bl.levels[0].name, "console");
	for (i = 0; i < bl.nlevels; i++) {
		sum += bl.levels[i].n;
		if (i)
			assert_true(order_of(bl.levels[i].name) > order_of(bl.levels[i - 1].name));
		assert_true(bl.levels[i].end_ns >= bl.levels[i].start_ns);
	}
	assert_int_equal(sum, bl.ncalls);
	/* Naming again names nothing more */
	assert_int_equal(name_levels(&bl, kernel), 0);
	kfit_bootlog_free(&bl);
}

static void test_levels_from_kallsyms(void **state)
{
	struct kfit_bootlog bl;
	size_t i, n = 0;

	(void)state;
	check_levels("6.1");
	check_levels("6.12");
	/* 6.12 has xenbus_init twice (postcore and device): each its own */
	parse_file(&bl, FIX "6.12-dmesg-initcall_debug.txt");
	name_levels(&bl, "6.12");
	for (i = 0; i < bl.ncalls; i++) {
		if (strcmp(bl.calls[i].fn, "xenbus_init"))
			continue;
		assert_string_equal(bl.calls[i].level, n ? "device" : "postcore");
		n++;
	}
	assert_int_equal(n, 2);
	kfit_bootlog_free(&bl);
}

/* The trace and dmesg of one boot, named by kallsyms: the same levels */
static void test_trace_levels_match_dmesg(void **state)
{
	struct kfit_bootlog d, t;
	size_t i;

	(void)state;
	parse_file(&d, FIX "6.12-dmesg-initcall_debug.txt");
	parse_file(&t, FIX "6.12-trace.txt");
	name_levels(&d, "6.12");
	name_levels(&t, "6.12");
	assert_int_equal(d.ncalls, t.ncalls);
	for (i = 0; i < d.ncalls - 1; i++) {
		assert_string_equal(d.calls[i].fn, t.calls[i].fn);
		assert_string_equal(d.calls[i].level, t.calls[i].level);
		assert_int_equal(d.calls[i].ret, t.calls[i].ret);
	}
	assert_int_equal(d.nlevels, t.nlevels);
	kfit_bootlog_free(&d);
	kfit_bootlog_free(&t);
}

/* The first n lines of a file */
static char *head_lines(const char *name, size_t lines, size_t *len)
{
	char *t = load(name, len), *p = t;

	while (lines-- && p)
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
	if (p)
		*len = p - t;
	return t;
}

static void test_pick(void **state)
{
	struct kfit_bootlog d, t;
	const struct kfit_bootlog *p;
	char note[1024];
	size_t len, lines, i;
	char *text;

	(void)state;
	/* 6.1: the trace is late; dmesg has all */
	parse_file(&d, FIX "6.1-dmesg-initcall_debug.txt");
	parse_file(&t, FIX "6.1-trace.txt");
	name_levels(&d, "6.1");
	name_levels(&t, "6.1");
	p = kfit_bootlog_pick(&d, &t, note, sizeof(note));
	assert_ptr_equal(p, &d);
	assert_non_null(strstr(note, "starts at level late_sync (14 events)"));
	assert_non_null(strstr(note, "has all 671"));
	assert_non_null(strstr(note, "switched to \"global\" at 2.646314 s"));
	kfit_bootlog_free(&d);
	kfit_bootlog_free(&t);

	/*
	 * 6.12: dmesg at /init (the file without its last two lines, the
	 * module's) says "calling" 750 times, the trace saved after
	 * modprobe has 745 initcall_start: 744 initcalls in both, dmesg's 6
	 * more are PCI fixups, the trace's 1 more is the module's.
	 */
	lines = 0;
	text = load(FIX "6.12-dmesg-initcall_debug.txt", &len);
	lines = count_str(text, "\n");
	free(text);
	text = head_lines(FIX "6.12-dmesg-initcall_debug.txt", lines - 2, &len);
	parse_ok(&d, text, len);
	assert_int_equal(d.ncalls + d.not_initcalls, 750);
	free(text);
	parse_file(&t, FIX "6.12-trace.txt");
	assert_int_equal(t.ncalls, 745);
	p = kfit_bootlog_pick(&d, &t, note, sizeof(note));
	assert_ptr_equal(p, &t);
	/* the trace has no "Run /init" line: dmesg of the same boot gives it */
	assert_int_equal(t.init_ns, 0);
	assert_int_not_equal(d.init_ns, 0);
	/* the whole dmesg, with the module's lines */
	kfit_bootlog_free(&d);
	parse_file(&d, FIX "6.12-dmesg-initcall_debug.txt");
	kfit_bootlog_fill(&t, &d);
	assert_int_equal(t.init_ns, d.init_ns);
	assert_string_equal(t.init_path, d.init_path);
	assert_string_equal(t.uname, d.uname);
	/* dummy's init, an address in the trace, named from dmesg */
	for (i = 0; i < t.ncalls; i++)
		if (!strcmp(t.calls[i].module, "dummy"))
			break;
	assert_true(i < t.ncalls);
	assert_string_equal(t.calls[i].fn, "dummy_init_module");
	assert_int_equal(kfit_bootlog_name_addr(&t, t.calls[i].addr, "x_init"), 1);
	assert_string_equal(t.calls[i].fn, "x_init");
	assert_non_null(strstr(note, "744 built in, 0 of modules"));
	assert_non_null(strstr(note, "744 built in, 1 of modules"));
	assert_non_null(strstr(note, "6 other \"calling\" lines are PCI fixups"));
	assert_non_null(strstr(note, "1 module initcalls more"));
	/* Either alone, or neither */
	assert_ptr_equal(kfit_bootlog_pick(&d, NULL, note, sizeof(note)), &d);
	assert_ptr_equal(kfit_bootlog_pick(NULL, &t, note, sizeof(note)), &t);
	assert_null(kfit_bootlog_pick(NULL, NULL, note, sizeof(note)));
	assert_non_null(strstr(note, "initcall_debug"));
	kfit_bootlog_free(&d);
	kfit_bootlog_free(&t);
}

/* dmesg whose beginning the ring buffer lost */
static void test_log_start_lost(void **state)
{
	struct kfit_bootlog bl;
	size_t len;
	char *t = load(FIX "6.12-default-dmesg.txt", &len);
	const char *cut = t;
	int i;

	(void)state;
	for (i = 0; i < 800; i++)
		cut = strchr(cut, '\n') + 1;
	parse_ok(&bl, cut, len - (cut - t));
	assert_true(bl.log_start_lost);
	assert_false(bl.complete);
	assert_non_null(strstr(bl.why, "log_buf_len="));
	assert_true(bl.ncalls > 0);
	kfit_bootlog_free(&bl);
	free(t);
}

static void test_trace_overflow(void **state)
{
	struct kfit_bootlog bl;
	size_t len;
	char *t = load(FIX "6.12-trace.txt", &len);
	char *h = strstr(t, "1501/1501");

	(void)state;
	memcpy(h, "1000/1501", 9);
	parse_ok(&bl, t, len);
	assert_false(bl.complete);
	assert_non_null(strstr(bl.why, "lost the oldest 501 of 1501"));
	kfit_bootlog_free(&bl);
	free(t);
}

static const char journal[] =
	"-- Journal begins at Sat 2026-11-14 10:00:00 UTC. --\n"
	"[    0.000000] vm kernel: Linux version 6.12.0 (x) #1 SMP\n"
	"[    0.000000] vm kernel: Command line: quiet initcall_debug\n"
	"[    0.362561] vm kernel: calling  con_init+0x0/0x250 @ 0\n"
	"[    0.364524] vm kernel: initcall con_init+0x0/0x250 returned 0 after 12 usecs\n"
	"[    2.812851] vm kernel: Run /sbin/init as init process\n"
	"[    2.900000] vm kernel: bootsum: boot clock 2900000123 ns\n";

static void test_journal(void **state)
{
	struct kfit_bootlog bl;

	(void)state;
	parse_ok(&bl, journal, strlen(journal));
	assert_int_equal(bl.src, KFIT_BOOTLOG_DMESG);
	assert_int_equal(bl.ncalls, 1);
	assert_string_equal(bl.calls[0].fn, "con_init");
	assert_true(bl.calls[0].start_ns == 362561000ULL);
	assert_true(bl.calls[0].dur_ns == 12000);
	assert_string_equal(bl.cmdline, "quiet initcall_debug");
	assert_string_equal(bl.init_path, "/sbin/init");
	assert_true(bl.init_ns == 2812851000ULL);
	assert_true(bl.has_marker);
	assert_true(bl.marker_ns == 2900000000ULL);
	assert_true(bl.marker_boot_ns == 2900000123ULL);
	assert_true(bl.complete);
	assert_int_equal(bl.garbled, 0);
	kfit_bootlog_free(&bl);
}

/* dmesg -x, dmesg -r, /dev/kmsg with dictionary lines and a gap */
static void test_other_forms(void **state)
{
	static const char x[] =
		"kern  :notice: [    0.000000] Linux version 6.1.0\n"
		"kern  :debug : [    1.000001] calling  foo_init+0x0/0x10 @ 1\n"
		"kern  :debug : [    1.000101] initcall foo_init+0x0/0x10 returned -19 after 100 usecs\n";
	static const char r[] =
		"<5>[    0.000000] Linux version 6.1.0\n"
		"<7>[    1.000001] calling  foo_init+0x0/0x10 @ 1\n"
		"<7>[    1.000101] initcall foo_init+0x0/0x10 returned -19 after 100 usecs\n";
	static const char k[] =
		"5,0,0,-;Linux version 6.1.0\n"
		"7,1,1000001,-;calling  foo_init+0x0/0x10 @ 1\n"
		" SUBSYSTEM=acpi\n"
		" DEVICE=+acpi:PNP0A08:00\n"
		"7,5,1000101,-;initcall foo_init+0x0/0x10 returned -19 after 100 usecs\n"
		"12,6,2000000,-;bootsum: boot clock 2000000500 ns\n";
	const char *const texts[] = { x, r, k };
	struct kfit_bootlog bl;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		parse_ok(&bl, texts[i], strlen(texts[i]));
		assert_int_equal(bl.src, KFIT_BOOTLOG_DMESG);
		assert_int_equal(bl.ncalls, 1);
		assert_int_equal(bl.calls[0].ret, -19);
		assert_true(bl.calls[0].start_ns == 1000001000ULL);
		assert_true(bl.calls[0].end_ns == 1000101000ULL);
		assert_true(bl.calls[0].dur_ns == 100000);
		assert_int_equal(bl.garbled, 0);
		assert_string_equal(bl.uname, "Linux version 6.1.0");
		kfit_bootlog_free(&bl);
	}
	parse_ok(&bl, k, strlen(k));
	assert_true(bl.lost_msgs == 3);	/* seq 2, 3, 4 */
	assert_false(bl.complete);
	assert_true(bl.has_marker && bl.marker_boot_ns == 2000000500ULL);
	kfit_bootlog_free(&bl);
}

/*
 * A trace with an initcall that loads a module (its initcall in modprobe
 * meanwhile), an async one in a kworker with the same function name as
 * one in pid 1, nesting in one task, and an initcall never finished.
 */
static const char nested[] =
	"# tracer: nop\n"
	"# entries-in-buffer/entries-written: 14/14   #P:2\n"
	"    <idle>-0     [000] ...1.     0.100000: initcall_level: level=console\n"
	"    <idle>-0     [000] ...1.     0.100001: initcall_start: func=con_init+0x0/0x10\n"
	"    <idle>-0     [000] ...1.     0.100002: initcall_finish: func=con_init+0x0/0x10 ret=0\n"
	" swapper/0-1     [000] .....     1.000000: initcall_level: level=device\n"
	" swapper/0-1     [000] .....     1.000010: initcall_start: func=outer+0x0/0x10\n"
	" modprobe-50     [001] .....     1.000020: module_load: foo\n"
	" swapper/0-1     [000] .....     1.000025: initcall_start: func=same+0x0/0x10\n"
	" modprobe-50     [001] .....     1.000030: initcall_start: func=0xffffffffc0001000\n"
	" kworker/u4:1-60 [001] .....     1.000031: initcall_start: func=same+0x0/0x10\n"
	" swapper/0-1     [000] .....     1.000040: initcall_finish: func=same+0x0/0x10 ret=1\n"
	" modprobe-50     [001] .....     1.000050: initcall_finish: func=0xffffffffc0001000 ret=0\n"
	" swapper/0-1     [000] .....     1.000060: initcall_finish: func=outer+0x0/0x10 ret=0\n"
	" swapper/0-1     [000] .....     1.000070: initcall_start: func=hangs+0x0/0x10\n"
	" kworker/u4:1-60 [001] .....     1.000080: initcall_finish: func=same+0x0/0x10 ret=2\n";

static void test_trace_nesting(void **state)
{
	struct kfit_bootlog bl;
	const struct kfit_bootlog_initcall *c;

	(void)state;
	parse_ok(&bl, nested, strlen(nested));
	assert_int_equal(bl.ncalls, 6);
	c = bl.calls;
	assert_string_equal(c[1].fn, "outer");
	assert_true(c[1].dur_ns == 50000);
	assert_string_equal(c[2].fn, "same");
	assert_int_equal(c[2].pid, 1);
	assert_int_equal(c[2].ret, 1);
	assert_true(c[2].dur_ns == 15000);
	assert_string_equal(c[3].module, "foo");
	assert_string_equal(c[3].level, "module");
	assert_true(c[3].dur_ns == 20000);
	assert_string_equal(c[4].fn, "same");
	assert_int_equal(c[4].pid, 60);
	assert_int_equal(c[4].ret, 2);
	assert_true(c[4].dur_ns == 49000);
	assert_string_equal(c[4].level, "device");
	assert_string_equal(c[5].fn, "hangs");
	assert_false(c[5].finished);
	assert_int_equal(bl.unmatched, 1);
	assert_false(bl.complete);
	assert_non_null(strstr(bl.why, "1 initcall without their end (first: hangs)"));
	kfit_bootlog_free(&bl);
}

static void test_not_boot_text(void **state)
{
	static const char junk[] = "\nhello world\nthis is text\n";
	struct kfit_bootlog bl;
	char err[128];

	(void)state;
	kfit_bootlog_init(&bl);
	assert_int_equal(kfit_bootlog_parse(&bl, junk, strlen(junk), err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "line 2: not dmesg or tracefs text");
	assert_int_equal(kfit_bootlog_parse(&bl, "", 0, err, sizeof(err)), -EINVAL);
	assert_int_equal(kfit_bootlog_parse(&bl, NULL, 0, err, sizeof(err)), -EINVAL);
	kfit_bootlog_free(&bl);
}

/* Lines that look like ours but are absurd: counted, never a crash */
static void test_absurd_lines(void **state)
{
	static const char *const bad[] = {
		"[99999999999999999999.000000] calling  x+0x0/0x1 @ 1\n",
		"[    1.0000000001] calling  x+0x0/0x1 @ 1\n",
		"[    1.000000] calling  x+0x0/0x1 @ 99999999999\n",
		"[    1.000000] calling  x+0x0/0x1\n",
		"[    1.000000] initcall x+0x0/0x1 returned 0 after 99999999999999999999 usecs\n",
		"[    1.000000] initcall x+0x0/0x1 returned 99999999999 after 1 usecs\n",
		"[    1.000000] bootsum: boot clock 18446744073709551616 ns\n",
		"[    1.0x0000] calling  x+0x0/0x1 @ 1\n",
	};
	static const char tail[] = " @ 1\n[    1.1] calling  a+0x0 @ 1\n[ 1.2] calling  b\0c @ 1\n"
		"[    1.3] initcall a+0x0 returned 0 after 1 usecs";
	struct kfit_bootlog bl;
	size_t i, n, big = 10 << 20;
	char *t;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[256];

		n = snprintf(text, sizeof(text), "[    0.000000] Linux version 6\n%s", bad[i]);
		parse_ok(&bl, text, n);
		assert_int_equal(bl.garbled, 1);
		assert_int_equal(bl.ncalls, 0);
		kfit_bootlog_free(&bl);
	}
	/* A 10 MB line, and a NUL inside one, in an otherwise good record */
	t = malloc(big + 200);
	assert_non_null(t);
	n = sprintf(t, "[    0.000000] Linux version 6\n[    1.000000] calling  ");
	memset(t + n, 'a', big);
	n += big;
	memcpy(t + n, tail, sizeof(tail) - 1);
	n += sizeof(tail) - 1;
	parse_ok(&bl, t, n);
	assert_int_equal(bl.garbled, 2);
	assert_int_equal(bl.ncalls, 1);
	assert_true(bl.calls[0].finished);
	assert_true(bl.complete);
	kfit_bootlog_free(&bl);
	free(t);
}

/* Every prefix, cut every STEP bytes, into a buffer of exactly that size */
static void cut_everywhere(const char *name, size_t step)
{
	struct kfit_bootlog full, bl;
	size_t len, cut;
	char *t = load(name, &len), err[128];

	parse_ok(&full, t, len);
	for (cut = 0; cut <= len; cut += step) {
		char *p = malloc(cut ? cut : 1);
		int rc;

		memcpy(p, t, cut);
		kfit_bootlog_init(&bl);
		rc = kfit_bootlog_parse(&bl, p, cut, err, sizeof(err));
		assert_true(rc == 0 || rc == -EINVAL);
		assert_true(bl.ncalls <= full.ncalls);
		/* Only the line cut in two may be garbled */
		assert_true(bl.garbled <= 1);
		kfit_bootlog_free(&bl);
		free(p);
	}
	kfit_bootlog_free(&full);
	free(t);
}

static void test_every_prefix(void **state)
{
	(void)state;
	cut_everywhere(FIX "6.1-trace.txt", 1);
	cut_everywhere(FIX "6.12-trace.txt", 997);
	cut_everywhere(FIX "6.1-dmesg-initcall_debug.txt", 991);
	cut_everywhere(FIX "6.12-default-kmsg.txt", 983);
}

/* Bytes flipped at random (a fixed seed): parses, names, picks, no crash */
static void flip_bytes(const char *name, const char *kernel)
{
	struct kfit_bootlog bl, ref;
	char path[256], err[128], note[512];
	size_t len, slen, i;
	char *t = load(name, &len), *syms;
	unsigned int seed = 1;
	int round;

	snprintf(path, sizeof(path), FIX "%s-initcall-syms.txt", kernel);
	syms = load(path, &slen);
	parse_ok(&ref, t, len);
	for (round = 0; round < 40; round++) {
		char *p = malloc(len);

		memcpy(p, t, len);
		for (i = 0; i < 50; i++) {
			seed = seed * 1103515245 + 12345;
			p[(seed >> 8) % len] ^= 1 << (seed % 8);
		}
		kfit_bootlog_init(&bl);
		if (!kfit_bootlog_parse(&bl, p, len, err, sizeof(err))) {
			kfit_bootlog_levels_from_kallsyms(&bl, syms, slen);
			kfit_bootlog_pick(&bl, &ref, note, sizeof(note));
			kfit_bootlog_pick(&ref, &bl, note, sizeof(note));
		}
		kfit_bootlog_free(&bl);
		free(p);
	}
	/* kallsyms flipped too */
	for (round = 0; round < 20; round++) {
		char *s = malloc(slen);

		memcpy(s, syms, slen);
		for (i = 0; i < 50; i++) {
			seed = seed * 1103515245 + 12345;
			s[(seed >> 8) % slen] ^= 1 << (seed % 8);
		}
		kfit_bootlog_levels_from_kallsyms(&ref, s, slen);
		free(s);
	}
	kfit_bootlog_free(&ref);
	free(syms);
	free(t);
}

static void test_flipped_bytes(void **state)
{
	struct kfit_bootlog bl;
	size_t len;
	char *t = load(FIX "6.12-default-dmesg.txt", &len);
	char *p;

	(void)state;
	flip_bytes(FIX "6.12-trace.txt", "6.12");
	flip_bytes(FIX "6.1-dmesg-initcall_debug.txt", "6.1");
	/* One "calling" line broken: counted */
	p = strstr(t, "calling  con_init+0x0/0x250 @ 0");
	p[strlen("calling  con_init+0x0/0x250 ")] = '#';
	parse_ok(&bl, t, len);
	assert_int_equal(bl.garbled, 1);
	assert_int_equal(bl.unmatched, 1);	/* its end without its start */
	assert_false(bl.complete);
	kfit_bootlog_free(&bl);
	free(t);
}

/* A second boot in one record (journalctl -k without -b): the last one */
static void test_two_boots(void **state)
{
	struct kfit_bootlog bl;
	size_t len = strlen(journal);
	char *t = malloc(2 * len + 1);

	(void)state;
	strcpy(t, journal);
	strcat(t, journal);
	parse_ok(&bl, t, 2 * len);
	assert_int_equal(bl.boots, 2);
	assert_int_equal(bl.ncalls, 1);
	assert_true(bl.complete);
	kfit_bootlog_free(&bl);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dmesg_counts),
		cmocka_unit_test(test_kmsg_same_boot),
		cmocka_unit_test(test_trace_612),
		cmocka_unit_test(test_trace_61),
		cmocka_unit_test(test_levels_from_kallsyms),
		cmocka_unit_test(test_trace_levels_match_dmesg),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_log_start_lost),
		cmocka_unit_test(test_trace_overflow),
		cmocka_unit_test(test_journal),
		cmocka_unit_test(test_other_forms),
		cmocka_unit_test(test_trace_nesting),
		cmocka_unit_test(test_not_boot_text),
		cmocka_unit_test(test_absurd_lines),
		cmocka_unit_test(test_every_prefix),
		cmocka_unit_test(test_flipped_bytes),
		cmocka_unit_test(test_two_boots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
