/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Slabs: the pool's memory, holding the objects no sheaf holds.
 *
 * As in SLUB, every object has a home slab found from its address alone;
 * freeing returns it there. A slab is a run of at most SHEAF_SLAB_OBJS
 * objects at a constant stride, so one 64-bit mask says which are free:
 * no free-list is threaded through object memory, which stays untouched
 * (the mempool autotest checks that object contents survive put/get), and
 * a double free into a slab is seen as an already-set bit.
 *
 * Populate records where DPDK's helper lays the objects (through the
 * object callback, not the ops), cuts runs where the distance between
 * objects changes (page boundaries; each slab has its own stride, that of
 * its first two objects) or the slab is full, and keeps the slabs sorted
 * by address for a binary search on free.
 *
 * Each socket has a depot: a lock, and the slabs with free objects in
 * buckets by their objects in use. A take without a slot takes from the
 * fullest partial slab (the most objects in use) first, as SLUB prefers
 * partial slabs, so free slabs stay cold and the objects in use packed;
 * an lcore's refill first from the fullest slab near its home
 * (sheaf_depot_take()), so that each lcore's objects lie apart from the
 * others'. In use, not free:
 * a chunk's last slab is short (a 2 MB page holds 936 objects of 2240
 * bytes: 14 slabs and one of 40), and by free count the short slabs of
 * every page would go first, spreading a fresh pool's first objects over
 * all its pages, and the objects an app keeps cycling with them. Free
 * slabs are taken newest first: at populate, the last slab cut. Every
 * store to a depot or its slabs is a journaled transaction store
 * (sheaf_tx.h).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "sheaf_proc.h"
#include "sheaf_slab.h"
#include "sheaf_slot.h"

int
sheaf_depot_init(struct sheaf_pool *sp)
{
	uint32_t d, k;

	for (d = 0; d < sp->nb_nodes; d++) {
		struct sheaf_depot *dp = &sp->depot[d];
		struct sheaf_undo *ent;

		ent = rte_zmalloc_socket("sheaf_depot_journal",
			SHEAF_TX_MAX * sizeof(*ent), RTE_CACHE_LINE_SIZE,
			sp->mp->socket_id);
		if (ent == NULL)
			return -ENOMEM;
		sheaf_tx_init(&dp->lock, ent);
		dp->nb_free = 0;
		dp->nonempty = 0;
		/*
		 * The deferred fallback queue's room (sheaf_deferred.c), set
		 * before the pool is published, whether or not it is ever
		 * attached: until 2026-12-06 each attacher stored it, while
		 * a racing attacher's deferred frees read it.
		 */
		dp->fb_size = sp->mp->size;
		for (k = 0; k < SHEAF_SLAB_OBJS; k++)
			dp->bucket[k] = SHEAF_SLAB_NONE;
	}
	return 0;
}

static inline struct sheaf_depot *
sheaf_depot_of(struct sheaf_tx *tx, uint32_t d)
{
	RTE_ASSERT(tx->lk == &tx->sp->depot[d].lock);
	return &tx->sp->depot[d];
}

/* Bucket lists, in a transaction: link slab id by its objects in use. */
static void
sheaf_depot_link(struct sheaf_tx *tx, struct sheaf_depot *dp, uint32_t id)
{
	struct sheaf_slab *slabs = tx->sp->slabs, *s = &slabs[id];
	uint32_t k = sheaf_slab_bucket(s), head = dp->bucket[k];

	sheaf_tx_store32(tx, &s->prev, SHEAF_SLAB_NONE);
	sheaf_tx_store32(tx, &s->next, head);
	if (head != SHEAF_SLAB_NONE)
		sheaf_tx_store32(tx, &slabs[head].prev, id);
	sheaf_tx_store32(tx, &dp->bucket[k], id);
	if (!(dp->nonempty & (UINT64_C(1) << k)))
		sheaf_tx_store64(tx, &dp->nonempty,
			dp->nonempty | UINT64_C(1) << k);
}

