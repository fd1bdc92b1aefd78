/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_CHILD_H
#define KFIT_CHILD_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

/*
 * Processes a tool waits for: one it watches (-p PID, -t TID) and the
 * COMMAND it runs after `--`.
 *
 * A watched process has ended once it is a zombie or gone: its pidfd
 * (pidfd_open, 5.3+; for a thread PIDFD_THREAD, 6.9+) becomes readable,
 * or, without one, /proc says so (looked at every KFIT_CHILD_PROC_PERIOD_MS).
 */
#define KFIT_CHILD_PROC_PERIOD_MS 100

struct kfit_child_proc {
	pid_t pid;
	bool thread;		/* pid is a thread's id: its own end counts */
	int fd;			/* its pidfd, or -1: /proc is looked at */
	bool gone;		/* seen ended */
};

/* Start watching; never fails (without a pidfd /proc is looked at) */
void kfit_child_proc_watch(struct kfit_child_proc *p, pid_t pid, bool thread);
/*
 * Whether it has ended, waiting up to timeout_ns (0: just look) for it to
 * end; a signal cuts the wait short.
 */
bool kfit_child_proc_wait(struct kfit_child_proc *p, __u64 timeout_ns);
void kfit_child_proc_close(struct kfit_child_proc *p);

/*
 * COMMAND, forked and held before exec, so that whatever counts or traces
 * it (perf events with enable_on_exec, a pid filter) is set up first:
 *
 *	struct kfit_child ch;
 *
 *	if (kfit_child_fork(&ch, argv))		held: ch.proc.pid is known
 *		return -1;
 *	... set up for ch.proc.pid ...
 *	if (kfit_child_start(&ch))		exec, or say why it failed
 *		return -1;
 *	... wait: kfit_run(c, &(struct kfit_loop){ ..., .child = &ch }) ...
 *	kfit_child_stop(&ch);			ends it if still running
 *
 * Messages ("cannot run 'CMD': REASON") go to stderr. SIGPIPE must be
 * ignored (kfit_setup does): a held child that died closes its pipe.
 */
struct kfit_child {
	char **argv;
	struct kfit_child_proc proc;	/* its pid, and its pidfd */
	int go_fd;		/* held until written to, ended by its EOF */
	int err_fd;		/* errno of a failed exec */
	bool done;		/* reaped */
	int status;		/* once done: its exit status, 128 + signal if killed */
	int signal;		/* once done: the signal that killed it, or 0 */
	bool stopped;		/* ended by kfit_child_stop's SIGTERM */
};

/*
 * The operands after "--" are a command: call before getopt reorders
 * argv. Returns the index of "--" (argc when there is none, the number
 * of arguments left to the options), and sets *cmd to the command, NULL
 * when "--" ends argv.
 */
int kfit_child_split_command(int argc, char **argv, char ***cmd);

/* Fork argv[0] (searched in PATH) held before exec; 0 or -1 */
int kfit_child_fork(struct kfit_child *ch, char **argv);
/* Let it exec; 0, or -1 (reaped) if it could not */
int kfit_child_start(struct kfit_child *ch);
/* Reap it if it has ended (block: wait for that); returns ch->done */
bool kfit_child_reap(struct kfit_child *ch, bool block);
/*
 * End it if it still runs (held: by EOF on its pipe, so it never execs;
 * running: by SIGTERM) and reap it. Idempotent; frees what it holds;
 * nothing for a zeroed struct that was never forked.
 */
void kfit_child_stop(struct kfit_child *ch);
/*
 * On stderr, when it ended by itself and not with 0: "'CMD' exited with
 * status N", or "'CMD' killed by SIGSEGV" (not for SIGINT and SIGPIPE,
 * which a shell does not mention either).
 */
void kfit_child_note(const struct kfit_child *ch);
/*
 * The tool's exit status: err when it is one (> 0: 130 for a SIGINT in
 * start-up), 1 when the tool failed otherwise (err < 0), else the status
 * of a command that ended by itself, as a shell gives it (128 + signal
 * when killed), else 0 (no command, or one the tool stopped: -d, Ctrl-C).
 */
int kfit_child_exit(const struct kfit_child *ch, int err);

/*
 * Whether argv[0] can be run, found as execvp would find it (in PATH
 * when it has no '/'): 0, or -1 after "cannot run 'X': REASON" on stderr.
 * Called before anything is attached, so that nothing is for nothing.
 */
int kfit_child_check_command(char **argv);
/*
 * Where the report goes, before anything is printed: with a COMMAND (cmd
 * not NULL), that command owns stdin, stdout and stderr as if run alone:
 * they are kept for it (the child gets them back before its exec) and
 * the tool's stdout goes to its stderr, as perf stat, strace and time
 * report; with output (--output FILE), stdout goes into FILE, made as
 * every output file (kfit_out: a temporary, 0600, no symlink followed,
 * renamed into place at exit; what was there stays until then). Checks
 * the command first
 * (kfit_child_check_command). 0, or -1 after saying why (exit 1).
 */
int kfit_child_io_setup(const char *output, char **cmd);

#endif
