/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Lcore sheaves: SLUB's struct slub_percpu_sheaves, one slot per lcore id.
 *
 * The slow paths climb a ladder, cheapest rung first, one stat per rung:
 *   get: swap with the spare -> trade the empty main (and spare, if empty
 *        too) for full sheaves in the barn -> refill main from the slabs
 *        -> other sockets' barns;
 *   put: swap with the spare -> trade the full main (and spare, if full
 *        too) for empty sheaves in the barn, while under its limit ->
 *        flush main to the slabs.
 * Trading main and spare together halves the barn ring operations per
 * object without raising what an lcore can hold. The spare is empty or
 * holds objects; the put ladder swaps only with an empty spare, the get
 * ladder only with a non-empty one.
 *
 * Re-entrance. The owner marks what it is doing in lc->busy: its sheaves,
 * a barn ring operation, or a slab depot lock. A signal handler calling
 * the pool on the same thread sees the mark and takes the shared path,
 * avoiding what the interrupted code holds: it skips the barn rings when
 * interrupted inside a ring operation (an MP/MC ring would wait for the
 * interrupted thread forever) and the slabs when interrupted under a
 * depot lock. A free in that last case parks the objects in the lcore's
 * stash (SHEAF_STASH_OBJS), then in barn sheaves; the owner empties the
 * stash at its next slow path. Nesting deeper than one handler is not
 * supported.
 */

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_pause.h>

#include "sheaf_barn.h"
#include "sheaf_deferred.h"
#include "sheaf_lcore.h"
#include "sheaf_slab.h"
#include "sheaf_validate.h"

void
sheaf_lcore_init(struct sheaf_pool *sp)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct sheaf_lcore *lc = &sp->lcore[i];
		unsigned int socket = rte_lcore_to_socket_id(i);

		lc->main = sheaf_arena_get(sp, 2 * i);
		lc->msize = 0;
		lc->spare = sheaf_arena_get(sp, 2 * i + 1);
		lc->barn = socket < sp->nb_barns ? socket : 0;
		lc->validate = sheaf_validate_on(sp);
	}
}

uint32_t sheaf_proc_id;

RTE_INIT(sheaf_proc_id_init)
{
	sheaf_proc_id = (uint32_t)getpid();
}

static int sheaf_lcore_take_dead(struct sheaf_pool *sp, struct sheaf_lcore *lc);

