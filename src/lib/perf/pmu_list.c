// SPDX-License-Identifier: GPL-2.0
/*
 * What perf event names there are (--list), and why the kernel refused
 * to open an event, in words.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include "fileio.h"
#include "pmu_int.h"

#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"

/* PMUs that count something on a machine without a CPU PMU (msr, power, ...) */
static int other_pmu_filter(const struct dirent *d)
{
	static const char *const skip[] = {
		"software", "tracepoint", "breakpoint", "uprobe", "kprobe",
	};
	size_t i;

	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (!strcmp(d->d_name, skip[i]))
			return 0;
	return pmu_names_no_dots(d) && strncmp(d->d_name, "cpu", 3);
}

bool kfit_pmu_has_cpu(const char *sysfs)
{
	static const char *const cpus[] = { "cpu", "cpu_core", "cpu_atom" };
	char path[PATH_MAX];
	size_t i;

	if (!sysfs)
		sysfs = SYSFS_PMUS;
	for (i = 0; i < sizeof(cpus) / sizeof(cpus[0]); i++)
		if (!kfit_pathf(path, sizeof(path), "%s/%s", sysfs, cpus[i]) &&
		    !access(path, F_OK))
			return true;
	return false;
}

static const char *no_cpu_pmu(const char *sysfs, char *buf, size_t len)
{
	struct names nm;
	char list[256];

	pmu_names_read(&nm, other_pmu_filter, "%s", sysfs);
	pmu_names_join(&nm, 8, "/", list, sizeof(list));
	pmu_names_free(&nm);
	if (!*list)
		snprintf(buf, len, "this machine exposes no hardware PMU (usual in VMs); only software events work");
	else
		snprintf(buf, len, "this machine exposes no hardware PMU (usual in VMs); software events and %s counters work",
			 list);
	return buf;
}

const char *kfit_pmu_perf_denied(char *buf, size_t len)
{
	char paranoid[32];

	if (kfit_read_line(PARANOID, paranoid, sizeof(paranoid)))
		snprintf(paranoid, sizeof(paranoid), "unreadable");
	snprintf(buf, len, "not permitted (" PARANOID " is %s): needs root or CAP_PERFMON, or a lower perf_event_paranoid",
		 paranoid);
	return buf;
}

const char *kfit_pmu_event_why(const struct kfit_pmu_event *e, int err,
			   const struct kfit_pmu_env *env, char *buf, size_t len)
{
	const char *sysfs = env && env->sysfs ? env->sysfs : SYSFS_PMUS;
	bool cpu = !strcmp(e->pmu, "cpu");

	if (!len)
		return buf;
	if (err < 0)
		err = -err;
	if (cpu && (err == ENOENT || err == EOPNOTSUPP || err == ENODEV) &&
	    !kfit_pmu_has_cpu(sysfs))
		return no_cpu_pmu(sysfs, buf, len);
	switch (err) {
	case ENOENT:
		if (cpu)
			snprintf(buf, len, "the CPU's PMU does not know this event");
		else
			snprintf(buf, len, "the %s PMU does not know this event", e->pmu);
		break;
	case EOPNOTSUPP:
		snprintf(buf, len, "the %s PMU does not support counting it this way (modifiers?)",
			 cpu ? "CPU's" : e->pmu);
		break;
	case ENODEV:
		snprintf(buf, len, "the %s PMU cannot count on this CPU",
			 cpu ? "CPU's" : e->pmu);
		break;
	case EACCES:
	case EPERM:
		kfit_pmu_perf_denied(buf, len);
		break;
	case EMFILE:
		snprintf(buf, len, "too many open files (raise ulimit -n)");
		break;
	case ENOSPC:
		if (e->attr.type == PERF_TYPE_BREAKPOINT)
			snprintf(buf, len, "no debug register left (x86 has 4 per CPU, for every breakpoint there)");
		else
			snprintf(buf, len, "%s", strerror(err));
		break;
	case EINVAL:
		/* x86 traps on writes, reads and writes, or execution */
		if (e->attr.type == PERF_TYPE_BREAKPOINT && e->attr.bp_type == HW_BREAKPOINT_R)
			snprintf(buf, len, "x86 breakpoints cannot trap reads alone: use :rw");
		else if (e->attr.type == PERF_TYPE_BREAKPOINT)
			snprintf(buf, len, "the kernel refused this breakpoint: LEN must be 1, 2, 4 or 8 (8 for :x) and ADDR a multiple of it");
		/* uncore-like PMUs (msr, power) count everything or nothing */
		else if (!cpu && (e->attr.exclude_user || e->attr.exclude_kernel))
			snprintf(buf, len, "the %s PMU cannot count by privilege level: drop the :u/:k/:h modifier",
				 e->pmu);
		else
			snprintf(buf, len, "the kernel rejected its attributes (modifier or PMU term not supported?)");
		break;
	case EBUSY:
		snprintf(buf, len, "the counter is in use by someone else (e.g. the NMI watchdog: sysctl kernel.nmi_watchdog=0)");
		break;
	default:
		snprintf(buf, len, "%s", strerror(err));
		break;
	}
	return buf;
}

