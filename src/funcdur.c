// SPDX-License-Identifier: GPL-2.0
/*
 * funcdur: per-function wall-time durations, KFI style.
 * BPF side: bpf/funcdur.bpf.c. Shared types: include/kfit/funcdur.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "kfit/funcdur.h"
#include "funcdur.skel.h"
#include "btfq.h"
#include "diag.h"
#include "duration.h"
#include "explain.h"
#include "hist.h"
#include "ktarget.h"
#include "maps.h"
#include "opts.h"
#include "output.h"
#include "probe.h"
#include "run.h"
#include "syscalls.h"
#include "utarget.h"

enum kind { FN_KERNEL, FN_USER, FN_SYS };

struct func {
	char *name;		/* as reported */
	enum kind kind;
	char *path;		/* FN_USER: the binary */
	/* one report's figures */
	struct kfit_hist h;
	struct kfit_linhist l;
	__u64 local_ns;
	__u64 filtered;
	int max_sub;		/* traced callee with the most time, -1: none */
	__u64 max_sub_ns;
};

enum sort_key { SORT_TIME, SORT_LOCAL, SORT_COUNT, SORT_AVG, SORT_MAX };

enum {
	OPT_LINEAR = 256, OPT_EVENTS, OPT_NOINTS, OPT_ONLYINTS, OPT_START_AT,
	OPT_STOP_AT, OPT_CGROUP,
};

static const struct kfit_opt funcdur_opts[] = {
	{ "kprobes", 'k', NULL, "use kprobes for kernel functions, not fentry" },
	{ "hist", 'H', NULL, "print a histogram per function (log2 buckets)" },
	{ "linear", OPT_LINEAR, "STEP", "linear histogram buckets of STEP (implies -H)" },
	{ "events", OPT_EVENTS, NULL, "print one line per call that passed the filters" },
	{ "sort", 's', "KEY", "sort by time (default), local, count, avg or max" },
	{ "top", 'n', "N", "show the top N functions" },
	{ "noints", OPT_NOINTS, NULL, "only calls in task context" },
	{ "onlyints", OPT_ONLYINTS, NULL, "only calls in interrupt context (hardirq, softirq, NMI)" },
	{ "start-at", OPT_START_AT, "FUNC", "collect from the first entry of FUNC" },
	{ "stop-at", OPT_STOP_AT, "FUNC", "stop collecting at the exit of FUNC" },
	{ "cgroup", OPT_CGROUP, "PATH", "only tasks in this cgroup (v2 path)" },
	{ NULL },
};

struct env {
	struct kfit_common c;
	bool kprobes, hist, events, noints, onlyints;
	__u64 lin_step;
	enum sort_key sort;
	unsigned long top;
	const char *start_at, *stop_at, *cgroup;
	char **targets;
	int ntargets;

	struct func *funcs;
	int nfuncs;
	struct kfit_kfunc_skip *skipped;
	int nskipped;
	int nkernel;
	const char *mode;	/* of the kernel functions */

	struct funcdur_bpf *skel;
	struct bpf_link **links;
	int nlinks;
	int *fds;		/* fentry program copies and their links */
	int nfds;
	struct ring_buffer *rb;
	struct kfit_percpu stats, lins, counts;	/* per-CPU map values read */
	struct kfit_entries edges;
	__u64 start_ns, nevents, last_lost;
	__u64 counters[FD_NCOUNTERS];
};

static struct env env = { .top = 0 };

static int parse_opt(int key, const char *arg, void *ctx)
{
	struct env *e = ctx;

	switch (key) {
	case 'k':
		e->kprobes = true;
		return 0;
	case 'H':
		e->hist = true;
		return 0;
	case OPT_LINEAR:
		if (kfit_parse_linear("funcdur", arg, &e->lin_step))
			return -1;
		e->hist = true;
		return 0;
	case OPT_EVENTS:
		e->events = true;
		return 0;
	case 's':
		if (!strcmp(arg, "time"))
			e->sort = SORT_TIME;
		else if (!strcmp(arg, "local"))
			e->sort = SORT_LOCAL;
		else if (!strcmp(arg, "count"))
			e->sort = SORT_COUNT;
		else if (!strcmp(arg, "avg"))
			e->sort = SORT_AVG;
		else if (!strcmp(arg, "max"))
			e->sort = SORT_MAX;
		else {
			fprintf(stderr, "funcdur: invalid sort key '%s': use time, "
				"local, count, avg or max\n", arg);
			return -1;
		}
		return 0;
	case 'n':
		if (kfit_parse_uint(arg, 1000000, &e->top)) {
			fprintf(stderr, "funcdur: invalid number '%s' for --top\n", arg);
			return -1;
		}
		return 0;
	case OPT_NOINTS:
		e->noints = true;
		return 0;
	case OPT_ONLYINTS:
		e->onlyints = true;
		return 0;
	case OPT_START_AT:
		e->start_at = arg;
		return 0;
	case OPT_STOP_AT:
		e->stop_at = arg;
		return 0;
	case OPT_CGROUP:
		e->cgroup = arg;
		return 0;
	}
	return -1;
}

