// SPDX-License-Identifier: GPL-2.0
/*
 * bootsum: where a boot went. The kernel phase from what the kernel
 * recorded itself (initcall_debug dmesg, the initcall trace events), the
 * user-space phase from BPF programs that `bootsum --early` loaded as the
 * first process, both on one time axis (src/lib/boot/bootrep.c renders them).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "bootlog.h"
#include "bootfuncs.h"
#include "bootrep.h"
#include "bootstate.h"
#include "child.h"
#include "diag.h"
#include "duration.h"
#include "fileio.h"
#include "opts.h"
#include "run.h"

enum {
	OPT_SVG = 256, OPT_CHAIN, OPT_FROM, OPT_KALLSYMS, OPT_EARLY, OPT_MAX_PROCS,
	OPT_MAX_WAITS, OPT_WAIT_MIN, OPT_STOP, OPT_FUNCS,
};

#define MAX_FROM	8

static const struct kfit_opt bs_opts[] = {
	{ "top", 'n', "N", "the N slowest initcalls and processes (default 20)" },
	{ "svg", OPT_SVG, "FILE", "a timeline of both phases into FILE (SVG)" },
	{ "chain", OPT_CHAIN, "PID",
	  "the critical chain ending at process PID (default: the last to end)" },
	{ "from", OPT_FROM, "FILE",
	  "the kernel phase from a saved dmesg or trace text ('-': stdin; "
	  "repeatable): no root, nothing live read" },
	{ "kallsyms", OPT_KALLSYMS, "FILE", "name initcall levels from a saved /proc/kallsyms" },
	{ "early", OPT_EARLY, NULL,
	  "record the user-space boot, then exec INIT: as the first process (rdinit=, init=)" },
	{ "max-procs", OPT_MAX_PROCS, "N", "with --early: processes recorded (default 4096)" },
	{ "max-waits", OPT_MAX_WAITS, "N", "with --early: waits recorded (default 32768)" },
	{ "wait-min", OPT_WAIT_MIN, "DUR", "with --early: shorter waits are not recorded (default 1ms)" },
	{ "stop", OPT_STOP, NULL, "stop recording and free what --early left" },
	{ "funcs", OPT_FUNCS, "GLOB",
	  "with --early: durations of these kernel functions too, as funcdur "
	  "(calls under --min DUR counted apart)" },
	{ NULL },
};

struct env {
	struct kfit_common c;
	unsigned long top;
	const char *svg;
	struct kfit_out svg_out;	/* made before the report is read */
	unsigned long chain_pid;
	const char *from[MAX_FROM];
	int nfrom;
	const char *kallsyms;
	bool early, stop;
	unsigned long max_procs, max_waits;
	__u64 wait_min_ns;
	bool report_opts, early_opts;	/* given: for the usage checks */
	const char *funcs;		/* --funcs GLOB */
	struct kfit_bootfuncs *funcs_rep;	/* its recording, found by the report */
};

static struct env env;

static int parse_opt(int key, const char *arg, void *ctx)
{
	unsigned long v;

	(void)ctx;
	switch (key) {
	case 'n':
		env.report_opts = true;
		if (!kfit_opts_parse_uint(arg, 1000000, &env.top))
			return 0;
		fprintf(stderr, "bootsum: invalid number '%s' for --top\n", arg);
		return -1;
	case OPT_SVG:
		env.report_opts = true;
		env.svg = arg;
		return 0;
	case OPT_CHAIN:
		env.report_opts = true;
		if (!kfit_opts_parse_uint(arg, INT_MAX, &env.chain_pid))
			return 0;
		fprintf(stderr, "bootsum: invalid PID '%s' for --chain\n", arg);
		return -1;
	case OPT_FROM:
		env.report_opts = true;
		if (env.nfrom == MAX_FROM) {
			fprintf(stderr, "bootsum: at most %d --from files\n", MAX_FROM);
			return -1;
		}
		env.from[env.nfrom++] = arg;
		return 0;
	case OPT_KALLSYMS:
		env.report_opts = true;
		env.kallsyms = arg;
		return 0;
	case OPT_EARLY:
		env.early = true;
		return 0;
	case OPT_STOP:
		env.stop = true;
		return 0;
	case OPT_FUNCS:
		env.funcs = arg;
		return 0;
	case OPT_MAX_PROCS:
	case OPT_MAX_WAITS:
		env.early_opts = true;
		if (kfit_opts_parse_uint(arg, 1 << 24, &v)) {
			fprintf(stderr, "bootsum: invalid number '%s' for --%s: 1 to %d\n", arg,
				key == OPT_MAX_PROCS ? "max-procs" : "max-waits", 1 << 24);
			return -1;
		}
		*(key == OPT_MAX_PROCS ? &env.max_procs : &env.max_waits) = v;
		return 0;
	case OPT_WAIT_MIN:
		env.early_opts = true;
		if (!kfit_duration_parse(arg, 0, &env.wait_min_ns) && env.wait_min_ns)
			return 0;
		fprintf(stderr, "bootsum: invalid duration '%s' for --wait-min: use a number "
			"with a unit (ns, us, ms, s), more than 0\n", arg);
		return -1;
	}
	return -1;
}

