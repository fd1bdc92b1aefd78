// SPDX-License-Identifier: GPL-2.0
/*
 * perf event syntax (pmu.h): kfit_pmu_parse of pmcstat -e strings over
 * a fixed sysfs and tracefs in /tmp (test_pmu's machine in miniature), so
 * that a run does not depend on this host. The input's first line is the
 * spec; the next lines, when there, are the files of one more PMU, "fz",
 * and of a tracepoint, so that what sysfs says is fuzzed too:
 *   fz/format/f, fz/events/a, fz/events/a.scale, fz/events/a.unit,
 *   fz/type, and tracefs events/fz/tp/id
 * Then every event is explained (kfit_pmu_event_why) and the PMUs listed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmu.h"
#include "fuzzlib.h"

#include "../helpers/pmufiles.h"

/* The fuzzed PMU's format, beside those of the unit test */
static const char *const fz_files[][2] = {
	{ "sys/fz/format/g", "config1:0-3,8-11\n" },
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
	for (i = 0; i < sizeof(pmu_files) / sizeof(pmu_files[0]); i++)
		fz_put(dir, pmu_files[i][0], pmu_files[i][1], strlen(pmu_files[i][1]));
	for (i = 0; i < sizeof(fz_files) / sizeof(fz_files[0]); i++)
		fz_put(dir, fz_files[i][0], fz_files[i][1], strlen(fz_files[i][1]));
	snprintf(sysfs, sizeof(sysfs), "%s/sys", dir);
	snprintf(tracefs, sizeof(tracefs), "%s/trace", dir);
	env.sysfs = sysfs;
	env.tracefs = tracefs;
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	return 0;
}

static void check(const struct kfit_pmu_event_list *l, int before)
{
	char why[512];
	size_t k;
	int i;

	if (l->n < before || l->n > KFIT_PMU_MAX_EVENTS)
		abort();
	for (i = 0; i < l->n; i++) {
		const struct kfit_pmu_event *e = &l->ev[i];

		/* Strings the tools print: terminated within their arrays */
		if (!memchr(e->name, '\0', sizeof(e->name)) ||
		    !memchr(e->label, '\0', sizeof(e->label)) || !e->label[0] ||
		    !memchr(e->group, '\0', sizeof(e->group)) ||
		    !memchr(e->pmu, '\0', sizeof(e->pmu)) ||
		    !memchr(e->unit, '\0', sizeof(e->unit)))
			abort();
		if (e->leader < 0 || e->leader > i)
			abort();
		for (k = 0; k < sizeof(errs) / sizeof(errs[0]); k++)
			kfit_pmu_event_why(e, -errs[k], &env, why, sizeof(why));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct kfit_pmu_event_list l = { 0 };
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
		if (kfit_pmu_parse(&l, spec, &env, err, sizeof(err))) {
			if (!err[0] || l.n != n)
				abort();	/* a reason, and the list untouched */
		}
		check(&l, n);
	}
	kfit_pmu_list(devnull, &env);
	kfit_pmu_event_list_free(&l);
	free(spec);
	return 0;
}