static const struct kfit_tool tool = {
	.name = "funcdur",
	.summary = "Wall-time duration of every call of kernel functions, system "
		   "calls or user functions,\nwith KFI's filters, triggers and "
		   "kd-style summaries (count, time, local time, max-sub).\n"
		   "TARGET: FUNC or GLOB (kernel), sys:NAME (system call), "
		   "BINARY:FUNC or LIB:FUNC (user, GLOB allowed).",
	.synopsis = "[OPTIONS] TARGET...",
	.examples = "funcdur do_fork --min 500us       # forks slower than 500 us\n"
		    "funcdur 'vfs_*' -p 1234           # every vfs_ function of a process\n"
		    "funcdur c:malloc -d 5s            # libc's malloc for 5 seconds\n"
		    "funcdur /usr/bin/python3:PyObject_Malloc\n"
		    "funcdur sys:read sys:write -H     # system calls, histograms\n"
		    "funcdur 'tcp_*' --events --min 1ms  # each slow call\n",
	.common = KFIT_OPT_PID | KFIT_OPT_TID | KFIT_OPT_COMM | KFIT_OPT_CPU |
		  KFIT_OPT_DURATION | KFIT_OPT_INTERVAL | KFIT_OPT_JSON |
		  KFIT_OPT_TIMESTAMP | KFIT_OPT_MINMAX,
	.opts = funcdur_opts,
	.parse = parse_opt,
	.ctx = &env,
};

/* ---- targets ---------------------------------------------------------- */

static int find_func(const char *name)
{
	int i;

	for (i = 0; i < env.nfuncs; i++)
		if (!strcmp(env.funcs[i].name, name))
			return i;
	return -1;
}

