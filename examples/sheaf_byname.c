/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Example: a mempool and an mbuf pool driven by sheaf through the plain
 * rte_mempool API, by ops name. It calls no rte_sheaf_* function, so it
 * needs librte_sheaf kept at link time (libsheaf.pc does that) or the
 * plugin loaded by EAL (-d, or DPDK's plugin directory).
 *
 * Usage: sheaf_byname [EAL options], e.g. --no-huge -m 256 -l 0
 * Exit: 0 when both pools work, 1 otherwise (an argument EAL does not
 * take included).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

/* 8< doc/guide.md "In code" */
#include <rte_mempool.h>
#include <rte_sheaf.h>

static struct rte_sheaf_config obj_cfg = {
	.capacity = 32,
	.barn_max_full = 16,
	.barn_max_empty = 16,
};

static struct rte_mempool *
obj_pool_create(void)
{
	struct rte_mempool *mp;
	int ret;

	mp = rte_mempool_create_empty("objs", 8191, 256, 0, 0,
		rte_socket_id(), 0);
	if (mp == NULL)
		return NULL;
	/* obj_cfg is read by the first populate call. */
	ret = rte_mempool_set_ops_byname(mp, RTE_SHEAF_OPS_NAME, &obj_cfg);
	if (ret == 0)
		ret = rte_mempool_populate_default(mp);
	if (ret < 0) {
		rte_mempool_free(mp);
		/* Set here: set_ops_byname() leaves rte_errno as it was. */
		rte_errno = -ret;
		return NULL;
	}
	return mp;
}
/* >8 */

#define BURST 64

/* Take BURST objects, give them back, and check the pool is whole again. */
static int
pool_exercise(struct rte_mempool *mp)
{
	void *objs[BURST];
	unsigned int avail = rte_mempool_avail_count(mp);

	if (strcmp(rte_mempool_get_ops(mp->ops_index)->name,
			RTE_SHEAF_OPS_NAME) != 0) {
		printf("pool %s uses ops %s, expected " RTE_SHEAF_OPS_NAME "\n",
			mp->name, rte_mempool_get_ops(mp->ops_index)->name);
		return -1;
	}
	if (rte_mempool_get_bulk(mp, objs, BURST) != 0) {
		printf("pool %s: get of %d objects failed\n", mp->name, BURST);
		return -1;
	}
	rte_mempool_put_bulk(mp, objs, BURST);
	if (rte_mempool_avail_count(mp) != avail) {
		printf("pool %s: %u objects available, expected %u\n",
			mp->name, rte_mempool_avail_count(mp), avail);
		return -1;
	}
	printf("pool %s: ops %s, %u objects\n", mp->name,
		rte_mempool_get_ops(mp->ops_index)->name, mp->size);
	return 0;
}

int
main(int argc, char **argv)
{
	struct rte_mempool *mp;
	int ret = EXIT_FAILURE, eal_args;

	eal_args = rte_eal_init(argc, argv);
	if (eal_args < 0) {
		printf("EAL init failed: %s\n", rte_strerror(rte_errno));
		return EXIT_FAILURE;
	}
	if (eal_args + 1 < argc) { /* an argument EAL did not take */
		printf("usage: sheaf_byname [EAL options]\n");
		rte_eal_cleanup();
		return EXIT_FAILURE;
	}
	mp = obj_pool_create();
	if (mp == NULL) {
		printf("obj_pool_create: %s\n", rte_strerror(rte_errno));
		goto out;
	}
	if (pool_exercise(mp) != 0)
		goto out_free;
	rte_mempool_free(mp);

	mp = rte_pktmbuf_pool_create_by_ops("mbufs", 16383, 0, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id(), RTE_SHEAF_OPS_NAME);
	if (mp == NULL) {
		printf("rte_pktmbuf_pool_create_by_ops: %s\n",
			rte_strerror(rte_errno));
		goto out;
	}
	if (pool_exercise(mp) == 0) {
		printf("sheaf_byname: OK\n");
		ret = EXIT_SUCCESS;
	}
out_free:
	rte_mempool_free(mp);
out:
	rte_eal_cleanup();
	return ret;
}
