// SPDX-License-Identifier: GPL-2.0
/*
 * Linked into every unit test. stdout is made line-buffered even into a
 * file, so that cmocka's stdout and stderr stay in order and a test that
 * crashes keeps what it printed (stdbuf would do it by LD_PRELOAD, which
 * the sanitizer runtime refuses to follow).
 */
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "fileio.h"
#include "kfit/rec.h"
#include "testlib.h"

__attribute__((constructor)) static void linebuf(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

void t_int_eq_at(const char *name, const char *what, long long got,
		 long long want, const char *file, int line)
{
	if (got == want)
		return;
	print_error("case '%s': %s is %lld, want %lld\n", name, what, got, want);
	_fail(file, line);
}

void t_str_eq_at(const char *name, const char *what, const char *got,
		 const char *want, const char *file, int line)
{
	if (got == want || (got && want && !strcmp(got, want)))
		return;
	print_error("case '%s': %s is %s%s%s, want %s%s%s\n", name, what,
		    got ? "'" : "", got ? got : "NULL", got ? "'" : "",
		    want ? "'" : "", want ? want : "NULL", want ? "'" : "");
	_fail(file, line);
}

void t_true_at(const char *name, const char *what, bool cond,
	       const char *file, int line)
{
	if (cond)
		return;
	print_error("case '%s': %s is false\n", name, what);
	_fail(file, line);
}

const char *t_stderr_of(void (*fn)(void), char *buf, size_t len)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;

	assert_non_null(tmp);
	assert_true(saved >= 0);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, len - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
	return buf;
}

int t_mkdtemp(char *dir, size_t len, const char *name)
{
	if (snprintf(dir, len, "/tmp/kfit-%s-XXXXXX", name) >= (int)len)
		return -1;
	return mkdtemp(dir) ? 0 : -1;
}

const char *t_path(const char *dir, const char *name)
{
	static char paths[4][PATH_MAX];
	static int next;
	char *p = paths[next++ % 4];

	snprintf(p, PATH_MAX, "%s/%s", dir, name);
	return p;
}

char t_tmpdir[64];

int t_tmpdir_setup(void **state)
{
	const char *name = program_invocation_short_name;

	(void)state;
	if (!strncmp(name, "test_", 5))
		name += 5;
	return t_mkdtemp(t_tmpdir, sizeof(t_tmpdir), name);
}

int t_tmpdir_teardown(void **state)
{
	(void)state;
	return t_rm_rf(t_tmpdir);
}

const char *t_tmp(const char *name)
{
	return t_path(t_tmpdir, name);
}

const char *t_at(int slot, const char *name)
{
	static char paths[8][PATH_MAX];

	assert_in_range(slot, 0, 7);
	snprintf(paths[slot], PATH_MAX, "%s/%s", t_tmpdir, name);
	return paths[slot];
}

const char *t_tmp_mkdir(const char *name, unsigned int mode)
{
	static char d[PATH_MAX];

	snprintf(d, sizeof(d), "%s/%s", t_tmpdir, name);
	assert_int_equal(mkdir(d, mode), 0);
	return d;
}

void t_put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

int t_rm_rf(const char *dir)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int t_sh(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	if (st)
		print_message("t_sh: '%s': status %d\n", cmd, st);
	return st;
}

int t_nm(const char *file, const char *name, unsigned long long *addr,
	 unsigned long long *size)
{
	char cmd[PATH_MAX + 64], line[1024], f[3][512];
	int n, found = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only '%s' 2>/dev/null", file);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	/* "0000000000401158 000000000000000d T st_global", or without the size */
	while (found && fgets(line, sizeof(line), p)) {
		n = sscanf(line, "%511s %511s %511s %511s", f[0], f[1], f[2], line);
		if (n == 4 && !strcmp(line, name)) {
			*addr = strtoull(f[0], NULL, 16);
			*size = strtoull(f[1], NULL, 16);
			found = 0;
		} else if (n == 3 && !strcmp(f[2], name)) {
			*addr = strtoull(f[0], NULL, 16);
			*size = 0;
			found = 0;
		}
	}
	pclose(p);
	return found;
}

int t_symtarget_setup(void **state)
{
	const char *dir = t_tmpdir, *src = KFIT_TOP "/tests/helpers/symtarget.c";

	if (t_tmpdir_setup(state))
		return -1;
	if (t_sh("cd %s && cc -O1 -g -fpie -pie -Wl,--build-id=0x" T_ID_PIE " %s -o pie && "
		 "cc -O1 -g -fno-pie -no-pie -Wl,--build-id=0x" T_ID_NOPIE " %s -o nopie && "
		 "cc -O1 -g -Wl,--build-id=none %s -o noid", dir, src, src, src))
		return -1;
	return t_sh("cd %s && for f in pie noid nopie; do "
		    "objcopy --only-keep-debug $f $f.debug && "
		    "objcopy --strip-all --add-gnu-debuglink=$f.debug $f $f.stripped && "
		    "objcopy --strip-all $f $f.bare || exit 1; "
		    "done", dir);
}

