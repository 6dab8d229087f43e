/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Prefilled sheaves: SLUB's kmem_cache_prefill_sheaf() family (seed 007).
 *
 * A caller that must not fail a run of allocations whose count it can
 * bound (an RX ring rearm) borrows a sheaf holding at least that many
 * objects. Allocating from it touches nothing shared and cannot fail
 * until it is empty. The sheaf is an arena sheaf taken out of
 * circulation, or an oversize one when it must be larger than the pool's
 * capacity or no arena sheaf is free: one returned earlier that fits,
 * else a new one from rte_malloc (kept with the pool after its return).
 *
 * Borrowing takes a sheaf whole where it can: a full sheaf of the home
 * barn, else the caller's own spare or main, an empty barn sheaf taking
 * its place. Otherwise an empty sheaf is loaded, cheapest source first:
 * the caller's own sheaves, the shared tiers, then other lcores' objects
 * (sheaf_reclaim.h). A borrow or a refill that cannot reach n gives back
 * what it took. Returning puts a non-empty arena sheaf whole into the
 * barn while the barn is under its limit; its objects otherwise go to the
 * caller's main and spare sheaves, then to the slabs.
 *
 * A borrowed sheaf is in its borrower's hands: the barn or slot it came
 * from let go of it in the transaction that took it, which recorded the
 * borrower (sheaf_lend.h); the sheaves of a borrower that dies come back
 * to the pool. While lent, a sheaf's objects are objs[0..size): its size
 * goes down before objects leave it and up after they arrived, so that
 * a death in between never lets two places hold one object; what it
 * loses is counted (RTE_SHEAF_STAT_LOST) by the records kept meanwhile:
 * the sheaf's load record, the slot's cut record (doc/design.md).
 *
 * Handles carry a generation: a handle is the sheaf's address with the
 * sheaf's lend count in its top 16 bits, which user-space addresses do
 * not use. A returned sheaf has no live handle; each lend bumps the
 * count, so a handle kept from an earlier lend of the same sheaf is
 * refused; it is taken for a live one only after 65536 lends of that
 * sheaf in between. The live handle is one word of the sheaf (live),
 * so no interleaving of a lend's stores lets an old handle pass.
 * Oversize sheaves live as long as the pool, so their memory is never
 * another sheaf's. A handle may move to another process, which takes
 * the sheaf over at its first use (sheaf_prefill_hold()).
 */

#include <stdbool.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "sheaf_barn.h"
#include "sheaf_lcore.h"
#include "sheaf_lend.h"
#include "sheaf_pair.h"
#include "sheaf_pool.h"
#include "sheaf_reclaim.h"
#include "sheaf_shared.h"
#include "sheaf_slab.h"
#include "sheaf_slot.h"
#include "sheaf_validate.h"

/* The caller of a call that reaches the tiers. */
struct sheaf_prefill_ctx {
	struct sheaf_pool *sp;
	/* The caller's slot, held: its sheaves are ours. NULL for a caller
	 * without one, or while a thief holds it. */
	struct sheaf_slot *lc;
	uint32_t home; /* barn and depot tried first */
};

/* The handle of s's current lend: its address, the lend's number above. */
static uint64_t
sheaf_handle_word(const struct sheaf *s)
{
	RTE_BUILD_BUG_ON(sizeof(uintptr_t) != sizeof(uint64_t));
	/* Below 2^48: checked where sheaves are allocated. */
	return (uint64_t)(uintptr_t)s |
		(uint64_t)s->lend_gen << SHEAF_HANDLE_SHIFT;
}

static inline struct sheaf *
sheaf_handle_sheaf(const struct rte_sheaf_prefill *pf)
{
	return (struct sheaf *)((uintptr_t)pf & SHEAF_HANDLE_ADDR);
}

static int
sheaf_prefill_fail(int err)
{
	rte_errno = err;
	return -err;
}

/* SHEAF_LOG, except from a signal handler inside a pool call. */
#define SHEAF_PREFILL_LOG(level, ...) do { \
	if (!sheaf_call_inside()) \
		SHEAF_LOG(level, __VA_ARGS__); \
} while (0)

/*
 * The handle's sheaf, held by the calling process: a handle moved to
 * another process (a secondary hands it to the primary) is that
 * process's from its first use. holder names the borrower, lent_by, as
 * long as no recoverer has taken the sheaf (a recoverer's CAS puts its
 * own incarnation there and leaves lent_by); the caller takes it over
 * only by CAS from lent_by, never from a recoverer, so either the
 * recoverer's CAS or ours fails. Returns 0 when held; -EINVAL: not the
 * lend of pf any more (taken back by a recoverer, its borrower dead
 * before this process used it, and perhaps lent again); -EBUSY: a take-
 * over from a signal handler inside a pool call; -EAGAIN: a take-over
 * from a borrower that /proc could not tell alive or dead. Ownership
 * only: the sheaf's contents are ordered by the application's hand-over
 * of the handle (rte_sheaf.h).
 */
