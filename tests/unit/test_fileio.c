// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <linux/magic.h>
#include <cmocka.h>
#include "testlib.h"
#include "fileio.h"

static const char *write_file(const char *name, const void *data, size_t len)
{
	const char *path = t_tmp(name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void make_dir(const char *rel)
{
	assert_int_equal(mkdir(t_tmp(rel), 0755), 0);
}

static void test_pathf(void **state)
{
	char buf[8];

	(void)state;
	assert_int_equal(kfit_pathf(buf, sizeof(buf), "%s/%d", "ab", 123), 0);
	assert_string_equal(buf, "ab/123");
	/* Seven characters and the NUL fit; eight do not */
	assert_int_equal(kfit_pathf(buf, sizeof(buf), "%s", "1234567"), 0);
	assert_int_equal(kfit_pathf(buf, sizeof(buf), "%s", "12345678"), -ENAMETOOLONG);
}

static void test_read_all_small(void **state)
{
	static const char text[] = "line one\nline two\n\nlast, no newline";
	size_t len = 0;
	char *s;

	(void)state;
	s = kfit_read_all(write_file("small", text, strlen(text)), &len);
	assert_non_null(s);
	assert_int_equal(len, strlen(text));
	assert_string_equal(s, text);
	free(s);
	s = kfit_read_all(write_file("empty", "", 0), &len);
	assert_non_null(s);
	assert_int_equal(len, 0);
	assert_string_equal(s, "");
	free(s);
	errno = 0;
	assert_null(kfit_read_all(t_tmp("missing"), &len));
	assert_int_equal(errno, ENOENT);
	/* The length is optional */
	s = kfit_read_all(t_tmp("small"), NULL);
	assert_non_null(s);
	free(s);
}

/* Bigger than the first buffer (1 MiB), and exactly twice it */
static void test_read_all_large(void **state)
{
	size_t sizes[] = { (3 << 20) + 17, 2 << 20 }, len, i, j;
	char *data, *s;

	(void)state;
	for (i = 0; i < 2; i++) {
		data = malloc(sizes[i]);
		assert_non_null(data);
		for (j = 0; j < sizes[i]; j++)
			data[j] = 'a' + (j * 7 + j / 4096) % 26;
		s = kfit_read_all(write_file("large", data, sizes[i]), &len);
		assert_non_null(s);
		assert_int_equal(len, sizes[i]);
		assert_memory_equal(s, data, sizes[i]);
		assert_int_equal(s[len], '\0');
		free(s);
		free(data);
	}
}

/* A procfs file says size 0: read to EOF all the same */
static void test_read_all_procfs(void **state)
{
	char want[4096], *s;
	struct stat st;
	size_t len;
	ssize_t n, got = 0;
	int fd;

	(void)state;
	assert_int_equal(stat("/proc/version", &st), 0);
	assert_int_equal(st.st_size, 0);
	fd = open("/proc/version", O_RDONLY);
	assert_true(fd >= 0);
	while ((n = read(fd, want + got, sizeof(want) - 1 - got)) > 0)
		got += n;
	close(fd);
	assert_true(got > 0);
	s = kfit_read_all("/proc/version", &len);
	assert_non_null(s);
	assert_int_equal(len, got);
	assert_memory_equal(s, want, got);
	free(s);
}

static void test_read_line(void **state)
{
	char buf[16];

	(void)state;
	write_file("line", "  first line \t \nsecond\n", 23);
	assert_int_equal(kfit_read_line(t_tmp("line"), buf, sizeof(buf)), 0);
	/* Leading white space stays, trailing goes */
	assert_string_equal(buf, "  first line");
	/* Cut to the buffer */
	assert_int_equal(kfit_read_line(t_tmp("line"), buf, 6), 0);
	assert_string_equal(buf, "  fir");
	write_file("nonl", "0x3c", 4);
	assert_int_equal(kfit_read_linef(buf, sizeof(buf), "%s/%s", t_tmpdir, "nonl"), 0);
	assert_string_equal(buf, "0x3c");
	write_file("none", "", 0);
	strcpy(buf, "old");
	assert_int_equal(kfit_read_line(t_tmp("none"), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(kfit_read_line(t_tmp("missing"), buf, sizeof(buf)), -ENOENT);
	assert_int_equal(kfit_read_linef(buf, sizeof(buf), "%s/%0*d", t_tmpdir, PATH_MAX, 1),
			 -ENAMETOOLONG);
	/* A directory opens but cannot be read */
	assert_int_equal(kfit_read_line(t_tmpdir, buf, sizeof(buf)), -EISDIR);
}

static void test_is_fs(void **state)
{
	(void)state;
	assert_true(kfit_is_fs("/proc", PROC_SUPER_MAGIC));
	assert_false(kfit_is_fs("/proc", TRACEFS_MAGIC));
	assert_false(kfit_is_fs(t_tmp("missing"), PROC_SUPER_MAGIC));
	assert_null(kfit_fs_path(KFIT_FS_NR));
	assert_int_equal(kfit_fs_mount(KFIT_FS_NR), -EINVAL);
}

/* The mount table names the same places */
static void test_fs_path_vs_mounts(void **state)
{
	static const struct {
		enum kfit_fs fs;
		const char *type;
		const char *dirs[2];
	} fss[] = {
		{ KFIT_FS_TRACEFS, "tracefs",
		  { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" } },
		{ KFIT_FS_BPFFS, "bpf", { "/sys/fs/bpf" } },
		{ KFIT_FS_SECURITYFS, "securityfs", { "/sys/kernel/security" } },
	};
	char line[1024], mdir[512], mtype[64];
	bool mounted[3][2] = { { false } };
	const char *want;
	size_t i, k;
	FILE *f;

	(void)state;
	f = fopen("/proc/self/mounts", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %511s %63s", mdir, mtype) != 2)
			continue;
		for (i = 0; i < 3; i++)
			for (k = 0; k < 2; k++)
				if (fss[i].dirs[k] && !strcmp(mdir, fss[i].dirs[k]) &&
				    !strcmp(mtype, fss[i].type))
					mounted[i][k] = true;
	}
	fclose(f);
	for (i = 0; i < 3; i++) {
		want = mounted[i][0] ? fss[i].dirs[0] : mounted[i][1] ? fss[i].dirs[1] : NULL;
		if (!want)
			assert_null(kfit_fs_path(fss[i].fs));
		else
			assert_string_equal(kfit_fs_path(fss[i].fs), want);
	}
	want = kfit_fs_path(KFIT_FS_TRACEFS);
	if (want)
		assert_string_equal(kfit_tracefs(), want);
	else
		assert_null(kfit_tracefs());
}

static void test_tracefs_events(void **state)
{
	int why = 0;

	(void)state;
	make_dir("trace");
	assert_null(kfit_tracefs_events(t_tmp("trace"), &why));
	assert_int_equal(why, ENOENT);
	make_dir("trace/events");
	assert_string_equal(kfit_tracefs_events(t_tmp("trace"), &why), t_tmp("trace"));
	assert_int_equal(why, 0);
	assert_null(kfit_tracefs_events(t_tmp("nowhere"), NULL));
	/* The live one agrees with kfit_tracefs() and access(2) */
	if (!kfit_tracefs()) {
		assert_null(kfit_tracefs_events(NULL, &why));
		assert_int_equal(why, ENOENT);
	} else if (access("/sys/kernel/tracing/events", F_OK) &&
		   !strcmp(kfit_tracefs(), "/sys/kernel/tracing")) {
		assert_null(kfit_tracefs_events(NULL, &why));
		assert_int_equal(why, errno);
	} else if (!strcmp(kfit_tracefs(), "/sys/kernel/tracing")) {
		assert_string_equal(kfit_tracefs_events(NULL, &why), "/sys/kernel/tracing");
	}
}

static int ncpus_with(const char *possible)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/sys", t_tmpdir);
	if (access(path, F_OK)) {
		make_dir("sys");
		make_dir("sys/devices");
		make_dir("sys/devices/system");
		make_dir("sys/devices/system/cpu");
	}
	if (possible)
		write_file("sys/devices/system/cpu/possible", possible, strlen(possible));
	return kfit_ncpus_possible(path);
}

static void test_ncpus_possible(void **state)
{
	/* In turn: the file's text (NULL: no file yet), what it makes */
	static const struct {
		const char *name, *possible;
		int want;
	} cases[] = {
		{ "no file", NULL, -ENOENT },
		{ "0", "0\n", 1 },
		{ "0-3", "0-3\n", 4 },
		{ "0-3,6", "0-3,6\n", 7 },
		{ "no newline", "0,2-5", 6 },
		{ "0-1023", "0-1023\n", 1024 },
		{ "empty", "", -EINVAL },
		{ "0-x", "0-x\n", -EINVAL },
		{ "-1", "-1\n", -EINVAL },
		{ "0 1", "0 1\n", -EINVAL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++)
		t_int_eq(cases[i].name, ncpus_with(cases[i].possible), cases[i].want);
	/* This machine: at least the CPUs online, the same twice */
	assert_true(kfit_ncpus_possible(NULL) >= sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(kfit_ncpus_possible(NULL), kfit_ncpus_possible(NULL));
}

/* ---- output files ------------------------------------------------------ */

static char *slurp(const char *path)
{
	char *s = kfit_read_all(path, NULL);

	assert_non_null(s);
	return s;
}

/* The names in dir, but for those given: how many */
static int others_in_dir(const char *d, const char *a, const char *b)
{
	char cmd[256];
	FILE *p;
	int n = 0;
	char line[256];

	snprintf(cmd, sizeof(cmd), "ls -A '%s'", d);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		if (strcmp(line, a) && (!b || strcmp(line, b)))
			n++;
	}
	pclose(p);
	return n;
}

static void test_out_commit(void **state)
{
	const char *d;
	char path[256];
	struct kfit_out o;
	struct stat st;
	FILE *f;
	char *s;

	(void)state;
	d = t_tmp_mkdir("test_out_commit", 0700);
	snprintf(path, sizeof(path), "%s/rec.out", d);
	t_put(path, "old contents");
	assert_int_equal(kfit_out_open(&o, path), 0);
	assert_true(kfit_out_active(&o));
	f = kfit_out_file(&o);
	assert_non_null(f);
	fprintf(f, "new contents");
	/* until the commit, the old file is what is there */
	s = slurp(path);
	assert_string_equal(s, "old contents");
	free(s);
	assert_int_equal(kfit_out_commit(&o), 0);
	assert_false(kfit_out_active(&o));
	s = slurp(path);
	assert_string_equal(s, "new contents");
	free(s);
	/* mode 0600, as perf record's: a recording holds kernel addresses */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(others_in_dir(d, "rec.out", NULL), 0);

	/* a new file, written through the fd */
	snprintf(path, sizeof(path), "%s/new.out", d);
	assert_int_equal(kfit_out_open(&o, path), 0);
	assert_int_equal(write(o.fd, "abc", 3), 3);
	assert_int_equal(kfit_out_commit(&o), 0);
	s = slurp(path);
	assert_string_equal(s, "abc");
	free(s);
	unlink(path);
}

static void test_out_abort_keeps_old(void **state)
{
	const char *d;
	char path[256];
	struct kfit_out o;
	char *s;

	(void)state;
	d = t_tmp_mkdir("test_out_abort_keeps_old", 0700);
	snprintf(path, sizeof(path), "%s/kept", d);
	t_put(path, "precious");
	assert_int_equal(kfit_out_open(&o, path), 0);
	assert_int_equal(write(o.fd, "junk", 4), 4);
	kfit_out_abort(&o);
	kfit_out_abort(&o);	/* twice: a no-op */
	s = slurp(path);
	assert_string_equal(s, "precious");
	free(s);
	assert_int_equal(others_in_dir(d, "kept", NULL), 0);
	/* nothing there before: nothing after */
	snprintf(path, sizeof(path), "%s/none", d);
	assert_int_equal(kfit_out_open(&o, path), 0);
	kfit_out_abort(&o);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(kfit_out_commit(&o), -EBADF);
}

static void test_out_symlink(void **state)
{
	const char *d;
	char path[256], target[256];
	struct kfit_out o;
	struct stat st;
	char *s;

	(void)state;
	d = t_tmp_mkdir("test_out_symlink", 0700);
	/* the link a user planted in /tmp, to a file only root may write */
	snprintf(target, sizeof(target), "%s/secret", d);
	t_put(target, "root only");
	assert_int_equal(chmod(target, 0600), 0);
	snprintf(path, sizeof(path), "%s/trap.kft", d);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(kfit_out_open(&o, path), -ELOOP);
	assert_false(kfit_out_active(&o));
	kfit_out_abort(&o);
	s = slurp(target);
	assert_string_equal(s, "root only");
	free(s);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(kfit_out_reason(-ELOOP),
			    "a symbolic link (not followed: give the file it points to)");
	/* a dangling link too: never created through */
	unlink(path);
	snprintf(target, sizeof(target), "%s/made-by-link", d);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(kfit_out_open(&o, path), -ELOOP);
	assert_int_equal(access(target, F_OK), -1);
	unlink(path);
}

static void test_out_refused(void **state)
{
	const char *d;
	char path[256];
	struct kfit_out o;

	(void)state;
	d = t_tmp_mkdir("test_out_refused", 0700);
	/* a FIFO: refused at once, never opened (which would wait for a reader) */
	snprintf(path, sizeof(path), "%s/fifo", d);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(kfit_out_open(&o, path), -EINVAL);
	unlink(path);
	assert_int_equal(kfit_out_open(&o, "/dev/null"), -EINVAL);
	assert_int_equal(kfit_out_open(&o, d), -EISDIR);
	snprintf(path, sizeof(path), "%s/", d);
	assert_int_equal(kfit_out_open(&o, path), -EISDIR);
	snprintf(path, sizeof(path), "%s/no/such/dir/f", d);
	assert_int_equal(kfit_out_open(&o, path), -ENOENT);
	assert_int_equal(kfit_out_open(&o, ""), -ENOENT);
	assert_int_equal(others_in_dir(d, "", NULL), 0);
	assert_string_equal(kfit_out_reason(-ENOSPC), "no space left on device");
}

/* A write that fails (a full disk, a size limit): the commit says it, the old file stays */
static void test_out_write_fails(void **state)
{
	const char *d;
	struct rlimit old, lim = { 4096, 4096 };
	char path[256], *s;
	struct kfit_out o;
	FILE *f;
	int i;

	(void)state;
	d = t_tmp_mkdir("test_out_write_fails", 0700);
	snprintf(path, sizeof(path), "%s/big", d);
	t_put(path, "old");
	assert_int_equal(kfit_out_open(&o, path), 0);
	f = kfit_out_file(&o);
	assert_non_null(f);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim.rlim_max = old.rlim_max;	/* the soft limit only: it goes back */
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	for (i = 0; i < 1000; i++)
		fputs("0123456789", f);
	assert_int_equal(kfit_out_commit(&o), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	s = slurp(path);
	assert_string_equal(s, "old");
	free(s);
	assert_int_equal(others_in_dir(d, "big", NULL), 0);
	unlink(path);
}

/*
 * kfit_out_finish: a writer's 0 commits; its stream's -EIO is told as the
 * failed write's errno, another error as it is, and either aborts
 */
static void test_out_finish(void **state)
{
	const char *d;
	char path[256], *s;
	struct kfit_out o;

	(void)state;
	d = t_tmp_mkdir("test_out_finish", 0700);
	snprintf(path, sizeof(path), "%s/f", d);
	t_put(path, "old");
	assert_int_equal(kfit_out_open(&o, path), 0);
	fputs("new", kfit_out_file(&o));
	assert_int_equal(kfit_out_finish(&o, 0), 0);
	assert_false(kfit_out_active(&o));
	s = slurp(path);
	assert_string_equal(s, "new");
	free(s);
	assert_int_equal(kfit_out_open(&o, path), 0);
	fputs("junk", kfit_out_file(&o));
	errno = ENOSPC;
	assert_int_equal(kfit_out_finish(&o, -EIO), -ENOSPC);
	assert_int_equal(kfit_out_open(&o, path), 0);
	errno = EINTR;
	assert_int_equal(kfit_out_finish(&o, -EIO), -EIO);
	assert_int_equal(kfit_out_open(&o, path), 0);
	assert_int_equal(kfit_out_finish(&o, -ENOMEM), -ENOMEM);
	assert_false(kfit_out_active(&o));
	s = slurp(path);
	assert_string_equal(s, "new");
	free(s);
	assert_int_equal(others_in_dir(d, "f", NULL), 0);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pathf),
		cmocka_unit_test(test_read_all_small),
		cmocka_unit_test(test_read_all_large),
		cmocka_unit_test(test_read_all_procfs),
		cmocka_unit_test(test_read_line),
		cmocka_unit_test(test_is_fs),
		cmocka_unit_test(test_fs_path_vs_mounts),
		cmocka_unit_test(test_tracefs_events),
		cmocka_unit_test(test_ncpus_possible),
		cmocka_unit_test(test_out_commit),
		cmocka_unit_test(test_out_abort_keeps_old),
		cmocka_unit_test(test_out_symlink),
		cmocka_unit_test(test_out_refused),
		cmocka_unit_test(test_out_write_fails),
		cmocka_unit_test(test_out_finish),
	};

	return cmocka_run_group_tests(tests, t_tmpdir_setup, t_tmpdir_teardown);
}
