#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
"""Forwarding rate of dpdk-testpmd over two null ports, per mempool ops.

Each configuration (ops name x --mbcache, or NAME:MBCACHE alone) runs
testpmd in io forwarding mode between net_null0 and net_null1; the null
PMD allocates an mbuf for every packet it receives and frees it on
transmit, so the rate measures the mbuf pool. Configurations are
interleaved round by round (A, B, C, A, B, C, ...) so that the machine's
speed changes hit all of them alike; the ratio to the baseline is the
median of per-round ratios. With --floor-plugin (app/perf_floor.c built
alone, build/app/librte_mempool_perf_floor.so), every run loads it too
and a "floor" row runs its perf_floor ops with --mbcache=0: the least a
mempool driver can cost; the "floor" column is each row's share of it
(median of per-round ratios).

Usage: testpmd_perf.py --plugin BUILD/drivers/librte_mempool_sheaf.so
           [--floor-plugin BUILD/app/librte_mempool_perf_floor.so]
           [--ops sheaf,sheaf:256,ring_mp_mc,stack] [--mbcache 0,default]
           [--rounds 5] [--seconds 2] [--lcores 0-1] [--no-huge]
           [--baseline ring_mp_mc:default] [--csv FILE]
Exit: 0, or 1 when a run failed (forwarded nothing, or testpmd failed or
exited non-zero).
"""

import argparse
import atexit
import csv
import os
import re
import shutil
import stat
import statistics
import subprocess
import sys
import tempfile
import threading
import time

RX_RE = re.compile(r"RX-packets:\s+(\d+)")
FLOOR_OPS = "perf_floor"


def world_writable(path):
    return bool(os.stat(path).st_mode & stat.S_IWOTH)


def eal_plugin(so, env):
    """A -d path for so that EAL accepts, and env to run with (updated).

    EAL refuses a plugin when the file or a directory above it is
    world-writable (a checkout under /tmp): then load a copy from a
    private directory, finding the library it links through
    LD_LIBRARY_PATH.
    """
    so = os.path.abspath(so)
    env = dict(env)
    d = so
    while not world_writable(d):
        if d == "/":
            return so, env
        d = os.path.dirname(d)
    for base in ("/run", os.path.expanduser("~"), "/var/lib"):
        if (os.path.isdir(base) and os.access(base, os.W_OK)
                and not world_writable(base)):
            break
    else:
        sys.exit("testpmd_perf: %s is world-writable and there is no private"
                 " directory to copy %s to" % (d, so))
    tmp = tempfile.mkdtemp(prefix="sheaf-plugin.", dir=base)
    atexit.register(shutil.rmtree, tmp, True)
    copy = os.path.join(tmp, os.path.basename(so))
    shutil.copy(so, copy)
    libdir = os.path.join(os.path.dirname(os.path.dirname(so)), "lib", "sheaf")
    if os.path.isdir(libdir):
        env["LD_LIBRARY_PATH"] = ":".join(
            x for x in (libdir, env.get("LD_LIBRARY_PATH", "")) if x)
    sys.stderr.write("testpmd_perf: %s is world-writable, EAL would refuse "
                     "%s: loading a copy, %s\n" % (d, so, copy))
    return copy, env


