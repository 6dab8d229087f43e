/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_TX_H_
#define _SHEAF_TX_H_

/*
 * Transactions: a lock whose holder may die, and an undo journal.
 *
 * The barns and depots (the shared tiers) change only inside a
 * transaction on their lock. The lock word holds the holder's
 * incarnation. Every store inside the transaction goes through
 * sheaf_tx_store*(), which first appends the address and the old value
 * to the lock's journal, then stores. Ending the transaction empties the
 * journal (the commit: one store), then frees the lock.
 *
 * A process may die at any instruction. A waiter that finds the lock
 * held for a while looks whether the holder is alive (sheaf_proc_dead());
 * if not, it takes the lock over by compare-and-swap and undoes the
 * journal, newest entry first: the structure is then exactly as before
 * the dead transaction began, whatever it had stored. A transaction is
 * thus all or nothing, with no two-phase state for anyone to see after a
 * death. Rolling back is idempotent: a recoverer that dies while undoing
 * leaves the journal for the next one.
 *
 * Ordering. The lock's compare-and-swap is an acquire, its release store
 * a release: a transaction sees every store of the previous one. Within a
 * transaction, a signal fence keeps each journal entry before its store
 * (the compiler must not reorder them; a dying thread's stores up to its
 * last instruction are all performed, as the kernel's exit path and
 * context switch order them before the death is seen in /proc, after
 * which the recoverer takes an acquire fence).
 *
 * Transactions do not nest in a call: a thread holds one lock at a time,
 * recorded in its TLS. A signal handler whose thread holds a lock never
 * waits for one: it refuses the lock its thread holds and only tries the
 * others (two handlers, each waiting for the lock the other's thread
 * holds, would wait forever).
 */

#include <stdbool.h>
#include <stdint.h>

#include "sheaf_proc.h"
#include "sheaf_pvt.h"

/*
 * Journal entries per lock: the largest transaction's stores. A depot
 * transaction moves at most SHEAF_TX_OBJS objects, at most 10 stores per
 * object (mask, count, bucket links), and a few more (a count, a loss
 * entry); barn ones a handful.
 */
#define SHEAF_TX_OBJS 64
#define SHEAF_TX_MAX 768

/*
 * What each transaction does, by kind: named in the lock while it runs
 * (by number: the lock is shared, a name's address is not), in the log
 * line of a recovery and in the kill points.
 */
#define SHEAF_TX_KINDS_MOVE(X) \
	X(trade_get)        /* an empty main for a full barn sheaf */ \
	X(trade_put)        /* a full main for an empty barn sheaf */ \
	X(refill)           /* slab objects into main */ \
	X(flush)            /* a slot sheaf's objects to the slabs */ \
	X(drain)            /* a slot's sheaves whole to the barn */ \
	X(give)             /* some of a slot's objects to the barn */ \
	X(lend)             /* prefill: a slot sheaf lent whole */ \
	X(prefill_get)      /* prefill: a barn sheaf lent */ \
	X(prefill_put)      /* prefill: a sheaf back to the barn */ \
	X(defer_sheaf)      /* an empty barn sheaf as deferred sheaf */ \
	X(defer_install)    /* a sheaf back from transit as deferred sheaf */ \
	X(stamp)            /* a deferred sheaf stamped onto the FIFO */ \
	X(defer_shared)     /* into a barn's shared deferred sheaf */ \
	X(defer_refill)     /* an expired FIFO sheaf as main */ \
	X(defer_reclaim)    /* expired FIFO sheaves to the full stack */ \
	X(fallback)         /* objects onto a depot's fallback queue */ \
	X(fallback_reclaim) /* expired fallback objects to the slabs */ \
	X(shared_take)      /* slab or barn objects to a caller's table */ \
	X(shared_give)      /* a caller's objects to the slabs */ \
	X(park)             /* a handler's objects into an empty sheaf */ \
	X(unpark)           /* a park record's objects to the slabs */ \
	X(transit)          /* a full barn sheaf into transit */ \
	X(transit_flush)    /* a transit sheaf's objects to the slabs */ \
	X(transit_return)   /* a transit sheaf back on a stack */ \
	X(stamp_shared)     /* a barn's shared deferred sheaf stamped */ \
	X(transit_recover)  /* a dead process's transit sheaf back */ \
	X(lend_list)        /* prefill: the list of oversize sheaves */ \
	X(lend_recover)     /* a dead borrower's sheaf back on a stack */

