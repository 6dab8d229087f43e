/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Barns: see sheaf_barn.h. Lcores trade sheaves with their socket's barn:
 * an empty one for a full one when they run dry, a full one for an empty
 * one when they overflow. A trade moves sheaf indexes, whatever the
 * sheaves hold. The stacks are LIFO: the sheaf just given back, warm in
 * some cache, is the next one taken.
 */

#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "sheaf_barn.h"
#include "sheaf_slab.h"

int
sheaf_barn_init(struct sheaf_pool *sp, uint32_t first_sheaf)
{
	size_t sz = (size_t)sp->nb_sheaves * sizeof(uint32_t);
	uint32_t b, i, k;

	for (b = 0; b < sp->nb_nodes; b++) {
		struct sheaf_barn *barn = &sp->barn[b];
		struct sheaf_undo *ent;

		barn->full = rte_zmalloc_socket("sheaf_barn", sz,
			RTE_CACHE_LINE_SIZE, sp->mp->socket_id);
		barn->empty = rte_zmalloc_socket("sheaf_barn", sz,
			RTE_CACHE_LINE_SIZE, sp->mp->socket_id);
		ent = rte_zmalloc_socket("sheaf_barn_journal",
			SHEAF_TX_MAX * sizeof(*ent), RTE_CACHE_LINE_SIZE,
			sp->mp->socket_id);
		if (barn->full == NULL || barn->empty == NULL || ent == NULL) {
			rte_free(ent);
			return -ENOMEM;
		}
		sheaf_tx_init(&barn->lock, ent);
		barn->shared_def = SHEAF_NONE;
		/* Not shared yet: plain stores. */
		k = sp->cfg.barn_max_empty;
		for (i = 0; i < k; i++)
			barn->empty[i] = first_sheaf + b * k + i;
		barn->nb_empty = k;
	}
	return 0;
}

void
sheaf_barn_release(struct sheaf_pool *sp)
{
	uint32_t b;

	if (sp->barn == NULL)
		return;
	for (b = 0; b < sp->nb_nodes; b++) {
		rte_free(sp->barn[b].full);
		rte_free(sp->barn[b].empty);
		rte_free(sp->barn[b].lock.ent);
	}
}

static inline struct sheaf_barn *
sheaf_barn_of(struct sheaf_tx *tx, uint32_t b)
{
	RTE_ASSERT(tx->lk == &tx->sp->barn[b].lock);
	return &tx->sp->barn[b];
}

uint32_t
sheaf_barn_pop_full(struct sheaf_tx *tx, uint32_t b)
{
	struct sheaf_barn *barn = sheaf_barn_of(tx, b);
	uint32_t n = barn->nb_full;

	if (n == 0)
		return SHEAF_NONE;
	sheaf_tx_store32(tx, &barn->nb_objs,
		barn->nb_objs - sheaf_at(tx->sp, barn->full[n - 1])->size);
	sheaf_tx_store32(tx, &barn->nb_full, n - 1);
	return barn->full[n - 1];
}

uint32_t
sheaf_barn_pop_empty(struct sheaf_tx *tx, uint32_t b)
{
	struct sheaf_barn *barn = sheaf_barn_of(tx, b);
	uint32_t n = barn->nb_empty;

	if (n == 0)
		return SHEAF_NONE;
	sheaf_tx_store32(tx, &barn->nb_empty, n - 1);
	return barn->empty[n - 1];
}

void
sheaf_barn_push_full(struct sheaf_tx *tx, uint32_t b, uint32_t i,
	uint32_t size)
{
	struct sheaf_barn *barn = sheaf_barn_of(tx, b);
	uint32_t n = barn->nb_full;

	RTE_ASSERT(size != 0 && n < tx->sp->nb_sheaves);
	sheaf_tx_store32(tx, &sheaf_at(tx->sp, i)->size, size);
	sheaf_tx_store32(tx, &barn->full[n], i);
	sheaf_tx_store32(tx, &barn->nb_objs, barn->nb_objs + size);
	sheaf_tx_store32(tx, &barn->nb_full, n + 1);
}

