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
 * circulation, or one from rte_malloc when it must be larger than the
 * pool's capacity (oversize, freed on return) or no arena sheaf is free.
 *
 * Borrowing takes a sheaf whole where it can: a full sheaf of the home
 * barn, else the caller's own spare or main, an empty barn sheaf taking
 * its place. Otherwise an empty sheaf is loaded, cheapest source first:
 * the caller's own sheaves, the barns' full sheaves, the slabs, then the
 * sheaves of idle lcores (stolen into the slabs). A borrow or a refill
 * that cannot reach n gives back what it took. Returning puts a non-empty
 * arena sheaf whole into the barn while the barn is under its limit; its
 * objects otherwise go to the caller's sheaves, then to the slabs.
 *
 * Handles are checked: a borrowed sheaf carries SHEAF_BORROWED and its
 * pool, both cleared on return, so a second return, or a return to
 * another pool, is refused. The calls that reach the tiers claim the
 * caller's lcore slot as the slow paths do (busy mark, steal check, see
 * sheaf_lcore.c); re-entered from a signal handler they refuse (EBUSY).
 */

#include <stdbool.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "sheaf_barn.h"
#include "sheaf_lcore.h"
#include "sheaf_prefill.h"
#include "sheaf_slab.h"
#include "sheaf_validate.h"

/* The caller of a call that reaches the tiers. */
struct sheaf_prefill_ctx {
	struct sheaf_pool *sp;
	/* The caller's slot, claimed (busy, no thief): its sheaves are ours.
	 * NULL for a thread without one, or while a thief empties it.
	 */
	struct sheaf_lcore *lc;
	uint32_t home; /* barn and depot tried first */
};

static inline struct sheaf *
sheaf_of(const struct rte_sheaf_prefill *pf)
{
	return (struct sheaf *)(uintptr_t)pf;
}

static int
sheaf_prefill_fail(int err)
{
	rte_errno = err;
	return -err;
}

/* A borrowed sheaf of sp (of any pool if sp is NULL). Logs when not. */
static int
sheaf_prefill_check(const struct sheaf *s, const struct sheaf_pool *sp,
	const char *caller)
{
	if (s == NULL) {
		SHEAF_LOG(ERR, "%s: NULL sheaf", caller);
		return sheaf_prefill_fail(EINVAL);
	}
	if (s->borrowed != SHEAF_BORROWED) {
		SHEAF_LOG(ERR, "%s: sheaf %p is not borrowed (returned already?)",
			caller, (const void *)s);
		return sheaf_prefill_fail(EINVAL);
	}
	if (sp != NULL && s->owner != sp) {
		SHEAF_LOG(ERR, "%s: sheaf %p belongs to pool %s, not %s", caller,
			(const void *)s, s->owner->mp->name, sp->mp->name);
		return sheaf_prefill_fail(EINVAL);
	}
	return 0;
}

static void
sheaf_prefill_stat(const struct sheaf_prefill_ctx *c, enum rte_sheaf_stat id,
	uint64_t v)
{
	sheaf_stat_add(c->sp, c->lc, id, v);
}

/*
 * Claim the caller's slot as sheaf_pool_get() does. A thief at work on it
 * leaves the caller slotless for this call; a busy slot means a signal
 * handler interrupted the pool on this thread: refused.
 */
static int
sheaf_prefill_enter(struct sheaf_pool *sp, struct sheaf_prefill_ctx *c)
{
	unsigned int socket;

	c->sp = sp;
	if (sheaf_lcore_hold(sp, &c->lc) < 0) {
		SHEAF_LOG(ERR, "pool %s: called from a signal handler inside the pool",
			sp->mp->name);
		return sheaf_prefill_fail(EBUSY);
	}
	if (c->lc != NULL) {
		c->home = c->lc->barn;
		return 0;
	}
	socket = rte_socket_id();
	c->home = socket < sp->nb_barns ? socket : 0;
	return 0;
}

static void
sheaf_prefill_leave(struct sheaf_prefill_ctx *c)
{
	sheaf_lcore_release(c->lc);
}

static struct sheaf *
sheaf_prefill_barn_get(const struct sheaf_prefill_ctx *c, uint32_t b,
	bool full)
{
	struct sheaf *s;

	sheaf_busy_set(c->lc, SHEAF_BUSY_BARN);
	s = full ? sheaf_barn_get_full(c->sp, b) : sheaf_barn_get_empty(c->sp, b);
	sheaf_busy_clear(c->lc, SHEAF_BUSY_BARN);
	return s;
}

static void
sheaf_prefill_barn_put(const struct sheaf_prefill_ctx *c, struct sheaf *s)
{
	sheaf_busy_set(c->lc, SHEAF_BUSY_BARN);
	if (s->size != 0)
		sheaf_barn_put_full(c->sp, c->home, s);
	else
		sheaf_barn_put_empty(c->sp, c->home, s);
	sheaf_busy_clear(c->lc, SHEAF_BUSY_BARN);
}

