// SPDX-License-Identifier: GPL-2.0
/*
 * pprof profiles: the flame's stacks (export.c) as the samples of a
 * perftools.profiles.Profile (proto/profile.proto of github.com/google/pprof),
 * encoded here by its field numbers and gzip'd, as pprof reads it.
 *
 * A sample per distinct stack of the flame, its frames leaf first, the
 * thread's name a label (not a frame: -top's rows are then the functions
 * alone, as kd --summary's; pprof -tagroot=thread puts it back on top).
 * Exact mode's values are a stack's calls, its self time (the folded
 * stacks' value: pprof sums it into cum, the calls' total time) and its
 * calls' LOCAL; sampled mode's its samples and their CPU time.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "export_int.h"
#include "strset.h"

/* ---- protobuf: varints and length-delimited fields ---- */

enum { PB_VARINT = 0, PB_LEN = 2 };

struct pb {
	__u8 *b;
	size_t n, cap;
	bool oom;		/* a write failed: the buffer is incomplete */
};

static void pb_put(struct pb *p, const void *d, size_t len)
{
	size_t cap;
	__u8 *b;

	if (p->oom || !len)
		return;
	if (p->n + len > p->cap) {
		for (cap = p->cap ? p->cap : 256; cap < p->n + len; cap *= 2)
			;
		b = realloc(p->b, cap);
		if (!b) {
			p->oom = true;
			return;
		}
		p->b = b;
		p->cap = cap;
	}
	memcpy(p->b + p->n, d, len);
	p->n += len;
}

static void pb_varint(struct pb *p, __u64 v)
{
	__u8 b[10];
	int n = 0;

	while (v >= 0x80) {
		b[n++] = (v & 0x7f) | 0x80;
		v >>= 7;
	}
	b[n++] = v;
	pb_put(p, b, n);
}

static void pb_tag(struct pb *p, int field, int wire)
{
	pb_varint(p, (__u64)field << 3 | wire);
}

/* An integer field; 0, proto3's default, is left out */
static void pb_uint(struct pb *p, int field, __u64 v)
{
	if (!v)
		return;
	pb_tag(p, field, PB_VARINT);
	pb_varint(p, v);
}

static void pb_bytes(struct pb *p, int field, const void *d, size_t len)
{
	pb_tag(p, field, PB_LEN);
	pb_varint(p, len);
	pb_put(p, d, len);
}

/* Message m as field of p; m emptied for the next one */
static void pb_msg(struct pb *p, int field, struct pb *m)
{
	if (m->oom)
		p->oom = true;
	pb_bytes(p, field, m->b, m->n);
	m->n = 0;
	m->oom = false;
}

/* A packed repeated integer field (zeros kept: they are values) */
static void pb_packed(struct pb *p, int field, const __u64 *v, size_t n, struct pb *tmp)
{
	size_t i;

	for (i = 0; i < n; i++)
		pb_varint(tmp, v[i]);
	pb_msg(p, field, tmp);
}

/* ---- the profile ---- */

/* profile.proto's field numbers */
enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE, P_MAPPING, P_LOCATION, P_FUNCTION, P_STRING,
	P_TIME = 9, P_DURATION, P_PERIOD_TYPE, P_PERIOD, P_COMMENT, P_DEFAULT_TYPE,
};
enum { VT_TYPE = 1, VT_UNIT };
enum { S_LOCATION = 1, S_VALUE, S_LABEL };
enum { L_KEY = 1, L_STR };
enum { M_ID = 1, M_FILENAME = 5, M_BUILD_ID, M_HAS_FUNCTIONS };
enum { LOC_ID = 1, LOC_MAPPING, LOC_LINE = 4 };
enum { LINE_FUNCTION = 1 };
enum { F_ID = 1, F_NAME, F_SYSTEM_NAME, F_FILENAME };

#define MAX_VALUES	3

