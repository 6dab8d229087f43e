/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_STATS_H_
#define _SHEAF_STATS_H_

#include "sheaf_pvt.h"

/* Sum per-lcore and shared counters; racy while the pool is in use. */
void sheaf_stats_sum(const struct sheaf_pool *sp, struct rte_sheaf_stats *st);
void sheaf_stats_reset(struct sheaf_pool *sp);
const char *sheaf_stats_name(enum rte_sheaf_stat id);
const char *sheaf_stats_help(enum rte_sheaf_stat id);

#endif /* _SHEAF_STATS_H_ */
