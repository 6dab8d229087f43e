/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_FLUSH_H_
#define _SHEAF_FLUSH_H_

/*
 * Flushes (SLUB's flush_all() and kmem_cache_shrink()): the caller's own
 * sheaves, every lcore's (asked, or taken from the idle and the dead),
 * and the barns, into the slabs.
 */

#include <stdbool.h>

#include "sheaf_pvt.h"

/*
 * The caller's sheaves and the barns: objects moved to the slabs.
 * *pending: the caller's slot was held by a thief for as long as an
 * allocation waits, not flushed. Not from a signal handler inside the
 * pool (rte_sheaf.c refuses those calls).
 */
unsigned int sheaf_flush_self(struct sheaf_pool *sp, bool *pending);

/* Everyone's: the lcores whose sheaves are still not back. */
unsigned int sheaf_flush_all(struct sheaf_pool *sp);

#endif /* _SHEAF_FLUSH_H_ */
