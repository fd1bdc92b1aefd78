// SPDX-License-Identifier: GPL-2.0
/* Argument lists of targets: 'func(a, b->c.d:str, u64 size)' */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "argexpr.h"
#include "kfit/args.h"
#include "kfit/ret.h"

#define ITEM_MAX	256	/* bytes of one item: a path of a few fields */

static const struct {
	const char *word;
	unsigned char kind;
	bool str;
} types[] = {
	{ "u8", 1, false }, { "u16", 2, false }, { "u32", 4, false },
	{ "u64", 8, false }, { "s8", 1 | KFIT_RET_SIGNED, false },
	{ "s16", 2 | KFIT_RET_SIGNED, false }, { "s32", 4 | KFIT_RET_SIGNED, false },
	{ "s64", 8 | KFIT_RET_SIGNED, false }, { "int", 4 | KFIT_RET_SIGNED, false },
	{ "long", 8 | KFIT_RET_SIGNED, false }, { "size_t", 8, false },
	{ "bool", 1, false }, { "ptr", 8 | KFIT_RET_PTR, false },
	{ "str", 8 | KFIT_RET_PTR, true }, { "string", 8 | KFIT_RET_PTR, true },
};

int kfit_argtype_kind(const char *word, unsigned char *kind, bool *is_str)
{
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(word, types[i].word)) {
			*kind = types[i].kind;
			*is_str = types[i].str;
			return 0;
		}
	return -EINVAL;
}

const char *kfit_argtype_words(void)
{
	return "u8 u16 u32 u64 s8 s16 s32 s64 int long size_t bool ptr str";
}

int kfit_argexpr_split(const char *spec, char *base, size_t baselen,
		       const char **list, size_t *listlen, char *err, size_t errlen)
{
	size_t n = strlen(spec);
	const char *open = strrchr(spec, '(');

	*list = NULL;
	*listlen = 0;
	if (!open) {
		if (strchr(spec, ')')) {
			snprintf(err, errlen, "'%s': a ')' without its '('", spec);
			return -EINVAL;
		}
		if (n >= baselen)
			goto long_base;
		memcpy(base, spec, n + 1);
		return 0;
	}
	if (spec[n - 1] != ')' || memchr(spec, '(', open - spec) ||
	    strchr(open, ')') != spec + n - 1) {
		snprintf(err, errlen, "'%s': arguments go in one '(...)' at the end: "
			 "'vfs_read(count)'", spec);
		return -EINVAL;
	}
	if (open == spec) {
		snprintf(err, errlen, "'%s': no function before '('", spec);
		return -EINVAL;
	}
	if ((size_t)(open - spec) >= baselen)
		goto long_base;
	snprintf(base, baselen, "%.*s", (int)(open - spec), spec);
	*list = open + 1;
	*listlen = spec + n - 1 - *list;
	return 0;
long_base:
	/* never cut short: a shorter glob or path would be another target */
	snprintf(err, errlen, "'%.40s...': too long (at most %zu bytes before '(')",
		 spec, baselen - 1);
	return -EINVAL;
}

static bool ident_char(char c, bool first)
{
	return c == '_' || isalpha((unsigned char)c) || (!first && isdigit((unsigned char)c));
}

/* An identifier at *p: its length (0: none there) */
static size_t ident(const char *p)
{
	size_t n = 0;

	while (ident_char(p[n], n == 0))
		n++;
	return n;
}

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static void expr_free(struct kfit_argexpr *e)
{
	int i;

	for (i = 0; i < e->nseg; i++)
		free(e->seg[i]);
	free(e->seg);
	free(e->arrow);
	free(e->text);
	free(e->type);
	free(e->as);
	memset(e, 0, sizeof(*e));
}

