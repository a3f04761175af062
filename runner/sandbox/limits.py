"""The resource limits of every sandboxed command, and how this machine enforces them.

Memory and processes are capped by a cgroup of the command's own: cgroup v2 where this process's cgroup has the
memory and pids controllers delegated and is writable, else the v1 memory and pids hierarchies where they are
writable; otherwise by rlimits set inside the sandbox (RLIMIT_DATA for memory, RLIMIT_NPROC for processes,
which binds every uid but root). Every command also gets RLIMIT_FSIZE at the workspace limit (no file larger
than the workspace may be), and its /tmp is a tmpfs of the tmp size. `enforcement` says which applied: the run
records it.
"""

from __future__ import annotations

import os
import secrets
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

from runner.settings import Settings

Mechanism = Literal["cgroup2", "cgroup1", "rlimit", "unenforced"]
"""How a limit is enforced: a cgroup (v2 or v1), an rlimit, or not at all (RLIMIT_NPROC does not bind root)."""
JOIN = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
"""The shell that moves itself into the command's cgroup, then becomes bubblewrap: nothing runs outside it."""


@dataclass(frozen=True)
class Limits:
    """What each sandboxed command may use; None: no limit."""

    memory: int | None
    """Bytes of memory of the command and every process it starts (the cgroup's, else each process's data)."""
    processes: int | None
    """Processes and threads at once (the cgroup's, else the uid's inside the sandbox)."""
    tmp_size: int
    """Bytes of the sandbox's /tmp."""
    workspace: int | None
    """Bytes of the largest file a command may write (RLIMIT_FSIZE); the trial also checks the agent's whole
    workspace against it."""
    patch: int
    """Bytes of a candidate patch; a bigger one fails its trial."""

    @staticmethod
    def of(settings: Settings) -> Limits:
        """The limits the settings give."""
        return Limits(settings.memory_limit, settings.process_limit, settings.tmp_size, settings.workspace_limit,
                      settings.patch_limit)


@dataclass(frozen=True)
class Enforcement:
    """How this machine enforces memory and process limits."""

    memory: Mechanism
    processes: Mechanism
    cgroups: tuple[Path, ...] = ()
    """The cgroup directories commands get a child of: one (v2), or the memory and pids ones (v1)."""

    def to_json(self) -> dict[str, str]:
        """What run.json records of it."""
        return {"memory": self.memory, "processes": self.processes}


@lru_cache(maxsize=1)
def enforcement() -> Enforcement:
    """How memory and process limits are enforced here (looked at once per process)."""
    v2 = _cgroup2()
    if v2 is not None:
        return Enforcement("cgroup2", "cgroup2", (v2,))
    v1 = _cgroup1()
    if v1 is not None:
        return Enforcement("cgroup1", "cgroup1", v1)
    return Enforcement("rlimit", "unenforced" if os.geteuid() == 0 else "rlimit")


