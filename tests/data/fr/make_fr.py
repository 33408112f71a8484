#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the Flight Recorder dump fixtures of tests/data/fr (see README).

The pickles are written opcode by opcode the way torch::jit::Pickler does for
FlightRecorder::dump() (torch/csrc/jit/serialization/pickler.cpp, called by pickle_str()
with tag_aggregates off): PROTO 2; a dict is EMPTY_DICT MARK key value ... SETITEMS; a list
EMPTY_LIST MARK ... APPENDS; a string BINUNICODE then BINPUT, and BINGET when repeated; an
int BININT1/BININT2/BININT/LONG1 by size; a float BINFLOAT; None NONE; bools NEWTRUE and
NEWFALSE; (name, desc) TUPLE2; a value shared by pointer (the frame dicts) BINPUT after
it and BINGET after that; STOP. Each is checked by loading it back with Python's pickle.
The JSON ones are what dump_json() writes (nlohmann::json: sorted keys, compact, the
pg_config and pg_status values strings). resaved/ is a healthy dump re-saved by Python's
pickle.dumps(protocol=4), and refused/ a pickle with a GLOBAL opcode.

Run from anywhere: python3 tests/data/fr/make_fr.py
"""
import json
import os
import pickle
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


class TorchPickler:
    def __init__(self):
        self.out = bytearray(b"\x80\x02")  # PROTO 2
        self.memo_strings = {}
        self.memo_ptr = {}
        self.next_memo = 0

    def binput(self):
        if self.next_memo <= 255:
            self.out += b"q" + bytes([self.next_memo])
        else:
            self.out += b"r" + struct.pack("<I", self.next_memo)
        self.next_memo += 1
        return self.next_memo - 1

    def binget(self, i):
        self.out += (b"h" + bytes([i])) if i <= 255 else (b"j" + struct.pack("<I", i))

    def push(self, v):
        if isinstance(v, Shared):  # an IValue whose use_count > 1: memoized by pointer
            if id(v) in self.memo_ptr:
                self.binget(self.memo_ptr[id(v)])
                return
            self.push(v.value)
            self.memo_ptr[id(v)] = self.binput()
        elif v is None:
            self.out += b"N"
        elif v is True:
            self.out += b"\x88"
        elif v is False:
            self.out += b"\x89"
        elif isinstance(v, int):
            if 0 <= v <= 255:
                self.out += b"K" + bytes([v])
            elif 0 <= v <= 65535:
                self.out += b"M" + struct.pack("<H", v)
            elif -(2**31) <= v < 2**31:
                self.out += b"J" + struct.pack("<i", v)
            else:
                self.out += b"\x8a\x08" + struct.pack("<q", v)
        elif isinstance(v, float):
            self.out += b"G" + struct.pack(">d", v)
        elif isinstance(v, str):
            if v in self.memo_strings:
                self.binget(self.memo_strings[v])
            else:
                b = v.encode()
                self.out += b"X" + struct.pack("<I", len(b)) + b
                self.memo_strings[v] = self.binput()
        elif isinstance(v, tuple):
            for x in v:
                self.push(x)
            self.out += {1: b"\x85", 2: b"\x86", 3: b"\x87"}[len(v)]
        elif isinstance(v, list):
            self.out += b"]("
            for x in v:
                self.push(x)
            self.out += b"e"
        elif isinstance(v, dict):
            self.out += b"}("
            for k, x in v.items():
                self.push(k)
                self.push(x)
            self.out += b"u"
        else:
            raise TypeError(type(v))

    def dumps(self, v):
        self.push(v)
        self.out += b"."
        return bytes(self.out)


class Shared:
    def __init__(self, value):
        self.value = value


def plain(v):
    """The value pickle.loads gives back."""
    if isinstance(v, Shared):
        return plain(v.value)
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, tuple):
        return tuple(plain(x) for x in v)
    return v


T0 = 1732550400000000000  # time_created_ns of the first collective
FRAMES = [Shared({"name": "all_reduce", "filename": "torch/distributed/distributed_c10d.py", "line": 2501}),
          Shared({"name": "train_step", "filename": "/job/train.py", "line": 88})]


def entry(rec, pg, desc, seq, name, size, state, version="2.10", p2p_seq=0, frames=True):
    e = {}
    if frames:
        e["frames"] = list(FRAMES)
    e["record_id"] = rec
    e["pg_id"] = int(pg) if pg.isdigit() else 0
    e["process_group"] = (pg, desc)
    if version != "2.4":
        e["thread_name"] = "pt_main_thread"
        e["thread_id"] = "140245385115456"
    e["collective_seq_id"] = seq
    e["p2p_seq_id"] = p2p_seq
    e["op_id"] = seq
    e["profiling_name"] = name
    e["time_created_ns"] = T0 + rec * 1000000
    if state == "completed":
        e["duration_ms"] = 0.5
    e["input_sizes"] = [list(size)]
    e["input_dtypes"] = ["Float"]
    e["output_sizes"] = [list(size)]
    e["output_dtypes"] = ["Float"]
    e["state"] = state
    e["time_discovered_started_ns"] = None if state == "scheduled" else T0 + rec * 1000000 + 1000
    e["time_discovered_completed_ns"] = T0 + rec * 1000000 + 501000 if state == "completed" else None
    e["retired"] = state == "completed"
    e["timeout_ms"] = 600000
    e["is_p2p"] = False
    return e


def ranks_str(ranks):
    return "[" + ", ".join(str(r) for r in ranks) + "]"


def dump(groups, entries, version="2.10"):
    """groups: [(name, desc, ranks)] this rank belongs to; entries: its entries."""
    d = {"version": version,
         "pg_config": {n: {"name": n, "desc": desc, "ranks": ranks_str(r)} for n, desc, r in groups}}
    if version != "2.4":
        d["comm_lib_version"] = "2.27.5"
    status = {}
    for n, _, _ in groups:
        seqs = [e for e in entries if e["process_group"][0] == n]
        done = [e["collective_seq_id"] for e in seqs if e["state"] == "completed"]
        started = [e["collective_seq_id"] for e in seqs if e["state"] != "scheduled"]
        status[n] = {"last_enqueued_collective": max([e["collective_seq_id"] for e in seqs], default=-1),
                     "last_started_collective": max(started, default=-1),
                     "last_completed_collective": max(done, default=-1)}
    d["pg_status"] = status
    d["entries"] = entries
    return d


def write_pickle(path, d):
    data = TorchPickler().dumps(d)
    assert pickle.loads(data) == plain(d), path
    with open(path, "wb") as f:
        f.write(data)


def write_json(path, d):
    """dump_json(): no frames; a missing time is 0; pg_config/pg_status values are strings."""
    j = plain(d)
    for e in j.get("entries", []):
        e.pop("frames", None)
        e["process_group"] = list(e["process_group"])
        for k in ("time_discovered_started_ns", "time_discovered_completed_ns"):
            if e[k] is None:
                e[k] = 0
    j["pg_status"] = {k: {kk: str(vv) for kk, vv in v.items()} for k, v in j["pg_status"].items()}
    with open(path, "w") as f:
        f.write(json.dumps(j, sort_keys=True, separators=(",", ":")))


def case(name, nranks, make, fmt="pickle", version="2.10"):
    os.makedirs(os.path.join(HERE, name), exist_ok=True)
    for r in range(nranks):
        groups, entries = make(r)
        d = dump(groups, entries, version)
        if fmt == "pickle":
            write_pickle(os.path.join(HERE, name, "nccl_trace_rank_%d" % r), d)
        else:
            write_json(os.path.join(HERE, name, "nccl_trace_rank_%d.json" % r), d)


WORLD = ("0", "default_pg", [0, 1, 2, 3])


def healthy(r):
    return [WORLD], [entry(i, "0", "default_pg", i + 1, "nccl:all_reduce", (1024,), "completed")
                     for i in range(5)]


def missing(r):
    """rank 2 never enters all_reduce #6: it finished #5 and went on computing."""
    es = [entry(i, "0", "default_pg", i + 1, "nccl:all_reduce", (1024,), "completed") for i in range(5)]
    if r != 2:
        es.append(entry(5, "0", "default_pg", 6, "nccl:all_reduce", (1024,), "started"))
    return [WORLD], es


