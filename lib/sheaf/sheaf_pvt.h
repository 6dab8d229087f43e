/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_PVT_H_
#define _SHEAF_PVT_H_

/*
 * Object map of a sheaf pool (struct sheaf_pool, the mempool's pool_data).
 * Everything lives in rte_malloc memory and holds no process-local
 * pointer, so a secondary process can drive the pool.
 *
 *   lcore[RTE_MAX_LCORE]   main + spare sheaf per lcore, owner only
 *        |  whole sheaves
 *   barn[nb_barns]         per socket: ring of full, ring of empty sheaves
 *        |  objects, in bulk
 *   depot[nb_barns]        per socket: partial slabs, bucketed by free count
 *   slabs[nb_slabs]        runs of up to 64 objects at a constant stride
 *   deferred               per socket: FIFO of sheaves freed under RCU,
 *                          each waiting for its QSBR token
 *
 * Every object is in exactly one place: free in a slab, in a sheaf (an
 * lcore's main or spare, a barn's full sheaf, an lcore's re-entry stash),
 * or in the user's hands, a sheaf borrowed through prefill included.
 * Objects freed deferred count as in the user's hands until reclaimed.
 */

#include <stdint.h>

#include <rte_common.h>
#include <rte_log.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "rte_sheaf.h"

extern int sheaf_logtype;

/* This process's id for slot ownership (its pid), set at load. */
extern uint32_t sheaf_proc_id;

#define SHEAF_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, sheaf_logtype, "%s(): " fmt "\n", \
		__func__, ##__VA_ARGS__)

/* Identifies sheaf pool_data, guarding against other ops' private data. */
#define SHEAF_POOL_MAGIC 0x5348454146504f4cULL /* "SHEAFPOL" */

/* Objects per slab: one 64-bit free mask per slab. */
#define SHEAF_SLAB_OBJS 64

/*
 * After a take-back from idle lcores that found nothing to take, none for
 * 1/SHEAF_STEAL_BACKOFF_DIV s (1 ms): each attempt costs a membarrier().
 */
#define SHEAF_STEAL_BACKOFF_DIV 1000

/*
 * A thief waits up to 1/SHEAF_STEAL_WAIT_DIV s (10 ms) for an owner caught
 * inside a call to leave it: long enough for an owner preempted there.
 */
#define SHEAF_STEAL_WAIT_DIV 100

/*
 * A call finding its lcore's slot owned by another process looks whether
 * that process is gone at most every 1/SHEAF_DEAD_CHECK_DIV s (100 ms).
 */
#define SHEAF_DEAD_CHECK_DIV 10

/* Objects a re-entrant free may park on its lcore (see sheaf_lcore.c). */
#define SHEAF_STASH_OBJS 32

/* struct sheaf borrowed: set while a caller holds it (sheaf_prefill.c). */
#define SHEAF_BORROWED 0x50524546u /* "PREF" */

/* struct sheaf flags, fixed at creation. */
#define SHEAF_F_MALLOC 0x1 /* from rte_malloc, not the arena: freed on return */

/** An array of object pointers, the unit traded between tiers. */
struct sheaf {
	uint32_t size;     /* objects in objs[]; writer: current holder only */
	uint32_t capacity; /* length of objs[]; fixed at creation */
	/* SHEAF_BORROWED while lent by prefill, else 0; writer: borrower */
	uint32_t borrowed;
	uint32_t flags;    /* SHEAF_F_*; fixed at creation */
	/* Pool of a borrowed sheaf, NULL otherwise; written with borrowed */
	struct sheaf_pool *owner;
	void *objs[];
};

/* Busy bits of an lcore: what the lcore is in the middle of. */
#define SHEAF_BUSY_SHEAF 0x1 /* touching its main or spare sheaf */
#define SHEAF_BUSY_BARN  0x2 /* inside a barn ring operation */
#define SHEAF_BUSY_DEPOT 0x4 /* holding a slab depot lock */
#define SHEAF_BUSY_POPULATE 0x8 /* populating: frees go to slabs */
#define SHEAF_BUSY_DEFERRED 0x10 /* holding a deferred-free lock */

struct sheaf_deferred;

#define SHEAF_TRADE_GET 1 /* gave empty sheaves for full ones */
#define SHEAF_TRADE_PUT 2 /* gave full sheaves for empty ones */

/** Per-lcore state, one cache-line aligned slot per lcore id. */
struct sheaf_lcore {
	struct sheaf *main;  /* never NULL once set up; owner lcore only */
	/*
	 * Objects in main. While the lcore owns main, this is the count and
	 * main->size is stale: the fast path then reads one cache line and
	 * no pointer chain. Slow paths sync main->size on entry and back.
	 */
	uint32_t msize;
	/*
	 * SHEAF_BUSY_* bits; owner lcore only. A call that finds it non-zero
	 * was re-entered (signal handler) and must not touch the sheaves.
	 */
	uint32_t busy;
	struct sheaf *spare; /* never NULL; owner lcore only */
	uint32_t barn;       /* index of the barn of this lcore's socket */
	/* Set by rte_sheaf_flush() on another lcore; owner clears it. */
	uint32_t flush_req;
	uint32_t nb_stash;   /* objects in the stash; owner lcore only */
	/*
	 * Set by another thread that takes this lcore's objects back while
	 * the owner is outside the pool (see sheaf_lcore_steal()); the owner
	 * then stays off its sheaves until it is cleared.
	 */
	uint32_t steal;
	/*
	 * Process owning the slot (sheaf_proc_id), 0 while unclaimed; set
	 * once by CAS. Processes share lcore ids: one that finds the slot
	 * owned by another uses the shared tiers, never its sheaves.
	 */
	uint32_t owner;
	/*
	 * RTE_SHEAF_F_VALIDATE of the pool, copied here at init so that the
	 * fast path tests it on the line it already reads; fixed.
	 */
	uint32_t validate;
	/*
	 * Deferred frees waiting to fill a sheaf (sheaf_deferred.c): never
	 * empty, may be NULL; owner lcore only, or a barrier holding the
	 * steal mark. Not taken back by a thief: not safe to reuse yet.
	 */
	struct sheaf *deferred;
	/*
	 * Direction of the lcore's last barn trade (SHEAF_TRADE_*); owner
	 * only. Two trades in a row the same way mark a one-way flow.
	 */
	uint32_t last_trade;
	/*
	 * Owner lcore only, no atomics. The fast-path items come first in
	 * the enum, so they share the first cache line with main and busy.
	 */
	uint64_t stat[RTE_SHEAF_STAT_MAX];
} __rte_cache_aligned;

