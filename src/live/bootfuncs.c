// SPDX-License-Identifier: GPL-2.0
/*
 * bootsum --funcs: the calltime engine (calltime.h) recording from
 * the first process on and read back by a later bootsum. The recording
 * outlives its loader through pinned links; the table bs_funcs names the
 * functions and the maps' ids, so that the report finds everything from
 * one map id when the pins are out of reach.
 */
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "kfit/bootrec.h"
#include "kfit/calltime.h"
#include "calltime.skel.h"
#include "attach.h"
#include "bootfuncs.h"
#include "diag.h"
#include "duration.h"
#include "calltime.h"
#include "fileio.h"
#include "fstats.h"
#include "output.h"
#include "pin.h"
#include "probe.h"
#include "target.h"

#define TABLE	"bs_funcs"

/* An entry of bs_funcs: the head (0) or a function (1..nfuncs) */
union bs_fent {
	struct bs_funcs_head h;
	struct bs_func f;
	char raw[BS_FENT];
};

_Static_assert(sizeof(struct bs_funcs_head) <= BS_FENT, "bs_funcs_head too big");
_Static_assert(sizeof(struct bs_func) == BS_FENT, "bs_func is not BS_FENT bytes");

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static __u32 map_id(int fd)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/* ---- bootsum --early ------------------------------------------------------ */

struct start {
	const struct kfit_bootfuncs_opts *o;
	char dir[PATH_MAX];		/* DIR/funcs */
	struct kfit_targets tg;
	struct calltime_bpf *skel;
	struct kfit_attacher *att;
	char why[sizeof(((struct bs_funcs_head *)0)->why)];
};

/* why, cut to what bs_funcs_head holds */
static void __attribute__((format(printf, 2, 3))) because(struct start *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
}

/* Why no kernel function can be traced: what each mechanism said */
static void why_no_mech(struct start *s)
{
	because(s, "fentry: %s; kprobe: %s",
		 kfit_probe(KFIT_M_FENTRY)->detail, kfit_probe(KFIT_M_KPROBE)->detail);
}

static int resolve(struct start *s)
{
	int err;

	s->tg.need_btf = s->o->mech == KFIT_AM_AUTO || s->o->mech == KFIT_AM_FENTRY;
	s->tg.max = CT_MAX_FUNCS;
	err = kfit_targets_add(&s->tg, s->o->glob);
	if (err) {
		because(s, "'%s': %s", s->o->glob,
			 err == -EINVAL ? "no such function" : kfit_reason(err));
		return err;
	}
	if (s->tg.n)
		return 0;
	because(s, "nothing to trace: %s: %s", s->tg.skipped[0].name,
		 s->tg.skipped[0].reason);
	return -ENOENT;
}

/* funcdur's rodata: every task from the first process on, calls >= --min */
static void configure(struct start *s)
{
	struct calltime_bpf *k = s->skel;

	/* bootsum execs the init it records: no tgid is its own (pids < 2^22) */
	k->rodata->self_tgid = ~0U;
	k->rodata->min_ns = s->o->min_ns;
	bpf_map__set_max_entries(k->maps.stats, 2 * s->tg.n);
	bpf_map__set_max_entries(k->maps.linhists, 1);
}

static int load(struct start *s)
{
	struct kfit_attach_opts ao = {
		.mech = s->o->mech,
		.verbose = s->o->verbose,
		.progress = isatty(STDERR_FILENO),
	};
	struct kfit_attach_progs p;
	int err;

	s->att = kfit_attacher_new(&s->tg, &ao);
	s->skel = calltime_bpf__open();
	if (!s->att || !s->skel)
		return -ENOMEM;
	configure(s);
	p = kfit_calltime_progs(s->skel);
	err = kfit_attacher_prepare(s->att, &p);
	if (err) {
		if (s->tg.nkernel && s->o->mech == KFIT_AM_AUTO &&
		    (err == -EPERM || err == -EOPNOTSUPP))
			why_no_mech(s);
		else
			because(s, "%s", kfit_reason(err));
		return err;
	}
	err = calltime_bpf__load(s->skel);
	if (err)
		because(s, "cannot load the BPF programs: %s",
			 kfit_reason(err));
	return err;
}

