"""Recording verdicts (`corpus.verdicts`: verification.json for cases, one file per candidate), and which cases a
run would score unproved."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from corpus import Corpus, StoredCase, __version__, case_fingerprint
from corpus.verdicts import RecordedVerdict, case_verdicts, write_candidate_verdict, write_case_verdicts

if TYPE_CHECKING:
    from runner.verify.verify import CaseVerdict, VerifyReport


def recorded(verdict: CaseVerdict, now: str) -> RecordedVerdict:
    """The verdict as recorded."""
    measured = verdict.measured
    return RecordedVerdict(verdict.verdict, verdict.reason, verdict.case_fingerprint, verdict.feature,
                           max((a.repeat for a in verdict.attempts if a.side == "oracle"), default=0), now,
                           __version__, verdict.logs, verdict.mixed, measured.skipped if measured else (),
                           measured.flaky if measured else ())


def now_stamp() -> str:
    """The time, as records give it."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def record_verdicts(corpus: Corpus, report: VerifyReport) -> None:
    """Merge the cases' verdicts into verification.json (atomically), with fingerprints for later runs to check."""
    if report.dataset_fingerprint is None:  # no case: nothing to record
        return
    now = now_stamp()
    write_case_verdicts(corpus.root, {v.case_id: recorded(v, now) for v in report.verdicts},
                        report.dataset_fingerprint, now)


def record_candidate_verdict(corpus: Corpus, verdict: CaseVerdict) -> None:
    """Write a candidate's verdict into its own directory (atomically)."""
    write_candidate_verdict(corpus.root / "candidates" / verdict.case_id, recorded(verdict, now_stamp()))


def unverified(corpus: Corpus, stored: list[StoredCase]) -> list[str]:
    """Ids among stored whose last recorded verdict is not VALID at the case's current fingerprint."""
    verdicts = case_verdicts(corpus.root)
    out = []
    for s in stored:
        entry = verdicts.get(s.case.id)
        if not (entry is not None and entry.verdict == "VALID"
                and entry.case_fingerprint == case_fingerprint(s.case, s.files)):
            out.append(s.case.id)
    return out


def unverified_warning(corpus: Corpus, case_ids: tuple[str, ...], all_cases: bool, mode: str | None) -> str | None:
    """A score on a case nobody proved (base fails, oracle passes) means little: the warning to print once a run of
    these cases starts, or None."""
    if mode not in (None, "agent"):
        return None
    known = set(corpus.ids("cases"))
    chosen = [corpus.load(c) for c in dict.fromkeys(case_ids) if c in known]
    if all_cases:
        chosen = corpus.load_all("cases", active_only=True)
    pending = unverified(corpus, chosen)
    if not pending:
        return None
    shown = ", ".join(pending[:5]) + (f" and {len(pending) - 5} more" if len(pending) > 5 else "")
    return f"warning: {len(pending)} case(s) not verified VALID at their current content: {shown} (run `runner verify`)"