/* Take up to n objects from the caller's own spare, then main. */
static unsigned int
sheaf_prefill_from_own(const struct sheaf_prefill_ctx *c, void **objs,
	unsigned int n)
{
	struct sheaf_lcore *lc = c->lc;
	unsigned int got, t;

	if (lc == NULL)
		return 0;
	got = RTE_MIN(lc->spare->size, n);
	lc->spare->size -= got;
	memcpy(objs, &lc->spare->objs[lc->spare->size], got * sizeof(void *));
	/* main->size is stale while the owner holds main: msize counts. */
	t = RTE_MIN(lc->msize, n - got);
	lc->msize -= t;
	memcpy(objs + got, &lc->main->objs[lc->msize], t * sizeof(void *));
	return got + t;
}

/*
 * Take up to max objects from the barns' full sheaves, then, short of
 * need, from the slabs. Returns the objects taken.
 */
static unsigned int
sheaf_prefill_from_shared(const struct sheaf_prefill_ctx *c, void **objs,
	unsigned int need, unsigned int max)
{
	unsigned int got;

	got = sheaf_barns_take(c->sp, c->lc, c->home, objs, max);
	if (got >= need)
		return got;
	sheaf_depot_enter(c->lc);
	got += sheaf_slab_alloc_bulk(c->sp, c->home, objs + got, max - got);
	sheaf_depot_leave(c->sp, c->lc);
	return got;
}

/* Put objects back: room in the caller's own sheaves, then the slabs. */
static void
sheaf_prefill_to_tiers(const struct sheaf_prefill_ctx *c, void * const *objs,
	unsigned int n)
{
	struct sheaf_lcore *lc = c->lc;
	unsigned int t, bad;

	if (lc != NULL) {
		t = RTE_MIN(lc->main->capacity - lc->msize, n);
		memcpy(&lc->main->objs[lc->msize], objs, t * sizeof(void *));
		lc->msize += t;
		objs += t;
		n -= t;
		t = RTE_MIN(lc->spare->capacity - lc->spare->size, n);
		memcpy(&lc->spare->objs[lc->spare->size], objs,
			t * sizeof(void *));
		lc->spare->size += t;
		objs += t;
		n -= t;
	}
	if (n == 0)
		return;
	sheaf_depot_enter(lc);
	bad = sheaf_slab_free_bulk(c->sp, objs, n);
	sheaf_depot_leave(c->sp, lc);
	if (bad != 0)
		sheaf_prefill_stat(c, RTE_SHEAF_STAT_FREE_INVALID, bad);
}

/*
 * Load s to at least min objects, up to max, climbing while short of min.
 * All or nothing: short of min, what was loaded goes back and s is as it
 * was. Returns 0 or -ENOMEM.
 */
static int
sheaf_prefill_load(const struct sheaf_prefill_ctx *c, struct sheaf *s,
	unsigned int min, unsigned int max)
{
	const unsigned int from = s->size;
	unsigned int got = from;

	got += sheaf_prefill_from_own(c, &s->objs[got], max - got);
	if (got < min)
		got += sheaf_prefill_from_shared(c, &s->objs[got], min - got,
			max - got);
	/* Objects stranded on idle lcores: take them back, look once more. */
	if (got < min) {
		sheaf_lcore_steal(c->sp, c->lc);
		got += sheaf_prefill_from_shared(c, &s->objs[got], min - got,
			max - got);
	}
	if (got < min) {
		sheaf_prefill_to_tiers(c, &s->objs[from], got - from);
		sheaf_prefill_stat(c, RTE_SHEAF_STAT_PREFILL_FAIL, 1);
		return -ENOMEM;
	}
	s->size = got;
	sheaf_prefill_stat(c, RTE_SHEAF_STAT_PREFILL, got - from);
	return 0;
}

/*
 * A sheaf holding at least n objects without a copy: a full barn sheaf,
 * else the caller's spare or main, handing it an empty barn sheaf in
 * trade (its main and spare are never NULL). NULL if none.
 */
static struct sheaf *
sheaf_prefill_take_whole(const struct sheaf_prefill_ctx *c, unsigned int n)
{
	struct sheaf_lcore *lc = c->lc;
	struct sheaf *s, *e;

	s = sheaf_prefill_barn_get(c, c->home, true);
	if (s != NULL) {
		sheaf_prefill_stat(c, RTE_SHEAF_STAT_BARN_GET, 1);
		return s;
	}
	if (lc == NULL || RTE_MAX(lc->spare->size, lc->msize) < n)
		return NULL;
	e = sheaf_prefill_barn_get(c, c->home, false);
	if (e == NULL)
		return NULL;
	if (lc->spare->size >= n) {
		s = lc->spare;
		lc->spare = e;
	} else {
		s = lc->main;
		s->size = lc->msize;
		lc->main = e;
		lc->msize = 0;
	}
	return s;
}

