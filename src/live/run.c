// SPDX-License-Identifier: GPL-2.0
/* Start-up, signals and the report loop. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "child.h"
#include "diag.h"
#include "explain.h"
#include "fileio.h"
#include "run.h"
#include "serve.h"

volatile sig_atomic_t kfit_exiting;
volatile sig_atomic_t kfit_signals;
static volatile sig_atomic_t armed, caught;

static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	default:
		return "a signal";
	}
}

/* A line on stderr from a signal handler: write(2) only */
static void say(const char *s)
{
	ssize_t n = write(STDERR_FILENO, s, strlen(s));

	(void)n;
}

static void on_signal(int sig)
{
	caught = sig;
	if (armed) {
		kfit_exiting = 1;
		kfit_signals++;
		return;
	}
	/*
	 * Nothing to undo yet: said, the temporaries of the output files
	 * removed (whatever was at their names stays), then the end, as the
	 * default action would (status 128 + sig)
	 */
	say(kfit_prog);
	say(": ");
	say(sig_name(sig));
	say(" during start-up: ended before tracing\n");
	kfit_out_unlink_temps();
	signal(sig, SIG_DFL);
	raise(sig);
}

int kfit_interrupted(void)
{
	if (!kfit_exiting)
		return 0;
	kfit_err("%s during start-up: ended before tracing", sig_name(caught));
	return caught ? 128 + caught : 1;
}

volatile sig_atomic_t kfit_usr1;

static void on_usr1(int sig)
{
	(void)sig;
	kfit_usr1 = 1;
}

/*
 * SA_RESTART: one that comes in start-up must not fail a read or an
 * open() that waits (a lease); poll and nanosleep return on it anyway
 * (signal(7)), and the loop looks at the flag
 */
void kfit_catch_usr1(void)
{
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };

	sigaction(SIGUSR1, &sa, NULL);
}

void kfit_arm_cleanup(void)
{
	armed = 1;
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

int kfit_raise_nofile(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return -errno;
	if (r.rlim_cur == r.rlim_max)
		return 0;
	r.rlim_cur = r.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &r) ? -errno : 0;
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

/*
 * Wait until deadline, polling if asked; the -d end, a signal and the end
 * of the process watched (w, if any) cut it short.
 */
static int wait_until(const struct kfit_loop *l, struct kfit_child_proc *w,
		      __u64 deadline, __u64 end, bool *last)
{
	__u64 now = kfit_now_ns();
	bool gone = false;
	int err;

	if (end && end < deadline)
		deadline = end;
	while (!kfit_exiting && !gone && now < deadline) {
		if (l->poll) {
			__u64 ms = (deadline - now + 999999) / 1000000;

			err = l->poll(l->ctx, ms > 100 ? 100 : (int)ms);
			if (err)
				return err;
			gone = w && kfit_child_proc_wait(w, 0);
		} else if (w) {
			gone = kfit_child_proc_wait(w, deadline - now);
		} else {
			kfit_sleep(deadline - now);
		}
		now = kfit_now_ns();
	}
	*last = kfit_exiting || gone || (end && now >= end);
	return 0;
}

/* Before the last report: reap the child, or note the end of -p/-t */
static void ended(const struct kfit_loop *l, struct kfit_child_proc *w)
{
	if (!w || !w->gone)
		return;
	if (l->child)
		kfit_child_reap(l->child, true);
	else
		kfit_info("%s %d exited", w->thread ? "thread" : "process", w->pid);
}

static int loop(const struct kfit_common *c, const struct kfit_loop *l,
		struct kfit_child_proc *w)
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
		err = wait_until(l, w, next, end, &last);
		if (err)
			return err;
		ended(l, w);
		if (step && !last && c->count && printed + 1 >= c->count)
			last = true;
		if (last)
			kfit_serve_end(l->serve);
		err = l->report(l->ctx, last);
		printed++;
		if (err || last)
			return err;
	}
}

static int run(const struct kfit_common *c, const struct kfit_loop *l)
{
	struct kfit_child_proc target;
	int err;

	if (l->child)
		return loop(c, l, &l->child->proc);
	if (!c->pid && !c->tid)
		return loop(c, l, NULL);
	/* as strace -p and perf stat -p: the run ends with what it traces */
	kfit_child_proc_watch(&target, c->tid ? c->tid : c->pid, c->tid != 0);
	err = loop(c, l, &target);
	kfit_child_proc_close(&target);
	return err;
}

int kfit_run(const struct kfit_common *c, const struct kfit_loop *l)
{
	int err;

	if (kfit_serve_begin(l->serve, l->metrics, l->ctx))
		return -1;
	err = run(c, l);
	/* an error ends the loop early: no scrape may read what the tool frees next */
	kfit_serve_end(l->serve);
	return err;
}

bool kfit_run_tp_wanted(const struct bpf_program *p, bool btf)
{
	return btf == (strstr(bpf_program__name(p), "_btf") != NULL);
}

int kfit_run_tp_start(int (*start)(void *ctx, bool btf), void *ctx,
		  const char *targets, bool raw, const char **mode)
{
	int err;

	*mode = "tp_btf";
	if (!raw) {
		err = start(ctx, true);
		if (!err)
			return 0;
		kfit_debug("tp_btf failed (%s); trying raw tracepoints", kfit_reason(err));
	}
	*mode = "raw_tracepoint";
	err = start(ctx, false);
	if (err)
		kfit_explain(KFIT_M_RAW_TP, targets, err);
	return err;
}
