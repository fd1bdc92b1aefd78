/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_DEBUGINFO_H
#define KFIT_DEBUGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <libelf.h>
#include <linux/types.h>

/*
 * What DWARF knows that the symbol tables do not (libdw): which functions
 * never return (DW_AT_noreturn, on the definition or on the declaration
 * it completes), so that no return probe goes on them; and the types of
 * a function's parameters and return value (debuginfo_params.c).
 */

/* Whether elf holds DWARF (.debug_info, compressed or not) */
bool kfit_debuginfo_present(Elf *elf);

/*
 * The entry addresses (DW_AT_low_pc, link-time, as st_value) of the
 * functions elf's DWARF says never return, sorted and unique, into
 * *addrs (malloc'd, NULL when none) and *n. DWARF that libdw cannot read
 * gives none, not an error: 0, or -ENOMEM.
 */
int kfit_debuginfo_noreturn(Elf *elf, __u64 **addrs, size_t *n);

/* One parameter of a function, as DWARF types it */
struct kfit_uparam {
	char *name;		/* NULL if unnamed */
	char *type;		/* as C spells it: "size_t", "const char *", "struct foo *" */
	unsigned char kind;	/* KFIT_RET_* of include/kfit/ret.h: size 1/2/4/8, SIGNED, PTR; 0 if not a scalar (struct by value, float) */
	bool is_str;		/* char * or const char * (any cv, typedefs resolved) */
};

/*
 * Function func's parameters in the ELF file path, from its DWARF or that
 * of its separate debug file (build-id under /usr/lib/debug/.build-id, or
 * .gnu_debuglink): *out malloc'd, returns their number (>= 0), or -ENOENT
 * (no such function in the DWARF), -ENODATA (no DWARF at all), -ENOMEM.
 * ret_kind, if not NULL: the return type's KFIT_RET_* (KFIT_RET_VOID for void).
 *
 * Of several definitions (a static function in two CUs, an inline one's
 * out-of-line copies) the one at the address of func's symbol, else the
 * lowest; a clone (func.isra.0) by its symbol's address. A variadic
 * function's named parameters only. KFIT_RET_ERRNO is never set: -errno
 * is the kernel's convention, not a user function's. *out is NULL when
 * there are none; a file that cannot be read gives the open's error.
 */
int kfit_dwarf_func_params(const char *path, const char *func,
			   struct kfit_uparam **out, unsigned char *ret_kind);
void kfit_uparams_free(struct kfit_uparam *p, int n);

/*
 * The same for many functions of one file, its DWARF read once: open
 * (0, the open's error, -ENODATA, -ENOMEM), look up, close. An Elf in
 * memory (the fuzzer's) is looked up without symbols or debug file; it
 * must outlive the handle.
 */
struct kfit_dwarf;

int kfit_dwarf_open(const char *path, struct kfit_dwarf **out);
int kfit_dwarf_open_elf(Elf *elf, struct kfit_dwarf **out);
int kfit_dwarf_params(struct kfit_dwarf *d, const char *func,
		      struct kfit_uparam **out, unsigned char *ret_kind);
void kfit_dwarf_close(struct kfit_dwarf *d);

/*
 * How one argument of func reads (argpath.h, from DWARF): its parameter
 * seg[0], then the fields seg[i] reached by '->' (arrow[i]) or '.'. 0, or
 * -errno with the reason in err: -ENOENT no such parameter (its
 * parameters named), -ENODATA func not in the DWARF, -EINVAL a path
 * that cannot be read. Every pointer is user memory: a->user stays false.
 */
struct kfit_argpath;

int kfit_dwarf_arg(struct kfit_dwarf *d, const char *func, const char *const *seg,
		   const bool *arrow, int nseg, struct kfit_argpath *a, char *err,
		   size_t errlen);

/*
 * The values of the enum at DIE offset off (kfit_argpath.enum_die), each
 * read as kind (KFIT_RET_*: the argument's size and sign), given to fn
 * with its name: 0, fn's first error, or -ENOENT (no enum there)
 */
int kfit_dwarf_enum(struct kfit_dwarf *d, __u64 off, unsigned char kind,
		    int (*fn)(void *ctx, __s64 val, const char *name), void *ctx);

#endif
