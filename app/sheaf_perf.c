/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * sheaf-perf: options, pools and the measurement runner.
 *
 * For each scenario, every ops spec gets one pool, kept across rounds.
 * Round r measures every entry once, in a fixed order (or rotated with
 * --rotate), so each round compares entries under the same machine
 * conditions. After every measurement the pool must be whole again:
 * rte_mempool_avail_count() == size once all lcores are done.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pause.h>
#include <rte_ring.h>
#include <rte_version.h>

#include "sheaf_perf.h"

#define EXIT_USAGE 2

/* Retries of rte_sheaf_flush() while lcores report a pending flush. */
#define PERF_FLUSH_TRIES 3

static const char * const default_ops[] = {
	"sheaf:0", "ring_mp_mc:256", "ring_mp_mc:0", "stack:0", "bucket:0",
};
#define DEFAULT_BASELINE "ring_mp_mc:256"

/* State of one scenario's run, owned by main. */
struct perf_ctx {
	const struct perf_opts *o;
	const struct perf_scenario *sc;
	unsigned int sc_idx;
	struct perf_worker *workers;  /* one per lcore taking part */
	unsigned int nb_workers;
	struct perf_worker *main_worker; /* NULL: main only keeps time */
	struct rte_ring **rings;      /* one per pair */
	unsigned int nb_rings;
	struct perf_sync *sync;
};

static void
usage(FILE *f, const char *prg)
{
	unsigned int i;

	fprintf(f,
"Usage: %s [EAL options] -- [options]\n"
"Compare mempool ops side by side, interleaved round by round.\n"
"\n"
"  --scenario LIST   scenarios, comma separated, or 'all' (default all):\n",
		prg);
	for (i = 0; i < perf_nb_scenarios; i++)
		fprintf(f, "                      %-9s %s\n",
			perf_scenarios[i].name, perf_scenarios[i].help);
	fprintf(f,
"  --ops LIST        ops specs NAME:CACHE[:CAPACITY], comma separated;\n"
"                    NAME sheaf+validate: sheaf with RTE_SHEAF_F_VALIDATE;\n"
"                    CAPACITY sets the sheaf capacity (sheaf ops only)\n"
"                    (default sheaf:0,ring_mp_mc:256,ring_mp_mc:0,stack:0,bucket:0)\n"
"  --baseline SPEC   ops spec the ratios refer to, added to the list if\n"
"                    missing (default " DEFAULT_BASELINE ")\n"
"  --rounds N        measurements of each entry (default 7, max %u)\n"
"  --seconds S       length of one measurement (default 0.25)\n"
"  --warmup S        unrecorded run of each entry first (default 0.05)\n"
"  --bulk N          objects per get and per put (default 32, max %u)\n"
"  --window N        bulks each churn lcore holds (default 4, max %u)\n"
"  --obj-size N      object size in bytes, plain pools (default 2048)\n"
"  --pool-size N     objects per pool (default 16383)\n"
"  --data-room N     mbuf data room in bytes (default %u)\n"
"  --ring-size N     pipeline ring size, a power of 2 (default 1024)\n"
"  --lcores LIST     lcores taking part, e.g. 0-3 (default all EAL\n"
"                    lcores, main first); pipeline pairs them as\n"
"                    consumer,producer,consumer,producer...\n"
"  --stall-ms N      gets failing this long fail the entry (default 100)\n"
"  --touch           write each object once after each get\n"
"  --rotate          start round r at entry r instead of the first\n"
"  --csv FILE        write every round and the summary as CSV\n"
"  --json FILE       write every round and the summary as JSON\n"
"  --sheaf-dump      rte_sheaf_dump() each sheaf pool after its scenario\n"
"  --strict          exit 1 when an entry failed (default: only when a\n"
"                    pool lost objects)\n"
"  --quiet           no progress line on stderr\n"
"  --list            list scenarios and registered ops, then exit\n"
"  --help            this text\n"
"\n"
"Exit: 0 done, 1 a pool not whole (or --strict and a failure), 2 usage.\n",
		PERF_ROUNDS_MAX, PERF_BULK_MAX, PERF_WINDOW_MAX,
		RTE_MBUF_DEFAULT_BUF_SIZE);
}

static int
parse_uint(const char *arg, const char *name, unsigned long min,
	unsigned long max, unsigned int *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 0);
	if (errno != 0 || end == arg || *end != '\0' || arg[0] == '-' ||
			v < min || v > max) {
		fprintf(stderr, "%s: '%s' is not an integer in [%lu, %lu]\n",
			name, arg, min, max);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

static int
parse_seconds(const char *arg, const char *name, double min, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno != 0 || end == arg || *end != '\0' || !isfinite(v) ||
			v < min || v > PERF_SECONDS_MAX) {
		fprintf(stderr, "%s: '%s' is not a number of seconds in [%g, %g]\n",
			name, arg, min, PERF_SECONDS_MAX);
		return -1;
	}
	*out = v;
	return 0;
}

