/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * The ladder of an lcore's slow paths: SLUB's __pcs_replace_empty_main()
 * and __pcs_replace_full_main(), cheapest rung first, one stat per rung:
 *   get: swap with a non-empty spare -> an expired deferred sheaf as
 *        main -> trade the empty main (and spare, in a one-way flow) for
 *        full sheaves of the home barn -> refill main from the slabs,
 *        home depot first -> trade with the other sockets' barns ->
 *        reclaim other lcores' objects (sheaf_reclaim.h), then once more;
 *   put: swap with an empty spare (first, with a spare that has room
 *        for the whole put where main has not) -> trade the full main
 *        (and spare) for empty sheaves of the home barn, within its
 *        limit -> flush main to the slabs.
 * The pair of sheaves changes only through sheaf_pair.h; the ladder
 * decides which rung, not how.
 *
 * The out-of-line get and put of an owner first serve the requests at its
 * slot's gate (drain, give, stamp): the owner answers for its own
 * sheaves.
 * Calls that cannot use a slot go to the shared path (sheaf_shared.h).
 *
 * A re-entered call (sheaf_call_reentered(): a signal handler whose
 * thread is inside a pool call, or holds a barn or depot lock, while its
 * slot is free: the thread is on the shared path, in a barrier, a flush)
 * climbs no rung past the swap: every other rung takes a lock, which its
 * own thread may hold, and a rung that cannot take it makes no progress.
 * What main and spare cannot serve goes through the shared path, which
 * skips the locks the thread holds (sheaf_shared.h); it neither reclaims
 * nor serves requests (a drain whose lock was refused would be
 * acknowledged undone).
 */

#include <errno.h>

#include <rte_errno.h>

#include "sheaf_deferred.h"
#include "sheaf_lcore.h"
#include "sheaf_pair.h"
#include "sheaf_reclaim.h"
#include "sheaf_shared.h"
#include "sheaf_slab.h"
#include "sheaf_validate.h"

/* Main and spare swapped: a rung of both ladders, counted. */
static inline void
sheaf_lcore_swap(struct sheaf_slot *lc)
{
	sheaf_pair_swap(lc);
	sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_SWAP, 1);
}

void
sheaf_lcore_serve(struct sheaf_pool *sp, struct sheaf_slot *lc,
	unsigned int keep)
{
	if (likely(!sheaf_slot_requests_hint(lc)))
		return;
	sheaf_reclaim_serve(sp, lc, keep);
	sheaf_deferred_serve_stamp(sp, lc, false);
}

unsigned int
sheaf_lcore_flush(struct sheaf_pool *sp, struct sheaf_slot *lc)
{
	unsigned int bad = 0, n;

	n = sheaf_pair_flush(sp, lc, SHEAF_MAIN, &bad);
	n += sheaf_pair_flush(sp, lc, SHEAF_SPARE, &bad);
	sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_FLUSH_OTHER, n);
	sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_FREE_INVALID, bad);
	/* Deferred objects are not safe yet: stamped and queued, not freed. */
	sheaf_deferred_stamp(sp, lc);
	return n;
}

/*
 * Capacity adaptation, at each slow put and each slow get that succeeds
 * of the owner (not re-entered; a get run dry moves nothing and would
 * read as a one-way flow):
 * every SHEAF_ADAPT_EVERY slow entries, the objects moved since the last
 * look (the slot's counters) say how often the lcore leaves its sheaves.
 * More often than every SHEAF_ADAPT_GROW units of objects (a one-way
 * flow: each sheaf is filled or emptied whole; bursts that swing wider
 * than a sheaf) the capacity doubles, up to capacity_max. A unit is the
 * capacity, or the mean call of those slow entries when larger: calls
 * above the capacity (a mempool cache in front, refilling and flushing
 * a cache's worth) are slow at every call, once per call. Less
 * often than every SHEAF_ADAPT_SHRINK units it halves, down to the
 * pool's capacity. Both thresholds in the same unit: a shrink measured
 * in capacities while calls larger than the capacity set the unit let
 * a capacity that served the small calls fast halve, find them slow,
 * and double back, over and over. A random walk of bursts meets a
 * sheaf's ends at a rate that falls with the square of the capacity, so
 * a doubling moves the ratio by two at least: the gap between the
 * thresholds keeps a capacity from flapping. Owner only, out of line: no
 * cost on the fast path, no allocation (every sheaf has room for
 * capacity_max).
 */
