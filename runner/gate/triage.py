"""Triage of a comparison's regressions: rerun each regressed case N more times with the candidate's configuration
(a new run beside the candidate, linked from it by run.json's ``triage`` record) and label each regression
``reproduced`` (no rerun passed), ``flaky`` (some did) or ``not reproduced`` (every scored rerun passed).

``runner compare`` finds the newest triage of its candidate (and baseline) among the candidate's sibling runs and
shows the labels, so a person starts from the regressions that are real.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from corpus import Corpus, corpus_fingerprint
from corpus.errors import HindcastError, UsageError
from runner.gate.gate import CompareReport
from runner.gate.pairing import Row, RunTrials
from runner.runs.find import runs_in
from runner.runs.load import LoadedRun, load_run
from runner.runs.manifest import RunManifest
from runner.settings import Settings
from runner.trial.plan import RunOptions

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


def _side(run: RunTrials) -> dict[str, Any]:
    return {"run_id": run.run_id, "directory": str(run.directory.absolute()) if run.directory else None,
            "variant": run.selected}


def regressed(report: CompareReport) -> list[Row]:
    """The regressions a triage reruns (quarantined rows are not regressions)."""
    return report.regressions()


def triage_options(report: CompareReport, candidate: RunManifest, reruns: int, corpus_root: Path | None = None,
                   settings: Settings | None = None, given: Iterable[str] = (), repo: Path | None = None,
                   scratch_root: Path | None = None) -> RunOptions:
    """The options of the triage run: the regressed cases, reruns trials each, the candidate's mode, agent
    commands (the regressed variants only), agent timeout and settings, in the candidate's results directory.

    The settings are those the candidate was started with but the ones given names, taken from settings (all of
    settings for a candidate that recorded none). UsageError when there is nothing to rerun or the candidate's
    mode has no rerun (regrade).
    """
    rows = regressed(report)
    if not rows:
        raise UsageError("no regression to triage")
    if reruns < 1:
        raise UsageError(f"--reruns must be at least 1, got {reruns}")
    config = candidate.config
    if config.mode == "regrade":
        raise UsageError(f"run {candidate.run_id} regraded saved patches: rerunning it cannot tell anything new")
    names = {row.candidate.variant for row in rows if row.candidate is not None}
    variants = tuple(v for v in config.variants if v.name in names) if config.mode == "agent" else ()
    chosen = (settings or Settings()).absolute()
    if candidate.settings is not None:
        chosen = candidate.settings.settings.over(chosen, given)
    assert report.candidate.directory is not None
    record = {"baseline": _side(report.baseline), "candidate": _side(report.candidate),
              "regressions": [row.key for row in rows], "reruns": reruns,
              "corpus": str(corpus_root) if corpus_root else None}
    return RunOptions(case_ids=tuple(dict.fromkeys(row.case_id for row in rows)), trials=reruns,
                      mode=config.mode, variants=variants, settings=chosen, repo=repo, scratch_root=scratch_root,
                      results_dir=report.candidate.directory.parent, agent_timeout=config.agent_timeout,
                      triage=record)


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


def find_triage(report: CompareReport) -> Triage | None:
    """The newest triage of this comparison's candidate among the candidate's sibling runs (one made against the
    same baseline first); None when there is none. A triage run that cannot be read is an error: its labels would
    otherwise silently disappear."""
    cand = report.candidate
    if cand.directory is None or not cand.directory.parent.is_dir():
        return None
    matches = []
    for found in runs_in(cand.directory.parent):
        record = found.manifest.triage if found.manifest is not None else None
        if not isinstance(record, dict):
            continue
        side = record.get("candidate") or {}
        if side.get("run_id") == cand.run_id and side.get("variant") == cand.selected:
            same_baseline = (record.get("baseline") or {}).get("run_id") == report.baseline.run_id
            matches.append((not same_baseline, found.directory))
    if not matches:
        return None
    directory = min(matches, key=lambda m: m[0])[1]  # runs_in is newest first; min keeps the first of a kind
    try:
        return label_regressions(report, load_run(directory))
    except HindcastError as exc:
        raise UsageError(f"triage run {directory}: {exc.message}") from None

