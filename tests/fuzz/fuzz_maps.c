// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/maps lines (elfsyms.h kfit_elf_parse_mapline), one by one, then
 * the whole input as the maps file of process 1 in a fake /proc under
 * /tmp, read by the symbolizer (syms.h), which names addresses in and
 * around each mapping. Its kallsyms is a fixture of a few lines.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "elfsyms.h"
#include "syms.h"
#include "fuzzlib.h"

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T vfs_read\n"
	"ffffffffc0a01000 t nf_hook_slow\t[nf_tables]\n";

static const char *dir;
static char proc[256], ksyms[300];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	dir = fz_tmpdir("maps");
	fz_put(dir, "proc/kallsyms", kallsyms, strlen(kallsyms));
	snprintf(proc, sizeof(proc), "%s/proc", dir);
	snprintf(ksyms, sizeof(ksyms), "%s/kallsyms", proc);
	return 0;
}

static void name(struct kfit_syms *s, __u64 addr)
{
	if (!kfit_syms_name(s, 1, addr, false))
		abort();	/* NULL only when out of memory */
	kfit_syms_file_of(s, 1, addr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct kfit_syms_src src = { proc, ksyms, "/nonexistent/kfit-debug" };
	struct kfit_elf_mapline m;
	struct kfit_syms *s;
	__u64 addrs[16];
	int n = 0, i;
	char *line;

	while ((line = fz_line(&p, end))) {
		if (!kfit_elf_parse_mapline(line, &m)) {
			if (m.path < line || m.path > line + strlen(line))
				abort();
			if (n < 16)
				addrs[n++] = m.start + (m.end - m.start) / 2;
		}
		free(line);
	}
	fz_put(dir, "proc/1/maps", data, size);
	s = kfit_syms_new(&src);
	if (!s)
		abort();
	kfit_syms_pid(s, 1);
	for (i = 0; i < n; i++)
		name(s, addrs[i]);
	name(s, 0);
	name(s, ~0ULL);
	kfit_syms_name(s, 0, 0xffffffff81001010ULL, true);
	for (i = 0; i < kfit_syms_nfiles(s); i++)
		kfit_syms_file(s, i);
	kfit_syms_free(s);
	return 0;
}
