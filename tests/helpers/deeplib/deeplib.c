// SPDX-License-Identifier: GPL-2.0
/*
 * libdeeplib.so: the shared library deepstack's "lib" scenario calls
 * through, built as deepstack is (-O2 -fomit-frame-pointer): its frames
 * lie between the program's, and it calls back into the program.
 */
typedef unsigned long (*dl_back_fn)(unsigned long);

__attribute__((noipa)) unsigned long dl_two(unsigned long x, dl_back_fn back)
{
	unsigned long r = back(x + 2);

	asm volatile("" : "+r"(r));
	return r ^ x;
}

__attribute__((noipa)) unsigned long dl_one(unsigned long x, dl_back_fn back)
{
	unsigned long r = dl_two(x + 1, back);

	asm volatile("" : "+r"(r));
	return r ^ x;
}

__attribute__((noipa)) unsigned long dl_enter(unsigned long x, dl_back_fn back)
{
	unsigned long r = dl_one(x, back);

	asm volatile("" : "+r"(r));
	return r ^ x;
}
