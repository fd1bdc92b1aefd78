// SPDX-License-Identifier: GPL-2.0
/*
 * flamesample FILE: writes the flame graph (kfit_export_svg) of a call
 * tree of known shape, built by hand: a web server's two threads with
 * user and kernel calls, a NET_RX softirq interlaced, time off CPU.
 * tests/live/test_svg_render.sh renders it in headless Chromium.
 * Exit 0, 1 when the file cannot be written, 2 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "export.h"

/* A tree in pre-order: depth under the thread, what, and when (us) */
struct row {
	int depth;
	__u8 kind;
	const char *name;	/* CALL; SWITCH: "blocked" or "preempted" */
	__u64 start, dur;
	bool kernel;
};

#define U(d, n, s, t)	{ d, KFIT_CN_CALL, n, s, t, false }
#define K(d, n, s, t)	{ d, KFIT_CN_CALL, n, s, t, true }
#define OFF(d, n, s, t)	{ d, KFIT_CN_SWITCH, n, s, t, false }
#define IRQ(d, s, t)	{ d, KFIT_CN_IRQ, "NET_RX", s, t, true }

static const struct row server[] = {
	U(0, "main", 0, 9000),
	U(1, "ngx_process_events", 100, 8800),
	K(2, "__x64_sys_epoll_wait", 200, 5000),
	K(3, "do_epoll_wait", 250, 4900),
	OFF(4, "blocked", 400, 4500),
	U(2, "ngx_http_process_request", 5300, 3500),
	K(3, "__x64_sys_read", 5400, 1600),
	K(4, "vfs_read", 5450, 1500),
	K(5, "ext4_file_read_iter", 5500, 1400),
	K(6, "filemap_read", 5550, 1300),
	K(7, "copy_page_to_iter", 5600, 300),
	IRQ(7, 6000, 600),
	K(8, "net_rx_action", 6020, 560),
	K(9, "__napi_poll", 6040, 500),
	K(10, "tcp_v4_rcv", 6100, 300),
	U(3, "ngx_http_write_filter", 7100, 1600),
	K(4, "__x64_sys_writev", 7150, 1500),
	K(5, "sock_write_iter", 7200, 1400),
	K(6, "tcp_sendmsg", 7250, 1300),
	K(7, "tcp_push", 7300, 900),
	K(8, "ip_output", 7350, 700),
	OFF(7, "preempted", 8250, 300),
};

static const struct row worker[] = {
	U(0, "ngx_thread_pool_cycle", 0, 8000),
	U(1, "ngx_thread_read_handler", 100, 3800),
	K(2, "__x64_sys_pread64", 150, 3600),
	K(3, "vfs_read", 200, 3500),
	K(4, "ext4_file_read_iter", 250, 3400),
	K(5, "filemap_read", 300, 3300),
	K(6, "filemap_get_pages", 350, 2000),
	OFF(7, "blocked", 500, 1700),
	K(6, "copy_page_to_iter", 2400, 1100),
	U(1, "ngx_gzip_compress", 4000, 3900),
	U(2, "deflate", 4050, 3800),
	U(3, "deflate_slow", 4100, 2600),
	U(4, "longest_match", 4200, 1800),
	U(3, "compress_block", 6800, 1000),
};

struct tree {
	struct kfit_cnode nodes[64];
	const struct row *rows[64];
	int n;
};

static struct tree tree;

/* Names and kernel marks by row: the interrupt's name is its vector's */
static const char *row_name(void *ctx, const struct kfit_cnode *n)
{
	(void)ctx;
	return tree.rows[n - tree.nodes]->name;
}

static bool row_kernel(void *ctx, const struct kfit_cnode *n)
{
	(void)ctx;
	return tree.rows[n - tree.nodes]->kernel;
}

static void link_child(struct kfit_cnode *parent, struct kfit_cnode *n)
{
	n->parent = parent;
	if (parent->last)
		parent->last->next = n;
	else
		parent->child = n;
	parent->last = n;
}

static void build(struct kfit_cthread *t, __u32 pid, __u32 tid, const char *comm,
		  const struct row *rows, int nrows)
{
	struct kfit_cnode *open[16] = { &t->root };
	struct kfit_cnode *n;
	int i;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->root.kind = KFIT_CN_ROOT;
	for (i = 0; i < nrows && tree.n < 64; i++) {
		n = &tree.nodes[tree.n];
		tree.rows[tree.n] = &rows[i];
		n->kind = rows[i].kind;
		if (rows[i].kind == KFIT_CN_SWITCH)
			n->id = !strcmp(rows[i].name, "blocked");	/* a sleep state */
		if (rows[i].kind == KFIT_CN_IRQ) {
			n->ctx = KFIT_CTX_SOFTIRQ;
			n->id = 3;	/* NET_RX */
		}
		n->depth = rows[i].depth;
		n->start = rows[i].start * 1000;
		n->dur = rows[i].dur * 1000;
		link_child(open[rows[i].depth], n);
		open[rows[i].depth + 1] = n;
		tree.n++;
	}
}

int main(int argc, char **argv)
{
	struct kfit_export_svg_opts opts = {
		.title = "flamesample: nginx, 2 threads",
		.subtitle = "exact mode: wall time (a synthetic tree of known shape)",
	};
	struct kfit_cthread th[2];
	const struct kfit_cthread *ptr[2] = { &th[0], &th[1] };
	struct kfit_export_src src = {
		.threads = ptr, .nthreads = 2, .name = row_name, .kernel = row_kernel,
	};
	FILE *f;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: flamesample FILE.svg\n");
		return 2;
	}
	build(&th[0], 4000, 4000, "nginx", server, sizeof(server) / sizeof(server[0]));
	build(&th[1], 4000, 4001, "nginx-pool", worker, sizeof(worker) / sizeof(worker[0]));
	f = fopen(argv[1], "w");
	if (!f) {
		fprintf(stderr, "flamesample: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	err = kfit_export_svg(&src, &opts, f);
	if (fclose(f) || err) {
		fprintf(stderr, "flamesample: %s: %s\n", argv[1], strerror(err ? -err : errno));
		return 1;
	}
	return 0;
}
