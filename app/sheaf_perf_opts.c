/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * sheaf-perf's command line: one table of options.
 *
 * Each row of perf_options[] names an option, the kind of its argument,
 * where in struct perf_opts it lands (or the function that parses it),
 * its default and its help. The getopt table, the defaults and --help
 * are all derived from it, so an option is added in one place.
 */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "sheaf_perf.h"

#define DEFAULT_OPS \
	"sheaf:0,sheaf:256,ring_mp_mc:256,ring_mp_mc:0,stack:0,bucket:0"
#define DEFAULT_BASELINE "ring_mp_mc:256"

/* getopt_long() value of perf_options[0], above any short option. */
#define PERF_OPT_VAL0 256

/* Help columns: options from 2, help text from 20, wrapped before 79. */
#define HELP_INDENT 20
#define HELP_WIDTH 79

/* What an option's argument is, and where it goes. */
enum perf_arg {
	PERF_ARG_FLAG,    /* no argument: sets the bool at off */
	PERF_ARG_UINT,    /* unsigned int at off, in [min, max] */
	PERF_ARG_SECONDS, /* double at off, in [min, PERF_SECONDS_MAX] */
	PERF_ARG_STRING,  /* const char * at off, kept as given */
	PERF_ARG_CUSTOM,  /* parsed by fn */
};

struct perf_option {
	const char *name;     /* as typed, without "--" */
	const char *metavar;  /* shown in --help; NULL for a flag */
	enum perf_arg kind;
	size_t off;           /* into struct perf_opts */
	double min, max;      /* UINT, SECONDS: accepted range */
	bool show_max;        /* --help shows max next to the default */
	bool pow2;            /* UINT: must be a power of 2 */
	bool has_dflt;        /* UINT, SECONDS: dflt applies */
	double dflt;          /* UINT, SECONDS: the default */
	const char *dflt_str; /* STRING, CUSTOM: parsed as the default */
	/* CUSTOM: parses arg into o; 0, or -1 after a message. */
	int (*fn)(const char *arg, struct perf_opts *o);
	/* Extra --help lines after the option's own. */
	void (*help_more)(FILE *f);
	const char *help;     /* '\n' starts a continuation line */
};

int
perf_parse_uint(const char *arg, const char *name, unsigned long min,
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

/* The ":capacity" of an ops spec, sheaf ops only. */
static int
parse_ops_capacity(const char *arg, const char *cap,
	struct perf_ops_spec *spec)
{
	unsigned int v;

	if (strcmp(spec->name, RTE_SHEAF_OPS_NAME) != 0) {
		fprintf(stderr, "--ops: a capacity is for %s only: '%s'\n",
			RTE_SHEAF_OPS_NAME, arg);
		return -1;
	}
	if (perf_parse_uint(cap, "--ops capacity", 1, RTE_SHEAF_CAPACITY_MAX,
			&v) != 0)
		return -1;
	spec->sheaf.capacity = v;
	snprintf(spec->label, sizeof(spec->label), "%s%s/cap%u", spec->name,
		spec->sheaf.flags != 0 ? "+validate" : "", v);
	return 0;
}

/* "name:cache[:capacity]" */
int
perf_parse_ops_spec(const char *arg, struct perf_ops_spec *spec)
{
	char buf[PERF_LABEL_LEN], *name, *cache, *cap;

	memset(spec, 0, sizeof(*spec));
	if (strlen(arg) >= sizeof(spec->arg)) {
		fprintf(stderr, "--ops: '%s' is too long\n", arg);
		return -1;
	}
	strcpy(buf, arg);
	strcpy(spec->arg, arg);
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
	if (perf_parse_uint(cache, "--ops cache", 0,
			RTE_MEMPOOL_CACHE_MAX_SIZE, &spec->cache) != 0)
		return -1;
	snprintf(spec->label, sizeof(spec->label), "%s%s", spec->name,
		spec->sheaf.flags != 0 ? "+validate" : "");
	return cap != NULL ? parse_ops_capacity(arg, cap, spec) : 0;
}

static bool
ops_spec_equal(const struct perf_ops_spec *a, const struct perf_ops_spec *b)
{
	return strcmp(a->name, b->name) == 0 && a->cache == b->cache &&
		a->sheaf.capacity == b->sheaf.capacity &&
		a->sheaf.flags == b->sheaf.flags;
}

/* Calls add on each comma-separated item of arg; *count must grow. */
static int
parse_list(const char *arg, const char *opt, struct perf_opts *o,
	int (*add)(const char *tok, struct perf_opts *o),
	const unsigned int *count)
{
	char buf[1024], *tok, *save = NULL;

	if (strlen(arg) >= sizeof(buf)) {
		fprintf(stderr, "%s: list too long\n", opt);
		return -1;
	}
	strcpy(buf, arg);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
			tok = strtok_r(NULL, ",", &save))
		if (add(tok, o) != 0)
			return -1;
	if (*count == 0) {
		fprintf(stderr, "%s: empty list\n", opt);
		return -1;
	}
	return 0;
}

