/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_RECLAIM_H_
#define _SHEAF_RECLAIM_H_

/*
 * Reclaim: getting back the objects other lcores hold, for an allocation
 * that found the shared tiers short (SLUB flushes every CPU's sheaves,
 * by asking each CPU, when an allocation fails).
 *
 * A failed allocation first counts what other slots hold (racy), but
 * those that ran short themselves less than SHEAF_SHORT_US ago (they need
 * their objects; see sheaf_pvt.h): if the shared tiers and those slots
 * together hold fewer objects than it needs, it fails at once, as
 * cheaply as a ring's failed dequeue. Otherwise it
 * asks the holders to give back what it lacks (SHEAF_REQ_GIVE: each owner
 * gives that many at its next call, one sheaf of them to the barn, and
 * keeps the rest: a pool run short does not shuttle every lcore's
 * sheaves across CPUs at each failure; once all are served and it is
 * still short, it asks once more) and waits, up to three times
 * the pool's idle time plus its membarrier interval (4 ms by default),
 * and while an asked owner is inside a call up to 100 idle times (0.1 s):
 * an owner that calls the pool gives at its next call, within
 * microseconds; one that stays away is idle after the idle time and is
 * drained by the asker, fenced; one preempted inside a call answers when
 * it runs again; a dead one is drained at once. An lcore that calls the
 * pool is never taken from: it serves the request itself. (A fence, for
 * an idle one, is an IPI to every running thread of the processes it
 * targets, busy lcores included: at most one per pool per interval.)
 *
 * A get does wait for owners that call the pool: DPDK's own tests (the
 * mbuf refcnt test) allocate the whole pool one object at a time while
 * another lcore frees each at once, and count on every allocation to
 * succeed. Failing at once instead (tried: post the requests and fail)
 * failed them.
 */

#include <stdbool.h>

#include <rte_cycles.h>

#include "sheaf_barn.h"
#include "sheaf_pvt.h"
#include "sheaf_slab.h"

/*
 * The caller (slot self, held, or NULL) needs n objects that the shared
 * tiers do not have. Returns true when the tiers are worth another look.
 */
bool sheaf_reclaim(struct sheaf_pool *sp, struct sheaf_slot *self,
	unsigned int n);

/*
 * The same, for a caller that has just seen the tiers short of n
 * (sheaf_reclaim_tiers_short()) and self's dry look not hold for n
 * (sheaf_reclaim_dry()): neither is read again.
 */
bool sheaf_reclaim_short(struct sheaf_pool *sp, struct sheaf_slot *self,
	unsigned int n);

/*
 * Whether the shared tiers look short of n (racy reads of their
 * counters): in a pool behind DPDK's cache (cache_size > 0), the barns'
 * full sheaves and the slabs hold fewer than n objects together; in one
 * without, no barn holds a full sheaf and the slabs fewer than n (see
 * sheaf_lcore_get_in()).
 */
static inline bool
sheaf_reclaim_tiers_short(const struct sheaf_pool *sp, unsigned int n)
{
	/* Behind DPDK's cache: count the objects (above). */
	bool count = sp->mp->cache_size != 0;
	uint64_t have = 0;
	uint32_t b;

	/* Racy, not critical: the full sheaves or the slabs may serve n. */
	for (b = 0; b < sp->nb_nodes; b++) {
		if (count)
			have += sheaf_barn_nb_objs(sp, b);
		else if (sheaf_barn_nb_full(sp, b) != 0)
			return false;
	}
	return have < n && have + sheaf_slab_count(sp) < n;
}

/*
 * Whether self's dry look (below) holds for n, the hold taken as current
 * without reading the TSC: for a get that follows, with no call of its
 * lcore between, a look of its own lcore that held (DPDK's get for the
 * call alone after a failed refill of its cache, sheaf_lcore.c).
 */
static inline bool
sheaf_reclaim_dry_held(const struct sheaf_slot *self, unsigned int n)
{
	return n > self->dry_have;
}

/*
 * Whether self's dry look (a reclaim that found fewer objects than it
 * needed in the other lcores and the shared tiers together, less than
 * SHEAF_DRY_US ago) still holds for n more objects than self has: n
 * above what the look found, and the tiers short of n (seen_short: the
 * caller has just seen them so).
 */
static inline bool
sheaf_reclaim_dry(const struct sheaf_pool *sp, const struct sheaf_slot *self,
	unsigned int n, bool seen_short)
{
	/*
	 * The owner's own words first, then its TSC (a read costs tens
	 * of cycles: 11 ns on the development VM, two ring dequeues),
	 * then the shared counters. Every look reads the TSC: a look
	 * that let the next skip it (tried on 2026-12-04) let a get made
	 * long after a held look fail without looking.
	 */
	return sheaf_reclaim_dry_held(self, n) &&
		rte_rdtsc() - self->dry_tsc < sp->tun.dry_cycles &&
		(seen_short || sheaf_reclaim_tiers_short(sp, n));
}

/*
 * Serve the drain and give requests at lc's gate (lc held by its owner,
 * inside a call); keep: the objects the call needs of its own (a get's
 * n), which a give leaves it. Returns whether it served one.
 */
bool sheaf_reclaim_serve(struct sheaf_pool *sp, struct sheaf_slot *lc,
	unsigned int keep);

/* The drain action of a slot the caller holds: its own, or v asked. */
unsigned int sheaf_reclaim_drain(struct sheaf_pool *sp, struct sheaf_slot *v,
	void *arg);

#endif /* _SHEAF_RECLAIM_H_ */
