/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * deferred: the writer side of a table under RCU. The first lcore is the
 * writer: it replaces random table entries with new objects and frees
 * each old one deferred, reclaiming every PERF_RCU_RECLAIM frees. The
 * other lcores are readers that report a quiescent state in a loop. They
 * do not read the table: its cache lines would then bounce between
 * writer and readers whatever the allocator, and the rates would measure
 * that rather than deferred free and reclaim. Sheaf pools free with
 * rte_sheaf_free_deferred(); other ops with rte_rcu_qsbr_dq_enqueue(),
 * whose callback puts the object back with rte_mempool_put(). Only the
 * writer's objects and cycles are counted.
 */

#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_rcu_qsbr.h>

#include "sheaf_perf.h"

#define PERF_RCU_SLOTS 1024   /* table entries, a small hash table */
#define PERF_RCU_RECLAIM 32   /* frees per reclaim call */
/* rte_hash's defer-queue defaults (RTE_HASH_RCU_DQ_RECLAIM_*). */
#define PERF_RCU_DQ_TRIGGER 32
#define PERF_RCU_DQ_MAX 16

struct perf_rcu {
	struct rte_rcu_qsbr *v;
	struct rte_rcu_qsbr_dq *dq;   /* NULL for a sheaf pool */
	void **table;                 /* [PERF_RCU_SLOTS], published */
};

static void
rcu_dq_free(void *p, void *e, unsigned int n)
{
	void * const *objs = e;
	unsigned int i;

	for (i = 0; i < n; i++)
		rte_mempool_put(p, objs[i]);
}

void
perf_rcu_teardown(struct perf_entry *e)
{
	struct perf_rcu *r = e->priv;

	if (r == NULL)
		return;
	/* Empty after every measurement; a failed one is drained here. */
	if (r->dq != NULL)
		rte_rcu_qsbr_dq_delete(r->dq);
	else
		rte_sheaf_deferred_barrier(e->mp);
	rte_free(r->table);
	rte_free(r->v);
	rte_free(r);
	e->priv = NULL;
}

static unsigned int dq_seq; /* main lcore only */

int
perf_rcu_setup(const struct perf_opts *o, struct perf_entry *e, char *err,
	size_t len)
{
	struct rte_rcu_qsbr_dq_parameters p;
	unsigned int i, nb_readers = o->nb_lcores - 1;
	char name[RTE_RING_NAMESIZE];
	struct perf_rcu *r;

	r = rte_zmalloc("perf_rcu", sizeof(*r), RTE_CACHE_LINE_SIZE);
	e->priv = r;
	if (r == NULL)
		goto nomem;
	r->v = rte_zmalloc("perf_qsbr", rte_rcu_qsbr_get_memsize(nb_readers),
		RTE_CACHE_LINE_SIZE);
	r->table = rte_zmalloc("perf_rcu_table",
		PERF_RCU_SLOTS * sizeof(void *), RTE_CACHE_LINE_SIZE);
	if (r->v == NULL || r->table == NULL)
		goto nomem;
	rte_rcu_qsbr_init(r->v, nb_readers);
	for (i = 0; i < nb_readers; i++)
		rte_rcu_qsbr_thread_register(r->v, i);
	if (strcmp(rte_mempool_get_ops(e->mp->ops_index)->name,
			RTE_SHEAF_OPS_NAME) == 0) {
		if (rte_sheaf_rcu_attach(e->mp, r->v) == 0)
			return 0;
		snprintf(err, len, "rcu attach: %s", rte_strerror(rte_errno));
		goto fail;
	}
	memset(&p, 0, sizeof(p));
	/* Unique among rings: dq names its ring after it. */
	snprintf(name, sizeof(name), "perf_dq%u", dq_seq++);
	p.name = name;
	p.flags = RTE_RCU_QSBR_DQ_MT_UNSAFE; /* one writer */
	p.size = e->mp->size;
	p.esize = sizeof(void *);
	p.trigger_reclaim_limit = PERF_RCU_DQ_TRIGGER;
	p.max_reclaim_size = PERF_RCU_DQ_MAX;
	p.free_fn = rcu_dq_free;
	p.p = e->mp;
	p.v = r->v;
	r->dq = rte_rcu_qsbr_dq_create(&p);
	if (r->dq != NULL)
		return 0;
	snprintf(err, len, "dq create: %s", rte_strerror(rte_errno));
	goto fail;
nomem:
	snprintf(err, len, "rcu setup: out of memory");
fail:
	perf_rcu_teardown(e);
	return -1;
}

/* Reclaim whatever has passed its grace period. */
static inline void
rcu_reclaim(struct perf_worker *w, struct perf_rcu *r)
{
	if (r->dq == NULL)
		rte_sheaf_reclaim(w->mp);
	else
		rte_rcu_qsbr_dq_reclaim(r->dq, w->mp->size, NULL, NULL, NULL);
}

