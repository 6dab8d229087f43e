/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Death tests: a process using a sheaf pool dies (SIGKILL) at any
 * instruction, and the pool must stay whole but for what the dead process
 * had in its hands. Driven by test/scripts/kill_points.sh and
 * kill_storm.sh.
 *
 * matrix LOG [ROUND] [from=N]: the primary runs one round per kill
 *     point of lib/sheaf/sheaf_kill.h (a -Dkill_points=true build), each
 *     on a fresh pool: a secondary on lcore 1 runs a seeded workload of
 *     every kind of call (its thread without an lcore id and a timer
 *     signal's handler calling too) with SHEAF_KILL_AT set, and must die
 *     there. Two-stage rounds kill a second secondary while it recovers
 *     the first one's death. The primary then takes the whole pool back
 *     and checks it (below), and a clean secondary on lcore 1 must work
 *     and own the slot.
 * storm LOG N SEED: the primary SIGKILLs N secondaries running the same
 *     workload, each after a random delay, checking the pool after each.
 * work REC SEED STEPS, clean REC SEED STEPS: the secondaries (spawned by
 *     the primary).
 *
 * Every secondary records in a shared memzone which objects it holds
 * (marked after a get returns, cleared before a put), what each of its
 * threads has in flight (set before a call, cleared once its outcome is
 * recorded) and how many objects its borrowed prefill sheaf holds. After
 * a death the primary gets the pool one object at a time, each call
 * watched (more than 3 s aborts the run), and checks that every object
 * is a pool object, got once, not one the dead process holds, and that
 * the count is the pool's less the dead one's holdings, less at most what
 * it had in flight (its borrowed sheaf comes back); and that
 * RTE_SHEAF_STAT_LOST is 0.
 *
 * Exit: 0 pass, 1 fail, 77 skip.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memzone.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>

#include "rte_sheaf.h"
#ifdef KILL_APP_POINTS
#include "sheaf_kill.h"
#include "sheaf_slot.h"
#include "sheaf_test.h"
#endif

/*
 * A small pool with small sheaves and a small barn: trades, refills,
 * flushes and swaps every few calls, barn empties short enough that
 * deferred frees reach their transit and fallback rungs.
 */
#define POOL_N 2048
#define CAP 8
#define BARN 16
#define ELT 64
#define BULK_MAX (3 * CAP)
/* DPDK's mempool cache in the cache rounds: a flush of 24 objects. */
#define KILL_CACHE 16
#define CTL_NAME "sheaf_kill_ctl"
#define QSBR_NAME "sheaf_kill_qsbr"

/* Records: a round's first and second secondary, its clean one. */
#define NB_REC 3
#define REC_CLEAN 2
/*
 * Threads of a secondary that may be in a call: main, the pthread, and
 * a signal handler interrupting either.
 */
#define NB_THR 3
#define THR_SIGNAL 2

/*
 * Any pool call taking longer than this is a hang (a dead lock holder is
 * seen after ~1 ms, a get short of objects waits milliseconds): seconds,
 * for a loaded machine.
 */
#define WATCH_LIMIT_NS (3 * UINT64_C(1000000000))
/*
 * A process's start-up (EAL, a secondary's attach to the primary's
 * memory and pool): no pool call, but a hang there left nothing to
 * tell where it hung. Tens of seconds: ASan's start-up on a loaded
 * machine, well inside CHILD_LIMIT_S.
 */
#define WATCH_START_LIMIT_NS (30 * UINT64_C(1000000000))
/* A secondary's whole life, EAL start included: seconds. */
#define CHILD_LIMIT_S 90

/* What one secondary records; written by it, read after its death. */
struct kill_rec {
	uint32_t ready;     /* its workload has started */
	uint32_t done;      /* its workload ended: it was not killed */
	uint32_t borrowed;  /* objects in its borrowed prefill sheaf */
	uint32_t inflight[NB_THR]; /* objects of each thread's call */
	uint64_t steps;     /* workload steps begun */
	char op[NB_THR][24];       /* each thread's call, for the log */
};

struct kill_ctl {
	char pool[RTE_MEMPOOL_NAMESIZE];
	struct kill_rec rec[NB_REC];
	/*
	 * Per object (index in the sorted table): 0, or the record + 1 of
	 * the secondary holding it. Atomic.
	 */
	uint8_t held[POOL_N];
	/* Its address: a pointer no pool holds, freed into DPDK's cache by
	 * the workload "cachebad" (a validated pool refuses it). */
	uint64_t bogus;
};

static struct kill_ctl *ctl;
static struct rte_mempool *pool;
/* DPDK's mempool cache of the pools made: 0, or KILL_CACHE (cache rounds). */
static unsigned int pool_cache;
/* rte_sheaf_config::flags of the pools made (cache rounds: validate). */
static uint32_t pool_flags;
static void *sorted[POOL_N]; /* the pool's objects by address */
static unsigned int pool_n;

/* --- the pool's objects --- */

static void
collect_cb(struct rte_mempool *mp, void *opaque, void *obj, unsigned int i)
{
	RTE_SET_USED(mp);
	RTE_SET_USED(opaque);
	if (i < POOL_N)
		sorted[i] = obj;
}

static int
cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void * const *)a;
	uintptr_t y = (uintptr_t)*(void * const *)b;

	return x < y ? -1 : x > y;
}

static int
index_build(void)
{
	pool_n = rte_mempool_obj_iter(pool, collect_cb, NULL);
	if (pool_n != POOL_N) {
		printf("FAILED: pool %s objects: got %u, expected %u\n",
			pool->name, pool_n, POOL_N);
		return -1;
	}
	qsort(sorted, pool_n, sizeof(void *), cmp_ptr);
	return 0;
}

/* A unique index for a pool object, -1 for anything else. */
static int
obj_index(void *obj)
{
	void **hit = bsearch(&obj, sorted, pool_n, sizeof(void *), cmp_ptr);

	return hit == NULL ? -1 : (int)(hit - sorted);
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: the same workload for the same seed, in any process. */
static uint32_t
rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return (uint32_t)((*s * UINT64_C(2685821657736338717)) >> 32);
}

/* A string copy a signal handler may make (snprintf() is not one). */
static void
copy_str(char *dst, size_t len, const char *src)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i] != '\0'; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

/* --- the watchdog: no pool call may block --- */

static struct {
	uint64_t start[NB_THR];     /* ns; 0 while outside a call */
	uint64_t limit[NB_THR];     /* ns: a hang past it aborts */
	const char *what[NB_THR];
	uint64_t worst;             /* longest call, ns */
	char worst_what[24];
} watch;

