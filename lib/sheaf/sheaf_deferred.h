/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_DEFERRED_H_
#define _SHEAF_DEFERRED_H_

/*
 * Deferred free under RCU (SLUB's rcu_free sheaf): see sheaf_deferred.c.
 *
 * A slot's deferred sheaf is named by its dstate word: index (20 bits)
 * and objects (12), changed by its holder with single stores, so that a
 * death leaves it whole. Stamping it (a token, a FIFO entry, dstate
 * cleared) is one barn transaction.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_rcu_qsbr.h>

#include "sheaf_pvt.h"

/* Set up the deferred-free state and publish v: -EEXIST or -ENOMEM. */
int sheaf_deferred_attach(struct sheaf_pool *sp, struct rte_rcu_qsbr *v);
void sheaf_deferred_release(struct sheaf_pool *sp);

/* The pool's QSBR variable, NULL while none is attached. */
static inline struct rte_rcu_qsbr *
sheaf_deferred_qsbr(const struct sheaf_pool *sp)
{
	/* Acquire: pairs with the release in sheaf_deferred_attach(). */
	return __atomic_load_n(&sp->qsbr, __ATOMIC_ACQUIRE);
}

/*
 * The owner inside its fast-path brackets (sheaf_slot_enter()): n objects
 * into its deferred sheaf when it has one with room for them all that
 * they do not fill (nothing to stamp). Returns false, nothing done,
 * otherwise: the caller takes the full path.
 */
bool sheaf_deferred_fast(struct sheaf_pool *sp, struct sheaf_slot *lc,
	void * const *objs, unsigned int n);

/*
 * Free objects deferred from the calling thread: into its slot's deferred
 * sheaf when it holds one (lc, entered), else into its socket's shared
 * one. handler: the caller is a signal handler (re-entered, or its slot
 * held by the call it interrupted). 0, or -EAGAIN when a handler finds
 * every way blocked by the call it interrupted (nothing freed).
 */
int sheaf_deferred_free(struct sheaf_pool *sp, struct sheaf_slot *lc,
	void * const *objs, unsigned int n, bool handler);

/*
 * Ladder rung of slot lc (held, main and spare empty): install an expired
 * deferred sheaf as main. Returns the objects main then holds, 0 if none.
 */
unsigned int sheaf_deferred_refill(struct sheaf_pool *sp,
	struct sheaf_slot *lc);

/*
 * Stamp and queue v's deferred sheaf (v held by the caller: its owner,
 * thief or heir). Returns the objects stamped.
 */
unsigned int sheaf_deferred_stamp(struct sheaf_pool *sp,
	struct sheaf_slot *v);

/*
 * The stamp request at lc's gate (lc held by its owner): taken, served
 * by a stamp of lc's deferred sheaf and acknowledged. With always, the
 * sheaf is stamped also when none was asked (the barrier's own slot).
 */
void sheaf_deferred_serve_stamp(struct sheaf_pool *sp, struct sheaf_slot *lc,
	bool always);

/*
 * Reclaim every expired deferred object: whole sheaves to the barns,
 * fallback objects to the slabs. With try, a busy lock is skipped (slow
 * path hooks). Returns the objects reclaimed.
 */
unsigned int sheaf_deferred_reclaim(struct sheaf_pool *sp, bool try);

/*
 * Wait until every object freed deferred before the call is back in the
 * pool: 0, -ETIMEDOUT after the pool's barrier time, -EBUSY from a
 * signal handler inside the pool.
 */
int sheaf_deferred_barrier(struct sheaf_pool *sp);

/* Objects freed deferred and not yet reclaimed; racy, exact when quiet. */
uint32_t sheaf_deferred_count(const struct sheaf_pool *sp);

#endif /* _SHEAF_DEFERRED_H_ */