static const struct kfit_tool tool = {
	.name = "bootsum",
	.summary = "Where a boot went: the kernel's initcalls (from dmesg with initcall_debug or\n"
		   "the initcall trace events) and the user-space boot that `bootsum --early`\n"
		   "recorded as the first process (processes, parents, CPU, waits, block I/O,\n"
		   "modules), on one time axis.\n"
		   "  bootsum [-n N] [--min DUR] [-j] [--svg FILE] [--chain PID] [--from FILE]...\n"
		   "  bootsum --early [--max-procs N] [--max-waits N] [--wait-min DUR]\n"
		   "          [--funcs GLOB [--min DUR]] -- INIT [ARGS...]\n"
		   "  bootsum --stop",
	.synopsis = "[OPTIONS] | --early [OPTIONS] -- INIT [ARGS...] | --stop",
	.examples =
		"# record a boot: add to the kernel command line (GRUB: GRUB_CMDLINE_LINUX in\n"
		"# /etc/default/grub, then update-grub; qemu: -append \"...\")\n"
		"# the kernel phase, in dmesg or in the trace (or both):\n"
		"#   initcall_debug log_buf_len=8M\n"
		"#   trace_event=initcall:*,module:module_load trace_buf_size=8M\n"
		"# the user phase, last on the line (what follows -- is init's; no second\n"
		"# --, no OPT=VAL: the kernel ends init's arguments at -- and makes OPT=VAL\n"
		"# an environment variable):\n"
		"#   rdinit=/usr/bin/bootsum -- --early /init      (with an initramfs)\n"
		"#   init=/usr/bin/bootsum -- --early /sbin/init   (without)\n"
		"bootsum                           # after boot: both phases\n"
		"bootsum -n 10 --min 5ms --svg boot.svg\n"
		"bootsum -j > boot.json\n"
		"bootsum --chain 412               # what 412 waited on, back to the start\n"
		"bootsum --from dmesg.txt --kallsyms kallsyms.txt   # another machine's boot\n"
		"dmesg | bootsum --from -\n"
		"bootsum --early -- sh -c './start-services'   # a user-space run, recorded\n"
		"bootsum --early --funcs 'ext4_*' --min 100us -- /sbin/init  # and ext4's calls\n"
		"bootsum --stop                    # detach and free the recording",
	.common = KFIT_OPT_JSON | KFIT_OPT_MINMAX,
	.opts = bs_opts,
	.parse = parse_opt,
	.ctx = &env,
	.command = true,
};

static int usage_error(const char *msg)
{
	fprintf(stderr, "bootsum: %s\nTry 'bootsum --help' for more information.\n", msg);
	return 2;
}

static int check_args(int first, int argc)
{
	/* with --early, --min is --funcs' */
	bool report = env.report_opts || env.c.json || (env.c.has_min && !env.funcs);

	if (env.c.has_max)
		return usage_error("--max: bootsum lists what is long; --min DUR hides what is short");
	if (env.early && env.stop)
		return usage_error("--early and --stop exclude each other");
	if (env.early_opts && !env.early)
		return usage_error("--max-procs, --max-waits and --wait-min go with --early");
	if (env.funcs && !env.early)
		return usage_error("--funcs records: it goes with --early (a report shows what was recorded)");
	if (env.early) {
		if (report)
			return usage_error("--early records: the report's options go with bootsum alone");
		if (first >= argc)
			return usage_error("--early needs the init to exec: bootsum --early -- INIT [ARGS...]");
		return 0;
	}
	if (first < argc)
		return usage_error("unexpected operand: INIT goes with --early");
	if (env.stop && report)
		return usage_error("--stop takes no other option");
	if (env.kallsyms && !env.nfrom)
		return usage_error("--kallsyms goes with --from (a live report reads /proc/kallsyms)");
	return 0;
}

