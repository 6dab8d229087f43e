/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Validate mode (RTE_SHEAF_F_VALIDATE): a double free, a pointer that is
 * no object of the pool and a pointer inside an object are each refused
 * at the call, on every free path (the lcore fast path, a thread without
 * an lcore id, deferred free), with a log line naming the object, a
 * FREE_INVALID count and an -EINVAL from the ops enqueue; and nothing is
 * corrupted: the pool then hands out each of its objects exactly once.
 */

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static struct rte_mempool *pool;
static struct sheaf_test_objs table;
static void **objs;
static unsigned int held;
static struct rte_sheaf_stats base;
static struct rte_rcu_qsbr *qv;

/* The log, captured while a case runs, to find the line naming a pointer. */
static char *log_buf;
static size_t log_len;
static FILE *log_f;
static FILE *log_default;

static int
log_start(void)
{
	log_default = rte_log_get_stream();
	log_f = open_memstream(&log_buf, &log_len);
	RTE_TEST_ASSERT_NOT_NULL(log_f, "open_memstream: failed");
	rte_openlog_stream(log_f);
	return TEST_SUCCESS;
}

static void
log_stop(void)
{
	if (log_f == NULL)
		return;
	rte_openlog_stream(log_default);
	fclose(log_f);
	log_f = NULL;
	if (log_len != 0)
		fputs(log_buf, stdout);
	free(log_buf);
	log_buf = NULL;
	log_len = 0;
}

/* A log line since the case started names ptr and says what. */
static int
log_names(const void *ptr, const char *what)
{
	char needle[64];

	fflush(log_f);
	snprintf(needle, sizeof(needle), "%p", ptr);
	RTE_TEST_ASSERT(log_buf != NULL && strstr(log_buf, needle) != NULL &&
		strstr(log_buf, what) != NULL,
		"log: got no line naming %s and '%s', expected one", needle,
		what);
	return TEST_SUCCESS;
}

static int
setup(void)
{
	const struct rte_sheaf_config cfg = {
		.capacity = CAP, .flags = RTE_SHEAF_F_VALIDATE,
	};

	pool = rte_sheaf_pool_create("sv_pool", POOL_N, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: got NULL (%s)",
		rte_strerror(rte_errno));
	objs = calloc(POOL_N + 1, sizeof(*objs));
	RTE_TEST_ASSERT_NOT_NULL(objs, "out of memory");
	held = 0;
	SHEAF_TEST_CHECK(sheaf_test_objs_build(pool, &table));
	return log_start();
}

static void
teardown(void)
{
	log_stop();
	rte_mempool_free(pool);
	pool = NULL;
	sheaf_test_objs_free(&table);
	free(objs);
	objs = NULL;
	rte_free(qv);
	qv = NULL;
}

static int
mark(void)
{
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_stats_get(pool, &base),
		"stats get: got %d", rte_errno);
	return TEST_SUCCESS;
}

static int
assert_invalid(uint64_t expected)
{
	struct rte_sheaf_stats st;

	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_stats_get(pool, &st),
		"stats get: got %d", rte_errno);
	SHEAF_TEST_ASSERT_INT(st.count[RTE_SHEAF_STAT_FREE_INVALID] -
		base.count[RTE_SHEAF_STAT_FREE_INVALID], expected,
		"FREE_INVALID delta");
	return TEST_SUCCESS;
}

static int
take(unsigned int n)
{
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(pool, objs + held, n),
		"get %u: got an error, expected 0", n);
	held += n;
	return sheaf_test_objs_check(&table, objs, held);
}

static int
give(unsigned int n)
{
	held -= n;
	rte_mempool_put_bulk(pool, objs + held, n);
	return sheaf_test_check_placement(pool, held);
}

/* The whole pool comes out, each object once, then goes back. */
static int
check_whole(void)
{
	void *probe;

	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, held));
	SHEAF_TEST_CHECK(take(POOL_N - held));
	SHEAF_TEST_ASSERT_INT(rte_mempool_get(pool, &probe), -ENOBUFS,
		"get past the whole pool");
	return give(held);
}

