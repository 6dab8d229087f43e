/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Pool lifecycle: configuration defaults, the allocation of everything a
 * pool holds, its release, get_count. See sheaf_pvt.h for the map.
 */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "sheaf_barn.h"
#include "sheaf_deferred.h"
#include "sheaf_lend.h"
#include "sheaf_pair.h"
#include "sheaf_pool.h"
#include "sheaf_proc.h"
#include "sheaf_slab.h"
#include "sheaf_slot.h"

/* Pools smaller than this many objects per lcore sheaf slot get smaller
 * sheaves: lcore sheaves then strand at most 1/4 of the pool.
 */
#define SHEAF_STRAND_DIV 8

/* Default capacity_max: this many times the default capacity, at most. */
#define SHEAF_ADAPT_RANGE 4

static uint32_t
sheaf_default_capacity(const struct rte_mempool *mp)
{
	size_t elt = mp->header_size + mp->elt_size + mp->trailer_size;
	uint32_t cap = RTE_SHEAF_CAPACITY_DEFAULT;
	uint32_t limit = mp->size / (SHEAF_STRAND_DIV * rte_lcore_count());

	/* Large objects: fewer per sheaf, as SLUB sizes sheaves by cache. */
	if (elt > 16384)
		cap /= 4;
	else if (elt > 4096)
		cap /= 2;
	return RTE_MAX(RTE_MIN(cap, limit), 1u);
}

/*
 * The default ceiling of adaptation: two doublings (SHEAF_ADAPT_RANGE x
 * the least), with every lcore's sheaves at the ceiling and DPDK's
 * caches in front at their flush threshold (1.5 x cache_size) holding
 * the pool at most, and half of it at least: an lcore whose sheaves
 * cannot hold its own bursts (an RX ring's deficit, asked for at once)
 * fails them while its objects wait in its sheaves; the give requests
 * bring back what others hold (doc/performance.md has the measurements
 * behind it).
 */
static uint32_t
sheaf_default_capacity_max(const struct rte_mempool *mp, uint32_t cap)
{
	uint32_t lcores = rte_lcore_count();
	uint64_t cached = (uint64_t)lcores * mp->cache_size * 3 / 2;
	uint64_t room = mp->size > cached ? mp->size - cached : 0;
	uint32_t limit = (uint32_t)RTE_MAX(room / (2 * lcores),
		(uint64_t)mp->size / (SHEAF_STRAND_DIV / 2 * lcores));

	return RTE_MAX(RTE_MIN(RTE_MIN(SHEAF_ADAPT_RANGE * cap, limit),
		(uint32_t)RTE_SHEAF_CAPACITY_MAX), cap);
}

/*
 * Barn objects are reachable by every lcore, so the default lets a barn
 * hold the whole pool, as a ring driver's ring does: lcores that free more
 * than they allocate (a pipeline's consumer) then trade sheaves instead of
 * flushing them to the slabs. Costs one sheaf header and 8 bytes per
 * object at a fixed capacity, like the ring (for a capacity_max that is
 * a power of two; otherwise its array rounds up to one).
 */
static uint32_t
sheaf_default_barn(const struct rte_mempool *mp, uint32_t capacity)
{
	uint32_t n = (mp->size + capacity - 1) / capacity;

	return RTE_MIN(RTE_MAX(n, (uint32_t)RTE_SHEAF_BARN_MIN_DEFAULT),
		(uint32_t)RTE_SHEAF_BARN_MAX);
}

/* One field over its maximum: logged by name. */
static int
sheaf_config_over(const struct rte_mempool *mp, const char *field,
	uint32_t v, uint32_t max)
{
	if (v <= max)
		return 0;
	SHEAF_LOG(ERR, "pool %s: %s %u exceeds %u", mp->name, field, v, max);
	return -EINVAL;
}

static int
sheaf_config_check(const struct rte_mempool *mp,
	const struct rte_sheaf_config *c)
{
	if (sheaf_config_over(mp, "capacity", c->capacity,
			RTE_SHEAF_CAPACITY_MAX) < 0 ||
			sheaf_config_over(mp, "capacity_max", c->capacity_max,
				RTE_SHEAF_CAPACITY_MAX) < 0 ||
			sheaf_config_over(mp, "barn_max_full", c->barn_max_full,
				RTE_SHEAF_BARN_MAX) < 0 ||
			sheaf_config_over(mp, "barn_max_empty",
				c->barn_max_empty, RTE_SHEAF_BARN_MAX) < 0 ||
			sheaf_config_over(mp, "idle_us", c->idle_us,
				RTE_SHEAF_TIME_US_MAX) < 0 ||
			sheaf_config_over(mp, "membarrier_interval_us",
				c->membarrier_interval_us,
				RTE_SHEAF_TIME_US_MAX) < 0 ||
			sheaf_config_over(mp, "barrier_timeout_ms",
				c->barrier_timeout_ms,
				RTE_SHEAF_BARRIER_MS_MAX) < 0)
		return -EINVAL;
	if ((c->flags & ~(uint32_t)RTE_SHEAF_F_VALIDATE) != 0) {
		SHEAF_LOG(ERR, "pool %s: flags 0x%x unknown", mp->name,
			c->flags & ~(uint32_t)RTE_SHEAF_F_VALIDATE);
		return -EINVAL;
	}
	return 0;
}

