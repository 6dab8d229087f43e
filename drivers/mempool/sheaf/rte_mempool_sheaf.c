/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Mempool ops "sheaf": adapters into librte_sheaf.
 *
 * Contract: dequeue is all-or-nothing, 0 or -ENOBUFS; enqueue succeeds
 * (0) but in validate mode, where it refuses the objects that are not
 * the pool's or are in it already, frees the others and returns -EINVAL
 * (DPDK's put ignores it: the log line and FREE_INVALID tell); get_count
 * is slabs + barns + lcore sheaves, at most the pool's size, exact when
 * no thread moves objects (inside the ops, a flush, prefill, deferred).
 * Memory is sized by DPDK's default calc_mem_size; populate cuts it into
 * slabs.
 *
 * This file is built twice: into the plugin librte_mempool_sheaf.so for
 * -d, and into librte_sheaf so that linking the library is enough.
 * DPDK 22.11 registers a name twice if asked, spending one of its 16 ops
 * slots each time, so registration first looks the name up.
 */

#include <string.h>

#include <rte_common.h>
#include <rte_mempool.h>

#include "sheaf_ops.h"

static int
sheaf_mp_alloc(struct rte_mempool *mp)
{
	return sheaf_pool_alloc(mp);
}

static void
sheaf_mp_free(struct rte_mempool *mp)
{
	sheaf_pool_free(mp);
}

static int
sheaf_mp_enqueue(struct rte_mempool *mp, void * const *obj_table,
	unsigned int n)
{
	return sheaf_pool_put(sheaf_pool_of(mp), obj_table, n);
}

static int
sheaf_mp_dequeue(struct rte_mempool *mp, void **obj_table, unsigned int n)
{
	return sheaf_pool_get(sheaf_pool_of(mp), obj_table, n);
}

static unsigned int
sheaf_mp_get_count(const struct rte_mempool *mp)
{
	return sheaf_pool_count(mp);
}

static int
sheaf_mp_populate(struct rte_mempool *mp, unsigned int max_objs,
	void *vaddr, rte_iova_t iova, size_t len,
	rte_mempool_populate_obj_cb_t *obj_cb, void *obj_cb_arg)
{
	return sheaf_slab_populate(mp, max_objs, vaddr, iova, len, obj_cb,
		obj_cb_arg);
}

static const struct rte_mempool_ops ops_sheaf = {
	.name = RTE_SHEAF_OPS_NAME,
	.alloc = sheaf_mp_alloc,
	.free = sheaf_mp_free,
	.enqueue = sheaf_mp_enqueue,
	.dequeue = sheaf_mp_dequeue,
	.get_count = sheaf_mp_get_count,
	.populate = sheaf_mp_populate,
};

RTE_INIT(sheaf_mp_register)
{
	unsigned int i;

	/* Constructors run one at a time: the table cannot change under us. */
	for (i = 0; i < rte_mempool_ops_table.num_ops; i++)
		if (strcmp(rte_mempool_ops_table.ops[i].name,
				ops_sheaf.name) == 0)
			return;
	rte_mempool_register_ops(&ops_sheaf);
}
