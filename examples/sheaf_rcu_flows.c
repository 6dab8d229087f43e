/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Example: a flow table read lock-free by reader lcores and updated by
 * one writer, whose replaced entries go back to the pool through
 * rte_sheaf_free_deferred() once every reader has reported a quiescent
 * state (rte_rcu_qsbr).
 *
 * Usage: sheaf_rcu_flows [EAL options], e.g. --no-huge -m 256 -l 0-1
 * (one reader per worker lcore; at least one worker).
 * Exit: 0 when the deferred frees all came back, 77 without a worker
 * lcore, 1 otherwise (an argument EAL does not take included).
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_random.h>

/* 8< doc/guide.md "Deferred free" */
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>
#include <rte_sheaf.h>

#define NB_FLOWS 4096

struct flow {
	uint64_t key;
	uint64_t packets;
};

static struct flow *table[NB_FLOWS];
static struct rte_mempool *flow_pool;
static struct rte_rcu_qsbr *flow_qsbr;

/* Control thread: the pool, and the readers' QSBR variable. */
static int
flows_init(unsigned int nb_readers)
{
	struct rte_sheaf_config cfg = { .capacity = 64 };
	size_t sz = rte_rcu_qsbr_get_memsize(nb_readers);
	int ret;

	flow_qsbr = rte_zmalloc("flow_qsbr", sz, RTE_CACHE_LINE_SIZE);
	if (flow_qsbr == NULL)
		return -ENOMEM;
	if (rte_rcu_qsbr_init(flow_qsbr, nb_readers) != 0)
		goto fail;
	cfg.qsbr = flow_qsbr; /* or rte_sheaf_rcu_attach() later */
	flow_pool = rte_sheaf_pool_create("flows", 16383,
		sizeof(struct flow), 0, 0, rte_socket_id(), 0, &cfg);
	if (flow_pool == NULL)
		goto fail;
	return 0;
fail:
	ret = -rte_errno;
	rte_free(flow_qsbr);
	flow_qsbr = NULL;
	return ret;
}

/*
 * Writer: replace the entry of a key; the old one is freed deferred.
 * Returns 0; -ENOBUFS with the pool empty, nothing changed; or the
 * error of rte_sheaf_free_deferred(): the new entry is in, the old one
 * not freed (lost to the pool, rather than reused under a reader).
 */
static int
flow_replace(uint64_t key)
{
	struct flow *f, *old;

	if (rte_mempool_get(flow_pool, (void **)&f) != 0)
		return -ENOBUFS;
	f->key = key;
	f->packets = 0;
	old = table[key % NB_FLOWS];
	/* Release: readers that see f see it set up. */
	__atomic_store_n(&table[key % NB_FLOWS], f, __ATOMIC_RELEASE);
	if (old != NULL)
		return rte_sheaf_free_deferred(flow_pool, old);
	return 0;
}

/* Reader lcore, registered and online as thread id on flow_qsbr. */
static uint64_t
flow_lookup_burst(unsigned int id, const uint64_t *keys, unsigned int n)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct flow *f = __atomic_load_n(
			&table[keys[i] % NB_FLOWS], __ATOMIC_ACQUIRE);

		if (f != NULL && f->key == keys[i])
			sum += f->packets;
	}
	/* No reference kept past this point. */
	rte_rcu_qsbr_quiescent(flow_qsbr, id);
	return sum;
}

/*
 * Shutdown: every flow back before the pool goes. Returns 0, or a
 * negative errno: the barrier's (-ETIMEDOUT: the pool stays, a reader
 * may hold a flow), else the last refused free's.
 */
static int
flows_fini(void)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < NB_FLOWS; i++) {
		/* An entry refused stays in use: the pool frees it too. */
		if (table[i] != NULL &&
				rte_sheaf_free_deferred(flow_pool, table[i]) != 0)
			ret = -rte_errno;
		table[i] = NULL;
	}
	/* Readers must be offline or still reporting. */
	if (rte_sheaf_deferred_barrier(flow_pool) != 0)
		return -rte_errno;
	rte_mempool_free(flow_pool);
	rte_free(flow_qsbr);
	return ret;
}
/* >8 */

#define NB_UPDATES 200000
#define READ_BURST 32
#define WAIT_S 5 /* longest wait for a free object, each time */

static bool readers_stop;
static uint64_t reader_sum;

