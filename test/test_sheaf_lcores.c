/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Many lcores on few CPUs (run with --lcores '(0-15)@(0,1)'): every lcore
 * churns a pool too small for what they all want to hold, so gets fail,
 * lcores are asked to drain and idle ones are taken from, while the main
 * lcore flushes now and then. Checked:
 *   - every object is in one place: an owner table catches an object
 *     handed out twice, and at the end the pool is whole;
 *   - lcores were asked and drained (the reclaim paths ran);
 *   - membarrier() runs at most once per pool per interval: the test
 *     counts the system calls themselves, by interposing syscall();
 *   - idle lcores' objects are within reach: with every worker holding
 *     objects and waiting outside the pool, one get of the whole pool
 *     succeeds.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>

#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_pause.h>

#include "sheaf_test.h"

#define POOL_N 4095
#define POOL_ELT 64
#define CAPACITY 16
#define BULK_MAX 32
#define HOLD_MAX 512   /* per lcore: 16 of them want twice the pool */
#define MB_INTERVAL_US 1000

static struct rte_mempool *pool;
static struct sheaf_test_objs table;
static uint8_t *owner;     /* per object: lcore id + 1 of its holder */
static uint32_t failed;    /* atomic */
static uint32_t stop;      /* atomic: end of the churn */
static uint32_t release;   /* atomic: workers may return their objects */
static uint32_t parked;    /* atomic: workers holding, outside the pool */
static uint64_t membarriers; /* atomic: membarrier() system calls */

/*
 * The library calls syscall(__NR_membarrier, ...): this definition in the
 * executable comes first in symbol lookup. Counts every command but the
 * registrations, then makes the call.
 */
long
syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (real == NULL)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (nr == __NR_membarrier &&
			(a[0] == MEMBARRIER_CMD_GLOBAL_EXPEDITED ||
			a[0] == MEMBARRIER_CMD_PRIVATE_EXPEDITED ||
			a[0] == MEMBARRIER_CMD_GLOBAL))
		/* Relaxed: a count read after the run. */
		__atomic_fetch_add(&membarriers, 1, __ATOMIC_RELAXED);
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static void
lc_fail(const char *what, const void *obj)
{
	if (__atomic_fetch_add(&failed, 1, __ATOMIC_RELAXED) == 0)
		printf("    FAILED lcore %u: %s (%p)\n", rte_lcore_id(), what,
			obj);
}

static void
lc_mark(void **objs, unsigned int n, uint8_t from, uint8_t to)
{
	unsigned int i;
	uint8_t expect;
	int idx;

	for (i = 0; i < n; i++) {
		idx = sheaf_test_objs_index(&table, objs[i]);
		expect = from;
		if (idx < 0)
			lc_fail("no object of the pool", objs[i]);
		/* Acquire/release: the object passes between lcores. */
		else if (!__atomic_compare_exchange_n(&owner[idx], &expect, to,
				0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			lc_fail(to != 0 ? "handed out while held" :
				"freed while not held", objs[i]);
	}
}

/* Churn until stop; then hold, park outside the pool until release. */
static int
lc_worker(void *arg __rte_unused)
{
	uint8_t me = (uint8_t)(rte_lcore_id() + 1);
	uint64_t rng = 0x9e3779b97f4a7c15ULL * me;
	void **held = malloc(HOLD_MAX * sizeof(*held));
	unsigned int nb = 0, k;
	uint64_t r;

	if (held == NULL)
		return -1;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		r = sheaf_test_rand(&rng);
		k = r % BULK_MAX + 1;
		if (nb + k <= HOLD_MAX && ((r >> 32) & 1)) {
			if (rte_mempool_get_bulk(pool, &held[nb], k) == 0) {
				lc_mark(&held[nb], k, 0, me);
				nb += k;
			}
		} else if (nb > 0) {
			k = RTE_MIN(k, nb);
			nb -= k;
			lc_mark(&held[nb], k, me, 0);
			rte_mempool_put_bulk(pool, &held[nb], k);
		}
	}
	/* Leave objects in this lcore's sheaves, and wait outside. */
	k = RTE_MIN(nb, (unsigned int)CAPACITY);
	nb -= k;
	lc_mark(&held[nb], k, me, 0);
	rte_mempool_put_bulk(pool, &held[nb], k);
	__atomic_fetch_add(&parked, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&release, __ATOMIC_ACQUIRE))
		rte_pause();
	lc_mark(held, nb, me, 0);
	rte_mempool_put_bulk(pool, held, nb);
	free(held);
	return 0;
}

