"""The Python of a project that declares none: the newest CPython that was out when the fix was committed."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from corpus.interpreters import Installed

Version = tuple[int, int]
RELEASED: dict[Version, datetime.date] = {
    (3, 0): datetime.date(2008, 12, 3),
    (3, 1): datetime.date(2009, 6, 27),
    (3, 2): datetime.date(2011, 2, 20),
    (3, 3): datetime.date(2012, 9, 29),
    (3, 4): datetime.date(2014, 3, 16),
    (3, 5): datetime.date(2015, 9, 13),
    (3, 6): datetime.date(2016, 12, 23),
    (3, 7): datetime.date(2018, 6, 27),
    (3, 8): datetime.date(2019, 10, 14),
    (3, 9): datetime.date(2020, 10, 5),
    (3, 10): datetime.date(2021, 10, 4),
    (3, 11): datetime.date(2022, 10, 24),
    (3, 12): datetime.date(2023, 10, 2),
    (3, 13): datetime.date(2024, 10, 7),
    (3, 14): datetime.date(2025, 10, 7),
}
"""The date of each CPython 3 minor's final release (X.Y.0). A version not listed counts as released after
every date the table knows; Python 2 is never chosen by date (2.7 came out after 3.1)."""


def _dotted(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


def python_of_date(committed: datetime.date, installed: Installed) -> tuple[str, str] | None:
    """The interpreter for a fix committed on that date, and the origin line saying why: the newest installed
    CPython released before the date; else the installed one nearest above the newest released by then; else
    the newest installed. None when nothing is installed."""
    if not installed:
        return None
    versions = [version for version, _ in installed]  # newest first
    why = f"from the commit date ({committed.isoformat()})"
    out = [version for version in versions if version in RELEASED and RELEASED[version] < committed]
    if out:
        return _dotted(out[0]), f"python {_dotted(out[0])}: {why}"
    released = [version for version, date in RELEASED.items() if date < committed]
    target = max(released, default=min(RELEASED))
    above = [version for version in versions if version >= target]
    if above:
        nearest = above[-1]
        because = (f"{_dotted(target)}, the newest released by then, is not installed: the nearest above it"
                   if released else "no CPython 3 was out by then: the oldest installed Python 3")
        return _dotted(nearest), f"python {_dotted(nearest)}: {why}; {because}"
    return _dotted(versions[0]), (f"python {_dotted(versions[0])}: {why}; no installed CPython 3 was released "
                                  "by then or is newer: the newest installed")
