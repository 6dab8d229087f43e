/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Pool lifecycle (the ops alloc/free/get_count behind the driver) and the
 * public entry points of rte_sheaf.h.
 */

#include <string.h>

#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>

#include "sheaf_barn.h"
#include "sheaf_deferred.h"
#include "sheaf_lcore.h"
#include "sheaf_ops.h"
#include "sheaf_prefill.h"
#include "sheaf_slab.h"
#include "sheaf_stats.h"
#include "sheaf_validate.h"

/* Pools smaller than this many objects per lcore sheaf slot get smaller
 * sheaves: lcore sheaves then strand at most 1/4 of the pool.
 */
#define SHEAF_STRAND_DIV 8

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
 * Barn objects are reachable by every lcore, so the default lets a barn
 * hold the whole pool, as a ring driver's ring does: lcores that free more
 * than they allocate (a pipeline's consumer) then trade sheaves instead of
 * flushing them to the slabs. Costs one sheaf header and 8 bytes per
 * object, like the ring.
 */
static uint32_t
sheaf_default_barn(const struct rte_mempool *mp, uint32_t capacity)
{
	uint32_t n = (mp->size + capacity - 1) / capacity;

	return RTE_MIN(RTE_MAX(n, (uint32_t)RTE_SHEAF_BARN_MIN_DEFAULT),
		(uint32_t)RTE_SHEAF_BARN_MAX);
}

static int
sheaf_config_resolve(const struct rte_mempool *mp,
	const struct rte_sheaf_config *in, struct rte_sheaf_config *out)
{
	static const struct rte_sheaf_config zero;

	*out = in != NULL ? *in : zero;
	if (out->capacity > RTE_SHEAF_CAPACITY_MAX) {
		SHEAF_LOG(ERR, "pool %s: capacity %u exceeds %u", mp->name,
			out->capacity, RTE_SHEAF_CAPACITY_MAX);
		return -EINVAL;
	}
	if (out->barn_max_full > RTE_SHEAF_BARN_MAX) {
		SHEAF_LOG(ERR, "pool %s: barn_max_full %u exceeds %u", mp->name,
			out->barn_max_full, RTE_SHEAF_BARN_MAX);
		return -EINVAL;
	}
	if (out->barn_max_empty > RTE_SHEAF_BARN_MAX) {
		SHEAF_LOG(ERR, "pool %s: barn_max_empty %u exceeds %u", mp->name,
			out->barn_max_empty, RTE_SHEAF_BARN_MAX);
		return -EINVAL;
	}
	if ((out->flags & ~(uint32_t)RTE_SHEAF_F_VALIDATE) != 0) {
		SHEAF_LOG(ERR, "pool %s: flags 0x%x unknown", mp->name,
			out->flags & ~(uint32_t)RTE_SHEAF_F_VALIDATE);
		return -EINVAL;
	}
	if (out->capacity == 0)
		out->capacity = sheaf_default_capacity(mp);
	if (out->barn_max_full == 0)
		out->barn_max_full = sheaf_default_barn(mp, out->capacity);
	/* A barn holds a full sheaf only for an empty one it hands out. */
	if (out->barn_max_empty == 0)
		out->barn_max_empty = out->barn_max_full;
	return 0;
}

/* One barn per socket id up to the highest detected. */
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
	rte_free(sp->barn);
	rte_free(sp->depot);
	rte_free(sp->arena);
	sp->magic = 0;
	rte_free(sp);
}

