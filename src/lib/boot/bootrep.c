// SPDX-License-Identifier: GPL-2.0
/*
 * bootsum's reports (bootrep.h): the kernel phase and the user-space phase
 * of a boot as text, JSON and an SVG timeline, all on the kernel clock
 * (printk/trace timestamps); user-phase times are on the boot clock and
 * are moved onto it with offset_ns.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "bootrep.h"
#include "duration.h"
#include "output.h"

#define DEFAULT_TOP	20

static const struct kfit_bootrep_opts default_opts = {
	.top = DEFAULT_TOP,
	.chain_target = BS_NONE,
};

static unsigned int top_of(const struct kfit_bootrep_opts *o)
{
	return o->top ? o->top : DEFAULT_TOP;
}

/* ---- times and numbers ---- */

/* A user-phase time on the kernel clock; 0 ("none") stays 0 */
static __u64 kt(const struct kfit_bootuser *u, __u64 boot_ns)
{
	__s64 v;

	if (!boot_ns)
		return 0;
	v = (__s64)boot_ns + u->offset_ns;
	return v > 0 ? (__u64)v : 0;
}

static bool proc_alive(const struct bs_proc *p)
{
	return !(p->flags & BS_P_EXITED) && !p->exit_ns;
}

/* Boot clock. The living end now, or at their last sign of life before it */
static __u64 proc_end(const struct kfit_bootuser *u, const struct bs_proc *p)
{
	__u64 last = p->exec_ns > p->fork_ns ? p->exec_ns : p->fork_ns;

	if (!proc_alive(p))
		return p->exit_ns > p->fork_ns ? p->exit_ns : p->fork_ns;
	return u->now_ns > last ? u->now_ns : last;
}

/* v / unit with three decimals, rounded: (1234567, KFIT_MSEC) -> "1.235" */
static char *fix3(char *buf, size_t len, __u64 v, __u64 unit)
{
	__u64 step = unit >= 1000 ? unit / 1000 : 1, q = (v + step / 2) / step;

	snprintf(buf, len, "%llu.%03llu", (unsigned long long)(q / 1000),
		 (unsigned long long)(q % 1000));
	return buf;
}

static unsigned long long kib(__u64 bytes)
{
	return (bytes + 1023) / 1024;
}

/* "-19 ENODEV", "0", "1" */
static char *ret_str(char *buf, size_t len, int ret)
{
	const char *name = ret < 0 && ret > -4096 ? strerrorname_np(-ret) : NULL;

	if (name)
		snprintf(buf, len, "%d %s", ret, name);
	else
		snprintf(buf, len, "%d", ret);
	return buf;
}

/* Exit status as a shell shows it: "0", "1", "SIGKILL"; "-" while alive */
static char *exit_str(char *buf, size_t len, const struct bs_proc *p)
{
	int sig = p->exit_code & 0x7f;
	const char *name = sig ? sigabbrev_np(sig) : NULL;

	if (proc_alive(p))
		snprintf(buf, len, "-");
	else if (sig && name)
		snprintf(buf, len, "SIG%s%s", name, p->exit_code & 0x80 ? "+core" : "");
	else if (sig)
		snprintf(buf, len, "signal %d", sig);
	else
		snprintf(buf, len, "%d", (p->exit_code >> 8) & 0xff);
	return buf;
}

const char *kfit_boot_cmdline(const struct bs_proc *p, char *buf, size_t len)
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
static char *call_name(char *buf, size_t len, const struct kfit_initcall *c)
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
static const char *src_desc(const struct kfit_bootlog *k)
{
	switch (k->src) {
	case KFIT_BOOT_DMESG:
		return k->ncalls ? "dmesg with initcall_debug" : "dmesg";
	case KFIT_BOOT_TRACE:
		return "tracefs initcall events";
	default:
		return "no source";
	}
}

/* ---- indexes ---- */

/* The waits of each process, by end: order[first[i] .. first[i + 1]) */
struct waitidx {
	__u32 *order;
	__u32 *first;
};

static int wait_by_end(const void *a, const void *b, void *ctx)
{
	const struct bs_wait *w = ctx;
	__u64 x = w[*(const __u32 *)a].end_ns, y = w[*(const __u32 *)b].end_ns;

	return x < y ? -1 : x > y;
}

/* Waits of processes not in procs[] are left out. 0 or -ENOMEM */
static int waitidx_build(struct waitidx *wi, const struct kfit_bootuser *u)
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

static void waitidx_free(struct waitidx *wi)
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
static bool woken_by_other(const struct kfit_bootuser *u, const struct bs_wait *w)
{
	return w->waker_kind == BS_W_PROC && w->waker_idx < u->nprocs &&
	       w->waker_idx != w->idx &&
	       u->procs[w->waker_idx].fork_ns <= w->end_ns;
}

/* Index in wi->order of the first wait of process I ending at or after T */
static __u32 wait_bound(const struct kfit_bootuser *u, const struct waitidx *wi,
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
static const struct bs_wait *chain_wait(const struct kfit_bootuser *u,
					const struct waitidx *wi, __u32 i,
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
static void chain_self(const struct kfit_bootuser *u, const struct waitidx *wi,
		       struct kfit_chainlink *l)
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

__u32 kfit_boot_last(const struct kfit_bootuser *u)
{
	__u32 i, last = BS_NONE, started = BS_NONE;

	for (i = 0; u && i < u->nprocs; i++) {
		const struct bs_proc *p = &u->procs[i];

		if (!proc_alive(p) && (last == BS_NONE || p->exit_ns >= u->procs[last].exit_ns))
			last = i;
		if (started == BS_NONE || p->fork_ns >= u->procs[started].fork_ns)
			started = i;
	}
	return last != BS_NONE ? last : started;
}

__u32 kfit_boot_proc_of_pid(const struct kfit_bootuser *u, __u32 pid)
{
	size_t i;

	for (i = u ? u->nprocs : 0; i-- > 0;)
		if (u->procs[i].pid == pid)
			return i;
	return BS_NONE;
}

size_t kfit_boot_chain(const struct kfit_bootuser *u, __u32 target,
		       struct kfit_chainlink *out, size_t max)
{
	const struct bs_wait *w;
	const struct bs_proc *p;
	struct kfit_chainlink *l;
	struct waitidx wi;
	__u32 cur, next;
	__u64 t, nt, wait_ns = 0;
	int why = KFIT_CHAIN_END;
	size_t n = 0;

	if (!u || !u->nprocs || !out || !max)
		return 0;
	if (target == BS_NONE)
		target = kfit_boot_last(u);
	if (target >= u->nprocs || waitidx_build(&wi, u))
		return 0;
	cur = target;
	t = proc_end(u, &u->procs[cur]);
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
			why = KFIT_CHAIN_WAIT;
			wait_ns = w->end_ns - w->start_ns;
		} else {
			next = p->parent_idx;
			nt = p->fork_ns;
			why = KFIT_CHAIN_START;
			wait_ns = 0;
			if (next >= u->nprocs || next == cur || u->procs[next].fork_ns > nt)
				break;
		}
		if (nt >= t)
			break;
		cur = next;
		t = nt;
	}
	waitidx_free(&wi);
	return n;
}

/* ---- text ---- */

/* A table, indented, then freed; NULL (out of memory) says so */
static void table_out(FILE *f, struct kfit_table *t, int indent)
{
	char *buf = NULL, *line, *nl;
	size_t len = 0;
	FILE *m;

	if (!t) {
		fprintf(f, "%*s(out of memory)\n", indent, "");
		return;
	}
	m = open_memstream(&buf, &len);
	if (m) {
		kfit_table_print(t, m);
		fclose(m);
	}
	for (line = buf; line && *line; line = nl + 1) {
		nl = strchrnul(line, '\n');
		fprintf(f, "%*s%.*s\n", indent, "", (int)(nl - line), line);
		if (!*nl)
			break;
	}
	free(buf);
	kfit_table_free(t);
}

static void cell_fix3(struct kfit_table *t, __u64 v, __u64 unit)
{
	char b[32];

	kfit_table_cell(t, "%s", fix3(b, sizeof(b), v, unit));
}

