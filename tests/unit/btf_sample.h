/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Structures whose layout the compiler knows two ways: btf_sample.bpf.c
 * (clang -target bpf) puts them in BTF, test_btf.c (the host's compiler)
 * takes their offsets with offsetof(), against what kfit_btf_arg finds.
 * Both targets are LP64: the same layout.
 */
#ifndef KFIT_BTF_SAMPLE_H
#define KFIT_BTF_SAMPLE_H

/* The kernel's __user: a type tag clang puts in BTF; nothing elsewhere */
#if defined(__clang__) && defined(__BPF__)
#define KFIT_SAMPLE_USER __attribute__((btf_type_tag("user")))
#define KFIT_SAMPLE_PERCPU __attribute__((btf_type_tag("percpu")))
#else
#define KFIT_SAMPLE_USER
#define KFIT_SAMPLE_PERCPU
#endif

enum kfit_arg_color { KFIT_ARG_RED = 1, KFIT_ARG_BLUE = 7 };
typedef enum kfit_arg_color kfit_arg_color_t;

struct kfit_arg_leaf {
	long pad;
	struct kfit_arg_leaf *next;
	const char *label;			/* a string through a pointer */
	char tag[12];				/* a string in the structure */
	unsigned int count;
};

struct kfit_arg_inner {
	int x;
	short y;
	struct kfit_arg_leaf *leaf;		/* a pointer to another structure */
};

struct kfit_arg_outer {
	char c;
	struct kfit_arg_inner in;		/* nested */
	union {					/* anonymous */
		long u_long;
		struct {
			int u_a;
			int u_b;
		};
	};
	unsigned int flag : 3;			/* bit fields */
	unsigned int level : 5;
	enum kfit_arg_color color;
	_Bool on;
	kfit_arg_color_t tint;			/* an enum behind a typedef */
	const char KFIT_SAMPLE_USER *ubuf;	/* a __user string */
	char KFIT_SAMPLE_PERCPU *pcpu;		/* another tag: not __user */
	char name[20];				/* a char array at the end */
};

/* Past what a hop's 16-bit offset holds, in two steps each within it */
struct kfit_arg_big {
	char pad[40000];
	struct {
		char pad2[40000];
		int z;
	} b;
	int near;
};

#endif
