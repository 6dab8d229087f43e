/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_PAIR_H_
#define _SHEAF_PAIR_H_

/*
 * An lcore slot's pair of sheaves, main and spare (SLUB's
 * slub_percpu_sheaves), and the only code that reads or writes them.
 *
 * The slot's state word holds both sheaves' arena indexes and object
 * counts: main (20 bits), spare (20), msize (12), ssize (12). Every
 * change of the pair is one store of that word, so whatever instruction a
 * process dies at, the slot names two distinct sheaves and how many
 * objects each holds:
 *   - the fast paths copy objects out of (or into) main beyond the count
 *     they then store;
 *   - a swap exchanges the two halves;
 *   - a trade with the barn, a refill from or a flush to the slabs stores
 *     the word inside the transaction that moves the sheaves or objects,
 *     so both happen or neither (sheaf_tx.h).
 * A sheaf's own size field is stale while a slot holds it; the
 * transaction that gives it to a barn writes it.
 *
 * Callers hold the slot: its owner inside a call, or a thief holding its
 * mark, or the heir of a dead owner (sheaf_slot.h).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_memcpy.h>
#include <rte_prefetch.h>

#include "sheaf_proc.h"
#include "sheaf_pvt.h"
#include "sheaf_tx.h"

#define SHEAF_SIZE_MASK ((1u << SHEAF_SIZE_BITS) - 1)
#define SHEAF_IDX_MASK ((1u << SHEAF_IDX_BITS) - 1)

/* The two halves of the pair. */
enum sheaf_which {
	SHEAF_MAIN = 0,
	SHEAF_SPARE = 1,
};

static inline uint32_t
sheaf_st_size(uint64_t w, enum sheaf_which h)
{
	return (uint32_t)(w >> (h == SHEAF_MAIN ? SHEAF_ST_MSIZE_SHIFT :
		SHEAF_ST_SSIZE_SHIFT)) & SHEAF_SIZE_MASK;
}

static inline uint32_t
sheaf_st_idx(uint64_t w, enum sheaf_which h)
{
	return (uint32_t)(w >> (h == SHEAF_MAIN ? SHEAF_ST_MAIN_SHIFT :
		SHEAF_ST_SPARE_SHIFT)) & SHEAF_IDX_MASK;
}

static inline uint64_t
sheaf_st_make(uint32_t main, uint32_t msize, uint32_t spare, uint32_t ssize)
{
	return (uint64_t)msize << SHEAF_ST_MSIZE_SHIFT |
		(uint64_t)ssize << SHEAF_ST_SSIZE_SHIFT |
		(uint64_t)main << SHEAF_ST_MAIN_SHIFT |
		(uint64_t)spare << SHEAF_ST_SPARE_SHIFT;
}

/* w with half h holding sheaf idx and size objects. */
static inline uint64_t
sheaf_st_set(uint64_t w, enum sheaf_which h, uint32_t idx, uint32_t size)
{
	return h == SHEAF_MAIN ?
		sheaf_st_make(idx, size, sheaf_st_idx(w, SHEAF_SPARE),
			sheaf_st_size(w, SHEAF_SPARE)) :
		sheaf_st_make(sheaf_st_idx(w, SHEAF_MAIN),
			sheaf_st_size(w, SHEAF_MAIN), idx, size);
}

/* The state word, read by the slot's holder (or racily by others). */
static __rte_always_inline uint64_t
sheaf_pair_state(const struct sheaf_slot *lc)
{
	return __atomic_load_n(&lc->state, __ATOMIC_RELAXED);
}

