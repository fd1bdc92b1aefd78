// SPDX-License-Identifier: GPL-2.0
/* What this process may do: the capabilities tracing needs, and tracefs. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include "caps.h"
#include "diag.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool cap_set(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (1U << (cap % 32));
}

int kfit_caps_get(struct kfit_caps *caps)
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

int kfit_caps_check(void)
{
	struct kfit_caps caps;
	char lacks[64] = "";

	if (kfit_caps_get(&caps) == 0 && kfit_caps_enough(&caps))
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

const char *kfit_caps_tracefs_denied(const char *path, char *buf, size_t len)
{
	struct kfit_caps caps;
	char dir[PATH_MAX];
	struct stat st;

	first_closed(path, dir, sizeof(dir));
	if (kfit_caps_get(&caps) == 0 && caps.dac_read_search) {
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
