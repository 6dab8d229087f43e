/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Reclaim for an allocation that found the shared tiers short: see
 * sheaf_reclaim.h.
 */

#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "sheaf_ask.h"
#include "sheaf_barn.h"
#include "sheaf_lend.h"
#include "sheaf_pair.h"
#include "sheaf_reclaim.h"
#include "sheaf_slab.h"

unsigned int
sheaf_reclaim_drain(struct sheaf_pool *sp, struct sheaf_slot *v,
	void *arg __rte_unused)
{
	unsigned int bad = 0, n;

	n = sheaf_pair_drain(sp, v, v->barn, &bad);
	if (bad != 0)
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_INVALID, bad);
	return n;
}

/*
 * A give request, served inside a call that needs keep objects of the
 * slot's own (a get's n: giving them only to take them back from the
 * barn would leave the asker short; a call short of them anyway keeps
 * none): n objects, as many as the slot holds beyond keep, back in one
 * barn sheaf, or to the slabs (top of spare, then main) when the barn has
 * no empty sheaf; all the slot holds as a drain when that is what n asks
 * of a call that keeps none, or when the call is a put and the slot's
 * last trade was a put (a freeing lcore: a pipeline's consumer, whose
 * objects are of no use to it; given n, the asker would be short again
 * within its next few gets). n 0: an earlier serve took the amount with
 * its own, and gave it (sheaf_slot_request_give()): nothing. Returns the
 * objects given.
 */
static unsigned int
sheaf_reclaim_give_back(struct sheaf_pool *sp, struct sheaf_slot *lc,
	uint32_t n, unsigned int keep)
{
	unsigned int bad = 0, held = sheaf_pair_count(lc), g, t;
	/* A put on a slot whose last trade was a put: a freeing lcore. */
	bool freer = keep == 0 && lc->last_trade == SHEAF_TRADE_PUT;

	if (held < keep)
		keep = 0;
	if (n == 0 || held == keep)
		return 0;
	if (freer || (keep == 0 && n >= held)) {
		g = sheaf_pair_drain(sp, lc, lc->barn, &bad);
	} else {
		t = RTE_MIN(n, held - keep);
		g = sheaf_pair_give_back(sp, lc, lc->barn, t);
		if (g == 0) {
			g = sheaf_pair_flush_some(sp, lc, SHEAF_SPARE, t,
				&bad);
			g += sheaf_pair_flush_some(sp, lc, SHEAF_MAIN, t - g,
				&bad);
		}
	}
	sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_FREE_INVALID, bad);
	return g;
}

bool
sheaf_reclaim_serve(struct sheaf_pool *sp, struct sheaf_slot *lc,
	unsigned int keep)
{
	unsigned int bad = 0;
	bool served = false;
	uint32_t gen;

	if (sheaf_slot_take_request(lc, SHEAF_REQ_DRAIN, &gen)) {
		sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_DRAIN,
			sheaf_pair_drain(sp, lc, lc->barn, &bad));
		sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_FREE_INVALID, bad);
		sheaf_slot_served(lc, SHEAF_REQ_DRAIN, gen);
		served = true;
	}
	/*
	 * A bit left after the serve that covered its generation (set
	 * after the count, or left by a thief or heir that drained): done.
	 */
	if (sheaf_slot_take_request(lc, SHEAF_REQ_GIVE, &gen) &&
			!sheaf_slot_is_served(lc, SHEAF_REQ_GIVE, gen)) {
		sheaf_slot_stat_add(lc, RTE_SHEAF_STAT_DRAIN,
			sheaf_reclaim_give_back(sp, lc,
				sheaf_slot_take_want(lc), keep));
		sheaf_slot_served(lc, SHEAF_REQ_GIVE, gen);
		served = true;
	}
	return served;
}

/* Objects in the shared tiers; racy. */
static uint64_t
sheaf_reclaim_tiers(const struct sheaf_pool *sp)
{
	return (uint64_t)sheaf_slab_count(sp) + sheaf_barn_count(sp);
}

/*
 * Slots other than self holding objects that may be asked, and how many
 * they hold. A slot whose owner ran short itself (entered a reclaim)
 * less than SHEAF_SHORT_US ago is left out: it needs its objects, and two
 * lcores short of the same objects would only hand them back and forth.
 * So is one whose owner is stuck inside a call (sheaf_slot_stuck()),
 * unless a look finds it dead: until 2026-12-06 every get that needed
 * its objects waited for it, 100 idle times each.
 */