/* The ops enqueue of one pointer: its return value and rte_errno. */
static int
put_one_refused(void *obj, const char *what)
{
	rte_errno = 0;
	SHEAF_TEST_ASSERT_INT(rte_mempool_ops_enqueue_bulk(pool, &obj, 1),
		-EINVAL, "enqueue of a refused object");
	SHEAF_TEST_ASSERT_INT(rte_errno, EINVAL, "rte_errno");
	return log_names(obj, what);
}

static int
test_flag(void)
{
	const struct rte_sheaf_config bad = { .flags = 0x80 };
	struct rte_mempool *mp;

	mp = rte_sheaf_pool_create("sv_bad", 63, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0, &bad);
	RTE_TEST_ASSERT(mp == NULL && rte_errno == EINVAL,
		"unknown flag: got %p (rte_errno %d), expected NULL (EINVAL)",
		(void *)mp, rte_errno);
	return check_whole();
}

static int
test_double_free_fast(void)
{
	void *o;

	SHEAF_TEST_CHECK(mark());
	SHEAF_TEST_CHECK(take(3));
	o = objs[1];
	/* Freed into the lcore's main sheaf, then again: refused. */
	SHEAF_TEST_ASSERT_INT(rte_mempool_ops_enqueue_bulk(pool, &o, 1), 0,
		"first free");
	SHEAF_TEST_CHECK(put_one_refused(o, "double free"));
	SHEAF_TEST_CHECK(assert_invalid(1));
	/* Through rte_mempool_put() too (it returns nothing). */
	rte_mempool_put(pool, o);
	SHEAF_TEST_CHECK(assert_invalid(2));
	objs[1] = objs[2];
	held = 2;
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, held));
	SHEAF_TEST_CHECK(give(2));
	return check_whole();
}

static int
test_double_free_tiers(void)
{
	void *o;

	SHEAF_TEST_CHECK(mark());
	SHEAF_TEST_CHECK(take(1));
	o = objs[0];
	SHEAF_TEST_CHECK(give(1));
	/* The object now sits in the slabs: still caught at the call. */
	RTE_TEST_ASSERT(rte_sheaf_flush_lcore(pool) >= 1, "flush: got < 1");
	SHEAF_TEST_CHECK(put_one_refused(o, "double free"));
	/* In a barn sheaf: free enough to push full sheaves there. */
	SHEAF_TEST_CHECK(take(4 * CAP));
	o = objs[0];
	SHEAF_TEST_CHECK(give(4 * CAP));
	SHEAF_TEST_CHECK(put_one_refused(o, "double free"));
	SHEAF_TEST_CHECK(assert_invalid(2));
	return check_whole();
}

static int
test_foreign(void)
{
	struct rte_mempool *other;
	void *foreign = NULL, *heap;
	uint64_t stack_obj[POOL_ELT / 8];
	int ret = TEST_SUCCESS;

	SHEAF_TEST_CHECK(mark());
	other = rte_sheaf_pool_create("sv_other", 63, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0, NULL);
	RTE_TEST_ASSERT_NOT_NULL(other, "create other: got NULL");
	heap = malloc(POOL_ELT);
	if (rte_mempool_get(other, &foreign) != 0 || heap == NULL)
		ret = TEST_FAILED;
	if (ret == TEST_SUCCESS)
		ret = put_one_refused(foreign, "not an object of the pool");
	if (ret == TEST_SUCCESS)
		ret = put_one_refused(heap, "not an object of the pool");
	if (ret == TEST_SUCCESS)
		ret = put_one_refused(stack_obj, "not an object of the pool");
	if (ret == TEST_SUCCESS)
		ret = put_one_refused(pool, "not an object of the pool");
	if (foreign != NULL)
		rte_mempool_put(other, foreign);
	rte_mempool_free(other);
	free(heap);
	RTE_TEST_ASSERT_SUCCESS(ret, "a foreign pointer was accepted");
	SHEAF_TEST_CHECK(assert_invalid(4));
	return check_whole();
}

