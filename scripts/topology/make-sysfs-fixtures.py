#!/usr/bin/env python3
"""Writes the sysfs fixtures crigate-topology's tests read (devices/system/{cpu,node} only).

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


def layout(name, packages, nodes_per_package, cores_per_node, threads, offline=(), isolated=(), far=21, near=11):
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


layout("1-socket-4-core-nosmt", 1, 1, 4, 1)
layout("2-socket-16-cpu-smt", 2, 1, 4, 2)
layout("2-socket-4-node-32-cpu-smt", 2, 2, 4, 2)
layout("1-socket-8-core-isolated-6-7", 1, 1, 8, 1, isolated=(6, 7))
layout("2-socket-16-cpu-smt-offline-3-11", 2, 1, 4, 2, offline=(3, 11))
print("fixtures written to", os.path.normpath(OUT), file=sys.stderr)
