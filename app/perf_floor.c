/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Mempool ops "perf_floor": the least a mempool driver can do, as the
 * yardstick of the perf tools. Never shipped.
 *
 * Each lcore keeps up to FLOOR_LCORE_OBJS object pointers in an array of
 * its own; behind the arrays is one stack of pointers under a spinlock.
 * Get and put touch the caller's array alone while it can serve them:
 * no atomics, no statistics, no checks at all (a foreign or double free
 * corrupts the pool, a signal handler calling in breaks it). What is
 * left is what any driver pays: the call through the ops table and the
 * copy of the pointers. A driver's share of the floor is the price of
 * what it does beyond that.
 *
 * Contract, as other ops: dequeue is all-or-nothing, 0 or -ENOBUFS;
 * enqueue always succeeds; get_count is exact when no lcore is inside the
 * pool. Threads with no lcore id use the stack directly.
 *
 * Built into sheaf-perf, and alone into the plugin
 * librte_mempool_perf_floor.so for dpdk-testpmd (-d); neither installs.
 */

#include <errno.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memcpy.h>
#include <rte_mempool.h>
#include <rte_spinlock.h>

#include "perf_floor.h"

/* Inline copies: libc's memcpy would cost a call per get and put. */
#define floor_copy(dst, src, n) rte_memcpy(dst, src, (n) * sizeof(void *))

/* Pointers per lcore: DPDK's largest per-lcore cache. */
#define FLOOR_LCORE_OBJS 512
/* A refill leaves an array half full once the get is served, a spill
 * leaves it half full: a run of gets (or puts) goes to the stack once per
 * half array at most. Calls of more than half an array use the stack.
 */
#define FLOOR_HALF (FLOOR_LCORE_OBJS / 2)

struct floor_lcore {
	unsigned int len;              /* objects in objs; owner lcore only */
	void *objs[FLOOR_LCORE_OBJS];  /* [0, len) held, top is the hottest */
} __rte_cache_aligned;

struct floor_pool {
	rte_spinlock_t lock;           /* guards len and stack */
	unsigned int len;              /* objects on the stack */
	struct floor_lcore lcore[RTE_MAX_LCORE];
	void *stack[];                 /* mp->size slots: room for all */
};

static inline struct floor_pool *
floor_pool_of(const struct rte_mempool *mp)
{
	return mp->pool_data;
}

/* The caller's array, or NULL for a thread with no lcore id. */
static inline struct floor_lcore *
floor_lcore(struct floor_pool *fp)
{
	unsigned int id = rte_lcore_id();

	return id < RTE_MAX_LCORE ? &fp->lcore[id] : NULL;
}

static void
floor_stack_push(struct floor_pool *fp, void * const *objs, unsigned int n)
{
	rte_spinlock_lock(&fp->lock);
	floor_copy(&fp->stack[fp->len], objs, n);
	fp->len += n;
	rte_spinlock_unlock(&fp->lock);
}

/* Moves up to want objects from the stack to dst, at least min, or none:
 * returns how many moved.
 */
static unsigned int
floor_stack_pop(struct floor_pool *fp, void **dst, unsigned int min,
	unsigned int want)
{
	unsigned int n;

	rte_spinlock_lock(&fp->lock);
	n = RTE_MIN(want, fp->len);
	if (n < min) {
		n = 0;
	} else {
		fp->len -= n;
		floor_copy(dst, &fp->stack[fp->len], n);
	}
	rte_spinlock_unlock(&fp->lock);
	return n;
}

static int
floor_alloc(struct rte_mempool *mp)
{
	struct floor_pool *fp;

	fp = rte_zmalloc_socket("perf_floor",
		sizeof(*fp) + mp->size * sizeof(fp->stack[0]),
		RTE_CACHE_LINE_SIZE, mp->socket_id);
	if (fp == NULL) {
		rte_errno = ENOMEM;
		return -rte_errno;
	}
	rte_spinlock_init(&fp->lock);
	mp->pool_data = fp;
	return 0;
}

static void
floor_free(struct rte_mempool *mp)
{
	rte_free(mp->pool_data);
}

static int
floor_enqueue(struct rte_mempool *mp, void * const *objs, unsigned int n)
{
	struct floor_pool *fp = floor_pool_of(mp);
	struct floor_lcore *lc = floor_lcore(fp);

	if (lc == NULL || n > FLOOR_HALF) {
		floor_stack_push(fp, objs, n);
		return 0;
	}
	if (lc->len + n > FLOOR_LCORE_OBJS) {
		floor_stack_push(fp, &lc->objs[FLOOR_HALF], lc->len - FLOOR_HALF);
		lc->len = FLOOR_HALF;
	}
	floor_copy(&lc->objs[lc->len], objs, n);
	lc->len += n;
	return 0;
}

static int
floor_dequeue(struct rte_mempool *mp, void **objs, unsigned int n)
{
	struct floor_pool *fp = floor_pool_of(mp);
	struct floor_lcore *lc = floor_lcore(fp);

	if (lc == NULL || n > FLOOR_HALF)
		return floor_stack_pop(fp, objs, n, n) == n ? 0 : -ENOBUFS;
	if (lc->len < n)
		/* Up to half an array beyond this call, n at least. */
		lc->len += floor_stack_pop(fp, &lc->objs[lc->len],
			n - lc->len, FLOOR_HALF + n - lc->len);
	if (lc->len < n)
		return -ENOBUFS;
	lc->len -= n;
	floor_copy(objs, &lc->objs[lc->len], n);
	return 0;
}

/* Racy reads of the lcores' len: exact only when no lcore is inside. */
static unsigned int
floor_get_count(const struct rte_mempool *mp)
{
	struct floor_pool *fp = floor_pool_of(mp);
	unsigned int i, n;

	rte_spinlock_lock(&fp->lock);
	n = fp->len;
	rte_spinlock_unlock(&fp->lock);
	for (i = 0; i < RTE_MAX_LCORE; i++)
		n += fp->lcore[i].len;
	return n;
}

static const struct rte_mempool_ops ops_perf_floor = {
	.name = PERF_FLOOR_OPS_NAME,
	.alloc = floor_alloc,
	.free = floor_free,
	.enqueue = floor_enqueue,
	.dequeue = floor_dequeue,
	.get_count = floor_get_count,
};

RTE_MEMPOOL_REGISTER_OPS(ops_perf_floor);
