// SPDX-License-Identifier: GPL-2.0
/*
 * --serve: the exporter's HTTP side on GNU libmicrohttpd (well kept, and
 * hardened against the clients an exporter meets: its limits are below).
 * The statically linked tools (the VM's) have no libmicrohttpd without
 * GnuTLS's static archives, which Debian does not ship: they say so.
 */
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include "diag.h"
#include "fileio.h"
#include "run.h"
#include "serve.h"

void kfit_serve_health(struct kfit_prom *p, __u64 lost, __u64 missed)
{
	kfit_prom_family(p, "kfit_lost_records", KFIT_PROM_COUNTER, NULL,
			 "Records lost for lack of room: a full ring buffer or map, a stack too deep.");
	kfit_prom_u64(p, NULL, lost);
	kfit_prom_family(p, "kfit_missed_runs", KFIT_PROM_COUNTER, NULL,
			 "BPF program runs the kernel skipped (another program was running on the CPU).");
	kfit_prom_u64(p, NULL, missed);
}

#ifdef KFIT_NO_HTTP

struct kfit_serve {
	int unused;
};

int kfit_serve_listen(struct kfit_serve **s, const struct kfit_common *c, const char *tool)
{
	(void)tool;
	*s = NULL;
	if (!c->serve)
		return 0;
	kfit_err("--serve: this build has no HTTP server (the statically linked tools "
		 "leave libmicrohttpd out): use the dynamically linked %s", tool);
	return -1;
}

int kfit_serve_begin(struct kfit_serve *s, kfit_serve_render_fn fn, void *ctx)
{
	(void)s;
	(void)fn;
	(void)ctx;
	return 0;
}

void kfit_serve_end(struct kfit_serve *s)
{
	(void)s;
}

void kfit_serve_free(struct kfit_serve *s)
{
	(void)s;
}

#else

#include <dlfcn.h>
#include <microhttpd.h>

/*
 * libmicrohttpd is loaded only for --serve: linked in, it and GnuTLS,
 * which it initialises at load, cost every run about 3.7 MiB of resident
 * memory, served or not.
 */
#define KFIT_MHD_SONAME	"libmicrohttpd.so.12"

static struct {
	typeof(MHD_add_response_header) *add_response_header;
	typeof(MHD_create_response_from_buffer) *create_response_from_buffer;
	typeof(MHD_destroy_response) *destroy_response;
	typeof(MHD_get_connection_info) *get_connection_info;
	typeof(MHD_get_daemon_info) *get_daemon_info;
	typeof(MHD_get_timeout) *get_timeout;
	typeof(MHD_lookup_connection_value) *lookup_connection_value;
	typeof(MHD_queue_response) *queue_response;
	typeof(MHD_quiesce_daemon) *quiesce_daemon;
	typeof(MHD_run) *run;
	typeof(MHD_start_daemon) *start_daemon;
	typeof(MHD_stop_daemon) *stop_daemon;
} mhd;

static const struct {
	const char *name;
	void **fn;
} mhd_syms[] = {
	{ "MHD_add_response_header", (void **)&mhd.add_response_header },
	{ "MHD_create_response_from_buffer", (void **)&mhd.create_response_from_buffer },
	{ "MHD_destroy_response", (void **)&mhd.destroy_response },
	{ "MHD_get_connection_info", (void **)&mhd.get_connection_info },
	{ "MHD_get_daemon_info", (void **)&mhd.get_daemon_info },
	{ "MHD_get_timeout", (void **)&mhd.get_timeout },
	{ "MHD_lookup_connection_value", (void **)&mhd.lookup_connection_value },
	{ "MHD_queue_response", (void **)&mhd.queue_response },
	{ "MHD_quiesce_daemon", (void **)&mhd.quiesce_daemon },
	{ "MHD_run", (void **)&mhd.run },
	{ "MHD_start_daemon", (void **)&mhd.start_daemon },
	{ "MHD_stop_daemon", (void **)&mhd.stop_daemon },
};

