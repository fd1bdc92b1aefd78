// SPDX-License-Identifier: GPL-2.0
/*
 * The exposition writer (promtext.c) against the formats' rules: what
 * Prometheus' parsers and promtool take (tests/live/test_serve.sh holds
 * the real server to it), here line by line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "hist.h"
#include "promtext.h"
#include "testlib.h"

/* What Prometheus 2.42 sends with each scrape, captured from the server */
#define PROM_ACCEPT "application/openmetrics-text;version=1.0.0," \
	"application/openmetrics-text;version=0.0.1;q=0.75," \
	"text/plain;version=0.0.4;q=0.5,*/*;q=0.1"

static __u64 rng_state = 0x2545f4914f6cdd1dULL;

/* xorshift64*: deterministic, so a failure reproduces */
static __u64 rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* The text of an exposition, owned by the caller */
static char *finish(struct kfit_prom *p)
{
	size_t len = 0;
	char *s = kfit_prom_finish(p, &len);

	assert_non_null(s);
	assert_int_equal(len, strlen(s));
	return s;
}

/* One family of one sample with labels l, in either format */
static char *one_sample(bool om, const struct kfit_prom_labels *l)
{
	struct kfit_prom p;

	kfit_prom_init(&p, om);
	kfit_prom_family(&p, "kfit_x", KFIT_PROM_GAUGE, NULL, "x");
	kfit_prom_u64(&p, l, 1);
	return finish(&p);
}

static void test_label_escaping(void **state)
{
	static const struct {
		const char *value, *want;
	} cases[] = {
		{ "plain", "plain" },
		{ "", "" },
		{ "back\\slash", "back\\\\slash" },
		{ "a \"quote\"", "a \\\"quote\\\"" },
		{ "two\nlines", "two\\nlines" },
		/* only those three: a tab, braces, commas, '=' and UTF-8 stay */
		{ "tab\there", "tab\there" },
		{ "{a=b,c}", "{a=b,c}" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
		{ "\\\"\n", "\\\\\\\"\\n" },
	};
	struct kfit_prom_labels l;
	char want[256], *s;
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		kfit_prom_labels_init(&l);
		kfit_prom_label(&l, "function", cases[i].value);
		snprintf(want, sizeof(want), "function=\"%s\"", cases[i].want);
		t_str_eq(cases[i].value, l.s, want);
		t_int_eq(cases[i].value, l.len, strlen(want));
		t_true(cases[i].value, !l.cut);
	}
	/* several, in the order given, joined by commas */
	kfit_prom_labels_init(&l);
	kfit_prom_label(&l, "vector", "net_rx");
	kfit_prom_label(&l, "cpu", "3");
	assert_string_equal(l.s, "vector=\"net_rx\",cpu=\"3\"");
	/* as a sample's, both formats */
	s = one_sample(false, &l);

	assert_string_equal(s, "# HELP kfit_x x\n# TYPE kfit_x gauge\n"
			    "kfit_x{vector=\"net_rx\",cpu=\"3\"} 1\n");
	free(s);
	s = one_sample(true, NULL);
	assert_string_equal(s, "# HELP kfit_x x\n# TYPE kfit_x gauge\nkfit_x 1\n# EOF\n");
	free(s);
}

/* A label that does not fit is left out whole, the ones before it kept */
static void test_label_too_long(void **state)
{
	struct kfit_prom_labels l;
	char big[KFIT_PROM_LABELS_LEN];
	char *s;

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	kfit_prom_labels_init(&l);
	kfit_prom_label(&l, "function", "vfs_read");
	kfit_prom_label(&l, "comm", big);
	assert_true(l.cut);
	assert_string_equal(l.s, "function=\"vfs_read\"");
	assert_int_equal(l.len, strlen(l.s));
	s = one_sample(false, &l);
	assert_non_null(strstr(s, "\nkfit_x{function=\"vfs_read\"} 1\n"));
	free(s);
	/* escaping doubles a value: one that fits only unescaped is cut too */
	memset(big, '"', 600);
	big[600] = '\0';
	kfit_prom_labels_init(&l);
	kfit_prom_label(&l, "q", big);
	assert_true(l.cut);
	assert_int_equal(l.len, 0);
	assert_string_equal(l.s, "");
}

