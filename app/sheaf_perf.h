/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_PERF_H_
#define _SHEAF_PERF_H_

/*
 * sheaf-perf compares mempool ops side by side in one process. A scenario
 * (local churn, pipeline, mbuf churn...) is measured for each ops spec in
 * turn, round after round (A, B, C, A, B, C...), so that the noise of a
 * shared machine falls on every ops alike and the per-round ratios to the
 * baseline stay meaningful even when absolute rates do not.
 *
 * Objects of the app:
 *   perf_opts      the command line, read-only once parsed.
 *   perf_scenario  a row of the scenario table: pool kind, lcore layout
 *                  and the body each lcore runs.
 *   perf_entry     one row of the report: a scenario measured with one
 *                  ops spec (or a yardstick row: floor, limit,
 *                  ceiling), its pool, kept across rounds, and the
 *                  samples of every round.
 *   perf_sync      the flags one measurement's lcores meet on.
 *   perf_worker    one lcore's part in a measurement, and its result.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "rte_sheaf.h"

#include "perf_floor.h"

/* Limits of the options, each with its reason. */
#define PERF_ROUNDS_MAX 1000     /* rounds: keeps a run finite */
#define PERF_SLICES_MAX 100      /* slices: each at least 1 ms (opts) */
#define PERF_BULK_MAX 512        /* objects: DPDK's largest cache size */
#define PERF_WINDOW_MAX 64       /* bulks held per lcore */
#define PERF_OPS_MAX 16          /* ops specs: DPDK's ops table size */
#define PERF_SECONDS_MAX 60.0    /* seconds per measurement */
#define PERF_RING_SIZE_MAX 65536 /* pipeline ring slots */
#define PERF_REASON_LEN 128      /* bytes of a failure reason */
#define PERF_LABEL_LEN 48        /* bytes of an ops label */
#define PERF_OBJ_SIZE_MAX (1u << 20)   /* bytes: far above any packet */
#define PERF_POOL_SIZE_MAX (1u << 26)  /* objects: memory of -m sizes */
#define PERF_STALL_MS_MAX 60000        /* ms: as long as a measurement */

/*
 * The timekeeper (main's lcore) reads its TSC once every PERF_TK_EVERY
 * calls of perf_worker_should_stop(), not every call. A read every call
 * added the same cost to every driver on lcore 0, pulling ratios and
 * shares toward 1: in local, the fastest scenario, it took lcore 0's
 * iteration from 29-33 to 31-37 cycles (ring_mp_mc:256, floor) and from
 * 38-39 to 41-44 (sheaf:0) on the development machine (AMD EPYC, where
 * back-to-back TSC reads take 23 cycles each; in the loop they overlap
 * other work). Every 64 calls the read costs under half a cycle an
 * iteration, and the deadline is overshot by 64 iterations at most:
 * about 1 us in local, 0.002% of a 50 ms slice; in the slowest loop the
 * timekeeper runs (pipeline's consumer freeing to bucket:0, about 6 us a
 * bulk of 32) about 0.4 ms, under 1%. The overshoot does not bias a
 * rate: the wall time ends at main's own stop, after it. A power of
 * two: the test is a mask.
 */
#define PERF_TK_EVERY 64

/** One ops spec of --ops: "name:cache[:capacity]". */
struct perf_ops_spec {
	char name[RTE_MEMPOOL_OPS_NAMESIZE]; /**< Mempool ops name. */
	unsigned int cache;                  /**< DPDK per-lcore cache size. */
	struct rte_sheaf_config sheaf;       /**< Used for the sheaf ops only. */
	char label[PERF_LABEL_LEN];          /**< As shown: name[/capN]. */
	char arg[PERF_LABEL_LEN];            /**< As given to --ops. */
};

/** What kind of pool a scenario measures. */
enum perf_pool_kind {
	PERF_POOL_PLAIN, /**< rte_mempool of --obj-size objects. */
	PERF_POOL_MBUF,  /**< pktmbuf pool of --data-room buffers. */
};

