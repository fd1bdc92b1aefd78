/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Arguments of a traced call, as the BPF side reads them: per function,
 * up to KFIT_ARGS_MAX values, each a parameter (or a system call's
 * tracepoint field) followed by up to KFIT_ARG_HOPS reads through
 * pointers (file->f_path.dentry), and strings read into slots of their
 * own. The loader fills one kfit_fargs per traced function from BTF,
 * tracepoint formats, DWARF or the types the user gave (src/live/args.c).
 */
#ifndef KFIT_ARGS_H
#define KFIT_ARGS_H

#include <linux/types.h>

#define KFIT_ARGS_MAX	4	/* values kept per call */
#define KFIT_PARAM_REGS	5	/* parameters read: the registers libbpf names everywhere */
#define KFIT_SYS_ARGS	6	/* a system call's: its record's words 1 to 6 */
#define KFIT_ARG_HOPS	4	/* reads through pointers per value */
#define KFIT_ARG_STRS	2	/* strings kept per call */
#define KFIT_ARG_STRLEN	64	/* bytes of a string kept, its NUL included */

enum kfit_arg_src {
	KFIT_ARG_NONE,		/* an unused slot */
	KFIT_ARG_REG,		/* the index-th parameter (0: the first) */
	KFIT_ARG_TP,		/* a tracepoint record's index-th 8-byte word after its
				   common header (a system call's argument i: word i + 1) */
};

#define KFIT_ARGF_USER		0x01	/* what it points to is user memory (tried first) */
#define KFIT_ARGF_INLINE	0x02	/* the last hop adds its offset, reads nothing:
					   a char array's address */

/*
 * The value is the parameter, then for each hop i the (size of the
 * value, last hop; else 8) bytes at value + off[i]. A string's value is
 * the address it starts at; str is its slot + 1, 0 for none.
 */
struct kfit_arg_spec {
	__u8 src;		/* enum kfit_arg_src */
	__u8 index;		/* the parameter's number, or the record's word */
	__u8 kind;		/* KFIT_RET_* of kfit/ret.h: size and sign */
	__u8 nhops;
	__u8 str;		/* the string slot + 1 */
	__u8 flags;		/* KFIT_ARGF_* */
	__u16 pad;
	__u16 off[KFIT_ARG_HOPS];
};

#define KFIT_NO_SLOT	0xff

/* One function's arguments: the loader's, indexed by function id */
struct kfit_fargs {
	struct kfit_arg_spec a[KFIT_ARGS_MAX];
	__u8 fslot[KFIT_ARGS_MAX];	/* --filter's operand k: slot, or KFIT_NO_SLOT */
	__u8 eslot[KFIT_ARGS_MAX];	/* --errors EXPR's */
	__u8 on;			/* some spec reads a value */
	__u8 nstr;			/* string slots used: the highest str */
	__u8 pad[6];
};

/* What a call's arguments were */
struct kfit_argvals {
	__u64 stamp;		/* its frame's entry time: whose they are */
	__u64 v[KFIT_ARGS_MAX];
	__u8 ok;		/* bit i: v[i] was read (a fault leaves it 0) */
	__u8 retry;		/* bit i: v[i]'s string faulted at entry: read at exit */
	__u8 pad[6];
	char s[KFIT_ARG_STRS][KFIT_ARG_STRLEN];
};

/*
 * The arguments of a stack's open calls, by frame, the outer KFIT_ARG_DEPTH
 * of them: an array entry per stack (fc_stack.slot, given in turn), so a
 * slot may come back to a new stack while an old one lives; the stamp
 * says whose a frame's values are.
 */
#define KFIT_ARG_DEPTH	8
#define KFIT_ARG_SLOTS	8192	/* a power of 2 */

struct kfit_argstack {
	struct kfit_argvals f[KFIT_ARG_DEPTH];
};

#endif
