/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Deferred free under RCU: SLUB's rcu_free sheaf (kfree_rcu() batching),
 * on DPDK's QSBR instead of call_rcu().
 *
 * Each lcore collects its deferred frees in its own deferred sheaf, with
 * no lock and no atomic. A full sheaf is stamped with one token of
 * rte_rcu_qsbr_start() and pushed on its socket's FIFO, in one barn
 * transaction. Reclaim looks at the FIFO's head only: once
 * rte_rcu_qsbr_check() (non-blocking) says every reader has passed the
 * token, the whole sheaf goes back into circulation, as a full sheaf in
 * the barn or straight in as the main sheaf of an lcore that is
 * refilling. One token and one check per sheaf, no copy of objects.
 *
 * Where SLUB allocates a new rcu_free sheaf, the arena here is fixed: an
 * empty sheaf comes from the barn, else a full barn sheaf has its objects
 * sent to the slabs (in transit meanwhile, sheaf_barn.h). With neither,
 * objects are queued one by one with their token on their depot's
 * fallback queue: nothing blocks, nothing is lost.
 *
 * Callers without a slot, and signal handlers, share one deferred sheaf
 * per socket, under the barn's lock; a handler whose thread holds that
 * lock uses the fallback, under the depot's.
 *
 * Deferred objects are in use for get_count until they are reclaimed.
 */

#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "sheaf_ask.h"
#include "sheaf_barn.h"
#include "sheaf_deferred.h"
#include "sheaf_pair.h"
#include "sheaf_slab.h"
#include "sheaf_slot.h"

/* Expired sheaves moved per barn transaction: bounds the lock hold. */
#define SHEAF_RCU_BATCH 32

/* The deferred state word of a slot. */
static inline uint32_t
sheaf_ds_idx(uint32_t ds)
{
	return ds >> SHEAF_SIZE_BITS;
}

static inline uint32_t
sheaf_ds_size(uint32_t ds)
{
	return ds & ((1u << SHEAF_SIZE_BITS) - 1);
}

static inline uint32_t
sheaf_ds_make(uint32_t idx, uint32_t size)
{
	return idx << SHEAF_SIZE_BITS | size;
}

#define SHEAF_DS_NONE (SHEAF_NONE << SHEAF_SIZE_BITS)

/* Stamp arena sheaf idx (size set) and push it on barn b's FIFO. */
static void
sheaf_rcu_fifo_push(struct sheaf_tx *tx, uint32_t b, uint32_t idx)
{
	struct sheaf_pool *sp = tx->sp;
	struct sheaf_barn *barn = &sp->barn[b];
	struct sheaf_rcu_entry *e;
	uint64_t token;

	RTE_ASSERT(barn->fifo_count < sp->nb_sheaves);
	e = &barn->fifo[(barn->fifo_head + barn->fifo_count) % sp->nb_sheaves];
	/*
	 * rte_rcu_qsbr_start() is a release: the unlinks of the sheaf's
	 * objects, made before they were freed, are visible to any reader
	 * that has seen the new token, that is, that has reported it.
	 * Tokens taken under the lock grow from head to tail.
	 */
	token = rte_rcu_qsbr_start(sp->qsbr);
	sheaf_tx_store32(tx, &e->sheaf, idx);
	sheaf_tx_store64(tx, &e->token, token);
	sheaf_tx_store32(tx, &barn->fifo_count, barn->fifo_count + 1);
	sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_DEFERRED_STAMP, 1);
}

/*
 * Whether the grace period of token t is over (non-blocking). When
 * rte_rcu_qsbr_check() reads the readers' counters, its acquire loads
 * pair with their releases (rte_rcu_qsbr_quiescent()): their last
 * accesses to the objects happen before our reuse. It may instead answer
 * from acked_token, a load (plain in DPDK 22.11 and 23.11, relaxed from
 * 24.11) of what another checker stored, relaxed, after its own acquire
 * loads (22.11 to 26.07): the fence
 * below keeps our reuse after that load, but with no release on DPDK's
 * store the C11 chain to the readers is not complete there; a gap of
 * DPDK's check, written in doc/design.md, which we cannot close without
 * reading its readers' counters ourselves.
 */
