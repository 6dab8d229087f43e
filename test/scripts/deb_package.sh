#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# The Debian packages, as a user of the system DPDK gets them: build them
# with scripts/deb.sh (which fails on a lintian error), install them, and
# check that
#   - the plugin is in the system DPDK's plugin directory, without rpath,
#     and libsheaf.pc names that directory;
#   - dpdk-testpmd --mbuf-pool-ops-name sheaf, with no -d, forwards with a
#     sheaf pool that is whole once stopped (testpmd_smoke.sh);
#   - an app builds with pkg-config against the -dev package and runs;
# then remove them and check that the machine is as before: the plugin
# directory lists the same files, no file of the packages is left.
# While installed, every DPDK app of the machine loads the plugin: the
# packages stay installed for the checks only.
#
# Usage: deb_package.sh SRCDIR WORKDIR
# Needs root. Skips when the packages are already installed (the test
# would remove what the user installed) or the packaging tools are
# missing (scripts/setup.sh installs them).
# Exit: 0 pass, 1 fail, 77 skip.

set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
. "$here/common.sh"

[ $# -eq 2 ] || fail "usage: $0 SRCDIR WORKDIR"
src=$1 work=$2
PKGS=(librte-sheaf-dev librte-sheaf0)
[ "$(id -u)" -eq 0 ] || skip "not root: cannot install packages"
for p in dpkg-buildpackage dh lintian dpkg-query; do
	command -v "$p" > /dev/null || skip "$p not found (scripts/setup.sh)"
done
installed() {
	dpkg-query -W -f='${db:Status-Status}' "$1" 2> /dev/null |
		grep -qv '^not-installed$'
}
for p in "${PKGS[@]}"; do
	installed "$p" && skip "$p is installed already: not touching it"
done
# The system DPDK, which the packages are for.
unset PKG_CONFIG_PATH
# shellcheck disable=SC2046 # pkg-config output is split on purpose
pmddir=$(printf '#include <rte_build_config.h>\nRTE_EAL_PMD_PATH\n' |
	cc -E -P $(pkg-config --cflags libdpdk) - 2> /dev/null |
	tail -n 1 | tr -d '"')
[ -d "$pmddir" ] || fail "the system DPDK's plugin directory '$pmddir' is missing"
info "system DPDK $(pkg-config --modversion libdpdk), plugin directory $pmddir"

rm -rf "$work"
mkdir -p "$work" || fail "cannot create $work"
new_log deb_package
ls -A "$pmddir" > "$work/pmddir.before"

# 1. Build and lintian (nothing installed yet).
debs=$(bash "$src/scripts/deb.sh" "$work/debs" 2> "$work/deb.log" |
	grep -v dbgsym | grep '\.deb$') ||
	{ cat "$work/deb.log"; fail "scripts/deb.sh failed"; }
cat "$work/deb.log"
[ "$(echo "$debs" | wc -l)" -eq 2 ] || fail "expected 2 packages, got: $debs"

# 2. Install; from here on, remove them at exit, whatever happens.
remove() {
	dpkg --purge "${PKGS[@]}" > "$work/purge.log" 2>&1 ||
		{ cat "$work/purge.log"; return 1; }
}
trap 'remove; cleanup' EXIT
trap 'exit 1' INT TERM
# shellcheck disable=SC2086 # one path a word
dpkg -i $debs > "$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; fail "dpkg -i failed"; }
for p in "${PKGS[@]}"; do
	installed "$p" || fail "$p is not installed after dpkg -i"
done
plugin=$pmddir/librte_mempool_sheaf.so
dpkg -L librte-sheaf0 | grep -qx "$plugin" ||
	fail "librte-sheaf0 does not ship $plugin"
readelf -d "$plugin" | grep -qE 'RPATH|RUNPATH' &&
	fail "$plugin carries an rpath: $(readelf -d "$plugin" | grep -E 'RPATH|RUNPATH')"
[ "$(pkg-config --variable=pmddir libsheaf)" = "$pmddir" ] ||
	fail "libsheaf.pc pmddir is '$(pkg-config --variable=pmddir libsheaf)', expected $pmddir"
info "installed: $(echo "$debs" | xargs -n1 basename | tr '\n' ' ')"
# Every file the packages put on the machine, to check it goes again.
dpkg -L "${PKGS[@]}" | while read -r f; do
	[ -d "$f" ] || echo "$f"
done > "$work/files"

# 3. testpmd with no -d: the ops come from the plugin directory.
SHEAF_LOG_DIR=$work DPDK_TESTPMD_BIN=/usr/bin/dpdk-testpmd SHEAF_OPS=sheaf \
	bash "$here/testpmd_smoke.sh" nohuge default ||
	fail "dpdk-testpmd with the installed package (no -d) failed"

# 4. An app built against the -dev package.
# shellcheck disable=SC2046 # pkg-config output is split on purpose
cc -o "$work/app" -DALLOW_EXPERIMENTAL_API "$src/examples/sheaf_byname.c" \
	$(pkg-config --cflags --libs libdpdk libsheaf) > "$LOG" 2>&1 ||
	{ show_log "$LOG"; fail "app does not build against librte-sheaf-dev"; }
new_file_prefix deb-app
timeout -k 5 60 "$work/app" -l 0 --no-pci --no-huge -m 256 \
	--file-prefix "$FILE_PREFIX" >> "$LOG" 2>&1 ||
	{ show_log "$LOG"; fail "app built against the package failed"; }

# 5. Removed, the machine is as before.
trap cleanup EXIT
remove || fail "dpkg --purge failed"
for p in "${PKGS[@]}"; do
	installed "$p" && fail "$p still installed after dpkg --purge"
done
ls -A "$pmddir" > "$work/pmddir.after"
diff "$work/pmddir.before" "$work/pmddir.after" ||
	fail "the plugin directory differs from before the install"
grep -qx "$plugin" "$work/files" || fail "no plugin in the file list"
while read -r f; do
	if [ -e "$f" ] || [ -L "$f" ]; then
		fail "$f left behind"
	fi
done < "$work/files"
echo "PASS: Debian packages build lintian-clean, install, serve testpmd" \
	"with no -d, and leave nothing behind"
exit 0