static void test_label_name(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "function", "function" },
		{ "log2(bytes)", "log2_bytes_" },
		{ "fp->_fileno", "fp___fileno" },
		{ "a.b-c d", "a_b_c_d" },
		/* no colon in a label name, unlike a metric's */
		{ "ns:x", "ns_x" },
		{ "_ok9", "_ok9" },
		/* not a digit first */
		{ "1st", "_st" },
		{ "9", "_" },
		{ "", "_" },
		{ "caf\xc3\xa9", "caf__" },
	};
	char buf[64];
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		kfit_prom_label_name(cases[i].in, buf, sizeof(buf));
		t_str_eq(cases[i].in, buf, cases[i].want);
	}
	/* cut to the buffer, still a name */
	kfit_prom_label_name("filename", buf, 5);
	assert_string_equal(buf, "file");
	kfit_prom_label_name("x", buf, 1);
	assert_string_equal(buf, "");
}

/* kfit_prom_ns writes ns as seconds exactly: no rounding through a double */
static void test_seconds_exact(void **state)
{
	static const struct {
		__u64 ns;
		const char *want;
	} cases[] = {
		{ 0, "0" },
		{ 1, "0.000000001" },
		{ 10, "0.00000001" },
		{ 1500, "0.0000015" },
		{ 1023, "0.000001023" },
		{ 999999999, "0.999999999" },
		{ 1000000000, "1" },
		{ 2500000000ULL, "2.5" },
		{ 60000000001ULL, "60.000000001" },
		/* where a double would round: 2^53 + 1 ns */
		{ 9007199254740993ULL, "9007199.254740993" },
		{ UINT64_MAX, "18446744073.709551615" },
	};
	struct kfit_prom p;
	char want[128], *s;
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++) {
		kfit_prom_init(&p, false);
		kfit_prom_family(&p, "kfit_t_seconds", KFIT_PROM_COUNTER, "seconds", "t");
		kfit_prom_ns(&p, NULL, cases[i].ns);
		s = finish(&p);
		snprintf(want, sizeof(want),
			 "# HELP kfit_t_seconds_total t\n# TYPE kfit_t_seconds_total counter\n"
			 "kfit_t_seconds_total %s\n", cases[i].want);
		t_str_eq(cases[i].want, s, want);
		free(s);
	}
}

/*
 * A bucket's le in ns, exactly, from its text: decimal digits, a point,
 * an exponent ("0.000001023", "1.023e-06"); -1 when it is not a whole
 * number of ns, or not a number
 */
static long long le_ns(const char *s)
{
	long long m = 0;
	int frac = 0, exp = 0, digits = 0;
	bool point = false;
	char *end;

	for (; *s; s++) {
		if (*s == '.' && !point) {
			point = true;
		} else if (*s >= '0' && *s <= '9') {
			if (m > (LLONG_MAX - 9) / 10)
				return -1;
			m = m * 10 + (*s - '0');
			frac += point;
			digits++;
		} else {
			break;
		}
	}
	if (!digits)
		return -1;
	if (*s == 'e' || *s == 'E') {
		exp = strtol(s + 1, &end, 10);
		if (end == s + 1 || *end)
			return -1;
	} else if (*s) {
		return -1;
	}
	exp += 9 - frac;	/* seconds to ns */
	for (; exp > 0; exp--) {
		if (m > LLONG_MAX / 10)
			return -1;
		m *= 10;
	}
	for (; exp < 0; exp++) {
		if (m % 10)
			return -1;
		m /= 10;
	}
	return m;
}

struct hist_lines {
	long long le[KFIT_PROM_BUCKETS];	/* ns, -2 for +Inf */
	unsigned long long cum[KFIT_PROM_BUCKETS];
	int n;
	char sum[64];
	unsigned long long count;
	int counts;
};

