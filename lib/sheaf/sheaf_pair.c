/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * The pair of sheaves of a slot: see sheaf_pair.h. Each function changes
 * the pair with single stores of the state word, or inside the barn or
 * depot transaction that moves what the pair gives or gets.
 */

#include <limits.h>
#include <string.h>

#include "sheaf_barn.h"
#include "sheaf_lend.h"
#include "sheaf_pair.h"
#include "sheaf_slab.h"

void
sheaf_pair_init(struct sheaf_pool *sp, struct sheaf_slot *lc, uint32_t main,
	uint32_t spare)
{
	lc->objs_base = sp->objs_arena;
	lc->objs_shift = sp->objs_shift;
	lc->dcache = sp->mp->cache_size == 0 ? NULL :
		sp->mp->local_cache[lc - sp->slot].objs;
	lc->capacity = sp->cfg.capacity;
	lc->state = sheaf_st_make(main, 0, spare, 0);
	lc->dstate = SHEAF_NONE << SHEAF_SIZE_BITS;
	/* No refill record (sheaf_lcore.h). */
	lc->dry_refill_calls = UINT64_MAX;
}

uint32_t
sheaf_pair_count_all(const struct sheaf_pool *sp, uint32_t *nb_lcores)
{
	uint32_t i, n = 0, nl = 0, c;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		/* Slots never claimed hold nothing (racy bitmap, a hint). */
		if (!((__atomic_load_n(&sp->claimed[i / 64], __ATOMIC_RELAXED) >>
				(i % 64)) & 1))
			continue;
		/* Racy, not critical: one word per slot; exact when quiet. */
		c = sheaf_pair_count(&sp->slot[i]);
		nl += c != 0;
		n += c;
	}
	if (nb_lcores != NULL)
		*nb_lcores = nl;
	return n;
}

void
sheaf_pair_swap(struct sheaf_slot *lc)
{
	uint64_t w = sheaf_pair_state(lc);

	SHEAF_KILL("swap");
	sheaf_pair_commit(lc, sheaf_st_make(sheaf_st_idx(w, SHEAF_SPARE),
		sheaf_st_size(w, SHEAF_SPARE), sheaf_st_idx(w, SHEAF_MAIN),
		sheaf_st_size(w, SHEAF_MAIN)));
}

/*
 * How many sheaves to trade at once. One, as SLUB does, leaves the lcore
 * half way (one sheaf full, one empty), so a workload that alternates
 * gets and puts is not sent straight back to the barn. Two, when the
 * spare is in main's state and the lcore traded the same way last time
 * (a pipeline's producer or consumer), halves the barn transactions per
 * object of a one-way flow.
 */
static unsigned int
sheaf_pair_trade_count(struct sheaf_slot *lc, uint32_t dir, uint64_t w)
{
	uint32_t ss = sheaf_st_size(w, SHEAF_SPARE);
	bool same = dir == SHEAF_TRADE_GET ? ss == 0 :
		sheaf_pair_room(lc, ss) == 0;
	unsigned int k = same && lc->last_trade == dir ? 2 : 1;

	lc->last_trade = dir;
	return k;
}

