"""The quarantine file: cases a person took out of the gate for a while, with an owner and an expiry date.

```yaml
quarantine:
  - case: flaky-network          # a case id (every variant) or variant::case
    reason: times out on CI about one run in five
    owner: alice
    expiry: 2024-07-01           # ISO date; the entry holds through that day
```

A malformed file (bad YAML, unknown keys, an entry without ``case``, an expiry that is not a date) is bad input.
An entry without owner or expiry is well-formed but invalid: ``runner flakes --quarantine-out`` writes such
stubs on purpose, and the gate blocks until a person fills them in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from corpus.errors import CorpusError
from corpus.yamlio import line_of, load_yaml, to_yaml_value, write_yaml

TOP_KEY = "quarantine"
ENTRY_KEYS = ("case", "reason", "owner", "expiry")
HEADER = ("Cases excluded from the gate while someone fixes them. Every entry needs an owner and an expiry\n"
          "date; critical cases cannot be quarantined. Fill in the blanks before the gate accepts an entry.")


@dataclass(frozen=True)
class QuarantineEntry:
    """One quarantined case."""

    case: str
    """The case id (every variant) or ``variant::case``."""
    reason: str = ""
    """Why it is quarantined."""
    owner: str | None = None
    """Who answers for bringing it back; None when missing."""
    expiry: date | None = None
    """Last day the entry holds; None when missing."""
    line: int | None = None
    """Line of the entry in the file, when it came from one."""

    @property
    def case_id(self) -> str:
        """The case id the entry names, without a variant."""
        return self.case.rsplit("::", 1)[-1]

    def problems(self) -> list[str]:
        """What makes the entry unacceptable to the gate, apart from criticality (the corpus knows that)."""
        missing = [name for name, value in (("owner", self.owner), ("expiry", self.expiry)) if value is None]
        return [f"no {name}" for name in missing]

    def expired(self, today: date) -> bool:
        """True once the expiry day has passed; an expired entry no longer excludes its case."""
        return self.expiry is not None and self.expiry < today

    def covers(self, labels: Iterable[str]) -> bool:
        """True when the entry names one of a compared row's labels (its case id or variant::case)."""
        return self.case in set(labels)

    def where(self, path: Path | None) -> str:
        """``file:line`` for messages, or just the case when the entry did not come from a file."""
        if path is None:
            return self.case
        return f"{path}:{self.line}" if self.line is not None else str(path)


@dataclass(frozen=True)
class Quarantine:
    """The entries of one quarantine file (empty when none was given)."""

    entries: tuple[QuarantineEntry, ...] = ()
    """Entries in file order."""
    path: Path | None = None
    """The file they came from."""

    def excluding(self, labels: Sequence[str], today: date) -> QuarantineEntry | None:
        """The first acceptable, unexpired entry covering a row with these labels, if any.

        Only entries without problems exclude; whether an entry covers a critical case is judged by the gate,
        which never lets a critical case be excluded.
        """
        for entry in self.entries:
            if entry.covers(labels) and not entry.problems() and not entry.expired(today):
                return entry
        return None


def load_quarantine(path: Path) -> Quarantine:
    """Read and check a quarantine file; a missing or malformed file raises CorpusError."""
    return parse_quarantine(load_yaml(path), path)


def parse_quarantine(data: Any, path: Path) -> Quarantine:
    """Check a loaded quarantine document and build the entries."""
    if data is None:
        return Quarantine((), path)
    if not isinstance(data, dict):
        raise CorpusError(path, f"expected a mapping with a {TOP_KEY!r} list", line=line_of(data))
    unknown = [key for key in data if key != TOP_KEY]
    if unknown:
        raise CorpusError(path, "unknown key", field=str(unknown[0]), line=line_of(data, unknown[0]))
    items = data.get(TOP_KEY)
    if items is None:
        return Quarantine((), path)
    if not isinstance(items, list):
        raise CorpusError(path, "expected a list of entries", field=TOP_KEY, line=line_of(data, TOP_KEY))
    return Quarantine(tuple(_entry(item, index, path) for index, item in enumerate(items)), path)


def _entry(item: Any, index: int, path: Path) -> QuarantineEntry:
    field = f"{TOP_KEY}[{index}]"
    line = line_of(item)
    if not isinstance(item, dict):
        raise CorpusError(path, "expected a mapping with case, reason, owner and expiry", field=field, line=line)
    for key in item:
        if key not in ENTRY_KEYS:
            raise CorpusError(path, "unknown key", field=f"{field}.{key}", line=line_of(item, key))
    case = _text(item.get("case"))
    if case is None:
        raise CorpusError(path, "every entry needs a case (id or variant::case)", field=f"{field}.case", line=line)
    return QuarantineEntry(
        case=case,
        reason=_text(item.get("reason")) or "",
        owner=_text(item.get("owner")),
        expiry=_date(item.get("expiry"), path, f"{field}.expiry", line_of(item, "expiry")),
        line=line,
    )


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _date(value: Any, path: Path, field: str, line: int | None) -> date | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value).strip())
    except ValueError:
        raise CorpusError(path, f"not an ISO date (YYYY-MM-DD): {value!r}", field=field, line=line) from None


@dataclass(frozen=True)
class Stub:
    """A quarantine entry to be completed by a person: case and reason filled, owner and expiry blank."""

    case: str
    """The case id or variant::case."""
    reason: str
    """What the flake detector saw."""


def write_stubs(path: Path, stubs: Sequence[Stub]) -> list[str]:
    """Append stub entries for cases the file does not name yet; returns the cases added.

    An existing file is edited in place (comments and filled-in entries survive) and written atomically.
    """
    document: Any = load_yaml(path) if path.exists() else None
    parse_quarantine(document, path)
    if not isinstance(document, CommentedMap):
        document = CommentedMap()
        document.yaml_set_start_comment(HEADER)
    entries = document.get(TOP_KEY)
    if not isinstance(entries, CommentedSeq) or not entries:
        entries = CommentedSeq()
        document[TOP_KEY] = entries
    named = {_text(item.get("case")) for item in entries}
    added: list[str] = []
    for stub in stubs:
        if stub.case in named:
            continue
        entries.append(to_yaml_value({"case": stub.case, "reason": stub.reason, "owner": None, "expiry": None}))
        named.add(stub.case)
        added.append(stub.case)
    if added or not path.exists():
        write_yaml(path, document)
    return added
