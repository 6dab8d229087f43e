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
#include "sheaf_proc.h"
#include "sheaf_reclaim.h"
#include "sheaf_shared.h"
#include "sheaf_slab.h"

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

/* Up to n objects from depot d's slabs, in transactions. */
static unsigned int
sheaf_shared_take_depot(struct sheaf_pool *sp, uint32_t d, void **objs,
	unsigned int n, struct sheaf_table_undo *undo)
{
	unsigned int got = 0, t;
	struct sheaf_tx tx;

	while (got < n && sheaf_depot_nb_free(sp, d) != 0) {
		t = RTE_MIN(n - got, (unsigned int)SHEAF_TX_OBJS);
		if (undo != NULL)
			sheaf_table_keep(undo, objs + got, t);
		if (sheaf_depot_begin(&tx, sp, d, SHEAF_TX_shared_take, false) < 0)
			break;
		t = sheaf_depot_take(&tx, d, objs + got, t);
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
	unsigned int n, struct sheaf_table_undo *undo)
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
		sheaf_tx_end(&tx);
		if (t == 0)
			break;
		got += t;
	}
	return got;
}

unsigned int
sheaf_shared_take(struct sheaf_pool *sp, uint32_t home, void **objs,
	unsigned int n, struct sheaf_table_undo *undo)
{
	unsigned int got = 0;
	uint32_t i;

	for (i = 0; i < sp->nb_nodes && got < n; i++)
		got += sheaf_shared_take_depot(sp, (home + i) % sp->nb_nodes,
			objs + got, n - got, undo);
	for (i = 0; i < sp->nb_nodes && got < n; i++)
		got += sheaf_shared_take_barn(sp, (home + i) % sp->nb_nodes,
			objs + got, n - got, undo);
	return got;
}

/*
 * Park up to n objects on the thread: signal-safe against a handler that
 * parks meanwhile (a slot is reserved by compare-and-swap, then filled).
 * Returns the objects parked.
 */
static unsigned int
sheaf_shared_stash(struct sheaf_thread *t, struct sheaf_pool *sp,
	void * const *objs, unsigned int n)
{
	uint32_t at, k;

	if (t->nb_stash != 0 && t->stash_pool != sp)
		return 0; /* the stash is another pool's: no room */
	t->stash_pool = sp;
	do {
		at = t->nb_stash;
		k = RTE_MIN(n, SHEAF_STASH_OBJS - at);
	} while (k != 0 && !__atomic_compare_exchange_n(&t->nb_stash, &at,
		at + k, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	memcpy(&t->stash[at], objs, k * sizeof(void *));
	return k;
}

/*
 * Objects of a depot this thread holds (a signal handler): into empty
 * barn sheaves, else parked on the thread. Returns the objects lost (no
 * room anywhere), logged and counted.
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
	k = sheaf_shared_stash(t, sp, objs, n);
	if (n > k) {
		/* Counted now, logged by the outermost call (no log here). */
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_LOST, n - k);
		__atomic_fetch_add(&t->lost_unlogged, n - k, __ATOMIC_RELAXED);
	}
	return n - k;
}

/* A run of depot d to its slabs; parked when the thread holds d. */
static unsigned int
sheaf_shared_give_run(struct sheaf_pool *sp, uint32_t d, void * const *objs,
	unsigned int n, void *arg __rte_unused)
{
	unsigned int bad;
	struct sheaf_tx tx;

	if (sheaf_depot_begin(&tx, sp, d, SHEAF_TX_shared_give, false) < 0)
		return sheaf_shared_park(sp, objs, n);
	bad = sheaf_depot_put(&tx, d, objs, n);
	sheaf_tx_end(&tx);
	return bad;
}

unsigned int
sheaf_shared_give(struct sheaf_pool *sp, void * const *objs, unsigned int n)
{
	unsigned int bad = 0;

	bad += sheaf_slab_each_run(sp, objs, n, sheaf_shared_give_run, NULL,
		&bad);
	return bad;
}

/* Free what signal handlers parked on this thread. */
static void
sheaf_shared_unstash(struct sheaf_thread *t, struct sheaf_pool *sp)
{
	void *tmp[SHEAF_STASH_OBJS];
	uint32_t k;
	unsigned int bad;

	/*
	 * The outermost call only (depth 1, no lock): a handler may park
	 * more meanwhile, never take, so the count only grows until the
	 * compare-and-swap below takes what was copied.
	 */
	if (t->depth != 1 || t->nb_held != 0 || t->stash_pool != sp)
		return;
	while ((k = t->nb_stash) != 0) {
		memcpy(tmp, t->stash, k * sizeof(void *));
		if (!__atomic_compare_exchange_n(&t->nb_stash, &k, 0, 0,
				__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			continue;
		bad = sheaf_shared_give(sp, tmp, k);
		if (bad != 0)
			sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_INVALID,
				bad);
	}
}

/* Log what re-entered calls of this thread lost: the outermost only. */
static void
sheaf_shared_log_lost(struct sheaf_thread *t)
{
	uint32_t n;

	if (t->depth != 1 || t->nb_held != 0)
		return;
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

	if (unlikely(t->nb_stash != 0))
		sheaf_shared_unstash(t, sp);
	if (unlikely(t->lost_unlogged != 0))
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
	got = sheaf_shared_take(sp, home, objs, n, &undo);
	if (got < n && !reentered && sheaf_reclaim(sp, NULL, n - got))
		got += sheaf_shared_take(sp, home, objs + got, n - got,
			&undo);
	if (got == n) {
		sheaf_table_done(&undo);
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_ALLOC_SLOW, n);
		return 0;
	}
	sheaf_shared_put(sp, objs, got);
	sheaf_table_restore(&undo, objs, got);
	sheaf_table_done(&undo);
	sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_ALLOC_FAIL, 1);
	return -ENOBUFS;
}

void
sheaf_shared_put(struct sheaf_pool *sp, void * const *objs, unsigned int n)
{
	unsigned int bad;

	if (unlikely(sheaf_slab_populating(sp)))
		return; /* the populate helper's: recorded already */
	bad = sheaf_shared_give(sp, objs, n);
	sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_SLOW, n - bad);
	if (bad != 0)
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_INVALID, bad);
}
