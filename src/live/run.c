// SPDX-License-Identifier: GPL-2.0
/* Start-up, signals and the report loop. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "diag.h"
#include "explain.h"
#include "fileio.h"
#include "run.h"

volatile sig_atomic_t kfit_exiting;

static void on_signal(int sig)
{
	(void)sig;
	kfit_exiting = 1;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG && kfit_verbosity() < 2)
		return 0;
	if (kfit_verbosity() < 1)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Tracing tools expect these; a fresh VM or container may not have them. */
static void mount_fs(void)
{
	kfit_fs_mount(KFIT_FS_TRACEFS);
	kfit_fs_mount(KFIT_FS_BPFFS);
}

void kfit_setup(const char *prog, const struct kfit_common *c)
{
	struct sigaction sa = { .sa_handler = on_signal };

	kfit_diag_setup(prog, c ? c->verbose : 0);
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

/* Wait until deadline, polling if asked; the -d end cuts it short. */
static int wait_until(const struct kfit_loop *l, __u64 deadline, __u64 end,
		      bool *last)
{
	__u64 now = kfit_now_ns();
	int err;

	if (end && end < deadline)
		deadline = end;
	while (!kfit_exiting && now < deadline) {
		if (!l->poll) {
			kfit_sleep(deadline - now);
		} else {
			__u64 ms = (deadline - now + 999999) / 1000000;

			err = l->poll(l->ctx, ms > 100 ? 100 : (int)ms);
			if (err)
				return err;
		}
		now = kfit_now_ns();
	}
	*last = kfit_exiting || (end && now >= end);
	return 0;
}

int kfit_run(const struct kfit_common *c, const struct kfit_loop *l)
{
	__u64 start = kfit_now_ns();
	__u64 end = c->duration_ns ? start + c->duration_ns : 0;
	__u64 step = c->interval_ns;
	__u64 next = start;
	long printed = 0;
	bool last;
	int err;

	for (;;) {
		next = step ? next + step : ~0ULL;
		err = wait_until(l, next, end, &last);
		if (err)
			return err;
		if (step && !last && c->count && printed + 1 >= c->count)
			last = true;
		err = l->report(l->ctx, last);
		printed++;
		if (err || last)
			return err;
	}
}

bool kfit_tp_wanted(const struct bpf_program *p, bool btf)
{
	return btf == (strstr(bpf_program__name(p), "_btf") != NULL);
}

int kfit_tp_start(int (*start)(void *ctx, bool btf), void *ctx,
		  const char *targets, const char **mode)
{
	int err = start(ctx, true);

	*mode = "tp_btf";
	if (!err)
		return 0;
	kfit_debug("tp_btf failed (%s); trying raw tracepoints", kfit_reason(err));
	*mode = "raw_tracepoint";
	err = start(ctx, false);
	if (err)
		kfit_explain(KFIT_M_RAW_TP, targets, err);
	return err;
}