static int attach(struct start *s)
{
	int err = kfit_attacher_attach(s->att);

	if (err == -EINTR)
		because(s, "interrupted while attaching");
	else if (err && s->tg.nskipped)
		because(s, "no function could be attached: %s: %s",
			 s->tg.skipped[0].name, s->tg.skipped[0].reason);
	else if (err)
		because(s, "attaching failed: %s", kfit_reason(err));
	return err;
}

/* bs_funcs with nfuncs entries after the head; its fd, or -errno */
static int make_table(int nfuncs)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, TABLE, sizeof(__u32), BS_FENT,
				nfuncs + 1, NULL);

	return fd < 0 ? -errno : fd;
}

static int put(int fd, __u32 key, const union bs_fent *e)
{
	return bpf_map_update_elem(fd, &key, e, BPF_ANY) ? -errno : 0;
}

/* DIR/funcs/NAME for the object fd */
static int pin_as(struct start *s, int fd, const char *name)
{
	char path[PATH_MAX];
	int err = kfit_pathf(path, sizeof(path), "%s/%s", s->dir, name);

	return err ? err : bpf_obj_pin(fd, path) ? -errno : 0;
}

/* The head, magic written last; the table pinned as DIR/funcs/bs_funcs */
static int publish(struct start *s, int fd, union bs_fent *head, __u32 *id)
{
	int err;

	head->h.magic = 0;
	err = put(fd, 0, head);
	head->h.magic = BS_FMAGIC;
	if (!err)
		err = put(fd, 0, head);
	if (!err)
		err = pin_as(s, fd, TABLE);
	if (!err)
		*id = map_id(fd);
	return err;
}

static void head_of(struct start *s, union bs_fent *e)
{
	memset(e, 0, sizeof(*e));
	e->h.min_ns = s->o->min_ns;
	copy(e->h.glob, sizeof(e->h.glob), s->o->glob);
}

/* Nothing recorded: only the head, with why, for the report */
static void publish_failure(struct start *s, int err, __u32 *id)
{
	union bs_fent e;
	int fd;

	head_of(s, &e);
	e.h.err = err;
	copy(e.h.why, sizeof(e.h.why), s->why);
	fd = make_table(0);
	if (fd < 0)
		return;
	if (publish(s, fd, &e, id))
		*id = 0;
	close(fd);
}

/*
 * The maps a report reads, pinned beside the links (bpftool finds them),
 * and the globals with the ready flag --stop turns off: as "bss", since
 * bpffs refuses names with a dot.
 */
static int pin_maps(struct start *s)
{
	struct bpf_map *ms[] = {
		s->skel->maps.stats, s->skel->maps.edges, s->skel->maps.counters,
	};
	size_t i;
	int err;

	for (i = 0; i < sizeof(ms) / sizeof(ms[0]); i++) {
		err = kfit_pin_map(ms[i], s->dir);
		if (err)
			return err;
	}
	return pin_as(s, bpf_map__fd(s->skel->maps.bss), "bss");
}

static int write_table(struct start *s, __u32 *id)
{
	union bs_fent e;
	int fd, i, err = 0;

	fd = make_table(s->tg.n);
	if (fd < 0)
		return fd;
	for (i = 0; !err && i < s->tg.n; i++) {
		const struct kfit_targets_func *f = &s->tg.funcs[i];

		memset(&e, 0, sizeof(e));
		copy(e.f.name, sizeof(e.f.name), f->name);
		e.f.flags = (f->dropped ? BS_F_DROPPED : 0) |
			    (strlen(f->name) >= sizeof(e.f.name) ? BS_F_CUT : 0);
		err = put(fd, i + 1, &e);
	}
	head_of(s, &e);
	e.h.nfuncs = s->tg.n;
	e.h.stats_id = map_id(bpf_map__fd(s->skel->maps.stats));
	e.h.edges_id = map_id(bpf_map__fd(s->skel->maps.edges));
	e.h.counters_id = map_id(bpf_map__fd(s->skel->maps.counters));
	e.h.bss_id = map_id(bpf_map__fd(s->skel->maps.bss));
	e.h.skipped = s->tg.nskipped;
	for (i = 0; i < s->tg.n; i++)
		e.h.attached += !s->tg.funcs[i].dropped;
	copy(e.h.mech, sizeof(e.h.mech), kfit_attacher_mech(s->att));
	if (!err)
		err = publish(s, fd, &e, id);
	close(fd);
	return err;
}