/* The workload's timer signal is for the thread running the workload. */
static void
signal_block(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void *
watch_thread(void *arg)
{
	uint64_t s, now;
	unsigned int t;

	RTE_SET_USED(arg);
	signal_block();
	for (;;) {
		usleep(20000);
		for (t = 0; t < NB_THR; t++) {
			s = __atomic_load_n(&watch.start[t], __ATOMIC_ACQUIRE);
			/* The clock after the start: a call begun meanwhile
			 * must not look like one that began long ago.
			 */
			now = now_ns();
			if (s == 0 || s > now || now - s < watch.limit[t])
				continue;
			printf("FAILED: watchdog: %s (thread %u) in pid %d blocked for %.1f s, more than %" PRIu64 " s\n",
				watch.what[t], t, getpid(), (now - s) / 1e9,
				watch.limit[t] / 1000000000u);
			fflush(stdout);
			abort();
		}
	}
	return NULL;
}

static int
watch_start(void)
{
	pthread_t th;

	if (pthread_create(&th, NULL, watch_thread, NULL) != 0) {
		printf("FAILED: cannot start the watchdog thread\n");
		return -1;
	}
	pthread_detach(th);
	return 0;
}

static void
watch_begin_limit(unsigned int t, const char *what, uint64_t limit)
{
	watch.what[t] = what;
	watch.limit[t] = limit;
	/* Release: the watchdog reads what and limit with the start time. */
	__atomic_store_n(&watch.start[t], now_ns(), __ATOMIC_RELEASE);
}

static void
watch_begin(unsigned int t, const char *what)
{
	watch_begin_limit(t, what, WATCH_LIMIT_NS);
}

/* The end of a watched step; a start-up step's alone (not a pool call:
 * no worst call). */
static void
watch_step_end(unsigned int t)
{
	__atomic_store_n(&watch.start[t], 0, __ATOMIC_RELEASE);
}

static void
watch_end(unsigned int t)
{
	uint64_t d = now_ns() - watch.start[t];

	watch_step_end(t);
	if (d > watch.worst) {
		watch.worst = d;
		copy_str(watch.worst_what, sizeof(watch.worst_what),
			watch.what[t]);
	}
}

/* --- a secondary's workload, and what it records --- */

struct work {
	struct kill_rec *rec;
	uint8_t mark;          /* held[] value of this secondary */
	unsigned int thr;      /* the calling thread: 0 main, 1 pthread */
	uint64_t rng;
	unsigned int nheld;    /* objects in hand, in held[] */
	void *held[POOL_N];
	struct rte_sheaf_prefill *pf; /* the borrowed sheaf, or NULL */
};

/*
 * The records are stores to shared memory that a SIGKILL may cut
 * anywhere: each goes out in program order (release stores, and the
 * compare-and-swaps of mark()), so that the primary reads a prefix.
 */
static void
rec_call(struct work *w, const char *op, unsigned int n)
{
	struct kill_rec *r = w->rec;

	copy_str(r->op[w->thr], sizeof(r->op[0]), op);
	__atomic_store_n(&r->inflight[w->thr], n, __ATOMIC_RELEASE);
	watch_begin(w->thr, op);
}

/* The call returned; its objects are still in flight until recorded. */
static void
rec_ret(struct work *w)
{
	watch_end(w->thr);
}

static void
rec_idle(struct work *w)
{
	__atomic_store_n(&w->rec->inflight[w->thr], 0, __ATOMIC_RELEASE);
}

static void
rec_borrowed(struct work *w, uint32_t n)
{
	__atomic_store_n(&w->rec->borrowed, n, __ATOMIC_RELEASE);
}

/* Move held marks of objs from one value to another, checking each. */
static int
mark(struct work *w, void * const *objs, unsigned int n, uint8_t from,
	uint8_t to)
{
	unsigned int i;
	uint8_t expect;
	int idx;

	for (i = 0; i < n; i++) {
		idx = obj_index(objs[i]);
		if (idx < 0) {
			printf("FAILED: %s: %p is not an object of the pool\n",
				w->rec->op[w->thr], objs[i]);
			return -1;
		}
		expect = from;
		if (!__atomic_compare_exchange_n(&ctl->held[idx], &expect, to,
				0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
			printf("FAILED: %s: object %d (%p) mark: got %u, expected %u (%s)\n",
				w->rec->op[w->thr], idx, objs[i], expect,
				from, to != 0 ? "handed out twice" :
				"not held");
			return -1;
		}
	}
	return 0;
}

/* Move n random held objects to the end of held[]. */
static void
work_mix(struct work *w, unsigned int n)
{
	unsigned int i, j;
	void *t;

	for (i = w->nheld - n; i < w->nheld; i++) {
		j = rnd(&w->rng) % w->nheld;
		t = w->held[i];
		w->held[i] = w->held[j];
		w->held[j] = t;
	}
}

/* Get n objects: 1 got, 0 the pool had not n, -1 failed. */
static int
work_get(struct work *w, unsigned int n)
{
	void **objs = &w->held[w->nheld];
	int ret;

	if (w->nheld + n > POOL_N)
		return 0;
	rec_call(w, "get", n);
	ret = rte_mempool_get_bulk(pool, objs, n);
	rec_ret(w);
	/* The bogus pointer a dead "cachebad" left in the cache: dropped. */
	if (ret == 0 && n == 1 && objs[0] == &ctl->bogus) {
		rec_idle(w);
		return 1;
	}
	if (ret == 0) {
		if (mark(w, objs, n, 0, w->mark) < 0)
			return -1;
		w->nheld += n;
	}
	rec_idle(w);
	return ret == 0;
}

/* Give n random held objects back: put, or deferred free. */
static int
work_give(struct work *w, unsigned int n, bool deferred)
{
	void **objs;
	int ret = 0;

	work_mix(w, n);
	objs = &w->held[w->nheld - n];
	rec_call(w, deferred ? "free_deferred" : "put", n);
	if (mark(w, objs, n, w->mark, 0) < 0)
		return -1;
	if (deferred)
		ret = rte_sheaf_free_deferred_bulk(pool, objs, n);
	else
		rte_mempool_put_bulk(pool, objs, n);
	rec_ret(w);
	if (ret != 0) {
		printf("FAILED: free_deferred_bulk of %u: got %d, expected 0\n",
			n, ret);
		return -1;
	}
	w->nheld -= n;
	rec_idle(w);
	return 0;
}

static unsigned int
work_some(struct work *w, unsigned int max)
{
	return 1 + rnd(&w->rng) % RTE_MIN(max, (unsigned int)BULK_MAX);
}

static int
op_get(struct work *w)
{
	return work_get(w, work_some(w, BULK_MAX)) < 0 ? -1 : 0;
}

static int
op_put(struct work *w)
{
	return w->nheld == 0 ? 0 : work_give(w, work_some(w, w->nheld), false);
}

/*
 * Asked to give back some objects, as an allocation on another lcore
 * that ran dry asks (SHEAF_REQ_GIVE), then a get: its call serves the
 * request, keeping what it takes. The request is made here (a test
 * build's internal call): the matrix has one process on one lcore.
 */
static int
op_asked(struct work *w)
{
#ifdef KILL_APP_POINTS
	struct sheaf_pool *sp = sheaf_pool_of(pool);

	(void)sheaf_slot_request_give(&sp->slot[rte_lcore_id()],
		work_some(w, BULK_MAX));
#endif
	return op_get(w);
}

static int
op_defer(struct work *w)
{
	return w->nheld == 0 ? 0 : work_give(w, work_some(w, w->nheld), true);
}

/* A call that moves no object through the caller's hands. */
static int
work_plain(struct work *w, const char *what, int (*fn)(struct rte_mempool *))
{
	int ret;

	rec_call(w, what, 0);
	ret = fn(pool);
	rec_ret(w);
	rec_idle(w);
	if (ret < 0) {
		printf("FAILED: %s: got %d (%s), expected >= 0\n", what, ret,
			rte_strerror(-ret));
		return -1;
	}
	return 0;
}

static int
op_flush_lcore(struct work *w)
{
	return work_plain(w, "flush_lcore", rte_sheaf_flush_lcore);
}

static int
op_flush(struct work *w)
{
	return work_plain(w, "flush", rte_sheaf_flush);
}

static int
op_reclaim(struct work *w)
{
	return work_plain(w, "reclaim", rte_sheaf_reclaim);
}

static int
op_barrier(struct work *w)
{
	return work_plain(w, "deferred_barrier", rte_sheaf_deferred_barrier);
}

/* Objects to ask a prefill for: one time in four past the capacity. */
static unsigned int
pf_want(struct work *w)
{
	if (rnd(&w->rng) % 4 == 0)
		return CAP + 1 + rnd(&w->rng) % (2 * CAP);
	return 1 + rnd(&w->rng) % CAP;
}

/* After a prefill call: what the borrowed sheaf holds now. */
static int
pf_record(struct work *w, unsigned int n)
{
	int size = rte_sheaf_prefill_size(w->pf);

	if (size < (int)n) {
		printf("FAILED: %s of %u: sheaf size got %d, expected >= %u\n",
			w->rec->op[w->thr], n, size, n);
		return -1;
	}
	rec_borrowed(w, size);
	return 0;
}

/*
 * Borrow, or refill (maybe growing it). A load goes up to the capacity,
 * or, oversize, to the sheaf's own: a power of two at least n, or a
 * larger idle one reused (the smallest that fits); the largest this
 * workload makes is PF_OVERSIZE_MAX (a refill may find its sheaf one).
 * That is what the call may hold in flight: the objects between the
 * tiers and the sheaf at its death.
 */
#define PF_OVERSIZE_MAX 32 /* rte_align32pow2(3 * CAP): pf_want()'s most */
static int
pf_load(struct work *w)
{
	struct rte_sheaf_prefill *pf = w->pf;
	unsigned int n = pf_want(w);
	int ret;

	RTE_BUILD_BUG_ON(PF_OVERSIZE_MAX < 3 * CAP);
	rec_call(w, pf == NULL ? "prefill_get" : "prefill_refill",
		n > CAP || pf != NULL ? PF_OVERSIZE_MAX : CAP);
	if (pf == NULL) {
		pf = rte_sheaf_prefill_get(pool, n);
		ret = pf == NULL ? -rte_errno : 0;
	} else {
		ret = rte_sheaf_prefill_refill(pool, &pf, n);
	}
	rec_ret(w);
	if (ret == 0) {
		w->pf = pf;
		if (pf_record(w, n) < 0)
			return -1;
	} else if (ret != -ENOMEM) {
		printf("FAILED: %s of %u: got %d, expected 0 or %d\n",
			w->rec->op[w->thr], n, ret, -ENOMEM);
		return -1;
	}
	rec_idle(w);
	return 0;
}

/* Allocate from the borrowed sheaf: its count drops first. */
static int
pf_alloc(struct work *w)
{
	unsigned int size = w->rec->borrowed, k;
	void **objs = &w->held[w->nheld];
	int ret;

	if (size == 0 || w->nheld + size > POOL_N)
		return 0;
	k = 1 + rnd(&w->rng) % size;
	rec_call(w, "prefill_alloc", k);
	rec_borrowed(w, size - k);
	ret = rte_sheaf_prefill_alloc_bulk(w->pf, objs, k);
	rec_ret(w);
	if (ret != 0) {
		printf("FAILED: prefill_alloc_bulk of %u from %u: got %d, expected 0\n",
			k, size, ret);
		return -1;
	}
	if (mark(w, objs, k, 0, w->mark) < 0)
		return -1;
	w->nheld += k;
	rec_idle(w);
	return 0;
}

static int
pf_put(struct work *w)
{
	int ret;

	if (w->pf == NULL)
		return 0;
	rec_call(w, "prefill_put", w->rec->borrowed);
	rec_borrowed(w, 0);
	ret = rte_sheaf_prefill_put(pool, w->pf);
	rec_ret(w);
	w->pf = NULL;
	rec_idle(w);
	if (ret != 0) {
		printf("FAILED: prefill_put: got %d, expected 0\n", ret);
		return -1;
	}
	return 0;
}

static int
op_prefill(struct work *w)
{
	switch (w->pf == NULL ? 0 : rnd(&w->rng) % 3) {
	case 0:
		return pf_load(w);
	case 1:
		return pf_alloc(w);
	default:
		return pf_put(w);
	}
}

/*
 * Get until the pool is dry: the last gets reclaim the objects of other
 * slots (the primary's, idle: remote takes; dead ones': heirs), then
 * give them back.
 */
static int
op_burst(struct work *w)
{
	unsigned int start = w->nheld;
	int got;

	do
		got = work_get(w, CAP);
	while (got == 1);
	while (got >= 0 && w->nheld > start)
		got = work_give(w, work_some(w, w->nheld - start), false);
	return got < 0 ? -1 : 0;
}

/*
 * More deferred frees in a row than the barn has sheaves: the deferred
 * rungs past the barn's empties (a full sheaf in transit, the fallback).
 */
static int
op_defer_storm(struct work *w)
{
	unsigned int n = 0, k;
	int got = 1;

	while (got == 1 && n < (BARN + 4) * CAP) {
		got = work_get(w, BULK_MAX);
		n += got == 1 ? BULK_MAX : 0;
	}
	for (; got >= 0 && n > 0; n -= k) {
		k = work_some(w, n);
		got = work_give(w, k, true);
	}
	return got < 0 ? -1 : 0;
}

/* The shared path: a thread without an lcore id, alone meanwhile. */
static void *
shared_thread(void *arg)
{
	static int (* const fn[])(struct work *) = { op_get, op_put, op_defer };
	struct work *w = arg;
	unsigned int i;
	int ret = 0;

	signal_block();
	for (i = 0; i < 8 && ret == 0; i++)
		ret = fn[rnd(&w->rng) % RTE_DIM(fn)](w);
	return (void *)(intptr_t)ret;
}

static int
op_shared(struct work *w)
{
	pthread_t th;
	void *ret;

	w->thr = 1;
	if (pthread_create(&th, NULL, shared_thread, w) != 0) {
		printf("FAILED: cannot start a thread\n");
		return -1;
	}
	pthread_join(th, &ret);
	w->thr = 0;
	return (int)(intptr_t)ret;
}

static int op_signal(struct work *w);

static const struct work_op {
	const char *name;
	unsigned int weight;
	int (*fn)(struct work *w);
} work_ops[] = {
	{ "get", 24, op_get },
	{ "put", 24, op_put },
	{ "asked", 6, op_asked },
	{ "prefill", 12, op_prefill },
	{ "defer", 8, op_defer },
	{ "shared", 6, op_shared },
	{ "flush_lcore", 4, op_flush_lcore },
	{ "reclaim", 4, op_reclaim },
	{ "barrier", 3, op_barrier },
	{ "signal", 3, op_signal },
	{ "flush", 2, op_flush },
	{ "burst", 2, op_burst },
	{ "defer_storm", 1, op_defer_storm },
};

/* Every run has a burst and a deferred storm early: steps, and op. */
static const struct {
	uint64_t step;
	int (*fn)(struct work *w);
} work_fixed[] = {
	{ 6, op_burst },
	{ 12, op_defer_storm },
};

static const struct work_op *
work_op_of(int (*fn)(struct work *w))
{
	unsigned int k;

	for (k = 0; work_ops[k].fn != fn; k++)
		;
	return &work_ops[k];
}

/* The op of a step, by weight; under the timer, no other timer. */
static const struct work_op *
work_pick(struct work *w, uint64_t step, bool timed)
{
	unsigned int total = 0, k, r;

	for (k = 0; k < RTE_DIM(work_fixed) && !timed; k++)
		if (step == work_fixed[k].step)
			return work_op_of(work_fixed[k].fn);
	for (k = 0; k < RTE_DIM(work_ops); k++)
		total += work_ops[k].weight;
	do {
		r = rnd(&w->rng) % total;
		for (k = 0; r >= work_ops[k].weight; k++)
			r -= work_ops[k].weight;
	} while (timed && work_ops[k].fn == op_signal);
	return &work_ops[k];
}

/*
 * A signal handler's own calls, interrupting the workload's (those of a
 * transaction included: its frees are parked). One handler at a time,
 * whichever thread the signal lands on.
 */
#define SIG_PERIOD_US 150
#define SIG_STEPS 24
#define SIG_OBJS 4

static struct work sig_w;       /* the handler's objects and records */
static uint32_t sig_on;         /* the handler may call the pool */
static uint32_t sig_busy;       /* a handler (or the clean-up) has sig_w */
static volatile int sig_failed; /* a handler's check failed */

static void
sig_handler(int sig)
{
	int saved = errno, saved_rte = rte_errno, ret;

	RTE_SET_USED(sig);
	if (sig_failed || !__atomic_load_n(&sig_on, __ATOMIC_ACQUIRE) ||
			__atomic_exchange_n(&sig_busy, 1, __ATOMIC_ACQUIRE))
		return;
	if (sig_w.nheld == 0)
		ret = work_get(&sig_w, 1 + rnd(&sig_w.rng) % SIG_OBJS);
	else
		ret = work_give(&sig_w, sig_w.nheld, false);
	if (ret < 0)
		sig_failed = 1;
	__atomic_store_n(&sig_busy, 0, __ATOMIC_RELEASE);
	rte_errno = saved_rte;
	errno = saved;
}

static int
op_signal(struct work *w)
{
	struct itimerval it = { { 0, SIG_PERIOD_US }, { 0, SIG_PERIOD_US } };
	const struct work_op *op;
	unsigned int i;
	int ret = 0;

	sig_w.rec = w->rec;
	sig_w.mark = w->mark;
	sig_w.thr = THR_SIGNAL;
	sig_w.rng = w->rng ^ UINT64_C(0x5bd1e995);
	__atomic_store_n(&sig_on, 1, __ATOMIC_RELEASE);
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < SIG_STEPS && ret == 0 && !sig_failed; i++) {
		op = work_pick(w, 0, true);
		ret = op->fn(w);
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	/* A signal still pending, or a handler on another thread, may run
	 * late: the handler's objects go back once none has sig_w.
	 */
	__atomic_store_n(&sig_on, 0, __ATOMIC_RELEASE);
	while (__atomic_exchange_n(&sig_busy, 1, __ATOMIC_ACQUIRE))
		sched_yield();
	while (ret == 0 && !sig_failed && sig_w.nheld > 0)
		ret = work_give(&sig_w, sig_w.nheld, false);
	__atomic_store_n(&sig_busy, 0, __ATOMIC_RELEASE);
	return sig_failed ? -1 : ret;
}

static int
signal_setup(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sig_handler;
	sa.sa_flags = SA_RESTART;
	return sigaction(SIGALRM, &sa, NULL);
}

/* steps: 0 for ever (until killed). */
static int
work_run(struct work *w, uint64_t steps)
{
	const struct work_op *op;
	uint64_t step;

	for (step = 0; steps == 0 || step < steps; step++) {
		__atomic_store_n(&w->rec->steps, step + 1, __ATOMIC_RELAXED);
		op = work_pick(w, step, false);
		if (op->fn(w) < 0) {
			printf("FAILED: step %" PRIu64 " (%s)\n", step, op->name);
			return -1;
		}
	}
	return 0;
}

/*
 * The cache rounds' workload: one object at a time through DPDK's cache
 * of the lcore, up to three caches' worth and back, so that the cache
 * refills from the pool and flushes to it, a flush moving
 * KILL_CACHE * 3 / 2 objects through the slot's sheaves (CAP each).
 * bad: on each way down, once the cache is one short of its flush
 * threshold, ctl->bogus is freed into it: the top of the next flush,
 * the first run that flush moves (a pool in validate mode refuses it).
 */
static int
work_cache(struct work *w, uint64_t steps, bool bad)
{
	const struct rte_mempool_cache *c =
		rte_mempool_default_cache(pool, rte_lcore_id());
	bool up = true, bogus = false;
	uint64_t step;
	int ret;

	for (step = 0; steps == 0 || step < steps; step++) {
		__atomic_store_n(&w->rec->steps, step + 1, __ATOMIC_RELAXED);
		if (w->nheld >= 3 * KILL_CACHE) {
			up = false;
			bogus = bad;
		} else if (w->nheld == 0) {
			up = true;
		}
		if (!up && bogus && c != NULL &&
				c->len + 1 == c->flushthresh) {
			rte_mempool_put(pool, &ctl->bogus);
			bogus = false;
		}
		ret = up ? work_get(w, 1) : work_give(w, 1, false);
		if (ret < 0 || (up && ret == 0)) {
			printf("FAILED: cache step %" PRIu64 " (%s)\n", step,
				up ? "get" : "put");
			return -1;
		}
	}
	return 0;
}

/* Give everything back, the deferred frees included. */
static int
work_end(struct work *w)
{
	while (w->nheld > 0)
		if (work_give(w, work_some(w, w->nheld), false) < 0)
			return -1;
	if (pf_put(w) < 0)
		return -1;
	return op_barrier(w);
}

/* --- the secondaries --- */

/* Whether rte_sheaf_dump() shows the caller's lcore slot as its own. */
static bool
owns_slot(void)
{
	char *buf = NULL, want[80];
	size_t len = 0;
	bool found;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (f == NULL)
		return false;
	rte_sheaf_dump(f, pool);
	fclose(f);
	/* Owned for use, not inherited to be emptied. */
	snprintf(want, sizeof(want),
		"lcore %u: owner pid %d (this process) capacity=",
		rte_lcore_id(), getpid());
	found = buf != NULL && strstr(buf, want) != NULL;
	if (!found)
		printf("FAILED: no \"%s\" in the dump:\n%s", want,
			buf != NULL ? buf : "(none)\n");
	free(buf);
	return found;
}

static int
attach(void)
{
	const struct rte_memzone *mz = rte_memzone_lookup(CTL_NAME);

	if (mz == NULL) {
		printf("FAILED: no memzone %s\n", CTL_NAME);
		return -1;
	}
	ctl = mz->addr;
	pool = rte_mempool_lookup(ctl->pool);
	if (pool == NULL || rte_sheaf_pool_check(pool) != 0) {
		printf("FAILED: no sheaf pool %s\n", ctl->pool);
		return -1;
	}
	return index_build();
}

/*
 * work|clean|cachework|cachebad|cacheclean REC SEED STEPS: the workload
 * (cache*: that of the cache rounds), as secondary REC. A clean one must
 * also own its lcore's slot at the end.
 */
static int
secondary_main(char **args, bool clean, bool cache, bool bad)
{
	static struct work w;
	unsigned int r = atoi(args[0]);
	int ret;

	if (r >= NB_REC)
		return -1;
	watch_begin_limit(0, "secondary attach", WATCH_START_LIMIT_NS);
	ret = attach();
	watch_step_end(0);
	if (ret < 0 || signal_setup() < 0)
		return -1;
	w.rec = &ctl->rec[r];
	w.mark = r + 1;
	w.rng = strtoull(args[1], NULL, 0) | 1;
	__atomic_store_n(&w.rec->ready, 1, __ATOMIC_RELEASE);
	if (cache)
		ret = work_cache(&w, strtoull(args[2], NULL, 0), bad);
	else
		ret = work_run(&w, strtoull(args[2], NULL, 0));
	if (ret == 0)
		ret = work_end(&w);
	if (ret == 0 && clean && !owns_slot())
		ret = -1;
	if (ret == 0)
		__atomic_store_n(&w.rec->done, 1, __ATOMIC_RELEASE);
	printf("secondary %d (record %u) %s after %" PRIu64 " steps, worst call %.1f ms (%s)\n",
		getpid(), r, ret == 0 ? "done" : "FAILED", w.rec->steps,
		watch.worst / 1e6, watch.worst_what);
	return ret;
}

/* --- the primary: starting and reaping secondaries --- */

extern char **environ;

static char self_exe[PATH_MAX];
/* The primary's EAL arguments but its lcores, for its secondaries. */
static char *eal_args[64];
static unsigned int nb_eal_args;
static const char *child_log; /* the secondaries' output */

/* A secondary to run. */
struct child {
	const char *lcores;  /* its lcore option, e.g. "-l1" */
	const char *mode;    /* work or clean */
	unsigned int rec;
	uint64_t seed;
	uint64_t steps;      /* 0: until killed */
	const char *kill_at; /* SHEAF_KILL_AT, or NULL */
	unsigned int after;  /* SHEAF_KILL_AFTER */
};

static void
eal_args_save(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "-l") == 0 || strcmp(argv[i], "-c") == 0 ||
				strcmp(argv[i], "--lcores") == 0) {
			i++;
			continue;
		}
		if (strncmp(argv[i], "-l", 2) == 0 ||
				strncmp(argv[i], "--lcores=", 9) == 0 ||
				strncmp(argv[i], "--proc-type", 11) == 0)
			continue;
		if (nb_eal_args < RTE_DIM(eal_args))
			eal_args[nb_eal_args++] = argv[i];
	}
}

