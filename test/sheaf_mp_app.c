/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Multi-process check, driven by test/scripts/multiprocess.sh.
 *
 * primary:   creates a sheaf pool and a control memzone, holds some
 *            objects, waits until the secondaries are done, returns its
 *            objects, then checks that the pool is whole and that one
 *            lcore gets every object back, each once.
 * secondary: looks the pool up, churns random bulks for a while on its
 *            lcore, marking each object it holds in a shared ownership
 *            table (a duplicate or foreign object fails the run), returns
 *            everything and reports done.
 * secondary-kill: the same, on the lcore id of a secondary that exited:
 *            it must have taken that slot over (its rte_sheaf_dump()
 *            says so), then borrows two prefill sheaves (within and
 *            past the capacity) and SIGKILLs itself with objects in its
 *            lcore's sheaves and in the borrowed ones, for the primary
 *            to take back.
 * die:       churns until SIGKILLed at a random moment (by itself, from
 *            another thread), most likely inside a pool call, holding
 *            objects (marked 2 in the ownership table) and with one call
 *            in flight: test/scripts/identity.sh.
 * owner:     on the lcore id of one that died (with its pid, or while it
 *            is an unreaped zombie): it must take the slot over and use
 *            its own sheaves: no call of its own may find the slot busy
 *            (RTE_SHEAF_STAT_REENTRANT unchanged), none may fail.
 * leader:    churns on its lcore (claiming its slot), then its main
 *            thread calls pthread_exit() while another thread runs on:
 *            a zombie leader, a live process. That thread waits for the
 *            file GO, checks the slot is still the process's and exits.
 * visitor:   on the lcore id of such a leader: it must not take the
 *            live process's slot (it churns on the shared tiers).
 * Exit: 0 pass, 1 fail, 77 skip.
 */

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memzone.h>
#include <rte_mempool.h>

#include "rte_sheaf.h"

#define POOL_NAME "sheaf_mp_pool"
#define CTL_NAME "sheaf_mp_ctl"
#define POOL_N 8191
#define ELT 128
#define HELD 100
#define MAX_BULK 64

struct mp_ctl {
	uint32_t secondaries_done;  /* atomic */
	uint32_t failures;          /* atomic */
	uint32_t deaths;            /* atomic: die-mode processes started */
	/* atomic per object: 1 while held, 2 while held by one that dies */
	uint8_t owned[POOL_N];
};

static struct rte_mempool *pool;

static void **sorted; /* the pool's objects by address */

static void
collect_cb(struct rte_mempool *mp, void *opaque, void *obj, unsigned int i)
{
	RTE_SET_USED(mp);
	RTE_SET_USED(opaque);
	sorted[i] = obj;
}

static int
cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void * const *)a;
	uintptr_t y = (uintptr_t)*(void * const *)b;

	return x < y ? -1 : x > y;
}

/* A unique index for a pool object, -1 for anything else. */
static int
obj_index(void *obj)
{
	void **hit = bsearch(&obj, sorted, POOL_N, sizeof(void *), cmp_ptr);

	return hit == NULL ? -1 : (int)(hit - sorted);
}

static int
mark(struct mp_ctl *ctl, void **objs, unsigned int n, uint8_t from,
	uint8_t to)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		int idx = obj_index(objs[i]);
		uint8_t expect = from;

		if (idx < 0) {
			printf("FAILED: %p is not an object of the pool\n",
				objs[i]);
			return -1;
		}
		if (!__atomic_compare_exchange_n(&ctl->owned[idx], &expect, to,
				0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			printf("FAILED: object %d (%p) was %u, expected %u: %s\n",
				idx, objs[i], expect, from,
				to ? "handed out twice" : "freed twice");
			return -1;
		}
	}
	return 0;
}

static int
build_index(void)
{
	sorted = calloc(POOL_N, sizeof(void *));
	if (sorted == NULL)
		return -1;
	if (rte_mempool_obj_iter(pool, collect_cb, NULL) != POOL_N)
		return -1;
	qsort(sorted, POOL_N, sizeof(void *), cmp_ptr);
	return 0;
}