void
sheaf_barn_push_empty(struct sheaf_tx *tx, uint32_t b, uint32_t i)
{
	struct sheaf_barn *barn = sheaf_barn_of(tx, b);
	uint32_t n = barn->nb_empty;

	RTE_ASSERT(n < tx->sp->nb_sheaves);
	if (sheaf_at(tx->sp, i)->size != 0)
		sheaf_tx_store32(tx, &sheaf_at(tx->sp, i)->size, 0);
	sheaf_tx_store32(tx, &barn->empty[n], i);
	sheaf_tx_store32(tx, &barn->nb_empty, n + 1);
}

void
sheaf_barn_push(struct sheaf_tx *tx, uint32_t b, uint32_t i)
{
	uint32_t size = sheaf_at(tx->sp, i)->size;

	if (size != 0)
		sheaf_barn_push_full(tx, b, i, size);
	else
		sheaf_barn_push_empty(tx, b, i);
}

unsigned int
sheaf_barn_take_objs(struct sheaf_tx *tx, uint32_t b, void **objs,
	unsigned int n)
{
	struct sheaf_barn *barn = sheaf_barn_of(tx, b);
	struct sheaf *s;
	uint32_t i, t;

	if (barn->nb_full == 0)
		return 0;
	i = barn->full[barn->nb_full - 1];
	s = sheaf_at(tx->sp, i);
	t = RTE_MIN(s->size, n);
	memcpy(objs, &s->objs[s->size - t], t * sizeof(void *));
	if (t == s->size) {
		sheaf_barn_pop_full(tx, b);
		sheaf_barn_push_empty(tx, b, i);
	} else {
		sheaf_tx_store32(tx, &barn->nb_objs, barn->nb_objs - t);
		sheaf_tx_store32(tx, &s->size, s->size - t);
	}
	return t;
}

unsigned int
sheaf_barn_give_objs(struct sheaf_tx *tx, uint32_t b, void * const *objs,
	unsigned int n)
{
	uint32_t i = sheaf_barn_pop_empty(tx, b), t;
	struct sheaf *s;

	if (i == SHEAF_NONE)
		return 0;
	s = sheaf_at(tx->sp, i);
	t = RTE_MIN(s->capacity, n);
	/* Into the sheaf beyond its size: the push commits them. */
	memcpy(s->objs, objs, t * sizeof(void *));
	sheaf_barn_push_full(tx, b, i, t);
	return t;
}

int
sheaf_barn_transit_put(struct sheaf_tx *tx, uint32_t b, uint32_t i)
{
	struct sheaf_barn *barn = sheaf_barn_of(tx, b);
	int e;

	for (e = 0; e < SHEAF_TRANSIT; e++) {
		if (barn->transit_owner[e] != 0)
			continue;
		sheaf_tx_store32(tx, &barn->transit[e], i);
		sheaf_tx_store64(tx, &barn->transit_owner[e], sheaf_self);
		return e;
	}
	return -ENOSPC;
}

static uint32_t
sheaf_barn_transit_clear(struct sheaf_tx *tx, uint32_t b, int e)
{
	struct sheaf_barn *barn = sheaf_barn_of(tx, b);

	sheaf_tx_store64(tx, &barn->transit_owner[e], 0);
	return barn->transit[e];
}

uint32_t
sheaf_barn_transit_take(struct sheaf_tx *tx, uint32_t b, int e)
{
	RTE_ASSERT(sheaf_barn_of(tx, b)->transit_owner[e] == sheaf_self);
	return sheaf_barn_transit_clear(tx, b, e);
}

unsigned int
sheaf_barn_transit_flush(struct sheaf_pool *sp, struct sheaf *s,
	unsigned int *bad)
{
	return sheaf_depot_flush_counted(sp, s->objs, &s->size,
		SHEAF_TX_transit_flush, bad);
}

/* Move a full sheaf of barn b into transit: the entry, or -1. */
int
sheaf_barn_take_transit(struct sheaf_pool *sp, uint32_t b, uint32_t *i)
{
	struct sheaf_tx tx;
	int e = -1;

	if (sheaf_barn_nb_full(sp, b) == 0 ||
			sheaf_barn_begin(&tx, sp, b, SHEAF_TX_transit, false) < 0)
		return -1;
	*i = sheaf_barn_pop_full(&tx, b);
	if (*i != SHEAF_NONE) {
		e = sheaf_barn_transit_put(&tx, b, *i);
		if (e < 0)
			sheaf_barn_push(&tx, b, *i);
	}
	sheaf_tx_end(&tx);
	return e;
}

