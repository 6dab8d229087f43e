/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Barns: per-socket depots of whole sheaves (SLUB's struct node_barn).
 *
 * Lcores trade sheaves with their socket's barn: an empty one for a full
 * one when they run dry, a full one for an empty one when they overflow.
 * A trade moves one pointer, whatever the sheaf holds. The two lists are
 * lock-free MP/MC rte_rings; each can hold every sheaf of the pool, so
 * an enqueue never fails and the limit on full sheaves is a policy,
 * checked racily on the ring count before the ring is touched (seed 008):
 * a few concurrent traders may overshoot it by one sheaf each.
 */

#include <stdio.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "sheaf_barn.h"

static struct rte_ring *
sheaf_barn_ring_create(struct sheaf_pool *sp, const char *kind, uint32_t b)
{
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;
	ssize_t sz;

	/* RING_F_EXACT_SZ rounds nb_sheaves + 1 up to a power of two. */
	sz = rte_ring_get_memsize_elem(sizeof(void *),
		rte_align32pow2(sp->nb_sheaves + 1));
	if (sz < 0)
		return NULL;
	r = rte_zmalloc_socket("sheaf_barn", sz, RTE_CACHE_LINE_SIZE,
		sp->mp->socket_id);
	if (r == NULL)
		return NULL;
	snprintf(name, sizeof(name), "sheaf_%s%u", kind, b);
	if (rte_ring_init(r, name, sp->nb_sheaves, RING_F_EXACT_SZ) < 0) {
		rte_free(r);
		return NULL;
	}
	return r;
}

int
sheaf_barn_init(struct sheaf_pool *sp, uint32_t first_sheaf)
{
	uint32_t b, i;

	for (b = 0; b < sp->nb_barns; b++) {
		struct sheaf_barn *barn = &sp->barn[b];

		barn->full = sheaf_barn_ring_create(sp, "full", b);
		barn->empty = sheaf_barn_ring_create(sp, "empty", b);
		if (barn->full == NULL || barn->empty == NULL)
			return -ENOMEM;
		for (i = 0; i < sp->cfg.barn_max_empty; i++)
			sheaf_barn_put_empty(sp, b, sheaf_arena_get(sp,
				first_sheaf + b * sp->cfg.barn_max_empty + i));
	}
	return 0;
}

void
sheaf_barn_release(struct sheaf_pool *sp)
{
	uint32_t b;

	if (sp->barn == NULL)
		return;
	for (b = 0; b < sp->nb_barns; b++) {
		rte_free(sp->barn[b].full);
		rte_free(sp->barn[b].empty);
	}
}

struct sheaf *
sheaf_barn_get_full(struct sheaf_pool *sp, uint32_t b)
{
	struct sheaf_barn *barn = &sp->barn[b];
	void *s;

	/* Racy, not critical: an empty ring skips the atomic dequeue. */
	if (rte_ring_count(barn->full) == 0)
		return NULL;
	if (rte_ring_mc_dequeue(barn->full, &s) != 0)
		return NULL;
	__atomic_fetch_sub(&barn->nb_objs, ((struct sheaf *)s)->size,
		__ATOMIC_RELAXED); /* a counter only; the ring orders the sheaf */
	return s;
}

struct sheaf *
sheaf_barn_get_empty(struct sheaf_pool *sp, uint32_t b)
{
	void *s;

	if (rte_ring_count(sp->barn[b].empty) == 0)
		return NULL;
	if (rte_ring_mc_dequeue(sp->barn[b].empty, &s) != 0)
		return NULL;
	return s;
}

void
sheaf_barn_put_full(struct sheaf_pool *sp, uint32_t b, struct sheaf *s)
{
	struct sheaf_barn *barn = &sp->barn[b];

	/* Counted before the sheaf is visible, so it is never counted
	 * negative; a counter only, relaxed.
	 */
	__atomic_fetch_add(&barn->nb_objs, s->size, __ATOMIC_RELAXED);
	/* Cannot fail: the ring has room for every sheaf of the pool. */
	rte_ring_mp_enqueue(barn->full, s);
}

void
sheaf_barn_put_empty(struct sheaf_pool *sp, uint32_t b, struct sheaf *s)
{
	rte_ring_mp_enqueue(sp->barn[b].empty, s);
}

struct sheaf *
sheaf_barn_replace_empty(struct sheaf_pool *sp, uint32_t b,
	struct sheaf *empty)
{
	struct sheaf *full = sheaf_barn_get_full(sp, b);

	if (full != NULL)
		sheaf_barn_put_empty(sp, b, empty);
	return full;
}

struct sheaf *
sheaf_barn_replace_full(struct sheaf_pool *sp, uint32_t b,
	struct sheaf *full)
{
	struct sheaf *empty;

	/* Racy limit check (seed 008): may overshoot, never blocks. */
	if (rte_ring_count(sp->barn[b].full) >= sp->cfg.barn_max_full)
		return NULL;
	empty = sheaf_barn_get_empty(sp, b);
	if (empty != NULL)
		sheaf_barn_put_full(sp, b, full);
	return empty;
}

uint32_t
sheaf_barn_count(const struct sheaf_pool *sp)
{
	uint32_t b, n = 0;

	for (b = 0; b < sp->nb_barns; b++)
		n += __atomic_load_n(&sp->barn[b].nb_objs, __ATOMIC_RELAXED);
	return n;
}
