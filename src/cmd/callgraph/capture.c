// SPDX-License-Identifier: GPL-2.0
/*
 * callgraph's capture: the BPF side loaded and attached (exact mode, or
 * sampled where the kernel refuses), its rings read, each record counted,
 * written to -o's file and decoded, and at the end the calls still open.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kfit/callgraph.h"
#include "callgraph.skel.h"
#include "attach.h"
#include "calltree.h"
#include "cgview.h"
#include "diag.h"
#include "events.h"
#include "explain.h"
#include "fileio.h"
#include "kft.h"
#include "kftmeta.h"
#include "maps.h"
#include "opts.h"
#include "run.h"
#include "sampler.h"
#include "syms.h"
#include "args.h"
#include "stream.h"
#include "target.h"
#include "tasks.h"
#include "tpglob.h"
#include "unwind.h"
#include "state.h"

/* ---- loading and attaching ------------------------------------------- */

static void configure(struct callgraph_bpf *s)
{
	struct callgraph_bpf__rodata *r = s->rodata;

	r->self_tgid = getpid();
	r->filter_tid = env.c.tid;
	r->filter_comm = env.c.comm[0] != '\0';
	memcpy((char *)r->comm, env.c.comm, sizeof(env.c.comm));
	r->filter_cpu = env.c.cpus.set;
	r->follow = env.c.pid != 0;
	if (!r->follow)		/* preallocated: no room taken for nothing */
		bpf_map__set_max_entries(s->maps.tracked, 1);
	r->all_task_records = r->follow || env.sampled;
	r->root_id = env.root_idx + 1;
	r->max_depth = env.depth;
	r->min_ns = env.c.has_min ? env.c.min_ns : 0;
	r->max_ns = env.c.has_max ? env.c.max_ns : 0;
	r->wake_bytes = env.buffer / 4;
	r->nrings = env.nrings;
	bpf_map__set_max_entries(s->maps.rb, env.buffer);
	/* one ring: the programs never look at rings */
	bpf_map__set_max_entries(s->maps.rings, env.nrings);
	bpf_map__set_autocreate(s->maps.rings, env.nrings > 1);
	bpf_map__set_max_entries(s->maps.ev_size, env.tps.n ? env.tps.n : 1);
	r->nevents = env.tps.n;
	/* arguments: a spec per function, a slot of places per stack */
	r->have_args = env.has_args;
	r->nr_cpus = libbpf_num_possible_cpus() > 0 ? libbpf_num_possible_cpus() : 1;
	bpf_map__set_max_entries(s->maps.fargs, env.has_args && env.tg.n ? env.tg.n : 1);
	bpf_map__set_max_entries(s->maps.argslots, env.has_args ? KFIT_ARG_SLOTS : 1);
	/* --call-graph dwarf: a stack copy's slot per CPU */
	r->ustack_bytes = env.sampled ? env.ustack_bytes : 0;
	bpf_map__set_max_entries(s->maps.ustacks, r->ustack_bytes ? r->nr_cpus : 1);
}

/*
 * The tracepoint programs of a flavour (tp_btf, or raw for kernels that
 * refuse it): fork, exec and exit always (they grow and prune tracked),
 * context switches and interrupts in exact mode. Returns how many.
 */
static int tp_progs(struct callgraph_bpf *s, bool btf, bool exact,
		    struct bpf_program **out)
{
	struct bpf_program *all[][2] = {
		{ s->progs.fork_btf, s->progs.fork_raw },
		{ s->progs.exec_btf, s->progs.exec_raw },
		{ s->progs.exit_btf, s->progs.exit_raw },
		{ s->progs.switch_btf, s->progs.switch_raw },
		{ s->progs.irq_entry_btf, s->progs.irq_entry_raw },
		{ s->progs.irq_exit_btf, s->progs.irq_exit_raw },
		{ s->progs.softirq_entry_btf, s->progs.softirq_entry_raw },
		{ s->progs.softirq_exit_btf, s->progs.softirq_exit_raw },
	};
	int i, n = exact ? 8 : 3;

