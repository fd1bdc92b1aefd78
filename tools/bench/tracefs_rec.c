// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs_rec: record one tracepoint through tracefs the way trace-cmd
 * record does, for the recording benchmark (tools/bench/record.sh) on
 * hosts where trace-cmd refuses (it cannot write ftrace_enabled).
 *
 *   tracefs_rec [-b KB] [-i NAME] -o PREFIX CATEGORY:EVENT [-- CMD...]
 *   tracefs_rec -c FILE...
 *
 * A tracefs instance of its own (instances/NAME, default tracefs_rec.PID:
 * the global buffer is left alone), its per-CPU buffer_size_kb set to KB,
 * the event enabled in it; one thread per CPU splices the CPU's
 * trace_pipe_raw through a pipe into PREFIX.cpuN. Runs CMD, or until
 * SIGINT or SIGTERM; then stops the instance, drains every CPU (whole
 * sub-buffers by splice, the last partial one by read, as trace-cmd
 * does), prints each CPU's stats and a total line, disables the event
 * and removes the instance, on every exit path but SIGKILL.
 *
 * -c: counts the events in recorded files by walking their sub-buffers
 * (the ring buffer's page format: events/header_page, header_event),
 * and the events the kernel marked missed in them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define POLL_MS 100

struct cpu_rec {
	int cpu;
	int in;			/* per_cpu/cpuN/trace_pipe_raw */
	int out;		/* PREFIX.cpuN */
	int pipe[2];
	unsigned long long bytes;
	int err;		/* errno of a failure, 0 */
	pthread_t thread;
};

static const char *tracefs;
static char inst[PATH_MAX];
static int inst_made;
static char event_path[PATH_MAX];	/* events/CAT/NAME, or "" */
static size_t subbuf;
static volatile int stopping;

static void warnx(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "tracefs_rec: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A path into BUF (PATH_MAX bytes); a too long one ends up empty */
static void pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_MAX) {
		warnx("path too long: %.40s...", buf);
		buf[0] = 0;
	}
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0) {
		warnx("%s: %s", path, strerror(errno));
		return -1;
	}
	n = write(fd, val, strlen(val));
	if (n < 0)
		warnx("%s: writing '%s': %s", path, val, strerror(errno));
	close(fd);
	return n < 0 ? -1 : 0;
}

static int inst_write(const char *file, const char *val)
{
	char path[PATH_MAX];

	pathf(path, "%s/%s", inst, file);
	return write_file(path, val);
}

static const char *find_tracefs(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		pathf(path, "%s/instances", dirs[i]);
		if (access(path, F_OK) == 0)
			return dirs[i];
	}
	return NULL;
}

/* Disable the event, then remove the instance (which frees its buffers) */
static void teardown(void)
{
	char path[PATH_MAX];

	if (event_path[0]) {
		pathf(path, "%s/enable", event_path);
		write_file(path, "0");
		event_path[0] = 0;
	}
	if (inst_made && rmdir(inst) != 0)
		warnx("rmdir %s: %s (remove it by hand)", inst, strerror(errno));
	inst_made = 0;
}

/* Move N bytes from the pipe to the file */
static int drain_pipe(struct cpu_rec *c, ssize_t n)
{
	while (n > 0) {
		ssize_t m = splice(c->pipe[0], NULL, c->out, NULL, n, SPLICE_F_MOVE);

		if (m <= 0)
			return m < 0 ? -errno : -EIO;
		n -= m;
		c->bytes += m;
	}
	return 0;
}

