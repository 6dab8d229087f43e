/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Flushes: see sheaf_flush.h. An lcore that calls the pool flushes its own
 * sheaves when asked; one that does not is idle after the pool's idle
 * time and is flushed by the caller (sheaf_ask.h).
 */

#include <errno.h>

#include <rte_launch.h>
#include <rte_lcore.h>

#include "sheaf_ask.h"
#include "sheaf_barn.h"
#include "sheaf_deferred.h"
#include "sheaf_flush.h"
#include "sheaf_lcore.h"
#include "sheaf_lend.h"
#include "sheaf_pair.h"
#include "sheaf_reclaim.h"
#include "sheaf_shared.h"

/* As long as an allocation would wait (sheaf_reclaim.h). */
static uint64_t
sheaf_flush_wait_ns(const struct sheaf_pool *sp)
{
	return 3 * sp->tun.idle_ns + sp->tun.membarrier_ns;
}

/* The barns into the slabs. */
static unsigned int
sheaf_flush_barns(struct sheaf_pool *sp)
{
	unsigned int n = 0, bad = 0;
	uint32_t b;

	/*
	 * Dead borrowers' sheaves and expired deferred sheaves join the
	 * barns first; the other deferred ones stay.
	 */
	sheaf_lend_recover(sp, 0, true);
	sheaf_deferred_reclaim(sp, true);
	for (b = 0; b < sp->nb_nodes; b++)
		n += sheaf_barn_flush(sp, b, &bad);
	sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FLUSH_OTHER, n);
	sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_INVALID, bad);
	return n;
}

unsigned int
sheaf_flush_self(struct sheaf_pool *sp, bool *pending)
{
	struct sheaf_slot *lc;
	unsigned int n = 0;

	/*
	 * A thief holding our own slot (taking from it as idle, stamping
	 * it for a barrier) lets go of it soon: wait for it, as long as an
	 * allocation would. Until 2026-12-06 the flush went on without the
	 * slot and reported it flushed.
	 */
	*pending = sheaf_ask_hold_own(sp, &lc, sheaf_clock_ns() +
		sheaf_flush_wait_ns(sp)) == -ETIMEDOUT;
	if (lc != NULL) {
		n = sheaf_lcore_flush(sp, lc);
		/* Requests left at the gate: answered, as the next call would
		 * (their askers need not wait for it). */
		sheaf_lcore_serve(sp, lc, 0);
		sheaf_slot_leave(lc);
	}
	return n + sheaf_flush_barns(sp);
}

/*
 * A flush launched on a worker, what its last function returned, and
 * whether its slot's flush is still pending.
 */
struct sheaf_flush_launch {
	struct sheaf_pool *sp;
	int ret;
	bool pending;
};

/*
 * The worker's result is its last function's, which the app may not
 * have read yet (rte_eal_wait_lcore() reads it until the next launch).
 */
static int
sheaf_flush_remote(void *arg)
{
	struct sheaf_flush_launch *f = arg;

	sheaf_flush_self(f->sp, &f->pending);
	return f->ret;
}

/*
 * An idle EAL worker lcore of this process flushes itself when the main
 * lcore launches the flush on it (SLUB queues work on each CPU): true
 * when done that way (its slot flushed). Until 2026-12-06 the launch
 * replaced the result of the worker's last function with its own.
 */
static bool
sheaf_flush_launch(struct sheaf_pool *sp, unsigned int i)
{
	struct sheaf_flush_launch f = { .sp = sp };

	if (rte_lcore_id() != rte_get_main_lcore() ||
			rte_eal_lcore_role(i) != ROLE_RTE ||
			rte_eal_get_lcore_state(i) != WAIT ||
			!sheaf_slot_ours(&sp->slot[i]))
		return false;
	/* Waiting: returns at once, the worker's result as it stands. */
	f.ret = rte_eal_wait_lcore(i);
	if (rte_eal_remote_launch(sheaf_flush_remote, &f, i) != 0)
		return false;
	/* The launch's return orders the worker's writes to f before. */
	rte_eal_wait_lcore(i);
	return !f.pending;
}

unsigned int
sheaf_flush_all(struct sheaf_pool *sp)
{
	struct sheaf_slot_set want = { { 0 } };
	struct sheaf_slot *self = sheaf_slot_of(sp);
	unsigned int i, left, polls = 0;
	struct sheaf_ask ask;
	uint64_t deadline;
	bool pending;

	sheaf_flush_self(sp, &pending);
	/*
	 * The slot of our lcore id was flushed above when this process owns
	 * it (or a thief held it to the end: counted pending); another
	 * process's is asked like any other.
	 */
	if (self != NULL && !sheaf_slot_ours(self))
		self = NULL;
	/*
	 * A slot holding no objects is asked too while its cut record is
	 * set: its owner may have died moving a run into it (a flush of
	 * DPDK's cache, a prefill sheaf's return), and the heir
	 * that empties it counts the run it lost (sheaf_slot_inherit()).
	 * Relaxed: a hint; a live owner's record is set for a moment.
	 */
	for (i = 0; i < RTE_MAX_LCORE; i++)
		if (&sp->slot[i] != self && sheaf_slot_claimed(sp, i) &&
				(sheaf_pair_count(&sp->slot[i]) != 0 ||
				__atomic_load_n(&sp->slot[i].cut_n,
					__ATOMIC_RELAXED) != 0) &&
				!sheaf_flush_launch(sp, i))
			sheaf_slot_set_add(&want, i);
	deadline = sheaf_clock_ns() + sheaf_flush_wait_ns(sp);
	sheaf_ask_start(&ask, sp, &want, SHEAF_REQ_DRAIN, 0,
		sheaf_reclaim_drain, NULL);
	while ((left = sheaf_ask_poll(&ask)) != 0 &&
			sheaf_clock_ns() < deadline)
		sheaf_wait_pause(polls++);
	if (ask.moved != 0)
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_REMOTE_TAKE, ask.moved);
	sheaf_flush_barns(sp);
	return left + (pending ? 1 : 0);
}
