"""The recorded `runner verify` verdicts: their format, reading and atomic writing (runner writes, authoring reads).

Approved cases share `verification.json` at the corpus root (`{"format": 1, "dataset_fingerprint", "updated",
"cases": {id: entry}}`); each candidate keeps its own `candidates/<id>/verification.json` (`{"format": 1, **entry}`),
so verifying one candidate never rewrites another's record, a re-scan that adds candidates leaves every record as it
is, and the record goes with its candidate when it is approved, rejected or rewritten (a draft saved into it
keeps the record when it changes nothing verify measured: `corpus.fingerprint.verified_fingerprint`). An unreadable record reads
as none: it is only ever a cache of what verify measured.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from corpus.fsutil import atomic_write_text
from corpus.layout import VERIFICATION_FILE, Kind

VERDICTS = ("VALID", "INVALID", "ERROR")
FORMAT = 1


@dataclass(frozen=True)
class RecordedVerdict:
    """One case's (or candidate's) last verdict."""

    verdict: str
    """VALID, INVALID or ERROR."""
    reason: str = ""
    """Why (empty for VALID)."""
    case_fingerprint: str = ""
    """The case fingerprint it was verified at."""
    feature: bool = False
    """The base failed only for lack of the names or signatures the tests use: the prompt must specify them."""
    repeats: int = 0
    """Runs of each side."""
    verified_at: str = ""
    """ISO 8601 time of the verify."""
    hindcast_version: str = ""
    """The Hindcast version that verified it."""
    logs: str | None = None
    """Where the logs of its unexpected attempts were kept, when any were."""
    mixed: bool = False
    """Some tests failed at base for lack of an interface and others on the bug: the prompt must name it."""
    skipped: tuple[str, ...] = ()
    """The fix's tests that skipped on both sides (measured on neither)."""
    unstable: tuple[str, ...] = ()
    """Tests whose outcome changed across the runs of one side: in neither of the grader's lists."""


def verdict_from(entry: object) -> RecordedVerdict | None:
    """An entry as read from JSON, or None when it is not a verdict."""
    if not isinstance(entry, dict) or entry.get("verdict") not in VERDICTS:
        return None
    known = {f.name: f.type for f in fields(RecordedVerdict)}
    values: dict[str, Any] = {}
    for name, value in entry.items():
        if name not in known:
            continue
        if name in ("feature", "mixed"):
            values[name] = value is True
        elif name in ("skipped", "unstable"):
            values[name] = tuple(str(v) for v in value) if isinstance(value, list) else ()
        elif name == "repeats":
            values[name] = value if isinstance(value, int) and not isinstance(value, bool) else 0
        elif name == "logs":
            values[name] = value if isinstance(value, str) else None
        elif isinstance(value, str):
            values[name] = value
    return RecordedVerdict(**values)


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def case_verdicts(root: Path) -> dict[str, RecordedVerdict]:
    """The approved cases' verdicts from verification.json (none when it is missing or unreadable)."""
    document = _read_json(root / VERIFICATION_FILE)
    cases = document.get("cases") if isinstance(document, dict) else None
    if not isinstance(cases, dict):
        return {}
    found = {case_id: verdict_from(entry) for case_id, entry in cases.items()}
    return {case_id: verdict for case_id, verdict in found.items() if verdict is not None}


def write_case_verdicts(root: Path, verdicts: dict[str, RecordedVerdict], dataset_fingerprint: str | None,
                        updated: str, *, drop: tuple[str, ...] = ()) -> None:
    """Merge verdicts into verification.json (atomically; other cases' entries are kept as they are) and remove
    the entries of drop. A dataset_fingerprint of None keeps the one of the last verify (a verdict carried over
    by an approval is no verify of the dataset)."""
    path = root / VERIFICATION_FILE
    document = _read_json(path)
    cases = document.get("cases") if isinstance(document, dict) else None
    merged: dict[str, Any] = dict(cases) if isinstance(cases, dict) else {}
    merged.update({case_id: asdict(verdict) for case_id, verdict in verdicts.items()})
    for case_id in drop:
        merged.pop(case_id, None)
    if dataset_fingerprint is None:
        kept = document.get("dataset_fingerprint") if isinstance(document, dict) else None
        dataset_fingerprint = kept if isinstance(kept, str) else ""
    out = {"format": FORMAT, "dataset_fingerprint": dataset_fingerprint, "updated": updated, "cases": merged}
    atomic_write_text(path, json.dumps(out, indent=2, sort_keys=True) + "\n")


def candidate_verdict(directory: Path) -> RecordedVerdict | None:
    """A candidate's own verdict (None when it has none or it is unreadable)."""
    return verdict_from(_read_json(directory / VERIFICATION_FILE))


def write_candidate_verdict(directory: Path, verdict: RecordedVerdict) -> None:
    """Write a candidate's verdict into its directory, atomically."""
    atomic_write_text(directory / VERIFICATION_FILE,
                      json.dumps({"format": FORMAT, **asdict(verdict)}, indent=2, sort_keys=True) + "\n")


def verdicts(root: Path, kind: Kind, ids: list[str]) -> dict[str, RecordedVerdict]:
    """The last verdict of each of ids that has one: cases from verification.json, candidates from their own."""
    if kind == "cases":
        recorded = case_verdicts(root)
        return {case_id: recorded[case_id] for case_id in ids if case_id in recorded}
    found = {case_id: candidate_verdict(root / kind / case_id) for case_id in ids}
    return {case_id: verdict for case_id, verdict in found.items() if verdict is not None}
