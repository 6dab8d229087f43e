/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Example: an RX descriptor ring rearmed from a prefilled sheaf
 * (rte_sheaf_prefill_*). The "NIC" is simulated: each poll receives up
 * to MAX_BURST of the ring's mbufs. The rearm puts new mbufs in their
 * place from a borrowed sheaf, then tops the sheaf up to MAX_BURST, so
 * that the next rearm takes nothing from the pool.
 *
 * Phase 1: NB_POLLS polls, the app freeing what it receives, while a
 * worker lcore, when there is one, allocates and frees mbufs of the
 * same pool. Phase 2, the worker stopped: the app holds every mbuf it
 * can get and keeps a burst, so the pool is empty at the rearm:
 * rte_pktmbuf_alloc_bulk() fails there, the rearm from the sheaf does
 * not (its top-up fails, unless the sheaf held more than a burst).
 *
 * Usage: sheaf_rx_prefill [EAL options], e.g. --no-huge -m 256 -l 0-1
 * Exit: 0 when every rearm left the ring whole, phase 2 went as above
 * and every mbuf is back, 1 otherwise (an argument EAL does not take
 * included).
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_random.h>

/* 8< doc/guide.md "Prefill: guaranteed allocations" */
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_sheaf.h>

#define RXQ_SIZE 512
#define MAX_BURST 32u            /* most mbufs one poll receives */

struct rxq {
	struct rte_mempool *mp;
	struct rte_mbuf *slot[RXQ_SIZE];
	unsigned int head;       /* next descriptor to rearm */
	unsigned int deficit;    /* descriptors without an mbuf */
	struct rte_sheaf_prefill *pf;  /* >= MAX_BURST after a top-up */
	uint64_t rearm_short;    /* rearms that left the ring short */
	uint64_t topup_short;    /* top-ups that found the pool short */
};

/* Borrow once, before the loop. */
static int
rxq_start(struct rxq *q)
{
	q->pf = rte_sheaf_prefill_get(q->mp, MAX_BURST);
	return q->pf != NULL ? 0 : -rte_errno;
}

/*
 * After each poll: rearm from the sheaf, whose mbufs no other lcore can
 * take, then top it up to MAX_BURST for the next poll. After a top-up,
 * a burst of up to MAX_BURST is rearmed whole however short the pool
 * is by then. A top-up that finds the pool short (-ENOMEM) leaves the
 * sheaf as it was, and the next rearm tries again. A larger deficit
 * (the empty ring at start) is rearmed MAX_BURST at a time, within the
 * sheaf's capacity. Returns 0, or another negative errno (-EINVAL: pf
 * is not a borrowed sheaf).
 */
static int
rxq_rearm(struct rxq *q)
{
	struct rte_mbuf *m[MAX_BURST];
	unsigned int n, i;
	int ret;

	do {
		ret = rte_sheaf_prefill_size(q->pf);
		if (ret < 0)
			return ret;
		n = RTE_MIN(RTE_MIN(q->deficit, (unsigned int)ret), MAX_BURST);
		/* All or nothing; the sheaf holds n, so it succeeds. */
		ret = rte_sheaf_prefill_pktmbuf_alloc(q->pf, m, n);
		if (ret < 0)
			return ret;
		for (i = 0; i < n; i++) {
			q->slot[q->head] = m[i];
			q->head = (q->head + 1) % RXQ_SIZE;
		}
		q->deficit -= n;
		ret = rte_sheaf_prefill_refill(q->mp, &q->pf, MAX_BURST);
	} while (ret == 0 && q->deficit != 0);
	if (ret == -ENOMEM) {
		q->topup_short++;
		ret = 0;
	}
	if (q->deficit != 0)
		q->rearm_short++;
	return ret;
}

/* Return the sheaf and its mbufs when the queue stops. */
static int
rxq_stop(struct rxq *q)
{
	int ret = rte_sheaf_prefill_put(q->mp, q->pf);

	if (ret == 0)
		q->pf = NULL;
	return ret;
}
/* >8 */

#define NB_MBUFS 4095
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

/*
 * The simulated NIC: up to n armed descriptors, oldest first, received
 * a packet each. The app frees the mbufs, or keeps them in keep[].
 * Returns how many were received.
 */
