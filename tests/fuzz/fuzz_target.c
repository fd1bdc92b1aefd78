// SPDX-License-Identifier: GPL-2.0
/*
 * Function targets, the parts that need no kernel (utarget.h,
 * syscalls.h): which kind a spec is, "sys:NAME" against the system call
 * table, and for "BINARY:FUNC" the function glob resolved in a fixture
 * binary made for it (build/fuzz/symtarget, beside the harness): BINARY is
 * not looked up, so no file of this system is read for it.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "syscalls.h"
#include "utarget.h"
#include "fuzzlib.h"

static char fixture[PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(fixture, sizeof(fixture), "%s/symtarget", fz_selfdir());
	return 0;
}

static void user(const char *spec)
{
	const char *colon = strrchr(spec, ':');
	struct kfit_utarget u;
	char err[1024], *in;
	size_t len;
	int i, r;

	len = strlen(fixture) + strlen(colon) + 1;
	in = malloc(len);
	if (!in)
		abort();
	snprintf(in, len, "%s%s", fixture, colon);
	err[0] = '\0';
	r = kfit_utarget_resolve(in, 0, &u, err, sizeof(err));
	if (r) {
		if (r > 0 || !err[0] || u.n)
			abort();
	} else {
		/* A glob may match only refused functions (_start): skipped */
		if (u.n + u.nskipped < 1)
			abort();
		for (i = 1; i < u.n; i++)
			if (strcmp(u.names[i - 1], u.names[i]) >= 0)
				abort();	/* sorted, unique */
		for (i = 0; i < u.n; i++)
			if (!u.offs[i])
				abort();	/* the code's file offset */
		for (i = 0; i < u.nskipped; i++)
			if (!u.skipped[i].name || !u.skipped[i].reason)
				abort();
	}
	kfit_utarget_free(&u);
	free(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *name;
	char *spec;
	int nr;

	/* Longer specs only slow the closest-name search down (strdist.h) */
	if (size > 1024)
		return 0;
	spec = fz_str(data, size);
	if (!strncmp(spec, "sys:", 4)) {
		if (kfit_utarget_is_spec(spec))
			abort();
		nr = kfit_syscall_nr(spec + 4);
		if (nr >= 0) {
			name = kfit_syscall_name(nr);
			if (!name || kfit_syscall_nr(name) != nr)
				abort();
		}
	} else if (kfit_utarget_is_spec(spec)) {
		user(spec);
	} else if (strchr(spec, ':')) {
		abort();
	}
	if (size >= 4) {
		memcpy(&nr, data, 4);
		kfit_syscall_name(nr);
	}
	free(spec);
	return 0;
}
