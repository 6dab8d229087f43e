/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Lcore lifecycle: a registered non-EAL thread (rte_thread_register())
 * that leaves objects in its lcore sheaves and unregisters loses none of
 * them. Its slot keeps them (the lcore id is free, so nobody is inside
 * the pool on it): an allocation that finds the shared tiers empty takes
 * them back (stealing), and a thread that registers later and is given
 * the same lcore id starts with the old sheaves, which is as good.
 */

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mempool.h>

#include "sheaf_test.h"

#define POOL_N 1023
#define POOL_ELT 64
#define CAP 16

static struct rte_mempool *pool;
static struct sheaf_test_objs table;

static int
setup(void)
{
	const struct rte_sheaf_config cfg = { .capacity = CAP };

	pool = rte_sheaf_pool_create("slc_pool", POOL_N, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: got NULL (%s)",
		rte_strerror(rte_errno));
	return sheaf_test_objs_build(pool, &table);
}

static void
teardown(void)
{
	rte_mempool_free(pool);
	pool = NULL;
	sheaf_test_objs_free(&table);
}

struct job {
	unsigned int n;      /* objects to cycle through the thread's sheaves */
	unsigned int lcore;  /* lcore id it was given */
	int ret;
};

/* Register, get n and put them back (into its sheaves), unregister. */
static void *
thread_cycle(void *arg)
{
	struct job *j = arg;
	void *objs[3 * CAP];

	j->ret = rte_thread_register();
	j->lcore = rte_lcore_id();
	if (j->ret != 0)
		return NULL;
	j->ret = rte_mempool_get_bulk(pool, objs, j->n);
	if (j->ret == 0)
		rte_mempool_put_bulk(pool, objs, j->n);
	rte_thread_unregister();
	return NULL;
}

static int
run(struct job *j, unsigned int n)
{
	pthread_t t;

	memset(j, 0, sizeof(*j));
	j->n = n;
	RTE_TEST_ASSERT_SUCCESS(pthread_create(&t, NULL, thread_cycle, j),
		"pthread_create");
	pthread_join(t, NULL);
	SHEAF_TEST_ASSERT_INT(j->ret, 0, "registered thread get");
	RTE_TEST_ASSERT(j->lcore < RTE_MAX_LCORE,
		"lcore id: got %u, expected < %u", j->lcore, RTE_MAX_LCORE);
	return TEST_SUCCESS;
}

static int
in_lcores(unsigned int *n)
{
	struct rte_sheaf_info info;

	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_info_get(pool, &info), "info");
	*n = info.in_lcores;
	return TEST_SUCCESS;
}

/* Take every object (once each), give them back. */
static int
whole_pool(void)
{
	void **objs = calloc(POOL_N, sizeof(void *));
	int ret;

	RTE_TEST_ASSERT_NOT_NULL(objs, "out of memory");
	ret = rte_mempool_get_bulk(pool, objs, POOL_N);
	if (ret == 0) {
		ret = sheaf_test_objs_check(&table, objs, POOL_N);
		rte_mempool_put_bulk(pool, objs, POOL_N);
	} else {
		printf("    FAILED get of the whole pool: got %d, expected 0\n",
			ret);
	}
	free(objs);
	return ret == 0 ? TEST_SUCCESS : TEST_FAILED;
}

/*
 * Without membarrier() an unregistered thread's slot is an idle lcore's,
 * out of reach until its lcore id calls again: nothing is lost (checked
 * before), but the whole pool is not to be had.
 */
static bool
out_of_reach(void)
{
	if (sheaf_test_membarrier())
		return false;
	printf("    membarrier() unavailable: an unregistered thread's objects are out of reach (no take from idle lcores): the get of the whole pool is not checked\n");
	return true;
}

static int
test_unregister_reclaimed(void)
{
	unsigned int n;
	struct job j;

	SHEAF_TEST_CHECK(run(&j, 2 * CAP));
	printf("    thread ran on lcore %u\n", j.lcore);
	SHEAF_TEST_CHECK(in_lcores(&n));
	RTE_TEST_ASSERT(n > 0, "in_lcores after the thread: got 0, expected > 0");
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));
	if (out_of_reach())
		return TEST_SKIPPED;
	/* The main lcore gets everything: the dead slot is stolen from. */
	SHEAF_TEST_CHECK(whole_pool());
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));
	return TEST_SUCCESS;
}

static int
test_reuse(void)
{
	unsigned int n1, n2;
	struct job a, b;

	SHEAF_TEST_CHECK(run(&a, 2 * CAP));
	SHEAF_TEST_CHECK(in_lcores(&n1));
	SHEAF_TEST_CHECK(run(&b, 3 * CAP));
	SHEAF_TEST_CHECK(in_lcores(&n2));
	printf("    lcore ids %u then %u; objects in lcore sheaves %u then %u\n",
		a.lcore, b.lcore, n1, n2);
	/* Nothing lost, nothing duplicated, whichever lcore id came back. */
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));
	if (out_of_reach())
		return TEST_SKIPPED;
	SHEAF_TEST_CHECK(whole_pool());
	RTE_TEST_ASSERT(rte_sheaf_flush(pool) >= 0, "flush");
	SHEAF_TEST_CHECK(in_lcores(&n2));
	SHEAF_TEST_ASSERT_INT(n2, 0, "in_lcores after flush");
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));
	return TEST_SUCCESS;
}

/* Many threads in turn: slots never leak objects. */
static int
test_churn(void)
{
	unsigned int i;
	struct job j;

	for (i = 0; i < 50; i++)
		SHEAF_TEST_CHECK(run(&j, 1 + i % (3 * CAP)));
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));
	if (out_of_reach())
		return TEST_SKIPPED;
	return whole_pool();
}

static const struct sheaf_test_case cases[] = {
	SHEAF_TEST_CASE_ST(setup, teardown, test_unregister_reclaimed),
	SHEAF_TEST_CASE_ST(setup, teardown, test_reuse),
	SHEAF_TEST_CASE_ST(setup, teardown, test_churn),
	SHEAF_TEST_CASES_END
};

static const struct sheaf_test_suite suite = {
	.name = "sheaf_lifecycle",
	.min_lcores = 1,
	.cases = cases,
};

int
main(int argc, char **argv)
{
	return sheaf_test_main(argc, argv, &suite);
}
