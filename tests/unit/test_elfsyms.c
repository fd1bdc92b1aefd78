// SPDX-License-Identifier: GPL-2.0
/*
 * elfsyms over tests/helpers/symtarget.c built here PIE and not, with and
 * without a build-id, stripped copies and separate debug files made with
 * objcopy; nm is the oracle of addresses and sizes.
 */
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
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <cmocka.h>
#include "elfsyms.h"
#include "testlib.h"


static struct kfit_elf *load_ok(const char *path, const struct kfit_elf_opts *o)
{
	struct kfit_elf *e;
	char err[PATH_MAX + 64] = "";
	int ret = kfit_elf_load(path, o, &e, err, sizeof(err));

	if (ret)
		fail_msg("%s: %d: %s", path, ret, err);
	return e;
}

/* name is where nm says, with nm's size, and every byte of it is name's */
static void check_sym(const struct kfit_elf *e, const char *oracle, const char *name)
{
	const struct kfit_elfsym *s = kfit_elf_by_name(e, name);
	unsigned long long addr, size, i;

	t_int_eq(name, t_nm(oracle, name, &addr, &size), 0);
	if (!s)
		fail_msg("%s: no %s", e->path, name);
	t_str_eq(name, s->name, name);
	t_int_eq(name, s->addr, addr);
	t_int_eq(name, s->size, size);
	for (i = 0; i < size; i++)
		t_str_eq(name, kfit_elf_by_addr(e, addr + i)->name, name);
}

/* What symtarget has, wherever it comes from (oracle: the unstripped file) */
static void check_symtarget(const struct kfit_elf *e, const char *oracle)
{
	static const char *const names[] = {
		"st_global", "st_local", "st_after", "st_nosize",
	};
	const struct kfit_elfsym *g, *nosize, *after;
	size_t i;

	for (i = 0; i < T_N(names); i++)
		check_sym(e, oracle, names[i]);
	/* A second name: by name itself, by address the plainer */
	g = kfit_elf_by_name(e, "st_global");
	assert_int_equal(kfit_elf_by_name(e, "__st_alias")->addr, g->addr);
	assert_string_equal(kfit_elf_by_addr(e, g->addr + 1)->name, "st_global");
	/* No size: up to the next symbol */
	nosize = kfit_elf_by_name(e, "st_nosize");
	after = kfit_elf_by_name(e, "st_after");
	assert_int_equal(after->addr, nosize->addr + 17);
	assert_string_equal(kfit_elf_by_addr(e, nosize->addr + 16)->name, "st_nosize");
	assert_string_equal(kfit_elf_by_addr(e, after->addr)->name, "st_after");
	assert_null(kfit_elf_by_name(e, "st_nosuch"));
	/* Below every function */
	assert_null(kfit_elf_by_addr(e, 0));
}

static void test_pie_and_not(void **state)
{
	struct kfit_elf *pie, *nopie;
	char hex[2 * KFIT_ELF_BUILD_ID_MAX + 1];
	int i, exec = 0;

	(void)state;
	pie = load_ok(t_at(0, "pie"), NULL);
	nopie = load_ok(t_at(1, "nopie"), NULL);
	assert_true(pie->pie);
	assert_false(nopie->pie);
	assert_null(pie->debug_path);
	check_symtarget(pie, t_at(0, "pie"));
	check_symtarget(nopie, t_at(1, "nopie"));
	assert_string_equal(kfit_elf_build_id_hex(pie, hex, sizeof(hex)), T_ID_PIE);
	assert_string_equal(kfit_elf_build_id_hex(nopie, hex, sizeof(hex)), T_ID_NOPIE);
	/* Too small a buffer: whole bytes only */
	assert_string_equal(kfit_elf_build_id_hex(pie, hex, 6), "0123");
	/* Fixed addresses: the executable segment is where the symbols are */
	for (i = 0; i < nopie->nsegs; i++) {
		const struct kfit_elfseg *g = &nopie->segs[i];
		__u64 a = kfit_elf_by_name(nopie, "st_global")->addr;
		__u64 off = 0;

		if (!g->exec)
			continue;
		exec++;
		assert_true(g->vaddr >= 0x400000);
		assert_true(a >= g->vaddr && a < g->vaddr + g->memsz);
		/* ... and its file offset leads back to it */
		assert_int_equal(kfit_elf_off_to_addr(nopie, a - g->vaddr + g->offset, &off), 0);
		assert_int_equal(off, a);
	}
	assert_int_equal(exec, 1);
	kfit_elf_free(pie);
	kfit_elf_free(nopie);
}

