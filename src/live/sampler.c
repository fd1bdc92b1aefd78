// SPDX-License-Identifier: GPL-2.0
/*
 * Sampling perf events per CPU, each running a perf_event BPF program:
 * callgraph's sampled mode.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <bpf/libbpf.h>
#include "diag.h"
#include "explain.h"
#include "fileio.h"
#include "perf.h"
#include "pmu.h"
#include "sampler.h"

#define MAX_RATE	"/proc/sys/kernel/perf_event_max_sample_rate"

struct kfit_sampler {
	struct bpf_link **links;	/* one per CPU sampled; each owns its event's fd */
	int *fds;
	int n;
	__u32 hz;
	bool cycles;
};

static void attr_of(struct perf_event_attr *a, bool cycles, __u32 hz)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = cycles ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
	a->config = cycles ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK;
	a->freq = 1;
	a->sample_freq = hz;
	a->disabled = 1;
}

static bool no_pmu_error(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV;
}

/* Why perf_event_open refused, in words */
static const char *why(int err, bool cycles, __u32 hz, char *buf, size_t len)
{
	char max[32];

	if (err == -EACCES || err == -EPERM)
		return kfit_pmu_perf_denied(buf, len);
	if (err == -EINVAL && !kfit_read_line(MAX_RATE, max, sizeof(max)) &&
	    strtoul(max, NULL, 10) < hz)
		snprintf(buf, len, "%u Hz is above " MAX_RATE " (%s)", hz, max);
	else if (cycles && no_pmu_error(err) && !kfit_pmu_has_cpu(NULL))
		snprintf(buf, len, "this machine exposes no hardware PMU (usual in VMs): "
			 "sample cpu-clock instead");
	else if (err == -EMFILE)
		snprintf(buf, len, "too many open files (raise ulimit -n)");
	else
		snprintf(buf, len, "%s", kfit_reason(err));
	return buf;
}

static bool chosen(const struct kfit_sampler_opts *o)
{
	return o->cpus && o->cpus->set;
}

static bool wanted(const struct kfit_sampler_opts *o, int cpu)
{
	return !chosen(o) || kfit_cpu_selected(o->cpus, cpu);
}

/* Where opening failed */
enum step {
	S_OPEN,		/* perf_event_open */
	S_OFFLINE,	/* a chosen CPU is offline */
	S_ATTACH,	/* the program on the event */
};

struct failure {
	enum step step;
	int cpu;
	int err;
};

/* prog on a new event on cpu: 0, 1 (an offline CPU no one chose), or -errno */
static int open_cpu(struct kfit_sampler *s, struct bpf_program *prog,
		    const struct kfit_sampler_opts *o, int cpu, struct failure *f)
{
	struct perf_event_attr a;
	struct bpf_link *l;
	int fd;

	attr_of(&a, s->cycles, s->hz);
	*f = (struct failure){ .step = S_OPEN, .cpu = cpu };
	fd = kfit_perf_open(&a, -1, cpu, -1);
	if (fd == -ENODEV && !chosen(o))
		return 1;
	if (fd == -ENODEV)
		f->step = S_OFFLINE;
	if (fd < 0)
		return f->err = fd;
	l = bpf_program__attach_perf_event(prog, fd);
	if (!l) {
		f->step = S_ATTACH;
		f->err = -errno;
		close(fd);
		return f->err;
	}
	/* libbpf enabled it: all start together, in kfit_sampler_enable */
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	s->links[s->n] = l;
	s->fds[s->n++] = fd;
	return 0;
}

/* Every CPU wanted: 0, or -errno with f saying where */
static int open_all(struct kfit_sampler *s, struct bpf_program *prog,
		    const struct kfit_sampler_opts *o, int ncpus, struct failure *f)
{
	int cpu, err;

	for (cpu = 0; cpu < ncpus; cpu++) {
		if (!wanted(o, cpu))
			continue;
		err = open_cpu(s, prog, o, cpu, f);
		if (err < 0)
			return err;
	}
	if (s->n)
		return 0;
	*f = (struct failure){ .step = S_OFFLINE, .cpu = -1, .err = -ENODEV };
	return f->err;
}

