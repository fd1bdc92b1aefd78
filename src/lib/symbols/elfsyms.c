// SPDX-License-Identifier: GPL-2.0
/*
 * ELF function symbols by name and by address, from the file or its
 * separate debug file; a cache of files read; files mapped by processes.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "debuginfo.h"
#include "elfsyms.h"
#include "fileio.h"
#include "strset.h"

#define DEBUG_ROOT	"/usr/lib/debug"

/* Symbols while reading: names as offsets into strs, which may move */
struct rawsym {
	__u64 addr, size;
	size_t name;
	bool ifunc;
	unsigned int flags;
};

struct reader {
	struct rawsym *v;
	int n, cap;
	char *strs;
	size_t len, scap;
};

static int push_name(struct reader *r, const char *name, size_t n, size_t *off)
{
	char *s;

	if (r->len + n + 1 > r->scap) {
		size_t cap = r->scap ? 2 * r->scap : 4096;

		while (cap < r->len + n + 1)
			cap *= 2;
		s = realloc(r->strs, cap);
		if (!s)
			return -ENOMEM;
		r->strs = s;
		r->scap = cap;
	}
	memcpy(r->strs + r->len, name, n);
	r->strs[r->len + n] = '\0';
	*off = r->len;
	r->len += n + 1;
	return 0;
}

static int push_sym(struct reader *r, const char *name, __u64 addr, __u64 size,
		    bool ifunc, unsigned int flags)
{
	struct rawsym *v;
	size_t off;

	if (r->n == r->cap) {
		int cap = r->cap ? 2 * r->cap : 256;

		v = realloc(r->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	/* "malloc@@GLIBC_2.2.5" is malloc */
	if (push_name(r, name, strcspn(name, "@"), &off))
		return -ENOMEM;
	r->v[r->n++] = (struct rawsym){
		.addr = addr, .size = size, .name = off, .ifunc = ifunc, .flags = flags,
	};
	return 0;
}

/* What the section holding a symbol says about it (a debug file keeps the flags) */
static unsigned int sect_flags(Elf *elf, const GElf_Sym *sym)
{
	static const char *const plt[] = { ".plt", ".plt.sec", ".plt.got", ".iplt" };
	Elf_Scn *scn;
	const char *name;
	size_t shstrndx, i;
	GElf_Shdr sh;

	if (sym->st_shndx >= SHN_LORESERVE)
		return KFIT_ELF_SYM_NOEXEC;		/* absolute, common: no code */
	scn = elf_getscn(elf, sym->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh))
		return 0;
	if (!(sh.sh_flags & SHF_EXECINSTR))
		return KFIT_ELF_SYM_NOEXEC;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	name = elf_strptr(elf, shstrndx, sh.sh_name);
	if (!name)
		return 0;
	if (!strcmp(name, ".init") || !strcmp(name, ".fini"))
		return KFIT_ELF_SYM_INITFINI;
	for (i = 0; i < sizeof(plt) / sizeof(plt[0]); i++)
		if (!strcmp(name, plt[i]))
			return KFIT_ELF_SYM_PLT;
	return 0;
}

/* Defined functions of one symbol table */
static int add_syms(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct reader *r)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	unsigned int flags;
	const char *name;
	GElf_Sym sym;
	size_t i, n;
	int type, err = 0;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; !err && i < n; i++) {
		if (!gelf_getsym(data, i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name || *name == '@')
			continue;
		flags = sect_flags(elf, &sym);
		err = push_sym(r, name, sym.st_value, sym.st_size, type == STT_GNU_IFUNC,
			       flags);
	}
	return err;
}

/* Both tables; *symtab tells whether there was a .symtab */
static int read_tables(Elf *elf, struct reader *r, bool *symtab)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err = 0;

	*symtab = false;
	while (!err && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			*symtab = true;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
			err = add_syms(elf, scn, &sh, r);
	}
	return err;
}

