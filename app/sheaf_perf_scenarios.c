/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * The scenario table and what each lcore runs in a measurement: the
 * local and mbuf churn, the pipeline (and its limit row) and exhausted
 * here; rx-* in sheaf_perf_rx.c, deferred in sheaf_perf_rcu.c.
 *
 * A body sets up (takes its window of objects), meets the other lcores
 * in perf_worker_wait_go(), loops until perf_worker_should_stop(), stamps
 * its end, then gives back everything it holds: every measurement leaves
 * the pool whole, so the runner can check that it is.
 *
 * To add a scenario: write a body (and a check of the options it needs),
 * then add a row to perf_scenarios[]. The runner creates the pools, the
 * pairs' rings and the held-object buffers from the row.
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include "sheaf_perf.h"

void
perf_worker_fail(struct perf_worker *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->reason, sizeof(w->reason), fmt, ap);
	va_end(ap);
	/* Relaxed: the reason reaches main through rte_eal_wait_lcore(). */
	__atomic_store_n(&w->sync->stop, 1, __ATOMIC_RELAXED);
}

void
perf_sync_mb_read(struct perf_sync *s, uint64_t *n)
{
	struct rte_sheaf_stats st;

	if (s->mb_pool != NULL && rte_sheaf_stats_get(s->mb_pool, &st) == 0) {
		*n = st.count[s->mb_stat];
		s->mb_reads++;
	}
}

void
perf_sync_go(struct perf_sync *s, uint32_t nb_ready)
{
	/* Acquire: pairs with each lcore's release of ready. */
	while (__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE) < nb_ready)
		rte_pause();
	/* Every lcore set up and waiting: none is inside the pool. */
	perf_sync_mb_read(s, &s->mb_go);
	s->t_go = rte_rdtsc();
	s->deadline = s->t_go + s->run;
	/* Release: publishes deadline to the lcores' acquire of go. */
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
}

void
perf_worker_wait_go(struct perf_worker *w)
{
	struct perf_sync *s = w->sync;

	/* Release: orders this lcore's setup before main sees it ready. */
	__atomic_fetch_add(&s->ready, 1, __ATOMIC_RELEASE);
	/*
	 * Main gives go once every lcore, itself included, is set up: a
	 * lcore that started first must not take what the others' setups
	 * need (exhausted: main set up after the others had run, short of
	 * its share or with nothing).
	 */
	if (w->timekeeper)
		perf_sync_go(s, s->nb_ready);
	/* Acquire: pairs with main's release of go, so deadline is set. */
	while (__atomic_load_n(&s->go, __ATOMIC_ACQUIRE) == 0)
		rte_pause();
	w->t_start = rte_rdtsc();
}

void
perf_worker_end(struct perf_worker *w)
{
	w->t_end = rte_rdtsc();
	/* After the stamp: main's wall time ends at it (measure_run()). */
	if (w->timekeeper)
		perf_sync_mb_read(w->sync, &w->sync->mb_stop);
}

static inline int
obj_get(struct perf_worker *w, void **objs, unsigned int n)
{
	if (w->mbuf)
		return rte_pktmbuf_alloc_bulk(w->mp, (struct rte_mbuf **)objs,
			n);
	return rte_mempool_get_bulk(w->mp, objs, n);
}

static inline void
obj_put(struct perf_worker *w, void **objs, unsigned int n)
{
	if (w->mbuf)
		rte_pktmbuf_free_bulk((struct rte_mbuf **)objs, n);
	else
		rte_mempool_put_bulk(w->mp, objs, n);
}

/*
 * A get failed: another lcore may be about to free, so retry, but give
 * up at stop, or once gets have failed for sync->stall cycles in a row,
 * so that a driver stranding objects cannot hang the app.
 */
static __rte_noinline int
obj_get_slow(struct perf_worker *w, void **objs, unsigned int n)
{
	uint64_t first = rte_rdtsc();

	do {
		w->get_fail++;
		if (perf_worker_retry_stop(w))
			return -1;
		if (rte_rdtsc() - first > w->sync->stall) {
			perf_worker_fail(w, "get of %u failed for %.0f ms on lcore %u",
				n, (double)w->sync->stall * 1e3 /
				(double)rte_get_tsc_hz(), w->lcore_id);
			return -1;
		}
		rte_pause();
	} while (obj_get(w, objs, n) != 0);
	return 0;
}

