/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _RTE_SHEAF_H_
#define _RTE_SHEAF_H_

/**
 * @file
 * RTE sheaf: a mempool driver built on lcore-local sheaves.
 *
 * A sheaf is an array of object pointers. Each lcore owns a main and a
 * spare sheaf and allocates from / frees into them without locks or
 * atomics. When both are empty (or full) the lcore trades a whole sheaf
 * with its socket's barn: a bounded ring of full sheaves and one of
 * empty sheaves. Behind the barns sit the slabs: the pool's memory cut
 * into runs of objects, each slab tracking which of its objects are
 * free. This is the Linux SLUB "percpu sheaves" design applied to an
 * rte_mempool.
 *
 * A pool uses it through the mempool ops name #RTE_SHEAF_OPS_NAME, with
 * an optional struct rte_sheaf_config passed as pool_config to
 * rte_mempool_set_ops_byname(), or through rte_sheaf_pool_create() and
 * rte_sheaf_pktmbuf_pool_create(). Everything else in the app keeps using
 * the plain rte_mempool and rte_mbuf API.
 *
 * Objects held in an lcore's sheaves are reached by other lcores only
 * through that lcore: an allocation that runs short asks it to give them
 * back (it does at its next pool call), and takes them itself only when
 * the lcore makes no pool call for a while or its process is dead. Size
 * a pool with at least rte_sheaf_stranded_max() objects more than the app
 * needs in flight. rte_sheaf_flush() returns them to the shared tiers.
 *
 * A process using the pool (a secondary, say) may die at any instruction:
 * no object is then handed out twice, no other process hangs, and every
 * object but those the dead process held in its hands comes back.
 *
 * A caller that cannot afford a failed allocation in a bounded run (an
 * RX ring rearm) borrows a sheaf holding enough objects beforehand with
 * rte_sheaf_prefill_get() and allocates from it with
 * rte_sheaf_prefill_alloc_bulk() or rte_sheaf_prefill_pktmbuf_alloc().
 *
 * With a QSBR variable attached (rte_sheaf_rcu_attach()), an object that
 * lock-free readers may still hold is freed with rte_sheaf_free_deferred():
 * the pool reuses it only after every reader has reported a quiescent
 * state, batching the frees a sheaf at a time (SLUB's kfree_rcu()).
 */

#include <stdint.h>
#include <stdio.h>

#include <rte_compat.h>
#include <rte_mempool.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rte_rcu_qsbr;

/** Mempool ops name of the sheaf driver. */
#define RTE_SHEAF_OPS_NAME "sheaf"

/** Largest sheaf capacity, in objects. */
#define RTE_SHEAF_CAPACITY_MAX 512

/** Default sheaf capacity, in objects, for pools large enough. */
#define RTE_SHEAF_CAPACITY_DEFAULT 128

/** Largest barn limit, in sheaves. */
#define RTE_SHEAF_BARN_MAX 1024

/** Smallest default barn limit, in sheaves. */
#define RTE_SHEAF_BARN_MIN_DEFAULT 8

/**
 * Pool configuration flag: validate every object freed to the pool.
 *
 * Each free (rte_mempool_put() and the ops enqueue, fast path included,
 * and rte_sheaf_free_deferred()) checks that each object belongs to the
 * pool, points at the start of an object, and is not in the pool already
 * (a double free). A refused object is logged by address (not from a
 * signal handler that interrupted a call into a pool), counted in
 * RTE_SHEAF_STAT_FREE_INVALID and not stored: the pool stays intact. The
 * ops enqueue then returns -EINVAL; rte_sheaf_free_deferred_bulk()
 * frees nothing and returns -EINVAL, logging the first object refused
 * and counting one refusal per call, whatever the bulk holds.
 *
 * Costs a slab lookup and an atomic bit operation per object on every
 * get and put, which all take the out-of-line path; one bit per object.
 * Objects held in DPDK's own mempool cache (cache_size > 0) are checked
 * only when the cache flushes them: use a cache_size of 0.
 */
#define RTE_SHEAF_F_VALIDATE 0x1

/**
 * Pool configuration, passed as the pool_config argument of
 * rte_mempool_set_ops_byname() or to rte_sheaf_pool_create().
 *
 * It is read when the pool is populated: it must stay valid until then.
 * A zeroed structure (or NULL) selects every default.
 */
