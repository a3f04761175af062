"""A bubblewrap command line for one sandboxed command, and the check that bubblewrap can run here.

Inside the sandbox the host's system directories are read-only; the workspace is read-write at `WORKSPACE`;
HOME is a directory of the trial's own (empty at the start) and /tmp a fresh tmpfs; the command is pid 1's only
child in its own pid namespace, so every process it starts dies with it; it holds no capability (also when
the harness runs as root); the network is the host's or none.
Nothing else of the host is there: not the corpus, the results, the source repository, the harness's state,
other trials or the real HOME, except paths the user binds on purpose. Paths named in `hide` are covered with an
empty tmpfs when a bound directory holds them, so a corpus under /opt stays out of reach too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePosixPath

from corpus.errors import UsageError
from runner.sandbox.limits import Limits, enforcement, inside_argv
from runner.sandbox.loopback import Loopback, opener_argv, opener_dirs

WORKSPACE = "/workspace"
"""Where the workspace is inside the sandbox: one fixed path, so `{workspace}` means the same in every trial."""
TASK_DIR = "/task"
"""Where the prompt file is inside the sandbox (read-only)."""
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix")
"""Host directories bound read-only when they exist: the system, its configuration and its tools."""
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)"
NOT_ON_PATH = f"bubblewrap (bwrap) is not on PATH: {INSTALL_HINT}, or pass --sandbox none"


@dataclass(frozen=True)
class Bind:
    """A host path shown inside the sandbox."""

    source: Path
    """The host path (a file or a directory)."""
    target: str
    """Where it appears inside (absolute)."""
    writable: bool = False
    """Read-write instead of read-only."""


@dataclass(frozen=True)
class SandboxSpec:
    """Everything one sandboxed command sees of the host."""

    workspace: Path
    """The host directory shown read-write at `WORKSPACE`."""
    home: Path
    """A host directory of the trial's own, shown read-write as HOME (same path as the real HOME's name)."""
    home_target: str = "/home/agent"
    """HOME inside the sandbox."""
    binds: tuple[Bind, ...] = ()
    """Other paths: the interpreter, the case's environment, the prompt, the user's chosen credentials."""
    network: bool = True
    """Keep the host's network; False gives a private network namespace with loopback only."""
    env: Mapping[str, str] = field(default_factory=dict)
    """The whole environment of the command (the host's is cleared)."""
    hide: tuple[Path, ...] = ()
    """Host paths to cover with an empty tmpfs where a bound directory contains them."""
    cwd: str = WORKSPACE
    """The working directory inside."""
    loopback: Loopback | None = None
    """A host server's ports the command reaches at 127.0.0.1 when network is off (with it on, they are there)."""
    limits: Limits | None = None
    """Memory, processes, /tmp and file size (`runner.sandbox.limits`); None: none (/tmp as the kernel sizes it)."""

    @property
    def opens_loopback(self) -> bool:
        """True when the command runs behind the opener that brings the loopback's ports inside."""
        return self.loopback is not None and not self.network


def available() -> str | None:
    """None when bubblewrap runs here; else why not, with the way to install it."""
    return _probe(shutil.which("bwrap"))


@lru_cache(maxsize=4)
def _probe(bwrap: str | None) -> str | None:
    if bwrap is None:
        return NOT_ON_PATH
    proc = subprocess.run([bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid",
                           "--die-with-parent", "true"], capture_output=True, check=False)
    if proc.returncode != 0:
        detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = detail[-1] if detail else f"exit {proc.returncode}"
        return (f"bubblewrap cannot run here ({reason}): allow unprivileged user namespaces or {INSTALL_HINT}, "
                "or pass --sandbox none")
    return None


@lru_cache(maxsize=4)
def user_namespace(bwrap: str | None = None) -> bool:
    """Whether bubblewrap can give a sandbox a user namespace of its own here (`--unshare-user`)."""
    bwrap = bwrap or shutil.which("bwrap")
    if bwrap is None:
        return False
    proc = subprocess.run([bwrap, "--unshare-user", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                           "--unshare-pid", "--die-with-parent", "true"], capture_output=True, check=False)
    return proc.returncode == 0


def command_line(spec: SandboxSpec, argv: Sequence[str], status_fd: int | None = None,
                 loopback_fd: int | None = None, seccomp_fd: int | None = None,
                 block_fd: int | None = None) -> list[str]:
    """The bwrap command line that runs argv inside the sandbox the spec describes.

    With status_fd, bwrap writes JSON lines to that descriptor: `child-pid` once the command started inside,
    `exit-code` when it ended; no `child-pid` means the sandbox itself could not be set up. With loopback_fd
    (when spec.opens_loopback), argv runs behind the opener, which hands the loopback's sockets over on it. With
    seccomp_fd, bwrap loads the filter read from it (`runner.sandbox.seccomp`). With block_fd, bwrap sets the
    sandbox up and then waits for a byte on that descriptor before it starts argv. The sandbox has a user
    namespace of its own wherever bubblewrap can make one (its uid mapped to the caller's), and the spec's limits.
    """
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise UsageError(NOT_ON_PATH)
    # --cap-drop ALL: started by root, bwrap would keep every capability inside (remount binds writable,
    # open_by_handle_at the host's disk); no command of a trial needs one.
    args = [bwrap, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--hostname", "sandbox", "--cap-drop", "ALL"]
    if user_namespace(bwrap):  # keyrings and other per-user kernel state of its own, no capability on the host
        args.append("--unshare-user")
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    if status_fd is not None:
        args += ["--json-status-fd", str(status_fd)]
    if block_fd is not None:
        args += ["--block-fd", str(block_fd)]
    if not spec.network:
        args.append("--unshare-net")
    bound: list[str] = []
    for directory in SYSTEM_DIRS:
        if os.path.isdir(directory) and not os.path.islink(directory):
            args += ["--ro-bind", directory, directory]
            bound.append(directory)
        elif os.path.islink(directory):  # merged-/usr systems: /bin -> usr/bin
            args += ["--symlink", os.readlink(directory), directory]
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--size", str(spec.limits.tmp_size), "--tmpfs", "/tmp"] if spec.limits else ["--tmpfs", "/tmp"]
    args += ["--dir", _parent(spec.home_target), "--bind", str(spec.home), spec.home_target]
    args += ["--dir", _parent(WORKSPACE), "--bind", str(spec.workspace), WORKSPACE]
    binds = list(spec.binds)
    if spec.loopback is not None and spec.opens_loopback and loopback_fd is not None:
        argv = opener_argv(spec.loopback, loopback_fd, list(argv))
        shown = {b.target for b in spec.binds}
        binds += [Bind(Path(d), d) for d in opener_dirs()
                  if d not in shown and not any(_under(d, top) for top in SYSTEM_DIRS)]
    for bind in binds:
        if not os.path.lexists(bind.source):
            continue
        args += ["--dir", _parent(bind.target), "--bind" if bind.writable else "--ro-bind",
                 str(bind.source), bind.target]
        bound.append(bind.target)
    for hidden in spec.hide:
        inside = str(hidden)
        if any(_under(inside, top) for top in bound) and os.path.isdir(inside):
            args += ["--tmpfs", inside]
    if spec.limits is not None:
        argv = inside_argv(spec.limits, list(argv), enforcement())
    args += ["--chdir", spec.cwd, "--clearenv"]
    for name, value in sorted({**spec.env, "HOME": spec.home_target}.items()):
        args += ["--setenv", name, value]
    return [*args, "--", *argv]


def _parent(path: str) -> str:
    return str(PurePosixPath(path).parent)


def _under(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")
