"""verification.json: the last `runner verify` verdict of every case, and which cases a run would score unproved."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from corpus import Corpus, StoredCase, __version__, case_fingerprint
from corpus.fsutil import atomic_write_text
from corpus.layout import VERIFICATION_FILE

if TYPE_CHECKING:
    from runner.verify.verify import VerifyReport


def recorded_verdicts(corpus: Corpus) -> dict[str, dict[str, object]]:
    """The per-case entries of verification.json; a missing or unreadable record is an empty one."""
    path = corpus.root / VERIFICATION_FILE
    try:
        record = json.loads(path.read_text()) if path.exists() else {}
    except (OSError, ValueError):
        record = {}
    cases = record.get("cases") if isinstance(record, dict) else None
    return cases if isinstance(cases, dict) else {}


def record_verdicts(corpus: Corpus, report: VerifyReport) -> None:
    """Merge the verdicts into verification.json (atomically), with fingerprints for later runs to check."""
    path = corpus.root / VERIFICATION_FILE
    cases = recorded_verdicts(corpus)
    now = datetime.now(UTC).isoformat(timespec="seconds")
    for v in report.verdicts:
        cases[v.case_id] = {"verdict": v.verdict, "reason": v.reason, "case_fingerprint": v.case_fingerprint,
                            "repeats": max((a.repeat for a in v.attempts), default=0), "verified_at": now,
                            "hindcast_version": __version__}
    document = {"format": 1, "dataset_fingerprint": report.dataset_fingerprint, "updated": now, "cases": cases}
    atomic_write_text(path, json.dumps(document, indent=2, sort_keys=True) + "\n")


def unverified(corpus: Corpus, stored: list[StoredCase]) -> list[str]:
    """Ids among stored whose last recorded verdict is not VALID at the case's current fingerprint."""
    verdicts = recorded_verdicts(corpus)
    out = []
    for s in stored:
        entry = verdicts.get(s.case.id)
        if not (isinstance(entry, dict) and entry.get("verdict") == "VALID"
                and entry.get("case_fingerprint") == case_fingerprint(s.case, s.files)):
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
