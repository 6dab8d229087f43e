/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_POOL_H_
#define _SHEAF_POOL_H_

/*
 * Pool lifecycle: the ops alloc, free and get_count behind the driver,
 * and the one check that a mempool is a sheaf pool.
 */

#include <stdbool.h>

#include <rte_mempool.h>

#include "sheaf_pvt.h"

int sheaf_pool_alloc(struct rte_mempool *mp);
void sheaf_pool_free(struct rte_mempool *mp);
unsigned int sheaf_pool_count(const struct rte_mempool *mp);

/* Whether mp is a populated sheaf pool; no log (walks over all pools). */
bool sheaf_pool_valid(const struct rte_mempool *mp);

/* The same, for a caller's argument: 0, or -EINVAL (logged, rte_errno). */
int sheaf_pool_check(const struct rte_mempool *mp);

#endif /* _SHEAF_POOL_H_ */
