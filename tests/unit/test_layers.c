// SPDX-License-Identifier: GPL-2.0
/*
 * The library's layering rules, on its includes:
 *  - src/lib/ (the core) never includes <bpf/...>, directly or through a
 *    header it includes; only src/live/ does. A core file including a
 *    src/live/ header, or a BPF skeleton, breaks it too. (The Makefile
 *    links the core's unit tests without libbpf, which catches the calls.)
 *  - the core is in wings, src/lib/WING/, each on the wings below it that
 *    it may include (wings[] here, USES_WING in the Makefile, which
 *    compiles each wing with only those on its include path): a file that
 *    reaches past them breaks the plan. Every core file is in a wing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "testlib.h"

/* The wings, each floor on the ones below, and what each may include */
static const struct wing {
	const char *name;
	const char *uses;	/* space-separated, as the Makefile's USES_ */
} wings[] = {
	{ "base", "" },
	{ "symbols", "base" },
	{ "tree", "base" },
	{ "boot", "base" },
	{ "targets", "base symbols" },
	{ "perf", "base targets" },
	{ "trace", "base symbols targets" },
};

#define NWINGS (sizeof(wings) / sizeof(wings[0]))
#define MAX_DEPTH 8

struct check {
	const char *top;
	char why[1024];		/* the first violation, "" if none */
};

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static int __attribute__((format(printf, 2, 3)))
say(struct check *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	return -1;
}

/* a/b into buf; false when it does not fit */
static bool join(char *buf, size_t len, const char *a, const char *b)
{
	return (size_t)snprintf(buf, len, "%s/%s", a, b) < len;
}

/* Whether word is one of the space-separated words of list */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

static const struct wing *wing_named(const char *name)
{
	size_t i;

	for (i = 0; i < NWINGS; i++)
		if (!strcmp(wings[i].name, name))
			return &wings[i];
	return NULL;
}

static int check_file(struct check *c, const struct wing *w, const char *rel,
		      const char *from, int depth);

/* Where a quoted include resolves, in the Makefile's -I order, and the rules */
/* dir/name into rel (PATH_MAX): 1 if it exists under top, 0 if not, -1 too long */
static int locate(const struct check *c, const char *dir, const char *name, char *rel)
{
	char path[PATH_MAX];

	if (!join(rel, PATH_MAX, dir, name) || !join(path, sizeof(path), c->top, rel))
		return -1;
	return exists(path);
}

static int check_quoted(struct check *c, const struct wing *w, const char *file,
			const char *name, const char *from, int depth)
{
	static const char *const last[] = { "src/live", "build/skel", "build/gen" };
	char rel[PATH_MAX], dir[64];
	size_t i;
	int r;

	if (strstr(name, ".skel.h"))
		return say(c, "%s (from %s) includes \"%s\"", file, from, name);
	r = locate(c, "include", name, rel);
	if (r)
		return r < 0 ? say(c, "%s: path too long", name) :
		       check_file(c, w, rel, from, depth + 1);
	for (i = 0; i < NWINGS; i++) {
		snprintf(dir, sizeof(dir), "src/lib/%s", wings[i].name);
		r = locate(c, dir, name, rel);
		if (r < 0)
			return say(c, "%s: path too long", name);
		if (!r)
			continue;
		if (&wings[i] != w && !has_word(w->uses, wings[i].name))
			return say(c, "%s (from %s) includes \"%s\", %s: %s/ may include %s%s",
				   file, from, name, rel, w->name,
				   *w->uses ? w->uses : "no other wing", *w->uses ? " only" : "");
		return check_file(c, w, rel, from, depth + 1);
	}
	for (i = 0; i < sizeof(last) / sizeof(last[0]); i++) {
		r = locate(c, last[i], name, rel);
		if (r < 0)
			return say(c, "%s: path too long", name);
		if (r && strcmp(last[i], "build/gen"))
			return say(c, "%s (from %s) includes \"%s\", %s", file, from, name, rel);
	}
	return 0;	/* generated (build/gen) or not found: the build says */
}

