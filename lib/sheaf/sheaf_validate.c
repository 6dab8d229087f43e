/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Validate mode (RTE_SHEAF_F_VALIDATE), the counterpart of SLUB's free
 * consistency checks (slub_debug=F): an object is checked when it enters
 * the pool, on every free path, so that an app bug is caught at the call
 * that makes it, not when a sheaf reaches the slabs much later.
 *
 * Checked on free: the pointer is an object of the pool (slab lookup),
 * at the start of an object (not inside one), and not in the pool
 * already (a double free). The last needs a per-object state: one bit
 * per object in its slab (sheaf_slab.in_pool), set while the object is
 * anywhere in the pool, cleared while the user holds it. Allocation
 * clears it, free sets it; a free that finds it set is a double free.
 * Moves inside the pool (sheaf trades, flushes, steals, prefill loads,
 * deferred reclaim) leave it alone.
 *
 * Orderings: each bit is changed by atomic read-modify-writes, so two
 * racing frees of one object see each other and one of them fails. An
 * object passes from the thread that took it out to the one that frees
 * it through the app's own synchronisation, which orders the clear before
 * the set. Nothing else is published through the bit: relaxed suffices.
 */

#include <errno.h>

#include <rte_common.h>

#include "sheaf_slab.h"
#include "sheaf_validate.h"

/*
 * The slab and bit of obj, or NULL after logging why it is refused (not
 * logged when quiet: a signal handler's call).
 */
static struct sheaf_slab *
sheaf_validate_find(const struct sheaf_pool *sp, const void *obj,
	uint64_t *bit, bool quiet)
{
	struct sheaf_slab *s;
	uintptr_t off;
	uint32_t idx;

	s = sheaf_slab_find(sp, obj, &idx, &off);
	if (likely(s != NULL)) {
		*bit = UINT64_C(1) << idx;
		return s;
	}
	if (quiet)
		return NULL;
	if (off != 0)
		SHEAF_LOG(ERR, "pool %s: %p is misaligned, %zu bytes into object %p, refused",
			sp->mp->name, obj, (size_t)off,
			RTE_PTR_SUB(obj, off));
	else
		SHEAF_LOG(ERR, "pool %s: %p is not an object of the pool, refused",
			sp->mp->name, obj);
	return NULL;
}

/* Mark obj in the pool; false, logged unless quiet, if it was already. */
static bool
sheaf_validate_mark(const struct sheaf_pool *sp, struct sheaf_slab *s,
	uint64_t bit, const void *obj, bool quiet)
{
	/* Relaxed: see the file comment. */
	if (likely(!(__atomic_fetch_or(&s->in_pool, bit, __ATOMIC_RELAXED) &
			bit)))
		return true;
	if (!quiet)
		SHEAF_LOG(ERR, "pool %s: double free of %p (already in the pool), refused",
			sp->mp->name, obj);
	return false;
}

static void
sheaf_validate_unmark(struct sheaf_slab *s, uint64_t bit)
{
	/* Relaxed: see the file comment. */
	__atomic_fetch_and(&s->in_pool, ~bit, __ATOMIC_RELAXED);
}

unsigned int
sheaf_validate_put(struct sheaf_pool *sp, void * const *objs, unsigned int n,
	void **ok, bool quiet)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		struct sheaf_slab *s;
		uint64_t bit;

		s = sheaf_validate_find(sp, objs[i], &bit, quiet);
		if (s != NULL && sheaf_validate_mark(sp, s, bit, objs[i], quiet))
			ok[k++] = objs[i];
	}
	return k;
}

int
sheaf_validate_put_all(struct sheaf_pool *sp, void * const *objs,
	unsigned int n, bool quiet)
{
	unsigned int i, j;
	uint64_t bit;

	/* Lookups first: they change nothing. */
	for (i = 0; i < n; i++)
		if (sheaf_validate_find(sp, objs[i], &bit, quiet) == NULL)
			return -EINVAL;
	for (i = 0; i < n; i++) {
		struct sheaf_slab *s = sheaf_validate_find(sp, objs[i], &bit,
			quiet);

		if (sheaf_validate_mark(sp, s, bit, objs[i], quiet))
			continue;
		/* Undo this call's marks: each was clear before it. */
		for (j = 0; j < i; j++) {
			s = sheaf_validate_find(sp, objs[j], &bit, quiet);
			sheaf_validate_unmark(s, bit);
		}
		return -EINVAL;
	}
	return 0;
}

void
sheaf_validate_take(struct sheaf_pool *sp, void * const *objs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct sheaf_slab *s;
		uint32_t idx;
		uint64_t bit;

		s = sheaf_slab_find(sp, objs[i], &idx, NULL);
		if (unlikely(s == NULL)) {
			SHEAF_LOG(CRIT, "pool %s: handed out %p, no object of the pool",
				sp->mp->name, objs[i]);
			continue;
		}
		bit = UINT64_C(1) << idx;
		/* Relaxed: see the file comment. */
		if (unlikely(!(__atomic_fetch_and(&s->in_pool, ~bit,
				__ATOMIC_RELAXED) & bit)))
			SHEAF_LOG(CRIT, "pool %s: handed out %p, which the user holds already",
				sp->mp->name, objs[i]);
	}
}
