// SPDX-License-Identifier: GPL-2.0
/*
 * Command line: the flags every tool shares, plus the tool's own.
 *
 * A tool's own options have a letter as key, or a key in 256..0xfff for
 * long-only ones; 0x1000 and up are the common long-only options.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "duration.h"
#include "fileio.h"
#include "opts.h"

#define TOOL_KEY_MIN	256
#define TOOL_KEY_MAX	0xfff

enum {
	KEY_COMM = 0x1000,
	KEY_COUNT,
	KEY_MIN,
	KEY_MAX,
	KEY_ATTACH,
	KEY_NO_DENY,
	KEY_UPROBE_LIMIT,
	KEY_FORCE,
	KEY_NO_UFILTER,
	KEY_OUTPUT,
	KEY_SERVE,
	KEY_RAW_TP,
};

struct common_opt {
	unsigned int flag;	/* KFIT_OPT_*; 0: every tool has it */
	struct kfit_opt opt;
	const char *recorded;	/* the help of a tool reading recordings (kd) */
};

static const struct common_opt common_opts[] = {
	{ KFIT_OPT_PID, { "pid", 'p', "PID", "trace only process PID" },
	  "only the records of process PID" },
	{ KFIT_OPT_TID, { "tid", 't', "TID", "trace only thread TID" },
	  "only the records of thread TID" },
	{ KFIT_OPT_COMM, { "comm", KEY_COMM, "NAME",
			   "trace only threads named NAME" },
	  "only the records of threads named NAME then" },
	{ KFIT_OPT_CPU, { "cpu", 'C', "LIST",
			  "trace only these CPUs, e.g. 0-3,6" }, NULL },
	{ KFIT_OPT_DURATION, { "duration", 'd', "DUR",
			       "stop after DUR, e.g. 10s (default unit: s)" }, NULL },
	{ KFIT_OPT_INTERVAL, { "interval", 'i', "DUR",
			       "report every DUR (default unit: s)" }, NULL },
	{ KFIT_OPT_INTERVAL, { "count", KEY_COUNT, "N",
			       "stop after N reports (with -i)" }, NULL },
	{ KFIT_OPT_JSON, { "json", 'j', NULL, "print JSON" }, NULL },
	{ KFIT_OPT_TIMESTAMP, { "timestamp", 'T', NULL,
				"print the time with each report" }, NULL },
	{ KFIT_OPT_MINMAX | KFIT_OPT_MIN, { "min", KEY_MIN, "DUR",
			     "ignore events shorter than DUR, e.g. 10us" },
	  "sampled: hide frames sampled for less than DUR" },
	{ KFIT_OPT_MINMAX, { "max", KEY_MAX, "DUR",
			     "ignore events longer than DUR" }, NULL },
	{ KFIT_OPT_ATTACH, { "kprobes", 'k', NULL,
			     "kernel functions through kprobes (kprobe_multi where the kernel has it)" }, NULL },
	{ KFIT_OPT_ATTACH, { "attach", KEY_ATTACH, "MECH",
			     "auto, fentry, kprobe, {k,u}probe-single or -multi" }, NULL },
	{ KFIT_OPT_ATTACH, { "no-deny", KEY_NO_DENY, NULL,
			     "also trace the functions denied by default (man kfit-funcdur)" }, NULL },
	{ KFIT_OPT_ATTACH, { "uprobe-limit", KEY_UPROBE_LIMIT, "N",
			     "at most N uprobes on a binary other processes run (1000)" }, NULL },
	{ KFIT_OPT_ATTACH, { "force", KEY_FORCE, NULL,
			     "attach more uprobes than that all the same" }, NULL },
	{ KFIT_OPT_ATTACH, { "no-uprobe-filter", KEY_NO_UFILTER, NULL,
			     "children from their fork: uprobes in every process" }, NULL },
	{ KFIT_OPT_SERVE, { "serve", KEY_SERVE, "[ADDR:]PORT",
			    "run as an exporter: Prometheus metrics on http://ADDR:PORT/metrics "
			    "(ADDR: every address), the report at the end" }, NULL },
	{ KFIT_OPT_RAW_TP, { "raw-tp", KEY_RAW_TP, NULL,
			     "raw tracepoints, without trying tp_btf (what kernels without it get)" },
	  NULL },
	{ 0, { "output", KEY_OUTPUT, "FILE",
	       "write the report into FILE" },
	  NULL },
	{ 0, { "verbose", 'v', NULL, "more messages; twice: libbpf's debug" },
	  "more messages" },
	{ 0, { "help", 'h', NULL, "show this help and exit" }, NULL },
	{ 0, { "version", 'V', NULL, "show the version and exit" }, NULL },
};