/* The trade itself, in a transaction on barn b. */
static unsigned int
sheaf_pair_tx_trade(struct sheaf_tx *tx, struct sheaf_slot *lc, uint32_t b,
	uint32_t dir, unsigned int k, uint64_t w)
{
	const struct sheaf_barn *barn = &tx->sp->barn[b];
	uint32_t got[2], i, n = 0;

	/* The put trade respects the limit exactly, under the lock. */
	if (dir == SHEAF_TRADE_PUT)
		k = RTE_MIN(k, tx->sp->cfg.barn_max_full -
			RTE_MIN(barn->nb_full, tx->sp->cfg.barn_max_full));
	for (i = 0; i < k; i++) {
		got[i] = dir == SHEAF_TRADE_GET ? sheaf_barn_pop_full(tx, b) :
			sheaf_barn_pop_empty(tx, b);
		if (got[i] == SHEAF_NONE)
			break;
		n++;
	}
	for (i = 0; i < n; i++) {
		enum sheaf_which h = i == 0 ? SHEAF_MAIN : SHEAF_SPARE;
		uint32_t size = dir == SHEAF_TRADE_GET ?
			sheaf_at(tx->sp, got[i])->size : 0;

		if (dir == SHEAF_TRADE_GET)
			sheaf_barn_push_empty(tx, b, sheaf_st_idx(w, h));
		else
			sheaf_barn_push_full(tx, b, sheaf_st_idx(w, h),
				sheaf_st_size(w, h));
		w = sheaf_st_set(w, h, got[i], size);
	}
	if (n != 0)
		sheaf_tx_store64(tx, &lc->state, w);
	return n;
}

unsigned int
sheaf_pair_trade(struct sheaf_pool *sp, struct sheaf_slot *lc, uint32_t b,
	uint32_t dir)
{
	uint64_t w = sheaf_pair_state(lc);
	unsigned int k = sheaf_pair_trade_count(lc, dir, w), n, i;
	struct sheaf_tx tx;

	/* Racy, not critical (seed 008): skip the lock when it cannot go. */
	if (dir == SHEAF_TRADE_GET ? sheaf_barn_nb_full(sp, b) == 0 :
			sheaf_barn_nb_full(sp, b) >= sp->cfg.barn_max_full ||
			sheaf_barn_nb_empty(sp, b) == 0)
		return 0;
	if (sheaf_barn_begin(&tx, sp, b, dir == SHEAF_TRADE_GET ?
			SHEAF_TX_trade_get : SHEAF_TX_trade_put, false) < 0)
		return 0;
	n = sheaf_pair_tx_trade(&tx, lc, b, dir, k, w);
	sheaf_tx_end(&tx);
	/* A one-way flow's (two sheaves): filled or emptied elsewhere. */
	for (i = 0; k == 2 && i < n; i++)
		sheaf_pair_prefetch(lc, i == 0 ? SHEAF_MAIN : SHEAF_SPARE,
			dir == SHEAF_TRADE_PUT);
	return n;
}

unsigned int
sheaf_pair_refill(struct sheaf_pool *sp, struct sheaf_slot *lc, uint32_t d)
{
	unsigned int got, total = 0;
	struct sheaf_tx tx;
	void **m;
	uint32_t ms;
	uint64_t w;

	for (;;) {
		w = sheaf_pair_state(lc);
		ms = sheaf_pair_msize(w);
		/* Racy peek, not critical: a stale zero skips the depot as a
		 * lock taken a moment earlier would. */
		if (sheaf_pair_room(lc, ms) == 0 ||
				sheaf_depot_nb_free(sp, d) == 0 ||
				sheaf_depot_begin(&tx, sp, d, SHEAF_TX_refill, false) < 0)
			return total;
		m = sheaf_pair_objs(lc, w, SHEAF_MAIN);
		/* Into main beyond its count: invisible until the commit. */
		got = sheaf_depot_take(&tx, d, &m[ms],
			RTE_MIN(sheaf_pair_room(lc, ms), (uint32_t)SHEAF_TX_OBJS),
			lc);
		if (got != 0)
			sheaf_tx_store64(&tx, &lc->state, w + got);
		sheaf_tx_end(&tx);
		if (got == 0)
			return total;
		total += got;
	}
}

unsigned int
sheaf_pair_flush(struct sheaf_pool *sp, struct sheaf_slot *lc,
	enum sheaf_which h, unsigned int *bad)
{
	return sheaf_pair_flush_some(sp, lc, h, UINT_MAX, bad);
}

