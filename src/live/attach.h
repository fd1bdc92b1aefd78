/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_ATTACH_H
#define KFIT_ATTACH_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "opts.h"
#include "target.h"

/*
 * The mass attacher: every function of a kfit_targets set, each with its
 * index as BPF cookie, in explicit phases.
 *
 *   a = kfit_attacher_new(&targets, &opts);	after resolving targets
 *   skel = X__open(); kfit_attacher_prepare(a, &progs); X__load(skel);
 *   kfit_attacher_attach(a);	every function; failures are skipped
 *   kfit_attacher_activate(a, &skel->bss->kfit_ready);
 *   ... kfit_attacher_free(a) before X__destroy(skel).
 *
 * Kernel functions go through fentry/fexit (a copy of the programs per
 * function, with the module's BTF object where the function is a
 * module's), else kprobe_multi links (one per direction for all
 * functions) where the kernel has them, else a kprobe pair per function.
 * User functions go through uprobe_multi links (one per binary and
 * direction) where the kernel has them (6.6+, process filter fixed in
 * 6.10), else a uprobe pair per function; with pid, only in that
 * process, and with follow in the processes it creates too, the kernel
 * keeping them out of any other (ufollow.h). More than uprobe_limit on
 * a binary that other processes run are refused (-EBUSY) unless force,
 * where they go one by one (or would fire in every process: no pid).
 * A function the kernel refuses is dropped (its kfit_targets_func.dropped set)
 * and added to the targets' skipped list with the reason; the rest are
 * traced. The BPF side records nothing before activate: programs check
 * a ready flag, so no call is seen half-attached.
 */
struct bpf_object;
struct bpf_program;

/* The tool's programs; NULL where it has none of that kind */
struct kfit_attach_progs {
	struct bpf_object *obj;		/* every other program's autoload goes off */
	struct bpf_program *fentry, *fexit;
	struct bpf_program *kprobe, *kretprobe;
	struct bpf_program *kmulti, *kmulti_ret;
	struct bpf_program *uprobe, *uretprobe;
	struct bpf_program *sys_enter, *sys_exit;
	/*
	 * sys_enter for a system call whose first n + 1 arguments are read,
	 * loaded straight from its record: perf refuses one that loads past
	 * the end of the record it attaches to. NULL: sys_enter reads them.
	 */
	struct bpf_program *sys_enter_args[KFIT_SYS_ARGS];
	/* follow.bpf.h's, when pid's new processes are followed */
	struct bpf_map *follow_rb;
	bool *follow_notify;
	__u64 *follow_lost;
};

struct kfit_attach_opts {
	enum kfit_amech mech;
	enum kfit_umech umech;
	int pid;		/* uprobes: only this process, 0: any */
	bool follow;		/* and the processes it creates (ufollow.h) */
	/*
	 * follow without the kernel's process filter: uprobes in every
	 * process running the binary, the BPF side keeping those followed
	 * (a child's calls from its fork; the others stop at each call)
	 */
	bool unfiltered;
	int verbose;		/* -v: list every skipped function */
	bool progress;		/* on a terminal: attaching N/M */
	unsigned long uprobe_limit;	/* 0: KFIT_UPROBE_LIMIT */
	bool force;		/* more uprobes than that on a shared binary */
};

struct kfit_attacher;

struct kfit_attacher *kfit_attacher_new(struct kfit_targets *t,
					const struct kfit_attach_opts *o);
/*
 * Before the skeleton is loaded: decides the kernel mechanism (explains
 * and returns -EPERM or -EOPNOTSUPP when none works), raises
 * RLIMIT_NOFILE, turns autoload on for the programs needed only.
 */
int kfit_attacher_prepare(struct kfit_attacher *a, const struct kfit_attach_progs *p);
/*
 * After load: attaches every function not dropped. Returns 0 when at
 * least one function is traced, else a negative errno after explaining:
 * -EBUSY for uprobes refused on a shared binary; -EINTR when a signal
 * came (kfit_exiting), said too: kfit_attacher_free() detaches what was
 * attached, and the caller exits non-zero (nothing was traced).
 */
int kfit_attacher_attach(struct kfit_attacher *a);
void kfit_attacher_activate(struct kfit_attacher *a, volatile bool *ready);
/*
 * Pins every link made (fentry copies, kprobe_multi, kprobes, uprobes,
 * tracepoints) as DIR/link_N, so that they outlive the process, and lets
 * go of them: kfit_attacher_free() then closes them without detaching.
 * 0, or -errno with nothing let go (the caller removes the pins made).
 */
int kfit_attacher_pin(struct kfit_attacher *a, const char *dir);
/*
 * Detaches everything not pinned, with progress past a second on a
 * terminal; a signal meanwhile does not stop it (nothing may stay
 * attached) but is answered. With -v says how long it took.
 */
void kfit_attacher_free(struct kfit_attacher *a);

/*
 * "fentry", "kprobe", "kprobe_multi"; "uprobe_multi", "uprobe" or
 * "tracepoint" without kernel functions
 */
const char *kfit_attacher_mech(const struct kfit_attacher *a);
/* The JSON "mode" of earlier versions: fentry, kprobe, uprobe or tracepoint */
/* uprobe_multi is "uprobe" there too */
const char *kfit_attacher_mode(const struct kfit_attacher *a);
/* Runs of the programs the kernel skipped (recursion), where it counts them */
__u64 kfit_attacher_missed(const struct kfit_attacher *a);

/* "Skipped N functions that cannot be traced:" and the first few (-v: all) */
void kfit_attacher_skipped(const struct kfit_attacher *a);
/* "Tracing N functions (MECH)... Ctrl-C to end." and the skipped ones */
void kfit_attacher_announce(const struct kfit_attacher *a);

/* What the JSON "attach" object says: functions attached, ns taken, fds opened */
void kfit_attacher_facts(const struct kfit_attacher *a, __u64 *functions,
			 __u64 *attach_ns, __s64 *fds);

struct kfit_json;
/* "attach": { mechanism, functions, skipped, attach_ns, fds } */
void kfit_attacher_json(const struct kfit_attacher *a, struct kfit_json *j);

#endif
