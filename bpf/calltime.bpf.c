// SPDX-License-Identifier: GPL-2.0
/*
 * The calltime engine: wall-time duration of every call of the traced
 * functions. funcdur loads it, and bootsum --funcs from the first process
 * on (src/live/calltime.c reads it for both).
 *
 * Each attachment carries the function's id as its BPF cookie (the mass
 * attacher, src/live/attach.c, sets it, and kfit_ready once all are
 * made). Calls are kept on the stacks of fcall.bpf.h (per thread, per CPU
 * for interrupt contexts), so nested, recursive, sleeping and migrating
 * calls are all measured right, and a caller's local time is its time
 * minus that of the traced callees.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kfit.bpf.h"
#include "fcall.bpf.h"
#include "fargs.bpf.h"
#include "kfit/calltime.h"

/* Configuration, set by the loader before load; the filters: fcall.bpf.h */
const volatile __u64 min_ns;
const volatile __u64 max_ns;		/* 0: no maximum */
const volatile __u64 lin_step;
const volatile bool events;
const volatile __u32 start_id;		/* id + 1 of --start-at, 0: none */
const volatile __u32 stop_id;		/* id + 1 of --stop-at, 0: none */
const volatile bool by_any;		/* --by: stats per value too */
const volatile bool by_log2;		/* --by log2(ARG): by the value's power-of-2 bucket */
const volatile bool have_args;		/* some function captures arguments */
const volatile bool errors_only;	/* --errors: only the calls that failed */
const volatile __u8 ret_kind[CT_MAX_FUNCS];	/* KFIT_RET_*, per function */
const volatile __u8 by_what[CT_MAX_FUNCS];	/* per function: CT_BY_* */
const volatile bool args_of[CT_MAX_FUNCS];	/* per function: it captures arguments */
const volatile bool filter_on;			/* --filter: filters[CT_FILTER] */
const volatile bool errors_expr;		/* --errors EXPR: filters[CT_ERRORS] */

/*
 * The programs, in a map: rodata read through a pointer that is not
 * volatile would be folded to the zeros the object was built with
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CT_NFILTERS);
	__type(key, __u32);
	__type(value, struct ct_filter);
} filters SEC(".maps");

/* 0: waiting for --start-at, 1: collecting, 2: stopped by --stop-at */
__u32 trigger_state;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct fc_stack);
} stacks SEC(".maps");

/* A zeroed stack to start from: too big for the BPF stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fc_stack);
} empty SEC(".maps");

/* max_entries set to 2 per traced function by the loader */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct ct_stat);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct kfit_linhist);
} linhists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct ct_edge);
	__type(value, __u64);
} edges SEC(".maps");

/* --by ret: funcdur sets max_entries to 2 * CT_BY_MAX (a half's each) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1);
	__type(key, struct ct_by_key);
	__type(value, struct ct_stat);
} by SEC(".maps");

/* --by a string: each row's string, under the row's key (as by's entries) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct ct_by_key);
	__type(value, struct ct_by_str);
} by_strs SEC(".maps");

/* A zeroed stat to start a value's from: too big for the BPF stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ct_stat);
} empty_stat SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CT_NCOUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);	/* resized by the loader with --events */
} rb SEC(".maps");

static __always_inline void count(enum ct_counter c)
{
	kfit_count(&counters, c);
}

static __always_inline bool collecting(__u32 id)
{
	if (start_id && trigger_state == 0 && start_id == id + 1)
		trigger_state = 1;
	if (start_id)
		return trigger_state == 1;
	return trigger_state != 2;
}

/* The current call's arguments, into frame d's place; NULL when none */
static __always_inline struct kfit_argvals *capture(void *ctx, enum fa_how how, __u32 slot,
						    __u32 id, __u32 d)
{
	const struct kfit_fargs *fa = bpf_map_lookup_elem(&fargs, &id);
	struct kfit_argvals *av;

	if (!fa)
		return NULL;
	av = fa_frame(slot, d);
	if (!av) {
		count(CT_NO_ARGS);
		return NULL;
	}
	fa_capture(ctx, how, fa, av);
	return av;
}