static int
run_secondary(struct mp_ctl *ctl, double seconds)
{
	void *held[8][MAX_BULK];
	unsigned int nheld[8] = { 0 };
	uint64_t end = rte_get_tsc_cycles() + seconds * rte_get_tsc_hz();
	uint64_t ops = 0;
	unsigned int i, slot;

	srand(getpid());
	if (build_index() < 0)
		return -1;
	while (rte_get_tsc_cycles() < end) {
		slot = rand() % 8;
		if (nheld[slot] != 0) {
			if (mark(ctl, held[slot], nheld[slot], 1, 0) < 0)
				return -1;
			rte_mempool_put_bulk(pool, held[slot], nheld[slot]);
			nheld[slot] = 0;
		} else {
			unsigned int n = 1 + rand() % MAX_BULK;

			if (rte_mempool_get_bulk(pool, held[slot], n) == 0) {
				if (mark(ctl, held[slot], n, 0, 1) < 0)
					return -1;
				nheld[slot] = n;
			}
		}
		ops++;
	}
	for (i = 0; i < 8; i++) {
		if (mark(ctl, held[i], nheld[i], 1, 0) < 0)
			return -1;
		rte_mempool_put_bulk(pool, held[i], nheld[i]);
	}
	printf("secondary %d on lcore %u: %" PRIu64 " operations\n",
		getpid(), rte_lcore_id(), ops);
	return 0;
}

/* Die at a random moment within the first SECONDS, from a thread. */
static void *
die_timer(void *arg)
{
	double seconds = *(double *)arg;

	usleep((useconds_t)(seconds * 1e6 * (0.2 + 0.8 * (rand() % 1000) / 1000.0)));
	raise(SIGKILL);
	return NULL;
}

/*
 * Churn with large bulks (slow paths, trades) and flushes (long calls
 * that hold no object in the caller's hands), so that the death most
 * likely comes inside a call, until killed. Held objects are marked 2:
 * the primary counts them out of the pool for good.
 */
static int
run_die(struct mp_ctl *ctl, double seconds)
{
	void *held[4][4 * MAX_BULK];
	unsigned int nheld[4] = { 0 }, slot, n;
	pthread_t t;

	srand(getpid());
	if (build_index() < 0)
		return -1;
	__atomic_fetch_add(&ctl->deaths, 1, __ATOMIC_RELAXED);
	if (pthread_create(&t, NULL, die_timer, &seconds) != 0)
		return -1;
	for (;;) {
		slot = rand() % 4;
		if (nheld[slot] != 0) {
			if (mark(ctl, held[slot], nheld[slot], 2, 0) < 0)
				return -1;
			rte_mempool_put_bulk(pool, held[slot], nheld[slot]);
			nheld[slot] = 0;
			continue;
		}
		n = 1 + rand() % (4 * MAX_BULK);
		if (rte_mempool_get_bulk(pool, held[slot], n) == 0) {
			if (mark(ctl, held[slot], n, 0, 2) < 0)
				return -1;
			nheld[slot] = n;
		}
		if (rte_sheaf_flush_lcore(pool) < 0)
			return -1;
	}
}

static uint64_t
stat_of(enum rte_sheaf_stat id)
{
	struct rte_sheaf_stats st;

	return rte_sheaf_stats_get(pool, &st) == 0 ? st.count[id] : 0;
}

/* Whether rte_sheaf_dump() shows lcore's slot as the caller's own. */
static int
owns_lcore_slot(unsigned int lcore)
{
	char *buf = NULL, want[64];
	size_t len = 0;
	FILE *f;
	int found;

	f = open_memstream(&buf, &len);
	if (f == NULL)
		return 0;
	rte_sheaf_dump(f, pool);
	fclose(f);
	snprintf(want, sizeof(want), "lcore %u: owner pid %d (this process)",
		lcore, getpid());
	found = buf != NULL && strstr(buf, want) != NULL;
	free(buf);
	return found;
}