/* Whether this process owns lc, claiming it if nobody does. */
static int
sheaf_lcore_claim(struct sheaf_pool *sp, struct sheaf_lcore *lc)
{
	uint32_t none = 0;

	if (__atomic_load_n(&lc->owner, __ATOMIC_ACQUIRE) == sheaf_proc_id)
		return 1;
	/* Acquire: a slot handed over later starts from its last state. */
	if (__atomic_compare_exchange_n(&lc->owner, &none, sheaf_proc_id,
			0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 1;
	return sheaf_lcore_take_dead(sp, lc);
}

struct sheaf_lcore *
sheaf_lcore_own_slot(struct sheaf_pool *sp)
{
	struct sheaf_lcore *lc = sheaf_lcore_slot(sp);

	return lc != NULL && sheaf_lcore_claim(sp, lc) ? lc : NULL;
}

int
sheaf_lcore_hold(struct sheaf_pool *sp, struct sheaf_lcore **held)
{
	struct sheaf_lcore *lc = sheaf_lcore_own_slot(sp);

	*held = NULL;
	if (lc == NULL)
		return 0;
	if (lc->busy != 0)
		return -EBUSY;
	lc->busy = SHEAF_BUSY_SHEAF;
	rte_compiler_barrier(); /* see sheaf_lcore_get() */
	if (__atomic_load_n(&lc->steal, __ATOMIC_ACQUIRE) != 0) {
		lc->busy = 0;
		return 0;
	}
	*held = lc;
	return 0;
}

void
sheaf_lcore_release(struct sheaf_lcore *lc)
{
	if (lc == NULL)
		return;
	rte_compiler_barrier();
	lc->busy = 0;
}

/* Route a call the fast path did not take, validation aside. */
static int
sheaf_pool_get_route(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void **objs, unsigned int n)
{
	if (lc == NULL || !sheaf_lcore_claim(sp, lc))
		return sheaf_shared_get(sp, NULL, objs, n);
	if (lc->busy != 0)
		return sheaf_shared_get(sp, lc, objs, n);
	return sheaf_lcore_get(sp, lc, objs, n);
}

static void
sheaf_pool_put_route(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void * const *objs, unsigned int n)
{
	if (lc == NULL || !sheaf_lcore_claim(sp, lc))
		sheaf_shared_put(sp, NULL, objs, n);
	else if (lc->busy != 0)
		sheaf_shared_put(sp, lc, objs, n);
	else
		sheaf_lcore_put(sp, lc, objs, n);
}

/* Frees from the populate in progress on this thread are recorded. */
static inline int
sheaf_shared_populating(const struct sheaf_pool *sp)
{
	return __atomic_load_n(&sp->populating, __ATOMIC_RELAXED) != NULL &&
		sp->populate_tid == rte_gettid();
}

int
sheaf_pool_get_other(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void **objs, unsigned int n)
{
	int ret = sheaf_pool_get_route(sp, lc, objs, n);

	if (ret == 0 && unlikely(sheaf_validate_on(sp)))
		sheaf_validate_take(sp, objs, n);
	return ret;
}

int
sheaf_pool_put_other(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void * const *objs, unsigned int n)
{
	void *ok[SHEAF_VALIDATE_BATCH];
	unsigned int done, t, k, bad = 0;

	if (likely(!sheaf_validate_on(sp)) || sheaf_shared_populating(sp)) {
		sheaf_pool_put_route(sp, lc, objs, n);
		return 0;
	}
	for (done = 0; done < n; done += t) {
		t = RTE_MIN(n - done, (unsigned int)SHEAF_VALIDATE_BATCH);
		k = sheaf_validate_put(sp, objs + done, t, ok);
		bad += t - k;
		if (k != 0)
			sheaf_pool_put_route(sp, lc, ok, k);
	}
	if (bad == 0)
		return 0;
	/* Relaxed: a statistic. */
	__atomic_fetch_add(&sp->shared_stat[RTE_SHEAF_STAT_FREE_INVALID], bad,
		__ATOMIC_RELAXED);
	rte_errno = EINVAL;
	return -EINVAL;
}

/*
 * A failed dequeue must leave the caller's table as it was: DPDK's cache
 * refill dequeues into its own object array and, on failure, keeps using
 * the entries there. Slow paths copy objects out as they find them, so
 * they save what they overwrite and put it back if they fail.
 */
#define SHEAF_UNDO_STACK 512 /* entries saved on the stack; more: malloc */

struct sheaf_undo {
	void **saved;
	void *stack[SHEAF_UNDO_STACK];
};

static inline int
sheaf_undo_init(struct sheaf_undo *u, const struct sheaf_pool *sp,
	unsigned int n)
{
	/* More than the pool holds can never succeed (a caller's negative
	 * count, say): fail before touching anything.
	 */
	if (unlikely(n > sp->mp->size))
		return -ENOBUFS;
	u->saved = n <= SHEAF_UNDO_STACK ? u->stack :
		malloc(n * sizeof(void *));
	return u->saved != NULL ? 0 : -ENOMEM;
}

/* Save objs[from, from + t) before they are overwritten. */
static inline void
sheaf_undo_save(struct sheaf_undo *u, void * const *objs, unsigned int from,
	unsigned int t)
{
	memcpy(&u->saved[from], &objs[from], t * sizeof(void *));
}

static inline void
sheaf_undo_restore(const struct sheaf_undo *u, void **objs, unsigned int n)
{
	memcpy(objs, u->saved, n * sizeof(void *));
}

static inline void
sheaf_undo_fini(struct sheaf_undo *u)
{
	if (u->saved != u->stack)
		free(u->saved);
}

/* Move the stash out before freeing it: a handler may refill it. */
static unsigned int
sheaf_lcore_take_stash(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void **tmp)
{
	unsigned int k = lc->nb_stash;

	memcpy(tmp, sheaf_stash_of(sp, lc), k * sizeof(void *));
	rte_compiler_barrier();
	lc->nb_stash = 0;
	return k;
}

void
sheaf_depot_enter(struct sheaf_lcore *lc)
{
	sheaf_busy_set(lc, SHEAF_BUSY_DEPOT);
}

/*
 * Leave a depot window. Frees that a signal handler parked in the stash
 * meanwhile go to the slabs now, so the stash is empty again before the
 * next window and rarely overflows.
 */
void
sheaf_depot_leave(struct sheaf_pool *sp, struct sheaf_lcore *lc)
{
	void *tmp[SHEAF_STASH_OBJS];
	unsigned int k, bad = 0;

	if (lc == NULL)
		return;
	sheaf_busy_clear(lc, SHEAF_BUSY_DEPOT);
	while (lc->nb_stash != 0) {
		k = sheaf_lcore_take_stash(sp, lc, tmp);
		sheaf_busy_set(lc, SHEAF_BUSY_DEPOT);
		bad += sheaf_slab_free_bulk(sp, tmp, k);
		sheaf_busy_clear(lc, SHEAF_BUSY_DEPOT);
	}
	if (bad != 0)
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_INVALID, bad);
}

/* Free objects to the slabs from the owner, under the depot mark. */
static void
sheaf_lcore_slab_free(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void * const *objs, unsigned int n)
{
	unsigned int bad;

	sheaf_depot_enter(lc);
	bad = sheaf_slab_free_bulk(sp, objs, n);
	sheaf_depot_leave(sp, lc);
	lc->stat[RTE_SHEAF_STAT_FREE_INVALID] += bad;
}

unsigned int
sheaf_lcore_flush(struct sheaf_pool *sp, struct sheaf_lcore *lc)
{
	void *tmp[SHEAF_STASH_OBJS];
	unsigned int k, n;

	k = sheaf_lcore_take_stash(sp, lc, tmp);
	lc->main->size = lc->msize;
	n = lc->main->size + lc->spare->size + k;
	sheaf_lcore_slab_free(sp, lc, lc->main->objs, lc->main->size);
	lc->main->size = 0;
	lc->msize = 0;
	sheaf_lcore_slab_free(sp, lc, lc->spare->objs, lc->spare->size);
	lc->spare->size = 0;
	sheaf_lcore_slab_free(sp, lc, tmp, k);
	lc->stat[RTE_SHEAF_STAT_FLUSH_OTHER] += n;
	/* Deferred objects are not safe yet: stamped and queued, not freed. */
	sheaf_deferred_flush_lcore(sp, lc);
	return n;
}

/* Requests the owner honours at its slow paths. */
static void
sheaf_lcore_service(struct sheaf_pool *sp, struct sheaf_lcore *lc)
{
	/* Acquire pairs with the requester's release store. */
	if (unlikely(__atomic_load_n(&lc->flush_req, __ATOMIC_ACQUIRE))) {
		sheaf_lcore_flush(sp, lc);
		/* Release: a requester seeing 0 sees the sheaves emptied. */
		__atomic_store_n(&lc->flush_req, 0, __ATOMIC_RELEASE);
	} else if (unlikely(lc->nb_stash != 0)) {
		sheaf_depot_enter(lc);
		sheaf_depot_leave(sp, lc);
	}
}

/*
 * How many sheaves to trade at once. One, as SLUB does, leaves the lcore
 * half way (one sheaf full, one empty), so a workload that alternates
 * gets and puts is not sent straight back to the barn. Two, when the
 * lcore traded the same way last time (a pipeline's producer or
 * consumer), halves the ring operations per object of a one-way flow.
 */
static inline unsigned int
sheaf_lcore_trade_count(struct sheaf_lcore *lc, uint32_t dir, int spare_ok)
{
	unsigned int k = spare_ok && lc->last_trade == dir ? 2 : 1;

	lc->last_trade = dir;
	return k;
}

/*
 * Trade with barn b in direction dir: the lcore's empty sheaves for full
 * ones (SHEAF_TRADE_GET) or its full sheaves for empty ones
 * (SHEAF_TRADE_PUT); main, and the spare too when it is in the same state
 * and the flow is one-way. Returns the count traded; main then holds
 * what the barn gave.
 */
static unsigned int
sheaf_lcore_trade(struct sheaf_pool *sp, struct sheaf_lcore *lc, uint32_t b,
	uint32_t dir)
{
	struct sheaf *give[2] = { lc->main, lc->spare }, *got[2];
	uint32_t spare_same = dir == SHEAF_TRADE_GET ? 0 : lc->spare->capacity;
	unsigned int k = sheaf_lcore_trade_count(lc, dir,
		lc->spare->size == spare_same), g;

	sheaf_busy_set(lc, SHEAF_BUSY_BARN);
	if (dir == SHEAF_TRADE_GET)
		g = sheaf_barn_replace_empty(sp, b, give, k, got);
	else
		g = sheaf_barn_replace_full(sp, b, give, k, got);
	sheaf_busy_clear(lc, SHEAF_BUSY_BARN);
	if (g >= 1)
		lc->main = got[0];
	if (g == 2)
		lc->spare = got[1];
	return g;
}

/* Give main objects, cheapest rung first. Returns 0 when none are left. */
static unsigned int
sheaf_lcore_refill_main(struct sheaf_pool *sp, struct sheaf_lcore *lc)
{
	struct sheaf *m = lc->main;
	unsigned int g;
	uint32_t i;

	if (lc->spare->size != 0) {
		lc->main = lc->spare;
		lc->spare = m;
		lc->stat[RTE_SHEAF_STAT_SWAP]++;
		return lc->main->size;
	}
	/* An expired deferred sheaf comes in whole (SLUB: rcu_free_sheaf()). */
	g = sheaf_deferred_refill(sp, lc);
	if (g != 0)
		return g;
	g = sheaf_lcore_trade(sp, lc, lc->barn, SHEAF_TRADE_GET);
	if (g != 0) {
		lc->stat[RTE_SHEAF_STAT_BARN_GET] += g;
		return lc->main->size;
	}
	lc->stat[RTE_SHEAF_STAT_BARN_GET_FAIL]++;

	sheaf_depot_enter(lc);
	m->size = sheaf_slab_alloc_bulk(sp, lc->barn, m->objs, m->capacity);
	sheaf_depot_leave(sp, lc);
	if (m->size != 0) {
		lc->stat[RTE_SHEAF_STAT_REFILL] += m->size;
		return m->size;
	}

	/* Last resort, off-socket: full sheaves in other barns. */
	for (i = 1; i < sp->nb_barns; i++) {
		g = sheaf_lcore_trade(sp, lc,
			(lc->barn + i) % sp->nb_barns, SHEAF_TRADE_GET);
		if (g != 0) {
			lc->stat[RTE_SHEAF_STAT_BARN_GET] += g;
			return lc->main->size;
		}
	}
	return 0;
}

/* Make room in a full main, cheapest rung first. */
static void
sheaf_lcore_spill_main(struct sheaf_pool *sp, struct sheaf_lcore *lc)
{
	struct sheaf *m = lc->main;
	unsigned int g;

	if (lc->spare->size == 0) {
		lc->main = lc->spare;
		lc->spare = m;
		lc->stat[RTE_SHEAF_STAT_SWAP]++;
		return;
	}
	g = sheaf_lcore_trade(sp, lc, lc->barn, SHEAF_TRADE_PUT);
	if (g != 0) {
		lc->stat[RTE_SHEAF_STAT_BARN_PUT] += g;
		return;
	}
	lc->stat[RTE_SHEAF_STAT_BARN_PUT_FAIL]++;
	lc->stat[RTE_SHEAF_STAT_FLUSH_MAIN] += m->size;
	sheaf_lcore_slab_free(sp, lc, m->objs, m->size);
	m->size = 0;
}

static void
sheaf_lcore_put_ladder(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void * const *objs, unsigned int n)
{
	unsigned int done = 0, t;
	struct sheaf *m;

	for (;;) {
		m = lc->main;
		t = RTE_MIN(m->capacity - m->size, n - done);
		memcpy(&m->objs[m->size], objs + done, t * sizeof(void *));
		m->size += t;
		done += t;
		if (done == n)
			return;
		sheaf_lcore_spill_main(sp, lc);
	}
}

void
sheaf_lcore_put_slow(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void * const *objs, unsigned int n)
{
	lc->main->size = lc->msize;
	sheaf_lcore_service(sp, lc);
	sheaf_lcore_put_ladder(sp, lc, objs, n);
	lc->msize = lc->main->size;
	lc->stat[RTE_SHEAF_STAT_FREE_SLOW] += n;
}

int
sheaf_lcore_get_slow(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void **objs, unsigned int n)
{
	unsigned int got = 0, t;
	struct sheaf_undo undo;
	int stolen = 0;
	struct sheaf *m;

	if (sheaf_undo_init(&undo, sp, n) < 0) {
		lc->stat[RTE_SHEAF_STAT_ALLOC_FAIL]++;
		return -ENOBUFS;
	}
	lc->main->size = lc->msize;
	sheaf_lcore_service(sp, lc);
retry:
	do {
		m = lc->main;
		t = RTE_MIN(m->size, n - got);
		m->size -= t;
		sheaf_undo_save(&undo, objs, got, t);
		memcpy(objs + got, &m->objs[m->size], t * sizeof(void *));
		got += t;
		if (got == n) {
			lc->msize = lc->main->size;
			lc->stat[RTE_SHEAF_STAT_ALLOC_SLOW] += n;
			sheaf_undo_fini(&undo);
			return 0;
		}
	} while (sheaf_lcore_refill_main(sp, lc) != 0);

	/*
	 * Objects stranded on idle lcores: take them back, try once more,
	 * even if the take-back found none: an owner it waited for may have
	 * sent its sheaves to the barn or the slabs meanwhile.
	 */
	if (!stolen) {
		sheaf_lcore_steal(sp, lc);
		stolen = 1;
		goto retry;
	}

	/* All or nothing: what was taken goes back, the table is restored. */
	sheaf_lcore_put_ladder(sp, lc, objs, got);
	lc->msize = lc->main->size;
	sheaf_undo_restore(&undo, objs, got);
	sheaf_undo_fini(&undo);
	lc->stat[RTE_SHEAF_STAT_ALLOC_FAIL]++;
	return -ENOBUFS;
}

/* Home barn of a thread without a slot: its socket, if it has one. */
static uint32_t
sheaf_shared_home(const struct sheaf_pool *sp, const struct sheaf_lcore *lc)
{
	unsigned int socket;

	if (lc != NULL)
		return lc->barn;
	socket = rte_socket_id();
	return socket < sp->nb_barns ? socket : 0;
}

unsigned int
sheaf_barns_take(struct sheaf_pool *sp, struct sheaf_lcore *lc, uint32_t home,
	void **objs, unsigned int n)
{
	unsigned int got = 0, t;
	uint32_t i, b;
	struct sheaf *s;

	for (i = 0; i < sp->nb_barns && got < n; i++) {
		b = (home + i) % sp->nb_barns;
		while (got < n) {
			sheaf_busy_set(lc, SHEAF_BUSY_BARN);
			s = sheaf_barn_get_full(sp, b);
			sheaf_busy_clear(lc, SHEAF_BUSY_BARN);
			if (s == NULL)
				break;
			t = RTE_MIN(s->size, n - got);
			s->size -= t;
			memcpy(objs + got, &s->objs[s->size], t * sizeof(void *));
			got += t;
			sheaf_busy_set(lc, SHEAF_BUSY_BARN);
			if (s->size != 0)
				sheaf_barn_put_full(sp, b, s);
			else
				sheaf_barn_put_empty(sp, b, s);
			sheaf_busy_clear(lc, SHEAF_BUSY_BARN);
		}
	}
	return got;
}

/*
 * What the shared path may take for a call in state busy: the slabs,
 * then the barns' full sheaves (not those tiers the call interrupted).
 */
static unsigned int
sheaf_shared_take(struct sheaf_pool *sp, uint32_t busy, uint32_t home,
	void **objs, unsigned int n)
{
	unsigned int got = 0;

	if (!(busy & SHEAF_BUSY_DEPOT))
		got = sheaf_slab_alloc_bulk(sp, home, objs, n);
	if (got < n && !(busy & SHEAF_BUSY_BARN))
		got += sheaf_barns_take(sp, NULL, home, objs + got, n - got);
	return got;
}

/* A populating lcore is not re-entered; its frees just skip its sheaves. */
static inline int
sheaf_shared_is_reentry(const struct sheaf_lcore *lc)
{
	return lc != NULL && lc->busy != SHEAF_BUSY_POPULATE;
}

int
sheaf_shared_get(struct sheaf_pool *sp, struct sheaf_lcore *lc, void **objs,
	unsigned int n)
{
	uint32_t busy = lc != NULL ? lc->busy : 0;
	uint32_t home = sheaf_shared_home(sp, lc);
	struct sheaf_undo undo;
	unsigned int got = 0;

	if (sheaf_shared_is_reentry(lc))
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_REENTRANT, 1);
	if (sheaf_undo_init(&undo, sp, n) < 0) {
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_ALLOC_FAIL, 1);
		return -ENOBUFS;
	}
	sheaf_undo_save(&undo, objs, 0, n);
	/* Not re-entered: expired deferred sheaves join the barns first. */
	if (busy == 0)
		sheaf_deferred_reclaim_self(sp, true);
	got = sheaf_shared_take(sp, busy, home, objs, n);
	/* Not from a signal handler: a thief takes the depot lock. */
	if (got < n && busy == 0) {
		sheaf_lcore_steal(sp, lc);
		got += sheaf_shared_take(sp, busy, home, objs + got, n - got);
	}
	if (got == n) {
		sheaf_undo_fini(&undo);
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_ALLOC_SLOW, n);
		return 0;
	}
	sheaf_shared_put(sp, lc, objs, got);
	sheaf_undo_restore(&undo, objs, got);
	sheaf_undo_fini(&undo);
	sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_ALLOC_FAIL, 1);
	return -ENOBUFS;
}