/* Once per process: the library stays loaded until the process ends */
static int load_mhd(void)
{
	void *h;
	size_t i;

	if (mhd.run)
		return 0;
	h = dlopen(KFIT_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		kfit_err("--serve needs libmicrohttpd (Debian package libmicrohttpd12): %s",
			 dlerror());
		return -1;
	}
	for (i = 0; i < sizeof(mhd_syms) / sizeof(mhd_syms[0]); i++) {
		*mhd_syms[i].fn = dlsym(h, mhd_syms[i].name);
		if (!*mhd_syms[i].fn) {
			kfit_err("--serve: %s has no %s", KFIT_MHD_SONAME, mhd_syms[i].name);
			mhd.run = NULL;
			return -1;
		}
	}
	return 0;
}

/* A client's connection, from libmicrohttpd's notice of it to its close */
struct conn {
	struct conn *next, *prev;
	int fd;
	__u64 since;		/* when it connected, or last had an answer */
};

struct kfit_serve {
	int fd;			/* listening */
	struct MHD_Daemon *d;
	pthread_t thread;
	int wake;		/* eventfd: the server's thread is to end */
	struct conn conns;	/* the open connections' list head */
	kfit_serve_render_fn fn;
	void *ctx;
	const char *tool;
	char where[300];	/* http://ADDR:PORT/metrics, as said */
	double started;		/* the Unix time tracing began */
	/* the server's own figures: only its thread writes them */
	__u64 scrapes, failed, not_found, bad_method;
	__u64 connections, cut;
	__u64 render_ns;
};

static int bind_one(const struct addrinfo *ai)
{
	int one = 1, fd;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ai->ai_family == AF_INET6 && ai->ai_flags & AI_PASSIVE) {
		int zero = 0;

		/* ":PORT" is IPv4 and IPv6 both, on one socket */
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	}
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 128)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int open_socket(struct kfit_serve *s, const struct kfit_common *c)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *res, *ai;
	char port[8];
	int err, fd = -EADDRNOTAVAIL;

	snprintf(port, sizeof(port), "%u", c->serve_port);
	if (!c->serve_host[0]) {
		hints.ai_flags |= AI_PASSIVE;
		hints.ai_family = AF_INET6;
	}
	err = getaddrinfo(c->serve_host[0] ? c->serve_host : NULL, port, &hints, &res);
	if (err && !c->serve_host[0]) {
		/* no IPv6 here: every IPv4 address */
		hints.ai_family = AF_INET;
		err = getaddrinfo(NULL, port, &hints, &res);
	}
	if (err) {
		kfit_err("--serve %s: %s", c->serve, gai_strerror(err));
		return -1;
	}
	for (ai = res; ai && fd < 0; ai = ai->ai_next)
		fd = bind_one(ai);
	freeaddrinfo(res);
	if (fd < 0) {
		kfit_err("--serve %s: cannot listen: %s", c->serve, strerror(-fd));
		return -1;
	}
	s->fd = fd;
	return 0;
}

int kfit_serve_listen(struct kfit_serve **sp, const struct kfit_common *c, const char *tool)
{
	struct kfit_serve *s;
	const char *h = c->serve_host;

	*sp = NULL;
	if (!c->serve)
		return 0;
	if (load_mhd())
		return -1;
	s = calloc(1, sizeof(*s));
	if (!s) {
		kfit_err("out of memory");
		return -1;
	}
	s->tool = tool;
	s->wake = -1;
	if (open_socket(s, c)) {
		free(s);
		return -1;
	}
	snprintf(s->where, sizeof(s->where), "http://%s%s%s:%u/metrics",
		 strchr(h, ':') ? "[" : "", h[0] ? h : "0.0.0.0", strchr(h, ':') ? "]" : "",
		 c->serve_port);
	*sp = s;
	return 0;
}

/* ---- the exporter's own figures ------------------------------------------ */

static void build_info(struct kfit_serve *s, struct kfit_prom *p)
{
	struct kfit_prom_labels l;
	struct utsname u;

	kfit_prom_labels_init(&l);
	kfit_prom_label(&l, "tool", s->tool);
	kfit_prom_label(&l, "version", KFIT_VERSION);
	if (!uname(&u))
		kfit_prom_label(&l, "kernel", u.release);
	kfit_prom_family(p, "kfit_build", KFIT_PROM_INFO, NULL,
			 "The tool, its version and the kernel it traces.");
	kfit_prom_u64(p, &l, 1);
}

