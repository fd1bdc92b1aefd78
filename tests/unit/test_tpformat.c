// SPDX-License-Identifier: GPL-2.0
/*
 * tpformat: tracepoint format lines, a field's kind by its C type, and
 * every system call's format on this machine read back against a naive
 * parse of the same file and against the kernel's BTF (libbpf, an oracle
 * only: the code under test is the core's)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <cmocka.h>
#include "testlib.h"
#include "fileio.h"
#include "tpformat.h"
#include "kfit/ret.h"

#define S	KFIT_RET_SIGNED
#define P	KFIT_RET_PTR

/* ---- kfit_tpformat_field ------------------------------------------------ */

/* One line through kfit_tpformat_field, on a copy */
static int field(const char *line, struct kfit_tpfield *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s", line);
	memset(f, 0, sizeof(*f));
	return kfit_tpformat_field(buf, f);
}

static void test_field_lines(void **state)
{
	static const struct {
		const char *line;
		int rc;
		const char *type, *name;
		unsigned int offset, size;
		bool is_signed, is_array;
	} cases[] = {
		/* sys_enter_openat's on 6.18, as tracefs shows them */
		{ "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;",
		  0, "unsigned short", "common_type", 0, 2, false, false },
		{ "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;",
		  0, "unsigned char", "common_flags", 2, 1, false, false },
		{ "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;",
		  0, "int", "common_pid", 4, 4, true, false },
		{ "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;",
		  1, "int", "__syscall_nr", 8, 4, true, false },
		{ "\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;",
		  1, "int", "dfd", 16, 8, false, false },
		{ "\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;",
		  1, "const char *", "filename", 24, 8, false, false },
		{ "\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;",
		  1, "umode_t", "mode", 40, 8, false, false },
		/* sched_switch's; __data_loc strings (sched_process_exec) */
		{ "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;",
		  1, "char", "prev_comm", 8, 16, false, true },
		{ "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;",
		  1, "__data_loc char[]", "filename", 8, 4, false, false },
		{ "\tfield:const char *const * argv;\toffset:24;\tsize:8;\tsigned:0;",
		  1, "const char *const *", "argv", 24, 8, false, false },
		/* no "signed:" (older kernels), blanks before, none before */
		{ "  field:long x;\toffset:65535;\tsize:8;", 1, "long", "x", 65535, 8,
		  false, false },
		{ "field:s8 y;offset:1;size:1;signed:1;", 1, "s8", "y", 1, 1, true, false },
		{ "\tfield:  int z;\toffset:2;\tsize:4;\tsigned:1;", 1, "int", "z", 2, 4, true,
		  false },
	};
	struct kfit_tpfield f;
	char buf[256];
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		const char *name = cases[i].line;

		t_int_eq(name, field(name, &f, buf, sizeof(buf)), cases[i].rc);
		t_str_eq(name, f.type, cases[i].type);
		t_str_eq(name, f.name, cases[i].name);
		t_int_eq(name, f.offset, cases[i].offset);
		t_int_eq(name, f.size, cases[i].size);
		t_int_eq(name, f.is_signed, cases[i].is_signed);
		t_int_eq(name, f.is_array, cases[i].is_array);
		/* name and type point into the line */
		t_true(name, f.name > buf && f.name < buf + sizeof(buf));
		t_true(name, f.type > buf && f.type < f.name);
	}
}