/* The environment with c's kill point, and no other. */
static char **
child_env(const struct child *c, char *at, size_t at_len, char *after,
	size_t after_len)
{
	size_t n = 0, k = 0, i;
	char **env;

	while (environ[n] != NULL)
		n++;
	env = calloc(n + 3, sizeof(char *));
	if (env == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "SHEAF_KILL_", 11) != 0)
			env[k++] = environ[i];
	if (c->kill_at != NULL) {
		snprintf(at, at_len, "SHEAF_KILL_AT=%s", c->kill_at);
		snprintf(after, after_len, "SHEAF_KILL_AFTER=%u", c->after);
		env[k++] = at;
		env[k++] = after;
	}
	return env;
}

static pid_t
child_spawn(const struct child *c)
{
	char rec[16], seed[24], steps[24], at[80], after[40];
	char *argv[RTE_DIM(eal_args) + 10];
	posix_spawn_file_actions_t fa;
	unsigned int n = 0, i;
	pid_t pid = -1;
	char **env;

	snprintf(rec, sizeof(rec), "%u", c->rec);
	snprintf(seed, sizeof(seed), "%" PRIu64, c->seed);
	snprintf(steps, sizeof(steps), "%" PRIu64, c->steps);
	argv[n++] = self_exe;
	argv[n++] = (char *)(uintptr_t)"--proc-type=secondary";
	argv[n++] = (char *)(uintptr_t)c->lcores;
	for (i = 0; i < nb_eal_args; i++)
		argv[n++] = eal_args[i];
	argv[n++] = (char *)(uintptr_t)"--";
	argv[n++] = (char *)(uintptr_t)c->mode;
	argv[n++] = rec;
	argv[n++] = seed;
	argv[n++] = steps;
	argv[n] = NULL;
	env = child_env(c, at, sizeof(at), after, sizeof(after));
	if (env == NULL || posix_spawn_file_actions_init(&fa) != 0)
		goto out;
	posix_spawn_file_actions_addopen(&fa, 1, child_log,
		O_WRONLY | O_CREAT | O_APPEND, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 2);
	if (posix_spawn(&pid, self_exe, &fa, NULL, argv, env) != 0)
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
out:
	free(env);
	if (pid < 0)
		printf("FAILED: cannot start a secondary (%s)\n", self_exe);
	return pid;
}

