// SPDX-License-Identifier: GPL-2.0
/* JSON writer and text tables */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "duration.h"
#include "output.h"

void kfit_json_init(struct kfit_json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
}

int kfit_utf8_len(const unsigned char *s)
{
	int n, i;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong three-byte forms, surrogates, beyond U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

/*
 * Markup-significant characters as entities, control characters as '?',
 * bytes that are not UTF-8 as U+FFFD: the document stays well-formed
 * whatever a name holds
 */
void kfit_xml_text(FILE *f, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t nchars = 0;
	int n;

	for (; *s && (!max || nchars < max); nchars++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if (*s >= 0x80 && (n = kfit_utf8_len(s))) {
				fwrite(s, 1, n, f);
				s += n;
				continue;
			}
			if (*s >= 0x80)
				fputs("\xef\xbf\xbd", f);	/* U+FFFD */
			else
				fputc(*s < 0x20 || *s == 0x7f ? '?' : *s, f);
		}
		s++;
	}
}

size_t kfit_utf8_chars(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = 0;
	int k;

	while (*s) {
		k = *s >= 0x80 ? kfit_utf8_len(s) : 0;
		s += k ? k : 1;
		n++;
	}
	return n;
}

/*
 * Quotes, backslashes and control characters are escaped; bytes that are
 * not UTF-8 (a comm can hold anything) become U+FFFD so the output parses.
 */
static void json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	fputc('"', f);
	while (*s) {
		/* a run of what needs no escaping, written at once (-j writes millions) */
		for (n = 0; s[n] >= 0x20 && s[n] < 0x80 && s[n] != '"' && s[n] != '\\'; n++)
			;
		if (n) {
			fwrite(s, 1, n, f);
			s += n;
			continue;
		}
		if (*s == '"' || *s == '\\') {
			fprintf(f, "\\%c", *s++);
		} else if (*s < 0x20) {
			fprintf(f, "\\u%04x", *s++);
		} else if ((n = kfit_utf8_len(s))) {
			fwrite(s, 1, n, f);
			s += n;
		} else {
			fputs("\\ufffd", f);
			s++;
		}
	}
	fputc('"', f);
}

static void indent(struct kfit_json *j)
{
	fprintf(j->f, "\n%*s", 2 * j->depth, "");
}

/* Separator, indentation and key before any value */
static void json_prefix(struct kfit_json *j, const char *key)
{
	if (j->has_item[j->depth])
		fputs(j->depth ? "," : "\n", j->f);
	if (j->pretty && j->depth)
		indent(j);
	j->has_item[j->depth] = true;
	if (!key)
		return;
	json_string(j->f, key);
	fputs(j->pretty ? ": " : ":", j->f);
}

static void json_open(struct kfit_json *j, const char *key, char c)
{
	json_prefix(j, key);
	fputc(c, j->f);
	/* Deeper nesting is a bug in the caller, not a run-time condition */
	if (j->depth + 1 >= KFIT_JSON_DEPTH)
		abort();
	j->depth++;
	j->has_item[j->depth] = false;
}

static void json_close(struct kfit_json *j, char c)
{
	if (!j->depth)
		abort();
	j->depth--;
	if (j->pretty && j->has_item[j->depth + 1])
		indent(j);
	fputc(c, j->f);
}

void kfit_json_begin_object(struct kfit_json *j, const char *key)
{
	json_open(j, key, '{');
}

void kfit_json_end_object(struct kfit_json *j)
{
	json_close(j, '}');
}

void kfit_json_begin_array(struct kfit_json *j, const char *key)
{
	json_open(j, key, '[');
}

void kfit_json_end_array(struct kfit_json *j)
{
	json_close(j, ']');
}

void kfit_json_u64(struct kfit_json *j, const char *key, __u64 v)
{
	char buf[24];

	json_prefix(j, key);
	fwrite(buf, 1, kfit_u64_str(v, buf), j->f);
}

void kfit_json_i64(struct kfit_json *j, const char *key, __s64 v)
{
	json_prefix(j, key);
	fprintf(j->f, "%lld", v);
}