static __always_inline int on_entry(void *pctx, enum fa_how how, __u32 id, bool kernel)
{
	struct kfit_argvals *av;
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	enum kfit_ctx ctx = fc_context(kernel);
	struct fc_stack *st;
	struct fc_frame *f;
	__u64 key;
	__u32 zero = 0;

	if (!kfit_ready || !fc_wanted(ctx, pid_tgid) || !collecting(id))
		return 0;
	key = fc_stack_key(ctx, pid_tgid);
	st = bpf_map_lookup_elem(&stacks, &key);
	if (!st) {
		st = bpf_map_lookup_elem(&empty, &zero);
		if (!st)
			return 0;
		st->depth = 0;
		st->overflow = 0;
		st->slot = have_args ? fa_new_slot() : 0;
		if (bpf_map_update_elem(&stacks, &key, st, BPF_NOEXIST) &&
		    bpf_map_update_elem(&stacks, &key, st, BPF_ANY)) {
			count(CT_NO_STACK);
			return 0;
		}
		st = bpf_map_lookup_elem(&stacks, &key);
		if (!st)
			return 0;
	}
	f = fc_push(st);
	if (!f) {
		count(CT_DEEP);
		return 0;
	}
	f->id = id;
	f->child_ns = 0;
	av = have_args && args_of[id & (CT_MAX_FUNCS - 1)] ?
	     capture(pctx, how, st->slot, id & (CT_MAX_FUNCS - 1), st->depth - 1) : NULL;
	f->ts = bpf_ktime_get_ns();
	if (av)
		av->stamp = f->ts;	/* theirs: the frame's entry */
	return 0;
}

static __always_inline void emit(__u32 id, __u64 dur, __s64 ret, __u64 pid_tgid,
				 enum kfit_ctx ctx, const struct kfit_argvals *av)
{
	struct ct_event_args *ea;
	struct ct_event *e;

	if (have_args) {
		ea = bpf_ringbuf_reserve(&rb, sizeof(*ea), 0);
		e = ea ? &ea->e : NULL;
		if (ea && av)
			__builtin_memcpy(&ea->a, av, sizeof(*av));
		else if (ea)
			ea->a.ok = 0;
	} else {
		e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);
	}
	if (!e) {
		count(CT_LOST_EVENTS);
		return;
	}
	e->ts = bpf_ktime_get_ns();
	e->dur = dur;
	e->ret = ret;
	e->pid = pid_tgid >> 32;
	e->tid = (__u32)pid_tgid;
	e->cpu = bpf_get_smp_processor_id();
	e->id = id;
	e->ctx = ctx;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
}

/*
 * --by: the stat of this value of the function, made if new; a string's
 * (str: NULL for the rest) kept beside it
 */
static __always_inline struct ct_stat *by_stat(__u32 half, __u32 id, __s64 val,
					       const char *str)
{
	struct ct_by_key k = { .half = half, .id = id, .val = val };
	struct ct_stat *s = bpf_map_lookup_elem(&by, &k), *z;
	__u32 zero = 0;

	if (s)
		return s;
	z = bpf_map_lookup_elem(&empty_stat, &zero);
	if (!z)
		return NULL;
	/* another CPU may have made it: then it is there */
	bpf_map_update_elem(&by, &k, z, BPF_NOEXIST);
	s = bpf_map_lookup_elem(&by, &k);
	if (!s)
		count(CT_BY_FULL);
	/* the same size as by: room for each of its rows */
	if (s && str)
		bpf_map_update_elem(&by_strs, &k, str, BPF_NOEXIST);
	return s;
}

/*
 * --by comm: the comm read where by_strs can copy it whole from, one per
 * context (an interrupt's call may come between a task's read and copy)
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KFIT_NCTX);
	__type(key, __u32);
	__type(value, struct ct_by_str);
} by_comms SEC(".maps");

static __always_inline int by_comm(enum kfit_ctx cx, __s64 *val, const char **str)
{
	__u32 slot = cx;
	struct ct_by_str *c = bpf_map_lookup_elem(&by_comms, &slot);

	if (!c)
		return -1;
	bpf_get_current_comm(c->s, 16);	/* TASK_COMM_LEN */
	*str = c->s;
	*val = ct_str_hash(c->s);
	return 0;
}

/*
 * --by's value of the call into *val (a string's: its hash, the string
 * in *str): 0, or -1 when it has none (counted)
 */