static const char *plural(__u64 n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static int by_dur_desc(const void *a, const void *b, void *ctx)
{
	const struct kfit_initcall *c = ctx;
	const struct kfit_initcall *x = &c[*(const __u32 *)a], *y = &c[*(const __u32 *)b];

	if (x->dur_ns != y->dur_ns)
		return x->dur_ns > y->dur_ns ? -1 : 1;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* The finished initcalls at least min_ns long, slowest first; their count */
static __u32 *slow_calls(const struct kfit_bootlog *k, __u64 min_ns, size_t *n)
{
	__u32 *v = calloc(k->ncalls + 1, sizeof(*v));
	size_t i;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < k->ncalls; i++)
		if (k->calls[i].finished && k->calls[i].dur_ns >= min_ns)
			v[(*n)++] = i;
	qsort_r(v, *n, sizeof(*v), by_dur_desc, k->calls);
	return v;
}

static struct kfit_table *calls_table(void)
{
	static const char *const h[] = { "START s", "TIME ms", "LEVEL", "RET", "FUNCTION" };

	return kfit_table_new(5, h, "rrlrl");
}

static void call_row(struct kfit_table *t, const struct kfit_initcall *c)
{
	char b[128];

	kfit_table_row(t);
	cell_fix3(t, c->start_ns, KFIT_SEC);
	if (c->finished)
		cell_fix3(t, c->dur_ns, KFIT_MSEC);
	else
		kfit_table_cell(t, "-");
	kfit_table_cell(t, "%s", c->level[0] ? c->level : "?");
	if (c->finished)
		kfit_table_cell(t, "%s", ret_str(b, sizeof(b), c->ret));
	else
		kfit_table_cell(t, "-");
	kfit_table_cell(t, "%s", call_name(b, sizeof(b), c));
}

static void levels_text(FILE *f, const struct kfit_bootlog *k)
{
	static const char *const h[] = { "LEVEL", "START s", "END s", "INITCALLS", "TIME ms" };
	struct kfit_table *t;
	size_t i, unnamed = 0;

	for (i = 0; i < k->ncalls; i++)
		unnamed += !k->calls[i].level[0];
	if (unnamed)
		fprintf(f, "  levels: %zu initcall%s not named in the record (dmesg has no level "
			"lines; --kallsyms FILE names them from a saved /proc/kallsyms)\n",
			unnamed, plural(unnamed, "", "s"));
	if (!k->nlevels)
		return;
	t = kfit_table_new(5, h, "lrrrr");
	for (i = 0; t && i < k->nlevels; i++) {
		const struct kfit_initlevel *l = &k->levels[i];

		kfit_table_row(t);
		kfit_table_cell(t, "%s", l->name);
		cell_fix3(t, l->start_ns, KFIT_SEC);
		cell_fix3(t, l->end_ns, KFIT_SEC);
		kfit_table_cell(t, "%u", l->n);
		cell_fix3(t, l->sum_ns, KFIT_MSEC);
	}
	table_out(f, t, 2);
}

static void slow_calls_text(FILE *f, const struct kfit_bootlog *k,
			    const struct kfit_bootrep_opts *o, size_t nfin)
{
	size_t n, i, show;
	struct kfit_table *t;
	__u32 *v = slow_calls(k, o->min_ns, &n);
	char b[32];

	if (!v) {
		fputs("  Slowest initcalls: (out of memory)\n", f);
		return;
	}
	show = n < top_of(o) ? n : top_of(o);
	fprintf(f, "  Slowest initcalls (%zu of %zu finished", show, nfin);
	if (o->min_ns)
		fprintf(f, "; %zu shorter than %s not listed", nfin - n,
			kfit_fmt_duration(o->min_ns, b, sizeof(b)));
	fputs("):\n", f);
	if (!show) {
		fputs("    none\n", f);
		free(v);
		return;
	}
	t = calls_table();
	for (i = 0; t && i < show; i++)
		call_row(t, &k->calls[v[i]]);
	table_out(f, t, 4);
	free(v);
}

/* Failed and unfinished ones are listed whatever their time */
static void bad_calls_text(FILE *f, const struct kfit_bootlog *k, size_t nfail,
			   size_t nunfin)
{
	struct kfit_table *t;
	size_t i;

	if (nfail) {
		fputs("  Failed initcalls (RET != 0; negative: -errno):\n", f);
		t = calls_table();
		for (i = 0; t && i < k->ncalls; i++)
			if (k->calls[i].finished && k->calls[i].ret)
				call_row(t, &k->calls[i]);
		table_out(f, t, 4);
	}
	if (nunfin) {
		fputs("  Unfinished initcalls (started, no return in the record):\n", f);
		t = calls_table();
		for (i = 0; t && i < k->ncalls; i++)
			if (!k->calls[i].finished)
				call_row(t, &k->calls[i]);
		table_out(f, t, 4);
	}
}

/* A record with no initcalls still tells when the first process started */
static void no_calls_text(FILE *f, const struct kfit_bootlog *k)
{
	char b[32];

	fprintf(f, "Kernel phase (%s): ", src_desc(k));
	if (k->init_ns)
		fprintf(f, "kernel start to %s: %s s; ", k->init_path[0] ? k->init_path :
			"the first process", fix3(b, sizeof(b), k->init_ns, KFIT_SEC));
	fputs("no initcalls in the record: boot with initcall_debug (dmesg) or "
	      "trace_event=initcall:*,module:module_load (tracefs) to see them\n", f);
}

static void kernel_text(FILE *f, const struct kfit_bootlog *k,
			const struct kfit_bootrep_opts *o)
{
	size_t i, nfin = 0, nfail = 0;
	__u64 sum = 0;
	char b[32];

	if (!k) {
		fputs("Kernel phase: not recorded. Boot with initcall_debug (dmesg; "
		      "log_buf_len=8M for a long boot) or trace_event=initcall:*,"
		      "module:module_load trace_buf_size=8M (tracefs), or give a saved "
		      "one with --from FILE\n", f);
		return;
	}
	if (!k->ncalls) {
		no_calls_text(f, k);
		return;
	}
	fprintf(f, "Kernel phase (%s):\n", src_desc(k));
	if (o->note)
		fprintf(f, "  sources: %s\n", o->note);
	if (!k->complete)
		fprintf(f, "  incomplete: %s\n", k->why[0] ? k->why : "part of the boot "
			"is missing from the record");
	else if (k->why[0] && !(o->note && strstr(o->note, k->why)))
		fprintf(f, "  %s\n", k->why);
	for (i = 0; i < k->ncalls; i++) {
		if (!k->calls[i].finished)
			continue;
		nfin++;
		sum += k->calls[i].dur_ns;
		nfail += k->calls[i].ret != 0;
	}
	if (k->init_ns)
		fprintf(f, "  kernel start to %s: %s s", k->init_path[0] ? k->init_path :
			"the first process", fix3(b, sizeof(b), k->init_ns, KFIT_SEC));
	else
		fputs("  kernel start to the first process: not in the record (no "
		      "\"Run /init as init process\" line)", f);
	fprintf(f, "; %zu initcall%s, %s s in them; %zu failed", k->ncalls,
		plural(k->ncalls, "", "s"), fix3(b, sizeof(b), sum, KFIT_SEC), nfail);
	if (k->ncalls > nfin)
		fprintf(f, "; %zu unfinished", k->ncalls - nfin);
	fputc('\n', f);
	levels_text(f, k);
	slow_calls_text(f, k, o, nfin);
	bad_calls_text(f, k, nfail, k->ncalls - nfin);
}

static struct kfit_table *procs_table(void)
{
	static const char *const h[] = {
		"START s", "TIME ms", "PID", "PPID", "EXIT", "CPU ms", "RUNQ ms",
		"BLOCK ms", "IO KiB r/w", "COMMAND",
	};

	return kfit_table_new(10, h, "rrrrrrrrrl");
}

static void proc_row(struct kfit_table *t, const struct kfit_bootuser *u,
		     const struct bs_proc *p)
{
	__u64 end = proc_end(u, p);
	char b[BS_ARGS + 8];

	kfit_table_row(t);
	cell_fix3(t, kt(u, p->fork_ns), KFIT_SEC);
	fix3(b, sizeof(b), end - p->fork_ns, KFIT_MSEC);
	kfit_table_cell(t, "%s%s", b, proc_alive(p) ? "+" : "");
	kfit_table_cell(t, "%u", p->pid);
	kfit_table_cell(t, "%u", p->ppid);
	kfit_table_cell(t, "%s", exit_str(b, sizeof(b), p));
	cell_fix3(t, p->oncpu_ns, KFIT_MSEC);
	cell_fix3(t, p->runnable_ns, KFIT_MSEC);
	cell_fix3(t, p->blocked_ns, KFIT_MSEC);
	kfit_table_cell(t, "%llu/%llu", kib(p->rd_bytes), kib(p->wr_bytes));
	kfit_table_cell(t, "%s", kfit_boot_cmdline(p, b, sizeof(b)));
}

static __u64 proc_dur(const struct kfit_bootuser *u, const struct bs_proc *p)
{
	return proc_end(u, p) - p->fork_ns;
}

static int by_proc_dur(const void *a, const void *b, void *ctx)
{
	const struct kfit_bootuser *u = ctx;
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;
	__u64 dx = proc_dur(u, &u->procs[x]), dy = proc_dur(u, &u->procs[y]);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int by_start(const void *a, const void *b, void *ctx)
{
	const struct kfit_bootuser *u = ctx;
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;
	__u64 sx = u->procs[x].fork_ns, sy = u->procs[y].fork_ns;

	if (sx != sy)
		return sx < sy ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void timeline_text(FILE *f, const struct kfit_bootuser *u,
			  const struct kfit_bootrep_opts *o)
{
	bool all = o->timeline_all || !o->min_ns;
	__u32 *v = calloc(u->nprocs + 1, sizeof(*v));
	struct kfit_table *t;
	size_t i, shown = 0;
	char b[32];

	if (!v) {
		fputs("  Timeline: (out of memory)\n", f);
		return;
	}
	for (i = 0; i < u->nprocs; i++)
		if (all || proc_dur(u, &u->procs[i]) >= o->min_ns)
			v[shown++] = i;
	qsort_r(v, shown, sizeof(*v), by_start, (void *)u);
	fprintf(f, "  Timeline (%zu of %zu processes", shown, u->nprocs);
	if (!all)
		fprintf(f, "; %zu shorter than %s not listed, -v lists them",
			u->nprocs - shown, kfit_fmt_duration(o->min_ns, b, sizeof(b)));
	fputs("; TIME +: still running):\n", f);
	t = procs_table();
	for (i = 0; t && i < shown; i++)
		proc_row(t, u, &u->procs[v[i]]);
	table_out(f, t, 4);
	free(v);
}

static void slow_procs_text(FILE *f, const struct kfit_bootuser *u,
			    const struct kfit_bootrep_opts *o)
{
	__u32 *v = calloc(u->nprocs + 1, sizeof(*v));
	struct kfit_table *t;
	size_t i, n = 0, show;
	char b[32];

	if (!v) {
		fputs("  Slowest processes: (out of memory)\n", f);
		return;
	}
	for (i = 0; i < u->nprocs; i++)
		if (proc_dur(u, &u->procs[i]) >= o->min_ns)
			v[n++] = i;
	qsort_r(v, n, sizeof(*v), by_proc_dur, (void *)u);
	show = n < top_of(o) ? n : top_of(o);
	fprintf(f, "  Slowest processes (%zu of %zu", show, u->nprocs);
	if (o->min_ns)
		fprintf(f, "; %zu shorter than %s not listed", u->nprocs - n,
			kfit_fmt_duration(o->min_ns, b, sizeof(b)));
	fputs("):\n", f);
	t = procs_table();
	for (i = 0; t && i < show; i++)
		proc_row(t, u, &u->procs[v[i]]);
	if (show)
		table_out(f, t, 4);
	else
		kfit_table_free(t), fputs("    none\n", f);
	free(v);
}

/* "; 1.00s of it blocked, woken by interrupts (timers, I/O)" */
static void self_text(char *buf, size_t len, const struct kfit_chainlink *l)
{
	char d[32];

	buf[0] = 0;
	if (!l->self_n)
		return;
	kfit_fmt_duration(l->self_ns, d, sizeof(d));
	switch (l->self_kind) {
	case BS_W_IRQ:
		snprintf(buf, len, "; %s of it blocked on timers or I/O (woken by interrupts)", d);
		break;
	case BS_W_KTHREAD:
		snprintf(buf, len, "; %s of it blocked, woken by kernel thread %s", d,
			 l->self_comm);
		break;
	default:
		snprintf(buf, len, "; %s of it blocked, woken by a process not recorded", d);
	}
	if (l->self_n > 1)
		snprintf(buf + strlen(buf), len - strlen(buf), " (%u waits)", l->self_n);
}

static void chain_row(struct kfit_table *t, const struct kfit_bootuser *u,
		      const struct kfit_chainlink *l, bool first)
{
	const struct bs_proc *p = &u->procs[l->idx];
	char cmd[BS_ARGS + 8], self[160], d[32];

	kfit_table_row(t);
	cell_fix3(t, kt(u, l->to_ns), KFIT_SEC);
	cell_fix3(t, l->to_ns - l->from_ns, KFIT_MSEC);
	kfit_boot_cmdline(p, cmd, sizeof(cmd));
	self_text(self, sizeof(self), l);
	if (first)
		kfit_table_cell(t, "%s (%u)%s", cmd, p->pid, self);
	else if (l->why == KFIT_CHAIN_WAIT)
		kfit_table_cell(t, "└ %s (%u): woke the one above, which had waited %s "
				"for it%s",
				cmd, p->pid, kfit_fmt_duration(l->wait_ns, d, sizeof(d)), self);
	else
		kfit_table_cell(t, "└ %s (%u): forked the one above%s", cmd, p->pid, self);
}

/* Links shorter than this are summed up in runs (a script's short commands) */
static __u64 chain_short(const struct kfit_bootrep_opts *o)
{
	return o->min_ns > KFIT_MSEC ? o->min_ns : KFIT_MSEC;
}

/* How many links from I on are short, the first (the target) never; -v: none */
static size_t chain_run(const struct kfit_chainlink *c, size_t i, size_t n,
			const struct kfit_bootrep_opts *o)
{
	size_t k = i;

	if (!i || o->timeline_all)
		return 0;
	while (k < n && c[k].to_ns - c[k].from_ns < chain_short(o))
		k++;
	return k - i;
}

static void chain_text(FILE *f, const struct kfit_bootuser *u,
		       const struct kfit_bootrep_opts *o)
{
	static const char *const h[] = { "END s", "SPAN ms", "PROCESS" };
	struct kfit_chainlink *c = calloc(u->nprocs + u->nwaits + 1, sizeof(*c));
	__u32 target = o->chain_target;
	const struct bs_proc *p, *last;
	struct kfit_table *t;
	char cmd[BS_ARGS + 8], b[32];
	size_t n, i;

	if (!c) {
		fputs("  Critical chain: (out of memory)\n", f);
		return;
	}
	if (target == BS_NONE)
		target = kfit_boot_last(u);
	n = kfit_boot_chain(u, target, c, u->nprocs + u->nwaits + 1);
	if (!n) {
		fprintf(f, "  Critical chain: no process with index %u\n", target);
		free(c);
		return;
	}
	p = &u->procs[target];
	fprintf(f, "  Critical chain (ending at PID %u \"%s\", %s %s s; END s: "
		"where each link's part ends, SPAN ms: its part):\n", p->pid,
		kfit_boot_cmdline(p, cmd, sizeof(cmd)),
		proc_alive(p) ? "still running at" : o->chain_target == BS_NONE ?
		"the last to exit, at" : "exited at",
		fix3(b, sizeof(b), kt(u, c[0].to_ns), KFIT_SEC));
	t = kfit_table_new(3, h, "rrl");
	for (i = 0; t && i < n; i++) {
		size_t run = chain_run(c, i, n, o);

		if (run < 3) {
			chain_row(t, u, &c[i], i == 0);
			continue;
		}
		kfit_table_row(t);
		cell_fix3(t, kt(u, c[i].to_ns), KFIT_SEC);
		cell_fix3(t, c[i].to_ns - c[i + run - 1].from_ns, KFIT_MSEC);
		kfit_table_cell(t, "└ ... %zu links under %s each (-v lists them)", run,
				kfit_fmt_duration(chain_short(o), b, sizeof(b)));
		i += run - 1;
	}
	table_out(f, t, 4);
	last = &u->procs[c[n - 1].idx];
	if (last->flags & BS_P_PREEXIST)
		fprintf(f, "    (PID %u was there when recording began)\n", last->pid);
	else if (last->parent_idx >= u->nprocs && last->ppid)
		fprintf(f, "    (its parent, PID %u, was not recorded)\n", last->ppid);
	free(c);
}

static void modules_text(FILE *f, const struct kfit_bootuser *u)
{
	static const char *const h[] = {
		"LOAD s", "INIT ms", "RET", "MODULE", "INIT FUNCTION", "LOADED BY",
	};
	struct kfit_table *t;
	char b[BS_ARGS + 8];
	size_t i;

	if (!u->nmods) {
		fputs("  Modules: none loaded\n", f);
		return;
	}
	fputs("  Modules:\n", f);
	t = kfit_table_new(6, h, "rrrlll");
	for (i = 0; t && i < u->nmods; i++) {
		const struct bs_mod *m = &u->mods[i];
		bool ran = m->init_start_ns && m->init_end_ns >= m->init_start_ns;

		kfit_table_row(t);
		cell_fix3(t, kt(u, m->load_ns), KFIT_SEC);
		if (ran)
			cell_fix3(t, m->init_end_ns - m->init_start_ns, KFIT_MSEC);
		else
			kfit_table_cell(t, "-");
		kfit_table_cell(t, "%s", ran ? ret_str(b, sizeof(b), m->ret) : "-");
		kfit_table_cell(t, "%.*s", BS_MODNAME, m->name);
		/* a module without module_init (virtio_ring) has no init to run */
		kfit_table_cell(t, "%.*s", BS_SYM, m->init_sym[0] ? m->init_sym :
				m->init_addr ? "?" : "(none)");
		if (m->loader_idx < u->nprocs)
			kfit_table_cell(t, "%s (%u)", kfit_boot_cmdline(&u->procs[m->loader_idx],
					b, sizeof(b)), m->pid);
		else
			kfit_table_cell(t, "PID %u", m->pid);
	}
	table_out(f, t, 4);
}

/* The last time anything was recorded in the user phase (boot clock) */
static __u64 user_last(const struct kfit_bootuser *u)
{
	__u64 last = u->meta.early_ns;
	size_t i;

	for (i = 0; i < u->nprocs; i++) {
		const struct bs_proc *p = &u->procs[i];
		__u64 t = proc_alive(p) ? (p->exec_ns > p->fork_ns ? p->exec_ns : p->fork_ns) :
			  p->exit_ns;

		if (t > last)
			last = t;
	}
	for (i = 0; i < u->nwaits; i++)
		if (u->waits[i].end_ns > last)
			last = u->waits[i].end_ns;
	for (i = 0; i < u->nmods; i++)
		if (u->mods[i].init_end_ns > last)
			last = u->mods[i].init_end_ns;
	return last;
}

static void user_text(FILE *f, const struct kfit_bootuser *u,
		      const struct kfit_bootrep_opts *o)
{
	const struct bs_meta *m;
	char b[32];

	if (!u) {
		fputs("User space: not recorded. Boot with bootsum as the first process: "
		      "rdinit=PATH/bootsum -- --early /init (initramfs) or "
		      "init=PATH/bootsum -- --early /sbin/init, last on the line\n", f);
		return;
	}
	m = &u->meta;
	fprintf(f, "User space (bootsum --early from %s s", fix3(b, sizeof(b),
		kt(u, m->early_ns), KFIT_SEC));
	if (u->found)
		fprintf(f, "; found %s", u->found);
	if (m->stopped)
		fputs("; stopped by bootsum --stop", f);
	fputs("):\n", f);
	if (!u->offset_known)
		fputs("  (user times on the boot clock; kernel offset unknown)\n", f);
	if (m->init_path[0])
		fprintf(f, "  init: %.*s, exec'd at %s s\n", BS_ARGS, m->init_path,
			fix3(b, sizeof(b), kt(u, m->exec_ns), KFIT_SEC));
	fprintf(f, "  %zu process%s (%llu dropped), %zu wait%s (%llu dropped), "
		"%zu module%s (%llu dropped)\n", u->nprocs, plural(u->nprocs, "", "es"),
		(unsigned long long)m->drop_procs, u->nwaits, plural(u->nwaits, "", "s"),
		(unsigned long long)m->drop_waits, u->nmods, plural(u->nmods, "", "s"),
		(unsigned long long)m->drop_mods);
	if (!u->nprocs) {
		fputs("  no processes recorded\n", f);
	} else {
		timeline_text(f, u, o);
		slow_procs_text(f, u, o);
		chain_text(f, u, o);
	}
	modules_text(f, u);
}

/* Appends ", WHAT" (or "WHAT" first) when n is not 0 */
static void lost_item(char *buf, size_t len, unsigned long long n, const char *what)
{
	size_t l = strlen(buf);

	if (n && l < len)
		snprintf(buf + l, len - l, "%s%llu %s", l ? ", " : "", n, what);
}

static void lost_text(FILE *f, const struct kfit_bootlog *k,
		      const struct kfit_bootuser *u)
{
	char buf[768] = "";
	size_t l;

	if (k) {
		lost_item(buf, sizeof(buf), k->garbled, "garbled kernel log lines");
		lost_item(buf, sizeof(buf), k->unmatched, "initcall starts or ends "
			  "without their pair");
		if (k->entries_written > k->entries_in_buffer)
			lost_item(buf, sizeof(buf), k->entries_written - k->entries_in_buffer,
				  "trace entries overwritten (trace_buf_size= larger)");
		l = strlen(buf);
		if (k->log_start_lost)
			snprintf(buf + l, sizeof(buf) - l, "%sthe kernel log's beginning "
				 "(log_buf_len= larger)", l ? ", " : "");
	}
	if (u) {
		lost_item(buf, sizeof(buf), u->meta.drop_procs, "processes (bs_procs full: "
			  "--max-procs)");
		lost_item(buf, sizeof(buf), u->meta.drop_waits, "waits (bs_waits full: "
			  "--max-waits)");
		lost_item(buf, sizeof(buf), u->meta.drop_mods, "modules (bs_mods full)");
		lost_item(buf, sizeof(buf), u->meta.drop_io, "block requests not followed");
		lost_item(buf, sizeof(buf), u->meta.drop_tasks, "threads not followed "
			  "(no task storage)");
		lost_item(buf, sizeof(buf), u->meta.unknown_tgid, "events of processes "
			  "started before recording");
	}
	if (k || u)
		fprintf(f, "Lost: %s\n", buf[0] ? buf : "none");
}

/* "Linux version 6.12.1-amd64 (...)" -> "6.12.1-amd64" */
static void kernel_version(char *buf, size_t len, const struct kfit_bootlog *k)
{
	const char *s = k ? strstr(k->uname, "Linux version ") : NULL;

	buf[0] = 0;
	if (s)
		snprintf(buf, len, "%.*s", (int)strcspn(s + 14, " "), s + 14);
}

void kfit_bootrep_text(FILE *f, const struct kfit_bootlog *k,
		       const struct kfit_bootuser *u, const struct kfit_bootrep_opts *o)
{
	char ver[64], b[32];

	if (!o)
		o = &default_opts;
	kernel_version(ver, sizeof(ver), k);
	fprintf(f, "Boot%s%s:", ver[0] ? " of " : "", ver);
	if (k && k->init_ns)
		fprintf(f, " kernel %s s to %s", fix3(b, sizeof(b), k->init_ns, KFIT_SEC),
			k->init_path[0] ? k->init_path : "the first process");
	else
		fputs(k ? " kernel phase without its end" : " kernel phase not recorded", f);
	if (u)
		fprintf(f, ", user space %s s recorded\n", fix3(b, sizeof(b),
			user_last(u) - u->meta.early_ns, KFIT_SEC));
	else
		fputs(", user space not recorded\n", f);
	kernel_text(f, k, o);
	user_text(f, u, o);
	lost_text(f, k, u);
}

/* ---- JSON ---- */

static void json_call(struct kfit_json *j, const struct kfit_initcall *c)
{
	const char *err = c->ret < 0 && c->ret > -4096 ? strerrorname_np(-c->ret) : NULL;
	char addr[24];

	kfit_json_begin_object(j, NULL);
	kfit_json_str(j, "fn", c->fn);
	kfit_json_str(j, "module", c->module);
	kfit_json_str(j, "level", c->level);
	if (c->addr) {
		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)c->addr);
		kfit_json_str(j, "addr", addr);
	}
	kfit_json_u64(j, "start_ns", c->start_ns);
	kfit_json_bool(j, "finished", c->finished);
	if (c->finished) {
		kfit_json_u64(j, "end_ns", c->end_ns);
		kfit_json_u64(j, "dur_ns", c->dur_ns);
		kfit_json_i64(j, "ret", c->ret);
		if (err)
			kfit_json_str(j, "errno", err);
	}
	kfit_json_i64(j, "pid", c->pid);
	kfit_json_end_object(j);
}

static void json_kernel(struct kfit_json *j, const struct kfit_bootlog *k,
			const struct kfit_bootrep_opts *o)
{
	size_t i;

	if (!k) {
		kfit_json_null(j, "kernel");
		return;
	}
	kfit_json_begin_object(j, "kernel");
	kfit_json_str(j, "source", kfit_bootsrc_name(k->src));
	kfit_json_bool(j, "complete", k->complete);
	kfit_json_str(j, "why", k->why);
	if (o->note)
		kfit_json_str(j, "note", o->note);
	else
		kfit_json_null(j, "note");
	kfit_json_str(j, "uname", k->uname);
	kfit_json_str(j, "cmdline", k->cmdline);
	kfit_json_str(j, "init_path", k->init_path);
	kfit_json_u64(j, "init_ns", k->init_ns);
	kfit_json_u64(j, "first_ns", k->first_ns);
	kfit_json_u64(j, "last_ns", k->last_ns);
	if (k->has_marker) {
		kfit_json_begin_object(j, "marker");
		kfit_json_u64(j, "kernel_ns", k->marker_ns);
		kfit_json_u64(j, "boot_ns", k->marker_boot_ns);
		kfit_json_end_object(j);
	} else {
		kfit_json_null(j, "marker");
	}
	kfit_json_u64(j, "garbled", k->garbled);
	kfit_json_u64(j, "unmatched", k->unmatched);
	kfit_json_u64(j, "entries_written", k->entries_written);
	kfit_json_u64(j, "entries_in_buffer", k->entries_in_buffer);
	kfit_json_bool(j, "log_start_lost", k->log_start_lost);
	kfit_json_begin_array(j, "levels");
	for (i = 0; i < k->nlevels; i++) {
		kfit_json_begin_object(j, NULL);
		kfit_json_str(j, "name", k->levels[i].name);
		kfit_json_u64(j, "start_ns", k->levels[i].start_ns);
		kfit_json_u64(j, "end_ns", k->levels[i].end_ns);
		kfit_json_u64(j, "sum_ns", k->levels[i].sum_ns);
		kfit_json_u64(j, "n", k->levels[i].n);
		kfit_json_end_object(j);
	}
	kfit_json_end_array(j);
	kfit_json_begin_array(j, "initcalls");
	for (i = 0; i < k->ncalls; i++)
		json_call(j, &k->calls[i]);
	kfit_json_end_array(j);
	kfit_json_begin_array(j, "failed");
	for (i = 0; i < k->ncalls; i++)
		if (k->calls[i].finished && k->calls[i].ret)
			json_call(j, &k->calls[i]);
	kfit_json_end_array(j);
	kfit_json_end_object(j);
}

static void json_argv(struct kfit_json *j, const struct bs_proc *p)
{
	size_t n = p->args_len < BS_ARGS ? p->args_len : BS_ARGS, i = 0, e;
	char arg[BS_ARGS + 1];

	kfit_json_begin_array(j, "argv");
	while (i < n) {
		for (e = i; e < n && p->args[e]; e++)
			;
		memcpy(arg, p->args + i, e - i);
		arg[e - i] = 0;
		kfit_json_str(j, NULL, arg);
		i = e + 1;
	}
	kfit_json_end_array(j);
}

static void json_proc(struct kfit_json *j, const struct kfit_bootuser *u, __u32 i,
		      __u32 nwaits)
{
	const struct bs_proc *p = &u->procs[i];
	char b[BS_ARGS + 8];

	kfit_json_begin_object(j, NULL);
	kfit_json_u64(j, "idx", i);
	kfit_json_u64(j, "pid", p->pid);
	kfit_json_u64(j, "ppid", p->ppid);
	if (p->parent_idx < u->nprocs)
		kfit_json_u64(j, "parent_idx", p->parent_idx);
	else
		kfit_json_null(j, "parent_idx");
	kfit_json_u64(j, "fork_ns", p->fork_ns);
	kfit_json_u64(j, "exec_ns", p->exec_ns);
	kfit_json_u64(j, "exit_ns", p->exit_ns);
	kfit_json_bool(j, "alive", proc_alive(p));
	kfit_json_bool(j, "preexisting", p->flags & BS_P_PREEXIST);
	kfit_json_i64(j, "exit_code", p->exit_code);
	kfit_json_u64(j, "nexec", p->nexec);
	kfit_json_u64(j, "nthreads", p->nthreads);
	kfit_json_u64(j, "oncpu_ns", p->oncpu_ns);
	kfit_json_u64(j, "runnable_ns", p->runnable_ns);
	kfit_json_u64(j, "blocked_ns", p->blocked_ns);
	kfit_json_u64(j, "io_ns", p->io_ns);
	kfit_json_u64(j, "rd_bytes", p->rd_bytes);
	kfit_json_u64(j, "wr_bytes", p->wr_bytes);
	kfit_json_u64(j, "rd_ios", p->rd_ios);
	kfit_json_u64(j, "wr_ios", p->wr_ios);
	kfit_json_u64(j, "waits", nwaits);
	snprintf(b, sizeof(b), "%.*s", BS_COMM, p->comm);
	kfit_json_str(j, "comm", b);
	json_argv(j, p);
	kfit_json_bool(j, "args_cut", p->flags & BS_P_ARGS_CUT);
	kfit_json_str(j, "cmdline", kfit_boot_cmdline(p, b, sizeof(b)));
	kfit_json_end_object(j);
}

static const char *waker_name(__u32 kind)
{
	switch (kind) {
	case BS_W_PROC: return "process";
	case BS_W_KTHREAD: return "kthread";
	case BS_W_IRQ: return "irq";
	default: return "new";
	}
}

static void json_chain(struct kfit_json *j, const struct kfit_bootuser *u,
		       const struct kfit_bootrep_opts *o)
{
	static const char *const why[] = { "forked", "woke", "end" };
	size_t max = u->nprocs + u->nwaits + 1, n, i;
	struct kfit_chainlink *c = calloc(max, sizeof(*c));
	__u32 target = o->chain_target == BS_NONE ? kfit_boot_last(u) : o->chain_target;

	n = c ? kfit_boot_chain(u, target, c, max) : 0;
	if (n)
		kfit_json_u64(j, "chain_target", target);
	else
		kfit_json_null(j, "chain_target");
	kfit_json_begin_array(j, "chain");
	for (i = 0; i < n; i++) {
		kfit_json_begin_object(j, NULL);
		kfit_json_u64(j, "idx", c[i].idx);
		kfit_json_u64(j, "pid", u->procs[c[i].idx].pid);
		kfit_json_u64(j, "from_ns", c[i].from_ns);
		kfit_json_u64(j, "to_ns", c[i].to_ns);
		kfit_json_str(j, "why", why[c[i].why]);
		kfit_json_u64(j, "wait_ns", c[i].wait_ns);
		kfit_json_u64(j, "self_wait_ns", c[i].self_ns);
		kfit_json_u64(j, "self_waits", c[i].self_n);
		if (c[i].self_n) {
			kfit_json_str(j, "self_waker", waker_name(c[i].self_kind));
			if (c[i].self_kind == BS_W_KTHREAD)
				kfit_json_str(j, "self_waker_comm", c[i].self_comm);
		}
		kfit_json_end_object(j);
	}
	kfit_json_end_array(j);
	free(c);
}

static void json_mod(struct kfit_json *j, const struct kfit_bootuser *u,
		     const struct bs_mod *m)
{
	char b[BS_SYM + 1];

	kfit_json_begin_object(j, NULL);
	snprintf(b, sizeof(b), "%.*s", BS_MODNAME, m->name);
	kfit_json_str(j, "name", b);
	snprintf(b, sizeof(b), "%.*s", BS_SYM, m->init_sym);
	kfit_json_str(j, "init_sym", b);
	kfit_json_u64(j, "load_ns", m->load_ns);
	kfit_json_u64(j, "init_start_ns", m->init_start_ns);
	kfit_json_u64(j, "init_end_ns", m->init_end_ns);
	kfit_json_i64(j, "ret", m->ret);
	kfit_json_u64(j, "pid", m->pid);
	if (m->loader_idx < u->nprocs)
		kfit_json_u64(j, "loader_idx", m->loader_idx);
	else
		kfit_json_null(j, "loader_idx");
	kfit_json_end_object(j);
}

static void json_user(struct kfit_json *j, const struct kfit_bootuser *u,
		      const struct kfit_bootrep_opts *o)
{
	char path[BS_ARGS + 1];
	const struct bs_meta *m;
	__u32 *nw;
	size_t i;

	if (!u) {
		kfit_json_null(j, "user");
		return;
	}
	m = &u->meta;
	nw = calloc(u->nprocs + 1, sizeof(*nw));
	for (i = 0; nw && i < u->nwaits; i++)
		if (u->waits[i].idx < u->nprocs)
			nw[u->waits[i].idx]++;
	kfit_json_begin_object(j, "user");
	kfit_json_str(j, "found", u->found ? u->found : "");
	kfit_json_u64(j, "early_ns", m->early_ns);
	kfit_json_u64(j, "exec_ns", m->exec_ns);
	kfit_json_u64(j, "early_pid", m->early_pid);
	snprintf(path, sizeof(path), "%.*s", BS_ARGS, m->init_path);
	kfit_json_str(j, "init_path", path);
	kfit_json_i64(j, "offset_ns", u->offset_ns);
	kfit_json_bool(j, "offset_known", u->offset_known);
	kfit_json_u64(j, "now_ns", u->now_ns);
	kfit_json_bool(j, "stopped", m->stopped);
	kfit_json_begin_array(j, "processes");
	for (i = 0; i < u->nprocs; i++)
		json_proc(j, u, i, nw ? nw[i] : 0);
	kfit_json_end_array(j);
	json_chain(j, u, o);
	kfit_json_begin_array(j, "modules");
	for (i = 0; i < u->nmods; i++)
		json_mod(j, u, &u->mods[i]);
	kfit_json_end_array(j);
	kfit_json_begin_object(j, "dropped");
	kfit_json_u64(j, "procs", m->drop_procs);
	kfit_json_u64(j, "waits", m->drop_waits);
	kfit_json_u64(j, "mods", m->drop_mods);
	kfit_json_u64(j, "io", m->drop_io);
	kfit_json_u64(j, "tasks", m->drop_tasks);
	kfit_json_u64(j, "unknown_tgid", m->unknown_tgid);
	kfit_json_end_object(j);
	kfit_json_end_object(j);
	free(nw);
}

void kfit_bootrep_json(FILE *f, const struct kfit_bootlog *k,
		       const struct kfit_bootuser *u, const struct kfit_bootrep_opts *o)
{
	struct kfit_json j;

	if (!o)
		o = &default_opts;
	kfit_json_init(&j, f, false);
	kfit_json_begin_object(&j, NULL);
	json_kernel(&j, k, o);
	json_user(&j, u, o);
	if (o->json_more)
		o->json_more(&j, o->more_ctx);
	kfit_json_end_object(&j);
	kfit_json_finish(&j);
}

/* ---- SVG ---- */

#define SVG_W		1600
#define SVG_X0		10
#define SVG_X1		(SVG_W - 10)
#define SVG_ROWH	14
#define SVG_BARH	12
#define SVG_CHARW	6.5	/* 11 px Verdana's average advance */
#define SVG_LABEL	48	/* longest label, characters */
#define SVG_HEADH	22	/* a section's heading */

/* Greedy first fit of [x, xe) px intervals into rows */
struct packer {
	double *end;
	size_t n, cap;
};

/* The row given to [x, xe), or -1 (out of memory) */
static long pack(struct packer *pk, double x, double xe)
{
	double *v;
	size_t r;

	for (r = 0; r < pk->n; r++)
		if (pk->end[r] <= x) {
			pk->end[r] = xe;
			return r;
		}
	if (pk->n == pk->cap) {
		v = realloc(pk->end, (pk->cap * 2 + 16) * sizeof(*v));
		if (!v)
			return -1;
		pk->end = v;
		pk->cap = pk->cap * 2 + 16;
	}
	pk->end[pk->n] = xe;
	return pk->n++;
}

/* One bar: where, its row, where its label goes */
struct sbar {
	double x, w;
	__u32 row;
	__u8 label;		/* 0 none, 1 inside, 2 right of the bar, 3 left of it */
};

struct svg {
	FILE *f;
	const struct kfit_bootlog *k;
	const struct kfit_bootuser *u;
	const struct kfit_bootrep_opts *o;
	__u64 t_end;		/* kernel clock at the right edge */
	double scale;		/* px per ns */
	struct sbar *calls, *procs, *mods;
	__u32 *order;		/* processes in parent order */
	size_t norder;
	size_t krows, prows, mrows;
	struct kfit_chainlink *chain;
	size_t nchain;
	struct waitidx wi;
	bool have_wi;
	int y_kernel, y_user, y_mods, y_foot, height;
};

static double sx(const struct svg *g, __u64 t)
{
	return SVG_X0 + t * g->scale;
}

static double label_px(const char *s)
{
	size_t n = kfit_utf8_chars(s);

	return (n < SVG_LABEL ? n : SVG_LABEL) * SVG_CHARW + 6;
}

/* Places bar B over [t0, t1] with LABEL; NOTABLE ones get theirs outside */
static int place(struct packer *pk, const struct svg *g, struct sbar *b,
		 __u64 t0, __u64 t1, const char *label, bool notable)
{
	double lw = label_px(label), xe;
	long r;

	b->x = sx(g, t0);
	b->w = t1 > t0 ? (t1 - t0) * g->scale : 0;
	double x0 = b->x;

	b->label = b->w >= lw ? 1 : notable ? 2 : 0;
	/* at the right edge a label goes to the left of its bar */
	if (b->label == 2 && b->x + b->w + lw + 2 > SVG_X1)
		b->label = 3;
	xe = b->x + b->w + (b->label == 2 ? lw + 2 : 0);
	if (b->label == 3)
		x0 = b->x - lw - 2;
	r = pack(pk, x0, xe > b->x ? xe : b->x + 1e-9);
	if (r < 0)
		return -ENOMEM;
	b->row = r;
	return 0;
}

static __u64 call_end(const struct svg *g, const struct kfit_initcall *c)
{
	if (c->finished)
		return c->end_ns ? c->end_ns : c->start_ns + c->dur_ns;
	return g->t_end;
}

static int layout_calls(struct svg *g)
{
	const struct kfit_bootlog *k = g->k;
	struct packer pk = { 0 };
	bool *notable;
	size_t i, n;
	__u32 *v;
	char name[128];
	int err = 0;

	if (!k || !k->ncalls)
		return 0;
	g->calls = calloc(k->ncalls, sizeof(*g->calls));
	notable = calloc(k->ncalls, sizeof(*notable));
	v = slow_calls(k, g->o->min_ns, &n);
	if (!g->calls || !notable || !v) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n && i < top_of(g->o); i++)
		notable[v[i]] = true;
	for (i = 0; i < k->ncalls && !err; i++) {
		const struct kfit_initcall *c = &k->calls[i];

		err = place(&pk, g, &g->calls[i], c->start_ns, call_end(g, c),
			    call_name(name, sizeof(name), c),
			    notable[i] || !c->finished);
	}
	g->krows = pk.n;
out:
	free(pk.end);
	free(notable);
	free(v);
	return err;
}

