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
	/* Cannot fail: the ring has room for every sheaf of the pool. */
	rte_ring_mp_enqueue(sp->barn[b].full, s);
}

void
sheaf_barn_put_empty(struct sheaf_pool *sp, uint32_t b, struct sheaf *s)
{
	rte_ring_mp_enqueue(sp->barn[b].empty, s);
}

unsigned int
sheaf_barn_replace_empty(struct sheaf_pool *sp, uint32_t b,
	struct sheaf * const *empty, unsigned int k, struct sheaf **full)
{
	struct sheaf_barn *barn = &sp->barn[b];
	unsigned int got;

	/* An empty ring costs the burst two loads, no atomic. */
	got = rte_ring_mc_dequeue_burst(barn->full, (void **)full, k, NULL);
	/* Cannot fail: the ring has room for every sheaf of the pool. */
	if (got != 0)
		rte_ring_mp_enqueue_bulk(barn->empty, (void * const *)empty,
			got, NULL);
	return got;
}

unsigned int
sheaf_barn_replace_full(struct sheaf_pool *sp, uint32_t b,
	struct sheaf * const *full, unsigned int k, struct sheaf **empty)
{
	struct sheaf_barn *barn = &sp->barn[b];
	unsigned int nb_full, got;

	/* Racy limit check (seed 008): may overshoot, never blocks. */
	nb_full = rte_ring_count(barn->full);
	if (nb_full >= sp->cfg.barn_max_full)
		return 0;
	k = RTE_MIN(k, sp->cfg.barn_max_full - nb_full);
	got = rte_ring_mc_dequeue_burst(barn->empty, (void **)empty, k, NULL);
	if (got != 0)
		rte_ring_mp_enqueue_bulk(barn->full, (void * const *)full, got,
			NULL);
	return got;
}

/*
 * Objects in a ring's sheaves. Racy, not critical: the slots between the
 * tails always hold arena sheaves (NULL only before first use), a sheaf
 * read while it moves may be counted twice or missed; exact when quiet.
 */
static uint32_t
sheaf_barn_ring_objs(const struct rte_ring *r)
{
	void * const *slot = (void * const *)&r[1];
	uint32_t i, n = 0;
	uint32_t head = __atomic_load_n(&r->cons.tail, __ATOMIC_RELAXED);
	uint32_t tail = __atomic_load_n(&r->prod.tail, __ATOMIC_RELAXED);

	if (tail - head > r->capacity)
		return 0; /* moved under us; quiet pools never see this */
	for (i = head; i != tail; i++) {
		const struct sheaf *s = __atomic_load_n(&slot[i & r->mask],
			__ATOMIC_RELAXED);

		if (s != NULL)
			n += __atomic_load_n(&s->size, __ATOMIC_RELAXED);
	}
	return n;
}

uint32_t
sheaf_barn_count(const struct sheaf_pool *sp)
{
	uint32_t b, n = 0;

	for (b = 0; b < sp->nb_barns; b++)
		n += sheaf_barn_ring_objs(sp->barn[b].full);
	return n;
}