static int read_segs(Elf *elf, struct kfit_elf *e)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) || !n)
		return 0;
	e->segs = calloc(n, sizeof(*e->segs));
	if (!e->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph))
			continue;
		if (ph.p_type == PT_INTERP)
			e->program = true;
		if (ph.p_type != PT_LOAD)
			continue;
		e->segs[e->nsegs++] = (struct kfit_elfseg){
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz,
			.offset = ph.p_offset, .filesz = ph.p_filesz,
			.exec = ph.p_flags & PF_X,
		};
	}
	return 0;
}

/* The NT_GNU_BUILD_ID of a block of notes, into e */
static bool note_build_id(Elf_Data *data, struct kfit_elf *e)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (data && off < data->d_size &&
	       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((char *)data->d_buf + name_off, "GNU", 4) ||
		    !nh.n_descsz || nh.n_descsz > KFIT_ELF_BUILD_ID_MAX)
			continue;
		memcpy(e->build_id, (char *)data->d_buf + desc_off, nh.n_descsz);
		e->build_id_len = nh.n_descsz;
		return true;
	}
	return false;
}

/* From the note sections, else (no section headers) the PT_NOTE segments */
static void read_build_id(Elf *elf, struct kfit_elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Phdr ph;
	size_t i, n;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE &&
		    note_build_id(elf_getdata(scn, NULL), e))
			return;
	if (elf_getphdrnum(elf, &n))
		return;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_NOTE &&
		    note_build_id(elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
				  ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR), e))
			return;
}

Elf_Scn *kfit_elf_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	const char *s;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		s = elf_strptr(elf, shstrndx, sh.sh_name);
		if (s && !strcmp(s, name))
			return scn;
	}
	return NULL;
}

/* .gnu_debuglink: the debug file's name, NUL-padded to 4 bytes, then its CRC32 */
static bool read_debuglink(Elf *elf, char *name, size_t len, __u32 *crc)
{
	Elf_Scn *scn = kfit_elf_section(elf, ".gnu_debuglink");
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	size_t n, at;

	if (!d || !d->d_buf || d->d_size < 8)
		return false;
	n = strnlen(d->d_buf, d->d_size);
	at = (n + 4) & ~(size_t)3;
	if (!n || n >= len || at + 4 > d->d_size)
		return false;
	memcpy(name, d->d_buf, n + 1);
	/* In the file's byte order: x86 is little-endian, like us */
	memcpy(crc, (char *)d->d_buf + at, 4);
	return true;
}

static bool crc_matches(int fd, __u32 want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, NULL, 0);
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, n);
	return n == 0 && crc == want;
}

struct debug_want {
	const struct kfit_elf *e;	/* the file whose debug file is sought */
	bool by_crc;			/* no build-id: the CRC32 decides */
	__u32 crc;
};

/*
 * Open path as w->e's debug file: an ELF file with a .symtab, not w->e
 * itself, that is w->e's (the same build-id, or the CRC). NULL if not.
 */
static Elf *open_debug(const char *path, const struct debug_want *w, int *fdp)
{
	struct kfit_elf id = { 0 };
	struct stat st;
	bool symtab = false;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf *elf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || (st.st_dev == w->e->dev && st.st_ino == w->e->ino) ||
	    (w->by_crc && !crc_matches(fd, w->crc))) {
		close(fd);
		return NULL;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		while ((scn = elf_nextscn(elf, scn)))
			if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
				symtab = true;
		read_build_id(elf, &id);
	}
	if (symtab && (w->by_crc || (id.build_id_len == w->e->build_id_len &&
	    !memcmp(id.build_id, w->e->build_id, id.build_id_len)))) {
		*fdp = fd;
		return elf;
	}
	elf_end(elf);
	close(fd);
	return NULL;
}

