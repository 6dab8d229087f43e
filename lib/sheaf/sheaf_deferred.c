/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Deferred free under RCU: SLUB's rcu_free sheaf (kfree_rcu() batching),
 * on DPDK's QSBR instead of call_rcu().
 *
 * Each lcore collects its deferred frees in its own deferred sheaf, with
 * no lock and no atomic. A full sheaf is stamped with one token of
 * rte_rcu_qsbr_start() and appended to its socket's FIFO. Reclaim looks
 * at the FIFO's head only: once rte_rcu_qsbr_check() (non-blocking) says
 * every reader has passed the token, the whole sheaf goes back into
 * circulation, as a full sheaf in the barn or straight in as the main
 * sheaf of an lcore that is refilling. One token and one check per sheaf,
 * no copy of objects, no callback per object; SLUB's call_rcu() handler
 * does the same with barn_put_full_sheaf().
 *
 * Where SLUB allocates a new rcu_free sheaf with GFP_NOWAIT, the arena
 * here is fixed: an empty sheaf comes from the barn, else from an expired
 * deferred sheaf or a full barn sheaf whose objects go to the slabs. With
 * none of these, objects are queued one by one on a pool-wide queue of
 * (object, token) pairs, as SLUB falls back to its older kfree_rcu()
 * batching: nothing blocks, nothing is lost.
 *
 * Threads without an lcore slot, and calls that find their slot busy (a
 * signal handler), share one deferred sheaf per socket, under the FIFO's
 * lock.
 *
 * Deferred objects are in use for get_count until they are reclaimed.
 */

#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "sheaf_barn.h"
#include "sheaf_deferred.h"
#include "sheaf_lcore.h"
#include "sheaf_slab.h"

/* Sheaves moved per FIFO lock hold: bounds the hold time and the stack. */
#define SHEAF_RCU_BATCH 32
/* Fallback objects freed per lock hold, for the same reasons. */
#define SHEAF_RCU_OBJ_BATCH 64

/* The calling thread, for one deferred operation. */
struct sheaf_rcu_ctx {
	struct sheaf_pool *sp;
	struct sheaf_deferred *d;
	struct sheaf_lcore *lc; /* the caller's slot, held busy, or NULL */
	uint32_t avoid;         /* busy bits of a call this one interrupted */
};

static void
sheaf_rcu_stat(const struct sheaf_rcu_ctx *c, enum rte_sheaf_stat id,
	uint64_t v)
{
	sheaf_stat_add(c->sp, c->lc, id, v);
}

static uint32_t
sheaf_rcu_home(const struct sheaf_pool *sp)
{
	unsigned int socket = rte_socket_id();

	return socket < sp->nb_barns ? socket : 0;
}

/* Stamp s and append it to f; caller holds f->lock. */
static void
sheaf_rcu_fifo_append(const struct sheaf_rcu_ctx *c, struct sheaf_rcu_fifo *f,
	struct sheaf *s)
{
	struct sheaf_rcu_entry *e;

	RTE_ASSERT(f->count < c->sp->nb_sheaves && s->size != 0);
	e = &f->ent[(f->head + f->count) % c->sp->nb_sheaves];
	e->s = s;
	/*
	 * rte_rcu_qsbr_start() is a release: the unlinks of s's objects,
	 * made before they were freed, are visible to any reader that has
	 * seen the new token, that is, that has reported reaching it.
	 */
	e->token = rte_rcu_qsbr_start(c->d->v);
	/* Relaxed: racy readers only skip or retry; the lock orders the rest. */
	__atomic_store_n(&f->count, f->count + 1, __ATOMIC_RELAXED);
	sheaf_rcu_stat(c, RTE_SHEAF_STAT_DEFERRED_STAMP, 1);
}

/* Stamp s and queue it on barn b's FIFO. */
static void
sheaf_rcu_stamp(const struct sheaf_rcu_ctx *c, uint32_t b, struct sheaf *s)
{
	struct sheaf_rcu_fifo *f = &c->d->fifo[b];

	sheaf_busy_set(c->lc, SHEAF_BUSY_DEFERRED);
	rte_spinlock_lock(&f->lock);
	sheaf_rcu_fifo_append(c, f, s);
	rte_spinlock_unlock(&f->lock);
	sheaf_busy_clear(c->lc, SHEAF_BUSY_DEFERRED);
}

