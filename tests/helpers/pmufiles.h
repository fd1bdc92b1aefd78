/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A machine in miniature, files under a temporary root, for the perf
 * event parser's unit test and fuzzer. sys/ has a CPU PMU (formats,
 * events with scales and units, broken ones); sys-nocpu/ is a VM's (msr
 * and power count, the CPU does not); sys-sw/ has only the kernel's own
 * PMUs; sys-hybrid/ has cpu_core instead of cpu; trace/ is a tracefs.
 */
#ifndef KFIT_TEST_PMUFILES_H
#define KFIT_TEST_PMUFILES_H

static const char *const pmu_files[][2] = {
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
	{ "sys/cpu/events/badscale", "event=1\n" },
	{ "sys/cpu/events/badscale.scale", "lots\n" },
	{ "sys/power/type", "10\n" },
	{ "sys/power/format/event", "config:0-7\n" },
	{ "sys/power/events/energy-pkg", "event=0x02\n" },
	{ "sys/power/events/energy-pkg.unit", "Joules\n" },
	{ "sys/power/events/energy-pkg.scale", "2.3283064365386962890625e-10\n" },
	{ "sys/software/type", "1\n" },
	{ "sys/tracepoint/type", "2\n" },
	{ "sys-nocpu/msr/type", "9\n" },
	{ "sys-nocpu/power/type", "10\n" },
	{ "sys-nocpu/software/type", "1\n" },
	{ "sys-nocpu/tracepoint/type", "2\n" },
	{ "sys-nocpu/breakpoint/type", "5\n" },
	{ "sys-nocpu/kprobe/type", "6\n" },
	{ "sys-nocpu/uprobe/type", "7\n" },
	{ "sys-sw/software/type", "1\n" },
	{ "sys-sw/tracepoint/type", "2\n" },
	{ "sys-hybrid/cpu_core/type", "4\n" },
	{ "sys-hybrid/msr/type", "9\n" },
	{ "trace/events/sched/sched_switch/id", "316\n" },
	{ "trace/events/sched/sched_wakeup/id", "317\n" },
	{ "trace/events/sched/bad_id/id", "abc\n" },
	/* ftrace's own records: a format, no id (perf cannot open them) */
	{ "trace/events/ftrace/bprint/format", "name: bprint\nID: 6\n" },
	{ "trace/available_events", "sched:sched_switch\n" },
	{ "notrace/README", "no events/ here\n" },
};

#endif
