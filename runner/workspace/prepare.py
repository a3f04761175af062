"""Prepare a trial: a fresh workspace of the case's base, its interpreter, and its setup command (or a cached
environment with the workspace overlay its setup left)."""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from corpus.errors import UsageError, WorkspaceError
from corpus.model import Case
from runner.envs import overlay
from runner.envs.cache import ENV_DIR as CACHED_ENV_DIR
from runner.envs.cache import Built, EnvCache
from runner.envs.environment import (
    UV_SETUP_ENV,
    base_environment,
    failure_line,
    make_python_env,
    python_env,
    uv_binary,
    version_environment,
)
from runner.envs.key import env_key
from runner.envs.project import env_holds_project, overlay_holds_project, site_packages
from runner.envs.resolution import (
    CONFIG_NAME,
    RUNTIME_CONFIG_NAME,
    Resolution,
    installed_build_tools,
    runtime_command,
)
from runner.process import ProcessResult, run_command
from runner.sandbox.bwrap import Bind, SandboxSpec
from runner.sandbox.confine import Confinement, phase_sandbox
from runner.settings import NEEDS_SANDBOX
from runner.workspace.pipdated import (
    pip_index,
    pip_runtime_command,
    record_views,
    recording,
    runtime_index,
    shared_date,
)
from runner.workspace.resolve import decide, fall_back, resolution_dir
from runner.workspace.workspace import copy_workspace, create_workspace

WORKSPACE_DIR = "workspace"
ENV_DIR = "python"
CacheUse = Literal["hit", "miss", "off"]
REDATE_TIMEOUT = 300
"""Seconds the build tools' dated reinstall may take."""


@dataclass(frozen=True)
class Prepared:
    """A workspace ready for an agent or an oracle."""

    workspace: Path
    """The one-commit repository holding the base tree."""
    env: dict[str, str]
    """Environment for every later command of the trial (interpreter first on PATH)."""
    setup: ProcessResult | None
    """The setup command's result, when it ran for this workspace (not on a cache hit)."""
    env_dir: Path | None = None
    """The case's interpreter environment (setup.python), writable by setup only."""
    setup_duration: float | None = None
    """Seconds to make the workspace, the environment and run setup (or find them in the cache)."""
    env_cache: CacheUse = "off"
    """hit: environment and overlay came from the cache; miss: built now and cached; off: no cache was used
    (none given, or nothing to set up)."""
    resolution: str = ""
    """The resolution origin line: as of the fix's date or today's, and why (`runner.envs.resolution`); empty
    when setup installs nothing with uv."""

    def env_binds(self, writable: bool = False) -> tuple[Bind, ...]:
        """The interpreter environment as a sandbox shows it: at its own path, read-only unless writable; the
        uv it links to, read-only."""
        if self.env_dir is None:
            return ()
        binds = [Bind(self.env_dir, str(self.env_dir), writable)]
        if (self.env_dir / "bin" / "uv").is_symlink():
            binds.append(Bind(uv_binary(), str(uv_binary())))
        return tuple(binds)


def prepare(case: Case, repo: Path, scratch: Path, pristine: Path | None = None,
            confinement: Confinement | None = None, env_cache: EnvCache | None = None,
            cancel: threading.Event | None = None, step: Callable[[str], None] | None = None) -> Prepared:
    """Build the workspace under scratch, make the interpreter environment beside it, run setup.

    With pristine (a `pristine_workspace` of the case's base) the workspace is a copy of it instead of being
    extracted from the source repository. With a sandboxing confinement the setup command
    runs in the sandbox (with the network, its own HOME, the interpreter environment writable), so every path
    it records is the one the agent and the grader see. With env_cache the environment and the overlay come from
    the cache, built on first use; it needs the sandbox (only there is the workspace at the same path for every
    trial): without one it is refused (UsageError). Raises WorkspaceError (or GitError) with a one-line reason
    when any step fails, and WorkspaceError before any step that builds once cancel is set (an interrupted
    command's threads that waited for an environment build do not start it again). step is told `setup` when
    the setup command starts (never on a cache hit).
    """
    if env_cache is not None and not (confinement is not None and confinement.sandboxed):
        raise UsageError(NEEDS_SANDBOX)
    clock = time.monotonic()
    if pristine is not None:
        workspace = copy_workspace(pristine, scratch / WORKSPACE_DIR)
    else:
        workspace = create_workspace(repo, case.base_commit, scratch / WORKSPACE_DIR)
    resolution = decide(case, repo, workspace, scratch, confinement, env_cache)
    try:
        prepared = _prepare(case, repo, workspace, scratch, confinement, env_cache, resolution, cancel, step)
    except SetupFailed as failed:
        if resolution is None or resolution.as_of is None:
            raise
        _discard(workspace, scratch)
        if pristine is not None:
            workspace = copy_workspace(pristine, scratch / WORKSPACE_DIR)
        else:
            workspace = create_workspace(repo, case.base_commit, scratch / WORKSPACE_DIR)
        resolution = fall_back(case, repo, workspace, scratch, confinement, env_cache, resolution, failed.line)
        prepared = _prepare(case, repo, workspace, scratch, confinement, env_cache, resolution, cancel, step)
    return Prepared(prepared.workspace, prepared.env, prepared.setup, prepared.env_dir,
                    round(time.monotonic() - clock, 3), prepared.env_cache,
                    resolution.origin + prepared.resolution if resolution is not None else "")


