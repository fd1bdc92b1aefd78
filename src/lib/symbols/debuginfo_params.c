// SPDX-License-Identifier: GPL-2.0
/*
 * A function's parameters and return type from DWARF, through libdw: see
 * debuginfo.h. DWARF may be hostile (a fuzzed or corrupt file): type
 * chains are cut at a depth and a budget, never followed round a cycle.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "argpath.h"
#include "debuginfo.h"
#include "elfsyms.h"
#include "kfit/ret.h"

#define MAX_PEEL	32	/* typedefs and qualifiers on one type */
#define SPELL_BUDGET	64	/* type DIEs spelled for one name */
#define MAX_NEST	8	/* namespaces within namespaces */
#define MAX_HOPS	4	/* specification/abstract_origin followed for params */

/* A DW_TAG_subprogram, by name (libdw's string, valid while dw is open) */
struct dfunc {
	const char *name;
	Dwarf_Off off;
	Dwarf_Addr lo;
	bool has_lo, decl;
};

struct kfit_dwarf {
	int fd, dfd;
	Elf *elf, *delf;	/* the file (NULL: the caller's), its debug file */
	Dwarf *dw;
	struct kfit_elf *syms;	/* where each name's symbol is (NULL: unknown) */
	struct dfunc *v;	/* by name, then address */
	struct dfunc **by_lo;	/* those with an address, by it */
	size_t n, cap, nlo;
};

/* ---- the index ---------------------------------------------------------- */

/*
 * Where die's code starts: its low_pc, or where it says it is entered;
 * else, its code in pieces (gcc's hot part and .cold part: DW_AT_ranges),
 * the first piece's start, as gdb takes it
 */
static bool entry_of(Dwarf_Die *die, Dwarf_Addr *lo)
{
	Dwarf_Addr base, end;

	if (!dwarf_lowpc(die, lo) || !dwarf_entrypc(die, lo))
		return true;
	return dwarf_ranges(die, 0, &base, lo, &end) > 0;
}

static int add_func(struct kfit_dwarf *d, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);
	struct dfunc *f;
	size_t cap;

	if (!name || !*name)
		return 0;
	if (d->n == d->cap) {
		cap = d->cap ? 2 * d->cap : 256;
		f = realloc(d->v, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		d->v = f;
		d->cap = cap;
	}
	f = &d->v[d->n++];
	f->name = name;
	f->off = dwarf_dieoffset(die);
	f->has_lo = entry_of(die, &f->lo);
	f->decl = dwarf_hasattr(die, DW_AT_declaration);
	return 0;
}

/* The subprograms among a scope's children (C's CU; C++'s namespaces too) */
static int walk(struct kfit_dwarf *d, Dwarf_Die *scope, int depth)
{
	Dwarf_Die c;
	int err = 0;

	if (depth > MAX_NEST || dwarf_child(scope, &c))
		return 0;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram:
			err = add_func(d, &c);
			break;
		case DW_TAG_namespace:
			err = walk(d, &c, depth + 1);
			break;
		}
	} while (!err && !dwarf_siblingof(&c, &c));
	return err;
}

static int cmp_name(const void *a, const void *b)
{
	const struct dfunc *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->has_lo != y->has_lo)
		return x->has_lo ? -1 : 1;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cmp_lo(const void *a, const void *b)
{
	const struct dfunc *x = *(struct dfunc *const *)a, *y = *(struct dfunc *const *)b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int build_index(struct kfit_dwarf *d)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	size_t i;
	int err = 0;

	while (!err && !dwarf_get_units(d->dw, cu, &cu, NULL, NULL, &cudie, NULL))
		err = walk(d, &cudie, 0);
	if (err || !d->n)
		return err;
	qsort(d->v, d->n, sizeof(*d->v), cmp_name);
	d->by_lo = malloc(d->n * sizeof(*d->by_lo));
	if (!d->by_lo)
		return -ENOMEM;
	for (i = 0; i < d->n; i++)
		if (d->v[i].has_lo)
			d->by_lo[d->nlo++] = &d->v[i];
	qsort(d->by_lo, d->nlo, sizeof(*d->by_lo), cmp_lo);
	return 0;
}