/* The series of family f with labels lab ("vector=\"x\"") out of text s */
static void parse_hist(const char *s, const char *f, const char *lab, struct hist_lines *h)
{
	char pre_b[256], pre_s[256], pre_c[256];
	const char *line;

	memset(h, 0, sizeof(*h));
	snprintf(pre_b, sizeof(pre_b), "%s_bucket{%s,le=\"", f, lab);
	snprintf(pre_s, sizeof(pre_s), "%s_sum{%s} ", f, lab);
	snprintf(pre_c, sizeof(pre_c), "%s_count{%s} ", f, lab);
	for (line = s; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char le[64];
		size_t n;

		if (!strncmp(line, pre_b, strlen(pre_b))) {
			const char *v = line + strlen(pre_b);

			assert_true(h->n < KFIT_PROM_BUCKETS);
			n = strcspn(v, "\"");
			assert_true(n < sizeof(le));
			memcpy(le, v, n);
			le[n] = '\0';
			assert_true(v[n] == '"' && v[n + 1] == '}' && v[n + 2] == ' ');
			h->le[h->n] = strcmp(le, "+Inf") ? le_ns(le) : -2;
			if (h->le[h->n] == -1)
				fail_msg("le=\"%s\" is not a whole number of ns", le);
			h->cum[h->n++] = strtoull(v + n + 3, NULL, 10);
		} else if (!strncmp(line, pre_s, strlen(pre_s))) {
			n = strcspn(line + strlen(pre_s), "\n");
			assert_true(n < sizeof(h->sum));
			memcpy(h->sum, line + strlen(pre_s), n);
			h->sum[n] = '\0';
		} else if (!strncmp(line, pre_c, strlen(pre_c))) {
			h->count = strtoull(line + strlen(pre_c), NULL, 10);
			h->counts++;
		}
	}
}

static char *hist_text(bool om, const struct kfit_hist *h)
{
	struct kfit_prom p;
	struct kfit_prom_labels l;

	kfit_prom_init(&p, om);
	kfit_prom_family(&p, "kfit_d_seconds", KFIT_PROM_HISTOGRAM, "seconds", "d");
	kfit_prom_labels_init(&l);
	kfit_prom_label(&l, "function", "f");
	kfit_prom_hist_ns(&p, &l, h);
	/* histogram, 1 + 31 buckets ... +Inf, _sum, _count */
	assert_int_equal(p.samples, KFIT_PROM_BUCKETS + 2);
	return finish(&p);
}

/* The fixed buckets: (2^k - 1) ns for k = 6..36, then +Inf */
static void check_bounds(const struct hist_lines *h)
{
	int k;

	assert_int_equal(h->n, KFIT_PROM_BUCKETS);
	for (k = KFIT_PROM_LOG2_MIN; k <= KFIT_PROM_LOG2_MAX; k++)
		t_int_eq("le", h->le[k - KFIT_PROM_LOG2_MIN], (1LL << k) - 1);
	assert_int_equal(h->le[h->n - 1], -2);
	assert_int_equal(h->le[0], 63);
	assert_int_equal(h->le[h->n - 2], 68719476735LL);
	assert_int_equal(h->counts, 1);
}

/* The number of values <= le (ns; -2: all) */
static unsigned long long count_le(const __u64 *v, int n, long long le)
{
	unsigned long long c = 0;
	int i;

	for (i = 0; i < n; i++)
		c += le == -2 || v[i] <= (__u64)le;
	return c;
}