def unfilled(case: Case, scratch: Path) -> Prepared | None:
    """A case with nothing to set up (no setup command, no interpreter): what `prepare` gives, but its workspace
    an empty directory for the caller to fill with a copy of the pristine checkout, so that the copy can be made
    while the agent's sandbox starts (`run_command`'s held). None for a case with setup."""
    if case.setup.command or case.setup.python:
        return None
    workspace = scratch / WORKSPACE_DIR
    workspace.mkdir(0o700)
    return Prepared(workspace, base_environment(), None, None, 0.0)


class SetupFailed(WorkspaceError):
    """The setup command ran and exited non-zero (a dated setup then falls back to today's)."""

    def __init__(self, message: str, line: str) -> None:
        super().__init__(message)
        self.line = line


def _prepare(case: Case, repo: Path, workspace: Path, scratch: Path, confinement: Confinement | None,
             env_cache: EnvCache | None, resolution: Resolution | None, cancel: threading.Event | None,
             step: Callable[[str], None] | None) -> Prepared:
    if env_cache is not None and confinement is not None and (case.setup.python or case.setup.command):
        return _from_cache(case, repo, workspace, scratch, confinement, env_cache, resolution, cancel, step)
    _go_on(cancel)
    return _fresh(case, repo, workspace, scratch, confinement, resolution, cancel, step)


def _discard(workspace: Path, scratch: Path) -> None:
    """What a failed setup left: the workspace and the environment beside it."""
    shutil.rmtree(workspace, ignore_errors=True)
    shutil.rmtree(scratch / ENV_DIR, ignore_errors=True)


def _go_on(cancel: threading.Event | None) -> None:
    """WorkspaceError when the command was interrupted (its jobs end without a value: nothing of it is kept)."""
    if cancel is not None and cancel.is_set():
        raise WorkspaceError("interrupted before setup")


def _fresh(case: Case, repo: Path, workspace: Path, scratch: Path, confinement: Confinement | None,
           resolution: Resolution | None, cancel: threading.Event | None = None,
           step: Callable[[str], None] | None = None) -> Prepared:
    """The environment beside the workspace, and setup run in it."""
    env = base_environment()
    env_dir = None
    if case.setup.python:
        env_dir = scratch / ENV_DIR
        env = make_python_env(case.setup.python, env_dir, env)
        _go_on(cancel)
    if step is not None and case.setup.command:
        step("setup")
    result = run_setup(case, repo, workspace, env, scratch, confinement, env_dir, resolution=resolution)
    note = redate_build_tools(workspace, env, scratch, confinement, env_dir, resolution)
    return Prepared(workspace, env, result, env_dir, resolution=note)


def _from_cache(case: Case, repo: Path, workspace: Path, scratch: Path, confinement: Confinement,
                cache: EnvCache, resolution: Resolution | None, cancel: threading.Event | None = None,
                step: Callable[[str], None] | None = None) -> Prepared:
    """The workspace made what setup leaves from the cache entry of the case's key (built here on a miss; one
    holding files of the project, `runner.envs.project`, serves its own base tree alone)."""
    key = env_key(case, repo, resolution)
    ran: list[ProcessResult | None] = []
    notes: list[str] = []

    def build(directory: Path) -> Built:
        _go_on(cancel)
        env_dir = directory / CACHED_ENV_DIR if case.setup.python else None
        before = overlay.scan(workspace)
        env = base_environment()
        if case.setup.python and env_dir is not None:
            env = make_python_env(case.setup.python, env_dir, env, cache=cache.setup_variables())
            _go_on(cancel)
        if step is not None and case.setup.command:
            step("setup")
        with recording() as served:
            result = run_setup(case, repo, workspace, env, scratch, confinement, env_dir, cache, resolution)
            ran.append(result)
            notes.append(redate_build_tools(workspace, env, scratch, confinement, env_dir, resolution, cache))
        if (scratch / "setup.log").is_file():
            shutil.copyfile(scratch / "setup.log", directory / "setup.log")
        captured = overlay.capture(workspace, before, directory / "overlay")
        project = overlay_holds_project(captured.changed) or env_holds_project(env_dir, workspace)
        tree = key.base_tree if project else None
        record_views(key, resolution, cache, served, tree)
        return Built(captured, env_dir, tree, notes[-1])

    shared = shared_date(key, resolution, cache)  # a dated pip setup whose index reads as an earlier build's
    if shared is not None:
        key = replace(key, as_of=shared)
    entry, hit = cache.acquire(key, case.id, build, cancel)
    env = base_environment()
    if entry.env_dir is not None and case.setup.python:
        env = python_env(case.setup.python, entry.env_dir, env)
    if not hit:
        return Prepared(workspace, env, ran[0] if ran else None, entry.env_dir, env_cache="miss",
                        resolution="".join(notes))
    overlay.apply(entry.overlay, entry.overlay_dir, workspace)
    note = entry.note + (f"; environment of the fix of {shared}, whose index read the same" if shared else "")
    return Prepared(workspace, env, None, entry.env_dir, env_cache="hit", resolution=note)


