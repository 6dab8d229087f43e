#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# Install the build into a scratch DESTDIR and build an out-of-tree app
# against the installed files, as a user would:
#   cc app.c $(pkg-config --cflags --libs libdpdk libsheaf)
# The app (examples/sheaf_byname.c) selects sheaf by ops name only and
# calls no rte_sheaf_* function: it runs with no -d only if libsheaf.pc
# kept librte_sheaf at link time. A second build links libdpdk alone and
# gets the ops from the installed plugin directory (-d DIR, the scan EAL
# does of its own plugin directory), and fails to select sheaf without it.
# Log levels: --log-level=lib.sheaf:debug shows the pool's set-up line,
# the default (notice) does not.
#
# Usage: install.sh BUILDDIR PREFIX LIBDIR INCLUDEDIR APP.c
#   PREFIX etc. as configured (meson's prefix, libdir, includedir).
# Everything is written under BUILDDIR/test/scripts/install-scratch,
# removed at exit unless the test failed.
# Environment:
#   CC                the compiler (default: cc)
#   SHEAF_APP_CFLAGS  extra flags for the app (a sanitized build's -fsanitize)
# Exit: 0 pass, 1 fail, 77 skip.

set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ $# -eq 5 ] || fail "usage: $0 BUILDDIR PREFIX LIBDIR INCLUDEDIR APP.c"
build=$1 prefix=$2 libdir=$3 includedir=$4 src=$5
case "$libdir" in /*) ;; *) libdir=$prefix/$libdir ;; esac
case "$includedir" in /*) ;; *) includedir=$prefix/$includedir ;; esac
command -v pkg-config > /dev/null || skip "pkg-config not found"
pkg-config --exists libdpdk || skip "libdpdk.pc not found (libdpdk-dev)"
cc=${CC:-cc}

scratch=$(cd "$build" && pwd)/test/scripts/install-scratch
rm -rf "$scratch"
mkdir -p "$scratch" || fail "cannot create $scratch"
dest=$scratch/dest
keep_scratch() { [ "$KEEP_LOG" = 1 ] || rm -rf "$scratch"; }
trap 'keep_scratch; cleanup' EXIT
LOG=$scratch/install.log

# 1. meson install, into DESTDIR only.
DESTDIR=$dest meson install -C "$build" --no-rebuild > "$LOG" 2>&1 ||
	{ show_log "$LOG"; fail "meson install failed"; }
for f in "$includedir/rte_sheaf.h" "$libdir/librte_sheaf.so" \
		"$libdir/librte_sheaf.so.0" "$libdir/pkgconfig/libsheaf.pc"; do
	[ -e "$dest$f" ] || fail "not installed: $f"
done
pc=$dest$libdir/pkgconfig/libsheaf.pc
pmddir=$(PKG_CONFIG_PATH=$dest$libdir/pkgconfig pkg-config \
	--variable=pmddir libsheaf)
[ -n "$pmddir" ] || fail "libsheaf.pc has no pmddir variable"
plugin=$dest$pmddir/librte_mempool_sheaf.so
[ -f "$plugin" ] || fail "plugin not installed in pmddir $pmddir"
info "installed under $dest$prefix; plugin in $pmddir"

# 2. The .pc as staged for DESTDIR: its prefix moved under the scratch
# directory, as a packager's sysroot does. Nothing else changes.
mkdir -p "$scratch/pkgconfig"
sed "s|^prefix=.*|prefix=$dest$prefix|" "$pc" > "$scratch/pkgconfig/libsheaf.pc"
export PKG_CONFIG_PATH=$scratch/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
grep -q -- '-Wl,--no-as-needed -lrte_sheaf -Wl,--as-needed' "$pc" ||
	fail "libsheaf.pc Libs do not keep librte_sheaf (--no-as-needed)"

# 3. Out-of-tree builds.
# shellcheck disable=SC2046 # pkg-config output is split on purpose
"$cc" -o "$scratch/app" -DALLOW_EXPERIMENTAL_API ${SHEAF_APP_CFLAGS:-} "$src" \
	$(pkg-config --cflags --libs libdpdk libsheaf) >> "$LOG" 2>&1 ||
	{ show_log "$LOG"; fail "app does not build against the installed files"; }
# shellcheck disable=SC2046
"$cc" -o "$scratch/app-noshf" -DALLOW_EXPERIMENTAL_API ${SHEAF_APP_CFLAGS:-} "$src" \
	$(pkg-config --cflags libsheaf) $(pkg-config --libs libdpdk) \
	>> "$LOG" 2>&1 ||
	{ show_log "$LOG"; fail "app does not build with libdpdk alone"; }
readelf -d "$scratch/app" | grep -q 'NEEDED.*librte_sheaf' ||
	fail "app does not need librte_sheaf: dropped by --as-needed"
readelf -d "$scratch/app-noshf" | grep -q 'NEEDED.*librte_sheaf' &&
	fail "app-noshf needs librte_sheaf, expected libdpdk only"

export LD_LIBRARY_PATH=$dest$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# run NAME EXPECT(pass|fail) APP EAL-ARGS...
run() {
	local name=$1 expect=$2 app=$3 rc
	shift 3
	new_file_prefix "install-$name"
	timeout -k 5 60 "$app" -l 0 --no-pci --no-huge -m 256 \
		--file-prefix "$FILE_PREFIX" "$@" > "$scratch/$name.log" 2>&1
	rc=$?
	LOG=$scratch/$name.log
	if [ "$expect" = pass ] && [ $rc -ne 0 ]; then
		show_log "$LOG"; fail "$name: exit status $rc, expected 0"
	fi
	if [ "$expect" = fail ] && [ $rc -eq 0 ]; then
		show_log "$LOG"; fail "$name: exit status 0, expected a failure"
	fi
	info "$name: exit status $rc, as expected"
}

# 4. Linked through libsheaf.pc: sheaf with no -d. The log level is
# settable, and the default hides the set-up line.
run linked pass "$scratch/app" --log-level=lib.sheaf:debug
grep -q 'sheaf pool objs ready' "$scratch/linked.log" ||
	{ show_log "$LOG"; fail "no debug set-up line with --log-level=lib.sheaf:debug"; }
run linked-quiet pass "$scratch/app"
grep -q 'sheaf pool objs ready' "$scratch/linked-quiet.log" &&
	fail "set-up line logged at the default level (expected debug only)"

# 5. libdpdk alone: sheaf comes from the plugin directory, or not at all.
run plugin-none fail "$scratch/app-noshf"
# EAL refuses a world-writable directory: set_plugin copies the plugin
# to a private one then.
set_plugin "$plugin"
plugdir=$(dirname "$PLUGIN")
run plugin-dir pass "$scratch/app-noshf" -d "$plugdir"

echo "PASS: install, out-of-tree build, ops by name with and without -d"
exit 0
