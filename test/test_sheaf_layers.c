/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * The tiers as one lcore sees them, on pools with tiny sheaves so every
 * rung of the ladder is reached in a few calls: the main sheaf (fast
 * path), the spare (swap), the barn (full sheaves traded for empty ones),
 * the slabs (refill and flush). Each step is checked through the stats
 * and rte_sheaf_info_get(), and the tiers must always account for every
 * object the test does not hold. Threads without an lcore id, which go to
 * the shared tiers directly, check what the slabs refuse: foreign
 * pointers and double frees.
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
#define CAP 8      /* objects per sheaf */
#define BARN_FULL 2

static struct rte_mempool *pool;
static struct sheaf_test_objs table;
static void **objs;            /* what the test holds: objs[0..held) */
static unsigned int held;
static struct rte_sheaf_stats base;

static int
pool_setup(const struct rte_sheaf_config *cfg)
{
	pool = rte_sheaf_pool_create("sl_pool", POOL_N, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0, cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: got NULL (%s)",
		rte_strerror(rte_errno));
	objs = calloc(POOL_N + 1, sizeof(*objs));
	RTE_TEST_ASSERT_NOT_NULL(objs, "out of memory");
	held = 0;
	memset(&base, 0, sizeof(base));
	return sheaf_test_objs_build(pool, &table);
}

static int
setup_tiny(void)
{
	const struct rte_sheaf_config cfg = {
		.capacity = CAP, .barn_max_full = BARN_FULL,
		.barn_max_empty = 4,
	};

	return pool_setup(&cfg);
}

static int
setup_one_empty(void)
{
	const struct rte_sheaf_config cfg = {
		.capacity = CAP, .barn_max_full = 4, .barn_max_empty = 1,
	};

	return pool_setup(&cfg);
}

static void
teardown(void)
{
	rte_mempool_free(pool);
	pool = NULL;
	sheaf_test_objs_free(&table);
	free(objs);
	objs = NULL;
	held = 0;
}

/* Start counting stat deltas from now. */
static int
mark(void)
{
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_stats_get(pool, &base),
		"stats get: failed, rte_errno %d", rte_errno);
	return TEST_SUCCESS;
}

static int64_t
delta(enum rte_sheaf_stat id)
{
	struct rte_sheaf_stats now;

	if (rte_sheaf_stats_get(pool, &now) != 0)
		return -1;
	return (int64_t)(now.count[id] - base.count[id]);
}

#define ASSERT_DELTA(id, expected) \
	SHEAF_TEST_ASSERT_INT(delta(RTE_SHEAF_STAT_##id), (expected), \
		"stat " #id " delta")

#define ASSERT_DELTA_RANGE(id, lo, hi) do { \
	int64_t d_ = delta(RTE_SHEAF_STAT_##id); \
	RTE_TEST_ASSERT(d_ >= (int64_t)(lo) && d_ <= (int64_t)(hi), \
		"stat " #id " delta: got %" PRId64 ", expected %d..%d", \
		d_, (int)(lo), (int)(hi)); \
} while (0)

static int
info_read(struct rte_sheaf_info *info)
{
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_info_get(pool, info),
		"info get: failed, rte_errno %d", rte_errno);
	return TEST_SUCCESS;
}

#define ASSERT_INFO(field, expected) do { \
	struct rte_sheaf_info i_; \
	SHEAF_TEST_CHECK(info_read(&i_)); \
	SHEAF_TEST_ASSERT_INT(i_.field, (expected), "info." #field); \
} while (0)

/* Take n objects one call each, onto the held stack. */
static int
take(unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		objs[held] = NULL;
		ret = rte_mempool_get(pool, &objs[held]);
		RTE_TEST_ASSERT(ret == 0 && objs[held] != NULL,
			"get %u of %u (holding %u): got %d, expected 0",
			i, n, held, ret);
		held++;
	}
	SHEAF_TEST_CHECK(sheaf_test_objs_check(&table, objs, held));
	return sheaf_test_check_placement(pool, held);
}

/* Return the last n objects taken, one call each. */
static int
give(unsigned int n)
{
	unsigned int i;

	RTE_TEST_ASSERT(n <= held, "give %u: holding only %u", n, held);
	for (i = 0; i < n; i++)
		rte_mempool_put(pool, objs[--held]);
	return sheaf_test_check_placement(pool, held);
}

