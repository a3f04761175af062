"""How trials are put on a Ray cluster (the options of `--executor ray`), importable without Ray."""

from __future__ import annotations

from dataclasses import dataclass

EXECUTORS = ("local", "ray")
"""Where trials run: threads of this process, or tasks on a Ray cluster."""


@dataclass(frozen=True)
class RaySettings:
    """How trials are put on the cluster."""

    address: str | None = None
    """The cluster (`ray://host:10001`, `host:6379`); None: RAY_ADDRESS or the cluster started on this machine."""
    retries: int = 2
    """Times a trial lost with its worker or node is submitted again."""
    trial_cpus: float = 1.0
    """CPUs each trial reserves."""
    trial_memory: int | None = None
    """Bytes of memory each trial reserves (None: no reservation)."""
