#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# The kill storm (test/sheaf_kill_app.c, mode "storm"): a primary starts
# secondaries on lcore 1 that churn one pool with every kind of call, and
# SIGKILLs each at a random moment up to 200 ms into its workload; after
# each death it takes the whole pool back and checks that nothing is
# handed out twice and that no more is missing than the dead process had
# in its hands. Any build; skipped without hugepages.
#
# Usage: kill_storm.sh APP
# Environment:
#   SHEAF_KILL_STORM       deaths (default 60)
#   SHEAF_KILL_STORM_SEED  seed of the delays and workloads (default: the
#                          clock; the log prints it, for a replay)
# Exit: 0 pass, 1 fail, 77 skip.

set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/kill_points.sh"

[ $# -ge 1 ] || fail "usage: $0 APP"
kill_setup "$1" kill_storm
seed=${SHEAF_KILL_STORM_SEED:-$(date +%s%N)}
info "seed $seed"
kill_run storm "$LOG.child" "${SHEAF_KILL_STORM:-60}" "$seed"
kill_end $?
