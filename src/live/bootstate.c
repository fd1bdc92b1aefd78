// SPDX-License-Identifier: GPL-2.0
/*
 * bootsum's state in the kernel: started before the first process,
 * pinned so that it outlives its loader, found again by path or by map
 * id, read, stopped. And the kernel's own record of the boot as text.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "bootrec.skel.h"
#include "bootfuncs.h"
#include "bootstate.h"
#include "btf.h"
#include "diag.h"
#include "fileio.h"
#include "ksyms.h"

/* --early's stage: KFIT_PIN_ROOT/bootsum-stage-PID (bpffs allows no dot in a name) */
#define STAGE_PREFIX		"bootsum-stage-"

#define SYSLOG_READ_ALL		3
#define SYSLOG_SIZE_BUFFER	10

/* bs_meta of the recording this process started, mapped (BPF_F_MMAPABLE) */
static struct bs_meta *early_meta;

static __u64 boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int kfit_bootstate_kmsg(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int fd, n, r = 0;

	n = snprintf(buf, sizeof(buf), "bootsum: ");
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	n = strlen(buf);
	if (buf[n - 1] != '\n')
		buf[n++] = '\n';
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, n) != n)
		r = -errno;
	close(fd);
	return r;
}

static __u32 map_id(int fd)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

static struct bs_meta *map_meta(int fd)
{
	size_t len = (sizeof(struct bs_meta) + 4095) & ~(size_t)4095;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void unmap_meta(struct bs_meta *m)
{
	if (m)
		munmap(m, (sizeof(*m) + 4095) & ~(size_t)4095);
}

static bool has_tracepoint(const char *name)
{
	struct btf *btf = kfit_btf_vmlinux();
	char tname[128];

	snprintf(tname, sizeof(tname), "btf_trace_%s", name);
	return btf && btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF) >= 0;
}

/*
 * Whether the kernel can resolve preempt_count for BPF: a per-CPU data
 * symbol, in kallsyms only with KALLSYMS_ALL
 */
static bool preempt_count_known(void)
{
	struct kfit_ksyms *ks = kfit_ksyms_load(NULL);
	bool known;

	if (!ks)
		return false;
	known = kfit_ksyms_by_name(ks, "__preempt_count") || kfit_ksyms_by_name(ks, "pcpu_hot");
	kfit_ksyms_free(ks);
	return known;
}

/* This process, recorded before anything else: the first process */
static int record_self(struct bootrec_bpf *s, __u64 now)
{
	struct bs_proc p;
	__u32 idx = 0, pid = getpid();
	FILE *f;

	memset(&p, 0, sizeof(p));
	p.pid = pid;
	p.ppid = getppid();
	p.parent_idx = BS_NONE;
	p.flags = BS_P_PREEXIST;
	p.fork_ns = now;
	p.nthreads = 1;
	f = fopen("/proc/self/comm", "r");
	if (f) {
		if (fgets(p.comm, sizeof(p.comm), f))
			p.comm[strcspn(p.comm, "\n")] = '\0';
		fclose(f);
	}
	if (bpf_map_update_elem(bpf_map__fd(s->maps.bs_procs), &idx, &p, BPF_ANY))
		return -errno;
	if (bpf_map_update_elem(bpf_map__fd(s->maps.bs_pidx), &pid, &idx, BPF_ANY))
		return -errno;
	return 0;
}

static void fill_meta(struct bootrec_bpf *s, struct bs_meta *m,
		      const struct kfit_bootstate_early_opts *o, __u64 now)
{
	m->version = BS_VERSION;
	m->early_ns = now;
	m->max_procs = s->rodata->max_procs;
	m->max_waits = s->rodata->max_waits;
	m->max_mods = s->rodata->max_mods;
	m->early_pid = getpid();
	m->procs_id = map_id(bpf_map__fd(s->maps.bs_procs));
	m->waits_id = map_id(bpf_map__fd(s->maps.bs_waits));
	m->mods_id = map_id(bpf_map__fd(s->maps.bs_mods));
	m->funcs_id = o->funcs_id;
	m->nprocs = 1;	/* record_self */
	if (o->init_path)
		snprintf(m->init_path, sizeof(m->init_path), "%s", o->init_path);
}

