#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""List the environment variables a library's sources read, tag by tag, from a local git
clone (reads it only; downloads nothing). For rules/env.catalog.

    scripts/dev/nccl-env-scan.py GIT_DIR [--from v2.18] [--to TAG] [--under src] [--prefix NCCL_]
                                 [--tags TAG,TAG,...]

GIT_DIR is a clone or a bare repository (e.g. of github.com/NVIDIA/nccl). Without --tags,
every tag v<major>.<minor>.<patch>-<n> from --from (inclusive) to --to (inclusive, default
the newest) is read, in version order. A name is read when a file under --under holds
  - NCCL_PARAM(Name, "SUFFIX", default): NCCL's macro prefixes "NCCL_" (src/include/param.h),
    so the variable is NCCL_SUFFIX (the macro call may span lines);
  - DEFINE_NCCL_PARAM(name, type, NCCL_KEY, ...) (2.30's src/include/param/param.h): NCCL_KEY;
  - a string literal "PREFIXNAME" (ncclGetEnv("NCCL_X"), getenv("NCCL_X"), tables of names).
Literals that are not whole names ("NCCL_" alone, format strings) are skipped.
Prints one line a name: NAME FIRST_TAG LAST_TAG HOW FILE (HOW: param, typed or literal; HOW and
FILE: how and where the newest tag that has it reads it), sorted by name; --summary adds per-range counts to stderr."""
import argparse, re, subprocess, sys

SRC_EXT = ('.c', '.cc', '.cu', '.cpp', '.h', '.hpp', '.cuh', '.in')


def git(gd, *args, data=None):
    return subprocess.run(['git', '--git-dir', gd, *args], input=data, stdout=subprocess.PIPE,
                          check=True).stdout


def version(tag):
    m = re.match(r'^v(\d+)\.(\d+)(?:\.(\d+))?(?:-(\d+))?$', tag)
    return tuple(int(x or 0) for x in m.groups()) if m else None


def blobs(gd, tag, under):
    """(path, text) of every source file under `under` at tag."""
    rows = git(gd, 'ls-tree', '-r', tag, '--', under).decode().splitlines()
    todo = []
    for r in rows:
        meta, path = r.split('\t', 1)
        mode, kind, sha = meta.split()
        if kind == 'blob' and path.endswith(SRC_EXT):
            todo.append((path, sha))
    out = git(gd, 'cat-file', '--batch', data=''.join(s + '\n' for _, s in todo).encode())
    pos, res = 0, []
    for path, sha in todo:
        nl = out.index(b'\n', pos)
        size = int(out[pos:nl].split()[2])
        res.append((path, out[nl + 1:nl + 1 + size].decode('utf-8', 'replace')))
        pos = nl + 1 + size + 1
    return res


def names(files, prefix):
    """{name: (how, file)} read by these files."""
    param = re.compile(r'NCCL_PARAM\s*\(\s*\w+\s*,\s*"([A-Z0-9_]+)"')
    # 2.30's typed registry: DEFINE_NCCL_PARAM(name, type, NCCL_KEY, default, ...), the key unquoted
    defparam = re.compile(r'DEFINE_NCCL_PARAM\s*\(\s*\w+\s*,\s*[^,]+,\s*(NCCL_[A-Z0-9_]+)\s*,')
    literal = re.compile(r'"(' + re.escape(prefix) + r'[A-Z0-9_]*[A-Z0-9])"')
    found = {}
    for path, text in files:
        if prefix == 'NCCL_':
            for m in param.finditer(text):
                found.setdefault('NCCL_' + m.group(1), ('param', path))
            for m in defparam.finditer(text):
                found.setdefault(m.group(1), ('typed', path))
        for m in literal.finditer(text):
            found.setdefault(m.group(1), ('literal', path))
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('git_dir')
    ap.add_argument('--from', dest='first', default='v2.18')
    ap.add_argument('--to', dest='last')
    ap.add_argument('--tags')
    ap.add_argument('--under', default='src')
    ap.add_argument('--prefix', default='NCCL_')
    ap.add_argument('--summary', action='store_true')
    a = ap.parse_args()
    if a.tags:
        tags = a.tags.split(',')
    else:
        tags = [t for t in git(a.git_dir, 'tag').decode().split() if version(t)]
        tags.sort(key=version)
        lo = version(a.first)
        hi = version(a.last) if a.last else None
        tags = [t for t in tags if version(t)[:len(lo)] >= lo and (hi is None or version(t) <= hi)]
    seen = {}  # name -> [first, last, how, file]
    for t in tags:
        for n, (how, path) in names(blobs(a.git_dir, t, a.under), a.prefix).items():
            if n in seen:
                seen[n][1:] = [t, how, path]
            else:
                seen[n] = [t, t, how, path]
    for n in sorted(seen):
        print(n, *seen[n])
    if a.summary:
        ranges = {}
        for n, (f, l, _, _) in seen.items():
            ranges[(f, l)] = ranges.get((f, l), 0) + 1
        for (f, l), c in sorted(ranges.items(), key=lambda x: (version(x[0][0]), version(x[0][1]))):
            print(f'{f}..{l}: {c}', file=sys.stderr)
        print(f'{len(seen)} names over {len(tags)} tags ({tags[0]}..{tags[-1]})', file=sys.stderr)


if __name__ == '__main__':
    main()
