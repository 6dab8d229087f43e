/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_ASK_H_
#define _SHEAF_ASK_H_

/*
 * Asking other lcores for something only their owner may do (give their
 * sheaves back, give some objects back, stamp their deferred sheaf), and
 * doing it for those that cannot answer: SLUB flushes another CPU's
 * sheaves by asking it (work on that CPU), never by touching them from
 * afar.
 *
 * For each slot asked:
 *   - a request bit goes into its gate; the owner takes it (clears the
 *     bit) at its next call, serves it and acknowledges it (a release
 *     store of the kind's done count);
 *   - an owner that makes no call for the pool's idle time is idle: its
 *     slot is marked, fenced and, once its owner is seen outside a call,
 *     served by the asker (sheaf_slot.h), at most one membarrier() per
 *     pool per interval for all slots at once;
 *   - a dead owner's slot is inherited and served by the asker, then
 *     left unclaimed.
 * The action is the caller's: a function that does for a held slot what
 * the request asks. Nothing here waits; callers poll with their own
 * deadline, and stop when they like: a request left pending is served at
 * its owner's next call, harmlessly.
 */

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_pause.h>

#include "sheaf_slot.h"

/* What to do for a slot the caller holds; returns objects moved. */
typedef unsigned int (*sheaf_ask_act_t)(struct sheaf_pool *sp,
	struct sheaf_slot *v, void *arg);

struct sheaf_ask {
	struct sheaf_pool *sp;
	unsigned int kind;         /* SHEAF_REQ_* */
	uint32_t amount;           /* objects a SHEAF_REQ_GIVE asks for */
	uint32_t gen[RTE_MAX_LCORE]; /* the generation asked of each slot */
	uint64_t marked_owner[RTE_MAX_LCORE]; /* owner seen when marked */
	sheaf_ask_act_t act;
	void *arg;
	struct sheaf_slot_set pending; /* asked, not served yet */
	struct sheaf_slot_set no_take; /* cannot be fenced: wait only */
	unsigned int moved;        /* objects the asker moved itself */
	unsigned int remote;       /* slots the asker served itself */
	/* What the polls saw, for the debug log of a failed reclaim. */
	unsigned int polls, idle, fenced, busy, again;
};

/*
 * Ask every slot of want. The caller leaves out the slot it holds, if
 * any (it would wait for itself), and only that one: the slot of its
 * lcore id is another's when another process owns it, or a thief holds
 * it, and is asked like any other. amount: the objects a SHEAF_REQ_GIVE
 * asks of each (ignored by the other kinds); the asker itself serves an
 * idle or dead slot with act, whatever the kind.
 */
void sheaf_ask_start(struct sheaf_ask *a, struct sheaf_pool *sp,
	const struct sheaf_slot_set *want, unsigned int kind, uint32_t amount,
	sheaf_ask_act_t act, void *arg);

/* Ask the slots of want again (after a poll left none pending). */
void sheaf_ask_restart(struct sheaf_ask *a, const struct sheaf_slot_set *want,
	uint32_t amount);

/*
 * One look at every pending slot: drop the served ones, serve the dead
 * and the idle. Returns how many are still pending. It reads each
 * owner's first cache line (its owner word and counters), which the
 * owner's every call writes: a waiter calls it now and then, and
 * sheaf_ask_served() in between.
 */
unsigned int sheaf_ask_poll(struct sheaf_ask *a);

/*
 * Drop the served slots, reading only their acknowledgements (a line the
 * owner writes when it serves). Returns how many are still pending.
 */
unsigned int sheaf_ask_served(struct sheaf_ask *a);

/*
 * Whether every slot still pending is out of the fence's reach (no
 * membarrier() registration, sheaf_slot_fence_reaches()) and its owner
 * made no call for at least idle_ns before now (as the looks saw it):
 * only that owner's next call serves it.
 */
bool sheaf_ask_unreachable(const struct sheaf_ask *a, uint64_t now,
	uint64_t idle_ns);

/*
 * Hold the caller's own slot (sheaf_slot_hold()), waiting until deadline
 * (CLOCK_MONOTONIC ns) while a thief holds it (a remote take, a
 * barrier's stamp: it lets go soon). 0 with *held set (NULL: no slot of
 * ours), -ETIMEDOUT when the thief still holds it, -EBUSY from a signal
 * handler whose thread is inside the fast path.
 */
int sheaf_ask_hold_own(struct sheaf_pool *sp, struct sheaf_slot **held,
	uint64_t deadline);

/* Polls of a wait that pause before it yields instead (sheaf_wait_pause()). */
#define SHEAF_WAIT_SPINS 128

/*
 * Poll number polls (from 0) of a wait on other threads: asked owners, a
 * thief, RCU readers. The first SHEAF_WAIT_SPINS pause; then each yields
 * the CPU: on oversubscribed CPUs (lcores sharing them, as the tests map
 * 16 lcores onto 2 CPUs) the threads waited for may need this one's CPU
 * to run, and a spinning waiter holds it for its whole time slice (tried:
 * rx-chunk-low on 8 lcores over 2 CPUs, 28-72 us a failed get). On a CPU
 * of its own, a system call that returns at once, past the microseconds
 * in which an owner that runs answers.
 */
static inline void
sheaf_wait_pause(unsigned int polls)
{
	if (polls < SHEAF_WAIT_SPINS)
		rte_pause();
	else
		sched_yield();
}

#endif /* _SHEAF_ASK_H_ */
