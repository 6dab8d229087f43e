/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * ThreadSanitizer build only (the "tsan" suite, test/meson.build): the
 * hand-overs inside DPDK's EAL that TSan cannot see, DPDK's libraries
 * not being instrumented, told to it. Linked into each test program, its
 * functions come before librte_eal's in the lookup (for the library's
 * calls too); each calls the real one (dlsym(RTLD_NEXT)) and marks the
 * synchronisation that function really makes:
 *
 * - the join: rte_eal_wait_lcore() returns once the lcore's function
 *   has returned (EAL's own acquire of the lcore's state): the function
 *   launched ends with a release on its lcore's token, the wait with an
 *   acquire on it. The launch itself needs nothing: EAL 22.11 hands the
 *   command over a pipe, and TSan orders a read() after its write().
 * - the heap and the memzones: rte_malloc() and rte_free() take a heap's
 *   lock inside EAL, the memzone calls its memzone lock (and reserve and
 *   free the heap's), so memory that one thread frees and another gets
 *   is ordered. Each call acquires its lock's token before the real call
 *   and releases it after (a lookup, a reader, only acquires): an edge
 *   only from a call that ended before this one began, as the lock gives;
 *   never one the lock does not give (a release before the call, or an
 *   acquire after it, would order two calls in whatever order they met
 *   the token). One token for all heaps (one socket here). A call that
 *   takes no lock (rte_free(NULL), a size of 0) syncs nothing.
 *
 * Nothing of sheaf is modelled here: every ordering of the library is
 * its own atomics, which TSan checks.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memzone.h>

void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

static char lcore_token[RTE_MAX_LCORE];
static char heap_token;
static char memzone_token;

static struct {
	lcore_function_t *fn;
	void *arg;
} launched[RTE_MAX_LCORE];

/* The real function name, from the next object in the lookup order. */
static void *
real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (f == NULL) {
		fprintf(stderr, "tsan_model: no %s\n", name);
		abort();
	}
	return f;
}

/* real_<name>: the real function, looked up at the first call. */
#define REAL(name) \
	static __typeof__(name) *name##_next; \
	__typeof__(name) *real_##name = \
		__atomic_load_n(&name##_next, __ATOMIC_RELAXED); \
	if (real_##name == NULL) { \
		real_##name = (__typeof__(name) *)real(#name); \
		__atomic_store_n(&name##_next, real_##name, __ATOMIC_RELAXED); \
	}

/* Runs on the worker: the launched function, then the join's release. */
static int
model_launched(void *arg)
{
	unsigned int id = (unsigned int)(uintptr_t)arg;
	int ret = launched[id].fn(launched[id].arg);

	__tsan_release(&lcore_token[id]);
	return ret;
}

int
rte_eal_remote_launch(lcore_function_t *f, void *arg, unsigned int id)
{
	REAL(rte_eal_remote_launch);

	/* A busy lcore: the real call refuses it, leave launched[] be. */
	if (id >= RTE_MAX_LCORE || rte_eal_get_lcore_state(id) != WAIT)
		return real_rte_eal_remote_launch(f, arg, id);
	launched[id].fn = f;
	launched[id].arg = arg;
	return real_rte_eal_remote_launch(model_launched,
		(void *)(uintptr_t)id, id);
}

/*
 * EAL's own calls rte_eal_remote_launch() inside its library, past this
 * file: redone here on the wrapper above, as 22.11 does it (-EBUSY when a
 * worker is not waiting, per-lcore errors ignored). CALL_MAIN runs f on
 * the caller, its return dropped: EAL's record of it for the main lcore
 * is out of reach (no test launches with CALL_MAIN).
 */
int
rte_eal_mp_remote_launch(lcore_function_t *f, void *arg,
	enum rte_rmt_call_main_t call_main)
{
	unsigned int i;

	RTE_LCORE_FOREACH_WORKER(i)
		if (rte_eal_get_lcore_state(i) != WAIT)
			return -EBUSY;
	RTE_LCORE_FOREACH_WORKER(i)
		rte_eal_remote_launch(f, arg, i);
	if (call_main == CALL_MAIN)
		f(arg);
	return 0;
}

int
rte_eal_wait_lcore(unsigned int id)
{
	REAL(rte_eal_wait_lcore);
	int ret = real_rte_eal_wait_lcore(id);

	if (id < RTE_MAX_LCORE)
		__tsan_acquire(&lcore_token[id]);
	return ret;
}

void
rte_eal_mp_wait_lcore(void)
{
	unsigned int i;

	RTE_LCORE_FOREACH_WORKER(i)
		rte_eal_wait_lcore(i);
}

/*
 * Each heap and memzone call: its lock's token acquired before the real
 * call, released after; skip: the call takes no lock.
 */
#define LOCKED_CALL(ret_type, name, params, args, token, skip) \
ret_type \
name params \
{ \
	REAL(name); \
	ret_type r; \
	if (skip) \
		return real_##name args; \
	__tsan_acquire(&token); \
	r = real_##name args; \
	__tsan_release(&token); \
	return r; \
}

LOCKED_CALL(void *, rte_malloc, (const char *t, size_t s, unsigned int a),
	(t, s, a), heap_token, s == 0)
LOCKED_CALL(void *, rte_zmalloc, (const char *t, size_t s, unsigned int a),
	(t, s, a), heap_token, s == 0)
LOCKED_CALL(void *, rte_calloc,
	(const char *t, size_t n, size_t s, unsigned int a), (t, n, s, a),
	heap_token, n == 0 || s == 0)
LOCKED_CALL(void *, rte_realloc, (void *p, size_t s, unsigned int a),
	(p, s, a), heap_token, false)
LOCKED_CALL(void *, rte_malloc_socket,
	(const char *t, size_t s, unsigned int a, int so), (t, s, a, so),
	heap_token, s == 0)
LOCKED_CALL(void *, rte_zmalloc_socket,
	(const char *t, size_t s, unsigned int a, int so), (t, s, a, so),
	heap_token, s == 0)
LOCKED_CALL(void *, rte_calloc_socket,
	(const char *t, size_t n, size_t s, unsigned int a, int so),
	(t, n, s, a, so), heap_token, n == 0 || s == 0)
LOCKED_CALL(void *, rte_realloc_socket,
	(void *p, size_t s, unsigned int a, int so), (p, s, a, so),
	heap_token, false)
LOCKED_CALL(const struct rte_memzone *, rte_memzone_reserve,
	(const char *n, size_t l, int so, unsigned int f), (n, l, so, f),
	memzone_token, false)
LOCKED_CALL(const struct rte_memzone *, rte_memzone_reserve_aligned,
	(const char *n, size_t l, int so, unsigned int f, unsigned int al),
	(n, l, so, f, al), memzone_token, false)
LOCKED_CALL(const struct rte_memzone *, rte_memzone_reserve_bounded,
	(const char *n, size_t l, int so, unsigned int f, unsigned int al,
		unsigned int b), (n, l, so, f, al, b), memzone_token, false)
LOCKED_CALL(int, rte_memzone_free, (const struct rte_memzone *mz), (mz),
	memzone_token, mz == NULL)

/* A reader of the memzone list: acquires only. */
const struct rte_memzone *
rte_memzone_lookup(const char *n)
{
	REAL(rte_memzone_lookup);

	__tsan_acquire(&memzone_token);
	return real_rte_memzone_lookup(n);
}

void
rte_free(void *p)
{
	REAL(rte_free);

	if (p == NULL) {
		real_rte_free(p);
		return;
	}
	__tsan_acquire(&heap_token);
	real_rte_free(p);
	__tsan_release(&heap_token);
}