#define SHEAF_ADAPT_EVERY 32
#define SHEAF_ADAPT_GROW 2
#define SHEAF_ADAPT_SHRINK 32

static void
sheaf_lcore_adapt(struct sheaf_pool *sp, struct sheaf_slot *lc,
	unsigned int n)
{
	uint32_t cap = lc->capacity, next = cap, resets;
	uint64_t moved, per, unit;

	if (sp->cfg.capacity == sp->cfg.capacity_max)
		return;
	lc->adapt_calls += n;
	if (++lc->adapt_slow < SHEAF_ADAPT_EVERY)
		return;
	/* A one-way flow's unit: a sheaf, or a call when calls are larger. */
	unit = RTE_MAX((uint64_t)cap, lc->adapt_calls / SHEAF_ADAPT_EVERY);
	lc->adapt_slow = 0;
	lc->adapt_calls = 0;
	/* Acquire: pairs with sheaf_stats_reset()'s release. */
	resets = __atomic_load_n(&sp->stats_resets, __ATOMIC_ACQUIRE);
	moved = sheaf_slot_count(lc, RTE_SHEAF_STAT_ALLOC_FAST) +
		sheaf_slot_count(lc, RTE_SHEAF_STAT_FREE_FAST) +
		sheaf_slot_stat(lc, RTE_SHEAF_STAT_ALLOC_SLOW) +
		sheaf_slot_stat(lc, RTE_SHEAF_STAT_FREE_SLOW);
	/*
	 * Counters reset meanwhile (rte_sheaf_stats_reset()): look later.
	 * A reset whose count this look does not see yet may have zeroed
	 * some counters: a sum below the last one tells that part.
	 */
	per = moved >= lc->adapt_moved && resets == lc->adapt_resets ?
		(moved - lc->adapt_moved) / SHEAF_ADAPT_EVERY : UINT64_MAX;
	lc->adapt_moved = moved;
	lc->adapt_resets = resets;
	if (per < SHEAF_ADAPT_GROW * unit)
		next = RTE_MIN(2 * cap, sp->cfg.capacity_max);
	else if (per != UINT64_MAX && per > SHEAF_ADAPT_SHRINK * unit)
		next = RTE_MAX(cap / 2, sp->cfg.capacity);
	if (next == cap)
		return;
	/* Relaxed: stats and prefill read it; only the owner acts on it. */
	__atomic_store_n(&lc->capacity, next, __ATOMIC_RELAXED);
	sheaf_slot_stat_add(lc, next > cap ? RTE_SHEAF_STAT_GROW :
		RTE_SHEAF_STAT_SHRINK, 1);
}

/* Give main objects, cheapest rung first. Returns 0 when none are left. */
static unsigned int
sheaf_lcore_refill_main(struct sheaf_pool *sp, struct sheaf_slot *lc)
{
	unsigned int g;
	uint32_t i;

	if (sheaf_st_size(sheaf_pair_state(lc), SHEAF_SPARE) != 0) {
		sheaf_lcore_swap(lc);
		return sheaf_pair_msize(sheaf_pair_state(lc));
	}
	/* An expired deferred sheaf comes in whole (SLUB: rcu_free_sheaf()). */
	g = sheaf_deferred_refill(sp, lc);
	if (g != 0)
		return g;
	g = sheaf_pair_trade(sp, lc, lc->barn, SHEAF_TRADE_GET);
	if (g == 0 && sheaf_deferred_reclaim(sp, true) != 0)
		g = sheaf_pair_trade(sp, lc, lc->barn, SHEAF_TRADE_GET);
	if (g != 0) {
		sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_BARN_GET, g);
		return sheaf_pair_msize(sheaf_pair_state(lc));
	}
	sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_BARN_GET_FAIL, 1);
	for (i = 0; i < sp->nb_nodes; i++) {
		g = sheaf_pair_refill(sp, lc, (lc->barn + i) % sp->nb_nodes);
		if (g != 0) {
			sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_REFILL, g);
			return g;
		}
	}
	/* Last resort, off-socket: full sheaves in other barns. */
	for (i = 1; i < sp->nb_nodes; i++) {
		g = sheaf_pair_trade(sp, lc, (lc->barn + i) % sp->nb_nodes,
			SHEAF_TRADE_GET);
		if (g != 0) {
			sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_BARN_GET, g);
			return sheaf_pair_msize(sheaf_pair_state(lc));
		}
	}
	return 0;
}

