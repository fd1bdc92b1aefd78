/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_PROMTEXT_H
#define KFIT_PROMTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "kfit/hist.h"

/*
 * The exposition formats Prometheus scrapes: OpenMetrics 1.0 (what a
 * Prometheus server asks for first) or the Prometheus text format 0.0.4
 * (curl, promtool). A family is declared, then its samples written; the
 * two formats differ only in the names of counters' and info families'
 * metadata lines, in # UNIT and in the closing # EOF.
 *
 * Latency histograms become Prometheus histograms of fixed buckets, so
 * that a series' set of buckets never changes between scrapes: the
 * power-of-2 buckets kfit derives from its log-linear slots, exactly.
 * Bucket k holds the durations 2^(k-1) .. 2^k - 1 ns, so its cumulative
 * count is that of the durations <= (2^k - 1) ns: le="0.000001023" is
 * 1023 ns (written exactly, as every number of seconds here). The buckets go from 63 ns to 68.7 s, then +Inf.
 */
#define KFIT_PROM_LOG2_MIN	6
#define KFIT_PROM_LOG2_MAX	36
#define KFIT_PROM_BUCKETS	(KFIT_PROM_LOG2_MAX - KFIT_PROM_LOG2_MIN + 2)

enum kfit_prom_type {
	KFIT_PROM_COUNTER,	/* name without _total: samples get it */
	KFIT_PROM_GAUGE,
	KFIT_PROM_HISTOGRAM,
	KFIT_PROM_INFO,		/* name without _info: a constant 1 with labels */
};

struct kfit_prom {
	char *buf;
	size_t len, cap;
	bool om;		/* OpenMetrics, else Prometheus text 0.0.4 */
	bool nomem;		/* an allocation failed: kfit_prom_finish gives NULL */
	enum kfit_prom_type type;
	char family[128];
	__u64 samples;		/* samples written (series, a bucket each) */
};

/* A sample's labels, escaped as they go: key="value",... */
#define KFIT_PROM_LABELS_LEN	1024
struct kfit_prom_labels {
	char s[KFIT_PROM_LABELS_LEN];
	size_t len;
	bool cut;		/* did not fit: the label was left out */
};

void kfit_prom_init(struct kfit_prom *p, bool openmetrics);
/*
 * Starts a family: name as the rules want it ([a-zA-Z_:][a-zA-Z0-9_:]*,
 * its unit last: kfit_softirq_handler_seconds), unit the unit's name
 * ("seconds", "bytes") or NULL, help one line.
 */
void kfit_prom_family(struct kfit_prom *p, const char *name, enum kfit_prom_type t,
		      const char *unit, const char *help);

void kfit_prom_labels_init(struct kfit_prom_labels *l);
/* Adds key="value", value escaped (\\, \", \n); key must be a valid name */
void kfit_prom_label(struct kfit_prom_labels *l, const char *key, const char *value);
/* A label name from any text: invalid characters become '_' (log2(bytes) -> log2_bytes_) */
void kfit_prom_label_name(const char *s, char *buf, size_t len);

/* One sample of the current family (a counter's gets _total); l may be NULL */
void kfit_prom_u64(struct kfit_prom *p, const struct kfit_prom_labels *l, __u64 v);
void kfit_prom_double(struct kfit_prom *p, const struct kfit_prom_labels *l, double v);
/* ns nanoseconds as seconds, written exactly: 1500 -> 0.0000015 */
void kfit_prom_ns(struct kfit_prom *p, const struct kfit_prom_labels *l, __u64 ns);
/*
 * A histogram family's series of h (nanoseconds): the buckets' cumulative
 * counts, _sum in seconds and _count. The count is the slots' sum, so
 * that +Inf and _count agree even when h was read while it grew.
 */
void kfit_prom_hist_ns(struct kfit_prom *p, const struct kfit_prom_labels *l,
		       const struct kfit_hist *h);

/*
 * Ends the exposition (OpenMetrics: # EOF) and hands over the text, len
 * its bytes; the caller frees it. NULL when memory ran out.
 */
char *kfit_prom_finish(struct kfit_prom *p, size_t *len);
void kfit_prom_release(struct kfit_prom *p);

/* The Content-Type of a format */
const char *kfit_prom_content_type(bool openmetrics);
/* Whether an Accept header asks for OpenMetrics (NULL: no) */
bool kfit_prom_accepts_om(const char *accept);

#endif
