/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_SLAB_H_
#define _SHEAF_SLAB_H_

/*
 * Slabs and depots: the pool's memory, holding the objects no sheaf
 * holds. Each socket's depot changes only in transactions on its lock
 * (sheaf_tx.h), at most SHEAF_TX_OBJS objects each, so a process dying
 * inside one leaves every free mask, count and bucket list as it was.
 * The functions taking a struct sheaf_tx run inside such a transaction
 * (sheaf_depot_begin()).
 */

#include <stdbool.h>

#include <rte_mempool.h>

#include "sheaf_pvt.h"
#include "sheaf_tx.h"

int sheaf_depot_init(struct sheaf_pool *sp);
void sheaf_slab_release(struct sheaf_pool *sp);

/* Mempool populate op: cut the chunk into slabs, all objects free. */
int sheaf_slab_populate(struct rte_mempool *mp, unsigned int max_objs,
	void *vaddr, rte_iova_t iova, size_t len,
	rte_mempool_populate_obj_cb_t *obj_cb, void *obj_cb_arg);

/*
 * Whether the calling thread is populating sp: then a free reaching the
 * pool is the populate helper's, already recorded, and is dropped.
 */
bool sheaf_slab_populating(const struct sheaf_pool *sp);

/* Begin a transaction on depot d: see sheaf_tx_begin(). */
static inline int
sheaf_depot_begin(struct sheaf_tx *tx, struct sheaf_pool *sp, uint32_t d,
	enum sheaf_tx_kind kind, bool try)
{
	return sheaf_tx_begin(tx, sp, &sp->depot[d].lock, kind, try);
}

/* Free objects in depot d; racy hint read before taking the lock. */
static inline uint32_t
sheaf_depot_nb_free(const struct sheaf_pool *sp, uint32_t d)
{
	return __atomic_load_n(&sp->depot[d].nb_free, __ATOMIC_RELAXED);
}

/* Free objects in all slabs; racy, exact when quiet. */
static inline uint32_t
sheaf_slab_count(const struct sheaf_pool *sp)
{
	uint32_t d, n = 0;

	for (d = 0; d < sp->nb_nodes; d++)
		n += sheaf_depot_nb_free(sp, d);
	return n;
}

/*
 * Slabs on each side of an lcore's home (struct sheaf_slot) that its
 * refill looks at before the depot's fullest partial slab.
 */
#define SHEAF_HOME_NEAR 8

/*
 * Take up to n (at most SHEAF_TX_OBJS) free objects of depot d into objs.
 * For slot lc (NULL: a caller without one) and its home socket's depot,
 * the fullest slab within SHEAF_HOME_NEAR positions of its home first,
 * again from each slab taken (the window slides), and lc's home moves to
 * the last slab taken from; then the depot's fullest partial slab.
 * Returns the count taken.
 */
unsigned int sheaf_depot_take(struct sheaf_tx *tx, uint32_t d, void **objs,
	unsigned int n, struct sheaf_slot *lc);

/*
 * Return n (at most SHEAF_TX_OBJS) objects, all of depot d (see
 * sheaf_slab_depot_run()), to their slabs. An object already free is
 * refused, with a log line (an app's double free). Returns the count
 * refused.
 */
unsigned int sheaf_depot_put(struct sheaf_tx *tx, uint32_t d,
	void * const *objs, unsigned int n);

/*
 * The run at the end of objs[0..n): its length (at most SHEAF_TX_OBJS)
 * and, in *d, the depot of all its objects, or SHEAF_SLAB_NONE for a run
 * of pointers that are no objects of the pool (to be dropped, counted).
 */
unsigned int sheaf_slab_depot_run(const struct sheaf_pool *sp,
	void * const *objs, unsigned int n, uint32_t *d);

/* What to do with a run of objects of depot d. */
typedef unsigned int (*sheaf_slab_run_fn)(struct sheaf_pool *sp, uint32_t d,
	void * const *objs, unsigned int n, void *arg);

/*
 * Split objs[0..n) into runs of one depot each, from the end, and call fn
 * on each. Returns the pointers refused: fn's results summed, and the
 * pointers that are no objects of the pool (logged).
 */
unsigned int sheaf_slab_each_run(struct sheaf_pool *sp, void * const *objs,
	unsigned int n, sheaf_slab_run_fn fn, void *arg);

/*
 * Send objs[0..*size), an array only the caller changes (a sheaf in
 * transit, a park record), to the slabs from the end, in transactions of
 * the given kind, each committing *size lowered by what it gave: a death
 * leaves every object either in the array or in a slab. Stops early only
 * where a depot lock is refused (a caller holding a lock). Returns the
 * objects moved; *bad (added to) counts pointers refused.
 */
unsigned int sheaf_depot_flush_counted(struct sheaf_pool *sp,
	void * const *objs, uint32_t *size, enum sheaf_tx_kind kind,
	unsigned int *bad);

/* Log pointers refused as no objects of the pool (not from a signal
 * handler's call inside another: sheaf_slab_quiet()). */
void sheaf_slab_log_foreign(const struct sheaf_pool *sp, void * const *objs,
	unsigned int n);

/*
 * The slab holding obj and its index there, or NULL when obj is no
 * object of the pool; then *off (if not NULL) is the offset of obj into
 * the pool object it points inside (misaligned), or 0 when it points
 * outside every slab. Read-only: slabs change only at populate.
 */
struct sheaf_slab *sheaf_slab_find(const struct sheaf_pool *sp,
	const void *obj, uint32_t *idx, uintptr_t *off);

#endif /* _SHEAF_SLAB_H_ */
