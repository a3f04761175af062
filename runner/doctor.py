"""`runner doctor`: what a long run or verify needs of this machine, checked one line at a time before it starts:
the sandbox (a tiny one started as a grader's is), user namespaces, the interpreters, uv, each agent's CLI and
its login, and where scratch and the environment cache live with their free disk."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from corpus.errors import HindcastError
from corpus.fsutil import hindcast_temp
from corpus.interpreters import installed_pythons
from runner.children import run_child
from runner.envs.cache import env_cache_dir
from runner.envs.environment import uv_binary
from runner.process import run_command
from runner.sandbox.bwrap import INSTALL_HINT, available, user_namespace
from runner.sandbox.confine import bwrap_version, confine, phase_sandbox
from runner.settings import DEFAULT_ENV_CACHE, EnvCacheChoice, Settings
from runner.trial.agent import command_problem
from runner.trial.presets import PRESETS, Preset, preset_command, preset_name

Status = Literal["ok", "warn", "fail"]
MIN_FREE_BYTES = 2 * 1024**3
"""Below this much free disk under scratch or the environment cache a check fails: one cold environment of a
mid-sized Python project and a handful of workspaces fill about that."""
GiB = 1024**3


@dataclass(frozen=True)
class Check:
    """One line of the doctor's report."""

    name: str
    """What was checked (`sandbox`, `uv`, `agent codex`, ...)."""
    status: Status
    """ok; warn (works, with a caveat); fail (a run or verify would fail or lose a guarantee)."""
    detail: str
    """What was found."""
    fix: str = ""
    """How to fix it (failing and warning lines)."""

    def line(self) -> str:
        """`ok    uv: uv 0.9.1 (/path)`; a failing or warning line ends with `; fix: ...`."""
        fix = f"; fix: {self.fix}" if self.fix else ""
        return f"{self.status.upper() if self.status != 'ok' else 'ok':<5} {self.name}: {self.detail}{fix}"


@dataclass(frozen=True)
class DoctorOptions:
    """What to check."""

    agents: tuple[str, ...] = ()
    """--agent values: a preset (`codex`, `NAME=preset:codex`) or NAME=CMD; each gets its CLI and login checked."""
    env_cache: EnvCacheChoice = DEFAULT_ENV_CACHE
    """The environment cache a run would use (None: --no-env-cache)."""
    scratch_root: Path | None = None
    """Where scratch lives (default: corpus.fsutil.hindcast_temp)."""


@dataclass(frozen=True)
class DoctorReport:
    """Every check, in order."""

    checks: tuple[Check, ...]
    """One per line."""

    @property
    def ok(self) -> bool:
        """True when no check failed (warnings pass)."""
        return all(c.status != "fail" for c in self.checks)


def doctor(options: DoctorOptions, on_check: Callable[[Check], None] | None = None) -> DoctorReport:
    """Run every check, calling on_check with each as it ends (a slow one is seen as it runs)."""
    checks = []
    for check in _checks(options):
        checks.append(check)
        if on_check is not None:
            on_check(check)
    return DoctorReport(tuple(checks))


def _checks(options: DoctorOptions) -> Iterator[Check]:
    scratch = options.scratch_root or _scratch_root()
    yield _sandbox(scratch)
    yield _user_namespace()
    yield _interpreters()
    yield _uv()
    for spec in options.agents:
        yield from _agent(spec)
    yield _disk("scratch", scratch, "set TMPDIR to a directory on a disk with room")
    cache = env_cache_dir(options.env_cache)
    if cache is None:
        yield Check("environment cache", "ok", "off (--no-env-cache): every setup runs afresh")
    else:
        yield _disk("environment cache", cache, "runner env prune, or --env-cache DIR on a disk with room")


def _scratch_root() -> Path:
    try:
        return hindcast_temp()
    except HindcastError:
        return Path(tempfile.gettempdir()) / f"hindcast-{os.getuid()}"


def _sandbox(scratch: Path) -> Check:
    """bubblewrap on PATH, and a tiny sandbox started the way a grader's is (its own pid namespace, the seccomp
    filter, a workspace at /workspace, no network)."""
    reason = available()
    if reason is not None:
        found, _, fix = reason.partition(": ")
        return Check("sandbox", "fail", found, fix)
    try:
        scratch.mkdir(parents=True, exist_ok=True)
        probe = Path(tempfile.mkdtemp(prefix="hindcast-doctor-", dir=scratch))
    except OSError as exc:
        return Check("sandbox", "fail", f"no scratch directory under {scratch}: {exc.strerror or exc}",
                     "set TMPDIR to a writable directory")
    try:
        workspace = probe / "workspace"
        workspace.mkdir()
        env = {"PATH": os.environ.get("PATH", os.defpath)}
        sandbox = phase_sandbox(confine(Settings(), (scratch,)), "grader", probe, workspace=workspace, env=env)
        ran = run_command('test "$PWD" = /workspace && touch probe', workspace, env, 60, probe / "sandbox.log",
                          sandbox=sandbox)
        made = (workspace / "probe").is_file()
    except HindcastError as exc:
        return Check("sandbox", "fail", exc.message, INSTALL_HINT)
    finally:
        shutil.rmtree(probe, ignore_errors=True)
    version = f"bubblewrap {bwrap_version() or '(version unknown)'}"
    if ran.start_error or ran.exit_code != 0 or not made:
        why = ran.start_error or f"the command in it exited {ran.exit_code}: {ran.tail.strip()[-200:]}"
        return Check("sandbox", "fail", f"{version} cannot run a sandbox: {why}",
                     "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
                     "kernel.apparmor_restrict_unprivileged_userns=0), or --sandbox none without its guarantees")
    return Check("sandbox", "ok", f"{version} started a sandbox (own pid namespace, seccomp, no network)")