/* Splice whole sub-buffers until none is ready: 0, or -errno */
static int splice_ready(struct cpu_rec *c, size_t len)
{
	for (;;) {
		ssize_t n = splice(c->in, NULL, c->pipe[1], NULL, len,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		int err;

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		if (n == 0)
			return 0;
		err = drain_pipe(c, n);
		if (err)
			return err;
	}
}

/* The last, partial sub-buffer: splice takes whole ones only */
static int read_partial(struct cpu_rec *c)
{
	char *buf = malloc(subbuf);
	ssize_t n;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while ((n = read(c->in, buf, subbuf)) > 0) {
		if (write(c->out, buf, n) != n) {
			err = -errno;
			break;
		}
		c->bytes += n;
	}
	if (n < 0 && errno != EAGAIN)
		err = -errno;
	free(buf);
	return err;
}

static void *cpu_thread(void *arg)
{
	struct cpu_rec *c = arg;
	struct pollfd p = { .fd = c->in, .events = POLLIN };
	int len = fcntl(c->pipe[1], F_GETPIPE_SZ);
	int err = 0;

	if (len < (int)subbuf)
		len = subbuf;
	while (!stopping && !err) {
		if (poll(&p, 1, POLL_MS) < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		err = splice_ready(c, len);
	}
	if (!err)
		err = splice_ready(c, len);
	if (!err)
		err = read_partial(c);
	c->err = -err;
	return NULL;
}

static int open_cpu(struct cpu_rec *c, const char *prefix)
{
	char path[PATH_MAX];

	pathf(path, "%s/per_cpu/cpu%d/trace_pipe_raw", inst, c->cpu);
	c->in = open(path, O_RDONLY | O_NONBLOCK);
	if (c->in < 0) {
		warnx("%s: %s", path, strerror(errno));
		return -1;
	}
	pathf(path, "%s.cpu%d", prefix, c->cpu);
	c->out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (c->out < 0) {
		warnx("%s: %s", path, strerror(errno));
		return -1;
	}
	if (pipe(c->pipe) != 0) {
		warnx("pipe: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void close_cpu(struct cpu_rec *c)
{
	if (c->in >= 0)
		close(c->in);
	if (c->out >= 0)
		close(c->out);
	if (c->pipe[0] >= 0) {
		close(c->pipe[0]);
		close(c->pipe[1]);
	}
}

struct cpu_stats {
	unsigned long long entries, overrun, commit_overrun, dropped, read;
};

static void read_stats(int cpu, struct cpu_stats *s)
{
	char path[PATH_MAX], line[256];
	unsigned long long v;
	FILE *f;

	memset(s, 0, sizeof(*s));
	pathf(path, "%s/per_cpu/cpu%d/stats", inst, cpu);
	f = fopen(path, "r");
	if (!f) {
		warnx("%s: %s", path, strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "entries: %llu", &v) == 1)
			s->entries = v;
		else if (sscanf(line, "overrun: %llu", &v) == 1)
			s->overrun = v;
		else if (sscanf(line, "commit overrun: %llu", &v) == 1)
			s->commit_overrun = v;
		else if (sscanf(line, "dropped events: %llu", &v) == 1)
			s->dropped = v;
		else if (sscanf(line, "read events: %llu", &v) == 1)
			s->read = v;
	}
	fclose(f);
}

static void print_stats(struct cpu_rec *cpus, int ncpus)
{
	struct cpu_stats s, t = { 0 };
	unsigned long long bytes = 0;
	int i;

	for (i = 0; i < ncpus; i++) {
		read_stats(cpus[i].cpu, &s);
		printf("cpu%d: bytes %llu, read events %llu, entries %llu, overrun %llu, "
		       "commit overrun %llu, dropped events %llu\n", cpus[i].cpu,
		       cpus[i].bytes, s.read, s.entries, s.overrun, s.commit_overrun,
		       s.dropped);
		bytes += cpus[i].bytes;
		t.read += s.read;
		t.entries += s.entries;
		t.overrun += s.overrun;
		t.commit_overrun += s.commit_overrun;
		t.dropped += s.dropped;
	}
	printf("total: bytes %llu, read events %llu, entries %llu, overrun %llu, "
	       "commit overrun %llu, dropped events %llu\n", bytes, t.read,
	       t.entries, t.overrun, t.commit_overrun, t.dropped);
	fflush(stdout);
}

static pid_t run_cmd(char **argv, const sigset_t *old)
{
	pid_t pid = fork();

	if (pid < 0) {
		warnx("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, old, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "tracefs_rec: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

/* Until a signal, or CMD's exit (its status, else 0) */
static int wait_end(pid_t child, const sigset_t *set)
{
	siginfo_t si;
	int status;

	for (;;) {
		if (sigwaitinfo(set, &si) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (si.si_signo != SIGCHLD)
			return 0;
		if (child > 0 && waitpid(child, &status, WNOHANG) == child)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
}

static int setup(const char *name, const char *kb, const char *event)
{
	char path[PATH_MAX], cat[128];
	const char *colon = strchr(event, ':');
	unsigned long v;
	FILE *f;

	if (!colon || colon == event || !colon[1] ||
	    (size_t)(colon - event) >= sizeof(cat)) {
		warnx("%s: not CATEGORY:EVENT", event);
		return 2;
	}
	memcpy(cat, event, colon - event);
	cat[colon - event] = 0;
	pathf(inst, "%s/instances/%s", tracefs, name);
	if (mkdir(inst, 0755) != 0) {
		warnx("mkdir %s: %s", inst, strerror(errno));
		return 1;
	}
	inst_made = 1;
	if (inst_write("buffer_size_kb", kb))
		return 1;
	pathf(path, "%s/buffer_subbuf_size_kb", inst);
	subbuf = 4096;
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lu", &v) == 1 && v > 0)
			subbuf = v * 1024;
		fclose(f);
	}
	pathf(event_path, "%s/events/%s/%s", inst, cat, colon + 1);
	if (access(event_path, F_OK) != 0) {
		warnx("%s: no such event (%s)", event, event_path);
		event_path[0] = 0;
		return 1;
	}
	return 0;
}

static int record(const char *prefix, char **cmd)
{
	int ncpus = sysconf(_SC_NPROCESSORS_CONF), n = 0, nthr, i, rc = 1;
	struct cpu_rec *cpus = calloc(ncpus, sizeof(*cpus));
	char path[PATH_MAX];
	sigset_t set, old;
	pid_t child = 0;

	if (!cpus)
		return 1;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &set, &old);	/* the threads inherit it */
	for (i = 0; i < ncpus; i++) {
		struct cpu_rec *c = &cpus[n];

		c->cpu = i;
		c->in = c->out = c->pipe[0] = c->pipe[1] = -1;
		pathf(path, "%s/per_cpu/cpu%d", inst, i);
		if (access(path, F_OK) != 0)
			continue;	/* not a possible CPU */
		n++;
		if (open_cpu(c, prefix))
			goto out;
	}
	for (nthr = 0; nthr < n; nthr++) {
		if (pthread_create(&cpus[nthr].thread, NULL, cpu_thread, &cpus[nthr])) {
			warnx("pthread_create failed");
			stopping = 1;
			goto join;
		}
	}
	pathf(path, "%s/enable", event_path);
	if (write_file(path, "1")) {
		stopping = 1;
		goto join;
	}
	fprintf(stderr, "tracefs_rec: recording %s on %d CPUs into %s.cpu*\n",
		strrchr(event_path, '/') + 1, n, prefix);
	if (cmd && (child = run_cmd(cmd, &old)) < 0) {
		rc = 1;
		goto stop;
	}
	rc = wait_end(child, &set);
	if (child > 0 && rc == 0 && waitpid(child, NULL, WNOHANG) == 0) {
		kill(child, SIGTERM);	/* we were signalled: CMD goes too */
		waitpid(child, NULL, 0);
	}
stop:
	inst_write("tracing_on", "0");	/* no more events: drain the rest */
	stopping = 1;
join:
	for (i = 0; i < nthr; i++) {
		pthread_join(cpus[i].thread, NULL);
		if (cpus[i].err) {
			warnx("cpu%d: %s", cpus[i].cpu, strerror(cpus[i].err));
			rc = 1;
		}
	}
	print_stats(cpus, nthr);
out:
	for (i = 0; i < n; i++)		/* the slots opened, or being opened */
		close_cpu(&cpus[i]);
	free(cpus);
	return rc;
}

/*
 * Count the events of one sub-buffer: a header (u64 timestamp, then the
 * commit word: the data length, its top bits flags), then events, each a
 * u32 (type_len: 5 bits, time_delta: 27) and its data. type_len 1..28:
 * data of type_len * 4 bytes; 0: its length in the next u32; 29 padding
 * (the next u32 its length; time_delta 0: the rest of the page);
 * 30 time extend, 31 absolute time stamp: 8 bytes in all.
 */
#define RB_MISSED_EVENTS (1UL << 31)
#define RB_MISSED_STORED (1UL << 30)
#define RB_FLAGS (RB_MISSED_EVENTS | RB_MISSED_STORED)

static int count_page(const unsigned char *p, size_t size,
		      unsigned long long *events, unsigned long long *missed)
{
	uint64_t commit;
	size_t off = 16, end;

	if (size < 16)
		return -1;
	memcpy(&commit, p + 8, 8);
	end = 16 + (commit & ~RB_FLAGS & 0xffffffffULL);
	if (end > size)
		return -1;
	if ((commit & RB_MISSED_STORED) && end + 8 <= size) {
		uint64_t m;

		memcpy(&m, p + end, 8);
		*missed += m;
	}
	while (off + 4 <= end) {
		uint32_t h, len;
		unsigned type;

		memcpy(&h, p + off, 4);
		type = h & 31;
		if (type >= 30) {
			off += 8;
			continue;
		}
		if (type == 29 || type == 0) {
			if (off + 8 > end)
				return -1;
			memcpy(&len, p + off + 4, 4);
			if (type == 29 && (h >> 5) == 0)
				break;		/* padding to the page's end */
			off += (type == 0 ? 8 : 4) + len;
			if (type == 0)
				(*events)++;
			continue;
		}
		off += 4 + type * 4;
		(*events)++;
	}
	return 0;
}

static int count_files(int argc, char **argv)
{
	unsigned long long events = 0, missed = 0, pages = 0;
	unsigned char *buf;
	int i, rc = 0;

	subbuf = 4096;
	buf = malloc(subbuf);
	if (!buf)
		return 1;
	for (i = 0; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		ssize_t n;

		if (fd < 0) {
			warnx("%s: %s", argv[i], strerror(errno));
			rc = 1;
			continue;
		}
		while ((n = read(fd, buf, subbuf)) > 0) {
			pages++;
			if (count_page(buf, n, &events, &missed)) {
				warnx("%s: sub-buffer %llu is malformed", argv[i], pages);
				rc = 1;
				break;
			}
		}
		close(fd);
	}
	printf("events %llu, missed %llu, sub-buffers %llu\n", events, missed, pages);
	free(buf);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: tracefs_rec [-b KB] [-i NAME] -o PREFIX CATEGORY:EVENT [-- CMD...]\n"
		   "       tracefs_rec -c FILE...\n");
}

int main(int argc, char **argv)
{
	const char *kb = "4096", *prefix = NULL;
	char name[64];
	int opt, rc;

	snprintf(name, sizeof(name), "tracefs_rec.%d", (int)getpid());
	while ((opt = getopt(argc, argv, "+b:i:o:ch")) != -1) {
		switch (opt) {
		case 'b':
			kb = optarg;
			break;
		case 'i':
			snprintf(name, sizeof(name), "%s", optarg);
			break;
		case 'o':
			prefix = optarg;
			break;
		case 'c':
			if (optind >= argc) {
				usage(stderr);
				return 2;
			}
			return count_files(argc - optind, argv + optind);
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!prefix || optind >= argc || strchr(name, '/') || !name[0]) {
		usage(stderr);
		return 2;
	}
	tracefs = find_tracefs();
	if (!tracefs) {
		warnx("no tracefs with instances (mount -t tracefs nodev /sys/kernel/tracing)");
		return 1;
	}
	rc = setup(name, kb, argv[optind]);
	if (rc == 0) {
		char **cmd = NULL;

		if (optind + 1 < argc) {
			if (strcmp(argv[optind + 1], "--") || optind + 2 >= argc) {
				teardown();
				usage(stderr);
				return 2;
			}
			cmd = argv + optind + 2;
		}
		rc = record(prefix, cmd);
	}
	teardown();
	return rc;
}
