"""What earlier scans covered (scan-state.yaml), so a scan restricted by date or revisions never hides the history
it left out from the next scan; and the span of history a scan walked, for its summary."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from corpus.errors import CorpusError, GitError, UsageError
from corpus.fsutil import atomic_write_text
from corpus.gitutil import resolve_commit, run_git
from corpus.layout import SCAN_STATE_FILE
from corpus.newcase import scalar
from corpus.yamlio import line_of
from miner.hygiene import read_state, state_key

REF_SETS = frozenset({"--all", "--branches", "--tags", "--remotes"})
REV = re.compile(r"^\^?[0-9a-f]{40}(?:[0-9a-f]{24})?$")
"""A recorded revision: a full sha, `^` before one whose history is left out."""


@dataclass(frozen=True)
class Covered:
    """One scan's share of history: the commits `git rev-list REVS` lists, with committer dates in [since, until]."""

    revs: tuple[str, ...]
    """Full shas the scan walked from; `^SHA` for those whose history it left out."""
    since: str | None = None
    """Committer date (ISO 8601) the scan started at; None: from the first commit."""
    until: str | None = None
    """Committer date (ISO 8601) the scan stopped at; None: up to the revisions."""
    scanned_at: str = ""
    """When the scan ran (ISO 8601)."""
    commits: int = 0
    """How many commits that scan read."""

    @property
    def whole(self) -> str | None:
        """The commit whose entire history this covers; None when it covers only part of a history."""
        if len(self.revs) == 1 and not self.revs[0].startswith("^") and self.since is None and self.until is None:
            return self.revs[0]
        return None

    def key(self) -> tuple[tuple[str, ...], str | None, str | None]:
        """What the entry covers (two entries with equal keys cover the same commits)."""
        return self.revs, self.since, self.until

    def to_data(self) -> dict[str, Any]:
        """The entry as written to scan-state.yaml."""
        data: dict[str, Any] = {"revs": list(self.revs)}
        if self.since is not None:
            data["since"] = self.since
        if self.until is not None:
            data["until"] = self.until
        return {**data, "scanned_at": self.scanned_at, "commits": self.commits}


@dataclass(frozen=True)
class Walk:
    """What a scan walks and what it leaves out because earlier scans covered it."""

    revs: list[str]
    """The revisions for git log (`^SHA` for each history covered whole)."""
    skip: frozenset[str]
    """Commits in those revisions that earlier, restricted scans already read."""
    previous: tuple[Covered, ...]
    """The earlier entries still valid (kept in the state with this scan's)."""


@dataclass(frozen=True)
class Span:
    """The newest and oldest commit a scan read, with their committer dates."""

    newest: str
    """Full sha of the first commit the walk met (the newest)."""
    oldest: str
    """Full sha of the last commit the walk met (the oldest)."""
    newest_date: str
    """Committer date of newest, ISO 8601."""
    oldest_date: str
    """Committer date of oldest, ISO 8601."""

    def to_json(self) -> dict[str, Any]:
        """Plain data for --json."""
        return {"newest": {"sha": self.newest, "date": self.newest_date},
                "oldest": {"sha": self.oldest, "date": self.oldest_date}}

    def describe(self) -> str:
        """`from 2019-01-02 to 2023-05-01 (a1b2c3d..e4f5a6b)`."""
        return f"from {self.oldest_date[:10]} to {self.newest_date[:10]} ({self.oldest[:7]}..{self.newest[:7]})"


def iso(epoch: int) -> str:
    """Seconds since the epoch as an ISO 8601 UTC date."""
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds")


def _epoch(text: str) -> int:
    return int(datetime.fromisoformat(text).timestamp())