/* The one store that changes the pair. */
static __rte_always_inline void
sheaf_pair_commit(struct sheaf_slot *lc, uint64_t w)
{
	/*
	 * The objects copied into a sheaf before it are written before it
	 * in program order (a signal fence): a process that dies between
	 * the two leaves the old count. Relaxed: racy readers (counts)
	 * only; a thief or heir is ordered by the slot protocol (busy,
	 * mark, owner).
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&lc->state, w, __ATOMIC_RELAXED);
}

/*
 * The objects of half h of state w (its sheaf's objs, sheaf_objs_at()):
 * a shift of its index from the slot's first line, where the header's
 * pointer would add a load, and the multiply by the old stride of
 * header and objects together (64 + 8 x capacity_max) added two
 * cycles, to the fast path's chain from the state word to the copy
 * (against the multiply, medians of six interleaved pairs, sheaf:0 to
 * ring_mp_mc:256: local 0.814 -> 0.821, rx-burst 0.937 -> 0.946, mbuf
 * 0.960 -> 0.964: 0.4 to 1%).
 */
static __rte_always_inline void **
sheaf_pair_objs(const struct sheaf_slot *lc, uint64_t w, enum sheaf_which h)
{
	return (void **)RTE_PTR_ADD(lc->objs_base,
		(size_t)sheaf_st_idx(w, h) << lc->objs_shift);
}

/*
 * Copy object pointers. rte_memcpy() moves 16 to 128 bytes a step with no
 * call; a plain loop runs one pointer pair a step, and libc's memcpy is a
 * call through the PLT.
 */
static __rte_always_inline void
sheaf_objs_copy(void **dst, void * const *src, unsigned int n)
{
	rte_memcpy(dst, src, n * sizeof(void *));
}

/* Objects in main. */
static __rte_always_inline uint32_t
sheaf_pair_msize(uint64_t w)
{
	return (uint32_t)w & SHEAF_SIZE_MASK;
}

/*
 * Room left in a sheaf holding size objects, on a slot of lc's capacity:
 * none when it holds more (a sheaf taken from the barn, filled by an
 * lcore of a larger capacity, or this one's before it shrank). Every
 * arena sheaf has room for capacity_max, so filling up to the slot's
 * capacity never runs past its objs[].
 */
static __rte_always_inline uint32_t
sheaf_pair_room(const struct sheaf_slot *lc, uint32_t size)
{
	uint32_t cap = lc->capacity;

	return size < cap ? cap - size : 0;
}

/* Take n objects off main, n <= its count: the fast path's get. */
static __rte_always_inline void
sheaf_pair_pop(struct sheaf_slot *lc, uint64_t w, void **objs,
	unsigned int n)
{
	void * const *m = sheaf_pair_objs(lc, w, SHEAF_MAIN);
	uint32_t ms = sheaf_pair_msize(w) - n;

	if (n == 1)
		objs[0] = m[ms];
	else
		sheaf_objs_copy(objs, &m[ms], n);
	SHEAF_KILL("pop.copied");
	/* msize is the low field: no borrow, n <= msize. */
	sheaf_pair_commit(lc, w - n);
}

/* Put n objects onto main, n <= its room: the fast path's put. */
static __rte_always_inline void
sheaf_pair_push(struct sheaf_slot *lc, uint64_t w, void * const *objs,
	unsigned int n)
{
	void **m = sheaf_pair_objs(lc, w, SHEAF_MAIN);
	uint32_t ms = sheaf_pair_msize(w);

	/* One object a call (a PMD's tx free): skip the copy loop. */
	if (n == 1)
		m[ms] = objs[0];
	else
		sheaf_objs_copy(&m[ms], objs, n);
	SHEAF_KILL("push.copied");
	sheaf_pair_commit(lc, w + n);
}

/*
 * sheaf_pair_push_table() (below) in two halves, for a caller that
 * looks at the objects in between (sheaf_lcore.c, a validated pool):
 * the first copies into half h (main, or spare), records and cuts, and
 * returns where the objects are (at: the kill point after the cut); the
 * second stores the count (w with h's size raised: the state word to
 * store) and clears the record. The table may be a borrowed sheaf's
 * (sheaf_prefill.c), *tlen its size or load record: the same holds.
 *
 * As sheaf_pair_push(), for the last n objects of a table that another
 * process may take over as it stands: DPDK's mempool cache of the
 * caller's lcore id (sheaf_lcore.c), whose length *tlen is cut to left,
 * in the cache's shared memory, before the count is stored. A death
 * between the two leaves the n objects in neither: lost (n is at most a
 * sheaf's room), and counted, by the slot's cut record (cut_n,
 * cut_state), which its heir reads (sheaf_slot_settle_cut()); the other
 * order would leave them in both, and the next process on the lcore id
 * would hand them out again. The record is set before the cut: a death
 * between the two counts a run lost that the cache still holds (the
 * window of one store, in which no order can tell the heir whether the
 * cut was made: the next process may use the cache before anyone looks).
 */
static inline void **
sheaf_pair_cut_begin(struct sheaf_slot *lc, uint64_t w, enum sheaf_which h,
	void * const *objs, unsigned int n, uint32_t *tlen, uint32_t left,
	const char *at)
{
	void **dst = &sheaf_pair_objs(lc, w, h)[sheaf_st_size(w, h)];

	sheaf_objs_copy(dst, objs, n);
	SHEAF_KILL("push_table.copied");
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/*
	 * The copy, the record (its state word first: cut_n names a whole
	 * record), the cut, the count, the record cleared: in program
	 * order (signal fences), all a dead owner's heir sees of it.
	 * Relaxed: the reader is the heir, after this process's death (of
	 * a borrowed sheaf's count word, *tlen: the recoverer of the dead
	 * borrower, sheaf_lend_settle()).
	 */
	__atomic_store_n(&lc->cut_state, w, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&lc->cut_n, n, __ATOMIC_RELAXED);
	SHEAF_KILL("push_table.noted");
	sheaf_cache_cut(tlen, left);
	/* A variable name: SHEAF_KILL2() uses it in every build. */
	SHEAF_KILL2(at, NULL);
	return dst;
}

/* The end of a push from a table: the count w, the record cleared. */
static inline void
sheaf_pair_cut_end(struct sheaf_slot *lc, uint64_t w)
{
	sheaf_pair_commit(lc, w);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&lc->cut_n, 0, __ATOMIC_RELAXED);
}