class Testpmd:
    """An interactive dpdk-testpmd, driven command by command.

    Its output is read as it comes (a thread), so that each command waits
    for the prompt that follows it: the clock starts once forwarding has
    started and the counters are cleared, however long EAL takes to come
    up on a loaded machine.
    """

    PROMPT = "testpmd> "

    def __init__(self, argv, env):
        # Line-buffered stdout keeps testpmd's printf output in order
        # with the prompts its command line writes directly.
        if shutil.which("stdbuf"):
            argv = ["stdbuf", "-oL", "-eL"] + argv
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, env=env)
        self.chunks = []
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        fd = self.proc.stdout.fileno()
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            with self.lock:
                self.chunks.append(chunk)

    def output(self):
        with self.lock:
            return b"".join(self.chunks).decode(errors="replace")

    def wait_prompts(self, n, timeout):
        """Wait until the output holds more than n prompts."""
        end = time.monotonic() + timeout
        while self.output().count(self.PROMPT) <= n:
            if self.proc.poll() is not None:
                raise RuntimeError("testpmd exited with status %d"
                                   % self.proc.returncode)
            if time.monotonic() > end:
                raise RuntimeError("no prompt within %d s" % timeout)
            time.sleep(0.001)

    def cmd(self, line, timeout=30):
        """Send a command and wait for testpmd to be done with it."""
        n = self.output().count(self.PROMPT)
        self.proc.stdin.write((line + "\n").encode())
        self.proc.stdin.flush()
        self.wait_prompts(n, timeout)

    def quit(self, timeout):
        """Quit testpmd: its output, or RuntimeError if it exits
        non-zero (it may have failed at its teardown, the pool's free
        among it: what it counted is not to be trusted)."""
        self.proc.stdin.write(b"quit\n")
        self.proc.stdin.close()
        self.proc.wait(timeout=timeout)
        self.reader.join(timeout)
        if self.proc.returncode != 0:
            raise RuntimeError("testpmd exited with status %d after quit"
                               % self.proc.returncode)
        return self.output()

    def kill(self):
        self.proc.kill()
        self.proc.wait()
        self.reader.join(5)
        return self.output()


def eal_runtime_dir(prefix):
    """The directory EAL makes for --file-prefix prefix: under /var/run
    for root, else under $XDG_RUNTIME_DIR, else /tmp."""
    if os.geteuid() == 0:
        base = "/var/run"
    else:
        base = os.environ.get("XDG_RUNTIME_DIR") or "/tmp"
    return os.path.join(base, "dpdk", prefix)


def run_once(args, ops, cache, prefix):
    """Packets per second forwarded by one testpmd run, or None.

    EAL leaves its runtime directory (config, fbarray files: 13 MB of
    tmpfs with --no-huge) behind at exit: it goes once testpmd is gone.
    --in-memory would leave it empty, but cannot run with --no-huge -m
    (EAL: "--legacy-mem is not compatible with --in-memory").
    """
    try:
        return run_testpmd(args, ops, cache, prefix)
    finally:
        shutil.rmtree(eal_runtime_dir(prefix), ignore_errors=True)


def run_testpmd(args, ops, cache, prefix):
    """run_once()'s run, its runtime directory left behind."""
    eal = ["-l", args.lcores, "--no-pci", "--file-prefix", prefix,
           "--vdev", "net_null0", "--vdev", "net_null1",
           "--mbuf-pool-ops-name", ops, "--log-level", "lib.eal:error"]
    if args.no_huge:
        eal += ["--no-huge", "-m", "1024"]
    else:
        eal += ["--huge-unlink"]
    for plugin in args.plugins:
        eal += ["-d", plugin]
    app = ["--", "-i", "--forward-mode=io"]
    if cache != "default":
        app.append("--mbcache=%s" % cache)
    tp = Testpmd([args.testpmd] + eal + app, args.env)
    try:
        tp.wait_prompts(0, 120)
        tp.cmd("start")
        time.sleep(args.warmup)
        tp.cmd("clear port stats all")
        t0 = time.monotonic()
        time.sleep(args.seconds)
        # The counters are read when the command runs: stamp it first.
        t1 = time.monotonic()
        tp.cmd("show port stats all")
        tp.cmd("stop")
        out = tp.quit(60)
    except (RuntimeError, subprocess.TimeoutExpired, BrokenPipeError) as e:
        out = tp.kill()
        sys.stderr.write("\ntestpmd %s cache %s failed (%s):\n%s\n"
                         % (ops, cache, e, out[-2000:]))
        return None
    # "show port stats all" prints RX-packets for each port first; the
    # forwarding summary printed by "stop" comes after it.
    show = out.split("show port stats all", 1)[-1]
    counts = [int(x) for x in RX_RE.findall(show)[:2]]
    if len(counts) < 2 or sum(counts) == 0:
        sys.stderr.write("testpmd %s cache %s forwarded nothing:\n%s\n"
                         % (ops, cache, out[-2000:]))
        return None
    return sum(counts) / (t1 - t0)