static inline bool
sheaf_rcu_expired(struct rte_rcu_qsbr *v, uint64_t t)
{
	if (rte_rcu_qsbr_check(v, t, false) != 1)
		return false;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return true;
}

/* Pop barn b's FIFO head if its grace period is over, else SHEAF_NONE. */
static uint32_t
sheaf_rcu_fifo_pop(struct sheaf_tx *tx, uint32_t b)
{
	struct sheaf_pool *sp = tx->sp;
	struct sheaf_barn *barn = &sp->barn[b];
	const struct sheaf_rcu_entry *e = &barn->fifo[barn->fifo_head];

	if (barn->fifo_count == 0 || !sheaf_rcu_expired(sp->qsbr, e->token))
		return SHEAF_NONE;
	sheaf_tx_store32(tx, &barn->fifo_head,
		(barn->fifo_head + 1) % sp->nb_sheaves);
	sheaf_tx_store32(tx, &barn->fifo_count, barn->fifo_count - 1);
	return e->sheaf;
}

/*
 * Queue a run of depot d's objects on its fallback queue under one token.
 * Returns the objects refused: the queue was full.
 */
static unsigned int
sheaf_rcu_fallback_run(struct sheaf_pool *sp, uint32_t d, void * const *objs,
	unsigned int n, void *arg)
{
	struct sheaf_depot *dp = &sp->depot[d];
	unsigned int i, *queued = arg;
	struct sheaf_tx tx;
	uint64_t token;

	/* Not from a signal handler: this waits, and cannot fail. */
	RTE_VERIFY(sheaf_depot_begin(&tx, sp, d, SHEAF_TX_fallback, false) == 0);
	/* A release, after the objects' unlinks: see sheaf_rcu_fifo_push(). */
	token = rte_rcu_qsbr_start(sp->qsbr);
	for (i = 0; i < n && dp->fb_count + i < dp->fb_size; i++) {
		struct sheaf_rcu_obj *e =
			&dp->fb[(dp->fb_head + dp->fb_count + i) % dp->fb_size];

		sheaf_tx_storep(&tx, &e->obj, objs[i]);
		sheaf_tx_store64(&tx, &e->token, token);
	}
	sheaf_tx_store32(&tx, &dp->fb_count, dp->fb_count + i);
	sheaf_tx_end(&tx);
	*queued += i;
	/* Only more frees than the pool has objects fill it. */
	if (i < n)
		SHEAF_LOG(ERR, "pool %s: %u objects refused, deferred queue full (double free?)",
			sp->mp->name, n - i);
	return n - i;
}

/* The last rung: objects queued one by one, never from a handler. */
static void
sheaf_rcu_fallback(struct sheaf_pool *sp, struct sheaf_slot *lc,
	void * const *objs, unsigned int n)
{
	unsigned int bad, queued = 0;

	bad = sheaf_slab_each_run(sp, objs, n, sheaf_rcu_fallback_run,
		&queued);
	sheaf_stat_add(sp, lc, RTE_SHEAF_STAT_DEFERRED_FALLBACK, queued);
	sheaf_stat_add(sp, lc, RTE_SHEAF_STAT_FREE_INVALID, bad);
}

/*
 * An empty sheaf for lc's deferred sheaf (lc held, its dstate none):
 * barn b's empties, else a full barn sheaf emptied into the slabs. Returns
 * whether lc has one now.
 */
static bool
sheaf_rcu_slot_sheaf(struct sheaf_pool *sp, struct sheaf_slot *lc,
	uint32_t b)
{
	unsigned int bad = 0;
	struct sheaf_tx tx;
	uint32_t i;
	int e;

	if (sheaf_barn_begin(&tx, sp, b, SHEAF_TX_defer_sheaf, false) < 0)
		return false;
	i = sheaf_barn_pop_empty(&tx, b);
	if (i != SHEAF_NONE)
		sheaf_tx_store32(&tx, &lc->dstate, sheaf_ds_make(i, 0));
	sheaf_tx_end(&tx);
	if (i != SHEAF_NONE)
		return true;
	/* A full barn sheaf, its objects sent to the slabs meanwhile. */
	e = sheaf_barn_take_transit(sp, b, &i);
	if (e < 0)
		return false;
	sheaf_barn_transit_flush(sp, sheaf_at(sp, i), &bad);
	sheaf_stat_add(sp, lc, RTE_SHEAF_STAT_FREE_INVALID, bad);
	SHEAF_KILL("defer.transit");
	if (sheaf_at(sp, i)->size != 0) {
		sheaf_barn_return_transit(sp, b, e);
		return false;
	}
	/* Not inside a transaction: this cannot fail. */
	RTE_VERIFY(sheaf_barn_begin(&tx, sp, b, SHEAF_TX_defer_install, false) == 0);
	sheaf_barn_transit_take(&tx, b, e);
	sheaf_tx_store32(&tx, &lc->dstate, sheaf_ds_make(i, 0));
	sheaf_tx_end(&tx);
	return true;
}

