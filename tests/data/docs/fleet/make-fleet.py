#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write per-node documents for `commdiag merge`, as a prolog's `commdiag check --json`
on each node of a fleet would: copies of ../h100-clean.json (an 8x H100 SXM node), each
with its own hostname and /etc/machine-id, and the faults the cross-host rules look for.

Usage: make-fleet.py OUTDIR [--count N] [CHANGE...]
  --count N          nodes node01 ... nodeN (default 3)
  NODE:name=HOST     the node reports hostname HOST (a copied image, a wrong hostname)
  NODE:id=NODE2      the node reports NODE2's machine-id (a cloned /etc/machine-id)
  NODE:nccl=VERSION  the node has another NCCL (HOST002)
  NODE:iface=A/B     the node's interface A is named B (HOST003)
  NODE:nohca=DEV     the node lacks RDMA device DEV (HOST004)
  NODE:slow=FACTOR   the node's copies and all_reduce run FACTOR times slower (BAL002)
NODE is the node's number (1 for node01). Each file is OUTDIR/nodeNN.json, named after the
node (as scripts/slurm-epilog-collect.sh names them: the scheduler's node name, not what
the node says its hostname is).

tests/data/docs/fleet/nodes/ is `make-fleet.py nodes 3:name=node01 3:id=1`: node03
reports node01's hostname and machine-id (a node installed from node01's disk image).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "..", "h100-clean.json")
BASE_HOST = "gpu-node07"


def machine_id(n):
    return "%032x" % (0x5f1d0c0c2b7e4a3f9d8e7c6b5a490000 + n)


def node(doc, n, changes):
    d = json.loads(json.dumps(doc))
    h = d["hosts"][0]
    name = "node%02d" % n
    h["host_id"] = machine_id(n)
    # each node its own addresses (x.x.x.7 in the base) and its own run
    for nic in h["nics"]:
        nic["ipv4"] = [a.replace(".7/", ".%d/" % (10 + n)) for a in nic.get("ipv4") or []]
    d["run"]["duration_s"] = round(d["run"]["duration_s"] + n / 10, 1)
    for kind, value in changes:
        if kind == "name":
            name = value
        elif kind == "id":
            h["host_id"] = machine_id(int(value))
        elif kind == "nccl":
            h["versions"]["nccl"] = value
        elif kind == "iface":
            old, new = value.split("/")
            for nic in h["nics"]:
                if nic["name"] == old:
                    nic["name"] = new
        elif kind == "nohca":
            h["hcas"] = [c for c in h["hcas"] if c["name"] != value]
        elif kind == "slow":
            f = float(value)
            for p in d["probes"]:
                for s in p["results"]:
                    for k in ("time_us", "min_time_us", "max_time_us", "p10_time_us", "p25_time_us",
                              "p75_time_us", "p90_time_us"):
                        if s.get(k) is not None:
                            s[k] = round(s[k] * f, 2)
                    for k in ("algbw_gbyte_s", "busbw_gbyte_s"):
                        if s.get(k) is not None:
                            s[k] = round(s[k] / f, 3)
        else:
            sys.exit("make-fleet.py: unknown change '%s'" % kind)
    h["hostname"] = name
    for p in d["probes"]:
        if p.get("host") == BASE_HOST:
            p["host"] = name
    return d


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    out, count, changes = argv[1], 3, {}
    args = argv[2:]
    while args:
        a = args.pop(0)
        if a == "--count":
            count = int(args.pop(0))
            continue
        num, _, change = a.partition(":")
        kind, _, value = change.partition("=")
        changes.setdefault(int(num), []).append((kind, value))
    with open(BASE) as f:
        doc = json.load(f)
    os.makedirs(out, exist_ok=True)
    for n in range(1, count + 1):
        with open(os.path.join(out, "node%02d.json" % n), "w") as f:
            json.dump(node(doc, n, changes.get(n, [])), f, indent="\t")
            f.write("\n")


if __name__ == "__main__":
    main(sys.argv)
