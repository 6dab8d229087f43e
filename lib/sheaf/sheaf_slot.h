/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_SLOT_H_
#define _SHEAF_SLOT_H_

/*
 * The slot protocol: who may touch an lcore slot's sheaves, and how other
 * threads ask for them or take them. The only place it is written.
 *
 * Ownership. A slot belongs to the process that first calls the pool on
 * its lcore id (owner: an incarnation, set by compare-and-swap). A call
 * from another process on the same lcore id uses the shared tiers. A slot
 * whose owner is dead is inherited: by the next process on that lcore id
 * (to use it), or by a thief (to empty it and free it); either first rolls
 * back the dead process's open transactions (sheaf_tx_recover_proc()),
 * after which the slot is whole: the owner changes it with single stores
 * only (sheaf_pair.h).
 *
 * Calls. The owner's thread sets busy's call bit (SHEAF_BUSY_CALL) on
 * entry and loads gate, and stores busy without it, with a release, on
 * exit; "outside a call" is (busy & SHEAF_BUSY_BITS) == 0 (the bits
 * above count the fast path's objects, sheaf_pvt.h). gate carries what
 * other threads want:
 *   - requests (SHEAF_GATE_DRAIN, _GIVE, _STAMP): a requester counts its
 *     request in the slot (req, getting a generation), then sets the
 *     kind's gate bit with a release. The owner, at its next call,
 *     clears the bit (acquire), reads req, serves, and stores that
 *     value in done with a release: the acknowledgement. A requester
 *     is served once done reaches its generation: the serve began after
 *     its request was seen, so a drain covers every object held then,
 *     a give the amount asked (below). A request needs no setter:
 *     serving one nobody waits for any more costs one drain, or give.
 *     A thief or heir serving the slot reads req, serves (a drain, for
 *     a give too),
 *     then stores done, and leaves the bit: a server that dies before
 *     its acknowledgement gives none, the bit still asks the owner. An
 *     owner that died after clearing the bit, before its
 *     acknowledgement, left req ahead of done: the slot's heir sets the
 *     bit again (sheaf_slot_requeue()).
 *   - the mark (SHEAF_GATE_MARKED, with marker = the thief's
 *     incarnation): a thief holds the slot; the owner stays off its
 *     sheaves (shared path) until the mark goes. A mark whose thief died
 *     is cleared by whoever finds it, after rolling back the thief's
 *     transactions: one clearer at a time, who first takes marker from
 *     the dead to itself (sheaf_slot.c).
 *
 * Taking from a live owner (sheaf_slot_mark() + sheaf_slot_fence() +
 * sheaf_slot_quiet()) is an asymmetric Dekker handshake:
 *   owner: busy = b | CALL;  [signal fence]  g = gate;  (acquire)
 *   thief: gate |= MARKED;  membarrier();  b = busy;     (acquire)
 * membarrier() runs a full barrier on every CPU running a thread of the
 * target processes, so either the owner sees the mark or the thief sees
 * the call bit. Once busy's call bits read 0 after the fence, the owner
 * is outside and every
 * later entry sees the mark: the slot is the thief's until unmarked. The
 * owner's release of busy pairs with the thief's acquire load; the
 * thief's release when it clears the mark (sheaf_slot_unmark()) pairs
 * with the owner's acquire load of gate: the slot as the thief left it.
 * Setting the mark is relaxed: the fence orders it.
 * The fence is paid by thieves only, at most once per pool per
 * membarrier interval, and only for owners idle for a while: a calling
 * owner is asked, never taken from.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_lcore.h>

#include "sheaf_proc.h"
#include "sheaf_pvt.h"

static __rte_always_inline struct sheaf_slot *
sheaf_slot_of(struct sheaf_pool *sp)
{
	unsigned int id = rte_lcore_id();

	return id < RTE_MAX_LCORE ? &sp->slot[id] : NULL;
}

/*
 * Whether the fast path may enter lc: ours, not inside a call, its busy
 * word's fields short of full. *b: the busy word, for
 * sheaf_slot_enter_at() and sheaf_slot_leave_at(). The gate is looked at
 * once, by sheaf_slot_enter_at() (a look here too cost a load and an OR
 * a call: local sheaf:0 1% slower, five pairs).
 */
static __rte_always_inline bool
sheaf_slot_fast_ok(const struct sheaf_slot *lc, uint64_t *b)
{
	/* Relaxed: other threads write owner; a stale value sends the
	 * call out of line. busy: the owner's own word (or a dead
	 * owner's heir's, before the slot was ours).
	 */
	if (lc == NULL ||
			__atomic_load_n(&lc->owner, __ATOMIC_RELAXED) != sheaf_self)
		return false;
	*b = __atomic_load_n(&lc->busy, __ATOMIC_RELAXED);
	return (*b & (SHEAF_BUSY_BITS | SHEAF_BUSY_FULL)) == 0;
}

