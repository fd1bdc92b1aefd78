// SPDX-License-Identifier: GPL-2.0
/*
 * The trace file's description blocks, parsed in place for the reader
 * (kft_read.c), which has read them and checked their CRCs: outside
 * input still, parsed without fixed buffers.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kft_file.h"
#include "tpformat.h"

/* Table ids above this are refused: allocations stay sane */
#define ID_MAX		(1U << 20)

/* The next line of *p (NUL-terminated in place), or NULL at the end */
static char *next_line(char **p, char *end)
{
	char *l = *p, *nl;

	if (l >= end)
		return NULL;
	nl = memchr(l, '\n', end - l);
	if (!nl)
		nl = end;
	*nl = '\0';
	*p = nl + 1;
	return l;
}

/* Split at tabs into at most max fields, the last taking the rest: how many */
static int split(char *line, char **fld, int max)
{
	int n = 0;

	fld[n++] = line;
	while (n < max) {
		char *t = strchr(fld[n - 1], '\t');

		if (!t)
			break;
		*t = '\0';
		fld[n++] = t + 1;
	}
	return n;
}

/* A whole unsigned number in base (no sign, no spaces): 0 or -1 */
int kft_text_parse_u64(const char *s, int base, __u64 *v)
{
	unsigned long long x;
	char *end;

	if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	/* strtoull would take spaces and signs */
	if (!isxdigit((unsigned char)s[0]) || (base == 10 && !isdigit((unsigned char)s[0])))
		return -1;
	errno = 0;
	x = strtoull(s, &end, base);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

static int parse_u32(const char *s, __u32 *v)
{
	__u64 x;

	if (kft_text_parse_u64(s, 10, &x) || x > UINT32_MAX)
		return -1;
	*v = x;
	return 0;
}

static int parse_id(const char *s, __u32 *v)
{
	return parse_u32(s, v) || *v >= ID_MAX ? -1 : 0;
}

static int kv_add(struct kvs *t, const char *key, const char *val)
{
	if (t->n == t->alloc) {
		int n = t->alloc ? 2 * t->alloc : 32;
		struct kft_kv *kv = realloc(t->kv, n * sizeof(*kv));

		if (!kv)
			return -ENOMEM;
		t->kv = kv;
		t->alloc = n;
	}
	t->kv[t->n++] = (struct kft_kv){ key, val };
	return 0;
}

/* "key=value" lines; lines without '=' carry nothing and are skipped */
int kft_text_parse_kv(struct kft_file *f, struct kvs *t, char *p, char *end)
{
	char *l, *eq;

	while ((l = next_line(&p, end))) {
		eq = strchr(l, '=');
		if (!eq || eq == l)
			continue;
		*eq = '\0';
		if (kv_add(t, l, eq + 1))
			return kft_file_fail(f, "out of memory");
	}
	return 0;
}

static int count_lines(const char *p, const char *end)
{
	int n = 0;

	for (; p < end; p++)
		n += *p == '\n';
	return n + 1;
}

/*
 * Each id of n entries once, all below n: ids[] (by the position of each
 * entry) become the table's order. 0 or -1.
 */
static int dense_ids(const __u32 *ids, int n, int *pos)
{
	int i;

	for (i = 0; i < n; i++)
		pos[i] = -1;
	for (i = 0; i < n; i++) {
		if (ids[i] >= (__u32)n || pos[ids[i]] >= 0)
			return -1;
		pos[ids[i]] = i;
	}
	return 0;
}

/*
 * The n entries of t (size bytes each; ids[i] is t[i]'s) in the order of
 * their ids, which must be 0..n-1 once each: a new array into *sorted.
 */
static int order_by_id(struct kft_file *f, const char *block, const void *t,
		       const __u32 *ids, int n, size_t size, void **sorted)
{
	int *pos = malloc((n ? n : 1) * sizeof(*pos));
	char *o = calloc(n ? n : 1, size);
	int i, rc = 0;

	if (!pos || !o) {
		rc = kft_file_fail(f, "out of memory");
		goto out;
	}
	if (dense_ids(ids, n, pos)) {
		rc = kft_file_fail(f, "corrupt trace file: the ids of its %s block are not 0..%d once each",
				   block, n - 1);
		goto out;
	}
	for (i = 0; i < n; i++)
		memcpy(o + (size_t)i * size, (const char *)t + (size_t)pos[i] * size, size);
	*sorted = o;
	o = NULL;
out:
	free(o);
	free(pos);
	return rc;
}

/* FUNCS: "ID\tKIND\tNAME\tOBJECT\tBUILD_ID\tFLAGS[\tRET]", ids 0..N-1 */
int kft_text_parse_funcs(struct kft_file *f, char *p, char *end)
{
	int max = count_lines(p, end), n = 0, rc = 0;
	struct kft_func *t = NULL;
	void *out;
	__u32 *ids = NULL;
	char *l, *fld[7];
	__u64 ret = 0;
	int nf;

	if (f->funcs)
		return kft_file_fail(f, "corrupt trace file: two FUNCS blocks");
	t = calloc(max, sizeof(*t));
	ids = calloc(max, sizeof(*ids));
	if (!t || !ids) {
		rc = kft_file_fail(f, "out of memory");
		goto out;
	}
	while ((l = next_line(&p, end))) {
		if (!*l)
			continue;
		/* files before return values have no RET: the whole register */
		nf = split(l, fld, 7);
		if (nf < 6 || parse_id(fld[0], &ids[n]) ||
		    (strcmp(fld[1], "k") && strcmp(fld[1], "u")) || !*fld[2] ||
		    (nf == 7 && (kft_text_parse_u64(fld[6], 16, &ret) || ret > 0xff))) {
			rc = kft_file_fail(f, "corrupt trace file: bad line %d of its FUNCS block",
					   n + 1);
			goto out;
		}
		t[n] = (struct kft_func){
			.id = ids[n], .kernel = fld[1][0] == 'k',
			.dropped = strstr(fld[5], "dropped") != NULL,
			.name = fld[2], .object = fld[3],
			.build_id = strcmp(fld[4], "-") ? fld[4] : "",
			.ret = nf == 7 ? ret : 0,
		};
		n++;
	}
	rc = order_by_id(f, "FUNCS", t, ids, n, sizeof(*t), &out);
	if (rc)
		goto out;
	f->funcs = out;
	f->nfuncs = n;
out:
	free(ids);
	free(t);
	return rc;
}

/* A text of the file's own, kept until kft_close */
static char *keep_text(struct kft_file *f, const char *s, size_t len)
{
	char **t = realloc(f->texts, (f->ntexts + 1) * sizeof(*t));
	char *c;

	if (!t)
		return NULL;
	f->texts = t;
	c = malloc(len + 1);
	if (!c)
		return NULL;
	memcpy(c, s, len);
	c[len] = '\0';
	f->texts[f->ntexts++] = c;
	return c;
}

/* An event's format text (from *p to end, in place): its fields */
static int parse_format(struct kft_file *f, struct kft_event *ev, char *p, char *end)
{
	int max = count_lines(p, end), n = 0, r;
	struct kfit_tpfield *fl = calloc(max, sizeof(*fl));
	char *l;

	if (!fl)
		return kft_file_fail(f, "out of memory");
	while ((l = next_line(&p, end))) {
		l += strspn(l, " \t");
		if (strncmp(l, "field:", 6))
			continue;
		r = kfit_tpformat_field(l, &fl[n]);
		if (r < 0) {
			free(fl);
			return kft_file_fail(f, "corrupt trace file: a bad field line in the format of %s", ev->name);
		}
		n += r;
	}
	/* The array lives in f->texts, freed with the rest */
	if (!keep_text(f, (const char *)fl, n * sizeof(*fl))) {
		free(fl);
		return kft_file_fail(f, "out of memory");
	}
	ev->fields = (const struct kfit_tpfield *)f->texts[f->ntexts - 1];
	ev->nfields = n;
	free(fl);
	return 0;
}

/*
 * EVENTS: "event ID CAT:NAME", then its format file's lines up to the next
 * "event " line (the format has empty lines of its own).
 */
int kft_text_parse_events(struct kft_file *f, char *p, char *end)
{
	int max = count_lines(p, end), n = 0, rc = 0;
	struct kft_event *t = NULL;
	void *out;
	__u32 *ids = NULL;

	if (f->events)
		return kft_file_fail(f, "corrupt trace file: two EVENTS blocks");
	t = calloc(max, sizeof(*t));
	ids = calloc(max, sizeof(*ids));
	if (!t || !ids) {
		rc = kft_file_fail(f, "out of memory");
		goto out;
	}
	while (p < end) {
		char *l = p, *nl = memchr(p, '\n', end - p), *fmt, *fend, *sp, *copy;

		if (!nl)
			nl = end;
		if (l == nl) {		/* empty lines between events */
			p = nl + 1;
			continue;
		}
		if (nl - l < 7 || memcmp(l, "event ", 6)) {
			rc = kft_file_fail(f, "corrupt trace file: its EVENTS block has text outside an event");
			goto out;
		}
		*nl = '\0';
		sp = strchr(l + 6, ' ');
		if (!sp || !sp[1] || strchr(sp + 1, ' ')) {
			rc = kft_file_fail(f, "corrupt trace file: a bad event line in its EVENTS block");
			goto out;
		}
		*sp = '\0';
		if (parse_id(l + 6, &ids[n])) {
			rc = kft_file_fail(f, "corrupt trace file: a bad event id in its EVENTS block");
			goto out;
		}
		t[n].id = ids[n];
		t[n].name = sp + 1;
		/* Its format: to the next "event " line */
		fmt = fend = nl < end ? nl + 1 : end;
		while (fend < end && !(end - fend >= 6 && !memcmp(fend, "event ", 6))) {
			char *e = memchr(fend, '\n', end - fend);

			fend = e ? e + 1 : end;
		}
		p = fend;
		/* Without the empty lines that end it */
		while (fend > fmt + 1 && fend[-1] == '\n' && fend[-2] == '\n')
			fend--;
		if (fend == fmt + 1 && fmt[0] == '\n')
			fend = fmt;
		copy = keep_text(f, fmt, fend - fmt);
		if (!copy || !keep_text(f, fmt, fend - fmt)) {
			rc = kft_file_fail(f, "out of memory");
			goto out;
		}
		t[n].format = copy;
		copy = f->texts[f->ntexts - 1];
		rc = parse_format(f, &t[n], copy, copy + (fend - fmt));
		if (rc)
			goto out;
		n++;
	}
	rc = order_by_id(f, "EVENTS", t, ids, n, sizeof(*t), &out);
	if (rc)
		goto out;
	f->events = out;
	f->nevents = n;
out:
	free(ids);
	free(t);
	return rc;
}

/* TASKS: "PID\tTID\tPPID\tCOMM" */
int kft_text_parse_tasks(struct kft_file *f, char *p, char *end)
{
	int max = count_lines(p, end), n = f->ntasks;
	struct kft_task *t = realloc(f->tasks, (n + max) * sizeof(*t));
	char *l, *fld[4];

	if (!t)
		return kft_file_fail(f, "out of memory");
	f->tasks = t;
	while ((l = next_line(&p, end))) {
		if (!*l)
			continue;
		memset(&t[n], 0, sizeof(t[n]));
		if (split(l, fld, 4) != 4 || parse_u32(fld[0], &t[n].pid) ||
		    parse_u32(fld[1], &t[n].tid) || parse_u32(fld[2], &t[n].ppid))
			return kft_file_fail(f, "corrupt trace file: bad line %d of its TASKS block",
					     n - f->ntasks + 1);
		snprintf(t[n].comm, sizeof(t[n].comm), "%s", fld[3]);
		n++;
		f->ntasks = n;
	}
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	const struct kft_name *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* NAMES: "TS\tPID\tTID\tCOMM" */
int kft_text_parse_names(struct kft_file *f, char *p, char *end)
{
	int max = count_lines(p, end), n = f->nnames;
	struct kft_name *t = realloc(f->names, (n + max) * sizeof(*t));
	char *l, *fld[4];

	if (!t)
		return kft_file_fail(f, "out of memory");
	f->names = t;
	while ((l = next_line(&p, end))) {
		if (!*l)
			continue;
		memset(&t[n], 0, sizeof(t[n]));
		if (split(l, fld, 4) != 4 || kft_text_parse_u64(fld[0], 10, &t[n].ts) ||
		    parse_u32(fld[1], &t[n].pid) || parse_u32(fld[2], &t[n].tid))
			return kft_file_fail(f, "corrupt trace file: bad line %d of its NAMES block",
					     n - f->nnames + 1);
		snprintf(t[n].comm, sizeof(t[n].comm), "%s", fld[3]);
		n++;
		f->nnames = n;
	}
	/* CPUs' records are drained apart: nearly sorted */
	qsort(f->names, f->nnames, sizeof(*f->names), name_cmp);
	return 0;
}

int kft_text_sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->kernel != y->kernel)
		return x->kernel < y->kernel ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return 0;
}

