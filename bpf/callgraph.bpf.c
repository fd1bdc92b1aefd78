// SPDX-License-Identifier: GPL-2.0
/*
 * callgraph: every call of the traced functions, as one record written
 * into the ring buffer rb when it returns (include/kfit/rec.h), with its
 * entry time and its depth on its stack: user space rebuilds the trees
 * from returns alone (src/lib/tree/calltree.c).
 *
 * With many CPUs the records are spread over nrings ring buffers, each
 * stack's in one of them (ring_of), so that its records keep their order.
 * Events (-e) are staged per CPU and context and go into the ring in
 * batches, one sample of many records (kfit/callgraph.h's cg_stage).
 *
 * Calls nest on the stacks of fcall.bpf.h (per thread; per CPU for
 * interrupts). The attacher (src/live/attach.c) gives each function its
 * id as cookie, and sets kfit_ready once all are attached. Around the
 * calls: context switches (off-CPU time of the open calls, split into
 * preempted and blocked), interrupts that ran traced calls or struck a
 * task inside one, fork, exec and exit (frames that never return are
 * written as incomplete, never dropped), tracepoints chosen with -e, and
 * in sampled mode perf-event samples of kernel and user stacks.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kfit.bpf.h"
#include "fcall.bpf.h"
#include "fargs.bpf.h"
#include "kfit/callgraph.h"

/* Configuration, set by the loader before load; the filters: fcall.bpf.h */
const volatile __u32 root_id;		/* id + 1 of --root, 0: none */
const volatile __u32 max_depth;		/* -D: calls recorded at depths below it, 0: any */
const volatile __u64 min_ns;		/* --min */
const volatile __u64 max_ns;		/* --max, 0: none */
const volatile __u64 wake_bytes;	/* wake the reader once a ring holds this much */
const volatile __u32 nrings = 1;	/* ring buffers: rb alone, or rings */
const volatile bool have_args;		/* some function's calls capture arguments */
const volatile bool all_task_records;	/* fork/exec/exit of every chosen task, */
					/* not only of those with traced calls */
const volatile __u32 ustack_bytes;	/* --call-graph dwarf: user stack bytes copied a sample, 0: fp */
const volatile __u32 nevents;		/* -e: the events chosen, staged per CPU (stage) */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, CG_MAX_STACKS);
	__type(key, __u64);
	__type(value, struct cg_stack);
} stacks SEC(".maps");

/*
 * Stacks are too big for the BPF stack: new ones are made here, one slot
 * per context (an interrupt may strike while a task makes one), the last
 * for a child's at fork.
 */
#define SCRATCH_FORK	KFIT_NCTX

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KFIT_NCTX + 1);
	__type(key, __u32);
	__type(value, struct cg_stack);
} scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CG_NCOUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);	/* sized by the loader (-b) */
} rb SEC(".maps");

/*
 * nrings > 1: the rings, rb the first, the others made by the loader
 * (max_entries here: a template; the loader sets nrings). A ring's
 * reserve takes its spinlock: fewer CPUs writing into each, less waiting.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct {
		__uint(type, BPF_MAP_TYPE_RINGBUF);
		__uint(max_entries, 4096);
	});
} rings SEC(".maps");

/* The interrupt running on a CPU, per context (softirq, hardirq) */
struct cg_irq {
	__u64 ts;		/* its start, 0: none */
	__u64 pid_tgid;		/* the task it struck */
	__u32 vec;
	__u32 ncalls;		/* traced calls recorded inside */
	__u32 struck;		/* it struck a task inside a recorded call */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KFIT_NCTX);
	__type(key, __u32);
	__type(value, struct cg_irq);
} irqs SEC(".maps");

/* -e: the size of each event's raw record (max_entries: the events) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} ev_size SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kfit_rec_sample);
} samples SEC(".maps");

/*
 * --call-graph dwarf: a sample's copy of the user stack, a slot per CPU
 * (max_entries: the CPUs; a per-CPU map's value is at most 32 KiB). One
 * perf-event program runs on a CPU at a time.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cg_ustack);
} ustacks SEC(".maps");

/* Records staged, per CPU and context (kfit/callgraph.h) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KFIT_NCTX);
	__type(key, __u32);
	__type(value, struct cg_stage);
} stage SEC(".maps");

static __always_inline void count(enum cg_counter c)
{
	kfit_count(&counters, c);
}

/* ---- whose calls ------------------------------------------------------ */

/* The task (in an interrupt: the one struck) passes -p/-t/--comm, is followed */
static __always_inline bool task_chosen(__u64 pid_tgid)
{
	return fc_task_wanted(pid_tgid);
}

/*
 * Interrupts count for the tasks they strike: with task filters, the
 * calls of an interrupt are recorded when it struck a chosen task.
 */
static __always_inline bool wanted(enum kfit_ctx c, __u64 pid_tgid)
{
	if (noints && c != KFIT_CTX_TASK)
		return false;
	if (onlyints && c == KFIT_CTX_TASK)
		return false;
	if ((c == KFIT_CTX_TASK || fc_task_filters()) &&
	    !task_chosen(pid_tgid))
		return false;
	return fc_cpu_wanted();
}

/* ---- records ---------------------------------------------------------- */

/*
 * The ring of a stack: the decoder needs each stack's records in the
 * order they were written (a call after its callees). A task's go to the
 * ring of its tid, whatever CPU it runs on; an interrupt's (its stacks
 * are per CPU) to its CPU's. Records of different stacks may come in any
 * order: the decoder places them by time. One ring: rb, no lookup.
 */
static __always_inline void *ring_of(enum kfit_ctx c, __u32 tid)
{
	__u32 k;

	if (nrings <= 1)
		return &rb;
	if (c == KFIT_CTX_TASK)
		k = (tid * 2654435761u) >> 16;
	else
		k = bpf_get_smp_processor_id();
	k %= nrings;
	return bpf_map_lookup_elem(&rings, &k);
}

/* Batched wake-ups: the reader polls every 100 ms, or is woken when it fills */
static __always_inline __u64 wake_flag(void *ring)
{
	return bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) > wake_bytes ?
	       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

static __always_inline void submit(void *ring, void *r)
{
	bpf_ringbuf_submit(r, wake_flag(ring));
}

static __always_inline void head(struct kfit_rec *h, __u8 type, __u8 ctx,
				 __u8 flags, __u16 size, __u64 pid_tgid, __u64 ts)
{
	h->type = type;
	h->ctx = ctx;
	h->flags = flags;
	h->pad = 0;
	h->size = size;
	h->cpu = bpf_get_smp_processor_id();
	h->pid = pid_tgid >> 32;
	h->tid = (__u32)pid_tgid;
	h->ts = ts;
}

