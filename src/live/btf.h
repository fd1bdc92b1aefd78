/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_BTF_H
#define KFIT_BTF_H

#include <stdbool.h>
#include <stddef.h>

struct btf;
struct kfit_argpath;

/* The running kernel's BTF (cached; NULL with errno when there is none) */
struct btf *kfit_btf_vmlinux(void);
/* Number of parameters of function name in btf, or a negative errno */
int kfit_btf_func_nargs(const struct btf *btf, const char *name);
bool kfit_btf_has_func(const struct btf *btf, const char *name);
/* Does struct sname have member field? (for run-time feature checks) */
bool kfit_btf_has_field(const struct btf *btf, const char *sname, const char *field);
/*
 * How function name's return value reads (KFIT_RET_*, kfit/ret.h): the
 * size and sign of an integer, a pointer, void; -errno when btf has no
 * such function
 */
int kfit_btf_func_ret(const struct btf *btf, const char *name);
/*
 * How one argument of func reads (argpath.h, from BTF): the path seg[0]
 * (a parameter of func), then seg[i] reached by '->' (arrow[i]) or '.'.
 * 0, or -errno with the reason in err (-ENOENT: no such parameter).
 */
int kfit_btf_arg(const struct btf *btf, const char *func, const char *const *seg,
		 const bool *arrow, int nseg, struct kfit_argpath *a, char *err, size_t errlen);
/* The index of func's parameter name, or -errno (-ENOENT: none so named) */
int kfit_btf_func_param(const struct btf *btf, const char *func, const char *name);
/* func's parameters' names, "file, buf, count, pos", into buf: 0 or -errno */
int kfit_btf_func_params(const struct btf *btf, const char *func, char *buf, size_t len);
/* Number of kernel modules exposing BTF under /sys/kernel/btf */
int kfit_btf_module_count(void);

#endif