static void test_no_build_id(void **state)
{
	struct kfit_elf *e = load_ok(t_at(0, "noid"), NULL);
	char hex[8] = "x";

	(void)state;
	assert_int_equal(e->build_id_len, 0);
	assert_string_equal(kfit_elf_build_id_hex(e, hex, sizeof(hex)), "");
	check_symtarget(e, t_at(0, "noid"));
	kfit_elf_free(e);
}

/* The file offsets of this running binary, from its maps, lead to its functions */
__attribute__((noinline, used)) int kfit_etest_self(int x)
{
	asm volatile("" : "+r"(x));
	return x * 3;
}

static void test_self_maps(void **state)
{
	__u64 addr = (__u64)(uintptr_t)kfit_etest_self, vaddr = 0, off = 0;
	struct kfit_elf_mapline m;
	char line[PATH_MAX + 128];
	struct kfit_elf *e = NULL;
	FILE *f = fopen("/proc/self/maps", "r");

	(void)state;
	assert_non_null(f);
	while (!e && fgets(line, sizeof(line), f)) {
		assert_int_equal(kfit_elf_parse_mapline(line, &m), 0);
		if (addr >= m.start && addr < m.end)
			e = load_ok(m.path, NULL);
	}
	fclose(f);
	assert_non_null(e);
	assert_true(e->pie);
	assert_int_equal(kfit_elf_off_to_addr(e, addr - m.start + m.pgoff, &vaddr), 0);
	assert_string_equal(kfit_elf_by_addr(e, vaddr)->name, "kfit_etest_self");
	assert_int_equal(kfit_elf_by_name(e, "kfit_etest_self")->addr, vaddr);
	/* Past the end of the file */
	assert_int_equal(kfit_elf_off_to_addr(e, 1ULL << 40, &vaddr), -ENOENT);
	/* and back: where a uprobe on it goes */
	assert_int_equal(kfit_elf_addr_to_off(e, kfit_elf_by_name(e, "kfit_etest_self")->addr,
					      &off), 0);
	assert_int_equal(off, addr - m.start + m.pgoff);
	assert_int_equal(kfit_elf_addr_to_off(e, 1ULL << 40, &off), -ENOENT);
	assert_false(kfit_elf_by_name(e, "kfit_etest_self")->ifunc);
	kfit_elf_free(e);
}

/* libc's memcpy is an IFUNC: its symbol is the resolver's */
static void test_ifunc(void **state)
{
	const char *libc = "/lib/x86_64-linux-gnu/libc.so.6";
	const struct kfit_elfsym *s;
	struct kfit_elf *e;

	(void)state;
	if (access(libc, R_OK))
		skip();
	e = load_ok(libc, NULL);
	s = kfit_elf_by_name(e, "memcpy");
	assert_non_null(s);
	assert_true(s->ifunc);
	s = kfit_elf_by_name(e, "malloc");
	assert_non_null(s);
	assert_false(s->ifunc);
	kfit_elf_free(e);
}

/* Without a debug file a stripped executable names nothing of its own */
static void test_stripped(void **state)
{
	struct kfit_elf_opts no = { .debug = false };
	struct kfit_elf *e = load_ok(t_at(0, "pie.stripped"), &no);
	struct kfit_elf_opts want = { .debug = true, .debug_root = t_at(2, "nonexistent") };
	struct kfit_elf *bare = load_ok(t_at(1, "pie.bare"), &want);

	(void)state;
	assert_null(kfit_elf_by_name(e, "st_global"));
	assert_null(kfit_elf_by_name(e, "st_local"));
	assert_null(e->debug_path);
	kfit_elf_free(e);
	/* Nor with a debug file wanted, where none is linked or installed */
	assert_null(kfit_elf_by_name(bare, "st_local"));
	assert_null(bare->debug_path);
	kfit_elf_free(bare);
}