static __always_inline void *reserve(void *ring, __u32 size)
{
	void *r = ring ? bpf_ringbuf_reserve(ring, size, 0) : NULL;

	if (!r)
		count(CG_LOST);
	return r;
}

/* ---- staging ---------------------------------------------------------- */

/*
 * Context c's staging buffer on this CPU, taken; NULL with no event (-e)
 * or a program this one interrupted is at it (it then writes directly).
 * Programs nest on a CPU, never overlap: a plain flag is enough.
 */
static __always_inline struct cg_stage *stage_take(enum kfit_ctx c)
{
	__u32 key = c;
	struct cg_stage *s;

	if (!nevents)
		return NULL;
	s = bpf_map_lookup_elem(&stage, &key);
	if (!s || s->busy)
		return NULL;
	s->busy = 1;
	asm volatile("" ::: "memory");
	return s;
}

static __always_inline void stage_give(struct cg_stage *s)
{
	asm volatile("" ::: "memory");
	s->busy = 0;
}

/*
 * What s holds into ring, as one sample; a full ring loses all its
 * records. len is bounded right before the output: 6.1's verifier loses
 * the bound of a value spilled around a helper call (the ring's query).
 */
static __always_inline void stage_flush(struct cg_stage *s, void *ring)
{
	__u64 len = s->len, wake;
	__u32 n = s->nrecs;

	if (!len)
		return;
	s->len = 0;
	s->nrecs = 0;
	if (!ring) {
		kfit_count_n(&counters, CG_LOST, n);
		return;
	}
	wake = wake_flag(ring);
	asm volatile("" : "+r"(len));
	if (len > CG_STAGE_BYTES)
		return;
	if (bpf_ringbuf_output(ring, s->buf, len, wake))
		kfit_count_n(&counters, CG_LOST, n);
}

/*
 * Before a record of context c (of task tid) goes to its ring directly:
 * what c staged on this CPU goes first, so that a stack's records keep
 * their order
 */
static __always_inline void stage_sync(enum kfit_ctx c, __u32 tid)
{
	struct cg_stage *s = stage_take(c);

	if (!s)
		return;
	if (s->len)
		stage_flush(s, ring_of(c, tid));
	stage_give(s);
}

/*
 * Room for size bytes (a constant) at the end of s, context c's of task
 * tid, or NULL; what s holds goes to its ring first when it is full or
 * its first record has waited long
 */
static __always_inline void *stage_room(struct cg_stage *s, enum kfit_ctx c, __u32 tid,
					const __u32 size, __u64 now)
{
	__u32 len = s->len;

	if (len > CG_STAGE_BYTES - size || (len && now - s->first_ts > CG_STAGE_AGE_NS)) {
		stage_flush(s, ring_of(c, tid));
		len = 0;
	}
	if (!len)
		s->first_ts = now;
	len &= ~7U;
	if (len > CG_STAGE_BYTES - size)
		return NULL;
	return s->buf + len;
}

/* The record of size bytes at the end of s is whole: staged */
static __always_inline void stage_put(struct cg_stage *s, __u32 size)
{
	s->len = (s->len & ~7U) + size;
	s->nrecs++;
}

/* A call recorded in an interrupt counts for the interrupt's record */
static __always_inline void irq_call(enum kfit_ctx c)
{
	__u32 key = c;
	struct cg_irq *q = bpf_map_lookup_elem(&irqs, &key);

	if (q && q->ts)
		q->ncalls++;
}

/* A call's arguments after its record's ret, nstr strings of them */
static __always_inline void put_args(struct kfit_rec_call *r, const struct kfit_argvals *av,
				     __u32 nstr)
{
	struct kfit_rec_args *a = (void *)(r + 1);

	a->ok = av->ok;
	a->nstr = nstr;
	__builtin_memset(a->pad, 0, sizeof(a->pad));
	__builtin_memcpy(a->v, av->v, sizeof(a->v));
	if (nstr > 0)
		__builtin_memcpy(a->s[0], av->s[0], KFIT_ARG_STRLEN);
	if (nstr > 1)
		__builtin_memcpy(a->s[1], av->s[1], KFIT_ARG_STRLEN);
}

#define CALL_SIZE(nstr)	(sizeof(struct kfit_rec_call) + KFIT_REC_ARGS_SIZE(nstr))

/*
 * A call's record, with room for its arguments when it has some (av),
 * those put in: a size the verifier knows in each case
 */
static __always_inline struct kfit_rec_call *reserve_call(void *ring,
							  const struct kfit_argvals *av,
							  __u32 nstr)
{
	struct kfit_rec_call *r;

	if (!av)
		return reserve(ring, sizeof(*r));
	if (nstr == 0) {
		r = reserve(ring, CALL_SIZE(0));
		if (r)
			put_args(r, av, 0);
	} else if (nstr == 1) {
		r = reserve(ring, CALL_SIZE(1));
		if (r)
			put_args(r, av, 1);
	} else {
		r = reserve(ring, CALL_SIZE(2));
		if (r)
			put_args(r, av, 2);
	}
	return r;
}

/*
 * A call's record; a call that returned (flags 0) with its return
 * register as it is: user space reads it through the function's kind,
 * which spares every call a lookup here. av: its arguments, nstr strings.
 */
static __always_inline void write_call(struct cg_stack *st, struct fc_frame *f,
				       struct cg_frame *x, __u64 dur, __u8 flags,
				       __u64 pid_tgid, enum kfit_ctx c, __u64 reg,
				       const struct kfit_argvals *av, __u32 nstr)
{
	void *ring = ring_of(c, (__u32)pid_tgid);
	struct kfit_rec_call *r;
	bool returned = !(flags & KFIT_RF_INCOMPLETE);

	nstr = nstr > KFIT_ARG_STRS ? KFIT_ARG_STRS : nstr;
	stage_sync(c, (__u32)pid_tgid);
	r = reserve_call(ring, av, nstr);
	if (!r)
		return;
	if (f->flags & FC_F_FORKED)
		flags |= KFIT_RF_FORKED;
	head(&r->h, KFIT_REC_CALL, c, flags, av ? CALL_SIZE(nstr) : sizeof(*r), pid_tgid,
	     f->ts);
	r->dur = dur;
	r->off_blocked = st->blocked - x->blocked;
	r->off_preempt = st->preempt - x->preempt;
	r->id = f->id;
	r->depth = x->rdepth;
	r->cflags = (returned ? KFIT_CF_RET : 0) | (av ? KFIT_CF_ARGS : 0);
	r->dropped = x->dropped;
	r->pad2 = 0;
	r->ret = returned ? reg : 0;
	submit(ring, r);
	if (c != KFIT_CTX_TASK)
		irq_call(c);
}