/* Re-entrant frees parked by an lcore, see sheaf_lcore.c. */
struct sheaf_stash {
	void *objs[SHEAF_STASH_OBJS];
};

/** A run of up to SHEAF_SLAB_OBJS objects at a constant stride. */
struct sheaf_slab {
	uintptr_t base;     /* address of object 0 */
	uint64_t free_mask; /* bit i set: object i is free in this slab */
	/*
	 * Validate mode only: bit i set while object i is in the pool (a
	 * slab, a sheaf, a barn, a deferred queue), clear while the user
	 * holds it. Atomic bit operations by any thread, see sheaf_validate.c.
	 */
	uint64_t in_pool;
	uint32_t stride;    /* bytes between objects */
	uint16_t nb_objs;   /* objects in this slab, 1..SHEAF_SLAB_OBJS */
	uint16_t nb_free;   /* popcount of free_mask */
	uint32_t prev;      /* depot bucket list links, SHEAF_SLAB_NONE ends */
	uint32_t next;
	uint32_t depot;     /* index of the depot (socket) it belongs to */
	uint32_t pad;
};

#define SHEAF_SLAB_NONE UINT32_MAX

/*
 * Per-socket depot of slabs with free objects. Slabs sit in the bucket of
 * their free count, so refill finds the fullest partial slab (fewest free
 * objects) with one bit scan, keeping the working set compact: fully free
 * slabs are touched last.
 */
struct sheaf_depot {
	rte_spinlock_t lock;
	uint32_t nb_free;   /* free objects in slabs; writer holds lock */
	uint64_t nonempty;  /* bit k: bucket[k] (k + 1 free) non-empty */
	uint32_t bucket[SHEAF_SLAB_OBJS]; /* list heads by free count - 1 */
} __rte_cache_aligned;

/** Per-socket barn: rings of full and of empty sheaves. */
struct sheaf_barn {
	struct rte_ring *full;  /* sheaves with 1..capacity objects */
	struct rte_ring *empty; /* sheaves with 0 objects */
} __rte_cache_aligned;

/** The mempool's pool_data. */
struct sheaf_pool {
	uint64_t magic;            /* SHEAF_POOL_MAGIC */
	struct rte_mempool *mp;
	struct rte_sheaf_config cfg; /* defaults resolved */
	uint32_t nb_barns;
	uint32_t nb_sheaves;       /* sheaves in the arena */
	size_t sheaf_sz;           /* bytes per sheaf in the arena */
	void *arena;               /* all sheaves, one allocation */
	struct sheaf_barn *barn;   /* [nb_barns] */
	struct sheaf_depot *depot; /* [nb_barns] */

	/* Slabs; grown by populate only, never concurrently with use. */
	struct sheaf_slab *slabs;
	uint32_t *slab_by_addr;    /* slab indexes sorted by base address */
	uint32_t nb_slabs;
	/* Populate in progress: its thread, and its process-local record. */
	int populate_tid;
	void *populating;
	/* No take-back from idle lcores before this TSC (back-off). */
	uint64_t steal_after;

	/* Counters of threads without an lcore slot; relaxed atomics. */
	uint64_t shared_stat[RTE_SHEAF_STAT_MAX];
	/* Sheaves lent by prefill, not yet returned; relaxed atomic. */
	uint32_t nb_borrowed;
	/*
	 * Deferred-free state (sheaf_deferred.h): NULL until a QSBR variable
	 * is attached, then fixed; published with a release store.
	 */
	struct sheaf_deferred *deferred;

	struct sheaf_lcore lcore[RTE_MAX_LCORE];
	struct sheaf_stash stash[RTE_MAX_LCORE];
};

/* The stash of an lcore slot. */
static inline void **
sheaf_stash_of(struct sheaf_pool *sp, const struct sheaf_lcore *lc)
{
	return sp->stash[lc - sp->lcore].objs;
}

static inline struct sheaf_pool *
sheaf_pool_of(const struct rte_mempool *mp)
{
	return (struct sheaf_pool *)mp->pool_data;
}

/*
 * Count v for item id: in the holder's slot (plain, owner only) when the
 * caller holds one, else in the counters shared by threads without a slot
 * (a relaxed atomic: counters only).
 */
static inline void
sheaf_stat_add(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	enum rte_sheaf_stat id, uint64_t v)
{
	if (lc != NULL)
		lc->stat[id] += v;
	else
		__atomic_fetch_add(&sp->shared_stat[id], v, __ATOMIC_RELAXED);
}

/* Arena sheaf number i. */
static inline struct sheaf *
sheaf_arena_get(const struct sheaf_pool *sp, uint32_t i)
{
	return (struct sheaf *)RTE_PTR_ADD(sp->arena, (size_t)i * sp->sheaf_sz);
}

#endif /* _SHEAF_PVT_H_ */
