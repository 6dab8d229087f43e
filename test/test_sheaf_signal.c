/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Signal storm: a thread churns a pool while a POSIX timer sends it
 * SIGUSR1 at 20 kHz for SHEAF_SIGNAL_SECONDS (default 5); the handler
 * gets and puts objects of the same pool, so it interrupts the pool at
 * every point of every path, locks held included. Three callers:
 *   - the main lcore, on the slot it owns;
 *   - a thread without an lcore id (the shared path);
 *   - (mode "secondary", driven by scripts/signal_storm.sh) a secondary
 *     process on the lcore id the primary owns (the shared path too).
 * A handler must never wait on what its own thread holds: a watchdog
 * fails the run when the churner makes no progress for 10 s. Objects are
 * tracked by owner in a table (the handler's and the churner's), so an
 * object handed out twice or lost fails the run; at the end the pool is
 * whole. DPDK's own per-lcore cache is not re-entrant: the pool has none.
 */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <rte_errno.h>
#include <rte_memzone.h>
#include <rte_mempool.h>

#include "sheaf_test.h"

#define POOL_NAME "sig_pool"
#define POOL_N 2047
#define POOL_ELT 64
#define CAPACITY 8          /* small: trades and refills on every path */
#define TIMER_NS 50000      /* 20 kHz */
#define STUCK_S 10          /* no progress for this long: a deadlock */
#define HOLD_MAX 256
#define BULK_MAX 24
#define HANDLER_HOLD 32
#define HANDLER_BULK 4
#define ID_CHURN 1
#define ID_HANDLER 2

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* Shared with a secondary process (mode "secondary"): a memzone. */
struct sig_shared {
	uint8_t owner[POOL_N];  /* per object: ID_* of its holder, 0 free */
	uint32_t failed;        /* atomic: a check failed somewhere */
};

static struct rte_mempool *pool;
static struct sheaf_test_objs table;
static struct sig_shared *sh;

/* The handler's own objects: touched by the handler only. */
static void *hstash[HANDLER_HOLD];
static unsigned int hn;
static uint64_t hrng;
static uint64_t hcalls, hgot;
static volatile uint64_t progress;

static void
sig_fail(const char *what, const void *obj)
{
	/* Relaxed: read after the run; printf is not for handlers. */
	if (__atomic_fetch_add(&sh->failed, 1, __ATOMIC_RELAXED) == 0)
		fprintf(stderr, "    FAILED %s (%p)\n", what, obj);
}

/* Take ownership of objects just got (signal-safe). */
static void
sig_claim(void **objs, unsigned int n, uint8_t id)
{
	unsigned int i;
	int idx;

	for (i = 0; i < n; i++) {
		idx = sheaf_test_objs_index(&table, objs[i]);
		if (idx < 0)
			sig_fail("a get returned no object of the pool", objs[i]);
		/* Acquire: after the previous holder's release. */
		else if (__atomic_exchange_n(&sh->owner[idx], id,
				__ATOMIC_ACQUIRE) != 0)
			sig_fail("object handed out while held", objs[i]);
	}
}

static void
sig_release(void **objs, unsigned int n, uint8_t id)
{
	unsigned int i;
	int idx;

	for (i = 0; i < n; i++) {
		idx = sheaf_test_objs_index(&table, objs[i]);
		/* Release: before the object is put. */
		if (idx < 0 || __atomic_exchange_n(&sh->owner[idx], 0,
				__ATOMIC_RELEASE) != id)
			sig_fail("object freed by another holder", objs[i]);
	}
}

static void
on_signal(int sig __rte_unused)
{
	int saved_errno = errno, saved_rte_errno = rte_errno;
	uint64_t r = sheaf_test_rand(&hrng);
	unsigned int k = r % HANDLER_BULK + 1;

	hcalls++;
	if (hn + k <= HANDLER_HOLD && ((r >> 32) & 1)) {
		int ret = rte_mempool_get_bulk(pool, &hstash[hn], k);

		if (ret == 0) {
			sig_claim(&hstash[hn], k, ID_HANDLER);
			hn += k;
			hgot += k;
		} else if (ret != -ENOBUFS) {
			sig_fail("get in the handler: unexpected return", NULL);
		}
	} else if (hn > 0) {
		k = RTE_MIN(k, hn);
		hn -= k;
		sig_release(&hstash[hn], k, ID_HANDLER);
		rte_mempool_put_bulk(pool, &hstash[hn], k);
	}
	rte_errno = saved_rte_errno;
	errno = saved_errno;
}

