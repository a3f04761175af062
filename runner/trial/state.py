"""One trial's state while it runs: its staging folder, its scratch directory and the facts, flags and durations
for result.json, collected as they are established."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from corpus.wordings import wording_text
from runner.executors.jobs import Node
from runner.fixture.server import FixtureServer
from runner.grading.failclosed import edited_test_files
from runner.runs.result import REFERENCE_FILE
from runner.trial.spec import TrialContext, TrialSpec

ATTEMPT_DIR = "attempt"
"""Where the agent's workspace is moved once the agent ended (the grading workspace takes its place)."""
TASK_DIR_NAME = "task"
OUTPUT_DIR_NAME = "output"
"""The trial's output directory (``{output_dir}``: trajectory files, a CLI's history), outside the workspace, and
its copy in the trial folder."""
OUTPUT_DIR = "/output"
"""Where the output directory is inside the sandbox (read-write)."""
GRADING_DIR = "grading"
"""Where the grading workspace is made before it takes the agent's workspace's place."""


class Cancelled(Exception):
    """The run was interrupted; the trial is not recorded."""


class Unrecordable(Exception):
    """What the agent left in its workspace cannot be taken as a patch: a fail, never an error."""


class Oversized(Exception):
    """The agent's workspace or its patch is over its limit (--workspace-limit, --patch-limit): a fail of its
    own, never graded."""


class TrialState:
    """What the steps of one trial share, collecting facts for result.json as they are established."""

    def __init__(self, spec: TrialSpec, ctx: TrialContext, node: Node, staging: Path, scratch: Path) -> None:
        self.spec, self.ctx, self.node, self.staging, self.scratch = spec, ctx, node, staging, scratch
        self.case = spec.stored.case
        self.facts: dict[str, Any] = {}
        self.durations: dict[str, float] = {}
        self.flags: list[str] = []
        self.fixture: FixtureServer | None = None
        for name, text in (("transcript.log", ""), ("candidate.patch", ""), ("grader.log", "")):
            (staging / name).write_text(text)
        (staging / REFERENCE_FILE).write_bytes(spec.stored.files.oracle_patch)

    def prompt(self) -> str:
        """The prompt as the agent reads it, in the trial's wording: `{{HTTP_URL}}` is the trial's fixture's URL."""
        text = wording_text(self.case, self.spec.wording)
        return self.fixture.substitute(text) if self.fixture else text

    def check(self) -> None:
        if self.node.cancel.is_set():
            raise Cancelled

    def record_changes(self, changed: list[str]) -> None:
        grader_paths = [p for p, _ in self.spec.stored.files.grader_files] + list(self.case.grader.deleted)
        edits = edited_test_files(changed, grader_paths, self.ctx.test_globs)
        self.facts.update(changed_files=tuple(changed), test_edits=tuple(edits))
        if edits:
            self.flags.append("edited_tests")

    def write_prompt(self) -> None:
        saved = self.spec.saved
        if saved is not None and (saved.directory / "prompt.md").is_file():
            shutil.copyfile(saved.directory / "prompt.md", self.staging / "prompt.md")
        else:
            (self.staging / "prompt.md").write_text(self.prompt(), encoding="utf-8")
