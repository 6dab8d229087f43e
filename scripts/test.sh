#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# The test suite: set up the machine, build build/, build-asan/ and
# build-tsan/ against the system DPDK, run every meson test in build/,
# the suites but "perf" in build-asan/ (ASan + UBSan) and the "tsan"
# suite in build-tsan/ (ThreadSanitizer); then, for each DPDK release
# of SHEAF_DPDK_RELEASES, build that release (scripts/dpdk.sh, cached
# outside the clone) and build-dpdk-<release>/ against it, and run every
# suite there (no sanitizer build). One line per build dir names its DPDK
# release and counts; each failure line names the release too. The
# skipped count comes next, and the last line is "N passed, N failed",
# summed over every run. Exits non-zero on any failure; a build dir (or
# a DPDK release) that does not build counts as one failure. A release
# whose source tarball is not on the machine (SHEAF_DPDK_SRC, default
# ../shared/dpdk beside the clone) is not tested and counts as one
# skip, with a line saying so, unless SHEAF_DPDK_REQUIRE=1 (.ci/run):
# then it counts as one failure.
#
# Environment:
#   SHEAF_NO_SETUP=1    skip scripts/setup.sh (packages, hugepages)
#   SHEAF_NO_ASAN=1     skip the ASan + UBSan build and its run
#   SHEAF_NO_TSAN=1     skip the ThreadSanitizer build and its run
#   SHEAF_DPDK_RELEASES the DPDK releases to test besides the system one
#                       (default "23.11 24.11 25.11"; empty: none)
#   SHEAF_TEST_ARGS     extra `meson test` arguments for build/
#   SHEAF_ASAN_ARGS     `meson test` arguments selecting what runs in
#                       build-asan/ (default: --no-suite perf)
#   SHEAF_DPDK_ARGS     extra `meson test` arguments for the release
#                       build dirs
#   SHEAF_DPDK_REQUIRE=1  a release without its tarball is a failure
#   SHEAF_DPDK_SRC, SHEAF_DPDK_CACHE  see scripts/dpdk.sh

set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1

releases=${SHEAF_DPDK_RELEASES-23.11 24.11 25.11}
failed_builds=()
skipped_builds=()
labels=()
status=0
step() { echo; echo "=== $* ==="; }

if [ "${SHEAF_NO_SETUP:-0}" != 1 ]; then
	step "set-up"
	bash scripts/setup.sh || { echo "test: set-up failed, going on"; status=1; }
fi

# run_suite DIR LABEL BUILD-ARGS -- MESON-TEST-ARGS...
#   BUILD-ARGS: the arguments of scripts/build.sh that build DIR.
run_suite() {
	local dir=$1 label=$2 build=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		build+=("$1")
		shift
	done
	shift
	labels+=("$dir=$label")
	rm -f "$dir/meson-logs/testlog.json"
	step "$label: build $dir"
	if ! bash scripts/build.sh "${build[@]}"; then
		echo "test: $label: $dir does not build"
		failed_builds+=("$label: $dir does not build")
		status=1
		return
	fi
	step "$label: meson test -C $dir $*"
	meson test -C "$dir" --print-errorlogs "$@" || status=1
}

system="DPDK $(env -u PKG_CONFIG_PATH pkg-config --modversion libdpdk 2> /dev/null || echo '?') (system)"
# shellcheck disable=SC2086 # word splitting of the *_ARGS is wanted
run_suite build "$system" release -- ${SHEAF_TEST_ARGS:-}
if [ "${SHEAF_NO_ASAN:-0}" != 1 ]; then
	# shellcheck disable=SC2086
	run_suite build-asan "$system, ASan + UBSan" asan -- \
		--timeout-multiplier 3 ${SHEAF_ASAN_ARGS:---no-suite perf}
fi
if [ "${SHEAF_NO_TSAN:-0}" != 1 ]; then
	run_suite build-tsan "$system, ThreadSanitizer" tsan -- \
		--suite tsan
fi
have=" $(bash scripts/dpdk.sh --list | tr '\n' ' ') "
for release in $releases; do
	if [[ $have != *" $release "* ]]; then
		msg="DPDK $release: no tarball dpdk-$release.tar.xz in ${SHEAF_DPDK_SRC:-../shared/dpdk} (SHEAF_DPDK_SRC)"
		step "DPDK $release"
		if [ "${SHEAF_DPDK_REQUIRE:-0}" = 1 ]; then
			echo "test: $msg, required (SHEAF_DPDK_REQUIRE=1)"
			failed_builds+=("$msg")
			status=1
		else
			echo "test: $msg: not tested"
			skipped_builds+=("$msg: not tested")
		fi
		continue
	fi
	# shellcheck disable=SC2086
	run_suite "build-dpdk-$release" "DPDK $release" dpdk "$release" -- \
		${SHEAF_DPDK_ARGS:-}
done

step "summary"
python3 - "${labels[@]}" "${failed_builds[@]/#/!}" \
	"${skipped_builds[@]/#/?}" <<'PY' || status=1
import json, os, sys

# Arguments: DIR=LABEL for each build dir run, !MESSAGE for each build
# that failed, ?MESSAGE for each release not tested. meson's results: EXPECTEDFAIL counts as a pass; FAIL,
# TIMEOUT, ERROR, UNEXPECTEDPASS and INTERRUPT as failures; SKIP apart.
PASS = {'OK', 'EXPECTEDFAIL'}
SKIP = {'SKIP'}
dirs = [a.split('=', 1) for a in sys.argv[1:] if a[:1] not in '!?']
broken = [a[1:] for a in sys.argv[1:] if a.startswith('!')]
untested = [a[1:] for a in sys.argv[1:] if a.startswith('?')]
passed = failed = skipped = 0
for d, label in dirs:
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
                print(f'{label}: {r}: {t.get("name")} ({d})')
    print(f'{label} ({d}): {n[0]} passed, {n[1]} failed, {n[2]} skipped')
    passed += n[0]
    failed += n[1]
    skipped += n[2]
for b in broken:
    print(f'{b}: counted as one failure')
failed += len(broken)
for u in untested:
    print(f'{u}: counted as one skip')
skipped += len(untested)
print(f'{skipped} skipped')
print(f'{passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
PY
exit $status