/* A reader lcore; its QSBR thread id comes as arg. */
static int
reader_main(void *arg)
{
	unsigned int id = (uintptr_t)arg, i;
	uint64_t keys[READ_BURST], sum = 0;

	if (rte_rcu_qsbr_thread_register(flow_qsbr, id) != 0) {
		printf("reader %u: %s\n", id, rte_strerror(rte_errno));
		return -1;
	}
	rte_rcu_qsbr_thread_online(flow_qsbr, id);
	while (!__atomic_load_n(&readers_stop, __ATOMIC_RELAXED)) {
		for (i = 0; i < READ_BURST; i++)
			keys[i] = rte_rand_max(NB_FLOWS * 4);
		sum += flow_lookup_burst(id, keys, READ_BURST);
	}
	rte_rcu_qsbr_thread_offline(flow_qsbr, id);
	rte_rcu_qsbr_thread_unregister(flow_qsbr, id);
	__atomic_fetch_add(&reader_sum, sum, __ATOMIC_RELAXED);
	return 0;
}

/*
 * The writer: NB_UPDATES replacements of random keys. Every free object
 * may be waiting for a reader that is descheduled: then wait for one,
 * up to WAIT_S seconds each time. Returns the updates done.
 */
static unsigned int
writer_run(uint64_t *waits)
{
	uint64_t key, deadline;
	unsigned int i;
	int ret;

	for (i = 0; i < NB_UPDATES; i++) {
		key = rte_rand_max(NB_FLOWS * 4);
		deadline = rte_get_timer_cycles() + WAIT_S * rte_get_timer_hz();
		while ((ret = flow_replace(key)) == -ENOBUFS &&
				rte_get_timer_cycles() < deadline) {
			(*waits)++;
			rte_sheaf_reclaim(flow_pool);
			rte_delay_us_sleep(10);
		}
		if (ret == -ENOBUFS)
			printf("flow_replace: pool empty for %d s, after %u "
				"updates\n", WAIT_S, i);
		else if (ret != 0)
			printf("flow_replace: %s\n", rte_strerror(-ret));
		if (ret != 0)
			return i;
	}
	return i;
}

int
main(int argc, char **argv)
{
	unsigned int nb_readers = 0, bad_readers = 0, live = 0, lcore, i, k;
	struct rte_sheaf_info info = { 0 };
	uint64_t waits = 0;
	int ret = EXIT_FAILURE, eal_args, err;

	eal_args = rte_eal_init(argc, argv);
	if (eal_args < 0) {
		printf("EAL init failed: %s\n", rte_strerror(rte_errno));
		return EXIT_FAILURE;
	}
	if (eal_args + 1 < argc) { /* an argument EAL did not take */
		printf("usage: sheaf_rcu_flows [EAL options]\n");
		rte_eal_cleanup();
		return EXIT_FAILURE;
	}
	if (rte_lcore_count() < 2) {
		printf("sheaf_rcu_flows: needs a worker lcore (-l 0-1)\n");
		rte_eal_cleanup();
		return 77;
	}
	err = flows_init(rte_lcore_count() - 1);
	if (err != 0) {
		printf("flows_init: %s\n", rte_strerror(-err));
		goto out;
	}
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (rte_eal_remote_launch(reader_main,
				(void *)(uintptr_t)nb_readers, lcore) != 0) {
			printf("reader lcore %u: not launched\n", lcore);
			bad_readers++;
			continue;
		}
		nb_readers++;
	}

	i = writer_run(&waits);

	/* Frees before the barrier are all back after it. */
	if (rte_sheaf_deferred_barrier(flow_pool) != 0) {
		printf("barrier: %s\n", rte_strerror(rte_errno));
		i = 0;
	}
	__atomic_store_n(&readers_stop, true, __ATOMIC_RELAXED);
	RTE_LCORE_FOREACH_WORKER(lcore)
		bad_readers += rte_eal_wait_lcore(lcore) != 0;
	for (k = 0; k < NB_FLOWS; k++)
		live += table[k] != NULL;
	if (rte_sheaf_info_get(flow_pool, &info) == 0 && i == NB_UPDATES &&
			bad_readers == 0 && info.in_deferred == 0 &&
			rte_mempool_in_use_count(flow_pool) == live) {
		printf("sheaf_rcu_flows: %u updates (%" PRIu64 " waits for "
			"readers), %u readers, %u flows live, none left "
			"deferred: OK\n", i, waits, nb_readers, live);
		ret = EXIT_SUCCESS;
	} else {
		printf("sheaf_rcu_flows: %u updates, %u readers failed, %u in "
			"use, %u live, %u deferred\n", i, bad_readers,
			rte_mempool_in_use_count(flow_pool), live,
			info.in_deferred);
	}
	rte_sheaf_dump(stdout, flow_pool);
	err = flows_fini();
	if (err != 0) {
		printf("flows_fini: %s\n", rte_strerror(-err));
		ret = EXIT_FAILURE;
	}
out:
	rte_eal_cleanup();
	return ret;
}
