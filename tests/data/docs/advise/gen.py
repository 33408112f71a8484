#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Crafted documents for the decision tree, one per branch. Regenerate with
#   COMMDIAG_DETERMINISTIC=1 ./commdiag check --json > /tmp/base.json
#   python3 tests/data/docs/advise/gen.py /tmp/base.json tests/data/docs/advise
# The base is any saved document; each case sets only what its branch reads.
import copy, json, sys

base = json.load(open(sys.argv[1]))
out = sys.argv[2]
H0 = base["hosts"][0]


def nic(name, kind="physical", ipv4=None, ipv6=None, dflt=False, state="up", master=None):
    return {"name": name, "ifindex": None, "kind": kind, "link_type": None, "state": state, "admin_up": True,
            "mtu": 1500, "speed_mbit_s": None, "mac": None, "master": master, "ipv4": ipv4 or [],
            "ipv6": ipv6 or [], "default_route": dflt, "driver": None, "bus_id": None, "numa": None}


def host(name, hid, nics, **kw):
    h = copy.deepcopy(H0)
    h["hostname"] = name
    h["host_id"] = hid
    h["nics"] = [nic("lo", "loopback", ["127.0.0.1/8"], state="unknown")] + nics
    h["env"] = {}
    h["hcas"] = []
    h["gpus"] = []
    h["acs"] = []
    h["system"]["container"] = "none"
    h["system"]["shm_bytes"] = 64 << 30
    h["system"]["memlock_unlimited"] = True
    h["system"]["memlock_bytes"] = None
    h["system"]["iommu"] = "off"
    for k, v in kw.items():
        h[k] = v
    return h


def doc(hosts, reach=None, findings=None):
    d = copy.deepcopy(base)
    d["hosts"] = hosts
    d["reach"] = reach or []
    d["findings"] = findings or []
    d["advice"] = []
    d["run"]["ranks"] = len(hosts)
    return d


def reach(frm, to, iface, addr, ok, err=None):
    return {"from": frm, "to": to, "iface": iface, "address": addr, "ok": ok,
            "connect_us": 80.0 if ok else None, "error": err}


def finding(i, host, subject, title, sev="fail"):
    return {"id": i, "severity": sev, "host": host, "subject": subject, "title": title,
            "measured": None, "expected": None, "unit": None, "evidence": []}


def port(n, state="active", ll="infiniband", rate=400.0, gid=None):
    return {"port": n, "state": state, "phys_state": "link_up" if state == "active" else "disabled",
            "link_layer": ll, "active_width": 4, "lane_gbit_s": rate / 4, "rate_gbit_s": rate, "lid": None,
            "mtu_bytes": 4096, "netdev": None, "roce_v2_gid_index": gid, "gids": []}


def hca(name, ports, bus=None):
    return {"name": name, "node_guid": None, "fw_ver": None, "board_id": None, "bus_id": bus, "numa": 0,
            "netdev": None, "ports": ports}


def gpu(i, bus, gen=5, width=16, mgen=5, mwidth=16, gbs=63.0, nvl=None):
    return {"index": i, "name": "NVIDIA H100", "uuid": None, "bus_id": bus, "numa": 0, "memory_bytes": None,
            "compute_capability": "9.0", "persistence": True,
            "pcie": {"gen": gen, "width": width, "max_gen": mgen, "max_width": mwidth, "link_gbyte_s": gbs},
            "nvlinks": nvl or []}


def paths(gpus, nets, gg, gn):
    return {"source": "hwloc", "gpus": gpus, "nets": nets, "gpu_gpu": gg, "gpu_net": gn, "p2p_level": None,
            "p2p_level_source": None, "nccl_p2p": None, "cuda_p2p": None, "nvml_p2p": None}


cases = {}
# the two-host network-namespace test: eth0 routed, docker0 (same address on both) never reached
a = host("node17", "a" * 32, [nic("eth0", ipv4=["10.0.0.17/24"], dflt=True),
                              nic("docker0", "bridge", ["172.17.0.1/16"])])
b = host("node18", "b" * 32, [nic("eth0", ipv4=["10.0.0.18/24"], dflt=True),
                              nic("docker0", "bridge", ["172.17.0.1/16"])])
r = [reach("node17", "node18", "eth0", "10.0.0.18", True), reach("node18", "node17", "eth0", "10.0.0.17", True),
     reach("node17", "node18", "docker0", "172.17.0.1", False, "connection refused"),
     reach("node18", "node17", "docker0", "172.17.0.1", False, "connection refused")]
cases["two-host-netns"] = doc([a, b], r, [finding("NET001", "node17", "docker0", "interface does not reach other hosts"),
                                          finding("NET001", "node18", "docker0", "interface does not reach other hosts")])
