/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Deferred free under RCU (rte_sheaf_free_deferred() and friends, on
 * rte_rcu_qsbr): bad input; safety, a reader lcore holding an object keeps
 * it from every allocation until it reports a quiescent state; liveness,
 * the barrier brings every deferred object back, those of another lcore
 * and of a thread without an lcore id included; the fallback when no
 * sheaf is at hand; flush and pool free with objects pending; and a
 * two-lcore stress of deferred frees mixed with get and put, checking at
 * each allocation that a deferred object's grace period had ended.
 */

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_pause.h>
#include <rte_rcu_qsbr.h>

#include "sheaf_test.h"

#define POOL_N 1023
#define POOL_ELT 64
#define CAP 32
#define READERS 4          /* QSBR thread ids: 0 reader, 1 and 2 stress */
#define STRESS_MS 1000
#define STRESS_HOLD 256
#define STRESS_BULK 8
#define SHARED_N 100       /* objects a thread without lcore id frees */

static struct rte_mempool *pool;
static struct rte_mempool *other;
static struct rte_rcu_qsbr *qv;
static struct sheaf_test_objs table;
static void **objs;
static unsigned int worker;

/* Reader lcore protocol; plain flags with acquire/release. */
static void *published;
static void *reader_ref;
static uint32_t reader_holding;
static uint32_t reader_release;
static uint32_t reader_reported;
static uint32_t reader_stop;
static void **worker_objs;        /* freed deferred by the reader first */
static unsigned int worker_nb;

static int
case_setup(void)
{
	size_t sz = rte_rcu_qsbr_get_memsize(READERS);

	worker = rte_get_next_lcore(-1, 1, 0);
	qv = rte_zmalloc("test_qsbr", sz, RTE_CACHE_LINE_SIZE);
	RTE_TEST_ASSERT_NOT_NULL(qv, "QSBR alloc: got NULL");
	RTE_TEST_ASSERT_SUCCESS(rte_rcu_qsbr_init(qv, READERS),
		"QSBR init: got %d", rte_errno);
	published = NULL;
	reader_ref = NULL;
	reader_holding = reader_release = reader_reported = reader_stop = 0;
	worker_objs = NULL;
	worker_nb = 0;
	objs = calloc(POOL_N * 2, sizeof(*objs));
	RTE_TEST_ASSERT_NOT_NULL(objs, "out of memory");
	return TEST_SUCCESS;
}

static void
case_teardown(void)
{
	__atomic_store_n(&reader_release, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&reader_stop, 1, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	rte_mempool_free(pool);
	rte_mempool_free(other);
	pool = NULL;
	other = NULL;
	rte_free(qv);
	qv = NULL;
	sheaf_test_objs_free(&table);
	free(objs);
	objs = NULL;
}

static struct rte_mempool *
rcu_pool(const char *name, unsigned int n, struct rte_sheaf_config *cfg)
{
	cfg->qsbr = qv;
	return rte_sheaf_pool_create(name, n, POOL_ELT, 0, 0, SOCKET_ID_ANY, 0,
		cfg);
}

static unsigned int
in_deferred(struct rte_mempool *mp)
{
	struct rte_sheaf_info info;

	if (rte_sheaf_info_get(mp, &info) != 0)
		return UINT32_MAX;
	return info.in_deferred;
}

/*
 * A barrier while an idle lcore (no pool call since) may hold a partial
 * deferred sheaf: the caller stamps it under the membarrier() handshake.
 * Without membarrier() it waits for that lcore's next call: the barrier
 * gives up after its timeout, and the rest is skipped. Returns
 * TEST_SUCCESS to go on.
 */
static int
barrier_idle_lcore(const char *what)
{
	int ret = rte_sheaf_deferred_barrier(pool);

	if (ret == -ETIMEDOUT && !sheaf_test_membarrier()) {
		printf("    membarrier() unavailable: an idle lcore's deferred sheaf is out of the barrier's reach (-ETIMEDOUT): the rest is not checked\n");
		return TEST_SKIPPED;
	}
	SHEAF_TEST_ASSERT_INT(ret, 0, what);
	return TEST_SUCCESS;
}

/*
 * Take every object get hands out, one at a time, into objs; none may be
 * forbidden. Returns the count, or -1 when forbidden showed up.
 */
static int
get_all(struct rte_mempool *mp, const void *forbidden)
{
	unsigned int n = 0;

	while (n < POOL_N * 2 && rte_mempool_get(mp, &objs[n]) == 0) {
		if (forbidden != NULL && objs[n] == forbidden) {
			printf("    FAILED object %p handed out before its grace period\n",
				forbidden);
			rte_mempool_put_bulk(mp, objs, n + 1);
			return -1;
		}
		n++;
	}
	return (int)n;
}

static int
test_bad_input(void)
{
	struct rte_rcu_qsbr *v2 = qv;
	void *o, *two[2];

	other = rte_mempool_create("dfr_ring", 255, POOL_ELT, 0, 0, NULL, NULL,
		NULL, NULL, SOCKET_ID_ANY, 0);
	RTE_TEST_ASSERT_NOT_NULL(other, "ring pool: got NULL (%s)",
		rte_strerror(rte_errno));
	pool = rte_sheaf_pool_create("dfr_bad", POOL_N, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0, NULL);
	RTE_TEST_ASSERT_NOT_NULL(pool, "sheaf pool: got NULL (%s)",
		rte_strerror(rte_errno));
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get(pool, &o), "get: failed");

	/* Not a sheaf pool, or none. */
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_free_deferred(other, o), EINVAL);
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_rcu_attach(other, qv), EINVAL);
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_reclaim(other), EINVAL);
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_deferred_barrier(other), EINVAL);
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_free_deferred(NULL, o), EINVAL);
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_free_deferred_bulk(NULL, &o, 1), EINVAL);
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_rcu_attach(NULL, qv), EINVAL);
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_reclaim(NULL), EINVAL);
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_deferred_barrier(NULL), EINVAL);

	/* A sheaf pool without QSBR. */
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_free_deferred(pool, o), ENOTSUP);
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_free_deferred_bulk(pool, &o, 1),
		ENOTSUP);
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_reclaim(pool), ENOTSUP);
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_deferred_barrier(pool), ENOTSUP);

	/* Attach: NULL, then once only. */
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_rcu_attach(pool, NULL), EINVAL);
	SHEAF_TEST_ASSERT_INT(rte_sheaf_rcu_attach(pool, qv), 0, "attach");
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_rcu_attach(pool, qv), EEXIST);
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_rcu_attach(pool, v2), EEXIST);

	/* NULL objects: nothing freed. */
	two[0] = o;
	two[1] = NULL;
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_free_deferred(pool, NULL), EINVAL);
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_free_deferred_bulk(pool, NULL, 1),
		EINVAL);
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_free_deferred_bulk(pool, two, 2),
		EINVAL);
	SHEAF_TEST_ASSERT_INT(rte_sheaf_free_deferred_bulk(pool, two, 0), 0,
		"bulk of 0");
	/* n 0 reads no table, as rte_mempool_put_bulk(): NULL included. */
	SHEAF_TEST_ASSERT_INT(rte_sheaf_free_deferred_bulk(pool, NULL, 0), 0,
		"NULL bulk of 0");
	SHEAF_TEST_ASSERT_INT(sheaf_test_stat(pool, RTE_SHEAF_STAT_FREE_DEFERRED), 0,
		"free_deferred after refused calls");
	SHEAF_TEST_ASSERT_INT(rte_sheaf_reclaim(pool), 0, "reclaim, none");
	SHEAF_TEST_ASSERT_INT(rte_sheaf_deferred_barrier(pool), 0,
		"barrier, none");

	/* No reader registered: the grace period is over at once. */
	SHEAF_TEST_ASSERT_INT(rte_sheaf_free_deferred(pool, o), 0,
		"free deferred");
	SHEAF_TEST_ASSERT_INT(rte_sheaf_deferred_barrier(pool), 0, "barrier");
	SHEAF_TEST_ASSERT_INT(rte_mempool_avail_count(pool), POOL_N,
		"avail after barrier");
	return TEST_SUCCESS;
}

