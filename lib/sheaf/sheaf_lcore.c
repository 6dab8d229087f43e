/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Lcore sheaves: SLUB's struct slub_percpu_sheaves, one slot per lcore id.
 *
 * The slow paths climb a ladder, cheapest rung first, one stat per rung:
 *   get: swap with the spare -> trade the empty main for a full sheaf in
 *        the barn -> refill main from the slabs -> other sockets' barns;
 *   put: swap with the spare -> trade the full main for an empty sheaf in
 *        the barn (while under its limit) -> flush main to the slabs.
 * The spare is always empty or full: it changes only by swapping with a
 * main that has just run empty (get) or full (put).
 *
 * Re-entrance. The owner marks what it is doing in lc->busy: its sheaves,
 * a barn ring operation, or a slab depot lock. A signal handler calling
 * the pool on the same thread sees the mark and takes the shared path,
 * avoiding what the interrupted code holds: it skips the barn rings when
 * interrupted inside a ring operation (an MP/MC ring would wait for the
 * interrupted thread forever) and the slabs when interrupted under a
 * depot lock. A free in that last case parks the objects in the lcore's
 * stash (SHEAF_STASH_OBJS), then in barn sheaves; the owner empties the
 * stash at its next slow path. Nesting deeper than one handler is not
 * supported.
 */

#include <string.h>

#include <rte_errno.h>
#include <rte_pause.h>

#include "sheaf_barn.h"
#include "sheaf_lcore.h"
#include "sheaf_slab.h"

void
sheaf_lcore_init(struct sheaf_pool *sp)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		struct sheaf_lcore *lc = &sp->lcore[i];
		unsigned int socket = rte_lcore_to_socket_id(i);

		lc->main = sheaf_arena_get(sp, 2 * i);
		lc->spare = sheaf_arena_get(sp, 2 * i + 1);
		lc->barn = socket < sp->nb_barns ? socket : 0;
	}
}

static inline void
sheaf_busy_set(struct sheaf_lcore *lc, uint32_t bit)
{
	lc->busy |= bit;
	/* Same-thread ordering only (signal handlers): no fence needed. */
	rte_compiler_barrier();
}

static inline void
sheaf_busy_clear(struct sheaf_lcore *lc, uint32_t bit)
{
	rte_compiler_barrier();
	lc->busy &= ~bit;
}

static inline void
sheaf_stat_shared(struct sheaf_pool *sp, enum rte_sheaf_stat id, uint64_t v)
{
	/* Shared by all threads without a slot: a relaxed counter. */
	__atomic_fetch_add(&sp->shared_stat[id], v, __ATOMIC_RELAXED);
}

/* Free objects to the slabs from the owner, under the depot mark. */
static void
sheaf_lcore_slab_free(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void * const *objs, unsigned int n)
{
	unsigned int bad;

	sheaf_busy_set(lc, SHEAF_BUSY_DEPOT);
	bad = sheaf_slab_free_bulk(sp, objs, n);
	sheaf_busy_clear(lc, SHEAF_BUSY_DEPOT);
	lc->stat[RTE_SHEAF_STAT_FREE_INVALID] += bad;
}

/* Move the stash out before freeing it: a handler may refill it. */
static unsigned int
sheaf_lcore_take_stash(struct sheaf_lcore *lc, void **tmp)
{
	unsigned int k = lc->nb_stash;

	memcpy(tmp, lc->stash, k * sizeof(void *));
	rte_compiler_barrier();
	lc->nb_stash = 0;
	return k;
}