	for (i = 0; i < n; i++)
		out[i] = all[i][btf ? 0 : 1];
	return n;
}

static int keep_link(struct bpf_link *l)
{
	struct bpf_link **v;

	if (!l)
		return -errno;
	v = realloc(env.links, (env.nlinks + 1) * sizeof(*v));
	if (!v) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	env.links = v;
	env.links[env.nlinks++] = l;
	return 0;
}

/*
 * The rings beyond rb (nrings > 1), each of -b SIZE, into rings: before
 * any program runs, so that no record is written to none.
 */
static int make_rings(void)
{
	__u32 i, n = env.nrings;
	int fd, outer = bpf_map__fd(env.skel->maps.rings);

	env.ring_fds = calloc(n, sizeof(*env.ring_fds));
	if (!env.ring_fds)
		return -ENOMEM;
	env.ring_fds[0] = bpf_map__fd(env.skel->maps.rb);
	for (i = 1; i < n; i++)
		env.ring_fds[i] = -1;
	for (i = 0; i < n; i++) {
		fd = i ? bpf_map_create(BPF_MAP_TYPE_RINGBUF, "cg_rb", 0, 0,
					env.buffer, NULL) : env.ring_fds[0];
		if (fd < 0)
			return -errno;
		env.ring_fds[i] = fd;
		if (n > 1 && bpf_map_update_elem(outer, &i, &fd, BPF_ANY))
			return -errno;
	}
	kfit_debug("%u ring buffer%s of %llu bytes", n, n > 1 ? "s" : "",
		   (unsigned long long)env.buffer);
	return 0;
}

static void free_rings(void)
{
	__u32 i;

	for (i = 1; env.ring_fds && i < env.nrings; i++)
		if (env.ring_fds[i] >= 0)
			close(env.ring_fds[i]);
	free(env.ring_fds);
	env.ring_fds = NULL;
}

/* Everything but the functions' links (the attacher's): nothing stays attached */
void cg_unload(void)
{
	while (env.nlinks)
		bpf_link__destroy(env.links[--env.nlinks]);
	kfit_sampler_free(env.sampler);
	env.sampler = NULL;
	kfit_events_free(env.ev);
	env.ev = NULL;
	free_rings();
	kfit_attacher_free(env.att);
	env.att = NULL;
	callgraph_bpf__destroy(env.skel);
	env.skel = NULL;
}

/* What each function's calls capture, into the fargs map */
static int seed_args(void)
{
	int fd = bpf_map__fd(env.skel->maps.fargs);
	struct kfit_fargs fa;
	__u32 i;

	for (i = 0; env.has_args && i < (__u32)env.tg.n; i++) {
		kfit_args_fargs(&env.tg.funcs[i], &fa);
		if (bpf_map_update_elem(fd, &i, &fa, BPF_ANY))
			return -errno;
	}
	return 0;
}

static int seed_maps(void)
{
	struct callgraph_bpf *s = env.skel;
	__u32 pid = env.c.pid, cpu, i;
	__u8 one = 1;

	if (pid && bpf_map_update_elem(bpf_map__fd(s->maps.tracked), &pid, &one, BPF_ANY))
		return -errno;
	for (cpu = 0; env.c.cpus.set && cpu < KFIT_MAX_CPUS; cpu++)
		if (kfit_cpu_selected(&env.c.cpus, cpu) &&
		    bpf_map_update_elem(bpf_map__fd(s->maps.cpus), &cpu, &one, BPF_ANY))
			return -errno;
	for (i = 0; i < (__u32)env.tps.n; i++) {
		/* the first bytes of __data_loc strings too */
		__u32 v = env.tps.tp[i].dynamic ? KFIT_EVENT_DATA : env.tps.tp[i].size;

		if (!strncmp(env.tps.tp[i].name, "syscalls:", 9))
			v |= CG_EV_SYSCALL;
		if (bpf_map_update_elem(bpf_map__fd(s->maps.ev_size), &i, &v, BPF_ANY))
			return -errno;
	}
	return seed_args();
}