/*
 * The owner enters its slot: busy (b, its busy word outside a call, with
 * SHEAF_BUSY_CALL), then a look at the gate (the owner's half of the
 * handshake above). Returns the gate: non-zero means the call must go
 * out of line (sheaf_slot_leave_at(lc, b) first).
 */
static __rte_always_inline uint32_t
sheaf_slot_enter_at(struct sheaf_slot *lc, uint64_t b)
{
	/*
	 * Relaxed: a thief reads it, after its membarrier(), which orders
	 * this store before the load of gate below (see below).
	 */
	__atomic_store_n(&lc->busy, b | SHEAF_BUSY_CALL, __ATOMIC_RELAXED);
	/*
	 * Against a signal handler on this thread, a compiler barrier.
	 * Against a thief, the store above and the load below are ordered
	 * by its membarrier(). Acquire pairs with the thief's release of
	 * the mark: the slot as the thief left it.
	 */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(&lc->gate, __ATOMIC_ACQUIRE);
}

/*
 * The owner leaves its slot: b, its busy word outside the call (the
 * fast path's objects added).
 */
static __rte_always_inline void
sheaf_slot_leave_at(struct sheaf_slot *lc, uint64_t b)
{
	/* Release: pairs with a thief's acquire of busy (sheaf_slot_quiet()). */
	__atomic_store_n(&lc->busy, b, __ATOMIC_RELEASE);
}

/*
 * Add the fast counts of b, a busy word whose holder has just stored it
 * without them (the owner's thread, or the heir of a dead owner), to the
 * counters. In that order: a death in between loses them (as a death
 * inside a fast call loses its own), never counts them twice, and a
 * signal handler that interrupts after the store finds the call bit set
 * (its call goes out of line without folding). Release: pairs with
 * the acquire of sheaf_stats_reset_slot() (sheaf_stats.c); a reset
 * that reads the new count reads busy without the fields. A handler's
 * call that interrupts the owner's
 * between its load of busy and its store may have its fast counts lost
 * or a fold counted twice: counters only.
 */
static inline void
sheaf_slot_fold(struct sheaf_slot *lc, uint64_t b)
{
	uint64_t gets = sheaf_busy_count(b, RTE_SHEAF_STAT_ALLOC_FAST);
	uint64_t puts = sheaf_busy_count(b, RTE_SHEAF_STAT_FREE_FAST);

	/* None pending: no store (each store may overwrite a reset). */
	if (gets != 0)
		sheaf_slot_stat_add_order(lc, RTE_SHEAF_STAT_ALLOC_FAST, gets,
			__ATOMIC_RELEASE);
	if (puts != 0)
		sheaf_slot_stat_add_order(lc, RTE_SHEAF_STAT_FREE_FAST, puts,
			__ATOMIC_RELEASE);
}

/*
 * A call of lc's owner other than the fast path's (an entry out of line,
 * a slow get or put): the record of a refill the dry look failed no
 * longer holds (sheaf_lcore_dry_calls()). A pool without DPDK's cache
 * records none: no store (dcache is on the line the call has read).
 */
static inline void
sheaf_slot_dry_forget(struct sheaf_slot *lc)
{
	if (lc->dcache != NULL)
		lc->dry_refill_calls = UINT64_MAX;
}

/*
 * An entry out of line (sheaf_slot_hold()): as sheaf_slot_enter_at(),
 * the pending fast counts left out of the word stored, then folded into
 * the counters. Leave with sheaf_slot_leave().
 */
static inline uint32_t
sheaf_slot_enter(struct sheaf_slot *lc)
{
	/* Relaxed: our own word (sheaf_slot_fast_ok()). */
	uint64_t b = __atomic_load_n(&lc->busy, __ATOMIC_RELAXED);
	uint32_t g = sheaf_slot_enter_at(lc, b & SHEAF_BUSY_BITS);

	sheaf_slot_dry_forget(lc);
	sheaf_slot_fold(lc, b);
	return g;
}

/* The owner leaves its slot, entered by sheaf_slot_enter(). */
static inline void
sheaf_slot_leave(struct sheaf_slot *lc)
{
	sheaf_slot_leave_at(lc, __atomic_load_n(&lc->busy, __ATOMIC_RELAXED) &
		~(uint64_t)SHEAF_BUSY_CALL);
}