static inline int
obj_get_wait(struct perf_worker *w, void **objs, unsigned int n)
{
	if (likely(obj_get(w, objs, n) == 0))
		return 0;
	return obj_get_slow(w, objs, n);
}

/*
 * Write each object once, as an app filling it would: the first byte of
 * a plain object, the first data byte of an mbuf (its header is written
 * by the alloc already).
 */
static inline void
obj_touch(struct perf_worker *w, void **objs, unsigned int n)
{
	unsigned int i;

	if (!w->opts->touch)
		return;
	for (i = 0; i < n; i++) {
		if (w->mbuf)
			*rte_pktmbuf_mtod((struct rte_mbuf *)objs[i],
				volatile uint8_t *) = (uint8_t)i;
		else
			*(volatile uint8_t *)objs[i] = (uint8_t)i;
	}
}

/*
 * local, mbuf: run-to-completion churn. The lcore keeps a FIFO of
 * window bulks: each iteration gets a new bulk and puts the oldest back,
 * so objects live a while in the app, as packets in flight do.
 */
static void
churn_body(struct perf_worker *w)
{
	const unsigned int bulk = w->opts->bulk;
	const unsigned int window = w->opts->window;
	const unsigned int nb_slots = window + 1;
	unsigned int head = 0, tail = 0, held = 0;
	bool ready = true;

	while (held < window) {
		if (obj_get_wait(w, &w->held[head * bulk], bulk) != 0) {
			ready = false;
			break;
		}
		head = head + 1 == nb_slots ? 0 : head + 1;
		held++;
	}
	perf_worker_wait_go(w);

	while (ready && !perf_worker_should_stop(w)) {
		void **in = &w->held[head * bulk];
		void **out = &w->held[tail * bulk];

		if (obj_get_wait(w, in, bulk) != 0)
			break;
		obj_touch(w, in, bulk);
		head = head + 1 == nb_slots ? 0 : head + 1;
		obj_put(w, out, bulk);
		tail = tail + 1 == nb_slots ? 0 : tail + 1;
		w->objects += bulk;
	}
	perf_worker_end(w);

	for (; held > 0; held--) {
		obj_put(w, &w->held[tail * bulk], bulk);
		tail = tail + 1 == nb_slots ? 0 : tail + 1;
	}
}

/*
 * pipeline's limit row: no mempool. Each pair has a second SP/SC ring
 * that carries the pointers back from the consumer to the producer,
 * primed with as many objects as can be in flight (see
 * perf_limit_setup()), at most the pair's share of --pool-size. That is the
 * ideal pool for one producer and one consumer: one ring operation a
 * bulk on each side, no cache, no lock, nothing shared beyond the two
 * lcores. It is the share's reference in the pipeline table.
 */
struct perf_limit {
	void *mem;                /* the objects, obj_size bytes each */
	unsigned int per_pair;    /* objects each back ring starts with */
	unsigned int nb_back;
	struct rte_ring *back[];  /* one per pair */
};

/* The pair's back ring of a limit row, or NULL for any other row. */
static inline struct rte_ring *
limit_back(const struct perf_worker *w)
{
	const struct perf_limit *l = w->priv;

	return w->kind == PERF_ENTRY_LIMIT ? l->back[w->index / 2] : NULL;
}

void
perf_limit_teardown(struct perf_entry *e)
{
	struct perf_limit *l = e->priv;
	unsigned int i;

	if (l == NULL)
		return;
	for (i = 0; i < l->nb_back; i++)
		rte_ring_free(l->back[i]);
	rte_free(l->mem);
	rte_free(l);
	e->priv = NULL;
}

