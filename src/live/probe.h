/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_PROBE_H
#define KFIT_PROBE_H

#include <stdbool.h>
#include "caps.h"

/*
 * What the running kernel lets us trace, found by trying: each check
 * loads and attaches a tiny program (bpf/probe.bpf.c), triggers it
 * and sees it run. Shared by tracecheck and by every tool's diagnostics.
 */
enum kfit_mech {
	KFIT_M_BTF_VMLINUX,
	KFIT_M_BTF_MODULES,
	KFIT_M_FENTRY,
	KFIT_M_FEXIT,
	KFIT_M_KPROBE,
	KFIT_M_KRETPROBE,
	KFIT_M_KPROBE_MULTI,
	KFIT_M_TRACEPOINT,
	KFIT_M_TP_BTF,
	KFIT_M_RAW_TP,
	KFIT_M_UPROBE,
	KFIT_M_URETPROBE,
	KFIT_M_RINGBUF,
	KFIT_M_PERF_SW,
	KFIT_M_PERF_HW,
	KFIT_M_LOCKDOWN,
	KFIT_M_CAPS,
	KFIT_M_TRACEFS,
	KFIT_M_NR
};

enum kfit_probe_state {
	KFIT_P_OK,		/* works */
	KFIT_P_NO,		/* does not work; detail says why */
	KFIT_P_INFO,		/* not a yes/no (lockdown mode, capabilities) */
};

struct kfit_probe_result {
	enum kfit_probe_state state;
	int err;		/* negative errno when state is KFIT_P_NO */
	char detail[256];	/* one line: why not, or what was found */
};

const char *kfit_probe_mech_name(enum kfit_mech m);
/* The mechanism of that name ("fentry", "raw_tracepoint", ...), else KFIT_M_NR */
enum kfit_mech kfit_probe_mech_by_name(const char *name);
/* Run one check (results are cached for the life of the process). */
const struct kfit_probe_result *kfit_probe(enum kfit_mech m);
static inline bool kfit_probe_works(enum kfit_mech m)
{
	return kfit_probe(m)->state == KFIT_P_OK;
}

#endif
