#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# Signal storm in a secondary process on an lcore id its primary owns:
# the secondary's calls take the shared path, and a 20 kHz timer's
# handler re-enters them (test/test_sheaf_signal.c, mode "secondary").
# The primary then checks that the pool is whole. Secondary processes
# need hugepage memory: skipped without it.
#
# Usage: signal_storm.sh APP
# Exit: 0 pass, 1 fail, 77 skip.

set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ $# -ge 1 ] || fail "usage: $0 APP"
app=$1
[ -x "$app" ] || fail "$app not built"
[ "$(nproc)" -ge 2 ] || skip "fewer than 2 CPUs"
set_eal_mem huge 128
new_file_prefix signal
new_log signal_storm
eal=(--file-prefix "$FILE_PREFIX" --no-pci "${EAL_MP_BASE[@]}"
	--log-level=lib.eal:error)
go=$LOG.go
CLEANUP+=("$LOG.primary" "$LOG.secondary" "$go")
rm -f "$go"

"$app" -l 0 "${eal[@]}" -- primary "$go" > "$LOG.primary" 2>&1 &
primary=$!
for _ in $(seq 1 300); do
	grep -q "primary ready" "$LOG.primary" && break
	kill -0 $primary 2>/dev/null || break
	sleep 0.1
done
grep -q "primary ready" "$LOG.primary" ||
	{ kill $primary 2>/dev/null; cat "$LOG.primary"; fail "primary did not start"; }
# Lcore id 0, the primary's, on the other CPU.
for _ in 1 2; do
	"$app" --proc-type=secondary --lcores 0@1 "${eal[@]}" -- secondary \
		> "$LOG.secondary" 2>&1
	rc=$?
	# ASan's shadow mappings may keep a secondary from attaching.
	[ $rc = 77 ] || break
done
touch "$go"
wait $primary; rcp=$?
cat "$LOG.primary" "$LOG.secondary" >> "$LOG"
grep -v '^EAL\|^TELEMETRY' "$LOG"
[ $rc = 77 ] && skip "the secondary could not map the primary's memory"
[ $rc = 0 ] || fail "secondary exited $rc"
[ $rcp = 0 ] || fail "primary exited $rcp"
echo "PASS"
