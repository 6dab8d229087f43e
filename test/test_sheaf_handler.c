/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * A signal handler's view, made exact: the test thread takes a barn or
 * depot lock itself (the library's internals are linked in) and calls
 * the pool while it holds it, as a handler does when it interrupts its
 * thread inside a transaction whose call left the thread's slot free (the
 * shared path, a deferred barrier, a flush). The pool sees such a call as
 * re-entered: it must neither wait on that lock nor loop on it, keep
 * every object, and use nothing that is not async-signal-safe. A hang
 * fails the run: alarm() ends it.
 */

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "sheaf_test.h"

#include "sheaf_pvt.h"
#include "sheaf_barn.h"
#include "sheaf_pair.h"
#include "sheaf_proc.h"
#include "sheaf_shared.h"
#include "sheaf_slab.h"
#include "sheaf_slot.h"
#include "sheaf_tx.h"

#define POOL_N 4096
#define POOL_ELT 64
#define CAPACITY 32
#define HANG_S 5

static struct rte_mempool *pool;
static struct sheaf_test_objs table;
static void *objs[POOL_N];
static unsigned int nb_objs;
static struct rte_rcu_qsbr *qv; /* a case's QSBR variable, freed after the pool */

static void
on_hang(int sig __rte_unused)
{
	static const char m[] =
		"    FAILED: a call made while the thread holds a lock did not return\n";

	if (write(STDOUT_FILENO, m, sizeof(m) - 1) < 0)
		_exit(2);
	_exit(1);
}

static int
setup(void)
{
	static const struct rte_sheaf_config cfg = {
		.capacity = CAPACITY, .barn_max_full = 1, .barn_max_empty = 4,
	};

	pool = rte_sheaf_pool_create("handler", POOL_N, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool, "create: got NULL (%s)",
		rte_strerror(rte_errno));
	SHEAF_TEST_CHECK(sheaf_test_objs_build(pool, &table));
	signal(SIGALRM, on_hang);
	nb_objs = 0;
	return TEST_SUCCESS;
}

static void
teardown(void)
{
	alarm(0);
	if (nb_objs != 0)
		rte_mempool_put_bulk(pool, objs, nb_objs);
	nb_objs = 0;
	sheaf_test_objs_free(&table);
	rte_mempool_free(pool);
	pool = NULL;
	rte_free(qv);
	qv = NULL;
}

static struct sheaf_slot *
my_slot(void)
{
	return &sheaf_pool_of(pool)->slot[rte_lcore_id()];
}

/* Everything back, then the pool whole, nothing counted lost. */
static int
check_whole(void)
{
	struct rte_sheaf_stats st;

	rte_mempool_put_bulk(pool, objs, nb_objs);
	nb_objs = 0;
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_stats_get(pool, &st), "stats");
	SHEAF_TEST_ASSERT_INT(st.count[RTE_SHEAF_STAT_LOST], 0, "lost");
	SHEAF_TEST_ASSERT_INT(st.count[RTE_SHEAF_STAT_FREE_INVALID], 0,
		"invalid frees");
	return TEST_SUCCESS;
}

/*
 * The lcore's main sheaf full, its spare not empty, the home barn at its
 * full limit: a put must spill main, and every rung past the swap needs
 * a lock (the barn's full limit, then the depot).
 */
static int
fill_slot(void)
{
	struct sheaf_slot *lc = my_slot();
	unsigned int room;
	uint64_t w;

	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(pool, objs, 200),
		"get 200");
	nb_objs = 200;
	for (int i = 0; i < 4; i++) {
		nb_objs -= CAPACITY;
		rte_mempool_put_bulk(pool, objs + nb_objs, CAPACITY);
	}
	w = __atomic_load_n(&lc->state, __ATOMIC_RELAXED);
	room = CAPACITY - sheaf_st_size(w, SHEAF_MAIN);
	nb_objs -= room;
	rte_mempool_put_bulk(pool, objs + nb_objs, room);
	w = __atomic_load_n(&lc->state, __ATOMIC_RELAXED);
	SHEAF_TEST_ASSERT_INT(sheaf_st_size(w, SHEAF_MAIN), CAPACITY,
		"main size");
	RTE_TEST_ASSERT(sheaf_st_size(w, SHEAF_SPARE) != 0, "spare empty");
	RTE_TEST_ASSERT(sheaf_pool_of(pool)->barn[0].nb_full >= 1,
		"barn below its full limit");
	return TEST_SUCCESS;
}

