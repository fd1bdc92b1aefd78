// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <cmocka.h>
#include "testlib.h"
#include "ktarget.h"

static char dir[64];
static struct btf *sample_btf;	/* kfit_sample_zero, _two, _three */

/*
 * A kernel in miniature: padding symbols, clones, a notrace function,
 * data, weak and module functions, a name in vmlinux and in a module, a
 * static name twice, kernel_clone (5.10+), the x86_64 syscall entry.
 */
static const char kallsyms1[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T vfs_read\n"
	"ffffffff81001010 t __pfx_vfs_write\n"
	"ffffffff81001020 T vfs_write\n"
	"ffffffff81001100 t vfs_open\n"
	"ffffffff81001200 t vfs_helper.isra.0\n"
	"ffffffff81001210 t vfs_helper.cold\n"
	"ffffffff81001300 T vfs_fsync\n"
	"ffffffff81001310 t vfs_fsync.cold\n"
	"ffffffff81002000 T kernel_clone\n"
	"ffffffff81002100 T do_exit\n"
	"ffffffff81002200 T __x64_sys_read\n"
	"ffffffff81002300 T kfit_sample_two\n"
	"ffffffff81002400 t kfit_sample_three\n"
	"ffffffff81002500 W kfit_sample_zero\n"
	"ffffffff81003000 D vfs_data\n"
	"ffffffff81004000 r vfs_rodata\n"
	"ffffffff81005000 t dup_static\n"
	"ffffffff81005100 t dup_static\n"
	"ffffffffc0001000 t vfs_modfn\t[mymod]\n"
	"ffffffffc0001100 t vfs_read\t[othermod]\n"
	"not a symbol line\n";

/* vfs_open is not here: notrace */
static const char filter1[] =
	"vfs_read\n"
	"vfs_write\n"
	"vfs_fsync\n"
	"vfs_helper.isra.0\n"
	"kernel_clone\n"
	"do_exit\n"
	"__x64_sys_read\n"
	"kfit_sample_two\n"
	"kfit_sample_three\n"
	"kfit_sample_zero\n"
	"vfs_modfn [mymod]\n"
	"dup_static\n";

/* A 4.2 to 5.9 kernel */
static const char kallsyms2[] =
	"ffffffff81002000 T _do_fork\n"
	"ffffffff81002100 T do_exit\n";
static const char filter2[] = "_do_fork\ndo_exit\n";

/* Before 4.2 */
static const char kallsyms3[] =
	"ffffffff81002000 T do_fork\n";
static const char filter3[] = "do_fork\n";

static char *tmp_path(const char *name)
{
	static char paths[8][128];
	static int next;
	char *p = paths[next++ % 8];

	snprintf(p, 128, "%s/%s", dir, name);
	return p;
}

static const char *write_file(const char *name, const char *text)
{
	const char *path = tmp_path(name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

static int setup(void **state)
{
	char exe[PATH_MAX], obj[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	(void)state;
	strcpy(dir, "/tmp/kfit-ktarget-XXXXXX");
	if (n < 0 || !mkdtemp(dir))
		return -1;
	exe[n] = '\0';
	/* btf_sample.bpf.o is built next to this test binary */
	snprintf(obj, sizeof(obj), "%s/btf_sample.bpf.o", dirname(exe));
	sample_btf = btf__parse_elf(obj, NULL);
	if (!sample_btf) {
		fprintf(stderr, "cannot read BTF from %s\n", obj);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	btf__free(sample_btf);
	return t_rm_rf(dir);
}

/* Sources in the temp dir; btf only when need_btf */
static struct kfit_ktarget_src src_of(const char *ks, const char *ff, bool need_btf)
{
	struct kfit_ktarget_src s = {
		.kallsyms = write_file(ks == kallsyms1 ? "ks1" : ks == kallsyms2 ?
				       "ks2" : "ks3", ks),
		.filter_functions = write_file(ff == filter1 ? "ff1" : ff == filter2 ?
					       "ff2" : "ff3", ff),
		.btf = sample_btf,
		.need_btf = need_btf,
	};

	return s;
}

static void resolve_ok(const struct kfit_ktarget_src *s, const char *pattern,
		       struct kfit_ktarget *f)
{
	char err[512] = "";
	int e = kfit_ktarget_resolve(s, pattern, f, err, sizeof(err));

	if (e)
		fail_msg("'%s': %d: %s", pattern, e, err);
}

/* names as one string, "a b c", to compare in one go */
static const char *joined(char **names, int n)
{
	static char buf[1024];
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		off += snprintf(buf + off, sizeof(buf) - off, "%s%s", i ? " " : "",
				names[i]);
	return buf;
}

static const char *skipped_names(const struct kfit_ktarget *f)
{
	char *names[64];
	int i;

	for (i = 0; i < f->nskipped && i < 64; i++)
		names[i] = f->skipped[i].name;
	return joined(names, i);
}

static void test_exact(void **state)
{
	struct kfit_ktarget_src s = src_of(kallsyms1, filter1, false);
	struct kfit_ktarget f;

	(void)state;
	resolve_ok(&s, "vfs_read", &f);
	/* Once, though vfs_read is in vmlinux and in othermod */
	assert_string_equal(joined(f.names, f.n), "vfs_read");
	assert_int_equal(f.nskipped, 0);
	assert_string_equal(f.note, "");
	kfit_ktarget_free(&f);
	assert_null(f.names);
	assert_int_equal(f.n, 0);
	/* A plain name with clones beside it is the plain one */
	resolve_ok(&s, "vfs_fsync", &f);
	assert_string_equal(joined(f.names, f.n), "vfs_fsync");
	kfit_ktarget_free(&f);
	resolve_ok(&s, "dup_static", &f);
	assert_string_equal(joined(f.names, f.n), "dup_static");
	kfit_ktarget_free(&f);
	/* Weak and module functions */
	resolve_ok(&s, "kfit_sample_zero", &f);
	assert_int_equal(f.n, 1);
	kfit_ktarget_free(&f);
	resolve_ok(&s, "vfs_modfn", &f);
	assert_string_equal(joined(f.names, f.n), "vfs_modfn");
	kfit_ktarget_free(&f);
}

static void test_glob(void **state)
{
	struct kfit_ktarget_src s = src_of(kallsyms1, filter1, false);
	struct kfit_ktarget f;

	(void)state;
	resolve_ok(&s, "vfs_*", &f);
	/* Sorted; no data, no padding, no clone, no duplicate */
	assert_string_equal(joined(f.names, f.n), "vfs_fsync vfs_modfn vfs_read vfs_write");
	assert_string_equal(skipped_names(&f), "vfs_helper vfs_open");
	assert_string_equal(f.skipped[0].reason, "only compiler clones (vfs_helper.cold, "
			    "vfs_helper.isra.0) exist: inlined or specialized");
	assert_string_equal(f.skipped[1].reason, "not in available_filter_functions "
			    "(notrace, inlined, or not ftrace-able)");
	kfit_ktarget_free(&f);
	resolve_ok(&s, "*_sample_t*", &f);
	assert_string_equal(joined(f.names, f.n), "kfit_sample_three kfit_sample_two");
	kfit_ktarget_free(&f);
	resolve_ok(&s, "vfs_[rw]*", &f);
	assert_string_equal(joined(f.names, f.n), "vfs_read vfs_write");
	kfit_ktarget_free(&f);
	/* A '.' in the glob looks at the clones' full names */
	resolve_ok(&s, "vfs_*.isra.*", &f);
	assert_string_equal(joined(f.names, f.n), "vfs_helper.isra.0");
	kfit_ktarget_free(&f);
}

static void test_glob_nothing(void **state)
{
	struct kfit_ktarget_src s = src_of(kallsyms1, filter1, false);
	struct kfit_ktarget f;
	char err[256];

	(void)state;
	assert_int_equal(kfit_ktarget_resolve(&s, "xyz*", &f, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "no kernel function matches 'xyz*'");
	assert_int_equal(f.n, 0);
	assert_null(f.names);
	/* Padding and data are not functions */
	assert_int_equal(kfit_ktarget_resolve(&s, "__pfx_*", &f, err, sizeof(err)), -ENOENT);
	assert_int_equal(kfit_ktarget_resolve(&s, "vfs_*data", &f, err, sizeof(err)), -ENOENT);
}

/* Matches that cannot be traced: success, nothing to trace, and why */
static void test_untraceable(void **state)
{
	struct kfit_ktarget_src s = src_of(kallsyms1, filter1, false);
	struct kfit_ktarget f;

	(void)state;
	resolve_ok(&s, "vfs_op*", &f);
	assert_int_equal(f.n, 0);
	assert_string_equal(skipped_names(&f), "vfs_open");
	kfit_ktarget_free(&f);
	resolve_ok(&s, "vfs_open", &f);
	assert_int_equal(f.n, 0);
	assert_string_equal(skipped_names(&f), "vfs_open");
	assert_non_null(strstr(f.skipped[0].reason, "available_filter_functions"));
	kfit_ktarget_free(&f);
	/* foo.isra.0 is not foo */
	resolve_ok(&s, "vfs_helper", &f);
	assert_int_equal(f.n, 0);
	assert_string_equal(skipped_names(&f), "vfs_helper");
	assert_non_null(strstr(f.skipped[0].reason, "only compiler clones (vfs_helper.cold"));
	kfit_ktarget_free(&f);
	/* ... unless asked for by its full name */
	resolve_ok(&s, "vfs_helper.isra.0", &f);
	assert_string_equal(joined(f.names, f.n), "vfs_helper.isra.0");
	kfit_ktarget_free(&f);
}

static void test_btf(void **state)
{
	struct kfit_ktarget_src s = src_of(kallsyms1, filter1, true);
	struct kfit_ktarget f;

	(void)state;
	resolve_ok(&s, "kfit_sample_*", &f);
	assert_string_equal(joined(f.names, f.n),
			    "kfit_sample_three kfit_sample_two kfit_sample_zero");
	kfit_ktarget_free(&f);
	resolve_ok(&s, "vfs_*", &f);
	assert_int_equal(f.n, 0);
	assert_string_equal(skipped_names(&f),
			    "vfs_fsync vfs_helper vfs_modfn vfs_open vfs_read vfs_write");
	/* ftrace first: vfs_open is notrace whatever BTF says */
	assert_non_null(strstr(f.skipped[3].reason, "available_filter_functions"));
	assert_string_equal(f.skipped[4].reason, "not in the kernel's BTF "
			    "(fentry needs BTF; try -k for kprobes)");
	kfit_ktarget_free(&f);
	/* Kprobes need no BTF */
	s.need_btf = false;
	resolve_ok(&s, "vfs_read", &f);
	assert_int_equal(f.n, 1);
	kfit_ktarget_free(&f);
}

static void test_aliases(void **state)
{
	struct kfit_ktarget_src s = src_of(kallsyms1, filter1, false);
	struct kfit_ktarget f;

	(void)state;
	resolve_ok(&s, "do_fork", &f);
	assert_string_equal(joined(f.names, f.n), "kernel_clone");
	assert_string_equal(f.note, "do_fork is kernel_clone on this kernel (5.10+)");
	kfit_ktarget_free(&f);
	resolve_ok(&s, "_do_fork", &f);
	assert_string_equal(joined(f.names, f.n), "kernel_clone");
	kfit_ktarget_free(&f);
	resolve_ok(&s, "sys_read", &f);
	assert_string_equal(joined(f.names, f.n), "__x64_sys_read");
	assert_non_null(strstr(f.note, "sys_read is __x64_sys_read on this kernel"));
	assert_non_null(strstr(f.note, "sys:read"));
	kfit_ktarget_free(&f);
	/* Names that exist are themselves */
	resolve_ok(&s, "do_exit", &f);
	assert_string_equal(joined(f.names, f.n), "do_exit");
	assert_string_equal(f.note, "");
	kfit_ktarget_free(&f);
	resolve_ok(&s, "kernel_clone", &f);
	assert_string_equal(f.note, "");
	kfit_ktarget_free(&f);

	s = src_of(kallsyms2, filter2, false);
	resolve_ok(&s, "do_fork", &f);
	assert_string_equal(joined(f.names, f.n), "_do_fork");
	assert_string_equal(f.note, "do_fork is _do_fork on this kernel (4.2 to 5.9)");
	kfit_ktarget_free(&f);
	resolve_ok(&s, "kernel_clone", &f);
	assert_string_equal(joined(f.names, f.n), "_do_fork");
	assert_string_equal(f.note, "kernel_clone is _do_fork on this kernel (before 5.10)");
	kfit_ktarget_free(&f);

	s = src_of(kallsyms3, filter3, false);
	resolve_ok(&s, "do_fork", &f);
	assert_string_equal(joined(f.names, f.n), "do_fork");
	assert_string_equal(f.note, "");
	kfit_ktarget_free(&f);
}

static void test_unknown(void **state)
{
	struct kfit_ktarget_src s = src_of(kallsyms1, filter1, false);
	struct kfit_ktarget f;
	char err[512];

	(void)state;
	assert_int_equal(kfit_ktarget_resolve(&s, "vfs_raed", &f, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "unknown kernel function 'vfs_raed'; closest: "
			    "vfs_read, vfs_open, vfs_write");
	/* Aliases that work here are suggested too */
	assert_int_equal(kfit_ktarget_resolve(&s, "do_frok", &f, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "unknown kernel function 'do_frok'; closest: do_fork, "
			    "_do_fork");
	assert_int_equal(kfit_ktarget_resolve(&s, "qqqqqqqqqqqq", &f, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "unknown kernel function 'qqqqqqqqqqqq'");
	/* No alias for a syscall that is not there */
	assert_int_equal(kfit_ktarget_resolve(&s, "sys_nosuch", &f, err, sizeof(err)),
			 -ENOENT);
	/* Clones asked for by a full name that is not there */
	assert_int_equal(kfit_ktarget_resolve(&s, "vfs_read.isra.0", &f, err, sizeof(err)),
			 -ENOENT);
	assert_int_equal(f.n, 0);
	assert_int_equal(f.nskipped, 0);
}

static void test_bad_sources(void **state)
{
	struct kfit_ktarget_src s = src_of(kallsyms1, filter1, false);
	struct kfit_ktarget f;
	char err[512];

	(void)state;
	assert_int_equal(kfit_ktarget_resolve(&s, "", &f, err, sizeof(err)), -EINVAL);
	assert_int_equal(kfit_ktarget_resolve(&s, NULL, &f, err, sizeof(err)), -EINVAL);
	s.filter_functions = tmp_path("nosuch");
	assert_int_equal(kfit_ktarget_resolve(&s, "vfs_read", &f, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot read"));
	s.kallsyms = tmp_path("nosuch");
	assert_int_equal(kfit_ktarget_resolve(&s, "vfs_read", &f, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot read"));
}

/* No text symbol at all (data only): nothing to sort, nothing to suggest */
static void test_no_text(void **state)
{
	struct kfit_ktarget_src s = {
		.kallsyms = write_file("ks_data", "ffffffff81003000 D vfs_data\n"),
		.filter_functions = write_file("ff_empty", ""),
	};
	struct kfit_ktarget f;
	char err[512];

	(void)state;
	assert_int_equal(kfit_ktarget_resolve(&s, "vfs_read", &f, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "unknown kernel function 'vfs_read'");
	assert_int_equal(kfit_ktarget_resolve(&s, "*", &f, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "no kernel function matches '*'");
	assert_int_equal(f.n, 0);
	assert_int_equal(f.nskipped, 0);
	s.kallsyms = write_file("ks_empty", "");
	assert_int_equal(kfit_ktarget_resolve(&s, "vfs_*", &f, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "no kernel function matches 'vfs_*'");
}

/* A file read before and changed since is read again */
static void test_reread(void **state)
{
	struct kfit_ktarget_src s = {
		.kallsyms = write_file("ks_changing", "ffffffff81000000 T one_fn\n"),
		.filter_functions = write_file("ff_changing", "one_fn\n"),
	};
	struct kfit_ktarget f;

	(void)state;
	resolve_ok(&s, "*_fn", &f);
	assert_string_equal(joined(f.names, f.n), "one_fn");
	kfit_ktarget_free(&f);
	write_file("ks_changing", "ffffffff81000000 T one_fn\nffffffff81000100 T two_fn\n");
	write_file("ff_changing", "one_fn\ntwo_fn\n");
	resolve_ok(&s, "*_fn", &f);
	assert_string_equal(joined(f.names, f.n), "one_fn two_fn");
	kfit_ktarget_free(&f);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1e3 + (t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* As many functions as a distribution kernel has */
static void test_large(void **state)
{
	struct kfit_ktarget_src s = {
		.kallsyms = tmp_path("ks_large"),
		.filter_functions = tmp_path("ff_large"),
	};
	FILE *ks = fopen(s.kallsyms, "w"), *ff = fopen(s.filter_functions, "w");
	struct kfit_ktarget f;
	struct timespec t0;
	char err[512];
	double ms;
	int i;

	(void)state;
	assert_non_null(ks);
	assert_non_null(ff);
	for (i = 0; i < 120000; i++) {
		fprintf(ks, "%016llx %c sub%d_fn_%d%s\n", 0xffffffff81000000ULL + 16 * i,
			i % 3 ? 't' : 'T', i % 97, i, i % 50 ? "" : ".cold");
		if (i % 4)
			fprintf(ff, "sub%d_fn_%d\n", i % 97, i);
	}
	assert_int_equal(fclose(ks), 0);
	assert_int_equal(fclose(ff), 0);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	resolve_ok(&s, "sub7_*", &f);
	ms = ms_since(&t0);
	print_message("large: first glob (reading the files) %.1f ms\n", ms);
	assert_int_equal(f.n + f.nskipped, 1238);
	kfit_ktarget_free(&f);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(kfit_ktarget_resolve(&s, "sub7_fn_104x", &f, err, sizeof(err)),
			 -ENOENT);
	ms = ms_since(&t0);
	print_message("large: unknown name %.1f ms: %s\n", ms, err);
	assert_non_null(strstr(err, "closest: sub7_fn_104, "));
	assert_true(ms < 1000);
}

static void test_alias_doc(void **state)
{
	const char *doc = kfit_ktarget_alias_doc(), *p;
	int lines = 0;

	(void)state;
	for (p = doc; (p = strchr(p, '\n')); p++)
		lines++;
	assert_int_equal(lines, 4);
	assert_int_equal(doc[strlen(doc) - 1], '\n');
	assert_non_null(strstr(doc, "do_fork       kernel_clone (5.10+), else _do_fork"));
	assert_non_null(strstr(doc, "\nsys_NAME      __x64_sys_NAME"));
	assert_ptr_equal(kfit_ktarget_alias_doc(), doc);
}

/* kallsyms shows zero addresses to those who may not trace */
static bool kallsyms_hidden(void)
{
	unsigned long long addr = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return true;
	if (fscanf(f, "%llx", &addr) != 1)
		addr = 0;
	fclose(f);
	return !addr;
}

static void test_live(void **state)
{
	struct kfit_ktarget f;
	struct timespec t0;
	const char *tracefs = kfit_tracefs();
	char err[512];
	int e;

	(void)state;
	if (kallsyms_hidden())
		skip();
	assert_true(!tracefs || !access(tracefs, F_OK));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	resolve_ok(NULL, "vfs_*", &f);
	print_message("live: vfs_* %.1f ms: %d to trace, %d skipped%s%s\n",
		      ms_since(&t0), f.n, f.nskipped, *f.note ? "; " : "", f.note);
	assert_true(f.n + f.nskipped >= 10);
	kfit_ktarget_free(&f);
	resolve_ok(NULL, "vfs_read", &f);
	assert_true((f.n == 1 && !strcmp(f.names[0], "vfs_read")) ||
		    (f.n == 0 && f.nskipped == 1));
	kfit_ktarget_free(&f);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(kfit_ktarget_resolve(NULL, "vfs_raed", &f, err, sizeof(err)),
			 -ENOENT);
	print_message("live: vfs_raed %.1f ms: %s\n", ms_since(&t0), err);
	assert_non_null(strstr(err, "closest: vfs_read"));
	/* do_fork is itself, _do_fork or kernel_clone */
	resolve_ok(NULL, "do_fork", &f);
	assert_int_equal(f.n + f.nskipped, 1);
	kfit_ktarget_free(&f);
	/* fentry's view, when the kernel has BTF */
	e = kfit_ktarget_resolve(&(struct kfit_ktarget_src){ .need_btf = true }, "vfs_read",
				&f, err, sizeof(err));
	if (e == -EOPNOTSUPP)
		return;
	assert_int_equal(e, 0);
	assert_true(f.n == 1 || f.nskipped == 1);
	kfit_ktarget_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_glob_nothing),
		cmocka_unit_test(test_untraceable),
		cmocka_unit_test(test_btf),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_bad_sources),
		cmocka_unit_test(test_no_text),
		cmocka_unit_test(test_reread),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_alias_doc),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
