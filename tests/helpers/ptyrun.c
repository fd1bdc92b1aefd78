// SPDX-License-Identifier: GPL-2.0
/*
 * ptyrun CMD [ARGS...]: run CMD on a pseudo-terminal (stdin, stdout and
 * stderr all on it), copy what it writes to our stdout, and exit with its
 * status. Tests use it to see what tools print only on a terminal
 * (progress lines) where neither script(1) nor expect is installed.
 */
#include <errno.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void copy_out(int fd)
{
	char buf[4096];
	ssize_t n;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		/* EIO: the child closed its side */
		if (n <= 0)
			return;
		if (write(STDOUT_FILENO, buf, n) != n)
			return;
	}
}

int main(int argc, char **argv)
{
	int fd, status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: ptyrun CMD [ARGS...]\n");
		return 2;
	}
	pid = forkpty(&fd, NULL, NULL, NULL);
	if (pid < 0) {
		perror("ptyrun: forkpty");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	copy_out(fd);
	if (waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
