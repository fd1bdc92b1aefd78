/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_SPOOL_H
#define KFIT_SPOOL_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>

/*
 * Text kept per key while it is made, written key after key at the end
 * (a streamed tree's threads: their sections print one after the other,
 * their lines come interleaved). Each key's text is buffered in memory,
 * a buffer's worth at a time appended to one temporary file (deleted at
 * once: nothing is left after any exit), so that memory holds a buffer
 * per key, not the text.
 */
struct kfit_spool;

/* buf: bytes buffered per key before they go to the file (0: 16 KiB). NULL: errno */
struct kfit_spool *kfit_spool_new(size_t buf);
/* len bytes of text after key's. 0 or -errno (the file's write: a full disk) */
int kfit_spool_add(struct kfit_spool *s, const void *key, const char *text, size_t len);
/*
 * Text made by a printer into a stream: kfit_spool_begin gives the
 * spool's own memory stream, emptied; kfit_spool_end adds what was
 * written to it since after key's text (0 or -errno)
 */
FILE *kfit_spool_begin(struct kfit_spool *s);
int kfit_spool_end(struct kfit_spool *s, const void *key);
/*
 * key's text all in the file, its buffer freed (a key done with: memory
 * then holds only where its text is). 0 or -errno.
 */
int kfit_spool_close(struct kfit_spool *s, const void *key);
/* Whether key has any text */
int kfit_spool_has(const struct kfit_spool *s, const void *key);
/* key's text, all of it, to out: 0 or -errno */
int kfit_spool_write(struct kfit_spool *s, const void *key, FILE *out);
/*
 * A pointer the caller keeps with key (NULL at first, the key made if
 * new): per-key state beside its text, the caller's to free. NULL
 * when out of memory.
 */
void **kfit_spool_data(struct kfit_spool *s, const void *key);
/* Where a reader is in a key's text: zeroed, its start */
struct kfit_spool_pos {
	size_t seg;
	__u64 in;
};
/*
 * Up to len bytes of key's text from pos on, after its last add (a
 * merge reads keys in turn): pos moved past them. The bytes read, 0 at
 * the end, or -errno.
 */
ssize_t kfit_spool_read(struct kfit_spool *s, const void *key, struct kfit_spool_pos *pos,
			void *buf, size_t len);
void kfit_spool_free(struct kfit_spool *s);

#endif