/* Empty this lcore's sheaves and the barns; check what moved. */
static int
flush_lcore(void)
{
	struct rte_sheaf_info before, after;
	int ret;

	SHEAF_TEST_CHECK(info_read(&before));
	SHEAF_TEST_CHECK(mark());
	ret = rte_sheaf_flush_lcore(pool);
	SHEAF_TEST_ASSERT_INT(ret, before.in_lcores + before.in_barns,
		"objects moved by flush_lcore");
	ASSERT_DELTA(FLUSH_OTHER, ret);
	SHEAF_TEST_CHECK(info_read(&after));
	SHEAF_TEST_ASSERT_INT(after.in_lcores, 0, "in_lcores after flush");
	SHEAF_TEST_ASSERT_INT(after.in_barns, 0, "in_barns after flush");
	SHEAF_TEST_ASSERT_INT(after.barn_full, 0, "barn_full after flush");
	SHEAF_TEST_ASSERT_INT(after.nb_lcores, 0, "nb_lcores after flush");
	SHEAF_TEST_ASSERT_INT(after.in_slabs, POOL_N - held,
		"in_slabs after flush");
	return sheaf_test_check_placement(pool, held);
}

static int
test_fresh_state(void)
{
	struct rte_sheaf_info info;
	struct rte_sheaf_stats st;
	unsigned int i;

	SHEAF_TEST_CHECK(info_read(&info));
	SHEAF_TEST_ASSERT_INT(info.size, POOL_N, "size");
	SHEAF_TEST_ASSERT_INT(info.capacity, CAP, "capacity");
	SHEAF_TEST_ASSERT_INT(info.barn_max_full, BARN_FULL, "barn_max_full");
	SHEAF_TEST_ASSERT_INT(info.barn_max_empty, 4, "barn_max_empty");
	RTE_TEST_ASSERT(info.nb_barns >= 1, "nb_barns: got 0, expected >= 1");
	RTE_TEST_ASSERT(info.nb_slabs >= 1 && info.nb_slabs <= POOL_N,
		"nb_slabs: got %u, expected 1..%u", info.nb_slabs, POOL_N);
	SHEAF_TEST_ASSERT_INT(info.in_slabs, POOL_N, "in_slabs");
	SHEAF_TEST_ASSERT_INT(info.in_barns, 0, "in_barns");
	SHEAF_TEST_ASSERT_INT(info.in_lcores, 0, "in_lcores");
	SHEAF_TEST_ASSERT_INT(info.barn_full, 0, "barn_full");
	SHEAF_TEST_ASSERT_INT(info.barn_empty, 4 * info.nb_barns,
		"barn_empty");
	SHEAF_TEST_ASSERT_INT(info.nb_lcores, 0, "nb_lcores");
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_stats_get(pool, &st), "stats get");
	for (i = 0; i < RTE_SHEAF_STAT_MAX; i++)
		SHEAF_TEST_ASSERT_INT(st.count[i], 0, rte_sheaf_stat_name(i));
	/* As documented: lcores x 2 x capacity_max (fixed here). */
	SHEAF_TEST_ASSERT_INT(rte_sheaf_stranded_max(pool),
		rte_lcore_count() * 2 * CAP, "stranded max");
	return TEST_SUCCESS;
}