/* Whether rte_sheaf_dump() shows the caller's lcore slot as its own. */
static int
owns_slot(void)
{
	return owns_lcore_slot(rte_lcore_id());
}

/*
 * The secondaries exited or died with objects in their lcores' sheaves:
 * every object but those the dead held, and at most one bulk in flight
 * per death, comes back, each once, in gets of at most 64.
 */
static int
check_whole(struct mp_ctl *ctl, void **all)
{
	unsigned int i, got = 0, dead_held = 0, slack;
	uint32_t deaths = __atomic_load_n(&ctl->deaths, __ATOMIC_RELAXED);

	for (i = 0; i < POOL_N; i++)
		dead_held += ctl->owned[i] == 2;
	slack = deaths * 4 * MAX_BULK;
	while (got < POOL_N && rte_mempool_get_bulk(pool, &all[got],
			RTE_MIN(64u, POOL_N - got)) == 0)
		got += RTE_MIN(64u, POOL_N - got);
	while (got < POOL_N && rte_mempool_get(pool, &all[got]) == 0)
		got++;
	if (mark(ctl, all, got, 0, 1) < 0)
		return -1;
	printf("primary: got %u of %u, %u held by %u dead, slack %u\n", got,
		POOL_N, dead_held, deaths, slack);
	if (got + dead_held > POOL_N || got + dead_held + slack < POOL_N) {
		printf("FAILED: got %u, expected %u - %u held by the dead, less at most %u in flight\n",
			got, POOL_N, dead_held, slack);
		return -1;
	}
	rte_mempool_put_bulk(pool, all, got);
	if (deaths == 0 && got + dead_held != POOL_N) {
		printf("FAILED: got %u, expected %u (%u held by the dead)\n",
			got, POOL_N - dead_held, dead_held);
		return -1;
	}
	printf("primary: pool whole, each object once\n");
	return 0;
}

/*
 * On the lcore id of a dead process: its slot becomes ours, and our calls
 * use it (none finds it busy, as a stale mark of the dead would have it).
 */
static int
run_owner(struct mp_ctl *ctl, double seconds)
{
	uint64_t reentrant = stat_of(RTE_SHEAF_STAT_REENTRANT);
	uint64_t fails = stat_of(RTE_SHEAF_STAT_ALLOC_FAIL);

	printf("owner pid %d on lcore %u\n", getpid(), rte_lcore_id());
	if (run_secondary(ctl, seconds) < 0)
		return -1;
	if (!owns_slot()) {
		printf("FAILED: pid %d does not own its lcore %u slot\n",
			getpid(), rte_lcore_id());
		return -1;
	}
	if (stat_of(RTE_SHEAF_STAT_REENTRANT) != reentrant) {
		printf("FAILED: %" PRIu64 " calls found the slot busy (the dead owner's mark)\n",
			stat_of(RTE_SHEAF_STAT_REENTRANT) - reentrant);
		return -1;
	}
	printf("owner %d owns its lcore %u slot, %" PRIu64 " failed gets\n",
		getpid(), rte_lcore_id(), stat_of(RTE_SHEAF_STAT_ALLOC_FAIL) -
		fails);
	return 0;
}

struct leader_arg {
	struct mp_ctl *ctl;
	const char *go_file;
	unsigned int lcore;
};

/*
 * The thread left when the leader's main thread exited: the process is
 * alive, its slot must still be its own once the script says go.
 */
static void *
leader_rest(void *arg)
{
	struct leader_arg *la = arg;
	int ret = 0;

	while (access(la->go_file, F_OK) != 0)
		usleep(10000);
	if (!owns_lcore_slot(la->lcore)) {
		printf("FAILED: leader %d lost its lcore %u slot while alive (main thread exited)\n",
			getpid(), la->lcore);
		ret = -1;
		__atomic_fetch_add(&la->ctl->failures, 1, __ATOMIC_RELAXED);
	} else {
		printf("leader %d still owns its lcore %u slot\n", getpid(),
			la->lcore);
	}
	__atomic_fetch_add(&la->ctl->secondaries_done, 1, __ATOMIC_RELEASE);
	fflush(stdout);
	exit(ret == 0 ? 0 : 1);
}