/* ---- the first process --------------------------------------------------- */

static volatile sig_atomic_t cancel_sig;

static void on_cancel(int sig)
{
	cancel_sig = sig;
}

static void say(bool pid1, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* To stderr; as the first process also to the kernel log, often its only witness */
static void say(bool pid1, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "bootsum: %s\n", buf);
	if (pid1)
		kfit_bootstate_kmsg("%s", buf);
}

static const char *self_path;	/* argv[0]: never exec'd again as a fallback */

/* As the kernel does when init fails: /init (rdinit's default), the usual places, a shell */
static void __attribute__((noreturn)) exec_init(char **argv, bool pid1)
{
	static const char *const fallback[] = {
		"/init", "/sbin/init", "/etc/init", "/bin/init", "/bin/sh",
	};
	char *fargv[2] = { NULL, NULL };
	unsigned int i;

	if (argv && argv[0]) {
		execvp(argv[0], argv);
		say(pid1, "cannot run %s: %s", argv[0], strerror(errno));
	}
	if (!pid1)
		exit(1);
	for (i = 0; i < sizeof(fallback) / sizeof(fallback[0]); i++) {
		if ((argv && argv[0] && !strcmp(argv[0], fallback[i])) ||
		    (self_path && !strcmp(self_path, fallback[i])))
			continue;	/* tried already, or bootsum itself */
		fargv[0] = (char *)fallback[i];
		execv(fallback[i], fargv);
		say(pid1, "cannot run %s: %s", fallback[i], strerror(errno));
	}
	/* the first process must never end: the kernel would panic */
	say(pid1, "no init found: waiting forever");
	for (;;)
		pause();
}

/*
 * As the first process nothing may be mounted: /dev/kmsg is our log.
 * Returns whether devtmpfs was mounted for it (to unmount before exec:
 * the real init mounts it itself, and a second mount there is EBUSY).
 */
static bool pid1_dev(void)
{
	if (!access("/dev/kmsg", W_OK))
		return false;
	mkdir("/dev", 0755);
	return !mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755");
}

/* Whether an option before "--" would make the parser print and exit */
static bool asks_help(int argc, char **argv)
{
	size_t n;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		n = strlen(argv[i]);
		if (n >= 3 && (!strncmp(argv[i], "--help", n) || !strncmp(argv[i], "--version", n)))
			return true;
		if (argv[i][0] == '-' && argv[i][1] != '-' &&
		    (strchr(argv[i], 'h') || strchr(argv[i], 'V')))
			return true;
	}
	return false;
}

/*
 * The kernel ends init's arguments at a second "--" and turns those with
 * a '=' into environment: `rdinit=bootsum -- --early /init` gives argv
 * {bootsum, --early, /init}. Where the options are bad, INIT is the first
 * absolute path among them.
 */
static char **init_guess(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (argv[i][0] == '/')
			return argv + i;
	return NULL;
}

static bool recording_already(bool pid1, char **initv)
{
	struct kfit_bootstate st;
	bool on;

	if (kfit_bootstate_find(&st))
		return false;
	on = st.pinned || !st.meta.stopped;
	if (on) {
		__u64 t = st.meta.early_ns;

		if (pid1)
			say(true, "already recording since %llu.%03llu s (boot clock): exec %s",
			    t / 1000000000ULL, t / 1000000ULL % 1000, initv[0]);
		else
			say(false, "already recording since %llu.%03llu s (boot clock); "
			    "bootsum --stop first", t / 1000000000ULL, t / 1000000ULL % 1000);
	}
	kfit_bootstate_close(&st);
	return on;
}

/*
 * --funcs first: bs_meta gets its table's id. Not recorded (no fentry nor
 * kprobes, say): the rest is, and the report says why not.
 */
