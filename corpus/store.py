"""The corpus directory: load, validate and write cases, candidates and rejections."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from corpus.errors import CorpusError, UsageError
from corpus.fsutil import atomic_write_bytes, atomic_write_text, replace_directory, staging_directory
from corpus.httpschema import check_http_files
from corpus.layout import (
    CASE_FILE,
    CONFIG,
    GRADER_DIR,
    HTTP_DIR,
    ORACLE_FILE,
    REJECTED_FILE,
    Kind,
    case_mapping,
    check_id,
    repo_path,
)
from corpus.model import Case, CaseFiles, CorpusConfig, Rejection
from corpus.newcase import emit, write_new
from corpus.schema import case_problems, parse_case, parse_config, parse_rejections, to_mapping
from corpus.yamlio import load_yaml, merge_into, to_yaml_value, write_yaml


@dataclass(frozen=True)
class StoredCase:
    """A case as found on disk: the model, its hidden files and where it lives."""

    case: Case
    """The validated case."""
    files: CaseFiles
    """Oracle patch and grader files."""
    directory: Path
    """The case directory."""
    mtime_ns: int
    """case.yaml's modification time when loaded, to refuse writes over someone else's edit."""


class Corpus:
    """A corpus directory. Open it with `Corpus.open`; create one with `Corpus.init`."""

    def __init__(self, root: Path, config: CorpusConfig) -> None:
        self.root = root
        self.config = config

    @staticmethod
    def open(root: Path | str) -> Corpus:
        """Open the corpus at root, validating corpus.yaml."""
        root = Path(root)
        if not root.is_dir():
            raise UsageError(f"{root}: corpus directory not found (use --corpus DIR)")
        path = root / CONFIG
        if not path.exists():
            raise CorpusError(path, "file not found: not a corpus directory")
        return Corpus(root, parse_config(path, load_yaml(path)))

    @staticmethod
    def init(root: Path | str, name: str, repo: str | None = None) -> Corpus:
        """Create a new corpus directory with a minimal corpus.yaml (refuses to overwrite one)."""
        root = Path(root)
        path = root / CONFIG
        if path.exists():
            raise UsageError(f"{path}: a corpus already exists here")
        data: dict[str, Any] = {"name": name}
        if repo is not None:
            data["repo"] = repo
        # A new file has no comments to keep: the fast emitter writes it (and ruamel is not loaded for it).
        atomic_write_text(path, emit(data))
        return Corpus(root, parse_config(path, data))

    # -- source repository -------------------------------------------------------------------------

    def repo_path(self, override: Path | str | None = None) -> Path:
        """The source repository: the override (from --repo), else corpus.yaml's repo relative to the corpus."""
        if override is not None:
            return Path(override).resolve()
        if not self.config.repo:
            raise UsageError(f"{self.root / CONFIG}: no repo configured (set repo: or pass --repo)")
        repo = Path(os.path.expanduser(self.config.repo))
        return (repo if repo.is_absolute() else self.root / repo).resolve()

    # -- reading -----------------------------------------------------------------------------------

    def ids(self, kind: Kind = "cases") -> list[str]:
        """Ids of the cases (or candidates) on disk, sorted; hidden and staging directories skipped."""
        base = self.root / kind
        if not base.is_dir():
            return []
        return sorted(p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith("."))

    def load(self, case_id: str, kind: Kind = "cases") -> StoredCase:
        """Load and validate one case (or candidate) with its hidden files."""
        directory = self.root / kind / check_id(case_id, f"{kind} id")
        path = directory / CASE_FILE
        if not path.exists():
            raise CorpusError(path, f"no {'case' if kind == 'cases' else 'candidate'} {case_id!r}")
        stat = path.stat()
        data = load_yaml(path)
        case = parse_case(path, data, expected_id=directory.name)
        files = read_case_files(directory)
        check_http_files(path, data, case, files)
        for grader_path, _ in files.grader_files:
            if grader_path in case.grader.deleted:
                raise CorpusError(path, f"{grader_path} is both a grader file and deleted", field="grader.deleted")
        return StoredCase(case, files, directory, stat.st_mtime_ns)

    def problems(self, case_id: str, kind: Kind = "cases") -> list[str]:
        """Every problem of a case (or candidate) that does not load, one line each (corpus.schema.case_problems;
        [] when it loads)."""
        try:
            self.load(case_id, kind)
            return []
        except UsageError as error:
            first = error.message
        directory = self.root / kind / case_id
        try:
            found = case_problems(directory / CASE_FILE, load_yaml(directory / CASE_FILE), expected_id=directory.name)
        except UsageError:
            found = []
        lines = [problem.message for problem in found]
        return lines if first in lines else [first, *lines]

    def load_all(self, kind: Kind = "cases", *, active_only: bool = False) -> list[StoredCase]:
        """Every case (or candidate), validated; stops at the first invalid one with its error."""
        stored = [self.load(case_id, kind) for case_id in self.ids(kind)]
        if active_only:
            stored = [s for s in stored if s.case.status == "active"]
        return stored

    def rejections(self) -> tuple[Rejection, ...]:
        """The rejected fix commits."""
        path = self.root / REJECTED_FILE
        if not path.exists():
            return ()
        return parse_rejections(path, load_yaml(path))

    # -- writing -----------------------------------------------------------------------------------

    def write(self, case: Case, files: CaseFiles, kind: Kind = "cases", *,
              expect_mtime_ns: int | None = None, keep: tuple[str, ...] = ()) -> Path:
        """Write a case directory whole and atomically.

        An existing case.yaml is edited in place (comments and key order survive). With expect_mtime_ns,
        the write is refused when the file changed on disk since it was loaded. The files named in keep (a
        candidate's verification.json) are carried over from the directory written over; every other file of
        it goes.
        """
        check_id(case.id, "id")
        target = self.root / kind / case.id
        existing = target / CASE_FILE
        if expect_mtime_ns is not None and existing.exists() and existing.stat().st_mtime_ns != expect_mtime_ns:
            raise UsageError(f"{existing}: changed on disk since it was opened; reload it, nothing was written")
        if not target.exists():
            return write_new(self.root, case, files, kind)
        document: Any
        if existing.exists():
            document = load_yaml(existing)
            if not isinstance(document, dict):
                document = to_yaml_value({})
            merge_into(document, case_mapping(case))
        else:
            document = to_yaml_value(case_mapping(case))
        staged = staging_directory(target.parent, case.id)
        try:
            write_case_files(staged, files)
            for name in keep:
                if (target / name).is_file():
                    shutil.copy2(target / name, staged / name)
            write_yaml(staged / CASE_FILE, document)
            # Validate what we are about to publish: a bad write must never land.
            parse_case(staged / CASE_FILE, load_yaml(staged / CASE_FILE), expected_id=case.id)
            replace_directory(staged, target)
        except BaseException:
            shutil.rmtree(staged, ignore_errors=True)
            raise
        return target

    def remove(self, case_id: str, kind: Kind = "candidates") -> None:
        """Delete a case or candidate directory."""
        target = self.root / kind / check_id(case_id, "id")
        if target.exists():
            trash = target.with_name(f".{target.name}.removed")
            os.replace(target, trash)
            shutil.rmtree(trash)

    def add_rejection(self, rejection: Rejection) -> None:
        """Append a rejection to rejected.yaml (atomically; comments in the file survive)."""
        path = self.root / REJECTED_FILE
        document = load_yaml(path) if path.exists() else None
        if not isinstance(document, dict):
            document = to_yaml_value({})
        self.rejections()  # validate what is there before appending to it
        items = document.get("rejected")
        if items is None:
            document["rejected"] = items = to_yaml_value([])
            items.fa.set_block_style()
        stamped = rejection if rejection.rejected_at else Rejection(
            **{**to_mapping(rejection), "rejected_at": datetime.now(UTC).isoformat(timespec="seconds")})
        items.append(to_yaml_value(to_mapping(stamped)))
        write_yaml(path, document)


