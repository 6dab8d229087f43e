/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_PREFILL_H_
#define _SHEAF_PREFILL_H_

#include "sheaf_pvt.h"

/* Sheaves lent by prefill and not yet returned; racy, exact when quiet. */
static inline uint32_t
sheaf_prefill_count(const struct sheaf_pool *sp)
{
	return __atomic_load_n(&sp->nb_borrowed, __ATOMIC_RELAXED);
}

#endif /* _SHEAF_PREFILL_H_ */