/* "name:cache[:capacity]" */
static int
parse_ops_spec(const char *arg, struct perf_ops_spec *spec)
{
	char buf[128], *name, *cache, *cap;
	unsigned int v;

	memset(spec, 0, sizeof(*spec));
	if (strlen(arg) >= sizeof(buf)) {
		fprintf(stderr, "--ops: '%s' is too long\n", arg);
		return -1;
	}
	strcpy(buf, arg);
	name = buf;
	cache = strchr(name, ':');
	if (cache == NULL) {
		fprintf(stderr, "--ops: '%s' is not NAME:CACHE[:CAPACITY]\n",
			arg);
		return -1;
	}
	*cache++ = '\0';
	cap = strchr(cache, ':');
	if (cap != NULL)
		*cap++ = '\0';
	/* "sheaf+validate": the sheaf ops with RTE_SHEAF_F_VALIDATE. */
	if (strcmp(name, RTE_SHEAF_OPS_NAME "+validate") == 0) {
		name[strlen(RTE_SHEAF_OPS_NAME)] = '\0';
		spec->sheaf.flags = RTE_SHEAF_F_VALIDATE;
	}
	if (name[0] == '\0' || strlen(name) >= sizeof(spec->name)) {
		fprintf(stderr, "--ops: bad ops name in '%s'\n", arg);
		return -1;
	}
	strcpy(spec->name, name);
	if (parse_uint(cache, "--ops cache", 0, RTE_MEMPOOL_CACHE_MAX_SIZE,
			&spec->cache) != 0)
		return -1;
	snprintf(spec->label, sizeof(spec->label), "%s%s", spec->name,
		spec->sheaf.flags != 0 ? "+validate" : "");
	if (cap != NULL) {
		if (strcmp(name, RTE_SHEAF_OPS_NAME) != 0) {
			fprintf(stderr, "--ops: a capacity is for %s only: '%s'\n",
				RTE_SHEAF_OPS_NAME, arg);
			return -1;
		}
		if (parse_uint(cap, "--ops capacity", 1,
				RTE_SHEAF_CAPACITY_MAX, &v) != 0)
			return -1;
		spec->sheaf.capacity = v;
		snprintf(spec->label, sizeof(spec->label), "%s%s/cap%u",
			spec->name, spec->sheaf.flags != 0 ? "+validate" : "",
			v);
	}
	return 0;
}

static bool
ops_spec_equal(const struct perf_ops_spec *a, const struct perf_ops_spec *b)
{
	return strcmp(a->name, b->name) == 0 && a->cache == b->cache &&
		a->sheaf.capacity == b->sheaf.capacity &&
		a->sheaf.flags == b->sheaf.flags;
}

static int
parse_ops_list(const char *arg, struct perf_opts *o)
{
	char buf[1024], *tok, *save = NULL;

	if (strlen(arg) >= sizeof(buf)) {
		fprintf(stderr, "--ops: list too long\n");
		return -1;
	}
	strcpy(buf, arg);
	o->nb_ops = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
			tok = strtok_r(NULL, ",", &save)) {
		if (o->nb_ops == PERF_OPS_MAX) {
			fprintf(stderr, "--ops: more than %u specs\n",
				PERF_OPS_MAX);
			return -1;
		}
		if (parse_ops_spec(tok, &o->ops[o->nb_ops]) != 0)
			return -1;
		o->nb_ops++;
	}
	if (o->nb_ops == 0) {
		fprintf(stderr, "--ops: empty list\n");
		return -1;
	}
	return 0;
}

static int
parse_scenarios(const char *arg, struct perf_opts *o)
{
	char buf[256], *tok, *save = NULL;
	unsigned int i, j;

	if (strlen(arg) >= sizeof(buf)) {
		fprintf(stderr, "--scenario: list too long\n");
		return -1;
	}
	strcpy(buf, arg);
	o->nb_scenarios = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
			tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "all") == 0) {
			for (i = 0; i < perf_nb_scenarios; i++)
				o->scenarios[i] = i;
			o->nb_scenarios = perf_nb_scenarios;
			continue;
		}
		for (i = 0; i < perf_nb_scenarios; i++)
			if (strcmp(tok, perf_scenarios[i].name) == 0)
				break;
		if (i == perf_nb_scenarios) {
			fprintf(stderr, "--scenario: unknown '%s'\n", tok);
			return -1;
		}
		for (j = 0; j < o->nb_scenarios; j++)
			if (o->scenarios[j] == i)
				break;
		if (j < o->nb_scenarios)
			continue;
		if (o->nb_scenarios == RTE_DIM(o->scenarios)) {
			fprintf(stderr, "--scenario: too many\n");
			return -1;
		}
		o->scenarios[o->nb_scenarios++] = i;
	}
	if (o->nb_scenarios == 0) {
		fprintf(stderr, "--scenario: empty list\n");
		return -1;
	}
	return 0;
}

