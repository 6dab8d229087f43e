/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * sheaf-perf: options, pools and the measurement runner.
 *
 * For each scenario, every ops spec gets one pool, kept across rounds.
 * Round r measures every entry once, in a fixed order (or rotated with
 * --rotate), so each round compares entries under the same machine
 * conditions. The wall time of a measurement is read on the main lcore
 * alone, from go to its stop: lcores' TSCs need not agree (VMs), so
 * stamps of different lcores are never compared. After every measurement
 * the pool must be whole again: once all lcores are done it holds each of
 * its objects once, no fewer (lost) and no more (freed twice), counted
 * without the cap at the pool's size of rte_mempool_avail_count().
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_version.h>

#include "sheaf_perf.h"

#define EXIT_USAGE 2

/* Retries of rte_sheaf_flush() while lcores report a pending flush. */
#define PERF_FLUSH_TRIES 3

/* The sheaf statistics item counting membarrier() calls. */
#define PERF_MEMBARRIER_STAT "membarrier"

/* State of one scenario's run, owned by main. */
struct perf_ctx {
	const struct perf_opts *o;
	const struct perf_scenario *sc;
	unsigned int sc_idx;
	struct perf_worker *workers;  /* one per lcore taking part */
	unsigned int nb_workers;
	struct perf_worker *main_worker; /* NULL: main only keeps time */
	struct rte_ring **rings;      /* one per pair */
	unsigned int nb_rings;
	struct perf_sync *sync;
	uint64_t t_stop;              /* main's TSC at its stop */
};

static bool
ops_registered(const char *name)
{
	unsigned int i;

	for (i = 0; i < rte_mempool_ops_table.num_ops; i++)
		if (strcmp(rte_mempool_ops_table.ops[i].name, name) == 0)
			return true;
	return false;
}

static void
list_ops(FILE *f)
{
	unsigned int i;

	fprintf(f, "registered mempool ops:");
	for (i = 0; i < rte_mempool_ops_table.num_ops; i++)
		fprintf(f, " %s", rte_mempool_ops_table.ops[i].name);
	fprintf(f, "\n");
}

static bool
entry_is_sheaf(const struct perf_entry *e)
{
	return e->ops != NULL && strcmp(e->ops->name, RTE_SHEAF_OPS_NAME) == 0;
}

/*
 * Id of the membarrier statistics item, looked up by name at start-up:
 * a library that does not count them has none (-1), its pools show n/a.
 */
static int mb_stat = -1;

static void
mb_stat_lookup(void)
{
	const char *name;
	unsigned int id;

	/* Ids past RTE_SHEAF_STAT_MAX would not fit struct rte_sheaf_stats. */
	for (id = 0; id < RTE_SHEAF_STAT_MAX; id++) {
		name = rte_sheaf_stat_name((enum rte_sheaf_stat)id);
		if (name == NULL)
			return;
		if (strcmp(name, PERF_MEMBARRIER_STAT) == 0) {
			mb_stat = (int)id;
			return;
		}
	}
}


static struct rte_mempool *
pool_create(const struct perf_ctx *c, unsigned int idx,
	const struct perf_ops_spec *spec, char *err, size_t len)
{
	const struct perf_opts *o = c->o;
	bool sheaf = strcmp(spec->name, RTE_SHEAF_OPS_NAME) == 0;
	unsigned int size = c->sc->pool_size != NULL ? c->sc->pool_size(o) :
		o->pool_size;
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *mp;
	int ret;

	snprintf(name, sizeof(name), "perf%u_%u", c->sc_idx, idx);
	if (!ops_registered(spec->name)) {
		snprintf(err, len, "ops %s not registered", spec->name);
		return NULL;
	}
	if (c->sc->pool == PERF_POOL_MBUF) {
		if (sheaf && (spec->sheaf.capacity != 0 ||
				spec->sheaf.flags != 0))
			mp = rte_sheaf_pktmbuf_pool_create(name, size,
				spec->cache, 0, (uint16_t)o->data_room,
				SOCKET_ID_ANY, &spec->sheaf);
		else
			mp = rte_pktmbuf_pool_create_by_ops(name, size,
				spec->cache, 0, (uint16_t)o->data_room,
				SOCKET_ID_ANY, spec->name);
		if (mp == NULL)
			snprintf(err, len, "pool create: %s",
				rte_strerror(rte_errno));
		return mp;
	}

	mp = rte_mempool_create_empty(name, size, o->obj_size,
		spec->cache, 0, SOCKET_ID_ANY, 0);
	if (mp == NULL) {
		snprintf(err, len, "pool create: %s", rte_strerror(rte_errno));
		return NULL;
	}
	/* The sheaf config is read at populate; spec outlives the pool. */
	ret = rte_mempool_set_ops_byname(mp, spec->name,
		sheaf ? (void *)(uintptr_t)&spec->sheaf : NULL);
	if (ret != 0) {
		snprintf(err, len, "set ops: %s", rte_strerror(-ret));
		goto fail;
	}
	ret = rte_mempool_populate_default(mp);
	if (ret < 0) {
		snprintf(err, len, "populate: %s", rte_strerror(-ret));
		goto fail;
	}
	if ((unsigned int)ret != size) {
		snprintf(err, len, "populate: %d of %u objects", ret, size);
		goto fail;
	}
	return mp;
fail:
	rte_mempool_free(mp);
	return NULL;
}

