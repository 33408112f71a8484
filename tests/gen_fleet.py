#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a realistic N-host results document (issue 18: reports that stay small at 4096 hosts).

Usage: tests/gen_fleet.py N OUT.json [--seed S] [--no-gpu-pairs] [--faults FILE]

Every host is the 8x H100 SXM node of tests/data/docs/h100-p2p.json (GPUs, NVLinks, path
matrix, NICs, eight HCAs) with its own name, host id, MACs and addresses, and that
document's per-host probe runs (copy.h2d per GPU, p2p.bw and p2p.latency per GPU pair,
nccl.all_reduce). Across hosts, as an MPI job of one rank per host (the shape of
tests/data/docs/netns-two-hosts.json): the ranks, a tcp.reach run per host, the first pass of
the pair hunt (rank 2k with 2k+1) for tcp.bw and mpi.bw, one mpi.allreduce, and the reach
matrix over eth0 and ib0: every ordered pair up to 64 hosts; above that each host as tried
by its 4 ring neighbours (a full matrix is N^2 attempts: 33M at 4096 hosts).

A few hosts are faulty (about one in 500, at least 3), each with one fault: a GPU whose
host-to-device copy runs at 55 %, an HCA port down, a slow NVLink pair, ib0 not reachable.
The same N and seed give the same bytes. Like tests/security/costs.sh, everything is built
as Python objects and dumped once.
"""
import argparse
import copy
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "data", "docs", "h100-p2p.json")
PAIR = os.path.join(HERE, "data", "docs", "netns-two-hosts.json")
FULL_REACH_HOSTS = 64
RING = 4


def scaled(run, f):
    """A run whose bandwidths are f times the original (times 1/f)."""
    run = copy.deepcopy(run)
    for s in run["results"]:
        for k in ("algbw_gbyte_s", "busbw_gbyte_s"):
            if s.get(k) is not None:
                s[k] = round(s[k] * f, 6)
        for k in ("time_us", "min_time_us", "max_time_us", "p10_time_us", "p25_time_us", "p75_time_us",
                  "p90_time_us"):
            if s.get(k) is not None:
                s[k] = round(s[k] / f, 4)
    return run


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--no-gpu-pairs", action="store_true", help="leave out p2p.bw and p2p.latency")
    ap.add_argument("--faults", help="write the faulty hosts there, one 'HOST FAULT' line each")
    a = ap.parse_args()
    if a.n < 2:
        ap.error("N must be at least 2")
    rnd = random.Random(a.seed)
    base = json.load(open(BASE))
    pair = json.load(open(PAIR))
    bhost = base["hosts"][0]
    bprobes = [p for p in base["probes"] if not (a.no_gpu_pairs and p["name"].startswith("p2p."))]
    # h100-p2p.json's GPU2-GPU6 pair is its deliberate fault: a healthy host measures it like GPU2-GPU5
    like = {(p["name"], p["device"], p["peer"]): p for p in bprobes}
    for k, p in enumerate(bprobes):
        if p["name"].startswith("p2p.") and {p["device"], p["peer"]} == {2, 6}:
            src = like[(p["name"], p["device"] if p["device"] != 6 else 5, p["peer"] if p["peer"] != 6 else 5)]
            bprobes[k] = dict(copy.deepcopy(src), device=p["device"], peer=p["peer"])
    tcp_bw = next(p for p in pair["probes"] if p["name"] == "tcp.bw")
    mpi_bw = next(p for p in pair["probes"] if p["name"] == "mpi.bw")
    mpi_ar = next(p for p in pair["probes"] if p["name"] == "mpi.allreduce")
    reach_p = next(p for p in pair["probes"] if p["name"] == "tcp.reach")

    n = a.n
    names = ["gpu%05d" % i for i in range(n)]
    nfaulty = max(3, n // 500)
    faulty = sorted(rnd.sample(range(n), nfaulty))
    fault = {h: k % 4 for k, h in enumerate(faulty)}  # 0 slow copy, 1 port down, 2 slow pair, 3 ib0 unreachable
    if a.faults:
        with open(a.faults, "w") as f:
            for h in faulty:
                f.write("gpu%05d %s\n" % (h, ("slow-copy", "port-down", "slow-pair", "ib0-unreachable")[fault[h]]))

    doc = {"schema": 1, "tool": base["tool"], "run": dict(pair["run"])}
    doc["run"].update({"started": "2026-11-21T10:00:00Z", "launcher_ranks": n, "ranks": n, "duration_s": 95.0,
                       "timeout_s": 300})
    hosts, probes, ranks, reach = [], [], [], []
    for i, name in enumerate(names):
        h = copy.deepcopy(bhost)
        h["hostname"] = name
        h["host_id"] = "%032x" % (0x5f1d0000 + i)
        for k, nic in enumerate(h["nics"]):
            if nic.get("mac"):
                nic["mac"] = "7c:c2:%02x:%02x:%02x:%02x" % (k, (i >> 16) & 255, (i >> 8) & 255, i & 255)
            if nic.get("ipv4"):
                nic["ipv4"] = ["10.%d.%d.%d/16" % (k, (i >> 8) & 255, i & 255)]
        for k, c in enumerate(h["hcas"]):
            c["node_guid"] = "0xa088c203%04x%04x" % (i & 0xffff, k)
            for p in c["ports"]:
                p["lid"] = 100 + i * 8 + k
        if fault.get(i) == 1:
            port = h["hcas"][2]["ports"][0]
            port.update({"state": "down", "phys_state": "polling", "rate_gbit_s": None, "active_width": None,
                         "lane_gbit_s": None})
        hosts.append(h)
        ranks.append({"rank": i, "local_rank": 0, "host_index": i, "host": name, "answered": True, "error": None,
                      "env_diff": {}})
        for p in bprobes:
            p = copy.deepcopy(p)
            if fault.get(i) == 0 and p["name"] == "copy.h2d" and p["device"] == 3:
                p = scaled(p, 0.55)
            if fault.get(i) == 2 and p["name"].startswith("p2p.") and (p["device"], p["peer"]) in ((1, 5), (5, 1)):
                p = scaled(p, 0.4)
            p["host"] = name
            probes.append(p)
        rp = copy.deepcopy(reach_p)
        rp.update({"host": name, "rank": i, "nranks": n})
        probes.append(rp)

    for i in range(0, n - 1, 2):
        for tmpl in (tcp_bw, mpi_bw):
            p = copy.deepcopy(tmpl)
            p.update({"host": names[i], "rank": i, "peer": i + 1, "nranks": n})
            probes.append(p)
    p = copy.deepcopy(mpi_ar)
    p.update({"host": names[0], "rank": 0, "nranks": n})
    probes.append(p)

    def attempt(frm, to):
        for k, iface in ((1, "eth0"), (2, "ib0")):
            bad = iface == "ib0" and fault.get(to) == 3
            reach.append({"from": names[frm], "to": names[to], "iface": iface,
                          "address": "10.%d.%d.%d" % (k, (to >> 8) & 255, to & 255), "ok": not bad,
                          "connect_us": None if bad else round(150 + rnd.random() * 100, 3),
                          "error": "Connection timed out" if bad else None})

    for to in range(n):
        if n <= FULL_REACH_HOSTS:
            froms = [f for f in range(n) if f != to]
        else:
            froms = sorted({(to + d) % n for d in range(-RING // 2, RING // 2 + 1) if d})
        for frm in froms:
            attempt(frm, to)

    doc.update({"hosts": hosts, "ranks": ranks, "probes": probes, "reach": reach, "findings": [], "advice": [],
                "rules": None, "score": None})
    with open(a.out, "w") as f:
        json.dump(doc, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
