// SPDX-License-Identifier: GPL-2.0
/*
 * Durations (duration.h): kfit_duration_parse of any string, with each
 * default unit, then kfit_duration_fmt of what parsed, which must parse
 * back to within its three significant digits.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "duration.h"
#include "fuzzlib.h"

static const __u64 def_units[] = {
	0, KFIT_NSEC, KFIT_USEC, KFIT_MSEC, KFIT_SEC, 60 * KFIT_SEC,
};

static void check_fmt(__u64 ns)
{
	char buf[32], small[6];
	__u64 back, diff;
	int err;

	kfit_duration_fmt(ns, buf, sizeof(buf));
	/* Truncation is snprintf's: no overflow of a short buffer */
	kfit_duration_fmt(ns, small, sizeof(small));
	if (strncmp(buf, small, sizeof(small) - 1))
		abort();
	err = kfit_duration_parse(buf, 0, &back);
	/* Rounded up to whole seconds, the largest values pass UINT64_MAX */
	if (err == -ERANGE && ns > UINT64_MAX - KFIT_SEC)
		return;
	if (err) {
		fprintf(stderr, "%llu formats as '%s', which does not parse (%d)\n",
			(unsigned long long)ns, buf, err);
		abort();
	}
	diff = back > ns ? back - ns : ns - back;
	/* Three digits: within half a unit of the third, 0.5% */
	if (diff > ns / 200 + 1) {
		fprintf(stderr, "%llu formats as '%s', which parses as %llu\n",
			(unsigned long long)ns, buf, (unsigned long long)back);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fz_str(data, size);
	size_t i;
	__u64 ns;

	for (i = 0; i < sizeof(def_units) / sizeof(def_units[0]); i++) {
		if (!kfit_duration_parse(s, def_units[i], &ns))
			check_fmt(ns);
	}
	/* Every value formats, not only those a string can give */
	if (size >= 8) {
		memcpy(&ns, data, 8);
		check_fmt(ns);
	}
	free(s);
	return 0;
}
