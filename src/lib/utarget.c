// SPDX-License-Identifier: GPL-2.0
/*
 * User function targets: "c:malloc", "/usr/bin/python3:PyObject_*" into
 * the file to put uprobes in and the function names there.
 */
#include <dirent.h>
#include <errno.h>
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
};

struct funcs {
	struct func *v;
	int n, cap;
};

static int funcs_push(struct funcs *f, char *name, __u64 addr)
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
	f->v[f->n].name = name;
	f->v[f->n++].addr = addr;
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

bool kfit_is_user_target(const char *spec)
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
	return kfit_proc_path(NULL, pid, target, st.st_dev, st.st_ino, out, len) ?
	       -ENOENT : 0;
}

/* The library of that name mapped in the process */
static int from_maps(int pid, const char *name, char *out, size_t len)
{
	char maps[64], prefix[256], *line = NULL;
	struct kfit_mapline m;
	size_t cap = 0;
	int err = -ENOENT;
	FILE *f;

	lib_prefix(name, prefix, sizeof(prefix));
	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f)
		return -ENOENT;
	while (err && getline(&line, &cap, f) > 0) {
		if (kfit_parse_mapline(line, &m) || m.path[0] != '/')
			continue;
		if (strstr(m.path, " (deleted)") || lib_rank(base_of(m.path), prefix) != 2)
			continue;
		if (!kfit_proc_path(NULL, pid, m.path, m.dev, m.ino, out, len))
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
 * The function names in path's .symtab and .dynsym (not a debug file's:
 * libbpf finds uprobes' functions in the file itself), sorted and unique,
 * each at its lowest address. A symbol of size 0 is not one to put a
 * probe on.
 */
static int read_funcs(const char *path, struct funcs *f, char *err, size_t errlen)
{
	const struct kfit_elfsym *s;
	struct kfit_elf *e;
	size_t n;
	int i, ret;

	ret = kfit_elf_load(path, NULL, &e, err, errlen);
	if (ret == -ENOEXEC && is_script(path)) {
		n = strlen(err);
		snprintf(err + n, errlen - n, " but a script: name its interpreter's "
			 "binary or library");
	}
	for (i = 0; !ret && (s = kfit_elf_name_at(e, i)); i++) {
		if (!s->size || (f->n && !strcmp(f->v[f->n - 1].name, s->name)))
			continue;
		ret = funcs_push(f, strdup(s->name), s->addr);
		if (ret)
			snprintf(err, errlen, "out of memory");
	}
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
	if (strcmp(libc, path) && !read_funcs(libc, &f, e, sizeof(e)) &&
	    has_name(&f, name))
		snprintf(buf, len, "; libc has it: try c:%s", name);
	funcs_free(&f);
}

static int no_func(const struct kfit_ufuncs *u, const struct funcs *f,
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
	found = kfit_closest(name, names, f->n, 5, closest, sizeof(closest));
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

/* Moves the names matching func from f to u */
static int match(struct kfit_ufuncs *u, struct funcs *f, const char *func,
		 char *err, size_t errlen)
{
	bool glob = strpbrk(func, "*?[") != NULL;
	struct func **m;
	int i, n = 0;

	m = malloc(sizeof(*m) * (f->n + 1));
	u->names = calloc(f->n + 1, sizeof(*u->names));
	if (!m || !u->names) {
		free(m);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < f->n; i++)
		if (!(glob ? fnmatch(func, f->v[i].name, 0) : strcmp(func, f->v[i].name)))
			m[n++] = &f->v[i];
	if (glob)
		n = one_per_address(m, n);
	for (i = 0; i < n; i++) {
		u->names[u->n++] = m[i]->name;
		m[i]->name = NULL;
	}
	free(m);
	if (u->n)
		return 0;
	if (!glob)
		return no_func(u, f, func, err, errlen);
	snprintf(err, errlen, "no function of '%s' matches '%s'%s", u->path, func,
		 f->n ? "" : " (it has no function symbols: stripped?)");
	return -ENOENT;
}

int kfit_ufuncs_resolve(const char *spec, int pid, struct kfit_ufuncs *out,
			char *err, size_t errlen)
{
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
		e = read_funcs(out->path, &f, err, errlen);
	if (!e)
		e = match(out, &f, colon + 1, err, errlen);
	funcs_free(&f);
	if (e)
		kfit_ufuncs_free(out);
	return e;
}

void kfit_ufuncs_free(struct kfit_ufuncs *u)
{
	int i;

	for (i = 0; i < u->n; i++)
		free(u->names[i]);
	free(u->names);
	u->names = NULL;
	u->n = 0;
}