static double
lc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
lc_setup(void)
{
	static const struct rte_sheaf_config cfg = {
		.capacity = CAPACITY, .membarrier_interval_us = MB_INTERVAL_US,
	};

	pool = rte_sheaf_pool_create("lc_pool", POOL_N, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: %s", rte_strerror(rte_errno));
	owner = calloc(POOL_N, 1);
	RTE_TEST_ASSERT_NOT_NULL(owner, "out of memory");
	return sheaf_test_objs_build(pool, &table);
}

static void
lc_teardown(void)
{
	/* A failed case may have left the workers churning or parked. */
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&release, 1, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	sheaf_test_objs_free(&table);
	free(owner);
	rte_mempool_free(pool);
}

/* The main lcore's part of the churn: flushes now and then. */
static void
lc_main_churn(double seconds)
{
	double end = lc_now() + seconds;

	while (lc_now() < end && !__atomic_load_n(&failed, __ATOMIC_RELAXED)) {
		usleep(20000);
		if (rte_sheaf_flush(pool) < 0)
			lc_fail("rte_sheaf_flush", NULL);
	}
}

/* Every worker parked with objects in its sheaves: one get of them all. */
static int
lc_check_reachable(unsigned int workers)
{
	static void *all[POOL_N];
	unsigned int avail;

	while (__atomic_load_n(&parked, __ATOMIC_ACQUIRE) != workers)
		rte_pause();
	avail = rte_mempool_avail_count(pool);
	SHEAF_TEST_ASSERT_INT(rte_mempool_get_bulk(pool, all, avail), 0,
		"one get of every object the parked lcores do not hold");
	lc_mark(all, avail, 0, 0xff);
	lc_mark(all, avail, 0xff, 0);
	rte_mempool_put_bulk(pool, all, avail);
	return TEST_SUCCESS;
}

static int
test_many_lcores_conserve(void)
{
	unsigned int workers = rte_lcore_count() - 1;
	double seconds = 1.5, t0;
	struct rte_sheaf_stats st;
	uint64_t mb, limit;
	bool take_idle = sheaf_test_membarrier();

	stop = release = parked = failed = 0;
	__atomic_store_n(&membarriers, 0, __ATOMIC_RELAXED);
	t0 = lc_now();
	rte_eal_mp_remote_launch(lc_worker, NULL, SKIP_MAIN);
	lc_main_churn(seconds);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	/* The parked workers' sheaves: a take from idle lcores. */
	if (take_idle)
		SHEAF_TEST_CHECK(lc_check_reachable(workers));
	else
		printf("    membarrier() unavailable: no take from idle lcores, the get while the workers are parked is not checked\n");
	__atomic_store_n(&release, 1, __ATOMIC_RELEASE);
	rte_eal_mp_wait_lcore();
	mb = __atomic_load_n(&membarriers, __ATOMIC_RELAXED);
	/* One per interval at the most, and one more for the last. */
	limit = (uint64_t)((lc_now() - t0) * 1e6 / MB_INTERVAL_US) + 1;
	printf("    %u lcores, %.2f s: %" PRIu64 " membarrier() calls (at most %" PRIu64 ")\n",
		workers + 1, lc_now() - t0, mb, limit);
	SHEAF_TEST_ASSERT_INT(__atomic_load_n(&failed, __ATOMIC_RELAXED), 0,
		"failed checks");
	RTE_TEST_ASSERT(mb <= limit, "membarrier() calls: got %" PRIu64
		", expected at most %" PRIu64, mb, limit);
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_stats_get(pool, &st), "stats");
	SHEAF_TEST_ASSERT_INT(st.count[RTE_SHEAF_STAT_MEMBARRIER], mb,
		"membarrier stat against the system calls");
	RTE_TEST_ASSERT(st.count[RTE_SHEAF_STAT_ASK] > 0 &&
		st.count[RTE_SHEAF_STAT_DRAIN] +
		st.count[RTE_SHEAF_STAT_REMOTE_TAKE] > 0,
		"reclaim: ask %" PRIu64 ", drain %" PRIu64 ", remote take %" PRIu64 ", expected > 0",
		st.count[RTE_SHEAF_STAT_ASK], st.count[RTE_SHEAF_STAT_DRAIN],
		st.count[RTE_SHEAF_STAT_REMOTE_TAKE]);
	SHEAF_TEST_ASSERT_INT(st.count[RTE_SHEAF_STAT_LOST], 0, "lost");
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));
	if (take_idle)
		return lc_check_reachable(workers);
	/* The workers are idle EAL lcores: the flush launches on them. */
	SHEAF_TEST_ASSERT_INT(rte_sheaf_flush(pool), 0,
		"lcores with a flush pending");
	SHEAF_TEST_CHECK(lc_check_reachable(workers));
	return TEST_SKIPPED;
}

