// SPDX-License-Identifier: GPL-2.0
/*
 * The sampler with the probe set's perf_event program (bpf/probe.bpf.c's
 * on_perf_sw: hits[KFIT_PROBE_PERF_SW] counts the samples that found this
 * process on CPU). Needs CAP_BPF and CAP_PERFMON (skipped without).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>
#include <cmocka.h>
#include "caps.h"
#include "fileio.h"
#include "kfit/probe.h"
#include "pmu.h"
#include "probe.skel.h"
#include "sampler.h"
#include "testlib.h"

static struct probe_bpf *skel;

static int setup(void **state)
{
	struct kfit_caps caps;
	struct bpf_program *p;

	(void)state;
	if (kfit_caps_get(&caps) || !kfit_caps_enough(&caps))
		return 0;
	libbpf_set_print(NULL);
	skel = probe_bpf__open();
	if (!skel)
		return -1;
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == skel->progs.on_perf_sw);
	bpf_map__set_autocreate(skel->maps.rb, false);
	skel->rodata->target_tgid = getpid();
	return probe_bpf__load(skel);
}

static int teardown(void **state)
{
	(void)state;
	probe_bpf__destroy(skel);
	return 0;
}

static volatile __u64 *hits(void)
{
	return &skel->bss->hits[KFIT_PROBE_PERF_SW];
}

static __u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* Busy for ms milliseconds of wall time */
static void spin(__u64 ms)
{
	__u64 end = now_ms() + ms;

	while (now_ms() < end)
		;
}

/* Busy until a sample found us: true, or false after 10 s (a failure) */
static bool spin_until_hit(void)
{
	__u64 end = now_ms() + 10000;

	while (!*hits() && now_ms() < end)
		spin(10);
	return *hits() > 0;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	assert_int_equal(sched_setaffinity(0, sizeof(set), &set), 0);
}

static void unpin(void)
{
	cpu_set_t set;
	int cpu;

	CPU_ZERO(&set);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

#define NEED_SKEL()		\
	do {			\
		if (!skel)	\
			skip();	\
	} while (0)

/* Every online CPU, disabled until enabled, silent once freed */
static void test_default(void **state)
{
	struct kfit_sampler *s;
	__u64 seen;

	(void)state;
	NEED_SKEL();
	*hits() = 0;
	assert_int_equal(kfit_sampler_open(skel->progs.on_perf_sw, NULL, &s), 0);
	assert_string_equal(kfit_sampler_event(s),
			    kfit_pmu_has_cpu(NULL) ? "cycles" : "cpu-clock");
	assert_int_equal(kfit_sampler_hz(s), KFIT_SAMPLER_DEFAULT_HZ);
	assert_int_equal(kfit_sampler_ncpus(s), sysconf(_SC_NPROCESSORS_ONLN));
	/* 30 samples' worth at 99 Hz, had it been enabled */
	spin(300);
	assert_int_equal(*hits(), 0);
	assert_int_equal(kfit_sampler_enable(s), 0);
	assert_true(spin_until_hit());
	assert_int_equal(kfit_sampler_disable(s), 0);
	seen = *hits();
	spin(300);
	assert_int_equal(*hits(), seen);
	assert_int_equal(kfit_sampler_enable(s), 0);
	kfit_sampler_free(s);
	seen = *hits();
	spin(300);
	assert_int_equal(*hits(), seen);
}

/* Only the CPUs chosen: a process kept off them is never sampled */
static void test_cpus(void **state)
{
	struct kfit_sampler_opts o = { .hz = 999, .clock = KFIT_SAMPLER_CLOCK_CPU };
	struct kfit_cpuset set = { 0 };
	struct kfit_sampler *s;

	(void)state;
	NEED_SKEL();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		skip();
	assert_int_equal(kfit_opts_parse_cpulist("1", kfit_ncpus_possible(NULL), &set), 0);
	o.cpus = &set;
	*hits() = 0;
	assert_int_equal(kfit_sampler_open(skel->progs.on_perf_sw, &o, &s), 0);
	assert_string_equal(kfit_sampler_event(s), "cpu-clock");
	assert_int_equal(kfit_sampler_hz(s), 999);
	assert_int_equal(kfit_sampler_ncpus(s), 1);
	assert_int_equal(kfit_sampler_enable(s), 0);
	pin(0);
	/* 300 samples' worth at 999 Hz */
	spin(300);
	assert_int_equal(*hits(), 0);
	pin(1);
	assert_true(spin_until_hit());
	unpin();
	kfit_sampler_free(s);
}

static const struct kfit_sampler_opts *fail_opts;
static int fail_ret;

static void open_it(void)
{
	struct kfit_sampler *s = (void *)1;

	fail_ret = kfit_sampler_open(skel->progs.on_perf_sw, fail_opts, &s);
	assert_null(s);
}

/* kfit_sampler_open fails: its return, what it said in err */
static int open_fails(const struct kfit_sampler_opts *o, char *err, size_t len)
{
	fail_opts = o;
	t_stderr_of(open_it, err, len);
	return fail_ret;
}

static void test_refusals(void **state)
{
	struct kfit_sampler_opts o = { .hz = 100000000, .clock = KFIT_SAMPLER_CLOCK_CPU };
	char err[1024];

	(void)state;
	NEED_SKEL();
	assert_int_equal(open_fails(&o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "cannot open cpu-clock sampling events (100000000 Hz) "
			       "on CPU 0: 100000000 Hz is above "
			       "/proc/sys/kernel/perf_event_max_sample_rate ("));
	/* Cycles where there is no PMU */
	if (!kfit_pmu_has_cpu(NULL)) {
		o = (struct kfit_sampler_opts){ .clock = KFIT_SAMPLER_CLOCK_CYCLES };
		assert_true(open_fails(&o, err, sizeof(err)) < 0);
		assert_non_null(strstr(err, "cannot open cycles sampling events (99 Hz) on "
				       "CPU 0: this machine exposes no hardware PMU"));
	}
}

/* Without privileges: what perf_event_paranoid says, in words */
static void test_unprivileged(void **state)
{
	struct kfit_sampler_opts o = { .clock = KFIT_SAMPLER_CLOCK_CPU };
	char paranoid[32], err[1024];
	int st, ret;
	pid_t pid;
	FILE *f;

	(void)state;
	NEED_SKEL();
	if (kfit_read_line("/proc/sys/kernel/perf_event_paranoid", paranoid,
			   sizeof(paranoid)) || atoi(paranoid) < 1)
		skip();
	f = tmpfile();
	assert_non_null(f);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		/* nobody: no capabilities left */
		if (setgid(65534) || setuid(65534))
			_exit(3);
		ret = open_fails(&o, err, sizeof(err));
		fputs(err, f);
		fflush(f);
		_exit(ret == -EACCES ? 0 : 4);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	rewind(f);
	err[fread(err, 1, sizeof(err) - 1, f)] = '\0';
	fclose(f);
	print_message("%s", err);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_non_null(strstr(err, "cannot open cpu-clock sampling events (99 Hz) on CPU 0: "
			       "not permitted (/proc/sys/kernel/perf_event_paranoid is "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_unprivileged),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