unsigned int
sheaf_deferred_stamp(struct sheaf_pool *sp, struct sheaf_slot *v)
{
	struct sheaf_tx tx;
	uint32_t ds;

	if (sheaf_deferred_qsbr(sp) == NULL ||
			sheaf_barn_begin(&tx, sp, v->barn, SHEAF_TX_stamp, false) < 0)
		return 0;
	/*
	 * Read under the lock: the index changes only in transactions on
	 * it, so this is the last committed one's (a dead holder's is
	 * rolled back by now); the holder's single stores change the count.
	 */
	ds = v->dstate;
	if (sheaf_ds_idx(ds) != SHEAF_NONE) {
		sheaf_tx_store32(&tx, &sheaf_at(sp, sheaf_ds_idx(ds))->size,
			sheaf_ds_size(ds));
		sheaf_rcu_fifo_push(&tx, v->barn, sheaf_ds_idx(ds));
		sheaf_tx_store32(&tx, &v->dstate, SHEAF_DS_NONE);
	}
	sheaf_tx_end(&tx);
	return sheaf_ds_idx(ds) != SHEAF_NONE ? sheaf_ds_size(ds) : 0;
}

void
sheaf_deferred_serve_stamp(struct sheaf_pool *sp, struct sheaf_slot *lc,
	bool always)
{
	uint32_t gen;
	bool asked = sheaf_slot_take_request(lc, SHEAF_REQ_STAMP, &gen);

	if (asked || always)
		sheaf_deferred_stamp(sp, lc);
	if (asked)
		sheaf_slot_served(lc, SHEAF_REQ_STAMP, gen);
}

/*
 * t objects onto the slot's deferred sheaf (state ds, a sheaf with room
 * for them): beyond its count, which the store then raises.
 */
