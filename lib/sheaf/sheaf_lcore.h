/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_LCORE_H_
#define _SHEAF_LCORE_H_

/*
 * The fast paths, inlined into the driver's dequeue and enqueue ops: a
 * bounds check and a copy on the lcore's main sheaf, no atomics, no
 * locks. Everything else is out of line in sheaf_lcore.c.
 *
 * The busy mark is the counterpart of SLUB's localtry_lock: it is set
 * before the lcore's sheaves are read, so a signal handler that re-enters
 * the pool on the same thread sees it and takes the shared path.
 */

#include <rte_branch_prediction.h>
#include <rte_lcore.h>
#include <rte_memcpy.h>

#include "sheaf_pvt.h"

void sheaf_lcore_init(struct sheaf_pool *sp);

/* Slow paths, entered with lc->busy == SHEAF_BUSY_SHEAF. */
int sheaf_lcore_get_slow(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void **objs, unsigned int n);
void sheaf_lcore_put_slow(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void * const *objs, unsigned int n);

/*
 * Shared paths, for threads without an lcore slot (lc == NULL) and for
 * re-entrant calls (lc busy): slabs and barns only.
 */
int sheaf_shared_get(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void **objs, unsigned int n);
void sheaf_shared_put(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void * const *objs, unsigned int n);

/*
 * Mark what the thread holding slot lc is inside of (a SHEAF_BUSY_* bit;
 * lc may be NULL: nothing to mark), for a signal handler re-entering the
 * pool on that thread. Same-thread ordering only: no fence needed.
 */
static inline void
sheaf_busy_set(struct sheaf_lcore *lc, uint32_t bit)
{
	if (lc == NULL)
		return;
	lc->busy |= bit;
	rte_compiler_barrier();
}

static inline void
sheaf_busy_clear(struct sheaf_lcore *lc, uint32_t bit)
{
	if (lc == NULL)
		return;
	rte_compiler_barrier();
	lc->busy &= ~bit;
}

/*
 * Take up to n objects out of the barns' full sheaves, barn home first,
 * each ring operation under lc's barn mark (lc may be NULL). Returns the
 * objects taken.
 */
unsigned int sheaf_barns_take(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	uint32_t home, void **objs, unsigned int n);

/*
 * Depot windows of an lcore (lc may be NULL): a re-entrant free parks
 * its objects meanwhile; leaving frees them.
 */
void sheaf_depot_enter(struct sheaf_lcore *lc);
void sheaf_depot_leave(struct sheaf_pool *sp, struct sheaf_lcore *lc);

/*
 * Entry for a call the fast path cannot serve from its slot: no slot, a
 * slot another process owns or nobody has claimed yet, a busy slot
 * (re-entrance), or a validate pool. Put returns 0, or -EINVAL with
 * rte_errno set when validate mode refused objects (the others are
 * freed).
 */
int sheaf_pool_get_other(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void **objs, unsigned int n);
int sheaf_pool_put_other(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void * const *objs, unsigned int n);

/* The caller's slot if this process owns it (claiming it if free), else
 * NULL: for the paths besides the fast path that mark the slot busy.
 */
struct sheaf_lcore *sheaf_lcore_own_slot(struct sheaf_pool *sp);

/*
 * Hold the caller's slot outside the fast path, with the fast path's
 * protocol (busy mark, then the steal check). Returns 0 with *lc the slot,
 * now busy, or NULL when the caller has no slot of this process or a thief
 * is emptying it (go without); -EBUSY when re-entered from a signal
 * handler (the slot is the interrupted call's).
 */
int sheaf_lcore_hold(struct sheaf_pool *sp, struct sheaf_lcore **lc);
void sheaf_lcore_release(struct sheaf_lcore *lc);

/* Flush an lcore's sheaves to the slabs; owner only. Returns objects. */
unsigned int sheaf_lcore_flush(struct sheaf_pool *sp, struct sheaf_lcore *lc);

/*
 * Take back the objects of lcores that sit outside the pool, into the
 * slabs (counted in RTE_SHEAF_STAT_STEAL); lc is the caller's slot or
 * NULL. The caller looks at the shared tiers again afterwards, whatever
 * was taken: an owner the thief waited for may have moved its sheaves.
 */
void sheaf_lcore_steal(struct sheaf_pool *sp, struct sheaf_lcore *lc);

/* A set of lcore slots by index: those whose steal marks a thief holds. */
struct sheaf_lcore_set {
	uint32_t bits[RTE_MAX_LCORE / 32];
};

static inline void
sheaf_lcore_set_add(struct sheaf_lcore_set *s, unsigned int i)
{
	s->bits[i / 32] |= 1u << (i % 32);
}

static inline void
sheaf_lcore_set_del(struct sheaf_lcore_set *s, unsigned int i)
{
	s->bits[i / 32] &= ~(1u << (i % 32));
}

static inline int
sheaf_lcore_set_has(const struct sheaf_lcore_set *s, unsigned int i)
{
	return (s->bits[i / 32] & (1u << (i % 32))) != 0;
}

/*
 * Take v's steal mark (one thief per slot): 1 when taken. Acquire: see
 * what a previous thief left.
 */