static int
test_fast_path(void)
{
	struct rte_sheaf_info info;
	int64_t refill;
	unsigned int m;

	/* The first get refills the empty main sheaf from the slabs. */
	SHEAF_TEST_CHECK(take(1));
	refill = delta(RTE_SHEAF_STAT_REFILL);
	RTE_TEST_ASSERT(refill >= 1 && refill <= CAP,
		"REFILL on first get: got %" PRId64 ", expected 1..%d",
		refill, CAP);
	ASSERT_DELTA(ALLOC_FAST, 1 - delta(RTE_SHEAF_STAT_ALLOC_SLOW));
	SHEAF_TEST_CHECK(info_read(&info));
	SHEAF_TEST_ASSERT_INT(info.in_lcores, refill - 1, "in_lcores");
	SHEAF_TEST_ASSERT_INT(info.in_slabs, POOL_N - refill, "in_slabs");
	SHEAF_TEST_ASSERT_INT(info.nb_lcores, refill > 1, "nb_lcores");
	m = info.in_lcores;

	/* What is left in main comes without any slow path. */
	SHEAF_TEST_CHECK(mark());
	SHEAF_TEST_CHECK(take(m));
	ASSERT_DELTA(ALLOC_FAST, m);
	ASSERT_DELTA(ALLOC_SLOW, 0);
	ASSERT_DELTA(REFILL, 0);
	ASSERT_DELTA(SWAP, 0);
	ASSERT_INFO(in_lcores, 0);

	/* Main has room for all of them: frees are fast too. */
	SHEAF_TEST_CHECK(mark());
	SHEAF_TEST_CHECK(give(m + 1));
	ASSERT_DELTA(FREE_FAST, m + 1);
	ASSERT_DELTA(FREE_SLOW, 0);
	ASSERT_DELTA(SWAP, 0);
	ASSERT_DELTA(BARN_PUT, 0);
	ASSERT_INFO(in_lcores, m + 1);
	ASSERT_INFO(in_slabs, POOL_N - refill);
	ASSERT_INFO(nb_lcores, 1);
	return TEST_SUCCESS;
}

static int
test_swap(void)
{
	SHEAF_TEST_CHECK(take(2 * CAP + 1));
	SHEAF_TEST_CHECK(flush_lcore());

	/* Fill main, then one more: main is full and spare empty, swap. */
	SHEAF_TEST_CHECK(mark());
	SHEAF_TEST_CHECK(give(CAP));
	ASSERT_DELTA(FREE_FAST, CAP);
	ASSERT_DELTA(SWAP, 0);
	ASSERT_INFO(in_lcores, CAP);
	SHEAF_TEST_CHECK(give(1));
	ASSERT_DELTA(SWAP, 1);
	ASSERT_DELTA(BARN_PUT, 0);
	ASSERT_DELTA(FLUSH_MAIN, 0);
	ASSERT_INFO(in_lcores, CAP + 1);
	SHEAF_TEST_CHECK(give(CAP - 1));
	ASSERT_DELTA(SWAP, 1);
	ASSERT_DELTA(FREE_FAST, 2 * CAP - delta(RTE_SHEAF_STAT_FREE_SLOW));
	ASSERT_INFO(in_lcores, 2 * CAP);
	ASSERT_INFO(in_barns, 0);

	/* Empty main, then one more: spare is full, swap back. */
	SHEAF_TEST_CHECK(mark());
	SHEAF_TEST_CHECK(take(CAP));
	ASSERT_DELTA(ALLOC_FAST, CAP);
	ASSERT_DELTA(SWAP, 0);
	SHEAF_TEST_CHECK(take(1));
	ASSERT_DELTA(SWAP, 1);
	ASSERT_DELTA(REFILL, 0);
	ASSERT_DELTA(BARN_GET, 0);
	ASSERT_DELTA(ALLOC_FAST, CAP + 1 - delta(RTE_SHEAF_STAT_ALLOC_SLOW));
	ASSERT_INFO(in_lcores, CAP - 1);
	return TEST_SUCCESS;
}

/* Give objects back one at a time until stat id moves. */
static int
give_until(enum rte_sheaf_stat id, unsigned int *gave)
{
	int64_t d0 = delta(id);

	*gave = 0;
	while (delta(id) == d0) {
		RTE_TEST_ASSERT(held > 0, "stat %s never moved",
			rte_sheaf_stat_name(id));
		SHEAF_TEST_CHECK(give(1));
		(*gave)++;
	}
	return TEST_SUCCESS;
}

/*
 * A barn trade moves whole sheaves: one (main), or two (main and a full
 * spare) when the lcore's previous trade went the same way (a one-way
 * flow). The first put trade below follows get trades (the takes): one.
 */