def inside_argv(limits: Limits, argv: list[str], how: Enforcement) -> list[str]:
    """argv behind the rlimits the limits need inside the sandbox (set after its user namespace exists, so
    RLIMIT_NPROC counts the sandbox's processes)."""
    words = []
    if limits.memory is not None and how.memory == "rlimit":
        words += ["-d", str(max(1, limits.memory // 1024))]
    if limits.processes is not None and how.processes == "rlimit":
        words += ["-u", str(limits.processes)]
    if limits.workspace is not None:
        words += ["-f", str(max(1, limits.workspace // 1024))]
    if not words:
        return argv
    return ["bash", "-c", f'ulimit {" ".join(words)} || exit 125; exec "$@"', "hindcast-limits", *argv]


@contextmanager
def command_cgroup(limits: Limits, how: Enforcement) -> Iterator[list[str]]:
    """A cgroup of one command's own with the limits written, for as long as the command runs: the words to put
    before its argv (they move it in). Every process still in it is killed at the end, and it is removed."""
    if how.memory not in ("cgroup2", "cgroup1") or (limits.memory is None and limits.processes is None):
        yield []
        return
    name = f"hindcast-{os.getpid()}-{secrets.token_hex(4)}"
    made: list[Path] = []
    try:
        for parent in how.cgroups:
            group = parent / name
            group.mkdir()
            made.append(group)
            _write_limits(group, limits, how.memory)
        yield ["/bin/sh", "-c", JOIN, "hindcast-cgroup", *(str(g / "cgroup.procs") for g in made), "--"]
    finally:
        for group in made:
            _remove(group)


def _write_limits(group: Path, limits: Limits, version: Mechanism) -> None:
    if version == "cgroup2":
        if limits.memory is not None:
            (group / "memory.max").write_text(str(limits.memory))
            if (group / "memory.swap.max").exists():
                (group / "memory.swap.max").write_text("0")
        if limits.processes is not None:
            (group / "pids.max").write_text(str(limits.processes))
        return
    if limits.memory is not None and (group / "memory.limit_in_bytes").exists():
        (group / "memory.limit_in_bytes").write_text(str(limits.memory))
    if limits.processes is not None and (group / "pids.max").exists():
        (group / "pids.max").write_text(str(limits.processes))


REMOVAL_TIMEOUT = 2.0
"""Seconds a command's cgroup is retried for removal after its processes were killed."""
FIRST_RETRY = 0.0002
"""Seconds before the first retry; each next one waits twice as long, up to LAST_RETRY."""
LAST_RETRY = 0.02


def _remove(group: Path) -> None:
    """Kill what is left in a command's cgroup and remove it. The dead leave it asynchronously, mostly within a
    millisecond of the kill: the removal is retried after 0.2 ms, then after doubling waits (a fixed 20 ms wait
    cost a sandbox that long, about every third one)."""
    if (group / "cgroup.kill").exists():
        with suppress(OSError):
            (group / "cgroup.kill").write_text("1")
    deadline, pause = time.monotonic() + REMOVAL_TIMEOUT, FIRST_RETRY
    while True:
        try:
            for pid in (group / "cgroup.procs").read_text().split():
                with suppress(OSError):
                    os.kill(int(pid), signal.SIGKILL)
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() >= deadline:
                return
            time.sleep(pause)
            pause = min(pause * 2, LAST_RETRY)


def _mounts() -> list[tuple[str, str, str, str]]:
    """(root in the hierarchy, mount point, filesystem type, super options) of each mount."""
    found = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return []
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, rest = left.split(), right.split()
        if len(fields) >= 5 and len(rest) >= 3:
            found.append((fields[3], fields[4], rest[0], rest[2]))
    return found


def _own_cgroups() -> dict[str, str]:
    """This process's cgroup path per controller ('' for v2's unified line)."""
    found = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return {}
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(",") if parts[1] else [""]:
                found[controller] = parts[2]
    return found


def _located(path: str, root: str, mount: str) -> Path | None:
    if root != "/" and not (path == root or path.startswith(root.rstrip("/") + "/")):
        return None
    return Path(mount) / path[len(root):].lstrip("/") if root != "/" else Path(mount) / path.lstrip("/")


def _usable(directory: Path, files: tuple[str, ...]) -> bool:
    """Whether a child cgroup can be made under directory and shows the limit files."""
    probe = directory / f"hindcast-probe-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        probe.mkdir()
    except OSError:
        return False
    try:
        return all((probe / name).exists() for name in files)
    finally:
        with suppress(OSError):
            probe.rmdir()


def _cgroup2() -> Path | None:
    own = _own_cgroups().get("")
    if own is None:
        return None
    for root, mount, fstype, _ in _mounts():
        if fstype != "cgroup2":
            continue
        directory = _located(own, root, mount)
        if directory is None:
            continue
        try:
            delegated = set((directory / "cgroup.subtree_control").read_text().split())
        except OSError:
            continue
        if {"memory", "pids"} <= delegated and _usable(directory, ("memory.max", "pids.max", "cgroup.procs")):
            return directory
    return None


def _cgroup1() -> tuple[Path, Path] | None:
    own = _own_cgroups()
    found: dict[str, Path] = {}
    for root, mount, fstype, options in _mounts():
        if fstype != "cgroup":
            continue
        for controller, limit in (("memory", "memory.limit_in_bytes"), ("pids", "pids.max")):
            if controller in options.split(",") and controller in own and controller not in found:
                directory = _located(own[controller], root, mount)
                if directory is not None and _usable(directory, (limit, "cgroup.procs")):
                    found[controller] = directory
    if "memory" in found and "pids" in found:
        return found["memory"], found["pids"]
    return None