/* A put that must spill main while the thread holds depot or barn 0. */
static int
put_spill_holding(bool depot)
{
	struct sheaf_pool *sp = sheaf_pool_of(pool);
	struct sheaf_tx tx;

	SHEAF_TEST_CHECK(fill_slot());
	RTE_TEST_ASSERT_SUCCESS(depot ?
		sheaf_depot_begin(&tx, sp, 0, SHEAF_TX_shared_give, false) :
		sheaf_barn_begin(&tx, sp, 0, SHEAF_TX_shared_give, false),
		"begin");
	alarm(HANG_S);
	nb_objs -= 8;
	rte_mempool_put_bulk(pool, objs + nb_objs, 8);
	alarm(0);
	sheaf_tx_end(&tx);
	return check_whole();
}

static int
test_put_spill_holding_depot(void)
{
	return put_spill_holding(true);
}

static int
test_put_spill_holding_barn(void)
{
	return put_spill_holding(false);
}

/*
 * A handler that finds its slot busy (the call it interrupted is inside
 * it): its get and its put take the shared path, each counted once in
 * reentrant, and leave the slot's sheaves as they were.
 */
static int
test_busy_slot_counts_reentrant(void)
{
	struct sheaf_slot *lc = my_slot();
	struct rte_sheaf_stats st;
	uint64_t before, w, b;
	void *o[4];

	/* The slot ours, with objects. */
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(pool, objs, 8), "get 8");
	rte_mempool_put_bulk(pool, objs, 8);
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_stats_get(pool, &st), "stats");
	before = st.count[RTE_SHEAF_STAT_REENTRANT];
	w = __atomic_load_n(&lc->state, __ATOMIC_RELAXED);
	/* Inside a call, as the interrupted one: its fast counts kept. */
	b = __atomic_load_n(&lc->busy, __ATOMIC_RELAXED);
	__atomic_store_n(&lc->busy, b | SHEAF_BUSY_CALL, __ATOMIC_RELAXED);
	alarm(HANG_S);
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(pool, o, 4),
		"get with the slot busy");
	rte_mempool_put_bulk(pool, o, 4);
	alarm(0);
	SHEAF_TEST_ASSERT_INT(__atomic_load_n(&lc->busy, __ATOMIC_RELAXED),
		b | SHEAF_BUSY_CALL, "the busy slot's busy word");
	__atomic_store_n(&lc->busy, b, __ATOMIC_RELAXED);
	SHEAF_TEST_ASSERT_INT(__atomic_load_n(&lc->state, __ATOMIC_RELAXED),
		w, "the busy slot's state word");
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_stats_get(pool, &st), "stats");
	SHEAF_TEST_ASSERT_INT(st.count[RTE_SHEAF_STAT_REENTRANT] - before, 2,
		"reentrant: calls that found the slot busy");
	return check_whole();
}

/*
 * A get beyond main and spare while the thread holds depot 0: served by
 * the barn (the shared path skips the depot), each object once.
 */
static int
test_get_beyond_pair_holding_depot(void)
{
	struct sheaf_slot *lc = my_slot();
	unsigned int n;
	struct sheaf_tx tx;
	uint64_t w;
	int ret;

	SHEAF_TEST_CHECK(fill_slot());
	w = __atomic_load_n(&lc->state, __ATOMIC_RELAXED);
	n = sheaf_st_size(w, SHEAF_MAIN) + sheaf_st_size(w, SHEAF_SPARE) + 4;
	RTE_TEST_ASSERT_SUCCESS(sheaf_depot_begin(&tx, sheaf_pool_of(pool),
		0, SHEAF_TX_shared_give, false), "depot begin");
	alarm(HANG_S);
	ret = rte_mempool_get_bulk(pool, objs + nb_objs, n);
	alarm(0);
	sheaf_tx_end(&tx);
	SHEAF_TEST_ASSERT_INT(ret, 0, "get beyond the pair");
	nb_objs += n;
	SHEAF_TEST_CHECK(sheaf_test_objs_check(&table, objs, nb_objs));
	return check_whole();
}