static int
test_barn(void)
{
	struct rte_sheaf_info info, before;
	unsigned int empty0, gave;
	int64_t g;

	SHEAF_TEST_CHECK(take(6 * CAP));
	SHEAF_TEST_CHECK(flush_lcore());
	SHEAF_TEST_CHECK(info_read(&info));
	empty0 = info.barn_empty;

	/* Main and spare fill up; the next free goes to the barn. */
	SHEAF_TEST_CHECK(mark());
	SHEAF_TEST_CHECK(give_until(RTE_SHEAF_STAT_BARN_PUT, &gave));
	SHEAF_TEST_ASSERT_INT(gave, 2 * CAP + 1, "frees up to a barn trade");
	ASSERT_DELTA(SWAP, 1);
	ASSERT_DELTA(FLUSH_MAIN, 0);
	g = delta(RTE_SHEAF_STAT_BARN_PUT);
	SHEAF_TEST_ASSERT_INT(g, 1, "sheaves in the first put trade");
	SHEAF_TEST_CHECK(info_read(&info));
	SHEAF_TEST_ASSERT_INT(info.barn_full, g, "barn_full");
	SHEAF_TEST_ASSERT_INT(info.in_barns, g * CAP, "in_barns");
	SHEAF_TEST_ASSERT_INT(info.barn_empty, empty0 - g, "barn_empty");
	SHEAF_TEST_ASSERT_INT(info.in_lcores, (2 - g) * CAP + 1, "in_lcores");

	/* Until the barn is at its limit: then main goes to the slabs. */
	SHEAF_TEST_CHECK(info_read(&before));
	SHEAF_TEST_CHECK(give_until(RTE_SHEAF_STAT_BARN_PUT_FAIL, &gave));
	ASSERT_DELTA(BARN_PUT_FAIL, 1);
	SHEAF_TEST_CHECK(info_read(&info));
	SHEAF_TEST_ASSERT_INT(info.barn_full, BARN_FULL,
		"barn_full when it refuses");
	SHEAF_TEST_ASSERT_INT(info.in_barns, BARN_FULL * CAP,
		"in_barns when it refuses");
	ASSERT_DELTA(BARN_PUT, BARN_FULL);
	ASSERT_DELTA_RANGE(FLUSH_MAIN, 1, CAP);
	SHEAF_TEST_ASSERT_INT(info.in_slabs,
		before.in_slabs + delta(RTE_SHEAF_STAT_FLUSH_MAIN),
		"in_slabs after flushing main");

	/* The barn stays at its limit while the rest comes back. */
	SHEAF_TEST_CHECK(give(held));
	SHEAF_TEST_CHECK(info_read(&info));
	SHEAF_TEST_ASSERT_INT(info.barn_full, BARN_FULL, "barn_full at limit");
	SHEAF_TEST_ASSERT_INT(info.in_barns, BARN_FULL * CAP,
		"in_barns at limit");

	/* Getting it all back: the lcore's sheaves, then the barn's. */
	SHEAF_TEST_CHECK(mark());
	SHEAF_TEST_CHECK(take(info.in_lcores + info.in_barns));
	ASSERT_DELTA(BARN_GET, BARN_FULL);
	ASSERT_DELTA(REFILL, 0);
	SHEAF_TEST_CHECK(info_read(&info));
	SHEAF_TEST_ASSERT_INT(info.barn_full, 0, "barn_full after gets");
	SHEAF_TEST_ASSERT_INT(info.in_barns, 0, "in_barns after gets");
	SHEAF_TEST_ASSERT_INT(info.in_lcores, 0, "in_lcores after gets");
	SHEAF_TEST_ASSERT_INT(info.barn_empty, empty0,
		"barn_empty after gets (empties traded back)");

	/* Nothing left above the slabs: refill. */
	SHEAF_TEST_CHECK(take(1));
	ASSERT_DELTA(BARN_GET, BARN_FULL);
	ASSERT_DELTA_RANGE(BARN_GET_FAIL, 1, 1);
	ASSERT_DELTA_RANGE(REFILL, 1, CAP);
	ASSERT_DELTA(ALLOC_FAIL, 0);
	return TEST_SUCCESS;
}