/*
 * Those, and a lock taken only to see it free (sheaf_tx_recover_proc()),
 * or to read what it guards as committed (the deferred barrier).
 */
#define SHEAF_TX_KINDS(X) SHEAF_TX_KINDS_MOVE(X) X(settle)

enum sheaf_tx_kind {
#define SHEAF_TX_KIND_(k) SHEAF_TX_##k,
	SHEAF_TX_KINDS(SHEAF_TX_KIND_)
#undef SHEAF_TX_KIND_
	SHEAF_TX_KIND_MAX
};

/* The name of a kind ("?" out of range). */
const char *sheaf_tx_kind_name(uint32_t kind);

/* A transaction in progress, on the caller's stack. */
struct sheaf_tx {
	struct sheaf_pool *sp;
	struct sheaf_txlock *lk;
	enum sheaf_tx_kind kind;
};

/* Set up a lock (pool creation). ent: SHEAF_TX_MAX entries. */
void sheaf_tx_init(struct sheaf_txlock *lk, struct sheaf_undo *ent);

/*
 * Begin a transaction of the given kind on lk.
 * Returns 0 with the lock held; -EDEADLK when the calling thread holds lk
 * already (a signal handler that interrupted a transaction on it, which
 * must go without this tier); -EBUSY when lk is held by another thread
 * and the caller does not wait: with try, or when the calling thread
 * holds another lock (a signal handler again).
 */
int sheaf_tx_begin(struct sheaf_tx *tx, struct sheaf_pool *sp,
	struct sheaf_txlock *lk, enum sheaf_tx_kind kind, bool try);

/* Commit and release. */
void sheaf_tx_end(struct sheaf_tx *tx);

/*
 * Log what re-entered calls of thread t (its own) took over from dead
 * lock holders: by its outermost call, which may log (sheaf_call_leave()).
 */
void sheaf_tx_log_unlogged(struct sheaf_thread *t);

/*
 * A loss entry of n objects: rolling the transaction back counts them
 * lost (RTE_SHEAF_STAT_LOST, a CRIT log line by the recoverer);
 * committing it drops the entry. For objects that left a place no undo
 * may restore before the transaction moves them into the pool: DPDK's
 * mempool cache, cut after this entry (sheaf_shared.c). Not a kill
 * point ("<kind>.store" counts stores only). Returns the entry's place,
 * for sheaf_tx_lower_loss(): n lowered to what the move will land (the
 * objects it refuses are no pool's to lose).
 */
uint32_t sheaf_tx_note_loss(struct sheaf_tx *tx, uint32_t n);
void sheaf_tx_lower_loss(struct sheaf_tx *tx, uint32_t at, uint32_t n);

/* Journaled stores. */
void sheaf_tx_store32(struct sheaf_tx *tx, uint32_t *addr, uint32_t v);
void sheaf_tx_store64(struct sheaf_tx *tx, uint64_t *addr, uint64_t v);

static inline void
sheaf_tx_storep(struct sheaf_tx *tx, void *addr, const void *v)
{
	RTE_BUILD_BUG_ON(sizeof(void *) != sizeof(uint64_t));
	sheaf_tx_store64(tx, addr, (uint64_t)(uintptr_t)v);
}

/*
 * Journal entries left to tx: the stores it may still make. A transaction
 * whose size depends on its input checks this, and commits (or refuses)
 * before the journal is full; sheaf_tx_store*() on a full one panics.
 */
static inline uint32_t
sheaf_tx_room(const struct sheaf_tx *tx)
{
	return tx->lk->max - tx->lk->n;
}

/* Whether the calling thread holds lk. */
bool sheaf_tx_holds(const struct sheaf_txlock *lk);

/*
 * Settle every lock of sp after the death of process inc: roll back and
 * free those it held, and those of a recoverer that died undoing; wait
 * for live holders. Call before touching what inc owned (its slots, its
 * marks, its borrowed sheaves). 0, or -EBUSY where the caller may not
 * wait (a signal handler inside a call): then touch nothing of inc's.
 */
int sheaf_tx_recover_proc(struct sheaf_pool *sp, uint64_t inc);

/*
 * Whether process inc holds a lock of sp now (its journal would be
 * rolled back by whoever finds it dead). Racy for a live inc.
 */
bool sheaf_tx_held_by(const struct sheaf_pool *sp, uint64_t inc);

#endif /* _SHEAF_TX_H_ */
