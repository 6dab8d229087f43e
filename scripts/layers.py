#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
"""Check that lib/sheaf is layered: no two modules depend on each other.

A module is a concept: sheaf_<x>.c with its sheaf_<x>.h. The public header
rte_sheaf.h (types) is the bottom, rte_sheaf.c (the entry points) near the
top; pvt, kill and ops are headers alone, placed by HEADER_ONLY. Module
A depends on module B when a file of A includes B's header or calls a
function that B defines (non-static, found in B's .c, or static inline in
B's .h). The order is the one of the sources in lib/sheaf/meson.build,
bottom up, with the header-only modules first: each module may depend only
on modules before it. Exits 1, naming each edge that goes up or around a
loop; prints the layers otherwise.

Usage: layers.py [LIB_DIR]   (default: lib/sheaf next to this script)
"""

import os
import re
import sys

# Header-only modules: where each goes in the order (before the module
# named, or first for None).
HEADER_ONLY = {"types": None, "pvt": None, "kill": "slot", "ops": "stats"}


def module_of(path):
    base = os.path.basename(path)
    if base == "rte_sheaf.h":
        return "types"
    if base.startswith("rte_sheaf"):
        return "api"
    m = re.match(r"sheaf_(\w+)\.[ch]$", base)
    return m.group(1) if m else None


def strip(text):
    """Source without comments, string literals and prototypes."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    # A prototype declares, it calls nothing.
    return re.sub(r"^[a-z_][\w \*]*\b\w+\s*\([^;{]*\)\s*;", " ", text,
                  flags=re.M)


def definitions(path, text):
    """Functions a file defines for others: non-static in .c, inline in .h."""
    names = set()
    for m in re.finditer(r"^([a-z_][\w \*]*?)\n?(\w+)\(([^;{)]*)\)\s*\{",
                         text, flags=re.M):
        head, name = m.group(1), m.group(2)
        if path.endswith(".c") and "static" in head:
            continue
        names.add(name)
    return names


def order_from_meson(libdir):
    text = open(os.path.join(libdir, "meson.build")).read()
    srcs = re.findall(r"'((?:rte_)?sheaf_?\w*)\.c'", text)
    order = [m for m in (module_of(s + ".c") for s in srcs) if m]
    bottom = [h for h, before in HEADER_ONLY.items() if before is None]
    for h, before in HEADER_ONLY.items():
        if before is not None:
            order.insert(order.index(before), h)
    return bottom + order


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    libdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        here, "..", "lib", "sheaf")
    files = sorted(f for f in os.listdir(libdir) if f.endswith((".c", ".h")))
    texts = {f: strip(open(os.path.join(libdir, f)).read()) for f in files}
    defined = {}
    for f in files:
        for name in definitions(f, texts[f]):
            defined.setdefault(name, module_of(f))
    deps = {}
    for f in files:
        mod = module_of(f)
        if mod is None:
            continue
        edges = deps.setdefault(mod, {})
        for inc in re.findall(r'#include "([\w.]+)"', open(
                os.path.join(libdir, f)).read()):
            other = module_of(inc)
            if other not in (None, mod):
                edges.setdefault(other, "%s includes %s" % (f, inc))
        for name in set(re.findall(r"\b(\w+)\s*\(", texts[f])):
            other = defined.get(name)
            if other not in (None, mod):
                edges.setdefault(other, "%s calls %s()" % (f, name))
    order = order_from_meson(libdir)
    rank = {m: i for i, m in enumerate(order)}
    bad = []
    for mod, edges in sorted(deps.items()):
        if mod not in rank:
            bad.append("module %s is not in lib/sheaf/meson.build" % mod)
            continue
        for other, why in sorted(edges.items()):
            if rank.get(other, -1) >= rank[mod]:
                bad.append("%s -> %s goes up: %s" % (mod, other, why))
    for line in bad:
        print("layers: " + line)
    if bad:
        return 1
    for m in order:
        below = sorted(deps.get(m, {}), key=lambda o: rank[o])
        print("%-10s <- %s" % (m, ", ".join(below) or "-"))
    print("layers: %d modules, no dependency goes up or around a loop"
          % len(order))
    return 0


if __name__ == "__main__":
    sys.exit(main())