static int
sheaf_config_resolve(const struct rte_mempool *mp,
	const struct rte_sheaf_config *in, struct sheaf_pool *sp)
{
	static const struct rte_sheaf_config zero;
	struct rte_sheaf_config *out = &sp->cfg;

	*out = in != NULL ? *in : zero;
	if (sheaf_config_check(mp, out) < 0)
		return -EINVAL;
	if (out->capacity_max != 0 && out->capacity > out->capacity_max) {
		SHEAF_LOG(ERR, "pool %s: capacity %u exceeds capacity_max %u",
			mp->name, out->capacity, out->capacity_max);
		return -EINVAL;
	}
	if (out->capacity == 0) {
		out->capacity = sheaf_default_capacity(mp);
		if (out->capacity_max == 0)
			out->capacity_max = sheaf_default_capacity_max(mp,
				out->capacity);
		out->capacity = RTE_MIN(out->capacity, out->capacity_max);
	} else if (out->capacity_max == 0) {
		out->capacity_max = out->capacity;
	}
	if (out->barn_max_full == 0)
		out->barn_max_full = sheaf_default_barn(mp, out->capacity);
	/* A barn holds a full sheaf only for an empty one it hands out. */
	if (out->barn_max_empty == 0)
		out->barn_max_empty = out->barn_max_full;
	if (out->idle_us == 0)
		out->idle_us = RTE_SHEAF_IDLE_US_DEFAULT;
	if (out->membarrier_interval_us == 0)
		out->membarrier_interval_us = RTE_SHEAF_MEMBARRIER_US_DEFAULT;
	if (out->barrier_timeout_ms == 0)
		out->barrier_timeout_ms = RTE_SHEAF_BARRIER_MS_DEFAULT;
	sp->tun.idle_ns = (uint64_t)out->idle_us * 1000;
	sp->tun.membarrier_ns = (uint64_t)out->membarrier_interval_us * 1000;
	sp->tun.dry_cycles = rte_get_tsc_hz() / (1000000 / SHEAF_DRY_US);
	sp->tun.barrier_ns = (uint64_t)out->barrier_timeout_ms * 1000000;
	return 0;
}

/* One barn and depot per socket id up to the highest detected. */
static uint32_t
sheaf_nb_sockets(void)
{
	unsigned int i, n = 1;

	for (i = 0; i < rte_socket_count(); i++) {
		int s = rte_socket_id_by_idx(i);

		if (s >= 0 && (unsigned int)s + 1 > n)
			n = s + 1;
	}
	return RTE_MIN(n, (unsigned int)RTE_MAX_NUMA_NODES);
}

static void
sheaf_pool_release(struct sheaf_pool *sp)
{
	sheaf_deferred_release(sp);
	sheaf_slab_release(sp);
	sheaf_barn_release(sp);
	sheaf_lend_release(sp);
	rte_free(sp->barn);
	rte_free(sp->depot);
	rte_free(sp->arena);
	rte_free(sp->objs_arena);
	sp->magic = 0;
	rte_free(sp);
}

/*
 * The arena and its sheaves: two per slot, then each barn's empties.
 * Their headers in one array, their objects in another, each sheaf's a
 * power of two of bytes with room for capacity_max (sheaf_pair_objs()).
 * 0, -ENOMEM, or -ENOTSUP (logged).
 */
