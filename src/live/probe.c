// SPDX-License-Identifier: GPL-2.0
/*
 * What can be traced here, found by trying: load one tiny program, attach
 * it, trigger it from this process, and see it run. Reading the kernel's
 * config would not tell us about lockdown, LSMs or blocked ftrace.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "kfit/probe.h"
#include "probe.skel.h"
#include "btf.h"
#include "diag.h"
#include "fileio.h"
#include "perf.h"
#include "pmu.h"
#include "probe.h"

static const char *const mech_names[KFIT_M_NR] = {
	[KFIT_M_BTF_VMLINUX]	= "btf",
	[KFIT_M_BTF_MODULES]	= "btf_modules",
	[KFIT_M_FENTRY]		= "fentry",
	[KFIT_M_FEXIT]		= "fexit",
	[KFIT_M_KPROBE]		= "kprobe",
	[KFIT_M_KRETPROBE]	= "kretprobe",
	[KFIT_M_KPROBE_MULTI]	= "kprobe_multi",
	[KFIT_M_TRACEPOINT]	= "tracepoint",
	[KFIT_M_TP_BTF]		= "tp_btf",
	[KFIT_M_RAW_TP]		= "raw_tracepoint",
	[KFIT_M_UPROBE]		= "uprobe",
	[KFIT_M_URETPROBE]	= "uretprobe",
	[KFIT_M_RINGBUF]	= "ringbuf",
	[KFIT_M_PERF_SW]	= "perf_sw",
	[KFIT_M_PERF_HW]	= "perf_hw",
	[KFIT_M_LOCKDOWN]	= "lockdown",
	[KFIT_M_CAPS]		= "capabilities",
	[KFIT_M_TRACEFS]	= "tracefs",
};

static struct kfit_probe_result results[KFIT_M_NR];
static bool done[KFIT_M_NR];

const char *kfit_probe_mech_name(enum kfit_mech m)
{
	return m < KFIT_M_NR ? mech_names[m] : "?";
}

enum kfit_mech kfit_probe_mech_by_name(const char *name)
{
	int m;

	for (m = 0; name && m < KFIT_M_NR; m++)
		if (!strcmp(mech_names[m], name))
			return m;
	return KFIT_M_NR;
}

static void set(struct kfit_probe_result *r, enum kfit_probe_state st,
		int err, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void set(struct kfit_probe_result *r, enum kfit_probe_state st,
		int err, const char *fmt, ...)
{
	va_list ap;

	r->state = st;
	r->err = err;
	va_start(ap, fmt);
	vsnprintf(r->detail, sizeof(r->detail), fmt, ap);
	va_end(ap);
}

/* The uprobe checks attach here; noinline and global so it has a symbol. */
__attribute__((noinline, used)) int kfit_probe_uprobe_trigger(int x)
{
	asm volatile("" : "+r"(x));
	return x + 1;
}

static bool path_exists(const char *p)
{
	return access(p, F_OK) == 0;
}

static bool kprobes_built_in(void)
{
	const char *tracefs = kfit_tracefs();
	char path[PATH_MAX];

	if (path_exists("/sys/bus/event_source/devices/kprobe"))
		return true;
	return tracefs && !kfit_pathf(path, sizeof(path), "%s/kprobe_events", tracefs) &&
	       path_exists(path);
}

static long perf_open(__u32 type, __u64 config, __u64 period)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.sample_period = period,
		.disabled = 1,
		.exclude_hv = 1,
	};

	return kfit_perf_open(&attr, 0, -1, -1);
}

static void spin_ms(int ms)
{
	struct timespec a, b;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 10000; i++)
			x += i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

static void trigger(enum kfit_probe_prog which)
{
	char c;
	int fd;

	switch (which) {
	case KFIT_PROBE_UPROBE:
	case KFIT_PROBE_URETPROBE:
		kfit_probe_uprobe_trigger(1);
		break;
	case KFIT_PROBE_PERF_SW:
		spin_ms(30);
		break;
	default:
		/* vfs_read and the syscall tracepoints */
		fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (read(fd, &c, 1) < 0)
				c = 0;
			close(fd);
		}
		break;
	}
}

