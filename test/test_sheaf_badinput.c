/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * The bad-input table of doc/reliability.md, one row per public call or
 * ops entry point and wrong argument. Each row checks the return value,
 * rte_errno (where the call sets it), the log lines the call adds (one
 * for an app bug, none for a pool running short), and that no pool's
 * accounting moved: avail count and every rte_sheaf_info placement field.
 */

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>

#include "sheaf_test.h"

#define POOL_N 511
#define POOL_ELT 64
#define CAP 8

static struct rte_mempool *pool;   /* sheaf, validate off, QSBR attached */
static struct rte_mempool *vpool;  /* sheaf, RTE_SHEAF_F_VALIDATE */
static struct rte_mempool *other;  /* sheaf, a second pool */
static struct rte_mempool *ring;   /* ops ring_mp_mc */
static struct rte_mempool *empty;  /* sheaf ops, never populated */
static struct rte_mempool *nodef;  /* sheaf, no QSBR attached */
static struct rte_rcu_qsbr *qv;
static struct rte_sheaf_prefill *pf_pool;  /* borrowed from pool */
static struct rte_sheaf_prefill *pf_other; /* borrowed from other */
static struct rte_sheaf_prefill *pf_gone;  /* borrowed, returned */
static void *obj_pool;   /* held objects */
static void *obj_other;
static void *obj_vpool;

/* Log capture: the lines a call adds at the level in effect. */
static char *log_buf;
static size_t log_len;
static FILE *log_f;
static FILE *log_default;

static unsigned int
log_lines(void)
{
	unsigned int n = 0;
	size_t i;

	fflush(log_f);
	for (i = 0; i < log_len; i++)
		n += log_buf[i] == '\n';
	return n;
}

/* Accounting of one pool, all that rte_sheaf_info places. */
struct acct {
	unsigned int avail;
	struct rte_sheaf_info info;
	uint64_t invalid;
};

static void
acct_read(const struct rte_mempool *mp, struct acct *a)
{
	struct rte_sheaf_stats st;

	memset(a, 0, sizeof(*a));
	a->avail = rte_mempool_avail_count(mp);
	rte_sheaf_info_get(mp, &a->info);
	rte_sheaf_stats_get(mp, &st);
	a->invalid = st.count[RTE_SHEAF_STAT_FREE_INVALID];
}

/* Set *err to rte_errno's value and return -err, for pointer calls. */
#define PTR_RET(call) ((call) == NULL ? -rte_errno : 0)

static struct rte_sheaf_config cfg_cap = { .capacity = RTE_SHEAF_CAPACITY_MAX + 1 };
static struct rte_sheaf_config cfg_capmax = {
	.capacity_max = RTE_SHEAF_CAPACITY_MAX + 1 };
static struct rte_sheaf_config cfg_caprange = { .capacity = 64,
	.capacity_max = 32 };
static struct rte_sheaf_config cfg_full = { .barn_max_full = RTE_SHEAF_BARN_MAX + 1 };
static struct rte_sheaf_config cfg_empty = { .barn_max_empty = RTE_SHEAF_BARN_MAX + 1 };
static struct rte_sheaf_config cfg_flags = { .flags = 0x100 };
static struct rte_sheaf_config cfg_idle = {
	.idle_us = RTE_SHEAF_TIME_US_MAX + 1 };
static struct rte_sheaf_config cfg_mbint = {
	.membarrier_interval_us = RTE_SHEAF_TIME_US_MAX + 1 };
static struct rte_sheaf_config cfg_barrier = {
	.barrier_timeout_ms = RTE_SHEAF_BARRIER_MS_MAX + 1 };

/* Rows. Each returns what the call returned (pointer calls: 0 or -errno). */
#define ROW(name, ...) static int name(void) { __VA_ARGS__ }