static void
sheaf_depot_unlink(struct sheaf_tx *tx, struct sheaf_depot *dp, uint32_t id)
{
	struct sheaf_slab *slabs = tx->sp->slabs, *s = &slabs[id];
	uint32_t k = sheaf_slab_bucket(s);

	if (s->prev != SHEAF_SLAB_NONE)
		sheaf_tx_store32(tx, &slabs[s->prev].next, s->next);
	else
		sheaf_tx_store32(tx, &dp->bucket[k], s->next);
	if (s->next != SHEAF_SLAB_NONE)
		sheaf_tx_store32(tx, &slabs[s->next].prev, s->prev);
	if (dp->bucket[k] == SHEAF_SLAB_NONE)
		sheaf_tx_store64(tx, &dp->nonempty,
			dp->nonempty & ~(UINT64_C(1) << k));
}

/* Give slab id a new free mask, in its bucket. */
static void
sheaf_depot_set_mask(struct sheaf_tx *tx, struct sheaf_depot *dp,
	uint32_t id, uint64_t mask)
{
	struct sheaf_slab *s = &tx->sp->slabs[id];

	if (s->nb_free != 0)
		sheaf_depot_unlink(tx, dp, id);
	sheaf_tx_store64(tx, &s->free_mask, mask);
	sheaf_tx_store32(tx, &s->nb_free, __builtin_popcountll(mask));
	if (s->nb_free != 0)
		sheaf_depot_link(tx, dp, id);
}

/*
 * Position in address order (sp->slab_by_addr) of the last slab whose
 * base is at or below a; 0 when none is (nb_slabs > 0).
 */
static uint32_t
sheaf_slab_pos_at(const struct sheaf_pool *sp, uintptr_t a)
{
	uint32_t lo = 0, hi = sp->nb_slabs;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sp->slabs[sp->slab_by_addr[mid]].base <= a)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Take up to n of slab id's free objects, lowest address first. */
static unsigned int
sheaf_depot_take_slab(struct sheaf_tx *tx, struct sheaf_depot *dp,
	uint32_t id, void **objs, unsigned int n)
{
	const struct sheaf_slab *s = &tx->sp->slabs[id];
	uint64_t mask = s->free_mask;
	unsigned int got = 0;

	while (got < n && mask != 0) {
		objs[got++] = (void *)(s->base +
			(uintptr_t)(uint32_t)__builtin_ctzll(mask) * s->stride);
		mask &= mask - 1;
	}
	sheaf_depot_set_mask(tx, dp, id, mask);
	return got;
}

/* Where slot's refills start before it has taken any object. */
static uint32_t
sheaf_slab_home_start(const struct sheaf_pool *sp, uint32_t slot)
{
	uint32_t r = 0, i;

	/* Slot ids bit-reversed: 0, 1, 2, 3 start at 0, 1/2, 1/4, 3/4... */
	for (i = 0; i < 16; i++)
		r |= ((slot >> i) & 1) << (15 - i);
	return (uint32_t)(((uint64_t)r * sp->nb_slabs) >> 16);
}

/*
 * The fullest slab of depot d with a free object within
 * SHEAF_HOME_NEAR positions of *pos in address order (wrapping at the
 * ends), nearest on a tie; SHEAF_SLAB_NONE if none. *pos: that slab's
 * position, unchanged if none.
 */
