"""A real local Ray cluster for tests: a head that runs nothing and one worker node with a temp dir and HOME of its
own (so nothing is shared with the driver by accident), stopped by killing exactly its own processes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

OBJECT_STORE = str(96 * 1024 * 1024)


@dataclass(frozen=True)
class Cluster:
    """A running cluster."""

    address: str
    """host:port of its head."""
    root: Path
    """Everything it writes is under this directory."""
    worker_tmp: Path
    """The worker node's TMPDIR (where its trials run)."""


def _ray_start(args: list[str], env: dict[str, str]) -> None:
    proc = subprocess.run(["ray", "start", *args], env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"ray start {' '.join(args)} failed: {(proc.stderr or proc.stdout)[-2000:]}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_cluster(root: Path, worker_cpus: int = 2, workers: int = 1) -> Cluster:
    """Start a head (no CPUs: trials never run in the driver's node) and worker nodes under root."""
    port = free_port()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_DISABLE_DOCKER_CPU_WARNING": "1"}
    head = root / "h"  # short: Ray's socket paths under it must stay within 107 bytes
    head.mkdir(parents=True)
    _ray_start(["--head", "--num-cpus", "0", "--port", str(port), "--include-dashboard=false", "--temp-dir",
                str(head), "--disable-usage-stats", "--object-store-memory", OBJECT_STORE, "--plasma-directory",
                str(head)], env)
    worker_tmp = root / "worker-tmp"
    for number in range(workers):
        tmp, home = root / f"worker-{number}-tmp", root / f"worker-{number}-home"
        tmp.mkdir()
        home.mkdir()
        _ray_start(["--address", f"127.0.0.1:{port}", "--num-cpus", str(worker_cpus), "--disable-usage-stats",
                    "--object-store-memory", OBJECT_STORE, "--plasma-directory", str(tmp)],
                   {**env, "TMPDIR": str(tmp), "HOME": str(home)})
        if number == 0:
            worker_tmp = tmp
    return Cluster(f"127.0.0.1:{port}", root, worker_tmp)


def cluster_pids(cluster: Cluster) -> list[int]:
    """The processes of the cluster (their command lines name its directory)."""
    marker = str(cluster.root).encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if marker in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def stop_cluster(cluster: Cluster) -> None:
    """Kill the cluster's own processes (never `ray stop`, which would stop every Ray cluster of the machine)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in cluster_pids(cluster):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 10
        while cluster_pids(cluster) and time.monotonic() < deadline:
            time.sleep(0.2)


def task_worker(pid: int) -> int | None:
    """The Ray worker process among pid's ancestors (its title names the task it runs: `ray::...`)."""
    while pid > 1:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return None
        if cmdline.startswith(b"ray::") or b"default_worker.py" in cmdline:
            return pid
        pid = int(next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:")))
    return None
