// SPDX-License-Identifier: GPL-2.0
/* bootsum's JSON report (bootrep.h); what the reports share: bootrep_int.h */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bootrep_int.h"

/* ---- JSON ---- */

static void json_call(struct kfit_json *j, const struct kfit_bootlog_initcall *c)
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
	kfit_json_str(j, "source", kfit_bootlog_src_name(k->src));
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

static void json_proc(struct kfit_json *j, const struct kfit_bootrep_user *u, __u32 i,
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
	kfit_json_bool(j, "alive", bootrep_proc_alive(p));
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
	kfit_json_str(j, "cmdline", kfit_bootrep_cmdline(p, b, sizeof(b)));
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

static void json_chain(struct kfit_json *j, const struct kfit_bootrep_user *u,
		       const struct kfit_bootrep_opts *o)
{
	static const char *const why[] = { "forked", "woke", "end" };
	size_t max = u->nprocs + u->nwaits + 1, n, i;
	struct kfit_bootrep_link *c = calloc(max, sizeof(*c));
	__u32 target = o->chain_target == BS_NONE ? kfit_bootrep_last(u) : o->chain_target;

	n = c ? kfit_bootrep_chain(u, target, c, max) : 0;
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

static void json_mod(struct kfit_json *j, const struct kfit_bootrep_user *u,
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

static void json_user(struct kfit_json *j, const struct kfit_bootrep_user *u,
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
		       const struct kfit_bootrep_user *u, const struct kfit_bootrep_opts *o)
{
	struct kfit_json j;

	if (!o)
		o = &bootrep_default_opts;
	kfit_json_init(&j, f, false);
	kfit_json_begin_object(&j, NULL);
	json_kernel(&j, k, o);
	json_user(&j, u, o);
	if (o->json_more)
		o->json_more(&j, o->more_ctx);
	kfit_json_end_object(&j);
	kfit_json_finish(&j);
}
