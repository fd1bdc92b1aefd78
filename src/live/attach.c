// SPDX-License-Identifier: GPL-2.0
/*
 * The mass attacher: resolve (target.c) -> prepare -> load (the tool's
 * skeleton) -> attach -> activate. A function the kernel refuses is
 * skipped with the reason, never the whole run.
 */
#include <limits.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "attach_int.h"
#include "btf.h"
#include "diag.h"
#include "duration.h"
#include "explain.h"
#include "fileio.h"
#include "output.h"
#include "probe.h"
#include "run.h"
#include "ufollow.h"
#include "uprobes.h"

struct kfit_attacher *kfit_attacher_new(struct kfit_targets *t,
					const struct kfit_attach_opts *o)
{
	struct kfit_attacher *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->t = t;
	a->o = *o;
	return a;
}

/* ---- prepare ------------------------------------------------------------ */

/*
 * --attach auto: fentry costs less per call, but attaches one function at
 * a time (a trampoline, and a wait for every CPU, each); kprobe_multi
 * attaches any number in one link. Past this many kernel functions the
 * wait at start outweighs the difference per call (docs/funcdur.md,
 * "Attaching many functions": the crossover measured in the VM).
 */
#define KFIT_AUTO_MULTI	32

/* The kernel mechanism: what was asked for, if this kernel has it */
static int choose_mech(struct kfit_attacher *a)
{
	enum kfit_amech want = a->o.mech;
	bool fentry = kfit_probe_works(KFIT_M_FENTRY);
	bool kprobe = kfit_probe_works(KFIT_M_KPROBE);
	bool multi = kfit_probe_works(KFIT_M_KPROBE_MULTI);
	enum kfit_mech refused = KFIT_M_KPROBE;

	if (want == KFIT_AM_AUTO && !fentry && kprobe)
		kfit_info("note: fentry is refused here (%s); using kprobes",
			  kfit_probe(KFIT_M_FENTRY)->detail);
	a->many = want == KFIT_AM_AUTO && fentry && kprobe && multi &&
		  a->t->nkernel > KFIT_AUTO_MULTI;
	if (a->many)
		a->mech = KFIT_AM_KPROBE_MULTI;
	else if ((want == KFIT_AM_AUTO || want == KFIT_AM_FENTRY) && fentry)
		a->mech = KFIT_AM_FENTRY;
	else if (want != KFIT_AM_FENTRY && want != KFIT_AM_KPROBE_SINGLE && kprobe && multi)
		a->mech = KFIT_AM_KPROBE_MULTI;
	else if (want != KFIT_AM_FENTRY && want != KFIT_AM_KPROBE_MULTI && kprobe)
		a->mech = KFIT_AM_KPROBE_SINGLE;
	else
		a->mech = KFIT_AM_AUTO;
	if (a->mech != KFIT_AM_AUTO)
		return 0;
	if (want == KFIT_AM_AUTO || want == KFIT_AM_FENTRY)
		refused = KFIT_M_FENTRY;	/* its explanation names kprobes too */
	else if (want == KFIT_AM_KPROBE_MULTI && kprobe)
		refused = KFIT_M_KPROBE_MULTI;
	kfit_explain(refused, a->t->funcs[kfit_targets_first(a->t, KFIT_TARGETS_KERNEL)].name,
		     kfit_probe(refused)->err);
	kfit_err("kernel functions cannot be traced here; sys:NAME (system "
		 "calls) and BINARY:FUNC (user functions) can");
	return kfit_probe(refused)->err ? kfit_probe(refused)->err : -EOPNOTSUPP;
}

static void autoload(struct bpf_program *p, bool on)
{
	if (p)
		bpf_program__set_autoload(p, on);
}

/* The last of f's system call arguments its specs read (1 to 6), 0: none */
static int sys_words(const struct kfit_targets_func *f)
{
	int n = 0, k;

	for (k = 0; k < f->nargs; k++)
		if (f->args[k].spec.src == KFIT_ARG_TP && f->args[k].spec.index > n)
			n = f->args[k].spec.index;
	return n;
}

