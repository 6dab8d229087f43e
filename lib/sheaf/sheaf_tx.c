/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Transactions: see sheaf_tx.h. The kernel counterpart is a robust futex
 * (a lock the kernel marks when its owner dies) with the repair left to
 * the next owner; here the lock records the owner's incarnation, waiters
 * look for its death themselves, and the repair is the undo journal.
 */

#include <errno.h>
#include <inttypes.h>
#include <sched.h>

#include <rte_pause.h>

#include "sheaf_tx.h"

/*
 * A waiter looks whether the holder is alive after 1/SHEAF_TX_CHECK_DIV s
 * of waiting (1 ms) and again every as long: a live holder keeps a lock
 * for microseconds, unless preempted; each look costs a /proc read.
 */
#define SHEAF_TX_CHECK_DIV 1000
/* Spins between two looks at the clock, and before yielding the CPU. */
#define SHEAF_TX_SPINS 256

static const char * const sheaf_tx_kind_names[SHEAF_TX_KIND_MAX] = {
#define SHEAF_TX_NAME_(k) [SHEAF_TX_##k] = #k,
	SHEAF_TX_KINDS(SHEAF_TX_NAME_)
#undef SHEAF_TX_NAME_
};

const char *
sheaf_tx_kind_name(uint32_t kind)
{
	return kind < SHEAF_TX_KIND_MAX ? sheaf_tx_kind_names[kind] : "?";
}

void
sheaf_tx_init(struct sheaf_txlock *lk, struct sheaf_undo *ent)
{
	lk->owner = 0;
	lk->n = 0;
	lk->max = SHEAF_TX_MAX;
	lk->ent = ent;
	lk->kind = SHEAF_TX_KIND_MAX;
}

/*
 * Undo lk's journal, newest first; the caller holds lk. The objects of
 * its loss entries (sheaf_tx_note_loss()) are counted lost in sp's
 * counters as each entry is met, then the entry zeroed: a recoverer
 * that dies after counting one and before zeroing it has the next one
 * count it again, never none (the caller logs them first:
 * sheaf_tx_lost_pending()). Returns the stores undone.
 */
static uint32_t
sheaf_tx_rollback(struct sheaf_pool *sp, struct sheaf_txlock *lk)
{
	uint32_t i = lk->n, stores = 0;

	while (i-- > 0) {
		struct sheaf_undo *u = &lk->ent[i];

		SHEAF_KILL("recover.undo");
		if (u->addr == SHEAF_UNDO_LOSS) {
			if (u->old == 0)
				continue;
			sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_LOST, u->old);
			/* Counted before zeroed, for the next recoverer. */
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
			u->old = 0;
			continue;
		}
		stores++;
		/* Relaxed atomic, as sheaf_tx_store*(): racy readers outside
		 * the lock see whole values; the unlock's release publishes. */
		if (u->addr & 1)
			__atomic_store_n((uint32_t *)(u->addr & ~(uintptr_t)1),
				(uint32_t)u->old, __ATOMIC_RELAXED);
		else
			__atomic_store_n((uint64_t *)u->addr, u->old,
				__ATOMIC_RELAXED);
	}
	/* The structure is whole again before the journal says so. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	lk->n = 0;
	return stores;
}

/* The objects lk's journal counts lost and no recoverer counted yet. */
static uint64_t
sheaf_tx_lost_pending(const struct sheaf_txlock *lk)
{
	uint64_t lost = 0;
	uint32_t i;

	for (i = 0; i < lk->n; i++)
		if (lk->ent[i].addr == SHEAF_UNDO_LOSS)
			lost += lk->ent[i].old;
	return lost;
}

static void
sheaf_tx_log_lost(const char *pool, uint32_t pid, uint64_t lost)
{
	SHEAF_LOG(CRIT, "pool %s: process %u died moving %" PRIu64 " objects cut off DPDK's mempool cache into the pool: lost (RTE_SHEAF_STAT_LOST)",
		pool, pid, lost);
}

/*
 * A copy of the pool's name for the outer call's log line (the pool may
 * be gone by then); a plain loop: this runs in signal handlers.
 */
static void
sheaf_tx_note_pool(struct sheaf_thread *t, const char *name)
{
	size_t i;

	for (i = 0; i + 1 < sizeof(t->tx_unlogged_pool) && name[i] != '\0';
			i++)
		t->tx_unlogged_pool[i] = name[i];
	t->tx_unlogged_pool[i] = '\0';
}