struct rte_sheaf_config {
	/**
	 * Objects per sheaf: what an lcore's main and spare fill to, at
	 * least. 0: a default from the pool and object size:
	 * RTE_SHEAF_CAPACITY_DEFAULT, halved for objects over 4 KiB and
	 * again over 16 KiB, at most pool size / (8 x lcore count), at
	 * least 1. Max RTE_SHEAF_CAPACITY_MAX.
	 *
	 * Each lcore adapts its own capacity between this and capacity_max:
	 * it doubles when the lcore leaves its sheaves for the barn or the
	 * slabs (a swap, a trade, a refill) more than once every two
	 * capacities of objects it moves (a one-way flow such as a
	 * pipeline's, or bursts wider than a sheaf), and halves when that
	 * happens less than once every 32 capacities.
	 */
	uint32_t capacity;
	/**
	 * Full sheaves a barn holds before lcores flush to the slabs
	 * instead. 0: enough for the whole pool (pool size / capacity),
	 * at least RTE_SHEAF_BARN_MIN_DEFAULT. Max RTE_SHEAF_BARN_MAX.
	 */
	uint32_t barn_max_full;
	/**
	 * Empty sheaves each barn starts with, on top of the two each lcore
	 * owns. A barn takes a full sheaf only in trade for an empty one, so
	 * this also caps the full sheaves it can hold. 0: barn_max_full.
	 * Max RTE_SHEAF_BARN_MAX.
	 */
	uint32_t barn_max_empty;
	/** RTE_SHEAF_F_* flags; 0 for none. Other bits must be 0. */
	uint32_t flags;
	/**
	 * QSBR variable guarding objects freed with
	 * rte_sheaf_free_deferred(), as rte_sheaf_rcu_attach() sets it.
	 * NULL: none, deferred frees fail until one is attached. Read at
	 * populate; it must stay valid while the pool is used.
	 */
	struct rte_rcu_qsbr *qsbr;
	/**
	 * Microseconds without a pool call after which another lcore may
	 * take an lcore's objects back itself (an allocation that ran dry,
	 * a flush); an lcore that calls the pool is asked instead, never
	 * interrupted. An allocation that finds objects only in other
	 * lcores' sheaves waits for them up to three times this plus
	 * membarrier_interval_us, or 100 times this while one of those
	 * lcores is inside a pool call (preempted there). 0:
	 * RTE_SHEAF_IDLE_US_DEFAULT. Max RTE_SHEAF_TIME_US_MAX.
	 */
	uint32_t idle_us;
	/**
	 * Microseconds between two membarrier() calls of the pool, at the
	 * most (each interrupts the CPUs running the pool's owners to take
	 * back idle lcores' objects). 0: RTE_SHEAF_MEMBARRIER_US_DEFAULT.
	 * Max RTE_SHEAF_TIME_US_MAX.
	 */
	uint32_t membarrier_interval_us;
	/**
	 * Milliseconds rte_sheaf_deferred_barrier() waits at most before it
	 * returns -ETIMEDOUT. 0: RTE_SHEAF_BARRIER_MS_DEFAULT. Max
	 * RTE_SHEAF_BARRIER_MS_MAX.
	 */
	uint32_t barrier_timeout_ms;
	/**
	 * Largest capacity an lcore adapts to; every sheaf is allocated
	 * with room for it. 0: with capacity 0, the default: 4 x the
	 * default capacity, at most RTE_SHEAF_CAPACITY_MAX and (pool size -
	 * lcore count x 1.5 x cache size) / (2 x lcore count) or pool size /
	 * (4 x lcore count), whichever is larger, at least the capacity;
	 * with a capacity set,
	 * that capacity (fixed, no adaptation). Not below capacity, max
	 * RTE_SHEAF_CAPACITY_MAX.
	 */
	uint32_t capacity_max;
};

/** Default of struct rte_sheaf_config::idle_us: 1 ms. */
#define RTE_SHEAF_IDLE_US_DEFAULT 1000
/** Default of struct rte_sheaf_config::membarrier_interval_us: 1 ms. */
#define RTE_SHEAF_MEMBARRIER_US_DEFAULT 1000
/** Largest idle_us and membarrier_interval_us: 1 s. */
#define RTE_SHEAF_TIME_US_MAX 1000000
/** Default of struct rte_sheaf_config::barrier_timeout_ms: 5 s. */
#define RTE_SHEAF_BARRIER_MS_DEFAULT 5000
/** Largest barrier_timeout_ms: 1 hour. */
#define RTE_SHEAF_BARRIER_MS_MAX 3600000

/**
 * The statistics of a sheaf pool: one counter per item, summed over
 * lcores on read. "Objects" items count objects, "Events" items count
 * occurrences.
 */
#define RTE_SHEAF_STATS(X) \
	X(ALLOC_FAST, alloc_fast, "Objects allocated from an lcore's main sheaf") \
	X(FREE_FAST, free_fast, "Objects freed into an lcore's main sheaf") \
	X(ALLOC_SLOW, alloc_slow, "Objects allocated past the main sheaf (slow paths)") \
	X(FREE_SLOW, free_slow, "Objects freed past the main sheaf (slow paths)") \
	X(ALLOC_FAIL, alloc_fail, "Events: allocation failed, nothing taken") \
	X(SWAP, swap, "Events: main and spare sheaf swapped") \
	X(BARN_GET, barn_get, "Events: full sheaf taken from the barn") \
	X(BARN_GET_FAIL, barn_get_fail, "Events: barn had no full sheaf") \
	X(BARN_PUT, barn_put, "Events: full sheaf put into the barn") \
	X(BARN_PUT_FAIL, barn_put_fail, "Events: barn full or out of empty sheaves") \
	X(REFILL, refill, "Objects refilled from slabs into a sheaf") \
	X(FLUSH_MAIN, flush_main, "Objects flushed from a main sheaf to slabs") \
	X(FLUSH_OTHER, flush_other, "Objects flushed to slabs by a flush call") \
	X(REENTRANT, reentrant, "Events: call found its lcore busy (signal handler)") \
	X(ASK, ask, "Events: an lcore asked by another to give objects back (an allocation run short), its sheaves (a flush) or to stamp its deferred sheaf") \
	X(DRAIN, drain, "Objects an lcore gave back when asked") \
	X(REMOTE_TAKE, remote_take, "Objects taken back from idle or dead lcores' sheaves") \
	X(MEMBARRIER, membarrier, "Events: membarrier() calls to take from idle lcores") \
	X(TAKEOVER, takeover, "Events: lcore slot taken over from a dead process") \
	X(RECOVER, recover, "Events: a dead process's transaction undone, or its borrowed prefill sheaf taken back") \
	X(LOST, lost, "Objects lost: freed by a signal handler with no room to park them, or cut off DPDK's mempool cache by a process that died before they reached the pool") \
	X(FREE_INVALID, free_invalid, "Objects refused on free: foreign, misaligned or double (validate mode), or refused by the slabs") \
	X(PREFILL, prefill, "Objects loaded into borrowed sheaves (prefill get and refill)") \
	X(PREFILL_OVERSIZE, prefill_oversize, "Events: prefill above capacity_max: an oversize sheaf sought (counted when its load then fails too)") \
	X(PREFILL_FAIL, prefill_fail, "Events: prefill get or refill short of n, nothing taken") \
	X(FREE_DEFERRED, free_deferred, "Objects freed deferred, to be reused after a grace period") \
	X(DEFERRED_STAMP, deferred_stamp, "Events: deferred sheaf stamped with a QSBR token and queued") \
	X(DEFERRED_RECLAIM, deferred_reclaim, "Objects reclaimed after a grace period") \
	X(DEFERRED_FALLBACK, deferred_fallback, "Objects queued one by one: no empty sheaf at hand") \
	X(GROW, grow, "Events: an lcore doubled its sheaf capacity") \
	X(SHRINK, shrink, "Events: an lcore halved its sheaf capacity")