/* ---- opening ------------------------------------------------------------ */

static int open_dwarf(struct kfit_dwarf *d, Elf *src)
{
	if (!src || !kfit_debuginfo_present(src))
		return -ENODATA;
	d->dw = dwarf_begin_elf(src, DWARF_C_READ, NULL);
	if (!d->dw)
		return -ENODATA;
	return build_index(d);
}

static struct kfit_dwarf *new_dwarf(void)
{
	struct kfit_dwarf *d = calloc(1, sizeof(*d));

	if (d)
		d->fd = d->dfd = -1;
	return d;
}

int kfit_dwarf_open_elf(Elf *elf, struct kfit_dwarf **out)
{
	struct kfit_dwarf *d = new_dwarf();
	int err;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	err = open_dwarf(d, elf);
	if (err) {
		kfit_dwarf_close(d);
		return err;
	}
	*out = d;
	return 0;
}

int kfit_dwarf_open(const char *path, struct kfit_dwarf **out)
{
	const struct kfit_elf_opts o = { .debug = true };
	struct kfit_dwarf *d = new_dwarf();
	char msg[256];
	int err;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	/* The symbols say which of a name's definitions is the one called */
	err = kfit_elf_load(path, &o, &d->syms, msg, sizeof(msg));
	if (!err) {
		d->fd = open(path, O_RDONLY | O_CLOEXEC);
		err = d->fd < 0 ? -errno : 0;
	}
	if (!err) {
		d->elf = elf_begin(d->fd, ELF_C_READ_MMAP, NULL);
		err = d->elf ? 0 : -ENODATA;
	}
	if (!err && !kfit_debuginfo_present(d->elf))
		d->delf = kfit_elf_debug_open(d->elf, d->syms, NULL, &d->dfd);
	if (!err)
		err = open_dwarf(d, d->delf ? d->delf : d->elf);
	if (err) {
		kfit_dwarf_close(d);
		return err;
	}
	*out = d;
	return 0;
}

void kfit_dwarf_close(struct kfit_dwarf *d)
{
	if (!d)
		return;
	if (d->dw)
		dwarf_end(d->dw);
	if (d->delf)
		elf_end(d->delf);
	if (d->elf)
		elf_end(d->elf);
	if (d->dfd >= 0)
		close(d->dfd);
	if (d->fd >= 0)
		close(d->fd);
	kfit_elf_free(d->syms);
	free(d->by_lo);
	free(d->v);
	free(d);
}

/* ---- which definition --------------------------------------------------- */

static const struct dfunc *by_lo(const struct kfit_dwarf *d, Dwarf_Addr lo)
{
	size_t a = 0, b = d->nlo, m;

	while (a < b) {
		m = a + (b - a) / 2;
		if (d->by_lo[m]->lo < lo)
			a = m + 1;
		else
			b = m;
	}
	return a < d->nlo && d->by_lo[a]->lo == lo ? d->by_lo[a] : NULL;
}

/* The first entry named func (with an address first, the lowest), or d->n */
static size_t first_named(const struct kfit_dwarf *d, const char *func)
{
	size_t a = 0, b = d->n, m;

	while (a < b) {
		m = a + (b - a) / 2;
		if (strcmp(d->v[m].name, func) < 0)
			a = m + 1;
		else
			b = m;
	}
	return a < d->n && !strcmp(d->v[a].name, func) ? a : d->n;
}

/*
 * The symbol's own definition; else the out-of-line one at the lowest
 * address; else a clone at the symbol's address (func.isra.0 is func in
 * DWARF); else an abstract one; else a declaration
 */