static int
test_misaligned(void)
{
	void *in;

	SHEAF_TEST_CHECK(mark());
	SHEAF_TEST_CHECK(take(2));
	in = (char *)objs[0] + 1;
	SHEAF_TEST_CHECK(put_one_refused(in, "misaligned"));
	in = (char *)objs[1] + POOL_ELT / 2;
	SHEAF_TEST_CHECK(put_one_refused(in, "misaligned"));
	SHEAF_TEST_CHECK(assert_invalid(2));
	/* The objects stay the user's: freeing them properly works. */
	SHEAF_TEST_CHECK(give(2));
	return check_whole();
}

/* A bulk mixing good and bad pointers: the good ones are freed. */
static int
test_mixed_bulk(void)
{
	void *bulk[6];

	SHEAF_TEST_CHECK(mark());
	SHEAF_TEST_CHECK(take(4));
	bulk[0] = objs[0];
	bulk[1] = objs[0];                      /* twice in one call */
	bulk[2] = (char *)objs[1] + 8;          /* misaligned */
	bulk[3] = objs[2];
	bulk[4] = &bulk;                        /* foreign */
	bulk[5] = objs[3];
	rte_errno = 0;
	SHEAF_TEST_ASSERT_INT(rte_mempool_ops_enqueue_bulk(pool, bulk, 6),
		-EINVAL, "mixed enqueue");
	SHEAF_TEST_ASSERT_INT(rte_errno, EINVAL, "rte_errno");
	SHEAF_TEST_CHECK(assert_invalid(3));
	/* objs[1] is still held. */
	objs[0] = objs[1];
	held = 1;
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, held));
	SHEAF_TEST_CHECK(give(1));
	return check_whole();
}

/* Bulks larger than a validation batch, with bad entries in each. */
static int
test_large_bulk(void)
{
	unsigned int n = 300, i;
	void **bulk = calloc(n + 2, sizeof(void *));

	RTE_TEST_ASSERT_NOT_NULL(bulk, "out of memory");
	SHEAF_TEST_CHECK(mark());
	if (take(n) != TEST_SUCCESS) {
		free(bulk);
		return TEST_FAILED;
	}
	memcpy(bulk, objs, n * sizeof(void *));
	bulk[n] = objs[7];
	bulk[n + 1] = objs[200];
	held = 0;
	i = rte_mempool_ops_enqueue_bulk(pool, bulk, n + 2) == -EINVAL;
	free(bulk);
	RTE_TEST_ASSERT(i, "large enqueue: got success, expected -EINVAL");
	SHEAF_TEST_CHECK(assert_invalid(2));
	return check_whole();
}

struct thread_job {
	void *obj;
	int ret;
	int err;
};

static void *
thread_put(void *arg)
{
	struct thread_job *j = arg;

	rte_errno = 0;
	j->ret = rte_mempool_ops_enqueue_bulk(pool, &j->obj, 1);
	j->err = rte_errno;
	return NULL;
}

/* A thread without an lcore id frees into the shared tiers. */
static int
test_no_lcore(void)
{
	struct thread_job j;
	pthread_t t;

	SHEAF_TEST_CHECK(mark());
	SHEAF_TEST_CHECK(take(1));
	j.obj = objs[0];
	RTE_TEST_ASSERT_SUCCESS(pthread_create(&t, NULL, thread_put, &j),
		"pthread_create");
	pthread_join(t, NULL);
	SHEAF_TEST_ASSERT_INT(j.ret, 0, "thread free");
	held = 0;
	RTE_TEST_ASSERT_SUCCESS(pthread_create(&t, NULL, thread_put, &j),
		"pthread_create");
	pthread_join(t, NULL);
	SHEAF_TEST_ASSERT_INT(j.ret, -EINVAL, "thread double free");
	SHEAF_TEST_ASSERT_INT(j.err, EINVAL, "thread rte_errno");
	SHEAF_TEST_CHECK(log_names(j.obj, "double free"));
	SHEAF_TEST_CHECK(assert_invalid(1));
	return check_whole();
}

