#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# The test suite: set up the machine, build build/ and build-asan/, run
# every meson test in build/ and the suites but "perf" in build-asan/
# (ASan + UBSan), then print "N passed, N failed, N skipped" summed over
# both runs, as the last line. Exits non-zero on any failure; a build dir
# that does not build counts as one failure.
#
# Environment:
#   SHEAF_NO_SETUP=1    skip scripts/setup.sh (packages, hugepages)
#   SHEAF_NO_ASAN=1     skip the ASan + UBSan build and its run
#   SHEAF_TEST_ARGS     extra `meson test` arguments for build/
#   SHEAF_ASAN_ARGS     `meson test` arguments selecting what runs in
#                       build-asan/ (default: --no-suite perf)

set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1

failed_builds=()
status=0
step() { echo; echo "=== $* ==="; }

if [ "${SHEAF_NO_SETUP:-0}" != 1 ]; then
	step "set-up"
	bash scripts/setup.sh || { echo "test: set-up failed, going on"; status=1; }
fi

# run_suite DIR BUILD-KIND MESON-TEST-ARGS...
run_suite() {
	local dir=$1 kind=$2
	shift 2
	rm -f "$dir/meson-logs/testlog.json"
	step "build $dir"
	if ! bash scripts/build.sh "$kind"; then
		echo "test: $dir does not build"
		failed_builds+=("$dir")
		status=1
		return
	fi
	step "meson test -C $dir $*"
	meson test -C "$dir" --print-errorlogs "$@" || status=1
}

# shellcheck disable=SC2086 # word splitting of the *_ARGS is wanted
run_suite build release ${SHEAF_TEST_ARGS:-}
if [ "${SHEAF_NO_ASAN:-0}" != 1 ]; then
	# shellcheck disable=SC2086
	run_suite build-asan asan --timeout-multiplier 3 \
		${SHEAF_ASAN_ARGS:---no-suite perf}
fi

step "summary"
python3 - "${#failed_builds[@]}" build build-asan <<'PY' || status=1
import json, os, sys

# meson's results: EXPECTEDFAIL counts as a pass; FAIL, TIMEOUT, ERROR,
# UNEXPECTEDPASS and INTERRUPT as failures; SKIP apart.
PASS = {'OK', 'EXPECTEDFAIL'}
SKIP = {'SKIP'}
passed = failed = skipped = 0
failed_builds = int(sys.argv[1])
for d in sys.argv[2:]:
    path = os.path.join(d, 'meson-logs', 'testlog.json')
    if not os.path.exists(path):
        continue
    n = [0, 0, 0]
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            t = json.loads(line)
            r = t.get('result', 'ERROR')
            if r in PASS:
                n[0] += 1
            elif r in SKIP:
                n[2] += 1
            else:
                n[1] += 1
                print(f'{d}: {r}: {t.get("name")}')
    print(f'{d}: {n[0]} passed, {n[1]} failed, {n[2]} skipped')
    passed += n[0]
    failed += n[1]
    skipped += n[2]
failed += failed_builds
if failed_builds:
    print(f'{failed_builds} build dir(s) did not build, counted as failures')
print(f'{passed} passed, {failed} failed, {skipped} skipped')
sys.exit(1 if failed else 0)
PY
exit $status