/*
 * Make room in a full main, cheapest rung first; a re-entered call only
 * swaps. Returns whether main has room now.
 */
static bool
sheaf_lcore_spill_main(struct sheaf_pool *sp, struct sheaf_slot *lc,
	bool reentered)
{
	unsigned int g, bad = 0;

	if (sheaf_st_size(sheaf_pair_state(lc), SHEAF_SPARE) == 0) {
		sheaf_lcore_swap(lc);
		return true;
	}
	if (reentered)
		return false;
	g = sheaf_pair_trade(sp, lc, lc->barn, SHEAF_TRADE_PUT);
	if (g != 0) {
		sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_BARN_PUT, g);
		return true;
	}
	sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_BARN_PUT_FAIL, 1);
	sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_FLUSH_MAIN,
		sheaf_pair_flush(sp, lc, SHEAF_MAIN, &bad));
	sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_FREE_INVALID, bad);
	return sheaf_pair_room(lc, sheaf_pair_msize(sheaf_pair_state(lc))) != 0;
}

/* The calling lcore's DPDK cache of the pool, or NULL: none. */
static inline struct rte_mempool_cache *
sheaf_lcore_dcache(const struct sheaf_pool *sp)
{
	unsigned int id = rte_lcore_id();

	if (sp->mp->cache_size == 0 || id >= RTE_MAX_LCORE)
		return NULL;
	return &sp->mp->local_cache[id];
}

/*
 * sheaf_lcore_cache_flush() for a caller that may not own its lcore's
 * slot: the length of the calling lcore's DPDK cache of the pool when
 * objs is that whole cache (a flush), else NULL.
 */
static uint32_t *
sheaf_lcore_cache_flush_any(const struct sheaf_pool *sp, void * const *objs,
	unsigned int n)
{
	struct rte_mempool_cache *c = sheaf_lcore_dcache(sp);

	return c != NULL && objs == (void * const *)c->objs && c->len == n ?
		&c->len : NULL;
}

/*
 * sheaf_pair_push_table() in a validated pool: each object is checked
 * once cut off the cache, copied into main beyond its count, and the
 * refused ones are dropped there (sheaf_validate_put(), in place). A
 * death before the count counts the run lost: all of it until the
 * record is lowered to the objects accepted, then those. Returns the
 * objects refused.
 */
static unsigned int
sheaf_lcore_push_checked(struct sheaf_pool *sp, struct sheaf_slot *lc,
	uint64_t w, void * const *objs, unsigned int n, uint32_t *tlen,
	uint32_t left)
{
	void **at = sheaf_pair_cut_begin(lc, w, SHEAF_MAIN, objs, n, tlen,
		left, "push_table.cut");
	/* A cache flush: never a handler's (sheaf_pool_put_other()). */
	unsigned int k = sheaf_validate_put(sp, at, n, at, false);

	if (k != n) {
		/* Relaxed, in program order: see sheaf_pair_cut_begin(). */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		__atomic_store_n(&lc->cut_n, k, __ATOMIC_RELAXED);
	}
	SHEAF_KILL("push_table.checked");
	sheaf_pair_cut_end(lc, w + k);
	return n - k;
}

