/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_BARN_H_
#define _SHEAF_BARN_H_

/*
 * Barns: per-socket depots of whole sheaves (SLUB's struct node_barn).
 *
 * A barn is two stacks of arena sheaf indexes, full and empty, each able
 * to hold every sheaf of the pool, under one lock. Each change is a
 * transaction on that lock (sheaf_tx.h): a process that dies inside one
 * leaves the barn as it was before it. Sheaves enter and leave slots in
 * the same transaction that changes the slot's state word, so a sheaf is
 * never in nobody's hands. An operation that needs the barn and a depot
 * parks its sheaf in transit: an entry of the barn naming the sheaf and
 * its holder; a dead holder's entries go back to the stacks
 * (sheaf_barn_recover_transit()).
 *
 * The limit on full sheaves is a policy for trades, checked racily on the
 * count before the lock is taken (seed 008) and exactly under it; drains
 * and deferred reclaim may pass it: the stacks never overflow.
 *
 * The functions taking a struct sheaf_tx run inside a transaction on the
 * barn's lock (sheaf_barn_begin()).
 */

#include <stdbool.h>
#include <stdint.h>

#include "sheaf_pvt.h"
#include "sheaf_tx.h"

/* Set up the stacks and hand each barn its initial empty sheaves. */
int sheaf_barn_init(struct sheaf_pool *sp, uint32_t first_sheaf);
void sheaf_barn_release(struct sheaf_pool *sp);

/* Begin a transaction on barn b: see sheaf_tx_begin(). */
static inline int
sheaf_barn_begin(struct sheaf_tx *tx, struct sheaf_pool *sp, uint32_t b,
	enum sheaf_tx_kind kind, bool try)
{
	return sheaf_tx_begin(tx, sp, &sp->barn[b].lock, kind, try);
}

/* Racy hints, read before taking the lock (seed 008). */
static inline uint32_t
sheaf_barn_nb_full(const struct sheaf_pool *sp, uint32_t b)
{
	return __atomic_load_n(&sp->barn[b].nb_full, __ATOMIC_RELAXED);
}

/* Objects in barn b's full sheaves: a racy hint. */
static inline uint32_t
sheaf_barn_nb_objs(const struct sheaf_pool *sp, uint32_t b)
{
	return __atomic_load_n(&sp->barn[b].nb_objs, __ATOMIC_RELAXED);
}

static inline uint32_t
sheaf_barn_nb_empty(const struct sheaf_pool *sp, uint32_t b)
{
	return __atomic_load_n(&sp->barn[b].nb_empty, __ATOMIC_RELAXED);
}

/* Pop a sheaf: its arena index, SHEAF_NONE when the stack is empty. */
uint32_t sheaf_barn_pop_full(struct sheaf_tx *tx, uint32_t b);
uint32_t sheaf_barn_pop_empty(struct sheaf_tx *tx, uint32_t b);

/* Push sheaf i holding size objects (full: 1 or more; empty: 0). */
void sheaf_barn_push_full(struct sheaf_tx *tx, uint32_t b, uint32_t i,
	uint32_t size);
void sheaf_barn_push_empty(struct sheaf_tx *tx, uint32_t b, uint32_t i);

/* Push sheaf i where its size says: full or empty. */
void sheaf_barn_push(struct sheaf_tx *tx, uint32_t b, uint32_t i);

/*
 * Copy up to n objects out of the top full sheaf into objs (a caller
 * without a slot, prefill). Returns the objects taken.
 */
unsigned int sheaf_barn_take_objs(struct sheaf_tx *tx, uint32_t b,
	void **objs, unsigned int n);

/*
 * Copy up to a capacity of objects into an empty sheaf, pushed full.
 * Returns the objects given (0: no empty sheaf).
 */
unsigned int sheaf_barn_give_objs(struct sheaf_tx *tx, uint32_t b,
	void * const *objs, unsigned int n);

/*
 * Park sheaf i in transit, held by the caller's process: the entry's
 * number, or -ENOSPC when all are in use.
 */
int sheaf_barn_transit_put(struct sheaf_tx *tx, uint32_t b, uint32_t i);
/* Take back transit entry e: the sheaf index. */
uint32_t sheaf_barn_transit_take(struct sheaf_tx *tx, uint32_t b, int e);

/*
 * Outside a transaction: move a full sheaf of barn b into transit (its
 * index in *i): the entry, or -1 when there is none; and give an entry
 * back, its sheaf onto the stack its size says.
 */
int sheaf_barn_take_transit(struct sheaf_pool *sp, uint32_t b, uint32_t *i);
void sheaf_barn_return_transit(struct sheaf_pool *sp, uint32_t b, int e);

/*
 * Send the objects of sheaf s, in transit (held by the caller), to the
 * slabs, its size committed with each depot transaction. Returns the
 * objects moved; *bad (added to) counts pointers refused.
 */
unsigned int sheaf_barn_transit_flush(struct sheaf_pool *sp, struct sheaf *s,
	unsigned int *bad);

/* Empty barn b's full sheaves into the slabs. Returns objects moved. */
unsigned int sheaf_barn_flush(struct sheaf_pool *sp, uint32_t b,
	unsigned int *bad);

/*
 * Put the sheaves that dead processes left in transit back on the stacks
 * (full or empty by their size). Returns the sheaves recovered.
 */
unsigned int sheaf_barn_recover_transit(struct sheaf_pool *sp);

/* Objects in all barns' full sheaves and in transit; racy, exact when
 * quiet. */
uint32_t sheaf_barn_count(const struct sheaf_pool *sp);

/* Sheaves on the full and empty stacks of all barns; racy. */
void sheaf_barn_sheaves(const struct sheaf_pool *sp, uint32_t *full,
	uint32_t *empty);

#endif /* _SHEAF_BARN_H_ */
