/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * The slot protocol, out of line: claiming, inheriting from the dead,
 * marks, the thief's fence, idleness. See sheaf_slot.h.
 */

#include <errno.h>

#include "sheaf_slot.h"
#include "sheaf_tx.h"

/*
 * A call finding its lcore's slot owned by another process looks whether
 * that process is gone at most every 10 ms per slot: a look reads /proc.
 * Reclaim looks at most every 1 ms (sheaf_slot_dead_owner()).
 */
#define SHEAF_CLAIM_LOOK_NS 10000000u
#define SHEAF_RECLAIM_LOOK_NS 1000000u

/*
 * Whether it is time for a look of v's clock k; then the next, for every
 * process (one look a period of all of them). One clock each, and each
 * slot's (each pool's) its own: a reclaim looks at the owner first, and
 * a look at the owner must not use up the look at a dead thief's mark,
 * which would then never come (sheaf_ask_look() marks after it looked
 * at the owner). Until 2026-12-06 the clocks were each process's own,
 * one per lcore id for every pool and for claims and reclaims alike: a
 * thread calling a pool whose slot of its lcore id another live process
 * owned (its claim looks, every 10 ms) used up the reclaims' looks at a
 * dead owner of that lcore id's slot of any other pool, whose objects
 * then stayed out of reach.
 */
