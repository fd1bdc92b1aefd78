// SPDX-License-Identifier: GPL-2.0
/*
 * A failed attachment in words: what failed, why, and what still works,
 * from the checks that really tried each mechanism here (probe.c).
 */
#include <errno.h>
#include <stdio.h>
#include "diag.h"
#include "explain.h"

static bool is_kprobe(enum kfit_mech m)
{
	return m == KFIT_M_KPROBE || m == KFIT_M_KRETPROBE || m == KFIT_M_KPROBE_MULTI;
}

static bool is_fentry(enum kfit_mech m)
{
	return m == KFIT_M_FENTRY || m == KFIT_M_FEXIT;
}

/* Why this kind of attachment failed, in the words a user needs */
static const char *why(enum kfit_mech m, int err)
{
	struct kfit_caps caps;

	if ((err == -EPERM || err == -EACCES) && kfit_caps_get(&caps) == 0 &&
	    !kfit_caps_enough(&caps))
		return "missing CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN)";
	if (is_fentry(m) && kfit_fentry_reason(err))
		return kfit_fentry_reason(err);
	if (is_kprobe(m) && !kfit_probe_works(KFIT_M_KPROBE))
		return kfit_probe(KFIT_M_KPROBE)->detail;
	return kfit_reason(err);
}

/* "kprobes are not built in (...)" when the other function mechanism fails too */
static void other_function_mechanism(enum kfit_mech m, char *buf, size_t len)
{
	enum kfit_mech other = is_fentry(m) ? KFIT_M_KPROBE : KFIT_M_FENTRY;
	const struct kfit_probe_result *r;

	buf[0] = '\0';
	if (!is_fentry(m) && !is_kprobe(m))
		return;
	r = kfit_probe(other);
	if (r->state == KFIT_P_OK)
		snprintf(buf, len, "; %s works here", kfit_probe_mech_name(other));
	else
		snprintf(buf, len, "; %s: %s", kfit_probe_mech_name(other), r->detail);
}

static void what_works(char *buf, size_t len)
{
	static const enum kfit_mech ms[] = {
		KFIT_M_FENTRY, KFIT_M_KPROBE, KFIT_M_TRACEPOINT, KFIT_M_UPROBE,
		KFIT_M_PERF_SW,
	};
	static const char *const names[] = {
		"fentry", "kprobes", "Tracepoints", "uprobes",
		"perf software events",
	};
	size_t n = 0, i, ok = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		if (!kfit_probe_works(ms[i]))
			continue;
		n += snprintf(buf + n, len - n, "%s%s", ok ? ", " : "", names[i]);
		ok++;
		if (n >= len)
			return;
	}
	if (ok)
		snprintf(buf + n, len - n, " work%s here", ok == 1 ? "s" : "");
	else
		snprintf(buf, len, "No tracing mechanism works here");
}

static void explain(enum kfit_mech m, const char *what, const char *target, int err)
{
	char other[320], works[200];

	other_function_mechanism(m, other, sizeof(other));
	what_works(works, sizeof(works));
	kfit_err("cannot attach %s to %s: %s%s. %s; run tracecheck for details.",
		 what, target, why(m, err), other, works);
}

void kfit_explain(enum kfit_mech m, const char *target, int err)
{
	explain(m, kfit_probe_mech_name(m), target, err);
}

void kfit_explain_attach(const char *kind, const char *target, int err)
{
	explain(kfit_probe_mech_by_name(kind), kind, target, err);
}