/* Both halves: n objects of the table's end into main. */
static inline void
sheaf_pair_push_table(struct sheaf_slot *lc, uint64_t w, void * const *objs,
	unsigned int n, uint32_t *tlen, uint32_t left)
{
	sheaf_pair_cut_begin(lc, w, SHEAF_MAIN, objs, n, tlen, left,
		"push_table.cut");
	sheaf_pair_cut_end(lc, w + n);
}

/*
 * Prefetch the lines of half h a run of fast calls will touch: its
 * objects from the top down for gets, its room for puts. For a sheaf a
 * trade of a one-way flow brought in: another lcore filled or emptied
 * it, its lines are there.
 */
static inline void
sheaf_pair_prefetch(const struct sheaf_slot *lc, enum sheaf_which h,
	bool put)
{
	uint64_t w = sheaf_pair_state(lc);
	void * const *o = sheaf_pair_objs(lc, w, h);
	uint32_t i, size = sheaf_st_size(w, h), cap = lc->capacity;
	const unsigned int step = RTE_CACHE_LINE_SIZE / sizeof(void *);

	if (put) {
		for (i = size; i < cap; i += step)
			rte_prefetch0_write(&o[i]);
	} else {
		for (i = size; i > 0; i -= RTE_MIN(i, step))
			rte_prefetch0(&o[i - 1]);
	}
}

/* Set up slot lc of the pool with arena sheaves main and spare. */
void sheaf_pair_init(struct sheaf_pool *sp, struct sheaf_slot *lc,
	uint32_t main, uint32_t spare);