/* Processes in parent order: each after its parent, siblings by index */
static int proc_order(struct svg *g)
{
	const struct kfit_bootuser *u = g->u;
	__u32 *child, *next, *stack, i, sp = 0, c;
	int err = 0;

	g->order = calloc(u->nprocs, sizeof(*g->order));
	child = malloc(u->nprocs * sizeof(*child));
	next = malloc(u->nprocs * sizeof(*next));
	stack = malloc(u->nprocs * sizeof(*stack));
	if (!g->order || !child || !next || !stack) {
		err = -ENOMEM;
		goto out;
	}
	memset(child, 0xff, u->nprocs * sizeof(*child));
	/* children listed last to first, so pushing them pops the first first */
	for (i = 0; i < u->nprocs; i++) {
		__u32 p = u->procs[i].parent_idx;

		next[i] = BS_NONE;
		if (p < i) {
			next[i] = child[p];
			child[p] = i;
		}
	}
	for (i = 0; i < u->nprocs; i++) {
		if (u->procs[i].parent_idx < i)
			continue;
		stack[sp++] = i;
		while (sp) {
			c = stack[--sp];
			g->order[g->norder++] = c;
			for (c = child[c]; c != BS_NONE; c = next[c])
				stack[sp++] = c;
		}
	}
out:
	free(child);
	free(next);
	free(stack);
	return err;
}