static void test_hist_boundaries(void **state)
{
	/* each bound, the values either side of it, 0, and past the last */
	static const __u64 vals[] = {
		0, 1, 62, 63, 64, 1022, 1023, 1024, 2047, 2048,
		68719476734ULL, 68719476735ULL, 68719476736ULL, UINT64_MAX / 2,
	};
	struct kfit_hist *h = calloc(1, sizeof(*h));
	struct hist_lines hl;
	char *s;
	int i;

	(void)state;
	/* the oracle reads either way of writing a bound, exactly */
	assert_int_equal(le_ns("0.000001023"), 1023);
	assert_int_equal(le_ns("1.023e-06"), 1023);
	assert_int_equal(le_ns("68.719476735"), 68719476735LL);
	assert_int_equal(le_ns("6.3e-08"), 63);
	assert_int_equal(le_ns("1.0235e-06"), -1);
	assert_int_equal(le_ns("1e"), -1);
	assert_non_null(h);
	for (i = 0; i < (int)T_N(vals); i++)
		kfit_hist_record(h, vals[i]);
	s = hist_text(false, h);
	parse_hist(s, "kfit_d_seconds", "function=\"f\"", &hl);
	check_bounds(&hl);
	for (i = 0; i < hl.n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "le %lld ns", hl.le[i]);
		t_int_eq(name, hl.cum[i], count_le(vals, T_N(vals), hl.le[i]));
	}
	/* 1023 ns under le 1023 ns, 1024 not: by name, too */
	assert_int_equal(hl.le[4], 1023);
	assert_int_equal(hl.cum[4], 7);		/* 0 1 62 63 64 1022 1023 */
	assert_int_equal(hl.cum[5], 9);		/* and 1024 2047 */
	assert_int_equal(hl.cum[hl.n - 1], T_N(vals));
	assert_int_equal(hl.count, T_N(vals));
	free(s);
	free(h);
}

/* Random values: every bucket the count of values <= its bound */
static void test_hist_random(void **state)
{
	enum { N = 20000 };
	struct kfit_hist *h = calloc(1, sizeof(*h));
	__u64 *v = calloc(N, sizeof(*v)), total = 0;
	struct hist_lines hl;
	char want[64], *s;
	int i;

	(void)state;
	assert_non_null(h);
	assert_non_null(v);
	for (i = 0; i < N; i++) {
		int bits = rnd() % 40;

		/* a third exactly on a bound 2^k - 1 or 2^k, the rest anywhere */
		if (i % 3 == 0)
			v[i] = (1ULL << bits) - (rnd() & 1);
		else
			v[i] = bits ? rnd() >> (64 - bits) : 0;
		kfit_hist_record(h, v[i]);
		total += v[i];
	}
	s = hist_text(true, h);
	parse_hist(s, "kfit_d_seconds", "function=\"f\"", &hl);
	check_bounds(&hl);
	for (i = 0; i < hl.n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "le %lld ns", hl.le[i]);
		t_int_eq(name, hl.cum[i], count_le(v, N, hl.le[i]));
		if (i)
			t_true(name, hl.cum[i] >= hl.cum[i - 1]);
	}
	/* +Inf == _count == the values; _sum their total, in seconds, exactly */
	assert_int_equal(hl.cum[hl.n - 1], N);
	assert_int_equal(hl.count, N);
	snprintf(want, sizeof(want), "%llu.%09llu", (unsigned long long)(total / 1000000000),
		 (unsigned long long)(total % 1000000000));
	while (strchr(want, '.') && (want[strlen(want) - 1] == '0' ||
				     want[strlen(want) - 1] == '.'))
		want[strlen(want) - 1] = '\0';
	assert_string_equal(hl.sum, want);
	free(s);
	free(v);
	free(h);
}

/*
 * A histogram read while it grew: count says more than the slots hold.
 * _count is the slots' sum, so that it equals +Inf (else promtool and
 * histogram_quantile see a broken histogram)
 */
static void test_hist_count_is_inf(void **state)
{
	struct kfit_hist *h = calloc(1, sizeof(*h));
	struct hist_lines hl;
	char *s;

	(void)state;
	assert_non_null(h);
	kfit_hist_record(h, 100);
	kfit_hist_record(h, 5000);
	h->count += 3;
	s = hist_text(false, h);
	parse_hist(s, "kfit_d_seconds", "function=\"f\"", &hl);
	assert_int_equal(hl.cum[hl.n - 1], 2);
	assert_int_equal(hl.count, 2);
	free(s);
	/* empty: every bucket 0, _sum 0 */
	memset(h, 0, sizeof(*h));
	s = hist_text(false, h);
	parse_hist(s, "kfit_d_seconds", "function=\"f\"", &hl);
	check_bounds(&hl);
	assert_int_equal(hl.cum[hl.n - 1], 0);
	assert_string_equal(hl.sum, "0");
	free(s);
	free(h);
}

