"""Fail-closed grading: put the test configuration back to the fix version before the hidden grader runs.

The grader files themselves are written by `runner.grading.grader.materialize_grader`. This module covers what can
change a test run without touching a test file: `conftest.py`, pytest/tox configuration, jest and vitest
configuration, and modules placed at the workspace root that would stand in for the test runner.

Rules (DESIGN.md, "Trials"):
- every `conftest.py`, `pytest.ini`, `.pytest.ini`, `tox.ini`, `jest.config.*` and `vitest.config.*` in the
  workspace or at the fix commit is set to its fix-commit content, and deleted when the fix has no such file;
- `pyproject.toml` and `setup.cfg` are build files too: they are touched only when the agent changed them and
  either the agent's or the fix's version configures pytest (`[tool.pytest` / `[tool:pytest]`); they are then
  set to the fix version (or back to the base version when the fix has none);
- `pytest.py`, `_pytest.py`, `sitecustomize.py`, `usercustomize.py` and `pytest/`, `_pytest/` created at the
  workspace root are removed.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

import pathspec

from corpus.errors import WorkspaceError
from corpus.gitutil import run_git

CONFIG_NAMES = frozenset({"conftest.py", "pytest.ini", ".pytest.ini", "tox.ini"})
CONFIG_PREFIXES = ("jest.config.", "vitest.config.")
SHARED_BUILD = {"pyproject.toml": b"[tool.pytest", "setup.cfg": b"[tool:pytest]"}
ROOT_SHADOWS = frozenset({"pytest.py", "_pytest.py", "sitecustomize.py", "usercustomize.py", "pytest", "_pytest"})
SKIP_DIRS = frozenset({".git", "node_modules"})
# Built-in test-file rules, used when corpus.yaml has no test_globs.
DEFAULT_TEST_GLOBS = ("test_*.py", "*_test.py", "tests/", "test/", "testing/", "__tests__/", "*.test.*",
                      "*.spec.*", "conftest.py")

Cause = Literal["edited", "added", "fix"]


def is_test_config(path: str) -> bool:
    """True for a path whose file name marks test configuration (including the shared build files)."""
    name = PurePosixPath(path).name
    return name in CONFIG_NAMES or name in SHARED_BUILD or name.startswith(CONFIG_PREFIXES)


@dataclass(frozen=True)
class FixConfig:
    """The test configuration files of a case's fix commit, by repository path."""

    files: tuple[tuple[str, bytes], ...]
    """(path, content), sorted by path."""

    def get(self, path: str) -> bytes | None:
        """The fix version of path, or None when the fix has no such file."""
        return dict(self.files).get(path)


def read_fix_config(repo: Path, fix_commit: str) -> FixConfig:
    """Every test configuration file in the fix commit's tree, read once per case."""
    listing = run_git(["ls-tree", "-r", "-z", "--full-tree", fix_commit], repo).stdout
    wanted: list[tuple[str, str]] = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        mode, kind, sha = meta.decode().split()
        path = raw_path.decode("utf-8", "surrogateescape")
        if kind == "blob" and mode != "120000" and is_test_config(path):
            wanted.append((path, sha))
    if not wanted:
        return FixConfig(())
    query = "".join(f"{sha}\n" for _, sha in wanted).encode()
    out = run_git(["cat-file", "--batch"], repo, input=query).stdout
    files, offset = [], 0
    for path, _ in wanted:
        header_end = out.index(b"\n", offset)
        size = int(out[offset:header_end].split()[2])
        files.append((path, out[header_end + 1:header_end + 1 + size]))
        offset = header_end + 1 + size + 1
    return FixConfig(tuple(sorted(files)))


@dataclass(frozen=True)
class RestoreAction:
    """One file put back before grading."""

    path: str
    """Repository path."""
    action: Literal["written", "removed"]
    """Set to the fix (or base) version, or deleted."""
    cause: Cause
    """edited: the agent changed it; added: the agent created it; fix: it differs between base and fix."""


def restore_test_config(
    workspace: Path,
    fix: FixConfig,
    changed: Iterable[str],
    at_setup: Callable[[Iterable[str]], set[str]],
    setup_content: Callable[[str], bytes | None],
    grader_paths: Iterable[str] = (),
) -> tuple[RestoreAction, ...]:
    """Apply the module's rules to the workspace and return what was done.

    changed: paths the candidate patch touches; at_setup(paths): which of paths existed after setup;
    setup_content(path): a file's content after setup; grader_paths are left to the grader's materialization.
    """
    changed = set(changed)
    found = set(_walk_config(workspace))
    candidates = sorted((found | {path for path, _ in fix.files}) - set(grader_paths))
    existed = at_setup(candidates + sorted(ROOT_SHADOWS))
    actions: list[RestoreAction] = []

    def cause_of(path: str) -> Cause:
        if path in existed:
            return "edited" if path in changed else "fix"
        return "added" if path in changed or path in found or _exists(workspace, path) else "fix"

    for path in candidates:
        target_path = _inside(workspace, path)
        current = _read(target_path)
        wanted = fix.get(path)
        name = PurePosixPath(path).name
        if name in SHARED_BUILD:
            if path not in changed or not any(v and SHARED_BUILD[name] in v for v in (current, wanted)):
                continue
            if wanted is None:
                wanted = setup_content(path) if path in existed else None
        if wanted is None:
            if _exists(workspace, path):
                cause = cause_of(path)
                _remove(target_path)
                actions.append(RestoreAction(path, "removed", cause))
        elif current != wanted or target_path.is_symlink():
            cause = cause_of(path)
            _remove(target_path)
            target_path.parent.mkdir(parents=True, exist_ok=True)
            target_path.write_bytes(wanted)
            actions.append(RestoreAction(path, "written", cause))
    for name in sorted(ROOT_SHADOWS):
        if name not in existed and _exists(workspace, name):
            _remove(workspace / name)
            actions.append(RestoreAction(name, "removed", "added"))
    return tuple(actions)


def _walk_config(workspace: Path) -> Iterable[str]:
    for root, dirs, files in os.walk(workspace):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        rel = Path(root).relative_to(workspace)
        for name in files:
            path = (rel / name).as_posix()
            if is_test_config(path):
                yield path


def _inside(workspace: Path, repo_path: str) -> Path:
    pure = PurePosixPath(repo_path)
    if pure.is_absolute() or ".." in pure.parts:
        raise WorkspaceError(f"test configuration path {repo_path!r} escapes the workspace")
    return workspace.joinpath(*pure.parts)


def _exists(workspace: Path, repo_path: str) -> bool:
    path = _inside(workspace, repo_path)
    return path.is_symlink() or path.exists()


def _read(path: Path) -> bytes | None:
    if path.is_symlink() or not path.is_file():
        return None
    return path.read_bytes()


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def spec_for_test_files(globs: tuple[str, ...]) -> pathspec.PathSpec:
    """The gitignore-style spec of test files: the corpus's test_globs, else the built-in rules."""
    return pathspec.GitIgnoreSpec.from_lines(globs or DEFAULT_TEST_GLOBS)


def edited_test_files(changed: Iterable[str], grader_paths: Iterable[str], spec: pathspec.PathSpec) -> list[str]:
    """The changed paths that are grader files or test files."""
    hidden = set(grader_paths)
    return sorted(p for p in changed if p in hidden or spec.match_file(p))
