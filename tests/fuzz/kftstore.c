// SPDX-License-Identifier: GPL-2.0
/*
 * kftstore IN OUT: the trace file IN with its chunks inflated and stored
 * as they are (kftfix.h), for fuzz_kft's corpus: mutations of a stored
 * chunk reach the records, where those of a zlib stream mostly end in
 * zlib's errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fileio.h"
#include "kftfix.h"

int main(int argc, char **argv)
{
	uint8_t *in, *st;
	size_t len, n;
	FILE *f;

	if (argc != 3) {
		fprintf(stderr, "usage: kftstore IN OUT\n");
		return 2;
	}
	in = (uint8_t *)kfit_read_all(argv[1], &len);
	if (!in) {
		fprintf(stderr, "kftstore: cannot read %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	st = fz_kft_rewrite(in, len, true, &n);
	f = fopen(argv[2], "w");
	if (!f || fwrite(st, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "kftstore: cannot write %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	free(st);
	free(in);
	return 0;
}
