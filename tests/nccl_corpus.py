#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Import every real nccl-tests output of tests/data/nccl-tests/CORPUS.tsv and hold each to
what it printed: the collective of each test (or the candidates a table cannot tell
apart, "a|b"), its peak busbw exact to the printed digits, and never a wrong rank or
node count (null is allowed: a pasted table may not say). Nothing that shows busbw may
be refused (exit 2).

The holdout set is never tuned on: a holdout file listed in holdout-misses.tsv with its
cause is reported SKIP; any other miss fails, tune or holdout. The last line gives the
accuracy of both sets (bench/import_accuracy.sh prints it).

usage: nccl_corpus.py COMMDIAG [DIR]
"""
import json
import os
import subprocess
import sys


def read_tsv(path):
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            rows.append(line.rstrip("\n").split("\t"))
    return rows


def as_printed(value, digits):
    """value written with as many decimals as the expected digits carry"""
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    return "%.*f" % (decimals, value)


def check(binary, base, row):
    """the list of what is wrong with one corpus file ([] when right)"""
    name, _url, _set, colls, peaks, ranks, nodes = row[:7]
    path = os.path.join(base, name)
    run = subprocess.run([binary, "import", "nccl-tests", path, "--json"], capture_output=True, text=True,
                         env=dict(os.environ, COMMDIAG_DETERMINISTIC="1"))
    if run.returncode not in (0, 1):
        return ["refused (exit %d): %s" % (run.returncode, run.stderr.strip()[:300])]
    doc = json.loads(run.stdout)
    im = doc["run"]["imports"][0]
    wrong = []
    want = colls.split(",")
    if im["collectives"] != want:
        wrong.append("collectives %s, expected %s (%s)" % (im["collectives"], want, "; ".join(im["collective_from"])))
        return wrong
    for coll, digits in zip(want, peaks.split(",")):
        bus = [r["busbw_gbyte_s"] for p in doc["probes"] if p["name"] == "nccl." + coll for r in p["results"]
               if r["busbw_gbyte_s"] is not None]
        got = as_printed(max(bus), digits) if bus else "none"
        if got != digits:
            wrong.append("%s peak busbw %s, expected %s" % (coll, got, digits))
    for p in doc["probes"]:
        if ranks != "-" and p["nranks"] is not None and p["nranks"] != int(ranks):
            wrong.append("%s: %d ranks, expected %s" % (p["name"], p["nranks"], ranks))
            break
    gpus = sum(len(h["gpus"]) for h in doc["hosts"])
    listed_all = all(p["nranks"] is None or gpus >= p["nranks"] for p in doc["probes"])
    # a pasted excerpt of the rank list ("Rank 71" alone) names some hosts, not how many
    if nodes != "-" and im["hosts"] and listed_all and len(im["hosts"]) != int(nodes):
        wrong.append("%d hosts named, expected %s" % (len(im["hosts"]), nodes))
    return wrong


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    binary = sys.argv[1]
    base = sys.argv[2] if len(sys.argv) > 2 else "tests/data/nccl-tests"
    rows = read_tsv(os.path.join(base, "CORPUS.tsv"))
    listed = {r[0]: r[1] for r in read_tsv(os.path.join(base, "holdout-misses.tsv"))}
    tally = {"tune": [0, 0], "holdout": [0, 0]}
    failed = skipped = 0
    for row in rows:
        which = row[2]
        wrong = check(binary, base, row)
        tally[which][1] += 1
        if not wrong:
            tally[which][0] += 1
            if row[0] in listed:
                print("FAIL %s: listed in holdout-misses.tsv but now right: take it off the list" % row[0])
                failed += 1
            else:
                print("ok   %s %s" % (which, row[0]))
        elif which == "holdout" and row[0] in listed:
            print("SKIP holdout %s: %s (listed: %s)" % (row[0], "; ".join(wrong), listed[row[0]]))
            skipped += 1
        else:
            print("FAIL %s %s: %s" % (which, row[0], "; ".join(wrong)))
            failed += 1
    print("nccl-tests corpus: tune %d/%d right, holdout %d/%d right (%d listed holdout misses), %d failed"
          % (tally["tune"][0], tally["tune"][1], tally["holdout"][0], tally["holdout"][1], skipped, failed))
    return 1 if failed or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
