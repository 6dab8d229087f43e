#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# Build a minimal DPDK release from its source tarball into a cache
# outside the clone, or reuse the one already there, and print its
# install prefix as the last line of standard output (progress goes to
# standard error). Point a build at it with
#   PKG_CONFIG_PATH=<prefix>/lib/pkgconfig LD_LIBRARY_PATH=<prefix>/lib
#   PATH=<prefix>/bin:$PATH
# (scripts/test.sh and scripts/perf.sh --dpdk do this).
#
# The cache entry is <cache>/<release>-<key>, the key a hash of the
# tarball's sha256 and of the build options below: a new tarball or new
# options give a new entry, and a rerun reuses a finished one. An entry
# is finished once its "sheaf-dpdk.done" file exists; an entry left half
# built (killed run) is built again. Concurrent runs wait on a lock.
#
# Usage: scripts/dpdk.sh RELEASE      e.g. 23.11 (tarball dpdk-23.11.tar.xz)
#        scripts/dpdk.sh --list       the releases with a tarball
# Environment:
#   SHEAF_DPDK_SRC    directory of the dpdk-<release>.tar.xz tarballs and
#                     their SHA256SUMS (default: shared/dpdk beside the
#                     clone, i.e. ../shared/dpdk)
#   SHEAF_DPDK_CACHE  cache root (default /var/cache/sheaf-dpdk)
# Needs meson, ninja, gcc, libnuma-dev and python3-pyelftools
# (scripts/setup.sh installs them).

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src_dir=${SHEAF_DPDK_SRC:-$root/../shared/dpdk}
cache=${SHEAF_DPDK_CACHE:-/var/cache/sheaf-dpdk}

# What the tests and the perf comparison need, and nothing else: the
# libraries DPDK cannot do without (disable_libs=* leaves out every
# optional one; sheaf, dpdk-testpmd and the mempool and mbuf autotests
# need none), the vdev and PCI buses, the null and ring ports, DPDK's
# own mempool drivers (the perf baselines), shared libraries only.
# platform=generic: no -march=native, so that an entry stays valid on
# another CPU model.
# shellcheck disable=SC2054 # the commas are meson's list syntax
OPTIONS=(
	--buildtype=release --libdir=lib -Ddefault_library=shared
	-Dplatform=generic '-Ddisable_libs=*'
	-Denable_drivers=bus/vdev,bus/pci,net/null,net/ring,mempool/ring,mempool/stack,mempool/bucket
	-Denable_apps=test-pmd,test -Dtests=true
	-Dexamples= -Denable_docs=false
)

log() { echo "dpdk: $*" >&2; }
die() { log "error: $*"; exit 1; }

if [ "${1:-}" = --list ]; then
	for t in "$src_dir"/dpdk-*.tar.xz; do
		[ -e "$t" ] || continue
		t=${t##*/dpdk-}
		echo "${t%.tar.xz}"
	done
	exit 0
fi
[ $# -eq 1 ] || { echo "usage: $0 RELEASE | --list" >&2; exit 2; }
release=$1
tarball=$src_dir/dpdk-$release.tar.xz
[ -f "$tarball" ] || die "DPDK $release: no tarball $tarball (SHEAF_DPDK_SRC)"

sum=$(sha256sum "$tarball" | cut -d' ' -f1)
if [ -f "$src_dir/SHA256SUMS" ]; then
	want=$(awk -v f="dpdk-$release.tar.xz" '$2 == f { print $1 }' \
		"$src_dir/SHA256SUMS")
	[ -z "$want" ] || [ "$want" = "$sum" ] ||
		die "DPDK $release: $tarball has sha256 $sum, SHA256SUMS says $want"
fi
key=$(printf '%s\n' "$sum" "${OPTIONS[@]}" | sha256sum | cut -c1-16)
prefix=$cache/$release-$key
done_file=$prefix/sheaf-dpdk.done

mkdir -p "$cache" || die "cannot create $cache (SHEAF_DPDK_CACHE)"
# EAL loads the drivers of its plugin directory, inside the prefix, only
# when no directory above them is world-writable (not under /tmp).
d=$(cd "$cache" && pwd)
while [ "$d" != / ]; do
	[ -z "$(find "$d" -maxdepth 0 -perm -o+w)" ] ||
		die "$d is world-writable: EAL would refuse the drivers of a DPDK built under it; set SHEAF_DPDK_CACHE elsewhere"
	d=$(dirname "$d")
done
exec 9> "$prefix.lock"
flock 9
if [ -f "$done_file" ]; then
	log "DPDK $release: cached in $prefix"
	echo "$prefix"
	exit 0
fi

# Meson and DPDK's build scripts must run under Debian's python3 (the
# one with python3-pyelftools), not one first in PATH (pyenv, venv).
for p in meson ninja gcc; do
	command -v "$p" > /dev/null || die "$p not found (scripts/setup.sh)"
done
/usr/bin/python3 -c 'import elftools' 2> /dev/null ||
	die "DPDK $release: /usr/bin/python3 lacks elftools (python3-pyelftools)"

work=$cache/.work-$release-$key
rm -rf "$prefix" "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
log "DPDK $release: building into $prefix (a few minutes, log in $work/build.log until done)"
tar -xJf "$tarball" -C "$work" || die "DPDK $release: cannot extract $tarball"
srcdir=$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -n 1)
[ -f "$srcdir/meson.build" ] || die "DPDK $release: no meson.build in $tarball"
buildlog=$work/build.log
if ! (
	export PATH=/usr/bin:/bin:/usr/sbin:/sbin
	cd "$srcdir" &&
	meson setup build --prefix="$prefix" "${OPTIONS[@]}" &&
	nice -n 10 ninja -C build &&
	meson install -C build --no-rebuild
) > "$buildlog" 2>&1; then
	tail -n 40 "$buildlog" >&2
	cp "$buildlog" "$cache/$release-$key.failed.log"
	rm -rf "$prefix"
	die "DPDK $release: build failed, log in $cache/$release-$key.failed.log"
fi
for f in lib/pkgconfig/libdpdk.pc bin/dpdk-testpmd bin/dpdk-test; do
	[ -e "$prefix/$f" ] || die "DPDK $release: $f was not installed"
done
secs=$(( $(date +%s) - start ))
{
	echo "release: $release"
	echo "tarball: dpdk-$release.tar.xz sha256 $sum"
	echo "options: ${OPTIONS[*]}"
	echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) in $secs s"
} > "$done_file"
log "DPDK $release: built in $secs s"
echo "$prefix"