enum {
	OPT_SCENARIO = 256, OPT_OPS, OPT_BASELINE, OPT_ROUNDS, OPT_SECONDS,
	OPT_WARMUP, OPT_BULK, OPT_WINDOW, OPT_OBJ_SIZE, OPT_POOL_SIZE,
	OPT_DATA_ROOM, OPT_RING_SIZE, OPT_LCORES, OPT_STALL_MS, OPT_TOUCH,
	OPT_ROTATE, OPT_CSV, OPT_JSON, OPT_SHEAF_DUMP, OPT_STRICT, OPT_QUIET,
	OPT_LIST, OPT_HELP,
};

static const struct option long_opts[] = {
	{ "scenario", required_argument, NULL, OPT_SCENARIO },
	{ "ops", required_argument, NULL, OPT_OPS },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "rounds", required_argument, NULL, OPT_ROUNDS },
	{ "seconds", required_argument, NULL, OPT_SECONDS },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "bulk", required_argument, NULL, OPT_BULK },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "obj-size", required_argument, NULL, OPT_OBJ_SIZE },
	{ "pool-size", required_argument, NULL, OPT_POOL_SIZE },
	{ "data-room", required_argument, NULL, OPT_DATA_ROOM },
	{ "ring-size", required_argument, NULL, OPT_RING_SIZE },
	{ "lcores", required_argument, NULL, OPT_LCORES },
	{ "stall-ms", required_argument, NULL, OPT_STALL_MS },
	{ "touch", no_argument, NULL, OPT_TOUCH },
	{ "rotate", no_argument, NULL, OPT_ROTATE },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "sheaf-dump", no_argument, NULL, OPT_SHEAF_DUMP },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static bool ops_user_given;
static bool scenarios_user_given;

/*
 * Parses the app options (after "--"). Runs before EAL init, so a bad
 * option costs no EAL start. Returns 0, 1 for --help, or -1.
 */
static int
parse_args(int argc, char **argv, struct perf_opts *o)
{
	struct perf_ops_spec base;
	const char *baseline = DEFAULT_BASELINE;
	unsigned int i;
	int opt, rc = 0;

	memset(o, 0, sizeof(*o));
	o->rounds = 7;
	o->seconds = 0.25;
	o->warmup = 0.05;
	o->bulk = 32;
	o->window = 4;
	o->obj_size = 2048;
	o->pool_size = 16383;
	o->data_room = RTE_MBUF_DEFAULT_BUF_SIZE;
	o->ring_size = 1024;
	o->stall_ms = 100;
	for (i = 0; i < perf_nb_scenarios; i++)
		o->scenarios[i] = i;
	o->nb_scenarios = perf_nb_scenarios;
	for (i = 0; i < RTE_DIM(default_ops); i++)
		if (parse_ops_spec(default_ops[i], &o->ops[i]) != 0)
			return -1;
	o->nb_ops = RTE_DIM(default_ops);

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		switch (opt) {
		case OPT_SCENARIO:
			rc = parse_scenarios(optarg, o);
			scenarios_user_given = true;
			break;
		case OPT_OPS:
			rc = parse_ops_list(optarg, o);
			ops_user_given = true;
			break;
		case OPT_BASELINE:
			baseline = optarg;
			break;
		case OPT_ROUNDS:
			rc = parse_uint(optarg, "--rounds", 1, PERF_ROUNDS_MAX,
				&o->rounds);
			break;
		case OPT_SECONDS:
			rc = parse_seconds(optarg, "--seconds", 0.001,
				&o->seconds);
			break;
		case OPT_WARMUP:
			rc = parse_seconds(optarg, "--warmup", 0, &o->warmup);
			break;
		case OPT_BULK:
			rc = parse_uint(optarg, "--bulk", 1, PERF_BULK_MAX,
				&o->bulk);
			break;
		case OPT_WINDOW:
			rc = parse_uint(optarg, "--window", 0, PERF_WINDOW_MAX,
				&o->window);
			break;
		case OPT_OBJ_SIZE:
			rc = parse_uint(optarg, "--obj-size", 1,
				PERF_OBJ_SIZE_MAX,
				&o->obj_size);
			break;
		case OPT_POOL_SIZE:
			rc = parse_uint(optarg, "--pool-size", 1,
				PERF_POOL_SIZE_MAX,
				&o->pool_size);
			break;
		case OPT_DATA_ROOM:
			rc = parse_uint(optarg, "--data-room",
				RTE_PKTMBUF_HEADROOM, UINT16_MAX, &o->data_room);
			break;
		case OPT_RING_SIZE:
			rc = parse_uint(optarg, "--ring-size", 2,
				PERF_RING_SIZE_MAX, &o->ring_size);
			if (rc == 0 && !rte_is_power_of_2(o->ring_size)) {
				fprintf(stderr, "--ring-size: %u is not a power of 2\n",
					o->ring_size);
				rc = -1;
			}
			break;
		case OPT_LCORES:
			o->lcores_arg = optarg;
			break;
		case OPT_STALL_MS:
			rc = parse_uint(optarg, "--stall-ms", 1,
				PERF_STALL_MS_MAX,
				&o->stall_ms);
			break;
		case OPT_TOUCH:
			o->touch = true;
			break;
		case OPT_ROTATE:
			o->rotate = true;
			break;
		case OPT_CSV:
			o->csv = optarg;
			break;
		case OPT_JSON:
			o->json = optarg;
			break;
		case OPT_SHEAF_DUMP:
			o->sheaf_dump = true;
			break;
		case OPT_STRICT:
			o->strict = true;
			break;
		case OPT_QUIET:
			o->quiet = true;
			break;
		case OPT_LIST:
			o->list = true;
			break;
		case OPT_HELP:
			return 1;
		default:
			if (optopt >= OPT_SCENARIO && optopt <= OPT_HELP)
				fprintf(stderr, "option --%s: bad or missing argument\n",
					long_opts[optopt - OPT_SCENARIO].name);
			else
				fprintf(stderr, "unknown option '%s'\n",
					argv[optind - 1]);
			return -1;
		}
		if (rc != 0)
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "unexpected argument '%s'\n", argv[optind]);
		return -1;
	}

	if (parse_ops_spec(baseline, &base) != 0)
		return -1;
	for (i = 0; i < o->nb_ops; i++)
		if (ops_spec_equal(&o->ops[i], &base))
			break;
	if (i == o->nb_ops) {
		if (o->nb_ops == PERF_OPS_MAX) {
			fprintf(stderr, "--ops: no room for the baseline\n");
			return -1;
		}
		memmove(&o->ops[1], &o->ops[0], o->nb_ops * sizeof(o->ops[0]));
		o->ops[0] = base;
		o->nb_ops++;
		i = 0;
		fprintf(stderr, "note: baseline %s:%u added to --ops\n",
			base.name, base.cache);
	}
	o->baseline = i;
	return 0;
}

