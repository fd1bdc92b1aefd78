// SPDX-License-Identifier: GPL-2.0
/*
 * The symbolizer of sampled stacks: kernel addresses through kallsyms,
 * user ones through each process's maps and the ELF files they map.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include "fileio.h"
#include "inlines.h"
#include "ksyms.h"
#include "strset.h"
#include "syms.h"

/*
 * No kernel function is this long: an address further from the nearest
 * symbol below lies past the last one (code kallsyms does not list)
 */
#define KSYM_SPAN_MAX	(1ULL << 20)
/* Addresses in no mapping remembered per process, so as not to read its maps again for each */
#define MISSED_MAX	4096

struct map {
	__u64 start, end, pgoff;
	const struct kfit_elf *elf;	/* NULL: not an ELF file we could read */
	const char *base;		/* "libc.so.6", "[vdso]", "[anon]" (interned) */
};

struct proc {
	__u32 pid;
	bool used;		/* the slot holds pid */
	bool read;		/* maps read since it was last forgotten */
	struct map *maps;	/* executable mappings, by address */
	int n;
	__u64 *missed;		/* sorted */
	int nmissed;
};

/* A user address's name with its inlined frames, by file and link-time address */
struct dwname {
	const struct kfit_elf *e;
	__u64 vaddr;
	const char *name;
};

struct kfit_syms {
	char proc[PATH_MAX];
	char kallsyms[PATH_MAX];
	struct kfit_elfcache *elfs;
	struct kfit_ksyms *ks;
	bool ks_tried;
	char ks_note[PATH_MAX + 64];
	struct kfit_elf *vdso;
	size_t vdso_size;
	bool vdso_tried;
	struct proc *procs;	/* open addressing on pid */
	unsigned int mask, nprocs;
	struct kfit_inlines *inl;	/* kfit_syms_set_dwarf: DWARF's frames */
	bool lines;
	struct dwname *dw;		/* open addressing on (e, vaddr) */
	size_t dwmask, ndw;
	struct kfit_strset names;	/* interned names -> index in owned */
	char **owned;
	int nowned, cap;
};

