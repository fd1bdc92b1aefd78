// SPDX-License-Identifier: GPL-2.0
/*
 * Files the kernel describes itself in, and where their filesystems are.
 * Every reader of kallsyms, sysfs and tracefs in the library comes here,
 * so that a file is read, and a filesystem found, one way.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include "diag.h"
#include "fileio.h"

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC		0x74726163
#endif
#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC		0xcafe4a11
#endif
#ifndef SECURITYFS_MAGIC
#define SECURITYFS_MAGIC	0x73636673
#endif

static const struct fs_place {
	long magic;
	const char *type;	/* for mount(2) */
	const char *dirs[2];	/* where it is looked for; mounted at the first */
} fs_places[KFIT_FS_NR] = {
	[KFIT_FS_TRACEFS] = { TRACEFS_MAGIC, "tracefs",
			      { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" } },
	[KFIT_FS_BPFFS] = { BPF_FS_MAGIC, "bpf", { "/sys/fs/bpf" } },
	[KFIT_FS_SECURITYFS] = { SECURITYFS_MAGIC, "securityfs",
				 { "/sys/kernel/security" } },
};

int kfit_vpathf(char *buf, size_t len, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, len, fmt, ap);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int kfit_pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = kfit_vpathf(buf, len, fmt, ap);
	va_end(ap);
	return r;
}

char *kfit_fread_max(FILE *f, size_t max, size_t *len, bool *cut)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = NULL, *nbuf;

	if (cut)
		*cut = false;
	for (;;) {
		if (max && cap > max)
			cap = max;
		nbuf = realloc(buf, cap + 1);
		if (!nbuf) {
			errno = ENOMEM;
			goto fail;
		}
		buf = nbuf;
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		if (max && cap == max) {
			if (cut)
				*cut = fgetc(f) != EOF;
			break;
		}
		cap *= 2;
	}
	if (ferror(f)) {
		errno = errno ? errno : EIO;
		goto fail;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail:
	free(buf);
	return NULL;
}

char *kfit_read_max(const char *path, size_t max, size_t *len, bool *cut)
{
	FILE *f = fopen(path, "re");
	char *buf;
	int e;

	if (!f)
		return NULL;
	buf = kfit_fread_max(f, max, len, cut);
	e = errno;
	fclose(f);
	errno = e;
	return buf;
}

char *kfit_read_all(const char *path, size_t *len)
{
	return kfit_read_max(path, 0, len, NULL);
}

int kfit_read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;
	int r = 0;

	if (!f)
		return -errno;
	buf[0] = '\0';
	if (!fgets(buf, len, f) && ferror(f))
		r = errno ? -errno : -EIO;
	fclose(f);
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return r;
}

int kfit_read_linef(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = kfit_vpathf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return r ? r : kfit_read_line(path, buf, len);
}

bool kfit_is_fs(const char *path, long magic)
{
	struct statfs st;

	return statfs(path, &st) == 0 && st.f_type == magic;
}

const char *kfit_fs_path(enum kfit_fs fs)
{
	const struct fs_place *p;
	size_t i;

	if ((unsigned int)fs >= KFIT_FS_NR)
		return NULL;
	p = &fs_places[fs];
	for (i = 0; i < sizeof(p->dirs) / sizeof(p->dirs[0]) && p->dirs[i]; i++)
		if (kfit_is_fs(p->dirs[i], p->magic))
			return p->dirs[i];
	return NULL;
}

int kfit_fs_mount(enum kfit_fs fs)
{
	const struct fs_place *p;

	if ((unsigned int)fs >= KFIT_FS_NR)
		return -EINVAL;
	p = &fs_places[fs];
	if (kfit_is_fs(p->dirs[0], p->magic))
		return 0;
	return mount(p->type, p->dirs[0], p->type, 0, NULL) ? -errno : 0;
}

const char *kfit_tracefs(void)
{
	return kfit_fs_path(KFIT_FS_TRACEFS);
}

const char *kfit_tracefs_events(const char *dir, int *why)
{
	char path[PATH_MAX];
	int r, ignored;

	if (!why)
		why = &ignored;
	if (!dir)
		dir = kfit_tracefs();
	if (!dir) {
		*why = ENOENT;
		return NULL;
	}
	r = kfit_pathf(path, sizeof(path), "%s/events", dir);
	if (!r && access(path, F_OK))
		r = -errno;
	*why = -r;
	return r ? NULL : dir;
}