/** How a scenario places its roles on the --lcores list. */
enum perf_layout {
	PERF_LAYOUT_ALL,   /**< Every lcore runs the same role. */
	PERF_LAYOUT_PAIRS, /**< Consumer, producer, consumer, producer... */
};

/** What a row of the report measures. */
enum perf_entry_kind {
	PERF_ENTRY_OPS,     /**< A pool of one --ops spec. */
	PERF_ENTRY_FLOOR,   /**< A pool of the app's perf_floor ops. */
	PERF_ENTRY_LIMIT,   /**< pipeline, no pool: a ring per pair carries
			     *   the pointers back to the producer.
			     */
	PERF_ENTRY_CEILING, /**< pipeline, no pool: pointers go round. */
};

/** Roles of an lcore in a measurement. */
enum perf_role {
	PERF_ROLE_CHURN,    /**< Gets and puts on its own. */
	PERF_ROLE_CONSUMER, /**< Takes from a ring and frees. */
	PERF_ROLE_PRODUCER, /**< Allocates and gives to a ring. */
};

/** The command line. */
struct perf_opts {
	unsigned int scenarios[16];    /**< Indexes into perf_scenarios. */
	unsigned int nb_scenarios;
	struct perf_ops_spec ops[PERF_OPS_MAX];
	unsigned int nb_ops;
	unsigned int baseline;         /**< Index into ops. */
	unsigned int rounds;
	double seconds;                /**< Per measurement (all slices). */
	unsigned int slices;           /**< Runs a round splits each
					    * measurement into, entries
					    * alternating. */
	double warmup;                 /**< Per entry, before round 0. */
	unsigned int bulk;             /**< Objects per get and per put. */
	unsigned int window;           /**< Bulks each churn lcore holds. */
	unsigned int obj_size;         /**< Bytes, plain pools. */
	unsigned int pool_size;        /**< Objects per pool. */
	unsigned int data_room;        /**< Bytes, mbuf pools. */
	unsigned int ring_size;        /**< Pipeline ring, power of 2. */
	unsigned int stall_ms;         /**< Failing gets this long fail a run. */
	unsigned int lcores[RTE_MAX_LCORE]; /**< --lcores, main first. */
	unsigned int nb_lcores;        /**< 0 until resolved after EAL init. */
	unsigned int nb_left_out;      /**< Default scenarios that cannot run. */
	bool touch;                    /**< Write each object once per get. */
	bool rotate;                   /**< Start round r at entry r. */
	bool strict;                   /**< Any failure fails the exit code. */
	bool quiet;                    /**< No progress line. */
	bool sheaf_dump;               /**< rte_sheaf_dump() per sheaf pool. */
	bool list;                     /**< List scenarios and ops, then exit. */
	bool help;                     /**< --help: usage, then exit. */
	bool ops_given;                /**< --ops was on the command line. */
	bool scenarios_given;          /**< --scenario was too. */
	const char *csv;
	const char *json;
	const char *lcores_arg;        /**< Raw --lcores, parsed after EAL. */
	const char *baseline_arg;      /**< Raw --baseline. */
};

/** The flags the lcores of one measurement meet on. */
struct perf_sync {
	uint32_t ready;    /**< Lcores set up; atomic, each adds 1. */
	uint32_t go;       /**< Set once by main; publishes deadline. */
	uint32_t stop;     /**< Set by the timekeeper or a failing lcore. */
	uint32_t nb_ready; /**< Lcores to wait for before go, main too. */
	uint64_t run;      /**< TSC cycles from go to the deadline. */
	uint64_t t_go;     /**< Main's TSC at go; written before go. */
	uint64_t deadline; /**< TSC; written before go, read-only after. */
	uint64_t stall;    /**< TSC cycles of failing gets that fail a run. */
	/* membarrier() calls of the pool measured, read by main at go and
	 * at its stop (perf_sync_mb_read()): those of go to stop alone,
	 * the span the rate divides by, no setup, no drain.
	 */
	struct rte_mempool *mb_pool; /**< NULL: not counted. */
	int mb_stat;       /**< Its statistics item of membarrier() calls. */
	unsigned int mb_reads; /**< Counts read: 2 once both are. */
	uint64_t mb_go;    /**< The count at go. */
	uint64_t mb_stop;  /**< The count at main's stop. */
} __rte_cache_aligned;