/** Statistics items, see RTE_SHEAF_STATS. */
enum rte_sheaf_stat {
#define RTE_SHEAF_STAT_ENUM_(id, name, help) RTE_SHEAF_STAT_##id,
	RTE_SHEAF_STATS(RTE_SHEAF_STAT_ENUM_)
#undef RTE_SHEAF_STAT_ENUM_
	RTE_SHEAF_STAT_MAX /**< Number of items. */
};

/** A snapshot of a pool's statistics. */
struct rte_sheaf_stats {
	uint64_t count[RTE_SHEAF_STAT_MAX]; /**< Indexed by rte_sheaf_stat. */
};

/**
 * The fields of struct rte_sheaf_info, in order, with their meaning: the
 * one list the dump and telemetry print.
 */
#define RTE_SHEAF_INFO(X) \
	X(size, "Objects in the pool (populated)") \
	X(capacity, "Objects per sheaf, at least (lcores adapt up to capacity_max)") \
	X(capacity_max, "Objects per sheaf, at most") \
	X(barn_max_full, "Full-sheaf limit per barn") \
	X(barn_max_empty, "Empty sheaves each barn started with") \
	X(nb_barns, "Barns: one per NUMA socket") \
	X(nb_slabs, "Slabs cut from the pool's memory") \
	X(nb_sheaves, "Sheaves allocated for the pool") \
	X(nb_lcores, "Lcores holding at least one object") \
	X(in_slabs, "Objects free in slabs") \
	X(in_barns, "Objects in barn full sheaves and sheaves in transit") \
	X(barn_full, "Sheaves on barn full stacks") \
	X(barn_empty, "Sheaves on barn empty stacks") \
	X(in_lcores, "Objects in lcore sheaves") \
	X(nb_borrowed, "Sheaves lent by rte_sheaf_prefill_get()") \
	X(in_deferred, "Objects freed deferred, not reclaimed")