ROW(check_null, return rte_sheaf_pool_check(NULL);)
ROW(check_ring, return rte_sheaf_pool_check(ring);)
ROW(check_empty, return rte_sheaf_pool_check(empty);)
ROW(create_name, return PTR_RET(rte_sheaf_pool_create(NULL, 63, 64, 0, 0,
	SOCKET_ID_ANY, 0, NULL));)
ROW(create_zero, return PTR_RET(rte_sheaf_pool_create("bi_z", 0, 64, 0, 0,
	SOCKET_ID_ANY, 0, NULL));)
ROW(create_cap, return PTR_RET(rte_sheaf_pool_create("bi_c", 63, 64, 0, 0,
	SOCKET_ID_ANY, 0, &cfg_cap));)
ROW(create_capmax, return PTR_RET(rte_sheaf_pool_create("bi_cm", 63, 64, 0,
	0, SOCKET_ID_ANY, 0, &cfg_capmax));)
ROW(create_caprange, return PTR_RET(rte_sheaf_pool_create("bi_cr", 63, 64, 0,
	0, SOCKET_ID_ANY, 0, &cfg_caprange));)
ROW(create_full, return PTR_RET(rte_sheaf_pool_create("bi_f", 63, 64, 0, 0,
	SOCKET_ID_ANY, 0, &cfg_full));)
ROW(create_empty, return PTR_RET(rte_sheaf_pool_create("bi_e", 63, 64, 0, 0,
	SOCKET_ID_ANY, 0, &cfg_empty));)
ROW(create_flags, return PTR_RET(rte_sheaf_pool_create("bi_g", 63, 64, 0, 0,
	SOCKET_ID_ANY, 0, &cfg_flags));)
ROW(create_idle, return PTR_RET(rte_sheaf_pool_create("bi_i", 63, 64, 0, 0,
	SOCKET_ID_ANY, 0, &cfg_idle));)
ROW(create_mbint, return PTR_RET(rte_sheaf_pool_create("bi_m", 63, 64, 0, 0,
	SOCKET_ID_ANY, 0, &cfg_mbint));)
ROW(create_barrier, return PTR_RET(rte_sheaf_pool_create("bi_b", 63, 64, 0,
	0, SOCKET_ID_ANY, 0, &cfg_barrier));)
ROW(mbuf_name, return PTR_RET(rte_sheaf_pktmbuf_pool_create(NULL, 63, 0, 0,
	256, SOCKET_ID_ANY, NULL));)
ROW(mbuf_zero, return PTR_RET(rte_sheaf_pktmbuf_pool_create("bi_mz", 0, 0,
	0, 256, SOCKET_ID_ANY, NULL));)
ROW(mbuf_priv, return PTR_RET(rte_sheaf_pktmbuf_pool_create("bi_mp", 63, 0,
	3, 256, SOCKET_ID_ANY, NULL));)
ROW(mbuf_cfg, return PTR_RET(rte_sheaf_pktmbuf_pool_create("bi_mc", 63, 0,
	0, 256, SOCKET_ID_ANY, &cfg_flags));)