# bond0 is routed, bond0.2093 (a VLAN on it) is not: a prefix would catch both
a = host("node17", "a" * 32, [nic("bond0", "bond", ["10.1.0.17/24"], dflt=True), nic("bond0.2093", "vlan", ["10.93.0.17/24"])])
b = host("node18", "b" * 32, [nic("bond0", "bond", ["10.1.0.18/24"], dflt=True), nic("bond0.2093", "vlan", ["10.93.0.18/24"])])
r = [reach("node17", "node18", "bond0", "10.1.0.18", True), reach("node18", "node17", "bond0", "10.1.0.17", True),
     reach("node17", "node18", "bond0.2093", "10.93.0.18", False, "no route to host"),
     reach("node18", "node17", "bond0.2093", "10.93.0.17", False, "no route to host")]
cases["exact-bond-vlan"] = doc([a, b], r)
# names differ between hosts: enp1s0f0 and enp65s0f0, plus a management interface eno1 that is not routed
a = host("node17", "a" * 32, [nic("enp1s0f0", ipv4=["10.2.0.17/24"]), nic("eno1", ipv4=["192.168.1.17/24"], dflt=True)])
b = host("node18", "b" * 32, [nic("enp65s0f0", ipv4=["10.2.0.18/24"]), nic("eno1", ipv4=["192.168.1.18/24"], dflt=True)])
r = [reach("node17", "node18", "enp65s0f0", "10.2.0.18", True), reach("node18", "node17", "enp1s0f0", "10.2.0.17", True),
     reach("node17", "node18", "eno1", "192.168.1.18", False, "connection timed out after 2.0 s"),
     reach("node18", "node17", "eno1", "192.168.1.17", False, "connection timed out after 2.0 s")]
cases["names-differ"] = doc([a, b], r, [finding("HOST003", None, "interfaces", "interface names differ between hosts", "warn")])
# nothing reaches: a firewall
a = host("node17", "a" * 32, [nic("eth0", ipv4=["10.0.0.17/24"], dflt=True)])
b = host("node18", "b" * 32, [nic("eth0", ipv4=["10.0.0.18/24"], dflt=True)])
r = [reach("node17", "node18", "eth0", "10.0.0.18", False, "connection timed out after 2.0 s"),
     reach("node18", "node17", "eth0", "10.0.0.17", True)]
cases["no-route"] = doc([a, b], r)
# one host: default route eth0, docker0 and a veth also up; OMPI exclude set with a wrong NCCL_SOCKET_IFNAME
a = host("node17", "a" * 32, [nic("eth0", ipv4=["10.0.0.17/24"], dflt=True), nic("docker0", "bridge", ["172.17.0.1/16"]),
                              nic("veth12ab", "veth", ipv6=["fe80::1/64"])],
         env={"NCCL_SOCKET_IFNAME": "eth2", "OMPI_MCA_btl_tcp_if_exclude": "docker0"})
cases["single-host-iface"] = doc([a])
# duplicate identity: two containers share hostname and machine id
a = host("trainer", "c" * 32, [nic("eth0", ipv4=["10.0.0.17/24"], dflt=True)])
b = host("trainer", "c" * 32, [nic("eth0", ipv4=["10.0.0.18/24"], dflt=True)])
cases["dup-hostname"] = doc([a, b])
# versions differ
a = host("node17", "a" * 32, [nic("eth0", ipv4=["10.0.0.17/24"], dflt=True)])
b = host("node18", "b" * 32, [nic("eth0", ipv4=["10.0.0.18/24"], dflt=True)])
a["versions"]["nccl"] = "2.21.5"
b["versions"]["nccl"] = "2.18.1"
a["versions"]["driver"] = b["versions"]["driver"] = "550.54.15"
cases["versions-differ"] = doc([a, b])
# the same NCCL, different net plugins
a = host("node17", "a" * 32, [nic("eth0", ipv4=["10.0.0.17/24"], dflt=True)])
b = host("node18", "b" * 32, [nic("eth0", ipv4=["10.0.0.18/24"], dflt=True)])
a["versions"]["nccl"] = b["versions"]["nccl"] = "2.23.4"
a["versions"]["nccl_net_plugin"] = "Libfabric (v10)"
b["versions"]["nccl_net_plugin"] = "internal"
cases["plugin-differ"] = doc([a, b])
# IB: a port down, one slower, one SYS-far; NCCL_IB_DISABLE=1 set; memlock limited; no peermem
g = [gpu(0, "0000:19:00.0"), gpu(1, "0000:3b:00.0")]
ib = host("ib17", "d" * 32, [nic("eth0", ipv4=["10.0.0.17/24"], dflt=True)],
          hcas=[hca("mlx5_0", [port(1)]), hca("mlx5_1", [port(1, "down")]), hca("mlx5_2", [port(1, rate=200.0)]),
                hca("mlx5_3", [port(1)]), hca("mlx5_10", [port(1)])],
          gpus=g, env={"NCCL_IB_DISABLE": "1"},
          paths=paths(["0000:19:00.0", "0000:3b:00.0"], ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_10"],
                      [["X", "NV18"], ["NV18", "X"]],
                      [["PIX", "PXB", "PXB", "SYS", "NODE"], ["PXB", "PIX", "PXB", "SYS", "NODE"]]))