/* The entry program of system call f: the one that reads its arguments */
static struct bpf_program *sys_enter_prog(const struct kfit_attacher *a,
					  const struct kfit_targets_func *f)
{
	int n = sys_words(f);

	if (n == 0 || n > KFIT_SYS_ARGS || !a->p.sys_enter_args[n - 1])
		return a->p.sys_enter;
	return a->p.sys_enter_args[n - 1];
}

/* What each attached function costs in file descriptors */
static int fds_per_func(const struct kfit_attacher *a)
{
	return a->mech == KFIT_AM_KPROBE_MULTI ? 0 : 4;
}

static void check_nofile(struct kfit_attacher *a)
{
	struct rlimit rl;
	int need = a->t->nkernel * fds_per_func(a) + a->t->nsys * 4 +
		   (a->umulti ? 0 : a->t->nuser * 4);

	kfit_raise_nofile();
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return;
	if ((rlim_t)need + 64 > rl.rlim_cur)
		kfit_warn("%d functions need about %d file descriptors, more than "
			  "RLIMIT_NOFILE (%llu): the last ones will be skipped%s",
			  a->t->n, need, (unsigned long long)rl.rlim_cur,
			  kfit_probe_works(KFIT_M_KPROBE_MULTI) ?
			  "; kprobe_multi (-k) needs two" : "");
}

/* uprobe_multi links where the kernel has them, unless single ones are asked for */
static int choose_umech(struct kfit_attacher *a)
{
	char why[160];
	int err;

	a->umulti = false;
	if (!a->t->nuser || a->o.umech == KFIT_UM_SINGLE)
		return 0;
	err = kfit_uprobes_multi_check(why, sizeof(why));
	if (!err) {
		a->umulti = true;
		return 0;
	}
	if (a->o.umech == KFIT_UM_MULTI) {
		kfit_err("--attach uprobe-multi: %s; uprobe-single attaches a uprobe "
			 "pair per function", why);
		return err;
	}
	kfit_debug("uprobes one by one: %s", why);
	return 0;
}

/* uprobe_multi programs are loaded as such: they attach to nothing else */
static int umulti_progs(struct kfit_attacher *a)
{
	int err = 0;

	if (a->p.uprobe)
		err = bpf_program__set_expected_attach_type(a->p.uprobe,
							     KFIT_UPROBES_TRACE_MULTI);
	if (!err && a->p.uretprobe)
		err = bpf_program__set_expected_attach_type(a->p.uretprobe,
							     KFIT_UPROBES_TRACE_MULTI);
	return err;
}

int kfit_attacher_prepare(struct kfit_attacher *a, const struct kfit_attach_progs *p)
{
	struct bpf_program *prog;
	int err, i;

	a->p = *p;
	a->mech = KFIT_AM_AUTO;
	if (a->t->nkernel) {
		err = choose_mech(a);
		if (err)
			return err;
	}
	err = choose_umech(a);
	if (!err && a->umulti)
		err = umulti_progs(a);
	if (err)
		return err;
	check_nofile(a);
	/* Every program off, then on for what is needed */
	bpf_object__for_each_program(prog, p->obj)
		bpf_program__set_autoload(prog, false);
	autoload(p->fentry, a->mech == KFIT_AM_FENTRY);
	autoload(p->fexit, a->mech == KFIT_AM_FENTRY);
	autoload(p->kprobe, a->mech == KFIT_AM_KPROBE_SINGLE);
	autoload(p->kretprobe, a->mech == KFIT_AM_KPROBE_SINGLE);
	autoload(p->kmulti, a->mech == KFIT_AM_KPROBE_MULTI);
	autoload(p->kmulti_ret, a->mech == KFIT_AM_KPROBE_MULTI);
	autoload(p->uprobe, a->t->nuser > 0);
	autoload(p->uretprobe, a->t->nuser > 0);
	for (i = 0; i < a->t->n; i++)
		if (a->t->funcs[i].kind == KFIT_TARGETS_SYS)
			autoload(sys_enter_prog(a, &a->t->funcs[i]), true);
	autoload(p->sys_exit, a->t->nsys > 0);
	if (a->mech != KFIT_AM_FENTRY)
		return 0;
	err = bpf_program__set_attach_target(p->fentry, 0, FENTRY_TEMPLATE);
	if (!err)
		err = bpf_program__set_attach_target(p->fexit, 0, FENTRY_TEMPLATE);
	return err;
}

