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
 *            says so), then SIGKILLs itself with objects in its lcore's
 *            sheaves, for the primary to take back.
 * Exit: 0 pass, 1 fail, 77 skip.
 */

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
	uint8_t owned[POOL_N];      /* atomic per object: 1 while held */
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

/* Whether rte_sheaf_dump() shows the caller's lcore slot as its own. */
static int
owns_slot(void)
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
		rte_lcore_id(), getpid());
	found = buf != NULL && strstr(buf, want) != NULL;
	free(buf);
	return found;
}

static int
run_primary(struct mp_ctl *ctl, const char *go_file)
{
	static void *all[POOL_N + 1];
	void *held[HELD];
	uint64_t deadline;
	unsigned int i;

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
	if (rte_mempool_avail_count(pool) != POOL_N) {
		printf("FAILED: avail count: got %u, expected %u\n",
			rte_mempool_avail_count(pool), POOL_N);
		return -1;
	}
	/* The secondaries exited with objects in their lcores' sheaves:
	 * one get of the whole pool must still succeed.
	 */
	if (rte_mempool_get_bulk(pool, all, POOL_N) != 0) {
		printf("FAILED: get of the whole pool after the secondaries\n");
		return -1;
	}
	qsort(all, POOL_N, sizeof(void *), cmp_ptr);
	for (i = 0; i < POOL_N; i++)
		if (all[i] != sorted[i]) {
			printf("FAILED: object %u of the whole pool: got %p, expected %p\n",
				i, all[i], sorted[i]);
			return -1;
		}
	rte_mempool_put_bulk(pool, all, POOL_N);
	printf("primary: pool whole, %u objects each once\n", POOL_N);
	return 0;
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
		printf("usage: %s <EAL args> -- primary GO_FILE | secondary[-kill] SECONDS\n",
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
		pool = rte_mempool_lookup(POOL_NAME);
		mz = rte_memzone_lookup(CTL_NAME);
		if (pool == NULL || mz == NULL ||
				rte_sheaf_pool_check(pool) != 0) {
			printf("FAILED: secondary lookup\n");
			return 1;
		}
		ctl = mz->addr;
		ret = run_secondary(ctl, atof(argv[2]));
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

			if (rte_sheaf_info_get(pool, &info) == 0)
				printf("secondary %d killing itself, %u objects in lcore sheaves\n",
					getpid(), info.in_lcores);
			fflush(stdout);
			raise(SIGKILL);
		}
	}
	rte_eal_cleanup();
	return ret == 0 ? 0 : 1;
}