/*
 * A get larger than the undo kept on the stack, while the thread holds a
 * lock: refused (no malloc in a handler), the table as it was.
 */
static int
test_get_large_holding_depot(void)
{
	static void *big[SHEAF_UNDO_STACK + 1];
	struct sheaf_tx tx;
	unsigned int i;
	int ret;

	for (i = 0; i < RTE_DIM(big); i++)
		big[i] = (void *)(uintptr_t)(i + 1);
	RTE_TEST_ASSERT_SUCCESS(sheaf_depot_begin(&tx, sheaf_pool_of(pool),
		0, SHEAF_TX_shared_give, false), "depot begin");
	alarm(HANG_S);
	ret = rte_mempool_get_bulk(pool, big, RTE_DIM(big));
	alarm(0);
	sheaf_tx_end(&tx);
	if (ret == 0) {
		rte_mempool_put_bulk(pool, big, RTE_DIM(big));
		RTE_TEST_ASSERT(false, "a get of %u served from a handler",
			(unsigned int)RTE_DIM(big));
	}
	for (i = 0; i < RTE_DIM(big); i++)
		RTE_TEST_ASSERT(big[i] == (void *)(uintptr_t)(i + 1),
			"table entry %u changed", i);
	return check_whole();
}

/*
 * A put of depot 0's objects while the thread holds depot 0, more than
 * the barn's empty sheaves take (4 x CAPACITY): parked in a record of the
 * pool, freed by the thread's next call once the lock is let go; none
 * lost, the record free again.
 */
#define PARK_N (4 * CAPACITY + 16)

/* No park record of mp held by anyone, none holding objects. */
static int
check_records_free(const struct rte_mempool *mp)
{
	const struct sheaf_pool *sp = sheaf_pool_of(mp);
	unsigned int i;

	for (i = 0; i < SHEAF_PARK_RECS; i++) {
		SHEAF_TEST_ASSERT_INT(sp->park[i].owner, 0, "record owner");
		SHEAF_TEST_ASSERT_INT(sp->park[i].n, 0, "record objects");
	}
	return TEST_SUCCESS;
}

static int
test_park_holding_depot(void)
{
	struct sheaf_pool *sp = sheaf_pool_of(pool);
	struct sheaf_tx tx;

	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(pool, objs, 512),
		"get 512");
	nb_objs = 512;
	RTE_TEST_ASSERT_SUCCESS(sheaf_depot_begin(&tx, sp, 0,
		SHEAF_TX_shared_give, false), "depot begin");
	alarm(HANG_S);
	sheaf_call_enter();
	nb_objs -= PARK_N;
	sheaf_shared_put(sp, objs + nb_objs, PARK_N, NULL);
	sheaf_call_leave(sp);
	alarm(0);
	sheaf_tx_end(&tx);
	/* The outer call's end: what was parked goes to the slabs. */
	RTE_TEST_ASSERT(rte_sheaf_flush_lcore(pool) >= 0, "flush lcore");
	SHEAF_TEST_CHECK(check_records_free(pool));
	return check_whole();
}

/*
 * One handler parks objects of two pools, the thread holding depot 0 of
 * both: each pool's are parked, none lost (a park on the thread that
 * held one pool's objects refused the other's).
 */
