"""`runner sample`: draw passing trials for a person to read, weighted toward the passes most likely to be wrong,
and write a review page and a checklist to fill in (``runner.report.review``).

The weight of a pass is 1, plus twice (1 - reviewability) (a patch hard to review is where a wrong fix hides),
plus 2 when it changed files outside the case's allowed paths, plus 2 per scorecard finding (tests weakened,
framework tampering, an unsafe pass) and 1 per flag of its result (edited tests, restored test configuration,
an upstream lookup...). A pass without a scorecard weighs 2: nothing says it is clean. The draw is weighted
sampling without replacement (Efraimidis and Spirakis: the n largest ``u ** (1 / weight)``), with ``u`` from
``random.Random(seed)`` over the passes in variant, case and trial order, so one seed draws one sample.
Holdout cases' passes are left out unless asked for, as the report leaves them out.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus.errors import UsageError
from runner.report.artifacts import Budget, TrialView, relative_base, trial_view
from runner.report.pages import environment, write_page
from runner.report.reference import corpus_references, reference_for
from runner.report.review import CHECKLIST_FILE, PAGE_FILE, REVIEW_DIR, Entry, write_checklist
from runner.runs.holdout import tuning_view
from runner.runs.load import LoadedRun
from runner.runs.result import TrialResult, trial_path
from runner.scorecard.means import findings, json_list, json_object

FINDING_WORDS = {"test_downgrades": "tests weakened", "tampering": "framework tampering",
                 "unsafe_passes": "unsafe pass"}


@dataclass(frozen=True)
class SampleOptions:
    """What `runner sample` draws and where it writes."""

    passes: int
    """Passing trials to draw (fewer when the run has fewer)."""
    seed: int = 0
    """The draw's seed."""
    holdout: bool = False
    """Draw from the holdout cases' passes too."""
    out: Path | None = None
    """The folder of the page and the checklist; None: the run directory's review/."""

    def __post_init__(self) -> None:
        if self.passes < 1:
            raise UsageError(f"--passes {self.passes}: must be at least 1")


@dataclass(frozen=True)
class Pick:
    """One drawn pass."""

    result: TrialResult
    """The trial."""
    weight: float
    """Its weight in the draw."""
    why: tuple[str, ...]
    """What weighed toward it, in words (empty: a clean pass)."""

    @property
    def key(self) -> str:
        """VARIANT/CASE/N."""
        return f"{self.result.variant}/{self.result.case_id}/{self.result.trial}"


@dataclass(frozen=True)
class Sample:
    """What `runner sample` wrote."""

    picks: tuple[Pick, ...]
    """The drawn passes, heaviest first."""
    passes: int
    """Passes the draw was made from."""
    page: Path
    """The review page."""
    checklist: Path
    """The checklist to fill in."""
    held_out: tuple[str, ...] = ()
    """Holdout cases whose passes were left out."""


def weigh(result: TrialResult) -> tuple[float, tuple[str, ...]]:
    """The weight of a pass in the draw, and why, in words."""
    card = result.scorecard if isinstance(result.scorecard, dict) else None
    weight, why = 1.0, []
    if card is None:
        weight += 1.0
        why.append("no scorecard")
    else:
        score = json_object(card.get("reviewability")).get("score")
        if isinstance(score, (int, float)) and not isinstance(score, bool):
            weight += 2.0 * (1.0 - max(0.0, min(1.0, float(score))))
            if score < 1.0:
                why.append(f"reviewability {score:.2f}")
        outside = json_list(json_object(card.get("file_accuracy")).get("outside_allowed"))
        if outside:
            weight += 2.0
            why.append(f"{len(outside)} file{'' if len(outside) == 1 else 's'} outside allowed paths")
        for name, hit in findings(card).items():
            if hit and name in FINDING_WORDS:
                weight += 2.0
                why.append(FINDING_WORDS[name])
    weight += len(result.flags)
    why += [f"flag {flag}" for flag in result.flags]
    return weight, tuple(why)


def draw(trials: tuple[TrialResult, ...], passes: int, seed: int) -> tuple[Pick, ...]:
    """passes of the trials that passed, drawn by weight without replacement; heaviest key first."""
    rng = random.Random(seed)
    keyed = []
    for result in sorted((t for t in trials if t.outcome == "pass"), key=lambda t: (t.variant, t.case_id, t.trial)):
        weight, why = weigh(result)
        keyed.append((rng.random() ** (1.0 / weight), Pick(result, weight, why)))
    keyed.sort(key=lambda pair: -pair[0])
    return tuple(pick for _, pick in keyed[:passes])


def sample_passes(run: LoadedRun, options: SampleOptions) -> Sample:
    """Draw the sample of run and write its page and checklist (atomically) into options.out or RUN/review/."""
    view = run if options.holdout else tuning_view(run)
    picks = draw(view.trials, options.passes, options.seed)
    if not picks:
        held = f" ({len(view.held_out)} holdout cases left out: --holdout)" if view.held_out else ""
        raise UsageError(f"{run.directory}: the run has no passing trial to sample{held}")
    folder = options.out if options.out is not None else run.directory / REVIEW_DIR
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--out {folder}: not a directory")
    page, checklist = folder / PAGE_FILE, folder / CHECKLIST_FILE
    folder.mkdir(parents=True, exist_ok=True)
    write_page(page, render_sample(view, picks, page, options.seed))
    write_checklist(checklist, run.manifest.run_id, options.seed,
                    [Entry(p.key, "; ".join(p.why) or "drawn at random") for p in picks])
    return Sample(picks, sum(t.outcome == "pass" for t in view.trials), page, checklist, view.held_out)


def render_sample(run: LoadedRun, picks: tuple[Pick, ...], page: Path, seed: int) -> str:
    """The review page: per drawn pass why it was drawn, its patch beside the reference patch (the trial's own
    copy first: `runner.report.reference`), then its whole trial section as the report shows it."""
    base = relative_base(run.directory, page)
    budget = Budget()
    in_corpus = corpus_references(run, {p.result.case_id for p in picks})
    items: list[dict[str, Any]] = []
    for index, pick in enumerate(picks):
        meta = run.manifest.cases_meta.get(pick.result.case_id)
        view: TrialView = trial_view(run.directory, base, pick.result, f"s{index}",
                                     meta.title if meta is not None and meta.title else pick.result.case_id,
                                     budget, risk_flags=meta.risk_flags if meta is not None else ())
        patch = next(a for a in view.artifacts if a.name == "candidate.patch")
        items.append({"pick": pick, "view": view, "patch": patch,
                      "reference": reference_for(trial_path(run.directory, pick.result.variant, pick.result.case_id,
                                                               pick.result.trial), in_corpus[pick.result.case_id])})
    return environment().get_template("sample.html.j2").render(run=run, manifest=run.manifest, items=items,
                                                               seed=seed, checklist=CHECKLIST_FILE)