static struct bpf_program *prog_of(struct probe_bpf *s, enum kfit_probe_prog w)
{
	struct bpf_program *progs[KFIT_PROBE_NR] = {
		[KFIT_PROBE_FENTRY]		= s->progs.on_fentry,
		[KFIT_PROBE_FEXIT]		= s->progs.on_fexit,
		[KFIT_PROBE_KPROBE]		= s->progs.on_kprobe,
		[KFIT_PROBE_KRETPROBE]		= s->progs.on_kretprobe,
		[KFIT_PROBE_KPROBE_MULTI]	= s->progs.on_kprobe_multi,
		[KFIT_PROBE_TRACEPOINT]		= s->progs.on_tracepoint,
		[KFIT_PROBE_TP_BTF]		= s->progs.on_tp_btf,
		[KFIT_PROBE_RAW_TP]		= s->progs.on_raw_tp,
		[KFIT_PROBE_UPROBE]		= s->progs.on_uprobe,
		[KFIT_PROBE_URETPROBE]		= s->progs.on_uretprobe,
		[KFIT_PROBE_RINGBUF]		= s->progs.on_ringbuf,
		[KFIT_PROBE_PERF_SW]		= s->progs.on_perf_sw,
	};

	return progs[w];
}

static struct bpf_link *attach_uprobe(struct bpf_program *prog, bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .retprobe = ret,
		    .func_name = "kfit_probe_uprobe_trigger");
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		return NULL;
	exe[n] = '\0';
	return bpf_program__attach_uprobe_opts(prog, 0, exe, 0, &opts);
}

static struct bpf_link *attach_perf_sw(struct bpf_program *prog, int *pfd)
{
	struct bpf_link *link;

	*pfd = perf_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 100000);
	if (*pfd < 0)
		return NULL;
	link = bpf_program__attach_perf_event(prog, *pfd);
	if (link)
		ioctl(*pfd, PERF_EVENT_IOC_ENABLE, 0);
	return link;
}

static struct bpf_link *attach(struct probe_bpf *s, enum kfit_probe_prog w,
			       int *pfd)
{
	struct bpf_program *prog = prog_of(s, w);

	if (w == KFIT_PROBE_UPROBE || w == KFIT_PROBE_URETPROBE)
		return attach_uprobe(prog, w == KFIT_PROBE_URETPROBE);
	if (w == KFIT_PROBE_PERF_SW)
		return attach_perf_sw(prog, pfd);
	return bpf_program__attach(prog);
}

static int count_event(void *ctx, void *data, size_t size)
{
	(void)data;
	(void)size;
	(*(__u64 *)ctx)++;
	return 0;
}

static __u64 ringbuf_events(struct probe_bpf *s)
{
	struct ring_buffer *rb;
	__u64 n = 0;

	rb = ring_buffer__new(bpf_map__fd(s->maps.rb), count_event, &n, NULL);
	if (!rb)
		return 0;
	ring_buffer__consume(rb);
	ring_buffer__free(rb);
	return n;
}

static const char *stage_reason(enum kfit_probe_prog w, int err)
{
	bool kp = w == KFIT_PROBE_KPROBE || w == KFIT_PROBE_KRETPROBE;

	if (kp && !kprobes_built_in())
		return "kprobes are not built in (no kprobe PMU, no kprobe_events)";
	if ((w == KFIT_PROBE_FENTRY || w == KFIT_PROBE_FEXIT) && kfit_fentry_reason(err))
		return kfit_fentry_reason(err);
	if (w == KFIT_PROBE_KPROBE_MULTI && (err == -EOPNOTSUPP || err == -524))
		return "no kprobe_multi links: they need fprobe (CONFIG_FPROBE, 5.18+), "
		       "which this kernel lacks or blocks (EOPNOTSUPP)";
	if (w == KFIT_PROBE_PERF_SW && err == -ENOENT)
		return "no perf software events (ENOENT)";
	return kfit_reason(err);
}