static void test_field_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"format:",
		"print fmt: \"field:int x;\toffset:0;\tsize:4;\"",
		"name: sys_enter_openat",
		"\tfield:int x\toffset:0;\tsize:4;\tsigned:1;",	/* no ';' */
		"\tfield:int x;\tsize:4;\tsigned:1;",		/* no offset */
		"\tfield:int x;\toffset:0;\tsigned:1;",		/* no size */
		"\tfield:int x;\toffset:;\tsize:4;\tsigned:1;",
		"\tfield:int x;\toffset:zz;\tsize:4;\tsigned:1;",
		"\tfield:int x;\toffset:-1;\tsize:4;\tsigned:1;",
		"\tfield:int x;\toffset:+1;\tsize:4;\tsigned:1;",
		"\tfield:int x;\toffset:12abc;\tsize:4;\tsigned:1;",
		"\tfield:int x;\toffset:0;\tsize:4",		/* no ';' after */
		"\tfield:int x;\toffset:65536;\tsize:4;\tsigned:1;",
		"\tfield:int x;\toffset:0;\tsize:65536;\tsigned:1;",
		"\tfield:int x;\toffset:4294967296;\tsize:4;\tsigned:1;",
		"\tfield:int x;\toffset:99999999999999999999;\tsize:4;\tsigned:1;",
		"\tfield:int x;\toffset:0;\tsize:4;\tsigned:yes;",
		"\tfield:int;\toffset:0;\tsize:4;\tsigned:1;",	/* no name */
		"\tfield:x;\toffset:0;\tsize:4;\tsigned:1;",
		"\tfield:;\toffset:0;\tsize:4;\tsigned:1;",
		"\tfield:int ;\toffset:0;\tsize:4;\tsigned:1;",
		"\tfield: x;\toffset:0;\tsize:4;\tsigned:1;",
		"\tfield:char [16];\toffset:0;\tsize:16;\tsigned:0;",
	};
	struct kfit_tpfield f;
	char buf[256];
	size_t i;

	(void)state;
	for (i = 0; i < T_N(bad); i++)
		t_int_eq(bad[i], field(bad[i], &f, buf, sizeof(buf)), -1);
}

/* ---- kfit_tpformat_kind ------------------------------------------------- */

static unsigned char kind(const char *type, unsigned int size, bool is_signed)
{
	struct kfit_tpfield f = {
		.name = "x", .type = type, .size = size, .is_signed = is_signed,
	};

	return kfit_tpformat_kind(&f);
}

static void test_kind(void **state)
{
	static const struct {
		const char *type;
		unsigned int size;
		bool is_signed;
		int want;
	} cases[] = {
		/* a system call's: 8-byte unsigned fields, read by their C type */
		{ "int", 8, false, 4 | S }, { "const int", 8, false, 4 | S },
		{ "pid_t", 8, false, 4 | S }, { "const clockid_t", 8, false, 4 | S },
		{ "timer_t", 8, false, 4 | S }, { "key_serial_t", 8, false, 4 | S },
		{ "rwf_t", 8, false, 4 | S }, { "mqd_t", 8, false, 4 | S },
		{ "__s32", 8, false, 4 | S },
		{ "unsigned int", 8, false, 4 }, { "unsigned", 8, false, 4 },
		{ "u32", 8, false, 4 }, { "const __u32", 8, false, 4 },
		{ "uid_t", 8, false, 4 }, { "gid_t", 8, false, 4 }, { "qid_t", 8, false, 4 },
		{ "umode_t", 8, false, 2 },
		{ "const enum landlock_rule_type", 8, false, 4 },
		{ "__s16", 8, false, 2 | S }, { "u8", 8, false, 1 }, { "s8", 8, false, 1 | S },
		{ "enum x", 4, true, 4 | S }, { "enum x", 1, false, 1 },
		{ "long", 8, false, 8 | S }, { "loff_t", 8, false, 8 | S },
		{ "off_t", 8, false, 8 | S },
		{ "unsigned long", 8, false, 8 }, { "size_t", 8, false, 8 },
		{ "const size_t", 8, false, 8 }, { "__u64", 8, false, 8 },
		{ "aio_context_t", 8, false, 8 },
		{ "const char *", 8, false, 8 | P }, { "char *", 8, false, 8 | P },
		{ "const char *const *", 8, false, 8 | P },
		{ "struct robust_list_head * *", 8, false, 8 | P },
		{ "const void *const", 8, false, 8 | P },
		/* other events': by size and sign */
		{ "int", 4, true, 4 | S }, { "unsigned short", 2, false, 2 },
		{ "unsigned char", 1, false, 1 }, { "s64", 8, true, 8 | S },
		{ "u16", 2, false, 2 }, { "bool", 1, false, 1 },
		{ "__data_loc char[]", 4, false, 4 },
		/* not a number */
		{ "char", 16, false, 0 }, { "x8", 3, false, 0 }, { "x8", 0, false, 0 },
		{ "struct x", 24, false, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++)
		t_int_eq(cases[i].type, kind(cases[i].type, cases[i].size, cases[i].is_signed),
			 cases[i].want);
}

/* ---- every system call's format on this machine ------------------------- */

/* A field as the test's own parse of a format line sees it */
struct naive {
	char type[200], name[200];
	unsigned int offset, size;
	int is_signed;
};

/*
 * The fields of one format file, common_ ones left out, by sscanf: the
 * declaration up to ';', its last word the name (an array's [N] cut)
 */
static int naive_parse(const char *text, struct naive *v, int max)
{
	const char *l;
	char decl[200], *sp;
	int n = 0;

	for (l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		struct naive f;

		/* blanks, not newlines: sscanf's ' ' would skip an empty line */
		if (sscanf(l + strspn(l, " \t"), "field:%199[^;]; offset:%u; size:%u; signed:%d;", decl,
			   &f.offset, &f.size, &f.is_signed) != 4)
			continue;
		sp = strrchr(decl, ' ');
		assert_non_null(sp);
		*sp = '\0';
		snprintf(f.type, sizeof(f.type), "%s", decl);
		snprintf(f.name, sizeof(f.name), "%.*s", (int)strcspn(sp + 1, "["), sp + 1);
		if (!strncmp(f.name, "common_", 7))
			continue;
		assert_true(n < max);
		v[n++] = f;
	}
	return n;
}

/* The type of __do_sys_SYSCALL's parameter name in btf, modifiers and typedefs gone */
static const struct btf_type *btf_param(const struct btf *btf, const char *syscall,
					const char *name, int *ok)
{
	const struct btf_type *t;
	const struct btf_param *p;
	char fn[128];
	int id, i;

	*ok = 0;
	snprintf(fn, sizeof(fn), "__do_sys_%s", syscall);
	id = btf__find_by_name_kind(btf, fn, BTF_KIND_FUNC);
	if (id < 0)
		return NULL;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	p = btf_params(t);
	for (i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, p[i].name_off), name))
			break;
	if (i == btf_vlen(t))
		return NULL;
	*ok = 1;
	id = btf__resolve_type((struct btf *)btf, p[i].type);
	return id < 0 ? NULL : btf__type_by_id(btf, id);
}

