// SPDX-License-Identifier: GPL-2.0
/*
 * funcdur: per-function wall-time durations, KFI style.
 * BPF side: bpf/calltime.bpf.c. Shared types: include/kfit/calltime.h.
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
#include "kfit/calltime.h"
#include "calltime.skel.h"
#include "attach.h"
#include "child.h"
#include "diag.h"
#include "duration.h"
#include "explain.h"
#include "calltime.h"
#include "fstats.h"
#include "hist.h"
#include "kfit/ret.h"
#include "opts.h"
#include "output.h"
#include "retval.h"
#include "run.h"
#include "serve.h"
#include "args.h"
#include "filter.h"
#include "target.h"

enum {
	OPT_LINEAR = 256, OPT_EVENTS, OPT_NOINTS, OPT_ONLYINTS, OPT_START_AT,
	OPT_STOP_AT, OPT_CGROUP, OPT_BY, OPT_ERRORS, OPT_FILTER,
};

static const struct kfit_opt funcdur_opts[] = {
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
	{ "by", OPT_BY, "ret|ARG|comm", "a row per return value (errors by name), or per value of "
	  "an argument named in the target ('vfs_read(count)' --by count), a string's by "
	  "its text ('sys:openat(filename)' --by filename); --by 'log2(ARG)': by its "
	  "power-of-2 bucket; --by comm: per task name" },
	{ "filter", OPT_FILTER, "EXPR", "only the calls for which EXPR holds, decided in BPF at "
	  "return: 'size > 4096 && flags & 1', 'ret == -ENOENT', 'comm == \"sh\"'" },
	{ "errors", OPT_ERRORS, NULL, "only the calls that failed (-errno, ERR_PTR); --errors "
	  "EXPR: as EXPR says (a user function's way: --errors 'ret == 0')" },
	{ NULL },
};

/* A row's value as shown: a string's quoted, each byte escaped at worst */
#define BY_TEXT		(4 * KFIT_ARG_STRLEN + 4)

struct env {
	struct kfit_common c;
	bool hist, events, noints, onlyints, errors;
	const char *by_what;	/* --by: "ret", an argument's label, or log2() of one */
	char by_arg[64];	/* the label (or ret) it groups by */
	bool by_log2;		/* --by log2(ARG): by the value's power-of-2 bucket */
	const char *filter_expr, *errors_expr;	/* --filter, --errors EXPR */
	struct kfit_filter filt, errs;
	__u8 *by_slot;		/* per function: enum ct_by */
	bool has_args;		/* some target names arguments */
	const char *start_at, *stop_at, *cgroup;
	char **targets;
	int ntargets;
	char **cmd;		/* -- COMMAND: traced as with -p, from its exec */
	struct kfit_child child;

	struct kfit_targets tg;
	struct kfit_fstats fs;	/* tg.funcs' figures, same index */
	struct kfit_fstats by;	/* --by ret: a row per function and value */
	struct kfit_calltime_by *rows;	/* read from the BPF side */
	char (*by_text)[BY_TEXT];	/* the rows' values as shown */
	char by_title[32];	/* the value column's title: RET, COUNT */

	struct calltime_bpf *skel;
	struct bpf_link *fork_link, *exit_link;	/* -p, COMMAND: their children */
	struct kfit_attacher *att;
	struct ring_buffer *rb;
	struct kfit_calltime maps;	/* its maps, read into fs */
	__u64 start_ns, nevents, last_lost;
	__u64 missed;		/* program runs the kernel skipped, this report */
	__u64 counters[CT_NCOUNTERS];
	struct kfit_serve *srv;	/* --serve */
};

static struct env env;


/* --by: a row per function and value */
static bool grouping(void)
{
	return env.by_what != NULL;
}

/* --by a string argument, of some function */
static bool by_strings(void)
{
	int i;

	for (i = 0; grouping() && i < env.tg.n; i++)
		if (env.by_slot[i] >= CT_BY_STR0)
			return true;
	return false;
}

static int parse_opt(int key, const char *arg, void *ctx)
{
	struct env *e = ctx;
	int r = kfit_hist_parse_opt("funcdur", key, OPT_LINEAR, arg, &e->hist,
				    &e->fs.lin_step);

	if (r <= 0)
		return r;
	switch (key) {
	case OPT_EVENTS:
		e->events = true;
		return 0;
	case 's':
		return kfit_fstats_parse_sort("funcdur", arg, &e->fs.sort);
	case 'n':
		return kfit_fstats_parse_top("funcdur", arg, &e->fs.top);
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
	case OPT_BY:
		e->by_what = arg;
		return 0;
	case OPT_ERRORS:
		e->errors = true;
		return 0;
	case OPT_FILTER:
		e->filter_expr = arg;
		return 0;
	}
	return -1;
}