/* A fresh directory under t_tmpdir holding name; returns its path */
static const char *subdir(int slot, const char *name)
{
	assert_int_equal(t_sh("mkdir -p %s/%s", t_tmpdir, name), 0);
	return t_at(slot, name);
}

static void check_debug(const char *path, const char *root, const char *debug,
			const char *oracle)
{
	struct kfit_elf_opts o = { .debug = true, .debug_root = root };
	struct kfit_elf *e = load_ok(path, &o);

	if (!e->debug_path)
		fail_msg("%s: no debug file (%s expected)", path, debug);
	assert_string_equal(e->debug_path, debug);
	check_symtarget(e, oracle);
	kfit_elf_free(e);
}

static void check_no_debug(const char *path, const char *root)
{
	struct kfit_elf_opts o = { .debug = true, .debug_root = root };
	struct kfit_elf *e = load_ok(path, &o);

	assert_null(e->debug_path);
	assert_null(kfit_elf_by_name(e, "st_local"));
	kfit_elf_free(e);
}

static void test_debug_build_id(void **state)
{
	const char *root = subdir(2, "bid-root");
	const char *bin = subdir(3, "bid-bin");
	char path[PATH_MAX], debug[PATH_MAX];

	(void)state;
	/* No debug link to follow: the build-id alone finds it */
	assert_int_equal(t_sh("mkdir -p %s/.build-id/01 && "
			      "cp %s/pie.debug %s/.build-id/01/23456789abcdef0123456789abcdef01234567.debug && "
			      "objcopy --strip-all %s/pie %s/pie",
			      root, t_tmpdir, root, t_tmpdir, bin), 0);
	snprintf(path, sizeof(path), "%s/pie", bin);
	snprintf(debug, sizeof(debug), "%s/.build-id/01/23456789abcdef0123456789abcdef01234567.debug",
		 root);
	check_debug(path, root, debug, t_at(0, "pie"));
	/* Another build's debug file under that build-id is not it */
	assert_int_equal(t_sh("cp %s/nopie.debug %s", t_tmpdir, debug), 0);
	check_no_debug(path, root);
}

static void test_debug_link(void **state)
{
	const char *root = subdir(2, "link-root");
	const char *bin = subdir(3, "link-bin");
	char path[PATH_MAX], debug[PATH_MAX];

	(void)state;
	snprintf(path, sizeof(path), "%s/pie.stripped", bin);
	assert_int_equal(t_sh("cp %s/pie.stripped %s", t_tmpdir, bin), 0);
	check_no_debug(path, root);
	/* Next to the file */
	assert_int_equal(t_sh("cp %s/pie.debug %s", t_tmpdir, bin), 0);
	snprintf(debug, sizeof(debug), "%s/pie.debug", bin);
	check_debug(path, root, debug, t_at(0, "pie"));
	/* In .debug/ there */
	assert_int_equal(t_sh("mkdir %s/.debug && mv %s %s/.debug/", bin, debug, bin), 0);
	snprintf(debug, sizeof(debug), "%s/.debug/pie.debug", bin);
	check_debug(path, root, debug, t_at(0, "pie"));
	/* Under the root, at the file's directory */
	assert_int_equal(t_sh("mkdir -p %s%s && mv %s %s%s/", root, bin, debug, root, bin), 0);
	snprintf(debug, sizeof(debug), "%s%s/pie.debug", root, bin);
	check_debug(path, root, debug, t_at(0, "pie"));
	/* The wrong one under the right name */
	assert_int_equal(t_sh("cp %s/nopie.debug %s", t_tmpdir, debug), 0);
	check_no_debug(path, root);
}

