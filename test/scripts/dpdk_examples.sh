#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# DPDK's own example apps with sheaf as their mbuf pool ops, as a user
# runs them: built out of tree (make, pkg-config) from the examples the
# linked DPDK installs, run on two null ports with the plugin (-d) and
# --mbuf-pool-ops-name sheaf.
#   l2fwd             forwards for a few seconds, exits on SIGINT ("Bye")
#   symmetric_mp      a primary and a secondary, each on its own lcore,
#                     both forwarding from one pool, both exit on SIGINT
#   client_server_mp  the server (primary) hands mbufs to a client
#                     (secondary, lcore id 2) that frees them; clients
#                     are SIGKILLed one after another while forwarding,
#                     each next one taking over the dead one's slot and
#                     DPDK mempool cache: none may die of anything but
#                     the kill, the server must go on forwarding. A
#                     smoke test: before 8f85182, runs of 60 and 100
#                     kills had clients crash on an mbuf handed out
#                     twice from the 46th and 53rd kill on; 20 kills
#                     rarely reach one (the kill app's cache rounds are
#                     that bug's test)
# Each app must have set up a sheaf pool (its log line).
#
# Usage: dpdk_examples.sh EXAMPLES_DIR [PLUGIN.so]
#   EXAMPLES_DIR  the DPDK's examples (<prefix>/share/dpdk/examples;
#                 Debian: package dpdk-doc)
# Environment:
#   SHEAF_EXAMPLE_KILLS  clients killed in client_server_mp (default 0:
#                        client_server_mp not run). Opt-in: a client
#                        killed inside DPDK's own put into its cache
#                        (the length stored before the pointer) leaves
#                        its successor a stale entry, with any driver
#                        (ring_mp_mc too): about 6 crashes in 1,650
#                        kills (doc/reliability.md, limits)
#   SHEAF_LOG_DIR        where to keep the apps' output
# Exit: 0 pass, 1 fail, 77 skip.

set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ $# -ge 1 ] || fail "usage: $0 EXAMPLES_DIR [PLUGIN.so]"
src=$1
so=${2:-}
kills=${SHEAF_EXAMPLE_KILLS:-0}

[ -f "$src/l2fwd/main.c" ] ||
	skip "no DPDK examples in $src (Debian: package dpdk-doc)"
command -v make > /dev/null || skip "make not found"
pkg-config --exists libdpdk || skip "no libdpdk.pc for the examples"
# Secondary processes map the primary's hugepage memory.
set_eal_mem huge 512

work=$(mktemp -d "${TMPDIR:-/tmp}/sheaf-examples.XXXXXX")
CLEANUP+=("$work")
new_log dpdk_examples
log=$LOG

# Build each app from a copy of its directory (the sources stay as
# installed); client_server_mp's apps share its shared/ directory.
for d in l2fwd multi_process/symmetric_mp multi_process/client_server_mp; do
	mkdir -p "$work/$(dirname "$d")"
	cp -r "$src/$d" "$work/$d" || fail "cannot copy $src/$d"
done
for d in l2fwd multi_process/symmetric_mp \
		multi_process/client_server_mp/mp_server \
		multi_process/client_server_mp/mp_client; do
	echo "build: $d ($(pkg-config --modversion libdpdk))" >> "$log"
	make -C "$work/$d" >> "$log" 2>&1 || {
		show_log "$log"
		fail "DPDK example $d did not build"
	}
done
l2fwd=$work/l2fwd/build/l2fwd
smp=$work/multi_process/symmetric_mp/build/symmetric_mp
server=$work/multi_process/client_server_mp/mp_server/build/mp_server
client=$work/multi_process/client_server_mp/mp_client/build/mp_client

eal=(--no-pci "${EAL_MP_BASE[@]}" --mbuf-pool-ops-name sheaf
	--log-level=lib.eal:error --log-level=lib.sheaf:debug)