static const struct dfunc *pick(const struct kfit_dwarf *d, const char *func)
{
	const struct kfit_elfsym *s = d->syms ? kfit_elf_by_name(d->syms, func) : NULL;
	const struct dfunc *f = NULL;
	size_t i = first_named(d, func);

	for (; i < d->n && !strcmp(d->v[i].name, func); i++) {
		if (s && d->v[i].has_lo && d->v[i].lo == s->addr)
			return &d->v[i];
		if (!f || (f->decl && !d->v[i].decl))
			f = &d->v[i];
	}
	if (f && f->has_lo)
		return f;
	if (s && by_lo(d, s->addr))
		return by_lo(d, s->addr);
	return f;
}

/* ---- types --------------------------------------------------------------- */

/* What die's DW_AT_type names, into out: out, or NULL (void) */
static Dwarf_Die *type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a))
		return NULL;
	return dwarf_formref_die(&a, out);
}

static bool is_modifier(int tag)
{
	return tag == DW_TAG_typedef || tag == DW_TAG_const_type ||
	       tag == DW_TAG_volatile_type || tag == DW_TAG_restrict_type ||
	       tag == DW_TAG_atomic_type;
}

/* t through typedefs and qualifiers, into out: 1, 0 (void), -1 (too deep) */
static int peel(Dwarf_Die *t, Dwarf_Die *out)
{
	Dwarf_Die cur;
	int i;

	if (!t)
		return 0;
	cur = *t;
	for (i = 0; i < MAX_PEEL; i++) {
		if (!is_modifier(dwarf_tag(&cur))) {
			*out = cur;
			return 1;
		}
		if (!type_of(&cur, &cur))
			return 0;
	}
	return -1;
}

static unsigned int attr_u(Dwarf_Die *die, unsigned int name)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!dwarf_attr(die, name, &a) || dwarf_formudata(&a, &w))
		return 0;
	return w;
}

static bool base_signed(Dwarf_Die *t)
{
	unsigned int enc = attr_u(t, DW_AT_encoding);

	return dwarf_tag(t) == DW_TAG_base_type &&
	       (enc == DW_ATE_signed || enc == DW_ATE_signed_char);
}

static unsigned char sized(int size)
{
	return size == 1 || size == 2 || size == 4 || size == 8 ? size : 0;
}

/* An integer's size and sign, an enum's, a pointer's; 0 for the rest */
static unsigned char kind_of(Dwarf_Die *t)
{
	unsigned int enc;
	Dwarf_Die u;
	int size;

	switch (dwarf_tag(t)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		return 8 | KFIT_RET_PTR;
	case DW_TAG_base_type:
		enc = attr_u(t, DW_AT_encoding);
		size = sized(dwarf_bytesize(t));
		if (!size)
			return 0;
		if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
			return size | KFIT_RET_SIGNED;
		if (enc == DW_ATE_unsigned || enc == DW_ATE_unsigned_char ||
		    enc == DW_ATE_boolean || enc == DW_ATE_UTF)
			return size;
		return 0;
	case DW_TAG_enumeration_type:
		/* unsigned unless its underlying type says otherwise */
		size = sized(dwarf_bytesize(t));
		if (size && peel(type_of(t, &u), &u) > 0 && base_signed(&u))
			size |= KFIT_RET_SIGNED;
		return size;
	}
	return 0;
}

/* A char * of any qualifiers and typedefs (not unsigned char *: bytes) */
static bool str_of(Dwarf_Die *t)
{
	const char *name;
	Dwarf_Die p;

	if (dwarf_tag(t) != DW_TAG_pointer_type || peel(type_of(t, &p), &p) <= 0)
		return false;
	name = dwarf_diename(&p);
	return dwarf_tag(&p) == DW_TAG_base_type && dwarf_bytesize(&p) == 1 &&
	       name && !strcmp(name, "char");
}