/*
 * The objects pool mp holds, with no lcore inside it: its driver's and
 * DPDK's per-lcore caches'. Not capped at the size, as
 * rte_mempool_avail_count() and sheaf's get_count are (objects move
 * between tiers while they count), so that an object freed twice shows
 * as one more. A sheaf pool's are its tiers' (rte_sheaf_info_get():
 * slabs, barns with the sheaves in transit, lcore sheaves); sheaves lent
 * by rte_sheaf_prefill_get() and objects freed deferred, not reclaimed,
 * are out of the pool, as a get's are.
 */
static uint64_t
pool_count(const struct perf_entry *e)
{
	const struct rte_mempool *mp = e->mp;
	struct rte_sheaf_info in;
	uint64_t n;
	unsigned int i;

	if (entry_is_sheaf(e) && rte_sheaf_info_get(mp, &in) == 0)
		n = (uint64_t)in.in_slabs + in.in_barns + in.in_lcores;
	else
		/* rte_mempool_ops_get_count() is not exported: its callback. */
		n = rte_mempool_get_ops(mp->ops_index)->get_count(mp);
	for (i = 0; mp->cache_size != 0 && i < RTE_MAX_LCORE; i++)
		n += mp->local_cache[i].len;
	return n;
}

/*
 * Whole: every object is back, once. Sheaf lcore sheaves count when
 * quiet; a flush is the fallback should they not, when objects are
 * missing only: a flush to the slabs would drop a duplicate (the slabs
 * refuse an object already free) and hide it.
 */
static bool
pool_whole(const struct perf_entry *e, uint64_t *held)
{
	struct rte_mempool *mp = e->mp;
	unsigned int i;

	*held = pool_count(e);
	for (i = 0; i < PERF_FLUSH_TRIES && *held < mp->size &&
			entry_is_sheaf(e); i++) {
		int pending = rte_sheaf_flush(mp);

		*held = pool_count(e);
		if (pending <= 0)
			break;
	}
	return *held == mp->size;
}

static int
perf_lcore_run(void *arg)
{
	struct perf_worker *w = arg;

	w->sc->body(w);
	return 0;
}

/* Clears the results of the previous measurement. */
static void
measure_reset(struct perf_ctx *c, struct perf_entry *e,
	struct perf_sample *s)
{
	struct perf_worker *w;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	memset(c->sync, 0, sizeof(*c->sync));
	c->sync->stall = (uint64_t)c->o->stall_ms * rte_get_tsc_hz() / 1000;
	for (i = 0; i < c->nb_workers; i++) {
		w = &c->workers[i];
		w->mp = e->mp;
		w->priv = e->priv;
		w->kind = e->kind;
		w->done = 0;
		w->tk_calls = 0;
		w->objects = 0;
		w->t_start = 0;
		w->t_end = 0;
		w->get_fail = 0;
		w->fail_cycles = 0;
		w->rearm_partial = 0;
		w->polls = 0;
		w->polls_starved = 0;
		w->reason[0] = '\0';
	}
	/* Read by main at go and at its stop: perf_sync_mb_read(). */
	if (mb_stat >= 0 && entry_is_sheaf(e)) {
		c->sync->mb_pool = e->mp;
		c->sync->mb_stat = mb_stat;
	}
}

/* Launches every worker but main's; returns how many run. */
static unsigned int
measure_launch(struct perf_ctx *c)
{
	unsigned int i, nb_remote = 0;
	struct perf_worker *w;
	int ret;

	for (i = 0; i < c->nb_workers; i++) {
		w = &c->workers[i];
		if (w == c->main_worker)
			continue;
		ret = rte_eal_remote_launch(perf_lcore_run, w, w->lcore_id);
		if (ret != 0) {
			snprintf(w->reason, sizeof(w->reason),
				"launch on lcore %u: %s", w->lcore_id,
				rte_strerror(-ret));
			/* Release: nothing comes from it, its consumer
			 * may finish its drain.
			 */
			__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
			/* Relaxed: launched lcores stop at go. */
			__atomic_store_n(&c->sync->stop, 1, __ATOMIC_RELAXED);
			continue;
		}
		nb_remote++;
	}
	return nb_remote;
}

