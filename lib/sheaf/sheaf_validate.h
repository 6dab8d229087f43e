/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_VALIDATE_H_
#define _SHEAF_VALIDATE_H_

#include <stdbool.h>

#include "sheaf_pvt.h"

/*
 * Objects a validated free checks at a time, on the stack (8 bytes each):
 * larger frees go in batches.
 */
#define SHEAF_VALIDATE_BATCH 64

static inline bool
sheaf_validate_on(const struct sheaf_pool *sp)
{
	return (sp->cfg.flags & RTE_SHEAF_F_VALIDATE) != 0;
}

/*
 * Check n objects entering the pool: each must be an object of the pool,
 * at its start, and held by the user (not in the pool already). Accepted
 * ones are marked in the pool and copied to ok[], in order (ok may be
 * objs: a copy in place); each refused one is logged, unless quiet (a
 * signal handler's call: sheaf_call_inside(), counted only). Returns the
 * count accepted.
 */
unsigned int sheaf_validate_put(struct sheaf_pool *sp, void * const *objs,
	unsigned int n, void **ok, bool quiet);

/*
 * The same, all or nothing: 0 with every object marked in the pool, or
 * -EINVAL with none marked (the first bad one logged, unless quiet).
 */
int sheaf_validate_put_all(struct sheaf_pool *sp, void * const *objs,
	unsigned int n, bool quiet);

/* Mark n objects leaving the pool for the user. */
void sheaf_validate_take(struct sheaf_pool *sp, void * const *objs,
	unsigned int n);

#endif /* _SHEAF_VALIDATE_H_ */