/* One back ring per pair, holding its share of the objects. */
static int
limit_rings(const struct perf_opts *o, struct perf_limit *l)
{
	char name[RTE_RING_NAMESIZE];
	unsigned int i, k;
	void *obj;

	for (i = 0; i < l->nb_back; i++) {
		snprintf(name, sizeof(name), "perf_back%u", i);
		l->back[i] = rte_ring_create(name, l->per_pair,
			(int)rte_lcore_to_socket_id(o->lcores[2 * i + 1]),
			RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
		if (l->back[i] == NULL)
			return -1;
		for (k = 0; k < l->per_pair; k++) {
			obj = RTE_PTR_ADD(l->mem, ((size_t)i * l->per_pair + k) *
				o->obj_size);
			rte_ring_sp_enqueue(l->back[i], obj);
		}
	}
	return 0;
}

int
perf_limit_setup(const struct perf_opts *o, struct perf_entry *e,
	char *err, size_t len)
{
	unsigned int pairs = o->nb_lcores / 2;
	struct perf_limit *l;

	l = rte_zmalloc("perf_limit", sizeof(*l) + pairs * sizeof(l->back[0]),
		RTE_CACHE_LINE_SIZE);
	e->priv = l;
	if (l == NULL)
		goto fail;
	l->nb_back = pairs;
	/*
	 * What can be in flight (the hand-off ring full, a bulk in each
	 * lcore's hands) and a bulk more, not the whole pool: a FIFO
	 * primed with every object cycles through all of them, pointers
	 * and objects cold each time round, where a pool hands back the
	 * ones freed last.
	 */
	l->per_pair = RTE_MIN(o->pool_size / pairs, o->ring_size + 3 * o->bulk);
	l->mem = rte_malloc("perf_limit_objs",
		(size_t)l->per_pair * pairs * o->obj_size, RTE_CACHE_LINE_SIZE);
	if (l->mem != NULL && limit_rings(o, l) == 0)
		return 0;
fail:
	snprintf(err, len, "limit setup: %s", rte_strerror(
		l != NULL && l->mem != NULL ? rte_errno : ENOMEM));
	perf_limit_teardown(e);
	return -1;
}

unsigned int
perf_limit_avail(const struct perf_entry *e, unsigned int *size)
{
	const struct perf_limit *l = e->priv;
	unsigned int i, n = 0;

	for (i = 0; i < l->nb_back; i++)
		n += rte_ring_count(l->back[i]);
	*size = l->per_pair * l->nb_back;
	return n;
}

/*
 * A bulk for the producer: from the pool, from the back ring (limit), or
 * nothing to do (ceiling). 0, or -1 when it gave up (stop, stall).
 */
static int
pipeline_get(struct perf_worker *w, struct rte_ring *back, void **objs)
{
	const unsigned int bulk = w->opts->bulk;

	if (back == NULL)
		return w->mp != NULL ? obj_get_wait(w, objs, bulk) : 0;
	/* The consumer is about to give some back: no stall to fear. */
	while (rte_ring_sc_dequeue_bulk(back, objs, bulk, NULL) == 0) {
		w->get_fail++;
		if (perf_worker_should_stop(w))
			return -1;
		rte_pause();
	}
	return 0;
}

/* Objects back to the pool, or to the back ring (limit). */
static inline void
pipeline_put(struct perf_worker *w, struct rte_ring *back, void **objs,
	unsigned int n)
{
	if (back != NULL)
		/* Room for every object of the pair: never short. */
		rte_ring_sp_enqueue_burst(back, objs, n, NULL);
	else if (w->mp != NULL)
		obj_put(w, objs, n);
}

/*
 * pipeline producer: gets bulks and hands them to its consumer through
 * an SP/SC ring. With no mempool, the limit row takes them from its back
 * ring; the ceiling row hands the same fixed set of pointers round,
 * never dereferenced.
 */
static void
pipeline_producer(struct perf_worker *w)
{
	struct rte_ring *back = limit_back(w);
	const unsigned int bulk = w->opts->bulk;
	const bool ceiling = w->mp == NULL && back == NULL;
	void **objs = w->held;
	bool holding = false;
	unsigned int i;

	for (i = 0; ceiling && i < bulk; i++)
		objs[i] = &objs[i];
	perf_worker_wait_go(w);

	while (!perf_worker_should_stop(w)) {
		if (!holding) {
			if (pipeline_get(w, back, objs) != 0)
				break;
			if (!ceiling)
				obj_touch(w, objs, bulk);
			holding = true;
		}
		if (rte_ring_sp_enqueue_bulk(w->ring, objs, bulk, NULL) != 0)
			holding = false;
		else
			rte_pause();
	}
	perf_worker_end(w);

	/* The back ring has one producer, the consumer: a held bulk goes
	 * the consumer's way, and its drain takes it home.
	 */
	while (holding && back != NULL &&
			rte_ring_sp_enqueue_bulk(w->ring, objs, bulk, NULL) == 0)
		rte_pause();
	if (holding && back == NULL)
		pipeline_put(w, NULL, objs, bulk);
	/* Release: a consumer that sees done sees all enqueues above. */
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
}

/* pipeline consumer: frees what its producer allocated. */
static void
pipeline_consumer(struct perf_worker *w)
{
	struct rte_ring *back = limit_back(w);
	const unsigned int bulk = w->opts->bulk;
	void **objs = w->held;
	unsigned int n;
	bool done;

	perf_worker_wait_go(w);

	while (!perf_worker_should_stop(w)) {
		n = rte_ring_sc_dequeue_burst(w->ring, objs, bulk, NULL);
		if (n == 0)
			continue;
		pipeline_put(w, back, objs, n);
		w->objects += n;
	}
	perf_worker_end(w);

	/* Drain: every object goes back to the pool, uncounted. */
	for (;;) {
		/* Acquire: pairs with the producer's release of done. */
		done = __atomic_load_n(&w->peer->done, __ATOMIC_ACQUIRE);
		n = rte_ring_sc_dequeue_burst(w->ring, objs, bulk, NULL);
		if (n != 0)
			pipeline_put(w, back, objs, n);
		else if (done)
			break;
		else
			rte_pause();
	}
}

static void
pipeline_body(struct perf_worker *w)
{
	if (w->role == PERF_ROLE_PRODUCER)
		pipeline_producer(w);
	else
		pipeline_consumer(w);
}

static int
churn_check(const struct perf_opts *o, char *err, size_t len)
{
	uint64_t need = (uint64_t)o->nb_lcores * (o->window + 1) * o->bulk;

	if (need > o->pool_size) {
		snprintf(err, len,
			"--pool-size %u is below the %u lcores x (window %u + 1) x bulk %u = %" PRIu64 " objects held",
			o->pool_size, o->nb_lcores, o->window, o->bulk, need);
		return -1;
	}
	return 0;
}

static int
pipeline_check(const struct perf_opts *o, char *err, size_t len)
{
	uint64_t need = (uint64_t)(o->nb_lcores / 2) * (o->ring_size + o->bulk);

	if (o->nb_lcores < 2) {
		snprintf(err, len, "pipeline needs 2 lcores, --lcores has %u",
			o->nb_lcores);
		return -1;
	}
	if (o->bulk >= o->ring_size) {
		snprintf(err, len, "--ring-size %u must exceed --bulk %u",
			o->ring_size, o->bulk);
		return -1;
	}
	if (need > o->pool_size) {
		snprintf(err, len,
			"--pool-size %u is below the %u pairs x (ring %u + bulk %u) = %" PRIu64 " objects in flight",
			o->pool_size, o->nb_lcores / 2, o->ring_size, o->bulk,
			need);
		return -1;
	}
	return 0;
}

/*
 * exhausted: a pool smaller than what the lcores want together. The
 * pool holds PERF_EXH_HOLD objects per lcore and half a bulk more; each
 * lcore takes its share, then keeps asking for a bulk more. Once every
 * lcore holds its share, gets fail; after PERF_EXH_PATIENCE failures in
 * a row an lcore gives its oldest bulk back, and its next get (or
 * another lcore's, where the driver lets objects move) succeeds. So
 * about PERF_EXH_PATIENCE of every PERF_EXH_PATIENCE + 1 gets fail, the
 * price of the failures shows, and objects still move. Every get is
 * timed on the lcore making it; gets never wait (no stall), and every
 * lcore gives everything back at stop.
 */
#define PERF_EXH_HOLD 512   /* objects per lcore: an RX ring's worth, and
			     * room for DPDK's largest cache in the pool
			     */
#define PERF_EXH_PATIENCE 4 /* failed gets in a row, then a bulk goes */

/* The lcore's FIFO of bulks held. */
struct perf_exh {
	void **objs;            /* nb_slots * bulk pointers */
	unsigned int nb_slots;  /* bulks: room for the whole pool */
	unsigned int head;      /* next bulk got goes here */
	unsigned int tail;      /* oldest bulk held */
	unsigned int held;      /* bulks held */
};

/* Objects of each lcore's share, whole bulks. */
static unsigned int
exh_share(const struct perf_opts *o)
{
	return RTE_MAX(PERF_EXH_HOLD / o->bulk, 1u) * o->bulk;
}

static unsigned int
exh_pool_size(const struct perf_opts *o)
{
	return o->nb_lcores * exh_share(o) + o->bulk / 2;
}

/* A scenario that runs with any options. */
static int
check_none(const struct perf_opts *o __rte_unused, char *err __rte_unused,
	size_t len __rte_unused)
{
	return 0;
}

/* A get of one bulk, timed: 0, or -1 with the failure counted. */
static inline int
exh_get(struct perf_worker *w, struct perf_exh *x)
{
	const unsigned int bulk = w->opts->bulk;
	uint64_t t0 = rte_rdtsc();

	if (obj_get(w, &x->objs[x->head * bulk], bulk) != 0) {
		w->fail_cycles += rte_rdtsc() - t0;
		w->get_fail++;
		return -1;
	}
	x->head = x->head + 1 == x->nb_slots ? 0 : x->head + 1;
	x->held++;
	return 0;
}

/* The oldest bulk held goes back to the pool. */
static inline void
exh_put_oldest(struct perf_worker *w, struct perf_exh *x)
{
	const unsigned int bulk = w->opts->bulk;

	obj_put(w, &x->objs[x->tail * bulk], bulk);
	x->tail = x->tail + 1 == x->nb_slots ? 0 : x->tail + 1;
	x->held--;
}

static void
exh_loop(struct perf_worker *w, struct perf_exh *x)
{
	unsigned int fails = 0;

	while (!perf_worker_should_stop(w)) {
		/* Never true: the slots hold the whole pool. */
		if (unlikely(x->held == x->nb_slots))
			exh_put_oldest(w, x);
		if (exh_get(w, x) == 0) {
			fails = 0;
			w->objects += w->opts->bulk;
		} else if (++fails == PERF_EXH_PATIENCE && x->held > 0) {
			exh_put_oldest(w, x);
			fails = 0;
		}
	}
}

static void
exh_body(struct perf_worker *w)
{
	const struct perf_opts *o = w->opts;
	struct perf_exh x = { .nb_slots = exh_pool_size(o) / o->bulk + 1 };

	x.objs = rte_malloc_socket("perf_exh",
		(size_t)x.nb_slots * o->bulk * sizeof(void *),
		RTE_CACHE_LINE_SIZE, (int)rte_lcore_to_socket_id(w->lcore_id));
	if (x.objs == NULL)
		perf_worker_fail(w, "no memory for the objects held");
	/* Its share, as far as the pool gives it: caches may hold more. */
	while (x.objs != NULL && x.held * o->bulk < exh_share(o) &&
			exh_get(w, &x) == 0)
		;
	w->get_fail = 0;
	w->fail_cycles = 0;
	perf_worker_wait_go(w);

	if (x.objs != NULL)
		exh_loop(w, &x);
	perf_worker_end(w);

	while (x.held > 0)
		exh_put_oldest(w, &x);
	rte_free(x.objs);
}

/* What the rx-* bodies count (perf_rx_body()). */
#define PERF_RX_COUNTS \
	"each mbuf received and each mbuf rearmed (an mbuf's round trip counts twice)"

const struct perf_scenario perf_scenarios[] = {
	{
		.name = "local",
		.help = "get/put churn on every lcore, window of bulks held",
		.counts = "each object got and put back (a bulk got, the oldest bulk held put)",
		.pool = PERF_POOL_PLAIN,
		.layout = PERF_LAYOUT_ALL,
		.floor = true,
		.check = churn_check,
		.body = churn_body,
	},
	{
		.name = "pipeline",
		.help = "get on producer lcores, put on consumer lcores, SP/SC rings between",
		.counts = "each object a consumer takes off its ring and puts (limit: sends back; ceiling: drops)",
		.pool = PERF_POOL_PLAIN,
		.layout = PERF_LAYOUT_PAIRS,
		.limit = true,
		.ceiling = true,
		.check = pipeline_check,
		.body = pipeline_body,
	},
	{
		.name = "mbuf",
		.help = "rte_pktmbuf_alloc_bulk/free_bulk churn on every lcore",
		.counts = "each mbuf allocated and freed (a bulk allocated, the oldest bulk held freed)",
		.pool = PERF_POOL_MBUF,
		.layout = PERF_LAYOUT_ALL,
		.floor = true,
		.check = churn_check,
		.body = churn_body,
	},
	{
		.name = "rx-burst",
		.help = "simulated RX rearm: random bursts, rte_pktmbuf_alloc_bulk for the deficit",
		.counts = PERF_RX_COUNTS,
		.pool = PERF_POOL_MBUF,
		.layout = PERF_LAYOUT_ALL,
		.rearms = true,
		.floor = true,
		.check = perf_rx_check,
		.body = perf_rx_body,
	},
	{
		.name = "rx-chunk",
		.help = "rx-burst, rearming 32 descriptors a call as vector PMDs do",
		.counts = PERF_RX_COUNTS,
		.pool = PERF_POOL_MBUF,
		.layout = PERF_LAYOUT_ALL,
		.rearms = true,
		.rearm_chunk = PERF_RX_CHUNK,
		.floor = true,
		.check = perf_rx_check,
		.body = perf_rx_body,
	},
	{
		.name = "rx-prefill",
		.help = "simulated RX rearm from a borrowed sheaf refilled to the deficit",
		.counts = PERF_RX_COUNTS,
		.pool = PERF_POOL_MBUF,
		.layout = PERF_LAYOUT_ALL,
		.sheaf_only = true,
		.rearms = true,
		.check = perf_rx_check,
		.body = perf_rx_body,
	},
	{
		.name = "rx-burst-low",
		.help = "rx-burst, pool 256 mbufs above the rings' total",
		.counts = PERF_RX_COUNTS,
		.pool = PERF_POOL_MBUF,
		.layout = PERF_LAYOUT_ALL,
		.rearms = true,
		.overload = true,
		.pool_size = perf_rx_low_pool_size,
		.check = check_none,
		.body = perf_rx_body,
	},
	{
		.name = "rx-chunk-low",
		.help = "rx-chunk, pool 256 mbufs above the rings' total",
		.counts = PERF_RX_COUNTS,
		.pool = PERF_POOL_MBUF,
		.layout = PERF_LAYOUT_ALL,
		.rearms = true,
		.rearm_chunk = PERF_RX_CHUNK,
		.overload = true,
		.pool_size = perf_rx_low_pool_size,
		.check = check_none,
		.body = perf_rx_body,
	},
	{
		.name = "rx-prefill-low",
		.help = "rx-prefill, pool 256 mbufs above the rings' total",
		.counts = PERF_RX_COUNTS,
		.pool = PERF_POOL_MBUF,
		.layout = PERF_LAYOUT_ALL,
		.sheaf_only = true,
		.rearms = true,
		.overload = true,
		.pool_size = perf_rx_low_pool_size,
		.check = check_none,
		.body = perf_rx_body,
	},
	{
		.name = "exhausted",
		.help = "pool of 512 objects per lcore: each takes its share, then asks for a bulk more",
		.counts = "each object of a successful get (failed gets and puts count none)",
		.pool = PERF_POOL_PLAIN,
		.layout = PERF_LAYOUT_ALL,
		.overload = true,
		.pool_size = exh_pool_size,
		.check = check_none,
		.body = exh_body,
	},
	{
		.name = "deferred",
		.help = "RCU table: writer frees deferred (sheaf) or via rte_rcu_qsbr_dq (others), readers report",
		.counts = "each table entry the writer replaces, a get and a deferred free (readers count none)",
		.pool = PERF_POOL_PLAIN,
		.layout = PERF_LAYOUT_ALL,
		.round_ratios = true,
		.check = perf_rcu_check,
		.body = perf_rcu_body,
		.setup = perf_rcu_setup,
		.teardown = perf_rcu_teardown,
	},
};

const unsigned int perf_nb_scenarios = RTE_DIM(perf_scenarios);