ib["system"]["memlock_unlimited"] = False
ib["system"]["memlock_bytes"] = 8 << 20
ib["system"]["peermem"] = False
cases["ib-hca"] = doc([ib])
# IB: one port of five unused: leave it out by name (^), keep every other HCA
iu = host("ibu17", "d1" * 16, [nic("eth0", ipv4=["10.0.0.17/24"], dflt=True)],
          hcas=[hca("mlx5_%d" % i, [port(1, "down" if i == 4 else "active")]) for i in range(5)])
cases["ib-unused"] = doc([iu])


# rails: two RoCE ports per host, one subnet per rail, the same on both hosts
def rail_host(name, hid, last, subnets):
    nics = [nic("eth0", ipv4=["10.0.0.%d/24" % last], dflt=True)]
    hcas = []
    for i, sn in enumerate(subnets):
        nics.append(nic("ens%d" % (i + 1), ipv4=["%s.%d/24" % (sn, last)]))
        p = port(1, ll="ethernet", rate=400.0, gid=3)
        p["netdev"] = "ens%d" % (i + 1)
        hcas.append(hca("mlx5_%d" % i, [p]))
    h = host(name, hid, nics, hcas=hcas)
    h["versions"]["nccl"] = "2.23.4"
    return h


cases["rails"] = doc([rail_host("gpu17", "a1" * 16, 17, ["10.1.0", "10.2.0"]),
                      rail_host("gpu18", "a2" * 16, 18, ["10.1.0", "10.2.0"])])
# the same ports on one shared subnet: no rails to keep to
cases["rails-shared"] = doc([rail_host("gpu17", "a1" * 16, 17, ["10.1.0", "10.1.1"]),
                             rail_host("gpu18", "a2" * 16, 18, ["10.1.0", "10.1.2"])])
for h in cases["rails-shared"]["hosts"]:
    for n in h["nics"]:
        if n["name"].startswith("ens"):
            n["ipv4"] = [n["ipv4"][0].replace("/24", "/16")]
# RoCE with NCCL 2.18 (set the GID) and with NCCL 2.23 and the variable set (unset it)
ro = host("roce17", "e" * 32, [nic("eth0", ipv4=["10.0.0.17/24"], dflt=True)],
          hcas=[hca("mlx5_0", [port(1, ll="ethernet", rate=200.0, gid=3)])])
ro["versions"]["nccl"] = "2.18.3"
cases["roce-old"] = doc([ro])
ro2 = copy.deepcopy(ro)
ro2["versions"]["nccl"] = "2.23.4"
ro2["env"] = {"NCCL_IB_GID_INDEX": "1"}  # a RoCE v1 GID: wrong, so unset it
cases["roce-new"] = doc([ro2])
ro3 = copy.deepcopy(ro2)
ro3["env"] = {"NCCL_IB_GID_INDEX": "3"}  # already the RoCE v2 one: nothing to change
cases["roce-new-right"] = doc([ro3])
# a container without /dev/infiniband on an RDMA host
ct = host("ctr17", "f" * 32, [nic("eth0", ipv4=["172.18.0.2/16"], dflt=True)], hcas=[hca("mlx5_0", [port(1)])])
ct["system"]["container"] = "docker"
ct["system"]["dev_infiniband"] = False
cases["container-no-devib"] = doc([ct])
# containers of two hosts on Docker's bridge network: their only interface is a veth end
cb = [host(n, c * 32, [nic("eth0", "veth", ["172.17.0.2/16"], dflt=True)]) for n, c in (("ctr17", "d"), ("ctr18", "e"))]
for h in cb:
    h["system"]["container"] = "docker"