static int add_func(const char *name, enum kind kind, const char *path)
{
	struct func *f;
	int i = find_func(name);

	if (i >= 0)
		return i;
	if (env.nfuncs >= FD_MAX_FUNCS) {
		kfit_err("too many functions: at most %d", FD_MAX_FUNCS);
		return -E2BIG;
	}
	f = realloc(env.funcs, (env.nfuncs + 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	env.funcs = f;
	f = &env.funcs[env.nfuncs];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	f->kind = kind;
	f->path = path ? strdup(path) : NULL;
	if (!f->name || (path && !f->path))
		return -ENOMEM;
	if (kind == FN_KERNEL)
		env.nkernel++;
	return env.nfuncs++;
}

static int add_skipped(const struct kfit_kfunc_skip *s)
{
	struct kfit_kfunc_skip *n;

	n = realloc(env.skipped, (env.nskipped + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	env.skipped = n;
	n[env.nskipped].name = strdup(s->name);
	n[env.nskipped].reason = strdup(s->reason);
	env.nskipped++;
	return 0;
}

static int add_sys(const char *spec)
{
	char enter[128], exit[128], msg[512];
	int err;

	/* The tracepoints decide: the kernel may know newer calls than our table */
	err = kfit_syscall_tracepoints(spec + 4, enter, sizeof(enter), exit,
				       sizeof(exit), msg, sizeof(msg));
	if (err) {
		kfit_err("cannot trace '%s': %s", spec, msg);
		/* A known call without tracepoints is this kernel's limit */
		return kfit_syscall_nr(spec + 4) < 0 ? -EINVAL : -EOPNOTSUPP;
	}
	err = add_func(spec, FN_SYS, NULL);
	return err < 0 ? err : 0;
}

static int add_user(const char *spec)
{
	struct kfit_ufuncs u = {};
	char msg[512];
	int i, err;

	err = kfit_ufuncs_resolve(spec, env.c.pid, &u, msg, sizeof(msg));
	if (err) {
		kfit_err("%s", msg);
		return -EINVAL;
	}
	for (i = 0; i < u.n && err >= 0; i++)
		err = add_func(u.names[i], FN_USER, u.path);
	kfit_ufuncs_free(&u);
	return err < 0 ? err : 0;
}

static int add_kernel(const char *spec)
{
	struct kfit_ksrc src = { .need_btf = !env.kprobes };
	struct kfit_kfuncs k = {};
	char msg[1024];
	int i, err;

	err = kfit_kfuncs_resolve(&src, spec, &k, msg, sizeof(msg));
	if (err) {
		kfit_err("%s", msg);
		return -EINVAL;
	}
	if (k.note[0])
		kfit_info("note: %s", k.note);
	for (i = 0; i < k.nskipped && err >= 0; i++)
		err = add_skipped(&k.skipped[i]);
	for (i = 0; i < k.n && err >= 0; i++)
		err = add_func(k.names[i], FN_KERNEL, NULL);
	kfit_kfuncs_free(&k);
	return err < 0 ? err : 0;
}

static int add_target(const char *spec)
{
	if (!strncmp(spec, "sys:", 4))
		return add_sys(spec);
	if (kfit_is_user_target(spec))
		return add_user(spec);
	return add_kernel(spec);
}

/* A trigger function is traced too; returns its id + 1 for the BPF side */
static int trigger_id(const char *spec)
{
	int i, n = env.nfuncs, err;
	const char *colon = strrchr(spec, ':');
	const char *name = colon && strncmp(spec, "sys:", 4) ? colon + 1 : spec;

	i = find_func(name);
	if (i >= 0)
		return i + 1;
	err = add_target(spec);
	if (err)
		return err;
	if (env.nfuncs != n + 1) {
		kfit_err("trigger '%s' must name exactly one function", spec);
		return -EINVAL;
	}
	return n + 1;
}

static int resolve_targets(int *start_id, int *stop_id)
{
	int i, err;

	for (i = 0; i < env.ntargets; i++) {
		err = add_target(env.targets[i]);
		if (err)
			return err;
	}
	*start_id = env.start_at ? trigger_id(env.start_at) : 0;
	if (*start_id < 0)
		return *start_id;
	*stop_id = env.stop_at ? trigger_id(env.stop_at) : 0;
	if (*stop_id < 0)
		return *stop_id;
	if (!env.nfuncs) {
		kfit_err("nothing to trace: every function was skipped");
		for (i = 0; i < env.nskipped; i++)
			fprintf(stderr, "  %s: %s\n", env.skipped[i].name,
				env.skipped[i].reason);
		return -ENOENT;
	}
	return 0;
}

/* ---- loading and attaching ------------------------------------------- */

static int first_of(enum kind kind)
{
	int i;

	for (i = 0; i < env.nfuncs; i++)
		if (env.funcs[i].kind == kind)
			return i;
	return -1;
}

static __u64 cgroup_id(const char *path)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h = { .fh.handle_bytes = sizeof(__u64) };
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) < 0)
		return 0;
	return h.id;
}

static int configure(struct funcdur_bpf *s, int start_id, int stop_id, bool fentry)
{
	struct bpf_program *p;
	int k = first_of(FN_KERNEL);

	s->rodata->self_tgid = getpid();
	s->rodata->filter_tgid = env.c.pid;
	s->rodata->filter_tid = env.c.tid;
	s->rodata->filter_comm = env.c.comm[0] != '\0';
	memcpy((char *)s->rodata->comm, env.c.comm, sizeof(env.c.comm));
	s->rodata->filter_cpu = env.c.cpus.set;
	s->rodata->noints = env.noints;
	s->rodata->onlyints = env.onlyints;
	s->rodata->min_ns = env.c.has_min ? env.c.min_ns : 0;
	s->rodata->max_ns = env.c.has_max ? env.c.max_ns : 0;
	s->rodata->lin_step = env.lin_step;
	s->rodata->events = env.events;
	s->rodata->start_id = start_id;
	s->rodata->stop_id = stop_id;
	if (env.cgroup) {
		s->rodata->filter_cgroup = cgroup_id(env.cgroup);
		if (!s->rodata->filter_cgroup) {
			kfit_err("cannot use cgroup '%s': %s", env.cgroup, strerror(errno));
			return -EINVAL;
		}
	}
	bpf_map__set_max_entries(s->maps.stats, 2 * env.nfuncs);
	bpf_map__set_max_entries(s->maps.linhists, env.lin_step ? 2 * env.nfuncs : 1);
	if (env.events)
		bpf_map__set_max_entries(s->maps.rb, 8 << 20);
	bpf_object__for_each_program(p, s->obj)
		bpf_program__set_autoload(p, false);
	if (k >= 0 && fentry) {
		bpf_program__set_autoload(s->progs.fd_fentry, true);
		bpf_program__set_autoload(s->progs.fd_fexit, true);
		bpf_program__set_attach_target(s->progs.fd_fentry, 0, env.funcs[k].name);
		bpf_program__set_attach_target(s->progs.fd_fexit, 0, env.funcs[k].name);
	} else if (k >= 0) {
		bpf_program__set_autoload(s->progs.fd_kprobe, true);
		bpf_program__set_autoload(s->progs.fd_kretprobe, true);
	}
	if (first_of(FN_USER) >= 0) {
		bpf_program__set_autoload(s->progs.fd_uprobe, true);
		bpf_program__set_autoload(s->progs.fd_uretprobe, true);
	}
	if (first_of(FN_SYS) >= 0) {
		bpf_program__set_autoload(s->progs.fd_sys_enter, true);
		bpf_program__set_autoload(s->progs.fd_sys_exit, true);
	}
	return 0;
}

static int add_link(struct bpf_link *l)
{
	struct bpf_link **n;

	if (!l)
		return -errno;
	n = realloc(env.links, (env.nlinks + 1) * sizeof(*n));
	if (!n) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	env.links = n;
	env.links[env.nlinks++] = l;
	return 0;
}

/*
 * fentry programs are bound to one function at load time: the skeleton's
 * program serves the first function, and each further one gets a copy of
 * its (already relocated) instructions loaded for that function.
 */
static int clone_for(struct bpf_program *prog, enum bpf_attach_type type,
		     const char *name)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = type);
	struct btf *btf = kfit_btf_vmlinux();
	int id, fd;

	id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -ENOENT;
	if (id < 0)
		return id;
	o.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, bpf_program__name(prog), "GPL",
			   bpf_program__insns(prog), bpf_program__insn_cnt(prog), &o);
	if (fd < 0)
		return fd;
	env.fds[env.nfds++] = fd;
	return fd;
}

