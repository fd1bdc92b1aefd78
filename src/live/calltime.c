// SPDX-License-Identifier: GPL-2.0
/*
 * The calltime engine (bpf/calltime.bpf.c) from user space (calltime.h):
 * funcdur reads a half per interval and clears it, bootsum --funcs reads a
 * recording that outlived its loader and leaves it as it is.
 */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "calltime.h"
#include "calltime.skel.h"
#include "hist.h"

struct kfit_attach_progs kfit_calltime_progs(const struct calltime_bpf *s)
{
	return (struct kfit_attach_progs){
		.obj = s->obj,
		.fentry = s->progs.fd_fentry,
		.fexit = s->progs.fd_fexit,
		.kprobe = s->progs.fd_kprobe,
		.kretprobe = s->progs.fd_kretprobe,
		.kmulti = s->progs.fd_kmulti,
		.kmulti_ret = s->progs.fd_kmulti_ret,
		.uprobe = s->progs.fd_uprobe,
		.uretprobe = s->progs.fd_uretprobe,
		.sys_enter = s->progs.fd_sys_enter,
		.sys_exit = s->progs.fd_sys_exit,
		.sys_enter_args = {
			s->progs.fd_sys_enter1, s->progs.fd_sys_enter2, s->progs.fd_sys_enter3,
			s->progs.fd_sys_enter4, s->progs.fd_sys_enter5, s->progs.fd_sys_enter6,
		},
		.follow_rb = s->maps.follow_rb,
		.follow_notify = &s->bss->follow_notify,
		.follow_lost = &s->bss->follow_lost,
	};
}

int kfit_calltime_init_fds(struct kfit_calltime *m, int stats, int linhists, int edges,
			 int counters)
{
	int err;

	memset(m, 0, sizeof(*m));
	m->by = -1;
	m->by_strs = -1;
	m->stats = stats;
	m->linhists = linhists;
	m->edges = edges;
	m->counters = counters;
	err = kfit_percpu_init(&m->pstats, sizeof(struct ct_stat), 0);
	if (!err)
		err = kfit_percpu_init(&m->plins, sizeof(struct kfit_linhist), 0);
	if (!err)
		err = kfit_percpu_init(&m->pcounts, sizeof(__u64), 0);
	if (err)
		kfit_calltime_free(m);
	return err;
}

int kfit_calltime_init(struct kfit_calltime *m, const struct calltime_bpf *s)
{
	int err = kfit_calltime_init_fds(m, bpf_map__fd(s->maps.stats),
					 bpf_map__fd(s->maps.linhists),
					 bpf_map__fd(s->maps.edges),
					 bpf_map__fd(s->maps.counters));

	if (!err) {
		m->by = bpf_map__fd(s->maps.by);
		m->by_strs = bpf_map__fd(s->maps.by_strs);
	}
	return err;
}

void kfit_calltime_free(struct kfit_calltime *m)
{
	kfit_percpu_free(&m->pstats);
	kfit_percpu_free(&m->plins);
	kfit_percpu_free(&m->pcounts);
	kfit_entries_free(&m->pedges);
	kfit_entries_free(&m->pby);
}

static int read_one(struct kfit_calltime *m, struct kfit_fstats *fs, int half, int i,
		    unsigned int flags)
{
	struct kfit_fstat *f = &fs->f[i];
	__u32 key = ct_key(half, i);
	int cpu, err;

	kfit_fstats_reset(f);
	err = kfit_percpu_read(&m->pstats, m->stats, &key);
	if (err)
		return err;
	for (cpu = 0; cpu < m->pstats.ncpus; cpu++) {
		struct ct_stat *s = kfit_percpu_at(&m->pstats, cpu);

		kfit_hist_merge(&f->h, &s->h);
		f->local_ns += s->local_ns;
		f->filtered += s->filtered;
	}
	if ((flags & KFIT_CALLTIME_CLEAR) && (err = kfit_percpu_clear(&m->pstats, m->stats, &key)))
		return err;
	if (!fs->lin_step || m->linhists < 0)
		return 0;
	err = kfit_percpu_read(&m->plins, m->linhists, &key);
	if (err)
		return err;
	for (cpu = 0; cpu < m->plins.ncpus; cpu++)
		kfit_linhist_merge(&f->l, kfit_percpu_at(&m->plins, cpu));
	if (flags & KFIT_CALLTIME_CLEAR)
		err = kfit_percpu_clear(&m->plins, m->linhists, &key);
	return err;
}

