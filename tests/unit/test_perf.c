// SPDX-License-Identifier: GPL-2.0
/*
 * src/lib/perf/perf.c on this process's software events (any kernel with
 * perf events has them; root or perf_event_paranoid <= 2 may count one's
 * own task): groups, enabling, per-CPU sets, and tasks that do not exist.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "perf.h"

#define PAGES 256

static void parse(struct kfit_pmu_event_list *l, const char *spec)
{
	struct kfit_pmu_env env = {};
	char err[256];

	memset(l, 0, sizeof(*l));
	if (kfit_pmu_parse(l, spec, &env, err, sizeof(err)))
		fail_msg("%s: %s", spec, err);
}

/* PAGES page faults of our own */
static void touch_pages(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, PAGES * psz, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i;

	assert_true(p != MAP_FAILED);
	for (i = 0; i < PAGES; i++)
		((volatile char *)p)[i * psz] = 1;
	munmap(p, PAGES * psz);
}

static __u64 value(const struct kfit_perf_set *s, int i)
{
	struct kfit_perf_count c;

	assert_int_equal(kfit_perf_read(s->c[i].fd, &c), 0);
	return c.value;
}

static void test_open_read(void **state)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_PAGE_FAULTS,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
	};
	struct kfit_perf_count c;
	int fd;

	(void)state;
	fd = kfit_perf_open(&a, 0, -1, -1);
	assert_true(fd >= 0);
	touch_pages();
	assert_int_equal(kfit_perf_read(fd, &c), 0);
	assert_true(c.value >= PAGES);
	assert_true(c.enabled > 0 && c.running > 0);
	close(fd);
	/* a bad attribute: -errno */
	a.type = 0x7fffffff;
	assert_int_equal(kfit_perf_open(&a, 0, -1, -1), -ENOENT);
	assert_int_equal(errno, ENOENT);
}

/*
 * One task, a group: leaders start disabled, count once enabled, and the
 * member stops with its leader.
 */
static void test_group_on_task(void **state)
{
	struct kfit_pmu_event_list l;
	struct kfit_perf_set s;
	pid_t self = 0;
	struct kfit_perf_where w = { .tids = &self, .ntids = 1 };
	__u64 before, after;

	(void)state;
	parse(&l, "{task-clock,page-faults},context-switches");
	assert_int_equal(kfit_perf_set_open(&s, &l, &w), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.err[0], 0);
	assert_int_equal(s.err[1], 0);
	assert_int_equal(s.err[2], 0);
	assert_true(s.c[0].leader && !s.c[1].leader && s.c[2].leader);
	assert_int_equal(s.c[0].cpu, -1);
	assert_int_equal(s.c[1].ev, 1);
	touch_pages();
	assert_int_equal(value(&s, 1), 0);
	kfit_perf_ioctl_leaders(&s, PERF_EVENT_IOC_ENABLE);
	touch_pages();
	before = value(&s, 1);
	assert_true(before >= PAGES);
	kfit_perf_ioctl_leaders(&s, PERF_EVENT_IOC_DISABLE);
	touch_pages();
	after = value(&s, 1);
	assert_int_equal(after, before);
	kfit_perf_set_close(&s);
	assert_int_equal(s.n, 0);
	assert_null(s.c);
	kfit_pmu_event_list_free(&l);
}

/* Whether cpu is online (cpu0 often has no "online" file: it stays) */
static bool cpu_online(int cpu)
{
	char path[64], c = '1';
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "r");
	if (!f)
		return cpu == 0;
	if (fread(&c, 1, 1, f) != 1)
		c = '0';
	fclose(f);
	return c == '1';
}