/*
 * The reader: registered as QSBR thread 0, online, takes the published
 * object, holds it until told, reports, then reports in a loop. Objects
 * handed in worker_objs it frees deferred first, leaving them in its
 * lcore's partial deferred sheaf.
 */
static int
reader_main(void *arg __rte_unused)
{
	rte_rcu_qsbr_thread_online(qv, 0);
	if (worker_nb != 0 && rte_sheaf_free_deferred_bulk(pool, worker_objs,
			worker_nb) != 0)
		printf("    reader: free deferred failed: %d\n", rte_errno);
	/* Acquire: pairs with the writer's release of the object. */
	reader_ref = __atomic_load_n(&published, __ATOMIC_ACQUIRE);
	__atomic_store_n(&reader_holding, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&reader_release, __ATOMIC_ACQUIRE) == 0)
		rte_pause();
	/* Done with reader_ref: the object may go. */
	reader_ref = NULL;
	rte_rcu_qsbr_quiescent(qv, 0);
	__atomic_store_n(&reader_reported, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&reader_stop, __ATOMIC_ACQUIRE) == 0) {
		rte_rcu_qsbr_quiescent(qv, 0);
		rte_pause();
	}
	rte_rcu_qsbr_thread_offline(qv, 0);
	return 0;
}

static int
reader_start(void)
{
	RTE_TEST_ASSERT_SUCCESS(rte_rcu_qsbr_thread_register(qv, 0),
		"register reader: failed");
	RTE_TEST_ASSERT_SUCCESS(rte_eal_remote_launch(reader_main, NULL,
		worker), "launch reader on lcore %u: failed", worker);
	while (__atomic_load_n(&reader_holding, __ATOMIC_ACQUIRE) == 0)
		rte_pause();
	return TEST_SUCCESS;
}

