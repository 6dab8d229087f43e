/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Statistics, SLUB's stat_item counters: each lcore counts in its own
 * slot without atomics; threads without a slot share relaxed atomic
 * counters. Readers sum them. The names come from the one RTE_SHEAF_STATS
 * list in rte_sheaf.h, so the enum, dump and telemetry cannot drift.
 */

#include <string.h>

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

void
sheaf_stats_sum(const struct sheaf_pool *sp, struct rte_sheaf_stats *st)
{
	unsigned int i, k;

	for (k = 0; k < RTE_SHEAF_STAT_MAX; k++)
		st->count[k] = __atomic_load_n(&sp->shared_stat[k],
			__ATOMIC_RELAXED);
	for (i = 0; i < RTE_MAX_LCORE; i++)
		for (k = 0; k < RTE_SHEAF_STAT_MAX; k++)
			/* Racy read of the owner's plain counter: not
			 * critical, a stat may lag by one update.
			 */
			st->count[k] += __atomic_load_n(&sp->lcore[i].stat[k],
				__ATOMIC_RELAXED);
}

void
sheaf_stats_reset(struct sheaf_pool *sp)
{
	unsigned int i, k;

	for (k = 0; k < RTE_SHEAF_STAT_MAX; k++)
		__atomic_store_n(&sp->shared_stat[k], 0, __ATOMIC_RELAXED);
	for (i = 0; i < RTE_MAX_LCORE; i++)
		for (k = 0; k < RTE_SHEAF_STAT_MAX; k++)
			__atomic_store_n(&sp->lcore[i].stat[k], 0,
				__ATOMIC_RELAXED);
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