/*
 * A free re-entered under this lcore's depot lock: the slabs are out of
 * reach. Park in the stash, then in empty barn sheaves; with neither,
 * wait for another lcore to return an empty sheaf to the barn.
 */
static void
sheaf_shared_park(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void * const *objs, unsigned int n)
{
	struct sheaf *e;
	unsigned int t;

	while (n > 0) {
		t = RTE_MIN(SHEAF_STASH_OBJS - lc->nb_stash, n);
		if (t != 0) {
			memcpy(&sheaf_stash_of(sp, lc)[lc->nb_stash], objs, t * sizeof(void *));
			lc->nb_stash += t;
		} else {
			e = sheaf_barn_get_empty(sp, lc->barn);
			if (e == NULL) {
				rte_pause();
				continue;
			}
			t = RTE_MIN(e->capacity, n);
			memcpy(e->objs, objs, t * sizeof(void *));
			e->size = t;
			sheaf_barn_put_full(sp, lc->barn, e);
		}
		objs += t;
		n -= t;
	}
}

void
sheaf_shared_put(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void * const *objs, unsigned int n)
{
	unsigned int bad;

	if (unlikely(sheaf_shared_populating(sp))) {
		sheaf_slab_record(sp, objs, n);
		return;
	}
	if (sheaf_shared_is_reentry(lc))
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_REENTRANT, 1);
	if (lc != NULL && (lc->busy & SHEAF_BUSY_DEPOT)) {
		sheaf_shared_park(sp, lc, objs, n);
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_SLOW, n);
		return;
	}
	bad = sheaf_slab_free_bulk(sp, objs, n);
	sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_SLOW, n - bad);
	if (bad != 0)
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_INVALID, bad);
}