/* <root>/.build-id/xx/yyyy.debug */
static Elf *debug_by_build_id(const char *root, const struct debug_want *w,
			      char *path, size_t len, int *fd)
{
	const struct kfit_elf *e = w->e;
	char hex[2 * KFIT_ELF_BUILD_ID_MAX + 1];

	if (e->build_id_len < 2)
		return NULL;
	kfit_elf_build_id_hex(e, hex, sizeof(hex));
	if (kfit_pathf(path, len, "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2))
		return NULL;
	return open_debug(path, w, fd);
}

/* As gdb looks: next to the file, in .debug/ there, under root */
static Elf *debug_by_link(Elf *elf, const char *root, struct debug_want *w,
			  char *path, size_t len, int *fd)
{
	char name[NAME_MAX + 1], dir[PATH_MAX], *slash;
	const char *fmts[] = { "%s/%s", "%s/.debug/%s", "%s%s/%s" };
	Elf *d = NULL;
	size_t i;
	int e = 0;

	if (!read_debuglink(elf, name, sizeof(name), &w->crc))
		return NULL;
	if (!realpath(w->e->path, dir))
		snprintf(dir, sizeof(dir), "%s", w->e->path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		*slash = '\0';
	w->by_crc = !w->e->build_id_len;
	for (i = 0; !d && i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		if (i < 2)
			e = kfit_pathf(path, len, fmts[i], dir, name);
		else
			e = kfit_pathf(path, len, fmts[i], root, dir, name);
		if (!e)
			d = open_debug(path, w, fd);
	}
	return d;
}

/* e's separate debug file, if one is installed (its path into path), or NULL */
static Elf *find_debug(Elf *elf, const struct kfit_elf *e, const char *root,
		       char *path, size_t len, int *fd)
{
	struct debug_want w = { .e = e };
	Elf *d;

	d = debug_by_build_id(root, &w, path, len, fd);
	if (!d)
		d = debug_by_link(elf, root, &w, path, len, fd);
	return d;
}

Elf *kfit_elf_debug_open(Elf *elf, const struct kfit_elf *e, const char *root, int *fd)
{
	char path[PATH_MAX];

	return find_debug(elf, e, root ? root : DEBUG_ROOT, path, sizeof(path), fd);
}

/* The symbols of e's separate debug file, if one is installed */
static int read_debug_file(Elf *elf, struct kfit_elf *e, const char *root,
			   struct reader *r)
{
	char path[PATH_MAX];
	bool symtab;
	Elf *d;
	int fd = -1, err;

	d = find_debug(elf, e, root, path, sizeof(path), &fd);
	if (!d)
		return 0;
	err = read_tables(d, r, &symtab);
	elf_end(d);
	close(fd);
	if (!err) {
		e->debug_path = strdup(path);
		err = e->debug_path ? 0 : -ENOMEM;
	}
	return err;
}

/* Of names for one address, the one people call: fewest leading '_', shortest */
static int plainer(const char *x, const char *y)
{
	size_t ux = strspn(x, "_"), uy = strspn(y, "_");
	size_t lx = strlen(x), ly = strlen(y);

	if (ux != uy)
		return ux < uy ? -1 : 1;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x, y);
}

static int addr_cmp(const void *a, const void *b)
{
	const struct kfit_elfsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return plainer(x->name, y->name);
}

/* Indexes into the symbols ctx, by name then address */
static int name_cmp(const void *a, const void *b, void *ctx)
{
	const struct kfit_elfsym *syms = ctx;
	const struct kfit_elfsym *x = &syms[*(const int *)a];
	const struct kfit_elfsym *y = &syms[*(const int *)b];
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The reader's symbols into e: by address, each (address, name) once */
static int index_syms(struct reader *r, struct kfit_elf *e)
{
	int i, n = 0;

	e->strs = r->strs;
	r->strs = NULL;
	e->syms = calloc(r->n + 1, sizeof(*e->syms));
	e->by_name = calloc(r->n + 1, sizeof(int));
	if (!e->syms || !e->by_name)
		return -ENOMEM;
	for (i = 0; i < r->n; i++)
		e->syms[i] = (struct kfit_elfsym){
			.addr = r->v[i].addr, .size = r->v[i].size,
			.name = e->strs + r->v[i].name, .ifunc = r->v[i].ifunc,
			.flags = r->v[i].flags,
		};
	if (r->n)
		qsort(e->syms, r->n, sizeof(*e->syms), addr_cmp);
	for (i = 0; i < r->n; i++) {
		struct kfit_elfsym *s = &e->syms[i], *p = &e->syms[n - 1];

		if (n && p->addr == s->addr && !strcmp(p->name, s->name)) {
			/* .symtab and .dynsym: the size that says more */
			if (!p->size)
				p->size = s->size;
			continue;
		}
		e->syms[n++] = *s;
	}
	e->nsyms = n;
	for (i = 0; i < n; i++)
		e->by_name[i] = i;
	if (n)
		qsort_r(e->by_name, n, sizeof(int), name_cmp, e->syms);
	return 0;
}

/* Both sorted by address: one walk */
static void mark_noreturn(struct kfit_elf *e, const __u64 *addrs, size_t n)
{
	size_t k = 0;
	int i;

	for (i = 0; i < e->nsyms && k < n; i++) {
		while (k < n && addrs[k] < e->syms[i].addr)
			k++;
		if (k < n && addrs[k] == e->syms[i].addr)
			e->syms[i].flags |= KFIT_ELF_SYM_NORETURN;
	}
}

/*
 * DWARF's noreturn functions, from the file's DWARF or else its debug
 * file's (the symbols may be the file's own: the addresses are the same)
 */
static int read_noreturn(Elf *elf, struct kfit_elf *e, const char *root)
{
	char path[PATH_MAX];
	__u64 *addrs;
	size_t n;
	int fd = -1, err;
	Elf *d = NULL;

	if (!kfit_debuginfo_present(elf))
		d = find_debug(elf, e, root, path, sizeof(path), &fd);
	err = kfit_debuginfo_noreturn(d ? d : elf, &addrs, &n);
	if (d) {
		elf_end(d);
		close(fd);
	}
	if (!err)
		mark_noreturn(e, addrs, n);
	free(addrs);
	return err;
}

static int load(Elf *elf, const char *path, const struct kfit_elf_opts *o,
		struct kfit_elf *e, char *err, size_t errlen)
{
	struct reader r = { 0 };
	GElf_Ehdr eh;
	bool symtab;
	int ret;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		snprintf(err, errlen, "'%s' is not an ELF file", path);
		return -ENOEXEC;
	}
	e->pie = eh.e_type == ET_DYN;
	e->entry = eh.e_entry;
	e->program = eh.e_type == ET_EXEC;
	read_build_id(elf, e);
	ret = read_segs(elf, e);
	if (!ret)
		ret = read_tables(elf, &r, &symtab);
	if (!ret && !symtab && o && o->debug)
		ret = read_debug_file(elf, e, o->debug_root ? o->debug_root : DEBUG_ROOT, &r);
	if (!ret)
		ret = index_syms(&r, e);
	if (!ret && o && o->noreturn)
		ret = read_noreturn(elf, e, o->debug_root ? o->debug_root : DEBUG_ROOT);
	free(r.v);
	free(r.strs);
	if (ret)
		snprintf(err, errlen, "out of memory");
	return ret;
}

static struct kfit_elf *new_elf(const char *path)
{
	struct kfit_elf *e = calloc(1, sizeof(*e));

	if (e)
		e->path = strdup(path);
	if (e && !e->path) {
		free(e);
		return NULL;
	}
	return e;
}

static int no_libelf(char *err, size_t errlen)
{
	if (elf_version(EV_CURRENT) != EV_NONE)
		return 0;
	snprintf(err, errlen, "libelf: %s", elf_errmsg(-1));
	return -EINVAL;
}

/*
 * path opened for libelf, and its stat into *st unless NULL: the fd, or
 * -errno with why in err
 */
static int open_elf(const char *path, struct stat *st, char *err, size_t errlen)
{
	int fd, ret;

	ret = no_libelf(err, errlen);
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && (!st || !fstat(fd, st)))
		return fd;
	ret = -errno;
	snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return ret;
}

/* e read from elf, which ends here: into *out, or freed. 0 or -errno. */
static int load_end(Elf *elf, const struct kfit_elf_opts *o, struct kfit_elf *e,
		    struct kfit_elf **out, char *err, size_t errlen)
{
	int ret = load(elf, e->path, o, e, err, errlen);

	elf_end(elf);
	if (ret) {
		kfit_elf_free(e);
		return ret;
	}
	*out = e;
	return 0;
}

int kfit_elf_load(const char *path, const struct kfit_elf_opts *o,
		  struct kfit_elf **out, char *err, size_t errlen)
{
	struct kfit_elf *e;
	struct stat st;
	int fd, ret;

	*out = NULL;
	fd = open_elf(path, &st, err, errlen);
	if (fd < 0)
		return fd;
	e = new_elf(path);
	if (!e) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	e->mtime = st.st_mtim;
	ret = load_end(elf_begin(fd, ELF_C_READ_MMAP, NULL), o, e, out, err, errlen);
	close(fd);
	return ret;
}

int kfit_elf_load_mem(const void *image, size_t size, const char *name,
		      struct kfit_elf **out, char *err, size_t errlen)
{
	struct kfit_elf *e;
	char *copy;
	int ret;

	*out = NULL;
	ret = no_libelf(err, errlen);
	if (ret)
		return ret;
	/* libelf may write to what it is given */
	copy = malloc(size);
	e = new_elf(name);
	if (!copy || !e) {
		free(copy);
		kfit_elf_free(e);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(copy, image, size);
	ret = load_end(elf_memory(copy, size), NULL, e, out, err, errlen);
	free(copy);
	return ret;
}

void kfit_elf_free(struct kfit_elf *e)
{
	if (!e)
		return;
	free(e->path);
	free(e->debug_path);
	free(e->segs);
	free(e->syms);
	free(e->by_name);
	free(e->strs);
	free(e);
}

/* The segment holding address addr, or NULL */
static const struct kfit_elfseg *seg_of(const struct kfit_elf *e, __u64 addr)
{
	int i;

	for (i = 0; i < e->nsegs; i++)
		if (addr >= e->segs[i].vaddr && addr - e->segs[i].vaddr < e->segs[i].memsz)
			return &e->segs[i];
	return NULL;
}

/* How many nearer symbols below a sized one may hide that it holds addr */
#define NESTED_MAX	16

const struct kfit_elfsym *kfit_elf_by_addr(const struct kfit_elf *e, __u64 addr)
{
	const struct kfit_elfsym *s = e->syms;
	const struct kfit_elfseg *seg;
	int lo = 0, hi = e->nsyms, mid, i, first, k;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo: the first symbol above addr; its group of aliases ends at lo - 1 */
	for (i = lo - 1, k = 0; i >= 0 && k < NESTED_MAX; k++) {
		for (first = i; first > 0 && s[first - 1].addr == s[i].addr; first--)
			;
		for (; i >= first; i--)
			if (s[i].size && addr - s[i].addr < s[i].size)
				return &s[first];
		/* The nearest, unsized: up to the next symbol, in its segment */
		if (k == 0 && !s[first].size) {
			seg = seg_of(e, s[first].addr);
			if (!seg || addr - seg->vaddr < seg->memsz)
				return &s[first];
		}
	}
	return NULL;
}

const struct kfit_elfsym *kfit_elf_by_name(const struct kfit_elf *e, const char *name)
{
	int lo = 0, hi = e->nsyms, mid, c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(e->syms[e->by_name[mid]].name, name);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < e->nsyms && !strcmp(e->syms[e->by_name[lo]].name, name))
		return &e->syms[e->by_name[lo]];
	return NULL;
}

const struct kfit_elfsym *kfit_elf_name_at(const struct kfit_elf *e, int i)
{
	return i >= 0 && i < e->nsyms ? &e->syms[e->by_name[i]] : NULL;
}

/* The segment whose bytes in the file hold x, a file offset or an address */
static const struct kfit_elfseg *file_seg(const struct kfit_elf *e, __u64 x, bool is_off)
{
	int i;

	for (i = 0; i < e->nsegs; i++) {
		const struct kfit_elfseg *g = &e->segs[i];
		__u64 start = is_off ? g->offset : g->vaddr;

		if (x >= start && x - start < g->filesz)
			return g;
	}
	return NULL;
}

int kfit_elf_off_to_addr(const struct kfit_elf *e, __u64 off, __u64 *addr)
{
	const struct kfit_elfseg *g = file_seg(e, off, true);

	if (!g)
		return -ENOENT;
	*addr = g->vaddr + (off - g->offset);
	return 0;
}

int kfit_elf_addr_to_off(const struct kfit_elf *e, __u64 addr, __u64 *off)
{
	const struct kfit_elfseg *g = file_seg(e, addr, false);

	if (!g)
		return -ENOENT;
	*off = g->offset + (addr - g->vaddr);
	return 0;
}

/* n bytes in hex, as many as fit in len */
static const char *hex(const __u8 *b, size_t n, char *buf, size_t len)
{
	size_t i;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < n && 2 * i + 2 < len; i++)
		snprintf(buf + 2 * i, 3, "%02x", b[i]);
	return buf;
}

