// SPDX-License-Identifier: GPL-2.0
/* Tracepoint format files: the fields of a raw record */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fileio.h"
#include "tpformat.h"
#include "kfit/ret.h"

/* The decimal after key in s, up to its ';': 0, or -1 when none */
static int field_num(const char *s, const char *key, __u32 *v)
{
	const char *k = strstr(s, key);
	unsigned long long x;
	char num[16], *end;
	size_t n;

	if (!k)
		return -1;
	k += strlen(key);
	n = strcspn(k, ";");
	if (!n || n >= sizeof(num) || !k[n])
		return -1;
	memcpy(num, k, n);
	num[n] = '\0';
	if (num[0] < '0' || num[0] > '9')
		return -1;
	errno = 0;
	x = strtoull(num, &end, 10);
	if (errno || *end || x > UINT32_MAX)
		return -1;
	*v = x;
	return 0;
}

int kfit_tpformat_field(char *l, struct kfit_tpfield *fl)
{
	char *decl, *semi, *sp, *br;
	__u32 sig = 0;

	l += strspn(l, " \t");
	if (strncmp(l, "field:", 6))
		return -1;
	decl = l + strlen("field:");
	semi = strchr(decl, ';');
	if (!semi)
		return -1;
	*semi = '\0';
	if (field_num(semi + 1, "offset:", &fl->offset) ||
	    field_num(semi + 1, "size:", &fl->size) ||
	    fl->offset > 0xffff || fl->size > 0xffff)
		return -1;
	if (strstr(semi + 1, "signed:") && field_num(semi + 1, "signed:", &sig))
		return -1;
	while (*decl == ' ')
		decl++;
	sp = strrchr(decl, ' ');
	if (!sp || sp == decl || !sp[1])
		return -1;
	*sp = '\0';
	fl->type = decl;
	fl->name = sp + 1;
	br = strchr(fl->name, '[');
	fl->is_array = br != NULL;
	if (br)
		*br = '\0';
	fl->is_signed = sig != 0;
	if (!*fl->name)
		return -1;
	return strncmp(fl->name, "common_", 7) ? 1 : 0;
}

int kfit_tpformat_read(const char *tp, struct kfit_tpfield **fields, char **text)
{
	const char *tfs = kfit_tracefs();
	char path[PATH_MAX], *buf, *l, *save = NULL;
	struct kfit_tpfield *f = NULL, *g;
	int n = 0, r;

	*fields = NULL;
	*text = NULL;
	if (!tfs)
		return -ENOENT;
	if (kfit_pathf(path, sizeof(path), "%s/events/%s/format", tfs, tp))
		return -ENAMETOOLONG;
	buf = kfit_read_all(path, NULL);
	if (!buf)
		return errno ? -errno : -ENOENT;
	for (l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		g = realloc(f, (n + 1) * sizeof(*f));
		if (!g) {
			free(f);
			free(buf);
			return -ENOMEM;
		}
		f = g;
		r = kfit_tpformat_field(l, &f[n]);
		n += r > 0;
	}
	*fields = f;
	*text = buf;
	return n;
}

/* C types whose size a system call's 8-byte field does not say */
static const struct {
	const char *type;
	unsigned char kind;
} ctypes[] = {
	{ "int", 4 | KFIT_RET_SIGNED }, { "pid_t", 4 | KFIT_RET_SIGNED },
	{ "clockid_t", 4 | KFIT_RET_SIGNED }, { "timer_t", 4 | KFIT_RET_SIGNED },
	{ "mqd_t", 4 | KFIT_RET_SIGNED }, { "key_t", 4 | KFIT_RET_SIGNED },
	{ "key_serial_t", 4 | KFIT_RET_SIGNED }, { "rwf_t", 4 | KFIT_RET_SIGNED },
	{ "s32", 4 | KFIT_RET_SIGNED }, { "__s32", 4 | KFIT_RET_SIGNED },
	{ "unsigned int", 4 }, { "unsigned", 4 }, { "u32", 4 }, { "__u32", 4 },
	{ "uid_t", 4 }, { "gid_t", 4 }, { "qid_t", 4 },
	{ "short", 2 | KFIT_RET_SIGNED }, { "unsigned short", 2 }, { "umode_t", 2 },
	{ "s16", 2 | KFIT_RET_SIGNED }, { "__s16", 2 | KFIT_RET_SIGNED },
	{ "u16", 2 }, { "__u16", 2 },
	{ "s8", 1 | KFIT_RET_SIGNED }, { "__s8", 1 | KFIT_RET_SIGNED },
	{ "u8", 1 }, { "__u8", 1 },
	{ "long", 8 | KFIT_RET_SIGNED }, { "loff_t", 8 | KFIT_RET_SIGNED },
	{ "off_t", 8 | KFIT_RET_SIGNED }, { "__s64", 8 | KFIT_RET_SIGNED },
};

unsigned char kfit_tpformat_kind(const struct kfit_tpfield *f)
{
	const char *t = f->type;
	size_t i;

	if (strchr(t, '*'))
		return 8 | KFIT_RET_PTR;
	if (!strncmp(t, "const ", 6))
		t += 6;
	for (i = 0; i < sizeof(ctypes) / sizeof(ctypes[0]); i++)
		if (!strcmp(t, ctypes[i].type))
			return ctypes[i].kind;
	/* an enum in a wider field is an int (landlock_add_rule's rule_type) */
	if (!strncmp(t, "enum ", 5) && f->size > 4)
		return 4;
	if (!f->size || f->size > 8 || (f->size & (f->size - 1)))
		return 0;
	return f->size | (f->is_signed ? KFIT_RET_SIGNED : 0);
}
