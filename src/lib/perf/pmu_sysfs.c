// SPDX-License-Identifier: GPL-2.0
/*
 * The events of the perf event grammar (pmu.c) that the kernel describes
 * in files: a PMU's type, format fields and event aliases under sysfs
 * ("pmu/terms/"), a tracepoint's id under tracefs ("category:name").
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "caps.h"
#include "fileio.h"
#include "pmu_int.h"

static int only_dirs(const struct dirent *d)
{
	return pmu_names_no_dots(d) && (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN);
}

/* The PMU of a type number: the kernel's own, else the sysfs PMU that has it */
void pmu_sysfs_pmu_of_type(struct parse *p, struct kfit_pmu_event *e)
{
	struct names nm;
	char buf[32];
	__u64 v;
	int i;

	switch (e->attr.type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		strcpy(e->pmu, "cpu");
		return;
	case PERF_TYPE_SOFTWARE:
		strcpy(e->pmu, "software");
		if (e->attr.config == PERF_COUNT_SW_CPU_CLOCK ||
		    e->attr.config == PERF_COUNT_SW_TASK_CLOCK)
			strcpy(e->unit, "ns");
		return;
	case PERF_TYPE_TRACEPOINT:
		strcpy(e->pmu, "tracepoint");
		return;
	case PERF_TYPE_BREAKPOINT:
		strcpy(e->pmu, "breakpoint");
		return;
	}
	snprintf(e->pmu, sizeof(e->pmu), "type %u", e->attr.type);
	pmu_names_read(&nm, pmu_names_no_dots, "%s", p->sysfs);
	for (i = 0; i < nm.n; i++)
		if (!kfit_read_linef(buf, sizeof(buf), "%s/%s/type", p->sysfs,
				     nm.d[i]->d_name) &&
		    !parse_u64(buf, &v) && v == e->attr.type)
			snprintf(e->pmu, sizeof(e->pmu), "%.31s", nm.d[i]->d_name);
	pmu_names_free(&nm);
}

