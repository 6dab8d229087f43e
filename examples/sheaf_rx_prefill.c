/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Example: an RX descriptor ring rearmed from a prefilled sheaf
 * (rte_sheaf_prefill_*). The "NIC" is simulated: each poll receives a
 * burst of the ring's mbufs, which the app frees, and the rearm puts new
 * mbufs in their place. A worker lcore, when there is one, allocates and
 * frees mbufs of the same pool meanwhile; the rearm never comes short.
 *
 * Usage: sheaf_rx_prefill [EAL options], e.g. --no-huge -m 256 -l 0-1
 * Exit: 0 when every rearm succeeded and every mbuf is back, 1 otherwise
 * (an argument EAL does not take included).
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_random.h>

/* 8< doc/guide.md "Prefill: guaranteed allocations" */
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_sheaf.h>

#define RXQ_SIZE 512

struct rxq {
	struct rte_mempool *mp;
	struct rte_mbuf *slot[RXQ_SIZE];
	unsigned int head;       /* next descriptor to rearm */
	unsigned int deficit;    /* descriptors without an mbuf */
	struct rte_sheaf_prefill *pf;
	uint64_t rearm_short;    /* polls that could not rearm it all */
};

/* Borrow once, before the loop. */
static int
rxq_start(struct rxq *q)
{
	q->pf = rte_sheaf_prefill_get(q->mp, 64);
	return q->pf != NULL ? 0 : -rte_errno;
}

/* After each poll: rearm the descriptors the burst consumed. */
static void
rxq_rearm(struct rxq *q)
{
	struct rte_mbuf *m[RXQ_SIZE];
	unsigned int n = q->deficit, i;
	int size;

	if (n == 0)
		return;
	/* One call per burst; ENOMEM leaves the sheaf as it was. */
	if (rte_sheaf_prefill_refill(q->mp, &q->pf, n) != 0) {
		q->rearm_short++;
		size = rte_sheaf_prefill_size(q->pf);
		n = RTE_MIN(n, (unsigned int)size);
	}
	/* Cannot fail: the sheaf holds at least n mbufs. */
	rte_sheaf_prefill_pktmbuf_alloc(q->pf, m, n);
	for (i = 0; i < n; i++) {
		q->slot[q->head] = m[i];
		q->head = (q->head + 1) % RXQ_SIZE;
	}
	q->deficit -= n;
}

/* Return the sheaf and its mbufs when the queue stops. */
static void
rxq_stop(struct rxq *q)
{
	rte_sheaf_prefill_put(q->mp, q->pf);
	q->pf = NULL;
}
/* >8 */

#define NB_MBUFS 4095
#define MAX_BURST 32
#define NB_POLLS 20000

static bool worker_stop;

/* Another lcore using the pool: the prefilled sheaf is not its to take. */
static int
worker_churn(void *arg)
{
	struct rte_mempool *mp = arg;
	struct rte_mbuf *m[MAX_BURST];

	while (!__atomic_load_n(&worker_stop, __ATOMIC_RELAXED))
		if (rte_pktmbuf_alloc_bulk(mp, m, MAX_BURST) == 0)
			rte_pktmbuf_free_bulk(m, MAX_BURST);
	return 0;
}

/* The simulated NIC: the next n descriptors received a packet each. */
static void
rxq_poll(struct rxq *q, unsigned int *rx_next, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		rte_pktmbuf_free(q->slot[*rx_next]);
		q->slot[*rx_next] = NULL;
		*rx_next = (*rx_next + 1) % RXQ_SIZE;
	}
	q->deficit += n;
}

int
main(int argc, char **argv)
{
	struct rte_sheaf_config cfg = { .capacity = 64 };
	struct rxq q = { .deficit = RXQ_SIZE };
	unsigned int rx_next = 0, i, worker;
	int ret = EXIT_FAILURE, eal_args;

	eal_args = rte_eal_init(argc, argv);
	if (eal_args < 0) {
		printf("EAL init failed: %s\n", rte_strerror(rte_errno));
		return EXIT_FAILURE;
	}
	if (eal_args + 1 < argc) { /* an argument EAL did not take */
		printf("usage: sheaf_rx_prefill [EAL options]\n");
		rte_eal_cleanup();
		return EXIT_FAILURE;
	}
	q.mp = rte_sheaf_pktmbuf_pool_create("rx_pool", NB_MBUFS, 0, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id(), &cfg);
	if (q.mp == NULL) {
		printf("rte_sheaf_pktmbuf_pool_create: %s\n",
			rte_strerror(rte_errno));
		goto out;
	}
	worker = rte_get_next_lcore(-1, 1, 0);
	if (worker < RTE_MAX_LCORE)
		rte_eal_remote_launch(worker_churn, q.mp, worker);
	if (rxq_start(&q) != 0) {
		printf("rxq_start: %s\n", rte_strerror(rte_errno));
		goto out_stop;
	}
	rxq_rearm(&q); /* the whole ring */
	for (i = 0; i < NB_POLLS; i++) {
		rxq_poll(&q, &rx_next, rte_rand_max(MAX_BURST + 1));
		rxq_rearm(&q);
	}
	rxq_stop(&q);
	for (i = 0; i < RXQ_SIZE; i++)
		rte_pktmbuf_free(q.slot[i]);
out_stop:
	__atomic_store_n(&worker_stop, true, __ATOMIC_RELAXED);
	rte_eal_mp_wait_lcore();
	if (q.pf == NULL && q.rearm_short == 0 && q.deficit == 0 &&
			rte_mempool_avail_count(q.mp) == NB_MBUFS) {
		printf("sheaf_rx_prefill: %u polls, every rearm whole, "
			"%u mbufs back: OK\n", NB_POLLS, NB_MBUFS);
		ret = EXIT_SUCCESS;
	} else {
		printf("sheaf_rx_prefill: short rearms %" PRIu64
			", deficit %u, %u of %u mbufs available\n",
			q.rearm_short, q.deficit,
			rte_mempool_avail_count(q.mp), NB_MBUFS);
	}
	rte_sheaf_dump(stdout, q.mp);
	rte_mempool_free(q.mp);
out:
	rte_eal_cleanup();
	return ret;
}