static __always_inline int by_value(__u32 id, __s64 ret, enum kfit_ctx cx,
				    const struct kfit_argvals *av, __s64 *val, const char **str)
{
	__u32 w = by_what[id & (CT_MAX_FUNCS - 1)], i, s;
	const struct kfit_fargs *fa;

	*str = NULL;
	if (w == CT_BY_NONE)
		return -1;
	if (w == CT_BY_COMM)
		return by_comm(cx, val, str);
	if (w == CT_BY_RET) {
		*val = by_log2 ? ct_log2_bucket(ret, ret_kind[id & (CT_MAX_FUNCS - 1)] &
						KFIT_RET_SIGNED) : ret;
		return 0;
	}
	i = (w < CT_BY_STR0 ? w - CT_BY_ARG0 : w - CT_BY_STR0) & (KFIT_ARGS_MAX - 1);
	if (!av || !(av->ok & (1 << i))) {
		count(CT_NO_VALUE);
		return -1;
	}
	id &= CT_MAX_FUNCS - 1;
	if (w < CT_BY_STR0 && !by_log2) {
		*val = av->v[i];
		return 0;
	}
	fa = bpf_map_lookup_elem(&fargs, &id);
	if (w < CT_BY_STR0) {
		*val = ct_log2_bucket(av->v[i], fa && (fa->a[i].kind & KFIT_RET_SIGNED));
		return 0;
	}
	if (!fa || !fa->a[i].str)
		return -1;
	s = bounded(fa->a[i].str - 1, KFIT_ARG_STRS - 1);
	*str = av->s[s];
	*val = ct_str_hash(*str);
	return 0;
}

/* A program's run, from step to step of bpf_loop */
struct filter_run {
	struct kfit_fstate s;
	struct kfit_fvals v;
};

/*
 * Where a run lives: a per-CPU map, one per context (an interrupt's run
 * may come in the middle of a task's). Not the caller's stack: verifiers
 * before 6.7 assume a bpf_loop callback leaves the caller's stack as it
 * was, and prune by that.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KFIT_NCTX);
	__type(key, __u32);
	__type(value, struct filter_run);
} fruns SEC(".maps");

/* What the steps of bpf_loop need to find their run: read, never written */
struct filter_where {
	__u32 which;		/* the program */
	__u32 slot;		/* the run: the context */
};

/* Step i: one instruction, verified once for all (bpf_loop: 5.17+) */
static long filter_step(__u32 i, void *ctx)
{
	const struct filter_where *w = ctx;
	__u32 which = w->which, slot = w->slot;
	const struct ct_filter *fp = bpf_map_lookup_elem(&filters, &which);
	struct filter_run *run = bpf_map_lookup_elem(&fruns, &slot);

	if (!fp || !run || i >= KFIT_FILTER_MAX)
		return 1;
	return kfit_filter_step(&run->s, &fp->insn[bounded(i, KFIT_FILTER_MAX - 1)],
				&run->v) ? 1 : 0;
}

/*
 * Run a filter program over the call: 1 it passes, 0 not, or
 * KFIT_FILTER_NOVAL. Its operands are the function's slots (fslot or
 * eslot, by program).
 */
static __always_inline int run_filter(__u32 which, __u32 id, __s64 ret, __u64 pid_tgid,
				      enum kfit_ctx cx, const struct kfit_argvals *av)
{
	const struct kfit_fargs *fa = av ? bpf_map_lookup_elem(&fargs, &id) : NULL;
	const struct ct_filter *fp = bpf_map_lookup_elem(&filters, &which);
	struct filter_where w = { .which = which, .slot = cx };
	struct filter_run *run = bpf_map_lookup_elem(&fruns, &w.slot);
	__u32 k, slot;

	if (!fp || !run)
		return KFIT_FILTER_ERR;
	__builtin_memset(run, 0, sizeof(*run));
	run->v.ret = ret;
	run->v.pid = pid_tgid >> 32;
	run->v.tid = (__u32)pid_tgid;
	for (k = 0; fa && k < KFIT_ARGS_MAX; k++) {
		slot = which == CT_ERRORS ? fa->eslot[k] : fa->fslot[k];
		if (slot >= KFIT_ARGS_MAX || !(av->ok & (1 << slot)))
			continue;
		run->v.arg[k] = av->v[slot];
		run->v.have |= 1 << k;
	}
	run->v.cpu = bpf_get_smp_processor_id();
	if (fp->has_comm)
		run->v.comm_eq = kfit_comm_is(fp->comm);
	bpf_loop(fp->n, filter_step, &w, 0);
	/* looked up again: the verifier knows nothing of what the steps wrote */
	run = bpf_map_lookup_elem(&fruns, &w.slot);
	return run ? kfit_filter_result(&run->s) : KFIT_FILTER_ERR;
}

