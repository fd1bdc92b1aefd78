// SPDX-License-Identifier: GPL-2.0
/*
 * BPF objects that outlive their loader: pins in bpffs, and maps found
 * again by id and name (BPF_MAP_GET_NEXT_ID, as bpftool walks them) when
 * the bpffs holding the pins is no longer reachable.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "fileio.h"
#include "pin.h"

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC	0x9fa0
#endif
#ifndef SYSFS_MAGIC
#define SYSFS_MAGIC		0x62656572
#endif

/* As the first process nothing is mounted: not even /proc may exist */
static int mount_at(const char *type, const char *dir, long magic)
{
	if (kfit_is_fs(dir, magic))
		return 0;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	if (mount(type, dir, type, MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return -errno;
	return 0;
}

int kfit_pin_mount(void)
{
	int r;

	r = mount_at("proc", "/proc", PROC_SUPER_MAGIC);
	if (r)
		return r;
	r = mount_at("sysfs", "/sys", SYSFS_MAGIC);
	if (r)
		return r;
	return kfit_fs_mount(KFIT_FS_BPFFS);
}

int kfit_pin_mkdir(const char *dir)
{
	char path[PATH_MAX];
	char *p;
	int r;

	if (!*dir)
		return -EINVAL;
	r = kfit_pathf(path, sizeof(path), "%s", dir);
	if (r)
		return r;
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

int kfit_pin_link(struct bpf_link *l, const char *dir, const char *name)
{
	char path[PATH_MAX];
	int r;

	r = kfit_pathf(path, sizeof(path), "%s/%s", dir, name);
	if (r)
		return r;
	r = bpf_link__pin(l, path);
	return r < 0 ? r : 0;
}

int kfit_pin_map(struct bpf_map *m, const char *dir)
{
	char path[PATH_MAX];
	int r;

	r = kfit_pathf(path, sizeof(path), "%s/%s", dir, bpf_map__name(m));
	if (r)
		return r;
	r = bpf_map__pin(m, path);
	return r < 0 ? r : 0;
}

int kfit_pin_open(const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd, r;

	r = kfit_pathf(path, sizeof(path), "%s/%s", dir, name);
	if (r)
		return r;
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

int kfit_pin_map_by_id(__u32 id)
{
	int fd = bpf_map_get_fd_by_id(id);

	return fd < 0 ? -errno : fd;
}

int kfit_pin_prog_maps(__u32 id, struct bpf_prog_info *info, __u32 *ids, __u32 n)
{
	__u32 len = sizeof(*info);
	int fd, r;

	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	memset(info, 0, sizeof(*info));
	info->nr_map_ids = n;
	info->map_ids = (__u64)(unsigned long)ids;
	r = bpf_obj_get_info_by_fd(fd, info, &len) ? -errno : 0;
	close(fd);
	if (r)
		return r;
	return info->nr_map_ids < n ? info->nr_map_ids : n;
}

/* Whether map fd is named name (the kernel keeps 15 characters of it) */
static bool map_named(int fd, const char *name)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return false;
	return !strncmp(info.name, name, sizeof(info.name) - 1);
}

int kfit_pin_find_map(const char *name, bool (*check)(int fd, void *ctx), void *ctx,
		  __u32 *id)
{
	__u32 cur = 0, best_id = 0;
	int fd, best = -ENOENT;

	while (!bpf_map_get_next_id(cur, &cur)) {
		fd = bpf_map_get_fd_by_id(cur);
		if (fd < 0)
			continue;	/* freed meanwhile */
		if (!map_named(fd, name) || (check && !check(fd, ctx))) {
			close(fd);
			continue;
		}
		if (best >= 0)
			close(best);
		best = fd;
		best_id = cur;
	}
	if (best >= 0 && id)
		*id = best_id;
	return best;
}

int kfit_pin_remove(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	int first = 0, r;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		r = kfit_pathf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!r && unlink(path))
			r = -errno;
		if (r && !first)
			first = r;
	}
	closedir(d);
	if (rmdir(dir) && !first)
		first = -errno;
	return first;
}
