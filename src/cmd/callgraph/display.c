// SPDX-License-Identifier: GPL-2.0
/*
 * callgraph's display: the live capture described as cgview describes a
 * recording's (src/lib/tree/cgview.h), then the same views kd renders.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "kfit/callgraph.h"
#include "callgraph.skel.h"
#include "attach.h"
#include "calltree.h"
#include "cgview.h"
#include "diag.h"
#include "elfsyms.h"
#include "events.h"
#include "kftmeta.h"
#include "opts.h"
#include "record.h"
#include "sampler.h"
#include "syms.h"
#include "state.h"

/* The traced functions as cgview describes them */
void cg_view_funcs(struct kfit_cgview_func *funcs)
{
	int i;

	for (i = 0; i < env.nfuncs; i++)
		funcs[i] = (struct kfit_cgview_func){
			.name = env.tg.funcs[i].name,
			.kernel = kfit_targets_in_kernel(&env.tg.funcs[i]),
			.dropped = env.tg.funcs[i].dropped,
		};
}

/* The live state as cgview (src/lib/tree/cgview.h) shows it */
static struct kfit_cgview view(struct kfit_cgview_func *funcs, struct kfit_cgview_skip *skipped,
			       struct kfit_cgview_attach *at, struct kfit_cgview_counts *counts)
{
	struct kfit_events_stats s;
	int i;

	cg_view_funcs(funcs);
	for (i = 0; i < env.tg.nskipped; i++)
		skipped[i] = (struct kfit_cgview_skip){
			.name = env.tg.skipped[i].name,
			.reason = env.tg.skipped[i].reason,
		};
	if (env.att) {
		at->mechanism = kfit_attacher_mech(env.att);
		kfit_attacher_facts(env.att, &at->functions, &at->attach_ns, &at->fds);
		at->skipped = env.tg.nskipped;
	}
	kfit_events_get_stats(env.ev, &s);
	counts->records = s.records;
	counts->bytes = s.bytes;
	memcpy(counts->types, env.cap.types, sizeof(counts->types));
	counts->end_calls = env.cap.end_calls;
	counts->lost = env.cap.counters[CG_LOST];
	counts->unmatched = env.cap.counters[CG_UNMATCHED];
	return (struct kfit_cgview){
		.sampled = env.sampled,
		.mechanism = cg_mechanism(),
		.hz = env.sampled ? kfit_sampler_hz(env.sampler) : 0,
		.sample_event = env.sampled ? kfit_sampler_event(env.sampler) : NULL,
		.funcs = funcs,
		.nfuncs = env.nfuncs,
		.ntracepoints = env.tps.n,
		.root = env.root != NULL,
		.start_ns = env.start_ns,
		.end_ns = env.end_ns,
		.missed = env.att ? kfit_attacher_missed(env.att) : 0,
		.too_deep = env.cap.counters[CG_DEEP],
		.no_stack = env.cap.counters[CG_NO_STACK],
		.args = env.has_args,
		.no_args = env.cap.counters[CG_NO_ARGS],
		.str_faults = env.cap.counters[CG_STR_FAULT],
		.max_depth = FC_MAX_DEPTH,
		.skipped = skipped,
		.nskipped = env.tg.nskipped,
		.attach = env.att ? at : NULL,
		.counts = counts,
	};
}

/*
 * Sampled --perfetto: the samples kept for their timeline as they are
 * decoded, their frames named by the symbolizer that names the tree's,
 * while their process lives (by the end it may be gone). Once the mode
 * is known; said if it fails.
 */
int cg_timeline(void)
{
	int err;

	if (!env.sampled || !env.view.perfetto)
		return 0;
	/* no symbolizer: out of memory when it was made */
	err = env.syms ? kfit_cgview_timeline(&env.view, kfit_syms_name, env.syms, env.tasks) :
			 -ENOMEM;
	if (err)
		kfit_err("%s", kfit_reason(err));
	return err;
}

/*
 * What --pprof says besides the stacks, as kd says it from a recording of
 * this run: kfit's version, the command line, the machine, the wall
 * clock, the kernel's build-id, each function's object (FUNCS')
 */
struct pprof_facts {
	char *cmdline;
	struct utsname u;
	char machine[sizeof(struct utsname)];
	char kernel_id[2 * KFIT_ELF_BUILD_ID_MAX + 1];
	struct kfit_record_obj *objs;
};

static int pprof_facts(struct pprof_facts *p, struct kfit_cgview *v, struct kfit_cgview_func *funcs)
{
	size_t len = 0;
	FILE *f;
	int i;

	if (!env.view.pprof)
		return 0;
	f = open_memstream(&p->cmdline, &len);
	if (!f)
		return -ENOMEM;
	kfit_kftmeta_cmdline(f, env.argc, env.argv);
	if (fclose(f))
		return -ENOMEM;
	if (!uname(&p->u)) {
		snprintf(p->machine, sizeof(p->machine), "%s %s %s %s", p->u.sysname,
			 p->u.nodename, p->u.release, p->u.machine);
		v->machine = p->machine;
	}
	p->objs = calloc(env.nfuncs + 1, sizeof(*p->objs));
	if (!p->objs || kfit_record_objects(&env.tg, p->objs))
		return -ENOMEM;
	for (i = 0; i < env.nfuncs; i++) {
		funcs[i].object = p->objs[i].object;
		funcs[i].build_id = p->objs[i].build_id;
	}
	v->version = KFIT_VERSION;
	v->cmdline = p->cmdline;
	v->realtime_offset_ns = kfit_kftmeta_realtime_offset();
	v->kernel_build_id = kfit_kernel_build_id(NULL, p->kernel_id, sizeof(p->kernel_id));
	return 0;
}

/* The views of the capture, once it ended (the tree finished here), the timeline's too */
int cg_render(void)
{
	struct kfit_cgview_func *funcs = calloc(env.nfuncs + 1, sizeof(*funcs));
	struct kfit_cgview_skip *skipped = calloc(env.tg.nskipped + 1, sizeof(*skipped));
	struct kfit_cgview_attach at = { 0 };
	struct kfit_cgview_counts counts = { 0 };
	struct pprof_facts facts = { 0 };
	struct kfit_cgview_opts o;
	struct kfit_cgview v;
	int err = -ENOMEM;

	kfit_ctree_finish(env.tree);
	if (funcs && skipped) {
		v = view(funcs, skipped, &at, &counts);
		err = pprof_facts(&facts, &v, funcs);
	}
	if (!err) {
		o = kfit_cgview_opts_of(&env.view, &env.c, env.depth);
		err = kfit_cgview_render(&v, &o, env.tree);
	} else {
		kfit_err("%s", kfit_reason(err));
	}
	free(facts.cmdline);
	kfit_record_objects_free(facts.objs, env.nfuncs);
	free(funcs);
	free(skipped);
	return err;
}
