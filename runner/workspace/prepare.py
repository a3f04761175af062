"""Prepare a trial: a fresh workspace of the case's base, its interpreter, and its setup command."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from corpus.errors import WorkspaceError
from corpus.model import Case
from runner.envs.environment import base_environment, make_python_env
from runner.process import ProcessResult, run_command
from runner.workspace.workspace import create_workspace, workspace_from_template

WORKSPACE_DIR = "workspace"


@dataclass(frozen=True)
class Prepared:
    """A workspace ready for an agent or an oracle."""

    workspace: Path
    """The one-commit repository holding the base tree."""
    env: dict[str, str]
    """Environment for every later command of the trial (interpreter first on PATH)."""
    setup: ProcessResult | None
    """The setup command's result, when the case has one."""


def prepare(case: Case, repo: Path, scratch: Path, template: Path | None = None) -> Prepared:
    """Build the workspace under scratch, make the interpreter environment beside it, run setup.

    With template (a `build_template` git directory of the case's base) the workspace is copied from it
    instead of being extracted from the source repository. Raises WorkspaceError (or GitError) with a
    one-line reason when any step fails.
    """
    if template is not None:
        workspace = workspace_from_template(template, scratch / WORKSPACE_DIR)
    else:
        workspace = create_workspace(repo, case.base_commit, scratch / WORKSPACE_DIR)
    env = base_environment()
    if case.setup.python:
        env = make_python_env(case.setup.python, scratch / "python", env)
    result = None
    if case.setup.command:
        result = run_command(case.setup.command, workspace, env, case.setup.timeout, scratch / "setup.log")
        if result.timed_out:
            raise WorkspaceError(f"setup timed out after {case.setup.timeout}s")
        if result.exit_code != 0:
            last = result.tail.strip().splitlines()[-1:] or [result.start_error or ""]
            raise WorkspaceError(f"setup failed (exit {result.exit_code}): {last[0][:200]}")
    return Prepared(workspace, env, result)