/*
 * Take over lk from dead holder dead and undo its transaction. Returns 1
 * if the caller now holds lk, 0 when another thread took it first. A
 * re-entered call (a signal handler inside a call of its thread: it may
 * have interrupted a log or malloc()) logs nothing: its thread's
 * outermost call does (sheaf_tx_log_unlogged()).
 */
static int
sheaf_tx_take_over(struct sheaf_pool *sp, struct sheaf_txlock *lk,
	uint64_t dead)
{
	struct sheaf_thread *t = sheaf_thread_self();
	/*
	 * Re-entered: a waiter that takes over holds no other lock (one
	 * that does only tries, sheaf_tx_begin()), so its depth tells, or
	 * its slot found busy with an inline call (sheaf_shared.h).
	 */
	bool quiet = t->depth > 1 || t->fast_handler != 0;
	uint64_t expect = dead, lost;
	uint32_t undone;

	/*
	 * Decides which waiter takes over. The word was last written by
	 * the dead (its CAS, or a dead recoverer's): no release to pair
	 * with, so relaxed; its stores, a dead recoverer's undoing
	 * included, are seen through the kernel's exit path and the
	 * acquire fence below (.h).
	 */
	if (!__atomic_compare_exchange_n(&lk->owner, &expect, sheaf_self, 0,
			__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	/*
	 * The loss logged before it is counted (the rollback zeroes it):
	 * a recoverer dying in between leaves the next one to log it
	 * again, never to count it unlogged.
	 */
	lost = sheaf_tx_lost_pending(lk);
	if (lost != 0 && !quiet)
		sheaf_tx_log_lost(sp->mp->name, sheaf_proc_pid(dead), lost);
	undone = sheaf_tx_rollback(sp, lk);
	sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_RECOVER, 1);
	if (quiet) {
		/* Relaxed: this thread's own words, against its handlers. */
		__atomic_fetch_add(&t->tx_unlogged_undone, undone,
			__ATOMIC_RELAXED);
		__atomic_fetch_add(&t->tx_unlogged_lost, lost,
			__ATOMIC_RELAXED);
		__atomic_store_n(&t->tx_unlogged_pid, sheaf_proc_pid(dead),
			__ATOMIC_RELAXED);
		sheaf_tx_note_pool(t, sp->mp->name);
		__atomic_fetch_add(&t->tx_unlogged, 1, __ATOMIC_RELAXED);
		return 1;
	}
	SHEAF_LOG(WARNING, "pool %s: process %u died holding a lock; %u stores of its %s transaction undone",
		sp->mp->name, sheaf_proc_pid(dead), undone,
		sheaf_tx_kind_name(lk->kind));
	return 1;
}

void
sheaf_tx_log_unlogged(struct sheaf_thread *t)
{
	uint32_t k, pid, undone;
	const char *pool;
	uint64_t lost;

	/* Relaxed: this thread's own words, against its handlers. */
	k = __atomic_exchange_n(&t->tx_unlogged, 0, __ATOMIC_RELAXED);
	if (k == 0)
		return;
	/*
	 * The count taken before the rest: a handler's take-over from here
	 * on adds to the rest and to the count, which the next outermost
	 * call finds. The pool name and pid are the last take-over's (a
	 * handler's may mix them: the log line only).
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pid = __atomic_load_n(&t->tx_unlogged_pid, __ATOMIC_RELAXED);
	pool = t->tx_unlogged_pool;
	undone = __atomic_exchange_n(&t->tx_unlogged_undone, 0,
		__ATOMIC_RELAXED);
	lost = __atomic_exchange_n(&t->tx_unlogged_lost, 0, __ATOMIC_RELAXED);
	SHEAF_LOG(WARNING, "pool %s: locks of dead processes taken over: %u, by signal handlers (the last: process %u); %u stores undone",
		pool, k, pid, undone);
	if (lost != 0)
		sheaf_tx_log_lost(pool, pid, lost);
}

/* Take lk, waiting for a live holder, recovering a dead one. */
static int
sheaf_tx_lock(struct sheaf_pool *sp, struct sheaf_txlock *lk, bool try)
{
	uint64_t check_at = 0, period, owner;
	unsigned int spins = 0;

	for (;;) {
		owner = 0;
		/* Acquire: pairs with the release in sheaf_tx_end(). */
		if (__atomic_compare_exchange_n(&lk->owner, &owner, sheaf_self,
				0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return 0;
		/* A dead holder is left to a waiter that does not try. */
		if (try)
			return -EBUSY;
		if (++spins % SHEAF_TX_SPINS != 0) {
			rte_pause();
			continue;
		}
		/* Oversubscribed CPUs: let a preempted holder run. */
		sched_yield();
		period = 1000000000u / SHEAF_TX_CHECK_DIV;
		if (check_at == 0) {
			check_at = sheaf_clock_ns() + period;
			continue;
		}
		if (sheaf_clock_ns() < check_at)
			continue;
		check_at += period;
		owner = __atomic_load_n(&lk->owner, __ATOMIC_RELAXED);
		if (owner != 0 && sheaf_proc_dead(owner) &&
				sheaf_tx_take_over(sp, lk, owner))
			return 0;
	}
}

bool
sheaf_tx_holds(const struct sheaf_txlock *lk)
{
	const struct sheaf_thread *t = sheaf_thread_self();
	uint32_t i;

	for (i = 0; i < t->nb_held; i++)
		if (t->held[i] == lk)
			return true;
	return false;
}

/* Record lk as the thread's, before it is taken (sheaf_tx_begin()). */
static void
sheaf_tx_note_held(struct sheaf_thread *t, const struct sheaf_txlock *lk)
{
	uint32_t n = t->nb_held;

	t->held[n] = lk;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->nb_held = n + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->held[n] = lk;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* The innermost recorded lock, no longer taken or never taken. */
static void
sheaf_tx_note_freed(struct sheaf_thread *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->nb_held--;
}

int
sheaf_tx_begin(struct sheaf_tx *tx, struct sheaf_pool *sp,
	struct sheaf_txlock *lk, enum sheaf_tx_kind kind, bool try)
{
	struct sheaf_thread *t = sheaf_thread_self();
	int ret;

	if (t->nb_held != 0) {
		if (sheaf_tx_holds(lk) || t->nb_held == SHEAF_HELD_MAX)
			return -EDEADLK;
		try = true;
	}
	/*
	 * Recorded before it is taken: a signal handler arriving meanwhile
	 * must already count it as its thread's, and stay off it. A handler
	 * arriving between the first store and the count's increment sees
	 * entry n free and records its own lock there (it ends before we go
	 * on, the count back at n): so entry n is stored again once counted,
	 * after which a handler uses the entries above. Until then a handler
	 * may see a stale entry n: a lock this thread does not hold, which
	 * it then refuses too (harmless), while lk is not taken yet (it only
	 * tries it: its thread holds a lock). When sheaf_tx_lock() takes lk,
	 * entry n is lk.
	 */
	sheaf_tx_note_held(t, lk);
	ret = sheaf_tx_lock(sp, lk, try);
	if (ret < 0) {
		sheaf_tx_note_freed(t);
		return ret;
	}
	tx->sp = sp;
	tx->lk = lk;
	tx->kind = kind;
	lk->kind = kind;
	SHEAF_KILL2(sheaf_tx_kind_name(kind), "lock");
	return 0;
}

void
sheaf_tx_end(struct sheaf_tx *tx)
{
	struct sheaf_thread *t = sheaf_thread_self();
	struct sheaf_txlock *lk = tx->lk;

	SHEAF_KILL2(sheaf_tx_kind_name(tx->kind), "commit");
	/* Every store is made before the journal is emptied. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	lk->n = 0;
	SHEAF_KILL2(sheaf_tx_kind_name(tx->kind), "unlock");
	/* Release: pairs with the next holder's acquire. */
	__atomic_store_n(&lk->owner, 0, __ATOMIC_RELEASE);
	/* Innermost first: a handler's transaction ends before its call. */
	RTE_ASSERT(t->nb_held != 0 && t->held[t->nb_held - 1] == lk);
	/* After the unlock: a handler sees lk held until it is not. */
	sheaf_tx_note_freed(t);
}

/* Append an entry to the journal, before what it undoes. */
static inline void
sheaf_tx_append(struct sheaf_txlock *lk, uintptr_t addr, uint64_t old)
{
	uint32_t n = lk->n;

	RTE_VERIFY(n < lk->max);
	lk->ent[n].addr = addr;
	lk->ent[n].old = old;
	/* The entry, then the count, then (the caller) the store. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	lk->n = n + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* Append the old value at addr to the journal, then let the store go. */
static inline void
sheaf_tx_log(struct sheaf_tx *tx, uintptr_t addr, uint64_t old)
{
	sheaf_tx_append(tx->lk, addr, old);
	SHEAF_KILL2(sheaf_tx_kind_name(tx->kind), "store");
}

uint32_t
sheaf_tx_note_loss(struct sheaf_tx *tx, uint32_t n)
{
	uint32_t at = tx->lk->n;

	sheaf_tx_append(tx->lk, SHEAF_UNDO_LOSS, n);
	return at;
}

void
sheaf_tx_lower_loss(struct sheaf_tx *tx, uint32_t at, uint32_t n)
{
	/* Program order, as the entry's own (sheaf_tx_append()). */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	tx->lk->ent[at].old = n;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

void
sheaf_tx_store32(struct sheaf_tx *tx, uint32_t *addr, uint32_t v)
{
	sheaf_tx_log(tx, (uintptr_t)addr | 1, *addr);
	/* Relaxed atomic: racy readers outside the lock see whole values. */
	__atomic_store_n(addr, v, __ATOMIC_RELAXED);
}

void
sheaf_tx_store64(struct sheaf_tx *tx, uint64_t *addr, uint64_t v)
{
	sheaf_tx_log(tx, (uintptr_t)addr, *addr);
	__atomic_store_n(addr, v, __ATOMIC_RELAXED);
}

/*
 * Wait until no dead transaction is open on lk: free it, undo one whose
 * holder is dead (inc, or a recoverer that died undoing), or wait for a
 * live holder. 0, or -EBUSY when the caller may not wait (a handler).
 */
static int
sheaf_tx_settle(struct sheaf_pool *sp, struct sheaf_txlock *lk, uint64_t inc)
{
	struct sheaf_thread *t = sheaf_thread_self();
	struct sheaf_tx tx;
	bool taken;

	/*
	 * Known dead: no need to wait to look. The lock recorded as the
	 * thread's first, as sheaf_tx_begin() does: a signal handler
	 * arriving while it is taken over must stay off it.
	 */
	sheaf_tx_note_held(t, lk);
	taken = sheaf_tx_take_over(sp, lk, inc);
	if (taken)
		/* Release: the next holder sees the rolled-back structure. */
		__atomic_store_n(&lk->owner, 0, __ATOMIC_RELEASE);
	sheaf_tx_note_freed(t);
	if (taken)
		return 0;
	/*
	 * Acquire: pairs with the release that freed lk (sheaf_tx_end(), or
	 * the store above in another recoverer): whatever transaction inc
	 * had open on it is committed or undone, and seen.
	 */
	if (__atomic_load_n(&lk->owner, __ATOMIC_ACQUIRE) == 0)
		return 0;
	/* Held: a live holder ends, a dead one is taken over meanwhile. */
	if (sheaf_tx_begin(&tx, sp, lk, SHEAF_TX_settle, false) < 0)
		return -EBUSY;
	sheaf_tx_end(&tx);
	return 0;
}

bool
sheaf_tx_held_by(const struct sheaf_pool *sp, uint64_t inc)
{
	uint32_t i;

	/*
	 * Acquire: pairs with the release that freed a lock (sheaf_tx_end(),
	 * a take-over's end): a lock seen free here was, with the stores
	 * its holder journaled.
	 */
	for (i = 0; i < sp->nb_nodes; i++)
		if (__atomic_load_n(&sp->barn[i].lock.owner,
				__ATOMIC_ACQUIRE) == inc ||
				__atomic_load_n(&sp->depot[i].lock.owner,
					__ATOMIC_ACQUIRE) == inc)
			return true;
	return false;
}

int
sheaf_tx_recover_proc(struct sheaf_pool *sp, uint64_t inc)
{
	const struct sheaf_thread *t = sheaf_thread_self();
	uint32_t i;

	/*
	 * A re-entered call (a signal handler) neither waits nor logs a
	 * take-over: the dead process's leftovers wait for a plain call.
	 */
	if (t->depth > 1 || t->nb_held != 0)
		return -EBUSY;

	for (i = 0; i < sp->nb_nodes; i++)
		if (sheaf_tx_settle(sp, &sp->barn[i].lock, inc) < 0 ||
				sheaf_tx_settle(sp, &sp->depot[i].lock, inc) < 0)
			return -EBUSY;
	return 0;
}