unsigned int
sheaf_pair_flush_some(struct sheaf_pool *sp, struct sheaf_slot *lc,
	enum sheaf_which h, unsigned int limit, unsigned int *bad)
{
	unsigned int n, run, refused, total = 0;
	void * const *s;
	struct sheaf_tx tx;
	uint32_t d;
	uint64_t w;

	for (;;) {
		w = sheaf_pair_state(lc);
		n = sheaf_st_size(w, h);
		if (n == 0 || total >= limit)
			return total;
		s = sheaf_pair_objs(lc, w, h);
		/* A run's top part is a run of the same depot. */
		run = RTE_MIN(sheaf_slab_depot_run(sp, s, n, &d),
			limit - total);
		w = sheaf_st_set(w, h, sheaf_st_idx(w, h), n - run);
		if (d == SHEAF_SLAB_NONE) {
			/* No objects of the pool: dropped, counted. */
			sheaf_slab_log_foreign(sp, &s[n - run], run);
			*bad += run;
			sheaf_pair_commit(lc, w);
			continue;
		}
		if (sheaf_depot_begin(&tx, sp, d, SHEAF_TX_flush, false) < 0)
			return total;
		refused = sheaf_depot_put(&tx, d, &s[n - run], run);
		sheaf_tx_store64(&tx, &lc->state, w);
		sheaf_tx_end(&tx);
		*bad += refused;
		total += run - refused;
	}
}

/* Non-empty halves of v whole into barn b, for its empty sheaves. */
static unsigned int
sheaf_pair_tx_give(struct sheaf_tx *tx, struct sheaf_slot *v, uint32_t b)
{
	uint64_t w = sheaf_pair_state(v);
	enum sheaf_which h;
	unsigned int n = 0;
	uint32_t e, size;

	for (h = SHEAF_MAIN; h <= SHEAF_SPARE; h++) {
		size = sheaf_st_size(w, h);
		if (size == 0)
			continue;
		e = sheaf_barn_pop_empty(tx, b);
		if (e == SHEAF_NONE)
			break;
		sheaf_barn_push_full(tx, b, sheaf_st_idx(w, h), size);
		w = sheaf_st_set(w, h, e, 0);
		n += size;
	}
	if (n != 0)
		sheaf_tx_store64(tx, &v->state, w);
	return n;
}

/*
 * Copy up to n objects off the top of spare, then of main, into objs:
 * returns how many, *nw the state word without them (not stored).
 */
static unsigned int
sheaf_pair_copy_top(const struct sheaf_slot *lc, uint64_t w, void **objs,
	unsigned int n, uint64_t *nw)
{
	uint32_t ss = sheaf_st_size(w, SHEAF_SPARE);
	uint32_t ms = sheaf_st_size(w, SHEAF_MAIN);
	unsigned int t1 = RTE_MIN(ss, n), t2 = RTE_MIN(ms, n - t1);

	memcpy(objs, &sheaf_pair_objs(lc, w, SHEAF_SPARE)[ss - t1],
		t1 * sizeof(void *));
	memcpy(objs + t1, &sheaf_pair_objs(lc, w, SHEAF_MAIN)[ms - t2],
		t2 * sizeof(void *));
	*nw = sheaf_st_make(sheaf_st_idx(w, SHEAF_MAIN), ms - t2,
		sheaf_st_idx(w, SHEAF_SPARE), ss - t1);
	return t1 + t2;
}