static __always_inline void write_task(__u8 type, __u64 pid_tgid, __u32 cpid,
				       __u32 ctid)
{
	void *ring = ring_of(KFIT_CTX_TASK, (__u32)pid_tgid);
	struct kfit_rec_task *r;

	stage_sync(KFIT_CTX_TASK, (__u32)pid_tgid);
	r = reserve(ring, sizeof(*r));
	if (!r)
		return;
	head(&r->h, type, KFIT_CTX_TASK, 0, sizeof(*r), pid_tgid, bpf_ktime_get_ns());
	r->child_pid = cpid;
	r->child_tid = ctid;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	submit(ring, r);
}

/* ---- stacks ----------------------------------------------------------- */

static __always_inline struct cg_frame *cg_ext(struct cg_stack *st, __u32 i)
{
	asm volatile("" : "+r"(i));
	if (i >= FC_MAX_DEPTH)
		return NULL;
	return &st->x[i];
}

static __always_inline void stack_init(struct cg_stack *st, __u32 pid, __u32 tid)
{
	st->s.depth = 0;
	st->s.overflow = 0;
	st->blocked = 0;
	st->preempt = 0;
	st->off_ts = 0;
	st->off_state = 0;
	st->off_depth = 0;
	st->pid = pid;
	st->tid = tid;
	st->root = 0;
	st->nargs = 0;
	st->s.slot = have_args ? fa_new_slot() : 0;
}

static __always_inline struct cg_stack *new_stack(__u64 key, enum kfit_ctx c,
						  __u64 pid_tgid)
{
	__u32 slot = c;
	struct cg_stack *st = bpf_map_lookup_elem(&scratch, &slot);

	if (!st)
		return NULL;
	if (c == KFIT_CTX_TASK)
		stack_init(st, pid_tgid >> 32, (__u32)pid_tgid);
	else
		stack_init(st, 0, 0);
	bpf_map_update_elem(&stacks, &key, st, BPF_NOEXIST);
	st = bpf_map_lookup_elem(&stacks, &key);
	if (!st)
		count(CG_NO_STACK);
	return st;
}

/* Recorded calls open on st: those of --root's invocation, or all */
static __always_inline __u32 open_recorded(struct cg_stack *st)
{
	__u32 d = st->s.depth, base = 0;

	if (root_id) {
		if (!st->root)
			return 0;
		base = st->root - 1;
	}
	d = d > base ? d - base : 0;
	return max_depth && d > max_depth ? max_depth : d;
}

/* ---- arguments -------------------------------------------------------- */

/*
 * A recorded call's arguments, into the next place of its stack's slot
 * (x->args says which): places are taken and freed in call order, so an
 * exec's or a longjmp's frames left below only waste theirs for a while
 */
static __always_inline struct kfit_argvals *take_args(void *ctx, enum fa_how how,
						      struct cg_stack *st,
						      struct cg_frame *x, __u32 id)
{
	const struct kfit_fargs *fa = bpf_map_lookup_elem(&fargs, &id);
	struct kfit_argvals *av;

	if (!fa || !fa->on)
		return NULL;
	av = fa_frame(st->s.slot, st->nargs);
	if (!av) {
		count(CG_NO_ARGS);
		return NULL;
	}
	fa_capture(ctx, how, fa, av);
	st->nargs++;
	x->args = st->nargs;
	return av;
}

/*
 * The arguments of frame f's call, NULL when it has none or they were
 * lost (counted), *nstr the strings its function keeps; strings that
 * faulted at entry are read again when it returned (fa_at_exit)
 */
static __always_inline const struct kfit_argvals *frame_args(struct cg_stack *st,
							     struct fc_frame *f,
							     struct cg_frame *x, bool returned,
							     __u32 *nstr)
{
	const struct kfit_fargs *fa;
	struct kfit_argvals *av;
	__u32 id = f->id;
	bool faulted;

	*nstr = 0;
	if (!have_args || !x->args)
		return NULL;
	av = fa_at_exit(st->s.slot, x->args - 1, id, f->ts, returned, &faulted);
	if (!av) {
		count(CG_NO_ARGS);
		return NULL;
	}
	if (faulted)
		count(CG_STR_FAULT);
	fa = bpf_map_lookup_elem(&fargs, &id);
	*nstr = fa ? fa->nstr : 0;
	return av;
}

/*
 * Loops that pop go through bpf_loop: the verifier checks the body once,
 * not once per turn (which would make each fentry copy slow to load).
 */
struct pops {
	struct cg_stack *st;
	__u64 now;
	__u64 pid_tgid;
	__u64 sp;		/* pop_jumped: the new call's stack pointer */
	__u64 reg;		/* a return's: the return register */
	__u32 why;
	__u32 ctx;
	__u32 until;		/* pop_one: the depth to stop at */
};

/*
 * Pop the innermost frame of p->st: written if recorded and, for a
 * return (why 0, its register in reg), inside --min/--max; why is the
 * reason of an incomplete call (its JUMPED only for user frames). A call
 * left out is counted, with those it left out, by its caller.
 */
static __noinline void pop_top(struct pops *p)
{
	struct cg_stack *st = p->st;
	__u32 i = st->s.depth - 1, why = p->why, nstr;
	const struct kfit_argvals *av;
	struct cg_frame *x, *px;
	struct fc_frame *f;
	__u64 dur;

	f = fc_frame_at(&st->s, i);
	x = cg_ext(st, i);
	if (!f || !x)
		return;
	st->s.depth = i;
	if (st->root == i + 1)
		st->root = 0;
	/* its arguments' place is free again (an empty stack frees all) */
	if (x->args)
		st->nargs = x->args - 1;
	if (!i)
		st->nargs = 0;
	dur = p->now > f->ts ? p->now - f->ts : 0;
	if (!(f->flags & FC_F_USER))
		why &= ~KFIT_RF_JUMPED;
	if ((f->flags & FC_F_REC) &&
	    (why || (dur >= min_ns && (!max_ns || dur <= max_ns)))) {
		av = frame_args(st, f, x, !why, &nstr);
		write_call(st, f, x, dur, why, p->pid_tgid, p->ctx, p->reg, av, nstr);
		return;
	}
	px = i ? cg_ext(st, i - 1) : NULL;
	if (px)
		px->dropped += x->dropped + 1;
}

static long pop_one(__u32 i, void *data)
{
	struct pops *p = data;

	if (p->st->s.depth <= p->until)
		return 1;
	pop_top(p);
	return 0;
}