/* Pins in the stage; a kill in between leaves them where --stop looks */
static int pin_all(struct bootrec_bpf *s, const char *dir)
{
	const struct bpf_prog_skeleton *ps = s->skeleton->progs;
	struct bpf_map *map;
	int r, i;

	for (i = 0; i < s->skeleton->prog_cnt; i++) {
		if (!*ps[i].link)
			continue;	/* not loaded: no such tracepoint here */
		r = kfit_pin_link(*ps[i].link, dir, ps[i].name);
		if (r)
			return r;
	}
	bpf_object__for_each_map(map, s->obj) {
		if (bpf_map__is_internal(map))
			continue;
		r = kfit_pin_map(map, dir);
		if (r)
			return r;
	}
	return 0;
}

static bool cancelled(const struct kfit_bootstate_early_opts *o)
{
	return o->cancel && *o->cancel;
}

static int early_fail(struct bootrec_bpf *s, const char *stage, int r)
{
	/* pins first: a pinned link outlives the skeleton's destroy */
	if (stage)
		kfit_pin_remove(stage);
	unmap_meta(early_meta);
	early_meta = NULL;
	bootrec_bpf__destroy(s);
	return r;
}

int kfit_bootstate_early(const struct kfit_bootstate_early_opts *o, char *err, size_t errlen)
{
	struct bootrec_bpf *s;
	struct bs_meta *m;
	bool guessed;
	__u64 now;
	int r;

	r = kfit_pin_mount();
	if (r) {
		snprintf(err, errlen, "cannot mount proc, sysfs or bpffs: %s", strerror(-r));
		return r;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(err, errlen, "this kernel has no BTF (/sys/kernel/btf/vmlinux): "
			 "bootsum needs CONFIG_DEBUG_INFO_BTF");
		return -ENOENT;
	}
	s = bootrec_bpf__open();
	if (!s) {
		r = -errno;
		snprintf(err, errlen, "cannot open the BPF object: %s", strerror(-r));
		return r;
	}
	if (o->max_procs) {
		s->rodata->max_procs = o->max_procs;
		bpf_map__set_max_entries(s->maps.bs_procs, o->max_procs);
		bpf_map__set_max_entries(s->maps.bs_pidx, o->max_procs);
	}
	if (o->max_waits) {
		s->rodata->max_waits = o->max_waits;
		bpf_map__set_max_entries(s->maps.bs_waits, o->max_waits);
	}
	if (o->wait_min_ns)
		s->rodata->wait_min_ns = o->wait_min_ns;
	/* kernels without modules have no module_load */
	if (!has_tracepoint("module_load"))
		bpf_program__set_autoload(s->progs.bs_module_load, false);
	guessed = !preempt_count_known();
	bpf_program__set_autoload(guessed ? s->progs.bs_waking : s->progs.bs_waking_idle, false);
	r = bootrec_bpf__load(s);
	if (r) {
		snprintf(err, errlen, "loading the BPF programs failed: %s",
			 kfit_reason(r));
		return early_fail(s, NULL, r);
	}
	if (cancelled(o))
		return early_fail(s, NULL, -ECANCELED);
	m = early_meta = map_meta(bpf_map__fd(s->maps.bs_meta));
	if (!m) {
		r = -errno;
		snprintf(err, errlen, "cannot map bs_meta: %s", strerror(-r));
		return early_fail(s, NULL, r);
	}
	now = boot_ns();
	r = record_self(s, now);
	if (r) {
		snprintf(err, errlen, "cannot record the first process: %s", strerror(-r));
		return early_fail(s, NULL, r);
	}
	fill_meta(s, m, o, now);
	m->irq_guessed = guessed;
	r = bootrec_bpf__attach(s);
	if (r) {
		snprintf(err, errlen, "attaching the BPF programs failed: %s", kfit_reason(r));
		return early_fail(s, NULL, r);
	}
	if (cancelled(o))
		return early_fail(s, NULL, -ECANCELED);
	r = pin_all(s, o->stage);
	if (r) {
		snprintf(err, errlen, "cannot pin in %s: %s", o->stage, strerror(-r));
		return early_fail(s, o->stage, r);
	}
	if (cancelled(o))
		return early_fail(s, o->stage, -ECANCELED);
	/* the magic last: a reader never takes a half-made state for one */
	__atomic_store_n(&m->magic, BS_MAGIC, __ATOMIC_RELEASE);
	/* whole: into place in one step (EEXIST, ENOTEMPTY: someone's there) */
	if (rename(o->stage, KFIT_BOOTSTATE_DIR)) {
		r = -errno;
		__atomic_store_n(&m->magic, 0, __ATOMIC_RELEASE);
		snprintf(err, errlen, "cannot rename %s to %s: %s%s", o->stage, KFIT_BOOTSTATE_DIR,
			 strerror(-r), r == -ENOTEMPTY || r == -EEXIST ?
			 " (left by an earlier run? bootsum --stop removes it)" : "");
		return early_fail(s, o->stage, r);
	}
	kfit_bootstate_kmsg("boot clock %llu ns", (unsigned long long)boot_ns());
	/* the pins hold everything now; this process's fds may go */
	bootrec_bpf__destroy(s);
	return 0;
}

