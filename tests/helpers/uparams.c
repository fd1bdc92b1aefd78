// SPDX-License-Identifier: GPL-2.0
/*
 * uparams: functions of known parameter and return types, for what DWARF
 * says of them (test_debuginfo builds it with -g at -O0 and -O2, in two
 * CUs: this file again with -DUP_CU2) and for funcdur's --by ret.
 *
 *   up_int(int, unsigned char, bool)                   int
 *   up_uchar(enum up_color, enum up_sign)              unsigned char
 *   up_bool(size_t, const char *, char *, unsigned char *)  bool
 *   up_enum(struct up_pair *, struct up_pair)          enum up_color
 *   up_size(const char *, ...)                         size_t
 *   up_str(void)                                       const char *
 *   up_void(volatile int *const, int (*)(void *, long), up_cstr)  void
 *   up_float(float)                                    double
 *   up_static(int) static; up_inl(int) static inline, inlined and out of line
 *   up_twice(long first) static, and up_twice(long second) in the second CU
 *   up_cu2(short, unsigned long long)                  short, second CU
 *   up_status(int i)   -1 when i % 3 == 0, else i % 3
 *
 * "uparams status N" calls up_status(i) for i = 0 .. N-1 and prints
 * "uparams: status N: -1 x A, 1 x B, 2 x C"; "uparams all" calls each
 * function once. Bad arguments: exit 2.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UP __attribute__((noinline, used))

#ifdef UP_CU2

UP static long up_twice(long second)
{
	asm volatile("" : "+r"(second));
	return second + 2;
}

UP short up_cu2(short s, unsigned long long u)
{
	asm volatile("" : "+r"(u));
	return s + (short)up_twice(u);
}

#else

enum up_color { UP_RED, UP_GREEN };
enum up_sign { UP_NEG = -1, UP_POS = 1 };
struct up_pair { long a, b; };
typedef const char *up_cstr;

static volatile long sink;

UP int up_int(int a, unsigned char b, bool c)
{
	asm volatile("" : "+r"(a));
	return a + b + c;
}

UP unsigned char up_uchar(enum up_color c, enum up_sign s)
{
	asm volatile("" : "+r"(c));
	return c == UP_RED ? 255 : (unsigned char)s;
}

UP bool up_bool(size_t n, const char *s, char *t, unsigned char *bytes)
{
	asm volatile("" : "+r"(n));
	return n == strlen(s) + strlen(t) + bytes[0];
}

UP enum up_color up_enum(struct up_pair *p, struct up_pair v)
{
	asm volatile("" : "+r"(p));
	return p->a + v.b > 0 ? UP_GREEN : UP_RED;
}

UP size_t up_size(const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = strlen(fmt) + va_arg(ap, int);
	va_end(ap);
	return n;
}

UP const char *up_str(void)
{
	return "up";
}

UP void up_void(volatile int *const p, int (*cb)(void *, long), up_cstr s)
{
	*p = cb((void *)s, 1);
}

UP double up_float(float f)
{
	asm volatile("" : "+x"(f));
	return f * 2;
}

UP static int up_static(int x)
{
	asm volatile("" : "+r"(x));
	return x * 5 - 3;
}

static inline int up_inl(int k)
{
	return k * 3 + (int)sink;
}

UP static long up_twice(long first)
{
	asm volatile("" : "+r"(first));
	return first + 1;
}

UP int up_status(int i)
{
	asm volatile("" : "+r"(i));
	return i % 3 ? i % 3 : -1;
}

static int cb(void *p, long n)
{
	return (int)strlen(p) + n;
}

/* Calls up_inl inline, and through a pointer out of line */
static int (*volatile inl_ptr)(int) = up_inl;

static void all(void)
{
	struct up_pair pr = { 1, 2 };
	volatile int v;
	char t[] = "t";
	unsigned char b[] = { 0 };

	sink += up_int(1, 2, true) + up_uchar(UP_GREEN, UP_NEG);
	sink += up_bool(2, "s", t, b) + up_enum(&pr, pr) + up_size("ab", 1);
	sink += strlen(up_str()) + up_float(1.5f) + up_static(2) + up_twice(3);
	up_void(&v, cb, "s");
	sink += v + up_inl((int)sink) + inl_ptr(4);
}

int main(int argc, char **argv)
{
	long n, i, count[3] = { 0 };
	char *end;
	int r;

	if (argc == 2 && !strcmp(argv[1], "all")) {
		all();
		printf("uparams: all\n");
		return 0;
	}
	if (argc != 3 || strcmp(argv[1], "status"))
		goto usage;
	n = strtol(argv[2], &end, 10);
	if (*end || n < 0)
		goto usage;
	for (i = 0; i < n; i++) {
		r = up_status(i);
		count[r < 0 ? 0 : r]++;
	}
	printf("uparams: status %ld: -1 x %ld, 1 x %ld, 2 x %ld\n", n, count[0],
	       count[1], count[2]);
	return 0;
usage:
	fprintf(stderr, "usage: uparams all | uparams status N\n");
	return 2;
}

#endif