#define NCOMMON (int)(sizeof(common_opts) / sizeof(common_opts[0]))

static const char *const amech_names[] = {
	[KFIT_AM_AUTO] = "auto",
	[KFIT_AM_FENTRY] = "fentry",
	[KFIT_AM_KPROBE] = "kprobe",
	[KFIT_AM_KPROBE_SINGLE] = "kprobe-single",
	[KFIT_AM_KPROBE_MULTI] = "kprobe-multi",
};

#define NAMECH (int)(sizeof(amech_names) / sizeof(amech_names[0]))

const char *kfit_amech_name(enum kfit_amech m)
{
	return (int)m < NAMECH ? amech_names[m] : "?";
}

static int parse_attach(const struct kfit_tool *t, const char *arg,
			struct kfit_common *c)
{
	enum kfit_amech *m = &c->attach;
	int i;

	if (!strcmp(arg, "uprobe-single") || !strcmp(arg, "uprobe-multi")) {
		c->uattach = arg[7] == 's' ? KFIT_UM_SINGLE : KFIT_UM_MULTI;
		return 0;
	}
	for (i = 0; i < NAMECH; i++) {
		if (!strcmp(arg, amech_names[i])) {
			*m = i;
			return 0;
		}
	}
	fprintf(stderr, "%s: invalid mechanism '%s' for --attach: use auto, fentry, "
		"kprobe, kprobe-single, kprobe-multi, uprobe-single or uprobe-multi\n",
		t->name, arg);
	return -1;
}

static bool accepts(const struct kfit_tool *t, const struct common_opt *co)
{
	return !co->flag || (t->common & co->flag);
}

static bool is_common_key(int key)
{
	int i;

	for (i = 0; i < NCOMMON; i++)
		if (common_opts[i].opt.key == key)
			return true;
	return false;
}

static bool valid_tool_key(int key)
{
	if (key >= TOOL_KEY_MIN && key <= TOOL_KEY_MAX)
		return true;
	/* getopt needs letters or digits; ':' or '?' would mean errors */
	return key > 0 && key < 128 && isalnum(key) &&
	       !strchr(KFIT_RESERVED_LETTERS, key);
}

static bool is_common_name(const char *name)
{
	int i;

	for (i = 0; i < NCOMMON; i++)
		if (!strcmp(common_opts[i].opt.name, name))
			return true;
	return false;
}

/* The tool's i-th own option, its group's after them; NULL past the last */
static const struct kfit_opt *nth_opt(const struct kfit_tool *t, int i)
{
	const struct kfit_opt *o;

	for (o = t->opts; o && o->name; o++)
		if (!i--)
			return o;
	for (o = t->group ? t->group->opts : NULL; o && o->name; o++)
		if (!i--)
			return o;
	return NULL;
}

static bool in_group(const struct kfit_tool *t, int key)
{
	const struct kfit_opt *o;

	for (o = t->group ? t->group->opts : NULL; o && o->name; o++)
		if (o->key == key)
			return true;
	return false;
}

int kfit_opts_check(const struct kfit_tool *t)
{
	const struct kfit_opt *o, *p;
	int i, j;

	for (i = 0; (o = nth_opt(t, i)); i++) {
		if (!*o->name || !valid_tool_key(o->key) ||
		    is_common_name(o->name))
			return -1;
		for (j = 0; j < i; j++) {
			p = nth_opt(t, j);
			if (p->key == o->key || !strcmp(p->name, o->name))
				return -1;
		}
	}
	return 0;
}

