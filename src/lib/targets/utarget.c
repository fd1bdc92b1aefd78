// SPDX-License-Identifier: GPL-2.0
/*
 * User function targets: "c:malloc", "/usr/bin/python3:PyObject_*" into
 * the file to put uprobes in and the function names there.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "elfsyms.h"
#include "strdist.h"
#include "utarget.h"

#define LDCONFIG "/sbin/ldconfig"

/* Where ld.so looks when there is no cache to ask */
static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64",
	"/usr/lib64", "/lib", "/usr/lib",
};

struct func {
	char *name;
	__u64 addr;
	unsigned int flags;	/* KFIT_SYM_* */
	bool ifunc;		/* STT_GNU_IFUNC: addr is the resolver's */
	const char *why;	/* no return probe may go there: why, else NULL */
};

struct funcs {
	struct func *v;
	int n, cap;
};

static int funcs_push(struct funcs *f, char *name, const struct kfit_elfsym *s,
		      const char *why)
{
	struct func *v;

	if (!name)
		return -ENOMEM;
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 256;
		v = realloc(f->v, f->cap * sizeof(*v));
		if (!v) {
			free(name);
			return -ENOMEM;
		}
		f->v = v;
	}
	f->v[f->n++] = (struct func){
		.name = name, .addr = s->addr, .flags = s->flags, .ifunc = s->ifunc,
		.why = why,
	};
	return 0;
}

static void funcs_free(struct funcs *f)
{
	int i;

	for (i = 0; i < f->n; i++)
		free(f->v[i].name);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

bool kfit_utarget_is_spec(const char *spec)
{
	return spec && strchr(spec, ':') && strncmp(spec, "sys:", 4);
}

static bool is_lib_name(const char *name)
{
	return !strncmp(name, "lib", 3) || strstr(name, ".so");
}

/* "c" and "libc" are "libc.so"; a name with ".so" stays itself */
static void lib_prefix(const char *name, char *buf, size_t len)
{
	if (strstr(name, ".so"))
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%s%s.so", strncmp(name, "lib", 3) ? "lib" : "", name);
}

/*
 * 0: soname is not prefix's; 1: it is the unversioned one (a development
 * link); 2: a versioned one ("libc.so.6"), what programs load
 */
static int lib_rank(const char *soname, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncmp(soname, prefix, n))
		return 0;
	if (!soname[n])
		return 1;
	return soname[n] == '.' ? 2 : 0;
}

static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* "\tlibc.so.6 (libc6,x86-64) => /lib/x86_64-linux-gnu/libc.so.6" */
static int ldconfig_rank(char *line, const char *prefix, char **path)
{
	char *soname = line + strspn(line, " \t"), *flags, *arrow;

	flags = strstr(soname, " (");
	arrow = strstr(soname, ") => ");
	if (!flags || !arrow || flags > arrow)
		return 0;
	*flags = '\0';
	*arrow = '\0';
	if (!strstr(flags + 2, "x86-64"))
		return 0;
	*path = arrow + 5;
	(*path)[strcspn(*path, "\n")] = '\0';
	return lib_rank(soname, prefix);
}

/* The library from the ld.so cache; 0, or -ENOENT */
static int lib_from_cache(const char *prefix, char *out, size_t len)
{
	char *line = NULL, *path = NULL;
	int rank, best = 0;
	size_t cap = 0;
	FILE *p;

	if (access(LDCONFIG, X_OK))
		return -ENOENT;
	p = popen(LDCONFIG " -p 2>/dev/null", "re");
	if (!p)
		return -ENOENT;
	while (getline(&line, &cap, p) > 0) {
		rank = ldconfig_rank(line, prefix, &path);
		if (rank > best && is_file(path)) {
			best = rank;
			snprintf(out, len, "%s", path);
		}
	}
	free(line);
	pclose(p);
	return best ? 0 : -ENOENT;
}