def size(r):
    """rank 1 passes a tensor of another size to all_gather #3: the others wait in it."""
    es = [entry(i, "0", "default_pg", i + 1, "nccl:all_reduce", (4096,), "completed", version="2.4")
          for i in range(2)]
    es.append(entry(2, "0", "default_pg", 3, "nccl:_allgather_base", (512,) if r == 1 else (1024,), "started",
                    version="2.4"))
    return [WORLD], es


def multi(r):
    """world [0-3] and tensor-parallel groups [0, 1] ('1') and [2, 3] ('2'). Rank 3 stops before
    all_gather #4 of its group, so rank 2 waits in it, and neither enters all_reduce #4 of the
    world, where ranks 0 and 1 wait."""
    tp = ("1", "tp", [0, 1]) if r < 2 else ("2", "tp", [2, 3])
    es = []
    for i in range(3):
        es.append(entry(len(es), "0", "default_pg", i + 1, "nccl:all_reduce", (2048,), "completed"))
        n = 3 if r == 3 else 4
        if i == 2:
            for k in range(n):
                es.append(entry(len(es), tp[0], "tp", k + 1, "nccl:all_gather_into_tensor", (256, 8),
                                "started" if r == 2 and k == 3 else "completed"))
    if r < 2:
        es.append(entry(len(es), "0", "default_pg", 4, "nccl:all_reduce", (2048,), "started"))
    return [WORLD, tp], es


def inside(r):
    """both ranks entered broadcast #3 and neither completed it: the collective itself hangs."""
    es = [entry(i, "0", "default_pg", i + 1, "nccl:broadcast", (4096,), "completed" if i < 2 else "started")
          for i in range(3)]
    return [("0", "default_pg", [0, 1])], es


def refused():
    os.makedirs(os.path.join(HERE, "refused"), exist_ok=True)
    # what pickle writes for an object: GLOBAL 'collections OrderedDict' then REDUCE
    import collections
    data = pickle.dumps({"version": "2.10", "x": collections.OrderedDict()}, protocol=2)
    assert b"c" in data
    with open(os.path.join(HERE, "refused", "nccl_trace_rank_0"), "wb") as f:
        f.write(data)


def resaved():
    os.makedirs(os.path.join(HERE, "resaved"), exist_ok=True)
    for r in range(2):
        d = plain(dump([("0", "default_pg", [0, 1])],
                       [entry(i, "0", "default_pg", i + 1, "nccl:broadcast", (64,), "completed") for i in range(3)]))
        with open(os.path.join(HERE, "resaved", "nccl_trace_rank_%d" % r), "wb") as f:
            f.write(pickle.dumps(d, protocol=4))


if __name__ == "__main__":
    case("healthy", 4, healthy)
    case("missing", 4, missing)
    case("size", 4, size, version="2.4")
    case("multi", 4, multi)
    case("json", 4, missing, fmt="json")
    case("inside", 2, inside)
    refused()
    resaved()