static uint32_t
sheaf_depot_near(const struct sheaf_pool *sp, uint32_t d, uint32_t *pos)
{
	uint32_t best = SHEAF_SLAB_NONE, best_pos = 0, best_used = 0;
	uint32_t nb = sp->nb_slabs, k, p, id, used;
	int side;

	for (k = 0; k <= SHEAF_HOME_NEAR && k < nb; k++) {
		for (side = 0; side < (k == 0 ? 1 : 2); side++) {
			p = side == 0 ? (*pos + k) % nb : (*pos + nb - k) % nb;
			id = sp->slab_by_addr[p];
			if (sp->slabs[id].depot != d || sp->slabs[id].nb_free == 0)
				continue;
			used = sheaf_slab_bucket(&sp->slabs[id]);
			if (best == SHEAF_SLAB_NONE || used > best_used) {
				best = id;
				best_pos = p;
				best_used = used;
			}
		}
	}
	if (best != SHEAF_SLAB_NONE)
		*pos = best_pos;
	return best;
}

unsigned int
sheaf_depot_take(struct sheaf_tx *tx, uint32_t d, void **objs,
	unsigned int n, struct sheaf_slot *lc)
{
	const struct sheaf_pool *sp = tx->sp;
	struct sheaf_depot *dp = sheaf_depot_of(tx, d);
	unsigned int got = 0;
	uint32_t id, pos = 0, last = SHEAF_SLAB_NONE;

	RTE_ASSERT(n <= SHEAF_TX_OBJS);
	/* Only the home socket's depot: a home is a place in one depot. */
	if (lc != NULL && (d != lc->barn || sp->nb_slabs == 0))
		lc = NULL;
	if (lc != NULL) {
		/* Relaxed: a hint, see struct sheaf_slot. */
		pos = __atomic_load_n(&lc->home, __ATOMIC_RELAXED) - 1;
		if (pos >= sp->nb_slabs)
			pos = sheaf_slab_home_start(sp, lc - sp->slot);
		while (got < n && (id = sheaf_depot_near(sp, d, &pos)) !=
				SHEAF_SLAB_NONE)
			got += sheaf_depot_take_slab(tx, dp, id, objs + got,
				n - got);
	}
	while (got < n && dp->nonempty != 0) {
		/* The highest bucket: the most objects in use. */
		id = dp->bucket[SHEAF_SLAB_OBJS - 1 -
			(uint32_t)__builtin_clzll(dp->nonempty)];
		got += sheaf_depot_take_slab(tx, dp, id, objs + got, n - got);
		last = id;
	}
	if (lc != NULL && last != SHEAF_SLAB_NONE)
		pos = sheaf_slab_pos_at(sp, sp->slabs[last].base);
	if (lc != NULL && got != 0)
		__atomic_store_n(&lc->home, pos + 1, __ATOMIC_RELAXED);
	sheaf_tx_store32(tx, &dp->nb_free, dp->nb_free - got);
	return got;
}

/*
 * Whether the calling thread's call is a signal handler's inside another
 * call of the thread (out of line: depth above 1; or the inline fast
 * path: sheaf_call_handler_begin()): the slabs' refusals are counted by
 * the caller, not logged (rte_log() may reach syslog() and stdio, which
 * the interrupted call may be inside).
 */
static bool
sheaf_slab_quiet(void)
{
	const struct sheaf_thread *t = sheaf_thread_self();

	return t->depth > 1 || t->fast_handler != 0;
}

unsigned int
sheaf_depot_put(struct sheaf_tx *tx, uint32_t d, void * const *objs,
	unsigned int n)
{
	struct sheaf_depot *dp = sheaf_depot_of(tx, d);
	unsigned int i, bad = 0;

	RTE_ASSERT(n <= SHEAF_TX_OBJS);
	for (i = 0; i < n; i++) {
		struct sheaf_slab *s;
		uint64_t bit;
		uint32_t idx;

		s = sheaf_slab_find(tx->sp, objs[i], &idx, NULL);
		RTE_ASSERT(s != NULL && s->depot == d);
		bit = UINT64_C(1) << idx;
		if (s->free_mask & bit) {
			if (!sheaf_slab_quiet())
				SHEAF_LOG(ERR, "pool %s: double free of %p, refused",
					tx->sp->mp->name, objs[i]);
			bad++;
			continue;
		}
		sheaf_depot_set_mask(tx, dp, s - tx->sp->slabs,
			s->free_mask | bit);
	}
	sheaf_tx_store32(tx, &dp->nb_free, dp->nb_free + n - bad);
	return bad;
}