/* The library from the standard directories, without the cache */
static int lib_from_dirs(const char *prefix, char *out, size_t len)
{
	struct dirent *d;
	int rank, best = 0;
	size_t i;
	DIR *dir;

	for (i = 0; i < sizeof(lib_dirs) / sizeof(lib_dirs[0]) && best < 2; i++) {
		dir = opendir(lib_dirs[i]);
		if (!dir)
			continue;
		while ((d = readdir(dir))) {
			rank = lib_rank(d->d_name, prefix);
			if (rank <= best)
				continue;
			snprintf(out, len, "%s/%s", lib_dirs[i], d->d_name);
			if (is_file(out))
				best = rank;
		}
		closedir(dir);
	}
	return best ? 0 : -ENOENT;
}

static int find_lib(const char *name, char *out, size_t len)
{
	char prefix[256];

	lib_prefix(name, prefix, sizeof(prefix));
	if (!lib_from_cache(prefix, out, len))
		return 0;
	return lib_from_dirs(prefix, out, len);
}

/* A program in $PATH */
static int find_prog(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;
	size_t n;

	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p || p == path; p = *end ? end + 1 : end) {
		end = p + strcspn(p, ":");
		n = end - p;
		/* An empty entry is the current directory */
		snprintf(out, len, "%.*s%s%s", (int)n, p, n ? "/" : "", name);
		if (is_file(out) && !access(out, X_OK))
			return 0;
		if (!*end)
			break;
	}
	return -ENOENT;
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The process's executable, if its name is name's */
static int from_exe(int pid, const char *name, char *out, size_t len)
{
	char link[64], target[PATH_MAX];
	struct stat st;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0 || stat(link, &st))
		return -ENOENT;
	target[n] = '\0';
	if (n > 10 && !strcmp(target + n - 10, " (deleted)")) {
		/* Gone from the file system: only the link reaches it */
		target[n - 10] = '\0';
		if (strcmp(base_of(target), base_of(name)))
			return -ENOENT;
		snprintf(out, len, "%s", link);
		return 0;
	}
	if (strcmp(base_of(target), base_of(name)))
		return -ENOENT;
	return kfit_elf_proc_path(NULL, pid, target, st.st_dev, st.st_ino, out, len) ?
	       -ENOENT : 0;
}

/* The library of that name mapped in the process */
static int from_maps(int pid, const char *name, char *out, size_t len)
{
	char maps[64], prefix[256], *line = NULL;
	struct kfit_elf_mapline m;
	size_t cap = 0;
	int err = -ENOENT;
	FILE *f;

	lib_prefix(name, prefix, sizeof(prefix));
	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f)
		return -ENOENT;
	while (err && getline(&line, &cap, f) > 0) {
		if (kfit_elf_parse_mapline(line, &m) || m.path[0] != '/')
			continue;
		if (strstr(m.path, " (deleted)") || lib_rank(base_of(m.path), prefix) != 2)
			continue;
		if (!kfit_elf_proc_path(NULL, pid, m.path, m.dev, m.ino, out, len))
			err = 0;
	}
	free(line);
	fclose(f);
	return err;
}

/*
 * A path resolved through links, unless it goes through a process's root:
 * what that leads to is only right from inside the process's namespace
 */
static void canon(char *path, size_t len)
{
	char real[PATH_MAX];

	if (!strncmp(path, "/proc/", 6) && strstr(path, "/root/"))
		return;
	if (realpath(path, real))
		snprintf(path, len, "%s", real);
}

/* A path: "./server" with a pid may be the process's own executable */
static int find_path(const char *bin, int pid, char *out, size_t len,
		     char *err, size_t errlen)
{
	if (pid > 0 && bin[0] != '/' && !from_exe(pid, bin, out, len))
		goto found;
	snprintf(out, len, "%s", bin);
	if (!access(out, F_OK))
		goto found;
	/* Absolute in the process's mount namespace */
	if (pid > 0 && bin[0] == '/') {
		if ((size_t)snprintf(out, len, "/proc/%d/root%s", pid, bin) < len &&
		    !access(out, F_OK))
			goto found;
	}
	snprintf(err, errlen, "no such file '%s'", bin);
	return -ENOENT;
found:
	canon(out, len);
	return 0;
}

