/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_PVT_H_
#define _SHEAF_PVT_H_

/*
 * Object map of a sheaf pool (struct sheaf_pool, the mempool's pool_data).
 * Everything lives in rte_malloc memory and holds no process-local
 * pointer, so a secondary process can drive the pool.
 *
 *   slot[RTE_MAX_LCORE]   per lcore id: main + spare sheaf (one state
 *        |                word), deferred sheaf, owner, busy, gate
 *        |  whole sheaves, in transactions
 *   barn[nb_nodes]        per socket: stacks of full and of empty sheaves,
 *        |                the deferred FIFO, sheaves in transit; one lock
 *        |  objects, in transactions
 *   depot[nb_nodes]       per socket: partial slabs bucketed by objects in use,
 *                         the deferred fallback queue; one lock
 *   slabs[nb_slabs]       runs of up to 64 objects at a constant stride
 *
 * Every object is in exactly one place: free in a slab, in a sheaf (a
 * slot's main, spare or deferred sheaf, a barn's full sheaf or FIFO entry,
 * a sheaf in transit), in the deferred fallback queue, in a park record,
 * or in the user's hands (a borrowed prefill sheaf included).
 *
 * Two kinds of writes move objects between places, and a process may die
 * between any two instructions of either:
 *   - the owner of a slot changes its own slot with single stores, each
 *     of which leaves the slot whole (the state word, sheaf_pair.h);
 *   - everything under a barn or depot lock goes through a transaction
 *     whose undo journal lets the next locker roll it back when the
 *     holder died (sheaf_tx.h).
 * So no death leaves an object in two places; an object a dead process
 * held in its hands (a call's table) is lost with it.
 */

#include <stdint.h>

#include <rte_common.h>
#include <rte_log.h>
#include <rte_mempool.h>

#include "rte_sheaf.h"

extern int sheaf_logtype;

#define SHEAF_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, sheaf_logtype, "%s(): " fmt "\n", \
		__func__, ##__VA_ARGS__)

/* Identifies sheaf pool_data, guarding against other ops' private data. */
#define SHEAF_POOL_MAGIC 0x5348454146504f4dULL /* "SHEAFPOM" */

/* Objects per slab: one 64-bit free mask per slab. */
#define SHEAF_SLAB_OBJS 64
#define SHEAF_SLAB_NONE UINT32_MAX

/*
 * Sheaves are named by their index in the pool's arena, so that two of
 * them and two counts fit one 64-bit word (the slot state). 20 bits name
 * up to 2^20 - 1 sheaves; SHEAF_NONE is no sheaf.
 */
#define SHEAF_IDX_BITS 20
#define SHEAF_NONE ((1u << SHEAF_IDX_BITS) - 1)
/* 12 bits count objects in a slot's sheaf: capacities up to 4095. */
#define SHEAF_SIZE_BITS 12

/* Sheaves a barn can hold in transit at once (flushes, deferred rung). */
#define SHEAF_TRANSIT 16

/* struct sheaf flags, fixed at creation. */
#define SHEAF_F_MALLOC 0x1 /* oversize, from rte_malloc: kept with the pool */

