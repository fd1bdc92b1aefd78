// SPDX-License-Identifier: GPL-2.0
/*
 * floor: loads one of the benchmarks' floors (floor.bpf.c) until SIGINT
 * or SIGTERM: empty and ringbuf on syscalls:sys_enter_write, softirq on
 * the softirq tracepoints.
 *
 *   floor [-b MB] empty|ringbuf|softirq
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

enum floor_mode { FLOOR_EMPTY, FLOOR_RINGBUF, FLOOR_SOFTIRQ };

static const char *const mode_names[] = { "empty", "ringbuf", "softirq" };

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

static int parse_mode(const char *s)
{
	unsigned int i;

	for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
		if (!strcmp(s, mode_names[i]))
			return i;
	return -1;
}

/* Only the chosen floor's programs are loaded and attached */
static void choose_progs(struct floor_bpf *skel, int mode)
{
	bpf_program__set_autoload(skel->progs.floor_empty, mode == FLOOR_EMPTY);
	bpf_program__set_autoload(skel->progs.floor_ringbuf, mode == FLOOR_RINGBUF);
	bpf_program__set_autoload(skel->progs.floor_sirq_raise, mode == FLOOR_SOFTIRQ);
	bpf_program__set_autoload(skel->progs.floor_sirq_entry, mode == FLOOR_SOFTIRQ);
	bpf_program__set_autoload(skel->progs.floor_sirq_exit, mode == FLOOR_SOFTIRQ);
}

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static int run(struct floor_bpf *skel, int ringbuf, const char *name)
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
	fprintf(stderr, "floor: %s attached\n", name);
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
		printf("floor: %s: no records\n", name);
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
	int mode, opt, err;

	while ((opt = getopt(argc, argv, "b:h")) != -1) {
		if (opt != 'b' || (mb = strtoul(optarg, NULL, 0)) == 0 ||
		    (mb & (mb - 1))) {
			fprintf(stderr, "usage: floor [-b MB (a power of 2)] empty|ringbuf|softirq\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	mode = optind + 1 == argc ? parse_mode(argv[optind]) : -1;
	if (mode < 0) {
		fprintf(stderr, "usage: floor [-b MB (a power of 2)] empty|ringbuf|softirq\n");
		return 2;
	}
	libbpf_set_print(silent);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "floor: opening the BPF object: %s\n", strerror(errno));
		return 1;
	}
	choose_progs(skel, mode);
	if (mode == FLOOR_RINGBUF) {
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
	err = run(skel, mode == FLOOR_RINGBUF, mode_names[mode]);
	floor_bpf__destroy(skel);
	return err;
}