static int on_record(void *ctx, const void *data, size_t size);

static int open_events(void)
{
	struct kfit_events_opts o = {
		.rb_fds = env.ring_fds,
		.nrings = env.nrings,
		.lost_fd = bpf_map__fd(env.skel->maps.counters),
		.lost_key = CG_LOST,
		.fn = on_record,
		.batched = true,
	};

	env.ev = kfit_events_new(&o);
	return env.ev ? 0 : -errno;
}

static int attach_tps(bool btf, bool exact)
{
	struct bpf_program *p[8];
	int i, n, err = 0;

	n = tp_progs(env.skel, btf, exact, p);
	for (i = 0; i < n && !err; i++)
		err = keep_link(bpf_program__attach(p[i]));
	return err;
}

/*
 * The program of an event: the one that loads its size class straight
 * from the context when its record's size is a multiple of 8 (the kernel
 * lets it read no further), else (or when strings follow the record's
 * fields) the one that copies with bpf_probe_read_kernel.
 */
static struct bpf_program *event_prog(struct callgraph_bpf *s, unsigned int size,
				      bool dynamic)
{
	struct bpf_program *direct[] = {
		s->progs.cg_event8, s->progs.cg_event16, s->progs.cg_event24,
		s->progs.cg_event32, s->progs.cg_event40, s->progs.cg_event48,
		s->progs.cg_event56, s->progs.cg_event64,
	};

	if (!size || size % 8 || dynamic)
		return s->progs.cg_event;
	if (size > KFIT_EVENT_DATA)
		size = KFIT_EVENT_DATA;
	return direct[size / 8 - 1];
}

/* -e: each tracepoint with its index as cookie */
static int attach_events(void)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, o);
	char cat[256];
	const char *name;
	int i, err;

	for (i = 0; i < env.tps.n; i++) {
		/* a signal in a long start-up (sys:*): undone and said at once */
		if (kfit_exiting)
			return -EINTR;
		name = strchr(env.tps.tp[i].name, ':') + 1;
		snprintf(cat, sizeof(cat), "%.*s", (int)(name - 1 - env.tps.tp[i].name),
			 env.tps.tp[i].name);
		o.bpf_cookie = i;
		err = keep_link(bpf_program__attach_tracepoint_opts(
				event_prog(env.skel, env.tps.tp[i].size,
					   env.tps.tp[i].dynamic), cat, name, &o));
		if (err) {
			kfit_explain_attach("tracepoint", env.tps.tp[i].name, err);
			return err;
		}
	}
	return 0;
}

static void autoload_tps(bool btf, bool exact)
{
	struct bpf_program *p[8];
	int i, n;

	n = tp_progs(env.skel, btf, exact, p);
	for (i = 0; i < n; i++)
		bpf_program__set_autoload(p[i], true);
}

/* Both modes, once the programs are chosen: load, fill the maps, attach the tracepoints */
static int load_rest(bool btf, bool exact)
{
	int err = callgraph_bpf__load(env.skel);

	if (!err)
		err = make_rings();
	if (!err)
		err = seed_maps();
	if (!err)
		err = open_events();
	if (!err)
		err = attach_tps(btf, exact);
	return err;
}

/* The skeleton opened and configured, no program loaded yet: each mode chooses */
static struct callgraph_bpf *open_skel(void)
{
	struct callgraph_bpf *s = env.skel = callgraph_bpf__open();
	struct bpf_program *p;

	if (!s)
		return NULL;
	configure(s);
	bpf_object__for_each_program(p, s->obj)
		bpf_program__set_autoload(p, false);
	return s;
}

/*
 * Open and load for exact mode: the attacher chooses the functions'
 * programs (*refused: no mechanism works here for them).
 */
