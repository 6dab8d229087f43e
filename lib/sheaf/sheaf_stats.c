/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Statistics, SLUB's stat_item counters: each lcore counts in its own
 * slot with no read-modify-write (a relaxed load and store; a reset's
 * CAS may zero them meanwhile); callers without a slot share relaxed
 * atomic counters. Readers sum them. The names come from the RTE_SHEAF_STATS and
 * RTE_SHEAF_INFO lists in rte_sheaf.h, so the enum, the structure, the
 * dump and telemetry cannot drift.
 */

#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "sheaf_barn.h"
#include "sheaf_deferred.h"
#include "sheaf_lend.h"
#include "sheaf_pair.h"
#include "sheaf_proc.h"
#include "sheaf_slab.h"
#include "sheaf_slot.h"
#include "sheaf_stats.h"

static const char * const sheaf_stat_names[RTE_SHEAF_STAT_MAX] = {
#define SHEAF_STAT_NAME_(id, name, help) [RTE_SHEAF_STAT_##id] = #name,
	RTE_SHEAF_STATS(SHEAF_STAT_NAME_)
#undef SHEAF_STAT_NAME_
};

static const char * const sheaf_stat_helps[RTE_SHEAF_STAT_MAX] = {
#define SHEAF_STAT_HELP_(id, name, help) [RTE_SHEAF_STAT_##id] = help,
	RTE_SHEAF_STATS(SHEAF_STAT_HELP_)
#undef SHEAF_STAT_HELP_
};