static void prog_check(enum kfit_probe_prog w, struct kfit_probe_result *r)
{
	struct probe_bpf *s;
	struct bpf_program *p, *prog;
	struct bpf_link *link = NULL;
	int pfd = -1, err;
	__u64 hits;

	s = probe_bpf__open();
	if (!s) {
		set(r, KFIT_P_NO, -errno, "cannot open the probe object: %s",
		    kfit_reason(-errno));
		return;
	}
	prog = prog_of(s, w);
	bpf_object__for_each_program(p, s->obj)
		bpf_program__set_autoload(p, p == prog);
	bpf_map__set_autocreate(s->maps.rb, w == KFIT_PROBE_RINGBUF);
	s->rodata->target_tgid = getpid();
	err = probe_bpf__load(s);
	if (err) {
		set(r, KFIT_P_NO, err, "load failed: %s", stage_reason(w, err));
		goto out;
	}
	link = attach(s, w, &pfd);
	if (!link) {
		err = -errno;
		set(r, KFIT_P_NO, err, "attach failed: %s", stage_reason(w, err));
		goto out;
	}
	trigger(w);
	hits = w == KFIT_PROBE_RINGBUF ? ringbuf_events(s) : s->bss->hits[w];
	if (hits)
		set(r, KFIT_P_OK, 0, "attached, triggered and ran (%llu %s)",
		    (unsigned long long)hits, hits == 1 ? "hit" : "hits");
	else
		set(r, KFIT_P_NO, -ENODATA, "attached but never ran when triggered");
out:
	bpf_link__destroy(link);
	if (pfd >= 0)
		close(pfd);
	probe_bpf__destroy(s);
}

static void check_perf_hw(struct kfit_probe_result *r)
{
	long long count = 0;
	long fd = perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0);

	if (fd < 0) {
		int err = -errno;
		char why[160];

		/* perf_event_paranoid is checked before the PMU is looked up */
		if (err == -EACCES || err == -EPERM)
			set(r, KFIT_P_NO, err, "cannot open the cycles counter: %s%s",
			    kfit_pmu_perf_denied(why, sizeof(why)),
			    kfit_pmu_has_cpu(NULL) ? "" : " (and this machine exposes "
			    "no hardware PMU: usual in VMs)");
		else if (!kfit_pmu_has_cpu(NULL))
			set(r, KFIT_P_NO, err, "this machine exposes no hardware PMU "
			    "(usual in VMs): perf_event_open(cycles) gave %s",
			    err == -ENOENT ? "ENOENT" : kfit_reason(err));
		else
			set(r, KFIT_P_NO, err, "cannot open the cycles counter: %s",
			    kfit_reason(err));
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	spin_ms(5);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = 0;
	close(fd);
	if (count > 0)
		set(r, KFIT_P_OK, 0, "cycles counted (%lld in 5 ms)", count);
	else
		set(r, KFIT_P_NO, -ENODATA, "the cycles counter opened but counted nothing");
}

static void check_btf(struct kfit_probe_result *r)
{
	struct btf *btf = kfit_btf_vmlinux();

	if (!btf) {
		set(r, KFIT_P_NO, -errno, "no /sys/kernel/btf/vmlinux: the kernel "
		    "was built without CONFIG_DEBUG_INFO_BTF; CO-RE tools cannot run");
		return;
	}
	set(r, KFIT_P_OK, 0, "/sys/kernel/btf/vmlinux, %u types", btf__type_cnt(btf));
}

static void check_btf_modules(struct kfit_probe_result *r)
{
	int n = kfit_btf_module_count();

	if (n > 0)
		set(r, KFIT_P_OK, 0, "%d modules have BTF", n);
	else
		set(r, KFIT_P_NO, -ENOENT, "no module BTF under /sys/kernel/btf "
		    "(no modules loaded, or CONFIG_DEBUG_INFO_BTF_MODULES off)");
}

static void check_lockdown(struct kfit_probe_result *r)
{
	char buf[128] = "", *mode, *end;

	kfit_fs_mount(KFIT_FS_SECURITYFS);
	if (kfit_read_line("/sys/kernel/security/lockdown", buf, sizeof(buf))) {
		set(r, KFIT_P_OK, 0, "no lockdown LSM: nothing is locked down");
		return;
	}
	mode = strchr(buf, '[');
	end = mode ? strchr(mode, ']') : NULL;
	if (!mode || !end) {
		set(r, KFIT_P_INFO, 0, "unreadable lockdown state: %s", buf);
		return;
	}
	*end = '\0';
	mode++;
	if (strcmp(mode, "confidentiality") == 0)
		set(r, KFIT_P_NO, -EPERM, "confidentiality: BPF may not read "
		    "kernel memory, most tracing is refused");
	else if (strcmp(mode, "integrity") == 0)
		set(r, KFIT_P_OK, 0, "integrity: tracing allowed, writing user memory is not");
	else
		set(r, KFIT_P_OK, 0, "none");
}

