#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors

"""Plot sheaf-perf results: one PNG per scenario.

Reads the file written by `sheaf-perf ... -- --json FILE` or `--csv FILE`
and draws, per scenario, the median Mobj/s of each ops (error bars: min
and max over rounds) next to the median per-round ratio to the baseline
(error bars: its min and max). On a noisy machine the ratio panel is the
one to read. The floor, limit and ceiling rows are green.

Usage: plot.py RESULTS.{json,csv} [-o PREFIX]
Writes PREFIX-<scenario>.png (PREFIX defaults to RESULTS without its
extension). Needs matplotlib (Debian: apt-get install python3-matplotlib);
without it the script says so and exits 0.
"""

import argparse
import csv
import json
import os
import sys

SYSTEM_PYTHON = "/usr/bin/python3"
# Rows that measure no driver of the comparison: the floor (perf_floor
# ops), the limit and the ceiling (no pool). Drawn apart.
YARDSTICKS = ("floor", "limit", "ceiling")


def load_json(path):
    with open(path) as f:
        doc = json.load(f)
    out = {}
    for sc in doc["scenarios"]:
        rows = []
        for e in sc["entries"]:
            s = e["summary"]
            rows.append({
                "label": e["label"] if e["cache"] is None
                else "%s:%s" % (e["label"], e["cache"]),
                "status": e["status"],
                "baseline": e["baseline"],
                "mobjs": s["mobjs"], "mobjs_min": s["mobjs_min"],
                "mobjs_max": s["mobjs_max"],
                "ratio": s["ratio"], "ratio_min": s["ratio_min"],
                "ratio_max": s["ratio_max"],
            })
        out[sc["name"]] = rows
    return out


def load_csv(path):
    def num(v):
        return float(v) if v != "" else None

    out = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["kind"] != "summary":
                continue
            label = r["label"] if r["cache"] == "" \
                else "%s:%s" % (r["label"], r["cache"])
            out.setdefault(r["scenario"], []).append({
                "label": label,
                "status": r["status"],
                "baseline": r["baseline"] == "1",
                "mobjs": num(r["mobjs"]), "mobjs_min": num(r["mobjs_min"]),
                "mobjs_max": num(r["mobjs_max"]),
                "ratio": num(r["ratio"]), "ratio_min": num(r["ratio_min"]),
                "ratio_max": num(r["ratio_max"]),
            })
    return out


def import_pyplot():
    """matplotlib.pyplot, or None. Retries under the system python,
    which may have Debian's python3-matplotlib when another python3
    (pyenv, venv) comes first in PATH."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        pass
    if (os.path.exists(SYSTEM_PYTHON)
            and os.path.realpath(sys.executable)
            != os.path.realpath(SYSTEM_PYTHON)
            and "SHEAF_PLOT_REEXEC" not in os.environ):
        os.environ["SHEAF_PLOT_REEXEC"] = "1"
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    return None


def bars(ax, rows, key, title, ylabel):
    xs = list(range(len(rows)))
    vals, lo, hi, colors = [], [], [], []
    for r in rows:
        v = r[key]
        vals.append(v if v is not None else 0)
        lo.append(v - r[key + "_min"] if v is not None else 0)
        hi.append(r[key + "_max"] - v if v is not None else 0)
        colors.append("tab:gray" if r["baseline"]
                      else "tab:red" if r["status"] != "ok"
                      else "tab:green" if r["label"].split(":")[0]
                      in YARDSTICKS
                      else "tab:blue")
    ax.bar(xs, vals, yerr=[lo, hi], capsize=4, color=colors)
    for x, r in zip(xs, rows):
        if r["status"] != "ok":
            ax.text(x, 0, r["status"], rotation=90, ha="center",
                    va="bottom", fontsize=8)
    ax.set_xticks(xs)
    ax.set_xticklabels([r["label"] for r in rows], rotation=30, ha="right")
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="sheaf-perf --json or --csv output")
    ap.add_argument("-o", "--prefix",
                    help="output prefix (default: results file stem)")
    args = ap.parse_args()

    try:
        if args.results.endswith(".json"):
            data = load_json(args.results)
        else:
            data = load_csv(args.results)
    except (OSError, ValueError, KeyError) as e:
        print("plot.py: cannot read %s: %s" % (args.results, e),
              file=sys.stderr)
        return 1

    plt = import_pyplot()
    if plt is None:
        print("plot.py: matplotlib is not installed, no plot drawn; "
              "install it (apt-get install python3-matplotlib, or "
              "pip install matplotlib) and rerun", file=sys.stderr)
        return 0

    prefix = args.prefix or os.path.splitext(args.results)[0]
    for name, rows in data.items():
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(12, 4.5))
        bars(a1, rows, "mobjs", "%s: Mobj/s (median, min-max)" % name,
             "Mobj/s")
        bars(a2, rows, "ratio",
             "%s: ratio to baseline (per-round median, min-max)" % name,
             "ratio")
        a2.axhline(1.0, color="black", linewidth=0.8)
        fig.tight_layout()
        out = "%s-%s.png" % (prefix, name)
        fig.savefig(out, dpi=100)
        plt.close(fig)
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
