// SPDX-License-Identifier: GPL-2.0
/* The descriptive blocks of a trace file: the machine, tasks, events, symbols. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "elfsyms.h"
#include "fileio.h"
#include "kftmeta.h"
#include "opts.h"

static void put_value(FILE *f, const char *v)
{
	for (; *v; v++)
		fputc(*v == '\n' || *v == '\t' || *v == '\r' ? ' ' : *v, f);
}

void kfit_kftmeta_kv(FILE *f, const char *key, const char *val)
{
	fprintf(f, "%s=", key);
	put_value(f, val ? val : "");
	fputc('\n', f);
}

void kfit_kftmeta_u64(FILE *f, const char *key, __u64 val)
{
	fprintf(f, "%s=%llu\n", key, (unsigned long long)val);
}

static __u64 clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* other - monotonic, read between two monotonic reads: the closest pair of 3 */
static __u64 clock_offset(clockid_t other)
{
	__u64 best = ~0ULL, off = 0, a, o, b;
	int i;

	for (i = 0; i < 3; i++) {
		a = clock_ns(CLOCK_MONOTONIC);
		o = clock_ns(other);
		b = clock_ns(CLOCK_MONOTONIC);
		if (b - a < best) {
			best = b - a;
			off = o - (a + (b - a) / 2);
		}
	}
	return off;
}