/* "0-3,6" (a cpulist): its highest CPU, or -EINVAL */
static int cpulist_max(const char *s)
{
	unsigned long v;
	int max = -1;
	char *end;

	while (*s) {
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		v = strtoul(s, &end, 10);
		if (v >= INT_MAX)
			return -EINVAL;
		if ((int)v > max)
			max = v;
		s = end;
		if (*s == '-' || *s == ',')
			s++;
		else if (*s)
			return -EINVAL;
	}
	return max < 0 ? -EINVAL : max;
}

static int ncpus_of(const char *sysfs)
{
	char buf[4096];
	int r;

	r = kfit_read_linef(buf, sizeof(buf), "%s/devices/system/cpu/possible", sysfs);
	if (!r)
		r = cpulist_max(buf);
	return r < 0 ? r : r + 1;
}

int kfit_ncpus_possible(const char *sysfs)
{
	static int live;

	if (sysfs)
		return ncpus_of(sysfs);
	if (live <= 0)
		live = ncpus_of("/sys");
	return live;
}

/* ---- output files ------------------------------------------------------ */

/* The named temporaries not yet committed, for a fatal signal's handler */
#define MAX_TEMPS	16
static struct kfit_out *volatile temps[MAX_TEMPS];

static void temp_track(struct kfit_out *o, bool on)
{
	int i;

	for (i = 0; on && i < MAX_TEMPS; i++)
		if (temps[i] == o)
			return;
	for (i = 0; i < MAX_TEMPS; i++) {
		if (on && !temps[i]) {
			temps[i] = o;
			return;
		}
		if (!on && temps[i] == o)
			temps[i] = NULL;
	}
}

void kfit_out_unlink_temps(void)
{
	int i;

	for (i = 0; i < MAX_TEMPS; i++)
		if (temps[i] && temps[i]->tmp[0])
			unlink(temps[i]->tmp);
}

static void on_fatal(int sig)
{
	kfit_out_unlink_temps();
	signal(sig, SIG_DFL);
	raise(sig);
}

void kfit_out_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_fatal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* dir (without a trailing slash; "." when path has none) and base of path */
static int split_path(const char *path, char *dir, size_t len, const char **base)
{
	const char *slash = strrchr(path, '/');

	*base = slash ? slash + 1 : path;
	if (!**base)
		return -EISDIR;		/* "dir/": no file name */
	if (!slash)
		return kfit_pathf(dir, len, ".");
	if (slash == path)
		return kfit_pathf(dir, len, "/");
	return kfit_pathf(dir, len, "%.*s", (int)(slash - path), path);
}

/* What is at path now may be replaced: 0 (nothing there, or a file we may write) or -errno */
static int check_target(const char *path, const char *dir)
{
	struct stat st, ds;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (access(path, W_OK))
		return -errno;
	/* a sticky directory (/tmp): only the owner may replace it */
	if (geteuid() && st.st_uid != geteuid() && !stat(dir, &ds) &&
	    (ds.st_mode & S_ISVTX) && ds.st_uid != geteuid())
		return -EPERM;
	return 0;
}

/* A name no one can guess: dir/.base.XXXXXXXXXXXX */
static int random_name(char *buf, size_t len, const char *dir, const char *base)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[12];
	char suffix[sizeof(r) + 1];
	size_t i;

	if (getrandom(r, sizeof(r), 0) != sizeof(r)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		for (i = 0; i < sizeof(r); i++)
			r[i] = (unsigned char)((ts.tv_nsec >> (i % 4 * 8)) ^ (getpid() >> i) ^
					       (i * 37 + rand()));
	}
	for (i = 0; i < sizeof(r); i++)
		suffix[i] = digits[r[i] % (sizeof(digits) - 1)];
	suffix[sizeof(r)] = '\0';
	return kfit_pathf(buf, len, "%s/.%.200s.%s", dir, base, suffix);
}

int kfit_out_open(struct kfit_out *o, const char *path)
{
	char dir[sizeof(o->path)];
	const char *base;
	int err;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!path || !*path)
		return -ENOENT;
	err = kfit_pathf(o->path, sizeof(o->path), "%s", path);
	if (!err)
		err = split_path(path, dir, sizeof(dir), &base);
	if (!err)
		err = check_target(path, dir);
	if (err)
		return err;
	o->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (o->fd >= 0) {
		o->live = true;
		return 0;
	}
	/* a filesystem without O_TMPFILE: a named one, made exclusively */
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	err = random_name(o->tmp, sizeof(o->tmp), dir, base);
	if (err)
		return err;
	o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (o->fd < 0) {
		err = -errno;
		o->tmp[0] = '\0';
		return err;
	}
	o->live = true;
	temp_track(o, true);
	return 0;
}

bool kfit_out_active(const struct kfit_out *o)
{
	return o && o->live;
}