/* Whether the call failed: by --errors EXPR, else by the kernel's convention */
static __always_inline bool failed(__u32 id, __s64 ret, __u64 pid_tgid, enum kfit_ctx cx,
				   const struct kfit_argvals *av)
{
	int r;

	if (!errors_expr)
		return kfit_ret_failed(ret, ret_kind[id & (CT_MAX_FUNCS - 1)]);
	r = run_filter(CT_ERRORS, id, ret, pid_tgid, cx, av);
	if (r == KFIT_FILTER_NOVAL)
		count(CT_FILTER_NOVAL);
	return r == 1;
}

static __always_inline void record(__u32 id, __u64 dur, __u64 local, __s64 ret,
				   __u64 pid_tgid, enum kfit_ctx ctx,
				   const struct kfit_argvals *av)
{
	__u32 half = kfit_half(), key = ct_key(half, id);
	struct ct_stat *s = bpf_map_lookup_elem(&stats, &key), *b;
	const char *str;
	__s64 val;

	if (!s)
		return;
	if (dur < min_ns || (max_ns && dur > max_ns)) {
		s->filtered++;
		return;
	}
	if (filter_on) {
		int r = run_filter(CT_FILTER, id, ret, pid_tgid, ctx, av);

		if (r != 1) {
			count(r == KFIT_FILTER_NOVAL ? CT_FILTER_NOVAL : CT_FILTERED);
			return;
		}
	}
	if (errors_only && !failed(id, ret, pid_tgid, ctx, av)) {
		count(CT_NOT_FAILED);
		return;
	}
	kfit_hist_put(&s->h, dur);
	s->local_ns += local;
	if (by_any && !by_value(id, ret, ctx, av, &val, &str) && (b = by_stat(half, id, val, str))) {
		kfit_hist_put(&b->h, dur);
		b->local_ns += local;
	}
	if (lin_step)
		kfit_linhist_add(&linhists, key, dur, lin_step);
	if (events)
		emit(id, dur, ret, pid_tgid, ctx, av);
}

/* The caller's frame (index d - 1) gets the callee's time */
static __always_inline void charge_parent(struct fc_stack *st, __u32 d,
					  __u32 id, __u64 dur)
{
	struct ct_edge e = { .half = kfit_half(), .child = id };
	struct fc_frame *p;
	__u64 *v, one;

	if (d == 0)
		return;
	p = fc_frame_at(st, d - 1);
	if (!p)
		return;
	p->child_ns += dur;
	e.parent = p->id;
	v = bpf_map_lookup_elem(&edges, &e);
	if (v) {
		__sync_fetch_and_add(v, dur);
		return;
	}
	one = dur;
	if (bpf_map_update_elem(&edges, &e, &one, BPF_NOEXIST)) {
		v = bpf_map_lookup_elem(&edges, &e);
		if (v)
			__sync_fetch_and_add(v, dur);
	}
}

/* The arguments of the call of frame i that entered at ts, or NULL (counted) */
static __always_inline const struct kfit_argvals *call_args(struct fc_stack *st, __u32 i,
							     __u32 id, __u64 ts)
{
	bool faulted;
	struct kfit_argvals *av = fa_at_exit(st->slot, i, id & (CT_MAX_FUNCS - 1), ts, true,
					     &faulted);

	if (!av)
		count(CT_NO_ARGS);
	if (faulted)
		count(CT_STR_FAULT);
	return av;
}

