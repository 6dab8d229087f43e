/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_STATS_H_
#define _SHEAF_STATS_H_

/*
 * What a pool tells about itself: statistics (per slot, summed on read),
 * where its objects are (struct rte_sheaf_info), the dump. The names come
 * from the one RTE_SHEAF_STATS and RTE_SHEAF_INFO lists of rte_sheaf.h.
 */

#include <stdio.h>

#include "sheaf_pvt.h"

/* Sum per-slot and shared counters; racy while the pool is in use. */
void sheaf_stats_sum(const struct sheaf_pool *sp, struct rte_sheaf_stats *st);
void sheaf_stats_reset(struct sheaf_pool *sp);
const char *sheaf_stats_name(enum rte_sheaf_stat id);
const char *sheaf_stats_help(enum rte_sheaf_stat id);

/* Where the objects are; racy, exact when quiet. */
void sheaf_info_fill(const struct sheaf_pool *sp, struct rte_sheaf_info *in);

/* Info field k (0 up): its name and value; NULL past the last. */
const char *sheaf_info_field(const struct rte_sheaf_info *in, unsigned int k,
	uint32_t *value);

/*
 * Objects the lcore sheaves may hold at most (rte_sheaf_stranded_max()):
 * two sheaves of capacity_max for each lcore in use and each slot threads
 * now gone left behind.
 */
uint32_t sheaf_stranded_max(const struct sheaf_pool *sp);

/* The dump: configuration, placement, statistics, owned slots. */
void sheaf_stats_dump(FILE *f, const struct sheaf_pool *sp);

#endif /* _SHEAF_STATS_H_ */