static int
test_safety(void)
{
	struct rte_sheaf_config cfg = { .capacity = CAP };
	unsigned int nb_def = 1 + 3 * CAP;
	void *x, *more[3 * CAP];
	int n;

	pool = rcu_pool("dfr_safe", POOL_N, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: got NULL (%s)",
		rte_strerror(rte_errno));
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get(pool, &x), "get x: failed");
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(pool, more, 3 * CAP),
		"get more: failed");
	/* Release: the reader sees the object set up. */
	__atomic_store_n(&published, x, __ATOMIC_RELEASE);
	SHEAF_TEST_CHECK(reader_start());
	RTE_TEST_ASSERT(reader_ref == x, "reader holds %p, expected %p",
		reader_ref, x);

	/* Unpublish, then free deferred: x first, in sheaves stamped full. */
	__atomic_store_n(&published, NULL, __ATOMIC_RELEASE);
	SHEAF_TEST_ASSERT_INT(rte_sheaf_free_deferred(pool, x), 0, "free x");
	SHEAF_TEST_ASSERT_INT(rte_sheaf_free_deferred_bulk(pool, more,
		3 * CAP), 0, "free more");
	/* The partial sheaf gets stamped too, so the FIFO holds all. */
	RTE_TEST_ASSERT(rte_sheaf_flush_lcore(pool) >= 0, "flush: failed");
	SHEAF_TEST_ASSERT_INT(in_deferred(pool), nb_def, "in_deferred");
	SHEAF_TEST_ASSERT_INT(sheaf_test_stat(pool, RTE_SHEAF_STAT_DEFERRED_STAMP), 4,
		"deferred_stamp");
	SHEAF_TEST_ASSERT_INT(rte_sheaf_reclaim(pool), 0,
		"reclaim while the reader holds x");
	SHEAF_TEST_ASSERT_INT(rte_mempool_avail_count(pool), POOL_N - nb_def,
		"avail while deferred");

	/* Allocations drain the pool and never see x. */
	n = get_all(pool, x);
	RTE_TEST_ASSERT(n >= 0, "x allocated before the reader reported");
	SHEAF_TEST_ASSERT_INT(n, POOL_N - nb_def, "objects allocatable");
	rte_mempool_put_bulk(pool, objs, n);
	SHEAF_TEST_ASSERT_INT(reader_reported, 0, "reader reported early");

	/* The reader reports: everything comes back, x included. */
	__atomic_store_n(&reader_release, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&reader_reported, __ATOMIC_ACQUIRE) == 0)
		rte_pause();
	SHEAF_TEST_ASSERT_INT(rte_sheaf_reclaim(pool), nb_def,
		"reclaim after the report");
	SHEAF_TEST_ASSERT_INT(in_deferred(pool), 0, "in_deferred after");
	n = get_all(pool, NULL);
	SHEAF_TEST_ASSERT_INT(n, POOL_N, "objects allocatable after");
	SHEAF_TEST_CHECK(sheaf_test_objs_build(pool, &table));
	SHEAF_TEST_CHECK(sheaf_test_objs_check(&table, objs, n));
	while (n > 0 && objs[n - 1] != x)
		n--;
	RTE_TEST_ASSERT(n > 0, "x not allocatable after the report");
	rte_mempool_put_bulk(pool, objs, POOL_N);
	SHEAF_TEST_ASSERT_INT(sheaf_test_stat(pool, RTE_SHEAF_STAT_DEFERRED_RECLAIM),
		nb_def, "deferred_reclaim");
	SHEAF_TEST_ASSERT_INT(sheaf_test_stat(pool, RTE_SHEAF_STAT_DEFERRED_FALLBACK),
		0, "deferred_fallback");
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));
	return TEST_SUCCESS;
}

struct shared_arg {
	void **objs;
	unsigned int n;
	int ret;
	unsigned int lcore;
	bool bulk;         /* one call for all n */
};

static void *
shared_thread(void *p)
{
	struct shared_arg *a = p;
	unsigned int i;

	a->lcore = rte_lcore_id();
	a->ret = 0;
	if (a->bulk) {
		a->ret = rte_sheaf_free_deferred_bulk(pool, a->objs, a->n);
		return NULL;
	}
	for (i = 0; i < a->n && a->ret == 0; i++)
		a->ret = rte_sheaf_free_deferred(pool, a->objs[i]);
	return NULL;
}

static int
test_liveness(void)
{
	struct rte_sheaf_config cfg = { .capacity = CAP };
	struct shared_arg a;
	unsigned int i, n_main;
	pthread_t t;
	int ret;

	pool = rcu_pool("dfr_live", POOL_N, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: got NULL (%s)",
		rte_strerror(rte_errno));
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(pool, objs, POOL_N),
		"get all: failed");
	/* The reader lcore frees some, left in its partial sheaf. */
	worker_objs = objs;
	worker_nb = CAP / 2 + 3;
	SHEAF_TEST_CHECK(reader_start());
	/* A thread without an lcore id frees some: the shared path. */
	a.objs = objs + worker_nb;
	a.n = SHARED_N;
	a.bulk = false;
	RTE_TEST_ASSERT_SUCCESS(pthread_create(&t, NULL, shared_thread, &a),
		"pthread_create: failed");
	pthread_join(t, NULL);
	SHEAF_TEST_ASSERT_INT(a.lcore, LCORE_ID_ANY, "thread lcore id");
	SHEAF_TEST_ASSERT_INT(a.ret, 0, "free deferred, no lcore id");
	/* The main lcore frees the rest: singles and bulks. */
	n_main = POOL_N - worker_nb - SHARED_N;
	for (i = 0; i < n_main; ) {
		void **o = objs + worker_nb + SHARED_N + i;
		unsigned int k = RTE_MIN(i % 3 == 0 ? 1u : 7u, n_main - i);

		SHEAF_TEST_ASSERT_INT(k == 1 ? rte_sheaf_free_deferred(pool,
			o[0]) : rte_sheaf_free_deferred_bulk(pool, o, k), 0,
			"free deferred");
		i += k;
	}
	/* The reader may have reported: some may be back already. */
	__atomic_store_n(&reader_release, 1, __ATOMIC_RELEASE);
	ret = barrier_idle_lcore("barrier");
	if (ret != TEST_SUCCESS)
		return ret;
	SHEAF_TEST_ASSERT_INT(rte_mempool_avail_count(pool), POOL_N,
		"avail after barrier");
	SHEAF_TEST_ASSERT_INT(in_deferred(pool), 0, "in_deferred");
	SHEAF_TEST_ASSERT_INT(sheaf_test_stat(pool, RTE_SHEAF_STAT_FREE_DEFERRED),
		POOL_N, "free_deferred");
	SHEAF_TEST_ASSERT_INT(sheaf_test_stat(pool, RTE_SHEAF_STAT_DEFERRED_RECLAIM),
		POOL_N, "deferred_reclaim");
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));
	return TEST_SUCCESS;
}

