"""Where a trial's commands run: the sandbox each of setup, agent and grader gets, or the host with --sandbox none.

Every command of a sandboxed trial sees the system read-only, its workspace read-write at `WORKSPACE`, its own
HOME and /tmp, and the tools it needs read-only at their host paths: the prefixes of the Python interpreter on
PATH (wherever they are, a pyenv version under the home directory included), the case's interpreter
environment, and PATH's directories outside the system and home directories. Nothing else of the host: not the
corpus, the results, the source repository, the harness's state, other trials or the real HOME. The user adds
read-only paths (`--agent-bind`) and copies of chosen files of the real HOME into each trial's HOME
(`--agent-home`); binds are never writable, so nothing a trial does reaches a later one.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import pwd
import shutil
import subprocess
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Literal

from corpus.errors import UsageError
from runner.sandbox.bwrap import (
    SYSTEM_DIRS,
    TASK_DIR,
    WORKSPACE,
    Bind,
    SandboxSpec,
    available,
    user_namespace,
)
from runner.sandbox.egress import EgressProxy
from runner.sandbox.hosts import AllowedHost, allowed_hosts
from runner.sandbox.limits import Limits, enforcement
from runner.sandbox.loopback import Loopback
from runner.settings import SANDBOXES, NetworkMode, SandboxKind, Settings

Phase = Literal["setup", "agent", "grader"]
"""The commands of a trial, each in a sandbox of its own."""
PHASE_HOMES: dict[Phase, str] = {"setup": "setup-home", "agent": "home", "grader": "grader-home"}
"""The HOME of each phase's sandbox, under the trial's scratch directory."""
PROMPT_FILE = f"{TASK_DIR}/prompt.md"
"""The prompt file inside the sandbox (read-only)."""
HOME_INSIDE = "/home/agent"
"""HOME inside the sandbox."""
# Variables naming per-user or temporary directories of the host, replaced or dropped inside.
HOST_ONLY = ("TMPDIR", "TMP", "TEMP", "PWD", "OLDPWD", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
             "XDG_DATA_HOME", "XDG_STATE_HOME", "DBUS_SESSION_BUS_ADDRESS", "SSH_AUTH_SOCK")
PROBE = ("import sys, json; print(json.dumps([sys.executable, sys.prefix, getattr(sys, 'base_prefix', sys.prefix), "
         "sys.exec_prefix, getattr(sys, 'base_exec_prefix', sys.exec_prefix)]))")


@dataclass(frozen=True)
class Confinement:
    """How a run confines its commands, and what the user chose to show its agents."""

    kind: SandboxKind = "bwrap"
    """bwrap (the default) or none (every command runs on the host as the user)."""
    agent_network: NetworkMode = "model"
    """model: agents reach only their model's hosts, through an egress proxy (`runner.sandbox.egress`); none:
    loopback only; host: the host's network. Graders never have it unless the case asks (grader.network); setup
    always has it."""
    allow_hosts: tuple[AllowedHost, ...] = ()
    """With model: hosts every agent may reach besides its preset's (--agent-allow-host)."""
    binds: tuple[Path, ...] = ()
    """Host paths shown read-only at the same path to setup, agent and grader (an agent CLI, a toolchain)."""
    home_copies: tuple[Path, ...] = ()
    """Files or directories of the real HOME copied into each agent's HOME at the same place (credentials)."""
    hide: tuple[Path, ...] = ()
    """Paths no sandbox may show even under a bound directory: corpus, results, source repository, scratch."""
    limits: Limits = field(default_factory=lambda: Limits.of(Settings()))
    """What each sandboxed command may use, and the candidate patch's cap (which holds unsandboxed too)."""

    @property
    def sandboxed(self) -> bool:
        """True when commands run in bubblewrap."""
        return self.kind == "bwrap"


def confine(settings: Settings, hide: Iterable[Path | str]) -> Confinement:
    """The confinement the settings choose, hiding hide, its paths made absolute and checked on this machine
    (bubblewrap, the binds, the home copies); UsageError naming the flag on bad input."""
    settings.check()
    return _checked(Confinement(settings.sandbox, settings.agent_network,
                                allowed_hosts(settings.agent_allow_hosts, "--agent-allow-host"),
                                settings.agent_binds, settings.agent_home, tuple(Path(p) for p in hide),
                                Limits.of(settings)))


def isolation(conf: Confinement) -> dict[str, object] | None:
    """What run.json records of how this machine isolates the sandboxes (None unsandboxed): a user namespace of
    each sandbox's own, the keyring filter, and how memory and processes are limited."""
    if not conf.sandboxed:
        return None
    return {"user_namespace": user_namespace(), "keyring": "seccomp", **enforcement().to_json()}