static int add_seg(struct kfit_argexpr *e, const char *s, size_t n, bool arrow)
{
	char **seg = realloc(e->seg, (e->nseg + 1) * sizeof(*seg));
	bool *a;

	if (!seg)
		return -ENOMEM;
	e->seg = seg;
	a = realloc(e->arrow, (e->nseg + 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	e->arrow = a;
	seg[e->nseg] = dupn(s, n);
	if (!seg[e->nseg])
		return -ENOMEM;
	a[e->nseg++] = arrow;
	return 0;
}

static bool type_known(const char *word)
{
	unsigned char kind;
	bool str;

	return !kfit_argtype_kind(word, &kind, &str);
}

/* "[TYPE ]NAME{->F|.F}[:AS]" in s (trimmed, NUL-ended) */
static int parse_item(char *s, struct kfit_argexpr *e, char *err, size_t errlen)
{
	char *p = s, *colon = strrchr(s, ':'), *sp;
	size_t n;
	bool arrow = false;
	int r;

	e->text = strdup(s);
	if (!e->text)
		return -ENOMEM;
	if (colon) {
		*colon = '\0';
		e->as = strdup(colon + 1);
		if (!e->as)
			return -ENOMEM;
	}
	sp = strpbrk(s, " \t");
	if (sp) {
		e->type = dupn(s, sp - s);
		if (!e->type)
			return -ENOMEM;
		p = sp + strspn(sp, " \t");
		/* before the rest: 'unsigned int x' is a type we lack */
		if (!type_known(e->type)) {
			snprintf(err, errlen, "'%s': unknown type '%s' (types: %s)",
				 e->text, e->type, kfit_argtype_words());
			return -EINVAL;
		}
	}
	for (;;) {
		n = ident(p);
		if (!n) {
			snprintf(err, errlen, "'%s': a name was expected at '%s'",
				 e->text, *p ? p : "the end");
			return -EINVAL;
		}
		r = add_seg(e, p, n, arrow);
		if (r)
			return r;
		p += n;
		if (!*p)
			return 0;
		if (p[0] == '-' && p[1] == '>') {
			arrow = true;
			p += 2;
		} else if (p[0] == '.') {
			arrow = false;
			p++;
		} else {
			snprintf(err, errlen, "'%s': '->', '.' or ':' was expected at '%s'",
				 e->text, p);
			return -EINVAL;
		}
	}
}

static int check_item(const struct kfit_argexpr *e, char *err, size_t errlen)
{
	if (e->as && !type_known(e->as)) {
		snprintf(err, errlen, "'%s': unknown type ':%s' (types: %s)", e->text,
			 e->as, kfit_argtype_words());
		return -EINVAL;
	}
	if (e->type && e->nseg > 1) {
		snprintf(err, errlen, "'%s': a parameter given a type has no fields to "
			 "follow (they need DWARF or BTF)", e->text);
		return -EINVAL;
	}
	return 0;
}

static int add_item(struct kfit_arglist *l, const char *s, size_t n,
		    char *err, size_t errlen)
{
	char buf[ITEM_MAX];
	struct kfit_argexpr *v;
	int r;

	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (!n) {
		snprintf(err, errlen, "an empty argument in the list");
		return -EINVAL;
	}
	if (n >= sizeof(buf)) {
		snprintf(err, errlen, "an argument of more than %d bytes", ITEM_MAX - 1);
		return -EINVAL;
	}
	if (l->n == KFIT_ARGS_MAX) {
		snprintf(err, errlen, "at most %d arguments per function", KFIT_ARGS_MAX);
		return -EINVAL;
	}
	v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	v = &l->v[l->n++];
	memset(v, 0, sizeof(*v));
	memcpy(buf, s, n);
	buf[n] = '\0';
	r = parse_item(buf, v, err, errlen);
	return r ? r : check_item(v, err, errlen);
}

int kfit_arglist_parse(const char *list, size_t len, struct kfit_arglist *out,
		       char *err, size_t errlen)
{
	const char *p = list, *end = list + len, *comma;
	int i, typed = 0, r = 0;

	memset(out, 0, sizeof(*out));
	while (p <= end && !r) {
		comma = memchr(p, ',', end - p);
		if (!comma)
			comma = end;
		r = add_item(out, p, comma - p, err, errlen);
		p = comma + 1;
	}
	for (i = 0; i < out->n && !r; i++)
		typed += out->v[i].type != NULL;
	if (!r && typed && typed != out->n) {
		snprintf(err, errlen, "give every argument a type or none: with types, "
			 "the list is the parameters in order ('u64 size, ptr p')");
		r = -EINVAL;
	}
	out->typed = typed > 0;
	if (r)
		kfit_arglist_free(out);
	return r;
}

void kfit_arglist_free(struct kfit_arglist *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		expr_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