/** An array of object pointers, the unit traded between tiers. */
struct sheaf {
	/*
	 * Objects in objs[]. Authoritative while the sheaf is in a barn, a
	 * FIFO, in transit or lent by prefill; stale while a slot holds it
	 * (the slot's state word counts then). Writer: the holder, or a
	 * transaction under the lock of the structure holding it.
	 */
	uint32_t size;
	uint32_t capacity; /* length of objs[]; fixed at creation */
	uint32_t idx;      /* arena index, SHEAF_NONE if oversize; fixed */
	uint16_t flags;    /* SHEAF_F_*; fixed */
	/* Prefill: the lend's number, in its handles; writer: lender */
	uint16_t lend_gen;
	/* The pool whose sheaf this is; fixed at creation */
	struct sheaf_pool *pool;
	/*
	 * Prefill: the handle of the lend (sheaf_prefill.c), 0 when not
	 * lent; the one word a handle is checked against. Release-stored
	 * by the lend once the sheaf is loaded, cleared by CAS by the put
	 * (of two puts of one handle, one wins) and by a recoverer.
	 */
	uint64_t live;
	/*
	 * Prefill: the incarnation of the process that borrowed the sheaf,
	 * 0 when not lent (sheaf_lend.h). Stored in the transaction that
	 * takes the sheaf out of a barn or slot and in the one that puts it
	 * back; a recoverer takes a dead borrower's by CAS, and another
	 * process using the handle takes it over by CAS from lent_by.
	 */
	uint64_t holder;
	/*
	 * Prefill: the borrowing process of this lend, which holder names
	 * while no recoverer has taken the sheaf (sheaf_prefill.c). Stored
	 * by the lend before live, and by a process taking the handle over
	 * after its CAS of holder; a recoverer leaves it.
	 */
	uint64_t lent_by;
	/*
	 * Prefill's load record (sheaf_prefill.c): while a borrowed
	 * sheaf's size is load_from, loading objects beyond it have left
	 * their tiers for it and are not counted in its size yet; a
	 * recoverer of its dead borrower counts them lost
	 * (sheaf_lend_settle()). Writer: the borrower, in program order
	 * (signal fences), or a transaction of it (journaled); loading's
	 * clear also the recoverer that settles it.
	 */
	uint32_t loading;
	uint32_t load_from;
	/*
	 * The objects' array, capacity long; fixed at creation: an arena
	 * sheaf's in the pool's array of them (a power of two of bytes
	 * apart, sheaf_pool_arena()), an oversize one's after its header.
	 */
	void **objs;
	/* Oversize sheaves: the next on the pool's list; barn 0's lock. */
	struct sheaf *next;
} __rte_cache_aligned;

/*
 * The undo journal of a lock (sheaf_tx.h): the address and old value of
 * each store a transaction made, in order. Bit 0 of addr set: a 32-bit
 * store.
 */
struct sheaf_undo {
	uintptr_t addr;   /* bit 0: a 32-bit store; SHEAF_UNDO_LOSS */
	uint64_t old;     /* the old value; a loss entry's objects */
};

/* The addr of a journal entry that counts objects lost (sheaf_tx.h). */
#define SHEAF_UNDO_LOSS ((uintptr_t)0)

/* A lock whose holder may die: see sheaf_tx.h. */
struct sheaf_txlock {
	/* Incarnation of the holding process, 0 when free; CAS. */
	uint64_t owner;
	/* Stores in the journal: non-zero while a transaction runs. */
	uint32_t n;
	uint32_t max;              /* entries in ent[]; fixed */
	struct sheaf_undo *ent;    /* [max]; fixed */
	uint32_t kind;             /* enum sheaf_tx_kind of the current one */
} __rte_cache_aligned;

/* A deferred sheaf stamped with the QSBR token it waits for. */
struct sheaf_rcu_entry {
	uint32_t sheaf;  /* arena index */
	uint32_t pad;
	uint64_t token;
};

/* An object deferred alone, when no sheaf was at hand (the fallback). */
struct sheaf_rcu_obj {
	void *obj;
	uint64_t token;
};

/** Per-socket barn: stacks of full and of empty sheaves, all under lock. */
struct sheaf_barn {
	struct sheaf_txlock lock;
	uint32_t nb_full;   /* lock; racy reads are hints */
	uint32_t nb_empty;  /* lock; racy reads are hints */
	uint32_t nb_objs;   /* objects in the full sheaves; lock; hints */
	uint32_t *full;     /* [nb_sheaves] arena indices, 0..nb_full */
	uint32_t *empty;    /* [nb_sheaves] arena indices, 0..nb_empty */
	/* Sheaves between two transactions (sheaf_barn.h); lock. */
	uint64_t transit_owner[SHEAF_TRANSIT]; /* 0: entry unused */
	uint32_t transit[SHEAF_TRANSIT];
	/*
	 * Deferred FIFO (sheaf_deferred.c): stamped sheaves, oldest at
	 * fifo_head; tokens grow from head to tail. Lock.
	 */
	uint32_t fifo_head;
	uint32_t fifo_count;        /* racy reads are hints */
	struct sheaf_rcu_entry *fifo; /* [nb_sheaves] */
	/* Deferred sheaf of callers without a slot, SHEAF_NONE; lock. */
	uint32_t shared_def;
} __rte_cache_aligned;