struct pprof {
	const struct flame *fl;
	const struct kfit_export_pprof_opts *o;
	bool sampled;
	struct pb samples, mappings, locations, functions, tmp, msg;
	const char **strs;		/* the string table: index -> string */
	int nstrs, capstrs;
	struct kfit_strset str_idx;	/* string -> index */
	struct kfit_strset objs;	/* o->objs' names -> their index */
	struct kfit_strset maps;	/* a mapping's file -> its id */
	struct kfit_strset funcs;	/* func_key -> function (and location) id */
	char **keys;			/* strings made here (keep) */
	int nkeys, capkeys;
	int nmaps, nfuncs;
	__u64 ninline;			/* locations of inlined calls, ids from 2^32 */
	__u64 *locs;			/* a flame node's location id; 0: not known yet */
	char *key;			/* func_key's */
	size_t ckey;
	__u64 *stack;			/* a sample's, leaf first */
	size_t cstack;
	int thread_key;			/* "thread", the samples' label */
};

/* A string of ours (a key, a mapping's name), kept until the end: the sets copy none */
static const char *keep(struct pprof *p, const char *fmt, ...)
{
	va_list ap;
	char **v, *k;
	int r;

	if (p->nkeys == p->capkeys) {
		v = realloc(p->keys, (p->capkeys ? 2 * p->capkeys : 64) * sizeof(*v));
		if (!v)
			return NULL;
		p->keys = v;
		p->capkeys = p->capkeys ? 2 * p->capkeys : 64;
	}
	va_start(ap, fmt);
	r = vasprintf(&k, fmt, ap);
	va_end(ap);
	if (r < 0)
		return NULL;
	p->keys[p->nkeys++] = k;
	return k;
}

/* The index of s in the string table, added if new; -1: out of memory */
static int str_of(struct pprof *p, const char *s)
{
	const char **v;
	int i = kfit_strset_get(&p->str_idx, s);

	if (i >= 0)
		return i;
	if (p->nstrs == p->capstrs) {
		v = realloc(p->strs, (p->capstrs ? 2 * p->capstrs : 64) * sizeof(*v));
		if (!v)
			return -1;
		p->strs = v;
		p->capstrs = p->capstrs ? 2 * p->capstrs : 64;
	}
	if (kfit_strset_add(&p->str_idx, s, p->nstrs) < 0)
		return -1;
	p->strs[p->nstrs] = s;
	return p->nstrs++;
}

/* A ValueType {type, unit} as field of to */
static int value_type(struct pprof *p, struct pb *to, int field, const char *type,
		      const char *unit)
{
	int t = str_of(p, type), u = str_of(p, unit);

	if (t < 0 || u < 0)
		return -ENOMEM;
	pb_uint(&p->msg, VT_TYPE, t);
	pb_uint(&p->msg, VT_UNIT, u);
	pb_msg(to, field, &p->msg);
	return 0;
}

/* The mapping of an object file (build_id: hex or NULL): its id, or 0 (out of memory) */
static __u64 mapping_of(struct pprof *p, const char *file, const char *build_id)
{
	int id = kfit_strset_get(&p->maps, file), f, b;

	if (id > 0)
		return id;
	f = str_of(p, file);
	b = str_of(p, build_id ? build_id : "");
	if (f < 0 || b < 0 || kfit_strset_add(&p->maps, file, p->nmaps + 1) < 0)
		return 0;
	id = ++p->nmaps;
	pb_uint(&p->msg, M_ID, id);
	pb_uint(&p->msg, M_FILENAME, f);
	pb_uint(&p->msg, M_BUILD_ID, b);
	/* its functions named already: nothing for a reader to look up */
	pb_uint(&p->msg, M_HAS_FUNCTIONS, 1);
	pb_msg(&p->mappings, P_MAPPING, &p->msg);
	return id;
}

/* The kernel's, "[kernel.kallsyms]", or a module's, "[MODULE]", as perf names them */
static __u64 kernel_mapping(struct pprof *p, const char *module)
{
	const char *file;

	if (!module || !*module || !strcmp(module, "vmlinux"))
		return mapping_of(p, "[kernel.kallsyms]", p->o->kernel_build_id);
	file = keep(p, "[%s]", module);
	return file ? mapping_of(p, file, NULL) : 0;
}

