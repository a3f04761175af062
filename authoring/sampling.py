"""The review screen's sample: a run's checklist of sampled passes (`runner sample`), each trial's patch and its
case's reference patch, and a verdict set on one entry written back to the checklist atomically."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from corpus.errors import UsageError
from runner.report.reference import corpus_references, reference_for
from runner.report.review import (
    CHECKLIST_FILE,
    REVIEW_DIR,
    VERDICTS,
    Entry,
    Review,
    read_review,
    write_checklist,
)
from runner.runs.load import LoadedRun, load_run
from runner.runs.result import trial_path

CANDIDATE_PATCH = "candidate.patch"


@dataclass(frozen=True)
class SamplePatches:
    """What a person reads of one sampled pass."""

    candidate: str
    """The trial's candidate.patch ("" when it has none)."""
    reference: str
    """The reference patch (the trial's own copy, else the run's corpus's), or why it cannot be shown."""


class SampleSession:
    """A run's sample, opened for review: its entries, their patches, and verdicts written back."""

    def __init__(self, run_dir: Path, checklist: Path | None = None) -> None:
        self.run: LoadedRun = load_run(run_dir)
        self.path = checklist if checklist is not None else self.run.directory / REVIEW_DIR / CHECKLIST_FILE
        if not self.path.is_file():
            raise UsageError(f"{self.path}: no checklist; draw one with `runner sample {run_dir} --passes N`")
        self.review: Review = read_review(self.path, self.run)

    @property
    def entries(self) -> tuple[Entry, ...]:
        """The checklist's entries, in its order."""
        return self.review.entries

    def patches(self, index: int) -> SamplePatches:
        """The candidate's and the reference patch of entry index."""
        entry = self.entries[index]
        variant, case_id, number = entry.trial.split("/")
        folder = trial_path(self.run.directory, variant, case_id, int(number))
        path = folder / CANDIDATE_PATCH
        candidate = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
        found = reference_for(folder, corpus_references(self.run, {case_id})[case_id])
        reference = found.note if found.text is None else "\n".join(line for _, line in found.lines)
        return SamplePatches(candidate, reference)

    def judge(self, index: int, verdict: str | None) -> Entry:
        """Set entry index's verdict (None clears it) and write the checklist atomically."""
        if verdict is not None and verdict not in VERDICTS:
            raise UsageError(f"verdict {verdict!r}: expected one of {', '.join(VERDICTS)}")
        entries = list(self.entries)
        entries[index] = replace(entries[index], verdict=verdict)
        write_checklist(self.path, self.run.manifest.run_id, self.review.seed, entries)
        self.review = replace(self.review, entries=tuple(entries))
        return entries[index]