/** A run of up to SHEAF_SLAB_OBJS objects at a constant stride. */
struct sheaf_slab {
	uintptr_t base;     /* address of object 0; fixed */
	/* Bit i set: object i is free in this slab; depot lock. */
	uint64_t free_mask;
	/*
	 * Validate mode only: bit i set while object i is in the pool,
	 * clear while the user holds it. Atomic bit operations by any
	 * thread, see sheaf_validate.c.
	 */
	uint64_t in_pool;
	/* Bytes between its objects: the pool's, or more (a page each); fixed */
	uint32_t stride;
	uint32_t nb_objs;   /* objects in this slab, 1..64; fixed */
	uint32_t nb_free;   /* popcount of free_mask; depot lock */
	uint32_t prev;      /* bucket list links, SHEAF_SLAB_NONE ends; lock */
	uint32_t next;
	uint32_t depot;     /* depot (socket) it belongs to; fixed */
};

/* The bucket of slab s, which has a free object: its objects in use. */
static inline uint32_t
sheaf_slab_bucket(const struct sheaf_slab *s)
{
	return s->nb_objs - s->nb_free;
}

/*
 * Per-socket depot of slabs with free objects. Slabs sit in the bucket of
 * their objects in use (sheaf_slab_bucket()), so a take finds the fullest
 * partial slab with one bit scan, keeping the working set compact (an
 * lcore's refill looks near its home first: sheaf_depot_take()).
 */
struct sheaf_depot {
	struct sheaf_txlock lock;
	uint32_t nb_free;   /* free objects in slabs; lock, racy reads */
	uint64_t nonempty;  /* bit k: bucket[k] (k in use) non-empty */
	uint32_t bucket[SHEAF_SLAB_OBJS]; /* list heads by objects in use */
	/* Deferred fallback of this depot's objects (sheaf_deferred.c). */
	uint32_t fb_head;
	uint32_t fb_count;  /* racy reads are hints */
	uint32_t fb_size;   /* entries in fb[]: the depot's objects; fixed */
	struct sheaf_rcu_obj *fb;
} __rte_cache_aligned;

/*
 * Slot state word (sheaf_pair.h): main sheaf index, spare sheaf index,
 * objects in main, objects in spare. One store changes the slot whole.
 */
#define SHEAF_ST_MSIZE_SHIFT 0
#define SHEAF_ST_SSIZE_SHIFT SHEAF_SIZE_BITS
#define SHEAF_ST_MAIN_SHIFT (2 * SHEAF_SIZE_BITS)
#define SHEAF_ST_SPARE_SHIFT (2 * SHEAF_SIZE_BITS + SHEAF_IDX_BITS)

/* Slot gate bits: set by other threads, seen by the owner's fast path. */
#define SHEAF_GATE_VALIDATE 0x1 /* the pool validates: fixed */
#define SHEAF_GATE_DRAIN    0x2 /* request: give your sheaves back */
#define SHEAF_GATE_STAMP    0x4 /* request: stamp your deferred sheaf */
#define SHEAF_GATE_MARKED   0x8 /* a thief holds the slot (marker) */
#define SHEAF_GATE_GIVE     0x10 /* request: give back some objects */
#define SHEAF_GATE_REQUESTS (SHEAF_GATE_DRAIN | SHEAF_GATE_STAMP | \
	SHEAF_GATE_GIVE)

/* Slot owner's membarrier() registrations (sheaf_proc.h). */
#define SHEAF_MB_PRIVATE 0x1
#define SHEAF_MB_GLOBAL  0x2

