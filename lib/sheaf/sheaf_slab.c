/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Slabs: the pool's memory, holding the objects no sheaf holds.
 *
 * As in SLUB, every object has a home slab found from its address alone;
 * freeing returns it there. A slab is a run of at most SHEAF_SLAB_OBJS
 * objects at a constant stride, so one 64-bit mask says which are free:
 * no free-list is threaded through object memory, which stays untouched
 * (the mempool autotest checks that object contents survive put/get), and
 * a double free into a slab is seen as an already-set bit.
 *
 * Populate records where DPDK's helper lays the objects, cuts runs where
 * the stride breaks (page boundaries) or the slab is full, and keeps the
 * slabs sorted by address for a binary search on free.
 *
 * Each socket has a depot: one lock, and the slabs with free objects in
 * buckets by free count. Refill takes from the fullest partial slab (the
 * fewest free objects) first, as SLUB prefers partial slabs, so fully free
 * slabs stay cold.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "sheaf_lcore.h"
#include "sheaf_slab.h"

void
sheaf_depot_init(struct sheaf_pool *sp)
{
	uint32_t d, k;

	for (d = 0; d < sp->nb_barns; d++) {
		struct sheaf_depot *dp = &sp->depot[d];

		rte_spinlock_init(&dp->lock);
		dp->nb_free = 0;
		dp->nonempty = 0;
		for (k = 0; k < SHEAF_SLAB_OBJS; k++)
			dp->bucket[k] = SHEAF_SLAB_NONE;
	}
}

/* Depot bucket lists; caller holds the depot lock. */
static void
sheaf_depot_link(struct sheaf_pool *sp, struct sheaf_depot *dp, uint32_t id)
{
	struct sheaf_slab *s = &sp->slabs[id];
	uint32_t k = s->nb_free - 1;

	s->prev = SHEAF_SLAB_NONE;
	s->next = dp->bucket[k];
	if (s->next != SHEAF_SLAB_NONE)
		sp->slabs[s->next].prev = id;
	dp->bucket[k] = id;
	dp->nonempty |= UINT64_C(1) << k;
}

static void
sheaf_depot_unlink(struct sheaf_pool *sp, struct sheaf_depot *dp, uint32_t id)
{
	struct sheaf_slab *s = &sp->slabs[id];
	uint32_t k = s->nb_free - 1;

	if (s->prev != SHEAF_SLAB_NONE)
		sp->slabs[s->prev].next = s->next;
	else
		dp->bucket[k] = s->next;
	if (s->next != SHEAF_SLAB_NONE)
		sp->slabs[s->next].prev = s->prev;
	if (dp->bucket[k] == SHEAF_SLAB_NONE)
		dp->nonempty &= ~(UINT64_C(1) << k);
}

/* Take up to n objects from one depot; caller holds its lock. */
static unsigned int
sheaf_depot_take(struct sheaf_pool *sp, struct sheaf_depot *dp, void **objs,
	unsigned int n)
{
	unsigned int got = 0;

	while (got < n && dp->nonempty != 0) {
		uint32_t id = dp->bucket[(uint32_t)__builtin_ctzll(dp->nonempty)];
		struct sheaf_slab *s = &sp->slabs[id];
		uint64_t mask = s->free_mask;

		sheaf_depot_unlink(sp, dp, id);
		while (got < n && mask != 0) {
			objs[got++] = (void *)(s->base +
				(uintptr_t)(uint32_t)__builtin_ctzll(mask) * s->stride);
			mask &= mask - 1;
			s->nb_free--;
		}
		s->free_mask = mask;
		if (s->nb_free != 0)
			sheaf_depot_link(sp, dp, id);
	}
	dp->nb_free -= got;
	return got;
}

unsigned int
sheaf_slab_alloc_bulk(struct sheaf_pool *sp, uint32_t home, void **objs,
	unsigned int n)
{
	unsigned int got = 0;
	uint32_t i;

	for (i = 0; i < sp->nb_barns && got < n; i++) {
		struct sheaf_depot *dp = &sp->depot[(home + i) % sp->nb_barns];

		/* Racy peek, not critical: a stale zero skips a depot that
		 * just got objects, as a lock taken a moment earlier would.
		 */
		if (__atomic_load_n(&dp->nb_free, __ATOMIC_RELAXED) == 0)
			continue;
		rte_spinlock_lock(&dp->lock);
		got += sheaf_depot_take(sp, dp, objs + got, n - got);
		rte_spinlock_unlock(&dp->lock);
	}
	return got;
}