/** Where a pool's objects are, as read by rte_sheaf_info_get(). */
struct rte_sheaf_info {
	uint32_t size;           /**< Objects in the pool (populated). */
	uint32_t capacity;       /**< Objects per sheaf, at least. */
	uint32_t capacity_max;   /**< Objects per sheaf, at most. */
	uint32_t barn_max_full;  /**< Full-sheaf limit per barn. */
	uint32_t barn_max_empty; /**< Empty sheaves each barn started with. */
	uint32_t nb_barns;       /**< Barns: one per NUMA socket. */
	uint32_t nb_slabs;       /**< Slabs cut from the pool's memory. */
	uint32_t nb_sheaves;     /**< Sheaves allocated for the pool. */
	uint32_t nb_lcores;      /**< Lcores holding at least one object. */
	uint32_t in_slabs;       /**< Objects free in slabs. */
	uint32_t in_barns;       /**< Objects in barn full sheaves and in transit. */
	uint32_t barn_full;      /**< Sheaves on barn full stacks. */
	uint32_t barn_empty;     /**< Sheaves on barn empty stacks. */
	uint32_t in_lcores;      /**< Objects in lcore sheaves. */
	uint32_t nb_borrowed;    /**< Sheaves lent by rte_sheaf_prefill_get(). */
	uint32_t in_deferred;    /**< Objects freed deferred, not reclaimed. */
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Tell whether a mempool is driven by the sheaf ops.
 *
 * MT-safe.
 * Lcore: any thread.
 *
 * @param mp
 *   The mempool.
 * @return
 *   0 for a populated sheaf pool, else a negative errno, also in rte_errno:
 *   - -EINVAL: mp is NULL, uses other ops, or is not populated yet.
 */
__rte_experimental
int rte_sheaf_pool_check(const struct rte_mempool *mp);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Create and populate a mempool driven by the sheaf ops.
 *
 * The arguments are those of rte_mempool_create() without the
 * constructors. A cache_size of 0 is recommended: the lcore sheaves
 * already are a per-lcore cache.
 *
 * MT-safe.
 * Lcore: EAL-initialized primary process.
 *
 * @param name
 *   The pool name.
 * @param n
 *   Number of objects.
 * @param elt_size
 *   Size of each object, in bytes.
 * @param cache_size
 *   Size of DPDK's own per-lcore cache in front of the sheaves; 0 for none.
 * @param private_data_size
 *   Size of the pool's private area.
 * @param socket_id
 *   NUMA socket of the pool memory, or SOCKET_ID_ANY.
 * @param flags
 *   RTE_MEMPOOL_F_* flags.
 * @param config
 *   Sheaf configuration, or NULL for defaults. Copied.
 * @return
 *   The mempool, or NULL with rte_errno set:
 *   - EINVAL: a bad argument or configuration field (logged by name).
 *   - ENOMEM, ENOSPC, EEXIST, ENAMETOOLONG: as rte_mempool_create().
 */
__rte_experimental
struct rte_mempool *rte_sheaf_pool_create(const char *name, unsigned int n,
	unsigned int elt_size, unsigned int cache_size,
	unsigned int private_data_size, int socket_id, unsigned int flags,
	const struct rte_sheaf_config *config);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Create a packet mbuf pool driven by the sheaf ops, like
 * rte_pktmbuf_pool_create() with the ops name forced to sheaf.
 *
 * MT-safe.
 * Lcore: EAL-initialized primary process.
 *
 * @param name
 *   The pool name.
 * @param n
 *   Number of mbufs.
 * @param cache_size
 *   DPDK's per-lcore cache size; 0 recommended.
 * @param priv_size
 *   Application private area per mbuf, a multiple of RTE_MBUF_PRIV_ALIGN.
 * @param data_room_size
 *   Data buffer size per mbuf, headroom included.
 * @param socket_id
 *   NUMA socket of the pool memory, or SOCKET_ID_ANY.
 * @param config
 *   Sheaf configuration, or NULL for defaults. Copied.
 * @return
 *   The mempool, or NULL with rte_errno set as rte_sheaf_pool_create().
 */
__rte_experimental
struct rte_mempool *rte_sheaf_pktmbuf_pool_create(const char *name,
	unsigned int n, unsigned int cache_size, uint16_t priv_size,
	uint16_t data_room_size, int socket_id,
	const struct rte_sheaf_config *config);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Return the calling lcore's sheaves and the barns' full sheaves to the
 * slabs. Requests other lcores left at the caller's slot (drain, give,
 * a barrier's stamp) are answered. While another lcore holds the
 * caller's slot (taking from it as idle), waits for it, up to three idle
 * times and a membarrier interval.
 *
 * MT-safe.
 * Lcore: any; a thread without an lcore id flushes the barns only; not
 * from a signal handler inside the pool (-EBUSY).
 *
 * @param mp
 *   A sheaf pool.
 * @return
 *   Objects moved to the slabs (>= 0), or a negative errno, also in
 *   rte_errno:
 *   - -EINVAL: mp is not a sheaf pool.
 *   - -EBUSY: from a signal handler that interrupted, on its thread, a
 *     call into mp (its inline get, put or deferred free included), or
 *     a call into another sheaf pool that holds one of its locks or has
 *     entered its slow path's brackets: nothing done, not logged. (A
 *     handler that lands elsewhere in another pool's call, which holds
 *     no lock there, flushes mp.)
 */
__rte_experimental
int rte_sheaf_flush_lcore(struct rte_mempool *mp);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Return every lcore's sheaves and the barns to the slabs.
 *
 * Each lcore empties its own sheaves: the caller directly, idle EAL
 * worker lcores of the caller's process through rte_eal_remote_launch()
 * (waited for, when called from the main lcore), and the others when
 * asked, at their next pool call. Lcores that make no pool call for the
 * pool's idle time (struct rte_sheaf_config::idle_us), and lcores of dead
 * processes, are emptied by the caller. Waits up to three idle times and
 * a membarrier interval (about 4 ms by default). Objects in DPDK's own
 * per-lcore mempool cache are not touched.
 *
 * MT-safe, but must not run concurrently with another remote launch on
 * the same lcores.
 * Lcore: any; not from a signal handler inside the pool (-EBUSY).
 *
 * @param mp
 *   A sheaf pool.
 * @return
 *   The number of lcores whose flush is still pending (>= 0; 0 when all
 *   sheaves are back; the caller's own counts when another lcore held
 *   its slot to the end), or a negative errno, also in rte_errno:
 *   - -EINVAL: mp is not a sheaf pool.
 *   - -EBUSY: as rte_sheaf_flush_lcore(): nothing done, not logged.
 */
__rte_experimental
int rte_sheaf_flush(struct rte_mempool *mp);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * The sheaf capacity an lcore has adapted to (struct rte_sheaf_config,
 * capacity and capacity_max): what its main and spare sheaves fill to
 * now. Racy: the lcore may change it at its next pool call.
 *
 * MT-safe.
 * Lcore: any.
 *
 * @param mp
 *   A sheaf pool.
 * @param lcore_id
 *   An lcore id below RTE_MAX_LCORE.
 * @return
 *   The capacity (the pool's capacity for an lcore that never called
 *   it), or a negative errno, also in rte_errno:
 *   - -EINVAL: mp is not a sheaf pool, or lcore_id is out of range.
 */
__rte_experimental
int rte_sheaf_lcore_capacity(const struct rte_mempool *mp,
	unsigned int lcore_id);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Upper bound of the objects that lcore sheaves can keep out of reach of
 * other lcores: lcores x 2 x capacity_max, with lcores the lcore ids in use
 * (EAL lcores and registered threads) and those whose slot a thread now
 * gone left behind, RTE_MAX_LCORE at most. An allocation that runs
 * short asks the lcores holding objects to give them back, and takes
 * them from idle and dead ones (see rte_sheaf_flush()): the bound is
 * what an allocation may find out of reach for a few milliseconds.
 *
 * MT-safe.
 * Lcore: any thread.
 *
 * @param mp
 *   A sheaf pool.
 * @return
 *   The bound (>= 0), or -EINVAL (also in rte_errno) if mp is not a sheaf
 *   pool.
 */
