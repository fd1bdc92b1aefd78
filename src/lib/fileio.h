/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_FILEIO_H
#define KFIT_FILEIO_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The kernel's facts as files (procfs, sysfs, tracefs), and where the
 * filesystems holding them are mounted. A function that takes a
 * directory reads there instead of the live system when it is not NULL:
 * that is how the parsers built on them are tested over fixture trees.
 */

/* snprintf into a path buffer: 0, or -ENAMETOOLONG when it does not fit */
int kfit_pathf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int kfit_vpathf(char *buf, size_t len, const char *fmt, va_list ap);

/*
 * The whole file, NUL-terminated, its length in *len (len may be NULL).
 * procfs and tracefs files say size 0, so it reads until EOF. NULL with
 * errno set on failure. The caller frees it.
 */
char *kfit_read_all(const char *path, size_t *len);
/* At most MAX bytes (0: no limit); *cut says whether more was there */
char *kfit_read_max(const char *path, size_t max, size_t *len, bool *cut);

/* The first line of a small file, without trailing white space: 0 or -errno */
int kfit_read_line(const char *path, char *buf, size_t len);
/* The same, of the path fmt makes: -ENAMETOOLONG when it is too long */
int kfit_read_linef(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The filesystems the tools mount where they are missing */
enum kfit_fs {
	KFIT_FS_TRACEFS,	/* /sys/kernel/tracing, else /sys/kernel/debug/tracing */
	KFIT_FS_BPFFS,		/* /sys/fs/bpf */
	KFIT_FS_SECURITYFS,	/* /sys/kernel/security (lockdown) */
	KFIT_FS_NR
};

/* Whether path is a mounted filesystem of type magic (statfs's f_type) */
bool kfit_is_fs(const char *path, long magic);
/* Where fs is mounted (the first of its usual places that has it), or NULL */
const char *kfit_fs_path(enum kfit_fs fs);
/* Mount fs at its usual place unless it is there: 0, or -errno (needs root) */
int kfit_fs_mount(enum kfit_fs fs);

/* Where tracefs is mounted, or NULL: kfit_fs_path(KFIT_FS_TRACEFS) */
const char *kfit_tracefs(void);

/*
 * The tracefs to read events from: dir when given (a fixture: it must
 * have events/), else the mounted one, whose events/ this process must
 * be allowed to see. NULL when there is none, with *why ENOENT (none
 * there, or not mounted), EACCES (not readable: root needed) or another
 * errno.
 */
const char *kfit_tracefs_events(const char *dir, int *why);

/*
 * The number of possible CPUs, which per-CPU maps are sized by: the
 * highest in <sysfs>/devices/system/cpu/possible, plus one (sysfs NULL:
 * /sys, read once). A positive count, or -errno.
 */
int kfit_ncpus_possible(const char *sysfs);

/*
 * Open an output file for writing, created 0600 or truncated: a symlink
 * as its last component is refused (ELOOP), and a FIFO without a reader
 * fails (ENXIO) instead of blocking. The fd (O_CLOEXEC), or -errno.
 */
int kfit_open_out(const char *path);

#endif