/* Take up to max expired sheaves off f's head; caller holds f->lock. */
static unsigned int
sheaf_rcu_fifo_pop(const struct sheaf_rcu_ctx *c, struct sheaf_rcu_fifo *f,
	struct sheaf **got, unsigned int max)
{
	unsigned int k = 0;

	while (k < max && f->count != 0) {
		const struct sheaf_rcu_entry *e = &f->ent[f->head];

		/*
		 * Non-blocking. Its acquire loads of the readers' counters
		 * order their last accesses to the objects before reuse.
		 */
		if (rte_rcu_qsbr_check(c->d->v, e->token, false) != 1)
			break;
		got[k++] = e->s;
		f->head = (f->head + 1) % c->sp->nb_sheaves;
		__atomic_store_n(&f->count, f->count - 1, __ATOMIC_RELAXED);
	}
	return k;
}

/* Objects of a sheaf to the slabs, under the caller's depot mark. */
static void
sheaf_rcu_slab_free(const struct sheaf_rcu_ctx *c, void * const *objs,
	unsigned int n)
{
	unsigned int bad;

	sheaf_depot_enter(c->lc);
	bad = sheaf_slab_free_bulk(c->sp, objs, n);
	sheaf_depot_leave(c->sp, c->lc);
	if (bad != 0)
		sheaf_rcu_stat(c, RTE_SHEAF_STAT_FREE_INVALID, bad);
}

/*
 * A sheaf past its grace period goes back into circulation through barn
 * b: as a full sheaf while the barn is under its limit (racy check, as
 * the put ladder's), else its objects go to the slabs. Returns objects.
 */
static unsigned int
sheaf_rcu_return(const struct sheaf_rcu_ctx *c, uint32_t b, struct sheaf *s)
{
	unsigned int n = s->size;

	sheaf_rcu_stat(c, RTE_SHEAF_STAT_DEFERRED_RECLAIM, n);
	sheaf_busy_set(c->lc, SHEAF_BUSY_BARN);
	if (rte_ring_count(c->sp->barn[b].full) < c->sp->cfg.barn_max_full) {
		sheaf_barn_put_full(c->sp, b, s);
		sheaf_busy_clear(c->lc, SHEAF_BUSY_BARN);
		return n;
	}
	sheaf_busy_clear(c->lc, SHEAF_BUSY_BARN);
	sheaf_rcu_slab_free(c, s->objs, n);
	s->size = 0;
	sheaf_busy_set(c->lc, SHEAF_BUSY_BARN);
	sheaf_barn_put_empty(c->sp, b, s);
	sheaf_busy_clear(c->lc, SHEAF_BUSY_BARN);
	return n;
}

/*
 * An empty sheaf for deferred frees, cheapest rung first: the barn's
 * empties; an expired deferred sheaf; a full barn sheaf. The last two
 * hand their objects to the slabs (SLUB allocates a sheaf instead). NULL
 * when none is left, or when the interrupted call holds what a rung
 * needs. With locked, the caller holds barn b's FIFO lock.
 */
static struct sheaf *
sheaf_rcu_get_empty(const struct sheaf_rcu_ctx *c, uint32_t b, bool locked)
{
	struct sheaf_rcu_fifo *f = &c->d->fifo[b];
	struct sheaf *s = NULL;

	if (c->avoid & SHEAF_BUSY_BARN)
		return NULL;
	sheaf_busy_set(c->lc, SHEAF_BUSY_BARN);
	s = sheaf_barn_get_empty(c->sp, b);
	sheaf_busy_clear(c->lc, SHEAF_BUSY_BARN);
	if (s != NULL || (c->avoid & SHEAF_BUSY_DEPOT))
		return s;

	/* Racy, not critical: an entry appended meanwhile waits anyway. */
	if (__atomic_load_n(&f->count, __ATOMIC_RELAXED) != 0) {
		if (locked) {
			sheaf_rcu_fifo_pop(c, f, &s, 1);
		} else {
			sheaf_busy_set(c->lc, SHEAF_BUSY_DEFERRED);
			if (rte_spinlock_trylock(&f->lock)) {
				sheaf_rcu_fifo_pop(c, f, &s, 1);
				rte_spinlock_unlock(&f->lock);
			}
			sheaf_busy_clear(c->lc, SHEAF_BUSY_DEFERRED);
		}
		if (s != NULL)
			sheaf_rcu_stat(c, RTE_SHEAF_STAT_DEFERRED_RECLAIM,
				s->size);
	}
	if (s == NULL) {
		sheaf_busy_set(c->lc, SHEAF_BUSY_BARN);
		s = sheaf_barn_get_full(c->sp, b);
		sheaf_busy_clear(c->lc, SHEAF_BUSY_BARN);
	}
	if (s != NULL) {
		sheaf_rcu_slab_free(c, s->objs, s->size);
		s->size = 0;
	}
	return s;
}