static int
add_ops(const char *tok, struct perf_opts *o)
{
	if (o->nb_ops == PERF_OPS_MAX) {
		fprintf(stderr, "--ops: more than %u specs\n", PERF_OPS_MAX);
		return -1;
	}
	if (perf_parse_ops_spec(tok, &o->ops[o->nb_ops]) != 0)
		return -1;
	o->nb_ops++;
	return 0;
}

static int
parse_ops_list(const char *arg, struct perf_opts *o)
{
	o->nb_ops = 0;
	o->ops_given = true;
	return parse_list(arg, "--ops", o, add_ops, &o->nb_ops);
}

/* Adds scenario tok (or all of them) to o, once each. */
static int
add_scenario(const char *tok, struct perf_opts *o)
{
	unsigned int i, j;

	if (strcmp(tok, "all") == 0) {
		for (i = 0; i < perf_nb_scenarios; i++)
			o->scenarios[i] = i;
		o->nb_scenarios = perf_nb_scenarios;
		return 0;
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
			return 0;
	if (o->nb_scenarios == RTE_DIM(o->scenarios)) {
		fprintf(stderr, "--scenario: too many\n");
		return -1;
	}
	o->scenarios[o->nb_scenarios++] = i;
	return 0;
}

static int
parse_scenarios(const char *arg, struct perf_opts *o)
{
	o->nb_scenarios = 0;
	o->scenarios_given = true;
	return parse_list(arg, "--scenario", o, add_scenario,
		&o->nb_scenarios);
}

static void
help_scenarios(FILE *f)
{
	unsigned int i;

	for (i = 0; i < perf_nb_scenarios; i++)
		fprintf(f, "%*s  %-14s %s\n", HELP_INDENT, "",
			perf_scenarios[i].name, perf_scenarios[i].help);
}

#define OFF(field) offsetof(struct perf_opts, field)

static const struct perf_option perf_options[] = {
	{ "scenario", "LIST", PERF_ARG_CUSTOM, 0, .fn = parse_scenarios,
	  .dflt_str = "all", .help_more = help_scenarios,
	  .help = "scenarios, comma separated, or 'all'" },
	{ "ops", "LIST", PERF_ARG_CUSTOM, 0, .fn = parse_ops_list,
	  .dflt_str = DEFAULT_OPS,
	  .help = "ops specs NAME:CACHE[:CAPACITY], comma separated;\n"
		"NAME sheaf+validate: sheaf with RTE_SHEAF_F_VALIDATE;\n"
		"CAPACITY sets the sheaf capacity (sheaf ops only);\n"
		"local, mbuf, rx-burst, rx-chunk add a floor row\n"
		"(perf_floor ops), pipeline a limit and a ceiling\n"
		"row (no pool)" },
	{ "baseline", "SPEC", PERF_ARG_STRING, OFF(baseline_arg),
	  .dflt_str = DEFAULT_BASELINE,
	  .help = "ops spec the ratios refer to, added to the list if\n"
		"missing" },
	{ "rounds", "N", PERF_ARG_UINT, OFF(rounds), 1, PERF_ROUNDS_MAX,
	  .show_max = true, .has_dflt = true, .dflt = 7,
	  .help = "measurements of each entry" },
	{ "seconds", "S", PERF_ARG_SECONDS, OFF(seconds), 0.001,
	  .has_dflt = true, .dflt = 0.25,
	  .help = "length of one measurement" },
	{ "slices", "N", PERF_ARG_UINT, OFF(slices), 1, PERF_SLICES_MAX,
	  .show_max = true, .has_dflt = true, .dflt = 5,
	  .help = "runs each measurement is split into, the\n"
		"entries alternating run by run within the round\n"
		"(a change of the machine's speed then weighs on\n"
		"every entry of the round alike)" },
	{ "warmup", "S", PERF_ARG_SECONDS, OFF(warmup), 0,
	  .has_dflt = true, .dflt = 0.05,
	  .help = "unrecorded run of each entry first" },
	{ "bulk", "N", PERF_ARG_UINT, OFF(bulk), 1, PERF_BULK_MAX,
	  .show_max = true, .has_dflt = true, .dflt = 32,
	  .help = "objects per get and per put" },
	{ "window", "N", PERF_ARG_UINT, OFF(window), 0, PERF_WINDOW_MAX,
	  .show_max = true, .has_dflt = true, .dflt = 4,
	  .help = "bulks each churn lcore holds" },
	{ "obj-size", "N", PERF_ARG_UINT, OFF(obj_size), 1, PERF_OBJ_SIZE_MAX,
	  .has_dflt = true, .dflt = 2048,
	  .help = "object size in bytes, plain pools" },
	{ "pool-size", "N", PERF_ARG_UINT, OFF(pool_size), 1,
	  PERF_POOL_SIZE_MAX, .has_dflt = true, .dflt = 16383,
	  .help = "objects per pool" },
	{ "data-room", "N", PERF_ARG_UINT, OFF(data_room),
	  RTE_PKTMBUF_HEADROOM, UINT16_MAX,
	  .has_dflt = true, .dflt = RTE_MBUF_DEFAULT_BUF_SIZE,
	  .help = "mbuf data room in bytes" },
	{ "ring-size", "N", PERF_ARG_UINT, OFF(ring_size), 2,
	  PERF_RING_SIZE_MAX, .pow2 = true, .has_dflt = true, .dflt = 1024,
	  .help = "pipeline ring size, a power of 2" },
	{ "lcores", "LIST", PERF_ARG_STRING, OFF(lcores_arg),
	  .help = "lcores taking part, e.g. 0-3 (default all EAL\n"
		"lcores, main first); pipeline pairs them as\n"
		"consumer,producer,consumer,producer..." },
	{ "stall-ms", "N", PERF_ARG_UINT, OFF(stall_ms), 1, PERF_STALL_MS_MAX,
	  .has_dflt = true, .dflt = 100,
	  .help = "gets failing this long fail the entry" },
	{ "touch", NULL, PERF_ARG_FLAG, OFF(touch),
	  .help = "write each object once after each get" },
	{ "rotate", NULL, PERF_ARG_FLAG, OFF(rotate),
	  .help = "start round r at entry r instead of the first" },
	{ "csv", "FILE", PERF_ARG_STRING, OFF(csv),
	  .help = "write every round and the summary as CSV" },
	{ "json", "FILE", PERF_ARG_STRING, OFF(json),
	  .help = "write every round and the summary as JSON" },
	{ "sheaf-dump", NULL, PERF_ARG_FLAG, OFF(sheaf_dump),
	  .help = "rte_sheaf_dump() each sheaf pool after its scenario" },
	{ "strict", NULL, PERF_ARG_FLAG, OFF(strict),
	  .help = "exit 1 when any entry failed (setup, a round, a\n"
		"stall), missed rounds or lost objects, or a scenario\n"
		"could not run (default: only when a pool is not whole,\n"
		"objects lost or freed twice)" },
	{ "quiet", NULL, PERF_ARG_FLAG, OFF(quiet),
	  .help = "no progress line on stderr" },
	{ "list", NULL, PERF_ARG_FLAG, OFF(list),
	  .help = "list scenarios and registered ops, then exit" },
	{ "help", NULL, PERF_ARG_FLAG, OFF(help),
	  .help = "this text" },
};

/* Stores arg (NULL for a flag) as option p says. 0, or -1. */
static int
option_apply(const struct perf_option *p, const char *arg,
	struct perf_opts *o)
{
	char name[64];
	void *dst = (char *)o + p->off;

	snprintf(name, sizeof(name), "--%s", p->name);
	switch (p->kind) {
	case PERF_ARG_FLAG:
		*(bool *)dst = true;
		return 0;
	case PERF_ARG_UINT:
		if (perf_parse_uint(arg, name, (unsigned long)p->min,
				(unsigned long)p->max, dst) != 0)
			return -1;
		if (p->pow2 && !rte_is_power_of_2(*(unsigned int *)dst)) {
			fprintf(stderr, "%s: %s is not a power of 2\n", name,
				arg);
			return -1;
		}
		return 0;
	case PERF_ARG_SECONDS:
		return parse_seconds(arg, name, p->min, dst);
	case PERF_ARG_STRING:
		*(const char **)dst = arg;
		return 0;
	case PERF_ARG_CUSTOM:
		return p->fn(arg, o);
	}
	return -1;
}

/* Every option's default, then nothing counts as given. */
static int
options_defaults(struct perf_opts *o)
{
	const struct perf_option *p;
	unsigned int i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < RTE_DIM(perf_options); i++) {
		p = &perf_options[i];
		if (p->kind == PERF_ARG_UINT && p->has_dflt)
			*(unsigned int *)((char *)o + p->off) =
				(unsigned int)p->dflt;
		else if (p->kind == PERF_ARG_SECONDS && p->has_dflt)
			*(double *)((char *)o + p->off) = p->dflt;
		else if (p->dflt_str != NULL &&
				option_apply(p, p->dflt_str, o) != 0)
			return -1;
	}
	o->ops_given = false;
	o->scenarios_given = false;
	return 0;
}