static void usage_hint(const struct kfit_tool *t)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", t->name);
}

/* "  -p, --pid PID" or "      --comm NAME" */
static int opt_label(char *buf, size_t len, const struct kfit_opt *o)
{
	char letter[8] = "    ";

	if (o->key < TOOL_KEY_MIN)
		snprintf(letter, sizeof(letter), "-%c, ", o->key);
	return snprintf(buf, len, "  %s--%s%s%s", letter, o->name,
			o->arg ? " " : "", o->arg ? o->arg : "");
}

/* --help fits a terminal of this many columns */
#define HELP_COLS	80

/*
 * TEXT from column COL on, its spaces kept but where a word would pass
 * HELP_COLS: there a new line, at INDENT; ends the line
 */
static void print_wrapped(FILE *f, const char *text, int col, int indent)
{
	const char *w = text;
	int gap, n;

	w += strspn(w, " ");
	while (*w) {
		n = strcspn(w, " ");
		fwrite(w, 1, n, f);
		col += n;
		w += n;
		gap = strspn(w, " ");
		w += gap;
		if (!*w)
			break;
		/* a comment moves to the next line whole, where it fits there */
		n = *w == '#' && (int)strlen(w) <= HELP_COLS - indent ? (int)strlen(w) :
		    (int)strcspn(w, " ");
		if (col + gap + n > HELP_COLS) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else {
			fprintf(f, "%*s", gap, "");
			col += gap;
		}
	}
	fputc('\n', f);
}

/*
 * Each line of TEXT after PREFIX, wrapped: prose (no PREFIX, no indent)
 * at column 0, a command line (a synopsis, an example) 4 further in
 */
static void print_lines(FILE *f, const char *prefix, const char *s)
{
	const char *nl;
	char line[512];
	int lead, len;

	while (*s) {
		nl = strchrnul(s, '\n');
		len = nl - s < (int)sizeof(line) - 1 ? nl - s : (int)sizeof(line) - 1;
		memcpy(line, s, len);
		line[len] = '\0';
		lead = strspn(line, " ");
		fprintf(f, "%s%.*s", prefix, lead, line);
		if (lead == len)
			fputc('\n', f);
		else
			print_wrapped(f, line + lead, strlen(prefix) + lead,
				      strlen(prefix) + lead + (lead || *prefix ? 4 : 0));
		s = *nl ? nl + 1 : nl;
	}
}

static void print_opt(FILE *f, const struct kfit_opt *o, int width)
{
	char buf[128];

	opt_label(buf, sizeof(buf), o);
	fprintf(f, "%-*s  ", width, buf);
	print_wrapped(f, o->help ? o->help : "", width + 2, width + 2);
}

/* Each example line, indented */
static void print_examples(FILE *f, const char *s)
{
	fprintf(f, "\nExamples:\n");
	print_lines(f, "  ", s);
}

void kfit_opts_usage(const struct kfit_tool *t, FILE *f)
{
	const struct kfit_opt *o;
	char buf[128];
	int i, n, width = 0;

	for (i = 0; (o = nth_opt(t, i)); i++) {
		n = opt_label(buf, sizeof(buf), o);
		width = n > width ? n : width;
	}
	for (i = 0; i < NCOMMON; i++) {
		if (!accepts(t, &common_opts[i]))
			continue;
		n = opt_label(buf, sizeof(buf), &common_opts[i].opt);
		width = n > width ? n : width;
	}
	fprintf(f, "Usage: %s %s\n", t->name,
		t->synopsis ? t->synopsis : "[OPTIONS]");
	if (t->summary)
		print_lines(f, "", t->summary);
	fprintf(f, "\nOptions:\n");
	for (o = t->opts; o && o->name; o++)
		print_opt(f, o, width);
	for (i = 0; i < NCOMMON; i++) {
		struct kfit_opt c = common_opts[i].opt;

		if (!accepts(t, &common_opts[i]))
			continue;
		if (t->recorded_ids && common_opts[i].recorded)
			c.help = common_opts[i].recorded;
		print_opt(f, &c, width);
	}
	if (t->group) {
		fprintf(f, "\n%s:\n", t->group->title);
		for (o = t->group->opts; o && o->name; o++)
			print_opt(f, o, width);
	}
	if (t->examples && *t->examples)
		print_examples(f, t->examples);
}

