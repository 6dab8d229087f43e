/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Asking lcores, and serving those that cannot answer: see sheaf_ask.h.
 */

#include <errno.h>
#include <string.h>

#include "sheaf_ask.h"

void
sheaf_ask_start(struct sheaf_ask *a, struct sheaf_pool *sp,
	const struct sheaf_slot_set *want, unsigned int kind, uint32_t amount,
	sheaf_ask_act_t act, void *arg)
{
	a->sp = sp;
	a->kind = kind;
	a->act = act;
	a->arg = arg;
	memset(&a->no_take, 0, sizeof(a->no_take));
	a->moved = 0;
	a->remote = 0;
	a->polls = a->idle = a->fenced = a->busy = a->again = 0;
	sheaf_ask_restart(a, want, amount);
}

void
sheaf_ask_restart(struct sheaf_ask *a, const struct sheaf_slot_set *want,
	uint32_t amount)
{
	struct sheaf_pool *sp = a->sp;
	unsigned int i, w, n = 0;
	uint64_t b;

	a->amount = amount;
	a->pending = *want;
	SHEAF_SLOT_SET_FOREACH(i, &a->pending, w, b) {
		a->gen[i] = a->kind == SHEAF_REQ_GIVE ?
			sheaf_slot_request_give(&sp->slot[i], amount) :
			sheaf_slot_request(&sp->slot[i], a->kind);
		n++;
	}
	if (n != 0)
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_ASK, n);
}

/*
 * Serve v's requests of the asker's kind, v held by the asker (a thief or
 * an heir): every one made before the action begins, acknowledged once it
 * is done (sheaf_slot_requested()). The gate bit stays for the owner,
 * whose next call serves again, an empty slot by then.
 */
static void
sheaf_ask_serve(struct sheaf_ask *a, struct sheaf_slot *v)
{
	uint32_t gen = sheaf_slot_requested(v, a->kind);

	a->moved += a->act(a->sp, v, a->arg);
	a->remote++;
	sheaf_slot_served(v, a->kind, gen);
}

/*
 * v, whose owner is dead or who has none: inherit, serve, give back. The
 * mark first: a thief that took it while the owner lived may be serving
 * the slot still (or have died doing it: recovered).
 */
static void
sheaf_ask_heir(struct sheaf_ask *a, struct sheaf_slot *v, uint64_t dead)
{
	if (!sheaf_slot_mark(a->sp, v))
		return;
	if (sheaf_slot_inherit(a->sp, v, dead, SHEAF_BUSY_HEIR)) {
		sheaf_ask_serve(a, v);
		SHEAF_KILL("heir.served");
		sheaf_slot_disown(v);
	}
	sheaf_slot_unmark(v);
}

/*
 * Look at pending slot i: served, dead or ownerless, or idle (marked for
 * a remote serve, added to marked). Returns false when no longer pending.
 */
static bool
sheaf_ask_look(struct sheaf_ask *a, unsigned int i,
	struct sheaf_slot_set *marked, bool *global)
{
	struct sheaf_slot *v = &a->sp->slot[i];
	uint64_t owner, dead;
	bool g;

	if (sheaf_slot_is_served(v, a->kind, a->gen[i]))
		return false;
	owner = __atomic_load_n(&v->owner, __ATOMIC_RELAXED);
	dead = owner == 0 ? 0 : sheaf_slot_dead_owner(v);
	if (owner == 0 || dead != 0) {
		/*
		 * The incarnation found dead, not the first read: the owner
		 * may have changed between them, and recovery rolls back
		 * the transactions of whom it is given.
		 */
		sheaf_ask_heir(a, v, dead);
		return !sheaf_slot_is_served(v, a->kind, a->gen[i]);
	}
	if ((owner & SHEAF_INC_HEIR) || sheaf_slot_set_has(&a->no_take, i) ||
			!sheaf_slot_idle(a->sp, v))
		return true;
	a->idle++;
	if (!sheaf_slot_fence_reaches(v, &g)) {
		/* Its owner will serve the request when it calls again. */
		sheaf_slot_set_add(&a->no_take, i);
		return true;
	}
	/*
	 * Seen inside a call already (its activity unchanged: preempted,
	 * stopped, or dead where no look could tell): a fence would only
	 * show it there again. Until 2026-12-06 such an owner was marked
	 * and fenced at every poll, one membarrier() an interval for as
	 * long as a wait lasted.
	 */
	if (!sheaf_slot_quiet(v)) {
		sheaf_slot_note_inside(v);
		a->busy++;
		return true;
	}
	if (sheaf_slot_mark(a->sp, v)) {
		a->marked_owner[i] = owner;
		sheaf_slot_set_add(marked, i);
		*global |= g;
	}
	return true;
}