def configs_of(args):
    """(ops, mbcache) pairs: NAME:MBCACHE alone, NAME with each --mbcache;
    then the floor row when its plugin is loaded."""
    configs = []
    for o in args.ops.split(","):
        if ":" in o:
            configs.append(tuple(o.split(":", 1)))
        else:
            configs += [(o, c) for c in args.mbcache.split(",")]
    if args.floor_plugin:
        configs.append((FLOOR_OPS, "0"))
    return configs


def ratios_to(rates, ref):
    """Per-round ratios of rates to ref's, where both ran."""
    return [x / b for x, b in zip(rates, ref)
            if x is not None and b is not None]


def spread(v):
    """Median, min and max of v as columns, each '-' when v is empty (no
    round where both ran): a ratio of 0 would read as a result."""
    if not v:
        return ("-",) * 3
    return tuple("%.3f" % x for x in (statistics.median(v), min(v), max(v)))


def report(args, configs, rates, base):
    floor = (FLOOR_OPS, "0") if args.floor_plugin else None
    print("testpmd io forwarding, net_null0 <-> net_null1, lcores %s, "
          "%d rounds x %.1f s" % (args.lcores, args.rounds, args.seconds))
    print("%-12s %-8s %10s %10s %10s %8s %8s %8s %8s" % (
        "ops", "mbcache", "Mpps", "min", "max", "ratio", "r.min", "r.max",
        "floor"))
    for cfg in configs:
        name = "floor" if cfg == floor else cfg[0]
        ok = [x for x in rates[cfg] if x is not None]
        if not ok:
            print("%-12s %-8s failed" % (name, cfg[1]))
            continue
        share = ratios_to(rates[cfg], rates[floor]) if floor else []
        # Failed in some rounds: its figures are of the others (as
        # sheaf-perf's status column says).
        mark = ("  (%d/%d rounds)" % (len(ok), len(rates[cfg]))
                if len(ok) < len(rates[cfg]) else "")
        print("%-12s %-8s %10.2f %10.2f %10.2f %8s %8s %8s %8s%s" % (
            (name, cfg[1], statistics.median(ok) / 1e6, min(ok) / 1e6,
             max(ok) / 1e6) + spread(ratios_to(rates[cfg], rates[base]))
            + ("%.3f" % statistics.median(share) if share else "-", mark)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--plugin", default="",
                   help="sheaf plugin .so to load with -d")
    p.add_argument("--floor-plugin", default="",
                   help="perf_floor plugin .so: a second -d, a floor row")
    p.add_argument("--testpmd", default="dpdk-testpmd")
    p.add_argument("--ops", default="sheaf,sheaf:256,ring_mp_mc,stack",
                   help="ops names, each crossed with --mbcache, or "
                   "NAME:MBCACHE alone")
    p.add_argument("--mbcache", default="0,default",
                   help="testpmd --mbcache values; default = testpmd's 250")
    p.add_argument("--baseline", default="ring_mp_mc:default")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--warmup", type=float, default=0.5,
                   help="seconds forwarding before the count (EAL "
                   "start-up is waited for apart)")
    p.add_argument("--lcores", default="0-1")
    p.add_argument("--no-huge", action="store_true")
    p.add_argument("--csv", default="")
    args = p.parse_args()
    args.env = dict(os.environ)
    args.plugins = []
    for so in (args.plugin, args.floor_plugin):
        if so:
            plugin, args.env = eal_plugin(so, args.env)
            args.plugins.append(plugin)

    configs = configs_of(args)
    base = tuple(args.baseline.split(":"))
    if base not in configs:
        p.error("baseline %s:%s is not among the configurations" % base)
    rates = {cfg: [] for cfg in configs}
    failed = False
    for r in range(args.rounds):
        for cfg in configs:
            sys.stderr.write("\rround %d/%d: %s cache %s      "
                             % (r + 1, args.rounds, cfg[0], cfg[1]))
            rate = run_once(args, cfg[0], cfg[1],
                            "tpperf%d" % os.getpid())
            if rate is None:
                failed = True
            rates[cfg].append(rate)
    sys.stderr.write("\n")

    report(args, configs, rates, base)
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["ops", "mbcache", "round", "pps"])
            for cfg in configs:
                for r, x in enumerate(rates[cfg]):
                    w.writerow([cfg[0], cfg[1], r, "" if x is None else x])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