/** Per-lcore state, one slot per lcore id (sheaf_slot.h). */
struct sheaf_slot {
	/*
	 * First cache line: all the fast path reads or writes.
	 * State word (sheaf_pair.h); writer: the owner inside a call, the
	 * thread holding the slot (its marker, or a dead owner's heir), or
	 * a transaction of one of those.
	 */
	uint64_t state;
	/* Incarnation of the owning process, 0 while unclaimed; CAS. */
	uint64_t owner;
	/* The arena sheaves' object arrays (struct sheaf_pool); fixed */
	void *objs_base;
	/*
	 * SHEAF_BUSY_CALL while the owner's thread is inside a call,
	 * SHEAF_BUSY_HEIR while a thief empties the slot it inherited;
	 * above them, the objects the fast paths moved since the owner's
	 * last entry that held the slot out of line (SHEAF_BUSY_GETS,
	 * _PUTS: the fast counters' pending parts, in the word the fast
	 * path stores anyway). Writer: the owner's thread, or the heir of
	 * a dead owner; the owner's exit from a call is a release
	 * (sheaf_slot.h).
	 */
	uint64_t busy;
	uint32_t gate;         /* SHEAF_GATE_*; atomic bit operations */
	/* Objects main and spare fill to: owner (sheaf_lcore_adapt()),
	 * relaxed stores; readers elsewhere load it relaxed. */
	uint32_t capacity;
	uint32_t barn;         /* index of the home barn; fixed */
	/* log2 of the bytes between two arena sheaves' object arrays */
	uint32_t objs_shift;
	/*
	 * The objects of DPDK's mempool cache of this slot's lcore id, NULL
	 * when the pool has none; fixed. A put of that table is a flush of
	 * the cache (sheaf_lcore.c).
	 */
	void **dcache;
	/*
	 * Counted by the owner (or the thread holding the slot) with a
	 * relaxed load and store, no read-modify-write; read relaxed by
	 * any thread, zeroed by a reset's CAS from any thread
	 * (sheaf_stats.c). The fast counters (ALLOC_FAST, FREE_FAST) hold
	 * what was folded out of busy; a slot's count is the sum
	 * (sheaf_slot_count()).
	 */
	uint64_t stat[RTE_SHEAF_STAT_MAX];
	/* Thief holding SHEAF_GATE_MARKED: its incarnation, 0 if none. */
	uint64_t marker;
	/*
	 * Requests by kind (SHEAF_REQ_*): req counts those made (any
	 * thread, atomic add), done (the last line) the last one served
	 * (the owner, or the thief or heir holding the slot). See
	 * sheaf_slot.h.
	 */
	uint32_t req[3];
	/*
	 * Objects a give request asks for (SHEAF_REQ_GIVE): the largest
	 * asked since the owner's last serve, raised by requesters (CAS),
	 * taken and zeroed by the owner's serve (exchange). See sheaf_slot.h.
	 */
	uint32_t want;
	/*
	 * Deferred sheaf: index (20 bits) and objects (12). Written by the
	 * owner, or the thread holding the slot (a thief, an heir), or a
	 * transaction of theirs; read relaxed by others (the barrier,
	 * counts, the dump).
	 */
	uint32_t dstate;
	uint32_t mb;           /* owner's SHEAF_MB_*, set at claim */
	/* Whose mb it is: the owner (incarnation) that stored it, 0 for
	 * none (sheaf_slot_claimed_now(), sheaf_slot_fence_reaches()). */
	uint64_t mb_inc;
	/* When the owner last ran short (CLOCK_MONOTONIC ns; see
	 * SHEAF_SHORT_US): owner's relaxed store, askers' relaxed load. */
	uint64_t short_ns;
	/*
	 * Idle detection (sheaf_slot_idle()), by thieves: the owner's
	 * activity last seen changed (release store, acquire load) and
	 * the latest clock of a thief that saw it change (a max, stored
	 * before the activity).
	 */
	uint64_t seen_activity;
	uint64_t seen_ns;
	/* Direction of the last barn trade (sheaf_pair.c); owner. */
	uint32_t last_trade;
	/*
	 * Home of the slot's refills (sheaf_depot_take()): 1 + the position
	 * in address order of the slab it last took objects from, 0 before
	 * its first. Written and read relaxed by the slot's holder in the
	 * depot's transaction; a hint, any value is safe.
	 */
	uint32_t home;
	/* Capacity adaptation (sheaf_lcore.c); owner, plain. */
	uint32_t adapt_slow;   /* slow entries since the last look */
	uint32_t adapt_resets; /* the pool's stats_resets at the last look */
	uint64_t adapt_moved;  /* objects moved at the last look */
	uint64_t adapt_calls;  /* objects those entries' calls asked for */
	/* A reclaim found the pool dry (sheaf_reclaim.c); owner, plain. */
	uint64_t dry_tsc;      /* when, on this thread's TSC */
	uint64_t dry_have;     /* what the others and the tiers held then */
	/*
	 * A refill of DPDK's cache that the dry look failed: the pair's
	 * state and the owner's call counts just after it
	 * (sheaf_lcore_dry_calls()), UINT64_MAX once a call out of line
	 * forgot it. The get DPDK makes at once for the call alone finds
	 * both unchanged (sheaf_lcore.c); owner, plain.
	 */
	uint64_t dry_refill_state;
	uint64_t dry_refill_calls;
	/*
	 * A run moving into main or spare by the cut protocol (sheaf_pair.h,
	 * sheaf_pair_cut_begin(): a flush of DPDK's cache, a prefill
	 * sheaf's return): the run's objects, 0 for none, and the state
	 * word before it. Set before the table is cut, cleared after the
	 * count: an heir that finds it set with the state unchanged counts
	 * the run lost (sheaf_slot_settle_cut(), before its slot reads
	 * quiet). Owner, relaxed stores in program order (signal fences);
	 * read by its heir, and relaxed as a hint by a flush
	 * (sheaf_flush.c).
	 */
	uint64_t cut_state;
	uint32_t cut_n;
	/*
	 * Acknowledgements by kind: stored by a serve only, polled by the
	 * requesters waiting for it (sheaf_ask_served()): a line of their
	 * own, which no call of the owner writes.
	 */
	uint32_t done[3] __rte_cache_aligned;
	/*
	 * When the next look whether the owner (SHEAF_LOOK_CLAIM for a
	 * claim, SHEAF_LOOK_OWNER for a thief) or the marking thief
	 * (SHEAF_LOOK_MARKER) is dead may be made (CLOCK_MONOTONIC ns), by
	 * any process: a look reads /proc (sheaf_slot.c). Relaxed CAS, a
	 * rate limit. Stored once per look period at most: the line stays
	 * the requesters'.
	 */
	uint64_t look_after[3];
	/*
	 * When a thief's look first saw the owner inside a call at the
	 * activity thieves last saw (sheaf_slot_note_inside()), 0 for not
	 * yet; zeroed with each new activity seen (sheaf_slot_idle()).
	 * Relaxed, a hint (sheaf_slot_stuck()).
	 */
	uint64_t inside_ns;
} __rte_cache_aligned;

