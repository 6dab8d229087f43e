/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Randomized sequences over the whole API, checked against a model of
 * where every object is: held by the test, in a borrowed (prefill)
 * sheaf, freed deferred and not reclaimed yet, or in the pool. After
 * each step: avail + held + borrowed + deferred pending == size, no
 * object held twice, every object handed out belongs to the pool, and
 * the tiers account for avail exactly.
 *
 * SHEAF_FUZZ_SEED sets the seed (printed either way; a failure prints
 * the seed and the step), SHEAF_FUZZ_SECONDS the run time (default 3),
 * SHEAF_FUZZ_STEPS a fixed step count instead. A given seed and step
 * count replay the same sequence. Seeds alternate validate mode.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>

#include "sheaf_test.h"

#define POOL_N 1023
#define POOL_ELT 64
#define CAP 8
#define NB_PF 4          /* borrowed sheaves at most */
#define BULK_MAX (5 * CAP) /* bulks reach past a sheaf's capacity */

enum place { IN_POOL, HELD, DEFERRED };

static struct rte_mempool *pool;
static struct sheaf_test_objs table;
static struct rte_rcu_qsbr *qv;
static uint64_t rng;
static bool validate;

/* The model. */
static uint8_t place[POOL_N];
static void *held[POOL_N];
static unsigned int nb_held;
static struct rte_sheaf_prefill *pf[NB_PF];
static unsigned int deferred_since_barrier;

static unsigned int
rnd(unsigned int n)
{
	return (unsigned int)(sheaf_test_rand(&rng) % n);
}

/* Record objects handed to the test; each must be the pool's, not held. */
static int
model_take(void * const *objs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		int idx = sheaf_test_objs_index(&table, objs[i]);

		RTE_TEST_ASSERT(idx >= 0, "%p is not an object of the pool",
			objs[i]);
		RTE_TEST_ASSERT(place[idx] != HELD,
			"%p handed out while held already", objs[i]);
		place[idx] = HELD;
		held[nb_held++] = objs[i];
	}
	return TEST_SUCCESS;
}

/* Remove k random held objects into out[], marking them p. */
static void
model_give(void **out, unsigned int k, enum place p)
{
	unsigned int i, j;

	for (i = 0; i < k; i++) {
		j = rnd(nb_held);
		out[i] = held[j];
		held[j] = held[--nb_held];
		place[sheaf_test_objs_index(&table, out[i])] = p;
	}
}

static int
check(void)
{
	struct rte_sheaf_info info;
	unsigned int borrowed = 0, i, avail;

	for (i = 0; i < NB_PF; i++)
		if (pf[i] != NULL) {
			int s = rte_sheaf_prefill_size(pf[i]);

			RTE_TEST_ASSERT(s >= 0, "prefill size: got %d", s);
			borrowed += s;
		}
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_info_get(pool, &info), "info");
	avail = rte_mempool_avail_count(pool);
	RTE_TEST_ASSERT(avail + nb_held + borrowed + info.in_deferred == POOL_N,
		"avail %u + held %u + borrowed %u + deferred %u: got %u, expected %u",
		avail, nb_held, borrowed, info.in_deferred,
		avail + nb_held + borrowed + info.in_deferred, POOL_N);
	RTE_TEST_ASSERT(info.in_slabs + info.in_barns + info.in_lcores == avail,
		"tiers %u + %u + %u: got %u, expected avail %u", info.in_slabs,
		info.in_barns, info.in_lcores,
		info.in_slabs + info.in_barns + info.in_lcores, avail);
	RTE_TEST_ASSERT(info.in_deferred <= deferred_since_barrier + POOL_N,
		"in_deferred: got %u", info.in_deferred);
	return TEST_SUCCESS;
}

/* A thread without an lcore id: get or put through the shared path. */
struct thread_job {
	void **objs;
	unsigned int n;
	bool get;
	int ret;
};

