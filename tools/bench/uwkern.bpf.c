// SPDX-License-Identifier: GPL-2.0
/*
 * The other design of issue 33, measured beside callgraph's (unwind.sh):
 * user stacks unwound in the kernel, as the OpenTelemetry profiler does,
 * from the same tables (src/lib/symbols/uwtable.h) loaded into maps by
 * uwkern.c for one process, and only the addresses sent. A sample's
 * frames go into the ring as a kfit_rec_sample would (user frames only).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kfit.bpf.h"
#include "kfit/rec.h"
#include "kfit/uwrow.h"

#define MAX_MAPS	256
#define MAX_FRAMES	KFIT_STACK_MAX
#define SEARCH_STEPS	24	/* 16 M rows */
#define PF_KTHREAD	0x00200000

/* An executable mapping of the process: its rows, and address - sub = row pc */
struct umap {
	__u64 start, end, sub;
	__u32 lo, hi;		/* rows[lo, hi) */
};

const volatile __u32 tgid;
const volatile __u32 nmaps;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kfit_uw_row);
} rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_MAPS);
	__type(key, __u32);
	__type(value, struct umap);
} umaps SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} rb SEC(".maps");

struct out {
	__u32 n, stop;		/* frames; 1 + why it ended (0 whole) */
	__u64 ip[MAX_FRAMES];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct out);
} outs SEC(".maps");

__u64 samples, whole, frames, lost;

struct walk {
	__u64 ip, sp, bp;
	bool exact, done;
	__u32 stop;
	struct out *o;
};

/* Binary searches as bpf_loop callbacks: the verifier checks each body once */
struct msearch {
	__u64 addr;
	__u32 lo, hi;
	const struct umap *found;
};

static long map_step(__u64 i, struct msearch *s)
{
	const struct umap *m;
	__u32 mid;

	if (s->lo >= s->hi)
		return 1;
	mid = (s->lo + s->hi) / 2;
	m = bpf_map_lookup_elem(&umaps, &mid);
	if (!m)
		return 1;
	if (s->addr < m->start) {
		s->hi = mid;
	} else if (s->addr >= m->end) {
		s->lo = mid + 1;
	} else {
		s->found = m;
		return 1;
	}
	return 0;
}

static __always_inline const struct umap *map_of(__u64 addr)
{
	struct msearch s = { .addr = addr, .hi = nmaps };

	bpf_loop(10, map_step, &s, 0);
	return s.found;
}

struct rsearch {
	__u32 pc, lo, hi;
};

/* The first row above pc, in [lo, hi) */
static long row_step(__u64 i, struct rsearch *s)
{
	const struct kfit_uw_row *r;
	__u32 mid;

	if (s->lo >= s->hi)
		return 1;
	mid = (s->lo + s->hi) / 2;
	r = bpf_map_lookup_elem(&rows, &mid);
	if (!r)
		return 1;
	if (r->pc <= s->pc)
		s->lo = mid + 1;
	else
		s->hi = mid;
	return 0;
}

/* The last row at or below pc in the mapping's rows */
static __always_inline const struct kfit_uw_row *row_of(const struct umap *m, __u32 pc)
{
	struct rsearch s = { .pc = pc, .lo = m->lo, .hi = m->hi };
	const struct kfit_uw_row *r;
	__u32 k;

	bpf_loop(SEARCH_STEPS, row_step, &s, 0);
	if (s.lo <= m->lo)
		return NULL;
	k = s.lo - 1;
	r = bpf_map_lookup_elem(&rows, &k);
	return r && r->cfa != KFIT_UW_NONE ? r : NULL;
}

static __always_inline int rd(__u64 addr, __u64 *v)
{
	return bpf_probe_read_user(v, sizeof(*v), (void *)addr);
}