/*
 * A thread without an lcore id frees, in one call, more sheaves' worth of
 * objects than one transaction's journal holds stores for (about 110
 * sheaves): the shared sheaf is stamped sheaf by sheaf, each in its own
 * transaction (one transaction for all of them overflowed the journal:
 * a panic).
 */
#define MANY_N 4095
#define MANY_CAP 8
#define MANY_FREED 2000

static int
test_shared_many(void)
{
	struct rte_sheaf_config cfg = { .capacity = MANY_CAP };
	struct shared_arg a;
	void **many;
	pthread_t t;

	pool = rcu_pool("dfr_many", MANY_N, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: got NULL (%s)",
		rte_strerror(rte_errno));
	many = calloc(MANY_FREED, sizeof(*many));
	RTE_TEST_ASSERT_NOT_NULL(many, "out of memory");
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(pool, many, MANY_FREED),
		"get: failed");
	a.objs = many;
	a.n = MANY_FREED;
	a.bulk = true;
	RTE_TEST_ASSERT_SUCCESS(pthread_create(&t, NULL, shared_thread, &a),
		"pthread_create: failed");
	pthread_join(t, NULL);
	free(many);
	SHEAF_TEST_ASSERT_INT(a.lcore, LCORE_ID_ANY, "thread lcore id");
	SHEAF_TEST_ASSERT_INT(a.ret, 0, "free deferred bulk, no lcore id");
	SHEAF_TEST_ASSERT_INT(in_deferred(pool), MANY_FREED, "in_deferred");
	RTE_TEST_ASSERT(sheaf_test_stat(pool, RTE_SHEAF_STAT_DEFERRED_STAMP) >=
		MANY_FREED / MANY_CAP / 2, "deferred_stamp: got %" PRIu64,
		sheaf_test_stat(pool, RTE_SHEAF_STAT_DEFERRED_STAMP));
	SHEAF_TEST_ASSERT_INT(rte_sheaf_deferred_barrier(pool), 0, "barrier");
	SHEAF_TEST_ASSERT_INT(rte_mempool_avail_count(pool), MANY_N,
		"avail after barrier");
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));
	return TEST_SUCCESS;
}

static int
test_fallback(void)
{
	/* One spare sheaf in the barn: deferred frees soon run out. */
	struct rte_sheaf_config cfg = {
		.capacity = 16, .barn_max_full = 1, .barn_max_empty = 1,
	};
	unsigned int nb = 500, i;
	uint64_t fb;
	int n;

	pool = rcu_pool("dfr_fb", POOL_N, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: got NULL (%s)",
		rte_strerror(rte_errno));
	SHEAF_TEST_CHECK(sheaf_test_objs_build(pool, &table));
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(pool, objs + POOL_N, nb),
		"get: failed");
	SHEAF_TEST_CHECK(reader_start());
	for (i = 0; i < nb; i++)
		SHEAF_TEST_ASSERT_INT(rte_sheaf_free_deferred(pool,
			objs[POOL_N + i]), 0, "free deferred");
	fb = sheaf_test_stat(pool, RTE_SHEAF_STAT_DEFERRED_FALLBACK);
	RTE_TEST_ASSERT(fb > 0 && fb < nb, "deferred_fallback: got %" PRIu64
		", expected 1..%u", fb, nb - 1);
	SHEAF_TEST_ASSERT_INT(in_deferred(pool), nb, "in_deferred");
	SHEAF_TEST_ASSERT_INT(rte_sheaf_reclaim(pool), 0, "reclaim, held");
	/* None of the deferred objects is allocatable yet. */
	n = get_all(pool, NULL);
	SHEAF_TEST_ASSERT_INT(n, POOL_N - nb, "objects allocatable");
	for (i = 0; i < (unsigned int)n; i++) {
		unsigned int j;

		for (j = 0; j < nb; j++)
			RTE_TEST_ASSERT(objs[i] != objs[POOL_N + j],
				"deferred object %p allocated early", objs[i]);
	}
	rte_mempool_put_bulk(pool, objs, n);
	__atomic_store_n(&reader_release, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&reader_reported, __ATOMIC_ACQUIRE) == 0)
		rte_pause();
	SHEAF_TEST_ASSERT_INT(rte_sheaf_deferred_barrier(pool), 0, "barrier");
	SHEAF_TEST_ASSERT_INT(rte_mempool_avail_count(pool), POOL_N,
		"avail after barrier");
	SHEAF_TEST_ASSERT_INT(sheaf_test_stat(pool, RTE_SHEAF_STAT_DEFERRED_RECLAIM),
		nb, "deferred_reclaim");
	n = get_all(pool, NULL);
	SHEAF_TEST_ASSERT_INT(n, POOL_N, "objects allocatable after");
	SHEAF_TEST_CHECK(sheaf_test_objs_check(&table, objs, n));
	rte_mempool_put_bulk(pool, objs, n);
	return TEST_SUCCESS;
}

static uint64_t
heap_bytes(void)
{
	uint64_t total = 0;
	unsigned int i;

	for (i = 0; i < rte_socket_count(); i++) {
		struct rte_malloc_socket_stats st;

		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i),
				&st) == 0)
			total += st.heap_allocsz_bytes;
	}
	return total;
}

