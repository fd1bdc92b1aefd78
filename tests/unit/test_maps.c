// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <cmocka.h>
#include "fileio.h"
#include "maps.h"

/* ---- without the kernel ---------------------------------------------- */

static void test_stride(void **state)
{
	(void)state;
	assert_int_equal(kfit_percpu_stride(1), 8);
	assert_int_equal(kfit_percpu_stride(8), 8);
	assert_int_equal(kfit_percpu_stride(9), 16);
	assert_int_equal(kfit_percpu_stride(12), 16);
	assert_int_equal(kfit_percpu_stride(4096), 4096);
	assert_int_equal(kfit_percpu_stride(4097), 4104);
}

struct twelve {
	__u32 a;
	__u64 b;
} __attribute__((packed));

static void test_percpu_layout(void **state)
{
	struct kfit_percpu p;
	struct twelve *t;
	int cpu;

	(void)state;
	assert_int_equal(kfit_percpu_init(&p, sizeof(struct twelve), 5), 0);
	assert_int_equal(p.ncpus, 5);
	assert_int_equal(p.size, 12);
	assert_int_equal(p.stride, 16);
	/* Slots are stride apart, and start zeroed */
	for (cpu = 0; cpu < 5; cpu++) {
		t = kfit_percpu_at(&p, cpu);
		assert_ptr_equal(t, (char *)p.buf + 16 * cpu);
		assert_int_equal(t->a, 0);
		assert_true(t->b == 0);
		t->a = cpu + 1;
		t->b = 1000ULL * (cpu + 1) + (1ULL << 40);
	}
	/* The b at offset 4, unaligned: 1000 * (1 + ... + 5) + 5 << 40 */
	assert_true(kfit_percpu_sum(&p, 4) == 15000ULL + (5ULL << 40));
	kfit_percpu_free(&p);
	assert_null(p.buf);
	assert_int_equal(kfit_percpu_init(&p, 0, 2), -EINVAL);
	/* 0: the possible CPUs */
	assert_int_equal(kfit_percpu_init(&p, 8, 0), 0);
	assert_int_equal(p.ncpus, kfit_ncpus_possible(NULL));
	kfit_percpu_free(&p);
}

/* ---- against real maps (CAP_BPF) ------------------------------------- */

/* Skipped without the right to make maps, but not under CI=true */
static int new_map(enum bpf_map_type type, __u32 ksize, __u32 vsize, __u32 max)
{
	const char *ci = getenv("CI");
	int fd = bpf_map_create(type, "kfit_test", ksize, vsize, max, NULL);

	if (fd >= 0)
		return fd;
	if ((errno == EPERM || errno == EACCES) && !(ci && !strcmp(ci, "true")))
		skip();
	fail_msg("bpf_map_create: %s", strerror(errno));
	return -1;
}

struct key {
	__u32 half;
	__u32 id;
};

static void fill(int fd, int n)
{
	struct key k;
	__u64 v;
	int i;

	for (i = 0; i < n; i++) {
		k.half = i % 2;
		k.id = i;
		v = 3ULL * i + 1;
		assert_int_equal(bpf_map_update_elem(fd, &k, &v, BPF_NOEXIST), 0);
	}
}

/* Keys left in the map, walked here by hand */
static int count_left(int fd, int *halves)
{
	struct key k, next, *prev = NULL;
	int n = 0;

	halves[0] = halves[1] = 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		halves[k.half]++;
		n++;
	}
	return n;
}

/* Each id once, with its value, and only ids of the halves asked for */
static void check_entries(const struct kfit_entries *e, int n, int half)
{
	char *seen = calloc(n, 1);
	const struct key *k;
	int i, want = 0;

	assert_non_null(seen);
	assert_int_equal(e->key_size, sizeof(struct key));
	assert_int_equal(e->value_size, sizeof(__u64));
	for (i = 0; i < e->n; i++) {
		k = kfit_entry_key(e, i);
		if (k->id >= (__u32)n || seen[k->id] || (half >= 0 && k->half != (__u32)half))
			fail_msg("entry %d: id %u half %u", i, k->id, k->half);
		seen[k->id] = 1;
		if (*(__u64 *)kfit_entry_value(e, i) != 3ULL * k->id + 1)
			fail_msg("id %u: value %llu", k->id,
				 (unsigned long long)*(__u64 *)kfit_entry_value(e, i));
	}
	for (i = 0; i < n; i++)
		want += half < 0 || i % 2 == half;
	assert_int_equal(e->n, want);
	free(seen);
}

static bool in_half(const void *key, void *half)
{
	return ((const struct key *)key)->half == *(__u32 *)half;
}

/* Batches and the walk, reading, deleting a half, deleting all */
static void test_hash_read(void **state)
{
	static const unsigned int modes[] = { 0, KFIT_HASH_WALK };
	struct kfit_entries e = { 0 };
	int fd, m, halves[2];
	__u32 one = 1;

	(void)state;
	for (m = 0; m < 2; m++) {
		fd = new_map(BPF_MAP_TYPE_HASH, sizeof(struct key), sizeof(__u64), 4096);
		fill(fd, 3001);
		assert_int_equal(kfit_hash_read(fd, NULL, NULL, modes[m], &e), 0);
		check_entries(&e, 3001, -1);
		assert_int_equal(count_left(fd, halves), 3001);
		/* One half goes, the other stays */
		assert_int_equal(kfit_hash_read(fd, in_half, &one, modes[m] | KFIT_HASH_DELETE,
						&e), 0);
		check_entries(&e, 3001, 1);
		assert_int_equal(count_left(fd, halves), 1501);
		assert_int_equal(halves[1], 0);
		/* Everything goes */
		assert_int_equal(kfit_hash_read(fd, NULL, NULL, modes[m] | KFIT_HASH_DELETE,
						&e), 0);
		assert_int_equal(e.n, 1501);
		assert_int_equal(count_left(fd, halves), 0);
		assert_int_equal(kfit_hash_read(fd, NULL, NULL, modes[m], &e), 0);
		assert_int_equal(e.n, 0);
		close(fd);
	}
	kfit_entries_free(&e);
	assert_true(kfit_hash_read(-1, NULL, NULL, 0, &e) < 0);
}

