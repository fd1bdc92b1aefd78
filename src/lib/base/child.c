// SPDX-License-Identifier: GPL-2.0
/* Processes we wait for: watched ones (-p, -t) and the COMMAND we run. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "child.h"
#include "diag.h"
#include "fileio.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL	/* 6.9: the pidfd of one thread */
#endif

/* ---- watching ------------------------------------------------------------ */

void kfit_child_proc_watch(struct kfit_child_proc *p, pid_t pid, bool thread)
{
	p->pid = pid;
	p->thread = thread;
	p->gone = false;
	p->fd = syscall(SYS_pidfd_open, pid, thread ? PIDFD_THREAD : 0);
	if (p->fd >= 0)
		return;
	p->fd = -1;
	/* other errors (ENOSYS, EINVAL: no thread pidfds) leave /proc */
	if (errno == ESRCH)
		p->gone = true;
}

/*
 * /proc/ID/stat: "ID (comm) S ... num_threads(20th field) ...". A zombie
 * thread has ended; a zombie process only once its last thread has: a
 * leader that left its threads behind stays a zombie until they end.
 */
static bool proc_gone(const struct kfit_child_proc *p)
{
	char path[64], buf[512], *s;
	int fd, i, threads;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", p->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n == 0 || errno == ESRCH;
	buf[n] = 0;
	s = strrchr(buf, ')');
	if (!s || s[1] != ' ')
		return false;
	s += 2;
	if (*s != 'Z' && *s != 'X')
		return false;
	if (p->thread)
		return true;
	/* fields from the state (3rd) on: num_threads is the 20th */
	for (i = 3; i < 20 && s; i++) {
		s = strchr(s, ' ');
		if (s)
			s++;
	}
	return !s || sscanf(s, "%d", &threads) != 1 || threads <= 1;
}

static bool fd_ready(int fd, __u64 timeout_ns)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts = {
		.tv_sec = timeout_ns / 1000000000ULL,
		.tv_nsec = timeout_ns % 1000000000ULL,
	};

	return ppoll(&pfd, 1, &ts, NULL) > 0 && (pfd.revents & (POLLIN | POLLHUP));
}

bool kfit_child_proc_wait(struct kfit_child_proc *p, __u64 timeout_ns)
{
	__u64 period = KFIT_CHILD_PROC_PERIOD_MS * 1000000ULL;
	struct timespec ts;

	if (p->gone)
		return true;
	if (p->fd >= 0) {
		p->gone = fd_ready(p->fd, timeout_ns);
		return p->gone;
	}
	p->gone = proc_gone(p);
	if (p->gone || !timeout_ns)
		return p->gone;
	if (timeout_ns > period)
		timeout_ns = period;
	ts.tv_sec = timeout_ns / 1000000000ULL;
	ts.tv_nsec = timeout_ns % 1000000000ULL;
	nanosleep(&ts, NULL);
	p->gone = proc_gone(p);
	return p->gone;
}

