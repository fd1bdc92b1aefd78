// SPDX-License-Identifier: GPL-2.0
/* Recording into a trace file: the checks, blocks and summary around the writer. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "elfsyms.h"
#include "kftmeta.h"
#include "ksyms.h"
#include "record.h"

char *kfit_record_text(kfit_record_fill fill, void *ctx, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int err;

	if (!f)
		return NULL;
	err = fill(f, ctx);
	if (fclose(f) || err) {
		free(buf);
		return NULL;
	}
	return buf;
}

int kfit_record_block(struct kft_writer *w, enum kft_block_type type,
		   kfit_record_fill fill, void *ctx)
{
	size_t len = 0;
	char *buf = kfit_record_text(fill, ctx, &len);
	int err;

	if (!buf)
		return -ENOMEM;
	err = kft_writer_block(w, type, buf, len);
	free(buf);
	return err;
}

/* The build-id of a user binary, read once per path in a row */
static const char *build_id(const char *path, char *prev, char *id, size_t len)
{
	struct kfit_elf *e;
	char err[256];

	if (!strcmp(path, prev))
		return id;
	snprintf(prev, PATH_MAX, "%s", path);
	id[0] = '\0';
	if (!kfit_elf_load(path, NULL, &e, err, sizeof(err))) {
		kfit_elf_build_id_hex(e, id, len);
		kfit_elf_free(e);
	}
	return id;
}

int kfit_record_objects(const struct kfit_targets *tg, struct kfit_record_obj *v)
{
	char prev[PATH_MAX] = "", id[2 * KFIT_ELF_BUILD_ID_MAX + 1] = "";
	struct kfit_ksyms *ks = tg->nkernel ? kfit_ksyms_load(NULL) : NULL;
	const struct kfit_ksym *s;
	const struct kfit_targets_func *fn;
	const char *obj, *bid;
	int i, err = 0;

	for (i = 0; i < tg->n && !err; i++) {
		fn = &tg->funcs[i];
		bid = "";
		if (fn->kind == KFIT_TARGETS_USER) {
			obj = fn->path;
			bid = build_id(fn->path, prev, id, sizeof(id));
		} else {
			s = fn->kind == KFIT_TARGETS_KERNEL && ks ?
			    kfit_ksyms_by_name(ks, fn->name) : NULL;
			obj = s && s->module ? s->module : "vmlinux";
		}
		v[i].object = strdup(obj);
		v[i].build_id = strdup(bid);
		if (!v[i].object || !v[i].build_id)
			err = -ENOMEM;
	}
	kfit_ksyms_free(ks);
	return err;
}

void kfit_record_objects_free(struct kfit_record_obj *v, int n)
{
	int i;

	for (i = 0; v && i < n; i++) {
		free(v[i].object);
		free(v[i].build_id);
	}
	free(v);
}

int kfit_record_funcs(FILE *f, const struct kfit_targets *tg)
{
	struct kfit_record_obj *v = calloc(tg->n + 1, sizeof(*v));
	const struct kfit_targets_func *fn;
	int i, err = v ? kfit_record_objects(tg, v) : -ENOMEM;

	for (i = 0; i < tg->n && !err; i++) {
		fn = &tg->funcs[i];
		fprintf(f, "%d\t%c\t%s\t%s\t%s\t%s\t%x\n", i,
			kfit_targets_in_kernel(fn) ? 'k' : 'u', fn->name, v[i].object,
			*v[i].build_id ? v[i].build_id : "-", fn->dropped ? "dropped" : "-",
			fn->ret);
	}
	kfit_record_objects_free(v, tg->n);
	if (err)
		return err;
	return ferror(f) ? -ENOMEM : 0;
}

void kfit_record_lost(FILE *f, const __u64 *lost, int ncpus)
{
	__u64 sum = 0;
	int cpu;

	for (cpu = 0; lost && cpu < ncpus; cpu++)
		sum += lost[cpu];
	kfit_kftmeta_u64(f, "lost", sum);
	for (cpu = 0; lost && cpu < ncpus; cpu++)
		if (lost[cpu])
			fprintf(f, "lost.cpu%d=%llu\n", cpu, (unsigned long long)lost[cpu]);
}

void kfit_record_summary(const char *path, __u64 records, __u64 raw_bytes, __u64 lost)
{
	struct kft_file *f;
	char err[256];

	f = kft_open(path, err, sizeof(err));
	if (!f) {
		kfit_warn("%s cannot be read back: %s", path, err);
		return;
	}
	fprintf(stderr, "recorded %llu record%s (%llu bytes raw) into %s: %llu bytes, "
		"%d chunk%s, %llu lost\n", (unsigned long long)records,
		records == 1 ? "" : "s", (unsigned long long)raw_bytes, path,
		(unsigned long long)kft_size(f), kft_nchunks(f),
		kft_nchunks(f) == 1 ? "" : "s", (unsigned long long)lost);
	if (kft_header_of(f)->flags & KFT_F_FLIGHT) {
		__u64 kept = 0;
		int i;

		for (i = 0; i < kft_nchunks(f); i++)
			kept += kft_chunk_at(f, i)->nrecs;
		fprintf(stderr, "flight recording: the last %llu records kept, %llu older "
			"chunks dropped\n", (unsigned long long)kept,
			(unsigned long long)kft_stat_u64(f, "chunks_dropped", 0));
	}
	kft_close(f);
}
