/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Sheaves lent by prefill: borrowers, the oversize list, the recovery of
 * dead borrowers' sheaves. See sheaf_lend.h.
 */

#include <rte_malloc.h>

#include "sheaf_barn.h"
#include "sheaf_lend.h"
#include "sheaf_slab.h"

/* Reclaim looks for dead borrowers at most this often per pool. */
#define SHEAF_LEND_LOOK_NS 10000000u
/* Oversize sheaves taken back per pass over the list. */
#define SHEAF_LEND_BATCH 16
/* Borrowers one recovery pass looks at, at most (its stack's table). */
#define SHEAF_LEND_LOOK_MAX 64

/* Borrowers looked at in one pass, and whether each is dead. */
struct sheaf_lend_look {
	uint64_t inc[SHEAF_LEND_LOOK_MAX];
	bool dead[SHEAF_LEND_LOOK_MAX];
	unsigned int n;
};

/* Where this pass noted h, l->n when it has not looked at h. */
static unsigned int
sheaf_lend_look_at(const struct sheaf_lend_look *l, uint64_t h)
{
	unsigned int i;

	for (i = 0; i < l->n && l->inc[i] != h; i++)
		;
	return i;
}

/* Whether h was found dead in this pass (no look: under a lock). */
static bool
sheaf_lend_known_dead(const struct sheaf_lend_look *l, uint64_t h)
{
	unsigned int i = sheaf_lend_look_at(l, h);

	return i < l->n && l->dead[i];
}

/*
 * Whether borrower h is dead; then its transactions are undone (it may
 * have died inside the one that took a sheaf or gave it back: the sheaf
 * is then where it was, and its holder says so). Not under a lock.
 */
static bool
sheaf_lend_dead(struct sheaf_pool *sp, struct sheaf_lend_look *l, uint64_t h)
{
	unsigned int i = sheaf_lend_look_at(l, h);
	bool dead;

	if (i < l->n)
		return l->dead[i];
	/* Not settled (a handler): looked at as alive, for now. */
	dead = sheaf_proc_dead(h) && sheaf_tx_recover_proc(sp, h) == 0;
	/* Past the table's room: looked again (recovery is idempotent). */
	if (l->n < RTE_DIM(l->inc)) {
		l->inc[l->n] = h;
		l->dead[l->n++] = dead;
	}
	return dead;
}

/*
 * Take what owner word *w names dead process h the holder of, h's
 * transactions undone: true if the caller now holds it (another
 * recoverer may have been first, or an undone transaction cleared it).
 */
