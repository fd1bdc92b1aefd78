// SPDX-License-Identifier: GPL-2.0
/*
 * The library's one layering rule: src/lib/ (the core) never includes
 * <bpf/...>, directly or through a header it includes; only src/live/
 * does. A core file including a src/live/ header, or a BPF skeleton,
 * breaks it too. The Makefile links the core's unit tests without
 * libbpf, which catches the calls; this catches the includes.
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

/* Where a quoted include is looked for, in the Makefile's -I order */
static const char *const inc_dirs[] = {
	"include", "src/lib", "src/live", "build/skel", "build/gen",
};

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

static int check_file(struct check *c, const char *rel, const char *from, int depth);

/* A quoted include of rel (a path under top): where it resolves, and the rule */
static int check_quoted(struct check *c, const char *file, const char *name,
			const char *from, int depth)
{
	char path[PATH_MAX], rel[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(inc_dirs) / sizeof(inc_dirs[0]); i++) {
		if (!join(rel, sizeof(rel), inc_dirs[i], name) ||
		    !join(path, sizeof(path), c->top, rel))
			return say(c, "%s: path too long", name);
		if (!exists(path))
			continue;
		if (!strcmp(inc_dirs[i], "src/live") || !strcmp(inc_dirs[i], "build/skel") ||
		    strstr(name, ".skel.h"))
			return say(c, "%s (from %s) includes \"%s\", %s", file, from, name, rel);
		return check_file(c, rel, from, depth + 1);
	}
	/* Not found: a skeleton not yet generated is still a skeleton */
	if (strstr(name, ".skel.h"))
		return say(c, "%s (from %s) includes \"%s\"", file, from, name);
	return 0;
}

static int check_file(struct check *c, const char *rel, const char *from, int depth)
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
		else if (sscanf(line, " # include \"%255[^\"]\"", name) == 1) {
			r = check_quoted(c, rel, name, from, depth);
		}
	}
	fclose(f);
	return r;
}

static bool is_source(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 2 && d->d_name[n - 2] == '.' && strchr("ch", d->d_name[n - 1]);
}

/* Every .c and .h of top/src/lib: 0, or -1 with the first violation in why */
static int check_core(struct check *c, int *nfiles)
{
	char dir[PATH_MAX], rel[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int r = 0;

	*nfiles = 0;
	if (!join(dir, sizeof(dir), c->top, "src/lib"))
		return say(c, "%s: path too long", c->top);
	dp = opendir(dir);
	if (!dp)
		return say(c, "cannot list %s", dir);
	while (!r && (d = readdir(dp))) {
		if (!is_source(d) || !join(rel, sizeof(rel), "src/lib", d->d_name))
			continue;
		(*nfiles)++;
		r = check_file(c, rel, rel, 0);
	}
	closedir(dp);
	return r;
}

static void test_core_has_no_libbpf(void **state)
{
	struct check c = { .top = KFIT_TOP };
	int n;

	(void)state;
	if (check_core(&c, &n))
		fail_msg("src/lib/ must not include <bpf/...> (move the file to src/live/): %s",
			 c.why);
	/* The check did look at the core */
	assert_true(n >= 10);
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

static void test_checker(void **state)
{
	char path[128];

	(void)state;
	strcpy(tree, "/tmp/kfit-layers-XXXXXX");
	assert_non_null(mkdtemp(tree));
	put("src/lib/a.h", "#include <stdio.h>\n#include \"kfit/t.h\"\n");
	put("src/lib/a.c", "#include <errno.h>\n#include \"a.h\"\n#include \"missing.h\"\n");
	put("include/kfit/t.h", "#include <linux/types.h>\n");
	put("src/live/l.h", "#include <bpf/libbpf.h>\n");
	assert_string_equal(verdict(), "");
	/* Directly, spaced as the preprocessor allows */
	put("src/lib/b.c", "  #  include <bpf/bpf.h>\n");
	assert_string_equal(verdict(), "src/lib/b.c (from src/lib/b.c) includes <bpf/bpf.h>");
	unlink(strcat(strcpy(path, tree), "/src/lib/b.c"));
	/* Through a shared header */
	put("include/kfit/t.h", "#include <bpf/bpf_helpers.h>\n");
	assert_non_null(strstr(verdict(), "include/kfit/t.h (from src/lib/a."));
	put("include/kfit/t.h", "#include <linux/types.h>\n");
	/* A live header, even one that would not include libbpf itself */
	put("src/lib/c.c", "#include \"l.h\"\n");
	assert_string_equal(verdict(), "src/lib/c.c (from src/lib/c.c) includes \"l.h\", src/live/l.h");
	put("src/lib/c.c", "#include \"x.skel.h\"\n");
	assert_string_equal(verdict(), "src/lib/c.c (from src/lib/c.c) includes \"x.skel.h\"");
	assert_int_equal(t_rm_rf(tree), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker),
		cmocka_unit_test(test_core_has_no_libbpf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