/* Pop frames down to depth d, as incomplete for why */
static __always_inline void pop_to(struct cg_stack *st, __u32 d, __u64 now,
				   __u32 why, __u64 pid_tgid, enum kfit_ctx c)
{
	struct pops p = {
		.st = st, .now = now, .pid_tgid = pid_tgid, .why = why, .ctx = c,
		.until = d,
	};

	if (st->s.depth > d)
		bpf_loop(FC_MAX_DEPTH, pop_one, &p, 0);
}

/*
 * A tail call enters at the stack pointer of the frame it replaces,
 * whose return address uprobes has already turned into their trampoline.
 */
static __always_inline bool tail_call(__u64 sp)
{
	struct task_struct *t = (void *)bpf_get_current_task();
	__u64 ret = 0, tramp;

	tramp = BPF_CORE_READ(t, mm, uprobes_state.xol_area, vaddr);
	if (bpf_probe_read_user(&ret, sizeof(ret), (void *)sp))
		return false;
	return tramp && ret == tramp;
}

/*
 * At a user function's entry the task runs user code: kernel frames still
 * open lost their returns, and user frames entered at or below this stack
 * pointer were left by a longjmp (the stack grows down).
 */
static long pop_jumped(__u32 i, void *data)
{
	struct pops *p = data;
	struct fc_frame *f = fc_frame_at(&p->st->s, p->st->s.depth - 1);

	if (!f)
		return 1;
	if ((f->flags & FC_F_USER) &&
	    (f->sp > p->sp || (f->sp == p->sp && tail_call(p->sp))))
		return 1;
	pop_top(p);
	return 0;
}

static __always_inline void drop_jumped(struct cg_stack *st, __u64 sp, __u64 pid_tgid)
{
	struct pops p = {
		.st = st, .now = bpf_ktime_get_ns(), .pid_tgid = pid_tgid, .sp = sp,
		.why = KFIT_RF_INCOMPLETE | KFIT_RF_JUMPED, .ctx = KFIT_CTX_TASK,
	};

	if (!st->s.overflow)
		bpf_loop(FC_MAX_DEPTH, pop_jumped, &p, 0);
}

/*
 * A task's user frames are the bottom of its stack (a user function runs
 * no kernel function of its task's, nor returns with one open): how many
 * there are, and how many of them are recorded (*rec).
 */
static __always_inline __u32 user_frames(struct cg_stack *st, __u32 *rec)
{
	struct fc_frame *f;
	__u32 i, d = st->s.depth, n = 0;

	*rec = 0;
	for (i = 0; i < FC_MAX_DEPTH; i++) {
		f = fc_frame_at(&st->s, i);
		if (i >= d || !f || !(f->flags & FC_F_USER))
			break;
		*rec += (f->flags >> 1) & 1;	/* FC_F_REC, without a branch */
		n++;
	}
	return n;
}

/* ---- calls ------------------------------------------------------------ */

static __always_inline int on_entry(void *ctx, enum fa_how how, __u32 id, bool kernel,
				    __u64 sp)
{
	struct kfit_argvals *av = NULL;
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	enum kfit_ctx c = fc_context(kernel);
	bool is_root = root_id == id + 1;
	struct cg_stack *st;
	struct fc_frame *f;
	struct cg_frame *x;
	__u32 d, base;
	__u64 key;

	if (!kfit_ready || !wanted(c, pid_tgid))
		return 0;
	key = fc_stack_key(c, pid_tgid);
	st = bpf_map_lookup_elem(&stacks, &key);
	if (!st) {
		/* outside --root's invocations nothing is kept */
		if (root_id && !is_root)
			return 0;
		st = new_stack(key, c, pid_tgid);
		if (!st)
			return 0;
	}
	if (sp && st->s.depth)
		drop_jumped(st, sp, pid_tgid);
	if (root_id && !st->root && !is_root)
		return 0;
	d = st->s.depth;
	x = cg_ext(st, d);
	f = fc_push(&st->s);
	if (!f || !x) {
		count(CG_DEEP);
		return 0;
	}
	if (root_id && !st->root)
		st->root = d + 1;
	base = root_id ? st->root - 1 : 0;
	x->rdepth = d - base;
	x->dropped = 0;
	x->blocked = st->blocked;
	x->preempt = st->preempt;
	f->id = id;
	f->flags = (sp ? FC_F_USER : 0) |
		   (!max_depth || d - base < max_depth ? FC_F_REC : 0);
	f->sp = sp;
	x->args = 0;
	if (have_args && (f->flags & FC_F_REC))
		av = take_args(ctx, how, st, x, id);
	f->ts = bpf_ktime_get_ns();
	if (av)
		av->stamp = f->ts;	/* theirs: the frame's entry */
	return 0;
}

/* A return of id, its return register reg */
static __always_inline int on_exit(__u32 id, bool kernel, bool user, __u64 reg)
{
	__u64 now = bpf_ktime_get_ns();
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	enum kfit_ctx c = fc_context(kernel);
	struct cg_stack *st;
	struct fc_frame *f;
	struct pops p;
	__u32 i;

	st = fc_stack_of(&stacks, c, pid_tgid);
	if (!kfit_ready || !st)
		return 0;
	f = fc_find(&st->s, id, &i);
	if (!f) {
		/* with --root, returns from outside it are expected */
		if (i == FC_NONE && !root_id)
			count(CG_UNMATCHED);
		return 0;
	}
	/* frames above it never returned: a user function's, by longjmp */
	pop_to(st, i + 1, now, KFIT_RF_INCOMPLETE | (user ? KFIT_RF_JUMPED : 0),
	       pid_tgid, c);
	p = (struct pops){ .st = st, .now = now, .pid_tgid = pid_tgid, .reg = reg, .ctx = c };
	pop_top(&p);
	return 0;
}

SEC("fentry")
int BPF_PROG(cg_fentry)
{
	return on_entry(ctx, FA_FENTRY, bpf_get_attach_cookie(ctx), true, 0);
}

SEC("fexit")
int BPF_PROG(cg_fexit)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	return on_exit(bpf_get_attach_cookie(ctx), true, false, ret);
}

SEC("kprobe")
int BPF_KPROBE(cg_kprobe)
{
	return on_entry(ctx, FA_REGS, bpf_get_attach_cookie(ctx), true, 0);
}

SEC("kretprobe")
int BPF_KRETPROBE(cg_kretprobe, long ret)
{
	return on_exit(bpf_get_attach_cookie(ctx), true, false, ret);
}

SEC("kprobe.multi")
int BPF_KPROBE(cg_kmulti)
{
	return on_entry(ctx, FA_REGS, bpf_get_attach_cookie(ctx), true, 0);
}

SEC("kretprobe.multi")
int BPF_KRETPROBE(cg_kmulti_ret, long ret)
{
	return on_exit(bpf_get_attach_cookie(ctx), true, false, ret);
}

