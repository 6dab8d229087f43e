/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_DEFERRED_H_
#define _SHEAF_DEFERRED_H_

#include <stdbool.h>
#include <stdint.h>

#include <rte_rcu_qsbr.h>
#include <rte_spinlock.h>

#include "sheaf_pvt.h"

/* A deferred sheaf stamped with the QSBR token it waits for. */
struct sheaf_rcu_entry {
	struct sheaf *s;
	uint64_t token;
};

/* An object queued alone, when no sheaf was at hand (the fallback). */
struct sheaf_rcu_obj {
	void *obj;
	uint64_t token;
};

/*
 * Per socket: stamped sheaves, oldest first. Tokens are taken under the
 * lock, so they grow from head to tail: when the head's token is not
 * reached yet, no later one is.
 */
struct sheaf_rcu_fifo {
	rte_spinlock_t lock;
	uint32_t head;        /* index of the oldest entry; lock */
	uint32_t count;       /* entries; written under lock, read racily */
	struct sheaf *shared; /* deferred sheaf of threads without a slot,
			       * never empty, may be NULL; lock */
	/* [nb_sheaves]: every sheaf of the pool fits, an append never fails */
	struct sheaf_rcu_entry *ent;
} __rte_cache_aligned;

/*
 * Pool-wide queue of single objects, the fallback. Sized to the pool: an
 * object is in one place at a time, so only a double free fills it.
 */
struct sheaf_rcu_fallback {
	rte_spinlock_t lock;
	uint32_t head;        /* lock */
	uint32_t count;       /* written under lock, read racily */
	uint32_t size;        /* entries in ent[]: the pool size */
	struct sheaf_rcu_obj *ent;
} __rte_cache_aligned;

/* The pool's deferred-free state; set up once, when QSBR is attached. */
struct sheaf_deferred {
	struct rte_rcu_qsbr *v;          /* never NULL */
	struct sheaf_rcu_fallback fb;
	struct sheaf_rcu_fifo fifo[];    /* [nb_barns] */
};

/*
 * Lock order: a fifo lock, then the fallback lock. Whoever holds either
 * on an lcore it owns marks SHEAF_BUSY_DEFERRED, so a signal handler
 * re-entering the pool there stays off both.
 */

/* Set up the deferred state and publish it; -EEXIST or -ENOMEM. */
int sheaf_deferred_attach(struct sheaf_pool *sp, struct rte_rcu_qsbr *v);
void sheaf_deferred_release(struct sheaf_pool *sp);

/* The pool's deferred state, NULL while no QSBR is attached. */
static inline struct sheaf_deferred *
sheaf_deferred_of(const struct sheaf_pool *sp)
{
	/* Acquire: pairs with the release in sheaf_deferred_attach(). */
	return __atomic_load_n(&sp->deferred, __ATOMIC_ACQUIRE);
}

/* Free objects deferred from the calling thread: 0 or -EAGAIN. */
int sheaf_deferred_free(struct sheaf_pool *sp, void * const *objs,
	unsigned int n);

/*
 * Slow-path hook of the calling lcore's refill (lc held, main and spare
 * empty): installs an expired deferred sheaf as main. Returns the objects
 * main then holds, 0 when there was none.
 */
unsigned int sheaf_deferred_refill(struct sheaf_pool *sp,
	struct sheaf_lcore *lc);

/* Stamp and queue an lcore's partial deferred sheaf; owner, lc held. */
void sheaf_deferred_flush_lcore(struct sheaf_pool *sp, struct sheaf_lcore *lc);

/*
 * Reclaim every expired deferred object, from the calling thread. With
 * try, a contended lock is skipped (slow-path hooks). Returns objects.
 */
unsigned int sheaf_deferred_reclaim_self(struct sheaf_pool *sp, bool try);

/* Push every partial deferred sheaf and wait: 0, -EBUSY or -ENOTSUP. */
int sheaf_deferred_barrier(struct sheaf_pool *sp);

/* Objects freed deferred and not yet reclaimed; racy, exact when quiet. */
uint32_t sheaf_deferred_count(const struct sheaf_pool *sp);

#endif /* _SHEAF_DEFERRED_H_ */
