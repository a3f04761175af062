"""Holdout cases in a run: which cases the run recorded as holdout, the run without them (what tuning may see),
and each variant's pass rate on the tuning set and the holdout set side by side.

A case is holdout when run.json's ``cases_meta`` says so (the corpus's ``holdout: true`` when the run started); a
run made before runs recorded it holds none. The tuning view is the run with the holdout cases' trials, cells and
records removed and every variant total recomputed from what is left, so no figure of the view counts them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from runner.runs.aggregate import Aggregate, variant_aggregate
from runner.runs.load import LoadedRun
from runner.runs.manifest import RunManifest


def holdout_cases(manifest: RunManifest) -> tuple[str, ...]:
    """The run's cases it recorded as holdout, in run order."""
    return tuple(c for c in manifest.config.cases if (meta := manifest.cases_meta.get(c)) is not None and meta.holdout)


def without_cases(manifest: RunManifest, cases: frozenset[str]) -> RunManifest:
    """run.json as if the run had never selected these cases."""
    config = replace(manifest.config, cases=tuple(c for c in manifest.config.cases if c not in cases))
    meta = {c: m for c, m in manifest.cases_meta.items() if c not in cases}
    return replace(manifest, config=config, cases_meta=meta)


def tuning_view(run: LoadedRun) -> LoadedRun:
    """The run with its holdout cases left out (and named in ``held_out``); the run itself when it has none."""
    held = holdout_cases(run.manifest)
    if not held:
        return run
    hidden = frozenset(held)
    cells = tuple(c for c in run.cells if c.case_id not in hidden)
    variants = tuple(variant_aggregate(v.variant, [c for c in cells if c.variant == v.variant])
                     for v in run.variants)
    return replace(run, manifest=without_cases(run.manifest, hidden),
                   trials=tuple(t for t in run.trials if t.case_id not in hidden), cells=cells, variants=variants,
                   held_out=held)


@dataclass(frozen=True)
class SetRates:
    """One variant's totals on the tuning set and on the holdout set."""

    variant: str
    """The variant."""
    tuning: Aggregate
    """Over the cases that are not holdout."""
    holdout: Aggregate
    """Over the holdout cases."""


def set_rates(run: LoadedRun) -> tuple[SetRates, ...]:
    """Per variant its totals on the two sets; () when the run has no holdout case."""
    held = frozenset(holdout_cases(run.manifest))
    if not held:
        return ()
    return tuple(SetRates(v.variant,
                          variant_aggregate(v.variant, [c for c in run.cells
                                                        if c.variant == v.variant and c.case_id not in held]),
                          variant_aggregate(v.variant, [c for c in run.cells
                                                        if c.variant == v.variant and c.case_id in held]))
                 for v in run.variants)