/* A 20 kHz timer signalling thread tid, or -1. */
static int
sig_timer_start(pid_t tid, timer_t *t)
{
	struct itimerspec its = {
		.it_interval = { 0, TIMER_NS }, .it_value = { 0, TIMER_NS },
	};
	struct sigevent sev;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	sev.sigev_notify_thread_id = tid;
	if (timer_create(CLOCK_MONOTONIC, &sev, t) != 0)
		return -1;
	return timer_settime(*t, 0, &its, NULL);
}

static double
sig_seconds(void)
{
	const char *s = getenv("SHEAF_SIGNAL_SECONDS");

	return s != NULL ? atof(s) : 5.0;
}

static double
sig_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One churn step of the interrupted thread. */
static void
sig_churn_step(void **held, unsigned int *nb, uint64_t *rng)
{
	uint64_t r = sheaf_test_rand(rng);
	unsigned int k = r % BULK_MAX + 1;
	bool get = *nb == 0 || ((r >> 32) & 1);

	if (*nb + k > HOLD_MAX)
		get = false;
	if (get) {
		if (rte_mempool_get_bulk(pool, &held[*nb], k) == 0) {
			sig_claim(&held[*nb], k, ID_CHURN);
			*nb += k;
		}
	} else {
		k = RTE_MIN(k, *nb);
		*nb -= k;
		sig_release(&held[*nb], k, ID_CHURN);
		rte_mempool_put_bulk(pool, &held[*nb], k);
	}
	if ((r >> 40) % 512 == 0 && rte_sheaf_flush_lcore(pool) < 0)
		sig_fail("flush_lcore failed", NULL);
	progress++;
}

/* Churn under the storm on the calling thread; its handler's objects
 * are given back with signals blocked. */
static void *
sig_storm(void *arg __rte_unused)
{
	static __thread void *held[HOLD_MAX];
	uint64_t rng = 0x2545f4914f6cdd1dULL ^ (uint64_t)getpid();
	unsigned int nb = 0;
	double end = sig_now() + sig_seconds();
	sigset_t set;
	timer_t t;

	hrng = rng ^ 0x9e3779b97f4a7c15ULL;
	hn = 0;
	if (sig_timer_start((pid_t)syscall(SYS_gettid), &t) != 0) {
		sig_fail("timer_create", NULL);
		return NULL;
	}
	while (sig_now() < end && __atomic_load_n(&sh->failed,
			__ATOMIC_RELAXED) == 0)
		sig_churn_step(held, &nb, &rng);
	timer_delete(t);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	sig_release(held, nb, ID_CHURN);
	rte_mempool_put_bulk(pool, held, nb);
	sig_release(hstash, hn, ID_HANDLER);
	rte_mempool_put_bulk(pool, hstash, hn);
	hn = 0;
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	printf("    %" PRIu64 " churn steps, %" PRIu64 " signals handled, the handler got %" PRIu64 " objects\n",
		progress, hcalls, hgot);
	return NULL;
}

/* Fail (exit) when the churner makes no progress for STUCK_S seconds. */
static void *
sig_watchdog(void *arg)
{
	volatile int *done = arg;
	uint64_t seen = progress;
	double seen_at = sig_now();

	while (!*done) {
		usleep(100000);
		if (progress != seen) {
			seen = progress;
			seen_at = sig_now();
		} else if (sig_now() - seen_at > STUCK_S) {
			printf("    FAILED no progress for %d s: a handler waits on its own thread (deadlock)\n",
				STUCK_S);
			fflush(stdout);
			_exit(EXIT_FAILURE);
		}
	}
	return NULL;
}