struct kfit_syms *kfit_syms_new(const struct kfit_syms_src *src)
{
	struct kfit_elf_opts o = { .debug = true };
	struct kfit_syms *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (kfit_pathf(s->proc, sizeof(s->proc), "%s",
		       src && src->proc ? src->proc : "/proc") ||
	    (src && src->kallsyms ?
	     kfit_pathf(s->kallsyms, sizeof(s->kallsyms), "%s", src->kallsyms) :
	     kfit_pathf(s->kallsyms, sizeof(s->kallsyms), "%s/kallsyms", s->proc))) {
		free(s);
		errno = ENAMETOOLONG;
		return NULL;
	}
	o.debug_root = src ? src->debug_root : NULL;
	s->elfs = kfit_elfcache_new(&o);
	s->mask = 63;
	s->procs = calloc(s->mask + 1, sizeof(*s->procs));
	if (!s->elfs || !s->procs || kfit_strset_init(&s->names, 256)) {
		kfit_syms_free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

static void proc_clear(struct proc *p)
{
	free(p->maps);
	free(p->missed);
	p->maps = NULL;
	p->missed = NULL;
	p->n = p->nmissed = 0;
	p->read = false;
}

void kfit_syms_free(struct kfit_syms *s)
{
	unsigned int i;
	int k;

	if (!s)
		return;
	for (i = 0; s->procs && i <= s->mask; i++)
		proc_clear(&s->procs[i]);
	free(s->procs);
	for (k = 0; k < s->nowned; k++)
		free(s->owned[k]);
	free(s->owned);
	kfit_strset_free(&s->names);
	kfit_inlines_free(s->inl);
	free(s->dw);
	kfit_elfcache_free(s->elfs);
	kfit_elf_free(s->vdso);
	kfit_ksyms_free(s->ks);
	free(s);
}

/* ---- interned names --------------------------------------------------------- */

static const char *intern(struct kfit_syms *s, const char *name)
{
	int i = kfit_strset_get(&s->names, name);
	char **v, *copy;

	if (i >= 0)
		return s->owned[i];
	if (s->nowned == s->cap) {
		int cap = s->cap ? 2 * s->cap : 256;

		v = realloc(s->owned, cap * sizeof(*v));
		if (!v)
			return NULL;
		s->owned = v;
		s->cap = cap;
	}
	copy = strdup(name);
	if (!copy || kfit_strset_add(&s->names, copy, s->nowned) < 0) {
		free(copy);
		return NULL;
	}
	s->owned[s->nowned++] = copy;
	return copy;
}

static const char *internf(struct kfit_syms *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static const char *internf(struct kfit_syms *s, const char *fmt, ...)
{
	char buf[PATH_MAX + 64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return intern(s, buf);
}

static const char *unknown(struct kfit_syms *s, __u64 addr)
{
	return internf(s, "[unknown] 0x%llx", (unsigned long long)addr);
}

/* ---- kernel ------------------------------------------------------------------ */

static bool ksyms_ready(struct kfit_syms *s)
{
	const struct kfit_ksym *top;

	if (s->ks_tried)
		return s->ks;
	s->ks_tried = true;
	s->ks = kfit_ksyms_load(s->kallsyms);
	if (!s->ks) {
		snprintf(s->ks_note, sizeof(s->ks_note), "cannot read %s: %s",
			 s->kallsyms, strerror(errno));
		return false;
	}
	/* Every address 0: kernel.kptr_restrict hides them from us */
	top = kfit_ksyms_by_addr(s->ks, ~0ULL);
	if (!top || !top->addr) {
		snprintf(s->ks_note, sizeof(s->ks_note), "%s shows no addresses%s",
			 s->kallsyms, top ? " (kernel.kptr_restrict)" : "");
		kfit_ksyms_free(s->ks);
		s->ks = NULL;
	}
	return s->ks;
}

static const char *kernel_name(struct kfit_syms *s, __u64 addr)
{
	const struct kfit_ksym *k;

	if (!ksyms_ready(s))
		return unknown(s, addr);
	k = kfit_ksyms_by_addr(s->ks, addr);
	if (!k || !strchr("tTwW", k->type) || addr - k->addr >= KSYM_SPAN_MAX)
		return unknown(s, addr);
	if (k->module)
		return internf(s, "%s [%s]", k->name, k->module);
	return intern(s, k->name);
}

const char *kfit_syms_kernel_note(struct kfit_syms *s)
{
	return ksyms_ready(s) ? NULL : s->ks_note;
}

/* ---- processes ----------------------------------------------------------------- */

static struct proc *slot(struct proc *v, unsigned int mask, __u32 pid)
{
	unsigned int i = (pid * 2654435761u) & mask;

	while (v[i].used && v[i].pid != pid)
		i = (i + 1) & mask;
	return &v[i];
}

static int grow(struct kfit_syms *s)
{
	unsigned int mask = 2 * s->mask + 1, i;
	struct proc *v = calloc(mask + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; i <= s->mask; i++)
		if (s->procs[i].used)
			*slot(v, mask, s->procs[i].pid) = s->procs[i];
	free(s->procs);
	s->procs = v;
	s->mask = mask;
	return 0;
}

/* pid's entry, made if new (NULL: out of memory) */
static struct proc *proc_of(struct kfit_syms *s, __u32 pid)
{
	struct proc *p = slot(s->procs, s->mask, pid);

	if (p->used)
		return p;
	if (2 * (s->nprocs + 1) > s->mask + 1) {
		if (grow(s))
			return NULL;
		p = slot(s->procs, s->mask, pid);
	}
	p->used = true;
	p->pid = pid;
	s->nprocs++;
	return p;
}

/* This process's vDSO: the kernel maps the same image into every process */
static const struct kfit_elf *vdso(struct kfit_syms *s)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	struct kfit_elf_mapline m;
	char *line = NULL, err[128];
	size_t cap = 0, size = 0;
	FILE *f;

	if (s->vdso_tried || !base)
		return s->vdso;
	s->vdso_tried = true;
	f = fopen("/proc/self/maps", "re");
	while (f && !size && getline(&line, &cap, f) > 0)
		if (!kfit_elf_parse_mapline(line, &m) && m.start == base)
			size = m.end - m.start;
	free(line);
	if (f)
		fclose(f);
	if (size)
		kfit_elf_load_mem((const void *)base, size, "[vdso]", &s->vdso,
				  err, sizeof(err));
	s->vdso_size = s->vdso ? size : 0;
	return s->vdso;
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* A mapped file's ELF symbols, opened as this process can reach it */
static const struct kfit_elf *map_elf(struct kfit_syms *s, __u32 pid,
				      const struct kfit_elf_mapline *m, bool deleted)
{
	char path[PATH_MAX], err[PATH_MAX + 64];
	int e;

	/* Gone from the file system: only map_files reaches it */
	if (deleted)
		e = kfit_pathf(path, sizeof(path), "%s/%u/map_files/%llx-%llx", s->proc,
			       pid, (unsigned long long)m->start,
			       (unsigned long long)m->end);
	else
		e = kfit_elf_proc_path(s->proc, pid, m->path, m->dev, m->ino, path,
				   sizeof(path));
	return e ? NULL : kfit_elfcache_get(s->elfs, path, err, sizeof(err));
}

/* A mapping of a maps line, if executable */
static int add_map(struct kfit_syms *s, struct proc *p, struct kfit_elf_mapline *m, int *cap)
{
	static const char deleted[] = " (deleted)";
	size_t n = strlen(m->path), d = sizeof(deleted) - 1;
	bool gone = n > d && !strcmp(m->path + n - d, deleted);
	struct map *v, *e;

	if (!strchr(m->perms, 'x'))
		return 0;
	if (p->n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		v = realloc(p->maps, *cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->maps = v;
	}
	e = &p->maps[p->n];
	*e = (struct map){ .start = m->start, .end = m->end, .pgoff = m->pgoff };
	if (gone)
		m->path[n - d] = '\0';
	if (m->path[0] == '/') {
		e->elf = map_elf(s, p->pid, m, gone);
		e->base = intern(s, base_of(m->path));
	} else if (!strcmp(m->path, "[vdso]")) {
		e->elf = vdso(s);
		e->base = intern(s, m->path);
	} else {
		e->base = intern(s, m->path[0] ? m->path : "[anon]");
	}
	if (!e->base)
		return -ENOMEM;
	p->n++;
	return 0;
}

/*
 * (Re)read p's maps: 0 or -errno. A process gone, or a zombie (its maps
 * empty), keeps those last read: its last samples are read after its exit.
 * The whole file is read first, then its ELF files: a process may end
 * while they load.
 */
static int read_maps(struct kfit_syms *s, struct proc *p)
{
	struct proc q = { .pid = p->pid };
	struct kfit_elf_mapline m;
	char path[PATH_MAX], *text, *line, *next;
	size_t len;
	int cap = 0, err = 0;

	p->read = true;
	if (kfit_pathf(path, sizeof(path), "%s/%u/maps", s->proc, p->pid))
		return -ENAMETOOLONG;
	text = kfit_read_all(path, &len);
	if (!text)
		return -errno;
	/* The kernel lists mappings by address */
	for (line = text; !err && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!kfit_elf_parse_mapline(line, &m))
			err = add_map(s, &q, &m, &cap);
	}
	free(text);
	if (err || !q.n) {
		free(q.maps);
		return err;
	}
	free(p->maps);
	p->maps = q.maps;
	p->n = q.n;
	return 0;
}

static struct map *find_map(struct proc *p, __u64 addr)
{
	int lo = 0, hi = p->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (addr < p->maps[mid].start)
			hi = mid;
		else if (addr >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

/* Position of addr in the sorted missed list; *found if there */
static int missed_pos(const struct proc *p, __u64 addr, bool *found)
{
	int lo = 0, hi = p->nmissed, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->missed[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < p->nmissed && p->missed[lo] == addr;
	return lo;
}

/*
 * An address outside every mapping known: mapped since the maps were
 * read (dlopen), or garbage (a stack walked without frame pointers).
 * Read the maps again, once per such address.
 */
static struct map *find_again(struct kfit_syms *s, struct proc *p, __u64 addr)
{
	struct map *m;
	__u64 *v;
	bool found;
	int i;

	i = missed_pos(p, addr, &found);
	if (found || p->nmissed >= MISSED_MAX)
		return NULL;
	read_maps(s, p);
	m = find_map(p, addr);
	if (m)
		return m;
	v = realloc(p->missed, (p->nmissed + 1) * sizeof(*v));
	if (!v)
		return NULL;
	p->missed = v;
	i = missed_pos(p, addr, &found);
	memmove(&v[i + 1], &v[i], (p->nmissed - i) * sizeof(*v));
	v[i] = addr;
	p->nmissed++;
	return NULL;
}

static struct map *map_of(struct kfit_syms *s, __u32 pid, __u64 addr)
{
	struct proc *p = proc_of(s, pid);
	struct map *m;

	if (!p)
		return NULL;
	if (!p->read)
		read_maps(s, p);
	m = find_map(p, addr);
	return m ? m : find_again(s, p, addr);
}

/* ---- what DWARF adds ----------------------------------------------------------- */

void kfit_syms_set_dwarf(struct kfit_syms *s, bool inlines, bool lines)
{
	if (!inlines && !lines) {
		kfit_inlines_free(s->inl);
		s->inl = NULL;
		return;
	}
	if (!s->inl)
		s->inl = kfit_inlines_new();
	s->lines = lines;
}

static struct dwname *dw_slot(struct dwname *v, size_t mask, const struct kfit_elf *e,
			      __u64 vaddr)
{
	size_t i = (vaddr * 2654435761u ^ (unsigned long)e >> 4) & mask;

	while (v[i].e && (v[i].e != e || v[i].vaddr != vaddr))
		i = (i + 1) & mask;
	return &v[i];
}

static int dw_grow(struct kfit_syms *s)
{
	size_t mask = s->dwmask ? 2 * s->dwmask + 1 : 1023, i;
	struct dwname *v = calloc(mask + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; s->dw && i <= s->dwmask; i++)
		if (s->dw[i].e)
			*dw_slot(v, mask, s->dw[i].e, s->dw[i].vaddr) = s->dw[i];
	free(s->dw);
	s->dw = v;
	s->dwmask = mask;
	return 0;
}

/* sym's name at vaddr of e, with the frames inlined there: looked up once an address */
static const char *dwarf_name(struct kfit_syms *s, const struct kfit_elf *e, __u64 vaddr,
			      const char *sym)
{
	struct dwname *x;
	char buf[4096];
	const char *name = sym;

	if ((!s->dw || 2 * (s->ndw + 1) > s->dwmask + 1) && dw_grow(s))
		return intern(s, sym);
	x = dw_slot(s->dw, s->dwmask, e, vaddr);
	if (x->e)
		return x->name;
	if (kfit_inlines_frames(s->inl, e, vaddr, true, sym, s->lines, buf, sizeof(buf)) > 0)
		name = buf;
	name = intern(s, name);
	if (!name)
		return NULL;
	*x = (struct dwname){ .e = e, .vaddr = vaddr, .name = name };
	s->ndw++;
	return name;
}

static const char *user_name(struct kfit_syms *s, __u32 pid, __u64 addr)
{
	const struct kfit_elfsym *sym;
	struct map *m = map_of(s, pid, addr);
	__u64 off, vaddr;

	if (!m)
		return unknown(s, addr);
	off = addr - m->start + m->pgoff;
	/* An anonymous mapping's offset is its address: say where in it */
	if (!m->elf && m->base[0] == '[')
		return internf(s, "%s+0x%llx", m->base, (unsigned long long)(addr - m->start));
	if (!m->elf || kfit_elf_off_to_addr(m->elf, off, &vaddr))
		return internf(s, "%s+0x%llx", m->base, (unsigned long long)off);
	sym = kfit_elf_by_addr(m->elf, vaddr);
	if (sym && s->inl)
		return dwarf_name(s, m->elf, vaddr, sym->name);
	if (sym)
		return intern(s, sym->name);
	return internf(s, "%s+0x%llx", m->base, (unsigned long long)vaddr);
}

const char *kfit_syms_name(void *ctx, __u32 pid, __u64 addr, bool kernel)
{
	struct kfit_syms *s = ctx;

	return kernel ? kernel_name(s, addr) : user_name(s, pid, addr);
}

int kfit_syms_pid(struct kfit_syms *s, __u32 pid)
{
	struct proc *p = proc_of(s, pid);

	if (!p)
		return -ENOMEM;
	proc_clear(p);
	return read_maps(s, p);
}

void kfit_syms_forget(struct kfit_syms *s, __u32 pid)
{
	struct proc *p = slot(s->procs, s->mask, pid);

	if (p->used)
		proc_clear(p);
}

int kfit_syms_locate(struct kfit_syms *s, __u32 pid, __u64 addr,
		     const struct kfit_elf **elf, __u64 *vaddr)
{
	struct map *m = map_of(s, pid, addr);

	if (!m)
		return -ENOENT;
	if (!m->elf || kfit_elf_off_to_addr(m->elf, addr - m->start + m->pgoff, vaddr))
		return -ENOEXEC;
	*elf = m->elf;
	return 0;
}

const void *kfit_syms_vdso_image(struct kfit_syms *s, size_t *size)
{
	if (!vdso(s))
		return NULL;
	*size = s->vdso_size;
	return (const void *)getauxval(AT_SYSINFO_EHDR);
}

const struct kfit_elf *kfit_syms_file_of(struct kfit_syms *s, __u32 pid, __u64 addr)
{
	struct map *m = map_of(s, pid, addr);

	return m ? m->elf : NULL;
}

int kfit_syms_nfiles(const struct kfit_syms *s)
{
	return kfit_elfcache_count(s->elfs);
}

const struct kfit_elf *kfit_syms_file(const struct kfit_syms *s, int i)
{
	return kfit_elfcache_at(s->elfs, i);
}