if [ -n "$so" ]; then
	set_plugin "$so"
	eal+=(-d "$PLUGIN")
fi
# use_prefix NAME: a --file-prefix of its own for each app (fp), so
# that the next primary starts clean of the last one's processes. Their
# hugepage files go at exit (processes killed leave them).
fp=()
use_prefix() {
	new_file_prefix "examples-$1"
	fp=(--file-prefix "$FILE_PREFIX")
}
# Every app started, killed at exit whatever happened (stdbuf execs it:
# the pid is the app's).
apps=()
trap 'kill -9 "${apps[@]}" 2> /dev/null
	rm -f /dev/hugepages/sheaf-examples-*-"$$"map_*; cleanup' EXIT
ports=(--vdev net_null0 --vdev net_null1)
# Their statistics as printed, not a buffer's worth later.
lb=(stdbuf -oL -eL)

# app_log NAME: a log file for one app's output, beside the test's.
app_log() { echo "$log.$1"; }
# sheaf_pool LOG: the app set up a sheaf pool.
sheaf_pool() {
	grep -aq 'sheaf pool .* ready' "$1" || {
		show_log "$1"
		fail "$(basename "$1"): no 'sheaf pool <name> ready' line: not sheaf"
	}
}
# wait_line LOG PATTERN SECONDS PID: until LOG has PATTERN, PID alive.
wait_line() {
	local t=$(( $3 * 10 ))
	until grep -aq "$2" "$1"; do
		kill -0 "$4" 2> /dev/null || return 1
		t=$((t - 1))
		[ $t -gt 0 ] || return 1
		sleep 0.1
	done
}
# start LOG PATTERN WHAT CMD...: start an app in the background (its
# pid in PID), its output line-buffered in LOG, and wait until LOG has
# PATTERN; fail, saying WHAT did not start, if it does not come.
start() {
	local out=$1 pattern=$2 what=$3
	shift 3
	# Emptied first: the app's own redirection may come after the first
	# look, which would find the last app's line (and the kill below
	# land in this one's EAL start-up).
	: > "$out"
	"${lb[@]}" "$@" >> "$out" 2>&1 &
	PID=$!
	apps+=("$PID")
	wait_line "$out" "$pattern" 30 "$PID" ||
		{ show_log "$out"; fail "$what did not start"; }
}
# reap PID: wait for it, its exit status; off the list killed at exit
# (a pid reaped may name another process by then).
reap() {
	local rc a keep=()
	wait "$1"
	rc=$?
	for a in "${apps[@]}"; do
		[ "$a" = "$1" ] || keep+=("$a")
	done
	apps=("${keep[@]}")
	return $rc
}
# stop PID: SIGINT (the apps' handlers end them), its exit status.
stop() {
	kill -INT "$1" 2> /dev/null
	reap "$1"
}

# --- l2fwd ---
out=$(app_log l2fwd)
use_prefix l2fwd
start "$out" 'Port statistics' l2fwd \
	"$l2fwd" -l 0-1 "${fp[@]}" "${eal[@]}" "${ports[@]}" -- -p 0x3 -T 1
sleep 2
stop "$PID"
rc=$?
[ $rc -eq 0 ] && grep -aq '^Bye' "$out" ||
	{ show_log "$out"; fail "l2fwd: exit status $rc, expected 0 and 'Bye...'"; }
sheaf_pool "$out"
rx=$(grep -a 'Total packets received:' "$out" | tail -n 1 | awk '{ print $NF }')
[ "${rx:-0}" -gt 0 ] ||
	{ show_log "$out"; fail "l2fwd received no packets"; }
info "l2fwd: $rx packets received"

# --- symmetric_mp ---
out0=$(app_log symmetric_mp.0)
use_prefix symmetric_mp
out1=$(app_log symmetric_mp.1)
start "$out0" 'Finished Process Init' "symmetric_mp's primary" \
	"$smp" -l 0 --proc-type=primary "${fp[@]}" "${eal[@]}" "${ports[@]}" \
	-- -p 3 --num-procs=2 --proc-id=0