static int attach_tracing(struct bpf_program *prog, enum bpf_attach_type type,
			  int i, bool first)
{
	LIBBPF_OPTS(bpf_link_create_opts, o, .tracing.cookie = i);
	int fd, lfd;

	fd = first ? bpf_program__fd(prog) : clone_for(prog, type, env.funcs[i].name);
	if (fd < 0)
		return fd;
	lfd = bpf_link_create(fd, 0, type, &o);
	if (lfd < 0)
		return -errno;
	env.fds[env.nfds++] = lfd;
	return 0;
}

static void progress(int done, int total)
{
	if (total < 50 || !isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\rattaching %d/%d functions...", done, total);
	if (done == total)
		fputc('\n', stderr);
}

static int attach_kernel_fentry(void)
{
	bool first = true;
	int i, err, done = 0;

	for (i = 0; i < env.nfuncs && !kfit_exiting; i++) {
		if (env.funcs[i].kind != FN_KERNEL)
			continue;
		err = attach_tracing(env.skel->progs.fd_fentry, BPF_TRACE_FENTRY, i, first);
		if (!err)
			err = attach_tracing(env.skel->progs.fd_fexit, BPF_TRACE_FEXIT, i, first);
		if (err) {
			kfit_explain_attach("fentry", env.funcs[i].name, err);
			return err;
		}
		first = false;
		progress(++done, env.nkernel);
	}
	return kfit_exiting ? -EINTR : 0;
}

static int attach_kernel_kprobes(void)
{
	int i, err, done = 0;

	for (i = 0; i < env.nfuncs && !kfit_exiting; i++) {
		LIBBPF_OPTS(bpf_kprobe_opts, o, .bpf_cookie = i);

		if (env.funcs[i].kind != FN_KERNEL)
			continue;
		err = add_link(bpf_program__attach_kprobe_opts(env.skel->progs.fd_kprobe,
							       env.funcs[i].name, &o));
		o.retprobe = true;
		if (!err)
			err = add_link(bpf_program__attach_kprobe_opts(
				env.skel->progs.fd_kretprobe, env.funcs[i].name, &o));
		if (err) {
			kfit_explain_attach("kprobe", env.funcs[i].name, err);
			return err;
		}
		progress(++done, env.nkernel);
	}
	return kfit_exiting ? -EINTR : 0;
}

static int attach_user(int i)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = i, .func_name = env.funcs[i].name);
	pid_t pid = env.c.pid ? env.c.pid : -1;
	int err;

	err = add_link(bpf_program__attach_uprobe_opts(env.skel->progs.fd_uprobe,
						       pid, env.funcs[i].path, 0, &o));
	o.retprobe = true;
	if (!err)
		err = add_link(bpf_program__attach_uprobe_opts(env.skel->progs.fd_uretprobe,
							       pid, env.funcs[i].path, 0, &o));
	if (err)
		kfit_err("cannot attach uprobes to %s in %s: %s", env.funcs[i].name,
			 env.funcs[i].path, kfit_reason(err));
	return err;
}

static int attach_sys(int i)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, o, .bpf_cookie = i);
	const char *name = env.funcs[i].name + 4;
	char tp[128];
	int err;

	snprintf(tp, sizeof(tp), "sys_enter_%s", name);
	err = add_link(bpf_program__attach_tracepoint_opts(env.skel->progs.fd_sys_enter,
							   "syscalls", tp, &o));
	snprintf(tp, sizeof(tp), "sys_exit_%s", name);
	if (!err)
		err = add_link(bpf_program__attach_tracepoint_opts(
			env.skel->progs.fd_sys_exit, "syscalls", tp, &o));
	if (err)
		kfit_explain_attach("tracepoint", tp, err);
	return err;
}

static int open_load(int start_id, int stop_id, bool fentry)
{
	int err;

	env.skel = funcdur_bpf__open();
	if (!env.skel)
		return -errno;
	err = configure(env.skel, start_id, stop_id, fentry);
	if (!err)
		err = funcdur_bpf__load(env.skel);
	if (err) {
		funcdur_bpf__destroy(env.skel);
		env.skel = NULL;
	}
	return err;
}

