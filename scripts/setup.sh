#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# Prepare a Debian 12 machine (as root) to build, test and measure sheaf:
# install the packages, reserve 2 MiB hugepages and mount hugetlbfs.
# python3-pyelftools and xz-utils build the DPDK releases of
# scripts/dpdk.sh; build-essential to lintian build and check the
# Debian packages (scripts/deb.sh); dpdk-doc has the sources of DPDK's
# example apps (test/scripts/dpdk_examples.sh); libtsan2 is the runtime
# of build-tsan/ (ThreadSanitizer, scripts/build.sh tsan).
# Idempotent: a rerun skips apt when every package is present.
# Hugepages are best effort: the tests also run with --no-huge.
#
# Environment:
#   SHEAF_HUGEPAGES  2 MiB pages to reserve (default 1024, i.e. 2 GiB);
#                    0 leaves the reservation alone.

set -euo pipefail

PACKAGES=(
	dpdk dpdk-dev libdpdk-dev libnuma-dev dpdk-doc
	meson ninja-build pkg-config gcc
	libasan8 libubsan1 libtsan2
	python3 python3-pyelftools python3-matplotlib
	doxygen
	xz-utils
	build-essential dpkg-dev debhelper fakeroot lintian
)
HUGEPAGES=${SHEAF_HUGEPAGES:-1024}

log() { echo "setup: $*"; }

if [ "$(id -u)" -ne 0 ]; then
	log "not root: skipping package install and hugepage set-up"
	exit 0
fi

missing=()
for p in "${PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	aptlog=$(mktemp /tmp/sheaf-apt.XXXXXX)
	if ! { apt-get update && apt-get install -y --no-install-recommends \
			"${missing[@]}"; } > "$aptlog" 2>&1; then
		tail -n 30 "$aptlog"
		log "error: apt-get failed, full log in $aptlog"
		exit 1
	fi
	rm -f "$aptlog"
else
	log "all packages present"
fi

# Hugepages: failures here only mean the tests fall back to --no-huge.
hp=/sys/kernel/mm/hugepages/hugepages-2048kB
if [ "$HUGEPAGES" -gt 0 ] && [ -d "$hp" ]; then
	cur=$(cat "$hp/nr_hugepages" 2>/dev/null || echo 0)
	if [ "$cur" -lt "$HUGEPAGES" ]; then
		echo "$HUGEPAGES" > "$hp/nr_hugepages" 2>/dev/null ||
			log "warning: cannot write $hp/nr_hugepages"
	fi
	log "2 MiB hugepages: $(cat "$hp/nr_hugepages" 2>/dev/null || echo 0)" \
		"reserved, $(cat "$hp/free_hugepages" 2>/dev/null || echo 0) free"
else
	log "warning: no 2 MiB hugepage support; tests will use --no-huge"
fi
if ! awk '$3 == "hugetlbfs" { f = 1 } END { exit !f }' /proc/mounts; then
	if mkdir -p /dev/hugepages &&
			mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages 2>/dev/null; then
		log "mounted hugetlbfs on /dev/hugepages"
	else
		log "warning: cannot mount hugetlbfs; tests will use --no-huge"
	fi
fi
exit 0