static bool
sheaf_slot_may_look(struct sheaf_slot *v, enum sheaf_look k, uint64_t period)
{
	uint64_t now = sheaf_clock_ns();
	uint64_t after = __atomic_load_n(&v->look_after[k], __ATOMIC_RELAXED);

	/* Relaxed: a rate limit; no data comes with it. */
	return now >= after && __atomic_compare_exchange_n(&v->look_after[k],
		&after, now + period, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static uint64_t
sheaf_slot_dead_look(struct sheaf_slot *v, enum sheaf_look k,
	uint64_t period)
{
	uint64_t o = __atomic_load_n(&v->owner, __ATOMIC_RELAXED);

	if (o == 0 || (o & ~SHEAF_INC_HEIR) == sheaf_self)
		return 0;
	if (!sheaf_slot_may_look(v, k, period))
		return 0;
	return sheaf_proc_dead(o) ? o : 0;
}

uint64_t
sheaf_slot_dead_owner(struct sheaf_slot *v)
{
	return sheaf_slot_dead_look(v, SHEAF_LOOK_OWNER,
		SHEAF_RECLAIM_LOOK_NS);
}

/*
 * Before a claim's compare-and-swap of lc's owner: lc's bit in the pool's
 * claimed slots, the slots that reclaims, counts and the dump look at. A
 * slot is ours from that compare-and-swap on: a signal handler on our
 * thread may fill it at once (the interrupted claim has not returned),
 * and a death may follow. Set after it, the bit would leave such a slot
 * out of every reclaim's sight for good. Set first, a claim that then
 * fails costs a look at a slot that holds nothing.
 */
static void
sheaf_slot_claiming(struct sheaf_pool *sp, struct sheaf_slot *lc)
{
	unsigned int i = sheaf_slot_id(sp, lc);

	/*
	 * Relaxed: a hint of which slots to look at. A dead owner's stores
	 * are all seen once its death is (sheaf_tx.h); a live owner's first
	 * objects may escape a look that races its claim, as objects freed
	 * after a look do, and the next look sees them.
	 */
	__atomic_fetch_or(&sp->claimed[i / 64], UINT64_C(1) << (i % 64),
		__ATOMIC_RELAXED);
}

/*
 * The caller's process now owns lc as incarnation o: record what thieves
 * need to know. mb counts for an owner only once mb_inc names it
 * (sheaf_slot_fence_reaches()): until this store no fence reaches the
 * new owner, whatever mb says; a losing heir or an earlier owner has
 * nothing to clear, so no late store of theirs can hide this one.
 */
static void
sheaf_slot_claimed_now(struct sheaf_slot *lc, uint64_t o)
{
	/*
	 * Release, both: the reader's acquire of mb_inc sees this mb, and
	 * its acquire of mb, when it reads a later owner's, sees that
	 * owner's claim (its recheck of owner then fails).
	 */
	__atomic_store_n(&lc->mb, sheaf_proc_mb_register(), __ATOMIC_RELEASE);
	__atomic_store_n(&lc->mb_inc, o, __ATOMIC_RELEASE);
}

/*
 * A dead owner moved a run into its main or spare by the cut protocol
 * (sheaf_pair_cut_begin(): a flush of DPDK's cache, a prefill sheaf's
 * return) and died after the cut, before the slot's count: the run is
 * in neither, counted lost (sheaf_stat_record_lost()) while the state
 * word is still the record's cut_state. Called by the slot's new holder,
 * its fence after the owner word taken, before its store of busy.
 */
static void
sheaf_slot_settle_cut(struct sheaf_pool *sp, struct sheaf_slot *v,
	uint64_t dead)
{
	uint32_t n = sheaf_stat_record_lost(&v->cut_n,
		__atomic_load_n(&v->state, __ATOMIC_RELAXED) ==
		__atomic_load_n(&v->cut_state, __ATOMIC_RELAXED));

	/* Logged before counted (sheaf_stat_record_lost()). */
	if (n != 0)
		SHEAF_LOG(CRIT, "pool %s: lcore %u: process %u died moving a run into its sheaf (a flush of DPDK's mempool cache, a prefill sheaf's return): %u objects cut off their table and not yet counted in the sheaf lost (RTE_SHEAF_STAT_LOST)",
			sp->mp->name, sheaf_slot_id(sp, v),
			sheaf_proc_pid(dead), n);
	sheaf_stat_settle_record(sp, &v->cut_n, n);
}

/*
 * Requests a dead owner took off the gate and never acknowledged (it
 * died serving them, or before): their bits again, so the slot's next
 * owner serves them at its next call (a thief or heir serves its own
 * kind and leaves the bits). Without them no entry finds the bit, and
 * the requester waits for its deadline with the slot's new owner calling
 * all along. A give whose amount the dead took (want zeroed) is raised
 * to all: the requester's amount is gone. Relaxed reads: req and done
 * equal means nothing is pending; a stale value costs one serve (a
 * request made meanwhile sets its own bit). Release, as a requester's
 * bit: the raised want before it; pairs with the owner's acquire
 * fetch_and of the bit (sheaf_slot_take_request()).
 */
static void
sheaf_slot_requeue(struct sheaf_slot *v)
{
	uint32_t zero = 0;
	unsigned int k;

	for (k = 0; k < RTE_DIM(v->req); k++) {
		if (sheaf_slot_requested(v, k) ==
				__atomic_load_n(&v->done[k], __ATOMIC_RELAXED))
			continue;
		if (k == SHEAF_REQ_GIVE)
			__atomic_compare_exchange_n(&v->want, &zero,
				UINT32_MAX, false, __ATOMIC_RELAXED,
				__ATOMIC_RELAXED);
		__atomic_fetch_or(&v->gate, sheaf_req_bit(k),
			__ATOMIC_RELEASE);
	}
}

bool
sheaf_slot_inherit(struct sheaf_pool *sp, struct sheaf_slot *v, uint64_t dead,
	uint32_t busy)
{
	uint64_t heir = busy == SHEAF_BUSY_HEIR ? sheaf_self | SHEAF_INC_HEIR :
		sheaf_self;
	uint64_t b;

	/*
	 * Unnamed (sheaf_proc.h): no slot, inherited either (its owner
	 * word, heir or not, would be our own sheaf_self).
	 */
	if (unlikely(sheaf_proc_unnamed()))
		return false;
	/*
	 * Its transactions undone, the slot is whole (single stores). An
	 * heir holds locks under its plain incarnation.
	 */
	if (dead != 0 &&
			sheaf_tx_recover_proc(sp, dead & ~SHEAF_INC_HEIR) < 0)
		return false;
	/*
	 * Acquire: pairs with sheaf_slot_disown()'s release (dead 0: the
	 * slot as its heir emptied it). Release: pairs with
	 * sheaf_slot_fence_reaches()'s acquire of owner. Until
	 * sheaf_slot_claimed_now() mb_inc names the dead owner (or none),
	 * not us: no fence counts as reaching us.
	 */
	sheaf_slot_claiming(sp, v);
	if (!__atomic_compare_exchange_n(&v->owner, &dead, heir, 0,
			__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return false;
	/*
	 * Full, which covers both needs:
	 * - acquire: a dead owner's last plain stores (its state word,
	 *   deferred state, acknowledgements) are released by nothing it
	 *   ran: the kernel's exit orders them before the look that found
	 *   it dead, and this fence orders our reads of the slot after that
	 *   look, as sheaf_tx_take_over()'s. The rolled-back transactions
	 *   are published by the lock words' releases (sheaf_tx.c);
	 * - store-load: our stores of busy and loads of gate
	 *   (sheaf_slot_enter_at()) after the owner word, against a thief that
	 *   marked the slot while it still named the dead (its fence chosen
	 *   for that owner; it reads owner again after its fence:
	 *   sheaf_ask_take()). Either it sees us and leaves, or we see its
	 *   mark.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	SHEAF_KILL("inherit.claimed");
	/*
	 * A run the dead owner cut and did not count, counted while busy
	 * still holds its call bit: a thief that marked the slot while the
	 * owner word named the dead (it reads busy after that look) finds
	 * it inside a call and leaves it; were busy stored first, it could
	 * find a claim-heir's 0, drain the slot, and the state word would
	 * have moved on before the record was read (a lost run, uncounted).
	 * That needs a record to be set inside a call only (every cut is
	 * made between a call's brackets; a signal handler makes none):
	 * checked in a debug build.
	 */
	b = __atomic_load_n(&v->busy, __ATOMIC_RELAXED);
	if (dead != 0) {
		RTE_ASSERT(__atomic_load_n(&v->cut_n, __ATOMIC_RELAXED) == 0 ||
			(b & SHEAF_BUSY_BITS) != 0);
		sheaf_slot_settle_cut(sp, v, dead);
		sheaf_slot_requeue(v);
	}
	/*
	 * The dead owner may have died inside a call. Owner only now: its
	 * pending fast counts (b's) go to the counters (after the store:
	 * sheaf_slot_fold()). Release: pairs with a thief's acquire of
	 * busy (sheaf_slot_quiet()), as the owner's exit from a call: the
	 * record cleared and the requests set again before the slot reads
	 * quiet.
	 */
	__atomic_store_n(&v->busy, busy, __ATOMIC_RELEASE);
	SHEAF_KILL("inherit.quiet");
	sheaf_slot_fold(v, b);
	sheaf_slot_claimed_now(v, heir);
	if (dead == 0)
		return true;
	sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_TAKEOVER, 1);
	SHEAF_LOG(INFO, "pool %s: lcore %u slot taken over from dead process %u%s",
		sp->mp->name, sheaf_slot_id(sp, v),
		sheaf_proc_pid(dead), busy == SHEAF_BUSY_HEIR ?
		" to be emptied" : "");
	return true;
}

void
sheaf_slot_disown(struct sheaf_slot *v)
{
	/* The heir's own word since it inherited: no fast counts. */
	__atomic_store_n(&v->busy, 0, __ATOMIC_RELAXED);
	/* Relaxed: published by the release below; the next owner's mb
	 * counts once its sheaf_slot_claimed_now() names it. */
	__atomic_store_n(&v->mb_inc, 0, __ATOMIC_RELAXED);
	/* Release: the next claimer's acquire sees the emptied slot. */
	__atomic_store_n(&v->owner, 0, __ATOMIC_RELEASE);
}

bool
sheaf_slot_claim(struct sheaf_pool *sp, struct sheaf_slot *lc)
{
	/*
	 * Acquire: pairs with the release of owner by the claim's CAS
	 * below (of another thread of this process) or an heir's
	 * (sheaf_slot_inherit()): a slot this process holds is seen as its
	 * claimer left it. Other values are a hint: the CAS acquires again.
	 */
	uint64_t o = __atomic_load_n(&lc->owner, __ATOMIC_ACQUIRE);
	uint64_t dead;

	if (o == sheaf_self)
		return true;
	/* Unnamed (sheaf_proc.h): the shared tiers only. */
	if (unlikely(sheaf_proc_unnamed()))
		return false;
	if (o == 0) {
		sheaf_slot_claiming(sp, lc);
		/*
		 * Acquire: pairs with sheaf_slot_disown()'s release, a slot
		 * given back starts from its last state. Release: the
		 * claimed bit (sheaf_slot_claiming()'s relaxed RMW) before
		 * the owner word, which an acquire alone would let sink
		 * below it.
		 */
		if (__atomic_compare_exchange_n(&lc->owner, &o, sheaf_self,
				0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			/* Full: as sheaf_slot_inherit()'s, against a thief. */
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			SHEAF_KILL("claim.owned");
			sheaf_slot_claimed_now(lc, sheaf_self);
			return true;
		}
	}
	dead = sheaf_slot_dead_look(lc, SHEAF_LOOK_CLAIM, SHEAF_CLAIM_LOOK_NS);
	return dead != 0 && sheaf_slot_inherit(sp, lc, dead, 0);
}

/*
 * Clear v's mark left by dead thief dead, its transactions undone. One
 * clearer at a time: it takes marker from dead to itself first, so that
 * a second clearer, late, cannot clear the bit of a new thief (who sets
 * it only after taking marker from 0). A clearer dying before marker is
 * 0 leaves it naming a dead process again: the next clearer repeats the
 * steps, each of which may be done twice.
 */
static void
sheaf_slot_clear_dead_mark(struct sheaf_pool *sp, struct sheaf_slot *v,
	uint64_t dead)
{
	if (sheaf_tx_recover_proc(sp, dead) < 0)
		return;
	/*
	 * One clearer at a time (the CAS); the slot is whole again (single
	 * stores, transactions undone).
	 */
	if (!__atomic_compare_exchange_n(&v->marker, &dead, sheaf_self, 0,
			__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	/*
	 * The dead thief's plain stores into the slot are released by
	 * nothing it ran: the kernel's exit orders them before the look
	 * that found it dead, and this fence our reads after that look
	 * (as sheaf_tx_take_over()'s).
	 */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	SHEAF_KILL("mark.clearing");
	/* Release: pairs with the owner's acquire of gate (sheaf_slot_enter_at(),
	 * sheaf_slot_marked_stay()): the slot as the thief left it. */
	__atomic_fetch_and(&v->gate, ~SHEAF_GATE_MARKED, __ATOMIC_RELEASE);
	/* Release: the bit is clear before a new thief can take marker (its
	 * acquire CAS in sheaf_slot_mark()). */
	__atomic_store_n(&v->marker, 0, __ATOMIC_RELEASE);
	SHEAF_LOG(INFO, "pool %s: lcore %u: mark of dead process %u cleared",
		sp->mp->name, sheaf_slot_id(sp, v), sheaf_proc_pid(dead));
}

/* v's thief if it is dead (looked at most every 1 ms per slot). */
static uint64_t
sheaf_slot_dead_marker(struct sheaf_slot *v)
{
	/*
	 * Relaxed: a hint; sheaf_slot_clear_dead_mark()'s CAS from the
	 * dead and its acquire fence order what follows.
	 */
	uint64_t m = __atomic_load_n(&v->marker, __ATOMIC_RELAXED);

	if (m == 0 || m == sheaf_self || !sheaf_slot_may_look(v,
			SHEAF_LOOK_MARKER, SHEAF_RECLAIM_LOOK_NS))
		return 0;
	return sheaf_proc_dead(m) ? m : 0;
}

bool
sheaf_slot_marked_stay(struct sheaf_pool *sp, struct sheaf_slot *lc)
{
	uint64_t dead = sheaf_slot_dead_marker(lc);

	if (dead == 0)
		return false;
	sheaf_slot_clear_dead_mark(sp, lc, dead);
	/*
	 * Acquire: pairs with the release of the mark's bit by its clearer
	 * (sheaf_slot_clear_dead_mark()) or a thief's sheaf_slot_unmark().
	 */
	return !(__atomic_load_n(&lc->gate, __ATOMIC_ACQUIRE) &
		SHEAF_GATE_MARKED);
}

int
sheaf_slot_hold(struct sheaf_pool *sp, struct sheaf_slot **held)
{
	struct sheaf_slot *lc = sheaf_slot_of(sp);

	*held = NULL;
	if (lc == NULL || !sheaf_slot_claim(sp, lc))
		return 0;
	/* Relaxed: our own thread's (a handler's interrupted call) or
	 * an heir's store, before the slot was ours. */
	if (__atomic_load_n(&lc->busy, __ATOMIC_RELAXED) & SHEAF_BUSY_BITS)
		return -EBUSY;
	if ((sheaf_slot_enter(lc) & SHEAF_GATE_MARKED) &&
			!sheaf_slot_marked_stay(sp, lc)) {
		sheaf_slot_leave(lc);
		return 0;
	}
	*held = lc;
	return 0;
}

bool
sheaf_slot_mark(struct sheaf_pool *sp, struct sheaf_slot *v)
{
	uint64_t m = 0, dead;

	/*
	 * Acquire: pairs with the release of marker by the previous thief
	 * (sheaf_slot_unmark()) or the clearer of a dead one's mark
	 * (sheaf_slot_clear_dead_mark()): the slot as they left it.
	 */
	if (!__atomic_compare_exchange_n(&v->marker, &m, sheaf_self, 0,
			__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		dead = sheaf_slot_dead_marker(v);
		if (dead == 0)
			return false;
		sheaf_slot_clear_dead_mark(sp, v, dead);
		m = 0;
		if (!__atomic_compare_exchange_n(&v->marker, &m, sheaf_self, 0,
				__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return false;
	}
	/* Relaxed: the owner's view of it is ordered by the fence. */
	__atomic_fetch_or(&v->gate, SHEAF_GATE_MARKED, __ATOMIC_RELAXED);
	SHEAF_KILL("take.marked");
	return true;
}

void
sheaf_slot_unmark(struct sheaf_slot *v)
{
	/*
	 * Release: the owner's acquire of gate sees the slot as left. The
	 * bit goes first: a new thief can take marker only once it is 0.
	 */
	__atomic_fetch_and(&v->gate, ~SHEAF_GATE_MARKED, __ATOMIC_RELEASE);
	__atomic_store_n(&v->marker, 0, __ATOMIC_RELEASE);
}

bool
sheaf_slot_fence_reaches(const struct sheaf_slot *v, bool *global)
{
	/*
	 * Acquire: pairs with the release that last stored owner
	 * (sheaf_slot_disown()'s store, or the ACQ_REL CAS of a claim,
	 * sheaf_slot_claim(), or of an heir, sheaf_slot_inherit()): mb as
	 * it was when owner changed hands, or later.
	 */
	uint64_t o = __atomic_load_n(&v->owner, __ATOMIC_ACQUIRE);
	/* Acquire, both: pair with the releases in sheaf_slot_claimed_now():
	 * mb as stored by whom mb_inc names, or a later one's. */
	uint64_t inc = __atomic_load_n(&v->mb_inc, __ATOMIC_ACQUIRE);
	uint32_t mb = __atomic_load_n(&v->mb, __ATOMIC_ACQUIRE);

	/* Not o's registration (not stored yet, or a previous owner's), or
	 * changed hands meanwhile: mb may be another owner's. */
	if (inc != o || __atomic_load_n(&v->owner, __ATOMIC_RELAXED) != o)
		return false;
	if (o == sheaf_self) {
		*global = false;
		return (mb & SHEAF_MB_PRIVATE) != 0;
	}
	*global = true;
	return o != 0 && !(o & SHEAF_INC_HEIR) && (mb & SHEAF_MB_GLOBAL);
}

int
sheaf_slot_fence(struct sheaf_pool *sp, bool global)
{
	uint64_t now = sheaf_clock_ns();
	uint64_t after = __atomic_load_n(&sp->membarrier_after,
		__ATOMIC_RELAXED);
	uint32_t reg;

	if (now < after)
		return -EAGAIN;
	/* Relaxed: a rate limit; the CAS elects one thief per interval. */
	if (!__atomic_compare_exchange_n(&sp->membarrier_after, &after,
			now + sp->tun.membarrier_ns, 0, __ATOMIC_RELAXED,
			__ATOMIC_RELAXED))
		return -EAGAIN;
	if (sheaf_proc_membarrier(global) < 0)
		return -ENOTSUP;
	/*
	 * The global command reaches registered processes only: where ours
	 * is not, our own marked slots (private registration, else none is
	 * marked: sheaf_slot_fence_reaches()) need the private one too.
	 */
	reg = sheaf_proc_mb_registered();
	if (global && !(reg & SHEAF_MB_GLOBAL) && (reg & SHEAF_MB_PRIVATE) &&
			sheaf_proc_membarrier(false) < 0)
		return -ENOTSUP;
	/*
	 * A full fence of our own too: the system call orders our mark
	 * before our later loads (the kernel's barriers), but the C11
	 * argument of the handshake, against an owner's or a claimer's
	 * seq_cst fence (sheaf_slot_claim(), sheaf_slot_inherit()), needs
	 * one on this side; it costs nothing next to the call.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_MEMBARRIER, 1);
	SHEAF_KILL("take.fenced");
	return 0;
}

/*
 * The owner's objects and events counted so far: its counters and the
 * fast counts pending in its busy word, by object. Every call of the
 * owner adds to one or the other, and a fold moves a count from the
 * word to a counter without changing the sum (the call folding adds
 * its own): the sum only grows between two resets of the counters.
 * Until 2026-12-06 the word was added as it stands, its fields shifted,
 * so that a fold lowered the sum and calls after it could bring it back
 * to a value a thief had seen (a busy lcore taken for idle). Racy
 * reads, a hint: a fold between the reads of the word and the counters
 * counts its objects twice or not at all, a change either way.
 */
static uint64_t
sheaf_slot_activity(const struct sheaf_slot *v)
{
	uint64_t b = __atomic_load_n(&v->busy, __ATOMIC_RELAXED);
	uint64_t sum = sheaf_busy_count(b, RTE_SHEAF_STAT_ALLOC_FAST) +
		sheaf_busy_count(b, RTE_SHEAF_STAT_FREE_FAST);
	unsigned int k;

	for (k = 0; k < RTE_SHEAF_STAT_MAX; k++)
		sum += __atomic_load_n(&v->stat[k], __ATOMIC_RELAXED);
	return sum;
}

bool
sheaf_slot_idle(const struct sheaf_pool *sp, struct sheaf_slot *v)
{
	uint64_t act = sheaf_slot_activity(v), seen, now;

	/*
	 * Acquire: pairs with the release below of the thief that saw this
	 * activity first: its time of it, or a later one, is read next.
	 */
	if (act != __atomic_load_n(&v->seen_activity, __ATOMIC_ACQUIRE)) {
		/*
		 * The time first, never moved back (a thief whose clock read
		 * is older than another's), then the activity it dates.
		 * Until 2026-12-06 the two were stored the other way round,
		 * and the clock read once per poll: a second thief could
		 * pair the new activity with an old time and take a busy
		 * lcore for idle.
		 */
		now = sheaf_clock_ns();
		seen = __atomic_load_n(&v->seen_ns, __ATOMIC_RELAXED);
		while (seen < now && !__atomic_compare_exchange_n(&v->seen_ns,
				&seen, now, 0, __ATOMIC_RELAXED,
				__ATOMIC_RELAXED))
			;
		/*
		 * Not seen inside a call at the new activity yet. Stored
		 * only over a note: the line is the one requesters poll.
		 */
		if (__atomic_load_n(&v->inside_ns, __ATOMIC_RELAXED) != 0)
			__atomic_store_n(&v->inside_ns, 0, __ATOMIC_RELAXED);
		/* Release: pairs with the acquire above (and
		 * sheaf_slot_stuck()'s): the time and the note before it. */
		__atomic_store_n(&v->seen_activity, act, __ATOMIC_RELEASE);
		return false;
	}
	return sheaf_slot_unchanged_for(v, sheaf_clock_ns(), sp->tun.idle_ns);
}

bool
sheaf_slot_stuck(const struct sheaf_pool *sp, const struct sheaf_slot *v,
	uint64_t now)
{
	uint64_t seen, inside;

	if (sheaf_slot_quiet(v))
		return false;
	/*
	 * Acquire: pairs with sheaf_slot_idle()'s release; the time read
	 * next was noted at that activity, or is a later note (or 0). The
	 * activity last: it reads the owner's counters, lines it writes.
	 * Until 2026-12-06 the time was that of the activity's first look
	 * (seen_ns): an lcore idle since a look, entering a call and
	 * preempted there, was stuck at once.
	 */
	seen = __atomic_load_n(&v->seen_activity, __ATOMIC_ACQUIRE);
	inside = __atomic_load_n(&v->inside_ns, __ATOMIC_RELAXED);
	return inside != 0 && now >= inside &&
		now - inside >= SHEAF_STUCK_IDLES / 2 * sp->tun.idle_ns &&
		sheaf_slot_activity(v) == seen;
}

void
sheaf_slot_note_inside(struct sheaf_slot *v)
{
	uint64_t none = 0;

	/* Relaxed: a hint; the first note stands (compare-and-swap). */
	__atomic_compare_exchange_n(&v->inside_ns, &none, sheaf_clock_ns(), 0,
		__ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

bool
sheaf_slot_unchanged_for(const struct sheaf_slot *v, uint64_t now,
	uint64_t ns)
{
	uint64_t seen = __atomic_load_n(&v->seen_ns, __ATOMIC_RELAXED);

	/* A thief's clock later than now: changed since (and no wrap). */
	return now >= seen && now - seen >= ns;
}