static __u64 proc_svg_end(const struct svg *g, const struct bs_proc *p)
{
	__u64 e = kt(g->u, proc_end(g->u, p));

	return proc_alive(p) || e > g->t_end ? g->t_end : e;
}

static int layout_procs(struct svg *g)
{
	const struct kfit_bootuser *u = g->u;
	struct packer pk = { 0 };
	char cmd[BS_ARGS + 8];
	double min_w = 2 / g->scale;
	size_t i;
	int err;

	if (!u || !u->nprocs)
		return 0;
	g->procs = calloc(u->nprocs, sizeof(*g->procs));
	if (!g->procs || proc_order(g))
		return -ENOMEM;
	err = 0;
	for (i = 0; i < g->norder && !err; i++) {
		const struct bs_proc *p = &u->procs[g->order[i]];
		__u64 t0 = kt(u, p->fork_ns), t1 = proc_svg_end(g, p);

		err = place(&pk, g, &g->procs[g->order[i]], t0, t1,
			    kfit_boot_cmdline(p, cmd, sizeof(cmd)),
			    t1 - t0 >= min_w || proc_alive(p));
	}
	g->prows = pk.n;
	free(pk.end);
	return err;
}

static int layout_mods(struct svg *g)
{
	const struct kfit_bootuser *u = g->u;
	struct packer pk = { 0 };
	char name[BS_MODNAME + 1];
	size_t i;
	int err = 0;

	if (!u || !u->nmods)
		return 0;
	g->mods = calloc(u->nmods, sizeof(*g->mods));
	if (!g->mods)
		return -ENOMEM;
	for (i = 0; i < u->nmods && !err; i++) {
		const struct bs_mod *m = &u->mods[i];
		__u64 end = m->init_end_ns > m->load_ns ? m->init_end_ns : m->load_ns;

		snprintf(name, sizeof(name), "%.*s", BS_MODNAME, m->name);
		err = place(&pk, g, &g->mods[i], kt(u, m->load_ns), kt(u, end), name, true);
	}
	g->mrows = pk.n;
	free(pk.end);
	return err;
}