static int find_binary(const char *bin, int pid, char *out, size_t len,
		       char *err, size_t errlen)
{
	bool found;

	if (strchr(bin, '/'))
		return find_path(bin, pid, out, len, err, errlen);
	found = pid > 0 && (!from_exe(pid, bin, out, len) ||
			    !from_maps(pid, bin, out, len));
	if (!found && is_lib_name(bin))
		found = !find_lib(bin, out, len) || !find_prog(bin, out, len);
	else if (!found)
		found = !find_prog(bin, out, len) || !find_lib(bin, out, len);
	/* Last, a file in the current directory named without "./" */
	if (!found && is_file(bin)) {
		snprintf(out, len, "%s", bin);
		found = true;
	}
	if (!found) {
		snprintf(err, errlen, "no such binary or library '%s' (looked in %s"
			 "the ld.so cache and PATH)", bin,
			 pid > 0 ? "the process's maps, " : "");
		return -ENOENT;
	}
	canon(out, len);
	return 0;
}

/* "#!" (pyenv's and rbenv's shims are scripts found in PATH) */
static bool is_script(const char *path)
{
	char magic[2];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool script;

	if (fd < 0)
		return false;
	script = pread(fd, magic, 2, 0) == 2 && magic[0] == '#' && magic[1] == '!';
	close(fd);
	return script;
}

/*
 * Where no return probe may go. A uretprobe swaps the return address on
 * top of the stack at the function's entry for its trampoline: code
 * entered other than by a call has no return address there (_start has
 * argc: the probe overwrites it), and a function that never returns
 * leaves the probe waiting for nothing.
 */
#define R_ENTRY		"the program's entry point: entered with argc, not a return " \
			"address, on top of the stack (a return probe would overwrite it)"
#define R_JUMPED	"entered by a jump or a return, not a call: no return address " \
			"on top of the stack for a return probe"
#define R_INITFINI	".init/.fini section code, not a function"
#define R_PLT		"a PLT stub, not a function"
#define R_NOEXEC	"not in an executable section: not code"
#define R_NOSIZE	"size 0 in the symbol table: not known to be a function entry"
#define R_NORETURN	"never returns normally (documented no-return function): " \
			"no return to probe"
#define R_NORETURN_DWARF "never returns normally (DW_AT_noreturn in its DWARF): " \
			"no return to probe"

/*
 * fnmatch patterns of functions entered by a jump or a return; GCC's
 * "NAME.cold" parts (-freorder-blocks-and-partition) are a function's
 * rarely run blocks, jumped to from its body with its frame on the stack
 */
static const char *const jumped[] = {
	"_start", "_dl_start_user", "__restore_rt", "_dl_runtime_resolve*",
	"_dl_runtime_profile*", "__start_context", "*.cold", "*.cold.[0-9]*",
};

/*
 * Functions documented never to return (noreturn in glibc's, libgcc's,
 * libstdc++'s and CPython's headers). DWARF's DW_AT_noreturn would tell
 * of others, but Debian's binaries carry no DWARF.
 */
static const char *const noreturn[] = {
	/* glibc */
	"exit", "_exit", "_Exit", "quick_exit", "abort", "__libc_start_main",
	"__libc_start_call_main", "__libc_fatal", "__fortify_fail", "__chk_fail",
	"__stack_chk_fail", "__stack_chk_fail_local", "__assert_fail",
	"__assert_perror_fail", "__assert", "longjmp", "_longjmp", "siglongjmp",
	"__longjmp", "__longjmp_chk", "____longjmp_chk", "__libc_longjmp",
	"__libc_siglongjmp", "pthread_exit", "__pthread_exit", "thrd_exit", "err",
	"errx", "verr", "verrx", "setcontext", "__libc_dlerror_result",
	/* libgcc, libstdc++ */
	"_Unwind_Resume", "__cxa_throw", "__cxa_rethrow", "__cxa_bad_cast",
	"__cxa_bad_typeid", "__cxa_pure_virtual", "__cxa_deleted_virtual",
	"__cxa_throw_bad_array_new_length", "__cxa_call_terminate",
	"__cxa_call_unexpected", "_ZSt9terminatev", "_ZSt10unexpectedv",
	"_ZSt17rethrow_exceptionNSt15__exception_ptr13exception_ptrE",
	/* CPython */
	"Py_Exit", "Py_FatalError", "_Py_FatalErrorFunc", "_Py_FatalErrorFormat",
	"_Py_FatalRefcountErrorFunc", "_Py_FatalError_TstateNULL",
	/* bash */
	"sh_exit", "exit_shell", "jump_to_top_level", "throw_to_top_level",
	"fatal_error", "programming_error", "sh_longjmp",
};