SEC("uprobe")
int BPF_KPROBE(cg_uprobe)
{
	__u64 sp = PT_REGS_SP(ctx);

	/* sp 0 would say "kernel": no user stack is ever at 0 */
	return on_entry(ctx, FA_REGS, bpf_get_attach_cookie(ctx), false, sp ? sp : 1);
}

SEC("uretprobe")
int BPF_KRETPROBE(cg_uretprobe, long ret)
{
	return on_exit(bpf_get_attach_cookie(ctx), false, true, ret);
}

/* sys:NAME, through syscalls/sys_enter_NAME and sys_exit_NAME */
SEC("tracepoint")
int cg_sys_enter(void *ctx)
{
	return on_entry(ctx, FA_TP, bpf_get_attach_cookie(ctx), false, 0);
}

/*
 * The same for a system call whose first n arguments are read, loaded
 * straight from its record (fargs.bpf.h's FA_SYS1 + n - 1): the attacher
 * gives each call the one reading up to the last argument its specs name
 */
SEC("tracepoint")
int cg_sys_enter1(void *ctx)
{
	return on_entry(ctx, FA_SYS1, bpf_get_attach_cookie(ctx), false, 0);
}

SEC("tracepoint")
int cg_sys_enter2(void *ctx)
{
	return on_entry(ctx, FA_SYS1 + 1, bpf_get_attach_cookie(ctx), false, 0);
}

SEC("tracepoint")
int cg_sys_enter3(void *ctx)
{
	return on_entry(ctx, FA_SYS1 + 2, bpf_get_attach_cookie(ctx), false, 0);
}

SEC("tracepoint")
int cg_sys_enter4(void *ctx)
{
	return on_entry(ctx, FA_SYS1 + 3, bpf_get_attach_cookie(ctx), false, 0);
}

SEC("tracepoint")
int cg_sys_enter5(void *ctx)
{
	return on_entry(ctx, FA_SYS1 + 4, bpf_get_attach_cookie(ctx), false, 0);
}

SEC("tracepoint")
int cg_sys_enter6(void *ctx)
{
	return on_entry(ctx, FA_SYS6, bpf_get_attach_cookie(ctx), false, 0);
}

SEC("tracepoint")
int cg_sys_exit(struct trace_event_raw_sys_exit *ctx)
{
	return on_exit(bpf_get_attach_cookie(ctx), false, false, ctx->ret);
}

/* ---- context switches ------------------------------------------------- */

/* The state a task left the CPU in, as ps shows it (TASK_REPORT) */
static __always_inline __u32 sleep_state(__u32 state)
{
	__u32 s = state & 0x7f;

	return s ? s : state;
}

