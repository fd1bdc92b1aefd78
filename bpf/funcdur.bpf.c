// SPDX-License-Identifier: GPL-2.0
/*
 * funcdur: wall-time duration of every call of the traced functions.
 *
 * Each attachment carries the function's id as its BPF cookie (the mass
 * attacher, src/lib/attach.c, sets it, and kfit_ready once all are made). Calls are
 * kept on a stack per thread (per CPU for interrupt contexts), so nested,
 * recursive, sleeping and migrating calls are all measured right, and a
 * caller's local time is its time minus that of the traced callees.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kfit.bpf.h"
#include "kfit/funcdur.h"

/* Configuration, set by the loader before load */
const volatile __u32 self_tgid;		/* funcdur itself: never traced */
const volatile __u32 filter_tgid;
const volatile __u32 filter_tid;
const volatile bool filter_comm;
const volatile char comm[16];
const volatile __u64 filter_cgroup;	/* cgroup id, 0: any */
const volatile bool filter_cpu;		/* cpus[] says which */
const volatile bool noints;
const volatile bool onlyints;
const volatile __u64 min_ns;
const volatile __u64 max_ns;		/* 0: no maximum */
const volatile __u64 lin_step;
const volatile bool events;
const volatile __u32 start_id;		/* id + 1 of --start-at, 0: none */
const volatile __u32 stop_id;		/* id + 1 of --stop-at, 0: none */

/* 0: waiting for --start-at, 1: collecting, 2: stopped by --stop-at */
__u32 trigger_state;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct fd_stack);
} stacks SEC(".maps");

/* A zeroed stack to start from: too big for the BPF stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fd_stack);
} empty SEC(".maps");

/* max_entries set to 2 per traced function by the loader */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct fd_stat);
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
	__type(key, struct fd_edge);
	__type(value, __u64);
} edges SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} cpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, FD_NCOUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);	/* resized by the loader with --events */
} rb SEC(".maps");

/* x86 keeps preempt_count per CPU: __preempt_count, or inside pcpu_hot (6.2-6.14) */
struct pcpu_hot___kfit {
	int preempt_count;
} __attribute__((preserve_access_index));

extern const int __preempt_count __ksym __weak;
extern const struct pcpu_hot___kfit pcpu_hot __ksym __weak;

#define NMI_MASK_	0x00f00000
#define HARDIRQ_MASK_	0x000f0000
#define SOFTIRQ_OFFSET_	0x00000100

static __always_inline int preempt_count(void)
{
	if (&__preempt_count)
		return *(int *)bpf_this_cpu_ptr(&__preempt_count);
	if (&pcpu_hot)
		return BPF_CORE_READ((struct pcpu_hot___kfit *)
				     bpf_this_cpu_ptr(&pcpu_hot), preempt_count);
	return 0;
}

/*
 * Only kernel functions run in interrupts. User functions and system
 * calls pass kernel = false, which also keeps the per-CPU symbols out of
 * their programs: kernels without KALLSYMS_ALL cannot resolve them.
 */
static __always_inline enum fd_ctx context(bool kernel)
{
	int pc;

	if (!kernel)
		return FD_TASK;
	pc = preempt_count();

	if (pc & NMI_MASK_)
		return FD_NMI;
	if (pc & HARDIRQ_MASK_)
		return FD_HARDIRQ;
	if (pc & SOFTIRQ_OFFSET_)
		return FD_SOFTIRQ;
	return FD_TASK;
}

static __always_inline void count(enum fd_counter c)
{
	__u32 key = c;
	__u64 *v = bpf_map_lookup_elem(&counters, &key);

	if (v)
		(*v)++;
}

/* Interrupts do not migrate: their stacks are per CPU and context. */
static __always_inline __u64 stack_key(enum fd_ctx ctx, __u32 tid)
{
	if (ctx == FD_TASK)
		return tid;
	return ((__u64)ctx << 32) | bpf_get_smp_processor_id();
}

static __always_inline bool comm_matches(void)
{
	char c[16];
	int i;

	bpf_get_current_comm(c, sizeof(c));
	for (i = 0; i < 16; i++) {
		if (c[i] != comm[i])
			return false;
		if (!c[i])
			return true;
	}
	return true;
}

/* The filters that hold for a whole thread or context, checked at entry */
static __always_inline bool wanted(enum fd_ctx ctx, __u64 pid_tgid)
{
	__u32 cpu;
	__u8 *ok;

	if (noints && ctx != FD_TASK)
		return false;
	if (onlyints && ctx == FD_TASK)
		return false;
	/*
	 * In an interrupt, current is whoever was interrupted: the work is
	 * not that task's, so task filters leave interrupts out.
	 */
	if (ctx != FD_TASK && (filter_tgid || filter_tid || filter_comm ||
			       filter_cgroup))
		return false;
	if (ctx == FD_TASK) {
		if ((pid_tgid >> 32) == self_tgid)
			return false;
		if (filter_tgid && (pid_tgid >> 32) != filter_tgid)
			return false;
		if (filter_tid && (__u32)pid_tgid != filter_tid)
			return false;
		if (filter_comm && !comm_matches())
			return false;
		if (filter_cgroup && bpf_get_current_cgroup_id() != filter_cgroup)
			return false;
	}
	if (filter_cpu) {
		cpu = bpf_get_smp_processor_id();
		ok = bpf_map_lookup_elem(&cpus, &cpu);
		if (!ok || !*ok)
			return false;
	}
	return true;
}