static int load_exact(bool btf, bool *refused)
{
	struct callgraph_bpf *s = open_skel();
	int i, err;

	if (!s)
		return -errno;
	if (env.att) {
		err = kfit_attacher_prepare(env.att, &(struct kfit_attach_progs){
			.obj = s->obj,
			.fentry = s->progs.cg_fentry, .fexit = s->progs.cg_fexit,
			.kprobe = s->progs.cg_kprobe, .kretprobe = s->progs.cg_kretprobe,
			.kmulti = s->progs.cg_kmulti, .kmulti_ret = s->progs.cg_kmulti_ret,
			.uprobe = s->progs.cg_uprobe, .uretprobe = s->progs.cg_uretprobe,
			.sys_enter = s->progs.cg_sys_enter, .sys_exit = s->progs.cg_sys_exit,
			.sys_enter_args = {
				s->progs.cg_sys_enter1, s->progs.cg_sys_enter2,
				s->progs.cg_sys_enter3, s->progs.cg_sys_enter4,
				s->progs.cg_sys_enter5, s->progs.cg_sys_enter6,
			},
			.follow_rb = s->maps.follow_rb,
			.follow_notify = &s->bss->follow_notify,
			.follow_lost = &s->bss->follow_lost,
		});
		*refused = err != 0;
		if (err)
			return err;
	}
	autoload_tps(btf, true);
	for (i = 0; i < env.tps.n; i++)
		bpf_program__set_autoload(event_prog(s, env.tps.tp[i].size,
						     env.tps.tp[i].dynamic), true);
	return load_rest(btf, true);
}

/* Returns 0, 1 when exact tracing is refused here (sampled mode then), or -errno */
static int start_exact(void)
{
	/* Uprobes in -p's process or COMMAND's and the processes they create */
	struct kfit_attach_opts ao = {
		.mech = env.c.attach,
		.umech = env.c.uattach,
		.pid = env.c.pid,
		.follow = env.c.pid != 0,
		.unfiltered = env.c.no_ufilter,
		.verbose = env.c.verbose,
		.progress = isatty(STDERR_FILENO),
		.uprobe_limit = env.c.uprobe_limit,
		.force = env.c.force,
	};
	bool refused = false;
	int err;

	if (env.tg.n && !(env.att = kfit_attacher_new(&env.tg, &ao)))
		return -ENOMEM;
	env.tp_mode = "tp_btf";
	err = load_exact(true, &refused);
	if (err && !refused && err != -ENOMEM) {
		kfit_debug("tp_btf failed (%s); trying raw tracepoints", kfit_reason(err));
		cg_unload();
		if (env.tg.n && !(env.att = kfit_attacher_new(&env.tg, &ao)))
			return -ENOMEM;
		env.tp_mode = "raw_tracepoint";
		err = load_exact(false, &refused);
	}
	if (refused)
		return 1;
	if (err) {
		kfit_err("cannot load the BPF programs: %s", kfit_reason(err));
		return err;
	}
	err = attach_events();
	if (err || !env.att)
		return err;
	err = kfit_attacher_attach(env.att);
	/* interrupted, out of memory, refused on a shared binary: no fallback */
	if (err == -EINTR || err == -ENOMEM || err == -EBUSY)
		return err;
	return err ? 1 : 0;
}

/* ---- sampled mode ------------------------------------------------------ */

static int load_sampled(bool btf)
{
	struct callgraph_bpf *s = open_skel();

	if (!s)
		return -errno;
	autoload_tps(btf, false);
	bpf_program__set_autoload(s->progs.cg_sample, true);
	return load_rest(btf, false);
}

static int start_sampled(void)
{
	int err;

	env.sampled = true;
	env.tp_mode = "tp_btf";
	err = load_sampled(true);
	if (err && err != -ENOMEM) {
		kfit_debug("tp_btf failed (%s); trying raw tracepoints", kfit_reason(err));
		cg_unload();
		env.tp_mode = "raw_tracepoint";
		err = load_sampled(false);
	}
	if (err) {
		kfit_err("cannot load the BPF programs: %s", kfit_reason(err));
		return err;
	}
	/* kallsyms read now, not while the first samples wait */
	if (env.syms)
		kfit_syms_kernel_note(env.syms);
	return kfit_sampler_open(env.skel->progs.cg_sample, &(struct kfit_sampler_opts){
		.hz = env.hz,
		.cpus = &env.c.cpus,
	}, &env.sampler);
}

