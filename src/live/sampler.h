/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_SAMPLER_H
#define KFIT_SAMPLER_H

#include <linux/types.h>
#include "opts.h"	/* struct kfit_cpuset */

struct bpf_program;

/*
 * A sampling perf event on each CPU, at a frequency (freq mode: the
 * kernel adjusts the period to keep the rate), each running a
 * SEC("perf_event") program. Events count every task on their CPU: the
 * program picks the tasks it wants.
 */

#define KFIT_SAMPLER_DEFAULT_HZ	99	/* off the beat of timers at 100 Hz and 1000 Hz */

enum kfit_sampler_clock {
	KFIT_SAMPLER_CLOCK_AUTO,		/* cycles where the CPU has a PMU, else cpu-clock */
	KFIT_SAMPLER_CLOCK_CPU,	/* the software clock: works everywhere, VMs too */
	KFIT_SAMPLER_CLOCK_CYCLES,		/* hardware cycles: needs a PMU */
};

struct kfit_sampler_opts {
	__u32 hz;			/* samples per second per CPU; 0: KFIT_SAMPLER_DEFAULT_HZ */
	const struct kfit_cpuset *cpus;	/* NULL or not set: every online CPU */
	enum kfit_sampler_clock clock;
};

struct kfit_sampler;

/*
 * Open the events (o may be NULL: the defaults) and attach prog to each.
 * They stay disabled until kfit_sampler_enable(), so that all CPUs start
 * together (libbpf enables an event as it attaches it, and it is
 * disabled again at once: a program should still wait for a ready flag).
 * With KFIT_SAMPLER_CLOCK_AUTO, cycles the kernel refuses for want of a PMU fall
 * back to cpu-clock (said with -v).
 *
 * Returns 0, or a negative errno after saying why on stderr: perf events
 * refused ("not permitted (/proc/sys/kernel/perf_event_paranoid is 2):
 * needs root or CAP_PERFMON ..."), a rate above
 * kernel.perf_event_max_sample_rate, a chosen CPU offline, no PMU for
 * cycles, or the attachment refused (kfit_explain).
 */
int kfit_sampler_open(struct bpf_program *prog, const struct kfit_sampler_opts *o,
		      struct kfit_sampler **out);
/* Start or stop sampling on every CPU: 0, or the first ioctl's -errno */
int kfit_sampler_enable(struct kfit_sampler *s);
int kfit_sampler_disable(struct kfit_sampler *s);
/* The event used: "cpu-clock" or "cycles" */
const char *kfit_sampler_event(const struct kfit_sampler *s);
__u32 kfit_sampler_hz(const struct kfit_sampler *s);
/* How many CPUs it samples */
int kfit_sampler_ncpus(const struct kfit_sampler *s);
/* Detach and close everything; s may be NULL */
void kfit_sampler_free(struct kfit_sampler *s);

#endif
