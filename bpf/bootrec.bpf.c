// SPDX-License-Identifier: GPL-2.0
/*
 * The bootrec engine, bootsum's recorder: the user-space phase of a boot.
 * Loaded by `bootsum --early` before the first process runs, pinned, and
 * read later: every process (fork, exec, exit, parent, command line), its
 * time on a CPU, runnable and blocked, its block I/O, the long waits with
 * who ended them, and module loads with their init functions. See include/kfit/bootrec.h.
 *
 * Everything is bounded: an index taken past a map's end is a drop,
 * counted in bs_meta. Programs return at once once bs_meta.stopped is set.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kfit.bpf.h"
#include "kfit/bootrec.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the loader before load */
const volatile __u64 wait_min_ns = 1000000;
const volatile __u32 max_procs = BS_MAX_PROCS;
const volatile __u32 max_waits = BS_MAX_WAITS;
const volatile __u32 max_mods = BS_MAX_MODS;

#define BS_IO_INFLIGHT	4096
#define PF_KTHREAD_	0x00200000
#define TASK_DEAD_	0x80

/* mmapable: user space sets magic, exec_ns and stopped without a racing update */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bs_meta);
} bs_meta SEC(".maps");

/* max_entries set by the loader (--max-procs, --max-waits) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BS_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct bs_proc);
} bs_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BS_MAX_WAITS);
	__type(key, __u32);
	__type(value, struct bs_wait);
} bs_waits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BS_MAX_MODS);
	__type(key, __u32);
	__type(value, struct bs_mod);
} bs_mods SEC(".maps");

/* tgid of a living process -> its bs_procs index (a reused pid: a new one) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BS_MAX_PROCS);
	__type(key, __u32);
	__type(value, __u32);
} bs_pidx SEC(".maps");

enum { TS_NEW, TS_RUNNING, TS_RUNNABLE, TS_BLOCKED };

/* Per thread: where its time goes since when, whose process, its module */
struct bs_tstate {
	__u64 since;
	__u32 idx;		/* bs_procs index, BS_NONE: not recorded */
	__u32 mod;		/* bs_mods index of the module it is loading, BS_NONE */
	__u32 state;		/* TS_* */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct bs_tstate);
} bs_task SEC(".maps");

/* A block request in flight, from issue to completion */
struct bs_ioreq {
	__u64 issue_ns;
	__u32 idx;
	__u32 write;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BS_IO_INFLIGHT);
	__type(key, __u64);
	__type(value, struct bs_ioreq);
} bs_io SEC(".maps");

static __always_inline struct bs_meta *meta_live(void)
{
	__u32 zero = 0;
	struct bs_meta *m = bpf_map_lookup_elem(&bs_meta, &zero);

	if (!m || m->stopped)
		return NULL;
	return m;
}

static __always_inline struct bs_proc *proc_at(__u32 idx)
{
	if (idx == BS_NONE)
		return NULL;
	return bpf_map_lookup_elem(&bs_procs, &idx);
}

static __always_inline __u32 pidx_of(__u32 tgid)
{
	__u32 *v = bpf_map_lookup_elem(&bs_pidx, &tgid);

	return v ? *v : BS_NONE;
}

/*
 * The next free index of a table of max entries whose count is *n;
 * BS_NONE when it is full, counted in *drop
 */
static __always_inline __u32 claim(__u32 *n, __u32 max, __u64 *drop)
{
	__u32 i = __sync_fetch_and_add(n, 1);

	if (i >= max) {
		__sync_fetch_and_add(drop, 1);
		return BS_NONE;
	}
	return i;
}

static __always_inline bool is_kthread(struct task_struct *t)
{
	return BPF_CORE_READ(t, flags) & PF_KTHREAD_;
}

/*
 * The thread's state; created (when create) for threads of recorded
 * processes only, so that other tasks cost one lookup and no memory.
 */
static __always_inline struct bs_tstate *tstate(struct bs_meta *m,
						struct task_struct *t, bool create)
{
	struct bs_tstate *s;
	__u32 idx;

	s = bpf_task_storage_get(&bs_task, t, 0, 0);
	if (s || !create)
		return s;
	idx = pidx_of(BPF_CORE_READ(t, tgid));
	if (idx == BS_NONE)
		return NULL;
	s = bpf_task_storage_get(&bs_task, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s) {
		__sync_fetch_and_add(&m->drop_tasks, 1);
		return NULL;
	}
	s->idx = idx;
	s->mod = BS_NONE;
	return s;
}

/* ---- fork, exec, exit ------------------------------------------------- */

