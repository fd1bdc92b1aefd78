/* SPDX-License-Identifier: GPL-2.0 */
/* Counters of the capability probes in bpf/tracecheck.bpf.c */
#ifndef KFIT_TRACECHECK_H
#define KFIT_TRACECHECK_H

enum kfit_tc_prog {
	KFIT_TC_FENTRY,
	KFIT_TC_FEXIT,
	KFIT_TC_KPROBE,
	KFIT_TC_KRETPROBE,
	KFIT_TC_KPROBE_MULTI,
	KFIT_TC_TRACEPOINT,
	KFIT_TC_TP_BTF,
	KFIT_TC_RAW_TP,
	KFIT_TC_UPROBE,
	KFIT_TC_URETPROBE,
	KFIT_TC_RINGBUF,
	KFIT_TC_PERF_SW,
	KFIT_TC_NR
};

#endif