unsigned int
sheaf_slab_depot_run(const struct sheaf_pool *sp, void * const *objs,
	unsigned int n, uint32_t *d)
{
	unsigned int k = 0;
	uint32_t idx, dd;

	while (k < n && k < SHEAF_TX_OBJS) {
		const struct sheaf_slab *s = sheaf_slab_find(sp,
			objs[n - 1 - k], &idx, NULL);

		dd = s != NULL ? s->depot : SHEAF_SLAB_NONE;
		if (k == 0)
			*d = dd;
		else if (dd != *d)
			break;
		k++;
	}
	return k;
}

unsigned int
sheaf_slab_each_run(struct sheaf_pool *sp, void * const *objs, unsigned int n,
	sheaf_slab_run_fn fn, void *arg)
{
	unsigned int run, sum = 0;
	uint32_t d;

	while (n > 0) {
		run = sheaf_slab_depot_run(sp, objs, n, &d);
		n -= run;
		if (d != SHEAF_SLAB_NONE) {
			sum += fn(sp, d, &objs[n], run, arg);
			continue;
		}
		sheaf_slab_log_foreign(sp, &objs[n], run);
		sum += run;
	}
	return sum;
}

unsigned int
sheaf_depot_flush_counted(struct sheaf_pool *sp, void * const *objs,
	uint32_t *size, enum sheaf_tx_kind kind, unsigned int *bad)
{
	unsigned int run, refused, n = 0;
	struct sheaf_tx tx;
	uint32_t d;

	while (*size != 0) {
		run = sheaf_slab_depot_run(sp, objs, *size, &d);
		if (d == SHEAF_SLAB_NONE) {
			sheaf_slab_log_foreign(sp, &objs[*size - run], run);
			*bad += run;
			/* The caller's alone: a single store. */
			__atomic_store_n(size, *size - run, __ATOMIC_RELAXED);
			continue;
		}
		if (sheaf_depot_begin(&tx, sp, d, kind, false) < 0)
			break;
		refused = sheaf_depot_put(&tx, d, &objs[*size - run], run);
		sheaf_tx_store32(&tx, size, *size - run);
		sheaf_tx_end(&tx);
		*bad += refused;
		n += run - refused;
	}
	return n;
}

void
sheaf_slab_log_foreign(const struct sheaf_pool *sp, void * const *objs,
	unsigned int n)
{
	unsigned int i;
	uintptr_t off;
	uint32_t idx;

	if (sheaf_slab_quiet())
		return;
	for (i = 0; i < n; i++) {
		if (sheaf_slab_find(sp, objs[i], &idx, &off) == NULL && off != 0)
			SHEAF_LOG(ERR, "pool %s: %p is misaligned, %zu bytes into object %p, refused",
				sp->mp->name, objs[i], (size_t)off,
				RTE_PTR_SUB(objs[i], off));
		else
			SHEAF_LOG(ERR, "pool %s: %p is not an object of the pool, refused",
				sp->mp->name, objs[i]);
	}
}

struct sheaf_slab *
sheaf_slab_find(const struct sheaf_pool *sp, const void *obj, uint32_t *idx,
	uintptr_t *off)
{
	uintptr_t a = (uintptr_t)obj;
	const struct sheaf_slab *s;
	uintptr_t dist;

	if (off != NULL)
		*off = 0;
	if (sp->nb_slabs == 0)
		return NULL;
	s = &sp->slabs[sp->slab_by_addr[sheaf_slab_pos_at(sp, a)]];
	if (a < s->base)
		return NULL;
	dist = a - s->base;
	if (dist / s->stride >= s->nb_objs)
		return NULL;
	if (dist % s->stride != 0) {
		if (off != NULL)
			*off = dist % s->stride;
		return NULL;
	}
	*idx = dist / s->stride;
	return (struct sheaf_slab *)(uintptr_t)s;
}

