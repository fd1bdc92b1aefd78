/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_TARGET_H
#define KFIT_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include "kfit/args.h"
#include "argfmt.h"

/*
 * The TARGET grammar of the function tools (funcdur, callgraph):
 *   FUNC or GLOB		kernel functions ('vfs_*'), aliases (do_fork)
 *   sys:NAME or sys:GLOB	system calls, through their tracepoints
 *   BINARY:FUNC, LIB:FUNC	user functions (GLOB allowed), uprobes
 * Kernel functions that cannot be traced are kept aside with the reason
 * (not in available_filter_functions, not in BTF, on the deny list), and
 * so are user functions with no normal return (_start, exit: utarget.h).
 */
enum kfit_targets_kind { KFIT_TARGETS_KERNEL, KFIT_TARGETS_USER, KFIT_TARGETS_SYS };

/* An argument a function's calls capture (src/live/args.c) */
struct kfit_targets_arg {
	char *label;		/* as written, without its ':type': "file->f_pos" */
	struct kfit_arg_spec spec;	/* src NONE: this function has no such parameter */
	unsigned int enum_id;	/* a kernel enum's BTF id: values by name */
	__u64 enum_die;		/* a user enum's DWARF DIE (in the function's binary) */
	bool is_bool;
};

struct kfit_targets_func {
	char *name;		/* as reported: "vfs_read", "sys:read", "malloc" */
	enum kfit_targets_kind kind;
	char *path;		/* KFIT_TARGETS_USER: the binary or library; KFIT_TARGETS_SYS:
				   its tracepoints' name ("newstat" for sys:stat) */
	unsigned long long offset;	/* KFIT_TARGETS_USER: its code's file offset (an
					   IFUNC's: the implementation's) */
	bool dropped;		/* refused at attach: in skipped, not traced */
	unsigned char ret;	/* how its return value reads: KFIT_RET_* (kfit/ret.h) */
	struct kfit_targets_arg *args;	/* what 'func(a, b)' asked for */
	struct kfit_argfmt *fmt;	/* and how they print: nargs of each */
	int nargs;
};

/* Whether fn's work is the kernel's: a kernel function or a system call */
static inline bool kfit_targets_in_kernel(const struct kfit_targets_func *fn)
{
	return fn->kind != KFIT_TARGETS_USER;
}

struct kfit_targets_skipped {
	char *name;
	char *reason;
};

struct kfit_targets {
	/* set by the caller before adding */
	bool need_btf;		/* fentry will be tried: BTF decides too */
	bool no_deny;		/* trace the deny list's functions too */
	int pid;		/* user targets: prefer what this process maps */
	int max;		/* at most this many functions, 0: no limit */

	struct kfit_targets_func *funcs;
	int n;
	int nkernel, nuser, nsys;
	struct kfit_targets_skipped *skipped;
	int nskipped;
	char note[256];		/* the resolver's last note, said once */
	int *added;		/* while adding: the functions the spec named */
	int nadded;
};

/*
 * Add what spec names. Returns 0, or a negative errno after printing why:
 * -EINVAL for what the user must change (unknown name, empty glob,
 * unknown system call), -EOPNOTSUPP for what this kernel cannot trace,
 * -E2BIG past max, -ENOMEM.
 */
int kfit_targets_add(struct kfit_targets *t, const char *spec);

/*
 * Each function's return kind (ret): a system call's long; a kernel
 * function's type from BTF (0, the whole register, when it has none
 * there); a user function's from its binary's DWARF or its debug file's
 * (0, the whole register, without), never KFIT_RET_ERRNO: -errno is the
 * kernel's convention
 */
void kfit_targets_ret_kinds(struct kfit_targets *t);

/* Index of the function reported as name, or -1 */
int kfit_targets_find(const struct kfit_targets *t, const char *name);

/*
 * A trigger (--start-at, --stop-at): exactly one function, traced too.
 * Returns its index, or a negative errno after printing why.
 */
int kfit_targets_one(struct kfit_targets *t, const char *spec);

/* Record a function that cannot be traced; 0 or -ENOMEM */
int kfit_targets_skip(struct kfit_targets *t, const char *name, const char *reason);

/* Index of the first function of kind, or -1 */
int kfit_targets_first(const struct kfit_targets *t, enum kfit_targets_kind kind);

/*
 * What is traced, per kind, into buf (not those dropped at attach):
 * "3 functions (fentry)", "1 function (uprobe) and 2 system calls
 * (tracepoints)", "2 kernel functions (kprobe_multi), 1 user function
 * (uprobe) and 1 system call (tracepoint)". kmech: how the kernel
 * functions are attached. Returns buf.
 */
const char *kfit_targets_describe(const struct kfit_targets *t, const char *kmech,
				  char *buf, size_t len);

void kfit_targets_free(struct kfit_targets *t);

#endif