/* Without a build-id, the debug link's CRC32 decides */
static void test_debug_crc(void **state)
{
	const char *root = subdir(2, "crc-root");
	const char *bin = subdir(3, "crc-bin");
	char path[PATH_MAX], debug[PATH_MAX];

	(void)state;
	snprintf(path, sizeof(path), "%s/noid.stripped", bin);
	snprintf(debug, sizeof(debug), "%s/noid.debug", bin);
	assert_int_equal(t_sh("cp %s/noid.stripped %s/noid.debug %s", t_tmpdir, t_tmpdir,
			      bin), 0);
	check_debug(path, root, debug, t_at(0, "noid"));
	/* One byte more: not the file the link was made for */
	assert_int_equal(t_sh("printf x >> %s", debug), 0);
	check_no_debug(path, root);
}

/* The real thing when libc6-dbg is installed */
static void test_libc_debug(void **state)
{
	struct kfit_elf_opts o = { .debug = true };
	struct kfit_elf *plain, *full;
	const struct kfit_elfsym *s;
	char libc[PATH_MAX];
	int i, only_debug = 0;

	(void)state;
	if (!realpath("/lib/x86_64-linux-gnu/libc.so.6", libc))
		skip();
	plain = load_ok(libc, NULL);
	full = load_ok(libc, &o);
	if (!full->debug_path) {
		print_message("no debug file for %s (libc6-dbg not installed)\n", libc);
		kfit_elf_free(plain);
		kfit_elf_free(full);
		skip();
	}
	assert_non_null(strstr(full->debug_path, "/.build-id/"));
	assert_true(full->nsyms > plain->nsyms);
	/* Static functions, which .dynsym never has */
	for (i = 0; (s = kfit_elf_name_at(full, i)); i++)
		only_debug += !kfit_elf_by_name(plain, s->name);
	assert_true(only_debug > 100);
	/* What .dynsym has is still there, at the same address */
	s = kfit_elf_by_name(plain, "malloc");
	assert_non_null(s);
	assert_int_equal(kfit_elf_by_name(full, "malloc")->addr, s->addr);
	kfit_elf_free(plain);
	kfit_elf_free(full);
}

