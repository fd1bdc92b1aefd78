/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_FILEIO_H
#define KFIT_FILEIO_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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
/* The same from an open stream, read to its end or MAX (stdin, say) */
char *kfit_fread_max(FILE *f, size_t max, size_t *len, bool *cut);

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

/* fd appended to the list (*fds, *n): 0, or -ENOMEM with fd closed */
int kfit_fd_push(int **fds, int *n, int fd);
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
 * The file descriptors this process holds (/proc/self/fd); RLIMIT_NOFILE
 * when none is left to count with, -1 when they cannot be counted
 */
int kfit_count_fds(void);

/*
 * Output files, created safely: every file a tool writes (-o, --output,
 * --svg, --perfetto) goes through these. kfit_out_open makes an
 * unpredictable temporary in PATH's directory, exclusively (O_TMPFILE,
 * else a mkostemp name), mode 0600 (a recording holds kernel addresses
 * and command lines); kfit_out_commit renames it over PATH. Until then
 * whatever was at PATH stays as it was: an abort or a signal leaves it.
 * A symbolic link at PATH is never followed, and what is not a regular
 * file (a FIFO, a device, a directory) is refused, before anything is
 * written.
 *
 *	struct kfit_out o;
 *	FILE *f;
 *
 *	if (kfit_out_open(&o, path, &err))	(at start: a bad path fails now)
 *		... kfit_out_err(path, err); exit 1
 *	f = kfit_out_file(&o);			(or write(o.fd, ...))
 *	... fprintf(f, ...)
 *	err = kfit_out_commit(&o);		(or kfit_out_abort(&o))
 */
struct kfit_out {
	bool live;		/* open, not yet committed or aborted (a zeroed
				   struct is not: kfit_out_abort on it is a no-op) */
	int fd;			/* the temporary's, while live */
	FILE *f;		/* kfit_out_file's stream over fd, or NULL */
	char path[4096];	/* the file asked for */
	char tmp[4096];		/* a named temporary ("" with O_TMPFILE) */
	bool published;		/* kfit_out_publish: at path already */
};

/* Create the temporary for path: 0, or -errno (o is then closed) */
int kfit_out_open(struct kfit_out *o, const char *path);
/* A stdio stream over o->fd (made once, owned by o), or NULL with errno */
FILE *kfit_out_file(struct kfit_out *o);
/* Write it all (the stream's buffer too), rename it to path: 0 or -errno;
   on an error the temporary is removed and path left alone */
int kfit_out_commit(struct kfit_out *o);
/*
 * Give the temporary path's name now, and keep writing to it: a file
 * whose end may never come (a recording killed) is there as far as it
 * got. Commit then only closes it; abort closes it and leaves it.
 * 0 or -errno (o still live, a temporary).
 */
int kfit_out_publish(struct kfit_out *o);
/* Remove the temporary; path stays as it was. No-op unless live */
void kfit_out_abort(struct kfit_out *o);
/*
 * After a writer into kfit_out_file's stream returned err (0, -errno, or
 * -EIO for the stream's error, told then as the failed write's errno: a
 * full disk): committed if 0, else aborted; err or the commit's
 */
int kfit_out_finish(struct kfit_out *o, int err);
/* Whether o holds a temporary not yet committed or aborted */
bool kfit_out_active(const struct kfit_out *o);

/*
 * The errors of kfit_out_* in words: -ELOOP "a symbolic link (not
 * followed)", -EISDIR "a directory", -EINVAL "not a regular file (a FIFO,
 * device or socket)", -ENOSPC "no space left on device"; others strerror
 */
const char *kfit_out_reason(int err);
/* "cannot write PATH: REASON" (kfit_err) */
void kfit_out_err(const char *path, int err);

/*
 * For a fatal signal's handler (async-signal-safe): remove every named
 * temporary not yet committed (O_TMPFILE ones vanish by themselves)
 */
void kfit_out_unlink_temps(void);
/*
 * For a tool without kfit_setup's handlers (kd): SIGINT, SIGTERM and SIGHUP
 * remove the named temporaries, then end it as their default actions do
 */
void kfit_out_catch_signals(void);

#endif