/*
 * Put n objects into the slot, spilling main as it fills; what finds no
 * room there (no rung made progress: a lock refused, a re-entered call
 * past its spare) goes through the shared path. Returns the objects that
 * did not go into the slot: the shared path's (counted there), and those
 * a validated pool refused here (counted here). tlen: the length of the
 * table objs when it is DPDK's cache of the caller's lcore
 * (sheaf_lcore_cache_flush()), else NULL. *refused (may be NULL when
 * tlen is): raised by every object refused, here or on the shared path.
 * refused NULL: the objects of a failed get going back, not freed: the
 * shared path does not count them either (FREE_SLOW).
 */
static unsigned int
sheaf_lcore_put_ladder(struct sheaf_pool *sp, struct sheaf_slot *lc,
	void * const *objs, unsigned int n, bool reentered, uint32_t *tlen,
	unsigned int *refused)
{
	unsigned int t, k, off = 0;
	uint64_t w;

	/*
	 * Spare alone has room for all, main not: swap first. Filling main
	 * to the brim and swapping would leave main nearly empty and spare
	 * full, and the next get (short in main) swap back: a get and put
	 * of a few objects in turn would each take the slow path.
	 */
	w = sheaf_pair_state(lc);
	if (sheaf_pair_room(lc, sheaf_pair_msize(w)) < n &&
			sheaf_pair_room(lc, sheaf_st_size(w, SHEAF_SPARE)) >= n) {
		sheaf_lcore_swap(lc);
	}
	while (n > 0) {
		w = sheaf_pair_state(lc);
		t = RTE_MIN(sheaf_pair_room(lc, sheaf_pair_msize(w)), n);
		if (t == 0) {
			if (!sheaf_lcore_spill_main(sp, lc, reentered))
				break;
			continue;
		}
		if (tlen != NULL && unlikely(sheaf_validate_on(sp))) {
			k = sheaf_lcore_push_checked(sp, lc, w, objs + n - t,
				t, tlen, n - t);
			if (k != 0)
				sheaf_slot_stat_add(lc,
					RTE_SHEAF_STAT_FREE_INVALID, k);
			*refused += k;
			off += k;
		} else if (tlen != NULL) {
			/* From the end: what is left stays the table's head. */
			sheaf_pair_push_table(lc, w, objs + n - t, t, tlen,
				n - t);
		} else {
			sheaf_pair_push(lc, w, objs, t);
			objs += t;
		}
		n -= t;
	}
	if (n == 0)
		return off;
	/*
	 * The shared path's transactions move the objects a run at a time,
	 * from the table's end: a flush of DPDK's cache is cut inside each
	 * run's transaction (sheaf_shared_put()).
	 */
	if (refused == NULL) {
		sheaf_shared_give(sp, objs, n);
		return off + n;
	}
	*refused += sheaf_shared_put(sp, objs, n, tlen);
	return off + n;
}

/*
 * The put slow path inside a call's brackets. Returns the objects a
 * validated pool refused in a flush of DPDK's cache (counted).
 */
static unsigned int
sheaf_lcore_put_in(struct sheaf_pool *sp, struct sheaf_slot *lc,
	void * const *objs, unsigned int n)
{
	bool reentered = sheaf_call_reentered();
	unsigned int off, refused = 0;

	if (!reentered)
		sheaf_lcore_adapt(sp, lc, n);
	/* A handler's put never flushes the cache (DPDK's own code, which
	 * it interrupted, may be halfway through it). */
	off = sheaf_lcore_put_ladder(sp, lc, objs, n, reentered,
		reentered ? NULL : sheaf_lcore_cache_flush(lc, objs, n),
		&refused);

	/* The shared path and the refusals counted their own. */
	sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_FREE_SLOW, n - off);
	return refused;
}

void
sheaf_lcore_put_slow(struct sheaf_pool *sp, struct sheaf_slot *lc,
	void * const *objs, unsigned int n)
{
	sheaf_slot_dry_forget(lc);
	sheaf_call_enter();
	sheaf_lcore_put_in(sp, lc, objs, n);
	sheaf_call_leave(sp);
}

/*
 * Objects into main for a get: a non-empty spare, and for a call that is
 * not re-entered the rest of the ladder. Returns 0 when none came.
 */
