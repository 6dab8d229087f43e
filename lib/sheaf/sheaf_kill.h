/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_KILL_H_
#define _SHEAF_KILL_H_

/*
 * The kill points of a -Dkill_points=true build (sheaf_proc.h), for the
 * fault-injection tests: SHEAF_KILL_AT names one, SHEAF_KILL_AFTER how
 * many times it is passed before the process dies (default 1).
 *
 * Every transaction (sheaf_tx.h) of each kind below passes four points:
 * "<kind>.lock" (lock taken, nothing stored), "<kind>.store" (before each
 * journaled store), "<kind>.commit" (all stored, journal not emptied),
 * "<kind>.unlock" (journal empty, lock still held).
 */

#define SHEAF_KILL_TX_KINDS(X) \
	X(trade_get)        /* an empty main for a full barn sheaf */ \
	X(trade_put)        /* a full main for an empty barn sheaf */ \
	X(refill)           /* slab objects into main */ \
	X(flush)            /* a slot sheaf's objects to the slabs */ \
	X(drain)            /* a slot's sheaves whole to the barn */ \
	X(lend)             /* prefill: a slot sheaf lent whole */ \
	X(prefill_get)      /* prefill: a barn sheaf lent */ \
	X(prefill_put)      /* prefill: a sheaf back to the barn */ \
	X(defer_sheaf)      /* an empty barn sheaf as deferred sheaf */ \
	X(defer_install)    /* a sheaf back from transit as deferred sheaf */ \
	X(stamp)            /* a deferred sheaf stamped onto the FIFO */ \
	X(defer_shared)     /* into a barn's shared deferred sheaf */ \
	X(defer_refill)     /* an expired FIFO sheaf as main */ \
	X(defer_reclaim)    /* expired FIFO sheaves to the full stack */ \
	X(fallback)         /* objects onto a depot's fallback queue */ \
	X(fallback_reclaim) /* expired fallback objects to the slabs */ \
	X(shared_take)      /* slab or barn objects to a caller's table */ \
	X(shared_give)      /* a caller's objects to the slabs */ \
	X(park)             /* a handler's objects into an empty sheaf */ \
	X(transit)          /* a full barn sheaf into transit */ \
	X(transit_flush)    /* a transit sheaf's objects to the slabs */ \
	X(transit_return)   /* a transit sheaf back on a stack */ \
	X(stamp_shared)     /* a barn's shared deferred sheaf stamped */ \
	X(transit_recover)  /* a dead process's transit sheaf back */

#define SHEAF_KILL_TX_PHASES(X) X(lock) X(store) X(commit) X(unlock)

/* Points outside transactions. */
#define SHEAF_KILL_POINTS_PLAIN(X) \
	X("pop.copied")         /* fast get: copied out, count not stored */ \
	X("push.copied")        /* fast put: copied in, count not stored */ \
	X("swap")               /* main and spare about to swap */ \
	X("drain.barn")         /* drain: whole sheaves given, rest not */ \
	X("take.marked")        /* remote take: slot marked, no fence */ \
	X("take.fenced")        /* remote take: fenced, slot not served */ \
	X("take.served")        /* remote take: served, mark still held */ \
	X("inherit.claimed")    /* a dead owner's slot claimed, not set */ \
	X("heir.served")        /* a dead owner's slot emptied, not freed */ \
	X("defer.copy")         /* deferred objects copied, count not */ \
	X("defer.transit")      /* deferred rung: sheaf flushed, in transit */ \
	X("barn_flush.transit") /* barn flush: sheaf flushed, in transit */ \
	X("recover.undo")       /* rolling back a dead holder's journal */

#endif /* _SHEAF_KILL_H_ */