/* What the caller says of function name: its entry of o->objs, or NULL */
static const struct kfit_export_pprof_obj *obj_of(const struct pprof *p, const char *name)
{
	int i = kfit_strset_get(&p->objs, name);

	return i >= 0 ? &p->o->objs[i] : NULL;
}

/* The length of a sampled kernel frame's name before " [module]", or 0: none */
static size_t module_at(const char *name)
{
	const char *sp = strrchr(name, ' ');
	size_t len = strlen(name);

	if (!sp || sp == name || sp[1] != '[' || name[len - 1] != ']' || sp + 3 > name + len - 1)
		return 0;
	return sp - name;
}

/*
 * The mapping of a frame: the kernel's or a module's for kernel code, the
 * object the caller names for user code; none (0) for the frames that
 * are no code (interrupts, off CPU, lost records) and for unknown
 * objects. -ENOMEM.
 */
static long long frame_mapping(struct pprof *p, const struct fnode *v)
{
	const struct kfit_export_pprof_obj *ob = obj_of(p, v->name);
	const char *mod = NULL;
	size_t at;
	bool kernel;
	__u64 id;

	if (v->cls != FC_KERNEL && v->cls != FC_USER && v->cls != FC_CODE)
		return 0;
	kernel = v->cls == FC_KERNEL || (v->cls == FC_CODE && ob && ob->kernel);
	if (!kernel && !(ob && ob->object && *ob->object))
		return 0;
	if (!kernel) {
		id = mapping_of(p, ob->object, ob->build_id && *ob->build_id ? ob->build_id : NULL);
	} else if (ob) {
		id = kernel_mapping(p, ob->object);
	} else {
		at = module_at(v->name);
		if (at && !(mod = keep(p, "%.*s", (int)(strlen(v->name) - at - 3),
				       v->name + at + 2)))
			return -ENOMEM;
		id = kernel_mapping(p, mod);
	}
	return id ? (long long)id : -ENOMEM;
}

/* A sampled kernel frame's symbol: "func" of "func [module]" */
static const char *system_name(struct pprof *p, const struct fnode *v)
{
	size_t at = v->cls == FC_KERNEL ? module_at(v->name) : 0;

	return at ? keep(p, "%.*s", (int)at, v->name) : v->name;
}

/* A function's key, "MAPPING\tCLASS\tNAME", in p->key: its length, or -ENOMEM */
static int func_key(struct pprof *p, long long map, int cls, const char *name, size_t nlen)
{
	size_t len = nlen + 48;
	char *k;

	if (len > p->ckey) {
		k = realloc(p->key, len);
		if (!k)
			return -ENOMEM;
		p->key = k;
		p->ckey = len;
	}
	return snprintf(p->key, len, "%lld\t%d\t%.*s", map, cls, (int)nlen, name);
}

/*
 * The function of that name in its mapping, and a location of its own
 * (the same id: no address, calls are named by the function table,
 * samples by name once merged). Its id, or 0 (out of memory).
 */
static __u64 func_of(struct pprof *p, long long map, const struct fnode *v, size_t nlen)
{
	const char *key, *sys, *full;
	int id, name, sname;

	/* the class too: a kernel and a user function may share a name */
	if (map < 0 || func_key(p, map, v->cls, v->name, nlen) < 0)
		return 0;
	id = kfit_strset_get(&p->funcs, p->key);
	if (id > 0)
		return id;
	key = keep(p, "%s", p->key);
	/* an inlined function's name is its frame's without " (inlined)" */
	full = nlen < strlen(v->name) ? keep(p, "%.*s", (int)nlen, v->name) : v->name;
	sys = full == v->name ? system_name(p, v) : full;
	name = full ? str_of(p, full) : -1;
	sname = sys ? str_of(p, sys) : -1;
	if (!key || name < 0 || sname < 0 || kfit_strset_add(&p->funcs, key, p->nfuncs + 1) < 0)
		return 0;
	id = ++p->nfuncs;
	pb_uint(&p->msg, F_ID, id);
	pb_uint(&p->msg, F_NAME, name);
	pb_uint(&p->msg, F_SYSTEM_NAME, sname);
	pb_msg(&p->functions, P_FUNCTION, &p->msg);
	pb_uint(&p->msg, LOC_ID, id);
	pb_uint(&p->msg, LOC_MAPPING, map);
	pb_uint(&p->tmp, LINE_FUNCTION, id);
	pb_msg(&p->msg, LOC_LINE, &p->tmp);
	pb_msg(&p->locations, P_LOCATION, &p->msg);
	return id;
}