/* Serve the marked slots whose owners the fence shows outside a call. */
static void
sheaf_ask_take(struct sheaf_ask *a, const struct sheaf_slot_set *marked,
	bool global)
{
	int r = sheaf_slot_fence(a->sp, global);
	struct sheaf_slot *v;
	unsigned int i, w;
	uint64_t b;

	a->fenced += r == 0;
	a->again += r == -EAGAIN;
	SHEAF_SLOT_SET_FOREACH(i, marked, w, b) {
		v = &a->sp->slot[i];
		/*
		 * The owner the fence was chosen for, still (acquire: pairs
		 * with the release of a new owner's CAS, sheaf_slot_inherit()):
		 * one that took the slot meanwhile (its owner found dead
		 * late) may be out of the fence's reach, and its full fence
		 * after its CAS makes it see the mark only if this read
		 * misses it.
		 */
		if (r == 0 && __atomic_load_n(&v->owner, __ATOMIC_ACQUIRE) ==
				a->marked_owner[i] && sheaf_slot_quiet(v)) {
			sheaf_ask_serve(a, v);
			SHEAF_KILL("take.served");
			sheaf_slot_set_del(&a->pending, i);
		} else if (r == -ENOTSUP) {
			sheaf_slot_set_add(&a->no_take, i);
		} else if (r == 0) {
			a->busy++;
		}
		sheaf_slot_unmark(v);
	}
}

unsigned int
sheaf_ask_served(struct sheaf_ask *a)
{
	unsigned int i, w, left = 0;
	uint64_t b;

	SHEAF_SLOT_SET_FOREACH(i, &a->pending, w, b) {
		if (sheaf_slot_is_served(&a->sp->slot[i], a->kind, a->gen[i]))
			sheaf_slot_set_del(&a->pending, i);
		else
			left++;
	}
	return left;
}

bool
sheaf_ask_unreachable(const struct sheaf_ask *a, uint64_t now,
	uint64_t idle_ns)
{
	unsigned int i, w;
	uint64_t b;

	SHEAF_SLOT_SET_FOREACH(i, &a->pending, w, b)
		if (!sheaf_slot_set_has(&a->no_take, i) ||
				!sheaf_slot_unchanged_for(&a->sp->slot[i], now,
					idle_ns))
			return false;
	return true;
}

unsigned int
sheaf_ask_poll(struct sheaf_ask *a)
{
	struct sheaf_slot_set marked = { { 0 } };
	uint64_t b;
	unsigned int i, w, left = 0;
	bool global = false;

	a->polls++;
	SHEAF_SLOT_SET_FOREACH(i, &a->pending, w, b)
		if (!sheaf_ask_look(a, i, &marked, &global))
			sheaf_slot_set_del(&a->pending, i);
	if (!sheaf_slot_set_empty(&marked))
		sheaf_ask_take(a, &marked, global);
	for (w = 0; w < RTE_DIM(a->pending.bits); w++)
		left += (unsigned int)__builtin_popcountll(a->pending.bits[w]);
	return left;
}

int
sheaf_ask_hold_own(struct sheaf_pool *sp, struct sheaf_slot **held,
	uint64_t deadline)
{
	struct sheaf_slot *self = sheaf_slot_of(sp);
	unsigned int polls = 0;
	int ret;

	while ((ret = sheaf_slot_hold(sp, held)) == 0 && *held == NULL &&
			self != NULL && sheaf_slot_ours(self)) {
		if (sheaf_clock_ns() >= deadline)
			return -ETIMEDOUT;
		sheaf_wait_pause(polls++);
	}
	return ret;
}
