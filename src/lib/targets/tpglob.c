// SPDX-License-Identifier: GPL-2.0
/* Tracepoints from CATEGORY:NAME globs, read from <tracefs>/events. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "caps.h"
#include "fileio.h"
#include "strdist.h"
#include "tpglob.h"

/* Directory entries: sorted names of the subdirectories of path */
struct dirnames {
	char **v;
	int n;
};

static void dirnames_free(struct dirnames *d)
{
	while (d->n)
		free(d->v[--d->n]);
	free(d->v);
	d->v = NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_dir(const char *path, const struct dirent *e)
{
	char full[PATH_MAX];
	struct stat st;

	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_DIR;
	return !kfit_pathf(full, sizeof(full), "%s/%s", path, e->d_name) &&
	       !stat(full, &st) && S_ISDIR(st.st_mode);
}

static int dirnames_read(struct dirnames *d, const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *e;
	char **v;

	d->v = NULL;
	d->n = 0;
	if (!dir)
		return -errno;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.' || !is_dir(path, e))
			continue;
		v = realloc(d->v, (d->n + 1) * sizeof(*v));
		if (!v || !(v[d->n] = strdup(e->d_name))) {
			d->v = v ? v : d->v;
			closedir(dir);
			dirnames_free(d);
			return -ENOMEM;
		}
		d->v = v;
		d->n++;
	}
	closedir(dir);
	qsort(d->v, d->n, sizeof(*d->v), cmp_str);
	return 0;
}

/*
 * Bytes of the raw record: the end of its last field in the format file;
 * dynamic: a __data_loc field's data follows them
 */
static unsigned int record_size(const char *dir, bool *dynamic)
{
	char path[PATH_MAX], *fmt, *s;
	unsigned int off, size, end = 0;

	if (kfit_pathf(path, sizeof(path), "%s/format", dir))
		return 0;
	fmt = kfit_read_all(path, NULL);
	if (!fmt)
		return 0;
	*dynamic = strstr(fmt, "__data_loc") != NULL;
	for (s = fmt; (s = strstr(s, "offset:")); s++)
		if (sscanf(s, "offset:%u; size:%u;", &off, &size) == 2 &&
		    off + size > end)
			end = off + size;
	free(fmt);
	return end;
}

static int add_tp(struct kfit_tpglob *t, const char *cat, const char *name,
		  const char *dir)
{
	struct kfit_tpglob_tp *tp;
	char full[512];
	int i;

	snprintf(full, sizeof(full), "%s:%s", cat, name);
	for (i = 0; i < t->n; i++)
		if (!strcmp(t->tp[i].name, full))
			return 0;
	tp = realloc(t->tp, (t->n + 1) * sizeof(*tp));
	if (!tp)
		return -ENOMEM;
	t->tp = tp;
	tp = &t->tp[t->n];
	tp->name = strdup(full);
	if (!tp->name)
		return -ENOMEM;
	tp->size = record_size(dir, &tp->dynamic);
	t->n++;
	return 0;
}

/* The tracepoints of one category matching glob; how many, or -errno */
static int add_cat(struct kfit_tpglob *t, const char *events, const char *cat,
		   const char *glob)
{
	char path[PATH_MAX];
	struct dirnames d;
	int i, n = 0, err;

	if (kfit_pathf(path, sizeof(path), "%s/%s", events, cat))
		return -ENAMETOOLONG;
	err = dirnames_read(&d, path);
	if (err)
		return err == -ENOMEM ? err : 0;
	for (i = 0; i < d.n && n >= 0; i++) {
		if (fnmatch(glob, d.v[i], 0))
			continue;
		if (kfit_pathf(path, sizeof(path), "%s/%s/%s", events, cat, d.v[i]))
			continue;
		err = add_tp(t, cat, d.v[i], path);
		n = err ? err : n + 1;
	}
	dirnames_free(&d);
	return n;
}

/* Nothing matched: name the closest tracepoint when the spec is no glob */
static void none(const char *events, const char *spec, const char *cat,
		 const char *name, char *err, size_t errlen)
{
	char path[PATH_MAX], best[256] = "";
	struct dirnames d = { 0 };

	if (!strpbrk(spec, "*?[") &&
	    !kfit_pathf(path, sizeof(path), "%s/%s", events, cat) &&
	    !dirnames_read(&d, path))
		kfit_strdist_closest(name, (const char *const *)d.v, d.n, 3, best, sizeof(best));
	else if (!strpbrk(cat, "*?[") && !dirnames_read(&d, events))
		kfit_strdist_closest(cat, (const char *const *)d.v, d.n, 3, best, sizeof(best));
	dirnames_free(&d);
	snprintf(err, errlen, "no tracepoint matches '%s' in %s%s%s%s", spec, events,
		 best[0] ? " (closest: " : "", best, best[0] ? ")" : "");
}

static int bad_spec(const char *spec, char *err, size_t errlen)
{
	snprintf(err, errlen, "bad tracepoint '%s': CATEGORY:NAME, e.g. "
		 "sched:sched_switch or 'irq:*'", spec);
	return -EINVAL;
}

int kfit_tpglob_add(struct kfit_tpglob *t, const char *tracefs, const char *spec,
		 char *err, size_t errlen)
{
	const char *colon = strchr(spec, ':'), *tfs;
	char events[PATH_MAX], cat[256], denied[256];
	struct dirnames cats;
	int i, why, n = 0, r;

	if (!colon || colon == spec || !colon[1] || colon - spec >= (int)sizeof(cat))
		return bad_spec(spec, err, errlen);
	snprintf(cat, sizeof(cat), "%.*s", (int)(colon - spec), spec);
	tfs = kfit_tracefs_events(tracefs, &why);
	if (!tfs) {
		snprintf(err, errlen, "cannot look up tracepoint '%s': %s", spec,
			 why == EACCES ? kfit_caps_tracefs_denied("/sys/kernel/tracing",
							     denied, sizeof(denied)) :
			 "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
		return why == EACCES ? -EACCES : -ENOENT;
	}
	if (kfit_pathf(events, sizeof(events), "%s/events", tfs))
		return -ENAMETOOLONG;
	r = dirnames_read(&cats, events);
	if (r) {
		snprintf(err, errlen, "cannot read %s: %s", events, strerror(-r));
		return r;
	}
	for (i = 0; i < cats.n && n >= 0; i++) {
		if (fnmatch(cat, cats.v[i], 0))
			continue;
		r = add_cat(t, events, cats.v[i], colon + 1);
		n = r < 0 ? r : n + r;
	}
	dirnames_free(&cats);
	if (n == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (n < 0)
		return n;
	if (!n) {
		none(events, spec, cat, colon + 1, err, errlen);
		return -ENOENT;
	}
	return 0;
}

void kfit_tpglob_free(struct kfit_tpglob *t)
{
	while (t->n)
		free(t->tp[--t->n].name);
	free(t->tp);
	t->tp = NULL;
}