/* An empty sheaf for n objects: from the barn, or rte_malloc. */
static struct sheaf *
sheaf_prefill_new(const struct sheaf_prefill_ctx *c, unsigned int n)
{
	struct sheaf_pool *sp = c->sp;
	uint32_t cap = RTE_MAX(n, sp->cfg.capacity);
	struct sheaf *s;

	if (n <= sp->cfg.capacity) {
		s = sheaf_prefill_barn_get(c, c->home, false);
		if (s != NULL)
			return s;
	} else {
		sheaf_prefill_stat(c, RTE_SHEAF_STAT_PREFILL_OVERSIZE, 1);
	}
	s = rte_malloc_socket("sheaf_prefill",
		sizeof(*s) + (size_t)cap * sizeof(void *), RTE_CACHE_LINE_SIZE,
		sp->mp->socket_id);
	if (s == NULL) {
		SHEAF_LOG(ERR, "pool %s: no memory for a sheaf of %u objects",
			sp->mp->name, cap);
		return NULL;
	}
	s->size = 0;
	s->capacity = cap;
	s->borrowed = 0;
	s->flags = SHEAF_F_MALLOC;
	s->owner = NULL;
	return s;
}

/*
 * Take back a sheaf that is not (or no longer) lent, with its objects:
 * whole into the barn while under its limit, else objects to the tiers.
 */
static void
sheaf_prefill_release(const struct sheaf_prefill_ctx *c, struct sheaf *s)
{
	struct sheaf_pool *sp = c->sp;

	/* Racy limit check, as sheaf_barn_replace_full(): may overshoot. */
	if (!(s->flags & SHEAF_F_MALLOC) && s->size != 0 &&
			rte_ring_count(sp->barn[c->home].full) <
			sp->cfg.barn_max_full) {
		sheaf_prefill_barn_put(c, s);
		return;
	}
	sheaf_prefill_to_tiers(c, s->objs, s->size);
	s->size = 0;
	if (s->flags & SHEAF_F_MALLOC)
		rte_free(s);
	else
		sheaf_prefill_barn_put(c, s);
}

static void
sheaf_prefill_lend(struct sheaf_pool *sp, struct sheaf *s)
{
	s->owner = sp;
	s->borrowed = SHEAF_BORROWED;
	/* Relaxed: a statistic, read racily by rte_sheaf_info_get(). */
	__atomic_fetch_add(&sp->nb_borrowed, 1, __ATOMIC_RELAXED);
}

/* Pool checks shared by get and refill; n == 0 is a caller's bug. */
static int
sheaf_prefill_check_n(const struct rte_mempool *mp, unsigned int n)
{
	if (rte_sheaf_pool_check(mp) < 0)
		return -EINVAL;
	if (n == 0) {
		SHEAF_LOG(ERR, "pool %s: zero objects requested", mp->name);
		return sheaf_prefill_fail(EINVAL);
	}
	return 0;
}

struct rte_sheaf_prefill *
rte_sheaf_prefill_get(struct rte_mempool *mp, unsigned int n)
{
	struct sheaf_prefill_ctx c;
	struct sheaf_pool *sp;
	struct sheaf *s;
	int ret = 0;

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
	s = n <= sp->cfg.capacity ? sheaf_prefill_take_whole(&c, n) : NULL;
	if (s == NULL)
		s = sheaf_prefill_new(&c, n);
	if (s == NULL) {
		ret = -ENOMEM;
	} else if (s->size < n) {
		ret = sheaf_prefill_load(&c, s, n, s->capacity);
		if (ret < 0)
			sheaf_prefill_release(&c, s);
	} else {
		sheaf_prefill_stat(&c, RTE_SHEAF_STAT_PREFILL, s->size);
	}
	sheaf_prefill_leave(&c);
	if (ret < 0) {
		SHEAF_LOG(DEBUG, "pool %s: cannot supply %u objects", mp->name,
			n);
		sheaf_prefill_fail(ENOMEM);
		return NULL;
	}
	sheaf_prefill_lend(sp, s);
	return (struct rte_sheaf_prefill *)s;
}

int
rte_sheaf_prefill_refill(struct rte_mempool *mp,
	struct rte_sheaf_prefill **pfp, unsigned int n)
{
	struct sheaf_prefill_ctx c;
	struct sheaf_pool *sp;
	struct sheaf *s, *t;
	int ret;