/* Child statuses besides wait statuses. */
#define CHILD_HUNG (-1)  /* still running after CHILD_LIMIT_S: killed */
#define CHILD_NONE (-2)  /* could not be started, or attach */

/* Reap pid, waiting at most limit_s: its wait status, or CHILD_HUNG. */
static int
child_wait(pid_t pid, unsigned int limit_s)
{
	uint64_t end = now_ns() + limit_s * UINT64_C(1000000000);
	pid_t r;
	int st;

	while ((r = waitpid(pid, &st, WNOHANG)) == 0) {
		if (now_ns() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return CHILD_HUNG;
		}
		usleep(1000);
	}
	return r == pid ? st : CHILD_NONE;
}

/* An EAL that could not map the primary's memory (exit 77). */
static bool
child_no_attach(int st)
{
	return st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 77;
}

static bool
child_killed(int st)
{
	return st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
}

static const char *
child_status(int st)
{
	static char buf[64];

	if (st == CHILD_HUNG)
		snprintf(buf, sizeof(buf), "hung, killed after %u s",
			CHILD_LIMIT_S);
	else if (st == CHILD_NONE)
		snprintf(buf, sizeof(buf), "could not start or attach");
	else if (WIFSIGNALED(st))
		snprintf(buf, sizeof(buf), "killed by signal %d (%s)",
			WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(buf, sizeof(buf), "exited %d", WEXITSTATUS(st));
	return buf;
}

/* The end of the secondaries' output, to show why a run failed. */
static void
child_log_show(void)
{
	static char buf[12288];
	size_t n;
	FILE *f = fopen(child_log, "r");

	if (f == NULL)
		return;
	fseek(f, 0, SEEK_END);
	n = (size_t)ftell(f);
	fseek(f, n > sizeof(buf) - 1 ? (long)(n - sizeof(buf) + 1) : 0,
		SEEK_SET);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	printf("----- the secondaries' output (end of %s) -----\n%s-----\n",
		child_log, buf);
}

/* --- the primary: the pool, taken back and checked --- */

static struct rte_rcu_qsbr *qsbr;

/* The QSBR variable of every pool: no reader, grace periods end at once. */
static int
qsbr_make(void)
{
	size_t sz = rte_rcu_qsbr_get_memsize(1);
	const struct rte_memzone *mz;

	mz = rte_memzone_reserve(QSBR_NAME, sz, SOCKET_ID_ANY, 0);
	if (mz == NULL || rte_rcu_qsbr_init(mz->addr, 1) != 0) {
		printf("FAILED: QSBR variable: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	qsbr = mz->addr;
	return 0;
}

/* A fresh pool for the secondaries, with objects in the primary's slot. */
/*
 * Oversize prefill sheaves, on the pool's idle list, for every borrow of
 * the secondaries: none of them allocates one. A process killed while
 * another of its threads is inside rte_malloc() leaves DPDK's heap lock
 * held (doc/reliability.md's limits): the next secondary's EAL start-up
 * and the pool's free would hang (seen once in CI, 2026-12-05).
 */
#define PF_WARM 8
static int
pool_warm_oversize(void)
{
	struct rte_sheaf_prefill *pf[PF_WARM];
	unsigned int k, got;
	int ret = 0;

	for (got = 0; got < PF_WARM; got++) {
		pf[got] = rte_sheaf_prefill_get(pool, PF_OVERSIZE_MAX);
		if (pf[got] == NULL) {
			printf("FAILED: primary prefill get of %u: %s\n",
				PF_OVERSIZE_MAX, rte_strerror(rte_errno));
			ret = -1;
			break;
		}
	}
	for (k = 0; k < got; k++)
		if (rte_sheaf_prefill_put(pool, pf[k]) != 0)
			ret = -1;
	return ret;
}

static int
pool_make(unsigned int i)
{
	struct rte_sheaf_config cfg = {
		.capacity = CAP,
		.barn_max_full = BARN,
		.barn_max_empty = BARN,
		.flags = pool_flags,
		/* Under the watchdog's limit: a time-out fails on its own. */
		.barrier_timeout_ms = 2500,
	};
	void *objs[CAP + CAP / 2];

	snprintf(ctl->pool, sizeof(ctl->pool), "sheaf_kill_%u", i);
	memset(ctl->rec, 0, sizeof(ctl->rec));
	memset(ctl->held, 0, sizeof(ctl->held));
	pool = rte_sheaf_pool_create(ctl->pool, POOL_N, ELT, pool_cache, 0,
		SOCKET_ID_ANY, 0, &cfg);
	if (pool == NULL || rte_sheaf_rcu_attach(pool, qsbr) != 0) {
		printf("FAILED: pool %s: %s\n", ctl->pool,
			rte_strerror(rte_errno));
		return -1;
	}
	if (index_build() < 0)
		return -1;
	if (pool_warm_oversize() < 0)
		return -1;
	/* Main and spare hold objects now, for the remote takes. */
	if (rte_mempool_get_bulk(pool, objs, RTE_DIM(objs)) != 0) {
		printf("FAILED: primary get of %zu\n", RTE_DIM(objs));
		return -1;
	}
	rte_mempool_put_bulk(pool, objs, RTE_DIM(objs));
	return 0;
}

/*
 * Watched too: a process that died inside rte_malloc() or rte_free()
 * leaves DPDK's heap lock held, and this would wait for ever.
 */
static void
pool_done(void)
{
	watch_begin(0, "primary mempool free");
	rte_mempool_free(pool);
	watch_end(0);
	pool = NULL;
}

struct take {
	unsigned int got;
	void *objs[POOL_N];
	uint8_t seen[POOL_N];
};

/* One get of one object, checked; *dry when the pool had none. */
static int
take_one(struct take *t, bool *dry)
{
	void *o;
	int ret, idx;

	watch_begin(0, "primary get of 1");
	ret = rte_mempool_get_bulk(pool, &o, 1);
	watch_end(0);
	if (ret != 0) {
		*dry = true;
		return 0;
	}
	idx = obj_index(o);
	if (idx < 0) {
		printf("FAILED: primary got %p: not an object of the pool\n",
			o);
		return -1;
	}
	if (t->seen[idx] || ctl->held[idx] != 0) {
		printf("FAILED: primary got object %d (%p) %s\n", idx, o,
			t->seen[idx] ? "twice" : "that a dead secondary holds");
		printf("        held mark: got %u, expected 0\n",
			ctl->held[idx]);
		return -1;
	}
	t->seen[idx] = 1;
	t->objs[t->got++] = o;
	return 0;
}

/* Nothing may stay in the pool once a get of one object fails. */
static int
take_left(void)
{
	struct rte_sheaf_info in;

	rte_sheaf_info_get(pool, &in);
	if (in.in_slabs + in.in_barns + in.in_lcores + in.in_deferred == 0)
		return 0;
	printf("FAILED: objects left in a dry pool: got %u (slabs %u, barns %u, lcores %u, deferred %u), expected 0\n",
		in.in_slabs + in.in_barns + in.in_lcores + in.in_deferred,
		in.in_slabs, in.in_barns, in.in_lcores, in.in_deferred);
	return -1;
}

/*
 * Get the pool one object at a time until it is dry; then again after a
 * deferred barrier, which brings back a dead slot's deferred sheaf.
 */
static int
take_all(struct take *t)
{
	unsigned int pass;
	bool dry;
	int ret;

	t->got = 0;
	memset(t->seen, 0, sizeof(t->seen));
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			/* Reclaim looks for dead borrowers every 10 ms. */
			usleep(20000);
			watch_begin(0, "primary deferred barrier");
			ret = rte_sheaf_deferred_barrier(pool);
			watch_end(0);
			if (ret != 0) {
				printf("FAILED: primary deferred barrier: got %d, expected 0\n",
					ret);
				return -1;
			}
		}
		for (dry = false; !dry && t->got < POOL_N;)
			if (take_one(t, &dry) < 0)
				return -1;
	}
	/* Where the objects are, for whoever looks into a failure. */
	if (getenv("SHEAF_KILL_DUMP") != NULL) {
		printf("primary got %u objects; the pool:\n", t->got);
		rte_sheaf_dump(stdout, pool);
	}
	return take_left();
}

static void
put_all(void **objs, unsigned int n)
{
	unsigned int k;

	for (; n > 0; n -= k, objs += k) {
		k = RTE_MIN(n, 32u);
		watch_begin(0, "primary put");
		rte_mempool_put_bulk(pool, objs, k);
		watch_end(0);
	}
}

/* What the dead secondaries (records below nb) had in their hands. */
struct dead {
	unsigned int held, borrowed, inflight;
	char calls[256]; /* each one's last calls, for the log */
};

static void
dead_sum(unsigned int nb, struct dead *d)
{
	const struct kill_rec *r;
	unsigned int i, t;
	size_t len = 0;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < POOL_N; i++)
		d->held += ctl->held[i] != 0 && ctl->held[i] <= nb;
	for (i = 0; i < nb; i++) {
		r = &ctl->rec[i];
		d->borrowed += r->borrowed;
		len += snprintf(d->calls + len, sizeof(d->calls) - len,
			" [%u: step %" PRIu64, i, r->steps);
		for (t = 0; t < NB_THR && len < sizeof(d->calls); t++) {
			d->inflight += r->inflight[t];
			if (r->op[t][0] != '\0')
				len += snprintf(d->calls + len,
					sizeof(d->calls) - len, ", %s %u",
					r->op[t], r->inflight[t]);
		}
		if (len < sizeof(d->calls))
			len += snprintf(d->calls + len,
				sizeof(d->calls) - len, "]");
	}
}