static inline int
rcu_free(struct perf_worker *w, struct perf_rcu *r, void *obj)
{
	if (r->dq == NULL)
		return rte_sheaf_free_deferred(w->mp, obj);
	/* Full only while readers lag: reclaim, then retry once. */
	if (rte_rcu_qsbr_dq_enqueue(r->dq, &obj) == 0)
		return 0;
	rcu_reclaim(w, r);
	return rte_rcu_qsbr_dq_enqueue(r->dq, &obj) == 0 ? 0 : -1;
}

/* A get that reclaims while it waits: frees come back only so. */
static int
rcu_get(struct perf_worker *w, struct perf_rcu *r, void **obj)
{
	uint64_t first;

	if (likely(rte_mempool_get(w->mp, obj) == 0))
		return 0;
	first = rte_rdtsc();
	do {
		w->get_fail++;
		if (perf_worker_retry_stop(w))
			return -1;
		if (rte_rdtsc() - first > w->sync->stall) {
			perf_worker_fail(w, "get failed for %.0f ms on lcore %u",
				(double)w->sync->stall * 1e3 /
				(double)rte_get_tsc_hz(), w->lcore_id);
			return -1;
		}
		rcu_reclaim(w, r);
	} while (rte_mempool_get(w->mp, obj) != 0);
	return 0;
}

static void
rcu_writer(struct perf_worker *w, struct perf_rcu *r)
{
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	unsigned int i;
	bool ready = true;
	void *obj, *old, **slot;

	for (i = 0; i < PERF_RCU_SLOTS && ready; i++) {
		ready = rcu_get(w, r, &obj) == 0;
		if (ready)
			/* Release: readers see the object written. */
			__atomic_store_n(&r->table[i], obj, __ATOMIC_RELEASE);
	}
	perf_worker_wait_go(w);

	while (ready && !perf_worker_should_stop(w)) {
		if (rcu_get(w, r, &obj) != 0)
			break;
		*(volatile uint64_t *)obj = w->objects;
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		/* One writer: a plain load, then a release store publishes. */
		slot = &r->table[rng % PERF_RCU_SLOTS];
		old = *slot;
		__atomic_store_n(slot, obj, __ATOMIC_RELEASE);
		if (rcu_free(w, r, old) != 0) {
			perf_worker_fail(w, "deferred free failed");
			break;
		}
		if (++w->objects % PERF_RCU_RECLAIM == 0)
			rcu_reclaim(w, r);
	}
	perf_worker_end(w);

	/* Empty the table, then wait for every object to be back. */
	for (i = 0; i < PERF_RCU_SLOTS; i++) {
		old = __atomic_exchange_n(&r->table[i], NULL, __ATOMIC_RELEASE);
		if (old != NULL && rcu_free(w, r, old) != 0)
			perf_worker_fail(w, "deferred free failed");
	}
	if (r->dq == NULL) {
		if (rte_sheaf_deferred_barrier(w->mp) != 0)
			perf_worker_fail(w, "barrier: %s",
				rte_strerror(rte_errno));
		return;
	}
	for (;;) {
		unsigned int pending = 0;

		rte_rcu_qsbr_dq_reclaim(r->dq, w->mp->size, NULL, &pending,
			NULL);
		if (pending == 0)
			break;
		rte_pause();
	}
}

static void
rcu_reader(struct perf_worker *w, struct perf_rcu *r, unsigned int id)
{
	rte_rcu_qsbr_thread_online(r->v, id);
	perf_worker_wait_go(w);
	/* Readers are not timed: the rates are the writer's. */
	w->t_start = 0;
	while (!perf_worker_should_stop(w)) {
		rte_rcu_qsbr_quiescent(r->v, id);
		rte_pause();
	}
	perf_worker_end(w);
	rte_rcu_qsbr_thread_offline(r->v, id);
}

void
perf_rcu_body(struct perf_worker *w)
{
	if (w->index == 0)
		rcu_writer(w, w->priv);
	else
		rcu_reader(w, w->priv, w->index - 1);
}

int
perf_rcu_check(const struct perf_opts *o, char *err, size_t len)
{
	if (o->nb_lcores < 2) {
		snprintf(err, len, "deferred needs 2 lcores (a writer, readers), --lcores has %u",
			o->nb_lcores);
		return -1;
	}
	if (o->pool_size < 2 * PERF_RCU_SLOTS) {
		snprintf(err, len, "--pool-size %u is below twice the %u table entries",
			o->pool_size, PERF_RCU_SLOTS);
		return -1;
	}
	return 0;
}