int
sheaf_pool_alloc(struct rte_mempool *mp)
{
	struct rte_sheaf_config cfg;
	struct sheaf_pool *sp;
	uint32_t i;
	int ret;

	ret = sheaf_config_resolve(mp, mp->pool_config, &cfg);
	if (ret < 0)
		goto fail;
	ret = -ENOMEM;
	sp = rte_zmalloc_socket("sheaf_pool", sizeof(*sp), RTE_CACHE_LINE_SIZE,
		mp->socket_id);
	if (sp == NULL)
		goto fail;
	sp->mp = mp;
	sp->cfg = cfg;
	sp->nb_barns = sheaf_nb_sockets();
	/* Two per lcore slot, then each barn's empties. */
	sp->nb_sheaves = 2 * RTE_MAX_LCORE + sp->nb_barns * cfg.barn_max_empty;
	sp->sheaf_sz = RTE_ALIGN_CEIL(sizeof(struct sheaf) +
		cfg.capacity * sizeof(void *), RTE_CACHE_LINE_SIZE);
	sp->arena = rte_zmalloc_socket("sheaf_arena",
		(size_t)sp->nb_sheaves * sp->sheaf_sz, RTE_CACHE_LINE_SIZE,
		mp->socket_id);
	sp->barn = rte_zmalloc_socket("sheaf_barns",
		sp->nb_barns * sizeof(*sp->barn), RTE_CACHE_LINE_SIZE,
		mp->socket_id);
	sp->depot = rte_zmalloc_socket("sheaf_depots",
		sp->nb_barns * sizeof(*sp->depot), RTE_CACHE_LINE_SIZE,
		mp->socket_id);
	if (sp->arena == NULL || sp->barn == NULL || sp->depot == NULL)
		goto fail_free;
	for (i = 0; i < sp->nb_sheaves; i++)
		sheaf_arena_get(sp, i)->capacity = cfg.capacity;
	sheaf_lcore_init(sp);
	sheaf_depot_init(sp);
	if (sheaf_barn_init(sp, 2 * RTE_MAX_LCORE) < 0)
		goto fail_free;
	if (cfg.qsbr != NULL && sheaf_deferred_attach(sp, cfg.qsbr) < 0)
		goto fail_free;
	sp->magic = SHEAF_POOL_MAGIC;
	mp->pool_data = sp;
	SHEAF_LOG(DEBUG, "sheaf pool %s ready: capacity %u, %u barns, barn limits %u full %u empty",
		mp->name, cfg.capacity, sp->nb_barns, cfg.barn_max_full,
		cfg.barn_max_empty);
	return 0;

fail_free:
	SHEAF_LOG(ERR, "pool %s: no memory for %u sheaves of %u objects",
		mp->name, sp->nb_sheaves, cfg.capacity);
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
	mp->pool_data = NULL;
	sheaf_pool_release(sp);
}

unsigned int
sheaf_pool_count(const struct rte_mempool *mp)
{
	const struct sheaf_pool *sp = sheaf_pool_of(mp);

	return sheaf_slab_count(sp) + sheaf_barn_count(sp) +
		sheaf_lcore_count(sp, NULL);
}

int
rte_sheaf_pool_check(const struct rte_mempool *mp)
{
	const struct sheaf_pool *sp;

	if (mp == NULL) {
		SHEAF_LOG(ERR, "NULL mempool");
		goto fail;
	}
	if (strcmp(rte_mempool_get_ops(mp->ops_index)->name,
			RTE_SHEAF_OPS_NAME) != 0) {
		SHEAF_LOG(ERR, "mempool %s uses ops %s, not " RTE_SHEAF_OPS_NAME,
			mp->name, rte_mempool_get_ops(mp->ops_index)->name);
		goto fail;
	}
	sp = sheaf_pool_of(mp);
	if (sp == NULL || sp->magic != SHEAF_POOL_MAGIC) {
		SHEAF_LOG(ERR, "mempool %s is not populated", mp->name);
		goto fail;
	}
	return 0;
fail:
	rte_errno = EINVAL;
	return -EINVAL;
}