/*
 * The last rung: objects queued one by one, under one token for the
 * call. Not under a FIFO lock on a held slot (the busy bit would clear).
 */
static void
sheaf_rcu_fallback(const struct sheaf_rcu_ctx *c, void * const *objs,
	unsigned int n)
{
	struct sheaf_rcu_fallback *fb = &c->d->fb;
	unsigned int i;
	uint64_t token;

	sheaf_busy_set(c->lc, SHEAF_BUSY_DEFERRED);
	rte_spinlock_lock(&fb->lock);
	/* A release, after the objects' unlinks: see sheaf_rcu_fifo_append(). */
	token = rte_rcu_qsbr_start(c->d->v);
	for (i = 0; i < n && fb->count < fb->size; i++) {
		struct sheaf_rcu_obj *e =
			&fb->ent[(fb->head + fb->count) % fb->size];

		e->obj = objs[i];
		e->token = token;
		__atomic_store_n(&fb->count, fb->count + 1, __ATOMIC_RELAXED);
	}
	rte_spinlock_unlock(&fb->lock);
	sheaf_busy_clear(c->lc, SHEAF_BUSY_DEFERRED);
	sheaf_rcu_stat(c, RTE_SHEAF_STAT_DEFERRED_FALLBACK, i);
	if (i < n) {
		/* Only more frees than the pool has objects fill it. */
		SHEAF_LOG(ERR, "pool %s: %u objects refused, deferred queue full (double free?)",
			c->sp->mp->name, n - i);
		sheaf_rcu_stat(c, RTE_SHEAF_STAT_FREE_INVALID, n - i);
	}
}

/* Deferred frees into the held slot's own sheaf. */
static void
sheaf_rcu_free_lcore(const struct sheaf_rcu_ctx *c, void * const *objs,
	unsigned int n)
{
	struct sheaf_lcore *lc = c->lc;
	unsigned int done = 0, t;
	struct sheaf *s;

	while (done < n) {
		s = lc->deferred;
		if (s == NULL) {
			s = sheaf_rcu_get_empty(c, lc->barn, false);
			if (s == NULL) {
				sheaf_rcu_fallback(c, objs + done, n - done);
				return;
			}
		}
		t = RTE_MIN(s->capacity - s->size, n - done);
		memcpy(&s->objs[s->size], objs + done, t * sizeof(void *));
		s->size += t;
		done += t;
		if (s->size == s->capacity) {
			/* Relaxed: a barrier's racy probe, see sheaf_rcu_push_idle(). */
			__atomic_store_n(&lc->deferred, NULL, __ATOMIC_RELAXED);
			sheaf_rcu_stamp(c, lc->barn, s);
		} else {
			__atomic_store_n(&lc->deferred, s, __ATOMIC_RELAXED);
		}
	}
}

/* Deferred frees into the socket's shared sheaf, under its FIFO lock. */
static int
sheaf_rcu_free_shared(const struct sheaf_rcu_ctx *c, uint32_t b,
	void * const *objs, unsigned int n)
{
	struct sheaf_rcu_fifo *f = &c->d->fifo[b];
	unsigned int done = 0, t;
	struct sheaf *s;

	/* The interrupted call holds a deferred lock of this thread. */
	if (c->avoid & SHEAF_BUSY_DEFERRED)
		return -EAGAIN;
	rte_spinlock_lock(&f->lock);
	while (done < n) {
		s = f->shared;
		if (s == NULL) {
			s = sheaf_rcu_get_empty(c, b, true);
			if (s == NULL) {
				sheaf_rcu_fallback(c, objs + done, n - done);
				break;
			}
			f->shared = s;
		}
		t = RTE_MIN(s->capacity - s->size, n - done);
		memcpy(&s->objs[s->size], objs + done, t * sizeof(void *));
		s->size += t;
		done += t;
		if (s->size == s->capacity) {
			f->shared = NULL;
			sheaf_rcu_fifo_append(c, f, s);
		}
	}
	rte_spinlock_unlock(&f->lock);
	return 0;
}