/* A word as a shell reads it back: quoted when it holds anything special */
static void put_word(FILE *f, const char *w)
{
	const char *p;

	for (p = w; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_./:=,+@%", *p))
			break;
	if (*w && !*p) {
		put_value(f, w);
		return;
	}
	fputc('\'', f);
	for (p = w; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", f);
		else
			fputc(*p == '\n' || *p == '\t' ? ' ' : *p, f);
	}
	fputc('\'', f);
}

void kfit_kftmeta_cmdline(FILE *f, int argc, char *const argv[])
{
	int i;

	for (i = 0; i < argc; i++) {
		if (i)
			fputc(' ', f);
		put_word(f, argv[i]);
	}
}

__u64 kfit_kftmeta_realtime_offset(void)
{
	return clock_offset(CLOCK_REALTIME);
}

int kfit_kftmeta_machine(FILE *f, int argc, char *const argv[])
{
	char when[64], id[2 * KFIT_ELF_BUILD_ID_MAX + 1];
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;
	int ncpus;

	kfit_kftmeta_kv(f, "kfit_version", KFIT_VERSION);
	fputs("cmdline=", f);
	kfit_kftmeta_cmdline(f, argc, argv);
	fputc('\n', f);
	if (localtime_r(&now, &tm) && strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S%z", &tm))
		kfit_kftmeta_kv(f, "created", when);
	if (!uname(&u)) {
		kfit_kftmeta_kv(f, "uname.sysname", u.sysname);
		kfit_kftmeta_kv(f, "uname.nodename", u.nodename);
		kfit_kftmeta_kv(f, "uname.release", u.release);
		kfit_kftmeta_kv(f, "uname.version", u.version);
		kfit_kftmeta_kv(f, "uname.machine", u.machine);
	}
	/* what names the kernel's code on another machine (pprof's mapping) */
	if (kfit_kernel_build_id(NULL, id, sizeof(id)))
		kfit_kftmeta_kv(f, "kernel.build_id", id);
	ncpus = kfit_ncpus_possible(NULL);
	if (ncpus > 0)
		kfit_kftmeta_u64(f, "ncpus", ncpus);
	kfit_kftmeta_u64(f, "page_size", sysconf(_SC_PAGESIZE));
	kfit_kftmeta_kv(f, "clock", "monotonic");
	kfit_kftmeta_u64(f, "clock.realtime_offset_ns", clock_offset(CLOCK_REALTIME));
	kfit_kftmeta_u64(f, "clock.boottime_offset_ns", clock_offset(CLOCK_BOOTTIME));
	return ferror(f) ? -ENOMEM : 0;
}

/* The parent of process pid from its stat line ("PID (COMM) S PPID ..."), 0 if gone */
static __u32 ppid_of(const char *proc, const char *pid)
{
	char line[512];
	const char *p;
	unsigned int ppid;

	if (kfit_read_linef(line, sizeof(line), "%s/%s/stat", proc, pid))
		return 0;
	p = strrchr(line, ')');
	if (!p || sscanf(p + 1, " %*c %u", &ppid) != 1)
		return 0;
	return ppid;
}

static bool is_id(const char *s)
{
	return isdigit((unsigned char)s[0]);
}

static int process_tasks(const char *proc, const char *pid, kfit_kftmeta_task_fn fn, void *ctx)
{
	char path[PATH_MAX], comm[KFIT_COMM_LEN + 16];
	struct dirent *t;
	__u32 ppid = ppid_of(proc, pid);
	DIR *tasks;
	int err = 0;

	if (kfit_pathf(path, sizeof(path), "%s/%s/task", proc, pid) ||
	    !(tasks = opendir(path)))
		return 0;
	while (!err && (t = readdir(tasks))) {
		if (!is_id(t->d_name) ||
		    kfit_read_linef(comm, sizeof(comm), "%s/%s/task/%s/comm", proc, pid,
				    t->d_name))
			continue;
		err = fn(atoi(pid), atoi(t->d_name), ppid, comm, ctx);
	}
	closedir(tasks);
	return err;
}

int kfit_kftmeta_proc_tasks(const char *proc, int pid, kfit_kftmeta_task_fn fn, void *ctx)
{
	struct dirent *p;
	DIR *procs;
	int err = 0;

	if (!proc)
		proc = "/proc";
	procs = opendir(proc);
	if (!procs)
		return -errno;
	while (!err && (p = readdir(procs))) {
		if (!is_id(p->d_name) || (pid && atoi(p->d_name) != pid))
			continue;
		err = process_tasks(proc, p->d_name, fn, ctx);
	}
	closedir(procs);
	return err;
}

void kfit_kftmeta_task(FILE *f, __u32 pid, __u32 tid, __u32 ppid, const char *comm)
{
	fprintf(f, "%u\t%u\t%u\t", pid, tid, ppid);
	put_value(f, comm);
	fputc('\n', f);
}

void kfit_kftmeta_name(FILE *f, __u64 ts, __u32 pid, __u32 tid, const char *comm)
{
	fprintf(f, "%llu\t%u\t%u\t", (unsigned long long)ts, pid, tid);
	put_value(f, comm);
	fputc('\n', f);
}

int kfit_kftmeta_events(FILE *f, const struct kfit_tpglob *tps, const char *tracefs)
{
	char path[PATH_MAX];
	const char *tfs, *name;
	size_t len;
	char *text;
	int i, why;

	if (!tps->n)
		return 0;
	tfs = kfit_tracefs_events(tracefs, &why);
	if (!tfs)
		return -why;
	for (i = 0; i < tps->n; i++) {
		name = strchr(tps->tp[i].name, ':');
		if (!name)
			return -EINVAL;
		if (kfit_pathf(path, sizeof(path), "%s/events/%.*s/%s/format", tfs,
			       (int)(name - tps->tp[i].name), tps->tp[i].name, name + 1))
			return -ENAMETOOLONG;
		text = kfit_read_all(path, &len);
		if (!text)
			return -errno;
		fprintf(f, "event %d %s\n", i, tps->tp[i].name);
		fwrite(text, 1, len, f);
		if (len && text[len - 1] != '\n')
			fputc('\n', f);
		fputc('\n', f);
		free(text);
	}
	return ferror(f) ? -ENOMEM : 0;
}

/* ---- sampled addresses ----------------------------------------------- */

struct symslot {
	__u64 addr;
	__u32 pid;		/* 0 for kernel addresses */
	bool kernel, used;
	bool written;		/* in a SYMS text already */
	const char *name;	/* the symbolizer's */
};

struct kfit_kftmeta_symset {
	struct kfit_syms *syms;
	struct symslot *v;
	size_t mask, n;
	size_t nwritten;	/* slots written */
	int files_written;	/* files listed */
};

struct kfit_kftmeta_symset *kfit_kftmeta_symset_new(struct kfit_syms *syms)
{
	struct kfit_kftmeta_symset *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->syms = syms;
	return s;
}

void kfit_kftmeta_symset_free(struct kfit_kftmeta_symset *s)
{
	if (!s)
		return;
	free(s->v);
	free(s);
}

static size_t slot_hash(__u32 pid, __u64 addr, bool kernel)
{
	__u64 h = addr ^ ((__u64)pid << 32) ^ kernel;

	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

/* The slot of (pid, addr, kernel): its own, or the empty one it would take */
static struct symslot *slot(struct symslot *v, size_t mask, __u32 pid, __u64 addr,
			    bool kernel)
{
	size_t i;

	for (i = slot_hash(pid, addr, kernel) & mask; v[i].used; i = (i + 1) & mask)
		if (v[i].addr == addr && v[i].pid == pid && v[i].kernel == kernel)
			break;
	return &v[i];
}

static int grow(struct kfit_kftmeta_symset *s)
{
	size_t mask = s->v ? 2 * s->mask + 1 : 1023, i;
	struct symslot *v = calloc(mask + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (i = 0; s->v && i <= s->mask; i++)
		if (s->v[i].used)
			*slot(v, mask, s->v[i].pid, s->v[i].addr, s->v[i].kernel) = s->v[i];
	free(s->v);
	s->v = v;
	s->mask = mask;
	return 0;
}

int kfit_kftmeta_symset_add(struct kfit_kftmeta_symset *s, __u32 pid, __u64 addr, bool kernel)
{
	struct symslot *e;

	if (kernel)
		pid = 0;
	if ((!s->v || 2 * (s->n + 1) > s->mask + 1) && grow(s))
		return -ENOMEM;
	e = slot(s->v, s->mask, pid, addr, kernel);
	if (e->used)
		return 0;
	e->name = kfit_syms_name(s->syms, pid, addr, kernel);
	if (!e->name)
		return -ENOMEM;
	e->used = true;
	e->pid = pid;
	e->addr = addr;
	e->kernel = kernel;
	s->n++;
	return 0;
}

__u64 kfit_kftmeta_symset_count(const struct kfit_kftmeta_symset *s)
{
	return s->n;
}

__u64 kfit_kftmeta_symset_unwritten(const struct kfit_kftmeta_symset *s)
{
	return s->n - s->nwritten;
}

int kfit_kftmeta_symset_text(struct kfit_kftmeta_symset *s, FILE *f)
{
	char id[2 * KFIT_ELF_BUILD_ID_MAX + 1];
	const struct kfit_elf *e;
	size_t i;
	int k;

	for (k = s->files_written; k < kfit_syms_nfiles(s->syms); k++) {
		e = kfit_syms_file(s->syms, k);
		if (!e)
			continue;
		kfit_elf_build_id_hex(e, id, sizeof(id));
		fputs("file\t", f);
		put_value(f, e->path);
		fprintf(f, "\t%s\n", id[0] ? id : "-");
	}
	for (i = 0; s->v && i <= s->mask; i++) {
		if (!s->v[i].used || s->v[i].written)
			continue;
		fprintf(f, "%u\t%llx\t%c\t", s->v[i].pid, (unsigned long long)s->v[i].addr,
			s->v[i].kernel ? 'k' : 'u');
		put_value(f, s->v[i].name);
		fputc('\n', f);
	}
	if (ferror(f))
		return -ENOMEM;
	/* given to the writer once: a later text holds only what is new */
	for (i = 0; s->v && i <= s->mask; i++)
		s->v[i].written = s->v[i].used;
	s->nwritten = s->n;
	s->files_written = kfit_syms_nfiles(s->syms);
	return 0;
}

/* A label or enum name as a field: no tab, comma, '=' or line break in it */
static void arg_word(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(strchr("\t\n,=", *s) ? '_' : *s, f);
}

void kfit_kftmeta_args(FILE *f, __u32 id, const struct kfit_argfmt *a, int n)
{
	int i, k;

	for (i = 0; i < n && i < KFIT_ARGS_MAX; i++) {
		fprintf(f, "%u\t%d\t", id, i);
		arg_word(f, a[i].label);
		fprintf(f, "\t%x\t%u\t%s\t", a[i].kind, a[i].str,
			!a[i].present ? "absent" : a[i].is_bool ? "bool" : "-");
		if (!a[i].nenums)
			fputc('-', f);
		for (k = 0; k < a[i].nenums; k++) {
			fprintf(f, "%s%lld=", k ? "," : "", (long long)a[i].enums[k].val);
			arg_word(f, a[i].enums[k].name);
		}
		fputc('\n', f);
	}
}
