// SPDX-License-Identifier: GPL-2.0
/*
 * bootsum's reports (bootrep.h): the kernel phase and the user-space phase
 * of a boot as text (bootrep_text.c), JSON (bootrep_json.c) and an SVG
 * timeline (bootrep_svg.c), all on the kernel clock (printk/trace
 * timestamps); user-phase times are on the boot clock and are moved onto
 * it with offset_ns. Here: what they share, the indexes and the critical
 * chain.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "bootrep_int.h"

#define DEFAULT_TOP	20

const struct kfit_bootrep_opts bootrep_default_opts = {
	.top = DEFAULT_TOP,
	.chain_target = BS_NONE,
};

unsigned int bootrep_top(const struct kfit_bootrep_opts *o)
{
	return o->top ? o->top : DEFAULT_TOP;
}

/* ---- times and numbers ---- */

/* A user-phase time on the kernel clock; 0 ("none") stays 0 */
__u64 bootrep_kt(const struct kfit_bootrep_user *u, __u64 boot_ns)
{
	__s64 v;

	if (!boot_ns)
		return 0;
	v = (__s64)boot_ns + u->offset_ns;
	return v > 0 ? (__u64)v : 0;
}

bool bootrep_proc_alive(const struct bs_proc *p)
{
	return !(p->flags & BS_P_EXITED) && !p->exit_ns;
}

/* Boot clock. The living end now, or at their last sign of life before it */
__u64 bootrep_proc_end(const struct kfit_bootrep_user *u, const struct bs_proc *p)
{
	__u64 last = p->exec_ns > p->fork_ns ? p->exec_ns : p->fork_ns;

	if (!bootrep_proc_alive(p))
		return p->exit_ns > p->fork_ns ? p->exit_ns : p->fork_ns;
	return u->now_ns > last ? u->now_ns : last;
}

/* v / unit with three decimals, rounded: (1234567, KFIT_MSEC) -> "1.235" */
char *bootrep_fix3(char *buf, size_t len, __u64 v, __u64 unit)
{
	__u64 step = unit >= 1000 ? unit / 1000 : 1, q = (v + step / 2) / step;

	snprintf(buf, len, "%llu.%03llu", (unsigned long long)(q / 1000),
		 (unsigned long long)(q % 1000));
	return buf;
}

unsigned long long bootrep_kib(__u64 bytes)
{
	return (bytes + 1023) / 1024;
}

/* "-19 ENODEV", "0", "1" */
char *bootrep_ret_str(char *buf, size_t len, int ret)
{
	const char *name = ret < 0 && ret > -4096 ? strerrorname_np(-ret) : NULL;

	if (name)
		snprintf(buf, len, "%d %s", ret, name);
	else
		snprintf(buf, len, "%d", ret);
	return buf;
}

/* Exit status as a shell shows it: "0", "1", "SIGKILL"; "-" while alive */
char *bootrep_exit_str(char *buf, size_t len, const struct bs_proc *p)
{
	int sig = p->exit_code & 0x7f;
	const char *name = sig ? sigabbrev_np(sig) : NULL;

	if (bootrep_proc_alive(p))
		snprintf(buf, len, "-");
	else if (sig && name)
		snprintf(buf, len, "SIG%s%s", name, p->exit_code & 0x80 ? "+core" : "");
	else if (sig)
		snprintf(buf, len, "signal %d", sig);
	else
		snprintf(buf, len, "%d", (p->exit_code >> 8) & 0xff);
	return buf;
}

const char *kfit_bootrep_cmdline(const struct bs_proc *p, char *buf, size_t len)
{
	size_t n = p->args_len < BS_ARGS ? p->args_len : BS_ARGS, i, o = 0;

	if (!len)
		return buf;
	while (n && !p->args[n - 1])
		n--;
	if (!n) {
		snprintf(buf, len, "[%.*s]", BS_COMM, p->comm);
		return buf;
	}
	for (i = 0; i < n && o + 1 < len; i++) {
		unsigned char c = p->args[i];

		buf[o++] = !c ? ' ' : c < 0x20 || c == 0x7f ? '?' : c;
	}
	buf[o] = 0;
	if (p->flags & BS_P_ARGS_CUT && o + 4 < len)
		strcpy(buf + o, "...");
	return buf;
}

/* "fn [module]" */
char *bootrep_call_name(char *buf, size_t len, const struct kfit_bootlog_initcall *c)
{
	if (!c->module[0])
		snprintf(buf, len, "%s", c->fn);
	else if (c->module[0] == '[')
		snprintf(buf, len, "%s %s", c->fn, c->module);
	else
		snprintf(buf, len, "%s [%s]", c->fn, c->module);
	return buf;
}