static unsigned int
sheaf_lcore_get_refill(struct sheaf_pool *sp, struct sheaf_slot *lc,
	bool reentered)
{
	if (!reentered)
		return sheaf_lcore_refill_main(sp, lc);
	if (sheaf_st_size(sheaf_pair_state(lc), SHEAF_SPARE) == 0)
		return 0;
	sheaf_lcore_swap(lc);
	return sheaf_pair_msize(sheaf_pair_state(lc));
}

/* A get's reclaim-first verdict (see sheaf_lcore_get_in()). */
enum sheaf_first {
	SHEAF_FIRST_UNKNOWN, /* not looked at yet */
	SHEAF_FIRST_LADDER,  /* main, spare and the tiers may serve n */
	SHEAF_FIRST_DRY,     /* short, and the dry look holds: fail */
	SHEAF_FIRST_RECLAIM, /* short: reclaim before the ladder */
};

/*
 * The verdict: racy reads of the shared tiers' counters, the owner's
 * own words, its TSC. It moves nothing and takes no lock: a get may
 * take it before the call's brackets (sheaf_lcore_get_slow()).
 */
static __rte_always_inline enum sheaf_first
sheaf_lcore_get_first(struct sheaf_pool *sp, struct sheaf_slot *lc,
	unsigned int n)
{
	unsigned int have = sheaf_pair_count(lc);
	bool dry;

	if (have >= n || sheaf_deferred_qsbr(sp) != NULL ||
			!sheaf_reclaim_tiers_short(sp, n - have))
		return SHEAF_FIRST_LADDER;
	/*
	 * Right after a refill of DPDK's cache that the look failed, with
	 * no call of this lcore between (the pair's state and its failed
	 * gets as that failure left them): DPDK's get for the call alone,
	 * made at once. That look's hold was current a moment ago: this
	 * one skips its TSC read (11 ns, a third of a failed get through
	 * the cache), not its other checks. A get made later, after any
	 * call of the lcore, reads the TSC.
	 */
	if (lc->dry_refill_state == sheaf_pair_state(lc) &&
			lc->dry_refill_calls == sheaf_lcore_dry_calls(lc))
		dry = sheaf_reclaim_dry_held(lc, n - have);
	else
		dry = sheaf_reclaim_dry(sp, lc, n - have, true);
	return dry ? SHEAF_FIRST_DRY : SHEAF_FIRST_RECLAIM;
}

/*
 * Whether a get's table is the calling lcore's DPDK cache of the pool:
 * a refill of that cache (its objects array, 22.11 to 26.07), which DPDK
 * follows at once, when it fails, with a get for the call alone.
 */
static inline bool
sheaf_lcore_cache_refill(const struct sheaf_pool *sp, void * const *objs)
{
	const struct rte_mempool_cache *c = sheaf_lcore_dcache(sp);

	return c != NULL && objs >= c->objs &&
		objs < c->objs + RTE_DIM(c->objs);
}

/*
 * The get ladder, all or nothing, inside a call's brackets; first: the
 * verdict when the caller has taken it.
 */