/*
 * Runs main's part, whose perf_worker_wait_go() sets the deadline and go
 * once it and the nb_remote lcores are set up; or, main taking no part,
 * gives go once they are and keeps time. Then waits for every lcore.
 */
static void
measure_run(struct perf_ctx *c, unsigned int nb_remote, double seconds)
{
	struct perf_sync *sync = c->sync;
	unsigned int i;

	sync->run = (uint64_t)(seconds * (double)rte_get_tsc_hz());
	if (c->main_worker != NULL) {
		/* Its perf_worker_wait_go() gives go (after its setup). */
		sync->nb_ready = nb_remote + 1;
		perf_lcore_run(c->main_worker);
		/* Every body meets the others; one that did not must not
		 * leave them waiting for go. Relaxed: nothing to publish. */
		if (__atomic_load_n(&sync->go, __ATOMIC_RELAXED) == 0) {
			__atomic_store_n(&sync->stop, 1, __ATOMIC_RELAXED);
			sync->t_go = rte_rdtsc();
			__atomic_store_n(&sync->go, 1, __ATOMIC_RELEASE);
		}
		c->t_stop = c->main_worker->t_end;
	} else {
		perf_sync_go(sync, nb_remote);
		/* Relaxed: stop carries no data (see perf_worker_should_stop). */
		while (__atomic_load_n(&sync->stop, __ATOMIC_RELAXED) == 0 &&
				rte_rdtsc() < sync->deadline)
			rte_pause();
		__atomic_store_n(&sync->stop, 1, __ATOMIC_RELAXED);
		c->t_stop = rte_rdtsc();
		perf_sync_mb_read(sync, &sync->mb_stop);
	}
	/* The lcores' results are visible once their wait returns. */
	for (i = 0; i < c->nb_workers; i++)
		if (&c->workers[i] != c->main_worker)
			rte_eal_wait_lcore(c->workers[i].lcore_id);
}

/* The rates of s from its counts. */
static void
sample_derive(struct perf_sample *s)
{
	s->starved = s->polls != 0 ?
		(double)s->polls_starved / (double)s->polls : NAN;
	s->mobjs = 0;
	if (s->objects != 0 && s->wall_cycles != 0)
		s->mobjs = (double)s->objects * (double)rte_get_tsc_hz() /
			(double)s->wall_cycles / 1e6;
	/* None where no object moved (overload scenarios): not 0, which
	 * would pull the median of the rounds down. */
	s->cycles_per_obj = s->objects != 0 ?
		(double)s->lcore_cycles / (double)s->objects : NAN;
}

/*
 * Adds slice s of a round to acc, the round's sample so far: counts and
 * times summed, the worst status and queue, whole only if every slice
 * left the pool whole.
 */
static void
sample_add(struct perf_sample *acc, const struct perf_sample *s)
{
	acc->objects += s->objects;
	acc->wall_cycles += s->wall_cycles;
	acc->lcore_cycles += s->lcore_cycles;
	acc->get_fail += s->get_fail;
	acc->fail_cycles += s->fail_cycles;
	acc->rearm_partial += s->rearm_partial;
	acc->membarriers += s->membarriers;
	acc->has_membarriers &= s->has_membarriers;
	acc->polls += s->polls;
	acc->polls_starved += s->polls_starved;
	/* The round's so far (measure_worst()). */
	acc->starved_max = s->starved_max;
	if (s->status == PERF_FAILED)
		acc->status = PERF_FAILED;
	if (acc->whole && !s->whole) {
		acc->whole = false;
		acc->held = s->held;
	}
	sample_derive(acc);
}

/* Sums the workers' results into s; returns the first failure or NULL. */
static const char *
measure_collect(const struct perf_ctx *c, struct perf_sample *s)
{
	const struct perf_worker *w;
	const char *reason = NULL;
	uint64_t polls = 0, starved = 0;
	unsigned int i;

	for (i = 0; i < c->nb_workers; i++) {
		w = &c->workers[i];
		if (w->reason[0] != '\0' && reason == NULL)
			reason = w->reason;
		polls += w->polls;
		starved += w->polls_starved;
		s->objects += w->objects;
		s->get_fail += w->get_fail;
		s->fail_cycles += w->fail_cycles;
		s->rearm_partial += w->rearm_partial;
		/* Each lcore's own TSC, so its difference only. */
		if (w->t_start != 0 && w->t_end > w->t_start)
			s->lcore_cycles += w->t_end - w->t_start;
	}
	s->polls = polls;
	s->polls_starved = starved;
	for (i = 0; i < c->nb_rings && reason == NULL; i++)
		if (rte_ring_count(c->rings[i]) != 0)
			reason = "ring not drained";
	if (reason == NULL && s->objects == 0 && !c->sc->overload)
		reason = "no object moved";
	/* Main's TSC alone: the lcores' TSCs need not agree. */
	s->wall_cycles = c->t_stop > c->sync->t_go ?
		c->t_stop - c->sync->t_go : 0;
	sample_derive(s);
	return reason;
}