/* Every kind of family, whole, in both formats */
static void write_all(struct kfit_prom *p)
{
	struct kfit_prom_labels l;

	kfit_prom_family(p, "kfit_calls", KFIT_PROM_COUNTER, NULL, "Calls.");
	kfit_prom_u64(p, NULL, 5);
	kfit_prom_family(p, "kfit_local_seconds", KFIT_PROM_COUNTER, "seconds",
			 "Local time; a \\ and a\nnewline.");
	kfit_prom_ns(p, NULL, 1500);
	kfit_prom_family(p, "kfit_rss_bytes", KFIT_PROM_GAUGE, "bytes", "RSS.");
	kfit_prom_double(p, NULL, 0.5);
	kfit_prom_family(p, "kfit_build", KFIT_PROM_INFO, NULL, "Build.");
	kfit_prom_labels_init(&l);
	kfit_prom_label(&l, "version", "1");
	kfit_prom_u64(p, &l, 1);
}

static void test_formats(void **state)
{
	static const char text[] =
		"# HELP kfit_calls_total Calls.\n"
		"# TYPE kfit_calls_total counter\n"
		"kfit_calls_total 5\n"
		"# HELP kfit_local_seconds_total Local time; a \\\\ and a\\nnewline.\n"
		"# TYPE kfit_local_seconds_total counter\n"
		"kfit_local_seconds_total 0.0000015\n"
		"# HELP kfit_rss_bytes RSS.\n"
		"# TYPE kfit_rss_bytes gauge\n"
		"kfit_rss_bytes 0.5\n"
		"# HELP kfit_build_info Build.\n"
		"# TYPE kfit_build_info gauge\n"
		"kfit_build_info{version=\"1\"} 1\n";
	static const char om[] =
		"# HELP kfit_calls Calls.\n"
		"# TYPE kfit_calls counter\n"
		"kfit_calls_total 5\n"
		"# HELP kfit_local_seconds Local time; a \\\\ and a\\nnewline.\n"
		"# TYPE kfit_local_seconds counter\n"
		"# UNIT kfit_local_seconds seconds\n"
		"kfit_local_seconds_total 0.0000015\n"
		"# HELP kfit_rss_bytes RSS.\n"
		"# TYPE kfit_rss_bytes gauge\n"
		"# UNIT kfit_rss_bytes bytes\n"
		"kfit_rss_bytes 0.5\n"
		"# HELP kfit_build Build.\n"
		"# TYPE kfit_build info\n"
		"kfit_build_info{version=\"1\"} 1\n"
		"# EOF\n";
	struct kfit_prom p;
	char *s;

	(void)state;
	kfit_prom_init(&p, false);
	write_all(&p);
	assert_int_equal(p.samples, 4);
	s = finish(&p);
	assert_string_equal(s, text);
	free(s);
	kfit_prom_init(&p, true);
	write_all(&p);
	s = finish(&p);
	assert_string_equal(s, om);
	free(s);
	/* a histogram's metadata names the family in both; # UNIT in OpenMetrics */
	kfit_prom_init(&p, false);
	kfit_prom_family(&p, "kfit_d_seconds", KFIT_PROM_HISTOGRAM, "seconds", "D.");
	s = finish(&p);
	assert_string_equal(s, "# HELP kfit_d_seconds D.\n# TYPE kfit_d_seconds histogram\n");
	free(s);
	kfit_prom_init(&p, true);
	kfit_prom_family(&p, "kfit_d_seconds", KFIT_PROM_HISTOGRAM, "seconds", "D.");
	s = finish(&p);
	assert_string_equal(s, "# HELP kfit_d_seconds D.\n# TYPE kfit_d_seconds histogram\n"
			    "# UNIT kfit_d_seconds seconds\n# EOF\n");
	free(s);
	assert_non_null(strstr(kfit_prom_content_type(true), "application/openmetrics-text"));
	assert_non_null(strstr(kfit_prom_content_type(true), "version=1.0.0"));
	assert_non_null(strstr(kfit_prom_content_type(false), "text/plain"));
	assert_non_null(strstr(kfit_prom_content_type(false), "version=0.0.4"));
}

