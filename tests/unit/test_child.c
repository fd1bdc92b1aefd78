// SPDX-License-Identifier: GPL-2.0
/*
 * The command runner and the process watch of src/lib/base/child.c, on real
 * processes: /bin/true, /bin/false, sh, a missing command; forked children
 * and threads of this test to watch, with and without pidfds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "testlib.h"
#include "child.h"
#include "fileio.h"

/* A generous bound on waiting for an end: a failure, not a measurement */
#define GONE_TRIES 300		/* x 100 ms */

static char tmpdir[] = "/tmp/kfit-child.XXXXXX";

static void path_in_tmp(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

static bool file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void read_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
}

static void write_file(const char *path, const char *s, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, s, strlen(s)), (int)strlen(s));
	close(fd);
}

/* Wait (bounded) for p to end; fails if it does not */
static void wait_gone(struct kfit_child_proc *p)
{
	int i;

	for (i = 0; i < GONE_TRIES; i++)
		if (kfit_child_proc_wait(p, 100 * 1000000ULL))
			return;
	fail_msg("pid %d did not end", p->pid);
}

/* ---- stderr, captured ------------------------------------------------- */

static int saved_stderr = -1;
static char errpath[PATH_MAX];

static void capture_stderr(void)
{
	int fd;

	path_in_tmp(errpath, sizeof(errpath), "stderr");
	fflush(stderr);
	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	saved_stderr = dup(2);
	dup2(fd, 2);
	close(fd);
}

static void captured_stderr(char *buf, size_t len)
{
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	saved_stderr = -1;
	read_file(errpath, buf, len);
}

/* ---- the command ------------------------------------------------------ */

/* Run argv to its end; returns its status */
static int run(char **argv)
{
	struct kfit_child ch;

	assert_int_equal(kfit_child_fork(&ch, argv), 0);
	assert_true(ch.proc.pid > 0);
	assert_false(ch.done);
	assert_int_equal(kfit_child_start(&ch), 0);
	wait_gone(&ch.proc);
	assert_true(kfit_child_reap(&ch, false));
	kfit_child_stop(&ch);
	assert_true(ch.done);
	return ch.status;
}

/* "--" splits options from a command; a trailing "--" gives no command */
static void test_split_command(void **state)
{
	char *a[] = { "tool", "-p", "1", "--", "ls", "-l", NULL };
	char *b[] = { "tool", "vfs_*", NULL };
	char *c[] = { "tool", "-j", "--", NULL };
	char **cmd;

	(void)state;
	assert_int_equal(kfit_child_split_command(6, a, &cmd), 3);
	assert_ptr_equal(cmd, a + 4);
	assert_int_equal(kfit_child_split_command(2, b, &cmd), 2);
	assert_null(cmd);
	assert_int_equal(kfit_child_split_command(3, c, &cmd), 2);
	assert_null(cmd);
}

static void test_true_false(void **state)
{
	char *t[] = { "/bin/true", NULL }, *f[] = { "/bin/false", NULL };
	char *path[] = { "true", NULL };

	(void)state;
	assert_int_equal(run(t), 0);
	assert_int_equal(run(f), 1);
	/* searched in PATH, as a shell would */
	assert_int_equal(run(path), 0);
}

static void test_exit_status(void **state)
{
	char *argv[] = { "/bin/sh", "-c", "exit 42", NULL };

	(void)state;
	assert_int_equal(run(argv), 42);
}

static void test_killed_by_signal(void **state)
{
	char *term[] = { "/bin/sh", "-c", "kill -TERM $$", NULL };
	char *kill9[] = { "/bin/sh", "-c", "kill -KILL $$", NULL };

	(void)state;
	assert_int_equal(run(term), 128 + SIGTERM);
	assert_int_equal(run(kill9), 128 + SIGKILL);
}

/* exec fails: -1, the reason on stderr, the child reaped */
static void exec_fails(char *cmd, const char *why)
{
	char *argv[] = { cmd, NULL };
	struct kfit_child ch;
	char err[512], want[PATH_MAX + 64];

	assert_int_equal(kfit_child_fork(&ch, argv), 0);
	capture_stderr();
	assert_int_equal(kfit_child_start(&ch), -1);
	captured_stderr(err, sizeof(err));
	snprintf(want, sizeof(want), "cannot run '%s': %s", cmd, why);
	if (!strstr(err, want))
		fail_msg("stderr '%s' lacks '%s'", err, want);
	assert_true(ch.done);
	assert_int_equal(ch.status, 127);
	kfit_child_stop(&ch);
}

