// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel function targets: a name or glob into the functions to attach
 * to, and for every other match the reason it cannot be traced.
 *
 * kallsyms (~120k lines) says which functions exist,
 * available_filter_functions (~60-80k) which ftrace can attach to, and
 * BTF which fentry can. Each is read once into a sorted array or a hash
 * set and kept, so resolving several targets costs one read of each.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include "btf.h"
#include "fileio.h"
#include "ksyms.h"
#include "ktarget.h"
#include "strdist.h"
#include "strset.h"

#define R_NOT_FTRACE	"not in available_filter_functions (notrace, inlined, or not ftrace-able)"
#define R_NOT_BTF	"not in the kernel's BTF (fentry needs BTF; try -k for kprobes)"
#define MAX_CLONES_SHOWN 3

/*
 * Aliases for names that changed across kernels, tried in order when the
 * name itself is not in kallsyms; the first whose target exists wins.
 * Names that never changed (do_exit, vfs_read) need none. "sys_*" stands
 * for every system call entry point.
 */
static const struct kalias {
	const char *name;
	const char *to;
	const char *when;	/* on which kernels name is called to */
} kaliases[] = {
	{ "do_fork", "kernel_clone", "5.10+" },
	{ "do_fork", "_do_fork", "4.2 to 5.9" },
	{ "_do_fork", "kernel_clone", "5.10+" },
	{ "kernel_clone", "_do_fork", "before 5.10" },
	{ "sys_*", "__x64_sys_*", "x86_64, 4.17+" },
};

#define SYS_HINT "sys:%s traces its tracepoints instead"

#define NR_ALIASES ((int)(sizeof(kaliases) / sizeof(kaliases[0])))