FILE *kfit_out_file(struct kfit_out *o)
{
	if (!o->live) {
		errno = EBADF;
		return NULL;
	}
	if (!o->f)
		o->f = fdopen(o->fd, "w");
	return o->f;
}

/* Give an O_TMPFILE a name in its directory, one no one can guess */
static int link_tmpfile(struct kfit_out *o)
{
	char dir[sizeof(o->path)], proc[64];
	const char *base;
	int err, i;

	err = split_path(o->path, dir, sizeof(dir), &base);
	if (err)
		return err;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	for (i = 0; i < 100; i++) {
		err = random_name(o->tmp, sizeof(o->tmp), dir, base);
		if (err)
			return err;
		if (!linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW))
			return 0;
		/* no /proc: AT_EMPTY_PATH (needs CAP_DAC_READ_SEARCH) */
		if (errno == ENOENT &&
		    !linkat(o->fd, "", AT_FDCWD, o->tmp, AT_EMPTY_PATH))
			return 0;
		if (errno != EEXIST)
			break;
	}
	err = -errno;
	o->tmp[0] = '\0';
	return err;
}

/* Close the stream or the fd: 0, or -errno of a write it finished */
static int out_close(struct kfit_out *o)
{
	int err = 0;

	if (!o->live)
		return 0;
	if (o->f) {
		if (fclose(o->f))
			err = errno ? -errno : -EIO;
	} else if (close(o->fd)) {
		err = -errno;
	}
	o->f = NULL;
	o->fd = -1;
	o->live = false;
	return err;
}

/* Named, renamed to path, and still open: what is written next is path's */
int kfit_out_publish(struct kfit_out *o)
{
	int err = 0;

	if (!o->live)
		return -EBADF;
	if (o->published)
		return 0;
	if (o->f && fflush(o->f))
		err = errno ? -errno : -EIO;
	if (!err && !o->tmp[0])
		err = link_tmpfile(o);
	if (!err)
		temp_track(o, true);
	if (!err && rename(o->tmp, o->path))
		err = -errno;
	if (err)
		return err;
	temp_track(o, false);
	o->tmp[0] = '\0';
	o->published = true;
	return 0;
}

int kfit_out_commit(struct kfit_out *o)
{
	int err = 0;

	if (!o->live)
		return -EBADF;
	if (o->published)
		return out_close(o);
	if (o->f && fflush(o->f))
		err = errno ? -errno : -EIO;
	if (!err && !o->tmp[0])
		err = link_tmpfile(o);
	if (!err) {
		temp_track(o, true);
		/* the last write's error (NFS, a full disk) may come at close */
		err = out_close(o);
	}
	if (!err && rename(o->tmp, o->path))
		err = -errno;
	if (err) {
		kfit_out_abort(o);
		return err;
	}
	temp_track(o, false);
	o->tmp[0] = '\0';
	return 0;
}

void kfit_out_abort(struct kfit_out *o)
{
	if (!o)
		return;
	out_close(o);
	if (o->tmp[0])
		unlink(o->tmp);
	temp_track(o, false);
	o->tmp[0] = '\0';
}

int kfit_out_finish(struct kfit_out *o, int err)
{
	/* the stream's -EIO: the failed write's own errno says more (a full disk) */
	if (err == -EIO && (errno == ENOSPC || errno == EDQUOT || errno == EFBIG))
		err = -errno;
	if (!err)
		err = kfit_out_commit(o);
	kfit_out_abort(o);
	return err;
}

const char *kfit_out_reason(int err)
{
	switch (-err) {
	case ELOOP:
		return "a symbolic link (not followed: give the file it points to)";
	case EISDIR:
		return "a directory";
	case EINVAL:
		return "not a regular file (a FIFO, device or socket): give a file name";
	case ENOSPC:
		return "no space left on device";
	case EDQUOT:
		return "disk quota exceeded";
	default:
		return strerror(-err);
	}
}

void kfit_out_err(const char *path, int err)
{
	kfit_err("cannot write %s: %s", path, kfit_out_reason(err));
}

int kfit_fd_push(int **fds, int *n, int fd)
{
	int *m = realloc(*fds, (*n + 1) * sizeof(*m));

	if (!m) {
		close(fd);
		return -ENOMEM;
	}
	*fds = m;
	(*fds)[(*n)++] = fd;
	return 0;
}

/* Open file descriptors; all of them when none is left to count with */
int kfit_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	struct rlimit rl;
	int n = 0;

	if (!d)
		return errno == EMFILE && !getrlimit(RLIMIT_NOFILE, &rl) ?
		       (int)rl.rlim_cur : -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own */
}
