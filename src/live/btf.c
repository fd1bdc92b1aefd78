// SPDX-License-Identifier: GPL-2.0
/* Questions to BTF: does the kernel have this function, this field? */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf.h"
#include "kfit/ret.h"

/* Anonymous structs inside anonymous unions inside...: bounded anyway */
#define MAX_NESTING 8

struct btf *kfit_btf_vmlinux(void)
{
	static struct btf *vmlinux;

	/* Kept for the life of the process; a failure is tried again */
	if (!vmlinux)
		vmlinux = btf__load_vmlinux_btf();
	return vmlinux;
}

/* Function name's prototype in *proto: 0, or -errno */
static int func_proto(const struct btf *btf, const char *name, const struct btf_type **proto)
{
	const struct btf_type *t;
	int id;

	if (!btf || !name)
		return -EINVAL;
	id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	if (id < 0)
		return id;
	t = btf__type_by_id(btf, id);
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	if (!t || !btf_is_func_proto(t))
		return -EINVAL;
	*proto = t;
	return 0;
}

int kfit_btf_func_nargs(const struct btf *btf, const char *name)
{
	const struct btf_type *t;
	const struct btf_param *p;
	int n, err = func_proto(btf, name, &t);

	if (err)
		return err;
	n = btf_vlen(t);
	/* A variadic function ends with an unnamed void parameter */
	p = btf_params(t);
	if (n && !p[n - 1].type && !p[n - 1].name_off)
		n--;
	return n;
}

bool kfit_btf_has_func(const struct btf *btf, const char *name)
{
	return kfit_btf_func_nargs(btf, name) >= 0;
}

/* Through const, volatile and typedefs to the type itself */
static const struct btf_type *skip_mods(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	return t;
}

/* Members of anonymous structs and unions count as the outer struct's */
static bool has_member(const struct btf *btf, const struct btf_type *t,
		       const char *field, int depth)
{
	const struct btf_member *m = btf_members(t);
	const struct btf_type *mt;
	const char *name;
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++) {
		name = btf__name_by_offset(btf, m->name_off);
		if (name && *name) {
			if (!strcmp(name, field))
				return true;
			continue;
		}
		mt = skip_mods(btf, m->type);
		if (depth < MAX_NESTING && mt && btf_is_composite(mt) &&
		    has_member(btf, mt, field, depth + 1))
			return true;
	}
	return false;
}

bool kfit_btf_has_field(const struct btf *btf, const char *sname, const char *field)
{
	const struct btf_type *t;
	int id;

	if (!btf || !sname || !field)
		return false;
	id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	if (id < 0)
		id = btf__find_by_name_kind(btf, sname, BTF_KIND_UNION);
	if (id < 0)
		return false;
	t = btf__type_by_id(btf, id);
	return t && has_member(btf, t, field, 0);
}

int kfit_btf_module_count(void)
{
	struct dirent *e;
	int n = 0;
	DIR *d;

	d = opendir("/sys/kernel/btf");
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "vmlinux"))
			continue;
		n++;
	}
	closedir(d);
	return n;
}

/* The kind of a return type: an integer's size and sign, a pointer, void */
static int ret_kind(const struct btf *btf, __u32 id)
{
	const struct btf_type *t;

	if (!id)
		return KFIT_RET_VOID;
	t = skip_mods(btf, id);
	if (!t)
		return -EINVAL;
	if (btf_is_ptr(t))
		return 8 | KFIT_RET_PTR | KFIT_RET_SIGNED | KFIT_RET_ERRNO;
	if (btf_is_enum(t) || btf_is_enum64(t))
		return (t->size & KFIT_RET_SIZE) | KFIT_RET_SIGNED;
	if (!btf_is_int(t) || t->size > 8)
		return 0;
	if (btf_int_encoding(t) & BTF_INT_BOOL)
		return t->size;
	if (!(btf_int_encoding(t) & BTF_INT_SIGNED))
		return t->size;
	/* a kernel function's int or long: -errno when it fails */
	return t->size | KFIT_RET_SIGNED | (t->size >= 4 ? KFIT_RET_ERRNO : 0);
}

int kfit_btf_func_ret(const struct btf *btf, const char *name)
{
	const struct btf_type *t;
	int err = func_proto(btf, name, &t);

	return err ? err : ret_kind(btf, t->type);
}
