"""Prepare a trial: a fresh workspace of the case's base, its interpreter, and its setup command (or a cached
environment with the workspace overlay its setup left)."""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
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
from runner.envs.project import env_holds_project, overlay_holds_project
from runner.process import ProcessResult, run_command
from runner.sandbox.bwrap import Bind
from runner.sandbox.confine import Confinement, phase_sandbox
from runner.settings import NEEDS_SANDBOX
from runner.workspace.workspace import copy_workspace, create_workspace

WORKSPACE_DIR = "workspace"
ENV_DIR = "python"
CacheUse = Literal["hit", "miss", "off"]


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
    prepared = None
    if env_cache is not None and confinement is not None and (case.setup.python or case.setup.command):
        prepared = _from_cache(case, repo, workspace, scratch, confinement, env_cache, cancel, step)
    if prepared is None:
        _go_on(cancel)
        prepared = _fresh(case, repo, workspace, scratch, confinement, cancel, step)
    return Prepared(prepared.workspace, prepared.env, prepared.setup, prepared.env_dir,
                    round(time.monotonic() - clock, 3), prepared.env_cache)


def _go_on(cancel: threading.Event | None) -> None:
    """WorkspaceError when the command was interrupted (its jobs end without a value: nothing of it is kept)."""
    if cancel is not None and cancel.is_set():
        raise WorkspaceError("interrupted before setup")


def _fresh(case: Case, repo: Path, workspace: Path, scratch: Path, confinement: Confinement | None,
           cancel: threading.Event | None = None, step: Callable[[str], None] | None = None) -> Prepared:
    """The environment beside the workspace, and setup run in it."""
    env = base_environment()
    env_dir = None
    if case.setup.python:
        env_dir = scratch / ENV_DIR
        env = make_python_env(case.setup.python, env_dir, env)
        _go_on(cancel)
    if step is not None and case.setup.command:
        step("setup")
    result = run_setup(case, repo, workspace, env, scratch, confinement, env_dir)
    return Prepared(workspace, env, result, env_dir)


def _from_cache(case: Case, repo: Path, workspace: Path, scratch: Path, confinement: Confinement,
                cache: EnvCache, cancel: threading.Event | None = None,
                step: Callable[[str], None] | None = None) -> Prepared:
    """The workspace made what setup leaves from the cache entry of the case's key (built here on a miss; one
    holding files of the project, `runner.envs.project`, serves its own base tree alone)."""
    key = env_key(case, repo)
    ran: list[ProcessResult | None] = []

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
        result = run_setup(case, repo, workspace, env, scratch, confinement, env_dir, cache)
        ran.append(result)
        if (scratch / "setup.log").is_file():
            shutil.copyfile(scratch / "setup.log", directory / "setup.log")
        captured = overlay.capture(workspace, before, directory / "overlay")
        project = overlay_holds_project(captured.changed) or env_holds_project(env_dir, workspace)
        return Built(captured, env_dir, key.base_tree if project else None)

    entry, hit = cache.acquire(key, case.id, build)
    env = base_environment()
    if entry.env_dir is not None and case.setup.python:
        env = python_env(case.setup.python, entry.env_dir, env)
    if not hit:
        return Prepared(workspace, env, ran[0] if ran else None, entry.env_dir, env_cache="miss")
    overlay.apply(entry.overlay, entry.overlay_dir, workspace)
    return Prepared(workspace, env, None, entry.env_dir, env_cache="hit")


def run_setup(case: Case, repo: Path, workspace: Path, env: dict[str, str], scratch: Path,
              confinement: Confinement | None, env_dir: Path | None,
              cache: EnvCache | None = None) -> ProcessResult | None:
    """Run the case's setup command in the workspace (sandboxed when the confinement says so) with uv on PATH
    and the base's version from its tags (`version_environment`); WorkspaceError when it cannot start, times out
    or fails. With cache, setup gets its download caches."""
    if not case.setup.command:
        return None
    setup_env = {**version_environment(repo, case.base_commit), **env, **UV_SETUP_ENV,
                 **(cache.setup_variables() if cache is not None else {})}
    binds = list(Prepared(workspace, env, None, env_dir).env_binds(writable=True))
    if env_dir is None:  # no environment to link uv from: a directory of its own
        tools = scratch / "setup-tools"
        tools.mkdir(exist_ok=True)
        (tools / "uv").symlink_to(uv_binary())
        setup_env["PATH"] = f"{tools}{os.pathsep}{setup_env.get('PATH', '')}"
        binds += [Bind(tools, str(tools)), Bind(uv_binary(), str(uv_binary()))]
    if cache is not None:
        binds += [Bind(d, str(d), writable=True) for d in cache.download_dirs()]
    sandbox = phase_sandbox(confinement or Confinement("none"), "setup", scratch, workspace=workspace,
                            env=setup_env, extra=binds)
    result = run_command(case.setup.command, workspace, setup_env, case.setup.timeout, scratch / "setup.log",
                         sandbox=sandbox)
    if result.start_error:
        raise WorkspaceError(f"setup could not start: {result.start_error}")
    if result.timed_out:
        raise WorkspaceError(f"setup timed out after {case.setup.timeout}s")
    if result.exit_code != 0:
        raise WorkspaceError(f"setup failed (exit {result.exit_code}): {failure_line(result.tail)}")
    return result
