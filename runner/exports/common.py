"""What every case export shares: selecting the cases, the base content of paths, and the warnings that say what a
target cannot carry over."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from corpus.errors import GitError, UsageError
from corpus.fsutil import hindcast_temp
from corpus.gitutil import open_repository, resolve_commit, run_git
from corpus.store import Corpus, StoredCase


@dataclass(frozen=True)
class Note:
    """One thing about one case that the target cannot express, or why the case was left out."""

    case_id: str
    """The case."""
    field: str
    """The case field (``setup.python``, ``grader.fail_to_pass``, ``max_turns``, ...)."""
    message: str
    """What happens to it in the target."""
    skipped: bool = False
    """True when the case is left out of the export because of it."""

    def line(self) -> str:
        """The warning as printed: ``<case>: <field>: <message>`` (``skipped`` first when the case is left out)."""
        return f"{self.case_id}: {'skipped: ' if self.skipped else ''}{self.field}: {self.message}"


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote and what it could not carry over."""

    target: Path
    """The file or directory written (nothing is written when no case could be exported)."""
    exported: tuple[str, ...]
    """Ids of the cases written, in order."""
    notes: tuple[Note, ...]
    """Every warning, one per case and field."""

    @property
    def skipped(self) -> tuple[str, ...]:
        """Ids of the cases left out."""
        return tuple(dict.fromkeys(n.case_id for n in self.notes if n.skipped))


def select_cases(corpus: Corpus, case_ids: tuple[str, ...] = ()) -> list[StoredCase]:
    """The corpus's active cases, or the named ones (each must exist; a deprecated one is refused)."""
    if not case_ids:
        stored = corpus.load_all(active_only=True)
        if not stored:
            raise UsageError(f"--corpus {corpus.root}: no active cases to export")
        return stored
    out = []
    for case_id in dict.fromkeys(case_ids):
        if case_id not in corpus.ids():
            raise UsageError(f"--case {case_id}: no such case in {corpus.root}")
        loaded = corpus.load(case_id)
        if loaded.case.status != "active":
            raise UsageError(f"--case {case_id}: the case is deprecated")
        out.append(loaded)
    return out


def source_repository(corpus: Corpus, override: Path | None) -> Path:
    """The corpus's source repository (``--repo`` overrides corpus.yaml's); a one-line error naming it."""
    path = corpus.repo_path(override)
    try:
        return open_repository(path)
    except GitError as exc:
        raise UsageError(f"--repo {path}: {exc}") from None


def check_commits(repo: Path, stored: StoredCase) -> str | None:
    """Why the case's base commit cannot be read from repo, or None when it can."""
    if resolve_commit(repo, stored.case.base_commit) is None:
        return f"base commit {stored.case.base_commit} is not in {repo}"
    return None


@dataclass(frozen=True)
class BaseEntry:
    """A path as the base commit has it."""

    mode: str
    """git's file mode: 100644, 100755 or 120000 (a link)."""
    content: bytes
    """The blob (a link's target for a link)."""


def base_entries(repo: Path, commit: str, paths: list[str]) -> dict[str, BaseEntry]:
    """Every file at or under paths in commit's tree, by path (a path the base lacks is absent)."""
    if not paths:
        return {}
    listing = run_git(["ls-tree", "-r", "-z", "--full-tree", commit, "--", *paths], repo).stdout
    entries: dict[str, BaseEntry] = {}
    for item in listing.split(b"\0"):
        if not item:
            continue
        meta, _, name = item.partition(b"\t")
        mode, kind, sha = meta.decode().split()
        if kind != "blob":
            continue
        blob = run_git(["cat-file", "blob", sha], repo).stdout
        entries[name.decode("utf-8", "surrogateescape")] = BaseEntry(mode, blob)
    return entries


def out_directory_free(out: Path) -> None:
    """--out must not be an existing file or a non-empty directory."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise UsageError(f"--out {out}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()):
        raise UsageError(f"--out {out}: exists and is not empty")


def out_file_free(out: Path) -> None:
    """--out must not be a directory (an existing file is replaced atomically)."""
    if out.is_dir():
        raise UsageError(f"--out {out}: is a directory (give a FILE.jsonl)")


@contextmanager
def scratch_directory(prefix: str) -> Iterator[Path]:
    """A temporary directory removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix=prefix, dir=hindcast_temp()))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)