static __always_inline int on_exit(__u32 id, __s64 ret, bool kernel)
{
	const struct kfit_argvals *av;
	__u64 now = bpf_ktime_get_ns();
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	enum kfit_ctx ctx = fc_context(kernel);
	struct fc_stack *st;
	struct fc_frame *f;
	__u64 dur, local, ts, child;
	__u32 i;

	st = fc_stack_of(&stacks, ctx, pid_tgid);
	if (!kfit_ready || !st)
		return 0;
	f = fc_find(st, id, &i);
	if (!f) {
		if (i == FC_NONE)
			count(CT_UNMATCHED);
		return 0;
	}
	ts = f->ts;
	child = f->child_ns;
	st->depth = i;
	av = have_args && args_of[id & (CT_MAX_FUNCS - 1)] ? call_args(st, i, id, ts) : NULL;
	ret = kfit_ret_value(ret, ret_kind[id & (CT_MAX_FUNCS - 1)]);
	dur = now > ts ? now - ts : 0;
	local = dur > child ? dur - child : 0;
	charge_parent(st, i, id, dur);
	record(id, dur, local, ret, pid_tgid, ctx, av);
	if (stop_id == id + 1)
		trigger_state = 2;
	return 0;
}

SEC("fentry")
int BPF_PROG(fd_fentry)
{
	return on_entry(ctx, FA_FENTRY, bpf_get_attach_cookie(ctx), true);
}

SEC("fexit")
int BPF_PROG(fd_fexit)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	return on_exit(bpf_get_attach_cookie(ctx), ret, true);
}

SEC("kprobe")
int BPF_KPROBE(fd_kprobe)
{
	return on_entry(ctx, FA_REGS, bpf_get_attach_cookie(ctx), true);
}

SEC("kretprobe")
int BPF_KRETPROBE(fd_kretprobe, long ret)
{
	return on_exit(bpf_get_attach_cookie(ctx), ret, true);
}

/* One link for every function, where the kernel has kprobe_multi */
SEC("kprobe.multi")
int BPF_KPROBE(fd_kmulti)
{
	return on_entry(ctx, FA_REGS, bpf_get_attach_cookie(ctx), true);
}

SEC("kretprobe.multi")
int BPF_KRETPROBE(fd_kmulti_ret, long ret)
{
	return on_exit(bpf_get_attach_cookie(ctx), ret, true);
}

SEC("uprobe")
int BPF_KPROBE(fd_uprobe)
{
	return on_entry(ctx, FA_REGS, bpf_get_attach_cookie(ctx), false);
}

SEC("uretprobe")
int BPF_KRETPROBE(fd_uretprobe, long ret)
{
	return on_exit(bpf_get_attach_cookie(ctx), ret, false);
}

/* sys:NAME, through syscalls/sys_enter_NAME and sys_exit_NAME */
SEC("tracepoint")
int fd_sys_enter(void *ctx)
{
	return on_entry(ctx, FA_TP, bpf_get_attach_cookie(ctx), false);
}

/*
 * The same for a system call whose first n arguments are read, loaded
 * straight from its record: perf refuses to attach a program that loads
 * past the record's end, so the loader gives each call the one that
 * reads up to the last argument its specs name
 */
SEC("tracepoint")
int fd_sys_enter1(void *ctx)
{
	return on_entry(ctx, FA_SYS1, bpf_get_attach_cookie(ctx), false);
}

SEC("tracepoint")
int fd_sys_enter2(void *ctx)
{
	return on_entry(ctx, FA_SYS1 + 1, bpf_get_attach_cookie(ctx), false);
}

SEC("tracepoint")
int fd_sys_enter3(void *ctx)
{
	return on_entry(ctx, FA_SYS1 + 2, bpf_get_attach_cookie(ctx), false);
}

SEC("tracepoint")
int fd_sys_enter4(void *ctx)
{
	return on_entry(ctx, FA_SYS1 + 3, bpf_get_attach_cookie(ctx), false);
}

SEC("tracepoint")
int fd_sys_enter5(void *ctx)
{
	return on_entry(ctx, FA_SYS1 + 4, bpf_get_attach_cookie(ctx), false);
}

SEC("tracepoint")
int fd_sys_enter6(void *ctx)
{
	return on_entry(ctx, FA_SYS6, bpf_get_attach_cookie(ctx), false);
}

SEC("tracepoint")
int fd_sys_exit(struct trace_event_raw_sys_exit *ctx)
{
	return on_exit(bpf_get_attach_cookie(ctx), ctx->ret, false);
}

/*
 * -p and COMMAND: their new processes are followed (follow.bpf.h). Raw
 * tracepoints: they attach on every kernel that runs BPF at all.
 */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(fd_fork, struct task_struct *parent, struct task_struct *child)
{
	kfit_follow_fork(parent, child);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(fd_exit, struct task_struct *p)
{
	kfit_follow_exit(p);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