unsigned int
sheaf_lcore_flush(struct sheaf_pool *sp, struct sheaf_lcore *lc)
{
	void *tmp[SHEAF_STASH_OBJS];
	unsigned int k, n;

	k = sheaf_lcore_take_stash(lc, tmp);
	n = lc->main->size + lc->spare->size + k;
	sheaf_lcore_slab_free(sp, lc, lc->main->objs, lc->main->size);
	lc->main->size = 0;
	sheaf_lcore_slab_free(sp, lc, lc->spare->objs, lc->spare->size);
	lc->spare->size = 0;
	sheaf_lcore_slab_free(sp, lc, tmp, k);
	lc->stat[RTE_SHEAF_STAT_FLUSH_OTHER] += n;
	return n;
}

/* Requests the owner honours at its slow paths. */
static void
sheaf_lcore_service(struct sheaf_pool *sp, struct sheaf_lcore *lc)
{
	void *tmp[SHEAF_STASH_OBJS];
	unsigned int k;

	/* Acquire pairs with the requester's release store. */
	if (unlikely(__atomic_load_n(&lc->flush_req, __ATOMIC_ACQUIRE))) {
		sheaf_lcore_flush(sp, lc);
		/* Release: a requester seeing 0 sees the sheaves emptied. */
		__atomic_store_n(&lc->flush_req, 0, __ATOMIC_RELEASE);
	} else if (unlikely(lc->nb_stash != 0)) {
		k = sheaf_lcore_take_stash(lc, tmp);
		sheaf_lcore_slab_free(sp, lc, tmp, k);
	}
}

static struct sheaf *
sheaf_lcore_barn_replace_empty(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	uint32_t b, struct sheaf *empty)
{
	struct sheaf *full;

	sheaf_busy_set(lc, SHEAF_BUSY_BARN);
	full = sheaf_barn_replace_empty(sp, b, empty);
	sheaf_busy_clear(lc, SHEAF_BUSY_BARN);
	return full;
}

/* Give main objects, cheapest rung first. Returns 0 when none are left. */
static unsigned int
sheaf_lcore_refill_main(struct sheaf_pool *sp, struct sheaf_lcore *lc)
{
	struct sheaf *m = lc->main, *full;
	uint32_t i;

	if (lc->spare->size != 0) {
		lc->main = lc->spare;
		lc->spare = m;
		lc->stat[RTE_SHEAF_STAT_SWAP]++;
		return lc->main->size;
	}
	full = sheaf_lcore_barn_replace_empty(sp, lc, lc->barn, m);
	if (full != NULL) {
		lc->main = full;
		lc->stat[RTE_SHEAF_STAT_BARN_GET]++;
		return full->size;
	}
	lc->stat[RTE_SHEAF_STAT_BARN_GET_FAIL]++;

	sheaf_busy_set(lc, SHEAF_BUSY_DEPOT);
	m->size = sheaf_slab_alloc_bulk(sp, lc->barn, m->objs, m->capacity);
	sheaf_busy_clear(lc, SHEAF_BUSY_DEPOT);
	if (m->size != 0) {
		lc->stat[RTE_SHEAF_STAT_REFILL] += m->size;
		return m->size;
	}

	/* Last resort, off-socket: full sheaves in other barns. */
	for (i = 1; i < sp->nb_barns; i++) {
		full = sheaf_lcore_barn_replace_empty(sp, lc,
			(lc->barn + i) % sp->nb_barns, m);
		if (full != NULL) {
			lc->main = full;
			lc->stat[RTE_SHEAF_STAT_BARN_GET]++;
			return full->size;
		}
	}
	return 0;
}

/* Make room in a full main, cheapest rung first. */
static void
sheaf_lcore_spill_main(struct sheaf_pool *sp, struct sheaf_lcore *lc)
{
	struct sheaf *m = lc->main, *empty;

	if (lc->spare->size == 0) {
		lc->main = lc->spare;
		lc->spare = m;
		lc->stat[RTE_SHEAF_STAT_SWAP]++;
		return;
	}
	sheaf_busy_set(lc, SHEAF_BUSY_BARN);
	empty = sheaf_barn_replace_full(sp, lc->barn, m);
	sheaf_busy_clear(lc, SHEAF_BUSY_BARN);
	if (empty != NULL) {
		lc->main = empty;
		lc->stat[RTE_SHEAF_STAT_BARN_PUT]++;
		return;
	}
	lc->stat[RTE_SHEAF_STAT_BARN_PUT_FAIL]++;
	lc->stat[RTE_SHEAF_STAT_FLUSH_MAIN] += m->size;
	sheaf_lcore_slab_free(sp, lc, m->objs, m->size);
	m->size = 0;
}