const char *kfit_elf_build_id_hex(const struct kfit_elf *e, char *buf, size_t len)
{
	return hex(e->build_id, e->build_id_len, buf, len);
}

const char *kfit_elf_notes_build_id(const void *notes, size_t len, char *buf, size_t buflen)
{
	const __u8 *b = notes;
	size_t off = 0, name, desc;
	__u32 nh[3];		/* namesz, descsz, type */

	while (off + sizeof(nh) <= len) {
		memcpy(nh, b + off, sizeof(nh));
		name = ((size_t)nh[0] + 3) & ~(size_t)3;
		desc = ((size_t)nh[1] + 3) & ~(size_t)3;
		if (name + desc > len - off - sizeof(nh))
			return NULL;
		if (nh[2] == NT_GNU_BUILD_ID && nh[0] == 4 &&
		    !memcmp(b + off + sizeof(nh), "GNU", 4) && nh[1] &&
		    nh[1] <= KFIT_ELF_BUILD_ID_MAX && 2 * (size_t)nh[1] < buflen)
			return hex(b + off + sizeof(nh) + name, nh[1], buf, buflen);
		off += sizeof(nh) + name + desc;
	}
	return NULL;
}

const char *kfit_kernel_build_id(const char *path, char *buf, size_t len)
{
	size_t n = 0;
	char *notes = kfit_read_max(path ? path : "/sys/kernel/notes", 1 << 16, &n, NULL);
	const char *id = notes ? kfit_elf_notes_build_id(notes, n, buf, len) : NULL;

	free(notes);
	return id;
}

