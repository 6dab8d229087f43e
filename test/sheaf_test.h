/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

#ifndef _SHEAF_TEST_H_
#define _SHEAF_TEST_H_

/*
 * Scaffolding shared by the sheaf tests: EAL start from argv, a case
 * table run with setup and teardown, asserts, and a table of a pool's
 * objects against which the tests check that whatever a pool hands out
 * is one of its own objects, handed out once.
 *
 * Each test is an executable taking EAL arguments. It exits 0 when every
 * case passed, 1 when one failed and 77 (skip) when it cannot run here: no
 * free hugepages for a hugepage run, or too few lcores.
 */

#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mempool.h>

#include <rte_sheaf.h>

#define TEST_SUCCESS 0
#define TEST_FAILED (-1)
#define TEST_SKIPPED 77

/* Statistics item id of sheaf pool mp now; UINT64_MAX if unreadable. */
static inline uint64_t
sheaf_test_stat(const struct rte_mempool *mp, enum rte_sheaf_stat id)
{
	struct rte_sheaf_stats st;

	return rte_sheaf_stats_get(mp, &st) == 0 ? st.count[id] : UINT64_MAX;
}

/*
 * The RTE_TEST_ASSERT family of rte_test.h, with the same names, arguments
 * and "return -1 on failure" behaviour. Defined here because distribution
 * packages of DPDK 22.11 (Debian 12) do not install rte_test.h, and its
 * version logs the message at DEBUG level, which a test run does not show.
 */
#undef RTE_TEST_ASSERT
#undef RTE_TEST_ASSERT_EQUAL
#undef RTE_TEST_ASSERT_NOT_EQUAL
#undef RTE_TEST_ASSERT_SUCCESS
#undef RTE_TEST_ASSERT_FAIL
#undef RTE_TEST_ASSERT_NULL
#undef RTE_TEST_ASSERT_NOT_NULL

#define RTE_TEST_ASSERT(cond, msg, ...) do { \
	if (!(cond)) { \
		printf("    FAILED %s:%d %s(): " msg "\n", __FILE__, \
			__LINE__, __func__, ##__VA_ARGS__); \
		return TEST_FAILED; \
	} \
} while (0)

