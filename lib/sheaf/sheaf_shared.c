/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * The shared path: see sheaf_shared.h.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sheaf_barn.h"
#include "sheaf_deferred.h"
#include "sheaf_lend.h"
#include "sheaf_proc.h"
#include "sheaf_reclaim.h"
#include "sheaf_shared.h"
#include "sheaf_slab.h"
#include "sheaf_validate.h"

int
sheaf_table_init(struct sheaf_table_undo *u, const struct sheaf_pool *sp,
	void * const *objs, unsigned int n, bool reentered)
{
	u->table = objs;
	u->saved = u->stack;
	/* More than the pool holds can never succeed (a caller's negative
	 * count, say): fail before touching anything.
	 */
	if (unlikely(n > sp->mp->size))
		return -ENOBUFS;
	if (n <= SHEAF_UNDO_STACK)
		return 0;
	/* malloc() is not async-signal-safe: a handler's large get fails. */
	if (reentered)
		return -ENOMEM;
	u->saved = malloc(n * sizeof(void *));
	return u->saved != NULL ? 0 : -ENOMEM;
}

void
sheaf_table_restore(struct sheaf_table_undo *u, void **objs, unsigned int n)
{
	memcpy(objs, u->saved, n * sizeof(void *));
}

void
sheaf_table_done(struct sheaf_table_undo *u)
{
	if (u->saved != u->stack)
		free(u->saved);
}

/*
 * Raise *note by t in tx, journaled: a roll-back lowers it with the
 * objects it puts back (a borrowed sheaf's load record).
 */
static void
sheaf_shared_note(struct sheaf_tx *tx, uint32_t *note, unsigned int t)
{
	if (note != NULL && t != 0)
		sheaf_tx_store32(tx, note, *note + t);
}

/* Up to n objects from depot d's slabs, in transactions. */
static unsigned int
sheaf_shared_take_depot(struct sheaf_pool *sp, uint32_t d, void **objs,
	unsigned int n, struct sheaf_table_undo *undo, uint32_t *note)
{
	unsigned int got = 0, t;
	struct sheaf_tx tx;

	while (got < n && sheaf_depot_nb_free(sp, d) != 0) {
		t = RTE_MIN(n - got, (unsigned int)SHEAF_TX_OBJS);
		if (undo != NULL)
			sheaf_table_keep(undo, objs + got, t);
		if (sheaf_depot_begin(&tx, sp, d, SHEAF_TX_shared_take, false) < 0)
			break;
		t = sheaf_depot_take(&tx, d, objs + got, t, NULL);
		sheaf_shared_note(&tx, note, t);
		sheaf_tx_end(&tx);
		if (t == 0)
			break;
		got += t;
	}
	return got;
}

/* Up to n objects out of barn b's full sheaves. */
static unsigned int
sheaf_shared_take_barn(struct sheaf_pool *sp, uint32_t b, void **objs,
	unsigned int n, struct sheaf_table_undo *undo, uint32_t *note)
{
	unsigned int got = 0, t;
	struct sheaf_tx tx;

	while (got < n && sheaf_barn_nb_full(sp, b) != 0) {
		/* A sheaf may give all that is left: keep it all. */
		if (undo != NULL)
			sheaf_table_keep(undo, objs + got, n - got);
		if (sheaf_barn_begin(&tx, sp, b, SHEAF_TX_shared_take, false) < 0)
			break;
		t = sheaf_barn_take_objs(&tx, b, objs + got, n - got);
		sheaf_shared_note(&tx, note, t);
		sheaf_tx_end(&tx);
		if (t == 0)
			break;
		got += t;
	}
	return got;
}

unsigned int
sheaf_shared_take(struct sheaf_pool *sp, uint32_t home, void **objs,
	unsigned int n, struct sheaf_table_undo *undo, uint32_t *note)
{
	unsigned int got = 0;
	uint32_t i;

	for (i = 0; i < sp->nb_nodes && got < n; i++)
		got += sheaf_shared_take_depot(sp, (home + i) % sp->nb_nodes,
			objs + got, n - got, undo, note);
	for (i = 0; i < sp->nb_nodes && got < n; i++)
		got += sheaf_shared_take_barn(sp, (home + i) % sp->nb_nodes,
			objs + got, n - got, undo, note);
	return got;
}

/*
 * Park records (sheaf_shared.h). A thread reaches the records it holds
 * through its TLS table (struct sheaf_thread's park[]) only: an entry is
 * a record's address, bit 0 set while a park of this thread fills it. A
 * park runs on the thread's own frames only (a handler, or a handler of
 * a handler), so the table and a held record's count change under
 * nothing but signal fences and atomics against this thread's handlers.
 */