void kfit_bootstate_exec_mark(void)
{
	if (early_meta)
		early_meta->exec_ns = boot_ns();
}

/* ---- finding, reading ---------------------------------------------------- */

static bool meta_valid(int fd, void *ctx)
{
	struct bs_meta *out = ctx, m;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(fd, &zero, &m))
		return false;
	if (m.magic != BS_MAGIC || m.version != BS_VERSION)
		return false;
	if (out)
		*out = m;
	return true;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void kfit_bootstate_close(struct kfit_bootstate *st)
{
	close_fd(&st->meta_fd);
	close_fd(&st->procs_fd);
	close_fd(&st->waits_fd);
	close_fd(&st->mods_fd);
}

static int open_rest(struct kfit_bootstate *st)
{
	st->procs_fd = kfit_pin_map_by_id(st->meta.procs_id);
	st->waits_fd = kfit_pin_map_by_id(st->meta.waits_id);
	st->mods_fd = kfit_pin_map_by_id(st->meta.mods_id);
	if (st->procs_fd < 0)
		return st->procs_fd;
	if (st->waits_fd < 0)
		return st->waits_fd;
	return st->mods_fd < 0 ? st->mods_fd : 0;
}

int kfit_bootstate_find(struct kfit_bootstate *st)
{
	int fd, r;

	memset(st, 0, sizeof(*st));
	st->meta_fd = st->procs_fd = st->waits_fd = st->mods_fd = -1;
	fd = kfit_pin_open(KFIT_BOOTSTATE_DIR, "bs_meta");
	if (fd >= 0 && meta_valid(fd, &st->meta)) {
		st->pinned = true;
		st->meta_id = map_id(fd);
		snprintf(st->found, sizeof(st->found), "pinned at %s", KFIT_BOOTSTATE_DIR);
	} else {
		if (fd >= 0)
			close(fd);
		else if (fd == -EPERM || fd == -EACCES)
			return fd;
		fd = kfit_pin_find_map("bs_meta", meta_valid, &st->meta, &st->meta_id);
		if (fd < 0)
			return fd;
		/* kfit_pin_find_map left the last map checked in meta: read ours again */
		meta_valid(fd, &st->meta);
		snprintf(st->found, sizeof(st->found), "by map id %u", st->meta_id);
	}
	st->meta_fd = fd;
	r = open_rest(st);
	if (r)
		kfit_bootstate_close(st);
	return r;
}

/* n elements of array map fd into a new buffer */
static int read_array(int fd, size_t n, size_t size, void **out)
{
	char *buf;
	__u32 i;

	*out = NULL;
	if (!n)
		return 0;
	buf = calloc(n, size);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (bpf_map_lookup_elem(fd, &i, buf + i * size)) {
			free(buf);
			return -errno;
		}
	}
	*out = buf;
	return 0;
}

static size_t used(__u32 next, __u32 max)
{
	return next < max ? next : max;
}

int kfit_bootstate_read(struct kfit_bootstate *st, struct kfit_bootrep_user *u)
{
	__u32 zero = 0;
	int r;

	memset(u, 0, sizeof(*u));
	if (bpf_map_lookup_elem(st->meta_fd, &zero, &u->meta))
		return -errno;
	u->now_ns = boot_ns();
	u->found = st->found;
	u->nprocs = used(u->meta.nprocs, u->meta.max_procs);
	u->nwaits = used(u->meta.nwaits, u->meta.max_waits);
	u->nmods = used(u->meta.nmods, u->meta.max_mods);
	r = read_array(st->procs_fd, u->nprocs, sizeof(*u->procs), (void **)&u->procs);
	if (!r)
		r = read_array(st->waits_fd, u->nwaits, sizeof(*u->waits), (void **)&u->waits);
	if (!r)
		r = read_array(st->mods_fd, u->nmods, sizeof(*u->mods), (void **)&u->mods);
	if (r)
		kfit_bootstate_free_user(u);
	return r;
}

void kfit_bootstate_free_user(struct kfit_bootrep_user *u)
{
	free(u->procs);
	free(u->waits);
	free(u->mods);
	u->procs = NULL;
	u->waits = NULL;
	u->mods = NULL;
	u->nprocs = u->nwaits = u->nmods = 0;
}

/* ---- staging, and what a killed --early left ---- */

