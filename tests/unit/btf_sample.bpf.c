// SPDX-License-Identifier: GPL-2.0
/*
 * BTF for test_btf: functions with known parameter counts and a struct
 * with fields directly and inside anonymous unions and structs. Built
 * with clang -g -target bpf; never loaded.
 */

struct kfit_sample {
	int a;
	long b;
	union {
		int c;
		unsigned int d;
		struct {
			char e;
			char f;
		};
	};
	const struct {
		short g;
	};
};

int kfit_sample_zero(void)
{
	return 42;
}

int kfit_sample_two(int x, long y)
{
	return x + y;
}

int kfit_sample_three(struct kfit_sample *s, int x, long y)
{
	return s->a + s->c + s->e + s->g + x + y;
}
