/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The sheaf authors
 */

/*
 * Summary and output of sheaf-perf: the terminal table, CSV and JSON.
 *
 * On a noisy machine absolute rates move between rounds, so the figure
 * that matters is the ratio to the baseline measured in the same round;
 * the summary gives the median of those per-round ratios and their range,
 * next to the median, min and max of the rates themselves.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_version.h>

#include "sheaf_perf.h"

const char *
perf_entry_label(const struct perf_entry *e)
{
	if (e->ops != NULL)
		return e->ops->label;
	return e->kind == PERF_ENTRY_LIMIT ? "limit" : "ceiling";
}

unsigned int
perf_entry_cache(const struct perf_entry *e)
{
	return e->ops != NULL ? e->ops->cache : 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v. */
static double
median(double *v, unsigned int n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median, min and max of the n values of v (sorted). */
static void
spread(double *v, unsigned int n, double *med, double *min, double *max)
{
	*med = median(v, n);
	*min = n ? v[0] : 0;
	*max = n ? v[n - 1] : 0;
}

/* The overload figures of a round, or of rounds summed (NAN: none). */
static void
overload_figures(const struct perf_result *res, struct perf_sample *s)
{
	const double hz = (double)rte_get_tsc_hz();

	s->fail_per_obj = s->objects != 0 ?
		(double)s->get_fail / (double)s->objects : NAN;
	/* Only overload scenarios time their gets. */
	s->ns_per_fail = res->sc->overload && s->get_fail != 0 ?
		(double)s->fail_cycles * 1e9 / hz / (double)s->get_fail : NAN;
	s->mb_per_s = s->has_membarriers && s->wall_cycles != 0 ?
		(double)s->membarriers * hz / (double)s->wall_cycles : NAN;
}

/* The overload figures of e over its OK rounds taken together. */
static void
overload_summary(const struct perf_opts *o, const struct perf_result *res,
	struct perf_entry *e)
{
	struct perf_sample tot = { .has_membarriers = true };
	unsigned int r;

	for (r = 0; r < o->rounds; r++) {
		const struct perf_sample *s = &e->rounds[r];

		if (s->status != PERF_OK)
			continue;
		tot.objects += s->objects;
		tot.get_fail += s->get_fail;
		tot.fail_cycles += s->fail_cycles;
		tot.wall_cycles += s->wall_cycles;
		tot.membarriers += s->membarriers;
		tot.has_membarriers &= s->has_membarriers;
	}
	overload_figures(res, &tot);
	e->fail_per_obj = tot.fail_per_obj;
	e->ns_per_fail = tot.ns_per_fail;
	e->mb_per_s = tot.mb_per_s;
}

/* Per-round ratios of e to the baseline b and to the reference ref. */
static void
summarise_rounds(const struct perf_opts *o, const struct perf_result *res,
	struct perf_entry *e, const struct perf_entry *ref)
{
	const struct perf_entry *b = &res->entries[o->baseline];
	unsigned int r;

	e->get_fail = 0;
	e->rearm_partial = 0;
	for (r = 0; r < o->rounds; r++) {
		struct perf_sample *s = &e->rounds[r];
		const struct perf_sample *bs = &b->rounds[r];
		const struct perf_sample *rs = ref != NULL ? &ref->rounds[r] :
			NULL;

		e->get_fail += s->get_fail;
		e->rearm_partial += s->rearm_partial;
		s->has_ratio = s->status == PERF_OK &&
			bs->status == PERF_OK && bs->mobjs > 0;
		s->ratio = s->has_ratio ? s->mobjs / bs->mobjs : 0;
		s->has_share = s->status == PERF_OK && rs != NULL &&
			rs->status == PERF_OK && rs->mobjs > 0;
		s->share = s->has_share ? s->mobjs / rs->mobjs : 0;
		overload_figures(res, s);
	}
	overload_summary(o, res, e);
}

void
perf_summarise(const struct perf_opts *o, struct perf_result *res)
{
	const struct perf_entry *ref = res->ref >= 0 ?
		&res->entries[res->ref] : NULL;
	double *v = calloc(o->rounds, sizeof(*v));
	unsigned int i, r, n;

	if (v == NULL)
		return;
	for (i = 0; i < res->nb_entries; i++) {
		struct perf_entry *e = &res->entries[i];
		const struct perf_sample *p = e->rounds;

		summarise_rounds(o, res, e, ref);
		for (n = 0, r = 0; r < o->rounds; r++)
			if (p[r].status == PERF_OK)
				v[n++] = p[r].mobjs;
		e->nb_ok = n;
		spread(v, n, &e->mobjs_med, &e->mobjs_min, &e->mobjs_max);
		/* A round that moved no object has none: left out. */
		for (n = 0, r = 0; r < o->rounds; r++)
			if (p[r].status == PERF_OK &&
					!isnan(p[r].cycles_per_obj))
				v[n++] = p[r].cycles_per_obj;
		e->cpo_med = n != 0 ? median(v, n) : NAN;
		for (n = 0, r = 0; r < o->rounds; r++)
			if (p[r].has_ratio)
				v[n++] = p[r].ratio;
		e->nb_ratio = n;
		spread(v, n, &e->ratio_med, &e->ratio_min, &e->ratio_max);
		for (n = 0, r = 0; r < o->rounds; r++)
			if (p[r].has_share)
				v[n++] = p[r].share;
		e->nb_share = n;
		spread(v, n, &e->share_med, &e->share_min, &e->share_max);
		for (n = 0, r = 0; r < o->rounds; r++)
			if (p[r].status == PERF_OK && !isnan(p[r].starved))
				v[n++] = p[r].starved;
		e->starved = n != 0 ? median(v, n) : NAN;
		for (n = 0, r = 0; r < o->rounds; r++)
			if (p[r].status == PERF_OK && !isnan(p[r].starved_max))
				v[n++] = p[r].starved_max;
		e->starved_max = n != 0 ? median(v, n) : NAN;
	}
	free(v);
}

static const char *
entry_status(const struct perf_opts *o, const struct perf_result *res,
	const struct perf_entry *e, char *buf, size_t len)
{
	const char *what = e->not_whole ? "NOT WHOLE" :
		e->status == PERF_FAILED ? "failed" :
		e->status == PERF_NA ? "n/a" :
		e->baseline ? "baseline" : "ok";
	int n;

	if (e->status == PERF_FAILED || e->status == PERF_NA || e->not_whole)
		n = snprintf(buf, len, "%s: %s", what, e->reason);
	else
		n = snprintf(buf, len, "%s", what);
	if (n >= 0 && (size_t)n < len && e->nb_ok != o->rounds &&
			e->nb_ok != 0)
		n += snprintf(buf + n, len - n, " (%u/%u rounds)", e->nb_ok,
			o->rounds);
	if (n >= 0 && (size_t)n < len && res->sc->rearms && e->nb_ok != 0)
		snprintf(buf + n, len - n, " (%" PRIu64 " failed, %" PRIu64
			" partial rearms)", e->get_fail, e->rearm_partial);
	else if (n >= 0 && (size_t)n < len && e->get_fail != 0)
		snprintf(buf + n, len - n, " (%" PRIu64 " failed gets)",
			e->get_fail);
	return buf;
}

/* A figure of the overload columns: "-" where there is none. */
static void
print_figure(FILE *f, const char *fmt, double v, const char *none)
{
	if (isnan(v))
		fprintf(f, "%8s ", none);
	else
		fprintf(f, fmt, v);
}

static void
print_row(FILE *f, const struct perf_opts *o, const struct perf_result *res,
	const struct perf_entry *e)
{
	char status[PERF_REASON_LEN + 64], cache[16] = "-";
	bool sheaf = e->ops != NULL &&
		strcmp(e->ops->name, RTE_SHEAF_OPS_NAME) == 0;

	if (e->ops != NULL)
		snprintf(cache, sizeof(cache), "%u", e->ops->cache);
	fprintf(f, "%-18s %5s ", perf_entry_label(e), cache);
	if (e->nb_ok != 0) {
		fprintf(f, "%9.2f %9.2f %9.2f ", e->mobjs_med,
			e->mobjs_min, e->mobjs_max);
		print_figure(f, "%8.1f ", e->cpo_med, "-");
	} else
		fprintf(f, "%9s %9s %9s %8s ", "-", "-", "-", "-");
	if (e->nb_ratio != 0)
		fprintf(f, "%7.3f %7.3f %7.3f ", e->ratio_med, e->ratio_min,
			e->ratio_max);
	else
		fprintf(f, "%7s %7s %7s ", "-", "-", "-");
	if (e->nb_share != 0)
		fprintf(f, "%7.3f ", e->share_med);
	else
		fprintf(f, "%7s ", "-");
	if (res->sc->overload && e->nb_ok != 0) {
		print_figure(f, "%8.3f ", e->fail_per_obj, "-");
		print_figure(f, "%8.0f ", e->ns_per_fail, "-");
		/* n/a: a sheaf pool whose library counts no membarrier(). */
		print_figure(f, "%8.1f ", e->mb_per_s, sheaf ? "n/a" : "-");
		print_figure(f, "%7.1f%% ", 100 * e->starved, "-");
		print_figure(f, "%7.1f%% ", 100 * e->starved_max, "-");
	} else if (res->sc->overload) {
		fprintf(f, "%8s %8s %8s %8s %8s ", "-", "-", "-", "-", "-");
	}
	fprintf(f, " %s\n", entry_status(o, res, e, status, sizeof(status)));
}

/*
 * Each round's ratio to the baseline, entry by entry, then their min,
 * median and max over the run: where rounds disagree, the spread says
 * more than the median alone.
 */
static void
print_round_ratios(FILE *f, const struct perf_opts *o,
	const struct perf_result *res)
{
	char name[PERF_LABEL_LEN + 16];
	unsigned int i, r;

	fprintf(f, "per-round ratio to the baseline, rounds 1..%u | min median max\n",
		o->rounds);
	for (i = 0; i < res->nb_entries; i++) {
		const struct perf_entry *e = &res->entries[i];

		if (e->baseline || e->nb_ratio == 0)
			continue;
		snprintf(name, sizeof(name), "%s:%u", perf_entry_label(e),
			perf_entry_cache(e));
		fprintf(f, "%-24s", name);
		for (r = 0; r < o->rounds; r++)
			if (e->rounds[r].has_ratio)
				fprintf(f, " %.3f", e->rounds[r].ratio);
			else
				fprintf(f, " -");
		fprintf(f, " | %.3f %.3f %.3f\n", e->ratio_min, e->ratio_med,
			e->ratio_max);
	}
}

void
perf_print_table(FILE *f, const struct perf_opts *o,
	const struct perf_result *res)
{
	unsigned int i;

	fprintf(f, "== %s: %s ==\n", res->sc->name, res->sc->help);
	fprintf(f, "Mobj/s counts %s\n", res->sc->counts);
	fprintf(f, "%-18s %5s %9s %9s %9s %8s %7s %7s %7s %7s ",
		"ops", "cache", "Mobj/s", "min", "max", "cyc/obj", "ratio",
		"r.min", "r.max", "share");
	if (res->sc->overload)
		fprintf(f, "%8s %8s %8s %8s %8s ", "fail/obj", "ns/fail",
			"mb/s", "starved", "worst");
	fprintf(f, " status\n");
	for (i = 0; i < res->nb_entries; i++)
		print_row(f, o, res, &res->entries[i]);
	if (res->sc->round_ratios)
		print_round_ratios(f, o, res);
	fprintf(f, "\n");
}

static const char *
status_name(enum perf_status s)
{
	switch (s) {
	case PERF_OK:
		return "ok";
	case PERF_SKIPPED:
		return "skipped";
	case PERF_FAILED:
		return "failed";
	case PERF_NA:
		return "n/a";
	}
	return "?";
}

static const char *
entry_status_name(const struct perf_entry *e)
{
	if (e->not_whole)
		return "not-whole";
	return status_name(e->status);
}

/* A CSV field: quoted, inner quotes doubled. */
static void
csv_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void
csv_entry_head(FILE *f, const char *kind, const struct perf_result *res,
	const struct perf_entry *e)
{
	fprintf(f, "%s,%s,%s,", kind, res->sc->name,
		e->ops != NULL ? e->ops->name : perf_entry_label(e));
	if (e->ops != NULL)
		fprintf(f, "%u,%u,", e->ops->cache, e->ops->sheaf.capacity);
	else
		fprintf(f, ",,");
	csv_str(f, perf_entry_label(e));
	fprintf(f, ",%d,", e->baseline);
}

/* A CSV number field (then a comma), empty where there is none. */
static void
csv_num(FILE *f, bool has, const char *fmt, double v)
{
	if (has)
		fprintf(f, fmt, v);
	fputc(',', f);
}

/* The overload columns, ending the line. */
static void
csv_overload(FILE *f, double fail_per_obj, double ns_per_fail,
	double mb_per_s, double starved, double starved_max)
{
	csv_num(f, !isnan(fail_per_obj), "%.6f", fail_per_obj);
	csv_num(f, !isnan(ns_per_fail), "%.1f", ns_per_fail);
	csv_num(f, !isnan(mb_per_s), "%.2f", mb_per_s);
	csv_num(f, !isnan(starved), "%.5f", starved);
	if (!isnan(starved_max))
		fprintf(f, "%.5f", starved_max);
	fputc('\n', f);
}

static void
csv_round(FILE *f, const struct perf_result *res, const struct perf_entry *e,
	unsigned int r)
{
	const struct perf_sample *p = &e->rounds[r];

	csv_entry_head(f, "round", res, e);
	fprintf(f, "%u,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.4f,", r,
		status_name(p->status), p->objects, p->wall_cycles,
		p->lcore_cycles, p->mobjs);
	csv_num(f, !isnan(p->cycles_per_obj), "%.3f", p->cycles_per_obj);
	if (p->has_ratio)
		fprintf(f, "%.5f", p->ratio);
	fprintf(f, ",,,,,,%" PRIu64 ",%d,,", p->get_fail, p->whole);
	csv_num(f, p->has_share, "%.5f", p->share);
	fprintf(f, ",,");
	csv_overload(f, p->fail_per_obj, p->ns_per_fail, p->mb_per_s,
		p->status == PERF_OK ? p->starved : NAN,
		p->status == PERF_OK ? p->starved_max : NAN);
}

static void
csv_summary(FILE *f, const struct perf_result *res,
	const struct perf_entry *e)
{
	csv_entry_head(f, "summary", res, e);
	fprintf(f, ",%s,,,,", entry_status_name(e));
	csv_num(f, e->nb_ok != 0, "%.4f", e->mobjs_med);
	csv_num(f, !isnan(e->cpo_med), "%.3f", e->cpo_med);
	csv_num(f, e->nb_ratio != 0, "%.5f", e->ratio_med);
	csv_num(f, e->nb_ok != 0, "%.4f", e->mobjs_min);
	csv_num(f, e->nb_ok != 0, "%.4f", e->mobjs_max);
	csv_num(f, e->nb_ratio != 0, "%.5f", e->ratio_min);
	csv_num(f, e->nb_ratio != 0, "%.5f", e->ratio_max);
	fprintf(f, "%u,%" PRIu64 ",%d,", e->nb_ok, e->get_fail,
		!e->not_whole);
	csv_str(f, e->reason);
	fputc(',', f);
	csv_num(f, e->nb_share != 0, "%.5f", e->share_med);
	csv_num(f, e->nb_share != 0, "%.5f", e->share_min);
	csv_num(f, e->nb_share != 0, "%.5f", e->share_max);
	csv_overload(f, e->fail_per_obj, e->ns_per_fail, e->mb_per_s,
		e->starved, e->starved_max);
}

int
perf_write_csv(const char *path, const struct perf_opts *o,
	const struct perf_result *res, unsigned int nb)
{
	unsigned int s, i, r;
	FILE *f;

	f = fopen(path, "w");
	if (f == NULL) {
		fprintf(stderr, "--csv %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "kind,scenario,ops,cache,capacity,label,baseline,round,"
		"status,objects,wall_cycles,lcore_cycles,mobjs,cycles_per_obj,"
		"ratio,mobjs_min,mobjs_max,ratio_min,ratio_max,rounds_ok,"
		"get_fail,whole,reason,share,share_min,share_max,"
		"fail_per_obj,ns_per_fail,membarrier_per_s,starved,"
		"starved_max\n");
	for (s = 0; s < nb; s++)
		for (i = 0; i < res[s].nb_entries; i++) {
			for (r = 0; r < o->rounds; r++)
				csv_round(f, &res[s], &res[s].entries[i], r);
			csv_summary(f, &res[s], &res[s].entries[i]);
		}
	if (fclose(f) != 0) {
		fprintf(stderr, "--csv %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* ", "key": v", or null where there is none. */
static void
json_num(FILE *f, const char *key, bool has, double v)
{
	if (has)
		fprintf(f, ", \"%s\": %.6g", key, v);
	else
		fprintf(f, ", \"%s\": null", key);
}

static void
json_config(FILE *f, const struct perf_opts *o)
{
	unsigned int i;

	fprintf(f, "\"config\": {\"rounds\": %u, \"seconds\": %g, "
		"\"slices\": %u, \"warmup\": %g, \"bulk\": %u, \"window\": %u, "
		"\"obj_size\": %u, \"pool_size\": %u, \"data_room\": %u, "
		"\"ring_size\": %u, \"stall_ms\": %u, \"touch\": %s, "
		"\"rotate\": %s, \"lcores\": [",
		o->rounds, o->seconds, o->slices, o->warmup, o->bulk,
		o->window, o->obj_size, o->pool_size, o->data_room,
		o->ring_size,
		o->stall_ms, o->touch ? "true" : "false",
		o->rotate ? "true" : "false");
	for (i = 0; i < o->nb_lcores; i++)
		fprintf(f, "%s%u", i ? ", " : "", o->lcores[i]);
	fprintf(f, "], \"main_lcore\": %u, \"baseline\": ",
		rte_get_main_lcore());
	json_str(f, o->ops[o->baseline].label);
	fprintf(f, ", \"baseline_cache\": %u, \"ops\": [",
		o->ops[o->baseline].cache);
	for (i = 0; i < o->nb_ops; i++) {
		fprintf(f, "%s", i ? ", " : "");
		json_str(f, o->ops[i].arg);
	}
	fprintf(f, "]}");
}

static void
json_overload(FILE *f, double fail_per_obj, double ns_per_fail,
	double mb_per_s, double starved, double starved_max)
{
	json_num(f, "fail_per_obj", !isnan(fail_per_obj), fail_per_obj);
	json_num(f, "ns_per_fail", !isnan(ns_per_fail), ns_per_fail);
	json_num(f, "membarrier_per_s", !isnan(mb_per_s), mb_per_s);
	json_num(f, "starved", !isnan(starved), starved);
	json_num(f, "starved_max", !isnan(starved_max), starved_max);
}

static void
json_summary(FILE *f, const struct perf_entry *e)
{
	fprintf(f, ",\n       \"summary\": {\"rounds_ok\": %u", e->nb_ok);
	json_num(f, "mobjs", e->nb_ok != 0, e->mobjs_med);
	json_num(f, "mobjs_min", e->nb_ok != 0, e->mobjs_min);
	json_num(f, "mobjs_max", e->nb_ok != 0, e->mobjs_max);
	json_num(f, "cycles_per_obj", !isnan(e->cpo_med), e->cpo_med);
	json_num(f, "ratio", e->nb_ratio != 0, e->ratio_med);
	json_num(f, "ratio_min", e->nb_ratio != 0, e->ratio_min);
	json_num(f, "ratio_max", e->nb_ratio != 0, e->ratio_max);
	json_num(f, "share", e->nb_share != 0, e->share_med);
	json_num(f, "share_min", e->nb_share != 0, e->share_min);
	json_num(f, "share_max", e->nb_share != 0, e->share_max);
	fprintf(f, ", \"get_fail\": %" PRIu64, e->get_fail);
	json_overload(f, e->fail_per_obj, e->ns_per_fail, e->mb_per_s,
		e->starved, e->starved_max);
	fprintf(f, "}");
}

static void
json_round(FILE *f, const struct perf_sample *p, unsigned int r)
{
	fprintf(f, "%s\n        {\"round\": %u, \"status\": ", r ? "," : "",
		r);
	json_str(f, status_name(p->status));
	fprintf(f, ", \"objects\": %" PRIu64 ", \"wall_cycles\": %" PRIu64
		", \"lcore_cycles\": %" PRIu64, p->objects, p->wall_cycles,
		p->lcore_cycles);
	json_num(f, "mobjs", p->status == PERF_OK, p->mobjs);
	json_num(f, "cycles_per_obj", p->status == PERF_OK &&
		!isnan(p->cycles_per_obj), p->cycles_per_obj);
	json_num(f, "ratio", p->has_ratio, p->ratio);
	json_num(f, "share", p->has_share, p->share);
	fprintf(f, ", \"get_fail\": %" PRIu64 ", \"fail_cycles\": %" PRIu64,
		p->get_fail, p->fail_cycles);
	if (p->has_membarriers)
		fprintf(f, ", \"membarriers\": %" PRIu64, p->membarriers);
	else
		fprintf(f, ", \"membarriers\": null");
	json_overload(f, p->fail_per_obj, p->ns_per_fail, p->mb_per_s,
		p->status == PERF_OK ? p->starved : NAN,
		p->status == PERF_OK ? p->starved_max : NAN);
	fprintf(f, ", \"whole\": %s}", p->whole ? "true" : "false");
}

static void
json_entry(FILE *f, const struct perf_opts *o, const struct perf_entry *e)
{
	unsigned int r;

	fprintf(f, "{\"ops\": ");
	json_str(f, e->ops != NULL ? e->ops->name : perf_entry_label(e));
	fprintf(f, ", \"label\": ");
	json_str(f, perf_entry_label(e));
	if (e->ops != NULL)
		fprintf(f, ", \"cache\": %u, \"capacity\": %u", e->ops->cache,
			e->ops->sheaf.capacity);
	else
		fprintf(f, ", \"cache\": null, \"capacity\": null");
	fprintf(f, ", \"baseline\": %s, \"status\": ",
		e->baseline ? "true" : "false");
	json_str(f, entry_status_name(e));
	fprintf(f, ", \"reason\": ");
	json_str(f, e->reason);
	json_summary(f, e);
	fprintf(f, ",\n       \"rounds\": [");
	for (r = 0; r < o->rounds; r++)
		json_round(f, &e->rounds[r], r);
	fprintf(f, "]}");
}

int
perf_write_json(const char *path, const struct perf_opts *o,
	const struct perf_result *res, unsigned int nb)
{
	unsigned int s, i;
	FILE *f;

	f = fopen(path, "w");
	if (f == NULL) {
		fprintf(stderr, "--json %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "{\"tool\": \"sheaf-perf\", \"dpdk\": ");
	json_str(f, rte_version());
	fprintf(f, ", \"tsc_hz\": %" PRIu64 ",\n ", rte_get_tsc_hz());
	json_config(f, o);
	fprintf(f, ",\n \"scenarios\": [");
	for (s = 0; s < nb; s++) {
		fprintf(f, "%s\n  {\"name\": ", s ? "," : "");
		json_str(f, res[s].sc->name);
		fprintf(f, ", \"help\": ");
		json_str(f, res[s].sc->help);
		fprintf(f, ", \"entries\": [");
		for (i = 0; i < res[s].nb_entries; i++) {
			fprintf(f, "%s\n      ", i ? "," : "");
			json_entry(f, o, &res[s].entries[i]);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "]}\n");
	if (fclose(f) != 0) {
		fprintf(stderr, "--json %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}