/*
 * Stealing, the counterpart of SLUB flushing every CPU's sheaves when an
 * allocation fails: here the owner may be polling outside the pool and
 * never reach a slow path, so the thief empties its sheaves itself, while
 * the owner is provably outside. An asymmetric Dekker handshake:
 *   owner: busy = 1; compiler barrier; if (steal) back off;
 *   thief: steal = 1; membarrier(); if (busy == 0) take the sheaves.
 * membarrier() runs a full barrier on every CPU running a thread of a
 * registered process, so either the owner's store of busy is visible to
 * the thief, or the owner's later load sees steal and stays off its
 * sheaves (using the shared path) until the thief releases the mark. The
 * owner's fast path pays one load on a line it already holds.
 * Processes register in sheaf_steal_register(); where membarrier() is not
 * available, lcores are not stolen from.
 */
static int sheaf_steal_ok; /* process-local: membarrier registered */

RTE_INIT(sheaf_steal_register)
{
	sheaf_steal_ok = syscall(__NR_membarrier,
		MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0;
}

int
sheaf_lcore_fence(void)
{
	if (!sheaf_steal_ok ||
			syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED,
				0, 0) != 0)
		return -ENOTSUP;
	return 0;
}

/* Whether v belongs to a process that no longer exists. */
static int
sheaf_lcore_owner_dead(const struct sheaf_lcore *v)
{
	uint32_t owner = __atomic_load_n(&v->owner, __ATOMIC_RELAXED);

	return owner != 0 && owner != sheaf_proc_id &&
		kill((pid_t)owner, 0) != 0 && errno == ESRCH;
}