/* Whether map id is gone (freed a little after its last reference), up to 3 s */
static bool wait_map_gone(__u32 id)
{
	struct timespec step = { 0, 20 * 1000 * 1000 };
	int i, fd;

	for (i = 0; i < 150; i++) {
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0)
			return errno == ENOENT;
		close(fd);
		nanosleep(&step, NULL);
	}
	return false;
}

int kfit_bootstate_stage(char *dir, size_t len)
{
	int r;

	r = kfit_pin_mount();
	if (r)
		return r;
	r = kfit_pathf(dir, len, "%s/%s%d", KFIT_PIN_ROOT, STAGE_PREFIX, (int)getpid());
	if (r)
		return r;
	kfit_bootstate_unstage(dir);	/* a dead process's that had this pid */
	return kfit_pin_mkdir(dir);
}

void kfit_bootstate_unstage(const char *dir)
{
	kfit_bootfuncs_remove(dir);	/* its subdirectory first */
	kfit_pin_remove(dir);
}

/* Whether stage NAME's process is a bootsum still loading */
static bool stage_live(const char *name)
{
	char comm[32], *end;
	long pid;

	pid = strtol(name + strlen(STAGE_PREFIX), &end, 10);
	if (*end || pid <= 0)
		return false;
	if (kfit_read_linef(comm, sizeof(comm), "/proc/%ld/comm", pid))
		return false;
	return !strcmp(comm, "bootsum");
}

/* Whether DIR holds a bs_meta whose magic says it is whole */
static bool pinned_whole(const char *dir)
{
	int fd = kfit_pin_open(dir, "bs_meta");
	bool whole;

	if (fd < 0)
		return false;
	whole = meta_valid(fd, NULL);
	close(fd);
	return whole;
}

/*
 * Removes DIR's pins. A bs_meta pinned there may be whole (killed between
 * its magic and the rename): waits until it is freed, so that a search by
 * map id after this does not take it for a recording.
 */
static int remove_left(const char *dir)
{
	__u32 id = 0;
	int fd, r;

	fd = kfit_pin_open(dir, "bs_meta");
	if (fd >= 0) {
		id = map_id(fd);
		close(fd);
	}
	kfit_bootfuncs_remove(dir);
	r = kfit_pin_remove(dir);
	if (r)
		return r;
	kfit_info("removed %s: left by a bootsum --early killed while pinning; its "
		  "programs and maps are %s", dir, id && wait_map_gone(id) ? "freed" :
		  "released (the kernel frees them shortly)");
	return 0;
}

int kfit_bootstate_leftovers(void)
{
	char path[PATH_MAX];
	struct dirent *de;
	int n = 0, first = 0, r;
	DIR *d;

	d = opendir(KFIT_PIN_ROOT);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, STAGE_PREFIX, strlen(STAGE_PREFIX)) ||
		    stage_live(de->d_name))
			continue;
		r = kfit_pathf(path, sizeof(path), "%s/%s", KFIT_PIN_ROOT, de->d_name);
		if (!r)
			r = remove_left(path);
		if (r && !first)
			first = r;
		n += !r;
	}
	closedir(d);
	/* pins in place without a whole bs_meta: an older bootsum's half-made state */
	if (!access(KFIT_BOOTSTATE_DIR, F_OK) && !pinned_whole(KFIT_BOOTSTATE_DIR)) {
		r = remove_left(KFIT_BOOTSTATE_DIR);
		if (r && !first)
			first = r;
		n += !r;
	}
	if (n)
		rmdir(KFIT_PIN_ROOT);	/* when nothing else is in it */
	return first ? first : n;
}

/* ---- stopping ------------------------------------------------------------ */

/* Whether program id uses map meta_id; adds its maps' sizes to *bytes once */
static bool prog_uses(__u32 prog_id, __u32 meta_id, __u64 *bytes, bool count)
{
	struct bpf_prog_info info;
	struct bpf_map_info mi;
	__u32 ids[32], len;
	bool ours = false;
	int n, i, mfd;

	n = kfit_pin_prog_maps(prog_id, &info, ids, 32);
	for (i = 0; i < n; i++)
		ours |= ids[i] == meta_id;
	if (!ours || !count)
		return ours;
	for (i = 0; i < n; i++) {
		mfd = bpf_map_get_fd_by_id(ids[i]);
		if (mfd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		if (!bpf_obj_get_info_by_fd(mfd, &mi, &len) && mi.type != BPF_MAP_TYPE_TASK_STORAGE)
			*bytes += (__u64)mi.max_entries * (mi.key_size + mi.value_size);
		close(mfd);
	}
	return true;
}

/* bootsum's links, found by id: detached where the kernel allows it */
static void detach_by_id(struct kfit_bootstate *st, struct kfit_bootstate_stopped *out)
{
	struct bpf_link_info info;
	__u32 id = 0, len;
	int fd;

	while (!bpf_link_get_next_id(id, &id)) {
		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
		    !prog_uses(info.prog_id, st->meta_id, &out->map_bytes, !out->links)) {
			close(fd);
			continue;
		}
		out->links++;
		if (!bpf_link_detach(fd))
			out->detached++;
		else if (!out->detach_err)
			out->detach_err = -errno;
		close(fd);
	}
}

