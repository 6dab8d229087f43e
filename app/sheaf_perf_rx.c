/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * rx-*: a simulated RX queue per lcore. A descriptor ring of PERF_RX_RING
 * mbufs; each poll receives a random burst (1..PERF_RX_BURST_MAX, the
 * oldest mbufs) into a TX queue of up to PERF_RX_TXQ mbufs, completes a
 * random burst of the TX queue (frees its oldest mbufs), and rearms the
 * deficit, as a PMD does. The TX lag makes the mbufs in flight wander
 * between PERF_RX_RING and PERF_RX_RING + PERF_RX_TXQ per lcore. A
 * rearm that gets nothing is failed, one that gets less than the
 * deficit partial; the ring then runs short until a later poll.
 * The plain path calls rte_pktmbuf_alloc_bulk() for the deficit (all or
 * nothing), or, in rx-chunk*, for chunks of PERF_RX_CHUNK descriptors
 * while the deficit holds one, up to the first that fails: what the
 * vector and bulk-allocating PMDs do (ixgbe, i40e: a rearm threshold of
 * 32), so a queue short of mbufs rearms what the pool has instead of
 * waiting for its whole, growing deficit. The prefill path borrows a
 * sheaf once, refills it to the deficit each poll and takes the mbufs
 * from it.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "sheaf_perf.h"

#define PERF_RX_RING 512      /* descriptors per queue, a common default */
#define PERF_RX_BURST_MAX 64  /* mbufs per poll, at most */
#define PERF_RX_TXQ 256       /* mbufs sent, not yet completed, at most */
#define PERF_RX_SLACK 256     /* rx-*-low: objects beyond the rings */

struct perf_rxq {
	struct rte_mbuf *slot[PERF_RX_RING];
	struct rte_mbuf *rearm[PERF_RX_RING];
	struct rte_mbuf *txq[PERF_RX_TXQ];
	unsigned int tail;    /* oldest mbuf */
	unsigned int filled;  /* mbufs in the ring */
	unsigned int tx_tail; /* oldest mbuf sent */
	unsigned int tx_len;  /* mbufs sent, not completed */
	struct rte_sheaf_prefill *pf;
	uint64_t rng;
};

/* Mbufs for the deficit into q->rearm: returns how many were got. */
static unsigned int
rx_rearm_get(struct perf_worker *w, struct perf_rxq *q, unsigned int deficit)
{
	unsigned int c = w->sc->rearm_chunk, got = 0;
	int size;

	/* deficit: a multiple of c (rx_rearm()). */
	if (!w->sc->sheaf_only && c != 0) {
		while (got < deficit && rte_pktmbuf_alloc_bulk(w->mp,
				&q->rearm[got], c) == 0)
			got += c;
		return got;
	}
	if (!w->sc->sheaf_only)
		return rte_pktmbuf_alloc_bulk(w->mp, q->rearm, deficit) == 0 ?
			deficit : 0;
	if (q->pf == NULL)
		q->pf = rte_sheaf_prefill_get(w->mp, deficit);
	else
		rte_sheaf_prefill_refill(w->mp, &q->pf, deficit);
	if (q->pf == NULL)
		return 0;
	/* Short after a failed refill: take what the sheaf holds. */
	size = rte_sheaf_prefill_size(q->pf);
	deficit = RTE_MIN(deficit, (unsigned int)RTE_MAX(size, 0));
	if (rte_sheaf_prefill_pktmbuf_alloc(q->pf, q->rearm, deficit) != 0)
		return 0;
	return deficit;
}

static unsigned int
rx_rearm(struct perf_worker *w, struct perf_rxq *q)
{
	unsigned int deficit = PERF_RX_RING - q->filled, got, head, t;
	unsigned int c = w->sc->rearm_chunk;
	uint64_t t0 = 0;

	/* Chunks only: what is short of one waits for the next poll. */
	if (c != 0 && !w->sc->sheaf_only)
		deficit -= deficit % c;
	if (deficit == 0)
		return 0;
	/* Overload scenarios time every rearm, on this lcore's TSC. */
	if (w->sc->overload)
		t0 = rte_rdtsc();
	got = rx_rearm_get(w, q, deficit);
	if (got == 0 && w->sc->overload)
		w->fail_cycles += rte_rdtsc() - t0;
	if (got == 0)
		w->get_fail++;
	else if (got < deficit)
		w->rearm_partial++;
	head = (q->tail + q->filled) % PERF_RX_RING;
	t = RTE_MIN(got, PERF_RX_RING - head);
	memcpy(&q->slot[head], q->rearm, t * sizeof(q->rearm[0]));
	memcpy(q->slot, &q->rearm[t], (got - t) * sizeof(q->rearm[0]));
	q->filled += got;
	return got;
}

