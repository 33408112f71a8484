#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write tests/data/hang/nodes: the node checks of the job in tests/data/hang/logs, as
`commdiag check --json` saves them per node: node-a from tests/data/docs/h100-clean.json,
node-b from h100-faulty.json (an RDMA port down, a NIC's PCIe link below its maximum, a slow
host-to-device copy), renamed and given the job's addresses (eth0 10.0.0.1 and 10.0.0.2, the
hosts the RAS fixtures name), then judged by `commdiag score --json`.
Usage: python3 tests/data/hang/make_nodes.py ./commdiag"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, "..", "docs")
BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "./commdiag")

for name, src, addr in (("node-a", "h100-clean.json", "10.0.0.1"), ("node-b", "h100-faulty.json", "10.0.0.2")):
    with open(os.path.join(DOCS, src)) as f:
        d = json.load(f)
    for h in d["hosts"]:
        h["hostname"] = name
        for nic in h["nics"]:
            if nic["name"] == "eth0":
                nic["ipv4"] = [addr + "/24"]
    for p in d.get("probes", []):
        p["host"] = name
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as t:
        json.dump(d, t)
    env = dict(os.environ, COMMDIAG_DETERMINISTIC="1")
    r = subprocess.run([BIN, "score", t.name, "--json", "-o", os.path.join(HERE, "nodes", name + ".json")], env=env)
    os.unlink(t.name)
    if r.returncode not in (0, 1):
        sys.exit(f"{name}: commdiag score exited {r.returncode}")