static void
sheaf_rcu_slot_append(struct sheaf_pool *sp, struct sheaf_slot *lc,
	uint32_t ds, void * const *objs, unsigned int t)
{
	memcpy(&sheaf_objs_at(sp, sheaf_ds_idx(ds))[sheaf_ds_size(ds)], objs,
		t * sizeof(void *));
	SHEAF_KILL("defer.copy");
	/*
	 * The objects before the count in program order (a signal fence,
	 * as sheaf_pair_commit()): a process that dies between the two
	 * leaves the old count, never one over slots not yet written.
	 * Relaxed: racy counts and the barrier's probe of the index; an
	 * heir is ordered by the slot protocol.
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&lc->dstate, ds + t, __ATOMIC_RELAXED);
}

bool
sheaf_deferred_fast(struct sheaf_pool *sp, struct sheaf_slot *lc,
	void * const *objs, unsigned int n)
{
	uint32_t ds = lc->dstate;

	if (sheaf_ds_idx(ds) == SHEAF_NONE ||
			n >= sp->cfg.capacity - sheaf_ds_size(ds))
		return false;
	sheaf_rcu_slot_append(sp, lc, ds, objs, n);
	return true;
}

/* Deferred frees into the held slot's own sheaf. */
static int
sheaf_rcu_free_slot(struct sheaf_pool *sp, struct sheaf_slot *lc,
	void * const *objs, unsigned int n)
{
	unsigned int done = 0, t, size;
	uint32_t ds;

	while (done < n) {
		ds = lc->dstate;
		if (sheaf_ds_idx(ds) == SHEAF_NONE) {
			if (sheaf_rcu_slot_sheaf(sp, lc, lc->barn))
				continue;
			sheaf_rcu_fallback(sp, lc, objs + done, n - done);
			return 0;
		}
		size = sheaf_ds_size(ds);
		/* Deferred sheaves fill to the least capacity, not the
		 * arena's: a grace period holds no more objects than that. */
		t = RTE_MIN(sp->cfg.capacity - size, n - done);
		sheaf_rcu_slot_append(sp, lc, ds, objs + done, t);
		done += t;
		/*
		 * A stamp of a held slot's sheaf waits for the barn's lock
		 * (its thread holds none) and does not fail; were it to, the
		 * rest would go to the fallback rather than spin here.
		 */
		if (size + t == sp->cfg.capacity &&
				sheaf_deferred_stamp(sp, lc) == 0 && done < n) {
			sheaf_rcu_fallback(sp, lc, objs + done, n - done);
			return 0;
		}
	}
	return 0;
}

/*
 * Journal entries per sheaf that the shared path fills: the empty sheaf
 * popped (1), named shared (1), its size (1), its FIFO entry (3: sheaf,
 * token, count) and shared cleared (1).
 */
#define SHEAF_RCU_SHARED_STORES 7

/*
 * Whether n objects fit, in one transaction, into barn b's shared sheaf
 * and empty sheaves: enough empties, and the journal has room for their
 * stores (the lock held).
 */
static bool
sheaf_rcu_shared_fits(const struct sheaf_tx *tx, uint32_t b, unsigned int n)
{
	const struct sheaf_pool *sp = tx->sp;
	const struct sheaf_barn *barn = &sp->barn[b];
	uint64_t room = 0, cap = sp->cfg.capacity, fresh = 0, sheaves = 0;

	if (barn->shared_def != SHEAF_NONE) {
		room = cap - sheaf_at(sp, barn->shared_def)->size;
		sheaves = 1;
	}
	if (n > room)
		fresh = (n - room + cap - 1) / cap;
	sheaves += fresh;
	return fresh <= barn->nb_empty &&
		sheaves * SHEAF_RCU_SHARED_STORES <= sheaf_tx_room(tx);
}

/*
 * Deferred frees into barn b's shared sheaf, from the front of objs.
 * Returns the objects taken, or -EDEADLK or -EBUSY when the caller's
 * thread holds a lock or, with all, when the barn's lock is busy. One
 * transaction per sheaf stamped: the journal
 * bounds a transaction, n does not. With all (a signal handler, which
 * takes the lock once) one transaction takes all or none: none when the
 * barn's empty sheaves or the journal are too short for n.
 */
static int
sheaf_rcu_free_shared(struct sheaf_pool *sp, uint32_t b, void * const *objs,
	unsigned int n, bool all)
{
	struct sheaf_barn *barn = &sp->barn[b];
	unsigned int t, done = 0;
	struct sheaf_tx tx;
	struct sheaf *s;
	int ret;

	/*
	 * A signal handler (all) only tries the lock: busy, it fails
	 * (until 2026-12-05 it waited when its thread held no lock, and a
	 * dead holder's take-over would have logged from the handler).
	 */
	ret = sheaf_barn_begin(&tx, sp, b, SHEAF_TX_defer_shared, all);
	if (ret < 0)
		return ret;
	if (all && !sheaf_rcu_shared_fits(&tx, b, n))
		n = 0;
	while (done < n) {
		if (barn->shared_def == SHEAF_NONE) {
			uint32_t e = sheaf_barn_pop_empty(&tx, b);

			if (e == SHEAF_NONE)
				break;
			sheaf_tx_store32(&tx, &barn->shared_def, e);
		}
		s = sheaf_at(sp, barn->shared_def);
		t = RTE_MIN(sp->cfg.capacity - s->size, n - done);
		memcpy(&s->objs[s->size], objs + done, t * sizeof(void *));
		sheaf_tx_store32(&tx, &s->size, s->size + t);
		done += t;
		if (s->size != sp->cfg.capacity)
			continue;
		sheaf_rcu_fifo_push(&tx, b, barn->shared_def);
		sheaf_tx_store32(&tx, &barn->shared_def, SHEAF_NONE);
		if (all || done == n)
			continue;
		/* Committed: a death from here on keeps the sheaves stamped. */
		sheaf_tx_end(&tx);
		/* Not from a signal handler (all): this waits, and cannot fail. */
		RTE_VERIFY(sheaf_barn_begin(&tx, sp, b, SHEAF_TX_defer_shared,
			false) == 0);
	}
	sheaf_tx_end(&tx);
	return done;
}

int
sheaf_deferred_free(struct sheaf_pool *sp, struct sheaf_slot *lc,
	void * const *objs, unsigned int n, bool handler)
{
	int k;

	if (lc != NULL)
		return sheaf_rcu_free_slot(sp, lc, objs, n);
	/*
	 * A signal handler waits for no lock (its thread may hold one, and
	 * a take-over would log): one transaction on the shared sheaf takes
	 * them all, or none is freed.
	 */
	k = sheaf_rcu_free_shared(sp, sheaf_home_node(sp), objs, n, handler);
	if (k < 0)
		k = 0;
	if ((unsigned int)k == n)
		return 0;
	if (handler)
		return -EAGAIN;
	sheaf_rcu_fallback(sp, NULL, objs + k, n - k);
	return 0;
}

unsigned int
sheaf_deferred_refill(struct sheaf_pool *sp, struct sheaf_slot *lc)
{
	struct sheaf_barn *barn = &sp->barn[lc->barn];
	struct sheaf_tx tx;
	uint32_t i;

	if (sheaf_deferred_qsbr(sp) == NULL ||
			__atomic_load_n(&barn->fifo_count, __ATOMIC_RELAXED) == 0)
		return 0;
	/* A slow-path hook: a busy lock is skipped. */
	if (sheaf_barn_begin(&tx, sp, lc->barn, SHEAF_TX_defer_refill, true) < 0)
		return 0;
	i = sheaf_rcu_fifo_pop(&tx, lc->barn);
	if (i != SHEAF_NONE)
		sheaf_pair_tx_install(&tx, lc, lc->barn, i);
	sheaf_tx_end(&tx);
	if (i == SHEAF_NONE)
		return 0;
	sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_DEFERRED_RECLAIM,
		sheaf_at(sp, i)->size);
	return sheaf_at(sp, i)->size;
}

