/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Re-entry on one lcore: the main lcore churns a pool while a helper
 * thread sends it SIGUSR1 every few tens of microseconds; the handler gets
 * and puts objects of the same pool on the same lcore, often while the
 * interrupted code is inside the library. The lcore's busy mark must send
 * the handler to the shared tiers without corrupting the lcore's sheaves
 * and without waiting on anything the interrupted code holds. Objects are
 * tracked by owner as in the stress test: none lost, none handed out
 * twice. A watchdog in the helper thread ends the run when the main lcore
 * stops making progress (a deadlock in the re-entrant path).
 *
 * DPDK's own per-lcore cache is not re-entrant, so the pools have none.
 */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mempool.h>

#include "sheaf_test.h"

#define POOL_N 1023
#define POOL_ELT 64
#define RUN_MS 2000
#define SIGNAL_US 20        /* between two signals */
#define STUCK_S 10          /* no progress for this long: deadlock */
#define HOLD_MAX 128
#define BULK_MAX 16
#define STASH_MAX 32
#define HANDLER_BULK_MAX 4
#define ID_MAIN 1
#define ID_HANDLER 2

static struct rte_mempool *pool;
static struct sheaf_test_objs table;
static uint32_t *flags;            /* per object: owner id, 0 when free */
static pthread_t main_thread;

/* Main loop state, touched by the main lcore outside the handler only. */
static void *held[HOLD_MAX + BULK_MAX];
static unsigned int nb_held;
static uint64_t main_rng;
static bool main_flushes;          /* call the flush entry points too */

/* Handler state, touched by the handler only while the run lasts. */
static void *stash[STASH_MAX];
static unsigned int nb_stash;
static uint64_t handler_rng;
static uint64_t handler_calls;
static uint64_t handler_got;
static uint64_t handler_nobufs;

/* Failures: first one wins, read by the main lcore after the run. */
static volatile sig_atomic_t failed;
static const char *fail_what;
static void *fail_obj;

/* Between the main lcore and the helper thread. */
static volatile uint64_t progress;  /* main loop iterations */
static volatile int signals_done;   /* helper: no more signals */
static volatile int main_done;      /* main: run over, stop watching */

static void
fail(const char *what, void *obj)
{
	if (!failed) {
		fail_what = what;
		fail_obj = obj;
	}
	failed = 1;
}

static uint64_t
stamp(uint32_t id, int idx)
{
	return ((uint64_t)id << 32) | (uint32_t)idx;
}

/* Acquire: the previous owner's release came first. Signal-safe. */
static void
claim(void **objs, unsigned int n, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		int idx = sheaf_test_objs_index(&table, objs[i]);

		if (idx < 0) {
			fail("FOREIGN object from get", objs[i]);
			continue;
		}
		if (__atomic_exchange_n(&flags[idx], id, __ATOMIC_ACQUIRE) != 0)
			fail("DUPLICATE: object handed out while held", objs[i]);
		*(uint64_t *)objs[i] = stamp(id, idx);
	}
}

/* Release: the stamp check comes before the next owner's claim. */
static void
release(void **objs, unsigned int n, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		int idx = sheaf_test_objs_index(&table, objs[i]);

		if (idx < 0) {
			fail("FOREIGN object on put", objs[i]);
			continue;
		}
		if (*(uint64_t *)objs[i] != stamp(id, idx))
			fail("OVERWRITTEN: stamp changed while held", objs[i]);
		if (__atomic_exchange_n(&flags[idx], 0, __ATOMIC_RELEASE) != id)
			fail("OWNER MISMATCH on put", objs[i]);
	}
}

static void
on_signal(int sig __rte_unused)
{
	int saved_errno = errno;
	int saved_rte_errno = rte_errno;
	uint64_t r = sheaf_test_rand(&handler_rng);
	unsigned int k = r % HANDLER_BULK_MAX + 1;

	handler_calls++;
	/* -EBUSY: it interrupted a pool call (refused, as documented). */
	if (main_flushes && (r >> 40) % 16 == 0) {
		int ret = rte_sheaf_flush_lcore(pool);

		if (ret < 0 && ret != -EBUSY)
			fail("flush_lcore in the handler failed", NULL);
	}
	if (nb_stash + k <= STASH_MAX && ((r >> 32) & 1)) {
		int ret = rte_mempool_get_bulk(pool, &stash[nb_stash], k);

		if (ret == 0) {
			claim(&stash[nb_stash], k, ID_HANDLER);
			nb_stash += k;
			handler_got += k;
		} else if (ret == -ENOBUFS) {
			handler_nobufs++;
		} else {
			fail("get in the handler: unexpected return", NULL);
		}
	} else if (nb_stash > 0) {
		k = RTE_MIN(k, nb_stash);
		nb_stash -= k;
		release(&stash[nb_stash], k, ID_HANDLER);
		if (k == 1)
			rte_mempool_put(pool, stash[nb_stash]);
		else
			rte_mempool_put_bulk(pool, &stash[nb_stash], k);
	}
	rte_errno = saved_rte_errno;
	errno = saved_errno;
}