/* Kernel functions: fentry where the kernel allows it, else kprobes. */
static int load(int start_id, int stop_id)
{
	bool fentry = env.nkernel && !env.kprobes && kfit_works(KFIT_M_FENTRY);
	int err;

	if (env.nkernel && !fentry && !kfit_works(KFIT_M_KPROBE)) {
		enum kfit_mech m = env.kprobes ? KFIT_M_KPROBE : KFIT_M_FENTRY;

		kfit_explain_attach(env.kprobes ? "kprobe" : "fentry",
				    env.funcs[first_of(FN_KERNEL)].name,
				    kfit_probe(m)->err);
		kfit_err("kernel functions cannot be traced here; sys:NAME (system "
			 "calls) and BINARY:FUNC (user functions) can");
		return -EPERM;
	}
	if (env.nkernel && !env.kprobes && !fentry)
		kfit_info("note: fentry is refused here (%s); using kprobes",
			  kfit_probe(KFIT_M_FENTRY)->detail);
	env.mode = !env.nkernel ? (first_of(FN_USER) >= 0 ? "uprobe" : "tracepoint") :
		   fentry ? "fentry" : "kprobe";
	err = open_load(start_id, stop_id, fentry);
	if (err)
		kfit_err("cannot load the BPF programs: %s", kfit_reason(err));
	return err;
}

static int attach(void)
{
	int i, err = 0;

	env.fds = calloc(4 * env.nfuncs, sizeof(int));
	if (!env.fds)
		return -ENOMEM;
	if (env.nkernel)
		err = strcmp(env.mode, "fentry") ? attach_kernel_kprobes() :
						   attach_kernel_fentry();
	for (i = 0; i < env.nfuncs && !err; i++) {
		if (env.funcs[i].kind == FN_USER)
			err = attach_user(i);
		else if (env.funcs[i].kind == FN_SYS)
			err = attach_sys(i);
	}
	return err;
}

static void cleanup(void)
{
	int i;

	ring_buffer__free(env.rb);
	for (i = 0; i < env.nlinks; i++)
		bpf_link__destroy(env.links[i]);
	for (i = env.nfds - 1; i >= 0; i--)
		close(env.fds[i]);
	funcdur_bpf__destroy(env.skel);
}

/* ---- collecting ------------------------------------------------------- */

static void reset_figures(struct func *f)
{
	memset(&f->h, 0, sizeof(f->h));
	memset(&f->l, 0, sizeof(f->l));
	f->local_ns = f->filtered = 0;
	f->max_sub = -1;
	f->max_sub_ns = 0;
}

static int read_stats(int half)
{
	int fd = bpf_map__fd(env.skel->maps.stats);
	int lfd = bpf_map__fd(env.skel->maps.linhists);
	int i, cpu, err;

	for (i = 0; i < env.nfuncs; i++) {
		struct func *f = &env.funcs[i];
		__u32 key = fd_key(half, i);

		reset_figures(f);
		err = kfit_percpu_read(&env.stats, fd, &key);
		if (err)
			return err;
		for (cpu = 0; cpu < env.stats.ncpus; cpu++) {
			struct fd_stat *s = kfit_percpu_at(&env.stats, cpu);

			kfit_hist_merge(&f->h, &s->h);
			f->local_ns += s->local_ns;
			f->filtered += s->filtered;
		}
		err = kfit_percpu_clear(&env.stats, fd, &key);
		if (err)
			return err;
		if (!env.lin_step)
			continue;
		err = kfit_percpu_read(&env.lins, lfd, &key);
		if (err)
			return err;
		for (cpu = 0; cpu < env.lins.ncpus; cpu++)
			kfit_linhist_merge(&f->l, kfit_percpu_at(&env.lins, cpu));
		err = kfit_percpu_clear(&env.lins, lfd, &key);
		if (err)
			return err;
	}
	return 0;
}

static bool in_half(const void *key, void *half)
{
	return ((const struct fd_edge *)key)->half == *(__u32 *)half;
}

/* Max-sub per function from the caller/callee times of this half, which nothing writes now */
static int read_edges(int half)
{
	int fd = bpf_map__fd(env.skel->maps.edges);
	const struct fd_edge *key;
	__u32 h = half;
	__u64 ns;
	int i, err;

	err = kfit_hash_read(fd, in_half, &h, KFIT_HASH_DELETE, &env.edges);
	for (i = 0; !err && i < env.edges.n; i++) {
		key = kfit_entry_key(&env.edges, i);
		ns = *(__u64 *)kfit_entry_value(&env.edges, i);
		if (key->parent < (__u32)env.nfuncs && key->child < (__u32)env.nfuncs &&
		    ns > env.funcs[key->parent].max_sub_ns) {
			env.funcs[key->parent].max_sub_ns = ns;
			env.funcs[key->parent].max_sub = key->child;
		}
	}
	return err;
}