int
sheaf_deferred_free(struct sheaf_pool *sp, void * const *objs, unsigned int n)
{
	struct sheaf_rcu_ctx c = { .sp = sp, .d = sheaf_deferred_of(sp) };
	struct sheaf_lcore *lc = sheaf_lcore_own_slot(sp);
	uint32_t b;
	int ret;

	if (likely(lc != NULL && lc->busy == 0)) {
		lc->busy = SHEAF_BUSY_SHEAF;
		rte_compiler_barrier(); /* see sheaf_lcore_get() */
		if (likely(__atomic_load_n(&lc->steal, __ATOMIC_ACQUIRE) == 0)) {
			c.lc = lc;
			sheaf_rcu_free_lcore(&c, objs, n);
			lc->stat[RTE_SHEAF_STAT_FREE_DEFERRED] += n;
			rte_compiler_barrier();
			lc->busy = 0;
			return 0;
		}
		/* A thief holds the slot: shared path, not a re-entry. */
		lc->busy = 0;
		lc = NULL;
	}
	if (lc != NULL) {
		c.avoid = lc->busy;
		b = lc->barn;
		sheaf_rcu_stat(&c, RTE_SHEAF_STAT_REENTRANT, 1);
	} else {
		b = sheaf_rcu_home(sp);
	}
	ret = sheaf_rcu_free_shared(&c, b, objs, n);
	if (ret == 0)
		sheaf_rcu_stat(&c, RTE_SHEAF_STAT_FREE_DEFERRED, n);
	return ret;
}

/* Expired sheaves of barn b's FIFO back into circulation. */
static unsigned int
sheaf_rcu_reclaim_fifo(const struct sheaf_rcu_ctx *c, uint32_t b, bool try)
{
	struct sheaf_rcu_fifo *f = &c->d->fifo[b];
	struct sheaf *got[SHEAF_RCU_BATCH];
	unsigned int i, k, n = 0;

	do {
		/* Racy, not critical: an append missed now is seen next time. */
		if (__atomic_load_n(&f->count, __ATOMIC_RELAXED) == 0)
			break;
		sheaf_busy_set(c->lc, SHEAF_BUSY_DEFERRED);
		if (try) {
			if (!rte_spinlock_trylock(&f->lock)) {
				sheaf_busy_clear(c->lc, SHEAF_BUSY_DEFERRED);
				break;
			}
		} else {
			rte_spinlock_lock(&f->lock);
		}
		k = sheaf_rcu_fifo_pop(c, f, got, SHEAF_RCU_BATCH);
		rte_spinlock_unlock(&f->lock);
		sheaf_busy_clear(c->lc, SHEAF_BUSY_DEFERRED);
		for (i = 0; i < k; i++)
			n += sheaf_rcu_return(c, b, got[i]);
	} while (k == SHEAF_RCU_BATCH);
	return n;
}

/* Expired fallback objects to the slabs. */
static unsigned int
sheaf_rcu_reclaim_fallback(const struct sheaf_rcu_ctx *c, bool try)
{
	struct sheaf_rcu_fallback *fb = &c->d->fb;
	void *tmp[SHEAF_RCU_OBJ_BATCH];
	unsigned int k, n = 0;

	do {
		/* Racy, not critical, as in sheaf_rcu_reclaim_fifo(). */
		if (__atomic_load_n(&fb->count, __ATOMIC_RELAXED) == 0)
			break;
		sheaf_busy_set(c->lc, SHEAF_BUSY_DEFERRED);
		if (try) {
			if (!rte_spinlock_trylock(&fb->lock)) {
				sheaf_busy_clear(c->lc, SHEAF_BUSY_DEFERRED);
				break;
			}
		} else {
			rte_spinlock_lock(&fb->lock);
		}
		k = 0;
		while (k < SHEAF_RCU_OBJ_BATCH && fb->count != 0 &&
				rte_rcu_qsbr_check(c->d->v,
					fb->ent[fb->head].token, false) == 1) {
			tmp[k++] = fb->ent[fb->head].obj;
			fb->head = (fb->head + 1) % fb->size;
			__atomic_store_n(&fb->count, fb->count - 1,
				__ATOMIC_RELAXED);
		}
		rte_spinlock_unlock(&fb->lock);
		sheaf_busy_clear(c->lc, SHEAF_BUSY_DEFERRED);
		if (k != 0) {
			sheaf_rcu_slab_free(c, tmp, k);
			sheaf_rcu_stat(c, RTE_SHEAF_STAT_DEFERRED_RECLAIM, k);
		}
		n += k;
	} while (k == SHEAF_RCU_OBJ_BATCH);
	return n;
}

