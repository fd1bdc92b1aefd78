/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_TESTLIB_H
#define KFIT_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "kfit/ret.h"
#include "calltree.h"

/* The number of entries of the array a */
#define T_N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Checks for a table of cases: on a mismatch, fail saying the case's name,
 * the expression and both values (t_str_eq takes NULL as a value)
 */
#define t_int_eq(name, got, want) \
	t_int_eq_at(name, #got, (long long)(got), (long long)(want), \
		    __FILE__, __LINE__)
#define t_str_eq(name, got, want) \
	t_str_eq_at(name, #got, got, want, __FILE__, __LINE__)
#define t_true(name, cond) \
	t_true_at(name, #cond, cond, __FILE__, __LINE__)
void t_int_eq_at(const char *name, const char *what, long long got,
		 long long want, const char *file, int line);
void t_str_eq_at(const char *name, const char *what, const char *got,
		 const char *want, const char *file, int line);
void t_true_at(const char *name, const char *what, bool cond,
	       const char *file, int line);

/* Lists of strings (T_STRS) each checked on a document (T_ALL) */
#define T_STRS(...) ((const char *const []){ __VA_ARGS__, NULL })
#define T_ALL(doc, holds, what, ...) \
	t_all_at(doc, holds, what, T_STRS(__VA_ARGS__), __FILE__, __LINE__)
static inline void t_all_at(const char *doc,
			    bool (*holds)(const char *doc, const char *s),
			    const char *what, const char *const *list,
			    const char *file, int line)
{
	for (; *list; list++)
		t_true_at(*list, what, holds(doc, *list), file, line);
}

/* Whether s stands in doc (NULL: no) */
bool t_has(const char *doc, const char *s);
/* Each string stands in doc; else fail naming the first one missing */
#define t_has_all(doc, ...) \
	T_ALL(doc, t_has, "t_has(" #doc ", this)", __VA_ARGS__)

/* What fn wrote on stderr, NUL-terminated in buf (cut at len - 1) */
const char *t_stderr_of(void (*fn)(void), char *buf, size_t len);

/* Output into memory: t_cap_open's stream; t_cap_close closes it and
 * gives the text written, NUL-terminated (the caller frees it) */
struct t_cap {
	FILE *f;
	char *buf;
	size_t len;
};
FILE *t_cap_open(struct t_cap *c);
char *t_cap_close(struct t_cap *c);

/* TEXT into a new file /tmp/kfit-NAME-XXXXXX<SUFFIX>, its path into path
 * (size bytes); the caller unlinks it */
void t_to_file(const char *text, char *path, size_t size, const char *name,
	       const char *suffix);

/* How many times WHAT stands in S, not overlapping */
int t_count(const char *s, const char *what);

/* Whether s starts with prefix (if not, s is printed) */
bool t_starts(const char *s, const char *prefix);

/* The length of s's longest line */
size_t t_longest_line(const char *s);

/* Whether the command TOOL is on PATH */
bool t_have(const char *tool);

/* Whether jq -e EXPR holds on the JSON document DOC */
bool t_jq(const char *doc, const char *expr);
/* Each jq expression holds on doc; else fail naming the first that does not */
#define t_jq_all(doc, ...) \
	T_ALL(doc, t_jq, "t_jq(" #doc ", this)", __VA_ARGS__)

/* Remove a test's temporary tree; 0 or -1 */
int t_rm_rf(const char *dir);

/* A new directory /tmp/kfit-NAME-XXXXXX into dir (len bytes): 0, or -1 */
int t_mkdtemp(char *dir, size_t len, const char *name);
/* dir/name, in one of four buffers used in turn */
const char *t_path(const char *dir, const char *name);

/*
 * The group's temporary directory: t_tmpdir_setup, a cmocka group setup,
 * makes /tmp/kfit-NAME-XXXXXX (NAME: this program's, past "test_");
 * t_tmpdir_teardown removes it
 */
extern char t_tmpdir[64];
int t_tmpdir_setup(void **state);
int t_tmpdir_teardown(void **state);
/* t_tmpdir/name (t_path) */
const char *t_tmp(const char *name);
/* t_tmpdir/name in buffer slot (0 to 7): it holds until slot's next use */
const char *t_at(int slot, const char *name);
/* A new directory t_tmpdir/name of mode: its path, until the next call */
const char *t_tmp_mkdir(const char *name, unsigned int mode);

/* text into the file path, created or emptied */
void t_put(const char *path, const char *text);

/* Run a shell command made like printf: its status (0: success), said if not 0 */
int t_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A defined symbol's address and size (0: none) as nm -S sees it: 0, or -1 */
int t_nm(const char *file, const char *name, unsigned long long *addr,
	 unsigned long long *size);

/* The size of this process's mapping at start (/proc/self/maps), 0 if none */
size_t t_self_mapping_size(unsigned long start);

/*
 * A cmocka group setup: tracefs and bpffs mounted where they are not, as
 * every tool's kfit_setup mounts them (a fresh machine or container may
 * have neither); without root nothing is mounted and the tests that need
 * them skip. Always 0.
 */
int t_kernel_fs_setup(void **state);

/*
 * A cmocka group setup: t_tmpdir_setup, then tests/helpers/symtarget.c
 * built there: pie and nopie (build-ids T_ID_PIE, T_ID_NOPIE), noid
 * (none); of each F, F.debug (objcopy --only-keep-debug), F.stripped (no
 * .symtab, a .gnu_debuglink to F.debug) and F.bare (no .symtab, no link).
 * 0, or -1 (said why).
 */
#define T_ID_PIE	"0123456789abcdef0123456789abcdef01234567"
#define T_ID_NOPIE	"fedcba9876543210fedcba9876543210fedcba98"
int t_symtarget_setup(void **state);

/*
 * Records as a recording holds them, back to back in buf (8-byte aligned,
 * T_RECGEN_BYTES): three tasks (pid = tid = 10, 11, 12) whose calls of
 * T_RECGEN_FUNCS functions nest and run flat, each task's records in its
 * order; interrupts with a call in them (some with no record of their
 * own, as the local timer's), context switches, losses,
 * incomplete calls, execs naming a task "one" or "two". The same seed,
 * the same records. Their length.
 */
#define T_RECGEN_MAX	4096
#define T_RECGEN_BYTES	(T_RECGEN_MAX * sizeof(struct kfit_rec_call))	/* the largest */
#define T_RECGEN_FUNCS	4
/*
 * Each call returns a value (one in 23 or so -errno, a failure), read as
 * an int of the kernel's convention (t_recgen_kinds: T_RECGEN_FUNCS of them)
 */
#define T_RECGEN_KIND	(4 | KFIT_RET_SIGNED | KFIT_RET_ERRNO)
extern const __u8 t_recgen_kinds[T_RECGEN_FUNCS];
size_t t_recgen(unsigned int seed, char *buf);

/*
 * Call trees by hand: nodes taken from a test's pool, linked under their
 * parent as the decoder links them (ctx, cpu and depth from the parent)
 */
struct t_pool {
	struct kfit_cnode *node;
	int used, max;
};

struct kfit_cnode *t_node(struct t_pool *p, struct kfit_cnode *parent, __u8 kind, __u32 id,
			  __u64 start, __u64 dur, __u64 local);
/*
 * A decoder with no records, for the names of hand-built nodes as the
 * tools see them: t_names_tree from t_names_setup (0, or -1 out of
 * memory) to t_names_teardown; t_names is a kfit_export_name_fn
 */
extern struct kfit_ctree *t_names_tree;
int t_names_setup(const char *const *funcs, int nfuncs, const char *const *events,
		  int nevents);
void t_names_teardown(void);
const char *t_names(void *ctx, const struct kfit_cnode *n);
/* An empty thread of pid, tid and comm, its root node ready */
void t_thread_init(struct kfit_cthread *t, __u32 pid, __u32 tid, const char *comm);

#endif