static void read_counters(__u64 out[FD_NCOUNTERS])
{
	int fd = bpf_map__fd(env.skel->maps.counters);
	__u32 k;

	for (k = 0; k < FD_NCOUNTERS; k++)
		out[k] = kfit_percpu_read(&env.counts, fd, &k) ? 0 :
			 kfit_percpu_sum(&env.counts, 0);
}

/* ---- output ----------------------------------------------------------- */

static __u64 sort_value(const struct func *f)
{
	switch (env.sort) {
	case SORT_LOCAL:
		return f->local_ns;
	case SORT_COUNT:
		return f->h.count;
	case SORT_AVG:
		return f->h.count ? f->h.total / f->h.count : 0;
	case SORT_MAX:
		return f->h.max;
	default:
		return f->h.total;
	}
}

static int cmp_funcs(const void *a, const void *b)
{
	__u64 x = sort_value(&env.funcs[*(const int *)a]);
	__u64 y = sort_value(&env.funcs[*(const int *)b]);

	if (x != y)
		return x < y ? 1 : -1;
	return strcmp(env.funcs[*(const int *)a].name, env.funcs[*(const int *)b].name);
}

static int *sorted(int *n)
{
	int *idx = malloc(env.nfuncs * sizeof(int));
	int i;

	if (!idx)
		return NULL;
	for (i = 0; i < env.nfuncs; i++)
		idx[i] = i;
	qsort(idx, env.nfuncs, sizeof(int), cmp_funcs);
	*n = env.top && env.top < (unsigned long)env.nfuncs ? (int)env.top : env.nfuncs;
	return idx;
}

static const char *dur(__u64 ns, char *buf)
{
	return kfit_fmt_duration(ns, buf, 32);
}

static void table_row(struct kfit_table *t, const struct func *f)
{
	char b[9][32];
	const struct kfit_hist *h = &f->h;

	kfit_table_row(t);
	kfit_table_cell(t, "%s", f->name);
	kfit_table_cell(t, "%llu", (unsigned long long)h->count);
	kfit_table_cell(t, "%s", dur(h->total, b[0]));
	kfit_table_cell(t, "%s", dur(h->count ? h->total / h->count : 0, b[1]));
	kfit_table_cell(t, "%s", dur(h->min, b[2]));
	kfit_table_cell(t, "%s", dur(h->max, b[3]));
	kfit_table_cell(t, "%s", dur(f->local_ns, b[4]));
	kfit_table_cell(t, "%s", dur(kfit_hist_percentile(h, 0.50), b[5]));
	kfit_table_cell(t, "%s", dur(kfit_hist_percentile(h, 0.99), b[6]));
	if (f->max_sub >= 0)
		kfit_table_cell(t, "%s (%s)", env.funcs[f->max_sub].name,
				dur(f->max_sub_ns, b[7]));
	else
		kfit_table_cell(t, "-");
}

static void print_notes(const __u64 *d)
{
	__u64 filtered = 0;
	int i;

	for (i = 0; i < env.nfuncs; i++)
		filtered += env.funcs[i].filtered;
	if (env.c.has_min || env.c.has_max)
		printf("%llu calls outside [%s, %s] left out\n",
		       (unsigned long long)filtered,
		       env.c.has_min ? kfit_fmt_duration(env.c.min_ns, (char[32]){0}, 32) : "0",
		       env.c.has_max ? kfit_fmt_duration(env.c.max_ns, (char[32]){0}, 32) : "inf");
	if (d[FD_DEEP])
		printf("%llu calls nested deeper than %d not measured\n",
		       (unsigned long long)d[FD_DEEP], FD_MAX_DEPTH);
	if (d[FD_NO_STACK])
		printf("%llu calls not measured: too many threads at once\n",
		       (unsigned long long)d[FD_NO_STACK]);
}

static void print_table(const __u64 *d)
{
	static const char *const hdr[] = {
		"FUNCTION", "COUNT", "TOTAL", "AVG", "MIN", "MAX", "LOCAL",
		"P50", "P99", "MAX-SUB",
	};
	struct kfit_table *t = kfit_table_new(10, hdr, "lrrrrrrrrl");
	int *idx, n, i;

	idx = sorted(&n);
	if (!t || !idx)
		goto out;
	for (i = 0; i < n; i++)
		table_row(t, &env.funcs[idx[i]]);
	kfit_table_print(t, stdout);
	print_notes(d);
out:
	kfit_table_free(t);
	free(idx);
}

static void print_hists(const __u64 *d)
{
	int *idx, n, i;

	idx = sorted(&n);
	if (!idx)
		return;
	for (i = 0; i < n; i++) {
		struct func *f = &env.funcs[idx[i]];

		if (!f->h.count)
			continue;
		printf("\nfunction = %s\n", f->name);
		if (env.lin_step)
			kfit_hist_print_linear(stdout, &f->l, env.lin_step, "nsecs");
		else
			kfit_hist_print_log2(stdout, &f->h, "nsecs");
	}
	print_notes(d);
	free(idx);
}

