/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_KFT_CODEC_H
#define KFIT_KFT_CODEC_H

/* The codec the trace file's writer and reader share (src/lib/trace/kft*.c only) */

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "kfit/kft.h"

/* A chunk's raw records at most (a record is at most 64 KiB - 8) */
#define KFT_CHUNK_MAX		(64U << 20)
#define KFT_CHUNK_DEFAULT	(1U << 20)

/* crc32 (zlib's) of len bytes */
__u32 kft_crc(const void *buf, size_t len);

/* Fill a block header; its hcrc, and check one: 0 or -EBADMSG */
void kft_block_fill(struct kft_block *b, __u16 type, __u16 flags, __u32 size,
		    __u32 raw_size, __u32 crc);
int kft_block_check(const struct kft_block *b);
void kft_footer_fill(struct kft_footer *ft, __u64 index_off, __u64 stats_off,
		     __u32 nchunks);
int kft_footer_check(const struct kft_footer *ft);

/*
 * The chunk encoding (kft.h): encode n records at buf (offsets off[]) in
 * place; decode len bytes in place, walking them: the number of records,
 * or -EBADMSG when one is malformed or runs past the end.
 */
void kft_encode(void *buf, const __u32 *off, size_t n);
long kft_decode(void *buf, size_t len);

/* The LAYOUT text of this build's rec.h (static, NUL-terminated) */
const char *kft_layout_text(size_t *len);
/*
 * Compare a file's LAYOUT text with this build's: 0, or -EBADMSG with
 * what differs in why. A record type of an older version (its fields the
 * first of ours, a pad perhaps a field since) is this build's.
 */
int kft_layout_check(const char *text, size_t len, char *why, size_t whylen);

#endif
