"""Triage of a comparison's regressions: rerun each regressed case N more times with the candidate's configuration
(a new run beside the candidate, made with ``runner.trial.triage.triage_options`` and linked from it by run.json's
``triage`` record) and label each regression
``reproduced`` (no rerun passed), ``flaky`` (some did) or ``not reproduced`` (every scored rerun passed).

``runner compare`` finds the newest triage of its candidate (and baseline) among the candidate's sibling runs and
shows the labels, so a person starts from the regressions that are real.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from corpus import Corpus, corpus_fingerprint
from corpus.errors import HindcastError, UsageError
from runner.gate.gate import CompareReport
from runner.gate.pairing import Row
from runner.runs.load import LoadedRun, load_run
from runner.runs.manifest import RUN_FILE, RunManifest, load_object

Label = Literal["reproduced", "flaky", "not reproduced", "unknown"]


@dataclass(frozen=True)
class TriageLabel:
    """What the reruns of one regression say."""

    key: str
    """The comparison's key: case id, or variant::case."""
    label: Label
    """reproduced, flaky, not reproduced, or unknown (every rerun ended in error)."""
    passes: int
    """Reruns that passed."""
    fails: int
    """Reruns that failed."""
    errors: int
    """Reruns that ended in error (no outcome)."""

    def text(self) -> str:
        """``reproduced (0 of 3 reruns passed)``, with the errors when there were any."""
        scored = self.passes + self.fails
        extra = f", {self.errors} in error" if self.errors else ""
        return f"{self.label} ({self.passes} of {scored} reruns passed{extra})"


@dataclass(frozen=True)
class Triage:
    """A triage run and its labels by regression key."""

    run_id: str
    """The triage run's id."""
    directory: Path
    """The triage run's directory."""
    labels: Mapping[str, TriageLabel]
    """One label per regression the triage reran, by key."""


def regressed(report: CompareReport) -> list[Row]:
    """The regressions a triage reruns (quarantined rows are not regressions)."""
    return report.regressions()


def check_dataset(corpus: Corpus, candidate: RunManifest) -> None:
    """UsageError when the corpus's cases changed since the candidate ran: the reruns would test other cases."""
    now = corpus_fingerprint((s.case, s.files) for s in corpus.load_all("cases"))
    if now != candidate.dataset_fingerprint:
        raise UsageError(f"the corpus {corpus.root} changed since run {candidate.run_id} was made (dataset "
                         f"fingerprint {candidate.dataset_fingerprint[:12]} is now {now[:12]}): reruns would not "
                         f"test the cases that regressed")


def label_regressions(report: CompareReport, triage: LoadedRun) -> Triage:
    """Label every regression of the comparison the triage run reran."""
    labels: dict[str, TriageLabel] = {}
    for row in regressed(report):
        assert row.candidate is not None
        variant = row.candidate.variant
        trials = [t for t in triage.trials if t.case_id == row.case_id and t.variant == variant]
        passes = sum(1 for t in trials if t.outcome == "pass")
        fails = sum(1 for t in trials if t.outcome == "fail")
        errors = sum(1 for t in trials if t.outcome == "error")
        if not trials:
            continue
        label: Label = ("unknown" if passes + fails == 0 else "reproduced" if passes == 0
                        else "not reproduced" if fails == 0 else "flaky")
        labels[row.key] = TriageLabel(row.key, label, passes, fails, errors)
    return Triage(triage.manifest.run_id, triage.directory, labels)


def _triage_records(results_dir: Path, candidate: Path) -> list[tuple[Path, dict[str, Any]]]:
    """Each run of results_dir (but the candidate, which is no triage of itself) whose run.json holds a triage record, newest first, with the record.

    Only the fields needed are read (a full manifest of a large run parses thousands of digests and cases); a
    run.json that cannot be read is not a triage of anything, and a triage that matches is then read whole.
    """
    found: list[tuple[str, str, Path, dict[str, Any]]] = []
    for child in results_dir.iterdir():
        if child.name.startswith(".") or child == candidate:
            continue
        try:
            data = load_object((child / RUN_FILE).read_text(encoding="utf-8"), child / RUN_FILE)
        except (OSError, UnicodeDecodeError, HindcastError):
            continue
        record = data.get("triage")
        if isinstance(record, dict):
            found.append((str(data.get("created")), str(data.get("run_id")), child, record))
    return [(directory, record) for _, _, directory, record in sorted(found, key=lambda f: f[:2], reverse=True)]


def find_triage(report: CompareReport) -> Triage | None:
    """The newest triage of this comparison's candidate among the candidate's sibling runs (one made against the
    same baseline first); None when there is none. A triage run that cannot be read is an error: its labels would
    otherwise silently disappear."""
    cand = report.candidate
    if cand.directory is None or not cand.directory.parent.is_dir():
        return None
    matches = []
    for directory, record in _triage_records(cand.directory.parent, cand.directory):
        side = record.get("candidate") or {}
        if side.get("run_id") == cand.run_id and side.get("variant") == cand.selected:
            same_baseline = (record.get("baseline") or {}).get("run_id") == report.baseline.run_id
            matches.append((not same_baseline, directory))
    if not matches:
        return None
    directory = min(matches, key=lambda m: m[0])[1]  # newest first; min keeps the first of a kind
    try:
        return label_regressions(report, load_run(directory))
    except HindcastError as exc:
        raise UsageError(f"triage run {directory}: {exc.message}") from None