struct rte_mempool *
rte_sheaf_pool_create(const char *name, unsigned int n, unsigned int elt_size,
	unsigned int cache_size, unsigned int private_data_size, int socket_id,
	unsigned int flags, const struct rte_sheaf_config *config)
{
	struct rte_sheaf_config cfg;
	struct rte_mempool *mp;
	int ret;

	if (name == NULL || n == 0) {
		SHEAF_LOG(ERR, "%s", name == NULL ? "NULL name" : "zero objects");
		rte_errno = EINVAL;
		return NULL;
	}
	/* Kept until populate has read it. */
	if (config != NULL)
		cfg = *config;
	mp = rte_mempool_create_empty(name, n, elt_size, cache_size,
		private_data_size, socket_id, flags);
	if (mp == NULL)
		return NULL;
	ret = rte_mempool_set_ops_byname(mp, RTE_SHEAF_OPS_NAME,
		config != NULL ? &cfg : NULL);
	if (ret == 0)
		ret = rte_mempool_populate_default(mp);
	if (ret < 0) {
		rte_mempool_free(mp);
		rte_errno = -ret;
		return NULL;
	}
	mp->pool_config = NULL;
	return mp;
}

struct rte_mempool *
rte_sheaf_pktmbuf_pool_create(const char *name, unsigned int n,
	unsigned int cache_size, uint16_t priv_size, uint16_t data_room_size,
	int socket_id, const struct rte_sheaf_config *config)
{
	struct rte_pktmbuf_pool_private mbp_priv = {
		.mbuf_data_room_size = data_room_size,
		.mbuf_priv_size = priv_size,
	};
	struct rte_sheaf_config cfg;
	struct rte_mempool *mp;
	int ret;

	if (name == NULL || n == 0 || RTE_ALIGN(priv_size,
			RTE_MBUF_PRIV_ALIGN) != priv_size) {
		SHEAF_LOG(ERR, "bad name, size or priv_size %u", priv_size);
		rte_errno = EINVAL;
		return NULL;
	}
	if (config == NULL)
		return rte_pktmbuf_pool_create_by_ops(name, n, cache_size,
			priv_size, data_room_size, socket_id, RTE_SHEAF_OPS_NAME);
	cfg = *config;
	mp = rte_mempool_create_empty(name, n,
		sizeof(struct rte_mbuf) + priv_size + data_room_size,
		cache_size, sizeof(mbp_priv), socket_id, 0);
	if (mp == NULL)
		return NULL;
	ret = rte_mempool_set_ops_byname(mp, RTE_SHEAF_OPS_NAME, &cfg);
	if (ret == 0) {
		rte_pktmbuf_pool_init(mp, &mbp_priv);
		ret = rte_mempool_populate_default(mp);
	}
	if (ret < 0) {
		rte_mempool_free(mp);
		rte_errno = -ret;
		return NULL;
	}
	mp->pool_config = NULL;
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
}

/*
 * Empty the barns into the slabs. The caller's slot, if it has one and
 * is not re-entered, is marked busy so that a signal handler stays off
 * the barn and depot it is using.
 */
static unsigned int
sheaf_flush_barns(struct sheaf_pool *sp)
{
	struct sheaf_lcore *lc = sheaf_lcore_own_slot(sp);
	unsigned int n = 0, bad = 0;
	struct sheaf *s;
	uint32_t b;

	if (lc != NULL && lc->busy != 0)
		return 0;
	for (b = 0; b < sp->nb_barns; b++) {
		for (;;) {
			if (lc != NULL)
				lc->busy = SHEAF_BUSY_SHEAF | SHEAF_BUSY_BARN;
			rte_compiler_barrier();
			s = sheaf_barn_get_full(sp, b);
			rte_compiler_barrier();
			if (lc != NULL)
				lc->busy = SHEAF_BUSY_SHEAF;
			if (s == NULL)
				break;
			n += s->size;
			sheaf_depot_enter(lc);
			bad += sheaf_slab_free_bulk(sp, s->objs, s->size);
			sheaf_depot_leave(sp, lc);
			s->size = 0;
			if (lc != NULL)
				lc->busy = SHEAF_BUSY_SHEAF | SHEAF_BUSY_BARN;
			rte_compiler_barrier();
			sheaf_barn_put_empty(sp, b, s);
			rte_compiler_barrier();
		}
	}
	rte_compiler_barrier();
	if (lc != NULL)
		lc->busy = 0;
	sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_INVALID, bad);
	sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FLUSH_OTHER, n);
	return n;
}