/*
 * Objects laid out by the populate in progress, in the order laid, in
 * the chunk at va (iova).
 */
struct sheaf_layout {
	void **obj;
	unsigned int n;
	unsigned int max;
	rte_mempool_populate_obj_cb_t *cb; /* DPDK's callback, replayed */
	void *cb_arg;
	char *va;
	rte_iova_t iova;
};

bool
sheaf_slab_populating(const struct sheaf_pool *sp)
{
	return sheaf_thread_self()->populating == sp;
}

/*
 * The populate helper's object callback: record only. DPDK's own (which
 * adds the object to the pool's list and size) is called for each once
 * the slabs are cut (sheaf_layout_replay()): a populate that fails
 * leaves DPDK counting none of its objects.
 */
static void
sheaf_slab_record(struct rte_mempool *mp, void *arg, void *obj,
	rte_iova_t iova)
{
	struct sheaf_layout *l = arg;

	RTE_SET_USED(mp);
	RTE_SET_USED(iova);
	if (l->n < l->max)
		l->obj[l->n++] = obj;
}

/* DPDK's object callback for each object laid out, as its helper makes
 * it: the object's IOVA at the same offset in the chunk as its address. */
static void
sheaf_layout_replay(struct rte_mempool *mp, const struct sheaf_layout *l)
{
	unsigned int i;

	if (l->cb == NULL)
		return;
	for (i = 0; i < l->n; i++)
		l->cb(mp, l->cb_arg, l->obj[i], l->iova == RTE_BAD_IOVA ?
			RTE_BAD_IOVA :
			l->iova + (rte_iova_t)((char *)l->obj[i] - l->va));
}

/* Depot (socket) of the memory at addr. */
static uint32_t
sheaf_slab_depot_of(const struct sheaf_pool *sp, const void *addr)
{
	const struct rte_memseg *ms = rte_mem_virt2memseg(addr, NULL);
	int socket = ms != NULL ? ms->socket_id : sp->mp->socket_id;

	if (socket < 0 || (uint32_t)socket >= sp->nb_nodes)
		return 0;
	return socket;
}

/*
 * The stride of a slab that starts at object i of l: the distance to the
 * next object, else (the last object, or a next one below) the pool's.
 * Not always the pool's stride: DPDK's helper lets no object straddle a
 * page, so with 4 KiB pages (--no-huge) objects of 2 to 4 KiB (an mbuf's
 * 2368 bytes with its headers on x86) lie one a page, 4096 bytes apart.
 */
static inline uintptr_t
sheaf_layout_stride(const struct sheaf_layout *l, unsigned int i,
	uintptr_t stride)
{
	uintptr_t a, b;

	if (i + 1 >= l->n)
		return stride;
	a = (uintptr_t)l->obj[i];
	b = (uintptr_t)l->obj[i + 1];
	return b > a && b - a <= UINT32_MAX ? b - a : stride;
}

/*
 * Whether object i of l starts a new slab: 64 in one, or a break of *cur,
 * the stride of the slab object i - 1 is in; if it does, *cur becomes the
 * new slab's (sheaf_layout_stride(), stride: the pool's).
 */
static inline bool
sheaf_layout_breaks(const struct sheaf_layout *l, unsigned int i,
	uint32_t in_slab, uintptr_t *cur, uintptr_t stride)
{
	if (i != 0 && in_slab != SHEAF_SLAB_OBJS &&
			(uintptr_t)l->obj[i] - (uintptr_t)l->obj[i - 1] == *cur)
		return false;
	*cur = sheaf_layout_stride(l, i, stride);
	return true;
}

