/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Telemetry: /sheaf/list, /sheaf/info,<pool> and /sheaf/stats,<pool> on
 * EAL's telemetry socket (dpdk-telemetry.py). The kernel counterpart is
 * /sys/kernel/slab/<cache>/ and its per-stat files under
 * CONFIG_SLUB_STATS: the same placement and counters, read-only and racy
 * while the pool is in use.
 *
 * The commands run on EAL's telemetry thread, which has no lcore id: they
 * only read (rte_sheaf_info_get() and rte_sheaf_stats_get() are for any
 * thread). Each command finds its pool on DPDK's list of mempools and
 * reads it under the list's tailq lock (sheaf_telemetry_walk()).
 */

#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal_memconfig.h>
#include <rte_mempool.h>
#include <rte_tailq.h>
#include <rte_telemetry.h>
#include <rte_version.h>

#include "sheaf_pool.h"
#include "sheaf_slot.h"
#include "sheaf_stats.h"

/* DPDK 23.03 added rte_tel_data_add_dict_uint(); 23.11 marks the _u64
 * name deprecated (an error under -Werror) and 25.11 drops it.
 */
#if RTE_VERSION >= RTE_VERSION_NUM(23, 3, 0, 0)
#define sheaf_tel_add_u64 rte_tel_data_add_dict_uint
#else
#define sheaf_tel_add_u64 rte_tel_data_add_dict_u64
#endif

/*
 * fn on each mempool of DPDK's list, under the list's tailq lock (read):
 * rte_mempool_free() unlinks a pool under that lock (write) before it
 * frees anything, so a pool met here stays whole until fn returns.
 * Not rte_mempool_walk(): it holds the mempool lock, which
 * rte_mempool_free() does not take (DPDK 22.11 to 26.07). No other
 * lock is taken under this one (DPDK's create takes the mempool lock,
 * then this one).
 */
static void
sheaf_telemetry_walk(void (*fn)(struct rte_mempool *mp, void *arg),
	void *arg)
{
	struct rte_tailq_head *head = rte_eal_tailq_lookup("RTE_MEMPOOL");
	struct rte_tailq_entry *te;

	if (head == NULL)
		return;
	rte_mcfg_tailq_read_lock();
	TAILQ_FOREACH(te, &head->tailq_head, next)
		fn(te->data, arg);
	rte_mcfg_tailq_read_unlock();
}

static void
sheaf_telemetry_list_one(struct rte_mempool *mp, void *arg)
{
	if (sheaf_pool_valid(mp))
		rte_tel_data_add_array_string(arg, mp->name);
}

static int
sheaf_telemetry_list(const char *cmd __rte_unused,
	const char *params __rte_unused, struct rte_tel_data *d)
{
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	sheaf_telemetry_walk(sheaf_telemetry_list_one, d);
	return 0;
}

/* A per-pool command: the pool's name and what to put in the reply. */
struct sheaf_telemetry_req {
	const char *name;
	struct rte_tel_data *d;
	void (*fill)(const struct rte_mempool *mp, struct rte_tel_data *d);
	bool found;
};

static void
sheaf_telemetry_pool_one(struct rte_mempool *mp, void *arg)
{
	struct sheaf_telemetry_req *req = arg;

	if (req->found || strcmp(mp->name, req->name) != 0 ||
			!sheaf_pool_valid(mp))
		return;
	req->found = true;
	req->fill(mp, req->d);
}

/* Run req on the sheaf pool named by params: -EINVAL when there is none. */
static int
sheaf_telemetry_pool_cmd(const char *params, struct rte_tel_data *d,
	void (*fill)(const struct rte_mempool *mp, struct rte_tel_data *d))
{
	struct sheaf_telemetry_req req = {
		.name = params, .d = d, .fill = fill, .found = false,
	};

	if (params == NULL || params[0] == '\0')
		return -EINVAL;
	rte_tel_data_start_dict(d);
	sheaf_telemetry_walk(sheaf_telemetry_pool_one, &req);
	return req.found ? 0 : -EINVAL;
}

/*
 * "lcore_capacity": each claimed lcore's adapted capacity, by lcore id
 * (rte_sheaf_lcore_capacity()).
 */
static void
sheaf_telemetry_capacities(const struct rte_mempool *mp,
	struct rte_tel_data *d)
{
	const struct sheaf_pool *sp = sheaf_pool_of(mp);
	struct rte_tel_data *c = rte_tel_data_alloc();
	char key[16];
	unsigned int i;

	if (c == NULL)
		return;
	rte_tel_data_start_dict(c);
	for (i = 0; i < RTE_MAX_LCORE; i++) {
		if (!sheaf_slot_claimed(sp, i))
			continue;
		snprintf(key, sizeof(key), "%u", i);
		sheaf_tel_add_u64(c, key, rte_sheaf_lcore_capacity(mp, i));
	}
	if (rte_tel_data_add_dict_container(d, "lcore_capacity", c, 0) != 0)
		rte_tel_data_free(c);
}

static void
sheaf_telemetry_info_fill(const struct rte_mempool *mp,
	struct rte_tel_data *d)
{
	struct rte_sheaf_info in;
	const char *name;
	unsigned int k;
	int stranded;
	uint32_t v;

	if (rte_sheaf_info_get(mp, &in) < 0)
		return;
	stranded = rte_sheaf_stranded_max(mp);
	rte_tel_data_add_dict_string(d, "name", mp->name);
	sheaf_tel_add_u64(d, "elt_size", mp->elt_size);
	sheaf_tel_add_u64(d, "cache_size", mp->cache_size);
	sheaf_tel_add_u64(d, "stranded_max", stranded < 0 ? 0 : stranded);
	/* Configuration, sizes and where the objects are. */
	for (k = 0; (name = sheaf_info_field(&in, k, &v)) != NULL; k++)
		sheaf_tel_add_u64(d, name, v);
	/* DPDK's view: sheaf tiers plus its own per-lcore caches. */
	sheaf_tel_add_u64(d, "avail", rte_mempool_avail_count(mp));
	sheaf_tel_add_u64(d, "in_use", rte_mempool_in_use_count(mp));
	sheaf_telemetry_capacities(mp, d);
}

static int
sheaf_telemetry_info(const char *cmd __rte_unused, const char *params,
	struct rte_tel_data *d)
{
	return sheaf_telemetry_pool_cmd(params, d, sheaf_telemetry_info_fill);
}

static void
sheaf_telemetry_stats_fill(const struct rte_mempool *mp,
	struct rte_tel_data *d)
{
	struct rte_sheaf_stats st;
	unsigned int k;

	if (rte_sheaf_stats_get(mp, &st) < 0)
		return;
	for (k = 0; k < RTE_SHEAF_STAT_MAX; k++)
		sheaf_tel_add_u64(d, rte_sheaf_stat_name(k), st.count[k]);
}

static int
sheaf_telemetry_stats(const char *cmd __rte_unused, const char *params,
	struct rte_tel_data *d)
{
	return sheaf_telemetry_pool_cmd(params, d, sheaf_telemetry_stats_fill);
}

RTE_INIT(sheaf_telemetry_register)
{
	rte_telemetry_register_cmd("/sheaf/list", sheaf_telemetry_list,
		"Names of the sheaf mempools. Takes no parameters");
	rte_telemetry_register_cmd("/sheaf/info", sheaf_telemetry_info,
		"Sheaf pool configuration and object placement. Parameters: pool name");
	rte_telemetry_register_cmd("/sheaf/stats", sheaf_telemetry_stats,
		"Sheaf pool statistics, summed over lcores. Parameters: pool name");
}
