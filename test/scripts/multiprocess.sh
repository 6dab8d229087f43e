#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# A primary creates a sheaf pool and churns it on lcore 0; two secondaries
# churn it meanwhile, one on lcore 1, then one on the primary's own lcore
# id 0 but another CPU (its slot is the primary's: it must use the shared
# tiers, in parallel with the primary using the slot); last, one on lcore
# 1, which must take over the slot the first one left at exit, and which
# SIGKILLs itself with objects in its sheaves and in two borrowed prefill
# sheaves. The primary then gets the whole pool: it takes back what the
# dead process's slot and borrowed sheaves held; every object but the two
# the dead one took from its sheaves must come back, each once. Secondary
# processes need hugepage memory: skipped without it.
#
# Usage: multiprocess.sh APP
# Exit: 0 pass, 1 fail, 77 skip.

set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ $# -ge 1 ] || fail "usage: $0 APP"
app=$1
[ -x "$app" ] || fail "$app not built"
[ "$(nproc)" -ge 2 ] || skip "fewer than 2 CPUs"
set_eal_mem huge 128
new_file_prefix mp
new_log multiprocess
eal=(--file-prefix "$FILE_PREFIX" --no-pci "${EAL_MP_BASE[@]}"
	--log-level=lib.eal:error)

go=$LOG.go
CLEANUP+=("$LOG.primary" "$LOG.sec1" "$LOG.sec0" "$LOG.kill" "$go")
rm -f "$go"
"$app" -l 0 "${eal[@]}" -- primary "$go" > "$LOG.primary" 2>&1 &
primary=$!
for _ in $(seq 1 300); do
	grep -q "primary ready" "$LOG.primary" && break
	kill -0 $primary 2>/dev/null || break
	sleep 0.1
done
if ! grep -q "primary ready" "$LOG.primary"; then
	kill $primary 2>/dev/null
	cat "$LOG.primary" >> "$LOG"
	grep -q "^SKIP" "$LOG.primary" && skip "primary: $(grep ^SKIP "$LOG.primary")"
	show_log "$LOG"
	fail "primary did not start"
fi

# run_secondary OUT LCORE-ARGS... -- MODE SECONDS: a secondary attaches
# only where it can map the primary's memory at the same addresses
# (EAL_MP_BASE keeps them clear); should that fail (EAL init, exit 77),
# try once more before giving up.
attach_failed=0
run_secondary() {
	local out=$1 rc
	shift
	for _ in 1 2; do
		"$app" --proc-type=secondary "${eal[@]}" "$@" > "$out" 2>&1
		rc=$?
		[ $rc = 77 ] || break
		info "a secondary could not attach: $(grep ^SKIP "$out")"
	done
	[ $rc = 77 ] && attach_failed=1
	return $rc
}

# One after the other, so that each CPU runs one busy process besides
# the primary, which yields: first lcore 1, then lcore 0 on CPU 1, in
# parallel with the primary using lcore 0 on CPU 0.
run_secondary "$LOG.sec1" -l 1 -- secondary 1.5
rc1=$?
run_secondary "$LOG.sec0" --lcores 0@1 -- secondary 1.5
rc0=$?
# Killed (SIGKILL, no clean-up) with objects in lcore 1's sheaves.
run_secondary "$LOG.kill" -l 1 -- secondary-kill 0.5
rck=$?
touch "$go"
wait $primary; rcp=$?
cat "$LOG.primary" "$LOG.sec1" "$LOG.sec0" "$LOG.kill" >> "$LOG"
grep -v '^EAL\|^TELEMETRY' "$LOG"
[ $attach_failed = 0 ] ||
	skip "a secondary could not map the primary's memory twice in a row"
[ $rc1 = 0 ] || fail "secondary on lcore 1 exited $rc1"
[ $rc0 = 0 ] || fail "secondary on lcore 0 exited $rc0"
[ $rck = 137 ] || fail "killed secondary exited $rck, expected 137 (SIGKILL)"
grep -q "killing itself" "$LOG" || fail "the killed secondary did not run"
grep -q "owns its lcore 1 slot" "$LOG" ||
	fail "the last secondary did not take over the exited one's slot"
[ $rcp = 0 ] || fail "primary exited $rcp"
grep -q "primary: 3 secondaries done" "$LOG" ||
	fail "the primary did not see the 3 secondaries finish"
grep -q "pool whole" "$LOG" || fail "primary did not check the pool"
echo "PASS"