static int
add_lcore(struct perf_opts *o, unsigned long id)
{
	unsigned int i;

	if (id >= RTE_MAX_LCORE || !rte_lcore_is_enabled((unsigned int)id)) {
		fprintf(stderr, "--lcores: lcore %lu is not an EAL lcore (see -l)\n",
			id);
		return -1;
	}
	for (i = 0; i < o->nb_lcores; i++)
		if (o->lcores[i] == id) {
			fprintf(stderr, "--lcores: lcore %lu given twice\n", id);
			return -1;
		}
	o->lcores[o->nb_lcores++] = (unsigned int)id;
	return 0;
}

/* After EAL init: "0-3,5", in the order written. */
static int
resolve_lcores(struct perf_opts *o)
{
	unsigned long a, b;
	const char *p;
	unsigned int id;
	char *end;

	o->nb_lcores = 0;
	if (o->lcores_arg == NULL) {
		add_lcore(o, rte_get_main_lcore());
		RTE_LCORE_FOREACH_WORKER(id)
			add_lcore(o, id);
		return 0;
	}
	p = o->lcores_arg;
	for (;;) {
		errno = 0;
		a = strtoul(p, &end, 10);
		if (errno != 0 || end == p || *p == '-')
			goto bad;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtoul(p, &end, 10);
			if (errno != 0 || end == p || *p == '-' || b < a)
				goto bad;
		}
		for (; a <= b; a++)
			if (add_lcore(o, a) != 0)
				return -1;
		if (*end == '\0')
			break;
		if (*end != ',')
			goto bad;
		p = end + 1;
	}
	return 0;
bad:
	fprintf(stderr, "--lcores: '%s' is not a list like 0-3,5\n",
		o->lcores_arg);
	return -1;
}

static bool
ops_registered(const char *name)
{
	unsigned int i;

	for (i = 0; i < rte_mempool_ops_table.num_ops; i++)
		if (strcmp(rte_mempool_ops_table.ops[i].name, name) == 0)
			return true;
	return false;
}

static void
list_ops(FILE *f)
{
	unsigned int i;

	fprintf(f, "registered mempool ops:");
	for (i = 0; i < rte_mempool_ops_table.num_ops; i++)
		fprintf(f, " %s", rte_mempool_ops_table.ops[i].name);
	fprintf(f, "\n");
}

static bool
entry_is_sheaf(const struct perf_entry *e)
{
	return e->ops != NULL && strcmp(e->ops->name, RTE_SHEAF_OPS_NAME) == 0;
}