/* Expired sheaves of barn b's FIFO to its full stack. */
static unsigned int
sheaf_rcu_reclaim_fifo(struct sheaf_pool *sp, uint32_t b, bool try)
{
	unsigned int k, n = 0;
	struct sheaf_tx tx;
	uint32_t i;

	do {
		/* Racy, not critical: an entry missed now is seen next time. */
		if (__atomic_load_n(&sp->barn[b].fifo_count,
				__ATOMIC_RELAXED) == 0 ||
				sheaf_barn_begin(&tx, sp, b, SHEAF_TX_defer_reclaim,
					try) < 0)
			break;
		for (k = 0; k < SHEAF_RCU_BATCH; k++) {
			i = sheaf_rcu_fifo_pop(&tx, b);
			if (i == SHEAF_NONE)
				break;
			n += sheaf_at(sp, i)->size;
			sheaf_barn_push(&tx, b, i);
		}
		sheaf_tx_end(&tx);
	} while (k == SHEAF_RCU_BATCH);
	return n;
}

/* Expired fallback objects of depot d to its slabs. */
static unsigned int
sheaf_rcu_reclaim_fallback(struct sheaf_pool *sp, uint32_t d, bool try)
{
	struct sheaf_depot *dp = &sp->depot[d];
	void *tmp[SHEAF_TX_OBJS];
	unsigned int k, n = 0, bad = 0;
	struct sheaf_tx tx;

	do {
		if (__atomic_load_n(&dp->fb_count, __ATOMIC_RELAXED) == 0 ||
				sheaf_depot_begin(&tx, sp, d, SHEAF_TX_fallback_reclaim,
					try) < 0)
			break;
		for (k = 0; k < SHEAF_TX_OBJS && k < dp->fb_count; k++) {
			const struct sheaf_rcu_obj *e =
				&dp->fb[(dp->fb_head + k) % dp->fb_size];

			if (!sheaf_rcu_expired(sp->qsbr, e->token))
				break;
			tmp[k] = e->obj;
		}
		if (k != 0) {
			sheaf_tx_store32(&tx, &dp->fb_head,
				(dp->fb_head + k) % dp->fb_size);
			sheaf_tx_store32(&tx, &dp->fb_count, dp->fb_count - k);
			bad += sheaf_depot_put(&tx, d, tmp, k);
		}
		sheaf_tx_end(&tx);
		n += k;
	} while (k == SHEAF_TX_OBJS);
	if (bad != 0)
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_INVALID, bad);
	return n;
}