/* The IRELATIVE relocation with that addend in one SHT_RELA section */
static bool rela_find(Elf_Scn *scn, const GElf_Shdr *sh, __u64 resolver, __u64 *slot)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	GElf_Rela r;
	size_t i, n;

	if (!d || !sh->sh_entsize)
		return false;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n && gelf_getrela(d, i, &r); i++)
		if (GELF_R_TYPE(r.r_info) == R_X86_64_IRELATIVE &&
		    (__u64)r.r_addend == resolver) {
			*slot = r.r_offset;
			return true;
		}
	return false;
}

int kfit_elf_irelative(const char *path, __u64 resolver, __u64 *slot,
		       char *err, size_t errlen)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	bool found = false;
	Elf *elf;
	int fd;

	fd = open_elf(path, NULL, err, errlen);
	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && !found && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA)
			found = rela_find(scn, &sh, resolver, slot);
	elf_end(elf);
	close(fd);
	if (!found)
		snprintf(err, errlen, "'%s' has no IRELATIVE relocation of 0x%llx", path,
			 (unsigned long long)resolver);
	return found ? 0 : -ENOENT;
}

/* ---- the cache ---------------------------------------------------------- */

struct centry {
	char *path;
	int newer;		/* the next entry of this path, or -1 */
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	struct kfit_elf *elf;	/* NULL: it failed */
	int err;
	char *msg;
};

