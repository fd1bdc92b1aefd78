// SPDX-License-Identifier: GPL-2.0
/* kd --events: one line per record, in time order across the chunks */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kfit/rec.h"
#include "calltree.h"
#include "kft.h"
#include "retval.h"
#include "treeprint.h"
#include "state.h"

static void put_string(const __u8 *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && p[i]; i++)
		putchar(p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?');
}

static __u64 get_uint(const __u8 *p, __u32 size)
{
	__u8 b1;
	__u16 b2;
	__u32 b4;
	__u64 b8;

	switch (size) {
	case 1:
		memcpy(&b1, p, 1);
		return b1;
	case 2:
		memcpy(&b2, p, 2);
		return b2;
	case 4:
		memcpy(&b4, p, 4);
		return b4;
	default:
		memcpy(&b8, p, 8);
		return b8;
	}
}

static __s64 sign_extend(__u64 v, __u32 size)
{
	int shift = 64 - 8 * size;

	return shift ? (__s64)(v << shift) >> shift : (__s64)v;
}

/*
 * A __data_loc field: (length << 16) | offset of its bytes in the record;
 * the string when the record's kept bytes (len) hold it
 */
static void put_data_loc(const __u8 *data, __u32 len, __u32 loc)
{
	__u32 off = loc & 0xffff, n = loc >> 16;

	if (off > len || n > len - off) {
		printf("(%u byte%s not kept)", n, n == 1 ? "" : "s");
		return;
	}
	putchar('"');
	put_string(data + off, n);
	putchar('"');
}

/* One field of a tracepoint's record (len bytes kept) as NAME=VALUE */
static void put_field(const struct kfit_tpfield *fd, const __u8 *data, __u32 len)
{
	const __u8 *p = data + fd->offset;
	__u32 i;
	__u64 v;

	printf(" %s=", fd->name);
	if (fd->size == 4 && strstr(fd->type, "__data_loc")) {
		put_data_loc(data, len, get_uint(p, 4));
		return;
	}
	if (fd->is_array && strstr(fd->type, "char")) {
		put_string(p, fd->size);
		return;
	}
	if (fd->is_array || (fd->size != 1 && fd->size != 2 && fd->size != 4 &&
			     fd->size != 8) || strstr(fd->type, "__data_loc")) {
		printf("0x");
		for (i = 0; i < fd->size; i++)
			printf("%02x", p[i]);
		return;
	}
	v = get_uint(p, fd->size);
	if (strchr(fd->type, '*'))
		printf("0x%llx", (unsigned long long)v);
	else if (fd->is_signed)
		printf("%lld", (long long)sign_extend(v, fd->size));
	else
		printf("%llu", (unsigned long long)v);
}

/*
 * The fields within the record's valid bytes. A system call's data holds
 * its format's bytes at their offsets; other events' first 8 bytes are
 * no common fields (rec.h): the common_* fields are left out anyway.
 */
static void put_event(const struct kfit_rec_event *r, size_t size)
{
	const struct kft_event *e = r->id < (__u32)env.nevents ? kft_event_at(env.f, r->id) : NULL;
	__u32 len = r->len, i;

	if (!e) {
		printf("event %u (not in the file's table)", r->id);
		return;
	}
	printf("%s", e->name);
	/* records as long as their data, or of all KFIT_EVENT_DATA bytes */
	if (len > size - offsetof(struct kfit_rec_event, data))
		len = size - offsetof(struct kfit_rec_event, data);
	if (len > KFIT_EVENT_DATA)
		len = KFIT_EVENT_DATA;
	for (i = 0; i < (__u32)e->nfields; i++) {
		const struct kfit_tpfield *fd = &e->fields[i];

		if (fd->offset < 8 || fd->offset > len || fd->size > len - fd->offset)
			continue;
		put_field(fd, r->data, len);
	}
}