/* Every task, on the CPUs chosen: one counter per CPU and event */
static void test_per_cpu(void **state)
{
	int ncpus = sysconf(_SC_NPROCESSORS_CONF), cpu, i, n = 0;
	struct kfit_perf_where w = { .ncpus = ncpus };
	struct kfit_pmu_event_list l;
	struct kfit_perf_set s;
	pid_t all = -1;
	bool *cpus;

	(void)state;
	cpus = calloc(ncpus, sizeof(bool));
	assert_non_null(cpus);
	for (cpu = 0; cpu < ncpus; cpu++) {
		cpus[cpu] = cpu_online(cpu);
		n += cpus[cpu];
	}
	w.tids = &all;
	w.ntids = 1;
	w.cpus = cpus;
	parse(&l, "cpu-clock,page-faults");
	assert_int_equal(kfit_perf_set_open(&s, &l, &w), 0);
	assert_int_equal(s.err[0], 0);
	assert_int_equal(s.err[1], 0);
	assert_int_equal(s.n, 2 * n);
	for (i = 0; i < s.n; i++) {
		assert_true(s.c[i].cpu >= 0 && s.c[i].cpu < ncpus);
		assert_true(cpus[s.c[i].cpu]);
		assert_true(s.c[i].leader);
	}
	kfit_perf_set_close(&s);
	kfit_pmu_event_list_free(&l);
	free(cpus);
}

/* A pid that has ended */
static pid_t ended_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

/* Tasks that are gone: an error alone, no error beside a live one */
static void test_gone_tasks(void **state)
{
	struct kfit_pmu_event_list l;
	struct kfit_perf_set s;
	pid_t tids[2] = { ended_pid(), 0 };
	struct kfit_perf_where w = { .tids = tids, .ntids = 1 };

	(void)state;
	parse(&l, "page-faults");
	assert_int_equal(kfit_perf_set_open(&s, &l, &w), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.err[0], -ESRCH);
	kfit_perf_set_close(&s);
	w.ntids = 2;
	assert_int_equal(kfit_perf_set_open(&s, &l, &w), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.err[0], 0);
	kfit_perf_set_close(&s);
	kfit_pmu_event_list_free(&l);
}

/* A member whose leader could not open is not opened alone */
static void test_member_without_leader(void **state)
{
	struct kfit_pmu_event_list l;
	struct kfit_perf_set s;
	pid_t gone = ended_pid();
	struct kfit_perf_where w = { .tids = &gone, .ntids = 1 };

	(void)state;
	parse(&l, "{task-clock,page-faults}");
	assert_int_equal(kfit_perf_set_open(&s, &l, &w), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.err[0], -ESRCH);
	assert_int_equal(s.err[1], -ESRCH);
	kfit_perf_set_close(&s);
	kfit_pmu_event_list_free(&l);
}

/*
 * Many events (what a tracepoint glob gives): each opened on its own, all
 * counting the same thing, past what a fixed array once held
 */
static void test_many_events(void **state)
{
	enum { N = 300 };
	struct kfit_pmu_event_list l;
	struct kfit_perf_set s;
	pid_t self = 0;
	struct kfit_perf_where w = { .tids = &self, .ntids = 1 };
	char *spec = malloc(N * 3);
	__u64 v;
	int i;

	(void)state;
	assert_non_null(spec);
	spec[0] = 0;
	for (i = 0; i < N; i++)
		strcat(spec, i ? ",cs" : "cs");
	parse(&l, spec);
	free(spec);
	assert_int_equal(l.n, N);
	assert_int_equal(kfit_perf_set_open(&s, &l, &w), 0);
	assert_int_equal(s.n, N);
	kfit_perf_ioctl_leaders(&s, PERF_EVENT_IOC_ENABLE);
	for (i = 0; i < 3; i++)
		usleep(1000);	/* a sleep is a context switch */
	kfit_perf_ioctl_leaders(&s, PERF_EVENT_IOC_DISABLE);
	v = value(&s, 0);
	assert_true(v >= 3);
	for (i = 0; i < N; i++) {
		assert_int_equal(s.err[i], 0);
		assert_int_equal(s.c[i].ev, i);
		assert_true(s.c[i].leader);
	}
	kfit_perf_set_close(&s);
	kfit_pmu_event_list_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_read),
		cmocka_unit_test(test_group_on_task),
		cmocka_unit_test(test_per_cpu),
		cmocka_unit_test(test_gone_tasks),
		cmocka_unit_test(test_member_without_leader),
		cmocka_unit_test(test_many_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