static int
test_flush_and_free(void)
{
	struct rte_sheaf_config cfg = { .capacity = CAP };
	uint64_t before;
	unsigned int nb = 3 * CAP + 5;

	/* A first cycle pays for one-time allocations. */
	pool = rcu_pool("dfr_free", POOL_N, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: got NULL");
	rte_mempool_free(pool);
	before = heap_bytes();
	pool = rcu_pool("dfr_free", POOL_N, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: got NULL (%s)",
		rte_strerror(rte_errno));
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(pool, objs, nb),
		"get: failed");
	SHEAF_TEST_CHECK(reader_start());
	SHEAF_TEST_ASSERT_INT(rte_sheaf_free_deferred_bulk(pool, objs, nb), 0,
		"free deferred");
	/* Flushes reclaim only what is safe: nothing, the reader holds. */
	RTE_TEST_ASSERT(rte_sheaf_flush_lcore(pool) >= 0, "flush_lcore");
	RTE_TEST_ASSERT(rte_sheaf_flush(pool) >= 0, "flush");
	SHEAF_TEST_ASSERT_INT(in_deferred(pool), nb, "in_deferred after flush");
	SHEAF_TEST_ASSERT_INT(rte_mempool_avail_count(pool), POOL_N - nb,
		"avail after flush");
	/* Freeing the pool with objects pending leaks nothing. */
	rte_mempool_free(pool);
	pool = NULL;
	SHEAF_TEST_ASSERT_INT(heap_bytes(), before,
		"rte_malloc bytes after free with objects pending");
	return TEST_SUCCESS;
}

/* Stress: per object, its holder (lcore index + 1), 0 free, or DEFERRED. */
#define DEFERRED_MARK 0xdefu
static uint32_t *owner;
static uint64_t *freed_at;        /* QSBR token seen before the free */
static uint32_t stress_failed;
static uint64_t stress_deadline;   /* timer cycles; written before use */

static void
stress_fail(const char *what, void *obj)
{
	if (__atomic_exchange_n(&stress_failed, 1, __ATOMIC_RELAXED) == 0)
		printf("    FAILED %s: object %p\n", what, obj);
}

static void
stress_claim(void **o, unsigned int n, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		int idx = sheaf_test_objs_index(&table, o[i]);
		uint32_t was;

		if (idx < 0) {
			stress_fail("foreign object", o[i]);
			continue;
		}
		was = __atomic_exchange_n(&owner[idx], id, __ATOMIC_ACQUIRE);
		if (was == DEFERRED_MARK &&
				rte_rcu_qsbr_check(qv, freed_at[idx] + 1,
					false) != 1)
			stress_fail("deferred object reused before its grace period",
				o[i]);
		else if (was != 0 && was != DEFERRED_MARK)
			stress_fail("object handed out twice", o[i]);
	}
}

static void
stress_release(void **o, unsigned int n, uint32_t id, bool deferred)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		int idx = sheaf_test_objs_index(&table, o[i]);

		if (deferred)
			freed_at[idx] = __atomic_load_n(&qv->token,
				__ATOMIC_ACQUIRE);
		if (__atomic_exchange_n(&owner[idx], deferred ? DEFERRED_MARK :
				0, __ATOMIC_RELEASE) != id)
			stress_fail("owner mismatch on free", o[i]);
	}
}

static int
stress_main(void *arg)
{
	uint32_t id = (uint32_t)(uintptr_t)arg;
	void *held[STRESS_HOLD + STRESS_BULK];
	uint64_t rng = 0x9e3779b97f4a7c15ULL * id;
	unsigned int nb = 0, k;

	rte_rcu_qsbr_thread_online(qv, id);
	/* Relaxed: a late read of the deadline only runs one more step. */
	while (rte_get_timer_cycles() < __atomic_load_n(&stress_deadline,
			__ATOMIC_RELAXED) &&
			__atomic_load_n(&stress_failed, __ATOMIC_RELAXED) == 0) {
		uint64_t r = sheaf_test_rand(&rng);

		k = r % STRESS_BULK + 1;
		switch ((r >> 16) % 4) {
		case 0:
		case 1:
			if (nb + k > STRESS_HOLD)
				break;
			if (rte_mempool_get_bulk(pool, &held[nb], k) == 0) {
				stress_claim(&held[nb], k, id);
				nb += k;
			}
			break;
		case 2:
			k = RTE_MIN(k, nb);
			nb -= k;
			stress_release(&held[nb], k, id, false);
			rte_mempool_put_bulk(pool, &held[nb], k);
			break;
		default:
			k = RTE_MIN(k, nb);
			nb -= k;
			stress_release(&held[nb], k, id, true);
			if (rte_sheaf_free_deferred_bulk(pool, &held[nb], k) != 0)
				stress_fail("free deferred failed", held[nb]);
			if ((r >> 32) % 64 == 0 && rte_sheaf_reclaim(pool) < 0)
				stress_fail("reclaim failed", NULL);
			break;
		}
		rte_rcu_qsbr_quiescent(qv, id);
	}
	stress_release(held, nb, id, false);
	rte_mempool_put_bulk(pool, held, nb);
	rte_rcu_qsbr_thread_offline(qv, id);
	return 0;
}

