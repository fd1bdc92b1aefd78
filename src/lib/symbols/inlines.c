// SPDX-License-Identifier: GPL-2.0
/*
 * Inlined functions and source lines of code addresses, from DWARF
 * (inlines.h): the scopes libdw finds at an address, from the outermost
 * inlined subroutine in to the innermost, and their call sites' lines.
 */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdw.h>
#include "elfmap.h"
#include "frames.h"
#include "inlines.h"

#define MAX_INLINED	16	/* inlined frames kept at one address */

/* A file's DWARF, opened at its first address; dw NULL: it has none */
struct entry {
	Dwarf *dw;
	Elf *elf, *debug;
	int fd, dfd;
};

struct kfit_inlines {
	struct kfit_elfmap files;	/* struct entry by file */
};

struct kfit_inlines *kfit_inlines_new(void)
{
	return calloc(1, sizeof(struct kfit_inlines));
}

static void entry_close(void *p)
{
	struct entry *x = p;

	if (!x)
		return;
	if (x->dw)
		dwarf_end(x->dw);
	if (x->debug)
		elf_end(x->debug);
	if (x->elf)
		elf_end(x->elf);
	if (x->dfd >= 0)
		close(x->dfd);
	if (x->fd >= 0)
		close(x->fd);
	free(x);
}

void kfit_inlines_free(struct kfit_inlines *c)
{
	if (!c)
		return;
	kfit_elfmap_free(&c->files, entry_close);
	free(c);
}

/* The file's DWARF: its debug file's (by build-id or debuglink), else its own */
static void open_dwarf(struct entry *x, const struct kfit_elf *e)
{
	if (e->path[0] != '/')
		return;
	x->fd = open(e->path, O_RDONLY | O_CLOEXEC);
	if (x->fd < 0)
		return;
	x->elf = elf_begin(x->fd, ELF_C_READ_MMAP, NULL);
	if (!x->elf)
		return;
	x->debug = kfit_elf_debug_open(x->elf, e, NULL, &x->dfd);
	if (x->debug)
		x->dw = dwarf_begin_elf(x->debug, DWARF_C_READ, NULL);
	if (!x->dw)
		x->dw = dwarf_begin_elf(x->elf, DWARF_C_READ, NULL);
}

static Dwarf *dwarf_of(struct kfit_inlines *c, const struct kfit_elf *e)
{
	struct kfit_elfmap_slot *x = kfit_elfmap_get(&c->files, e, &(bool){ false });
	struct entry *d;

	if (!x || x->val)
		return x ? ((struct entry *)x->val)->dw : NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	*d = (struct entry){ .fd = -1, .dfd = -1 };
	x->val = d;
	open_dwarf(d, e);
	return d->dw;
}

/* ---- one address ---------------------------------------------------------- */

static const char *base_of(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

/* An inlined subroutine's caller's line: its call site */
static void call_site(Dwarf_Die *cu, Dwarf_Die *inl, const char **file, int *line)
{
	Dwarf_Attribute a;
	Dwarf_Files *files;
	Dwarf_Word v;
	size_t n;

	*file = NULL;
	*line = 0;
	if (dwarf_attr(inl, DW_AT_call_line, &a) && !dwarf_formudata(&a, &v))
		*line = v;
	if (dwarf_attr(inl, DW_AT_call_file, &a) && !dwarf_formudata(&a, &v) &&
	    !dwarf_getsrcfiles(cu, &files, &n) && v < n)
		*file = dwarf_filesrc(files, v, NULL, NULL);
}

static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *s;

	s = dwarf_attr_integrate(d, DW_AT_name, &a) ? dwarf_formstring(&a) : NULL;
	return s ? s : "?";
}

/* A DIE whose children may hold code without a range of its own (C++) */
static bool transparent(Dwarf_Die *d)
{
	int tag = dwarf_tag(d);

	return tag == DW_TAG_namespace || tag == DW_TAG_module;
}

/*
 * Down from d through the DIEs whose ranges hold pc, the inlined
 * subroutines among them into v (outermost first): whether one held it.
 * (dwarf_getscopes finds nothing in the units GCC's LTO writes, whose
 * functions' DIEs name their abstract origins in other units.)
 */
static bool walk(Dwarf_Die *d, Dwarf_Addr pc, Dwarf_Die *v, int *n, int depth)
{
	Dwarf_Die c;

	if (depth > 64 || dwarf_child(d, &c))
		return false;
	do {
		if (dwarf_haspc(&c, pc) > 0) {
			if (dwarf_tag(&c) == DW_TAG_inlined_subroutine && *n < MAX_INLINED)
				v[(*n)++] = c;
			walk(&c, pc, v, n, depth + 1);
			return true;
		}
		if (transparent(&c) && walk(&c, pc, v, n, depth + 1))
			return true;
	} while (!dwarf_siblingof(&c, &c));
	return false;
}

static int inlined_at(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *v)
{
	int n = 0;

	walk(cu, pc, v, &n, 0);
	return n;
}

struct out {
	char *p;
	size_t left;
	bool full;
};

static void put(struct out *o, const char *fmt, const char *a, const char *file, int line)
{
	int n = snprintf(o->p, o->left, fmt, a);

	if (n >= 0 && (size_t)n < o->left && file && line) {
		n += snprintf(o->p + n, o->left - n, " (%s:%d)", base_of(file), line);
	}
	if (n < 0 || (size_t)n >= o->left) {
		o->full = true;
		return;
	}
	o->p += n;
	o->left -= n;
}

int kfit_inlines_frames(struct kfit_inlines *c, const struct kfit_elf *e, __u64 addr,
			bool ret, const char *phys, bool lines, char *buf, size_t len)
{
	Dwarf_Die cu, inl[MAX_INLINED];
	const char *file = NULL, *f = NULL;
	struct out o = { buf, len, false };
	Dwarf *dw = dwarf_of(c, e);
	Dwarf_Addr pc = ret ? addr - 1 : addr;
	Dwarf_Line *l;
	int n, i, line = 0, ln = 0;

	if (!dw || !dwarf_addrdie(dw, pc, &cu))
		return 0;
	n = inlined_at(&cu, pc, inl);
	if (lines && (l = dwarf_getsrc_die(&cu, pc))) {
		file = dwarf_linesrc(l, NULL, NULL);
		dwarf_lineno(l, &line);
	}
	if (!n && !(lines && file))
		return 0;
	/*
	 * Outermost first: each frame at the site of the call inlined into
	 * it (the next one's), the innermost at the line sampled
	 */
	for (i = 0; i <= n && !o.full; i++) {
		if (i < n)
			call_site(&cu, &inl[i], &f, &ln);
		else
			f = file, ln = line;
		if (i)
			put(&o, KFIT_FRAME_SEP_STR "%s (inlined)", die_name(&inl[i - 1]),
			    lines ? f : NULL, ln);
		else
			put(&o, "%s", phys, lines ? f : NULL, ln);
	}
	return o.full ? 0 : 1;
}