cases["container-bridge"] = doc(cb)
# P2P: ACS redirect on two bridges, IOMMU on, 4 GPUs
p2 = host("p2p17", "9" * 32, [nic("eth0", ipv4=["10.0.0.17/24"], dflt=True)],
          gpus=[gpu(i, b) for i, b in enumerate(["0000:41:00.0", "0000:61:00.0"])],
          acs=[{"bus_id": "0000:40:01.1", "redirect": True, "ctrl": "0x001d", "reason": None},
               {"bus_id": "0000:60:01.1", "redirect": True, "ctrl": "0x001d", "reason": None},
               {"bus_id": "0000:00:01.0", "redirect": False, "ctrl": "0x0000", "reason": None}])
p2["system"]["iommu"] = "on"
p2["system"]["iommu_evidence"] = "DMA translation in /sys/kernel/iommu_groups/*/type"
cases["p2p-acs-iommu"] = doc([p2])
# a container with 64 MiB /dev/shm and 4 GPUs
sh = host("shm17", "8" * 32, [nic("eth0", ipv4=["172.17.0.2/16"], dflt=True)],
          gpus=[gpu(i, "0000:%02x:00.0" % (0x19 + i)) for i in range(4)])
sh["system"]["container"] = "docker"
sh["system"]["shm_bytes"] = 64 << 20
cases["small-shm"] = doc([sh])
# NVSwitch system with the fabric manager stopped
nv = host("hgx17", "7" * 32, [nic("eth0", ipv4=["10.0.0.17/24"], dflt=True)],
          gpus=[gpu(i, "0000:%02x:00.0" % (0x19 + i), nvl=[{"link": 0, "up": True, "version": 4,
                 "remote_bus_id": "0000:05:00.0", "remote_kind": "nvswitch"}]) for i in range(2)])
nv["system"]["fabric_manager"] = "inactive"
nv["versions"]["driver"] = "550.54.15"
cases["fabric-manager"] = doc([nv])
# a GPU at x8 on an x16 slot
pc = host("pcie17", "6" * 32, [nic("eth0", ipv4=["10.0.0.17/24"], dflt=True)],
          gpus=[gpu(0, "0000:19:00.0"), gpu(1, "0000:3b:00.0", gen=5, width=8, gbs=31.5)])
cases["pcie-degraded"] = doc([pc])
# a straggler and a timed-out probe
a = host("node17", "a" * 32, [nic("eth0", ipv4=["10.0.0.17/24"], dflt=True)])
b = host("node18", "b" * 32, [nic("eth0", ipv4=["10.0.0.18/24"], dflt=True)])
cases["straggler"] = doc([a, b], None, [finding("MPI003", "node18", "rank 5", "rank is slow with every partner")])
# the facts behind MPI003 (src/rules_hosts.c re-derives it): rank 5 is slow with both its partners,
# who are fine with others
cases["straggler"]["run"]["ranks"] = 6
cases["straggler"]["ranks"] = [{"rank": k, "host": "node17" if k < 3 else "node18", "host_index": 0 if k < 3 else 1,
                                "local_rank": k % 3, "answered": True, "error": None, "env_diff": {}}
                               for k in range(6)]


def mpi_bw(rank, peer, gbs):
    t = (1 << 20) / gbs / 1e3
    return {"name": "mpi.bw", "status": "ok", "host": "node17" if rank < 3 else "node18", "device": None,
            "peer": peer, "rank": rank, "nranks": 2,
            "results": [{"bytes": 1 << 20, "iters": 20, "time_us": t, "min_time_us": t, "max_time_us": t,
                         "algbw_gbyte_s": gbs, "busbw_gbyte_s": gbs, "errors": None}]}


cases["straggler"]["probes"] = [mpi_bw(0, 5, 1.0), mpi_bw(1, 5, 1.1), mpi_bw(0, 3, 10.0), mpi_bw(1, 4, 10.0)]
# env lint: typo, deprecated, not a variable, conflict
ev = host("env17", "5" * 32, [nic("eth0", ipv4=["10.0.0.17/24"], dflt=True)],
          env={"NCCL_SOCKET_NAME": "eth0", "NCCL_MAX_RINGS": "8", "NCCL_TIMEOUT": "1800", "NCCL_P2P_DISABLE": "1",
               "NCCL_P2P_LEVEL": "NVL", "NCCL_DEBUG": "LOUD", "OMPI_MCA_btl_tcp_if_include": "eth0",
               "OMPI_MCA_btl_tcp_if_exclude": "docker0", "NCCL_IB_HCA": "mlx5_9"})
cases["env-lint"] = doc([ev])
# nothing to advise
q = host("quiet17", "4" * 32, [nic("eth0", ipv4=["10.0.0.17/24"], dflt=True)])
cases["quiet"] = doc([q])

for name, d in cases.items():
    with open("%s/%s.json" % (out, name), "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")
print(len(cases), "documents")