static bool listed(const char *const *list, size_t n, const char *name, bool glob)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (glob ? !fnmatch(list[i], name, 0) : !strcmp(list[i], name))
			return true;
	return false;
}

const char *kfit_utarget_no_retprobe(const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (listed(jumped, sizeof(jumped) / sizeof(jumped[0]), names[i], true))
			return R_JUMPED;
	for (i = 0; i < n; i++)
		if (!strcmp(names[i], "_init") || !strcmp(names[i], "_fini"))
			return R_INITFINI;
	for (i = 0; i < n; i++)
		if (listed(noreturn, sizeof(noreturn) / sizeof(noreturn[0]), names[i], false))
			return R_NORETURN;
	return NULL;
}

/* The names of the function at addr (all its aliases), at most max */
#define ALIASES_MAX	16

static int aliases(const struct kfit_elf *e, __u64 addr, const char **names, int max)
{
	int lo = 0, hi = e->nsyms, mid, n = 0;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (e->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < e->nsyms && e->syms[lo].addr == addr && n < max; lo++)
		names[n++] = e->syms[lo].name;
	return n;
}

static const char *refusal(const struct kfit_elf *e, const struct kfit_elfsym *s)
{
	const char *names[ALIASES_MAX], *why;
	int n;

	if (e->program && e->entry && s->addr == e->entry)
		return R_ENTRY;
	if (s->flags & KFIT_ELF_SYM_PLT)
		return R_PLT;
	if (s->flags & KFIT_ELF_SYM_INITFINI)
		return R_INITFINI;
	if (s->flags & KFIT_ELF_SYM_NOEXEC)
		return R_NOEXEC;
	if (!s->size)
		return R_NOSIZE;
	n = aliases(e, s->addr, names, ALIASES_MAX);
	why = kfit_utarget_no_retprobe(names, n);
	if (!why && (s->flags & KFIT_ELF_SYM_NORETURN))
		why = R_NORETURN_DWARF;
	return why;
}

/*
 * The function names in path's .symtab and .dynsym (not a debug file's:
 * what its symbols name is what the file itself names), sorted and
 * unique, each at its lowest address, with why no probe may go there
 * (DWARF's noreturn read from the file or its debug file).
 * The file's symbols stay in *ep when ep is not NULL.
 */
static int read_funcs(const char *path, struct kfit_elf **ep, struct funcs *f,
		      char *err, size_t errlen)
{
	struct kfit_elf_opts o = { .noreturn = true };
	const struct kfit_elfsym *s;
	struct kfit_elf *e;
	size_t n;
	int i, ret;

	ret = kfit_elf_load(path, &o, &e, err, errlen);
	if (ret == -ENOEXEC && is_script(path)) {
		n = strlen(err);
		snprintf(err + n, errlen - n, " but a script: name its interpreter's "
			 "binary or library");
	}
	for (i = 0; !ret && (s = kfit_elf_name_at(e, i)); i++) {
		if (f->n && !strcmp(f->v[f->n - 1].name, s->name))
			continue;
		ret = funcs_push(f, strdup(s->name), s, refusal(e, s));
		if (ret)
			snprintf(err, errlen, "out of memory");
	}
	if (ep && !ret)
		*ep = e;
	else
		kfit_elf_free(e);
	return ret;
}