static void *
thread_run(void *arg)
{
	struct thread_job *j = arg;

	if (j->get)
		j->ret = rte_mempool_get_bulk(pool, j->objs, j->n);
	else
		rte_mempool_put_bulk(pool, j->objs, j->n);
	return NULL;
}

static int
step_thread(bool get)
{
	struct thread_job j = { .objs = NULL, .get = get };
	void *objs[BULK_MAX];
	pthread_t t;

	j.objs = objs;
	j.n = get ? 1 + rnd(BULK_MAX) :
		rnd(RTE_MIN(nb_held, (unsigned int)BULK_MAX) + 1);
	if (!get)
		model_give(objs, j.n, IN_POOL);
	RTE_TEST_ASSERT_SUCCESS(pthread_create(&t, NULL, thread_run, &j),
		"pthread_create");
	pthread_join(t, NULL);
	if (get && j.ret == 0)
		return model_take(objs, j.n);
	return TEST_SUCCESS;
}

static int
step(unsigned int op)
{
	void *objs[BULK_MAX + CAP];
	unsigned int n, k;
	int ret;

	switch (op) {
	case 0: case 1: case 2: /* get bulk, past the capacity at times */
		n = 1 + rnd(BULK_MAX);
		k = rte_mempool_avail_count(pool);
		ret = rte_mempool_get_bulk(pool, objs, n);
		if (ret != 0) {
			/* Only the test uses the pool: all of avail is reachable. */
			RTE_TEST_ASSERT(n > k, "get %u of avail %u: failed", n, k);
			return TEST_SUCCESS;
		}
		return model_take(objs, n);
	case 3: case 4: case 5: /* put bulk */
		n = rnd(RTE_MIN(nb_held, (unsigned int)BULK_MAX) + 1);
		model_give(objs, n, IN_POOL);
		rte_mempool_put_bulk(pool, objs, n);
		return TEST_SUCCESS;
	case 6: /* prefill get, oversize at times */
		k = rnd(NB_PF);
		if (pf[k] != NULL)
			return TEST_SUCCESS;
		n = 1 + rnd(3 * CAP);
		pf[k] = rte_sheaf_prefill_get(pool, n);
		if (pf[k] != NULL)
			RTE_TEST_ASSERT(rte_sheaf_prefill_size(pf[k]) >= (int)n,
				"prefill size below %u", n);
		return TEST_SUCCESS;
	case 7: /* prefill alloc */
		k = rnd(NB_PF);
		if (pf[k] == NULL)
			return TEST_SUCCESS;
		n = rnd(rte_sheaf_prefill_size(pf[k]) + 1);
		n = RTE_MIN(n, (unsigned int)BULK_MAX);
		RTE_TEST_ASSERT_SUCCESS(rte_sheaf_prefill_alloc_bulk(pf[k], objs,
			n), "prefill alloc of %u", n);
		return model_take(objs, n);
	case 8: /* prefill refill */
		k = rnd(NB_PF);
		if (pf[k] == NULL)
			return TEST_SUCCESS;
		ret = rte_sheaf_prefill_refill(pool, &pf[k], 1 + rnd(3 * CAP));
		RTE_TEST_ASSERT(ret == 0 || ret == -ENOMEM,
			"refill: got %d", ret);
		return TEST_SUCCESS;
	case 9: /* prefill put */
		k = rnd(NB_PF);
		if (pf[k] == NULL)
			return TEST_SUCCESS;
		RTE_TEST_ASSERT_SUCCESS(rte_sheaf_prefill_put(pool, pf[k]),
			"prefill put");
		pf[k] = NULL;
		return TEST_SUCCESS;
	case 10: /* deferred free */
		n = rnd(RTE_MIN(nb_held, (unsigned int)CAP) + 1);
		model_give(objs, n, DEFERRED);
		RTE_TEST_ASSERT_SUCCESS(rte_sheaf_free_deferred_bulk(pool, objs,
			n), "deferred free of %u", n);
		deferred_since_barrier += n;
		return TEST_SUCCESS;
	case 11: /* the only reader reports a quiescent state */
		rte_rcu_qsbr_quiescent(qv, 0);
		return TEST_SUCCESS;
	case 12:
		RTE_TEST_ASSERT(rte_sheaf_reclaim(pool) >= 0, "reclaim");
		return TEST_SUCCESS;
	case 13: { /* barrier: the caller must not be an online reader */
		struct rte_sheaf_info info;

		rte_rcu_qsbr_thread_offline(qv, 0);
		ret = rte_sheaf_deferred_barrier(pool);
		rte_rcu_qsbr_thread_online(qv, 0);
		RTE_TEST_ASSERT_SUCCESS(ret, "barrier: got %d", ret);
		RTE_TEST_ASSERT_SUCCESS(rte_sheaf_info_get(pool, &info), "info");
		SHEAF_TEST_ASSERT_INT(info.in_deferred, 0,
			"in_deferred after barrier");
		for (k = 0; k < POOL_N; k++)
			if (place[k] == DEFERRED)
				place[k] = IN_POOL;
		deferred_since_barrier = 0;
		return TEST_SUCCESS;
	}
	case 14:
		RTE_TEST_ASSERT(rte_sheaf_flush(pool) >= 0, "flush");
		return TEST_SUCCESS;
	case 15:
		RTE_TEST_ASSERT(rte_sheaf_flush_lcore(pool) >= 0, "flush_lcore");
		return TEST_SUCCESS;
	case 16: {
		struct rte_sheaf_stats st;

		RTE_TEST_ASSERT_SUCCESS(rte_sheaf_stats_get(pool, &st), "stats");
		if (rnd(8) == 0)
			RTE_TEST_ASSERT_SUCCESS(rte_sheaf_stats_reset(pool),
				"reset");
		return TEST_SUCCESS;
	}
	case 17:
		return step_thread(true);
	case 18:
		return step_thread(false);
	case 19: { /* validate mode: a double free is refused */
		struct rte_sheaf_stats a, b;
		void *o = (void *)table.addr[rnd(POOL_N)];
		int idx = sheaf_test_objs_index(&table, o);

		if (!validate || place[idx] == HELD)
			return TEST_SUCCESS;
		/* In the pool or in a borrowed sheaf: not the user's. */
		rte_sheaf_stats_get(pool, &a);
		/* Expected: its log line would flood a long run. */
		rte_log_set_level_pattern("lib.sheaf", RTE_LOG_CRIT);
		ret = rte_mempool_ops_enqueue_bulk(pool, &o, 1);
		rte_log_set_level_pattern("lib.sheaf", RTE_LOG_NOTICE);
		rte_sheaf_stats_get(pool, &b);
		SHEAF_TEST_ASSERT_INT(ret, -EINVAL, "double free");
		SHEAF_TEST_ASSERT_INT(b.count[RTE_SHEAF_STAT_FREE_INVALID] -
			a.count[RTE_SHEAF_STAT_FREE_INVALID], 1, "FREE_INVALID");
		return TEST_SUCCESS;
	}
	}
	return TEST_SUCCESS;
}