/* Take transit entry e back, its sheaf onto the stack its size says. */
void
sheaf_barn_return_transit(struct sheaf_pool *sp, uint32_t b, int e)
{
	struct sheaf_tx tx;

	/* Not from a signal handler (no lock held): waits, cannot fail. */
	RTE_VERIFY(sheaf_barn_begin(&tx, sp, b, SHEAF_TX_transit_return, false) == 0);
	sheaf_barn_push(&tx, b, sheaf_barn_transit_take(&tx, b, e));
	sheaf_tx_end(&tx);
}

unsigned int
sheaf_barn_flush(struct sheaf_pool *sp, uint32_t b, unsigned int *bad)
{
	unsigned int n = 0;
	uint32_t i;
	int e;

	while ((e = sheaf_barn_take_transit(sp, b, &i)) >= 0) {
		n += sheaf_barn_transit_flush(sp, sheaf_at(sp, i), bad);
		SHEAF_KILL("barn_flush.transit");
		sheaf_barn_return_transit(sp, b, e);
	}
	return n;
}

/* Recover barn b's transit entries held by dead processes. */
static unsigned int
sheaf_barn_recover_transit_one(struct sheaf_pool *sp, uint32_t b)
{
	struct sheaf_barn *barn = &sp->barn[b];
	unsigned int n = 0;
	struct sheaf_tx tx;
	uint64_t o;
	int e;

	for (e = 0; e < SHEAF_TRANSIT; e++) {
		/* Racy look: an entry set meanwhile is a live holder's. */
		o = __atomic_load_n(&barn->transit_owner[e], __ATOMIC_RELAXED);
		if (o == 0 || o == sheaf_self || !sheaf_proc_dead(o))
			continue;
		/*
		 * Its locks settled first: it may have died inside a
		 * transit_flush transaction whose roll-back rewrites the
		 * sheaf's size, after we pushed it by that size. -EBUSY (a
		 * handler): touch nothing of its.
		 */
		if (sheaf_tx_recover_proc(sp, o) < 0)
			return n;
		if (sheaf_barn_begin(&tx, sp, b, SHEAF_TX_transit_recover, false) < 0)
			return n;
		if (barn->transit_owner[e] == o) {
			sheaf_barn_push(&tx, b,
				sheaf_barn_transit_clear(&tx, b, e));
			n++;
		}
		sheaf_tx_end(&tx);
	}
	return n;
}

unsigned int
sheaf_barn_recover_transit(struct sheaf_pool *sp)
{
	unsigned int n = 0;
	uint32_t b;

	for (b = 0; b < sp->nb_nodes; b++)
		n += sheaf_barn_recover_transit_one(sp, b);
	return n;
}

uint32_t
sheaf_barn_count(const struct sheaf_pool *sp)
{
	uint32_t b, i, n = 0, nb;

	for (b = 0; b < sp->nb_nodes; b++) {
		const struct sheaf_barn *barn = &sp->barn[b];

		/*
		 * Racy, not critical: a sheaf moving meanwhile may be counted
		 * twice or missed; exact when quiet.
		 */
		nb = RTE_MIN(__atomic_load_n(&barn->nb_full, __ATOMIC_RELAXED),
			sp->nb_sheaves);
		for (i = 0; i < nb; i++)
			n += __atomic_load_n(&sheaf_at(sp, __atomic_load_n(
				&barn->full[i], __ATOMIC_RELAXED))->size,
				__ATOMIC_RELAXED);
		for (i = 0; i < SHEAF_TRANSIT; i++)
			if (__atomic_load_n(&barn->transit_owner[i],
					__ATOMIC_RELAXED) != 0)
				n += __atomic_load_n(&sheaf_at(sp,
					__atomic_load_n(&barn->transit[i],
						__ATOMIC_RELAXED))->size,
					__ATOMIC_RELAXED);
	}
	return n;
}

void
sheaf_barn_sheaves(const struct sheaf_pool *sp, uint32_t *full,
	uint32_t *empty)
{
	uint32_t b;

	*full = 0;
	*empty = 0;
	for (b = 0; b < sp->nb_nodes; b++) {
		*full += __atomic_load_n(&sp->barn[b].nb_full, __ATOMIC_RELAXED);
		*empty += __atomic_load_n(&sp->barn[b].nb_empty,
			__ATOMIC_RELAXED);
	}
}