/*
 * The pool (the limit row: its rings) must be whole after a measurement;
 * the entry keeps why not.
 */
static void
measure_check_whole(struct perf_entry *e, struct perf_sample *s)
{
	unsigned int size = 0;

	s->whole = true;
	if (e->mp != NULL) {
		s->whole = pool_whole(e, &s->held);
		size = e->mp->size;
	} else if (e->kind == PERF_ENTRY_LIMIT && e->priv != NULL) {
		s->held = perf_limit_avail(e, &size);
		s->whole = s->held == size;
	}
	if (!s->whole && !e->not_whole) {
		e->not_whole = true;
		if (e->reason[0] == '\0' && s->held > size)
			snprintf(e->reason, sizeof(e->reason),
				"%" PRIu64 " of %u objects after a run: %" PRIu64
				" more (objects freed twice)", s->held, size,
				s->held - size);
		else if (e->reason[0] == '\0')
			snprintf(e->reason, sizeof(e->reason),
				"%" PRIu64 " of %u objects after a run: %" PRIu64
				" fewer (lost)", s->held, size, size - s->held);
	}
}

/*
 * rx: the starved share of the lcore worst off in the round so far, its
 * polls summed over the round's slices (first: the round's first), so
 * that a starved queue is not averaged away with the others, nor taken
 * from its worst slice alone.
 */
static void
measure_worst(const struct perf_ctx *c, struct perf_entry *e,
	struct perf_sample *s, bool first)
{
	const struct perf_worker *w;
	unsigned int i;
	double v;

	s->starved_max = NAN;
	for (i = 0; i < c->nb_workers; i++) {
		w = &c->workers[i];
		if (first)
			e->lc_polls[i] = e->lc_starved[i] = 0;
		e->lc_polls[i] += w->polls;
		e->lc_starved[i] += w->polls_starved;
		if (e->lc_polls[i] == 0)
			continue;
		v = (double)e->lc_starved[i] / (double)e->lc_polls[i];
		if (isnan(s->starved_max) || v > s->starved_max)
			s->starved_max = v;
	}
}

/*
 * One measurement of entry e, seconds long, into s; first: the first
 * slice of a round (or a warm-up).
 */
static void
measure(struct perf_ctx *c, struct perf_entry *e, double seconds,
	struct perf_sample *s, bool first)
{
	const char *reason;

	measure_reset(c, e, s);
	measure_run(c, measure_launch(c), seconds);
	reason = measure_collect(c, s);
	measure_worst(c, e, s, first);
	/* Go to main's stop, the span of wall_cycles. */
	s->has_membarriers = c->sync->mb_reads == 2;
	s->membarriers = s->has_membarriers ?
		c->sync->mb_stop - c->sync->mb_go : 0;
	s->status = reason == NULL ? PERF_OK : PERF_FAILED;
	if (reason != NULL && e->reason[0] == '\0')
		snprintf(e->reason, sizeof(e->reason), "%s", reason);
	measure_check_whole(e, s);
}

/* The workers of a scenario: roles, held buffers, main's part. */
static int
ctx_setup_workers(struct perf_ctx *c, unsigned int nb)
{
	const struct perf_opts *o = c->o;
	size_t held = (size_t)(o->window + 1) * o->bulk * sizeof(void *);
	unsigned int i;

	c->workers = rte_zmalloc("perf_workers", nb * sizeof(*c->workers),
		RTE_CACHE_LINE_SIZE);
	if (c->workers == NULL)
		return -ENOMEM;
	c->nb_workers = nb;
	for (i = 0; i < nb; i++) {
		struct perf_worker *w = &c->workers[i];

		w->sc = c->sc;
		w->sync = c->sync;
		w->opts = o;
		w->lcore_id = o->lcores[i];
		w->index = i;
		w->mbuf = c->sc->pool == PERF_POOL_MBUF;
		w->held = rte_zmalloc_socket("perf_held", held,
			RTE_CACHE_LINE_SIZE,
			(int)rte_lcore_to_socket_id(w->lcore_id));
		if (w->held == NULL)
			return -ENOMEM;
		if (c->sc->layout == PERF_LAYOUT_PAIRS) {
			w->role = i % 2 ? PERF_ROLE_PRODUCER :
				PERF_ROLE_CONSUMER;
			w->peer = &c->workers[i ^ 1];
		} else {
			w->role = PERF_ROLE_CHURN;
		}
		if (w->lcore_id == rte_get_main_lcore()) {
			w->timekeeper = true;
			c->main_worker = w;
		}
	}
	return 0;
}

