/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_SHARED_H_
#define _SHEAF_SHARED_H_

/*
 * The shared path: calls that do not use an lcore slot's sheaves (a
 * thread without an lcore id, an lcore id another process owns, a slot a
 * thief holds, a signal handler whose thread is inside a call) take and
 * give objects straight from and to the shared tiers, a transaction at a
 * time.
 *
 * A signal handler never waits on a lock its own thread holds
 * (sheaf_tx_begin() refuses it, and only tries the others): a get skips
 * that tier, and fails if no other has enough; a put whose objects belong
 * to a depot it cannot lock puts them into empty barn sheaves, else parks
 * them in a park record of the pool (struct sheaf_park, in the pool's
 * shared memory) until the thread's outermost call has let go of its
 * lock, which then gives them to the slabs; no room in either: counted
 * lost (RTE_SHEAF_STAT_LOST), logged by the outermost call.
 *
 * Park records. A thread claims a free record by CAS of its owner word
 * (0 to its process's incarnation), keeps it in its TLS table (struct
 * sheaf_thread's park[]), and its handlers park there again: objects
 * copied in beyond the count, then the count raised. Its outermost call
 * takes the record out of the table, gives the objects to the slabs from
 * the end in depot transactions that also lower the count (journaled),
 * and frees the record once the count is 0. A process that dies holding
 * a record leaves each object either there or in a slab: the recovery of
 * dead processes (sheaf_lend_recover(), in reclaim and flush) takes the
 * record by CAS of its owner and empties it the same way.
 */

#include <stdbool.h>
#include <string.h>

#include "sheaf_proc.h"
#include "sheaf_pvt.h"

struct sheaf_table_undo;

/*
 * Take up to n objects from the shared tiers: depots then barns, home
 * first. Returns the objects taken. undo (may be NULL) saves each part of
 * objs before it is written. note (may be NULL): raised by each
 * transaction's objects inside it (a borrowed sheaf's load record).
 */
unsigned int sheaf_shared_take(struct sheaf_pool *sp, uint32_t home,
	void **objs, unsigned int n, struct sheaf_table_undo *undo,
	uint32_t *note);

/*
 * Give n objects to the slabs. Returns the pointers refused (not the
 * pool's, already free, or no room when re-entered: counted lost).
 */
unsigned int sheaf_shared_give(struct sheaf_pool *sp, void * const *objs,
	unsigned int n);

/*
 * Shared-path get, all or nothing: 0 or -ENOBUFS, the table as it was.
 * reentered: a signal handler inside a call of this thread (no waiting
 * for other lcores).
 */
int sheaf_shared_get(struct sheaf_pool *sp, void **objs, unsigned int n,
	bool reentered);

/*
 * Shared-path put. tlen: NULL, or the length of the caller's DPDK cache
 * of the pool when objs is that whole cache (a flush): the cache is then
 * cut inside each run's transaction, after a loss entry of the run
 * (sheaf_cache_cut(), sheaf_tx_note_loss()), from its end, and is empty
 * at the return; a validated pool checks each run once it is cut.
 * Returns the objects refused (not the pool's, already in it), counted
 * in FREE_INVALID.
 */
unsigned int sheaf_shared_put(struct sheaf_pool *sp, void * const *objs,
	unsigned int n, uint32_t *tlen);

/*
 * Brackets of every out-of-line call: the thread's call depth (a signal
 * handler's calls are deeper), and on leaving the outermost call, what
 * handlers of the thread parked meanwhile in records of the pool goes to
 * the slabs.
 */
static inline void
sheaf_call_enter(void)
{
	sheaf_thread_self()->depth++;
}

void sheaf_call_leave(struct sheaf_pool *sp);

/*
 * Inside a call's brackets: whether the call re-entered the pool on a
 * thread already inside a call (out of line, or the inline fast path:
 * sheaf_call_handler_begin()), or holding a barn or depot lock (a
 * signal handler). Such a call must not wait for a lock, allocate, log
 * or reclaim (async-signal safety, and its thread's locks).
 */
static inline bool
sheaf_call_reentered(void)
{
	const struct sheaf_thread *t = sheaf_thread_self();

	return t->depth > 1 || t->nb_held != 0 || t->fast_handler != 0;
}

/*
 * Before a call's brackets (a public entry): whether the calling thread
 * is inside a call into a pool or holds one of its locks, so this call
 * is a signal handler's that interrupted one. Such a call must not log
 * (rte_log() may reach syslog() and stdio, whose locks the interrupted
 * code may hold). A handler that interrupted code outside the pools
 * cannot be told from the thread itself.
 */
static inline bool
sheaf_call_inside(void)
{
	const struct sheaf_thread *t = sheaf_thread_self();

	return t->depth != 0 || t->nb_held != 0 || t->fast_handler != 0;
}

/*
 * Inside a call's brackets, a route that found its thread's slot busy
 * with an inline call (sheaf_slot_hold()'s -EBUSY; not populate's own
 * frees): a signal handler, re-entered from here
 * (sheaf_call_reentered()) until sheaf_call_handler_end(), after the
 * call's sheaf_call_leave() (which then logs nothing: the thread's next
 * call that is no handler's does).
 */
static inline void
sheaf_call_handler_begin(void)
{
	sheaf_thread_self()->fast_handler++;
}

static inline void
sheaf_call_handler_end(void)
{
	sheaf_thread_self()->fast_handler--;
}

/*
 * A failed get must leave the caller's table as it was: DPDK's cache
 * refill dequeues into its own object array and, on failure, keeps using
 * the entries there. Slow paths copy objects out as they find them, so
 * they save what they overwrite and put it back if they fail.
 */
#define SHEAF_UNDO_STACK 512 /* entries saved on the stack; more: malloc */

struct sheaf_table_undo {
	void * const *table;  /* the caller's */
	void **saved;
	void *stack[SHEAF_UNDO_STACK];
};

/*
 * Room to save n entries: 0, -ENOBUFS (more than the pool) or -ENOMEM
 * (no memory; or more than SHEAF_UNDO_STACK for a re-entered call, which
 * may not allocate).
 */
int sheaf_table_init(struct sheaf_table_undo *u, const struct sheaf_pool *sp,
	void * const *objs, unsigned int n, bool reentered);
/* Save the t entries at at, in the table, before they are overwritten. */
static inline void
sheaf_table_keep(struct sheaf_table_undo *u, void * const *at, unsigned int t)
{
	memcpy(&u->saved[at - u->table], at, t * sizeof(void *));
}
void sheaf_table_restore(struct sheaf_table_undo *u, void **objs,
	unsigned int n);
void sheaf_table_done(struct sheaf_table_undo *u);

#endif /* _SHEAF_SHARED_H_ */