/*
 * DPDK's mempool_perf_autotest, in short: a pool without cache sized to
 * what each lcore keeps plus a cache's worth, lcores x (keep + 512) - 1
 * (DPDK 23.11's MAX_KEEP and RTE_MEMPOOL_CACHE_MAX_SIZE), default sheaf
 * configuration; every lcore at once takes keep objects in bulks, then
 * puts them back, over and over, and stops at the first failed get. The
 * pool holds what they keep, with room to spare: a get must never fail,
 * whatever their sheaves hold meanwhile.
 */
#define BUDGET_KEEP 512
#define BUDGET_CACHE 512

static struct rte_mempool *budget_pool;
static uint32_t budget_failed; /* atomic: lcores whose get failed */
static uint32_t budget_keep;   /* atomic: objects kept in this round */

static int
budget_worker(void *arg __rte_unused)
{
	static const unsigned int bulks[] = { 1, 4, 32 };
	void *o[BUDGET_KEEP];
	unsigned int keep = __atomic_load_n(&budget_keep, __ATOMIC_ACQUIRE);
	unsigned int i, k, b, r;
	double end = lc_now() + 0.2;

	for (r = 0; lc_now() < end; r++) {
		b = bulks[r % RTE_DIM(bulks)];
		for (i = 0; i < keep; i += b) {
			if (rte_mempool_get_bulk(budget_pool, &o[i], b) == 0)
				continue;
			__atomic_fetch_add(&budget_failed, 1,
				__ATOMIC_RELAXED);
			for (k = 0; k < i; k += b)
				rte_mempool_put_bulk(budget_pool, &o[k], b);
			return -1;
		}
		for (i = 0; i < keep; i += b)
			rte_mempool_put_bulk(budget_pool, &o[i], b);
	}
	return 0;
}

static int
test_kept_within_budget(void)
{
	static const unsigned int keeps[] = { 32, 128, BUDGET_KEEP };
	unsigned int n = rte_lcore_count() * (BUDGET_KEEP + BUDGET_CACHE) - 1;
	unsigned int j, lost;
	int ret = TEST_SUCCESS;

	budget_pool = rte_mempool_create_empty("lc_budget", n, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0);
	RTE_TEST_ASSERT_NOT_NULL(budget_pool, "create empty: got NULL");
	if (rte_mempool_set_ops_byname(budget_pool, RTE_SHEAF_OPS_NAME,
			NULL) != 0 ||
			rte_mempool_populate_default(budget_pool) != (int)n) {
		rte_mempool_free(budget_pool);
		RTE_TEST_ASSERT(false, "set ops and populate");
	}
	budget_failed = 0;
	for (j = 0; j < RTE_DIM(keeps) && ret == TEST_SUCCESS; j++) {
		__atomic_store_n(&budget_keep, keeps[j], __ATOMIC_RELEASE);
		rte_eal_mp_remote_launch(budget_worker, NULL, CALL_MAIN);
		rte_eal_mp_wait_lcore();
		lost = __atomic_load_n(&budget_failed, __ATOMIC_RELAXED);
		if (lost != 0) {
			printf("    FAILED: %u lcores' gets failed keeping %u each (pool of %u, stranded at most %d)\n",
				lost, keeps[j], n,
				rte_sheaf_stranded_max(budget_pool));
			rte_sheaf_dump(stdout, budget_pool);
			ret = TEST_FAILED;
		}
	}
	if (ret == TEST_SUCCESS && rte_mempool_avail_count(budget_pool) != n) {
		printf("    FAILED: %u objects of %u back\n",
			rte_mempool_avail_count(budget_pool), n);
		ret = TEST_FAILED;
	}
	rte_mempool_free(budget_pool);
	budget_pool = NULL;
	return ret;
}

static const struct sheaf_test_case lc_cases[] = {
	SHEAF_TEST_CASE_ST(lc_setup, lc_teardown, test_many_lcores_conserve),
	SHEAF_TEST_CASE_ST(NULL, NULL, test_kept_within_budget),
	SHEAF_TEST_CASES_END
};

static const struct sheaf_test_suite lc_suite = {
	.name = "sheaf_lcores",
	.min_lcores = 2,
	.cases = lc_cases,
};

int
main(int argc, char **argv)
{
	return sheaf_test_main(argc, argv, &lc_suite);
}