static void start_funcs(struct kfit_bootstate_early_opts *o, const char *dir, bool pid1)
{
	struct kfit_bootfuncs_opts fo = {
		.glob = env.funcs,
		.min_ns = env.c.has_min ? env.c.min_ns : 0,
		.verbose = env.c.verbose,
	};
	char why[256];

	if (!env.funcs)
		return;
	if (kfit_bootfuncs_start(dir, &fo, &o->funcs_id, why, sizeof(why)) && pid1)
		kfit_bootstate_kmsg("functions (--funcs %s) not recorded: %s", env.funcs, why);
}

static int start(char **initv, bool pid1)
{
	struct kfit_bootstate_early_opts o = {
		.max_procs = env.max_procs,
		.max_waits = env.max_waits,
		.wait_min_ns = env.wait_min_ns,
		.init_path = initv[0],
		.cancel = pid1 ? NULL : &cancel_sig,
	};
	struct sigaction sa = { .sa_handler = on_cancel };
	char err[256], stage[PATH_MAX];
	int r;

	if (!pid1) {
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
	}
	r = kfit_bootstate_stage(stage, sizeof(stage));
	if (r) {
		say(pid1, "cannot make a directory in %s (bpffs): %s", KFIT_PIN_ROOT, strerror(-r));
		return 1;
	}
	o.stage = stage;
	start_funcs(&o, stage, pid1);
	r = kfit_bootstate_early(&o, err, sizeof(err));
	if (r)
		kfit_bootstate_unstage(stage);
	if (r == -ECANCELED) {
		say(pid1, "interrupted: nothing left attached or pinned");
		signal(cancel_sig, SIG_DFL);
		raise(cancel_sig);
		return 1;
	}
	if (r) {
		say(pid1, "%s", err);
		return 1;
	}
	say(pid1, "recording the boot (pinned at %s); exec %s", KFIT_BOOTSTATE_DIR, initv[0]);
	if (!pid1) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
	}
	return 0;
}

/* Undo a recording whose init could not be run (not the first process) */
static void undo(void)
{
	struct kfit_bootstate st;
	struct kfit_bootstate_stopped s;

	if (kfit_bootstate_find(&st))
		return;
	kfit_bootstate_stop(&st, &s);
	kfit_bootstate_close(&st);
}

static void __attribute__((noreturn)) pid1_main(int argc, char **argv)
{
	char **initv = init_guess(argc, argv);
	int first;

	bool dev;

	self_path = argv[0];
	dev = pid1_dev();
	kfit_diag_setup("bootsum", 0);
	if (asks_help(argc, argv)) {
		say(true, "-h/-V as the first process: not recording");
	} else if ((first = kfit_opts_parse_args(&tool, &env.c, argc, argv)) < 0 ||
		   check_args(first, argc) || !env.early) {
		say(true, "bad options for the first process (rdinit=%s -- --early INIT): not recording",
		    argv[0]);
	} else {
		initv = argv + first;
		if (!recording_already(true, initv) && !start(initv, true))
			kfit_bootstate_exec_mark();
	}
	if (dev)
		umount2("/dev", MNT_DETACH);
	exec_init(initv, true);
}

static int early_main(char **initv)
{
	if (geteuid()) {
		kfit_err("--early loads BPF programs: run it as root");
		return 1;
	}
	if (recording_already(false, initv))
		return 1;
	if (start(initv, false))
		return 1;
	kfit_bootstate_exec_mark();
	execvp(initv[0], initv);
	kfit_err("cannot run %s: %s; recording removed", initv[0], strerror(errno));
	undo();
	return 1;
}

/* ---- --stop ------------------------------------------------------------ */