#define SHEAF_PARK_FILLING ((uintptr_t)1)

static inline struct sheaf_park *
sheaf_park_rec(uintptr_t e)
{
	return (struct sheaf_park *)(e & ~SHEAF_PARK_FILLING);
}

/* Whether TLS entry e names a record of sp. */
static inline bool
sheaf_park_of(const struct sheaf_pool *sp, uintptr_t e)
{
	const struct sheaf_park *r = sheaf_park_rec(e);

	return e != 0 && r >= sp->park && r < sp->park + SHEAF_PARK_RECS;
}

/* A free record of sp, claimed for the caller's process; NULL if none. */
static struct sheaf_park *
sheaf_park_claim(struct sheaf_pool *sp)
{
	struct sheaf_park *r;
	uint64_t o;
	uint32_t i;

	/* Noted before the claim: a dead claimer is never unknown. */
	sheaf_lend_note_word(&sp->parker);
	for (i = 0; i < SHEAF_PARK_RECS; i++) {
		r = &sp->park[i];
		o = 0;
		/*
		 * Acquire: pairs with the release store that freed the record
		 * (sheaf_park_drain(), or sheaf_park_open() giving back one
		 * it did not use): its count's last store, 0, before.
		 */
		if (__atomic_load_n(&r->owner, __ATOMIC_RELAXED) == 0 &&
				__atomic_compare_exchange_n(&r->owner, &o,
					sheaf_self, 0, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
			return r;
	}
	return NULL;
}

/*
 * A record of sp with room, for a park of this thread: the TLS entry
 * holding it, marked filling (a handler of this park's frame then keeps
 * off it and takes another); -1 if none (no free entry or record).
 */
static int
sheaf_park_open(struct sheaf_thread *t, struct sheaf_pool *sp)
{
	struct sheaf_park *r = NULL;
	uintptr_t e;
	int i;

	/* Relaxed atomics on the table: this thread's own, vs handlers. */
	for (i = 0; i < SHEAF_PARK_HELD; i++) {
		e = __atomic_load_n(&t->park[i], __ATOMIC_RELAXED);
		if (!sheaf_park_of(sp, e) || (e & SHEAF_PARK_FILLING) != 0)
			continue;
		/* A copy of the table in a fork()ed child: its parent's. */
		if (__atomic_load_n(&sheaf_park_rec(e)->owner,
				__ATOMIC_RELAXED) != sheaf_self) {
			__atomic_compare_exchange_n(&t->park[i], &e, 0, 0,
				__ATOMIC_RELAXED, __ATOMIC_RELAXED);
			continue;
		}
		if (__atomic_load_n(&sheaf_park_rec(e)->n, __ATOMIC_RELAXED) <
				SHEAF_PARK_OBJS &&
				__atomic_compare_exchange_n(&t->park[i], &e,
					e | SHEAF_PARK_FILLING, 0,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return i;
	}
	for (i = 0; i < SHEAF_PARK_HELD; i++) {
		e = 0;
		if (__atomic_load_n(&t->park[i], __ATOMIC_RELAXED) != 0)
			continue;
		if (r == NULL && (r = sheaf_park_claim(sp)) == NULL)
			return -1;
		/*
		 * A death from the claim on leaves an empty record held by a
		 * dead process: the recovery frees it.
		 */
		if (__atomic_compare_exchange_n(&t->park[i], &e,
				(uintptr_t)r | SHEAF_PARK_FILLING, 0,
				__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return i;
	}
	if (r != NULL)
		/* Release: pairs with the next claimer's acquire; n is 0. */
		__atomic_store_n(&r->owner, 0, __ATOMIC_RELEASE);
	return -1;
}

/*
 * Park up to n objects in a record of sp that this thread holds: copied
 * in beyond its count, then the count raised, so the count never names
 * an object not in place (a death between: the copy is lost with the
 * process, the objects being its call's). Returns the objects parked.
 */
static unsigned int
sheaf_park_fill(struct sheaf_thread *t, struct sheaf_pool *sp,
	void * const *objs, unsigned int n)
{
	struct sheaf_park *r;
	uint32_t at, k;
	int i;

	i = sheaf_park_open(t, sp);
	if (i < 0)
		return 0;
	r = sheaf_park_rec(__atomic_load_n(&t->park[i], __ATOMIC_RELAXED));
	/* Only this frame changes n now (the entry is marked filling). */
	at = __atomic_load_n(&r->n, __ATOMIC_RELAXED);
	k = RTE_MIN(n, SHEAF_PARK_OBJS - at);
	memcpy(&r->objs[at], objs, k * sizeof(void *));
	/*
	 * The objects before the count, for this thread's own outermost
	 * call and its handlers: a signal fence (no other thread reads n
	 * while the record is ours: no pair). A recoverer of this
	 * process, dead, reads no pair of it either: the kernel orders a
	 * dead process's stores before /proc shows the death, and the
	 * recoverer's acquire fence after that look (sheaf_lend_claim())
	 * orders its reads.
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&r->n, at + k, __ATOMIC_RELAXED);
	/* Unmarked after the count (same thread: a signal fence). */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&t->park[i], (uintptr_t)r, __ATOMIC_RELAXED);
	return k;
}

/*
 * Objects of a depot this thread holds (a signal handler): into empty
 * barn sheaves, else parked in records of the pool. Returns the objects
 * lost (no room anywhere), counted, logged by the outermost call.
 */
static unsigned int
sheaf_shared_park(struct sheaf_pool *sp, void * const *objs, unsigned int n)
{
	struct sheaf_thread *t = sheaf_thread_self();
	uint32_t b = sheaf_home_node(sp);
	unsigned int k;
	struct sheaf_tx tx;

	while (n > 0 && sheaf_barn_begin(&tx, sp, b, SHEAF_TX_park, false) == 0) {
		k = sheaf_barn_give_objs(&tx, b, objs, n);
		sheaf_tx_end(&tx);
		if (k == 0)
			break;
		objs += k;
		n -= k;
	}
	/* A full record: another, while the thread has an entry free. */
	while (n > 0 && (k = sheaf_park_fill(t, sp, objs, n)) != 0) {
		objs += k;
		n -= k;
	}
	if (n > 0) {
		/* Counted now, logged by the outermost call (no log here). */
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_LOST, n);
		__atomic_fetch_add(&t->lost_unlogged, n, __ATOMIC_RELAXED);
	}
	return n;
}

/* The table of a sheaf_shared_put() of a cache: its start and length. */
struct sheaf_table_cut {
	void * const *base;
	uint32_t *tlen;
};

/*
 * A run of depot d to its slabs; parked when the thread holds d. arg: a
 * struct sheaf_table_cut when the run is the end of DPDK's cache, cut
 * off it inside the transaction, after a loss entry of the run: a death
 * before the commit rolls the run back and its recoverer counts it lost
 * (a death between the entry and the cut counts a run that the cache
 * still holds: the window of one store, as sheaf_pair_push_table()'s).
 * In a validated pool the run is checked once cut; the entry is lowered
 * by the objects refused (a death before: counted with the run). Not
 * begun, the run is cut and parked: a signal handler's, which is never
 * given the cache (sheaf_lcore_put_route()), so not reached with one.
 * Returns the objects refused.
 */
static unsigned int
sheaf_shared_give_run(struct sheaf_pool *sp, uint32_t d, void * const *objs,
	unsigned int n, void *arg)
{
	const struct sheaf_table_cut *c = arg;
	void *ok[SHEAF_TX_OBJS];
	unsigned int bad = 0, refused;
	struct sheaf_tx tx;
	uint32_t loss = 0;
	bool begun;

	begun = sheaf_depot_begin(&tx, sp, d, SHEAF_TX_shared_give,
		false) == 0;
	if (c != NULL) {
		if (begun)
			loss = sheaf_tx_note_loss(&tx, n);
		sheaf_cache_cut(c->tlen, (uint32_t)(objs - c->base));
		if (sheaf_validate_on(sp)) {
			RTE_ASSERT(n <= RTE_DIM(ok));
			/* A cache flush: never a handler's. */
			bad = n - sheaf_validate_put(sp, objs, n, ok, false);
			objs = ok;
			n -= bad;
			if (begun && bad != 0)
				sheaf_tx_lower_loss(&tx, loss, n);
		}
	}
	if (!begun)
		return bad + sheaf_shared_park(sp, objs, n);
	refused = sheaf_depot_put(&tx, d, objs, n);
	if (c != NULL && refused != 0)
		sheaf_tx_lower_loss(&tx, loss, n - refused);
	sheaf_tx_end(&tx);
	return bad + refused;
}

unsigned int
sheaf_shared_give(struct sheaf_pool *sp, void * const *objs, unsigned int n)
{
	return sheaf_slab_each_run(sp, objs, n, sheaf_shared_give_run, NULL);
}

/*
 * Free what signal handlers parked in records of sp from this thread:
 * the outermost call only (depth 1, no lock held).
 *
 * A handler may park while this runs (during an unpark transaction this
 * thread holds that depot's lock); taking objects from the end of a
 * record while a handler appends to it would lower the count over the
 * handler's objects. So each record is first taken out of the thread's
 * table (one CAS against the handlers, none of which is filling it: a
 * park runs to its end before this frame goes on). A handler reaches a
 * record only through the table: from then on no park writes it, its
 * count falls only by the unpark transactions below, and a count of 0
 * read after the last one stays 0, so freeing the record then loses
 * nothing. A handler that parks meanwhile claims another record, into
 * the table: looked at by the next pass, until none of sp's is left.
 * A death anywhere leaves each object in the record (held by this
 * process, recovered once it is dead) or in a slab.
 */
static void
sheaf_park_unstash(struct sheaf_thread *t, struct sheaf_pool *sp)
{
	unsigned int bad = 0;
	struct sheaf_park *r;
	bool again = true;
	uintptr_t e;
	int i;

	if (t->depth != 1 || t->nb_held != 0)
		return;
	while (again) {
		again = false;
		for (i = 0; i < SHEAF_PARK_HELD; i++) {
			/* Relaxed: this thread's table, vs its handlers. */
			e = __atomic_load_n(&t->park[i], __ATOMIC_RELAXED);
			if (!sheaf_park_of(sp, e) ||
					!__atomic_compare_exchange_n(&t->park[i],
						&e, 0, 0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
				continue;
			again = true;
			r = sheaf_park_rec(e);
			/* A copy of the table in a fork()ed child: not ours. */
			if (__atomic_load_n(&r->owner, __ATOMIC_RELAXED) !=
					sheaf_self)
				continue;
			sheaf_park_drain(sp, r, &bad);
		}
	}
	if (bad != 0)
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_INVALID, bad);
}

/*
 * Log what re-entered calls of this thread lost or took over: the
 * outermost only.
 */
static void
sheaf_shared_log_lost(struct sheaf_thread *t)
{
	uint32_t n;

	if (t->depth != 1 || t->nb_held != 0 || t->fast_handler != 0)
		return;
	sheaf_tx_log_unlogged(t);
	/* Relaxed: this thread's own counter, against its handlers. */
	n = __atomic_exchange_n(&t->lost_unlogged, 0, __ATOMIC_RELAXED);
	if (n != 0)
		SHEAF_LOG(CRIT, "%u objects freed by signal handlers lost: no room while their thread held a pool's lock (RTE_SHEAF_STAT_LOST)",
			n);
}

void
sheaf_call_leave(struct sheaf_pool *sp)
{
	struct sheaf_thread *t = sheaf_thread_self();

	RTE_BUILD_BUG_ON(SHEAF_PARK_HELD != 4);
	if (unlikely((t->park[0] | t->park[1] | t->park[2] | t->park[3]) != 0))
		sheaf_park_unstash(t, sp);
	if (unlikely(t->lost_unlogged != 0 || t->tx_unlogged != 0))
		sheaf_shared_log_lost(t);
	t->depth--;
}

int
sheaf_shared_get(struct sheaf_pool *sp, void **objs, unsigned int n,
	bool reentered)
{
	uint32_t home = sheaf_home_node(sp);
	struct sheaf_table_undo undo;
	unsigned int got;

	if (sheaf_table_init(&undo, sp, objs, n, reentered) < 0) {
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_ALLOC_FAIL, 1);
		return -ENOBUFS;
	}
	/* Expired deferred sheaves join the barns first. */
	if (!reentered)
		sheaf_deferred_reclaim(sp, true);
	got = sheaf_shared_take(sp, home, objs, n, &undo, NULL);
	if (got < n && !reentered && sheaf_reclaim(sp, NULL, n - got))
		got += sheaf_shared_take(sp, home, objs + got, n - got,
			&undo, NULL);
	if (got == n) {
		sheaf_table_done(&undo);
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_ALLOC_SLOW, n);
		return 0;
	}
	/* Back where they came from: not freed, not counted (FREE_SLOW). */
	sheaf_shared_give(sp, objs, got);
	sheaf_table_restore(&undo, objs, got);
	sheaf_table_done(&undo);
	sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_ALLOC_FAIL, 1);
	return -ENOBUFS;
}

unsigned int
sheaf_shared_put(struct sheaf_pool *sp, void * const *objs, unsigned int n,
	uint32_t *tlen)
{
	struct sheaf_table_cut c = { objs, tlen };
	unsigned int bad;

	if (unlikely(sheaf_slab_populating(sp)))
		return 0; /* the populate helper's: recorded already */
	if (tlen == NULL) {
		bad = sheaf_shared_give(sp, objs, n);
	} else {
		/* Runs go from the table's end (sheaf_slab_each_run()). */
		bad = sheaf_slab_each_run(sp, objs, n,
			sheaf_shared_give_run, &c);
		/* What was refused (not the pool's) leaves the cache too. */
		sheaf_cache_cut(tlen, 0);
	}
	sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_SLOW, n - bad);
	if (bad != 0)
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_INVALID, bad);
	return bad;
}
