#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# Forward packets between two null ports with dpdk-testpmd, its mbuf pool
# driven by sheaf, then check that packets flowed and that every mbuf is
# back in the pool once forwarding stopped.
#
# Usage: testpmd_smoke.sh huge|nohuge CACHE [PLUGIN.so]
#   CACHE    testpmd's --mbcache (DPDK per-lcore cache), or "default" (250)
#   PLUGIN   the mempool plugin to load with -d (none: ops must be built in)
# Environment:
#   SHEAF_OPS        ops name for --mbuf-pool-ops-name (default: sheaf)
#   DPDK_TESTPMD_BIN the testpmd binary (default: dpdk-testpmd from PATH)
#   SHEAF_LCORES     EAL lcore list (default: 0-1)
#   SHEAF_MBUFS      --total-num-mbufs (default: 32768)
#   SHEAF_FWD_SECONDS  how long to forward (default: 2)
#   SHEAF_RUN_TIMEOUT  seconds before testpmd is killed (default: 150)
#   SHEAF_LOG_DIR    where to keep testpmd's output (default: a temporary
#                    file, kept only on failure)
# Exit: 0 pass, 1 fail, 77 skip.

set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ $# -ge 2 ] || fail "usage: $0 huge|nohuge CACHE [PLUGIN.so]"
mode=$1
cache=$2
so=${3:-}
ops=${SHEAF_OPS:-sheaf}
bin=${DPDK_TESTPMD_BIN:-dpdk-testpmd}
lcores=${SHEAF_LCORES:-0-1}
mbufs=${SHEAF_MBUFS:-32768}
fwd_s=${SHEAF_FWD_SECONDS:-2}
pool=mb_pool_0

command -v "$bin" > /dev/null || skip "$bin not found (package dpdk-dev)"
set_eal_mem "$mode" 256
new_file_prefix "testpmd-$mode-c$cache"
args=(-l "$lcores" --file-prefix "$FILE_PREFIX" --no-pci "${EAL_MEM[@]}"
	--vdev net_null0 --vdev net_null1
	--mbuf-pool-ops-name "$ops" --log-level=lib.sheaf:debug)
if [ -n "$so" ]; then
	set_plugin "$so"
	args+=(-d "$PLUGIN")
fi
args+=(-- -i --forward-mode=io --total-num-mbufs="$mbufs")
[ "$cache" = default ] || args+=(--mbcache="$cache")

new_log "testpmd-$mode-cache-$cache"
log=$LOG
[ "$mode" = huge ] && TESTPMD_HUGE=1
testpmd_start "$bin" "$log" "${SHEAF_RUN_TIMEOUT:-150}" "${args[@]}"

testpmd_wait 0 120
testpmd_cmd start
sleep "$fwd_s"
stop_at=$(wc -l < "$log")
testpmd_cmd stop
testpmd_cmd "show port stats all"
# The command that dumps one pool is "dump_mempool NAME" up to 24.11
# (22.11 leaves it out of its help) and "dump mempool NAME" in 25.11 and
# later: try the new one, then the old.
for cmd in "dump mempool $pool" "dump_mempool $pool"; do
	from=$(wc -l < "$log")
	testpmd_cmd "$cmd"
	tail -n "+$from" "$log" | grep -q "mempool <$pool>@" && break
done
dump_at=$(grep -n "mempool <$pool>@" "$log" | tail -n 1 | cut -d: -f1)
testpmd_quit
rc=$?
[ $rc -eq 0 ] || { show_log "$log"; fail "testpmd exited with status $rc"; }

# The ops: testpmd names the ops it picked, the dump names the pool's.
grep -q "preferred mempool ops selected: $ops\$" "$log" ||
	{ show_log "$log"; fail "testpmd did not select ops '$ops'"; }
[ -n "$dump_at" ] || { show_log "$log"; fail "no dump of mempool $pool"; }
# Print VALUE for "KEY=VALUE" in the dump of $pool.
dump_val() {
	tail -n "+$dump_at" "$log" | awk -v k="$1" -v pool="$pool" '
		NR > 1 && /^mempool </ { exit }
		$1 ~ ("^" k "=") { sub(/^[^=]*=/, "", $1); print $1; exit }
		$1 == k ":" { print $2; exit }'
}
used_ops=$(dump_val ops_name)
[ "$used_ops" = "<$ops>" ] ||
	fail "mempool $pool uses ops $used_ops, expected <$ops>"
if [ "$ops" = sheaf ]; then
	grep -q "sheaf pool $pool ready" "$log" ||
		{ show_log "$log"; fail "no 'sheaf pool $pool ready' log line"; }
fi

# Packets flowed: the accumulated stats that stop prints.
acc() {
	tail -n "+$stop_at" "$log" | awk -v k="$1" '
		/Accumulated forward statistics/ { a = 1 }
		a && $1 == k ":" { print $2; exit }'
}
rx=$(acc RX-packets)
tx=$(acc TX-packets)
info "forwarded in ${fwd_s} s: RX-packets ${rx:-?}, TX-packets ${tx:-?}"
if [ "${rx:-0}" -le 0 ] || [ "${tx:-0}" -le 0 ]; then
	show_log "$log" 60
	fail "no packets forwarded"
fi

# Every mbuf is back: the null ports hold none once stopped, so the
# pool's count plus DPDK's per-lcore caches must be the whole pool.
# (rte_mempool_dump clamps an over-count, so only a loss shows here.)
size=$(dump_val populated_size)
common=$(dump_val common_pool_count)
cached=$(dump_val total_cache_count)
cached=${cached:-0}
info "pool $pool: populated_size $size, common_pool_count $common," \
	"total_cache_count $cached"
if [ -z "$size" ] || [ -z "$common" ]; then
	show_log "$log" 60
	fail "cannot read the dump of mempool $pool"
fi
if [ $((common + cached)) -ne "$size" ]; then
	fail "mbufs missing after stop: common_pool_count $common +" \
		"total_cache_count $cached = $((common + cached)), expected $size"
fi
echo "PASS: testpmd io forwarding ($mode, mbcache $cache, ops $ops)"
exit 0