int cg_start(void)
{
	int err;

	if (!cg_exact_wanted())
		return start_sampled();
	err = start_exact();
	if (err <= 0)
		return err;
	cg_unload();
	kfit_warn("exact tracing is refused here (above): sampling stacks instead "
		  "(-S %lu)", env.hz);
	return start_sampled();
}

/* What traces: perf events, the attacher's mechanism, or tracepoints alone */
const char *cg_mechanism(void)
{
	if (env.sampled)
		return "perf_event";
	return env.att ? kfit_attacher_mech(env.att) : "tracepoint";
}

/* ---- task names -------------------------------------------------------- */

/* A task alive at the start, or named otherwise before its first record */
int cg_name(__u32 pid, __u32 tid, const char *comm)
{
	return kfit_tasks_name(env.tasks, env.tree, pid, tid, comm);
}

/* ---- records ------------------------------------------------------------ */

/* Every record goes to the decoder as kd's do (stream.h): what is shown is what it makes of them */
static int decode(const void *data, size_t size)
{
	int r;

	r = kfit_stream_add(&env.stream, data, size);
	if (r <= 0)
		return r;
	/* sampled --perfetto: a sample's frames named now, while its process lives */
	return kfit_cgview_timeline_add(env.view.timeline, data, size);
}

/* ---- recording (-o) ---------------------------------------------------- */

/* A sample's addresses, named now while its process lives: the SYMS block */
static int sample_syms(const struct kfit_rec_sample *r, size_t size)
{
	int i, n = r->nkernel + r->nuser, err = 0;

	if (!kfit_ctree_check_rec(r, size))
		return 0;
	for (i = 0; i < n && !err; i++) {
		if (i >= r->nkernel && kfit_cgview_no_user_address(r->ip[i]))
			continue;
		err = kfit_kftmeta_symset_add(env.symset, r->h.pid, r->ip[i], i < r->nkernel);
	}
	return err;
}

#define MAX_NAMES_BYTES	(64U << 20)

/*
 * A name a task took (a child's at fork, a program's at exec), for the
 * NAMES block: kd names the tasks of a window from it. Rare records: a
 * line each, up to a bound, past which they are counted.
 */
static void add_name(const struct kfit_rec_task *t)
{
	bool fork = t->h.type == KFIT_REC_FORK;
	char comm[sizeof(t->comm) + 1];

	if (!env.names || ftell(env.names) > MAX_NAMES_BYTES) {
		env.names_dropped++;
		return;
	}
	snprintf(comm, sizeof(comm), "%.*s", (int)sizeof(t->comm), t->comm);
	kfit_kftmeta_name(env.names, t->h.ts, fork ? t->child_pid : t->h.pid,
		       fork ? t->child_tid : t->h.tid, comm);
}

/*
 * Into the file as it came (the writer copies it): nothing decoded. A
 * full file (--size) ends the run; samples' addresses are named.
 */
static int record(const void *data, size_t size)
{
	const struct kfit_rec *h = data;
	int r;

	if (env.capped)
		return 0;
	r = kft_writer_rec(env.w, data, size);
	if (r == 1) {
		env.capped = true;
		kfit_exiting = 1;
		return 0;
	}
	if (r < 0) {
		kfit_out_err(env.out, r);
		env.write_failed = true;
		return r;
	}
	if ((h->type == KFIT_REC_FORK || h->type == KFIT_REC_EXEC) &&
	    size >= sizeof(struct kfit_rec_task))
		add_name(data);
	if (!env.sampled || size < sizeof(*h))
		return 0;
	if (h->type == KFIT_REC_SAMPLE && env.symset)
		return sample_syms(data, size);
	return 0;
}