/* The location of flame node i: its function's. Its id, or 0 (out of memory) */
static __u64 location_of(struct pprof *p, __u32 i)
{
	const struct fnode *v = &p->fl->v[i];

	if (!p->locs[i])
		p->locs[i] = func_of(p, frame_mapping(p, v), v, strlen(v->name));
	return p->locs[i];
}

#define INLINED		" (inlined)"
#define INLINED_LEN	(sizeof(INLINED) - 1)
#define MAX_INLINE_LINES	32	/* a location's inlined calls (more: dropped) */

/* A frame of a function inlined in its parent's (the symbolizer's "NAME (inlined)") */
static bool inlined(const struct fnode *v)
{
	size_t n = strlen(v->name);

	return v->cls == FC_USER && n > INLINED_LEN && !strcmp(v->name + n - INLINED_LEN, INLINED);
}

/*
 * Node i, inlined, and the inlined ones above it up to the function that
 * holds them (*outer): one location, a line a function, innermost first,
 * as pprof writes inlined calls. Its id (cached at i), or 0.
 */
static __u64 inline_location(struct pprof *p, __u32 i, __u32 *outer)
{
	const struct fnode *v = p->fl->v;
	__u64 id, fids[MAX_INLINE_LINES + 1];
	long long map;
	int n, k;
	__u32 j;

	for (j = i; j && inlined(&v[j]); j = v[j].parent)
		;
	*outer = j;
	/* nothing holds it (a tree cut above it): a function of its own */
	if (!j || v[j].cls != FC_USER) {
		*outer = i;
		return location_of(p, i);
	}
	if (p->locs[i])
		return p->locs[i];
	map = frame_mapping(p, &v[j]);
	if (map < 0 || !location_of(p, j))
		return 0;
	/* the functions first: making one writes messages of its own */
	for (n = 0, j = i; inlined(&v[j]) && n < MAX_INLINE_LINES; j = v[j].parent)
		if (!(fids[n++] = func_of(p, map, &v[j], strlen(v[j].name) - INLINED_LEN)))
			return 0;
	for (; inlined(&v[j]); j = v[j].parent)
		;
	fids[n++] = p->locs[j];
	id = ((__u64)1 << 32) + ++p->ninline;
	pb_uint(&p->msg, LOC_ID, id);
	pb_uint(&p->msg, LOC_MAPPING, map);
	for (k = 0; k < n; k++) {
		pb_uint(&p->tmp, LINE_FUNCTION, fids[k]);
		pb_msg(&p->msg, LOC_LINE, &p->tmp);
	}
	pb_msg(&p->locations, P_LOCATION, &p->msg);
	return p->locs[i] = id;
}

/* Node v's values: exact calls, wall (self) and LOCAL; sampled samples and CPU time */
static size_t values_of(const struct pprof *p, const struct fnode *v, __u64 *val)
{
	if (p->sampled) {
		val[0] = v->self;
		val[1] = v->self * p->o->period_ns;
		return 2;
	}
	val[0] = v->calls;
	val[1] = v->self;
	val[2] = v->local;
	return 3;
}

