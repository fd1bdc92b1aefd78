/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_CAPS_H
#define KFIT_CAPS_H

#include <stdbool.h>
#include <stddef.h>

/* Which of the capabilities tracing needs the process has in effect */
struct kfit_caps {
	bool bpf;
	bool perfmon;
	bool sys_admin;
	bool dac_read_search;	/* or CAP_DAC_OVERRIDE: reads any file (tracefs) */
};
int kfit_caps_get(struct kfit_caps *caps);
/* Enough to load tracing programs and open perf events? */
bool kfit_caps_enough(const struct kfit_caps *caps);

/*
 * Returns 0 when we may load BPF and open perf events, else prints which
 * capabilities are missing (CAP_BPF, CAP_PERFMON, or CAP_SYS_ADMIN) and
 * returns -EPERM.
 */
int kfit_caps_check(void);

/*
 * Why this process may not read path, a tracefs file or directory (after
 * EACCES): the first directory on the way it may not enter, its mode and
 * owner, and what the process lacks, e.g. "/sys/kernel/tracing is mode
 * 0700 (uid 0, gid 0) and this process (uid 65534) lacks
 * CAP_DAC_READ_SEARCH: run it as root, or mount tracefs with gid= and
 * mode= to let it in". Returns buf.
 */
const char *kfit_caps_tracefs_denied(const char *path, char *buf, size_t len);

#endif
