// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus and OpenMetrics text formats, into a growing buffer: an
 * exposition is built whole, then sent (a scrape gets a consistent text
 * and the tracing side is not held while a slow client reads).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "hist.h"
#include "promtext.h"

void kfit_prom_init(struct kfit_prom *p, bool openmetrics)
{
	memset(p, 0, sizeof(*p));
	p->om = openmetrics;
}

static bool grow(struct kfit_prom *p, size_t more)
{
	size_t cap = p->cap ? p->cap : 4096;
	char *b;

	if (p->nomem)
		return false;
	if (p->len + more + 1 <= p->cap)
		return true;
	while (cap < p->len + more + 1)
		cap *= 2;
	b = realloc(p->buf, cap);
	if (!b) {
		p->nomem = true;
		return false;
	}
	p->buf = b;
	p->cap = cap;
	return true;
}

static void put(struct kfit_prom *p, const char *s, size_t n)
{
	if (!grow(p, n))
		return;
	memcpy(p->buf + p->len, s, n);
	p->len += n;
	p->buf[p->len] = '\0';
}

static void puts_(struct kfit_prom *p, const char *s)
{
	put(p, s, strlen(s));
}

static void __attribute__((format(printf, 2, 3))) putf(struct kfit_prom *p, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		put(p, small, n);
		return;
	}
	if (!grow(p, n))
		return;
	va_start(ap, fmt);
	vsnprintf(p->buf + p->len, n + 1, fmt, ap);
	va_end(ap);
	p->len += n;
}

/* HELP text: backslash and newline escaped, as both formats want */
static void put_help(struct kfit_prom *p, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			puts_(p, "\\\\");
		else if (*s == '\n')
			puts_(p, "\\n");
		else
			put(p, s, 1);
	}
}

/*
 * The name the metadata lines use: OpenMetrics names the family (the
 * samples add _total, _info); the Prometheus format names the samples
 */
static const char *meta_name(struct kfit_prom *p, char *buf, size_t len)
{
	if (p->om || p->type == KFIT_PROM_GAUGE || p->type == KFIT_PROM_HISTOGRAM)
		return p->family;
	snprintf(buf, len, "%s%s", p->family, p->type == KFIT_PROM_COUNTER ? "_total" : "_info");
	return buf;
}

void kfit_prom_family(struct kfit_prom *p, const char *name, enum kfit_prom_type t,
		      const char *unit, const char *help)
{
	static const char *const om_type[] = { "counter", "gauge", "histogram", "info" };
	static const char *const text_type[] = { "counter", "gauge", "histogram", "gauge" };
	char buf[160];
	const char *m;

	snprintf(p->family, sizeof(p->family), "%s", name);
	p->type = t;
	m = meta_name(p, buf, sizeof(buf));
	putf(p, "# HELP %s ", m);
	put_help(p, help);
	putf(p, "\n# TYPE %s %s\n", m, p->om ? om_type[t] : text_type[t]);
	if (p->om && unit)
		putf(p, "# UNIT %s %s\n", m, unit);
}

void kfit_prom_labels_init(struct kfit_prom_labels *l)
{
	l->len = 0;
	l->s[0] = '\0';
	l->cut = false;
}

void kfit_prom_label(struct kfit_prom_labels *l, const char *key, const char *value)
{
	char v[KFIT_PROM_LABELS_LEN];
	size_t n = 0;
	int w;

	for (; *value && n + 2 < sizeof(v); value++) {
		char c = *value;

		if (c == '\\' || c == '"' || c == '\n') {
			v[n++] = '\\';
			c = c == '\n' ? 'n' : c;
		}
		v[n++] = c;
	}
	v[n] = '\0';
	w = snprintf(l->s + l->len, sizeof(l->s) - l->len, "%s%s=\"%s\"",
		     l->len ? "," : "", key, v);
	if (w < 0 || (size_t)w >= sizeof(l->s) - l->len) {
		l->s[l->len] = '\0';
		l->cut = true;
		return;
	}
	l->len += w;
}

void kfit_prom_label_name(const char *s, char *buf, size_t len)
{
	size_t i;

	if (!len)
		return;
	for (i = 0; s[i] && i + 1 < len; i++) {
		char c = s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
			  (i && c >= '0' && c <= '9');

		buf[i] = ok ? c : '_';
	}
	buf[i] = '\0';
	if (!i && len > 1) {
		buf[0] = '_';
		buf[1] = '\0';
	}
}

