/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_PMU_H
#define KFIT_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/perf_event.h>

/*
 * perf event names, as perf spells them, into perf_event_attr:
 *   cycles, instructions, cache-misses, ...	PERF_TYPE_HARDWARE
 *   L1-dcache-load-misses, LLC-loads, ...	PERF_TYPE_HW_CACHE
 *   cpu-clock, task-clock, page-faults, cs ...	PERF_TYPE_SOFTWARE
 *   r13c					PERF_TYPE_RAW, config 0x13c
 *   msr/tsc/, cpu/event=0x3c,umask=0x01/	a PMU under sysfs, its format/
 *						fields and events/ aliases
 *   sched:sched_switch, 'syscalls:sys_enter_*'	PERF_TYPE_TRACEPOINT (tracefs
 *						id), one event per match
 *   mem:ADDR[/LEN][:rwx]			PERF_TYPE_BREAKPOINT
 *   TYPE:CONFIG (1:1)				that type and config
 *   EVENT/name=x,config=N,.../			terms on any of the above
 * with perf's modifiers (:u :k :h :G :H :I :p..ppp :P :S :D :e, the
 * meaning perf gives them), lists "a,b", groups "{a,b}" and named groups
 * "name{a,b}" (a modifier after the brace applies to every member).
 */

#define KFIT_PMU_MAX_EVENTS 4096
#define KFIT_PMU_EVENT_NAME_LEN 128

struct kfit_pmu_event {
	char name[KFIT_PMU_EVENT_NAME_LEN];	/* as written, modifiers included */
	char label[KFIT_PMU_EVENT_NAME_LEN];	/* its column: the name= term, else name */
	char group[32];		/* the group's name ("g1" of g1{a,b}), or "" */
	struct perf_event_attr attr;	/* size, type, config*, exclude_* set */
	int leader;		/* index of its group leader; its own index if alone */
	bool grouped;		/* written inside { } */
	char pmu[32];		/* "software", "tracepoint", "cpu" (hardware,
				   cache, raw) or the sysfs PMU's name */
	char unit[16];		/* "ns" for the clocks, a PMU's events/X.unit, or "" */
	double scale;		/* a PMU's events/X.scale, else 1.0 */
	bool gh;		/* :G or :H was given (perf's exclude_GH) */
};

/* Zeroed, it is empty; kfit_pmu_event_list_free() gives its memory back */
struct kfit_pmu_event_list {
	int n, cap;
	struct kfit_pmu_event *ev;
};

void kfit_pmu_event_list_free(struct kfit_pmu_event_list *l);

/* Where to look; NULL fields mean the real locations */
struct kfit_pmu_env {
	const char *sysfs;	/* /sys/bus/event_source/devices */
	const char *tracefs;	/* /sys/kernel/tracing, else /sys/kernel/debug/tracing */
};

/*
 * Parse one -e argument and append its events to l. Returns 0, or -1 with
 * a one-line reason in err (no trailing newline, no tool name), e.g.
 * "unknown event 'cyles' (did you mean 'cycles'?)"; l then holds what it
 * held before. Past KFIT_PMU_MAX_EVENTS in all: "too many events: N (at most
 * 4096)".
 */
int kfit_pmu_parse(struct kfit_pmu_event_list *l, const char *spec,
		      const struct kfit_pmu_env *env, char *err, size_t errlen);

/*
 * Why perf_event_open(e) failed with -err, in words, into buf; returns buf.
 * E.g. for a hardware event with ENOENT on a machine without a CPU PMU:
 * "this machine exposes no hardware PMU (usual in VMs); software events and
 * msr/ counters work" (the PMUs named are the ones present).
 */
const char *kfit_pmu_event_why(const struct kfit_pmu_event *e, int err,
			   const struct kfit_pmu_env *env, char *buf, size_t len);

/*
 * Why perf_event_open() gave EACCES or EPERM, into buf; returns buf:
 * "not permitted (/proc/sys/kernel/perf_event_paranoid is 2): needs root
 * or CAP_PERFMON, or a lower perf_event_paranoid"
 */
const char *kfit_pmu_perf_denied(char *buf, size_t len);

/* Whether sysfs (NULL: the real one) has a CPU PMU: cpu, cpu_core or cpu_atom */
bool kfit_pmu_has_cpu(const char *sysfs);

/* Every named event, PMU and PMU alias, one per line (--list) */
void kfit_pmu_list(FILE *f, const struct kfit_pmu_env *env);

#endif