static struct rte_mempool *
pool_create(const struct perf_ctx *c, unsigned int idx,
	const struct perf_ops_spec *spec, char *err, size_t len)
{
	const struct perf_opts *o = c->o;
	bool sheaf = strcmp(spec->name, RTE_SHEAF_OPS_NAME) == 0;
	unsigned int size = c->sc->pool_size != NULL ? c->sc->pool_size(o) :
		o->pool_size;
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *mp;
	int ret;

	snprintf(name, sizeof(name), "perf%u_%u", c->sc_idx, idx);
	if (!ops_registered(spec->name)) {
		snprintf(err, len, "ops %s not registered", spec->name);
		return NULL;
	}
	if (c->sc->pool == PERF_POOL_MBUF) {
		if (sheaf && (spec->sheaf.capacity != 0 ||
				spec->sheaf.flags != 0))
			mp = rte_sheaf_pktmbuf_pool_create(name, size,
				spec->cache, 0, (uint16_t)o->data_room,
				SOCKET_ID_ANY, &spec->sheaf);
		else
			mp = rte_pktmbuf_pool_create_by_ops(name, size,
				spec->cache, 0, (uint16_t)o->data_room,
				SOCKET_ID_ANY, spec->name);
		if (mp == NULL)
			snprintf(err, len, "pool create: %s",
				rte_strerror(rte_errno));
		return mp;
	}

	mp = rte_mempool_create_empty(name, size, o->obj_size,
		spec->cache, 0, SOCKET_ID_ANY, 0);
	if (mp == NULL) {
		snprintf(err, len, "pool create: %s", rte_strerror(rte_errno));
		return NULL;
	}
	/* The sheaf config is read at populate; spec outlives the pool. */
	ret = rte_mempool_set_ops_byname(mp, spec->name,
		sheaf ? (void *)(uintptr_t)&spec->sheaf : NULL);
	if (ret != 0) {
		snprintf(err, len, "set ops: %s", rte_strerror(-ret));
		goto fail;
	}
	ret = rte_mempool_populate_default(mp);
	if (ret < 0) {
		snprintf(err, len, "populate: %s", rte_strerror(-ret));
		goto fail;
	}
	if ((unsigned int)ret != size) {
		snprintf(err, len, "populate: %d of %u objects", ret, size);
		goto fail;
	}
	return mp;
fail:
	rte_mempool_free(mp);
	return NULL;
}

/*
 * Whole: every object is available again. Sheaf lcore sheaves count as
 * available when quiet; a flush is the fallback should they not.
 */
static bool
pool_whole(const struct perf_entry *e, unsigned int *avail)
{
	struct rte_mempool *mp = e->mp;
	unsigned int i;

	*avail = rte_mempool_avail_count(mp);
	for (i = 0; i < PERF_FLUSH_TRIES && *avail != mp->size &&
			entry_is_sheaf(e); i++) {
		int pending = rte_sheaf_flush(mp);

		*avail = rte_mempool_avail_count(mp);
		if (pending <= 0)
			break;
	}
	return *avail == mp->size;
}

static int
perf_lcore_run(void *arg)
{
	struct perf_worker *w = arg;

	w->sc->body(w);
	return 0;
}

static void
measure(struct perf_ctx *c, struct perf_entry *e, double seconds,
	struct perf_sample *s)
{
	const uint64_t hz = rte_get_tsc_hz();
	struct perf_sync *sync = c->sync;
	uint64_t t0 = UINT64_MAX, t1 = 0;
	unsigned int i, nb_remote = 0;
	const char *reason = NULL;
	struct perf_worker *w;
	int ret;

	memset(s, 0, sizeof(*s));
	memset(sync, 0, sizeof(*sync));
	sync->stall = (uint64_t)c->o->stall_ms * hz / 1000;
	for (i = 0; i < c->nb_workers; i++) {
		w = &c->workers[i];
		w->mp = e->mp;
		w->priv = e->priv;
		w->done = 0;
		w->objects = 0;
		w->t_start = 0;
		w->t_end = 0;
		w->get_fail = 0;
		w->rearm_partial = 0;
		w->reason[0] = '\0';
	}

	for (i = 0; i < c->nb_workers; i++) {
		w = &c->workers[i];
		if (w == c->main_worker)
			continue;
		ret = rte_eal_remote_launch(perf_lcore_run, w, w->lcore_id);
		if (ret != 0) {
			snprintf(w->reason, sizeof(w->reason),
				"launch on lcore %u: %s", w->lcore_id,
				rte_strerror(-ret));
			/* Release: nothing comes from it, its consumer
			 * may finish its drain.
			 */
			__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
			/* Relaxed: launched lcores stop at go. */
			__atomic_store_n(&sync->stop, 1, __ATOMIC_RELAXED);
			continue;
		}
		nb_remote++;
	}
	/* Acquire: pairs with each lcore's release of ready. */
	while (__atomic_load_n(&sync->ready, __ATOMIC_ACQUIRE) < nb_remote)
		rte_pause();
	sync->deadline = rte_rdtsc() + (uint64_t)(seconds * (double)hz);
	/* Release: publishes deadline to the lcores' acquire of go. */
	__atomic_store_n(&sync->go, 1, __ATOMIC_RELEASE);

