// SPDX-License-Identifier: GPL-2.0
/* Messages, their verbosity, and errnos in words. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "diag.h"

#define ENOTSUPP_KERNEL 524	/* the kernel's internal ENOTSUPP leaks to us */

const char *kfit_prog = "kfit";
static int verbosity;

void kfit_diag_setup(const char *prog, int v)
{
	kfit_prog = prog;
	verbosity = v;
}

int kfit_verbosity(void)
{
	return verbosity;
}

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

void kfit_debug(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < 1)
		return;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
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

const char *kfit_fentry_reason(int err)
{
	if (err == -EPERM)
		return "the kernel refused ftrace-based attachment (EPERM)";
	if (err == -ESRCH)
		return "the function is not in the kernel's BTF (inlined, static or not traceable) (ESRCH)";
	return NULL;
}