def _entry(path: Path, raw: Any, where: int | None) -> Covered:
    if not isinstance(raw, dict) or not isinstance(raw.get("revs"), list) or not raw["revs"]:
        raise CorpusError(path, "each entry needs `revs`, a list of commits", field="covered", line=where)
    bad = next((rev for rev in raw["revs"] if isinstance(rev, bool) or not REV.match(str(rev))), None)
    if bad is not None:
        raise CorpusError(path, f"expected full commit shas (^ for an excluded one), found {bad!r}",
                          field="covered", line=line_of(raw, "revs"))
    try:
        for name in ("since", "until"):
            if raw.get(name) is not None:
                _epoch(str(raw[name]))
        return Covered(tuple(str(rev) for rev in raw["revs"]),
                       str(raw["since"]) if raw.get("since") is not None else None,
                       str(raw["until"]) if raw.get("until") is not None else None,
                       str(raw.get("scanned_at") or ""), int(raw.get("commits") or 0))
    except (TypeError, ValueError) as exc:
        raise CorpusError(path, f"not a covered range ({exc})", field="covered", line=where) from None


def read_covered(corpus_root: Path, repo: Path) -> list[Covered]:
    """The covered ranges recorded for repo (a state from before they were recorded: its one tip, whole)."""
    path = corpus_root / SCAN_STATE_FILE
    entry = read_state(corpus_root).get("repositories", {}).get(state_key(repo))
    if not entry:
        return []
    if "covered" in entry:
        if not isinstance(entry["covered"], list):
            raise CorpusError(path, "expected a list", field="covered")
        items = entry["covered"]
        return [_entry(path, raw, line_of(items, index)) for index, raw in enumerate(items)]
    tip = entry.get("tip")
    if tip and not REV.match(str(tip)):
        raise CorpusError(path, f"expected a full commit sha, found {tip!r}", field="tip", line=line_of(entry, "tip"))
    return [Covered((str(tip),), scanned_at=str(entry.get("scanned_at") or ""),
                    commits=int(entry.get("commits_scanned") or 0))] if tip else []


def _gone(repo: Path, entry: Covered) -> str | None:
    return next((rev for rev in entry.revs if resolve_commit(repo, rev.removeprefix("^")) is None), None)


def _rev_list(repo: Path, entry: Covered) -> set[str]:
    dates = [f"--max-age={_epoch(entry.since)}"] if entry.since else []
    dates += [f"--min-age={_epoch(entry.until)}"] if entry.until else []
    return set(run_git(["rev-list", *dates, *entry.revs, "--"], repo).stdout.decode().split())


def plan_walk(repo: Path, start: list[str], covered: list[Covered], warnings: list[str], *,
              leave_out: bool = True) -> Walk:
    """The walk from start leaving out what covered holds (when leave_out): a history covered whole by `^SHA`,
    a restricted scan's commits by sha. An entry naming a commit that is gone is dropped (with a warning when
    it would have been left out)."""
    excludes: list[str] = []
    skip: set[str] = set()
    kept: list[Covered] = []
    for entry in covered:
        gone = _gone(repo, entry)
        if gone is not None:
            if leave_out:
                warnings.append(f"last scanned tip {gone.removeprefix('^')[:12]} is gone from the repository; "
                                f"scanning its history again")
            continue
        kept.append(entry)
        if not leave_out:
            continue
        if entry.whole:
            excludes.append(f"^{entry.whole}")
        else:
            skip |= _rev_list(repo, entry)
    return Walk([*excludes, *start], frozenset(skip), tuple(kept))


def check_revs(rev: str) -> list[str]:
    """The words of --rev, each a revision, a range or a ref set (UsageError for an option git would take)."""
    revs = rev.split()
    for word in revs:
        if word.startswith("-") and word not in REF_SETS:
            raise UsageError(f"--rev {word!r}: not a revision (use a range such as v1.0..main, or --all)")
    return revs


def resolve_revs(repo: Path, revs: list[str]) -> tuple[str, ...]:
    """The revisions as full shas (`^SHA` for an excluded one), as `git rev-parse` resolves ranges and ref sets."""
    out = run_git(["rev-parse", *revs, "--"], repo).stdout.decode().split()
    return tuple(word for word in out if word != "--")


