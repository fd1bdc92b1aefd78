// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks unwound from a copy of their top and the files' call-frame
 * information (unwind.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include "elfmap.h"
#include "unwind.h"
#include "uwtable.h"

struct kfit_unwind {
	struct kfit_syms *syms;
	struct kfit_elfmap tables;	/* a file's, built at its first frame; NULL: none */
	struct kfit_unwind_stats st;
};

struct kfit_unwind *kfit_unwind_new(struct kfit_syms *s)
{
	struct kfit_unwind *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->syms = s;
	return u;
}

static void table_free(void *t)
{
	kfit_uwtable_free(t);
}

void kfit_unwind_free(struct kfit_unwind *u)
{
	if (!u)
		return;
	kfit_elfmap_free(&u->tables, table_free);
	free(u);
}

const struct kfit_unwind_stats *kfit_unwind_stats(const struct kfit_unwind *u)
{
	return &u->st;
}

/* ---- tables, by file ---------------------------------------------------------- */

/*
 * elf's table; where it has no call-frame information, its debug file's
 * .debug_frame (found as the symbolizer finds it), opened only then
 */
static struct kfit_uwtable *table_of_elf(Elf *elf, const struct kfit_elf *e)
{
	struct kfit_uwtable *t = NULL;
	Elf *debug;
	int fd = -1;

	if (kfit_uwtable_build(elf, NULL, &t) != -ENODATA || !e)
		return t;
	debug = kfit_elf_debug_open(elf, e, NULL, &fd);
	if (debug) {
		kfit_uwtable_build(elf, debug, &t);
		elf_end(debug);
	}
	if (fd >= 0)
		close(fd);
	return t;
}

/* e's table, read from its file (the vDSO's from memory) */
static struct kfit_uwtable *load(struct kfit_unwind *u, const struct kfit_elf *e)
{
	struct kfit_uwtable *t = NULL;
	const void *image;
	size_t size;
	Elf *elf;
	int fd;

	if (!strcmp(e->path, "[vdso]")) {
		image = kfit_syms_vdso_image(u->syms, &size);
		elf = image ? elf_memory((char *)image, size) : NULL;
		if (elf) {
			t = table_of_elf(elf, NULL);
			elf_end(elf);
		}
		return t;
	}
	fd = open(e->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		t = table_of_elf(elf, e);
		elf_end(elf);
	}
	close(fd);
	return t;
}

static const struct kfit_uwtable *table(struct kfit_unwind *u, const struct kfit_elf *e)
{
	struct kfit_elfmap_slot *x;
	struct kfit_uwtable *t;
	bool fresh;

	x = kfit_elfmap_get(&u->tables, e, &fresh);
	if (!x || !fresh)
		return x ? x->val : NULL;
	x->val = t = load(u, e);
	if (!t) {
		u->st.files_noinfo++;
		return NULL;
	}
	u->st.files++;
	u->st.rows += t->n;
	u->st.table_bytes += kfit_uwtable_bytes(t);
	return t;
}

/* ---- one stack --------------------------------------------------------------- */

struct regs {
	__u64 ip, sp, bp;
	bool bp_ok;		/* rbp is known */
	bool exact;		/* ip is where the thread was (not a return address) */
};

/* The word at addr of the copy: false when outside it */
static bool word(const struct kfit_ustack *in, __u64 addr, __u64 *v)
{
	if (addr < in->sp || addr - in->sp > in->len || in->len - (addr - in->sp) < 8)
		return false;
	memcpy(v, in->stack + (addr - in->sp), 8);
	return true;
}

/* A saved register, as rule r says: false with *why when it cannot be read */
static bool saved(const struct kfit_ustack *in, enum kfit_uw_reg r, __s16 off, __u64 cfa,
		  const struct regs *g, __u64 *v, enum kfit_ustop *why)
{
	__u64 base;

	switch (r) {
	case KFIT_UW_AT_CFA:
		base = cfa;
		break;
	case KFIT_UW_AT_SP:
		base = g->sp;
		break;
	case KFIT_UW_AT_BP:
		if (!g->bp_ok) {
			*why = KFIT_USTOP_RULE;
			return false;
		}
		base = g->bp;
		break;
	default:
		*why = KFIT_USTOP_RULE;
		return false;
	}
	if (word(in, base + off, v))
		return true;
	*why = KFIT_USTOP_COPY;
	return false;
}

static bool cfa_of(const struct kfit_ustack *in, const struct kfit_uw_row *r,
		   const struct regs *g, __u64 *cfa, enum kfit_ustop *why)
{
	bool bp = r->cfa == KFIT_UW_BP || r->cfa == KFIT_UW_DEREF_BP;

	if (bp && !g->bp_ok) {
		*why = KFIT_USTOP_RULE;
		return false;
	}
	switch (r->cfa) {
	case KFIT_UW_SP:
		*cfa = g->sp + r->cfa_off;
		return true;
	case KFIT_UW_BP:
		*cfa = g->bp + r->cfa_off;
		return true;
	case KFIT_UW_PLT:
		*cfa = g->sp + r->cfa_off + ((g->ip & 15) >= (__u64)r->arg ? 8 : 0);
		return true;
	case KFIT_UW_DEREF_SP:
	case KFIT_UW_DEREF_BP:
		if (word(in, (bp ? g->bp : g->sp) + r->cfa_off, cfa))
			return true;
		*why = KFIT_USTOP_COPY;
		return false;
	default:
		*why = KFIT_USTOP_RULE;
		return false;
	}
}

/* One frame up by the table's row: false with *why at the end */
static bool step_row(const struct kfit_ustack *in, const struct kfit_uw_row *r,
		     struct regs *g, enum kfit_ustop *why)
{
	__u64 cfa, ra, bp = g->bp;

	if (r->cfa == KFIT_UW_END) {
		*why = KFIT_USTOP_END;
		return false;
	}
	if (!cfa_of(in, r, g, &cfa, why) ||
	    !saved(in, r->ra, r->ra_off, cfa, g, &ra, why))
		return false;
	/*
	 * GCC's epilogues move the CFA as they pop, not the rules of what
	 * they popped: a slot below the stack pointer was popped already,
	 * and the register holds the caller's value again
	 */
	if (r->bp == KFIT_UW_AT_CFA && cfa + r->bp_off < g->sp)
		bp = g->bp;
	else if (r->bp != KFIT_UW_SAME && r->bp != KFIT_UW_UNDEF &&
		 !saved(in, r->bp, r->bp_off, cfa, g, &bp, why))
		return false;
	/* a frame below the last one, but for a signal's (the handler's own stack) */
	if (cfa <= g->sp && !r->signal) {
		*why = KFIT_USTOP_BAD;
		return false;
	}
	g->bp_ok = g->bp_ok ? r->bp != KFIT_UW_UNDEF : r->bp != KFIT_UW_SAME &&
		   r->bp != KFIT_UW_UNDEF;
	g->bp = bp;
	g->sp = cfa;
	g->ip = ra;
	g->exact = r->signal;
	return true;
}

/* Code no table covers: one frame up through rbp, while it points into the copy */
static bool step_fp(const struct kfit_ustack *in, struct regs *g, enum kfit_ustop *why)
{
	__u64 up, ra;

	if (!g->bp_ok || g->bp < g->sp || !word(in, g->bp, &up) ||
	    !word(in, g->bp + 8, &ra) || (up && up <= g->bp)) {
		*why = KFIT_USTOP_NOINFO;
		return false;
	}
	g->sp = g->bp + 16;
	g->bp = up;
	g->ip = ra;
	g->exact = false;
	return true;
}

static bool step(struct kfit_unwind *u, const struct kfit_ustack *in, struct regs *g,
		 bool *fp, enum kfit_ustop *why)
{
	const struct kfit_uwtable *t;
	const struct kfit_uw_row *r;
	const struct kfit_elf *e;
	__u64 at = g->exact ? g->ip : g->ip - 1, vaddr;
	int err;

	*fp = false;
	err = kfit_syms_locate(u->syms, in->pid, at, &e, &vaddr);
	if (err == -ENOENT) {
		*why = KFIT_USTOP_NOMAP;
		return false;
	}
	t = err ? NULL : table(u, e);
	r = t ? kfit_uwtable_find(t, vaddr) : NULL;
	if (r)
		return step_row(in, r, g, why);
	*fp = true;
	return step_fp(in, g, why);
}

int kfit_unwind(struct kfit_unwind *u, const struct kfit_ustack *in, __u64 *ips, int max,
		enum kfit_ustop *why)
{
	struct regs g = { .ip = in->ip, .sp = in->sp, .bp = in->bp, .bp_ok = true,
			  .exact = true };
	int n = 0;
	bool fp;

	u->st.stacks++;
	*why = KFIT_USTOP_DEPTH;
	if (!in->ip || !in->sp) {
		*why = KFIT_USTOP_NOREGS;
	} else {
		while (n < max) {
			ips[n++] = g.ip;
			if (!step(u, in, &g, &fp, why))
				break;
			/* a return address of 0 ends some hand-made outermost frames */
			if (!g.ip) {
				*why = KFIT_USTOP_END;
				break;
			}
			u->st.fp_frames += fp;
		}
	}
	u->st.frames += n;
	return n;
}
