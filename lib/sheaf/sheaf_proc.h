/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_PROC_H_
#define _SHEAF_PROC_H_

/*
 * Processes and threads: who the caller is, whether another process is
 * alive, the caller thread's own state, a clock every CPU agrees on, and
 * membarrier().
 *
 * Identity. A process is named by its incarnation: its pid and the start
 * time the kernel gives it (field 22 of /proc/<pid>/stat, clock ticks
 * since boot), packed in 64 bits. A pid comes back after its process is
 * gone; a pid with another start time is another process. Slot owners,
 * lock holders and thieves are incarnations, never pids.
 *
 * Liveness. An incarnation is dead when /proc has no such pid, the pid
 * has another start time, or the process is a zombie with no thread left
 * (it has exited: its memory is gone and it runs no more code, though
 * kill(pid, 0) succeeds). A zombie leader whose other threads run on
 * (main called pthread_exit()) is alive. When /proc cannot be read for
 * another reason (EMFILE, EACCES, ...), or has no entry for a pid the
 * kernel still knows (a /proc mounted with hidepid, or none mounted),
 * nothing is known: alive, counted (sheaf_proc_look_failures());
 * recovery waits for a later look. Only kill() answering ESRCH, or /proc
 * telling another start time or an exited process, makes a process
 * dead. Processes sharing a pool must share a PID namespace.
 *
 * A process whose own start time /proc could not tell is unnamed: its
 * incarnation is its pid alone, with SHEAF_INC_HEIR set (no start time
 * in it). It takes locks and other records as any process, and others
 * judge it by its pid only: dead when kill() answers ESRCH or /proc
 * shows it exited, or to the process its pid went to; a pid reused after
 * its death keeps it alive to the others until that process goes too
 * (recovery delayed, never wrong), and to the new holder of the pid
 * when that one is unnamed too: its own incarnation, the same word
 * (then a lock the dead one held waits for a named process). It
 * creates no pool, and claims or inherits no slot (sheaf_proc_unnamed()):
 * a slot would stay with a reused pid.
 *
 * Thread state (TLS): how deep this thread is in pool calls (a signal
 * handler re-entering makes it 2), which locks it holds (its call's, and
 * its handlers'), and the park records (in the pools' shared memory,
 * sheaf_shared.h) it holds, where a re-entrant free parks objects that
 * can reach no tier without its thread's lock. A handler therefore never
 * waits on a lock its own thread holds.
 */

#include <stdbool.h>
#include <stdint.h>

#include "sheaf_pvt.h"

/*
 * The calling process's incarnation; set at load and after fork(). An
 * unnamed process's (above) has SHEAF_INC_HEIR set: see
 * sheaf_proc_unnamed().
 */
extern uint64_t sheaf_self;

/*
 * Set in an owner word by a thief that inherited a dead owner's slot to
 * empty it (sheaf_slot.h): no incarnation has it (start times take 41
 * bits), so no thread takes the slot for its own meanwhile.
 */
#define SHEAF_INC_HEIR (UINT64_C(1) << 63)

/*
 * Whether the calling process is unnamed (above): its sheaf_self has
 * SHEAF_INC_HEIR set, which no owner word equals (an heir's has a start
 * time), so no slot is entered for it.
 */
static inline bool
sheaf_proc_unnamed(void)
{
	return (sheaf_self & SHEAF_INC_HEIR) != 0;
}

/* Looks at other processes' liveness that /proc could not answer. */
uint64_t sheaf_proc_look_failures(void);

/* The pid an incarnation names. */
static inline uint32_t
sheaf_proc_pid(uint64_t inc)
{
	return (uint32_t)(inc & ((1u << 22) - 1));
}

/* What a look at another incarnation found (sheaf_proc_look()). */
enum sheaf_proc_verdict {
	SHEAF_PROC_ALIVE,
	SHEAF_PROC_DEAD,
	/*
	 * /proc could not tell (EMFILE, EACCES, hidepid, no /proc): a
	 * caller that may wait takes it as alive; one that must know
	 * whether to undo the incarnation's calls before it goes on does
	 * not go on (sheaf_prefill.c).
	 */
	SHEAF_PROC_UNKNOWN,
};

/*
 * Whether incarnation inc is dead (see above). Costs a /proc read: the
 * callers rate-limit it. The calling process is never dead.
 */