static void
main_step(void)
{
	uint64_t r = sheaf_test_rand(&main_rng);
	unsigned int k = r % BULK_MAX + 1;
	bool get = (r >> 32) & 1;

	if (nb_held == 0)
		get = true;
	else if (nb_held + k > HOLD_MAX)
		get = false;
	if (get) {
		int ret = rte_mempool_get_bulk(pool, &held[nb_held], k);

		if (ret == 0) {
			claim(&held[nb_held], k, ID_MAIN);
			nb_held += k;
		} else if (ret != -ENOBUFS) {
			fail("get on the main lcore: unexpected return", NULL);
		}
	} else {
		k = RTE_MIN(k, nb_held);
		nb_held -= k;
		release(&held[nb_held], k, ID_MAIN);
		rte_mempool_put_bulk(pool, &held[nb_held], k);
	}
	/* Now and then, the flush paths under signals as well. */
	if (main_flushes && (r >> 40) % 64 == 0) {
		if (rte_sheaf_flush_lcore(pool) < 0)
			fail("flush_lcore on the main lcore failed", NULL);
	} else if (main_flushes && (r >> 40) % 64 == 1) {
		if (rte_sheaf_flush(pool) < 0)
			fail("flush on the main lcore failed", NULL);
	}
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Signal the main lcore for RUN_MS, and watch that it makes progress. */
static void *
signaller(void *arg __rte_unused)
{
	const struct timespec gap = { 0, SIGNAL_US * 1000 };
	double start = now_s(), seen_at = start;
	uint64_t seen = progress;

	while (!main_done) {
		double t = now_s();

		if (!signals_done) {
			if (t - start >= RUN_MS / 1000.0)
				signals_done = 1;
			else
				pthread_kill(main_thread, SIGUSR1);
		}
		if (progress != seen) {
			seen = progress;
			seen_at = t;
		} else if (t - seen_at > STUCK_S) {
			printf("    FAILED main lcore made no progress for %d s: stuck in a re-entrant call (deadlock)\n",
				STUCK_S);
			fflush(stdout);
			_exit(EXIT_FAILURE);
		}
		nanosleep(&gap, NULL);
	}
	return NULL;
}

static int
block_signal(int how)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	return pthread_sigmask(how, &set, NULL);
}