static void code_sample(struct kfit_prom *p, const char *code, __u64 v)
{
	struct kfit_prom_labels l;

	kfit_prom_labels_init(&l);
	kfit_prom_label(&l, "code", code);
	kfit_prom_u64(p, &l, v);
}

static void server_figures(struct kfit_serve *s, struct kfit_prom *p)
{
	kfit_prom_family(p, "kfit_start_time_seconds", KFIT_PROM_GAUGE, "seconds",
			 "When tracing began, in seconds since the Unix epoch.");
	kfit_prom_double(p, NULL, s->started);
	kfit_prom_family(p, "kfit_scrapes", KFIT_PROM_COUNTER, NULL,
			 "Scrapes of /metrics answered, this one included.");
	kfit_prom_u64(p, NULL, s->scrapes);
	kfit_prom_family(p, "kfit_scrape_render_seconds", KFIT_PROM_COUNTER, "seconds",
			 "Time spent reading the maps and writing the metrics, all scrapes.");
	kfit_prom_ns(p, NULL, s->render_ns);
	kfit_prom_family(p, "kfit_http_errors", KFIT_PROM_COUNTER, NULL,
			 "Requests answered with an error, by HTTP status.");
	code_sample(p, "404", s->not_found);
	code_sample(p, "405", s->bad_method);
	code_sample(p, "500", s->failed);
	kfit_prom_family(p, "kfit_http_connections", KFIT_PROM_COUNTER, NULL,
			 "Client connections accepted.");
	kfit_prom_u64(p, NULL, s->connections);
	kfit_prom_family(p, "kfit_http_connections_cut", KFIT_PROM_COUNTER, NULL,
			 "Connections closed for taking over " KFIT_SERVE_DEADLINE_TEXT
			 " to send a request or read its answer.");
	kfit_prom_u64(p, NULL, s->cut);
}

/* The usual process_* figures of an exporter, from /proc/self */
static void process_figures(struct kfit_prom *p)
{
	unsigned long long ut = 0, st = 0, vsz = 0, rss = 0;
	long hz = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	char buf[1024], *e;
	FILE *f;
	int fds;

	f = fopen("/proc/self/stat", "r");
	if (!f)
		return;
	e = fgets(buf, sizeof(buf), f);
	fclose(f);
	e = e ? strrchr(buf, ')') : NULL;
	/* after "pid (comm)": state is field 3; utime 14, stime 15, vsize 23, rss 24 */
	if (!e || sscanf(e + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu "
			 "%*d %*d %*d %*d %*d %*d %*u %llu %llu", &ut, &st, &vsz, &rss) != 4)
		return;
	kfit_prom_family(p, "process_cpu_seconds", KFIT_PROM_COUNTER, "seconds",
			 "User and system CPU time of the tool (BPF programs' time is the traced tasks').");
	kfit_prom_double(p, NULL, (double)(ut + st) / hz);
	kfit_prom_family(p, "process_resident_memory_bytes", KFIT_PROM_GAUGE, "bytes",
			 "Resident memory of the tool.");
	kfit_prom_u64(p, NULL, rss * page);
	kfit_prom_family(p, "process_virtual_memory_bytes", KFIT_PROM_GAUGE, "bytes",
			 "Virtual memory of the tool.");
	kfit_prom_u64(p, NULL, vsz);
	fds = kfit_count_fds();
	if (fds < 0)
		return;
	kfit_prom_family(p, "process_open_fds", KFIT_PROM_GAUGE, NULL,
			 "File descriptors the tool holds (perf events, maps, links).");
	kfit_prom_u64(p, NULL, fds);
}

/* ---- requests -------------------------------------------------------------- */

static enum MHD_Result send_text(struct MHD_Connection *conn, unsigned int code,
				 const char *type, char *text, size_t len, bool must_free)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = mhd.create_response_from_buffer(len, text, must_free ? MHD_RESPMEM_MUST_FREE :
					    MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (must_free)
			free(text);
		return MHD_NO;
	}
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = mhd.queue_response(conn, code, r);
	mhd.destroy_response(r);
	return ret;
}