static int
test_stress(void)
{
	struct rte_sheaf_config cfg = { .capacity = CAP };
	int n;

	pool = rcu_pool("dfr_stress", POOL_N, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: got NULL (%s)",
		rte_strerror(rte_errno));
	SHEAF_TEST_CHECK(sheaf_test_objs_build(pool, &table));
	owner = calloc(POOL_N, sizeof(*owner));
	freed_at = calloc(POOL_N, sizeof(*freed_at));
	RTE_TEST_ASSERT(owner != NULL && freed_at != NULL, "out of memory");
	stress_failed = 0;
	RTE_TEST_ASSERT_SUCCESS(rte_rcu_qsbr_thread_register(qv, 1) |
		rte_rcu_qsbr_thread_register(qv, 2), "register: failed");
	stress_deadline = UINT64_MAX;
	RTE_TEST_ASSERT_SUCCESS(rte_eal_remote_launch(stress_main,
		(void *)(uintptr_t)2, worker), "launch: failed");
	/* Both lcores run to the deadline; the main lcore is reader 1. */
	__atomic_store_n(&stress_deadline, rte_get_timer_cycles() +
		rte_get_timer_hz() * STRESS_MS / 1000, __ATOMIC_RELAXED);
	stress_main((void *)(uintptr_t)1);
	rte_eal_wait_lcore(worker);
	free(owner);
	owner = NULL;
	RTE_TEST_ASSERT(stress_failed == 0, "stress failed, see above");
	n = barrier_idle_lcore("barrier");
	if (n != TEST_SUCCESS) {
		free(freed_at);
		freed_at = NULL;
		return n;
	}
	SHEAF_TEST_ASSERT_INT(rte_mempool_avail_count(pool), POOL_N,
		"avail after barrier");
	n = get_all(pool, NULL);
	SHEAF_TEST_ASSERT_INT(n, POOL_N, "objects allocatable");
	SHEAF_TEST_CHECK(sheaf_test_objs_check(&table, objs, n));
	rte_mempool_put_bulk(pool, objs, n);
	free(freed_at);
	freed_at = NULL;
	RTE_TEST_ASSERT(sheaf_test_stat(pool, RTE_SHEAF_STAT_FREE_DEFERRED) ==
		sheaf_test_stat(pool, RTE_SHEAF_STAT_DEFERRED_RECLAIM),
		"free_deferred %" PRIu64 " != deferred_reclaim %" PRIu64,
		sheaf_test_stat(pool, RTE_SHEAF_STAT_FREE_DEFERRED),
		sheaf_test_stat(pool, RTE_SHEAF_STAT_DEFERRED_RECLAIM));
	printf("    freed deferred %" PRIu64 ", stamped %" PRIu64 ", fallback %" PRIu64 ", gets %" PRIu64 "\n",
		sheaf_test_stat(pool, RTE_SHEAF_STAT_FREE_DEFERRED),
		sheaf_test_stat(pool, RTE_SHEAF_STAT_DEFERRED_STAMP),
		sheaf_test_stat(pool, RTE_SHEAF_STAT_DEFERRED_FALLBACK),
		sheaf_test_stat(pool, RTE_SHEAF_STAT_ALLOC_FAST) +
		sheaf_test_stat(pool, RTE_SHEAF_STAT_ALLOC_SLOW));
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));
	return TEST_SUCCESS;
}

/* The barrier returns 0 with every object of pool back. */
static int
barrier_brings_all(const char *what)
{
	SHEAF_TEST_ASSERT_INT(rte_sheaf_deferred_barrier(pool), 0, what);
	SHEAF_TEST_ASSERT_INT(in_deferred(pool), 0, "in_deferred at the end");
	SHEAF_TEST_ASSERT_INT(rte_mempool_avail_count(pool), POOL_N,
		"avail at the end");
	return TEST_SUCCESS;
}

/*
 * A reader that never reports (here the caller itself, online on the
 * pool's QSBR variable, which the barrier's doc forbids): the barrier
 * gives up after barrier_timeout_ms with -ETIMEDOUT instead of waiting
 * forever, the object stays deferred, and comes back once the reader
 * reports.
 */
static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
test_barrier_timeout(void)
{
	struct rte_sheaf_config cfg = { .capacity = CAP,
		.barrier_timeout_ms = 50 };
	uint64_t t0, ms;
	void *o;

	pool = rcu_pool("dfr_timeout", POOL_N, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: got NULL (%s)",
		rte_strerror(rte_errno));
	RTE_TEST_ASSERT_SUCCESS(rte_rcu_qsbr_thread_register(qv, 0),
		"register");
	rte_rcu_qsbr_thread_online(qv, 0);
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get(pool, &o), "get");
	SHEAF_TEST_ASSERT_INT(rte_sheaf_free_deferred(pool, o), 0,
		"free deferred");
	/* The library's clock (CLOCK_MONOTONIC), not the TSC: this VM's
	 * TSC and the kernel's clock may disagree by a little. */
	t0 = mono_ns();
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_deferred_barrier(pool), ETIMEDOUT);
	ms = (mono_ns() - t0) / 1000000;
	RTE_TEST_ASSERT(ms >= 50 && ms < 5000,
		"barrier time: got %" PRIu64 " ms, expected 50 ms to 5 s", ms);
	SHEAF_TEST_ASSERT_INT(in_deferred(pool), 1, "in_deferred after it");
	rte_rcu_qsbr_thread_offline(qv, 0);
	rte_rcu_qsbr_thread_unregister(qv, 0);
	return barrier_brings_all("barrier once the reader is gone");
}

/*
 * The barrier called on an lcore id whose slot another process owns (a
 * child, forked from the worker lcore, that freed deferred on that lcore
 * id and waits): that slot's deferred sheaf is asked for, like any other
 * slot's. It was left out as if it were the caller's own: the barrier
 * returned 0 with the child's objects neither stamped nor waited for.
 */
#define FOREIGN_N 10

static int foreign_go[2], foreign_done[2];
static pid_t foreign_child;
static int foreign_ret;