/* "event=N,umask=N,edge": how to write the PMU's terms */
static void pmu_template(const char *sysfs, const char *pmu, char *buf, size_t len)
{
	struct perf_event_attr a;
	char fmt[LINE_LEN];
	struct names nm;
	struct field f;
	size_t off = 0;
	int i;

	pmu_names_read(&nm, pmu_names_no_dots, "%s/%s/format", sysfs, pmu);
	snprintf(buf, len, "config=N");
	for (i = 0; i < nm.n; i++) {
		const char *t = nm.d[i]->d_name;

		if (kfit_read_linef(fmt, sizeof(fmt), "%s/%s/format/%s", sysfs, pmu, t) ||
		    pmu_sysfs_format_parse(fmt, &a, &f))
			continue;
		off = pmu_names_append(buf, len, off, "%s%s%s", off ? "," : "", t,
			     f.bits == 1 ? "" : "=N");
	}
	pmu_names_free(&nm);
}

static void list_pmu(FILE *f, const char *sysfs, const char *pmu)
{
	char type[32], terms[LINE_LEN], unit[64];
	struct names ev;
	int i;

	if (kfit_read_linef(type, sizeof(type), "%s/%s/type", sysfs, pmu))
		return;
	pmu_template(sysfs, pmu, terms, sizeof(terms));
	fprintf(f, "PMU %s (type %s): %s/%s/\n", pmu, type, pmu, terms);
	pmu_names_read(&ev, pmu_names_alias_filter, "%s/%s/events", sysfs, pmu);
	for (i = 0; i < ev.n; i++) {
		const char *name = ev.d[i]->d_name;

		if (kfit_read_linef(unit, sizeof(unit), "%s/%s/events/%s.unit", sysfs,
			       pmu, name) || !*unit)
			fprintf(f, "  %s/%s/\n", pmu, name);
		else
			fprintf(f, "  %s/%s/ (%s)\n", pmu, name, unit);
	}
	pmu_names_free(&ev);
}

void kfit_pmu_list(FILE *f, const struct kfit_pmu_env *env)
{
	const char *sysfs = env && env->sysfs ? env->sysfs : SYSFS_PMUS;
	struct all_names all;
	struct names nm;
	const char *tfs;
	int i, why;

	pmu_names_all(&all);
	tfs = kfit_tracefs_events(env ? env->tracefs : NULL, &why);
	fprintf(f, "hardware events (the CPU's PMU):\n");
	for (i = 0; i < NR_NAMED; i++)
		if (pmu_names_named[i].type == PERF_TYPE_HARDWARE)
			fprintf(f, "  %s\n", pmu_names_named[i].name);
	fprintf(f, "hardware cache events (the CPU's PMU):\n");
	for (i = NR_NAMED; i < NR_ALL; i++)
		fprintf(f, "  %s\n", all.v[i]);
	fprintf(f, "software events (the kernel):\n");
	for (i = 0; i < NR_NAMED; i++)
		if (pmu_names_named[i].type == PERF_TYPE_SOFTWARE)
			fprintf(f, "  %s\n", pmu_names_named[i].name);
	fprintf(f, "raw CPU events: rNNN, NNN the config in hex (e.g. r13c)\n");
	pmu_names_read(&nm, pmu_names_no_dots, "%s", sysfs);
	for (i = 0; i < nm.n; i++)
		list_pmu(f, sysfs, nm.d[i]->d_name);
	pmu_names_free(&nm);
	if (tfs)
		fprintf(f, "tracepoints: category:name, e.g. sched:sched_switch; see %s/available_events\n",
			tfs);
	else
		fprintf(f, "tracepoints: category:name, e.g. sched:sched_switch (but tracefs is %s)\n",
			why == EACCES ? "not readable: root needed" : "not mounted");
	fprintf(f, "hardware breakpoints: mem:ADDR[/LEN][:rwx], e.g. mem:0x1000/8:w\n");
	fprintf(f, "by number: TYPE:CONFIG, e.g. 1:1 (task-clock); terms on any event: cycles/name=cyc,config1=N/\n");
	fprintf(f, "modifiers: :u user, :k kernel, :h hypervisor, :G guest, :H host, :I no idle, :p..ppp precise, :D pinned, :e exclusive (P, S accepted)\n");
	fprintf(f, "groups: {cycles,instructions}:u, named: g1{cycles,instructions},g2{...}\n");
}
