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

#include "sheaf_lcore.h"
#include "sheaf_pool.h"
#include "sheaf_slab.h"

#endif /* _SHEAF_OPS_H_ */