/* ---- bookkeeping -------------------------------------------------------- */

/* The uprobes' process filter: 0 for none */
static int upid(const struct kfit_attacher *a)
{
	return a->o.unfiltered ? 0 : a->o.pid;
}

static const char *why(const struct kfit_attacher *a, int err)
{
	struct rlimit rl;
	static char buf[160];

	if (err == -EMFILE && !getrlimit(RLIMIT_NOFILE, &rl)) {
		snprintf(buf, sizeof(buf), "no file descriptor left (RLIMIT_NOFILE %llu)",
			 (unsigned long long)rl.rlim_cur);
		return buf;
	}
	if (err == -ENOTSUPP_KERNEL || err == -EOPNOTSUPP)
		return a->mech == KFIT_AM_FENTRY ?
		       "the kernel cannot put a trampoline on it (EOPNOTSUPP)" :
		       "the kernel cannot probe it (EOPNOTSUPP)";
	if (a->mech == KFIT_AM_FENTRY && kfit_fentry_reason(err))
		return kfit_fentry_reason(err);
	return kfit_reason(err);
}

/* Function i is not traced, for reason */
static int skip(struct kfit_attacher *a, int i, const char *reason)
{
	a->t->funcs[i].dropped = true;
	return kfit_targets_skip(a->t, a->t->funcs[i].name, reason);
}

/* The function cannot be traced: skipped, with the mechanism and why */
static int drop(struct kfit_attacher *a, int i, const char *mech, int err)
{
	const struct kfit_targets_func *f = &a->t->funcs[i];
	char reason[320];

	if (!a->first_err)
		a->first_err = err;
	if (f->kind == KFIT_TARGETS_USER && err == -ENOENT)
		snprintf(reason, sizeof(reason), "uprobe refused: no code at offset "
			 "0x%llx of %s (the file changed since it was read?)",
			 f->offset, f->path);
	else
		snprintf(reason, sizeof(reason), "%s refused: %s", mech, why(a, err));
	return skip(a, i, reason);
}

static int keep_link(struct kfit_attacher *a, struct bpf_link *l)
{
	struct bpf_link **n;

	if (!l)
		return -errno;
	n = realloc(a->links, (a->nlinks + 1) * sizeof(*n));
	if (!n) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	a->links = n;
	a->links[a->nlinks++] = l;
	return 0;
}

/* Undo the last attachments down to nfds and nlinks (a half-attached function) */
void attach_undo(struct kfit_attacher *a, int nfds, int nlinks)
{
	while (a->nfds > nfds)
		close(a->fds[--a->nfds]);
	while (a->nlinks > nlinks)
		bpf_link__destroy(a->links[--a->nlinks]);
}

/* Past a second: a line rewritten in place on the terminal, erased at the end */
bool attach_progress_due(struct kfit_attacher *a, bool last)
{
	__u64 now = kfit_now_ns();

	if (!a->o.progress || (last && !a->shown))
		return false;
	if (!last && (now - a->started < 1000000000ULL ||
		      now - a->last_progress < 200000000ULL))
		return false;
	a->last_progress = now;
	a->shown = !last;
	return true;
}

static void progress(struct kfit_attacher *a, bool last)
{
	double s = (kfit_now_ns() - a->started) / 1e9;

	if (!attach_progress_due(a, last))
		return;
	fprintf(stderr, "\rattaching %d/%d functions (%.0f/s)...", a->done, a->total,
		s > 0 ? a->done / s : 0.0);
	if (last)
		fputs("\r\033[K", stderr);
}