BYTECODE_CACHE = "__pycache__"


def read_case_files(directory: Path) -> CaseFiles:
    """Read oracle.patch and every file under grader/ (paths relative to grader/ are repository paths).

    Python's bytecode caches are not grader files: a `pytest` or `compileall` run over a corpus kept inside its
    repository leaves `__pycache__/` beside the grader's tests, and they must not change the case's content."""
    oracle = directory / ORACLE_FILE
    if not oracle.exists():
        raise CorpusError(oracle, "file not found: every case needs its oracle patch")
    return CaseFiles.of(oracle.read_bytes(), _read_tree(directory / GRADER_DIR, "grader"),
                        _read_tree(directory / HTTP_DIR, "HTTP fixture"))


def _read_tree(root: Path, what: str) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    if root.is_dir():
        for path in sorted(root.rglob("*")):
            if BYTECODE_CACHE in path.relative_to(root).parts:
                continue
            if path.is_symlink():
                raise CorpusError(path, f"{what} files must be regular files, not links")
            if path.is_file():
                files[path.relative_to(root).as_posix()] = path.read_bytes()
    return files


def write_case_files(directory: Path, files: CaseFiles) -> None:
    """Write oracle.patch and grader/<path> files into a (staging) case directory."""
    atomic_write_bytes(directory / ORACLE_FILE, files.oracle_patch)
    for path, content in files.grader_files:
        atomic_write_bytes(directory / GRADER_DIR / repo_path(path, "grader file path"), content)
    for path, content in files.http_files:
        atomic_write_bytes(directory / HTTP_DIR / repo_path(path, "HTTP fixture file path"), content)