static int
sheaf_pool_arena(struct sheaf_pool *sp)
{
	size_t objs_sz = rte_align64pow2(RTE_MAX(
		(uint64_t)sp->cfg.capacity_max * sizeof(void *),
		(uint64_t)RTE_CACHE_LINE_SIZE));
	uint32_t i;

	sp->nb_sheaves = 2 * RTE_MAX_LCORE +
		sp->nb_nodes * sp->cfg.barn_max_empty;
	/* Indexes fit the slot's state word. */
	RTE_BUILD_BUG_ON(2 * RTE_MAX_LCORE + RTE_MAX_NUMA_NODES *
		RTE_SHEAF_BARN_MAX >= SHEAF_NONE);
	RTE_BUILD_BUG_ON(RTE_SHEAF_CAPACITY_MAX > (1u << SHEAF_SIZE_BITS) - 1);
	sp->objs_shift = rte_bsf64(objs_sz);
	/* Line pairs (sheaf_pool_layout_check()). */
	sp->arena = rte_zmalloc_socket("sheaf_arena",
		(size_t)sp->nb_sheaves * sizeof(*sp->arena),
		RTE_MAX(128, RTE_CACHE_LINE_SIZE), sp->mp->socket_id);
	sp->objs_arena = rte_zmalloc_socket("sheaf_arena_objs",
		(size_t)sp->nb_sheaves * objs_sz,
		RTE_MAX(128, RTE_CACHE_LINE_SIZE), sp->mp->socket_id);
	if (sp->arena == NULL || sp->objs_arena == NULL)
		return -ENOMEM;
	if (!sheaf_lend_addr_ok(sp->arena,
			(size_t)sp->nb_sheaves * sizeof(*sp->arena))) {
		SHEAF_LOG(ERR, "pool %s: sheaves at %p, above the 2^48 bytes a prefill handle can address",
			sp->mp->name, sp->arena);
		return -ENOTSUP;
	}
	for (i = 0; i < sp->nb_sheaves; i++) {
		sheaf_at(sp, i)->capacity = sp->cfg.capacity_max;
		sheaf_at(sp, i)->idx = i;
		sheaf_at(sp, i)->pool = sp;
		sheaf_at(sp, i)->objs = sheaf_objs_at(sp, i);
	}
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		unsigned int socket = rte_lcore_to_socket_id(i);

		sp->slot[i].barn = socket < sp->nb_nodes ? socket : 0;
		sheaf_pair_init(sp, &sp->slot[i], 2 * i, 2 * i + 1);
		sheaf_slot_init_gate(&sp->slot[i],
			(sp->cfg.flags & RTE_SHEAF_F_VALIDATE) != 0);
	}
	return 0;
}

/* The first cache line of a slot is the fast path's, all of it. */
static inline void
sheaf_pool_layout_check(void)
{
	/* The fast path's words, in the slot's first line. */
	RTE_BUILD_BUG_ON(offsetof(struct sheaf_slot, dcache) +
		sizeof(void **) > RTE_CACHE_LINE_MIN_SIZE);
	/*
	 * Slots in pairs of lines: each slot's first line opens a 128-byte
	 * pair, which CPUs' adjacent-line prefetchers fetch together, so
	 * no lcore's fast line shares a pair with another slot's last line
	 * (a slot of 9 lines, tried on 2026-12-06: local sheaf:0 2% slower,
	 * three interleaved pairs).
	 */
	RTE_BUILD_BUG_ON(sizeof(struct sheaf_slot) % 128 != 0);
	/* Headers in line pairs, as guide.md's memory figures count. */
	RTE_BUILD_BUG_ON(sizeof(struct sheaf) != 128);
	/* A sheaf's count, capacity and objects' address on one line. */
	RTE_BUILD_BUG_ON(offsetof(struct sheaf, objs) + sizeof(void **) >
		RTE_CACHE_LINE_MIN_SIZE);
	/* A fast call adds at most a sheaf's count to a field short of
	 * full (sheaf_pvt.h). */
	RTE_BUILD_BUG_ON(SHEAF_SIZE_BITS >= 30);
	RTE_BUILD_BUG_ON(SHEAF_BUSY_PUTS != SHEAF_BUSY_GETS + 31 ||
		SHEAF_BUSY_PUTS + 31 != 64);
}