/* Indexes of struct sheaf_slot::look_after. */
enum sheaf_look {
	SHEAF_LOOK_CLAIM,
	SHEAF_LOOK_OWNER,
	SHEAF_LOOK_MARKER,
};

/*
 * Park records (sheaf_shared.h): objects a signal handler could give to
 * no tier (its thread held their depot's lock), until its thread's
 * outermost call, or the recovery of its process, gives them back.
 */
#define SHEAF_PARK_RECS 16
#define SHEAF_PARK_OBJS 64

struct sheaf_park {
	/*
	 * Incarnation of the process whose thread holds the record (or of
	 * its recoverer), 0 when free: claimed by CAS (acquire), freed by a
	 * release store once n is 0.
	 */
	uint64_t owner;
	/*
	 * Objects in objs[]: raised by the holding thread once they are
	 * copied in; lowered only in the depot transactions that give them
	 * to the slabs (journaled).
	 */
	uint32_t n;
	uint32_t pad;
	void *objs[SHEAF_PARK_OBJS];
};

/*
 * A reclaim that found fewer objects in the other lcores and the shared
 * tiers together than it needed holds that look for this long, on its
 * lcore: a get run dry again meanwhile fails at once without reading the
 * other lcores' lines (which their every call writes: each look costs a
 * cache miss on both sides), unless it asks for no more than the look
 * found. Objects freed into other lcores' sheaves meanwhile wait for the
 * next look, as objects in another lcore's mempool cache are out of a
 * ring driver's reach.
 */
#define SHEAF_DRY_US 20

/*
 * An lcore that ran short itself (its get entered a reclaim past the dry
 * look) this recently is not asked to give by other lcores' reclaims: it
 * needs its objects. Two lcores short of the same objects otherwise hand
 * them back and forth, each hand-over a cache miss per object (the perf
 * app's rx-burst-low: 119k asks moving 3.3M objects in a run before, 41k
 * moving 1.1M after, at 20 us; 100 us: 0.565 to 0.617x ring_mp_mc:256,
 * failed rearms per object the same). A get may then fail while such an lcore holds
 * objects, as a ring driver's get fails while another lcore's mempool
 * cache holds them. Timed on CLOCK_MONOTONIC: the others read it.
 */
#define SHEAF_SHORT_US 100

/*
 * A reclaim waits for an asked owner seen inside a call (preempted there:
 * it answers when it runs again) up to this many idle times. An owner
 * that thieves' looks have seen inside one call, its activity unchanged,
 * for half as long is stuck there (stopped, at a breakpoint, dead where
 * no look can tell): reclaims leave it out (sheaf_slot_stuck()) until it
 * calls again, but for a look whether it is dead.
 */