/* The getopt_long tables for this tool: its options and the common ones it accepts */
static int build_getopt(const struct kfit_tool *t, struct option **lopts,
			char **sopts)
{
	const struct kfit_opt *o;
	struct option *lo;
	int i, n = NCOMMON + 1;
	char *so;

	for (i = 0; nth_opt(t, i); i++)
		n++;
	lo = calloc(n, sizeof(*lo));
	so = calloc(3 * n + 3, 1);
	if (!lo || !so) {
		free(lo);
		free(so);
		return -ENOMEM;
	}
	*lopts = lo;
	*sopts = so;
	/* '+': never permute a command's own options into ours */
	if (t->command)
		*so++ = '+';
	/* ':' first: a missing argument returns ':', distinct from '?' */
	*so++ = ':';
	for (i = 0; i < n - 1; i++) {
		if (i < NCOMMON && !accepts(t, &common_opts[i]))
			continue;
		o = i < NCOMMON ? &common_opts[i].opt : nth_opt(t, i - NCOMMON);
		lo->name = o->name;
		lo->has_arg = o->arg ? required_argument : no_argument;
		lo->val = o->key;
		lo++;
		if (o->key >= TOOL_KEY_MIN)
			continue;
		*so++ = o->key;
		if (o->arg)
			*so++ = ':';
	}
	return 0;
}

static const struct option *find_key(const struct option *lo, int key)
{
	for (; lo->name; lo++)
		if (lo->val == key)
			return lo;
	return NULL;
}

/* "-d/--duration" or "--comm" */
static const char *opt_name(char *buf, size_t len, const struct option *lo)
{
	if (lo->val < TOOL_KEY_MIN)
		snprintf(buf, len, "-%c/--%s", lo->val, lo->name);
	else
		snprintf(buf, len, "--%s", lo->name);
	return buf;
}

static int count_prefix(const struct option *lo, const char *s, size_t n)
{
	int count = 0;

	for (; lo->name; lo++) {
		if (strlen(lo->name) == n && !strncmp(lo->name, s, n))
			return 1;	/* an exact match is never ambiguous */
		if (!strncmp(lo->name, s, n))
			count++;
	}
	return count;
}

/* getopt said '?' about a long option: unknown or ambiguous */
static void bad_long_option(const struct kfit_tool *t, const struct option *lo,
			    const char *arg)
{
	size_t n = strcspn(arg, "=");

	if (count_prefix(lo, arg, n) > 1)
		fprintf(stderr, "%s: option '--%.*s' is ambiguous\n", t->name,
			(int)n, arg);
	else
		fprintf(stderr, "%s: unrecognized option '--%.*s'\n", t->name,
			(int)n, arg);
}

/*
 * getopt said '?': an unknown option, or an argument given to a flag
 * that takes none. Long options are never clustered, so argv[optind - 1]
 * is the one getopt stopped at when optopt is 0.
 */
static void bad_option(const struct kfit_tool *t, const struct option *lo,
		       char **argv)
{
	const struct option *o = optopt ? find_key(lo, optopt) : NULL;

	/* A known key: given as a short flag it could not have failed */
	if (o)
		fprintf(stderr, "%s: option '--%s' doesn't allow an argument\n",
			t->name, o->name);
	else if (optopt)
		fprintf(stderr, "%s: unrecognized option '-%c'\n", t->name,
			optopt);
	else
		bad_long_option(t, lo, argv[optind - 1] + 2);
	usage_hint(t);
}

static void missing_arg(const struct kfit_tool *t, const struct option *lo)
{
	const struct option *o = find_key(lo, optopt);
	char buf[64];

	if (o)
		fprintf(stderr, "%s: option %s requires an argument\n", t->name,
			opt_name(buf, sizeof(buf), o));
	else
		fprintf(stderr, "%s: option '-%c' requires an argument\n",
			t->name, optopt);
	usage_hint(t);
}