static enum MHD_Result metrics(struct kfit_serve *s, struct MHD_Connection *conn)
{
	const char *accept = mhd.lookup_connection_value(conn, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_ACCEPT);
	bool om = kfit_prom_accepts_om(accept);
	static char oom[] = "out of memory\n";
	__u64 t0 = kfit_now_ns();
	struct kfit_prom p;
	size_t len;
	char *text;
	int err;

	s->scrapes++;
	kfit_prom_init(&p, om);
	err = s->fn(s->ctx, &p);
	if (err) {
		kfit_prom_release(&p);
		s->failed++;
		kfit_debug("scrape failed: %s", strerror(-err));
		return send_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain",
				 oom, sizeof(oom) - 1, false);
	}
	build_info(s, &p);
	process_figures(&p);
	s->render_ns += kfit_now_ns() - t0;
	server_figures(s, &p);
	text = kfit_prom_finish(&p, &len);
	if (!text) {
		s->failed++;
		return send_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain",
				 oom, sizeof(oom) - 1, false);
	}
	return send_text(conn, MHD_HTTP_OK, kfit_prom_content_type(om), text, len, true);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_size, void **req)
{
	static char not_found[] = "not found: the metrics are on /metrics\n";
	static char bad_method[] = "method not allowed: GET /metrics\n";
	static char index_page[] = "kfit exporter: the metrics are on /metrics\n";
	struct kfit_serve *s = cls;

	(void)version;
	(void)upload_data;
	/* a body is not read: the request is answered, the body discarded */
	*upload_size = 0;
	*req = s;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		s->bad_method++;
		return send_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", bad_method,
				 sizeof(bad_method) - 1, false);
	}
	if (!strcmp(url, "/metrics"))
		return metrics(s, conn);
	if (!strcmp(url, "/"))
		return send_text(conn, MHD_HTTP_OK, "text/plain", index_page,
				 sizeof(index_page) - 1, false);
	s->not_found++;
	return send_text(conn, MHD_HTTP_NOT_FOUND, "text/plain", not_found,
			 sizeof(not_found) - 1, false);
}

/* libmicrohttpd's complaints (a client over a limit, a bad request): with -vv */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char buf[256];

	(void)cls;
	if (kfit_verbosity() < 2)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	kfit_debug("http: %s", buf);
}

/* ---- the server's thread ----------------------------------------------- */

static void on_conn(void *cls, struct MHD_Connection *conn, void **sc,
		    enum MHD_ConnectionNotificationCode toe)
{
	const union MHD_ConnectionInfo *i;
	struct kfit_serve *s = cls;
	struct conn *c = *sc;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (!c)
			return;
		c->prev->next = c->next;
		c->next->prev = c->prev;
		free(c);
		*sc = NULL;
		return;
	}
	i = mhd.get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	s->connections++;
	c = calloc(1, sizeof(*c));
	if (!c || !i) {
		free(c);
		return;
	}
	c->fd = i->connect_fd;
	c->since = kfit_now_ns();
	c->next = s->conns.next;
	c->prev = &s->conns;
	c->next->prev = c;
	s->conns.next = c;
	*sc = c;
}

/* An answer was sent: the connection's clock starts again (keep-alive) */
static void on_done(void *cls, struct MHD_Connection *conn, void **req,
		    enum MHD_RequestTerminationCode toe)
{
	const union MHD_ConnectionInfo *i;
	struct conn *c;

	(void)cls;
	(void)req;
	(void)toe;
	i = mhd.get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	c = i ? i->socket_context : NULL;
	if (c)
		c->since = kfit_now_ns();
}

/*
 * libmicrohttpd's timeout counts idle time only: a client sending a byte
 * of its request (or reading one of the answer) every few seconds would
 * hold its connection for ever, and enough of them every connection.
 * A request and its answer get KFIT_SERVE_DEADLINE_S in all; past it the
 * connection is shut down (libmicrohttpd then closes it, in this thread,
 * so its descriptor cannot be another's yet). The ms until the next one.
 */
