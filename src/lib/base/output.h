/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_OUTPUT_H
#define KFIT_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

/*
 * Streaming JSON writer. Keys are given inside objects and NULL inside
 * arrays or at top level. Strings are escaped; numbers are JSON numbers.
 */
/* Call trees nest two levels a call (treeprint.c); jq reads 256 at most */
#define KFIT_JSON_DEPTH 256

struct kfit_json {
	FILE *f;
	int depth;
	bool pretty;
	bool has_item[KFIT_JSON_DEPTH];
};

void kfit_json_init(struct kfit_json *j, FILE *f, bool pretty);
void kfit_json_begin_object(struct kfit_json *j, const char *key);
void kfit_json_end_object(struct kfit_json *j);
void kfit_json_begin_array(struct kfit_json *j, const char *key);
void kfit_json_end_array(struct kfit_json *j);
void kfit_json_u64(struct kfit_json *j, const char *key, __u64 v);
void kfit_json_i64(struct kfit_json *j, const char *key, __s64 v);
void kfit_json_double(struct kfit_json *j, const char *key, double v);
/* v / 10^digits, exactly (no binary rounding): 1234567, 3 -> 1234.567 */
void kfit_json_udec(struct kfit_json *j, const char *key, __u64 v, int digits);
void kfit_json_str(struct kfit_json *j, const char *key, const char *s);
void kfit_json_bool(struct kfit_json *j, const char *key, bool v);
void kfit_json_null(struct kfit_json *j, const char *key);
/* Bytes of the valid UTF-8 sequence at s (2 to 4), or 0 (ASCII or invalid) */
int kfit_utf8_len(const unsigned char *s);
/* Characters of s as kfit_xml_text writes them (an invalid byte is one) */
size_t kfit_utf8_chars(const char *s);
/* At most max characters of s (0: all), XML-escaped (SVG text, titles) */
void kfit_xml_text(FILE *f, const char *s, size_t max);
/* Ends the document: a newline after the last top-level value. */
void kfit_json_finish(struct kfit_json *j);

/*
 * Text tables: columns padded to their widest cell; align is one
 * character per column, 'l' or 'r'.
 */
struct kfit_table;

struct kfit_table *kfit_table_new(int ncols, const char *const *headers,
				  const char *align);
/* Start a row; cells are then set left to right with kfit_table_cell. */
int kfit_table_row(struct kfit_table *t);
int kfit_table_cell(struct kfit_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kfit_table_print(struct kfit_table *t, FILE *f);
void kfit_table_free(struct kfit_table *t);

/*
 * The columns of the terminal f writes to: $COLUMNS, else the window's
 * size (TIOCGWINSZ), else 80; 0 when f is no terminal (lines not cut)
 */
unsigned int kfit_term_width(FILE *f);

#endif
