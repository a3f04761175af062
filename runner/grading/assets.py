"""What every trial and verify attempt of a case shares: its template, pristine checkout and test configuration,
built once per node."""

from __future__ import annotations

import fcntl
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

from corpus import StoredCase
from corpus.errors import HindcastError
from runner.grading.failclosed import FixConfig, is_test_config, read_fix_config
from runner.workspace.workspace import build_template, pristine_workspace, template_tree


@dataclass(frozen=True)
class CaseAssets:
    """What every trial of a case shares, built once per run."""

    template: Path
    """`build_template` git directory of the case's base."""
    pristine: Path
    """`pristine_workspace` of the template: every workspace of the case is a copy of it."""
    base_tree: str
    """The base tree's sha."""
    fix_config: FixConfig
    """Test configuration files at the fix commit."""
    base_config: frozenset[str] = frozenset()
    """Test configuration paths of the base tree."""


class AssetCache:
    """Builds each case's assets once, on first use, one builder per case; a failure is kept as the error.

    The template and its checkout are built under root/<case> once for every process sharing root (a lock file
    and a `ready` mark: the worker processes of a Ray node share theirs)."""

    def __init__(self, repo: Path, root: Path) -> None:
        self.repo, self.root = repo, root
        self.lock = threading.Lock()
        self.locks: dict[str, threading.Lock] = {}
        self.built: dict[str, CaseAssets | HindcastError] = {}

    def get(self, stored: StoredCase) -> CaseAssets | HindcastError:
        """The case's assets, or the error that kept them from being built."""
        case = stored.case
        with self.lock:
            lock = self.locks.setdefault(case.id, threading.Lock())
        with lock:
            if case.id not in self.built:
                try:
                    template, pristine = self._build(case.id, case.base_commit)
                    tree, paths = template_tree(template)
                    self.built[case.id] = CaseAssets(template, pristine, tree,
                                                     read_fix_config(self.repo, case.fix_commit),
                                                     frozenset(p for p in paths if is_test_config(p)))
                except HindcastError as exc:
                    self.built[case.id] = exc
            return self.built[case.id]

    def _build(self, case_id: str, base_commit: str) -> tuple[Path, Path]:
        """The case's template git directory and pristine checkout, built by the first process to get the lock."""
        self.root.mkdir(parents=True, exist_ok=True)
        ready = self.root / f"{case_id}.ready"
        with open(self.root / f"{case_id}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not ready.exists():
                for leftover in (self.root / case_id, self.root / f"{case_id}.tree"):  # a builder that died
                    shutil.rmtree(leftover, ignore_errors=True)
                template = build_template(self.repo, base_commit, self.root / case_id)
                pristine_workspace(template, self.root / f"{case_id}.tree")
                ready.touch()
        return self.root / case_id / ".git", self.root / f"{case_id}.tree"