#define SHEAF_STUCK_IDLES 100

/* Per-pool settings resolved from struct rte_sheaf_config. */
struct sheaf_tunables {
	uint64_t idle_ns;         /* no call for this long: idle */
	uint64_t membarrier_ns;   /* one membarrier() per pool per interval */
	uint64_t barrier_ns;      /* deferred barrier time-out */
	uint64_t dry_cycles;      /* a dry pool's look holds this long (TSC) */
};

/** The mempool's pool_data. */
struct sheaf_pool {
	uint64_t magic;            /* SHEAF_POOL_MAGIC */
	struct rte_mempool *mp;
	struct rte_sheaf_config cfg; /* defaults resolved */
	struct sheaf_tunables tun;
	uint32_t nb_nodes;         /* barns and depots: one per socket */
	uint32_t nb_sheaves;       /* sheaves in the arena */
	struct sheaf *arena;       /* [nb_sheaves], the sheaves' headers */
	/*
	 * Their object arrays, one allocation, 1 << objs_shift bytes each
	 * (room for capacity_max, a power of two: the fast path finds a
	 * sheaf's by a shift, sheaf_pair_objs())
	 */
	void *objs_arena;
	uint32_t objs_shift;
	struct sheaf_barn *barn;   /* [nb_nodes] */
	struct sheaf_depot *depot; /* [nb_nodes] */

	/*
	 * Slabs; grown by populate only, never concurrently with use of
	 * the pool (rte_sheaf_info_get() may read nb_slabs meanwhile:
	 * relaxed, a count).
	 */
	struct sheaf_slab *slabs;
	uint32_t *slab_by_addr;    /* slab indexes sorted by base address */
	uint32_t nb_slabs;
	uint32_t slabs_room;       /* entries allocated in both tables */

	/* Slots ever claimed (bit per lcore id); atomic OR, racy reads. */
	uint64_t claimed[(RTE_MAX_LCORE + 63) / 64];

	/*
	 * Written by reclaims and the shared path: a line of their own, off
	 * the read-mostly fields above that every reclaim and free reads.
	 * Next time (CLOCK_MONOTONIC ns) a membarrier() may run; CAS.
	 */
	uint64_t membarrier_after __rte_cache_aligned;

	/* Counters of callers without a slot; relaxed atomics. */
	uint64_t shared_stat[RTE_SHEAF_STAT_MAX] __rte_cache_aligned;
	/*
	 * rte_sheaf_stats_reset() calls, raised with release after each
	 * has zeroed the counters; an owner's adaptation reads it with
	 * acquire (sheaf_lcore_adapt()).
	 */
	uint32_t stats_resets;
	/*
	 * Prefill (sheaf_lend.h): oversize sheaves lent, a list under barn
	 * 0's lock, and how many; those returned, kept for the next oversize
	 * borrow (a list under the same lock); the only process that ever
	 * borrowed (0: none yet, UINT64_MAX: several), a relaxed hint; the
	 * next time (CLOCK_MONOTONIC ns) reclaim may look for dead
	 * borrowers, CAS.
	 */
	struct sheaf *lent_list;
	uint32_t nb_lent_list;
	uint32_t nb_idle_list;
	struct sheaf *idle_list;
	uint64_t lender;
	uint64_t lend_look_after;
	/*
	 * Deferred free: the QSBR variable, NULL until attached, then
	 * fixed; published with a release store (sheaf_deferred.h).
	 */
	struct rte_rcu_qsbr *qsbr;
	/*
	 * Park records, and the only process that ever claimed one (0:
	 * none yet, UINT64_MAX: several), a relaxed hint as lender is.
	 */
	uint64_t parker;
	struct sheaf_park park[SHEAF_PARK_RECS];

	struct sheaf_slot slot[RTE_MAX_LCORE];
};

/*
 * The pool's state, from a thread that was given mp by the app's own
 * hand-over after rte_sheaf_pool_create() (or DPDK's populate) returned:
 * that hand-over orders the state's set-up before this load.
 */
static inline struct sheaf_pool *
sheaf_pool_of(const struct rte_mempool *mp)
{
	return (struct sheaf_pool *)mp->pool_data;
}