/* The kind of type t (NULL: void) */
static unsigned char type_kind(Dwarf_Die *t, bool *str)
{
	Dwarf_Die u;
	int r = peel(t, &u);

	if (str)
		*str = r > 0 && str_of(&u);
	if (r < 0)
		return 0;
	return r ? kind_of(&u) : KFIT_RET_VOID;
}

/* ---- types as C spells them ------------------------------------------- */

static char *spell(Dwarf_Die *t, const char *decl, int *budget);

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, f);
	n = vasprintf(&s, f, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

/* "int [4][2]"'s "[4][2]" after decl */
static char *array_decl(Dwarf_Die *t, const char *decl)
{
	char *s = strdup(decl), *n;
	Dwarf_Attribute a;
	Dwarf_Word w;
	Dwarf_Die c;
	int dims = 0;

	if (!s || dwarf_child(t, &c))
		return s;
	do {
		if (dwarf_tag(&c) != DW_TAG_subrange_type)
			continue;
		if (dwarf_attr(&c, DW_AT_count, &a) && !dwarf_formudata(&a, &w))
			n = fmt("%s[%llu]", s, (unsigned long long)w);
		else if (dwarf_attr(&c, DW_AT_upper_bound, &a) && !dwarf_formudata(&a, &w))
			n = fmt("%s[%llu]", s, (unsigned long long)w + 1);
		else
			n = fmt("%s[]", s);
		free(s);
		s = n;
	} while (s && ++dims < 8 && !dwarf_siblingof(&c, &c));
	return s;
}

/* "(int, char *)": a function type's parameters */
static char *args_of(Dwarf_Die *t, int *budget)
{
	char *s = strdup(""), *a, *n;
	Dwarf_Die c, ty;
	int tag;

	if (dwarf_child(t, &c)) {
		free(s);
		return strdup(dwarf_hasattr(t, DW_AT_prototyped) ? "(void)" : "()");
	}
	do {
		tag = dwarf_tag(&c);
		if (tag != DW_TAG_unspecified_parameters && tag != DW_TAG_formal_parameter)
			continue;
		a = tag == DW_TAG_formal_parameter ? spell(type_of(&c, &ty), "", budget) :
		    strdup("...");
		n = a && s ? fmt("%s%s%s", s, *s ? ", " : "", a) : NULL;
		free(a);
		free(s);
		s = n;
	} while (s && !dwarf_siblingof(&c, &c));
	n = s ? fmt("(%s)", s) : NULL;
	free(s);
	return n;
}

/* Pointer p (qualified by q: "const") to what decl declares */
static char *spell_ptr(Dwarf_Die *p, const char *q, const char *decl, int *budget)
{
	Dwarf_Die in, *inp = type_of(p, &in);
	char *d, *r;
	int tag = inp ? dwarf_tag(inp) : 0;
	bool wrap = tag == DW_TAG_array_type || tag == DW_TAG_subroutine_type;

	d = fmt("%s*%s%s%s%s", wrap ? "(" : "", q, *q && *decl ? " " : "", decl,
		wrap ? ")" : "");
	if (!d)
		return NULL;
	r = spell(inp, d, budget);
	free(d);
	return r;
}

static const char *qualifier(int tag)
{
	switch (tag) {
	case DW_TAG_const_type:
		return "const";
	case DW_TAG_volatile_type:
		return "volatile";
	case DW_TAG_restrict_type:
		return "restrict";
	case DW_TAG_atomic_type:
		return "_Atomic";
	}
	return NULL;
}

static const char *keyword(int tag)
{
	switch (tag) {
	case DW_TAG_structure_type:
		return "struct ";
	case DW_TAG_union_type:
		return "union ";
	case DW_TAG_enumeration_type:
		return "enum ";
	case DW_TAG_class_type:
		return "class ";
	}
	return NULL;
}

/* What a derived type declares: "*", "[4]", "(*)(int)" around decl */
static char *spell_derived(Dwarf_Die *t, int tag, const char *decl, int *budget)
{
	Dwarf_Die in, *inp = type_of(t, &in);
	const char *q = qualifier(tag);
	char *d, *r;

	if (tag == DW_TAG_pointer_type)
		return spell_ptr(t, "", decl, budget);
	if (q && inp && dwarf_tag(inp) == DW_TAG_pointer_type)
		return spell_ptr(inp, q, decl, budget);
	if (q) {
		d = spell(inp, decl, budget);
		r = d ? fmt("%s %s", q, d) : NULL;
		free(d);
		return r;
	}
	if (tag == DW_TAG_array_type) {
		d = array_decl(t, decl);
	} else {
		r = args_of(t, budget);
		d = r ? fmt("%s%s", decl, r) : NULL;
		free(r);
	}
	r = d ? spell(inp, d, budget) : NULL;
	free(d);
	return r;
}

/* gcc's names of the integers as people write them (clang's already are) */
static const char *plain_name(const char *name)
{
	static const char *const names[][2] = {
		{ "long int", "long" },
		{ "long unsigned int", "unsigned long" },
		{ "long long int", "long long" },
		{ "long long unsigned int", "unsigned long long" },
		{ "short int", "short" },
		{ "short unsigned int", "unsigned short" },
	};
	size_t i;

	for (i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i][0]))
			return names[i][1];
	return name;
}