static void close_all(struct kfit_sampler *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		bpf_link__destroy(s->links[i]);
	s->n = 0;
}

static void say(const struct kfit_sampler *s, const struct failure *f)
{
	const char *ev = kfit_sampler_event(s);
	char buf[256], what[64];

	switch (f->step) {
	case S_OFFLINE:
		if (f->cpu < 0)
			kfit_err("no CPU to sample: every one is offline");
		else
			kfit_err("-C: CPU %d is offline", f->cpu);
		break;
	case S_ATTACH:
		snprintf(what, sizeof(what), "%s sampling on CPU %d", ev, f->cpu);
		kfit_explain(s->cycles ? KFIT_M_PERF_HW : KFIT_M_PERF_SW, what, f->err);
		break;
	default:
		kfit_err("cannot open %s sampling events (%u Hz) on CPU %d: %s", ev,
			 s->hz, f->cpu, why(f->err, s->cycles, s->hz, buf, sizeof(buf)));
	}
}

static struct kfit_sampler *sampler_new(int ncpus, __u32 hz, bool cycles)
{
	struct kfit_sampler *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->links = calloc(ncpus, sizeof(*s->links));
	s->fds = calloc(ncpus, sizeof(*s->fds));
	if (!s->links || !s->fds) {
		kfit_sampler_free(s);
		return NULL;
	}
	s->hz = hz;
	s->cycles = cycles;
	return s;
}

int kfit_sampler_open(struct bpf_program *prog, const struct kfit_sampler_opts *o,
		      struct kfit_sampler **out)
{
	struct kfit_sampler_opts def = { 0 };
	enum kfit_sampler_clock clock;
	struct kfit_sampler *s;
	struct failure f;
	char buf[256];
	int ncpus, err;

	*out = NULL;
	if (!o)
		o = &def;
	clock = o->clock;
	if (clock == KFIT_SAMPLER_CLOCK_AUTO)
		clock = kfit_pmu_has_cpu(NULL) ? KFIT_SAMPLER_CLOCK_CYCLES : KFIT_SAMPLER_CLOCK_CPU;
	ncpus = kfit_ncpus_possible(NULL);
	if (ncpus < 0) {
		kfit_err("cannot tell the number of CPUs: %s", strerror(-ncpus));
		return ncpus;
	}
	s = sampler_new(ncpus, o->hz ? o->hz : KFIT_SAMPLER_DEFAULT_HZ, clock == KFIT_SAMPLER_CLOCK_CYCLES);
	if (!s) {
		kfit_err("out of memory");
		return -ENOMEM;
	}
	err = open_all(s, prog, o, ncpus, &f);
	/* A PMU sysfs shows, that the kernel will not sample with */
	if (err && o->clock == KFIT_SAMPLER_CLOCK_AUTO && s->cycles && f.step == S_OPEN &&
	    no_pmu_error(err)) {
		kfit_debug("cycles: %s; sampling cpu-clock",
			   why(err, true, s->hz, buf, sizeof(buf)));
		close_all(s);
		s->cycles = false;
		err = open_all(s, prog, o, ncpus, &f);
	}
	if (err) {
		say(s, &f);
		kfit_sampler_free(s);
		return err;
	}
	*out = s;
	return 0;
}

static int ioctl_all(struct kfit_sampler *s, unsigned long req)
{
	int i, err = 0;

	for (i = 0; i < s->n; i++)
		if (ioctl(s->fds[i], req, 0) && !err)
			err = -errno;
	return err;
}

int kfit_sampler_enable(struct kfit_sampler *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_ENABLE);
}

int kfit_sampler_disable(struct kfit_sampler *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_DISABLE);
}

const char *kfit_sampler_event(const struct kfit_sampler *s)
{
	return s->cycles ? "cycles" : "cpu-clock";
}

__u32 kfit_sampler_hz(const struct kfit_sampler *s)
{
	return s->hz;
}

int kfit_sampler_ncpus(const struct kfit_sampler *s)
{
	return s->n;
}

void kfit_sampler_free(struct kfit_sampler *s)
{
	if (!s)
		return;
	close_all(s);
	free(s->links);
	free(s->fds);
	free(s);
}
