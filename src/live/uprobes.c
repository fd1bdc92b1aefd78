// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_multi links through the bpf() syscall, the offsets uprobes go
 * at, and who else runs a binary (uprobes are per file: without a
 * process filter they fire in every process that maps it).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include "diag.h"
#include "elfsyms.h"
#include "fileio.h"
#include "uprobes.h"

#define UPROBE_MULTI_RETURN	(1U << 0)	/* BPF_F_UPROBE_MULTI_RETURN */

/* BPF_LINK_CREATE's attributes as 6.6+ lay them out for uprobe_multi */
struct link_create_umulti {
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__aligned_u64 path;
	__aligned_u64 offsets;
	__aligned_u64 ref_ctr_offsets;
	__aligned_u64 cookies;
	__u32 cnt;
	__u32 uflags;
	__u32 pid;
	__u32 pad;
};

int kfit_uprobes_multi_link(int prog_fd, const char *path, const __u64 *offs,
		     const __u64 *cookies, __u32 n, int pid, bool ret)
{
	struct link_create_umulti a;
	long fd;

	memset(&a, 0, sizeof(a));
	a.prog_fd = prog_fd;
	a.attach_type = KFIT_UPROBES_TRACE_MULTI;
	a.path = (__u64)(unsigned long)path;
	a.offsets = (__u64)(unsigned long)offs;
	a.cookies = (__u64)(unsigned long)cookies;
	a.cnt = n;
	a.uflags = ret ? UPROBE_MULTI_RETURN : 0;
	a.pid = pid;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : (int)fd;
}

/*
 * As libbpf 1.3+ finds out: a link on "/" fails with EBADF where
 * uprobe_multi exists; with pid -1 it fails early with EINVAL where its
 * process filter is fixed (6.10), still with EBADF where it filtered
 * threads (it looked the pid up after the path).
 */
static int umulti_check(char *why, size_t len)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = KFIT_UPROBES_TRACE_MULTI);
	__u64 off = 0;
	int prog, fd, err;

	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "kfit_umulti", "GPL", insns, 2, &o);
	if (prog < 0) {
		err = -errno;
		snprintf(why, len, "cannot load a uprobe_multi program: %s", kfit_reason(err));
		return err;
	}
	fd = kfit_uprobes_multi_link(prog, "/", &off, NULL, 1, 0, false);
	err = fd;
	if (fd >= 0)
		close(fd);
	if (err != -EBADF) {
		close(prog);
		snprintf(why, len, "no uprobe_multi links (6.6+) in this kernel");
		return -EOPNOTSUPP;
	}
	fd = kfit_uprobes_multi_link(prog, "/", &off, NULL, 1, -1, false);
	err = fd;
	if (fd >= 0)
		close(fd);
	close(prog);
	if (err != -EINVAL) {
		snprintf(why, len, "this kernel's uprobe_multi links filter threads, "
			 "not processes (fixed in 6.10)");
		return -EOPNOTSUPP;
	}
	return 0;
}

int kfit_uprobes_multi_check(char *why, size_t len)
{
	static char saved[160];
	static int err = 1;

	if (err > 0)
		err = umulti_check(saved, sizeof(saved));
	snprintf(why, len, "%s", err ? saved : "");
	return err;
}

/* ---- who runs a binary -------------------------------------------------- */

static int ppid_of(int pid)
{
	char buf[512], *p;
	int ppid;

	if (kfit_read_linef(buf, sizeof(buf), "/proc/%d/stat", pid))
		return -1;
	p = strrchr(buf, ')');	/* comm may hold spaces and parentheses */
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

static bool descends(int pid, int root)
{
	int depth;

	for (depth = 0; pid > 1 && depth < 256; depth++) {
		pid = ppid_of(pid);
		if (pid == root)
			return true;
	}
	return false;
}

static bool maps_file(int pid, dev_t dev, ino_t ino)
{
	struct kfit_elf_mapline m;
	char path[64], *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0)
		found = !kfit_elf_parse_mapline(line, &m) && m.ino == ino && m.dev == dev;
	free(line);
	fclose(f);
	return found;
}

int kfit_uprobes_binary_users(const char *path, int pid, bool descendants,
		      struct kfit_uprobes_users *u)
{
	struct dirent *d;
	struct stat st;
	DIR *dir;
	int p, k;

	memset(u, 0, sizeof(*u));
	if (stat(path, &st))
		return -errno;
	dir = opendir("/proc");
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		p = atoi(d->d_name);
		if (p == getpid() || p == pid || !maps_file(p, st.st_dev, st.st_ino))
			continue;
		if (pid && descendants && descends(p, pid))
			continue;
		k = u->n++;
		if (k >= 4)
			continue;
		u->pid[k] = p;
		if (kfit_read_linef(u->comm[k], sizeof(u->comm[k]), "/proc/%d/comm", p))
			snprintf(u->comm[k], sizeof(u->comm[k]), "?");
	}
	closedir(dir);
	return 0;
}
