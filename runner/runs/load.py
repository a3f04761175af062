"""Reading a run to judge it: run.json and every planned trial's result.json, each checked against the digest
run.json recorded for it, with the aggregates recomputed on every read."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from corpus.errors import UsageError
from runner.runs.aggregate import Aggregate, cell_aggregate, variant_aggregate
from runner.runs.behaviour_record import behaviour_problem
from runner.runs.digests import audit_run
from runner.runs.manifest import RunManifest, read_manifest
from runner.runs.result import RESULT_FILE, TrialResult, parse_trial, trial_path


@dataclass(frozen=True)
class LoadedRun:
    """A run read from disk with its aggregates recomputed."""

    directory: Path
    """The run directory."""
    manifest: RunManifest
    """run.json."""
    trials: tuple[TrialResult, ...]
    """Every recorded trial, in variant, case, trial order."""
    cells: tuple[Aggregate, ...]
    """One per variant::case, in variant then case order."""
    variants: tuple[Aggregate, ...]
    """One per variant."""
    held_out: tuple[str, ...] = ()
    """The holdout cases this view leaves out (``runner.runs.holdout.tuning_view``); () when it shows them all."""

    @property
    def missing(self) -> int:
        """Planned trials not recorded."""
        return sum(v.missing for v in self.variants)


def load_run(run_dir: Path | str, *, live: bool = False) -> LoadedRun:
    """Read run.json and every planned trial's result.json; aggregates are recomputed, never read.

    UsageError when a trial does not match run.json: a result changed since it was recorded, a recorded result
    gone, or a trial folder run.json never recorded; or when a behaviour.json is not the one its result.json
    recorded. live (a run still going, as `runner report --watch` reads it): a folder run.json does not record
    yet is a trial not yet recorded, left out as missing, not refused; a changed or deleted result still is.
    """
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    audit = audit_run(run_dir, manifest)
    audit.check(resuming=live)
    root = os.fspath(run_dir)
    recorded = {(a.variant, a.case_id, a.trial): a for a in audit.recorded()}
    config = manifest.config
    trials: list[TrialResult] = []
    cells: list[Aggregate] = []
    totals: list[Aggregate] = []
    for variant in config.variants:
        variant_cells = []
        for case_id in config.cases:
            numbers = config.numbers(variant.name, case_id)
            found = [parse_trial(a.data or b"", f"{root}{os.sep}{a.key}{os.sep}{RESULT_FILE}", variant.name, case_id,
                                 t) for t in numbers if (a := recorded.get((variant.name, case_id, t))) is not None]
            trials.extend(found)
            variant_cells.append(cell_aggregate(variant.name, case_id, found, len(numbers)))
        cells.extend(variant_cells)
        totals.append(variant_aggregate(variant.name, variant_cells))
    problems = [problem for t in trials if t.behaviour
                if (problem := behaviour_problem(trial_path(run_dir, t.variant, t.case_id, t.trial), t))]
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise UsageError(f"{problems[0]}{more}; the run cannot be trusted: make a new run")
    return LoadedRun(run_dir, manifest, tuple(trials), tuple(cells), tuple(totals))


@contextmanager
def held_until_exit() -> Iterator[None]:
    """Around reading the runs a command keeps until it exits: the cyclic garbage collector paused while their
    records are built, then everything built frozen (``gc.freeze``) so its later passes skip them.

    The records hold no cycles, and on 20,000 trials the collector's passes over them were a third of a compare's
    CPU (bench/RESULTS.md). For a command's short process only, never a long-lived one (the review app, a watched
    page): what is frozen is never collected again, though a record no longer referenced is still freed.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
