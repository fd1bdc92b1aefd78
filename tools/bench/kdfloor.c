// SPDX-License-Identifier: GPL-2.0
/*
 * kdfloor FILE: the floor of reading a trace file (issue 19): every chunk
 * inflated on all CPUs (kft_chunks, one thread per CPU), the records
 * counted, nothing decoded. Prints "chunks N records N bytes N seconds S".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "kft.h"

int main(int argc, char **argv)
{
	unsigned long long recs = 0, bytes = 0;
	struct timespec a, b;
	struct kft_chunks *c;
	struct kft_file *f;
	char err[256];
	int i, cerr, bad = 0;
	size_t len;
	void *buf;

	if (argc != 2) {
		fprintf(stderr, "usage: kdfloor FILE\n");
		return 2;
	}
	f = kft_open(argv[1], err, sizeof(err));
	if (!f) {
		fprintf(stderr, "kdfloor: %s: %s\n", argv[1], err);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	c = kft_chunks_open(f, 0, kft_nchunks(f) - 1, 0);
	if (!c) {
		perror("kdfloor");
		return 1;
	}
	while (kft_chunks_next(c, &i, &buf, &len, &cerr) > 0) {
		bad += cerr != 0;
		if (!cerr) {
			recs += kft_chunk_at(f, i)->nrecs;
			bytes += len;
		}
	}
	kft_chunks_close(c);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("chunks %d records %llu bytes %llu seconds %.3f\n", kft_nchunks(f), recs,
	       bytes, b.tv_sec - a.tv_sec + (b.tv_nsec - a.tv_nsec) / 1e9);
	kft_close(f);
	return bad ? 1 : 0;
}
