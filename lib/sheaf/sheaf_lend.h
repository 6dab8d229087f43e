/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_LEND_H_
#define _SHEAF_LEND_H_

/*
 * Sheaves lent by prefill, as the pool keeps track of them: each records
 * its borrower (struct sheaf's holder, an incarnation), so that the
 * sheaves of a process that died borrowing come back to the pool.
 *
 * - An arena sheaf's holder is stored in the transaction that takes the
 *   sheaf out of a barn or a slot, and cleared in the one that puts it
 *   back on a barn's stack: the sheaf is in a barn, a slot or its
 *   borrower's hands, never in nobody's.
 * - An oversize sheaf (rte_malloc) is on the pool's list of lent ones
 *   from the transaction that records its holder to the one that moves
 *   it, empty, to the list of idle ones (both under barn 0's lock),
 *   where the next oversize borrow that fits takes it again. Oversize
 *   sheaves are freed with the pool, never at run time: a death inside
 *   rte_free() would leave DPDK's heap locked for every process; only
 *   an oversize borrow that no idle sheaf fits calls rte_malloc().
 * - While lent, a sheaf's objects are objs[0..size): the borrower lowers
 *   size before it hands objects out or gives them back, and raises it
 *   only after objects are in place. A borrower that dies between the
 *   two loses what it had in flight, never makes two owners of one
 *   object.
 * - A recoverer takes a dead borrower's sheaf by CAS of holder (from
 *   the dead incarnation to its own, so that a recoverer that dies is
 *   recovered in turn), then puts an arena sheaf back on its barn whole,
 *   and sends an oversize sheaf's objects to the slabs (its size
 *   committed with each depot transaction) before moving it to the idle
 *   list.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sheaf_proc.h"
#include "sheaf_pvt.h"
#include "sheaf_tx.h"

/*
 * A prefill handle: the borrowed sheaf's address in its low
 * SHEAF_HANDLE_SHIFT bits, the lend's number (struct sheaf's lend_gen)
 * above (sheaf_prefill.c).
 */
#define SHEAF_HANDLE_SHIFT 48
#define SHEAF_HANDLE_ADDR ((UINT64_C(1) << SHEAF_HANDLE_SHIFT) - 1)

/*
 * Whether the len bytes at p, sheaves, lie below 2^48, where a handle
 * can name them (every 64-bit port's user space does, unless EAL maps
 * above it: checked where sheaves are allocated, never a crash).
 */
static inline bool
sheaf_lend_addr_ok(const void *p, size_t len)
{
	return len != 0 && (uintptr_t)p + (len - 1) <= SHEAF_HANDLE_ADDR &&
		(uintptr_t)p + (len - 1) >= (uintptr_t)p;
}

/*
 * Note the caller's process in hint word *w (0: nobody yet, an
 * incarnation: that process only, UINT64_MAX: several): a pool only the
 * caller's process borrows from (sp->lender) or parks in (sp->parker)
 * skips looking for dead borrowers or parkers. Signal-safe.
 */
void sheaf_lend_note_word(uint64_t *w);

/* Note the caller's process as a borrower of sp. */
static inline void
sheaf_lend_note(struct sheaf_pool *sp)
{
	sheaf_lend_note_word(&sp->lender);
}

/* In the transaction that takes arena sheaf s out: the caller holds it. */
static inline void
sheaf_lend_hold(struct sheaf_tx *tx, struct sheaf *s)
{
	/* Noted first: a borrower is never unknown to the recovery. */
	sheaf_lend_note(tx->sp);
	sheaf_tx_store64(tx, &s->holder, sheaf_self);
}

/* In the transaction that puts arena sheaf s back on a stack. */
static inline void
sheaf_lend_drop(struct sheaf_tx *tx, struct sheaf *s)
{
	sheaf_tx_store64(tx, &s->holder, 0);
}

/*
 * After the caller's CAS of holder from dead borrower h took sheaf s over
 * (a handle moved before its process ended: sheaf_prefill_hold()), h's
 * transactions undone before it (sheaf_tx_recover_proc()): h's stores
 * seen, its load record settled (the objects it had out of their tiers
 * for s counted lost), as a recoverer's claim does.
 */
void sheaf_lend_adopted(struct sheaf_pool *sp, struct sheaf *s, uint64_t h);

/*
 * Oversize sheaves, all under barn 0's lock (not from a signal handler):
 * - reuse: the smallest idle one with room for n objects, moved to the
 *   lent list, held by the caller; NULL if none fits;
 * - register: s, new from rte_malloc and empty, onto the lent list, held
 *   by the caller;
 * - retire: s, empty, from the lent list to the idle one;
 * - release: free both lists' sheaves (the pool's end).
 */
struct sheaf *sheaf_lend_reuse(struct sheaf_pool *sp, unsigned int n);
void sheaf_lend_register(struct sheaf_pool *sp, struct sheaf *s);
void sheaf_lend_retire(struct sheaf_pool *sp, struct sheaf *s);
void sheaf_lend_release(struct sheaf_pool *sp);

/*
 * Take back the sheaves of dead borrowers: arena sheaves whole onto barn
 * b, oversize sheaves' objects to the slabs; and the park records of dead
 * processes (sheaf_shared.h): their objects to the slabs. Each only when
 * a process other than the caller's ever borrowed, or parked; unless
 * force, at most every 10 ms per pool. Returns the objects taken back.
 * Not from a signal handler whose thread holds a lock.
 */
unsigned int sheaf_lend_recover(struct sheaf_pool *sp, uint32_t b, bool force);

/*
 * Give the objects of park record r (sheaf_shared.h), held by the
 * caller's process (its thread's, or taken from a dead process), to the
 * slabs, then free the record. Not under a lock. Returns the objects
 * moved; *bad (added to) counts pointers refused.
 */
unsigned int sheaf_park_drain(struct sheaf_pool *sp, struct sheaf_park *r,
	unsigned int *bad);

/* Sheaves lent (held by a borrower); racy, exact when quiet. */
uint32_t sheaf_lend_count(const struct sheaf_pool *sp);

#endif /* _SHEAF_LEND_H_ */