static __always_inline void new_proc(struct bs_meta *m, struct task_struct *parent,
				     struct task_struct *child, __u64 now)
{
	__u32 tgid = BPF_CORE_READ(child, tgid);
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	struct bs_proc *p;
	__u32 idx;

	idx = claim(&m->nprocs, max_procs, &m->drop_procs);
	if (idx == BS_NONE)
		return;
	p = proc_at(idx);
	if (!p)
		return;
	p->pid = tgid;
	p->ppid = ptgid;
	p->parent_idx = pidx_of(ptgid);
	p->fork_ns = now;
	p->nthreads = 1;
	BPF_CORE_READ_STR_INTO(&p->comm, child, comm);
	/* the table is as large as bs_procs: a failure here is a lost process */
	if (bpf_map_update_elem(&bs_pidx, &tgid, &idx, BPF_ANY))
		__sync_fetch_and_add(&m->drop_procs, 1);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(bs_fork, struct task_struct *parent, struct task_struct *child)
{
	struct bs_meta *m = meta_live();
	struct bs_tstate *s;
	struct bs_proc *p;
	__u64 now;

	if (!m || is_kthread(child))
		return 0;
	now = bpf_ktime_get_boot_ns();
	if (BPF_CORE_READ(child, pid) == BPF_CORE_READ(child, tgid)) {
		new_proc(m, parent, child, now);
	} else {
		p = proc_at(pidx_of(BPF_CORE_READ(child, tgid)));
		if (!p) {
			__sync_fetch_and_add(&m->unknown_tgid, 1);
			return 0;
		}
		__sync_fetch_and_add(&p->nthreads, 1);
	}
	s = tstate(m, child, true);
	if (s) {
		s->state = TS_NEW;
		s->since = now;
	}
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(bs_exec, struct task_struct *task, pid_t old_pid, struct linux_binprm *bprm)
{
	struct bs_meta *m = meta_live();
	unsigned long start, end;
	struct bs_proc *p;
	__u32 len;

	if (!m)
		return 0;
	p = proc_at(pidx_of(BPF_CORE_READ(task, tgid)));
	if (!p) {
		__sync_fetch_and_add(&m->unknown_tgid, 1);
		return 0;
	}
	p->exec_ns = bpf_ktime_get_boot_ns();
	__sync_fetch_and_add(&p->nexec, 1);
	p->flags |= BS_P_EXEC;
	bpf_get_current_comm(&p->comm, sizeof(p->comm));
	start = BPF_CORE_READ(task, mm, arg_start);
	end = BPF_CORE_READ(task, mm, arg_end);
	if (end - start > BS_ARGS || end < start) {
		len = BS_ARGS;
		p->flags |= BS_P_ARGS_CUT;
	} else {
		len = end - start;
		p->flags &= ~BS_P_ARGS_CUT;
	}
	if (bpf_probe_read_user(&p->args, len, (void *)start))
		len = 0;
	p->args_len = len;
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(bs_exit, struct task_struct *task)
{
	struct bs_meta *m = meta_live();
	__u32 tgid, idx;
	struct bs_proc *p;

	/* the last thread of its group: signal->live has dropped to 0 */
	if (!m || BPF_CORE_READ(task, signal, live.counter))
		return 0;
	tgid = BPF_CORE_READ(task, tgid);
	idx = pidx_of(tgid);
	p = proc_at(idx);
	if (!p)
		return 0;
	p->exit_ns = bpf_ktime_get_boot_ns();
	p->exit_code = BPF_CORE_READ(task, exit_code);
	p->flags |= BS_P_EXITED;
	bpf_map_delete_elem(&bs_pidx, &tgid);
	return 0;
}

/* ---- on a CPU, runnable, blocked ------------------------------------------ */

SEC("tp_btf/sched_switch")
int BPF_PROG(bs_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	struct bs_meta *m = meta_live();
	__u64 now = bpf_ktime_get_boot_ns();
	struct bs_tstate *s;
	struct bs_proc *p;

	if (!m)
		return 0;
	/* idle is pid 0 on every CPU: never one of ours */
	if (BPF_CORE_READ(prev, pid) && !is_kthread(prev)) {
		s = tstate(m, prev, true);
		p = s ? proc_at(s->idx) : NULL;
		if (p) {
			if (s->state == TS_RUNNING)
				__sync_fetch_and_add(&p->oncpu_ns, now - s->since);
			if (preempt || !prev_state)
				s->state = TS_RUNNABLE;
			else if (prev_state & TASK_DEAD_)
				s->state = TS_NEW;	/* gone: nothing more to count */
			else
				s->state = TS_BLOCKED;
			s->since = now;
		}
	}
	if (BPF_CORE_READ(next, pid) && !is_kthread(next)) {
		s = tstate(m, next, true);
		p = s ? proc_at(s->idx) : NULL;
		if (p) {
			if (s->state == TS_RUNNABLE)
				__sync_fetch_and_add(&p->runnable_ns, now - s->since);
			/* woken without a wakeup we saw (a pending signal) */
			else if (s->state == TS_BLOCKED)
				__sync_fetch_and_add(&p->blocked_ns, now - s->since);
			s->state = TS_RUNNING;
			s->since = now;
		}
	}
	return 0;
}

/*
 * Who is waking: an interrupt, a kernel thread, or a user process. Only
 * with precise is preempt_count read: kernels without KALLSYMS_ALL cannot
 * resolve it, and there an interrupt is told only when it struck idle.
 */
static __always_inline void fill_waker(struct bs_wait *w, bool precise)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct bs_tstate *s;

	w->waker_idx = BS_NONE;
	w->waker_tid = cur->pid;
	if (precise ? kfit_preempt_count() & (KFIT_NMI_MASK | KFIT_HARDIRQ_MASK |
					       KFIT_SOFTIRQ_OFFSET) : !cur->pid) {
		w->waker_kind = BS_W_IRQ;
		return;
	}
	if (!cur->pid || (cur->flags & PF_KTHREAD_)) {
		w->waker_kind = BS_W_KTHREAD;
		bpf_get_current_comm(&w->waker_comm, sizeof(w->waker_comm));
		return;
	}
	w->waker_kind = BS_W_PROC;
	/* an exiting child wakes its parent after leaving bs_pidx: its thread knows */
	s = bpf_task_storage_get(&bs_task, cur, 0, 0);
	w->waker_idx = s ? s->idx : pidx_of(cur->tgid);
	bpf_get_current_comm(&w->waker_comm, sizeof(w->waker_comm));
}

static __always_inline void add_wait(struct bs_meta *m, struct task_struct *t,
				     __u32 idx, __u64 start, __u64 end, bool precise)
{
	struct bs_wait *w;
	__u32 i;

	i = claim(&m->nwaits, max_waits, &m->drop_waits);
	if (i == BS_NONE)
		return;
	w = bpf_map_lookup_elem(&bs_waits, &i);
	if (!w)
		return;
	w->idx = idx;
	w->tid = BPF_CORE_READ(t, pid);
	w->start_ns = start;
	w->end_ns = end;
	fill_waker(w, precise);
}

static __always_inline int on_waking(struct task_struct *p, bool precise)
{
	struct bs_meta *m = meta_live();
	struct bs_tstate *s;
	struct bs_proc *pr;
	__u64 now, d;

	if (!m)
		return 0;
	s = tstate(m, p, false);
	if (!s || s->state != TS_BLOCKED)
		return 0;
	pr = proc_at(s->idx);
	if (!pr)
		return 0;
	now = bpf_ktime_get_boot_ns();
	d = now - s->since;
	__sync_fetch_and_add(&pr->blocked_ns, d);
	if (d >= wait_min_ns)
		add_wait(m, p, s->idx, s->since, now, precise);
	s->state = TS_RUNNABLE;
	s->since = now;
	return 0;
}

/*
 * sched_waking, not sched_wakeup: it fires in the waker's context, while
 * sched_wakeup may run later on the wakee's CPU from an IPI. The loader
 * keeps one of the two: bs_waking_idle where preempt_count cannot be read.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(bs_waking, struct task_struct *p)
{
	return on_waking(p, true);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(bs_waking_idle, struct task_struct *p)
{
	return on_waking(p, false);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(bs_wakeup_new, struct task_struct *p)
{
	struct bs_meta *m = meta_live();
	struct bs_tstate *s;

	if (!m)
		return 0;
	s = tstate(m, p, false);
	if (!s)
		return 0;
	s->state = TS_RUNNABLE;
	s->since = bpf_ktime_get_boot_ns();
	return 0;
}

/* ---- block I/O ---------------------------------------------------------- */

SEC("tp_btf/block_rq_issue")
int BPF_PROG(bs_rq_issue, struct request *rq)
{
	struct bs_meta *m = meta_live();
	struct task_struct *cur;
	struct bs_tstate *s;
	struct bs_ioreq r;
	__u64 key = (__u64)rq;
	__u32 idx = BS_NONE;

	if (!m)
		return 0;
	cur = bpf_get_current_task_btf();
	if (cur->pid && !(cur->flags & PF_KTHREAD_)) {
		s = bpf_task_storage_get(&bs_task, cur, 0, 0);
		idx = s ? s->idx : pidx_of(cur->tgid);
	}
	if (idx == BS_NONE) {
		__sync_fetch_and_add(&m->io_unattributed, 1);
		return 0;
	}
	r.issue_ns = bpf_ktime_get_boot_ns();
	r.idx = idx;
	r.write = BPF_CORE_READ(rq, cmd_flags) & 1;	/* op_is_write() */
	if (bpf_map_update_elem(&bs_io, &key, &r, BPF_ANY))
		__sync_fetch_and_add(&m->drop_io, 1);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(bs_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	struct bs_meta *m = meta_live();
	__u64 key = (__u64)rq;
	struct bs_ioreq *r;
	struct bs_proc *p;

	if (!m)
		return 0;
	r = bpf_map_lookup_elem(&bs_io, &key);
	if (!r)
		return 0;
	p = proc_at(r->idx);
	if (p) {
		__sync_fetch_and_add(&p->io_ns, bpf_ktime_get_boot_ns() - r->issue_ns);
		if (r->write) {
			__sync_fetch_and_add(&p->wr_bytes, nr_bytes);
			__sync_fetch_and_add(&p->wr_ios, 1);
		} else {
			__sync_fetch_and_add(&p->rd_bytes, nr_bytes);
			__sync_fetch_and_add(&p->rd_ios, 1);
		}
	}
	bpf_map_delete_elem(&bs_io, &key);
	return 0;
}

/* ---- modules -------------------------------------------------------------- */

SEC("tp_btf/module_load")
int BPF_PROG(bs_module_load, struct module *mod)
{
	static const char fmt[] = "%ps";
	struct bs_meta *m = meta_live();
	struct task_struct *cur;
	struct bs_tstate *s;
	struct bs_mod *bm;
	__u64 addr;
	__u32 i;

	if (!m)
		return 0;
	i = claim(&m->nmods, max_mods, &m->drop_mods);
	if (i == BS_NONE)
		return 0;
	bm = bpf_map_lookup_elem(&bs_mods, &i);
	if (!bm)
		return 0;
	cur = bpf_get_current_task_btf();
	BPF_CORE_READ_STR_INTO(&bm->name, mod, name);
	addr = (__u64)BPF_CORE_READ(mod, init);
	bm->init_addr = addr;
	if (addr)
		bpf_snprintf(bm->init_sym, sizeof(bm->init_sym), fmt, &addr, sizeof(addr));
	bm->load_ns = bpf_ktime_get_boot_ns();
	bm->pid = cur->tgid;
	bm->loader_idx = pidx_of(cur->tgid);
	/* its init function runs next, in this task: initcall_start/finish */
	s = tstate(m, cur, true);
	if (!s) {	/* a loader we do not record: its init is still timed */
		s = bpf_task_storage_get(&bs_task, cur, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!s) {
			__sync_fetch_and_add(&m->drop_tasks, 1);
			return 0;
		}
		s->idx = BS_NONE;
	}
	s->mod = i;
	return 0;
}

/*
 * The module this task is loading, while recording, when func is its
 * init function (its state into *sp); else NULL
 */
static __always_inline struct bs_mod *loading(__u64 func, struct bs_tstate **sp)
{
	struct bs_tstate *s;
	struct bs_mod *bm;
	__u32 i;

	if (!meta_live())
		return NULL;
	s = bpf_task_storage_get(&bs_task, bpf_get_current_task_btf(), 0, 0);
	if (!s || s->mod == BS_NONE)
		return NULL;
	i = s->mod;
	bm = bpf_map_lookup_elem(&bs_mods, &i);
	if (!bm || bm->init_addr != func)
		return NULL;
	*sp = s;
	return bm;
}

/*
 * raw_tp: tp_btf cannot read a function pointer argument ("arg0 type
 * FUNC_PROTO is not a struct"); only its value is wanted here
 */
SEC("raw_tp/initcall_start")
int BPF_PROG(bs_initcall_start, __u64 func)
{
	struct bs_tstate *s;
	struct bs_mod *bm;

	bm = loading(func, &s);
	if (bm)
		bm->init_start_ns = bpf_ktime_get_boot_ns();
	return 0;
}

SEC("raw_tp/initcall_finish")
int BPF_PROG(bs_initcall_finish, __u64 func, int ret)
{
	struct bs_tstate *s;
	struct bs_mod *bm;

	bm = loading(func, &s);
	if (!bm)
		return 0;
	bm->init_end_ns = bpf_ktime_get_boot_ns();
	bm->ret = ret;
	s->mod = BS_NONE;
	return 0;
}
