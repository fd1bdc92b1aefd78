// SPDX-License-Identifier: GPL-2.0
/*
 * CPU lists (opts.h): kfit_opts_parse_cpulist of any string against a CPU
 * count from the input's first two bytes; the set stays within it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "opts.h"
#include "fuzzlib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kfit_cpuset set;
	int ncpus, cpu, err;
	char *s;

	if (size < 2)
		return 0;
	/* Up to past KFIT_MAX_CPUS, which bounds it */
	ncpus = ((data[0] << 8 | data[1]) % (KFIT_MAX_CPUS + 64)) + 1;
	s = fz_str(data + 2, size - 2);
	memset(&set, 0xa5, sizeof(set));
	err = kfit_opts_parse_cpulist(s, ncpus, &set);
	if (err) {
		/* A refused list selects nothing, not half of it */
		for (cpu = 0; cpu < KFIT_MAX_CPUS; cpu++)
			if (set.mask[cpu / 8])
				abort();
		if (set.set)
			abort();
	} else {
		if (!set.set)
			abort();
		for (cpu = ncpus; cpu < KFIT_MAX_CPUS; cpu++)
			if (kfit_cpu_selected(&set, cpu))
				abort();
		for (cpu = 0; cpu < ncpus && cpu < KFIT_MAX_CPUS; cpu++)
			if (kfit_cpu_selected(&set, cpu))
				break;
		if (cpu == ncpus || cpu == KFIT_MAX_CPUS)
			abort();	/* a valid list names a CPU */
	}
	free(s);
	return 0;
}