static uint32_t
sheaf_layout_count_slabs(const struct sheaf_layout *l, uintptr_t stride)
{
	uint32_t nb = 0, in_slab = 0;
	uintptr_t cur = stride;
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		if (sheaf_layout_breaks(l, i, in_slab, &cur, stride)) {
			nb++;
			in_slab = 0;
		}
		in_slab++;
	}
	return nb;
}

/*
 * Room for more slabs in both tables, doubled when it grows (DPDK may
 * populate one page at a time: IOVA runs in PA mode).
 */
static int
sheaf_slab_grow(struct sheaf_pool *sp, uint32_t more)
{
	uint32_t nb = sp->nb_slabs + more;
	struct sheaf_slab *slabs;
	uint32_t *order;

	if (nb <= sp->slabs_room)
		return 0;
	nb = (uint32_t)RTE_MAX((uint64_t)nb,
		RTE_MIN(2 * (uint64_t)sp->slabs_room, (uint64_t)UINT32_MAX / 2));

	slabs = rte_realloc_socket(sp->slabs, nb * sizeof(*slabs),
		RTE_CACHE_LINE_SIZE, sp->mp->socket_id);
	if (slabs == NULL)
		return -ENOMEM;
	sp->slabs = slabs;
	order = rte_realloc_socket(sp->slab_by_addr, nb * sizeof(*order),
		RTE_CACHE_LINE_SIZE, sp->mp->socket_id);
	if (order == NULL)
		return -ENOMEM;
	sp->slab_by_addr = order;
	sp->slabs_room = nb;
	return 0;
}

/* New slabs first..first+nb go into the address index as one run. */
static void
sheaf_slab_index(struct sheaf_pool *sp, uint32_t first, uint32_t nb)
{
	uint32_t lo = 0, hi = first, i;

	/* A chunk's slabs are in address order; chunks do not overlap. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sp->slabs[sp->slab_by_addr[mid]].base < sp->slabs[first].base)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&sp->slab_by_addr[lo + nb], &sp->slab_by_addr[lo],
		(first - lo) * sizeof(uint32_t));
	for (i = 0; i < nb; i++)
		sp->slab_by_addr[lo + i] = first + i;
	/*
	 * Relaxed: rte_sheaf_info_get() (telemetry, by the pool's name)
	 * may read it meanwhile, a count (sheaf_stats.c); the pool's calls
	 * come after populate.
	 */
	__atomic_store_n(&sp->nb_slabs, first + nb, __ATOMIC_RELAXED);
}

/*
 * Cut a layout into slabs with every object free and file them in their
 * depots. Not concurrent with use of the pool (populate): plain stores.
 */
static void
sheaf_layout_cut(struct sheaf_pool *sp, const struct sheaf_layout *l,
	uintptr_t stride, uint32_t nb_new)
{
	uint32_t first = sp->nb_slabs, id = first, in_slab = 0, k;
	struct sheaf_slab *s = NULL;
	struct sheaf_depot *dp;
	uintptr_t cur = stride;
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		if (sheaf_layout_breaks(l, i, in_slab, &cur, stride)) {
			s = &sp->slabs[id++];
			memset(s, 0, sizeof(*s));
			s->base = (uintptr_t)l->obj[i];
			s->stride = (uint32_t)cur;
			s->next = SHEAF_SLAB_NONE;
			s->depot = sheaf_slab_depot_of(sp, l->obj[i]);
			in_slab = 0;
		}
		in_slab++;
		s->nb_objs++;
	}
	for (id = first; id < first + nb_new; id++) {
		s = &sp->slabs[id];
		s->free_mask = s->nb_objs == 64 ? UINT64_MAX :
			(UINT64_C(1) << s->nb_objs) - 1;
		s->nb_free = s->nb_objs;
		s->in_pool = s->free_mask;
		dp = &sp->depot[s->depot];
		s->prev = SHEAF_SLAB_NONE;
		k = sheaf_slab_bucket(s);
		s->next = dp->bucket[k];
		if (s->next != SHEAF_SLAB_NONE)
			sp->slabs[s->next].prev = id;
		dp->bucket[k] = id;
		dp->nonempty |= UINT64_C(1) << k;
		/* Relaxed: get_count and telemetry may read it meanwhile
		 * (sheaf_slab_count(), a racy count). */
		__atomic_store_n(&dp->nb_free, dp->nb_free + s->nb_objs,
			__ATOMIC_RELAXED);
	}
	sheaf_slab_index(sp, first, nb_new);
}