__rte_experimental
int rte_sheaf_stranded_max(const struct rte_mempool *mp);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Read where a pool's objects are. Racy while the pool is in use; exact
 * when it is quiet.
 *
 * MT-safe.
 * Lcore: any thread.
 *
 * @param mp
 *   A sheaf pool.
 * @param info
 *   Filled on success.
 * @return
 *   0, or a negative errno, also in rte_errno:
 *   - -EINVAL: mp is not a sheaf pool, or info is NULL.
 */
__rte_experimental
int rte_sheaf_info_get(const struct rte_mempool *mp,
	struct rte_sheaf_info *info);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Sum a pool's per-lcore statistics. Racy while the pool is in use.
 *
 * MT-safe.
 * Lcore: any thread.
 *
 * @param mp
 *   A sheaf pool.
 * @param stats
 *   Filled on success.
 * @return
 *   0, or a negative errno, also in rte_errno:
 *   - -EINVAL: mp is not a sheaf pool, or stats is NULL.
 */
__rte_experimental
int rte_sheaf_stats_get(const struct rte_mempool *mp,
	struct rte_sheaf_stats *stats);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Reset a pool's statistics. Counters updated concurrently may keep part
 * of their old value.
 *
 * MT-safe.
 * Lcore: any thread.
 *
 * @param mp
 *   A sheaf pool.
 * @return
 *   0, or -EINVAL (also in rte_errno) if mp is not a sheaf pool.
 */
__rte_experimental
int rte_sheaf_stats_reset(struct rte_mempool *mp);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Name of a statistics item, as used by the dump and telemetry
 * (lowercase, e.g. "barn_get").
 *
 * MT-safe.
 * Lcore: any thread.
 *
 * @param id
 *   The item.
 * @return
 *   The name, or NULL (rte_errno EINVAL) for an id out of range.
 */
__rte_experimental
const char *rte_sheaf_stat_name(enum rte_sheaf_stat id);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Print a pool's configuration, object placement and statistics, then a
 * line for each lcore slot owned by a process or holding objects: its
 * owner's pid and the objects in its main, spare and deferred sheaves.
 *
 * MT-safe.
 * Lcore: any thread.
 *
 * @param f
 *   Output stream.
 * @param mp
 *   A sheaf pool.
 * @return
 *   0, or a negative errno, also in rte_errno:
 *   - -EINVAL: f is NULL or mp is not a sheaf pool.
 */
