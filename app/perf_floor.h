/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_PERF_FLOOR_H_
#define _SHEAF_PERF_FLOOR_H_

/*
 * The perf tools' floor driver (perf_floor.c): mempool ops registered by
 * sheaf-perf, and by the plugin librte_mempool_perf_floor.so for
 * dpdk-testpmd. The name is what --ops and --mbuf-pool-ops-name take.
 */
#define PERF_FLOOR_OPS_NAME "perf_floor"

#endif /* _SHEAF_PERF_FLOOR_H_ */