/* ---- kprobes ------------------------------------------------------------ */

static int attach_kprobe(struct kfit_attacher *a, int i)
{
	LIBBPF_OPTS(bpf_kprobe_opts, o, .bpf_cookie = i);
	const char *name = a->t->funcs[i].name;
	int nlinks = a->nlinks, err;

	err = keep_link(a, bpf_program__attach_kprobe_opts(a->p.kprobe, name, &o));
	o.retprobe = true;
	if (!err)
		err = keep_link(a, bpf_program__attach_kprobe_opts(a->p.kretprobe, name, &o));
	if (err)
		attach_undo(a, a->nfds, nlinks);
	return err;
}

/* Both directions for the kernel functions idx[0..n) */
static int kmulti_link(struct kfit_attacher *a, const int *idx, int n)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, o);
	const char **syms = calloc(n, sizeof(*syms));
	__u64 *cookies = calloc(n, sizeof(*cookies));
	int i, nlinks = a->nlinks, err = -ENOMEM;

	if (syms && cookies) {
		for (i = 0; i < n; i++) {
			syms[i] = a->t->funcs[idx[i]].name;
			cookies[i] = idx[i];
		}
		o.syms = syms;
		o.cookies = cookies;
		o.cnt = n;
		err = keep_link(a, bpf_program__attach_kprobe_multi_opts(a->p.kmulti, NULL, &o));
		o.retprobe = true;
		if (!err)
			err = keep_link(a, bpf_program__attach_kprobe_multi_opts(a->p.kmulti_ret,
										  NULL, &o));
		if (err)
			attach_undo(a, a->nfds, nlinks);
	}
	free(syms);
	free(cookies);
	return err;
}

/* A multi-link kind: makes both directions' links for idx[0..n) */
struct multi {
	const char *name;
	int (*link)(struct kfit_attacher *a, const int *idx, int n);
	bool (*whole)(int err);	/* no subset of the functions would avoid err */
};

static bool kmulti_whole(int err)
{
	return err == -EPERM || err == -EACCES || err == -ENOMEM || err == -EMFILE ||
	       err == -ENOTSUPP_KERNEL || err == -EOPNOTSUPP || err == -EINTR;
}

/*
 * One link for all; when the kernel refuses the set, halves are tried
 * until the functions it refuses are found and skipped.
 */
static int attach_multi(struct kfit_attacher *a, const struct multi *m,
			const int *idx, int n)
{
	int err, half;

	if (kfit_exiting)
		return -EINTR;
	err = m->link(a, idx, n);
	if (!err) {
		a->attached += n;
		a->done += n;
		progress(a, false);
		return 0;
	}
	if (m->whole(err))
		return err;
	if (n == 1) {
		a->done++;
		return drop(a, idx[0], m->name, err);
	}
	half = n / 2;
	err = attach_multi(a, m, idx, half);
	return err ? err : attach_multi(a, m, idx + half, n - half);
}

static const struct multi kmulti = { "kprobe_multi", kmulti_link, kmulti_whole };

/* ---- user functions and system calls ------------------------------------ */

static int attach_user(struct kfit_attacher *a, int i)
{
	const struct kfit_targets_func *f = &a->t->funcs[i];
	/* At the offset target.c found (an IFUNC's implementation), else by name */
	LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = i,
		    .func_name = f->offset ? NULL : f->name);
	pid_t pid = upid(a) ? upid(a) : -1;
	int nlinks = a->nlinks, err;

	err = keep_link(a, bpf_program__attach_uprobe_opts(a->p.uprobe, pid, f->path,
							   f->offset, &o));
	o.retprobe = true;
	if (!err)
		err = keep_link(a, bpf_program__attach_uprobe_opts(a->p.uretprobe, pid,
								   f->path, f->offset, &o));
	/* the process's new ones get uprobes of their own */
	if (!err && a->uf)
		err = kfit_ufollow_set(a->uf, bpf_program__fd(a->p.uprobe),
				       bpf_program__fd(a->p.uretprobe), f->path,
				       &f->offset, &(__u64){ i }, 1);
	if (err)
		attach_undo(a, a->nfds, nlinks);
	return err;
}