static bool has_name(const struct funcs *f, const char *name)
{
	int lo = 0, hi = f->n, mid, c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(f->v[mid].name, name);
		if (!c)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Since glibc 2.34 libpthread, libdl & co are empty: say where name is */
static void libc_hint(const char *path, const char *name, char *buf, size_t len)
{
	struct funcs f = { 0 };
	char libc[PATH_MAX], e[64];

	buf[0] = '\0';
	if (find_lib("c", libc, sizeof(libc)))
		return;
	canon(libc, sizeof(libc));
	if (strcmp(libc, path) && !read_funcs(libc, NULL, &f, e, sizeof(e)) &&
	    has_name(&f, name))
		snprintf(buf, len, "; libc has it: try c:%s", name);
	funcs_free(&f);
}

static int no_func(const struct kfit_utarget *u, const struct funcs *f,
		   const char *name, char *err, size_t errlen)
{
	char closest[200], hint[PATH_MAX + 64];
	const char **names;
	int i, found;

	names = malloc(sizeof(*names) * (f->n + 1));
	if (!names) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < f->n; i++)
		names[i] = f->v[i].name;
	found = kfit_strdist_closest(name, names, f->n, 5, closest, sizeof(closest));
	free(names);
	libc_hint(u->path, name, hint, sizeof(hint));
	if (!f->n)
		snprintf(err, errlen, "'%s' has no function '%s': it has no function "
			 "symbols (stripped?)%s", u->path, name, hint);
	else if (found)
		snprintf(err, errlen, "'%s' has no function '%s'; closest: %s%s",
			 u->path, name, closest, hint);
	else
		snprintf(err, errlen, "'%s' has no function '%s'%s", u->path, name, hint);
	return -ENOENT;
}

/* Of names for one address, the one people call: fewest leading '_', shortest */
static int alias_cmp(const void *a, const void *b)
{
	const struct func *x = *(const struct func *const *)a;
	const struct func *y = *(const struct func *const *)b;
	int ux = strspn(x->name, "_"), uy = strspn(y->name, "_");
	int lx = strlen(x->name), ly = strlen(y->name);

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (ux != uy)
		return ux - uy;
	if (lx != ly)
		return lx - ly;
	return strcmp(x->name, y->name);
}

static int name_cmp(const void *a, const void *b)
{
	const struct func *x = *(const struct func *const *)a;
	const struct func *y = *(const struct func *const *)b;

	return strcmp(x->name, y->name);
}

/*
 * A glob matching several names of one address (malloc, __libc_malloc)
 * keeps one: two probes there would count each call twice
 */
static int one_per_address(struct func **m, int n)
{
	int i, k = 0;

	qsort(m, n, sizeof(*m), alias_cmp);
	for (i = 0; i < n; i++)
		if (!k || m[i]->addr != m[k - 1]->addr)
			m[k++] = m[i];
	qsort(m, k, sizeof(*m), name_cmp);
	return k;
}

/* ---- IFUNCs ------------------------------------------------------------- */

/*
 * An IFUNC's symbol is its resolver, run once by the dynamic linker,
 * which stores the implementation it returns in a GOT slot: a probe on
 * the symbol counts nothing. The implementation is found as the linker
 * found it, as a link-time address of the file.
 */
struct ifunc_ctx {
	const char *path;
	int pid;
	struct kfit_elf *named;		/* the file with its debug symbols, to name code */
	bool named_read;
};

/* The load bias of path in process pid (its mapping at file offset 0) */
static int proc_bias(int pid, const struct kfit_elf *e, __u64 *bias)
{
	char maps[64], *line = NULL;
	struct kfit_elf_mapline m;
	size_t cap = 0;
	int err = -ENOENT;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f)
		return -errno;
	while (err && getline(&line, &cap, f) > 0) {
		if (kfit_elf_parse_mapline(line, &m) || m.pgoff || m.dev != e->dev ||
		    m.ino != e->ino || !e->nsegs)
			continue;
		*bias = m.start - (e->segs[0].vaddr & ~0xfffULL);
		err = 0;
	}
	free(line);
	fclose(f);
	return err;
}