unsigned int
sheaf_deferred_reclaim(struct sheaf_pool *sp, bool try)
{
	unsigned int n = 0;
	uint32_t b;

	if (sheaf_deferred_qsbr(sp) == NULL)
		return 0;
	for (b = 0; b < sp->nb_nodes; b++) {
		n += sheaf_rcu_reclaim_fifo(sp, b, try);
		n += sheaf_rcu_reclaim_fallback(sp, b, try);
	}
	if (n != 0)
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_DEFERRED_RECLAIM, n);
	return n;
}

/* Stamp and queue every socket's shared deferred sheaf. */
static void
sheaf_rcu_stamp_shared(struct sheaf_pool *sp)
{
	struct sheaf_tx tx;
	uint32_t b;

	for (b = 0; b < sp->nb_nodes; b++) {
		/*
		 * Read under the lock, not before: a shared sheaf seen
		 * stamped by a transaction in progress comes back if a
		 * roll-back undoes it (sheaf_rcu_want_stamps()).
		 */
		if (sheaf_barn_begin(&tx, sp, b, SHEAF_TX_stamp_shared,
				false) < 0)
			continue;
		if (sp->barn[b].shared_def != SHEAF_NONE) {
			sheaf_rcu_fifo_push(&tx, b, sp->barn[b].shared_def);
			sheaf_tx_store32(&tx, &sp->barn[b].shared_def,
				SHEAF_NONE);
		}
		sheaf_tx_end(&tx);
	}
}

/*
 * Whether the head of barn b's FIFO (fallback false) or of depot b's
 * fallback queue (true) was stamped at or before token t, read under
 * the queue's lock (a settle: nothing stored): read without it, a head
 * index gone stale while the queue wrapped around would name a newer
 * entry, and the barrier would return with an older one still queued.
 * Tokens are taken under the lock: they grow from head to tail, and the
 * head tells. A count read zero (relaxed) is not locked for: see
 * sheaf_rcu_pending_upto().
 */
static bool
sheaf_rcu_head_upto(struct sheaf_pool *sp, uint32_t b, bool fallback,
	uint64_t t)
{
	const struct sheaf_barn *barn = &sp->barn[b];
	const struct sheaf_depot *dp = &sp->depot[b];
	struct sheaf_tx tx;
	bool upto;

	/*
	 * Each count is read under its lock, never relaxed alone: a count
	 * read 0 may be a dead process's reclaim that popped the queue
	 * and did not commit; blocking on the lock rolls it back (its
	 * entries are queued again). Locks the barrier takes only.
	 */
	if (!fallback) {
		if (sheaf_barn_begin(&tx, sp, b, SHEAF_TX_settle, false) < 0)
			return true;
		upto = barn->fifo_count != 0 &&
			barn->fifo[barn->fifo_head].token <= t;
	} else {
		if (sheaf_depot_begin(&tx, sp, b, SHEAF_TX_settle, false) < 0)
			return true;
		upto = dp->fb_count != 0 && dp->fb[dp->fb_head].token <= t;
	}
	sheaf_tx_end(&tx);
	return upto;
}

/* Whether anything stamped at or before token t is still queued. */
static bool
sheaf_rcu_pending_upto(struct sheaf_pool *sp, uint64_t t)
{
	uint32_t b;

	/*
	 * Each queue's count and head are read under its lock (above):
	 * the lock's acquire pairs with the release that ended the last
	 * transaction on it, so a stamp acknowledged to the barrier (its
	 * acquire of done: the stamp's lock released before) is there to
	 * read, and a dead holder's uncommitted pop is rolled back first.
	 */
	for (b = 0; b < sp->nb_nodes; b++)
		if (sheaf_rcu_head_upto(sp, b, false, t) ||
				sheaf_rcu_head_upto(sp, b, true, t))
			return true;
	return false;
}

static unsigned int
sheaf_rcu_act_stamp(struct sheaf_pool *sp, struct sheaf_slot *v,
	void *arg __rte_unused)
{
	return sheaf_deferred_stamp(sp, v);
}

