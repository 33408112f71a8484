#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# The NEW (and noisy OLD) documents of the baseline tests, each tests/data/docs/h100-clean.json
# (the OLD document) with one change. Regenerate with
#   python3 tests/data/docs/baseline/gen.py tests/data/docs/h100-clean.json tests/data/docs/baseline
# Times are scaled with their percentiles, min and max; bandwidths by the inverse.
import copy, json, sys

base = json.load(open(sys.argv[1]))
out = sys.argv[2]
TIMES = ("time_us", "min_time_us", "max_time_us", "p10_time_us", "p25_time_us", "p75_time_us", "p90_time_us")


def allreduce(d):
    return [p for p in d["probes"] if p["name"] == "nccl.all_reduce"][0]


def slower(d, factor):
    for s in allreduce(d)["results"]:
        for k in TIMES:
            s[k] = round(s[k] * factor, 4)
        for k in ("algbw_gbyte_s", "busbw_gbyte_s"):
            s[k] = round(s[k] / factor, 6)


def widen(d, rel):
    # p25/p75 at -/+ rel/2 of the median: (p75 - p25) / median = rel
    for s in allreduce(d)["results"]:
        m = s["time_us"]
        s["p25_time_us"] = round(m * (1 - rel / 2), 4)
        s["p75_time_us"] = round(m * (1 + rel / 2), 4)
        s["p10_time_us"] = round(m * (1 - rel), 4)
        s["p90_time_us"] = round(m * (1 + rel), 4)
        s["min_time_us"] = min(s["min_time_us"], s["p10_time_us"])
        s["max_time_us"] = max(s["max_time_us"], s["p90_time_us"])


def save(name, d):
    with open(f"{out}/{name}.json", "w") as f:
        json.dump(d, f, indent=2)
        f.write("\n")


cases = {}
d = copy.deepcopy(base); slower(d, 1.20); cases["allreduce-20pct-slower"] = d
d = copy.deepcopy(base); slower(d, 1.05); cases["allreduce-5pct-slower"] = d
d = copy.deepcopy(base); slower(d, 0.80); cases["allreduce-faster"] = d
# the baseline of the noise test: 12 % interquartile range at every size
d = copy.deepcopy(base); widen(d, 0.12); cases["noisy-old"] = d
d = copy.deepcopy(base); d["probes"] = [p for p in d["probes"] if p["name"] != "nccl.all_reduce"]
cases["allreduce-missing"] = d
d = copy.deepcopy(base); allreduce(d)["results"].pop(); cases["allreduce-size-missing"] = d
d = copy.deepcopy(base); allreduce(d)["nranks"] = 4; slower(d, 1.5); cases["allreduce-4-ranks"] = d
d = copy.deepcopy(base); slower(d, 1.5)
for g in d["hosts"][0]["gpus"]:
    g["name"] = "NVIDIA A100-SXM4-80GB"
cases["other-gpus"] = d
d = copy.deepcopy(base); slower(d, 1.5)
d["hosts"][0]["hostname"] = "gpu-node99"
for p in d["probes"]:
    p["host"] = "gpu-node99"
cases["other-host"] = d
for name, doc in cases.items():
    save(name, doc)
