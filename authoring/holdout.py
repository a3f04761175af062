"""`authoring holdout`: mark a random, stratified share of the active cases as holdout.

Strata are the gate's: critical, blocking and advisory cases, so the holdout set checks every kind of verdict the
gate gives in proportion (a holdout set drawn without them could hold no blocking case at all). The total is the
fraction of the active cases rounded half up, shared among the strata by largest remainder (ties by stratum name).
Cases already holdout stay holdout and count toward their stratum's share (a case that was hidden while a team
tuned is worth more as holdout than one they tuned on); the rest of each stratum's share is drawn from its other
cases, in id order, by ``random.Random`` seeded with the seed and the stratum's name, so one seed gives one set on
any machine. Marking is ``authoring.bulk.set_fields``: each case.yaml edited in place and replaced atomically.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from authoring.bulk import Change, Changes, set_fields
from corpus import Case, Corpus, UsageError

STRATA = ("critical", "blocking", "advisory")
"""The strata, in the order they are reported."""


@dataclass(frozen=True)
class HoldoutOptions:
    """What `authoring holdout` draws."""

    fraction: float
    """The share of the active cases to hold out, above 0 and below 1."""
    seed: int
    """The draw's seed: one seed, one set."""
    dry_run: bool = False
    """Show what would be marked; write nothing."""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.fraction) and 0.0 < self.fraction < 1.0):
            raise UsageError(f"--fraction {self.fraction:g}: must be above 0 and below 1")


@dataclass(frozen=True)
class Stratum:
    """One stratum's share."""

    name: str
    """critical, blocking or advisory."""
    cases: int
    """Active cases in it."""
    already: tuple[str, ...]
    """Its cases that were holdout already."""
    chosen: tuple[str, ...]
    """Its cases drawn now."""

    @property
    def holdout(self) -> int:
        """Holdout cases in it after the draw."""
        return len(self.already) + len(self.chosen)


@dataclass(frozen=True)
class HoldoutDraw:
    """What the draw marked (or, with dry_run, would mark)."""

    strata: tuple[Stratum, ...]
    """Every stratum with cases, in STRATA order."""
    changes: tuple[Change, ...]
    """The case.yaml files changed."""


def stratum_of(case: Case) -> str:
    """The case's stratum: critical, else its policy."""
    return "critical" if case.critical else case.policy


def shares(sizes: dict[str, int], fraction: float) -> dict[str, int]:
    """Each stratum's number of holdout cases: fraction of the total rounded half up, by largest remainder."""
    total = math.floor(fraction * sum(sizes.values()) + 0.5)
    exact = {name: fraction * size for name, size in sizes.items()}
    out = {name: math.floor(value) for name, value in exact.items()}
    order = sorted(sizes, key=lambda name: (-(exact[name] - out[name]), name))
    for name in order[:max(0, total - sum(out.values()))]:
        out[name] += 1
    return out


def draw_holdout(corpus: Corpus, options: HoldoutOptions) -> HoldoutDraw:
    """Mark a random, stratified share of the active cases as holdout (UsageError without an active case)."""
    active = sorted((stored.case for stored in corpus.load_all("cases", active_only=True)), key=lambda c: c.id)
    if not active:
        raise UsageError(f"{corpus.root}: no active case to hold out")
    groups = {name: [c for c in active if stratum_of(c) == name] for name in STRATA}
    groups = {name: cases for name, cases in groups.items() if cases}
    wanted = shares({name: len(cases) for name, cases in groups.items()}, options.fraction)
    strata = []
    for name, cases in groups.items():
        already = tuple(c.id for c in cases if c.holdout)
        pool = [c.id for c in cases if not c.holdout]
        need = min(len(pool), max(0, wanted[name] - len(already)))
        chosen = sorted(random.Random(f"{options.seed}:{name}").sample(pool, need))
        strata.append(Stratum(name, len(cases), already, tuple(chosen)))
    ids = [case_id for stratum in strata for case_id in stratum.chosen]
    changes = set_fields(corpus, ids, "cases", Changes(holdout=True), dry_run=options.dry_run) if ids else []
    return HoldoutDraw(tuple(strata), tuple(changes))