def _checked(conf: Confinement) -> Confinement:
    if conf.kind not in SANDBOXES:
        raise UsageError(f"--sandbox {conf.kind!r}: expected one of {', '.join(SANDBOXES)}")
    if conf.sandboxed and (reason := available()) is not None:
        raise UsageError(reason)
    binds = tuple(Path(os.path.abspath(p)) for p in conf.binds)
    for path in binds:
        if not path.exists():
            raise UsageError(f"--agent-bind {path}: no such file or directory")
        for hidden in conf.hide:
            if _within(path, hidden) or _within(Path(os.path.realpath(path)), Path(os.path.realpath(hidden))):
                raise UsageError(f"--agent-bind {path}: inside {hidden}, which trials must not see")
    home = Path.home()
    copies = tuple(Path(os.path.abspath(p)) for p in conf.home_copies)
    for path in copies:
        if not _within(path, home) or path == home:
            raise UsageError(f"--agent-home {path}: not a file or directory under your home directory {home}")
        if not path.exists():
            raise UsageError(f"--agent-home {path}: no such file or directory")
    return Confinement(conf.kind, conf.agent_network, conf.allow_hosts, binds, copies, conf.hide, conf.limits)


@lru_cache(maxsize=1)
def bwrap_version() -> str | None:
    """bubblewrap's version, e.g. "0.8.0"."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None
    proc = subprocess.run([bwrap, "--version"], capture_output=True, text=True, check=False)
    return proc.stdout.strip().removeprefix("bubblewrap ") or None


def hidden_paths(*paths: Path | str | None) -> tuple[str, ...]:
    """The paths as given and resolved, without empty ones and the root: what no command of a trial may see."""
    hidden = set()
    for path in paths:
        if path is None:
            continue
        hidden.add(str(path))
        hidden.add(str(Path(path).resolve()))
    return tuple(sorted(h for h in hidden if h not in ("", "/", ".")))


def harness_dirs() -> tuple[str, ...]:
    """Where Hindcast's own packages are, so no sandbox shows them even when their install is bound."""
    found = (importlib.util.find_spec(name) for name in ("authoring", "corpus", "miner", "runner"))
    return tuple(str(Path(spec.origin).parent) for spec in found if spec is not None and spec.origin)


def home_dirs() -> tuple[Path, ...]:
    """The home directories the sandbox never shows: HOME's and the user's account's."""
    homes = {Path.home()}
    with contextlib.suppress(KeyError):
        homes.add(Path(pwd.getpwuid(os.getuid()).pw_dir))
    return tuple(sorted(homes))


_TOOLS: dict[str, Tools] = {}
"""host_tools by PATH, computed once per process."""
_INTERPRETERS: dict[str, tuple[str, ...]] = {}
"""interpreter_dirs by interpreter path."""
_TOOLS_LOCK = threading.RLock()


@dataclass(frozen=True)
class Tools:
    """Host directories a trial's commands need to run, shown read-only."""

    dirs: tuple[str, ...]
    """Directories bound at their own path."""
    path_swaps: tuple[tuple[str, str], ...] = ()
    """PATH directories the sandbox does not show whose `python` is a host interpreter (pyenv's shims under the
    home directory), each with the interpreter's own directory, which takes its place on PATH inside: at the
    same place, so that a directory ahead of it (the case's environment) still comes first."""


def interpreter_dirs(python: str, env: Mapping[str, str]) -> tuple[str, ...]:
    """An interpreter's executable directory and prefixes, asked of the interpreter itself; () when it fails."""
    with _TOOLS_LOCK:
        if python not in _INTERPRETERS:
            _INTERPRETERS[python] = _interpreter_dirs(python, env)
        return _INTERPRETERS[python]


def _interpreter_dirs(python: str, env: Mapping[str, str]) -> tuple[str, ...]:
    try:
        proc = subprocess.run([python, "-E", "-s", "-c", PROBE], capture_output=True, env=dict(env), cwd="/",
                              timeout=60, check=False)
        found = json.loads(proc.stdout) if proc.returncode == 0 else []
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return ()
    dirs = [str(Path(found[0]).parent)] if found and found[0] else []
    return tuple(dict.fromkeys(d for d in [*dirs, *found[1:]] if d and os.path.isdir(d)))


def host_tools(env: Mapping[str, str]) -> Tools:
    """The tools of an environment: its PATH's Python interpreters (`python`, `python3`) and directories (see the
    module docstring)."""
    path_var = env.get("PATH", "")
    with _TOOLS_LOCK:
        if path_var not in _TOOLS:
            _TOOLS[path_var] = _host_tools(path_var, env)
        return _TOOLS[path_var]