static uint64_t
sheaf_reclaim_holders(struct sheaf_pool *sp, const struct sheaf_slot *self,
	struct sheaf_slot_set *want)
{
	struct sheaf_slot_set claimed;
	uint64_t held = 0, b, now = sheaf_clock_ns();
	unsigned int i, w;
	uint32_t c;

	/* The claimed slots only, by their bits. */
	sheaf_slot_claimed_set(sp, &claimed);
	SHEAF_SLOT_SET_FOREACH(i, &claimed, w, b) {
		if (&sp->slot[i] == self)
			continue;
		/* Racy, not critical: an estimate of what asking brings. */
		c = sheaf_pair_count(&sp->slot[i]);
		if (c == 0)
			continue;
		/* Relaxed: a hint, as the count above. */
		if (now - __atomic_load_n(&sp->slot[i].short_ns,
				__ATOMIC_RELAXED) < SHEAF_SHORT_US * 1000)
			continue;
		/* A stuck owner may be a dead one (its own rate limit). */
		if (sheaf_slot_stuck(sp, &sp->slot[i], now) &&
				sheaf_slot_dead_owner(&sp->slot[i]) == 0)
			continue;
		sheaf_slot_set_add(want, i);
		held += c;
	}
	return held;
}

/*
 * Whether an asked owner is inside a call: it answers when it leaves it,
 * which a preempted owner does late.
 */
static bool
sheaf_reclaim_inside(const struct sheaf_pool *sp, const struct sheaf_ask *a)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++)
		if (sheaf_slot_set_has(&a->pending, i) &&
				!sheaf_slot_quiet(&sp->slot[i]))
			return true;
	return false;
}

/* Polls of the acknowledgements between two looks of a reclaim. */
#define SHEAF_RECLAIM_LOOK 32

/*
 * Wait for the asked owners (started by the caller) until the tiers hold
 * n, every asked slot has answered, or the deadline. Returns whether to
 * look again (the objects are there, or all answered, or some moved).
 */
static bool
sheaf_reclaim_wait(struct sheaf_pool *sp, struct sheaf_slot *self,
	unsigned int n, struct sheaf_ask *ask, unsigned int *left)
{
	struct sheaf_slot_set want;
	uint64_t tiers, held, deadline, cap, now;
	bool last = false, again = false;
	unsigned int k;

	/*
	 * An owner that calls answers within microseconds. One that does
	 * not is idle after idle_ns of watching; the fence may wait for
	 * the pool's membarrier interval; preemption adds some: up to three
	 * idle times and an interval.
	 */
	now = sheaf_clock_ns();
	deadline = now + 3 * sp->tun.idle_ns + sp->tun.membarrier_ns;
	/*
	 * An asked owner still inside a call was preempted there (it would
	 * have answered within microseconds): it answers when it runs again,
	 * or goes idle; the wait runs on for an idle time and an interval
	 * after it is seen inside, up to SHEAF_STUCK_IDLES idle times in
	 * all (then it is stuck: the next reclaims leave it out).
	 */
	cap = now + SHEAF_STUCK_IDLES * sp->tun.idle_ns;
	for (k = 0;; k++) {
		/*
		 * Asked while it waits: another lcore ran short as well and
		 * waits for this one's next call, which this wait holds
		 * back; each would wait for the other until it looks idle
		 * (a fence) or the deadline. Give what it asks (all this
		 * lcore holds, short anyway) and fail: one of the two gets.
		 */
		if (self != NULL && sheaf_slot_requests_hint(self) &&
				sheaf_reclaim_serve(sp, self, 0))
			return false;
		/*
		 * Between looks, only the acknowledgements: a look reads
		 * the asked owners' first lines and walks the barns, lines
		 * the owners write at every call. Only while the wait
		 * spins: once it yields (a yield on a busy CPU may last
		 * milliseconds), every poll looks, and the deadline is read
		 * at each. Until 2026-12-06 the looks came every 32 polls
		 * all along: on lcores sharing CPUs a wait lasted 32 to 64
		 * yields whatever its deadline (a get 0.2-0.6 s).
		 */
		if (k < SHEAF_WAIT_SPINS && k % SHEAF_RECLAIM_LOOK != 0) {
			*left = sheaf_ask_served(ask);
			if (*left != 0) {
				sheaf_wait_pause(k);
				continue;
			}
		}
		*left = sheaf_ask_poll(ask);
		tiers = sheaf_reclaim_tiers(sp);
		/*
		 * All served, still short (another allocation took what was
		 * given, or a serve read a smaller amount: see
		 * sheaf_slot_request_give()): ask once more.
		 */
		if (*left == 0 && tiers < n && !again) {
			again = true;
			memset(&want, 0, sizeof(want));
			held = sheaf_reclaim_holders(sp, self, &want);
			if (held != 0 && held + tiers >= n) {
				sheaf_ask_restart(ask, &want, n - tiers);
				continue;
			}
		}
		if (tiers >= n || *left == 0)
			return true;
		now = sheaf_clock_ns();
		/*
		 * Every owner still asked cannot be fenced (no membarrier())
		 * and has made no call for as long as a wait lasts: it gives
		 * at its next call, whenever that comes. Waiting for it
		 * anyway, DPDK's rte_mempool_free(), which dequeues the pool
		 * one object at a time, waited a whole deadline for each
		 * object such an lcore held.
		 */
		if (sheaf_ask_unreachable(ask, now, 3 * sp->tun.idle_ns +
				sp->tun.membarrier_ns))
			return ask->moved != 0;
		if (now < cap && sheaf_reclaim_inside(sp, ask))
			deadline = RTE_MAX(deadline, now + sp->tun.idle_ns +
				sp->tun.membarrier_ns);
		/*
		 * One more look once the deadline has passed: a caller
		 * preempted for the whole wait has not looked since.
		 */
		if (now >= deadline && last)
			return ask->moved != 0;
		last = now >= deadline;
		sheaf_wait_pause(k);
	}
}