static void
sheaf_lcore_put_ladder(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void * const *objs, unsigned int n)
{
	unsigned int done = 0, t;
	struct sheaf *m;

	for (;;) {
		m = lc->main;
		t = RTE_MIN(m->capacity - m->size, n - done);
		memcpy(&m->objs[m->size], objs + done, t * sizeof(void *));
		m->size += t;
		done += t;
		if (done == n)
			return;
		sheaf_lcore_spill_main(sp, lc);
	}
}

void
sheaf_lcore_put_slow(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void * const *objs, unsigned int n)
{
	sheaf_lcore_service(sp, lc);
	sheaf_lcore_put_ladder(sp, lc, objs, n);
	lc->stat[RTE_SHEAF_STAT_FREE_SLOW] += n;
}

int
sheaf_lcore_get_slow(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void **objs, unsigned int n)
{
	unsigned int got = 0, t;
	struct sheaf *m;

	sheaf_lcore_service(sp, lc);
	do {
		m = lc->main;
		t = RTE_MIN(m->size, n - got);
		m->size -= t;
		memcpy(objs + got, &m->objs[m->size], t * sizeof(void *));
		got += t;
		if (got == n) {
			lc->stat[RTE_SHEAF_STAT_ALLOC_SLOW] += n;
			return 0;
		}
	} while (sheaf_lcore_refill_main(sp, lc) != 0);

	/* All or nothing: what was taken goes back. */
	sheaf_lcore_put_ladder(sp, lc, objs, got);
	lc->stat[RTE_SHEAF_STAT_ALLOC_FAIL]++;
	return -ENOBUFS;
}

/* Home barn of a thread without a slot: its socket, if it has one. */
static uint32_t
sheaf_shared_home(const struct sheaf_pool *sp, const struct sheaf_lcore *lc)
{
	unsigned int socket;

	if (lc != NULL)
		return lc->barn;
	socket = rte_socket_id();
	return socket < sp->nb_barns ? socket : 0;
}

/* Take objects out of barn full sheaves, returning what is left over. */
static unsigned int
sheaf_shared_take_barns(struct sheaf_pool *sp, uint32_t home, void **objs,
	unsigned int n)
{
	unsigned int got = 0, t;
	uint32_t i, b;
	struct sheaf *s;

	for (i = 0; i < sp->nb_barns && got < n; i++) {
		b = (home + i) % sp->nb_barns;
		while (got < n && (s = sheaf_barn_get_full(sp, b)) != NULL) {
			t = RTE_MIN(s->size, n - got);
			s->size -= t;
			memcpy(objs + got, &s->objs[s->size], t * sizeof(void *));
			got += t;
			if (s->size != 0)
				sheaf_barn_put_full(sp, b, s);
			else
				sheaf_barn_put_empty(sp, b, s);
		}
	}
	return got;
}

/* A populating lcore is not re-entered; its frees just skip its sheaves. */
static inline int
sheaf_shared_is_reentry(const struct sheaf_lcore *lc)
{
	return lc != NULL && lc->busy != SHEAF_BUSY_POPULATE;
}