static void check_caps(struct kfit_probe_result *r)
{
	struct kfit_caps c;

	if (kfit_caps_get(&c) < 0) {
		set(r, KFIT_P_NO, -errno, "capget failed: %s", strerror(errno));
		return;
	}
	set(r, kfit_caps_enough(&c) ? KFIT_P_OK : KFIT_P_NO,
	    kfit_caps_enough(&c) ? 0 : -EPERM,
	    "CAP_BPF %s, CAP_PERFMON %s, CAP_SYS_ADMIN %s%s",
	    c.bpf ? "yes" : "no", c.perfmon ? "yes" : "no",
	    c.sys_admin ? "yes" : "no",
	    kfit_caps_enough(&c) ? "" : ": tracing needs CAP_BPF and "
	    "CAP_PERFMON, or CAP_SYS_ADMIN");
}

static void check_tracefs(struct kfit_probe_result *r)
{
	int err = kfit_fs_mount(KFIT_FS_TRACEFS);
	const char *p = kfit_tracefs();
	char events[PATH_MAX], why[200];

	if (!p) {
		set(r, KFIT_P_NO, err, "not mounted, and mounting it failed: %s",
		    strerror(-err));
		return;
	}
	snprintf(events, sizeof(events), "%s/events", p);
	if (faccessat(AT_FDCWD, events, R_OK | X_OK, AT_EACCESS)) {
		set(r, KFIT_P_NO, -errno, "mounted, but closed to this process: %s",
		    kfit_caps_tracefs_denied(events, why, sizeof(why)));
		return;
	}
	set(r, KFIT_P_OK, 0, "mounted at %s%s", p,
	    kprobes_built_in() ? "" : " (no kprobe_events in it)");
}

/* The program each mechanism's check loads; KFIT_PROBE_NONE: none */
static const enum kfit_probe_prog prog_of_mech[KFIT_M_NR] = {
	[KFIT_M_FENTRY]		= KFIT_PROBE_FENTRY,
	[KFIT_M_FEXIT]		= KFIT_PROBE_FEXIT,
	[KFIT_M_KPROBE]		= KFIT_PROBE_KPROBE,
	[KFIT_M_KRETPROBE]	= KFIT_PROBE_KRETPROBE,
	[KFIT_M_KPROBE_MULTI]	= KFIT_PROBE_KPROBE_MULTI,
	[KFIT_M_TRACEPOINT]	= KFIT_PROBE_TRACEPOINT,
	[KFIT_M_TP_BTF]		= KFIT_PROBE_TP_BTF,
	[KFIT_M_RAW_TP]		= KFIT_PROBE_RAW_TP,
	[KFIT_M_UPROBE]		= KFIT_PROBE_UPROBE,
	[KFIT_M_URETPROBE]	= KFIT_PROBE_URETPROBE,
	[KFIT_M_RINGBUF]	= KFIT_PROBE_RINGBUF,
	[KFIT_M_PERF_SW]	= KFIT_PROBE_PERF_SW,
};

static void run_check(enum kfit_mech m, struct kfit_probe_result *r)
{
	struct kfit_caps c;

	if (prog_of_mech[m] && kfit_caps_get(&c) == 0 && !kfit_caps_enough(&c)) {
		set(r, KFIT_P_NO, -EPERM, "not tried: this process lacks "
		    "CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN)");
		return;
	}
	if (prog_of_mech[m]) {
		prog_check(prog_of_mech[m], r);
		return;
	}
	switch (m) {
	case KFIT_M_BTF_VMLINUX:
		check_btf(r);
		break;
	case KFIT_M_BTF_MODULES:
		check_btf_modules(r);
		break;
	case KFIT_M_PERF_HW:
		check_perf_hw(r);
		break;
	case KFIT_M_LOCKDOWN:
		check_lockdown(r);
		break;
	case KFIT_M_CAPS:
		check_caps(r);
		break;
	case KFIT_M_TRACEFS:
		check_tracefs(r);
		break;
	default:
		set(r, KFIT_P_NO, -EINVAL, "unknown check");
	}
}

const struct kfit_probe_result *kfit_probe(enum kfit_mech m)
{
	static struct kfit_probe_result bad = { KFIT_P_NO, -EINVAL, "unknown check" };

	if (m >= KFIT_M_NR)
		return &bad;
	if (!done[m]) {
		run_check(m, &results[m]);
		done[m] = true;
	}
	return &results[m];
}