static int pin_all(struct start *s, __u32 *id)
{
	int err = kfit_attacher_pin(s->att, s->dir);

	if (!err)
		err = pin_maps(s);
	if (!err)
		err = write_table(s, id);
	if (err)
		because(s, "cannot pin in %s: %s", s->dir,
			 kfit_reason(err));
	return err;
}

static void start_free(struct start *s)
{
	kfit_attacher_free(s->att);
	calltime_bpf__destroy(s->skel);
	kfit_targets_free(&s->tg);
}

static int start_steps(struct start *s, __u32 *id)
{
	int err = resolve(s);

	if (!err)
		err = load(s);
	if (!err)
		err = attach(s);
	if (err)
		return err;
	kfit_attacher_activate(s->att, &s->skel->bss->kfit_ready);
	kfit_attacher_skipped(s->att);
	return pin_all(s, id);
}

int kfit_bootfuncs_start(const char *dir, const struct kfit_bootfuncs_opts *o,
			 __u32 *funcs_id, char *why, size_t whylen)
{
	struct start s = { .o = o };
	int err;

	*funcs_id = 0;
	/* as the first process nothing is mounted yet */
	err = kfit_pin_mount();
	if (!err)
		err = kfit_pathf(s.dir, sizeof(s.dir), "%s/%s", dir, KFIT_BOOTFUNCS_SUBDIR);
	if (!err)
		err = kfit_pin_mkdir(s.dir);
	if (err) {
		snprintf(why, whylen, "cannot make %s/%s (bpffs): %s", dir, KFIT_BOOTFUNCS_SUBDIR,
			 kfit_reason(err));
		kfit_err("functions (--funcs %s) not recorded: %s", o->glob, why);
		return err;
	}
	err = start_steps(&s, funcs_id);
	if (!err) {
		kfit_info("recording %d function%s (%s) from now on: %s/", s.tg.n - s.tg.nskipped,
			  s.tg.n - s.tg.nskipped == 1 ? "" : "s", kfit_attacher_mech(s.att), s.dir);
		start_free(&s);
		snprintf(why, whylen, "%s", "");
		return 0;
	}
	/* The pins made go, and with the process the rest: only why stays */
	kfit_pin_remove(s.dir);
	start_free(&s);
	if (kfit_pin_mkdir(s.dir) == 0)
		publish_failure(&s, err, funcs_id);
	snprintf(why, whylen, "%s", s.why);
	kfit_err("functions (--funcs %s) not recorded: %s", o->glob, s.why);
	return err;
}

/* ---- bootsum --stop ------------------------------------------------------- */

int kfit_bootfuncs_remove(const char *dir)
{
	char path[PATH_MAX];
	int err;

	err = kfit_pathf(path, sizeof(path), "%s/%s", dir, KFIT_BOOTFUNCS_SUBDIR);
	if (err)
		return err;
	if (access(path, F_OK))
		return errno == ENOENT ? 0 : -errno;
	err = kfit_pin_remove(path);
	return err ? err : 1;
}

/* A bs_funcs of ours (a map of another program may have the name) */
static bool is_table(int fd, void *ctx)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info), zero = 0;
	union bs_fent e;

	(void)ctx;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.type != BPF_MAP_TYPE_ARRAY ||
	    info.key_size != sizeof(__u32) || info.value_size != BS_FENT)
		return false;
	return !bpf_map_lookup_elem(fd, &zero, &e) && e.h.magic == BS_FMAGIC;
}

/* fd of the table: FUNCS_ID if it is one, else -ENOENT */
static int table_by_id(__u32 funcs_id)
{
	int fd;

	if (!funcs_id)
		return -ENOENT;
	fd = kfit_pin_map_by_id(funcs_id);
	if (fd < 0)
		return fd == -ENOENT ? -ENOENT : fd;
	if (is_table(fd, NULL))
		return fd;
	close(fd);
	return -ENOENT;
}

static __u64 map_bytes(__u32 id)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	__u64 n;
	int fd = id ? kfit_pin_map_by_id(id) : -1;

	if (fd < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	n = bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 :
	    (__u64)info.max_entries * (info.key_size + info.value_size);
	if (info.type == BPF_MAP_TYPE_PERCPU_ARRAY)
		n *= kfit_ncpus_possible(NULL) > 0 ? kfit_ncpus_possible(NULL) : 1;
	close(fd);
	return n;
}