enum sheaf_proc_verdict sheaf_proc_look(uint64_t inc);

/* sheaf_proc_look() found inc dead (unknown counts as alive). */
static inline bool
sheaf_proc_dead(uint64_t inc)
{
	return sheaf_proc_look(inc) == SHEAF_PROC_DEAD;
}

/* CLOCK_MONOTONIC in ns: one clock for every CPU and process. */
uint64_t sheaf_clock_ns(void);

/*
 * membarrier(): register this process for the private and the global
 * expedited commands, once (the first pool it creates or uses). Returns
 * the SHEAF_MB_* registrations that succeeded; 0 to a re-entered call
 * (a signal handler inside a call, or holding a lock) while the process
 * is not registered yet: it neither registers nor waits. Signal-safe.
 */
uint32_t sheaf_proc_mb_register(void);

/* The registrations made so far (none before sheaf_proc_mb_register()). */
uint32_t sheaf_proc_mb_registered(void);

/*
 * Run a full memory barrier on every CPU running a thread of this
 * process (global false), or of any registered process (global true).
 * 0, or -ENOTSUP where not registered or not available.
 */
int sheaf_proc_membarrier(bool global);

/* Locks a thread may hold at once: its call's, and its handlers'. */
#define SHEAF_HELD_MAX 4

/* Park records a thread may hold at once (pools, or full records). */
#define SHEAF_PARK_HELD 4

/* The calling thread's pool state. */
struct sheaf_thread {
	uint32_t depth;                 /* out-of-line pool calls running */
	uint32_t nb_held;               /* locks held, innermost last */
	/*
	 * Out-of-line calls running that found the thread's slot busy with
	 * an inline call (the fast path's get, put or deferred free, which
	 * count no depth): signal handlers that interrupted it
	 * (sheaf_call_handler_begin()).
	 */
	uint32_t fast_handler;
	const struct sheaf_txlock *held[SHEAF_HELD_MAX];
	/*
	 * Park records this thread holds: the record's address, 0 for none;
	 * bit 0 set while a park fills it (sheaf_shared.c). Atomics against
	 * this thread's handlers.
	 */
	uintptr_t park[SHEAF_PARK_HELD];
	/*
	 * Objects a re-entered call counted lost (RTE_SHEAF_STAT_LOST),
	 * to be logged by the outermost call (a handler may not log);
	 * atomic read-modify-writes against this thread's handlers.
	 */
	uint32_t lost_unlogged;
	/*
	 * Locks of dead holders a re-entered call of this thread took over
	 * (sheaf_tx.c), to be logged by the outermost call as lost_unlogged:
	 * how many, the last one's pool name and dead pid, the stores undone
	 * and the objects counted lost. Atomics against its handlers.
	 */
	char tx_unlogged_pool[RTE_MEMPOOL_NAMESIZE];
	uint32_t tx_unlogged;
	uint32_t tx_unlogged_pid;
	uint32_t tx_unlogged_undone;
	uint64_t tx_unlogged_lost;
	/* Populate in progress on this thread (sheaf_slab.c). */
	struct sheaf_pool *populating;
};

struct sheaf_thread *sheaf_thread_self(void);

/*
 * Kill points, for the fault-injection tests: a build with
 * -Dkill_points=true SIGKILLs the process at the point named by the
 * environment variable SHEAF_KILL_AT, its SHEAF_KILL_AFTER-th time
 * (default 1); with SHEAF_KILL_SIGNAL set (a signal number), it raises
 * that signal there once instead, on the thread passing the point (a
 * handler interrupting the library at that instruction). Compiled out
 * otherwise. Names are listed in sheaf_kill.h.
 */
void sheaf_kill_point(const char *name, const char *sub);
#ifdef SHEAF_KILL_POINTS
#define SHEAF_KILL(name) sheaf_kill_point(name, NULL)
#define SHEAF_KILL2(name, sub) sheaf_kill_point(name, sub)
#else
#define SHEAF_KILL(name) do { } while (0)
/* Never evaluated: a name may be a call (sheaf_tx_kind_name()). */
#define SHEAF_KILL2(name, sub) do { if (0) sheaf_kill_point(name, sub); } while (0)
#endif

#endif /* _SHEAF_PROC_H_ */
