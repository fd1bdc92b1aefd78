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

/* Return types, for kfit_btf_func_ret */
typedef long kfit_sample_ssize;
enum kfit_sample_state { KFIT_SAMPLE_ON, KFIT_SAMPLE_OFF };

kfit_sample_ssize kfit_sample_ret_long(long x)
{
	return x;
}

unsigned int kfit_sample_ret_uint(unsigned int x)
{
	return x;
}

const struct kfit_sample *kfit_sample_ret_ptr(const struct kfit_sample *s)
{
	return s;
}

_Bool kfit_sample_ret_bool(int x)
{
	return x > 0;
}

short kfit_sample_ret_short(short x)
{
	return x;
}

enum kfit_sample_state kfit_sample_ret_enum(int x)
{
	return x ? KFIT_SAMPLE_ON : KFIT_SAMPLE_OFF;
}

void kfit_sample_ret_void(int *x)
{
	*x = 1;
}

/* Arguments by name, for kfit_btf_arg: btf_sample.h's structures */
#include "btf_sample.h"

/*
 * First: clang would put kfit_arg_leaf behind kfit_arg_inner's pointer
 * as a declaration only (FWD), where the kernel's BTF has its body
 */
long kfit_arg_leaf_fn(struct kfit_arg_leaf *leaf)
{
	return leaf->pad;
}

int kfit_arg_fn(struct kfit_arg_outer *o, const char *s, enum kfit_arg_color c,
		_Bool b, struct kfit_arg_leaf *leaf)
{
	return o->c + o->in.x + s[0] + c + b + leaf->tag[0] + o->in.leaf->label[0];
}

int kfit_arg_big_fn(struct kfit_arg_big *big)
{
	return big->b.z + big->near;
}
