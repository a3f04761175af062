"""`runner env list` and `runner env prune` over a cache directory (see runner.envs.cache for its layout)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from corpus.errors import UsageError
from runner.envs.cache import COMPLETE, check_cache_dir, lock_entry, read_meta
from runner.envs.trash import TRASH_DIR, discard, empty


@dataclass(frozen=True)
class EntryInfo:
    """One complete entry as `runner env list` shows it."""

    key: str
    """The key's digest."""
    python: str | None
    """setup.python of the key."""
    command: str | None
    """setup.command of the key."""
    size: int
    """Bytes on disk."""
    created: str
    """ISO 8601 time it was built."""
    last_used: str
    """ISO 8601 time a workspace last used it."""
    cases: tuple[str, ...]
    """Cases that used it."""
    meta: dict[str, Any]
    """The whole entry.json."""


@dataclass(frozen=True)
class PruneResult:
    """What `runner env prune` did."""

    removed: tuple[str, ...]
    """Digests of the entries removed (half-built leftovers included)."""
    in_use: tuple[str, ...]
    """Digests that were due but in use (locked by a build or a run), kept."""
    freed: int
    """Bytes removed (the trash's included: what failed or interrupted builds left there)."""


def list_entries(root: Path) -> list[EntryInfo]:
    """The complete entries under a cache directory, most recently used first (none when it does not exist)."""
    root = check_cache_dir(root, create=False)
    found = []
    for directory in _entry_dirs(root):
        if not (directory / COMPLETE).is_file():
            continue
        try:
            meta = read_meta(directory)
        except (OSError, ValueError, UsageError):
            continue
        parts = meta.get("parts") or {}
        found.append(EntryInfo(directory.name, parts.get("python"), parts.get("command"), int(meta.get("size", 0)),
                               str(meta.get("created", "")), str(meta.get("last_used", "")),
                               tuple(meta.get("cases", ())), meta))
    return sorted(found, key=lambda e: e.last_used, reverse=True)


def prune_entries(root: Path, older_than: float | None = None, everything: bool = False,
                  now: datetime | None = None) -> PruneResult:
    """Remove entries unused for more than older_than days (or every entry), and half-built leftovers, then
    empty the trash.

    An entry leaves the entries only under its exclusive lock, so one being built or used by a run or verify is
    kept; it is renamed into the trash, its lock let go, and the trash emptied after.
    """
    if older_than is None and not everything:
        raise UsageError("runner env prune: give --older-than DAYS or --all")
    if older_than is not None and older_than < 0:
        raise UsageError(f"--older-than {older_than:g}: must not be negative")
    root = check_cache_dir(root, create=False)
    cutoff = (now or datetime.now(UTC)) - timedelta(days=older_than or 0)
    removed, in_use = [], []
    if not root.is_dir():
        return PruneResult((), (), 0)
    trash = root / TRASH_DIR
    trash.mkdir(exist_ok=True)
    for directory in _entry_dirs(root):
        complete = (directory / COMPLETE).is_file()
        if complete and not everything and not _unused_since(directory, cutoff):
            continue
        fd = lock_entry(root, directory.name, blocking=False)
        if fd is None:
            in_use.append(directory.name)
            continue
        try:
            discard(trash, directory)
            (root / "locks" / f"{directory.name}.lock").unlink(missing_ok=True)
        finally:
            os.close(fd)
        removed.append(directory.name)
    return PruneResult(tuple(removed), tuple(in_use), empty(trash))


def _entry_dirs(root: Path) -> list[Path]:
    entries = root / "entries"
    return sorted(p for p in entries.iterdir() if p.is_dir()) if entries.is_dir() else []


def _unused_since(directory: Path, cutoff: datetime) -> bool:
    try:
        last = datetime.fromisoformat(str(read_meta(directory).get("last_used")))
    except (OSError, ValueError, UsageError):
        return True
    return last < cutoff