/* Prefill allocations hand objects to the user: a free is legal once. */
static int
test_prefill(void)
{
	struct rte_sheaf_prefill *pf;
	void *o[2];

	SHEAF_TEST_CHECK(mark());
	pf = rte_sheaf_prefill_get(pool, 4);
	RTE_TEST_ASSERT_NOT_NULL(pf, "prefill get: got NULL");
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_prefill_alloc_bulk(pf, o, 2),
		"prefill alloc: failed");
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_prefill_put(pool, pf),
		"prefill put: failed");
	/* Objects still in the borrowed sheaf were never the user's. */
	SHEAF_TEST_ASSERT_INT(rte_mempool_ops_enqueue_bulk(pool, o, 2), 0,
		"free of prefill objects");
	SHEAF_TEST_CHECK(put_one_refused(o[1], "double free"));
	SHEAF_TEST_CHECK(assert_invalid(1));
	return check_whole();
}

/* Deferred free checks too, all or nothing. */
static int
test_deferred(void)
{
	size_t sz = rte_rcu_qsbr_get_memsize(1);
	void *pair[2];

	qv = rte_zmalloc("sv_qsbr", sz, RTE_CACHE_LINE_SIZE);
	RTE_TEST_ASSERT_NOT_NULL(qv, "qsbr alloc: got NULL");
	RTE_TEST_ASSERT_SUCCESS(rte_rcu_qsbr_init(qv, 1), "qsbr init");
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_rcu_attach(pool, qv), "attach");
	SHEAF_TEST_CHECK(mark());
	SHEAF_TEST_CHECK(take(2));
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_free_deferred(pool, objs[0]),
		"deferred free: failed");
	/* Pending reclaim, the object is in the pool already. */
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_free_deferred(pool, objs[0]), EINVAL);
	SHEAF_TEST_CHECK(log_names(objs[0], "double free"));
	/* A bulk with one bad entry frees nothing, objs[1] included. */
	pair[0] = objs[1];
	pair[1] = (char *)objs[1] + 4;
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_free_deferred_bulk(pool, pair, 2),
		EINVAL);
	pair[1] = objs[1];
	SHEAF_TEST_ASSERT_ERR(rte_sheaf_free_deferred_bulk(pool, pair, 2),
		EINVAL);
	/* objs[1] is still the user's: a plain free is legal. */
	SHEAF_TEST_ASSERT_INT(rte_mempool_ops_enqueue_bulk(pool, &objs[1], 1),
		0, "free of objs[1]");
	SHEAF_TEST_CHECK(assert_invalid(3));
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_deferred_barrier(pool),
		"barrier: failed");
	held = 0;
	/* Reclaimed: a second free is still refused. */
	SHEAF_TEST_CHECK(put_one_refused(objs[0], "double free"));
	return check_whole();
}

static const struct sheaf_test_case cases[] = {
	SHEAF_TEST_CASE_ST(setup, teardown, test_flag),
	SHEAF_TEST_CASE_ST(setup, teardown, test_double_free_fast),
	SHEAF_TEST_CASE_ST(setup, teardown, test_double_free_tiers),
	SHEAF_TEST_CASE_ST(setup, teardown, test_foreign),
	SHEAF_TEST_CASE_ST(setup, teardown, test_misaligned),
	SHEAF_TEST_CASE_ST(setup, teardown, test_mixed_bulk),
	SHEAF_TEST_CASE_ST(setup, teardown, test_large_bulk),
	SHEAF_TEST_CASE_ST(setup, teardown, test_no_lcore),
	SHEAF_TEST_CASE_ST(setup, teardown, test_prefill),
	SHEAF_TEST_CASE_ST(setup, teardown, test_deferred),
	SHEAF_TEST_CASES_END
};

static const struct sheaf_test_suite suite = {
	.name = "sheaf_validate",
	.min_lcores = 1,
	.cases = cases,
};

int
main(int argc, char **argv)
{
	return sheaf_test_main(argc, argv, &suite);
}