/*
 * Empty slot v into the slabs, for a caller that holds its steal mark with
 * its owner out of the pool (or dead); the deferred sheaf stays (those
 * objects are not safe yet). A dead owner's slot is freed for the next
 * process with that lcore id. Returns the objects moved.
 */
static unsigned int
sheaf_lcore_empty(struct sheaf_pool *sp, struct sheaf_lcore *v, int dead)
{
	unsigned int bad, n;

	bad = sheaf_slab_free_bulk(sp, v->main->objs, v->msize);
	bad += sheaf_slab_free_bulk(sp, v->spare->objs, v->spare->size);
	bad += sheaf_slab_free_bulk(sp, sheaf_stash_of(sp, v), v->nb_stash);
	n = v->msize + v->spare->size + v->nb_stash - bad;
	v->msize = 0;
	v->main->size = 0;
	v->spare->size = 0;
	v->nb_stash = 0;
	if (dead) {
		v->busy = 0;
		__atomic_store_n(&v->owner, 0, __ATOMIC_RELEASE);
	}
	return n;
}

/*
 * Process-local: when a call on each lcore id, finding its slot owned by
 * another process, may next look whether that process is gone.
 */
static uint64_t sheaf_dead_check_after[RTE_MAX_LCORE];

/*
 * A slot owned by a process that exited (normally: nothing hands slots
 * back at exit, EAL has unmapped the pool by then) or died: empty it into
 * the slabs and claim it, so that the next process on this lcore id gets
 * sheaves rather than the shared path for good. At most one look per
 * lcore id every 1/SHEAF_DEAD_CHECK_DIV s: a kill() each time is not free.
 * Returns 1 when lc is now the caller's.
 */