void kfit_child_proc_close(struct kfit_child_proc *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/* ---- the report's output and the command's ------------------------------ */

/* fds 0-2 as the tool found them, kept for the COMMAND: -1 where closed */
static int cmd_fd[3] = { -1, -1, -1 };
static bool cmd_fds;

/* Whether execve could run path: 0, or -errno as execve would give it */
static int exec_ok(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EACCES;
	return access(path, X_OK) ? -errno : 0;
}

int kfit_child_check_command(char **argv)
{
	const char *name = argv[0], *path, *p, *end;
	char buf[PATH_MAX];
	int err = -ENOENT, e;

	if (!*name)
		goto bad;
	if (strchr(name, '/')) {
		err = exec_ok(name);
		if (err)
			goto bad;
		return 0;
	}
	/* as execvp: the first that runs; EACCES if one was there but refused */
	path = getenv("PATH");
	if (!path)
		path = "/bin:/usr/bin";
	for (p = path;; p = end + 1) {
		end = strchrnul(p, ':');
		if (snprintf(buf, sizeof(buf), "%.*s/%s", end > p ? (int)(end - p) : 1,
			     end > p ? p : ".", name) < (int)sizeof(buf)) {
			e = exec_ok(buf);
			if (!e)
				return 0;
			if (e == -EACCES)
				err = e;
		}
		if (!*end)
			break;
	}
bad:
	kfit_err("cannot run '%s': %s", name, strerror(-err));
	return -1;
}

/* --output's file: written to a temporary, renamed into place at exit */
static struct kfit_out report;

static void commit_report(void)
{
	int err;

	fflush(stdout);
	if (!kfit_out_active(&report))
		return;
	err = kfit_out_commit(&report);
	if (err)
		kfit_out_err(report.path, err);
}

int kfit_child_io_setup(const char *output, char **cmd)
{
	int i, err, fd = STDERR_FILENO;

	if (cmd && kfit_child_check_command(cmd))
		return -1;
	if (cmd) {
		for (i = 0; i < 3; i++)
			cmd_fd[i] = fcntl(i, F_DUPFD_CLOEXEC, 3);
		cmd_fds = true;
	}
	if (output) {
		err = kfit_out_open(&report, output);
		if (err) {
			kfit_out_err(output, err);
			return -1;
		}
		fd = report.fd;
		atexit(commit_report);
	} else if (!cmd) {
		return 0;
	}
	fflush(stdout);
	if (dup2(fd, STDOUT_FILENO) < 0) {
		kfit_err("cannot redirect the report: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* In the child: stdin, stdout and stderr as the tool was given them */
static void restore_fds(void)
{
	int i;

	if (!cmd_fds)
		return;
	for (i = 0; i < 3; i++) {
		if (cmd_fd[i] < 0)
			close(i);
		else if (cmd_fd[i] != i)
			dup2(cmd_fd[i], i);
	}
}

/* ---- the command ----------------------------------------------------------- */

/* In the child: wait for the go, then exec; a failed exec sends its errno */
static void __attribute__((noreturn)) held_exec(char **argv, int go, int ep)
{
	int e;
	char c;

	signal(SIGPIPE, SIG_DFL);
	if (read(go, &c, 1) != 1)
		_exit(127);
	restore_fds();
	execvp(argv[0], argv);
	e = errno;
	if (write(ep, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int kfit_child_split_command(int argc, char **argv, char ***cmd)
{
	int i;

	*cmd = NULL;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--"))
			continue;
		*cmd = i + 1 < argc ? argv + i + 1 : NULL;
		return i;
	}
	return argc;
}

int kfit_child_fork(struct kfit_child *ch, char **argv)
{
	int go[2], ep[2];
	pid_t pid;

	memset(ch, 0, sizeof(*ch));
	ch->argv = argv;
	ch->go_fd = ch->err_fd = ch->proc.fd = -1;
	if (pipe2(go, O_CLOEXEC)) {
		kfit_err("pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(ep, O_CLOEXEC)) {
		kfit_err("pipe: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(ep[0]);
		held_exec(argv, go[0], ep[1]);
	}
	close(go[0]);
	close(ep[1]);
	if (pid < 0) {
		kfit_err("fork: %s", strerror(errno));
		close(go[1]);
		close(ep[0]);
		return -1;
	}
	ch->go_fd = go[1];
	ch->err_fd = ep[0];
	kfit_child_proc_watch(&ch->proc, pid, false);
	return 0;
}

int kfit_child_start(struct kfit_child *ch)
{
	int e = 0;
	ssize_t n;

	if (write(ch->go_fd, "g", 1) != 1) {
		kfit_err("cannot start '%s': %s", ch->argv[0], strerror(errno));
		return -1;
	}
	close_fd(&ch->go_fd);
	/* EOF: the exec closed it; an int: why the exec failed */
	n = read(ch->err_fd, &e, sizeof(e));
	close_fd(&ch->err_fd);
	if (n == sizeof(e)) {
		kfit_err("cannot run '%s': %s", ch->argv[0], strerror(e));
		kfit_child_reap(ch, true);
		return -1;
	}
	return 0;
}

bool kfit_child_reap(struct kfit_child *ch, bool block)
{
	int status;

	if (!ch->proc.pid || ch->done)
		return ch->done;
	if (waitpid(ch->proc.pid, &status, block ? 0 : WNOHANG) != ch->proc.pid)
		return false;
	ch->done = true;
	ch->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	ch->status = WIFEXITED(status) ? WEXITSTATUS(status) :
		     128 + ch->signal;
	return true;
}

void kfit_child_stop(struct kfit_child *ch)
{
	if (!ch->argv)		/* never forked (zeroed) */
		return;
	if (ch->proc.pid && !ch->done) {
		/* held: EOF ends it (a signal could come before its read) */
		if (ch->go_fd >= 0)
			close_fd(&ch->go_fd);
		else if (!kfit_child_reap(ch, false))
			ch->stopped = !kill(ch->proc.pid, SIGTERM);
		kfit_child_reap(ch, true);
	}
	close_fd(&ch->go_fd);
	close_fd(&ch->err_fd);
	kfit_child_proc_close(&ch->proc);
}

void kfit_child_note(const struct kfit_child *ch)
{
	const char *name;

	/* as a shell: Ctrl-C and a closed pipe go without saying */
	if (!ch->done || ch->stopped || !ch->status || ch->signal == SIGINT ||
	    ch->signal == SIGPIPE)
		return;
	if (!ch->signal) {
		kfit_info("'%s' exited with status %d", ch->argv[0], ch->status);
		return;
	}
	name = sigabbrev_np(ch->signal);
	if (name)
		kfit_info("'%s' killed by SIG%s", ch->argv[0], name);
	else
		kfit_info("'%s' killed by signal %d", ch->argv[0], ch->signal);
}

int kfit_child_exit(const struct kfit_child *ch, int err)
{
	if (err)
		return err > 0 ? err : 1;
	if (!ch->argv || !ch->done || ch->stopped)
		return 0;
	return ch->status;
}