/* The right edge: the last thing recorded in either phase */
static __u64 svg_end(const struct kfit_bootlog *k, const struct kfit_bootuser *u)
{
	__u64 end = 0;
	size_t i;

	if (k) {
		end = k->last_ns > k->init_ns ? k->last_ns : k->init_ns;
		for (i = 0; i < k->ncalls; i++)
			if (k->calls[i].finished && k->calls[i].start_ns + k->calls[i].dur_ns > end)
				end = k->calls[i].start_ns + k->calls[i].dur_ns;
	}
	if (u && kt(u, user_last(u)) > end)
		end = kt(u, user_last(u));
	return end ? end : KFIT_SEC;
}

static int svg_layout(struct svg *g)
{
	int y;

	g->t_end = svg_end(g->k, g->u);
	g->scale = (double)(SVG_X1 - SVG_X0) / g->t_end;
	if (layout_calls(g) || layout_procs(g) || layout_mods(g))
		return -ENOMEM;
	if (g->u && g->u->nprocs) {
		g->chain = calloc(g->u->nprocs + g->u->nwaits + 1, sizeof(*g->chain));
		if (!g->chain || waitidx_build(&g->wi, g->u))
			return -ENOMEM;
		g->have_wi = true;
		g->nchain = kfit_boot_chain(g->u, g->o->chain_target, g->chain,
					    g->u->nprocs + g->u->nwaits + 1);
	}
	y = 80;
	g->y_kernel = y;
	y += SVG_HEADH + 16 + (g->krows ? g->krows : 1) * SVG_ROWH + 8;
	g->y_user = y;
	y += SVG_HEADH + (g->prows ? g->prows : 1) * SVG_ROWH + 8;
	g->y_mods = y;
	y += SVG_HEADH + (g->mrows ? g->mrows : 1) * SVG_ROWH + 8;
	g->y_foot = y;
	g->height = y + 44;
	return 0;
}

