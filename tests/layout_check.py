#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The layout rules of docs/ARCHITECTURE.md, checked on the sources (make check):
- no include circle between modules (a module is a .c and its .h, by name);
- a stage includes only its own headers, core's and (the probe harness, probes/) dist's;
  main and the commands (src/*.c) include anything;
- no C file over 1200 lines.
Prints what breaks a rule and the usual "N passed, N failed" line; exit 1 on a failure."""
import collections, os, re, sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else '.'
MAX_LINES = 1200
# which folders a folder's files may include, besides their own
ALLOWED = {
    'src/core': set(),
    'src/dist': {'src/core'},
    'src/discover': {'src/core'},
    'src/probe': {'src/core', 'src/dist'},
    'probes': {'src/core', 'src/dist', 'src/probe'},
    'src/judge': {'src/core'},
    'src/advise': {'src/core'},
    'src/report': {'src/core'},
}

files = []
for d in ['src', 'probes']:
    for dp, _, fn in os.walk(os.path.join(ROOT, d)):
        files += [os.path.join(dp, f) for f in fn if f.endswith(('.c', '.h'))]
folder = lambda p: os.path.relpath(os.path.dirname(p), ROOT)
module = lambda p: os.path.splitext(os.path.basename(p))[0]
headers = {}
for p in files:
    if p.endswith('.h'):
        if os.path.basename(p) in headers:
            print(f'layout: two headers named {os.path.basename(p)}: the include paths would pick one')
        headers[os.path.basename(p)] = p

passed = failed = 0
def check(ok, msg):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print('FAIL: layout: ' + msg)

graph = collections.defaultdict(set)
for p in sorted(files):
    text = open(p, encoding='utf-8', errors='replace').read()
    n = text.count('\n')
    if p.endswith('.c'):
        check(n <= MAX_LINES, f'{os.path.relpath(p, ROOT)} has {n} lines (at most {MAX_LINES})')
    src = folder(p)
    for inc in re.findall(r'^#include "([^"]+)"', text, re.M):
        h = headers.get(os.path.basename(inc))
        if not h:
            continue
        dst = folder(h)
        if module(h) != module(p):
            graph[module(p)].add(module(h))
        if src in ALLOWED and dst != src:
            check(dst in ALLOWED[src], f'{os.path.relpath(p, ROOT)} includes {inc} of {dst}: '
                  f'{src} may include only {", ".join(sorted(ALLOWED[src])) or "its own headers"}')

# include circles: strongly connected components of more than one module
index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]
def strong(v):
    index[v] = low[v] = counter[0]; counter[0] += 1
    stack.append(v); on.add(v)
    for w in graph[v]:
        if w not in index:
            strong(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        comps.append(comp)
for v in list(graph):
    if v not in index:
        strong(v)
circles = [c for c in comps if len(c) > 1]
check(not circles, 'include circles: ' + '; '.join(' <-> '.join(sorted(c)) for c in circles))
print(f'layout: {passed} passed, {failed} failed')
sys.exit(1 if failed else 0)