/* Type t (NULL: void) declaring decl, as C writes it: "char *const" */
static char *spell(Dwarf_Die *t, const char *decl, int *budget)
{
	const char *sp = *decl ? " " : "", *name, *kw;
	int tag;

	if (!t)
		return fmt("void%s%s", sp, decl);
	if (--*budget < 0)
		return fmt("?%s%s", sp, decl);
	tag = dwarf_tag(t);
	if (tag == DW_TAG_pointer_type || qualifier(tag) || tag == DW_TAG_array_type ||
	    tag == DW_TAG_subroutine_type)
		return spell_derived(t, tag, decl, budget);
	name = dwarf_diename(t);
	kw = keyword(tag);
	if (kw)
		return fmt("%s%s%s%s", kw, name ? name : "{...}", sp, decl);
	if (tag == DW_TAG_base_type)
		name = plain_name(name);
	return fmt("%s%s%s", name ? name : "?", sp, decl);
}

/* ---- parameters ---------------------------------------------------------- */

static int one_param(Dwarf_Die *c, struct kfit_uparam *p)
{
	const char *name = dwarf_diename(c);
	int budget = SPELL_BUDGET;
	Dwarf_Die ty, *tp = type_of(c, &ty);

	p->name = name ? strdup(name) : NULL;
	p->type = spell(tp, "", &budget);
	p->kind = type_kind(tp, &p->is_str);
	if (p->kind == KFIT_RET_VOID)	/* no parameter is void: bad DWARF */
		p->kind = 0;
	return (name && !p->name) || !p->type ? -ENOMEM : 0;
}

/* die's formal parameters (up to a "...") into *out: their number */
static int params_of(Dwarf_Die *die, struct kfit_uparam **out)
{
	struct kfit_uparam *v = NULL, *nv;
	int n = 0, err = 0;
	Dwarf_Die c;

	if (dwarf_child(die, &c))
		return 0;
	do {
		if (dwarf_tag(&c) == DW_TAG_unspecified_parameters)
			break;
		if (dwarf_tag(&c) != DW_TAG_formal_parameter)
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			err = -ENOMEM;
			break;
		}
		v = nv;
		memset(&v[n], 0, sizeof(*v));
		err = one_param(&c, &v[n++]);
	} while (!err && !dwarf_siblingof(&c, &c));
	if (err) {
		kfit_uparams_free(v, n);
		return err;
	}
	*out = v;
	return n;
}