static void svg_free(struct svg *g)
{
	free(g->calls);
	free(g->procs);
	free(g->mods);
	free(g->order);
	free(g->chain);
	if (g->have_wi)
		waitidx_free(&g->wi);
}

static const char svg_style[] =
"<style type=\"text/css\">\n"
"text { font-family: Verdana, sans-serif; font-size: 11px; fill: #000; }\n"
"text.t { font-size: 16px; font-weight: bold; }\n"
"text.s { fill: #444; }\n"
"text.h { font-size: 13px; font-weight: bold; }\n"
"text.ax { fill: #555; text-anchor: middle; }\n"
"text.lv { fill: #336; text-anchor: middle; font-size: 10px; }\n"
"line.g { stroke: #ccc; stroke-width: 0.5; }\n"
"line.mk { stroke: #c00; stroke-width: 1; stroke-dasharray: 4 3; }\n"
"line.cl { stroke: #d00; stroke-width: 0.8; stroke-opacity: 0.6; }\n"
"rect.b0 { fill: #e6ecf7; } rect.b1 { fill: #f4f0e2; }\n"
"rect.i { fill: #e39b3a; } rect.if { fill: #d03a3a; } rect.iu { fill: #b05cc0; }\n"
"rect.p { fill: #6d9fd6; } rect.pf { fill: #d66d6d; } rect.pa { fill: #7fbf6a; }\n"
"rect.w { fill: #fff; fill-opacity: 0.55; }\n"
"rect.c { fill: none; stroke: #d00; stroke-width: 1.2; }\n"
"rect.m { fill: #9a6cc4; }\n"
"rect:hover { stroke: #000; stroke-width: 0.7; }\n"
"</style>\n";

