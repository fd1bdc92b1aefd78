// SPDX-License-Identifier: GPL-2.0
/*
 * The trace file's reader: what kd and the fuzzer open. Every byte is
 * outside input: sizes are checked against the file before any read,
 * CRCs before any parse, and text is parsed (kft_text.c) without fixed
 * buffers.
 */
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "kfit/rec.h"
#include "kft.h"
#include "kft_codec.h"
#include "kft_file.h"

/* The most bytes one byte of deflate data inflates to, with slack */
#define ZLIB_RATIO	1032

/* len bytes at off, all within the file: 0, -EBADMSG (beyond it), -EIO */
static int read_at(struct kft_file *f, void *buf, size_t len, __u64 off)
{
	char *p = buf;

	if (off > f->size || len > f->size - off)
		return -EBADMSG;
	if (f->fd < 0) {
		if (len)
			memcpy(buf, f->mem + off, len);
		return 0;
	}
	while (len) {
		ssize_t n = pread(f->fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;	/* it shrank under us */
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * Whether len bytes at off are in the file, and written: a writer leaves
 * no hole, so a block that claims bytes of one (a sparse file) is refused
 * before its length is allocated and read. 0 or -EBADMSG.
 */
static int claim_ok(struct kft_file *f, __u64 off, __u64 len)
{
	off_t hole;

	if (off > f->size || len > f->size - off)
		return -EBADMSG;
	if (f->fd < 0 || !len)
		return 0;
	hole = lseek(f->fd, off, SEEK_HOLE);
	/* no SEEK_HOLE here (or an error): the size check is all there is */
	if (hole < 0)
		return 0;
	return (__u64)hole < off + len ? -EBADMSG : 0;
}

/* ---- blocks -------------------------------------------------------------- */

static const char *const block_names[KFT_B_NTYPES] = {
	[KFT_B_META] = "META", [KFT_B_LAYOUT] = "LAYOUT", [KFT_B_FUNCS] = "FUNCS",
	[KFT_B_EVENTS] = "EVENTS", [KFT_B_TASKS] = "TASKS", [KFT_B_SYMS] = "SYMS",
	[KFT_B_CHUNK] = "CHUNK", [KFT_B_STATS] = "STATS", [KFT_B_INDEX] = "INDEX",
	[KFT_B_NAMES] = "NAMES", [KFT_B_ARGS] = "ARGS",
};

/* A metadata block's payload (block at off): parsed. 0 or -EBADMSG/-errno */
static int parse_block(struct kft_file *f, const struct kft_block *b, __u64 off)
{
	const char *name = block_names[b->type];
	char *text, *end;
	int err;

	if (b->flags || b->raw_size != b->size)
		return kft_file_fail(f, "corrupt trace file: its %s block has flags %#x",
				     name, b->flags);
	if (claim_ok(f, off + sizeof(*b), b->size))
		return kft_file_fail(f, "corrupt trace file: its %s block at offset %llu claims %u bytes "
				     "the file does not hold (a hole)", name,
				     (unsigned long long)off, b->size);
	text = malloc((size_t)b->size + 1);
	if (!text)
		return kft_file_fail(f, "out of memory");
	err = read_at(f, text, b->size, off + sizeof(*b));
	if (err) {
		free(text);
		return err == -EBADMSG ?
		       kft_file_fail(f, "corrupt trace file: its %s block runs past the end", name) :
		       kft_file_fail(f, "read error: %s", strerror(-err));
	}
	if (kft_crc(text, b->size) != b->crc) {
		free(text);
		return kft_file_fail(f, "corrupt trace file: the %s block at offset %llu fails its CRC",
				     name, (unsigned long long)off);
	}
	text[b->size] = '\0';
	end = text + b->size;
	{
		char **t = realloc(f->texts, (f->ntexts + 1) * sizeof(*t));

		if (!t) {
			free(text);
			return kft_file_fail(f, "out of memory");
		}
		f->texts = t;
		f->texts[f->ntexts++] = text;
	}
	switch (b->type) {
	case KFT_B_META:
		return kft_text_parse_kv(f, &f->meta, text, end);
	case KFT_B_STATS:
		f->stats_at = off;
		return kft_text_parse_kv(f, &f->stats, text, end);
	case KFT_B_LAYOUT: {
		char why[256];

		if (kft_layout_check(text, b->size, why, sizeof(why)))
			return kft_file_fail(f, "%s", why);
		f->has_layout = true;
		return 0;
	}
	case KFT_B_FUNCS:
		return kft_text_parse_funcs(f, text, end);
	case KFT_B_EVENTS:
		return kft_text_parse_events(f, text, end);
	case KFT_B_TASKS:
		return kft_text_parse_tasks(f, text, end);
	case KFT_B_NAMES:
		f->has_names = true;
		return kft_text_parse_names(f, text, end);
	case KFT_B_SYMS:
		return kft_text_parse_syms(f, text, end);
	case KFT_B_ARGS:
		return kft_text_parse_args(f, text, end);
	}
	return 0;
}

static bool is_meta(__u16 type)
{
	return type >= KFT_B_META && type < KFT_B_NTYPES && type != KFT_B_CHUNK &&
	       type != KFT_B_INDEX;
}

/* A chunk's block header and struct at off: 0, or -EBADMSG when not valid */
static int read_chunk_head(struct kft_file *f, __u64 off, struct kft_chunkinfo *ci)
{
	struct {
		struct kft_block b;
		struct kft_chunk c;
	} h;

	if (read_at(f, &h, sizeof(h), off) || kft_block_check(&h.b) ||
	    h.b.type != KFT_B_CHUNK || h.b.flags & ~KFT_BF_ZLIB ||
	    h.b.size < sizeof(h.c) || h.b.raw_size < sizeof(h.c) ||
	    (!(h.b.flags & KFT_BF_ZLIB) && h.b.size != h.b.raw_size) ||
	    h.b.raw_size - sizeof(h.c) > KFT_CHUNK_MAX + 65536 ||
	    off + sizeof(h.b) + h.b.size > f->size)
		return -EBADMSG;
	*ci = (struct kft_chunkinfo){
		.offset = off, .seq = h.c.seq, .first_ts = h.c.first_ts,
		.last_ts = h.c.last_ts, .nrecs = h.c.nrecs, .lost = h.c.lost,
		.size = h.b.size, .raw_size = h.b.raw_size,
	};
	return 0;
}

static int add_chunk(struct kft_file *f, const struct kft_chunkinfo *ci)
{
	if (f->nchunks == f->achunks) {
		int n = f->achunks ? 2 * f->achunks : 64;
		struct kft_chunkinfo *c = realloc(f->chunks, n * sizeof(*c));

		if (!c)
			return kft_file_fail(f, "out of memory");
		f->chunks = c;
		f->achunks = n;
	}
	f->chunks[f->nchunks++] = *ci;
	return 0;
}

/*
 * The index through the footer, checked: every entry a valid chunk block
 * saying what the entry says, in file order. 1 used, 0 none (walk), <0 error.
 */
static int read_index(struct kft_file *f, __u64 *index_off, __u64 *stats_off)
{
	__u64 end = f->size - sizeof(struct kft_footer), prev = sizeof(f->hdr), i;
	struct kft_index_ent *ent = NULL;
	struct kft_chunkinfo ci;
	struct kft_footer ft;
	struct kft_block b;
	int rc = 0;

	if (f->size < sizeof(f->hdr) + sizeof(ft) ||
	    read_at(f, &ft, sizeof(ft), end) || kft_footer_check(&ft))
		return 0;
	if (ft.index_off < sizeof(f->hdr) || ft.index_off > end ||
	    end - ft.index_off < sizeof(b) ||
	    read_at(f, &b, sizeof(b), ft.index_off) || kft_block_check(&b) ||
	    b.type != KFT_B_INDEX || b.flags ||
	    (__u64)ft.nchunks * sizeof(*ent) != b.size ||
	    ft.index_off + sizeof(b) + b.size != end ||
	    claim_ok(f, ft.index_off + sizeof(b), b.size))
		return 0;
	ent = malloc(b.size ? b.size : 1);
	if (!ent)
		return kft_file_fail(f, "out of memory");
	if (read_at(f, ent, b.size, ft.index_off + sizeof(b)) ||
	    kft_crc(ent, b.size) != b.crc)
		goto out;
	for (i = 0; i < ft.nchunks; i++) {
		if (ent[i].offset < prev || ent[i].offset >= ft.index_off ||
		    read_chunk_head(f, ent[i].offset, &ci) ||
		    ci.offset + sizeof(b) + ci.size > ft.index_off ||
		    ci.seq != ent[i].seq || ci.first_ts != ent[i].first_ts ||
		    ci.last_ts != ent[i].last_ts || ci.nrecs != ent[i].nrecs ||
		    ci.lost != ent[i].lost)
			goto out;
		prev = ci.offset + sizeof(b) + ci.size;
		rc = add_chunk(f, &ci);
		if (rc)
			goto out;
	}
	if (ft.stats_off < prev || ft.stats_off >= ft.index_off)
		goto out;
	*index_off = ft.index_off;
	*stats_off = ft.stats_off;
	free(ent);
	return 1;
out:
	free(ent);
	f->nchunks = 0;
	return rc;
}

/*
 * The metadata blocks in [pos, stop): each valid and parsed, the last
 * ending at stop exactly. 0 or <0 (said).
 */
static int walk_meta(struct kft_file *f, __u64 pos, __u64 stop)
{
	struct kft_block b;
	int err;

	while (pos < stop) {
		if (stop - pos < sizeof(b) || read_at(f, &b, sizeof(b), pos) ||
		    kft_block_check(&b) || stop - pos - sizeof(b) < b.size ||
		    b.type == KFT_B_CHUNK || b.type == KFT_B_INDEX)
			return kft_file_fail(f, "corrupt trace file: a bad block at offset %llu",
					     (unsigned long long)pos);
		if (is_meta(b.type)) {
			err = parse_block(f, &b, pos);
			if (err)
				return err;
		}
		pos += sizeof(b) + b.size;
	}
	return 0;
}

/*
 * No index: every block from the start, up to the first that is cut or
 * not valid. Metadata before the chunks must be sound (else refused);
 * what follows the chunks is read while it is.
 */
static int walk_all(struct kft_file *f)
{
	__u64 pos = sizeof(f->hdr);
	struct kft_chunkinfo ci;
	struct kft_block b;
	int err;

	while (f->size - pos >= sizeof(b)) {
		if (read_at(f, &b, sizeof(b), pos) || kft_block_check(&b) ||
		    f->size - pos - sizeof(b) < b.size)
			break;
		if (b.type == KFT_B_CHUNK) {
			if (read_chunk_head(f, pos, &ci))
				break;
			err = add_chunk(f, &ci);
			if (err)
				return err;
		} else if (is_meta(b.type)) {
			err = parse_block(f, &b, pos);
			if (err && (!f->nchunks || err != -EBADMSG))
				return err;
			if (err)
				break;
		}
		pos += sizeof(b) + b.size;
	}
	f->missing = f->size - pos;
	return 0;
}

static int check_header(struct kft_file *f)
{
	const struct kft_header *h = &f->hdr;

	if (f->size < sizeof(h->magic) || read_at(f, &f->hdr, sizeof(h->magic), 0) ||
	    memcmp(h->magic, KFT_MAGIC, sizeof(h->magic)))
		return kft_file_fail(f, "not a kfit trace file");
	if (f->size < sizeof(*h) || read_at(f, &f->hdr, sizeof(*h), 0))
		return kft_file_fail(f, "truncated trace file: it ends inside its header");
	if (h->endian == bswap_32(KFT_ENDIAN))
		return kft_file_fail(f, "written on a %s-endian machine: this kd reads %s-endian files only",
				     __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "big" : "little",
				     __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? "little" : "big");
	if (h->endian != KFT_ENDIAN)
		return kft_file_fail(f, "corrupt trace file: its header's byte order mark is %#x",
				     h->endian);
	if (h->version != KFT_VERSION)
		return kft_file_fail(f, "written by kfit trace format version %u; this kd reads %d",
				     h->version, KFT_VERSION);
	if (h->header_size != sizeof(*h) || h->block_size != sizeof(struct kft_block))
		return kft_file_fail(f, "corrupt trace file: header size %u, block size %u (expected %zu, %zu)",
				     h->header_size, h->block_size, sizeof(*h),
				     sizeof(struct kft_block));
	/* older records carry their own size: read as theirs */
	if (!h->rec_version || h->rec_version > KFIT_REC_VERSION)
		return kft_file_fail(f, "its records are of version %u; this kd reads 1 to %d",
				     h->rec_version, KFIT_REC_VERSION);
	return 0;
}

/* Chunks of one recording with the same seq and span: one is a copy */
static int dup_cmp(const void *a, const void *b)
{
	const struct kft_chunkinfo *x = *(const struct kft_chunkinfo *const *)a;
	const struct kft_chunkinfo *y = *(const struct kft_chunkinfo *const *)b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	if (x->first_ts != y->first_ts)
		return x->first_ts < y->first_ts ? -1 : 1;
	if (x->last_ts != y->last_ts)
		return x->last_ts < y->last_ts ? -1 : 1;
	if (x->nrecs != y->nrecs)
		return x->nrecs < y->nrecs ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static bool same_chunk(const struct kft_chunkinfo *x, const struct kft_chunkinfo *y)
{
	return x->seq == y->seq && x->first_ts == y->first_ts && x->last_ts == y->last_ts &&
	       x->nrecs == y->nrecs && x->lost == y->lost && x->raw_size == y->raw_size;
}

/*
 * A chunk written twice (blocks copied within the file: its seq, which
 * the writer gives each chunk once, and its span the same): the first
 * copy is kept, the others left out and counted, so no record counts twice
 */
static int drop_duplicates(struct kft_file *f)
{
	struct kft_chunkinfo **v;
	int i, k;

	if (f->nchunks < 2)
		return 0;
	v = malloc(f->nchunks * sizeof(*v));
	if (!v)
		return kft_file_fail(f, "out of memory");
	for (i = 0; i < f->nchunks; i++)
		v[i] = &f->chunks[i];
	qsort(v, f->nchunks, sizeof(*v), dup_cmp);
	for (i = 1; i < f->nchunks; i++)
		if (same_chunk(v[i], v[i - 1]))
			v[i]->size = 0;		/* marked: a chunk has a size */
	free(v);
	for (i = 0, k = 0; i < f->nchunks; i++) {
		if (!f->chunks[i].size) {
			f->duplicates++;
			continue;
		}
		f->chunks[k++] = f->chunks[i];
	}
	f->nchunks = k;
	return 0;
}

static int load(struct kft_file *f)
{
	__u64 index_off = 0, stats_off = 0;
	int rc = check_header(f);

	if (rc)
		return rc;
	rc = read_index(f, &index_off, &stats_off);
	if (rc < 0)
		return rc;
	if (rc) {
		__u64 pos = sizeof(f->hdr);
		int i;

		/* The metadata around the chunks: before, between (rare), after */
		f->complete = true;
		for (i = 0; i <= f->nchunks; i++) {
			__u64 next = i < f->nchunks ? f->chunks[i].offset : index_off;

			rc = walk_meta(f, pos, next);
			if (rc)
				return rc;
			if (i < f->nchunks)
				pos = next + sizeof(struct kft_block) + f->chunks[i].size;
		}
		if (f->stats_at != stats_off)
			return kft_file_fail(f, "corrupt trace file: its footer does not point at its STATS block");
	} else {
		rc = walk_all(f);
		if (rc)
			return rc;
	}
	if (f->nchunks && !f->has_layout)
		return kft_file_fail(f, "corrupt trace file: it has chunks but no record layout (LAYOUT block)");
	return drop_duplicates(f);
}

static struct kft_file *open_common(struct kft_file *f, char *err, size_t errlen)
{
	f->err = err;
	f->errlen = errlen;
	if (err && errlen)
		err[0] = '\0';
	if (load(f)) {
		if (err && errlen && !err[0])
			snprintf(err, errlen, "corrupt trace file");
		f->err = NULL;
		kft_close(f);
		return NULL;
	}
	f->err = NULL;
	return f;
}

struct kft_file *kft_open(const char *path, char *err, size_t errlen)
{
	struct kft_file *f = calloc(1, sizeof(*f));
	struct stat st;

	if (!f) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &st)) {
		snprintf(err, errlen, "cannot open it: %s", strerror(errno));
		kft_close(f);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s", S_ISDIR(st.st_mode) ? "it is a directory"
								: "not a regular file");
		kft_close(f);
		return NULL;
	}
	f->size = st.st_size;
	return open_common(f, err, errlen);
}

struct kft_file *kft_open_mem(const void *buf, size_t len, char *err, size_t errlen)
{
	struct kft_file *f = calloc(1, sizeof(*f));

	if (!f) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	f->fd = -1;
	f->mem = buf;
	f->size = buf ? len : 0;
	return open_common(f, err, errlen);
}

void kft_close(struct kft_file *f)
{
	size_t i;
	int j;

	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	for (i = 0; i < f->ntexts; i++)
		free(f->texts[i]);
	free(f->texts);
	free(f->meta.kv);
	free(f->stats.kv);
	free(f->funcs);
	for (i = 0; f->fargs && i < (size_t)f->nfargs; i++)
		for (j = 0; j < KFIT_ARGS_MAX; j++)
			free(f->fargs[i].a[j].enums);
	free(f->fargs);
	free(f->events);
	free(f->tasks);
	free(f->names);
	free(f->syms);
	for (i = 0; f->unk && i <= f->unkmask; i++)
		free(f->unk[i].name);
	free(f->unk);
	free(f->chunks);
	free(f);
}

/* ---- accessors ----------------------------------------------------------- */

const struct kft_header *kft_header_of(const struct kft_file *f)
{
	return &f->hdr;
}

__u64 kft_size(const struct kft_file *f)
{
	return f->size;
}

bool kft_complete(const struct kft_file *f)
{
	return f->complete;
}

__u64 kft_missing(const struct kft_file *f)
{
	return f->missing;
}

static const struct kft_kv *kv_at(const struct kvs *t, int i)
{
	return i >= 0 && i < t->n ? &t->kv[i] : NULL;
}

static const char *kv_get(const struct kvs *t, const char *key)
{
	int i;

	for (i = 0; key && i < t->n; i++)
		if (!strcmp(t->kv[i].key, key))
			return t->kv[i].val;
	return NULL;
}

static __u64 kv_u64(const struct kvs *t, const char *key, __u64 def)
{
	const char *v = kv_get(t, key);
	__u64 x;

	return v && !kft_text_parse_u64(v, 10, &x) ? x : def;
}

int kft_nmeta(const struct kft_file *f)
{
	return f->meta.n;
}

const struct kft_kv *kft_meta_at(const struct kft_file *f, int i)
{
	return kv_at(&f->meta, i);
}

const char *kft_meta(const struct kft_file *f, const char *key)
{
	return kv_get(&f->meta, key);
}

int kft_nstats(const struct kft_file *f)
{
	return f->stats.n;
}

const struct kft_kv *kft_stat_at(const struct kft_file *f, int i)
{
	return kv_at(&f->stats, i);
}

const char *kft_stat(const struct kft_file *f, const char *key)
{
	return kv_get(&f->stats, key);
}

__u64 kft_meta_u64(const struct kft_file *f, const char *key, __u64 def)
{
	return kv_u64(&f->meta, key, def);
}

__u64 kft_stat_u64(const struct kft_file *f, const char *key, __u64 def)
{
	return kv_u64(&f->stats, key, def);
}

int kft_nfuncs(const struct kft_file *f)
{
	return f->nfuncs;
}

const struct kft_func *kft_func_at(const struct kft_file *f, int i)
{
	return i >= 0 && i < f->nfuncs ? &f->funcs[i] : NULL;
}

const struct kfit_argfmt *kft_func_args(const struct kft_file *f, int i, int *n)
{
	if (i < 0 || i >= f->nfargs || !f->fargs[i].n) {
		*n = 0;
		return NULL;
	}
	*n = f->fargs[i].n;
	return f->fargs[i].a;
}

int kft_nevents(const struct kft_file *f)
{
	return f->nevents;
}

const struct kft_event *kft_event_at(const struct kft_file *f, int i)
{
	return i >= 0 && i < f->nevents ? &f->events[i] : NULL;
}

int kft_ntasks(const struct kft_file *f)
{
	return f->ntasks;
}

const struct kft_task *kft_task_at(const struct kft_file *f, int i)
{
	return i >= 0 && i < f->ntasks ? &f->tasks[i] : NULL;
}

bool kft_has_names(const struct kft_file *f)
{
	return f->has_names;
}

int kft_nnames(const struct kft_file *f)
{
	return f->nnames;
}

const struct kft_name *kft_name_at(const struct kft_file *f, int i)
{
	return i >= 0 && i < f->nnames ? &f->names[i] : NULL;
}

int kft_duplicates(const struct kft_file *f)
{
	return f->duplicates;
}

int kft_nchunks(const struct kft_file *f)
{
	return f->nchunks;
}

const struct kft_chunkinfo *kft_chunk_at(const struct kft_file *f, int i)
{
	return i >= 0 && i < f->nchunks ? &f->chunks[i] : NULL;
}

static size_t unk_slot(const struct kft_file *f, __u32 pid, __u64 addr, bool kernel)
{
	__u64 h = (addr ^ ((__u64)pid << 32) ^ kernel) * 0x9e3779b97f4a7c15ULL;
	size_t i = (h >> 32) & f->unkmask;

	while (f->unk[i].name && (f->unk[i].addr != addr || f->unk[i].pid != pid ||
				  f->unk[i].kernel != kernel))
		i = (i + 1) & f->unkmask;
	return i;
}

/* Room for one more unknown: the table at most half full */
static int unk_grow(struct kft_file *f)
{
	struct unknown *old = f->unk;
	size_t i, n = f->unk ? 2 * (f->unkmask + 1) : 64, oldn = f->unk ? f->unkmask + 1 : 0;

	if (f->unk && 2 * (f->nunk + 1) <= oldn)
		return 0;
	f->unk = calloc(n, sizeof(*f->unk));
	if (!f->unk) {
		f->unk = old;
		return -ENOMEM;
	}
	f->unkmask = n - 1;
	for (i = 0; i < oldn; i++)
		if (old[i].name)
			f->unk[unk_slot(f, old[i].pid, old[i].addr, old[i].kernel)] = old[i];
	free(old);
	return 0;
}

const char *kft_sym(void *ctx, __u32 pid, __u64 addr, bool kernel)
{
	struct kft_file *f = ctx;
	struct sym key = { .addr = addr, .pid = kernel ? 0 : pid, .kernel = kernel };
	size_t lo = 0, hi = f->nsyms, i;
	char buf[64];

	/* The first of equal keys (order 0 sorts before all): the file's first */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (kft_text_sym_cmp(&f->syms[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->nsyms && f->syms[lo].addr == addr && f->syms[lo].pid == key.pid &&
	    f->syms[lo].kernel == kernel)
		return f->syms[lo].name;
	if (unk_grow(f))
		return "[unknown]";
	i = unk_slot(f, key.pid, addr, kernel);
	if (!f->unk[i].name) {
		snprintf(buf, sizeof(buf), "[unknown] 0x%llx", (unsigned long long)addr);
		f->unk[i].name = strdup(buf);
		if (!f->unk[i].name)
			return "[unknown]";
		f->unk[i] = (struct unknown){ addr, key.pid, kernel, f->unk[i].name };
		f->nunk++;
	}
	return f->unk[i].name;
}

/* ---- chunks -------------------------------------------------------------- */

/*
 * A zlib stream (RFC 1950) of exactly outlen bytes, inflated raw: its
 * trailer's Adler-32 is not checked, as the block's CRC-32 covers these
 * bytes already and checking it took a third of inflating's time (kd's
 * floor). Its header is: a deflate stream, no preset dictionary.
 */
static int inflate_exact(const void *in, size_t inlen, void *out, size_t outlen)
{
	const unsigned char *h = in;
	z_stream z = { 0 };
	int rc;

	if (inlen < 6 || (h[0] & 0x0f) != Z_DEFLATED || (h[0] >> 4) > 7 || (h[1] & 0x20) ||
	    (h[0] << 8 | h[1]) % 31)
		return -EBADMSG;
	if (inlen > UINT32_MAX || outlen > UINT32_MAX || inflateInit2(&z, -MAX_WBITS) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)h + 2;
	z.avail_in = inlen - 2;
	z.next_out = out;
	z.avail_out = outlen;
	rc = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	if (rc == Z_MEM_ERROR)
		return -ENOMEM;
	/* the stream, then its 4-byte trailer, and nothing after */
	if (rc != Z_STREAM_END || z.avail_out || z.avail_in != 4)
		return -EBADMSG;
	return 0;
}

/*
 * *p of at least n bytes (*cap now), its contents lost: 0 or -ENOMEM.
 * On a cache line: a call's record is one line then, not two.
 */
static int room(void **p, size_t *cap, size_t n)
{
	void *v;

	if (n <= *cap && *p)
		return 0;
	if (posix_memalign(&v, 64, n ? n : 1))
		return -ENOMEM;
	free(*p);
	*p = v;
	*cap = n;
	return 0;
}

int kft_read_chunk_into(struct kft_file *f, int i, struct kft_chunkbuf *cb, size_t *len)
{
	const struct kft_chunkinfo *ci = kft_chunk_at(f, i);
	struct kft_chunkinfo now;
	struct kft_block b;
	size_t raw;
	char *in;
	long n;
	int err;

	*len = 0;
	if (!ci)
		return -EINVAL;
	err = read_chunk_head(f, ci->offset, &now);
	if (err || memcmp(&now, ci, sizeof(now)))
		return err == -EIO ? -EIO : -EBADMSG;
	raw = ci->raw_size - sizeof(struct kft_chunk);
	if (ci->size - sizeof(struct kft_chunk) > compressBound(KFT_CHUNK_MAX + 65536) ||
	    raw > (__u64)(ci->size - sizeof(struct kft_chunk)) * ZLIB_RATIO + 64 ||
	    claim_ok(f, ci->offset + sizeof(b), ci->size))
		return -EBADMSG;
	if (room(&cb->in, &cb->incap, ci->size) || room(&cb->out, &cb->outcap, raw))
		return -ENOMEM;
	in = cb->in;
	err = read_at(f, &b, sizeof(b), ci->offset);
	if (!err)
		err = read_at(f, in, ci->size, ci->offset + sizeof(b));
	if (err)
		return err == -EBADMSG ? -EBADMSG : -EIO;
	if (kft_crc(in, ci->size) != b.crc)
		return -EBADMSG;
	if (b.flags & KFT_BF_ZLIB) {
		err = inflate_exact(in + sizeof(struct kft_chunk),
				    ci->size - sizeof(struct kft_chunk), cb->out, raw);
		if (err)
			return err;
	} else if (raw) {
		memcpy(cb->out, in + sizeof(struct kft_chunk), raw);
	}
	n = kft_decode(cb->out, raw);
	if (n < 0 || (__u64)n != ci->nrecs)
		return -EBADMSG;
	*len = raw;
	return 0;
}

int kft_read_chunk(struct kft_file *f, int i, void **buf, size_t *len)
{
	struct kft_chunkbuf cb = { 0 };
	int err = kft_read_chunk_into(f, i, &cb, len);

	free(cb.in);
	if (err) {
		free(cb.out);
		cb.out = NULL;
	}
	*buf = cb.out;
	return err;
}

int kft_chunks_between(const struct kft_file *f, __u64 since, __u64 until,
		       int *first, int *last)
{
	int i, lo = -1, hi = -1;

	for (i = 0; i < f->nchunks; i++) {
		const struct kft_chunkinfo *c = &f->chunks[i];

		if (!c->nrecs || c->last_ts < since || (until && c->first_ts >= until))
			continue;
		if (lo < 0)
			lo = i;
		hi = i;
	}
	if (lo < 0)
		return -ENOENT;
	*first = lo;
	*last = hi;
	return 0;
}