static int
test_park_two_pools(void)
{
	static const struct rte_sheaf_config cfg = {
		.capacity = CAPACITY, .barn_max_full = 1, .barn_max_empty = 4,
	};
	struct sheaf_pool *sp = sheaf_pool_of(pool), *sp2;
	static void *objs2[512];
	struct rte_sheaf_stats st;
	struct rte_mempool *pool2;
	struct sheaf_tx tx, tx2;
	unsigned int n2 = 512;
	int ret = TEST_FAILED;

	pool2 = rte_sheaf_pool_create("handler2", POOL_N, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(pool2, "create: got NULL (%s)",
		rte_strerror(rte_errno));
	sp2 = sheaf_pool_of(pool2);
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(pool, objs, 512),
		"get 512");
	nb_objs = 512;
	if (rte_mempool_get_bulk(pool2, objs2, n2) != 0) {
		printf("    FAILED: get 512 from the second pool\n");
		goto out;
	}
	RTE_TEST_ASSERT_SUCCESS(sheaf_depot_begin(&tx, sp, 0,
		SHEAF_TX_shared_give, false), "depot begin");
	RTE_TEST_ASSERT_SUCCESS(sheaf_depot_begin(&tx2, sp2, 0,
		SHEAF_TX_shared_give, false), "second depot begin");
	alarm(HANG_S);
	sheaf_call_enter();
	nb_objs -= PARK_N;
	sheaf_shared_put(sp, objs + nb_objs, PARK_N, NULL);
	n2 -= PARK_N;
	sheaf_shared_put(sp2, objs2 + n2, PARK_N, NULL);
	sheaf_call_leave(sp);
	alarm(0);
	sheaf_tx_end(&tx2);
	sheaf_tx_end(&tx);
	RTE_TEST_ASSERT(rte_sheaf_flush_lcore(pool) >= 0, "flush lcore");
	RTE_TEST_ASSERT(rte_sheaf_flush_lcore(pool2) >= 0, "flush lcore 2");
	rte_mempool_put_bulk(pool2, objs2, n2);
	n2 = 0;
	if (check_records_free(pool2) != TEST_SUCCESS ||
			rte_sheaf_stats_get(pool2, &st) != 0)
		goto out;
	if (st.count[RTE_SHEAF_STAT_LOST] != 0) {
		printf("    FAILED: second pool: %" PRIu64 " objects lost\n",
			st.count[RTE_SHEAF_STAT_LOST]);
		goto out;
	}
	if (sheaf_test_check_placement(pool2, 0) != TEST_SUCCESS ||
			check_records_free(pool) != TEST_SUCCESS)
		goto out;
	ret = check_whole();
out:
	if (n2 != 0)
		rte_mempool_put_bulk(pool2, objs2, n2);
	rte_mempool_free(pool2);
	return ret;
}

/*
 * The pool set up for deferred frees (a QSBR variable attached, no
 * reader), and one object got for the case to free (in objs, to put
 * back unless freed).
 */
static int
deferred_ready(void **obj)
{
	qv = rte_zmalloc("handler_qsbr", rte_rcu_qsbr_get_memsize(1),
		RTE_CACHE_LINE_SIZE);
	RTE_TEST_ASSERT_NOT_NULL(qv, "qsbr memory");
	RTE_TEST_ASSERT_SUCCESS(rte_rcu_qsbr_init(qv, 1), "qsbr init");
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_rcu_attach(pool, qv), "attach");
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get(pool, obj), "get");
	objs[nb_objs++] = *obj;
	return TEST_SUCCESS;
}

struct deferred_in_handler {
	void *obj;
	int ret;
};

/*
 * A thread without a slot (not an EAL thread), inside a pool call that
 * holds no lock, as a signal handler's deferred free finds it: the
 * call's depth counted by hand, then the free.
 */
static void *
deferred_in_handler_thread(void *arg)
{
	struct deferred_in_handler *d = arg;

	sheaf_call_enter();
	d->ret = rte_sheaf_free_deferred(pool, d->obj);
	sheaf_call_leave(sheaf_pool_of(pool));
	return NULL;
}

/*
 * A signal handler's deferred free while another thread holds the barn
 * lock it needs: it fails with -EAGAIN, nothing freed, and does not
 * wait (a handler must not wait on a lock: a dead holder's take-over
 * would log from it). Until 2026-12-05 a handler whose thread held no
 * lock waited for the barn's.
 */
static int
test_deferred_handler_barn_busy(void)
{
	struct sheaf_pool *sp = sheaf_pool_of(pool);
	struct deferred_in_handler d = { .ret = 1 };
	struct rte_sheaf_info info;
	struct sheaf_tx tx;
	pthread_t th;

	SHEAF_TEST_CHECK(deferred_ready(&d.obj));
	RTE_TEST_ASSERT_SUCCESS(sheaf_barn_begin(&tx, sp, 0,
		SHEAF_TX_shared_give, false), "barn 0's lock");
	alarm(HANG_S);
	if (pthread_create(&th, NULL, deferred_in_handler_thread, &d) != 0) {
		sheaf_tx_end(&tx);
		RTE_TEST_ASSERT(false, "thread");
	}
	pthread_join(th, NULL);
	alarm(0);
	sheaf_tx_end(&tx);
	if (d.ret == 0)
		nb_objs--; /* freed after all: not ours to put */
	SHEAF_TEST_ASSERT_INT(d.ret, -EAGAIN,
		"the handler's deferred free, barn busy");
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_info_get(pool, &info), "info");
	SHEAF_TEST_ASSERT_INT(info.in_deferred, 0,
		"objects deferred after a refused free");
	return check_whole();
}