static inline int
sheaf_lcore_mark(struct sheaf_lcore *v)
{
	uint32_t zero = 0;

	return __atomic_compare_exchange_n(&v->steal, &zero, 1, 0,
		__ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* Release v's steal mark: the owner, seeing 0, sees what was done. */
static inline void
sheaf_lcore_unmark(struct sheaf_lcore *v)
{
	__atomic_store_n(&v->steal, 0, __ATOMIC_RELEASE);
}

/* Release the steal marks of every slot in marked. */
void sheaf_lcore_unmark_set(struct sheaf_pool *sp,
	const struct sheaf_lcore_set *marked);

/* Whether lc's sheaves, or its stash, hold anything (racy). */
static inline int
sheaf_lcore_holds(const struct sheaf_lcore *lc)
{
	return __atomic_load_n(&lc->msize, __ATOMIC_RELAXED) != 0 ||
		__atomic_load_n(&lc->spare->size, __ATOMIC_RELAXED) != 0 ||
		__atomic_load_n(&lc->nb_stash, __ATOMIC_RELAXED) != 0;
}

/*
 * The thief's side of the steal handshake (membarrier(), see
 * sheaf_lcore_steal()) for other users of the steal mark: 0, or -ENOTSUP
 * where membarrier() is not available.
 */
int sheaf_lcore_fence(void);

/* Objects held by lcore sheaves; racy, exact when quiet. */
uint32_t sheaf_lcore_count(const struct sheaf_pool *sp, uint32_t *nb_lcores);

/*
 * Copy object pointers. rte_memcpy() moves 16 to 128 bytes a step with no
 * call; a plain loop runs one pointer pair a step, and libc's memcpy is a
 * call through the PLT.
 */
static __rte_always_inline void
sheaf_objs_copy(void **dst, void * const *src, unsigned int n)
{
	rte_memcpy(dst, src, n * sizeof(void *));
}

static __rte_always_inline struct sheaf_lcore *
sheaf_lcore_slot(struct sheaf_pool *sp)
{
	unsigned int id = rte_lcore_id();

	return id < RTE_MAX_LCORE ? &sp->lcore[id] : NULL;
}

/* Allocate on the caller's own slot, lc, found idle. */
static __rte_always_inline int
sheaf_lcore_get(struct sheaf_pool *sp, struct sheaf_lcore *lc, void **objs,
	unsigned int n)
{
	struct sheaf *m;
	int ret = 0;

	lc->busy = SHEAF_BUSY_SHEAF;
	/*
	 * Against signal handlers, a compiler barrier. Against a thief, the
	 * store above and the load below are ordered by the thief's
	 * membarrier(), see sheaf_lcore_steal(); acquire pairs with its
	 * release of the steal mark.
	 */
	rte_compiler_barrier();
	if (unlikely(__atomic_load_n(&lc->steal, __ATOMIC_ACQUIRE) != 0)) {
		lc->busy = 0;
		return sheaf_shared_get(sp, NULL, objs, n);
	}
	m = lc->main;
	if (likely(n <= lc->msize)) {
		lc->msize -= n;
		if (n == 1)
			objs[0] = m->objs[lc->msize];
		else
			sheaf_objs_copy(objs, &m->objs[lc->msize], n);
		lc->stat[RTE_SHEAF_STAT_ALLOC_FAST] += n;
	} else {
		ret = sheaf_lcore_get_slow(sp, lc, objs, n);
	}
	rte_compiler_barrier();
	lc->busy = 0;
	return ret;
}

/*
 * One test sends every uncommon case out of line: no slot, a re-entered
 * (busy) slot, a validate pool, a slot this process does not own. The
 * validate flag sits next to busy, on the line read anyway.
 */
static __rte_always_inline int
sheaf_pool_get(struct sheaf_pool *sp, void **objs, unsigned int n)
{
	struct sheaf_lcore *lc = sheaf_lcore_slot(sp);

	if (unlikely(lc == NULL || (lc->busy | lc->validate) != 0 ||
			lc->owner != sheaf_proc_id))
		return sheaf_pool_get_other(sp, lc, objs, n);
	return sheaf_lcore_get(sp, lc, objs, n);
}

/* Free on the caller's own slot, lc, found idle. */
static __rte_always_inline void
sheaf_lcore_put(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void * const *objs, unsigned int n)
{
	struct sheaf *m;

	lc->busy = SHEAF_BUSY_SHEAF;
	rte_compiler_barrier(); /* see sheaf_lcore_get() */
	if (unlikely(__atomic_load_n(&lc->steal, __ATOMIC_ACQUIRE) != 0)) {
		lc->busy = 0;
		sheaf_shared_put(sp, NULL, objs, n);
		return;
	}
	m = lc->main;
	if (likely(n <= m->capacity - lc->msize)) {
		/* One object a call (a PMD's tx free): skip the copy loop. */
		if (n == 1)
			m->objs[lc->msize] = objs[0];
		else
			sheaf_objs_copy(&m->objs[lc->msize], objs, n);
		lc->msize += n;
		lc->stat[RTE_SHEAF_STAT_FREE_FAST] += n;
	} else {
		sheaf_lcore_put_slow(sp, lc, objs, n);
	}
	rte_compiler_barrier();
	lc->busy = 0;
}

/* 0, or -EINVAL (rte_errno set) when validate mode refused an object. */
static __rte_always_inline int
sheaf_pool_put(struct sheaf_pool *sp, void * const *objs, unsigned int n)
{
	struct sheaf_lcore *lc = sheaf_lcore_slot(sp);

	if (unlikely(lc == NULL || (lc->busy | lc->validate) != 0 ||
			lc->owner != sheaf_proc_id))
		return sheaf_pool_put_other(sp, lc, objs, n);
	sheaf_lcore_put(sp, lc, objs, n);
	return 0;
}

#endif /* _SHEAF_LCORE_H_ */
