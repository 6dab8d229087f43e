/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * The public entry points of rte_sheaf.h: argument checks, one log line
 * per bad argument, rte_errno, then a call into the concept that does the
 * work. Nothing else lives here.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "sheaf_deferred.h"
#include "sheaf_flush.h"
#include "sheaf_lcore.h"
#include "sheaf_pool.h"
#include "sheaf_shared.h"
#include "sheaf_slot.h"
#include "sheaf_stats.h"
#include "sheaf_validate.h"

static int
sheaf_fail(int err)
{
	rte_errno = err;
	return -err;
}

int
rte_sheaf_pool_check(const struct rte_mempool *mp)
{
	return sheaf_pool_check(mp);
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

int
rte_sheaf_flush_lcore(struct rte_mempool *mp)
{
	bool pending;
	int n;

	if (sheaf_pool_check(mp) < 0)
		return -EINVAL;
	/*
	 * From a signal handler inside a call of its thread: refused, not
	 * logged (a flush waits, launches, takes slots over and logs).
	 * Until 2026-12-06 only a handler whose thread held a lock was
	 * refused, with 0 ("all flushed"), and later that day one that
	 * interrupted an inline call (the fast path) still went ahead,
	 * leaving its own slot out, and returned 0. As rte_sheaf_flush().
	 */
	if (sheaf_lcore_call_inside(sheaf_pool_of(mp)))
		return sheaf_fail(EBUSY);
	sheaf_call_enter();
	n = sheaf_flush_self(sheaf_pool_of(mp), &pending);
	sheaf_call_leave(sheaf_pool_of(mp));
	return n;
}

int
rte_sheaf_flush(struct rte_mempool *mp)
{
	int n;

	if (sheaf_pool_check(mp) < 0)
		return -EINVAL;
	if (sheaf_lcore_call_inside(sheaf_pool_of(mp)))
		return sheaf_fail(EBUSY);
	sheaf_call_enter();
	n = sheaf_flush_all(sheaf_pool_of(mp));
	sheaf_call_leave(sheaf_pool_of(mp));
	return n;
}

int
rte_sheaf_stranded_max(const struct rte_mempool *mp)
{
	if (sheaf_pool_check(mp) < 0)
		return -EINVAL;
	return (int)sheaf_stranded_max(sheaf_pool_of(mp));
}

int
rte_sheaf_lcore_capacity(const struct rte_mempool *mp, unsigned int lcore_id)
{
	if (sheaf_pool_check(mp) < 0)
		return -EINVAL;
	if (lcore_id >= RTE_MAX_LCORE) {
		SHEAF_LOG(ERR, "pool %s: lcore id %u out of range", mp->name,
			lcore_id);
		return sheaf_fail(EINVAL);
	}
	return (int)sheaf_lcore_capacity(&sheaf_pool_of(mp)->slot[lcore_id]);
}

int
rte_sheaf_info_get(const struct rte_mempool *mp, struct rte_sheaf_info *info)
{
	if (sheaf_pool_check(mp) < 0)
		return -EINVAL;
	if (info == NULL) {
		SHEAF_LOG(ERR, "NULL info");
		return sheaf_fail(EINVAL);
	}
	sheaf_info_fill(sheaf_pool_of(mp), info);
	return 0;
}

int
rte_sheaf_stats_get(const struct rte_mempool *mp,
	struct rte_sheaf_stats *stats)
{
	if (sheaf_pool_check(mp) < 0)
		return -EINVAL;
	if (stats == NULL) {
		SHEAF_LOG(ERR, "NULL stats");
		return sheaf_fail(EINVAL);
	}
	sheaf_stats_sum(sheaf_pool_of(mp), stats);
	return 0;
}

int
rte_sheaf_stats_reset(struct rte_mempool *mp)
{
	if (sheaf_pool_check(mp) < 0)
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

int
rte_sheaf_dump(FILE *f, const struct rte_mempool *mp)
{
	if (f == NULL) {
		SHEAF_LOG(ERR, "NULL stream");
		return sheaf_fail(EINVAL);
	}
	if (sheaf_pool_check(mp) < 0)
		return -EINVAL;
	sheaf_stats_dump(f, sheaf_pool_of(mp));
	return 0;
}

/* The pool of a deferred call, or NULL with rte_errno set (logged). */
static struct sheaf_pool *
sheaf_deferred_pool(const struct rte_mempool *mp)
{
	struct sheaf_pool *sp;

	if (sheaf_pool_check(mp) < 0)
		return NULL;
	sp = sheaf_pool_of(mp);
	if (sheaf_deferred_qsbr(sp) == NULL) {
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

	if (sheaf_pool_check(mp) < 0)
		return -EINVAL;
	if (v == NULL) {
		SHEAF_LOG(ERR, "pool %s: NULL QSBR variable", mp->name);
		return sheaf_fail(EINVAL);
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
	/* Nothing to free: objs is not read (rte_mempool_put_bulk()'s way). */
	if (n == 0)
		return 0;
	for (i = 0; objs != NULL && i < n; i++)
		if (objs[i] == NULL)
			break;
	if (objs == NULL || i < n) {
		SHEAF_LOG(ERR, "pool %s: NULL object", mp->name);
		return sheaf_fail(EINVAL);
	}
	if (sheaf_validate_on(sp) && sheaf_validate_put_all(sp, objs, n,
			sheaf_call_inside()) < 0) {
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_INVALID, 1);
		return sheaf_fail(EINVAL);
	}
	ret = sheaf_lcore_free_deferred(sp, objs, n);
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
	unsigned int n;

	if (sp == NULL)
		return -rte_errno;
	/*
	 * In the call's brackets: a signal handler inside a call of its
	 * thread (re-entered) only tries the locks, and a take-over it made
	 * would be logged by the thread's outermost call.
	 */
	sheaf_call_enter();
	n = sheaf_deferred_reclaim(sp, sheaf_call_reentered());
	sheaf_call_leave(sp);
	return n;
}

int
rte_sheaf_deferred_barrier(struct rte_mempool *mp)
{
	struct sheaf_pool *sp = sheaf_deferred_pool(mp);
	int ret;

	if (sp == NULL)
		return -rte_errno;
	/*
	 * A signal handler inside a call of its thread (re-entered in the
	 * call's brackets): refused, not logged (stdio).
	 */
	sheaf_call_enter();
	ret = sheaf_call_reentered() ? -EBUSY : sheaf_deferred_barrier(sp);
	sheaf_call_leave(sp);
	if (ret == -ETIMEDOUT)
		SHEAF_LOG(ERR, "pool %s: deferred barrier timed out after %u ms",
			mp->name, sp->cfg.barrier_timeout_ms);
	if (ret < 0)
		rte_errno = -ret;
	return ret;
}

RTE_LOG_REGISTER(sheaf_logtype, lib.sheaf, NOTICE);