/*
 * The slots holding a deferred sheaf, self (held and stamped by the
 * caller) left out, from committed state only. A slot's dstate index
 * changes only inside transactions on its barn's lock (a sheaf given in
 * sheaf_rcu_slot_sheaf(), cleared in sheaf_deferred_stamp()), and is read
 * here holding that lock: the lock's acquire (sheaf_tx_lock()) pairs with
 * the release that ended the last transaction on it (sheaf_tx_end(), or
 * the end of the transaction that rolled back a dead holder's), so no
 * stamp is seen half done, nor one that a roll-back will undo. A slot
 * read without a sheaf had its objects stamped by a committed
 * transaction, with a token taken before its release, below or at the one
 * the barrier reads afterwards; one read with a sheaf is asked.
 */
static void
sheaf_rcu_want_stamps(struct sheaf_pool *sp, const struct sheaf_slot *self,
	struct sheaf_slot_set *want)
{
	struct sheaf_tx tx;
	unsigned int i;
	uint32_t b;

	for (b = 0; b < sp->nb_nodes; b++) {
		/* Not from a signal handler: this waits, and cannot fail. */
		RTE_VERIFY(sheaf_barn_begin(&tx, sp, b, SHEAF_TX_settle,
			false) == 0);
		for (i = 0; i < RTE_MAX_LCORE; i++)
			if (&sp->slot[i] != self && sp->slot[i].barn == b &&
					sheaf_slot_claimed(sp, i) &&
					sheaf_ds_idx(__atomic_load_n(
						&sp->slot[i].dstate,
						__ATOMIC_RELAXED)) != SHEAF_NONE)
				sheaf_slot_set_add(want, i);
		sheaf_tx_end(&tx);
	}
}

/* Stamp every deferred sheaf but self's, by asking; bounded. */
static int
sheaf_rcu_stamp_others(struct sheaf_pool *sp, const struct sheaf_slot *self,
	uint64_t deadline)
{
	struct sheaf_slot_set want = { { 0 } };
	struct sheaf_ask ask;
	unsigned int polls = 0;
	int ret = 0;

	sheaf_rcu_want_stamps(sp, self, &want);
	sheaf_ask_start(&ask, sp, &want, SHEAF_REQ_STAMP, 0,
		sheaf_rcu_act_stamp, NULL);
	while (sheaf_ask_poll(&ask) != 0) {
		if (sheaf_clock_ns() >= deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		sheaf_wait_pause(polls++);
	}
	return ret;
}

int
sheaf_deferred_barrier(struct sheaf_pool *sp)
{
	uint64_t deadline = sheaf_clock_ns() + sp->tun.barrier_ns, t;
	unsigned int polls;
	struct sheaf_slot *lc;
	int ret;

	/* A thief holding the caller's own slot lets go of it soon. */
	ret = sheaf_ask_hold_own(sp, &lc, deadline);
	if (ret < 0)
		return ret;
	if (lc != NULL) {
		/*
		 * A stamp another barrier asked of our slot is served by
		 * this one: acknowledged, or that barrier would wait for our
		 * next get or put.
		 */
		sheaf_deferred_serve_stamp(sp, lc, true);
		sheaf_slot_leave(lc);
	}
	/* The slot of our lcore id, when another process owns it, is asked. */
	ret = sheaf_rcu_stamp_others(sp, lc, deadline);
	sheaf_rcu_stamp_shared(sp);
	if (ret < 0)
		return ret;
	/*
	 * Every object deferred before this call waits with a token at most
	 * t. Wait for those only: frees made meanwhile would keep a busy
	 * pool's barrier going forever. Acquire: pairs with the release of
	 * the token by rte_rcu_qsbr_start() of each stamp (every stamp made
	 * for this call was acknowledged above, its token taken before).
	 */
	t = __atomic_load_n(&sp->qsbr->token, __ATOMIC_ACQUIRE);
	for (polls = 0;; polls++) {
		sheaf_deferred_reclaim(sp, false);
		if (!sheaf_rcu_pending_upto(sp, t))
			return 0;
		if (sheaf_clock_ns() >= deadline)
			return -ETIMEDOUT;
		sheaf_wait_pause(polls);
	}
}

uint32_t
sheaf_deferred_count(const struct sheaf_pool *sp)
{
	uint32_t b, i, n = 0, ds, cnt, head;

	if (sheaf_deferred_qsbr(sp) == NULL)
		return 0;
	/* Racy, not critical: a sheaf moving meanwhile may be counted twice
	 * or missed; exact when the pool is quiet.
	 */
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		ds = __atomic_load_n(&sp->slot[i].dstate, __ATOMIC_RELAXED);
		if (sheaf_ds_idx(ds) != SHEAF_NONE)
			n += sheaf_ds_size(ds);
	}
	for (b = 0; b < sp->nb_nodes; b++) {
		const struct sheaf_barn *barn = &sp->barn[b];
		const struct sheaf_depot *dp = &sp->depot[b];

		i = __atomic_load_n(&barn->shared_def, __ATOMIC_RELAXED);
		if (i != SHEAF_NONE)
			n += __atomic_load_n(&sheaf_at(sp, i)->size,
				__ATOMIC_RELAXED);
		head = __atomic_load_n(&barn->fifo_head, __ATOMIC_RELAXED);
		cnt = RTE_MIN(__atomic_load_n(&barn->fifo_count,
			__ATOMIC_RELAXED), sp->nb_sheaves);
		for (i = 0; i < cnt; i++)
			n += __atomic_load_n(&sheaf_at(sp, __atomic_load_n(
				&barn->fifo[(head + i) % sp->nb_sheaves].sheaf,
				__ATOMIC_RELAXED))->size, __ATOMIC_RELAXED);
		n += __atomic_load_n(&dp->fb_count, __ATOMIC_RELAXED);
	}
	return n;
}