int
sheaf_shared_get(struct sheaf_pool *sp, struct sheaf_lcore *lc, void **objs,
	unsigned int n)
{
	uint32_t busy = lc != NULL ? lc->busy : 0;
	uint32_t home = sheaf_shared_home(sp, lc);
	unsigned int got = 0;

	if (sheaf_shared_is_reentry(lc))
		sheaf_stat_shared(sp, RTE_SHEAF_STAT_REENTRANT, 1);
	if (!(busy & SHEAF_BUSY_DEPOT))
		got = sheaf_slab_alloc_bulk(sp, home, objs, n);
	if (got < n && !(busy & SHEAF_BUSY_BARN))
		got += sheaf_shared_take_barns(sp, home, objs + got, n - got);
	if (got == n) {
		sheaf_stat_shared(sp, RTE_SHEAF_STAT_ALLOC_SLOW, n);
		return 0;
	}
	sheaf_shared_put(sp, lc, objs, got);
	sheaf_stat_shared(sp, RTE_SHEAF_STAT_ALLOC_FAIL, 1);
	return -ENOBUFS;
}

/*
 * A free re-entered under this lcore's depot lock: the slabs are out of
 * reach. Park in the stash, then in empty barn sheaves; with neither,
 * wait for another lcore to return an empty sheaf to the barn.
 */
static void
sheaf_shared_park(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void * const *objs, unsigned int n)
{
	struct sheaf *e;
	unsigned int t;

	while (n > 0) {
		t = RTE_MIN(SHEAF_STASH_OBJS - lc->nb_stash, n);
		if (t != 0) {
			memcpy(&lc->stash[lc->nb_stash], objs, t * sizeof(void *));
			lc->nb_stash += t;
		} else {
			e = sheaf_barn_get_empty(sp, lc->barn);
			if (e == NULL) {
				rte_pause();
				continue;
			}
			t = RTE_MIN(e->capacity, n);
			memcpy(e->objs, objs, t * sizeof(void *));
			e->size = t;
			sheaf_barn_put_full(sp, lc->barn, e);
		}
		objs += t;
		n -= t;
	}
}

void
sheaf_shared_put(struct sheaf_pool *sp, struct sheaf_lcore *lc,
	void * const *objs, unsigned int n)
{
	unsigned int bad;

	if (unlikely(__atomic_load_n(&sp->populating, __ATOMIC_RELAXED) != NULL &&
			sp->populate_tid == rte_gettid())) {
		sheaf_slab_record(sp, objs, n);
		return;
	}
	if (sheaf_shared_is_reentry(lc))
		sheaf_stat_shared(sp, RTE_SHEAF_STAT_REENTRANT, 1);
	if (lc != NULL && (lc->busy & SHEAF_BUSY_DEPOT)) {
		sheaf_shared_park(sp, lc, objs, n);
		sheaf_stat_shared(sp, RTE_SHEAF_STAT_FREE_SLOW, n);
		return;
	}
	bad = sheaf_slab_free_bulk(sp, objs, n);
	sheaf_stat_shared(sp, RTE_SHEAF_STAT_FREE_SLOW, n - bad);
	if (bad != 0)
		sheaf_stat_shared(sp, RTE_SHEAF_STAT_FREE_INVALID, bad);
}

uint32_t
sheaf_lcore_count(const struct sheaf_pool *sp, uint32_t *nb_lcores)
{
	uint32_t i, n = 0, nl = 0;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct sheaf_lcore *lc = &sp->lcore[i];
		const struct sheaf *m, *s;
		uint32_t v;

		/* Racy, not critical: a swap in flight may count a sheaf
		 * twice or not at all; exact when the pool is quiet.
		 */
		m = __atomic_load_n(&lc->main, __ATOMIC_RELAXED);
		s = __atomic_load_n(&lc->spare, __ATOMIC_RELAXED);
		v = __atomic_load_n(&m->size, __ATOMIC_RELAXED) +
			__atomic_load_n(&s->size, __ATOMIC_RELAXED) +
			__atomic_load_n(&lc->nb_stash, __ATOMIC_RELAXED);
		if (v != 0)
			nl++;
		n += v;
	}
	if (nb_lcores != NULL)
		*nb_lcores = nl;
	return n;
}