unsigned int
sheaf_deferred_refill(struct sheaf_pool *sp, struct sheaf_lcore *lc)
{
	struct sheaf_rcu_ctx c = { .sp = sp, .d = sheaf_deferred_of(sp),
		.lc = lc };
	struct sheaf_rcu_fifo *f;
	struct sheaf *s = NULL;

	if (c.d == NULL)
		return 0;
	/* Fallback objects go to the slabs; the slab rung finds them. */
	sheaf_rcu_reclaim_fallback(&c, true);
	f = &c.d->fifo[lc->barn];
	/* Racy, not critical: an append missed now is seen next time. */
	if (__atomic_load_n(&f->count, __ATOMIC_RELAXED) == 0)
		return 0;
	sheaf_busy_set(c.lc, SHEAF_BUSY_DEFERRED);
	if (rte_spinlock_trylock(&f->lock)) {
		sheaf_rcu_fifo_pop(&c, f, &s, 1);
		rte_spinlock_unlock(&f->lock);
	}
	sheaf_busy_clear(c.lc, SHEAF_BUSY_DEFERRED);
	if (s == NULL)
		return 0;
	/* Main and spare are empty: main goes to the barn, s comes in. */
	RTE_ASSERT(lc->main->size == 0 && s->size != 0);
	sheaf_busy_set(c.lc, SHEAF_BUSY_BARN);
	sheaf_barn_put_empty(sp, lc->barn, lc->main);
	sheaf_busy_clear(c.lc, SHEAF_BUSY_BARN);
	lc->main = s;
	lc->stat[RTE_SHEAF_STAT_DEFERRED_RECLAIM] += s->size;
	return s->size;
}

void
sheaf_deferred_flush_lcore(struct sheaf_pool *sp, struct sheaf_lcore *lc)
{
	struct sheaf_rcu_ctx c = { .sp = sp, .d = sheaf_deferred_of(sp),
		.lc = lc };
	struct sheaf *s = lc->deferred;

	if (c.d == NULL || s == NULL)
		return;
	__atomic_store_n(&lc->deferred, NULL, __ATOMIC_RELAXED);
	sheaf_rcu_stamp(&c, lc->barn, s);
}

/* Whether anything is queued; racy, not critical: a hint to skip work. */
static bool
sheaf_rcu_queued(const struct sheaf_pool *sp, const struct sheaf_deferred *d)
{
	uint32_t b;

	if (__atomic_load_n(&d->fb.count, __ATOMIC_RELAXED) != 0)
		return true;
	for (b = 0; b < sp->nb_barns; b++)
		if (__atomic_load_n(&d->fifo[b].count, __ATOMIC_RELAXED) != 0)
			return true;
	return false;
}

/* Hold the caller's slot for a deferred operation, if it has one. */
static int
sheaf_rcu_hold(struct sheaf_rcu_ctx *c)
{
	return sheaf_lcore_hold(c->sp, &c->lc);
}

static void
sheaf_rcu_unhold(struct sheaf_rcu_ctx *c)
{
	sheaf_lcore_release(c->lc);
	c->lc = NULL;
}

static unsigned int
sheaf_rcu_reclaim_all(const struct sheaf_rcu_ctx *c, bool try)
{
	unsigned int n = 0;
	uint32_t b;

	for (b = 0; b < c->sp->nb_barns; b++)
		n += sheaf_rcu_reclaim_fifo(c, b, try);
	return n + sheaf_rcu_reclaim_fallback(c, try);
}

unsigned int
sheaf_deferred_reclaim_self(struct sheaf_pool *sp, bool try)
{
	struct sheaf_rcu_ctx c = { .sp = sp, .d = sheaf_deferred_of(sp) };
	unsigned int n;

	if (c.d == NULL || !sheaf_rcu_queued(sp, c.d))
		return 0;
	if (sheaf_rcu_hold(&c) < 0)
		return 0;
	n = sheaf_rcu_reclaim_all(&c, try);
	sheaf_rcu_unhold(&c);
	return n;
}