static int keep_ulink(struct kfit_attacher *a, int fd)
{
	return fd < 0 ? fd : kfit_fd_push(&a->ulinks, &a->nulinks, fd);
}

/* Both directions for the user functions idx[0..n), all of one binary */
static int umulti_link(struct kfit_attacher *a, const int *idx, int n)
{
	__u64 *offs = calloc(n, sizeof(*offs)), *cookies = calloc(n, sizeof(*cookies));
	const char *path = a->t->funcs[idx[0]].path;
	int i, nul = a->nulinks, err = -ENOMEM;

	if (offs && cookies) {
		for (i = 0; i < n; i++) {
			offs[i] = a->t->funcs[idx[i]].offset;
			cookies[i] = idx[i];
		}
		err = keep_ulink(a, kfit_uprobes_multi_link(bpf_program__fd(a->p.uprobe), path,
						     offs, cookies, n, upid(a), false));
		if (!err)
			err = keep_ulink(a, kfit_uprobes_multi_link(bpf_program__fd(a->p.uretprobe),
							     path, offs, cookies, n,
							     upid(a), true));
		/* the process's new ones get links of their own */
		if (!err && a->uf)
			err = kfit_ufollow_set(a->uf, bpf_program__fd(a->p.uprobe),
					       bpf_program__fd(a->p.uretprobe), path,
					       offs, cookies, n);
		while (err && a->nulinks > nul)
			close(a->ulinks[--a->nulinks]);
	}
	free(offs);
	free(cookies);
	return err;
}

/* An instruction the kernel cannot probe (ENOTSUPP) is one function's */
static bool umulti_whole(int err)
{
	return err == -EPERM || err == -EACCES || err == -ENOMEM || err == -EMFILE ||
	       err == -ESRCH || err == -EINTR;
}

static const struct multi umulti = { "uprobe_multi", umulti_link, umulti_whole };

/* Index of the first user function of path */
static int first_of_path(const struct kfit_targets *t, const char *path)
{
	int i;

	for (i = 0; i < t->n; i++)
		if (t->funcs[i].kind == KFIT_TARGETS_USER && !strcmp(t->funcs[i].path, path))
			return i;
	return -1;
}

/* The functions of kind (and path, for user functions) not dropped, in idx */
static int gather(const struct kfit_attacher *a, enum kfit_targets_kind kind,
		  const char *path, int *idx)
{
	const struct kfit_targets_func *f;
	int i, n = 0;

	for (i = 0; i < a->t->n; i++) {
		f = &a->t->funcs[i];
		if (f->kind == kind && !f->dropped && (!path || !strcmp(f->path, path)))
			idx[n++] = i;
	}
	return n;
}

static int attach_sys(struct kfit_attacher *a, int i)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, o, .bpf_cookie = i);
	const struct kfit_targets_func *f = &a->t->funcs[i];
	/* stat's tracepoints are newstat's */
	const char *name = f->path ? f->path : f->name + 4;
	int nlinks = a->nlinks, err;
	char tp[128];

	snprintf(tp, sizeof(tp), "sys_enter_%s", name);
	err = keep_link(a, bpf_program__attach_tracepoint_opts(sys_enter_prog(a, f),
							      "syscalls", tp, &o));
	snprintf(tp, sizeof(tp), "sys_exit_%s", name);
	if (!err)
		err = keep_link(a, bpf_program__attach_tracepoint_opts(a->p.sys_exit,
								      "syscalls", tp, &o));
	if (err)
		attach_undo(a, a->nfds, nlinks);
	return err;
}

/* ---- attach ------------------------------------------------------------- */