/* Flush the calling lcore's own sheaves, unless it is re-entered. */
static unsigned int
sheaf_flush_self(struct sheaf_pool *sp)
{
	struct sheaf_lcore *lc;
	unsigned int n;

	if (sheaf_lcore_hold(sp, &lc) < 0 || lc == NULL)
		return 0;
	n = sheaf_lcore_flush(sp, lc);
	sheaf_lcore_release(lc);
	return n;
}

int
rte_sheaf_flush_lcore(struct rte_mempool *mp)
{
	struct sheaf_pool *sp;
	unsigned int n;

	if (rte_sheaf_pool_check(mp) < 0)
		return -EINVAL;
	sp = sheaf_pool_of(mp);
	n = sheaf_flush_self(sp);
	/* Expired deferred sheaves join the barns; the others stay. */
	sheaf_deferred_reclaim_self(sp, true);
	return n + sheaf_flush_barns(sp);
}

static int
sheaf_flush_remote(void *arg)
{
	sheaf_flush_self(arg);
	return 0;
}

int
rte_sheaf_flush(struct rte_mempool *mp)
{
	unsigned int self = rte_lcore_id(), i;
	struct sheaf_pool *sp;
	int pending = 0;

	if (rte_sheaf_pool_check(mp) < 0)
		return -EINVAL;
	sp = sheaf_pool_of(mp);
	sheaf_flush_self(sp);
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct sheaf_lcore *lc = &sp->lcore[i];

		if (i == self || !sheaf_lcore_holds(lc))
			continue;
		if (self == rte_get_main_lcore() &&
				rte_eal_lcore_role(i) == ROLE_RTE &&
				rte_eal_get_lcore_state(i) == WAIT &&
				rte_eal_remote_launch(sheaf_flush_remote, sp, i) == 0) {
			rte_eal_wait_lcore(i);
			continue;
		}
		/* Release pairs with the owner's acquire in its slow path. */
		__atomic_store_n(&lc->flush_req, 1, __ATOMIC_RELEASE);
		pending++;
	}
	/* Running lcores that are outside the pool right now: take back. */
	if (pending != 0) {
		sheaf_lcore_steal(sp, sheaf_lcore_own_slot(sp));
		pending = 0;
		for (i = 0; i < RTE_MAX_LCORE; i++)
			if (i != self && sheaf_lcore_holds(&sp->lcore[i]))
				pending++;
	}
	sheaf_deferred_reclaim_self(sp, true);
	sheaf_flush_barns(sp);
	return pending;
}

int
rte_sheaf_stranded_max(const struct rte_mempool *mp)
{
	unsigned int i, nb = 0;
	const struct sheaf_pool *sp;

	if (rte_sheaf_pool_check(mp) < 0)
		return -EINVAL;
	sp = sheaf_pool_of(mp);
	for (i = 0; i < RTE_MAX_LCORE; i++)
		if (rte_eal_lcore_role(i) != ROLE_OFF)
			nb++;
	return nb * (2 * sp->cfg.capacity + SHEAF_STASH_OBJS);
}

