# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# Helpers shared by the script-driven tests; sourced, not run.
# Exit codes follow meson: 0 pass, 1 fail, 77 skip.

SKIP=77
# A crashed DPDK process would dump up to its whole --no-huge memory.
ulimit -c 0

LOG=
KEEP_LOG=0
fail() {
	echo "FAIL: $*"
	if [ -n "$LOG" ]; then
		KEEP_LOG=1
		echo "full output: $LOG"
	fi
	exit 1
}
skip() { echo "SKIP: $*"; exit $SKIP; }
info() { echo "info: $*"; }

# Print the last lines of a log, to show why a run failed.
show_log() {
	echo "----- last ${2:-40} lines of $1 -----"
	grep -v 'cache_count\[' "$1" | tail -n "${2:-40}"
	echo "-----"
}

# Succeed when a hugetlbfs is mounted and at least $1 MiB of default-size
# hugepages are free.
huge_available() {
	local need_mb=$1 free size
	awk '$3 == "hugetlbfs" { f = 1 } END { exit !f }' /proc/mounts ||
		return 1
	free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
	size=$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)
	[ -n "$free" ] && [ -n "$size" ] &&
		[ $((free * size / 1024)) -ge "$need_mb" ]
}

# shellcheck disable=SC2034 # EAL_MEM is for the callers
# Set EAL_MEM (an array) to the EAL memory arguments for mode "huge" or "nohuge".
# The hugepage mode skips the test when fewer than $2 MiB are free.
# --huge-unlink leaves no hugepage files behind, even after a crash.
set_eal_mem() {
	local mode=$1 need_mb=$2
	case "$mode" in
	nohuge) EAL_MEM=(--no-huge -m 1024) ;;
	huge)
		huge_available "$need_mb" ||
			skip "fewer than $need_mb MiB of free hugepages (see scripts/setup.sh)"
		EAL_MEM=(--huge-unlink) ;;
	*) fail "unknown memory mode '$mode' (huge|nohuge)" ;;
	esac
}

# shellcheck disable=SC2034 # EAL_MP_BASE is for the callers
# EAL arguments of the tests whose secondaries map the primary's hugepage
# memory: a fixed base for it, far from the libraries, above ASan's
# shadow (which covers DPDK's default base, 4 GiB) and below its
# allocator. Each secondary must map that memory at the primary's
# addresses; left to ASLR, the libraries or ASan's mappings of a
# secondary now and then sat there ("Cannot reserve ... at [addr]",
# EAL init failed: the test skipped, 2 runs in 5 of sheaf_identity in
# the ASan build).
EAL_MP_BASE=(--base-virtaddr=0x200000000000)

# A --file-prefix no other DPDK process on the machine uses, and its
# clean-up at exit.
new_file_prefix() {
	FILE_PREFIX="sheaf-$1-$$"
	CLEANUP+=("/var/run/dpdk/$FILE_PREFIX")
}

# Set LOG to a file for the output of run $1: in $SHEAF_LOG_DIR (kept),
# else a temporary file removed at exit unless the test failed.
new_log() {
	if [ -n "${SHEAF_LOG_DIR:-}" ]; then
		mkdir -p "$SHEAF_LOG_DIR" || fail "cannot create $SHEAF_LOG_DIR"
		LOG="$SHEAF_LOG_DIR/$1.log"
		: > "$LOG"
	else
		LOG=$(mktemp "/tmp/sheaf-$1.XXXXXX.log")
		TMP_LOG=$LOG
	fi
}
TMP_LOG=
CLEANUP=()
cleanup() {
	local p
	for p in "${CLEANUP[@]}"; do
		rm -rf -- "$p"
	done
	if [ -n "$TMP_LOG" ] && [ "$KEEP_LOG" = 0 ]; then
		rm -f -- "$TMP_LOG"
	fi
}
trap cleanup EXIT

