/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KFIT_SERVE_H
#define KFIT_SERVE_H

#include <linux/types.h>
#include "opts.h"
#include "promtext.h"

/*
 * --serve: the tool as a Prometheus exporter. An HTTP server (GNU
 * libmicrohttpd, one thread of its own) answers GET /metrics with the
 * tool's figures, read from its maps at each scrape: counters count from
 * the start and are never reset, so a scrape disturbs no other scrape nor
 * the tracing. Each scrape's text is built whole before it is sent, so a
 * slow client holds no lock; clients are bounded by the limits below, and
 * the server's thread (libmicrohttpd on its epoll descriptor) cuts the
 * ones that take too long.
 *
 * The server's thread blocks every signal: Ctrl-C and SIGTERM reach the
 * tool's loop as without it.
 */
#define KFIT_SERVE_MAX_CONNS	64	/* at once; more wait in the backlog */
#define KFIT_SERVE_MAX_PER_IP	16	/* from one address */
#define KFIT_SERVE_TIMEOUT_S	10	/* an idle or stalled connection is closed */
#define KFIT_SERVE_MEMORY	(32 * 1024)	/* a request's head: more gets 431/414 */
/* a request and its answer, however slowly they trickle */
#define KFIT_SERVE_DEADLINE_S	15
#define KFIT_SERVE_DEADLINE_TEXT	"15 s"

struct kfit_serve;

/*
 * The tool's families, written into p: called in the server's thread, one
 * scrape at a time, from kfit_serve_begin to kfit_serve_end. 0, or a
 * negative errno (the scrape gets 500 and the reason is counted).
 */
typedef int (*kfit_serve_render_fn)(void *ctx, struct kfit_prom *p);

/*
 * With c->serve: binds the listening socket now (a busy port ends the
 * tool before anything is attached) and says where. *s stays NULL
 * without --serve. 0, or -1 after a message.
 */
int kfit_serve_listen(struct kfit_serve **s, const struct kfit_common *c, const char *tool);
/* Starts answering (kfit_run calls it); 0 or -1 after a message */
int kfit_serve_begin(struct kfit_serve *s, kfit_serve_render_fn fn, void *ctx);
/* Stops answering: when it returns no render runs (kfit_run, before the last report) */
void kfit_serve_end(struct kfit_serve *s);
/* kfit_serve_end, and the socket closed; NULL is fine */
void kfit_serve_free(struct kfit_serve *s);

/*
 * The health every tool exports: records lost for lack of room (a full
 * ring buffer or map, a stack too deep), and program runs the kernel
 * skipped (recursion, another program on the CPU)
 */
void kfit_serve_health(struct kfit_prom *p, __u64 lost, __u64 missed);

#endif