static long step(__u64 idx, struct walk *w)
{
	__u64 at = w->exact ? w->ip : w->ip - 1, cfa, ra, bp = w->bp, base;
	const struct umap *m;
	const struct kfit_uw_row *r;
	__u32 n = w->o->n;

	if (n >= MAX_FRAMES) {
		w->stop = 1 + KFIT_USTOP_DEPTH;
		return 1;
	}
	w->o->ip[n & (MAX_FRAMES - 1)] = w->ip;
	w->o->n = n + 1;
	m = map_of(at);
	if (!m) {
		w->stop = 1 + KFIT_USTOP_NOMAP;
		return 1;
	}
	r = row_of(m, (__u32)(at - m->sub));
	if (!r) {
		w->stop = 1 + KFIT_USTOP_NOINFO;
		return 1;
	}
	switch (r->cfa) {
	case KFIT_UW_END:
		w->stop = 0;
		return 1;
	case KFIT_UW_SP:
		cfa = w->sp + r->cfa_off;
		break;
	case KFIT_UW_BP:
		cfa = w->bp + r->cfa_off;
		break;
	case KFIT_UW_PLT:
		cfa = w->sp + r->cfa_off + ((w->ip & 15) >= (__u64)r->arg ? 8 : 0);
		break;
	case KFIT_UW_DEREF_SP:
	case KFIT_UW_DEREF_BP:
		if (rd((r->cfa == KFIT_UW_DEREF_SP ? w->sp : w->bp) + r->cfa_off, &cfa))
			goto fault;
		break;
	default:
		w->stop = 1 + KFIT_USTOP_RULE;
		return 1;
	}
	if (rd((r->ra == KFIT_UW_AT_SP ? w->sp : cfa) + r->ra_off, &ra))
		goto fault;
	if (r->bp == KFIT_UW_AT_CFA && cfa + r->bp_off >= w->sp) {
		if (rd(cfa + r->bp_off, &bp))
			goto fault;
	} else if (r->bp == KFIT_UW_AT_SP || r->bp == KFIT_UW_AT_BP) {
		base = r->bp == KFIT_UW_AT_SP ? w->sp : w->bp;
		if (rd(base + r->bp_off, &bp))
			goto fault;
	}
	if (cfa <= w->sp && !r->signal) {
		w->stop = 1 + KFIT_USTOP_BAD;
		return 1;
	}
	w->sp = cfa;
	w->bp = bp;
	w->ip = ra;
	w->exact = r->signal;
	if (!ra) {
		w->stop = 0;
		return 1;
	}
	return 0;
fault:
	w->stop = 1 + KFIT_USTOP_COPY;
	return 1;
}

SEC("perf_event")
int uw_sample(struct bpf_perf_event_data *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct walk w = {};
	struct pt_regs *regs;
	__u32 zero = 0, size;
	struct out *o;

	if (bpf_get_current_pid_tgid() >> 32 != tgid || (t->flags & PF_KTHREAD))
		return 0;
	o = bpf_map_lookup_elem(&outs, &zero);
	if (!o)
		return 0;
	if (!(ctx->regs.ip >> 47)) {
		w.ip = ctx->regs.ip;
		w.sp = ctx->regs.sp;
		w.bp = ctx->regs.bp;
	} else {
		regs = (struct pt_regs *)bpf_task_pt_regs(t);
		w.ip = BPF_CORE_READ(regs, ip);
		w.sp = BPF_CORE_READ(regs, sp);
		w.bp = BPF_CORE_READ(regs, bp);
	}
	w.exact = true;
	w.o = o;
	o->n = 0;
	bpf_loop(MAX_FRAMES + 1, step, &w, 0);
	o->stop = w.stop;
	__sync_fetch_and_add(&samples, 1);
	__sync_fetch_and_add(&frames, o->n);
	if (!w.stop)
		__sync_fetch_and_add(&whole, 1);
	size = 8 + (o->n & (MAX_FRAMES * 2 - 1)) * 8;
	if (size > sizeof(*o))
		size = sizeof(*o);
	if (bpf_ringbuf_output(&rb, o, size, 0))
		__sync_fetch_and_add(&lost, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