/* The baseline spec's index in o->ops, added in front if missing. */
static int
resolve_baseline(struct perf_opts *o)
{
	struct perf_ops_spec base;
	unsigned int i;

	if (perf_parse_ops_spec(o->baseline_arg, &base) != 0)
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

static void
getopt_table(struct option *lo)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(perf_options); i++) {
		lo[i].name = perf_options[i].name;
		lo[i].has_arg = perf_options[i].kind == PERF_ARG_FLAG ?
			no_argument : required_argument;
		lo[i].flag = NULL;
		lo[i].val = PERF_OPT_VAL0 + (int)i;
	}
	memset(&lo[i], 0, sizeof(lo[i]));
}

int
perf_parse_args(int argc, char **argv, struct perf_opts *o)
{
	struct option lo[RTE_DIM(perf_options) + 1];
	int opt;

	if (options_defaults(o) != 0)
		return -1;
	getopt_table(lo);
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		unsigned int i = (unsigned int)(opt - PERF_OPT_VAL0);

		if (opt < PERF_OPT_VAL0 || i >= RTE_DIM(perf_options)) {
			if (optopt >= PERF_OPT_VAL0 &&
					optopt < PERF_OPT_VAL0 +
					(int)RTE_DIM(perf_options))
				fprintf(stderr, "option --%s: bad or missing argument\n",
					lo[optopt - PERF_OPT_VAL0].name);
			else
				fprintf(stderr, "unknown option '%s'\n",
					argv[optind - 1]);
			return -1;
		}
		if (option_apply(&perf_options[i], optarg, o) != 0)
			return -1;
	}
	if (o->help)
		return 1;
	if (optind < argc) {
		fprintf(stderr, "unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (o->seconds / o->slices < 0.001) {
		fprintf(stderr, "--slices: %u slices of a %g s measurement are shorter than 1 ms each\n",
			o->slices, o->seconds);
		return -1;
	}
	return resolve_baseline(o);
}

