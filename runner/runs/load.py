"""Reading a run: run.json and every planned trial's result.json, with the aggregates recomputed on every read."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from runner.runs.aggregate import Aggregate, cell_aggregate, variant_aggregate
from runner.runs.manifest import RunManifest, read_manifest
from runner.runs.result import TrialResult, read_trial


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

    @property
    def missing(self) -> int:
        """Planned trials not recorded."""
        return sum(v.missing for v in self.variants)


def load_run(run_dir: Path | str) -> LoadedRun:
    """Read run.json and every planned trial's result.json; aggregates are recomputed, never read."""
    run_dir = Path(run_dir)
    manifest = read_manifest(run_dir)
    config = manifest.config
    trials: list[TrialResult] = []
    cells: list[Aggregate] = []
    totals: list[Aggregate] = []
    for variant in config.variants:
        variant_cells = []
        for case_id in config.cases:
            found = [r for t in range(1, config.trials + 1)
                     if (r := read_trial(run_dir, variant.name, case_id, t)) is not None]
            trials.extend(found)
            variant_cells.append(cell_aggregate(variant.name, case_id, found, config.trials))
        cells.extend(variant_cells)
        totals.append(variant_aggregate(variant.name, variant_cells))
    return LoadedRun(run_dir, manifest, tuple(trials), tuple(cells), tuple(totals))
