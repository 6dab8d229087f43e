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

#include "sheaf_pvt.h"

/* The caller's sheaves and the barns: objects moved to the slabs. */
unsigned int sheaf_flush_self(struct sheaf_pool *sp);

/* Everyone's: the lcores whose sheaves are still not back. */
unsigned int sheaf_flush_all(struct sheaf_pool *sp);

#endif /* _SHEAF_FLUSH_H_ */
