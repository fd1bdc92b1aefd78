// SPDX-License-Identifier: GPL-2.0
/*
 * Unwind tables from call-frame information (uwtable.h). libdw runs each
 * function's CFA program (remember/restore state, advance_loc...); what
 * is kept is the rule at each address where it changes, in the shapes
 * x86_64 compilers and glibc's hand-written CFI use.
 */
#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdw.h>
#include "elfsyms.h"
#include "uwtable.h"

/* DWARF register numbers of x86_64 */
#define R_BP	6
#define R_SP	7
#define R_RA	16

struct builder {
	struct kfit_uw_row *rows;
	size_t n, cap;
	__u64 *starts;		/* FDE start addresses */
	size_t nstarts, scap;
	__u64 base;
	size_t nother;
};

static int push_start(struct builder *b, __u64 addr)
{
	__u64 *v;

	if (b->nstarts == b->scap) {
		b->scap = b->scap ? 2 * b->scap : 1024;
		v = realloc(b->starts, b->scap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		b->starts = v;
	}
	b->starts[b->nstarts++] = addr;
	return 0;
}

/* ---- the functions described: their start addresses ------------------------ */

static __u64 get_u(const unsigned char *p, int n)
{
	__u64 v = 0;
	int i;

	for (i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The bytes of a pointer encoded as enc (DW_EH_PE_*'s low half), 0: not handled */
static const int eh_size[16] = { [0x0] = 8, [0x2] = 2, [0x3] = 4, [0x4] = 8,
				 [0xa] = 2, [0xb] = 4, [0xc] = 8 };

/*
 * A pointer of .eh_frame_hdr encoded as enc (DW_EH_PE_*), at p (address
 * at): its value and size, or -EINVAL for an encoding not handled
 */
static int eh_ptr(const unsigned char *p, const unsigned char *end, __u8 enc,
		  __u64 at, __u64 hdr, __u64 *val, int *len)
{
	int n = eh_size[enc & 0xf];
	__u64 v;

	if (!n || p + n > end)
		return -EINVAL;
	v = get_u(p, n);
	if ((enc & 0xf) == 0xb)
		v = (__u64)(__s64)(__s32)v;
	else if ((enc & 0xf) == 0xa)
		v = (__u64)(__s64)(__s16)v;
	switch (enc & 0x70) {
	case 0x00:
		break;
	case 0x10:		/* pcrel */
		v += at;
		break;
	case 0x30:		/* datarel: from the header */
		v += hdr;
		break;
	default:
		return -EINVAL;
	}
	*val = v;
	*len = n;
	return 0;
}

/* .eh_frame_hdr's search table: every FDE's start, sorted by the linker */
static int starts_of_hdr(Elf *elf, struct builder *b)
{
	Elf_Scn *scn = kfit_elf_section(elf, ".eh_frame_hdr");
	const unsigned char *h, *p, *end;
	__u64 hdr, v, count, i;
	Elf_Data *d;
	GElf_Shdr sh;
	int len;

	if (!scn || !gelf_getshdr(scn, &sh) || !(d = elf_getdata(scn, NULL)) ||
	    d->d_size < 4 || !d->d_buf)
		return -ENOENT;
	h = d->d_buf;
	end = h + d->d_size;
	hdr = sh.sh_addr;
	/* version 1; h[1]: eh_frame_ptr's encoding, h[2]: the count's, h[3]: the table's */
	if (h[0] != 1 || h[3] == 0xff)
		return -EINVAL;
	p = h + 4;
	if (eh_ptr(p, end, h[1], hdr + (p - h), hdr, &v, &len))
		return -EINVAL;
	p += len;
	if (eh_ptr(p, end, h[2], hdr + (p - h), hdr, &count, &len))
		return -EINVAL;
	p += len;
	for (i = 0; i < count; i++) {
		/* (start, FDE address) pairs: the address is not needed */
		if (eh_ptr(p, end, h[3], hdr + (p - h), hdr, &v, &len) || p + 2 * len > end)
			return -EINVAL;
		if (push_start(b, v))
			return -ENOMEM;
		p += 2 * len;
	}
	return 0;
}

/* A CIE's offset and how its FDEs encode their initial location */
struct cie_enc {
	Dwarf_Off off;
	__u8 enc;
};

/*
 * The FDE pointer encoding of a CIE: its augmentation's 'R' (.eh_frame),
 * else an absolute address (.debug_frame)
 */
static __u8 fde_encoding(const Dwarf_CIE *c)
{
	const __u8 *p = c->augmentation_data, *end = p + c->augmentation_data_size;
	const char *a = c->augmentation;

	if (!a || a[0] != 'z' || !p)
		return 0;
	for (a++; *a && p < end; a++) {
		switch (*a) {
		case 'R':
			return *p;
		case 'P':
			p += 1 + eh_size[*p & 0xf];
			break;
		case 'L':
			p++;
			break;
		}
	}
	return 0;
}

static int find_enc(const struct cie_enc *v, size_t n, Dwarf_Off off)
{
	size_t i;

	for (i = n; i-- > 0;)
		if (v[i].off == off)
			return v[i].enc;
	return -1;
}

/*
 * The FDEs of a CFI section read in order, where no search table lists
 * them: .debug_frame, and .eh_frame of static programs (linked without
 * --eh-frame-hdr)
 */
static int starts_of_section(Elf *elf, const char *name, bool eh, struct builder *b)
{
	Elf_Scn *scn = kfit_elf_section(elf, name);
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	const unsigned char *base, *end;
	struct cie_enc *cies = NULL, *v;
	size_t ncies = 0, cap = 0;
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	Elf_Data *d;
	GElf_Shdr sh;
	__u64 start;
	int enc, len, err = 0;

	if (!scn || !ident || !gelf_getshdr(scn, &sh) || !(d = elf_getdata(scn, NULL)) ||
	    !d->d_buf)
		return -ENOENT;
	base = d->d_buf;
	end = base + d->d_size;
	while (!err && dwarf_next_cfi(ident, d, eh, off, &next, &e) == 0) {
		if (dwarf_cfi_cie_p(&e)) {
			if (ncies == cap) {
				cap = cap ? 2 * cap : 16;
				v = realloc(cies, cap * sizeof(*v));
				if (!v) {
					err = -ENOMEM;
					break;
				}
				cies = v;
			}
			cies[ncies++] = (struct cie_enc){ off, eh ? fde_encoding(&e.cie) : 0 };
		} else if ((enc = find_enc(cies, ncies, e.fde.CIE_pointer)) >= 0 &&
			   !eh_ptr(e.fde.start, end, enc, sh.sh_addr + (e.fde.start - base), 0,
				   &start, &len)) {
			err = push_start(b, start);
		}
		off = next;
	}
	free(cies);
	return err;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* ---- one row ------------------------------------------------------------------ */

static bool breg(const Dwarf_Op *op, int *reg, __s64 *off)
{
	if (op->atom == DW_OP_bregx) {
		*reg = op->number;
		*off = (__s64)op->number2;
		return true;
	}
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (__s64)op->number;
		return true;
	}
	return false;
}

static bool fits16(__s64 v)
{
	return v >= -32768 && v <= 32767;
}

/* glibc's and binutils' PLT rule: rsp + 8 + ((rip & 15) >= N) << 3 */
static bool plt_rule(const Dwarf_Op *o, size_t n, struct kfit_uw_row *r)
{
	int reg;
	__s64 off, rip;

	if (n != 9 || !breg(&o[0], &reg, &off) || reg != R_SP ||
	    !breg(&o[1], &reg, &rip) || reg != R_RA || rip ||
	    o[2].atom != DW_OP_lit15 || o[3].atom != DW_OP_and ||
	    o[4].atom < DW_OP_lit0 || o[4].atom > DW_OP_lit31 || o[5].atom != DW_OP_ge ||
	    o[6].atom != DW_OP_lit3 || o[7].atom != DW_OP_shl || o[8].atom != DW_OP_plus)
		return false;
	r->cfa = KFIT_UW_PLT;
	r->cfa_off = off;
	r->arg = o[4].atom - DW_OP_lit0;
	return true;
}

static void cfa_rule(Dwarf_Frame *f, struct kfit_uw_row *r)
{
	Dwarf_Op *o;
	size_t n;
	__s64 off;
	int reg;

	r->cfa = KFIT_UW_OTHER;
	if (dwarf_frame_cfa(f, &o, &n) || !n)
		return;
	if (plt_rule(o, n, r))
		return;
	if (!breg(&o[0], &reg, &off) || (reg != R_SP && reg != R_BP) || !fits16(off))
		return;
	if (n == 1)
		r->cfa = reg == R_SP ? KFIT_UW_SP : KFIT_UW_BP;
	else if (n == 2 && o[1].atom == DW_OP_deref)
		r->cfa = reg == R_SP ? KFIT_UW_DEREF_SP : KFIT_UW_DEREF_BP;
	else
		return;
	r->cfa_off = off;
}

/*
 * Where register regno of the caller is: libdw gives "same value" as no
 * ops, "undefined" as none in ops_mem, "offset(N)" as CFA; plus_uconst N,
 * and an expression (evaluated with the CFA pushed first) as written
 */
static enum kfit_uw_reg reg_rule(Dwarf_Frame *f, int regno, __s16 *off)
{
	Dwarf_Op mem[3], *o;
	size_t n;
	__s64 v = 0;
	int reg;

	*off = 0;
	if (dwarf_frame_register(f, regno, mem, &o, &n))
		return KFIT_UW_UNDEF;
	if (!n)
		return o ? KFIT_UW_UNDEF : KFIT_UW_SAME;
	if (o[0].atom != DW_OP_call_frame_cfa)
		return KFIT_UW_UNDEF;
	if (n == 1)
		return KFIT_UW_AT_CFA;
	if (n == 2 && o[1].atom == DW_OP_plus_uconst) {
		v = (__s64)o[1].number;
		if (!fits16(v))
			return KFIT_UW_UNDEF;
		*off = v;
		return KFIT_UW_AT_CFA;
	}
	if (n == 2 && breg(&o[1], &reg, &v) && fits16(v) && (reg == R_SP || reg == R_BP)) {
		*off = v;
		return reg == R_SP ? KFIT_UW_AT_SP : KFIT_UW_AT_BP;
	}
	return KFIT_UW_UNDEF;
}

static void row_of(Dwarf_Frame *f, bool signal, struct kfit_uw_row *r)
{
	enum kfit_uw_reg ra;

	memset(r, 0, sizeof(*r));
	r->signal = signal;
	cfa_rule(f, r);
	r->bp = reg_rule(f, R_BP, &r->bp_off);
	ra = reg_rule(f, R_RA, &r->ra_off);
	if (ra == KFIT_UW_UNDEF && r->cfa != KFIT_UW_OTHER) {
		/* _start and clone mark the return address undefined: the end */
		r->cfa = KFIT_UW_END;
		return;
	}
	if (ra != KFIT_UW_AT_CFA && ra != KFIT_UW_AT_SP)
		r->cfa = KFIT_UW_OTHER;
	r->ra = ra;
}

static bool same_rule(const struct kfit_uw_row *a, const struct kfit_uw_row *b)
{
	return a->cfa == b->cfa && a->bp == b->bp && a->ra == b->ra &&
	       a->signal == b->signal && a->cfa_off == b->cfa_off &&
	       a->bp_off == b->bp_off && a->ra_off == b->ra_off && a->arg == b->arg;
}

static int push_row(struct builder *b, __u64 addr, const struct kfit_uw_row *r)
{
	struct kfit_uw_row *v;

	if (b->n && same_rule(&b->rows[b->n - 1], r))
		return 0;
	if (b->n && b->rows[b->n - 1].pc == addr - b->base) {
		b->rows[b->n - 1] = *r;
		b->rows[b->n - 1].pc = addr - b->base;
		return 0;
	}
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 4096;
		v = realloc(b->rows, b->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		b->rows = v;
	}
	b->rows[b->n] = *r;
	b->rows[b->n++].pc = addr - b->base;
	if (r->cfa == KFIT_UW_OTHER)
		b->nother++;
	return 0;
}

/*
 * The rows of the functions from start on, while one follows another
 * without a gap: up to where no FDE covers (a NONE row there)
 */
static int walk(Dwarf_CFI *cfi, struct builder *b, __u64 start, __u64 limit, __u64 *until)
{
	struct kfit_uw_row r, none = { .cfa = KFIT_UW_NONE };
	Dwarf_Addr addr = start, lo, hi;
	Dwarf_Frame *f;
	bool signal;
	int err;

	while (addr < limit) {
		if (dwarf_cfi_addrframe(cfi, addr, &f))
			break;
		if (dwarf_frame_info(f, &lo, &hi, &signal) < 0 || hi <= addr) {
			free(f);
			break;
		}
		row_of(f, signal, &r);
		free(f);
		err = push_row(b, addr, &r);
		if (err)
			return err;
		addr = hi;
	}
	*until = addr;
	return push_row(b, addr, &none);
}

static int fill(Dwarf_CFI *cfi, struct builder *b)
{
	__u64 until = 0, limit;
	size_t i;
	int err;

	qsort(b->starts, b->nstarts, sizeof(*b->starts), cmp_u64);
	b->base = b->nstarts ? b->starts[0] : 0;
	limit = b->base + UINT32_MAX;
	for (i = 0; i < b->nstarts; i++) {
		if (b->starts[i] < until || b->starts[i] >= limit)
			continue;
		err = walk(cfi, b, b->starts[i], limit, &until);
		if (err)
			return err;
	}
	return 0;
}

static int build(Elf *elf, bool eh, struct builder *b)
{
	Dwarf_CFI *cfi = NULL;
	Dwarf *dw = NULL;
	int err;

	err = eh ? starts_of_hdr(elf, b) : starts_of_section(elf, ".debug_frame", false, b);
	if (err == -ENOENT && eh)
		err = starts_of_section(elf, ".eh_frame", true, b);
	if (err)
		return err;
	if (eh) {
		cfi = dwarf_getcfi_elf(elf);
	} else {
		dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		cfi = dw ? dwarf_getcfi(dw) : NULL;
	}
	if (!cfi) {
		if (dw)
			dwarf_end(dw);
		return -ENOENT;
	}
	err = fill(cfi, b);
	if (eh)
		dwarf_cfi_end(cfi);
	if (dw)
		dwarf_end(dw);
	return err;
}

static void builder_reset(struct builder *b)
{
	free(b->rows);
	free(b->starts);
	memset(b, 0, sizeof(*b));
}

int kfit_uwtable_build(Elf *elf, Elf *debug, struct kfit_uwtable **out)
{
	struct builder b = { 0 };
	struct kfit_uwtable *t;
	const char *section = ".eh_frame";
	int err;

	*out = NULL;
	err = build(elf, true, &b);
	if (err && err != -ENOMEM) {
		builder_reset(&b);
		section = ".debug_frame";
		err = build(elf, false, &b);
		if (err && err != -ENOMEM && debug) {
			builder_reset(&b);
			err = build(debug, false, &b);
		}
	}
	if (!err && !b.n)
		err = -ENODATA;
	t = err ? NULL : calloc(1, sizeof(*t));
	if (!t) {
		builder_reset(&b);
		return err == -ENOENT || err == -EINVAL ? -ENODATA : err ? err : -ENOMEM;
	}
	t->base = b.base;
	t->rows = b.rows;
	t->n = b.n;
	t->section = section;
	t->nfdes = b.nstarts;
	t->nother = b.nother;
	free(b.starts);
	*out = t;
	return 0;
}

void kfit_uwtable_free(struct kfit_uwtable *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t);
}

const struct kfit_uw_row *kfit_uwtable_find(const struct kfit_uwtable *t, __u64 addr)
{
	size_t lo = 0, hi = t->n, mid;
	__u64 pc;

	if (addr < t->base || addr - t->base > UINT32_MAX)
		return NULL;
	pc = addr - t->base;
	/* the last row at or below pc */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || t->rows[lo - 1].cfa == KFIT_UW_NONE)
		return NULL;
	return &t->rows[lo - 1];
}

size_t kfit_uwtable_bytes(const struct kfit_uwtable *t)
{
	return t ? sizeof(*t) + t->n * sizeof(*t->rows) : 0;
}