static __always_inline int on_switch(bool preempt, struct task_struct *prev,
				     struct task_struct *next, unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns(), key, dur;
	struct kfit_rec_switch *r;
	void *ring;
	struct cg_stack *st;

	if (!kfit_ready)
		return 0;
	key = BPF_CORE_READ(prev, pid);
	/* what prev staged here, before it runs elsewhere */
	stage_sync(KFIT_CTX_TASK, key);
	st = key ? bpf_map_lookup_elem(&stacks, &key) : NULL;
	if (st && st->s.depth) {
		st->off_ts = now;
		st->off_state = preempt ? 0 : sleep_state(prev_state);
		st->off_depth = open_recorded(st);
	}
	key = BPF_CORE_READ(next, pid);
	st = key ? bpf_map_lookup_elem(&stacks, &key) : NULL;
	if (!st || !st->off_ts)
		return 0;
	dur = now > st->off_ts ? now - st->off_ts : 0;
	if (st->off_state)
		st->blocked += dur;
	else
		st->preempt += dur;
	if (st->off_depth) {
		ring = ring_of(KFIT_CTX_TASK, st->tid);
		r = reserve(ring, sizeof(*r));
		if (r) {
			head(&r->h, KFIT_REC_SWITCH, KFIT_CTX_TASK, 0, sizeof(*r),
			     ((__u64)st->pid << 32) | st->tid, st->off_ts);
			r->dur = dur;
			r->state = st->off_state;
			r->depth = st->off_depth;
			submit(ring, r);
		}
	}
	st->off_ts = 0;
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(switch_btf, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	return on_switch(preempt, prev, next, prev_state);
}

SEC("raw_tp/sched_switch")
int BPF_PROG(switch_raw, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	return on_switch(preempt, prev, next, prev_state);
}

/* ---- fork, exec, exit ------------------------------------------------- */

/*
 * A child made by fork (its own mm) or vfork gets its parent's return
 * probes from the kernel: its stack starts with its parent's open user
 * frames. Threads share the mm and start with none.
 */
struct copy {
	struct cg_stack *from, *to;
	__u64 now;
	__u64 pid_tgid;
	__u32 n;		/* user frames */
	__u32 rec;		/* of them recorded */
};

/* Frame i of the parent's to the child's, its own from now on */
static long fork_one(__u32 i, void *data)
{
	struct copy *c = data;
	struct fc_frame *f = fc_frame_at(&c->from->s, i), *g = fc_frame_at(&c->to->s, i);
	struct cg_frame *x = cg_ext(c->from, i), *y = cg_ext(c->to, i);

	if (!f || !g || !x || !y)
		return 1;
	*g = *f;
	g->flags |= FC_F_FORKED;
	y->rdepth = x->rdepth;
	y->args = 0;		/* the parent's place: not the child's slot */
	y->blocked = 0;
	y->preempt = 0;
	y->dropped = 0;
	return 0;
}

static __always_inline void fork_frames(struct task_struct *parent,
					struct task_struct *child,
					__u32 ctgid, __u32 ctid)
{
	__u32 slot = SCRATCH_FORK;
	__u64 key = BPF_CORE_READ(parent, pid);
	struct copy c = { 0 };

	if (BPF_CORE_READ(child, mm) == BPF_CORE_READ(parent, mm) &&
	    !BPF_CORE_READ(child, vfork_done))
		return;
	c.from = bpf_map_lookup_elem(&stacks, &key);
	c.to = bpf_map_lookup_elem(&scratch, &slot);
	if (!c.from || !c.to)
		return;
	c.n = user_frames(c.from, &c.rec);
	if (!c.n)
		return;
	stack_init(c.to, ctgid, ctid);
	bpf_loop(c.n, fork_one, &c, 0);
	c.to->s.depth = c.n;
	c.to->root = c.from->root <= c.n ? c.from->root : 0;
	key = ctid;
	if (bpf_map_update_elem(&stacks, &key, c.to, BPF_ANY))
		count(CG_NO_STACK);
}

/*
 * Fork, exec and exit records: of the tasks followed (and in sampled
 * mode, whose processes exec names), else only of those that made
 * traced calls, lest every short-lived process of the system show.
 */
static __always_inline bool task_records(__u32 tid)
{
	__u64 key = tid;

	return all_task_records || bpf_map_lookup_elem(&stacks, &key);
}

static __always_inline int on_fork(struct task_struct *parent,
				   struct task_struct *child)
{
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u32 ctid = BPF_CORE_READ(child, pid);
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	/* before kfit_ready: -p's children made while attaching count too */
	kfit_follow_fork(parent, child);
	if (!kfit_ready)
		return 0;
	if (!task_chosen(pid_tgid))
		return 0;
	if (task_records((__u32)pid_tgid))
		write_task(KFIT_REC_FORK, pid_tgid, ctgid, ctid);
	if (task_chosen(((__u64)ctgid << 32) | ctid))
		fork_frames(parent, child, ctgid, ctid);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(fork_btf, struct task_struct *parent, struct task_struct *child)
{
	return on_fork(parent, child);
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(fork_raw, struct task_struct *parent, struct task_struct *child)
{
	return on_fork(parent, child);
}

/*
 * After exec the old program's frames never return: they are written as
 * incomplete, and the kernel frames above them (execve's) kept, renumbered.
 */
/* The old program's user frame n - 1 - i, written as incomplete */
static long exec_one(__u32 i, void *data)
{
	struct copy *c = data;
	struct fc_frame *f = fc_frame_at(&c->from->s, c->n - 1 - i);
	struct cg_frame *x = cg_ext(c->from, c->n - 1 - i);
	const struct kfit_argvals *av;
	__u32 nstr;

	if (!f || !x)
		return 1;
	if (f->flags & FC_F_REC) {
		av = frame_args(c->from, f, x, false, &nstr);
		write_call(c->from, f, x, c->now > f->ts ? c->now - f->ts : 0,
			   KFIT_RF_INCOMPLETE | KFIT_RF_EXEC, c->pid_tgid, KFIT_CTX_TASK, 0,
			   av, nstr);
	}
	return 0;
}

/* The kernel frame n + j moves down to j, over the user frames */
static long shift_one(__u32 j, void *data)
{
	struct copy *c = data;
	struct fc_frame *f = fc_frame_at(&c->from->s, j + c->n), *g = fc_frame_at(&c->from->s, j);
	struct cg_frame *x = cg_ext(c->from, j + c->n), *y = cg_ext(c->from, j);

	if (!f || !g || !x || !y)
		return 1;
	*g = *f;
	*y = *x;
	y->rdepth = y->rdepth > c->rec ? y->rdepth - c->rec : 0;
	return 0;
}

/*
 * After exec the old program's frames never return: they are written as
 * incomplete, and the kernel frames above them (execve's) kept.
 */
static __always_inline int on_exec(__u32 old_tid)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct copy c = { .now = bpf_ktime_get_ns(), .pid_tgid = pid_tgid };
	__u64 key = old_tid;
	struct cg_stack *st;
	__u32 d;

	if (!kfit_ready)
		return 0;
	if (task_chosen(pid_tgid) && task_records(old_tid))
		write_task(KFIT_REC_EXEC, pid_tgid, 0, 0);
	st = c.from = bpf_map_lookup_elem(&stacks, &key);
	if (!st)
		return 0;
	c.n = user_frames(st, &c.rec);
	d = st->s.depth;
	if (c.n) {
		bpf_loop(c.n, exec_one, &c, 0);
		bpf_loop(d - c.n, shift_one, &c, 0);
		st->s.depth = d - c.n;
		st->root = st->root > c.n ? st->root - c.n : 0;
	}
	/* a thread that execs takes its process's id */
	if (old_tid != (__u32)pid_tgid) {
		st->tid = (__u32)pid_tgid;
		key = st->tid;
		bpf_map_update_elem(&stacks, &key, st, BPF_ANY);
		key = old_tid;
		bpf_map_delete_elem(&stacks, &key);
	}
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(exec_btf, struct task_struct *p, pid_t old_pid)
{
	return on_exec(old_pid);
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(exec_raw, struct task_struct *p, pid_t old_pid)
{
	return on_exec(old_pid);
}

static __always_inline int on_task_exit(struct task_struct *p)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u64 key = (__u32)pid_tgid;
	struct cg_stack *st;

	if (!kfit_ready || !key)
		return 0;
	st = bpf_map_lookup_elem(&stacks, &key);
	if (st)
		pop_to(st, 0, bpf_ktime_get_ns(), KFIT_RF_INCOMPLETE | KFIT_RF_EXITED,
		       pid_tgid, KFIT_CTX_TASK);
	if (task_chosen(pid_tgid) && (st || all_task_records))
		write_task(KFIT_REC_EXIT, pid_tgid, 0, 0);
	if (st)
		bpf_map_delete_elem(&stacks, &key);
	kfit_follow_exit(p);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(exit_btf, struct task_struct *p)
{
	return on_task_exit(p);
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(exit_raw, struct task_struct *p)
{
	return on_task_exit(p);
}

/* ---- interrupts ------------------------------------------------------- */

/* Whether the task current interrupts is inside a recorded call */
static __always_inline bool struck_recorded(__u64 pid_tgid)
{
	__u64 key = (__u32)pid_tgid;
	struct cg_stack *st;

	if (!key)
		return false;
	st = bpf_map_lookup_elem(&stacks, &key);
	return st && open_recorded(st);
}

static __always_inline int irq_entry(enum kfit_ctx c, __u32 vec)
{
	__u32 key = c;
	struct cg_irq *q;
	__u64 pid_tgid;

	if (!kfit_ready || !fc_cpu_wanted())
		return 0;
	q = bpf_map_lookup_elem(&irqs, &key);
	if (!q)
		return 0;
	pid_tgid = bpf_get_current_pid_tgid();
	q->pid_tgid = pid_tgid;
	q->vec = vec;
	q->ncalls = 0;
	q->struck = struck_recorded(pid_tgid);
	q->ts = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int irq_exit(enum kfit_ctx c)
{
	__u64 now = bpf_ktime_get_ns();
	struct kfit_rec_irq *r;
	__u32 key = c;
	struct cg_irq *q;
	void *ring;

	q = bpf_map_lookup_elem(&irqs, &key);
	if (!q || !q->ts)
		return 0;
	/*
	 * the interrupt's events before the records of what it struck; none
	 * once stopped, when user space reads what is staged
	 */
	if (kfit_ready)
		stage_sync(c, 0);
	if (kfit_ready && (q->ncalls || q->struck)) {
		ring = ring_of(c, 0);
		r = reserve(ring, sizeof(*r));
		if (r) {
			head(&r->h, KFIT_REC_IRQ, c, 0, sizeof(*r), q->pid_tgid, q->ts);
			r->dur = now > q->ts ? now - q->ts : 0;
			r->vec = q->vec;
			r->ncalls = q->ncalls;
			submit(ring, r);
		}
	}
	q->ts = 0;
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(irq_entry_btf, int irq)
{
	return irq_entry(KFIT_CTX_HARDIRQ, irq);
}

SEC("raw_tp/irq_handler_entry")
int BPF_PROG(irq_entry_raw, int irq)
{
	return irq_entry(KFIT_CTX_HARDIRQ, irq);
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(irq_exit_btf, int irq)
{
	return irq_exit(KFIT_CTX_HARDIRQ);
}

SEC("raw_tp/irq_handler_exit")
int BPF_PROG(irq_exit_raw, int irq)
{
	return irq_exit(KFIT_CTX_HARDIRQ);
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(softirq_entry_btf, unsigned int vec)
{
	return irq_entry(KFIT_CTX_SOFTIRQ, vec);
}

SEC("raw_tp/softirq_entry")
int BPF_PROG(softirq_entry_raw, unsigned int vec)
{
	return irq_entry(KFIT_CTX_SOFTIRQ, vec);
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(softirq_exit_btf, unsigned int vec)
{
	return irq_exit(KFIT_CTX_SOFTIRQ);
}

SEC("raw_tp/softirq_exit")
int BPF_PROG(softirq_exit_raw, unsigned int vec)
{
	return irq_exit(KFIT_CTX_SOFTIRQ);
}

/* ---- -e CATEGORY:NAME ------------------------------------------------- */

/*
 * Where the tracepoint hit: in the interrupt whose entry the irq and
 * softirq tracepoints saw on this CPU, else in the task. Not from the
 * record's trace_entry flags: perf_trace_run_bpf_submit() writes the
 * registers' address over them before BPF runs; nor from the per-CPU
 * preempt count, out of reach where kallsyms lacks per-CPU symbols.
 * (Hardirqs without irq_handler_entry, as the local timer's, count as
 * the task's.)
 */
static __always_inline enum kfit_ctx event_context(void)
{
	__u32 key = KFIT_CTX_HARDIRQ;
	struct cg_irq *q = bpf_map_lookup_elem(&irqs, &key);

	if (q && q->ts)
		return KFIT_CTX_HARDIRQ;
	key = KFIT_CTX_SOFTIRQ;
	q = bpf_map_lookup_elem(&irqs, &key);
	if (q && q->ts)
		return KFIT_CTX_SOFTIRQ;
	return KFIT_CTX_TASK;
}

#define EV_HEAD	offsetof(struct kfit_rec_event, data)

/*
 * An event record with room bytes of data: a constant in each caller
 * (the ring buffer reserves constant sizes only). The raw record's first
 * word holds no trace_entry but the registers' address (perf's raw
 * record, and a system call's): zeros there, no kernel address in a
 * file. direct: the rest by loads from the context, which a tracepoint
 * program may read up to the record's size (the kernel refuses to attach
 * a program that reads further: one program per size class); else by
 * bpf_probe_read_kernel (records whose size is no multiple of 8).
 */
static __always_inline void write_event(void *ctx, __u32 id, enum kfit_ctx c,
					__u64 pid_tgid, __u32 len, const __u32 room,
					const bool direct)
{
	struct cg_stage *s = stage_take(c);
	__u64 *src = ctx, *dst, now = bpf_ktime_get_ns();
	struct kfit_rec_event *r;
	void *ring = NULL;
	__u32 i;

	if (s) {
		r = stage_room(s, c, (__u32)pid_tgid, EV_HEAD + room, now);
	} else {
		ring = ring_of(c, (__u32)pid_tgid);
		r = reserve(ring, EV_HEAD + room);
	}
	if (!r) {
		if (s) {
			count(CG_LOST);
			stage_give(s);
		}
		return;
	}
	head(&r->h, KFIT_REC_EVENT, c, 0, EV_HEAD + room, pid_tgid, now);
	r->id = id;
	r->len = len < room ? len : room;
	dst = (__u64 *)r->data;
	dst[0] = 0;
	if (direct) {
#pragma unroll
		for (i = 1; i < room / 8; i++)
			dst[i] = src[i];
	} else if (room > 8 && bpf_probe_read_kernel(r->data + 8, room - 8, ctx + 8)) {
		r->len = 0;
	}
	if (!s) {
		submit(ring, r);
		return;
	}
	stage_put(s, EV_HEAD + room);
	stage_give(s);
}

/*
 * Attached to each chosen tracepoint, its event id as cookie: whether it
 * is wanted, its context and its size (ev_size; a system call's, with
 * CG_EV_SYSCALL, runs in its task), or 0.
 */
static __always_inline __u32 event_wanted(void *ctx, __u32 *id, enum kfit_ctx *c,
					  __u64 pid_tgid)
{
	struct cg_stack *st;
	__u32 *size;
	bool sys;
	__u64 key;

	if (!kfit_ready)
		return 0;
	/* one event: its id known, a helper call (a tenth of the cost) spared */
	*id = nevents == 1 ? 0 : bpf_get_attach_cookie(ctx);
	size = bpf_map_lookup_elem(&ev_size, id);
	sys = size && (*size & CG_EV_SYSCALL);
	*c = sys ? KFIT_CTX_TASK : event_context();
	/* in interrupts, current is no chosen task's work */
	if (*c != KFIT_CTX_TASK && fc_task_filters())
		return 0;
	if (!wanted(*c, pid_tgid))
		return 0;
	if (root_id) {
		key = fc_stack_key(*c, pid_tgid);
		st = bpf_map_lookup_elem(&stacks, &key);
		if (!st || !st->root)
			return 0;
	}
	return size && (*size & ~CG_EV_SYSCALL) ? *size & ~CG_EV_SYSCALL : KFIT_EVENT_DATA;
}

/* Records whose size is a multiple of 8, by size class: the loader chooses */
static __always_inline int on_event(void *ctx, const __u32 room)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	enum kfit_ctx c;
	__u32 id, len;

	len = event_wanted(ctx, &id, &c, pid_tgid);
	if (len)
		write_event(ctx, id, c, pid_tgid, len, room, true);
	return 0;
}

SEC("tracepoint")
int cg_event8(void *ctx) { return on_event(ctx, 8); }
SEC("tracepoint")
int cg_event16(void *ctx) { return on_event(ctx, 16); }
SEC("tracepoint")
int cg_event24(void *ctx) { return on_event(ctx, 24); }
SEC("tracepoint")
int cg_event32(void *ctx) { return on_event(ctx, 32); }
SEC("tracepoint")
int cg_event40(void *ctx) { return on_event(ctx, 40); }
SEC("tracepoint")
int cg_event48(void *ctx) { return on_event(ctx, 48); }
SEC("tracepoint")
int cg_event56(void *ctx) { return on_event(ctx, 56); }
SEC("tracepoint")
int cg_event64(void *ctx) { return on_event(ctx, KFIT_EVENT_DATA); }

/* Any other: the record's size class chosen here, read by bpf_probe_read_kernel */
SEC("tracepoint")
int cg_event(void *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	enum kfit_ctx c;
	__u32 id, len;

	len = event_wanted(ctx, &id, &c, pid_tgid);
	if (!len)
		return 0;
	if (len <= 8)
		write_event(ctx, id, c, pid_tgid, len, 8, false);
	else if (len <= 16)
		write_event(ctx, id, c, pid_tgid, len, 16, false);
	else if (len <= 24)
		write_event(ctx, id, c, pid_tgid, len, 24, false);
	else if (len <= 32)
		write_event(ctx, id, c, pid_tgid, len, 32, false);
	else if (len <= 40)
		write_event(ctx, id, c, pid_tgid, len, 40, false);
	else if (len <= 48)
		write_event(ctx, id, c, pid_tgid, len, 48, false);
	else if (len <= 56)
		write_event(ctx, id, c, pid_tgid, len, 56, false);
	else
		write_event(ctx, id, c, pid_tgid, len, KFIT_EVENT_DATA, false);
	return 0;
}

/* ---- sampled mode ----------------------------------------------------- */

#define STACK_BYTES	(KFIT_STACK_MAX * sizeof(__u64))

/* bpf_get_stack's bytes as frames, 0 to KFIT_STACK_MAX (an error: none) */
static __always_inline long stack_frames(long bytes)
{
	if (bytes < 0)
		bytes = 0;
	bytes /= sizeof(__u64);
	asm volatile("" : "+r"(bytes));
	return bytes > KFIT_STACK_MAX ? KFIT_STACK_MAX : bytes;
}

/* A sample's record of size bytes (max: its buffer's) into its task's ring */
static __always_inline void sample_out(void *r, __u32 size, __u32 max, __u64 pid_tgid)
{
	void *ring;

	asm volatile("" : "+r"(size));
	if (size > max)
		return;
	ring = ring_of(KFIT_CTX_TASK, (__u32)pid_tgid);
	if (!ring || bpf_ringbuf_output(ring, r, size, wake_flag(ring)))
		count(CG_LOST);
}

#define PF_KTHREAD	0x00200000

/* Where the thread was in user space: the sample's registers, or those saved at its kernel entry */
static __always_inline int user_regs(struct bpf_perf_event_data *ctx, struct task_struct *t,
				     struct cg_ustack *r)
{
	struct pt_regs *regs;

	if (BPF_CORE_READ(t, flags) & PF_KTHREAD)
		return -1;
	/* stopped in user space: its addresses are below the kernel's half */
	if (!(ctx->regs.ip >> 47)) {
		r->ip = ctx->regs.ip;
		r->sp = ctx->regs.sp;
		r->bp = ctx->regs.bp;
		return 0;
	}
	regs = (struct pt_regs *)bpf_task_pt_regs(t);
	if (!regs)
		return -1;
	r->ip = BPF_CORE_READ(regs, ip);
	r->sp = BPF_CORE_READ(regs, sp);
	r->bp = BPF_CORE_READ(regs, bp);
	return 0;
}

/*
 * The top of the user stack into dst: ustack_bytes, less where the main
 * thread's stack ends (above start_stack lie argv and the environment,
 * then nothing); a copy that faults (a thread's stack ends sooner) is
 * tried again at half the size. The bytes copied.
 */
static __always_inline __u32 copy_stack(void *dst, struct task_struct *t, __u64 sp)
{
	__u64 top = BPF_CORE_READ(t, mm, start_stack);
	__u32 len = ustack_bytes, i;

	if (sp < top && top - sp < len)
		len = top - sp + 64;
	len &= ~7U;
	if (len > CG_USTACK_MAX)
		len = CG_USTACK_MAX;
	for (i = 0; i < 6 && len >= 64; i++) {
		asm volatile("" : "+r"(len));
		if (len > CG_USTACK_MAX)
			return 0;
		if (!bpf_probe_read_user(dst, len, (void *)sp))
			return len;
		len = (len / 2) & ~7U;
	}
	return 0;
}

static __noinline int sample_ustack(struct bpf_perf_event_data *ctx, __u64 pid_tgid)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u32 cpu = bpf_get_smp_processor_id(), size, len = 0;
	struct cg_ustack *r;
	long nk;

	r = bpf_map_lookup_elem(&ustacks, &cpu);
	if (!r)
		return 0;
	nk = stack_frames(bpf_get_stack(ctx, r->data, STACK_BYTES, 0));
	r->flags = 0;
	r->ip = r->sp = r->bp = 0;
	if (user_regs(ctx, t, r))
		r->flags = CG_US_NOREGS;
	else
		len = copy_stack(&r->data[nk], t, r->sp);
	if (!len && !r->flags)
		r->flags = CG_US_FAULT;
	size = offsetof(struct cg_ustack, data) + nk * sizeof(__u64) + len;
	head(&r->h, CG_REC_USTACK, KFIT_CTX_TASK, 0, size, pid_tgid, bpf_ktime_get_ns());
	r->nkernel = nk;
	r->len = len;
	sample_out(r, size, sizeof(*r), pid_tgid);
	return 0;
}

SEC("perf_event")
int cg_sample(struct bpf_perf_event_data *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct kfit_rec_sample *r;
	__u32 zero = 0, size;
	long nk, nu;

	/* the idle tasks are no process's work */
	if (!kfit_ready || !(__u32)pid_tgid || !task_chosen(pid_tgid))
		return 0;
	if (ustack_bytes)
		return sample_ustack(ctx, pid_tgid);
	r = bpf_map_lookup_elem(&samples, &zero);
	if (!r)
		return 0;
	nk = stack_frames(bpf_get_stack(ctx, r->ip, STACK_BYTES, 0));
	nu = stack_frames(bpf_get_stack(ctx, &r->ip[nk], STACK_BYTES, BPF_F_USER_STACK));
	size = sizeof(*r) - sizeof(r->ip) + (nk + nu) * sizeof(__u64);
	head(&r->h, KFIT_REC_SAMPLE, KFIT_CTX_TASK, 0, size, pid_tgid,
	     bpf_ktime_get_ns());
	r->nkernel = nk;
	r->nuser = nu;
	r->ustop = 0;
	sample_out(r, size, sizeof(*r), pid_tgid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