static uint64_t
stat_of(enum rte_sheaf_stat id)
{
	struct rte_sheaf_stats st;

	return rte_sheaf_stats_get(pool, &st) == 0 ? st.count[id] : 0;
}

/*
 * The pool had base objects before the deaths: all must be back but the
 * dead ones' holdings, and at most their calls' objects. Their borrowed
 * sheaves come back. What is missing beyond the calls' objects must be
 * counted lost (RTE_SHEAF_STAT_LOST, less *lost_seen, what earlier
 * checks of the pool saw): at most over more than is missing (0 for a
 * death at a named point; a death at a random instruction may fall
 * between a loss record and its cut, where a run still in place counts).
 */
static int
check_count(const struct take *t, unsigned int base, const struct dead *d,
	uint64_t *lost_seen, unsigned int over)
{
	unsigned int max = base - RTE_MIN(base, d->held);
	unsigned int min = max - RTE_MIN(max, d->inflight);
	uint64_t lost = stat_of(RTE_SHEAF_STAT_LOST) - *lost_seen;

	if (t->got > max || t->got + lost < min ||
			t->got + lost > (uint64_t)max + over) {
		printf("FAILED: objects got back: got %u and %" PRIu64 " counted lost, expected %u to %u (%u more counted at most; had %u, the dead held %u, borrowed %u, had %u in flight; last calls:%s)\n",
			t->got, lost, min, max, over, base, d->held,
			d->borrowed, d->inflight, d->calls);
		return -1;
	}
	*lost_seen += lost;
	return 0;
}

/* Why a check failed: where the objects are. */
static void
fail_dump(void)
{
	if (pool != NULL)
		rte_sheaf_dump(stdout, pool);
	child_log_show();
}

/* --- the kill-point matrix --- */

#ifdef KILL_APP_POINTS

/*
 * Workload steps before a secondary that did not die is a coverage
 * failure (the rarest point, a lend, comes after some 350 at worst);
 * steps of a clean secondary.
 */
#define MATRIX_STEPS 2000
#define CLEAN_STEPS 40
/*
 * The later pass of a ".store" point: a store deeper in a transaction,
 * or in a later one.
 */
#define STORE_LATE 5

struct stage {
	char point[40];
	unsigned int after;
	const char *lcores;
};

struct round {
	struct stage st[2];
	unsigned int nb;
};

#define KILL_STR(k) #k,
static const char * const tx_kinds[] = { SHEAF_KILL_TX_KINDS(KILL_STR) };
static const char * const tx_phases[] = { SHEAF_KILL_TX_PHASES(KILL_STR) };
#define KILL_PLAIN(p) p,
static const char * const plain_points[] = {
	SHEAF_KILL_POINTS_PLAIN(KILL_PLAIN)
};

/*
 * Points reached only while recovering from an earlier death: the first
 * secondary dies leaving what the second one recovers, and dies there.
 */
static const struct {
	const char *first;
	unsigned int first_after;
	const char *second;
	unsigned int after;
	const char *lcores; /* of the second */
} two_stage[] = {
	/* A lock held: the slot's heir rolls it back, or a waiter. */
	{ "trade_get.store", 2, "recover.undo", 1, "-l1" },
	{ "refill.commit", 1, "recover.undo", 2, "--lcores=2@1" },
	{ "flush.store", 3, "recover.undo", 1, "--lcores=2@1" },
	/*
	 * The recoverer dies too: the lock names it, not the slot's dead
	 * owner. These three failed until sheaf_tx_recover_proc() settled
	 * every lock (before: it left that one, the barn's counts kept gets
	 * off it, and a later roll-back rewrote the slot's deferred state
	 * under the heir: a sheaf on two stacks, objects handed out twice).
	 */
	{ "trade_get.store", 3, "recover.undo", 1, "-l1" },
	{ "trade_get.store", 3, "recover.undo", 1, "--lcores=2@1" },
	{ "defer_sheaf.commit", 1, "recover.undo", 1, "-l1" },
	/*
	 * A dead thief's mark: its clearer dies with marker taken, the
	 * bit still set; the next clearer finishes (marker names the
	 * dead clearer).
	 */
	{ "take.marked", 1, "mark.clearing", 1, "-l1" },
	/* A transit entry of a dead process: the next reclaim's. */
	{ "barn_flush.transit", 1, "transit_recover.lock", 1, "-l1" },
	{ "barn_flush.transit", 1, "transit_recover.store", 1, "-l1" },
	{ "barn_flush.transit", 1, "transit_recover.commit", 1, "-l1" },
	{ "barn_flush.transit", 1, "transit_recover.unlock", 1, "-l1" },
	{ "defer.transit", 1, "transit_recover.store", 2, "-l1" },
	/* A dead owner's slot with objects: a thief that runs dry on
	 * another lcore id empties it, the next owner inherits it.
	 */
	{ "push.copied", 30, "heir.served", 1, "--lcores=2@1" },
	{ "push.copied", 30, "inherit.claimed", 1, "-l1" },
	{ "push.copied", 30, "inherit.quiet", 1, "-l1" },
	/*
	 * A dead borrower's sheaf: the next reclaim or flush takes it
	 * back (an arena sheaf whole onto a barn, an oversize one's
	 * objects to the slabs).
	 */
	{ "prefill.grow", 1, "lend.claimed", 1, "-l1" },
	{ "prefill.give", 1, "lend.claimed", 1, "--lcores=2@1" },
	{ "prefill_get.unlock", 1, "lend_recover.lock", 1, "-l1" },
	{ "prefill_get.unlock", 1, "lend_recover.store", 1, "-l1" },
	{ "prefill_get.unlock", 1, "lend_recover.commit", 1, "-l1" },
	{ "prefill_get.unlock", 1, "lend_recover.unlock", 1, "-l1" },
};

static bool
two_stage_only(const char *point)
{
	unsigned int k;

	for (k = 0; k < RTE_DIM(two_stage); k++)
		if (strcmp(point, two_stage[k].second) == 0)
			return true;
	return false;
}

static void
stage_set(struct stage *s, const char *point, unsigned int after,
	const char *lcores)
{
	snprintf(s->point, sizeof(s->point), "%s", point);
	s->after = after;
	s->lcores = lcores;
}

/* A single-stage round at point, unless it needs two stages. */
static void
rounds_add(struct round *r, unsigned int *n, unsigned int max,
	const char *point, unsigned int after)
{
	if (*n == max || two_stage_only(point))
		return;
	r[*n].nb = 1;
	stage_set(&r[(*n)++].st[0], point, after, "-l1");
}