/* Claim the lcore's slot, then exit the main thread only. */
static int
run_leader(struct mp_ctl *ctl, double seconds, const char *go_file)
{
	static struct leader_arg la;
	pthread_t t;

	if (run_secondary(ctl, seconds) < 0 || !owns_slot()) {
		printf("FAILED: leader %d does not own its lcore %u slot\n",
			getpid(), rte_lcore_id());
		return -1;
	}
	la.ctl = ctl;
	la.go_file = go_file;
	la.lcore = rte_lcore_id();
	if (pthread_create(&t, NULL, leader_rest, &la) != 0)
		return -1;
	printf("leader %d owns its lcore %u slot; its main thread exits\n",
		getpid(), la.lcore);
	fflush(stdout);
	pthread_exit(NULL);
}

/* On the lcore id of a live leader: its slot stays the leader's. */
static int
run_visitor(struct mp_ctl *ctl, double seconds)
{
	if (run_secondary(ctl, seconds) < 0)
		return -1;
	if (owns_slot()) {
		printf("FAILED: visitor %d took the lcore %u slot of a live process\n",
			getpid(), rte_lcore_id());
		return -1;
	}
	printf("visitor %d left the lcore %u slot to its live owner\n",
		getpid(), rte_lcore_id());
	return 0;
}

/*
 * Borrow two prefill sheaves to die with: one within the sheaf capacity
 * (an arena sheaf) and one past it (rte_malloc'd), an object taken from
 * each. The pool must take back the rest of both from the dead.
 */
static int
borrow(struct mp_ctl *ctl)
{
	struct rte_sheaf_prefill *pf[2];
	struct rte_sheaf_info info;
	unsigned int i, n[2];
	void *o;

	if (rte_sheaf_info_get(pool, &info) != 0)
		return -1;
	n[0] = info.capacity / 2;
	n[1] = 3 * info.capacity;
	for (i = 0; i < 2; i++) {
		pf[i] = rte_sheaf_prefill_get(pool, n[i]);
		if (pf[i] == NULL || rte_sheaf_prefill_alloc(pf[i], &o) != 0 ||
				mark(ctl, &o, 1, 0, 2) < 0) {
			printf("FAILED: secondary prefill of %u\n", n[i]);
			return -1;
		}
		printf("secondary %d dies with a borrowed sheaf of %d objects\n",
			getpid(), rte_sheaf_prefill_size(pf[i]));
	}
	return 0;
}

static int
run_primary(struct mp_ctl *ctl, const char *go_file)
{
	static void *all[POOL_N + 1];
	void *held[HELD];
	uint64_t deadline;

	if (rte_mempool_get_bulk(pool, held, HELD) != 0) {
		printf("FAILED: primary get of %u\n", HELD);
		return -1;
	}
	printf("primary ready\n");
	fflush(stdout);
	/* Churn on lcore 0 meanwhile, as a secondary on the same lcore id
	 * does: yielding often, not spinning, as both share a CPU.
	 */
	if (build_index() < 0)
		return -1;
	deadline = rte_get_tsc_cycles() + 60 * rte_get_tsc_hz();
	/* The script creates go_file once every secondary has exited: one
	 * that could not attach never reaches the shared counters.
	 */
	while (access(go_file, F_OK) != 0) {
		void *burst[MAX_BULK];
		unsigned int n = 1 + rand() % MAX_BULK;

		if (rte_get_tsc_cycles() > deadline) {
			printf("FAILED: no go from the script after 60 s\n");
			return -1;
		}
		if (rte_mempool_get_bulk(pool, burst, n) == 0) {
			if (mark(ctl, burst, n, 0, 1) < 0 ||
					mark(ctl, burst, n, 1, 0) < 0)
				return -1;
			rte_mempool_put_bulk(pool, burst, n);
		}
		sched_yield();
	}
	rte_mempool_put_bulk(pool, held, HELD);
	printf("primary: %u secondaries done\n",
		__atomic_load_n(&ctl->secondaries_done, __ATOMIC_ACQUIRE));
	if (__atomic_load_n(&ctl->failures, __ATOMIC_RELAXED) != 0) {
		printf("FAILED: a secondary reported a failure\n");
		return -1;
	}
	return check_whole(ctl, all);
}

