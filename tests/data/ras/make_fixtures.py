#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes the recorded NCCL RAS reports of tests/data/ras (see README.md there): the text and
JSON a RAS server prints, with the printf formats of NCCL's src/ras/client_support.cc
(rasClientRunInit, rasClientRunComms, rasDumpCommsToJSON and the json* writers) at the tags
README.md names. Run it from anywhere; it rewrites the files beside it."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
HASH = 0x27A079B828FF1A75
# rank -> (host, pid, cuda dev): 2 nodes, 2 processes each, 1 GPU per process
RANKS = {0: ("10.0.0.1", 4100, 0), 1: ("10.0.0.1", 4101, 1), 2: ("10.0.0.2", 4200, 0), 3: ("10.0.0.2", 4201, 1)}
FUNCS = ["Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"]  # ncclFuncStr, src/init.cc


def text(version, row, errors="", warnings=""):
    o = "NCCL version %s compiled with CUDA 12.9\n" % version
    o += "CUDA runtime version %d, driver version %d\n\n" % (12090, 12090)
    o += "Job summary\n===========\n\n"
    o += ("  Nodes  Processes         GPUs  Processes     GPUs\n"
          "(total)   per node  per process    (total)  (total)\n"
          "%7d  %9d  %11d  %9d  %7d\n") % (2, 2, 1, 4, 4)
    o += "\nCommunicators..."
    o += " (%.3fs)\n=============\n\n" % 0.002
    o += ("Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors\n"
          "    #  in group  per comm  per node  per comm  in group\n")
    o += "%5d  %8d  %8d  %8s  %8d  %8d  %8s  %6s\n" % row
    o += "\nErrors\n======\n\n" + errors
    o += "Warnings\n========\n\n" + warnings
    return o


def rank_tail(r):
    host, pid, gpu = RANKS[r]
    return "GPU %d managed by process %d on node %s" % (gpu, pid, host)


def mismatch(hi, lagging, op):
    """one rank `lagging` behind at hi-1, the other three at hi (a group of 1 of 4 is an outlier)"""
    o = "#%d-%d (%016x) MISMATCH\n" % (0, 0, HASH)
    o += "  Communicator ranks have different %s operation counts\n" % op
    o += "  %d ranks have launched up to operation %d\n" % (3, hi)
    o += "  Rank %d has launched up to operation %d -- %s\n" % (lagging, hi - 1, rank_tail(lagging))
    return o + "\n"


def missing_rank_226(r):
    return ("#%d-%d (%016x) INCOMPLETE\n  Missing communicator data from %d rank%s\n" % (0, 0, HASH, 1, "")
            + "  Rank %d -- %s\n\n" % (r, rank_tail(r)))


def process(r):
    host, pid, gpu = RANKS[r]
    return "  Process %d on node %s managing GPU%s %s\n" % (pid, host, "", gpu)


def js(version, counts, missing=(), comma_bug=False):
    """counts: rank -> AllReduce count (ranks present); missing: (rank, unresponsive, dead)"""
    o = "{\n"
    o += '  "nccl_version": "%s",\n' % version
    o += '  "cuda_runtime_version": %d,\n' % 12090
    o += '  "cuda_driver_version": %d,\n' % 12090
    o += '  "timestamp": "%s",\n' % "2026-11-25 19:00:00"
    o += '  "communicators_count": %d,\n' % 1
    o += '  "communicators": [\n'
    o += "    {\n"
    o += '      "hash": "0x%x",\n' % HASH
    o += '      "secondary_hash": "0x%x:0x%x",\n' % (0xB7E7187447156001, 0xB8242ED28A71381E)
    o += '      "size": %d,\n' % 4
    o += '      "ranks_count": %d,\n' % len(counts)
    o += '      "missing_ranks_count": %d,\n' % len(missing)
    o += '      "ranks": [\n'
    for i, (r, n) in enumerate(sorted(counts.items())):
        host, pid, gpu = RANKS[r]
        if i:
            o += ",\n"
        o += "        {\n"
        o += '          "rank": %d,\n' % r
        o += '          "host": "%s",\n' % host
        o += '          "pid": %d,\n' % pid
        o += '          "cuda_dev": %d,\n' % gpu
        o += '          "nvml_dev": %d,\n' % gpu
        o += '          "status": {\n'
        o += '            "init_state": %d,\n' % 0
        o += '            "async_error": %d,\n' % 0
        o += '            "finalize_called": %s,\n' % "false"
        o += '            "destroy_flag": %s,\n' % "false"
        o += '            "abort_flag": %s\n' % "false"
        o += "          },\n"
        o += '          "collective_counts": {\n'
        for k, f in enumerate(FUNCS):
            o += '            "%s": %d' % (f, n if f == "AllReduce" else 0)
            if k < len(FUNCS) - 1:
                o += ","
            o += "\n"
        o += "          }\n"
        o += "        }"
    o += "\n      ],\n"
    o += '      "missing_ranks": [\n'
    for i, (r, unresp, dead) in enumerate(missing):
        host, pid, gpu = RANKS[r]
        if i:
            o += ",\n"
        o += "        {\n"
        o += '          "rank": %d,\n' % r
        o += '          "host": "%s",\n' % host
        o += '          "pid": %d,\n' % pid
        o += '          "cuda_dev": %d,\n' % gpu
        # 2.28.7 and 2.28.9 leave out this comma (jsonWriteMissingRank); 2.29.2 has it
        o += ('          "nvml_dev": %d\n' if comma_bug else '          "nvml_dev": %d,\n') % gpu
        o += '          "status": {\n'
        o += '            "unresponsive": %s,\n' % ("true" if unresp else "false")
        o += '            "considered_dead": %s\n' % ("true" if dead else "false")
        o += "          }\n"
        o += "        }"
    o += "\n      ]\n"
    o += "    }"
    o += "\n  ],\n"
    o += '  "ras": {\n'
    o += '    "collection_time_sec": %.3f,\n' % (2.051 if missing else 0.002)
    o += '    "timeouts_count": %d\n' % (2 if missing and not missing[0][2] else 0)
    o += "  }\n"
    o += "}\n"
    return o


