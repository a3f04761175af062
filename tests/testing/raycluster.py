"""A real local Ray cluster for tests: a head that runs nothing and worker nodes, each with a TMPDIR and HOME of its
own (so nothing is shared with the driver by accident), everything written under one directory.

Started with Ray's own multi-node test cluster (`ray.cluster_utils.Cluster`: one raylet per node on this machine),
which lets the socket files live at short paths: under a session directory of pytest's deep temp dirs they would
pass the 107 bytes a socket path may have."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

OBJECT_STORE = 96 * 1024 * 1024


@dataclass(frozen=True)
class Cluster:
    """A running cluster."""

    address: str
    """host:port of its head."""
    root: Path
    """Everything it writes is under this directory."""
    worker_tmp: Path
    """The first worker node's TMPDIR (where its trials run)."""
    handle: Any
    """The ray.cluster_utils.Cluster."""


def start_cluster(root: Path, worker_cpus: int = 2, workers: int = 1) -> Cluster:
    """Start a head (no CPUs: no trial runs beside the driver) and worker nodes under root."""
    from ray.cluster_utils import Cluster as RayCluster

    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    os.environ["RAY_TMPDIR"] = str(root)  # where Ray notes the current cluster's address
    (root / "ray").mkdir(parents=True, exist_ok=True)
    common = {"object_store_memory": OBJECT_STORE, "plasma_directory": str(root)}
    cluster = RayCluster(initialize_head=True, head_node_args={
        "num_cpus": 0, "temp_dir": str(root / "h"), "session_name": "s", "include_dashboard": False,
        "plasma_store_socket_name": str(root / "h.p"), "raylet_socket_name": str(root / "h.r"), **common})
    first = root / "w0-tmp"
    for number in range(workers):
        tmp, home = root / f"w{number}-tmp", root / f"w{number}-home"
        tmp.mkdir()
        home.mkdir()
        cluster.add_node(num_cpus=worker_cpus, plasma_store_socket_name=str(root / f"{number}.p"),
                         raylet_socket_name=str(root / f"{number}.r"),
                         env_vars={"TMPDIR": str(tmp), "HOME": str(home)}, **common)
    cluster.wait_for_nodes()
    return Cluster(cluster.address, root, first, cluster)


def stop_cluster(cluster: Cluster) -> None:
    """Stop every process of the cluster."""
    cluster.handle.shutdown()


def task_worker(pid: int) -> int | None:
    """The Ray worker process among pid's ancestors (its title names the task it runs: `ray::...`; before the
    title is set, it runs `default_worker.py`). None when the walk reaches a raylet first: a dead worker's
    children are handed to its raylet (a subreaper), whose own command line names `default_worker.py` in its
    `--python_worker_command`; killing it would take the whole node down."""
    while pid > 1:
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return None
        if Path(args[0].decode(errors="replace")).name == "raylet":
            return None
        if args[0].startswith(b"ray::") or any(a.endswith(b"/default_worker.py") for a in args[1:3]):
            return pid
        pid = int(next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:")))
    return None
