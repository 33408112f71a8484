#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the per-rank logs of tests/data/hang/logs (see README.md): one file per rank of a
4-rank job on two nodes, as PyTorch 2.5's ProcessGroupNCCL and NCCL 2.21 print them with
TORCH_CPP_LOG_LEVEL=INFO and NCCL_DEBUG=INFO. Standard library only; run from anywhere."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
HOSTS = {0: "node-a", 1: "node-a", 2: "node-b", 3: "node-b"}
ADDR = {"node-a": "10.0.0.1", "node-b": "10.0.0.2"}
PIDS = {0: 80746, 1: 80747, 2: 91310, 3: 91311}
PREFIX = "[PG ID 0 PG GUID 0(default_pg) Rank {r}]"  # createLogPrefix(), 2.5: the default group's desc


def nccl_init(r, lines):
    h, pid = HOSTS[r], PIDS[r]
    lines.append(f"{h}:{pid}:{pid} [{r}] NCCL INFO Bootstrap : Using eth0:{ADDR[h]}<0>")
    if r == 0:
        lines.append(f"{h}:{pid}:{pid} [{r}] NCCL INFO NCCL version 2.21.5+cuda12.4")
    lines.append(f"{h}:{pid}:{pid + 155} [{r}] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB ; OOB eth0:{ADDR[h]}<0>")
    lines.append(f"{h}:{pid}:{pid + 155} [{r}] NCCL INFO comm 0x55d0c2a{r}e0 rank {r} nranks 4 cudaDev {r % 2} "
                 f"nvmlDev {r % 2} busId {18 + 16 * (r % 2):x}000 commId 0x7d9a3c1e5b2f4a10 - Init COMPLETE")


def init_options(r, lines, size=True):
    if size:
        lines.append(f"[rank{r}]:[I1126 00:10:0{r}.123456789 ProcessGroupNCCL.cpp:905] {PREFIX.format(r=r)} "
                     f"ProcessGroupNCCL initialization options: size: 4, global rank: {r}, TIMEOUT(ms): 600000, "
                     "USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, SPLIT_COLOR: 0, PG Name: 0")


TP = "[PG ID 1 PG GUID {g} Rank {r}]"  # a new_group() without a description: no "(desc)"


def tp_options(r, lines):
    lines.append(f"[rank{r}]:[I1126 00:10:0{r}.223456789 ProcessGroupNCCL.cpp:905] {TP.format(g=1 + r // 2, r=r % 2)} "
                 f"ProcessGroupNCCL initialization options: size: 2, global rank: {r}, TIMEOUT(ms): 600000, "
                 f"USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, SPLIT_COLOR: 0, PG Name: {1 + r // 2}")


def timeout(r, lines, seq, enq, done, op="ALLREDUCE", numel=1048576, prefix=None):
    prefix = prefix or PREFIX.format(r=r)
    t = f"00:20:0{r}.4082712{r}7"
    lines.append(f"[rank{r}]:[E1126 {t} ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught collective operation "
                 f"timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel}, NumelOut={numel}, "
                 f"Timeout(ms)=600000) ran for 600060 milliseconds before timing out.")
    lines.append(f"[rank{r}]:[E1126 {t} ProcessGroupNCCL.cpp:1785] {prefix} Exception (either an error "
                 f"or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {enq}, last completed "
                 f"NCCL work: {done}.")
    lines.append(f"[rank{r}]:[E1126 {t} ProcessGroupNCCL.cpp:1834] {prefix} Timeout at NCCL work: {seq}, "
                 f"last enqueued NCCL work: {enq}, last completed NCCL work: {done}.")
    lines.append(f"[rank{r}]:[E1126 {t} ProcessGroupNCCL.cpp:630] [Rank {r}] Some NCCL operations have failed or "
                 "timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
                 "corrupted/incomplete data.")


def old_job():
    """PyTorch 2.0/2.1: glog's "[E ProcessGroupNCCL.cpp:458]", no c10 [rankN] prefix, no group tag, no
    NumelIn (as tests/data/logs/timeout-pytorch-118369.log); the group is NCCL's one communicator."""
    out = {}
    for r in range(4):
        lines = []
        nccl_init(r, lines)
        if r != 2:
            lines.append(f"[E ProcessGroupNCCL.cpp:458] [Rank {r}] Watchdog caught collective operation timeout: "
                         "WorkNCCL(SeqNum=6, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600060 milliseconds "
                         "before timing out.")
        out[r] = lines
    return out


def write(folder, ranks):
    d = os.path.join(HERE, "logs", folder)
    os.makedirs(d, exist_ok=True)
    for r, lines in ranks.items():
        with open(os.path.join(d, f"rank{r}.log"), "w") as f:
            f.write("\n".join(lines) + "\n")


def job(kind):
    out = {}
    for r in range(4):
        lines = []
        nccl_init(r, lines)
        init_options(r, lines, size=kind != "nosize")
        if kind == "groups":
            tp_options(r, lines)
            # rank 3 stopped before tensor-parallel all_gather #4 of its group (GUID 2): rank 2 times
            # out there; ranks 0 and 1 wait in the world's all_reduce #10, which 2 and 3 never reach
            if r in (0, 1):
                timeout(r, lines, 10, 10, 9)
            elif r == 2:
                timeout(r, lines, 4, 4, 3, op="_ALLGATHER_BASE", prefix=TP.format(g=2, r=0))
        elif kind == "quiet":
            pass
        elif kind in ("stuck", "nosize"):
            # rank 2 never enqueued all_reduce #6: nothing for its watchdog to time out on
            if r != 2:
                timeout(r, lines, 6, 6, 5)
        elif kind == "lag":
            # rank 1 is still in #5 while the others wait in #6
            timeout(r, lines, 5 if r == 1 else 6, 5 if r == 1 else 6, 4 if r == 1 else 5)
        out[r] = lines
    if kind == "nosize":
        del out[2]  # and its log was not collected
    return out


for kind in ("stuck", "lag", "quiet", "nosize", "groups"):
    write(kind, job(kind))
write("old", old_job())
