#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the calibration corpus: healthy base machines and broken cases derived from them.

Usage: tests/data/calibration/gen.py [OUTDIR]     (default: docs/ beside this script)

Deterministic: no clock, no randomness, sorted output. Every broken case is made by
copying one healthy base document and changing exactly its fault (and, where a fault
is a measurement, the measurement); README.md says where each number comes from and
cases.tsv what commdiag must conclude from each document. The generated JSON is
committed: the tests read it and never run this script.
"""
import copy
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "docs")
SECTIONS = ("system", "topo", "net", "ib", "gpu")
LIBCUDA = "libcuda.so.1: cannot open shared object file: No such file or directory"

# ---------------------------------------------------------------- samples


def bw_sample(nbytes, gbyte_s, factor=1.0, spread=(0.990, 1.012), iters=20):
    """One size of a bandwidth probe: algbw gbyte_s (10^9 B/s), busbw = algbw x factor."""
    t = nbytes / gbyte_s / 1e3
    return {"bytes": nbytes, "iters": iters, "time_us": round(t, 2),
            "min_time_us": round(t * spread[0], 2), "max_time_us": round(t * spread[1], 2),
            "algbw_gbyte_s": round(gbyte_s, 4), "busbw_gbyte_s": round(gbyte_s * factor, 4), "errors": 0}


def t_sample(nbytes, time_us, factor=1.0, spread=(0.97, 1.05), iters=20, errors=0):
    """One size given its time (small sizes, latencies)."""
    algbw = nbytes / time_us / 1e3
    return {"bytes": nbytes, "iters": iters, "time_us": round(time_us, 2),
            "min_time_us": round(time_us * spread[0], 2), "max_time_us": round(time_us * spread[1], 2),
            "algbw_gbyte_s": round(algbw, 6), "busbw_gbyte_s": round(algbw * factor, 6), "errors": errors}


def ar_factor(n):
    return 2.0 * (n - 1) / n


def probe(name, host, results, device=None, peer=None, nranks=None, rank=None, variant=None, status="ok",
          phase=None, reason=None):
    return {"name": name, "variant": variant, "host": host, "device": device, "peer": peer, "nranks": nranks,
            "rank": rank, "status": status, "phase": phase, "reason": reason, "results": results}


def skipped(name, host, reason, rank=None):
    return probe(name, host, [], status="skipped", reason=reason, rank=rank)


def copy_probes(host, gbs_h2d, gbs_d2h, d2d=None, rank=None):
    """copy.h2d / copy.d2h (and copy.d2d) per GPU: 1 MiB, 16 MiB, 256 MiB, nvbandwidth's shape."""
    out = []
    for name, vals in (("copy.h2d", gbs_h2d), ("copy.d2h", gbs_d2h)) + ((("copy.d2d", d2d),) if d2d else ()):
        for i, gb in enumerate(vals):
            out.append(probe(name, host, [bw_sample(1 << 20, gb * 0.62), bw_sample(16 << 20, gb * 0.97),
                                          bw_sample(256 << 20, gb)], device=i, rank=rank))
    return out


def allreduce_results(n, small_us, busbw, big_spread=(0.995, 1.008)):
    """small_us: {bytes: time_us}; busbw: {bytes: GB/s}. nccl-tests' bus bandwidth factor for n ranks."""
    f = ar_factor(n)
    res = [t_sample(b, t, f) for b, t in sorted(small_us.items())]
    for b, bb in sorted(busbw.items()):
        res.append(bw_sample(b, bb / f, f, big_spread, iters=20 if b < (1 << 30) else 5))
    return res


def nccl_probes(host, n, small_us, busbw, name="nccl.all_reduce", rank=None, device=None, init_us=None):
    out = []
    if init_us:
        out.append(probe("nccl.init", host, [{"bytes": 0, "iters": 1, "time_us": init_us, "min_time_us": init_us,
                                              "max_time_us": init_us, "algbw_gbyte_s": None,
                                              "busbw_gbyte_s": None, "errors": None}],
                         nranks=n, rank=rank, device=device))
    for v in ("out_of_place", "in_place"):
        out.append(probe(name, host, allreduce_results(n, small_us, busbw), nranks=n, rank=rank, device=device,
                         variant=v))
    return out


# ---------------------------------------------------------------- host parts


def nic(name, kind="physical", ipv4=(), ipv6=(), state="up", admin_up=True, mtu=1500, speed=None, mac=None,
        master=None, default_route=False, driver=None, bus_id=None, numa=None, ifindex=None, link_type=None):
    return {"name": name, "ifindex": ifindex, "kind": kind, "link_type": link_type, "state": state,
            "admin_up": admin_up, "mtu": mtu, "speed_mbit_s": speed, "mac": mac, "master": master,
            "ipv4": list(ipv4), "ipv6": list(ipv6), "default_route": default_route, "driver": driver,
            "bus_id": bus_id, "numa": numa}


def lo():
    return nic("lo", "loopback", ["127.0.0.1/8"], ["::1/128"], state="unknown", mtu=65536, mac="00:00:00:00:00:00",
               ifindex=1)


def pci(bus, kind, vendor_id, device_id, class_id, vendor, device, numa, gen, width, max_gen=None, max_width=None,
        os_devices=(), link=None):
    max_gen = gen if max_gen is None else max_gen
    max_width = width if max_width is None else max_width
    speeds = {1: 4.0, 2: 8.0, 3: 15.75, 4: 31.5, 5: 63.0}
    return {"bus_id": bus, "kind": kind, "vendor_id": vendor_id, "device_id": device_id, "class_id": class_id,
            "vendor": vendor, "device": device, "numa": numa,
            "link_gbyte_s": link if link is not None else (speeds[gen] * width / 16 if gen else None),
            "pcie": {"gen": gen, "width": width, "max_gen": max_gen, "max_width": max_width},
            "os_devices": list(os_devices)}


def gpu(index, name, bus, numa, uuid, mem, cc, gen, width, nvlinks=0, nvl_version=None, max_gen=None,
        max_width=None):
    max_gen = gen if max_gen is None else max_gen
    max_width = width if max_width is None else max_width
    speeds = {1: 4.0, 2: 8.0, 3: 15.75, 4: 31.5, 5: 63.0}
    return {"index": index, "name": name, "bus_id": bus, "numa": numa, "memory_bytes": mem,
            "compute_capability": cc, "persistence": True,
            "pcie": {"gen": gen, "width": width, "max_gen": max_gen, "max_width": max_width,
                     "link_gbyte_s": speeds[gen] * width / 16},
            "uuid": uuid,
            "nvlinks": [{"link": l, "up": True, "version": nvl_version, "remote_bus_id": None,
                         "remote_kind": "nvswitch"} for l in range(nvlinks)]}


def gid(index, g, typ, netdev=None, ipv4=False):
    return {"index": index, "gid": g, "type": typ, "netdev": netdev, "ipv4": ipv4}


def ib_port(guid_tail, rate=400, lanes=4, lid=None, state="active", mtu=4096, netdev=None):
    down = state != "active"
    return {"port": 1, "state": state, "phys_state": "polling" if down else "link_up", "link_layer": "infiniband",
            "active_width": None if down else lanes, "lane_gbit_s": None if down else rate / lanes,
            "rate_gbit_s": None if down else float(rate), "lid": None if down else lid, "mtu_bytes": mtu,
            "netdev": netdev, "roce_v2_gid_index": None,
            "gids": [gid(0, "fe80:0000:0000:0000:" + guid_tail, "IB/RoCE v1")]}


def roce_port(netdev, ipv4, mac_tail, rate=200, lanes=4, mtu=4096, v2=True):
    """A RoCE port's GID table as the kernel builds it: link-local v1/v2, then the IPv4 address v1/v2."""
    a = [int(x) for x in ipv4.split("/")[0].split(".")]
    v4 = "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x" % tuple(a)
    ll = "fe80:0000:0000:0000:" + mac_tail
    gids = [gid(0, ll, "IB/RoCE v1", netdev), gid(1, ll, "RoCE v2", netdev),
            gid(2, v4, "IB/RoCE v1", netdev, True), gid(3, v4, "RoCE v2", netdev, True)]
    if not v2:
        gids = [g for g in gids if g["type"] != "RoCE v2"]
        for i, g in enumerate(gids):
            g["index"] = i
    return {"port": 1, "state": "active", "phys_state": "link_up", "link_layer": "ethernet", "active_width": lanes,
            "lane_gbit_s": rate / lanes, "rate_gbit_s": float(rate), "lid": None, "mtu_bytes": mtu, "netdev": netdev,
            "roce_v2_gid_index": 3 if v2 else None, "gids": gids}


def hca(name, guid, fw, board, bus, numa, netdev, ports):
    return {"name": name, "node_guid": guid, "fw_ver": fw, "board_id": board, "bus_id": bus, "numa": numa,
            "netdev": netdev, "ports": ports}


def system(os_name, kernel, cpus, mem, shm=None, container="none", evidence=None, memlock_unlimited=True,
           memlock_bytes=None, iommu="passthrough", iommu_evidence="iommu=pt on the kernel command line",
           peermem=None, dev_ib=None, fm=None, nofile=1048576):
    return {"kernel": kernel, "os": os_name, "arch": "x86_64", "cpus_online": cpus, "mem_total_bytes": mem,
            "container": container, "container_evidence": evidence,
            "shm_bytes": shm if shm is not None else mem // 2, "memlock_unlimited": memlock_unlimited,
            "memlock_bytes": memlock_bytes, "nofile_soft": nofile, "nofile_hard": nofile, "iommu": iommu,
            "iommu_evidence": iommu_evidence, "peermem": peermem, "dev_infiniband": dev_ib,
            "fabric_manager": fm}


def versions(driver=None, cuda=None, nccl=None, libibverbs="1.14.50.0", plugin=None):
    return {"driver": driver, "cuda_driver": cuda, "nccl": nccl, "nccl_net_plugin": plugin, "hwloc": "2.9.0",
            "libnl": "3.5.0", "libibverbs": libibverbs, "cjson": "1.7.15", "commdiag": "0.1.0"}


def empty_paths():
    return {"source": None, "gpus": [], "nets": [], "gpu_gpu": None, "gpu_net": None, "p2p_level": None,
            "p2p_level_source": None, "nccl_p2p": None, "cuda_p2p": None, "nvml_p2p": None}


def host(hostname, host_id, sysinfo, vers, numa_nodes, pci_devices, gpus, nics, hcas, env, paths=None, acs=(),
         gpu_status="ok", gpu_reason=None):
    status = {s: "ok" for s in SECTIONS}
    reason = {s: None for s in SECTIONS}
    status["gpu"], reason["gpu"] = gpu_status, gpu_reason
    return {"hostname": hostname, "host_id": host_id, "host_id_source": "/etc/machine-id", "status": status,
            "reason": reason, "system": sysinfo, "versions": vers, "topology_source": "live",
            "numa_nodes": numa_nodes, "pci_devices": pci_devices, "gpus": gpus, "paths": paths or empty_paths(),
            "acs": list(acs), "nics": nics, "hcas": hcas, "env": dict(sorted(env.items()))}


def document(hosts, probes, ranks=None, reach=None, launcher=None, launcher_ranks=None, duration=41.7):
    return {"schema": 1, "tool": {"name": "commdiag", "version": "0.1.0"},
            "run": {"started": "2026-11-21T10:00:00Z", "mode": "check", "launcher": launcher,
                    "launcher_ranks": launcher_ranks, "ranks": len(ranks) if ranks else 1, "duration_s": duration,
                    "timeout_s": 120, "stopped_by": None, "stopped_phase": None},
            "hosts": hosts, "ranks": ranks or [], "probes": probes, "reach": reach or [], "findings": [],
            "advice": [], "rules": None, "score": None}