static const char *kind_mech(const struct kfit_attacher *a, enum kfit_targets_kind k)
{
	if (k == KFIT_TARGETS_USER)
		return "uprobe";
	if (k == KFIT_TARGETS_SYS)
		return "tracepoint";
	return a->mech == KFIT_AM_FENTRY ? "fentry" : "kprobe";
}

static int attach_one(struct kfit_attacher *a, int i)
{
	switch (a->t->funcs[i].kind) {
	case KFIT_TARGETS_USER:
		return attach_user(a, i);
	case KFIT_TARGETS_SYS:
		return attach_sys(a, i);
	default:
		return a->mech == KFIT_AM_FENTRY ? attach_fentry(a, i) : attach_kprobe(a, i);
	}
}

/* Every function but those kprobe_multi and uprobe_multi take at once */
static int attach_each(struct kfit_attacher *a)
{
	const struct kfit_targets_func *f;
	int i, err;

	for (i = 0; i < a->t->n; i++) {
		f = &a->t->funcs[i];
		if (f->dropped || (f->kind == KFIT_TARGETS_KERNEL && a->mech == KFIT_AM_KPROBE_MULTI) ||
		    (f->kind == KFIT_TARGETS_USER && a->umulti))
			continue;
		if (kfit_exiting)
			return -EINTR;
		err = attach_one(a, i);
		if (err == -ENOMEM)
			return err;
		if (err && drop(a, i, kind_mech(a, f->kind), err))
			return -ENOMEM;
		a->attached += !err;
		a->done++;
		progress(a, false);
	}
	return 0;
}

/*
 * fn on the functions of kind not dropped, in idx[0..n): all at once for
 * kernel functions, binary by binary for user functions (path set)
 */
static int each_group(struct kfit_attacher *a, enum kfit_targets_kind kind,
		      int (*fn)(struct kfit_attacher *a, const char *path,
				const int *idx, int n))
{
	int *idx = calloc((size_t)a->t->n + 1, sizeof(int));
	const struct kfit_targets_func *f;
	int i, n, err = 0;

	if (!idx)
		return -ENOMEM;
	for (i = 0; i < a->t->n && !err; i++) {
		f = &a->t->funcs[i];
		if (f->kind != kind || (kind == KFIT_TARGETS_USER && first_of_path(a->t, f->path) != i))
			continue;
		n = gather(a, kind, kind == KFIT_TARGETS_USER ? f->path : NULL, idx);
		err = n ? fn(a, kind == KFIT_TARGETS_USER ? f->path : NULL, idx, n) : 0;
		if (kind != KFIT_TARGETS_USER)
			break;
	}
	free(idx);
	return err;
}

/* kprobe_multi: one link per direction (explained by the caller) */
static int kmulti_group(struct kfit_attacher *a, const char *path, const int *idx, int n)
{
	(void)path;
	return attach_multi(a, &kmulti, idx, n);
}

/* uprobe_multi: a link per binary and direction */
static int umulti_group(struct kfit_attacher *a, const char *path, const int *idx, int n)
{
	int err = attach_multi(a, &umulti, idx, n);

	if (err && err != -EINTR && err != -ENOMEM)
		kfit_err("cannot attach uprobe_multi links to %s%s: %s", path,
			 err == -ESRCH ? " (the process is gone)" : "", kfit_reason(err));
	return err;
}

/* ---- uprobes on a binary other processes run ----------------------------- */

static unsigned long uprobe_limit(const struct kfit_attacher *a)
{
	return a->o.uprobe_limit ? a->o.uprobe_limit : KFIT_UPROBE_LIMIT;
}

static void say_users(const struct kfit_uprobes_users *u)
{
	int i;

	fprintf(stderr, "  ");
	for (i = 0; i < u->n && i < 4; i++)
		fprintf(stderr, "%s%d %s", i ? ", " : "", u->pid[i], u->comm[i]);
	if (u->n > 4)
		fprintf(stderr, " and %d more", u->n - 4);
	fputc('\n', stderr);
}