/* Whether die lists its parameters itself (or says it has none: "...") */
static bool lists_params(Dwarf_Die *die)
{
	Dwarf_Die c;
	int tag;

	if (dwarf_child(die, &c))
		return false;
	do {
		tag = dwarf_tag(&c);
		if (tag == DW_TAG_formal_parameter || tag == DW_TAG_unspecified_parameters)
			return true;
	} while (!dwarf_siblingof(&c, &c));
	return false;
}

/* A definition without them: its declaration's, or its abstract origin's */
static void params_die(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die o;
	int i;

	for (i = 0; i < MAX_HOPS && !lists_params(die); i++) {
		if (!dwarf_attr(die, DW_AT_abstract_origin, &a) &&
		    !dwarf_attr(die, DW_AT_specification, &a))
			return;
		if (!dwarf_formref_die(&a, &o))
			return;
		*die = o;
	}
}

int kfit_dwarf_params(struct kfit_dwarf *d, const char *func,
		      struct kfit_uparam **out, unsigned char *ret_kind)
{
	const struct dfunc *f = pick(d, func);
	Dwarf_Die die, ty;

	*out = NULL;
	if (!f || !dwarf_offdie(d->dw, f->off, &die))
		return -ENOENT;
	if (ret_kind)
		*ret_kind = type_kind(type_of(&die, &ty), NULL);
	params_die(&die);
	return params_of(&die, out);
}

int kfit_dwarf_func_params(const char *path, const char *func,
			   struct kfit_uparam **out, unsigned char *ret_kind)
{
	struct kfit_dwarf *d;
	int n;

	*out = NULL;
	n = kfit_dwarf_open(path, &d);
	if (n)
		return n;
	n = kfit_dwarf_params(d, func, out, ret_kind);
	kfit_dwarf_close(d);
	return n;
}

void kfit_uparams_free(struct kfit_uparam *p, int n)
{
	int i;

	for (i = 0; p && i < n; i++) {
		free(p[i].name);
		free(p[i].type);
	}
	free(p);
}

/* ---- fields through pointers (argpath.h's walk over DWARF) -------------- */

/* Where the walk is: the current type (void: none) */
struct walk {
	struct kfit_dwarf *d;
	Dwarf_Die type;
	bool is_void;
};

static bool is_composite(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

/* The current type through typedefs and qualifiers, into out: as peel() */
static int w_peel(struct walk *w, Dwarf_Die *out)
{
	return w->is_void ? 0 : peel(&w->type, out);
}

/* w's type becomes what die's DW_AT_type names */
static void w_go(struct walk *w, Dwarf_Die *die)
{
	w->is_void = !type_of(die, &w->type);
}

static bool w_deref(void *ctx)
{
	struct walk *w = ctx;
	Dwarf_Die u;

	if (w_peel(w, &u) <= 0 || dwarf_tag(&u) != DW_TAG_pointer_type)
		return false;
	w_go(w, &u);
	return true;
}

/* A definition of declaration decl's tag and name, among the top of each CU */
static bool definition_of(struct kfit_dwarf *d, Dwarf_Die *decl, Dwarf_Die *out)
{
	const char *name = dwarf_diename(decl), *n;
	int tag = dwarf_tag(decl);
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, c;

	if (!name)
		return false;
	while (!dwarf_get_units(d->dw, cu, &cu, NULL, NULL, &cudie, NULL)) {
		if (dwarf_child(&cudie, &c))
			continue;
		do {
			n = dwarf_tag(&c) == tag ? dwarf_diename(&c) : NULL;
			if (n && !strcmp(n, name) && !dwarf_hasattr(&c, DW_AT_declaration)) {
				*out = c;
				return true;
			}
		} while (!dwarf_siblingof(&c, &c));
	}
	return false;
}

/* "struct _IO_FILE", "union (anonymous)"; a declaration's definition found */
static int w_composite(void *ctx, char *buf, size_t len)
{
	struct walk *w = ctx;
	const char *kw, *name;
	Dwarf_Die u;

	if (w_peel(w, &u) <= 0 || !is_composite(dwarf_tag(&u)))
		return 0;
	kw = keyword(dwarf_tag(&u));
	name = dwarf_diename(&u);
	snprintf(buf, len, "%s%s", kw, name ? name : "(anonymous)");
	if (dwarf_hasattr(&u, DW_AT_declaration) && !definition_of(w->d, &u, &u))
		return -1;
	/* member() and members() start from it */
	w->type = u;
	return 1;
}

/* A member's offset in bytes: a constant, or DW_OP_plus_uconst (old DWARF) */
static int member_offset(Dwarf_Die *m, Dwarf_Word *off)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	*off = 0;
	if (!dwarf_attr(m, DW_AT_data_member_location, &a))
		return 0;	/* a union's: at its start */
	if (!dwarf_formudata(&a, off))
		return 0;
	if (dwarf_getlocation(&a, &ops, &n) || n != 1 || ops[0].atom != DW_OP_plus_uconst)
		return -1;
	*off = ops[0].number;
	return 0;
}