static bool
sheaf_reclaim_do(struct sheaf_pool *sp, struct sheaf_slot *self,
	unsigned int n, bool looked)
{
	struct sheaf_slot_set want = { { 0 } };
	uint64_t held, tiers, start;
	struct sheaf_ask ask;
	unsigned int left = 0;
	bool ok;

	if (self != NULL && !looked && sheaf_reclaim_dry(sp, self, n, false))
		return false;
	/*
	 * Sheaves that dead processes left in transit or borrowed: rare;
	 * cheap, or rate-limited.
	 */
	/* Relaxed: a hint for the others' reclaims (sheaf_pvt.h). */
	if (self != NULL)
		__atomic_store_n(&self->short_ns, sheaf_clock_ns(),
			__ATOMIC_RELAXED);
	sheaf_barn_recover_transit(sp);
	sheaf_lend_recover(sp, sheaf_home_of(sp, self), false);
	held = sheaf_reclaim_holders(sp, self, &want);
	tiers = sheaf_reclaim_tiers(sp);
	/* Given back meanwhile (another lcore gave, or freed): look again. */
	if (tiers >= n)
		return true;
	/* Not there at all: fail as cheaply as a ring would. */
	if (held == 0 || held + tiers < n) {
		if (self != NULL) {
			self->dry_tsc = rte_rdtsc();
			self->dry_have = held + tiers;
		}
		return false;
	}
	start = sheaf_clock_ns();
	sheaf_ask_start(&ask, sp, &want, SHEAF_REQ_GIVE, n - tiers,
		sheaf_reclaim_drain, NULL);
	ok = sheaf_reclaim_wait(sp, self, n, &ask, &left);
	if (ask.moved != 0)
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_REMOTE_TAKE, ask.moved);
	if (!ok)
		SHEAF_LOG(DEBUG, "pool %s: lcore %u%s: %u objects wanted, %" PRIu64 " held by %u other lcores not back in %" PRIu64 " us: %u polls, %u idle looks, %u fences (%u refused by the interval), %u owners inside a call",
			sp->mp->name, rte_lcore_id(),
			self == NULL ? " (no slot)" : "", n, held, left,
			(sheaf_clock_ns() - start) / 1000, ask.polls, ask.idle,
			ask.fenced, ask.again, ask.busy);
	return ok;
}

bool
sheaf_reclaim(struct sheaf_pool *sp, struct sheaf_slot *self, unsigned int n)
{
	return sheaf_reclaim_do(sp, self, n, false);
}

bool
sheaf_reclaim_short(struct sheaf_pool *sp, struct sheaf_slot *self,
	unsigned int n)
{
	return sheaf_reclaim_do(sp, self, n, true);
}