static int cut_slow(struct kfit_serve *s)
{
	const __u64 limit = KFIT_SERVE_DEADLINE_S * 1000000000ULL;
	__u64 now = kfit_now_ns(), next = ~0ULL;
	struct conn *c;

	for (c = s->conns.next; c != &s->conns; c = c->next) {
		if (now - c->since >= limit) {
			shutdown(c->fd, SHUT_RDWR);
			s->cut++;
			c->since = now;
		}
		if (c->since + limit < next)
			next = c->since + limit;
	}
	if (next == ~0ULL)
		return -1;
	return (next - now) / 1000000 + 1;
}

/* How long poll may wait: libmicrohttpd's timeouts, and the deadlines */
static int wait_ms(struct kfit_serve *s, int deadline)
{
	MHD_UNSIGNED_LONG_LONG t;
	int ms = deadline;

	if (mhd.get_timeout(s->d, &t) == MHD_YES && (ms < 0 || t < (unsigned int)ms))
		ms = t > INT_MAX ? INT_MAX : (int)t;
	return ms;
}

/* libmicrohttpd driven from its epoll descriptor, with the deadlines */
static void *serve_loop(void *arg)
{
	struct kfit_serve *s = arg;
	const union MHD_DaemonInfo *i = mhd.get_daemon_info(s->d, MHD_DAEMON_INFO_EPOLL_FD);
	struct pollfd pf[2] = {
		{ .fd = i ? i->epoll_fd : -1, .events = POLLIN },
		{ .fd = s->wake, .events = POLLIN },
	};
	int deadline = -1;

	for (;;) {
		if (poll(pf, 2, wait_ms(s, deadline)) < 0 && errno != EINTR)
			break;
		if (pf[1].revents)
			break;
		mhd.run(s->d);
		deadline = cut_slow(s);
	}
	return NULL;
}

static struct MHD_Daemon *start_daemon(struct kfit_serve *s)
{
	return mhd.start_daemon(MHD_USE_EPOLL | MHD_USE_ITC | MHD_USE_ERROR_LOG, 0,
				NULL, NULL, on_request, s,
				MHD_OPTION_LISTEN_SOCKET, s->fd,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)KFIT_SERVE_MAX_CONNS,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				(unsigned int)KFIT_SERVE_MAX_PER_IP,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)KFIT_SERVE_TIMEOUT_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)KFIT_SERVE_MEMORY,
				MHD_OPTION_NOTIFY_CONNECTION, on_conn, s,
				MHD_OPTION_NOTIFY_COMPLETED, on_done, s,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
				MHD_OPTION_END);
}

int kfit_serve_begin(struct kfit_serve *s, kfit_serve_render_fn fn, void *ctx)
{
	sigset_t all, old;
	int err;

	if (!s)
		return 0;
	s->fn = fn;
	s->ctx = ctx;
	s->started = (double)time(NULL);
	s->conns.next = s->conns.prev = &s->conns;
	s->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	s->d = s->wake >= 0 ? start_daemon(s) : NULL;
	if (!s->d) {
		kfit_err("--serve: the HTTP server did not start");
		return -1;
	}
	/* the server's thread takes no signal: the loop's Ctrl-C stays the loop's */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&s->thread, NULL, serve_loop, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		mhd.stop_daemon(s->d);
		s->d = NULL;
		kfit_err("--serve: cannot start the server's thread: %s", strerror(err));
		return -1;
	}
	kfit_info("Serving metrics on %s", s->where);
	return 0;
}

void kfit_serve_end(struct kfit_serve *s)
{
	__u64 one = 1;

	if (!s || !s->d)
		return;
	if (write(s->wake, &one, sizeof(one)) == sizeof(one))
		pthread_join(s->thread, NULL);
	/* the socket stays ours (kfit_serve_free closes it), unless refused */
	if (mhd.quiesce_daemon(s->d) == MHD_INVALID_SOCKET)
		s->fd = -1;
	mhd.stop_daemon(s->d);
	s->d = NULL;
}

void kfit_serve_free(struct kfit_serve *s)
{
	if (!s)
		return;
	kfit_serve_end(s);
	if (s->fd >= 0)
		close(s->fd);
	if (s->wake >= 0)
		close(s->wake);
	free(s);
}

#endif