/* name{labels} or name{labels,extra} with a suffix after the family's name */
static void put_series(struct kfit_prom *p, const char *suffix,
		       const struct kfit_prom_labels *l, const char *extra)
{
	bool has = l && l->len;

	p->samples++;
	puts_(p, p->family);
	puts_(p, suffix);
	if (!has && !extra) {
		put(p, " ", 1);
		return;
	}
	put(p, "{", 1);
	if (has)
		puts_(p, l->s);
	if (has && extra)
		put(p, ",", 1);
	if (extra)
		puts_(p, extra);
	puts_(p, "} ");
}

static const char *sample_suffix(const struct kfit_prom *p)
{
	if (p->type == KFIT_PROM_COUNTER)
		return "_total";
	return p->type == KFIT_PROM_INFO ? "_info" : "";
}

void kfit_prom_u64(struct kfit_prom *p, const struct kfit_prom_labels *l, __u64 v)
{
	put_series(p, sample_suffix(p), l, NULL);
	putf(p, "%llu\n", (unsigned long long)v);
}

void kfit_prom_double(struct kfit_prom *p, const struct kfit_prom_labels *l, double v)
{
	put_series(p, sample_suffix(p), l, NULL);
	putf(p, "%.15g\n", v);
}

/* Seconds of ns, exactly, trailing zeros off: "0.0000015", "2" */
static const char *secs(__u64 ns, char *buf, size_t len)
{
	size_t n;

	n = snprintf(buf, len, "%llu.%09llu", (unsigned long long)(ns / 1000000000ULL),
		     (unsigned long long)(ns % 1000000000ULL));
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
	return buf;
}

void kfit_prom_ns(struct kfit_prom *p, const struct kfit_prom_labels *l, __u64 ns)
{
	char b[40];

	put_series(p, sample_suffix(p), l, NULL);
	putf(p, "%s\n", secs(ns, b, sizeof(b)));
}

void kfit_prom_hist_ns(struct kfit_prom *p, const struct kfit_prom_labels *l,
		       const struct kfit_hist *h)
{
	__u64 b[KFIT_HIST_LOG2_SLOTS], cum = 0;
	char le[64], s[40];
	int k;

	kfit_hist_log2(h, b);
	for (k = 0; k < KFIT_PROM_LOG2_MIN; k++)
		cum += b[k];
	for (k = KFIT_PROM_LOG2_MIN; k <= KFIT_PROM_LOG2_MAX; k++) {
		cum += b[k];
		snprintf(le, sizeof(le), "le=\"%s\"", secs((1ULL << k) - 1, s, sizeof(s)));
		put_series(p, "_bucket", l, le);
		putf(p, "%llu\n", (unsigned long long)cum);
	}
	for (; k < KFIT_HIST_LOG2_SLOTS; k++)
		cum += b[k];
	put_series(p, "_bucket", l, "le=\"+Inf\"");
	putf(p, "%llu\n", (unsigned long long)cum);
	put_series(p, "_sum", l, NULL);
	putf(p, "%s\n", secs(h->total, s, sizeof(s)));
	put_series(p, "_count", l, NULL);
	putf(p, "%llu\n", (unsigned long long)cum);
}

char *kfit_prom_finish(struct kfit_prom *p, size_t *len)
{
	char *b;

	if (p->om)
		puts_(p, "# EOF\n");
	if (!p->buf)
		put(p, "", 0);
	if (p->nomem) {
		kfit_prom_release(p);
		return NULL;
	}
	b = p->buf;
	*len = p->len;
	p->buf = NULL;
	p->len = p->cap = 0;
	return b;
}

void kfit_prom_release(struct kfit_prom *p)
{
	free(p->buf);
	p->buf = NULL;
	p->len = p->cap = 0;
}

const char *kfit_prom_content_type(bool openmetrics)
{
	if (openmetrics)
		return "application/openmetrics-text; version=1.0.0; charset=utf-8";
	return "text/plain; version=0.0.4; charset=utf-8";
}

/*
 * Prometheus asks "application/openmetrics-text;version=1.0.0,
 * application/openmetrics-text;version=0.0.1;q=0.75,text/plain;
 * version=0.0.4;q=0.5,...": OpenMetrics when it is listed with a
 * q above 0 (a q=0 refuses it)
 */
bool kfit_prom_accepts_om(const char *accept)
{
	const char *s = accept;

	while (s && (s = strcasestr(s, "application/openmetrics-text"))) {
		const char *end = strchr(s, ',');
		const char *q = strcasestr(s, "q=");

		if (!q || (end && q > end) || strtod(q + 2, NULL) > 0)
			return true;
		s = end;
	}
	return false;
}