static unsigned int
rxq_poll(struct rxq *q, unsigned int n, struct rte_mbuf **keep)
{
	unsigned int i, d;

	n = RTE_MIN(n, RXQ_SIZE - q->deficit);
	for (i = 0; i < n; i++) {
		d = (q->head + q->deficit++) % RXQ_SIZE;
		if (keep != NULL)
			keep[i] = q->slot[d];
		else
			rte_pktmbuf_free(q->slot[d]);
		q->slot[d] = NULL;
	}
	return n;
}

/*
 * Phase 2: the app holds every mbuf the pool has left and keeps the
 * burst it receives, then rearms. True when rte_pktmbuf_alloc_bulk()
 * fails there and the rearm is whole. Its top-up fails too unless the
 * sheaf held more than a burst (a refill may load up to its capacity):
 * printed, not required.
 */
static bool
rxq_rearm_dry(struct rxq *q)
{
	static struct rte_mbuf *held[NB_MBUFS];
	struct rte_mbuf *m[MAX_BURST];
	uint64_t topup_short = q->topup_short;
	unsigned int nb = 0, n, avail;
	int ret, bulk;

	ret = rte_sheaf_prefill_refill(q->mp, &q->pf, MAX_BURST);
	while (ret == 0 && nb < NB_MBUFS - MAX_BURST &&
			(held[nb] = rte_pktmbuf_alloc(q->mp)) != NULL)
		nb++;
	n = rxq_poll(q, MAX_BURST, &held[nb]);
	avail = rte_mempool_avail_count(q->mp);
	bulk = rte_pktmbuf_alloc_bulk(q->mp, m, n);
	if (bulk == 0)
		rte_pktmbuf_free_bulk(m, n);
	if (ret == 0)
		ret = rxq_rearm(q);
	printf("phase 2: %u mbufs held, %u in the pool, %u received: "
		"rte_pktmbuf_alloc_bulk() %s, rearm %s, top-up %s\n",
		nb, avail, n, bulk == 0 ? "succeeded" : "failed",
		q->deficit == 0 ? "whole" : "short",
		q->topup_short > topup_short ? "short" : "whole");
	rte_pktmbuf_free_bulk(held, nb + n);
	if (ret != 0)
		printf("phase 2: %s\n", rte_strerror(-ret));
	return ret == 0 && bulk != 0 && q->deficit == 0;
}

int
main(int argc, char **argv)
{
	struct rte_sheaf_config cfg = { .capacity = 64 };
	struct rxq q = { .deficit = RXQ_SIZE };
	unsigned int worker, i;
	uint64_t received = 0;
	bool ok = false;
	int ret, eal_args;

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
	if (worker < RTE_MAX_LCORE &&
			rte_eal_remote_launch(worker_churn, q.mp, worker) != 0) {
		printf("worker lcore %u: not launched\n", worker);
		goto out_free;
	}
	ret = rxq_start(&q);
	if (ret == 0)
		ret = rxq_rearm(&q); /* the whole ring */
	for (i = 0; ret == 0 && i < NB_POLLS; i++) {
		received += rxq_poll(&q, rte_rand_max(MAX_BURST + 1), NULL);
		ret = rxq_rearm(&q);
	}
	__atomic_store_n(&worker_stop, true, __ATOMIC_RELAXED);
	rte_eal_mp_wait_lcore();
	printf("phase 1: %u polls, %" PRIu64 " mbufs received, %" PRIu64
		" rearms short, %" PRIu64 " top-ups short\n", i, received,
		q.rearm_short, q.topup_short);
	if (ret != 0)
		printf("phase 1: %s\n", rte_strerror(-ret));
	else
		ok = rxq_rearm_dry(&q);
	if (q.pf != NULL && rxq_stop(&q) != 0) {
		printf("rxq_stop: %s\n", rte_strerror(rte_errno));
		ok = false;
	}
	for (i = 0; i < RXQ_SIZE; i++)
		rte_pktmbuf_free(q.slot[i]);
	ok = ok && q.rearm_short == 0 &&
		rte_mempool_avail_count(q.mp) == NB_MBUFS;
	printf("sheaf_rx_prefill: %" PRIu64 " rearms short, %u of %u mbufs "
		"back: %s\n", q.rearm_short, rte_mempool_avail_count(q.mp),
		NB_MBUFS, ok ? "OK" : "FAILED");
	rte_sheaf_dump(stdout, q.mp);
out_free:
	rte_mempool_free(q.mp);
out:
	rte_eal_cleanup();
	return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
