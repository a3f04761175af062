"""`verify now`: run `runner verify` on one candidate and reduce the report to a verdict."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from corpus import Corpus, HindcastError
from corpus.layout import Kind


@dataclass(frozen=True)
class VerifyOutcome:
    """The verdict of one candidate."""

    case_id: str
    """The candidate (or case) verified."""
    verdict: str
    """VALID, INVALID or ERROR."""
    reason: str
    """Why (empty for VALID)."""


Progress = Callable[[str], None]
Verifier = Callable[[Corpus, str, Kind, Progress], VerifyOutcome]
"""Runs verify for one id of a kind, reporting progress lines; returns the outcome and never raises."""


def runner_verifier(corpus: Corpus, case_id: str, kind: Kind, progress: Progress) -> VerifyOutcome:
    """Verify through the runner's library API (baseline must fail, oracle must pass)."""
    from runner.verify.verify import VerifyOptions, verify

    try:
        report = verify(corpus, VerifyOptions(case_ids=(case_id,), kind=kind), progress)
    except (HindcastError, OSError) as exc:
        return VerifyOutcome(case_id, "ERROR", str(exc))
    for verdict in report.verdicts:
        if verdict.case_id == case_id:
            return VerifyOutcome(case_id, verdict.verdict, verdict.reason)
    return VerifyOutcome(case_id, "ERROR", "verify returned no verdict")
