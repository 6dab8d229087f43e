#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# Configure (once) and build sheaf.
#   build/       release build (project defaults): perf runs and tests
#   build-asan/  debug build with ASan + UBSan: tests only
#   build-tsan/  debug build with ThreadSanitizer: the tsan suite
#   build-dpdk-<release>/  release build against a DPDK release from the
#                cache of scripts/dpdk.sh (built there first if missing)
#
# Usage: scripts/build.sh [release|asan|tsan|all]   (default: all)
#        scripts/build.sh dpdk RELEASE        e.g. dpdk 23.11

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
what=${1:-all}

# Set up a build directory, or apply the options to an existing one. A
# directory whose set-up never finished has no build.ninja: start over.
configure() {
	local dir=$1; shift
	if [ ! -f "$dir/build.ninja" ]; then
		rm -rf "$dir"
		meson setup "$dir" "$@"
	elif [ $# -gt 0 ]; then
		meson configure "$dir" "$@"
	fi
}

build_release() {
	configure build
	ninja -C build
}

build_asan() {
	# b_lundef=false: the plugin and the library leave the sanitizer
	# runtime symbols to the executable that loads them.
	# werror=false: gcc warns differently with sanitizers at -O0 (e.g.
	# -Wformat-truncation); build/ enforces -Werror, this build is for
	# the run-time checks. kill_points: the fault-injection tests run
	# here (lib/sheaf/sheaf_kill.h).
	configure build-asan -Dbuildtype=debug \
		-Db_sanitize=address,undefined -Db_lundef=false -Dwerror=false \
		-Dkill_points=true
	ninja -C build-asan
}

build_tsan() {
	# Neither gcc's TSan nor clang's models atomic_thread_fence (gcc
	# says so, -Wtsan: hence werror=false); the protocol's hand-overs
	# are release/acquire pairs on its words, which both check. The
	# tests link test/tsan_model.c (EAL's joins, heap and memzone
	# locks); only the tsan suite runs here (test/meson.build).
	configure build-tsan -Dbuildtype=debug \
		-Db_sanitize=thread -Db_lundef=false -Dwerror=false \
		-Dexamples=false
	ninja -C build-tsan
}

# The DPDK is set at set-up (pkg_config_path, stored in the build dir),
# so that a rebuild or a reconfigure never picks up another one. A dir
# set up against another cache entry (new tarball, new options) starts
# over, as its dependencies were resolved there.
build_dpdk() {
	local release=$1 prefix dir=build-dpdk-$1
	prefix=$(bash scripts/dpdk.sh "$release") || return 1
	if [ "$(cat "$dir/sheaf-dpdk-prefix" 2> /dev/null)" != "$prefix" ]; then
		rm -rf "$dir"
	fi
	configure "$dir" -Dpkg_config_path="$prefix/lib/pkgconfig"
	echo "$prefix" > "$dir/sheaf-dpdk-prefix"
	ninja -C "$dir"
}

case "$what" in
release) build_release ;;
asan) build_asan ;;
tsan) build_tsan ;;
all) build_release; build_asan; build_tsan ;;
dpdk)
	[ $# -eq 2 ] || { echo "usage: $0 dpdk RELEASE" >&2; exit 2; }
	build_dpdk "$2" ;;
*) echo "usage: $0 [release|asan|tsan|all] | dpdk RELEASE" >&2; exit 2 ;;
esac