/* What recorded the kernel phase, for the header */
const char *bootrep_src_desc(const struct kfit_bootlog *k)
{
	switch (k->src) {
	case KFIT_BOOTLOG_DMESG:
		return k->ncalls ? "dmesg with initcall_debug" : "dmesg";
	case KFIT_BOOTLOG_TRACE:
		return "tracefs initcall events";
	default:
		return "no source";
	}
}

/* ---- indexes ---- */


static int wait_by_end(const void *a, const void *b, void *ctx)
{
	const struct bs_wait *w = ctx;
	__u64 x = w[*(const __u32 *)a].end_ns, y = w[*(const __u32 *)b].end_ns;

	return x < y ? -1 : x > y;
}

/* Waits of processes not in procs[] are left out. 0 or -ENOMEM */
int bootrep_waitidx_build(struct bootrep_waitidx *wi, const struct kfit_bootrep_user *u)
{
	size_t i, n = 0;
	__u32 *pos;

	wi->order = calloc(u->nwaits + 1, sizeof(*wi->order));
	wi->first = calloc(u->nprocs + 1, sizeof(*wi->first));
	pos = calloc(u->nprocs + 1, sizeof(*pos));
	if (!wi->order || !wi->first || !pos) {
		free(wi->order);
		free(wi->first);
		free(pos);
		return -ENOMEM;
	}
	for (i = 0; i < u->nwaits; i++)
		if (u->waits[i].idx < u->nprocs)
			wi->first[u->waits[i].idx + 1]++;
	for (i = 0; i < u->nprocs; i++)
		wi->first[i + 1] += wi->first[i];
	memcpy(pos, wi->first, u->nprocs * sizeof(*pos));
	for (i = 0; i < u->nwaits; i++)
		if (u->waits[i].idx < u->nprocs) {
			wi->order[pos[u->waits[i].idx]++] = i;
			n++;
		}
	for (i = 0; i < u->nprocs; i++)
		qsort_r(wi->order + wi->first[i], wi->first[i + 1] - wi->first[i],
			sizeof(__u32), wait_by_end, u->waits);
	free(pos);
	return 0;
}

void bootrep_waitidx_free(struct bootrep_waitidx *wi)
{
	free(wi->order);
	free(wi->first);
}

/* ---- the critical chain ---- */

/*
 * The critical chain explains why a process ended when it did, going back
 * in time from its end:
 *
 * - A process P is on the chain from some time up to T (for the target:
 *   its exit, or now while it lives). Before T, the last blocked interval
 *   of P (any of its threads) that another recorded process W ended is
 *   what P was waiting for: W woke it (a child's exit waking a shell in
 *   wait(), a pipe writer waking its reader...). P's link spans that wake
 *   to T, and the chain goes on in W up to the wake (a WAIT link).
 * - Blocked intervals ended by no recorded process (interrupts: timers
 *   and I/O completions; kernel threads; a waker that was not recorded,
 *   its record dropped) do not leave P: P itself was waiting on a timer or
 *   a device, so the walk continues through P; they are summed into P's
 *   link (self_ns) so the text can say so. Waits ended by P's own threads
 *   stay inside P too (not summed: P was not waiting on anything outside).
 * - P waited on no other process since it started: its parent forked it;
 *   the chain goes on in the parent up to the fork (a START link).
 *   It ends at a process without a recorded parent (the first one, or a
 *   parent whose record was dropped).
 *
 * Processes are indices, never pids (pids are reused during a boot). Each
 * link ends strictly before the one after it in the array began to be
 * examined (T decreases at every step), so corrupt data (a cycle of
 * wakers or parents, a wake at the same nanosecond) ends the walk instead
 * of looping.
 */

/* Whether W is a wake by another recorded process that existed then */
static bool woken_by_other(const struct kfit_bootrep_user *u, const struct bs_wait *w)
{
	return w->waker_kind == BS_W_PROC && w->waker_idx < u->nprocs &&
	       w->waker_idx != w->idx &&
	       u->procs[w->waker_idx].fork_ns <= w->end_ns;
}