static int
test_barn_out_of_empties(void)
{
	struct rte_sheaf_info info;
	unsigned int empty0, gave;

	SHEAF_TEST_CHECK(info_read(&info));
	empty0 = info.barn_empty;
	SHEAF_TEST_ASSERT_INT(empty0, info.nb_barns, "barn_empty when fresh");
	SHEAF_TEST_CHECK(take(4 * CAP));
	SHEAF_TEST_CHECK(mark());
	/* One empty sheaf to trade: one full sheaf in, even with two. */
	SHEAF_TEST_CHECK(give_until(RTE_SHEAF_STAT_BARN_PUT, &gave));
	ASSERT_DELTA(BARN_PUT, 1);
	SHEAF_TEST_CHECK(info_read(&info));
	SHEAF_TEST_ASSERT_INT(info.barn_full, 1, "barn_full");
	SHEAF_TEST_ASSERT_INT(info.barn_empty, empty0 - 1, "barn_empty");
	SHEAF_TEST_ASSERT_INT(info.in_lcores, CAP + 1, "in_lcores");

	/* Room for more full sheaves, but no empty one to trade: once main
	 * fills up again, it goes to the slabs.
	 */
	SHEAF_TEST_CHECK(give_until(RTE_SHEAF_STAT_BARN_PUT_FAIL, &gave));
	SHEAF_TEST_ASSERT_INT(gave, CAP, "frees from one object to a full main");
	ASSERT_DELTA(BARN_PUT_FAIL, 1);
	ASSERT_DELTA(BARN_PUT, 1);
	ASSERT_DELTA_RANGE(FLUSH_MAIN, 1, CAP);
	ASSERT_INFO(barn_full, 1);
	ASSERT_INFO(in_barns, CAP);
	return TEST_SUCCESS;
}

static int
test_flush_lcore(void)
{
	struct rte_sheaf_info info;

	SHEAF_TEST_CHECK(take(5 * CAP + 3));
	SHEAF_TEST_CHECK(give(5 * CAP));
	SHEAF_TEST_CHECK(info_read(&info));
	RTE_TEST_ASSERT(info.in_lcores > 0 && info.in_barns > 0,
		"before flush: in_lcores %u, in_barns %u, expected both > 0",
		info.in_lcores, info.in_barns);
	SHEAF_TEST_CHECK(flush_lcore());
	/* Nothing left to move. */
	SHEAF_TEST_CHECK(flush_lcore());
	SHEAF_TEST_CHECK(give(held));
	SHEAF_TEST_CHECK(flush_lcore());
	ASSERT_INFO(in_slabs, POOL_N);
	return TEST_SUCCESS;
}

static int
bulk_round(unsigned int k)
{
	int ret;

	SHEAF_TEST_CHECK(mark());
	ret = rte_mempool_get_bulk(pool, objs, k);
	SHEAF_TEST_ASSERT_INT(ret, 0, "bulk get");
	held = k;
	SHEAF_TEST_CHECK(sheaf_test_objs_check(&table, objs, k));
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, held));
	ASSERT_DELTA(ALLOC_FAST, k - delta(RTE_SHEAF_STAT_ALLOC_SLOW));
	ASSERT_DELTA(ALLOC_FAIL, 0);
	rte_mempool_put_bulk(pool, objs, k);
	held = 0;
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));
	ASSERT_DELTA(FREE_FAST, k - delta(RTE_SHEAF_STAT_FREE_SLOW));
	ASSERT_DELTA(FREE_INVALID, 0);
	return TEST_SUCCESS;
}

static int
test_bulk_over_capacity(void)
{
	static const unsigned int sizes[] = {
		CAP - 1, CAP, CAP + 1, 2 * CAP, 2 * CAP + 1, 3 * CAP + 5,
		7 * CAP + 3, 100, POOL_N / 2,
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(sizes); i++) {
		printf("    bulk of %u\n", sizes[i]);
		SHEAF_TEST_CHECK(bulk_round(sizes[i]));
		/* And again from whatever state that left behind. */
		SHEAF_TEST_CHECK(bulk_round(sizes[i]));
	}
	return TEST_SUCCESS;
}

