// SPDX-License-Identifier: GPL-2.0
/* The mass attacher (attach.h): what it says of itself, and detaching */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "attach_int.h"
#include "btf.h"
#include "diag.h"
#include "duration.h"
#include "explain.h"
#include "fileio.h"
#include "output.h"
#include "probe.h"
#include "run.h"
#include "ufollow.h"
#include "uprobes.h"

/* ---- reports ------------------------------------------------------------ */

const char *kfit_attacher_mech(const struct kfit_attacher *a)
{
	if (a->mech == KFIT_AM_FENTRY)
		return "fentry";
	if (a->mech == KFIT_AM_KPROBE_MULTI)
		return "kprobe_multi";
	if (a->mech == KFIT_AM_KPROBE_SINGLE)
		return "kprobe";
	return a->t->nuser ? "uprobe" : "tracepoint";
}

const char *kfit_attacher_mode(const struct kfit_attacher *a)
{
	if (a->mech == KFIT_AM_FENTRY || a->mech == KFIT_AM_AUTO)
		return kfit_attacher_mech(a);
	return "kprobe";	/* kprobe_multi is kprobes too */
}

static __u64 prog_missed(int fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.recursion_misses;
}

__u64 kfit_attacher_missed(const struct kfit_attacher *a)
{
	const struct bpf_program *ps[] = {
		a->p.kprobe, a->p.kretprobe, a->p.kmulti, a->p.kmulti_ret,
		a->p.uprobe, a->p.uretprobe, a->p.sys_enter, a->p.sys_exit,
	};
	__u64 n = 0;
	size_t i;
	int k;

	/* fentry: each copy's fd is followed by its link's */
	for (k = 0; k < a->nfds; k += 2)
		n += prog_missed(a->fds[k]);
	for (i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		if (ps[i] && bpf_program__autoload(ps[i]))
			n += prog_missed(bpf_program__fd(ps[i]));
	for (k = 0; k < KFIT_SYS_ARGS; k++)
		if (a->p.sys_enter_args[k] && bpf_program__autoload(a->p.sys_enter_args[k]))
			n += prog_missed(bpf_program__fd(a->p.sys_enter_args[k]));
	return n;
}

void kfit_attacher_skipped(const struct kfit_attacher *a)
{
	const struct kfit_targets *t = a->t;
	int i, n = a->o.verbose ? t->nskipped : SHOW_SKIPPED;

	if (!t->nskipped)
		return;
	fprintf(stderr, "Skipped %d function%s that cannot be traced:\n", t->nskipped,
		t->nskipped == 1 ? "" : "s");
	for (i = 0; i < t->nskipped && i < n; i++)
		fprintf(stderr, "  %s: %s\n", t->skipped[i].name, t->skipped[i].reason);
	if (t->nskipped > n)
		fprintf(stderr, "  ... and %d more (-v lists them all)\n", t->nskipped - n);
}

void kfit_attacher_announce(const struct kfit_attacher *a)
{
	char what[192], d[32];

	kfit_attacher_skipped(a);
	if (a->o.verbose && a->t->nuser)
		kfit_info("uprobes: %s", a->umulti ? "uprobe_multi links, one per "
			  "binary and direction" : "a pair per function");
	if (a->o.verbose)
		kfit_info("attached %d function%s in %s (%.0f/s), %d file descriptors",
			  a->attached, a->attached == 1 ? "" : "s",
			  kfit_duration_fmt(a->attach_ns, d, sizeof(d)),
			  a->attach_ns ? a->attached / (a->attach_ns / 1e9) : 0.0,
			  a->fds_after - a->fds_before);
	/* Per kind: "1 function (uprobe) and 2 system calls (tracepoints)" */
	kfit_tracing(kfit_targets_describe(a->t, a->many ? "kprobe_multi: one link for all, "
					   "where fentry attaches one at a time" :
					   kfit_attacher_mech(a), what, sizeof(what)));
}

void kfit_attacher_facts(const struct kfit_attacher *a, __u64 *functions,
			 __u64 *attach_ns, __s64 *fds)
{
	*functions = a->attached;
	*attach_ns = a->attach_ns;
	*fds = a->fds_after - a->fds_before;
}

void kfit_attacher_json(const struct kfit_attacher *a, struct kfit_json *j)
{
	kfit_json_begin_object(j, "attach");
	kfit_json_str(j, "mechanism", kfit_attacher_mech(a));
	kfit_json_u64(j, "functions", a->attached);
	kfit_json_u64(j, "skipped", a->t->nskipped);
	kfit_json_u64(j, "attach_ns", a->attach_ns);
	kfit_json_i64(j, "fds", a->fds_after - a->fds_before);
	if (a->t->nuser)
		kfit_json_str(j, "uprobes", a->umulti ? "uprobe_multi" : "uprobe");
	kfit_json_end_object(j);
}

/* One detaching thread's share: every nth link and fd from the kth */
struct share {
	struct kfit_attacher *a;
	int k, n;
};

static void *detach_share(void *arg)
{
	const struct share *s = arg;
	struct kfit_attacher *a = s->a;
	int i;

	for (i = s->k; i < a->nlinks; i += s->n) {
		if (a->pinned)
			close(bpf_link__fd(a->links[i]));
		bpf_link__destroy(a->links[i]);
		__sync_fetch_and_add(&a->undone, 1);
	}
	for (i = s->k; i < a->nfds; i += s->n) {
		close(a->fds[i]);
		__sync_fetch_and_add(&a->undone, 1);
	}
	for (i = s->k; i < a->nulinks; i += s->n) {
		close(a->ulinks[i]);
		__sync_fetch_and_add(&a->undone, 1);
	}
	return NULL;
}

/*
 * Past a second, "detaching 1,473 functions... 40%" on a terminal; a
 * signal is answered once: the detaching goes on to the end.
 */
static void detach_progress(struct kfit_attacher *a, int total, int signals,
			    bool *told)
{
	char n[32];

	if (kfit_signals != signals && !*told) {
		*told = true;
		if (a->shown)
			fputs("\r\033[K", stderr);
		a->shown = false;
		kfit_info("still detaching %d of %d probes: a signal cannot stop "
			  "it, nothing may stay attached", total - a->undone, total);
	}
	if (!attach_progress_due(a, false))
		return;
	fprintf(stderr, "\rdetaching %s functions... %d%%",
		kfit_duration_fmt_thousands(a->attached, n, sizeof(n)),
		total ? (int)(100LL * a->undone / total) : 100);
}

/*
 * Each detachment waits for the kernel (RCU grace periods, text patching):
 * hundreds of them in a row take a minute. Threads overlap the waits
 * while this one shows how far they are; a share no thread could take is
 * detached here.
 */
static void detach_all(struct kfit_attacher *a, int signals)
{
	struct share s[DETACH_THREADS];
	pthread_t th[DETACH_THREADS];
	bool started[DETACH_THREADS] = {}, told = false;
	int total = a->nlinks + a->nfds + a->nulinks, n = total / 8, k;

	n = n < 1 ? 1 : n > DETACH_THREADS ? DETACH_THREADS : n;
	a->started = a->last_progress = kfit_now_ns();
	a->shown = false;
	a->undone = 0;
	for (k = 0; k < n; k++) {
		s[k] = (struct share){ .a = a, .k = k, .n = n };
		started[k] = !pthread_create(&th[k], NULL, detach_share, &s[k]);
	}
	for (k = 0; k < n; k++)
		if (!started[k])
			detach_share(&s[k]);
	while (a->undone < total) {
		detach_progress(a, total, signals, &told);
		poll(NULL, 0, 50);
	}
	for (k = 0; k < n; k++)
		if (started[k])
			pthread_join(th[k], NULL);
	if (a->shown)
		fputs("\r\033[K", stderr);
	a->shown = false;
	a->nlinks = a->nfds = a->nulinks = 0;
}

/*
 * After detaching: what following the new processes missed is said, as
 * lost data always is
 */
static void follow_end(struct kfit_attacher *a)
{
	struct kfit_ufollow_stats st;
	unsigned long n, lost = a->p.follow_lost ? (unsigned long)*a->p.follow_lost : 0;
	char d[32];

	kfit_ufollow_get_stats(a->uf, &st);
	kfit_ufollow_free(a->uf);
	a->uf = NULL;
	if (!st.procs && !lost)
		return;
	kfit_duration_fmt(st.max_late_ns, d, sizeof(d));
	n = st.procs - st.gone - st.failed;
	if (n)
		kfit_info("note: user functions of %lu new process%s traced from their "
			  "uprobes, made up to %s after a fork: calls before are missed "
			  "(--no-uprobe-filter: from the fork)", n, n == 1 ? "" : "es", d);
	if (st.gone || st.failed || lost)
		kfit_warn("user functions of %lu of %lu new processes were not traced: "
			  "%lu ended before their uprobes were made, %lu refused them%s; "
			  "system-wide with --comm NAME traces such processes from their "
			  "first call", st.gone + st.failed + lost, st.procs + lost, st.gone,
			  st.failed, lost ? ", and the ring that says a process started "
			  "was full" : "");
}

void kfit_attacher_free(struct kfit_attacher *a)
{
	__u64 t0 = kfit_now_ns();
	char d[32];
	int i, n, signals;

	if (!a)
		return;
	n = a->attached;
	signals = kfit_signals;	/* those before were answered */
	if (a->p.follow_notify)
		*a->p.follow_notify = false;
	kfit_ufollow_stop(a->uf, &a->ulinks, &a->nulinks);
	detach_all(a, signals);
	follow_end(a);
	if (a->o.verbose && n)
		kfit_info("detached %d function%s in %s", n, n == 1 ? "" : "s",
			  kfit_duration_fmt(kfit_now_ns() - t0, d, sizeof(d)));
	for (i = 0; i < a->nmods; i++) {
		btf__free(a->mods[i].btf);
		close(a->mods[i].fd);
	}
	free(a->mods);
	free(a->fds);
	free(a->links);
	free(a->ulinks);
	for (i = 0; i < 2; i++) {
		if (a->finfo[i].btf_fd >= 0 && a->finfo[i].read)
			close(a->finfo[i].btf_fd);
		free(a->finfo[i].rec);
	}
	free(a);
}