struct kfit_elfcache {
	struct kfit_elf_opts o;
	char *debug_root;
	struct centry *v;
	int n, cap;
	struct kfit_strset paths;	/* path -> its first entry */
	const struct kfit_elf **loaded;	/* in load order */
	int nloaded;
};

struct kfit_elfcache *kfit_elfcache_new(const struct kfit_elf_opts *o)
{
	struct kfit_elfcache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (o)
		c->o = *o;
	if (o && o->debug_root) {
		c->debug_root = strdup(o->debug_root);
		if (!c->debug_root) {
			free(c);
			return NULL;
		}
	}
	c->o.debug_root = c->debug_root;
	return c;
}

void kfit_elfcache_free(struct kfit_elfcache *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		free(c->v[i].path);
		free(c->v[i].msg);
		kfit_elf_free(c->v[i].elf);
	}
	free(c->v);
	kfit_strset_free(&c->paths);
	free(c->loaded);
	free(c->debug_root);
	free(c);
}

static bool same_file(const struct centry *ce, const struct stat *st)
{
	return ce->dev == st->st_dev && ce->ino == st->st_ino &&
	       ce->mtime.tv_sec == st->st_mtim.tv_sec &&
	       ce->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* The entry of that path for that file, else -1; *last: the path's newest entry */
static int find(struct kfit_elfcache *c, const char *path, const struct stat *st,
		int *last)
{
	int i = kfit_strset_get(&c->paths, path);

	*last = -1;
	for (; i >= 0; i = c->v[i].newer) {
		if (same_file(&c->v[i], st))
			return i;
		*last = i;
	}
	return -1;
}

static int grow(struct kfit_elfcache *c)
{
	struct centry *v;
	const struct kfit_elf **l;
	int cap = c->cap ? 2 * c->cap : 32;

	v = realloc(c->v, cap * sizeof(*v));
	if (v)
		c->v = v;
	l = realloc(c->loaded, cap * sizeof(*l));
	if (l)
		c->loaded = l;
	if (!v || !l)
		return -ENOMEM;
	c->cap = cap;
	return 0;
}

/* A new entry for the file at path, read now, after last (-1: the path's first) */
static int add(struct kfit_elfcache *c, const char *path, const struct stat *st,
	       int last)
{
	char msg[PATH_MAX + 64];
	struct centry *ce;
	int i = c->n;

	if (c->n == c->cap && grow(c))
		return -1;
	ce = &c->v[i];
	memset(ce, 0, sizeof(*ce));
	ce->newer = -1;
	ce->path = strdup(path);
	if (!ce->path)
		return -1;
	if (last < 0 && kfit_strset_add(&c->paths, ce->path, i) < 0) {
		free(ce->path);
		return -1;
	}
	if (last >= 0)
		c->v[last].newer = i;
	ce->dev = st->st_dev;
	ce->ino = st->st_ino;
	ce->mtime = st->st_mtim;
	ce->err = kfit_elf_load(path, &c->o, &ce->elf, msg, sizeof(msg));
	if (ce->err)
		ce->msg = strdup(msg);
	else
		c->loaded[c->nloaded++] = ce->elf;
	c->n++;
	return i;
}

const struct kfit_elf *kfit_elfcache_get(struct kfit_elfcache *c, const char *path,
					 char *err, size_t errlen)
{
	struct centry *ce;
	struct stat st;
	int i, last;

	if (stat(path, &st)) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	i = find(c, path, &st, &last);
	if (i < 0)
		i = add(c, path, &st, last);
	if (i < 0) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ce = &c->v[i];
	if (!ce->elf)
		snprintf(err, errlen, "%s", ce->msg ? ce->msg : "out of memory");
	return ce->elf;
}

int kfit_elfcache_count(const struct kfit_elfcache *c)
{
	return c->nloaded;
}

const struct kfit_elf *kfit_elfcache_at(const struct kfit_elfcache *c, int i)
{
	return i >= 0 && i < c->nloaded ? c->loaded[i] : NULL;
}

/* ---- files of processes --------------------------------------------------- */

int kfit_elf_parse_mapline(char *line, struct kfit_elf_mapline *m)
{
	unsigned long long start, end, pgoff;
	unsigned int major, minor;
	int n = 0;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %lu %n", &start, &end, m->perms,
		   &pgoff, &major, &minor, &m->ino, &n) < 7 || !n)
		return -EINVAL;
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->dev = makedev(major, minor);
	line[strcspn(line, "\n")] = '\0';
	m->path = line + n;
	return 0;
}

int kfit_elf_proc_path(const char *proc, int pid, const char *path, dev_t dev,
		   ino_t ino, char *out, size_t len)
{
	struct stat st;

	if (!stat(path, &st) && st.st_dev == dev && st.st_ino == ino)
		return kfit_pathf(out, len, "%s", path);
	return kfit_pathf(out, len, "%s/%d/root%s", proc ? proc : "/proc", pid, path);
}
