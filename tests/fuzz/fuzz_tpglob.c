// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint specs (tpglob.h): kfit_tpglob_add of "CATEGORY:NAME" globs over
 * a fake tracefs in /tmp. The input's first line is the spec; the rest,
 * when there, is the format file of one more tracepoint, fz:tp, whose
 * record size is read from it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tpglob.h"
#include "fuzzlib.h"

static const char sched_switch[] =
	"name: sched_switch\nID: 372\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s next_prio=%d\", REC->prev_comm, REC->next_prio\n";

static const char *const tps[] = {
	"sched/sched_switch", "sched/sched_wakeup", "sched/sched_wakeup_new",
	"irq/softirq_entry", "irq/irq_handler_entry", "syscalls/sys_enter_write",
};

static const char *dir;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char rel[128];
	size_t i;

	(void)argc;
	(void)argv;
	dir = fz_tmpdir("tpglob");
	for (i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		snprintf(rel, sizeof(rel), "events/%s/format", tps[i]);
		fz_put(dir, rel, sched_switch, strlen(sched_switch));
	}
	/* files beside the categories are no tracepoints */
	fz_put(dir, "events/enable", "0\n", 2);
	fz_put(dir, "events/sched/enable", "0\n", 2);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct kfit_tpglob t = { 0 };
	char err[512], *spec;
	int i, j, r;

	spec = fz_line(&p, end);
	if (!spec)
		return 0;
	fz_put(dir, "events/fz/tp/format", p < end ? p : NULL, end - p);
	/* Twice: a tracepoint already there is not added again */
	for (i = 0; i < 2; i++) {
		err[0] = '\0';
		r = kfit_tpglob_add(&t, dir, spec, err, sizeof(err));
		if (r && (r > 0 || !err[0]))
			abort();
	}
	for (i = 0; i < t.n; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(t.tp[i].name, t.tp[j].name))
				abort();
	kfit_tpglob_free(&t);
	free(spec);
	return 0;
}