__rte_experimental
int rte_sheaf_dump(FILE *f, const struct rte_mempool *mp);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * A sheaf borrowed from a sheaf pool by rte_sheaf_prefill_get(): an
 * opaque handle on objects set aside for one caller, from which
 * allocations cannot fail until it is empty (SLUB's prefilled sheaves).
 *
 * Objects in a borrowed sheaf are in use as far as the pool is
 * concerned: rte_mempool_avail_count() does not count them and no other
 * lcore can allocate them until the sheaf is returned with
 * rte_sheaf_prefill_put(). A handle is used by one thread at a time;
 * it may move between threads with the usual memory ordering, and
 * between processes sharing the pool: a process that allocates from,
 * refills or returns a handle another process borrowed holds the sheaf
 * from its first such call that finds the handle live (even when that
 * call then fails for another reason, but for
 * rte_sheaf_prefill_pktmbuf_alloc() refusing a pool that is not a
 * pktmbuf pool); its death gives the sheaf back to the pool, not the
 * borrower's. A handle moved out of a process that exits before the
 * next one used it is refused (-EINVAL) once the pool has taken the
 * sheaf back.
 *
 * "Not a borrowed sheaf" below means a handle that some
 * rte_sheaf_prefill_get() or rte_sheaf_prefill_refill() returned and
 * that is no longer live (returned, or replaced by a refill), or one
 * of another pool: those are refused with -EINVAL. Any other pointer is
 * not a handle, and is not detected (as with a pointer passed to
 * rte_mempool_put() that no pool handed out).
 */
struct rte_sheaf_prefill;

struct rte_mbuf;

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Borrow a sheaf holding at least n objects of a sheaf pool.
 *
 * Up to the pool's capacity_max (the size of its sheaves), a sheaf
 * already holding objects is taken whole where one is at hand (a barn's
 * full sheaf, or the caller's own spare or main), else an empty one is
 * loaded, up to the caller's lcore capacity and at least n, from the
 * caller's sheaves, the barns, the slabs and idle lcores. Above
 * capacity_max an oversize sheaf is used: one returned earlier that fits,
 * else one allocated with rte_malloc (capacity rounded up to a power of
 * two), loaded with at least n objects, and beyond n with what the
 * caller's own lcore sheaves hold, up to its capacity (a refill that
 * outgrows a sheaf loads its larger one to n); it is kept with the pool
 * when
 * returned and freed with it. Size the capacity (struct
 * rte_sheaf_config) for the usual n instead.
 *
 * MT-safe.
 * Lcore: any thread, with or without an lcore id; not from a signal
 * handler that interrupted a call into the same pool on the same thread.
 *
 * @param mp
 *   A sheaf pool.
 * @param n
 *   Objects the sheaf must hold, 1 to INT32_MAX.
 * @return
 *   The sheaf, holding at least n objects, or NULL with rte_errno set:
 *   - EINVAL: mp is not a sheaf pool, or n is 0 or above INT32_MAX.
 *   - ENOMEM: the pool cannot supply n objects now, or no memory for an
 *     oversize sheaf; nothing was taken.
 *   - EBUSY: called from a signal handler inside the pool, its
 *     arguments valid (not logged).
 */
__rte_experimental
struct rte_sheaf_prefill *rte_sheaf_prefill_get(struct rte_mempool *mp,
	unsigned int n);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Load a borrowed sheaf to at least n objects. Nothing is done when it
 * holds n already; otherwise it is loaded up to its capacity (at least
 * n). When n exceeds its capacity, a larger sheaf takes over its objects
 * and replaces *pfp, as rte_sheaf_prefill_get() does for an oversize n.
 *
 * MT-safe for distinct sheaves.
 * Lcore: as rte_sheaf_prefill_get().
 *
 * @param mp
 *   The sheaf pool the sheaf was borrowed from.
 * @param pfp
 *   The borrowed sheaf; replaced on success when n exceeded its capacity.
 * @param n
 *   Objects the sheaf must hold, 1 to INT32_MAX.
 * @return
 *   0, or a negative errno, also in rte_errno:
 *   - -EINVAL: mp is not a sheaf pool, n is 0 or above INT32_MAX, pfp
 *     or *pfp is NULL, or
 *     *pfp is not a sheaf borrowed from mp (returned already, say).
 *   - -ENOMEM: the pool cannot supply the objects now; the sheaf is as
 *     it was and still borrowed.
 *   - -EBUSY: called from a signal handler inside the pool, its
 *     arguments valid (not logged).
 *   - -EAGAIN: *pfp was moved from another process that left a load
 *     unfinished, and /proc cannot tell whether that process has ended
 *     (rte_sheaf_prefill_alloc()).
 */
__rte_experimental
int rte_sheaf_prefill_refill(struct rte_mempool *mp,
	struct rte_sheaf_prefill **pfp, unsigned int n);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Return a borrowed sheaf. One of the pool's own sheaves (not oversize)
 * goes whole to the barn while the barn is under its limit; otherwise
 * its objects go to the caller's lcore sheaves, then to the slabs, and
 * an oversize sheaf is kept for the next oversize borrow. The handle is
 * invalid afterwards.
 *
 * MT-safe for distinct sheaves.
 * Lcore: as rte_sheaf_prefill_get().
 *
 * @param mp
 *   The sheaf pool the sheaf was borrowed from.
 * @param pf
 *   The borrowed sheaf.
 * @return
 *   0, or a negative errno, also in rte_errno; on error nothing changed:
 *   - -EINVAL: mp is not a sheaf pool, pf is NULL, or pf is not a sheaf
 *     borrowed from mp (returned already, or borrowed from another
 *     pool). A handle carries the sheaf's lend count: a handle returned
 *     already, or kept from an earlier lend of the same sheaf, is
 *     refused until that sheaf has been lent 65536 times since.
 *   - -EBUSY: called from a signal handler inside the pool, its
 *     arguments valid (not logged).
 *   - -EAGAIN: pf was moved from another process that left a load
 *     unfinished, and /proc cannot tell whether that process has ended
 *     (rte_sheaf_prefill_alloc()).
 */
__rte_experimental
int rte_sheaf_prefill_put(struct rte_mempool *mp,
	struct rte_sheaf_prefill *pf);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Number of objects a borrowed sheaf holds: the allocations from it that
 * are guaranteed to succeed.
 *
 * MT-safe for distinct sheaves; touches no shared state.
 * Lcore: any thread.
 *
 * @param pf
 *   A borrowed sheaf.
 * @return
 *   The count (>= 0), or -EINVAL (also in rte_errno) if pf is NULL or
 *   not a borrowed sheaf.
 */
__rte_experimental
int rte_sheaf_prefill_size(const struct rte_sheaf_prefill *pf);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Allocate one object from a borrowed sheaf. Succeeds while the sheaf
 * holds objects, whatever other lcores do to the pool; never falls back
 * to the pool.
 *
 * MT-safe for distinct sheaves; touches no shared state but the sheaf
 * (a first use in another process than the borrower's takes it over:
 * a compare-and-swap, and a note in the pool's borrower hint; when the
 * borrower has ended, its unfinished calls are undone first and what
 * they lost is logged, as a recovery does).
 * Lcore: any thread, signal handlers included, but not on a sheaf the
 * interrupted code may be using; that first use of a handle moved from
 * another process is refused to a handler inside a pool call (-EBUSY).
 *
 * @param pf
 *   A borrowed sheaf.
 * @param obj
 *   Receives the object.
 * @return
 *   0, or a negative errno, also in rte_errno:
 *   - -ENOBUFS: the sheaf is empty.
 *   - -EINVAL: pf or obj is NULL, or pf is not a borrowed sheaf.
 *   - -EBUSY: the first use of a handle moved from another process, made
 *     by a signal handler that interrupted a call into a pool (not
 *     logged).
 *   - -EAGAIN: the first use of a handle moved from another process
 *     that left a load of the sheaf unfinished (or holds a lock of the
 *     pool), when /proc cannot tell whether that process has ended (no
 *     file descriptor left, hidepid): a dead one's load is undone, a
 *     live one's not. Try again (in vain where /proc never tells).
 */
__rte_experimental
int rte_sheaf_prefill_alloc(struct rte_sheaf_prefill *pf, void **obj);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Allocate n objects from a borrowed sheaf, all or nothing.
 *
 * MT-safe for distinct sheaves; touches no shared state but the sheaf
 * (a first use in another process than the borrower's takes it over:
 * a compare-and-swap, and a note in the pool's borrower hint; when the
 * borrower has ended, its unfinished calls are undone first and what
 * they lost is logged, as a recovery does).
 * Lcore: any thread, signal handlers included, but not on a sheaf the
 * interrupted code may be using; that first use of a handle moved from
 * another process is refused to a handler inside a pool call (-EBUSY).
 *
 * @param pf
 *   A borrowed sheaf.
 * @param objs
 *   Receives the n objects.
 * @param n
 *   Objects to allocate; 0 succeeds and does nothing.
 * @return
 *   0, or a negative errno, also in rte_errno; on error nothing is taken:
 *   - -ENOBUFS: the sheaf holds fewer than n objects.
 *   - -EINVAL: pf is NULL or not a borrowed sheaf, or objs is NULL.
 *   - -EBUSY: the first use of a handle moved from another process, made
 *     by a signal handler that interrupted a call into a pool (not
 *     logged).
 *   - -EAGAIN: the first use of a handle moved from another process
 *     that left a load of the sheaf unfinished (or holds a lock of the
 *     pool), when /proc cannot tell whether that process has ended (no
 *     file descriptor left, hidepid): a dead one's load is undone, a
 *     live one's not. Try again (in vain where /proc never tells).
 */
__rte_experimental
int rte_sheaf_prefill_alloc_bulk(struct rte_sheaf_prefill *pf, void **objs,
	unsigned int n);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Allocate n packet mbufs from a borrowed sheaf of a pktmbuf pool, all or
 * nothing, each initialised as rte_pktmbuf_alloc_bulk() does
 * (rte_pktmbuf_reset()).
 *
 * MT-safe for distinct sheaves; touches no shared state but the sheaf
 * (a first use in another process than the borrower's takes it over:
 * a compare-and-swap, and a note in the pool's borrower hint; when the
 * borrower has ended, its unfinished calls are undone first and what
 * they lost is logged, as a recovery does).
 * Lcore: any thread, signal handlers included, but not on a sheaf the
 * interrupted code may be using; that first use of a handle moved from
 * another process is refused to a handler inside a pool call (-EBUSY).
 *
 * @param pf
 *   A sheaf borrowed from a pktmbuf pool.
 * @param mbufs
 *   Receives the n mbufs.
 * @param n
 *   Mbufs to allocate; 0 succeeds and does nothing.
 * @return
 *   0, or a negative errno, also in rte_errno; on error nothing is taken:
 *   - -ENOBUFS: the sheaf holds fewer than n objects.
 *   - -EINVAL: pf is NULL or not a borrowed sheaf, its pool is not a
 *     pktmbuf pool, or mbufs is NULL.
 *   - -EBUSY: the first use of a handle moved from another process, made
 *     by a signal handler that interrupted a call into a pool (not
 *     logged).
 *   - -EAGAIN: the first use of a handle moved from another process
 *     that left a load of the sheaf unfinished (or holds a lock of the
 *     pool), when /proc cannot tell whether that process has ended (no
 *     file descriptor left, hidepid): a dead one's load is undone, a
 *     live one's not. Try again (in vain where /proc never tells).
 */
__rte_experimental
int rte_sheaf_prefill_pktmbuf_alloc(struct rte_sheaf_prefill *pf,
	struct rte_mbuf **mbufs, unsigned int n);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Attach a QSBR variable to a sheaf pool, enabling deferred frees
 * (rte_sheaf_free_deferred()). The readers the objects must outlive
 * report quiescent states on v; an object freed deferred is reused only
 * after every reader registered and online on v has reported one past
 * the free. Once attached, v stays for the pool's life: it must stay
 * valid while the pool is used (rte_mempool_free() does not read it),
 * and for secondary processes live in shared memory.
 * struct rte_sheaf_config::qsbr does the same at populate.
 *
 * Allocates the deferred-free state: a FIFO of nb_sheaves entries
 * (16 bytes each) per socket, and a queue of 16 bytes per pool object
 * for the fallback.
 *
 * MT-safe.
 * Lcore: any thread.
 *
 * @param mp
 *   A sheaf pool.
 * @param v
 *   The QSBR variable.
 * @return
 *   0, or a negative errno, also in rte_errno:
 *   - -EINVAL: mp is not a sheaf pool, or v is NULL.
 *   - -EEXIST: a QSBR variable is attached already.
 *   - -ENOMEM: no memory for the deferred-free state.
 */
__rte_experimental
int rte_sheaf_rcu_attach(struct rte_mempool *mp, struct rte_rcu_qsbr *v);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Free an object that readers may still be using: it goes back into the
 * pool only after every reader on the pool's QSBR variable has reported
 * a quiescent state past this call (SLUB's kfree_rcu()). The caller must
 * have made the object unreachable to new readers before the call.
 *
 * The object joins the lcore's deferred sheaf: no lock, no atomic. A
 * full sheaf is stamped with one rte_rcu_qsbr_start() token and queued
 * on its socket's FIFO, from where rte_sheaf_reclaim(), allocation slow
 * paths and rte_sheaf_deferred_barrier() put it back whole once the
 * token is reached. A thread without an lcore id shares one deferred
 * sheaf per socket, under the barn's lock.
 *
 * Fallback: when no empty sheaf can be had (the barn has none and holds
 * no full sheaf to empty into the slabs), the objects are queued one by
 * one on their socket's fallback queue. It never drops an object; it
 * costs a lock and one rte_rcu_qsbr_start() (an atomic add on the shared
 * token) per run of up to 64 objects, and each such object is later
 * checked and freed to the slabs on its own; counted in
 * RTE_SHEAF_STAT_DEFERRED_FALLBACK.
 *
 * Until reclaimed, deferred objects are in use: rte_mempool_avail_count()
 * does not count them (struct rte_sheaf_info::in_deferred does).
 *
 * MT-safe.
 * Lcore: any thread, signal handlers included: a handler whose thread
 * is inside the pool frees into its socket's shared deferred sheaf in
 * one step, all or nothing, and fails with -EAGAIN when that cannot be
 * done without waiting.
 *
 * @param mp
 *   A sheaf pool with a QSBR variable attached.
 * @param obj
 *   An object of mp, allocated and not freed since.
 * @return
 *   0, or a negative errno, also in rte_errno; on error nothing is freed:
 *   - -EINVAL: mp is not a sheaf pool, or obj is NULL; with
 *     RTE_SHEAF_F_VALIDATE, obj is no object of mp, misaligned, or in the
 *     pool already. Without it obj is not checked, as in rte_mempool_put():
 *     such an object is refused (logged, counted in
 *     RTE_SHEAF_STAT_FREE_INVALID) only if it reaches the slabs (the
 *     fallback queue's objects, a sheaf emptied into them); a sheaf may
 *     hand it out again before that.
 *   - -ENOTSUP: no QSBR variable is attached to mp.
 *   - -EAGAIN: from a signal handler inside the pool, the shared
 *     deferred sheaf was out of reach or out of room, or the objects
 *     would fill more sheaves than one step can stamp (about a hundred:
 *     free them in smaller bulks); nothing freed. Not logged: a handler
 *     does not log.
 */
__rte_experimental
int rte_sheaf_free_deferred(struct rte_mempool *mp, void *obj);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Free n objects deferred, as rte_sheaf_free_deferred(), all or nothing.
 *
 * MT-safe.
 * Lcore: as rte_sheaf_free_deferred().
 *
 * @param mp
 *   A sheaf pool with a QSBR variable attached.
 * @param objs
 *   The objects.
 * @param n
 *   Number of objects; 0 succeeds and does nothing.
 * @return
 *   0, or a negative errno, also in rte_errno; on error nothing is freed:
 *   - -EINVAL: mp is not a sheaf pool, objs is NULL (n > 0) or holds
 *     NULL; with RTE_SHEAF_F_VALIDATE, an object is refused as in
 *     rte_sheaf_free_deferred().
 *   - -ENOTSUP: no QSBR variable is attached to mp.
 *   - -EAGAIN: from a signal handler inside the pool, see
 *     rte_sheaf_free_deferred().
 */
__rte_experimental
int rte_sheaf_free_deferred_bulk(struct rte_mempool *mp, void * const *objs,
	unsigned int n);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Put back into circulation every deferred object whose grace period
 * has ended: whole sheaves go to the barns, fallback objects to the
 * slabs. Checks
 * with rte_rcu_qsbr_check() without waiting: never blocks on readers.
 * Partial deferred sheaves stay on their lcores (see
 * rte_sheaf_deferred_barrier()). Allocation slow paths do the same for
 * their socket, so calling this is needed only where allocations are
 * rare.
 *
 * MT-safe.
 * Lcore: any thread; from a signal handler inside the pool it takes no
 * lock its thread or another holds (it may return 0 then).
 *
 * @param mp
 *   A sheaf pool with a QSBR variable attached.
 * @return
 *   Objects returned (>= 0), or a negative errno, also in rte_errno:
 *   - -EINVAL: mp is not a sheaf pool.
 *   - -ENOTSUP: no QSBR variable is attached to mp.
 */
__rte_experimental
int rte_sheaf_reclaim(struct rte_mempool *mp);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Wait until every object freed deferred before the call is back in the
 * pool (SLUB's kvfree_rcu_barrier()). Stamps and queues each lcore's
 * partial deferred sheaf: the caller's own, the others' when asked (at
 * their next pool call; an lcore idle for the pool's idle time, or of a
 * dead process, is served by the caller), the caller's lcore id's among
 * them when another process owns it, and each socket's shared one;
 * then reclaims until the readers have passed the last token. Frees made
 * during the call are not waited for. Bounded by the pool's
 * barrier_timeout_ms (struct rte_sheaf_config).
 *
 * Waits for the readers to report: the caller must not be an online
 * reader of the pool's QSBR variable.
 *
 * MT-safe.
 * Lcore: any thread, not a signal handler.
 *
 * @param mp
 *   A sheaf pool with a QSBR variable attached.
 * @return
 *   0, or a negative errno, also in rte_errno:
 *   - -EINVAL: mp is not a sheaf pool.
 *   - -ENOTSUP: no QSBR variable is attached to mp.
 *   - -EBUSY: called from a signal handler inside the pool.
 *   - -ETIMEDOUT: an lcore did not stamp its deferred sheaf, or the
 *     readers did not report, within the pool's barrier_timeout_ms;
 *     the objects stay queued, reclaimed later.
 */
__rte_experimental
int rte_sheaf_deferred_barrier(struct rte_mempool *mp);

#ifdef __cplusplus
}
#endif

#endif /* _RTE_SHEAF_H_ */
