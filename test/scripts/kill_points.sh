#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# The cache rounds, then the kill-point matrix (test/sheaf_kill_app.c,
# modes "cache" and "matrix"). The matrix: for each
# kill point of lib/sheaf/sheaf_kill.h, on a fresh pool, a secondary dies
# there (SIGKILL from the library, SHEAF_KILL_AT), the primary takes the
# whole pool back and checks it, and a clean secondary on the dead one's
# lcore works and owns the slot. Needs a -Dkill_points=true build
# (build-asan): skipped otherwise, and without hugepages.
#
# Usage: kill_points.sh APP [ROUND]
#   ROUND: run that round alone, by its name as the log prints it
#          (e.g. "trade_get.store@5") or by its last point.
# Environment: SHEAF_KILL_ONLY, the same as ROUND.
# Exit: 0 pass, 1 fail, 77 skip.
#
# kill_storm.sh sources this file for kill_setup and kill_run.

set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# kill_setup APP NAME: check the machine, set APP, the EAL arguments and
# LOG (the primary's output; LOG.child the secondaries').
kill_setup() {
	APP=$1
	[ -x "$APP" ] || fail "$APP not built"
	[ "$(nproc)" -ge 2 ] || skip "fewer than 2 CPUs"
	# Secondary processes map the primary's hugepage memory.
	set_eal_mem huge 64
	new_file_prefix kill
	new_log "$2"
	CLEANUP+=("$LOG.child")
	EAL=(-l 0 --file-prefix "$FILE_PREFIX" --no-pci "${EAL_MP_BASE[@]}"
		--log-level=lib.eal:error)
}

# kill_run MODE ARGS...: run the primary (it starts the secondaries);
# its exit status.
kill_run() {
	local rc
	"$APP" "${EAL[@]}" -- "$@" 2>&1 | tee -a "$LOG"
	rc=${PIPESTATUS[0]}
	# hugetlbfs files of the run, left by processes that died.
	rm -f /dev/hugepages/"$FILE_PREFIX"map_* 2> /dev/null
	return "$rc"
}

# kill_end RC: the test's verdict from the primary's exit status.
kill_end() {
	case $1 in
	0) echo "PASS"; exit 0 ;;
	77) skip "$(grep -m1 '^SKIP' "$LOG" | sed 's/^SKIP: //')" ;;
	*) fail "the primary exited $1" ;;
	esac
}

# The matrix, on past any round whose check crashed the primary (a
# crash fails the test all the same).
kill_matrix() {
	local from=0 rc last crashed=()
	while :; do
		kill_run matrix "$LOG.child" ${only:+"$only"} "from=$from"
		rc=$?
		case $rc in 0 | 1 | 77) break ;; esac
		last=$(grep -o '^round [0-9]*' "$LOG" | tail -n 1 |
			cut -d' ' -f2)
		[ -n "$last" ] || kill_end "$rc"
		info "the primary crashed (exit $rc) in round $last: going on"
		crashed+=("$last")
		from=$((last + 1))
	done
	[ ${#crashed[@]} = 0 ] && [ "$rc" != 1 ] && kill_end "$rc"
	kill_summary "${crashed[@]}"
	[ ${#crashed[@]} = 0 ] || fail "the primary crashed in ${#crashed[@]} round(s)"
	kill_end "$rc"
}

# kill_summary CRASHED...: every failed round by name, over all runs.
kill_summary() {
	local n
	for n in "$@"; do
		echo "FAILED: round $n $(grep -m1 "^round $n " "$LOG" |
			cut -d' ' -f3) (the primary crashed)"
	done
	grep '^FAILED: round ' "$LOG" | sed 's/ (replay.*//' | sort -u
	echo "(replay one: $0 APP ROUND-NAME)"
}

# The cache rounds (sheaf_kill_app.c, mode "cache"): a secondary dies
# inside a put that flushes DPDK's mempool cache of its lcore; no object
# may be both in that cache, which outlives it, and in the pool.
kill_cache() {
	local rc
	kill_run cache "$LOG.child"
	rc=$?
	case $rc in
	0) ;;
	77) kill_end 77 ;;
	*) fail "the cache rounds failed (exit $rc)" ;;
	esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	[ $# -ge 1 ] || fail "usage: $0 APP [ROUND]"
	only=${2:-${SHEAF_KILL_ONLY:-}}
	kill_setup "$1" kill_points
	# A replay of one matrix round runs that round alone.
	[ -n "$only" ] || kill_cache
	kill_matrix
fi
