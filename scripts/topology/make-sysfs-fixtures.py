#!/usr/bin/env python3
"""Writes the sysfs fixtures crigate-topology's tests read: devices/system/{cpu,node}, plus hybrid
core types (devices/cpu_core, devices/cpu_atom, cpu_capacity) and PCI/net/block devices with the
locality files the kernel gives them (local_cpulist, numa_node) where a layout asks for them.

Numbering follows Linux on x86: first thread of every core first, then the second threads
(cpu N and N + cores are siblings). Re-run after changing a layout; the output is checked in.
"""
import os
import shutil
import sys

OUT = os.path.join(os.path.dirname(__file__), "../../crigate-topology/src/test/resources/sysfs")


def ranges(ids):
    ids = sorted(ids)
    out, start = [], None
    for i, v in enumerate(ids):
        if start is None:
            start = v
        if i + 1 == len(ids) or ids[i + 1] != v + 1:
            out.append(str(start) if start == v else f"{start}-{v}")
            start = None
    return ",".join(out)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text + "\n")


def devices(name, by_node):
    """PCI devices as real sysfs has them (symlinks replaced by directories, so that the fixtures also
    work from a jar): a NIC with local_cpulist, a disk whose block device only says numa_node."""
    root = os.path.join(OUT, name)
    for node, cpus in by_node.items():
        pci = f"{root}/devices/pci0000:{node:02x}/0000:{node:02x}:01.0"
        write(f"{pci}/local_cpulist", ranges(cpus))
        write(f"{pci}/numa_node", str(node))
        write(f"{root}/bus/pci/devices/0000:{node:02x}:01.0/local_cpulist", ranges(cpus))
        write(f"{root}/bus/pci/devices/0000:{node:02x}:01.0/numa_node", str(node))
    # eth0 sits on the last node, nvme0n1's controller says only its node (the first one)
    last = max(by_node)
    write(f"{root}/class/net/eth0/device/local_cpulist", ranges(by_node[last]))
    write(f"{root}/class/net/eth0/device/numa_node", str(last))
    write(f"{root}/class/block/nvme0n1/device/numa_node", str(min(by_node)))


def hybrid(name):
    """One socket like a 12-core hybrid laptop part: 4 P-cores with SMT (cpus 0-7, siblings 2k and
    2k+1, as the kernel numbers them there) and 8 E-cores without (8-15); cpu_capacity says the same
    for kernels without the hybrid PMU directories."""
    root = os.path.join(OUT, name, "devices/system")
    shutil.rmtree(os.path.join(OUT, name), ignore_errors=True)
    cpus = {cpu: cpu // 2 for cpu in range(8)}
    cpus.update({cpu: cpu - 4 for cpu in range(8, 16)})  # E-cores: core ids 4-11
    write(f"{root}/cpu/possible", "0-15")
    write(f"{root}/cpu/present", "0-15")
    write(f"{root}/cpu/online", "0-15")
    write(f"{root}/cpu/offline", "")
    write(f"{root}/cpu/isolated", "")
    for cpu, core in cpus.items():
        d = f"{root}/cpu/cpu{cpu}"
        write(f"{d}/online", "1")
        write(f"{d}/cpu_capacity", "1024" if cpu < 8 else "589")
        write(f"{d}/topology/physical_package_id", "0")
        write(f"{d}/topology/die_id", "0")
        write(f"{d}/topology/core_id", str(core))
        write(f"{d}/topology/thread_siblings_list", ranges([c for c, k in cpus.items() if k == core]))
    write(f"{root}/node/online", "0")
    write(f"{root}/node/node0/distance", "10")
    write(f"{root}/node/node0/cpulist", "0-15")
    write(os.path.join(OUT, name, "devices/cpu_core/cpus"), "0-7")
    write(os.path.join(OUT, name, "devices/cpu_atom/cpus"), "8-15")


def layout(name, packages, nodes_per_package, cores_per_node, threads, offline=(), isolated=(), far=21, near=11,
           with_devices=False):
    root = os.path.join(OUT, name, "devices/system")
    shutil.rmtree(os.path.join(OUT, name), ignore_errors=True)
    cores = packages * nodes_per_package * cores_per_node
    cpus = {}
    for core in range(cores):
        node = core // cores_per_node
        pkg = node // nodes_per_package
        for t in range(threads):
            cpus[core + t * cores] = (pkg, node, core % (nodes_per_package * cores_per_node))
    online = [c for c in cpus if c not in offline]
    write(f"{root}/cpu/possible", ranges(cpus))
    write(f"{root}/cpu/present", ranges(cpus))
    write(f"{root}/cpu/online", ranges(online))
    write(f"{root}/cpu/offline", ranges(offline))
    write(f"{root}/cpu/isolated", ranges(isolated))
    for cpu, (pkg, node, core) in cpus.items():
        d = f"{root}/cpu/cpu{cpu}"
        write(f"{d}/online", "0" if cpu in offline else "1")
        if cpu in offline:
            continue  # the kernel removes topology/ of an offline CPU
        siblings = [c for c, v in cpus.items() if v == (pkg, node, core)]
        write(f"{d}/topology/physical_package_id", str(pkg))
        write(f"{d}/topology/die_id", "0")
        write(f"{d}/topology/core_id", str(core))
        write(f"{d}/topology/thread_siblings_list", ranges(siblings))
    nodes = packages * nodes_per_package
    write(f"{root}/node/online", ranges(range(nodes)))
    for n in range(nodes):
        row = []
        for m in range(nodes):
            row.append("10" if m == n else str(near if m // nodes_per_package == n // nodes_per_package else far))
        write(f"{root}/node/node{n}/distance", " ".join(row))
        write(f"{root}/node/node{n}/cpulist", ranges([c for c, v in cpus.items() if v[1] == n and c not in offline]))
    if with_devices:
        devices(name, {n: [c for c, v in cpus.items() if v[1] == n and c not in offline] for n in range(nodes)})


layout("1-socket-4-core-nosmt", 1, 1, 4, 1)
layout("2-socket-16-cpu-smt", 2, 1, 4, 2)
layout("2-socket-4-node-32-cpu-smt", 2, 2, 4, 2, with_devices=True)
layout("1-socket-8-core-isolated-6-7", 1, 1, 8, 1, isolated=(6, 7))
layout("2-socket-16-cpu-smt-offline-3-11", 2, 1, 4, 2, offline=(3, 11))
hybrid("1-socket-hybrid-4p-smt-8e")
print("fixtures written to", os.path.normpath(OUT), file=sys.stderr)