static int
sheaf_lcore_take_dead(struct sheaf_pool *sp, struct sheaf_lcore *lc)
{
	unsigned int id = lc - sp->lcore, n = 0;
	uint64_t now = rte_get_tsc_cycles();
	uint32_t none = 0;

	if (now < __atomic_load_n(&sheaf_dead_check_after[id], __ATOMIC_RELAXED))
		return 0;
	__atomic_store_n(&sheaf_dead_check_after[id],
		now + rte_get_tsc_hz() / SHEAF_DEAD_CHECK_DIV, __ATOMIC_RELAXED);
	if (!sheaf_lcore_owner_dead(lc))
		return 0;
	/* The steal mark keeps thieves off while the slot changes hands. */
	if (!sheaf_lcore_mark(lc))
		return 0;
	if (sheaf_lcore_owner_dead(lc))
		n = sheaf_lcore_empty(sp, lc, 1);
	sheaf_lcore_unmark(lc);
	if (n != 0)
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_STEAL, n);
	return __atomic_compare_exchange_n(&lc->owner, &none, sheaf_proc_id,
		0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/*
 * After the thief's membarrier(): wait for the live owners caught inside a
 * call (an owner freeing while another lcore runs dry is the common case;
 * a fast path lasts nanoseconds, but the owner may be preempted there).
 * Those still inside after 1/SHEAF_STEAL_WAIT_DIV s, or all still inside
 * once another thief has marked the caller's own slot lc (two thieves
 * waiting on each other), are cleared from marked, their marks released.
 */
static void
sheaf_steal_wait(struct sheaf_pool *sp, const struct sheaf_lcore *lc,
	struct sheaf_lcore_set *marked, const struct sheaf_lcore_set *dead,
	uint64_t start)
{
	uint64_t end = start + rte_get_tsc_hz() / SHEAF_STEAL_WAIT_DIV;
	unsigned int i, left;
	int give_up;

	do {
		left = 0;
		give_up = rte_get_tsc_cycles() >= end || (lc != NULL &&
			__atomic_load_n(&lc->steal, __ATOMIC_RELAXED) != 0);
		for (i = 0; i < RTE_MAX_LCORE; i++) {
			if (!sheaf_lcore_set_has(marked, i) ||
					sheaf_lcore_set_has(dead, i) ||
					__atomic_load_n(&sp->lcore[i].busy,
						__ATOMIC_RELAXED) == 0)
				continue;
			if (!give_up) {
				left++;
				continue;
			}
			sheaf_lcore_set_del(marked, i);
			sheaf_lcore_unmark(&sp->lcore[i]);
		}
		if (left != 0)
			rte_pause();
	} while (left != 0);
}

void
sheaf_lcore_unmark_set(struct sheaf_pool *sp,
	const struct sheaf_lcore_set *marked)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++)
		if (sheaf_lcore_set_has(marked, i))
			sheaf_lcore_unmark(&sp->lcore[i]);
}