int
sheaf_deferred_attach(struct sheaf_pool *sp, struct rte_rcu_qsbr *v)
{
	int socket = sp->mp->socket_id;
	struct rte_rcu_qsbr *none = NULL;
	struct sheaf_rcu_entry *fifo, *no_fifo;
	struct sheaf_rcu_obj *fb, *no_fb;
	uint32_t b;

	if (sheaf_deferred_qsbr(sp) != NULL)
		return -EEXIST;
	/*
	 * Each queue is set once, by a CAS from NULL: two attachers racing
	 * (both saw no qsbr) would otherwise let the late one's store replace
	 * a queue the winner's deferred frees already fill. The loser frees
	 * its own. Release: the zeroed queue before the pointer; acquire on
	 * failure and in the load: the winner's, zeroed.
	 */
	for (b = 0; b < sp->nb_nodes; b++) {
		fifo = __atomic_load_n(&sp->barn[b].fifo, __ATOMIC_ACQUIRE);
		if (fifo == NULL) {
			fifo = rte_zmalloc_socket("sheaf_rcu_fifo",
				(size_t)sp->nb_sheaves * sizeof(*fifo),
				RTE_CACHE_LINE_SIZE, socket);
			if (fifo == NULL)
				return -ENOMEM;
			no_fifo = NULL;
			if (!__atomic_compare_exchange_n(&sp->barn[b].fifo,
					&no_fifo, fifo, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
				rte_free(fifo);
		}
		fb = __atomic_load_n(&sp->depot[b].fb, __ATOMIC_ACQUIRE);
		if (fb == NULL) {
			fb = rte_zmalloc_socket("sheaf_rcu_objs",
				(size_t)sp->mp->size * sizeof(*fb),
				RTE_CACHE_LINE_SIZE, socket);
			if (fb == NULL)
				return -ENOMEM;
			no_fb = NULL;
			if (!__atomic_compare_exchange_n(&sp->depot[b].fb,
					&no_fb, fb, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
				rte_free(fb);
		}
	}
	/* Release: the queues are set up before a deferred call sees v. */
	if (!__atomic_compare_exchange_n(&sp->qsbr, &none, v, 0,
			__ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return -EEXIST;
	return 0;
}

void
sheaf_deferred_release(struct sheaf_pool *sp)
{
	uint32_t b;

	/* Pending objects need nothing: they are the pool's memory. */
	for (b = 0; sp->barn != NULL && b < sp->nb_nodes; b++)
		rte_free(sp->barn[b].fifo);
	for (b = 0; sp->depot != NULL && b < sp->nb_nodes; b++)
		rte_free(sp->depot[b].fb);
	sp->qsbr = NULL;
}