	if (sheaf_prefill_check_n(mp, n) < 0)
		return -EINVAL;
	sp = sheaf_pool_of(mp);
	if (pfp == NULL) {
		SHEAF_LOG(ERR, "pool %s: NULL sheaf pointer", mp->name);
		return sheaf_prefill_fail(EINVAL);
	}
	s = sheaf_of(*pfp);
	if (sheaf_prefill_check(s, sp, __func__) < 0)
		return -EINVAL;
	if (s->size >= n)
		return 0;
	if (n > mp->size)
		return sheaf_prefill_fail(ENOMEM);
	ret = sheaf_prefill_enter(sp, &c);
	if (ret < 0)
		return ret;
	if (n <= s->capacity) {
		ret = sheaf_prefill_load(&c, s, n, s->capacity);
		goto out;
	}
	/* Outgrown: a larger sheaf takes over the objects, as in SLUB. */
	t = sheaf_prefill_new(&c, n);
	if (t == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	memcpy(t->objs, s->objs, s->size * sizeof(void *));
	t->size = s->size;
	ret = sheaf_prefill_load(&c, t, n, n);
	if (ret < 0) {
		t->size = 0; /* the objects stay with s */
		rte_free(t);
		goto out;
	}
	s->borrowed = 0;
	s->owner = NULL;
	s->size = 0;
	sheaf_prefill_release(&c, s);
	t->owner = sp;
	t->borrowed = SHEAF_BORROWED;
	*pfp = (struct rte_sheaf_prefill *)t;
out:
	sheaf_prefill_leave(&c);
	return ret < 0 ? sheaf_prefill_fail(-ret) : 0;
}

int
rte_sheaf_prefill_put(struct rte_mempool *mp, struct rte_sheaf_prefill *pf)
{
	struct sheaf *s = sheaf_of(pf);
	struct sheaf_prefill_ctx c;
	struct sheaf_pool *sp;
	int ret;

	if (rte_sheaf_pool_check(mp) < 0)
		return -EINVAL;
	sp = sheaf_pool_of(mp);
	if (sheaf_prefill_check(s, sp, __func__) < 0)
		return -EINVAL;
	ret = sheaf_prefill_enter(sp, &c);
	if (ret < 0)
		return ret;
	s->borrowed = 0;
	s->owner = NULL;
	sheaf_prefill_release(&c, s);
	sheaf_prefill_leave(&c);
	/* Relaxed: a statistic, see sheaf_prefill_lend(). */
	__atomic_fetch_sub(&sp->nb_borrowed, 1, __ATOMIC_RELAXED);
	return 0;
}

int
rte_sheaf_prefill_size(const struct rte_sheaf_prefill *pf)
{
	const struct sheaf *s = sheaf_of(pf);

	if (sheaf_prefill_check(s, NULL, __func__) < 0)
		return -EINVAL;
	return (int)s->size;
}

int
rte_sheaf_prefill_alloc(struct rte_sheaf_prefill *pf, void **obj)
{
	struct sheaf *s = sheaf_of(pf);

	if (unlikely(obj == NULL)) {
		SHEAF_LOG(ERR, "NULL object pointer");
		return sheaf_prefill_fail(EINVAL);
	}
	if (unlikely(sheaf_prefill_check(s, NULL, __func__) < 0))
		return -EINVAL;
	if (unlikely(s->size == 0))
		return sheaf_prefill_fail(ENOBUFS);
	*obj = s->objs[--s->size];
	if (unlikely(sheaf_validate_on(s->owner)))
		sheaf_validate_take(s->owner, obj, 1);
	return 0;
}

int
rte_sheaf_prefill_alloc_bulk(struct rte_sheaf_prefill *pf, void **objs,
	unsigned int n)
{
	struct sheaf *s = sheaf_of(pf);

	if (unlikely(objs == NULL && n != 0)) {
		SHEAF_LOG(ERR, "NULL object table");
		return sheaf_prefill_fail(EINVAL);
	}
	if (unlikely(sheaf_prefill_check(s, NULL, __func__) < 0))
		return -EINVAL;
	if (unlikely(n > s->size))
		return sheaf_prefill_fail(ENOBUFS);
	s->size -= n;
	sheaf_objs_copy(objs, &s->objs[s->size], n);
	if (unlikely(sheaf_validate_on(s->owner)))
		sheaf_validate_take(s->owner, objs, n);
	return 0;
}

int
rte_sheaf_prefill_pktmbuf_alloc(struct rte_sheaf_prefill *pf,
	struct rte_mbuf **mbufs, unsigned int n)
{
	const struct sheaf *s = sheaf_of(pf);
	unsigned int i;
	int ret;

	if (unlikely(sheaf_prefill_check(s, NULL, __func__) < 0))
		return -EINVAL;
	if (unlikely(s->owner->mp->private_data_size <
			sizeof(struct rte_pktmbuf_pool_private))) {
		SHEAF_LOG(ERR, "pool %s is not a pktmbuf pool",
			s->owner->mp->name);
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