void
sheaf_lcore_steal(struct sheaf_pool *sp, struct sheaf_lcore *lc)
{
	struct sheaf_lcore_set marked = { { 0 } }, dead = { { 0 } };
	unsigned int i, n = 0, nb = 0;
	uint64_t now;

	if (!sheaf_steal_ok)
		return;
	/*
	 * Back-off: an attempt that took nothing (owners busy) cost a
	 * membarrier() for nothing; a pool running dry would pay it on every
	 * failed allocation. Relaxed: a racing thief at worst tries once more.
	 */
	now = rte_get_tsc_cycles();
	if (now < __atomic_load_n(&sp->steal_after, __ATOMIC_RELAXED))
		return;
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct sheaf_lcore *v = &sp->lcore[i];

		if (v == lc || !sheaf_lcore_holds(v) || !sheaf_lcore_mark(v))
			continue;
		sheaf_lcore_set_add(&marked, i);
		if (sheaf_lcore_owner_dead(v))
			sheaf_lcore_set_add(&dead, i);
		nb++;
	}
	if (nb == 0)
		return;
	if (sheaf_lcore_fence() != 0)
		goto release;
	/*
	 * Wait, not holding any lock, for owners caught inside a call: theirs
	 * started before the membarrier(), every later one sees the mark, so
	 * busy seen 0 once means the slot is ours until the mark goes.
	 */
	sheaf_steal_wait(sp, lc, &marked, &dead, now);
	sheaf_depot_enter(lc);
	/*
	 * The owners are outside and stay out: their slots are ours. A dead
	 * owner's slot is taken even if it died inside a call: its sheaves
	 * are whole but for the objects of that call, which died with it
	 * (sheaf_steal_wait() kept its mark).
	 */
	for (i = 0; i < RTE_MAX_LCORE; i++)
		if (sheaf_lcore_set_has(&marked, i))
			n += sheaf_lcore_empty(sp, &sp->lcore[i],
				sheaf_lcore_set_has(&dead, i));
	sheaf_depot_leave(sp, lc);
	sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_STEAL, n);
release:
	sheaf_lcore_unmark_set(sp, &marked);
	if (n == 0)
		__atomic_store_n(&sp->steal_after, now + rte_get_tsc_hz() /
			SHEAF_STEAL_BACKOFF_DIV, __ATOMIC_RELAXED);
}

uint32_t
sheaf_lcore_count(const struct sheaf_pool *sp, uint32_t *nb_lcores)
{
	uint32_t i, n = 0, nl = 0;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct sheaf_lcore *lc = &sp->lcore[i];
		const struct sheaf *s;
		uint32_t v;

		/* Racy, not critical: a swap in flight may count a sheaf
		 * twice or not at all; exact when the pool is quiet.
		 */
		s = __atomic_load_n(&lc->spare, __ATOMIC_RELAXED);
		v = __atomic_load_n(&lc->msize, __ATOMIC_RELAXED) +
			__atomic_load_n(&s->size, __ATOMIC_RELAXED) +
			__atomic_load_n(&lc->nb_stash, __ATOMIC_RELAXED);
		if (v != 0)
			nl++;
		n += v;
	}
	if (nb_lcores != NULL)
		*nb_lcores = nl;
	return n;
}