/* --stop-at's function (or --flight's --root) returned: the run ends */
static void check_trigger(const void *data, size_t size)
{
	const struct kfit_rec_call *c = data;

	if (size < sizeof(*c) || c->id != (__u32)env.trigger_idx ||
	    (c->h.flags & KFIT_RF_END))
		return;
	env.triggered = true;
	kfit_exiting = 1;
}

static int on_record(void *ctx, const void *data, size_t size);

/*
 * --call-graph dwarf: a sample's copy of the user stack unwound, now
 * while its process lives, into the sample recorded and shown
 */
static int on_ustack(const struct cg_ustack *u, size_t size)
{
	static struct kfit_rec_sample r;
	struct kfit_ustack in;
	enum kfit_ustop why = KFIT_USTOP_NOREGS;
	size_t head = offsetof(struct cg_ustack, data);
	int nu = 0;

	if (size < head || u->nkernel > KFIT_STACK_MAX ||
	    size < head + u->nkernel * sizeof(__u64) + u->len)
		return 0;
	memcpy(r.ip, u->data, u->nkernel * sizeof(__u64));
	in = (struct kfit_ustack){
		.pid = u->h.pid, .ip = u->ip, .sp = u->sp, .bp = u->bp,
		.stack = (const __u8 *)&u->data[u->nkernel], .len = u->len,
	};
	if (!u->flags && env.unwind)
		nu = kfit_unwind(env.unwind, &in, &r.ip[u->nkernel], KFIT_STACK_MAX, &why);
	else if (u->flags & CG_US_FAULT)
		why = KFIT_USTOP_FAULT;
	r.h = u->h;
	r.h.type = KFIT_REC_SAMPLE;
	r.h.size = offsetof(struct kfit_rec_sample, ip) + (u->nkernel + nu) * sizeof(__u64);
	r.nkernel = u->nkernel;
	r.nuser = nu;
	r.ustop = 1 + why;
	return on_record(NULL, &r, r.h.size);
}

static int on_record(void *ctx, const void *data, size_t size)
{
	const struct kfit_rec *h = data;
	int err;

	(void)ctx;
	if (size >= sizeof(*h) && h->type == CG_REC_USTACK)
		return on_ustack(data, size);
	/*
	 * A new program: its addresses mean something else now. Sampled, its
	 * maps are read at once, while it lives: a short command may be gone
	 * by its first sample's turn
	 */
	if (size >= sizeof(*h) && h->type == KFIT_REC_EXEC && env.syms) {
		if (env.sampled)
			kfit_syms_pid(env.syms, h->pid);
		else
			kfit_syms_forget(env.syms, h->pid);
	}
	if (size >= sizeof(*h) && h->type < KFIT_REC_NTYPES) {
		env.cap.types[h->type]++;
		if (h->cpu < KFIT_MAX_CPUS)
			env.cap.cpu_recs[h->cpu]++;
		if (h->type == KFIT_REC_CALL && env.trigger_idx >= 0 && !env.triggered)
			check_trigger(data, size);
	}
	if (env.w) {
		err = record(data, size);
		if (err || !env.render)
			return err;
	}
	return decode(data, size);
}

/*
 * The arguments of call i of st, still open at the end, after its record
 * r (room for them): its size, as the BPF side would write it
 */
static size_t end_args(const struct cg_stack *st, int i, struct kfit_rec_call *r)
{
	struct kfit_rec_args *a = (void *)(r + 1);
	__u32 slot = st->s.slot & (KFIT_ARG_SLOTS - 1);
	struct kfit_argstack as;
	struct kfit_argvals *av;
	struct kfit_fargs fa;
	int nstr;

	if (!env.has_args || !st->x[i].args || st->x[i].args > KFIT_ARG_DEPTH ||
	    st->s.f[i].id >= (__u32)env.tg.n ||
	    bpf_map_lookup_elem(bpf_map__fd(env.skel->maps.argslots), &slot, &as))
		return sizeof(*r);
	av = &as.f[st->x[i].args - 1];
	if (av->stamp != st->s.f[i].ts)
		return sizeof(*r);
	/* as many strings as the BPF side writes for its function */
	kfit_args_fargs(&env.tg.funcs[st->s.f[i].id], &fa);
	nstr = fa.nstr;
	memset(a, 0, KFIT_REC_ARGS_SIZE(nstr));
	a->ok = av->ok;
	a->nstr = nstr;
	memcpy(a->v, av->v, sizeof(a->v));
	memcpy(a->s, av->s, nstr * KFIT_ARG_STRLEN);
	r->cflags |= KFIT_CF_ARGS;
	return sizeof(*r) + KFIT_REC_ARGS_SIZE(nstr);
}