static int
foreign_fork(void *arg __rte_unused)
{
	void *o[FOREIGN_N];
	char c;

	foreign_child = fork();
	if (foreign_child != 0)
		return 0;
	/* The parent's ends: its exit ends the read below. */
	close(foreign_go[1]);
	close(foreign_done[0]);
	/* The first call on this lcore id: the child owns its slot. */
	c = rte_mempool_get_bulk(pool, o, FOREIGN_N) != 0 ||
		rte_sheaf_free_deferred_bulk(pool, o, FOREIGN_N) != 0;
	if (write(foreign_done[1], &c, 1) != 1 ||
			read(foreign_go[0], &c, 1) < 0)
		_exit(2);
	_exit(0);
}

static int
foreign_barrier(void *arg __rte_unused)
{
	foreign_ret = rte_sheaf_deferred_barrier(pool);
	return 0;
}

static int
test_barrier_foreign_slot(void)
{
	struct rte_sheaf_config cfg = { .capacity = CAP,
		.barrier_timeout_ms = 200 };
	unsigned int left;
	int status = 0;
	char c = 1;

	pool = rcu_pool("dfr_foreign", POOL_N, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: got NULL (%s)",
		rte_strerror(rte_errno));
	RTE_TEST_ASSERT_SUCCESS(pipe(foreign_go) | pipe(foreign_done),
		"pipe: failed");
	RTE_TEST_ASSERT_SUCCESS(rte_eal_remote_launch(foreign_fork, NULL,
		worker), "launch: failed");
	rte_eal_wait_lcore(worker);
	RTE_TEST_ASSERT(foreign_child > 0, "fork: failed");
	close(foreign_go[0]);
	close(foreign_done[1]);
	RTE_TEST_ASSERT(read(foreign_done[0], &c, 1) == 1 && c == 0,
		"child's deferred free failed");
	SHEAF_TEST_ASSERT_INT(in_deferred(pool), FOREIGN_N,
		"in_deferred after the child's free");
	/* On the worker's lcore id, the child's slot. */
	RTE_TEST_ASSERT_SUCCESS(rte_eal_remote_launch(foreign_barrier, NULL,
		worker), "launch: failed");
	rte_eal_wait_lcore(worker);
	left = in_deferred(pool);
	/* The child is idle: served under the handshake, or out of reach. */
	RTE_TEST_ASSERT(foreign_ret == -ETIMEDOUT ||
		(foreign_ret == 0 && left == 0),
		"barrier with a live owner: got %d, %u objects left deferred",
		foreign_ret, left);
	c = 0;
	RTE_TEST_ASSERT(write(foreign_go[1], &c, 1) == 1, "write: failed");
	RTE_TEST_ASSERT(waitpid(foreign_child, &status, 0) == foreign_child &&
		WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"child failed: status %#x", status);
	close(foreign_go[1]);
	close(foreign_done[0]);
	/* Its owner dead, the slot is inherited and stamped. */
	return barrier_brings_all("barrier after the owner's death");
}

/* Phases of the idle worker of test_barrier_after_take. */
static uint32_t idle_phase;

/*
 * The worker frees objs[0..4) deferred, then idles (no pool call) until
 * told; then frees objs[4..8) deferred and idles again until told.
 */
static int
idle_worker(void *arg __rte_unused)
{
	unsigned int k;

	for (k = 0; k < 2; k++) {
		if (rte_sheaf_free_deferred_bulk(pool, objs + 4 * k, 4) != 0)
			printf("    worker: free deferred failed: %d\n",
				rte_errno);
		/* Release: pairs with the main lcore's acquire below. */
		__atomic_store_n(&idle_phase, 2 * k + 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&idle_phase, __ATOMIC_ACQUIRE) !=
				2 * k + 2) {
			/* The case failed: its teardown waits for us. */
			if (__atomic_load_n(&reader_stop, __ATOMIC_ACQUIRE))
				return 0;
			rte_pause();
		}
	}
	return 0;
}

/*
 * A barrier whose stamp an idle owner's thief served leaves the request
 * bit for the owner; the owner's next deferred free takes it (a
 * generation served already) before it frees. A later barrier must ask
 * again, not take that bit for its own request served (it returned 0
 * with the second objects still deferred).
 */
static int
test_barrier_after_take(void)
{
	struct rte_sheaf_config cfg = { .capacity = CAP };
	unsigned int k;

	if (!sheaf_test_membarrier()) {
		printf("    membarrier() unavailable: no take from idle lcores, the case is not run\n");
		return TEST_SKIPPED;
	}
	pool = rcu_pool("def_after_take", POOL_N, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: got NULL (rte_errno %d)",
		rte_errno);
	SHEAF_TEST_ASSERT_INT(rte_mempool_get_bulk(pool, objs, 8), 0, "get 8");
	__atomic_store_n(&idle_phase, 0, __ATOMIC_RELAXED);
	RTE_TEST_ASSERT_SUCCESS(rte_eal_remote_launch(idle_worker, NULL,
		worker), "launch on lcore %u: failed", worker);
	for (k = 0; k < 2; k++) {
		while (__atomic_load_n(&idle_phase, __ATOMIC_ACQUIRE) !=
				2 * k + 1)
			rte_pause();
		SHEAF_TEST_ASSERT_INT(in_deferred(pool), 4, "in_deferred before");
		SHEAF_TEST_ASSERT_INT(rte_sheaf_deferred_barrier(pool), 0,
			"barrier");
		SHEAF_TEST_ASSERT_INT(in_deferred(pool), 0,
			k == 0 ? "in_deferred after the first barrier" :
			"in_deferred after the second barrier");
		__atomic_store_n(&idle_phase, 2 * k + 2, __ATOMIC_RELEASE);
	}
	rte_eal_wait_lcore(worker);
	SHEAF_TEST_ASSERT_INT(rte_sheaf_deferred_barrier(pool), 0, "barrier");
	SHEAF_TEST_ASSERT_INT(rte_mempool_avail_count(pool), POOL_N, "avail");
	return TEST_SUCCESS;
}

