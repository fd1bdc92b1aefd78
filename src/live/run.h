/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_RUN_H
#define KFIT_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "opts.h"

/* Set by SIGINT, SIGTERM and SIGHUP once kfit_arm_cleanup() was called */
extern volatile sig_atomic_t kfit_exiting;
/* How many of those signals came (a second one while detaching is answered) */
extern volatile sig_atomic_t kfit_signals;

/*
 * Common start-up: names the tool for messages, routes libbpf's messages
 * (shown with -v), installs the signal handlers, and mounts tracefs and
 * bpffs when they are missing.
 */
void kfit_setup(const char *prog, const struct kfit_common *c);

/*
 * Until this call, SIGINT, SIGTERM and SIGHUP end the tool at once, as
 * their default actions do, with no output: start-up (parsing, resolving
 * targets, opening counters) has nothing to report or undo, and a long
 * one must still obey Ctrl-C. Call it just before loading or attaching
 * BPF programs or letting a COMMAND run: from then on a signal only sets
 * kfit_exiting, and the tool detaches, stops its command and reports.
 */
void kfit_arm_cleanup(void);

/*
 * After kfit_arm_cleanup, before tracing starts (while loading and
 * attaching): whether a signal asked to end. 0: none; else it is said
 * ("SIGINT during start-up: ended before tracing") and the exit status
 * returned, 128 + the signal's number (a shell's $? for a death by it),
 * once the tool has undone what it did. Before kfit_arm_cleanup the
 * handler says the same and the signal ends the tool at once.
 */
int kfit_interrupted(void);

/*
 * SIGUSR1 sets kfit_usr1 once this was called (callgraph --flight: dump
 * now); the loop polls the flag, the handler does nothing else. Until
 * then SIGUSR1 keeps its default action (the end): call it at start-up,
 * so that one sent early waits for tracing to start (the first poll).
 */
extern volatile sig_atomic_t kfit_usr1;
void kfit_catch_usr1(void);

/* Sleep up to ns; returns early (nonzero) when a signal asked us to end. */
int kfit_sleep(__u64 ns);

/* The one line on stderr once tracing has started. */
void kfit_tracing(const char *what);

/*
 * Drive the reporting: calls report(ctx, last) every -i interval (if any)
 * and once more at the end: -d elapsed, --count reached, a signal, the
 * child exited (it is then reaped), or the process of -p PID, the thread
 * of -t TID, ended (noted on stderr: "process PID exited"). Between
 * reports it sleeps, or, with poll, calls poll(ctx, timeout_ms) (e.g. to
 * drain a ring buffer). Returns the first nonzero result of report or
 * poll, else 0.
 */
struct kfit_child;
struct kfit_serve;
struct kfit_prom;
struct kfit_loop {
	int (*report)(void *ctx, bool last);
	int (*poll)(void *ctx, int timeout_ms);	/* NULL: just sleep */
	void *ctx;
	struct kfit_child *child;	/* -- COMMAND, started: ends the run */
	/*
	 * --serve (kfit_serve_listen): scrapes call metrics(ctx) from the
	 * server's thread while the loop waits; the server stops before the
	 * last report, so report and metrics never run at once
	 */
	struct kfit_serve *serve;
	int (*metrics)(void *ctx, struct kfit_prom *p);
};

int kfit_run(const struct kfit_common *c, const struct kfit_loop *loop);

/* "HH:MM:SS" of the wall clock, for -T */
void kfit_print_time(FILE *f);

/*
 * Tracepoint programs come in pairs: NAME_btf (tp_btf) and a raw
 * tracepoint twin for kernels that refuse BTF-typed tracing.
 * kfit_run_tp_wanted() says whether p belongs to the flavour being tried;
 * kfit_run_tp_start() runs start(ctx, true), then start(ctx, false) if that
 * failed (only the latter when raw: --raw-tp), explains a final failure on
 * targets, and sets *mode to "tp_btf" or "raw_tracepoint". Returns 0 or
 * the last negative errno.
 */
struct bpf_program;
bool kfit_run_tp_wanted(const struct bpf_program *p, bool btf);
int kfit_run_tp_start(int (*start)(void *ctx, bool btf), void *ctx,
		  const char *targets, bool raw, const char **mode);

/*
 * Raise RLIMIT_NOFILE's soft limit to the hard limit: tools open an fd per
 * event and CPU, or per attached function. Returns 0 or -errno.
 */
int kfit_raise_nofile(void);

/* Monotonic clock in ns, the clock bpf_ktime_get_ns() uses */
__u64 kfit_now_ns(void);

#endif
