// SPDX-License-Identifier: GPL-2.0
/* tracecheck: which tracing mechanisms work on this kernel, and why not. */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include "child.h"
#include "diag.h"
#include "output.h"
#include "opts.h"
#include "probe.h"
#include "run.h"

static const struct kfit_opt tracecheck_opts[] = {
	{ NULL },
};

static const struct kfit_tool tool = {
	.name = "tracecheck",
	.summary = "Report which tracing mechanisms work on the running kernel, "
		   "and why the\nothers do not. Each is tried for real: a tiny "
		   "program is loaded, attached\nand triggered.",
	.synopsis = "[OPTIONS]",
	.examples = "tracecheck           # table\n"
		    "tracecheck -j        # JSON\n",
	.common = KFIT_OPT_JSON,
	.opts = tracecheck_opts,
};

static const char *state_word(enum kfit_probe_state s)
{
	return s == KFIT_P_OK ? "yes" : s == KFIT_P_NO ? "no" : "info";
}

static void print_text(const struct utsname *u)
{
	static const char *const hdr[] = { "MECHANISM", "WORKS", "DETAIL" };
	struct kfit_table *t = kfit_table_new(3, hdr, "lll");
	int m;

	printf("kernel %s %s\n\n", u->release, u->machine);
	for (m = 0; m < KFIT_M_NR; m++) {
		const struct kfit_probe_result *r = kfit_probe(m);

		kfit_table_row(t);
		kfit_table_cell(t, "%s", kfit_probe_mech_name(m));
		kfit_table_cell(t, "%s", state_word(r->state));
		kfit_table_cell(t, "%s", r->detail);
	}
	kfit_table_print(t, stdout);
	kfit_table_free(t);
	printf("\nfunction tracing: %s\n",
	       kfit_probe_works(KFIT_M_FENTRY) ? "fentry/fexit" :
	       kfit_probe_works(KFIT_M_KPROBE) ? "kprobes (fentry refused)" :
	       "neither fentry nor kprobes: use tracepoints (sys:NAME) and uprobes");
}

static void print_json(const struct utsname *u)
{
	struct kfit_json j;
	int m;

	kfit_json_init(&j, stdout, true);
	kfit_json_begin_object(&j, NULL);
	kfit_json_str(&j, "kernel", u->release);
	kfit_json_str(&j, "machine", u->machine);
	kfit_json_begin_array(&j, "checks");
	for (m = 0; m < KFIT_M_NR; m++) {
		const struct kfit_probe_result *r = kfit_probe(m);

		kfit_json_begin_object(&j, NULL);
		kfit_json_str(&j, "name", kfit_probe_mech_name(m));
		kfit_json_bool(&j, "ok", r->state == KFIT_P_OK);
		kfit_json_str(&j, "state", r->state == KFIT_P_OK ? "ok" :
			      r->state == KFIT_P_NO ? "no" : "info");
		kfit_json_str(&j, "detail", r->detail);
		if (r->err)
			kfit_json_i64(&j, "errno", -r->err);
		kfit_json_end_object(&j);
	}
	kfit_json_end_array(&j);
	kfit_json_end_object(&j);
	kfit_json_finish(&j);
}

int main(int argc, char **argv)
{
	struct kfit_common c = {};
	struct utsname u;
	int i;

	i = kfit_opts_parse_args(&tool, &c, argc, argv);
	if (i < 0)
		return 2;
	if (i < argc) {
		fprintf(stderr, "tracecheck: unexpected argument '%s'\n"
			"Try 'tracecheck --help' for more information.\n", argv[i]);
		return 2;
	}
	/*
	 * No kfit_arm_cleanup(): a check's program, link and perf event
	 * are file descriptors the kernel releases if a signal ends us.
	 */
	kfit_setup("tracecheck", &c);
	if (kfit_child_io_setup(c.output, NULL))
		return 1;
	uname(&u);
	if (c.json)
		print_json(&u);
	else
		print_text(&u);
	/* Most checks were not tried: the report is incomplete, say why */
	return kfit_caps_check() ? 1 : 0;
}