static int check_file(struct check *c, const struct wing *w, const char *rel,
		      const char *from, int depth)
{
	char path[PATH_MAX], line[1024], name[256];
	int r = 0;
	FILE *f;

	if (depth > MAX_DEPTH)
		return 0;
	if (!join(path, sizeof(path), c->top, rel))
		return say(c, "%s: path too long", rel);
	f = fopen(path, "r");
	if (!f)
		return say(c, "cannot read %s", path);
	while (!r && fgets(line, sizeof(line), f)) {
		if (sscanf(line, " # include <%255[^>]>", name) == 1 && !strncmp(name, "bpf/", 4))
			r = say(c, "%s (from %s) includes <%s>", rel, from, name);
		else if (sscanf(line, " # include \"%255[^\"]\"", name) == 1)
			r = check_quoted(c, w, rel, name, from, depth);
	}
	fclose(f);
	return r;
}

static bool is_source(const char *name)
{
	size_t n = strlen(name);

	return n > 2 && name[n - 2] == '.' && strchr("ch", name[n - 1]);
}

/* Every .c and .h of a wing's folder */
static int check_wing(struct check *c, const struct wing *w, int *nfiles)
{
	char dir[PATH_MAX], sub[64], rel[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int r = 0;

	snprintf(sub, sizeof(sub), "src/lib/%s", w->name);
	if (!join(dir, sizeof(dir), c->top, sub))
		return say(c, "%s: path too long", c->top);
	dp = opendir(dir);
	if (!dp)
		return 0;	/* a wing with no file yet */
	while (!r && (d = readdir(dp))) {
		if (!is_source(d->d_name) || !join(rel, sizeof(rel), sub, d->d_name))
			continue;
		(*nfiles)++;
		r = check_file(c, w, rel, rel, 0);
	}
	closedir(dp);
	return r;
}

/* Every file of top/src/lib: 0, or -1 with the first violation in why */
static int check_core(struct check *c, int *nfiles)
{
	char dir[PATH_MAX];
	struct dirent *d;
	size_t i;
	DIR *dp;
	int r = 0;

	*nfiles = 0;
	if (!join(dir, sizeof(dir), c->top, "src/lib"))
		return say(c, "%s: path too long", c->top);
	dp = opendir(dir);
	if (!dp)
		return say(c, "cannot list %s", dir);
	while (!r && (d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		if (is_source(d->d_name))
			r = say(c, "src/lib/%s is in no wing (src/lib/WING/)", d->d_name);
		else if (!wing_named(d->d_name))
			r = say(c, "src/lib/%s/ is not a wing (wings[] here, WINGS in the "
				"Makefile)", d->d_name);
	}
	closedir(dp);
	for (i = 0; !r && i < NWINGS; i++)
		r = check_wing(c, &wings[i], nfiles);
	return r;
}

static void test_core_follows_the_plan(void **state)
{
	struct check c = { .top = KFIT_TOP };
	int n;

	(void)state;
	if (check_core(&c, &n))
		fail_msg("the core's layering: %s", c.why);
	/* The check did look at the core */
	assert_true(n >= 40);
}

/* The Makefile compiles each wing with what wings[] says it may include */
static void test_makefile_agrees(void **state)
{
	char path[PATH_MAX], line[512], want[256];
	bool seen[NWINGS] = { false };
	const struct wing *w;
	size_t i;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/Makefile", KFIT_TOP);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char name[64], uses[256] = "";

		if (sscanf(line, "USES_%63[a-z] := %255[^\n]", name, uses) < 1)
			continue;
		w = wing_named(name);
		if (!w)
			fail_msg("Makefile: USES_%s names no wing of test_layers.c", name);
		snprintf(want, sizeof(want), "%s", w->uses);
		if (strcmp(uses, want))
			fail_msg("Makefile: USES_%s is '%s', test_layers.c says '%s'", name,
				 uses, want);
		seen[w - wings] = true;
	}
	fclose(f);
	for (i = 0; i < NWINGS; i++)
		if (!seen[i])
			fail_msg("Makefile: no USES_%s", wings[i].name);
}

/* ---- the checker itself, on small trees --------------------------------- */

static char tree[64];

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX], dir[PATH_MAX], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = strchr(dir + strlen(tree) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char *verdict(void)
{
	static struct check c;
	int n;

	memset(&c, 0, sizeof(c));
	c.top = tree;
	return check_core(&c, &n) ? c.why : "";
}

static void drop(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	unlink(path);
}

static void test_checker(void **state)
{
	(void)state;
	strcpy(tree, "/tmp/kfit-layers-XXXXXX");
	assert_non_null(mkdtemp(tree));
	put("src/lib/base/a.h", "#include <stdio.h>\n#include \"kfit/t.h\"\n");
	put("src/lib/base/a.c", "#include <errno.h>\n#include \"a.h\"\n#include \"missing.h\"\n");
	put("src/lib/tree/t.c", "#include \"a.h\"\n#include \"t.h\"\n");
	put("src/lib/tree/t.h", "#include \"kfit/t.h\"\n");
	put("include/kfit/t.h", "#include <linux/types.h>\n");
	put("src/live/l.h", "#include <bpf/libbpf.h>\n");
	assert_string_equal(verdict(), "");
	/* Directly, spaced as the preprocessor allows */
	put("src/lib/base/b.c", "  #  include <bpf/bpf.h>\n");
	assert_string_equal(verdict(), "src/lib/base/b.c (from src/lib/base/b.c) includes <bpf/bpf.h>");
	drop("src/lib/base/b.c");
	/* Through a shared header */
	put("include/kfit/t.h", "#include <bpf/bpf_helpers.h>\n");
	assert_non_null(strstr(verdict(), "include/kfit/t.h (from src/lib/"));
	put("include/kfit/t.h", "#include <linux/types.h>\n");
	/* A live header, even one that would not include libbpf itself */
	put("src/lib/base/c.c", "#include \"l.h\"\n");
	assert_string_equal(verdict(), "src/lib/base/c.c (from src/lib/base/c.c) includes \"l.h\", "
			    "src/live/l.h");
	put("src/lib/base/c.c", "#include \"x.skel.h\"\n");
	assert_string_equal(verdict(), "src/lib/base/c.c (from src/lib/base/c.c) includes \"x.skel.h\"");
	drop("src/lib/base/c.c");
	/* Up the floors: base includes tree's header */
	put("src/lib/base/d.c", "#include \"t.h\"\n");
	assert_string_equal(verdict(), "src/lib/base/d.c (from src/lib/base/d.c) includes \"t.h\", "
			    "src/lib/tree/t.h: base/ may include no other wing");
	drop("src/lib/base/d.c");
	/* Sideways, through a header of the wing: tree reaches boot */
	put("src/lib/boot/b.h", "\n");
	put("src/lib/tree/t.h", "#include \"b.h\"\n");
	assert_non_null(strstr(verdict(), "includes \"b.h\", src/lib/boot/b.h: tree/ may "
			       "include base only"));
	put("src/lib/tree/t.h", "\n");
	/* Outside any wing */
	put("src/lib/e.c", "\n");
	assert_string_equal(verdict(), "src/lib/e.c is in no wing (src/lib/WING/)");
	drop("src/lib/e.c");
	put("src/lib/misc/f.c", "\n");
	assert_non_null(strstr(verdict(), "src/lib/misc/ is not a wing"));
	assert_int_equal(t_rm_rf(tree), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker),
		cmocka_unit_test(test_core_follows_the_plan),
		cmocka_unit_test(test_makefile_agrees),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
