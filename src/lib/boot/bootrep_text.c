// SPDX-License-Identifier: GPL-2.0
/* bootsum's text report (bootrep.h); what the reports share: bootrep_int.h */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bootrep_int.h"

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

	kfit_table_cell(t, "%s", bootrep_fix3(b, sizeof(b), v, unit));
}

static const char *plural(__u64 n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static int by_dur_desc(const void *a, const void *b, void *ctx)
{
	const struct kfit_bootlog_initcall *c = ctx;
	const struct kfit_bootlog_initcall *x = &c[*(const __u32 *)a], *y = &c[*(const __u32 *)b];

	if (x->dur_ns != y->dur_ns)
		return x->dur_ns > y->dur_ns ? -1 : 1;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* The finished initcalls at least min_ns long, slowest first; their count */
__u32 *bootrep_slow_calls(const struct kfit_bootlog *k, __u64 min_ns, size_t *n)
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

static void call_row(struct kfit_table *t, const struct kfit_bootlog_initcall *c)
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
		kfit_table_cell(t, "%s", bootrep_ret_str(b, sizeof(b), c->ret));
	else
		kfit_table_cell(t, "-");
	kfit_table_cell(t, "%s", bootrep_call_name(b, sizeof(b), c));
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
		const struct kfit_bootlog_initlevel *l = &k->levels[i];

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
	__u32 *v = bootrep_slow_calls(k, o->min_ns, &n);
	char b[32];

	if (!v) {
		fputs("  Slowest initcalls: (out of memory)\n", f);
		return;
	}
	show = n < bootrep_top(o) ? n : bootrep_top(o);
	fprintf(f, "  Slowest initcalls (%zu of %zu finished", show, nfin);
	if (o->min_ns)
		fprintf(f, "; %zu shorter than %s not listed", nfin - n,
			kfit_duration_fmt(o->min_ns, b, sizeof(b)));
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

	fprintf(f, "Kernel phase (%s): ", bootrep_src_desc(k));
	if (k->init_ns)
		fprintf(f, "kernel start to %s: %s s; ", k->init_path[0] ? k->init_path :
			"the first process", bootrep_fix3(b, sizeof(b), k->init_ns, KFIT_SEC));
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
	fprintf(f, "Kernel phase (%s):\n", bootrep_src_desc(k));
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
			"the first process", bootrep_fix3(b, sizeof(b), k->init_ns, KFIT_SEC));
	else
		fputs("  kernel start to the first process: not in the record (no "
		      "\"Run /init as init process\" line)", f);
	fprintf(f, "; %zu initcall%s, %s s in them; %zu failed", k->ncalls,
		plural(k->ncalls, "", "s"), bootrep_fix3(b, sizeof(b), sum, KFIT_SEC), nfail);
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

static void proc_row(struct kfit_table *t, const struct kfit_bootrep_user *u,
		     const struct bs_proc *p)
{
	__u64 end = bootrep_proc_end(u, p);
	char b[BS_ARGS + 8];

	kfit_table_row(t);
	cell_fix3(t, bootrep_kt(u, p->fork_ns), KFIT_SEC);
	bootrep_fix3(b, sizeof(b), end - p->fork_ns, KFIT_MSEC);
	kfit_table_cell(t, "%s%s", b, bootrep_proc_alive(p) ? "+" : "");
	kfit_table_cell(t, "%u", p->pid);
	kfit_table_cell(t, "%u", p->ppid);
	kfit_table_cell(t, "%s", bootrep_exit_str(b, sizeof(b), p));
	cell_fix3(t, p->oncpu_ns, KFIT_MSEC);
	cell_fix3(t, p->runnable_ns, KFIT_MSEC);
	cell_fix3(t, p->blocked_ns, KFIT_MSEC);
	kfit_table_cell(t, "%llu/%llu", bootrep_kib(p->rd_bytes), bootrep_kib(p->wr_bytes));
	kfit_table_cell(t, "%s", kfit_bootrep_cmdline(p, b, sizeof(b)));
}

__u64 bootrep_proc_dur(const struct kfit_bootrep_user *u, const struct bs_proc *p)
{
	return bootrep_proc_end(u, p) - p->fork_ns;
}

static int by_proc_dur(const void *a, const void *b, void *ctx)
{
	const struct kfit_bootrep_user *u = ctx;
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;
	__u64 dx = bootrep_proc_dur(u, &u->procs[x]), dy = bootrep_proc_dur(u, &u->procs[y]);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int by_start(const void *a, const void *b, void *ctx)
{
	const struct kfit_bootrep_user *u = ctx;
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;
	__u64 sx = u->procs[x].fork_ns, sy = u->procs[y].fork_ns;

	if (sx != sy)
		return sx < sy ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void timeline_text(FILE *f, const struct kfit_bootrep_user *u,
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
		if (all || bootrep_proc_dur(u, &u->procs[i]) >= o->min_ns)
			v[shown++] = i;
	qsort_r(v, shown, sizeof(*v), by_start, (void *)u);
	fprintf(f, "  Timeline (%zu of %zu processes", shown, u->nprocs);
	if (!all)
		fprintf(f, "; %zu shorter than %s not listed, -v lists them",
			u->nprocs - shown, kfit_duration_fmt(o->min_ns, b, sizeof(b)));
	fputs("; TIME +: still running):\n", f);
	t = procs_table();
	for (i = 0; t && i < shown; i++)
		proc_row(t, u, &u->procs[v[i]]);
	table_out(f, t, 4);
	free(v);
}

static void slow_procs_text(FILE *f, const struct kfit_bootrep_user *u,
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
		if (bootrep_proc_dur(u, &u->procs[i]) >= o->min_ns)
			v[n++] = i;
	qsort_r(v, n, sizeof(*v), by_proc_dur, (void *)u);
	show = n < bootrep_top(o) ? n : bootrep_top(o);
	fprintf(f, "  Slowest processes (%zu of %zu", show, u->nprocs);
	if (o->min_ns)
		fprintf(f, "; %zu shorter than %s not listed", u->nprocs - n,
			kfit_duration_fmt(o->min_ns, b, sizeof(b)));
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
static void self_text(char *buf, size_t len, const struct kfit_bootrep_link *l)
{
	char d[32];

	buf[0] = 0;
	if (!l->self_n)
		return;
	kfit_duration_fmt(l->self_ns, d, sizeof(d));
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

static void chain_row(struct kfit_table *t, const struct kfit_bootrep_user *u,
		      const struct kfit_bootrep_link *l, bool first)
{
	const struct bs_proc *p = &u->procs[l->idx];
	char cmd[BS_ARGS + 8], self[160], d[32];

	kfit_table_row(t);
	cell_fix3(t, bootrep_kt(u, l->to_ns), KFIT_SEC);
	cell_fix3(t, l->to_ns - l->from_ns, KFIT_MSEC);
	kfit_bootrep_cmdline(p, cmd, sizeof(cmd));
	self_text(self, sizeof(self), l);
	if (first)
		kfit_table_cell(t, "%s (%u)%s", cmd, p->pid, self);
	else if (l->why == KFIT_BOOTREP_CHAIN_WAIT)
		kfit_table_cell(t, "└ %s (%u): woke the one above, which had waited %s "
				"for it%s",
				cmd, p->pid, kfit_duration_fmt(l->wait_ns, d, sizeof(d)), self);
	else
		kfit_table_cell(t, "└ %s (%u): forked the one above%s", cmd, p->pid, self);
}

/* Links shorter than this are summed up in runs (a script's short commands) */
static __u64 chain_short(const struct kfit_bootrep_opts *o)
{
	return o->min_ns > KFIT_MSEC ? o->min_ns : KFIT_MSEC;
}

/* How many links from I on are short, the first (the target) never; -v: none */
static size_t chain_run(const struct kfit_bootrep_link *c, size_t i, size_t n,
			const struct kfit_bootrep_opts *o)
{
	size_t k = i;

	if (!i || o->timeline_all)
		return 0;
	while (k < n && c[k].to_ns - c[k].from_ns < chain_short(o))
		k++;
	return k - i;
}

static void chain_text(FILE *f, const struct kfit_bootrep_user *u,
		       const struct kfit_bootrep_opts *o)
{
	static const char *const h[] = { "END s", "SPAN ms", "PROCESS" };
	struct kfit_bootrep_link *c = calloc(u->nprocs + u->nwaits + 1, sizeof(*c));
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
		target = kfit_bootrep_last(u);
	n = kfit_bootrep_chain(u, target, c, u->nprocs + u->nwaits + 1);
	if (!n) {
		fprintf(f, "  Critical chain: no process with index %u\n", target);
		free(c);
		return;
	}
	p = &u->procs[target];
	fprintf(f, "  Critical chain (ending at PID %u \"%s\", %s %s s; END s: "
		"where each link's part ends, SPAN ms: its part):\n", p->pid,
		kfit_bootrep_cmdline(p, cmd, sizeof(cmd)),
		bootrep_proc_alive(p) ? "still running at" : o->chain_target == BS_NONE ?
		"the last to exit, at" : "exited at",
		bootrep_fix3(b, sizeof(b), bootrep_kt(u, c[0].to_ns), KFIT_SEC));
	t = kfit_table_new(3, h, "rrl");
	for (i = 0; t && i < n; i++) {
		size_t run = chain_run(c, i, n, o);

		if (run < 3) {
			chain_row(t, u, &c[i], i == 0);
			continue;
		}
		kfit_table_row(t);
		cell_fix3(t, bootrep_kt(u, c[i].to_ns), KFIT_SEC);
		cell_fix3(t, c[i].to_ns - c[i + run - 1].from_ns, KFIT_MSEC);
		kfit_table_cell(t, "└ ... %zu links under %s each (-v lists them)", run,
				kfit_duration_fmt(chain_short(o), b, sizeof(b)));
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

static void modules_text(FILE *f, const struct kfit_bootrep_user *u)
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
		cell_fix3(t, bootrep_kt(u, m->load_ns), KFIT_SEC);
		if (ran)
			cell_fix3(t, m->init_end_ns - m->init_start_ns, KFIT_MSEC);
		else
			kfit_table_cell(t, "-");
		kfit_table_cell(t, "%s", ran ? bootrep_ret_str(b, sizeof(b), m->ret) : "-");
		kfit_table_cell(t, "%.*s", BS_MODNAME, m->name);
		/* a module without module_init (virtio_ring) has no init to run */
		kfit_table_cell(t, "%.*s", BS_SYM, m->init_sym[0] ? m->init_sym :
				m->init_addr ? "?" : "(none)");
		if (m->loader_idx < u->nprocs)
			kfit_table_cell(t, "%s (%u)", kfit_bootrep_cmdline(&u->procs[m->loader_idx],
					b, sizeof(b)), m->pid);
		else
			kfit_table_cell(t, "PID %u", m->pid);
	}
	table_out(f, t, 4);
}

/* The last time anything was recorded in the user phase (boot clock) */
__u64 bootrep_user_last(const struct kfit_bootrep_user *u)
{
	__u64 last = u->meta.early_ns;
	size_t i;

	for (i = 0; i < u->nprocs; i++) {
		const struct bs_proc *p = &u->procs[i];
		__u64 t = bootrep_proc_alive(p) ? (p->exec_ns > p->fork_ns ? p->exec_ns : p->fork_ns) :
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

static void user_text(FILE *f, const struct kfit_bootrep_user *u,
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
	fprintf(f, "User space (bootsum --early from %s s", bootrep_fix3(b, sizeof(b),
		bootrep_kt(u, m->early_ns), KFIT_SEC));
	if (u->found)
		fprintf(f, "; found %s", u->found);
	if (m->stopped)
		fputs("; stopped by bootsum --stop", f);
	fputs("):\n", f);
	if (!u->offset_known)
		fputs("  (user times on the boot clock; kernel offset unknown)\n", f);
	if (m->init_path[0])
		fprintf(f, "  init: %.*s, exec'd at %s s\n", BS_ARGS, m->init_path,
			bootrep_fix3(b, sizeof(b), bootrep_kt(u, m->exec_ns), KFIT_SEC));
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

void bootrep_lost_text(FILE *f, const struct kfit_bootlog *k,
		      const struct kfit_bootrep_user *u)
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
void bootrep_kernel_version(char *buf, size_t len, const struct kfit_bootlog *k)
{
	const char *s = k ? strstr(k->uname, "Linux version ") : NULL;

	buf[0] = 0;
	if (s)
		snprintf(buf, len, "%.*s", (int)strcspn(s + 14, " "), s + 14);
}

void kfit_bootrep_text(FILE *f, const struct kfit_bootlog *k,
		       const struct kfit_bootrep_user *u, const struct kfit_bootrep_opts *o)
{
	char ver[64], b[32];

	if (!o)
		o = &bootrep_default_opts;
	bootrep_kernel_version(ver, sizeof(ver), k);
	fprintf(f, "Boot%s%s:", ver[0] ? " of " : "", ver);
	if (k && k->init_ns)
		fprintf(f, " kernel %s s to %s", bootrep_fix3(b, sizeof(b), k->init_ns, KFIT_SEC),
			k->init_path[0] ? k->init_path : "the first process");
	else
		fputs(k ? " kernel phase without its end" : " kernel phase not recorded", f);
	if (u)
		fprintf(f, ", user space %s s recorded\n", bootrep_fix3(b, sizeof(b),
			bootrep_user_last(u) - u->meta.early_ns, KFIT_SEC));
	else
		fputs(", user space not recorded\n", f);
	kernel_text(f, k, o);
	user_text(f, u, o);
	bootrep_lost_text(f, k, u);
}