struct barn_holder {
	int held;    /* the holder has barn 0's lock */
	int release; /* the test is done: let it go */
};

/* Another thread of the process, inside a barn transaction. */
static void *
barn_holder_thread(void *arg)
{
	struct barn_holder *h = arg;
	struct sheaf_tx tx;

	if (sheaf_barn_begin(&tx, sheaf_pool_of(pool), 0,
			SHEAF_TX_shared_give, false) != 0)
		return NULL;
	/* Release: pairs with the test's acquire of held. */
	__atomic_store_n(&h->held, 1, __ATOMIC_RELEASE);
	/* Acquire: pairs with the test's release of release. */
	while (!__atomic_load_n(&h->release, __ATOMIC_ACQUIRE))
		rte_pause();
	sheaf_tx_end(&tx);
	return NULL;
}

/*
 * A signal handler's deferred free that interrupted its lcore inside the
 * inline fast path (a get, a put or a deferred free, which hold no lock
 * and count no depth: the slot's busy word says it), while another
 * thread holds the barn lock the shared path needs: as any handler's, it
 * fails with -EAGAIN and waits for nothing. Until 2026-12-06 its depth
 * of 1 made it a plain call: it waited for the barn's lock (here for
 * ever: the holder waits for the test).
 */
static int
test_deferred_handler_in_fast_path(void)
{
	struct sheaf_slot *lc = my_slot();
	struct barn_holder h = { 0, 0 };
	struct rte_sheaf_info info;
	uint64_t b;
	pthread_t th;
	void *obj;
	int ret;

	/* The slot ours; the object to free. */
	SHEAF_TEST_CHECK(deferred_ready(&obj));
	RTE_TEST_ASSERT(pthread_create(&th, NULL, barn_holder_thread,
		&h) == 0, "thread");
	/* Acquire: pairs with the holder's release of held. */
	while (!__atomic_load_n(&h.held, __ATOMIC_ACQUIRE))
		rte_pause();
	/* Inside the fast path, as the interrupted call. */
	b = __atomic_load_n(&lc->busy, __ATOMIC_RELAXED);
	__atomic_store_n(&lc->busy, b | SHEAF_BUSY_CALL, __ATOMIC_RELAXED);
	alarm(HANG_S);
	ret = rte_sheaf_free_deferred(pool, obj);
	alarm(0);
	__atomic_store_n(&lc->busy, b, __ATOMIC_RELAXED);
	/* Release: pairs with the holder's acquire of release. */
	__atomic_store_n(&h.release, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	if (ret == 0)
		nb_objs--; /* freed after all: not ours to put */
	SHEAF_TEST_ASSERT_INT(ret, -EAGAIN,
		"the handler's deferred free, fast path interrupted, barn busy");
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_info_get(pool, &info), "info");
	SHEAF_TEST_ASSERT_INT(info.in_deferred, 0,
		"objects deferred after a refused free");
	return check_whole();
}

struct takeover_in_handler {
	void *objs[8];
	int ret;
	FILE *log;
	char **buf;
	bool logged_inside;
};

/*
 * As deferred_in_handler_thread(): a thread without a slot, inside a
 * pool call, gets through the shared path; what the library logged
 * before its outer call left is noted.
 */
static void *
takeover_in_handler_thread(void *arg)
{
	struct takeover_in_handler *d = arg;

	sheaf_call_enter();
	d->ret = rte_mempool_get_bulk(pool, d->objs, RTE_DIM(d->objs));
	fflush(d->log);
	d->logged_inside = *d->buf != NULL && strstr(*d->buf, "lock") != NULL;
	sheaf_call_leave(sheaf_pool_of(pool));
	return NULL;
}

/*
 * A signal handler's get finds depot 0's lock held by a dead process:
 * it takes it over (rolls back, goes on) but logs
 * nothing (it may have interrupted a log or malloc() of its thread);
 * its thread's outermost call logs the take-overs when it leaves.
 * Until 2026-12-05 the handler logged from inside the take-over.
 */