ROW(flush_lcore_null, return rte_sheaf_flush_lcore(NULL);)
ROW(flush_lcore_ring, return rte_sheaf_flush_lcore(ring);)
ROW(flush_null, return rte_sheaf_flush(NULL);)
ROW(flush_ring, return rte_sheaf_flush(ring);)
ROW(flush_empty, return rte_sheaf_flush(empty);)
ROW(lcap_null, return rte_sheaf_lcore_capacity(NULL, 0);)
ROW(lcap_ring, return rte_sheaf_lcore_capacity(ring, 0);)
ROW(lcap_id, return rte_sheaf_lcore_capacity(pool, RTE_MAX_LCORE);)
ROW(lcap_id_max, return rte_sheaf_lcore_capacity(pool, UINT_MAX);)
ROW(stranded_null, return rte_sheaf_stranded_max(NULL);)
ROW(stranded_ring, return rte_sheaf_stranded_max(ring);)
ROW(info_null, struct rte_sheaf_info i; return rte_sheaf_info_get(NULL, &i);)
ROW(info_ring, struct rte_sheaf_info i; return rte_sheaf_info_get(ring, &i);)
ROW(info_out, return rte_sheaf_info_get(pool, NULL);)
ROW(stats_null, struct rte_sheaf_stats s; return rte_sheaf_stats_get(NULL, &s);)
ROW(stats_ring, struct rte_sheaf_stats s; return rte_sheaf_stats_get(ring, &s);)
ROW(stats_out, return rte_sheaf_stats_get(pool, NULL);)
ROW(reset_null, return rte_sheaf_stats_reset(NULL);)
ROW(reset_ring, return rte_sheaf_stats_reset(ring);)
ROW(name_max, return PTR_RET(rte_sheaf_stat_name(RTE_SHEAF_STAT_MAX));)
ROW(name_neg, return PTR_RET(rte_sheaf_stat_name((enum rte_sheaf_stat)-1));)
ROW(dump_f, return rte_sheaf_dump(NULL, pool);)
ROW(dump_ring, return rte_sheaf_dump(stdout, ring);)
ROW(dump_null, return rte_sheaf_dump(stdout, NULL);)
ROW(pget_null, return PTR_RET(rte_sheaf_prefill_get(NULL, 1));)
ROW(pget_ring, return PTR_RET(rte_sheaf_prefill_get(ring, 1));)
ROW(pget_zero, return PTR_RET(rte_sheaf_prefill_get(pool, 0));)
ROW(pget_big, return PTR_RET(rte_sheaf_prefill_get(pool, POOL_N + 1));)
ROW(pget_int, return PTR_RET(rte_sheaf_prefill_get(pool, 1u << 31));)
ROW(refill_null, return rte_sheaf_prefill_refill(NULL, &pf_pool, 1);)
ROW(refill_ring, return rte_sheaf_prefill_refill(ring, &pf_pool, 1);)
ROW(refill_pfp, return rte_sheaf_prefill_refill(pool, NULL, 1);)
ROW(refill_pf, struct rte_sheaf_prefill *p = NULL;
	return rte_sheaf_prefill_refill(pool, &p, 1);)
ROW(refill_zero, return rte_sheaf_prefill_refill(pool, &pf_pool, 0);)
ROW(refill_int, return rte_sheaf_prefill_refill(pool, &pf_pool, 1u << 31);)
ROW(refill_other, return rte_sheaf_prefill_refill(pool, &pf_other, 1);)
ROW(refill_gone, return rte_sheaf_prefill_refill(pool, &pf_gone, 1);)
ROW(refill_big, return rte_sheaf_prefill_refill(pool, &pf_pool,
	POOL_N + 1);)
ROW(pput_null, return rte_sheaf_prefill_put(NULL, pf_pool);)
ROW(pput_ring, return rte_sheaf_prefill_put(ring, pf_pool);)
ROW(pput_pf, return rte_sheaf_prefill_put(pool, NULL);)
ROW(pput_other, return rte_sheaf_prefill_put(pool, pf_other);)
ROW(pput_gone, return rte_sheaf_prefill_put(pool, pf_gone);)
ROW(psize_null, return rte_sheaf_prefill_size(NULL);)
ROW(psize_gone, return rte_sheaf_prefill_size(pf_gone);)
ROW(palloc_null, void *o; return rte_sheaf_prefill_alloc(NULL, &o);)
ROW(palloc_out, return rte_sheaf_prefill_alloc(pf_pool, NULL);)
ROW(palloc_gone, void *o; return rte_sheaf_prefill_alloc(pf_gone, &o);)
ROW(pbulk_null, void *o[2]; return rte_sheaf_prefill_alloc_bulk(NULL, o, 2);)
ROW(pbulk_out, return rte_sheaf_prefill_alloc_bulk(pf_pool, NULL, 2);)
ROW(pbulk_big, void *o[CAP + 1];
	return rte_sheaf_prefill_alloc_bulk(pf_pool, o,
		rte_sheaf_prefill_size(pf_pool) + 1);)