/* What the BPF side writes for a call, for one still open at the end */
static int end_call(__u64 key, const struct cg_stack *st, int i,
		    __u64 blocked, __u64 preempt, __u32 dropped)
{
	union {
		struct kfit_rec_call r;
		char room[sizeof(struct kfit_rec_call) + sizeof(struct kfit_rec_args)];
	} u;
	const struct fc_frame *f = &st->s.f[i];
	const struct cg_frame *x = &st->x[i];
	int ctx = fc_key_ctx(key);
	struct kfit_rec_call r = {
		.h = {
			.type = KFIT_REC_CALL,
			.ctx = ctx,
			.flags = KFIT_RF_INCOMPLETE | KFIT_RF_END |
				 (f->flags & FC_F_FORKED ? KFIT_RF_FORKED : 0),
			.size = sizeof(r),
			/* a task's CPU is not known: interrupt stacks are per CPU */
			.cpu = (key >> 32) ? (__u32)key : 0,
			.pid = st->pid,
			.tid = st->tid,
			.ts = f->ts,
		},
		.dur = env.end_ns > f->ts ? env.end_ns - f->ts : 0,
		.off_blocked = blocked - x->blocked,
		.off_preempt = preempt - x->preempt,
		.id = f->id,
		.depth = x->rdepth,
		.dropped = x->dropped + dropped,
	};
	size_t size;

	env.cap.end_calls++;
	u.r = r;
	size = end_args(st, i, &u.r);
	u.r.h.size = size;
	return on_record(NULL, &u, size);
}

/*
 * The calls still open on a stack, innermost first (the order returns
 * come in), each as incomplete (KFIT_RF_END), as the BPF side would
 * write it: those it leaves out counted by their callers.
 */
static int end_stack(__u64 key, const struct cg_stack *st)
{
	__u32 dropped[FC_MAX_DEPTH] = { 0 };
	__u64 blocked = st->blocked, preempt = st->preempt;
	int i, err, d = st->s.depth < FC_MAX_DEPTH ? st->s.depth : FC_MAX_DEPTH;

	/* off CPU when the capture ended: that time counts too */
	if (st->off_ts && st->off_ts < env.end_ns) {
		if (st->off_state)
			blocked += env.end_ns - st->off_ts;
		else
			preempt += env.end_ns - st->off_ts;
	}
	for (i = d - 1; i >= 0; i--) {
		if (st->s.f[i].flags & FC_F_REC) {
			err = end_call(key, st, i, blocked, preempt, dropped[i]);
			if (err)
				return err;
			continue;
		}
		if (i)
			dropped[i - 1] += dropped[i] + st->x[i].dropped + 1;
	}
	return 0;
}

static int end_stacks(void)
{
	struct kfit_entries e = { 0 };
	int i, err;

	err = kfit_hash_read(bpf_map__fd(env.skel->maps.stacks), NULL, NULL, 0, &e);
	for (i = 0; !err && i < e.n; i++)
		err = end_stack(*(__u64 *)kfit_entry_key(&e, i), kfit_entry_value(&e, i));
	kfit_entries_free(&e);
	return err;
}

/*
 * What the BPF side still staged (kfit/callgraph.h's cg_stage), each
 * CPU's after what it flushed into the rings, read once no program runs
 */