def _host_tools(path_var: str, env: Mapping[str, str]) -> Tools:
    homes = home_dirs()
    dirs: list[str] = []
    for entry in path_var.split(os.pathsep):
        if (entry and os.path.isabs(entry) and os.path.isdir(entry) and not _visible(entry, ())
                and not any(_within(Path(entry), h) for h in homes)):
            dirs.append(entry)
    swaps: dict[str, str] = {}
    pythons = {os.path.realpath(p): p for name in ("python", "python3") if (p := shutil.which(name, path=path_var))}
    for python in pythons.values():
        found = interpreter_dirs(python, env)
        dirs.extend(found)
        if found and not _visible(os.path.dirname(python), dirs):
            swaps.setdefault(os.path.dirname(python), found[0])
    return Tools(tuple(dict.fromkeys(dirs)), tuple(swaps.items()))


def phase_sandbox(conf: Confinement, phase: Phase, scratch: Path, *, workspace: Path, env: Mapping[str, str],
                  extra: Iterable[Bind] = (), loopback: Loopback | None = None,
                  grader_network: bool = False) -> SandboxSpec | None:
    """The sandbox of one phase's command (None when the run is not sandboxed): a HOME of its own under scratch
    (the agent's holding the copies of --agent-home), the phase's network (setup always has it, the agent as
    --agent-network says, the grader only when the case asks: grader_network), the extra binds and loopback."""
    if not conf.sandboxed:
        return None
    home = scratch / PHASE_HOMES[phase]
    home.mkdir(exist_ok=True)
    if phase == "agent":
        _copy_home_files(conf, home)
    network = True if phase == "setup" else conf.agent_network == "host" if phase == "agent" else grader_network
    return _sandbox_spec(conf, workspace=workspace, home=home, env=env, network=network, extra=extra,
                         loopback=loopback)


def agent_proxy(conf: Confinement, model_hosts: Iterable[str], taken: Iterable[int] = ()) -> EgressProxy | None:
    """The egress proxy of one agent command with network model (None otherwise): it lets through the model's
    hosts (a preset's; UsageError naming a bad one) and --agent-allow-host's, and keeps off the ports taken."""
    if not conf.sandboxed or conf.agent_network != "model":
        return None
    return EgressProxy((*allowed_hosts(model_hosts, "preset host"), *conf.allow_hosts), taken)


def _sandbox_spec(conf: Confinement, *, workspace: Path, home: Path, env: Mapping[str, str], network: bool,
                  extra: Iterable[Bind] = (), loopback: Loopback | None = None) -> SandboxSpec:
    """The sandbox of one command: the workspace and HOME given, the environment's tools, the user's binds,
    the extra binds (the case's interpreter environment, the task directory), env as seen inside, and the
    host server's ports it reaches at 127.0.0.1 whatever its network (loopback)."""
    tools = host_tools(env)
    binds = [Bind(Path(d), d) for d in tools.dirs]
    binds += [Bind(p, str(p)) for p in conf.binds]
    binds += list(extra)
    inside = {k: v for k, v in env.items() if k not in HOST_ONLY}
    inside["TMPDIR"] = "/tmp"
    inside["PWD"] = WORKSPACE
    swaps = dict(tools.path_swaps)
    path = [swaps.get(d, d) for d in env.get("PATH", "").split(os.pathsep)]
    shown = [b.target for b in binds]  # PATH names no host directory the sandbox does not show
    inside["PATH"] = os.pathsep.join(dict.fromkeys(d for d in path if d and os.path.isabs(d) and _visible(d, shown)))
    return SandboxSpec(workspace=workspace, home=home, home_target=HOME_INSIDE, binds=tuple(binds),
                       network=network, env=inside, hide=conf.hide, loopback=loopback, limits=conf.limits)


def _copy_home_files(conf: Confinement, home: Path) -> None:
    """Copy the user's chosen files of the real HOME into a trial's HOME, at the same place."""
    real = Path.home()
    for source in conf.home_copies:
        target = home / source.relative_to(real)
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(source, target)


def _visible(path: str, bound: Iterable[str]) -> bool:
    """Whether the sandbox shows path: under a system directory or a bound one."""
    parts = _parts(path)
    return any(parts[:len(top)] == top for top in map(_parts, (*SYSTEM_DIRS, *bound)))


def _within(path: Path, top: Path) -> bool:
    return path.parts[:len(top.parts)] == top.parts


@lru_cache(maxsize=4096)
def _parts(path: str) -> tuple[str, ...]:
    """A path's components as pathlib splits them (every sandbox of a run asks of the same few paths)."""
    return PurePosixPath(path).parts
