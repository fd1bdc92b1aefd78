// SPDX-License-Identifier: GPL-2.0
/* The mass attacher (attach.h): fentry, a copy of the programs per function */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "attach_int.h"
#include "btf.h"
#include "diag.h"
#include "duration.h"
#include "explain.h"
#include "fileio.h"
#include "output.h"
#include "probe.h"
#include "run.h"
#include "ufollow.h"
#include "uprobes.h"

static int keep_fd(struct kfit_attacher *a, int fd)
{
	return kfit_fd_push(&a->fds, &a->nfds, fd);
}

/* ---- fentry ------------------------------------------------------------- */

static int read_mods(struct kfit_attacher *a)
{
	struct bpf_btf_info info;
	__u32 id = 0, len;
	char name[64];
	int fd;

	a->mods_read = true;
	while (!bpf_btf_get_next_id(id, &id)) {
		struct modbtf *m;

		fd = bpf_btf_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		info.name = (__u64)(unsigned long)name;
		info.name_len = sizeof(name);
		len = sizeof(info);
		name[0] = '\0';
		if (bpf_obj_get_info_by_fd(fd, &info, &len) || !info.kernel_btf ||
		    !strcmp(name, "vmlinux")) {
			close(fd);
			continue;
		}
		m = realloc(a->mods, (a->nmods + 1) * sizeof(*m));
		if (!m) {
			close(fd);
			return -ENOMEM;
		}
		a->mods = m;
		m = &a->mods[a->nmods++];
		m->id = id;
		m->fd = fd;
		m->btf = btf__load_from_kernel_by_id_split(id, kfit_btf_vmlinux());
	}
	return 0;
}

/* The function's BTF id, and the fd of the module BTF that holds it (0: vmlinux) */
static int btf_id_of(struct kfit_attacher *a, const char *name, int *obj_fd)
{
	struct btf *vml = kfit_btf_vmlinux();
	int i, id;

	*obj_fd = 0;
	id = vml ? btf__find_by_name_kind(vml, name, BTF_KIND_FUNC) : -ENOENT;
	if (id > 0)
		return id;
	if (!a->mods_read && read_mods(a))
		return -ENOMEM;
	for (i = 0; i < a->nmods; i++) {
		if (!a->mods[i].btf)
			continue;
		id = btf__find_by_name_kind(a->mods[i].btf, name, BTF_KIND_FUNC);
		if (id > 0) {
			*obj_fd = a->mods[i].fd;
			return id;
		}
	}
	return -ESRCH;
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

/* Where each function of the copied instructions starts: n of them, or -E2BIG */
static int func_starts(const struct bpf_program *prog, __u32 *start, __u32 room)
{
	const struct bpf_insn *in = bpf_program__insns(prog);
	size_t i, cnt = bpf_program__insn_cnt(prog);
	__u32 n = 1, j, off;

	start[0] = 0;
	for (i = 0; i < cnt; i++) {
		bool call = in[i].code == (BPF_JMP | BPF_CALL) &&
			    in[i].src_reg == BPF_PSEUDO_CALL;
		bool func = in[i].code == (BPF_LD | BPF_IMM | BPF_DW) &&
			    in[i].src_reg == BPF_PSEUDO_FUNC;

		if (!call && !func)
			continue;
		off = i + in[i].imm + 1;
		for (j = 0; j < n && start[j] != off; j++)
			;
		if (j < n)
			continue;
		if (n == room)
			return -E2BIG;
		start[n++] = off;
	}
	qsort(start, n, sizeof(*start), cmp_u32);
	return n;
}

/*
 * The template's BTF and function types, in order, at the starts of its
 * functions in the instructions copied: the kernel reports them at their
 * offsets after its own rewriting, which a copy must not take.
 */
static void read_finfo(const struct bpf_program *prog, struct finfo *fi)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), *start = NULL, i;
	int n;

	fi->read = true;
	fi->btf_fd = -1;
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) ||
	    info.nr_func_info <= 1)
		return;
	n = info.nr_func_info;
	fi->rec = calloc(n, sizeof(*fi->rec));
	start = calloc(n, sizeof(*start));
	memset(&info, 0, sizeof(info));
	info.nr_func_info = n;
	info.func_info_rec_size = sizeof(*fi->rec);
	info.func_info = (__u64)(unsigned long)fi->rec;
	len = sizeof(info);
	if (!fi->rec || !start || bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) ||
	    func_starts(prog, start, n) != n) {
		free(start);
		return;
	}
	for (i = 0; i < (__u32)n; i++)
		fi->rec[i].insn_off = start[i];
	free(start);
	fi->n = n;
	fi->btf_fd = bpf_btf_get_fd_by_id(info.btf_id);
}

static int clone_prog(struct kfit_attacher *a, const struct bpf_program *prog,
		      int btf_id, int obj_fd)
{
	struct finfo *fi = &a->finfo[prog == a->p.fexit];
	LIBBPF_OPTS(bpf_prog_load_opts, o,
		    .expected_attach_type = bpf_program__expected_attach_type(prog),
		    .attach_btf_id = btf_id,
		    .attach_btf_obj_fd = obj_fd);
	int fd;

	if (!fi->read)
		read_finfo(prog, fi);
	if (fi->btf_fd >= 0) {
		o.prog_btf_fd = fi->btf_fd;
		o.func_info = fi->rec;
		o.func_info_cnt = fi->n;
		o.func_info_rec_size = sizeof(*fi->rec);
	}
	fd = bpf_prog_load(bpf_program__type(prog), bpf_program__name(prog), "GPL",
			   bpf_program__insns(prog), bpf_program__insn_cnt(prog), &o);
	if (fd < 0)
		return -errno;
	return keep_fd(a, fd) ? -ENOMEM : fd;
}

static int fentry_link(struct kfit_attacher *a, const struct bpf_program *prog,
		       int i, int btf_id, int obj_fd)
{
	LIBBPF_OPTS(bpf_link_create_opts, o, .tracing.cookie = i);
	int fd, lfd;

	fd = clone_prog(a, prog, btf_id, obj_fd);
	if (fd < 0)
		return fd;
	lfd = bpf_link_create(fd, 0, bpf_program__expected_attach_type(prog), &o);
	if (lfd < 0)
		return -errno;
	return keep_fd(a, lfd);
}

int attach_fentry(struct kfit_attacher *a, int i)
{
	int nfds = a->nfds, obj_fd, id, err;

	id = btf_id_of(a, a->t->funcs[i].name, &obj_fd);
	if (id < 0)
		return id;
	err = fentry_link(a, a->p.fentry, i, id, obj_fd);
	if (!err)
		err = fentry_link(a, a->p.fexit, i, id, obj_fd);
	if (err)
		attach_undo(a, nfds, a->nlinks);
	return err;
}