int kfit_bootfuncs_disable(__u32 funcs_id, __u64 *kib)
{
	struct calltime_bpf__bss *bss = NULL;
	struct bpf_map_info info;
	__u32 len = sizeof(info), zero = 0;
	union bs_fent e;
	int fd, bfd, err;

	*kib = 0;
	fd = table_by_id(funcs_id);
	if (fd < 0)
		return fd;
	err = bpf_map_lookup_elem(fd, &zero, &e) ? -errno : 0;
	close(fd);
	if (err || e.h.err)
		return err;	/* nothing was attached */
	bfd = kfit_pin_map_by_id(e.h.bss_id);
	if (bfd < 0)
		return bfd;
	memset(&info, 0, sizeof(info));
	err = bpf_obj_get_info_by_fd(bfd, &info, &len) ? -errno : 0;
	/* the section's size: the struct's, but for its tail padding */
	if (!err && info.value_size < offsetof(struct calltime_bpf__bss, kfit_ready) +
				      sizeof(bss->kfit_ready))
		err = -EINVAL;
	if (!err && !(bss = calloc(1, info.value_size > sizeof(*bss) ?
					info.value_size : sizeof(*bss))))
		err = -ENOMEM;
	if (!err && bpf_map_lookup_elem(bfd, &zero, bss))
		err = -errno;
	if (!err) {
		bss->kfit_ready = false;
		err = bpf_map_update_elem(bfd, &zero, bss, BPF_ANY) ? -errno : 0;
	}
	free(bss);
	close(bfd);
	*kib = (map_bytes(e.h.stats_id) + map_bytes(e.h.edges_id) +
		map_bytes(e.h.counters_id) + map_bytes(funcs_id) + 1023) / 1024;
	return err;
}

/* ---- reports -------------------------------------------------------------- */

struct kfit_bootfuncs {
	struct bs_funcs_head h;
	char found[PATH_MAX + 32];
	struct bs_func *funcs;
	struct kfit_fstats fs;
	__u64 counters[CT_NCOUNTERS];
	__u64 missed;
};

/* fd of the table, and how it was found */
static int find_table(const char *dir, __u32 funcs_id, char *found, size_t len)
{
	char path[PATH_MAX];
	__u32 id = 0;
	int fd;

	if (!kfit_pathf(path, sizeof(path), "%s/%s", dir, KFIT_BOOTFUNCS_SUBDIR)) {
		fd = kfit_pin_open(path, TABLE);
		if (fd >= 0 && is_table(fd, NULL)) {
			snprintf(found, len, "pinned at %s", path);
			return fd;
		}
		if (fd >= 0)
			close(fd);
	}
	fd = table_by_id(funcs_id);
	if (fd >= 0) {
		snprintf(found, len, "by map id %u", funcs_id);
		return fd;
	}
	fd = kfit_pin_find_map(TABLE, is_table, NULL, &id);
	if (fd >= 0)
		snprintf(found, len, "by name, map id %u", id);
	return fd;
}

/* Runs the kernel skipped of the programs that write the stats map */
static __u64 missed_of(__u32 stats_id)
{
	struct bpf_prog_info info;
	__u32 id = 0, maps[16];
	__u64 n = 0;
	int nm, i;

	while (!bpf_prog_get_next_id(id, &id)) {
		nm = kfit_pin_prog_maps(id, &info, maps, 16);
		for (i = 0; i < nm; i++)
			if (maps[i] == stats_id)
				n += info.recursion_misses;
	}
	return n;
}

static int read_funcs(struct kfit_bootfuncs *b, int fd)
{
	__u32 i;

	b->funcs = calloc(b->h.nfuncs + 1, sizeof(*b->funcs));
	if (!b->funcs)
		return -ENOMEM;
	for (i = 1; i <= b->h.nfuncs; i++)
		if (bpf_map_lookup_elem(fd, &i, &b->funcs[i - 1]))
			return -errno;
	return 0;
}

