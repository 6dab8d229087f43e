#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
#
# Process identity outlives pids. A secondary dies (SIGKILL, most likely
# inside a pool call) on lcore 1 holding objects, then:
#   - pid reuse: the next secondary on lcore 1 gets the dead one's pid
#     (through /proc/sys/kernel/ns_last_pid, as root); it must see the
#     slot's owner as dead (another start time), take the slot over and
#     use it: no call may find it busy with the dead one's mark;
#   - zombie: another secondary dies and is left unreaped by its parent;
#     the next one on lcore 1 must count the zombie as dead and take the
#     slot over;
#   - leader exit: the next owner's main thread calls pthread_exit()
#     while its other threads run: a zombie leader of a live process; a
#     secondary on lcore 1 then must not take its slot.
# The primary then gets the whole pool but what the dead held, each
# object once. (test/sheaf_mp_app.c, modes die and owner.) Secondary
# processes need hugepage memory: skipped without it.
#
# Usage: identity.sh APP
# Exit: 0 pass, 1 fail, 77 skip.

set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ $# -ge 1 ] || fail "usage: $0 APP"
app=$1
[ -x "$app" ] || fail "$app not built"
[ "$(nproc)" -ge 2 ] || skip "fewer than 2 CPUs"
[ -w /proc/sys/kernel/ns_last_pid ] || skip "cannot set the next pid (not root)"
set_eal_mem huge 128
new_file_prefix identity
new_log identity
eal=(--file-prefix "$FILE_PREFIX" --no-pci "${EAL_MP_BASE[@]}"
	--log-level=lib.eal:error)
sec=("$app" --proc-type=secondary -l 1 "${eal[@]}" --)
go=$LOG.go
CLEANUP+=("$LOG.primary" "$LOG.die" "$LOG.owner" "$LOG.zdie" "$LOG.zowner"
	"$go")
rm -f "$go"

"$app" -l 0 "${eal[@]}" -- primary "$go" > "$LOG.primary" 2>&1 &
primary=$!
for _ in $(seq 1 300); do
	grep -q "primary ready" "$LOG.primary" && break
	kill -0 $primary 2>/dev/null || break
	sleep 0.1
done
grep -q "primary ready" "$LOG.primary" ||
	{ kill $primary 2>/dev/null; cat "$LOG.primary"; fail "primary did not start"; }
finish() {
	touch "$go"
	wait $primary
	rcp=$?
	cat "$LOG".* >> "$LOG" 2>/dev/null
	grep -v '^EAL\|^TELEMETRY' "$LOG"
}

# A secondary that exits 77 could not attach (hugepage memory short):
# the run proves nothing, a skip.
attached() {
	[ "$1" != 77 ] && return 0
	finish
	skip "a secondary could not attach"
}

# Pid reuse: the owner starts with the dead one's pid. Another process
# may take that pid first: try a few times.
reused=0
for attempt in 1 2 3 4 5; do
	"${sec[@]}" die 0.5 > "$LOG.die" 2>&1 &
	dead=$!
	wait $dead
	rc=$?
	attached $rc
	[ $rc = 137 ] || { finish; fail "the dying secondary exited $rc, expected 137"; }
	echo $((dead - 1)) > /proc/sys/kernel/ns_last_pid
	"${sec[@]}" owner 0.5 > "$LOG.owner" 2>&1 &
	owner=$!
	wait $owner
	rc=$?
	attached $rc
	[ $rc = 0 ] || { finish; fail "the owner (pid $owner) exited $rc"; }
	if [ "$owner" = "$dead" ]; then
		reused=1
		info "pid $dead reused by the next owner of lcore 1 (attempt $attempt)"
		break
	fi
	info "attempt $attempt: the owner got pid $owner, not $dead"
done
[ $reused = 1 ] || { finish; fail "could not give a dead secondary's pid to the next"; }

# Zombie: the dying secondary's parent does not reap it.
zparent=$(mktemp /tmp/sheaf-zombie.XXXXXX)
CLEANUP+=("$zparent")
python3 - "$zparent" "${sec[@]}" die 0.5 > /dev/null 2> "$LOG.zdie" <<'PY' &
import os, sys, time
out, argv = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    fd = os.open(out + ".log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.execv(argv[0], argv)
with open(out, "w") as f:
    f.write(str(pid))
time.sleep(60)  # never waits for the child: a zombie once it dies
PY
zpy=$!
zdead=
for _ in $(seq 1 100); do
	zdead=$(cat "$zparent" 2>/dev/null)
	[ -n "$zdead" ] && [ "$(awk '{ print $3 }' "/proc/$zdead/stat" 2>/dev/null)" = Z ] && break
	sleep 0.1
done
CLEANUP+=("$zparent.log")
if [ -z "$zdead" ] || [ "$(awk '{ print $3 }' "/proc/$zdead/stat" 2>/dev/null)" != Z ]; then
	kill $zpy 2>/dev/null
	finish
	fail "the second dying secondary did not become a zombie"
fi
info "pid $zdead is a zombie"
"${sec[@]}" owner 0.5 > "$LOG.zowner" 2>&1
rc=$?
kill $zpy 2>/dev/null
wait $zpy 2>/dev/null
cat "$zparent.log" >> "$LOG.zdie"
attached $rc
[ $rc = 0 ] || { finish; fail "the owner after the zombie exited $rc"; }

# Leader exit: the owner of lcore 1's main thread calls pthread_exit(),
# its other threads run on. Its leader shows as a zombie, yet the
# process is alive: the next secondary on lcore 1 must leave its slot.
lgo=$LOG.lgo
CLEANUP+=("$LOG.leader" "$LOG.visitor" "$lgo")
rm -f "$lgo"
"${sec[@]}" leader 0.5 "$lgo" > "$LOG.leader" 2>&1 &
leader=$!
lstate() { awk '{ print $3 }' "/proc/$leader/stat" 2>/dev/null; }
for _ in $(seq 1 100); do
	[ "$(lstate)" = Z ] && break
	kill -0 $leader 2>/dev/null || break
	sleep 0.1
done
if [ "$(lstate)" != Z ]; then
	touch "$lgo"
	wait $leader
	rcl=$?
	finish
	[ $rcl = 77 ] && skip "the leader could not attach"
	fail "the leader's main thread did not exit (exit $rcl)"
fi
info "pid $leader: zombie leader, $(awk '{ print $20 }' "/proc/$leader/stat") threads"
"${sec[@]}" visitor 0.5 > "$LOG.visitor" 2>&1
rc=$?
touch "$lgo"
wait $leader
rcl=$?
attached $rc
[ $rc = 0 ] || { finish; fail "the visitor next to a live zombie leader exited $rc"; }
[ $rcl = 0 ] || { finish; fail "the leader exited $rcl"; }

finish
[ $rcp = 0 ] || fail "primary exited $rcp"
grep -q "pool whole" "$LOG" || fail "primary did not check the pool"
echo "PASS"