static int stop_main(void)
{
	struct kfit_bootstate st;
	struct kfit_bootstate_stopped s;
	int r, left;

	if (geteuid()) {
		kfit_err("--stop needs root (BPF objects)");
		return 1;
	}
	left = kfit_bootstate_leftovers();
	if (left < 0)
		kfit_err("cannot remove what an interrupted bootsum --early left: %s",
			 strerror(-left));
	r = kfit_bootstate_find(&st);
	if (r == -ENOENT) {
		if (left < 0)
			return 1;
		if (!left)
			kfit_info("nothing to stop: no bootsum state pinned at %s nor found by "
				  "map id", KFIT_BOOTSTATE_DIR);
		return 0;
	}
	if (r) {
		kfit_err("cannot open bootsum's state: %s", strerror(-r));
		return 1;
	}
	if (!st.pinned && st.meta.stopped) {
		kfit_info("already stopped (found %s); its maps stay until reboot: their pins "
			  "are in a bpffs no longer mounted here", st.found);
		kfit_bootstate_close(&st);
		return 0;
	}
	r = kfit_bootstate_stop(&st, &s);
	kfit_bootstate_close(&st);
	if (r) {
		kfit_err("cannot stop (%s): %s", st.found, strerror(-r));
		return 1;
	}
	if (s.unpinned) {
		kfit_info("stopped: pins removed from %s, programs and maps %s", KFIT_BOOTSTATE_DIR,
			  s.freed ? "freed" : "released (the kernel frees them shortly)");
		return 0;
	}
	kfit_info("stopped (found %s): the programs now return at once; %d of %d links "
		  "detached%s%s", st.found, s.detached, s.links,
		  s.detach_err ? ": " : "", s.detach_err ? strerror(-s.detach_err) : "");
	kfit_info("the maps (%llu KiB) stay until reboot: their pins are in a bpffs no longer "
		  "mounted here (unmount what covers /sys/fs/bpf, then bootsum --stop frees them)",
		  (unsigned long long)(s.map_bytes + 1023) / 1024);
	return 0;
}

/* ---- the report ---------------------------------------------------------- */

struct kernel_phase {
	struct kfit_bootlog dmesg, trace;
	bool has_dmesg, has_trace;
	const struct kfit_bootlog *pick;
	char note[1024];
};

/*
 * A boot's dmesg or trace is a few MiB: far more is not one (/dev/zero, a
 * disk image), and is refused before it takes all the memory
 */
#define LOG_MAX		(64 << 20)

/* FILE ('-': stdin) whole, at most LOG_MAX; NULL with errno (EFBIG: longer) */
static char *read_input(const char *path, size_t *len)
{
	char *text;
	bool cut;

	if (strcmp(path, "-"))
		text = kfit_read_max(path, LOG_MAX, len, &cut);
	else
		text = kfit_fread_max(stdin, LOG_MAX, len, &cut);
	if (text && cut) {
		free(text);
		errno = EFBIG;
		return NULL;
	}
	return text;
}

/* Parses text into the dmesg or trace slot, by its form; false if neither */
static bool take(struct kernel_phase *kp, const char *what, const char *text, size_t len,
		 bool quiet)
{
	struct kfit_bootlog bl;
	char err[256];

	kfit_bootlog_init(&bl);
	if (kfit_bootlog_parse(&bl, text, len, err, sizeof(err))) {
		if (!quiet)
			kfit_err("%s: %s", what, err);
		kfit_bootlog_free(&bl);
		return false;
	}
	if (bl.src == KFIT_BOOTLOG_TRACE) {
		if (kp->has_trace)
			kfit_bootlog_free(&kp->trace);
		kp->trace = bl;
		kp->has_trace = true;
	} else {
		if (kp->has_dmesg)
			kfit_bootlog_free(&kp->dmesg);
		kp->dmesg = bl;
		kp->has_dmesg = true;
	}
	return true;
}

static int kernel_from_files(struct kernel_phase *kp)
{
	size_t len;
	char *text;
	int i;

	for (i = 0; i < env.nfrom; i++) {
		text = read_input(env.from[i], &len);
		if (!text && errno == EFBIG) {
			kfit_err("%s: longer than %d MiB: not a kernel log (a boot's dmesg or "
				 "trace is a few MiB)", env.from[i], LOG_MAX >> 20);
			return 1;
		}
		if (!text) {
			kfit_err("cannot read %s: %s", env.from[i], strerror(errno));
			return 1;
		}
		if (!take(kp, env.from[i], text, len, false)) {
			free(text);
			return 1;
		}
		free(text);
	}
	return 0;
}

static void kernel_live(struct kernel_phase *kp)
{
	size_t len;
	char *text;

	text = kfit_bootstate_trace_text(&len);
	if (text)
		take(kp, "tracefs trace", text, len, true);
	else
		kfit_debug("no tracefs trace: %s", strerror(errno));
	free(text);
	text = kfit_bootstate_dmesg_text(&len);
	if (text)
		take(kp, "dmesg", text, len, true);
	else
		kfit_warn("cannot read the kernel log: %s", strerror(errno));
	free(text);
}

