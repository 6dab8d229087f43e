#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors

"""Print one release's table of doc/performance.md from perf.sh's results.

The table of "Against each DPDK release", from a results directory of
`scripts/perf.sh --dpdk RELEASE`.

Each cell is the median, over the rounds both entries ran, of the
per-round ratio of sheaf without DPDK's cache (`sheaf:0`) to the column's
driver, then its smallest and largest round in brackets: local, pipeline
and mbuf from perf.json (Mobj/s of one round), testpmd from testpmd.csv
(sheaf `--mbcache=0` against ring_mp_mc with `--mbcache=0` and with
testpmd's default cache). A driver that did not run gives `-`.

Usage: release_table.py RESULTS_DIR [--release NAME]
"""

import argparse
import csv
import json
import os
import statistics
import sys

SCENARIOS = ("local", "pipeline", "mbuf")
# (label, ops, cache) of each column; the testpmd row's columns by mbcache.
COLUMNS = (("vs ring_mp_mc:256", "ring_mp_mc", 256),
           ("vs ring_mp_mc:0", "ring_mp_mc", 0),
           ("vs stack:0", "stack", 0))
TESTPMD = (("ring_mp_mc", "default"), ("ring_mp_mc", "0"), None)


def cell(ratios):
    if not ratios:
        return "-"
    return "%.3f (%.3f..%.3f)" % (statistics.median(ratios), min(ratios),
                                  max(ratios))


def round_ratios(a, b):
    """Per-round ratios of entry a to entry b (perf.json entries)."""
    rb = {r["round"]: r for r in b["rounds"] if r["status"] == "ok"}
    out = []
    for r in a["rounds"]:
        o = rb.get(r["round"])
        if r["status"] == "ok" and o is not None and o["mobjs"] > 0:
            out.append(r["mobjs"] / o["mobjs"])
    return out


def entry(scenario, ops, cache):
    for e in scenario["entries"]:
        if e["ops"] == ops and e["cache"] == cache and e["label"] == ops:
            return e
    return None


def perf_rows(path):
    with open(path) as f:
        data = json.load(f)
    by_name = {s["name"]: s for s in data["scenarios"]}
    rows = []
    for name in SCENARIOS:
        s = by_name.get(name)
        cells = []
        for _, ops, cache in COLUMNS:
            a = entry(s, "sheaf", 0) if s else None
            b = entry(s, ops, cache) if s else None
            cells.append(cell(round_ratios(a, b)) if a and b else "-")
        rows.append((name, cells))
    return data.get("dpdk", ""), rows


def testpmd_row(path):
    if not os.path.exists(path):
        return ["-"] * len(COLUMNS)
    pps = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            pps.setdefault((r["ops"], r["mbcache"]), {})[int(r["round"])] = \
                float(r["pps"])
    mine = pps.get(("sheaf", "0"), {})
    cells = []
    for col in TESTPMD:
        other = pps.get(col, {}) if col else {}
        ratios = [mine[k] / other[k] for k in sorted(mine)
                  if k in other and other[k] > 0]
        cells.append(cell(ratios))
    return cells


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--release", default=None,
                    help="the table's name (default: the JSON's DPDK)")
    args = ap.parse_args()
    js = os.path.join(args.results, "perf.json")
    if not os.path.exists(js):
        sys.exit("release_table: no %s" % js)
    dpdk, rows = perf_rows(js)
    name = args.release or dpdk
    print("| %s | %s |" % (name, " | ".join(c[0] for c in COLUMNS)))
    print("|%s|" % "|".join(["---"] * (len(COLUMNS) + 1)))
    for n, cells in rows:
        print("| %s | %s |" % (n, " | ".join(cells)))
    print("| testpmd | %s |" % " | ".join(
        testpmd_row(os.path.join(args.results, "testpmd.csv"))))


if __name__ == "__main__":
    main()