static int
test_takeover_in_handler_logs_later(void)
{
	struct sheaf_pool *sp = sheaf_pool_of(pool);
	struct takeover_in_handler d = { .ret = 1 };
	uint64_t dead = sheaf_self + ((uint64_t)1 << 22);
	char *buf = NULL;
	size_t len = 0;
	pthread_t th;
	FILE *log;

	log = open_memstream(&buf, &len);
	RTE_TEST_ASSERT_NOT_NULL(log, "log stream");
	d.log = log;
	d.buf = &buf;
	/* What a death inside an empty transaction leaves (the objects
	 * are all in the slabs: the get needs this lock). */
	__atomic_store_n(&sp->depot[0].lock.owner, dead, __ATOMIC_RELEASE);
	rte_openlog_stream(log);
	alarm(HANG_S);
	if (pthread_create(&th, NULL, takeover_in_handler_thread, &d) != 0) {
		rte_openlog_stream(NULL);
		fclose(log);
		free(buf);
		RTE_TEST_ASSERT(false, "thread");
	}
	pthread_join(th, NULL);
	alarm(0);
	rte_openlog_stream(NULL);
	fclose(log);
	if (d.ret == 0) {
		memcpy(objs + nb_objs, d.objs, sizeof(d.objs));
		nb_objs += RTE_DIM(d.objs);
	}
	printf("    logged: %s", buf != NULL ? buf : "(nothing)\n");
	RTE_TEST_ASSERT(!d.logged_inside,
		"a take-over logged from inside the re-entered call");
	RTE_TEST_ASSERT(buf != NULL &&
		strstr(buf, "locks of dead processes taken over: 1") != NULL,
		"the outermost call did not log the take-over");
	free(buf);
	SHEAF_TEST_ASSERT_INT(d.ret, 0, "the handler's get");
	SHEAF_TEST_ASSERT_INT(__atomic_load_n(&sp->depot[0].lock.owner,
		__ATOMIC_RELAXED), 0, "depot 0's lock left held");
	return check_whole();
}

/*
 * As test_takeover_in_handler_logs_later(), for a handler that
 * interrupted its thread inside the inline fast path (its slot busy, no
 * depth counted): its get takes depot 0's lock over from a dead process
 * and logs nothing; the thread's next call out of line, not a
 * handler's, logs it. Until 2026-12-06 such a handler counted as a
 * plain call: it logged from inside the take-over.
 */
static int
test_takeover_in_fast_path_handler_logs_later(void)
{
	struct sheaf_pool *sp = sheaf_pool_of(pool);
	uint64_t dead = sheaf_self + ((uint64_t)1 << 22), b;
	struct sheaf_slot *lc = my_slot();
	char *buf = NULL;
	size_t len = 0;
	bool inside;
	FILE *log;
	void *o[8];
	int ret;

	/* The slot ours, with objects (the rest in the slabs). */
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get_bulk(pool, objs, 8), "get 8");
	rte_mempool_put_bulk(pool, objs, 8);
	log = open_memstream(&buf, &len);
	RTE_TEST_ASSERT_NOT_NULL(log, "log stream");
	__atomic_store_n(&sp->depot[0].lock.owner, dead, __ATOMIC_RELEASE);
	rte_openlog_stream(log);
	/* Inside the fast path, as the interrupted call. */
	b = __atomic_load_n(&lc->busy, __ATOMIC_RELAXED);
	__atomic_store_n(&lc->busy, b | SHEAF_BUSY_CALL, __ATOMIC_RELAXED);
	alarm(HANG_S);
	ret = rte_mempool_get_bulk(pool, o, RTE_DIM(o));
	alarm(0);
	__atomic_store_n(&lc->busy, b, __ATOMIC_RELAXED);
	fflush(log);
	inside = buf != NULL && strstr(buf, "lock") != NULL;
	/* The thread's next call out of line: a flush of its slot. */
	if (ret == 0)
		rte_mempool_put_bulk(pool, o, RTE_DIM(o));
	rte_sheaf_flush_lcore(pool);
	rte_openlog_stream(NULL);
	fclose(log);
	printf("    logged: %s", buf != NULL ? buf : "(nothing)\n");
	RTE_TEST_ASSERT(!inside,
		"a take-over logged from inside the handler's call");
	RTE_TEST_ASSERT(buf != NULL &&
		strstr(buf, "locks of dead processes taken over: 1") != NULL,
		"the next call did not log the take-over");
	free(buf);
	SHEAF_TEST_ASSERT_INT(ret, 0, "the handler's get");
	SHEAF_TEST_ASSERT_INT(__atomic_load_n(&sp->depot[0].lock.owner,
		__ATOMIC_RELAXED), 0, "depot 0's lock left held");
	return check_whole();
}