static int
sheaf_lcore_get_in(struct sheaf_pool *sp, struct sheaf_slot *lc,
	void **objs, unsigned int n, enum sheaf_first first)
{
	bool reentered = sheaf_call_reentered();
	struct sheaf_table_undo undo;
	bool reclaimed = reentered;
	unsigned int got = 0, t, have;
	uint64_t w;

	/*
	 * Main and spare short of n, and the shared tiers of the rest (no
	 * deferred sheaf to wait for): the ladder would only move objects
	 * to put them back. Reclaim first; failing, fail before moving
	 * anything, as a ring's failed dequeue. Behind DPDK's cache, the
	 * tiers count as short when their objects are (a cache refill asks
	 * for the cache's size beyond the call, and the cache asks again
	 * for the call alone at once); without one, only when no barn
	 * holds a full sheaf: a get that takes what the barns hold before
	 * it fails keeps those objects in its sheaves (the ladder puts
	 * them back there), and its lcore's next get, asking for more,
	 * finds them (rx-burst-low: 0.006 failed rearms an object; 0.009
	 * when it fails on the count). The dry look fails it at once.
	 */
	if (first == SHEAF_FIRST_UNKNOWN && !reentered)
		first = sheaf_lcore_get_first(sp, lc, n);
	have = sheaf_pair_count(lc);
	if (!reentered && first != SHEAF_FIRST_LADDER) {
		if (first == SHEAF_FIRST_DRY ||
				!sheaf_reclaim_short(sp, lc, n - have)) {
			sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_ALLOC_FAIL, 1);
			return -ENOBUFS;
		}
		reclaimed = true;
	}
	if (sheaf_table_init(&undo, sp, objs, n, reentered) < 0) {
		sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_ALLOC_FAIL, 1);
		return -ENOBUFS;
	}
	/* Spare alone holds all, main not: swap first (as the put). */
	w = sheaf_pair_state(lc);
	if (sheaf_pair_msize(w) < n && sheaf_st_size(w, SHEAF_SPARE) >= n) {
		sheaf_lcore_swap(lc);
	}
	for (;;) {
		do {
			w = sheaf_pair_state(lc);
			t = RTE_MIN(sheaf_pair_msize(w), n - got);
			if (t != 0) {
				sheaf_table_keep(&undo, objs + got, t);
				sheaf_pair_pop(lc, w, objs + got, t);
			}
			got += t;
			if (got == n)
				goto done;
		} while (sheaf_lcore_get_refill(sp, lc, reentered) != 0);
		/* A handler does not reclaim: the shared tiers it may lock. */
		if (reclaimed)
			break;
		/*
		 * What it got goes back into the slot first: a reclaim may
		 * wait for milliseconds, and a death then would lose the
		 * objects in the caller's table, uncounted (until
		 * 2026-12-06 they stayed there). Counted as the slot's
		 * again, they are what the reclaim need not find.
		 */
		if (got != 0) {
			sheaf_lcore_put_ladder(sp, lc, objs, got, false, NULL,
				NULL);
			sheaf_table_restore(&undo, objs, got);
			got = 0;
		}
		SHEAF_KILL("get.reclaim");
		have = sheaf_pair_count(lc);
		if (!sheaf_reclaim(sp, lc, n - RTE_MIN(have, n - 1)))
			break;
		reclaimed = true;
	}
	if (reentered) {
		got += sheaf_shared_take(sp, sheaf_home_node(sp), objs + got,
			n - got, &undo, NULL);
		if (got == n)
			goto done;
	}
	/* All or nothing: what was taken goes back, the table is restored. */
	sheaf_lcore_put_ladder(sp, lc, objs, got, reentered, NULL, NULL);
	sheaf_table_restore(&undo, objs, got);
	sheaf_table_done(&undo);
	sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_ALLOC_FAIL, 1);
	return -ENOBUFS;
done:
	sheaf_table_done(&undo);
	sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_ALLOC_SLOW, n);
	/* Only a get that got counts: a failing one moves nothing. */
	if (!reentered)
		sheaf_lcore_adapt(sp, lc, n);
	return 0;
}

int
sheaf_lcore_get_slow(struct sheaf_pool *sp, struct sheaf_slot *lc,
	void **objs, unsigned int n)
{
	enum sheaf_first first = sheaf_lcore_get_first(sp, lc, n);
	int ret;

	/*
	 * A get that the dry look fails ends before the call's brackets (two
	 * reads of the thread's state, through a TLS descriptor). A signal
	 * handler's get (re-entered: its thread was on the shared path,
	 * its slot free) may fail here as well: with the tiers short of
	 * what main and spare lack, neither its swap nor the shared path
	 * could serve it (racy reads either way).
	 */
	if (first == SHEAF_FIRST_DRY) {
		sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_ALLOC_FAIL, 1);
		if (sheaf_lcore_cache_refill(sp, objs)) {
			lc->dry_refill_state = sheaf_pair_state(lc);
			lc->dry_refill_calls = sheaf_lcore_dry_calls(lc);
		}
		return -ENOBUFS;
	}
	sheaf_slot_dry_forget(lc);
	sheaf_call_enter();
	ret = sheaf_lcore_get_in(sp, lc, objs, n, first);
	sheaf_call_leave(sp);
	return ret;
}