static int
run(const struct rte_sheaf_config *cfg, bool flushes)
{
	struct rte_sheaf_stats st;
	struct rte_sheaf_info info;
	struct sigaction sa;
	pthread_t helper;
	void **all;
	unsigned int i;
	uint64_t seed = rte_rdtsc();
	int ret;

	printf("    seed %" PRIu64 ", capacity %u%s\n", seed, cfg->capacity,
		flushes ? ", with flush_lcore" : "");
	main_flushes = flushes;
	pool = rte_sheaf_pool_create("sr_pool", POOL_N, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0, cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: got NULL (%s)",
		rte_strerror(rte_errno));
	SHEAF_TEST_CHECK(sheaf_test_objs_build(pool, &table));
	flags = calloc(table.n, sizeof(*flags));
	RTE_TEST_ASSERT_NOT_NULL(flags, "out of memory");
	nb_held = 0;
	nb_stash = 0;
	handler_calls = 0;
	handler_got = 0;
	handler_nobufs = 0;
	failed = 0;
	progress = 0;
	signals_done = 0;
	main_done = 0;
	main_rng = seed | 1;
	handler_rng = (seed * UINT64_C(0x9e3779b97f4a7c15)) | 1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	RTE_TEST_ASSERT_SUCCESS(sigaction(SIGUSR1, &sa, NULL), "sigaction");
	RTE_TEST_ASSERT_SUCCESS(block_signal(SIG_UNBLOCK), "unblock");
	main_thread = pthread_self();
	RTE_TEST_ASSERT_SUCCESS(pthread_create(&helper, NULL, signaller,
		NULL), "pthread_create: failed");

	while (!signals_done && !failed) {
		main_step();
		progress++;
	}
	/* No handler from here on: what it stashed is the main's now. */
	block_signal(SIG_BLOCK);
	main_done = 1;
	pthread_join(helper, NULL);

	RTE_TEST_ASSERT(!failed, "%s: %p", fail_what, fail_obj);
	printf("    main iterations %" PRIu64 ", signals handled %" PRIu64 ", handler got %" PRIu64 " objects, %" PRIu64 " refused\n",
		progress, handler_calls, handler_got, handler_nobufs);
	RTE_TEST_ASSERT(handler_calls > 0 && handler_got > 0,
		"handler ran %" PRIu64 " times, got %" PRIu64
		" objects: expected both > 0", handler_calls, handler_got);
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, nb_held + nb_stash));

	release(held, nb_held, ID_MAIN);
	rte_mempool_put_bulk(pool, held, nb_held);
	release(stash, nb_stash, ID_HANDLER);
	rte_mempool_put_bulk(pool, stash, nb_stash);
	nb_held = 0;
	nb_stash = 0;
	RTE_TEST_ASSERT(!failed, "%s: %p", fail_what, fail_obj);
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));

	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_stats_get(pool, &st), "stats");
	printf("    reentrant=%" PRIu64 " alloc_slow=%" PRIu64 " refill=%" PRIu64 " flush_main=%" PRIu64 "\n",
		st.count[RTE_SHEAF_STAT_REENTRANT],
		st.count[RTE_SHEAF_STAT_ALLOC_SLOW],
		st.count[RTE_SHEAF_STAT_REFILL],
		st.count[RTE_SHEAF_STAT_FLUSH_MAIN]);
	SHEAF_TEST_ASSERT_INT(st.count[RTE_SHEAF_STAT_FREE_INVALID], 0,
		"FREE_INVALID");

	/* Everything back in the slabs, and every object comes out once. */
	ret = rte_sheaf_flush(pool);
	SHEAF_TEST_ASSERT_INT(ret, 0, "lcores with a flush pending");
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_info_get(pool, &info), "info");
	SHEAF_TEST_ASSERT_INT(info.in_slabs, POOL_N, "in_slabs after flush");
	all = calloc(POOL_N + 1, sizeof(*all));
	RTE_TEST_ASSERT_NOT_NULL(all, "out of memory");
	for (i = 0; i < POOL_N; i++)
		if (rte_mempool_get(pool, &all[i]) != 0)
			break;
	ret = i == POOL_N ? sheaf_test_objs_check(&table, all, POOL_N) :
		TEST_FAILED;
	if (i == POOL_N && rte_mempool_get(pool, &all[i]) == 0) {
		i++;
		ret = TEST_FAILED;
	}
	rte_mempool_put_bulk(pool, all, i);
	free(all);
	RTE_TEST_ASSERT_SUCCESS(ret, "get all back: got %u objects, expected %u",
		i, POOL_N);
	return sheaf_test_check_placement(pool, 0);
}

static void
teardown(void)
{
	signal(SIGUSR1, SIG_DFL);
	rte_mempool_free(pool);
	pool = NULL;
	sheaf_test_objs_free(&table);
	free(flags);
	flags = NULL;
}

static const struct rte_sheaf_config tiny = {
	.capacity = 4, .barn_max_full = 1, .barn_max_empty = 1,
};

static const struct rte_sheaf_config defaults = { .capacity = 0 };

static int
test_signal_tiny_sheaves(void)
{
	return run(&tiny, false);
}

static int
test_signal_default(void)
{
	return run(&defaults, false);
}

/* The flush paths take the barns and the slab locks as well. */
static int
test_signal_during_flush(void)
{
	static const struct rte_sheaf_config deep_barn = {
		.capacity = 4, .barn_max_full = 16, .barn_max_empty = 16,
	};

	return run(&deep_barn, true);
}

static const struct sheaf_test_case cases[] = {
	SHEAF_TEST_CASE_ST(NULL, teardown, test_signal_tiny_sheaves),
	SHEAF_TEST_CASE_ST(NULL, teardown, test_signal_default),
	SHEAF_TEST_CASE_ST(NULL, teardown, test_signal_during_flush),
	SHEAF_TEST_CASES_END
};

static const struct sheaf_test_suite suite = {
	.name = "sheaf_reentrant",
	.min_lcores = 1,
	.cases = cases,
};

int
main(int argc, char **argv)
{
	return sheaf_test_main(argc, argv, &suite);
}