/* Objects held by lc's pair; racy when another thread reads. */
static inline uint32_t
sheaf_pair_count(const struct sheaf_slot *lc)
{
	uint64_t w = sheaf_pair_state(lc);

	return sheaf_st_size(w, SHEAF_MAIN) + sheaf_st_size(w, SHEAF_SPARE);
}

/*
 * Objects held by all slots' pairs, and in *nb_lcores (if not NULL) how
 * many slots hold some; racy, exact when quiet.
 */
uint32_t sheaf_pair_count_all(const struct sheaf_pool *sp,
	uint32_t *nb_lcores);

/* Exchange main and spare. */
void sheaf_pair_swap(struct sheaf_slot *lc);

/* Directions of a barn trade. */
#define SHEAF_TRADE_GET 1 /* give empty sheaves for full ones */
#define SHEAF_TRADE_PUT 2 /* give full sheaves for empty ones */

/*
 * Trade with barn b: the owner's empty main (and empty spare, in a
 * one-way flow) for full sheaves (SHEAF_TRADE_GET), or its full main (and
 * full spare) for empty ones (SHEAF_TRADE_PUT), the latter within the
 * barn's limit. Returns the sheaves traded (0 to 2).
 */
unsigned int sheaf_pair_trade(struct sheaf_pool *sp, struct sheaf_slot *lc,
	uint32_t b, uint32_t dir);

/* Refill main from depot d, up to its capacity. Returns objects. */
unsigned int sheaf_pair_refill(struct sheaf_pool *sp, struct sheaf_slot *lc,
	uint32_t d);

/*
 * Return half h's objects to the slabs. Returns the objects moved; *bad
 * (added to) counts pointers refused (not the pool's, or already free).
 */
unsigned int sheaf_pair_flush(struct sheaf_pool *sp, struct sheaf_slot *lc,
	enum sheaf_which h, unsigned int *bad);

/* The same for the top limit objects of half h, at most. */
unsigned int sheaf_pair_flush_some(struct sheaf_pool *sp,
	struct sheaf_slot *lc, enum sheaf_which h, unsigned int limit,
	unsigned int *bad);

/*
 * Give n objects of lc's back (at most capacity_max), one sheaf of them
 * to barn b for an empty one, past its full limit as a drain: from the
 * top of spare, then of main, in one transaction. Returns the objects
 * moved: 0 when the barn has no empty sheaf, or its lock is held by the
 * caller's own thread (a nested call).
 */
unsigned int sheaf_pair_give_back(struct sheaf_pool *sp,
	struct sheaf_slot *lc, uint32_t b, unsigned int n);

/*
 * Give everything v holds back: non-empty sheaves whole to barn b for its
 * empty ones, the rest to the slabs. Returns the objects moved; *bad as
 * sheaf_pair_flush().
 */
unsigned int sheaf_pair_drain(struct sheaf_pool *sp, struct sheaf_slot *v,
	uint32_t b, unsigned int *bad);

/*
 * Take up to n objects from spare, then main (prefill). Returns them,
 * *note raised by them before the slot's count is lowered: a borrowed
 * sheaf's load record (struct sheaf's loading).
 */
unsigned int sheaf_pair_take(struct sheaf_slot *lc, void **objs,
	unsigned int n, uint32_t *note);

/*
 * Lend out whole the spare or main when it holds n objects or more,
 * replacing it with an empty sheaf of barn b (prefill). Returns the
 * sheaf, its size set, or NULL.
 */
struct sheaf *sheaf_pair_lend(struct sheaf_pool *sp, struct sheaf_slot *lc,
	uint32_t b, unsigned int n);

/*
 * In a transaction on barn b: make arena sheaf idx (its size set) main,
 * the empty main going to the barn's empty stack (deferred refill).
 */
void sheaf_pair_tx_install(struct sheaf_tx *tx, struct sheaf_slot *lc,
	uint32_t b, uint32_t idx);

#endif /* _SHEAF_PAIR_H_ */