static void name_levels(struct kernel_phase *kp)
{
	size_t len;
	char *text;

	if (env.kallsyms)
		text = read_input(env.kallsyms, &len);
	else if (!env.nfrom)
		text = kfit_bootstate_kallsyms_text(&len);
	else
		return;
	if (!text) {
		if (env.kallsyms && errno == EFBIG)
			kfit_warn("%s: longer than %d MiB: not a kallsyms; levels not named",
				  env.kallsyms, LOG_MAX >> 20);
		else if (env.kallsyms)
			kfit_warn("cannot read %s: %s", env.kallsyms, strerror(errno));
		return;
	}
	if (kp->has_dmesg)
		kfit_bootlog_levels_from_kallsyms(&kp->dmesg, text, len);
	if (kp->has_trace)
		kfit_bootlog_levels_from_kallsyms(&kp->trace, text, len);
	free(text);
}

/* The user phase recorded here, or NULL (said why when it is not just absent) */
static struct kfit_bootrep_user *user_live(struct kfit_bootstate *st, struct kfit_bootrep_user *u)
{
	int r;

	if (geteuid()) {
		kfit_warn("reading bootsum's recording needs root: the user phase is left out");
		return NULL;
	}
	r = kfit_bootstate_find(st);
	if (r) {
		if (r != -ENOENT)
			kfit_warn("cannot open bootsum's state: %s", strerror(-r));
		return NULL;
	}
	r = kfit_bootstate_read(st, u);
	if (r) {
		kfit_warn("cannot read bootsum's maps (%s): %s", st->found, strerror(-r));
		kfit_bootstate_close(st);
		return NULL;
	}
	return u;
}

/*
 * Kernel clock = boot clock + offset, from the marker --early wrote when it
 * began, if this dmesg has that very marker (a later boot's would not match)
 */
static void set_offset(const struct kernel_phase *kp, struct kfit_bootrep_user *u)
{
	const struct kfit_bootlog *d = &kp->dmesg;
	__u64 b;

	if (!kp->has_dmesg || !d->has_marker)
		return;
	b = d->marker_boot_ns;
	if (b < u->meta.early_ns || b - u->meta.early_ns > 60 * KFIT_SEC)
		return;
	u->offset_ns = (__s64)(d->marker_ns - b);
	u->offset_known = true;
}

/* A trace prints module initcalls as addresses: --early saw their names */
static void name_modules(struct kernel_phase *kp, const struct kfit_bootrep_user *u)
{
	char fn[BS_SYM];
	size_t i;

	for (i = 0; i < u->nmods; i++) {
		snprintf(fn, sizeof(fn), "%.*s", BS_SYM - 1, u->mods[i].init_sym);
		fn[strcspn(fn, " ")] = '\0';
		if (kp->has_trace)
			kfit_bootlog_name_addr(&kp->trace, u->mods[i].init_addr, fn);
		if (kp->has_dmesg)
			kfit_bootlog_name_addr(&kp->dmesg, u->mods[i].init_addr, fn);
	}
}

static bool kernel_recorded(const struct kfit_bootlog *k)
{
	return k && (k->ncalls || k->init_ns);
}

static void funcs_json(struct kfit_json *j, void *b)
{
	kfit_bootfuncs_json(j, b);
}

/* What --funcs recorded, if anything (the meta's table id where it was found) */
static void funcs_live(const struct kfit_bootrep_user *u, const struct kfit_bootstate *st)
{
	int r;

	if (geteuid())
		return;
	r = kfit_bootfuncs_open(KFIT_BOOTSTATE_DIR, u ? st->meta.funcs_id : 0,
				env.top ? env.top : 20, &env.funcs_rep);
	if (r && r != -ENOENT)
		kfit_warn("cannot read the functions recorded (--funcs): %s", kfit_reason(r));
}