	if (c->main_worker != NULL) {
		perf_lcore_run(c->main_worker);
	} else {
		/* Relaxed: stop carries no data (see perf_worker_should_stop). */
		while (__atomic_load_n(&sync->stop, __ATOMIC_RELAXED) == 0 &&
				rte_rdtsc() < sync->deadline)
			rte_pause();
		__atomic_store_n(&sync->stop, 1, __ATOMIC_RELAXED);
	}
	/* The lcores' results are visible once their wait returns. */
	for (i = 0; i < c->nb_workers; i++)
		if (&c->workers[i] != c->main_worker)
			rte_eal_wait_lcore(c->workers[i].lcore_id);

	for (i = 0; i < c->nb_workers; i++) {
		w = &c->workers[i];
		if (w->reason[0] != '\0' && reason == NULL)
			reason = w->reason;
		s->objects += w->objects;
		s->get_fail += w->get_fail;
		s->rearm_partial += w->rearm_partial;
		if (w->t_start == 0)
			continue;
		t0 = RTE_MIN(t0, w->t_start);
		t1 = RTE_MAX(t1, w->t_end);
		s->lcore_cycles += w->t_end - w->t_start;
	}
	for (i = 0; i < c->nb_rings && reason == NULL; i++)
		if (rte_ring_count(c->rings[i]) != 0)
			reason = "ring not drained";
	if (reason == NULL && s->objects == 0)
		reason = "no object moved";
	s->wall_cycles = t1 > t0 ? t1 - t0 : 0;
	if (s->objects != 0 && s->wall_cycles != 0) {
		s->mobjs = (double)s->objects * (double)hz /
			(double)s->wall_cycles / 1e6;
		s->cycles_per_obj = (double)s->lcore_cycles /
			(double)s->objects;
	}
	s->status = reason == NULL ? PERF_OK : PERF_FAILED;
	if (reason != NULL && e->reason[0] == '\0')
		snprintf(e->reason, sizeof(e->reason), "%s", reason);

	s->whole = true;
	if (e->mp != NULL) {
		s->whole = pool_whole(e, &s->avail);
		if (!s->whole && !e->not_whole) {
			e->not_whole = true;
			if (e->reason[0] == '\0')
				snprintf(e->reason, sizeof(e->reason),
					"%u of %u objects available after a run",
					s->avail, e->mp->size);
		}
	}
}