/*
 * A get or put on a slot held out of line, inside the route's brackets:
 * its requests (not from a handler: see the top), then as fast.
 */
static int
sheaf_lcore_get_held(struct sheaf_pool *sp, struct sheaf_slot *lc,
	void **objs, unsigned int n)
{
	uint64_t w;

	if (!sheaf_call_reentered())
		sheaf_lcore_serve(sp, lc, n);
	w = sheaf_pair_state(lc);
	if (n > sheaf_pair_msize(w))
		return sheaf_lcore_get_in(sp, lc, objs, n,
			SHEAF_FIRST_UNKNOWN);
	sheaf_pair_pop(lc, w, objs, n);
	sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_ALLOC_FAST, n);
	return 0;
}

/* As sheaf_lcore_put_in(), on the slot held. */
static unsigned int
sheaf_lcore_put_held(struct sheaf_pool *sp, struct sheaf_slot *lc,
	void * const *objs, unsigned int n)
{
	uint64_t w;

	if (!sheaf_call_reentered())
		sheaf_lcore_serve(sp, lc, 0);
	w = sheaf_pair_state(lc);
	/* A validated pool's flush of DPDK's cache: checked in the ladder. */
	if (n > sheaf_pair_room(lc, sheaf_pair_msize(w)) ||
			unlikely(objs == lc->dcache && sheaf_validate_on(sp)))
		return sheaf_lcore_put_in(sp, lc, objs, n);
	sheaf_lcore_push(lc, w, objs, n);
	sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_FREE_FAST, n);
	return 0;
}

/*
 * A signal handler found its thread's slot busy (the call it interrupted
 * holds it): it takes the shared path. Counted in the pool's shared
 * counters, atomically: the slot's own are the interrupted call's.
 */
static void
sheaf_lcore_reentrant(struct sheaf_pool *sp)
{
	sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_REENTRANT, 1);
}

/* Route a call the fast path did not take, validation aside. */
static int
sheaf_lcore_get_route(struct sheaf_pool *sp, void **objs, unsigned int n)
{
	struct sheaf_slot *lc;
	bool handler;
	int ret;

	sheaf_call_enter();
	ret = sheaf_slot_hold(sp, &lc);
	handler = ret == -EBUSY;
	if (lc != NULL) {
		ret = sheaf_lcore_get_held(sp, lc, objs, n);
		sheaf_slot_leave(lc);
	} else {
		if (handler) {
			sheaf_lcore_reentrant(sp);
			sheaf_call_handler_begin();
		}
		ret = sheaf_shared_get(sp, objs, n, sheaf_call_reentered());
	}
	sheaf_call_leave(sp);
	if (handler)
		sheaf_call_handler_end();
	return ret;
}

/*
 * Route a put the fast path did not take. Returns the objects refused in
 * a validated pool's flush of DPDK's cache (counted), 0 otherwise.
 */
static unsigned int
sheaf_lcore_put_route(struct sheaf_pool *sp, void * const *objs,
	unsigned int n)
{
	unsigned int refused;
	struct sheaf_slot *lc;
	bool handler;

	sheaf_call_enter();
	/* Populate's frees find the slot it holds busy: not a handler. */
	handler = sheaf_slot_hold(sp, &lc) == -EBUSY &&
		!sheaf_slab_populating(sp);
	if (handler) {
		sheaf_lcore_reentrant(sp);
		sheaf_call_handler_begin();
	}
	if (lc != NULL) {
		refused = sheaf_lcore_put_held(sp, lc, objs, n);
		sheaf_slot_leave(lc);
	} else {
		/*
		 * The slot is not ours (another process's, or claimed by
		 * nobody yet): a flush of DPDK's cache is cut as it goes,
		 * as the ladder's shared fallback; a handler's put never
		 * flushes it (as sheaf_lcore_put_in()).
		 */
		refused = sheaf_shared_put(sp, objs, n,
			sheaf_call_reentered() ? NULL :
			sheaf_lcore_cache_flush_any(sp, objs, n));
	}
	sheaf_call_leave(sp);
	if (handler)
		sheaf_call_handler_end();
	return refused;
}