struct sheaf_slab *
sheaf_slab_find(const struct sheaf_pool *sp, const void *obj, uint32_t *idx,
	uintptr_t *off)
{
	uintptr_t a = (uintptr_t)obj;
	uint32_t lo = 0, hi = sp->nb_slabs;
	const struct sheaf_slab *s;
	uintptr_t d;

	if (off != NULL)
		*off = 0;
	/* Last slab whose base is <= a. */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sp->slabs[sp->slab_by_addr[mid]].base <= a)
			lo = mid;
		else
			hi = mid;
	}
	if (sp->nb_slabs == 0)
		return NULL;
	s = &sp->slabs[sp->slab_by_addr[lo]];
	if (a < s->base)
		return NULL;
	d = a - s->base;
	if (d / s->stride >= s->nb_objs)
		return NULL;
	if (d % s->stride != 0) {
		if (off != NULL)
			*off = d % s->stride;
		return NULL;
	}
	*idx = d / s->stride;
	return (struct sheaf_slab *)(uintptr_t)s;
}

unsigned int
sheaf_slab_free_bulk(struct sheaf_pool *sp, void * const *objs,
	unsigned int n)
{
	struct sheaf_depot *dp = NULL;
	unsigned int i, bad = 0;

	for (i = 0; i < n; i++) {
		struct sheaf_slab *s;
		uint64_t bit;
		uint32_t idx;

		s = sheaf_slab_find(sp, objs[i], &idx, NULL);
		if (s == NULL) {
			SHEAF_LOG(ERR, "pool %s: %p is not an object of the pool, refused",
				sp->mp->name, objs[i]);
			bad++;
			continue;
		}
		if (dp != &sp->depot[s->depot]) {
			if (dp != NULL)
				rte_spinlock_unlock(&dp->lock);
			dp = &sp->depot[s->depot];
			rte_spinlock_lock(&dp->lock);
		}
		bit = UINT64_C(1) << idx;
		if (s->free_mask & bit) {
			SHEAF_LOG(ERR, "pool %s: double free of %p, refused",
				sp->mp->name, objs[i]);
			bad++;
			continue;
		}
		if (s->nb_free != 0)
			sheaf_depot_unlink(sp, dp, s - sp->slabs);
		s->free_mask |= bit;
		s->nb_free++;
		sheaf_depot_link(sp, dp, s - sp->slabs);
		dp->nb_free++;
	}
	if (dp != NULL)
		rte_spinlock_unlock(&dp->lock);
	return bad;
}

uint32_t
sheaf_slab_count(const struct sheaf_pool *sp)
{
	uint32_t d, n = 0;

	for (d = 0; d < sp->nb_barns; d++)
		n += __atomic_load_n(&sp->depot[d].nb_free, __ATOMIC_RELAXED);
	return n;
}

/* Objects handed to the pool by the populate in progress. */
struct sheaf_layout {
	void **obj;
	unsigned int n;
	unsigned int max;
};

void
sheaf_slab_record(struct sheaf_pool *sp, void * const *objs, unsigned int n)
{
	struct sheaf_layout *l = sp->populating;
	unsigned int i;

	for (i = 0; i < n && l->n < l->max; i++)
		l->obj[l->n++] = objs[i];
}

/* Depot (socket) of the memory at addr. */
static uint32_t
sheaf_slab_depot_of(const struct sheaf_pool *sp, const void *addr)
{
	const struct rte_memseg *ms = rte_mem_virt2memseg(addr, NULL);
	int socket = ms != NULL ? ms->socket_id : sp->mp->socket_id;

	if (socket < 0 || (uint32_t)socket >= sp->nb_barns)
		return 0;
	return socket;
}

/* Slabs needed for a layout: a new one where the stride breaks or at 64. */
static uint32_t
sheaf_layout_count_slabs(const struct sheaf_layout *l, uintptr_t stride)
{
	uint32_t nb = 0, in_slab = 0;
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		if (in_slab == 0 || in_slab == SHEAF_SLAB_OBJS ||
				(uintptr_t)l->obj[i] - (uintptr_t)l->obj[i - 1] != stride) {
			nb++;
			in_slab = 0;
		}
		in_slab++;
	}
	return nb;
}

static int
sheaf_slab_grow(struct sheaf_pool *sp, uint32_t more)
{
	uint32_t nb = sp->nb_slabs + more;
	struct sheaf_slab *slabs;
	uint32_t *order;

	slabs = rte_realloc_socket(sp->slabs, nb * sizeof(*slabs),
		RTE_CACHE_LINE_SIZE, sp->mp->socket_id);
	if (slabs == NULL)
		return -ENOMEM;
	sp->slabs = slabs;
	order = rte_realloc_socket(sp->slab_by_addr, nb * sizeof(*order),
		RTE_CACHE_LINE_SIZE, sp->mp->socket_id);
	if (order == NULL)
		return -ENOMEM;
	sp->slab_by_addr = order;
	return 0;
}

