// SPDX-License-Identifier: GPL-2.0
/*
 * uwkern: the other design of issue 33, for unwind.sh: process PID's user
 * stacks unwound in the kernel (uwkern.bpf.c) at HZ samples a second of
 * cpu-clock for SECONDS, from its files' tables (uwtable.h) loaded into
 * maps first; only the addresses come through the ring, and are counted.
 *
 *   uwkern PID HZ SECONDS
 *
 * Prints on stderr "uwkern: attached" once sampling, and at the end one
 * line: "samples N whole N frames N ring_bytes N lost N rows N
 * table_bytes N load_ms N". Everything is detached at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "elfsyms.h"
#include "uwtable.h"
#include "uwkern.skel.h"

#define MAX_MAPS	256

struct umap {
	__u64 start, end, sub;
	__u32 lo, hi;
};

static struct kfit_uw_row *all;
static size_t nall;
static struct umap maps[MAX_MAPS];
static __u32 nmaps;
static __u64 ring_bytes;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One executable mapping of a file: its table's rows appended */
static int add_mapping(int pid, const struct kfit_elf_mapline *m)
{
	char path[PATH_MAX], err[256];
	struct kfit_uwtable *t;
	struct kfit_elf *e;
	__u64 vaddr;
	Elf *elf;
	int fd;

	if (nmaps == MAX_MAPS || m->path[0] != '/')
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	if (kfit_elf_load(path, NULL, &e, err, sizeof(err)))
		return 0;
	if (kfit_elf_off_to_addr(e, m->pgoff, &vaddr)) {
		kfit_elf_free(e);
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	t = NULL;
	if (elf)
		kfit_uwtable_build(elf, NULL, &t);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	kfit_elf_free(e);
	if (!t)
		return 0;
	all = realloc(all, (nall + t->n) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	memcpy(all + nall, t->rows, t->n * sizeof(*all));
	/* address - start + vaddr = link-time address; minus base = row pc */
	maps[nmaps++] = (struct umap){ .start = m->start, .end = m->end,
				       .sub = m->start - vaddr + t->base,
				       .lo = nall, .hi = nall + t->n };
	nall += t->n;
	kfit_uwtable_free(t);
	return 0;
}

static int read_maps(int pid)
{
	struct kfit_elf_mapline m;
	char path[64], *line = NULL;
	size_t len = 0;
	int err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!err && getline(&line, &len, f) > 0)
		if (!kfit_elf_parse_mapline(line, &m) && strchr(m.perms, 'x'))
			err = add_mapping(pid, &m);
	free(line);
	fclose(f);
	return err;
}

static int on_rec(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	ring_bytes += size;
	return 0;
}

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static int sample_all(struct uwkern_bpf *skel, int hz, struct bpf_link **links, int ncpus)
{
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_CPU_CLOCK, .freq = 1,
				     .sample_freq = hz };
	int cpu, fd;

	for (cpu = 0; cpu < ncpus; cpu++) {
		fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			continue;
		links[cpu] = bpf_program__attach_perf_event(skel->progs.uw_sample, fd);
		if (!links[cpu]) {
			close(fd);
			return -errno;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct bpf_link *links[1024] = { 0 };
	struct ring_buffer *rb = NULL;
	struct uwkern_bpf *skel;
	int pid, hz, secs, ncpus, i, err, mfd;
	double t0, load_ms, end;
	__u32 k;

	if (argc != 4 || (pid = atoi(argv[1])) <= 0 || (hz = atoi(argv[2])) <= 0 ||
	    (secs = atoi(argv[3])) <= 0) {
		fprintf(stderr, "usage: uwkern PID HZ SECONDS\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	libbpf_set_print(silent);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ncpus = libbpf_num_possible_cpus();
	if (ncpus > 1024)
		ncpus = 1024;
	t0 = now_ms();
	err = read_maps(pid);
	skel = err || !nall ? NULL : uwkern_bpf__open();
	if (!skel) {
		fprintf(stderr, "uwkern: no tables for process %d\n", pid);
		return 1;
	}
	skel->rodata->tgid = pid;
	skel->rodata->nmaps = nmaps;
	bpf_map__set_max_entries(skel->maps.rows, nall);
	err = uwkern_bpf__load(skel);
	mfd = err ? -1 : bpf_map__fd(skel->maps.rows);
	for (k = 0; !err && k < nall; k++)
		if (bpf_map_update_elem(mfd, &k, &all[k], BPF_ANY))
			err = -errno;
	for (k = 0; !err && k < nmaps; k++)
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.umaps), &k, &maps[k], BPF_ANY))
			err = -errno;
	load_ms = now_ms() - t0;
	if (!err)
		rb = ring_buffer__new(bpf_map__fd(skel->maps.rb), on_rec, NULL, NULL);
	if (!err && !rb)
		err = -errno;
	if (!err)
		err = sample_all(skel, hz, links, ncpus);
	if (err) {
		fprintf(stderr, "uwkern: loading or attaching: %s\n", strerror(-err));
		goto out;
	}
	fprintf(stderr, "uwkern: attached\n");
	end = now_ms() + secs * 1e3;
	while (!stop && now_ms() < end && !kill(pid, 0))
		ring_buffer__poll(rb, 100);
	ring_buffer__consume(rb);
	printf("samples %llu whole %llu frames %llu ring_bytes %llu lost %llu rows %zu "
	       "table_bytes %zu load_ms %.0f\n",
	       (unsigned long long)skel->bss->samples, (unsigned long long)skel->bss->whole,
	       (unsigned long long)skel->bss->frames, (unsigned long long)ring_bytes,
	       (unsigned long long)skel->bss->lost, nall, nall * sizeof(*all), load_ms);
out:
	for (i = 0; i < ncpus; i++)
		bpf_link__destroy(links[i]);
	ring_buffer__free(rb);
	uwkern_bpf__destroy(skel);
	free(all);
	return err ? 1 : 0;
}
