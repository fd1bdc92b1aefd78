/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_BOOTFUNCS_H
#define KFIT_BOOTFUNCS_H
/*
 * bootsum --funcs GLOB --min DUR: funcdur's programs (bpf/calltime.bpf.c)
 * loaded by bootsum --early from the first process on, their links and
 * maps pinned under DIR/funcs, the traced functions in map bs_funcs
 * (include/kfit/bootrec.h) whose id goes into bs_meta.funcs_id; a later
 * bootsum reads them as funcdur does and prints funcdur's table.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "opts.h"

#define KFIT_BOOTFUNCS_SUBDIR	"funcs"

struct kfit_bootfuncs_opts {
	const char *glob;	/* --funcs: one TARGET as funcdur takes them */
	__u64 min_ns;		/* --min: shorter calls counted as filtered only */
	int verbose;		/* -v: every skipped function listed */
	enum kfit_amech mech;	/* 0 (KFIT_AM_AUTO): fentry, else kprobes */
};

/*
 * Resolves, loads, attaches, activates (calls are counted from here on),
 * pins under DIR/funcs. Returns 0, or -errno after saying why on stderr
 * and into why (one line, for /dev/kmsg): nothing attached is left then,
 * only DIR/funcs/bs_funcs with the reason for the report. *funcs_id gets
 * bs_funcs' id either way (0 if even that could not be made). The
 * process keeps no fd of it: it may exec at once.
 */
int kfit_bootfuncs_start(const char *dir, const struct kfit_bootfuncs_opts *o,
			 __u32 *funcs_id, char *why, size_t whylen);

/*
 * bootsum --stop: removes DIR/funcs (the links go with their pins, and
 * with them every program and map). 1 if it was there, 0 if not, -errno.
 * Call before removing DIR itself.
 */
int kfit_bootfuncs_remove(const char *dir);
/*
 * bootsum --stop where the pins are out of reach: the programs of the
 * recording bs_funcs FUNCS_ID names return at once from now on (their
 * ready flag off); *kib gets the memory of its maps, which stay until
 * reboot. 0, -ENOENT if none, or -errno.
 */
int kfit_bootfuncs_disable(__u32 funcs_id, __u64 *kib);

/* A recording found again, read */
struct kfit_bootfuncs;

/*
 * Finds the recording: DIR/funcs/bs_funcs, else map FUNCS_ID (0: none
 * given), else the newest map named bs_funcs; reads it (the maps stay as
 * they are: reports may be repeated). top: -n. Returns 0, -ENOENT if
 * nothing was recorded with --funcs, or -errno.
 */
int kfit_bootfuncs_open(const char *dir, __u32 funcs_id, unsigned long top,
			struct kfit_bootfuncs **out);
/* "Functions (--funcs GLOB, ...):" then funcdur's table, or why none */
void kfit_bootfuncs_text(FILE *f, const struct kfit_bootfuncs *b);
struct kfit_json;
/* "functions": {recorded, glob, why | mechanism, min_ns, found, functions[], ...} */
void kfit_bootfuncs_json(struct kfit_json *j, const struct kfit_bootfuncs *b);
void kfit_bootfuncs_free(struct kfit_bootfuncs *b);

#endif