/*
 * Whether this process owns v now (a relaxed read: exact for the owner's
 * own thread, a hint for any other; an heir's slot is not "ours").
 */
static inline bool
sheaf_slot_ours(const struct sheaf_slot *v)
{
	return __atomic_load_n(&v->owner, __ATOMIC_RELAXED) == sheaf_self;
}

/* Whether a request may wait at lc's gate (relaxed: a hint; taking it
 * is the acquire, sheaf_slot_take_request()). */
static inline bool
sheaf_slot_requests_hint(const struct sheaf_slot *lc)
{
	return (__atomic_load_n(&lc->gate, __ATOMIC_RELAXED) &
		SHEAF_GATE_REQUESTS) != 0;
}

/*
 * A new pool's slot: validate mode, when the pool validates, is a fixed
 * bit of the gate (every call goes out of line). Before the pool is
 * published: plain.
 */
static inline void
sheaf_slot_init_gate(struct sheaf_slot *lc, bool validate)
{
	lc->gate = validate ? SHEAF_GATE_VALIDATE : 0;
}

/*
 * Whether this process owns lc, claiming it when unclaimed and inheriting
 * it when its owner is dead (looked at most every 10 ms per slot, by all
 * processes together).
 */
bool sheaf_slot_claim(struct sheaf_pool *sp, struct sheaf_slot *lc);

/*
 * Hold the caller's own slot for an out-of-line call. Returns 0 with *lc
 * the slot, entered (busy), or NULL when the caller has no slot of this
 * process or a live thief holds it (go without); -EBUSY when a signal
 * handler interrupted a call on it (the slot is that call's).
 */
int sheaf_slot_hold(struct sheaf_pool *sp, struct sheaf_slot **lc);

/*
 * After sheaf_slot_enter() returned a gate with the mark: whether the
 * caller may stay (the thief was dead: its mark is cleared), or must
 * leave (a live thief).
 */
bool sheaf_slot_marked_stay(struct sheaf_pool *sp, struct sheaf_slot *lc);

/* Request kinds, and their gate bits. */
#define SHEAF_REQ_DRAIN 0 /* give every sheaf back */
#define SHEAF_REQ_STAMP 1 /* stamp the deferred sheaf */
#define SHEAF_REQ_GIVE 2  /* give back some objects (want) */

static inline uint32_t
sheaf_req_bit(unsigned int kind)
{
	return kind == SHEAF_REQ_DRAIN ? SHEAF_GATE_DRAIN :
		kind == SHEAF_REQ_STAMP ? SHEAF_GATE_STAMP : SHEAF_GATE_GIVE;
}

/*
 * Ask v's holder to give back n objects (SHEAF_REQ_GIVE): its generation.
 * The amount goes into want first (raised by CAS, relaxed), then the
 * count (release: pairs with the owner's acquire of the count in
 * sheaf_slot_take_request(); every increment is a read-modify-write, so
 * a count read at or past gen carries this CAS along), then the bit. A
 * serve that covers gen takes want after it reads the count: it reads
 * this amount or a larger one, unless an earlier serve (covering older
 * generations) took the amount already and gave it: then 0, served as
 * nothing more, or a smaller amount raised since, served as asked; a
 * requester still short asks again (sheaf_reclaim()). No joining:
 * a serve covering a joined generation might have taken want before this
 * amount was raised.
 */
