#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# Build the Debian packages of this tree against the system DPDK, then
# check them with lintian:
#   librte-sheaf0     librte_sheaf and the mempool plugin, the latter in
#                     the system DPDK's plugin directory (RTE_EAL_PMD_PATH),
#                     so that every DPDK app finds the "sheaf" ops
#   librte-sheaf-dev  rte_sheaf.h, the librte_sheaf.so link, libsheaf.pc
# dpkg-buildpackage -b runs on a copy of the tree (it writes beside
# debian/ and puts the packages in the parent directory), the files git
# tracks plus the untracked ones it does not ignore.
#
# Usage: scripts/deb.sh [OUTDIR]   (default build-deb/)
# Prints the paths of the .deb files, one a line, as the last lines of
# standard output. Exits non-zero when the build fails or lintian
# reports an error (warnings are printed, not fatal).
# Needs dpkg-dev, debhelper, fakeroot, build-essential and lintian
# (scripts/setup.sh installs them).

set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:-$root/build-deb}
log() { echo "deb: $*" >&2; }
die() { log "error: $*"; exit 1; }

for p in dpkg-buildpackage dh lintian; do
	command -v "$p" > /dev/null || die "$p not found (scripts/setup.sh)"
done
version=$(cd "$root" && dpkg-parsechangelog -S Version)
upstream=$(sed -n "s/^[[:space:]]*version: '\([^']*\)',.*/\1/p" \
	"$root/meson.build" | head -n 1)
[ "$version" = "$upstream" ] ||
	die "debian/changelog says $version, meson.build says $upstream"

work=$(mktemp -d /tmp/sheaf-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT
tree=$work/sheaf-$version
mkdir -p "$tree"
if git -C "$root" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	(cd "$root" && git ls-files -z -co --exclude-standard |
		xargs -0 -r tar -cf - --no-recursion) | tar -xf - -C "$tree"
else
	tar -C "$root" --exclude='./build*' --exclude=./results \
		--exclude=./.git -cf - . | tar -xf - -C "$tree"
fi
[ -f "$tree/debian/control" ] || die "no debian/ in the copy of $root"

# The system DPDK only, whatever the caller's environment points at
# (a release from scripts/dpdk.sh), and Debian's tools first.
log "dpkg-buildpackage -b in $tree (log: $out/build.log)"
mkdir -p "$out"
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
if ! (cd "$tree" &&
	env -u PKG_CONFIG_PATH -u LD_LIBRARY_PATH \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		nice -n 10 dpkg-buildpackage -b --no-sign) > "$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	die "dpkg-buildpackage failed, log in $out/build.log"
fi
cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out/"

# lintian on the .changes checks every package it lists.
log "lintian $out/*.changes"
changes=$(ls "$out"/*.changes)
if ! lintian --fail-on error "$changes" > "$out/lintian.txt" \
		2> "$out/lintian.err"; then
	cat "$out/lintian.txt" "$out/lintian.err" >&2
	die "lintian reports errors (above; also in $out/lintian.txt)"
fi
if [ -s "$out/lintian.txt" ]; then
	log "lintian: no error; its other tags:"
	cat "$out/lintian.txt" >&2
else
	log "lintian: nothing to report"
fi
ls "$out"/*.deb