ROW(pmbuf_plain, struct rte_mbuf *m[1];
	return rte_sheaf_prefill_pktmbuf_alloc(pf_pool, m, 1);)
ROW(pmbuf_null, struct rte_mbuf *m[1];
	return rte_sheaf_prefill_pktmbuf_alloc(NULL, m, 1);)
ROW(attach_null, return rte_sheaf_rcu_attach(NULL, qv);)
ROW(attach_ring, return rte_sheaf_rcu_attach(ring, qv);)
ROW(attach_v, return rte_sheaf_rcu_attach(nodef, NULL);)
ROW(attach_again, return rte_sheaf_rcu_attach(pool, qv);)
ROW(dfree_null, return rte_sheaf_free_deferred(NULL, obj_pool);)
ROW(dfree_ring, return rte_sheaf_free_deferred(ring, obj_pool);)
ROW(dfree_obj, return rte_sheaf_free_deferred(pool, NULL);)
ROW(dfree_noqsbr, return rte_sheaf_free_deferred(nodef, obj_pool);)
ROW(dbulk_objs, return rte_sheaf_free_deferred_bulk(pool, NULL, 1);)
ROW(dbulk_holds, void *o[2] = { obj_pool, NULL };
	return rte_sheaf_free_deferred_bulk(pool, o, 2);)
ROW(reclaim_null, return rte_sheaf_reclaim(NULL);)
ROW(reclaim_noqsbr, return rte_sheaf_reclaim(nodef);)
ROW(barrier_ring, return rte_sheaf_deferred_barrier(ring);)
ROW(barrier_noqsbr, return rte_sheaf_deferred_barrier(nodef);)
/* Ops entry points, through DPDK's rte_mempool_ops_* wrappers. */
ROW(deq_big, void **t = calloc(POOL_N + 1, sizeof(void *)); int r;
	r = rte_mempool_ops_dequeue_bulk(pool, t, POOL_N + 1); free(t);
	return r;)
ROW(deq_more, void **t = calloc(POOL_N, sizeof(void *)); int r;
	r = rte_mempool_ops_dequeue_bulk(pool, t,
		rte_mempool_avail_count(pool) + 1); free(t); return r;)
ROW(enq_other, return rte_mempool_ops_enqueue_bulk(vpool, &obj_other, 1);)
ROW(enq_inside, void *o = (char *)obj_vpool + 1;
	return rte_mempool_ops_enqueue_bulk(vpool, &o, 1);)
ROW(enq_foreign, void *o = &cfg_cap;
	return rte_mempool_ops_enqueue_bulk(vpool, &o, 1);)
ROW(enq_double, void *o = NULL; int r;
	/* An object in the pool: take one, free it, free it again. */
	if (rte_mempool_ops_dequeue_bulk(vpool, &o, 1) != 0)
		return -1;
	rte_mempool_ops_enqueue_bulk(vpool, &o, 1);
	r = rte_mempool_ops_enqueue_bulk(vpool, &o, 1);
	return r;)
ROW(vdfree_other, return rte_sheaf_free_deferred(vpool, obj_other);)

/* err: the expected errno; sets: whether rte_errno is set; logs: lines. */
struct row {
	const char *name;
	int (*fn)(void);
	int err;
	bool sets;
	unsigned int logs;
};

#define R(fn, err, sets, logs) { #fn, fn, err, sets, logs }

