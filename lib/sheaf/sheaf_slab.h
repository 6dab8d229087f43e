/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_SLAB_H_
#define _SHEAF_SLAB_H_

#include <rte_mempool.h>

#include "sheaf_pvt.h"

void sheaf_depot_init(struct sheaf_pool *sp);

/* Mempool populate op: cut the chunk into slabs, then add the objects. */
int sheaf_slab_populate(struct rte_mempool *mp, unsigned int max_objs,
	void *vaddr, rte_iova_t iova, size_t len,
	rte_mempool_populate_obj_cb_t *obj_cb, void *obj_cb_arg);

/* Record objects freed by the populate in progress on this thread. */
void sheaf_slab_record(struct sheaf_pool *sp, void * const *objs,
	unsigned int n);

/* Take up to n free objects, home depot first. Returns the count taken. */
unsigned int sheaf_slab_alloc_bulk(struct sheaf_pool *sp, uint32_t home,
	void **objs, unsigned int n);

/*
 * Return n objects to their slabs. A pointer that is no object of the
 * pool, or an object already free in its slab, is refused with a log
 * line. Returns the count refused.
 */
unsigned int sheaf_slab_free_bulk(struct sheaf_pool *sp, void * const *objs,
	unsigned int n);

/*
 * The slab holding obj and its index there, or NULL when obj is no
 * object of the pool; then *off (if not NULL) is the offset of obj into
 * the pool object it points inside (misaligned), or 0 when it points
 * outside every slab. Read-only: slabs change only at populate.
 */
struct sheaf_slab *sheaf_slab_find(const struct sheaf_pool *sp,
	const void *obj, uint32_t *idx, uintptr_t *off);

/* Free objects in all slabs; racy, exact when quiet. */
uint32_t sheaf_slab_count(const struct sheaf_pool *sp);

void sheaf_slab_release(struct sheaf_pool *sp);

#endif /* _SHEAF_SLAB_H_ */
