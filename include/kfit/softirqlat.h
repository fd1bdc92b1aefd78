/* SPDX-License-Identifier: GPL-2.0 */
/* Map layout shared by bpf/softirqlat.bpf.c and src/cmd/softirqlat.c */
#ifndef KFIT_SOFTIRQLAT_H
#define KFIT_SOFTIRQLAT_H

#define SIRQ_VECS	10	/* NR_SOFTIRQS, unchanged since 4.x */

enum sirq_kind {
	SIRQ_QUEUE,		/* softirq_raise to softirq_entry */
	SIRQ_HANDLER,		/* softirq_entry to softirq_exit */
	SIRQ_KINDS
};

#define SIRQ_KEYS	(SIRQ_VECS * SIRQ_KINDS)

/* Per-CPU timestamps; user space reads entered[] to let handlers finish */
struct sirq_state {
	__u64 raised[SIRQ_VECS];	/* first raise not yet run, 0: none */
	__u64 entered[SIRQ_VECS];	/* entry of the running handler, 0: none */
};

/* Histogram key: one half of the double buffer, then vector and kind */
static inline __u32 sirq_key(__u32 half, __u32 vec, __u32 kind)
{
	return half * SIRQ_KEYS + vec * SIRQ_KINDS + kind;
}

#endif