static const struct row rows[] = {
	R(check_null, EINVAL, true, 1),
	R(check_ring, EINVAL, true, 1),
	R(check_empty, EINVAL, true, 1),
	R(create_name, EINVAL, true, 1),
	R(create_zero, EINVAL, true, 1),
	R(create_cap, EINVAL, true, 1),
	R(create_capmax, EINVAL, true, 1),
	R(create_caprange, EINVAL, true, 1),
	R(create_full, EINVAL, true, 1),
	R(create_empty, EINVAL, true, 1),
	R(create_flags, EINVAL, true, 1),
	R(create_idle, EINVAL, true, 1),
	R(create_mbint, EINVAL, true, 1),
	R(create_barrier, EINVAL, true, 1),
	R(mbuf_name, EINVAL, true, 1),
	R(mbuf_zero, EINVAL, true, 1),
	R(mbuf_priv, EINVAL, true, 1),
	R(mbuf_cfg, EINVAL, true, 1),
	R(flush_lcore_null, EINVAL, true, 1),
	R(flush_lcore_ring, EINVAL, true, 1),
	R(flush_null, EINVAL, true, 1),
	R(flush_ring, EINVAL, true, 1),
	R(flush_empty, EINVAL, true, 1),
	R(lcap_null, EINVAL, true, 1),
	R(lcap_ring, EINVAL, true, 1),
	R(lcap_id, EINVAL, true, 1),
	R(lcap_id_max, EINVAL, true, 1),
	R(stranded_null, EINVAL, true, 1),
	R(stranded_ring, EINVAL, true, 1),
	R(info_null, EINVAL, true, 1),
	R(info_ring, EINVAL, true, 1),
	R(info_out, EINVAL, true, 1),
	R(stats_null, EINVAL, true, 1),
	R(stats_ring, EINVAL, true, 1),
	R(stats_out, EINVAL, true, 1),
	R(reset_null, EINVAL, true, 1),
	R(reset_ring, EINVAL, true, 1),
	R(name_max, EINVAL, true, 1),
	R(name_neg, EINVAL, true, 1),
	R(dump_f, EINVAL, true, 1),
	R(dump_ring, EINVAL, true, 1),
	R(dump_null, EINVAL, true, 1),
	R(pget_null, EINVAL, true, 1),
	R(pget_ring, EINVAL, true, 1),
	R(pget_zero, EINVAL, true, 1),
	R(pget_big, ENOMEM, true, 0),
	R(pget_int, EINVAL, true, 1),
	R(refill_null, EINVAL, true, 1),
	R(refill_ring, EINVAL, true, 1),
	R(refill_pfp, EINVAL, true, 1),
	R(refill_pf, EINVAL, true, 1),
	R(refill_zero, EINVAL, true, 1),
	R(refill_int, EINVAL, true, 1),
	R(refill_other, EINVAL, true, 1),
	R(refill_gone, EINVAL, true, 1),
	R(refill_big, ENOMEM, true, 0),
	R(pput_null, EINVAL, true, 1),
	R(pput_ring, EINVAL, true, 1),
	R(pput_pf, EINVAL, true, 1),
	R(pput_other, EINVAL, true, 1),
	R(pput_gone, EINVAL, true, 1),
	R(psize_null, EINVAL, true, 1),
	R(psize_gone, EINVAL, true, 1),
	R(palloc_null, EINVAL, true, 1),
	R(palloc_out, EINVAL, true, 1),
	R(palloc_gone, EINVAL, true, 1),
	R(pbulk_null, EINVAL, true, 1),
	R(pbulk_out, EINVAL, true, 1),
	R(pbulk_big, ENOBUFS, true, 0),
	R(pmbuf_plain, EINVAL, true, 1),
	R(pmbuf_null, EINVAL, true, 1),
	R(attach_null, EINVAL, true, 1),
	R(attach_ring, EINVAL, true, 1),
	R(attach_v, EINVAL, true, 1),
	R(attach_again, EEXIST, true, 1),
	R(dfree_null, EINVAL, true, 1),
	R(dfree_ring, EINVAL, true, 1),
	R(dfree_obj, EINVAL, true, 1),
	R(dfree_noqsbr, ENOTSUP, true, 1),
	R(dbulk_objs, EINVAL, true, 1),
	R(dbulk_holds, EINVAL, true, 1),
	R(reclaim_null, EINVAL, true, 1),
	R(reclaim_noqsbr, ENOTSUP, true, 1),
	R(barrier_ring, EINVAL, true, 1),
	R(barrier_noqsbr, ENOTSUP, true, 1),
	R(deq_big, ENOBUFS, false, 0),
	R(deq_more, ENOBUFS, false, 0),
	R(enq_other, EINVAL, true, 1),
	R(enq_inside, EINVAL, true, 1),
	R(enq_foreign, EINVAL, true, 1),
	R(enq_double, EINVAL, true, 1),
	R(vdfree_other, EINVAL, true, 1),
};

