/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_TELEMETRY_H_
#define _SHEAF_TELEMETRY_H_

#include <stdbool.h>

#include <rte_mempool.h>

/*
 * Whether mp is a populated sheaf pool, as rte_sheaf_pool_check() tells,
 * but without a log line: for walks over every mempool, most of which
 * are not sheaf pools.
 */
bool sheaf_telemetry_is_sheaf(const struct rte_mempool *mp);

#endif /* _SHEAF_TELEMETRY_H_ */