/* Run the storm on a new pthread (no lcore id) or on this thread. */
static int
sig_run(bool own_thread)
{
	volatile int done = 0;
	pthread_t wd, th;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	progress = 0;
	hcalls = 0;
	hgot = 0;
	RTE_TEST_ASSERT_SUCCESS(pthread_create(&wd, NULL, sig_watchdog,
		(void *)(uintptr_t)&done), "watchdog");
	if (own_thread) {
		RTE_TEST_ASSERT_SUCCESS(pthread_create(&th, NULL, sig_storm,
			NULL), "thread");
		pthread_join(th, NULL);
	} else {
		sig_storm(NULL);
	}
	done = 1;
	pthread_join(wd, NULL);
	SHEAF_TEST_ASSERT_INT(__atomic_load_n(&sh->failed, __ATOMIC_RELAXED),
		0, "failed checks");
	RTE_TEST_ASSERT(hcalls > 0, "no signal handled");
	return TEST_SUCCESS;
}

/* Every object back, each once: one get of the whole pool. */
static int
sig_check_whole(void)
{
	static void *all[POOL_N];
	struct rte_sheaf_stats st;

	SHEAF_TEST_ASSERT_INT(rte_mempool_avail_count(pool), POOL_N,
		"avail count");
	SHEAF_TEST_ASSERT_INT(rte_mempool_get_bulk(pool, all, POOL_N), 0,
		"get of the whole pool");
	SHEAF_TEST_CHECK(sheaf_test_objs_check(&table, all, POOL_N));
	rte_mempool_put_bulk(pool, all, POOL_N);
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_stats_get(pool, &st), "stats");
	SHEAF_TEST_ASSERT_INT(st.count[RTE_SHEAF_STAT_LOST], 0, "lost");
	SHEAF_TEST_ASSERT_INT(st.count[RTE_SHEAF_STAT_FREE_INVALID], 0,
		"refused frees");
	return TEST_SUCCESS;
}

