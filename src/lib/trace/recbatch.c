// SPDX-License-Identifier: GPL-2.0
/* Ring samples of records split back into the records (recbatch.h). */
#include "recbatch.h"
#include "kfit/rec.h"

/* The size of the record at p of len bytes left: len when it is the last, or bad */
static size_t rec_size(const void *p, size_t len)
{
	const struct kfit_rec *h = p;

	if (len < sizeof(*h) || h->size >= len)
		return len;
	if (h->size < sizeof(*h) || h->size % 8)
		return len;
	return h->size;
}

int kfit_rec_split(const void *buf, size_t len, kfit_rec_fn fn, void *ctx, size_t *nrecs)
{
	const char *p = buf;
	size_t size, n = 0;
	int err = 0;

	while (len && !err) {
		size = rec_size(p, len);
		err = fn(ctx, p, size);
		n++;
		p += size;
		len -= size;
	}
	if (nrecs)
		*nrecs = n;
	return err;
}