static int
ctx_setup(struct perf_ctx *c, const struct perf_opts *o,
	unsigned int sc_idx)
{
	const struct perf_scenario *sc = &perf_scenarios[sc_idx];
	size_t held = (size_t)(o->window + 1) * o->bulk * sizeof(void *);
	unsigned int i, nb;
	char name[RTE_RING_NAMESIZE];

	memset(c, 0, sizeof(*c));
	c->o = o;
	c->sc = sc;
	c->sc_idx = sc_idx;
	nb = sc->layout == PERF_LAYOUT_PAIRS ? o->nb_lcores & ~1u :
		o->nb_lcores;
	c->sync = rte_zmalloc("perf_sync", sizeof(*c->sync),
		RTE_CACHE_LINE_SIZE);
	c->workers = rte_zmalloc("perf_workers", nb * sizeof(*c->workers),
		RTE_CACHE_LINE_SIZE);
	if (c->sync == NULL || c->workers == NULL)
		return -ENOMEM;
	c->nb_workers = nb;
	for (i = 0; i < nb; i++) {
		struct perf_worker *w = &c->workers[i];

		w->sc = sc;
		w->sync = c->sync;
		w->opts = o;
		w->lcore_id = o->lcores[i];
		w->mbuf = sc->pool == PERF_POOL_MBUF;
		w->held = rte_zmalloc_socket("perf_held", held,
			RTE_CACHE_LINE_SIZE,
			(int)rte_lcore_to_socket_id(w->lcore_id));
		if (w->held == NULL)
			return -ENOMEM;
		if (sc->layout == PERF_LAYOUT_PAIRS) {
			w->role = i % 2 ? PERF_ROLE_PRODUCER :
				PERF_ROLE_CONSUMER;
			w->peer = &c->workers[i ^ 1];
		} else {
			w->role = PERF_ROLE_CHURN;
		}
		if (w->lcore_id == rte_get_main_lcore()) {
			w->timekeeper = true;
			c->main_worker = w;
		}
	}
	if (sc->layout != PERF_LAYOUT_PAIRS)
		return 0;
	c->nb_rings = nb / 2;
	c->rings = calloc(c->nb_rings, sizeof(*c->rings));
	if (c->rings == NULL)
		return -ENOMEM;
	for (i = 0; i < c->nb_rings; i++) {
		snprintf(name, sizeof(name), "perf_ring%u", i);
		c->rings[i] = rte_ring_create(name, o->ring_size,
			(int)rte_lcore_to_socket_id(o->lcores[2 * i]),
			RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (c->rings[i] == NULL)
			return -rte_errno;
		c->workers[2 * i].ring = c->rings[i];
		c->workers[2 * i + 1].ring = c->rings[i];
	}
	return 0;
}

static void
ctx_free(struct perf_ctx *c)
{
	unsigned int i;

	for (i = 0; i < c->nb_rings; i++)
		rte_ring_free(c->rings[i]);
	free(c->rings);
	for (i = 0; c->workers != NULL && i < c->nb_workers; i++)
		rte_free(c->workers[i].held);
	rte_free(c->workers);
	rte_free(c->sync);
}

/*
 * Progress on stderr: on a terminal one line rewritten per measurement,
 * elsewhere (logs, CI) one line per round, written as it goes.
 */
static bool
progress_tty(const struct perf_opts *o)
{
	return !o->quiet && isatty(STDERR_FILENO) == 1;
}

static void
progress_round(const struct perf_ctx *c, unsigned int round, bool end)
{
	if (c->o->quiet || progress_tty(c->o))
		return;
	if (end)
		fprintf(stderr, "\n");
	else
		fprintf(stderr, "[%s %u/%u]", c->sc->name, round + 1,
			c->o->rounds);
}

static void
progress_sample(const struct perf_ctx *c, unsigned int round,
	const struct perf_entry *e, const struct perf_sample *s)
{
	const char *mark = s->status == PERF_FAILED ? " failed" : "";
	char name[PERF_LABEL_LEN + 16];

	if (c->o->quiet)
		return;
	if (e->ops != NULL)
		snprintf(name, sizeof(name), "%s:%u", e->ops->label,
			e->ops->cache);
	else
		snprintf(name, sizeof(name), "%s", perf_entry_label(e));
	if (progress_tty(c->o))
		fprintf(stderr, "\r\033[K[%s %u/%u] %s %.2f Mobj/s%s",
			c->sc->name, round + 1, c->o->rounds, name, s->mobjs,
			mark);
	else
		fprintf(stderr, " %s %.1f%s", name, s->mobjs, mark);
}

static void
progress_clear(const struct perf_opts *o)
{
	if (progress_tty(o))
		fprintf(stderr, "\r\033[K");
}

static int
scenario_run(const struct perf_opts *o, unsigned int sc_idx,
	struct perf_result *res)
{
	const struct perf_scenario *sc = &perf_scenarios[sc_idx];
	unsigned int i, k, r, nb;
	struct perf_ctx c;
	struct perf_entry *e;
	struct perf_sample warm;
	int ret;

	res->sc = sc;
	nb = o->nb_ops + (sc->ceiling ? 1 : 0);
	res->entries = calloc(nb, sizeof(*res->entries));
	if (res->entries == NULL)
		return -ENOMEM;
	res->nb_entries = nb;
	for (i = 0; i < nb; i++) {
		e = &res->entries[i];
		e->ops = i < o->nb_ops ? &o->ops[i] : NULL;
		e->baseline = i == o->baseline;
		e->rounds = calloc(o->rounds, sizeof(*e->rounds));
		if (e->rounds == NULL)
			return -ENOMEM;
	}

	ret = ctx_setup(&c, o, sc_idx);
	if (ret != 0) {
		fprintf(stderr, "%s: setup: %s\n", sc->name, rte_strerror(-ret));
		ctx_free(&c);
		return ret;
	}

	for (i = 0; i < nb; i++) {
		e = &res->entries[i];
		if (e->ops == NULL)
			continue;
		if (sc->sheaf_only && !entry_is_sheaf(e)) {
			e->status = PERF_NA;
			snprintf(e->reason, sizeof(e->reason), "%s ops only",
				RTE_SHEAF_OPS_NAME);
			continue;
		}
		e->mp = pool_create(&c, i, e->ops, e->reason,
			sizeof(e->reason));
		if (e->mp == NULL)
			e->status = PERF_FAILED;
		else if (sc->setup != NULL && sc->setup(o, e, e->reason,
				sizeof(e->reason)) != 0)
			e->status = PERF_FAILED;
	}
	if (o->warmup > 0) {
		for (i = 0; i < nb; i++) {
			e = &res->entries[i];
			if (e->status != PERF_OK)
				continue;
			measure(&c, e, o->warmup, &warm);
			if (warm.status == PERF_FAILED)
				e->status = PERF_FAILED;
		}
	}

	for (r = 0; r < o->rounds; r++) {
		progress_round(&c, r, false);
		for (k = 0; k < nb; k++) {
			i = o->rotate ? (k + r) % nb : k;
			e = &res->entries[i];
			if (e->status != PERF_OK) {
				e->rounds[r].status = e->status == PERF_NA ?
					PERF_NA : PERF_SKIPPED;
				continue;
			}
			measure(&c, e, o->seconds, &e->rounds[r]);
			if (e->rounds[r].status == PERF_FAILED)
				e->status = PERF_FAILED;
			progress_sample(&c, r, e, &e->rounds[r]);
		}
		progress_round(&c, r, true);
	}
	progress_clear(o);

	perf_summarise(o, res);
	perf_print_table(stdout, o, res);
	for (i = 0; i < nb; i++) {
		e = &res->entries[i];
		if (o->sheaf_dump && e->mp != NULL && entry_is_sheaf(e))
			rte_sheaf_dump(stdout, e->mp);
		if (sc->teardown != NULL && e->mp != NULL)
			sc->teardown(e);
		rte_mempool_free(e->mp);
		e->mp = NULL;
	}
	fflush(stdout);
	ctx_free(&c);
	return 0;
}

static void
print_header(const struct perf_opts *o)
{
	unsigned int i;

	printf("sheaf-perf: %s, TSC %.0f MHz, lcores", rte_version(),
		(double)rte_get_tsc_hz() / 1e6);
	for (i = 0; i < o->nb_lcores; i++)
		printf("%s%u", i ? "," : " ", o->lcores[i]);
	printf(" (main %u)\n", rte_get_main_lcore());
	printf("rounds %u x %.3g s (warmup %.3g s), bulk %u, window %u, obj %u B, pool %u, ring %u%s%s\n",
		o->rounds, o->seconds, o->warmup, o->bulk, o->window,
		o->obj_size, o->pool_size, o->ring_size,
		o->touch ? ", touch" : "", o->rotate ? ", rotated" : "");
	printf("Mobj/s: objects through get and put per wall second, all lcores; "
		"cyc/obj: TSC cycles of all lcores per object; "
		"ratio: median of per-round ratios to the baseline\n\n");
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	struct perf_result res[RTE_DIM(((struct perf_opts *)0)->scenarios)];
	static struct perf_opts opts;
	char err[256];
	int eal_argc = argc, app_argc, i, ret, status = 0;
	unsigned int s, k, done = 0;
	char **app_argv;

	/* App options follow the first "--"; EAL sees only what precedes. */
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			eal_argc = i;
			break;
		}
	app_argc = argc - eal_argc;     /* "--" stands in for argv[0] */
	app_argv = &argv[eal_argc];
	if (app_argc == 0) {
		app_argc = 1;
		app_argv = argv;
	}
	ret = parse_args(app_argc, app_argv, &opts);
	if (ret != 0) {
		usage(ret > 0 ? stdout : stderr, argv[0]);
		return ret > 0 ? 0 : EXIT_USAGE;
	}

	/* EAL parses with getopt too: restart its scan. */
	optind = 0;
	argv[eal_argc] = NULL;
	ret = rte_eal_init(eal_argc, argv);
	if (ret < 0) {
		fprintf(stderr, "EAL init failed: %s\n", rte_strerror(rte_errno));
		return EXIT_USAGE;
	}

	if (opts.list) {
		printf("scenarios:\n");
		for (s = 0; s < perf_nb_scenarios; s++)
			printf("  %-9s %s\n", perf_scenarios[s].name,
				perf_scenarios[s].help);
		list_ops(stdout);
		rte_eal_cleanup();
		return 0;
	}

	if (resolve_lcores(&opts) != 0)
		goto usage_err;
	for (k = 0; k < opts.nb_ops; k++) {
		if (ops_registered(opts.ops[k].name))
			continue;
		if (ops_user_given) {
			fprintf(stderr, "--ops: '%s' is not registered\n",
				opts.ops[k].name);
			list_ops(stderr);
			goto usage_err;
		}
		fprintf(stderr, "note: ops %s is not registered, its rows will fail\n",
			opts.ops[k].name);
	}
	/* A default scenario the lcores cannot run is left out. */
	for (s = 0, k = 0; s < opts.nb_scenarios; s++) {
		const struct perf_scenario *sc =
			&perf_scenarios[opts.scenarios[s]];

		if (sc->check(&opts, err, sizeof(err)) == 0) {
			opts.scenarios[k++] = opts.scenarios[s];
			continue;
		}
		fprintf(stderr, "%s: %s\n", sc->name, err);
		if (scenarios_user_given)
			goto usage_err;
		fprintf(stderr, "note: scenario %s left out\n", sc->name);
	}
	opts.nb_scenarios = k;
	if (k == 0)
		goto usage_err;

	print_header(&opts);
	memset(res, 0, sizeof(res));
	for (s = 0; s < opts.nb_scenarios; s++) {
		ret = scenario_run(&opts, opts.scenarios[s], &res[s]);
		done = s + 1;
		if (ret != 0) {
			status = 1;
			break;
		}
	}

	for (s = 0; s < done; s++)
		for (k = 0; k < res[s].nb_entries; k++) {
			const struct perf_entry *e = &res[s].entries[k];

			if (e->not_whole ||
					(opts.strict && e->status == PERF_FAILED))
				status = 1;
		}
	if (opts.csv != NULL &&
			perf_write_csv(opts.csv, &opts, res, done) != 0)
		status = 1;
	if (opts.json != NULL &&
			perf_write_json(opts.json, &opts, res, done) != 0)
		status = 1;

	for (s = 0; s < done; s++) {
		for (k = 0; k < res[s].nb_entries; k++)
			free(res[s].entries[k].rounds);
		free(res[s].entries);
	}
	rte_eal_cleanup();
	return status;

usage_err:
	usage(stderr, argv[0]);
	rte_eal_cleanup();
	return EXIT_USAGE;
}