/* Every point once, ".store" twice; then the two-stage rounds. */
static unsigned int
rounds_build(struct round *r, unsigned int max)
{
	unsigned int n = 0, k, f;
	char p[40];

	for (k = 0; k < RTE_DIM(tx_kinds); k++)
		for (f = 0; f < RTE_DIM(tx_phases); f++) {
			snprintf(p, sizeof(p), "%s.%s", tx_kinds[k],
				tx_phases[f]);
			rounds_add(r, &n, max, p, 1);
			if (strcmp(tx_phases[f], "store") == 0)
				rounds_add(r, &n, max, p, STORE_LATE);
		}
	for (k = 0; k < RTE_DIM(plain_points); k++)
		rounds_add(r, &n, max, plain_points[k], 1);
	for (k = 0; k < RTE_DIM(two_stage) && n < max; k++) {
		r[n].nb = 2;
		stage_set(&r[n].st[0], two_stage[k].first,
			two_stage[k].first_after, "-l1");
		stage_set(&r[n++].st[1], two_stage[k].second,
			two_stage[k].after, two_stage[k].lcores);
	}
	return n;
}

/*
 * Run c to its end: its wait status, CHILD_HUNG or CHILD_NONE. A failed
 * attach (ASan's shadow mappings in the way, at times) is tried again.
 */
static int
child_run(const struct child *c)
{
	unsigned int tries;
	pid_t pid;
	int st = CHILD_NONE;

	for (tries = 0; tries < 3; tries++) {
		memset(&ctl->rec[c->rec], 0, sizeof(ctl->rec[0]));
		pid = child_spawn(c);
		if (pid < 0)
			return CHILD_NONE;
		st = child_wait(pid, CHILD_LIMIT_S);
		if (!child_no_attach(st))
			return st;
	}
	return CHILD_NONE;
}

/* A seed per point and pass: a round run alone replays its workload. */
static uint64_t
stage_seed(const struct stage *s)
{
	uint64_t h = UINT64_C(1469598103934665603);
	const char *c;

	for (c = s->point; *c != '\0'; c++)
		h = (h ^ (uint8_t)*c) * UINT64_C(1099511628211);
	return h ^ s->after;
}

/* "POINT@AFTER", ">POINT@AFTER" for a second stage, ":LCORES" past 1. */
static const char *
round_name(const struct round *r)
{
	static char buf[128];
	const struct stage *s;
	size_t len = 0;
	unsigned int k;

	for (k = 0; k < r->nb; k++) {
		s = &r->st[k];
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s@%u",
			k == 0 ? "" : ">", s->point, s->after);
		if (strcmp(s->lcores, "-l1") != 0 && len < sizeof(buf))
			len += snprintf(buf + len, sizeof(buf) - len, ":%s",
				strchr(s->lcores, '=') != NULL ?
				strchr(s->lcores, '=') + 1 : s->lcores);
	}
	return buf;
}

/* Run c, which must die at its kill point: 0, or -1 said why not. */
static int
child_run_killed(const struct child *c)
{
	int st = child_run(c);

	if (child_killed(st))
		return 0;
	if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		printf("FAILED: coverage: %s@%u not reached in %" PRIu64 " steps (seed %" PRIu64 ")\n",
			c->kill_at, c->after, c->steps, c->seed);
	else
		printf("FAILED: the secondary to kill at %s@%u %s\n",
			c->kill_at, c->after, child_status(st));
	return -1;
}

/* Each stage's secondary must die at its point. */
static int
round_kill(const struct round *r)
{
	struct child c = { .mode = "work", .steps = MATRIX_STEPS };
	const struct stage *s;
	unsigned int k;

	for (k = 0; k < r->nb; k++) {
		s = &r->st[k];
		c.lcores = s->lcores;
		c.rec = k;
		c.seed = stage_seed(s);
		c.kill_at = s->point;
		c.after = s->after;
		if (child_run_killed(&c) < 0)
			return -1;
	}
	return 0;
}

/*
 * After the deaths, a secondary on lcore 1 works (mode: clean, or
 * cacheclean), exits, owned the slot.
 */
static int
round_clean(const char *mode, uint64_t seed)
{
	const struct child c = {
		"-l1", mode, REC_CLEAN, seed, CLEAN_STEPS, NULL, 0
	};
	int st = child_run(&c);

	if (st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
			ctl->rec[REC_CLEAN].done)
		return 0;
	printf("FAILED: the clean secondary on lcore 1 %s\n",
		child_status(st));
	return -1;
}

/* The end of a round (ret: its verdict): why it failed, the pool freed. */
static int
round_end(int ret)
{
	if (ret < 0)
		fail_dump();
	pool_done();
	return ret;
}

/* Take the pool back after the deaths, check, give it back. */
static int
round_check(const struct round *r, struct take *t, struct dead *d)
{
	/*
	 * A first death at these points has objects between two places
	 * (a prefill load's gathered ones, a return's cut off the sheaf):
	 * lost, and some must be counted.
	 */
	static const char * const losing[] = {
		"prefill.load", "prefill.give"
	};
	/*
	 * A first (and only) death at these points, reached by a get on a
	 * slot (its ladder: the main thread's, or a handler's that
	 * interrupted it outside a pool call; not the thread without an
	 * lcore id's), has nothing of that call in hand: it is not in
	 * flight. The dying call is the one of those two threads with a
	 * call in flight; with both, it cannot be told, and both stay in
	 * flight. Until 2026-12-06 a get's ladder kept what it had got in
	 * the caller's table while its reclaim waited.
	 */
	static const char * const whole[] = { "get.reclaim" };
	const uint32_t *in = ctl->rec[0].inflight;
	struct dead e;
	uint64_t lost_seen = 0;
	unsigned int i;

	dead_sum(r->nb, d);
	e = *d;
	for (i = 0; i < RTE_DIM(whole); i++)
		if (r->nb == 1 && strcmp(r->st[0].point, whole[i]) == 0 &&
				(in[0] == 0 || in[THR_SIGNAL] == 0))
			e.inflight -= RTE_MIN(e.inflight,
				in[0] + in[THR_SIGNAL]);
	if (take_all(t) < 0 || check_count(t, POOL_N, &e, &lost_seen, 0) < 0)
		return -1;
	for (i = 0; i < RTE_DIM(losing); i++)
		if (strcmp(r->st[0].point, losing[i]) == 0 && lost_seen == 0) {
			printf("FAILED: stat lost 0 after a death at %s, which leaves objects between two places\n",
				losing[i]);
			return -1;
		}
	put_all(t->objs, t->got);
	return 0;
}

static int
round_run(const struct round *r, unsigned int i)
{
	static struct take t;
	uint64_t t0 = now_ns();
	unsigned int first;
	struct dead d;

	if (truncate(child_log, 0) != 0 && errno != ENOENT)
		printf("info: cannot truncate %s\n", child_log);
	if (pool_make(i) < 0)
		return -1;
	watch.worst = 0;
	if (round_kill(r) < 0 || round_check(r, &t, &d) < 0)
		goto fail;
	first = t.got;
	if (round_clean("clean", stage_seed(&r->st[0]) + 7) < 0 ||
			round_check(r, &t, &d) < 0)
		goto fail;
	if (t.got != first) {
		printf("FAILED: objects after the clean secondary: got %u, expected %u (the dead's last calls:%s)\n",
			t.got, first, d.calls);
		goto fail;
	}
	printf("round %u ok: step %" PRIu64 ", back %u of %u (held %u, borrowed %u, in flight %u), lost %" PRIu64 ", recover %" PRIu64 ", takeover %" PRIu64 ", worst call %.1f ms, %.2f s\n",
		i, ctl->rec[r->nb - 1].steps, first, POOL_N,
		d.held, d.borrowed, d.inflight,
		stat_of(RTE_SHEAF_STAT_LOST), stat_of(RTE_SHEAF_STAT_RECOVER),
		stat_of(RTE_SHEAF_STAT_TAKEOVER), watch.worst / 1e6,
		(now_ns() - t0) / 1e9);
	return round_end(0);
fail:
	return round_end(-1);
}

/* A round with a kill point on a remote take's way (sheaf_kill.h). */
static bool
round_takes(const struct round *r)
{
	unsigned int k;

	for (k = 0; k < r->nb; k++)
		if (strncmp(r->st[k].point, "take.", 5) == 0)
			return true;
	return false;
}

static bool
round_match(const struct round *r, const char *only)
{
	const struct stage *s = &r->st[r->nb - 1];
	char p[64];

	snprintf(p, sizeof(p), "%s@%u", s->point, s->after);
	return only == NULL || strcmp(only, round_name(r)) == 0 ||
		strcmp(only, s->point) == 0 || strcmp(only, p) == 0;
}

/*
 * matrix LOG [ROUND] [from=N]: every round, or those whose last point
 * matches ROUND; from round N on (the script goes on past a round whose
 * check crashed the primary).
 */
static int
matrix_main(char **args, int nargs)
{
	static struct round r[256];
	unsigned int n = rounds_build(r, RTE_DIM(r)), i, ran = 0, failed = 0;
	const char *only = NULL;
	unsigned int from = 0;
	uint64_t t0 = now_ns();
	int k;

	child_log = args[0];
	for (k = 1; k < nargs; k++)
		if (strncmp(args[k], "from=", 5) == 0)
			from = atoi(args[k] + 5);
		else
			only = args[k];
	for (i = from; i < n; i++) {
		if (!round_match(&r[i], only))
			continue;
		if (round_takes(&r[i]) && !sheaf_test_membarrier()) {
			printf("round %u %s: skipped, membarrier() unavailable (no remote take)\n",
				i, round_name(&r[i]));
			continue;
		}
		ran++;
		printf("round %u %s\n", i, round_name(&r[i]));
		if (round_run(&r[i], i) == 0)
			continue;
		failed++;
		printf("FAILED: round %u %s (replay: matrix LOG %s)\n", i,
			round_name(&r[i]), round_name(&r[i]));
	}
	printf("matrix: %u rounds, %u failed, %.1f s\n", ran, failed,
		(now_ns() - t0) / 1e9);
	if (ran == 0 && from == 0)
		printf("FAILED: no round matches %s\n", only);
	return (ran == 0 && from == 0) || failed != 0 ? -1 : 0;
}