def run_setup(case: Case, repo: Path, workspace: Path, env: dict[str, str], scratch: Path,
              confinement: Confinement | None, env_dir: Path | None,
              cache: EnvCache | None = None, resolution: Resolution | None = None) -> ProcessResult | None:
    """Run the case's setup command in the workspace (sandboxed when the confinement says so) with uv on PATH
    and the base's version from its tags (`version_environment`), its uv resolving as resolution says;
    WorkspaceError when it cannot start or times out, SetupFailed when it fails. With cache, setup gets its
    download caches."""
    if not case.setup.command:
        return None
    with pip_index(case.setup.command, resolution) as dated_pip:
        setup_env, sandbox = _setup_sandbox(repo, case.base_commit, workspace, {**env, **dated_pip}, scratch,
                                            confinement, env_dir, cache, resolution)
        result = run_command(case.setup.command, workspace, setup_env, case.setup.timeout, scratch / "setup.log",
                             sandbox=sandbox)
    if result.start_error:
        raise WorkspaceError(f"setup could not start: {result.start_error}")
    if result.timed_out:
        raise WorkspaceError(f"setup timed out after {case.setup.timeout}s")
    if result.exit_code != 0:
        line = failure_line(result.tail)
        raise SetupFailed(f"setup failed (exit {result.exit_code}): {line}", line)
    return result


def _setup_sandbox(repo: Path | None, commit: str, workspace: Path, env: dict[str, str], scratch: Path,
                   confinement: Confinement | None, env_dir: Path | None, cache: EnvCache | None,
                   resolution: Resolution | None, config: str = CONFIG_NAME) -> tuple[dict[str, str], SandboxSpec | None]:
    """Setup's environment variables and sandbox: uv on PATH, the download caches, the resolution's files (uv's
    configuration the file named config)."""
    setup_env = {**(version_environment(repo, commit) if repo is not None else {}), **env, **UV_SETUP_ENV,
                 **(cache.setup_variables() if cache is not None else {})}
    setup_env.pop("UV_CONFIG_FILE", None)
    binds = list(Prepared(workspace, env, None, env_dir).env_binds(writable=True))
    if env_dir is None:  # no environment to link uv from: a directory of its own
        tools = scratch / "setup-tools"
        tools.mkdir(exist_ok=True)
        if not os.path.lexists(tools / "uv"):
            (tools / "uv").symlink_to(uv_binary())
        setup_env["PATH"] = f"{tools}{os.pathsep}{setup_env.get('PATH', '')}"
        binds += [Bind(tools, str(tools)), Bind(uv_binary(), str(uv_binary()))]
    if cache is not None:
        binds += [Bind(d, str(d), writable=True) for d in cache.download_dirs()]
    if resolution is not None and resolution.as_of is not None:
        setup_env.update(resolution.setup_variables(resolution_dir(scratch), config))
        binds.append(Bind(resolution_dir(scratch), str(resolution_dir(scratch))))
    sandbox = phase_sandbox(confinement or Confinement("none"), "setup", scratch, workspace=workspace,
                            env=setup_env, extra=binds)
    return setup_env, sandbox


def redate_build_tools(workspace: Path, env: dict[str, str], scratch: Path, confinement: Confinement | None,
                       env_dir: Path | None, resolution: Resolution | None, cache: EnvCache | None = None) -> str:
    """After a dated setup, the build tools the environment holds (today's, as they were exempt) set back to
    their dated versions; "" when done or nothing to do, else a note for the resolution line when the dated ones
    do not install or setuptools does not import: they are then put back at today's, and the environment is what
    setup made. WorkspaceError when even that fails (an environment in no known state)."""
    if resolution is None or resolution.as_of is None or env_dir is None:
        return ""
    installed = installed_build_tools(site_packages(env_dir))
    if not installed:
        return ""
    names = tuple(installed)

    def reinstall(config: str, log: str) -> str:
        with runtime_index(resolution, config == RUNTIME_CONFIG_NAME) as dated_pip:
            setup_env, sandbox = _setup_sandbox(None, "", workspace, {**env, **dated_pip}, scratch, confinement,
                                                env_dir, cache, resolution, config)
            command = pip_runtime_command(installed) if resolution.pip else runtime_command(names)
            result = run_command(command, workspace, setup_env, REDATE_TIMEOUT, resolution_dir(scratch) / log,
                                 sandbox=sandbox)
        if result.start_error or result.timed_out:
            return result.start_error or "timed out"
        return (failure_line(result.tail) or f"exit {result.exit_code}") if result.exit_code != 0 else ""

    dated = reinstall(RUNTIME_CONFIG_NAME, "runtime.log")
    if not dated:
        return ""
    today = reinstall(CONFIG_NAME, "runtime-today.log")
    if today:
        raise WorkspaceError(f"setup: {', '.join(names)} could not be put back at today's: {today}")
    return f"; {', '.join(names)} kept at today's: {dated}"
