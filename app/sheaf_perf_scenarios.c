/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * The scenario table and what each lcore runs in a measurement.
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

#include <stdarg.h>
#include <stdio.h>

#include <rte_cycles.h>
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
perf_worker_wait_go(struct perf_worker *w)
{
	struct perf_sync *s = w->sync;

	/* Release: orders this lcore's setup before main sees it ready. */
	__atomic_fetch_add(&s->ready, 1, __ATOMIC_RELEASE);
	/* Acquire: pairs with main's release of go, so deadline is set. */
	while (__atomic_load_n(&s->go, __ATOMIC_ACQUIRE) == 0)
		rte_pause();
	w->t_start = rte_rdtsc();
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
		if (w->t_start != 0 ? perf_worker_should_stop(w) :
				__atomic_load_n(&w->sync->stop,
					__ATOMIC_RELAXED) != 0)
			/* Relaxed above: a late read only retries once more. */
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
	w->t_end = rte_rdtsc();

	for (; held > 0; held--) {
		obj_put(w, &w->held[tail * bulk], bulk);
		tail = tail + 1 == nb_slots ? 0 : tail + 1;
	}
}

/*
 * pipeline producer: allocates bulks and hands them to its consumer
 * through an SP/SC ring. With no mempool (the ceiling row) it hands the
 * same fixed set of pointers round, which are never dereferenced.
 */
static void
pipeline_producer(struct perf_worker *w)
{
	const unsigned int bulk = w->opts->bulk;
	void **objs = w->held;
	bool holding = false;
	unsigned int i;

	if (w->mp == NULL) {
		for (i = 0; i < bulk; i++)
			objs[i] = &objs[i];
	}
	perf_worker_wait_go(w);

	while (!perf_worker_should_stop(w)) {
		if (!holding) {
			if (w->mp != NULL) {
				if (obj_get_wait(w, objs, bulk) != 0)
					break;
				obj_touch(w, objs, bulk);
			}
			holding = true;
		}
		if (rte_ring_sp_enqueue_bulk(w->ring, objs, bulk, NULL) != 0)
			holding = false;
		else
			rte_pause();
	}
	w->t_end = rte_rdtsc();

	if (holding && w->mp != NULL)
		obj_put(w, objs, bulk);
	/* Release: a consumer that sees done sees all enqueues above. */
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
}

/* pipeline consumer: frees what its producer allocated. */
static void
pipeline_consumer(struct perf_worker *w)
{
	const unsigned int bulk = w->opts->bulk;
	void **objs = w->held;
	unsigned int n;
	bool done;

	perf_worker_wait_go(w);

	while (!perf_worker_should_stop(w)) {
		n = rte_ring_sc_dequeue_burst(w->ring, objs, bulk, NULL);
		if (n == 0)
			continue;
		if (w->mp != NULL)
			obj_put(w, objs, n);
		w->objects += n;
	}
	w->t_end = rte_rdtsc();

	/* Drain: every object goes back to the pool, uncounted. */
	for (;;) {
		/* Acquire: pairs with the producer's release of done. */
		done = __atomic_load_n(&w->peer->done, __ATOMIC_ACQUIRE);
		n = rte_ring_sc_dequeue_burst(w->ring, objs, bulk, NULL);
		if (n != 0) {
			if (w->mp != NULL)
				obj_put(w, objs, n);
		} else if (done) {
			break;
		} else {
			rte_pause();
		}
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

const struct perf_scenario perf_scenarios[] = {
	{
		.name = "local",
		.help = "get/put churn on every lcore, window of bulks held",
		.pool = PERF_POOL_PLAIN,
		.layout = PERF_LAYOUT_ALL,
		.check = churn_check,
		.body = churn_body,
	},
	{
		.name = "pipeline",
		.help = "get on producer lcores, put on consumer lcores, SP/SC rings between",
		.pool = PERF_POOL_PLAIN,
		.layout = PERF_LAYOUT_PAIRS,
		.ceiling = true,
		.check = pipeline_check,
		.body = pipeline_body,
	},
	{
		.name = "mbuf",
		.help = "rte_pktmbuf_alloc_bulk/free_bulk churn on every lcore",
		.pool = PERF_POOL_MBUF,
		.layout = PERF_LAYOUT_ALL,
		.check = churn_check,
		.body = churn_body,
	},
};

const unsigned int perf_nb_scenarios = RTE_DIM(perf_scenarios);