/*
 * The same, from a thread that may have found mp by itself while it is
 * being populated (rte_mempool_lookup(), DPDK's mempool list: telemetry,
 * a dump, rte_mempool_avail_count() of a pool found by name). Acquire:
 * pairs with sheaf_pool_alloc()'s release of pool_data; the state read
 * through it is the one set up before.
 */
static inline struct sheaf_pool *
sheaf_pool_found(const struct rte_mempool *mp)
{
	return (struct sheaf_pool *)__atomic_load_n(&mp->pool_data,
		__ATOMIC_ACQUIRE);
}

/* Arena sheaf number i. */
static inline struct sheaf *
sheaf_at(const struct sheaf_pool *sp, uint32_t i)
{
	return &sp->arena[i];
}

/* The objects of arena sheaf number i (sheaf_at(sp, i)->objs). */
static inline void **
sheaf_objs_at(const struct sheaf_pool *sp, uint32_t i)
{
	return (void **)RTE_PTR_ADD(sp->objs_arena,
		(size_t)i << sp->objs_shift);
}

/* The home barn and depot of the calling thread: its socket's. */
static inline uint32_t
sheaf_home_node(const struct sheaf_pool *sp)
{
	unsigned int socket = rte_socket_id();

	return socket < sp->nb_nodes ? socket : 0;
}

/* The home node of a caller holding slot lc (its lcore's socket), or of
 * one without a slot (NULL: its thread's socket). */
static inline uint32_t
sheaf_home_of(const struct sheaf_pool *sp, const struct sheaf_slot *lc)
{
	return lc != NULL ? lc->barn : sheaf_home_node(sp);
}

/* Counter id of slot lc, read by its holder (not a fast counter). */
static inline uint64_t
sheaf_slot_stat(const struct sheaf_slot *lc, enum rte_sheaf_stat id)
{
	return __atomic_load_n(&lc->stat[id], __ATOMIC_RELAXED);
}

/*
 * The busy word (struct sheaf_slot): bits 0-1 the call bits, then two
 * 31-bit fields counting the objects the fast get and the fast put moved
 * since the owner's last entry out of line. The fast path enters only
 * while neither field has reached 2^30 (SHEAF_BUSY_FULL clear) and adds
 * at most a sheaf's 12-bit count a call: a field never carries into the
 * next. An entry out of line that holds the slot (sheaf_slot_hold())
 * folds the fields into the counters (sheaf_slot_fold()).
 */
#define SHEAF_BUSY_CALL 0x1 /* the owner's thread is inside a call */
#define SHEAF_BUSY_HEIR 0x2 /* a thief empties the slot it inherited */
#define SHEAF_BUSY_BITS UINT64_C(0x3)
#define SHEAF_BUSY_GETS 2   /* shift of the fast gets' objects */
#define SHEAF_BUSY_PUTS 33  /* shift of the fast puts' objects */
#define SHEAF_BUSY_FIELD ((UINT64_C(1) << 31) - 1)
#define SHEAF_BUSY_FULL (UINT64_C(1) << (SHEAF_BUSY_GETS + 30) | \
	UINT64_C(1) << (SHEAF_BUSY_PUTS + 30))

/* The pending part of fast counter id in busy word b (0 for others). */
static inline uint64_t
sheaf_busy_count(uint64_t b, enum rte_sheaf_stat id)
{
	if (id == RTE_SHEAF_STAT_ALLOC_FAST)
		return (b >> SHEAF_BUSY_GETS) & SHEAF_BUSY_FIELD;
	if (id == RTE_SHEAF_STAT_FREE_FAST)
		return (b >> SHEAF_BUSY_PUTS) & SHEAF_BUSY_FIELD;
	return 0;
}

/*
 * Counter id of slot lc: its word plus, for a fast counter, the part
 * pending in busy. Exact for the owner's thread; racy for any other (a
 * fold in between may count the part twice or not at all), as counters.
 * A reset stores minus the pending part (sheaf_stats_reset_slot()): read
 * between the owner's store of busy without it and its fold (or left so
 * by an owner that died there), the sum is below zero; it reads 0 (no
 * counter reaches 2^63).
 */
static inline uint64_t
sheaf_slot_count(const struct sheaf_slot *lc, enum rte_sheaf_stat id)
{
	uint64_t c = __atomic_load_n(&lc->stat[id], __ATOMIC_RELAXED) +
		sheaf_busy_count(__atomic_load_n(&lc->busy, __ATOMIC_RELAXED),
			id);

	return c > (uint64_t)INT64_MAX ? 0 : c;
}