static void svg_text(const struct svg *g, double x, int y, const char *cls,
		     const char *s, size_t max)
{
	fprintf(g->f, "<text x=\"%.1f\" y=\"%d\"%s%s%s>", x, y, cls ? " class=\"" : "",
		cls ? cls : "", cls ? "\"" : "");
	kfit_xml_text(g->f, s, max);
	if (max && kfit_utf8_chars(s) > max)
		fputs("..", g->f);
	fputs("</text>\n", g->f);
}

static void svg_head(const struct svg *g)
{
	char line[512], ver[64], b[32];
	int len;

	fprintf(g->f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n%s"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
		SVG_W, g->height, SVG_W, g->height, svg_style, SVG_W, g->height);
	kernel_version(ver, sizeof(ver), g->k);
	len = snprintf(line, sizeof(line), "Boot%s%s", ver[0] ? " of " : "", ver);
	if (g->k && g->k->init_ns)
		len += snprintf(line + len, sizeof(line) - len, ": kernel %s s to %s",
				fix3(b, sizeof(b), g->k->init_ns, KFIT_SEC),
				g->k->init_path[0] ? g->k->init_path : "the first process");
	if (g->u)
		snprintf(line + len, sizeof(line) - len, "%s user space %s s recorded",
			 g->k && g->k->init_ns ? "," : ":", fix3(b, sizeof(b),
			 user_last(g->u) - g->u->meta.early_ns, KFIT_SEC));
	svg_text(g, SVG_X0, 22, "t", line, 0);
	len = snprintf(line, sizeof(line), "kernel phase: %s", g->k ? src_desc(g->k) :
		       "not recorded");
	if (g->k && g->o->note)
		len += snprintf(line + len, sizeof(line) - len, " (%s)", g->o->note);
	if (g->k && !g->k->complete)
		len += snprintf(line + len, sizeof(line) - len, "; incomplete: %s", g->k->why);
	if (!g->u)
		snprintf(line + len, sizeof(line) - len, "; user space not recorded");
	else if (!g->u->offset_known)
		snprintf(line + len, sizeof(line) - len, "; (user times on the boot clock; "
			 "kernel offset unknown)");
	svg_text(g, SVG_X0, 40, "s", line, 0);
}

/* A tick every 1, 2 or 5 times a power of ten, at least 70 px apart */
static void svg_axis(const struct svg *g)
{
	static const unsigned int mult[] = { 1, 2, 5 };
	__u64 base = KFIT_MSEC, step = 0, t;
	int i, dec;
	char b[32];

	while (!step) {
		for (i = 0; i < 3 && !step; i++)
			if (base * mult[i] * g->scale >= 70)
				step = base * mult[i];
		base *= 10;
	}
	/* decimals the step needs: 1 s -> 0, 0.5 s -> 1, 0.02 s -> 2 */
	dec = step >= KFIT_SEC ? 0 : step >= 100 * KFIT_MSEC ? 1 : step >= 10 * KFIT_MSEC ? 2 : 3;
	for (t = 0; t <= g->t_end; t += step) {
		double x = sx(g, t);

		fprintf(g->f, "<line class=\"g\" x1=\"%.1f\" y1=\"56\" x2=\"%.1f\" y2=\"%d\"/>\n",
			x, x, g->y_foot);
		fix3(b, sizeof(b), t, KFIT_SEC);
		b[strlen(b) - (dec ? 3 - dec : 4)] = 0;
		fprintf(g->f, "<text class=\"ax\" x=\"%.1f\" y=\"66\">%s s</text>\n", x, b);
	}
}

static void svg_mark(const struct svg *g, __u64 t, const char *what)
{
	double x = sx(g, t);
	char b[32];

	fprintf(g->f, "<line class=\"mk\" x1=\"%.1f\" y1=\"70\" x2=\"%.1f\" y2=\"%d\"/>\n"
		"<text x=\"%.1f\" y=\"%d\" style=\"fill:#c00\">", x, x, g->y_foot, x + 3,
		g->y_foot - 4);
	kfit_xml_text(g->f, what, 0);
	fprintf(g->f, " %s s</text>\n", fix3(b, sizeof(b), t, KFIT_SEC));
}

/* A bar's label, inside it or to its right (room reserved by place) */
static void svg_label(const struct svg *g, const struct sbar *b, int y0,
		      const char *label)
{
	int y = y0 + b->row * SVG_ROWH;
	double lx = b->label == 1 ? b->x + 3 : b->x + b->w + 2;
	size_t fit = b->label == 1 ? (b->w - 6) / SVG_CHARW : SVG_LABEL;

	if (!b->label)
		return;
	if (b->label == 3) {
		fprintf(g->f, "<text x=\"%.1f\" y=\"%d\" style=\"text-anchor:end\">",
			b->x - 2, y + SVG_BARH - 2);
		kfit_xml_text(g->f, label, SVG_LABEL);
		fputs(kfit_utf8_chars(label) > SVG_LABEL ? "..</text>\n" : "</text>\n", g->f);
		return;
	}
	svg_text(g, lx, y + SVG_BARH - 2, NULL, label, fit < SVG_LABEL ? fit : SVG_LABEL);
}

/* A bar, up to its <title>'s text (the caller writes it and closes) */
static void svg_rect(const struct svg *g, const struct sbar *b, int y0, const char *cls)
{
	fprintf(g->f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.2f\" height=\"%d\" class=\"%s\">"
		"<title>", b->x, y0 + (int)b->row * SVG_ROWH, b->w > 0.4 ? b->w : 0.4,
		SVG_BARH, cls);
}

/* The bands first, then their names over them */
static void svg_levels(const struct svg *g, int y0, int y1)
{
	const struct kfit_bootlog *k = g->k;
	double free_x = 0, lw, x, w;
	char b[3][32];
	size_t i;

	for (i = 0; i < k->nlevels; i++) {
		const struct kfit_initlevel *l = &k->levels[i];

		if (l->end_ns < l->start_ns)
			continue;
		w = (l->end_ns - l->start_ns) * g->scale;
		fprintf(g->f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
			"class=\"b%zu\"><title>level ", sx(g, l->start_ns), y0,
			w > 0.4 ? w : 0.4, y1 - y0, i % 2);
		kfit_xml_text(g->f, l->name, 0);
		fprintf(g->f, ": %s to %s s, %u initcalls, %s ms in them</title></rect>\n",
			fix3(b[0], 32, l->start_ns, KFIT_SEC), fix3(b[1], 32, l->end_ns, KFIT_SEC),
			l->n, fix3(b[2], 32, l->sum_ns, KFIT_MSEC));
	}
	/* names centred in their band, else from its start when that is free */
	for (i = 0; i < k->nlevels; i++) {
		const struct kfit_initlevel *l = &k->levels[i];

		if (l->end_ns < l->start_ns)
			continue;
		x = sx(g, l->start_ns);
		w = (l->end_ns - l->start_ns) * g->scale;
		lw = label_px(l->name);
		if (w >= lw && x + w / 2 - lw / 2 >= free_x) {
			svg_text(g, x + w / 2, y0 + 11, "lv", l->name, 0);
			free_x = x + w / 2 + lw / 2;
		} else if (x >= free_x) {
			fprintf(g->f, "<text x=\"%.1f\" y=\"%d\" class=\"lv\" "
				"style=\"text-anchor:start\">", x + 1, y0 + 11);
			kfit_xml_text(g->f, l->name, 0);
			fputs("</text>\n", g->f);
			free_x = x + 1 + lw;
		}
	}
}