static int render(const struct kernel_phase *kp, const struct kfit_bootrep_user *u)
{
	struct kfit_bootrep_opts o = {
		.min_ns = env.c.min_ns,
		.top = env.top ? env.top : 20,
		.chain_target = BS_NONE,
		.note = kp->note[0] ? kp->note : NULL,
		.timeline_all = env.c.verbose > 0,
	};
	FILE *f;
	int r;

	if (env.chain_pid) {
		o.chain_target = u ? kfit_bootrep_proc_of_pid(u, env.chain_pid) : BS_NONE;
		if (o.chain_target == BS_NONE) {
			kfit_err("--chain %lu: no such process recorded", env.chain_pid);
			return 1;
		}
	}
	if (env.funcs_rep) {
		o.json_more = funcs_json;
		o.more_ctx = env.funcs_rep;
	}
	if (env.c.json) {
		kfit_bootrep_json(stdout, kp->pick, u, &o);
	} else {
		kfit_bootrep_text(stdout, kp->pick, u, &o);
		if (env.funcs_rep)
			kfit_bootfuncs_text(stdout, env.funcs_rep);
	}
	if (fflush(stdout)) {
		kfit_err("writing the report: %s", strerror(errno));
		return 1;
	}
	if (!env.svg)
		return 0;
	f = kfit_out_file(&env.svg_out);
	r = f ? kfit_bootrep_svg(f, kp->pick, u, &o) : -errno;
	if (!r)
		r = kfit_out_commit(&env.svg_out);
	if (r) {
		kfit_out_err(env.svg, r);
		return 1;
	}
	return 0;
}

static int report_main(void)
{
	struct kernel_phase kp;
	struct kfit_bootstate st = { .meta_fd = -1, .procs_fd = -1, .waits_fd = -1, .mods_fd = -1 };
	struct kfit_bootrep_user ub, *u = NULL;
	int rc;

	memset(&kp, 0, sizeof(kp));
	/* --svg's file made first: a bad path fails before anything is read */
	if (env.svg && (rc = kfit_out_open(&env.svg_out, env.svg))) {
		kfit_out_err(env.svg, rc);
		return 1;
	}
	if (env.nfrom) {
		if (kernel_from_files(&kp)) {
			kfit_out_abort(&env.svg_out);
			return 1;
		}
	} else {
		kernel_live(&kp);
		u = user_live(&st, &ub);
		funcs_live(u, &st);
	}
	name_levels(&kp);
	if (kp.has_dmesg && kp.has_trace)
		kfit_bootlog_fill(&kp.trace, &kp.dmesg);
	kp.pick = kfit_bootlog_pick(kp.has_dmesg ? &kp.dmesg : NULL,
				    kp.has_trace ? &kp.trace : NULL, kp.note, sizeof(kp.note));
	if (u) {
		set_offset(&kp, u);
		name_modules(&kp, u);
	}
	if (!kernel_recorded(kp.pick) && !u) {
		if (env.nfrom)
			kfit_err("no initcalls in %s: was the kernel started with initcall_debug "
				 "(or trace_event=initcall:*)?", env.nfrom > 1 ? "these files" : env.from[0]);
		else
			kfit_err("nothing recorded. The kernel phase: boot with initcall_debug (dmesg) "
				 "or trace_event=initcall:*,module:module_load trace_buf_size=8M; the "
				 "user phase: boot with rdinit=%s -- --early /init (initramfs) or "
				 "init=%s -- --early /sbin/init, last on the line. See bootsum -h.",
				 "/usr/bin/bootsum", "/usr/bin/bootsum");
		rc = 1;
	} else {
		rc = render(&kp, u);
	}
	if (u)
		kfit_bootstate_free_user(u);
	kfit_bootfuncs_free(env.funcs_rep);
	kfit_bootstate_close(&st);
	if (kp.has_dmesg)
		kfit_bootlog_free(&kp.dmesg);
	if (kp.has_trace)
		kfit_bootlog_free(&kp.trace);
	kfit_out_abort(&env.svg_out);
	return rc;
}

int main(int argc, char **argv)
{
	int first, rc;

	if (getpid() == 1)
		pid1_main(argc, argv);
	first = kfit_opts_parse_args(&tool, &env.c, argc, argv);
	if (first < 0)
		return 2;
	rc = check_args(first, argc);
	if (rc)
		return rc;
	kfit_setup("bootsum", &env.c);
	if (kfit_child_io_setup(env.c.output, NULL))
		return 1;
	if (env.early)
		return early_main(argv + first);
	if (env.stop)
		return stop_main();
	return report_main();
}
