/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_EXPLAIN_H
#define KFIT_EXPLAIN_H

#include "probe.h"

/*
 * Explain a failed attachment: what failed (mechanism m, on target), why
 * (err is a negative errno from libbpf), and what still works on this
 * kernel, from the checks of probe.c, e.g. "cannot attach fentry to
 * vfs_read: the kernel refused ftrace-based attachment (EPERM); kprobe:
 * attach failed: kprobes are not built in (...). Tracepoints, uprobes,
 * perf software events work here; run tracecheck for details."
 */
void kfit_explain(enum kfit_mech m, const char *target, int err);

/*
 * The same for a mechanism named as kfit_probe_mech_name() names it
 * ("fentry", "kprobe", "raw_tracepoint", ...); another kind is named as
 * given, with no mechanism-specific reason.
 */
void kfit_explain_attach(const char *kind, const char *target, int err);

#endif