def walk_of(repo: Path, head: str | None, rev: str | None, full: bool, covered: list[Covered],
            warnings: list[str]) -> Walk:
    """What a scan's first pass walks: --rev as given; otherwise HEAD without what earlier scans covered
    (unless full). The earlier entries still valid are kept in it either way."""
    if rev:
        return replace(plan_walk(repo, [], covered, warnings, leave_out=False), revs=check_revs(rev))
    if head is None:
        raise GitError(f"{repo}: the repository has no commits; nothing to scan")
    return plan_walk(repo, [head], covered, warnings, leave_out=not full)


def scan_entry(repo: Path, head: str | None, rev: str | None, dates: dict[str, int], commits: int) -> Covered:
    """A finished scan's covered range: the --rev revisions resolved, or HEAD between --since and --until
    (dates: as git read them, seconds since the epoch)."""
    at = iso(int(time.time()))
    if rev:
        return Covered(resolve_revs(repo, check_revs(rev)), scanned_at=at, commits=commits)
    since, until = dates.get("since"), dates.get("until")
    return Covered((str(head),), iso(since) if since is not None else None, iso(until) if until is not None else None,
                   at, commits)


def _is_ancestor(repo: Path, commit: str, of: str) -> bool:
    return commit == of or run_git(["merge-base", "--is-ancestor", commit, of], repo, check=False).returncode == 0


def compact(repo: Path, entries: list[Covered]) -> list[Covered]:
    """The entries without those another covers: every commit an entry walked from lies in a history covered
    whole by another entry; of equal entries the last is kept."""
    wholes = [entry.whole for entry in entries if entry.whole]
    kept: list[Covered] = []
    seen: set[tuple[tuple[str, ...], str | None, str | None]] = set()
    for entry in reversed(entries):
        if entry.key() in seen:
            continue
        seen.add(entry.key())
        starts = [rev for rev in entry.revs if not rev.startswith("^")]
        if any(whole != entry.whole and all(_is_ancestor(repo, start, whole) for start in starts)
               for whole in wholes):
            continue
        kept.append(entry)
    return kept[::-1]


def _block(value: dict[str, Any] | list[Any], indent: int) -> str:
    """Block-style YAML lines of a non-empty mapping or list of plain data, `indent` spaces in."""
    pad = " " * indent
    lines = []
    for key, item in value.items() if isinstance(value, dict) else ((None, item) for item in value):
        lead = f"{pad}- " if key is None else f"{pad}{scalar(str(key), indent)}:"
        if isinstance(item, dict | list) and item:
            inner = _block(item, indent + 2)
            lines.append(lead + inner[indent + 2:] if key is None else f"{lead}\n{inner}")
        else:
            text = ("{}" if isinstance(item, dict) else "[]") if isinstance(item, dict | list) else scalar(item, indent + 2)
            lines.append(f"{lead}{text}\n" if key is None else f"{lead} {text}\n")
    return "".join(lines)


def record_covered(corpus_root: Path, repo: Path, entry: Covered, previous: tuple[Covered, ...]) -> None:
    """Add this scan's entry to repo's covered ranges, without the ones it makes redundant (atomic write;
    other repositories' entries kept)."""
    state = read_state(corpus_root)
    repositories = dict(state.get("repositories", {}))
    covered = compact(repo, [*previous, entry])
    repositories[state_key(repo)] = {"covered": [item.to_data() for item in covered]}
    text = f"repositories:\n{_block(repositories, 2)}" if repositories else "repositories: {}\n"
    atomic_write_text(corpus_root / SCAN_STATE_FILE, text)


def span_of(repo: Path, newest: str | None, oldest: str | None) -> Span | None:
    """The span between the first and the last commit a walk met (None when it met none)."""
    if newest is None or oldest is None:
        return None
    dates = run_git(["show", "-s", "--format=%cI", newest, oldest, "--"], repo).stdout.decode().split()
    return Span(newest, oldest, dates[0], dates[-1])