/*
 * A signal handler (its thread holding a depot lock) frees a pointer a
 * validated pool refuses, through the ops and as a deferred free: each
 * is refused and counted, and nothing is logged (it may have interrupted
 * a log line of its thread: syslog() and stdio are not re-entrant).
 * Until 2026-12-06 validate mode logged each refusal from the handler.
 */
static int
test_validate_refusal_in_handler_quiet(void)
{
	static const struct rte_sheaf_config cfg = {
		.capacity = CAPACITY, .flags = RTE_SHEAF_F_VALIDATE,
	};
	struct rte_mempool *vp;
	struct rte_sheaf_stats st0, st;
	struct sheaf_pool *vsp;
	struct rte_rcu_qsbr *v;
	int put_ret, def_ret, ret = TEST_FAILED;
	char *buf = NULL;
	size_t len = 0;
	struct sheaf_tx tx;
	void *o, *bad;
	FILE *log;

	vp = rte_sheaf_pool_create("handler_val", 256, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0, &cfg);
	RTE_TEST_ASSERT_NOT_NULL(vp, "create: got NULL (%s)",
		rte_strerror(rte_errno));
	vsp = sheaf_pool_of(vp);
	v = rte_zmalloc("handler_val_qsbr", rte_rcu_qsbr_get_memsize(1),
		RTE_CACHE_LINE_SIZE);
	if (v == NULL || rte_rcu_qsbr_init(v, 1) != 0 ||
			rte_sheaf_rcu_attach(vp, v) != 0 ||
			rte_mempool_get(vp, &o) != 0) {
		printf("    FAILED: validated pool set-up\n");
		goto out;
	}
	bad = RTE_PTR_ADD(o, 1);
	rte_sheaf_stats_get(vp, &st0);
	log = open_memstream(&buf, &len);
	if (log == NULL) {
		rte_mempool_put(vp, o);
		goto out;
	}
	rte_openlog_stream(log);
	/* The handler's view: its thread holds depot 0's lock. */
	if (sheaf_depot_begin(&tx, vsp, 0, SHEAF_TX_shared_give, false) != 0) {
		rte_openlog_stream(NULL);
		fclose(log);
		rte_mempool_put(vp, o);
		goto out;
	}
	alarm(HANG_S);
	put_ret = rte_mempool_ops_enqueue_bulk(vp, &bad, 1);
	def_ret = rte_sheaf_free_deferred(vp, bad);
	alarm(0);
	sheaf_tx_end(&tx);
	rte_openlog_stream(NULL);
	fclose(log);
	rte_sheaf_stats_get(vp, &st);
	rte_mempool_put(vp, o);
	printf("    logged: %s", buf != NULL && len != 0 ? buf : "(nothing)\n");
	if (put_ret != -EINVAL || def_ret != -EINVAL)
		printf("    FAILED: the handler's put %d, deferred free %d, expected -EINVAL\n",
			put_ret, def_ret);
	else if (st.count[RTE_SHEAF_STAT_FREE_INVALID] !=
			st0.count[RTE_SHEAF_STAT_FREE_INVALID] + 2)
		printf("    FAILED: free_invalid %" PRIu64 " -> %" PRIu64 ", expected 2 more\n",
			st0.count[RTE_SHEAF_STAT_FREE_INVALID],
			st.count[RTE_SHEAF_STAT_FREE_INVALID]);
	else if (len != 0)
		printf("    FAILED: a refusal logged from inside the handler's call\n");
	else if (rte_mempool_avail_count(vp) != 256)
		printf("    FAILED: validated pool not whole: %u of 256\n",
			rte_mempool_avail_count(vp));
	else
		ret = TEST_SUCCESS;
	free(buf);
out:
	rte_mempool_free(vp);
	rte_free(v);
	return ret;
}