static int
acct_same(const char *row, const char *pool_name, const struct acct *a,
	const struct acct *b, uint64_t invalid_delta)
{
	if (a->avail == b->avail &&
			a->info.in_slabs + a->info.in_barns + a->info.in_lcores ==
			b->info.in_slabs + b->info.in_barns + b->info.in_lcores &&
			a->info.nb_borrowed == b->info.nb_borrowed &&
			a->info.in_deferred == b->info.in_deferred &&
			b->invalid - a->invalid == invalid_delta)
		return TEST_SUCCESS;
	printf("    FAILED %s: pool %s accounting moved: avail %u -> %u, borrowed %u -> %u, deferred %u -> %u, FREE_INVALID +%" PRIu64 " (expected +%" PRIu64 ")\n",
		row, pool_name, a->avail, b->avail, a->info.nb_borrowed,
		b->info.nb_borrowed, a->info.in_deferred, b->info.in_deferred,
		b->invalid - a->invalid, invalid_delta);
	return TEST_FAILED;
}

static int
test_table(void)
{
	struct rte_mempool *pools[] = { pool, vpool, other };
	struct acct before[3], after[3];
	unsigned int i, k, lines, failed = 0;

	for (i = 0; i < RTE_DIM(rows); i++) {
		const struct row *r = &rows[i];
		bool vrow = strncmp(r->name, "enq_", 4) == 0 ||
			strncmp(r->name, "vdfree", 6) == 0;
		int ret;

		for (k = 0; k < RTE_DIM(pools); k++)
			acct_read(pools[k], &before[k]);
		lines = log_lines();
		rte_errno = 0;
		ret = r->fn();
		if (ret != -r->err || (r->sets && rte_errno != r->err)) {
			printf("    FAILED %s: got %d (rte_errno %d), expected %d (rte_errno %d)\n",
				r->name, ret, rte_errno, -r->err,
				r->sets ? r->err : rte_errno);
			failed++;
			continue;
		}
		lines = log_lines() - lines;
		if (lines != r->logs) {
			printf("    FAILED %s: log lines: got %u, expected %u\n",
				r->name, lines, r->logs);
			failed++;
		}
		for (k = 0; k < RTE_DIM(pools); k++) {
			acct_read(pools[k], &after[k]);
			/* A refused free is counted, nothing else moves. */
			if (acct_same(r->name, pools[k]->name, &before[k],
					&after[k], k == 1 && vrow ? 1 : 0) !=
					TEST_SUCCESS)
				failed++;
		}
	}
	printf("    %u rows, %u failed\n", (unsigned int)RTE_DIM(rows), failed);
	SHEAF_TEST_ASSERT_INT(failed, 0, "failed rows");
	return TEST_SUCCESS;
}

/* A thread without an lcore id (LCORE_ID_ANY) is valid: shared path. */
static void *
thread_any(void *arg)
{
	void *o;
	int *ret = arg;

	*ret = rte_mempool_get(pool, &o);
	if (*ret == 0)
		rte_mempool_put(pool, o);
	return NULL;
}

