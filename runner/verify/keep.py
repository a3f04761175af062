"""The logs verify keeps: every attempt's setup log, grader log and JUnit report are staged beside it; those of the
attempts that were not as expected (a baseline that passed, an oracle that failed, any error), or every attempt's
with `--keep` (and its workspace), end up in `<corpus>/.hindcast/verify/<id>/<side>-<repeat>/`."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from runner.workspace.inside import read_inside
from runner.workspace.prepare import WORKSPACE_DIR

if TYPE_CHECKING:
    from runner.verify.attempt import Attempt

LOGS_DIR = "logs"
"""The staging directory under a verify call's scratch root."""
KEPT_DIR = Path(".hindcast") / "verify"
"""Where a corpus keeps the logs of its last verify of each case, relative to the corpus."""
LOG_FILES = ("setup.log", "grader.log", "invariants.log", "http.json")
"""An attempt's logs kept: setup, grader, and the requests its HTTP fixture served."""


def stage_logs(scratch: Path, staged: Path, junit: str | None, keep_workspace: bool) -> Path:
    """Copy an attempt's logs and JUnit report (and with keep_workspace move its workspace) to staged."""
    staged.mkdir(parents=True, exist_ok=True)
    for name in LOG_FILES:
        if (scratch / name).is_file():
            shutil.copyfile(scratch / name, staged / name)
    workspace = scratch / WORKSPACE_DIR
    if junit and workspace.is_dir():
        report = read_inside(workspace, junit)
        if report is not None:
            (staged / "junit.xml").write_bytes(report)
    if keep_workspace and workspace.is_dir():
        shutil.move(str(workspace), str(staged / WORKSPACE_DIR))
    return staged


def kept_dir(corpus_root: Path, case_id: str) -> Path:
    """Where a case's (or candidate's) kept logs are."""
    return corpus_root / KEPT_DIR / case_id


def publish_logs(corpus_root: Path, case_id: str, staged: list[Path]) -> Path | None:
    """Replace the case's kept logs by the staged attempts' (None, and nothing kept, when there are none)."""
    target = kept_dir(corpus_root, case_id)
    shutil.rmtree(target, ignore_errors=True)
    if not staged:
        return None
    target.mkdir(parents=True, exist_ok=True)
    ignore = corpus_root / KEPT_DIR.parts[0] / ".gitignore"
    if not ignore.exists():  # a corpus kept in its repository: the logs and workspaces are never committed
        ignore.write_text("*\n")
    for directory in staged:
        shutil.move(str(directory), str(target / directory.name))
    return target


def keep_attempt(attempt: Attempt, kept: Path | None) -> Attempt:
    """The attempt naming where its logs were kept (None when they were not)."""
    name = Path(attempt.logs).name if attempt.logs else None
    where = kept / name if kept is not None and name else None
    return replace(attempt, logs=str(where) if where is not None and where.is_dir() else None)
