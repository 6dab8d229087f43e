#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# Query the sheaf telemetry commands of a running dpdk-testpmd, its mbuf
# pool driven by sheaf, with DPDK's own client dpdk-telemetry.py:
# /sheaf/list must name mb_pool_0, /sheaf/info and /sheaf/stats must be
# well-formed with plausible numbers, while forwarding and once stopped,
# and an unknown pool must get no data.
#
# Usage: telemetry.sh PLUGIN.so
# Environment:
#   DPDK_TESTPMD_BIN   the testpmd binary (default: dpdk-testpmd)
#   DPDK_TELEMETRY_BIN the client (default: dpdk-telemetry.py)
#   SHEAF_LOG_DIR      where to keep testpmd's output
# Exit: 0 pass, 1 fail, 77 skip.

set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ $# -eq 1 ] || fail "usage: $0 PLUGIN.so"
bin=${DPDK_TESTPMD_BIN:-dpdk-testpmd}
client=${DPDK_TELEMETRY_BIN:-dpdk-telemetry.py}
pool=mb_pool_0
mbufs=8192
command -v "$bin" > /dev/null || skip "$bin not found (package dpdk-dev)"
command -v "$client" > /dev/null || skip "$client not found (package dpdk)"
command -v python3 > /dev/null || skip "python3 not found"

set_plugin "$1"
new_file_prefix telemetry
new_log telemetry
log=$LOG
work=$(mktemp -d /tmp/sheaf-telemetry.XXXXXX)
CLEANUP+=("$work")
args=(-l 0-1 --file-prefix "$FILE_PREFIX" --no-pci --no-huge -m 1024
	--vdev net_null0 --vdev net_null1 -d "$PLUGIN"
	--mbuf-pool-ops-name sheaf
	-- -i --forward-mode=io --total-num-mbufs="$mbufs" --mbcache=0)
testpmd_start "$bin" "$log" 120 "${args[@]}"

# query NAME: run the sheaf commands through dpdk-telemetry.py, one JSON
# reply per line, into $work/NAME.json.
query() {
	printf '%s\n' /sheaf/list "/sheaf/info,$pool" "/sheaf/stats,$pool" \
		/sheaf/info,no_such_pool /sheaf/stats |
		timeout 30 python3 "$(command -v "$client")" -f "$FILE_PREFIX" \
		> "$work/$1.json" 2>&1 ||
		{ cat "$work/$1.json"; fail "$client failed"; }
	echo "--- $1"; cat "$work/$1.json"
}

testpmd_wait 0 60
testpmd_cmd start
sleep 1
query running
testpmd_cmd stop
query stopped
testpmd_quit || { show_log "$log"; fail "testpmd exited with an error"; }

python3 - "$work" "$pool" "$mbufs" <<'PY' || fail "telemetry replies wrong"
import json, sys

work, pool, mbufs = sys.argv[1], sys.argv[2], int(sys.argv[3])
STATS = ['alloc_fast', 'alloc_slow', 'free_fast', 'free_slow', 'alloc_fail',
         'swap', 'barn_get', 'barn_put', 'refill', 'flush_main', 'prefill',
         'free_deferred', 'deferred_reclaim', 'grow', 'shrink']
INFO = ['size', 'capacity', 'capacity_max', 'barn_max_full', 'barn_max_empty', 'nb_barns',
        'nb_slabs', 'nb_sheaves', 'in_slabs', 'in_barns', 'barn_full',
        'barn_empty', 'in_lcores', 'nb_lcores', 'nb_borrowed', 'in_deferred',
        'avail', 'in_use', 'stranded_max', 'lcore_capacity']
bad = []

def check(cond, what):
    if not cond:
        bad.append(what)

for phase in ('running', 'stopped'):
    # One reply per line, in the order query() sends the commands.
    with open(f'{work}/{phase}.json') as f:
        r = [json.loads(line) for line in f if line.strip()]
    check(len(r) == 5, f'{phase}: {len(r)} replies, expected 5')
    if len(r) != 5:
        continue
    lst, info = r[0].get('/sheaf/list'), r[1].get('/sheaf/info')
    stats, unknown = r[2].get('/sheaf/stats'), r[3].get('/sheaf/info', 0)
    noparam = r[4].get('/sheaf/stats', 0)
    check(isinstance(lst, list) and pool in lst,
          f'{phase}: /sheaf/list is {lst}, expected a list with {pool}')
    check(noparam is None, f'{phase}: /sheaf/stats without a pool got {noparam}')
    check(unknown is None, f'{phase}: unknown pool got {unknown}')
    check(isinstance(info, dict) and all(k in info for k in INFO),
          f'{phase}: /sheaf/info {info} lacks fields of {INFO}')
    if isinstance(info, dict) and all(k in info for k in INFO):
        check(info['name'] == pool, f'{phase}: name {info["name"]}')
        check(info['size'] == mbufs, f'{phase}: size {info["size"]}, expected {mbufs}')
        check(0 < info['capacity'] <= info['capacity_max'] <= 512,
              f'{phase}: capacity {info["capacity"]}-{info["capacity_max"]}')
        caps = info['lcore_capacity']
        check(isinstance(caps, dict) and len(caps) >= 1 and all(
            info['capacity'] <= c <= info['capacity_max'] for c in caps.values()),
            f'{phase}: lcore_capacity {caps} not within the pool\'s')
        check(info['nb_barns'] >= 1, f'{phase}: nb_barns {info["nb_barns"]}')
        held = info['in_slabs'] + info['in_barns'] + info['in_lcores']
        # While forwarding the placement is read racily: objects move
        # between tiers during the read. Once stopped it is exact.
        if phase == 'stopped':
            check(held <= info['size'], f'{phase}: slabs+barns+lcores {held} > size')
            check(info['in_barns'] <= info['barn_full'] * info['capacity_max'],
                  f'{phase}: in_barns {info["in_barns"]} over barn_full x capacity_max')
            check(info['avail'] + info['in_use'] == info['size'],
                  f'{phase}: avail + in_use != size')
            # The null ports hold no mbuf once stopped, and no DPDK cache.
            check(held == info['size'] and info['in_use'] == 0,
                  f'{phase}: {held} objects placed, {info["in_use"]} in use, '
                  f'expected {info["size"]} and 0')
    check(isinstance(stats, dict) and all(
        isinstance(stats.get(k), int) for k in STATS),
        f'{phase}: /sheaf/stats {stats} lacks counters')
    if isinstance(stats, dict) and all(isinstance(stats.get(k), int) for k in STATS):
        check(stats['alloc_fast'] + stats['alloc_slow'] > 0,
              f'{phase}: no allocation counted while forwarding')
for b in bad:
    print('FAIL:', b)
sys.exit(1 if bad else 0)
PY
echo "PASS: sheaf telemetry from a running testpmd"
exit 0
