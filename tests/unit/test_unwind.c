// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks unwound from a copy of their top (unwind.c) with the tables
 * of uwtable.c: this process's own stack, copied where a chain of
 * functions stopped (as the BPF side copies a sampled thread's), must
 * unwind through them to _start; libc's signal frame and this program's
 * functions give the rules their CFI says; a copy too small and bad
 * registers stop the walk and say why.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "syms.h"
#include "unwind.h"
#include "ustop.h"
#include "uwtable.h"
#include "testlib.h"

#define COPY	16384

/* Where chain_c stopped: its registers and the stack above them */
static struct {
	__u64 ip, sp, bp;
	__u8 stack[COPY];
	size_t len;
} snap;

/* Bytes readable from sp up: to the end of the mapping holding it */
static size_t room_above(__u64 sp)
{
	unsigned long long lo, hi;
	char line[512];
	size_t n = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && sp >= lo && sp < hi)
			n = hi - sp;
	if (f)
		fclose(f);
	return n;
}

/* As the BPF side reads a stack: bytes, whatever ASan thinks of its frames */
__attribute__((no_sanitize_address, noinline)) static void copy_raw(__u8 *dst, __u64 src,
								 size_t len)
{
	const volatile __u8 *p = (const volatile __u8 *)(unsigned long)src;
	size_t i;

	for (i = 0; i < len; i++)
		dst[i] = p[i];
}

__attribute__((noinline, noipa)) void chain_c(void)
{
	__u64 ip, sp, bp;

	/* one block: rsp and rip of the same instruction's frame */
	asm volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
		     : "=r"(ip), "=r"(sp), "=r"(bp));
	snap.ip = ip;
	snap.sp = sp;
	snap.bp = bp;
	snap.len = room_above(sp) < COPY ? room_above(sp) : COPY;
	copy_raw(snap.stack, sp, snap.len);
}

__attribute__((noinline, noipa)) int chain_b(int x)
{
	chain_c();
	asm volatile("" : "+r"(x));
	return x + 1;
}

__attribute__((noinline, noipa)) int chain_a(int x)
{
	int r = chain_b(x + 1);

	asm volatile("" : "+r"(r));
	return r * 2;
}

static int unwind_snap(size_t len, __u64 *ips, int max, enum kfit_ustop *why,
		       struct kfit_syms **out)
{
	struct kfit_syms *s = kfit_syms_new(NULL);
	struct kfit_unwind *u;
	struct kfit_ustack in = {
		.pid = getpid(), .ip = snap.ip, .sp = snap.sp, .bp = snap.bp,
		.stack = snap.stack, .len = len,
	};
	int n;

	assert_non_null(s);
	u = kfit_unwind_new(s);
	assert_non_null(u);
	n = kfit_unwind(u, &in, ips, max, why);
	kfit_unwind_free(u);
	*out = s;
	return n;
}

/* The chain, then the test runner's frames, to _start: whole */
static void test_own_stack(void **state)
{
	const char *want[] = { "chain_c", "chain_b", "chain_a" };
	struct kfit_syms *s;
	enum kfit_ustop why;
	__u64 ips[KFIT_STACK_MAX];
	const char *name;
	int n, i;
	bool start = false;

	(void)state;
	chain_a(1);
	assert_true(snap.len > 1024);
	n = unwind_snap(snap.len, ips, KFIT_STACK_MAX, &why, &s);
	assert_true(n >= 5);
	for (i = 0; i < 3; i++)
		assert_string_equal(kfit_syms_name(s, getpid(), ips[i], false), want[i]);
	for (i = 3; i < n; i++) {
		name = kfit_syms_name(s, getpid(), ips[i], false);
		start |= !strcmp(name, "_start");
	}
	assert_int_equal(why, KFIT_USTOP_END);
	assert_true(start);
	kfit_syms_free(s);
}

/* The copy ends inside the chain: cut, and said so */
static void test_copy_too_small(void **state)
{
	struct kfit_syms *s;
	enum kfit_ustop why;
	__u64 ips[KFIT_STACK_MAX];
	int n;

	(void)state;
	chain_a(1);
	n = unwind_snap(8, ips, KFIT_STACK_MAX, &why, &s);
	assert_true(n >= 1 && n <= 2);
	assert_int_equal(why, KFIT_USTOP_COPY);
	assert_string_equal(kfit_ustop_name(why), "stack copy too small");
	kfit_syms_free(s);
	/* no more frames than asked */
	n = unwind_snap(snap.len, ips, 2, &why, &s);
	assert_int_equal(n, 2);
	assert_int_equal(why, KFIT_USTOP_DEPTH);
	kfit_syms_free(s);
}

