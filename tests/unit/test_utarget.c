// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "testlib.h"
#include "utarget.h"

/* Functions of this test binary, found through /proc/self/exe */
__attribute__((noinline, used)) int kfit_utest_target_one(int x)
{
	return x * 7 + 1;
}

__attribute__((noinline, used)) int kfit_utest_target_two(int x)
{
	return x * 5 - 3;
}

/* A second name for the same code */
int __kfit_utest_target_one(int x) __attribute__((alias("kfit_utest_target_one")));

/* In .symtab as "kfit_utest_versioned@@KFIT_1" */
__attribute__((noinline, used)) int kfit_utest_vimpl(int x)
{
	return x * 3;
}
__asm__(".symver kfit_utest_vimpl, kfit_utest_versioned@@KFIT_1");

/* A function symbol of size 0 (no .size): not one to put a probe on */
__asm__(".text\n.globl kfit_utest_nosize\n.type kfit_utest_nosize, @function\n"
	"kfit_utest_nosize:\n\tret\n");

static char self[PATH_MAX];	/* this binary, resolved */
static char dir[64];

static int setup(void **state)
{
	(void)state;
	if (!realpath("/proc/self/exe", self))
		return -1;
	strcpy(dir, "/tmp/kfit-utarget-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return t_rm_rf(dir);
}

static void resolve_ok(const char *spec, int pid, struct kfit_utarget *u)
{
	char err[512] = "";
	int e = kfit_utarget_resolve(spec, pid, u, err, sizeof(err));

	if (e)
		fail_msg("'%s': %d: %s", spec, e, err);
	assert_true(u->n >= 1);
}

/* A glob whose matches are all refused: 0, n == 0, nskipped >= 1 */
static void resolve_ok_or_skipped(const char *spec, struct kfit_utarget *u)
{
	char err[512] = "";
	int e = kfit_utarget_resolve(spec, 0, u, err, sizeof(err));

	if (e)
		fail_msg("'%s': %d: %s", spec, e, err);
	assert_true(u->n + u->nskipped >= 1);
}

static int resolve_err(const char *spec, int pid, char *err, size_t errlen)
{
	const char *name = spec ? spec : "(null)";
	struct kfit_utarget u;
	int e = kfit_utarget_resolve(spec, pid, &u, err, errlen);

	t_int_eq(name, u.n, 0);
	t_true(name, !u.names);
	return e;
}

/* A spec refused: this error, and err says has, or is exactly is */
struct err_case {
	const char *spec;
	bool own_pid;		/* resolved in this process, else pid 0 */
	int ret;
	const char *has, *is;	/* NULL: not checked */
};

static void check_errs(const struct err_case *c, size_t n)
{
	const char *name;
	char err[512];

	for (; n--; c++) {
		name = c->spec ? c->spec : "(null)";
		err[0] = '\0';
		t_int_eq(name, resolve_err(c->spec, c->own_pid ? getpid() : 0, err,
					   sizeof(err)), c->ret);
		if (c->has)
			t_true(name, strstr(err, c->has));
		if (c->is)
			t_str_eq(name, err, c->is);
	}
}

/* A spec resolved: its path (NULL: not checked) and its n names */
struct names_case {
	const char *spec;
	const char *path;
	int n;
	const char *names[2];
};

static void check_names(const struct names_case *c, size_t n)
{
	struct kfit_utarget u;
	int i;

	for (; n--; c++) {
		resolve_ok(c->spec, 0, &u);
		if (c->path)
			t_str_eq(c->spec, u.path, c->path);
		t_int_eq(c->spec, u.n, c->n);
		for (i = 0; i < c->n; i++)
			t_str_eq(c->spec, u.names[i], c->names[i]);
		kfit_utarget_free(&u);
	}
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void test_libc(void **state)
{
	static const char *const specs[] = { "c:malloc", "libc:malloc", "libc.so.6:malloc" };
	struct kfit_utarget u;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		resolve_ok(specs[i], 0, &u);
		assert_string_equal(base_of(u.path), "libc.so.6");
		assert_int_equal(u.path[0], '/');
		assert_int_equal(u.n, 1);
		assert_string_equal(u.names[0], "malloc");
		kfit_utarget_free(&u);
		assert_null(u.names);
		assert_int_equal(u.n, 0);
	}
}

static void test_glob(void **state)
{
	struct kfit_utarget u;
	bool has_malloc = false;
	int i;

	(void)state;
	resolve_ok("libc:mall*", 0, &u);
	assert_true(u.n >= 3);
	for (i = 0; i < u.n; i++) {
		assert_int_equal(fnmatch("mall*", u.names[i], 0), 0);
		/* Sorted, each once (malloc is in .dynsym under two versions) */
		if (i)
			assert_true(strcmp(u.names[i - 1], u.names[i]) < 0);
		has_malloc |= !strcmp(u.names[i], "malloc");
	}
	assert_true(has_malloc);
	kfit_utarget_free(&u);
}

static void test_self(void **state)
{
	static const struct names_case cases[] = {
		{ "/proc/self/exe:kfit_utest_target_one", self, 1,
		  { "kfit_utest_target_one" } },
		{ "/proc/self/exe:kfit_utest_target_*", NULL, 2,
		  { "kfit_utest_target_one", "kfit_utest_target_two" } },
		/* The version is not part of the name */
		{ "/proc/self/exe:kfit_utest_versioned", NULL, 1,
		  { "kfit_utest_versioned" } },
		/* One name per address: the shorter */
		{ "/proc/self/exe:kfit_utest_v*", NULL, 1, { "kfit_utest_vimpl" } },
	};
	static const struct err_case nosize = {
		.spec = "/proc/self/exe:kfit_utest_nosize", .ret = -EPERM, .has = "size 0",
	};

	(void)state;
	assert_int_equal(kfit_utest_target_one(1) + kfit_utest_target_two(1) +
			 kfit_utest_vimpl(1), 13);
	check_names(cases, T_N(cases));
	check_errs(&nosize, 1);
}

static bool has(char *const *names, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

static const char *skip_reason(const struct kfit_utarget *u, const char *name)
{
	int i;

	for (i = 0; i < u->nskipped; i++)
		if (!strcmp(u->skipped[i].name, name))
			return u->skipped[i].reason;
	return NULL;
}

/* No return probe where there is no normal return: a glob skips them, a name is refused */
static void test_no_return(void **state)
{
	struct kfit_utarget u;
	const char *why;
	char err[512];

	(void)state;
	resolve_ok("/proc/self/exe:*", 0, &u);
	assert_true(has(u.names, u.n, "kfit_utest_target_one"));
	assert_true(has(u.names, u.n, "main"));
	assert_false(has(u.names, u.n, "_start"));
	assert_false(has(u.names, u.n, "_init"));
	assert_false(has(u.names, u.n, "kfit_utest_nosize"));
	why = skip_reason(&u, "_start");
	assert_non_null(why);
	assert_non_null(strstr(why, "entry point"));
	assert_non_null(strstr(skip_reason(&u, "_init"), ".init/.fini"));
	assert_non_null(strstr(skip_reason(&u, "_fini"), ".init/.fini"));
	assert_non_null(strstr(skip_reason(&u, "kfit_utest_nosize"), "size 0"));
	kfit_utarget_free(&u);
	assert_null(u.skipped);
	assert_int_equal(u.nskipped, 0);

	assert_int_equal(resolve_err("/proc/self/exe:_start", 0, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "cannot trace '_start' in '"));
	assert_non_null(strstr(err, "argc"));
	/* Only refused functions matched: nothing to trace, but no error */
	resolve_ok_or_skipped("/proc/self/exe:_st*", &u);
	assert_int_equal(u.n, 0);
	assert_non_null(skip_reason(&u, "_start"));
	kfit_utarget_free(&u);

	/* libc's functions that never return */
	assert_int_equal(resolve_err("c:exit", 0, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "never returns"));
	assert_int_equal(resolve_err("c:siglongjmp", 0, err, sizeof(err)), -EPERM);
	resolve_ok("c:*exit", 0, &u);
	assert_non_null(skip_reason(&u, "exit"));
	assert_non_null(skip_reason(&u, "_exit"));
	assert_true(has(u.names, u.n, "atexit") || has(u.names, u.n, "on_exit"));
	kfit_utarget_free(&u);
}

/* Debian's programs export _start (python3, bash): a glob over them skips it */
static void test_no_return_debian(void **state)
{
	static const char *const progs[] = { "/usr/bin/bash", "/usr/bin/python3" };
	struct kfit_utarget u;
	char spec[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		if (access(progs[i], X_OK))
			continue;
		snprintf(spec, sizeof(spec), "%s:*", progs[i]);
		resolve_ok(spec, 0, &u);
		assert_true(u.n > 100);
		assert_false(has(u.names, u.n, "_start"));
		if (!skip_reason(&u, "_start"))
			fail_msg("%s: _start not skipped", spec);
		assert_non_null(strstr(skip_reason(&u, "_start"), "entry point"));
		kfit_utarget_free(&u);
	}
	resolve_ok("/usr/bin/bash:*exit*", 0, &u);
	assert_non_null(skip_reason(&u, "sh_exit"));
	assert_non_null(skip_reason(&u, "exit_shell"));
	assert_true(has(u.names, u.n, "exit_builtin"));
	kfit_utarget_free(&u);
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * libc's strlen is an IFUNC: its symbol is the resolver. Traced at the
 * implementation: as it resolves here, and as this process's GOT says.
 */
static void test_ifunc(void **state)
{
	static const char *const ifuncs[] = { "strlen", "memcpy", "memset" };
	struct kfit_utarget u, p;
	char spec[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ifuncs) / sizeof(ifuncs[0]); i++) {
		snprintf(spec, sizeof(spec), "c:%s", ifuncs[i]);
		resolve_ok(spec, 0, &u);
		resolve_ok(spec, getpid(), &p);
		assert_int_equal(u.n, 1);
		assert_string_equal(u.names[0], ifuncs[i]);
		assert_non_null(u.impls[0]);
		assert_string_not_equal(u.impls[0], ifuncs[i]);
		assert_true(u.offs[0] > 0);
		/* This process's GOT agrees with the linker's choice */
		assert_int_equal(p.offs[0], u.offs[0]);
		assert_string_equal(p.impls[0], u.impls[0]);
		kfit_utarget_free(&u);
		kfit_utarget_free(&p);
	}
	/* With libc6-dbg, the implementation has its name */
	resolve_ok("c:strlen", 0, &u);
	if (strncmp(u.impls[0], "code at", 7))
		assert_int_equal(strncmp(u.impls[0], "__strlen_", 9), 0);
	kfit_utarget_free(&u);
	/* memcpy and memmove resolve to one implementation: one probe there */
	resolve_ok("c:mem*", 0, &u);
	assert_true(has(u.names, u.n, "memcpy"));
	assert_false(has(u.names, u.n, "memmove"));
	assert_non_null(strstr(skip_reason(&u, "memmove"), "same code"));
	kfit_utarget_free(&u);
	/* Over the whole of libc, each probe at its own code */
	resolve_ok("c:*", 0, &u);
	qsort(u.offs, u.n, sizeof(*u.offs), cmp_u64);
	for (i = 1; i < (size_t)u.n; i++)
		if (u.offs[i - 1] == u.offs[i])
			fail_msg("two functions at offset 0x%llx", (unsigned long long)u.offs[i]);
	kfit_utarget_free(&u);
	/* A plain function has no implementation of its own */
	resolve_ok("c:malloc", 0, &u);
	assert_null(u.impls[0]);
	kfit_utarget_free(&u);
}

static void test_no_retprobe_list(void **state)
{
	/* A function's names (n of them), and what the reason says (NULL: none) */
	static const struct {
		const char *names[2];
		int n;
		const char *why;
	} cases[] = {
		{ { "__GI_exit", "exit" }, 2, "never returns" },
		{ { "malloc", "__libc_malloc" }, 2, NULL },
		{ { "_dl_runtime_resolve_xsavec" }, 1, "jump" },
		{ { "_init" }, 1, ".init" },
		/* a function's cold part is jumped to, with its frame on the stack */
		{ { "kfit_json_end_array.cold" }, 1, "jump" },
		{ { "main.cold.3" }, 1, "jump" },
		{ { "coldstart", "scold.part.0" }, 2, NULL },
	};
	const char *why;
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		why = kfit_utarget_no_retprobe(cases[i].names, cases[i].n);
		if (cases[i].why)
			t_true(cases[i].names[0], why && strstr(why, cases[i].why));
		else
			t_str_eq(cases[i].names[0], why, NULL);
	}
	assert_null(kfit_utarget_no_retprobe(NULL, 0));
}

/* A glob takes one name per address, the plainest; an exact name is itself */
static void test_aliases(void **state)
{
	static const struct names_case cases[] = {
		{ "/proc/self/exe:*kfit_utest_target_*", NULL, 2,
		  { "kfit_utest_target_one", "kfit_utest_target_two" } },
		{ "/proc/self/exe:__kfit_utest_target_one", NULL, 1,
		  { "__kfit_utest_target_one" } },
	};
	struct kfit_utarget u;
	bool has_malloc = false;
	int i;

	(void)state;
	check_names(cases, T_N(cases));
	/* libc's malloc is also __libc_malloc */
	resolve_ok("c:*malloc", 0, &u);
	for (i = 0; i < u.n; i++) {
		has_malloc |= !strcmp(u.names[i], "malloc");
		assert_string_not_equal(u.names[i], "__libc_malloc");
	}
	assert_true(has_malloc);
	kfit_utarget_free(&u);
}

/* A program found in PATH, here a link to this binary */
static void test_path_lookup(void **state)
{
	char link[128], *old = getenv("PATH"), saved[4096], err[512];
	struct kfit_utarget u;

	(void)state;
	snprintf(saved, sizeof(saved), "%s", old ? old : "");
	snprintf(link, sizeof(link), "%s/kfitprog", dir);
	assert_int_equal(symlink(self, link), 0);
	assert_int_equal(resolve_err("kfitprog:kfit_utest_target_one", 0, err,
				     sizeof(err)), -ENOENT);
	setenv("PATH", dir, 1);
	resolve_ok("kfitprog:kfit_utest_target_one", 0, &u);
	assert_string_equal(u.path, self);
	kfit_utarget_free(&u);
	setenv("PATH", saved, 1);
}

/* With a pid: the process's own executable and libraries */
static void test_pid(void **state)
{
	char err[512], cwd[PATH_MAX];
	struct kfit_utarget u;

	(void)state;
	resolve_ok("c:malloc", getpid(), &u);
	assert_string_equal(base_of(u.path), "libc.so.6");
	kfit_utarget_free(&u);
	/* Neither in PATH nor in the current directory, but running */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(resolve_err("test_utarget:kfit_utest_target_one", 0, err,
				     sizeof(err)), -ENOENT);
	resolve_ok("test_utarget:kfit_utest_target_one", getpid(), &u);
	assert_string_equal(u.path, self);
	kfit_utarget_free(&u);
	resolve_ok("./test_utarget:kfit_utest_target_two", getpid(), &u);
	assert_string_equal(u.path, self);
	kfit_utarget_free(&u);
	assert_int_equal(chdir(cwd), 0);
}

/* A library only this process has: mapped, in neither the ld.so cache nor PATH */
static void test_pid_maps(void **state)
{
	char copy[128], cmd[PATH_MAX + 256], err[512];
	struct kfit_utarget u;
	void *h;

	(void)state;
	resolve_ok("z:zlibVersion", 0, &u);
	snprintf(copy, sizeof(copy), "%s/libkfitcopy.so.1", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", u.path, copy);
	kfit_utarget_free(&u);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(resolve_err("kfitcopy:zlibVersion", getpid(), err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "looked in the process's maps, the ld.so cache"));
	h = dlopen(copy, RTLD_NOW | RTLD_LOCAL);
	assert_non_null(h);
	resolve_ok("kfitcopy:zlibVersion", getpid(), &u);
	assert_string_equal(u.path, copy);
	kfit_utarget_free(&u);
	resolve_ok("libkfitcopy:zlib*", getpid(), &u);
	assert_string_equal(u.path, copy);
	kfit_utarget_free(&u);
	assert_int_equal(resolve_err("kfitcopy:zlibVersion", 0, err, sizeof(err)), -ENOENT);
	dlclose(h);
}

static void test_no_function(void **state)
{
	static const struct err_case cases[] = {
		/* Debian's binaries are stripped: no function symbols at all */
		{ .spec = "/bin/true:main", .ret = -ENOENT,
		  .has = "true' has no function 'main': it has no function symbols" },
		{ .spec = "/bin/true:*", .ret = -ENOENT,
		  .has = "true' matches '*' (it has no function symbols: stripped?)" },
		{ .spec = "c:mallok", .ret = -ENOENT,
		  .has = "libc.so.6' has no function 'mallok'; closest: malloc, " },
		{ .spec = "/proc/self/exe:kfit_utest_target_tow", .ret = -ENOENT,
		  .has = "closest: kfit_utest_target_two, kfit_utest_target_one" },
		/* What a library does not have but libc does */
		{ .spec = "/proc/self/exe:getpid", .ret = -ENOENT,
		  .has = "libc has it: try c:getpid" },
		{ .spec = "c:kfit_zz*", .ret = -ENOENT, .has = "libc.so.6' matches 'kfit_zz*'" },
	};

	(void)state;
	check_errs(cases, T_N(cases));
}

static void test_no_binary(void **state)
{
	static const struct err_case cases[] = {
		{ .spec = "libkfitnosuch:foo", .ret = -ENOENT,
		  .is = "no such binary or library 'libkfitnosuch' "
		  "(looked in the ld.so cache and PATH)" },
		{ .spec = "kfitnosuch:foo", .ret = -ENOENT },
		{ .spec = "/nonexistent/bin:foo", .ret = -ENOENT,
		  .is = "no such file '/nonexistent/bin'" },
		{ .spec = "./kfitnosuch:foo", .own_pid = true, .ret = -ENOENT },
	};

	(void)state;
	check_errs(cases, T_N(cases));
}

static void test_not_elf(void **state)
{
	char path[128], spec[160], err[512];
	FILE *f;

	(void)state;
	assert_int_equal(resolve_err("/etc/passwd:foo", 0, err, sizeof(err)), -ENOEXEC);
	assert_string_equal(err, "'/etc/passwd' is not an ELF file");
	snprintf(path, sizeof(path), "%s/script", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\nexit 0\n", f);
	assert_int_equal(fclose(f), 0);
	snprintf(spec, sizeof(spec), "%s:main", path);
	assert_int_equal(resolve_err(spec, 0, err, sizeof(err)), -ENOEXEC);
	assert_non_null(strstr(err, "not an ELF file but a script"));
}

static void test_bad_spec(void **state)
{
	static const struct err_case cases[] = {
		{ .spec = "malloc", .ret = -EINVAL },
		{ .spec = "c:", .ret = -EINVAL },
		{ .spec = ":malloc", .ret = -EINVAL },
		{ .spec = NULL, .ret = -EINVAL },
	};

	(void)state;
	check_errs(cases, T_N(cases));
}

static void test_is_user_target(void **state)
{
	static const struct {
		const char *spec;
		bool user;
	} cases[] = {
		{ "c:malloc", true },
		{ "/usr/bin/python3:PyObject_Malloc", true },
		{ "libc:mall*", true },
		{ "sys:read", false },
		{ "vfs_read", false },
		{ "vfs_*", false },
		{ "", false },
		{ NULL, false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++)
		t_int_eq(cases[i].spec ? cases[i].spec : "(null)",
			 kfit_utarget_is_spec(cases[i].spec), cases[i].user);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_no_return),
		cmocka_unit_test(test_no_return_debian),
		cmocka_unit_test(test_no_retprobe_list),
		cmocka_unit_test(test_ifunc),
		cmocka_unit_test(test_path_lookup),
		cmocka_unit_test(test_pid),
		cmocka_unit_test(test_pid_maps),
		cmocka_unit_test(test_no_function),
		cmocka_unit_test(test_no_binary),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_bad_spec),
		cmocka_unit_test(test_is_user_target),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
