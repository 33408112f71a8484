#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the 8x H100 SXM fixture documents of the rules/score tests.

h100-faulty.json: one HCA's PCIe link trained at x8 (mlx5_6), one IB port down
(mlx5_3/1, cable out: polling), and one GPU (gpu5) whose host-to-device copies run
at half speed on a full Gen5 x16 link. h100-clean.json: the same machine healthy.
h100-p2p.json: the healthy machine with its path matrix and a p2p.bw/p2p.latency
matrix, one pair slow (the HTML report's heatmaps).
Numbers follow nvbandwidth and nccl-tests on HGX H100: H2D about 55 GB/s of a
63 GB/s Gen5 x16 link; all_reduce busbw about 478 GB/s at 16 GiB on 8 GPUs.

Usage: make-h100-docs.py DIR   (then normalise with `commdiag report --from F --json`)
"""
import json
import sys

GPU_BUS = ["0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
           "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0"]
HCA_BUS = ["0000:19:00.0", "0000:2b:00.0", "0000:3b:00.0", "0000:5e:00.0",
           "0000:9b:00.0", "0000:ac:00.0", "0000:bb:00.0", "0000:dc:00.0"]
H2D = [55.1, 55.3, 54.9, 55.2, 55.0, 55.2, 54.8, 55.1]   # GB/s at 256 MiB


def quantiles(t, lo, hi):
    """p10, p25, p75, p90 between min (t * lo) and max (t * hi), as a healthy run's
    iterations fall: the middle half within a third of the extremes, no outlier."""
    return {"p10_time_us": round(t * (1 - (1 - lo) * 0.6), 2), "p25_time_us": round(t * (1 - (1 - lo) * 0.3), 2),
            "p75_time_us": round(t * (1 + (hi - 1) * 0.3), 2), "p90_time_us": round(t * (1 + (hi - 1) * 0.6), 2),
            "outliers": 0}


def sample(nbytes, gbyte_s, factor=1.0, spread=(0.990, 1.012), iters=20):
    t = nbytes / gbyte_s / 1e3 if gbyte_s else 0.0
    return {"bytes": nbytes, "iters": iters, "time_us": round(t, 2),
            "min_time_us": round(t * spread[0], 2), "max_time_us": round(t * spread[1], 2),
            **quantiles(t, *spread),
            "algbw_gbyte_s": round(gbyte_s, 3), "busbw_gbyte_s": round(gbyte_s * factor, 3), "errors": 0}


def lat_sample(nbytes, time_us, factor):
    algbw = nbytes / time_us / 1e3
    return {"bytes": nbytes, "iters": 1000, "time_us": time_us, "min_time_us": round(time_us * 0.97, 2),
            "max_time_us": round(time_us * 1.04, 2), **quantiles(time_us, 0.97, 1.04),
            "algbw_gbyte_s": round(algbw, 6), "busbw_gbyte_s": round(algbw * factor, 6), "errors": 0}


def doc(faulty):
    pci, gpus, nics, hcas, probes = [], [], [], [], []
    for i, bus in enumerate(GPU_BUS):
        pci.append({"bus_id": bus, "kind": "gpu", "vendor_id": "0x10de", "device_id": "0x2330",
                    "class_id": "0x0302", "vendor": "NVIDIA Corporation", "device": "GH100 [H100 SXM5 80GB]",
                    "numa": 0 if i < 4 else 1, "link_gbyte_s": 63.0,
                    "pcie": {"gen": 5, "width": 16, "max_gen": 5, "max_width": 16},
                    "os_devices": ["cuda%d" % i, "nvml%d" % i]})
        gpus.append({"index": i, "name": "NVIDIA H100 80GB HBM3", "bus_id": bus, "numa": 0 if i < 4 else 1,
                     "memory_bytes": 85520809984, "compute_capability": "9.0", "persistence": True,
                     "pcie": {"gen": 5, "width": 16, "max_gen": 5, "max_width": 16, "link_gbyte_s": 63.0},
                     "uuid": "GPU-7a3c%04d-1d2e-4f5a-8b9c-0d1e2f3a4b5c" % i,
                     "nvlinks": [{"link": l, "up": True, "version": 4, "remote_bus_id": None,
                                  "remote_kind": "nvswitch"} for l in range(18)]})
    for i, bus in enumerate(HCA_BUS):
        width = 8 if faulty and i == 6 else 16
        pci.append({"bus_id": bus, "kind": "hca", "vendor_id": "0x15b3", "device_id": "0x1021",
                    "class_id": "0x0207", "vendor": "Mellanox Technologies",
                    "device": "MT2910 Family [ConnectX-7]", "numa": 0 if i < 4 else 1,
                    "link_gbyte_s": 63.0 * width / 16,
                    "pcie": {"gen": 5, "width": width, "max_gen": 5, "max_width": 16},
                    "os_devices": ["mlx5_%d" % i, "ib%d" % i]})
        down = faulty and i == 3
        hcas.append({"name": "mlx5_%d" % i, "node_guid": "0xa088c20300e1%04x" % i, "fw_ver": "28.39.1002",
                     "board_id": "MT_0000000838", "bus_id": bus, "numa": 0 if i < 4 else 1,
                     "netdev": "ib%d" % i,
                     "ports": [{"port": 1, "state": "down" if down else "active",
                                "phys_state": "polling" if down else "link_up", "link_layer": "infiniband",
                                "active_width": None if down else 4, "lane_gbit_s": None if down else 100,
                                "rate_gbit_s": None if down else 400, "lid": None if down else 100 + i,
                                "mtu_bytes": 4096, "netdev": "ib%d" % i, "roce_v2_gid_index": None,
                                "gids": [{"index": 0, "gid": "fe80:0000:0000:0000:a088:c203:00e1:%04x" % i,
                                          "type": "IB/RoCE v1", "netdev": None, "ipv4": False}]}]})
        nics.append({"name": "ib%d" % i, "ifindex": 4 + i, "kind": "ipoib", "link_type": "ipoib",
                     "state": "lowerlayerdown" if down else "up", "admin_up": True, "mtu": 4092,
                     "speed_mbit_s": None if down else 400000, "mac": None, "master": None,
                     "ipv4": ["10.10.%d.7/16" % i], "ipv6": [], "default_route": False, "driver": "mlx5_core",
                     "bus_id": bus, "numa": 0 if i < 4 else 1})
    nics[:0] = [{"name": "lo", "ifindex": 1, "kind": "loopback", "link_type": None, "state": "unknown",
                 "admin_up": True, "mtu": 65536, "speed_mbit_s": None, "mac": "00:00:00:00:00:00",
                 "master": None, "ipv4": ["127.0.0.1/8"], "ipv6": ["::1/128"], "default_route": False,
                 "driver": None, "bus_id": None, "numa": None},
                {"name": "eth0", "ifindex": 2, "kind": "physical", "link_type": None, "state": "up",
                 "admin_up": True, "mtu": 1500, "speed_mbit_s": 1000, "mac": "7c:c2:55:1a:2b:3c",
                 "master": None, "ipv4": ["192.168.40.7/24"], "ipv6": [], "default_route": True,
                 "driver": "igb", "bus_id": "0000:c1:00.0", "numa": 1}]
    for i in range(8):
        gb = H2D[i] / 2 if faulty and i == 5 else H2D[i]
        probes.append({"name": "copy.h2d", "status": "ok", "reason": None, "phase": None, "host": "gpu-node07",
                       "device": i, "peer": None, "nranks": None,
                       "results": [sample(1 << 20, gb * 0.62), sample(16 << 20, gb * 0.97), sample(256 << 20, gb)]})
    probes.append({"name": "nccl.all_reduce", "status": "ok", "reason": None, "phase": None,
                   "host": "gpu-node07", "device": None, "peer": None, "nranks": 8,
                   "results": [lat_sample(8, 17.9, 1.75), sample(1 << 20, 38.6, 1.75),
                               sample(256 << 20, 232.1, 1.75, (0.993, 1.008)),
                               sample(16 << 30, 273.31, 1.75, (0.995, 1.01), iters=5)]})
    host = {"hostname": "gpu-node07", "host_id": "5f1d0c0c2b7e4a3f9d8e7c6b5a493827",
            "host_id_source": "/etc/machine-id",
            "status": {p: "ok" for p in ("system", "topo", "net", "ib", "gpu")},
            "reason": {p: None for p in ("system", "topo", "net", "ib", "gpu")},
            "system": {"kernel": "5.15.0-105-generic", "os": "Ubuntu 22.04.4 LTS", "arch": "x86_64",
                       "cpus_online": 224, "mem_total_bytes": 2164173824000, "container": "none",
                       "container_evidence": None, "shm_bytes": 1082086912000, "memlock_unlimited": True,
                       "memlock_bytes": None, "nofile_soft": 1048576, "nofile_hard": 1048576,
                       "iommu": "passthrough", "iommu_evidence": "iommu=pt on the kernel command line",
                       "peermem": True, "dev_infiniband": True, "fabric_manager": "active"},
            "versions": {"driver": "550.90.07", "cuda_driver": 12040, "nccl": "2.21.5", "hwloc": "2.9.0",
                         "libnl": "3.5.0", "libibverbs": "1.14.50.0", "cjson": "1.7.15"},
            "topology_source": "live",
            "numa_nodes": [{"index": 0, "cpus": "0-55,112-167", "memory_bytes": 1082086912000},
                           {"index": 1, "cpus": "56-111,168-223", "memory_bytes": 1082086912000}],
            "pci_devices": pci, "gpus": gpus, "nics": nics, "hcas": hcas, "env": {}}
    return {"schema": 1, "tool": {"name": "commdiag", "version": "0.1.0"},
            "run": {"started": "2026-11-21T10:00:00Z", "mode": "check", "ranks": 1, "duration_s": 41.7,
                    "timeout_s": 120},
            "hosts": [host], "probes": probes, "reach": [], "findings": [], "advice": [],
            "rules": None, "score": None}


# GPU2 -> GPU6 at 40 % of its peers: one NVLink port degraded (the P2P001 case)
P2P_SLOW = (2, 6)


def p2p_doc():
    """h100-p2p.json: the healthy machine with the path matrix and every ordered pair's
    p2p.bw and p2p.latency (nvbandwidth's device-to-device copy on HGX H100: about 370 GB/s
    per direction at 256 MiB, about 2.3 us for 8 bytes)."""
    d = doc(False)
    h = d["hosts"][0]
    n = len(GPU_BUS)
    nets = ["mlx5_%d" % i for i in range(8)] + ["eth0"]

    def gpu_net(i, j):
        if j < 8:
            return "PIX" if i == j else "NODE" if (i < 4) == (j < 4) else "SYS"
        return "NODE" if i >= 4 else "SYS"   # eth0 hangs off socket 1
    h["paths"] = {"source": "hwloc+nvml", "gpus": GPU_BUS, "nets": nets,
                  "gpu_gpu": [["X" if i == j else "NV18" for j in range(n)] for i in range(n)],
                  "gpu_net": [[gpu_net(i, j) for j in range(len(nets))] for i in range(n)],
                  "p2p_level": "PXB", "p2p_level_source": "default",
                  "nccl_p2p": [[None if i == j else True for j in range(n)] for i in range(n)],
                  "cuda_p2p": [[None if i == j else True for j in range(n)] for i in range(n)],
                  "nvml_p2p": [[None if i == j else "ok" for j in range(n)] for i in range(n)]}
    for name in ("p2p.bw", "p2p.latency"):
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                if name == "p2p.bw":
                    gb = 370.0 + ((i * 7 + j * 3) % 9) * 1.3   # 370.0 .. 380.4, stable run to run
                    if (i, j) == P2P_SLOW:
                        gb = 148.2
                    res = [sample(256 << 20, gb, iters=10)]
                else:
                    res = [lat_sample(8, round(2.25 + ((i + j) % 4) * 0.03, 2), 1.0)]
                d["probes"].append({"name": name, "status": "ok", "reason": None, "phase": None,
                                    "host": "gpu-node07", "device": i, "peer": j, "nranks": 1,
                                    "results": res})
    return d


for name, faulty in (("h100-faulty.json", True), ("h100-clean.json", False)):
    with open("%s/%s" % (sys.argv[1], name), "w") as f:
        json.dump(doc(faulty), f, indent=1)
        f.write("\n")
with open("%s/h100-p2p.json" % sys.argv[1], "w") as f:
    json.dump(p2p_doc(), f, indent=1)
    f.write("\n")