/* What BTF says the value is: a pointer, or an integer's or enum's size and sign */
static int value_kind(const struct btf_type *t)
{
	if (btf_is_ptr(t))
		return 8 | P;
	if (btf_is_any_enum(t))
		return t->size | (btf_kflag(t) ? S : 0);
	if (btf_is_int(t))
		return t->size | (btf_int_encoding(t) & BTF_INT_SIGNED ? S : 0);
	return -1;
}

struct sweep {
	int files, fields, ints, ptrs, btf_checked;
};

/* One sys_enter_ format: read, against the naive parse, the kinds, BTF */
static void check_syscall(const char *ev, const struct btf *btf, struct sweep *sw)
{
	static struct naive want[64];
	struct kfit_tpfield *f;
	const struct btf_type *bt;
	char tp[300], path[600], *text, *raw;
	int n, nw, i, ok;
	unsigned char k;

	snprintf(tp, sizeof(tp), "syscalls/%s", ev);
	snprintf(path, sizeof(path), "%s/events/%s/format", kfit_tracefs(), tp);
	raw = kfit_read_all(path, NULL);
	assert_non_null(raw);
	nw = naive_parse(raw, want, T_N(want));
	n = kfit_tpformat_read(tp, &f, &text);
	t_int_eq(ev, n, nw);
	/* __syscall_nr and the parameters */
	t_true(ev, n >= 1);
	for (i = 0; i < n && i < nw; i++) {
		t_str_eq(ev, f[i].name, want[i].name);
		t_str_eq(ev, f[i].type, want[i].type);
		t_int_eq(f[i].name, f[i].offset, want[i].offset);
		t_int_eq(f[i].name, f[i].size, want[i].size);
		t_int_eq(f[i].name, f[i].is_signed, want[i].is_signed);
		k = kfit_tpformat_kind(&f[i]);
		if (!strcmp(want[i].type, "int") || !strcmp(want[i].type, "const int")) {
			t_int_eq(f[i].name, k, 4 | S);
			sw->ints++;
		}
		if (strchr(want[i].type, '*')) {
			t_int_eq(f[i].name, k, 8 | P);
			sw->ptrs++;
		}
		if (!i)
			continue;
		/* the C function's own parameter, where BTF has it */
		bt = btf ? btf_param(btf, ev + strlen("sys_enter_"), f[i].name, &ok) : NULL;
		if (!bt || value_kind(bt) < 0)
			continue;
		/* a typedef of a pointer (cap_user_header_t) reads as 8 bytes too */
		if (btf_is_ptr(bt) && !strchr(f[i].type, '*'))
			t_int_eq(f[i].name, k & ~S, 8);
		else if (btf_is_any_enum(bt))
			t_int_eq(f[i].name, k & ~S, bt->size);
		else
			t_int_eq(f[i].name, k, value_kind(bt));
		sw->btf_checked++;
	}
	sw->fields += n;
	sw->files++;
	free(f);
	free(text);
	free(raw);
}

