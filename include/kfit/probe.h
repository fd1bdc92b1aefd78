/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The library's probe set (bpf/probe.bpf.c): one program per tracing
 * mechanism, whose hits[] src/live/probe.c reads after triggering it.
 */
#ifndef KFIT_PROBE_PROGS_H
#define KFIT_PROBE_PROGS_H

enum kfit_probe_prog {
	KFIT_PROBE_NONE,	/* a check that loads no program */
	KFIT_PROBE_FENTRY,
	KFIT_PROBE_FEXIT,
	KFIT_PROBE_KPROBE,
	KFIT_PROBE_KRETPROBE,
	KFIT_PROBE_KPROBE_MULTI,
	KFIT_PROBE_TRACEPOINT,
	KFIT_PROBE_TP_BTF,
	KFIT_PROBE_RAW_TP,
	KFIT_PROBE_UPROBE,
	KFIT_PROBE_URETPROBE,
	KFIT_PROBE_RINGBUF,
	KFIT_PROBE_PERF_SW,
	KFIT_PROBE_NR
};

#endif