static int
test_get_all(void)
{
	struct rte_sheaf_info info;
	void *extra = NULL;
	int ret;

	SHEAF_TEST_CHECK(mark());
	SHEAF_TEST_CHECK(take(POOL_N));
	ret = rte_mempool_get(pool, &extra);
	SHEAF_TEST_ASSERT_INT(ret, -ENOBUFS, "get from an empty pool");
	ASSERT_DELTA(ALLOC_FAIL, 1);
	ret = rte_mempool_get_bulk(pool, objs + held, 2);
	SHEAF_TEST_ASSERT_INT(ret, -ENOBUFS, "bulk get from an empty pool");
	ASSERT_DELTA(ALLOC_FAIL, 2);
	SHEAF_TEST_CHECK(info_read(&info));
	SHEAF_TEST_ASSERT_INT(info.in_slabs + info.in_barns + info.in_lcores,
		0, "objects left in the tiers");

	/* Back one at a time: the objects spread over every tier. */
	SHEAF_TEST_CHECK(give(POOL_N));
	SHEAF_TEST_CHECK(info_read(&info));
	SHEAF_TEST_ASSERT_INT(info.in_barns, BARN_FULL * CAP, "in_barns");
	RTE_TEST_ASSERT(info.in_lcores > 0 && info.in_slabs > 0,
		"spread: in_lcores %u, in_slabs %u, expected both > 0",
		info.in_lcores, info.in_slabs);

	/* One call for all of it, gathered from every tier. */
	ret = rte_mempool_get_bulk(pool, objs, POOL_N);
	SHEAF_TEST_ASSERT_INT(ret, 0, "bulk get of the whole pool");
	held = POOL_N;
	SHEAF_TEST_CHECK(sheaf_test_objs_check(&table, objs, held));
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, held));
	SHEAF_TEST_ASSERT_INT(rte_mempool_get(pool, &extra), -ENOBUFS,
		"get after taking the whole pool");
	rte_mempool_put_bulk(pool, objs, POOL_N);
	held = 0;
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));

	/* One more than the pool holds: nothing taken. */
	SHEAF_TEST_CHECK(mark());
	ret = rte_mempool_get_bulk(pool, objs, POOL_N + 1);
	SHEAF_TEST_ASSERT_INT(ret, -ENOBUFS, "bulk get of size + 1");
	ASSERT_DELTA(ALLOC_FAIL, 1);
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));
	return TEST_SUCCESS;
}

/* Work handed to a plain pthread, which has no lcore id. */
enum job_op {
	JOB_GET_EACH,       /* get n, one call each */
	JOB_GET_ALL,        /* get one at a time until the pool refuses */
	JOB_PUT_EACH,       /* put n, one call each */
	JOB_GET_BULK,
	JOB_PUT_BULK,
	JOB_PUT_STACK,      /* put a pointer to the thread's own stack */
};

struct job {
	enum job_op op;
	void **objs;
	unsigned int n;
	unsigned int done;  /* objects handled */
	int ret;            /* last return of the pool */
	unsigned int lcore; /* rte_lcore_id() seen by the thread */
};

static void *
job_run(void *arg)
{
	struct job *j = arg;
	uint64_t on_stack = 0;

	j->lcore = rte_lcore_id();
	j->ret = 0;
	j->done = 0;
	switch (j->op) {
	case JOB_GET_EACH:
		while (j->done < j->n && j->ret == 0) {
			j->ret = rte_mempool_get(pool, &j->objs[j->done]);
			if (j->ret == 0)
				j->done++;
		}
		break;
	case JOB_GET_ALL:
		while (j->ret == 0 && j->done <= POOL_N) {
			j->ret = rte_mempool_get(pool, &j->objs[j->done]);
			if (j->ret == 0)
				j->done++;
		}
		break;
	case JOB_PUT_EACH:
		for (; j->done < j->n; j->done++)
			rte_mempool_put(pool, j->objs[j->done]);
		break;
	case JOB_GET_BULK:
		j->ret = rte_mempool_get_bulk(pool, j->objs, j->n);
		j->done = j->ret == 0 ? j->n : 0;
		break;
	case JOB_PUT_BULK:
		rte_mempool_put_bulk(pool, j->objs, j->n);
		j->done = j->n;
		break;
	case JOB_PUT_STACK:
		rte_mempool_put(pool, &on_stack);
		j->done = 1;
		break;
	}
	return NULL;
}