static void test_syscall_formats(void **state)
{
	struct sweep sw = { 0 };
	struct btf *btf;
	struct dirent *e;
	char dir[300];
	DIR *d;

	(void)state;
	if (!kfit_tracefs())
		skip();
	snprintf(dir, sizeof(dir), "%s/events/syscalls", kfit_tracefs());
	d = opendir(dir);
	if (!d)
		skip();	/* a kernel without CONFIG_FTRACE_SYSCALLS */
	btf = btf__load_vmlinux_btf();
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "sys_enter_", 10))
			check_syscall(e->d_name, btf, &sw);
	closedir(d);
	btf__free(btf);
	print_message("%d formats, %d fields: %d ints, %d pointers; %d against BTF\n",
		      sw.files, sw.fields, sw.ints, sw.ptrs, sw.btf_checked);
	/* openat, read, write...: each kind seen many times */
	assert_true(sw.files > 100);
	assert_true(sw.ints > 50);
	assert_true(sw.ptrs > 100);
	if (btf)
		assert_true(sw.btf_checked > 50);
}

/* openat's, known: dfd an int in an 8-byte field, filename a pointer */
static void test_read_openat(void **state)
{
	struct kfit_tpfield *f;
	char *text;
	int n;

	(void)state;
	if (!kfit_tracefs() || access("/sys/kernel/tracing/events/syscalls", F_OK))
		skip();
	n = kfit_tpformat_read("syscalls/sys_enter_openat", &f, &text);
	assert_int_equal(n, 5);
	assert_string_equal(f[0].name, "__syscall_nr");
	assert_string_equal(f[1].name, "dfd");
	assert_string_equal(f[1].type, "int");
	assert_int_equal(f[1].size, 8);
	assert_int_equal(kfit_tpformat_kind(&f[1]), 4 | S);
	assert_string_equal(f[2].name, "filename");
	assert_int_equal(kfit_tpformat_kind(&f[2]), 8 | P);
	assert_int_equal(f[2].offset, f[1].offset + 8);
	assert_string_equal(f[3].name, "flags");
	assert_string_equal(f[4].name, "mode");
	free(f);
	free(text);
}

static void test_read_missing(void **state)
{
	struct kfit_tpfield *f = (void *)1;
	char *text = (void *)1;

	(void)state;
	if (!kfit_tracefs())
		skip();
	assert_int_equal(kfit_tpformat_read("syscalls/sys_enter_no_such_call", &f, &text),
			 -ENOENT);
	assert_null(f);
	assert_null(text);
	assert_int_equal(kfit_tpformat_read("nonesuch", &f, &text), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field_lines),
		cmocka_unit_test(test_field_malformed),
		cmocka_unit_test(test_kind),
		cmocka_unit_test(test_syscall_formats),
		cmocka_unit_test(test_read_openat),
		cmocka_unit_test(test_read_missing),
	};

	return cmocka_run_group_tests(tests, t_kernel_fs_setup, NULL);
}
