// SPDX-License-Identifier: GPL-2.0
/* Messages that say what failed, why, and what still works. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include "diag.h"
#include "probe.h"
#include "run.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif
#define ENOTSUPP_KERNEL 524	/* the kernel's internal ENOTSUPP leaks to us */

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", kfit_prog, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void kfit_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void kfit_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void kfit_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

static bool cap_set(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1U << (cap % 32));
}

int kfit_get_caps(struct kfit_caps *caps)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};

	memset(caps, 0, sizeof(*caps));
	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	caps->bpf = cap_set(data, CAP_BPF);
	caps->perfmon = cap_set(data, CAP_PERFMON);
	caps->sys_admin = cap_set(data, CAP_SYS_ADMIN);
	caps->dac_read_search = cap_set(data, CAP_DAC_READ_SEARCH) ||
				cap_set(data, CAP_DAC_OVERRIDE);
	return 0;
}

bool kfit_caps_enough(const struct kfit_caps *caps)
{
	return caps->sys_admin || (caps->bpf && caps->perfmon);
}

int kfit_check_privileges(void)
{
	struct kfit_caps caps;
	char lacks[64] = "";

	if (kfit_get_caps(&caps) == 0 && kfit_caps_enough(&caps))
		return 0;
	snprintf(lacks, sizeof(lacks), "%s%s%s", caps.bpf ? "" : " CAP_BPF",
		 caps.perfmon ? "" : " CAP_PERFMON",
		 caps.sys_admin ? "" : " CAP_SYS_ADMIN");
	kfit_err("tracing needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN); "
		 "this process lacks%s: run it as root (sudo)", lacks);
	return -EPERM;
}

/* The first directory of path, from the top, this process may not enter */
static void first_closed(const char *path, char *out, size_t len)
{
	char *s = out;

	snprintf(out, len, "%s", path);
	while ((s = strchr(s + 1, '/'))) {
		*s = '\0';
		if (faccessat(AT_FDCWD, out, X_OK, AT_EACCESS))
			return;
		*s = '/';
	}
}

const char *kfit_tracefs_denied(const char *path, char *buf, size_t len)
{
	struct kfit_caps caps;
	char dir[PATH_MAX];
	struct stat st;

	first_closed(path, dir, sizeof(dir));
	if (kfit_get_caps(&caps) == 0 && caps.dac_read_search) {
		snprintf(buf, len, "%s is closed to this process although it has "
			 "CAP_DAC_READ_SEARCH or CAP_DAC_OVERRIDE: a security module "
			 "(LSM) denies it", dir);
		return buf;
	}
	if (stat(dir, &st)) {
		snprintf(buf, len, "this process (uid %u) may not read %s and lacks "
			 "CAP_DAC_READ_SEARCH: run it as root", geteuid(), dir);
		return buf;
	}
	snprintf(buf, len, "%s is mode %04o (uid %u, gid %u) and this process "
		 "(uid %u) lacks CAP_DAC_READ_SEARCH: run it as root, or mount "
		 "tracefs with gid= and mode= to let it in", dir,
		 st.st_mode & 07777, st.st_uid, st.st_gid, geteuid());
	return buf;
}

const char *kfit_reason(int err)
{
	switch (-err) {
	case EPERM:
		return "operation not permitted (EPERM)";
	case EACCES:
		return "rejected by the BPF verifier, or denied by an LSM "
		       "(EACCES; -vv shows the verifier's log)";
	case ENOENT:
		return "no such function, tracepoint or event (ENOENT)";
	case ESRCH:
		return "no such target (ESRCH)";
	case EINVAL:
		return "the kernel rejected the request as invalid (EINVAL)";
	case EOPNOTSUPP:
	case ENOTSUPP_KERNEL:
		return "not supported by this kernel (EOPNOTSUPP)";
	case E2BIG:
		return "too big for this kernel (E2BIG)";
	case ENOMEM:
		return "out of memory, or the locked-memory limit (ENOMEM)";
	case EBUSY:
		return "busy: something else holds it (EBUSY)";
	case ENODEV:
		return "no such device: the PMU or event does not exist (ENODEV)";
	case ENOSPC:
		return "no space left: too many programs or probes (ENOSPC)";
	default:
		return strerror(-err);
	}
}

static bool is_kprobe(const char *kind)
{
	return strncmp(kind, "kprobe", 6) == 0 || strncmp(kind, "kretprobe", 9) == 0;
}

static bool is_fentry(const char *kind)
{
	return strcmp(kind, "fentry") == 0 || strcmp(kind, "fexit") == 0;
}

const char *kfit_fentry_reason(int err)
{
	if (err == -EPERM)
		return "the kernel refused ftrace-based attachment (EPERM)";
	if (err == -ESRCH)
		return "the function is not in the kernel's BTF (inlined, static or not traceable) (ESRCH)";
	return NULL;
}

/* Why this kind of attachment failed, in the words a user needs */
static const char *why(const char *kind, int err)
{
	struct kfit_caps caps;

	if ((err == -EPERM || err == -EACCES) && kfit_get_caps(&caps) == 0 &&
	    !kfit_caps_enough(&caps))
		return "missing CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN)";
	if (is_fentry(kind) && kfit_fentry_reason(err))
		return kfit_fentry_reason(err);
	if (is_kprobe(kind) && !kfit_works(KFIT_M_KPROBE))
		return kfit_probe(KFIT_M_KPROBE)->detail;
	return kfit_reason(err);
}

/* "kprobes are not built in (...)" when the other function mechanism fails too */
static void other_function_mechanism(const char *kind, char *buf, size_t len)
{
	enum kfit_mech m = is_fentry(kind) ? KFIT_M_KPROBE : KFIT_M_FENTRY;
	const struct kfit_probe_result *r;

	buf[0] = '\0';
	if (!is_fentry(kind) && !is_kprobe(kind))
		return;
	r = kfit_probe(m);
	if (r->state == KFIT_P_OK)
		snprintf(buf, len, "; %s works here", kfit_mech_name(m));
	else
		snprintf(buf, len, "; %s: %s", kfit_mech_name(m), r->detail);
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
		if (!kfit_works(ms[i]))
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

void kfit_explain_attach(const char *kind, const char *target, int err)
{
	char other[320], works[200];

	other_function_mechanism(kind, other, sizeof(other));
	what_works(works, sizeof(works));
	kfit_err("cannot attach %s to %s: %s%s. %s; run tracecheck for details.",
		 kind, target, why(kind, err), other, works);
}