static void json_func(struct kfit_json *j, const struct func *f)
{
	const struct kfit_hist *h = &f->h;

	kfit_json_begin_object(j, NULL);
	kfit_json_str(j, "name", f->name);
	kfit_json_u64(j, "count", h->count);
	kfit_json_u64(j, "total_ns", h->total);
	kfit_json_u64(j, "avg_ns", h->count ? h->total / h->count : 0);
	kfit_json_u64(j, "min_ns", h->min);
	kfit_json_u64(j, "max_ns", h->max);
	kfit_json_u64(j, "local_ns", f->local_ns);
	kfit_json_u64(j, "p50_ns", kfit_hist_percentile(h, 0.50));
	kfit_json_u64(j, "p99_ns", kfit_hist_percentile(h, 0.99));
	kfit_json_u64(j, "filtered", f->filtered);
	if (f->max_sub >= 0) {
		kfit_json_begin_object(j, "max_sub");
		kfit_json_str(j, "name", env.funcs[f->max_sub].name);
		kfit_json_u64(j, "total_ns", f->max_sub_ns);
		kfit_json_end_object(j);
	} else {
		kfit_json_null(j, "max_sub");
	}
	kfit_hist_json(j, &f->h, &f->l, env.lin_step);
	kfit_json_end_object(j);
}

static void print_json(const __u64 *d, __u64 elapsed)
{
	struct kfit_json j;
	int *idx, n, i;

	idx = sorted(&n);
	if (!idx)
		return;
	kfit_json_init(&j, stdout, false);
	kfit_json_begin_object(&j, NULL);
	kfit_json_str(&j, "mode", env.mode);
	kfit_json_u64(&j, "elapsed_ns", elapsed);
	kfit_json_begin_array(&j, "functions");
	for (i = 0; i < n; i++)
		json_func(&j, &env.funcs[idx[i]]);
	kfit_json_end_array(&j);
	kfit_json_begin_array(&j, "skipped");
	for (i = 0; i < env.nskipped; i++) {
		kfit_json_begin_object(&j, NULL);
		kfit_json_str(&j, "name", env.skipped[i].name);
		kfit_json_str(&j, "reason", env.skipped[i].reason);
		kfit_json_end_object(&j);
	}
	kfit_json_end_array(&j);
	kfit_json_u64(&j, "lost", d[FD_LOST_EVENTS]);
	kfit_json_u64(&j, "too_deep", d[FD_DEEP]);
	kfit_json_u64(&j, "no_stack", d[FD_NO_STACK]);
	kfit_json_end_object(&j);
	kfit_json_finish(&j);
	free(idx);
}

/* ---- events ----------------------------------------------------------- */

static const char *ctx_name(__u32 ctx)
{
	static const char *const n[] = { "", "[softirq]", "[hardirq]", "[nmi]" };

	return ctx < 4 ? n[ctx] : "";
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct fd_event *e = data;
	const char *name;
	double t;
	char b[32];

	(void)ctx;
	if (size < sizeof(*e) || e->id >= (__u32)env.nfuncs)
		return 0;
	env.nevents++;
	name = env.funcs[e->id].name;
	t = e->ts > env.start_ns ? (e->ts - env.start_ns) / 1e9 : 0;
	if (env.c.json) {
		struct kfit_json j;

		kfit_json_init(&j, stdout, false);
		kfit_json_begin_object(&j, NULL);
		kfit_json_str(&j, "type", "call");
		kfit_json_u64(&j, "time_ns", e->ts - env.start_ns);
		kfit_json_u64(&j, "cpu", e->cpu);
		kfit_json_u64(&j, "pid", e->pid);
		kfit_json_u64(&j, "tid", e->tid);
		kfit_json_str(&j, "comm", e->comm);
		kfit_json_str(&j, "function", name);
		kfit_json_u64(&j, "duration_ns", e->dur);
		kfit_json_i64(&j, "ret", e->ret);
		if (e->ctx)
			kfit_json_str(&j, "context", ctx_name(e->ctx) + 1);
		kfit_json_end_object(&j);
		kfit_json_finish(&j);
		return 0;
	}
	printf("%-12.6f %3u %7u %7u %-16s %-28s %10s %lld%s%s\n", t, e->cpu, e->pid,
	       e->tid, e->comm, name, dur(e->dur, b), (long long)e->ret,
	       e->ctx ? " " : "", ctx_name(e->ctx));
	return 0;
}

static int poll_events(void *ctx, int timeout_ms)
{
	int n;

	(void)ctx;
	n = ring_buffer__poll(env.rb, timeout_ms);
	if (n < 0 && n != -EINTR) {
		kfit_err("reading events failed: %s", kfit_reason(n));
		return n;
	}
	fflush(stdout);
	return 0;
}