static int push(struct pprof *p, size_t n, __u64 loc)
{
	__u64 *s;

	if (n == p->cstack) {
		s = realloc(p->stack, (p->cstack ? 2 * p->cstack : 64) * sizeof(*s));
		if (!s)
			return -ENOMEM;
		p->stack = s;
		p->cstack = p->cstack ? 2 * p->cstack : 64;
	}
	p->stack[n] = loc;
	return 0;
}

/* Node i's stack, leaf first up to its thread, as a sample with its values */
static int sample(struct pprof *p, __u32 i)
{
	const struct fnode *v = p->fl->v;
	__u64 val[MAX_VALUES], loc;
	size_t n = 0, k, nv = values_of(p, &v[i], val);
	int th = -1;
	__u32 j;

	for (k = 0; k < nv && !val[k]; k++)
		;
	if (k == nv)
		return 0;
	for (j = i; j && v[j].cls != FC_THREAD; j = v[j].parent) {
		loc = inlined(&v[j]) ? inline_location(p, j, &j) : location_of(p, j);
		if (!loc || push(p, n++, loc))
			return -ENOMEM;
	}
	if (j && (th = str_of(p, v[j].name)) < 0)
		return -ENOMEM;
	pb_packed(&p->msg, S_LOCATION, p->stack, n, &p->tmp);
	pb_packed(&p->msg, S_VALUE, val, nv, &p->tmp);
	if (th >= 0) {
		pb_uint(&p->tmp, L_KEY, p->thread_key);
		pb_uint(&p->tmp, L_STR, th);
		pb_msg(&p->msg, S_LABEL, &p->tmp);
	}
	pb_msg(&p->samples, P_SAMPLE, &p->msg);
	return 0;
}

/* Pre-order, the folded stacks' order: the node after i, 0 when done */
static __u32 next_node(const struct flame *fl, __u32 i)
{
	if (fl->v[i].child)
		return fl->v[i].child;
	while (i && !fl->v[i].next)
		i = fl->v[i].parent;
	return i ? fl->v[i].next : 0;
}

static int samples(struct pprof *p)
{
	__u32 i;
	int err = 0;

	for (i = next_node(p->fl, 0); !err && i; i = next_node(p->fl, i))
		err = sample(p, i);
	return err;
}

/* The sample types, the period, the comments: what the samples do not say */
static int header(struct pprof *p, struct pb *out)
{
	const struct kfit_export_pprof_opts *o = p->o;
	const char *const *c;
	int err, s;

	if (p->sampled)
		err = value_type(p, out, P_SAMPLE_TYPE, "samples", "count") ?:
		      value_type(p, out, P_SAMPLE_TYPE, "cpu", "nanoseconds");
	else
		err = value_type(p, out, P_SAMPLE_TYPE, "calls", "count") ?:
		      value_type(p, out, P_SAMPLE_TYPE, "wall", "nanoseconds") ?:
		      value_type(p, out, P_SAMPLE_TYPE, "local", "nanoseconds");
	if (err)
		return err;
	pb_uint(out, P_TIME, o->time_ns);
	pb_uint(out, P_DURATION, o->duration_ns);
	if (p->sampled) {
		if (value_type(p, out, P_PERIOD_TYPE, "cpu", "nanoseconds"))
			return -ENOMEM;
		pb_uint(out, P_PERIOD, o->period_ns);
	}
	for (c = o->comments; c && *c; c++) {
		if ((s = str_of(p, *c)) < 0)
			return -ENOMEM;
		pb_uint(out, P_COMMENT, s);
	}
	/* what -top shows unless told (-sample_index) */
	s = str_of(p, p->sampled ? "cpu" : "wall");
	if (s < 0)
		return -ENOMEM;
	pb_uint(out, P_DEFAULT_TYPE, s);
	return 0;
}

/* The string table, index 0 "" first as profile.proto wants */
static void strings(struct pprof *p, struct pb *out)
{
	int i;

	for (i = 0; i < p->nstrs; i++)
		pb_bytes(out, P_STRING, p->strs[i], strlen(p->strs[i]));
}