int
sheaf_pool_get_other(struct sheaf_pool *sp, void **objs, unsigned int n)
{
	int ret = sheaf_lcore_get_route(sp, objs, n);

	if (ret == 0 && unlikely(sheaf_validate_on(sp)))
		sheaf_validate_take(sp, objs, n);
	return ret;
}

int
sheaf_pool_put_other(struct sheaf_pool *sp, void * const *objs,
	unsigned int n)
{
	void *ok[SHEAF_VALIDATE_BATCH];
	unsigned int left, t, k, bad = 0;
	bool handler;

	if (likely(!sheaf_validate_on(sp)) || sheaf_slab_populating(sp)) {
		sheaf_lcore_put_route(sp, objs, n);
		return 0;
	}
	/*
	 * A flush of DPDK's cache, by a call that is not re-entered (a
	 * signal handler's never cuts the cache: sheaf_lcore_put_in()),
	 * moves as the cache itself, cut as it goes: each run is checked
	 * once cut off the cache, before it lands, and a death in between
	 * counts it lost (sheaf_lcore_push_checked(),
	 * sheaf_shared_give_run()), its refusals counted there. A handler
	 * that interrupted an inline call of its thread (its slot busy)
	 * takes the shared path with no table to cut: checked here, as any
	 * handler's put (until 2026-12-06 it went unchecked: a double free
	 * accepted).
	 */
	handler = sheaf_lcore_call_inside(sp);
	if (!handler && sheaf_lcore_cache_flush_any(sp, objs, n) != NULL) {
		bad = sheaf_lcore_put_route(sp, objs, n);
	} else {
		/* Checked in batches, each copied to ok[], which moves. */
		for (left = n; left > 0; left -= t) {
			t = RTE_MIN(left, (unsigned int)SHEAF_VALIDATE_BATCH);
			k = sheaf_validate_put(sp, objs + n - left, t, ok,
				handler);
			bad += t - k;
			if (k != 0)
				sheaf_lcore_put_route(sp, ok, k);
		}
		if (bad != 0)
			sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_INVALID,
				bad);
	}
	if (bad == 0)
		return 0;
	rte_errno = EINVAL;
	return -EINVAL;
}

int
sheaf_lcore_free_deferred_slow(struct sheaf_pool *sp, void * const *objs,
	unsigned int n)
{
	struct sheaf_slot *lc = NULL;
	bool handler, fast = false;
	int ret;

	/*
	 * The call counted first: a signal handler inside a call of its
	 * thread is re-entered (no slot claim, no recovery, no log) and
	 * shares the socket's sheaf. So is one that interrupted an inline
	 * fast path (a get, a put, a deferred free): its depth is 1, but
	 * its slot is busy with the call below it (-EBUSY), which holds no
	 * lock: as in the get's route, it waits for no lock, logs nothing.
	 */
	sheaf_call_enter();
	handler = sheaf_call_reentered();
	if (!handler && sheaf_slot_hold(sp, &lc) == -EBUSY) {
		handler = fast = true;
		sheaf_call_handler_begin();
	}
	/*
	 * Its requests, as a get or put out of line serves them: an lcore
	 * that only frees deferred (its objects got elsewhere) calls the
	 * pool all along and is never idle, so nobody else serves them
	 * (before 2026-12-05 a barrier asking it timed out).
	 */
	if (lc != NULL)
		sheaf_lcore_serve(sp, lc, 0);
	ret = sheaf_deferred_free(sp, lc, objs, n, handler);
	sheaf_call_leave(sp);
	if (fast)
		sheaf_call_handler_end();
	if (lc != NULL) {
		sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_FREE_DEFERRED,
			ret == 0 ? n : 0);
		sheaf_slot_leave(lc);
	} else if (ret == 0) {
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_DEFERRED, n);
	}
	return ret;
}