static int
test_no_lcore_id(void)
{
	pthread_t t;
	int ret = -1;

	RTE_TEST_ASSERT_SUCCESS(pthread_create(&t, NULL, thread_any, &ret),
		"pthread_create");
	pthread_join(t, NULL);
	SHEAF_TEST_ASSERT_INT(ret, 0, "get from a thread without lcore id");
	return TEST_SUCCESS;
}

static struct rte_mempool *
mk(const char *name, uint32_t flags)
{
	struct rte_sheaf_config cfg = { .capacity = CAP, .flags = flags };

	return rte_sheaf_pool_create(name, POOL_N, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0, &cfg);
}

static int
suite_setup(void)
{
	size_t sz = rte_rcu_qsbr_get_memsize(1);

	pool = mk("bi_pool", 0);
	vpool = mk("bi_vpool", RTE_SHEAF_F_VALIDATE);
	other = mk("bi_other", 0);
	nodef = mk("bi_nodef", 0);
	ring = rte_mempool_create("bi_ring", 63, POOL_ELT, 0, 0, NULL, NULL,
		NULL, NULL, SOCKET_ID_ANY, 0);
	empty = rte_mempool_create_empty("bi_empty", 63, POOL_ELT, 0, 0,
		SOCKET_ID_ANY, 0);
	qv = rte_zmalloc("bi_qsbr", sz, RTE_CACHE_LINE_SIZE);
	RTE_TEST_ASSERT(pool && vpool && other && nodef && ring && empty && qv,
		"setup: a pool or the QSBR variable is missing (%s)",
		rte_strerror(rte_errno));
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_set_ops_byname(empty,
		RTE_SHEAF_OPS_NAME, NULL), "set ops");
	RTE_TEST_ASSERT_SUCCESS(rte_rcu_qsbr_init(qv, 1), "qsbr init");
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_rcu_attach(pool, qv) |
		rte_sheaf_rcu_attach(vpool, qv), "attach");
	pf_pool = rte_sheaf_prefill_get(pool, 4);
	pf_other = rte_sheaf_prefill_get(other, 4);
	pf_gone = rte_sheaf_prefill_get(pool, 4);
	RTE_TEST_ASSERT(pf_pool && pf_other && pf_gone, "prefill get");
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_prefill_put(pool, pf_gone),
		"prefill put");
	RTE_TEST_ASSERT_SUCCESS(rte_mempool_get(pool, &obj_pool) |
		rte_mempool_get(other, &obj_other) |
		rte_mempool_get(vpool, &obj_vpool), "get");
	log_default = rte_log_get_stream();
	log_f = open_memstream(&log_buf, &log_len);
	RTE_TEST_ASSERT_NOT_NULL(log_f, "open_memstream");
	rte_openlog_stream(log_f);
	return TEST_SUCCESS;
}

static void
suite_teardown(void)
{
	if (log_f != NULL) {
		rte_openlog_stream(log_default);
		fclose(log_f);
		fputs(log_buf, stdout);
		free(log_buf);
	}
	if (pf_pool != NULL)
		rte_sheaf_prefill_put(pool, pf_pool);
	if (pf_other != NULL)
		rte_sheaf_prefill_put(other, pf_other);
	rte_mempool_free(pool);
	rte_mempool_free(vpool);
	rte_mempool_free(other);
	rte_mempool_free(nodef);
	rte_mempool_free(ring);
	rte_mempool_free(empty);
	rte_free(qv);
}

static const struct sheaf_test_case cases[] = {
	SHEAF_TEST_CASE(test_table),
	SHEAF_TEST_CASE(test_no_lcore_id),
	SHEAF_TEST_CASES_END
};

static const struct sheaf_test_suite suite = {
	.name = "sheaf_badinput",
	.min_lcores = 1,
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases = cases,
};

int
main(int argc, char **argv)
{
	return sheaf_test_main(argc, argv, &suite);
}
