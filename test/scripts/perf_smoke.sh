#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# The perf tools run end to end, briefly (a smoke test: no figure is
# asserted, speed is the perf app's business). sheaf-perf runs every
# scenario for one short round against every default ops and must exit 0
# (it exits 1 when a pool lost objects) and write a JSON report with a
# sheaf row per scenario; testpmd_perf.py must forward with sheaf and
# ring_mp_mc, loading the plugin from a world-writable directory, as in
# a checkout under /tmp (it copies the plugin where EAL accepts it, and
# must remove the copy at exit).
#
# Usage: perf_smoke.sh SHEAF_PERF TESTPMD_PERF_PY PLUGIN

set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
. "$here/common.sh"

perf=$1 tp=$2 plugin=$3
[ -x "$perf" ] || fail "$perf not built"
work=$(mktemp -d /tmp/sheaf-perf-smoke.XXXXXX)
CLEANUP+=("$work")

new_log perf_smoke
new_file_prefix perf
set_eal_mem nohuge 0
info "sheaf-perf, every scenario, one round"
"$perf" -l 0-1 --no-pci "${EAL_MEM[@]}" --file-prefix "$FILE_PREFIX" -- \
	--rounds 1 --seconds 0.02 --warmup 0 --quiet \
	--json "$work/perf.json" --csv "$work/perf.csv" < /dev/null > "$LOG" 2>&1 ||
	{ show_log "$LOG"; fail "sheaf-perf exited $?"; }
python3 - "$work/perf.json" <<'PY' >> "$LOG" 2>&1 || { show_log "$LOG"; fail "perf.json"; }
import json, sys

doc = json.load(open(sys.argv[1]))
text = json.dumps(doc)
for sc in ("local", "pipeline", "mbuf", "rx-burst", "rx-prefill",
           "rx-burst-low", "rx-prefill-low", "deferred"):
    assert '"%s"' % sc in text, "scenario %s missing from the report" % sc
print("perf.json: every scenario reported")
PY
[ -s "$work/perf.csv" ] || fail "perf.csv is empty"

if ! command -v dpdk-testpmd > /dev/null; then
	info "dpdk-testpmd not installed: testpmd_perf.py not run"
	exit 0
fi
# The plugin and the library it links, laid out as in a build directory,
# under /tmp (world-writable).
mkdir -p "$work/drivers" "$work/lib/sheaf"
cp "$plugin" "$work/drivers/"
lib=$(ldd "$plugin" | awk '$1 ~ /^librte_sheaf/ && $3 ~ /^\// { print $3 }')
[ -n "$lib" ] && cp "$lib" "$work/lib/sheaf/"
info "testpmd_perf.py, plugin under $work"
python3 "$tp" --plugin "$work/drivers/$(basename "$plugin")" --no-huge \
	--ops sheaf,ring_mp_mc --mbcache 0 --baseline ring_mp_mc:0 \
	--rounds 1 --seconds 0.3 --warmup 0.2 < /dev/null >> "$LOG" 2>&1 ||
	{ show_log "$LOG"; fail "testpmd_perf.py exited non-zero"; }
grep -Eq '^sheaf +0 +[0-9.]+ ' "$LOG" ||
	{ show_log "$LOG"; fail "no sheaf rate in the testpmd_perf.py report"; }
copy=$(sed -n 's/.*loading a copy, //p' "$LOG" | head -n 1)
[ -n "$copy" ] || fail "the plugin under /tmp was not copied"
[ ! -e "$copy" ] || fail "testpmd_perf.py left its copy $copy behind"
info "ok"
exit 0
