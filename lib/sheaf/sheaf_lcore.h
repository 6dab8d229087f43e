/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_LCORE_H_
#define _SHEAF_LCORE_H_

/*
 * The allocation and free paths of the ops: the fast paths, inlined into
 * the driver's dequeue and enqueue, are a check of the slot's first line,
 * the owner's entry into its slot and a copy on its main sheaf: no
 * atomic read-modify-write, no lock. The ladder behind them, the shared
 * path and everything else are out of line (sheaf_lcore.c).
 */

#include <rte_branch_prediction.h>

#include "sheaf_deferred.h"
#include "sheaf_pair.h"
#include "sheaf_pvt.h"
#include "sheaf_shared.h"
#include "sheaf_slot.h"

/* Slow paths of the owner, entered (busy) on its slot lc. */
int sheaf_lcore_get_slow(struct sheaf_pool *sp, struct sheaf_slot *lc,
	void **objs, unsigned int n);
void sheaf_lcore_put_slow(struct sheaf_pool *sp, struct sheaf_slot *lc,
	void * const *objs, unsigned int n);

/*
 * Entry for a call the fast path cannot take: no slot, a slot this
 * process does not own (yet), a busy slot (re-entrance), something at its
 * gate (a request, a thief, validate mode). Put returns 0, or -EINVAL
 * with rte_errno set when validate mode refused objects (the others are
 * freed).
 */
int sheaf_pool_get_other(struct sheaf_pool *sp, void **objs, unsigned int n);
int sheaf_pool_put_other(struct sheaf_pool *sp, void * const *objs,
	unsigned int n);

/*
 * The length of DPDK's mempool cache of the calling lcore when a put's
 * table is that whole cache, else NULL: a flush of the cache, which
 * DPDK 22.11 to 25.11 make at their flush threshold, passing the cache's
 * objects and length and storing the new length after the call. The
 * cache lives in the pool's shared memory: a process that dies inside
 * the flush leaves it to the next process on its lcore id, as it
 * stands. The flush therefore cuts the cache as objects leave it
 * (sheaf_pair_push_table()). 26.07 flushes the older half and moves the
 * rest down after the call, reading the length again: its table is not
 * the whole cache, and is put as any other (doc/reliability.md).
 */
static __rte_always_inline uint32_t *
sheaf_lcore_cache_flush(const struct sheaf_slot *lc, void * const *objs,
	unsigned int n)
{
	struct rte_mempool_cache *c;

	if (lc->dcache == NULL || objs != lc->dcache)
		return NULL;
	c = container_of(lc->dcache, struct rte_mempool_cache, objs[0]);
	return c->len == n ? &c->len : NULL;
}

/*
 * The fast path's put of n objects that fit main (w: the pair's state): a
 * flush of the lcore's DPDK cache cuts it (sheaf_pair_push_table()).
 */
static __rte_always_inline void
sheaf_lcore_push(struct sheaf_slot *lc, uint64_t w, void * const *objs,
	unsigned int n)
{
	uint32_t *tlen;

	if (likely(objs != lc->dcache)) {
		sheaf_pair_push(lc, w, objs, n);
		return;
	}
	tlen = sheaf_lcore_cache_flush(lc, objs, n);
	if (tlen != NULL)
		sheaf_pair_push_table(lc, w, objs, n, tlen, 0);
	else
		sheaf_pair_push(lc, w, objs, n);
}

/* The driver's dequeue: 0 or -ENOBUFS, all or nothing. */
static __rte_always_inline int
sheaf_pool_get(struct sheaf_pool *sp, void **objs, unsigned int n)
{
	struct sheaf_slot *lc = sheaf_slot_of(sp);
	uint64_t w, b;
	int ret = 0;

	if (unlikely(!sheaf_slot_fast_ok(lc, &b)))
		return sheaf_pool_get_other(sp, objs, n);
	if (unlikely(sheaf_slot_enter_at(lc, b) != 0)) {
		sheaf_slot_leave_at(lc, b);
		return sheaf_pool_get_other(sp, objs, n);
	}
	w = sheaf_pair_state(lc);
	if (likely(n <= sheaf_pair_msize(w))) {
		sheaf_pair_pop(lc, w, objs, n);
		/* ALLOC_FAST: counted in the busy word the exit stores. */
		b += (uint64_t)n << SHEAF_BUSY_GETS;
	} else {
		ret = sheaf_lcore_get_slow(sp, lc, objs, n);
	}
	sheaf_slot_leave_at(lc, b);
	return ret;
}