int
main(int argc, char **argv)
{
	const struct rte_memzone *mz;
	struct mp_ctl *ctl;
	int ret;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		printf("SKIP: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 77;
	}
	argc -= ret;
	argv += ret;
	if (argc < 2) {
		printf("usage: %s <EAL args> -- primary GO_FILE | secondary[-kill]|die|owner|visitor SECONDS | leader SECONDS GO_FILE\n",
			argv[0]);
		return 1;
	}
	if (strcmp(argv[1], "primary") == 0) {
		pool = rte_sheaf_pool_create(POOL_NAME, POOL_N, ELT, 0, 0,
			SOCKET_ID_ANY, 0, NULL);
		mz = rte_memzone_reserve(CTL_NAME, sizeof(*ctl), SOCKET_ID_ANY,
			0);
		if (pool == NULL || mz == NULL) {
			printf("FAILED: create: %s\n", rte_strerror(rte_errno));
			return 1;
		}
		ctl = mz->addr;
		memset(ctl, 0, sizeof(*ctl));
		ret = run_primary(ctl, argv[2]);
	} else {
		double secs = atof(argv[2]);

		pool = rte_mempool_lookup(POOL_NAME);
		mz = rte_memzone_lookup(CTL_NAME);
		if (pool == NULL || mz == NULL ||
				rte_sheaf_pool_check(pool) != 0) {
			printf("FAILED: secondary lookup\n");
			return 1;
		}
		ctl = mz->addr;
		if (strcmp(argv[1], "die") == 0)
			ret = run_die(ctl, secs);
		else if (strcmp(argv[1], "owner") == 0)
			ret = run_owner(ctl, secs);
		else if (strcmp(argv[1], "leader") == 0 && argc >= 4)
			ret = run_leader(ctl, secs, argv[3]);
		else if (strcmp(argv[1], "visitor") == 0)
			ret = run_visitor(ctl, secs);
		else
			ret = run_secondary(ctl, secs);
		if (ret != 0)
			__atomic_fetch_add(&ctl->failures, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&ctl->secondaries_done, 1,
			__ATOMIC_RELEASE);
		/* Die with objects in this lcore's sheaves and no clean-up:
		 * the primary must take them back from the dead slot.
		 */
		if (ret == 0 && strcmp(argv[1], "secondary-kill") == 0) {
			struct rte_sheaf_info info;

			if (!owns_slot()) {
				printf("FAILED: secondary %d does not own its lcore %u slot\n",
					getpid(), rte_lcore_id());
				__atomic_fetch_add(&ctl->failures, 1,
					__ATOMIC_RELAXED);
			} else {
				printf("secondary %d owns its lcore %u slot\n",
					getpid(), rte_lcore_id());
			}

			if (borrow(ctl) < 0)
				__atomic_fetch_add(&ctl->failures, 1,
					__ATOMIC_RELAXED);
			if (rte_sheaf_info_get(pool, &info) == 0)
				printf("secondary %d killing itself, %u objects in lcore sheaves, %u sheaves borrowed\n",
					getpid(), info.in_lcores,
					info.nb_borrowed);
			fflush(stdout);
			raise(SIGKILL);
		}
	}
	rte_eal_cleanup();
	return ret == 0 ? 0 : 1;
}