/* JSON has no NaN or infinity */
void kfit_json_double(struct kfit_json *j, const char *key, double v)
{
	json_prefix(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

void kfit_json_udec(struct kfit_json *j, const char *key, __u64 v, int digits)
{
	__u64 scale = 1;
	int i;

	for (i = 0; i < digits && i < 19; i++)
		scale *= 10;
	json_prefix(j, key);
	if (i)
		fprintf(j->f, "%llu.%0*llu", v / scale, i, v % scale);
	else
		fprintf(j->f, "%llu", v);
}

void kfit_json_str(struct kfit_json *j, const char *key, const char *s)
{
	json_prefix(j, key);
	if (s)
		json_string(j->f, s);
	else
		fputs("null", j->f);
}

void kfit_json_bool(struct kfit_json *j, const char *key, bool v)
{
	json_prefix(j, key);
	fputs(v ? "true" : "false", j->f);
}

void kfit_json_null(struct kfit_json *j, const char *key)
{
	json_prefix(j, key);
	fputs("null", j->f);
}

/* Top-level values are one per line (JSON Lines with -j -i) */
void kfit_json_finish(struct kfit_json *j)
{
	if (j->has_item[0])
		fputc('\n', j->f);
	j->has_item[0] = false;
	fflush(j->f);
}

struct kfit_table {
	int ncols;
	char **headers;
	char *align;
	char **cells;		/* nrows * ncols; NULL: empty */
	int nrows, cap;
	int col;		/* next cell of the last row */
};

struct kfit_table *kfit_table_new(int ncols, const char *const *headers,
				  const char *align)
{
	size_t alen = align ? strlen(align) : 0;
	struct kfit_table *t;
	int i;

	if (ncols <= 0)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->ncols = ncols;
	t->headers = calloc(ncols, sizeof(*t->headers));
	t->align = calloc(ncols, 1);
	if (!t->headers || !t->align)
		goto err;
	for (i = 0; i < ncols; i++) {
		t->headers[i] = strdup(headers && headers[i] ? headers[i] : "");
		if (!t->headers[i])
			goto err;
		/* A short align string leaves the other columns left-aligned */
		t->align[i] = (size_t)i < alen && align[i] == 'r' ? 'r' : 'l';
	}
	return t;
err:
	kfit_table_free(t);
	return NULL;
}

int kfit_table_row(struct kfit_table *t)
{
	char **cells;
	int cap;

	if (t->nrows == t->cap) {
		cap = t->cap ? 2 * t->cap : 16;
		cells = realloc(t->cells, (size_t)cap * t->ncols * sizeof(*cells));
		if (!cells)
			return -ENOMEM;
		t->cells = cells;
		t->cap = cap;
	}
	memset(t->cells + (size_t)t->nrows * t->ncols, 0,
	       t->ncols * sizeof(*t->cells));
	t->nrows++;
	t->col = 0;
	return 0;
}

int kfit_table_cell(struct kfit_table *t, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	if (!t->nrows || t->col >= t->ncols)
		return -1;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	t->cells[(size_t)(t->nrows - 1) * t->ncols + t->col++] = s;
	return 0;
}

/* Display width: UTF-8 continuation bytes take no column */
static int text_width(const char *s)
{
	int n = 0;

	for (; *s; s++)
		if ((*s & 0xc0) != 0x80)
			n++;
	return n;
}

static const char *cell(const struct kfit_table *t, int row, int col)
{
	const char *s;

	if (row < 0)
		return t->headers[col];
	s = t->cells[(size_t)row * t->ncols + col];
	return s ? s : "";
}

/*
 * Row -1 is the header. Padding is held back until something follows it,
 * so lines never end in blanks.
 */
static void print_row(const struct kfit_table *t, FILE *f, int row,
		      const int *width)
{
	int c, pad, pending = 0;
	const char *s;

	for (c = 0; c < t->ncols; c++) {
		s = cell(t, row, c);
		pad = width[c] - text_width(s);
		if (c)
			pending += 2;
		if (t->align[c] == 'r')
			pending += pad;
		if (*s) {
			fprintf(f, "%*s%s", pending, "", s);
			pending = 0;
		}
		if (t->align[c] != 'r')
			pending += pad;
	}
	fputc('\n', f);
}

void kfit_table_print(struct kfit_table *t, FILE *f)
{
	int *width, r, c, w;

	width = calloc(t->ncols, sizeof(*width));
	if (!width)
		return;
	for (r = -1; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			w = text_width(cell(t, r, c));
			if (w > width[c])
				width[c] = w;
		}
	}
	for (r = -1; r < t->nrows; r++)
		print_row(t, f, r, width);
	free(width);
}

void kfit_table_free(struct kfit_table *t)
{
	int i;

	if (!t)
		return;
	for (i = 0; t->cells && i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	for (i = 0; t->headers && i < t->ncols; i++)
		free(t->headers[i]);
	free(t->cells);
	free(t->headers);
	free(t->align);
	free(t);
}

unsigned int kfit_term_width(FILE *f)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	char *end;
	long v;

	if (!isatty(fileno(f)))
		return 0;
	if (env && *env) {
		v = strtol(env, &end, 10);
		if (!*end && v > 0 && v <= 100000)
			return v;
	}
	if (!ioctl(fileno(f), TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return 80;
}
