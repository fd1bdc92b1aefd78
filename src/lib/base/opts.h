/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_OPTS_H
#define KFIT_OPTS_H

#include <stdbool.h>
#include <stdio.h>
#include <getopt.h>
#include <linux/types.h>

/*
 * The flags every kfit tool shares. A tool declares which it accepts;
 * their letters are reserved for everyone so that one letter never
 * means two things in two tools.
 */
enum {
	KFIT_OPT_PID		= 1 << 0,	/* -p/--pid PID */
	KFIT_OPT_TID		= 1 << 1,	/* -t/--tid TID */
	KFIT_OPT_COMM		= 1 << 2,	/* --comm NAME */
	KFIT_OPT_CPU		= 1 << 3,	/* -C/--cpu LIST */
	KFIT_OPT_DURATION	= 1 << 4,	/* -d/--duration DUR */
	KFIT_OPT_INTERVAL	= 1 << 5,	/* -i/--interval DUR, --count N */
	KFIT_OPT_JSON		= 1 << 6,	/* -j/--json */
	KFIT_OPT_TIMESTAMP	= 1 << 7,	/* -T/--timestamp */
	KFIT_OPT_MINMAX		= 1 << 8,	/* --min DUR, --max DUR */
	KFIT_OPT_ATTACH		= 1 << 9,	/* -k, --attach MECH, --no-deny,
						   --uprobe-limit N, --force */
	KFIT_OPT_MIN		= 1 << 10,	/* --min DUR alone */
	KFIT_OPT_SERVE		= 1 << 11,	/* --serve [ADDR:]PORT */
	KFIT_OPT_RAW_TP		= 1 << 12,	/* --raw-tp */
	/* -v/--verbose, -h/--help, -V/--version: always */
};

#define KFIT_VERSION "0.1.0"

#define KFIT_MAX_CPUS 1024
#define KFIT_COMM_LEN 16

/* Reserved letters of the shared flags, whether a tool accepts them or not */
#define KFIT_RESERVED_LETTERS "ptCdijTvhVk"

/* How kernel functions are attached (--attach; -k is "kprobe") */
enum kfit_amech {
	KFIT_AM_AUTO,		/* fentry, else kprobe_multi, else kprobes */
	KFIT_AM_FENTRY,
	KFIT_AM_KPROBE,		/* kprobe_multi where there, else kprobes */
	KFIT_AM_KPROBE_SINGLE,	/* a kprobe pair per function */
	KFIT_AM_KPROBE_MULTI,
};

/* "auto", "fentry", "kprobe", "kprobe-single", "kprobe-multi" */
const char *kfit_amech_name(enum kfit_amech m);

/* How user functions are attached (--attach uprobe-single|uprobe-multi) */
enum kfit_umech {
	KFIT_UM_AUTO,		/* uprobe_multi where the kernel has it, else single */
	KFIT_UM_SINGLE,		/* a uprobe pair per function */
	KFIT_UM_MULTI,		/* one uprobe_multi link per binary and direction */
};

/* Uprobes on a binary that other processes run: more need --force */
#define KFIT_UPROBE_LIMIT 1000

struct kfit_cpuset {
	bool set;	/* false: every CPU */
	__u8 mask[KFIT_MAX_CPUS / 8];
};

struct kfit_common {
	int pid;			/* 0: any */
	int tid;			/* 0: any */
	char comm[KFIT_COMM_LEN];	/* "": any */
	struct kfit_cpuset cpus;
	__u64 duration_ns;		/* 0: until Ctrl-C */
	__u64 interval_ns;		/* 0: one report at the end */
	long count;			/* intervals to print, 0: no limit */
	bool json;
	bool timestamp;
	int verbose;
	bool has_min, has_max;
	__u64 min_ns, max_ns;
	enum kfit_amech attach;
	enum kfit_umech uattach;
	bool no_deny;			/* trace the deny list's functions too */
	unsigned long uprobe_limit;	/* 0: KFIT_UPROBE_LIMIT */
	bool force;			/* more uprobes than that all the same */
	bool no_ufilter;		/* uprobes in every process (children exact) */
	const char *output;		/* --output FILE: the report, NULL: stdout */
	const char *serve;		/* --serve [ADDR:]PORT: Prometheus metrics, NULL: none */
	char serve_host[256];		/* its address, "" for every one */
	unsigned int serve_port;
	bool raw_tp;			/* raw tracepoints, tp_btf not tried */
};

/*
 * --serve's [ADDR:]PORT: "9435", ":9435", "127.0.0.1:9435", "[::1]:9435",
 * "localhost:9435". host gets ADDR ("" when none: every address, as
 * exporters listen), port 1..65535. 0, or -1 when it is not one.
 */
int kfit_opts_parse_listen(const char *s, char *host, size_t len, unsigned int *port);

/* A tool's own option; key is its short letter, or >= 256 for long only */
struct kfit_opt {
	const char *name;
	int key;
	const char *arg;	/* NULL: takes no argument */
	const char *help;
};

/*
 * Options that several tools share, a library's (the views of call trees:
 * cgview.h): listed under their own heading, parsed by their own parse
 * into ctx. Their keys and names are the tool's as far as clashes go.
 */
struct kfit_opt_group {
	const char *title;		/* -h's heading, e.g. "Display options" */
	const struct kfit_opt *opts;	/* terminated by { NULL } */
	/* Returns 0, or -1 after printing "TOOL: why" */
	int (*parse)(const char *tool, int key, const char *arg, void *ctx);
	void *ctx;
};

struct kfit_tool {
	const char *name;
	const char *summary;	/* one line */
	const char *synopsis;	/* after the tool's name, e.g. "[OPTIONS] TARGET..." */
	const char *examples;	/* may be NULL */
	unsigned int common;	/* KFIT_OPT_* this tool accepts */
	const struct kfit_opt *opts;	/* terminated by { NULL } */
	/* Returns 0, or -1 after printing why the argument is bad */
	int (*parse)(int key, const char *arg, void *ctx);
	void *ctx;
	/* Options end at the first operand: the rest is a command line */
	bool command;
	/* -p/-t name tasks of a recording (kd), not of this machine: unchecked */
	bool recorded_ids;
	const struct kfit_opt_group *group;	/* NULL: none */
};

/*
 * Parse argv. Returns the index of the first operand, or -1 on a usage
 * error (already explained on stderr; exit 2). -h and -V print and exit 0.
 */
int kfit_opts_parse_args(const struct kfit_tool *t, struct kfit_common *c,
		    int argc, char **argv);
/* Returns 0 if the tool's letters stay clear of the reserved ones. */
int kfit_opts_check(const struct kfit_tool *t);
void kfit_opts_usage(const struct kfit_tool *t, FILE *f);

/* "0-3,6" into a set; ncpus bounds it. 0 or -EINVAL / -ERANGE. */
int kfit_opts_parse_cpulist(const char *s, int ncpus, struct kfit_cpuset *set);
bool kfit_cpu_selected(const struct kfit_cpuset *set, int cpu);
/* Strictly positive decimal integer, 0 or -EINVAL / -ERANGE */
int kfit_opts_parse_uint(const char *s, unsigned long max, unsigned long *out);
/* A percent, 0 to max: "0.5" or "0.5%". 0, or -1 (nothing said) */
int kfit_opts_parse_percent(const char *s, double max, double *out);

#endif
