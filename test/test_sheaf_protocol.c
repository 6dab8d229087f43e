/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * The slot protocol's corner cases, made exact: the library's internals
 * are linked in, so a case can set a slot's words to what a process that
 * died at some instruction, or 2^32 requests, would have left, and then
 * drive the pool through its public calls.
 *
 * A dead incarnation is made from our own: our pid with another start
 * time is, to sheaf_proc_dead(), a process that has gone (its pid reused
 * by us).
 */

#include <rte_launch.h>

#include "sheaf_test.h"

#include "sheaf_pvt.h"
#include "sheaf_proc.h"
#include "sheaf_slot.h"

#define POOL_N 2048
#define POOL_ELT 64
#define CAPACITY 32
#define HELD 100  /* objects the worker leaves in lcore 1's sheaves */

static struct rte_mempool *pool;
static void *objs[POOL_N];

static int
setup(void)
{
	static const struct rte_sheaf_config cfg = { .capacity = CAPACITY };

	pool = rte_sheaf_pool_create("protocol", POOL_N, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: got NULL (%s)",
		rte_strerror(rte_errno));
	return TEST_SUCCESS;
}

static void
teardown(void)
{
	rte_mempool_free(pool);
	pool = NULL;
}

/* A dead incarnation: ours with a start time k ticks later. */
static uint64_t
dead_inc(unsigned int k)
{
	return sheaf_self + ((uint64_t)k << 22);
}

/* On lcore 1: take HELD objects and free them into its sheaves. */
static int
fill_worker(void *arg __rte_unused)
{
	void *o[HELD];

	if (rte_mempool_get_bulk(pool, o, HELD) != 0)
		return -1;
	rte_mempool_put_bulk(pool, o, HELD);
	return 0;
}

/*
 * Lcore 1's slot holds objects; its owner died, and a thief of another
 * process inherited the slot to empty it (owner: its incarnation with
 * the heir bit, its mark set) and died too, before it had. Another thief
 * must clear the dead thief's mark and empty the slot. Its reclaim looks
 * at the owner first (dead: inherit), then marks: until 2026-12-04 both
 * looks shared one rate limit per lcore id, so the look at the owner used
 * up the look at the marker, every time, and (an heir's slot is never
 * taken as idle) the mark stayed forever with the objects behind it.
 */
static int
test_dead_mark_cleared_after_owner_look(void)
{
	struct sheaf_pool *sp = sheaf_pool_of(pool);
	struct sheaf_slot *v = &sp->slot[1];
	struct rte_sheaf_info info;
	int ret;

	RTE_TEST_ASSERT_SUCCESS(rte_eal_remote_launch(fill_worker, NULL, 1),
		"launch on lcore 1");
	RTE_TEST_ASSERT_SUCCESS(rte_eal_wait_lcore(1), "lcore 1's fill");
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_info_get(pool, &info), "info");
	RTE_TEST_ASSERT(info.in_lcores > 0, "lcore 1's sheaves hold nothing");
	RTE_TEST_ASSERT(__atomic_load_n(&v->owner, __ATOMIC_RELAXED) ==
		sheaf_self, "lcore 1's slot is not ours");

	/* Lcore 1 is not running: its slot is quiet. The dead heir's
	 * words, as sheaf_ask_heir() leaves them between inheriting and
	 * serving. */
	__atomic_store_n(&v->marker, dead_inc(1), __ATOMIC_RELAXED);
	__atomic_fetch_or(&v->gate, SHEAF_GATE_MARKED, __ATOMIC_RELAXED);
	__atomic_store_n(&v->busy, SHEAF_BUSY_HEIR, __ATOMIC_RELAXED);
	__atomic_store_n(&v->owner, dead_inc(1) | SHEAF_INC_HEIR,
		__ATOMIC_RELEASE);

	ret = rte_sheaf_flush(pool);
	RTE_TEST_ASSERT(ret >= 0, "flush: got %d (%s)", ret,
		rte_strerror(rte_errno));
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_info_get(pool, &info), "info");
	SHEAF_TEST_ASSERT_INT(info.in_lcores, 0,
		"objects left in lcore 1's sheaves behind a dead thief's mark");
	RTE_TEST_ASSERT(!(__atomic_load_n(&v->gate, __ATOMIC_RELAXED) &
		SHEAF_GATE_MARKED), "the dead thief's mark is still set");
	SHEAF_TEST_ASSERT_INT(rte_mempool_avail_count(pool), POOL_N,
		"avail count");
	return TEST_SUCCESS;
}

/*
 * Request generations wrap: the 2^32nd request of a kind on a slot has
 * generation 0. Until 2026-12-04 the owner's take read a generation of 0
 * as "no request": it cleared the bit and served nothing, and the
 * requester waited for an acknowledgement that never came. Here the
 * counts are set just below the wrap, a drain is asked of our own slot,
 * and our next call must serve it.
 */
static int
test_request_generation_wrap(void)
{
	struct sheaf_pool *sp = sheaf_pool_of(pool);
	struct sheaf_slot *lc = &sp->slot[rte_lcore_id()];
	struct rte_sheaf_info info;
	uint32_t gen;

	/* Our slot claimed, objects in it. */
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(pool, objs, HELD),
		"get %d", HELD);
	rte_mempool_put_bulk(pool, objs, HELD);
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_info_get(pool, &info), "info");
	RTE_TEST_ASSERT(info.in_lcores > 0, "our sheaves hold nothing");

	__atomic_store_n(&lc->req[SHEAF_REQ_DRAIN], UINT32_MAX,
		__ATOMIC_RELAXED);
	__atomic_store_n(&lc->done[SHEAF_REQ_DRAIN], UINT32_MAX,
		__ATOMIC_RELAXED);
	gen = sheaf_slot_request(lc, SHEAF_REQ_DRAIN);
	SHEAF_TEST_ASSERT_INT(gen, 0, "generation after the wrap");
	RTE_TEST_ASSERT(!sheaf_slot_is_served(lc, SHEAF_REQ_DRAIN, gen),
		"served before any call");

	/* A call: the gate sends it out of line, where it serves. */
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(pool, objs, 1), "get 1");
	rte_mempool_put_bulk(pool, objs, 1);
	RTE_TEST_ASSERT(sheaf_slot_is_served(lc, SHEAF_REQ_DRAIN, gen),
		"request of generation 0 not served by the owner's call (done %u)",
		__atomic_load_n(&lc->done[SHEAF_REQ_DRAIN], __ATOMIC_RELAXED));
	SHEAF_TEST_ASSERT_INT(rte_mempool_avail_count(pool), POOL_N,
		"avail count");
	return TEST_SUCCESS;
}

static const struct sheaf_test_case cases[] = {
	SHEAF_TEST_CASE_ST(setup, teardown,
		test_dead_mark_cleared_after_owner_look),
	SHEAF_TEST_CASE_ST(setup, teardown, test_request_generation_wrap),
	SHEAF_TEST_CASES_END
};

static const struct sheaf_test_suite suite = {
	.name = "sheaf_protocol",
	.min_lcores = 2,
	.cases = cases,
};

int
main(int argc, char **argv)
{
	return sheaf_test_main(argc, argv, &suite);
}