static void events_summary(const __u64 *d)
{
	if (env.c.json) {
		printf("{\"type\":\"summary\",\"events\":%llu,\"lost\":%llu}\n",
		       (unsigned long long)env.nevents,
		       (unsigned long long)d[FD_LOST_EVENTS]);
		return;
	}
	printf("%llu events, %llu lost\n", (unsigned long long)env.nevents,
	       (unsigned long long)d[FD_LOST_EVENTS]);
}

/* ---- the report loop ------------------------------------------------- */

static int report(void *ctx, bool last)
{
	static __u64 prev[FD_NCOUNTERS], since;
	__u64 now = kfit_now_ns(), cur[FD_NCOUNTERS], d[FD_NCOUNTERS];
	int half, err, k;

	(void)ctx;
	half = kfit_epoch_flip(&env.skel->bss->kfit_epoch);
	read_counters(cur);
	for (k = 0; k < FD_NCOUNTERS; k++)
		d[k] = cur[k] - prev[k];
	memcpy(prev, cur, sizeof(prev));
	if (env.events) {
		ring_buffer__consume(env.rb);
		if (last)
			events_summary(cur);
		fflush(stdout);
		return 0;
	}
	err = read_stats(half);
	if (!err)
		err = read_edges(half);
	if (err) {
		kfit_err("cannot read the statistics: %s", kfit_reason(err));
		return err;
	}
	if (!since)
		since = env.start_ns;
	if (env.c.json)
		print_json(d, now - since);
	else {
		if (env.c.timestamp)
			kfit_print_time(stdout);
		if (env.hist)
			print_hists(d);
		else
			print_table(d);
		if (env.c.interval_ns && !last)
			putchar('\n');
	}
	since = now;
	fflush(stdout);
	return 0;
}

static int setup_buffers(void)
{
	int err;

	err = kfit_percpu_init(&env.stats, sizeof(struct fd_stat), 0);
	if (!err)
		err = kfit_percpu_init(&env.lins, sizeof(struct kfit_linhist), 0);
	if (!err)
		err = kfit_percpu_init(&env.counts, sizeof(__u64), 0);
	if (err)
		return err;
	if (!env.events)
		return 0;
	env.rb = ring_buffer__new(bpf_map__fd(env.skel->maps.rb), on_event, NULL, NULL);
	return env.rb ? 0 : -errno;
}

static int set_cpus(void)
{
	int fd = bpf_map__fd(env.skel->maps.cpus);
	__u32 cpu;
	__u8 one = 1;

	if (!env.c.cpus.set)
		return 0;
	for (cpu = 0; cpu < KFIT_MAX_CPUS && cpu < 1024; cpu++)
		if (kfit_cpu_selected(&env.c.cpus, cpu) &&
		    bpf_map_update_elem(fd, &cpu, &one, BPF_ANY))
			return -errno;
	return 0;
}

static int check_args(int first, int argc, char **argv)
{
	if (first >= argc) {
		fprintf(stderr, "funcdur: no TARGET given\n"
			"Try 'funcdur --help' for more information.\n");
		return -1;
	}
	if (env.noints && env.onlyints) {
		fprintf(stderr, "funcdur: --noints and --onlyints exclude each other\n");
		return -1;
	}
	if (env.events && env.hist) {
		fprintf(stderr, "funcdur: --events prints calls, not histograms: "
			"drop -H or --events\n");
		return -1;
	}
	env.targets = argv + first;
	env.ntargets = argc - first;
	return 0;
}

int main(int argc, char **argv)
{
	int first, err, start_id = 0, stop_id = 0;
	char what[64];

	first = kfit_parse_args(&tool, &env.c, argc, argv);
	if (first < 0 || check_args(first, argc, argv))
		return 2;
	kfit_setup("funcdur", &env.c);
	err = resolve_targets(&start_id, &stop_id);
	if (err)
		return err == -EINVAL || err == -ENOENT ? 2 : 1;
	if (kfit_check_privileges())
		return 1;
	err = load(start_id, stop_id);
	if (!err)
		err = set_cpus();
	if (!err)
		err = setup_buffers();
	if (!err)
		err = attach();
	if (err || kfit_exiting) {
		cleanup();
		return err == -EINTR || (!err && kfit_exiting) ? 0 : 1;
	}
	env.start_ns = kfit_now_ns();
	snprintf(what, sizeof(what), "%d function%s (%s)", env.nfuncs,
		 env.nfuncs == 1 ? "" : "s", env.mode);
	kfit_tracing(what);
	if (env.events && !env.c.json)
		printf("%-12s %3s %7s %7s %-16s %-28s %10s %s\n", "TIME(s)", "CPU",
		       "PID", "TID", "COMM", "FUNCTION", "DURATION", "RET");
	err = kfit_run(&env.c, &(struct kfit_loop){
		.report = report,
		.poll = env.events ? poll_events : NULL,
	});
	cleanup();
	return err ? 1 : 0;
}
