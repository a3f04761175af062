"""A trial's artifacts as the HTML pages embed them: read, size-capped, and the candidate patch split into lines
classified for colour.

Everything read here was written by an agent or its grader and is untrusted: it only ever reaches a page as text
through the templates' autoescaping.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from runner.report.checks import TrialChecks
from runner.report.failure import TrialFailure, trial_failure
from runner.report.plan import trial_plan
from runner.report.record_view import RecordView, record_view
from runner.report.scorecards import ScoreView, score_view
from runner.runs.result import REFERENCE_FILE, TrialResult, trial_path

ARTIFACT_CAP = 200_000
"""Bytes of one artifact embedded in a page; the rest is left to the linked file, with a visible note."""
PAGE_BUDGET = 20_000_000
"""Bytes of artifacts one page embeds in all; past it, artifacts are only linked, with a visible note."""
EMBEDDED = ("prompt.md", "transcript.log", "candidate.patch", "grader.log")
"""The artifacts a trial section shows, in its reading order."""


@dataclass(frozen=True)
class Artifact:
    """One artifact of a trial as a page shows it."""

    name: str
    """File name in the trial folder (one of EMBEDDED)."""
    href: str
    """Link to the file, relative to the page."""
    text: str
    """The embedded text (the first cap bytes, decoded with replacement characters); empty when not embedded."""
    size: int | None
    """The file's size in bytes; None when the trial folder has no such file."""
    truncated: bool = False
    """Only the first cap bytes are embedded."""
    over_budget: bool = False
    """Not embedded at all: the page's budget was spent."""
    lines: tuple[tuple[str, str], ...] = ()
    """A patch only: (kind, line) per line, kind one of file, hunk, add, del, meta, context."""
    cap: int = ARTIFACT_CAP
    """Bytes the page embeds of the file at most."""


@dataclass
class Budget:
    """What is left of a page's embedding budget (mutable: one per page render)."""

    left: int = PAGE_BUDGET
    """Bytes that may still be embedded."""
    spent_on: list[str] = field(default_factory=list)
    """Artifacts left out because the budget ran out (href of each)."""


def diff_kind(line: str) -> str:
    """How a line of a unified diff is coloured: file, hunk, add, del, meta or context."""
    if line.startswith(("+++ ", "--- ")) or line in ("+++", "---"):
        return "file"
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("+"):
        return "add"
    if line.startswith("-"):
        return "del"
    if line.startswith(("diff ", "index ", "new file", "deleted file", "similarity", "rename ", "old mode",
                        "new mode", "Binary files", "\\")):
        return "meta"
    return "context"


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace").replace("\x00", "\ufffd")


def read_artifact(folder: Path, name: str, href: str, budget: Budget, cap: int = ARTIFACT_CAP) -> Artifact:
    """One artifact of a trial folder, at most cap bytes of it, counted against the page's budget."""
    path = os.path.join(folder, name)
    try:
        found = os.stat(path)
    except OSError:
        return Artifact(name, href, "", None)
    if not stat.S_ISREG(found.st_mode):
        return Artifact(name, href, "", None)
    size = found.st_size
    wanted = min(size, cap)
    if wanted > budget.left:
        budget.spent_on.append(href)
        return Artifact(name, href, "", size, over_budget=True)
    try:
        with open(path, "rb") as handle:
            data = handle.read(wanted)
    except OSError:
        return Artifact(name, href, "", None)
    budget.left -= len(data)
    text = _decode(data)
    lines = tuple((diff_kind(line), line) for line in text.splitlines()) if name.endswith(".patch") else ()
    return Artifact(name, href, text, size, truncated=size > len(data), lines=lines, cap=cap)


@dataclass(frozen=True)
class TrialView:
    """One trial as a page shows it: its result, its section's anchor and its embedded artifacts."""

    anchor: str
    """The id of the trial's section (made of indexes only, never of names from the run)."""
    result: TrialResult
    """The trial's result.json."""
    folder_href: str
    """The trial folder, relative to the page."""
    artifacts: tuple[Artifact, ...]
    """The EMBEDDED artifacts, in order."""
    title: str
    """The case's title (the case id when the run recorded none)."""
    run_label: str = ""
    """Which run the trial belongs to, on pages that show two (empty otherwise)."""
    behaviour: RecordView | None = None
    """The trial's behaviour.json, summarized; None when the trial has none."""
    checks: TrialChecks | None = None
    """The trial's trajectory and max_turns checks; None when its case has neither check."""
    score: ScoreView | None = None
    """The trial's plan, verification lanes and scorecard; None when it has no scorecard."""
    failure: TrialFailure | None = None
    """Its failure excerpt and the JUnit report's per-test lists."""
    reference: Artifact | None = None
    """The case's reference patch (its oracle.patch) as the trial recorded it; None when it recorded none."""
    page_href: str = ""
    """The page holding the trial's section, relative to the page that links it; empty when it is that page
    (``runner.report.paging``)."""


def relative_base(run_dir: Path, page: Path) -> Path:
    """The run directory as a path relative to the page's folder (how every link of the page starts)."""
    return Path(os.path.relpath(run_dir.resolve(), page.resolve().parent))


def trial_view(run_dir: Path, base: Path, trial: TrialResult, anchor: str, title: str, budget: Budget,
               run_label: str = "", checks: TrialChecks | None = None, risk_flags: Sequence[str] = (),
               page_href: str = "", cap: int = ARTIFACT_CAP) -> TrialView:
    """Read a trial's artifacts (cap bytes of each) from run_dir for the page whose links start at base, its
    section on page_href (empty: that page); checks are its trajectory and max_turns checks and risk_flags its
    case's labels."""
    folder = trial_path(run_dir, trial.variant, trial.case_id, trial.trial)
    href = trial_path(base, trial.variant, trial.case_id, trial.trial).as_posix()
    artifacts = tuple(read_artifact(folder, name, f"{href}/{name}", budget, cap) for name in EMBEDDED)
    score = None if not isinstance(trial.scorecard, dict) else score_view(trial, trial_plan(folder), risk_flags)
    reference = read_artifact(folder, REFERENCE_FILE, f"{href}/{REFERENCE_FILE}", budget, cap)
    return TrialView(anchor, trial, href, artifacts, title, run_label, record_view(folder), checks, score,
                     trial_failure(run_dir, trial), None if reference.size is None else reference, page_href)


def seconds(value: float | None) -> str:
    """A duration for a cell: 12.3s, 4m05s, or an empty string when unknown."""
    if value is None:
        return ""
    if value < 60:
        return f"{value:.1f}s"
    minutes, rest = divmod(round(value), 60)
    return f"{minutes}m{rest:02d}s"