/* "(count=4096 name=\"a\")" when the call carries arguments the file describes */
static void put_args(const struct kfit_rec_call *r)
{
	const struct kfit_rec_args *a = kfit_rec_call_args(r);
	const struct kfit_fargfmt *f;
	struct kfit_argview v;
	char buf[640];

	if (!a || r->id >= (__u32)env.nfuncs || !env.fargs[r->id].n)
		return;
	f = &env.fargs[r->id];
	v = kfit_argview_of_rec(a);
	printf("(%s)", kfit_argfmt_text(f->a, f->n, &v, buf, sizeof(buf)));
}

static void put_call(const struct kfit_rec_call *r)
{
	char d[32], b[32], p[32], v[32];
	__u64 reg;

	printf("%s", r->id < (__u32)env.nfuncs ? env.fnames[r->id] : "?");
	put_args(r);
	printf(" dur=%s depth=%u", kd_dur(r->dur, d), r->depth);
	if (r->off_blocked)
		printf(" off_blocked=%s", kd_dur(r->off_blocked, b));
	if (r->off_preempt)
		printf(" off_preempt=%s", kd_dur(r->off_preempt, p));
	if (r->h.flags & KFIT_RF_INCOMPLETE)
		printf(" [incomplete: %s]", kfit_treeprint_incomplete_reason(r->h.flags));
	if (r->h.flags & KFIT_RF_FORKED)
		printf(" [inherited]");
	if (r->dropped)
		printf(" [%u dropped]", r->dropped);
	if (kfit_rec_call_ret(r, &reg) && r->id < (__u32)env.nfuncs &&
	    kfit_ret_reg_str(reg, env.ret_kinds[r->id], v, sizeof(v)))
		printf(" ret=%s", v);
}

static void put_irq(const struct kfit_rec_irq *r)
{
	struct kfit_cnode n = { .kind = KFIT_CN_IRQ, .ctx = r->h.ctx, .id = r->vec };
	char label[64], d[32];

	printf("%s dur=%s calls=%u",
	       kfit_ctree_irq_label(&n, kfit_ctree_name(env.tree, &n), label, sizeof(label)),
	       kd_dur(r->dur, d), r->ncalls);
}

static void put_sample(const struct kfit_rec_sample *r, size_t size)
{
	bool kernel = r->nkernel > 0;
	__u64 ip;

	if (!r->nkernel && !r->nuser) {
		printf("(no stack)");
		return;
	}
	if (size < offsetof(struct kfit_rec_sample, ip) + sizeof(__u64))
		return;
	ip = r->ip[0];
	printf("%s (%u kernel, %u user frames)", kft_sym(env.f, kernel ? 0 : r->h.pid, ip, kernel),
	       r->nkernel, r->nuser);
}

static void put_record(const struct kfit_rec *h)
{
	const void *r = h;
	char who[48], d[32], t[32];

	if (h->type == KFIT_REC_LOST)
		snprintf(who, sizeof(who), "-");
	else
		snprintf(who, sizeof(who), "%s-%u", kd_comm_of(h->tid), h->tid);
	printf("%12s %3u %-22s %-6s ", kd_rel_time(h->ts, t, sizeof(t)), h->cpu, who,
	       kfit_ctree_rec_type_name(h->type));
	if (h->ctx != KFIT_CTX_TASK && h->type != KFIT_REC_IRQ && h->type != KFIT_REC_LOST)
		printf("[%s] ", kfit_ctree_ctx_name(h->ctx));
	switch (h->type) {
	case KFIT_REC_CALL:
		put_call(r);
		break;
	case KFIT_REC_SWITCH: {
		const struct kfit_rec_switch *s = r;

		printf("off CPU dur=%s %s state=%u depth=%u", kd_dur(s->dur, d),
		       s->state ? "blocked" : "preempted", s->state, s->depth);
		break;
	}
	case KFIT_REC_IRQ:
		put_irq(r);
		break;
	case KFIT_REC_EVENT:
		put_event(r, h->size);
		break;
	case KFIT_REC_FORK: {
		const struct kfit_rec_task *t = r;

		printf("child=%u/%u", t->child_pid, t->child_tid);
		break;
	}
	case KFIT_REC_EXEC:
		printf("comm=%.16s", ((const struct kfit_rec_task *)r)->comm);
		break;
	case KFIT_REC_EXIT:
		printf("pid=%u", h->pid);
		break;
	case KFIT_REC_SAMPLE:
		put_sample(r, h->size);
		break;
	case KFIT_REC_LOST:
		printf("count=%llu", (unsigned long long)((const struct kfit_rec_lost *)r)->count);
		break;
	}
	putchar('\n');
}

