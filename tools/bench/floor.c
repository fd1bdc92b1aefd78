// SPDX-License-Identifier: GPL-2.0
/*
 * floor: loads one of the recording benchmark's floors (floor.bpf.c) on
 * syscalls:sys_enter_write until SIGINT or SIGTERM.
 *
 *   floor [-b MB] empty|ringbuf
 *
 * ringbuf: reads the 16-byte records and discards them (counted); at the
 * end prints "floor: ringbuf: events N, lost L". -b: the ring's size in
 * MiB (default 8, callgraph's default). Everything is detached when the
 * process ends, however it ends (the links die with their descriptors).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int count_rec(void *ctx, void *data, size_t size)
{
	(void)data;
	(void)size;
	(*(unsigned long long *)ctx)++;
	return 0;
}

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static int run(struct floor_bpf *skel, int ringbuf)
{
	unsigned long long events = 0;
	struct ring_buffer *rb = NULL;
	int err;

	if (ringbuf) {
		rb = ring_buffer__new(bpf_map__fd(skel->maps.rb), count_rec, &events, NULL);
		if (!rb) {
			fprintf(stderr, "floor: ring_buffer__new: %s\n", strerror(errno));
			return 1;
		}
	}
	fprintf(stderr, "floor: %s attached\n", ringbuf ? "ringbuf" : "empty");
	while (!stop) {
		if (!rb) {
			sleep(1);	/* a signal ends it */
			continue;
		}
		err = ring_buffer__poll(rb, 100);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "floor: ring_buffer__poll: %s\n", strerror(-err));
			ring_buffer__free(rb);
			return 1;
		}
		ring_buffer__consume(rb);	/* batched: no wake-up below the mark */
	}
	if (!rb) {
		printf("floor: empty: no records\n");
		return 0;
	}
	floor_bpf__detach(skel);
	ring_buffer__consume(rb);
	printf("floor: ringbuf: events %llu, lost %llu\n", events,
	       (unsigned long long)skel->bss->lost);
	ring_buffer__free(rb);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long mb = 8;
	struct floor_bpf *skel;
	int ringbuf, opt, err;

	while ((opt = getopt(argc, argv, "b:h")) != -1) {
		if (opt != 'b' || (mb = strtoul(optarg, NULL, 0)) == 0 ||
		    (mb & (mb - 1))) {
			fprintf(stderr, "usage: floor [-b MB (a power of 2)] empty|ringbuf\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind + 1 != argc || (strcmp(argv[optind], "empty") &&
				   strcmp(argv[optind], "ringbuf"))) {
		fprintf(stderr, "usage: floor [-b MB (a power of 2)] empty|ringbuf\n");
		return 2;
	}
	ringbuf = !strcmp(argv[optind], "ringbuf");
	libbpf_set_print(silent);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "floor: opening the BPF object: %s\n", strerror(errno));
		return 1;
	}
	bpf_program__set_autoload(ringbuf ? skel->progs.floor_empty :
				  skel->progs.floor_ringbuf, false);
	if (ringbuf) {
		bpf_map__set_max_entries(skel->maps.rb, mb << 20);
		skel->rodata->wake_bytes = (mb << 20) / 4;
	}
	err = floor_bpf__load(skel);
	if (!err)
		err = floor_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "floor: loading or attaching: %s\n", strerror(-err));
		floor_bpf__destroy(skel);
		return 1;
	}
	err = run(skel, ringbuf);
	floor_bpf__destroy(skel);
	return err;
}
