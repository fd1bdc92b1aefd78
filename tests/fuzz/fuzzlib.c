// SPDX-License-Identifier: GPL-2.0
/* tests/fuzz: helpers of the harnesses (fuzzlib.h) */
#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fuzzlib.h"

static char tmpdirs[4][PATH_MAX];
static int ntmpdirs;

static void die(const char *what, const char *path)
{
	fprintf(stderr, "fuzz: %s %s: %s\n", what, path, strerror(errno));
	abort();
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void rm_tmpdirs(void)
{
	while (ntmpdirs)
		nftw(tmpdirs[--ntmpdirs], rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fz_tmpdir(const char *name)
{
	char *d;

	if (ntmpdirs == 4)
		abort();
	d = tmpdirs[ntmpdirs];
	snprintf(d, PATH_MAX, "/tmp/kfit-fuzz-%s-XXXXXX", name);
	if (!mkdtemp(d))
		die("cannot make", d);
	if (!ntmpdirs++)
		atexit(rm_tmpdirs);
	return d;
}

void fz_put(const char *dir, const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX], *c;
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) >= sizeof(path))
		abort();
	if (!data) {
		if (unlink(path) && errno != ENOENT)
			die("cannot remove", path);
		return;
	}
	for (c = path + strlen(dir) + 1; (c = strchr(c, '/')); c++) {
		*c = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			die("cannot make", path);
		*c = '/';
	}
	f = fopen(path, "w");
	if (!f)
		die("cannot write", path);
	if (len && fwrite(data, 1, len, f) != len)
		die("cannot write", path);
	if (fclose(f))
		die("cannot write", path);
}

char *fz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

char *fz_line(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *nl;
	char *s;

	if (*p >= end)
		return NULL;
	nl = memchr(*p, '\n', end - *p);
	if (!nl)
		nl = end;
	s = fz_str(*p, nl - *p);
	*p = nl < end ? nl + 1 : end;
	return s;
}

const char *fz_selfdir(void)
{
	static char dir[PATH_MAX];
	ssize_t n;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0)
		die("cannot read", "/proc/self/exe");
	dir[n] = '\0';
	return dirname(dir);
}
