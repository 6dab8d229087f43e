#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The sheaf authors
"""Check that each example's code between its "8<" and ">8" lines is,
verbatim, a C code block of the guide it names: the guide shows what
the tests build and run.

Usage: doc_examples.py EXAMPLE.c...
Marker lines: /* 8< doc/<guide>.md "<section>" */ ... /* >8 */
Exit: 0 when every region matches a block, 1 otherwise.
"""

import os
import re
import sys

START = re.compile(r'^/\* 8< (doc/[\w./-]+\.md) "([^"]*)" \*/$')
END = '/* >8 */'


def regions(path):
    """Yield (guide, section, text) for each marked region of path."""
    with open(path) as f:
        lines = f.read().split('\n')
    i = 0
    while i < len(lines):
        m = START.match(lines[i])
        i += 1
        if not m:
            continue
        body = []
        while i < len(lines) and lines[i] != END:
            body.append(lines[i])
            i += 1
        yield m.group(1), m.group(2), '\n'.join(body).strip('\n')


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
    bad = 0
    for ex in sys.argv[1:]:
        found = list(regions(ex))
        if not found:
            print(f'FAIL: {ex}: no 8< region')
            bad += 1
        for guide, section, text in found:
            with open(os.path.join(root, guide)) as f:
                doc = f.read()
            blocks = [b.strip('\n') for b in
                      re.findall(r'^```c\n(.*?)^```', doc, re.S | re.M)]
            heading = re.search(r'^#+ ' + re.escape(section) + r'\s*$', doc,
                                re.M)
            if heading is None:
                print(f'FAIL: {ex}: {guide} has no section "{section}"')
                bad += 1
            elif text not in blocks:
                print(f'FAIL: {ex}: region differs from every code block '
                      f'of {guide} (section "{section}"); update one from '
                      'the other')
                bad += 1
            else:
                print(f'ok: {ex} matches {guide} "{section}"')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