static int
sig_setup(void)
{
	static const struct rte_sheaf_config cfg = { .capacity = CAPACITY };
	const struct rte_memzone *mz;

	pool = rte_sheaf_pool_create(POOL_NAME, POOL_N, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: %s", rte_strerror(rte_errno));
	mz = rte_memzone_reserve("sig_shared", sizeof(*sh), SOCKET_ID_ANY, 0);
	RTE_TEST_ASSERT_NOT_NULL(mz, "memzone: %s", rte_strerror(rte_errno));
	sh = mz->addr;
	memset(sh, 0, sizeof(*sh));
	return sheaf_test_objs_build(pool, &table);
}

static void
sig_teardown(void)
{
	sheaf_test_objs_free(&table);
	rte_memzone_free(rte_memzone_lookup("sig_shared"));
	rte_mempool_free(pool);
	pool = NULL;
}

static int
test_storm_owned_lcore(void)
{
	SHEAF_TEST_CHECK(sig_run(false));
	return sig_check_whole();
}

static int
test_storm_thread_without_lcore(void)
{
	SHEAF_TEST_CHECK(sig_run(true));
	return sig_check_whole();
}

static const struct sheaf_test_case sig_cases[] = {
	SHEAF_TEST_CASE_ST(sig_setup, sig_teardown, test_storm_owned_lcore),
	SHEAF_TEST_CASE_ST(sig_setup, sig_teardown,
		test_storm_thread_without_lcore),
	SHEAF_TEST_CASES_END
};

static const struct sheaf_test_suite sig_suite = {
	.name = "sheaf_signal",
	.min_lcores = 1,
	.cases = sig_cases,
};

/*
 * Mode "claim": a handler that runs inside a claim, right after the slot's
 * owner names this process (a -Dkill_points=true build, run with
 * SHEAF_KILL_AT=claim.owned SHEAF_KILL_SIGNAL=SIGUSR1). The slot is the
 * handler's to use; the objects it frees there must be in the pool's
 * sight at once: a process dying in that handler left them to reclaims
 * that never looked at the slot (the claimed bit, set after the owner,
 * was not set yet: objects missing from a dry pool until an heir came).
 */
#define CLAIM_OBJS 5

static void *claim_objs[CLAIM_OBJS];
static volatile int claim_ran;
static uint32_t claim_in_lcores;

static void
claim_on_signal(int sig __rte_unused)
{
	struct rte_sheaf_info in;

	rte_mempool_put_bulk(pool, claim_objs, CLAIM_OBJS);
	if (rte_sheaf_info_get(pool, &in) == 0)
		claim_in_lcores = in.in_lcores;
	claim_ran = 1;
}

/*
 * A thread without an lcore id makes the pool (populate frees into the
 * caller's slot) and gets objects, claiming no slot.
 */
static void *
claim_get(void *arg __rte_unused)
{
	if (sig_setup() != TEST_SUCCESS)
		return (void *)(intptr_t)-1;
	return (void *)(intptr_t)rte_mempool_get_bulk(pool, claim_objs,
		CLAIM_OBJS);
}

static int
sig_claim_run(void)
{
	struct sigaction sa = { .sa_handler = claim_on_signal };
	pthread_t th;
	void *ret;
	void *obj;

	if (pthread_create(&th, NULL, claim_get, NULL) != 0 ||
			pthread_join(th, &ret) != 0 || ret != NULL) {
		printf("FAILED: a pool and a get of %u objects without an lcore id\n",
			CLAIM_OBJS);
		return EXIT_FAILURE;
	}
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) != 0)
		return EXIT_FAILURE;
	/* The lcore's first call: its claim raises SIGUSR1. */
	if (rte_mempool_get(pool, &obj) != 0) {
		printf("FAILED: the first get on the lcore\n");
		return EXIT_FAILURE;
	}
	rte_mempool_put(pool, obj);
	if (!claim_ran) {
		printf("FAILED: no signal at the kill point claim.owned (not a kill-point build, or no SHEAF_KILL_AT/SHEAF_KILL_SIGNAL)\n");
		return EXIT_FAILURE;
	}
	if (claim_in_lcores != CLAIM_OBJS) {
		printf("FAILED: objects in the lcores seen by the handler inside the claim: got %u, expected %u\n",
			claim_in_lcores, CLAIM_OBJS);
		return EXIT_FAILURE;
	}
	if (sig_check_whole() != TEST_SUCCESS)
		return EXIT_FAILURE;
	printf("claim: the handler's %u objects in sight inside the claim\n",
		CLAIM_OBJS);
	return EXIT_SUCCESS;
}

/*
 * Modes (after "--"): "primary GO_FILE" creates the pool, claims lcore
 * 0's slot, waits for GO_FILE and checks the pool whole; "secondary" runs
 * the storm on the same lcore id 0; "claim" above.
 */
static int
sig_main_mp(const char *mode, const char *go)
{
	void *obj;

	if (strcmp(mode, "claim") == 0)
		return sig_claim_run();
	if (strcmp(mode, "primary") == 0) {
		if (sig_setup() != TEST_SUCCESS)
			return EXIT_FAILURE;
		/* Claim the slot: the secondary's lcore id 0 is ours. */
		if (rte_mempool_get(pool, &obj) != 0)
			return EXIT_FAILURE;
		rte_mempool_put(pool, obj);
		printf("primary ready\n");
		while (access(go, F_OK) != 0)
			usleep(10000);
		return sig_check_whole() == TEST_SUCCESS &&
			sh->failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	}
	pool = rte_mempool_lookup(POOL_NAME);
	sh = rte_memzone_lookup("sig_shared") != NULL ?
		rte_memzone_lookup("sig_shared")->addr : NULL;
	if (pool == NULL || sh == NULL ||
			sheaf_test_objs_build(pool, &table) != TEST_SUCCESS)
		return EXIT_FAILURE;
	return sig_run(false) == TEST_SUCCESS ? EXIT_SUCCESS : EXIT_FAILURE;
}

int
main(int argc, char **argv)
{
	return sheaf_test_main_modes(argc, argv, &sig_suite, sig_main_mp);
}