OK_ROW = (0, 1, 2, "2", 4, 4, "RUNNING", "OK")
MM_ROW = (0, 1, 2, "2", 4, 4, "RUNNING", "MISMATCH")
INC_ROW = (0, 1, 2, "1-2", 4, 3, "RUNNING", "INCOMPLETE")
TIMEOUTS = "TIMEOUT\n  Encountered %d communication timeout%s while gathering communicator data\n\n" % (2, "s")
ALL4 = {0: 0, 1: 0, 2: 0, 3: 0}

FILES = {
    # text, NCCL 2.28.9 (the same text as 2.26.2 to 2.30.7 for these sections)
    "healthy.txt": text("2.28.9", OK_ROW),
    "mismatch-1.txt": text("2.28.9", MM_ROW, warnings=mismatch(6650, 2, "AllReduce")),
    "mismatch-2.txt": text("2.28.9", MM_ROW, warnings=mismatch(6712, 2, "AllReduce")),
    "missing.txt": text("2.28.9", INC_ROW,
                        errors="INCOMPLETE\n  Missing communicator data from %d job process%s\n" % (1, "")
                        + process(3) + "\n" + missing_rank_226(3),
                        warnings=TIMEOUTS),
    "dead.txt": text("2.28.9", INC_ROW,
                     errors="DEAD\n  %d job process%s considered dead (unreachable via the RAS network)\n" % (1, " is")
                     + process(3) + "\n" + missing_rank_226(3)),
    # text, NCCL 2.24.3: one count per rank ("collective"), missing ranks as a list
    "v224-mismatch.txt": text("2.24.3", MM_ROW, warnings=mismatch(6650, 2, "collective")),
    "v224-missing.txt": text("2.24.3", INC_ROW,
                             errors="INCOMPLETE\n  Missing communicator data from %d job process%s\n" % (1, "")
                             + process(3) + "\n"
                             + "#%d-%d (%016x) INCOMPLETE\n  Missing communicator data from %d rank%s\n" % (0, 0, HASH, 1, "")
                             + "  The missing rank%s: %s\n\n" % ("", "3"),
                             warnings=TIMEOUTS),
    # JSON: 2.28.9 (missing ranks without the comma), 2.29.2 (dead)
    "healthy-1.json": js("2.28.9", {r: 1500 for r in RANKS}),
    "healthy-2.json": js("2.28.9", {r: 1620 for r in RANKS}),
    "mismatch-1.json": js("2.28.9", {0: 6650, 1: 6650, 2: 6649, 3: 6650}),
    "mismatch-2.json": js("2.28.9", {0: 6712, 1: 6712, 2: 6711, 3: 6712}),
    "missing.json": js("2.28.9", {0: 880, 1: 880, 2: 880}, [(3, True, False)], comma_bug=True),
    "dead.json": js("2.29.2", {0: 880, 1: 880, 2: 880}, [(3, False, True)]),
}
for name, body in FILES.items():
    with open(os.path.join(HERE, name), "w") as f:
        f.write(body)
