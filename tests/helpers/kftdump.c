// SPDX-License-Identifier: GPL-2.0
/*
 * kftdump FILE: what the recording tests check of a trace file, through
 * the reader (src/lib/trace/kft.h), one fact a line:
 *   complete 0|1, missing BYTES, size BYTES, flags N, chunks N,
 *   meta KEY=VALUE, stats KEY=VALUE, func ID KIND NAME OBJECT BUILD_ID,
 *   event ID NAME, task PID TID PPID COMM,
 *   chunk SEQ FIRST_TS LAST_TS NRECS LOST, then over all chunks:
 *   records N, type NAME N (per record type), first_ts, last_ts,
 *   exec TID COMM (each exec record), usym NAME (each sample's user leaf,
 *   named by the SYMS block), bad_chunks N.
 * Exits 1 when the file cannot be opened (the reader's message on stderr).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kfit/rec.h"
#include "calltree.h"
#include "kft.h"

static void records(struct kft_file *f, const char *p, size_t len, __u64 *count,
		    __u64 *first, __u64 *last)
{
	struct kfit_rec_sample s;
	struct kfit_rec_task t;
	struct kfit_rec h;
	__u64 ip;

	while (len >= sizeof(h)) {
		memcpy(&h, p, sizeof(h));
		if (h.size < sizeof(h) || h.size > len || h.size % 8)
			break;
		if (h.type < KFIT_REC_NTYPES)
			count[h.type]++;
		if (h.type != KFIT_REC_LOST && (!*first || h.ts < *first))
			*first = h.ts;
		if (h.ts > *last)
			*last = h.ts;
		if (h.type == KFIT_REC_EXEC && h.size >= sizeof(t)) {
			memcpy(&t, p, sizeof(t));
			printf("exec %u %.16s\n", h.tid, t.comm);
		}
		if (h.type == KFIT_REC_SAMPLE && h.size >= offsetof(struct kfit_rec_sample, ip)) {
			memcpy(&s, p, offsetof(struct kfit_rec_sample, ip));
			if (s.nuser && s.nkernel < KFIT_STACK_MAX &&
			    offsetof(struct kfit_rec_sample, ip) + (s.nkernel + 1) * 8 <= h.size) {
				memcpy(&ip, p + offsetof(struct kfit_rec_sample, ip) + s.nkernel * 8, 8);
				printf("usym %s\n", kft_sym(f, h.pid, ip, false));
			}
		}
		p += h.size;
		len -= h.size;
	}
}

int main(int argc, char **argv)
{
	__u64 count[KFIT_REC_NTYPES] = { 0 }, first = 0, last = 0, total = 0;
	const struct kft_chunkinfo *c;
	const struct kft_func *fn;
	const struct kft_task *t;
	struct kft_file *f;
	char err[512];
	int i, bad = 0;
	size_t len;
	void *buf;

	if (argc != 2) {
		fprintf(stderr, "usage: kftdump FILE\n");
		return 2;
	}
	f = kft_open(argv[1], err, sizeof(err));
	if (!f) {
		fprintf(stderr, "kftdump: %s\n", err);
		return 1;
	}
	printf("complete %d\nmissing %llu\nsize %llu\nflags %u\nchunks %d\n",
	       kft_complete(f), (unsigned long long)kft_missing(f),
	       (unsigned long long)kft_size(f), kft_header_of(f)->flags, kft_nchunks(f));
	for (i = 0; i < kft_nmeta(f); i++)
		printf("meta %s=%s\n", kft_meta_at(f, i)->key, kft_meta_at(f, i)->val);
	for (i = 0; i < kft_nstats(f); i++)
		printf("stats %s=%s\n", kft_stat_at(f, i)->key, kft_stat_at(f, i)->val);
	for (i = 0; i < kft_nfuncs(f); i++) {
		fn = kft_func_at(f, i);
		printf("func %u %c %s %s %s\n", fn->id, fn->kernel ? 'k' : 'u', fn->name,
		       fn->object, *fn->build_id ? fn->build_id : "-");
	}
	for (i = 0; i < kft_nevents(f); i++)
		printf("event %u %s\n", kft_event_at(f, i)->id, kft_event_at(f, i)->name);
	for (i = 0; i < kft_ntasks(f); i++) {
		t = kft_task_at(f, i);
		printf("task %u %u %u %.16s\n", t->pid, t->tid, t->ppid, t->comm);
	}
	for (i = 0; i < kft_nchunks(f); i++) {
		c = kft_chunk_at(f, i);
		printf("chunk %llu %llu %llu %llu %llu\n", (unsigned long long)c->seq,
		       (unsigned long long)c->first_ts, (unsigned long long)c->last_ts,
		       (unsigned long long)c->nrecs, (unsigned long long)c->lost);
		if (kft_read_chunk(f, i, &buf, &len)) {
			bad++;
			continue;
		}
		records(f, buf, len, count, &first, &last);
		free(buf);
	}
	for (i = 1; i < KFIT_REC_NTYPES; i++)
		total += count[i];
	printf("records %llu\n", (unsigned long long)total);
	for (i = 1; i < KFIT_REC_NTYPES; i++)
		printf("type %s %llu\n", kfit_ctree_rec_type_name(i), (unsigned long long)count[i]);
	printf("first_ts %llu\nlast_ts %llu\nbad_chunks %d\n", (unsigned long long)first,
	       (unsigned long long)last, bad);
	kft_close(f);
	return 0;
}