static bool in_half(const void *key, void *half)
{
	return ((const struct ct_edge *)key)->half == *(__u32 *)half;
}

/* Max-sub per function from the caller/callee times of this half */
static int read_edges(struct kfit_calltime *m, struct kfit_fstats *fs, int half,
		      unsigned int flags)
{
	const struct ct_edge *key;
	__u32 h = half;
	__u64 ns;
	int i, err;

	err = kfit_hash_read(m->edges, in_half, &h,
			     flags & KFIT_CALLTIME_CLEAR ? KFIT_HASH_DELETE : 0, &m->pedges);
	for (i = 0; !err && i < m->pedges.n; i++) {
		key = kfit_entry_key(&m->pedges, i);
		ns = *(__u64 *)kfit_entry_value(&m->pedges, i);
		kfit_fstats_edge(fs, key->parent, key->child, ns);
	}
	return err;
}

int kfit_calltime_read(struct kfit_calltime *m, int half, struct kfit_fstats *fs,
		     unsigned int flags)
{
	int i, err;

	for (i = 0; i < fs->n; i++) {
		err = read_one(m, fs, half, i, flags);
		if (err)
			return err;
	}
	return read_edges(m, fs, half, flags);
}

static bool by_in_half(const void *key, void *half)
{
	return ((const struct ct_by_key *)key)->half == *(__u32 *)half;
}

/* A string row's text, kept beside it by the BPF side (none: has_str false) */
static void by_str(struct kfit_calltime *m, const struct ct_by_key *k,
		   struct kfit_calltime_by *v, unsigned int flags)
{
	struct ct_by_str s;

	if (m->by_strs < 0 || bpf_map_lookup_elem(m->by_strs, k, &s))
		return;
	memcpy(v->str, s.s, KFIT_ARG_STRLEN);
	v->str[KFIT_ARG_STRLEN] = '\0';
	v->has_str = true;
	if (flags & KFIT_CALLTIME_CLEAR)
		bpf_map_delete_elem(m->by_strs, k);
}

int kfit_calltime_read_by(struct kfit_calltime *m, int half, struct kfit_calltime_by **rows,
			  int *n, unsigned int flags)
{
	size_t stride = kfit_percpu_stride(sizeof(struct ct_stat));
	struct kfit_calltime_by *v;
	__u32 h = half;
	int i, cpu, ncpus, err;

	*n = 0;
	if (m->by < 0)
		return 0;
	err = kfit_hash_read(m->by, by_in_half, &h,
			     flags & KFIT_CALLTIME_CLEAR ? KFIT_HASH_DELETE : 0, &m->pby);
	if (err || !m->pby.n)
		return err;
	v = realloc(*rows, m->pby.n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	*rows = v;
	ncpus = m->pby.value_size / stride;
	for (i = 0; i < m->pby.n; i++) {
		const struct ct_by_key *k = kfit_entry_key(&m->pby, i);
		const char *val = kfit_entry_value(&m->pby, i);

		memset(&v[i], 0, sizeof(v[i]));
		v[i].id = k->id;
		v[i].val = k->val;
		by_str(m, k, &v[i], flags);
		for (cpu = 0; cpu < ncpus; cpu++) {
			const struct ct_stat *s = (const void *)(val + cpu * stride);

			kfit_hist_merge(&v[i].h, &s->h);
			v[i].local_ns += s->local_ns;
		}
	}
	*n = m->pby.n;
	return 0;
}

void kfit_calltime_counters(struct kfit_calltime *m, __u64 out[CT_NCOUNTERS])
{
	__u32 k;

	for (k = 0; k < CT_NCOUNTERS; k++)
		out[k] = kfit_percpu_read(&m->pcounts, m->counters, &k) ? 0 :
			 kfit_percpu_sum(&m->pcounts, 0);
}