static void test_missing_command(void **state)
{
	(void)state;
	exec_fails("/nonexistent/kfit-no-such-command", strerror(ENOENT));
	exec_fails("kfit-no-such-command-in-path", strerror(ENOENT));
}

static void test_not_executable(void **state)
{
	char path[PATH_MAX];

	(void)state;
	path_in_tmp(path, sizeof(path), "not-executable");
	write_file(path, "#!/bin/sh\nexit 0\n", 0644);
	exec_fails(path, strerror(EACCES));
}

/*
 * Held until started: the command sees what the caller set up in
 * between (a file it copies), and has not exec'd before (its exe is still
 * this test's).
 */
static void test_released_after_setup(void **state)
{
	char in[PATH_MAX], out[PATH_MAX], cmd[2 * PATH_MAX + 16], buf[64];
	char exe[PATH_MAX], self[PATH_MAX], link[64];
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	struct kfit_child ch;
	ssize_t n;

	(void)state;
	path_in_tmp(in, sizeof(in), "setup");
	path_in_tmp(out, sizeof(out), "seen");
	snprintf(cmd, sizeof(cmd), "cat '%s' > '%s'", in, out);
	assert_int_equal(kfit_child_fork(&ch, argv), 0);
	snprintf(link, sizeof(link), "/proc/%d/exe", ch.proc.pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = 0;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = 0;
	assert_string_equal(exe, self);
	assert_false(kfit_child_proc_wait(&ch.proc, 0));
	write_file(in, "set up first\n", 0644);
	assert_int_equal(kfit_child_start(&ch), 0);
	wait_gone(&ch.proc);
	kfit_child_stop(&ch);
	assert_int_equal(ch.status, 0);
	read_file(out, buf, sizeof(buf));
	assert_string_equal(buf, "set up first\n");
}

/* Stopped while held: it never runs (EOF on its pipe), and is reaped */
static void test_stop_held(void **state)
{
	char out[PATH_MAX], cmd[PATH_MAX + 16];
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	struct kfit_child ch;

	(void)state;
	path_in_tmp(out, sizeof(out), "held-ran");
	snprintf(cmd, sizeof(cmd), "echo ran > '%s'", out);
	assert_int_equal(kfit_child_fork(&ch, argv), 0);
	kfit_child_stop(&ch);
	assert_true(ch.done);
	assert_int_equal(ch.status, 127);
	assert_false(file_exists(out));
	/* again: nothing more */
	kfit_child_stop(&ch);
	assert_int_equal(ch.status, 127);
}

/* Stopped while running: SIGTERM */
static void test_stop_running(void **state)
{
	char *argv[] = { "/bin/sleep", "100", NULL };
	struct kfit_child ch;

	(void)state;
	assert_int_equal(kfit_child_fork(&ch, argv), 0);
	assert_int_equal(kfit_child_start(&ch), 0);
	assert_false(kfit_child_reap(&ch, false));
	kfit_child_stop(&ch);
	assert_true(ch.done);
	assert_int_equal(ch.status, 128 + SIGTERM);
}

/* Run argv to its end; returns what the tool would exit with, and its note */
static int run_note(char **argv, char *note, size_t len)
{
	struct kfit_child ch;

	assert_int_equal(kfit_child_fork(&ch, argv), 0);
	assert_int_equal(kfit_child_start(&ch), 0);
	wait_gone(&ch.proc);
	assert_true(kfit_child_reap(&ch, false));
	capture_stderr();
	kfit_child_note(&ch);
	captured_stderr(note, len);
	kfit_child_stop(&ch);
	return kfit_child_exit(&ch, 0);
}

/* The tool exits with the command's status, a death by signal as a shell says */
static void test_exit_as_command(void **state)
{
	char *f[] = { "false", NULL }, *t[] = { "true", NULL };
	char *three[] = { "sh", "-c", "exit 3", NULL };
	char *segv[] = { "sh", "-c", "kill -SEGV $$", NULL };
	char *sigint[] = { "sh", "-c", "kill -INT $$", NULL };
	char note[512];

	(void)state;
	assert_int_equal(run_note(t, note, sizeof(note)), 0);
	assert_string_equal(note, "");
	assert_int_equal(run_note(f, note, sizeof(note)), 1);
	assert_non_null(strstr(note, "'false' exited with status 1"));
	assert_int_equal(run_note(three, note, sizeof(note)), 3);
	assert_int_equal(run_note(segv, note, sizeof(note)), 128 + SIGSEGV);
	assert_non_null(strstr(note, "'sh' killed by SIGSEGV"));
	assert_null(strstr(note, "status"));
	/* Ctrl-C: the status as a shell gives it, nothing said */
	assert_int_equal(run_note(sigint, note, sizeof(note)), 128 + SIGINT);
	assert_string_equal(note, "");
}

/* Stopped by the tool (-d, a signal): the tool's own status, no note */
static void test_exit_when_stopped(void **state)
{
	char *argv[] = { "sleep", "100", NULL };
	struct kfit_child ch, none = { 0 };
	char note[512];

	(void)state;
	assert_int_equal(kfit_child_fork(&ch, argv), 0);
	assert_int_equal(kfit_child_start(&ch), 0);
	kfit_child_stop(&ch);
	assert_true(ch.stopped);
	capture_stderr();
	kfit_child_note(&ch);
	captured_stderr(note, sizeof(note));
	assert_string_equal(note, "");
	assert_int_equal(kfit_child_exit(&ch, 0), 0);
	assert_int_equal(kfit_child_exit(&ch, -5), 1);
	assert_int_equal(kfit_child_exit(&ch, 130), 130);	/* an exit status kept */
	assert_int_equal(kfit_child_exit(&none, 0), 0);
}

/* Found as execvp finds it, before anything is forked */
static void test_command_check(void **state)
{
	char path[PATH_MAX], err[512];
	char *sh[] = { "sh", NULL }, *abs[] = { "/bin/sh", NULL };
	char *none[] = { "kfit-no-such-command-in-path", NULL };
	char *gone[] = { "/nonexistent/kfit", NULL }, *dir[] = { "/tmp", NULL };
	char *noexec[] = { path, NULL };

	(void)state;
	assert_int_equal(kfit_child_check_command(sh), 0);
	assert_int_equal(kfit_child_check_command(abs), 0);
	capture_stderr();
	assert_int_equal(kfit_child_check_command(none), -1);
	captured_stderr(err, sizeof(err));
	assert_non_null(strstr(err, "cannot run 'kfit-no-such-command-in-path': No such file or directory"));
	capture_stderr();
	assert_int_equal(kfit_child_check_command(gone), -1);
	assert_int_equal(kfit_child_check_command(dir), -1);
	path_in_tmp(path, sizeof(path), "no-x");
	write_file(path, "#!/bin/sh\n", 0644);
	assert_int_equal(kfit_child_check_command(noexec), -1);
	captured_stderr(err, sizeof(err));
	assert_non_null(strstr(err, "cannot run '/tmp/kfit-child."));
	assert_non_null(strstr(err, strerror(EACCES)));
}

/*
 * A COMMAND keeps the tool's stdout; the tool's own stdout goes to its
 * stderr (or --output's file).
 */
static void io_child(const char *out, const char *err, const char *output)
{
	char *argv[] = { "sh", "-c", "printf data", NULL };
	struct kfit_child ch;
	int fd;

	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 1);
	close(fd);
	fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	if (kfit_child_io_setup(output, argv))
		_exit(3);
	printf("report\n");
	fflush(stdout);
	if (kfit_child_fork(&ch, argv) || kfit_child_start(&ch))
		_exit(4);
	kfit_child_reap(&ch, true);
	exit(ch.status);	/* --output's file is renamed into place at exit */
}