int
rte_sheaf_info_get(const struct rte_mempool *mp, struct rte_sheaf_info *info)
{
	const struct sheaf_pool *sp;
	uint32_t b;

	if (rte_sheaf_pool_check(mp) < 0)
		return -EINVAL;
	if (info == NULL) {
		SHEAF_LOG(ERR, "NULL info");
		rte_errno = EINVAL;
		return -EINVAL;
	}
	sp = sheaf_pool_of(mp);
	memset(info, 0, sizeof(*info));
	info->size = mp->populated_size;
	info->capacity = sp->cfg.capacity;
	info->barn_max_full = sp->cfg.barn_max_full;
	info->barn_max_empty = sp->cfg.barn_max_empty;
	info->nb_barns = sp->nb_barns;
	info->nb_slabs = sp->nb_slabs;
	info->nb_sheaves = sp->nb_sheaves;
	info->in_slabs = sheaf_slab_count(sp);
	info->in_barns = sheaf_barn_count(sp);
	for (b = 0; b < sp->nb_barns; b++) {
		info->barn_full += rte_ring_count(sp->barn[b].full);
		info->barn_empty += rte_ring_count(sp->barn[b].empty);
	}
	info->in_lcores = sheaf_lcore_count(sp, &info->nb_lcores);
	info->nb_borrowed = sheaf_prefill_count(sp);
	info->in_deferred = sheaf_deferred_count(sp);
	return 0;
}

int
rte_sheaf_stats_get(const struct rte_mempool *mp,
	struct rte_sheaf_stats *stats)
{
	if (rte_sheaf_pool_check(mp) < 0)
		return -EINVAL;
	if (stats == NULL) {
		SHEAF_LOG(ERR, "NULL stats");
		rte_errno = EINVAL;
		return -EINVAL;
	}
	sheaf_stats_sum(sheaf_pool_of(mp), stats);
	return 0;
}

int
rte_sheaf_stats_reset(struct rte_mempool *mp)
{
	if (rte_sheaf_pool_check(mp) < 0)
		return -EINVAL;
	sheaf_stats_reset(sheaf_pool_of(mp));
	return 0;
}

const char *
rte_sheaf_stat_name(enum rte_sheaf_stat id)
{
	const char *name = sheaf_stats_name(id);

	if (name == NULL) {
		SHEAF_LOG(ERR, "stat id %d out of range", (int)id);
		rte_errno = EINVAL;
	}
	return name;
}

/* The lcore slots in use or owned, a line each (racy reads). */
static void
sheaf_dump_slots(FILE *f, const struct sheaf_pool *sp)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct sheaf_lcore *lc = &sp->lcore[i];
		uint32_t owner = __atomic_load_n(&lc->owner, __ATOMIC_RELAXED);
		const struct sheaf *spare;

		if (owner == 0 && !sheaf_lcore_holds(lc))
			continue;
		spare = __atomic_load_n(&lc->spare, __ATOMIC_RELAXED);
		fprintf(f, "  lcore %u: owner pid %u%s main=%u spare=%u stash=%u\n",
			i, owner, owner == sheaf_proc_id ? " (this process)" : "",
			__atomic_load_n(&lc->msize, __ATOMIC_RELAXED),
			__atomic_load_n(&spare->size, __ATOMIC_RELAXED),
			__atomic_load_n(&lc->nb_stash, __ATOMIC_RELAXED));
	}
}

int
rte_sheaf_dump(FILE *f, const struct rte_mempool *mp)
{
	struct rte_sheaf_stats st;
	struct rte_sheaf_info in;
	unsigned int k;

	if (f == NULL) {
		SHEAF_LOG(ERR, "NULL stream");
		rte_errno = EINVAL;
		return -EINVAL;
	}
	if (rte_sheaf_info_get(mp, &in) < 0)
		return -EINVAL;
	sheaf_stats_sum(sheaf_pool_of(mp), &st);
	fprintf(f, "sheaf pool <%s>@%p\n", mp->name, (const void *)mp);
	fprintf(f, "  size=%u capacity=%u barns=%u barn_max_full=%u barn_max_empty=%u\n",
		in.size, in.capacity, in.nb_barns, in.barn_max_full,
		in.barn_max_empty);
	fprintf(f, "  slabs=%u sheaves=%u\n", in.nb_slabs, in.nb_sheaves);
	fprintf(f, "  in_slabs=%u in_barns=%u (full=%u empty=%u) in_lcores=%u (lcores=%u)\n",
		in.in_slabs, in.in_barns, in.barn_full, in.barn_empty,
		in.in_lcores, in.nb_lcores);
	fprintf(f, "  borrowed sheaves=%u\n", in.nb_borrowed);
	fprintf(f, "  in_deferred=%u\n", in.in_deferred);
	for (k = 0; k < RTE_SHEAF_STAT_MAX; k++)
		fprintf(f, "  %s=%" PRIu64 "\n", sheaf_stats_name(k),
			st.count[k]);
	sheaf_dump_slots(f, sheaf_pool_of(mp));
	return 0;
}