/* Lay the chunk out with DPDK's helper, recording each object. */
static int
sheaf_slab_layout(struct rte_mempool *mp, struct sheaf_layout *l,
	void *vaddr, rte_iova_t iova, size_t len)
{
	struct sheaf_pool *sp = sheaf_pool_of(mp);
	struct sheaf_thread *t = sheaf_thread_self();
	struct sheaf_slot *lc;
	int ret;

	/*
	 * The helper also frees each object through the ops: populate holds
	 * the caller's slot, so the frees go out of line, where the thread's
	 * populating mark drops them (recorded here already).
	 */
	if (sheaf_slot_hold(sp, &lc) < 0)
		return -EBUSY;
	t->populating = sp;
	ret = rte_mempool_op_populate_helper(mp, 0, l->max, vaddr, iova, len,
		sheaf_slab_record, l);
	t->populating = NULL;
	if (lc != NULL)
		sheaf_slot_leave(lc);
	return ret;
}

int
sheaf_slab_populate(struct rte_mempool *mp, unsigned int max_objs,
	void *vaddr, rte_iova_t iova, size_t len,
	rte_mempool_populate_obj_cb_t *obj_cb, void *obj_cb_arg)
{
	struct sheaf_pool *sp = sheaf_pool_of(mp);
	uintptr_t stride = mp->header_size + mp->elt_size + mp->trailer_size;
	struct sheaf_layout l = { .n = 0, .cb = obj_cb, .cb_arg = obj_cb_arg,
		.va = vaddr, .iova = iova };
	uint32_t nb_new;
	int ret;

	/* The helper lays out no more than the chunk holds. */
	l.max = (unsigned int)RTE_MIN((size_t)max_objs, len / stride + 1);
	if (l.max == 0)
		return 0;
	l.obj = malloc(l.max * sizeof(*l.obj));
	if (l.obj == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	ret = sheaf_slab_layout(mp, &l, vaddr, iova, len);
	/* Room for no object: DPDK's contract is 0 (it drops the chunk). */
	if (ret <= 0)
		goto out;
	if (l.n != (unsigned int)ret) {
		SHEAF_LOG(ERR, "pool %s: %d objects laid out, %u recorded",
			mp->name, ret, l.n);
		ret = -EINVAL;
		goto out;
	}
	nb_new = sheaf_layout_count_slabs(&l, stride);
	ret = sheaf_slab_grow(sp, nb_new);
	if (ret < 0) {
		SHEAF_LOG(ERR, "pool %s: no memory for %u slabs", mp->name,
			nb_new);
		goto out;
	}
	sheaf_layout_cut(sp, &l, stride, nb_new);
	sheaf_layout_replay(mp, &l);
	ret = l.n;
out:
	free(l.obj);
	if (ret < 0)
		rte_errno = -ret;
	return ret;
}

void
sheaf_slab_release(struct sheaf_pool *sp)
{
	uint32_t d;

	rte_free(sp->slabs);
	rte_free(sp->slab_by_addr);
	sp->slabs = NULL;
	sp->slab_by_addr = NULL;
	sp->nb_slabs = 0;
	sp->slabs_room = 0;
	if (sp->depot == NULL)
		return;
	for (d = 0; d < sp->nb_nodes; d++)
		rte_free(sp->depot[d].lock.ent);
}