/* What the profile's objects come from: o->objs by name */
static int pprof_init(struct pprof *p, const struct flame *fl,
		      const struct kfit_export_pprof_opts *o)
{
	int i;

	memset(p, 0, sizeof(*p));
	p->fl = fl;
	p->o = o;
	p->sampled = fl->src && fl->src->sampled;
	p->locs = calloc(fl->n ? fl->n : 1, sizeof(*p->locs));
	if (!p->locs || str_of(p, "") != 0 || (p->thread_key = str_of(p, "thread")) < 0)
		return -ENOMEM;
	for (i = 0; i < o->nobjs; i++)
		if (o->objs[i].name && kfit_strset_add(&p->objs, o->objs[i].name, i) < 0)
			return -ENOMEM;
	return 0;
}

static void pprof_free(struct pprof *p)
{
	int i;

	free(p->samples.b);
	free(p->mappings.b);
	free(p->locations.b);
	free(p->functions.b);
	free(p->tmp.b);
	free(p->msg.b);
	free(p->strs);
	kfit_strset_free(&p->str_idx);
	kfit_strset_free(&p->objs);
	kfit_strset_free(&p->maps);
	kfit_strset_free(&p->funcs);
	for (i = 0; i < p->nkeys; i++)
		free(p->keys[i]);
	free(p->keys);
	free(p->locs);
	free(p->key);
	free(p->stack);
}

/* The Profile message of the flame into out */
static int encode(struct pprof *p, struct pb *out)
{
	int err = header(p, out) ?: samples(p);

	if (err)
		return err;
	pb_put(out, p->samples.b, p->samples.n);
	pb_put(out, p->mappings.b, p->mappings.n);
	pb_put(out, p->locations.b, p->locations.n);
	pb_put(out, p->functions.b, p->functions.n);
	strings(p, out);
	if (out->oom || p->samples.oom || p->mappings.oom || p->locations.oom ||
	    p->functions.oom)
		return -ENOMEM;
	return 0;
}

/* len bytes at b gzip'd into f, as profile.proto wants them on disk */
static int gzip_write(const __u8 *b, size_t len, FILE *f)
{
	__u8 out[16384];
	z_stream z;
	size_t piece;
	int r, flush;

	memset(&z, 0, sizeof(z));
	/* 16 + 15: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + 15, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	do {
		piece = len > (1U << 30) ? (1U << 30) : len;
		z.next_in = (Bytef *)b;
		z.avail_in = piece;
		b += piece;
		len -= piece;
		flush = len ? Z_NO_FLUSH : Z_FINISH;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			r = deflate(&z, flush);
			if (fwrite(out, 1, sizeof(out) - z.avail_out, f) != sizeof(out) - z.avail_out)
				r = Z_ERRNO;
		} while (r == Z_OK && (z.avail_in || flush == Z_FINISH));
	} while (len && r == Z_OK);
	deflateEnd(&z);
	if (r != Z_STREAM_END)
		return r == Z_ERRNO ? -EIO : -ENOMEM;
	return export_finish_file(f);
}

static int pprof_write(const struct flame *fl, const struct kfit_export_pprof_opts *o, FILE *f)
{
	struct pb out = { 0 };
	struct pprof p;
	int err;

	err = pprof_init(&p, fl, o);
	if (!err)
		err = encode(&p, &out);
	if (!err)
		err = gzip_write(out.b, out.n, f);
	pprof_free(&p);
	free(out.b);
	return err;
}

int kfit_export_pprof(const struct kfit_export_src *s, const struct kfit_export_pprof_opts *o,
		      FILE *f)
{
	struct flame fl;
	int err;

	err = export_flame_build(&fl, s);
	if (!err)
		err = pprof_write(&fl, o, f);
	export_flame_free(&fl);
	return err;
}

int kfit_export_flame_pprof(struct kfit_export_flame *f, const struct kfit_export_pprof_opts *o,
			    FILE *out)
{
	const struct flame *fl = export_flame_of(f);

	return fl ? pprof_write(fl, o, out) : -EINVAL;
}
