"""The review queue: one light row per candidate, read fast, sorted and filtered.

A queue of a thousand candidates must appear in well under a second, so rows come from a fast C YAML
read of each case.yaml, not the full validating load; the selected candidate is then loaded (and
validated) through `Corpus.load`. A file the fast read cannot parse still gets a row, marked broken.
Each row carries the last `runner verify` verdict (`corpus.verdicts`): the score sort puts VALID first, then the
unverified, then INVALID and ERROR; `is:valid`, `is:feature`, `is:unverified`, `is:invalid`, `is:error` in the
filter keep only those.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any

import yaml

from authoring.leaks import Finding
from corpus import Corpus
from corpus.layout import CASE_FILE, Kind
from corpus.verdicts import RecordedVerdict, candidate_verdict, case_verdicts, verdicts

try:
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # PyYAML built without libyaml
    _Loader = yaml.SafeLoader

SORTS = ("score", "age", "id", "files")
"""Sort orders, in the order the review screen cycles through them."""
VERDICT_FILTERS = ("valid", "feature", "mixed", "unverified", "invalid", "error")
"""The `is:` filter words, in the order the review screen cycles through them."""
FILTER_PREFIX = "is:"
_LOOK_UP: RecordedVerdict = RecordedVerdict("VALID", "look it up")


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
    verdict: str | None = None
    """The last `runner verify` verdict (VALID, INVALID, ERROR), None when never verified."""
    feature: bool = False
    """Verified VALID with a base that lacks the names the tests use: the prompt must specify them."""
    mixed: bool = False
    """Verified VALID with some tests failing for lack of an interface: the prompt must specify it too."""

    @property
    def verdict_word(self) -> str:
        """The row's verdict as the `is:` filter names it: valid, feature, mixed, invalid, error or unverified."""
        if self.verdict is None:
            return "unverified"
        if self.verdict == "VALID" and (self.feature or self.mixed):
            return "feature" if self.feature else "mixed"
        return self.verdict.lower()

    @property
    def verdict_rank(self) -> int:
        """0 for VALID, 1 for unverified, 2 for INVALID and ERROR."""
        return {"VALID": 0, None: 1}.get(self.verdict, 2)

    def age_days(self, today: date) -> int | None:
        """Days since the fix was authored."""
        return (today - self.authored).days if self.authored else None

    def matches(self, needle: str) -> bool:
        """Case-insensitive substring match on id, subject and changed paths."""
        words = needle.lower().split()
        wanted = {word[len(FILTER_PREFIX):] for word in words if _is_verdict_word(word)}
        if wanted and not any(self._is(word) for word in wanted):
            return False
        haystack = " ".join((self.id, self.subject, *self.source_files, *self.test_files)).lower()
        return all(word in haystack for word in words if not _is_verdict_word(word))

    def _is(self, word: str) -> bool:
        return word == self.verdict_word or (word == "valid" and self.verdict == "VALID")


@dataclass(frozen=True)
class LeakCount:
    """How many leak findings a prompt has, and how many of them can never ship."""

    total: int
    """Every finding."""
    never_ship: int
    """Findings no justification overrides (secrets, personal data, the draft marker...)."""

    @staticmethod
    def of(findings: Sequence[Finding]) -> LeakCount:
        """The count of findings."""
        return LeakCount(len(findings), sum(not finding.overridable for finding in findings))


def age_label(days: int | None) -> str:
    """An age with its unit, at most four characters: `12d` under two months, `5mo` under two years, then `3y`."""
    if days is None:
        return "-"
    days = max(days, 0)  # a fix dated after today is a clock's error, not a negative age
    if days < 60:
        return f"{days}d"
    if days < 730:
        return f"{days // 30}mo"
    return f"{days // 365}y"


def read_row(directory: Path, recorded: RecordedVerdict | None = _LOOK_UP) -> QueueRow:
    """The row for one case directory (never raises for a bad file: the row says what is wrong), with its recorded
    verdict (looked up unless given)."""
    if recorded is _LOOK_UP:
        recorded = _recorded(directory)
    row = _read_row(directory)
    if recorded is None:
        return row
    return replace(row, verdict=recorded.verdict, feature=recorded.feature, mixed=recorded.mixed)


def _recorded(directory: Path) -> RecordedVerdict | None:
    if directory.parent.name == "cases":
        return case_verdicts(directory.parent.parent).get(directory.name)
    return candidate_verdict(directory)


def _read_row(directory: Path) -> QueueRow:
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
    ids = corpus.ids(kind)
    recorded = verdicts(corpus.root, kind, ids)
    return [read_row(corpus.root / kind / case_id, recorded.get(case_id)) for case_id in ids]


def arrange(rows: list[QueueRow], sort: str = "score", needle: str = "") -> list[QueueRow]:
    """The rows that match needle, in sort order (ties broken by id so the order is stable)."""
    shown = [row for row in rows if row.matches(needle)]
    if sort == "score":
        shown.sort(key=lambda r: (r.verdict_rank, -r.score, r.id))
    elif sort == "age":
        shown.sort(key=lambda r: (r.authored or date.max, r.id))
    elif sort == "files":
        shown.sort(key=lambda r: (-(len(r.source_files) + len(r.test_files)), r.id))
    else:
        shown.sort(key=lambda r: r.id)
    return shown


def cycle_verdict_filter(needle: str) -> str:
    """needle with its `is:` word moved to the next verdict (none, valid, feature, ..., error, none again)."""
    words = needle.split()
    current = next((w.lower()[len(FILTER_PREFIX):] for w in words if _is_verdict_word(w.lower())), None)
    rest = [w for w in words if not _is_verdict_word(w.lower())]
    order = [None, *VERDICT_FILTERS]
    following = order[(order.index(current) + 1) % len(order)]
    return " ".join(rest + ([FILTER_PREFIX + following] if following else []))


def _is_verdict_word(word: str) -> bool:
    return word.startswith(FILTER_PREFIX) and word[len(FILTER_PREFIX):] in VERDICT_FILTERS


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
