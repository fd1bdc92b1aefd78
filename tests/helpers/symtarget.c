// SPDX-License-Identifier: GPL-2.0
/*
 * symtarget: functions of known names for the symbol tests. test_elfsyms
 * and test_syms build it themselves, PIE and not, with and without a
 * build-id, then make stripped copies and separate debug files of it.
 *
 *   st_global    global, noinline; __st_alias is a second name for it
 *   st_local     static, noinline: only in .symtab
 *   st_nosize    assembly with no .size (16 nops and a ret); st_after
 *                right after it, with a size
 *   st_die       noreturn: DWARF's DW_AT_noreturn says so (never called)
 *
 * It prints the run-time address of each, "st_global 0x55d0..." one per
 * line, flushed, then waits until its stdin closes.
 */
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline, used)) int st_global(int x)
{
	asm volatile("" : "+r"(x));
	return x * 7 + 1;
}

int __st_alias(int x) __attribute__((alias("st_global")));

__attribute__((noinline, used)) static int st_local(int x)
{
	asm volatile("" : "+r"(x));
	return x * 5 - 3;
}

__attribute__((noinline, used, noreturn)) void st_die(int code)
{
	_exit(code);
}

void st_nosize(void);
void st_after(void);
__asm__(".text\n"
	".globl st_nosize\n.type st_nosize, @function\nst_nosize:\n"
	"\t.fill 16, 1, 0x90\n\tret\n"
	".globl st_after\n.type st_after, @function\nst_after:\n\tret\n"
	".size st_after, 1\n");

int main(void)
{
	char c;

	printf("st_global %p\nst_local %p\nst_nosize %p\nst_after %p\n",
	       (void *)st_global, (void *)st_local, (void *)st_nosize,
	       (void *)st_after);
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return st_global(1) + st_local(2) == 0;
}