#define NB_OPS 20

static int
test_fuzz(void)
{
	const char *env_seed = getenv("SHEAF_FUZZ_SEED");
	const char *env_sec = getenv("SHEAF_FUZZ_SECONDS");
	const char *env_steps = getenv("SHEAF_FUZZ_STEPS");
	struct rte_sheaf_config cfg = {
		.capacity = CAP, .barn_max_full = 4, .barn_max_empty = 6,
	};
	double seconds = env_sec != NULL ? atof(env_sec) : 3.0;
	uint64_t seed, steps = 0, max_steps, end;
	size_t sz = rte_rcu_qsbr_get_memsize(1);
	unsigned int op = 0, k;
	int ret = TEST_SUCCESS;

	seed = env_seed != NULL ? strtoull(env_seed, NULL, 0) :
		(uint64_t)time(NULL) ^ rte_rdtsc();
	if (seed == 0)
		seed = 1;
	rng = seed;
	validate = seed & 1;
	max_steps = env_steps != NULL ? strtoull(env_steps, NULL, 0) : UINT64_MAX;
	printf("    SHEAF_FUZZ_SEED=%" PRIu64 " (validate %s), %s\n", seed,
		validate ? "on" : "off", env_steps != NULL ? env_steps : "timed");

	qv = rte_zmalloc("fz_qsbr", sz, RTE_CACHE_LINE_SIZE);
	RTE_TEST_ASSERT_NOT_NULL(qv, "qsbr alloc");
	RTE_TEST_ASSERT_SUCCESS(rte_rcu_qsbr_init(qv, 1), "qsbr init");
	RTE_TEST_ASSERT_SUCCESS(rte_rcu_qsbr_thread_register(qv, 0), "register");
	rte_rcu_qsbr_thread_online(qv, 0);
	cfg.flags = validate ? RTE_SHEAF_F_VALIDATE : 0;
	cfg.qsbr = qv;
	pool = rte_sheaf_pool_create("fz_pool", POOL_N, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: %s", rte_strerror(rte_errno));
	SHEAF_TEST_CHECK(sheaf_test_objs_build(pool, &table));
	memset(place, IN_POOL, sizeof(place));
	nb_held = 0;
	deferred_since_barrier = 0;

	end = rte_get_tsc_cycles() + (uint64_t)(seconds * rte_get_tsc_hz());
	while (steps < max_steps &&
			(env_steps != NULL || rte_get_tsc_cycles() < end)) {
		op = rnd(NB_OPS);
		ret = step(op);
		if (ret == TEST_SUCCESS)
			ret = check();
		steps++;
		if (ret != TEST_SUCCESS)
			break;
	}
	if (ret != TEST_SUCCESS)
		printf("    FAILED at step %" PRIu64 " (op %u): replay with SHEAF_FUZZ_SEED=%" PRIu64 " SHEAF_FUZZ_STEPS=%" PRIu64 "\n",
			steps, op, seed, steps);
	else
		printf("    %" PRIu64 " steps\n", steps);

	/* Everything back: the whole pool comes out once. */
	for (k = 0; k < NB_PF; k++)
		if (pf[k] != NULL) {
			rte_sheaf_prefill_put(pool, pf[k]);
			pf[k] = NULL;
		}
	rte_mempool_put_bulk(pool, held, nb_held);
	nb_held = 0;
	rte_rcu_qsbr_thread_offline(qv, 0);
	if (ret == TEST_SUCCESS && rte_sheaf_deferred_barrier(pool) != 0)
		ret = TEST_FAILED;
	if (ret == TEST_SUCCESS) {
		memset(place, IN_POOL, sizeof(place));
		ret = rte_mempool_get_bulk(pool, held, POOL_N) == 0 ?
			model_take(held, POOL_N) : TEST_FAILED;
		if (ret != TEST_SUCCESS)
			printf("    FAILED whole pool after the run\n");
		else
			rte_mempool_put_bulk(pool, held, POOL_N);
	}
	rte_rcu_qsbr_thread_unregister(qv, 0);
	rte_mempool_free(pool);
	pool = NULL;
	rte_free(qv);
	qv = NULL;
	sheaf_test_objs_free(&table);
	return ret;
}

static const struct sheaf_test_case cases[] = {
	SHEAF_TEST_CASE(test_fuzz),
	SHEAF_TEST_CASES_END
};

static const struct sheaf_test_suite suite = {
	.name = "sheaf_fuzz",
	.min_lcores = 1,
	.cases = cases,
};

int
main(int argc, char **argv)
{
	return sheaf_test_main(argc, argv, &suite);
}