#define RTE_TEST_ASSERT_EQUAL(a, b, msg, ...) \
	RTE_TEST_ASSERT((a) == (b), msg, ##__VA_ARGS__)
#define RTE_TEST_ASSERT_NOT_EQUAL(a, b, msg, ...) \
	RTE_TEST_ASSERT((a) != (b), msg, ##__VA_ARGS__)
#define RTE_TEST_ASSERT_SUCCESS(val, msg, ...) \
	RTE_TEST_ASSERT((val) == 0, msg, ##__VA_ARGS__)
#define RTE_TEST_ASSERT_FAIL(val, msg, ...) \
	RTE_TEST_ASSERT((val) != 0, msg, ##__VA_ARGS__)
#define RTE_TEST_ASSERT_NULL(val, msg, ...) \
	RTE_TEST_ASSERT((val) == NULL, msg, ##__VA_ARGS__)
#define RTE_TEST_ASSERT_NOT_NULL(val, msg, ...) \
	RTE_TEST_ASSERT((val) != NULL, msg, ##__VA_ARGS__)

/* Compare two integers once evaluated: "what: got X, expected Y". */
#define SHEAF_TEST_ASSERT_INT(got, expected, what) do { \
	int64_t got_ = (int64_t)(got); \
	int64_t exp_ = (int64_t)(expected); \
	RTE_TEST_ASSERT_EQUAL(got_, exp_, \
		"%s: got %" PRId64 ", expected %" PRId64, \
		(what), got_, exp_); \
} while (0)

/* An int call must return -err and leave err in rte_errno. */
#define SHEAF_TEST_ASSERT_ERR(call, err) do { \
	int ret_; \
	rte_errno = 0; \
	ret_ = (call); \
	RTE_TEST_ASSERT(ret_ == -(err) && rte_errno == (err), \
		"%s: got %d (rte_errno %d), expected %d (rte_errno %d)", \
		#call, ret_, rte_errno, -(err), (err)); \
} while (0)

/* A pointer call must return NULL and leave err in rte_errno. */
#define SHEAF_TEST_ASSERT_NULL_ERR(call, err) do { \
	const void *ptr_; \
	rte_errno = 0; \
	ptr_ = (call); \
	RTE_TEST_ASSERT(ptr_ == NULL && rte_errno == (err), \
		"%s: got %p (rte_errno %d), expected NULL (rte_errno %d)", \
		#call, ptr_, rte_errno, (err)); \
} while (0)

/* A propagated failure: the callee printed the details. */
#define SHEAF_TEST_CHECK(call) do { \
	if ((call) != TEST_SUCCESS) { \
		printf("    from %s:%d %s()\n", __FILE__, __LINE__, \
			__func__); \
		return TEST_FAILED; \
	} \
} while (0)

/** One case of a test: setup and teardown may be NULL. */
struct sheaf_test_case {
	const char *name;
	int (*setup)(void);       /**< TEST_SUCCESS, TEST_SKIPPED or fails. */
	void (*teardown)(void);   /**< Runs whatever the case returned. */
	int (*run)(void);         /**< TEST_SUCCESS, TEST_SKIPPED or fails. */
};

#define SHEAF_TEST_CASE(fn) { #fn, NULL, NULL, fn }
#define SHEAF_TEST_CASE_ST(setup, teardown, fn) { #fn, setup, teardown, fn }
#define SHEAF_TEST_CASES_END { NULL, NULL, NULL, NULL }

/** A test executable: its cases end with SHEAF_TEST_CASES_END. */
struct sheaf_test_suite {
	const char *name;
	unsigned int min_lcores;  /**< Skip below this many EAL lcores. */
	int (*setup)(void);       /**< Once after EAL init; may be NULL. */
	void (*teardown)(void);   /**< Once before EAL cleanup; may be NULL. */
	const struct sheaf_test_case *cases;
};

static inline bool
sheaf_test_has_arg(int argc, char **argv, const char *arg)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], arg) == 0)
			return true;
	return false;
}

/* Free hugepages of every size, as the kernel reports them. */
static inline unsigned long
sheaf_test_free_hugepages(void)
{
	unsigned long total = 0;
	glob_t g;
	size_t i;

	if (glob("/sys/kernel/mm/hugepages/hugepages-*/free_hugepages", 0,
			NULL, &g) != 0)
		return 0;
	for (i = 0; i < g.gl_pathc; i++) {
		unsigned long n = 0;
		FILE *f = fopen(g.gl_pathv[i], "r");

		if (f == NULL)
			continue;
		if (fscanf(f, "%lu", &n) == 1)
			total += n;
		fclose(f);
	}
	globfree(&g);
	return total;
}

/*
 * Whether this process can register for membarrier()'s private expedited
 * command, as the library does when it first creates or uses a pool
 * (idempotent). Without it (a seccomp filter refusing the system call, an
 * old kernel) the library never takes objects back from idle lcores
 * (doc/guide.md, Limitations): the checks that need that are skipped.
 */
