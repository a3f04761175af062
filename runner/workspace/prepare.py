"""Prepare a trial: a fresh workspace of the case's base, its interpreter, and its setup command."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from corpus.errors import WorkspaceError
from corpus.model import Case
from runner.envs.environment import base_environment, make_python_env
from runner.process import ProcessResult, run_command
from runner.sandbox.bwrap import Bind
from runner.sandbox.confine import Confinement, sandbox_spec
from runner.workspace.workspace import copy_workspace, create_workspace

WORKSPACE_DIR = "workspace"
ENV_DIR = "python"


@dataclass(frozen=True)
class Prepared:
    """A workspace ready for an agent or an oracle."""

    workspace: Path
    """The one-commit repository holding the base tree."""
    env: dict[str, str]
    """Environment for every later command of the trial (interpreter first on PATH)."""
    setup: ProcessResult | None
    """The setup command's result, when the case has one."""
    env_dir: Path | None = None
    """The case's interpreter environment (setup.python), writable by setup only."""

    def env_binds(self, writable: bool = False) -> tuple[Bind, ...]:
        """The interpreter environment as a sandbox shows it: at its own path, read-only unless writable."""
        return () if self.env_dir is None else (Bind(self.env_dir, str(self.env_dir), writable),)


def prepare(case: Case, repo: Path, scratch: Path, pristine: Path | None = None,
            confinement: Confinement | None = None) -> Prepared:
    """Build the workspace under scratch, make the interpreter environment beside it, run setup.

    With pristine (a `pristine_workspace` of the case's base) the workspace is a copy of it instead of being
    extracted from the source repository. With a sandboxing confinement the setup command
    runs in the sandbox (with the network, its own HOME, the interpreter environment writable), so every path
    it records is the one the agent and the grader see. Raises WorkspaceError (or GitError) with a one-line
    reason when any step fails.
    """
    if pristine is not None:
        workspace = copy_workspace(pristine, scratch / WORKSPACE_DIR)
    else:
        workspace = create_workspace(repo, case.base_commit, scratch / WORKSPACE_DIR)
    env = base_environment()
    env_dir = None
    if case.setup.python:
        env_dir = scratch / ENV_DIR
        env = make_python_env(case.setup.python, env_dir, env)
    prepared = Prepared(workspace, env, None, env_dir)
    result = None
    if case.setup.command:
        sandbox = None
        if confinement is not None and confinement.sandboxed:
            home = scratch / "setup-home"
            home.mkdir()
            sandbox = sandbox_spec(confinement, workspace=workspace, home=home, env=env, network=True,
                                   extra=prepared.env_binds(writable=True))
        result = run_command(case.setup.command, workspace, env, case.setup.timeout, scratch / "setup.log",
                             sandbox=sandbox)
        if result.start_error:
            raise WorkspaceError(f"setup could not start: {result.start_error}")
        if result.timed_out:
            raise WorkspaceError(f"setup timed out after {case.setup.timeout}s")
        if result.exit_code != 0:
            last = result.tail.strip().splitlines()[-1:] or [result.start_error or ""]
            raise WorkspaceError(f"setup failed (exit {result.exit_code}): {last[0][:200]}")
    return Prepared(workspace, env, result, env_dir)