static const struct kfit_tool tool = {
	.name = "funcdur",
	.summary = "Wall-time duration of every call of kernel functions, system "
		   "calls or user\nfunctions, with KFI's filters, triggers and "
		   "kd-style summaries (count, time,\nlocal time, max-sub).\n"
		   "TARGET: FUNC or GLOB (kernel), sys:NAME or sys:GLOB (system "
		   "calls),\nBINARY:FUNC or LIB:FUNC (user functions, GLOB allowed), "
		   "each with the\narguments to read in parentheses: 'vfs_read(count)'.",
	.synopsis = "[OPTIONS] TARGET... [-- COMMAND [ARGS]]",
	.examples = "funcdur do_fork --min 500us       # forks slower than 500 us\n"
		    "funcdur 'vfs_*' -p 1234           # every vfs_ function of a process\n"
		    "funcdur c:malloc -d 5s            # libc's malloc for 5 seconds\n"
		    "funcdur /usr/bin/python3:PyObject_Malloc\n"
		    "funcdur sys:read sys:write -H     # system calls, histograms\n"
		    "funcdur 'tcp_*' --events --min 1ms  # each slow call\n"
		    "funcdur 'ext4_*' -- tar xf linux.tar  # one command, from its exec\n"
		    "funcdur sys:openat --by ret -- make  # how each returned, how long\n"
		    "funcdur --errors 'vfs_*' sys:openat  # only the calls that failed\n"
		    "funcdur --events 'sys:openat(filename, flags)'  # each call's arguments\n"
		    "funcdur 'c:malloc(bytes)' --by bytes  # a row per size: how often, how long\n"
		    "funcdur 'sys:openat(filename)' --by filename  # a row per file name\n"
		    "funcdur --events 'vfs_open(path->dentry->d_name.name)'  # fields (BTF)\n"
		    "funcdur --events 'c:fclose(fp->_fileno)'  # fields (DWARF: libc6-dbg)\n"
		    "funcdur --serve 9435 vfs_read sys:openat  # Prometheus metrics, :9435/metrics\n",
	.common = KFIT_OPT_PID | KFIT_OPT_TID | KFIT_OPT_COMM | KFIT_OPT_CPU |
		  KFIT_OPT_DURATION | KFIT_OPT_INTERVAL | KFIT_OPT_JSON |
		  KFIT_OPT_TIMESTAMP | KFIT_OPT_MINMAX | KFIT_OPT_ATTACH | KFIT_OPT_SERVE,
	.opts = funcdur_opts,
	.parse = parse_opt,
	.ctx = &env,
};

/* ---- targets ---------------------------------------------------------- */

/* Trigger ids go to the BPF side as index + 1; 0 is none */
static int trigger_id(const char *spec)
{
	int i = spec ? kfit_targets_one(&env.tg, spec) : -1;

	return i < 0 ? i : i + 1;
}

/*
 * --errors: a kernel function or system call fails with -errno or an
 * ERR_PTR; a user function as its own convention says, which kfit
 * cannot know
 */
static int check_errors(void)
{
	const struct kfit_targets_func *fn;
	int i;

	for (i = 0; i < env.tg.n && !env.errors_expr; i++) {
		fn = &env.tg.funcs[i];
		if (fn->kind == KFIT_TARGETS_USER) {
			kfit_err("--errors: %s is a user function: how it says it failed "
				 "is its own convention; say it: --errors 'ret == 0' (or see "
				 "its values with --by ret)", fn->name);
			return -EINVAL;
		}
		if (!(fn->ret & KFIT_RET_ERRNO))
			kfit_warn("--errors: %s returns %s: none of its calls can fail "
				  "with -errno", fn->name, fn->ret & KFIT_RET_VOID ? "void" :
				  fn->ret ? "no signed integer or pointer" :
				  "a type not in BTF");
	}
	return 0;
}