/* Cut a layout into slabs (all objects in use) and index them by address. */
static void
sheaf_layout_cut(struct sheaf_pool *sp, const struct sheaf_layout *l,
	uintptr_t stride, uint32_t nb_new)
{
	uint32_t first = sp->nb_slabs, id = first, pos, lo, hi;
	struct sheaf_slab *s = NULL;
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		if (s == NULL || s->nb_objs == SHEAF_SLAB_OBJS ||
				(uintptr_t)l->obj[i] - (uintptr_t)l->obj[i - 1] != stride) {
			s = &sp->slabs[id++];
			memset(s, 0, sizeof(*s));
			s->base = (uintptr_t)l->obj[i];
			s->stride = stride;
			s->prev = SHEAF_SLAB_NONE;
			s->next = SHEAF_SLAB_NONE;
			s->depot = sheaf_slab_depot_of(sp, l->obj[i]);
		}
		s->nb_objs++;
	}

	/* Every recorded object was just freed to the pool: all free. */
	for (id = first; id < first + nb_new; id++) {
		struct sheaf_depot *dp;

		s = &sp->slabs[id];
		s->free_mask = s->nb_objs == 64 ? UINT64_MAX :
			(UINT64_C(1) << s->nb_objs) - 1;
		s->nb_free = s->nb_objs;
		s->in_pool = s->free_mask;
		dp = &sp->depot[s->depot];
		rte_spinlock_lock(&dp->lock);
		sheaf_depot_link(sp, dp, id);
		dp->nb_free += s->nb_objs;
		rte_spinlock_unlock(&dp->lock);
	}

	/*
	 * A chunk's slabs are in address order and chunks do not overlap,
	 * so the new slabs go in one run at the first new base's position.
	 */
	lo = 0;
	hi = first;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sp->slabs[sp->slab_by_addr[mid]].base < sp->slabs[first].base)
			lo = mid + 1;
		else
			hi = mid;
	}
	pos = lo;
	memmove(&sp->slab_by_addr[pos + nb_new], &sp->slab_by_addr[pos],
		(first - pos) * sizeof(uint32_t));
	for (i = 0; i < nb_new; i++)
		sp->slab_by_addr[pos + i] = first + i;
	sp->nb_slabs = first + nb_new;
}

int
sheaf_slab_populate(struct rte_mempool *mp, unsigned int max_objs,
	void *vaddr, rte_iova_t iova, size_t len,
	rte_mempool_populate_obj_cb_t *obj_cb, void *obj_cb_arg)
{
	struct sheaf_pool *sp = sheaf_pool_of(mp);
	uintptr_t stride = mp->header_size + mp->elt_size + mp->trailer_size;
	struct sheaf_layout l = { .n = 0, .max = max_objs };
	struct sheaf_lcore *lc = sheaf_lcore_own_slot(sp);
	uint32_t nb_new;
	int ret;

	if (max_objs == 0)
		return 0;
	l.obj = malloc(max_objs * sizeof(*l.obj));
	if (l.obj == NULL) {
		ret = -ENOMEM;
		goto out;
	}

	/*
	 * DPDK's helper lays the objects out and its callback frees each one
	 * to the pool: those frees are recorded here (see sheaf_shared_put())
	 * rather than cached, then cut into slabs, all free, so that a new
	 * pool is fully reachable from every lcore.
	 */
	sp->populate_tid = rte_gettid();
	__atomic_store_n(&sp->populating, &l, __ATOMIC_RELAXED);
	if (lc != NULL)
		lc->busy |= SHEAF_BUSY_POPULATE;
	ret = rte_mempool_op_populate_helper(mp, 0, max_objs, vaddr, iova, len,
		obj_cb, obj_cb_arg);
	if (lc != NULL)
		lc->busy &= ~SHEAF_BUSY_POPULATE;
	__atomic_store_n(&sp->populating, NULL, __ATOMIC_RELAXED);
	if (ret < 0)
		goto out;
	if (l.n != (unsigned int)ret) {
		SHEAF_LOG(ERR, "pool %s: %d objects laid out, %u freed",
			mp->name, ret, l.n);
		ret = -EINVAL;
		goto out;
	}
	nb_new = sheaf_layout_count_slabs(&l, stride);
	ret = sheaf_slab_grow(sp, nb_new);
	if (ret < 0) {
		SHEAF_LOG(ERR, "pool %s: no memory for %u slabs", mp->name,
			nb_new);
		goto out;
	}
	sheaf_layout_cut(sp, &l, stride, nb_new);
	ret = l.n;
out:
	free(l.obj);
	if (ret < 0)
		rte_errno = -ret;
	return ret;
}

void
sheaf_slab_release(struct sheaf_pool *sp)
{
	rte_free(sp->slabs);
	rte_free(sp->slab_by_addr);
	sp->slabs = NULL;
	sp->slab_by_addr = NULL;
	sp->nb_slabs = 0;
}
