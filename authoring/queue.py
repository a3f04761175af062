"""The review queue: one light row per candidate, read fast, sorted and filtered.

A queue of a thousand candidates must appear in well under a second, so rows come from a fast C YAML
read of each case.yaml, not the full validating load; the selected candidate is then loaded (and
validated) through `Corpus.load`. A file the fast read cannot parse still gets a row, marked broken.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml

from corpus import Corpus
from corpus.store import CASE_FILE, Kind

try:
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # PyYAML built without libyaml
    _Loader = yaml.SafeLoader

SORTS = ("score", "age", "id", "files")
"""Sort orders, in the order the review screen cycles through them."""


@dataclass(frozen=True)
class QueueRow:
    """What the queue shows of one candidate (or case)."""

    id: str
    """Directory name."""
    score: float
    """The miner's score (0 when unknown)."""
    subject: str
    """The fix commit's subject, else the title."""
    source_files: tuple[str, ...]
    """Source paths the fix changed."""
    test_files: tuple[str, ...]
    """Test paths the fix changed."""
    authored: date | None
    """The fix's author date."""
    broken: str | None = None
    """Why the fast read failed, when it did."""

    def age_days(self, today: date) -> int | None:
        """Days since the fix was authored."""
        return (today - self.authored).days if self.authored else None

    def matches(self, needle: str) -> bool:
        """Case-insensitive substring match on id, subject and changed paths."""
        needle = needle.lower().strip()
        if not needle:
            return True
        haystack = " ".join((self.id, self.subject, *self.source_files, *self.test_files)).lower()
        return all(word in haystack for word in needle.split())


def read_row(directory: Path) -> QueueRow:
    """The row for one case directory (never raises for a bad file: the row says what is wrong)."""
    try:
        data = yaml.load((directory / CASE_FILE).read_text(encoding="utf-8"), Loader=_Loader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        return QueueRow(directory.name, 0.0, f"(unreadable: {type(exc).__name__})", (), (), None, str(exc))
    if not isinstance(data, dict):
        return QueueRow(directory.name, 0.0, "(unreadable: not a mapping)", (), (), None, "not a mapping")
    mined_value = data.get("mined")
    mined: dict[str, Any] = mined_value if isinstance(mined_value, dict) else {}
    score = mined.get("score")
    return QueueRow(
        id=directory.name,
        score=float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else 0.0,
        subject=str(mined.get("subject") or data.get("title") or ""),
        source_files=_strings(mined.get("source_files")),
        test_files=_strings(mined.get("test_files")),
        authored=_date(mined.get("authored")),
    )


def read_queue(corpus: Corpus, kind: Kind = "candidates") -> list[QueueRow]:
    """Rows for every candidate (or case) in the corpus."""
    return [read_row(corpus.root / kind / case_id) for case_id in corpus.ids(kind)]


def arrange(rows: list[QueueRow], sort: str = "score", needle: str = "") -> list[QueueRow]:
    """The rows that match needle, in sort order (ties broken by id so the order is stable)."""
    shown = [row for row in rows if row.matches(needle)]
    if sort == "score":
        shown.sort(key=lambda r: (-r.score, r.id))
    elif sort == "age":
        shown.sort(key=lambda r: (r.authored or date.max, r.id))
    elif sort == "files":
        shown.sort(key=lambda r: (-(len(r.source_files) + len(r.test_files)), r.id))
    else:
        shown.sort(key=lambda r: r.id)
    return shown


def _strings(value: object) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, list) else ()


def _date(value: object) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value).date()
        except ValueError:
            return None
    return None