/* The thread group (process) of thread id, or -1 if there is no such thread */
static int proc_tgid(int id)
{
	char path[64], line[128];
	int tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", id);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

static int parse_id(const struct kfit_tool *t, const char *arg, bool thread,
		    int *out)
{
	const char *what = thread ? "TID" : "PID";
	unsigned long v;
	int tgid;

	if (kfit_opts_parse_uint(arg, INT_MAX, &v)) {
		fprintf(stderr, "%s: invalid %s '%s' for --%s: use a positive number\n",
			t->name, what, arg, thread ? "tid" : "pid");
		return -1;
	}
	*out = v;
	/* Without /proc (odd containers) we cannot check: trust the user */
	if (t->recorded_ids || access("/proc/self", F_OK))
		return 0;
	tgid = proc_tgid(v);
	if (tgid < 0) {
		fprintf(stderr, "%s: no %s with %s %lu\n", t->name,
			thread ? "thread" : "process", what, v);
		return -1;
	}
	if (!thread && tgid != (int)v) {
		fprintf(stderr, "%s: PID %lu is a thread of process %d: use -t %lu or -p %d\n",
			t->name, v, tgid, v, tgid);
		return -1;
	}
	return 0;
}

static int parse_dur(const struct kfit_tool *t, const char *arg,
		     const char *opt, __u64 def_unit, __u64 *out)
{
	int err = kfit_duration_parse(arg, def_unit, out);

	if (err == -ERANGE)
		fprintf(stderr, "%s: invalid duration '%s' for --%s: too large\n",
			t->name, arg, opt);
	else if (err)
		fprintf(stderr, "%s: invalid duration '%s' for --%s: use a number "
			"%swith a unit: ns, us, ms, s, m\n", t->name, arg, opt,
			def_unit == KFIT_SEC ? "of seconds, or one " : "");
	return err ? -1 : 0;
}

static int parse_cpus(const struct kfit_tool *t, const char *arg,
		      struct kfit_cpuset *set)
{
	int ncpus = kfit_ncpus_possible(NULL);
	int err;

	if (ncpus < 0) {
		fprintf(stderr, "%s: cannot read the possible CPUs: %s\n",
			t->name, strerror(-ncpus));
		return -1;
	}
	err = kfit_opts_parse_cpulist(arg, ncpus, set);
	if (err == -ERANGE)
		fprintf(stderr, "%s: invalid CPU list '%s' for --cpu: this machine has CPUs 0-%d\n",
			t->name, arg, ncpus - 1);
	else if (err)
		fprintf(stderr, "%s: invalid CPU list '%s' for --cpu: use numbers and ranges, e.g. 0-3,6\n",
			t->name, arg);
	return err ? -1 : 0;
}

static int parse_comm(const struct kfit_tool *t, const char *arg, char *comm)
{
	size_t n = strlen(arg);

	if (!n || n >= KFIT_COMM_LEN) {
		fprintf(stderr, "%s: invalid name '%s' for --comm: use 1 to %d characters, as the kernel keeps them\n",
			t->name, arg, KFIT_COMM_LEN - 1);
		return -1;
	}
	memcpy(comm, arg, n + 1);
	return 0;
}

static int parse_count(const struct kfit_tool *t, const char *arg, long *out)
{
	unsigned long v;

	if (kfit_opts_parse_uint(arg, LONG_MAX, &v)) {
		fprintf(stderr, "%s: invalid count '%s' for --count: use a positive number\n",
			t->name, arg);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_limit(const struct kfit_tool *t, const char *arg, unsigned long *n)
{
	if (!kfit_opts_parse_uint(arg, 1000000, n))
		return 0;
	fprintf(stderr, "%s: invalid number '%s' for --uprobe-limit: 1 to 1000000\n",
		t->name, arg);
	return -1;
}

int kfit_opts_parse_listen(const char *s, char *host, size_t len, unsigned int *port)
{
	const char *colon = strrchr(s, ':');
	const char *p = colon ? colon + 1 : s;
	size_t hl = colon ? (size_t)(colon - s) : 0;
	unsigned long v;

	/* digits alone, as every number of the command line: strtoul takes " 80" */
	if (kfit_opts_parse_uint(p, 65535, &v))
		return -1;
	/* [v6]: the brackets off; a bare v6 address has colons of its own */
	if (hl >= 2 && s[0] == '[' && s[hl - 1] == ']') {
		s++;
		hl -= 2;
	} else if (memchr(s, ':', hl) || memchr(s, '[', hl) || memchr(s, ']', hl)) {
		return -1;
	}
	if (hl >= len || memchr(s, '/', hl) || memchr(s, ' ', hl))
		return -1;
	memcpy(host, s, hl);
	host[hl] = '\0';
	*port = v;
	return 0;
}

static int parse_common(const struct kfit_tool *t, struct kfit_common *c,
			int key, const char *arg)
{
	switch (key) {
	case 'p':
		return parse_id(t, arg, false, &c->pid);
	case 't':
		return parse_id(t, arg, true, &c->tid);
	case KEY_COMM:
		return parse_comm(t, arg, c->comm);
	case 'C':
		return parse_cpus(t, arg, &c->cpus);
	case 'd':
		return parse_dur(t, arg, "duration", KFIT_SEC, &c->duration_ns);
	case 'i':
		if (parse_dur(t, arg, "interval", KFIT_SEC, &c->interval_ns))
			return -1;
		if (c->interval_ns)
			return 0;
		fprintf(stderr, "%s: invalid duration '%s' for --interval: must be more than 0\n",
			t->name, arg);
		return -1;
	case KEY_COUNT:
		return parse_count(t, arg, &c->count);
	case KEY_MIN:
		c->has_min = true;
		return parse_dur(t, arg, "min", 0, &c->min_ns);
	case KEY_MAX:
		c->has_max = true;
		return parse_dur(t, arg, "max", 0, &c->max_ns);
	case 'j':
		c->json = true;
		return 0;
	case 'k':
		c->attach = KFIT_AM_KPROBE;
		return 0;
	case KEY_ATTACH:
		return parse_attach(t, arg, c);
	case KEY_NO_DENY:
		c->no_deny = true;
		return 0;
	case KEY_UPROBE_LIMIT:
		return parse_limit(t, arg, &c->uprobe_limit);
	case KEY_FORCE:
		c->force = true;
		return 0;
	case KEY_NO_UFILTER:
		c->no_ufilter = true;
		return 0;
	case 'T':
		c->timestamp = true;
		return 0;
	case KEY_OUTPUT:
		c->output = arg;
		return 0;
	case KEY_SERVE:
		c->serve = arg;
		if (!kfit_opts_parse_listen(arg, c->serve_host, sizeof(c->serve_host),
					    &c->serve_port))
			return 0;
		fprintf(stderr, "%s: invalid address '%s' for --serve: [ADDR:]PORT, "
			"PORT 1 to 65535 (9435, 127.0.0.1:9435, [::1]:9435)\n", t->name, arg);
		return -1;
	case KEY_RAW_TP:
		c->raw_tp = true;
		return 0;
	case 'v':
		c->verbose++;
		return 0;
	}
	return -1;
}

/* What only the whole command line can tell */
static int check_common(const struct kfit_tool *t, const struct kfit_common *c)
{
	char min[32], max[32];

	if (c->count && !c->interval_ns) {
		fprintf(stderr, "%s: --count needs -i/--interval\n", t->name);
		usage_hint(t);
		return -1;
	}
	if (c->serve && c->interval_ns) {
		fprintf(stderr, "%s: --serve keeps counting from the start, as Prometheus "
			"wants: drop -i (scrapes are the intervals)\n", t->name);
		return -1;
	}
	if (c->has_min && c->has_max && c->min_ns > c->max_ns) {
		fprintf(stderr, "%s: --min %s is more than --max %s\n", t->name,
			kfit_duration_fmt(c->min_ns, min, sizeof(min)),
			kfit_duration_fmt(c->max_ns, max, sizeof(max)));
		return -1;
	}
	return 0;
}

static void exit_info(const struct kfit_tool *t, int key)
{
	if (key == 'h')
		kfit_opts_usage(t, stdout);
	else
		printf("%s (kfit) %s\n", t->name, KFIT_VERSION);
	exit(0);
}

int kfit_opts_parse_args(const struct kfit_tool *t, struct kfit_common *c,
		    int argc, char **argv)
{
	struct option *lopts;
	char *sopts;
	int key, err = 0;

	/* A tool whose letters clash with the shared ones is a bug */
	if (kfit_opts_check(t))
		abort();
	memset(c, 0, sizeof(*c));
	if (build_getopt(t, &lopts, &sopts)) {
		fprintf(stderr, "%s: out of memory\n", t->name);
		return -1;
	}
	/* 0, not 1: GNU getopt then resets all its state (tests parse often) */
	optind = 0;
	opterr = 0;
	while (!err && (key = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		if (key == 'h' || key == 'V') {
			free(lopts);
			free(sopts);
			exit_info(t, key);
		}
		if (key == '?') {
			bad_option(t, lopts, argv);
			err = -1;
		} else if (key == ':') {
			missing_arg(t, lopts);
			err = -1;
		} else if (is_common_key(key)) {
			err = parse_common(t, c, key, optarg);
		} else if (in_group(t, key)) {
			err = t->group->parse(t->name, key, optarg, t->group->ctx) ? -1 : 0;
		} else if (t->parse) {
			err = t->parse(key, optarg, t->ctx) ? -1 : 0;
		}
	}
	free(lopts);
	free(sopts);
	if (!err)
		err = check_common(t, c);
	return err ? -1 : optind;
}

/* The next number of a CPU list, saturated (anything that big is out of range) */
static int parse_cpu(const char **p, int *cpu)
{
	const char *s = *p;
	int v = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v >= KFIT_MAX_CPUS ? KFIT_MAX_CPUS : v * 10 + (*s - '0');
	*p = s;
	*cpu = v;
	return 0;
}

/* One "N" or "N-M" item: the range, or an error */
static int parse_cpu_item(const char **p, int *lo, int *hi)
{
	if (parse_cpu(p, lo))
		return -EINVAL;
	*hi = *lo;
	if (**p == '-') {
		(*p)++;
		if (parse_cpu(p, hi))
			return -EINVAL;
	}
	return *hi < *lo ? -EINVAL : 0;
}

int kfit_opts_parse_cpulist(const char *s, int ncpus, struct kfit_cpuset *set)
{
	int lo, hi, cpu, err;

	memset(set, 0, sizeof(*set));
	if (ncpus > KFIT_MAX_CPUS)
		ncpus = KFIT_MAX_CPUS;
	if (!s)
		return -EINVAL;
	for (;;) {
		err = parse_cpu_item(&s, &lo, &hi);
		if (!err && hi >= ncpus)
			err = -ERANGE;
		if (!err && *s && *s != ',')
			err = -EINVAL;
		if (err) {
			memset(set, 0, sizeof(*set));
			return err;
		}
		for (cpu = lo; cpu <= hi; cpu++)
			set->mask[cpu / 8] |= 1 << (cpu % 8);
		if (!*s++)
			break;
	}
	set->set = true;
	return 0;
}

bool kfit_cpu_selected(const struct kfit_cpuset *set, int cpu)
{
	if (!set->set)
		return true;
	if (cpu < 0 || cpu >= KFIT_MAX_CPUS)
		return false;
	return set->mask[cpu / 8] & (1 << (cpu % 8));
}

int kfit_opts_parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;
	const char *p;

	if (!s || !*s)
		return -EINVAL;
	for (p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return -EINVAL;
	for (p = s; *p; p++) {
		if (v > (ULONG_MAX - (*p - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (*p - '0');
	}
	if (!v)
		return -EINVAL;
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int kfit_opts_parse_percent(const char *s, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end != s && *end == '%')
		end++;
	/* NaN fails both comparisons */
	if (errno || end == s || *end || !(v >= 0 && v <= max))
		return -1;
	*out = v;
	return 0;
}