/*
 * Count v for item id in slot lc, whose holder is the only writer: a
 * relaxed load and a store of the given order (no read-modify-write), as
 * readers and a reset on other threads read and store the word with
 * atomics. A reset racing with a count may be lost
 * (rte_sheaf_stats_reset() says so).
 */
static inline void
sheaf_slot_stat_add_order(struct sheaf_slot *lc, enum rte_sheaf_stat id,
	uint64_t v, int order)
{
	__atomic_store_n(&lc->stat[id],
		__atomic_load_n(&lc->stat[id], __ATOMIC_RELAXED) + v, order);
}

/* The same, relaxed: a counter nobody reads for ordering. */
static inline void
sheaf_slot_stat_add(struct sheaf_slot *lc, enum rte_sheaf_stat id, uint64_t v)
{
	sheaf_slot_stat_add_order(lc, id, v, __ATOMIC_RELAXED);
}

/*
 * Count v for item id: in the caller's slot (its holder the only writer)
 * when it holds one, else in the counters shared by callers without a
 * slot (a relaxed atomic: counters only).
 */
static inline void
sheaf_stat_add(struct sheaf_pool *sp, struct sheaf_slot *lc,
	enum rte_sheaf_stat id, uint64_t v)
{
	if (lc != NULL)
		sheaf_slot_stat_add(lc, id, v);
	else
		__atomic_fetch_add(&sp->shared_stat[id], v, __ATOMIC_RELAXED);
}

/*
 * A dead process's record of objects out of one place and not yet
 * counted in the next: *rec objects (a slot's cut_n, a prefill sheaf's
 * loading), unstored true when the count word is still the one the
 * record names (the count was not stored: they are in neither place).
 * Returns those objects, lost: 0 for none or a count that moved on
 * (stored with them: the record's clearing was the next store). The
 * caller logs them (CRIT), then settles the record
 * (sheaf_stat_settle_record()): a settler that dies in between has
 * them logged, then logged and counted by the next, never counted
 * unlogged. The reader is the dead process's recoverer, after its
 * death: relaxed, in program order.
 */
static inline uint32_t
sheaf_stat_record_lost(const uint32_t *rec, bool unstored)
{
	return unstored ? __atomic_load_n(rec, __ATOMIC_RELAXED) : 0;
}

/*
 * Settle the record *rec of sheaf_stat_record_lost(): its lost objects
 * (logged by the caller) counted (RTE_SHEAF_STAT_LOST), then the record
 * cleared: a settler that dies in between has them counted twice,
 * never not at all.
 */
static inline void
sheaf_stat_settle_record(struct sheaf_pool *sp, uint32_t *rec,
	uint32_t lost)
{
	if (__atomic_load_n(rec, __ATOMIC_RELAXED) == 0)
		return;
	if (lost != 0)
		sheaf_stat_add(sp, NULL, RTE_SHEAF_STAT_LOST, lost);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(rec, 0, __ATOMIC_RELAXED);
}

/*
 * Cut DPDK's mempool cache whose length is *tlen to its first left
 * objects, when a put's table is that whole cache (a flush; see
 * sheaf_lcore_cache_flush()): the objects past left have been copied out
 * of it (into a sheaf, a batch) or are about to move into the pool.
 * Either each object is in the cache or it has moved, never both: a
 * death between the cut and the move loses the objects cut (at most a
 * sheaf's capacity or a run of SHEAF_TX_OBJS), counted by the record
 * the caller made before the cut (the slot's cut_n, or a loss entry of
 * its transaction; doc/design.md). The same cut of a borrowed prefill
 * sheaf's count word (sheaf_prefill.c). Relaxed: the reader is this
 * thread (DPDK's code after the call) or, after this one's death, the
 * next process on the lcore id (a prefill sheaf's: the recoverer of its
 * dead borrower); the signal fences keep the store, in this thread's
 * order, after the copies before it and before the moves after it, and a dead
 * thread's order is all a later process sees of it (its exit orders its
 * stores before the look that finds it dead).
 */
static inline void
sheaf_cache_cut(uint32_t *tlen, uint32_t left)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(tlen, left, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

#endif /* _SHEAF_PVT_H_ */