/* A full map: room grows past the first guess, up to max_entries */
static void test_hash_full(void **state)
{
	struct kfit_entries e = { 0 };
	int fd, halves[2];

	(void)state;
	fd = new_map(BPF_MAP_TYPE_HASH, sizeof(struct key), sizeof(__u64), 1000);
	fill(fd, 1000);
	assert_int_equal(kfit_hash_read(fd, NULL, NULL, KFIT_HASH_DELETE, &e), 0);
	check_entries(&e, 1000, -1);
	assert_true(e.cap >= 1000);
	assert_int_equal(count_left(fd, halves), 0);
	close(fd);
	kfit_entries_free(&e);
}

/* Per-CPU hashes: every CPU's value, stride apart, in one entry */
static void test_hash_percpu(void **state)
{
	struct kfit_entries e = { 0 };
	int ncpus = kfit_ncpus_possible(NULL), fd, m, i, cpu;
	__u32 key, *v, *val;

	(void)state;
	assert_true(ncpus > 0);
	val = calloc(ncpus, 8);
	assert_non_null(val);
	fd = new_map(BPF_MAP_TYPE_PERCPU_HASH, sizeof(__u32), sizeof(__u32), 64);
	for (key = 0; key < 40; key++) {
		for (cpu = 0; cpu < ncpus; cpu++)
			val[cpu * 2] = key * 100 + cpu;
		assert_int_equal(bpf_map_update_elem(fd, &key, val, BPF_NOEXIST), 0);
	}
	for (m = 0; m < 2; m++) {
		assert_int_equal(kfit_hash_read(fd, NULL, NULL, m ? KFIT_HASH_WALK : 0, &e), 0);
		assert_int_equal(e.value_size, (size_t)ncpus * 8);
		assert_int_equal(e.n, 40);
		for (i = 0; i < e.n; i++) {
			key = *(__u32 *)kfit_entry_key(&e, i);
			v = kfit_entry_value(&e, i);
			for (cpu = 0; cpu < ncpus; cpu++)
				if (v[cpu * 2] != key * 100 + cpu)
					fail_msg("key %u cpu %d: %u", key, cpu, v[cpu * 2]);
		}
	}
	close(fd);
	/* The same entries struct, for a map of other sizes */
	fd = new_map(BPF_MAP_TYPE_HASH, sizeof(struct key), sizeof(__u64), 64);
	fill(fd, 10);
	assert_int_equal(kfit_hash_read(fd, NULL, NULL, 0, &e), 0);
	check_entries(&e, 10, -1);
	close(fd);
	kfit_entries_free(&e);
	free(val);
}

static void test_percpu_array(void **state)
{
	struct kfit_percpu p;
	__u32 key = 2;
	__u64 want = 0;
	int fd, cpu;

	(void)state;
	assert_int_equal(kfit_percpu_init(&p, sizeof(struct twelve), 0), 0);
	fd = new_map(BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(__u32), sizeof(struct twelve), 4);
	for (cpu = 0; cpu < p.ncpus; cpu++) {
		struct twelve *t = kfit_percpu_at(&p, cpu);

		t->a = cpu;
		t->b = (1ULL << 33) + 7 * cpu;
		want += t->b;
	}
	assert_int_equal(bpf_map_update_elem(fd, &key, p.buf, BPF_ANY), 0);
	memset(p.buf, 0xff, p.ncpus * p.stride);
	assert_int_equal(kfit_percpu_read(&p, fd, &key), 0);
	for (cpu = 0; cpu < p.ncpus; cpu++)
		assert_int_equal(((struct twelve *)kfit_percpu_at(&p, cpu))->a, cpu);
	assert_true(kfit_percpu_sum(&p, offsetof(struct twelve, b)) == want);
	/* Cleared on every CPU; the other keys untouched */
	assert_int_equal(kfit_percpu_clear(&p, fd, &key), 0);
	memset(p.buf, 0xff, p.ncpus * p.stride);
	assert_int_equal(kfit_percpu_read(&p, fd, &key), 0);
	assert_true(kfit_percpu_sum(&p, offsetof(struct twelve, b)) == 0);
	assert_true(kfit_percpu_sum(&p, 0) == 0);
	key = 4;
	assert_int_equal(kfit_percpu_read(&p, fd, &key), -ENOENT);
	close(fd);
	kfit_percpu_free(&p);
}

static void test_epoch_flip(void **state)
{
	volatile __u32 epoch = 6;

	(void)state;
	assert_int_equal(kfit_epoch_flip(&epoch), 0);
	assert_int_equal(epoch, 7);
	assert_int_equal(kfit_epoch_flip(&epoch), 1);
	assert_int_equal(epoch, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stride),
		cmocka_unit_test(test_percpu_layout),
		cmocka_unit_test(test_hash_read),
		cmocka_unit_test(test_hash_full),
		cmocka_unit_test(test_hash_percpu),
		cmocka_unit_test(test_percpu_array),
		cmocka_unit_test(test_epoch_flip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