static bool
sheaf_lend_claim(uint64_t *w, uint64_t h)
{
	/*
	 * Relaxed: the word's last store is the dead holder's, no release
	 * to pair with. The fence: the dead holder's plain stores (a
	 * sheaf's size and objs[], a park record's) are ordered before its
	 * death is seen through /proc by the kernel's exit path, as for a
	 * dead transaction's journal (sheaf_tx.h).
	 */
	if (!__atomic_compare_exchange_n(w, &h, sheaf_self, 0,
			__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return false;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return true;
}

/*
 * A dead borrower's load record (struct sheaf's loading): objects that
 * left their tiers for s and were not counted in its size, which is
 * still the record's load_from, are lost (sheaf_stat_record_lost()).
 */
static void
sheaf_lend_settle(struct sheaf_pool *sp, struct sheaf *s, uint64_t h)
{
	uint32_t n = sheaf_stat_record_lost(&s->loading,
		__atomic_load_n(&s->size, __ATOMIC_RELAXED) ==
		__atomic_load_n(&s->load_from, __ATOMIC_RELAXED));

	/* Logged before counted (sheaf_stat_record_lost()). */
	if (n != 0)
		SHEAF_LOG(CRIT, "pool %s: prefill sheaf of dead process %u: %u objects out of their tiers and not yet in the sheaf (a load, a grow) lost (RTE_SHEAF_STAT_LOST)",
			sp->mp->name, sheaf_proc_pid(h), n);
	sheaf_stat_settle_record(sp, &s->loading, n);
}

void
sheaf_lend_adopted(struct sheaf_pool *sp, struct sheaf *s, uint64_t h)
{
	/* The dead borrower's plain stores: as in sheaf_lend_claim(). */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	sheaf_lend_settle(sp, s, h);
}

/* Take sheaf s from its dead borrower h: see sheaf_lend_claim(). */
static bool
sheaf_lend_take(struct sheaf_pool *sp, struct sheaf *s, uint64_t h)
{
	if (!sheaf_lend_claim(&s->holder, h))
		return false;
	SHEAF_KILL("lend.claimed");
	/*
	 * Its handles die with it: refused if anyone kept a copy. A copy
	 * whose check passed before this store cannot take the sheaf over:
	 * holder is ours, not lent_by, and once the sheaf is lent again
	 * live is not the copy's (sheaf_prefill_hold()), unless that copy
	 * is used while its own lend ends (two users of one handle: the
	 * caller's bug, design.md).
	 */
	__atomic_store_n(&s->live, 0, __ATOMIC_RELAXED);
	sheaf_lend_settle(sp, s, h);
	return true;
}

void
sheaf_lend_note_word(uint64_t *w)
{
	/* Relaxed: a hint for sheaf_lend_recover(), sticky once many. */
	uint64_t o = __atomic_load_n(w, __ATOMIC_RELAXED);

	if (o == sheaf_self || o == UINT64_MAX)
		return;
	if (o == 0 && __atomic_compare_exchange_n(w, &o, sheaf_self,
			0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	if (o != sheaf_self)
		__atomic_store_n(w, UINT64_MAX, __ATOMIC_RELAXED);
}

/* Whether a process other than the caller's is noted in hint word *w. */
static bool
sheaf_lend_noted_other(const uint64_t *w)
{
	/* Relaxed: see sheaf_lend_note_word(). */
	uint64_t o = __atomic_load_n(w, __ATOMIC_RELAXED);

	return o != 0 && o != sheaf_self;
}

/* In a transaction on barn 0: s off the list at head, counted by nb. */
static void
sheaf_lend_unlink(struct sheaf_tx *tx, struct sheaf **head, uint32_t *nb,
	struct sheaf *s)
{
	struct sheaf **pp = head;

	while (*pp != s) {
		RTE_VERIFY(*pp != NULL);
		pp = &(*pp)->next;
	}
	sheaf_tx_storep(tx, pp, s->next);
	sheaf_tx_store32(tx, nb, *nb - 1);
}

/* In a transaction on barn 0: s onto the list at head. */
static void
sheaf_lend_link(struct sheaf_tx *tx, struct sheaf **head, uint32_t *nb,
	struct sheaf *s)
{
	sheaf_tx_storep(tx, &s->next, *head);
	sheaf_tx_storep(tx, head, s);
	sheaf_tx_store32(tx, nb, *nb + 1);
}

void
sheaf_lend_register(struct sheaf_pool *sp, struct sheaf *s)
{
	struct sheaf_tx tx;

	sheaf_lend_note(sp);
	RTE_VERIFY(sheaf_barn_begin(&tx, sp, 0, SHEAF_TX_lend_list,
		false) == 0);
	sheaf_lend_link(&tx, &sp->lent_list, &sp->nb_lent_list, s);
	sheaf_tx_store64(&tx, &s->holder, sheaf_self);
	sheaf_tx_end(&tx);
}

struct sheaf *
sheaf_lend_reuse(struct sheaf_pool *sp, unsigned int n)
{
	struct sheaf *s, *best = NULL;
	struct sheaf_tx tx;

	/* Relaxed: a hint; the list is read under the lock. */
	if (__atomic_load_n(&sp->nb_idle_list, __ATOMIC_RELAXED) == 0)
		return NULL;
	sheaf_lend_note(sp);
	RTE_VERIFY(sheaf_barn_begin(&tx, sp, 0, SHEAF_TX_lend_list,
		false) == 0);
	/* The smallest that fits. */
	for (s = sp->idle_list; s != NULL; s = s->next)
		if (s->capacity >= n &&
				(best == NULL || s->capacity < best->capacity))
			best = s;
	if (best != NULL) {
		sheaf_lend_unlink(&tx, &sp->idle_list, &sp->nb_idle_list, best);
		sheaf_lend_link(&tx, &sp->lent_list, &sp->nb_lent_list, best);
		sheaf_tx_store64(&tx, &best->holder, sheaf_self);
	}
	sheaf_tx_end(&tx);
	return best;
}

void
sheaf_lend_retire(struct sheaf_pool *sp, struct sheaf *s)
{
	struct sheaf_tx tx;

	RTE_VERIFY(sheaf_barn_begin(&tx, sp, 0, SHEAF_TX_lend_list,
		false) == 0);
	sheaf_lend_unlink(&tx, &sp->lent_list, &sp->nb_lent_list, s);
	sheaf_tx_store64(&tx, &s->holder, 0);
	sheaf_lend_link(&tx, &sp->idle_list, &sp->nb_idle_list, s);
	sheaf_tx_end(&tx);
}

void
sheaf_lend_release(struct sheaf_pool *sp)
{
	struct sheaf *s, *next;

	for (s = sp->lent_list; s != NULL; s = next) {
		next = s->next;
		rte_free(s);
	}
	for (s = sp->idle_list; s != NULL; s = next) {
		next = s->next;
		rte_free(s);
	}
	sp->lent_list = sp->idle_list = NULL;
	sp->nb_lent_list = sp->nb_idle_list = 0;
}

/* Dead borrowers' arena sheaves back on barn b, whole. */
static unsigned int
sheaf_lend_recover_arena(struct sheaf_pool *sp, uint32_t b,
	struct sheaf_lend_look *l, unsigned int *sheaves)
{
	unsigned int n = 0;
	struct sheaf_tx tx;
	struct sheaf *s;
	uint32_t i;

	uint64_t h;

	for (i = 0; i < sp->nb_sheaves; i++) {
		s = sheaf_at(sp, i);
		/* Relaxed: a hint; the CAS decides. */
		h = __atomic_load_n(&s->holder, __ATOMIC_RELAXED);
		if (h == 0 || h == sheaf_self || !sheaf_lend_dead(sp, l, h) ||
				!sheaf_lend_take(sp, s, h))
			continue;
		n += s->size;
		(*sheaves)++;
		/*
		 * Ours now (holder is the caller): a death from here leaves it
		 * to the next recoverer. The stack may pass its limit.
		 */
		RTE_VERIFY(sheaf_barn_begin(&tx, sp, b, SHEAF_TX_lend_recover,
			false) == 0);
		sheaf_barn_push(&tx, b, i);
		sheaf_lend_drop(&tx, s);
		sheaf_tx_end(&tx);
	}
	return n;
}

/*
 * Under the list's lock (a listed sheaf is not freed meanwhile: its
 * borrower takes it off the list first): the borrowers of listed sheaves
 * other than the caller's that l has not looked at, at most max.
 */
static unsigned int
sheaf_lend_list_holders(const struct sheaf_pool *sp,
	const struct sheaf_lend_look *l, uint64_t *inc, unsigned int max)
{
	const struct sheaf *s;
	unsigned int n = 0, i;

	uint64_t h;

	for (s = sp->lent_list; s != NULL && n < max; s = s->next) {
		/* Once: another process's take-over CASes it (no lock). */
		h = __atomic_load_n(&s->holder, __ATOMIC_RELAXED);
		if (h == 0 || h == sheaf_self || sheaf_lend_look_at(l, h) < l->n)
			continue;
		for (i = 0; i < n && inc[i] != h; i++)
			;
		if (i == n)
			inc[n++] = h;
	}
	return n;
}

/*
 * Dead borrowers' oversize sheaves: their objects to the slabs. Looks
 * whether the borrowers are dead between two passes under the lock: the
 * look and the recovery of their transactions take no lock meanwhile.
 */
static unsigned int
sheaf_lend_recover_list(struct sheaf_pool *sp, struct sheaf_lend_look *l,
	unsigned int *sheaves, unsigned int *bad)
{
	struct sheaf *got[SHEAF_LEND_BATCH], *s;
	unsigned int k = 0, i, nb, n = 0;
	uint64_t inc[8], h;
	struct sheaf_tx tx;
	bool any = false;

	if (__atomic_load_n(&sp->nb_lent_list, __ATOMIC_RELAXED) == 0)
		return 0;
	/*
	 * The borrowers not looked at yet, a batch at a time, while l has
	 * room: live ones listed first do not hide a dead one behind them
	 * (until 2026-12-05 only the first eight borrowers were looked at).
	 */
	do {
		RTE_VERIFY(sheaf_barn_begin(&tx, sp, 0, SHEAF_TX_lend_list,
			false) == 0);
		nb = sheaf_lend_list_holders(sp, l, inc,
			RTE_MIN(RTE_DIM(inc), RTE_DIM(l->inc) - l->n));
		sheaf_tx_end(&tx);
		for (i = 0; i < nb; i++)
			any |= sheaf_lend_dead(sp, l, inc[i]);
	} while (nb != 0 && l->n < RTE_DIM(l->inc));
	/* Those found dead before, by the arena's pass, too. */
	for (i = 0; i < l->n; i++)
		any |= l->dead[i];
	if (!any)
		return 0;
	RTE_VERIFY(sheaf_barn_begin(&tx, sp, 0, SHEAF_TX_lend_list,
		false) == 0);
	for (s = sp->lent_list; s != NULL && k < SHEAF_LEND_BATCH; s = s->next) {
		/*
		 * Read once: a take-over may CAS it meanwhile (no lock), and
		 * the claim's CAS must expect the incarnation found dead.
		 */
		h = __atomic_load_n(&s->holder, __ATOMIC_RELAXED);
		if (sheaf_lend_known_dead(l, h) && sheaf_lend_take(sp, s, h))
			got[k++] = s;
	}
	sheaf_tx_end(&tx);
	for (i = 0; i < k; i++) {
		s = got[i];
		n += sheaf_barn_transit_flush(sp, s, bad);
		sheaf_lend_retire(sp, s);
	}
	*sheaves += k;
	return n;
}

unsigned int
sheaf_park_drain(struct sheaf_pool *sp, struct sheaf_park *r,
	unsigned int *bad)
{
	unsigned int n;

	/*
	 * The caller holds the record and no lock: each depot transaction
	 * waits for its lock, none fails, so the record empties.
	 */
	n = sheaf_depot_flush_counted(sp, r->objs, &r->n, SHEAF_TX_unpark,
		bad);
	SHEAF_KILL("park.emptied");
	/*
	 * Release: pairs with the next claimer's acquire (sheaf_park_claim(),
	 * sheaf_shared.c);
	 * the count's last store, 0, before. A record not emptied stays held.
	 */
	if (__atomic_load_n(&r->n, __ATOMIC_RELAXED) == 0)
		__atomic_store_n(&r->owner, 0, __ATOMIC_RELEASE);
	return n;
}

/*
 * Park records of dead processes (sheaf_shared.h): their objects to the
 * slabs, the record freed. A recoverer that dies meanwhile holds the
 * record (noted as a parker first), recovered in turn.
 */
static unsigned int
sheaf_lend_recover_park(struct sheaf_pool *sp, struct sheaf_lend_look *l,
	unsigned int *recs, unsigned int *bad)
{
	struct sheaf_park *r;
	unsigned int n = 0;
	uint32_t i;
	uint64_t h;

	for (i = 0; i < SHEAF_PARK_RECS; i++) {
		r = &sp->park[i];
		/* Relaxed: a hint; the CAS decides. */
		h = __atomic_load_n(&r->owner, __ATOMIC_RELAXED);
		if (h == 0 || h == sheaf_self || !sheaf_lend_dead(sp, l, h))
			continue;
		sheaf_lend_note_word(&sp->parker);
		if (!sheaf_lend_claim(&r->owner, h))
			continue;
		n += sheaf_park_drain(sp, r, bad);
		(*recs)++;
	}
	return n;
}

unsigned int
sheaf_lend_recover(struct sheaf_pool *sp, uint32_t b, bool force)
{
	struct sheaf_lend_look l = { .n = 0 };
	unsigned int sheaves = 0, recs = 0, bad = 0, n = 0, np = 0;
	bool lend = sheaf_lend_noted_other(&sp->lender);
	bool park = sheaf_lend_noted_other(&sp->parker);
	uint64_t now, after;

	/* A signal handler whose thread holds a lock would wait forever. */
	if ((!lend && !park) || sheaf_thread_self()->nb_held != 0)
		return 0;
	if (!force) {
		now = sheaf_clock_ns();
		/* Relaxed: the CAS elects one looker, it orders nothing. */
		after = __atomic_load_n(&sp->lend_look_after, __ATOMIC_RELAXED);
		if (now < after || !__atomic_compare_exchange_n(
				&sp->lend_look_after, &after,
				now + SHEAF_LEND_LOOK_NS, 0, __ATOMIC_RELAXED,
				__ATOMIC_RELAXED))
			return 0;
	}
	if (lend) {
		n = sheaf_lend_recover_arena(sp, b, &l, &sheaves);
		n += sheaf_lend_recover_list(sp, &l, &sheaves, &bad);
	}
	if (park)
		np = sheaf_lend_recover_park(sp, &l, &recs, &bad);
	if (bad != 0)
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_FREE_INVALID, bad);
	if (sheaves != 0) {
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_RECOVER, sheaves);
		SHEAF_LOG(NOTICE, "pool %s: %u objects taken back from %u prefill sheaves of dead processes",
			sp->mp->name, n, sheaves);
	}
	if (recs != 0) {
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_RECOVER, recs);
		SHEAF_LOG(NOTICE, "pool %s: %u objects taken back from %u park records of dead processes",
			sp->mp->name, np, recs);
	}
	return n + np;
}

uint32_t
sheaf_lend_count(const struct sheaf_pool *sp)
{
	uint32_t i, n;

	/* Relaxed: a count, exact when nobody borrows or returns. */
	n = __atomic_load_n(&sp->nb_lent_list, __ATOMIC_RELAXED);
	for (i = 0; i < sp->nb_sheaves; i++)
		n += __atomic_load_n(&sheaf_at(sp, i)->holder,
			__ATOMIC_RELAXED) != 0;
	return n;
}