int
sheaf_pool_alloc(struct rte_mempool *mp)
{
	struct sheaf_pool *sp;
	int ret = -ENOMEM;

	sheaf_pool_layout_check();
	/*
	 * An unnamed process (sheaf_proc.h): /proc could not tell its own
	 * start time, so it would hardly tell others' liveness either.
	 */
	if (sheaf_proc_unnamed()) {
		SHEAF_LOG(ERR, "pool %s: this process's start time could not be read from /proc/self/stat: no pool without it",
			mp->name);
		ret = -ENOTSUP;
		goto fail;
	}
	sp = rte_zmalloc_socket("sheaf_pool", sizeof(*sp), RTE_CACHE_LINE_SIZE,
		mp->socket_id);
	if (sp == NULL)
		goto fail;
	sp->mp = mp;
	ret = sheaf_config_resolve(mp, mp->pool_config, sp);
	if (ret < 0) {
		rte_free(sp);
		goto fail;
	}
	ret = -ENOMEM;
	sp->nb_nodes = sheaf_nb_sockets();
	sp->barn = rte_zmalloc_socket("sheaf_barns",
		sp->nb_nodes * sizeof(*sp->barn), RTE_CACHE_LINE_SIZE,
		mp->socket_id);
	sp->depot = rte_zmalloc_socket("sheaf_depots",
		sp->nb_nodes * sizeof(*sp->depot), RTE_CACHE_LINE_SIZE,
		mp->socket_id);
	if (sp->barn == NULL || sp->depot == NULL)
		goto fail_free;
	ret = sheaf_pool_arena(sp);
	if (ret == -ENOTSUP) /* logged */
		goto fail_release;
	if (ret < 0 || sheaf_depot_init(sp) < 0 ||
			sheaf_barn_init(sp, 2 * RTE_MAX_LCORE) < 0 ||
			(sp->cfg.qsbr != NULL &&
				sheaf_deferred_attach(sp, sp->cfg.qsbr) < 0)) {
		ret = -ENOMEM;
		goto fail_free;
	}
	/* Where taking from idle lcores is possible: registered here, at
	 * first use, not at load. */
	sheaf_proc_mb_register();
	sp->magic = SHEAF_POOL_MAGIC;
	/*
	 * Release: pairs with sheaf_pool_found()'s acquire in threads that
	 * find the pool by name meanwhile (DPDK lists it from its creation,
	 * before this populate): the state above is set up for them.
	 */
	__atomic_store_n(&mp->pool_data, sp, __ATOMIC_RELEASE);
	SHEAF_LOG(DEBUG, "sheaf pool %s ready: capacity %u-%u, %u barns, barn limits %u full %u empty",
		mp->name, sp->cfg.capacity, sp->cfg.capacity_max, sp->nb_nodes,
		sp->cfg.barn_max_full,
		sp->cfg.barn_max_empty);
	return 0;

fail_free:
	SHEAF_LOG(ERR, "pool %s: no memory for %u sheaves of %u objects",
		mp->name, sp->nb_sheaves, sp->cfg.capacity_max);
fail_release:
	sheaf_pool_release(sp);
fail:
	rte_errno = -ret;
	return ret;
}

void
sheaf_pool_free(struct rte_mempool *mp)
{
	struct sheaf_pool *sp = sheaf_pool_of(mp);

	if (sp == NULL)
		return;
	/* Relaxed: DPDK frees a pool only after unlinking it from its list
	 * (under the tailq lock, which the finders take): none reads it. */
	__atomic_store_n(&mp->pool_data, NULL, __ATOMIC_RELAXED);
	sheaf_pool_release(sp);
}

unsigned int
sheaf_pool_count(const struct rte_mempool *mp)
{
	const struct sheaf_pool *sp = sheaf_pool_found(mp);
	uint64_t n;

	/* Not populated yet (DPDK allocates at the first populate). */
	if (sp == NULL)
		return 0;
	/*
	 * The tiers are read one after the other while objects move
	 * between them: a trade read half way (the barn after it, the
	 * slot before) counts a sheaf twice. DPDK returns this count as
	 * it is (no cache) and subtracts it from the size for the count
	 * in use: never above the size.
	 */
	n = (uint64_t)sheaf_slab_count(sp) + sheaf_barn_count(sp) +
		sheaf_pair_count_all(sp, NULL);
	return (unsigned int)RTE_MIN(n, (uint64_t)mp->size);
}

int
sheaf_pool_check(const struct rte_mempool *mp)
{
	if (sheaf_pool_valid(mp))
		return 0;
	if (mp == NULL)
		SHEAF_LOG(ERR, "NULL mempool");
	else if (strcmp(rte_mempool_get_ops(mp->ops_index)->name,
			RTE_SHEAF_OPS_NAME) != 0)
		SHEAF_LOG(ERR, "mempool %s uses ops %s, not " RTE_SHEAF_OPS_NAME,
			mp->name, rte_mempool_get_ops(mp->ops_index)->name);
	else
		SHEAF_LOG(ERR, "mempool %s is not populated", mp->name);
	rte_errno = EINVAL;
	return -EINVAL;
}

/*
 * This process's index of the sheaf ops in DPDK's ops table, once a pool
 * showed it (-1 before): every public call checks its pool, and a name
 * comparison each time cost the deferred free a few percent. Relaxed: a
 * stale -1 only compares the name once more; the index of a name never
 * changes in a process.
 */
static int32_t sheaf_ops_index = -1;

static bool
sheaf_pool_ops_ours(const struct rte_mempool *mp)
{
	if (mp->ops_index == __atomic_load_n(&sheaf_ops_index,
			__ATOMIC_RELAXED))
		return true;
	if (strcmp(rte_mempool_get_ops(mp->ops_index)->name,
			RTE_SHEAF_OPS_NAME) != 0)
		return false;
	__atomic_store_n(&sheaf_ops_index, mp->ops_index, __ATOMIC_RELAXED);
	return true;
}

bool
sheaf_pool_valid(const struct rte_mempool *mp)
{
	const struct sheaf_pool *sp;

	if (mp == NULL || !sheaf_pool_ops_ours(mp))
		return false;
	sp = sheaf_pool_found(mp);
	return sp != NULL && sp->magic == SHEAF_POOL_MAGIC;
}