static inline bool
sheaf_test_membarrier(void)
{
	return syscall(__NR_membarrier,
		MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

/*
 * Start EAL from argv, run the suite's cases in order, print one line per
 * case and a summary, and return the exit status.
 */
static inline int
sheaf_test_main(int argc, char **argv, const struct sheaf_test_suite *suite)
{
	unsigned int passed = 0, failed = 0, skipped = 0;
	const struct sheaf_test_case *tc;
	bool no_huge;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	no_huge = sheaf_test_has_arg(argc, argv, "--no-huge");
	if (!no_huge && sheaf_test_free_hugepages() == 0) {
		printf("%s: SKIP, no free hugepages\n", suite->name);
		return TEST_SKIPPED;
	}
	/* EAL refuses an lcore list naming CPUs the machine lacks. */
	if (sysconf(_SC_NPROCESSORS_ONLN) < (long)suite->min_lcores) {
		printf("%s: SKIP, %ld CPUs online, %u needed\n", suite->name,
			sysconf(_SC_NPROCESSORS_ONLN), suite->min_lcores);
		return TEST_SKIPPED;
	}
	if (rte_eal_init(argc, argv) < 0) {
		printf("%s: %s, EAL init failed: %s\n", suite->name,
			no_huge ? "FAIL" : "SKIP", rte_strerror(rte_errno));
		return no_huge ? EXIT_FAILURE : TEST_SKIPPED;
	}
	if (rte_lcore_count() < suite->min_lcores) {
		printf("%s: SKIP, %u lcores, %u needed\n", suite->name,
			rte_lcore_count(), suite->min_lcores);
		rte_eal_cleanup();
		return TEST_SKIPPED;
	}
	if (suite->setup != NULL && suite->setup() != TEST_SUCCESS) {
		printf("%s: FAIL, suite setup\n", suite->name);
		rte_eal_cleanup();
		return EXIT_FAILURE;
	}

	for (tc = suite->cases; tc->name != NULL; tc++) {
		printf("  %s ...\n", tc->name);
		ret = tc->setup != NULL ? tc->setup() : TEST_SUCCESS;
		if (ret == TEST_SUCCESS)
			ret = tc->run();
		else if (ret != TEST_SKIPPED)
			printf("    setup failed\n");
		if (tc->teardown != NULL)
			tc->teardown();
		if (ret == TEST_SUCCESS) {
			passed++;
			printf("  %s: PASS\n", tc->name);
		} else if (ret == TEST_SKIPPED) {
			skipped++;
			printf("  %s: SKIP\n", tc->name);
		} else {
			failed++;
			printf("  %s: FAIL\n", tc->name);
		}
	}

	if (suite->teardown != NULL)
		suite->teardown();
	printf("%s: %u passed, %u failed, %u skipped\n", suite->name,
		passed, failed, skipped);
	rte_eal_cleanup();
	if (failed > 0)
		return EXIT_FAILURE;
	return passed > 0 ? EXIT_SUCCESS : TEST_SKIPPED;
}

/*
 * main() of a test with modes: without "-- MODE [ARG]" on the command
 * line the suite runs (sheaf_test_main()); with it, EAL starts from the
 * arguments before "--" and run(MODE, ARG or "") gives the exit status.
 */
static inline int
sheaf_test_main_modes(int argc, char **argv,
	const struct sheaf_test_suite *suite,
	int (*run)(const char *mode, const char *arg))
{
	int i, ret;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0 && i + 1 < argc)
			break;
	if (i == argc)
		return sheaf_test_main(argc, argv, suite);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (rte_eal_init(i, argv) < 0) {
		printf("SKIP: EAL init failed: %s\n", rte_strerror(rte_errno));
		return TEST_SKIPPED;
	}
	ret = run(argv[i + 1], i + 2 < argc ? argv[i + 2] : "");
	rte_eal_cleanup();
	return ret;
}

/** Every object of a pool, by address, sorted. */
struct sheaf_test_objs {
	uintptr_t *addr;
	unsigned int n;
};

static inline void
sheaf_test_objs_add(struct rte_mempool *mp __rte_unused, void *arg,
	void *obj, unsigned int idx __rte_unused)
{
	struct sheaf_test_objs *t = arg;

	t->addr[t->n++] = (uintptr_t)obj;
}

static inline int
sheaf_test_addr_cmp(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a;
	uintptr_t y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/* Build the table of mp's objects; release it with sheaf_test_objs_free. */
static inline int
sheaf_test_objs_build(struct rte_mempool *mp, struct sheaf_test_objs *t)
{
	uint32_t iterated;

	t->n = 0;
	t->addr = calloc(mp->size + 1, sizeof(*t->addr));
	RTE_TEST_ASSERT_NOT_NULL(t->addr, "object table: out of memory");
	iterated = rte_mempool_obj_iter(mp, sheaf_test_objs_add, t);
	SHEAF_TEST_ASSERT_INT(iterated, mp->size, "objects iterated");
	SHEAF_TEST_ASSERT_INT(t->n, mp->size, "objects in table");
	qsort(t->addr, t->n, sizeof(*t->addr), sheaf_test_addr_cmp);
	return TEST_SUCCESS;
}

static inline void
sheaf_test_objs_free(struct sheaf_test_objs *t)
{
	free(t->addr);
	t->addr = NULL;
	t->n = 0;
}

/* Index of obj in the table, or -1 when it is not one of the pool's. */
static inline int
sheaf_test_objs_index(const struct sheaf_test_objs *t, const void *obj)
{
	uintptr_t key = (uintptr_t)obj;
	unsigned int lo = 0, hi = t->n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (t->addr[mid] == key)
			return (int)mid;
		if (t->addr[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* objs[0..n) must be n distinct objects of the table. */
static inline int
sheaf_test_objs_check(const struct sheaf_test_objs *t, void * const *objs,
	unsigned int n)
{
	uint8_t *seen = calloc(t->n + 1, 1);
	unsigned int i;
	int ret = TEST_SUCCESS;

	RTE_TEST_ASSERT_NOT_NULL(seen, "out of memory");
	for (i = 0; i < n; i++) {
		int idx = sheaf_test_objs_index(t, objs[i]);

		if (idx < 0) {
			printf("    FAILED object %u of %u (%p) is not a pool object\n",
				i, n, objs[i]);
			ret = TEST_FAILED;
			break;
		}
		if (seen[idx]) {
			printf("    FAILED object %u of %u (%p) handed out twice\n",
				i, n, objs[i]);
			ret = TEST_FAILED;
			break;
		}
		seen[idx] = 1;
	}
	free(seen);
	return ret;
}

/* Objects held in DPDK's own per-lcore caches: the sheaf tiers miss them. */
static inline unsigned int
sheaf_test_cached(const struct rte_mempool *mp)
{
	unsigned int lcore, n = 0;

	if (mp->cache_size == 0)
		return 0;
	for (lcore = 0; lcore < RTE_MAX_LCORE; lcore++)
		n += mp->local_cache[lcore].len;
	return n;
}

/*
 * Every object the caller does not hold must be somewhere the pool
 * accounts for. Exact only while no thread uses the pool.
 */
static inline int
sheaf_test_check_placement(const struct rte_mempool *mp, unsigned int held)
{
	struct rte_sheaf_info info;
	unsigned int cached = sheaf_test_cached(mp);
	int stranded;

	memset(&info, 0, sizeof(info));
	RTE_TEST_ASSERT_SUCCESS(rte_sheaf_info_get(mp, &info),
		"info get: got %d, expected 0", rte_errno);
	SHEAF_TEST_ASSERT_INT(info.size, mp->size, "info.size");
	SHEAF_TEST_ASSERT_INT(rte_mempool_avail_count(mp), mp->size - held,
		"avail count");
	stranded = rte_sheaf_stranded_max(mp);
	RTE_TEST_ASSERT(stranded >= 0 && info.in_lcores <= (unsigned int)stranded,
		"in_lcores: got %u, expected <= stranded max %d",
		info.in_lcores, stranded);
	if (info.in_slabs + info.in_barns + info.in_lcores + cached !=
			mp->size - held) {
		printf("    FAILED placement: slabs %u + barns %u + lcores %u + DPDK caches %u = %u, expected %u (size %u - held %u)\n",
			info.in_slabs, info.in_barns, info.in_lcores, cached,
			info.in_slabs + info.in_barns + info.in_lcores + cached,
			mp->size - held, mp->size, held);
		return TEST_FAILED;
	}
	return TEST_SUCCESS;
}

/* A small, fast generator; each thread owns its state. */
static inline uint64_t
sheaf_test_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

#endif /* _SHEAF_TEST_H_ */