static void svg_kernel(const struct svg *g)
{
	const struct kfit_bootlog *k = g->k;
	int y0 = g->y_kernel + SVG_HEADH, rows = y0 + 16;
	char name[128], b[3][32], head[160];
	size_t i;

	if (!k) {
		svg_text(g, SVG_X0, g->y_kernel + 14, "h", "Kernel phase: not recorded", 0);
		return;
	}
	snprintf(head, sizeof(head), "Kernel: %zu initcalls%s", k->ncalls, k->nlevels ?
		 ", levels shaded" : "");
	svg_text(g, SVG_X0, g->y_kernel + 14, "h", head, 0);
	if (!k->ncalls)
		svg_text(g, SVG_X0, rows + 10, "s", "no initcalls in the record "
			 "(boot with initcall_debug or trace_event=initcall:*)", 0);
	svg_levels(g, y0, g->y_user - 4);
	for (i = 0; i < k->ncalls; i++) {
		const struct kfit_initcall *c = &k->calls[i];
		const char *cls = !c->finished ? "iu" : c->ret ? "if" : "i";

		call_name(name, sizeof(name), c);
		svg_rect(g, &g->calls[i], rows, cls);
		kfit_xml_text(g->f, name, 0);
		if (c->level[0])
			fprintf(g->f, " (%s)", c->level);
		if (c->finished)
			fprintf(g->f, ": %s ms from %s s, ret %s</title></rect>\n",
				fix3(b[0], 32, c->dur_ns, KFIT_MSEC),
				fix3(b[1], 32, c->start_ns, KFIT_SEC),
				ret_str(b[2], 32, c->ret));
		else
			fprintf(g->f, ": from %s s, no return in the record</title></rect>\n",
				fix3(b[1], 32, c->start_ns, KFIT_SEC));
		svg_label(g, &g->calls[i], rows, name);
	}
}

/* Its blocked intervals at least a pixel wide, merged where they touch */
static void svg_waits(const struct svg *g, __u32 idx, int y)
{
	const struct kfit_bootuser *u = g->u;
	double x0 = -1, x1 = -1, a, e;
	__u32 k;

	for (k = g->wi.first[idx]; k < g->wi.first[idx + 1]; k++) {
		const struct bs_wait *w = &u->waits[g->wi.order[k]];

		if (w->waker_kind == BS_W_NEW || w->end_ns <= w->start_ns)
			continue;
		a = sx(g, kt(u, w->start_ns));
		e = sx(g, kt(u, w->end_ns));
		if (e - a < 1)
			continue;
		if (x1 >= 0 && a <= x1 + 0.5) {
			if (e > x1)
				x1 = e;
			continue;
		}
		if (x1 >= 0)
			fprintf(g->f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
				"class=\"w\"/>\n", x0, y + 3, x1 - x0, SVG_BARH - 6);
		x0 = a;
		x1 = e;
	}
	if (x1 >= 0)
		fprintf(g->f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
			"class=\"w\"/>\n", x0, y + 3, x1 - x0, SVG_BARH - 6);
}

static void svg_proc(const struct svg *g, __u32 i, int y0)
{
	const struct kfit_bootuser *u = g->u;
	const struct bs_proc *p = &u->procs[i];
	const char *cls = proc_alive(p) ? "pa" : p->exit_code ? "pf" : "p";
	char cmd[BS_ARGS + 8], b[6][32];

	kfit_boot_cmdline(p, cmd, sizeof(cmd));
	svg_rect(g, &g->procs[i], y0, cls);
	kfit_xml_text(g->f, cmd, 0);
	fprintf(g->f, " (pid %u, ppid %u): %s s, %s ms%s, exit %s; cpu %s ms, runq %s ms, "
		"blocked %s ms; io %llu/%llu KiB r/w</title></rect>\n", p->pid, p->ppid,
		fix3(b[0], 32, kt(u, p->fork_ns), KFIT_SEC),
		fix3(b[1], 32, proc_dur(u, p), KFIT_MSEC), proc_alive(p) ? " so far" : "",
		exit_str(b[2], 32, p), fix3(b[3], 32, p->oncpu_ns, KFIT_MSEC),
		fix3(b[4], 32, p->runnable_ns, KFIT_MSEC),
		fix3(b[5], 32, p->blocked_ns, KFIT_MSEC), kib(p->rd_bytes), kib(p->wr_bytes));
	svg_waits(g, i, y0 + g->procs[i].row * SVG_ROWH);
	svg_label(g, &g->procs[i], y0, cmd);
}

/*
 * The chain: each link's part outlined, a line to the process it came
 * from. Links under a pixel are not outlined and lines within a pixel of
 * the last are left out: a shell waiting on thousands of short children
 * would draw the same pixels thousands of times.
 */
static void svg_chain(const struct svg *g, int y0)
{
	const struct kfit_bootuser *u = g->u;
	double last = -10;
	size_t i;

	for (i = 0; i < g->nchain; i++) {
		const struct kfit_chainlink *l = &g->chain[i];
		double x = sx(g, kt(u, l->from_ns)), e = sx(g, kt(u, l->to_ns));
		int y = y0 + g->procs[l->idx].row * SVG_ROWH;

		if (e > SVG_X1)
			e = SVG_X1;
		if (e - x >= 1 || i == 0)
			fprintf(g->f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
				"class=\"c\"/>\n", x, y, e - x > 0.5 ? e - x : 0.5, SVG_BARH);
		if (i + 1 == g->nchain || (x > last - 1 && x < last + 1))
			continue;
		fprintf(g->f, "<line class=\"cl\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
			"y2=\"%d\"/>\n", x, y + SVG_BARH / 2, x, y0 +
			(int)g->procs[g->chain[i + 1].idx].row * SVG_ROWH + SVG_BARH / 2);
		last = x;
	}
}

static void svg_user(const struct svg *g)
{
	const struct kfit_bootuser *u = g->u;
	int y0 = g->y_user + SVG_HEADH;
	char head[200];
	size_t i;

	if (!u) {
		svg_text(g, SVG_X0, g->y_user + 14, "h", "User space: not recorded "
			 "(boot with bootsum --early as the first process)", 0);
		return;
	}
	snprintf(head, sizeof(head), "User space: %zu processes (parent order; red: the "
		 "critical chain; light: blocked; green: still running; red fill: "
		 "exit status not 0)", u->nprocs);
	svg_text(g, SVG_X0, g->y_user + 14, "h", head, 0);
	if (!u->nprocs)
		svg_text(g, SVG_X0, y0 + 10, "s", "no processes recorded", 0);
	for (i = 0; i < g->norder; i++)
		svg_proc(g, g->order[i], y0);
	svg_chain(g, y0);
}

static void svg_mods(const struct svg *g)
{
	const struct kfit_bootuser *u = g->u;
	int y0 = g->y_mods + SVG_HEADH;
	char name[BS_MODNAME + 1], sym[BS_SYM + 1], b[3][32];
	size_t i;

	svg_text(g, SVG_X0, g->y_mods + 14, "h", "Modules: load to the end of init", 0);
	if (!u || !u->nmods) {
		svg_text(g, SVG_X0, y0 + 10, "s", u ? "none loaded" : "not recorded", 0);
		return;
	}
	for (i = 0; i < u->nmods; i++) {
		const struct bs_mod *m = &u->mods[i];
		bool ran = m->init_start_ns && m->init_end_ns >= m->init_start_ns;

		snprintf(name, sizeof(name), "%.*s", BS_MODNAME, m->name);
		snprintf(sym, sizeof(sym), "%.*s", BS_SYM, m->init_sym);
		svg_rect(g, &g->mods[i], y0, "m");
		kfit_xml_text(g->f, name, 0);
		fputs(" (", g->f);
		kfit_xml_text(g->f, sym[0] ? sym : "?", 0);
		fprintf(g->f, "): loaded at %s s by pid %u", fix3(b[0], 32, kt(u, m->load_ns),
			KFIT_SEC), m->pid);
		if (ran)
			fprintf(g->f, ", init %s ms, ret %s", fix3(b[1], 32, m->init_end_ns -
				m->init_start_ns, KFIT_MSEC), ret_str(b[2], 32, m->ret));
		fputs("</title></rect>\n", g->f);
		svg_label(g, &g->mods[i], y0, name);
	}
}

static void svg_foot(const struct svg *g)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (m) {
		lost_text(m, g->k, g->u);
		fclose(m);
	}
	if (buf && len && buf[len - 1] == '\n')
		buf[len - 1] = 0;
	if (buf && buf[0])
		svg_text(g, SVG_X0, g->y_foot + 16, "s", buf, 0);
	svg_text(g, SVG_X0, g->y_foot + 32, "s", "Hover a bar for its details. Times: "
		 "seconds on the kernel clock (printk/trace); bars: orange initcall, red "
		 "failed, purple unfinished; blue process, green running, purple module", 0);
	free(buf);
}

int kfit_bootrep_svg(FILE *f, const struct kfit_bootlog *k,
		     const struct kfit_bootuser *u, const struct kfit_bootrep_opts *o)
{
	struct svg g = { .f = f, .k = k, .u = u, .o = o ? o : &default_opts };
	int err = svg_layout(&g);

	if (err) {
		svg_free(&g);
		return err;
	}
	svg_head(&g);
	svg_axis(&g);
	svg_kernel(&g);
	svg_user(&g);
	svg_mods(&g);
	if (k && k->init_ns)
		svg_mark(&g, k->init_ns, k->init_path[0] ? k->init_path : "/init");
	svg_foot(&g);
	fputs("</svg>\n", f);
	svg_free(&g);
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}