/* SYMS: "file\tPATH\tBUILD_ID" lines, then "PID\tADDR\tK\tNAME" ones */
int kft_text_parse_syms(struct kft_file *f, char *p, char *end)
{
	size_t max = count_lines(p, end);
	struct sym *s = realloc(f->syms, (f->nsyms + max) * sizeof(*s));
	size_t before = f->nsyms;
	char *l, *fld[4];
	__u64 addr;
	__u32 pid;
	int line = 0;

	if (!s)
		return kft_file_fail(f, "out of memory");
	f->syms = s;
	while ((l = next_line(&p, end))) {
		line++;
		if (!*l || !strncmp(l, "file\t", 5))
			continue;
		if (split(l, fld, 4) != 4 || parse_u32(fld[0], &pid) ||
		    kft_text_parse_u64(fld[1], 16, &addr) ||
		    (strcmp(fld[2], "k") && strcmp(fld[2], "u"))) {
			f->nsyms = before;	/* those sorted before stay usable */
			return kft_file_fail(f, "corrupt trace file: bad line %d of its SYMS block",
					     line);
		}
		s[f->nsyms] = (struct sym){
			.addr = addr, .kernel = fld[2][0] == 'k',
			.pid = fld[2][0] == 'k' ? 0 : pid,
			.order = f->nsyms, .name = fld[3],
		};
		f->nsyms++;
	}
	qsort(f->syms, f->nsyms, sizeof(*f->syms), kft_text_sym_cmp);
	return 0;
}