/* " (default X[, max Y])" of option p into buf; "" if it has none. */
static void
help_default(const struct perf_option *p, char *buf, size_t len)
{
	buf[0] = '\0';
	if (p->kind == PERF_ARG_UINT && p->has_dflt && p->show_max)
		snprintf(buf, len, " (default %u, max %u)",
			(unsigned int)p->dflt, (unsigned int)p->max);
	else if (p->kind == PERF_ARG_UINT && p->has_dflt)
		snprintf(buf, len, " (default %u)", (unsigned int)p->dflt);
	else if (p->kind == PERF_ARG_SECONDS && p->has_dflt)
		snprintf(buf, len, " (default %g)", p->dflt);
	else if (p->dflt_str != NULL)
		snprintf(buf, len, " (default %s)", p->dflt_str);
}

/* One option's help: its lines, the default on the last if it fits. */
static void
help_option(FILE *f, const struct perf_option *p)
{
	const char *line = p->help, *nl;
	char head[64], dflt[256];
	size_t n;
	int col;

	snprintf(head, sizeof(head), "--%s%s%s", p->name,
		p->metavar != NULL ? " " : "",
		p->metavar != NULL ? p->metavar : "");
	fprintf(f, "  %-*s", HELP_INDENT - 2, head);
	if (strlen(head) > HELP_INDENT - 3)
		fprintf(f, "\n%*s", HELP_INDENT, "");
	help_default(p, dflt, sizeof(dflt));
	for (;;) {
		nl = strchr(line, '\n');
		n = nl != NULL ? (size_t)(nl - line) : strlen(line);
		col = HELP_INDENT + (int)n;
		fprintf(f, "%.*s", (int)n, line);
		if (nl == NULL)
			break;
		fprintf(f, "\n%*s", HELP_INDENT, "");
		line = nl + 1;
	}
	if (dflt[0] != '\0' && col + (int)strlen(dflt) > HELP_WIDTH)
		fprintf(f, "\n%*s%s", HELP_INDENT, "", dflt + 1);
	else
		fprintf(f, "%s", dflt);
	fprintf(f, "\n");
	if (p->help_more != NULL)
		p->help_more(f);
}