static void test_io_setup(void **state)
{
	char out[PATH_MAX], err[PATH_MAX], file[PATH_MAX], buf[64];
	int st;
	pid_t pid;

	(void)state;
	path_in_tmp(out, sizeof(out), "io.out");
	path_in_tmp(err, sizeof(err), "io.err");
	path_in_tmp(file, sizeof(file), "io.report");
	pid = fork();
	if (!pid)
		io_child(out, err, NULL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	read_file(out, buf, sizeof(buf));
	assert_string_equal(buf, "data");
	read_file(err, buf, sizeof(buf));
	assert_string_equal(buf, "report\n");
	pid = fork();
	if (!pid)
		io_child(out, err, file);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	read_file(out, buf, sizeof(buf));
	assert_string_equal(buf, "data");
	read_file(err, buf, sizeof(buf));
	assert_string_equal(buf, "");
	read_file(file, buf, sizeof(buf));
	assert_string_equal(buf, "report\n");
}

/* --output's file: 0600, and never written through a planted symlink */
static void test_io_output_safe(void **state)
{
	char out[PATH_MAX], err[PATH_MAX], file[PATH_MAX], link[PATH_MAX];
	char victim[PATH_MAX], buf[512];
	struct stat sb;
	pid_t pid;
	int st;

	(void)state;
	path_in_tmp(out, sizeof(out), "safe.out");
	path_in_tmp(err, sizeof(err), "safe.err");
	path_in_tmp(file, sizeof(file), "safe.report");
	write_file(file, "old report", 0644);
	pid = fork();
	if (!pid)
		io_child(out, err, file);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(stat(file, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	read_file(file, buf, sizeof(buf));
	assert_string_equal(buf, "report\n");
	path_in_tmp(victim, sizeof(victim), "victim");
	path_in_tmp(link, sizeof(link), "planted");
	write_file(victim, "keep me", 0600);
	assert_int_equal(symlink(victim, link), 0);
	pid = fork();
	if (!pid)
		io_child(out, err, link);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	read_file(victim, buf, sizeof(buf));
	assert_string_equal(buf, "keep me");
	read_file(err, buf, sizeof(buf));
	assert_non_null(strstr(buf, "symbolic link"));
}

static void test_zeroed_child(void **state)
{
	struct kfit_child ch;

	(void)state;
	memset(&ch, 0, sizeof(ch));
	kfit_child_stop(&ch);
	assert_false(kfit_child_reap(&ch, false));
	assert_false(ch.done);
}

/* ---- watching ----------------------------------------------------------- */

/* A child that waits for a byte on a pipe, then exits (left unreaped) */
static pid_t held_process(int *release)
{
	int p[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[1]);
		_exit(read(p[0], &c, 1) == 1 ? 0 : 1);
	}
	close(p[0]);
	*release = p[1];
	return pid;
}

static bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int a = 0, b = 0;

	assert_int_equal(uname(&u), 0);
	assert_true(sscanf(u.release, "%d.%d", &a, &b) == 2);
	return a > major || (a == major && b >= minor);
}

/* Without a pidfd: /proc is looked at */
static void no_pidfd(struct kfit_child_proc *p)
{
	kfit_child_proc_close(p);
}

static void watch_process(bool with_pidfd)
{
	struct kfit_child_proc p;
	int release, status;
	pid_t pid = held_process(&release);

	kfit_child_proc_watch(&p, pid, false);
	/* pidfds of processes: 5.3 */
	if (kernel_at_least(5, 3))
		assert_true(p.fd >= 0);
	if (!with_pidfd)
		no_pidfd(&p);
	assert_false(kfit_child_proc_wait(&p, 0));
	assert_false(kfit_child_proc_wait(&p, 1000000));
	assert_int_equal(write(release, "x", 1), 1);
	close(release);
	/* a zombie (not reaped yet) has ended */
	wait_gone(&p);
	assert_true(kfit_child_proc_wait(&p, 0));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	kfit_child_proc_close(&p);
}

static void test_watch_process_pidfd(void **state)
{
	(void)state;
	watch_process(true);
}

static void test_watch_process_proc(void **state)
{
	(void)state;
	watch_process(false);
}

static int thread_pipe[2];
static pid_t thread_tid;

static void *held_thread(void *arg)
{
	char c;

	(void)arg;
	thread_tid = syscall(SYS_gettid);
	if (read(thread_pipe[0], &c, 1) != 1)
		return NULL;
	return NULL;
}

/* -t: a thread's end counts, while its process (this test) goes on */
static void watch_thread(bool with_pidfd)
{
	struct kfit_child_proc p;
	pthread_t t;
	int i;

	assert_int_equal(pipe(thread_pipe), 0);
	thread_tid = 0;
	assert_int_equal(pthread_create(&t, NULL, held_thread, NULL), 0);
	for (i = 0; i < 10000 && !__atomic_load_n(&thread_tid, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	assert_true(thread_tid > 0);
	kfit_child_proc_watch(&p, thread_tid, true);
	/* pidfds of threads: 6.9 */
	if (kernel_at_least(6, 9))
		assert_true(p.fd >= 0);
	if (!with_pidfd)
		no_pidfd(&p);
	assert_false(kfit_child_proc_wait(&p, 1000000));
	assert_int_equal(write(thread_pipe[1], "x", 1), 1);
	wait_gone(&p);
	pthread_join(t, NULL);
	kfit_child_proc_close(&p);
	close(thread_pipe[0]);
	close(thread_pipe[1]);
}

static void test_watch_thread_pidfd(void **state)
{
	(void)state;
	watch_thread(true);
}

static void test_watch_thread_proc(void **state)
{
	(void)state;
	watch_thread(false);
}

/* A process whose main thread ended while another runs has not ended */
static void *child_thread(void *arg)
{
	char c;

	if (read(*(int *)arg, &c, 1) != 1)
		_exit(1);
	_exit(0);
}

static pid_t leaderless_process(int *release)
{
	static int rfd;
	int p[2];
	pid_t pid;
	pthread_t t;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[1]);
		rfd = p[0];
		if (pthread_create(&t, NULL, child_thread, &rfd))
			_exit(1);
		pthread_exit(NULL);
	}
	close(p[0]);
	*release = p[1];
	return pid;
}

static void watch_leaderless(bool with_pidfd)
{
	char path[64], buf[512], *s;
	struct kfit_child_proc p;
	int release, status, i;
	pid_t pid = leaderless_process(&release);
	FILE *f;

	/* wait (bounded) until its leader is a zombie */
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (i = 0; i < 10000; i++) {
		f = fopen(path, "r");
		assert_non_null(f);
		assert_non_null(fgets(buf, sizeof(buf), f));
		fclose(f);
		s = strrchr(buf, ')');
		if (s && s[2] == 'Z')
			break;
		usleep(1000);
	}
	assert_true(i < 10000);
	kfit_child_proc_watch(&p, pid, false);
	if (!with_pidfd)
		no_pidfd(&p);
	assert_false(kfit_child_proc_wait(&p, 1000000));
	assert_int_equal(write(release, "x", 1), 1);
	close(release);
	wait_gone(&p);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	kfit_child_proc_close(&p);
}

static void test_watch_leaderless_pidfd(void **state)
{
	(void)state;
	watch_leaderless(true);
}

static void test_watch_leaderless_proc(void **state)
{
	(void)state;
	watch_leaderless(false);
}

/* A pid that no longer exists has ended */
static void test_watch_gone_pid(void **state)
{
	struct kfit_child_proc p;
	int release;
	pid_t pid = held_process(&release);

	(void)state;
	close(release);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	kfit_child_proc_watch(&p, pid, false);
	assert_true(kfit_child_proc_wait(&p, 0));
	kfit_child_proc_close(&p);
	kfit_child_proc_watch(&p, pid, false);
	no_pidfd(&p);
	assert_true(kfit_child_proc_wait(&p, 0));
}

static int setup(void **state)
{
	(void)state;
	signal(SIGPIPE, SIG_IGN);
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return t_rm_rf(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_command),
		cmocka_unit_test(test_true_false),
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_killed_by_signal),
		cmocka_unit_test(test_missing_command),
		cmocka_unit_test(test_not_executable),
		cmocka_unit_test(test_released_after_setup),
		cmocka_unit_test(test_stop_held),
		cmocka_unit_test(test_stop_running),
		cmocka_unit_test(test_exit_as_command),
		cmocka_unit_test(test_exit_when_stopped),
		cmocka_unit_test(test_command_check),
		cmocka_unit_test(test_io_output_safe),
		cmocka_unit_test(test_io_setup),
		cmocka_unit_test(test_zeroed_child),
		cmocka_unit_test(test_watch_process_pidfd),
		cmocka_unit_test(test_watch_process_proc),
		cmocka_unit_test(test_watch_thread_pidfd),
		cmocka_unit_test(test_watch_thread_proc),
		cmocka_unit_test(test_watch_leaderless_pidfd),
		cmocka_unit_test(test_watch_leaderless_proc),
		cmocka_unit_test(test_watch_gone_pid),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