unsigned int
sheaf_pair_give_back(struct sheaf_pool *sp, struct sheaf_slot *lc, uint32_t b,
	unsigned int n)
{
	uint64_t w = sheaf_pair_state(lc), nw;
	struct sheaf_tx tx;
	uint32_t i;

	/*
	 * One arena sheaf's worth at most. Racy, not critical: skip the
	 * lock when it cannot go. Past the barn's limit, as a drain: it was
	 * asked for.
	 */
	n = RTE_MIN(RTE_MIN(n, sp->cfg.capacity_max), sheaf_pair_count(lc));
	if (n == 0 || sheaf_barn_nb_empty(sp, b) == 0 ||
			sheaf_barn_begin(&tx, sp, b, SHEAF_TX_give, false) < 0)
		return 0;
	i = sheaf_barn_pop_empty(&tx, b);
	if (i == SHEAF_NONE) {
		sheaf_tx_end(&tx);
		return 0;
	}
	/* Beyond the popped sheaf's size: its push below commits them. */
	n = sheaf_pair_copy_top(lc, w, sheaf_objs_at(sp, i), n, &nw);
	SHEAF_KILL("give.copied");
	sheaf_barn_push_full(&tx, b, i, n);
	sheaf_tx_store64(&tx, &lc->state, nw);
	sheaf_tx_end(&tx);
	return n;
}

unsigned int
sheaf_pair_drain(struct sheaf_pool *sp, struct sheaf_slot *v, uint32_t b,
	unsigned int *bad)
{
	unsigned int n = 0;
	struct sheaf_tx tx;

	if (sheaf_pair_count(v) == 0)
		return 0;
	/* Past the barn's limit: the drain was asked for. */
	if (sheaf_barn_nb_empty(sp, b) != 0 &&
			sheaf_barn_begin(&tx, sp, b, SHEAF_TX_drain, false) == 0) {
		n = sheaf_pair_tx_give(&tx, v, b);
		sheaf_tx_end(&tx);
	}
	SHEAF_KILL("drain.barn");
	n += sheaf_pair_flush(sp, v, SHEAF_MAIN, bad);
	n += sheaf_pair_flush(sp, v, SHEAF_SPARE, bad);
	return n;
}

unsigned int
sheaf_pair_take(struct sheaf_slot *lc, void **objs, unsigned int n,
	uint32_t *note)
{
	uint64_t nw;

	n = sheaf_pair_copy_top(lc, sheaf_pair_state(lc), objs, n, &nw);
	/* The copy, the note, the count (a death: sheaf_pvt.h's loading). */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(note, *note + n, __ATOMIC_RELAXED);
	sheaf_pair_commit(lc, nw);
	return n;
}

struct sheaf *
sheaf_pair_lend(struct sheaf_pool *sp, struct sheaf_slot *lc, uint32_t b,
	unsigned int n)
{
	uint64_t w = sheaf_pair_state(lc);
	struct sheaf *s = NULL;
	enum sheaf_which h;
	struct sheaf_tx tx;
	uint32_t e;

	if (sheaf_st_size(w, SHEAF_SPARE) >= n)
		h = SHEAF_SPARE;
	else if (sheaf_st_size(w, SHEAF_MAIN) >= n)
		h = SHEAF_MAIN;
	else
		return NULL;
	if (sheaf_barn_nb_empty(sp, b) == 0 ||
			sheaf_barn_begin(&tx, sp, b, SHEAF_TX_lend, false) < 0)
		return NULL;
	e = sheaf_barn_pop_empty(&tx, b);
	if (e != SHEAF_NONE) {
		s = sheaf_at(sp, sheaf_st_idx(w, h));
		sheaf_tx_store32(&tx, &s->size, sheaf_st_size(w, h));
		sheaf_lend_hold(&tx, s);
		sheaf_tx_store64(&tx, &lc->state, sheaf_st_set(w, h, e, 0));
	}
	sheaf_tx_end(&tx);
	return s;
}

void
sheaf_pair_tx_install(struct sheaf_tx *tx, struct sheaf_slot *lc,
	uint32_t b, uint32_t idx)
{
	uint64_t w = sheaf_pair_state(lc);

	RTE_ASSERT(sheaf_pair_msize(w) == 0);
	sheaf_barn_push_empty(tx, b, sheaf_st_idx(w, SHEAF_MAIN));
	sheaf_tx_store64(tx, &lc->state, sheaf_st_set(w, SHEAF_MAIN, idx,
		sheaf_at(tx->sp, idx)->size));
}