/* "config1:0-15", "config:0-7,32-35", "config:63" into f */
int pmu_sysfs_format_parse(const char *s, struct perf_event_attr *a, struct field *f)
{
	char *end;
	long lo, hi;

	if (!strncmp(s, "config:", 7)) {
		f->dst = &a->config;
		s += 7;
	} else if (!strncmp(s, "config1:", 8)) {
		f->dst = &a->config1;
		s += 8;
	} else if (!strncmp(s, "config2:", 8)) {
		f->dst = &a->config2;
		s += 8;
	} else {
		return -1;
	}
	f->nr = f->bits = 0;
	for (;;) {
		if (!isdigit((unsigned char)*s))
			return -1;
		lo = hi = strtol(s, &end, 10);
		if (*end == '-') {
			s = end + 1;
			if (!isdigit((unsigned char)*s))
				return -1;
			hi = strtol(s, &end, 10);
		}
		if (lo > hi || hi > 63 || f->nr == MAX_RANGES)
			return -1;
		f->lo[f->nr] = lo;
		f->hi[f->nr++] = hi;
		f->bits += hi - lo + 1;
		if (f->bits > 64)
			return -1;
		if (!*end)
			return 0;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

static void field_whole(struct field *f, __u64 *dst)
{
	f->dst = dst;
	f->nr = 1;
	f->lo[0] = 0;
	f->hi[0] = 63;
	f->bits = 64;
}

/* Spreads v over the field's ranges, low bits first */
static void field_set(const struct field *f, __u64 v)
{
	__u64 mask;
	int i, w;

	for (i = 0; i < f->nr; i++) {
		w = f->hi[i] - f->lo[i] + 1;
		mask = w == 64 ? ~0ULL : (1ULL << w) - 1;
		*f->dst = (*f->dst & ~(mask << f->lo[i])) | (v & mask) << f->lo[i];
		v = w == 64 ? 0 : v >> w;
	}
}

static int unknown_term(struct parse *p, const char *pmu, const char *t)
{
	struct names fields, events;
	char best[64], fl[256], el[256];

	pmu_names_read(&fields, pmu_names_no_dots, "%s/%s/format", p->sysfs, pmu);
	pmu_names_read(&events, pmu_names_alias_filter, "%s/%s/events", p->sysfs, pmu);
	if (pmu_names_closest(t, &fields, &events, best, sizeof(best))) {
		fail(p, "PMU '%s' has no format field or event '%s' (did you mean '%s'?)",
		     pmu, t, best);
	} else {
		pmu_names_join(&fields, 16, "", fl, sizeof(fl));
		pmu_names_join(&events, 8, "", el, sizeof(el));
		fail(p, "PMU '%s' has no format field or event '%s' (fields: %s; events: %s)",
		     pmu, t, *fl ? fl : "none", *el ? el : "none");
	}
	pmu_names_free(&fields);
	pmu_names_free(&events);
	return -1;
}

static int apply_terms(struct parse *p, struct kfit_pmu_event *e, const char *pmu,
		       char *terms, const char *what, bool in_alias);

/* An events/ alias: its terms, then its unit and scale if it has them */
static int apply_alias(struct parse *p, struct kfit_pmu_event *e, const char *pmu,
		       const char *t, const char *v)
{
	char path[PATH_MAX], buf[LINE_LEN], val[64];
	char *end;
	double scale;
	int r;

	if (!pmu_names_is_alias(t) ||
	    kfit_pathf(path, sizeof(path), "%s/%s/events/%s", p->sysfs, pmu, t))
		return unknown_term(p, pmu, t);
	r = kfit_read_line(path, buf, sizeof(buf));
	if (r == -ENOENT)
		return unknown_term(p, pmu, t);
	if (r)
		return fail(p, "cannot read %s: %s", path, strerror(-r));
	if (v)
		return fail(p, "'%s' is an event of PMU '%s': it takes no value", t, pmu);
	if (apply_terms(p, e, pmu, buf, path, true))
		return -1;
	if (!kfit_read_linef(val, sizeof(val), "%s.unit", path))
		snprintf(e->unit, sizeof(e->unit), "%.*s", (int)sizeof(e->unit) - 1, val);
	if (kfit_read_linef(val, sizeof(val), "%s.scale", path))
		return 0;
	errno = 0;
	scale = strtod(val, &end);
	if (errno || end == val || *end || !isfinite(scale) || scale <= 0)
		return fail(p, "bad scale '%s' in %s.scale", val, path);
	e->scale = scale;
	return 0;
}

int pmu_sysfs_set_name(struct parse *p, struct kfit_pmu_event *e, const char *v,
		       const char *what)
{
	if (!v || !*v)
		return fail(p, "empty name= in '%s'", what);
	if (strlen(v) >= sizeof(e->label))
		return fail(p, "name '%s' too long (at most %zu characters)",
			    v, sizeof(e->label) - 1);
	strcpy(e->label, v);
	return 0;
}

/*
 * One term t[=v]: name=, config*=, a format field, or (not inside an
 * alias) an alias. A field or config without a value is set to 1.
 */
static int apply_term(struct parse *p, struct kfit_pmu_event *e, const char *pmu,
		      const char *t, const char *v, const char *what, bool in_alias)
{
	char buf[LINE_LEN];
	struct field f;
	__u64 val;
	int r;

	if (!strcmp(t, "name"))
		return pmu_sysfs_set_name(p, e, v, what);
	if (!strcmp(t, "config")) {
		field_whole(&f, &e->attr.config);
	} else if (!strcmp(t, "config1")) {
		field_whole(&f, &e->attr.config1);
	} else if (!strcmp(t, "config2")) {
		field_whole(&f, &e->attr.config2);
	} else {
		/* A name like ".." must not walk out of format/ */
		r = t[0] == '.' ? -ENOENT :
		    kfit_read_linef(buf, sizeof(buf), "%s/%s/format/%s", p->sysfs, pmu, t);
		if (r == -ENOENT && in_alias)
			return fail(p, "PMU '%s' has no format field '%s' (in %s)",
				    pmu, t, what);
		if (r == -ENOENT)
			return apply_alias(p, e, pmu, t, v);
		if (r)
			return fail(p, "cannot read %s/%s/format/%s: %s", p->sysfs,
				    pmu, t, strerror(-r));
		if (pmu_sysfs_format_parse(buf, &e->attr, &f))
			return fail(p, "bad format '%s' in %s/%s/format/%s", buf,
				    p->sysfs, pmu, t);
	}
	if (!v)
		v = "1";
	if (parse_u64(v, &val))
		return fail(p, "bad value '%s' for '%s' in '%s' (decimal or 0x hex)",
			    v, t, what);
	if (f.bits < 64 && val >> f.bits)
		return fail(p, "value %s does not fit field '%s' (%d bit%s)", v, t,
			    f.bits, f.bits == 1 ? "" : "s");
	field_set(&f, val);
	return 0;
}

/* "event=0x3c,umask=1,edge", applied in order: a later term wins */
static int apply_terms(struct parse *p, struct kfit_pmu_event *e, const char *pmu,
		       char *terms, const char *what, bool in_alias)
{
	char *t, *v;

	while ((t = strsep(&terms, ",")) != NULL) {
		v = strchr(t, '=');
		if (v)
			*v++ = '\0';
		if (!*t)
			return fail(p, "empty term in '%s'", what);
		if (apply_term(p, e, pmu, t, v, what, in_alias))
			return -1;
	}
	return 0;
}

static int pmu_type(struct parse *p, const char *pmu, __u32 *type)
{
	struct names nm;
	char buf[32], list[512];
	__u64 v;
	int r;

	r = pmu[0] == '.' ? -ENOENT :
	    kfit_read_linef(buf, sizeof(buf), "%s/%s/type", p->sysfs, pmu);
	if (r == -ENOENT || r == -ENOTDIR || r == -ENAMETOOLONG) {
		pmu_names_read(&nm, pmu_names_no_dots, "%s", p->sysfs);
		pmu_names_join(&nm, 32, "", list, sizeof(list));
		pmu_names_free(&nm);
		if (!*list)
			return fail(p, "no PMU '%s' (none in %s)", pmu, p->sysfs);
		return fail(p, "no PMU '%s' (PMUs here: %s)", pmu, list);
	}
	if (r)
		return fail(p, "cannot read %s/%s/type: %s", p->sysfs, pmu, strerror(-r));
	if (parse_u64(buf, &v) || v > UINT32_MAX)
		return fail(p, "bad type '%s' in %s/%s/type", buf, p->sysfs, pmu);
	*type = v;
	return 0;
}

/* "pmu/term,term=value,.../" */
int pmu_sysfs_parse_pmu_event(struct parse *p, struct kfit_pmu_event *e, const char *s)
{
	const char *open = strchr(s, '/'), *close = strrchr(s, '/');
	size_t n = open - s;
	char *terms;
	int r;

	if (open == close)
		return fail(p, "missing closing '/' in '%s'", s);
	if (close[1])
		return fail(p, "unexpected '%s' after the closing '/' in '%s' (only :u, :k, :h may follow)",
			    close + 1, s);
	if (strchr(open + 1, '/') != close)
		return fail(p, "too many '/' in '%s'", s);
	if (!n)
		return fail(p, "missing PMU name in '%s'", s);
	if (n >= sizeof(e->pmu))
		return fail(p, "no PMU '%.*s' (name too long)", (int)n, s);
	memcpy(e->pmu, s, n);
	e->pmu[n] = '\0';
	if (pmu_type(p, e->pmu, &e->attr.type))
		return -1;
	/* "msr//": perf takes no terms as config 0 */
	if (close == open + 1)
		return 0;
	terms = strndup(open + 1, close - open - 1);
	if (!terms)
		return fail(p, "out of memory");
	r = apply_terms(p, e, e->pmu, terms, s, false);
	free(terms);
	return r;
}

static bool tp_char_ok(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

static int tp_unknown(struct parse *p, const char *tfs, const char *s, int catlen)
{
	struct names nm, none = { NULL, 0 };
	const char *name = s + catlen + 1;
	char best[64], dir[PATH_MAX];
	struct stat st;
	int r;

	/* ftrace's own records (ftrace:bprint, ftrace:function) have a directory, no id */
	if (!kfit_pathf(dir, sizeof(dir), "%s/events/%.*s/%s", tfs, catlen, s, name) &&
	    !stat(dir, &st) && S_ISDIR(st.st_mode))
		return fail(p, "'%s' cannot be counted: an event of the tracer itself, not a "
			    "tracepoint (no id in %s/events/%.*s/%s; perf stat says <not supported>)",
			    s, tfs, catlen, s, name);
	r = pmu_names_read(&nm, only_dirs, "%s/events/%.*s", tfs, catlen, s);
	if (r < 0)
		return fail(p, "no tracepoint '%s' in %s/events (no category '%.*s')",
			    s, tfs, catlen, s);
	if (pmu_names_closest(name, &nm, &none, best, sizeof(best)))
		fail(p, "no tracepoint '%s' in %s/events (did you mean '%.*s:%s'?)",
		     s, tfs, catlen, s, best);
	else
		fail(p, "no tracepoint '%s' in %s/events", s, tfs);
	pmu_names_free(&nm);
	return -1;
}

/* "category:name" */
int pmu_sysfs_parse_tracepoint(struct parse *p, struct kfit_pmu_event *e, const char *s)
{
	const char *colon = strchr(s, ':'), *tfs, *c;
	int catlen = colon - s, why, r;
	char path[PATH_MAX], buf[32], denied[200];
	__u64 id;

	for (c = s; *c; c++)
		if (c != colon && !tp_char_ok(*c))
			return fail(p, "bad character '%c' in tracepoint '%s'", *c, s);
	if (!catlen || !colon[1] || s[0] == '.' || colon[1] == '.')
		return fail(p, "bad tracepoint '%s' (category:name, e.g. sched:sched_switch)", s);
	tfs = kfit_tracefs_events(p->tracefs, &why);
	if (!tfs && why == EACCES)
		return fail(p, "cannot look up tracepoint '%s': %s", s,
			    kfit_caps_tracefs_denied(p->tracefs ? p->tracefs : "/sys/kernel/tracing/events",
						denied, sizeof(denied)));
	if (!tfs && p->tracefs)
		return fail(p, "cannot look up tracepoint '%s': no tracefs at %s (%s)", s,
			    p->tracefs, strerror(why));
	if (!tfs)
		return fail(p, "cannot look up tracepoint '%s': tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)", s);
	if (kfit_pathf(path, sizeof(path), "%s/events/%.*s/%s/id", tfs, catlen, s, colon + 1))
		return fail(p, "tracepoint name '%s' too long", s);
	r = kfit_read_line(path, buf, sizeof(buf));
	if (r == -ENOENT || r == -ENOTDIR)
		return tp_unknown(p, tfs, s, catlen);
	if (r)
		return fail(p, "cannot read %s: %s", path, strerror(-r));
	if (parse_u64(buf, &id))
		return fail(p, "bad id '%s' in %s", buf, path);
	e->attr.type = PERF_TYPE_TRACEPOINT;
	e->attr.config = id;
	strcpy(e->pmu, "tracepoint");
	return 0;
}