/*
 * Stamp and queue the deferred sheaves of other lcores, taking each slot
 * while its owner is provably outside the pool: the handshake of
 * sheaf_lcore_steal(), which leaves deferred sheaves alone. A slot whose
 * owner is inside is retried until the owner has left.
 */
static int
sheaf_rcu_push_idle(const struct sheaf_rcu_ctx *c)
{
	struct sheaf_pool *sp = c->sp;
	struct sheaf_lcore_set marked;
	unsigned int i, nb, pending;

	for (;;) {
		memset(&marked, 0, sizeof(marked));
		nb = 0;
		pending = 0;
		for (i = 0; i < RTE_MAX_LCORE; i++) {
			struct sheaf_lcore *v = &sp->lcore[i];

			/* Racy, not critical: a sheaf set after this load
			 * holds frees that began after the barrier did.
			 */
			if (v == c->lc || __atomic_load_n(&v->deferred,
					__ATOMIC_RELAXED) == NULL)
				continue;
			if (sheaf_lcore_mark(v)) {
				sheaf_lcore_set_add(&marked, i);
				nb++;
			} else {
				pending++;
			}
		}
		if (nb != 0 && sheaf_lcore_fence() != 0) {
			sheaf_lcore_unmark_set(sp, &marked);
			SHEAF_LOG(ERR, "pool %s: no membarrier(), other lcores' deferred sheaves stay",
				sp->mp->name);
			return -ENOTSUP;
		}
		for (i = 0; i < RTE_MAX_LCORE; i++) {
			struct sheaf_lcore *v = &sp->lcore[i];
			struct sheaf *s;

			if (!sheaf_lcore_set_has(&marked, i))
				continue;
			if (__atomic_load_n(&v->busy, __ATOMIC_RELAXED) != 0) {
				pending++;
				continue;
			}
			/* The owner is outside and stays out: ours. */
			s = v->deferred;
			if (s != NULL) {
				__atomic_store_n(&v->deferred, NULL,
					__ATOMIC_RELAXED);
				sheaf_rcu_stamp(c, v->barn, s);
			}
		}
		sheaf_lcore_unmark_set(sp, &marked);
		if (pending == 0)
			return 0;
		rte_pause();
	}
}

/* Stamp and queue every socket's shared deferred sheaf. */
static void
sheaf_rcu_push_shared(const struct sheaf_rcu_ctx *c)
{
	uint32_t b;

	for (b = 0; b < c->sp->nb_barns; b++) {
		struct sheaf_rcu_fifo *f = &c->d->fifo[b];

		sheaf_busy_set(c->lc, SHEAF_BUSY_DEFERRED);
		rte_spinlock_lock(&f->lock);
		if (f->shared != NULL) {
			sheaf_rcu_fifo_append(c, f, f->shared);
			f->shared = NULL;
		}
		rte_spinlock_unlock(&f->lock);
		sheaf_busy_clear(c->lc, SHEAF_BUSY_DEFERRED);
	}
}

/* Whether anything stamped at or before token t is still queued. */
static bool
sheaf_rcu_pending_upto(const struct sheaf_rcu_ctx *c, uint64_t t)
{
	struct sheaf_rcu_fallback *fb = &c->d->fb;
	bool pending = false;
	uint32_t b;

	for (b = 0; b < c->sp->nb_barns && !pending; b++) {
		struct sheaf_rcu_fifo *f = &c->d->fifo[b];

		rte_spinlock_lock(&f->lock);
		pending = f->count != 0 && f->ent[f->head].token <= t;
		rte_spinlock_unlock(&f->lock);
	}
	if (!pending) {
		rte_spinlock_lock(&fb->lock);
		pending = fb->count != 0 && fb->ent[fb->head].token <= t;
		rte_spinlock_unlock(&fb->lock);
	}
	return pending;
}

int
sheaf_deferred_barrier(struct sheaf_pool *sp)
{
	struct sheaf_rcu_ctx c = { .sp = sp, .d = sheaf_deferred_of(sp) };
	uint64_t t;
	int ret;

	if (c.d == NULL)
		return -ENOTSUP;
	ret = sheaf_rcu_hold(&c);
	if (ret < 0)
		return ret;
	if (c.lc != NULL)
		sheaf_deferred_flush_lcore(sp, c.lc);
	ret = sheaf_rcu_push_idle(&c);
	sheaf_rcu_push_shared(&c);
	sheaf_rcu_unhold(&c);
	if (ret < 0)
		return ret;
	/*
	 * Every object deferred before this call now waits in a FIFO or
	 * the fallback with a token at most t. Wait for those only: frees
	 * made meanwhile would keep a busy pool's barrier going forever.
	 */
	t = __atomic_load_n(&c.d->v->token, __ATOMIC_ACQUIRE);
	for (;;) {
		sheaf_rcu_reclaim_all(&c, false);
		if (!sheaf_rcu_pending_upto(&c, t))
			return 0;
		rte_pause();
	}
}