def _user_namespace() -> Check:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Check("user namespaces", "warn", "not checked: no bubblewrap", "install bubblewrap")
    if user_namespace(bwrap):
        return Check("user namespaces", "ok", "each sandbox gets a user namespace of its own")
    return Check("user namespaces", "warn", "bubblewrap cannot make a user namespace here: sandboxes share yours",
                 "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)")


def _interpreters() -> Check:
    found = installed_pythons()
    if not found:
        return Check("interpreters", "fail", "no pythonX.Y found in pyenv or on PATH",
                     "install the Pythons your cases name (pyenv install 3.12)")
    shown = ", ".join(f"{major}.{minor}" for (major, minor), _ in found)
    return Check("interpreters", "ok", f"{shown} (pyenv, PATH)")


def _uv() -> Check:
    try:
        uv = uv_binary()
        ran = run_child([str(uv), "--version"], env=dict(os.environ), cwd=Path.cwd(), timeout=60)
    except (OSError, FileNotFoundError) as exc:
        return Check("uv", "fail", f"uv cannot run: {exc}", "reinstall Hindcast (uv is one of its dependencies)")
    if ran.returncode != 0:
        return Check("uv", "fail", f"{uv} exited {ran.returncode}", "reinstall Hindcast")
    return Check("uv", "ok", f"{ran.stdout.decode().strip()} ({uv})")


def _agent(spec: str) -> Iterator[Check]:
    """The agent's CLI on PATH and, for a preset, its credentials: an API key in the environment or a login file."""
    try:
        named = preset_name(spec)
    except HindcastError as exc:
        yield Check(f"agent {spec}", "fail", exc.message, "runner run --help lists the presets")
        return
    if named is None:
        name, _, command = spec.partition("=")
        problem = command_problem(command) if command.strip() else "expected NAME=COMMAND or a preset"
        yield Check(f"agent {name}", "fail" if problem else "ok", problem or "its command's programs are on PATH",
                    "install it, or give its full path" if problem else "")
        return
    name, which = named
    preset = PRESETS[which]
    problem = command_problem(preset_command(preset, {"model": "m"} if preset.needs_model else {}))
    program = shutil.which(preset.name)
    if problem or program is None:
        yield Check(f"agent {name}", "fail", problem or f"{preset.name!r} is not a program on PATH",
                    f"install the {preset.name} CLI (README: Presets names the tested versions)")
    elif _under_home(Path(program)):
        yield Check(f"agent {name}", "warn", f"{program} is under your home directory, which trials do not see",
                    f"--agent-bind {os.path.dirname(os.path.realpath(program))} (and its install directory)")
    else:
        yield Check(f"agent {name}", "ok", f"{program}")
    yield _login(name, preset)


def _login(name: str, preset: Preset) -> Check:
    keys = [v for v in preset.endpoint if v.endswith(("_KEY", "_TOKEN"))]
    given = [v for v in keys if os.environ.get(v)]
    if given:
        return Check(f"agent {name} login", "ok", f"{given[0]} is set (trials inherit it)")
    home = Path.home()
    files = [home / f for f in preset.logins if (home / f).is_file()]
    if files:
        return Check(f"agent {name} login", "ok", f"{files[0]} (copy it into trials with --agent-home {files[0]})")
    logins = " or a login in " + ", ".join(f"~/{f}" for f in preset.logins) if preset.logins else ""
    return Check(f"agent {name} login", "fail", f"no {' or '.join(keys)} in the environment{logins}",
                 f"export {keys[0]}=..." + (f", or log in with {preset.name} and pass --agent-home" if logins else ""))


def _under_home(path: Path) -> bool:
    home = os.path.realpath(Path.home())
    real = os.path.realpath(path)
    return real == home or real.startswith(home + os.sep)


def _disk(name: str, path: Path, fix: str) -> Check:
    """Where path is and the free disk there (of its nearest existing parent when it is not made yet)."""
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    try:
        free = shutil.disk_usage(existing).free
    except OSError as exc:
        return Check(name, "fail", f"{path}: {exc.strerror or exc}", fix)
    if not os.access(existing, os.W_OK):
        return Check(name, "fail", f"{path}: not writable", fix)
    detail = f"{path}, {free / GiB:.1f} GiB free"
    if free < MIN_FREE_BYTES:
        return Check(name, "fail", f"{detail} (under {MIN_FREE_BYTES // GiB} GiB)", fix)
    return Check(name, "ok", detail)
