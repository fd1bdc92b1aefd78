// SPDX-License-Identifier: GPL-2.0
/*
 * perf event syntax (pmu.h): kfit_events_parse of pmcstat -e strings over
 * a fixed sysfs and tracefs in /tmp (test_pmu's machine in miniature), so
 * that a run does not depend on this host. The input's first line is the
 * spec; the next lines, when there, are the files of one more PMU, "fz",
 * and of a tracepoint, so that what sysfs says is fuzzed too:
 *   fz/format/f, fz/events/a, fz/events/a.scale, fz/events/a.unit,
 *   fz/type, and tracefs events/fz/tp/id
 * Then every event is explained (kfit_event_why) and the PMUs listed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmu.h"
#include "fuzzlib.h"

static const char *const files[][2] = {
	{ "sys/msr/type", "9\n" },
	{ "sys/msr/format/event", "config:0-63\n" },
	{ "sys/msr/events/tsc", "event=0x00\n" },
	{ "sys/cpu/type", "4\n" },
	{ "sys/cpu/format/event", "config:0-7\n" },
	{ "sys/cpu/format/umask", "config:8-15\n" },
	{ "sys/cpu/format/edge", "config:18\n" },
	{ "sys/cpu/format/cmask", "config:24-31\n" },
	{ "sys/cpu/format/ldlat", "config1:0-15\n" },
	{ "sys/cpu/format/split", "config2:0-3,8-11\n" },
	{ "sys/cpu/format/top", "config:63\n" },
	{ "sys/cpu/format/bad", "nonsense\n" },
	{ "sys/cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n" },
	{ "sys/cpu/events/x", "event=0x3c" },
	{ "sys/cpu/events/x.scale", "0.5\n" },
	{ "sys/cpu/events/x.unit", "MiB\n" },
	{ "sys/cpu/events/broken", "event=zz\n" },
	{ "sys/cpu/events/nested", "mem-loads\n" },
	{ "sys/power/type", "10\n" },
	{ "sys/power/format/event", "config:0-7\n" },
	{ "sys/power/events/energy-pkg", "event=0x02\n" },
	{ "sys/power/events/energy-pkg.unit", "Joules\n" },
	{ "sys/power/events/energy-pkg.scale", "2.3283064365386962890625e-10\n" },
	{ "sys/software/type", "1\n" },
	{ "sys/tracepoint/type", "2\n" },
	{ "sys/fz/format/g", "config1:0-3,8-11\n" },
	{ "trace/events/sched/sched_switch/id", "316\n" },
	{ "trace/events/sched/sched_wakeup/id", "317\n" },
	{ "trace/events/sched/bad_id/id", "abc\n" },
	{ "trace/available_events", "sched:sched_switch\n" },
};

/* The fuzzed files, in the order of the input's lines after the first */
static const char *const fuzzed[] = {
	"sys/fz/format/f", "sys/fz/events/a", "sys/fz/events/a.scale",
	"sys/fz/events/a.unit", "sys/fz/type", "trace/events/fz/tp/id",
};

static const int errs[] = { ENOENT, EOPNOTSUPP, ENODEV, EINVAL, EBUSY, EMFILE };

static const char *dir;
static char sysfs[256], tracefs[256];
static struct kfit_pmu_env env;
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	size_t i;

	(void)argc;
	(void)argv;
	dir = fz_tmpdir("pmu");
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		fz_put(dir, files[i][0], files[i][1], strlen(files[i][1]));
	snprintf(sysfs, sizeof(sysfs), "%s/sys", dir);
	snprintf(tracefs, sizeof(tracefs), "%s/trace", dir);
	env.sysfs = sysfs;
	env.tracefs = tracefs;
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	return 0;
}

static void check(const struct kfit_event_list *l, int before)
{
	char why[512];
	size_t k;
	int i;

	if (l->n < before || l->n > KFIT_MAX_EVENTS)
		abort();
	for (i = 0; i < l->n; i++) {
		const struct kfit_event *e = &l->ev[i];

		/* Strings the tools print: terminated within their arrays */
		if (!memchr(e->name, '\0', sizeof(e->name)) ||
		    !memchr(e->pmu, '\0', sizeof(e->pmu)) ||
		    !memchr(e->unit, '\0', sizeof(e->unit)))
			abort();
		if (e->leader < 0 || e->leader > i)
			abort();
		for (k = 0; k < sizeof(errs) / sizeof(errs[0]); k++)
			kfit_event_why(e, -errs[k], &env, why, sizeof(why));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct kfit_event_list l = { 0 };
	char err[512], *spec, *s;
	size_t i;
	int n;

	spec = fz_line(&p, end);
	if (!spec)
		return 0;
	for (i = 0; i < sizeof(fuzzed) / sizeof(fuzzed[0]); i++) {
		s = fz_line(&p, end);
		fz_put(dir, fuzzed[i], s, s ? strlen(s) : 0);
		free(s);
	}
	/* Twice: the second appends to the first, up to the limit */
	for (i = 0; i < 2; i++) {
		n = l.n;
		err[0] = '\0';
		if (kfit_events_parse(&l, spec, &env, err, sizeof(err))) {
			if (!err[0] || l.n != n)
				abort();	/* a reason, and the list untouched */
		}
		check(&l, n);
	}
	kfit_events_list(devnull, &env);
	free(spec);
	return 0;
}