static int
run_thread(enum job_op op, void **o, unsigned int n, struct job *j)
{
	pthread_t t;

	memset(j, 0, sizeof(*j));
	j->op = op;
	j->objs = o;
	j->n = n;
	RTE_TEST_ASSERT_SUCCESS(pthread_create(&t, NULL, job_run, j),
		"pthread_create: failed");
	pthread_join(t, NULL);
	SHEAF_TEST_ASSERT_INT(j->lcore, LCORE_ID_ANY, "thread lcore id");
	return TEST_SUCCESS;
}

static int
test_thread_without_lcore(void)
{
	void *table_[8 * CAP];
	struct rte_sheaf_info info;
	unsigned int lcore_objs, i;
	struct job j;

	/* One call per object, then bulks: no lcore sheaf involved. */
	SHEAF_TEST_CHECK(run_thread(JOB_GET_EACH, objs, 50, &j));
	SHEAF_TEST_ASSERT_INT(j.done, 50, "thread gets");
	held = 50;
	SHEAF_TEST_CHECK(sheaf_test_objs_check(&table, objs, held));
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, held));
	ASSERT_INFO(in_lcores, 0);
	SHEAF_TEST_CHECK(run_thread(JOB_PUT_EACH, objs, 50, &j));
	held = 0;
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));
	ASSERT_INFO(in_lcores, 0);

	SHEAF_TEST_CHECK(run_thread(JOB_GET_BULK, objs, 3 * CAP + 5, &j));
	SHEAF_TEST_ASSERT_INT(j.ret, 0, "thread bulk get");
	held = 3 * CAP + 5;
	SHEAF_TEST_CHECK(sheaf_test_objs_check(&table, objs, held));
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, held));
	SHEAF_TEST_CHECK(run_thread(JOB_PUT_BULK, objs, held, &j));
	held = 0;
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));
	ASSERT_INFO(in_lcores, 0);

	/* Fill the barn from this lcore: the thread reaches the barn and
	 * the slabs at least; it may also take back what an idle lcore's
	 * sheaves hold.
	 */
	SHEAF_TEST_CHECK(take(4 * CAP + 1));
	SHEAF_TEST_CHECK(give(4 * CAP + 1));
	SHEAF_TEST_CHECK(info_read(&info));
	SHEAF_TEST_ASSERT_INT(info.barn_full, BARN_FULL, "barn_full");
	lcore_objs = info.in_lcores;
	SHEAF_TEST_CHECK(run_thread(JOB_GET_ALL, objs, 0, &j));
	SHEAF_TEST_ASSERT_INT(j.ret, -ENOBUFS, "thread get after all");
	RTE_TEST_ASSERT(j.done >= POOL_N - lcore_objs && j.done <= POOL_N,
		"objects a thread without lcore can get: got %u, expected %u..%u",
		j.done, POOL_N - lcore_objs, POOL_N);
	held = j.done;
	SHEAF_TEST_CHECK(sheaf_test_objs_check(&table, objs, held));
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, held));
	SHEAF_TEST_CHECK(run_thread(JOB_PUT_BULK, objs, held, &j));
	held = 0;
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));

	/* The lcore still reaches every object. */
	SHEAF_TEST_CHECK(take(POOL_N));
	SHEAF_TEST_CHECK(give(POOL_N));

	/* A failed bulk, after gathering what the thread can reach, leaves
	 * the thread's table alone and takes nothing.
	 */
	SHEAF_TEST_CHECK(take(POOL_N - 3 * CAP));
	SHEAF_TEST_CHECK(give(CAP));
	for (i = 0; i < RTE_DIM(table_); i++)
		table_[i] = (void *)(uintptr_t)(0x5a5a0000 + i);
	SHEAF_TEST_CHECK(run_thread(JOB_GET_BULK, table_, POOL_N - held + 1,
		&j));
	SHEAF_TEST_ASSERT_INT(j.ret, -ENOBUFS, "thread bulk over avail");
	for (i = 0; i < RTE_DIM(table_); i++)
		RTE_TEST_ASSERT(table_[i] == (void *)(uintptr_t)(0x5a5a0000 + i),
			"failed bulk: entry %u got %p, expected %p", i,
			table_[i], (void *)(uintptr_t)(0x5a5a0000 + i));
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, held));
	SHEAF_TEST_CHECK(give(held));
	return TEST_SUCCESS;
}

