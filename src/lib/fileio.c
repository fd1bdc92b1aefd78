// SPDX-License-Identifier: GPL-2.0
/*
 * Files the kernel describes itself in, and where their filesystems are.
 * Every reader of kallsyms, sysfs and tracefs in the library comes here,
 * so that a file is read, and a filesystem found, one way.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/vfs.h>
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

char *kfit_read_max(const char *path, size_t max, size_t *len, bool *cut)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = NULL, *nbuf;
	FILE *f;

	if (cut)
		*cut = false;
	f = fopen(path, "re");
	if (!f)
		return NULL;
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
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
fail:
	free(buf);
	fclose(f);
	return NULL;
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

int kfit_open_out(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		      O_NONBLOCK | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	/* O_NONBLOCK was for the open of a FIFO: writes may block */
	if (fcntl(fd, F_SETFL, 0)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}