/* Nothing written: an empty text (not NULL), or # EOF alone */
static void test_empty(void **state)
{
	struct kfit_prom p;
	char *s;

	(void)state;
	kfit_prom_init(&p, false);
	s = finish(&p);
	assert_string_equal(s, "");
	free(s);
	kfit_prom_init(&p, true);
	s = finish(&p);
	assert_string_equal(s, "# EOF\n");
	free(s);
	/* released without finishing: nothing leaks (the sanitized build says) */
	kfit_prom_init(&p, true);
	write_all(&p);
	kfit_prom_release(&p);
	assert_null(p.buf);
}

/* Past the first buffer: many series, every line whole */
static void test_grows(void **state)
{
	struct kfit_prom p;
	struct kfit_prom_labels l;
	char name[32], want[96], *s;
	int i;

	(void)state;
	kfit_prom_init(&p, true);
	kfit_prom_family(&p, "kfit_calls", KFIT_PROM_COUNTER, NULL, "Calls.");
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "fn_%d", i);
		kfit_prom_labels_init(&l);
		kfit_prom_label(&l, "function", name);
		kfit_prom_u64(&p, &l, i);
	}
	assert_int_equal(p.samples, 5000);
	s = finish(&p);
	for (i = 0; i < 5000; i += 499) {
		snprintf(want, sizeof(want), "\nkfit_calls_total{function=\"fn_%d\"} %d\n", i, i);
		t_true(want, strstr(s, want) != NULL);
	}
	assert_non_null(strstr(s, "{function=\"fn_4999\"} 4999\n# EOF\n"));
	free(s);
}

static void test_accepts_om(void **state)
{
	static const struct {
		const char *accept;
		bool om;
	} cases[] = {
		{ PROM_ACCEPT, true },
		{ "application/openmetrics-text", true },
		{ "application/openmetrics-text; version=1.0.0; charset=utf-8", true },
		{ "Application/OpenMetrics-Text;version=1.0.0", true },
		{ "application/openmetrics-text;version=1.0.0;q=0.5", true },
		{ "text/plain;q=0.9, application/openmetrics-text;q=0.1", true },
		/* refused by a q of 0, however written */
		{ "application/openmetrics-text;q=0", false },
		{ "application/openmetrics-text; version=1.0.0; q=0.0", false },
		{ "application/openmetrics-text;Q=0", false },
		{ "application/openmetrics-text;version=1.0.0;q=0,text/plain;version=0.0.4", false },
		/* a q of 0 for one version, above 0 for another: taken */
		{ "application/openmetrics-text;version=1.0.0;q=0,"
		  "application/openmetrics-text;version=0.0.1;q=0.75", true },
		/* a q of the next range is not this one's */
		{ "application/openmetrics-text,text/plain;q=0", true },
		/* what curl, promtool and browsers send */
		{ "*/*", false },
		{ "text/plain;version=0.0.4", false },
		{ "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", false },
		{ "", false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < T_N(cases); i++)
		t_int_eq(cases[i].accept, kfit_prom_accepts_om(cases[i].accept), cases[i].om);
	assert_false(kfit_prom_accepts_om(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_escaping),
		cmocka_unit_test(test_label_too_long),
		cmocka_unit_test(test_label_name),
		cmocka_unit_test(test_seconds_exact),
		cmocka_unit_test(test_hist_boundaries),
		cmocka_unit_test(test_hist_random),
		cmocka_unit_test(test_hist_count_is_inf),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_grows),
		cmocka_unit_test(test_accepts_om),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