/* The pool's deferred state, or NULL with rte_errno set (logged). */
static struct sheaf_pool *
sheaf_deferred_pool(const struct rte_mempool *mp)
{
	struct sheaf_pool *sp;

	if (rte_sheaf_pool_check(mp) < 0)
		return NULL;
	sp = sheaf_pool_of(mp);
	if (sheaf_deferred_of(sp) == NULL) {
		SHEAF_LOG(ERR, "pool %s: no QSBR variable attached", mp->name);
		rte_errno = ENOTSUP;
		return NULL;
	}
	return sp;
}

int
rte_sheaf_rcu_attach(struct rte_mempool *mp, struct rte_rcu_qsbr *v)
{
	int ret;

	if (rte_sheaf_pool_check(mp) < 0)
		return -EINVAL;
	if (v == NULL) {
		SHEAF_LOG(ERR, "pool %s: NULL QSBR variable", mp->name);
		rte_errno = EINVAL;
		return -EINVAL;
	}
	ret = sheaf_deferred_attach(sheaf_pool_of(mp), v);
	if (ret < 0) {
		SHEAF_LOG(ERR, "pool %s: %s", mp->name, ret == -EEXIST ?
			"a QSBR variable is attached already" :
			"no memory for the deferred-free state");
		rte_errno = -ret;
	}
	return ret;
}

int
rte_sheaf_free_deferred_bulk(struct rte_mempool *mp, void * const *objs,
	unsigned int n)
{
	struct sheaf_pool *sp = sheaf_deferred_pool(mp);
	unsigned int i;
	int ret;

	if (sp == NULL)
		return -rte_errno;
	for (i = 0; objs != NULL && i < n; i++)
		if (objs[i] == NULL)
			break;
	if (objs == NULL || i < n) {
		SHEAF_LOG(ERR, "pool %s: NULL object", mp->name);
		rte_errno = EINVAL;
		return -EINVAL;
	}
	if (n == 0)
		return 0;
	if (sheaf_validate_on(sp) && sheaf_validate_put_all(sp, objs, n) < 0) {
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_INVALID, 1);
		rte_errno = EINVAL;
		return -EINVAL;
	}
	ret = sheaf_deferred_free(sp, objs, n);
	if (ret < 0) {
		if (sheaf_validate_on(sp))
			sheaf_validate_take(sp, objs, n);
		rte_errno = -ret;
	}
	return ret;
}

int
rte_sheaf_free_deferred(struct rte_mempool *mp, void *obj)
{
	return rte_sheaf_free_deferred_bulk(mp, &obj, 1);
}

int
rte_sheaf_reclaim(struct rte_mempool *mp)
{
	struct sheaf_pool *sp = sheaf_deferred_pool(mp);

	if (sp == NULL)
		return -rte_errno;
	return sheaf_deferred_reclaim_self(sp, false);
}

int
rte_sheaf_deferred_barrier(struct rte_mempool *mp)
{
	struct sheaf_pool *sp = sheaf_deferred_pool(mp);
	int ret;

	if (sp == NULL)
		return -rte_errno;
	ret = sheaf_deferred_barrier(sp);
	if (ret == -EBUSY)
		SHEAF_LOG(ERR, "pool %s: barrier from a signal handler inside the pool",
			mp->name);
	if (ret < 0)
		rte_errno = -ret;
	return ret;
}

RTE_LOG_REGISTER(sheaf_logtype, lib.sheaf, NOTICE);