p0=$PID
start "$out1" 'Finished Process Init' "symmetric_mp's secondary" \
	"$smp" -l 1 --proc-type=secondary "${fp[@]}" "${eal[@]}" \
	-- -p 3 --num-procs=2 --proc-id=1
p1=$PID
sleep 2
stop "$p1"
rc1=$?
stop "$p0"
rc0=$?
[ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] || {
	show_log "$out0" 10
	show_log "$out1" 10
	fail "symmetric_mp: exit status $rc0 and $rc1, expected 0 and 0"
}
sheaf_pool "$out0"
for f in "$out0" "$out1"; do
	rx=$(grep -a 'Port 0: RX' "$f" | tail -n 1 | sed 's/.*RX - \([0-9]*\).*/\1/')
	[ "${rx:-0}" -gt 0 ] ||
		{ show_log "$f"; fail "symmetric_mp: $(basename "$f") received no packets"; }
done
info "symmetric_mp: both processes forwarded"

# --- client_server_mp, clients killed while forwarding ---
if [ "$kills" = 0 ]; then
	echo "PASS: DPDK examples l2fwd, symmetric_mp with sheaf (client_server_mp: SHEAF_EXAMPLE_KILLS=N)"
	exit 0
fi
outs=$(app_log mp_server)
use_prefix client_server_mp
outc=$(app_log mp_client)
start "$outs" 'Client  0' mp_server \
	"$server" -l 0-1 "${fp[@]}" "${eal[@]}" "${ports[@]}" -- -p 3 -n 1
ps=$PID
sheaf_pool "$outs"
# The server's receive count on port 0, from its latest statistics.
server_rx() {
	grep -a 'Port 0 - rx:' "$outs" | tail -n 1 |
		sed 's/.*rx: *\([0-9]*\).*/\1/'
}
taken=0
for i in $(seq 1 "$kills"); do
	# Killed once forwarding, not in its EAL start-up: DPDK's own
	# locks there (its heap's) would stay held by the dead.
	start "$outc" 'Finished Process Init' "client $i" \
		"$client" --lcores 2@1 --proc-type=secondary "${fp[@]}" \
		"${eal[@]}" -- -n 0
	pc=$PID
	sleep "0.$((RANDOM % 4 + 1))"
	kill -9 "$pc" 2> /dev/null
	reap "$pc"
	rc=$?
	if [ $rc -ne 137 ]; then
		show_log "$outc"
		fail "client $i exited $rc before it was killed (139: SIGSEGV, an mbuf handed out twice)"
	fi
	grep -aq 'slot taken over from dead process' "$outc" &&
		taken=$((taken + 1))
done
# Its statistics lcore shares the clients' CPU: a printout or two late.
rx0=$(server_rx)
for t in 1 2 3 4 5 6 7 8 9 10; do
	sleep 0.5
	rx1=$(server_rx)
	[ "${rx1:-0}" -le "${rx0:-0}" ] || break
done
if ! kill -0 "$ps" 2> /dev/null || [ "${rx1:-0}" -le "${rx0:-0}" ]; then
	show_log "$outs" 20
	fail "mp_server stopped forwarding after $kills dead clients (rx $rx0 -> $rx1)"
fi
stop "$ps"
rc=$?
[ $rc -eq 0 ] || { show_log "$outs" 20; fail "mp_server: exit status $rc, expected 0"; }
# Each client after the first inherits its predecessor's slot.
[ "$taken" -ge $((kills - 1)) ] ||
	fail "client_server_mp: $taken of $((kills - 1)) clients took a dead one's slot over"
info "client_server_mp: $kills clients killed while forwarding, $taken slots taken over, the server forwarding after them"
echo "PASS: DPDK examples l2fwd, symmetric_mp, client_server_mp with sheaf"