/* Kept until printed: a chunk's records may start before the next chunk's */
static int keep(const struct kfit_rec *h, size_t size)
{
	struct kfit_rec *c;

	/* before the window: only the names it changes count */
	if (h->type != KFIT_REC_LOST && h->ts < env.since)
		return kd_track(h, size);
	if (h->type != KFIT_REC_LOST &&
	    (h->ts < env.since || (env.until && h->ts >= env.until) ||
	     (env.c.pid && h->pid != (__u32)env.c.pid) ||
	     (env.c.tid && h->tid != (__u32)env.c.tid)))
		return 0;
	if (env.npend == env.cappend) {
		size_t cap = env.cappend ? 2 * env.cappend : 1024;
		struct pend *v = realloc(env.pend, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		env.pend = v;
		env.cappend = cap;
	}
	c = malloc(size);
	if (!c)
		return -ENOMEM;
	memcpy(c, h, size);
	env.pend[env.npend++] = (struct pend){ .ts = h->ts, .seq = env.seq++, .r = c };
	return 0;
}

static int keep_lost(const struct kfit_rec *h, size_t size)
{
	return h->type == KFIT_REC_LOST ? keep(h, size) : 0;
}

static int cmp_pend(const void *a, const void *b)
{
	const struct pend *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Print the kept records before limit, in time order; names follow as they go */
static int flush(__u64 limit)
{
	size_t i, k = 0;
	int err = 0;

	if (env.npend > 1)
		qsort(env.pend, env.npend, sizeof(*env.pend), cmp_pend);
	for (i = 0; i < env.npend; i++) {
		struct kfit_rec *h = env.pend[i].r;

		if (h->ts >= limit) {
			env.pend[k++] = env.pend[i];
			continue;
		}
		if (!err)
			err = kd_track(h, h->size);
		if (!err && kfit_ctree_check_rec(h, h->size) &&
		    (h->type == KFIT_REC_LOST || !env.c.comm[0] || kd_chosen(h->pid, h->tid))) {
			kd_count(h, h->size);
			put_record(h);
		}
		free(h);
	}
	env.npend = k;
	return err;
}

/* later[i - first]: the smallest first_ts of chunks i.. of the window */
static __u64 *later;
static int later_first;

/* Chunk i read: what no later chunk can precede is printed */
static int chunk_done(int i)
{
	return flush(later[i - later_first + 1]);
}

int kd_print_events(void)
{
	int first, last, i, err;

	env.tree = kfit_ctree_new(&(struct kfit_ctree_opts){ 0 });	/* irq names */
	if (!env.tree)
		return -ENOMEM;
	printf("%12s %3s %-22s %-6s %s\n", "TIME_S", "CPU", "COMM-TID", "TYPE", "DETAILS");
	err = kd_window(&first, &last);
	if (err == -ENOENT)
		first = 0, last = -1, err = 0;
	if (err)
		return err;
	later = calloc(last - first + 2, sizeof(*later));
	later_first = first;
	if (!later)
		return -ENOMEM;
	later[last - first + 1] = ULLONG_MAX;
	for (i = last; i >= first; i--) {
		__u64 t = kft_chunk_at(env.f, i)->first_ts;

		later[i - first] = t < later[i - first + 1] ? t : later[i - first + 1];
	}
	err = kd_read_range(first, last, keep, chunk_done);
	/* losses are always shown: the LOST records after the window */
	for (i = last + 1; i < kft_nchunks(env.f) && !err && env.until; i++)
		if (kft_chunk_at(env.f, i)->lost)
			err = kd_read_chunk(i, keep_lost);
	if (!err)
		err = flush(ULLONG_MAX);
	free(later);
	later = NULL;
	if (!err && !env.chunks_read && env.chunks_bad)
		err = -EBADMSG;
	return err;
}
