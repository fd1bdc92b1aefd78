// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel phase of a boot from dmesg (initcall_debug) or the tracefs
 * buffer (initcall events): see bootlog.h. Everything is read from text
 * in memory; nothing here touches the live system.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "bootlog.h"

/* Longer lines are no kernel's (a printk record is under 1 KiB, a kmsg one under 8) */
#define LINE_MAX_LEN	65536
#define NBUCKETS	4096
#define NONE		SIZE_MAX

/* The levels in the order the kernel runs them, with their kallsyms suffixes */
static const struct {
	const char *name, *suffix, *coarse;
} levels[] = {
	{ "console", "con", "console" },
	{ "early", "early", "early" },
	{ "pure", "0", "pure" },
	{ "pure_sync", "0s", "pure" },
	{ "core", "1", "core" },
	{ "core_sync", "1s", "core" },
	{ "postcore", "2", "postcore" },
	{ "postcore_sync", "2s", "postcore" },
	{ "arch", "3", "arch" },
	{ "arch_sync", "3s", "arch" },
	{ "subsys", "4", "subsys" },
	{ "subsys_sync", "4s", "subsys" },
	{ "fs", "5", "fs" },
	{ "fs_sync", "5s", "fs" },
	{ "rootfs", "rootfs", "fs" },
	{ "device", "6", "device" },
	{ "device_sync", "6s", "device" },
	{ "late", "7", "late" },
	{ "late_sync", "7s", "late" },
	{ "module", NULL, "module" },
};
#define NLEVELS (sizeof(levels) / sizeof(levels[0]))

static int level_idx(const char *name)
{
	size_t i;

	for (i = 0; i < NLEVELS; i++)
		if (!strcmp(levels[i].name, name))
			return i;
	return -1;
}

/* A module_load not yet followed by its initcall, per task ("" none) */
struct pendmod {
	int pid;
	size_t next;		/* in its bucket */
	char name[56];
};
#define PBUCKETS	1024

struct pctx {
	struct kfit_bootlog *bl;
	size_t cap;		/* of bl->calls and link */
	size_t *link;		/* per call: the next open call in its bucket */
	size_t bucket[NBUCKETS];	/* open calls by their function's hash */
	struct pendmod *pend;	/* one per task that loaded a module */
	size_t npend, cappend;
	size_t pbucket[PBUCKETS];
	char level[16];		/* the trace's current level */
	bool seen_ts;		/* first_ns is set */
	bool have_seq;
	__u64 last_seq;		/* of the last kmsg record */
	bool oom;
};

void kfit_bootlog_init(struct kfit_bootlog *bl)
{
	memset(bl, 0, sizeof(*bl));
}

void kfit_bootlog_free(struct kfit_bootlog *bl)
{
	free(bl->calls);
	free(bl->levels);
	kfit_bootlog_init(bl);
}

void kfit_bootlog_fill(struct kfit_bootlog *dst, const struct kfit_bootlog *src)
{
	struct kfit_bootlog_initcall *c;
	size_t i, j;

	if (!dst->init_ns && src->init_ns) {
		dst->init_ns = src->init_ns;
		memcpy(dst->init_path, src->init_path, sizeof(dst->init_path));
	}
	if (!dst->uname[0])
		memcpy(dst->uname, src->uname, sizeof(dst->uname));
	if (!dst->cmdline[0])
		memcpy(dst->cmdline, src->cmdline, sizeof(dst->cmdline));
	for (i = 0; i < dst->ncalls; i++) {
		c = &dst->calls[i];
		if (!c->addr || !c->module[0])
			continue;
		for (j = 0; j < src->ncalls; j++) {
			if (src->calls[j].addr || strcmp(src->calls[j].module, c->module))
				continue;
			memcpy(c->fn, src->calls[j].fn, sizeof(c->fn));
			break;
		}
	}
}

size_t kfit_bootlog_name_addr(struct kfit_bootlog *bl, __u64 addr, const char *fn)
{
	size_t i, n = 0;

	if (!addr || !fn[0])
		return 0;
	for (i = 0; i < bl->ncalls; i++) {
		if (bl->calls[i].addr != addr)
			continue;
		snprintf(bl->calls[i].fn, sizeof(bl->calls[i].fn), "%s", fn);
		n++;
	}
	return n;
}

const char *kfit_bootlog_src_name(enum kfit_bootlog_src s)
{
	switch (s) {
	case KFIT_BOOTLOG_DMESG:
		return "dmesg";
	case KFIT_BOOTLOG_TRACE:
		return "trace";
	default:
		return "none";
	}
}