static inline uint32_t
sheaf_slot_request_give(struct sheaf_slot *v, uint32_t n)
{
	uint32_t cur = __atomic_load_n(&v->want, __ATOMIC_RELAXED), gen;

	while (cur < n && !__atomic_compare_exchange_n(&v->want, &cur, n,
			true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	gen = __atomic_add_fetch(&v->req[SHEAF_REQ_GIVE], 1,
		__ATOMIC_RELEASE);
	/*
	 * Release: the owner that sees the bit sees the count; pairs with
	 * its acquire fetch_and of the bit (sheaf_slot_take_request()).
	 */
	__atomic_fetch_or(&v->gate, SHEAF_GATE_GIVE, __ATOMIC_RELEASE);
	return gen;
}

/*
 * The owner, serving a give request it took: the objects asked for (0:
 * an earlier serve took and gave them; UINT32_MAX: all it can spare,
 * the request of a dead owner's, sheaf_slot_requeue()). The amounts are
 * ordered by the count: each requester raises want before its release
 * of req[GIVE], which the owner's acquire of the count
 * (sheaf_slot_take_request()) reads. Relaxed: that acquire orders it
 * (the raise is relaxed: no pair of its own).
 */
static inline uint32_t
sheaf_slot_take_want(struct sheaf_slot *lc)
{
	return __atomic_exchange_n(&lc->want, 0, __ATOMIC_RELAXED);
}

/*
 * Ask v's holder to serve a request of kind: its generation. The count,
 * then the bit. An owner whose take of the bit reads this bit reads this
 * count or a later one; one that took an earlier bit before this one was
 * set finds this bit at its next call. No joining of a request made and
 * not served: a joiner that saw another requester's count may not see
 * its bit, and the owner's take may then read an older count (no total
 * order without a read-modify-write of its own); and a requester that
 * died between its count and its bit would leave the joiner unserved.
 */
static inline uint32_t
sheaf_slot_request(struct sheaf_slot *v, unsigned int kind)
{
	/* Relaxed: published by the release of the bit below. */
	uint32_t gen = __atomic_add_fetch(&v->req[kind], 1, __ATOMIC_RELAXED);

	/*
	 * Release: the owner that sees the bit sees the count; pairs with
	 * its acquire fetch_and of the bit (sheaf_slot_take_request()).
	 */
	__atomic_fetch_or(&v->gate, sheaf_req_bit(kind), __ATOMIC_RELEASE);
	return gen;
}

/*
 * The owner of lc, inside its call, takes the requests of kind at the
 * gate: false when there is none, else true with *gen the generation its
 * serve covers, to be passed to sheaf_slot_served() once done. Every
 * value is a generation, 0 included: the counts wrap.
 */
static inline bool
sheaf_slot_take_request(struct sheaf_slot *lc, unsigned int kind,
	uint32_t *gen)
{
	uint32_t bit = sheaf_req_bit(kind);

	/* Acquire: pairs with the requester's release of the bit. */
	if (!(__atomic_fetch_and(&lc->gate, ~bit, __ATOMIC_ACQUIRE) & bit))
		return false;
	/*
	 * Acquire: pairs with sheaf_slot_request_give()'s release of the
	 * count (a give's amounts before it). The other kinds' counts are
	 * relaxed adds, published by the bit's release that the take above
	 * acquired.
	 */
	*gen = __atomic_load_n(&lc->req[kind], __ATOMIC_ACQUIRE);
	return true;
}

/*
 * A thief or heir holding v: the generation its serve of kind will cover,
 * read before it serves, whatever the gate says. It leaves the bit to the
 * owner (clearing it could drop a request made meanwhile) and
 * acknowledges (sheaf_slot_served()) once the serve is done: one that dies
 * before has acknowledged nothing, and the bit sends the requests on.
 */
static inline uint32_t
sheaf_slot_requested(const struct sheaf_slot *v, unsigned int kind)
{
	/* Relaxed: the count names a generation and publishes nothing. */
	return __atomic_load_n(&v->req[kind], __ATOMIC_RELAXED);
}

/* The holder served the requests of kind up to generation gen. */
static inline void
sheaf_slot_served(struct sheaf_slot *lc, unsigned int kind, uint32_t gen)
{
	/*
	 * Release: a requester seeing it sees what was done; pairs with
	 * sheaf_slot_is_served()'s acquire.
	 */
	__atomic_store_n(&lc->done[kind], gen, __ATOMIC_RELEASE);
}

/* Whether v's request of generation gen is served. */
static inline bool
sheaf_slot_is_served(const struct sheaf_slot *v, unsigned int kind,
	uint32_t gen)
{
	/* Acquire: pairs with sheaf_slot_served(). */
	return (int32_t)(__atomic_load_n(&v->done[kind], __ATOMIC_ACQUIRE) -
		gen) >= 0;
}

/*
 * Take v's mark for a remote take: true when taken. A mark whose thief
 * is dead is recovered and taken.
 */
bool sheaf_slot_mark(struct sheaf_pool *sp, struct sheaf_slot *v);
void sheaf_slot_unmark(struct sheaf_slot *v);

/*
 * The thief's fence, after marking: one membarrier() for every marked
 * slot (global when one belongs to another process). At most one per pool
 * per membarrier interval, counted in RTE_SHEAF_STAT_MEMBARRIER. 0, or
 * -EAGAIN (interval not over) or -ENOTSUP (not available).
 */
int sheaf_slot_fence(struct sheaf_pool *sp, bool global);

/*
 * After the fence: whether v's owner is outside a call (then the slot is
 * the thief's until unmarked).
 */
static inline bool
sheaf_slot_quiet(const struct sheaf_slot *v)
{
	/* Acquire: pairs with sheaf_slot_leave_at(). */
	return (__atomic_load_n(&v->busy, __ATOMIC_ACQUIRE) &
		SHEAF_BUSY_BITS) == 0;
}

/*
 * Whether a fence from this process reaches v's owner: the private one
 * for our own slots, the global one for a registered other process.
 * *global tells which.
 */
bool sheaf_slot_fence_reaches(const struct sheaf_slot *v, bool *global);

/*
 * Whether v's owner made no call for the pool's idle time. Racy, a hint:
 * the handshake, not this, makes a remote take safe.
 */
bool sheaf_slot_idle(const struct sheaf_pool *sp, struct sheaf_slot *v);

/*
 * Whether v's owner is stuck inside a call (SHEAF_STUCK_IDLES): inside
 * one now, at the activity thieves' looks last saw, and seen inside at it
 * (sheaf_slot_note_inside()) half the stuck time before now or earlier.
 * Racy, a hint.
 */
bool sheaf_slot_stuck(const struct sheaf_pool *sp, const struct sheaf_slot *v,
	uint64_t now);

/*
 * A thief's look found v's owner idle (sheaf_slot_idle()) and inside a
 * call: the time it was first seen so, unless noted already.
 */
void sheaf_slot_note_inside(struct sheaf_slot *v);

/*
 * Whether v's owner's activity, as thieves' looks last saw it change
 * (sheaf_slot_idle()), has not changed for ns before now. Racy, a hint.
 */
bool sheaf_slot_unchanged_for(const struct sheaf_slot *v, uint64_t now,
	uint64_t ns);

/*
 * v's owner if it is a dead process (looked at most every 1 ms per
 * slot, by all processes together), else 0.
 */
uint64_t sheaf_slot_dead_owner(struct sheaf_slot *v);

/*
 * Inherit v from its dead owner dead (recovering dead's transactions):
 * true when v is now the caller's, busy set to busy (SHEAF_BUSY_HEIR for
 * a thief that empties it, 0 for the lcore's own thread).
 */
bool sheaf_slot_inherit(struct sheaf_pool *sp, struct sheaf_slot *v,
	uint64_t dead, uint32_t busy);

/* A thief gives back a slot it inherited and emptied: unclaimed again. */
void sheaf_slot_disown(struct sheaf_slot *v);

/* Whether v was ever claimed (racy): slots to look at. */
static inline bool
sheaf_slot_claimed(const struct sheaf_pool *sp, unsigned int i)
{
	return (__atomic_load_n(&sp->claimed[i / 64], __ATOMIC_RELAXED) >>
		(i % 64)) & 1;
}

/* Index of slot v. */
static inline unsigned int
sheaf_slot_id(const struct sheaf_pool *sp, const struct sheaf_slot *v)
{
	return (unsigned int)(v - sp->slot);
}

/* A set of slots by index. */
struct sheaf_slot_set {
	uint64_t bits[(RTE_MAX_LCORE + 63) / 64];
};

static inline void
sheaf_slot_set_add(struct sheaf_slot_set *s, unsigned int i)
{
	s->bits[i / 64] |= UINT64_C(1) << (i % 64);
}

static inline void
sheaf_slot_set_del(struct sheaf_slot_set *s, unsigned int i)
{
	s->bits[i / 64] &= ~(UINT64_C(1) << (i % 64));
}

static inline bool
sheaf_slot_set_has(const struct sheaf_slot_set *s, unsigned int i)
{
	return (s->bits[i / 64] >> (i % 64)) & 1;
}

/* For each slot i of set s, lowest first; w and b: the caller's. */
#define SHEAF_SLOT_SET_FOREACH(i, s, w, b) \
	for ((w) = 0; (w) < RTE_DIM((s)->bits); (w)++) \
		for ((b) = (s)->bits[(w)]; (b) != 0 && \
				((i) = (w) * 64 + (unsigned int)__builtin_ctzll(b), 1); \
				(b) &= (b) - 1)

/* The slots ever claimed (racy, as sheaf_slot_claimed()). */
static inline void
sheaf_slot_claimed_set(const struct sheaf_pool *sp, struct sheaf_slot_set *s)
{
	unsigned int k;

	RTE_BUILD_BUG_ON(sizeof(s->bits) != sizeof(sp->claimed));
	for (k = 0; k < RTE_DIM(s->bits); k++)
		s->bits[k] = __atomic_load_n(&sp->claimed[k],
			__ATOMIC_RELAXED);
}

static inline bool
sheaf_slot_set_empty(const struct sheaf_slot_set *s)
{
	unsigned int k;

	for (k = 0; k < RTE_DIM(s->bits); k++)
		if (s->bits[k] != 0)
			return false;
	return true;
}

#endif /* _SHEAF_SLOT_H_ */