static int
sheaf_prefill_hold(struct sheaf *s, const struct rte_sheaf_prefill *pf)
{
	/*
	 * Acquire: pairs with the release of lent_by by a lend
	 * (sheaf_prefill_lend()) or a take-over (below): a lent_by of a
	 * later lend than pf's shows that lend's live (0, then its handle),
	 * which the look at live below then finds.
	 */
	uint64_t by = __atomic_load_n(&s->lent_by, __ATOMIC_ACQUIRE);
	uint64_t h = __atomic_load_n(&s->holder, __ATOMIC_RELAXED);
	enum sheaf_proc_verdict v;

	/*
	 * Acquire, again (pairs with the release of live by
	 * sheaf_prefill_lend()): pf's lend still, with by and h read (the look
	 * of sheaf_prefill_check() came before them). A recoverer that
	 * took the sheaf from pf's dead borrower, then a new lend (of
	 * another process, or ours) with its own holder and lent_by,
	 * would otherwise let this stale handle take the new lend over.
	 */
	if (__atomic_load_n(&s->live, __ATOMIC_ACQUIRE) != (uintptr_t)pf)
		return -EINVAL;
	if (by == sheaf_self && h == sheaf_self)
		return 0;
	if (h != by)
		return -EINVAL;
	/*
	 * A take-over may wait for a dead borrower's lock, undo its
	 * transactions and log what they lost: not from a signal handler
	 * that interrupted a pool call (its thread's lock, a log line
	 * inside the interrupted one's). Its call is not bracketed, so
	 * sheaf_tx_recover_proc() alone (depth above one) does not see
	 * it. Until 2026-12-06 it went ahead.
	 */
	if (sheaf_call_inside())
		return -EBUSY;
	/*
	 * A borrower that has ended (the handle moved before its exit)
	 * may have died inside a load: its transactions are undone first
	 * and its load record settled after the CAS, as a recoverer does
	 * (sheaf_lend_recover()); else the next load would start past the
	 * count by the record's objects, and a later take-over of its lock
	 * roll the record back inside our sheaf. One that /proc cannot
	 * tell (out of file descriptors, hidepid, no /proc) is taken as
	 * alive only when nothing of a load of its is left on the sheaf:
	 * no load record, and no lock of the pool held (a journal that a
	 * later take-over of the lock would roll back, the record's stores
	 * among them). Else neither will do: taken as alive, an ended
	 * borrower's record would stay; taken as dead, a live one's calls
	 * would be undone under it. Until 2026-12-06 it was taken as alive
	 * whatever it left. Relaxed: the record of a process no look can
	 * see; a record it is still writing is a live borrower's use of a
	 * handle it gave away (the caller's bug, as above).
	 */
	v = sheaf_proc_look(by);
	if (v == SHEAF_PROC_UNKNOWN) {
		if (sheaf_tx_held_by(s->pool, by) || __atomic_load_n(
				&s->loading, __ATOMIC_RELAXED) != 0)
			return -EAGAIN;
		v = SHEAF_PROC_ALIVE;
	}
	if (v == SHEAF_PROC_DEAD && sheaf_tx_recover_proc(s->pool, by) < 0)
		return -EBUSY;
	/* Noted first: a borrower is never unknown to the recovery. */
	sheaf_lend_note(s->pool);
	/*
	 * Relaxed: decides who holds the sheaf; no data comes with holder
	 * (the lend's and a take-over's come with lent_by, above; a dead
	 * borrower's with the kernel's exit path and the fence of
	 * sheaf_lend_adopted()). A recoverer's CAS from the same dead
	 * incarnation fails or makes this one fail.
	 */
	if (!__atomic_compare_exchange_n(&s->holder, &h, sheaf_self, 0,
			__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return -EINVAL;
	if (v == SHEAF_PROC_DEAD)
		sheaf_lend_adopted(s->pool, s, by);
	/*
	 * A death here leaves holder naming us and lent_by the process
	 * before: our recoverer takes the sheaf back; no other process
	 * takes the handle over (holder is not lent_by).
	 */
	/* Release: pairs with the acquire above of the next process. */
	__atomic_store_n(&s->lent_by, sheaf_self, __ATOMIC_RELEASE);
	return 0;
}

/*
 * The sheaf of a live handle of sp (of any pool if sp is NULL), held by
 * the calling process when use is set (sheaf_prefill_hold()); NULL when
 * not, rte_errno set: EINVAL (logged) when the handle is NULL, returned,
 * stale or taken back; EBUSY (not logged) for a take-over refused to a
 * signal handler; EAGAIN (logged) for one whose borrower /proc could not
 * tell alive or dead.
 */
static struct sheaf *
sheaf_prefill_check(const struct rte_sheaf_prefill *pf,
	const struct sheaf_pool *sp, const char *caller, bool use)
{
	struct sheaf *s = sheaf_handle_sheaf(pf);
	int ret;

	if (s == NULL) {
		SHEAF_PREFILL_LOG(ERR, "%s: NULL sheaf", caller);
		goto fail;
	}
	/*
	 * One word: a handle of an earlier lend, or of none, never passes,
	 * however the lend's stores interleave with this look. Acquire:
	 * pairs with sheaf_prefill_lend()'s release (the sheaf as lent).
	 */
	if (__atomic_load_n(&s->live, __ATOMIC_ACQUIRE) != (uintptr_t)pf) {
		SHEAF_PREFILL_LOG(ERR, "%s: sheaf handle %p is not a live borrowed sheaf (returned already?)",
			caller, (const void *)pf);
		goto fail;
	}
	if (sp != NULL && s->pool != sp) {
		SHEAF_PREFILL_LOG(ERR, "%s: sheaf %p belongs to pool %s, not %s",
			caller, (const void *)pf, s->pool->mp->name,
			sp->mp->name);
		goto fail;
	}
	ret = use ? sheaf_prefill_hold(s, pf) : 0;
	if (ret == -EBUSY) {
		rte_errno = EBUSY;
		return NULL;
	}
	if (ret == -EAGAIN) {
		SHEAF_PREFILL_LOG(ERR, "%s: sheaf handle %p of pool %s, moved from process %u: cannot tell whether that process has ended (/proc unreadable); try again",
			caller, (const void *)pf, s->pool->mp->name,
			sheaf_proc_pid(__atomic_load_n(&s->lent_by,
				__ATOMIC_RELAXED)));
		rte_errno = EAGAIN;
		return NULL;
	}
	if (ret < 0) {
		SHEAF_PREFILL_LOG(ERR, "%s: sheaf handle %p is no longer live (taken back from its dead borrower, or returned) in pool %s",
			caller, (const void *)pf, s->pool->mp->name);
		goto fail;
	}
	return s;
fail:
	rte_errno = EINVAL;
	return NULL;
}

static void
sheaf_prefill_stat(const struct sheaf_prefill_ctx *c, enum rte_sheaf_stat id,
	uint64_t v)
{
	sheaf_stat_add(c->sp, c->lc, id, v);
}

/*
 * Hold the caller's slot as the ops do. A busy slot means a signal handler
 * interrupted the pool on this thread: refused.
 */
static int
sheaf_prefill_enter(struct sheaf_pool *sp, struct sheaf_prefill_ctx *c)
{
	c->sp = sp;
	c->lc = NULL;
	/* Not logged: a handler must not log. */
	if (sheaf_call_inside() || sheaf_slot_hold(sp, &c->lc) < 0)
		return sheaf_prefill_fail(EBUSY);
	c->home = sheaf_home_of(sp, c->lc);
	sheaf_call_enter();
	/*
	 * The owner answers the requests at its gate at each call out of
	 * line, prefill's too: an lcore whose only calls are prefill calls
	 * (its activity moving: never idle) left a flush or a reclaim
	 * waiting for it to its deadline until 2026-12-06.
	 */
	if (c->lc != NULL)
		sheaf_lcore_serve(sp, c->lc, 0);
	return 0;
}

static void
sheaf_prefill_leave(struct sheaf_prefill_ctx *c)
{
	if (c->lc != NULL)
		sheaf_slot_leave(c->lc);
	sheaf_call_leave(c->sp);
}

/*
 * Give back the last *cnt objects of objs, a borrowed sheaf's table whose
 * count word cnt (its size, or its load record) only the caller writes:
 * what main, then spare, has room for into it, as a flush of DPDK's
 * cache goes (sheaf_pair_cut_begin(): the slot's cut record counts them
 * lost if a death falls between the count word's cut and the sheaf's
 * count; at: the kill point there), then the rest to the slabs, *cnt
 * committed with each depot transaction. Nothing is in two places, and
 * nothing lost is left uncounted.
 */
static void
sheaf_prefill_give_back(const struct sheaf_prefill_ctx *c, void **objs,
	uint32_t *cnt, const char *at)
{
	static const enum sheaf_which half[] = { SHEAF_MAIN, SHEAF_SPARE };
	unsigned int t, i, bad = 0;
	uint32_t size;
	uint64_t w;

	for (i = 0; c->lc != NULL && *cnt != 0 && i < RTE_DIM(half); i++) {
		w = sheaf_pair_state(c->lc);
		size = sheaf_st_size(w, half[i]);
		t = RTE_MIN(*cnt, sheaf_pair_room(c->lc, size));
		if (t == 0)
			continue;
		sheaf_pair_cut_begin(c->lc, w, half[i], objs + *cnt - t, t,
			cnt, *cnt - t, at);
		sheaf_pair_cut_end(c->lc, sheaf_st_set(w, half[i],
			sheaf_st_idx(w, half[i]), size + t));
	}
	sheaf_depot_flush_counted(c->sp, objs, cnt, SHEAF_TX_transit_flush,
		&bad);
	if (bad != 0)
		sheaf_prefill_stat(c, RTE_SHEAF_STAT_FREE_INVALID, bad);
}

/*
 * Up to n objects from the caller's DPDK mempool cache (a pool created
 * with cache_size > 0): objects the application freed on this lcore that
 * the cache keeps from the pool's tiers, which no reclaim reaches. Only
 * the caller's own lcore's cache, which only this thread touches (as
 * DPDK's inline get and put do), and not in validate mode, whose table
 * counts the cache's objects as out of the pool.
 */
static unsigned int
sheaf_prefill_from_cache(const struct sheaf_prefill_ctx *c, void **objs,
	unsigned int n, uint32_t *note)
{
	struct rte_mempool_cache *mc;
	unsigned int t;

	/* A slot means an lcore id (sheaf_slot_of()). */
	if (c->lc == NULL || sheaf_validate_on(c->sp))
		return 0;
	mc = rte_mempool_default_cache(c->sp->mp, rte_lcore_id());
	if (mc == NULL || mc->len == 0)
		return 0;
	t = RTE_MIN(n, mc->len);
	memcpy(objs, &mc->objs[mc->len - t], t * sizeof(*objs));
	/* The copy, the note, the cut (a death: as sheaf_pair_take()). */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(note, *note + t, __ATOMIC_RELAXED);
	sheaf_cache_cut(&mc->len, mc->len - t);
	return t;
}

/*
 * Up to max objects into s beyond its size and its load record: the
 * caller's own, the shared tiers, then the caller's mempool cache. Each
 * source raises s->loading by what it gives before its own count falls
 * (the slot's, the cache's) or with it (a transaction's): a death leaves
 * the objects in their tier (counted lost too, if it falls between the
 * two stores: the count is high by them, no object is doubled) or
 * counted in the record, which a recoverer of the dead borrower counts
 * lost (sheaf_lend_settle()).
 */
static unsigned int
sheaf_prefill_gather(const struct sheaf_prefill_ctx *c, struct sheaf *s,
	unsigned int need, unsigned int max)
{
	void **objs = &s->objs[s->load_from + s->loading];
	unsigned int got = c->lc != NULL ?
		sheaf_pair_take(c->lc, objs, max, &s->loading) : 0;

	if (got < need)
		got += sheaf_shared_take(c->sp, c->home, objs + got,
			need - got, NULL, &s->loading);
	if (got < need)
		got += sheaf_prefill_from_cache(c, objs + got, need - got,
			&s->loading);
	return got;
}

/*
 * Load s to at least min objects, up to max. All or nothing: short of
 * min, what was loaded goes back and s is as it was. Returns 0 or
 * -ENOMEM. The objects beyond s->size are counted in its load record
 * (struct sheaf's loading, from load_from = its size) until the size
 * is stored; the record is cleared after it (the recoverer reads the
 * record only while the size is still load_from).
 */
static int
sheaf_prefill_load(const struct sheaf_prefill_ctx *c, struct sheaf *s,
	unsigned int min, unsigned int max)
{
	const unsigned int from = s->size;
	unsigned int got = from;

	/* Relaxed, in program order (signal fences): the reader is the
	 * recoverer of this process, after its death. loading is 0. */
	__atomic_store_n(&s->load_from, from, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	got += sheaf_prefill_gather(c, s, min - got, max - got);
	if (got < min && sheaf_reclaim(c->sp, c->lc, min - got))
		got += sheaf_prefill_gather(c, s, min - got, min - got);
	if (got < min) {
		/* The cut's kill point as a cache flush's: no round of
		 * the matrix runs a pool short in a load. */
		sheaf_prefill_give_back(c, &s->objs[from], &s->loading,
			"push_table.cut");
		sheaf_prefill_stat(c, RTE_SHEAF_STAT_PREFILL_FAIL, 1);
		return -ENOMEM;
	}
	SHEAF_KILL("prefill.load");
	/* The objects in place and counted before the size says so. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&s->size, got, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&s->loading, 0, __ATOMIC_RELAXED);
	sheaf_prefill_stat(c, RTE_SHEAF_STAT_PREFILL, got - from);
	return 0;
}

/*
 * How far to load s for n: an arena sheaf to the caller's capacity (its
 * lcore's, adapted, or the pool's least), at least n; an oversize one to
 * its own.
 */
static unsigned int
sheaf_prefill_top(const struct sheaf_prefill_ctx *c, const struct sheaf *s,
	unsigned int n)
{
	uint32_t cap = c->lc != NULL ?
		__atomic_load_n(&c->lc->capacity, __ATOMIC_RELAXED) :
		c->sp->cfg.capacity;

	if (s->flags & SHEAF_F_MALLOC)
		return s->capacity;
	return RTE_MAX(n, RTE_MIN(cap, s->capacity));
}

/* A sheaf of barn b: full or empty, its size set; NULL if none. */
static struct sheaf *
sheaf_prefill_barn_get(const struct sheaf_prefill_ctx *c, bool full)
{
	struct sheaf_tx tx;
	uint32_t i;

	if ((full ? sheaf_barn_nb_full(c->sp, c->home) :
			sheaf_barn_nb_empty(c->sp, c->home)) == 0 ||
			sheaf_barn_begin(&tx, c->sp, c->home, SHEAF_TX_prefill_get,
				false) < 0)
		return NULL;
	i = full ? sheaf_barn_pop_full(&tx, c->home) :
		sheaf_barn_pop_empty(&tx, c->home);
	if (i != SHEAF_NONE)
		sheaf_lend_hold(&tx, sheaf_at(c->sp, i));
	sheaf_tx_end(&tx);
	return i != SHEAF_NONE ? sheaf_at(c->sp, i) : NULL;
}

/*
 * An empty sheaf for n objects, held by the caller: from the barn, or
 * rte_malloc (then on the pool's list).
 */
static struct sheaf *
sheaf_prefill_new(const struct sheaf_prefill_ctx *c, unsigned int n)
{
	struct sheaf_pool *sp = c->sp;
	uint32_t cap = RTE_MAX(n, sp->cfg.capacity_max);
	struct sheaf *s;

	if (n <= sp->cfg.capacity_max) {
		s = sheaf_prefill_barn_get(c, false);
		if (s != NULL)
			return s;
	} else {
		sheaf_prefill_stat(c, RTE_SHEAF_STAT_PREFILL_OVERSIZE, 1);
	}
	s = sheaf_lend_reuse(sp, cap);
	if (s != NULL)
		return s;
	/* Kept for reuse: a power of two serves the sizes near n. */
	if (n > sp->cfg.capacity_max)
		cap = rte_align32pow2(cap);
	s = rte_zmalloc_socket("sheaf_prefill",
		sizeof(*s) + (size_t)cap * sizeof(void *), RTE_CACHE_LINE_SIZE,
		sp->mp->socket_id);
	if (s == NULL) {
		SHEAF_LOG(ERR, "pool %s: no memory for a sheaf of %u objects",
			sp->mp->name, cap);
		return NULL;
	}
	s->capacity = cap;
	s->idx = SHEAF_NONE;
	s->flags = SHEAF_F_MALLOC;
	s->pool = sp;
	s->objs = (void **)(s + 1);
	if (!sheaf_lend_addr_ok(s, sizeof(*s) + (size_t)cap * sizeof(void *))) {
		SHEAF_LOG(ERR, "pool %s: a sheaf at %p, above the 2^48 bytes a prefill handle can address",
			sp->mp->name, (void *)s);
		/*
		 * Kept with the pool, never lent (no rte_free() at run time,
		 * sheaf_lend.h): idle with capacity 0, no borrow fits it.
		 */
		s->capacity = 0;
		sheaf_lend_register(sp, s);
		sheaf_lend_retire(sp, s);
		return NULL;
	}
	sheaf_lend_register(sp, s);
	return s;
}

/*
 * Take back a sheaf the caller holds, no longer lent, with its objects:
 * whole into the barn while under its limit; else its objects go to the
 * caller's main and spare sheaves, then to the slabs
 * (sheaf_prefill_give_back()), and the sheaf to the barn's empty stack
 * or, oversize, off the list and freed.
 */
static void
sheaf_prefill_release(const struct sheaf_prefill_ctx *c, struct sheaf *s)
{
	struct sheaf_pool *sp = c->sp;
	struct sheaf_tx tx;

	if (!(s->flags & SHEAF_F_MALLOC) && s->size != 0 &&
			sheaf_barn_nb_full(sp, c->home) < sp->cfg.barn_max_full &&
			sheaf_barn_begin(&tx, sp, c->home, SHEAF_TX_prefill_put,
				false) == 0) {
		sheaf_barn_push(&tx, c->home, s->idx);
		sheaf_lend_drop(&tx, s);
		sheaf_tx_end(&tx);
		return;
	}
	sheaf_prefill_give_back(c, s->objs, &s->size, "prefill.give");
	if (s->flags & SHEAF_F_MALLOC) {
		sheaf_lend_retire(sp, s);
		return;
	}
	/* Not inside a transaction (prefill refuses handlers): waits. */
	RTE_VERIFY(sheaf_barn_begin(&tx, sp, c->home, SHEAF_TX_prefill_put,
		false) == 0);
	sheaf_barn_push_empty(&tx, c->home, s->idx);
	sheaf_lend_drop(&tx, s);
	sheaf_tx_end(&tx);
}

/*
 * A handle for s, held by the caller; and the handle's end. Each sheaf
 * counts its own lends (an oversize one's memory is the pool's until the
 * pool is freed, never another sheaf's).
 */
static struct rte_sheaf_prefill *
sheaf_prefill_lend(struct sheaf *s)
{
	uint64_t h;

	s->lend_gen++;
	h = sheaf_handle_word(s);
	/*
	 * Release: pairs with sheaf_prefill_hold()'s acquire; the end of
	 * the lend before (live 0, by its put or a recoverer, whose lock
	 * this lend's transaction took after) comes before it.
	 */
	__atomic_store_n(&s->lent_by, sheaf_self, __ATOMIC_RELEASE);
	/*
	 * Release, last: pairs with sheaf_prefill_check()'s acquire; the
	 * sheaf as lent (size, objs[], holder, lent_by) before its handle
	 * passes a check.
	 */
	__atomic_store_n(&s->live, h, __ATOMIC_RELEASE);
	return (struct rte_sheaf_prefill *)(uintptr_t)h;
}

/*
 * The end of handle pf of s: false if it was not live (another put of
 * it won, or a recoverer took the sheaf back).
 */
static bool
sheaf_prefill_unlend(struct sheaf *s, const struct rte_sheaf_prefill *pf)
{
	uint64_t h = (uintptr_t)pf;

	/*
	 * Relaxed: decides which of two puts of one handle returns it; the
	 * sheaf's contents come with the application's hand-over of the
	 * handle (rte_sheaf.h).
	 */
	return __atomic_compare_exchange_n(&s->live, &h, 0, 0,
		__ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/*
 * Pool checks shared by get and refill; n == 0 is a caller's bug, and so
 * is n above INT32_MAX (a sheaf's capacity is rounded up to a power of
 * 2 in 32 bits, and rte_sheaf_prefill_size() returns an int).
 */
static int
sheaf_prefill_check_n(const struct rte_mempool *mp, unsigned int n)
{
	if (sheaf_pool_check(mp) < 0)
		return -EINVAL;
	if (n == 0 || n > INT32_MAX) {
		SHEAF_LOG(ERR, "pool %s: %u objects requested (1 to %d)",
			mp->name, n, INT32_MAX);
		return sheaf_prefill_fail(EINVAL);
	}
	return 0;
}

/* A sheaf of at least n objects, lent; NULL (rte_errno) if none. */
static struct sheaf *
sheaf_prefill_borrow(struct sheaf_prefill_ctx *c, unsigned int n)
{
	struct sheaf *s = NULL;

	if (n <= c->sp->cfg.capacity_max) {
		s = sheaf_prefill_barn_get(c, true);
		if (s != NULL)
			sheaf_prefill_stat(c, RTE_SHEAF_STAT_BARN_GET, 1);
		else if (c->lc != NULL)
			s = sheaf_pair_lend(c->sp, c->lc, c->home, n);
	}
	if (s == NULL)
		s = sheaf_prefill_new(c, n);
	if (s == NULL)
		return NULL;
	if (s->size >= n) {
		sheaf_prefill_stat(c, RTE_SHEAF_STAT_PREFILL, s->size);
		return s;
	}
	if (sheaf_prefill_load(c, s, n, sheaf_prefill_top(c, s, n)) == 0)
		return s;
	sheaf_prefill_release(c, s);
	return NULL;
}

struct rte_sheaf_prefill *
rte_sheaf_prefill_get(struct rte_mempool *mp, unsigned int n)
{
	struct sheaf_prefill_ctx c;
	struct sheaf_pool *sp;
	struct sheaf *s;

	if (sheaf_prefill_check_n(mp, n) < 0)
		return NULL;
	sp = sheaf_pool_of(mp);
	/* Never satisfiable: fail before touching anything. */
	if (n > mp->size) {
		SHEAF_LOG(DEBUG, "pool %s: %u objects requested, pool has %u",
			mp->name, n, mp->size);
		sheaf_prefill_fail(ENOMEM);
		return NULL;
	}
	if (sheaf_prefill_enter(sp, &c) < 0)
		return NULL;
	s = sheaf_prefill_borrow(&c, n);
	sheaf_prefill_leave(&c);
	if (s == NULL) {
		SHEAF_LOG(DEBUG, "pool %s: cannot supply %u objects", mp->name,
			n);
		sheaf_prefill_fail(ENOMEM);
		return NULL;
	}
	return sheaf_prefill_lend(s);
}

/*
 * Hand the k objects at the bottom of a, both sheaves held by the caller,
 * to b, empty, whose objs[] holds them already: b's load record, a's size
 * cut, then b's size raised. A death between the cut and the raise
 * leaves them counted lost by the record (between the record and the
 * cut: counted, though a still holds them); never in both.
 */
static void
sheaf_prefill_hand(struct sheaf *a, struct sheaf *b, unsigned int k)
{
	/* Relaxed, in program order: as sheaf_prefill_load(). */
	__atomic_store_n(&b->load_from, 0, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&b->loading, k, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&a->size, 0, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	SHEAF_KILL("prefill.grow");
	__atomic_store_n(&b->size, k, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&b->loading, 0, __ATOMIC_RELAXED);
}

/*
 * Outgrown: a larger sheaf takes over s's objects, as in SLUB. Both are
 * held by the caller meanwhile (sheaf_prefill_hand()).
 */
static int
sheaf_prefill_grow(struct sheaf_prefill_ctx *c, struct rte_sheaf_prefill **pfp,
	unsigned int n)
{
	struct sheaf *s = sheaf_handle_sheaf(*pfp), *t = sheaf_prefill_new(c, n);
	const unsigned int k = s->size;

	if (t == NULL)
		return -ENOMEM;
	memcpy(t->objs, s->objs, k * sizeof(void *));
	sheaf_prefill_hand(s, t, k);
	if (sheaf_prefill_load(c, t, n, n) < 0) {
		/* The objects back to s, whose objs[] still holds them. */
		sheaf_prefill_hand(t, s, k);
		sheaf_prefill_release(c, t);
		return -ENOMEM;
	}
	/*
	 * Live, unless another thread returned the handle meanwhile (two
	 * users of one handle, the caller's bug): t and what it holds go
	 * back to the pool. Objects may then be doubled with the other
	 * thread's return, as with any concurrent use of one handle.
	 */
	if (!sheaf_prefill_unlend(s, *pfp)) {
		sheaf_prefill_release(c, t);
		return -EINVAL;
	}
	sheaf_prefill_release(c, s);
	*pfp = sheaf_prefill_lend(t);
	return 0;
}

int
rte_sheaf_prefill_refill(struct rte_mempool *mp,
	struct rte_sheaf_prefill **pfp, unsigned int n)
{
	struct sheaf_prefill_ctx c;
	struct sheaf_pool *sp;
	struct sheaf *s;
	int ret;

	if (sheaf_prefill_check_n(mp, n) < 0)
		return -EINVAL;
	sp = sheaf_pool_of(mp);
	if (pfp == NULL) {
		SHEAF_LOG(ERR, "pool %s: NULL sheaf pointer", mp->name);
		return sheaf_prefill_fail(EINVAL);
	}
	s = sheaf_prefill_check(*pfp, sp, __func__, true);
	if (s == NULL)
		return -rte_errno;
	if (s->size >= n)
		return 0;
	if (n > mp->size)
		return sheaf_prefill_fail(ENOMEM);
	ret = sheaf_prefill_enter(sp, &c);
	if (ret < 0)
		return ret;
	if (n <= s->capacity)
		ret = sheaf_prefill_load(&c, s, n, sheaf_prefill_top(&c, s, n));
	else
		ret = sheaf_prefill_grow(&c, pfp, n);
	sheaf_prefill_leave(&c);
	if (ret < 0)
		return sheaf_prefill_fail(-ret);
	return 0;
}

int
rte_sheaf_prefill_put(struct rte_mempool *mp, struct rte_sheaf_prefill *pf)
{
	struct sheaf_prefill_ctx c;
	struct sheaf_pool *sp;
	struct sheaf *s;
	int ret;

	if (sheaf_pool_check(mp) < 0)
		return -EINVAL;
	sp = sheaf_pool_of(mp);
	s = sheaf_prefill_check(pf, sp, __func__, true);
	if (s == NULL)
		return -rte_errno;
	ret = sheaf_prefill_enter(sp, &c);
	if (ret < 0)
		return ret;
	/* Of two puts of one handle (a caller's bug), one returns it. */
	if (!sheaf_prefill_unlend(s, pf)) {
		sheaf_prefill_leave(&c);
		SHEAF_LOG(ERR, "pool %s: sheaf handle %p returned meanwhile by another thread",
			mp->name, (const void *)pf);
		return sheaf_prefill_fail(EINVAL);
	}
	sheaf_prefill_release(&c, s);
	sheaf_prefill_leave(&c);
	return 0;
}

int
rte_sheaf_prefill_size(const struct rte_sheaf_prefill *pf)
{
	const struct sheaf *s = sheaf_prefill_check(pf, NULL, __func__, false);

	if (s == NULL)
		return -EINVAL;
	/*
	 * Relaxed: a recoverer that took the sheaf from a dead borrower
	 * after the look may be storing it (sheaf_lend_take(), then the
	 * barn's journaled store); a count, as the borrower's own stores.
	 */
	return (int)__atomic_load_n(&s->size, __ATOMIC_RELAXED);
}

/*
 * The borrower takes the top n of its lent sheaf s (n <= its size) into
 * objs. The size lowered before the objects leave, a signal fence between
 * (a death between leaves them out of the sheaf, as a death just after
 * the call does: never in two places). Relaxed: racy readers count it
 * (sheaf_barn_count()'s stale stack entries): whole values, no hand-over.
 */
static __rte_always_inline void
sheaf_prefill_take(struct sheaf *s, void **objs, unsigned int n)
{
	uint32_t size = s->size - n;

	__atomic_store_n(&s->size, size, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	sheaf_objs_copy(objs, &s->objs[size], n);
	if (unlikely(sheaf_validate_on(s->pool)))
		sheaf_validate_take(s->pool, objs, n);
}

int
rte_sheaf_prefill_alloc(struct rte_sheaf_prefill *pf, void **obj)
{
	struct sheaf *s;

	if (unlikely(obj == NULL)) {
		SHEAF_PREFILL_LOG(ERR, "NULL object pointer");
		return sheaf_prefill_fail(EINVAL);
	}
	s = sheaf_prefill_check(pf, NULL, __func__, true);
	if (unlikely(s == NULL))
		return -rte_errno;
	if (unlikely(s->size == 0))
		return sheaf_prefill_fail(ENOBUFS);
	sheaf_prefill_take(s, obj, 1);
	return 0;
}

int
rte_sheaf_prefill_alloc_bulk(struct rte_sheaf_prefill *pf, void **objs,
	unsigned int n)
{
	struct sheaf *s;

	if (unlikely(objs == NULL && n != 0)) {
		SHEAF_PREFILL_LOG(ERR, "NULL object table");
		return sheaf_prefill_fail(EINVAL);
	}
	s = sheaf_prefill_check(pf, NULL, __func__, true);
	if (unlikely(s == NULL))
		return -rte_errno;
	if (unlikely(n > s->size))
		return sheaf_prefill_fail(ENOBUFS);
	sheaf_prefill_take(s, objs, n);
	return 0;
}

/*
 * Whether mp is a pktmbuf pool: its private area is
 * rte_pktmbuf_pool_private's, and its objects hold an mbuf with the
 * private area and data room it names (as rte_pktmbuf_pool_init()
 * requires), so that rte_pktmbuf_reset() writes inside each object.
 */
static bool
sheaf_prefill_mbuf_pool(const struct rte_mempool *mp)
{
	const struct rte_pktmbuf_pool_private *p;

	if (mp->private_data_size < sizeof(*p))
		return false;
	p = rte_mempool_get_priv((struct rte_mempool *)(uintptr_t)mp);
	/* Pinned external buffers: the data room lies outside. */
	return (uint64_t)mp->elt_size >= sizeof(struct rte_mbuf) +
		(uint64_t)p->mbuf_priv_size +
		((p->flags & RTE_PKTMBUF_POOL_F_PINNED_EXT_BUF) != 0 ?
			sizeof(struct rte_mbuf_ext_shared_info) :
			p->mbuf_data_room_size);
}

int
rte_sheaf_prefill_pktmbuf_alloc(struct rte_sheaf_prefill *pf,
	struct rte_mbuf **mbufs, unsigned int n)
{
	const struct sheaf *s = sheaf_prefill_check(pf, NULL, __func__, false);
	unsigned int i;
	int ret;

	if (unlikely(s == NULL))
		return -EINVAL;
	if (unlikely(!sheaf_prefill_mbuf_pool(s->pool->mp))) {
		SHEAF_PREFILL_LOG(ERR, "pool %s is not a pktmbuf pool",
			s->pool->mp->name);
		return sheaf_prefill_fail(EINVAL);
	}
	ret = rte_sheaf_prefill_alloc_bulk(pf, (void **)mbufs, n);
	if (unlikely(ret < 0))
		return ret;
	/* As rte_pktmbuf_alloc_bulk(): a raw check, then a reset. */
	for (i = 0; i < n; i++) {
		__rte_mbuf_raw_sanity_check(mbufs[i]);
		rte_pktmbuf_reset(mbufs[i]);
	}
	return 0;
}