/* A name of an enum value, kept in the file's text */
static int add_enum(struct kfit_argfmt *a, __s64 v, char *name)
{
	struct kfit_argenum *e = realloc(a->enums, (a->nenums + 1) * sizeof(*e));

	if (!e)
		return -ENOMEM;
	a->enums = e;
	e[a->nenums++] = (struct kfit_argenum){ .val = v, .name = name };
	return 0;
}

/* ARGS' ENUMS field: "VAL=NAME,VAL=NAME" (in place), or "-" */
static int parse_enums(struct kfit_argfmt *a, char *s)
{
	char *item, *eq, *end;
	long long v;

	if (!strcmp(s, "-"))
		return 0;
	for (item = strtok_r(s, ",", &s); item; item = strtok_r(NULL, ",", &s)) {
		eq = strchr(item, '=');
		if (!eq || !eq[1])
			return -1;
		*eq = '\0';
		errno = 0;
		v = strtoll(item, &end, 10);
		if (errno || end == item || *end)
			return -1;
		if (add_enum(a, v, eq + 1))
			return -ENOMEM;
	}
	return 0;
}

/* One ARGS line into f->fargs: 0, -1 malformed, -ENOMEM */
static int parse_arg_line(struct kft_file *f, char **fld, int nf)
{
	__u32 id, slot, str;
	__u64 kind;
	struct kfit_argfmt *a;

	if (nf < 6 || parse_id(fld[0], &id) || parse_u32(fld[1], &slot) ||
	    slot >= KFIT_ARGS_MAX || !*fld[2] || kft_text_parse_u64(fld[3], 16, &kind) ||
	    kind > 0xff || parse_u32(fld[4], &str) || str > KFIT_ARG_STRS)
		return -1;
	if (id >= (__u32)f->nfargs) {
		struct kft_fargs *t = realloc(f->fargs, (id + 1) * sizeof(*t));

		if (!t)
			return -ENOMEM;
		memset(t + f->nfargs, 0, (id + 1 - f->nfargs) * sizeof(*t));
		f->fargs = t;
		f->nfargs = id + 1;
	}
	a = &f->fargs[id].a[slot];
	if (a->label)
		return -1;
	a->label = fld[2];
	a->kind = kind;
	a->str = str;
	a->is_bool = strstr(fld[5], "bool") != NULL;
	a->present = !strstr(fld[5], "absent");
	if (f->fargs[id].n < (int)slot + 1)
		f->fargs[id].n = slot + 1;
	return nf > 6 ? parse_enums(a, fld[6]) : 0;
}

/* ARGS: "FUNC\tSLOT\tLABEL\tKIND\tSTR\tFLAGS[\tENUMS]" (kfit_kftmeta_args) */
int kft_text_parse_args(struct kft_file *f, char *p, char *end)
{
	char *l, *fld[7];
	int n = 0, rc, i, k;

	while ((l = next_line(&p, end))) {
		if (!*l)
			continue;
		n++;
		rc = parse_arg_line(f, fld, split(l, fld, 7));
		if (rc == -ENOMEM)
			return kft_file_fail(f, "out of memory");
		if (rc)
			return kft_file_fail(f, "corrupt trace file: bad line %d of its ARGS block", n);
	}
	/* slots below a function's last are all named */
	for (i = 0; i < f->nfargs; i++)
		for (k = 0; k < f->fargs[i].n; k++)
			if (!f->fargs[i].a[k].label)
				return kft_file_fail(f, "corrupt trace file: its ARGS block skips "
						     "argument %d of function %d", k, i);
	return 0;
}