/*
 * The cache rounds: a pool with DPDK's mempool cache, a secondary on
 * lcore 1 dies inside a put that flushes the cache (a point of its
 * ladder, the flush's cut included). The cache lives in the pool's
 * shared memory and stays as the dead left it, for the next process on
 * lcore id 1: no object may be both in it and in the pool. The primary
 * takes the pool back and checks it against that cache, a clean
 * secondary on lcore 1 then works (from that cache) and owns the slot
 * (but where the primary owns it), and the pool and cache are checked
 * again. What the death lost must be counted in RTE_SHEAF_STAT_LOST by
 * then (the primary's flush inherits the dead one's slot), and not again
 * after the clean secondary. Variants: the slot owned by the live
 * primary, so that the flush takes the shared path; a pool in validate
 * mode, whose flush checks each run as it moves.
 */
/* Cache rounds: lcore 1's slot owned by the primary (the secondary's
 * calls take the shared path); a pool in validate mode. */
#define KC_SHARED 1u
#define KC_VALIDATE 2u

/* Objects one flush of DPDK's cache moves (a put of one object past the
 * threshold of a cache of KILL_CACHE: 1.5 times its size). */
#define KILL_FLUSH (KILL_CACHE * 3 / 2)

/* A flush in validate mode holding a pointer it refuses (cachebad). */
#define KC_BAD 4u

/*
 * What a death at a round's point loses, besides its put's own object
 * (in flight): RTE_SHEAF_STAT_LOST after the round, and the objects
 * missing from the pool and lcore 1's cache together.
 */
enum kc_loss {
	KL_NONE,     /* none lost, none counted */
	KL_COUNTED,  /* some lost (at most the bound), each counted */
	KL_OVER,     /* none lost, some counted (at most the bound) */
	KL_UNCOUNTED /* at most the bound lost, none counted */
};

static const struct {
	const char *point;
	unsigned int after;
	enum kc_loss loss;
	unsigned int bound;
	unsigned int how;   /* KC_* */
} cache_rounds[] = {
	/* Inside the flush, a swap and a trade after chunks went in. */
	{ "swap", 1, KL_NONE, 0, 0 },
	{ "trade_put.lock", 1, KL_NONE, 0, 0 },
	{ "trade_put.commit", 1, KL_NONE, 0, 0 },
	{ "trade_put.unlock", 2, KL_NONE, 0, 0 },
	{ "trade_put.store", 2, KL_NONE, 0, 0 },
	/* The flush's own steps: the run cut and not counted in main is
	 * lost, counted by the heir; a death between the record and the
	 * cut counts a run the cache still holds. */
	{ "push_table.copied", 2, KL_NONE, 0, 0 },
	{ "push_table.noted", 2, KL_OVER, CAP, 0 },
	{ "push_table.cut", 2, KL_COUNTED, CAP, 0 },
	/* The slot another live process's: the flush goes to the slabs a
	 * run at a time, each cut off the cache inside its transaction
	 * after a loss entry (a run rolled back is lost, counted). */
	{ "shared_give.lock", 1, KL_NONE, 0, KC_SHARED },
	{ "shared_give.store", 2, KL_COUNTED, KILL_FLUSH, KC_SHARED },
	{ "shared_give.commit", 1, KL_COUNTED, KILL_FLUSH, KC_SHARED },
	{ "shared_give.unlock", 1, KL_NONE, 0, KC_SHARED },
	/* Validate mode: the flush moves as the cache, each run checked
	 * once cut, before it lands; a death in between counts it lost
	 * (its refused pointers too, until the record is lowered to the
	 * objects accepted: then exactly). */
	{ "push_table.cut", 2, KL_COUNTED, CAP, KC_VALIDATE },
	{ "push_table.checked", 2, KL_COUNTED, CAP, KC_VALIDATE },
	{ "trade_put.store", 2, KL_NONE, 0, KC_VALIDATE },
	{ "push_table.checked", 1, KL_COUNTED, CAP, KC_VALIDATE | KC_BAD },
	{ "push_table.checked", 3, KL_COUNTED, CAP, KC_VALIDATE | KC_BAD },
	{ "shared_give.store", 2, KL_COUNTED, KILL_FLUSH,
		KC_VALIDATE | KC_SHARED },
	{ "shared_give.unlock", 1, KL_NONE, 0, KC_VALIDATE | KC_SHARED },
};

static const char * const kc_loss_name[] = {
	"none", "counted", "over-counted", "uncounted"
};

/*
 * The primary's thread that owns lcore 1's slot for the primary: it
 * takes lcore id 1 by hand (rte_thread_register() refuses while
 * multi-process is in use; the primary runs on lcore 0 alone).
 */
static void *
own_slot1_thread(void *arg)
{
	int *ret = arg;
	void *o;

	RTE_PER_LCORE(_lcore_id) = 1;
	/* No DPDK cache: the pool's own call, which claims slot 1. */
	if (rte_mempool_generic_get(pool, &o, 1, NULL) != 0) {
		printf("FAILED: get on lcore 1 of the primary\n");
		*ret = -1;
		return NULL;
	}
	rte_mempool_generic_put(pool, &o, 1, NULL);
	/*
	 * Idle from now on: without membarrier() (the secondaries inherit
	 * a seccomp filter that refuses it) no lcore takes its objects,
	 * and the primary's take of the whole pool would miss them.
	 */
	if (!sheaf_test_membarrier())
		rte_sheaf_flush_lcore(pool);
	*ret = 0;
	return NULL;
}

/* Make lcore id 1's slot of the pool the primary's (alive meanwhile). */
static int
own_slot1(void)
{
	pthread_t th;
	int ret = -1;

	if (pthread_create(&th, NULL, own_slot1_thread, &ret) != 0) {
		printf("FAILED: pthread_create\n");
		return -1;
	}
	pthread_join(th, NULL);
	return ret;
}

/* Steps before a secondary that did not die is a coverage failure. */
#define CACHE_STEPS 4000

/*
 * The primary's take of the pool, checked against lcore 1's cache;
 * *total: what the pool and that cache hold together.
 */
static int
cache_check(struct take *t, unsigned int *total)
{
	const struct rte_mempool_cache *c = &pool->local_cache[1];
	static uint8_t in_cache[POOL_N];
	unsigned int i, real = 0;
	int idx;

	/* Every slot emptied, a dead owner's inherited (and its loss
	 * counted) even with nothing in its sheaves. */
	rte_sheaf_flush(pool);
	if (take_all(t) < 0)
		return -1;
	memset(in_cache, 0, sizeof(in_cache));
	for (i = 0; i < c->len; i++) {
		if (c->objs[i] == &ctl->bogus)
			continue;
		idx = obj_index(c->objs[i]);
		if (idx < 0 || in_cache[idx] || t->seen[idx] ||
				ctl->held[idx] != 0) {
			printf("FAILED: lcore 1's DPDK cache entry %u (%p): %s\n",
				i, c->objs[i], idx < 0 ? "not an object of the pool" :
				in_cache[idx] ? "twice in the cache" :
				t->seen[idx] ? "also got from the pool: handed out twice" :
				"held by the dead secondary");
			return -1;
		}
		in_cache[idx] = 1;
		real++;
	}
	*total = t->got + real;
	put_all(t->objs, t->got);
	return 0;
}

static int
cache_round(unsigned int i)
{
	struct child c = {
		"-l1", cache_rounds[i].how & KC_BAD ? "cachebad" : "cachework",
		0, 0, CACHE_STEPS, cache_rounds[i].point, cache_rounds[i].after
	};
	unsigned int max, min, first, again, bound = cache_rounds[i].bound;
	const char *point = cache_rounds[i].point;
	enum kc_loss loss = cache_rounds[i].loss;
	static struct take t;
	uint64_t lost;
	struct dead d;
	/* Inside a flush: the put's own object is not in the cache yet. */
	bool in_flush = strncmp(point, "push_table.", 11) == 0 ||
		strncmp(point, "shared_give.", 12) == 0 ||
		strncmp(point, "trade_put.", 10) == 0;

	c.seed = i + 1;
	if (truncate(child_log, 0) != 0 && errno != ENOENT)
		printf("info: cannot truncate %s\n", child_log);
	pool_flags = cache_rounds[i].how & KC_VALIDATE ?
		RTE_SHEAF_F_VALIDATE : 0;
	if (pool_make(1000 + i) < 0)
		return -1;
	if ((cache_rounds[i].how & KC_SHARED) && own_slot1() < 0)
		goto fail;
	if (child_run_killed(&c) < 0)
		goto fail;
	dead_sum(1, &d);
	if (cache_check(&t, &first) < 0)
		goto fail;
	/*
	 * Every object is in the pool, in lcore 1's cache, held by the
	 * dead, in its put's hands, or lost; what is lost is counted as
	 * the round says: exactly (KL_COUNTED: the lost and the count
	 * agree, but for the put's own object), or a count with nothing
	 * lost (KL_OVER), or a loss the count misses (KL_UNCOUNTED).
	 */
	lost = stat_of(RTE_SHEAF_STAT_LOST);
	max = POOL_N - d.held;
	if (loss == KL_COUNTED)
		max -= RTE_MIN(max, (unsigned int)lost);
	min = max - RTE_MIN(max, d.inflight +
		(loss == KL_UNCOUNTED ? bound : 0));
	if (in_flush && loss != KL_UNCOUNTED)
		max = min;
	if (first < min || first > max) {
		printf("FAILED: objects in the pool and lcore 1's cache: got %u, expected %u to %u (the dead held %u, had %u in flight, %" PRIu64 " counted lost)\n",
			first, min, max, d.held, d.inflight, lost);
		goto fail;
	}
	if ((loss == KL_NONE || loss == KL_UNCOUNTED) ? lost != 0 :
			lost == 0 || lost > bound) {
		printf("FAILED: stat lost %" PRIu64 ", expected %s (at most %u)\n",
			lost, loss == KL_NONE || loss == KL_UNCOUNTED ? "0" :
			"some", bound);
		goto fail;
	}
	/* The cache workload: a signal handler's get or put would re-enter
	 * DPDK's cache code, which is not async-signal-safe. */
	if (round_clean(cache_rounds[i].how & KC_SHARED ? "cachework" :
			"cacheclean", 0) < 0 || cache_check(&t, &again) < 0)
		goto fail;
	if (again != first) {
		printf("FAILED: objects after the clean secondary: got %u, expected %u\n",
			again, first);
		goto fail;
	}
	if (stat_of(RTE_SHEAF_STAT_LOST) != lost) {
		printf("FAILED: stat lost after the clean secondary: got %" PRIu64 ", expected %" PRIu64 "\n",
			stat_of(RTE_SHEAF_STAT_LOST), lost);
		goto fail;
	}
	printf("cache round %u %s@%u ok: step %" PRIu64 ", %u of %u (held %u, in flight %u), lost %" PRIu64 " (%s), recover %" PRIu64 ", takeover %" PRIu64 "\n",
		i, c.kill_at, c.after, ctl->rec[0].steps, first, POOL_N,
		d.held, d.inflight, lost, kc_loss_name[loss],
		stat_of(RTE_SHEAF_STAT_RECOVER),
		stat_of(RTE_SHEAF_STAT_TAKEOVER));
	return round_end(0);
fail:
	return round_end(-1);
}