/* strlcpy of at most n bytes of src */
static void copyn(char *dst, size_t size, const char *src, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static const char *skip_sp(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A decimal number at *s, *s moved past it: false if none or over max */
static bool get_u64(const char **s, __u64 max, __u64 *v)
{
	const char *p = *s;
	__u64 n = 0;

	if (!is_digit(*p))
		return false;
	for (; is_digit(*p); p++) {
		unsigned d = *p - '0';

		if (n > (max - d) / 10)
			return false;
		n = n * 10 + d;
	}
	*s = p;
	*v = n;
	return true;
}

static bool get_int(const char **s, int *v)
{
	const char *p = *s;
	bool neg = *p == '-';
	__u64 n;

	if (neg)
		p++;
	if (!get_u64(&p, neg ? (__u64)INT_MAX + 1 : INT_MAX, &n))
		return false;
	*v = neg ? (int)(-(long long)n) : (int)n;
	*s = p;
	return true;
}

/* "SECONDS.FRACTION" (1 to 9 digits of it) in ns, no floating point */
static bool get_secs(const char **s, __u64 *ns)
{
	const char *p = *s;
	__u64 sec, frac = 0;
	int digits = 0;

	if (!get_u64(&p, UINT64_MAX / 1000000000ULL - 1, &sec) || *p != '.')
		return false;
	for (p++; is_digit(*p); p++, digits++) {
		if (digits == 9)
			return false;
		frac = frac * 10 + (*p - '0');
	}
	if (!digits)
		return false;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	*s = p;
	return true;
}

/* A function as printed: "con_init+0x0/0x250", "0xffffffffc03a4000" */
static void set_fn(struct kfit_bootlog_initcall *c, const char *fn, size_t n)
{
	const char *plus = memchr(fn, '+', n);
	const char *p;
	__u64 a = 0;

	if (plus && plus > fn)
		n = plus - fn;
	copyn(c->fn, sizeof(c->fn), fn, n);
	if (n < 3 || fn[0] != '0' || fn[1] != 'x')
		return;
	for (p = fn + 2; p < fn + n; p++) {
		int d = is_digit(*p) ? *p - '0' :
			(*p >= 'a' && *p <= 'f') ? *p - 'a' + 10 : -1;

		if (d < 0 || a >> 60)
			return;
		a = a << 4 | d;
	}
	c->addr = a;
}

static size_t hash_fn(const char *s)
{
	size_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h % NBUCKETS;
}

static void note_ts(struct pctx *x, __u64 ts)
{
	struct kfit_bootlog *bl = x->bl;

	if (!x->seen_ts || ts < bl->first_ns)
		bl->first_ns = ts;
	x->seen_ts = true;
	if (ts > bl->last_ns)
		bl->last_ns = ts;
}

/* A new call at the end of calls[], open: NULL when out of memory */
static struct kfit_bootlog_initcall *add_call(struct pctx *x, int pid, const char *fn,
				      size_t fnlen, const char *mod, size_t modlen,
				      __u64 ts)
{
	struct kfit_bootlog *bl = x->bl;
	struct kfit_bootlog_initcall *c;
	size_t h;

	if (bl->ncalls == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 256;
		void *p = realloc(bl->calls, cap * sizeof(*bl->calls));

		if (!p)
			goto oom;
		bl->calls = p;
		p = realloc(x->link, cap * sizeof(*x->link));
		if (!p)
			goto oom;
		x->link = p;
		x->cap = cap;
	}
	c = &bl->calls[bl->ncalls];
	memset(c, 0, sizeof(*c));
	set_fn(c, fn, fnlen);
	copyn(c->module, sizeof(c->module), mod, modlen);
	if (modlen)
		strcpy(c->level, "module");
	c->pid = pid;
	c->start_ns = ts;
	h = hash_fn(c->fn);
	x->link[bl->ncalls] = x->bucket[h];
	x->bucket[h] = bl->ncalls;
	bl->ncalls++;
	return c;
oom:
	x->oom = true;
	return NULL;
}

/*
 * The open call of fn (and pid, unless pid < 0) started last, taken out
 * of the open ones: nested calls end inner first. NULL: none.
 */
static struct kfit_bootlog_initcall *close_call(struct pctx *x, int pid, const char *fn,
					size_t fnlen)
{
	struct kfit_bootlog_initcall key;
	size_t *pi, h;

	memset(&key, 0, sizeof(key));
	set_fn(&key, fn, fnlen);
	h = hash_fn(key.fn);
	for (pi = &x->bucket[h]; *pi != NONE; pi = &x->link[*pi]) {
		struct kfit_bootlog_initcall *c = &x->bl->calls[*pi];

		if (strcmp(c->fn, key.fn) || (pid >= 0 && c->pid != pid))
			continue;
		*pi = x->link[*pi];
		return c;
	}
	return NULL;
}

/* The task's entry, whether a module is pending or not; NULL none */
static struct pendmod *task_pend(struct pctx *x, int pid)
{
	size_t i;

	for (i = x->pbucket[pid % PBUCKETS]; i != NONE; i = x->pend[i].next)
		if (x->pend[i].pid == pid)
			return &x->pend[i];
	return NULL;
}

static struct pendmod *find_pend(struct pctx *x, int pid)
{
	struct pendmod *m = task_pend(x, pid);

	return m && m->name[0] ? m : NULL;
}

static void set_pend(struct pctx *x, int pid, const char *name, size_t n)
{
	struct pendmod *m = task_pend(x, pid);

	if (!m) {
		if (x->npend == x->cappend) {
			size_t cap = x->cappend ? x->cappend * 2 : 16;
			void *p = realloc(x->pend, cap * sizeof(*x->pend));

			if (!p) {
				x->oom = true;
				return;
			}
			x->pend = p;
			x->cappend = cap;
		}
		m = &x->pend[x->npend];
		m->pid = pid;
		m->next = x->pbucket[pid % PBUCKETS];
		x->pbucket[pid % PBUCKETS] = x->npend++;
	}
	copyn(m->name, sizeof(m->name), name, n);
}

static void drop_pend(struct pendmod *m)
{
	m->name[0] = '\0';
}

/* The length of the token at s (up to white space or the end) */
static size_t toklen(const char *s)
{
	return strcspn(s, " \t");
}

/* " [dummy]" after a function in dmesg: the name's start and length, or 0 */
static size_t get_module(const char **s, const char **name)
{
	const char *p = skip_sp(*s);
	const char *end;

	if (*p != '[')
		return 0;
	end = strchr(p, ']');
	if (!end || end == p + 1)
		return 0;
	*name = p + 1;
	*s = end + 1;
	return end - p - 1;
}

/* Forget everything read so far: a new boot begins in the record */
static void new_boot(struct pctx *x)
{
	struct kfit_bootlog *bl = x->bl;
	unsigned int boots = bl->boots;
	unsigned long garbled = bl->garbled;

	free(bl->calls);
	free(bl->levels);
	kfit_bootlog_init(bl);
	bl->src = KFIT_BOOTLOG_DMESG;
	bl->boots = boots;
	bl->garbled = garbled;
	x->cap = 0;
	memset(x->bucket, 0xff, sizeof(x->bucket));
	memset(x->pbucket, 0xff, sizeof(x->pbucket));
	x->npend = 0;
	x->seen_ts = false;
}

/* "calling  con_init+0x0/0x250 @ 0", "calling  fn+0x0/0x1000 [dummy] @ 124" */
static void dmesg_calling(struct pctx *x, const char *s, __u64 ts)
{
	const char *fn = skip_sp(s), *mod = "", *p;
	size_t fnlen = toklen(fn), modlen;
	int pid;

	if (!fnlen) {
		x->bl->garbled++;
		return;
	}
	/* async.c's "calling  12_fn @ 45" (a cookie, then the function) */
	if (is_digit(fn[0]) && fn[1] != 'x') {
		x->bl->not_initcalls++;
		return;
	}
	p = fn + fnlen;
	modlen = get_module(&p, &mod);
	p = skip_sp(p);
	if (*p != '@') {
		x->bl->garbled++;
		return;
	}
	p = skip_sp(p + 1);
	if (!get_int(&p, &pid) || pid < 0 || *skip_sp(p)) {
		x->bl->garbled++;
		return;
	}
	add_call(x, pid, fn, fnlen, mod, modlen, ts);
}

/* "initcall con_init+0x0/0x250 returned 0 after 0 usecs" */
static void dmesg_returned(struct pctx *x, const char *s, __u64 ts)
{
	const char *fn = skip_sp(s), *mod = "", *p;
	size_t fnlen = toklen(fn);
	struct kfit_bootlog_initcall *c;
	__u64 n;
	int ret;

	p = fn + fnlen;
	get_module(&p, &mod);
	p = skip_sp(p);
	if (!starts(p, "returned "))
		return;		/* "initcall fn blacklisted" and such */
	p = skip_sp(p + 9);
	if (!is_digit(*p) && *p != '-')
		return;		/* "returned with preemption imbalance" */
	if (!fnlen || !get_int(&p, &ret) || !starts(p, " after ")) {
		x->bl->garbled++;
		return;
	}
	p += 7;
	if (!get_u64(&p, UINT64_MAX / 1000000, &n) ||
	    (strcmp(p, " usecs") && strcmp(p, " msecs"))) {
		x->bl->garbled++;
		return;
	}
	if (is_digit(fn[0]) && fn[1] != 'x')
		return;		/* an async entry's */
	c = close_call(x, -1, fn, fnlen);
	if (!c) {
		x->bl->unmatched++;
		return;
	}
	c->end_ns = ts;
	c->dur_ns = n * (!strcmp(p, " msecs") ? 1000000 : 1000);
	c->ret = ret;
	c->finished = true;
}

/* "bootsum: boot clock N ns" */
static void marker(struct pctx *x, const char *s, __u64 ts)
{
	__u64 n;

	if (!get_u64(&s, UINT64_MAX, &n) || strcmp(s, " ns")) {
		x->bl->garbled++;
		return;
	}
	x->bl->has_marker = true;
	x->bl->marker_ns = ts;
	x->bl->marker_boot_ns = n;
}

/* One printk message at ts, whichever form it came in */
static void dmesg_msg(struct pctx *x, const char *msg, __u64 ts)
{
	struct kfit_bootlog *bl = x->bl;
	const char *p;

	if (starts(msg, "Linux version ")) {
		if (bl->boots || bl->ncalls)
			new_boot(x);
		bl->boots++;
		copyn(bl->uname, sizeof(bl->uname), msg, strlen(msg));
	}
	note_ts(x, ts);
	if (starts(msg, "calling ")) {
		dmesg_calling(x, msg + 8, ts);
	} else if (starts(msg, "initcall ")) {
		dmesg_returned(x, msg + 9, ts);
	} else if (strstr(msg, ": calling ")) {
		bl->not_initcalls++;	/* "pci 0000:00:00.0: calling  quirk_..." */
	} else if (starts(msg, "Command line: ") || starts(msg, "Kernel command line: ")) {
		p = strchr(msg, ':') + 2;
		if (!bl->cmdline[0])
			copyn(bl->cmdline, sizeof(bl->cmdline), p, strlen(p));
	} else if (starts(msg, "Run ") && !bl->init_path[0]) {
		p = strstr(msg, " as init process");
		if (p && p > msg + 4 && !p[16]) {
			copyn(bl->init_path, sizeof(bl->init_path), msg + 4, p - msg - 4);
			bl->init_ns = ts;
		}
	} else if (starts(msg, "bootsum: boot clock ")) {
		marker(x, msg + 20, ts);
	} else if (starts(msg, "Unstable clock detected, switching default tracing clock")) {
		bl->trace_clock_switch_ns = ts;
	}
}

/* "6,1,0,-;msg": /dev/kmsg's record, the 3rd field in microseconds */
static bool kmsg_record(struct pctx *x, const char *s, bool parse)
{
	const char *p = s;
	__u64 pri, seq, us;

	if (!get_u64(&p, UINT64_MAX, &pri) || *p++ != ',' ||
	    !get_u64(&p, UINT64_MAX, &seq) || *p++ != ',' ||
	    !get_u64(&p, UINT64_MAX / 1000, &us) || *p++ != ',')
		return false;
	p = strchr(p, ';');
	if (!p)
		return false;
	if (!parse)
		return true;
	if (x->have_seq && seq > x->last_seq + 1)
		x->bl->lost_msgs += seq - x->last_seq - 1;
	x->have_seq = true;
	x->last_seq = seq;
	dmesg_msg(x, p + 1, us * 1000);
	return true;
}

/*
 * The message of a dmesg line: "[    0.362561] msg", also after dmesg -x's
 * "kern  :info  : " or dmesg -r's "<6>", and journalctl -k -o
 * short-monotonic's "[    0.362561] host kernel: msg". NULL: not one.
 */
static const char *dmesg_line(const char *s, __u64 *ts, bool *bad)
{
	const char *p = s, *q;

	*bad = false;
	if (*p == '<') {
		for (q = p + 1; is_digit(*q); q++)
			;
		if (q > p + 1 && *q == '>')
			p = q + 1;
	} else if (*p >= 'a' && *p <= 'z') {
		/* dmesg -x: "kern  :info  : " */
		q = p + strspn(p, "abcdefghijklmnopqrstuvwxyz ");
		if (*q == ':') {
			q++;
			q += strspn(q, "abcdefghijklmnopqrstuvwxyz ");
			if (q[0] == ':' && q[1] == ' ')
				p = q + 2;
		}
	}
	if (*p != '[')
		return NULL;
	p = skip_sp(p + 1);
	if (!get_secs(&p, ts) || *p != ']') {
		*bad = true;
		return NULL;
	}
	p++;
	if (*p == ' ')
		p++;
	/* journalctl: "HOST kernel: " */
	q = p + strcspn(p, " ");
	if (q > p && starts(q, " kernel: "))
		p = q + 9;
	return p;
}

/* Words that make a line one of ours */
static bool looks_ours(const char *s)
{
	return strstr(s, "calling ") || strstr(s, "initcall") ||
	       strstr(s, "module_load") || strstr(s, "bootsum:");
}

static void parse_dmesg(struct pctx *x, const char *s)
{
	const char *msg;
	bool bad;
	__u64 ts;

	if (kmsg_record(x, s, true))
		return;
	msg = dmesg_line(s, &ts, &bad);
	if (msg) {
		dmesg_msg(x, msg, ts);
		return;
	}
	/* /dev/kmsg's " KEY=value" lines; journalctl's "-- Boot ... --" */
	if (bad || (*s != ' ' && *s != '-' && looks_ours(s)))
		x->bl->garbled++;
}

/*
 * A trace line: "  swapper/0-1  [000] .....  0.362165: initcall_level:
 * level=console" (the tgid column "(  123)" and the flags may be missing).
 * Sets pid, ts, the event's name and its fields. false: not one.
 */
static bool trace_line(const char *s, int *pid, __u64 *ts, const char **ev,
		       size_t *evlen, const char **body)
{
	const char *cpu, *p, *q, *dash;

	/* The CPU column: the first " [digits]" */
	for (cpu = strstr(s, " ["); cpu; cpu = strstr(cpu + 1, " [")) {
		p = cpu + 2;
		while (is_digit(*p))
			p++;
		if (p > cpu + 2 && *p == ']')
			break;
	}
	if (!cpu)
		return false;
	/* Back over the tgid column to "comm-pid" */
	q = cpu;
	while (q > s && q[-1] == ' ')
		q--;
	if (q > s && q[-1] == ')') {
		q = memrchr(s, '(', q - s);
		if (!q)
			return false;
		while (q > s && q[-1] == ' ')
			q--;
	}
	dash = memrchr(s, '-', q - s);
	if (!dash)
		return false;
	p = dash + 1;
	if (!get_int(&p, pid) || *pid < 0 || p != q)
		return false;
	/* The flags, if any, then the timestamp and ':' */
	p = skip_sp(strchr(cpu, ']') + 1);
	if (!is_digit(*p)) {
		p += toklen(p);
		p = skip_sp(p);
	}
	if (!get_secs(&p, ts) || *p != ':')
		return false;
	p = skip_sp(p + 1);
	q = strchr(p, ':');
	if (!q || q == p)
		return false;
	*ev = p;
	*evlen = q - p;
	*body = skip_sp(q + 1);
	return true;
}

static bool is_event(const char *ev, size_t n, const char *name)
{
	return n == strlen(name) && !memcmp(ev, name, n);
}

/* "func=con_init+0x0/0x250": the function's start and length */
static size_t get_func(const char *body, const char **fn)
{
	const char *p = strstr(body, "func=");

	if (!p)
		return 0;
	*fn = p + 5;
	return toklen(*fn);
}

static void first_event(struct kfit_bootlog *bl, const char *fn, size_t n, bool finish)
{
	struct kfit_bootlog_initcall c;

	if (bl->first_event_fn[0])
		return;
	memset(&c, 0, sizeof(c));
	set_fn(&c, fn, n);
	strcpy(bl->first_event_fn, c.fn);
	bl->first_event_finish = finish;
}

static void trace_start(struct pctx *x, int pid, __u64 ts, const char *body)
{
	struct kfit_bootlog_initcall *c;
	struct pendmod *m;
	const char *fn;
	size_t n = get_func(body, &fn);

	if (!n) {
		x->bl->garbled++;
		return;
	}
	first_event(x->bl, fn, n, false);
	/* A module's initcall runs in the task that loaded it, right after */
	m = find_pend(x, pid);
	c = add_call(x, pid, fn, n, m ? m->name : "", m ? strlen(m->name) : 0, ts);
	if (m)
		drop_pend(m);
	if (c && !c->module[0])
		strcpy(c->level, x->level);
}

static void trace_finish(struct pctx *x, int pid, __u64 ts, const char *body)
{
	struct kfit_bootlog_initcall *c;
	const char *fn, *p;
	size_t n = get_func(body, &fn);
	int ret;

	p = n ? strstr(fn + n, "ret=") : NULL;
	if (!p) {
		x->bl->garbled++;
		return;
	}
	p += 4;
	if (!get_int(&p, &ret)) {
		x->bl->garbled++;
		return;
	}
	first_event(x->bl, fn, n, true);
	c = close_call(x, pid, fn, n);
	if (!c) {
		x->bl->unmatched++;
		return;
	}
	c->end_ns = ts;
	c->dur_ns = ts > c->start_ns ? ts - c->start_ns : 0;
	c->ret = ret;
	c->finished = true;
}

/* "# entries-in-buffer/entries-written: 1501/1501   #P:2" */
static void trace_header(struct pctx *x, const char *s)
{
	const char *p = strstr(s, "entries-written:");
	__u64 a, b;

	if (!p)
		return;
	p = skip_sp(p + 16);
	if (!get_u64(&p, UINT64_MAX, &a) || *p++ != '/' || !get_u64(&p, UINT64_MAX, &b)) {
		x->bl->garbled++;
		return;
	}
	x->bl->entries_in_buffer = a;
	x->bl->entries_written = b;
}

/* "CPU:1 [LOST 123 EVENTS]" */
static bool trace_lost(struct pctx *x, const char *s)
{
	const char *p = strstr(s, "[LOST ");
	__u64 n;

	if (!starts(s, "CPU:") || !p)
		return false;
	p += 6;
	if (get_u64(&p, UINT64_MAX, &n) && x->bl->lost_events <= UINT64_MAX - n)
		x->bl->lost_events += n;
	else
		x->bl->garbled++;
	return true;
}

static void parse_trace(struct pctx *x, const char *s)
{
	struct kfit_bootlog *bl = x->bl;
	const char *ev, *body;
	size_t evlen;
	__u64 ts;
	int pid;

	if (*s == '#') {
		trace_header(x, s);
		return;
	}
	if (trace_lost(x, s))
		return;
	if (!trace_line(s, &pid, &ts, &ev, &evlen, &body)) {
		if (looks_ours(s))
			bl->garbled++;
		return;
	}
	bl->nevents++;
	note_ts(x, ts);
	if (is_event(ev, evlen, "initcall_level")) {
		const char *lv = strstr(body, "level=");

		if (!lv || !lv[6]) {
			bl->garbled++;
			return;
		}
		copyn(x->level, sizeof(x->level), lv + 6, toklen(lv + 6));
		if (!bl->first_level[0] && !bl->ncalls && !bl->unmatched)
			strcpy(bl->first_level, x->level);
	} else if (is_event(ev, evlen, "initcall_start")) {
		trace_start(x, pid, ts, body);
	} else if (is_event(ev, evlen, "initcall_finish")) {
		trace_finish(x, pid, ts, body);
	} else if (is_event(ev, evlen, "module_load")) {
		if (!toklen(body))
			bl->garbled++;
		else
			set_pend(x, pid, body, toklen(body));
	}
}

/* What form the line is in: a trace's, dmesg's, or neither */
static enum kfit_bootlog_src line_form(const char *s)
{
	const char *ev, *body;
	size_t evlen;
	bool bad;
	__u64 ts;
	int pid;

	if (kmsg_record(NULL, s, false) || dmesg_line(s, &ts, &bad))
		return KFIT_BOOTLOG_DMESG;
	if (starts(s, "# tracer:") || strstr(s, "entries-in-buffer/entries-written:"))
		return KFIT_BOOTLOG_TRACE;
	if (trace_line(s, &pid, &ts, &ev, &evlen, &body))
		return KFIT_BOOTLOG_TRACE;
	return KFIT_BOOTLOG_NONE;
}

/* Lines that say nothing in either form */
static bool is_blank(const char *s)
{
	return !*skip_sp(s) || *s == '#' || starts(s, "-- ");
}

/*
 * Calls the function for each line of text, as a C string: lines with a
 * NUL or too long for any kernel are counted garbled instead.
 */
static void each_line(struct pctx *x, const char *text, size_t len, char *buf,
		      void (*fn)(struct pctx *, const char *))
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = (nl ? nl : end) - p;

		while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (n > LINE_MAX_LEN || memchr(p, '\0', n)) {
			x->bl->garbled++;
		} else {
			memcpy(buf, p, n);
			buf[n] = '\0';
			fn(x, buf);
		}
		p = nl ? nl + 1 : end;
	}
}