/* struct rte_sheaf_info by name: one entry per RTE_SHEAF_INFO item. */
static const struct {
	const char *name;
	size_t off;
} sheaf_info_fields[] = {
#define SHEAF_INFO_FIELD_(name, help) \
	{ #name, offsetof(struct rte_sheaf_info, name) },
	RTE_SHEAF_INFO(SHEAF_INFO_FIELD_)
#undef SHEAF_INFO_FIELD_
};

void
sheaf_stats_sum(const struct sheaf_pool *sp, struct rte_sheaf_stats *st)
{
	unsigned int i, k;

	for (k = 0; k < RTE_SHEAF_STAT_MAX; k++)
		st->count[k] = __atomic_load_n(&sp->shared_stat[k],
			__ATOMIC_RELAXED);
	for (i = 0; i < RTE_MAX_LCORE; i++)
		for (k = 0; k < RTE_SHEAF_STAT_MAX; k++)
			/* Racy reads of the owner's words: not critical,
			 * a stat may lag by one update, or by a fast
			 * count being folded (sheaf_slot_fold()).
			 */
			st->count[k] += sheaf_slot_count(&sp->slot[i], k);
}

/*
 * Slot v's counter k to zero, as sheaf_slot_count() reads it: minus the
 * fast count pending in busy (the owner's word, never stored here). By
 * compare-and-swap from the value the pending count was read against: a
 * fold (the fields cleared from busy, then added to the counter with a
 * release) that lands in between fails the swap, and the next look reads
 * busy after the acquire that saw it. A counter the owner's plain store
 * overwrites right after keeps its old value: a lost reset. Between the
 * owner's store of busy without its pending part and its fold, the
 * counter is minus that part with nothing pending: sheaf_slot_count()
 * reads 0 there.
 */
static void
sheaf_stats_reset_slot(struct sheaf_slot *v, enum rte_sheaf_stat k)
{
	/* Acquire: pairs with sheaf_slot_fold()'s release. */
	uint64_t s = __atomic_load_n(&v->stat[k], __ATOMIC_ACQUIRE);

	/* Relaxed busy: read after the acquire above (or the failed
	 * swap's, acquire as its success, which C11 requires). */
	while (!__atomic_compare_exchange_n(&v->stat[k], &s,
			-sheaf_busy_count(__atomic_load_n(&v->busy,
				__ATOMIC_RELAXED), k), 0,
			__ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
		;
}

void
sheaf_stats_reset(struct sheaf_pool *sp)
{
	unsigned int i, k;

	for (k = 0; k < RTE_SHEAF_STAT_MAX; k++)
		__atomic_store_n(&sp->shared_stat[k], 0, __ATOMIC_RELAXED);
	for (i = 0; i < RTE_MAX_LCORE; i++)
		for (k = 0; k < RTE_SHEAF_STAT_MAX; k++)
			sheaf_stats_reset_slot(&sp->slot[i], k);
	/* Release: pairs with sheaf_lcore_adapt()'s acquire; an owner
	 * that sees this reset sees the counters it zeroed. */
	__atomic_fetch_add(&sp->stats_resets, 1, __ATOMIC_RELEASE);
}

const char *
sheaf_stats_name(enum rte_sheaf_stat id)
{
	return (unsigned int)id < RTE_SHEAF_STAT_MAX ? sheaf_stat_names[id] : NULL;
}

const char *
sheaf_stats_help(enum rte_sheaf_stat id)
{
	return (unsigned int)id < RTE_SHEAF_STAT_MAX ? sheaf_stat_helps[id] : NULL;
}

void
sheaf_info_fill(const struct sheaf_pool *sp, struct rte_sheaf_info *in)
{
	/* Every field is a uint32_t named in RTE_SHEAF_INFO. */
	RTE_BUILD_BUG_ON(sizeof(*in) !=
		RTE_DIM(sheaf_info_fields) * sizeof(uint32_t));
	memset(in, 0, sizeof(*in));
	in->size = sp->mp->populated_size;
	in->capacity = sp->cfg.capacity;
	in->capacity_max = sp->cfg.capacity_max;
	in->barn_max_full = sp->cfg.barn_max_full;
	in->barn_max_empty = sp->cfg.barn_max_empty;
	in->nb_barns = sp->nb_nodes;
	/* Relaxed: populate may be adding slabs (sheaf_slab.c). */
	in->nb_slabs = __atomic_load_n(&sp->nb_slabs, __ATOMIC_RELAXED);
	in->nb_sheaves = sp->nb_sheaves;
	in->in_slabs = sheaf_slab_count(sp);
	in->in_barns = sheaf_barn_count(sp);
	sheaf_barn_sheaves(sp, &in->barn_full, &in->barn_empty);
	in->in_lcores = sheaf_pair_count_all(sp, &in->nb_lcores);
	in->nb_borrowed = sheaf_lend_count(sp);
	in->in_deferred = sheaf_deferred_count(sp);
}

uint32_t
sheaf_stranded_max(const struct sheaf_pool *sp)
{
	unsigned int i, nb = 0;

	for (i = 0; i < RTE_MAX_LCORE; i++)
		if (rte_eal_lcore_role(i) != ROLE_OFF ||
				sheaf_slot_claimed(sp, i))
			nb++;
	return nb * 2 * sp->cfg.capacity_max;
}

const char *
sheaf_info_field(const struct rte_sheaf_info *in, unsigned int k,
	uint32_t *value)
{
	if (k >= RTE_DIM(sheaf_info_fields))
		return NULL;
	*value = *(const uint32_t *)RTE_PTR_ADD(in, sheaf_info_fields[k].off);
	return sheaf_info_fields[k].name;
}

/* The slots owned or holding objects, a line each (racy reads). */
static void
sheaf_dump_slots(FILE *f, const struct sheaf_pool *sp)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct sheaf_slot *lc = &sp->slot[i];
		uint64_t owner = __atomic_load_n(&lc->owner, __ATOMIC_RELAXED);
		uint64_t w = sheaf_pair_state(lc);
		uint32_t ds = __atomic_load_n(&lc->dstate, __ATOMIC_RELAXED);

		if (owner == 0 && sheaf_pair_count(lc) == 0)
			continue;
		fprintf(f, "  lcore %u: owner pid %u%s%s capacity=%u main=%u spare=%u deferred=%u gate=0x%x\n",
			i, sheaf_proc_pid(owner),
			(owner & ~SHEAF_INC_HEIR) == sheaf_self ?
				" (this process)" : "",
			(owner & SHEAF_INC_HEIR) ? " (being emptied)" : "",
			__atomic_load_n(&lc->capacity, __ATOMIC_RELAXED),
			sheaf_st_size(w, SHEAF_MAIN),
			sheaf_st_size(w, SHEAF_SPARE),
			(ds >> SHEAF_SIZE_BITS) == SHEAF_NONE ? 0 :
				ds & ((1u << SHEAF_SIZE_BITS) - 1),
			__atomic_load_n(&lc->gate, __ATOMIC_RELAXED));
	}
}

void
sheaf_stats_dump(FILE *f, const struct sheaf_pool *sp)
{
	struct rte_sheaf_stats st;
	struct rte_sheaf_info in;
	const char *name;
	unsigned int k;
	uint32_t v;

	sheaf_info_fill(sp, &in);
	sheaf_stats_sum(sp, &st);
	fprintf(f, "sheaf pool <%s>@%p\n", sp->mp->name, (const void *)sp->mp);
	for (k = 0; (name = sheaf_info_field(&in, k, &v)) != NULL; k++)
		fprintf(f, "  %s=%u\n", name, v);
	for (k = 0; k < RTE_SHEAF_STAT_MAX; k++)
		fprintf(f, "  %s=%" PRIu64 "\n", sheaf_stats_name(k),
			st.count[k]);
	sheaf_dump_slots(f, sp);
}