/* Pairs layout: an SP/SC ring from each producer to its consumer. */
static int
ctx_setup_rings(struct perf_ctx *c)
{
	char name[RTE_RING_NAMESIZE];
	unsigned int i;

	c->nb_rings = c->nb_workers / 2;
	c->rings = calloc(c->nb_rings, sizeof(*c->rings));
	if (c->rings == NULL)
		return -ENOMEM;
	for (i = 0; i < c->nb_rings; i++) {
		snprintf(name, sizeof(name), "perf_ring%u", i);
		c->rings[i] = rte_ring_create(name, c->o->ring_size,
			(int)rte_lcore_to_socket_id(c->o->lcores[2 * i]),
			RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (c->rings[i] == NULL)
			return -rte_errno;
		c->workers[2 * i].ring = c->rings[i];
		c->workers[2 * i + 1].ring = c->rings[i];
	}
	return 0;
}

static int
ctx_setup(struct perf_ctx *c, const struct perf_opts *o,
	unsigned int sc_idx)
{
	const struct perf_scenario *sc = &perf_scenarios[sc_idx];
	int ret;

	memset(c, 0, sizeof(*c));
	c->o = o;
	c->sc = sc;
	c->sc_idx = sc_idx;
	c->sync = rte_zmalloc("perf_sync", sizeof(*c->sync),
		RTE_CACHE_LINE_SIZE);
	if (c->sync == NULL)
		return -ENOMEM;
	ret = ctx_setup_workers(c, sc->layout == PERF_LAYOUT_PAIRS ?
		o->nb_lcores & ~1u : o->nb_lcores);
	if (ret != 0 || sc->layout != PERF_LAYOUT_PAIRS)
		return ret;
	return ctx_setup_rings(c);
}

static void
ctx_free(struct perf_ctx *c)
{
	unsigned int i;

	for (i = 0; i < c->nb_rings; i++)
		rte_ring_free(c->rings[i]);
	free(c->rings);
	for (i = 0; c->workers != NULL && i < c->nb_workers; i++)
		rte_free(c->workers[i].held);
	rte_free(c->workers);
	rte_free(c->sync);
}

/*
 * Progress on stderr: on a terminal one line rewritten per measurement,
 * elsewhere (logs, CI) one line per round, written as it goes.
 */
static bool
progress_tty(const struct perf_opts *o)
{
	return !o->quiet && isatty(STDERR_FILENO) == 1;
}

static void
progress_round(const struct perf_ctx *c, unsigned int round, bool end)
{
	if (c->o->quiet || progress_tty(c->o))
		return;
	if (end)
		fprintf(stderr, "\n");
	else
		fprintf(stderr, "[%s %u/%u]", c->sc->name, round + 1,
			c->o->rounds);
}

static void
progress_sample(const struct perf_ctx *c, unsigned int round,
	const struct perf_entry *e, const struct perf_sample *s)
{
	const char *mark = s->status == PERF_FAILED ? " failed" : "";
	char name[PERF_LABEL_LEN + 16];

	if (c->o->quiet)
		return;
	if (e->kind == PERF_ENTRY_OPS)
		snprintf(name, sizeof(name), "%s:%u", e->ops->label,
			e->ops->cache);
	else
		snprintf(name, sizeof(name), "%s", perf_entry_label(e));
	if (progress_tty(c->o))
		fprintf(stderr, "\r\033[K[%s %u/%u] %s %.2f Mobj/s%s",
			c->sc->name, round + 1, c->o->rounds, name, s->mobjs,
			mark);
	else
		fprintf(stderr, " %s %.1f%s", name, s->mobjs, mark);
}

static void
progress_clear(const struct perf_opts *o)
{
	if (progress_tty(o))
		fprintf(stderr, "\r\033[K");
}

/* The floor row's ops: the app's own perf_floor driver, no DPDK cache. */
static const struct perf_ops_spec floor_spec = {
	.name = PERF_FLOOR_OPS_NAME,
	.label = "floor",
	.arg = PERF_FLOOR_OPS_NAME ":0",
};

/* The rows a scenario adds to the ops specs' (see perf_entry_kind). */
static unsigned int
entries_extra(const struct perf_scenario *sc, enum perf_entry_kind *kinds)
{
	unsigned int n = 0;

	if (sc->floor)
		kinds[n++] = PERF_ENTRY_FLOOR;
	if (sc->limit)
		kinds[n++] = PERF_ENTRY_LIMIT;
	if (sc->ceiling)
		kinds[n++] = PERF_ENTRY_CEILING;
	return n;
}

/* The entries of a scenario: one per ops spec, then its extra rows. */
static int
entries_alloc(const struct perf_opts *o, const struct perf_scenario *sc,
	struct perf_result *res)
{
	enum perf_entry_kind extra[3];
	unsigned int i, nb = o->nb_ops + entries_extra(sc, extra);
	struct perf_entry *e;

	res->sc = sc;
	res->ref = -1;
	res->entries = calloc(nb, sizeof(*res->entries));
	if (res->entries == NULL)
		return -ENOMEM;
	res->nb_entries = nb;
	for (i = 0; i < nb; i++) {
		e = &res->entries[i];
		e->kind = i < o->nb_ops ? PERF_ENTRY_OPS : extra[i - o->nb_ops];
		e->ops = e->kind == PERF_ENTRY_OPS ? &o->ops[i] :
			e->kind == PERF_ENTRY_FLOOR ? &floor_spec : NULL;
		e->baseline = i == o->baseline;
		/* The share refers to the floor, else to the limit. */
		if ((e->kind == PERF_ENTRY_FLOOR ||
				e->kind == PERF_ENTRY_LIMIT) && res->ref < 0)
			res->ref = (int)i;
		e->rounds = calloc(o->rounds, sizeof(*e->rounds));
		e->lc_polls = calloc(2 * (size_t)o->nb_lcores,
			sizeof(*e->lc_polls));
		if (e->rounds == NULL || e->lc_polls == NULL)
			return -ENOMEM;
		e->lc_starved = e->lc_polls + o->nb_lcores;
	}
	return 0;
}

/* Pools and scenario state of every entry; failures stay per entry. */
static void
entries_setup(struct perf_ctx *c, struct perf_result *res)
{
	const struct perf_scenario *sc = c->sc;
	struct perf_entry *e;
	unsigned int i;

	for (i = 0; i < res->nb_entries; i++) {
		e = &res->entries[i];
		if (e->kind == PERF_ENTRY_LIMIT &&
				perf_limit_setup(c->o, e, e->reason,
					sizeof(e->reason)) != 0)
			e->status = PERF_FAILED;
		if (e->ops == NULL)
			continue;
		if (sc->sheaf_only && !entry_is_sheaf(e)) {
			e->status = PERF_NA;
			snprintf(e->reason, sizeof(e->reason), "%s ops only",
				RTE_SHEAF_OPS_NAME);
			continue;
		}
		e->mp = pool_create(c, i, e->ops, e->reason,
			sizeof(e->reason));
		if (e->mp == NULL)
			e->status = PERF_FAILED;
		else if (sc->setup != NULL && sc->setup(c->o, e, e->reason,
				sizeof(e->reason)) != 0)
			e->status = PERF_FAILED;
	}
}

/* The unrecorded first run of every entry that can run. */
static void
entries_warmup(struct perf_ctx *c, struct perf_result *res)
{
	struct perf_sample warm;
	unsigned int i;

	if (c->o->warmup <= 0)
		return;
	for (i = 0; i < res->nb_entries; i++) {
		struct perf_entry *e = &res->entries[i];

		if (e->status != PERF_OK)
			continue;
		measure(c, e, c->o->warmup, &warm, true);
		if (warm.status == PERF_FAILED)
			e->status = PERF_FAILED;
	}
}

/*
 * Round after round, every entry once per round: each measurement split
 * into o->slices runs, the entries alternating run by run, summed into
 * the round's sample.
 */
static void
entries_measure(struct perf_ctx *c, struct perf_result *res)
{
	const struct perf_opts *o = c->o;
	unsigned int i, k, r, sl, nb = res->nb_entries;
	struct perf_sample part;
	struct perf_entry *e;

	for (r = 0; r < o->rounds; r++) {
		progress_round(c, r, false);
		for (sl = 0; sl < o->slices; sl++) {
			for (k = 0; k < nb; k++) {
				i = o->rotate ? (k + r) % nb : k;
				e = &res->entries[i];
				if (e->status != PERF_OK) {
					if (sl == 0)
						e->rounds[r].status =
							e->status == PERF_NA ?
							PERF_NA : PERF_SKIPPED;
					continue;
				}
				if (sl == 0) {
					measure(c, e, o->seconds / o->slices,
						&e->rounds[r], true);
				} else {
					measure(c, e, o->seconds / o->slices,
						&part, false);
					sample_add(&e->rounds[r], &part);
				}
				if (e->rounds[r].status == PERF_FAILED)
					e->status = PERF_FAILED;
				if (sl + 1 == o->slices ||
						e->status != PERF_OK)
					progress_sample(c, r, e,
						&e->rounds[r]);
			}
		}
		progress_round(c, r, true);
	}
	progress_clear(o);
}

/* Dumps, scenario state and pools of every entry go. */
static void
entries_release(const struct perf_ctx *c, struct perf_result *res)
{
	unsigned int i;

	for (i = 0; i < res->nb_entries; i++) {
		struct perf_entry *e = &res->entries[i];

		if (c->o->sheaf_dump && e->mp != NULL && entry_is_sheaf(e))
			rte_sheaf_dump(stdout, e->mp);
		if (c->sc->teardown != NULL && e->mp != NULL)
			c->sc->teardown(e);
		if (e->kind == PERF_ENTRY_LIMIT)
			perf_limit_teardown(e);
		rte_mempool_free(e->mp);
		e->mp = NULL;
	}
}

static int
scenario_run(const struct perf_opts *o, unsigned int sc_idx,
	struct perf_result *res)
{
	const struct perf_scenario *sc = &perf_scenarios[sc_idx];
	struct perf_ctx c;
	int ret;

	ret = entries_alloc(o, sc, res);
	if (ret != 0)
		return ret;
	ret = ctx_setup(&c, o, sc_idx);
	if (ret != 0) {
		fprintf(stderr, "%s: setup: %s\n", sc->name, rte_strerror(-ret));
		ctx_free(&c);
		return ret;
	}
	entries_setup(&c, res);
	entries_warmup(&c, res);
	entries_measure(&c, res);
	perf_summarise(o, res);
	perf_print_table(stdout, o, res);
	entries_release(&c, res);
	fflush(stdout);
	ctx_free(&c);
	return 0;
}

static void
print_header(const struct perf_opts *o)
{
	unsigned int i;

	printf("sheaf-perf: %s, TSC %.0f MHz, lcores", rte_version(),
		(double)rte_get_tsc_hz() / 1e6);
	for (i = 0; i < o->nb_lcores; i++)
		printf("%s%u", i ? "," : " ", o->lcores[i]);
	printf(" (main %u)\n", rte_get_main_lcore());
	printf("rounds %u x %.3g s in %u slices (warmup %.3g s), bulk %u, window %u, obj %u B, pool %u, ring %u%s%s\n",
		o->rounds, o->seconds, o->slices, o->warmup, o->bulk, o->window,
		o->obj_size, o->pool_size, o->ring_size,
		o->touch ? ", touch" : "", o->rotate ? ", rotated" : "");
	printf("Mobj/s: million objects per wall second, all lcores, "
		"counted as the line above each table says; "
		"cyc/obj: TSC cycles of the timed lcores, go to their stop, "
		"per object (every lcore; deferred: the writer alone); "
		"ratio: median of per-round ratios to the baseline; "
		"share: the same to the scenario's floor row (local, mbuf, "
		"rx-burst, rx-chunk: the perf_floor ops) or limit row "
		"(pipeline: a ring "
		"carries the pointers back)\n");
	printf("rx-burst-low, rx-chunk-low, rx-prefill-low, exhausted: "
		"fail/obj: failed gets "
		"(rx: failed rearms) per object moved; ns/fail: ns a failing "
		"call takes, timed on its own lcore; mb/s: membarrier() calls "
		"per second of a sheaf pool (n/a: the library does not count "
		"them); starved (rx): share of the polls that found fewer "
		"mbufs armed than the largest burst, all lcores; worst: the "
		"same on the lcore worst off\n\n");
	fflush(stdout);
}

/* Every ops must be registered; a default one that is not fails its rows. */
static int
check_ops(const struct perf_opts *o)
{
	unsigned int k;

	for (k = 0; k < o->nb_ops; k++) {
		if (ops_registered(o->ops[k].name))
			continue;
		if (o->ops_given) {
			fprintf(stderr, "--ops: '%s' is not registered\n",
				o->ops[k].name);
			list_ops(stderr);
			return -1;
		}
		fprintf(stderr, "note: ops %s is not registered, its rows will fail\n",
			o->ops[k].name);
	}
	return 0;
}

/*
 * Keeps the scenarios the lcores can run: one given on the command line
 * must run, a default one that cannot is left out. 0, or -1.
 */
static int
check_scenarios(struct perf_opts *o)
{
	unsigned int s, k;
	char err[256];

	for (s = 0, k = 0; s < o->nb_scenarios; s++) {
		const struct perf_scenario *sc =
			&perf_scenarios[o->scenarios[s]];

		if (sc->check(o, err, sizeof(err)) == 0) {
			o->scenarios[k++] = o->scenarios[s];
			continue;
		}
		fprintf(stderr, "%s: %s\n", sc->name, err);
		if (o->scenarios_given)
			return -1;
		fprintf(stderr, "note: scenario %s left out\n", sc->name);
		o->nb_left_out++;
	}
	o->nb_scenarios = k;
	return k == 0 ? -1 : 0;
}

/*
 * Whether entry e counts against the exit status: a pool that lost or
 * duplicated objects always; with --strict, also an entry that failed (setup, a
 * round, a stall) or missed rounds it should have run.
 */
static bool
entry_bad(const struct perf_opts *o, const struct perf_entry *e)
{
	if (e->not_whole)
		return true;
	if (!o->strict || e->status == PERF_NA)
		return false;
	return e->status == PERF_FAILED || e->nb_ok != o->rounds;
}

/* The exit status of the run (status so far), with a line per cause. */
static int
results_status(const struct perf_opts *o, const struct perf_result *res,
	unsigned int done, int status)
{
	unsigned int s, k;

	for (s = 0; s < done; s++)
		for (k = 0; k < res[s].nb_entries; k++) {
			const struct perf_entry *e = &res[s].entries[k];

			if (!entry_bad(o, e))
				continue;
			fprintf(stderr, "%s: %s:%u: %s\n", res[s].sc->name,
				perf_entry_label(e), perf_entry_cache(e),
				e->reason[0] != '\0' ? e->reason :
				"rounds missing");
			status = 1;
		}
	if (o->strict && (o->nb_left_out != 0 || done < o->nb_scenarios)) {
		fprintf(stderr, "strict: %u scenario(s) not run\n",
			o->nb_left_out + o->nb_scenarios - done);
		status = 1;
	}
	return status;
}

/* The output files, then the results go; returns the exit status. */
static int
results_finish(const struct perf_opts *o, struct perf_result *res,
	unsigned int done, int status)
{
	unsigned int s, k;

	status = results_status(o, res, done, status);
	if (o->csv != NULL && perf_write_csv(o->csv, o, res, done) != 0)
		status = 1;
	if (o->json != NULL && perf_write_json(o->json, o, res, done) != 0)
		status = 1;
	for (s = 0; s < done; s++) {
		for (k = 0; k < res[s].nb_entries; k++) {
			free(res[s].entries[k].rounds);
			free(res[s].entries[k].lc_polls);
		}
		free(res[s].entries);
	}
	return status;
}

/*
 * Splits argv at the first "--": EAL sees what precedes, the app the
 * rest ("--" stands in for its argv[0]). Returns EAL's argc.
 */
static int
split_args(int argc, char **argv, int *app_argc, char ***app_argv)
{
	int i, eal_argc = argc;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			eal_argc = i;
			break;
		}
	*app_argc = argc - eal_argc;
	*app_argv = &argv[eal_argc];
	if (*app_argc == 0) {
		*app_argc = 1;
		*app_argv = argv;
	}
	return eal_argc;
}