static int staged_records(void)
{
	int fd = bpf_map__fd(env.skel->maps.stage);
	const struct cg_stage *s;
	struct kfit_percpu p;
	int cpu, err;
	__u32 c;

	if (!env.skel->rodata->nevents)
		return 0;
	err = kfit_percpu_init(&p, sizeof(*s), 0);
	for (c = 0; !err && c < KFIT_NCTX; c++) {
		err = kfit_percpu_read(&p, fd, &c);
		for (cpu = 0; !err && cpu < p.ncpus; cpu++) {
			s = kfit_percpu_at(&p, cpu);
			if (!s->len || s->len > sizeof(s->buf))
				continue;
			kfit_debug("CPU %d: %u records still staged at the end (context %u)",
				   cpu, s->nrecs, c);
			err = kfit_events_feed(env.ev, s->buf, s->len);
		}
	}
	kfit_percpu_free(&p);
	return err;
}

/* The records the BPF side had no room for, per CPU, as LOST records */
static int lost_records(void)
{
	struct kfit_rec_lost r = { .h = { .type = KFIT_REC_LOST, .size = sizeof(r) } };
	int cpu, n, err;

	env.cap.lost = calloc(KFIT_MAX_CPUS, sizeof(__u64));
	if (!env.cap.lost)
		return -ENOMEM;
	n = kfit_events_lost(env.ev, env.cap.lost, KFIT_MAX_CPUS);
	if (n < 0)
		return n;
	env.cap.ncpus = n;
	for (cpu = 0; cpu < n && cpu < KFIT_MAX_CPUS; cpu++) {
		if (!env.cap.lost[cpu])
			continue;
		r.h.cpu = cpu;
		r.h.ts = env.end_ns;
		r.count = env.cap.lost[cpu];
		err = on_record(NULL, &r, sizeof(r));
		if (err)
			return err;
	}
	return 0;
}

void cg_read_counters(void)
{
	struct kfit_percpu p;
	__u32 k;
	int fd = bpf_map__fd(env.skel->maps.counters);

	if (kfit_percpu_init(&p, sizeof(__u64), 0))
		return;
	for (k = 0; k < CG_NCOUNTERS; k++)
		env.cap.counters[k] = kfit_percpu_read(&p, fd, &k) ? 0 :
				      kfit_percpu_sum(&p, 0);
	kfit_percpu_free(&p);
}

/* -v: what unwinding the user stacks took, the tables' memory with it */
static void say_unwind(void)
{
	const struct kfit_unwind_stats *u;

	if (!env.unwind || !env.sampled || !env.ustack_bytes)
		return;
	u = kfit_unwind_stats(env.unwind);
	kfit_debug("user stacks unwound: %llu, %llu frames (%llu through rbp); tables of "
		   "%llu files: %llu rows, %llu KiB; %llu files without call-frame information",
		   (unsigned long long)u->stacks, (unsigned long long)u->frames,
		   (unsigned long long)u->fp_frames, (unsigned long long)u->files,
		   (unsigned long long)u->rows, (unsigned long long)(u->table_bytes >> 10),
		   (unsigned long long)u->files_noinfo);
}

/*
 * The end: programs stop recording, and once none can still be running
 * (the grace period of kfit_epoch_flip) the ring is drained, and the
 * calls left open and the losses are added to the stream.
 */
int cg_stop_capture(void)
{
	int err;

	env.skel->bss->kfit_ready = false;
	env.end_ns = kfit_now_ns();
	if (env.sampler)
		kfit_sampler_disable(env.sampler);
	/* only its wait: no program runs any more once it returns */
	kfit_epoch_flip(&env.skel->bss->kfit_epoch);
	err = kfit_events_drain(env.ev);
	if (err >= 0)
		err = staged_records();
	if (err < 0) {
		if (!env.write_failed)
			kfit_err("reading the records failed: %s", kfit_reason(err));
		return err;
	}
	cg_read_counters();
	say_unwind();
	err = env.sampled ? 0 : end_stacks();
	if (!err)
		err = lost_records();
	if (err)
		kfit_err("cannot read the open calls: %s", kfit_reason(err));
	return err;
}
