#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# The perf comparison: set up the machine, build build/ (release), run
# build/app/sheaf-perf with its defaults (every scenario; sheaf with and
# without DPDK's cache against ring_mp_mc, stack and bucket, next to the
# floor and limit rows) on lcores 0-1, and keep the results:
#   results/perf.txt   the report as printed
#   results/perf.csv   every round and the summary (--csv)
#   results/perf.json  the same as JSON (--json)
#   results/env.txt    machine, DPDK and commit the numbers come from
#   results/perf-<scenario>.png  plots (app/plot.py)
#   results/testpmd.txt, testpmd.csv  dpdk-testpmd forwarding rate per
#                      ops and --mbcache, and the floor row
#                      (app/testpmd_perf.py)
#
# Usage: scripts/perf.sh [--dpdk RELEASE] [sheaf-perf options]
#   e.g. --scenario local --rounds 3
#   --dpdk RELEASE  measure against that DPDK release instead of the
#                   system one: its build from scripts/dpdk.sh (built
#                   first if not cached), build-dpdk-RELEASE/, its own
#                   ring, stack and bucket drivers and its dpdk-testpmd;
#                   results in results/dpdk-RELEASE/
# Environment:
#   SHEAF_NO_SETUP=1    skip scripts/setup.sh (packages, hugepages)
#   SHEAF_LCORES        EAL lcore list (default 0-1)
#   SHEAF_RESULTS       results directory (default results/)
#   SHEAF_NO_TESTPMD=1  skip the testpmd comparison

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

release=
args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--dpdk)
		[ $# -ge 2 ] || { echo "perf: --dpdk needs a release" >&2; exit 2; }
		release=$2
		shift 2 ;;
	*) args+=("$1"); shift ;;
	esac
done
set -- "${args[@]}"

if [ "${SHEAF_NO_SETUP:-0}" != 1 ]; then
	bash scripts/setup.sh
fi
if [ -n "$release" ]; then
	# Everything from that release alone: the app links it, EAL loads
	# the mempool drivers of its own plugin directory, its testpmd runs.
	bash scripts/build.sh dpdk "$release"
	build=build-dpdk-$release
	dpdk=$(cat "$build/sheaf-dpdk-prefix")
	export PATH=$dpdk/bin:$PATH
	export LD_LIBRARY_PATH=$dpdk/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export PKG_CONFIG_PATH=$dpdk/lib/pkgconfig
	out=${SHEAF_RESULTS:-results/dpdk-$release}
else
	bash scripts/build.sh release
	build=build
	out=${SHEAF_RESULTS:-results}
fi

mkdir -p "$out"
app=$build/app/sheaf-perf
[ -x "$app" ] || { echo "perf: $app was not built" >&2; exit 1; }

# Hugepages when 512 MiB are free, else plain memory: slower TLB-wise,
# so the numbers say which one they used (env.txt).
free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
size=$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)
if awk '$3 == "hugetlbfs" { f = 1 } END { exit !f }' /proc/mounts &&
		[ $(( ${free:-0} * ${size:-0} / 1024 )) -ge 512 ]; then
	mem=(--huge-unlink)
	memory="hugepages (${size} kB)"
else
	mem=(--no-huge -m 2048)
	memory="no hugepages (--no-huge)"
	echo "perf: fewer than 512 MiB of free hugepages, running with --no-huge"
fi

prefix="sheaf-perf-$$"
trap 'rm -rf "/var/run/dpdk/$prefix"' EXIT
eal=(-l "${SHEAF_LCORES:-0-1}" --file-prefix "$prefix" --no-pci "${mem[@]}")

{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	if commit=$(git rev-parse --short HEAD 2>/dev/null); then
		git diff --quiet HEAD 2>/dev/null || commit="$commit (modified)"
	else
		commit="unknown (no git, or not a checkout)"
	fi
	echo "commit: $commit"
	echo "cpu: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "cpus: $(nproc)"
	echo "kernel: $(uname -r)"
	echo "dpdk: $(pkg-config --modversion libdpdk 2>/dev/null || echo unknown)"
	echo "dpdk prefix: $(pkg-config --variable=prefix libdpdk 2>/dev/null || echo unknown)"
	echo "memory: $memory"
	echo "command: $app ${eal[*]} -- --csv $out/perf.csv --json $out/perf.json $*"
} > "$out/env.txt"

echo "perf: $app ${eal[*]} -- --csv $out/perf.csv --json $out/perf.json $*"
rc=0
"$app" "${eal[@]}" -- --csv "$out/perf.csv" --json "$out/perf.json" "$@" \
	< /dev/null | tee "$out/perf.txt" || rc=$?

# Plots: app/plot.py (matplotlib, from Debian's python3-matplotlib; it
# re-runs itself under /usr/bin/python3 and says so when it is missing).
if [ -f app/plot.py ] && [ -s "$out/perf.json" ]; then
	python3 app/plot.py "$out/perf.json" -o "$out/perf" ||
		echo "perf: plotting failed (the numbers are in $out/perf.csv)"
fi
# testpmd forwarding over null ports, per ops and --mbcache, interleaved
# (app/testpmd_perf.py); SHEAF_NO_TESTPMD=1 skips it.
if [ "${SHEAF_NO_TESTPMD:-0}" != 1 ] && command -v dpdk-testpmd > /dev/null; then
	tp=(python3 app/testpmd_perf.py
		--plugin "$build/drivers/librte_mempool_sheaf.so"
		--floor-plugin "$build/app/librte_mempool_perf_floor.so"
		--testpmd "$(command -v dpdk-testpmd)"
		--lcores "${SHEAF_LCORES:-0-1}" --rounds 3 --seconds 2
		--csv "$out/testpmd.csv")
	[ "${mem[0]}" = --no-huge ] && tp+=(--no-huge)
	echo "perf: ${tp[*]}"
	echo "testpmd command: ${tp[*]}" >> "$out/env.txt"
	"${tp[@]}" < /dev/null | tee "$out/testpmd.txt" || rc=1
fi
echo "perf: results in $out/ (exit status $rc)"
exit $rc