/*
 * test_barrier_foreign_freer: the child's objects, and the flags it
 * shares with the parent (pool memory: shared across the fork).
 */
#define FREER_N 1000
struct freer_ctl {
	uint32_t stop;  /* parent: stop freeing */
	uint32_t done;  /* child: objects freed deferred */
	uint32_t fail;  /* child: a call failed */
};
static struct freer_ctl *freer;

static int
freer_fork(void *arg __rte_unused)
{
	unsigned int i;

	foreign_child = fork();
	if (foreign_child != 0)
		return 0;
	/* The first call on this lcore id: the child owns its slot. */
	if (rte_mempool_get_bulk(pool, objs, FREER_N) != 0) {
		__atomic_store_n(&freer->fail, 1, __ATOMIC_RELEASE);
		_exit(1);
	}
	/* Acquire: pairs with the parent's release of the stop. */
	for (i = 0; i < FREER_N &&
			!__atomic_load_n(&freer->stop, __ATOMIC_ACQUIRE); i++) {
		if (rte_sheaf_free_deferred(pool, objs[i]) != 0)
			__atomic_store_n(&freer->fail, 1, __ATOMIC_RELAXED);
		/* Release: pairs with the parent's acquire of done. */
		__atomic_store_n(&freer->done, i + 1, __ATOMIC_RELEASE);
		rte_delay_us_block(300);
	}
	/* What it did not free goes back, so the pool ends whole. */
	rte_mempool_put_bulk(pool, objs + i, FREER_N - i);
	_exit(0);
}

/*
 * Another process's lcore that only frees deferred (its objects got
 * before), calling the pool every 300 us, never idle, out of reach of a
 * remote take (the pool's one membarrier() a second spent by the first
 * barrier): a barrier asks it to stamp, and its next free must serve
 * the request. Until 2026-12-05 only a get or put served one: the
 * barrier returned -ETIMEDOUT while that lcore freed on.
 */
static int
test_barrier_foreign_freer(void)
{
	/* One membarrier() a second: a second barrier cannot take. */
	struct rte_sheaf_config cfg = { .capacity = CAP,
		.barrier_timeout_ms = 100,
		.membarrier_interval_us = RTE_SHEAF_TIME_US_MAX };
	int status = 0, ret[2], k;

	pool = rcu_pool("dfr_freer", POOL_N, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: got NULL (%s)",
		rte_strerror(rte_errno));
	freer = rte_zmalloc("freer_ctl", sizeof(*freer), 0);
	RTE_TEST_ASSERT_NOT_NULL(freer, "alloc: got NULL");
	RTE_TEST_ASSERT_SUCCESS(rte_eal_remote_launch(freer_fork, NULL,
		worker), "launch: failed");
	rte_eal_wait_lcore(worker);
	RTE_TEST_ASSERT(foreign_child > 0, "fork: failed");
	while (__atomic_load_n(&freer->done, __ATOMIC_ACQUIRE) < 10 &&
			!__atomic_load_n(&freer->fail, __ATOMIC_ACQUIRE))
		rte_delay_us_sleep(100);
	for (k = 0; k < 2; k++)
		ret[k] = rte_sheaf_deferred_barrier(pool);
	__atomic_store_n(&freer->stop, 1, __ATOMIC_RELEASE);
	RTE_TEST_ASSERT(waitpid(foreign_child, &status, 0) == foreign_child &&
		WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"child failed: status %#x", status);
	RTE_TEST_ASSERT(!__atomic_load_n(&freer->fail, __ATOMIC_ACQUIRE),
		"a call of the child failed");
	rte_free(freer);
	for (k = 0; k < 2; k++)
		SHEAF_TEST_ASSERT_INT(ret[k], 0, k == 0 ?
			"barrier while another process's lcore frees deferred only" :
			"second barrier while another process's lcore frees deferred only");
	/* Its owner gone, the slot is inherited and stamped. */
	return barrier_brings_all("barrier after the freer's exit");
}

static const struct sheaf_test_case cases[] = {
	SHEAF_TEST_CASE_ST(case_setup, case_teardown, test_bad_input),
	SHEAF_TEST_CASE_ST(case_setup, case_teardown, test_safety),
	SHEAF_TEST_CASE_ST(case_setup, case_teardown, test_liveness),
	SHEAF_TEST_CASE_ST(case_setup, case_teardown, test_shared_many),
	SHEAF_TEST_CASE_ST(case_setup, case_teardown, test_fallback),
	SHEAF_TEST_CASE_ST(case_setup, case_teardown, test_flush_and_free),
	SHEAF_TEST_CASE_ST(case_setup, case_teardown, test_stress),
	SHEAF_TEST_CASE_ST(case_setup, case_teardown, test_barrier_timeout),
	SHEAF_TEST_CASE_ST(case_setup, case_teardown,
		test_barrier_foreign_slot),
	SHEAF_TEST_CASE_ST(case_setup, case_teardown, test_barrier_after_take),
	SHEAF_TEST_CASE_ST(case_setup, case_teardown,
		test_barrier_foreign_freer),
	SHEAF_TEST_CASES_END
};

static const struct sheaf_test_suite suite = {
	.name = "sheaf_deferred",
	.min_lcores = 2,
	.cases = cases,
};

int
main(int argc, char **argv)
{
	return sheaf_test_main(argc, argv, &suite);
}