static void
list_scenarios_and_ops(void)
{
	unsigned int s;

	printf("scenarios:\n");
	for (s = 0; s < perf_nb_scenarios; s++)
		printf("  %-14s %s\n", perf_scenarios[s].name,
			perf_scenarios[s].help);
	list_ops(stdout);
}

int
main(int argc, char **argv)
{
	struct perf_result res[RTE_DIM(((struct perf_opts *)0)->scenarios)];
	static struct perf_opts opts;
	int eal_argc, app_argc, ret, status = 0;
	unsigned int s, done = 0;
	char **app_argv;

	eal_argc = split_args(argc, argv, &app_argc, &app_argv);
	/* Before EAL init, so that a bad option costs no EAL start. */
	ret = perf_parse_args(app_argc, app_argv, &opts);
	if (ret != 0) {
		perf_usage(ret > 0 ? stdout : stderr, argv[0]);
		return ret > 0 ? 0 : EXIT_USAGE;
	}
	/* EAL parses with getopt too: restart its scan. */
	optind = 0;
	argv[eal_argc] = NULL;
	if (rte_eal_init(eal_argc, argv) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		return EXIT_USAGE;
	}
	mb_stat_lookup();
	if (opts.list) {
		list_scenarios_and_ops();
		rte_eal_cleanup();
		return 0;
	}
	if (perf_resolve_lcores(&opts) != 0 || check_ops(&opts) != 0 ||
			check_scenarios(&opts) != 0) {
		perf_usage(stderr, argv[0]);
		rte_eal_cleanup();
		return EXIT_USAGE;
	}

	print_header(&opts);
	memset(res, 0, sizeof(res));
	for (s = 0; s < opts.nb_scenarios && status == 0; s++) {
		if (scenario_run(&opts, opts.scenarios[s], &res[s]) != 0)
			status = 1;
		done = s + 1;
	}
	status = results_finish(&opts, res, done, status);
	rte_eal_cleanup();
	return status;
}
