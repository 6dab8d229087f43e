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
 * - the heap: rte_malloc(), rte_free() and the memzone calls take one
 *   lock inside EAL (memory reused across threads by them is ordered by
 *   it): each call acquires and releases one token around the real one.
 *
 * Nothing of sheaf is modelled here: every ordering of the library is
 * its own atomics, which TSan checks.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
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

#define REAL(name) \
	static __typeof__(name) *real_##name; \
	if (real_##name == NULL) \
		real_##name = (__typeof__(name) *)real(#name)

static void
heap_sync(void)
{
	__tsan_acquire(&heap_token);
	__tsan_release(&heap_token);
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

/* EAL's own calls rte_eal_remote_launch() inside the library: redone. */
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

/* Each heap and memzone call: the real one between two syncs. */
#define HEAP_CALL(ret_type, name, params, args) \
ret_type \
name params \
{ \
	REAL(name); \
	ret_type r; \
	heap_sync(); \
	r = real_##name args; \
	heap_sync(); \
	return r; \
}

HEAP_CALL(void *, rte_malloc, (const char *t, size_t s, unsigned int a),
	(t, s, a))
HEAP_CALL(void *, rte_zmalloc, (const char *t, size_t s, unsigned int a),
	(t, s, a))
HEAP_CALL(void *, rte_calloc,
	(const char *t, size_t n, size_t s, unsigned int a), (t, n, s, a))
HEAP_CALL(void *, rte_realloc, (void *p, size_t s, unsigned int a),
	(p, s, a))
HEAP_CALL(void *, rte_malloc_socket,
	(const char *t, size_t s, unsigned int a, int so), (t, s, a, so))
HEAP_CALL(void *, rte_zmalloc_socket,
	(const char *t, size_t s, unsigned int a, int so), (t, s, a, so))
HEAP_CALL(void *, rte_calloc_socket,
	(const char *t, size_t n, size_t s, unsigned int a, int so),
	(t, n, s, a, so))
HEAP_CALL(void *, rte_realloc_socket,
	(void *p, size_t s, unsigned int a, int so), (p, s, a, so))
HEAP_CALL(const struct rte_memzone *, rte_memzone_reserve,
	(const char *n, size_t l, int so, unsigned int f), (n, l, so, f))
HEAP_CALL(const struct rte_memzone *, rte_memzone_reserve_aligned,
	(const char *n, size_t l, int so, unsigned int f, unsigned int al),
	(n, l, so, f, al))
HEAP_CALL(const struct rte_memzone *, rte_memzone_reserve_bounded,
	(const char *n, size_t l, int so, unsigned int f, unsigned int al,
		unsigned int b), (n, l, so, f, al, b))
HEAP_CALL(const struct rte_memzone *, rte_memzone_lookup, (const char *n),
	(n))
HEAP_CALL(int, rte_memzone_free, (const struct rte_memzone *mz), (mz))

void
rte_free(void *p)
{
	REAL(rte_free);

	heap_sync();
	real_rte_free(p);
	heap_sync();
}