/** One lcore's part in a measurement. Owner lcore only while it runs. */
struct perf_worker {
	const struct perf_scenario *sc;
	struct perf_sync *sync;
	const struct perf_opts *opts;
	struct rte_mempool *mp;   /**< NULL for limit, ceiling rows. */
	void *priv;               /**< The entry's scenario state. */
	enum perf_entry_kind kind; /**< Of the entry measured. */
	struct rte_ring *ring;    /**< Pairs layout: the pair's ring. */
	struct perf_worker *peer; /**< Pairs layout: the other end. */
	void **held;              /**< (window + 1) * bulk slots. */
	unsigned int lcore_id;
	unsigned int index;       /**< Position in --lcores. */
	enum perf_role role;
	bool mbuf;                /**< Objects are mbufs. */
	bool timekeeper;          /**< Stores stop at the deadline. */
	uint32_t tk_calls;        /**< Timekeeper: should_stop calls. */
	uint32_t done;            /**< Producer: nothing more to enqueue. */
	/* Results, read by main after rte_eal_wait_lcore(). */
	uint64_t objects;         /**< Objects counted (scenario's counts). */
	uint64_t t_start;         /**< This lcore's TSC at go; 0: untimed
				   *   (deferred's readers), its cycles
				   *   left out of cyc/obj. */
	uint64_t t_end;           /**< This lcore's TSC at stop. */
	uint64_t get_fail;        /**< Failed get calls. */
	uint64_t fail_cycles;     /**< Overload: this lcore's TSC cycles
				   *   inside its failed gets.
				   */
	uint64_t rearm_partial;   /**< rx: rearms short of the deficit. */
	uint64_t polls;           /**< rx: polls of the queue. */
	uint64_t polls_starved;   /**< rx: polls that found fewer mbufs
				   *   armed than the largest burst.
				   */
	char reason[PERF_REASON_LEN]; /**< Non-empty: the run failed. */
} __rte_cache_aligned;

struct perf_entry;

struct perf_scenario {
	const char *name;
	const char *help;
	/** What its bodies count in perf_worker.objects, the objects of
	 * Mobj/s: the legend above its table. */
	const char *counts;
	enum perf_pool_kind pool;
	enum perf_layout layout;
	bool floor;               /**< Adds the floor row, the share's base. */
	bool limit;               /**< Adds the limit row, the share's base. */
	bool ceiling;             /**< Adds the ceiling row. */
	bool sheaf_only;          /**< Other ops' rows report n/a. */
	bool rearms;              /**< get_fail, rearm_partial are rearms. */
	/**
	 * rx: descriptors a plain rearm allocates at a time (as many
	 * chunks as the deficit holds, up to the first that fails);
	 * 0: the whole deficit in one call.
	 */
	unsigned int rearm_chunk;
	/**
	 * Gets are expected to fail: each is timed (fail_cycles), the
	 * report shows the overload columns, and a round that moved no
	 * object is a result (the pool could serve none), not a failure.
	 */
	bool overload;
	/** The report lists each round's ratio to the baseline. */
	bool round_ratios;
	/** Objects per pool; NULL: --pool-size. */
	unsigned int (*pool_size)(const struct perf_opts *o);
	/** Checks the options against the layout; 0 or -1 with a message. */
	int (*check)(const struct perf_opts *o, char *err, size_t len);
	/** The body of every lcore; results go in w. */
	void (*body)(struct perf_worker *w);
	/**
	 * Per entry, once its pool exists: sets e->priv up; NULL: none.
	 * 0, or -1 with a message (the entry then fails).
	 */
	int (*setup)(const struct perf_opts *o, struct perf_entry *e,
		char *err, size_t len);
	/** Releases e->priv, before the pool is freed; NULL: none. */
	void (*teardown)(struct perf_entry *e);
};