/* cache LOG [POINT]: the cache rounds, or those at POINT. */
static int
cache_main(char **args, int nargs)
{
	unsigned int i, ran = 0, failed = 0;

	child_log = args[0];
	pool_cache = KILL_CACHE;
	for (i = 0; i < RTE_DIM(cache_rounds); i++) {
		if (nargs > 1 && strcmp(args[1], cache_rounds[i].point) != 0)
			continue;
		ran++;
		printf("cache round %u %s@%u\n", i, cache_rounds[i].point,
			cache_rounds[i].after);
		if (cache_round(i) < 0) {
			failed++;
			printf("FAILED: cache round %u %s@%u\n", i,
				cache_rounds[i].point, cache_rounds[i].after);
		}
	}
	printf("cache: %u rounds, %u failed\n", ran, failed);
	return ran == 0 || failed != 0 ? -1 : 0;
}

#endif /* KILL_APP_POINTS */

/* --- the kill storm --- */

/*
 * Deaths per pool. A dead borrower takes its arena sheaf with it: a
 * fresh pool now and then keeps the barn's sheaves in play.
 */
#define STORM_PER_POOL 25
/* The kill comes up to this long after the secondary is ready: ms. */
#define STORM_DELAY_MS 200
/* A secondary's EAL start on a loaded machine: seconds. */
#define STORM_READY_S 60

struct storm {
	uint64_t rng;
	uint64_t seed;
	unsigned int base;   /* objects in the pool (the rest died) */
	uint64_t lost_seen;  /* of this pool's, counted by earlier checks */
	unsigned int deaths;
	unsigned int pools;
	uint64_t recover;    /* of the pools done */
	uint64_t takeover;
};

/* 1 once pid's workload runs, 0 when it could not attach, -1 failed. */
static int
storm_ready(pid_t pid)
{
	uint64_t end = now_ns() + STORM_READY_S * UINT64_C(1000000000);
	int st;

	while (!__atomic_load_n(&ctl->rec[0].ready, __ATOMIC_ACQUIRE)) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			if (child_no_attach(st))
				return 0;
			printf("FAILED: the secondary %s before its workload\n",
				child_status(st));
			return -1;
		}
		if (now_ns() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			printf("FAILED: the secondary did not start its workload in %u s (EAL start or attach stuck: a lock in DPDK's shared memory left held by a dead process?)\n",
				STORM_READY_S);
			return -1;
		}
		usleep(1000);
	}
	return 1;
}

static pid_t
storm_start(const struct child *c)
{
	unsigned int tries;
	pid_t pid;
	int r;

	for (tries = 0; tries < 3; tries++) {
		memset(&ctl->rec[0], 0, sizeof(ctl->rec[0]));
		pid = child_spawn(c);
		if (pid < 0)
			return -1;
		r = storm_ready(pid);
		if (r != 0)
			return r > 0 ? pid : -1;
	}
	printf("FAILED: no secondary could attach, 3 tries\n");
	return -1;
}

/* The dead one's held objects, known, go back with the rest. */
static void
storm_give_back(struct take *t)
{
	static void *objs[POOL_N];
	unsigned int i, n = 0;

	for (i = 0; i < POOL_N; i++)
		if (ctl->held[i] != 0) {
			ctl->held[i] = 0;
			objs[n++] = sorted[i];
		}
	put_all(t->objs, t->got);
	put_all(objs, n);
}

static int
storm_one(struct storm *s, unsigned int i)
{
	struct child c = { "-l1", "work", 0, s->seed + i, 0, NULL, 0 };
	static struct take t;
	unsigned int delay;
	struct dead d;
	pid_t pid;
	int st;

	pid = storm_start(&c);
	if (pid < 0)
		return -1;
	delay = rnd(&s->rng) % (STORM_DELAY_MS * 1000 + 1);
	usleep(delay);
	kill(pid, SIGKILL);
	st = child_wait(pid, CHILD_LIMIT_S);
	if (!child_killed(st)) {
		printf("FAILED: the secondary %s before the kill\n",
			child_status(st));
		return -1;
	}
	s->deaths++;
	dead_sum(1, &d);
	if (take_all(&t) < 0 ||
			check_count(&t, s->base, &d, &s->lost_seen, POOL_N) < 0)
		return -1;
	printf("death %3u: %5.1f ms in, back %4u of %4u (held %u, borrowed %u, in flight %u), last calls:%s\n",
		i, delay / 1e3, t.got, s->base, d.held, d.borrowed,
		d.inflight, d.calls);
	s->base = t.got + d.held;
	storm_give_back(&t);
	return 0;
}

static void
storm_pool_done(struct storm *s)
{
	if (pool == NULL)
		return;
	s->recover += stat_of(RTE_SHEAF_STAT_RECOVER);
	s->takeover += stat_of(RTE_SHEAF_STAT_TAKEOVER);
	pool_done();
}

/* storm LOG N SEED */
static int
storm_main(char **args)
{
	unsigned int n = atoi(args[1]), i;
	struct storm s = { .seed = strtoull(args[2], NULL, 0) };
	uint64_t t0 = now_ns();
	int ret = 0;

	child_log = args[0];
	s.rng = s.seed | 1;
	watch.worst = 0;
	for (i = 0; i < n && ret == 0; i++) {
		if (i % STORM_PER_POOL == 0) {
			storm_pool_done(&s);
			if (pool_make(s.pools++) < 0)
				return -1;
			s.base = POOL_N;
			s.lost_seen = 0;
		}
		if (truncate(child_log, 0) != 0 && errno != ENOENT)
			printf("info: cannot truncate %s\n", child_log);
		ret = storm_one(&s, i);
	}
	if (ret != 0) {
		printf("FAILED: death %u (seed %" PRIu64 ")\n", i - 1, s.seed);
		fail_dump();
	}
	storm_pool_done(&s);
	printf("storm: %u deaths on %u pools, %" PRIu64 " transactions recovered, %" PRIu64 " slots taken over, worst call %.1f ms (%s), %.1f s\n",
		s.deaths, s.pools, s.recover, s.takeover, watch.worst / 1e6,
		watch.worst_what, (now_ns() - t0) / 1e9);
	return ret;
}

/* --- main --- */

static int
usage(void)
{
	printf("usage: sheaf_kill_app EAL-ARGS -- matrix LOG [ROUND] [from=N] | cache LOG [POINT] | storm LOG N SEED | work|clean|cachework|cachebad|cacheclean REC SEED STEPS\n");
	return -1;
}

static int
primary_main(int argc, char **argv)
{
	const struct rte_memzone *mz;
	ssize_t len;

#ifndef KILL_APP_POINTS
	if (strcmp(argv[0], "matrix") == 0 || strcmp(argv[0], "cache") == 0) {
		printf("SKIP: no kill points in this build (kill_points=false)\n");
		return 77;
	}
#endif
	len = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	mz = rte_memzone_reserve(CTL_NAME, sizeof(*ctl), SOCKET_ID_ANY, 0);
	if (len <= 0 || mz == NULL) {
		printf("FAILED: set-up: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	self_exe[len] = '\0';
	ctl = mz->addr;
	memset(ctl, 0, sizeof(*ctl));
	if (qsbr_make() < 0)
		return -1;
#ifdef KILL_APP_POINTS
	if (strcmp(argv[0], "matrix") == 0 && argc >= 2)
		return matrix_main(argv + 1, argc - 1);
	if (strcmp(argv[0], "cache") == 0 && argc >= 2)
		return cache_main(argv + 1, argc - 1);
#endif
	if (strcmp(argv[0], "storm") == 0 && argc >= 4)
		return storm_main(argv + 1);
	return usage();
}

int
main(int argc, char **argv)
{
	bool clean;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	eal_args_save(argc, argv);
	/* The watchdog from the start: EAL's start-up is watched too. */
	if (watch_start() < 0)
		return 1;
	watch_begin_limit(0, "EAL start-up", WATCH_START_LIMIT_NS);
	ret = rte_eal_init(argc, argv);
	watch_step_end(0);
	if (ret < 0) {
		printf("SKIP: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 77;
	}
	argc -= ret;
	argv += ret;
	if (argc < 2) {
		ret = usage();
	} else if (strcmp(argv[1], "work") == 0 ||
			strcmp(argv[1], "clean") == 0 ||
			strcmp(argv[1], "cachework") == 0 ||
			strcmp(argv[1], "cachebad") == 0 ||
			strcmp(argv[1], "cacheclean") == 0) {
		clean = strstr(argv[1], "clean") != NULL;
		ret = argc < 5 ? usage() : secondary_main(argv + 2, clean,
			strncmp(argv[1], "cache", 5) == 0,
			strcmp(argv[1], "cachebad") == 0);
	} else {
		ret = primary_main(argc - 1, argv + 1);
	}
	/* Frees memory: the heap lock again (pool_done()). */
	watch_begin(0, "EAL cleanup");
	rte_eal_cleanup();
	return ret == 77 ? 77 : ret == 0 ? 0 : 1;
}
