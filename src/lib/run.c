// SPDX-License-Identifier: GPL-2.0
/* Start-up, signals, the report loop and race-free map resets. */
#include <errno.h>
#include <linux/membarrier.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "run.h"

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC 0x74726163
#endif
#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

const char *kfit_prog = "kfit";
volatile sig_atomic_t kfit_exiting;
static int verbosity;

static void on_signal(int sig)
{
	(void)sig;
	kfit_exiting = 1;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG && verbosity < 2)
		return 0;
	if (verbosity < 1)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int is_fs(const char *path, long magic)
{
	struct statfs st;

	return statfs(path, &st) == 0 && st.f_type == magic;
}

/* Tracing tools expect these; a fresh VM or container may not have them. */
static void mount_fs(void)
{
	if (!is_fs("/sys/kernel/tracing", TRACEFS_MAGIC))
		mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	if (!is_fs("/sys/fs/bpf", BPF_FS_MAGIC))
		mount("bpf", "/sys/fs/bpf", "bpf", 0, NULL);
}

void kfit_setup(const char *prog, const struct kfit_common *c)
{
	struct sigaction sa = { .sa_handler = on_signal };

	kfit_prog = prog;
	verbosity = c ? c->verbose : 0;
	libbpf_set_print(libbpf_print);
	/* No SA_RESTART: a signal must cut sleeps and polls short. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (geteuid() == 0)
		mount_fs();
}

__u64 kfit_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int kfit_sleep(__u64 ns)
{
	struct timespec ts = {
		.tv_sec = ns / 1000000000ULL,
		.tv_nsec = ns % 1000000000ULL,
	};

	while (!kfit_exiting && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return kfit_exiting;
}

void kfit_tracing(const char *what)
{
	fprintf(stderr, "Tracing %s... Ctrl-C to end.\n", what);
}

void kfit_print_time(FILE *f)
{
	char buf[16];
	time_t t = time(NULL);

	strftime(buf, sizeof(buf), "%H:%M:%S", localtime(&t));
	fprintf(f, "%s\n", buf);
}

/* Sleep until the next interval or the end of -d, whichever comes first. */
static int sleep_until(__u64 deadline, __u64 end)
{
	__u64 now = kfit_now_ns();

	if (end && end < deadline)
		deadline = end;
	if (deadline > now)
		kfit_sleep(deadline - now);
	return kfit_exiting || (end && kfit_now_ns() >= end);
}

int kfit_run(const struct kfit_common *c, int (*report)(void *ctx, bool last),
	     void *ctx)
{
	__u64 start = kfit_now_ns();
	__u64 end = c->duration_ns ? start + c->duration_ns : 0;
	__u64 step = c->interval_ns;
	__u64 next = start;
	long printed = 0;
	int err;

	for (;;) {
		bool last;

		next = step ? next + step : ~0ULL;
		last = sleep_until(next, end);
		if (step && !last && c->count && printed + 1 >= c->count)
			last = true;
		/* The final report of an interval run only covers what is new. */
		err = report(ctx, last);
		printed++;
		if (err || last)
			return err;
	}
}

int kfit_epoch_flip(volatile __u32 *epoch)
{
	__u32 old = *epoch;

	*epoch = old + 1;
	__sync_synchronize();
	/*
	 * MEMBARRIER_CMD_GLOBAL waits for an RCU grace period; BPF tracing
	 * programs run in RCU read-side sections, so after it no program is
	 * still writing the old half. nohz_full kernels refuse it: there,
	 * wait long enough for any program to have finished.
	 */
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) < 0)
		kfit_sleep(20 * 1000000ULL);
	return old & 1;
}