# Set PLUGIN to a -d path for $1 that EAL accepts. EAL refuses a plugin
# when the file or any directory above it is world-writable (/tmp, for a
# checkout there): then copy it to a private directory, and find the
# library it links through LD_LIBRARY_PATH.
world_writable() { [ -n "$(find "$1" -maxdepth 0 -perm -o+w 2>/dev/null)" ]; }
# shellcheck disable=SC2034
set_plugin() {
	local so=$1 d dir lib
	[ -f "$so" ] || fail "plugin $so not found: build first"
	case "$so" in /*) ;; *) so="$PWD/$so" ;; esac
	PLUGIN=$so
	d=$so
	while ! world_writable "$d"; do
		[ "$d" = / ] && return 0
		d=$(dirname "$d")
	done
	info "$d is world-writable: EAL would refuse $so, using a copy"
	for dir in /run "${HOME:-/root}" /var/lib; do
		[ -d "$dir" ] && [ -w "$dir" ] && ! world_writable "$dir" && break
		dir=
	done
	[ -n "$dir" ] || fail "no private directory to copy $so to"
	dir=$(mktemp -d "$dir/sheaf-plugin.XXXXXX")
	CLEANUP+=("$dir")
	cp "$so" "$dir/"
	PLUGIN="$dir/$(basename "$so")"
	lib=$(ldd "$so" | awk '$1 ~ /^librte_sheaf/ && $3 ~ /^\// { print $3 }')
	if [ -n "$lib" ]; then
		LD_LIBRARY_PATH="$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		export LD_LIBRARY_PATH
	fi
	return 0
}

# Succeed if EAL failed for want of memory (then the test skips).
eal_out_of_memory() {
	grep -qE 'Cannot init memory|Not enough memory available|Cannot get hugepage information' "$1"
}

# Interactive dpdk-testpmd, driven through a FIFO.
# testpmd_start BIN LOG SECONDS ARGS...: start it in the background (killed
# after SECONDS), its output in LOG; sets TESTPMD_PID and keeps the FIFO
# open on fd 3 so that testpmd sees no EOF. TESTPMD_HUGE=1 turns an EAL
# hugepage shortage into a skip.
testpmd_start() {
	local bin=$1 limit=$3 work stdbuf=()
	TESTPMD_LOG=$2
	shift 3
	work=$(mktemp -d /tmp/sheaf-testpmd.XXXXXX)
	CLEANUP+=("$work")
	mkfifo "$work/in"
	# Line-buffered stdout keeps testpmd's printf output in order with
	# the prompts its command line writes directly.
	command -v stdbuf > /dev/null && stdbuf=(stdbuf -oL -eL)
	echo "run: $bin $*"
	timeout -k 10 "$limit" "${stdbuf[@]}" "$bin" "$@" \
		< "$work/in" > "$TESTPMD_LOG" 2>&1 &
	TESTPMD_PID=$!
	exec 3> "$work/in"
}
testpmd_prompts() { grep -o 'testpmd> ' "$TESTPMD_LOG" | wc -l; }
# Wait until testpmd shows more than $1 prompts, i.e. is done with the
# last command; fail after $2 seconds or if testpmd exited.
testpmd_wait() {
	local n=$1 t=$(( $2 * 10 )) rc
	while [ "$(testpmd_prompts)" -le "$n" ]; do
		if ! kill -0 "$TESTPMD_PID" 2> /dev/null; then
			wait "$TESTPMD_PID"
			rc=$?
			if [ "${TESTPMD_HUGE:-0}" = 1 ] &&
					eal_out_of_memory "$TESTPMD_LOG"; then
				show_log "$TESTPMD_LOG" 10
				skip "EAL could not get its hugepage memory"
			fi
			show_log "$TESTPMD_LOG"
			fail "testpmd exited early with status $rc"
		fi
		t=$((t - 1))
		if [ $t -le 0 ]; then
			kill "$TESTPMD_PID" 2> /dev/null
			show_log "$TESTPMD_LOG"
			fail "testpmd did not answer within $2 s"
		fi
		sleep 0.1
	done
}
# Send a command and wait for testpmd to be done with it.
testpmd_cmd() {
	local n
	n=$(testpmd_prompts)
	echo "$1" >&3
	testpmd_wait "$n" "${2:-30}"
}
# Quit testpmd and return its exit status.
testpmd_quit() {
	echo quit >&3
	exec 3>&-
	wait "$TESTPMD_PID"
}