static int read_stats(struct kfit_bootfuncs *b)
{
	struct kfit_calltime m;
	int stats, edges, counters, err;
	__u32 i;

	stats = kfit_pin_map_by_id(b->h.stats_id);
	edges = kfit_pin_map_by_id(b->h.edges_id);
	counters = kfit_pin_map_by_id(b->h.counters_id);
	err = stats < 0 ? stats : edges < 0 ? edges : counters < 0 ? counters : 0;
	if (!err)
		err = kfit_calltime_init_fds(&m, stats, -1, edges, counters);
	if (!err) {
		for (i = 0; i < b->h.nfuncs; i++) {
			b->fs.f[i].name = b->funcs[i].name;
			b->fs.f[i].hidden = b->funcs[i].flags & BS_F_DROPPED;
		}
		/* kfit_epoch never flips: everything is in half 0 */
		err = kfit_calltime_read(&m, 0, &b->fs, 0);
		kfit_calltime_counters(&m, b->counters);
		kfit_calltime_free(&m);
	}
	if (stats >= 0)
		close(stats);
	if (edges >= 0)
		close(edges);
	if (counters >= 0)
		close(counters);
	return err;
}

int kfit_bootfuncs_open(const char *dir, __u32 funcs_id, unsigned long top,
			struct kfit_bootfuncs **out)
{
	struct kfit_bootfuncs *b;
	__u32 zero = 0;
	int fd, err;

	*out = NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	fd = find_table(dir, funcs_id, b->found, sizeof(b->found));
	if (fd < 0) {
		free(b);
		return fd;
	}
	err = bpf_map_lookup_elem(fd, &zero, &b->h) ? -errno : 0;
	if (!err && !b->h.err)
		err = read_funcs(b, fd);
	close(fd);
	if (!err && !b->h.err)
		err = kfit_fstats_init(&b->fs, b->h.nfuncs);
	b->fs.top = top;
	if (!err && !b->h.err)
		err = read_stats(b);
	if (!err && !b->h.err)
		b->missed = missed_of(b->h.stats_id);
	if (err) {
		kfit_bootfuncs_free(b);
		return err;
	}
	*out = b;
	return 0;
}

void kfit_bootfuncs_free(struct kfit_bootfuncs *b)
{
	if (!b)
		return;
	kfit_fstats_free(&b->fs);
	free(b->funcs);
	free(b);
}

static struct kfit_fnotes notes(const struct kfit_bootfuncs *b)
{
	return (struct kfit_fnotes){
		.has_min = b->h.min_ns > 0,
		.min_ns = b->h.min_ns,
		.too_deep = b->counters[CT_DEEP],
		.max_depth = FC_MAX_DEPTH,
		.no_stack = b->counters[CT_NO_STACK],
		.missed = b->missed,
	};
}

void kfit_bootfuncs_text(FILE *f, const struct kfit_bootfuncs *b)
{
	struct kfit_fnotes nt;
	char d[32];

	if (b->h.err) {
		fprintf(f, "Functions (--funcs %s): not recorded: %s\n", b->h.glob, b->h.why);
		return;
	}
	nt = notes(b);
	fprintf(f, "Functions (--funcs %s --min %s, %u traced by %s", b->h.glob,
		kfit_duration_fmt(b->h.min_ns, d, sizeof(d)), b->h.attached, b->h.mech);
	if (b->h.skipped)
		fprintf(f, ", %u skipped", b->h.skipped);
	fprintf(f, "; found %s):\n", b->found);
	kfit_fstats_table(f, &b->fs, &nt);
}

void kfit_bootfuncs_json(struct kfit_json *j, const struct kfit_bootfuncs *b)
{
	kfit_json_begin_object(j, "functions");
	kfit_json_bool(j, "recorded", !b->h.err);
	kfit_json_str(j, "glob", b->h.glob);
	if (b->h.err) {
		kfit_json_str(j, "why", b->h.why);
		kfit_json_end_object(j);
		return;
	}
	kfit_json_str(j, "found", b->found);
	kfit_json_str(j, "mechanism", b->h.mech);
	kfit_json_u64(j, "min_ns", b->h.min_ns);
	kfit_json_u64(j, "attached", b->h.attached);
	kfit_json_u64(j, "skipped", b->h.skipped);
	kfit_fstats_json(j, &b->fs);
	kfit_json_u64(j, "too_deep", b->counters[CT_DEEP]);
	kfit_json_u64(j, "no_stack", b->counters[CT_NO_STACK]);
	kfit_json_u64(j, "missed", b->missed);
	kfit_json_end_object(j);
}