static int
test_invalid_free(void)
{
	struct rte_mempool *other;
	void *bad[4], *own, *foreign;
	struct job j;
	unsigned int i;

	/* Objects the test keeps: a free of their neighbours must not
	 * release them.
	 */
	SHEAF_TEST_CHECK(take(2));
	other = rte_sheaf_pool_create("sl_other", 127, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0, NULL);
	RTE_TEST_ASSERT_NOT_NULL(other, "create other: got NULL (%s)",
		rte_strerror(rte_errno));
	if (rte_mempool_get(other, &foreign) != 0) {
		rte_mempool_free(other);
		RTE_TEST_ASSERT(false, "get from other pool: failed");
	}

	SHEAF_TEST_CHECK(mark());
	bad[0] = (char *)objs[0] + 1;           /* inside a held object */
	bad[1] = (char *)objs[1] + POOL_ELT / 2;
	bad[2] = pool;                          /* the pool header */
	bad[3] = foreign;                       /* another pool's object */
	for (i = 0; i < RTE_DIM(bad); i++) {
		if (run_thread(JOB_PUT_EACH, &bad[i], 1, &j) != TEST_SUCCESS)
			break;
		if (delta(RTE_SHEAF_STAT_FREE_INVALID) != i + 1) {
			printf("    FAILED bad free %u (%p): FREE_INVALID got %" PRId64 ", expected %u\n",
				i, bad[i], delta(RTE_SHEAF_STAT_FREE_INVALID),
				i + 1);
			break;
		}
	}
	rte_mempool_put(other, foreign);
	rte_mempool_free(other);
	RTE_TEST_ASSERT(i == RTE_DIM(bad), "foreign pointer accepted");
	SHEAF_TEST_CHECK(run_thread(JOB_PUT_STACK, NULL, 1, &j));
	ASSERT_DELTA(FREE_INVALID, RTE_DIM(bad) + 1);
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, held));

	/* A double free that reaches the slabs. */
	SHEAF_TEST_CHECK(run_thread(JOB_GET_EACH, &own, 1, &j));
	SHEAF_TEST_ASSERT_INT(j.done, 1, "thread get");
	SHEAF_TEST_CHECK(run_thread(JOB_PUT_EACH, &own, 1, &j));
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, held));
	SHEAF_TEST_CHECK(run_thread(JOB_PUT_EACH, &own, 1, &j));
	ASSERT_DELTA(FREE_INVALID, RTE_DIM(bad) + 2);
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, held));

	/* Nothing corrupted: every other object comes out once. */
	SHEAF_TEST_CHECK(take(POOL_N - held));
	SHEAF_TEST_ASSERT_INT(rte_mempool_get(pool, &own), -ENOBUFS,
		"get after taking everything");
	SHEAF_TEST_CHECK(give(held));
	SHEAF_TEST_CHECK(flush_lcore());
	return TEST_SUCCESS;
}

static const struct sheaf_test_case cases[] = {
	SHEAF_TEST_CASE_ST(setup_tiny, teardown, test_fresh_state),
	SHEAF_TEST_CASE_ST(setup_tiny, teardown, test_fast_path),
	SHEAF_TEST_CASE_ST(setup_tiny, teardown, test_swap),
	SHEAF_TEST_CASE_ST(setup_tiny, teardown, test_barn),
	SHEAF_TEST_CASE_ST(setup_one_empty, teardown,
		test_barn_out_of_empties),
	SHEAF_TEST_CASE_ST(setup_tiny, teardown, test_flush_lcore),
	SHEAF_TEST_CASE_ST(setup_tiny, teardown, test_bulk_over_capacity),
	SHEAF_TEST_CASE_ST(setup_tiny, teardown, test_get_all),
	SHEAF_TEST_CASE_ST(setup_tiny, teardown, test_thread_without_lcore),
	SHEAF_TEST_CASE_ST(setup_tiny, teardown, test_invalid_free),
	SHEAF_TEST_CASES_END
};

static const struct sheaf_test_suite suite = {
	.name = "sheaf_layers",
	.min_lcores = 1,
	.cases = cases,
};

int
main(int argc, char **argv)
{
	return sheaf_test_main(argc, argv, &suite);
}
