// SPDX-License-Identifier: GPL-2.0
/*
 * argcalls: calls with known arguments, for funcdur's arguments and
 * return values against uftrace (this file built with -pg too: the
 * Makefile's argcalls-pg) and against what it prints itself.
 *
 *   int ac_sum(int a, long b)                a + b % 1000
 *   size_t ac_name(const char *s, unsigned char c)   strlen(s) + c
 *   bool ac_flag(bool on, short level)       on && level > 0
 *   long ac_req(const struct ac_req *req)    req->id + req->hdr.len
 *
 * "argcalls N" makes N rounds of the three calls, with values that run
 * through negatives, large longs and strings of several lengths, and
 * prints "argcalls: N rounds, sum S". Bad arguments: exit 2.
 *
 * "argcalls req N": N calls of ac_req, for fields through pointers
 * (against perf probe's DWARF probes): a nested structure, a string
 * through a pointer and one in a char array, members of an anonymous
 * union and of a structure in it, a bool, an enum, and a second
 * request through the first's pointer.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AC __attribute__((noinline, used))

static const char *const names[] = { "", "a", "eth0", "/etc/hostname", "a longer name" };

AC int ac_sum(int a, long b)
{
	asm volatile("" : "+r"(a));
	return a + (int)(b % 1000);
}

AC size_t ac_name(const char *s, unsigned char c)
{
	asm volatile("" : "+r"(c));
	return strlen(s) + c;
}

AC bool ac_flag(bool on, short level)
{
	asm volatile("" : "+r"(level));
	return on && level > 0;
}

enum ac_kind { AC_GET = 1, AC_PUT = 2, AC_DEL = -3 };

struct ac_hdr {
	uint16_t len;
	short prio;
	enum ac_kind kind;
};

struct ac_req {
	long id;
	struct ac_hdr hdr;
	const char *name;
	char tag[12];
	bool urgent;
	union {
		unsigned long long cookie;
		struct {
			int lo;
			int hi;
		};
	};
	struct ac_req *next;
};

AC long ac_req(const struct ac_req *req)
{
	asm volatile("" : : "r"(req) : "memory");
	return req->id + req->hdr.len;
}

/* n requests, each with the one before it behind next */
static long requests(long n)
{
	static const enum ac_kind kinds[] = { AC_GET, AC_PUT, AC_DEL };
	struct ac_req r[2] = { [1].name = "none" }, *cur, *prev;
	long i, sum = 0;

	for (i = 0; i < n; i++) {
		cur = &r[i % 2];
		prev = &r[(i + 1) % 2];
		cur->id = i * 1000003L;
		cur->hdr.len = (uint16_t)(i * 4099);
		cur->hdr.prio = (short)(i - 20);
		cur->hdr.kind = kinds[i % 3];
		cur->name = names[i % 5];
		snprintf(cur->tag, sizeof(cur->tag), "t%u", (unsigned int)(i * 7) % 1000000);
		cur->urgent = i % 3 == 0;
		cur->lo = (int)i - 10;
		cur->hi = (int)(i * i);
		cur->next = prev;
		sum += ac_req(cur);
	}
	return sum;
}

int main(int argc, char **argv)
{
	long n, i, sum = 0;
	char *end;

	if (argc == 3 && !strcmp(argv[1], "req") && (n = strtol(argv[2], &end, 10)) >= 0 &&
	    !*end) {
		printf("argcalls: %ld requests, sum %ld\n", n, requests(n));
		return 0;
	}
	if (argc != 2 || (n = strtol(argv[1], &end, 10)) < 0 || *end) {
		fprintf(stderr, "usage: argcalls N | argcalls req N\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		sum += ac_sum((int)i - 5, i * 1000000007L);
		sum += ac_name(names[i % 5], (unsigned char)(i * 37));
		sum += ac_flag(i % 2, (short)(i * 3 - 10));
	}
	printf("argcalls: %ld rounds, sum %ld\n", n, sum);
	return 0;
}