static __always_inline bool collecting(__u32 id)
{
	if (start_id && trigger_state == 0 && start_id == id + 1)
		trigger_state = 1;
	if (start_id)
		return trigger_state == 1;
	return trigger_state != 2;
}

/* Bounds-checked frame access the verifier can follow */
static __always_inline struct fd_frame *frame(struct fd_stack *st, __u32 i)
{
	asm volatile("" : "+r"(i));
	if (i >= FD_MAX_DEPTH)
		return NULL;
	return &st->f[i];
}

static __always_inline int on_entry(__u32 id, bool kernel)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	enum fd_ctx ctx = context(kernel);
	struct fd_stack *st;
	struct fd_frame *f;
	__u64 key;
	__u32 d, zero = 0;

	if (!kfit_ready || !wanted(ctx, pid_tgid) || !collecting(id))
		return 0;
	key = stack_key(ctx, pid_tgid);
	st = bpf_map_lookup_elem(&stacks, &key);
	if (!st) {
		st = bpf_map_lookup_elem(&empty, &zero);
		if (!st)
			return 0;
		st->depth = 0;
		if (bpf_map_update_elem(&stacks, &key, st, BPF_NOEXIST) &&
		    bpf_map_update_elem(&stacks, &key, st, BPF_ANY)) {
			count(FD_NO_STACK);
			return 0;
		}
		st = bpf_map_lookup_elem(&stacks, &key);
		if (!st)
			return 0;
	}
	d = st->depth;
	f = frame(st, d);
	if (!f) {
		count(FD_DEEP);
		return 0;
	}
	f->id = id;
	f->child_ns = 0;
	st->depth = d + 1;
	f->ts = bpf_ktime_get_ns();
	return 0;
}

static __always_inline void emit(__u32 id, __u64 dur, __s64 ret, __u64 pid_tgid,
				 enum fd_ctx ctx)
{
	struct fd_event *e = bpf_ringbuf_reserve(&rb, sizeof(*e), 0);

	if (!e) {
		count(FD_LOST_EVENTS);
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

static __always_inline void record(__u32 id, __u64 dur, __u64 local, __s64 ret,
				   __u64 pid_tgid, enum fd_ctx ctx)
{
	__u32 key = fd_key(kfit_half(), id);
	struct fd_stat *s = bpf_map_lookup_elem(&stats, &key);

	if (!s)
		return;
	if (dur < min_ns || (max_ns && dur > max_ns)) {
		s->filtered++;
		return;
	}
	kfit_hist_put(&s->h, dur);
	s->local_ns += local;
	if (lin_step)
		kfit_linhist_add(&linhists, key, dur, lin_step);
	if (events)
		emit(id, dur, ret, pid_tgid, ctx);
}

/* The caller's frame (index d - 1) gets the callee's time */
static __always_inline void charge_parent(struct fd_stack *st, __u32 d,
					  __u32 id, __u64 dur)
{
	struct fd_edge e = { .half = kfit_half(), .child = id };
	struct fd_frame *p;
	__u64 *v, one;

	if (d == 0)
		return;
	p = frame(st, d - 1);
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

static __always_inline int on_exit(__u32 id, __s64 ret, bool kernel)
{
	__u64 now = bpf_ktime_get_ns();
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	enum fd_ctx ctx = context(kernel);
	struct fd_stack *st;
	__u64 key = stack_key(ctx, pid_tgid);
	struct fd_frame *f = NULL;
	__u64 dur, local, ts, child;
	__u32 d, i;

	if (!kfit_ready)
		return 0;
	st = bpf_map_lookup_elem(&stacks, &key);
	if (!st)
		return 0;
	/*
	 * The frame is the innermost one with this id; frames above it
	 * lost their exits (longjmp, exceptions, probes attached late).
	 */
	d = st->depth;
	for (i = 0; i < FD_MAX_DEPTH; i++) {
		if (i >= d) {
			count(FD_UNMATCHED);
			return 0;
		}
		f = frame(st, d - 1 - i);
		if (!f)
			return 0;
		if (f->id == id)
			break;
	}
	if (!f || f->id != id)
		return 0;
	d -= i;			/* the frame's index is d - 1 */
	ts = f->ts;
	child = f->child_ns;
	st->depth = d - 1;
	dur = now > ts ? now - ts : 0;
	local = dur > child ? dur - child : 0;
	charge_parent(st, d - 1, id, dur);
	record(id, dur, local, ret, pid_tgid, ctx);
	if (stop_id == id + 1)
		trigger_state = 2;
	return 0;
}

SEC("fentry")
int BPF_PROG(fd_fentry)
{
	return on_entry(bpf_get_attach_cookie(ctx), true);
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
	return on_entry(bpf_get_attach_cookie(ctx), true);
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
	return on_entry(bpf_get_attach_cookie(ctx), true);
}

SEC("kretprobe.multi")
int BPF_KRETPROBE(fd_kmulti_ret, long ret)
{
	return on_exit(bpf_get_attach_cookie(ctx), ret, true);
}

SEC("uprobe")
int BPF_KPROBE(fd_uprobe)
{
	return on_entry(bpf_get_attach_cookie(ctx), false);
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
	return on_entry(bpf_get_attach_cookie(ctx), false);
}

SEC("tracepoint")
int fd_sys_exit(struct trace_event_raw_sys_exit *ctx)
{
	return on_exit(bpf_get_attach_cookie(ctx), ctx->ret, false);
}

char LICENSE[] SEC("license") = "GPL";