def numa2(cpus_a, cpus_b, mem):
    return [{"index": 0, "cpus": cpus_a, "memory_bytes": mem // 2}, {"index": 1, "cpus": cpus_b, "memory_bytes": mem // 2}]


def matrix(n, f):
    return [[f(i, j) for j in range(n)] for i in range(n)]


# ---------------------------------------------------------------- 8x H100 SXM, 8x NDR InfiniBand (tune base)
#
# HGX H100 8-GPU: Gen5 x16 per GPU, 18 NVLink 4 links per GPU into NVSwitch, one ConnectX-7 NDR port per GPU.
# nvbandwidth host_to_device_memcpy_ce on H100 SXM: 55.6 GB/s (NVIDIA's nvbandwidth blog example, cited by
# dev.smart-guide.co.kr); device-to-device about 370-380 GB/s per direction (NVIDIA/nccl#1264);
# all_reduce busbw peaks at about 480 GB/s on 8 GPUs with NVLS (NVIDIA/nccl-tests#212, sjeaugey).

H100_GPU_BUS = ["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
                "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"]
H100_HCA_BUS = ["0000:19:00.0", "0000:2b:00.0", "0000:3b:00.0", "0000:5e:00.0",
                "0000:9b:00.0", "0000:ac:00.0", "0000:bb:00.0", "0000:dc:00.0"]
H100_SWITCH_PORTS = ["0000:16:01.0", "0000:28:01.0", "0000:38:01.0", "0000:5b:01.0",
                     "0000:98:01.0", "0000:a9:01.0", "0000:b8:01.0", "0000:d9:01.0"]
H100_H2D = [55.4, 55.6, 55.3, 55.5, 55.2, 55.6, 55.4, 55.5]
H100_D2H = [55.1, 55.3, 55.0, 55.2, 55.3, 55.1, 55.2, 55.0]
H100_AR_SMALL = {8: 17.9, 1024: 18.6, 8192: 19.8, 65536: 24.3}
H100_AR_BIG = {1 << 20: 61.2, 16 << 20: 242.7, 256 << 20: 431.5, 1 << 30: 463.8, 4 << 30: 474.6, 16 << 30: 478.9}


def h100_host(hostname, n, host_id, env=None, ip_last=7):
    pcis, gpus, nics, hcas = [], [], [lo()], []
    nics.append(nic("eth0", ipv4=["192.168.40.%d/24" % ip_last], mtu=1500, speed=25000,
                    mac="7c:c2:55:1a:2b:%02x" % ip_last, default_route=True, driver="ice", bus_id="0000:c1:00.0",
                    numa=1, ifindex=2))
    pcis.append(pci("0000:c1:00.0", "nic", "0x8086", "0x159b", "0x0200", "Intel Corporation",
                    "Ethernet Controller E810-C for SFP", 1, 4, 8, os_devices=["eth0"]))
    for i, bus in enumerate(H100_GPU_BUS):
        numa = 0 if i < 4 else 1
        pcis.append(pci(bus, "gpu", "0x10de", "0x2330", "0x0302", "NVIDIA Corporation", "GH100 [H100 SXM5 80GB]",
                        numa, 5, 16, os_devices=["cuda%d" % i, "nvml%d" % i]))
        gpus.append(gpu(i, "NVIDIA H100 80GB HBM3", bus, numa, "GPU-7a3c%02d%02d-1d2e-4f5a-8b9c-0d1e2f3a4b5c" % (n, i),
                        85520809984, "9.0", 5, 16, nvlinks=18, nvl_version=4))
    for i, bus in enumerate(H100_HCA_BUS):
        numa = 0 if i < 4 else 1
        pcis.append(pci(bus, "hca", "0x15b3", "0x1021", "0x0207", "Mellanox Technologies",
                        "MT2910 Family [ConnectX-7]", numa, 5, 16, os_devices=["mlx5_%d" % i, "ib%d" % i]))
        tail = "a088:c203:00e1:%02x%02x" % (n, i)
        hcas.append(hca("mlx5_%d" % i, "0xa088c20300e1%02x%02x" % (n, i), "28.39.1002", "MT_0000000838", bus, numa,
                        "ib%d" % i, [ib_port(tail, lid=100 + 16 * n + i, netdev="ib%d" % i)]))
        nics.append(nic("ib%d" % i, "ipoib", ["10.%d.0.%d/16" % (100 + i, ip_last)], mtu=4092, speed=400000,
                        driver="mlx5_core", bus_id=bus, numa=numa, ifindex=4 + i, link_type="ipoib"))
    nets = ["mlx5_%d" % i for i in range(8)] + ["eth0"]

    def gpu_net(i, j):
        if j < 8:
            return "PIX" if i == j else "NODE" if (i < 4) == (j < 4) else "SYS"
        return "NODE" if i >= 4 else "SYS"
    paths = {"source": "hwloc+nvml", "gpus": list(H100_GPU_BUS), "nets": nets,
             "gpu_gpu": matrix(8, lambda i, j: "X" if i == j else "NV18"),
             "gpu_net": [[gpu_net(i, j) for j in range(len(nets))] for i in range(8)],
             "p2p_level": "PXB", "p2p_level_source": "default",
             "nccl_p2p": matrix(8, lambda i, j: None if i == j else True),
             "cuda_p2p": matrix(8, lambda i, j: None if i == j else True),
             "nvml_p2p": matrix(8, lambda i, j: None if i == j else "ok")}
    acs = [{"bus_id": b, "redirect": False, "ctrl": "0x0000", "reason": None} for b in H100_SWITCH_PORTS]
    mem = 2164173824000
    return host(hostname, host_id,
                system("Ubuntu 22.04.4 LTS", "5.15.0-105-generic", 224, mem, shm=mem // 2, peermem=True, dev_ib=True,
                       fm="running"),
                versions("550.90.07", 12040, "2.21.5"),
                numa2("0-55,112-167", "56-111,168-223", mem), pcis, gpus, nics, hcas,
                env if env is not None else {"OMPI_MCA_pml": "ucx", "OMPI_MCA_btl": "^openib,smcuda",
                                             "OMPI_MCA_coll_hcoll_enable": "0"},
                paths=paths, acs=acs)


def h100_probes(hostname, p2p=True, h2d=None, d2h=None, ar_big=None):
    probes = copy_probes(hostname, h2d or H100_H2D, d2h or H100_D2H)
    if p2p:
        for i in range(8):
            for j in range(8):
                if i != j:
                    gb = 371.0 + ((i * 7 + j * 3) % 9) * 1.2   # 371.0 .. 380.6, nvbandwidth's D2D read
                    probes.append(probe("p2p.bw", hostname, [bw_sample(256 << 20, gb, iters=10)], device=i, peer=j,
                                        nranks=1))
    probes += nccl_probes(hostname, 8, H100_AR_SMALL, ar_big or H100_AR_BIG, init_us=412000.0)
    return probes


def h100_doc():
    return document([h100_host("gpu-node07", 7, "5f1d0c0c2b7e4a3f9d8e7c6b5a493827")], h100_probes("gpu-node07"))


# ---------------------------------------------------------------- two 8x H100 hosts under mpirun (tune base)
#
# One rank per host (mpirun -N 1), each driving its 8 GPUs; NCCL all_reduce over 16 GPUs.
# 2-node 8x H100 all_reduce: about 470 GB/s busbw at 16 GiB (DGX H100 pairs in public nccl-tests logs,
# and the 2-node figures of README-GB300.md's scale tables); osu_latency over NDR: 1.1-1.3 us,
# osu_bw: about 48 GB/s (MVAPICH/OSU published NDR figures).

H100_2N_SMALL = {8: 38.9, 1024: 40.1, 8192: 44.6, 65536: 61.8}
H100_2N_BIG = {1 << 20: 38.5, 16 << 20: 152.4, 256 << 20: 321.7, 1 << 30: 398.2, 4 << 30: 455.1, 16 << 30: 468.4}


def reach_all(hosts):
    """Every host connects to every other host's addressed interfaces (tcp.reach)."""
    out = []
    for a in hosts:
        for b in hosts:
            if a is b:
                continue
            for n in b["nics"]:
                if n["kind"] == "loopback" or not n["ipv4"] or n["state"] != "up":
                    continue
                us = 62.0 + (len(out) % 7) * 4.5
                out.append({"from": a["hostname"], "to": b["hostname"], "iface": n["name"],
                            "address": n["ipv4"][0].split("/")[0], "ok": True, "connect_us": us, "error": None})
    return out


def mpi_probes(h0, h1, lat_us=1.21, bw=48.6, ar_us=3.4, tcp_gbs=2.78, lat_max=14.0):
    """Rank 0's MPI and TCP probes with rank 1 as partner; small-message maxima carry the usual
    single-iteration outliers (an interrupt, a timer tick) seen in any osu_latency run."""
    lat = [t_sample(b, lat_us + b / 24000.0, spread=(0.96, lat_max / lat_us), iters=1000) for b in (8, 64, 1024)]
    lat.append(t_sample(65536, 4.9, spread=(0.97, 1.6), iters=1000))
    bwr = [bw_sample(b, g, spread=(0.985, 1.03), iters=100) for b, g in ((65536, 21.5), (1 << 20, 44.9), (4 << 20, bw))]
    ar = [t_sample(8, ar_us, spread=(0.95, 6.0), iters=1000), t_sample(1 << 20, 95.0, spread=(0.97, 1.2), iters=100)]
    tcp = [bw_sample(b, g, spread=(0.95, 1.06)) for b, g in ((65536, 0.91), (1 << 20, 2.31), (64 << 20, tcp_gbs))]
    return [probe("tcp.reach", h0, [{"bytes": 0, "iters": 1, "time_us": 3120.5, "min_time_us": None,
                                     "max_time_us": None, "algbw_gbyte_s": None, "busbw_gbyte_s": None,
                                     "errors": None}], nranks=2, rank=0),
            probe("tcp.bw", h0, tcp, peer=1, nranks=2, rank=0),
            probe("mpi.latency", h0, lat, peer=1, nranks=2, rank=0),
            probe("mpi.bw", h0, bwr, peer=1, nranks=2, rank=0),
            probe("mpi.allreduce", h0, ar, nranks=2, rank=0),
            probe("tcp.reach", h1, [{"bytes": 0, "iters": 1, "time_us": 2987.2, "min_time_us": None,
                                     "max_time_us": None, "algbw_gbyte_s": None, "busbw_gbyte_s": None,
                                     "errors": None}], nranks=2, rank=1)]


def ranks_of(hosts, per_host=1):
    out = []
    for hi, h in enumerate(hosts):
        for l in range(per_host):
            out.append({"rank": hi * per_host + l, "local_rank": l, "host_index": hi, "host": h["hostname"],
                        "answered": True, "error": None, "env_diff": {}})
    return out


def mpi_env(extra=None):
    env = {"OMPI_MCA_pml": "ucx", "OMPI_MCA_btl": "^openib,smcuda", "OMPI_MCA_coll_hcoll_enable": "0",
           "OMPI_MCA_ess_base_num_procs": "3", "OMPI_MCA_orte_num_nodes": "2", "OMPI_MCA_plm": "rsh",
           "OMPI_MCA_orte_launch": "1", "OMPI_MCA_pmix": "^s1,s2,cray,isolated"}
    env.update(extra or {})
    return env


def two_h100_doc(late_rank=None):
    hs = [h100_host("gpu-node07", 7, "5f1d0c0c2b7e4a3f9d8e7c6b5a493827", env=mpi_env({"OMPI_MCA_ess_base_vpid": "0"})),
          h100_host("gpu-node08", 8, "0a6e94d1f3c24b7d8e2f4a1b6c9d3e58", env=mpi_env({"OMPI_MCA_ess_base_vpid": "1"}),
                    ip_last=8)]
    probes = []
    for r, h in enumerate(hs):
        probes += copy_probes(h["hostname"], H100_H2D, H100_D2H, rank=r)
    probes += mpi_probes("gpu-node07", "gpu-node08")
    for r, h in enumerate(hs):
        small = dict(H100_2N_SMALL)
        big = dict(H100_2N_BIG)
        # each rank times its own collectives; healthy ranks end within microseconds of each other
        skew = 0.4 * r
        small = {b: t + skew for b, t in small.items()}
        runs = nccl_probes(h["hostname"], 16, small, big, rank=r, init_us=1630000.0 + 2100.0 * r)
        probes += runs
    doc = document(hs, probes, ranks=ranks_of(hs), reach=reach_all(hs), launcher="mpirun", launcher_ranks=2,
                   duration=68.2)
    if late_rank is not None:
        slow_rank(doc, late_rank, late_us=21500.0)
    return doc


def slow_rank(doc, late, late_us):
    """A rank that reaches every collective late: its own times are the true ones, every other
    rank waits late_us longer inside each collective (what nccl-tests shows on the waiting ranks)."""
    for p in doc["probes"]:
        if p["name"] != "nccl.all_reduce" or p["rank"] == late:
            continue
        for s in p["results"]:
            t = s["time_us"] + late_us
            ratio = s["time_us"] / t
            s["time_us"] = round(t, 2)
            s["min_time_us"] = round(t * 0.99, 2)
            s["max_time_us"] = round(t * 1.01, 2)
            s["algbw_gbyte_s"] = round(s["algbw_gbyte_s"] * ratio, 6)
            s["busbw_gbyte_s"] = round(s["busbw_gbyte_s"] * ratio, 6)


# ---------------------------------------------------------------- 8x A100 SXM4 with 8x 200 GbE RoCE (tune base)
#
# Numbers of Azure's ND A100 v4 (Azure/AI-benchmarking-guide, Azure_Results/ND_A100_v4_results.md):
# nvbandwidth host-to-device 26.28 GB/s; NCCL all_reduce busbw 228.10 (1G), 230.48 (4G), 231.58 GB/s (8G).
# copy.d2d: bandwidthTest's 1157.5 GB/s device-to-device on A100-SXM4-40GB (router-gao/cuda-demo),
# scaled by the 80 GB part's HBM2e (2039 vs 1555 GB/s): 1518 GB/s.

A100_GPU_BUS = ["0000:07:00.0", "0000:0f:00.0", "0000:47:00.0", "0000:4e:00.0",
                "0000:87:00.0", "0000:90:00.0", "0000:b7:00.0", "0000:bd:00.0"]
A100_NIC_BUS = ["0000:0c:00.0", "0000:12:00.0", "0000:4b:00.0", "0000:54:00.0",
                "0000:8d:00.0", "0000:94:00.0", "0000:ba:00.0", "0000:cc:00.0"]
A100_H2D = [26.28, 26.31, 26.22, 26.30, 26.25, 26.33, 26.27, 26.19]
A100_D2H = [26.02, 26.08, 25.97, 26.05, 26.01, 26.10, 26.04, 25.95]
A100_D2D = [1518.0, 1521.5, 1516.2, 1519.8, 1520.4, 1517.3, 1522.1, 1518.9]
A100_AR_SMALL = {8: 26.4, 1024: 27.1, 8192: 29.9, 65536: 36.8}
A100_AR_BIG = {1 << 20: 36.22, 16 << 20: 109.22, 256 << 20: 213.87, 1 << 30: 228.10, 4 << 30: 230.48,
               8 << 30: 231.58}


def a100_roce_host(hostname="a100-r03n11", host_id="c2b8d0e6a47f4d19b35e0c8f7a1d2e64", nccl="2.21.5", env=None):
    pcis, gpus, nics, hcas = [], [], [lo()], []
    nics.append(nic("eth0", ipv4=["172.16.8.41/22"], mtu=1500, speed=100000, mac="b4:96:91:c8:22:10",
                    default_route=True, driver="ice", bus_id="0000:e1:00.0", numa=1, ifindex=2))
    pcis.append(pci("0000:e1:00.0", "nic", "0x8086", "0x1592", "0x0200", "Intel Corporation",
                    "Ethernet Controller E810-C for QSFP", 1, 4, 16, os_devices=["eth0"]))
    for i, bus in enumerate(A100_GPU_BUS):
        numa = 0 if i < 4 else 1
        pcis.append(pci(bus, "gpu", "0x10de", "0x20b2", "0x0302", "NVIDIA Corporation", "GA100 [A100 SXM4 80GB]",
                        numa, 4, 16, os_devices=["cuda%d" % i, "nvml%d" % i]))
        gpus.append(gpu(i, "NVIDIA A100-SXM4-80GB", bus, numa, "GPU-3f1e%04d-77aa-4c1d-9e2b-5a6b7c8d9e0f" % i,
                        85899345920, "8.0", 4, 16, nvlinks=12, nvl_version=3))
    for i, bus in enumerate(A100_NIC_BUS):
        numa = 0 if i < 4 else 1
        dev = "enp%ds0np0" % int(bus.split(":")[1], 16)
        ip = "10.224.%d.41/24" % i
        mac_tail = "0e42:a1ff:fe%02x:%02x41" % (0x30 + i, i)
        pcis.append(pci(bus, "hca", "0x15b3", "0x101b", "0x0207", "Mellanox Technologies",
                        "MT28908 Family [ConnectX-6]", numa, 4, 16, os_devices=["mlx5_%d" % i, dev]))
        hcas.append(hca("mlx5_%d" % i, "0x0c42a10300%02x%02x41" % (0x30 + i, i), "20.39.1002", "MT_0000000225", bus,
                        numa, dev, [roce_port(dev, ip, mac_tail)]))
        nics.append(nic(dev, ipv4=[ip], mtu=9000, speed=200000, mac="0c:42:a1:%02x:%02x:41" % (0x30 + i, i),
                        driver="mlx5_core", bus_id=bus, numa=numa, ifindex=3 + i))
    nets = ["mlx5_%d" % i for i in range(8)] + ["eth0"]
    paths = {"source": "hwloc+nvml", "gpus": list(A100_GPU_BUS), "nets": nets,
             "gpu_gpu": matrix(8, lambda i, j: "X" if i == j else "NV12"),
             "gpu_net": [[("PXB" if i // 2 == j // 2 else "NODE" if (i < 4) == (j < 4) else "SYS") if j < 8
                          else ("NODE" if i >= 4 else "SYS") for j in range(9)] for i in range(8)],
             "p2p_level": "PXB", "p2p_level_source": "default",
             "nccl_p2p": matrix(8, lambda i, j: None if i == j else True),
             "cuda_p2p": matrix(8, lambda i, j: None if i == j else True),
             "nvml_p2p": matrix(8, lambda i, j: None if i == j else "ok")}
    mem = 2151778476032
    return host(hostname, host_id,
                system("Rocky Linux 8.9 (Green Obsidian)", "4.18.0-513.24.1.el8_9.x86_64", 256, mem, shm=mem // 2,
                       peermem=True, dev_ib=True, fm="running"),
                versions("535.161.08", 12020, nccl, libibverbs="1.14.46.0"),
                numa2("0-63,128-191", "64-127,192-255", mem), pcis, gpus, nics, hcas,
                env if env is not None else {"NCCL_IB_TC": "106", "NCCL_IB_QPS_PER_CONNECTION": "4",
                                             "OMPI_MCA_pml": "ucx", "UCX_IB_GID_INDEX": "3"},
                paths=paths)


def a100_doc(**kw):
    h = a100_roce_host(**kw)
    probes = copy_probes(h["hostname"], A100_H2D, A100_D2H, d2d=A100_D2D)
    probes += nccl_probes(h["hostname"], 8, A100_AR_SMALL, A100_AR_BIG, init_us=388000.0)
    return document([h], probes)


# ---------------------------------------------------------------- 4x L40S on PCIe Gen4 (tune base)
#
# Two Broadcom PEX89xxx switches, two GPUs under each; GPUs of one switch are PIX, across the CPU SYS.
# H2D: 26.1 GB/s (PCIe Gen4 x16 as nvbandwidth reaches it: 26.28 on A100, whose link is the same).
# all_reduce: no public L40S nccl-tests figure was found; 4 GPUs on Gen4 through the host bridge give
# a ring limited by the slowest hop, about 20-22 GB/s busbw (ESTIMATE, see README).

L40S_BUS = ["0000:4f:00.0", "0000:52:00.0", "0000:ce:00.0", "0000:d1:00.0"]
L40S_SWITCH_PORTS = ["0000:4d:00.0", "0000:4d:04.0", "0000:cc:00.0", "0000:cc:04.0"]
L40S_H2D = [26.08, 26.12, 26.05, 26.10]
L40S_D2H = [26.31, 26.35, 26.28, 26.33]
L40S_AR_SMALL = {8: 21.3, 1024: 22.0, 8192: 24.8, 65536: 39.6}
L40S_AR_BIG = {1 << 20: 8.9, 16 << 20: 17.6, 256 << 20: 20.9, 1 << 30: 21.4}


def l40s_host(acs_redirect=False, iommu="passthrough", nics_extra=None):
    pcis, gpus, nics = [], [], [lo()]
    nics.append(nic("eno1", ipv4=["10.40.2.15/24"], mtu=1500, speed=10000, mac="3c:ec:ef:71:0a:15",
                    default_route=True, driver="bnxt_en", bus_id="0000:41:00.0", numa=0, ifindex=2))
    nics.append(nic("eno2", state="down", mtu=1500, mac="3c:ec:ef:71:0a:16", driver="bnxt_en",
                    bus_id="0000:41:00.1", numa=0, ifindex=3))
    nics += nics_extra or []
    pcis.append(pci("0000:41:00.0", "nic", "0x14e4", "0x16d7", "0x0200", "Broadcom Inc. and subsidiaries",
                    "BCM57414 NetXtreme-E 10Gb/25Gb RDMA Ethernet Controller", 0, 3, 8, os_devices=["eno1"]))
    pcis.append(pci("0000:41:00.1", "nic", "0x14e4", "0x16d7", "0x0200", "Broadcom Inc. and subsidiaries",
                    "BCM57414 NetXtreme-E 10Gb/25Gb RDMA Ethernet Controller", 0, 3, 8, os_devices=["eno2"]))
    for i, bus in enumerate(L40S_BUS):
        numa = 0 if i < 2 else 1
        pcis.append(pci(bus, "gpu", "0x10de", "0x26b9", "0x0302", "NVIDIA Corporation", "AD102GL [L40S]", numa, 4,
                        16, os_devices=["cuda%d" % i, "nvml%d" % i]))
        gpus.append(gpu(i, "NVIDIA L40S", bus, numa, "GPU-9c0d%04d-3b1a-4e6f-a2d4-7e8f9a0b1c2d" % i, 48305799168,
                        "8.9", 4, 16))
    same = lambda i, j: i // 2 == j // 2
    paths = {"source": "hwloc+nvml", "gpus": list(L40S_BUS), "nets": ["eno1"],
             "gpu_gpu": matrix(4, lambda i, j: "X" if i == j else "PIX" if same(i, j) else "SYS"),
             "gpu_net": [["NODE" if i < 2 else "SYS"] for i in range(4)],
             "p2p_level": "PXB", "p2p_level_source": "default",
             "nccl_p2p": matrix(4, lambda i, j: None if i == j else same(i, j)),
             "cuda_p2p": matrix(4, lambda i, j: None if i == j else True),
             "nvml_p2p": matrix(4, lambda i, j: None if i == j else "ok")}
    acs = [{"bus_id": b, "redirect": acs_redirect, "ctrl": "0x005d" if acs_redirect else "0x0000", "reason": None}
           for b in L40S_SWITCH_PORTS]
    mem = 1081929859072
    ev = "iommu=pt on the kernel command line" if iommu == "passthrough" else \
        "intel_iommu=on on the kernel command line, DMA translation active (iommu_groups populated, no iommu=pt)"
    return host("inf-l40s-02", "8d2f6a1c4e9b4f07a3c5d1e8b7f60a29",
                system("Ubuntu 22.04.4 LTS", "6.5.0-35-generic", 128, mem, shm=mem // 2, iommu=iommu,
                       iommu_evidence=ev, peermem=False, dev_ib=False, fm=None),
                versions("550.54.15", 12040, "2.21.5"),
                numa2("0-31,64-95", "32-63,96-127", mem), pcis, gpus, nics, [], {}, paths=paths, acs=acs)


def l40s_doc(**kw):
    h = l40s_host(**kw)
    probes = copy_probes(h["hostname"], L40S_H2D, L40S_D2H)
    probes += nccl_probes(h["hostname"], 4, L40S_AR_SMALL, L40S_AR_BIG, init_us=291000.0)
    return document([h], probes)


# ---------------------------------------------------------------- single-GPU workstation (tune base)
# RTX 6000 Ada on Gen4 x16: H2D/D2H as the Gen4 x16 link gives (26.2 / 26.4 GB/s, see L40S).


def workstation_doc():
    mem = 137438953472
    pcis = [pci("0000:01:00.0", "gpu", "0x10de", "0x26b1", "0x0300", "NVIDIA Corporation",
                "AD102GL [RTX 6000 Ada Generation]", 0, 4, 16, os_devices=["cuda0", "nvml0"]),
            pci("0000:05:00.0", "nic", "0x8086", "0x125b", "0x0200", "Intel Corporation",
                "Ethernet Controller I225-LM", 0, 2, 1, os_devices=["eno1"])]
    g = gpu(0, "NVIDIA RTX 6000 Ada Generation", "0000:01:00.0", 0, "GPU-51a2b3c4-d5e6-4f70-8192-a3b4c5d6e7f8",
            51527024640, "8.9", 4, 16)
    nics = [lo(), nic("eno1", ipv4=["192.168.1.23/24"], ipv6=["fe80::3eec:efff:fe20:1123/64"], mtu=1500, speed=1000,
                      mac="3c:ec:ef:20:11:23", default_route=True, driver="igc", bus_id="0000:05:00.0", numa=0,
                      ifindex=2),
            nic("docker0", "bridge", ["172.17.0.1/16"], state="down", mtu=1500, mac="02:42:5e:8a:1b:3c", ifindex=3,
                link_type="bridge")]
    h = host("ws-ml-23", "e41b7c9d2a3f4e58b6c0d1f2a3b4c5d6",
             system("Ubuntu 24.04 LTS", "6.8.0-40-generic", 32, mem, shm=mem // 2, iommu="off",
                    iommu_evidence="no IOMMU groups in /sys/kernel/iommu_groups", peermem=False, dev_ib=False),
             versions("550.107.02", 12040, "2.21.5"), [{"index": 0, "cpus": "0-31", "memory_bytes": mem}],
             pcis, [g], nics, [], {})
    probes = copy_probes("ws-ml-23", [26.2], [26.4])
    return document([h], probes, duration=9.8)


# ---------------------------------------------------------------- CPU-only host (tune base)


def cpu_host(hostname="cn-0412", host_id="7b3e1d9f2c4a4b6e8d0f1a2b3c4d5e6f", nics=None, extra_pci=()):
    mem = 540950740992
    pcis = [pci("0000:c3:00.0", "nic", "0x14e4", "0x16d7", "0x0200", "Broadcom Inc. and subsidiaries",
                "BCM57414 NetXtreme-E 10Gb/25Gb RDMA Ethernet Controller", 1, 3, 8, os_devices=["eno1"]),
            pci("0000:c3:00.1", "nic", "0x14e4", "0x16d7", "0x0200", "Broadcom Inc. and subsidiaries",
                "BCM57414 NetXtreme-E 10Gb/25Gb RDMA Ethernet Controller", 1, 3, 8, os_devices=["eno2"]),
            pci("0000:02:00.0", "other", "0x1a03", "0x2000", "0x0300", "ASPEED Technology, Inc.",
                "ASPEED Graphics Family", 0, 1, 1, os_devices=[])] + list(extra_pci)
    nics = nics or [lo(), nic("eno1", ipv4=["10.20.4.12/21"], mtu=1500, speed=25000, mac="b0:26:28:4c:0a:12",
                              default_route=True, driver="bnxt_en", bus_id="0000:c3:00.0", numa=1, ifindex=2),
                    nic("eno2", state="down", admin_up=False, mtu=1500, mac="b0:26:28:4c:0a:13", driver="bnxt_en",
                        bus_id="0000:c3:00.1", numa=1, ifindex=3)]
    return host(hostname, host_id,
                system("Rocky Linux 9.3 (Blue Onyx)", "5.14.0-362.24.1.el9_3.x86_64", 128, mem, shm=mem // 2,
                       iommu="off", iommu_evidence="no IOMMU groups in /sys/kernel/iommu_groups", peermem=False,
                       dev_ib=False, nofile=131072),
                versions(libibverbs="1.14.46.0"), numa2("0-63", "64-127", mem), pcis, [], nics, [], {},
                gpu_status="skipped", gpu_reason=LIBCUDA)


def gpu_skips(hostname, reason, names=("copy.h2d", "copy.d2h", "copy.d2d"), rank=None):
    return [skipped(n, hostname, "needs a GPU: " + reason, rank=rank) for n in names]


def cpu_doc():
    h = cpu_host()
    return document([h], gpu_skips(h["hostname"], LIBCUDA), duration=1.9)


# ---------------------------------------------------------------- holdout bases (independent sources)
#
# ND H200 v5 (Azure/AI-benchmarking-guide, Azure_Results/ND_H200_v5_results.md): nvbandwidth H2D 52,
# D2H 52, device-to-device read 671 GB/s (both directions of a pair); NCCL all_reduce busbw 467.58 (1G),
# 477.41 (4G), 479.98 GB/s (8G). Azure's VM layout: 8 NDR ports mlx5_ib0..7 (ib0..ib7) plus the
# accelerated-networking VF mlx5_an0 (eth0's RDMA function, Ethernet link layer); the HPC image's settings
# (azhpc-images): NCCL_IB_PCI_RELAXED_ORDERING=1, NCCL_SOCKET_IFNAME=eth0, NCCL_TOPO_FILE, UCX_TLS=rc,
# UCX_IB_PCI_RELAXED_ORDERING=on, NCCL_IB_HCA=mlx5_ib.

H200_BUS = ["0001:00:00.0", "0002:00:00.0", "0003:00:00.0", "0008:00:00.0",
            "0009:00:00.0", "000a:00:00.0", "000b:00:00.0", "000c:00:00.0"]
H200_IB_BUS = ["0101:00:00.0", "0102:00:00.0", "0103:00:00.0", "0104:00:00.0",
               "0105:00:00.0", "0106:00:00.0", "0107:00:00.0", "0108:00:00.0"]
H200_AR_SMALL = {1024: 24.1, 8192: 25.0, 65536: 28.2}
H200_AR_BIG = {1 << 20: 52.96, 16 << 20: 240.41, 256 << 20: 432.24, 1 << 30: 467.58, 4 << 30: 477.41,
               8 << 30: 479.98}


def h200_azure_host(env=None, gpu_status="ok", gpu_reason=None, with_gpus=True):
    pcis, gpus, nics, hcas = [], [], [lo()], []
    nics.append(nic("eth0", ipv4=["10.0.0.5/24"], ipv6=[], mtu=1500, speed=80000, mac="60:45:bd:a2:11:05",
                    default_route=True, driver="hv_netvsc", numa=0, ifindex=2))
    nics.append(nic("enP30832s1", mtu=1500, speed=80000, mac="60:45:bd:a2:11:05", master="eth0",
                    driver="mlx5_core", bus_id="7870:00:02.0", numa=0, ifindex=3))
    pcis.append(pci("7870:00:02.0", "nic", "0x15b3", "0x101a", "0x0200", "Mellanox Technologies",
                    "MT28800 Family [ConnectX-5 Ex Virtual Function]", 0, None, None, os_devices=["enP30832s1",
                                                                                                   "mlx5_an0"],
                    link=None))
    hcas.append(hca("mlx5_an0", "0x6245bdfffea21105", "16.30.1004", "MSF0010110035", "7870:00:02.0", 0, "enP30832s1",
                    [roce_port("enP30832s1", "10.0.0.5/24", "6245:bdff:fea2:1105", rate=40, lanes=4, mtu=1024)]))
    for i, bus in enumerate(H200_BUS):
        numa = 0 if i < 4 else 1
        pcis.append(pci(bus, "gpu", "0x10de", "0x2335", "0x0302", "NVIDIA Corporation", "GH100 [H200 SXM 141GB]",
                        numa, 5, 16, os_devices=["cuda%d" % i, "nvml%d" % i] if with_gpus else []))
        if with_gpus:
            gpus.append(gpu(i, "NVIDIA H200", bus, numa, "GPU-e0c1%04d-5d6f-4a3b-9c8d-1e2f3a4b5c6d" % i,
                            150754820096, "9.0", 5, 16, nvlinks=18, nvl_version=4))
    for i, bus in enumerate(H200_IB_BUS):
        numa = 0 if i < 4 else 1
        pcis.append(pci(bus, "hca", "0x15b3", "0x101e", "0x0207", "Mellanox Technologies",
                        "ConnectX Family mlx5Gen Virtual Function", numa, 5, 16,
                        os_devices=["mlx5_ib%d" % i, "ib%d" % i]))
        hcas.append(hca("mlx5_ib%d" % i, "0x00155dfffe34%04x" % (0x0a00 + i), "28.39.1002", "MT_0000000838", bus,
                        numa, "ib%d" % i,
                        [ib_port("0015:5dff:fe34:%04x" % (0x0a00 + i), lid=0x2a0 + i, netdev="ib%d" % i)]))
        nics.append(nic("ib%d" % i, "ipoib", [], state="up", mtu=2044,
                        speed=400000, driver="mlx5_core", bus_id=bus, numa=numa, ifindex=4 + i, link_type="ipoib"))
    paths = {"source": "hwloc+nvml", "gpus": list(H200_BUS) if with_gpus else [], "nets": [],
             "gpu_gpu": matrix(8, lambda i, j: "X" if i == j else "NV18") if with_gpus else None, "gpu_net": None,
             "p2p_level": "PXB" if with_gpus else None, "p2p_level_source": "default" if with_gpus else None,
             "nccl_p2p": matrix(8, lambda i, j: None if i == j else True) if with_gpus else None,
             "cuda_p2p": matrix(8, lambda i, j: None if i == j else True) if with_gpus else None,
             "nvml_p2p": matrix(8, lambda i, j: None if i == j else "ok") if with_gpus else None}
    mem = 1979120929587
    e = {"NCCL_IB_PCI_RELAXED_ORDERING": "1", "NCCL_SOCKET_IFNAME": "eth0",
         "NCCL_TOPO_FILE": "/opt/microsoft/ndv5-topo.xml", "NCCL_IB_HCA": "mlx5_ib",
         "UCX_TLS": "rc", "UCX_IB_PCI_RELAXED_ORDERING": "on", "UCX_NET_DEVICES": "mlx5_ib0:1"}
    if env:
        e.update(env)
    e = {k: v for k, v in e.items() if v is not None}
    return host("nd-h200-v5-0005", "2d7f1c3a9b4e4c60a8d5e2f1b0c9a7e3",
                system("Ubuntu 22.04.5 LTS", "5.15.0-1073-azure", 96, mem, shm=mem // 2, iommu="off",
                       iommu_evidence="no IOMMU groups in /sys/kernel/iommu_groups", peermem=True, dev_ib=True,
                       fm="running" if with_gpus else None),
                versions("550.127.05" if with_gpus else None, 12040 if with_gpus else None, "2.23.4",
                         libibverbs="1.14.50.0"),
                numa2("0-47", "48-95", mem), pcis, gpus, nics, hcas, e, paths=paths,
                gpu_status=gpu_status, gpu_reason=gpu_reason)


def h200_doc(**kw):
    h = h200_azure_host(**kw)
    n = h["hostname"]
    probes = copy_probes(n, [52.0, 52.1, 51.9, 52.0, 52.2, 51.8, 52.0, 52.1],
                         [52.0, 51.9, 52.1, 52.0, 51.8, 52.1, 52.0, 51.9])
    for i in range(8):
        for j in range(8):
            if i != j:
                probes.append(probe("p2p.bw", n, [bw_sample(256 << 20, 335.5 + ((i + 2 * j) % 5) * 0.4, iters=10)],
                                    device=i, peer=j, nranks=1))
    probes += nccl_probes(n, 8, H200_AR_SMALL, H200_AR_BIG, init_us=455000.0)
    return document([h], probes)


# DGX H100 (NVIDIA DGX H100 User Guide, network ports): eight single-port ConnectX-7 compute ports
# mlx5_0,3,4,5,6,9,10,11 (ibp*), two dual-port ConnectX-7 for storage/in-band mlx5_1,2,7,8, here all
# InfiniBand NDR and cabled; DGX OS 6 (Ubuntu 22.04). Base OS settings from DGX's nccl.conf equivalents:
# NCCL_IB_HCA names the compute ports (what DGX SuperPOD deployments set).
DGX_COMPUTE = [0, 3, 4, 5, 6, 9, 10, 11]
DGX_STORAGE = [1, 2, 7, 8]
DGX_HCA_BUS = ["0000:18:00.0", "0000:29:00.0", "0000:29:00.1", "0000:40:00.0", "0000:4f:00.0",
               "0000:5e:00.0", "0000:9a:00.0", "0000:aa:00.0", "0000:aa:00.2", "0000:c0:00.0",
               "0000:ce:00.0", "0000:dc:00.0"]
DGX_GPU_BUS = ["0000:1b:00.0", "0000:43:00.0", "0000:52:00.0", "0000:61:00.0",
               "0000:9d:00.0", "0000:c3:00.0", "0000:d1:00.0", "0000:df:00.0"]


def dgx_h100_host():
    pcis, gpus, nics, hcas = [], [], [lo()], []
    nics.append(nic("enp170s0f1np1", ipv4=["10.150.12.31/24"], mtu=1500, speed=100000, mac="94:6d:ae:5a:10:31",
                    default_route=True, driver="mlx5_core", bus_id="0000:aa:00.1", numa=1, ifindex=2))
    nics.append(nic("eno3", ipv4=[], state="down", admin_up=False, mtu=1500, mac="7c:c2:55:90:a1:03", driver="igb",
                    numa=0, ifindex=3))
    for i, bus in enumerate(DGX_GPU_BUS):
        numa = 0 if i < 4 else 1
        pcis.append(pci(bus, "gpu", "0x10de", "0x2330", "0x0302", "NVIDIA Corporation", "GH100 [H100 SXM5 80GB]",
                        numa, 5, 16, os_devices=["cuda%d" % i, "nvml%d" % i]))
        gpus.append(gpu(i, "NVIDIA H100 80GB HBM3", bus, numa, "GPU-b7d2%04d-90a1-4f3e-8c2d-6e5f4a3b2c1d" % i,
                        85520809984, "9.0", 5, 16, nvlinks=18, nvl_version=4))
    for k in range(12):
        name = "mlx5_%d" % k
        bus = DGX_HCA_BUS[k]
        numa = 0 if k < 6 else 1
        dev = "ibp%ds0" % int(bus.split(":")[1], 16) if k in DGX_COMPUTE else \
            "ibp%ds0f%d" % (int(bus.split(":")[1], 16), int(bus[-1]))
        pcis.append(pci(bus, "hca", "0x15b3", "0x1021", "0x0207", "Mellanox Technologies",
                        "MT2910 Family [ConnectX-7]", numa, 5, 16, os_devices=[name, dev]))
        hcas.append(hca(name, "0x946dae0300%02x%04x" % (0x5a, k), "28.39.1002",
                        "MT_0000000838" if k in DGX_COMPUTE else "MT_0000000849", bus, numa, dev,
                        [ib_port("946d:ae03:005a:%04x" % k, lid=0x1a0 + k, netdev=dev)]))
        nics.append(nic(dev, "ipoib", ["10.%d.12.31/24" % (110 + k)], mtu=4092, speed=400000, driver="mlx5_core",
                        bus_id=bus, numa=numa, ifindex=4 + k, link_type="ipoib"))
    pcis.append(pci("0000:aa:00.1", "nic", "0x15b3", "0x1021", "0x0200", "Mellanox Technologies",
                    "MT2910 Family [ConnectX-7]", 1, 5, 16, os_devices=["enp170s0f1np1"]))
    mem = 2164173824000
    paths = {"source": "hwloc+nvml", "gpus": list(DGX_GPU_BUS), "nets": [],
             "gpu_gpu": matrix(8, lambda i, j: "X" if i == j else "NV18"), "gpu_net": None,
             "p2p_level": "PXB", "p2p_level_source": "default",
             "nccl_p2p": matrix(8, lambda i, j: None if i == j else True),
             "cuda_p2p": matrix(8, lambda i, j: None if i == j else True),
             "nvml_p2p": matrix(8, lambda i, j: None if i == j else "ok")}
    env = {"NCCL_IB_HCA": "=" + ",".join("mlx5_%d:1" % k for k in DGX_COMPUTE), "NCCL_SOCKET_IFNAME": "enp170s0f1np1",
           "OMPI_MCA_btl_tcp_if_include": "enp170s0f1np1", "UCX_NET_DEVICES": ",".join("mlx5_%d:1" % k for k in DGX_COMPUTE)}
    return host("dgx-h100-031", "a1c3e5f7092b4d6f8a0c2e4f6b8d0f12",
                system("Ubuntu 22.04.3 LTS", "5.15.0-1042-nvidia", 224, mem, shm=mem // 2, peermem=True, dev_ib=True,
                       fm="running"),
                versions("535.129.03", 12020, "2.19.3", libibverbs="1.14.46.0"),
                numa2("0-55,112-167", "56-111,168-223", mem), pcis, gpus, nics, hcas, env, paths=paths)


def dgx_doc():
    h = dgx_h100_host()
    n = h["hostname"]
    probes = copy_probes(n, [54.9, 55.1, 54.8, 55.0, 55.2, 54.9, 55.0, 55.1], [54.6, 54.8, 54.5, 54.7, 54.9, 54.6, 54.8, 54.7])
    # nccl-tests all_reduce on one DGX H100 node in the dgx-06/dgx-07 style, 8 GPUs: 8 B to 16 GiB
    probes += nccl_probes(n, 8, {8: 19.1, 1024: 19.6, 8192: 21.0, 65536: 25.9},
                          {1 << 20: 58.8, 16 << 20: 236.4, 256 << 20: 428.0, 1 << 30: 460.2, 4 << 30: 472.1,
                           16 << 30: 477.3}, init_us=398000.0)
    return document([h], probes)


# Two CPU nodes with HDR InfiniBand under mpirun (MVAPICH/OSU published HDR figures: osu_latency about
# 1.1 us, osu_bw about 24.5 GB/s on ConnectX-6 HDR 200).


def cpu_hdr_host(name, hid, last, memlock_unlimited=True, memlock_bytes=None, container="none", evidence=None):
    nics = [lo(), nic("eno1", ipv4=["10.30.1.%d/24" % last], mtu=1500, speed=25000, mac="b0:26:28:77:01:%02x" % last,
                      default_route=True, driver="bnxt_en", bus_id="0000:c3:00.0", numa=1, ifindex=2),
            nic("eno2", state="down", admin_up=False, mtu=1500, mac="b0:26:28:77:02:%02x" % last, driver="bnxt_en",
                bus_id="0000:c3:00.1", numa=1, ifindex=3),
            nic("ib0", "ipoib", ["10.31.1.%d/24" % last], mtu=2044, speed=200000, driver="mlx5_core",
                bus_id="0000:41:00.0", numa=0, ifindex=4, link_type="ipoib")]
    extra = [pci("0000:41:00.0", "hca", "0x15b3", "0x101b", "0x0207", "Mellanox Technologies",
                 "MT28908 Family [ConnectX-6]", 0, 4, 16, os_devices=["mlx5_0", "ib0"])]
    h = cpu_host(name, hid, nics=nics, extra_pci=extra)
    h["hcas"] = [hca("mlx5_0", "0xb8cef60300%02x1c44" % last, "20.38.1002", "MT_0000000223", "0000:41:00.0", 0, "ib0",
                     [ib_port("b8ce:f603:00%02x:1c44" % last, rate=200, lid=0x40 + last, netdev="ib0")])]
    h["system"].update({"dev_infiniband": True, "memlock_unlimited": memlock_unlimited, "memlock_bytes": memlock_bytes,
                        "container": container, "container_evidence": evidence})
    h["env"] = {"OMPI_MCA_pml": "ucx", "OMPI_MCA_btl": "^vader,tcp,openib,uct", "UCX_NET_DEVICES": "mlx5_0:1",
                "OMPI_MCA_orte_num_nodes": "2", "OMPI_MCA_plm": "slurm"}
    return h


def cpu_hdr_doc(same_identity=False, **kw):
    hs = [cpu_hdr_host("cn-0412", "7b3e1d9f2c4a4b6e8d0f1a2b3c4d5e6f", 12, **kw),
          cpu_hdr_host("cn-0413", "4a8c2e0f6b1d4f3a9c7e5b2d0f8a6c41", 13, **kw)]
    if same_identity:
        for h in hs:
            h["hostname"] = "rocky9-base"
            h["host_id"] = "0b1e6f5e8d2c4c1aa6f3d9e0c7b2a514"
    probes = []
    for r, h in enumerate(hs):
        probes += gpu_skips(h["hostname"], LIBCUDA, rank=r)
    probes += mpi_probes(hs[0]["hostname"], hs[1]["hostname"], lat_us=1.12, bw=24.4, ar_us=2.9, tcp_gbs=2.74,
                         lat_max=11.0)
    return document(hs, probes, ranks=ranks_of(hs), reach=reach_all(hs), launcher="srun", launcher_ranks=2,
                    duration=14.2)


# OCI BM.GPU.H100.8 as oracle-quickstart/oci-gpu-quickstarts nvidia/H100/README-H100.md describes it:
# 8x H100, 16 RoCE ports of 200 Gb/s (8 dual-port ConnectX-7), a 100 Gb/s front end (ens300np0 on mlx5_2
# in OCI's naming is the front end; here the 16 RDMA ports are mlx5_0,1,3..17 skipping the front end's
# mlx5_2), run in a Kubernetes pod with host networking, /dev/infiniband and the RDMA shared device plugin.
OCI_RDMA = [k for k in range(18) if k not in (2, 11)]


def oci_h100_host():
    pcis, gpus, nics, hcas = [], [], [lo()], []
    nics.append(nic("ens300np0", ipv4=["10.0.12.87/20"], mtu=9000, speed=100000, mac="a0:88:c2:1f:30:87",
                    default_route=True, driver="mlx5_core", bus_id="0000:1f:00.0", numa=0, ifindex=2))
    pcis.append(pci("0000:1f:00.0", "nic", "0x15b3", "0x101d", "0x0200", "Mellanox Technologies",
                    "MT2892 Family [ConnectX-6 Dx]", 0, 4, 16, os_devices=["ens300np0", "mlx5_2"]))
    hcas.append(hca("mlx5_2", "0xa088c20300871f30", "22.39.1002", "MT_0000000359", "0000:1f:00.0", 0, "ens300np0",
                    [roce_port("ens300np0", "10.0.12.87/20", "a288:c2ff:fe1f:3087", rate=100, mtu=4096)]))
    for i in range(8):
        bus = "0000:%02x:00.0" % (0x0f + i * 0x10)
        numa = 0 if i < 4 else 1
        pcis.append(pci(bus, "gpu", "0x10de", "0x2330", "0x0302", "NVIDIA Corporation", "GH100 [H100 SXM5 80GB]",
                        numa, 5, 16, os_devices=["cuda%d" % i, "nvml%d" % i]))
        gpus.append(gpu(i, "NVIDIA H100 80GB HBM3", bus, numa, "GPU-0c1d%04d-2e3f-4a5b-8c9d-0e1f2a3b4c5d" % i,
                        85520809984, "9.0", 5, 16, nvlinks=18, nvl_version=4))
    for n, k in enumerate(OCI_RDMA):
        bus = "0000:%02x:00.%d" % (0x0c + (n // 2) * 0x10, n % 2)
        numa = 0 if n < 8 else 1
        dev = "rdma%d" % n
        ip = "192.168.%d.87/22" % (n * 4)
        pcis.append(pci(bus, "hca", "0x15b3", "0x1021", "0x0207", "Mellanox Technologies",
                        "MT2910 Family [ConnectX-7]", numa, 5, 16, os_devices=["mlx5_%d" % k, dev]))
        hcas.append(hca("mlx5_%d" % k, "0xa088c20300%02x8700" % n, "28.39.1002", "ORC0000000007", bus, numa, dev,
                        [roce_port(dev, ip, "a288:c2ff:fe%02x:8700" % n, rate=200)]))
        nics.append(nic(dev, ipv4=[ip], mtu=4220, speed=200000, mac="a0:88:c2:%02x:87:00" % n, driver="mlx5_core",
                        bus_id=bus, numa=numa, ifindex=3 + n))
    mem = 2164173824000
    paths = {"source": "hwloc+nvml", "gpus": [g["bus_id"] for g in gpus], "nets": [],
             "gpu_gpu": matrix(8, lambda i, j: "X" if i == j else "NV18"), "gpu_net": None,
             "p2p_level": "PXB", "p2p_level_source": "default",
             "nccl_p2p": matrix(8, lambda i, j: None if i == j else True),
             "cuda_p2p": matrix(8, lambda i, j: None if i == j else True),
             "nvml_p2p": matrix(8, lambda i, j: None if i == j else "ok")}
    env = {"NCCL_IB_HCA": "=" + ",".join("mlx5_%d" % k for k in OCI_RDMA), "NCCL_IB_GID_INDEX": "3",
           "NCCL_IB_TC": "41", "NCCL_IB_SL": "0", "NCCL_IB_QPS_PER_CONNECTION": "4",
           "NCCL_SOCKET_IFNAME": "ens300np0", "NCCL_IB_TIMEOUT": "22", "UCX_NET_DEVICES": "ens300np0",
           "UCX_TLS": "tcp", "OMPI_MCA_coll_hcoll_enable": "0"}
    return host("nccl-tests-h100-worker-0", "f0e1d2c3b4a5467889a0b1c2d3e4f506",
                system("Ubuntu 22.04.4 LTS", "5.15.0-1055-oracle", 224, mem, shm=mem // 2, container="kubernetes",
                       evidence="/var/run/secrets/kubernetes.io exists; cgroup kubepods", peermem=True, dev_ib=True,
                       fm="running"),
                versions("550.90.07", 12040, "2.22.3"),
                numa2("0-55,112-167", "56-111,168-223", mem), pcis, gpus, nics, hcas, env, paths=paths)


def oci_doc():
    h = oci_h100_host()
    n = h["hostname"]
    probes = copy_probes(n, [55.3, 55.5, 55.2, 55.4, 55.3, 55.6, 55.1, 55.4], [55.0, 55.2, 54.9, 55.1, 55.2, 55.0, 55.1, 54.9])
    probes += nccl_probes(n, 8, H100_AR_SMALL, H100_AR_BIG, init_us=431000.0)
    return document([h], probes)


# ---------------------------------------------------------------- broken cases


def gpu_index(h, i):
    return [g for g in h["gpus"] if g["index"] == i][0]


def drop_gpu(doc, idx):
    h = doc["hosts"][0]
    bus = gpu_index(h, idx)["bus_id"]
    h["gpus"] = [g for g in h["gpus"] if g["index"] != idx]
    for k, g in enumerate(h["gpus"]):
        g["index"] = k
    h["pci_devices"] = [p for p in h["pci_devices"] if p["bus_id"] != bus]
    keep = [i for i, b in enumerate(h["paths"]["gpus"]) if b != bus]
    pth = h["paths"]
    pth["gpus"] = [pth["gpus"][i] for i in keep]
    for k in ("gpu_gpu", "nccl_p2p", "cuda_p2p", "nvml_p2p"):
        pth[k] = [[pth[k][i][j] for j in keep] for i in keep]
    pth["gpu_net"] = [pth["gpu_net"][i] for i in keep]
    n = len(h["gpus"])
    remap = {old: new for new, old in enumerate(keep)}
    probes = []
    for p in doc["probes"]:
        if p["device"] is not None and p["device"] not in remap:
            continue
        if p["peer"] is not None and p["name"].startswith("p2p.") and p["peer"] not in remap:
            continue
        if p["device"] is not None:
            p["device"] = remap[p["device"]]
        if p["peer"] is not None and p["name"].startswith("p2p."):
            p["peer"] = remap[p["peer"]]
        if p["name"].startswith("nccl."):
            p["nranks"] = n
            for s in p["results"]:
                if s["busbw_gbyte_s"] is not None and s["algbw_gbyte_s"] is not None:
                    s["busbw_gbyte_s"] = round(s["algbw_gbyte_s"] * ar_factor(n), 4)
        probes.append(p)
    doc["probes"] = probes


def set_copy(doc, name, dev, gbs, host=None):
    for p in doc["probes"]:
        if p["name"] == name and p["device"] == dev and (host is None or p["host"] == host):
            p["results"] = [bw_sample(1 << 20, gbs * 0.62), bw_sample(16 << 20, gbs * 0.97), bw_sample(256 << 20, gbs)]


def set_p2p(doc, i, j, gbs):
    for p in doc["probes"]:
        if p["name"] == "p2p.bw" and p["device"] == i and p["peer"] == j:
            p["results"] = [bw_sample(256 << 20, gbs, iters=10)]


def set_ar_big(doc, table, n=8):
    for p in doc["probes"]:
        if p["name"] == "nccl.all_reduce":
            small = [s for s in p["results"] if s["bytes"] < (1 << 20)]
            f = ar_factor(n)
            p["results"] = small + [bw_sample(b, bb / f, f, (0.995, 1.008), iters=20 if b < (1 << 30) else 5)
                                    for b, bb in sorted(table.items())]


def hca_by(h, name):
    return [c for c in h["hcas"] if c["name"] == name][0]


def nic_by(h, name):
    return [n for n in h["nics"] if n["name"] == name][0]


def pci_by(h, bus):
    return [p for p in h["pci_devices"] if p["bus_id"] == bus][0]


CASES = {}


def case(name):
    def deco(f):
        CASES[name] = f
        return f
    return deco


# --- healthy (tune)
case("healthy-cpu-only")(cpu_doc)
case("healthy-workstation-1gpu")(workstation_doc)
case("healthy-h100-ib")(h100_doc)
case("healthy-a100-roce")(a100_doc)
case("healthy-l40s-pcie")(l40s_doc)
case("healthy-two-hosts-mpi")(two_h100_doc)

# --- healthy (holdout)
case("holdout-healthy-h200-azure")(h200_doc)
case("holdout-healthy-dgx-h100")(dgx_doc)
case("holdout-healthy-cpu-hdr-mpi")(cpu_hdr_doc)
case("holdout-healthy-oci-h100-k8s")(oci_doc)


@case("holdout-healthy-a100-roce-nccl218")
def _():
    # NCCL 2.18 does not pick the RoCE v2 GID itself: the site pins NCCL_IB_GID_INDEX=3, which is right
    return a100_doc(hostname="a100-r07n02", host_id="5e2a9c7b1d3f4e6a8b0c2d4e6f8a0b1c", nccl="2.18.3",
                    env={"NCCL_IB_GID_INDEX": "3", "NCCL_IB_TC": "106", "OMPI_MCA_pml": "ucx"})


# --- broken (tune)
@case("broken-driver-missing")
def _():
    d = h100_doc()
    h = d["hosts"][0]
    h["gpus"] = []
    h["status"]["gpu"], h["reason"]["gpu"] = "skipped", LIBCUDA
    h["paths"] = empty_paths()
    h["versions"].update({"driver": None, "cuda_driver": None})
    h["system"].update({"fabric_manager": None, "peermem": False})
    for p in h["pci_devices"]:
        if p["kind"] == "gpu":
            p["os_devices"] = []
    d["probes"] = gpu_skips(h["hostname"], LIBCUDA) + [
        skipped(n, h["hostname"], "needs a GPU: " + LIBCUDA) for n in ("p2p.bw", "p2p.latency", "nccl.all_reduce")]
    return d


@case("broken-gpu-missing")
def _():
    d = h100_doc()
    drop_gpu(d, 6)
    return d


@case("broken-nvlink-down")
def _():
    d = h100_doc()
    for l in gpu_index(d["hosts"][0], 3)["nvlinks"]:
        if l["link"] in (4, 11):
            l["up"] = False
    return d


@case("broken-gpu-pcie-x8")
def _():
    d = h100_doc()
    h = d["hosts"][0]
    g = gpu_index(h, 5)
    g["pcie"].update({"width": 8, "link_gbyte_s": 31.5})
    pci_by(h, g["bus_id"]).update({"pcie": {"gen": 5, "width": 8, "max_gen": 5, "max_width": 16}, "link_gbyte_s": 31.5})
    set_copy(d, "copy.h2d", 5, 27.1)
    set_copy(d, "copy.d2h", 5, 26.9)
    return d


@case("broken-hca-pcie-x8")
def _():
    d = h100_doc()
    p = pci_by(d["hosts"][0], H100_HCA_BUS[6])
    p["pcie"]["width"] = 8
    p["link_gbyte_s"] = 31.5
    return d


@case("broken-acs-redirect")
def _():
    return l40s_doc(acs_redirect=True)


@case("broken-ib-port-down")
def _():
    d = h100_doc()
    h = d["hosts"][0]
    c = hca_by(h, "mlx5_3")
    c["ports"] = [ib_port("a088:c203:00e1:0703", state="down", netdev="ib3")]
    nic_by(h, "ib3").update({"state": "lowerlayerdown", "speed_mbit_s": None})
    return d


@case("broken-ib-half-rate")
def _():
    d = h100_doc()
    h = d["hosts"][0]
    c = hca_by(h, "mlx5_5")
    c["ports"] = [ib_port("a088:c203:00e1:0705", rate=200, lanes=2, lid=c["ports"][0]["lid"], netdev="ib5")]
    nic_by(h, "ib5")["speed_mbit_s"] = 200000
    return d


@case("broken-roce-no-v2-gid")
def _():
    d = a100_doc()
    h = d["hosts"][0]
    c = hca_by(h, "mlx5_4")
    dev = c["netdev"]
    c["ports"] = [roce_port(dev, nic_by(h, dev)["ipv4"][0], "0e42:a1ff:fe34:0441", v2=False)]
    return d


@case("broken-mtu-mismatch")
def _():
    d = a100_doc()
    h = d["hosts"][0]
    c = hca_by(h, "mlx5_6")
    nic_by(h, c["netdev"])["mtu"] = 1500
    c["ports"][0]["mtu_bytes"] = 1024
    return d


@case("broken-docker-shm-64m")
def _():
    d = h100_doc()
    h = d["hosts"][0]
    h["system"].update({"container": "docker", "container_evidence": "/.dockerenv exists", "shm_bytes": 64 << 20,
                        "nofile_soft": 1048576})
    h["topology_source"] = "live"
    return d


@case("broken-memlock-64k")
def _():
    d = h100_doc()
    d["hosts"][0]["system"].update({"memlock_unlimited": False, "memlock_bytes": 65536})
    return d


@case("broken-slow-rank")
def _():
    return two_h100_doc(late_rank=1)


@case("broken-wrong-socket-ifname")
def _():
    d = two_h100_doc()
    for h in d["hosts"]:
        h["env"]["NCCL_SOCKET_IFNAME"] = "eth2"
        h["env"] = dict(sorted(h["env"].items()))
    return d


@case("broken-duplicate-hostnames")
def _():
    d = two_h100_doc()
    for h in d["hosts"]:
        h["hostname"] = "gpu-node07"
    d["hosts"][1]["host_id"] = d["hosts"][0]["host_id"]
    for k in d["ranks"]:
        k["host"] = "gpu-node07"
    for p in d["probes"]:
        p["host"] = "gpu-node07"
    for x in d["reach"]:
        x["from"] = x["to"] = "gpu-node07"
    return d


@case("broken-nccl-version-skew")
def _():
    d = two_h100_doc()
    d["hosts"][1]["versions"]["nccl"] = "2.18.3"
    return d


@case("broken-slow-allreduce")
def _():
    d = h100_doc()
    set_ar_big(d, {1 << 20: 58.4, 16 << 20: 201.3, 256 << 20: 288.6, 1 << 30: 297.2, 4 << 30: 300.1, 16 << 30: 301.4})
    return d


@case("broken-copy-40pct")
def _():
    d = h100_doc()
    set_copy(d, "copy.h2d", 2, 25.2)
    return d


@case("broken-nccl-timeout")
def _():
    d = h100_doc()
    for p in d["probes"]:
        if p["name"] == "nccl.all_reduce":
            keep = [s for s in p["results"] if s["bytes"] <= (16 << 20)]
            p.update({"status": "timeout", "phase": "collective", "results": keep,
                      "reason": "no completion within --probe-timeout 30 s at 268435456 bytes: the communicator "
                                "was aborted" if p["variant"] == "out_of_place" else
                                "aborted after a timeout in nccl.all_reduce out_of_place"})
    return d


@case("broken-probe-error")
def _():
    d = l40s_doc()
    for p in d["probes"]:
        if p["name"] == "copy.d2h" and p["device"] == 1:
            p.update({"status": "error", "phase": "copy", "results": p["results"][:1],
                      "reason": "cuMemcpyDtoHAsync: CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access "
                                "was encountered"})
    return d


@case("broken-iommu-translating")
def _():
    return l40s_doc(iommu="on")


@case("broken-nccl-p2p-disabled")
def _():
    d = h100_doc()
    h = d["hosts"][0]
    h["env"]["NCCL_P2P_DISABLE"] = "1"
    h["env"] = dict(sorted(h["env"].items()))
    h["paths"]["nccl_p2p"] = matrix(8, lambda i, j: None if i == j else False)
    h["paths"]["p2p_level_source"] = "NCCL_P2P_DISABLE=1"
    return d


@case("broken-p2p-pair-slow")
def _():
    d = h100_doc()
    set_p2p(d, 2, 6, 148.2)
    return d


@case("broken-no-interface-up")
def _():
    d = cpu_doc()
    h = d["hosts"][0]
    nic_by(h, "eno1").update({"state": "down", "speed_mbit_s": None, "default_route": False})
    return d


@case("broken-up-without-address")
def _():
    d = cpu_doc()
    h = d["hosts"][0]
    nic_by(h, "eno1").update({"ipv4": [], "ipv6": ["fe80::b226:28ff:fe4c:a12/64"], "default_route": False})
    return d


@case("broken-hca-missing")
def _():
    d = h100_doc()
    h = d["hosts"][0]
    h["hcas"] = [c for c in h["hcas"] if c["name"] != "mlx5_7"]
    h["nics"] = [n for n in h["nics"] if n["name"] != "ib7"]
    h["pci_devices"] = [p for p in h["pci_devices"] if p["bus_id"] != H100_HCA_BUS[7]]
    h["paths"]["nets"] = [n for n in h["paths"]["nets"] if n != "mlx5_7"]
    h["paths"]["gpu_net"] = [row[:7] + row[8:] for row in h["paths"]["gpu_net"]]
    return d


@case("broken-nccl-missing-required")
def _():
    d = h100_doc()
    h = d["hosts"][0]
    h["versions"]["nccl"] = None
    why = "needs NCCL: libnccl.so.2: cannot open shared object file: No such file or directory"
    d["probes"] = [p for p in d["probes"] if not p["name"].startswith("nccl.")] + [skipped("nccl.all_reduce", h["hostname"], why)]
    return d


@case("broken-docker0-unpinned")
def _():
    with open(os.path.join(HERE, "..", "docs", "netns-two-hosts.json")) as f:
        d = json.load(f)
    for h in d["hosts"]:
        for k in ("OMPI_MCA_btl_tcp_if_include", "OMPI_MCA_oob_tcp_if_include"):
            h["env"].pop(k, None)
    d["findings"], d["advice"], d["rules"], d["score"] = [], [], None, None
    # the recording predates three keys of schema 1; the loader reads them absent as null
    d["run"].setdefault("stopped_by", None)
    d["run"].setdefault("stopped_phase", None)
    for h in d["hosts"]:
        h["versions"].setdefault("nccl_net_plugin", None)
    d["probes"] = [dict(p, variant=p.get("variant")) for p in d["probes"]]
    return d


@case("broken-env-renamed")
def _():
    d = h100_doc()
    h = d["hosts"][0]
    h["env"]["NCCL_ASYNC_ERROR_HANDLING"] = "1"
    h["env"] = dict(sorted(h["env"].items()))
    return d


@case("healthy-a100-roce-site-hca")
def _():
    # the front end is a RoCE port too (ConnectX-6 Dx, 100 GbE, MTU 1500, the default route, as OCI's
    # and many on-premises RoCE clusters have it), so neither its link layer nor a separate Ethernet
    # NIC tells it from the eight 200 GbE rails; the site's NCCL_IB_HCA and UCX_NET_DEVICES name the
    # rails, and that is the evidence that it is not one
    env = {"NCCL_IB_HCA": "=" + ",".join("mlx5_%d" % i for i in range(8)), "NCCL_IB_GID_INDEX": "3",
           "NCCL_SOCKET_IFNAME": "ens8f0np0", "OMPI_MCA_pml": "ucx",
           "UCX_NET_DEVICES": ",".join("mlx5_%d:1" % i for i in range(8))}
    d = a100_doc(env=env)
    h = d["hosts"][0]
    eth0 = nic_by(h, "eth0")
    h["nics"] = [n for n in h["nics"] if n["name"] != "eth0"]
    fe = nic("ens8f0np0", ipv4=["172.16.8.41/22"], mtu=1500, speed=100000, mac="b8:ce:f6:5e:10:41",
             default_route=True, driver="mlx5_core", bus_id=eth0["bus_id"], numa=1, ifindex=2)
    h["nics"].insert(1, fe)
    for c in h["pci_devices"]:
        if c["bus_id"] == eth0["bus_id"]:
            c.update({"kind": "hca", "vendor_id": "0x15b3", "device_id": "0x101d", "vendor": "Mellanox Technologies",
                      "device": "MT2892 Family [ConnectX-6 Dx]", "os_devices": ["mlx5_8", "ens8f0np0"]})
    h["hcas"].append(hca("mlx5_8", "0xb8cef603005e1041", "22.39.1002", "MT_0000000359", eth0["bus_id"], 1,
                         "ens8f0np0", [roce_port("ens8f0np0", "172.16.8.41/22", "bace:f6ff:fe5e:1041", rate=100,
                                                 lanes=4, mtu=1024)]))
    h["paths"]["nets"][-1] = "mlx5_8"
    h["env"] = dict(sorted(h["env"].items()))
    return d


@case("broken-ib-hca-other-names")
def _():
    # NCCL_IB_HCA copied from an Azure VM (mlx5_ib*) onto a bare-metal node whose ports are mlx5_0..7:
    # it selects none of them, and NCCL falls back to sockets
    d = h100_doc()
    h = d["hosts"][0]
    h["env"]["NCCL_IB_HCA"] = "mlx5_ib0,mlx5_ib1,mlx5_ib2,mlx5_ib3,mlx5_ib4,mlx5_ib5,mlx5_ib6,mlx5_ib7"
    h["env"] = dict(sorted(h["env"].items()))
    return d


@case("broken-gpu-memory-outlier")
def _():
    d = a100_doc()
    set_copy(d, "copy.d2d", 6, 1184.0)
    return d


# --- broken (holdout)
@case("holdout-broken-driver-mismatch")
def _():
    h = h200_azure_host(gpu_status="error", with_gpus=False,
                        gpu_reason="cuInit: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803): system has unsupported display "
                                   "driver / cuda driver combination; nvmlInit: Driver/library version mismatch")
    why = "needs a GPU: " + h["reason"]["gpu"]
    probes = [skipped(n, h["hostname"], why) for n in ("copy.h2d", "copy.d2h", "copy.d2d", "p2p.bw", "nccl.all_reduce")]
    return document([h], probes)


@case("holdout-broken-mixed-gpus")
def _():
    # a second card added from another box: an RTX 3090 beside the RTX 6000 Ada
    d = workstation_doc()
    h = d["hosts"][0]
    h["pci_devices"].append(pci("0000:41:00.0", "gpu", "0x10de", "0x2204", "0x0300", "NVIDIA Corporation",
                                "GA102 [GeForce RTX 3090]", 0, 4, 16, os_devices=["cuda1", "nvml1"]))
    h["gpus"].append(gpu(1, "NVIDIA GeForce RTX 3090", "0000:41:00.0", 0, "GPU-6f7e8d9c-0b1a-4c2d-9e3f-4a5b6c7d8e9f",
                         25769803776, "8.6", 4, 16))
    d["probes"] = copy_probes("ws-ml-23", [26.2, 25.9], [26.4, 26.1])
    return d


@case("holdout-broken-nvlinks-missing")
def _():
    d = a100_doc(hostname="a100-r07n09", host_id="9c1e3a5b7d9f4b2d8e6a4c2e0f9b7d51")
    g = gpu_index(d["hosts"][0], 4)
    g["nvlinks"] = g["nvlinks"][:10]
    return d


@case("holdout-broken-p2p-below-floor")
def _():
    d = h200_doc()
    for j in range(8):
        if j != 5:
            set_p2p(d, 5, j, 318.4)
    return d


@case("holdout-broken-bond-port-slow")
def _():
    slaves = [nic("ens2f0np0", mtu=9000, speed=100000, mac="b8:3f:d2:10:aa:01", master="bond0", driver="mlx5_core",
                  bus_id="0000:17:00.0", numa=0, ifindex=5),
              nic("ens2f1np1", mtu=9000, speed=25000, mac="b8:3f:d2:10:aa:01", master="bond0", driver="mlx5_core",
                  bus_id="0000:17:00.1", numa=0, ifindex=6),
              nic("bond0", "bond", ["10.41.0.15/24"], mtu=9000, speed=125000, mac="b8:3f:d2:10:aa:01", ifindex=7,
                  link_type="bond")]
    return l40s_doc(nics_extra=slaves)


@case("holdout-broken-launcher-mismatch")
def _():
    h = cpu_hdr_host("cn-0412", "7b3e1d9f2c4a4b6e8d0f1a2b3c4d5e6f", 12)
    probes = gpu_skips(h["hostname"], LIBCUDA) + [
        skipped(n, h["hostname"], "needs two or more ranks: run under mpirun or srun")
        for n in ("tcp.reach", "mpi.latency", "mpi.bw", "mpi.allreduce")]
    return document([h], probes, launcher="srun", launcher_ranks=2, duration=1.7)


@case("holdout-broken-rank-silent")
def _():
    d = cpu_hdr_doc()
    d["hosts"] = d["hosts"][:1]
    d["ranks"][1].update({"answered": False, "host_index": None,
                          "error": "no answer to the gather within the deadline (120 s)"})
    d["probes"] = [p for p in d["probes"] if p["rank"] != 1 and p["name"] not in ("mpi.latency", "mpi.bw",
                                                                                   "mpi.allreduce", "tcp.bw")]
    d["reach"] = []
    d["run"].update({"stopped_by": "timeout", "stopped_phase": "gather"})
    return d


@case("holdout-broken-memlock-container")
def _():
    return cpu_hdr_doc(memlock_unlimited=False, memlock_bytes=65536, container="docker",
                       evidence="/.dockerenv exists")


@case("holdout-broken-cloned-identity")
def _():
    return cpu_hdr_doc(same_identity=True)


@case("holdout-broken-ib-hca-typo")
def _():
    return h200_doc(env={"NCCL_IB_HCA": "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7"})


@case("holdout-broken-tcp-include-exclude")
def _():
    d = cpu_hdr_doc()
    for h in d["hosts"]:
        h["env"]["OMPI_MCA_btl_tcp_if_include"] = "eno1"
        h["env"]["OMPI_MCA_btl_tcp_if_exclude"] = "lo,docker0"
        h["env"] = dict(sorted(h["env"].items()))
    return d


@case("holdout-broken-ib-half-rate-dgx")
def _():
    d = dgx_doc()
    h = d["hosts"][0]
    c = hca_by(h, "mlx5_9")
    c["ports"] = [ib_port("946d:ae03:005a:0009", rate=200, lanes=4, lid=c["ports"][0]["lid"], netdev=c["netdev"])]
    c["ports"][0]["lane_gbit_s"] = 50.0
    nic_by(h, c["netdev"])["speed_mbit_s"] = 200000
    return d


@case("holdout-broken-env-differs")
def _():
    d = cpu_hdr_doc()
    # a debugging setting left in one node's profile: UCX on TCP there, on InfiniBand on the other
    h = d["hosts"][1]
    h["env"]["UCX_TLS"] = "tcp,self"
    h["env"] = dict(sorted(h["env"].items()))
    return d


# ================================================================ holdout2 (issue 16, a fresh holdout)
#
# Written after the first holdout part had been seen and fixed against: new machines from other
# public sources, expectations decided from what an administrator of each machine knows before
# commdiag ran on them. Never tuned on (README.md). Sources per base below and in README.md.


def gpus_nvlinked(gpus, peers_links, version=4):
    """Direct GPU-to-GPU NVLinks (bridge or all-to-all, no NVSwitch): peers_links[i] = [(peer, n), ...]."""
    for g in gpus:
        links, k = [], 0
        for peer, n in peers_links[g["index"]]:
            for _ in range(n):
                links.append({"link": k, "up": True, "version": version, "remote_bus_id": gpus[peer]["bus_id"],
                              "remote_kind": "gpu"})
                k += 1
        g["nvlinks"] = links


def p2p_probes(host, n, gbs_of):
    return [probe("p2p.bw", host, [bw_sample(256 << 20, gbs_of(i, j), iters=10)], device=i, peer=j, nranks=1)
            for i in range(n) for j in range(n) if i != j]


def nvswitch_paths(bus, nets, gpu_net, label="NV18"):
    n = len(bus)
    return {"source": "hwloc+nvml", "gpus": list(bus), "nets": nets,
            "gpu_gpu": matrix(n, lambda i, j: "X" if i == j else label),
            "gpu_net": gpu_net, "p2p_level": "PXB", "p2p_level_source": "default",
            "nccl_p2p": matrix(n, lambda i, j: None if i == j else True),
            "cuda_p2p": matrix(n, lambda i, j: None if i == j else True),
            "nvml_p2p": matrix(n, lambda i, j: None if i == j else "ok")}


def set_env(h, **kv):
    for k, v in kv.items():
        if v is None:
            h["env"].pop(k, None)
        else:
            h["env"][k] = v
    h["env"] = dict(sorted(h["env"].items()))


# ---------------------------------------------------------------- AWS p5en.48xlarge (holdout2 base)
#
# 8x H200 and 16 EFA v3 devices of 200 Gb/s (3200 Gb/s), one ENA interface on network card 0 and
# EFA-only interfaces on the others, as AWS recommends for P5/P5en (AWS EC2 User Guide,
# efa-acc-inst-types "EFA configuration for P5 and P5en instances"). EFA devices are rdmap<bus>s0
# under /sys/class/infiniband, link layer "Unknown" in sysfs (linux-rdma/rdma-core#884; ibv_devinfo:
# "Unspecified", uccl-project/uccl#163), no netdev, no LID; NCCL uses them through the aws-ofi-nccl
# plugin ("NET/AWS Libfabric"), never through its IB transport. Front end enp71s0 with MTU 9001
# (AWS's in-VPC jumbo MTU); the NCCL INFO log of NVIDIA/nccl#1597 (8x H200, "Bootstrap : Using
# enp71s0", NCCL 2.23.4, FI_PROVIDER=efa, FI_EFA_USE_DEVICE_RDMA=1, FI_EFA_FORK_SAFE=1,
# NCCL_NET='AWS Libfabric'). Intra-node numbers as the other H200/H100 NVSwitch nodes: H2D/D2H of a
# Gen5 x16 link, P2P as NVIDIA/nccl#1264 (NVLink 4, unidirectional), all_reduce busbw the shape of
# Azure's ND H200 v5 results (Azure/AI-benchmarking-guide) to 8 GiB.

P5EN_GPU_BUS = ["0000:97:00.0", "0000:a8:00.0", "0000:b9:00.0", "0000:ca:00.0",
                "0000:1a:00.0", "0000:2b:00.0", "0000:3c:00.0", "0000:4d:00.0"]
P5EN_AR_SMALL = {8: 18.6, 1024: 19.3, 8192: 20.4, 65536: 25.1}
P5EN_AR_BIG = {1 << 20: 53.1, 16 << 20: 241.0, 256 << 20: 433.0, 1 << 30: 468.2, 4 << 30: 477.9, 8 << 30: 480.3}


def efa_port(gid_tail, rate=200):
    return {"port": 1, "state": "active", "phys_state": "link_up", "link_layer": "unknown", "active_width": 4,
            "lane_gbit_s": rate / 4, "rate_gbit_s": float(rate), "lid": 0, "mtu_bytes": 4096, "netdev": None,
            "roce_v2_gid_index": None, "gids": [gid(0, "fe80:0000:0000:0000:" + gid_tail, "IB/RoCE v1")]}


def p5en_host():
    pcis, gpus, nics, hcas = [], [], [lo()], []
    nics.append(nic("enp71s0", ipv4=["172.31.33.201/20"], ipv6=["fe80::4a1:b2ff:fe3c:4d5e/64"], mtu=9001, speed=None,
                    mac="06:a1:b2:3c:4d:5e", default_route=True, driver="ena", bus_id="0000:47:00.0", numa=0,
                    ifindex=2))
    nics.append(nic("docker0", "bridge", ["172.17.0.1/16"], state="down", mtu=1500, mac="02:42:8f:11:5a:07",
                    ifindex=3, link_type="bridge"))
    pcis.append(pci("0000:47:00.0", "nic", "0x1d0f", "0xec20", "0x0200", "Amazon.com, Inc.",
                    "Elastic Network Adapter (ENA)", 0, None, None, os_devices=["enp71s0"], link=None))
    for i, bus in enumerate(P5EN_GPU_BUS):
        numa = 1 if i < 4 else 0
        pcis.append(pci(bus, "gpu", "0x10de", "0x2335", "0x0302", "NVIDIA Corporation", "GH100 [H200 SXM 141GB]",
                        numa, 5, 16, os_devices=["cuda%d" % i, "nvml%d" % i]))
        gpus.append(gpu(i, "NVIDIA H200", bus, numa, "GPU-5e0f%04d-a1b2-4c3d-8e9f-0a1b2c3d4e5f" % i,
                        150754820096, "9.0", 5, 16, nvlinks=18, nvl_version=4))
    efa_names = []
    for i, gbus in enumerate(P5EN_GPU_BUS):
        numa = 1 if i < 4 else 0
        b = int(gbus.split(":")[1], 16)
        for k in (1, 2):
            bus = "0000:%02x:00.0" % (b + k)
            name = "rdmap%ds0" % (b + k)
            efa_names.append(name)
            pcis.append(pci(bus, "hca", "0x1d0f", "0xefa3", "0x0200", "Amazon.com, Inc.",
                            "Elastic Fabric Adapter (EFA)", numa, None, None, os_devices=[name], link=None))
            hcas.append(hca(name, "0x0000000000000000", "0.0.0.0", None, bus, numa, None,
                            [efa_port("04a1:b2ff:fe%02x:%02x01" % (b + k, i))]))

    def gpu_net(i, j):
        if j < 16:
            return "PIX" if j // 2 == i else "NODE" if (i < 4) == (j < 8) else "SYS"
        return "SYS" if i < 4 else "NODE"
    nets = efa_names + ["enp71s0"]
    paths = nvswitch_paths(P5EN_GPU_BUS, nets, [[gpu_net(i, j) for j in range(len(nets))] for i in range(8)])
    mem = 2199023255552
    env = {"FI_PROVIDER": "efa", "FI_EFA_USE_DEVICE_RDMA": "1", "FI_EFA_FORK_SAFE": "1", "NCCL_NET": "AWS Libfabric"}
    return host("ip-172-31-33-201", "ec2b7e1f3a9d4c6e8f0a1b2c3d4e5f60",
                system("Ubuntu 22.04.5 LTS", "6.8.0-1021-aws", 192, mem, shm=mem // 2, iommu="off",
                       iommu_evidence="no IOMMU groups in /sys/kernel/iommu_groups", peermem=True, dev_ib=True,
                       fm="running"),
                versions("550.127.08", 12040, "2.23.4", libibverbs="1.14.54.0", plugin="AWS Libfabric"),
                numa2("0-47,96-143", "48-95,144-191", mem), pcis, gpus, nics, hcas, env, paths=paths)


def p5en_doc():
    h = p5en_host()
    n = h["hostname"]
    probes = copy_probes(n, [54.8, 55.0, 54.7, 54.9, 55.1, 54.8, 54.9, 55.0], [54.5, 54.7, 54.4, 54.6, 54.8, 54.5, 54.6, 54.7])
    probes += p2p_probes(n, 8, lambda i, j: 372.4 + ((i * 5 + j * 3) % 7) * 1.3)
    probes += nccl_probes(n, 8, P5EN_AR_SMALL, P5EN_AR_BIG, init_us=521000.0)
    return document([h], probes)


# ---------------------------------------------------------------- GCP a3-highgpu-8g with GPUDirect-TCPX (holdout2)
#
# 8x H100 80GB HBM3 on NVSwitch, no RDMA at all: five gVNIC interfaces (driver gve), eth0 on the
# default VPC (MTU 1460, GCE's default) and eth1-eth4 on four GPU VPCs created with MTU 8244, each
# 200 Gb/s; GCE gives every interface a /32. NCCL runs over the GPUDirect-TCPX net plugin in a GKE
# pod with hostNetwork. Settings as GoogleCloudPlatform/container-engine-accelerators
# gpudirect-tcpx/nccl-config.yaml exports them (NCCL_SOCKET_IFNAME=eth0, NCCL_GPUDIRECTTCPX_SOCKET_IFNAME=
# eth1,eth2,eth3,eth4, NCCL_GPUDIRECTTCPX_CTRL_DEV=eth0, the TX/RX bindings, chunk sizes,
# NCCL_CROSS_NIC=0, NCCL_NET_GDR_LEVEL=PIX, NCCL_P2P_PXN_LEVEL=0, Open MPI btl tcp,self on eth0; the
# test-only NCCL_ALGO/NCCL_PROTO/NCCL_DEBUG of that script left out) and gpudirect-tcpx/nccl-test.yaml
# (hostNetwork, IPC_LOCK). The training pod mounts /dev/shm as a memory emptyDir.

A3H_GPU_BUS = ["0000:04:00.0", "0000:05:00.0", "0000:0a:00.0", "0000:0b:00.0",
               "0000:84:00.0", "0000:85:00.0", "0000:8a:00.0", "0000:8b:00.0"]
A3H_NIC_BUS = ["0000:06:00.0", "0000:0c:00.0", "0000:86:00.0", "0000:8c:00.0"]
A3H_AR_SMALL = {8: 18.2, 1024: 18.9, 8192: 20.1, 65536: 24.8}
A3H_AR_BIG = {1 << 20: 60.4, 16 << 20: 240.9, 256 << 20: 430.2, 1 << 30: 462.5, 4 << 30: 473.8, 16 << 30: 478.1}


def a3high_host():
    pcis, gpus, nics = [], [], [lo()]
    nics.append(nic("eth0", ipv4=["10.128.0.23/32"], mtu=1460, speed=200000, mac="42:01:0a:80:00:17",
                    default_route=True, driver="gve", bus_id="0000:00:04.0", numa=0, ifindex=2))
    pcis.append(pci("0000:00:04.0", "nic", "0x1ae0", "0x0042", "0x0200", "Google, Inc.",
                    "Compute Engine Virtual Ethernet [gVNIC]", 0, None, None, os_devices=["eth0"], link=None))
    for k, bus in enumerate(A3H_NIC_BUS):
        dev = "eth%d" % (k + 1)
        nics.append(nic(dev, ipv4=["192.168.%d.23/32" % (k + 1)], mtu=8244, speed=200000,
                        mac="42:01:c0:a8:%02x:17" % (k + 1), driver="gve", bus_id=bus, numa=0 if k < 2 else 1,
                        ifindex=3 + k))
        pcis.append(pci(bus, "nic", "0x1ae0", "0x0042", "0x0200", "Google, Inc.",
                        "Compute Engine Virtual Ethernet [gVNIC]", 0 if k < 2 else 1, None, None,
                        os_devices=[dev], link=None))
    for i, bus in enumerate(A3H_GPU_BUS):
        numa = 0 if i < 4 else 1
        pcis.append(pci(bus, "gpu", "0x10de", "0x2330", "0x0302", "NVIDIA Corporation", "GH100 [H100 SXM5 80GB]",
                        numa, 5, 16, os_devices=["cuda%d" % i, "nvml%d" % i]))
        gpus.append(gpu(i, "NVIDIA H100 80GB HBM3", bus, numa, "GPU-a3c1%04d-6b7c-4d8e-9f0a-1b2c3d4e5f6a" % i,
                        85520809984, "9.0", 5, 16, nvlinks=18, nvl_version=4))
    nets = ["eth0", "eth1", "eth2", "eth3", "eth4"]

    def gpu_net(i, j):
        if j == 0:
            return "NODE" if i < 4 else "SYS"
        return "PXB" if (j - 1) == i // 2 else "NODE" if (i < 4) == (j < 3) else "SYS"
    paths = nvswitch_paths(A3H_GPU_BUS, [], None)
    paths["nets"] = nets
    paths["gpu_net"] = [[gpu_net(i, j) for j in range(5)] for i in range(8)]
    mem = 1979120929587
    env = {"NCCL_SOCKET_IFNAME": "eth0", "NCCL_DYNAMIC_CHUNK_SIZE": "524288", "NCCL_P2P_NET_CHUNKSIZE": "524288",
           "NCCL_P2P_PCI_CHUNKSIZE": "524288", "NCCL_P2P_NVL_CHUNKSIZE": "1048576",
           "NCCL_GPUDIRECTTCPX_TX_BINDINGS": "eth1:8-21,112-125;eth2:8-21,112-125;eth3:60-73,164-177;eth4:60-73,164-177",
           "NCCL_GPUDIRECTTCPX_RX_BINDINGS": "eth1:22-35,126-139;eth2:22-35,126-139;eth3:74-87,178-191;eth4:74-87,178-191",
           "NCCL_NSOCKS_PERTHREAD": "4", "NCCL_SOCKET_NTHREADS": "1", "NCCL_BUFFSIZE": "4194304",
           "NCCL_GPUDIRECTTCPX_SOCKET_IFNAME": "eth1,eth2,eth3,eth4", "NCCL_GPUDIRECTTCPX_CTRL_DEV": "eth0",
           "NCCL_GPUDIRECTTCPX_PROGRAM_FLOW_STEERING_WAIT_MICROS": "500000",
           "NCCL_GPUDIRECTTCPX_UNIX_CLIENT_PREFIX": "/tmp", "NCCL_CROSS_NIC": "0", "NCCL_NET_GDR_LEVEL": "PIX",
           "NCCL_P2P_PXN_LEVEL": "0", "OMPI_MCA_btl": "tcp,self", "OMPI_MCA_btl_tcp_if_include": "eth0"}
    return host("gke-a3-high-pool-5f8d2b1c-7xk2", "3c9e1a7f5b2d4e608a1c3e5f7b9d0a2c",
                system("Container-Optimized OS from Google", "6.1.100+", 208, mem, shm=mem // 2,
                       container="kubernetes", evidence="/var/run/secrets/kubernetes.io exists; cgroup kubepods",
                       iommu="off", iommu_evidence="no IOMMU groups in /sys/kernel/iommu_groups", peermem=False,
                       dev_ib=False, fm="running"),
                versions("550.90.07", 12040, "2.18.1", libibverbs=None, plugin="GPUDirectTCPX v3.1.9"),
                numa2("0-51,104-155", "52-103,156-207", mem), pcis, gpus, nics, [], env, paths=paths)


def a3high_doc():
    h = a3high_host()
    n = h["hostname"]
    probes = copy_probes(n, [53.6, 53.8, 53.5, 53.7, 53.9, 53.6, 53.7, 53.8], [53.2, 53.4, 53.1, 53.3, 53.5, 53.2, 53.3, 53.4])
    probes += p2p_probes(n, 8, lambda i, j: 371.8 + ((i * 3 + j * 5) % 8) * 1.1)
    probes += nccl_probes(n, 8, A3H_AR_SMALL, A3H_AR_BIG, init_us=447000.0)
    return document([h], probes)


# ---------------------------------------------------------------- GCP a3-ultragpu-8g, RoCE (holdout2 base)
#
# 8x H200 and eight ConnectX-7 400 Gb/s RoCE functions (mlx5_0..7, netdevs gpu0rdma0..gpu7rdma0 on
# the RoCE VPC, MTU 8896), two gVNIC front ends eth0/eth1 (200 Gb/s, MTU 8896), as Google's A3 Ultra
# Slurm clusters (Cluster Toolkit a3ultra blueprints) set them up; NCCL with Google's gIB net plugin and
# its set_nccl_env.sh settings (NCCL_NET=gIB, NCCL_CROSS_NIC=0, NCCL_NET_GDR_LEVEL=PIX,
# NCCL_P2P_NET_CHUNKSIZE=131072, NCCL_NVLS_CHUNKSIZE=524288, NCCL_IB_ADAPTIVE_ROUTING=1,
# NCCL_IB_QPS_PER_CONNECTION=4, NCCL_IB_TC=52, NCCL_IB_FIFO_TC=84, NCCL_TUNER_CONFIG_PATH,
# NCCL_SOCKET_IFNAME=eth0,eth1). Layout and settings from memory of Google's published
# a3-ultragpu docs (no page of them in the search corpus): see README.md. Numbers as the H200 base.

A3U_GPU_BUS = ["0000:8f:00.0", "0000:90:00.0", "0000:96:00.0", "0000:97:00.0",
               "0000:c4:00.0", "0000:c5:00.0", "0000:cb:00.0", "0000:cc:00.0"]
A3U_NIC_BUS = ["0000:91:00.0", "0000:92:00.0", "0000:98:00.0", "0000:99:00.0",
               "0000:c6:00.0", "0000:c7:00.0", "0000:cd:00.0", "0000:ce:00.0"]


def a3u_roce_ip(i):
    return "10.%d.0.9/32" % (200 + i)


def a3ultra_host(nccl="2.25.1", env=None):
    pcis, gpus, nics, hcas = [], [], [lo()], []
    for k, bus in enumerate(("0000:00:04.0", "0000:00:05.0")):
        dev = "eth%d" % k
        nics.append(nic(dev, ipv4=["10.%d.0.9/32" % (10 + k)], mtu=8896, speed=200000, mac="42:01:0a:%02x:00:09" % (10 + k),
                        default_route=k == 0, driver="gve", bus_id=bus, numa=k, ifindex=2 + k))
        pcis.append(pci(bus, "nic", "0x1ae0", "0x0042", "0x0200", "Google, Inc.",
                        "Compute Engine Virtual Ethernet [gVNIC]", k, None, None, os_devices=[dev], link=None))
    for i, bus in enumerate(A3U_GPU_BUS):
        numa = 0 if i < 4 else 1
        pcis.append(pci(bus, "gpu", "0x10de", "0x2335", "0x0302", "NVIDIA Corporation", "GH100 [H200 SXM 141GB]",
                        numa, 5, 16, os_devices=["cuda%d" % i, "nvml%d" % i]))
        gpus.append(gpu(i, "NVIDIA H200", bus, numa, "GPU-a3u0%04d-2c3d-4e5f-8a9b-0c1d2e3f4a5b" % i,
                        150754820096, "9.0", 5, 16, nvlinks=18, nvl_version=4))
    for i, bus in enumerate(A3U_NIC_BUS):
        numa = 0 if i < 4 else 1
        dev = "gpu%drdma0" % i
        ip = a3u_roce_ip(i)
        mac_tail = "0e42:a1ff:fe%02x:0009" % (0x60 + i)
        pcis.append(pci(bus, "hca", "0x15b3", "0x101e", "0x0207", "Mellanox Technologies",
                        "ConnectX Family mlx5Gen Virtual Function", numa, 5, 16, os_devices=["mlx5_%d" % i, dev]))
        hcas.append(hca("mlx5_%d" % i, "0x0c42a1fffe%02x0009" % (0x60 + i), "28.42.1000", "GOOG000000001", bus, numa,
                        dev, [roce_port(dev, ip, mac_tail, rate=400, lanes=4)]))
        nics.append(nic(dev, ipv4=[ip], mtu=8896, speed=400000, mac="0c:42:a1:%02x:00:09" % (0x60 + i),
                        driver="mlx5_core", bus_id=bus, numa=numa, ifindex=4 + i))
    nets = ["mlx5_%d" % i for i in range(8)] + ["eth0", "eth1"]

    def gpu_net(i, j):
        if j < 8:
            return "PIX" if i == j else "NODE" if (i < 4) == (j < 4) else "SYS"
        return "NODE" if (i < 4) == (j == 8) else "SYS"
    paths = nvswitch_paths(A3U_GPU_BUS, nets, [[gpu_net(i, j) for j in range(10)] for i in range(8)])
    mem = 3012336369664
    e = {"NCCL_NET": "gIB", "NCCL_CROSS_NIC": "0", "NCCL_NET_GDR_LEVEL": "PIX", "NCCL_P2P_NET_CHUNKSIZE": "131072",
         "NCCL_NVLS_CHUNKSIZE": "524288", "NCCL_IB_ADAPTIVE_ROUTING": "1", "NCCL_IB_QPS_PER_CONNECTION": "4",
         "NCCL_IB_TC": "52", "NCCL_IB_FIFO_TC": "84",
         "NCCL_TUNER_CONFIG_PATH": "/usr/local/gib/configs/tuner_config_a3u.txtpb", "NCCL_SOCKET_IFNAME": "eth0,eth1"}
    e.update(env or {})
    return host("a3ultra-a3ugpunodeset-3", "8f2a4c6e0b1d4f3a5c7e9b0d2f4a6c81",
                system("Ubuntu 22.04.5 LTS", "6.8.0-1019-gcp", 224, mem, shm=mem // 2, iommu="off",
                       iommu_evidence="no IOMMU groups in /sys/kernel/iommu_groups", peermem=True, dev_ib=True,
                       fm="running"),
                versions("550.90.07", 12040, nccl, libibverbs="1.14.50.0", plugin="gIB"),
                numa2("0-55,112-167", "56-111,168-223", mem), pcis, gpus, nics, hcas, dict(sorted(e.items())),
                paths=paths)


def a3ultra_doc(**kw):
    h = a3ultra_host(**kw)
    n = h["hostname"]
    probes = copy_probes(n, [55.1, 55.3, 55.0, 55.2, 55.4, 55.1, 55.2, 55.3], [54.8, 55.0, 54.7, 54.9, 55.1, 54.8, 54.9, 55.0])
    probes += p2p_probes(n, 8, lambda i, j: 371.2 + ((i * 7 + j) % 9) * 1.1)
    probes += nccl_probes(n, 8, P5EN_AR_SMALL, {1 << 20: 52.4, 16 << 20: 239.6, 256 << 20: 431.9, 1 << 30: 467.9,
                                                4 << 30: 477.2, 8 << 30: 479.6}, init_us=503000.0)
    return document([h], probes)


# ---------------------------------------------------------------- DGX A100 (holdout2 base)
#
# NVIDIA DGX A100 User Guide, network ports: eight single-port ConnectX-6 HDR compute ports mlx5_0..3
# and mlx5_6..9 (ibp12s0, ibp18s0, ibp75s0, ibp84s0, ibp141s0, ibp148s0, ibp186s0, ibp204s0) and two
# dual-port ConnectX-6 storage cards (mlx5_4/mlx5_5 at enp97s0f0/f1, mlx5_10/mlx5_11 at
# enp225s0f0/f1). As DGX BasePOD deployments use them (docs.nvidia.com dgx-basepod network overview):
# one port of each storage card, Ethernet, in a bond for in-band management and storage (bond0, MTU
# 9000, the default route), the other two ports not cabled. The site pins NCCL and UCX to the compute
# ports. NVLink/GPU layout NVIDIA/nccl#1505 (DGX A100 topology, A100-SXM4 at Gen4 x16, mlx5_0 HDR
# 200000). all_reduce about 230 GB/s busbw on 8 A100 (NVIDIA/nccl-tests#149, sjeaugey: "should reach
# 230 GB/s"); H2D/D2H of Gen4 x16 as nvbandwidth on A100 (26.28 GB/s, Azure ND A100 v4).

DGXA_COMPUTE = [0, 1, 2, 3, 6, 7, 8, 9]
DGXA_IBDEV = {0: "ibp12s0", 1: "ibp18s0", 2: "ibp75s0", 3: "ibp84s0", 6: "ibp141s0", 7: "ibp148s0",
              8: "ibp186s0", 9: "ibp204s0"}
DGXA_STORAGE = {4: ("0000:61:00.0", "enp97s0f0"), 5: ("0000:61:00.1", "enp97s0f1"),
                10: ("0000:e1:00.0", "enp225s0f0"), 11: ("0000:e1:00.1", "enp225s0f1")}
DGXA_GPU_BUS = ["0000:07:00.0", "0000:0f:00.0", "0000:47:00.0", "0000:4e:00.0",
                "0000:87:00.0", "0000:90:00.0", "0000:b7:00.0", "0000:bd:00.0"]
DGXA_AR_BIG = {1 << 20: 35.8, 16 << 20: 108.4, 256 << 20: 212.9, 1 << 30: 227.6, 4 << 30: 230.1, 8 << 30: 231.2}


def dgxa100_host(env=None, fm="running"):
    pcis, gpus, nics, hcas = [], [], [lo()], []
    for i, bus in enumerate(DGXA_GPU_BUS):
        numa = 0 if i < 4 else 1
        pcis.append(pci(bus, "gpu", "0x10de", "0x20b2", "0x0302", "NVIDIA Corporation", "GA100 [A100 SXM4 80GB]",
                        numa, 4, 16, os_devices=["cuda%d" % i, "nvml%d" % i]))
        gpus.append(gpu(i, "NVIDIA A100-SXM4-80GB", bus, numa, "GPU-d9a1%04d-3e4f-4a5b-9c6d-7e8f9a0b1c2d" % i,
                        85899345920, "8.0", 4, 16, nvlinks=12, nvl_version=3))
    for k in DGXA_COMPUTE:
        dev = DGXA_IBDEV[k]
        bus = "0000:%02x:00.0" % int(dev[3:-2])
        numa = 0 if k < 4 else 1
        pcis.append(pci(bus, "hca", "0x15b3", "0x101b", "0x0207", "Mellanox Technologies",
                        "MT28908 Family [ConnectX-6]", numa, 4, 16, os_devices=["mlx5_%d" % k, dev]))
        hcas.append(hca("mlx5_%d" % k, "0x1c34da0300%02x5a17" % k, "20.39.1002", "MT_0000000223", bus, numa, dev,
                        [ib_port("1c34:da03:00%02x:5a17" % k, rate=200, lid=0x200 + k, netdev=dev)]))
        nics.append(nic(dev, "ipoib", ["10.%d.4.17/24" % (100 + k)], mtu=4092, speed=200000, driver="mlx5_core",
                        bus_id=bus, numa=numa, ifindex=10 + k, link_type="ipoib"))
    for k, (bus, dev) in sorted(DGXA_STORAGE.items()):
        numa = 0 if k < 10 else 1
        used = dev.endswith("f1")
        pcis.append(pci(bus, "hca", "0x15b3", "0x101b", "0x0207", "Mellanox Technologies",
                        "MT28908 Family [ConnectX-6]", numa, 4, 16, os_devices=["mlx5_%d" % k, dev]))
        mac = "b8:ce:f6:5a:%02x:17" % k
        if used:
            port = roce_port(dev, "10.130.2.17/24", "bace:f6ff:fe5a:%02x17" % k, rate=200, lanes=4)
            for g in port["gids"][2:]:
                g["netdev"] = "bond0"
            nics.append(nic(dev, mtu=9000, speed=200000, mac="b8:ce:f6:5a:05:17", master="bond0", driver="mlx5_core",
                            bus_id=bus, numa=numa, ifindex=30 + k))
        else:
            port = {"port": 1, "state": "down", "phys_state": "disabled", "link_layer": "ethernet",
                    "active_width": None, "lane_gbit_s": None, "rate_gbit_s": None, "lid": None, "mtu_bytes": 1024,
                    "netdev": dev, "roce_v2_gid_index": None,
                    "gids": [gid(0, "fe80:0000:0000:0000:bace:f6ff:fe5a:%02x17" % k, "IB/RoCE v1", dev),
                             gid(1, "fe80:0000:0000:0000:bace:f6ff:fe5a:%02x17" % k, "RoCE v2", dev)]}
            nics.append(nic(dev, state="down", admin_up=False, mtu=1500, speed=None, mac=mac, driver="mlx5_core",
                            bus_id=bus, numa=numa, ifindex=30 + k))
        hcas.append(hca("mlx5_%d" % k, "0xb8cef60300%02x5a17" % k, "20.39.1002", "MT_0000000224", bus, numa, dev,
                        [port]))
    nics.append(nic("bond0", "bond", ["10.130.2.17/24"], mtu=9000, speed=400000, mac="b8:ce:f6:5a:05:17",
                    default_route=True, ifindex=50, link_type="bond"))
    hcas.sort(key=lambda c: int(c["name"].split("_")[1]))
    paths = nvswitch_paths(DGXA_GPU_BUS, [], None, label="NV12")
    mem = 2164173824000
    compute = ["mlx5_%d" % k for k in DGXA_COMPUTE]
    e = {"NCCL_IB_HCA": "=" + ",".join(compute), "UCX_NET_DEVICES": ",".join(c + ":1" for c in compute),
         "NCCL_SOCKET_IFNAME": "bond0", "OMPI_MCA_btl_tcp_if_include": "bond0", "OMPI_MCA_pml": "ucx"}
    e.update(env or {})
    e = {k: v for k, v in e.items() if v is not None}
    return host("dgx-a100-017", "6b1d3f5a7c9e4b20a4c6e8f0b2d4f607",
                system("Ubuntu 22.04.4 LTS", "5.15.0-1046-nvidia", 256, mem, shm=mem // 2, peermem=True, dev_ib=True,
                       fm=fm),
                versions("535.161.08", 12020, "2.21.5", libibverbs="1.14.50.0"),
                numa2("0-63,128-191", "64-127,192-255", mem), pcis, gpus, nics, hcas, dict(sorted(e.items())),
                paths=paths)


def dgxa100_doc(**kw):
    h = dgxa100_host(**kw)
    n = h["hostname"]
    probes = copy_probes(n, [26.1, 26.2, 26.0, 26.2, 26.1, 26.3, 26.1, 26.0], [25.9, 26.0, 25.8, 26.0, 25.9, 26.1, 25.9, 25.8])
    probes += nccl_probes(n, 8, {8: 25.9, 1024: 26.7, 8192: 29.4, 65536: 36.1}, DGXA_AR_BIG, init_us=402000.0)
    return document([h], probes)


# ---------------------------------------------------------------- two H100 PCIe with an NVLink bridge (holdout2)
#
# A 2U server with two NVIDIA H100 PCIe (80 GB HBM2e, Gen5 x16) joined by three NVLink bridges:
# 12 NVLink 4 links, 600 GB/s both directions (NVIDIA H100 PCIe product brief), nvidia-smi topo
# "NV12" (NVIDIA/nccl#1617 shows the same form, NV6, for four H100 linked directly). Both GPUs
# on one CPU socket; 25 GbE front end, no RDMA. P2P about 255 GB/s one way (85 % of 12 x 25 GB/s) and a 2-GPU all_reduce about
# 235 GB/s are ESTIMATES (no public nvbandwidth/nccl-tests table for a bridged H100 PCIe pair found).

H100P_BUS = ["0000:4a:00.0", "0000:61:00.0"]


def h100pcie_host():
    pcis, gpus = [], []
    nics = [lo(), nic("ens1f0np0", ipv4=["10.12.3.41/24"], mtu=1500, speed=25000, mac="b8:ce:f6:31:0c:41",
                      default_route=True, driver="mlx5_core", bus_id="0000:17:00.0", numa=0, ifindex=2),
            nic("ens1f1np1", state="down", admin_up=False, mtu=1500, mac="b8:ce:f6:31:0c:42", driver="mlx5_core",
                bus_id="0000:17:00.1", numa=0, ifindex=3),
            nic("docker0", "bridge", ["172.17.0.1/16"], state="down", mtu=1500, mac="02:42:c1:9e:20:3a", ifindex=4,
                link_type="bridge")]
    pcis.append(pci("0000:17:00.0", "nic", "0x15b3", "0x101d", "0x0200", "Mellanox Technologies",
                    "MT2892 Family [ConnectX-6 Dx]", 0, 4, 8, os_devices=["ens1f0np0"]))
    pcis.append(pci("0000:17:00.1", "nic", "0x15b3", "0x101d", "0x0200", "Mellanox Technologies",
                    "MT2892 Family [ConnectX-6 Dx]", 0, 4, 8, os_devices=["ens1f1np1"]))
    for i, bus in enumerate(H100P_BUS):
        pcis.append(pci(bus, "gpu", "0x10de", "0x2331", "0x0302", "NVIDIA Corporation", "GH100 [H100 PCIe]", 0, 5, 16,
                        os_devices=["cuda%d" % i, "nvml%d" % i]))
        gpus.append(gpu(i, "NVIDIA H100 PCIe", bus, 0, "GPU-1b0a%04d-8c7d-4e6f-a5b4-c3d2e1f0a9b8" % i, 85520809984,
                        "9.0", 5, 16))
    gpus_nvlinked(gpus, {0: [(1, 12)], 1: [(0, 12)]})
    paths = nvswitch_paths(H100P_BUS, ["ens1f0np0"], [["NODE"], ["NODE"]], label="NV12")
    mem = 1081929859072
    return host("gpu-pcie-03", "0d2f4b6a8c1e4a3b5d7f9e0c2a4b6d8f",
                system("Ubuntu 22.04.4 LTS", "5.15.0-119-generic", 64, mem, shm=mem // 2, iommu="off",
                       iommu_evidence="no IOMMU groups in /sys/kernel/iommu_groups", peermem=False, dev_ib=False,
                       fm=None),
                versions("550.90.07", 12040, "2.21.5"),
                numa2("0-31", "32-63", mem), pcis, gpus, nics, [], {}, paths=paths)


def h100pcie_doc(p2p=255.4):
    h = h100pcie_host()
    n = h["hostname"]
    probes = copy_probes(n, [53.1, 53.3], [52.8, 53.0])
    probes += p2p_probes(n, 2, lambda i, j: p2p + 0.6 * i)
    probes += nccl_probes(n, 2, {8: 9.8, 1024: 10.2, 8192: 11.1, 65536: 14.0},
                          {1 << 20: 61.5, 16 << 20: 168.3, 256 << 20: 224.8, 1 << 30: 233.1, 4 << 30: 235.6},
                          init_us=198000.0)
    return document([h], probes)


# ---------------------------------------------------------------- Isambard-AI / HPE quad GH200 (holdout2 base)
#
# An HPE Cray EX254n blade node: four GH200 superchips (aarch64, 72 Grace cores each), the four
# Hopper GPUs joined all-to-all by NVLink (6 links to each peer), four Slingshot 200 Gb/s NICs
# hsn0-hsn3 (Cassini, HPE's libfabric "cxi" provider: no verbs device, nothing in
# /sys/class/infiniband). Settings: docs.isambard.ac.uk user-documentation/guides/example-data/nccl/
# env_vars.sh (NCCL_NET="AWS Libfabric", NCCL_SOCKET_IFNAME=hsn, NCCL_NET_GDR_LEVEL=PHB,
# NCCL_CROSS_NIC=1, NCCL_MIN_NCHANNELS=4, NCCL_GDRCOPY_ENABLE=1, NCCL_NET_FORCE_FLUSH=0, FI_CXI_*).
# Host copies over NVLink-C2C: H2D 346 GB/s, D2H about 15 % lower (NVIDIA/nvbandwidth#23, GH200 CE
# copies), far above the GPU's PCIe Gen5 x16 figure. GPU P2P 6 x 25 GB/s a pair, 128 GB/s measured
# is an ESTIMATE.

GH_BUS = ["0009:01:00.0", "0019:01:00.0", "0029:01:00.0", "0039:01:00.0"]
GH_NIC_BUS = ["0008:01:00.0", "0018:01:00.0", "0028:01:00.0", "0038:01:00.0"]


def gh200_host():
    pcis, gpus, nics = [], [], [lo()]
    for k, bus in enumerate(GH_NIC_BUS):
        dev = "hsn%d" % k
        nics.append(nic(dev, ipv4=["10.253.%d.%d/16" % (k * 16 + 3, 41)], mtu=9000, speed=200000,
                        mac="02:00:00:00:%02x:29" % k, default_route=k == 0, driver="cxi_eth", bus_id=bus, numa=k,
                        ifindex=2 + k))
        pcis.append(pci(bus, "nic", "0x17db", "0x0501", "0x0200", "Cray Inc", "Cassini 1 [Slingshot 200Gb]", k, 4, 16,
                        os_devices=[dev]))
    for i, bus in enumerate(GH_BUS):
        pcis.append(pci(bus, "gpu", "0x10de", "0x2348", "0x0302", "NVIDIA Corporation", "GH100 [GH200 120GB]", i, 5, 16,
                        os_devices=["cuda%d" % i, "nvml%d" % i]))
        gpus.append(gpu(i, "NVIDIA GH200 120GB", bus, i, "GPU-6a2b%04d-1c0d-4e9f-8a7b-6c5d4e3f2a1b" % i,
                        102005473280, "9.0", 5, 16))
    gpus_nvlinked(gpus, {i: [(j, 6) for j in range(4) if j != i] for i in range(4)})
    paths = nvswitch_paths(GH_BUS, ["hsn0", "hsn1", "hsn2", "hsn3"],
                           [["NODE" if i == j else "SYS" for j in range(4)] for i in range(4)], label="NV6")
    mem = 4 * 115964116992
    env = {"NCCL_NET": "AWS Libfabric", "NCCL_SOCKET_IFNAME": "hsn", "NCCL_NET_GDR_LEVEL": "PHB",
           "NCCL_CROSS_NIC": "1", "NCCL_MIN_NCHANNELS": "4", "NCCL_GDRCOPY_ENABLE": "1", "NCCL_NET_FORCE_FLUSH": "0",
           "FI_CXI_DEFAULT_CQ_SIZE": "131072", "FI_CXI_DEFAULT_TX_SIZE": "2048",
           "FI_CXI_DISABLE_NON_INJECT_MSG_IDC": "1", "FI_HMEM_CUDA_USE_GDRCOPY": "1",
           "FI_CXI_DISABLE_HOST_REGISTER": "1", "FI_MR_CACHE_MONITOR": "userfaultfd", "FI_CXI_RDZV_PROTO": "alt_read",
           "FI_CXI_RDZV_THRESHOLD": "0", "FI_CXI_RDZV_GET_MIN": "0", "FI_CXI_RDZV_EAGER_SIZE": "0",
           "FI_CXI_RX_MATCH_MODE": "hybrid"}
    sysinfo = system("SUSE Linux Enterprise Server 15 SP5", "5.14.21-150500.55.65_13.0.73-cray_shasta_c_64k", 288, mem,
                     shm=mem // 2, iommu="passthrough", iommu_evidence="iommu.passthrough=1 on the kernel command line",
                     peermem=False, dev_ib=False, fm=None)
    sysinfo["arch"] = "aarch64"
    numa = [{"index": i, "cpus": "%d-%d" % (72 * i, 72 * i + 71), "memory_bytes": mem // 4} for i in range(4)]
    return host("nid010041", "41c3e5a7b9d14f2a6c8e0a2b4d6f8a13", sysinfo,
                versions("550.54.15", 12040, "2.24.3", libibverbs=None, plugin="AWS Libfabric"),
                numa, pcis, gpus, nics, [], dict(sorted(env.items())), paths=paths)


def gh200_doc():
    h = gh200_host()
    n = h["hostname"]
    probes = copy_probes(n, [346.1, 345.8, 346.3, 345.9], [298.4, 297.9, 298.7, 298.1])
    probes += p2p_probes(n, 4, lambda i, j: 127.6 + ((i + 2 * j) % 4) * 0.5)
    return document([h], probes, duration=12.4)


# --- healthy (holdout2)
case("holdout2-healthy-p5en-efa")(p5en_doc)
case("holdout2-healthy-a3high-tcpx")(a3high_doc)
case("holdout2-healthy-a3ultra-roce")(a3ultra_doc)
case("holdout2-healthy-dgx-a100")(dgxa100_doc)
case("holdout2-healthy-h100pcie-nvbridge")(h100pcie_doc)
case("holdout2-healthy-gh200-slingshot")(gh200_doc)


# --- broken (holdout2): one fault each on a holdout2 base
@case("holdout2-broken-p5en-efa-missing")
def _():
    # an EFA-only interface failed to attach at launch: 15 EFA devices of 16
    d = p5en_doc()
    h = d["hosts"][0]
    gone = h["hcas"][-1]
    h["hcas"] = h["hcas"][:-1]
    h["pci_devices"] = [p for p in h["pci_devices"] if p["bus_id"] != gone["bus_id"]]
    i = h["paths"]["nets"].index(gone["name"])
    h["paths"]["nets"].pop(i)
    h["paths"]["gpu_net"] = [row[:i] + row[i + 1:] for row in h["paths"]["gpu_net"]]
    return d


@case("holdout2-broken-p5en-gpu-lost")
def _():
    # Xid 79, GPU has fallen off the bus: GPU 5 still on the PCI bus, the driver lost it; the probes ran on 7
    d = p5en_doc()
    h = d["hosts"][0]
    bus = gpu_index(h, 5)["bus_id"]
    keep = copy.deepcopy(pci_by(h, bus))
    drop_gpu(d, 5)
    keep["os_devices"] = []
    h["pci_devices"].append(keep)
    return d


@case("holdout2-broken-a3high-mtu-1460")
def _():
    # the fourth GPU VPC was created with GCE's default MTU 1460 instead of 8244
    d = a3high_doc()
    nic_by(d["hosts"][0], "eth3")["mtu"] = 1460
    return d


@case("holdout2-broken-a3high-socket-ifname")
def _():
    # NCCL_SOCKET_IFNAME=ens4 copied from a general-purpose GCE image; this VM's interfaces are eth0..eth4
    d = a3high_doc()
    set_env(d["hosts"][0], NCCL_SOCKET_IFNAME="ens4")
    return d


@case("holdout2-broken-a3ultra-rail-no-ipv4")
def _():
    # gpu3rdma0 up without its IPv4 address (DHCP on the RoCE VPC failed): only link-local GIDs
    d = a3ultra_doc()
    h = d["hosts"][0]
    n = nic_by(h, "gpu3rdma0")
    n.update({"ipv4": [], "ipv6": ["fe80::e42:a1ff:fe63:9/64"]})
    p = hca_by(h, "mlx5_3")["ports"][0]
    p["gids"] = p["gids"][:2]
    p["roce_v2_gid_index"] = None
    return d


@case("holdout2-broken-a3ultra-port-200g")
def _():
    # mlx5_6 came up at 200 Gb/s (a lane pair lost on the cable) on a 400 Gb/s rail
    d = a3ultra_doc()
    h = d["hosts"][0]
    c = hca_by(h, "mlx5_6")
    c["ports"] = [roce_port("gpu6rdma0", a3u_roce_ip(6), "0e42:a1ff:fe66:0009", rate=200, lanes=2)]
    nic_by(h, "gpu6rdma0")["speed_mbit_s"] = 200000
    return d


@case("holdout2-broken-a3ultra-gid-link-local")
def _():
    # NCCL_IB_GID_INDEX=1 from a wiki page ("GID 1 is RoCE v2"): on these ports GID 1 is the link-local
    # RoCE v2 GID, not routable between the rails' subnets; NCCL 2.25 would pick GID 3 itself
    return a3ultra_doc(env={"NCCL_IB_GID_INDEX": "1"})


@case("holdout2-broken-dgxa100-fabricmanager")
def _():
    # nvidia-fabricmanager not running after a driver update: NVML lists the GPUs, CUDA cannot initialise
    d = dgxa100_doc(fm="not running")
    h = d["hosts"][0]
    why = "cuInit: CUDA_ERROR_SYSTEM_NOT_READY (802): system not yet initialized"
    for p in d["probes"]:
        p.update({"status": "error", "phase": "init", "results": [], "reason": why})
    return d


@case("holdout2-broken-dgxa100-hca-gen3")
def _():
    # compute HCA mlx5_7 trained at Gen3 x16 after a reseat (15.75 GB/s under a 25 GB/s HDR port)
    d = dgxa100_doc()
    h = d["hosts"][0]
    c = hca_by(h, "mlx5_7")
    p = pci_by(h, c["bus_id"])
    p["pcie"]["gen"] = 3
    p["link_gbyte_s"] = 15.75
    return d


@case("holdout2-broken-dgxa100-no-ib-hca")
def _():
    # the site's NCCL_IB_HCA lost in a module rewrite: NCCL would also take the storage bond's RoCE
    # ports mlx5_5 and mlx5_11 (active, Ethernet) beside the eight HDR compute ports
    return dgxa100_doc(env={"NCCL_IB_HCA": None})


@case("holdout2-broken-h100pcie-bridge-down")
def _():
    # one of the three NVLink bridges unseated: links 8-11 down on both GPUs; P2P at 8 links
    d = h100pcie_doc(p2p=170.2)
    for g in d["hosts"][0]["gpus"]:
        for l in g["nvlinks"]:
            if l["link"] >= 8:
                l["up"] = False
    return d


@case("holdout2-broken-gh200-hsn-degraded")
def _():
    # hsn3's Slingshot link degraded to 100 Gb/s (half its lanes)
    d = gh200_doc()
    nic_by(d["hosts"][0], "hsn3")["speed_mbit_s"] = 100000
    return d



def dump(v, depth=0, item=False):
    """JSON laid out for diffs: the document and each host expanded, one line per list element
    (a probe, a NIC, a PCI device, a GID table is one line), nothing deeper."""
    pad = " " * (depth + 1)
    if isinstance(v, dict) and v and (depth <= 1 or (depth == 2 and "nics" in v) or (depth == 3 and not item)):
        body = ",\n".join(pad + json.dumps(k) + ": " + dump(x, depth + 1) for k, x in v.items())
        return "{\n" + body + "\n" + " " * depth + "}"
    if isinstance(v, list) and v and depth <= 3 and any(isinstance(x, (dict, list)) for x in v):
        body = ",\n".join(pad + dump(x, depth + 1, True) for x in v)
        return "[\n" + body + "\n" + " " * depth + "]"
    return json.dumps(v, separators=(", ", ": "))


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in sorted(CASES):
        d = CASES[name]()
        with open(os.path.join(OUT, name + ".json"), "w") as f:
            f.write(dump(d) + "\n")
    print("%d documents in %s" % (len(CASES), OUT))


if __name__ == "__main__":
    main()
