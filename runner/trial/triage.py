"""The run of a triage (``runner triage``): a comparison's regressions rerun with the candidate's configuration and
settings, as a new run beside the candidate (its labels: ``runner.gate.triage``)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from corpus.errors import UsageError
from runner.gate.gate import CompareReport
from runner.gate.pairing import RunTrials
from runner.gate.triage import regressed
from runner.runs.manifest import RunManifest
from runner.settings import Settings
from runner.trial.plan import RunOptions


def _side(run: RunTrials) -> dict[str, Any]:
    return {"run_id": run.run_id, "directory": str(run.directory.absolute()) if run.directory else None,
            "variant": run.selected}


def triage_options(report: CompareReport, candidate: RunManifest, reruns: int, corpus_root: Path | None = None,
                   settings: Settings | None = None, given: Iterable[str] = (), repo: Path | None = None,
                   scratch_root: Path | None = None) -> RunOptions:
    """The options of the triage run: the regressed cases, reruns trials each, the candidate's mode, agent
    commands (the regressed variants only), agent timeout, wording seed and settings, in the candidate's results directory.

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
                      triage=record, seed=config.seed if config.mode == "agent" else None)