/* What the type and section say: an entry point, .init, IFUNCs, offsets */
static void test_flags_entry(void **state)
{
	const struct kfit_elfsym *s;
	struct kfit_elf *e, *lib;
	char libc[PATH_MAX], err[PATH_MAX + 64];
	__u64 off = 0, addr = 0, slot = 0;

	(void)state;
	e = load_ok(t_at(0, "pie"), NULL);
	assert_true(e->program);
	s = kfit_elf_by_name(e, "_start");
	assert_non_null(s);
	assert_int_equal(e->entry, s->addr);
	assert_int_equal(s->flags, 0);
	s = kfit_elf_by_name(e, "_init");
	assert_non_null(s);
	assert_true(s->flags & KFIT_ELF_SYM_INITFINI);
	s = kfit_elf_by_name(e, "st_global");
	assert_int_equal(s->flags, 0);
	assert_int_equal(kfit_elf_addr_to_off(e, s->addr, &off), 0);
	assert_int_equal(kfit_elf_off_to_addr(e, off, &addr), 0);
	assert_int_equal(addr, s->addr);
	assert_int_equal(kfit_elf_addr_to_off(e, 1ULL << 40, &off), -ENOENT);
	kfit_elf_free(e);

	assert_non_null(realpath("/lib/x86_64-linux-gnu/libc.so.6", libc));
	lib = load_ok(libc, NULL);
	/* A library's e_entry is never run as a program's (libc's is, as a program) */
	e = load_ok("/lib/x86_64-linux-gnu/libz.so.1", NULL);
	assert_false(e->program);
	kfit_elf_free(e);
	s = kfit_elf_by_name(lib, "strlen");
	assert_non_null(s);
	assert_true(s->ifunc);
	assert_false(kfit_elf_by_name(lib, "malloc")->ifunc);
	/* libc calls strlen itself, through a slot the linker fills */
	assert_int_equal(kfit_elf_irelative(libc, s->addr, &slot, err, sizeof(err)), 0);
	assert_true(slot > s->addr);
	assert_int_equal(kfit_elf_irelative(libc, kfit_elf_by_name(lib, "malloc")->addr,
					    &slot, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no IRELATIVE relocation"));
	kfit_elf_free(lib);
}

static unsigned int flags_of(const struct kfit_elf *e, const char *name)
{
	const struct kfit_elfsym *s = kfit_elf_by_name(e, name);

	if (!s)
		fail_msg("%s: no %s", e->path, name);
	return s->flags;
}

/*
 * DW_AT_noreturn: st_die's, from the file's DWARF or its debug file's,
 * asked for only; a stripped file with no debug file knows nothing
 */
static void test_noreturn(void **state)
{
	struct kfit_elf_opts o = { .noreturn = true, .debug = true,
				   .debug_root = t_at(2, "nonexistent") };
	static const char *const files[] = { "pie", "nopie", "pie.stripped" };
	struct kfit_elf *e;
	char path[PATH_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < T_N(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", t_tmpdir, files[i]);
		e = load_ok(path, &o);
		t_int_eq(path, flags_of(e, "st_die") & KFIT_ELF_SYM_NORETURN,
			 KFIT_ELF_SYM_NORETURN);
		t_int_eq(path, flags_of(e, "st_global"), 0);
		t_int_eq(path, flags_of(e, "main"), 0);
		kfit_elf_free(e);
	}
	e = load_ok(t_at(0, "pie"), NULL);
	assert_int_equal(flags_of(e, "st_die"), 0);
	kfit_elf_free(e);
	/* No DWARF, no debug file: no word on it (the .dynsym has no st_die) */
	snprintf(path, sizeof(path), "%s/pie.bare", t_tmpdir);
	e = load_ok(path, &o);
	assert_null(kfit_elf_by_name(e, "st_die"));
	kfit_elf_free(e);
}

/* The vDSO, read from memory */
static void test_vdso(void **state)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	const struct kfit_elfsym *s;
	struct kfit_elf *e;
	char err[128];

	(void)state;
	if (!base)
		skip();
	assert_int_equal(kfit_elf_load_mem((void *)base, t_self_mapping_size(base), "[vdso]",
					   &e, err, sizeof(err)), 0);
	assert_string_equal(e->path, "[vdso]");
	s = kfit_elf_by_name(e, "__vdso_clock_gettime");
	assert_non_null(s);
	assert_true(s->size > 0);
	assert_int_equal(kfit_elf_by_addr(e, s->addr + s->size - 1)->addr, s->addr);
	kfit_elf_free(e);
}

static void test_errors(void **state)
{
	struct kfit_elf *e = (void *)1;
	char err[PATH_MAX + 64];

	(void)state;
	assert_int_equal(kfit_elf_load("/nonexistent/x", NULL, &e, err, sizeof(err)),
			 -ENOENT);
	assert_null(e);
	assert_string_equal(err, "cannot open '/nonexistent/x': No such file or directory");
	assert_int_equal(t_sh("echo hello > %s/text && : > %s/empty", t_tmpdir, t_tmpdir), 0);
	assert_int_equal(kfit_elf_load(t_at(0, "text"), NULL, &e, err, sizeof(err)), -ENOEXEC);
	assert_null(e);
	assert_non_null(strstr(err, "text' is not an ELF file"));
	assert_int_equal(kfit_elf_load(t_at(0, "empty"), NULL, &e, err, sizeof(err)), -ENOEXEC);
	assert_int_equal(kfit_elf_load_mem("hello", 5, "mem", &e, err, sizeof(err)), -ENOEXEC);
	assert_string_equal(err, "'mem' is not an ELF file");
}

static void test_cache(void **state)
{
	struct kfit_elf_opts o = { .debug = true, .debug_root = "/nonexistent" };
	struct kfit_elfcache *c = kfit_elfcache_new(&o);
	const struct kfit_elf *a, *b, *d;
	struct timespec old[2] = { { 1000000, 0 }, { 1000000, 0 } };
	char err[PATH_MAX + 64], path[PATH_MAX];

	(void)state;
	assert_non_null(c);
	assert_int_equal(t_sh("mkdir %s/cache-dir && cp %s/pie.stripped %s/pie.debug "
			      "%s/cache-dir/", t_tmpdir, t_tmpdir, t_tmpdir, t_tmpdir), 0);
	snprintf(path, sizeof(path), "%s/cache-dir/pie.stripped", t_tmpdir);
	a = kfit_elfcache_get(c, path, err, sizeof(err));
	assert_non_null(a);
	/* The options reach the files: a debug file next to it */
	assert_non_null(kfit_elf_by_name(a, "st_local"));
	assert_ptr_equal(kfit_elfcache_get(c, path, err, sizeof(err)), a);
	assert_int_equal(kfit_elfcache_count(c), 1);
	assert_ptr_equal(kfit_elfcache_at(c, 0), a);
	/* Changed: read again; the old one stays valid */
	assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
	b = kfit_elfcache_get(c, path, err, sizeof(err));
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_string_equal(kfit_elf_by_name(a, "st_global")->name, "st_global");
	assert_int_equal(kfit_elfcache_count(c), 2);
	assert_ptr_equal(kfit_elfcache_get(c, path, err, sizeof(err)), b);
	assert_int_equal(kfit_elfcache_count(c), 2);
	/* Failures are kept, with their reason */
	snprintf(path, sizeof(path), "%s/text", t_tmpdir);
	assert_int_equal(t_sh("echo hello > %s", path), 0);
	assert_null(kfit_elfcache_get(c, path, err, sizeof(err)));
	assert_non_null(strstr(err, "is not an ELF file"));
	err[0] = '\0';
	assert_null(kfit_elfcache_get(c, path, err, sizeof(err)));
	assert_non_null(strstr(err, "is not an ELF file"));
	assert_null(kfit_elfcache_get(c, "/nonexistent/x", err, sizeof(err)));
	assert_non_null(strstr(err, "No such file"));
	assert_int_equal(kfit_elfcache_count(c), 2);
	d = kfit_elfcache_at(c, 2);
	assert_null(d);
	kfit_elfcache_free(c);
}

static void test_mapline(void **state)
{
	static const struct {
		const char *name, *line;
		int ret;	/* the rest if 0 */
		__u64 start, end, pgoff;
		const char *perms;
		unsigned int major, minor;
		unsigned long ino;
		const char *path;
	} cases[] = {
		{ "a library", "7f12a000-7f12b000 r-xp 00028000 fd:01 1234   "
		  "/usr/lib/x86_64-linux-gnu/libc.so.6\n", 0, 0x7f12a000, 0x7f12b000,
		  0x28000, "r-xp", 0xfd, 1, 1234, "/usr/lib/x86_64-linux-gnu/libc.so.6" },
		{ "the vDSO",
		  "7ffd1000-7ffd3000 r-xp 00000000 00:00 0                          [vdso]\n",
		  0, 0x7ffd1000, 0x7ffd3000, 0, "r-xp", 0, 0, 0, "[vdso]" },
		{ "anonymous", "55d0e000-55d0f000 rw-p 00000000 00:00 0 \n",
		  0, 0x55d0e000, 0x55d0f000, 0, "rw-p", 0, 0, 0, "" },
		{ "deleted, spaces", "7f00-7f01 r-xp 00001000 08:02 99 /tmp/a b (deleted)\n",
		  0, 0x7f00, 0x7f01, 0x1000, "r-xp", 8, 2, 99, "/tmp/a b (deleted)" },
		{ .name = "not a maps line", .line = "hello world\n", .ret = -EINVAL },
	};
	struct kfit_elf_mapline m;
	char line[256];
	const char *n;
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		n = cases[i].name;
		snprintf(line, sizeof(line), "%s", cases[i].line);
		t_int_eq(n, kfit_elf_parse_mapline(line, &m), cases[i].ret);
		if (cases[i].ret)
			continue;
		t_int_eq(n, m.start, cases[i].start);
		t_int_eq(n, m.end, cases[i].end);
		t_int_eq(n, m.pgoff, cases[i].pgoff);
		t_str_eq(n, m.perms, cases[i].perms);
		t_int_eq(n, major(m.dev), cases[i].major);
		t_int_eq(n, minor(m.dev), cases[i].minor);
		t_int_eq(n, m.ino, cases[i].ino);
		t_str_eq(n, m.path, cases[i].path);
	}
}

/* A note as the kernel lays them out: namesz, descsz, type, then both padded to 4 */
static size_t put_note(__u8 *b, const char *name, __u32 type, const __u8 *desc, __u32 n)
{
	__u32 h[3] = { strlen(name) + 1, n, type };
	size_t at = sizeof(h);

	memcpy(b, h, sizeof(h));
	memcpy(b + at, name, h[0]);
	at += (h[0] + 3) & ~3U;
	memcpy(b + at, desc, n);
	return at + ((n + 3) & ~3U);
}

/* /sys/kernel/notes' layout: the build-id after the kernel's own notes */
static void test_notes_build_id(void **state)
{
	static const __u8 id[20] = { 0x24, 0xa3, 0x59, 0x8f, 0xd7, 0x00, 0x11, 0x4d, 0x0a,
				     0x1b, 0x1a, 0x48, 0x71, 0xba, 0xdc, 0xee, 0x75, 0xd0,
				     0xac, 0xac };
	static const __u8 word[4] = { 1, 1, 0, 0 };
	char hex[2 * KFIT_ELF_BUILD_ID_MAX + 1], path[] = "/tmp/kfit-notes-XXXXXX";
	__u8 b[256] = { 0 };
	size_t n = 0;
	FILE *f;
	int fd;

	(void)state;
	n += put_note(b + n, "Linux", 0x101, word, 4);
	n += put_note(b + n, "Xen", 0x12, word, 3);
	assert_null(kfit_elf_notes_build_id(b, n, hex, sizeof(hex)));
	n += put_note(b + n, "GNU", 3, id, sizeof(id));
	assert_string_equal(kfit_elf_notes_build_id(b, n, hex, sizeof(hex)),
			    "24a3598fd700114d0a1b1a4871badcee75d0acac");
	/* cut short, or no room for the hex */
	assert_null(kfit_elf_notes_build_id(b, n - 1, hex, sizeof(hex)));
	assert_null(kfit_elf_notes_build_id(b, n, hex, 40));
	/* another name's type 3 is not it */
	n = put_note(b, "GNX", 3, id, sizeof(id));
	assert_null(kfit_elf_notes_build_id(b, n, hex, sizeof(hex)));
	/* from a file, as the running kernel's */
	n = put_note(b, "GNU", 3, id, 8);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	fclose(f);
	assert_string_equal(kfit_kernel_build_id(path, hex, sizeof(hex)), "24a3598fd700114d");
	unlink(path);
	assert_null(kfit_kernel_build_id(path, hex, sizeof(hex)));
}

static void test_proc_path(void **state)
{
	char self[PATH_MAX], out[PATH_MAX], want[PATH_MAX + 64];
	struct stat st;

	(void)state;
	assert_non_null(realpath("/proc/self/exe", self));
	assert_int_equal(stat(self, &st), 0);
	assert_int_equal(kfit_elf_proc_path(NULL, 42, self, st.st_dev, st.st_ino, out,
					sizeof(out)), 0);
	assert_string_equal(out, self);
	/* Another file there: the process's root has its own */
	assert_int_equal(kfit_elf_proc_path(NULL, 42, self, st.st_dev, st.st_ino + 1, out,
					sizeof(out)), 0);
	snprintf(want, sizeof(want), "/proc/42/root%s", self);
	assert_string_equal(out, want);
	assert_int_equal(kfit_elf_proc_path("/fix/proc", 42, "/nonexistent", 0, 0, out,
					sizeof(out)), 0);
	assert_string_equal(out, "/fix/proc/42/root/nonexistent");
	assert_int_equal(kfit_elf_proc_path(NULL, 42, self, 0, 0, out, 16), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pie_and_not),
		cmocka_unit_test(test_no_build_id),
		cmocka_unit_test(test_self_maps),
		cmocka_unit_test(test_ifunc),
		cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_debug_build_id),
		cmocka_unit_test(test_debug_link),
		cmocka_unit_test(test_debug_crc),
		cmocka_unit_test(test_libc_debug),
		cmocka_unit_test(test_flags_entry),
		cmocka_unit_test(test_noreturn),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_mapline),
		cmocka_unit_test(test_proc_path),
		cmocka_unit_test(test_notes_build_id),
	};

	return cmocka_run_group_tests(tests, t_symtarget_setup, t_tmpdir_teardown);
}
