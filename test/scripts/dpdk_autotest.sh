#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# Run one of DPDK's own autotests (dpdk-test) with the sheaf plugin
# loaded and sheaf as the default mbuf pool ops, and check that the test
# passed and that sheaf pools were really set up.
#
# Usage: dpdk_autotest.sh TEST huge|nohuge [PLUGIN.so]
#   TEST     a dpdk-test command, e.g. mempool_autotest or mbuf_autotest
#   PLUGIN   the mempool plugin to load with -d (none: ops must be built in)
# Environment:
#   SHEAF_OPS      ops name for --mbuf-pool-ops-name (default: sheaf)
#   DPDK_TEST_BIN  the dpdk-test binary (default: dpdk-test from PATH)
#   SHEAF_LCORES   EAL lcore list (default: 0-1)
#   SHEAF_RUN_TIMEOUT  seconds before the run is killed (default: 150)
#   SHEAF_LOG_DIR  where to keep the run's output (default: a temporary
#                  file, kept only on failure)
# Exit: 0 pass, 1 fail, 77 skip.

set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ $# -ge 2 ] || fail "usage: $0 TEST huge|nohuge [PLUGIN.so]"
test_name=$1
mode=$2
so=${3:-}
ops=${SHEAF_OPS:-sheaf}
bin=${DPDK_TEST_BIN:-dpdk-test}
lcores=${SHEAF_LCORES:-0-1}

command -v "$bin" > /dev/null || skip "$bin not found (package dpdk-dev)"
set_eal_mem "$mode" 256
new_file_prefix "${test_name%_autotest}-$mode"
args=(-l "$lcores" --file-prefix "$FILE_PREFIX" --no-pci "${EAL_MEM[@]}"
	--mbuf-pool-ops-name "$ops" --log-level=lib.sheaf:debug)
if [ -n "$so" ]; then
	set_plugin "$so"
	args+=(-d "$PLUGIN")
fi

new_log "$test_name-$mode"
log=$LOG
echo "run: DPDK_TEST=$test_name $bin ${args[*]}"
DPDK_TEST=$test_name timeout -k 10 "${SHEAF_RUN_TIMEOUT:-150}" \
	"$bin" "${args[@]}" < /dev/null > "$log" 2>&1
rc=$?

if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
	show_log "$log"
	fail "$test_name timed out"
fi
if [ "$mode" = huge ] && [ $rc -ne 0 ] && eal_out_of_memory "$log"; then
	show_log "$log" 10
	skip "EAL could not get its hugepage memory"
fi
if [ $rc -eq $SKIP ] || grep -q '^Test Skipped' "$log"; then
	skip "$test_name reported it skipped"
fi
# Without membarrier() (the library's INFO line says so) an idle lcore
# keeps its objects: mbuf_autotest's refcnt test has a worker free every
# mbuf, then wait (idle) while the main lcore gets them all back from a
# pool without cache, which takes what that lcore's sheaves hold.
if [ $rc -ne 0 ] && grep -q 'membarrier() registration: private no' "$log" &&
		grep -q 'test_refcnt_iter' "$log"; then
	show_log "$log" 10
	skip "$test_name: its refcnt test needs an idle lcore's objects back, and membarrier() is unavailable"
fi
if [ $rc -ne 0 ] || ! grep -q '^Test OK' "$log"; then
	show_log "$log"
	fail "$test_name: exit status $rc, expected 0 and 'Test OK'"
fi

# With sheaf as the ops, the library must have set up at least one pool:
# mempool_autotest's default_pool and mbuf_autotest's pktmbuf pools take
# the default ops that --mbuf-pool-ops-name sets.
if [ "$ops" = sheaf ]; then
	ready=$(grep -c 'sheaf pool .* ready' "$log")
	if [ "$ready" -lt 1 ]; then
		show_log "$log"
		fail "no 'sheaf pool <name> ready' log line: the sheaf ops were not used"
	fi
	info "$ready sheaf pool(s) set up: $(grep -o 'sheaf pool [^ ]* ready' "$log" |
		awk '{ print $3 }' | sort -u | tr '\n' ' ')"
fi
if grep -q '^Testing .* mempool handler' "$log"; then
	info "$(grep -m1 '^Testing .* mempool handler' "$log")"
fi
echo "PASS: $test_name ($mode, ops $ops)"
exit 0
