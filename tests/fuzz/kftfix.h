/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_KFTFIX_H
#define KFIT_KFTFIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A trace file (include/kfit/kft.h) rewritten block by block: every
 * block's crc and hcrc and the footer's crc computed again, so that a
 * mutation inside a block reaches what the reader does after its CRC
 * checks. With store, zlib chunks are inflated and stored as they are
 * (what the fuzzer mutates is then the records), the index's and the
 * footer's offsets following. Whatever does not walk as blocks is copied
 * as it is. Returns the new image (malloc'd) and its size in *outlen.
 */
uint8_t *fz_kft_rewrite(const uint8_t *in, size_t len, bool store, size_t *outlen);

#endif