/* A file as it was when read: it is read again when any of this changes */
struct filekey {
	char path[PATH_MAX];
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

struct ksym_ent {
	const char *name;	/* as in kallsyms */
	const char *base;	/* without .isra.0 & co: name itself for a plain one */
	const char *module;	/* NULL: vmlinux */
};

/* The functions of a kallsyms file */
struct ktext {
	struct filekey key;
	struct kfit_ksyms *ks;	/* the file; names point into it */
	char *bases;		/* the base names of clones */
	struct ksym_ent *e;	/* by base, plain first, vmlinux first */
	int n;
	int *ubase;		/* index in e of each distinct base */
	int nubase;
	const char **plain;	/* distinct bases with a plain symbol: for suggestions */
	int nplain;
};

/* available_filter_functions */
struct ftext {
	struct filekey key;
	char *buf;
	struct kfit_strset set;
};

/* FUNC names of one BTF: vmlinux's, or a module's own */
struct btfset {
	const struct btf *btf;
	unsigned int ntypes;
	char module[64];	/* "" for vmlinux */
	struct btf *owned;	/* a module's BTF, loaded here */
	struct kfit_strset set;
	struct btfset *next;
};

struct resolver {
	const struct ktext *kt;
	const struct ftext *ft;		/* NULL: not checked */
	const struct btfset *btf;	/* NULL: not needed */
	struct btfset *own_btf;		/* the caller's BTF, indexed for one call */
	bool live_btf;			/* module functions may use module BTF */
	struct kfit_ktarget *out;
	int cap, skcap;
};

static struct ktext *kt_cache;
static struct ftext *ft_cache;
static struct btfset *btf_cache;

static void key_of(struct filekey *k, const char *path, const struct stat *st)
{
	snprintf(k->path, sizeof(k->path), "%s", path);
	k->dev = st->st_dev;
	k->ino = st->st_ino;
	k->size = st->st_size;
	k->mtime = st->st_mtim;
}

static bool key_same(const struct filekey *k, const char *path, const struct stat *st)
{
	return !strcmp(k->path, path) && k->dev == st->st_dev &&
	       k->ino == st->st_ino && k->size == st->st_size &&
	       k->mtime.tv_sec == st->st_mtim.tv_sec &&
	       k->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static int count_lines(const char *p)
{
	int n = 1;

	while ((p = strchr(p, '\n'))) {
		p++;
		n++;
	}
	return n;
}

static void ktext_free(struct ktext *kt)
{
	if (!kt)
		return;
	free(kt->plain);
	free(kt->ubase);
	free(kt->e);
	free(kt->bases);
	kfit_ksyms_free(kt->ks);
	free(kt);
}

static int ent_cmp(const void *a, const void *b)
{
	const struct ksym_ent *x = a, *y = b;
	int c = strcmp(x->base, y->base);

	if (c)
		return c;
	/* The plain name before its clones, vmlinux before modules */
	if ((x->name == x->base) != (y->name == y->base))
		return x->name == x->base ? -1 : 1;
	c = strcmp(x->name, y->name);
	if (c || !x->module == !y->module)
		return c;
	return x->module ? 1 : -1;
}

/* The base names of clones go to kt->bases, one after the other */
static void set_base(struct ksym_ent *e, char **bases)
{
	const char *dot = strchr(e->name, '.');
	size_t len;

	if (!dot || dot == e->name) {
		e->base = e->name;
		return;
	}
	len = dot - e->name;
	memcpy(*bases, e->name, len);
	(*bases)[len] = '\0';
	e->base = *bases;
	*bases += len + 1;
}

/* The distinct bases, and those having a plain symbol */
static int index_bases(struct ktext *kt)
{
	int i;

	kt->ubase = malloc(sizeof(*kt->ubase) * (kt->n + 1));
	kt->plain = malloc(sizeof(*kt->plain) * (kt->n + 1));
	if (!kt->ubase || !kt->plain)
		return -ENOMEM;
	for (i = 0; i < kt->n; i++) {
		if (i && !strcmp(kt->e[i].base, kt->e[i - 1].base))
			continue;
		kt->ubase[kt->nubase++] = i;
		if (kt->e[i].name == kt->e[i].base)
			kt->plain[kt->nplain++] = kt->e[i].base;
	}
	return 0;
}

/* Room for the base names of clones, one after the other */
static size_t bases_len(const struct kfit_ksyms *ks)
{
	const struct kfit_ksym *s;
	size_t len = 1;
	int i;

	for (i = 0; (s = kfit_ksyms_at(ks, i)); i++)
		if (kfit_ksym_is_func(s) && strchr(s->name, '.'))
			len += strcspn(s->name, ".") + 1;
	return len;
}

static int ktext_index(struct ktext *kt)
{
	const struct kfit_ksym *s;
	char *bases;
	int i;

	kt->e = calloc(kfit_ksyms_count(kt->ks) + 1, sizeof(*kt->e));
	kt->bases = bases = malloc(bases_len(kt->ks));
	if (!kt->e || !kt->bases)
		return -ENOMEM;
	for (i = 0; (s = kfit_ksyms_at(kt->ks, i)); i++) {
		if (!kfit_ksym_is_func(s))
			continue;
		kt->e[kt->n].name = s->name;
		kt->e[kt->n].module = s->module;
		set_base(&kt->e[kt->n++], &bases);
	}
	if (kt->n)
		qsort(kt->e, kt->n, sizeof(*kt->e), ent_cmp);
	return index_bases(kt);
}

static int ktext_get(const char *path, const struct ktext **out)
{
	struct ktext *kt;
	struct stat st;
	int err;

	if (stat(path, &st))
		return -errno;
	if (kt_cache && key_same(&kt_cache->key, path, &st)) {
		*out = kt_cache;
		return 0;
	}
	kt = calloc(1, sizeof(*kt));
	if (!kt)
		return -ENOMEM;
	key_of(&kt->key, path, &st);
	kt->ks = kfit_ksyms_load(path);
	err = kt->ks ? ktext_index(kt) : -errno;
	if (err) {
		ktext_free(kt);
		return err;
	}
	ktext_free(kt_cache);
	kt_cache = kt;
	*out = kt;
	return 0;
}

static void ftext_free(struct ftext *ft)
{
	if (!ft)
		return;
	kfit_strset_free(&ft->set);
	free(ft->buf);
	free(ft);
}

/* Lines are "name" or "name [module]" */
static int ftext_parse(struct ftext *ft)
{
	char *p = ft->buf, *nl;
	int err = kfit_strset_init(&ft->set, count_lines(p));

	for (; !err && *p; p = nl) {
		nl = p + strcspn(p, "\n");
		if (*nl)
			*nl++ = '\0';
		p[strcspn(p, " \t")] = '\0';
		if (*p && kfit_strset_add(&ft->set, p, 0) < 0)
			err = -ENOMEM;
	}
	return err;
}

static int ftext_get(const char *path, const struct ftext **out)
{
	struct ftext *ft;
	struct stat st;
	int err;

	if (stat(path, &st))
		return -errno;
	if (ft_cache && key_same(&ft_cache->key, path, &st)) {
		*out = ft_cache;
		return 0;
	}
	ft = calloc(1, sizeof(*ft));
	if (!ft)
		return -ENOMEM;
	key_of(&ft->key, path, &st);
	ft->buf = kfit_read_all(path, NULL);
	err = ft->buf ? ftext_parse(ft) : -errno;
	if (err) {
		ftext_free(ft);
		return err;
	}
	ftext_free(ft_cache);
	ft_cache = ft;
	*out = ft;
	return 0;
}

/* FUNC names of types [first, btf__type_cnt(btf)) */
static int btfset_fill(struct btfset *bs, unsigned int first)
{
	const struct btf_type *t;
	unsigned int id;
	int err;

	err = kfit_strset_init(&bs->set, bs->ntypes - first);
	for (id = first; !err && id < bs->ntypes; id++) {
		t = btf__type_by_id(bs->btf, id);
		if (t && btf_is_func(t) &&
		    kfit_strset_add(&bs->set, btf__name_by_offset(bs->btf, t->name_off), 0) < 0)
			err = -ENOMEM;
	}
	return err;
}

/*
 * The FUNC set of the kernel's BTF (module "") or of a module's split
 * BTF over it, built once. NULL when there is none.
 */
static const struct btfset *btfset_get(const struct btf *btf, const char *module)
{
	struct btfset *bs;
	unsigned int first = 1;

	for (bs = btf_cache; bs; bs = bs->next)
		if (!strcmp(bs->module, module))
			return bs->ntypes ? bs : NULL;
	bs = calloc(1, sizeof(*bs));
	if (!bs)
		return NULL;
	snprintf(bs->module, sizeof(bs->module), "%s", module);
	bs->btf = btf;
	if (*module) {
		/* Not there: remembered as empty, not looked for again */
		bs->owned = btf__load_module_btf(module, (struct btf *)btf);
		first = btf__type_cnt(btf);
		bs->btf = bs->owned;
	}
	bs->ntypes = bs->btf ? btf__type_cnt(bs->btf) : 0;
	if (bs->ntypes && btfset_fill(bs, first)) {
		btf__free(bs->owned);
		free(bs);
		return NULL;
	}
	bs->next = btf_cache;
	btf_cache = bs;
	return bs->ntypes ? bs : NULL;
}

static bool in_btf(const struct resolver *r, const struct ksym_ent *e)
{
	const struct btfset *mod;

	if (kfit_strset_has(&r->btf->set, e->name))
		return true;
	if (!e->module || !r->live_btf)
		return false;
	mod = btfset_get(r->btf->btf, e->module);
	return mod && kfit_strset_has(&mod->set, e->name);
}

/* Why e cannot be traced, or NULL */
static const char *why_not(const struct resolver *r, const struct ksym_ent *e)
{
	if (r->ft && !kfit_strset_has(&r->ft->set, e->name))
		return R_NOT_FTRACE;
	if (r->btf && !in_btf(r, e))
		return R_NOT_BTF;
	return NULL;
}

static int add_name(struct resolver *r, const char *name)
{
	struct kfit_ktarget *o = r->out;
	char **v;

	if (o->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 16;
		v = realloc(o->names, r->cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		o->names = v;
	}
	o->names[o->n] = strdup(name);
	return o->names[o->n++] ? 0 : -ENOMEM;
}

static int add_skip(struct resolver *r, const char *name, const char *reason)
{
	struct kfit_ktarget *o = r->out;
	struct kfit_ktarget_skip *v, *s;

	if (o->nskipped == r->skcap) {
		r->skcap = r->skcap ? 2 * r->skcap : 16;
		v = realloc(o->skipped, r->skcap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		o->skipped = v;
	}
	s = &o->skipped[o->nskipped++];
	s->name = strdup(name);
	s->reason = strdup(reason);
	return s->name && s->reason ? 0 : -ENOMEM;
}

/* e is traced, or skipped with the reason */
static int add_ent(struct resolver *r, const struct ksym_ent *e)
{
	const char *why = why_not(r, e);

	return why ? add_skip(r, e->name, why) : add_name(r, e->name);
}

/* The function whose entries start at e[i]: itself, or only its clones */
static int add_base(struct resolver *r, int i)
{
	const struct ksym_ent *e = r->kt->e;
	char why[256];
	size_t off;
	int j, shown = 0;

	if (e[i].name == e[i].base)
		return add_ent(r, &e[i]);
	off = snprintf(why, sizeof(why), "only compiler clones (");
	for (j = i; j < r->kt->n && !strcmp(e[j].base, e[i].base); j++) {
		if (j > i && !strcmp(e[j].name, e[j - 1].name))
			continue;
		if (shown++ == MAX_CLONES_SHOWN) {
			off += snprintf(why + off, sizeof(why) - off, ", ...");
			break;
		}
		off += snprintf(why + off, sizeof(why) - off, "%s%s",
				shown > 1 ? ", " : "", e[j].name);
		if (off >= sizeof(why))
			break;
	}
	if (off < sizeof(why))
		snprintf(why + off, sizeof(why) - off, ") exist: inlined or specialized");
	return add_skip(r, e[i].base, why);
}

/* Index in kt->e of the first entry of base name, or -1 */
static int find_base(const struct ktext *kt, const char *name)
{
	int lo = 0, hi = kt->nubase, mid, c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(kt->e[kt->ubase[mid]].base, name);
		if (!c)
			return kt->ubase[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* A name with a '.' is a clone asked for by its full name */
static int find_full(const struct ktext *kt, const char *name)
{
	char base[256];
	int i;

	snprintf(base, sizeof(base), "%.*s", (int)strcspn(name, "."), name);
	i = find_base(kt, base);
	for (; i >= 0 && i < kt->n && !strcmp(kt->e[i].base, base); i++)
		if (!strcmp(kt->e[i].name, name))
			return i;
	return -1;
}

/*
 * The first alias of name whose target is in kallsyms: its target goes
 * to to, a note to note. Returns false when none applies.
 */
static bool find_alias(const struct ktext *kt, const char *name, char *to,
		       size_t tolen, char *note, size_t notelen)
{
	const struct kalias *a;
	size_t len;
	int i;

	for (i = 0; i < NR_ALIASES; i++) {
		a = &kaliases[i];
		if (!strcmp(a->name, "sys_*")) {
			if (strncmp(name, "sys_", 4) || !name[4])
				continue;
			snprintf(to, tolen, "__x64_%s", name);
		} else if (!strcmp(a->name, name)) {
			snprintf(to, tolen, "%s", a->to);
		} else {
			continue;
		}
		if (find_base(kt, to) < 0)
			continue;
		len = snprintf(note, notelen, "%s is %s on this kernel (%s)",
			       name, to, a->when);
		if (!strncmp(name, "sys_", 4) && len < notelen)
			snprintf(note + len, notelen - len, "; " SYS_HINT, name + 4);
		return true;
	}
	return false;
}

/*
 * Suggestions come from the functions there are, and from the aliases
 * that work here ("do_frok": do_fork, which is kernel_clone)
 */
static int unknown(const struct ktext *kt, const char *name, char *err, size_t errlen)
{
	const char **names;
	char closest[200], to[256], note[8];
	int i, n = kt->nplain, found;

	names = malloc(sizeof(*names) * (kt->nplain + NR_ALIASES));
	if (!names) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(names, kt->plain, sizeof(*names) * kt->nplain);
	for (i = 0; i < NR_ALIASES; i++)
		if (strcmp(kaliases[i].name, "sys_*") && find_base(kt, kaliases[i].name) < 0 &&
		    find_alias(kt, kaliases[i].name, to, sizeof(to), note, sizeof(note)) &&
		    (!n || strcmp(names[n - 1], kaliases[i].name)))
			names[n++] = kaliases[i].name;
	found = kfit_strdist_closest(name, names, n, 5, closest, sizeof(closest));
	free(names);
	if (found)
		snprintf(err, errlen, "unknown kernel function '%s'; closest: %s",
			 name, closest);
	else
		snprintf(err, errlen, "unknown kernel function '%s'", name);
	return -ENOENT;
}

static int resolve_name(struct resolver *r, const char *name, char *err, size_t errlen)
{
	char to[256];
	int i;

	if (strchr(name, '.')) {
		i = find_full(r->kt, name);
		return i < 0 ? unknown(r->kt, name, err, errlen) : add_ent(r, &r->kt->e[i]);
	}
	i = find_base(r->kt, name);
	if (i < 0 && find_alias(r->kt, name, to, sizeof(to), r->out->note,
				sizeof(r->out->note)))
		i = find_base(r->kt, to);
	if (i < 0)
		return unknown(r->kt, name, err, errlen);
	return add_base(r, i);
}

static int resolve_glob(struct resolver *r, const char *glob, char *err, size_t errlen)
{
	const struct ktext *kt = r->kt;
	int i, k, e = 0;
	bool matched = false;

	if (strchr(glob, '.')) {
		/* Clones by their full names */
		for (i = 0; !e && i < kt->n; i++) {
			if (fnmatch(glob, kt->e[i].name, 0))
				continue;
			if (i && !strcmp(kt->e[i].name, kt->e[i - 1].name))
				continue;
			matched = true;
			e = add_ent(r, &kt->e[i]);
		}
	} else {
		for (k = 0; !e && k < kt->nubase; k++) {
			i = kt->ubase[k];
			if (fnmatch(glob, kt->e[i].base, 0))
				continue;
			matched = true;
			e = add_base(r, i);
		}
	}
	if (e)
		return e;
	if (!matched) {
		snprintf(err, errlen, "no kernel function matches '%s'", glob);
		return -ENOENT;
	}
	return 0;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int skip_cmp(const void *a, const void *b)
{
	const struct kfit_ktarget_skip *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/*
 * Sorted, and each name once (the same name in vmlinux and a module).
 * Either list may be empty, and then NULL: qsort must not see that.
 */
static void sort_out(struct kfit_ktarget *o)
{
	int i, n = 0;

	if (o->n)
		qsort(o->names, o->n, sizeof(*o->names), str_cmp);
	for (i = 0; i < o->n; i++) {
		if (n && !strcmp(o->names[i], o->names[n - 1]))
			free(o->names[i]);
		else
			o->names[n++] = o->names[i];
	}
	o->n = n;
	if (o->nskipped)
		qsort(o->skipped, o->nskipped, sizeof(*o->skipped), skip_cmp);
	for (i = n = 0; i < o->nskipped; i++) {
		if (n && !strcmp(o->skipped[i].name, o->skipped[n - 1].name)) {
			free(o->skipped[i].name);
			free(o->skipped[i].reason);
		} else {
			o->skipped[n++] = o->skipped[i];
		}
	}
	o->nskipped = n;
}

static void add_note(struct kfit_ktarget *o, const char *s)
{
	size_t len = strlen(o->note);

	snprintf(o->note + len, sizeof(o->note) - len, "%s%s", len ? "; " : "", s);
}

/*
 * available_filter_functions: a file given must be read; the live one
 * may be missing or refused (some kernels forbid it), and then is not
 * checked.
 */
static int load_filter(const struct kfit_ktarget_src *src, struct resolver *r,
		       char *err, size_t errlen)
{
	const char *tracefs;
	char path[PATH_MAX];
	int e;

	if (src && src->filter_functions) {
		e = ftext_get(src->filter_functions, &r->ft);
		if (e)
			snprintf(err, errlen, "cannot read %s: %s",
				 src->filter_functions, strerror(-e));
		return e;
	}
	tracefs = kfit_tracefs();
	if (!tracefs) {
		snprintf(r->out->note, sizeof(r->out->note),
			 "tracefs is not mounted: ftrace-ability not checked");
		return 0;
	}
	snprintf(path, sizeof(path), "%s/available_filter_functions", tracefs);
	e = ftext_get(path, &r->ft);
	if (e)
		snprintf(r->out->note, sizeof(r->out->note), "available_filter_functions "
			 "unreadable (%s): ftrace-ability not checked", strerror(-e));
	return 0;
}

/*
 * The live BTF is indexed once; a BTF the caller gives may be freed after
 * the call, so its index is the call's own.
 */
static int load_btf(const struct kfit_ktarget_src *src, struct resolver *r,
		    char *err, size_t errlen)
{
	struct btfset *bs;

	if (src->btf) {
		r->own_btf = bs = calloc(1, sizeof(*bs));
		if (!bs)
			return -ENOMEM;
		bs->btf = src->btf;
		bs->ntypes = btf__type_cnt(src->btf);
		r->btf = bs;
		return btfset_fill(bs, 1);
	}
	r->live_btf = true;
	if (!kfit_btf_vmlinux()) {
		snprintf(err, errlen, "fentry needs BTF and this kernel has none "
			 "(no /sys/kernel/btf/vmlinux); try -k for kprobes");
		return -EOPNOTSUPP;
	}
	r->btf = btfset_get(kfit_btf_vmlinux(), "");
	return r->btf ? 0 : -ENOMEM;
}

int kfit_ktarget_resolve(const struct kfit_ktarget_src *src, const char *pattern,
			struct kfit_ktarget *out, char *err, size_t errlen)
{
	const char *kallsyms = src && src->kallsyms ? src->kallsyms : "/proc/kallsyms";
	struct resolver r = { .out = out };
	char note[sizeof(out->note)];
	int e;

	memset(out, 0, sizeof(*out));
	if (!pattern || !*pattern) {
		snprintf(err, errlen, "no kernel function given");
		return -EINVAL;
	}
	e = ktext_get(kallsyms, &r.kt);
	if (e) {
		snprintf(err, errlen, "cannot read %s: %s", kallsyms, strerror(-e));
		return e;
	}
	e = load_filter(src, &r, err, errlen);
	if (!e && src && src->need_btf)
		e = load_btf(src, &r, err, errlen);
	if (e)
		goto out;
	/* An alias's note comes first, the filter's after it */
	snprintf(note, sizeof(note), "%s", out->note);
	out->note[0] = '\0';
	e = is_glob(pattern) ? resolve_glob(&r, pattern, err, errlen) :
			       resolve_name(&r, pattern, err, errlen);
	if (!e && *note)
		add_note(out, note);
out:
	if (r.own_btf) {
		kfit_strset_free(&r.own_btf->set);
		free(r.own_btf);
	}
	if (e == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (e) {
		kfit_ktarget_free(out);
		return e;
	}
	sort_out(out);
	return 0;
}

void kfit_ktarget_free(struct kfit_ktarget *f)
{
	int i;

	for (i = 0; i < f->n; i++)
		free(f->names[i]);
	for (i = 0; i < f->nskipped; i++) {
		free(f->skipped[i].name);
		free(f->skipped[i].reason);
	}
	free(f->names);
	free(f->skipped);
	memset(f, 0, sizeof(*f));
}

const char *kfit_ktarget_alias_doc(void)
{
	static char doc[1024];
	const struct kalias *a;
	size_t off = 0;
	int i;

	if (doc[0])
		return doc;
	for (i = 0; i < NR_ALIASES && off < sizeof(doc); i++) {
		a = &kaliases[i];
		if (i && !strcmp(a->name, kaliases[i - 1].name))
			off += snprintf(doc + off, sizeof(doc) - off, ", else %s (%s)",
					a->to, a->when);
		else if (strcmp(a->name, "sys_*"))
			off += snprintf(doc + off, sizeof(doc) - off, "%s%-13s %s (%s)",
					i ? "\n" : "", a->name, a->to, a->when);
		else
			off += snprintf(doc + off, sizeof(doc) - off,
					"%s%-13s __x64_sys_NAME (%s); " SYS_HINT,
					i ? "\n" : "", "sys_NAME", a->when, "NAME");
	}
	if (off < sizeof(doc))
		snprintf(doc + off, sizeof(doc) - off, "\n");
	return doc;
}
