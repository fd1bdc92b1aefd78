// SPDX-License-Identifier: GPL-2.0
/*
 * Boot records (bootlog.h): the input, as it is (no NUL at its end), is
 * dmesg or tracefs text; after a line "--kallsyms--", the rest is a
 * kallsyms file that names the levels. The record must hold together:
 * calls in start order, ends after starts, strings terminated, levels
 * counting no more calls than there are; pick against itself and nothing.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bootlog.h"
#include "fuzzlib.h"

#define SEP "\n--kallsyms--\n"

static void terminated(const char *s, size_t size)
{
	if (!memchr(s, '\0', size))
		abort();
}

static void check(const struct kfit_bootlog *bl)
{
	size_t i, n = 0;

	for (i = 0; i < bl->ncalls; i++) {
		const struct kfit_bootlog_initcall *c = &bl->calls[i];

		terminated(c->fn, sizeof(c->fn));
		terminated(c->module, sizeof(c->module));
		terminated(c->level, sizeof(c->level));
		if (i && c->start_ns < bl->calls[i - 1].start_ns)
			abort();
		if (c->finished && bl->src == KFIT_BOOTLOG_TRACE &&
		    c->end_ns >= c->start_ns && c->dur_ns != c->end_ns - c->start_ns)
			abort();
		if (!c->finished && (c->end_ns || c->dur_ns))
			abort();
	}
	for (i = 0; i < bl->nlevels; i++) {
		terminated(bl->levels[i].name, sizeof(bl->levels[i].name));
		n += bl->levels[i].n;
	}
	if (n > bl->ncalls)
		abort();
	terminated(bl->why, sizeof(bl->why));
	terminated(bl->uname, sizeof(bl->uname));
	terminated(bl->cmdline, sizeof(bl->cmdline));
	terminated(bl->init_path, sizeof(bl->init_path));
	if (bl->complete && bl->unmatched)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *syms = NULL;
	const struct kfit_bootlog *p;
	struct kfit_bootlog bl;
	size_t len = size, slen = 0;
	char err[128], note[512];
	int rc;

	if (size >= strlen(SEP)) {
		syms = memmem(text, size, SEP, strlen(SEP));
		if (syms) {
			len = syms - text;
			syms += strlen(SEP);
			slen = size - (syms - text);
		}
	}
	kfit_bootlog_init(&bl);
	rc = kfit_bootlog_parse(&bl, text, len, err, sizeof(err));
	if (rc == -EINVAL) {
		if (!err[0] || bl.ncalls || bl.calls)
			abort();
		kfit_bootlog_free(&bl);
		return 0;
	}
	if (rc)
		abort();
	check(&bl);
	if (syms) {
		kfit_bootlog_levels_from_kallsyms(&bl, syms, slen);
		check(&bl);
	}
	p = kfit_bootlog_pick(&bl, &bl, note, sizeof(note));
	if (p != &bl && (bl.ncalls || bl.unmatched))
		abort();
	terminated(note, sizeof(note));
	if (bl.src == KFIT_BOOTLOG_TRACE)
		p = kfit_bootlog_pick(NULL, &bl, note, sizeof(note));
	else
		p = kfit_bootlog_pick(&bl, NULL, note, sizeof(note));
	if (p != &bl)
		abort();
	kfit_bootlog_free(&bl);
	return 0;
}