void
perf_usage(FILE *f, const char *prg)
{
	unsigned int i;

	fprintf(f, "Usage: %s [EAL options] -- [options]\n"
		"Compare mempool ops side by side, interleaved round by round.\n\n",
		prg);
	for (i = 0; i < RTE_DIM(perf_options); i++)
		help_option(f, &perf_options[i]);
	fprintf(f, "\nExit: 0 done, 1 a pool not whole (or --strict and any failure), 2 usage.\n");
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

/* One "a" or "a-b" of --lcores at *p; moves *p past it. 0, or -1. */
static int
add_lcore_range(struct perf_opts *o, const char **p)
{
	unsigned long a, b;
	char *end;

	errno = 0;
	a = strtoul(*p, &end, 10);
	if (errno != 0 || end == *p || **p == '-')
		return -1;
	b = a;
	if (*end == '-') {
		*p = end + 1;
		b = strtoul(*p, &end, 10);
		if (errno != 0 || end == *p || **p == '-' || b < a)
			return -1;
	}
	*p = end;
	for (; a <= b; a++)
		if (add_lcore(o, a) != 0)
			return -2;
	return 0;
}

int
perf_resolve_lcores(struct perf_opts *o)
{
	const char *p;
	unsigned int id;
	int ret;

	o->nb_lcores = 0;
	if (o->lcores_arg == NULL) {
		add_lcore(o, rte_get_main_lcore());
		RTE_LCORE_FOREACH_WORKER(id)
			add_lcore(o, id);
		return 0;
	}
	for (p = o->lcores_arg;; p++) {
		ret = add_lcore_range(o, &p);
		if (ret == -2)
			return -1;
		if (ret != 0 || (*p != '\0' && *p != ','))
			break;
		if (*p == '\0')
			return 0;
	}
	fprintf(stderr, "--lcores: '%s' is not a list like 0-3,5\n",
		o->lcores_arg);
	return -1;
}