size_t t_self_mapping_size(unsigned long start)
{
	unsigned long s, e;
	char line[PATH_MAX + 128];
	size_t size = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && !size && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &s, &e) == 2 && s == start)
			size = e - s;
	if (f)
		fclose(f);
	return size;
}

FILE *t_cap_open(struct t_cap *c)
{
	c->buf = NULL;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	return c->f;
}

char *t_cap_close(struct t_cap *c)
{
	assert_int_equal(fclose(c->f), 0);
	assert_non_null(c->buf);
	return c->buf;
}

void t_to_file(const char *text, char *path, size_t size, const char *name,
	       const char *suffix)
{
	FILE *f;
	int fd;

	snprintf(path, size, "/tmp/kfit-%s-XXXXXX%s", name, suffix);
	fd = mkstemps(path, strlen(suffix));
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

int t_count(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

bool t_starts(const char *s, const char *prefix)
{
	if (!strncmp(s, prefix, strlen(prefix)))
		return true;
	print_message("got:\n%s\n", s);
	return false;
}

size_t t_longest_line(const char *s)
{
	size_t n = 0, max = 0;

	for (; *s; s++) {
		n = *s == '\n' ? 0 : n + 1;
		if (n > max)
			max = n;
	}
	return max;
}

bool t_has(const char *doc, const char *s)
{
	return doc && strstr(doc, s);
}

int t_kernel_fs_setup(void **state)
{
	(void)state;
	if (geteuid() != 0)
		return 0;
	kfit_fs_mount(KFIT_FS_TRACEFS);
	kfit_fs_mount(KFIT_FS_BPFFS);
	return 0;
}

bool t_have(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null", tool);
	return system(cmd) == 0;
}

bool t_jq(const char *doc, const char *expr)
{
	char path[64], cmd[1024];
	int rc;

	t_to_file(doc, path, sizeof(path), "jq", ".json");
	snprintf(cmd, sizeof(cmd), "jq -e '%s' %s >/dev/null", expr, path);
	rc = system(cmd);
	unlink(path);
	return rc == 0;
}

/* ---- records ------------------------------------------------------------ */

#define GEN_TASKS	3

const __u8 t_recgen_kinds[T_RECGEN_FUNCS] = {
	T_RECGEN_KIND, T_RECGEN_KIND, T_RECGEN_KIND, T_RECGEN_KIND,
};

struct gen {
	char *buf;
	size_t len, n;
	__u64 now;
	__u64 open[GEN_TASKS][8];	/* each task's open calls' entries */
	__u32 fn[GEN_TASKS][8];
	int depth[GEN_TASKS];
};

static void gen_put(struct gen *g, const void *r)
{
	const struct kfit_rec *h = r;

	if (g->n == T_RECGEN_MAX)
		return;
	memcpy(g->buf + g->len, r, h->size);
	g->len += h->size;
	g->n++;
}

static struct kfit_rec head(int type, int ctx, __u32 pid, __u64 ts, size_t size)
{
	return (struct kfit_rec){ .type = type, .ctx = ctx, .size = size, .cpu = pid % 2,
				  .pid = pid, .tid = pid, .ts = ts };
}

/* A value returned: one in 23 a failure, -errno, as the kinds of T_RECGEN_KINDS read it */
static void gen_ret(struct kfit_rec_call *c, unsigned int r)
{
	c->cflags = KFIT_CF_RET;
	c->ret = r % 23 ? r % 100 : (__u64)-(__s64)(1 + r % 40);
}

/* Task k's innermost open call returns: its record (or a loss of it) */
static void gen_return(struct gen *g, int k, unsigned int r)
{
	__u32 pid = 10 + k;
	int d = --g->depth[k];
	struct kfit_rec_call c = {
		.h = head(KFIT_REC_CALL, KFIT_CTX_TASK, pid, g->open[k][d], sizeof(c)),
		.dur = g->now - g->open[k][d], .id = g->fn[k][d], .depth = d,
	};
	struct kfit_rec_lost l = {
		.h = head(KFIT_REC_LOST, KFIT_CTX_TASK, 0, g->now, sizeof(l)), .count = 1,
	};

	if (r % 97 == 0) {
		gen_put(g, &l);
		return;
	}
	if (r % 89 == 0)
		c.h.flags = KFIT_RF_INCOMPLETE;
	gen_ret(&c, r >> 5);
	gen_put(g, &c);
}

/* An interrupt on task k's CPU, with a call in it; some with no record of their own */
static void gen_irq(struct gen *g, int k, unsigned int r)
{
	struct kfit_rec_call c = {
		.h = head(KFIT_REC_CALL, KFIT_CTX_SOFTIRQ, 10 + k, g->now + 1, sizeof(c)),
		.dur = 2, .id = 3,
	};
	struct kfit_rec_irq i = {
		.h = head(KFIT_REC_IRQ, KFIT_CTX_SOFTIRQ, 10 + k, g->now, sizeof(i)),
		.dur = 4, .vec = 1, .ncalls = 1,
	};

	gen_ret(&c, r / 3 * 5 + (r % 4 ? 1 : 0));
	gen_put(g, &c);
	if (r % 3)
		gen_put(g, &i);
	g->now += 5;
}

/* Task k off its CPU for a while, inside its open calls */
static void gen_switch(struct gen *g, int k, unsigned int r)
{
	struct kfit_rec_switch w = {
		.h = head(KFIT_REC_SWITCH, KFIT_CTX_TASK, 10 + k, g->now, sizeof(w)),
		.dur = 3 + r % 20, .state = r % 2, .depth = g->depth[k],
	};

	gen_put(g, &w);
	g->now += w.dur;
}

static void gen_exec(struct gen *g, int k, unsigned int r)
{
	struct kfit_rec_task e = {
		.h = head(KFIT_REC_EXEC, KFIT_CTX_TASK, 10 + k, g->now, sizeof(e)),
	};

	strcpy(e.comm, r % 2 ? "one" : "two");
	gen_put(g, &e);
}

/* A call of task k: one with no callee, or one opened for callees */
static void gen_call(struct gen *g, int k, unsigned int r, bool leaf)
{
	g->open[k][g->depth[k]] = g->now;
	g->fn[k][g->depth[k]++] = (r >> 16) % T_RECGEN_FUNCS;
	if (!leaf)
		return;
	g->now += 1 + (r >> 20) % 300;
	gen_return(g, k, r >> 3);
}

size_t t_recgen(unsigned int seed, char *buf)
{
	struct gen g = { .buf = buf, .now = 100 };
	unsigned int r;
	int k = 0;

	srandom(seed);
	memset(buf, 0, T_RECGEN_BYTES);
	while (g.n < T_RECGEN_MAX - 8) {
		r = random();
		g.now += 1 + r % 7;
		if (r % 5 == 0)
			k = (r >> 8) % GEN_TASKS;
		if (r % 211 == 0)
			gen_exec(&g, k, r);
		else if (r % 53 == 0)
			gen_irq(&g, k, r >> 9);
		else if (r % 61 == 0 && g.depth[k])
			gen_switch(&g, k, r >> 7);
		else if (g.depth[k] && (r >> 4) % 3 == 0)
			gen_return(&g, k, r);
		else if (g.depth[k] < 8 && (r >> 4) % 3 == 1 && (r >> 12) % 4 == 0)
			gen_call(&g, k, r, false);
		else if (!g.depth[k] || (r >> 4) % 3 == 2)
			gen_call(&g, k, r, true);
	}
	return g.len;
}

struct kfit_cnode *t_node(struct t_pool *p, struct kfit_cnode *parent, __u8 kind, __u32 id,
			  __u64 start, __u64 dur, __u64 local)
{
	struct kfit_cnode *n;

	assert_true(p->used < p->max);
	n = &p->node[p->used++];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->id = id;
	n->start = start;
	n->dur = dur;
	n->local = local;
	n->ctx = parent->ctx;
	n->cpu = parent->cpu;
	n->parent = parent;
	n->depth = parent->kind == KFIT_CN_ROOT ? 0 : parent->depth + 1;
	if (parent->last)
		parent->last->next = n;
	else
		parent->child = n;
	parent->last = n;
	return n;
}

void t_thread_init(struct kfit_cthread *t, __u32 pid, __u32 tid, const char *comm)
{
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->root.kind = KFIT_CN_ROOT;
}

struct kfit_ctree *t_names_tree;

int t_names_setup(const char *const *funcs, int nfuncs, const char *const *events,
		  int nevents)
{
	struct kfit_ctree_opts o = { .funcs = funcs, .nfuncs = nfuncs,
				     .events = events, .nevents = nevents };

	t_names_tree = kfit_ctree_new(&o);
	return t_names_tree ? 0 : -1;
}

void t_names_teardown(void)
{
	kfit_ctree_free(t_names_tree);
	t_names_tree = NULL;
}

const char *t_names(void *ctx, const struct kfit_cnode *n)
{
	(void)ctx;
	return kfit_ctree_name(t_names_tree, n);
}