extern const struct perf_scenario perf_scenarios[];
extern const unsigned int perf_nb_scenarios;

/** Status of a round or an entry. */
enum perf_status {
	PERF_OK,
	PERF_SKIPPED,   /**< Not run: the entry failed earlier. */
	PERF_FAILED,    /**< The ops could not run the scenario. */
	PERF_NA,        /**< The scenario does not apply to the ops. */
};

/** One measurement. */
struct perf_sample {
	enum perf_status status;
	uint64_t objects;
	uint64_t wall_cycles;   /**< Main lcore's TSC, go to its stop. */
	uint64_t lcore_cycles;  /**< Sum over lcores of their busy time. */
	uint64_t get_fail;
	uint64_t fail_cycles;   /**< Sum of the lcores' own differences. */
	uint64_t rearm_partial;
	uint64_t membarriers;   /**< membarrier() calls of a sheaf pool. */
	bool has_membarriers;   /**< The library counts them (by name). */
	double mobjs;           /**< Million objects per second. */
	double cycles_per_obj;  /**< lcore_cycles / objects; NAN: none moved. */
	double ratio;           /**< mobjs / baseline's mobjs, same round. */
	bool has_ratio;
	double share;           /**< mobjs / floor's or limit's, same round. */
	bool has_share;
	/* Overload figures; NAN where there is none. */
	double fail_per_obj;    /**< get_fail / objects. */
	double ns_per_fail;     /**< fail_cycles / get_fail, in ns. */
	double mb_per_s;        /**< membarriers per wall second. */
	uint64_t polls;         /**< rx: polls, all lcores. */
	uint64_t polls_starved; /**< rx: starved polls, all lcores. */
	/** rx: polls_starved / polls, all lcores; NAN: none. */
	double starved;
	/** rx: the same, of the lcore worst off; NAN: none. */
	double starved_max;
	bool whole;             /**< Pool whole after the run. */
	/** Objects the pool (limit: its rings) held after the run, not
	 * capped at its size: more than it has is a double free. */
	uint64_t held;
};

/** One row of the report: a scenario measured with one ops spec. */
struct perf_entry {
	enum perf_entry_kind kind;
	const struct perf_ops_spec *ops; /**< NULL: limit, ceiling rows. */
	bool baseline;
	struct rte_mempool *mp;
	void *priv;                      /**< Scenario state, see setup. */
	struct perf_sample *rounds;      /**< opts.rounds samples. */
	/** rx: each lcore's polls and starved polls in the round so far
	 * (its slices summed), opts.nb_lcores each. */
	uint64_t *lc_polls;
	uint64_t *lc_starved;
	enum perf_status status;         /**< PERF_FAILED once any failed. */
	bool not_whole;                  /**< A round lost or duplicated
					  *   objects. */
	char reason[PERF_REASON_LEN];
	/* Summary over PERF_OK rounds. */
	unsigned int nb_ok;
	double mobjs_med, mobjs_min, mobjs_max;
	double cpo_med;   /**< Of the OK rounds that moved objects; NAN: none. */
	unsigned int nb_ratio;
	double ratio_med, ratio_min, ratio_max;
	unsigned int nb_share;
	double share_med, share_min, share_max;
	uint64_t get_fail;
	uint64_t rearm_partial;
	/* Overload figures over the OK rounds together; NAN: none. */
	double fail_per_obj, ns_per_fail, mb_per_s;
	/** Medians of the rounds' starved and starved_max; NAN: none. */
	double starved, starved_max;
};

/** A scenario's results. */
struct perf_result {
	const struct perf_scenario *sc;
	struct perf_entry *entries;
	unsigned int nb_entries;
	int ref;  /**< Entry the share refers to (floor, limit); -1: none. */
};

/* sheaf_perf_opts.c */
/** Parses the app options; 0, 1 for --help, or -1 after a message. */
int perf_parse_args(int argc, char **argv, struct perf_opts *o);
/** Resolves --lcores once EAL is up; 0, or -1 after a message. */
int perf_resolve_lcores(struct perf_opts *o);
void perf_usage(FILE *f, const char *prg);
int perf_parse_uint(const char *arg, const char *name, unsigned long min,
	unsigned long max, unsigned int *out);
