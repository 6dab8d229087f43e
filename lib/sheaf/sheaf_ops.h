/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_OPS_H_
#define _SHEAF_OPS_H_

/*
 * @internal What the mempool driver (drivers/mempool/sheaf) calls: the
 * pool lifecycle, the inline fast paths and the populate op. Exported by
 * librte_sheaf under INTERNAL; not installed.
 */

#include <rte_mempool.h>

#include "sheaf_lcore.h"
#include "sheaf_slab.h"

int sheaf_pool_alloc(struct rte_mempool *mp);
void sheaf_pool_free(struct rte_mempool *mp);
unsigned int sheaf_pool_count(const struct rte_mempool *mp);

#endif /* _SHEAF_OPS_H_ */