/* The argument names of the targets, each once: what filters may read */
static int arg_names(const char ***names)
{
	const struct kfit_targets_func *fn;
	int i, k, j, n = 0;

	*names = NULL;
	for (i = 0; i < env.tg.n; i++) {
		fn = &env.tg.funcs[i];
		for (k = 0; k < fn->nargs; k++) {
			const char **v;

			for (j = 0; j < n && strcmp((*names)[j], fn->args[k].label); j++)
				;
			if (j < n || !fn->args[k].spec.src)
				continue;
			v = realloc(*names, (n + 1) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			*names = v;
			v[n++] = fn->args[k].label;
		}
	}
	return n;
}

static int parse_one(const char *opt, const char *expr, const char **names, int n,
		     struct kfit_filter *f)
{
	char err[768];
	int r = kfit_filter_parse(expr, names, n, f, err, sizeof(err));

	if (r == -EINVAL)
		kfit_err("%s '%s': %s", opt, expr, err);
	return r;
}

/* --filter and --errors EXPR, over the arguments the targets name */
static int parse_filters(void)
{
	const char **names;
	int n = arg_names(&names), r = 0;

	if (n < 0)
		return n;
	if (env.filter_expr)
		r = parse_one("--filter", env.filter_expr, names, n, &env.filt);
	if (!r && env.errors_expr)
		r = parse_one("--errors", env.errors_expr, names, n, &env.errs);
	free(names);
	return r;
}

/* --by's word: ret, ARG, or log2(ret), log2(ARG); 0, or -EINVAL said */
static int by_arg(void)
{
	const char *w = env.by_what;
	size_t n = strlen(w);

	env.by_log2 = !strncmp(w, "log2(", 5);
	if (env.by_log2 && (n < 7 || w[n - 1] != ')')) {
		kfit_err("--by %s: log2(ARG) takes one name: --by 'log2(bytes)'", w);
		return -EINVAL;
	}
	if (env.by_log2)
		w += 5, n -= 6;
	if (n >= sizeof(env.by_arg)) {
		kfit_err("--by %s: too long a name", env.by_what);
		return -EINVAL;
	}
	memcpy(env.by_arg, w, n);
	env.by_arg[n] = '\0';
	return 0;
}

/* --by ARG: the slot of each function's ARG (none for those without it) */
static int by_slots(void)
{
	const struct kfit_targets_func *fn;
	int i, k, n = 0;

	env.by_slot = calloc(env.tg.n, 1);
	if (!env.by_slot)
		return -ENOMEM;
	if (grouping() && by_arg())
		return -EINVAL;
	/* RET, a column's; an argument as named, beside the columns (COUNT) */
	snprintf(env.by_title, sizeof(env.by_title), "%s",
		 !grouping() || !strcmp(env.by_what, "ret") ? "RET" :
		 !strcmp(env.by_what, "comm") ? "COMM" : env.by_what);
	for (i = 0; grouping() && i < env.tg.n; i++) {
		fn = &env.tg.funcs[i];
		k = strcmp(env.by_arg, "ret") ? kfit_args_slot(fn, env.by_arg) : -2;
		/* comm: the task's name, unless an argument is called so */
		if (k == -1 && !strcmp(env.by_arg, "comm") && !env.by_log2) {
			env.by_slot[i] = CT_BY_COMM;
			n++;
			continue;
		}
		if (k >= 0 && fn->args[k].spec.str && env.by_log2) {
			kfit_err("--by %s: %s is a string: log2() buckets numbers (--by %s "
				 "groups by its text)", env.by_what, env.by_arg, env.by_arg);
			return -EINVAL;
		}
		if (k >= 0 && fn->args[k].spec.str)
			env.by_slot[i] = CT_BY_STR0 + k;
		else
			env.by_slot[i] = k == -2 ? CT_BY_RET : k >= 0 ? CT_BY_ARG0 + k : CT_BY_NONE;
		n += k != -1;
	}
	if (grouping() && !n) {
		kfit_err("--by %s: no traced function captures '%s': name it in a target, "
			 "'vfs_read(count)' --by count (or --by ret)", env.by_what, env.by_arg);
		return -EINVAL;
	}
	return 0;
}

static int resolve_targets(int *start_id, int *stop_id)
{
	int i, err;

	env.tg.need_btf = env.c.attach == KFIT_AM_AUTO || env.c.attach == KFIT_AM_FENTRY;
	env.tg.no_deny = env.c.no_deny;
	env.tg.pid = env.c.pid;
	env.tg.max = CT_MAX_FUNCS;
	for (i = 0; i < env.ntargets; i++) {
		err = kfit_targets_add(&env.tg, env.targets[i]);
		if (err)
			return err;
	}
	*start_id = env.start_at ? trigger_id(env.start_at) : 0;
	if (*start_id < 0)
		return *start_id;
	*stop_id = env.stop_at ? trigger_id(env.stop_at) : 0;
	if (*stop_id < 0)
		return *stop_id;
	if (!env.tg.n) {
		kfit_err("nothing to trace: every function was skipped");
		for (i = 0; i < env.tg.nskipped; i++)
			fprintf(stderr, "  %s: %s\n", env.tg.skipped[i].name,
				env.tg.skipped[i].reason);
		return -ENOENT;
	}
	err = kfit_fstats_init(&env.fs, env.tg.n);
	if (err)
		return err;
	for (i = 0; i < env.fs.n; i++)
		env.fs.f[i].name = env.tg.funcs[i].name;
	kfit_targets_ret_kinds(&env.tg);
	env.has_args = kfit_args_any(&env.tg);
	err = env.errors ? check_errors() : 0;
	err = err ? err : parse_filters();
	return err ? err : by_slots();
}

/* ---- loading and attaching ------------------------------------------- */

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

/* -p PID and COMMAND: that process, and every process it creates from now */
static bool following(void)
{
	return env.c.pid != 0;
}

/* A filter program into the filters map */
static int set_filter(__u32 which, const struct kfit_filter *f)
{
	struct ct_filter cf = { .n = f->n, .has_comm = f->has_comm };

	memcpy(cf.comm, f->comm, sizeof(cf.comm));
	memcpy(cf.insn, f->insn, sizeof(cf.insn));
	if (!bpf_map_update_elem(bpf_map__fd(env.skel->maps.filters), &which, &cf, BPF_ANY))
		return 0;
	kfit_err("cannot set the filter: %s", kfit_reason(-errno));
	return -errno;
}

static void configure(struct calltime_bpf *s, int start_id, int stop_id, __u64 cgid)
{
	int i;

	s->rodata->self_tgid = getpid();
	s->rodata->follow = following();
	/* preallocated: no room taken when nothing is followed */
	if (!following())
		bpf_map__set_max_entries(s->maps.tracked, 1);
	s->rodata->filter_tid = env.c.tid;
	s->rodata->filter_comm = env.c.comm[0] != '\0';
	memcpy((char *)s->rodata->comm, env.c.comm, sizeof(env.c.comm));
	s->rodata->filter_cpu = env.c.cpus.set;
	s->rodata->noints = env.noints;
	s->rodata->onlyints = env.onlyints;
	s->rodata->min_ns = env.c.has_min ? env.c.min_ns : 0;
	s->rodata->max_ns = env.c.has_max ? env.c.max_ns : 0;
	s->rodata->lin_step = env.fs.lin_step;
	s->rodata->events = env.events;
	s->rodata->start_id = start_id;
	s->rodata->stop_id = stop_id;
	s->rodata->filter_cgroup = cgid;
	s->rodata->by_any = grouping();
	s->rodata->filter_on = env.filt.n > 0;
	s->rodata->errors_expr = env.errs.n > 0;
	s->rodata->have_args = env.has_args;
	s->rodata->errors_only = env.errors;
	for (i = 0; i < env.tg.n && i < CT_MAX_FUNCS; i++) {
		((__u8 *)s->rodata->ret_kind)[i] = env.tg.funcs[i].ret;
		((__u8 *)s->rodata->by_what)[i] = env.by_slot[i];
	s->rodata->by_log2 = env.by_log2;
		((bool *)s->rodata->args_of)[i] = env.tg.funcs[i].nargs > 0;
	}
	/* preallocated: room only when arguments are captured */
	bpf_map__set_max_entries(s->maps.fargs, env.has_args ? env.tg.n : 1);
	bpf_map__set_max_entries(s->maps.argslots, env.has_args ? KFIT_ARG_SLOTS : 1);
	s->rodata->nr_cpus = libbpf_num_possible_cpus() > 0 ? libbpf_num_possible_cpus() : 1;
	bpf_map__set_max_entries(s->maps.by, grouping() ? 2 * CT_BY_MAX : 1);
	bpf_map__set_max_entries(s->maps.by_strs, by_strings() ? 2 * CT_BY_MAX : 1);
	bpf_map__set_max_entries(s->maps.stats, 2 * env.fs.n);
	bpf_map__set_max_entries(s->maps.linhists, env.fs.lin_step ? 2 * env.fs.n : 1);
	if (env.events)
		bpf_map__set_max_entries(s->maps.rb, 8 << 20);
}

/* Where fn keeps each argument filter f reads: KFIT_NO_SLOT where it has none */
static void operand_slots(const struct kfit_targets_func *fn, const struct kfit_filter *f,
			  __u8 *slots)
{
	int k, i;

	for (k = 0; k < KFIT_ARGS_MAX; k++) {
		i = k < f->nnames ? kfit_args_slot(fn, f->names[k]) : -1;
		slots[k] = i < 0 ? KFIT_NO_SLOT : i;
	}
}

/* What each function's calls capture, into the fargs map */
static int set_args(void)
{
	int fd = bpf_map__fd(env.skel->maps.fargs), i;
	struct kfit_fargs fa;
	__u32 id;

	for (i = 0; i < env.tg.n && env.has_args; i++) {
		kfit_args_fargs(&env.tg.funcs[i], &fa);
		operand_slots(&env.tg.funcs[i], &env.filt, fa.fslot);
		operand_slots(&env.tg.funcs[i], &env.errs, fa.eslot);
		id = i;
		if (bpf_map_update_elem(fd, &id, &fa, BPF_ANY)) {
			kfit_err("cannot set the arguments to read: %s", kfit_reason(-errno));
			return -errno;
		}
	}
	return 0;
}

static int load(int start_id, int stop_id)
{
	/* Uprobes in -p's process or COMMAND's and the processes they create */
	struct kfit_attach_opts ao = {
		.mech = env.c.attach,
		.umech = env.c.uattach,
		.pid = env.c.pid,
		.follow = following(),
		.unfiltered = env.c.no_ufilter,
		.verbose = env.c.verbose,
		.progress = isatty(STDERR_FILENO),
		.uprobe_limit = env.c.uprobe_limit,
		.force = env.c.force,
	};
	struct kfit_attach_progs p;
	__u64 cgid = 0;
	int err;

	if (env.cgroup) {
		cgid = cgroup_id(env.cgroup);
		if (!cgid) {
			kfit_err("cannot use cgroup '%s': %s", env.cgroup, strerror(errno));
			return -EINVAL;
		}
	}
	env.att = kfit_attacher_new(&env.tg, &ao);
	env.skel = calltime_bpf__open();
	if (!env.att || !env.skel)
		return -ENOMEM;
	configure(env.skel, start_id, stop_id, cgid);
	p = kfit_calltime_progs(env.skel);
	err = kfit_attacher_prepare(env.att, &p);
	if (err)
		return err;
	bpf_program__set_autoload(env.skel->progs.fd_fork, following());
	bpf_program__set_autoload(env.skel->progs.fd_exit, following());
	err = calltime_bpf__load(env.skel);
	if (err)
		kfit_err("cannot load the BPF programs: %s", kfit_reason(err));
	err = err ? err : set_args();
	err = err ? err : set_filter(CT_FILTER, &env.filt);
	return err ? err : set_filter(CT_ERRORS, &env.errs);
}

/* Seed the followed process, then follow its forks and exits */
static int follow_start(void)
{
	__u32 pid = env.c.pid;
	__u8 one = 1;
	int err = 0;

	if (!following())
		return 0;
	if (bpf_map_update_elem(bpf_map__fd(env.skel->maps.tracked), &pid, &one,
				BPF_ANY))
		err = -errno;
	if (!err && !(env.fork_link = bpf_program__attach(env.skel->progs.fd_fork)))
		err = -errno;
	if (!err && !(env.exit_link = bpf_program__attach(env.skel->progs.fd_exit)))
		err = -errno;
	if (err)
		kfit_err("cannot follow the processes of %d: %s", pid, kfit_reason(err));
	return err;
}

static void cleanup(void)
{
	kfit_child_stop(&env.child);
	bpf_link__destroy(env.fork_link);
	bpf_link__destroy(env.exit_link);
	ring_buffer__free(env.rb);
	kfit_attacher_free(env.att);
	calltime_bpf__destroy(env.skel);
	kfit_targets_free(&env.tg);
	kfit_fstats_free(&env.fs);
	kfit_fstats_free(&env.by);
	free(env.rows);
	free(env.by_text);
	free(env.by_slot);
	kfit_filter_free(&env.filt);
	kfit_filter_free(&env.errs);
	kfit_calltime_free(&env.maps);
	kfit_serve_free(env.srv);
}

/* ---- output ----------------------------------------------------------- */

/* What the notes under the table say, from this report's counters */
static struct kfit_fnotes notes(const __u64 *d)
{
	return (struct kfit_fnotes){
		.has_min = env.c.has_min,
		.has_max = env.c.has_max,
		.min_ns = env.c.min_ns,
		.max_ns = env.c.max_ns,
		.too_deep = d[CT_DEEP],
		.max_depth = FC_MAX_DEPTH,
		.no_stack = d[CT_NO_STACK],
		.missed = env.missed,
	};
}

static const char *dur(__u64 ns, char *buf)
{
	return kfit_duration_fmt(ns, buf, 32);
}

static void print_json(const __u64 *d, __u64 elapsed)
{
	struct kfit_json j;
	int i;

	kfit_json_init(&j, stdout, false);
	kfit_json_begin_object(&j, NULL);
	kfit_json_str(&j, "mode", kfit_attacher_mode(env.att));
	kfit_json_u64(&j, "elapsed_ns", elapsed);
	kfit_fstats_json(&j, grouping() ? &env.by : &env.fs);
	kfit_json_begin_array(&j, "skipped");
	for (i = 0; i < env.tg.nskipped; i++) {
		kfit_json_begin_object(&j, NULL);
		kfit_json_str(&j, "name", env.tg.skipped[i].name);
		kfit_json_str(&j, "reason", env.tg.skipped[i].reason);
		kfit_json_end_object(&j);
	}
	kfit_json_end_array(&j);
	kfit_json_u64(&j, "lost", d[CT_LOST_EVENTS]);
	kfit_json_u64(&j, "too_deep", d[CT_DEEP]);
	kfit_json_u64(&j, "no_stack", d[CT_NO_STACK]);
	if (grouping())
		kfit_json_u64(&j, "not_grouped", d[CT_BY_FULL] + d[CT_NO_VALUE]);
	if (env.has_args) {
		kfit_json_u64(&j, "no_args", d[CT_NO_ARGS]);
		kfit_json_u64(&j, "str_faults", d[CT_STR_FAULT]);
	}
	if (env.errors)
		kfit_json_u64(&j, "not_failed", d[CT_NOT_FAILED]);
	if (env.filter_expr || env.errors_expr) {
		kfit_json_u64(&j, "filtered_out", d[CT_FILTERED]);
		kfit_json_u64(&j, "filter_noval", d[CT_FILTER_NOVAL]);
	}
	kfit_json_u64(&j, "missed", env.missed);
	kfit_attacher_json(env.att, &j);
	kfit_json_end_object(&j);
	kfit_json_finish(&j);
}

/* ---- events ----------------------------------------------------------- */

static const char *ctx_name(__u32 ctx)
{
	static const char *const n[] = { "", "[softirq]", "[hardirq]", "[nmi]" };

	return ctx < 4 ? n[ctx] : "";
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct ct_event *e = data;
	const struct kfit_argvals *av = NULL;
	const struct kfit_targets_func *fn;
	const char *name;
	double t;
	char b[32], r[32], args[512] = "";

	(void)ctx;
	if (size < sizeof(*e) || e->id >= (__u32)env.fs.n)
		return 0;
	fn = &env.tg.funcs[e->id];
	if (size >= sizeof(struct ct_event_args) && fn->nargs) {
		av = &((const struct ct_event_args *)data)->a;
		kfit_args_text(fn, av, args, sizeof(args));
	}
	kfit_ret_str(e->ret, env.tg.funcs[e->id].ret, r, sizeof(r));
	env.nevents++;
	name = env.fs.f[e->id].name;
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
		if (strcmp(r, "-") && kfit_ret_failed(e->ret, env.tg.funcs[e->id].ret))
			kfit_json_str(&j, "error", r + 1);
		if (e->ctx)
			kfit_json_str(&j, "context", ctx_name(e->ctx) + 1);
		if (av)
			kfit_args_json(&j, "args", fn, av);
		kfit_json_end_object(&j);
		kfit_json_finish(&j);
		return 0;
	}
	printf("%-12.6f %3u %7u %7u %-16s %-28s %10s %-8s%s%s%s%s\n", t, e->cpu, e->pid,
	       e->tid, e->comm, name, dur(e->dur, b), r, e->ctx ? " " : "", ctx_name(e->ctx),
	       args[0] ? " " : "", args);
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

static void args_notes(const __u64 *d);

static void events_summary(const __u64 *d)
{
	if (env.c.json) {
		printf("{\"type\":\"summary\",\"events\":%llu,\"lost\":%llu,"
		       "\"missed\":%llu", (unsigned long long)env.nevents,
		       (unsigned long long)d[CT_LOST_EVENTS],
		       (unsigned long long)env.missed);
		if (env.has_args)
			printf(",\"no_args\":%llu,\"str_faults\":%llu",
			       (unsigned long long)d[CT_NO_ARGS],
			       (unsigned long long)d[CT_STR_FAULT]);
		if (env.filter_expr || env.errors_expr)
			printf(",\"filtered_out\":%llu,\"filter_noval\":%llu",
			       (unsigned long long)d[CT_FILTERED],
			       (unsigned long long)d[CT_FILTER_NOVAL]);
		printf("}\n");
		return;
	}
	printf("%llu events, %llu lost", (unsigned long long)env.nevents,
	       (unsigned long long)d[CT_LOST_EVENTS]);
	if (env.missed)
		printf(", %llu probe runs missed (recursion)",
		       (unsigned long long)env.missed);
	putchar('\n');
	args_notes(d);
}

/* ---- --by ret ----------------------------------------------------------- */

/* Each function's rows together, in the table's order; its values by the key */
static int cmp_rows(const void *a, const void *b, void *ctx)
{
	const struct kfit_calltime_by *x = a, *y = b;
	const int *rank = ctx;
	__u64 vx = kfit_fstats_key_value(&x->h, x->local_ns, env.fs.sort);
	__u64 vy = kfit_fstats_key_value(&y->h, y->local_ns, env.fs.sort);

	if (rank[x->id] != rank[y->id])
		return rank[x->id] < rank[y->id] ? -1 : 1;
	/* buckets of the value: a histogram, in their order */
	if (env.by_log2)
		return x->val < y->val ? -1 : x->val > y->val;
	if (vx != vy)
		return vx < vy ? 1 : -1;
	return x->val < y->val ? -1 : x->val > y->val;
}

/*
 * A row's value as shown: the return value's errno, the argument's type,
 * a string quoted (by its hash, should its text be missing)
 */
static const char *by_text(const struct kfit_calltime_by *r, char *buf, size_t len)
{
	const struct kfit_targets_func *fn = &env.tg.funcs[r->id];
	__u8 w = env.by_slot[r->id];

	if (env.by_log2)
		return kfit_log2_bucket_str(r->val, buf, len);
	if (w == CT_BY_RET)
		return kfit_ret_str(r->val, fn->ret, buf, len);
	if (w == CT_BY_COMM && r->has_str) {
		snprintf(buf, len, "%s", r->str);
		return buf;
	}
	if (w >= CT_BY_STR0 && r->has_str)
		return kfit_argfmt_quote(r->str, buf, len);
	if (w >= CT_BY_STR0) {
		snprintf(buf, len, "(hash 0x%llx)", (unsigned long long)r->val);
		return buf;
	}
	return kfit_args_value_str(fn, w - CT_BY_ARG0, r->val, buf, len);
}

/* The rows of this half into env.by, in order */
static int read_by(int half, unsigned int flags)
{
	unsigned long top = env.fs.top;
	int *idx, *rank, n, nf, i, k, err;
	void *text;

	err = kfit_calltime_read_by(&env.maps, half, &env.rows, &n, flags);
	if (err)
		return err;
	/* ids are the cookies given: one that is not is left out */
	for (i = k = 0; i < n; i++)
		if (env.rows[i].id < (__u32)env.fs.n)
			env.rows[k++] = env.rows[i];
	n = k;
	env.fs.top = 0;
	idx = kfit_fstats_sorted(&env.fs, &nf);
	env.fs.top = top;
	rank = malloc(env.fs.n * sizeof(*rank));
	text = realloc(env.by_text, (n ? n : 1) * sizeof(*env.by_text));
	if (text)
		env.by_text = text;
	kfit_fstats_free(&env.by);
	if (!idx || !rank || !text || kfit_fstats_init(&env.by, n)) {
		free(idx);
		free(rank);
		return -ENOMEM;
	}
	for (i = 0; i < env.fs.n; i++)
		rank[i] = env.fs.n;	/* hidden: after the rest, not shown */
	for (i = 0; i < nf; i++)
		rank[idx[i]] = i;
	qsort_r(env.rows, n, sizeof(*env.rows), cmp_rows, rank);
	for (i = 0; i < n; i++) {
		const struct kfit_calltime_by *r = &env.rows[i];
		struct kfit_fstat *f = &env.by.f[i];

		f->h = r->h;
		f->local_ns = r->local_ns;
		f->name = env.fs.f[r->id].name;
		f->hidden = rank[r->id] == env.fs.n;
		f->by_value = r->val;
		if (env.by_log2)
			kfit_log2_bucket_range(r->val, &f->by_value, &f->by_hi);
		f->by_range = env.by_log2;
		f->by = by_text(r, env.by_text[i], sizeof(env.by_text[i]));
		f->by_str = env.by_slot[r->id] >= CT_BY_STR0 ? (r->has_str ? r->str : "") :
			    NULL;
	}
	env.by.by_title = env.by_title;
	env.by.by_key = env.by_arg;
	env.by.keep_order = true;
	env.by.top = env.fs.top;
	env.by.fields = env.fs.fields;
	free(idx);
	free(rank);
	return 0;
}

/* What could not be read of the arguments, what --filter left out */
static void args_notes(const __u64 *d)
{
	if (env.filter_expr)
		printf("%llu call%s left out by --filter\n", (unsigned long long)d[CT_FILTERED],
		       d[CT_FILTERED] == 1 ? "" : "s");
	if (d[CT_FILTER_NOVAL])
		printf("%llu call%s without an argument the filter reads, left out\n",
		       (unsigned long long)d[CT_FILTER_NOVAL], d[CT_FILTER_NOVAL] == 1 ? "" : "s");
	kfit_argfmt_notes(stdout, d[CT_NO_ARGS], d[CT_STR_FAULT]);
}

/* What --by and --errors left out, under the table */
static void by_notes(const __u64 *d)
{
	if (grouping() && d[CT_BY_FULL])
		printf("%llu call%s of values past the first %d not in a row (in their "
		       "function's figures)\n", (unsigned long long)d[CT_BY_FULL],
		       d[CT_BY_FULL] == 1 ? "" : "s", CT_BY_MAX);
	if (grouping() && d[CT_NO_VALUE])
		printf("%llu call%s whose %s could not be read not in a row (in their "
		       "function's figures)\n", (unsigned long long)d[CT_NO_VALUE],
		       d[CT_NO_VALUE] == 1 ? "" : "s", env.by_arg);
	args_notes(d);
	if (env.errors)
		printf("%llu call%s that did not fail left out (--errors)\n",
		       (unsigned long long)d[CT_NOT_FAILED], d[CT_NOT_FAILED] == 1 ? "" : "s");
}

/* ---- the report loop ------------------------------------------------- */

/*
 * This report's figures into env.fs (and env.by): the half written before
 * the flip, emptied as read; with --serve the half being written, never
 * flipped nor emptied, so that the figures count from the start
 */
static int read_stats(void)
{
	unsigned int flags = env.srv ? 0 : KFIT_CALLTIME_CLEAR;
	int half, err, k;

	half = kfit_epoch_half(&env.skel->bss->kfit_epoch, env.srv);
	/* the attacher drops the functions the kernel refused */
	for (k = 0; k < env.fs.n; k++)
		env.fs.f[k].hidden = env.tg.funcs[k].dropped;
	err = kfit_calltime_read(&env.maps, half, &env.fs, flags);
	if (!err && grouping())
		err = read_by(half, flags);
	if (err)
		kfit_err("cannot read the statistics: %s", kfit_reason(err));
	return err;
}

/* ---- --serve ---------------------------------------------------------- */

static void prom_fn(struct kfit_prom_labels *l, const struct kfit_fstat *f)
{
	kfit_prom_labels_init(l);
	kfit_prom_label(l, "function", f->name);
}

/* Each function shown's local time (local) or calls --min/--max left out */
static void prom_per_fn(struct kfit_prom *p, bool local)
{
	struct kfit_prom_labels l;
	int i;

	if (local)
		kfit_prom_family(p, "kfit_function_local_seconds", KFIT_PROM_COUNTER, "seconds",
				 "Wall time of the calls minus their traced callees' (kd's Local).");
	else
		kfit_prom_family(p, "kfit_function_filtered_calls", KFIT_PROM_COUNTER, NULL,
				 "Calls left out by --min or --max.");
	for (i = 0; i < env.fs.n; i++) {
		const struct kfit_fstat *f = &env.fs.f[i];

		if (f->hidden)
			continue;
		prom_fn(&l, f);
		if (local)
			kfit_prom_ns(p, &l, f->local_ns);
		else
			kfit_prom_u64(p, &l, f->filtered);
	}
}

/* --by: a series per row, the value a label named after what groups them */
static void prom_by(struct kfit_prom *p, const __u64 *cur)
{
	struct kfit_prom_labels l;
	char key[80], name[72];
	int i;

	kfit_prom_label_name(env.by_arg, name, sizeof(name));
	snprintf(key, sizeof(key), "%s%s", name, env.by_log2 ? "_log2" : "");
	kfit_prom_family(p, "kfit_function_grouped_duration_seconds", KFIT_PROM_HISTOGRAM,
			 "seconds", "Call durations per function and --by value.");
	for (i = 0; i < env.by.n; i++) {
		const struct kfit_fstat *f = &env.by.f[i];

		if (f->hidden)
			continue;
		prom_fn(&l, f);
		kfit_prom_label(&l, key, f->by);
		kfit_prom_hist_ns(p, &l, &f->h);
	}
	kfit_prom_family(p, "kfit_function_ungrouped_calls", KFIT_PROM_COUNTER, NULL,
			 "Calls in no --by series: past the rows the map holds, or their value unread.");
	kfit_prom_u64(p, NULL, cur[CT_BY_FULL] + cur[CT_NO_VALUE]);
}

static int metrics(void *ctx, struct kfit_prom *p)
{
	__u64 cur[CT_NCOUNTERS];
	struct kfit_prom_labels l;
	int i, err;

	(void)ctx;
	err = read_stats();
	if (err)
		return err;
	kfit_calltime_counters(&env.maps, cur);
	kfit_prom_family(p, "kfit_function_duration_seconds", KFIT_PROM_HISTOGRAM, "seconds",
			 "Wall time of each call, entry to return.");
	for (i = 0; i < env.fs.n; i++) {
		if (env.fs.f[i].hidden)
			continue;
		prom_fn(&l, &env.fs.f[i]);
		kfit_prom_hist_ns(p, &l, &env.fs.f[i].h);
	}
	prom_per_fn(p, true);
	prom_per_fn(p, false);
	if (grouping())
		prom_by(p, cur);
	kfit_serve_health(p, cur[CT_LOST_EVENTS] + cur[CT_DEEP] + cur[CT_NO_STACK],
			  kfit_attacher_missed(env.att));
	return 0;
}

static int report(void *ctx, bool last)
{
	static __u64 prev[CT_NCOUNTERS], since, missed;
	__u64 now = kfit_now_ns(), cur[CT_NCOUNTERS], d[CT_NCOUNTERS];
	int err, k;

	(void)ctx;
	/* events mode reports totals at the end, tables per interval */
	env.missed = kfit_attacher_missed(env.att);
	if (!env.events) {
		env.missed -= missed;
		missed += env.missed;
	}
	if (env.events) {
		kfit_epoch_flip(&env.skel->bss->kfit_epoch);
		kfit_calltime_counters(&env.maps, cur);
		ring_buffer__consume(env.rb);
		if (last)
			events_summary(cur);
		fflush(stdout);
		return 0;
	}
	err = read_stats();
	if (err)
		return err;
	kfit_calltime_counters(&env.maps, cur);
	for (k = 0; k < CT_NCOUNTERS; k++)
		d[k] = cur[k] - prev[k];
	memcpy(prev, cur, sizeof(prev));
	if (!since)
		since = env.start_ns;
	if (env.c.json)
		print_json(d, now - since);
	else {
		if (env.c.timestamp)
			kfit_print_time(stdout);
		struct kfit_fnotes nt = notes(d);
		struct kfit_fstats *shown = grouping() ? &env.by : &env.fs;

		/* the notes are the functions' (--min/--max left out before any row) */
		if (env.hist)
			kfit_fstats_hists(stdout, shown, grouping() ? NULL : &nt);
		else
			kfit_fstats_table(stdout, shown, grouping() ? NULL : &nt);
		if (grouping())
			kfit_fstats_notes(stdout, &env.fs, &nt);
		by_notes(d);
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

	err = kfit_calltime_init(&env.maps, env.skel);
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

/*
 * --errors EXPR: the word after --errors is its expression when it parses
 * as one with an operator ('ret == 0'); a target never does (':', '*',
 * a lone name)
 */
static int check_args(int first, int argc, char **argv, bool dashdash)
{
	if (dashdash && !env.cmd) {
		fprintf(stderr, "funcdur: no COMMAND after --\n");
		return -1;
	}
	if (env.cmd && (env.c.pid || env.c.tid)) {
		fprintf(stderr, "funcdur: -p/-t and a COMMAND exclude each other\n");
		return -1;
	}
	if (first >= argc) {
		fprintf(stderr, "funcdur: no TARGET given\n"
			"Try 'funcdur --help' for more information.\n");
		return -1;
	}
	if (env.noints && env.onlyints) {
		fprintf(stderr, "funcdur: --noints and --onlyints exclude each other\n");
		return -1;
	}
	if (grouping() && env.fs.lin_step) {
		fprintf(stderr, "funcdur: --by keeps log2 histograms: drop --linear\n");
		return -1;
	}
	if (env.events && env.c.serve) {
		fprintf(stderr, "funcdur: --events prints calls, --serve counts them: "
			"drop one\n");
		return -1;
	}
	if (env.events && env.hist) {
		fprintf(stderr, "funcdur: --events prints calls, not histograms: "
			"drop -H or --events\n");
		return -1;
	}
	if (env.errors && first < argc && kfit_filter_is_expr(argv[first])) {
		env.errors_expr = argv[first++];
		if (first >= argc) {
			fprintf(stderr, "funcdur: no TARGET after --errors EXPR\n");
			return -1;
		}
	}
	env.targets = argv + first;
	env.ntargets = argc - first;
	return 0;
}

int main(int argc, char **argv)
{
	int first, nargs, err, start_id = 0, stop_id = 0;

	nargs = kfit_child_split_command(argc, argv, &env.cmd);
	first = kfit_opts_parse_args(&tool, &env.c, nargs, argv);
	if (first < 0 || check_args(first, nargs, argv, nargs < argc))
		return 2;
	kfit_setup("funcdur", &env.c);
	/* a COMMAND that cannot run is said before anything is attached */
	if (kfit_child_io_setup(env.c.output, env.cmd) ||
	    kfit_serve_listen(&env.srv, &env.c, "funcdur"))
		return 1;
	err = resolve_targets(&start_id, &stop_id);
	if (err)
		return err == -EINVAL || err == -ENOENT ? 2 : 1;
	/* held before exec: its pid filters the programs and uprobes */
	if (env.cmd) {
		if (kfit_child_fork(&env.child, env.cmd))
			return 1;
		env.c.pid = env.child.proc.pid;
	}
	if (kfit_caps_check())
		return 1;
	kfit_arm_cleanup();
	err = load(start_id, stop_id);
	if (!err)
		err = follow_start();
	if (!err)
		err = set_cpus();
	if (!err)
		err = setup_buffers();
	if (!err)
		err = kfit_attacher_attach(env.att);
	if (err || kfit_exiting) {
		/* a signal while attaching: detached again, nothing traced */
		cleanup();
		return kfit_exiting ? kfit_interrupted() : 1;
	}
	kfit_attacher_activate(env.att, &env.skel->bss->kfit_ready);
	env.start_ns = kfit_now_ns();
	kfit_attacher_announce(env.att);
	if (env.events && !env.c.json)
		printf("%-12s %3s %7s %7s %-16s %-28s %10s %s%s\n", "TIME(s)", "CPU",
		       "PID", "TID", "COMM", "FUNCTION", "DURATION",
		       env.has_args ? "RET      " : "RET",
		       env.has_args ? "ARGS" : "");
	if (env.cmd && kfit_child_start(&env.child)) {
		cleanup();
		return 1;
	}
	err = kfit_run(&env.c, &(struct kfit_loop){
		.report = report,
		.poll = env.events ? poll_events : NULL,
		.child = env.cmd ? &env.child : NULL,
		.serve = env.srv,
		.metrics = metrics,
	});
	kfit_child_note(&env.child);
	cleanup();
	return kfit_child_exit(&env.child, err);
}