/*
 * The kernel frees unpinned objects a little later (RCU, a work item):
 * closes st and waits until bs_meta's id is gone, up to 3 s
 */
static bool wait_freed(struct kfit_bootstate *st)
{
	kfit_bootstate_close(st);
	return wait_map_gone(st->meta_id);
}

int kfit_bootstate_stop(struct kfit_bootstate *st, struct kfit_bootstate_stopped *out)
{
	struct bs_meta *m;
	__u64 kib;
	int r;

	memset(out, 0, sizeof(*out));
	if (st->pinned) {
		kfit_bootfuncs_remove(KFIT_BOOTSTATE_DIR);	/* its subdirectory first */
		r = kfit_pin_remove(KFIT_BOOTSTATE_DIR);
		if (r)
			return r;
		rmdir(KFIT_PIN_ROOT);	/* when nothing else is in it */
		out->unpinned = true;
		out->freed = wait_freed(st);
		return 0;
	}
	m = map_meta(st->meta_fd);
	if (!m)
		return -errno;
	__atomic_store_n(&m->stopped, 1, __ATOMIC_RELEASE);
	unmap_meta(m);
	out->flagged = true;
	detach_by_id(st, out);
	if (!kfit_bootfuncs_disable(st->meta.funcs_id, &kib))
		out->map_bytes += kib * 1024;
	return 0;
}

/* ---- the kernel's record ------------------------------------------------- */

/* The buffer's oldest events come first: a boot's initcalls are in its head */
#define TRACE_MAX	(64 << 20)

char *kfit_bootstate_trace_text(size_t *len)
{
	char path[4096];
	const char *dir;
	char *text;
	bool cut;

	if (geteuid() == 0)
		kfit_fs_mount(KFIT_FS_TRACEFS);
	dir = kfit_tracefs();
	if (!dir) {
		errno = ENOENT;
		return NULL;
	}
	if (kfit_pathf(path, sizeof(path), "%s/trace", dir)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	text = kfit_read_max(path, TRACE_MAX, len, &cut);
	if (cut)
		kfit_warn("%s is longer than %d MiB (is tracing on?): read its first %d MiB, "
			  "where a boot's initcall events are", path, TRACE_MAX >> 20,
			  TRACE_MAX >> 20);
	return text;
}

/* "<6>[    0.000000] text" as klogctl gives it -> "[    0.000000] text" as dmesg prints it */
static size_t strip_levels(char *buf, size_t n)
{
	size_t i = 0, o = 0, k;
	bool bol = true;

	while (i < n) {
		if (bol && buf[i] == '<') {
			for (k = i + 1; k < n && buf[k] >= '0' && buf[k] <= '9'; k++)
				;
			if (k < n && k > i + 1 && buf[k] == '>')
				i = k + 1;
		}
		if (i >= n)
			break;
		bol = buf[i] == '\n';
		buf[o++] = buf[i++];
	}
	buf[o] = '\0';
	return o;
}

/* /dev/kmsg's records, "6,123,4567,-;text\n", each read whole, until none is left */
static char *kmsg_records(size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap), *nb;
	ssize_t r;
	int fd;

	if (!buf)
		return NULL;
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (cap - n < 8192 + 1) {
			nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EPIPE)
			continue;	/* overwritten while reading: the next one */
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

char *kfit_bootstate_dmesg_text(size_t *len)
{
	int size, n;
	char *buf;

	size = klogctl(SYSLOG_SIZE_BUFFER, NULL, 0);
	if (size <= 0)
		return kmsg_records(len);
	buf = malloc(size + 1);
	if (!buf)
		return NULL;
	n = klogctl(SYSLOG_READ_ALL, buf, size);
	if (n < 0) {
		free(buf);
		return kmsg_records(len);
	}
	n = strip_levels(buf, n);
	if (len)
		*len = n;
	return buf;
}

char *kfit_bootstate_kallsyms_text(size_t *len)
{
	return kfit_read_all("/proc/kallsyms", len);
}