uint32_t
sheaf_deferred_count(const struct sheaf_pool *sp)
{
	const struct sheaf_deferred *d = sheaf_deferred_of(sp);
	const struct sheaf *s;
	uint32_t b, i, n;

	if (d == NULL)
		return 0;
	/* Racy, not critical: a sheaf moving meanwhile may be counted
	 * twice or missed; exact when the pool is quiet.
	 */
	n = __atomic_load_n(&d->fb.count, __ATOMIC_RELAXED);
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		s = __atomic_load_n(&sp->lcore[i].deferred, __ATOMIC_RELAXED);
		if (s != NULL)
			n += __atomic_load_n(&s->size, __ATOMIC_RELAXED);
	}
	for (b = 0; b < sp->nb_barns; b++) {
		const struct sheaf_rcu_fifo *f = &d->fifo[b];
		uint32_t head = __atomic_load_n(&f->head, __ATOMIC_RELAXED);
		uint32_t count = __atomic_load_n(&f->count, __ATOMIC_RELAXED);

		s = __atomic_load_n(&f->shared, __ATOMIC_RELAXED);
		if (s != NULL)
			n += __atomic_load_n(&s->size, __ATOMIC_RELAXED);
		for (i = 0; i < count && i < sp->nb_sheaves; i++) {
			s = __atomic_load_n(&f->ent[(head + i) %
				sp->nb_sheaves].s, __ATOMIC_RELAXED);
			if (s != NULL)
				n += __atomic_load_n(&s->size,
					__ATOMIC_RELAXED);
		}
	}
	return n;
}

int
sheaf_deferred_attach(struct sheaf_pool *sp, struct rte_rcu_qsbr *v)
{
	struct sheaf_deferred *d, *none = NULL;
	struct sheaf_rcu_entry *ent;
	uint32_t b;
	int socket = sp->mp->socket_id;

	if (sheaf_deferred_of(sp) != NULL)
		return -EEXIST;
	d = rte_zmalloc_socket("sheaf_deferred", sizeof(*d) +
		sp->nb_barns * sizeof(d->fifo[0]), RTE_CACHE_LINE_SIZE, socket);
	ent = rte_zmalloc_socket("sheaf_deferred_fifo", (size_t)sp->nb_barns *
		sp->nb_sheaves * sizeof(*ent), RTE_CACHE_LINE_SIZE, socket);
	if (d == NULL || ent == NULL)
		goto fail;
	d->fb.size = sp->mp->size;
	d->fb.ent = rte_zmalloc_socket("sheaf_deferred_objs",
		(size_t)d->fb.size * sizeof(*d->fb.ent), RTE_CACHE_LINE_SIZE,
		socket);
	if (d->fb.ent == NULL)
		goto fail;
	d->v = v;
	rte_spinlock_init(&d->fb.lock);
	for (b = 0; b < sp->nb_barns; b++) {
		rte_spinlock_init(&d->fifo[b].lock);
		d->fifo[b].ent = ent + (size_t)b * sp->nb_sheaves;
	}
	/* Release: the state is set up before a deferred call can see it. */
	if (__atomic_compare_exchange_n(&sp->deferred, &none, d, 0,
			__ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return 0;
	rte_free(d->fb.ent);
	rte_free(ent);
	rte_free(d);
	return -EEXIST;
fail:
	if (d != NULL)
		rte_free(d->fb.ent);
	rte_free(ent);
	rte_free(d);
	return -ENOMEM;
}

void
sheaf_deferred_release(struct sheaf_pool *sp)
{
	struct sheaf_deferred *d = sp->deferred;

	/* Pending objects need nothing: they are the pool's memory. */
	if (d == NULL)
		return;
	sp->deferred = NULL;
	rte_free(d->fifo[0].ent);
	rte_free(d->fb.ent);
	rte_free(d);
}