/* The driver's enqueue: see sheaf_pool_put_other(). */
static __rte_always_inline int
sheaf_pool_put(struct sheaf_pool *sp, void * const *objs, unsigned int n)
{
	struct sheaf_slot *lc = sheaf_slot_of(sp);
	uint64_t w, b;

	if (unlikely(!sheaf_slot_fast_ok(lc, &b)))
		return sheaf_pool_put_other(sp, objs, n);
	if (unlikely(sheaf_slot_enter_at(lc, b) != 0)) {
		sheaf_slot_leave_at(lc, b);
		return sheaf_pool_put_other(sp, objs, n);
	}
	w = sheaf_pair_state(lc);
	if (likely(n <= sheaf_pair_room(lc, sheaf_pair_msize(w)))) {
		sheaf_lcore_push(lc, w, objs, n);
		/* FREE_FAST: counted in the busy word the exit stores. */
		b += (uint64_t)n << SHEAF_BUSY_PUTS;
	} else {
		sheaf_lcore_put_slow(sp, lc, objs, n);
	}
	sheaf_slot_leave_at(lc, b);
	return 0;
}

/*
 * Serve the requests at lc's gate (lc held): drain, give, stamp. Called
 * at every out-of-line entry of an owner; keep: the objects the call
 * needs of its own (a get's n), which a give leaves it.
 */
void sheaf_lcore_serve(struct sheaf_pool *sp, struct sheaf_slot *lc,
	unsigned int keep);

/* Give everything lc (held) holds back to the shared tiers. */
unsigned int sheaf_lcore_flush(struct sheaf_pool *sp, struct sheaf_slot *lc);

/* The full path of sheaf_lcore_free_deferred(). */
int sheaf_lcore_free_deferred_slow(struct sheaf_pool *sp,
	void * const *objs, unsigned int n);

/*
 * A deferred free from the calling thread (rte_sheaf_free_deferred_bulk(),
 * its checks done): the owner's fast path, as the ops' get and put (its
 * brackets, room in its deferred sheaf; a handler that interrupts finds
 * the slot busy and takes the full path), else the full path with its
 * slot held if it has one, or as a handler's re-entered call. 0, or a
 * negative errno (sheaf_deferred_free()).
 */
static __rte_always_inline int
sheaf_lcore_free_deferred(struct sheaf_pool *sp, void * const *objs,
	unsigned int n)
{
	struct sheaf_slot *lc = sheaf_slot_of(sp);
	uint64_t b;

	if (sheaf_slot_fast_ok(lc, &b)) {
		if (sheaf_slot_enter_at(lc, b) == 0 &&
				sheaf_deferred_fast(sp, lc, objs, n)) {
			sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_FREE_DEFERRED, n);
			sheaf_slot_leave_at(lc, b);
			return 0;
		}
		sheaf_slot_leave_at(lc, b);
	}
	return sheaf_lcore_free_deferred_slow(sp, objs, n);
}

/*
 * Before a call's brackets (a public entry into sp): whether the caller
 * is a signal handler inside a call of its thread. One out of line, or
 * holding a lock, as sheaf_call_inside() tells; or an inline call into
 * sp (the fast path's get, put or deferred free, which count no call
 * depth): the thread's slot of sp ours and busy. Relaxed: the thread's
 * own word (sheaf_slot_hold() reads it so).
 */
static inline bool
sheaf_lcore_call_inside(struct sheaf_pool *sp)
{
	const struct sheaf_slot *lc = sheaf_slot_of(sp);

	return sheaf_call_inside() || (lc != NULL && sheaf_slot_ours(lc) &&
		(__atomic_load_n(&lc->busy, __ATOMIC_RELAXED) &
			SHEAF_BUSY_BITS) != 0);
}

/*
 * What the record of a refill the dry look failed (struct sheaf_slot's
 * dry_refill_*) compares to tell that no call of lc's owner came
 * between: its failed gets, its deferred frees and the fast counts
 * pending in its busy word (own words, exact). Each call on the fast
 * path adds to one of them (a get or put of no object changes nothing);
 * any other call forgets the record (sheaf_slot_dry_forget(): a slow
 * get or put, an entry out of line) before it moves anything.
 * (A reset of the counters between may bring the sum back: one get then
 * skips its TSC read.)
 * Until 2026-12-06 the record was the pair's state and the failed gets:
 * a get served by main and a put of as many brought the state back, and
 * a refill long after the look failed without looking.
 */
static inline uint64_t
sheaf_lcore_dry_calls(const struct sheaf_slot *lc)
{
	uint64_t b = __atomic_load_n(&lc->busy, __ATOMIC_RELAXED);

	return sheaf_slot_stat(lc, RTE_SHEAF_STAT_ALLOC_FAIL) +
		sheaf_slot_stat(lc, RTE_SHEAF_STAT_FREE_DEFERRED) +
		sheaf_busy_count(b, RTE_SHEAF_STAT_ALLOC_FAST) +
		sheaf_busy_count(b, RTE_SHEAF_STAT_FREE_FAST);
}

/* Lcore slot lc's sheaf capacity now: its owner's relaxed store, a hint. */
static inline uint32_t
sheaf_lcore_capacity(const struct sheaf_slot *lc)
{
	return __atomic_load_n(&lc->capacity, __ATOMIC_RELAXED);
}

#endif /* _SHEAF_LCORE_H_ */