/* No registers (a kernel thread's sample); an address in no mapping */
static void test_bad_registers(void **state)
{
	struct kfit_syms *s;
	enum kfit_ustop why;
	__u64 ips[4];
	int n;

	(void)state;
	chain_a(1);
	snap.ip = 0;
	n = unwind_snap(snap.len, ips, 4, &why, &s);
	assert_int_equal(n, 0);
	assert_int_equal(why, KFIT_USTOP_NOREGS);
	kfit_syms_free(s);
	snap.ip = 0x10;
	n = unwind_snap(snap.len, ips, 4, &why, &s);
	assert_int_equal(n, 1);
	assert_int_equal(why, KFIT_USTOP_NOMAP);
	kfit_syms_free(s);
	assert_string_equal(kfit_ustop_name(KFIT_NUSTOPS), "?");
	assert_string_equal(kfit_ustop_key(KFIT_USTOP_NOINFO), "no_info");
}

static struct kfit_uwtable *table_of(const char *path)
{
	struct kfit_uwtable *t = NULL;
	int fd = open(path, O_RDONLY);
	Elf *elf;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(elf);
	assert_int_equal(kfit_uwtable_build(elf, NULL, &t), 0);
	elf_end(elf);
	close(fd);
	return t;
}

/* The file libc.so.6 maps from */
static void libc_path(char *buf, size_t len)
{
	char line[512], *p;
	FILE *f = fopen("/proc/self/maps", "re");

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		p = strchr(line, '/');
		if (p && strstr(p, "/libc.so.6")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(buf, len, "%s", p);
			break;
		}
	}
	if (f)
		fclose(f);
	assert_true(buf[0]);
}

/* glibc's signal trampoline: CFA, rip and rbp read from the ucontext at rsp */
static void test_signal_rule(void **state)
{
	struct kfit_uwtable *t;
	char path[512];
	size_t i, n = 0;

	(void)state;
	libc_path(path, sizeof(path));
	t = table_of(path);
	assert_string_equal(t->section, ".eh_frame");
	for (i = 0; i < t->n; i++) {
		const struct kfit_uw_row *r = &t->rows[i];

		if (!r->signal)
			continue;
		n++;
		assert_int_equal(r->cfa, KFIT_UW_DEREF_SP);
		assert_int_equal(r->ra, KFIT_UW_AT_SP);
		assert_int_equal(r->bp, KFIT_UW_AT_SP);
		/* offsetof(ucontext_t, uc_mcontext.gregs[REG_RSP, REG_RIP, REG_RBP]) */
		assert_int_equal(r->cfa_off, 160);
		assert_int_equal(r->ra_off, 168);
		assert_int_equal(r->bp_off, 120);
	}
	assert_true(n >= 1);
	/* a PLT entry's rule, and no row below the table's base */
	for (i = 0, n = 0; i < t->n; i++)
		n += t->rows[i].cfa == KFIT_UW_PLT;
	assert_true(n >= 1);
	assert_null(kfit_uwtable_find(t, t->base - 1));
	assert_true(kfit_uwtable_bytes(t) >= t->n * sizeof(*t->rows));
	kfit_uwtable_free(t);
}

/* This program's functions: the return address at CFA - 8, the CFA at rsp */
static void test_own_rules(void **state)
{
	const struct kfit_uw_row *r;
	struct kfit_uwtable *t;
	struct kfit_syms *s;
	const struct kfit_elf *e;
	__u64 vaddr;

	(void)state;
	t = table_of("/proc/self/exe");
	s = kfit_syms_new(NULL);
	assert_non_null(s);
	assert_int_equal(kfit_syms_locate(s, getpid(), (__u64)(unsigned long)chain_a + 1,
					  &e, &vaddr), 0);
	r = kfit_uwtable_find(t, vaddr);
	assert_non_null(r);
	assert_int_equal(r->cfa, KFIT_UW_SP);
	assert_int_equal(r->ra, KFIT_UW_AT_CFA);
	assert_int_equal(r->ra_off, -8);
	assert_int_equal(r->signal, 0);
	assert_int_equal(kfit_syms_locate(s, getpid(), 0x10, &e, &vaddr), -ENOENT);
	kfit_syms_free(s);
	kfit_uwtable_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_stack),
		cmocka_unit_test(test_copy_too_small),
		cmocka_unit_test(test_bad_registers),
		cmocka_unit_test(test_signal_rule),
		cmocka_unit_test(test_own_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