/*
 * n uprobes on path, which u's processes run too. Without a process
 * filter they fire there; one by one, each removal holds the kernel's
 * event_mutex across an RCU grace period, and every tracer on the
 * machine that opens a tracepoint or probe waits behind it.
 */
static void say_cost(const struct kfit_attacher *a, const char *path, int n)
{
	char c[32];

	kfit_duration_fmt_thousands(n, c, sizeof(c));
	if (!upid(a))
		fprintf(stderr, "  Without a process filter, in those processes each call of\n"
			"  the %s functions would stop at a breakpoint (microseconds\n"
			"  each), return probes rewriting their return addresses.\n", c);
	if (!a->umulti)
		fprintf(stderr, "  One by one (no uprobe_multi links here), attaching and\n"
			"  detaching %s uprobe pairs on %s takes 0.1 to 1 s\n"
			"  each, minutes in all, every other tracer's probes and\n"
			"  tracepoints waiting behind them in the kernel.\n", c, path);
}

/* 0, or -EBUSY after saying which processes run path and what it would cost */
static int check_shared(struct kfit_attacher *a, const char *path, int n)
{
	struct kfit_uprobes_users u;
	char c[32];

	/*
	 * uprobe_multi: one link, process filter or not (system-wide, every
	 * process running it is traced: none is "other")
	 */
	if ((a->umulti && !a->o.unfiltered) ||
	    kfit_uprobes_binary_users(path, a->o.pid, a->o.follow, &u) || !u.n)
		return 0;
	if ((unsigned long)n <= uprobe_limit(a) || a->o.force) {
		if (a->o.unfiltered)
			kfit_info("note: %d other process%s run%s %s: the uprobes fire "
				  "there too (--no-uprobe-filter):\n  not traced, but each "
				  "call stops at a breakpoint", u.n, u.n == 1 ? "" : "es",
				  u.n == 1 ? "s" : "", path);
		return 0;
	}
	kfit_err("refusing %s uprobes on %s (more than --uprobe-limit %lu):\n"
		 "  %d other process%s run%s it:", kfit_duration_fmt_thousands(n, c, sizeof(c)),
		 path, uprobe_limit(a), u.n, u.n == 1 ? "" : "es", u.n == 1 ? "s" : "");
	say_users(&u);
	say_cost(a, path, n);
	fprintf(stderr, "  --force attaches them all the same; a narrower glob or\n"
		"  --uprobe-limit N changes the count\n");
	return -EBUSY;
}

/* Whether path is the program this tool runs */
static bool is_self(const char *path)
{
	struct stat me, st;

	return !stat("/proc/self/exe", &me) && !stat(path, &st) &&
	       me.st_dev == st.st_dev && me.st_ino == st.st_ino;
}

/*
 * Without a process filter the tool's own calls would stop at its probes:
 * on 6.18 a return probe pending in one of its threads (main, waiting for
 * the detach) held every probe removal on the machine, event_mutex and all
 * perf_event_open with it, until the tool was killed
 */
static int refuse_self(struct kfit_attacher *a, const int *idx, int n)
{
	int i, err = 0;

	for (i = 0; i < n && !err; i++)
		err = skip(a, idx[i], "the tool's own program: without -p or a "
			   "COMMAND's filter it would trace itself");
	return err;
}

/* A binary's uprobes: refused on the tool's own program, or where too costly */
static int check_group(struct kfit_attacher *a, const char *path, const int *idx, int n)
{
	if (!upid(a) && is_self(path))
		return refuse_self(a, idx, n);
	return check_shared(a, path, n);
}

/*
 * The processes pid creates: their uprobe_multi links are made as the BPF
 * side says they fork, from now (a fork while attaching waits in the ring)
 */
static int follow_begin(struct kfit_attacher *a)
{
	if (!a->o.follow || !upid(a))
		return 0;
	a->uf = kfit_ufollow_new(a->o.pid, a->umulti);
	if (!a->uf)
		return -ENOMEM;
	if (a->p.follow_notify)
		*a->p.follow_notify = true;
	return 0;
}