/* Member field of composite t (anonymous ones searched): *bits from t's start */
static bool find_member(Dwarf_Die *t, const char *field, Dwarf_Die *out, __u64 *bits,
			bool *bitfield, int depth)
{
	Dwarf_Die c, u;
	Dwarf_Word off;
	const char *name;

	if (dwarf_child(t, &c))
		return false;
	do {
		if (dwarf_tag(&c) != DW_TAG_member || member_offset(&c, &off))
			continue;
		name = dwarf_diename(&c);
		if (name && !strcmp(name, field)) {
			*out = c;
			*bitfield = dwarf_hasattr(&c, DW_AT_bit_size);
			*bits = dwarf_hasattr(&c, DW_AT_data_bit_offset) ?
				attr_u(&c, DW_AT_data_bit_offset) : off * 8;
			return true;
		}
		if (name || depth >= MAX_NEST || peel(type_of(&c, &u), &u) <= 0 ||
		    !is_composite(dwarf_tag(&u)))
			continue;
		if (find_member(&u, field, out, bits, bitfield, depth + 1)) {
			*bits += off * 8;
			return true;
		}
	} while (!dwarf_siblingof(&c, &c));
	return false;
}

static int w_member(void *ctx, const char *field, __u64 *bits, bool *bitfield)
{
	struct walk *w = ctx;
	Dwarf_Die m;

	if (!find_member(&w->type, field, &m, bits, bitfield, 0))
		return -ENOENT;
	w_go(w, &m);
	return 0;
}

static void list_members(Dwarf_Die *t, char *buf, size_t len, int depth)
{
	const char *name;
	Dwarf_Die c, u;

	if (dwarf_child(t, &c))
		return;
	do {
		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		name = dwarf_diename(&c);
		if (name)
			kfit_argpath_list(buf, len, name);
		else if (depth < MAX_NEST && peel(type_of(&c, &u), &u) > 0 &&
			 is_composite(dwarf_tag(&u)))
			list_members(&u, buf, len, depth + 1);
	} while (!dwarf_siblingof(&c, &c));
}

static void w_members(void *ctx, char *buf, size_t len)
{
	struct walk *w = ctx;

	list_members(&w->type, buf, len, 0);
}

/* A char array: a string in place */
static bool char_array(Dwarf_Die *t)
{
	const char *name;
	Dwarf_Die e;

	if (dwarf_tag(t) != DW_TAG_array_type || peel(type_of(t, &e), &e) <= 0)
		return false;
	name = dwarf_diename(&e);
	return dwarf_tag(&e) == DW_TAG_base_type && dwarf_bytesize(&e) == 1 && name &&
	       !strcmp(name, "char");
}