/* The form of the first line that tells it; *first: the first line that did not */
static enum kfit_bootlog_src find_form(const char *text, size_t len, char *buf,
				   size_t *first)
{
	const char *p = text, *end = text + len;
	size_t line = 0;

	*first = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = (nl ? nl : end) - p;
		enum kfit_bootlog_src f = KFIT_BOOTLOG_NONE;

		line++;
		while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (n <= LINE_MAX_LEN && !memchr(p, '\0', n)) {
			memcpy(buf, p, n);
			buf[n] = '\0';
			f = line_form(buf);
			if (f == KFIT_BOOTLOG_NONE && is_blank(buf))
				goto next;
		}
		if (f != KFIT_BOOTLOG_NONE)
			return f;
		if (!*first)
			*first = line;
next:
		p = nl ? nl + 1 : end;
	}
	if (!*first)
		*first = line ? line : 1;
	return KFIT_BOOTLOG_NONE;
}

/* Calls in start order (a trace's lines may be a little out of it), stable */
static int cmp_start(const void *a, const void *b, void *calls)
{
	const struct kfit_bootlog_initcall *c = calls;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	__u64 x = c[i].start_ns, y = c[j].start_ns;

	if (x != y)
		return x < y ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int sort_calls(struct kfit_bootlog *bl)
{
	struct kfit_bootlog_initcall *v;
	size_t i, *idx;

	for (i = 1; i < bl->ncalls; i++)
		if (bl->calls[i].start_ns < bl->calls[i - 1].start_ns)
			break;
	if (i >= bl->ncalls)
		return 0;
	idx = malloc(bl->ncalls * sizeof(*idx));
	v = malloc(bl->ncalls * sizeof(*v));
	if (!idx || !v) {
		free(idx);
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < bl->ncalls; i++)
		idx[i] = i;
	qsort_r(idx, bl->ncalls, sizeof(*idx), cmp_start, bl->calls);
	for (i = 0; i < bl->ncalls; i++)
		v[i] = bl->calls[idx[i]];
	free(bl->calls);
	bl->calls = v;
	free(idx);
	return 0;
}

static size_t count_unfinished(const struct kfit_bootlog *bl, const char **fn)
{
	size_t i, n = 0;

	*fn = NULL;
	for (i = 0; i < bl->ncalls; i++) {
		if (bl->calls[i].finished)
			continue;
		if (!n)
			*fn = bl->calls[i].fn;
		n++;
	}
	return n;
}

/* Adds "; " and a reason to why */
static void why_add(struct kfit_bootlog *bl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void why_add(struct kfit_bootlog *bl, const char *fmt, ...)
{
	size_t n = strlen(bl->why);
	va_list ap;

	if (n && n + 2 < sizeof(bl->why)) {
		strcpy(bl->why + n, "; ");
		n += 2;
	}
	if (n + 1 >= sizeof(bl->why))
		return;
	va_start(ap, fmt);
	vsnprintf(bl->why + n, sizeof(bl->why) - n, fmt, ap);
	va_end(ap);
}

/* The level the record starts at, "" unknown */
static const char *start_level(const struct kfit_bootlog *bl)
{
	if (bl->first_level[0])
		return bl->first_level;
	return bl->ncalls ? bl->calls[0].level : "";
}

/* The trace begins with late_trace_init's end: the buffer was emptied in it */
static bool cleared_by_clock(const struct kfit_bootlog *bl)
{
	return bl->src == KFIT_BOOTLOG_TRACE && bl->first_event_finish &&
	       !strcmp(bl->first_event_fn, "late_trace_init");
}

static void judge_trace(struct kfit_bootlog *bl)
{
	const char *lv = start_level(bl);
	unsigned long events = bl->entries_in_buffer ? bl->entries_in_buffer : bl->nevents;

	if (!bl->ncalls && !bl->unmatched) {
		why_add(bl, "no initcall events in the trace: boot with trace_event=initcall:*,module:module_load");
		return;
	}
	if (bl->entries_written > bl->entries_in_buffer)
		why_add(bl, "the trace buffer overflowed: lost the oldest %llu of %llu events (boot with trace_buf_size=8M)",
			(unsigned long long)(bl->entries_written - bl->entries_in_buffer),
			(unsigned long long)bl->entries_written);
	if (bl->lost_events)
		why_add(bl, "the trace lost %llu event%s", (unsigned long long)bl->lost_events,
			bl->lost_events == 1 ? "" : "s");
	if (!strcmp(lv, "module"))
		why_add(bl, "the trace holds module initcalls only (%zu): the boot's built-in initcalls are not in it",
			bl->ncalls);
	else if (cleared_by_clock(bl))
		/* 6.1 in a VM: tracing_set_default_clock() resets the buffer */
		why_add(bl, "the trace buffer starts at level %s (%lu events): late_trace_init emptied it switching the trace clock to \"global\" (boot with trace_clock=global); dmesg with initcall_debug has the earlier initcalls",
			lv[0] ? lv : "late_sync", events);
	else if (lv[0] && strcmp(lv, "console"))
		why_add(bl, "the trace buffer starts at level %s (%lu events): earlier initcalls ran before the events were live; dmesg with initcall_debug has them",
			lv, events);
	else if (!lv[0] && bl->ncalls)
		why_add(bl, "the trace starts at %s at %llu.%06llu s, level unknown (%lu events): earlier initcalls may be missing; kallsyms names the level",
			bl->calls[0].fn, (unsigned long long)(bl->calls[0].start_ns / 1000000000),
			(unsigned long long)(bl->calls[0].start_ns % 1000000000 / 1000), events);
}

static void judge_dmesg(struct kfit_bootlog *bl)
{
	bl->log_start_lost = !bl->uname[0];
	if (bl->log_start_lost)
		why_add(bl, "the log lost its beginning (no \"Linux version\" line): boot with log_buf_len=8M or read it sooner");
	if (!bl->ncalls && !bl->unmatched)
		why_add(bl, "no initcall lines: boot with initcall_debug");
	if (bl->lost_msgs)
		why_add(bl, "%llu kmsg records lost (sequence numbers missing)",
			(unsigned long long)bl->lost_msgs);
}

/* complete and why, from what the record holds */
static void judge(struct kfit_bootlog *bl)
{
	const char *fn;
	size_t unfinished = count_unfinished(bl, &fn);
	size_t unstarted = bl->unmatched > unfinished ? bl->unmatched - unfinished : 0;

	/* late_trace_init's own end: said with the cause */
	if (unstarted && cleared_by_clock(bl))
		unstarted--;

	bl->why[0] = '\0';
	if (bl->src == KFIT_BOOTLOG_TRACE)
		judge_trace(bl);
	else
		judge_dmesg(bl);
	if (unstarted)
		why_add(bl, "%zu initcall ends without their start", unstarted);
	if (unfinished)
		why_add(bl, "%zu initcall%s without their end (first: %s)", unfinished,
			unfinished == 1 ? "" : "s", fn);
	bl->complete = !bl->why[0];
	if (bl->complete && bl->src == KFIT_BOOTLOG_TRACE)
		why_add(bl, "the trace: %zu initcalls from level %s on", bl->ncalls,
			start_level(bl));
	else if (bl->complete)
		why_add(bl, "dmesg with initcall_debug from the kernel's start: %zu initcalls",
			bl->ncalls);
}

int kfit_bootlog_parse(struct kfit_bootlog *bl, const char *text, size_t len,
		       char *err, size_t errlen)
{
	struct pctx *x;
	size_t first;
	char *buf;
	int rc = 0;

	kfit_bootlog_free(bl);
	if (err && errlen)
		err[0] = '\0';
	x = calloc(1, sizeof(*x));
	buf = malloc(LINE_MAX_LEN + 1);
	if (!x || !buf) {
		rc = -ENOMEM;
		goto out;
	}
	x->bl = bl;
	memset(x->bucket, 0xff, sizeof(x->bucket));
	memset(x->pbucket, 0xff, sizeof(x->pbucket));
	bl->src = find_form(text ? text : "", text ? len : 0, buf, &first);
	if (bl->src == KFIT_BOOTLOG_NONE) {
		if (err && errlen)
			snprintf(err, errlen, "line %zu: not dmesg or tracefs text", first);
		rc = -EINVAL;
		goto out;
	}
	each_line(x, text, len, buf,
		  bl->src == KFIT_BOOTLOG_TRACE ? parse_trace : parse_dmesg);
	if (x->oom) {
		rc = -ENOMEM;
		goto out;
	}
	/* Still open: started, never finished in the record */
	bl->unmatched += count_unfinished(bl, &(const char *){ NULL });
	if (sort_calls(bl)) {
		rc = -ENOMEM;
		goto out;
	}
	kfit_bootlog_sum_levels(bl);
	if (!bl->levels && bl->ncalls)
		rc = -ENOMEM;
out:
	if (rc == -ENOMEM) {
		kfit_bootlog_free(bl);
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
	}
	if (x)
		free(x->link);
	if (x)
		free(x->pend);
	free(x);
	free(buf);
	return rc;
}

/* The order a level sorts in: the kernel's, then unknown names */
static int level_order(const char *name)
{
	int i = level_idx(name);

	return i < 0 ? (int)NLEVELS : i;
}

static int cmp_level(const void *a, const void *b)
{
	const struct kfit_bootlog_initlevel *x = a, *y = b;
	int i = level_order(x->name), j = level_order(y->name);

	if (i != j)
		return i - j;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

#define LBUCKETS	1024

/* The level named so, added when new: its index in lv */
static size_t level_slot(struct kfit_bootlog_initlevel *lv, size_t *n, size_t *next,
			 size_t *bucket, const char *name, __u64 start)
{
	size_t h = 5381, i;
	const char *p;

	for (p = name; *p; p++)
		h = h * 33 + (unsigned char)*p;
	h %= LBUCKETS;
	for (i = bucket[h]; i != NONE; i = next[i])
		if (!strcmp(lv[i].name, name))
			return i;
	i = (*n)++;
	strcpy(lv[i].name, name);
	lv[i].start_ns = start;
	next[i] = bucket[h];
	bucket[h] = i;
	return i;
}

void kfit_bootlog_sum_levels(struct kfit_bootlog *bl)
{
	size_t bucket[LBUCKETS], *next, i, n = 0;
	struct kfit_bootlog_initlevel *lv;

	free(bl->levels);
	bl->levels = NULL;
	bl->nlevels = 0;
	lv = calloc(bl->ncalls ? bl->ncalls : 1, sizeof(*lv));
	next = malloc((bl->ncalls ? bl->ncalls : 1) * sizeof(*next));
	if (!lv || !next) {
		free(lv);
		free(next);
		return;
	}
	memset(bucket, 0xff, sizeof(bucket));
	for (i = 0; i < bl->ncalls; i++) {
		const struct kfit_bootlog_initcall *c = &bl->calls[i];
		__u64 end = c->finished ? c->end_ns : c->start_ns;
		struct kfit_bootlog_initlevel *l;

		if (!c->level[0])
			continue;
		l = &lv[level_slot(lv, &n, next, bucket, c->level, c->start_ns)];
		if (c->start_ns < l->start_ns)
			l->start_ns = c->start_ns;
		if (end > l->end_ns)
			l->end_ns = end;
		if (l->sum_ns <= UINT64_MAX - c->dur_ns)
			l->sum_ns += c->dur_ns;
		l->n++;
	}
	free(next);
	/* Boot order: the kernel's level order, unknown names by first start */
	qsort(lv, n, sizeof(*lv), cmp_level);
	bl->levels = lv;
	bl->nlevels = n;
	judge(bl);
}

/* One __initcall symbol: its function and level */
struct isym {
	char fn[64];
	int level;
};

/* The level of "fn" + suffix in name (n bytes): its index, *fnlen; -1 none */
static int split_suffix(const char *name, size_t n, size_t *fnlen)
{
	size_t i;

	for (i = 0; i < NLEVELS; i++) {
		const char *suf = levels[i].suffix;
		size_t k = suf ? strlen(suf) : 0;

		if (!suf || n <= k || memcmp(name + n - k, suf, k))
			continue;
		/* "...7s" is late_sync, not "...7" + "s" */
		if (k == 1 && is_digit(suf[0]) && n >= 2 && name[n - 1] == 's')
			continue;
		*fnlen = n - k;
		return i;
	}
	return -1;
}

/*
 * "__initcall__kmod_MOD__ID_LINE_FNSUFFIX" (5.14 on) or
 * "__initcall_FNSUFFIX": the function and level, false if not one.
 */
static bool initcall_sym(const char *name, size_t n, struct isym *s)
{
	const char *p, *end = name + n;
	size_t fnlen;

	if (n > 17 && !memcmp(name, "__initcall__kmod_", 17)) {
		for (p = name + 17; (p = memmem(p, end - p, "__", 2)); p++) {
			const char *q = p + 2;

			while (q < end && is_digit(*q))
				q++;
			if (q == p + 2 || q >= end || *q++ != '_')
				continue;
			if (q >= end || !is_digit(*q))
				continue;
			while (q < end && is_digit(*q))
				q++;
			if (q < end && *q == '_') {
				p = q + 1;
				break;
			}
		}
		if (!p)
			return false;
	} else if (n > 11 && !memcmp(name, "__initcall_", 11)) {
		p = name + 11;
	} else {
		return false;
	}
	s->level = split_suffix(p, end - p, &fnlen);
	if (s->level < 0 || !fnlen)
		return false;
	copyn(s->fn, sizeof(s->fn), p, fnlen);
	return true;
}

static int cmp_isym(const void *a, const void *b)
{
	const struct isym *x = a, *y = b;
	int c = strcmp(x->fn, y->fn);

	return c ? c : x->level - y->level;
}

static struct isym *read_isyms(const char *text, size_t len, size_t *np)
{
	const char *p = text, *end = text + len;
	struct isym *v = NULL;
	size_t n = 0, cap = 0;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *le = nl ? nl : end, *name, *ne;
		struct isym s;

		/* "ADDR TYPE NAME[\t[MODULE]]" */
		name = memchr(p, ' ', le - p);
		name = name ? memchr(name + 1, ' ', le - name - 1) : NULL;
		p = nl ? nl + 1 : NULL;
		if (!name)
			continue;
		name++;
		for (ne = name; ne < le && *ne != '\t' && *ne != ' ' && *ne != '\r'; ne++)
			;
		if (!initcall_sym(name, ne - name, &s))
			continue;
		if (n == cap) {
			size_t c = cap ? cap * 2 : 512;
			void *t = realloc(v, c * sizeof(*v));

			if (!t) {
				free(v);
				return NULL;
			}
			v = t;
			cap = c;
		}
		v[n++] = s;
	}
	*np = n;
	return v;
}

/* Whether kallsyms' level idx may name call c: unnamed, or finer than it */
static bool may_name(const struct kfit_bootlog_initcall *c, int idx)
{
	if (c->module[0] || c->addr)
		return false;
	if (!c->level[0])
		return true;
	return strcmp(c->level, levels[idx].name) &&
	       !strcmp(c->level, levels[idx].coarse);
}

size_t kfit_bootlog_levels_from_kallsyms(struct kfit_bootlog *bl, const char *text, size_t len)
{
	struct isym *v, key;
	size_t n = 0, named = 0, i, j;
	int cursor = 0;

	if (!text || !len)
		return 0;
	v = read_isyms(text, len, &n);
	if (!v)
		return 0;
	qsort(v, n, sizeof(*v), cmp_isym);
	/* One per name and level: at most a level's count of candidates each */
	for (i = j = 0; i < n; i++)
		if (!j || cmp_isym(&v[j - 1], &v[i]))
			v[j++] = v[i];
	n = j;
	for (i = 0; i < bl->ncalls; i++) {
		struct kfit_bootlog_initcall *c = &bl->calls[i];
		struct isym *lo, *hi, *best = NULL;

		if (c->module[0] || c->addr)
			continue;
		memset(&key, 0, sizeof(key));
		strcpy(key.fn, c->fn);
		key.level = -1;
		/* The first of fn's symbols, then the others of that name */
		lo = v;
		hi = v + n;
		while (lo < hi) {
			struct isym *m = lo + (hi - lo) / 2;

			if (cmp_isym(m, &key) < 0)
				lo = m + 1;
			else
				hi = m;
		}
		/*
		 * A name twice (static functions): the first at or after the
		 * level reached (they run in level order), else the last
		 */
		for (hi = lo; hi < v + n && !strcmp(hi->fn, c->fn); hi++) {
			best = hi;
			if (hi->level >= cursor)
				break;
		}
		if (!best)
			continue;
		if (best->level > cursor)
			cursor = best->level;
		if (!may_name(c, best->level))
			continue;
		strcpy(c->level, levels[best->level].name);
		named++;
	}
	free(v);
	kfit_bootlog_sum_levels(bl);
	return named;
}

/* Initcalls of modules, by the module field */
static size_t count_mod(const struct kfit_bootlog *bl)
{
	size_t i, n = 0;

	for (i = 0; i < bl->ncalls; i++)
		n += bl->calls[i].module[0] != '\0';
	return n;
}

static bool has_calls(const struct kfit_bootlog *bl)
{
	return bl && bl->src != KFIT_BOOTLOG_NONE && (bl->ncalls || bl->unmatched);
}

static void note_f(char *note, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Appends to note */
static void note_f(char *note, size_t len, const char *fmt, ...)
{
	size_t n = strlen(note);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(note + n, len - n, fmt, ap);
	va_end(ap);
}

/* How the two records' counts differ, and why */
static void compare(const struct kfit_bootlog *d, const struct kfit_bootlog *t,
		    char *note, size_t len)
{
	size_t dm = count_mod(d), tm = count_mod(t);
	size_t db = d->ncalls - dm, tb = t->ncalls - tm;

	note_f(note, len, "; dmesg: %zu initcalls (%zu built in, %zu of modules), the trace: %zu (%zu built in, %zu of modules)",
	       d->ncalls, db, dm, t->ncalls, tb, tm);
	if (d->not_initcalls)
		note_f(note, len, "; dmesg's %lu other \"calling\" lines are PCI fixups (or async entries), not initcalls",
		       d->not_initcalls);
	if (tm > dm)
		note_f(note, len, "; the trace has %zu module initcalls more (loaded after dmesg was read)",
		       tm - dm);
	else if (dm > tm)
		note_f(note, len, "; dmesg has %zu module initcalls more (loaded after the trace was read)",
		       dm - tm);
}

const struct kfit_bootlog *kfit_bootlog_pick(const struct kfit_bootlog *dmesg,
					     const struct kfit_bootlog *trace,
					     char *note, size_t notelen)
{
	bool hd = has_calls(dmesg), ht = has_calls(trace);
	const struct kfit_bootlog *p;

	if (!note || !notelen) {
		static char none[1];

		note = none;
		notelen = 1;
	}
	note[0] = '\0';
	if (!hd && !ht) {
		p = dmesg && dmesg->src != KFIT_BOOTLOG_NONE ? dmesg :
		    trace && trace->src != KFIT_BOOTLOG_NONE ? trace : NULL;
		note_f(note, notelen, "no initcalls recorded: boot with initcall_debug (dmesg) or trace_event=initcall:*,module:module_load (trace)");
		return p;
	}
	if (!hd || !ht) {
		p = hd ? dmesg : trace;
		note_f(note, notelen, "%s", p->why);
		note_f(note, notelen, "; %s", hd ? "no trace with initcall events" :
		       "no dmesg with initcall_debug");
		return p;
	}
	if (trace->complete || !dmesg->complete) {
		/* Neither complete: the one with more of the boot */
		p = trace->complete || trace->ncalls >= dmesg->ncalls ? trace : dmesg;
	} else {
		p = dmesg;
	}
	if (p == dmesg)
		note_f(note, notelen, "%s; dmesg (initcall_debug) has %s%zu",
		       trace->why, dmesg->complete ? "all " : "", dmesg->ncalls);
	if (dmesg->trace_clock_switch_ns)
		note_f(note, notelen, " (dmesg: trace clock switched to \"global\" at %llu.%06llu s)",
		       (unsigned long long)(dmesg->trace_clock_switch_ns / 1000000000),
		       (unsigned long long)(dmesg->trace_clock_switch_ns % 1000000000 / 1000));
	else
		note_f(note, notelen, "%s%s%s", trace->why,
		       dmesg->complete ? "" : "; dmesg: ", dmesg->complete ? "" : dmesg->why);
	compare(dmesg, trace, note, notelen);
	return p;
}