int perf_parse_ops_spec(const char *arg, struct perf_ops_spec *spec);

/* sheaf_perf_scenarios.c */
/*
 * Once nb_ready lcores are ready: stamps t_go, sets the deadline, gives
 * go. Main's, from its perf_worker_wait_go() or when it takes no part.
 */
void perf_sync_go(struct perf_sync *s, uint32_t nb_ready);
/** Main: the membarrier() count of s->mb_pool into *n (see perf_sync). */
void perf_sync_mb_read(struct perf_sync *s, uint64_t *n);
void perf_worker_wait_go(struct perf_worker *w);
/** A body's loop is over: stamps t_end (main: reads mb_stop after it). */
void perf_worker_end(struct perf_worker *w);
void perf_worker_fail(struct perf_worker *w, const char *fmt, ...)
	__rte_format_printf(2, 3);

static inline bool
perf_worker_should_stop(struct perf_worker *w)
{
	struct perf_sync *s = w->sync;

	RTE_BUILD_BUG_ON(!RTE_IS_POWER_OF_2(PERF_TK_EVERY));
	if (w->timekeeper &&
			(++w->tk_calls & (PERF_TK_EVERY - 1)) == 0 &&
			rte_rdtsc() >= s->deadline) {
		/* Relaxed: stop carries no data; results are published by
		 * the lcore's return, seen through rte_eal_wait_lcore().
		 */
		__atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
		return true;
	}
	/* Relaxed: a late read only runs one more iteration. */
	return __atomic_load_n(&s->stop, __ATOMIC_RELAXED) != 0;
}

/*
 * For a get that retries: whether to give up, at stop. Before go (t_start
 * 0: the gets of a body's setup) only a stop already stored counts: the
 * deadline is not set yet (0), which the timekeeper would take as passed
 * and store stop, ending the measurement before it began.
 */
static inline bool
perf_worker_retry_stop(struct perf_worker *w)
{
	if (w->t_start == 0)
		/* Relaxed: a late read only retries once more. */
		return __atomic_load_n(&w->sync->stop, __ATOMIC_RELAXED) != 0;
	return perf_worker_should_stop(w);
}

/* sheaf_perf_rx.c: rx-* scenarios. */
/** rx-chunk*: descriptors a rearm call (ixgbe's, i40e's threshold). */
#define PERF_RX_CHUNK 32
void perf_rx_body(struct perf_worker *w);
int perf_rx_check(const struct perf_opts *o, char *err, size_t len);
unsigned int perf_rx_low_pool_size(const struct perf_opts *o);

/* sheaf_perf_rcu.c: the deferred scenario. */
void perf_rcu_body(struct perf_worker *w);
int perf_rcu_check(const struct perf_opts *o, char *err, size_t len);
int perf_rcu_setup(const struct perf_opts *o, struct perf_entry *e,
	char *err, size_t len);
void perf_rcu_teardown(struct perf_entry *e);

/* pipeline's limit row: setup, teardown, objects back home. */
int perf_limit_setup(const struct perf_opts *o, struct perf_entry *e,
	char *err, size_t len);
void perf_limit_teardown(struct perf_entry *e);
unsigned int perf_limit_avail(const struct perf_entry *e,
	unsigned int *size);

/* sheaf_perf_report.c */
void perf_summarise(const struct perf_opts *o, struct perf_result *r);
void perf_print_table(FILE *f, const struct perf_opts *o,
	const struct perf_result *r);
int perf_write_csv(const char *path, const struct perf_opts *o,
	const struct perf_result *res, unsigned int nb);
int perf_write_json(const char *path, const struct perf_opts *o,
	const struct perf_result *res, unsigned int nb);
const char *perf_entry_label(const struct perf_entry *e);
unsigned int perf_entry_cache(const struct perf_entry *e);

#endif /* _SHEAF_PERF_H_ */