static int w_value(void *ctx, struct kfit_argpath *p)
{
	struct walk *w = ctx;
	Dwarf_Die u;

	if (w_peel(w, &u) <= 0)
		return -EINVAL;
	if (char_array(&u)) {
		p->kind = 8 | KFIT_RET_PTR;
		p->is_str = p->inline_str = true;
		return 0;
	}
	p->kind = kind_of(&u);
	p->is_str = str_of(&u);
	if (dwarf_tag(&u) == DW_TAG_enumeration_type)
		p->enum_die = dwarf_dieoffset(&u);
	p->is_bool = dwarf_tag(&u) == DW_TAG_base_type &&
		     attr_u(&u, DW_AT_encoding) == DW_ATE_boolean;
	return p->kind ? 0 : -EINVAL;
}

static const struct kfit_argpath_ops dwarf_ops = {
	.source = "DWARF",
	.deref = w_deref,
	.composite = w_composite,
	.member = w_member,
	.members = w_members,
	.value = w_value,
};

/* die's parameter name, into *out: its index, or -ENOENT (their names in names) */
static int param_named(Dwarf_Die *die, const char *name, Dwarf_Die *out, char *names,
		       size_t len)
{
	const char *pn;
	Dwarf_Die c;
	int i = 0;

	if (dwarf_child(die, &c))
		return -ENOENT;
	do {
		if (dwarf_tag(&c) == DW_TAG_unspecified_parameters)
			break;
		if (dwarf_tag(&c) != DW_TAG_formal_parameter)
			continue;
		pn = dwarf_diename(&c);
		if (pn && !strcmp(pn, name)) {
			*out = c;
			return i;
		}
		if (pn)
			kfit_argpath_list(names, len, pn);
		i++;
	} while (!dwarf_siblingof(&c, &c));
	return -ENOENT;
}

int kfit_dwarf_enum(struct kfit_dwarf *d, __u64 off, unsigned char kind,
		    int (*fn)(void *ctx, __s64 val, const char *name), void *ctx)
{
	Dwarf_Attribute a;
	Dwarf_Word u;
	Dwarf_Sword sv;
	Dwarf_Die die, c;
	const char *name;
	int err = 0, form;

	if (!dwarf_offdie(d->dw, off, &die) || dwarf_tag(&die) != DW_TAG_enumeration_type)
		return -ENOENT;
	if (dwarf_child(&die, &c))
		return 0;
	do {
		name = dwarf_diename(&c);
		if (dwarf_tag(&c) != DW_TAG_enumerator || !name ||
		    !dwarf_attr(&c, DW_AT_const_value, &a))
			continue;
		/* sdata is signed; data1..8 as the enum's size and sign read them */
		form = dwarf_whatform(&a);
		if (form == DW_FORM_sdata || form == DW_FORM_implicit_const) {
			if (dwarf_formsdata(&a, &sv))
				continue;
			u = sv;
		} else if (dwarf_formudata(&a, &u)) {
			continue;
		}
		err = fn(ctx, kfit_ret_value(u, kind), name);
	} while (!err && !dwarf_siblingof(&c, &c));
	return err;
}

int kfit_dwarf_arg(struct kfit_dwarf *d, const char *func, const char *const *seg,
		   const bool *arrow, int nseg, struct kfit_argpath *a, char *err,
		   size_t errlen)
{
	const struct dfunc *f = pick(d, func);
	struct walk w = { .d = d };
	char names[400] = "";
	Dwarf_Die die, p;

	memset(a, 0, sizeof(*a));
	if (!f || !dwarf_offdie(d->dw, f->off, &die)) {
		snprintf(err, errlen, "%s is not in the DWARF", func);
		return -ENODATA;
	}
	params_die(&die);
	a->index = param_named(&die, seg[0], &p, names, sizeof(names));
	if (a->index < 0) {
		snprintf(err, errlen, "%s has no parameter '%s'; its parameters: %s", func,
			 seg[0], names[0] ? names : "none");
		return -ENOENT;
	}
	w_go(&w, &p);
	return kfit_argpath_walk(&dwarf_ops, &w, seg, arrow, nseg, a, err, errlen);
}
