#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# The perf tools run end to end, briefly (a smoke test: no figure is
# asserted, speed is the perf app's business). sheaf-perf runs every
# scenario for one short round against every default ops with --strict,
# so it must exit 0: no entry failed, stalled or lost objects. Its JSON
# report must then hold every entry (each default ops and each extra row,
# in each scenario) with a result for its round. testpmd_perf.py must
# forward with sheaf, ring_mp_mc and the floor ops, loading both plugins
# from a world-writable directory, as in a checkout under /tmp (it copies
# them where EAL accepts them, and must remove the copies at exit).
#
# Usage: perf_smoke.sh SHEAF_PERF TESTPMD_PERF_PY PLUGIN FLOOR_PLUGIN

set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
. "$here/common.sh"

perf=$1 tp=$2 plugin=$3 floor=$4
[ -x "$perf" ] || fail "$perf not built"
work=$(mktemp -d /tmp/sheaf-perf-smoke.XXXXXX)
CLEANUP+=("$work")

new_log perf_smoke
new_file_prefix perf
set_eal_mem nohuge 0
info "sheaf-perf --strict, every scenario, one round"
"$perf" -l 0-1 --no-pci "${EAL_MEM[@]}" --file-prefix "$FILE_PREFIX" -- \
	--rounds 1 --seconds 0.02 --warmup 0 --quiet --strict \
	--json "$work/perf.json" --csv "$work/perf.csv" < /dev/null > "$LOG" 2>&1 ||
	{ rc=$?; show_log "$LOG"; fail "sheaf-perf --strict exited $rc"; }
python3 - "$work/perf.json" <<'PY' >> "$LOG" 2>&1 || { show_log "$LOG"; fail "perf.json"; }
import json, sys

# The default ops set, and the rows each scenario adds to it.
DEFAULT_OPS = ["sheaf:0", "sheaf:256", "ring_mp_mc:256", "ring_mp_mc:0",
               "stack:0", "bucket:0"]
EXTRA = {"local": ["floor:0"], "pipeline": ["limit", "ceiling"],
         "mbuf": ["floor:0"], "rx-burst": ["floor:0"],
         "rx-chunk": ["floor:0"], "rx-prefill": [], "rx-burst-low": [],
         "rx-chunk-low": [], "rx-prefill-low": [], "exhausted": [],
         "deferred": []}
SHEAF_ONLY = ("rx-prefill", "rx-prefill-low")
# Scenarios whose gets fail on purpose: every entry has the overload
# figures (null where there is none, e.g. no membarrier count).
OVERLOAD = ("rx-burst-low", "rx-chunk-low", "rx-prefill-low", "exhausted")
OVERLOAD_KEYS = ("fail_per_obj", "ns_per_fail", "membarrier_per_s",
                 "starved", "starved_max")
# Overload scenarios of an RX queue: the starved share is measured.
RX_OVERLOAD = ("rx-burst-low", "rx-chunk-low", "rx-prefill-low")

doc = json.load(open(sys.argv[1]))
rounds = doc["config"]["rounds"]
assert doc["config"]["slices"] == 5, \
    "default slices %s, expected 5" % doc["config"]["slices"]
assert doc["config"]["ops"] == DEFAULT_OPS, \
    "default ops %s, expected %s" % (doc["config"]["ops"], DEFAULT_OPS)
scenarios = {sc["name"]: sc for sc in doc["scenarios"]}
bad = []
for name, extra in EXTRA.items():
    if name not in scenarios:
        bad.append("scenario %s missing from the report" % name)
        continue
    entries = {}
    for e in scenarios[name]["entries"]:
        key = e["label"] if e["cache"] is None \
            else "%s:%s" % (e["label"], e["cache"])
        entries[key] = e
    for key in DEFAULT_OPS + extra:
        e = entries.get(key)
        where = "%s %s" % (name, key)
        if e is None:
            bad.append("%s: no entry" % where)
        elif e["status"] == "n/a":
            if name not in SHEAF_ONLY or key.startswith("sheaf"):
                bad.append("%s: n/a (%s)" % (where, e["reason"]))
        elif e["status"] != "ok":
            bad.append("%s: %s (%s)" % (where, e["status"], e["reason"]))
        elif (e["summary"]["rounds_ok"] != rounds
                or e["summary"]["mobjs"] is None
                or len(e["rounds"]) != rounds
                or not all(r["whole"] and r["status"] == "ok"
                           for r in e["rounds"])):
            bad.append("%s: no result for every round" % where)
        elif name in OVERLOAD and (
                any(k not in e["summary"] for k in OVERLOAD_KEYS)
                or e["summary"]["ns_per_fail"] is None
                and e["summary"]["get_fail"] != 0):
            bad.append("%s: no overload figures" % where)
        elif name in RX_OVERLOAD and not all(
                v is not None and 0 <= v <= 1
                for s in [e["summary"]] + e["rounds"]
                for v in (s["starved"], s["starved_max"])):
            bad.append("%s: no starved share" % where)
for b in bad:
    print("perf.json: " + b)
assert not bad, "%d entries missing or without results" % len(bad)
print("perf.json: every entry of every scenario has its results")
PY
[ -s "$work/perf.csv" ] || fail "perf.csv is empty"
# Slices shorter than 1 ms are refused before EAL's lcores run (usage).
"$perf" -l 0 --no-pci "${EAL_MEM[@]}" --file-prefix "$FILE_PREFIX" -- \
	--scenario local --seconds 0.004 --slices 5 < /dev/null >> "$LOG" 2>&1
rc=$?
[ $rc = 2 ] || { show_log "$LOG"; fail "slices of 0.8 ms: exit $rc, expected 2"; }
grep -q "shorter than 1 ms" "$LOG" || fail "no reason for refused slices"

if ! command -v dpdk-testpmd > /dev/null; then
	info "dpdk-testpmd not installed: testpmd_perf.py not run"
	exit 0
fi
# The plugin and the library it links, laid out as in a build directory,
# under /tmp (world-writable).
mkdir -p "$work/drivers" "$work/lib/sheaf" "$work/app"
cp "$plugin" "$work/drivers/"
cp "$floor" "$work/app/"
lib=$(ldd "$plugin" | awk '$1 ~ /^librte_sheaf/ && $3 ~ /^\// { print $3 }')
[ -n "$lib" ] && cp "$lib" "$work/lib/sheaf/"
info "testpmd_perf.py, plugin under $work"
python3 "$tp" --plugin "$work/drivers/$(basename "$plugin")" \
	--floor-plugin "$work/app/$(basename "$floor")" --no-huge \
	--ops sheaf,ring_mp_mc --mbcache 0 --baseline ring_mp_mc:0 \
	--rounds 1 --seconds 0.3 --warmup 0.2 < /dev/null >> "$LOG" 2>&1 ||
	{ show_log "$LOG"; fail "testpmd_perf.py exited non-zero"; }
for row in sheaf floor; do
	grep -Eq "^$row +0 +[0-9.]+ " "$LOG" ||
		{ show_log "$LOG"; fail "no $row rate in the testpmd_perf.py report"; }
done
copies=$(sed -n 's/.*loading a copy, //p' "$LOG")
[ "$(echo "$copies" | grep -c .)" = 2 ] ||
	fail "the plugins under /tmp were not both copied"
for copy in $copies; do
	[ ! -e "$copy" ] || fail "testpmd_perf.py left its copy $copy behind"
done
info "ok"
exit 0