/* TX completion: the n oldest mbufs sent are freed. */
static void
rx_tx_complete(struct perf_rxq *q, unsigned int n)
{
	unsigned int t;

	n = RTE_MIN(n, q->tx_len);
	t = RTE_MIN(n, PERF_RX_TXQ - q->tx_tail);
	rte_pktmbuf_free_bulk(&q->txq[q->tx_tail], t);
	rte_pktmbuf_free_bulk(q->txq, n - t);
	q->tx_tail = (q->tx_tail + n) % PERF_RX_TXQ;
	q->tx_len -= n;
}

/* Receive a burst: the oldest mbufs leave the ring for the TX queue. */
static unsigned int
rx_receive(struct perf_rxq *q, unsigned int n)
{
	unsigned int i;

	n = RTE_MIN(n, q->filled);
	if (q->tx_len + n > PERF_RX_TXQ)
		rx_tx_complete(q, q->tx_len + n - PERF_RX_TXQ);
	for (i = 0; i < n; i++) {
		q->txq[(q->tx_tail + q->tx_len + i) % PERF_RX_TXQ] =
			q->slot[q->tail];
		q->tail = (q->tail + 1) % PERF_RX_RING;
	}
	q->tx_len += n;
	q->filled -= n;
	return n;
}

/* xorshift64: cheap, per lcore. */
static inline unsigned int
rx_burst(struct perf_rxq *q)
{
	q->rng ^= q->rng << 13;
	q->rng ^= q->rng >> 7;
	q->rng ^= q->rng << 17;
	return 1 + q->rng % PERF_RX_BURST_MAX;
}

void
perf_rx_body(struct perf_worker *w)
{
	struct perf_rxq *q = rte_zmalloc_socket("perf_rxq", sizeof(*q),
		RTE_CACHE_LINE_SIZE, (int)rte_lcore_to_socket_id(w->lcore_id));
	uint64_t got = 0;

	if (q == NULL)
		perf_worker_fail(w, "no memory for the RX queue");
	else {
		q->rng = 0x9e3779b97f4a7c15ULL ^ w->lcore_id;
		rx_rearm(w, q);
		w->get_fail = 0;
		w->fail_cycles = 0;
		w->rearm_partial = 0;
		w->polls = 0;
		w->polls_starved = 0;
	}
	perf_worker_wait_go(w);

	while (q != NULL && !perf_worker_should_stop(w)) {
		/* A burst this large would find the ring short: a NIC drops. */
		w->polls++;
		w->polls_starved += q->filled < PERF_RX_BURST_MAX;
		got = rx_receive(q, rx_burst(q));
		rx_tx_complete(q, rx_burst(q));
		got += rx_rearm(w, q);
		w->objects += got;
	}
	perf_worker_end(w);

	if (q == NULL)
		return;
	while (q->filled != 0) {
		rx_receive(q, PERF_RX_BURST_MAX);
		rx_tx_complete(q, PERF_RX_TXQ);
	}
	rx_tx_complete(q, PERF_RX_TXQ);
	if (q->pf != NULL && rte_sheaf_prefill_put(w->mp, q->pf) != 0)
		perf_worker_fail(w, "prefill put: %s", rte_strerror(rte_errno));
	rte_free(q);
}

/* rx-*-low: just above what the rings hold, so rearms can fail. */
unsigned int
perf_rx_low_pool_size(const struct perf_opts *o)
{
	return o->nb_lcores * PERF_RX_RING + PERF_RX_SLACK;
}

int
perf_rx_check(const struct perf_opts *o, char *err, size_t len)
{
	uint64_t need = (uint64_t)o->nb_lcores * PERF_RX_RING;

	if (need >= o->pool_size) {
		snprintf(err, len,
			"--pool-size %u is not above the %u lcores x %u descriptors = %" PRIu64 " mbufs held",
			o->pool_size, o->nb_lcores, PERF_RX_RING, need);
		return -1;
	}
	return 0;
}