struct double_free_in_handler {
	void *obj;
	int logged; /* the log grew during the handler's put */
	FILE *log;
	size_t *len;
};

/* A thread without an lcore id: a call of its own, then a handler's. */
static void *
double_free_in_handler_thread(void *arg)
{
	struct double_free_in_handler *d = arg;
	size_t before;

	if (rte_mempool_get(pool, &d->obj) != 0)
		return NULL;
	rte_mempool_put(pool, d->obj);
	fflush(d->log);
	before = *d->len;
	/* Inside a call of the thread, as a handler that interrupted it. */
	sheaf_call_enter();
	rte_mempool_put(pool, d->obj);
	fflush(d->log);
	d->logged = *d->len != before;
	sheaf_call_leave(sheaf_pool_of(pool));
	return NULL;
}

/*
 * A signal handler frees an object twice: the slabs refuse it and the
 * refusal is counted, not logged (it may have interrupted a log line of
 * its thread). Until 2026-12-06 the slabs logged it from the handler.
 */
static int
test_double_free_in_handler_quiet(void)
{
	struct double_free_in_handler d = { .logged = -1 };
	struct rte_sheaf_stats st0, st;
	char *buf = NULL;
	size_t len = 0;
	pthread_t th;

	d.log = open_memstream(&buf, &len);
	RTE_TEST_ASSERT_NOT_NULL(d.log, "log stream");
	d.len = &len;
	rte_sheaf_stats_get(pool, &st0);
	rte_openlog_stream(d.log);
	alarm(HANG_S);
	if (pthread_create(&th, NULL, double_free_in_handler_thread, &d) == 0)
		pthread_join(th, NULL);
	alarm(0);
	rte_openlog_stream(NULL);
	fclose(d.log);
	rte_sheaf_stats_get(pool, &st);
	printf("    logged: %s", buf != NULL && len != 0 ? buf : "(nothing)\n");
	free(buf);
	SHEAF_TEST_ASSERT_INT(d.logged, 0,
		"the handler's double free logged (1) or not run (-1)");
	SHEAF_TEST_ASSERT_INT(st.count[RTE_SHEAF_STAT_FREE_INVALID],
		st0.count[RTE_SHEAF_STAT_FREE_INVALID] + 1, "free_invalid");
	SHEAF_TEST_ASSERT_INT(rte_mempool_avail_count(pool), POOL_N,
		"avail count");
	SHEAF_TEST_CHECK(sheaf_test_check_placement(pool, 0));
	return TEST_SUCCESS;
}

static const struct sheaf_test_case cases[] = {
	SHEAF_TEST_CASE_ST(setup, teardown, test_busy_slot_counts_reentrant),
	SHEAF_TEST_CASE_ST(setup, teardown, test_park_holding_depot),
	SHEAF_TEST_CASE_ST(setup, teardown, test_park_two_pools),
	SHEAF_TEST_CASE_ST(setup, teardown, test_put_spill_holding_depot),
	SHEAF_TEST_CASE_ST(setup, teardown, test_put_spill_holding_barn),
	SHEAF_TEST_CASE_ST(setup, teardown,
		test_get_beyond_pair_holding_depot),
	SHEAF_TEST_CASE_ST(setup, teardown, test_get_large_holding_depot),
	SHEAF_TEST_CASE_ST(setup, teardown, test_deferred_handler_barn_busy),
	SHEAF_TEST_CASE_ST(setup, teardown,
		test_deferred_handler_in_fast_path),
	SHEAF_TEST_CASE_ST(setup, teardown,
		test_takeover_in_handler_logs_later),
	SHEAF_TEST_CASE_ST(setup, teardown,
		test_takeover_in_fast_path_handler_logs_later),
	SHEAF_TEST_CASE_ST(setup, teardown,
		test_validate_refusal_in_handler_quiet),
	SHEAF_TEST_CASE_ST(setup, teardown, test_double_free_in_handler_quiet),
	SHEAF_TEST_CASES_END
};

static const struct sheaf_test_suite suite = {
	.name = "sheaf_handler",
	.min_lcores = 1,
	.cases = cases,
};

int
main(int argc, char **argv)
{
	return sheaf_test_main(argc, argv, &suite);
}