static int follow_watch(struct kfit_attacher *a)
{
	int err;

	if (!a->uf)
		return 0;
	if (!a->p.follow_rb) {
		kfit_err("internal: following processes without follow_rb");
		return -EINVAL;
	}
	err = kfit_ufollow_start(a->uf, bpf_map__fd(a->p.follow_rb));
	if (err)
		kfit_err("cannot watch for the new processes of %d: %s", a->o.pid,
			 kfit_reason(err));
	return err;
}

/* Nothing attached: say why, from the first refusal */
static int none_attached(struct kfit_attacher *a)
{
	int i, err = a->first_err ? a->first_err : -ENOENT;

	kfit_err("no function could be attached:");
	for (i = 0; i < a->t->nskipped; i++)
		fprintf(stderr, "  %s: %s\n", a->t->skipped[i].name, a->t->skipped[i].reason);
	return err;
}

int kfit_attacher_attach(struct kfit_attacher *a)
{
	int i, err = 0;

	a->fds_before = kfit_count_fds();
	a->started = kfit_now_ns();
	a->done = a->attached = 0;
	if (a->t->nuser) {
		err = each_group(a, KFIT_TARGETS_USER, check_group);
		if (!err)
			err = follow_begin(a);
		if (err)
			return err;
	}
	for (a->total = 0, i = 0; i < a->t->n; i++)
		a->total += !a->t->funcs[i].dropped;
	if (a->mech == KFIT_AM_KPROBE_MULTI)
		err = each_group(a, KFIT_TARGETS_KERNEL, kmulti_group);
	if (!err && a->umulti)
		err = each_group(a, KFIT_TARGETS_USER, umulti_group);
	if (!err)
		err = attach_each(a);
	progress(a, true);
	a->attach_ns = kfit_now_ns() - a->started;
	a->fds_after = kfit_count_fds();
	/* the watcher's fds are not the functions' */
	if (!err)
		err = follow_watch(a);
	if (err == -EINTR || kfit_exiting) {
		kfit_err("interrupted while attaching (%d of %d functions): detaching "
			 "them, nothing traced", a->attached, a->total);
		return -EINTR;
	}
	if (err && err != -ENOMEM && a->mech == KFIT_AM_KPROBE_MULTI)
		kfit_explain(KFIT_M_KPROBE_MULTI, a->t->funcs[0].name, err);
	if (err)
		return err;
	return a->attached ? 0 : none_attached(a);
}

void kfit_attacher_activate(struct kfit_attacher *a, volatile bool *ready)
{
	(void)a;
	__sync_synchronize();
	*ready = true;
}

/* ---- pinning ------------------------------------------------------------ */

static int pin_fd(int fd, const char *dir, int n)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/link_%d", dir, n) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return bpf_obj_pin(fd, path) ? -errno : 0;
}

int kfit_attacher_pin(struct kfit_attacher *a, const char *dir)
{
	int i, n = 0, err;

	/* fentry: each copy's fd is followed by its link's */
	for (i = 1; i < a->nfds; i += 2) {
		err = pin_fd(a->fds[i], dir, n++);
		if (err)
			return err;
	}
	for (i = 0; i < a->nlinks; i++) {
		err = pin_fd(bpf_link__fd(a->links[i]), dir, n++);
		if (err)
			return err;
	}
	for (i = 0; i < a->nulinks; i++) {
		err = pin_fd(a->ulinks[i], dir, n++);
		if (err)
			return err;
	}
	/*
	 * Destroying a perf-event link (kprobes, uprobes, tracepoints) would
	 * disable its event even though pinned: the links are let go of
	 * instead, their fds closed at free (a perf event's own fd stays
	 * open until the process ends or execs: it is close-on-exec).
	 */
	for (i = 0; i < a->nlinks; i++)
		bpf_link__disconnect(a->links[i]);
	a->pinned = true;
	return 0;
}
