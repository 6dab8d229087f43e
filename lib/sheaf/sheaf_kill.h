/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_KILL_H_
#define _SHEAF_KILL_H_

#include "sheaf_tx.h"

/*
 * The kill points of a -Dkill_points=true build (sheaf_proc.h), for the
 * fault-injection tests: SHEAF_KILL_AT names one, SHEAF_KILL_AFTER how
 * many times it is passed before the process dies (default 1), and
 * SHEAF_KILL_SIGNAL a signal to raise there instead (sheaf_proc.h).
 *
 * Every transaction (sheaf_tx.h) of each kind below passes four points:
 * "<kind>.lock" (lock taken, nothing stored), "<kind>.store" (before each
 * journaled store), "<kind>.commit" (all stored, journal not emptied),
 * "<kind>.unlock" (journal empty, lock still held).
 */

/* The transaction kinds: see SHEAF_TX_KINDS in sheaf_tx.h. */
#define SHEAF_KILL_TX_KINDS(X) SHEAF_TX_KINDS_MOVE(X)

#define SHEAF_KILL_TX_PHASES(X) X(lock) X(store) X(commit) X(unlock)

/* Points outside transactions. */
#define SHEAF_KILL_POINTS_PLAIN(X) \
	X("pop.copied")         /* fast get: copied out, count not stored */ \
	X("push.copied")        /* fast put: copied in, count not stored */ \
	X("swap")               /* main and spare about to swap */ \
	X("drain.barn")         /* drain: whole sheaves given, rest not */ \
	X("give.copied")        /* give: objects copied, sheaf not pushed */ \
	X("get.reclaim")        /* get ladder: got put back, reclaim next */ \
	X("take.marked")        /* remote take: slot marked, no fence */ \
	X("take.fenced")        /* remote take: fenced, slot not served */ \
	X("take.served")        /* remote take: served, mark still held */ \
	X("mark.clearing")      /* a dead thief's marker taken, bit set */ \
	X("claim.owned")        /* a free slot's owner is us, mb not set */ \
	X("inherit.claimed")    /* a dead owner's slot claimed, not set */ \
	X("inherit.quiet")      /* its busy word stored, counts not folded */ \
	X("heir.served")        /* a dead owner's slot emptied, not freed */ \
	X("defer.copy")         /* deferred objects copied, count not */ \
	X("defer.transit")      /* deferred rung: sheaf flushed, in transit */ \
	X("barn_flush.transit") /* barn flush: sheaf flushed, in transit */ \
	X("recover.undo")       /* rolling back a dead holder's journal */ \
	X("prefill.load")       /* prefill: objects in place, size not */ \
	X("prefill.give")       /* prefill: size cut, slot's count not */ \
	X("prefill.grow")       /* prefill: old sheaf emptied, new not set */ \
	X("lend.claimed")       /* a dead borrower's sheaf claimed, not back */ \
	X("park.emptied")       /* a park record emptied, not freed */

/*
 * Points of a put that flushes DPDK's mempool cache: reached by the
 * cache rounds of the kill app (a pool with a cache), not the matrix.
 * A prefill return into main or spare passes the first two too (once
 * per half it fills), and a short load's return all three
 * (sheaf_prefill_give_back()).
 */
#define SHEAF_KILL_POINTS_CACHE(X) \
	X("push_table.copied")  /* cache flush: copied in, cache not cut */ \
	X("push_table.noted")   /* cache flush: cut recorded, not made */ \
	X("push_table.cut")     /* cache flush: cache cut, count not stored */ \
	X("push_table.checked") /* validated flush: cut, checked, not counted */

#endif /* _SHEAF_KILL_H_ */