/* From process pid's GOT slot the linker filled for the resolver (IRELATIVE) */
static int ifunc_from_got(const struct ifunc_ctx *c, const struct kfit_elf *e,
			  __u64 resolver, __u64 *impl)
{
	char mem[64], msg[128];
	__u64 slot, bias = 0, val;
	int fd;
	ssize_t n;

	if (kfit_elf_irelative(c->path, resolver, &slot, msg, sizeof(msg)) ||
	    proc_bias(c->pid, e, &bias))
		return -ENOENT;
	snprintf(mem, sizeof(mem), "/proc/%d/mem", c->pid);
	fd = open(mem, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = pread(fd, &val, sizeof(val), bias + slot);
	close(fd);
	if (n != sizeof(val) || val < bias)
		return -ENOENT;
	*impl = val - bias;
	return 0;
}

/*
 * As the linker resolved it in this process, when the file is mapped
 * here (libc is): the same file and CPU make the same choice
 */
static int ifunc_from_self(const char *path, const char *name, __u64 *impl)
{
	struct link_map *lm;
	void *h, *p;
	int err = -ENOENT;

	h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return -ENOENT;
	p = dlsym(h, name);
	if (p && !dlinfo(h, RTLD_DI_LINKMAP, &lm) && (__u64)(uintptr_t)p >= lm->l_addr) {
		*impl = (__u64)(uintptr_t)p - lm->l_addr;
		err = 0;
	}
	dlclose(h);
	return err;
}

/* The implementation's name, from the file or its debug file */
static char *impl_name(struct ifunc_ctx *c, const struct kfit_elf *e, __u64 addr)
{
	struct kfit_elf_opts o = { .debug = true };
	const struct kfit_elfsym *s = kfit_elf_by_addr(e, addr);
	char msg[PATH_MAX + 64], buf[64];

	if ((!s || s->addr != addr) && !c->named_read) {
		c->named_read = true;
		kfit_elf_load(c->path, &o, &c->named, msg, sizeof(msg));
	}
	if ((!s || s->addr != addr) && c->named)
		s = kfit_elf_by_addr(c->named, addr);
	if (s && s->addr == addr)
		return strdup(s->name);
	snprintf(buf, sizeof(buf), "code at 0x%llx", (unsigned long long)addr);
	return strdup(buf);
}

#define R_IFUNC	"an IFUNC whose implementation cannot be found (not resolved in " \
		"the process's GOT, nor in this one)"

/* The IFUNC's implementation into *off and *impl; NULL, or why not */
static const char *ifunc_resolve(struct ifunc_ctx *c, const struct kfit_elf *e,
				 const struct func *fn, __u64 *off, char **impl)
{
	const struct kfit_elfseg *g = NULL;
	__u64 addr = 0;
	int i, err = -ENOENT;

	if (c->pid > 0)
		err = ifunc_from_got(c, e, fn->addr, &addr);
	if (err)
		err = ifunc_from_self(c->path, fn->name, &addr);
	for (i = 0; !err && i < e->nsegs && !g; i++)
		if (e->segs[i].exec && addr - e->segs[i].vaddr < e->segs[i].filesz)
			g = &e->segs[i];
	if (err || !g || kfit_elf_addr_to_off(e, addr, off))
		return R_IFUNC;
	*impl = impl_name(c, e, addr);
	return *impl ? NULL : R_IFUNC;
}

/* ---- matching ------------------------------------------------------------- */

static int add_skip(struct kfit_utarget *u, char *name, const char *why)
{
	struct kfit_utarget_skip *s = realloc(u->skipped, (u->nskipped + 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	u->skipped = s;
	s[u->nskipped].name = name;
	s[u->nskipped++].reason = why;
	return 0;
}

/* One matched function into u: traced, or skipped (glob) or an error (a name) */
static int take(struct kfit_utarget *u, struct ifunc_ctx *c, const struct kfit_elf *e,
		struct func *fn, bool glob, char *err, size_t errlen)
{
	const char *why = fn->why;
	char *impl = NULL;
	__u64 off = 0;

	if (!why && fn->ifunc)
		why = ifunc_resolve(c, e, fn, &off, &impl);
	else if (!why && kfit_elf_addr_to_off(e, fn->addr, &off))
		why = R_NOEXEC;
	if (why && !glob) {
		snprintf(err, errlen, "cannot trace '%s' in '%s': %s", fn->name, u->path, why);
		return -EPERM;
	}
	if (why) {
		if (add_skip(u, fn->name, why))
			goto nomem;
		fn->name = NULL;
		return 0;
	}
	u->names[u->n] = fn->name;
	u->offs[u->n] = off;
	u->impls[u->n++] = impl;
	fn->name = NULL;
	return 0;
nomem:
	free(impl);
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}

#define R_SAME_CODE	"the same code as another function matched (IFUNCs resolving " \
			"to one implementation, memcpy and memmove): counted there"

/* Whether IFUNC i's code is another function's, which is kept instead */
static bool same_code(const struct kfit_utarget *u, int i)
{
	int j;

	for (j = 0; j < u->n; j++)
		if (j != i && u->offs[j] == u->offs[i] && (!u->impls[j] || j < i))
			return true;
	return false;
}

/* One probe per code address: two would count each call twice */
static int one_per_offset(struct kfit_utarget *u)
{
	bool *drop = calloc(u->n + 1, sizeof(*drop));
	int i, k = 0, err = 0;

	if (!drop)
		return -ENOMEM;
	for (i = 0; i < u->n; i++)
		drop[i] = u->impls[i] && same_code(u, i);
	for (i = 0; i < u->n; i++) {
		if (drop[i] && !err) {
			free(u->impls[i]);
			err = add_skip(u, u->names[i], R_SAME_CODE);
			if (err)
				free(u->names[i]);
			continue;
		}
		if (drop[i]) {
			free(u->impls[i]);
			free(u->names[i]);
			continue;
		}
		u->names[k] = u->names[i];
		u->offs[k] = u->offs[i];
		u->impls[k++] = u->impls[i];
	}
	u->n = k;
	free(drop);
	return err;
}

/* Moves the names matching func from f to u */
static int match(struct kfit_utarget *u, const struct kfit_elf *e, struct funcs *f,
		 const char *func, int pid, char *err, size_t errlen)
{
	struct ifunc_ctx c = { .path = u->path, .pid = pid };
	bool glob = strpbrk(func, "*?[") != NULL;
	struct func **m;
	int i, n = 0, ret = 0;

	m = malloc(sizeof(*m) * (f->n + 1));
	u->names = calloc(f->n + 1, sizeof(*u->names));
	u->offs = calloc(f->n + 1, sizeof(*u->offs));
	u->impls = calloc(f->n + 1, sizeof(*u->impls));
	if (!m || !u->names || !u->offs || !u->impls) {
		free(m);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < f->n; i++)
		if (!(glob ? fnmatch(func, f->v[i].name, 0) : strcmp(func, f->v[i].name)))
			m[n++] = &f->v[i];
	if (glob)
		n = one_per_address(m, n);
	for (i = 0; i < n && !ret; i++)
		ret = take(u, &c, e, m[i], glob, err, errlen);
	if (!ret && glob)
		ret = one_per_offset(u);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(m);
	kfit_elf_free(c.named);
	if (ret || u->n || u->nskipped)
		return ret;
	if (!glob)
		return no_func(u, f, func, err, errlen);
	snprintf(err, errlen, "no function of '%s' matches '%s'%s", u->path, func,
		 f->n ? "" : " (it has no function symbols: stripped?)");
	return -ENOENT;
}

int kfit_utarget_resolve(const char *spec, int pid, struct kfit_utarget *out,
			char *err, size_t errlen)
{
	struct kfit_elf *elf = NULL;
	struct funcs f = { 0 };
	const char *colon;
	char bin[PATH_MAX];
	int e;

	memset(out, 0, sizeof(*out));
	colon = spec ? strrchr(spec, ':') : NULL;
	if (!colon || colon == spec || !colon[1]) {
		snprintf(err, errlen, "'%s' is not BINARY:FUNCTION", spec ? spec : "");
		return -EINVAL;
	}
	snprintf(bin, sizeof(bin), "%.*s", (int)(colon - spec), spec);
	e = find_binary(bin, pid, out->path, sizeof(out->path), err, errlen);
	if (!e)
		e = read_funcs(out->path, &elf, &f, err, errlen);
	if (!e)
		e = match(out, elf, &f, colon + 1, pid, err, errlen);
	funcs_free(&f);
	kfit_elf_free(elf);
	if (e)
		kfit_utarget_free(out);
	return e;
}

void kfit_utarget_free(struct kfit_utarget *u)
{
	int i;

	for (i = 0; i < u->n; i++) {
		free(u->names[i]);
		free(u->impls[i]);
	}
	for (i = 0; i < u->nskipped; i++)
		free(u->skipped[i].name);
	free(u->names);
	free(u->offs);
	free(u->impls);
	free(u->skipped);
	u->names = NULL;
	u->offs = NULL;
	u->impls = NULL;
	u->skipped = NULL;
	u->n = u->nskipped = 0;
}