/* Index in wi->order of the first wait of process I ending at or after T */
static __u32 wait_bound(const struct kfit_bootrep_user *u, const struct bootrep_waitidx *wi,
			__u32 i, __u64 t)
{
	__u32 lo = wi->first[i], hi = wi->first[i + 1], mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (u->waits[wi->order[mid]].end_ns < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The last wait of process I ending in (start, t) that another process ended */
static const struct bs_wait *chain_wait(const struct kfit_bootrep_user *u,
					const struct bootrep_waitidx *wi, __u32 i,
					__u64 start, __u64 t)
{
	__u32 k = wait_bound(u, wi, i, t);
	const struct bs_wait *w;

	while (k-- > wi->first[i]) {
		w = &u->waits[wi->order[k]];
		if (w->end_ns <= start)
			break;
		if (w->waker_kind != BS_W_NEW && woken_by_other(u, w))
			return w;
	}
	return NULL;
}

/* The waits of the link's process inside its span ended by no recorded process */
static void chain_self(const struct kfit_bootrep_user *u, const struct bootrep_waitidx *wi,
		       struct kfit_bootrep_link *l)
{
	__u32 k = wait_bound(u, wi, l->idx, l->to_ns + 1);
	__u64 from, to, longest = 0;
	const struct bs_wait *w;

	while (k-- > wi->first[l->idx]) {
		w = &u->waits[wi->order[k]];
		if (w->end_ns <= l->from_ns)
			break;
		if (w->waker_kind == BS_W_NEW || woken_by_other(u, w) ||
		    (w->waker_kind == BS_W_PROC && w->waker_idx == w->idx))
			continue;
		from = w->start_ns > l->from_ns ? w->start_ns : l->from_ns;
		to = w->end_ns < l->to_ns ? w->end_ns : l->to_ns;
		if (to <= from)
			continue;
		l->self_ns += to - from;
		l->self_n++;
		if (to - from > longest) {
			longest = to - from;
			l->self_kind = w->waker_kind;
			memcpy(l->self_comm, w->waker_comm, BS_COMM);
			l->self_comm[BS_COMM - 1] = 0;
		}
	}
	/* threads waiting at once: never more than the span */
	if (l->self_ns > l->to_ns - l->from_ns)
		l->self_ns = l->to_ns - l->from_ns;
}

__u32 kfit_bootrep_last(const struct kfit_bootrep_user *u)
{
	__u32 i, last = BS_NONE, started = BS_NONE;

	for (i = 0; u && i < u->nprocs; i++) {
		const struct bs_proc *p = &u->procs[i];

		if (!bootrep_proc_alive(p) && (last == BS_NONE || p->exit_ns >= u->procs[last].exit_ns))
			last = i;
		if (started == BS_NONE || p->fork_ns >= u->procs[started].fork_ns)
			started = i;
	}
	return last != BS_NONE ? last : started;
}

__u32 kfit_bootrep_proc_of_pid(const struct kfit_bootrep_user *u, __u32 pid)
{
	size_t i;

	for (i = u ? u->nprocs : 0; i-- > 0;)
		if (u->procs[i].pid == pid)
			return i;
	return BS_NONE;
}

size_t kfit_bootrep_chain(const struct kfit_bootrep_user *u, __u32 target,
		       struct kfit_bootrep_link *out, size_t max)
{
	const struct bs_wait *w;
	const struct bs_proc *p;
	struct kfit_bootrep_link *l;
	struct bootrep_waitidx wi;
	__u32 cur, next;
	__u64 t, nt, wait_ns = 0;
	int why = KFIT_BOOTREP_CHAIN_END;
	size_t n = 0;

	if (!u || !u->nprocs || !out || !max)
		return 0;
	if (target == BS_NONE)
		target = kfit_bootrep_last(u);
	if (target >= u->nprocs || bootrep_waitidx_build(&wi, u))
		return 0;
	cur = target;
	t = bootrep_proc_end(u, &u->procs[cur]);
	while (n < max) {
		p = &u->procs[cur];
		l = &out[n++];
		memset(l, 0, sizeof(*l));
		l->idx = cur;
		l->to_ns = t;
		l->why = why;
		l->wait_ns = wait_ns;
		w = chain_wait(u, &wi, cur, p->fork_ns, t);
		l->from_ns = w ? w->end_ns : p->fork_ns < t ? p->fork_ns : t;
		chain_self(u, &wi, l);
		if (w) {
			next = w->waker_idx;
			nt = w->end_ns;
			why = KFIT_BOOTREP_CHAIN_WAIT;
			wait_ns = w->end_ns - w->start_ns;
		} else {
			next = p->parent_idx;
			nt = p->fork_ns;
			why = KFIT_BOOTREP_CHAIN_START;
			wait_ns = 0;
			if (next >= u->nprocs || next == cur || u->procs[next].fork_ns > nt)
				break;
		}
		if (nt >= t)
			break;
		cur = next;
		t = nt;
	}
	bootrep_waitidx_free(&wi);
	return n;
}
