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
 * Objects held in lcore sheaves are reachable only by their lcore: size a
 * pool with at least rte_sheaf_stranded_max() objects more than the app
 * needs in flight. rte_sheaf_flush() returns them to the shared tiers.
 */

#include <stdint.h>
#include <stdio.h>

#include <rte_compat.h>
#include <rte_mempool.h>

#ifdef __cplusplus
extern "C" {
#endif

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
 * Pool configuration, passed as the pool_config argument of
 * rte_mempool_set_ops_byname() or to rte_sheaf_pool_create().
 *
 * It is read when the pool is populated: it must stay valid until then.
 * A zeroed structure (or NULL) selects every default.
 */
struct rte_sheaf_config {
	/**
	 * Objects per sheaf. 0: a default from the pool and object size:
	 * RTE_SHEAF_CAPACITY_DEFAULT, halved for objects over 4 KiB and
	 * again over 16 KiB, at most pool size / (8 x lcore count), at
	 * least 1. Max RTE_SHEAF_CAPACITY_MAX.
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
	/** Reserved, must be 0. */
	uint32_t flags;
};

/**
 * The statistics of a sheaf pool: one counter per item, summed over
 * lcores on read. "Objects" items count objects, "Events" items count
 * occurrences.
 */
#define RTE_SHEAF_STATS(X) \
	X(ALLOC_FAST, alloc_fast, "Objects allocated from an lcore's main sheaf") \
	X(ALLOC_SLOW, alloc_slow, "Objects allocated past the main sheaf (slow paths)") \
	X(FREE_FAST, free_fast, "Objects freed into an lcore's main sheaf") \
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
	X(REENTRANT, reentrant, "Events: call found its lcore busy") \
	X(STEAL, steal, "Objects taken back from idle lcores' sheaves") \
	X(FREE_INVALID, free_invalid, "Objects refused on free: foreign or double")

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

/** Where a pool's objects are, as read by rte_sheaf_info_get(). */
struct rte_sheaf_info {
	uint32_t size;           /**< Objects in the pool (populated). */
	uint32_t capacity;       /**< Objects per sheaf. */
	uint32_t barn_max_full;  /**< Full-sheaf limit per barn. */
	uint32_t barn_max_empty; /**< Empty sheaves each barn started with. */
	uint32_t nb_barns;       /**< Barns: one per NUMA socket. */
	uint32_t nb_slabs;       /**< Slabs cut from the pool's memory. */
	uint32_t nb_sheaves;     /**< Sheaves allocated for the pool. */
	uint32_t nb_lcores;      /**< Lcores holding at least one object. */
	uint32_t in_slabs;       /**< Objects free in slabs. */
	uint32_t in_barns;       /**< Objects in barn full sheaves. */
	uint32_t barn_full;      /**< Sheaves in barn full rings. */
	uint32_t barn_empty;     /**< Sheaves in barn empty rings. */
	uint32_t in_lcores;      /**< Objects in lcore sheaves. */
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
 * slabs.
 *
 * MT-safe.
 * Lcore: any; a thread without an lcore id flushes the barns only.
 *
 * @param mp
 *   A sheaf pool.
 * @return
 *   Objects moved to the slabs (>= 0), or a negative errno, also in
 *   rte_errno:
 *   - -EINVAL: mp is not a sheaf pool.
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
 * worker lcores through rte_eal_remote_launch() (waited for), and busy
 * lcores (running a function, or registered non-EAL threads) through a
 * request they honour at their next slow path. Objects in DPDK's own
 * per-lcore mempool cache are not touched.
 *
 * MT-safe, but must not run concurrently with another remote launch on
 * the same lcores.
 * Lcore: any; remote launch requires the main lcore.
 *
 * @param mp
 *   A sheaf pool.
 * @return
 *   The number of lcores whose flush is still pending (>= 0; 0 when all
 *   sheaves are back), or a negative errno, also in rte_errno:
 *   - -EINVAL: mp is not a sheaf pool.
 */
__rte_experimental
int rte_sheaf_flush(struct rte_mempool *mp);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Upper bound of the objects that lcore sheaves can keep out of reach of
 * other lcores: lcores x (2 x capacity + 32), with lcores the EAL lcore
 * count plus registered threads (RTE_MAX_LCORE at most), and 32 the
 * objects a signal handler may park on its lcore. An allocation that
 * finds the shared tiers empty takes back the objects of lcores that are
 * outside the pool at that moment, so only lcores inside a pool call
 * really keep theirs.
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
 * Print a pool's configuration, object placement and statistics.
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

#ifdef __cplusplus
}
#endif

#endif /* _RTE_SHEAF_H_ */
